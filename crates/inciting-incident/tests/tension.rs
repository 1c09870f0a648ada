//! §10 and open question 14: Rising Tension, the GM's resource, as GM-editable scene data; its
//! one known use is making the sides' Strikes unequal.

mod common;

use inciting_incident::rules::RuleError;
use inciting_incident::{Command, Event, Scene};

#[test]
fn rising_tension_pays_for_unequal_strikes() {
    let mut s = common::example("cover-up.toml");
    s.strikes = Some([3, 5]);
    let e = Scene::new(s.clone()).unwrap_err().to_string();
    assert!(e.contains("Rising Tension") && e.contains("rising_tension.pool"), "{e}");
    s.rising_tension.pool = 2;
    let scene = Scene::new(s.clone()).unwrap();
    assert_eq!(scene.rising_tension, 0, "two Strikes of difference cost 2 at the default price");
    s.rising_tension.per_strike = 2;
    assert!(Scene::new(s.clone()).is_err());
    s.rising_tension.pool = 5;
    assert_eq!(Scene::new(s).unwrap().rising_tension, 1);
    // Equal Strikes cost nothing.
    let plain = Scene::new(common::example("cover-up.toml")).unwrap();
    assert_eq!(plain.rising_tension, 0);
}

#[test]
fn rising_tension_spent_in_play_gives_a_side_strikes() {
    let mut s = common::example("cover-up.toml");
    s.rising_tension.pool = 3;
    let scene = Scene::new(s).unwrap();
    let gm = scene.gm_seat().unwrap();
    let before = scene.strikes.unwrap();
    let mut legal = Vec::new();
    scene.legal_commands(gm, &mut legal);
    assert!(legal.contains(&Command::SpendTension { side: 1, strikes: 1 }));
    assert!(Command::SpendTension { side: 1, strikes: 1 }.is_gm_ruling(), "bots never spend it");
    let mut ev = Vec::new();
    scene.decide(gm, &Command::SpendTension { side: 1, strikes: 2 }, &mut ev).unwrap();
    let mut after = scene.clone();
    for e in &ev {
        after.apply(e);
    }
    assert!(matches!(ev[..], [Event::TensionSpent { side: 1, strikes: 2, left: 1, .. }]), "{ev:?}");
    assert_eq!(after.strikes.unwrap(), [before[0], before[1] + 2]);
    assert_eq!(after.rising_tension, 1);
    let err = after.decide(gm, &Command::SpendTension { side: 0, strikes: 2 }, &mut ev).unwrap_err();
    assert!(matches!(err, RuleError::Tension(_)), "{err}");
    let player = after.fighters[0].seat;
    let err = after.decide(player, &Command::SpendTension { side: 0, strikes: 1 }, &mut ev).unwrap_err();
    assert!(matches!(err, RuleError::GmOnly { .. }), "{err}");
    // The refusal names the rule that refuses it: Rising Tension is the GM's resource.
    let why = err.to_string();
    assert!(why.contains("only the GM may spend Rising Tension") && !why.contains("end the scene"), "{why}");
    assert!(!why.contains('§'), "players' words: {why}");
    // A combat has no Strikes to buy.
    let fight = common::fight();
    let gm = fight.gm_seat().unwrap();
    let err = fight.decide(gm, &Command::SpendTension { side: 0, strikes: 1 }, &mut ev).unwrap_err();
    assert!(matches!(err, RuleError::Tension(_)), "{err}");
}
