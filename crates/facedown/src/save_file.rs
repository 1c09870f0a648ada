//! Writing a save file atomically, for every game: a crash, a full disk or a kill at any
//! moment leaves either the old save or the new one, never half a file.
//!
//! The one implementation is [`store::write_atomic`] (temporary file created new with mode
//! 0600, fsync, rename over the save, fsync of the folder), shared with the store's
//! [`store::SaveFile`]; this is the CLI's door to it until the session layer saves through
//! the `Persist` interface.

use std::path::Path;

/// Writes `text` to `path` atomically, with mode 0600 on Unix.
pub fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    store::write_atomic(path, text).map_err(anyhow::Error::from)
}
