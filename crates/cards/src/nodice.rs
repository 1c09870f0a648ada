//! No Dice's cards (rules reference §2–§5): the three Trine Aspect cards, the nine Action
//! (Attribute) cards with their intent tags, the bid cards and the Wildcard, and the reference
//! card. Names, letters and Dominance come from the `nodice` crate.

use nodice::actor::MAX_AV;
use nodice::{Aspect, Attribute, Dominance, attribute_dominance, trine_dominance};

use crate::intents::Intents;
use crate::{Card, Kind, System};

/// The bid cards a printed deck holds: 0 to this (the page may ask for any bid up to the
/// largest Attribute value, `nd-bid-N`).
pub const PRINTED_BIDS: u16 = 5;

fn beaten_aspects(a: Aspect) -> Vec<Aspect> {
    Aspect::ALL.into_iter().filter(|&o| trine_dominance(a, o) == Dominance::Win).collect()
}

/// The key of an Aspect card: `nd-aspect-mind`.
pub fn aspect_key(a: Aspect) -> String {
    format!("nd-aspect-{}", a.name().to_ascii_lowercase())
}

/// The key of an Action card: `nd-action-str`.
pub fn action_key(a: Attribute) -> String {
    format!("nd-action-{}", a.abbrev().to_ascii_lowercase())
}

/// A Trine Aspect card (§3.1, §4): its letter, its Attributes, whom it dominates.
pub fn aspect_card(a: Aspect) -> Card {
    let attrs: Vec<String> = a.attributes().iter().map(|x| format!("{} {}", x.abbrev(), x.name())).collect();
    let beats: Vec<&str> = beaten_aspects(a).into_iter().map(Aspect::name).collect();
    Card {
        key: aspect_key(a),
        system: System::Nodice,
        kind: Kind::Aspect,
        name: a.name().to_owned(),
        symbol: a.letter().to_string(),
        corner: a.letter().to_string(),
        marks: Vec::new(),
        lines: vec![
            format!("Attributes: {}.", attrs.join(", ")),
            format!("{} dominates {}.", a.name(), beats.join(", ")),
            "Ante from one of its Attributes.".to_owned(),
        ],
    }
}

/// An Action card (§2, §5 step 3): the Attribute, its Aspect, whom it dominates inside its
/// Aspect, and its intent tags.
pub fn action_card(a: Attribute, intents: &Intents) -> Card {
    let inside: Vec<&str> = a
        .aspect()
        .attributes()
        .into_iter()
        .filter(|&o| attribute_dominance(a, o) == Dominance::Win)
        .map(Attribute::abbrev)
        .collect();
    let mut lines = vec![
        format!("{} ({}): play it with the {} card.", a.name(), a.abbrev(), a.aspect().name()),
        format!("{} dominates {}.", a.abbrev(), inside.join(", ")),
    ];
    let tags = intents.tags(a);
    if !tags.is_empty() {
        lines.push(format!("Intent: {}", tags.join(" · ")));
    }
    Card {
        key: action_key(a),
        system: System::Nodice,
        kind: Kind::Action,
        name: a.name().to_owned(),
        symbol: a.abbrev().to_owned(),
        corner: format!("{}", a.aspect().letter()),
        marks: Vec::new(),
        lines,
    }
}

/// A bid card (§5 step 3): `n` chips from the Action's Attribute; `None` above the largest
/// Attribute value.
pub fn bid(n: u16) -> Option<Card> {
    (n <= u16::from(MAX_AV)).then(|| Card {
        key: format!("nd-bid-{n}"),
        system: System::Nodice,
        kind: Kind::Bid,
        name: format!("Bid {n}"),
        symbol: n.to_string(),
        corner: n.to_string(),
        marks: Vec::new(),
        lines: vec![
            format!("Bid {n} chips from the Action's Attribute."),
            "At most the Aspect's Trine Score and the chips in the stack; lower bids resolve first."
                .to_owned(),
        ],
    })
}

/// The Wildcard (§2): +1 to a Showdown total, at most one a Hand.
pub fn wildcard() -> Card {
    Card {
        key: "nd-wildcard".to_owned(),
        system: System::Nodice,
        kind: Kind::Bid,
        name: "Wildcard".to_owned(),
        symbol: "★".to_owned(),
        corner: "★".to_owned(),
        marks: Vec::new(),
        lines: vec!["+1 to your Showdown total; at most one a Hand, refreshed once a Conflict.".to_owned()],
    }
}

