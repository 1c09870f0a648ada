//! `--save` and `--resume`: a game's [`Record`] kept in a [`store::SaveFile`] through the
//! [`Persist`] interface — one game per file, its entries appended as the game goes, the whole
//! file rewritten (atomically) only when the record is not a continuation of what is stored
//! (a new game, an undo).
//!
//! The saves of facedown before the session layer (`{"initial": …, "events": …}`, one format
//! per system) are refused with a message saying so: they hold events, not commands.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use session::{Record, Session};
use store::sessions;
use store::{Entry, EventsHash, GameId, Persist, SaveFile};
use table::Ruleset;
use tokio::runtime::Runtime;

/// Keeps one game's record in a save file.
pub struct Saver {
    rt: Runtime,
    path: PathBuf,
    /// The open file, its game and the entries stored in it.
    file: Option<(SaveFile, GameId, Vec<Entry>)>,
}

impl Saver {
    /// A saver writing to `path` on the runtime `rt`.
    pub fn new(rt: Runtime, path: PathBuf) -> Saver {
        Saver { rt, path, file: None }
    }

    /// Brings the save up to `record`.
    pub fn write<R: Ruleset>(&mut self, record: &Record<R>) -> anyhow::Result<()> {
        let entries = sessions::rows(record)?;
        let hash = EventsHash { entries: entries.len() as u64, hash: record.events_hash.clone() };
        let name = self.path.display().to_string();
        if let Some((file, game, stored)) = &mut self.file
            && entries.starts_with(stored)
        {
            let new = &entries[stored.len()..];
            self.rt
                .block_on(async {
                    for e in new {
                        file.append(*game, e).await?;
                    }
                    file.set_events_hash(*game, &hash).await
                })
                .with_context(|| format!("cannot write the save {name}"))?;
            stored.extend_from_slice(new);
            return Ok(());
        }
        // A new file: written beside the save, then renamed over it.
        let dir = match self.path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let base = self.path.file_name().with_context(|| format!("{name} is not a file name"))?;
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(base);
        tmp_name.push(format!(".new-{}", std::process::id()));
        let tmp = dir.join(tmp_name);
        let _ = std::fs::remove_file(&tmp);
        let game = sessions::new_game(record)?;
        let written = self.rt.block_on(async {
            let file = SaveFile::open(&tmp).await?;
            let id = file.create_game(&game).await?;
            for e in &entries {
                file.append(id, e).await?;
            }
            file.set_events_hash(id, &hash).await?;
            Ok::<_, store::PersistError>(id)
        });
        let id = match written {
            Ok(id) => id,
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                return Err(e).with_context(|| format!("cannot write the save {name}"));
            }
        };
        std::fs::rename(&tmp, &self.path).with_context(|| format!("cannot write the save {name}"))?;
        let file =
            self.rt.block_on(SaveFile::open(&self.path)).with_context(|| format!("cannot reopen {name}"))?;
        self.file = Some((file, id, entries));
        Ok(())
    }
}

/// Whether `text` is a save of facedown before the session layer.
fn old_format(value: &serde_json::Value) -> bool {
    value.get("initial").is_some() && value.get("events").is_some()
}

/// Reads the save at `path` and resumes its game.
pub fn read<R: Ruleset>(rt: &Runtime, path: &Path) -> anyhow::Result<Session<R>> {
    let name = path.display();
    let text = crate::input::read_bounded(path, crate::input::SAVE_LIMIT)
        .with_context(|| format!("cannot read the save {name}"))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{name} is not a facedown save"))?;
    if old_format(&value) {
        bail!(
            "{name} is a save of the old format (facedown before version 0.14 kept events, not commands) \
             and cannot be resumed: start the game again from its setup file, or finish it with the \
             facedown that wrote it (docs/play.md, \"Old saves\")"
        );
    }
    rt.block_on(async {
        let file = SaveFile::open(path).await?;
        let game = file
            .games()
            .await?
            .pop()
            .ok_or_else(|| store::PersistError::Format(format!("{name} holds no game")))?;
        if game.game.ruleset != R::NAME {
            bail!("{name} is a save of a {} game, not {}", game.game.ruleset, R::NAME);
        }
        Ok(sessions::load::<_, R>(&file, game.id).await?.0)
    })
    .with_context(|| format!("cannot resume {name}"))
}
