//! Rules the reference marks [MISSING], built as scene or sheet data with documented
//! defaults: longer range from Ranged upgrades (§7.3, §11), Crisis carried in from an Action
//! scene (§8), derived defences (§4.3).

mod common;

use common::*;
use inciting_incident::character::{DefenceFormula, DefenceKind};
use inciting_incident::{Action, IncitingIncident, Scene};
use table::Table;

/// The arena with Mira-like archer P1 alone in A, E1 in C (two Regions away), the others in B.
fn long_field(range: Option<u8>, sight: bool) -> Scene {
    let mut s = arena();
    s.characters[0].sheet.talents[0].skills.ranged = inciting_incident::character::Ranged::Basic;
    s.characters[0].sheet.talents[0].skills.range = range;
    for c in &mut s.characters[1..] {
        c.region = Some("B".into());
    }
    s.characters[2].region = Some("C".into());
    if sight {
        s.sight = vec![["A".into(), "C".into()]];
    }
    Scene::new(s).unwrap()
}

#[test]
fn ranged_upgrade_range_reaches_farther_only_with_sight() {
    let e1 = inciting_incident::Target::Character(2);
    let shot = Action::Decisive { talent: 0, target: e1, defence: None };
    // The basic range: adjacent Regions only (the default).
    assert!(long_field(None, true).check_action(0, &shot).is_err());
    // A range of 2 from the sheet, but no line of sight from A to C: still out of reach.
    assert!(long_field(Some(2), false).check_action(0, &shot).is_err());
    // A range of 2 and the scene file's sight pair: in reach.
    assert!(long_field(Some(2), true).check_action(0, &shot).is_ok());
    // A range of 0 or beyond 4 is refused on the sheet.
    let mut s = arena();
    s.characters[0].sheet.talents[0].skills.range = Some(0);
    assert!(Scene::new(s).unwrap_err().to_string().contains("skills.range"));
}

#[test]
fn crisis_start_carries_crisis_in_from_an_action_scene() {
    let mut s = arena();
    assert_eq!(Scene::new(s.clone()).unwrap().crisis, 0, "the default: no Crisis carried in");
    s.crisis_start = 12;
    let mut t = Table::<IncitingIncident>::new(Scene::new(s.clone()).unwrap());
    assert_eq!(t.state().crisis, 12);
    let e1 = ch(&t, "E1");
    declare(&mut t, &[(0, Action::Regular { talent: None, target: e1, roll: false, defence: None })]);
    finish_round(&mut t);
    assert_eq!(t.state().crisis, 16);
    s.crisis_start = 2_000_000;
    assert!(Scene::new(s).unwrap_err().to_string().contains("crisis_start"));
}

#[test]
fn derived_defences_fill_only_what_the_sheet_leaves_out() {
    let rule = DefenceFormula { rv_base: 2, rv_per_level: 1, rd_base: 6, rd_per_level: 1 };
    let mut s = arena();
    // P1 leaves Resolve out (Fortitude 5, Perseverance 4: mean 4).
    s.characters[0].sheet.defences.resolve = Default::default();
    assert!(Scene::new(s.clone()).unwrap_err().to_string().contains("derived_defences"));
    s.derived_defences = Some(rule);
    let scene = Scene::new(s).unwrap();
    let d = scene.fighters[0].sheet.defences.get(DefenceKind::Resolve);
    assert_eq!((d.rv, d.rd), (6, 2));
    let given = scene.fighters[0].sheet.defences.get(DefenceKind::Resilience);
    assert_eq!((given.rv, given.rd), (6, 3), "a defence on the sheet stays as written");
    // RD never below 0, RV at least 1.
    let steep = DefenceFormula { rv_base: 0, rv_per_level: 0, rd_base: 1, rd_per_level: 9 };
    let abilities = inciting_incident::Abilities { fortitude: 9, perseverance: 9, nimbleness: 9 };
    assert_eq!(steep.derive(&abilities, DefenceKind::Resolve), (1, 0));
}

/// Rules reference §4.3, Decision on derived defences: the exact mean of the two Abilities (no
/// rounding first); RV rounded down and RD up when a fraction remains, then the floors.
#[test]
fn derived_defences_use_the_exact_mean_rv_rounded_down_rd_up() {
    let rule = DefenceFormula { rv_base: 1, rv_per_level: 2, rd_base: 6, rd_per_level: 2 };
    // Fortitude 3, Perseverance 2: Resolve's mean is 2.5, so RV 1 + 5 = 6 and RD 6 − 5 = 1.
    let abilities = inciting_incident::Abilities { fortitude: 3, perseverance: 2, nimbleness: 0 };
    assert_eq!(rule.derive(&abilities, DefenceKind::Resolve), (6, 1));
    // A fraction left over: RV 0 + 1 × 2.5 = 2.5 → 2 (down); RD 5 − 1 × 2.5 = 2.5 → 3 (up).
    let odd = DefenceFormula { rv_base: 0, rv_per_level: 1, rd_base: 5, rd_per_level: 1 };
    assert_eq!(odd.derive(&abilities, DefenceKind::Resolve), (2, 3));
    // The floors come last: RV 0 + 1 × 0.5 → at least 1; RD 0 − 1 × 2.5 → at least 0.
    let low = inciting_incident::Abilities { fortitude: 1, perseverance: 0, nimbleness: 0 };
    let floor = DefenceFormula { rv_base: 0, rv_per_level: 1, rd_base: 0, rd_per_level: 1 };
    assert_eq!(floor.derive(&low, DefenceKind::Resolve), (1, 0));
}
