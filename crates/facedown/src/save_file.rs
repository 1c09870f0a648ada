//! Writing a save file atomically, for every game: a crash, a full disk or a kill at any
//! moment leaves either the old save or the new one, never half a file.
//!
//! The text goes to a fresh temporary file in the save's folder (created new, mode 0600: a
//! save can hold face-down choices), which is flushed to disk, renamed over the save, and then
//! the folder itself is flushed so the rename survives a power cut. The temporary file's name
//! is unique to this write, so a stale one left by a crash (or anything else lying at
//! `save.json.tmp`) never blocks a later save.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

/// Writes `text` to `path` atomically, with mode 0600 on Unix.
pub fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let base = path.file_name().with_context(|| format!("{} is not a file name", path.display()))?;
    let (tmp, mut file) = create_temp(&dir, base)?;
    let written = file
        .write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("cannot write {}", tmp.display()))
        .and_then(|()| {
            drop(file);
            std::fs::rename(&tmp, path)
                .with_context(|| format!("cannot rename {} to {}", tmp.display(), path.display()))
        });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    sync_dir(&dir).with_context(|| format!("cannot flush the folder {}", dir.display()))
}

/// Creates a new, empty temporary file next to the save: `.NAME.PID-N.tmp`, trying further
/// numbers while a name is taken.
fn create_temp(dir: &Path, base: &std::ffi::OsStr) -> anyhow::Result<(PathBuf, std::fs::File)> {
    let pid = std::process::id();
    let mut last = None;
    for n in 0..100u32 {
        let mut name = std::ffi::OsString::from(".");
        name.push(base);
        name.push(format!(".{pid}-{n}.tmp"));
        let tmp = dir.join(name);
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        match options.open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e).with_context(|| format!("cannot create {}", tmp.display())),
        }
    }
    Err(last.expect("tried at least once"))
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))
}

/// Flushes a folder's entries (the rename) to disk; a no-op where folders cannot be opened.
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::fs::File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_save_replaces_the_old_one_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.json");
        write_atomic(&path, "one").unwrap();
        write_atomic(&path, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_save_is_readable_by_its_owner_only() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.json");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        write_atomic(&path, "new").unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }

    #[test]
    fn stale_temporary_files_never_block_a_save() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.json");
        std::fs::create_dir(dir.path().join("game.json.tmp")).unwrap();
        let pid = std::process::id();
        std::fs::write(dir.path().join(format!(".game.json.{pid}-0.tmp")), "stale").unwrap();
        write_atomic(&path, "fresh").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "fresh");
    }
}
