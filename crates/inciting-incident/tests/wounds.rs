//! §9 after the fight: Rest Scenes, a full day, Death Hits and revival.

use inciting_incident::wounds::{RestOutcome, Wounds};

mod common;

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

mod rest_scene_in_play {
    use super::*;
    use crate::common;
    use inciting_incident::rules::{Purpose, RuleError};
    use inciting_incident::scene::Phase;
    use inciting_incident::{Command, Event, Scene, Status};

    /// The arena after a fight: P1 wounded, P2 Incapacitated with a Death Hit, E1 dead (Death
    /// Hits at Max Hits), E2 unhurt.
    fn after_the_fight() -> Scene {
        let mut s = Scene::new(common::arena()).unwrap();
        s.fighters[0].hits = 1;
        s.fighters[1].hits = 2;
        s.fighters[1].status = Status::Incapacitated;
        s.fighters[1].death_hits = 1;
        s.fighters[2].hits = 2;
        s.fighters[2].status = Status::Incapacitated;
        s.fighters[2].death_hits = 2;
        s.phase = Phase::Over;
        s
    }

    fn rest(s: &Scene, full_day: bool) -> Vec<Event> {
        let gm = s.gm_seat().unwrap();
        let mut ev = Vec::new();
        s.decide(gm, &Command::RestScene { full_day }, &mut ev).unwrap();
        ev
    }

    #[test]
    fn rest_scene_in_play_applies_the_wounds_rules_to_everyone_who_needs_it() {
        for seed in 0..40 {
            let mut s = after_the_fight();
            std::sync::Arc::make_mut(&mut s.setup).seed = seed;
            let before: Vec<Wounds> = s.fighters.iter().map(|f| f.wounds()).collect();
            let ev = rest(&s, false);
            let mut rolled = std::collections::HashMap::new();
            let mut rested = Vec::new();
            for e in &ev {
                match e {
                    Event::Rolled {
                        who: inciting_incident::rules::Who::Character(c), purpose, roll, ..
                    } => {
                        assert_eq!(*purpose, Purpose::Rest);
                        rolled.insert(*c, roll.total >= 20);
                    }
                    Event::Rested { character, outcome, hits, death_hits, .. } => {
                        let mut w = before[usize::from(*character)];
                        let expected = w.rest(rolled[character]);
                        assert_eq!((*outcome, *hits, *death_hits), (expected, w.hits, w.death_hits));
                        rested.push(*character);
                    }
                    _ => {}
                }
            }
            assert_eq!(rested, vec![0, 1], "the dead and the unhurt do not rest");
            for e in &ev {
                s.apply(e);
            }
            assert_eq!(s.fighters[2].death_hits, 2, "the dead stay dead");
        }
    }

    #[test]
    fn full_day_rest_in_play_heals_the_conscious_and_rolls_for_the_incapacitated() {
        let s = after_the_fight();
        let ev = rest(&s, true);
        let rolls: Vec<_> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Rolled { who, .. } => Some(*who),
                _ => None,
            })
            .collect();
        assert_eq!(rolls, vec![inciting_incident::rules::Who::Character(1)], "only P2 rolls");
        assert!(ev.iter().any(|e| matches!(
            e,
            Event::Rested { character: 0, outcome: RestOutcome::FullyHealed, hits: 0, .. }
        )));
    }

    #[test]
    fn rest_scene_only_after_the_scene_and_only_by_the_gm() {
        let s = Scene::new(common::arena()).unwrap();
        let gm = s.gm_seat().unwrap();
        let mut ev = Vec::new();
        let err = s.decide(gm, &Command::RestScene { full_day: false }, &mut ev).unwrap_err();
        assert!(matches!(err, RuleError::NotYet(_)), "{err}");
        let s = after_the_fight();
        let player = s.fighters[0].seat;
        let err = s.decide(player, &Command::RestScene { full_day: false }, &mut ev).unwrap_err();
        assert!(matches!(err, RuleError::GmOnly { .. }), "{err}");
        // The refusal names the rule that refuses it: the GM holds Rest Scenes.
        let why = err.to_string();
        assert!(why.contains("only the GM may hold a Rest Scene") && !why.contains("end the scene"), "{why}");
        assert!(!why.contains('§'), "players' words: {why}");
        let mut legal = Vec::new();
        s.legal_commands(gm, &mut legal);
        assert!(legal.contains(&Command::RestScene { full_day: false }));
        assert!(legal.iter().all(|c| c.is_gm_ruling()), "bots never rest on their own");
    }
}
