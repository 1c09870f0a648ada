//! Scripted play: JSON lines `{"seat": "gm", "command": <Command>}`.

use std::path::Path;

use anyhow::{Context, bail};
use iron_triangle::view::ConflictView;
use iron_triangle::{Command, Conflict, Play};
use serde_json::Value;
use table::{SeatId, Viewer};

use super::input::seat_member;
use crate::script_lines::{ScriptLine, ScriptLines};

/// A script read into memory.
pub struct Script {
    lines: ScriptLines,
}

/// One scripted command, ready to submit.
pub struct Scripted {
    /// The line number (from 1).
    pub line: usize,
    /// The seat.
    pub seat: SeatId,
    /// The command.
    pub command: Command,
}

impl Script {
    /// Reads a script file, or standard input for `-`.
    pub fn open(path: &Path) -> anyhow::Result<Script> {
        Ok(Script { lines: ScriptLines::open(path)? })
    }

    /// The script's name, for messages.
    pub fn name(&self) -> &str {
        self.lines.name()
    }

    /// The next command, or `None` at the end of the script.
    pub fn next(&mut self, conflict: &Conflict) -> anyhow::Result<Option<Scripted>> {
        let Some(ScriptLine { number, at, seat: seat_name, mut command }) = self.lines.next_line()? else {
            return Ok(None);
        };
        let seat = conflict.seats.find(&seat_name).with_context(|| format!("{at}: unknown seat"))?;
        let view = conflict.view(Viewer::Seat(seat));
        resolve_names(&mut command, conflict, &view, &seat_name)
            .with_context(|| format!("{at}: bad command"))?;
        let command: Command =
            serde_json::from_value(command).with_context(|| format!("{at}: not a command"))?;
        Ok(Some(Scripted { line: number, seat, command }))
    }
}

/// Replaces character names by their ids (keys `fighter`, `opponent`, `to`, `target`) and the
/// seat's move names by their symbols (key `play`).
fn resolve_names(
    value: &mut Value,
    conflict: &Conflict,
    view: &ConflictView,
    seat_name: &str,
) -> anyhow::Result<()> {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match (key.as_str(), &*v) {
                    ("fighter" | "opponent" | "to" | "target", Value::String(name)) => {
                        let id = conflict
                            .find(name)
                            .with_context(|| format!("there is no character named {name:?}"))?;
                        *v = Value::from(id.0);
                    }
                    ("play", Value::String(text)) if text.parse::<Play>().is_err() => {
                        let card = seat_member(view, seat_name)
                            .and_then(|id| conflict.fighter(id).character.find_move(text))
                            .with_context(|| {
                                format!("{text:?} is not a move of the character {seat_name} plays now")
                            })?;
                        *v = Value::from(card.to_string());
                    }
                    _ => resolve_names(v, conflict, view, seat_name)?,
                }
            }
        }
        Value::Array(items) => {
            for v in items {
                resolve_names(v, conflict, view, seat_name)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Fails when a script line is for a seat a bot plays.
pub fn check_not_bot(s: &Scripted, bot: bool, conflict: &Conflict, script: &str) -> anyhow::Result<()> {
    if bot {
        bail!(
            "{script} line {}: seat {} is played by a bot (--bot); a script gives only the commands of seats without one",
            s.line,
            conflict.seat_name(s.seat)
        );
    }
    Ok(())
}
