//! The Contract: extensions change calculations at named steps only. The Damage ability
//! (rules reference §8) proves the hooks: +1 damage per point after Dominance, +1 to the Bid
//! for Action Priority only.

mod common;

use common::*;
use nodice::extension::Extension;
use nodice::*;

fn with_damage(points: u16, aspect: Option<Aspect>) -> table::Table<NoDice> {
    let mut setup = kara_vs_bandit();
    setup.extensions = vec![Ext::DamageAbility(DamageAbility { actor: ActorId(0), points, aspect })];
    start(setup)
}

fn hand(t: &mut table::Table<NoDice>, kara_bid: u16) {
    commit_aspect(t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(t, "Bandit", "WIL", &["Kara"]).unwrap();
    commit_action(t, "Kara", "STR", kara_bid, true).unwrap();
    commit_action(t, "Bandit", "PRE", 3, false).unwrap();
}

#[test]
fn damage_ability_adds_damage_after_dominance_not_to_the_total() {
    let mut t = with_damage(2, Some(Aspect::Body));
    hand(&mut t, 4);
    let sd = &t.state().showdown;
    assert_eq!(sd.pairs[0].totals, [8, 3], "the Showdown Total is unchanged");
    let kara = sd.strikes.iter().find(|s| s.attacker == ActorId(0)).unwrap();
    assert_eq!(kara.damage, 5 + 2);
    assert_eq!(kara.priority, 4 + 2);
}

#[test]
fn damage_ability_makes_the_wielder_slower() {
    // Without it Kara (bid 2) strikes before the Bandit (bid 3); with Damage 2 her priority
    // is 4 and the Bandit strikes first, unopposed.
    let mut plain = start(kara_vs_bandit());
    hand(&mut plain, 2);
    assert_eq!(plain.state().showdown.strikes[0].attacker, ActorId(0));
    let mut t = with_damage(2, None);
    hand(&mut t, 2);
    let first = t.state().showdown.strikes[0];
    assert_eq!((first.attacker, first.unopposed, first.damage), (ActorId(1), true, 3));
    // Kara then deals 2 + 1 + 1 + 1 + 1 = 6 − 3 = 3, +2 from the ability.
    assert_eq!(t.state().showdown.strikes[1].damage, 5);
}

#[test]
fn damage_ability_only_for_its_aspect_and_only_when_damage_is_dealt() {
    let mut t = with_damage(2, Some(Aspect::Mind));
    hand(&mut t, 4);
    let kara = t.state().showdown.strikes.iter().find(|s| s.attacker == ActorId(0)).copied().unwrap();
    assert_eq!(kara.damage, 5, "Body damage: a Mind ability adds nothing");
    let d = DamageAbility { actor: ActorId(0), points: 3, aspect: None };
    let mut zero = 0;
    d.apply_damage(ActorId(0), ActorId(1), Aspect::Body, &mut zero);
    assert_eq!(zero, 0, "a losing Action deals nothing, ability or not");
}

#[test]
fn an_extension_for_a_missing_actor_is_a_setup_error() {
    let mut setup = kara_vs_bandit();
    setup.extensions = vec![Ext::DamageAbility(DamageAbility { actor: ActorId(5), points: 1, aspect: None })];
    assert_eq!(Conflict::new(setup), Err(SetupError::Extension(ActorId(5))));
}
