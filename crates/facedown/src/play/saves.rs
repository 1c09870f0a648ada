//! `--save` and `--resume`: a game's [`Record`] kept in a [`store::SaveFile`] through the
//! [`Persist`] interface — one game per file, its entries appended as the game goes, the whole
//! file rewritten (atomically) only when the record is not a continuation of what is stored
//! (a new game, an undo).
//!
//! The saves of facedown before the session layer (`{"initial": …, "events": …}`, one format
//! per system) are refused with a message saying so: they hold events, not commands.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use session::{Entry as Given, How, Record, Session};
use store::{Entry, EventsHash, GameId, Mark, NewGame, Persist, SaveFile};
use table::Ruleset;
use tokio::runtime::Runtime;

/// Keeps one game's record in a save file.
pub struct Saver {
    rt: Runtime,
    path: PathBuf,
    /// The open file, its game and the entries stored in it.
    file: Option<(SaveFile, GameId, Vec<Entry>)>,
}

fn mark(how: How) -> Mark {
    match how {
        How::Given => Mark::Played,
        How::Forced => Mark::Forced,
        How::Undo => Mark::Undo,
    }
}

impl Saver {
    /// A saver writing to `path` on the runtime `rt`.
    pub fn new(rt: Runtime, path: PathBuf) -> Saver {
        Saver { rt, path, file: None }
    }

    /// Brings the save up to `record`.
    pub fn write<R: Ruleset>(&mut self, record: &Record<R>) -> anyhow::Result<()> {
        let entries: Vec<Entry> = record
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                Ok(Entry {
                    seq: i as u64,
                    seat: e.seat,
                    command: serde_json::to_string(&e.command)?,
                    mark: mark(e.how),
                })
            })
            .collect::<anyhow::Result<_>>()?;
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
        let game = NewGame {
            ruleset: record.ruleset.clone(),
            ruleset_version: record.version.to_string(),
            setup: serde_json::to_string(&record.setup)?,
            seeds: Vec::new(),
        };
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
    let (game, entries) = rt
        .block_on(async {
            let file = SaveFile::open(path).await?;
            let game = file
                .games()
                .await?
                .pop()
                .ok_or_else(|| store::PersistError::Format(format!("{name} holds no game")))?;
            let entries = file.entries(game.id).await?;
            Ok::<_, store::PersistError>((game, entries))
        })
        .with_context(|| format!("cannot resume {name}"))?;
    if game.game.ruleset != R::NAME {
        bail!("{name} is a save of a {} game, not {}", game.game.ruleset, R::NAME);
    }
    let corrupt = |what: String| anyhow::anyhow!("{name}: corrupt save: {what}");
    let setup: R::Setup =
        serde_json::from_str(&game.game.setup).map_err(|e| corrupt(format!("its setup: {e}")))?;
    let mut given = Vec::with_capacity(entries.len());
    for e in entries {
        let command: R::Command =
            serde_json::from_str(&e.command).map_err(|err| corrupt(format!("entry {}: {err}", e.seq + 1)))?;
        let how = match e.mark {
            Mark::Played => How::Given,
            Mark::Forced => How::Forced,
            Mark::Undo => How::Undo,
        };
        given.push(Given { seat: e.seat, command, how });
    }
    let record = Record::<R> {
        ruleset: game.game.ruleset.clone(),
        version: game.game.ruleset_version.parse().map_err(|_| corrupt("its ruleset version".into()))?,
        setup,
        entries: given,
        events_hash: game.events_hash.map(|h| h.hash).unwrap_or_default(),
    };
    Session::resume(record).map_err(|e| anyhow::anyhow!("{name}: cannot resume the game: {e}"))
}
