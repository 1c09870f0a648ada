//! Scripted play: JSON lines `{"seat": "gm", "command": <Command>}`, with names allowed for
//! characters, minion groups, Talents and Regions.

use std::path::Path;

use anyhow::{Context, bail};
use inciting_incident::{Command, Scene};
use serde_json::Value;
use table::SeatId;

use crate::script_lines::{ScriptLine, ScriptLines};

/// A script read into memory: the shared line reader, with names resolved to numbers.
pub struct Script {
    lines: ScriptLines,
}

/// One scripted command.
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

    /// The script's name.
    pub fn name(&self) -> &str {
        self.lines.name()
    }

    /// The next command, or `None` at the end.
    pub fn next(&mut self, scene: &Scene) -> anyhow::Result<Option<Scripted>> {
        let Some(ScriptLine { number, at, seat, mut command }) = self.lines.next_line()? else {
            return Ok(None);
        };
        let seat = scene.seats.find(&seat).with_context(|| format!("{at}: unknown seat"))?;
        resolve_names(&mut command, scene, None).with_context(|| format!("{at}: bad command"))?;
        let command: Command =
            serde_json::from_value(command).with_context(|| format!("{at}: not a command"))?;
        Ok(Some(Scripted { line: number, seat, command }))
    }
}

fn fighter(scene: &Scene, name: &str) -> anyhow::Result<u8> {
    scene.find_fighter(name).with_context(|| format!("there is no character named {name:?}"))
}

/// Replaces names by numbers: `character` (and a healing `target`), `{"character": …}` and
/// `{"minions": …}` targets, `talent` (of the acting character), the Regions of `path`, and
/// the side of an ending's `winner` or of a Rising Tension spend's or an adjustment's `side`,
/// and an adjustment's `duel` by its Region.
fn resolve_names(value: &mut Value, scene: &Scene, acting: Option<u8>) -> anyhow::Result<()> {
    let Value::Object(map) = value else {
        if let Value::Array(items) = value {
            for v in items {
                resolve_names(v, scene, acting)?;
            }
        }
        return Ok(());
    };
    let mut acting = acting;
    if let Some(Value::String(name)) = map.get("character") {
        let id = fighter(scene, name)?;
        map.insert("character".into(), Value::from(id));
        acting = acting.or(Some(id));
    } else if let Some(Value::Number(id)) = map.get("character") {
        // A number is checked where a name needs it (a Talent's name); the engine checks the rest.
        acting = acting.or(Some(
            id.as_u64()
                .and_then(|i| u8::try_from(i).ok())
                .filter(|&i| usize::from(i) < scene.fighters.len())
                .with_context(|| format!("there is no character number {id}"))?,
        ));
    }
    for (key, v) in map.iter_mut() {
        match (key.as_str(), &*v) {
            ("minions", Value::String(name)) => {
                let id = scene
                    .find_minions(name)
                    .with_context(|| format!("there is no minion group named {name:?}"))?;
                *v = Value::from(id);
            }
            ("target", Value::String(name)) => *v = Value::from(fighter(scene, name)?),
            ("winner" | "side", Value::String(name)) => {
                let side = scene
                    .setup
                    .sides
                    .iter()
                    .position(|s| s == name)
                    .with_context(|| format!("there is no side named {name:?}"))?;
                *v = Value::from(side);
            }
            ("duel", Value::String(name)) => {
                // A GM adjustment's Duel, by the Region it is fought in.
                let region =
                    scene.find_region(name).with_context(|| format!("there is no Region named {name:?}"))?;
                let duel = scene.duel_in(region).with_context(|| format!("there is no Duel in {name:?}"))?;
                *v = Value::from(duel);
            }
            ("talent", Value::String(name)) => {
                let Some(f) = acting else { bail!("name the character before its Talent {name:?}") };
                let i = scene
                    .fighters
                    .get(usize::from(f))
                    .with_context(|| format!("there is no character number {f}"))?
                    .sheet
                    .talents
                    .iter()
                    .position(|t| &t.name == name)
                    .with_context(|| format!("{} has no Talent named {name:?}", scene.fighter_name(f)))?;
                *v = Value::from(i);
            }
            ("path", Value::Array(items)) => {
                let mut ids = Vec::new();
                for item in items {
                    ids.push(match item {
                        Value::String(name) => Value::from(
                            scene
                                .find_region(name)
                                .with_context(|| format!("there is no Region named {name:?}"))?,
                        ),
                        other => other.clone(),
                    });
                }
                *v = Value::Array(ids);
            }
            _ => resolve_names(v, scene, acting)?,
        }
    }
    Ok(())
}
