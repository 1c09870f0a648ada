//! The script format every `play` command reads: one JSON object a line,
//! `{"seat": NAME, "command": …}`; blank lines and lines starting with `#` or `//` are skipped.
//! This module reads and splits the lines; each ruleset's player turns names into ids and
//! the command into its own type.

use std::path::Path;

use anyhow::Context;
use serde::Deserialize;
use serde_json::Value;

/// One line of a script as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    /// The seat giving the command, by name.
    seat: String,
    /// The command, in the serde form of the ruleset's command (names still to resolve).
    command: Value,
}

/// A script read into memory.
pub struct ScriptLines {
    name: String,
    lines: Vec<(usize, String)>,
    next: usize,
}

/// One line of a script, its seat and command not yet checked against the game.
pub struct ScriptLine {
    /// The line number, from 1.
    pub number: usize,
    /// Where the line is, for messages: `FILE line N`.
    pub at: String,
    /// The seat's name.
    pub seat: String,
    /// The command as written.
    pub command: Value,
}

impl ScriptLines {
    /// Reads a script file, or standard input for `-`.
    pub fn open(path: &Path) -> anyhow::Result<ScriptLines> {
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
        Ok(ScriptLines { name, lines, next: 0 })
    }

    /// The script's name, for messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The next line, or `None` at the end of the script.
    pub fn next_line(&mut self) -> anyhow::Result<Option<ScriptLine>> {
        let Some((number, text)) = self.lines.get(self.next) else {
            return Ok(None);
        };
        let number = *number;
        self.next += 1;
        let at = format!("{} line {number}", self.name);
        let line: Line = serde_json::from_str(text)
            .with_context(|| format!("{at}: not a script line {{\"seat\": …, \"command\": …}}"))?;
        Ok(Some(ScriptLine { number, at, seat: line.seat, command: line.command }))
    }
}
