//! One card renderer (issue 34): every card of every facedown system drawn as SVG from the
//! rules crates' own data — names, symbols and rankings come from `iron-triangle`, `nodice`
//! and `inciting-incident`; no rule is re-derived here. The same renderer feeds the page (one
//! SVG per card key) and `facedown print` (print sheets, character sheets, PDF).
//!
//! - [`Card`]: one card's data (key, name, symbol, text); [`deck`] lists a system's cards,
//!   [`card`] finds one by key.
//! - [`render`]: a card face as a standalone SVG; [`render_back`]: a system's card back.
//! - [`print`]: pages of nine poker-size cards with cut marks (and backs), character sheets,
//!   reference cards, as SVG pages and as one PDF.
//! - [`intents`]: the No Dice Action cards' intent tags, data a GM may edit.
//! - [`font`]: the one vendored font (Noto, SIL Open Font License).

pub mod font;
pub mod inciting_incident;
pub mod intents;
pub mod iron_triangle;
pub mod nodice;
pub mod print;
pub mod sheet;
pub mod svg;

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::intents::Intents;
use crate::svg::{Anchor, FONT_FAMILY, Svg, escape, num, wrap};

/// A card's width in millimetres: poker size, 63 × 88 mm.
pub const CARD_WIDTH_MM: f64 = 63.0;
/// A card's height in millimetres.
pub const CARD_HEIGHT_MM: f64 = 88.0;
/// The card's drawing units per millimetre (its viewBox is 630 × 880).
pub const UNITS_PER_MM: f64 = 10.0;
const W: f64 = CARD_WIDTH_MM * UNITS_PER_MM;
const H: f64 = CARD_HEIGHT_MM * UNITS_PER_MM;

/// The three rule systems.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum System {
    /// Iron Triangle.
    IronTriangle,
    /// No Dice.
    Nodice,
    /// Inciting Incident.
    IncitingIncident,
}

impl System {
    /// All three, in the CLI's order.
    pub const ALL: [System; 3] = [System::IronTriangle, System::Nodice, System::IncitingIncident];

    /// The system's name as players read it.
    pub fn title(self) -> &'static str {
        match self {
            System::IronTriangle => "Iron Triangle",
            System::Nodice => "No Dice",
            System::IncitingIncident => "Inciting Incident",
        }
    }

    /// The name the CLI takes (`facedown print iron-triangle …`).
    pub fn cli_name(self) -> &'static str {
        match self {
            System::IronTriangle => "iron-triangle",
            System::Nodice => "nodice",
            System::IncitingIncident => "inciting-incident",
        }
    }

    /// The prefix of its card keys: `it`, `nd`, `ii`.
    pub fn prefix(self) -> &'static str {
        match self {
            System::IronTriangle => "it",
            System::Nodice => "nd",
            System::IncitingIncident => "ii",
        }
    }

    /// The system's colour on faces and backs.
    pub fn colour(self) -> &'static str {
        match self {
            System::IronTriangle => "#8a1c1c",
            System::Nodice => "#1d4c86",
            System::IncitingIncident => "#2b6a36",
        }
    }
}

impl fmt::Display for System {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.cli_name())
    }
}

impl FromStr for System {
    type Err = CardError;
    fn from_str(s: &str) -> Result<System, CardError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "iron-triangle" | "it" => Ok(System::IronTriangle),
            "nodice" | "nd" | "no-dice" => Ok(System::Nodice),
            "inciting-incident" | "ii" => Ok(System::IncitingIncident),
            _ => Err(CardError::UnknownSystem(s.to_owned())),
        }
    }
}

/// What kind of card it is (the label on its band).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// An Iron Triangle move (or surrender).
    Move,
    /// An Iron Triangle stance.
    Stance,
    /// An Iron Triangle special.
    Special,
    /// A No Dice Trine Aspect card.
    Aspect,
    /// An Action card: a No Dice Attribute, an Inciting Incident action.
    Action,
    /// A No Dice bid or Wildcard.
    Bid,
    /// A reference card.
    Reference,
}

impl Kind {
    /// The band's label.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Move => "MOVE",
            Kind::Stance => "STANCE",
            Kind::Special => "SPECIAL",
            Kind::Aspect => "ASPECT",
            Kind::Action => "ACTION",
            Kind::Bid => "BID",
            Kind::Reference => "REFERENCE",
        }
    }
}

