//! A save file: one JSON document holding games and their entries, versioned, and written
//! atomically after every change — a crash, a full disk or a kill at any moment leaves either
//! the old save or the new one, never half a file.
//!
//! The text goes to a fresh temporary file in the save's folder (created new, mode 0600: a
//! save can hold face-down choices), which is flushed to disk, renamed over the save, and then
//! the folder itself is flushed so the rename survives a power cut. The temporary file's name
//! is unique to this write, so a stale one left by a crash (or anything else lying at
//! `save.json.tmp`) never blocks a later save.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;

use crate::{Entry, EventsHash, GameId, GameRecord, NewGame, Persist, PersistError, check_json};

/// The `format` field of a save file.
pub const SAVE_FORMAT: &str = "facedown-save";
/// The version of the save format this build writes and reads.
pub const SAVE_VERSION: u32 = 1;

/// Writes `text` to `path` atomically, with mode 0600 on Unix. The error names the file.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    write_atomic_with(path, |file| file.write_all(text.as_bytes()))
}

/// As [`write_atomic`], with the text written by `write` piece by piece (a document too large
/// to hold in memory at once); nothing is left at `path` or beside it if `write` fails.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<&std::fs::File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let context =
        |what: String| move |e: std::io::Error| std::io::Error::new(e.kind(), format!("{what}: {e}"));
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let base = path.file_name().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is not a file name", path.display()),
        )
    })?;
    let (tmp, file) = create_temp(&dir, base)?;
    let written = {
        let mut out = std::io::BufWriter::new(&file);
        write(&mut out).and_then(|()| out.flush())
    }
    .and_then(|()| file.sync_all())
    .map_err(context(format!("cannot write {}", tmp.display())))
    .and_then(|()| {
        drop(file);
        std::fs::rename(&tmp, path).map_err(context(format!(
            "cannot rename {} to {}",
            tmp.display(),
            path.display()
        )))
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    sync_dir(&dir).map_err(context(format!("cannot flush the folder {}", dir.display())))
}

/// Creates a new, empty temporary file next to the save: `.NAME.PID-N.tmp`, trying further
/// numbers while a name is taken.
fn create_temp(dir: &Path, base: &std::ffi::OsStr) -> std::io::Result<(PathBuf, std::fs::File)> {
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
            Err(e) => {
                return Err(std::io::Error::new(e.kind(), format!("cannot create {}: {e}", tmp.display())));
            }
        }
    }
    let kind = last.map_or(std::io::ErrorKind::AlreadyExists, |e| e.kind());
    Err(std::io::Error::new(kind, format!("cannot create a temporary file in {}", dir.display())))
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

/// The document in a save file.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Doc {
    format: String,
    version: u32,
    games: Vec<SavedGame>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct SavedGame {
    #[serde(flatten)]
    record: GameRecord,
    entries: Vec<Entry>,
}

/// Games kept in one save file (`*.json`), rewritten atomically on every change. For one
/// person's local games; several processes must not write the same file at once.
pub struct SaveFile {
    path: PathBuf,
    doc: Mutex<Doc>,
}

