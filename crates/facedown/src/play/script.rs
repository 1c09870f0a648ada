//! The script format every `play` command reads: one JSON object a line,
//! `{"seat": NAME, "command": …}` (the command in the ruleset's serde form, names allowed),
//! `{"seat": "gm", "undo": true}` or `{"seat": NAME, "take_back": true}`; blank lines and lines
//! starting with `#` or `//` are skipped.

use std::path::Path;

use anyhow::{Context, bail};
use serde::Deserialize;
use serde_json::Value;

/// One line of a script as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    seat: String,
    #[serde(default)]
    command: Option<Value>,
    #[serde(default)]
    undo: bool,
    #[serde(default)]
    take_back: bool,
    /// The GM calls for this seat's decision to be taken by the rules' default.
    #[serde(default)]
    force: Option<String>,
}

/// What a line asks for.
pub enum What {
    /// A command, names not yet resolved.
    Command(Value),
    /// The GM's undo of the last public command.
    Undo,
    /// The seat takes back its face-down choice.
    TakeBack,
    /// The GM (the line's seat) forces the named seat's decision: the rules' default.
    Force(String),
}

/// One line of a script.
pub struct Line {
    /// Where it is, for messages: `FILE line N`.
    pub at: String,
    /// The seat's name.
    pub seat: String,
    /// What it asks for.
    pub what: What,
}

/// A script read into memory.
pub struct Script {
    name: String,
    lines: Vec<(usize, String)>,
    next: usize,
}

impl Script {
    /// Reads a script file, or standard input for `-`.
    pub fn open(path: &Path) -> anyhow::Result<Script> {
        let (name, text) = if path.as_os_str() == "-" {
            let s = crate::input::read_stdin_bounded(crate::input::TEXT_LIMIT)
                .context("cannot read the script from standard input")?;
            ("(stdin)".to_owned(), s)
        } else {
            let s = crate::input::read_bounded(path, crate::input::TEXT_LIMIT)
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

    /// The next line, or `None` at the end of the script.
    pub fn next_line(&mut self) -> anyhow::Result<Option<Line>> {
        let Some((number, text)) = self.lines.get(self.next) else { return Ok(None) };
        self.next += 1;
        let at = format!("{} line {number}", self.name);
        let raw: Raw = serde_json::from_str(text)
            .with_context(|| format!("{at}: not a script line {{\"seat\": …, \"command\": …}}"))?;
        let what = match (raw.command, raw.undo, raw.take_back, raw.force) {
            (Some(c), false, false, None) => What::Command(c),
            (None, true, false, None) => What::Undo,
            (None, false, true, None) => What::TakeBack,
            (None, false, false, Some(seat)) => What::Force(seat),
            _ => bail!(
                "{at}: give exactly one of \"command\", \"undo\": true, \"take_back\": true or \"force\": SEAT"
            ),
        };
        Ok(Some(Line { at, seat: raw.seat, what }))
    }
}
