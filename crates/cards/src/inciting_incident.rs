//! Inciting Incident's cards (rules reference §5–§9): the actions a character declares face
//! down each round and the reference cards (defences, level dice). The Crisis each action
//! adds, the dice and the defences come from the `inciting-incident` crate.

use inciting_incident::DefenceKind;
use inciting_incident::attack::{
    AUTOMATIC, DECISIVE_CRISIS, LEAVE_DUEL_CRISIS, MIN_FLOW, MOVE_CRISIS, REGULAR_SUCCESS_CRISIS,
};
use inciting_incident::dice::{MAX_LEVEL, TARGET, level_dice};

use crate::{Card, Kind, System};

/// The five actions a character may declare (§5 step 5), as their card keys:
/// `ii-action-hold`, `ii-action-move`, `ii-action-regular`, `ii-action-decisive`,
/// `ii-action-advanced`.
pub const ACTIONS: [&str; 5] = ["hold", "move", "regular", "decisive", "advanced"];

/// The key of the card of an action: the action's kind as [`ACTIONS`] names it.
pub fn action_key(action: &inciting_incident::Action) -> String {
    use inciting_incident::Action::*;
    let kind = match action {
        Hold => "hold",
        Move { .. } => "move",
        Regular { .. } => "regular",
        Decisive { .. } => "decisive",
        Advanced { .. } => "advanced",
    };
    format!("ii-action-{kind}")
}

fn action(kind: &str, name: &str, symbol: &str, lines: Vec<String>) -> Card {
    Card {
        key: format!("ii-action-{kind}"),
        system: System::IncitingIncident,
        kind: Kind::Action,
        name: name.to_owned(),
        symbol: symbol.to_owned(),
        corner: symbol.to_owned(),
        marks: Vec::new(),
        lines,
    }
}

/// The action cards (§5, §7).
pub fn deck() -> Vec<Card> {
    vec![
        action("hold", "Hold", "⏸", vec!["Do nothing this round; no Crisis.".to_owned()]),
        action(
            "move",
            "Move",
            "→",
            vec![
                "Up to three adjacent Regions.".to_owned(),
                format!("Crisis +{MOVE_CRISIS} a Region, +{LEAVE_DUEL_CRISIS} for leaving a Duel."),
            ],
        ),
        action(
            "regular",
            "Regular Attack",
            "⚔",
            vec![
                format!("Automatic: Flow +{AUTOMATIC} your way, Crisis +{AUTOMATIC}."),
                format!(
                    "Talent Roll: {TARGET} or more moves the Flow by the excess (at least {MIN_FLOW}), Crisis +{REGULAR_SUCCESS_CRISIS}."
                ),
            ],
        ),
        action(
            "decisive",
            "Decisive Attack",
            "✖",
            vec![
                "Turn the Flow into wounds: your roll against the defence roll.".to_owned(),
                format!("Crisis +{DECISIVE_CRISIS}."),
            ],
        ),
        action(
            "advanced",
            "Advanced Action",
            "★",
            vec!["An action one of your Talent's Skills allows, with the Crisis it says.".to_owned()],
        ),
    ]
}

/// The reference cards: the defences (§4.3) and the level dice (§3.1).
pub fn reference() -> Vec<Card> {
    let defences: Vec<String> = DefenceKind::ALL
        .into_iter()
        .map(|d| {
            let [a, b] = d.abilities();
            format!("{}: {} or {}; Protection {}.", d.name(), a.name(), b.name(), d.protection_name())
        })
        .collect();
    let dice: Vec<String> = (1..=MAX_LEVEL)
        .map(|l| {
            let (n, sides) = level_dice(l);
            format!("{l}: {n}d{sides}")
        })
        .collect();
    vec![
        Card {
            key: "ii-reference-defences".to_owned(),
            system: System::IncitingIncident,
            kind: Kind::Reference,
            name: "Defences".to_owned(),
            symbol: "⛨".to_owned(),
            corner: "?".to_owned(),
            marks: Vec::new(),
            lines: defences,
        },
        Card {
            key: "ii-reference-dice".to_owned(),
            system: System::IncitingIncident,
            kind: Kind::Reference,
            name: "Level Dice".to_owned(),
            symbol: "⚅".to_owned(),
            corner: "?".to_owned(),
            marks: Vec::new(),
            lines: vec![dice.join(" · "), format!("A Talent Roll succeeds at {TARGET} or more.")],
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render;

    #[test]
    fn action_cards_show_the_crisis_each_adds() {
        let d = deck();
        assert_eq!(
            d.iter().map(|c| c.key.clone()).collect::<Vec<_>>(),
            ACTIONS.map(|a| format!("ii-action-{a}"))
        );
        assert!(render(&d[1]).contains(&format!("Crisis +{MOVE_CRISIS} a Region")));
        assert!(render(&d[3]).contains(&format!("Crisis +{DECISIVE_CRISIS}")));
    }

    #[test]
    fn every_declared_action_has_a_card() {
        let hold = inciting_incident::Action::Hold;
        assert!(crate::card(&action_key(&hold)).is_ok());
    }

    #[test]
    fn the_reference_cards_hold_the_defences_and_level_dice() {
        let r = reference();
        let defences = render(&r[0]);
        for d in DefenceKind::ALL {
            assert!(defences.contains(d.name()) && defences.contains(d.protection_name()));
        }
        let (n, s) = level_dice(MAX_LEVEL);
        assert!(render(&r[1]).contains(&format!("{MAX_LEVEL}: {n}d{s}")));
    }

    #[test]
    fn the_full_deck_renders_with_every_name() {
        for c in deck().iter().chain(&reference()) {
            assert!(render(c).contains(&format!("<title>{}</title>", c.name)), "{}", c.key);
        }
    }
}
