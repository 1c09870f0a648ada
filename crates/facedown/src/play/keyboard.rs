//! The keyboard of a hot-seat game: a terminal (hidden entry without echo) or piped lines.

use std::io::{BufRead, IsTerminal, Write};

/// The keyboard: a terminal (hidden entry without echo) or piped lines.
pub struct Keyboard {
    tty: bool,
    stdin: std::io::StdinLock<'static>,
}

impl Keyboard {
    /// The process's standard input.
    pub fn new() -> Self {
        let stdin = std::io::stdin();
        Keyboard { tty: stdin.is_terminal(), stdin: stdin.lock() }
    }

    /// Whether a person types at a terminal (rather than a pipe).
    pub fn is_terminal(&self) -> bool {
        self.tty
    }

    /// Reads one answer; `None` when the input has ended. A hidden answer is typed without
    /// echo on a terminal; from a pipe it is read as a plain line (and never printed).
    pub fn read(
        &mut self,
        prompt: &str,
        hidden: bool,
        out: &mut dyn Write,
    ) -> anyhow::Result<Option<String>> {
        if self.tty && hidden {
            out.flush()?;
            return match rpassword::prompt_password(prompt) {
                Ok(s) => Ok(Some(s)),
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
                Err(e) => Err(e.into()),
            };
        }
        write!(out, "{prompt}")?;
        out.flush()?;
        let mut line = String::new();
        if self.stdin.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(None);
        }
        if !self.tty {
            // The typed line is not echoed by a pipe; end the prompt's line.
            writeln!(out)?;
        }
        Ok(Some(line.trim().to_owned()))
    }
}
