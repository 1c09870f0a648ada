//! The intent tags on No Dice Action cards: short words a player may say when committing an
//! Attribute ("state intent vaguely enough", the Bluff Space of rules reference §2). The rules
//! reference gives none, so they are data a GM may edit: a TOML file of Attribute → tags
//! (`facedown print nodice cards --intents FILE`), with [`Intents::default`] as the documented
//! default (docs/print.md).
//!
//! ```toml
//! STR = ["force", "lift", "break"]
//! PRE = ["persuade", "command"]
//! ```
//!
//! Attributes not named keep their default tags; an empty list prints none.

use std::collections::BTreeMap;

use nodice::Attribute;

use crate::CardError;

/// The most tags an Action card shows.
pub const MAX_TAGS: usize = 4;
/// The longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 20;

/// Intent tags per Attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Intents {
    tags: [Vec<String>; 9],
}

/// The default tags, in serial order (REA KNO QUI, STR FIT AGI, WIL PRE INT).
const DEFAULT: [&[&str]; 9] = [
    &["plan", "deduce", "solve"],
    &["recall", "study", "identify"],
    &["react", "improvise", "outpace"],
    &["force", "lift", "break"],
    &["endure", "chase", "hold out"],
    &["dodge", "sneak", "balance"],
    &["resist", "insist", "focus"],
    &["persuade", "command", "impress"],
    &["sense", "read", "anticipate"],
];

impl Default for Intents {
    fn default() -> Intents {
        Intents { tags: DEFAULT.map(|tags| tags.iter().map(|t| (*t).to_owned()).collect()) }
    }
}

impl Intents {
    /// The tags of an Attribute.
    pub fn tags(&self, attribute: Attribute) -> &[String] {
        &self.tags[attribute.index()]
    }

    /// Reads a GM's intents file over the defaults: keys are Attributes (`STR`, `strength`),
    /// values lists of at most [`MAX_TAGS`] tags of at most [`MAX_TAG_CHARS`] characters.
    pub fn from_toml(text: &str) -> Result<Intents, CardError> {
        let err = |message: String| CardError::Input { what: "intents file".to_owned(), message };
        let table: BTreeMap<String, Vec<String>> = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        let mut out = Intents::default();
        for (key, tags) in table {
            let attribute: Attribute = key.parse().map_err(|_| {
                err(format!("{key:?} is not an Attribute (REA, KNO, QUI, STR, FIT, AGI, WIL, PRE, INT)"))
            })?;
            if tags.len() > MAX_TAGS {
                return Err(err(format!("{key}: {} tags, at most {MAX_TAGS} fit on a card", tags.len())));
            }
            for tag in &tags {
                if tag.trim().is_empty()
                    || tag.chars().count() > MAX_TAG_CHARS
                    || tag.chars().any(char::is_control)
                {
                    return Err(err(format!(
                        "{key}: tag {tag:?} must be 1 to {MAX_TAG_CHARS} characters, no control characters"
                    )));
                }
            }
            out.tags[attribute.index()] = tags.into_iter().map(|t| t.trim().to_owned()).collect();
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intent_tags_default_to_the_documented_ones() {
        assert_eq!(Intents::default().tags(Attribute::Str), ["force", "lift", "break"]);
    }

    #[test]
    fn a_gm_file_overrides_only_what_it_names() {
        let i = Intents::from_toml("STR = [\"smash\"]\nintuition = []").unwrap();
        assert_eq!(i.tags(Attribute::Str), ["smash"]);
        assert!(i.tags(Attribute::Int).is_empty());
        assert_eq!(i.tags(Attribute::Rea), Intents::default().tags(Attribute::Rea));
    }

    #[test]
    fn a_bad_intents_file_names_the_field() {
        let e = Intents::from_toml("LUCK = [\"x\"]").unwrap_err().to_string();
        assert!(e.contains("LUCK") && e.contains("not an Attribute"), "{e}");
        let e = Intents::from_toml("STR = [\"a\",\"b\",\"c\",\"d\",\"e\"]").unwrap_err().to_string();
        assert!(e.contains("at most 4"), "{e}");
        let e = Intents::from_toml("STR = [\"\"]").unwrap_err().to_string();
        assert!(e.contains("STR"), "{e}");
        assert!(Intents::from_toml("STR = 3").is_err());
    }
}