impl SaveFile {
    /// Opens the save file at `path`, or starts an empty one there (written on the first
    /// change). A file of another format, or of a newer version, is refused and left as it is.
    pub async fn open(path: &Path) -> Result<SaveFile, PersistError> {
        let p = path.to_owned();
        let text = blocking(move || match std::fs::read_to_string(&p) {
            Ok(t) => Ok(Some(t)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(PersistError::Io(format!("cannot read {}: {e}", p.display()))),
        })
        .await??;
        let shown = path.display();
        let doc = match text {
            None => Doc { format: SAVE_FORMAT.into(), version: SAVE_VERSION, games: Vec::new() },
            Some(t) => {
                let head: serde_json::Value = serde_json::from_str(&t).map_err(|e| {
                    PersistError::Format(format!("{shown} is not a facedown save (not JSON: {e})"))
                })?;
                if head.get("format").and_then(|f| f.as_str()) != Some(SAVE_FORMAT) {
                    return Err(PersistError::Format(format!(
                        "{shown} is not a facedown save (no \"format\": \"{SAVE_FORMAT}\"); it was left unchanged"
                    )));
                }
                let version = head.get("version").and_then(serde_json::Value::as_u64);
                if version != Some(u64::from(SAVE_VERSION)) {
                    return Err(PersistError::Format(format!(
                        "{shown} is a save of format version {}, this facedown reads version {SAVE_VERSION}",
                        version.map_or_else(|| "(none)".to_owned(), |v| v.to_string())
                    )));
                }
                serde_json::from_value(head).map_err(|e| PersistError::Corrupt(format!("{shown}: {e}")))?
            }
        };
        Ok(SaveFile { path: path.to_owned(), doc: Mutex::new(doc) })
    }

    /// The save file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Applies `change` to a copy of the document, writes it, and keeps it once written.
    async fn change<T>(
        &self,
        change: impl FnOnce(&mut Doc) -> Result<T, PersistError>,
    ) -> Result<T, PersistError> {
        let mut doc = self.doc.lock().await;
        let mut next = doc.clone();
        let out = change(&mut next)?;
        let text = serde_json::to_string_pretty(&next)
            .map_err(|e| PersistError::Corrupt(format!("cannot encode the save: {e}")))?
            + "\n";
        let path = self.path.clone();
        blocking(move || write_atomic(&path, &text).map_err(|e| PersistError::Io(e.to_string()))).await??;
        *doc = next;
        Ok(out)
    }

    async fn with_game<T>(&self, id: GameId, f: impl FnOnce(&SavedGame) -> T) -> Result<T, PersistError> {
        let doc = self.doc.lock().await;
        doc.games.iter().find(|g| g.record.id == id).map(f).ok_or(PersistError::NoGame(id))
    }
}

/// Runs blocking file work off the async threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, PersistError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| PersistError::Io(format!("the file task failed: {e}")))
}

fn game_mut(doc: &mut Doc, id: GameId) -> Result<&mut SavedGame, PersistError> {
    doc.games.iter_mut().find(|g| g.record.id == id).ok_or(PersistError::NoGame(id))
}

impl Persist for SaveFile {
    async fn create_game(&self, game: &NewGame) -> Result<GameId, PersistError> {
        check_json("setup", &game.setup)?;
        self.change(|doc| {
            let id = GameId(doc.games.iter().map(|g| g.record.id.0).max().unwrap_or(0) + 1);
            doc.games.push(SavedGame {
                record: GameRecord { id, game: game.clone(), events_hash: None },
                entries: Vec::new(),
            });
            Ok(id)
        })
        .await
    }

    async fn append(&self, game: GameId, entry: &Entry) -> Result<(), PersistError> {
        check_json("command", &entry.command)?;
        self.change(|doc| {
            let g = game_mut(doc, game)?;
            let expected = g.entries.len() as u64;
            if entry.seq != expected {
                return Err(PersistError::Sequence { game, expected, got: entry.seq });
            }
            g.entries.push(entry.clone());
            Ok(())
        })
        .await
    }

    async fn entries(&self, game: GameId) -> Result<Vec<Entry>, PersistError> {
        self.with_game(game, |g| g.entries.clone()).await
    }

    async fn game(&self, game: GameId) -> Result<GameRecord, PersistError> {
        self.with_game(game, |g| g.record.clone()).await
    }

    async fn games(&self) -> Result<Vec<GameRecord>, PersistError> {
        Ok(self.doc.lock().await.games.iter().map(|g| g.record.clone()).collect())
    }

    async fn set_events_hash(&self, game: GameId, hash: &EventsHash) -> Result<(), PersistError> {
        self.change(|doc| {
            let g = game_mut(doc, game)?;
            let have = g.entries.len() as u64;
            if hash.entries > have {
                return Err(PersistError::HashBeyondEnd { game, entries: hash.entries, have });
            }
            g.record.events_hash = Some(hash.clone());
            Ok(())
        })
        .await
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
