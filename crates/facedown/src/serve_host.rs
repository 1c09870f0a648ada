//! The table `facedown serve --table` hosts, kept across restarts (issue 34; docs/hosting.md):
//! the same command on the same data reopens its unfinished table and prints the same links,
//! instead of creating a new table each time.
//!
//! Beside the database (for PostgreSQL, in the user's data directory) the host keeps:
//! - `host.key`: the host's secret key (64 hexadecimal digits, mode 0600), from which the
//!   hosted table's link tokens are derived (`server::Running::create_hosted_table`): the
//!   store keeps only their hashes, as for every table, yet the host can print them again;
//! - `DB.hosted.json`: which table the command made, from which request, at which generation
//!   of its links (no secret).
//!
//! A finished table (over, or closed by its GM) makes way for a new one; so does a different
//! `--table` request (another example, bots, sealed seats or options).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

/// Where the host keeps its key and its hosted table's record.
pub(crate) struct HostFiles {
    key: PathBuf,
    record: PathBuf,
}

/// The hosted table as the record keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Record {
    /// The creation request, as JSON: the same command asks the same.
    pub(crate) request: serde_json::Value,
    /// The table's number.
    pub(crate) table: u64,
    /// The generation of its links (0 at creation).
    pub(crate) generation: u64,
}

impl HostFiles {
    /// The host's files for the database `db` (a file, or a PostgreSQL URL when `postgres`).
    pub(crate) fn for_db(db: &Path, postgres: bool) -> anyhow::Result<HostFiles> {
        let (dir, stem) = if postgres {
            let dir = dirs::data_dir()
                .context("--table: this system has no data directory to keep the host's key in")?
                .join("facedown");
            (dir, "postgres".to_owned())
        } else {
            let dir =
                db.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
            let stem =
                db.file_name().map_or_else(|| "server.db".into(), |n| n.to_string_lossy().into_owned());
            (dir, stem)
        };
        Ok(HostFiles { key: dir.join("host.key"), record: dir.join(format!("{stem}.hosted.json")) })
    }

    /// The host's key, made (mode 0600) if there is none yet.
    pub(crate) fn key(&self) -> anyhow::Result<Vec<u8>> {
        let shown = self.key.display().to_string();
        match std::fs::read_to_string(&self.key) {
            Ok(text) => {
                let text = text.trim();
                if text.len() != 64 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
                    bail!("{shown}: not a host key (64 hexadecimal digits); move it away to make a new one");
                }
                Ok(text.as_bytes().to_vec())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let key = server::new_host_key();
                let mut options = std::fs::OpenOptions::new();
                options.write(true).create_new(true);
                #[cfg(unix)]
                {
                    use std::os::unix::fs::OpenOptionsExt;
                    options.mode(0o600);
                }
                let mut file =
                    options.open(&self.key).with_context(|| format!("making the host key {shown}"))?;
                writeln!(file, "{key}").with_context(|| format!("writing the host key {shown}"))?;
                file.sync_all().with_context(|| format!("writing the host key {shown}"))?;
                Ok(key.into_bytes())
            }
            Err(e) => Err(e).with_context(|| format!("reading the host key {shown}")),
        }
    }

    /// The host's key if there is one (never made here: `facedown tables links`).
    pub(crate) fn existing_key(&self) -> anyhow::Result<Option<Vec<u8>>> {
        if !self.key.exists() {
            return Ok(None);
        }
        self.key().map(Some)
    }

    /// The record of the hosted table, if there is one that can be read (one that cannot is
    /// as none: a new table is made, and the record written anew).
    pub(crate) fn record(&self) -> Option<Record> {
        let text = crate::input::read_bounded(&self.record, crate::input::TEXT_LIMIT).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Keeps `record` (written whole, then moved into place).
    pub(crate) fn keep(&self, record: &Record) -> anyhow::Result<()> {
        let shown = self.record.display().to_string();
        let partial = self.record.with_extension("json.partial");
        let text = serde_json::to_string_pretty(record)?;
        std::fs::write(&partial, text).with_context(|| format!("writing {shown}"))?;
        std::fs::rename(&partial, &self.record).with_context(|| format!("writing {shown}"))?;
        Ok(())
    }
}
