//! Words a player knows (issue 34 §2): a refusal is read by players, who do not have the rules
//! reference, so no refusal's text cites its sections (`§`); the doc comments keep them.

use iron_triangle::{Action, Element, Energy, Move, RuleError};

/// Every variant of [`RuleError`], once; the match below fails to compile when one is added,
/// so a new refusal is walked too.
fn every_refusal() -> Vec<RuleError> {
    let s = || "Ada".to_owned();
    let card = Move::new(Action::Grapple, Element::Earth).unwrap();
    let all = vec![
        RuleError::ConflictOver,
        RuleError::UnknownFighter(7),
        RuleError::UnknownSeat(3),
        RuleError::OutOfTurn { seat: s(), waiting: "Kuro commits a stance".into(), section: "§5.2 step 2" },
        RuleError::NotYourCharacter { seat: s(), fighter: s() },
        RuleError::BadOpponent { opponent: s(), reason: "out of the conflict".into() },
        RuleError::AlreadyCommitted { fighter: s(), what: "a stance" },
        RuleError::StanceAboveEnergy { fighter: s(), action: Action::Attack, amount: 9, current: 2 },
        RuleError::UnknownMove { fighter: s(), card, known: "○☵".into() },
        RuleError::MoveUnavailable { fighter: s(), card, chain: "disadvantage" },
        RuleError::NoComboToEnd { fighter: s() },
        RuleError::SpreadTotal { fighter: s(), expected: 4, got: 3 },
        RuleError::SpreadAboveEnergy { fighter: s(), action: Action::Defend, asked: 3, left: 1 },
        RuleError::SpecialNotPlayable {
            fighter: s(),
            special: "Scouter".into(),
            reason: "not learned".into(),
        },
        RuleError::MoveForbidden { fighter: s(), action: Action::Attack },
        RuleError::SamuraiCannotSurrender { fighter: s() },
        RuleError::NotGm("end the conflict"),
        RuleError::AboveMaximum { fighter: s(), energy: Energy::default(), max: Energy::default() },
        RuleError::CannotTakeTurn { fighter: s(), reason: "out of the conflict".into() },
    ];
    let mut seen: Vec<usize> = all.iter().map(variant).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen, (0..all.len()).collect::<Vec<_>>(), "every variant once");
    all
}

fn variant(e: &RuleError) -> usize {
    match e {
        RuleError::ConflictOver => 0,
        RuleError::UnknownFighter(_) => 1,
        RuleError::UnknownSeat(_) => 2,
        RuleError::OutOfTurn { .. } => 3,
        RuleError::NotYourCharacter { .. } => 4,
        RuleError::BadOpponent { .. } => 5,
        RuleError::AlreadyCommitted { .. } => 6,
        RuleError::StanceAboveEnergy { .. } => 7,
        RuleError::UnknownMove { .. } => 8,
        RuleError::MoveUnavailable { .. } => 9,
        RuleError::NoComboToEnd { .. } => 10,
        RuleError::SpreadTotal { .. } => 11,
        RuleError::SpreadAboveEnergy { .. } => 12,
        RuleError::SpecialNotPlayable { .. } => 13,
        RuleError::MoveForbidden { .. } => 14,
        RuleError::SamuraiCannotSurrender { .. } => 15,
        RuleError::NotGm(_) => 16,
        RuleError::AboveMaximum { .. } => 17,
        RuleError::CannotTakeTurn { .. } => 18,
    }
}

#[test]
fn no_refusal_cites_a_section_of_the_rules_reference() {
    for e in every_refusal() {
        let text = e.to_string();
        assert!(!text.contains('§'), "{e:?}: {text}");
    }
}

/// `facedown iron-triangle rules` and `?` at a prompt: the quick reference names no section.
#[test]
fn the_quick_reference_cites_no_section() {
    let text = iron_triangle::reference::quick_reference();
    assert!(!text.contains('§'), "{text}");
}
