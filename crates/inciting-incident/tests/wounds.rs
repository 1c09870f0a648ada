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
    assert_eq!(w.full_day(), RestOutcome::FullyHealed);
    assert_eq!(w.hits, 0);
    let mut down = wounded(2, true);
    assert_eq!(down.full_day(), RestOutcome::Nothing, "the Incapacitated roll daily instead (Decision)");
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