/// One card: what the renderer draws. Built only from the rules crates' data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    /// Its key: lower-case ASCII letters, digits and `-`, unique in its system (`it-move-grapple-earth`).
    pub key: String,
    /// Its system.
    pub system: System,
    /// Its kind.
    pub kind: Kind,
    /// Its name, as printed and as its accessible name.
    pub name: String,
    /// The large symbol in its middle.
    pub symbol: String,
    /// The small symbol in its corners.
    pub corner: String,
    /// Marks shown as badges (a combo's start, a follow-up…).
    pub marks: Vec<String>,
    /// Its text, one paragraph an entry.
    pub lines: Vec<String>,
}

/// Why a card, a sheet or a print cannot be made; the message names the field or rule.
#[derive(Debug, Error)]
pub enum CardError {
    /// Not a system.
    #[error("{0:?} is not a system (use iron-triangle, nodice or inciting-incident)")]
    UnknownSystem(String),
    /// No card has this key.
    #[error("there is no card {0:?} (keys look like it-move-grapple-earth, nd-action-str, ii-action-move)")]
    UnknownCard(String),
    /// A file's text is not what it should be.
    #[error("{what}: {message}")]
    Input {
        /// Which file or field.
        what: String,
        /// Why.
        message: String,
    },
    /// The PDF could not be written.
    #[error("PDF: {0}")]
    Pdf(String),
}

/// Every card of a system, in the books' order: its deck for printing and for the page.
pub fn deck(system: System, intents: &Intents) -> Vec<Card> {
    match system {
        System::IronTriangle => iron_triangle::deck(),
        System::Nodice => nodice::deck(intents),
        System::IncitingIncident => inciting_incident::deck(),
    }
}

/// The card with this key (default intent tags for No Dice Action cards). `it-back`,
/// `nd-back`, `ii-back` are not cards: see [`render_back`].
pub fn card(key: &str) -> Result<Card, CardError> {
    let system = match key.split('-').next() {
        Some("it") => System::IronTriangle,
        Some("nd") => System::Nodice,
        Some("ii") => System::IncitingIncident,
        _ => return Err(CardError::UnknownCard(key.to_owned())),
    };
    if system == System::Nodice
        && let Some(n) = key.strip_prefix("nd-bid-")
        && let Ok(n) = n.parse::<u16>()
        && n.to_string() == key["nd-bid-".len()..]
    {
        return nodice::bid(n).ok_or_else(|| CardError::UnknownCard(key.to_owned()));
    }
    deck(system, &Intents::default())
        .into_iter()
        .chain(reference_cards(system))
        .find(|c| c.key == key)
        .ok_or_else(|| CardError::UnknownCard(key.to_owned()))
}

/// A system's reference cards.
pub fn reference_cards(system: System) -> Vec<Card> {
    match system {
        System::IronTriangle => iron_triangle::reference(),
        System::Nodice => nodice::reference(),
        System::IncitingIncident => inciting_incident::reference(),
    }
}

/// A card face as a standalone SVG document, 63 × 88 mm, its accessible name the card's name.
pub fn render(card: &Card) -> String {
    standalone(&face(card), &card.name, &card.key)
}

/// A system's card back as a standalone SVG document.
pub fn render_back(system: System) -> String {
    standalone(
        &back(system),
        &format!("{} card, face down", system.title()),
        &format!("{}-back", system.prefix()),
    )
}

fn standalone(body: &str, name: &str, key: &str) -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="63mm" height="88mm" viewBox="0 0 {} {}" role="img" aria-label="{}" data-card="{}" font-family="{FONT_FAMILY}"><title>{}</title>{body}</svg>"#,
        num(W),
        num(H),
        escape(name),
        escape(key),
        escape(name)
    )
}

