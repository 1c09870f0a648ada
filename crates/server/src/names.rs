//! A player's display name at a table (issue 34, "Names and chat"): what a seat's link may call
//! its player, shown on every page beside the seat's own name ("Ada — Sam"). A name is public
//! at once, kept in the table's journal (so it counts towards the table's bounds and comes
//! back with the table) but in no seat's log: it is not part of the game, and an undo leaves it.

use thiserror::Error;

/// The most characters a display name has.
pub const MAX_CHARS: usize = 32;

/// Why a display name is refused. Each message names the rule.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum NameError {
    /// Longer than [`MAX_CHARS`].
    #[error("a display name has at most {MAX_CHARS} characters (this one has {0})")]
    TooLong(usize),
    /// A control character, a line break, or one that changes the text's direction or hides.
    #[error(
        "a display name holds no control, line-breaking, invisible or direction-changing \
         characters (U+{0:04X} is one)"
    )]
    Character(u32),
    /// Another seat's name or another player's display name, letter case aside.
    #[error("{0:?} is taken at this table: another seat or player has that name")]
    Taken(String),
}

/// Whether `c` may not appear in a name: a control character (Unicode's Cc), a line or
/// paragraph separator, a character that changes the direction of the text around it (the
/// bidirectional marks, embeddings, overrides and isolates), or an invisible one (zero-width
/// spaces and joiners, the byte-order mark, soft hyphen, the tag characters).
pub(crate) fn refused(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{061C}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{E0000}'..='\u{E007F}'
        )
}

/// Checks a display name against the rules above and the names `taken` at the table (the other
/// seats' names and their players' display names): the name as kept, trimmed of surrounding
/// spaces, or none for an empty one (the name is cleared).
pub fn check<'a>(name: &str, taken: impl IntoIterator<Item = &'a str>) -> Result<Option<String>, NameError> {
    let name = name.trim();
    if name.is_empty() {
        return Ok(None);
    }
    let chars = name.chars().count();
    if chars > MAX_CHARS {
        return Err(NameError::TooLong(chars));
    }
    if let Some(c) = name.chars().find(|c| refused(*c)) {
        return Err(NameError::Character(c as u32));
    }
    let folded = name.to_lowercase();
    if taken.into_iter().any(|t| t.trim().to_lowercase() == folded) {
        return Err(NameError::Taken(name.to_owned()));
    }
    Ok(Some(name.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_display_name_is_trimmed_and_an_empty_one_clears_it() {
        assert_eq!(check("  Sam ", []), Ok(Some("Sam".into())));
        assert_eq!(check("   ", []), Ok(None));
        assert_eq!(check("Zoë 🐉", []), Ok(Some("Zoë 🐉".into())));
    }

    #[test]
    fn a_display_name_has_at_most_32_characters() {
        let long = "é".repeat(MAX_CHARS);
        assert_eq!(check(&long, []), Ok(Some(long.clone())), "characters, not bytes");
        assert_eq!(check(&format!("{long}x"), []), Err(NameError::TooLong(33)));
    }

    #[test]
    fn a_display_name_holds_no_control_bidi_or_invisible_character() {
        for bad in [
            "a\u{0}b",
            "a\nb",
            "a\u{1b}[31mb",
            "evil\u{202E}gpj.exe",
            "a\u{2066}b",
            "a\u{200B}b",
            "\u{FEFF}x",
            "a\u{2028}b",
        ] {
            assert!(matches!(check(bad, []), Err(NameError::Character(_))), "{bad:?}");
        }
        assert_eq!(check("a\u{202E}b", []), Err(NameError::Character(0x202E)));
    }

    #[test]
    fn a_display_name_is_unique_at_the_table_letter_case_aside() {
        assert_eq!(check("kuro", ["Kuro", "Ada"]), Err(NameError::Taken("kuro".into())));
        assert_eq!(check("Sam", ["Ada", "sam "]), Err(NameError::Taken("Sam".into())));
        assert_eq!(check("Sam", ["Ada", "Kuro"]), Ok(Some("Sam".into())));
    }
}
