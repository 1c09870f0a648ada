//! §9 after the fight: Rest Scenes, a full day, Death Hits and revival.

use inciting_incident::wounds::{RestOutcome, Wounds};

fn wounded(hits: u8, incapacitated: bool) -> Wounds {
    Wounds { hits, max_hits: 2, incapacitated, ..Wounds::default() }
}

#[test]
fn rest_scene_success_removes_one_hit_failure_nothing() {
    let mut w = wounded(2, false);
    assert_eq!(w.rest(true), RestOutcome::Healed);
    assert_eq!(w.hits, 1);
    assert_eq!(w.rest(false), RestOutcome::Nothing);
    assert_eq!(w.hits, 1);
}

#[test]
fn a_full_day_of_rest_removes_all_hits() {
    let mut w = wounded(2, false);
    assert_eq!(w.full_day(true), RestOutcome::FullyHealed);
    assert_eq!(w.hits, 0);
    let mut down = wounded(2, true);
    assert_eq!(
        down.full_day(false),
        RestOutcome::DeathHit,
        "the Incapacitated roll daily instead (Decision)"
    );
}

#[test]
fn unrevived_incapacitated_characters_mark_death_hits_until_max_hits() {
    let mut w = wounded(2, true);
    assert_eq!(w.daily_roll(false), RestOutcome::DeathHit);
    assert!(w.incapacitated && !w.doomed);
    assert_eq!(w.daily_roll(false), RestOutcome::Dies);
    assert!(w.doomed);
    let mut w = wounded(2, true);
    assert_eq!(w.daily_roll(true), RestOutcome::Recovered);
    assert_eq!((w.hits, w.incapacitated), (1, false));
}

#[test]
fn revival_clears_death_hits() {
    let mut w = wounded(2, true);
    w.daily_roll(false);
    w.revive(1);
    assert_eq!((w.hits, w.death_hits, w.incapacitated), (1, 0, false));
}

#[test]
fn death_hits_at_max_hits_is_dead_not_recovered() {
    // §9: as many Death Hits as Max Hits means death; no later roll brings the character back.
    let mut w = Wounds { hits: 2, max_hits: 2, death_hits: 2, incapacitated: true, doomed: false };
    assert!(w.is_dead());
    assert_eq!(w.daily_roll(true), RestOutcome::Dead);
    assert_eq!(w.rest(true), RestOutcome::Dead);
    assert_eq!(w.full_day(true), RestOutcome::Dead);
    assert_eq!((w.hits, w.death_hits, w.incapacitated), (2, 2, true), "nothing changes");
    // A failed keep-fighting roll dooms the character the same way.
    let mut doomed = Wounds { hits: 1, max_hits: 2, doomed: true, ..Wounds::default() };
    assert_eq!(doomed.rest(true), RestOutcome::Dead);
    assert_eq!(doomed.hits, 1);
}

#[test]
fn full_day_heal_does_not_apply_while_incapacitated() {
    // §9: the whole-day heal is for the conscious wounded; the Incapacitated still make their
    // daily roll that day.
    let mut w = wounded(2, true);
    assert!(!w.full_day_heals());
    assert_eq!(w.full_day(true), RestOutcome::Recovered);
    assert_eq!((w.hits, w.incapacitated), (1, false), "one hit, not every hit");
    let mut w = wounded(2, true);
    assert_eq!(w.full_day(false), RestOutcome::DeathHit);
    assert_eq!((w.hits, w.death_hits), (2, 1));
    let mut up = wounded(2, false);
    assert!(up.full_day_heals());
    assert_eq!(up.full_day(false), RestOutcome::FullyHealed);
    assert_eq!(up.hits, 0);
}
