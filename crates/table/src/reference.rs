//! The shape every ruleset's quick reference shares ([`Ruleset::quick_reference`]): sections of
//! plain text, one of them the **legend** — one line per symbol the ruleset's narration and
//! prompts print, the symbol first, then its meaning.
//!
//! The legend is written with [`legend`] and read back with [`legend_symbols`], so a test can
//! check that every symbol a game prints is explained ([`unexplained`]).
//!
//! [`Ruleset::quick_reference`]: crate::Ruleset::quick_reference

use std::collections::BTreeSet;

/// The heading line that opens a quick reference's legend.
pub const LEGEND_HEADING: &str = "LEGEND";

/// A titled section of a quick reference: the title, then each line indented by two spaces,
/// then a blank line.
pub fn section(title: &str, lines: &[String]) -> String {
    let mut s = format!("{title}\n");
    for line in lines {
        s.push_str("  ");
        s.push_str(line);
        s.push('\n');
    }
    s.push('\n');
    s
}

/// The legend section: one line per entry, the symbol, padded to line up, then its meaning.
/// A symbol is one word (no spaces); its meaning may be several words.
pub fn legend(entries: &[(String, String)]) -> String {
    let width = entries.iter().map(|(symbol, _)| symbol.chars().count()).max().unwrap_or(0);
    let lines: Vec<String> = entries
        .iter()
        .map(|(symbol, meaning)| {
            let pad = width - symbol.chars().count();
            format!("{symbol}{}  {meaning}", " ".repeat(pad))
        })
        .collect();
    section(LEGEND_HEADING, &lines)
}

/// The non-ASCII characters the legend of `reference` explains: those of the first word of
/// each line between the [`LEGEND_HEADING`] line and the next blank line.
pub fn legend_symbols(reference: &str) -> BTreeSet<char> {
    reference
        .lines()
        .skip_while(|line| line.trim() != LEGEND_HEADING)
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .flat_map(str::chars)
        .filter(|c| !c.is_ascii())
        .collect()
}

/// The non-ASCII characters of `text` that the legend of `reference` does not explain.
pub fn unexplained(reference: &str, text: &str) -> BTreeSet<char> {
    let known = legend_symbols(reference);
    text.chars().filter(|c| !c.is_ascii() && !known.contains(c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference() -> String {
        let mut s = section("STEPS", &["1. put ○ down".to_owned()]);
        s.push_str(&legend(&[
            ("○".to_owned(), "a penny".to_owned()),
            ("→".to_owned(), "goes to".to_owned()),
            ("x".to_owned(), "an ASCII symbol".to_owned()),
        ]));
        s.push_str(&section("AFTER", &["◆ is not in the legend".to_owned()]));
        s
    }

    #[test]
    fn legend_symbols_are_the_first_words_of_the_legend_lines_only() {
        assert_eq!(legend_symbols(&reference()), ['○', '→'].into_iter().collect());
    }

    #[test]
    fn unexplained_names_every_symbol_missing_from_the_legend() {
        assert_eq!(unexplained(&reference(), "○ → ◆ é x"), ['◆', 'é'].into_iter().collect());
        assert!(unexplained(&reference(), "plain ASCII").is_empty());
        assert_eq!(unexplained("no legend", "○"), ['○'].into_iter().collect());
    }

    #[test]
    fn legend_lines_line_up() {
        let l = legend(&[("○".to_owned(), "one".to_owned()), ("○▨◆".to_owned(), "three".to_owned())]);
        assert_eq!(l, "LEGEND\n  ○    one\n  ○▨◆  three\n\n");
    }
}
