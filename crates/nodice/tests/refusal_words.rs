//! Words a player knows (issue 34 §2): a refusal is read by players, who do not have the rules
//! reference, so no refusal's text cites its sections (`§`); the doc comments keep them.

use nodice::damage::SpreadError;
use nodice::{ActorId, Aspect, Attribute, RuleError};

/// Every variant of [`RuleError`] (and of the spread's [`SpreadError`] inside it), once; the
/// match below fails to compile when one is added, so a new refusal is walked too.
fn every_refusal() -> Vec<RuleError> {
    let s = || "Kara".to_owned();
    let all = vec![
        RuleError::Over,
        RuleError::UnknownActor(ActorId(9)),
        RuleError::NotYourActor { seat: s(), actor: s() },
        RuleError::NotNow("the GM engages the Actors".into()),
        RuleError::NotGm,
        RuleError::NoSuchAspect { actor: s(), aspect: Aspect::Mind },
        RuleError::OutsideAspect { attribute: Attribute::Str, aspect: Aspect::Mind, step: 3 },
        RuleError::Absent { actor: s(), attribute: Attribute::Rea },
        RuleError::AnteShort { attribute: Attribute::Str, has: 1, ante: 3 },
        RuleError::NoTarget,
        RuleError::BadTarget("Kara targets herself".into()),
        RuleError::OverCap { bid: 40, cap: 30 },
        RuleError::OverStack { bid: 40, has: 30, attribute: Attribute::Fit },
        RuleError::Unusable(Attribute::Agi),
        RuleError::NoWildcard,
        RuleError::NoWildcardPool(s()),
        RuleError::DamageAspect,
        RuleError::IntentTooLong,
        RuleError::Intent("empty".into()),
        RuleError::Spread(SpreadError::Total { placed: 2, expected: 3 }),
        RuleError::Spread(SpreadError::TooMuch { placed: 4, has: 2 }),
        RuleError::Spread(SpreadError::Absent),
        RuleError::Engagement("nobody engaged".into()),
        RuleError::Justification("too long".into()),
        RuleError::AdjustNotGm,
        RuleError::Adjust("no such Attribute".into()),
    ];
    let mut seen: Vec<usize> = all.iter().map(variant).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen, (0..26).collect::<Vec<_>>(), "every variant once");
    all
}

fn variant(e: &RuleError) -> usize {
    match e {
        RuleError::Over => 0,
        RuleError::UnknownActor(_) => 1,
        RuleError::NotYourActor { .. } => 2,
        RuleError::NotNow(_) => 3,
        RuleError::NotGm => 4,
        RuleError::NoSuchAspect { .. } => 5,
        RuleError::OutsideAspect { .. } => 6,
        RuleError::Absent { .. } => 7,
        RuleError::AnteShort { .. } => 8,
        RuleError::NoTarget => 9,
        RuleError::BadTarget(_) => 10,
        RuleError::OverCap { .. } => 11,
        RuleError::OverStack { .. } => 12,
        RuleError::Unusable(_) => 13,
        RuleError::NoWildcard => 14,
        RuleError::NoWildcardPool(_) => 15,
        RuleError::DamageAspect => 16,
        RuleError::IntentTooLong => 17,
        RuleError::Intent(_) => 18,
        RuleError::Spread(SpreadError::Total { .. }) => 19,
        RuleError::Spread(SpreadError::TooMuch { .. }) => 20,
        RuleError::Spread(SpreadError::Absent) => 21,
        RuleError::Engagement(_) => 22,
        RuleError::Justification(_) => 23,
        RuleError::AdjustNotGm => 24,
        RuleError::Adjust(_) => 25,
    }
}

#[test]
fn no_refusal_cites_a_section_of_the_rules_reference() {
    for e in every_refusal() {
        let text = e.to_string();
        assert!(!text.contains('§'), "{e:?}: {text}");
    }
}

/// `facedown nodice rules` and `?` at a prompt: the quick reference names no section.
#[test]
fn the_quick_reference_cites_no_section() {
    let text = nodice::reference::quick_reference();
    assert!(!text.contains('§'), "{text}");
}
