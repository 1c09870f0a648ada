//! Scripted play: JSON lines `{"seat": "gm", "command": <Command>}`, with names allowed for
//! characters, minion groups, Talents and Regions.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, bail};
use inciting_incident::{Command, Scene};
use serde::Deserialize;
use serde_json::Value;
use table::SeatId;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    seat: String,
    command: Value,
}

/// A script read into memory.
pub struct Script {
    name: String,
    lines: Vec<(usize, String)>,
    next: usize,
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

    /// The script's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The next command, or `None` at the end.
    pub fn next(&mut self, scene: &Scene) -> anyhow::Result<Option<Scripted>> {
        let Some((n, text)) = self.lines.get(self.next) else { return Ok(None) };
        let n = *n;
        self.next += 1;
        let at = format!("{} line {n}", self.name);
        let line: Line = serde_json::from_str(text)
            .with_context(|| format!("{at}: not a script line {{\"seat\": …, \"command\": …}}"))?;
        let seat = scene.seats.find(&line.seat).with_context(|| format!("{at}: unknown seat"))?;
        let mut command = line.command;
        resolve_names(&mut command, scene, None).with_context(|| format!("{at}: bad command"))?;
        let command: Command =
            serde_json::from_value(command).with_context(|| format!("{at}: not a command"))?;
        Ok(Some(Scripted { line: n, seat, command }))
    }
}

fn fighter(scene: &Scene, name: &str) -> anyhow::Result<u8> {
    scene.find_fighter(name).with_context(|| format!("there is no character named {name:?}"))
}

/// Replaces names by numbers: `character` (and a healing `target`), `{"character": …}` and
/// `{"minions": …}` targets, `talent` (of the acting character), the Regions of `path`, and
/// the side of an ending's `winner`.
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
        acting = acting.or(id.as_u64().map(|i| i as u8));
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
            ("winner", Value::String(name)) => {
                let side = scene
                    .setup
                    .sides
                    .iter()
                    .position(|s| s == name)
                    .with_context(|| format!("there is no side named {name:?}"))?;
                *v = Value::from(side);
            }
            ("talent", Value::String(name)) => {
                let Some(f) = acting else { bail!("name the character before its Talent {name:?}") };
                let i = scene.fighters[usize::from(f)]
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
