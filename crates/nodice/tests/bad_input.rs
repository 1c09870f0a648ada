//! Values from files and commands at the edges of their types: never a panic, never a wrapped
//! number — a clear error where the rules bound the value (§3.2: AV 0–100), else arithmetic
//! that stops at the type's maximum.

mod common;

use common::*;
use nodice::damage::through_partial_aspect;
use nodice::hand::showdown_total;
use nodice::*;

#[test]
fn showdown_total_never_overflows() {
    // A Sweep bonus from a conflict file as large as its type: the total stops at the top.
    assert_eq!(showdown_total(100, true, true, true, 5, u16::MAX), u16::MAX);
    assert_eq!(showdown_total(u16::MAX, true, false, false, 5, 5), u16::MAX);
}

#[test]
fn partial_aspect_damage_never_overflows() {
    // §6: floor(2D/3) for two Attributes, computed without overflowing 2D.
    assert_eq!(through_partial_aspect(u16::MAX, 2), 43690);
    assert_eq!(through_partial_aspect(30_000, 2), 20_000);
    assert_eq!(through_partial_aspect(u16::MAX, 1), 21845);
}

#[test]
fn a_huge_sweep_bonus_plays_without_overflow() {
    let mut setup = kara_vs_bandit();
    setup.options.sweep_bonus = Some(u16::MAX);
    setup.actors[1].statblock = block("R20/0(206/0)-M2(3/3/-)-B66(@/@/-)-S3(3/3/3)");
    let mut t = start(setup);
    commit_aspect(&mut t, "Kara", "REA", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "STR", &["Kara"]).unwrap();
    // Mind beats Body; REA beats FIT: Kara sweeps.
    commit_action(&mut t, "Kara", "REA", 4, false).unwrap();
    commit_action(&mut t, "Bandit", "FIT", 5, false).unwrap();
    let sd = &t.state().showdown;
    assert_eq!(sd.pairs[0].totals[0], u16::MAX);
    // Kara (bid 4) strikes first, unopposed, at Mind: two Mind Attributes → floor(2D/3).
    assert!(t.log().contains(&Event::Struck { strike: 0, damage: 43690 }));
    assert_eq!(t.state().actors[1].status, Status::Exhausted(Aspect::Mind));
}

#[test]
fn a_huge_damage_ability_plays_without_overflow() {
    let mut setup = kara_vs_bandit();
    setup.extensions =
        vec![Ext::DamageAbility(DamageAbility { actor: ActorId(0), points: u16::MAX, aspect: None })];
    let mut t = start(setup);
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "WIL", &["Kara"]).unwrap();
    commit_action(&mut t, "Kara", "STR", 4, false).unwrap();
    commit_action(&mut t, "Bandit", "PRE", 3, false).unwrap();
    let kara = t.state().showdown.strikes.iter().find(|s| s.attacker == ActorId(0)).copied().unwrap();
    assert_eq!(kara.damage, u16::MAX);
}

#[test]
fn huge_ability_points_in_a_serial_are_not_a_panic() {
    let (b, warnings) =
        Statblock::parse_with_warnings("R1/1(27/65535)-M3(3/3/3)-B3(3/3/3)-S3(3/3/3)").unwrap();
    assert_eq!(b.build_budget(), 27, "the stated Build Budget is used");
    assert!(matches!(warnings[..], [SerialWarning::Budget { stated: 27, sum: u16::MAX }]), "{warnings:?}");
    let unstated = Statblock { ability_points: u16::MAX, ..Statblock::even(3) };
    assert_eq!(unstated.build_budget(), u16::MAX);
}

#[test]
fn an_attribute_value_over_100_is_a_setup_error() {
    // §3.2: AV 0–100. A hand-edited save or setup cannot bring more.
    let mut setup = kara_vs_bandit();
    setup.actors[1].statblock.attributes[Attribute::Str.index()] = Some(101);
    let err = Conflict::new(setup).unwrap_err();
    assert_eq!(err, SetupError::Value("Bandit".into(), Attribute::Str, 101));
    assert!(err.to_string().contains("0–100"), "{err}");
}

#[test]
fn names_differing_only_in_case_are_duplicates() {
    // Actors are found by name case-insensitively (`Conflict::find`, the CLI's targets), so
    // "kara" next to "Kara" could never be named.
    let mut setup = kara_vs_bandit();
    setup.actors[1].name = "kara ".into();
    assert_eq!(Conflict::new(setup).unwrap_err(), SetupError::DuplicateName("kara ".into()));
}
