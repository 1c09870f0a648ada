//! Words a player knows (issue 34 §2): a refusal is read by players, who do not have the rules
//! reference, so no refusal's text cites its sections (`§`); the doc comments keep them.

use inciting_incident::RuleError;
use inciting_incident::rules::GmRuling;

/// Every variant of [`RuleError`] (and of [`GmRuling`] inside it), once; the match below fails
/// to compile when one is added, so a new refusal is walked too.
fn every_refusal() -> Vec<RuleError> {
    let s = || "Bren".to_owned();
    let all = vec![
        RuleError::Over,
        RuleError::UnknownCharacter(9),
        RuleError::NotYours { seat: s(), character: s() },
        RuleError::OutOfTurn { character: s(), waiting: "the enemies resolve their actions".into() },
        RuleError::AlreadyDeclared(s()),
        RuleError::GmOnly { seat: s(), ruling: GmRuling::EndScene },
        RuleError::GmOnly { seat: s(), ruling: GmRuling::SpendTension },
        RuleError::GmOnly { seat: s(), ruling: GmRuling::RestScene },
        RuleError::Tension("not enough".into()),
        RuleError::NotYet("the scene goes on".into()),
        RuleError::Adjust("no such Duel".into()),
        RuleError::UnknownSide(4),
        RuleError::Illegal { character: s(), reason: "cannot move there".into() },
    ];
    let mut seen: Vec<usize> = all.iter().map(variant).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen, (0..all.len()).collect::<Vec<_>>(), "every variant once");
    all
}

fn variant(e: &RuleError) -> usize {
    match e {
        RuleError::Over => 0,
        RuleError::UnknownCharacter(_) => 1,
        RuleError::NotYours { .. } => 2,
        RuleError::OutOfTurn { .. } => 3,
        RuleError::AlreadyDeclared(_) => 4,
        RuleError::GmOnly { ruling: GmRuling::EndScene, .. } => 5,
        RuleError::GmOnly { ruling: GmRuling::SpendTension, .. } => 6,
        RuleError::GmOnly { ruling: GmRuling::RestScene, .. } => 7,
        RuleError::Tension(_) => 8,
        RuleError::NotYet(_) => 9,
        RuleError::Adjust(_) => 10,
        RuleError::UnknownSide(_) => 11,
        RuleError::Illegal { .. } => 12,
    }
}

#[test]
fn no_refusal_cites_a_section_of_the_rules_reference() {
    for e in every_refusal() {
        let text = e.to_string();
        assert!(!text.contains('§'), "{e:?}: {text}");
    }
}

/// `facedown inciting-incident rules` and `?` at a prompt: the quick reference names no section.
#[test]
fn the_quick_reference_cites_no_section() {
    let text = inciting_incident::reference::quick_reference();
    assert!(!text.contains('§'), "{text}");
}
