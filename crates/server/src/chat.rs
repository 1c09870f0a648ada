//! The table's chat (issue 34, "Names and chat"): lines from the seats' links and the GM link,
//! read by every page, the spectators' included. A line is kept in the table's journal — so it
//! counts towards the table's bounds and comes back with the table — but outside every seat's
//! log and its hash chain: it is not part of the game, and an undo leaves it. In memory a table
//! keeps its last [`KEPT_LINES`], which a welcome carries. A link sends at most
//! [`LINES_PER_WINDOW`] lines in [`WINDOW`]; the GM link may mute a seat.

use std::time::Duration;

use thiserror::Error;

/// The most characters a line has.
pub const MAX_CHARS: usize = 500;
/// The lines a table keeps in memory and a welcome carries (the journal keeps every line).
pub const KEPT_LINES: usize = 100;
/// The most lines one link sends in [`WINDOW`].
pub const LINES_PER_WINDOW: usize = 5;
/// The window of [`LINES_PER_WINDOW`].
pub const WINDOW: Duration = Duration::from_secs(10);

/// Why a line is refused. Each message names the rule.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ChatError {
    /// Nothing but spaces.
    #[error("a chat line says something (this one is empty)")]
    Empty,
    /// Longer than [`MAX_CHARS`].
    #[error("a chat line has at most {MAX_CHARS} characters (this one has {0})")]
    TooLong(usize),
    /// A control character, a line break, or one that changes the text's direction or hides.
    #[error(
        "a chat line holds no control, line-breaking, invisible or direction-changing characters \
         (U+{0:04X} is one)"
    )]
    Character(u32),
    /// The GM link muted the seat.
    #[error("the GM has muted this seat in the chat")]
    Muted,
}

/// Checks a chat line: as kept, trimmed of surrounding spaces.
pub fn check(text: &str) -> Result<String, ChatError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ChatError::Empty);
    }
    let chars = text.chars().count();
    if chars > MAX_CHARS {
        return Err(ChatError::TooLong(chars));
    }
    if let Some(c) = text.chars().find(|c| crate::names::refused(*c)) {
        return Err(ChatError::Character(c as u32));
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chat_line_is_trimmed_and_says_something() {
        assert_eq!(check("  well played "), Ok("well played".into()));
        assert_eq!(check("   "), Err(ChatError::Empty));
    }

    #[test]
    fn a_chat_line_has_at_most_500_characters() {
        assert!(check(&"é".repeat(MAX_CHARS)).is_ok());
        assert_eq!(check(&"é".repeat(MAX_CHARS + 1)), Err(ChatError::TooLong(501)));
    }

    #[test]
    fn a_chat_line_holds_no_control_bidi_or_invisible_character() {
        assert_eq!(check("a\nb"), Err(ChatError::Character(0x0A)));
        assert_eq!(check("x\u{202E}y"), Err(ChatError::Character(0x202E)));
        assert_eq!(check("\u{1b}[2J"), Err(ChatError::Character(0x1B)));
    }
}
