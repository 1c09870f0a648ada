//! Reading input files safely and showing what came from them safely.
//!
//! - [`read_bounded`] and [`read_stdin_bounded`] read a whole text file (or standard input)
//!   with a size limit, so a sheet given as `/dev/zero` or a huge file is refused with a clear
//!   error instead of filling the memory.
//! - [`excerpt`] shortens a value quoted in an error message; [`clean_error`] applies it to
//!   every line of a whole error message, so a bad 300 MB value is never printed whole.
//! - [`escape`] (and the [`Shown`] wrapper) escape control characters in names and free text
//!   read from files before they reach a terminal: no file can move the cursor, clear the
//!   screen or forge a line of output. Printable Unicode (☷, ▨, accents) is kept.

use std::borrow::Cow;
use std::fmt;
use std::io::Read;
use std::path::Path;

use thiserror::Error;

/// The size limit of a hand-written input file: a sheet, a conflict, scene or hand file, a
/// script, a matrix. Far above any real one.
pub const TEXT_LIMIT: u64 = 4 << 20;

/// The size limit of a save file (a long game's event log is larger than a setup).
pub const SAVE_LIMIT: u64 = 64 << 20;

/// How many characters of a value an error message quotes.
pub const EXCERPT_CHARS: usize = 160;

/// Why an input file could not be read.
#[derive(Debug, Error)]
pub enum ReadError {
    /// The operating system refused (no such file, a directory, no permission...).
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The file is larger than the limit for its kind.
    #[error("{name} is larger than the limit of {} for this kind of file", size_text(*.limit))]
    TooLarge {
        /// The file, as shown to the user.
        name: String,
        /// The limit in bytes.
        limit: u64,
    },
    /// The file is not UTF-8 text.
    #[error("{name} is not UTF-8 text")]
    NotText {
        /// The file, as shown to the user.
        name: String,
    },
}

/// A byte count for people: "4 MiB", "512 bytes".
fn size_text(bytes: u64) -> String {
    if bytes >= 1 << 20 && (bytes >> 20) << 20 == bytes {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && (bytes >> 10) << 10 == bytes {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

/// Reads the whole text file at `path`, refusing one larger than `limit` bytes (checked while
/// reading, so endless devices such as `/dev/zero` are refused too).
pub fn read_bounded(path: &Path, limit: u64) -> Result<String, ReadError> {
    let name = escape(&path.display().to_string()).into_owned();
    let file = std::fs::File::open(path)?;
    if let Ok(meta) = file.metadata() {
        if meta.is_dir() {
            return Err(std::io::Error::other("it is a directory").into());
        }
        if meta.is_file() && meta.len() > limit {
            return Err(ReadError::TooLarge { name, limit });
        }
    }
    read_from(file, name, limit)
}

/// Reads standard input to its end, refusing more than `limit` bytes.
pub fn read_stdin_bounded(limit: u64) -> Result<String, ReadError> {
    read_from(std::io::stdin().lock(), "standard input".to_owned(), limit)
}

fn read_from(reader: impl Read, name: String, limit: u64) -> Result<String, ReadError> {
    let mut bytes = Vec::new();
    reader.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { name, limit });
    }
    String::from_utf8(bytes).map_err(|_| ReadError::NotText { name })
}

/// At most `max` characters of `s`; a longer value ends with "… (N more characters)".
pub fn excerpt(s: &str, max: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => Cow::Borrowed(s),
        Some((cut, _)) => {
            let more = s[cut..].chars().count();
            Cow::Owned(format!("{}… ({more} more characters)", &s[..cut]))
        }
    }
}

/// Whether `c` must not reach a terminal as it is: control characters (C0, DEL, C1: escape
/// sequences, carriage return, newline, backspace, bell...), the Unicode line and paragraph
/// separators, and the bidirectional overrides that reorder what a line seems to say.
fn unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every unsafe character escaped as Rust writes it in a string (`\n`, `\r`, `\t`,
/// `\u{1b}`...), everything else unchanged. For names and free text read from files and
/// printed in text mode (JSON output is escaped by serde already).
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Displays a name or free text from a file with [`escape`]: `format!("{}", Shown(name))`.
pub struct Shown<'a>(pub &'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&escape(self.0))
    }
}

/// A whole error message made safe to print: each line cut to an excerpt (a bad value in a
/// file may be megabytes long) and escaped; at most 60 lines.
pub fn clean_error(message: &str) -> String {
    const MAX_LINES: usize = 60;
    let lines: Vec<&str> = message.lines().collect();
    let mut out: Vec<String> =
        lines.iter().take(MAX_LINES).map(|l| escape(&excerpt(l, EXCERPT_CHARS * 2)).into_owned()).collect();
    if lines.len() > MAX_LINES {
        out.push(format!("… ({} more lines)", lines.len() - MAX_LINES));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_keeps_short_values_and_cuts_long_ones_on_a_character() {
        assert_eq!(excerpt("Ash", 10), "Ash");
        assert_eq!(excerpt("☷☷☷☷", 2), "☷☷… (2 more characters)");
    }

    #[test]
    fn escape_keeps_printable_unicode_and_escapes_controls() {
        assert_eq!(escape("Wei ☷ ▨ é"), "Wei ☷ ▨ é");
        assert_eq!(
            escape("a\u{1b}[2Jb\rc\nd\u{7f}\u{9b}\u{202e}"),
            "a\\u{1b}[2Jb\\rc\\nd\\u{7f}\\u{9b}\\u{202e}"
        );
    }

    #[test]
    fn clean_error_cuts_every_line_and_escapes_it() {
        let long = "x".repeat(10_000);
        let msg = format!("bad value\n1 | a = \"{long}\"\n\u{1b}[2J");
        let clean = clean_error(&msg);
        assert!(clean.len() < 1_000, "{}", clean.len());
        assert!(clean.contains("more characters"));
        assert!(!clean.contains('\u{1b}'));
        assert_eq!(clean.lines().count(), 3);
    }

    #[test]
    fn read_from_refuses_more_than_the_limit() {
        let e = read_from(std::io::repeat(0), "zero".into(), 1024).unwrap_err();
        assert_eq!(e.to_string(), "zero is larger than the limit of 1 KiB for this kind of file");
        assert_eq!(read_from(&b"abc"[..], "f".into(), 3).unwrap(), "abc");
        assert!(matches!(read_from(&[0xff_u8][..], "f".into(), 3), Err(ReadError::NotText { .. })));
    }
}