/// The whole deck: the Aspects, the nine Actions, bids 0 to [`PRINTED_BIDS`], the Wildcard.
pub fn deck(intents: &Intents) -> Vec<Card> {
    let mut out: Vec<Card> = Aspect::ALL.into_iter().map(aspect_card).collect();
    out.extend(Attribute::ALL.into_iter().map(|a| action_card(a, intents)));
    out.extend((0..=PRINTED_BIDS).filter_map(bid));
    out.push(wildcard());
    out
}

/// The reference card: Trine and Attribute Dominance (§4).
pub fn reference() -> Vec<Card> {
    let mut lines = Vec::new();
    let trine: Vec<String> =
        Aspect::ALL.into_iter().map(|a| format!("{} > {}", a.name(), beaten_aspects(a)[0].name())).collect();
    lines.push(format!("Trine Dominance: {}.", trine.join(", ")));
    for aspect in Aspect::ALL {
        let loop_: Vec<String> = aspect
            .attributes()
            .into_iter()
            .map(|a| {
                let beaten =
                    aspect.attributes().into_iter().find(|&o| attribute_dominance(a, o) == Dominance::Win);
                format!("{} > {}", a.abbrev(), beaten.map_or("", Attribute::abbrev))
            })
            .collect();
        lines.push(format!("{}: {}", aspect.name(), loop_.join(", ")));
    }
    let classes: Vec<String> = Attribute::ALL[..3]
        .iter()
        .map(|&first| {
            Attribute::ALL
                .into_iter()
                .filter(|&o| attribute_dominance(first, o) == Dominance::Tie)
                .map(Attribute::abbrev)
                .collect::<Vec<_>>()
                .join("=")
        })
        .collect();
    lines.push(format!(
        "Across Aspects, these tie: {}; each group beats the next, the last the first.",
        classes.join(", ")
    ));
    vec![Card {
        key: "nd-reference".to_owned(),
        system: System::Nodice,
        kind: Kind::Reference,
        name: "Dominance".to_owned(),
        symbol: "MBS".to_owned(),
        corner: "?".to_owned(),
        marks: Vec::new(),
        lines,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render;

    #[test]
    fn aspect_cards_name_their_attributes_and_whom_they_dominate() {
        let svg = render(&aspect_card(Aspect::Mind));
        assert!(svg.contains("Mind dominates Body"), "{svg}");
        assert!(svg.contains("REA Reason"));
    }

    #[test]
    fn action_cards_carry_intent_tags_from_gm_data() {
        let custom = Intents::from_toml("STR = [\"smash &amp; grab\"]").unwrap();
        let svg = render(&action_card(Attribute::Str, &custom));
        assert!(svg.contains("smash &amp;amp; grab"), "{svg}");
        assert!(render(&action_card(Attribute::Str, &Intents::default())).contains("force · lift · break"));
        assert!(render(&action_card(Attribute::Str, &custom)).contains("STR dominates FIT"));
    }

    #[test]
    fn bid_cards_go_up_to_the_largest_attribute_value() {
        assert_eq!(bid(3).unwrap().name, "Bid 3");
        assert!(bid(u16::from(MAX_AV)).is_some());
        assert!(bid(u16::from(MAX_AV) + 1).is_none());
        assert_eq!(crate::card("nd-bid-42").unwrap().name, "Bid 42");
    }

    #[test]
    fn the_full_deck_renders_with_every_name() {
        let d = deck(&Intents::default());
        assert_eq!(d.len(), 3 + 9 + usize::from(PRINTED_BIDS) + 1 + 1);
        for c in &d {
            assert!(render(c).contains(&format!("<title>{}</title>", c.name)), "{}", c.key);
        }
        // The groups' order on the card is the rules' order: each beats the next.
        let firsts = Attribute::ALL[..3].to_vec();
        for i in 0..3 {
            assert_eq!(attribute_dominance(firsts[i], firsts[(i + 1) % 3]), Dominance::Win);
        }
        let r = render(&reference()[0]);
        assert!(r.contains("Mind &gt; Body") && r.contains("REA &gt; KNO"), "{r}");
    }
}