/// The inside of a card face, in a 630 × 880 box.
pub(crate) fn face(card: &Card) -> String {
    let colour = card.system.colour();
    let mut s = Svg::new();
    s.rect(4.0, 4.0, W - 8.0, H - 8.0, 36.0, "#fffdf7", colour, 8.0);
    s.rect(4.0, 4.0, W - 8.0, 70.0, 36.0, colour, "none", 0.0);
    s.rect(4.0, 40.0, W - 8.0, 34.0, 0.0, colour, "none", 0.0);
    s.text(W / 2.0, 54.0, 32.0, Anchor::Middle, "#ffffff", true, card.kind.label());
    // Corner indices.
    s.text(40.0, 130.0, 56.0, Anchor::Start, colour, false, &card.corner);
    s.raw(&format!(r#"<g transform="rotate(180 {} {})">"#, num(W / 2.0), num(H / 2.0)));
    s.text(40.0, 130.0, 56.0, Anchor::Start, colour, false, &card.corner);
    s.raw("</g>");
    // The name, up to two lines.
    let name_size = if card.name.chars().count() > 16 { 40.0 } else { 50.0 };
    let per_line = (520.0 / (name_size * 0.56)) as usize;
    let mut y = 200.0;
    for line in wrap(&card.name, per_line).iter().take(2) {
        s.text(W / 2.0, y, name_size, Anchor::Middle, "#1b1b1b", true, line);
        y += name_size * 1.15;
    }
    // The symbol (a reference card gives its room to the text).
    let symbol_size = match card.symbol.chars().count() {
        0..=1 => 190.0,
        2 => 150.0,
        3 => 110.0,
        _ => 80.0,
    };
    if card.kind != Kind::Reference {
        s.text(W / 2.0, 420.0, symbol_size, Anchor::Middle, colour, false, &card.symbol);
    }
    // Marks as badges.
    let mut y = marks_top(card);
    for mark in &card.marks {
        let w = (mark.chars().count() as f64 * 15.0 + 40.0).min(W - 80.0);
        s.rect((W - w) / 2.0, y - 30.0, w, 40.0, 20.0, colour, "none", 0.0);
        s.text(W / 2.0, y - 2.0, 26.0, Anchor::Middle, "#ffffff", true, mark);
        y += 48.0;
    }
    // The text, at the largest size at which all of it fits.
    let top = text_top(card);
    let (size, lines) = fit_text(&card.lines, TEXT_BOTTOM - top);
    let mut y = top;
    for para in lines {
        for line in para {
            s.text(45.0, y, size, Anchor::Start, "#1b1b1b", false, &line);
            y += size * 1.25;
        }
        y += size * 0.3;
    }
    s.text(W / 2.0, H - 28.0, 20.0, Anchor::Middle, "#6b6b6b", false, card.system.title());
    s.finish()
}

/// Where a card's text must end: above the lower corner's index.
const TEXT_BOTTOM: f64 = H - 140.0;

/// The text sizes a card's text may take, largest first.
const TEXT_SIZES: [f64; 5] = [28.0, 25.0, 22.0, 20.0, 18.0];

/// The card's paragraphs wrapped at the largest of [`TEXT_SIZES`] whose lines fit in
/// `height` (the smallest if none does: [`fits`] tells).
fn fit_text(paras: &[String], height: f64) -> (f64, Vec<Vec<String>>) {
    let layout = |size: f64| {
        let per_line = (540.0 / (size * 0.52)) as usize;
        let wrapped: Vec<Vec<String>> = paras.iter().map(|p| wrap(p, per_line)).collect();
        let lines: usize = wrapped.iter().map(Vec::len).sum();
        let used = lines as f64 * size * 1.25 + paras.len() as f64 * size * 0.3;
        (used, wrapped)
    };
    for size in TEXT_SIZES {
        let (used, wrapped) = layout(size);
        if used <= height {
            return (size, wrapped);
        }
    }
    let smallest = TEXT_SIZES[TEXT_SIZES.len() - 1];
    (smallest, layout(smallest).1)
}

/// Where a card's badges start: under the symbol, or under the name on a reference card.
fn marks_top(card: &Card) -> f64 {
    if card.kind == Kind::Reference { 300.0 } else { 500.0 }
}

/// Where a card's text starts: under its badges.
fn text_top(card: &Card) -> f64 {
    let below_marks = marks_top(card) + 48.0 * card.marks.len() as f64;
    below_marks.max(marks_top(card) + 30.0) + 20.0
}

/// Whether all of a card's text fits on its face.
pub fn fits(card: &Card) -> bool {
    let height = TEXT_BOTTOM - text_top(card);
    let (size, wrapped) = fit_text(&card.lines, height);
    let lines: usize = wrapped.iter().map(Vec::len).sum();
    lines as f64 * size * 1.25 + card.lines.len() as f64 * size * 0.3 <= height
}

/// The inside of a system's card back, in a 630 × 880 box.
pub(crate) fn back(system: System) -> String {
    let colour = system.colour();
    let mut s = Svg::new();
    s.rect(4.0, 4.0, W - 8.0, H - 8.0, 36.0, colour, colour, 8.0);
    s.rect(34.0, 34.0, W - 68.0, H - 68.0, 22.0, "none", "#ffffff", 4.0);
    s.rect(50.0, 50.0, W - 100.0, H - 100.0, 16.0, "none", "#ffffff", 2.0);
    let motif = match system {
        System::IronTriangle => "○ ▨ ◆",
        System::Nodice => "M B S",
        System::IncitingIncident => "⚔",
    };
    let size = if system == System::IncitingIncident { 200.0 } else { 90.0 };
    s.text(
        W / 2.0,
        H / 2.0 + size / 3.0,
        size,
        Anchor::Middle,
        "#ffffff",
        system != System::IronTriangle,
        motif,
    );
    s.text(W / 2.0, H - 120.0, 40.0, Anchor::Middle, "#ffffff", true, system.title());
    s.text(W / 2.0, 150.0, 30.0, Anchor::Middle, "#ffffff", false, "facedown");
    s.finish()
}

/// "grapple" → "Grapple".
pub(crate) fn title_case(word: &str) -> String {
    let mut c = word.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_system_has_a_back_naming_it() {
        for system in System::ALL {
            let svg = render_back(system);
            assert!(svg.contains(system.title()), "{svg}");
            assert!(svg.starts_with("<svg "));
        }
    }

    #[test]
    fn every_card_key_is_unique_and_url_safe_and_found_again() {
        for system in System::ALL {
            let mut keys = std::collections::BTreeSet::new();
            for c in deck(system, &Intents::default()).into_iter().chain(reference_cards(system)) {
                assert!(c.key.starts_with(system.prefix()), "{}", c.key);
                assert!(
                    c.key.chars().all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-'),
                    "{}",
                    c.key
                );
                assert!(keys.insert(c.key.clone()), "duplicate {}", c.key);
                assert_eq!(card(&c.key).unwrap(), c);
            }
        }
        assert!(matches!(card("it-move-defend-heaven"), Err(CardError::UnknownCard(_))));
        assert!(matches!(card("zz-move"), Err(CardError::UnknownCard(_))));
        assert!(matches!(card("nd-bid-007"), Err(CardError::UnknownCard(_))));
    }

    #[test]
    fn the_same_card_renders_the_same_bytes() {
        for system in System::ALL {
            for c in deck(system, &Intents::default()) {
                assert_eq!(render(&c), render(&c.clone()));
            }
        }
    }

    #[test]
    fn a_cards_accessible_name_is_its_visible_name() {
        let c = card("it-move-grapple-earth").unwrap();
        let svg = render(&c);
        assert!(svg.contains(&format!(r#"aria-label="{}""#, escape(&c.name))));
        assert!(svg.contains(&format!("<title>{}</title>", escape(&c.name))));
    }

    /// No card's text is cut off: each fits its face at one of the text sizes.
    #[test]
    fn every_cards_text_fits_on_its_face() {
        for system in System::ALL {
            for c in deck(system, &Intents::default()).iter().chain(&reference_cards(system)) {
                assert!(fits(c), "{} does not fit: {:?}", c.key, c.lines);
                assert!(!render(c).contains('§'), "{}: players have no rules reference to look up", c.key);
            }
        }
    }

    #[test]
    fn names_are_escaped_on_the_card() {
        let mut c = card("it-surrender").unwrap();
        c.name = "<script>&\"".into();
        let svg = render(&c);
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("&lt;script&gt;&amp;&quot;"));
    }

    #[test]
    fn systems_read_by_name_or_abbreviation() {
        assert_eq!("it".parse::<System>().unwrap(), System::IronTriangle);
        assert_eq!("nodice".parse::<System>().unwrap(), System::Nodice);
        assert_eq!("inciting-incident".parse::<System>().unwrap(), System::IncitingIncident);
        assert!(matches!("chess".parse::<System>(), Err(CardError::UnknownSystem(_))));
    }
}
