//! Iron Triangle's cards (rules reference §1–3, §5.2, §6): the thirteen moves and surrender,
//! the stance cards, the specials of both editions, a character's own hand (its named moves
//! with its combos marked), and the reference card. Every name, symbol, base, multiplier and
//! ranking comes from the `iron-triangle` crate.

use iron_triangle::card::{Action, Element, Move};
use iron_triangle::conflict::Window;
use iron_triangle::special::{Edition, Special};
use iron_triangle::{Character, Stance};

use crate::{Card, Kind, System, title_case};

fn words(m: Move) -> String {
    format!("{} {}", title_case(m.action().name()), title_case(m.element().name()))
}

fn symbols(m: Move) -> String {
    format!("{}{}", m.action().symbol(), m.element().symbol())
}

/// The key of a move's card: `it-move-grapple-earth`.
pub fn move_key(m: Move) -> String {
    format!("it-move-{}-{}", m.action().name(), m.element().name())
}

/// The key of a stance card: `it-stance-defend`; `it-stance-none` for no stance.
pub fn stance_key(stance: Option<Action>) -> String {
    match stance {
        Some(a) => format!("it-stance-{}", a.name()),
        None => "it-stance-none".to_owned(),
    }
}

/// The key of a special's card: `it-special-wax-on-grapple`.
pub fn special_key(special: Special) -> String {
    format!("it-special-{}", special.key().replace('_', "-"))
}

fn beaten_by_action(a: Action) -> String {
    Action::ALL
        .into_iter()
        .filter(|&o| a.beats(o))
        .map(|o| format!("{} {}", o.symbol(), title_case(o.name())))
        .collect::<Vec<_>>()
        .join(", ")
}

