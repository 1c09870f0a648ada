//! The one vendored font: "Facedown Cards", a subset of Noto Sans merged with the symbols of
//! Noto Sans Symbols 2, Noto Sans Symbols and Noto Sans Math (SIL Open Font License 1.1,
//! `crates/cards/fonts/OFL.txt`), made by `crates/cards/fonts/subset.sh`. The PDF embeds the
//! TrueType file; the page loads the WOFF2 after its prompt.

/// The font as TrueType, for PDF embedding.
pub const TTF: &[u8] = include_bytes!("../fonts/FacedownCards.ttf");

/// The font as WOFF2, for the page.
pub const WOFF2: &[u8] = include_bytes!("../fonts/FacedownCards.woff2");

/// The font's licence text.
pub const LICENSE: &str = include_str!("../fonts/OFL.txt");

/// The family name the font declares and the cards ask for.
pub const FAMILY: &str = "Facedown Cards";

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the font draws `c` (a space or a line break needs no glyph).
    fn covers(c: char) -> bool {
        if c.is_whitespace() {
            return true;
        }
        ttf_parser::Face::parse(TTF, 0).ok().and_then(|f| f.glyph_index(c)).is_some()
    }
    use crate::intents::Intents;
    use crate::{System, deck, reference_cards, render, render_back};

    #[test]
    fn the_font_is_named_as_the_cards_ask_and_carries_its_licence() {
        let face = ttf_parser::Face::parse(TTF, 0).unwrap();
        let family = face
            .names()
            .into_iter()
            .find(|n| n.name_id == ttf_parser::name_id::FAMILY && n.is_unicode())
            .and_then(|n| n.to_string())
            .unwrap();
        assert_eq!(family, FAMILY);
        assert!(crate::svg::FONT_FAMILY.starts_with(FAMILY));
        assert!(LICENSE.contains("SIL Open Font License"));
        assert_eq!(&WOFF2[..4], b"wOF2");
    }

    /// Every character any card of any system prints is in the font, so cards look the same
    /// everywhere (issue 34 §1).
    #[test]
    fn the_font_covers_every_character_the_cards_print() {
        let mut text = String::new();
        for system in System::ALL {
            for c in deck(system, &Intents::default()).iter().chain(&reference_cards(system)) {
                text.push_str(&render(c));
            }
            text.push_str(&render_back(system));
        }
        let missing: std::collections::BTreeSet<char> = text.chars().filter(|&c| !covers(c)).collect();
        assert!(
            missing.is_empty(),
            "not in the font (add to crates/cards/fonts/chars.txt, run subset.sh): {missing:?}"
        );
    }

    #[test]
    fn the_font_covers_the_books_symbols() {
        for c in "☷☵☲☰☯○▨◆×·…–—→★⚐⚔".chars() {
            assert!(covers(c), "{c}");
        }
    }
}
