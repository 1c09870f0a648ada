//! Scripted play: JSON lines `{"seat": "gm", "command": <Command>}`.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, bail};
use iron_triangle::view::ConflictView;
use iron_triangle::{Command, Conflict, Play};
use serde::Deserialize;
use serde_json::Value;
use table::{SeatId, Viewer};

use super::input::seat_member;

/// One line of a script.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    /// The seat giving the command.
    seat: String,
    /// The command, in the serde form of [`Command`], with names allowed for characters and
    /// moves.
    command: Value,
}

/// A script read into memory.
pub struct Script {
    name: String,
    lines: Vec<(usize, String)>,
    next: usize,
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
        let (name, text) = if path.as_os_str() == "-" {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).context("cannot read the script from standard input")?;
            ("(stdin)".to_owned(), s)
        } else {
            let s = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the script {}", path.display()))?;
            (path.display().to_string(), s)
        };
        let lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim().to_owned()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#') && !l.starts_with("//"))
            .collect();
        Ok(Script { name, lines, next: 0 })
    }

    /// The script's name, for messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The next command, or `None` at the end of the script.
    pub fn next(&mut self, conflict: &Conflict) -> anyhow::Result<Option<Scripted>> {
        let Some((n, text)) = self.lines.get(self.next) else {
            return Ok(None);
        };
        let n = *n;
        self.next += 1;
        let at = || format!("{} line {n}", self.name);
        let line: Line = serde_json::from_str(text)
            .with_context(|| format!("{}: not a script line {{\"seat\": …, \"command\": …}}", at()))?;
        let seat = conflict.seats.find(&line.seat).with_context(|| format!("{}: unknown seat", at()))?;
        let view = conflict.view(Viewer::Seat(seat));
        let mut command = line.command;
        resolve_names(&mut command, conflict, &view, &line.seat)
            .with_context(|| format!("{}: bad command", at()))?;
        let command: Command =
            serde_json::from_value(command).with_context(|| format!("{}: not a command", at()))?;
        Ok(Some(Scripted { line: n, seat, command }))
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