fn beaten_by_element(e: Element) -> String {
    Element::ALL
        .into_iter()
        .filter(|&o| e.beats(o))
        .map(|o| format!("{} {}", o.symbol(), title_case(o.name())))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A move's card (§3): its action and element symbols, its base loss and stance multiplier,
/// whom its action and element beat (§2). `name` is the player's name for it, if any.
pub fn move_card(m: Move, name: Option<&str>) -> Card {
    let mut lines = vec![
        format!(
            "{} {} · {} {}",
            m.action().symbol(),
            title_case(m.action().name()),
            m.element().symbol(),
            title_case(m.element().name())
        ),
        format!("Base loss {} · stance ×{}", m.base(), m.multiplier()),
        format!("{} beats {}", title_case(m.action().name()), beaten_by_action(m.action())),
        format!("{} beats {}", title_case(m.element().name()), beaten_by_element(m.element())),
    ];
    if name.is_none() {
        lines.remove(0);
    }
    Card {
        key: move_key(m),
        system: System::IronTriangle,
        kind: Kind::Move,
        name: name.map_or_else(|| words(m), str::to_owned),
        symbol: symbols(m),
        corner: symbols(m),
        marks: Vec::new(),
        lines,
    }
}

/// Surrender (§1, §5.2): the move every character always has.
pub fn surrender_card() -> Card {
    Card {
        key: "it-surrender".to_owned(),
        system: System::IronTriangle,
        kind: Kind::Move,
        name: "Surrender".to_owned(),
        symbol: "⚐".to_owned(),
        corner: "⚐".to_owned(),
        marks: Vec::new(),
        lines: vec![
            "Every character always has it.".to_owned(),
            "Leave the conflict; no energy lost this turn.".to_owned(),
        ],
    }
}

/// A stance card (§5.2 step 2): an energy type (or none); the amount is chosen with it.
pub fn stance_card(stance: Option<Action>) -> Card {
    let (name, symbol, lines) = match stance {
        Some(a) => {
            let example = Stance::new(a, 2);
            (
                format!("{} Stance", title_case(a.name())),
                a.symbol().to_string(),
                vec![
                    format!(
                        "Commit an amount of {} {} energy face down, up to what you have (e.g. {example}).",
                        a.symbol(),
                        title_case(a.name())
                    ),
                    format!(
                        "It counts when your move is a {} move; otherwise it was a feint.",
                        title_case(a.name())
                    ),
                ],
            )
        }
        None => (
            "No Stance".to_owned(),
            "0".to_owned(),
            vec!["Commit nothing this turn (an amount of 0).".to_owned()],
        ),
    };
    Card {
        key: stance_key(stance),
        system: System::IronTriangle,
        kind: Kind::Stance,
        name,
        corner: symbol.clone(),
        symbol,
        marks: Vec::new(),
        lines,
    }
}

const WINDOWS: [Window; 4] =
    [Window::BeforeOpponent, Window::BeforeStance, Window::BeforeMove, Window::BeforeResolving];

/// A special's card (§6, §11): its name in its edition, its place on the list, the level it
/// needs and what must be learned first, when it is played and revealed, whether it names a
/// character.
pub fn special_card(special: Special) -> Card {
    let edition = if special.in_edition(Edition::Current) { Edition::Current } else { Edition::Earlier };
    let mut lines =
        vec![format!("Place {} on the list: a later special prevails in a clash.", special.rank())];
    let windows: Vec<&str> = WINDOWS.into_iter().filter(|&w| special.fits(w)).map(Window::name).collect();
    lines.push(format!("Played {}.", windows.join(", ")));
    if special.revealed_before_resolving() {
        lines.push("Stays face down until the moves are revealed.".to_owned());
    }
    if special.takes_target() {
        lines.push("Names a character.".to_owned());
    }
    let mut marks = Vec::new();
    if special.level_required() > 0 {
        marks.push(format!("Level {}", special.level_required()));
    }
    if let Some(first) = special.prerequisite(edition) {
        marks.push(format!("Needs {}", first.name(edition)));
    }
    if edition == Edition::Earlier {
        marks.push("Earlier edition".to_owned());
    }
    let symbol = special.action().map_or_else(|| "★".to_owned(), |a| a.symbol().to_string());
    Card {
        key: special_key(special),
        system: System::IronTriangle,
        kind: Kind::Special,
        name: special.name(edition),
        corner: symbol.clone(),
        symbol,
        marks,
        lines,
    }
}

/// The whole deck: the thirteen moves, surrender, the stances, then every special of both
/// editions in list order.
pub fn deck() -> Vec<Card> {
    let mut out: Vec<Card> = Move::ALL.into_iter().map(|m| move_card(m, None)).collect();
    out.push(surrender_card());
    out.extend(Action::ALL.into_iter().map(|a| stance_card(Some(a))));
    out.push(stance_card(None));
    out.extend(Special::all().into_iter().map(special_card));
    out
}

/// A character's hand: its moves under the names it gave them, each marked where it starts a
/// combo or follows one (§5.5), surrender, the stances, and its learned specials.
pub fn hand(character: &Character) -> Vec<Card> {
    let mut out = Vec::new();
    for known in &character.moves {
        let mut c = move_card(known.card, Some(&known.name));
        for combo in &character.combos {
            if combo.from == known.card {
                let follows: Vec<String> = combo.follow_ups.iter().map(|&m| symbols(m)).collect();
                c.marks.push(format!("Combo: then {}", follows.join(" or ")));
            }
            if combo.follow_ups.contains(&known.card) {
                c.marks.push(format!("Follow-up of {}", symbols(combo.from)));
            }
        }
        out.push(c);
    }
    out.push(surrender_card());
    out.extend(Action::ALL.into_iter().map(|a| stance_card(Some(a))));
    out.push(stance_card(None));
    out.extend(character.specials.iter().map(|&s| special_card(s)));
    out
}

/// The reference cards: who beats whom (§2, §5.2 step 4) and the moves' losses (§3, §5.3).
pub fn reference() -> Vec<Card> {
    let actions: Vec<String> = Action::ALL
        .into_iter()
        .flat_map(|a| {
            Action::ALL
                .into_iter()
                .filter(move |&o| a.beats(o))
                .map(move |o| format!("{} > {}", a.symbol(), o.symbol()))
        })
        .collect();
    let mut beats = vec![format!("Actions: {}", actions.join(" · "))];
    for e in Element::ALL {
        let beaten: Vec<String> =
            Element::ALL.into_iter().filter(|&o| e.beats(o)).map(|o| o.symbol().to_string()).collect();
        beats.push(format!("{} {} > {}", e.symbol(), title_case(e.name()), beaten.join(" ")));
    }
    beats.push("Winner: action, else element, else the one not disadvantaged, else a tie.".to_owned());
    let by_action = |a: Action| {
        let moves: Vec<String> = Move::ALL
            .into_iter()
            .filter(|m| m.action() == a)
            .map(|m| format!("{} {}×{}", symbols(m), m.base(), m.multiplier()))
            .collect();
        moves.join("  ")
    };
    let mut losses = vec!["Base loss × stance multiplier of each move:".to_owned()];
    losses.extend(Action::ALL.into_iter().map(by_action));
    losses.push("The loser loses the winner's stance × multiplier, its own stance and the winner's base (+ combo, + disadvantage).".to_owned());
    vec![
        Card {
            key: "it-reference".to_owned(),
            system: System::IronTriangle,
            kind: Kind::Reference,
            name: "Who Beats Whom".to_owned(),
            symbol: "○▨◆".to_owned(),
            corner: "?".to_owned(),
            marks: Vec::new(),
            lines: beats,
        },
        Card {
            key: "it-reference-losses".to_owned(),
            system: System::IronTriangle,
            kind: Kind::Reference,
            name: "Losses".to_owned(),
            symbol: "×".to_owned(),
            corner: "?".to_owned(),
            marks: Vec::new(),
            lines: losses,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render;

    #[test]
    fn move_cards_show_action_element_base_and_multiplier() {
        let m = Move::new(Action::Grapple, Element::Spin).unwrap();
        let svg = render(&move_card(m, None));
        assert!(svg.contains("Grapple Spin"));
        assert!(svg.contains("▨☯"));
        assert!(svg.contains(&format!("Base loss {} · stance ×{}", m.base(), m.multiplier())));
    }

    #[test]
    fn a_characters_moves_carry_its_names_and_combo_marks() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/iron-triangle/characters/bao.toml"
        ))
        .unwrap();
        let mut ch: Character = toml::from_str(&text).unwrap();
        if ch.combos.is_empty() {
            let from = ch.moves[0].card;
            let to = ch.moves[1].card;
            ch.combos.push(iron_triangle::Combo { from, follow_ups: vec![to] });
        }
        let cards = hand(&ch);
        let combo = &ch.combos[0];
        let start = cards.iter().find(|c| c.key == move_key(combo.from)).unwrap();
        assert!(start.marks.iter().any(|m| m.starts_with("Combo")), "{start:?}");
        let follow = cards.iter().find(|c| c.key == move_key(combo.follow_ups[0])).unwrap();
        assert!(follow.marks.iter().any(|m| m.starts_with("Follow-up")), "{follow:?}");
        let named = ch.moves.iter().find(|k| k.card == combo.from).unwrap();
        assert_eq!(start.name, named.name);
        assert!(render(start).contains(&crate::svg::escape(&named.name)));
        assert!(cards.iter().any(|c| c.key == "it-surrender"));
    }

    #[test]
    fn stance_cards_one_per_type_and_none() {
        let keys: Vec<String> =
            deck().into_iter().filter(|c| c.kind == Kind::Stance).map(|c| c.key).collect();
        assert_eq!(keys, ["it-stance-defend", "it-stance-grapple", "it-stance-attack", "it-stance-none"]);
    }

    #[test]
    fn specials_show_their_edition_name_place_and_level() {
        let c = special_card(Special::DigTwoGraves(Action::Attack));
        assert_eq!(c.name, "Dig Two Graves ◆");
        assert!(c.marks.contains(&"Level 5".to_owned()));
        assert!(c.marks.contains(&"Needs Wax On ◆".to_owned()));
        let parry = special_card(Special::Parry(Action::Defend));
        assert!(parry.marks.contains(&"Earlier edition".to_owned()));
        assert!(render(&special_card(Special::Yojimbo)).contains("before resolving"));
    }

    #[test]
    fn the_full_deck_renders_with_every_name() {
        let d = deck();
        assert_eq!(d.iter().filter(|c| c.kind == Kind::Move).count(), 14);
        assert_eq!(d.iter().filter(|c| c.kind == Kind::Special).count(), Special::all().len());
        for c in &d {
            let svg = render(c);
            assert!(svg.contains(&format!("<title>{}</title>", crate::svg::escape(&c.name))));
            assert!(svg.contains(&c.symbol), "{}", c.key);
        }
    }
}
