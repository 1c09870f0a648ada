//! The scene rules, one test per rule or Decision (§5–§10).

mod common;

use common::*;
use inciting_incident::rules::{FlowSource, GmRuling, InitiativeWhy};
use inciting_incident::scene::{MinionSpec, Pending, TriggerEffect, TriggerSpec};
use inciting_incident::{
    Action, Command, Event, IncitingIncident, MinionStats, Phase, RuleError, Scene, SetupError, Status,
    Target,
};
use table::{Face, Table, Viewer};

fn table(setup: inciting_incident::Setup) -> Table<IncitingIncident> {
    Table::new(Scene::new(setup).unwrap())
}

fn cultists(region: &str, count: u32) -> MinionSpec {
    MinionSpec {
        side: "enemies".into(),
        region: region.into(),
        count,
        stats: toml::from_str(
            r#"name = "Cultists"
attack = { level = 3 }
rd = 4
defence_level = 2
rv = 4"#,
        )
        .unwrap(),
    }
}

#[test]
fn every_duel_starts_at_flow_0() {
    let t = table(arena());
    assert_eq!(t.state().duels.len(), 1);
    assert_eq!(t.state().duels[0].flow, 0);
    assert!(t.state().duels[0].active);
}

#[test]
fn declarations_are_hidden_until_everyone_has_declared() {
    let mut t = table(arena());
    let p = seat_of(&t, 0);
    let gm = seat_of(&t, 2);
    let e1 = ch(&t, "E1");
    t.submit(
        p,
        &Command::Declare { character: 0, action: Action::Decisive { talent: 0, target: e1, defence: None } },
    )
    .unwrap();
    assert!(matches!(t.view(Viewer::Seat(gm)).fighters[0].declared, Face::FaceDown));
    assert!(matches!(t.view(Viewer::Spectator).fighters[0].declared, Face::FaceDown));
    assert!(matches!(t.view(Viewer::Seat(p)).fighters[0].declared, Face::Known(_)));
    assert!(
        t.log_for(Viewer::Seat(gm)).iter().all(|e| !matches!(e, Event::Declared { action: Some(_), .. }))
    );
    // A face-down declaration cannot be taken back.
    let again = t.submit(p, &Command::Declare { character: 0, action: Action::Hold });
    assert!(matches!(again, Err(RuleError::AlreadyDeclared(_))));
    declare(&mut t, &[]);
    assert!(matches!(t.state().phase, Phase::Resolve { .. }));
    assert!(matches!(t.view(Viewer::Seat(gm)).fighters[0].declared, Face::Known(_)));
}

#[test]
fn a_seat_cannot_declare_for_another_seats_character() {
    let mut t = table(arena());
    let gm = seat_of(&t, 2);
    let before = t.state().clone();
    let r = t.submit(gm, &Command::Declare { character: 0, action: Action::Hold });
    assert!(matches!(r, Err(RuleError::NotYours { .. })));
    assert_eq!(t.state(), &before);
}

#[test]
fn bad_input_leaves_the_state_unchanged() {
    let mut t = table(arena());
    let p = seat_of(&t, 0);
    let before = t.state().clone();
    let log = t.log().len();
    let bad = [
        Command::Declare { character: 9, action: Action::Hold },
        Command::Act { character: 0 },
        Command::KeepFighting { character: 0, roll: true },
        Command::Declare {
            character: 0,
            action: Action::Decisive { talent: 7, target: Target::Character(2), defence: None },
        },
        Command::Declare {
            character: 0,
            action: Action::Decisive { talent: 0, target: Target::Character(1), defence: None },
        },
    ];
    for c in bad {
        assert!(t.submit(p, &c).is_err(), "{c:?}");
        assert_eq!(t.state(), &before);
        assert_eq!(t.log().len(), log);
    }
}

#[test]
fn first_round_initiative_goes_to_the_highest_nimbleness() {
    // P1 has Nimbleness 4, everyone else 3.
    let t = table(arena());
    assert_eq!(t.state().initiative, 0);
    assert!(t.log().iter().any(|e| matches!(e, Event::RoundStarted { why: InitiativeWhy::Nimbleness, .. })));
}

#[test]
fn sides_resolve_in_initiative_order_each_in_its_own_order() {
    let mut t = table(arena());
    declare(&mut t, &[]);
    assert_eq!(t.state().phase, Phase::Resolve { side: 0 });
    // The players choose P2 before P1; enemies cannot act yet.
    let gm = seat_of(&t, 2);
    assert!(t.submit(gm, &Command::Act { character: 2 }).is_err());
    act(&mut t, 1);
    act(&mut t, 0);
    assert_eq!(t.state().phase, Phase::Resolve { side: 1 });
}

#[test]
fn later_rounds_go_to_the_side_with_least_crisis_ties_keep_it() {
    let mut t = table(arena());
    let e1 = ch(&t, "E1");
    let p1 = ch(&t, "P1");
    // Round 1: players attack automatically (Crisis 4), enemies hold (0).
    declare(&mut t, &[(0, Action::Regular { talent: None, target: e1, roll: false, defence: None })]);
    act(&mut t, 0);
    act(&mut t, 1);
    act(&mut t, 2);
    act(&mut t, 3);
    assert_eq!(t.state().round, 2);
    assert_eq!(t.state().initiative, 1, "enemies generated less Crisis");
    // Round 2: each side 4 Crisis: the enemies keep the initiative.
    declare(
        &mut t,
        &[
            (0, Action::Regular { talent: None, target: e1, roll: false, defence: None }),
            (2, Action::Regular { talent: None, target: p1, roll: false, defence: None }),
        ],
    );
    for f in [2, 3, 0, 1] {
        act(&mut t, f);
    }
    assert_eq!(t.state().initiative, 1);
    assert!(matches!(
        t.log().iter().rev().find(|e| matches!(e, Event::RoundStarted { .. })),
        Some(Event::RoundStarted { why: InitiativeWhy::Kept, .. })
    ));
}

#[test]
fn a_surprise_round_is_played_by_the_surprising_side_alone() {
    let mut s = arena();
    s.surprise = Some("enemies".into());
    let mut t = table(s);
    assert!(t.state().surprise_round);
    assert_eq!(t.state().initiative, 1);
    assert!(!t.state().must_declare(0));
    let p1 = ch(&t, "P1");
    declare(&mut t, &[(2, Action::Regular { talent: None, target: p1, roll: false, defence: None })]);
    act(&mut t, 2);
    act(&mut t, 3);
    // Round 2: the surprised side generated no Crisis and so has the initiative.
    assert_eq!(t.state().round, 2);
    assert_eq!(t.state().initiative, 0);
    assert!(!t.state().surprise_round);
    assert!(t.state().must_declare(0));
}

#[test]
fn regular_attack_automatic_in_the_engine() {
    let mut t = table(arena());
    let e1 = ch(&t, "E1");
    declare(&mut t, &[(0, Action::Regular { talent: None, target: e1, roll: false, defence: None })]);
    let ev = act(&mut t, 0);
    assert_eq!(crisis_in(&ev), 4);
    assert_eq!(t.state().duels[0].flow, 4);
}

#[test]
fn enemy_regular_attacks_subtract_from_the_flow() {
    let mut t = table(arena());
    let p1 = ch(&t, "P1");
    declare(&mut t, &[(2, Action::Regular { talent: None, target: p1, roll: false, defence: None })]);
    act(&mut t, 0);
    act(&mut t, 1);
    act(&mut t, 2);
    assert_eq!(t.state().duels[0].flow, -4);
}

#[test]
fn decisive_attack_crisis_2_and_flow_half_rv_away_from_the_attacker() {
    let mut t = table(arena());
    let e1 = ch(&t, "E1");
    declare(&mut t, &[(0, Action::Decisive { talent: 0, target: e1, defence: None })]);
    let ev = act(&mut t, 0);
    assert_eq!(crisis_in(&ev), 2);
    assert_eq!(t.state().duels[0].flow, -3, "RV 6: the Flow moves 3 against the players");
    let rolls = ev.iter().filter(|e| matches!(e, Event::Rolled { .. })).count();
    assert_eq!(rolls, 2, "an attack roll and a defence roll");
}

#[test]
fn move_costs_2_crisis_per_region_and_4_more_for_leaving_a_duel() {
    let mut t = table(arena());
    let m = go(&t, &["B", "C"]);
    declare(&mut t, &[(0, m)]);
    let ev = act(&mut t, 0);
    assert_eq!(crisis_in(&ev), 2 + 2 + 4);
    assert_eq!(t.state().fighters[0].region, t.state().find_region("C"));
}

#[test]
fn move_stays_within_three_adjacent_unblocked_regions() {
    let mut s = arena();
    s.regions.push(toml::from_str("name = \"D\"").unwrap());
    s.regions.push(toml::from_str("name = \"E\"").unwrap());
    s.adjacent.push(["C".into(), "D".into()]);
    s.adjacent.push(["D".into(), "E".into()]);
    s.movement_blocked.push(["D".into(), "E".into()]);
    let t = table(s);
    let p = seat_of(&t, 0);
    let mut legal = Vec::new();
    t.legal_commands(p, &mut legal);
    let far = go(&t, &["B", "C", "D"]);
    assert!(legal.contains(&Command::Declare { character: 0, action: far }));
    for bad in [go(&t, &["B", "C", "D", "E"]), go(&t, &["C"]), go(&t, &["B", "A"])] {
        assert!(t.state().check_action(0, &bad).is_err(), "{bad:?}");
    }
    let mut s = arena();
    s.movement_blocked.push(["A".into(), "B".into()]);
    let t = table(s);
    let err = t.state().check_action(0, &go(&t, &["B"])).unwrap_err();
    assert!(err.to_string().contains("blocked"), "{err}");
}

#[test]
fn region_effects_change_move_crisis() {
    let mut s = arena();
    s.regions[1].effect.move_crisis = Some(5);
    let mut t = table(s);
    let m = go(&t, &["B"]);
    declare(&mut t, &[(0, m)]);
    assert_eq!(crisis_in(&act(&mut t, 0)), 5 + 4);
}

/// E1 is the quickest (Nimbleness 5): the enemies resolve first in round 1.
fn enemies_first() -> inciting_incident::Setup {
    let mut s = arena();
    place(&mut s, "P1", "C");
    place(&mut s, "E1", "C");
    place(&mut s, "E2", "C");
    s.characters[2].sheet.abilities.nimbleness = 5;
    s
}

#[test]
fn an_impossible_action_switches_to_the_closest_alternative() {
    let mut t = table(enemies_first());
    assert_eq!(t.state().initiative, 1);
    let (e1, e2) = (ch(&t, "E1"), ch(&t, "E2"));
    // P1 means to attack E1, who moves away first: the attack switches to E2, still in C.
    let to_b = go(&t, &["B"]);
    declare(
        &mut t,
        &[(0, Action::Regular { talent: None, target: e1, roll: false, defence: None }), (2, to_b)],
    );
    act(&mut t, 2);
    act(&mut t, 3);
    let ev = act(&mut t, 0);
    assert!(
        ev.iter().any(|e| matches!(e, Event::Started { action: Action::Regular { target, .. }, substituted: true, .. } if *target == e2)),
        "{ev:?}"
    );
    assert_eq!(crisis_in(&ev), 4);
}

#[test]
fn an_action_without_alternative_is_wasted_and_generates_no_crisis() {
    let mut t = table(enemies_first());
    let e1 = ch(&t, "E1");
    let (b1, b2) = (go(&t, &["B"]), go(&t, &["B"]));
    declare(
        &mut t,
        &[(0, Action::Regular { talent: None, target: e1, roll: false, defence: None }), (2, b1), (3, b2)],
    );
    act(&mut t, 2);
    act(&mut t, 3);
    let crisis = t.state().crisis;
    let ev = act(&mut t, 0);
    assert!(ev.iter().any(|e| matches!(e, Event::Wasted { character: 0, .. })), "{ev:?}");
    assert_eq!(crisis_in(&ev), 0);
    assert_eq!(t.state().crisis, crisis);
}

#[test]
fn in_a_duel_only_its_members_can_be_attacked_even_with_a_ranged_skill() {
    let mut s = arena();
    place(&mut s, "E2", "B");
    let t = table(s);
    let e2 = ch(&t, "E2");
    let err =
        t.state().check_action(1, &Action::Decisive { talent: 0, target: e2, defence: None }).unwrap_err();
    assert!(!err.to_string().contains('§'), "{err}");
}

#[test]
fn targets_not_in_a_duel_can_take_only_decisive_attacks() {
    let mut s = arena();
    place(&mut s, "P2", "B");
    place(&mut s, "E2", "C");
    let t = table(s);
    let e2 = ch(&t, "E2");
    assert!(t.state().check_action(1, &Action::Decisive { talent: 0, target: e2, defence: None }).is_ok());
    let err = t
        .state()
        .check_action(1, &Action::Regular { talent: Some(0), target: e2, roll: true, defence: None })
        .unwrap_err();
    assert!(err.to_string().contains("only Decisive"), "{err}");
    let r = t.state().reach(1, Some(0), e2).unwrap();
    assert!(r.ranged && !r.uses_flow, "a ranged Decisive Attack uses the Talent level, not the Flow");
}

#[test]
fn ranged_attacks_reach_adjacent_regions_with_line_of_sight_only() {
    let mut s = arena();
    place(&mut s, "P2", "B");
    s.sight_blocked.push(["B".into(), "A".into()]);
    let t = table(s);
    let e1 = ch(&t, "E1");
    assert!(t.state().check_action(1, &Action::Decisive { talent: 0, target: e1, defence: None }).is_err());
    let mut s = arena();
    place(&mut s, "P2", "C");
    let t = table(s);
    assert!(
        t.state().check_action(1, &Action::Decisive { talent: 0, target: e1, defence: None }).is_err(),
        "A is not adjacent to C"
    );
}

#[test]
fn shooting_into_a_duel_has_1_disadvantage_per_ally_in_it() {
    let mut s = arena();
    place(&mut s, "P2", "B");
    let t = table(s);
    let e1 = ch(&t, "E1");
    let r = t.state().reach(1, Some(0), e1).unwrap();
    assert_eq!(r.advantage, -1, "P1 is in the Duel in A");
    assert!(!r.decisive_only);
}

#[test]
fn basic_ranged_in_a_duel_has_1_disadvantage_per_enemy_versatile_none() {
    let t = table(arena());
    let e1 = ch(&t, "E1");
    let p1 = ch(&t, "P1");
    assert_eq!(t.state().reach(1, Some(0), e1).unwrap().advantage, -2, "P2's bow: two enemies in the Duel");
    assert_eq!(t.state().reach(3, Some(0), p1).unwrap().advantage, 0, "E2's sling is Versatile");
    assert_eq!(t.state().reach(0, Some(0), e1).unwrap().advantage, 0, "melee");
}

#[test]
fn high_ground_gives_advantage_to_ranged_attacks() {
    let mut s = arena();
    place(&mut s, "P2", "B");
    s.regions[1].effect.ranged_advantage = 1;
    let t = table(s);
    let e1 = ch(&t, "E1");
    assert_eq!(t.state().reach(1, Some(0), e1).unwrap().advantage, 0, "+1 High Ground −1 ally");
}

#[test]
fn a_duel_that_breaks_up_saves_its_flow_and_the_same_opponents_restore_it() {
    let mut s = arena();
    place(&mut s, "P2", "C");
    place(&mut s, "E2", "C");
    let mut t = table(s);
    // A: P1 vs E1; C: P2 vs E2. P1 pushes the Flow in A to +4, then P1 leaves for B.
    let e1 = ch(&t, "E1");
    declare(&mut t, &[(0, Action::Regular { talent: None, target: e1, roll: false, defence: None })]);
    for f in [0, 1, 2, 3] {
        act(&mut t, f);
    }
    let a = t.state().duel_in(0).unwrap();
    assert_eq!(t.state().duels[usize::from(a)].flow, 4);
    let to_b = go(&t, &["B"]);
    declare(&mut t, &[(0, to_b)]);
    // Enemies have the initiative now (0 Crisis last round).
    act(&mut t, 2);
    act(&mut t, 3);
    act(&mut t, 0);
    assert!(!t.state().duels[usize::from(a)].active, "saved");
    // E1 follows into B: the same opponents re-engage: Flow +4 restored.
    act(&mut t, 1);
    let to_b = go(&t, &["B"]);
    declare(&mut t, &[(2, to_b)]);
    let first = t.state().initiative;
    let order: [u8; 4] = if first == 1 { [2, 3, 0, 1] } else { [0, 1, 2, 3] };
    let mut all = Vec::new();
    for f in order {
        all.extend(act(&mut t, f));
    }
    assert!(
        all.iter().any(|e| matches!(e, Event::DuelFormed { flow: 4, from: FlowSource::Restored, .. })),
        "{all:?}"
    );
}

#[test]
fn engaging_different_enemies_starts_a_new_duel_at_0() {
    let mut s = arena();
    place(&mut s, "P2", "C");
    place(&mut s, "E2", "B");
    let mut t = table(s);
    let e1 = ch(&t, "E1");
    declare(&mut t, &[(0, Action::Regular { talent: None, target: e1, roll: false, defence: None })]);
    for f in [0, 1, 2, 3] {
        act(&mut t, f);
    }
    // P2 moves from C into B, where E2 stands alone: a new Duel at 0.
    let to_b = go(&t, &["B"]);
    declare(&mut t, &[(1, to_b)]);
    let mut all = Vec::new();
    for f in [2, 3, 0, 1] {
        all.extend(act(&mut t, f));
    }
    assert!(all.iter().any(|e| matches!(e, Event::DuelFormed { flow: 0, from: FlowSource::New, .. })));
}

#[test]
fn part_of_a_duel_re_engaging_elsewhere_copies_its_flow() {
    let mut t = table(arena());
    let e1 = ch(&t, "E1");
    declare(&mut t, &[(0, Action::Regular { talent: None, target: e1, roll: false, defence: None })]);
    for f in [0, 1, 2, 3] {
        act(&mut t, f);
    }
    // P1 and E1 leave the Duel in A (P2 and E2 stay) and meet again in B.
    let (to_b1, to_b2) = (go(&t, &["B"]), go(&t, &["B"]));
    declare(&mut t, &[(0, to_b1), (2, to_b2)]);
    let mut all = Vec::new();
    for f in [2, 3, 0, 1] {
        all.extend(act(&mut t, f));
    }
    assert!(
        all.iter().any(|e| matches!(e, Event::DuelFormed { flow: 4, from: FlowSource::Copied(0), .. })),
        "{all:?}"
    );
    assert!(t.state().duels[0].active);
}

#[test]
fn following_an_enemy_into_another_duel_combines_the_flows_once() {
    let mut s = arena();
    place(&mut s, "P2", "B");
    place(&mut s, "E2", "B");
    let mut t = table(s);
    // A: P1 vs E1 (pushed to +4); B: P2 vs E2 (pushed to −4 → with P1's +4 we get 0... use +4 too).
    let (e1, e2) = (ch(&t, "E1"), ch(&t, "E2"));
    declare(
        &mut t,
        &[
            (0, Action::Regular { talent: None, target: e1, roll: false, defence: None }),
            (1, Action::Regular { talent: None, target: e2, roll: false, defence: None }),
        ],
    );
    for f in [0, 1, 2, 3] {
        act(&mut t, f);
    }
    let (a, b) = (t.state().duel_in(0).unwrap(), t.state().duel_in(1).unwrap());
    assert_eq!((t.state().duels[usize::from(a)].flow, t.state().duels[usize::from(b)].flow), (4, 4));
    // P1 moves into B (Flows unchanged), then E1 follows: the Flows combine, +8.
    let (p1_to_b, e1_to_b) = (go(&t, &["B"]), go(&t, &["B"]));
    declare(&mut t, &[(0, p1_to_b), (2, e1_to_b)]);
    act(&mut t, 2);
    // Enemies first: E1 moved first; A empties of... E1 left A (P1 still there alone).
    act(&mut t, 3);
    act(&mut t, 0);
    act(&mut t, 1);
    let b = t.state().duel_in(1).unwrap();
    // E1 arrived in B before P1: P1's arrival finds its old enemy E1 there: combined.
    assert_eq!(t.state().duels[usize::from(b)].flow, 8);
    assert!(t.log().iter().any(|e| matches!(e, Event::DuelsCombined { .. })));
}

#[test]
fn minions_attack_once_per_trigger_with_advantage_for_outnumbering() {
    let mut s = arena();
    place(&mut s, "P2", "B");
    place(&mut s, "E1", "C");
    place(&mut s, "E2", "C");
    s.minions.push(cultists("A", 4));
    s.triggers.push(TriggerSpec {
        at: 4,
        every: None,
        note: "press".into(),
        effect: TriggerEffect::MinionsAttack { group: "Cultists".into() },
    });
    let mut t = table(s);
    let g = Target::Minions(0);
    declare(&mut t, &[(0, Action::Regular { talent: None, target: g, roll: false, defence: None })]);
    let ev = act(&mut t, 0);
    let roll = ev.iter().find_map(|e| match e {
        Event::Rolled { who: inciting_incident::rules::Who::Minions(0), roll, .. } => Some(roll.clone()),
        _ => None,
    });
    let roll = roll.expect("the cultists attack when Crisis reaches 4");
    assert_eq!(roll.advantage, 3, "4 minions against 1");
    assert!(ev.iter().any(|e| matches!(e, Event::TriggerFired { trigger: 0, at: 4 })));
}

#[test]
fn minions_of_different_kinds_in_a_duel_make_one_attack_with_their_strongest_and_full_count() {
    // §7.4: "Minions may only make one Regular Attack between them … If there are different
    // types of Minion then they may always use the strongest attack they have available";
    // the rules reference: k = minions in the Duel − opponents in the Duel.
    let mut s = arena();
    place(&mut s, "P2", "B");
    place(&mut s, "E1", "C");
    place(&mut s, "E2", "C");
    s.minions.push(cultists("A", 2));
    let mut hounds = cultists("A", 2);
    hounds.stats.name = "Hounds".into();
    hounds.stats.attack.level = 5; // 2d6, stronger than the cultists' 1d8
    s.minions.push(hounds);
    s.triggers.push(TriggerSpec {
        at: 4,
        every: None,
        note: "press".into(),
        effect: TriggerEffect::MinionsAttack { group: "Cultists".into() },
    });
    let mut t = table(s);
    let p2 = Target::Minions(0);
    declare(&mut t, &[(0, Action::Regular { talent: None, target: p2, roll: false, defence: None })]);
    let ev = act(&mut t, 0);
    let rolls: Vec<_> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Rolled { who: inciting_incident::rules::Who::Minions(_), roll, .. } => Some(roll.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(rolls.len(), 1, "one Regular Attack between them");
    let roll = &rolls[0];
    assert_eq!(roll.advantage, 4 - 1, "2 cultists + 2 hounds against P1 alone");
    // The hounds' 2d6, P1's RD 3 in d6, and 3 extra d6 of Advantage.
    assert_eq!(roll.dice.len(), 2 + 3 + 3, "{roll:?}");
    assert!(roll.dice.iter().all(|d| d.sides == 6), "{roll:?}");
}

#[test]
fn decisive_attacks_on_minions_ignore_rv_and_carry_kills_over() {
    let mut s = arena();
    place(&mut s, "E1", "C");
    place(&mut s, "E2", "C");
    place(&mut s, "P2", "C");
    s.minions.push(cultists("A", 6));
    let mut t = table(s);
    let mut killed_more_than_one = false;
    for seed in 0..40 {
        let mut s2 = t.state().clone();
        std::sync::Arc::make_mut(&mut s2.setup).seed = seed;
        let mut t2 = Table::<IncitingIncident>::new(s2);
        declare(&mut t2, &[(0, Action::Decisive { talent: 0, target: Target::Minions(0), defence: None })]);
        let ev = act(&mut t2, 0);
        for e in &ev {
            if let Event::MinionsKilled { killed, .. } = e {
                killed_more_than_one |= *killed > 1;
            }
        }
        // Never a Wounded event for a block.
        assert!(!ev.iter().any(|e| matches!(e, Event::Wounded { .. })));
    }
    assert!(killed_more_than_one, "excess wounds carry over to further minions");
    let _ = &mut t;
}

#[test]
fn minions_of_different_kinds_defend_as_one_block_with_its_best_defence_and_kills_carry_over() {
    // §7.4: "When defending, Minions are always targetted as a whole block, and they always
    // use the best defence they have available … excess wounds are carried over to other
    // Minions". A block of 2 cultists (RD 4) and 3 hounds (RD 2: the better defence).
    use inciting_incident::attack::{ExtraHits, decisive_hits};
    use inciting_incident::rules::Purpose;
    let mut s = arena();
    place(&mut s, "E1", "C");
    place(&mut s, "E2", "C");
    place(&mut s, "P2", "C");
    s.minions.push(cultists("A", 2));
    let mut hounds = cultists("A", 3);
    hounds.stats.name = "Hounds".into();
    hounds.stats.rd = 2;
    s.minions.push(hounds);
    let mut spilled = false;
    for seed in 0..40 {
        let mut s2 = s.clone();
        s2.seed = seed;
        let mut t = table(s2);
        declare(&mut t, &[(0, Action::Decisive { talent: 0, target: Target::Minions(0), defence: None })]);
        let ev = act(&mut t, 0);
        let attack = ev
            .iter()
            .find_map(|e| match e {
                Event::Rolled { purpose: Purpose::Decisive, roll, .. } => Some(roll.clone()),
                _ => None,
            })
            .unwrap();
        // P1's Sword (level 5: 2d6) and the block's best RD, 2 d6.
        assert_eq!(attack.dice.len(), 2 + 2, "seed {seed}: {attack:?}");
        let a = attack.total;
        let d = totals(&ev, Purpose::Defence)[0];
        let expected = decisive_hits(a, d, 0, 4, ExtraHits::AtLeast).min(5);
        let killed: u32 =
            ev.iter().map(|e| if let Event::MinionsKilled { killed, .. } = e { *killed } else { 0 }).sum();
        assert_eq!(killed, expected, "seed {seed}: attack {a} vs defence {d}");
        let left: u32 = t.state().minions.iter().map(|m| m.count).sum();
        assert_eq!(left, 5 - killed);
        spilled |= killed > 2;
    }
    assert!(spilled, "kills beyond the cultists carry over to the hounds");
}

#[test]
fn crisis_triggers_fire_in_threshold_order_and_are_logged() {
    let mut s = arena();
    s.triggers.push(TriggerSpec { at: 3, every: None, note: "second".into(), effect: TriggerEffect::Note });
    s.triggers.push(TriggerSpec { at: 2, every: None, note: "first".into(), effect: TriggerEffect::Note });
    s.triggers.push(TriggerSpec { at: 9, every: None, note: "later".into(), effect: TriggerEffect::Note });
    let mut t = table(s);
    let e1 = ch(&t, "E1");
    declare(&mut t, &[(0, Action::Regular { talent: None, target: e1, roll: false, defence: None })]);
    let ev = act(&mut t, 0);
    let fired: Vec<u16> = ev
        .iter()
        .filter_map(|e| if let Event::TriggerFired { trigger, .. } = e { Some(*trigger) } else { None })
        .collect();
    assert_eq!(fired, vec![1, 0]);
    assert_eq!(t.state().fired, vec![1, 1, 0]);
}

#[test]
fn repeating_triggers_fire_again_every_n_crisis() {
    let mut s = arena();
    s.triggers.push(TriggerSpec { at: 4, every: Some(4), note: "tick".into(), effect: TriggerEffect::Note });
    let mut t = table(s);
    let e1 = ch(&t, "E1");
    let p1 = ch(&t, "P1");
    declare(
        &mut t,
        &[
            (0, Action::Regular { talent: None, target: e1, roll: false, defence: None }),
            (2, Action::Regular { talent: None, target: p1, roll: false, defence: None }),
        ],
    );
    for f in [0, 1, 2, 3] {
        act(&mut t, f);
    }
    assert_eq!(t.state().crisis, 8);
    assert_eq!(t.state().fired, vec![2]);
}

/// Decision 10: each trigger fires at most once per action, an action's chain of extra actions
/// included, so chains always end. A repeating trigger far behind the pool (every 4 from 1,
/// with Crisis at 100) gave an extra action whose own 4 Crisis fired it again, without end.
#[test]
fn a_chain_of_extra_actions_from_a_repeating_trigger_that_fell_behind_ends() {
    let mut s = arena();
    s.crisis_start = 100;
    s.triggers.push(TriggerSpec {
        at: 1,
        every: Some(4),
        note: "the warlord presses on".into(),
        effect: TriggerEffect::ExtraAction { character: "E1".into() },
    });
    let mut t = table(s);
    let (e1, p1) = (ch(&t, "E1"), ch(&t, "P1"));
    let Target::Character(e) = e1 else { unreachable!() };
    let auto = Action::Regular { talent: None, target: e1, roll: false, defence: None };
    declare(&mut t, &[(0, auto), (1, auto)]);
    act(&mut t, 0);
    let seat = seat_of(&t, e);
    let mut extra = 0;
    while t.state().pending.contains(&Pending::ExtraAction(e)) {
        extra += 1;
        assert!(extra <= 3, "the chain of extra actions does not end (Crisis {})", t.state().crisis);
        let action = Action::Regular { talent: None, target: p1, roll: false, defence: None };
        t.submit(seat, &Command::ExtraAction { character: e, action }).unwrap();
    }
    assert_eq!(extra, 1, "the trigger fires once in the chain: one extra action");
    // The next action starts a new chain: the trigger, still behind, fires again once.
    act(&mut t, 1);
    assert!(t.state().pending.contains(&Pending::ExtraAction(e)), "{}", t.state().waiting_for());
}

#[test]
fn trigger_effects_reinforce_change_regions_and_end_the_scene() {
    let mut s = arena();
    s.minions.push(cultists("C", 1));
    s.triggers.push(TriggerSpec {
        at: 1,
        every: None,
        note: "".into(),
        effect: TriggerEffect::Reinforce { group: "Cultists".into(), count: 2 },
    });
    s.triggers.push(TriggerSpec {
        at: 2,
        every: None,
        note: "".into(),
        effect: TriggerEffect::ChangeRegion {
            region: "B".into(),
            effect: toml::from_str("name = \"Fire\"\nattack_advantage = -1").unwrap(),
        },
    });
    s.triggers.push(TriggerSpec {
        at: 4,
        every: None,
        note: "the bridge falls".into(),
        effect: TriggerEffect::EndScene { winner: Some("enemies".into()) },
    });
    let mut t = table(s);
    let e1 = ch(&t, "E1");
    declare(&mut t, &[(0, Action::Regular { talent: None, target: e1, roll: false, defence: None })]);
    act(&mut t, 0);
    assert_eq!(t.state().minions[0].count, 3);
    assert_eq!(t.state().effects[1].name, "Fire");
    assert!(t.is_over());
    assert_eq!(t.state().outcome.as_ref().unwrap().winner, Some(1));
}

#[test]
fn hazards_wound_everyone_in_the_region_and_max_hits_incapacitate() {
    let mut s = arena();
    s.triggers.push(TriggerSpec {
        at: 1,
        every: None,
        note: "fire".into(),
        effect: TriggerEffect::Hazard { region: "A".into(), hits: 2 },
    });
    let mut t = table(s);
    let e1 = ch(&t, "E1");
    declare(&mut t, &[(0, Action::Regular { talent: None, target: e1, roll: false, defence: None })]);
    act(&mut t, 0);
    let st = t.state();
    assert!(st.fighters.iter().all(|f| f.hits == 2 && f.status == Status::Incapacitated));
    assert_eq!(st.pending.len(), 4);
    assert!(matches!(st.pending[0], Pending::KeepFighting(_)));
}

#[test]
fn keep_fighting_removes_a_hit_and_a_failure_dooms_declining_keeps_the_character_down() {
    let mut s = arena();
    s.triggers.push(TriggerSpec {
        at: 1,
        every: None,
        note: "".into(),
        effect: TriggerEffect::Hazard { region: "A".into(), hits: 2 },
    });
    s.options.ability_dice = 0; // Fortitude 5 (2d6) alone never reaches 20: the roll fails.
    let mut t = table(s);
    let e1 = ch(&t, "E1");
    declare(&mut t, &[(0, Action::Regular { talent: None, target: e1, roll: false, defence: None })]);
    act(&mut t, 0);
    let p = seat_of(&t, 0);
    t.submit(p, &Command::KeepFighting { character: 0, roll: true }).unwrap();
    let f = &t.state().fighters[0];
    assert_eq!((f.hits, f.status, f.doomed), (1, Status::Fighting, true));
    t.submit(p, &Command::KeepFighting { character: 1, roll: false }).unwrap();
    let f = &t.state().fighters[1];
    assert_eq!((f.hits, f.status, f.doomed), (2, Status::Incapacitated, false));
}

#[test]
fn incapacitated_characters_are_skipped_and_a_side_without_fighters_loses() {
    let mut s = arena();
    place(&mut s, "P1", "B");
    place(&mut s, "P2", "B");
    s.triggers.push(TriggerSpec {
        at: 1,
        every: None,
        note: "".into(),
        effect: TriggerEffect::Hazard { region: "A".into(), hits: 2 },
    });
    let mut t = table(s);
    let to_c = go(&t, &["C"]);
    declare(&mut t, &[(0, to_c)]);
    act(&mut t, 0);
    let gm = seat_of(&t, 2);
    t.submit(gm, &Command::KeepFighting { character: 2, roll: false }).unwrap();
    t.submit(gm, &Command::KeepFighting { character: 3, roll: false }).unwrap();
    assert!(t.is_over());
    assert_eq!(t.state().outcome.as_ref().unwrap().winner, Some(0));
}

#[test]
fn healing_revives_an_incapacitated_ally_and_clears_death_hits() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/inciting-incident/river-fight.toml"
    ))
    .unwrap();
    let mut s: inciting_incident::Setup = toml::from_str(&text).unwrap();
    s.triggers.clear();
    s.triggers.push(TriggerSpec {
        at: 1,
        every: None,
        note: "".into(),
        effect: TriggerEffect::Hazard { region: "Shallows".into(), hits: 2 },
    });
    // Mira (the healer) joins Bren in the Shallows.
    s.characters[1].region = Some("Shallows".into());
    let mut t = table(s);
    let bren = t.state().find_fighter("Bren").unwrap();
    let mira = t.state().find_fighter("Mira").unwrap();
    let hold_all: Vec<(u8, Action)> = vec![(
        bren,
        Action::Regular { talent: None, target: ch(&t, "Y'ras'byn"), roll: false, defence: None },
    )];
    declare(&mut t, &hold_all);
    act(&mut t, bren);
    // Everyone in the Shallows took 2 hits: Bren, Mira and Y'ras'byn.
    for f in [bren, mira, t.state().find_fighter("Y'ras'byn").unwrap()] {
        let seat = seat_of(&t, f);
        let roll = f == mira;
        t.submit(seat, &Command::KeepFighting { character: f, roll }).unwrap();
    }
    assert_eq!(t.state().fighters[usize::from(mira)].status, Status::Fighting);
    assert_eq!(t.state().fighters[usize::from(bren)].status, Status::Incapacitated);
    // Mira binds Bren's wounds (an Advanced Action) next round.
    let heal = Action::Advanced { talent: 1, action: 0, target: Some(bren) };
    assert!(t.state().check_action(mira, &heal).is_ok());
    finish_round(&mut t);
    declare(&mut t, &[(mira, heal)]);
    let ev = finish_round(&mut t);
    assert!(ev.iter().any(|e| matches!(e, Event::Healed { revived: true, .. })), "{ev:?}");
    let b = &t.state().fighters[usize::from(bren)];
    assert_eq!((b.status, b.hits, b.death_hits), (Status::Fighting, 1, 0));
}

#[test]
fn strikes_lost_are_clamped_to_the_strikes_left() {
    // §10: a side cannot lose more Strikes than it has; the event says how many hits there were.
    let mut s = common::example("cover-up.toml");
    s.characters[1].sheet.defences.resolve.rv = 1;
    s.characters[1].sheet.defences.resolve.rd = 9;
    s.strikes = Some([3, 2]);
    s.rising_tension.pool = 1; // unequal Strikes cost the GM Rising Tension (§10)
    let mut t = table(s);
    let sam = t.state().find_fighter("Sam Vale").unwrap();
    let janitor = ch(&t, "The janitor");
    declare(&mut t, &[(sam, Action::Decisive { talent: 0, target: janitor, defence: None })]);
    let ev = finish_round(&mut t);
    let lost = ev
        .iter()
        .find_map(|e| match e {
            Event::StrikesLost { side: 1, strikes, left, hits } => Some((*strikes, *left, *hits)),
            _ => None,
        })
        .expect("Strikes lost");
    assert_eq!((lost.0, lost.1), (2, 0), "only the 2 Strikes left can be lost");
    assert!(lost.2.is_some_and(|h| h > 2), "the hits dealt are kept: {lost:?}");
}

#[test]
fn non_violent_hits_remove_strikes_and_a_side_without_strikes_loses() {
    let mut s = common::example("cover-up.toml");
    // A janitor who cannot resist: Resolve RV 1, RD 9 — Sam's Decisive Attack always hits hard.
    s.characters[1].sheet.defences.resolve.rv = 1;
    s.characters[1].sheet.defences.resolve.rd = 9;
    let mut t = table(s);
    let sam = t.state().find_fighter("Sam Vale").unwrap();
    let janitor = ch(&t, "The janitor");
    declare(&mut t, &[(sam, Action::Decisive { talent: 0, target: janitor, defence: None })]);
    let ev = finish_round(&mut t);
    assert!(ev.iter().any(|e| matches!(e, Event::StrikesLost { side: 1, .. })), "{ev:?}");
    assert!(
        !ev.iter().any(|e| matches!(e, Event::Wounded { .. })),
        "no personal hits in a non-violent conflict"
    );
    assert_eq!(t.state().strikes.unwrap()[1], 0);
    assert!(t.is_over());
    assert_eq!(t.state().outcome.as_ref().unwrap().winner, Some(0));
}

#[test]
fn absent_opponents_act_only_on_crisis_triggers() {
    let s = common::example("cover-up.toml");
    let mut t = table(s);
    let fixer = t.state().find_fighter("The fixer").unwrap();
    assert!(!t.state().must_declare(usize::from(fixer)));
    let sam = t.state().find_fighter("Sam Vale").unwrap();
    let janitor = ch(&t, "The janitor");
    // Automatic Regular Attacks: Crisis 4 each; the trigger at 10 gives the fixer an action.
    for _ in 0..3 {
        declare(
            &mut t,
            &[(sam, Action::Regular { talent: None, target: janitor, roll: false, defence: None })],
        );
        while matches!(t.state().phase, Phase::Resolve { .. }) && t.state().pending.is_empty() {
            let seat = t.awaiting()[0];
            let mut legal = Vec::new();
            t.legal_commands(seat, &mut legal);
            t.submit(seat, &legal[0]).unwrap();
        }
        if !t.state().pending.is_empty() {
            break;
        }
    }
    assert_eq!(t.state().pending.first(), Some(&Pending::ExtraAction(fixer)));
    let gm = seat_of(&t, fixer);
    let mut legal = Vec::new();
    t.legal_commands(gm, &mut legal);
    let sam_t = Target::Character(sam);
    assert!(legal.contains(&Command::ExtraAction {
        character: fixer,
        action: Action::Decisive { talent: 0, target: sam_t, defence: None }
    }));
    t.submit(
        gm,
        &Command::ExtraAction {
            character: fixer,
            action: Action::Decisive { talent: 0, target: sam_t, defence: None },
        },
    )
    .unwrap();
    assert!(t.state().pending.is_empty());
}

#[test]
fn setup_errors_name_the_field() {
    let mut s = arena();
    s.regions.truncate(2);
    assert!(matches!(Scene::new(s), Err(SetupError::RegionCount { count: 2, .. })));
    let mut s = arena();
    place(&mut s, "P1", "Nowhere");
    let e = Scene::new(s).unwrap_err();
    assert!(e.to_string().contains("characters[0].region") && e.to_string().contains("Nowhere"), "{e}");
    let mut s = arena();
    s.characters[0].sheet.talents[0].level = 6;
    let e = Scene::new(s).unwrap_err();
    assert!(!e.to_string().contains('§'), "{e}");
    let mut s = arena();
    s.characters[0].sheet.defences.resolve.rv = 0;
    assert!(Scene::new(s).unwrap_err().to_string().contains("Resistance Value 0"));
    let mut s = arena();
    s.triggers.push(TriggerSpec {
        at: 1,
        every: None,
        note: "".into(),
        effect: TriggerEffect::MinionsAttack { group: "Ghosts".into() },
    });
    assert!(Scene::new(s).unwrap_err().to_string().contains("Ghosts"));
    let mut s = arena();
    s.strikes = Some([3, 3]);
    assert!(Scene::new(s).unwrap_err().to_string().contains("non-violent"));
}

#[test]
fn sheet_rules_talents_per_ability_and_level_limits() {
    let mut s = arena();
    let mut t2 = s.characters[0].sheet.talents[0].clone();
    t2.name = "Second".into();
    s.characters[0].sheet.abilities.fortitude = 1;
    s.characters[0].sheet.talents[0].level = 1;
    t2.level = 1;
    s.characters[0].sheet.talents.push(t2);
    let e = Scene::new(s).unwrap_err();
    assert!(e.to_string().contains("at most as many Talents as its level"), "{e}");
    let _: MinionStats = toml::from_str("name = \"x\"\nattack = { level = 1 }\nrd = 2").unwrap();
}

#[test]
fn max_rounds_ends_the_scene() {
    let mut s = arena();
    s.options.max_rounds = Some(1);
    let mut t = table(s);
    declare(&mut t, &[]);
    for f in [0, 1, 2, 3] {
        act(&mut t, f);
    }
    assert!(t.is_over());
    assert_eq!(t.state().outcome.as_ref().unwrap().round_limit, Some(1));
}

#[test]
fn round_limit_play_default_is_100_a_given_limit_overrides_the_file() {
    use inciting_incident::scene::DEFAULT_ROUND_LIMIT;
    let mut s = arena();
    assert_eq!(s.apply_round_limit(None), DEFAULT_ROUND_LIMIT);
    assert_eq!(DEFAULT_ROUND_LIMIT, 100);
    assert_eq!(s.options.max_rounds, Some(100));
    let mut s = arena();
    s.options.max_rounds = Some(7);
    assert_eq!(s.apply_round_limit(None), 7, "the scene file's own limit stands");
    assert_eq!(s.apply_round_limit(Some(3)), 3, "a limit given by the user wins");
    // A game of holds never ends by itself; the limit stops it and says so.
    let mut s = arena();
    s.apply_round_limit(Some(2));
    let mut t = table(s);
    for _ in 0..2 {
        declare(&mut t, &[]);
        finish_round(&mut t);
    }
    assert!(t.is_over(), "{}", t.state().waiting_for());
    let o = t.state().outcome.clone().unwrap();
    assert_eq!((o.round_limit, o.winner), (Some(2), None));
    assert!(o.why.contains("round limit"), "{}", o.why);
}

#[test]
fn accepted_declarations_are_stored_in_their_listed_form_so_saves_check() {
    let mut t = table(arena());
    let (e1, p1) = (ch(&t, "E1"), ch(&t, "P1"));
    declare(
        &mut t,
        &[
            // An automatic attack naming a Talent it does not need, and a pick of the usual
            // defence: both stored as the legal lists hold them.
            (0, Action::Regular { talent: Some(0), target: e1, roll: false, defence: None }),
            (
                2,
                Action::Decisive {
                    talent: 0,
                    target: p1,
                    defence: Some(inciting_incident::DefenceKind::Resilience),
                },
            ),
            (
                3,
                Action::Decisive {
                    talent: 0,
                    target: p1,
                    defence: Some(inciting_incident::DefenceKind::Resolve),
                },
            ),
        ],
    );
    assert!(t.log().iter().any(|e| matches!(
        e,
        Event::Declared { character: 0, action: Some(Action::Regular { talent: None, .. }) }
    )));
    assert!(t.log().iter().any(|e| matches!(
        e,
        Event::Declared { character: 2, action: Some(Action::Decisive { defence: None, .. }) }
    )));
    assert!(t.log().iter().any(|e| matches!(
        e,
        Event::Declared { character: 3, action: Some(Action::Decisive { defence: Some(_), .. }) }
    )));
    finish_round(&mut t);
    assert!(Table::<IncitingIncident>::load_checked(t.save()).is_ok());
}

#[test]
fn a_simple_obstacle_failed_stops_the_move_outside_the_region() {
    let mut s = arena();
    // Nimbleness 4 rolls 1d10; with no difficulty dice it can never reach 20.
    s.regions[1].effect.obstacle = Some(0);
    let mut t = table(s);
    let m = go(&t, &["B"]);
    declare(&mut t, &[(0, m)]);
    let ev = act(&mut t, 0);
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::Rolled { purpose: inciting_incident::rules::Purpose::Obstacle, .. }))
    );
    assert!(!ev.iter().any(|e| matches!(e, Event::Moved { .. })));
    assert_eq!(t.state().fighters[0].region, Some(0));
    assert_eq!(crisis_in(&ev), 0, "nobody left the Duel");
}

#[test]
fn players_see_only_the_triggers_that_have_fired_the_gm_sees_all() {
    let mut s = arena();
    s.triggers.push(TriggerSpec { at: 4, every: None, note: "soon".into(), effect: TriggerEffect::Note });
    s.triggers.push(TriggerSpec { at: 50, every: None, note: "secret".into(), effect: TriggerEffect::Note });
    let mut t = table(s);
    let (p, gm) = (seat_of(&t, 0), seat_of(&t, 2));
    assert_eq!(t.view(Viewer::Seat(p)).triggers.len(), 0);
    assert_eq!(t.view(Viewer::Seat(gm)).triggers.len(), 2);
    let e1 = ch(&t, "E1");
    declare(&mut t, &[(0, Action::Regular { talent: None, target: e1, roll: false, defence: None })]);
    act(&mut t, 0);
    let seen = t.view(Viewer::Seat(p)).triggers;
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].note, "soon");
}

#[test]
fn the_view_and_log_of_the_gm_never_show_a_players_declaration_before_the_reveal() {
    let mut t = table(arena());
    let p = seat_of(&t, 0);
    let gm = seat_of(&t, 2);
    let m = go(&t, &["B"]);
    t.submit(p, &Command::Declare { character: 0, action: m }).unwrap();
    let log = t.log_for(Viewer::Seat(gm));
    assert!(log.iter().any(|e| matches!(e, Event::Declared { character: 0, action: None })));
    let json = serde_json::to_string(&t.view(Viewer::Seat(gm))).unwrap();
    assert!(!json.contains("\"move\""), "{json}");
}

#[test]
fn a_ranged_regular_attack_into_a_duel_moves_that_duels_flow_toward_the_shooter() {
    let mut s = arena();
    place(&mut s, "P2", "B");
    let mut t = table(s);
    let e1 = ch(&t, "E1");
    declare(&mut t, &[(1, Action::Regular { talent: Some(0), target: e1, roll: false, defence: None })]);
    act(&mut t, 1);
    assert_eq!(t.state().duels[0].flow, 4);
}

#[test]
fn the_gm_may_make_the_other_side_positive() {
    let mut s = arena();
    s.positive_side = Some("enemies".into());
    let mut t = table(s);
    let e1 = ch(&t, "E1");
    declare(&mut t, &[(0, Action::Regular { talent: None, target: e1, roll: false, defence: None })]);
    act(&mut t, 0);
    assert_eq!(t.state().duels[0].flow, -4, "a player's Regular Attack now subtracts");
}

#[test]
fn an_out_of_order_advanced_action_is_used_once_a_round_during_the_resolution() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/inciting-incident/river-fight.toml"
    ))
    .unwrap();
    let mut s: inciting_incident::Setup = toml::from_str(&text).unwrap();
    s.triggers.clear();
    s.triggers.push(TriggerSpec {
        at: 1,
        every: None,
        note: "".into(),
        effect: TriggerEffect::Hazard { region: "Shallows".into(), hits: 1 },
    });
    let mut t = table(s);
    let bren = t.state().find_fighter("Bren").unwrap();
    let mira = t.state().find_fighter("Mira").unwrap();
    let yras = ch(&t, "Y'ras'byn");
    let mira_seat = seat_of(&t, mira);
    let heal = Action::Advanced { talent: 1, action: 0, target: Some(mira) };
    // Not while declaring.
    assert!(t.submit(mira_seat, &Command::OutOfOrder { character: mira, action: heal }).is_err());
    // Bren's automatic attack sets off the hazard (1 hit to everyone in the Shallows)...
    declare(&mut t, &[(bren, Action::Regular { talent: None, target: yras, roll: false, defence: None })]);
    act(&mut t, bren);
    // ... but Mira, on the Rocks, is unhurt and alone: nobody in her Region to heal.
    let mut legal = Vec::new();
    t.legal_commands(mira_seat, &mut legal);
    assert!(legal.iter().all(|c| !matches!(c, Command::OutOfOrder { .. })), "nobody wounded in her Region");
    // A non-out-of-order Advanced Action is refused outside round order.
    let mut s2 = t.state().clone();
    let sheet = std::sync::Arc::make_mut(&mut s2.fighters[usize::from(mira)].sheet);
    sheet.talents[1].advanced[0].out_of_order = false;
    s2.fighters[usize::from(mira)].hits = 1;
    let mut t2 = Table::<IncitingIncident>::new(s2);
    let e = t2.submit(mira_seat, &Command::OutOfOrder { character: mira, action: heal }).unwrap_err();
    assert!(e.to_string().contains("outside round order"), "{e}");
    // With the Skill, and a wound to heal: once this round, not twice.
    let mut s3 = t.state().clone();
    s3.fighters[usize::from(mira)].hits = 1;
    let mut t3 = Table::<IncitingIncident>::new(s3);
    t3.legal_commands(mira_seat, &mut legal);
    assert!(legal.contains(&Command::OutOfOrder { character: mira, action: heal }));
    t3.submit(mira_seat, &Command::OutOfOrder { character: mira, action: heal }).unwrap();
    assert_eq!(t3.state().fighters[usize::from(mira)].hits, 0);
    assert!(t3.state().fighters[usize::from(mira)].out_of_order_used);
    t3.legal_commands(mira_seat, &mut legal);
    assert!(legal.iter().all(|c| !matches!(c, Command::OutOfOrder { .. })));
}

#[test]
fn absurd_numbers_are_refused_or_bounded() {
    let mut s = arena();
    s.minions.push(cultists("C", 5000));
    assert!(Scene::new(s).unwrap_err().to_string().contains("at most 1000"));
    let mut s = arena();
    s.characters[0].sheet.defences.resilience.rd = 200;
    assert!(Scene::new(s).unwrap_err().to_string().contains("more than 20 dice"));
    let mut s = arena();
    s.regions[0].effect.protection = vec![7];
    assert!(Scene::new(s).unwrap_err().to_string().contains("d7"));
    // A roll takes at most 20 points of Advantage.
    let mut rng = table::Draws::seeded(1).stream();
    let r = inciting_incident::dice::roll(
        &mut rng,
        &inciting_incident::dice::Pool::level(3),
        1_000_000,
        inciting_incident::dice::AdvantageRule::ExtraDie,
    );
    assert_eq!(r.dice.len(), 21);
    assert_eq!(r.advantage, 20);
}

fn totals(events: &[Event], purpose: inciting_incident::rules::Purpose) -> Vec<i32> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Rolled { purpose: p, roll, .. } if *p == purpose => Some(roll.total),
            _ => None,
        })
        .collect()
}

#[test]
fn the_engine_applies_the_decisive_formula_to_the_logged_dice() {
    use inciting_incident::attack::{ExtraHits, decisive_hits};
    use inciting_incident::rules::Purpose;
    let mut hit_seen = false;
    for seed in 0..60 {
        let mut s = arena();
        s.seed = seed;
        let mut t = table(s);
        let e1 = ch(&t, "E1");
        declare(&mut t, &[(0, Action::Decisive { talent: 0, target: e1, defence: None })]);
        let ev = act(&mut t, 0);
        let (a, d) = (totals(&ev, Purpose::Decisive)[0], totals(&ev, Purpose::Defence)[0]);
        // Flow 0 before the attack; E1's Resilience RV 6.
        let expected = decisive_hits(a, d, 6, 6, ExtraHits::AtLeast).min(2) as u8;
        let dealt: u8 = ev.iter().map(|e| if let Event::Wounded { hits, .. } = e { *hits } else { 0 }).sum();
        assert_eq!(dealt, expected, "seed {seed}: attack {a} vs {d} + 6");
        hit_seen |= dealt > 0;
        assert_eq!(t.state().duels[0].flow, -3);
    }
    assert!(hit_seen);
}

#[test]
fn the_engine_applies_the_regular_formula_to_the_logged_dice() {
    use inciting_incident::attack::regular_roll;
    use inciting_incident::rules::Purpose;
    let (mut successes, mut failures) = (0, 0);
    for seed in 0..60 {
        let mut s = arena();
        s.seed = seed;
        let mut t = table(s);
        let e1 = ch(&t, "E1");
        declare(&mut t, &[(0, Action::Regular { talent: Some(0), target: e1, roll: true, defence: None })]);
        let ev = act(&mut t, 0);
        let total = totals(&ev, Purpose::Regular)[0];
        let o = regular_roll(total);
        assert_eq!(t.state().duels[0].flow, o.flow, "seed {seed}");
        assert_eq!(crisis_in(&ev), o.crisis, "seed {seed}");
        if o.flow > 0 { successes += 1 } else { failures += 1 }
    }
    assert!(successes > 0 && failures > 0, "{successes} / {failures}");
}

#[test]
fn ranged_minions_outside_a_duel_attack_the_duel_in_range_counting_its_opponents() {
    for ranged in [true, false] {
        let mut s = arena();
        let mut group = cultists("B", 5);
        group.stats.attack.ranged = ranged;
        s.minions.push(group);
        s.triggers.push(TriggerSpec {
            at: 4,
            every: None,
            note: "".into(),
            effect: TriggerEffect::MinionsAttack { group: "Cultists".into() },
        });
        let mut t = table(s);
        let e1 = ch(&t, "E1");
        declare(&mut t, &[(0, Action::Regular { talent: None, target: e1, roll: false, defence: None })]);
        let ev = act(&mut t, 0);
        let roll = ev.iter().find_map(|e| match e {
            Event::Rolled { who: inciting_incident::rules::Who::Minions(0), roll, .. } => Some(roll.clone()),
            _ => None,
        });
        if ranged {
            // §7.3: a ranged attacker shooting into a Duel takes 1 Disadvantage per ally it
            // has there — minions too: E1 and E2 fight in A.
            assert_eq!(
                roll.expect("the ranged cultists shoot into A").advantage,
                3 - 2,
                "5 minions against the 2 players in A, less 1 per ally (E1, E2) in that Duel"
            );
        } else {
            assert!(roll.is_none());
            assert!(ev.iter().any(|e| matches!(e, Event::MinionsIdle { group: 0 })));
        }
    }
}

#[test]
fn the_gm_ends_the_scene_at_once_a_player_cannot() {
    let mut t = table(arena());
    let p = seat_of(&t, 0);
    let gm = seat_of(&t, 2);
    // Mid-round: P1 has declared face down.
    t.submit(p, &Command::Declare { character: 0, action: Action::Hold }).unwrap();
    let before = t.state().clone();
    let log = t.log().len();
    // A player's seat is refused, with the rule named, and nothing changes.
    let mut legal = Vec::new();
    t.legal_commands(p, &mut legal);
    assert!(legal.iter().all(|c| !c.is_gm_ruling()));
    let e = t.submit(p, &Command::EndScene { winner: Some(0) }).unwrap_err();
    assert_eq!(e, RuleError::GmOnly { seat: "p".into(), ruling: GmRuling::EndScene });
    assert!(e.to_string().contains("only the GM may end the scene"), "{e}");
    assert!(!e.to_string().contains('§'), "players' words: {e}");
    assert_eq!(t.state(), &before);
    assert_eq!(t.log().len(), log);
    // A side that does not exist is refused too.
    assert_eq!(t.submit(gm, &Command::EndScene { winner: Some(2) }).unwrap_err(), RuleError::UnknownSide(2));
    assert_eq!(t.state(), &before);
    // The GM's list offers the three endings; the scene never waits for them.
    t.legal_commands(gm, &mut legal);
    let endings: Vec<_> = legal.iter().filter(|c| c.is_gm_ruling()).copied().collect();
    assert_eq!(endings, [None, Some(0), Some(1)].map(|winner| Command::EndScene { winner }).to_vec());
    // The GM ends it: one logged event, the outcome marked as the GM's call.
    let events = t.submit(gm, &Command::EndScene { winner: Some(1) }).unwrap().to_vec();
    assert_eq!(events.len(), 1);
    let Event::SceneOver { outcome } = &events[0] else { panic!("{events:?}") };
    assert_eq!(outcome.winner, Some(1));
    assert!(outcome.by_gm);
    assert!(outcome.why.contains("the GM ends the scene in favour of enemies"), "{}", outcome.why);
    assert!(t.is_over());
    assert!(t.awaiting().is_empty());
    assert_eq!(t.submit(gm, &Command::EndScene { winner: None }).unwrap_err(), RuleError::Over);
    // The log replays exactly, and a checked load accepts it.
    let replayed = Table::<IncitingIncident>::replay(t.initial().clone(), t.log().to_vec());
    assert_eq!(replayed.state(), t.state());
    let checked = Table::<IncitingIncident>::load_checked(t.save()).unwrap();
    assert_eq!(checked.state(), t.state());
}

#[test]
fn the_gm_may_end_the_scene_while_a_decision_is_pending() {
    // An Incapacitated character's keep-fighting choice does not stop the GM's call.
    let mut s = arena();
    s.triggers.push(TriggerSpec {
        at: 1,
        every: None,
        note: "the bridge collapses".into(),
        effect: TriggerEffect::Hazard { region: "A".into(), hits: 2 },
    });
    let mut t = table(s);
    declare(
        &mut t,
        &[(0, Action::Regular { talent: None, target: Target::Character(2), roll: false, defence: None })],
    );
    act(&mut t, 0);
    assert!(!t.state().pending.is_empty(), "{:?}", t.state().pending);
    let gm = seat_of(&t, 2);
    t.submit(gm, &Command::EndScene { winner: None }).unwrap();
    assert!(t.is_over());
    assert!(t.state().pending.is_empty());
    assert_eq!(t.state().outcome.as_ref().map(|o| (o.winner, o.by_gm)), Some((None, true)));
    let checked = Table::<IncitingIncident>::load_checked(t.save()).unwrap();
    assert_eq!(checked.state(), t.state());
}

fn sheet_of<'a>(s: &'a mut inciting_incident::Setup, name: &str) -> &'a mut inciting_incident::Sheet {
    &mut s.characters.iter_mut().find(|c| c.sheet.name == name).unwrap().sheet
}

#[test]
fn a_movement_skill_skips_intermediate_regions() {
    // A – B – C: without the Skill, A to C needs B on the way.
    let t = table(arena());
    let err = t.state().check_action(0, &go(&t, &["C"])).unwrap_err();
    assert!(!err.to_string().contains('§'), "{err}");
    // A leap over one Region, with a Simple Obstacle in B that nobody could pass.
    let mut s = arena();
    sheet_of(&mut s, "P1").movement.skip = 1;
    sheet_of(&mut s, "P1").max_move = 1;
    s.regions[1].effect.obstacle = Some(20);
    let mut t = table(s);
    let leap = go(&t, &["C"]);
    let mut legal = Vec::new();
    t.legal_commands(seat_of(&t, 0), &mut legal);
    assert!(
        legal.contains(&Command::Declare { character: 0, action: leap }),
        "the legal list offers the leap"
    );
    declare(&mut t, &[(0, leap)]);
    let ev = act(&mut t, 0);
    // B is not entered: no obstacle roll, no Crisis for it, not counted toward max_move 1;
    // C costs 2 and leaving the Duel 4.
    assert!(!ev.iter().any(|e| matches!(e, Event::Rolled { .. })), "{ev:?}");
    assert_eq!(crisis_in(&ev), 2 + 4);
    let Action::Move { path } = leap else { unreachable!() };
    assert!(ev.contains(&Event::Moved { character: 0, path }));
    assert_eq!(t.state().fighters[0].region, t.state().find_region("C"));
    // The leap follows the map: a movement blocker on its way stops it without pass_blockers.
    let mut s = arena();
    sheet_of(&mut s, "P1").movement.skip = 1;
    s.movement_blocked.push(["A".into(), "B".into()]);
    let t = table(s);
    let err = t.state().check_action(0, &go(&t, &["C"])).unwrap_err();
    assert!(err.to_string().contains("even leaping over 1 Region"), "{err}");
    // A sheet asking for more than a map can hold is refused, naming the field.
    let mut s = arena();
    sheet_of(&mut s, "P1").movement.skip = 4;
    let err = Scene::new(s).unwrap_err();
    assert!(err.to_string().contains("movement.skip"), "{err}");
}

#[test]
fn a_movement_skill_passes_movement_blockers() {
    let mut s = arena();
    s.movement_blocked.push(["A".into(), "B".into()]);
    sheet_of(&mut s, "P1").movement.pass_blockers = true;
    let mut t = table(s);
    let to_b = go(&t, &["B"]);
    // P2 has no such Skill: the wall stops it; P1 passes.
    assert!(t.state().check_action(1, &to_b).unwrap_err().to_string().contains("blocked"));
    let mut legal = Vec::new();
    t.legal_commands(seat_of(&t, 0), &mut legal);
    assert!(legal.contains(&Command::Declare { character: 0, action: to_b }));
    assert!(!legal.contains(&Command::Declare { character: 1, action: to_b }));
    let far = go(&t, &["B", "C"]);
    declare(&mut t, &[(0, far)]);
    let ev = act(&mut t, 0);
    assert_eq!(crisis_in(&ev), 2 + 2 + 4);
    assert_eq!(t.state().fighters[0].region, t.state().find_region("C"));
    // Both movement Skills together: a leap over the blocked border.
    let mut s = arena();
    s.movement_blocked.push(["A".into(), "B".into()]);
    sheet_of(&mut s, "P1").movement = toml::from_str("skip = 1\npass_blockers = true").unwrap();
    let t = table(s);
    assert!(t.state().check_action(0, &go(&t, &["C"])).is_ok());
}

#[test]
fn a_ranged_skill_passes_line_of_sight_blockers() {
    let setup = |skill: bool| {
        let mut s = arena();
        place(&mut s, "P2", "B");
        s.sight_blocked.push(["B".into(), "A".into()]);
        sheet_of(&mut s, "P2").talents[0].skills.ignore_sight_blockers = skill;
        s
    };
    let shot =
        |t: &Table<IncitingIncident>| Action::Decisive { talent: 0, target: ch(t, "E1"), defence: None };
    let t = table(setup(false));
    let err = t.state().check_action(1, &shot(&t)).unwrap_err();
    assert!(err.to_string().contains("line of sight"), "{err}");
    let t = table(setup(true));
    assert!(t.state().check_action(1, &shot(&t)).is_ok());
    let mut legal = Vec::new();
    t.legal_commands(seat_of(&t, 1), &mut legal);
    assert!(legal.contains(&Command::Declare { character: 1, action: shot(&t) }));
    // Range is unchanged: still adjacent Regions only.
    let mut s = setup(true);
    place(&mut s, "P2", "C");
    let t = table(s);
    assert!(t.state().check_action(1, &shot(&t)).is_err(), "A is not adjacent to C");
}

fn own_trigger(s: &mut inciting_incident::Setup, who: &str, toml_text: &str) {
    sheet_of(s, who).talents[0].advanced.push(toml::from_str(toml_text).unwrap());
}

#[test]
fn a_skill_lets_a_character_use_crisis_for_its_own_extra_action() {
    let mut s = arena();
    own_trigger(
        &mut s,
        "P1",
        r#"name = "Battle frenzy"
crisis = 2
effect = { add_trigger = { trigger = { at = 2, note = "Frenzy", effect = { extra_action = { character = "P1" } } } } }"#,
    );
    let mut t = table(s);
    let frenzy = Action::Advanced { talent: 0, action: 0, target: None };
    let mut legal = Vec::new();
    t.legal_commands(seat_of(&t, 0), &mut legal);
    assert!(legal.contains(&Command::Declare { character: 0, action: frenzy }));
    declare(&mut t, &[(0, frenzy)]);
    let ev = act(&mut t, 0);
    // The trigger is added at Crisis 0 + 2; the action's own 2 Crisis fires it at once.
    let added = ev.iter().find_map(|e| match e {
        Event::TriggerAdded { character: 0, trigger } => Some(trigger.clone()),
        _ => None,
    });
    assert_eq!(added.map(|t| (t.at, t.note)), Some((2, "Frenzy".to_owned())));
    assert!(ev.contains(&Event::TriggerFired { trigger: 0, at: 2 }), "{ev:?}");
    assert!(ev.contains(&Event::ExtraActionGranted { character: 0 }));
    assert_eq!(t.state().pending.first(), Some(&Pending::ExtraAction(0)));
    // P1 takes its extra action now; the trigger does not fire again.
    let e1 = ch(&t, "E1");
    let attack = Action::Regular { talent: None, target: e1, roll: false, defence: None };
    let ev =
        t.submit(seat_of(&t, 0), &Command::ExtraAction { character: 0, action: attack }).unwrap().to_vec();
    assert_eq!(crisis_in(&ev), 4);
    assert!(!ev.iter().any(|e| matches!(e, Event::TriggerFired { .. })));
    assert_eq!(t.state().duels[0].flow, 4);
    let checked = Table::<IncitingIncident>::load_checked(t.save()).unwrap();
    assert_eq!(checked.state(), t.state());
}

#[test]
fn a_skill_adds_a_repeating_hazard_trigger_that_everyone_sees() {
    let mut s = arena();
    place(&mut s, "E1", "B");
    own_trigger(
        &mut s,
        "P2",
        r#"name = "Rig the bridge"
effect = { add_trigger = { trigger = { at = 3, every = 4, note = "The rigged bridge", effect = { hazard = { region = "B", hits = 1 } } } } }"#,
    );
    let mut t = table(s);
    let e2 = ch(&t, "E2");
    let p1 = ch(&t, "P1");
    declare(
        &mut t,
        &[
            (1, Action::Advanced { talent: 0, action: 0, target: None }),
            (0, Action::Regular { talent: None, target: e2, roll: false, defence: None }),
            (3, Action::Regular { talent: None, target: p1, roll: false, defence: None }),
        ],
    );
    let ev = act(&mut t, 1);
    assert!(ev.iter().any(|e| matches!(e, Event::TriggerAdded { character: 1, trigger } if trigger.at == 3)));
    assert_eq!(crisis_in(&ev), 0);
    // Everyone sees the announced trigger, though it has not fired.
    let view = t.view(Viewer::Seat(seat_of(&t, 2)));
    assert!(view.triggers.iter().any(|v| v.note == "The rigged bridge" && v.fired == 0));
    // Crisis 4 fires it at 3 (E1 in B takes a hit); Crisis 8 fires it again at 7.
    let ev = act(&mut t, 0);
    assert!(ev.contains(&Event::TriggerFired { trigger: 0, at: 3 }), "{ev:?}");
    assert!(ev.contains(&Event::Wounded { character: 2, hits: 1, total: 1 }), "{ev:?}");
    let ev = finish_round(&mut t);
    assert!(ev.contains(&Event::TriggerFired { trigger: 0, at: 7 }), "{ev:?}");
    assert!(ev.contains(&Event::Wounded { character: 2, hits: 1, total: 2 }), "{ev:?}");
    let replayed = Table::<IncitingIncident>::replay(t.initial().clone(), t.log().to_vec());
    assert_eq!(replayed.state(), t.state());
    let checked = Table::<IncitingIncident>::load_checked(t.save()).unwrap();
    assert_eq!(checked.state(), t.state());
}

#[test]
fn a_skills_own_trigger_names_what_is_in_the_scene() {
    let mut s = arena();
    own_trigger(
        &mut s,
        "P1",
        r#"name = "Collapse"
effect = { add_trigger = { trigger = { at = 1, effect = { hazard = { region = "Nowhere", hits = 1 } } } } }"#,
    );
    let err = Scene::new(s).unwrap_err();
    assert!(
        err.to_string().contains("Advanced Action Collapse") && err.to_string().contains("Nowhere"),
        "{err}"
    );
}

#[test]
fn a_skills_crisis_reduction_applies_only_in_its_own_context() {
    // §10: "Some Skills only apply in the context of either Combat or specific forms of
    // non-violent Conflict, those Skills only effect attacks in their relevent context."
    use inciting_incident::SceneKind;
    use inciting_incident::character::Context;
    for (kind, context, crisis) in [
        (SceneKind::NonViolent, Context::Combat, 2),
        (SceneKind::NonViolent, Context::Any, 1),
        (SceneKind::NonViolent, Context::NonViolent, 1),
        (SceneKind::Combat, Context::Combat, 1),
        (SceneKind::Combat, Context::NonViolent, 2),
    ] {
        let mut s = arena();
        s.kind = kind;
        if kind == SceneKind::NonViolent {
            s.strikes = Some([3, 3]);
        }
        let skills = &mut s.characters[0].sheet.talents[0].skills;
        skills.crisis_reduction = 1;
        skills.context = context;
        let mut t = table(s);
        let e1 = ch(&t, "E1");
        declare(&mut t, &[(0, Action::Decisive { talent: 0, target: e1, defence: None })]);
        let ev = act(&mut t, 0);
        assert_eq!(crisis_in(&ev), crisis, "{kind:?} scene, a {context:?} Skill");
    }
}

#[test]
fn an_automatic_regular_attack_uses_no_talent_so_no_skill_lowers_its_crisis() {
    // §7.1: the automatic success is no Talent Roll; the Talent only says how a ranged
    // attacker reaches the Duel. Melee and ranged alike: Crisis 4.
    let mut s = arena();
    place(&mut s, "P2", "B");
    for c in 0..2 {
        s.characters[c].sheet.talents[0].skills.crisis_reduction = 3;
    }
    let mut t = table(s);
    let e1 = ch(&t, "E1");
    declare(
        &mut t,
        &[
            (0, Action::Regular { talent: Some(0), target: e1, roll: false, defence: None }),
            (1, Action::Regular { talent: Some(0), target: e1, roll: false, defence: None }),
        ],
    );
    assert_eq!(crisis_in(&act(&mut t, 0)), 4, "melee");
    assert_eq!(crisis_in(&act(&mut t, 1)), 4, "ranged from B into A");
}

#[test]
fn the_initiative_lot_moves_the_dice_on_so_no_die_repeats_it() {
    // Everything ties (Nimbleness 3 against 3 and 3 against 3, no Nimbleness Talent): a seeded
    // lot decides (Decision 8). It draws from the scene's dice, so they must move on: else the
    // first die of the scene reuses the lot's draw and whoever won tells its parity.
    let mut s = arena();
    s.characters[0].sheet.abilities.nimbleness = 3;
    for seed in 0..8 {
        s.seed = seed;
        let t = table(s.clone());
        assert!(
            t.log().iter().any(|e| matches!(e, Event::RoundStarted { why: InitiativeWhy::Coin, .. })),
            "{:?}",
            t.log()
        );
        assert_ne!(t.state().draws.position(), 0, "seed {seed}: the lot's draw is spent");
        // The log replays into the same dice position.
        let saved = t.save();
        let back = Table::<IncitingIncident>::load_checked(saved).unwrap();
        assert_eq!(back.state().draws.position(), t.state().draws.position());
    }
}

#[test]
fn in_a_non_violent_conflict_hits_on_minions_remove_strikes_too() {
    // §10 (Decision 15): each side has Strikes "instead of each character having their own
    // max hits"; a Decisive hit removes one Strike per hit from the target's side instead of
    // wounding — a minion block's hits included.
    use inciting_incident::SceneKind;
    let mut s = arena();
    s.kind = SceneKind::NonViolent;
    s.strikes = Some([20, 20]);
    place(&mut s, "E1", "C");
    place(&mut s, "E2", "C");
    place(&mut s, "P2", "C");
    s.minions.push(cultists("A", 6));
    let mut hit = false;
    for seed in 0..30 {
        s.seed = seed;
        let mut t = table(s.clone());
        declare(&mut t, &[(0, Action::Decisive { talent: 0, target: Target::Minions(0), defence: None })]);
        let ev = act(&mut t, 0);
        assert!(!ev.iter().any(|e| matches!(e, Event::MinionsKilled { .. })), "seed {seed}: {ev:?}");
        let lost: u32 = ev
            .iter()
            .map(|e| if let Event::StrikesLost { side: 1, strikes, .. } = e { *strikes } else { 0 })
            .sum();
        assert_eq!(t.state().strikes, Some([20, 20 - lost]));
        assert_eq!(t.state().minions[0].count, 6);
        hit |= lost > 0;
    }
    assert!(hit, "some seed hits");
}

/// §4.4, the character sheet: the seat that plays a character and the GM see its sheet
/// (Abilities, Talents, defences) in the view; the spectators and the other seats do not.
#[test]
fn a_character_sheet_is_shown_to_its_player_and_the_gm_only() {
    let t = table(example("river-fight.toml"));
    let gm = t.state().seats.iter().find(|(_, s)| s.role == table::Role::Gm).map(|(id, _)| id).unwrap();
    let seats: Vec<_> = t.state().seats.iter().map(|(id, _)| id).collect();
    for (i, f) in t.state().fighters.iter().enumerate() {
        for &viewer in &seats {
            let shown = t.view(Viewer::Seat(viewer)).fighters[i].sheet.clone();
            if viewer == f.seat || viewer == gm {
                assert_eq!(shown.as_deref(), Some(&*f.sheet), "{} to seat {}", f.sheet.name, viewer.0);
            } else {
                assert!(shown.is_none(), "{}'s sheet reached seat {}", f.sheet.name, viewer.0);
            }
        }
        assert!(t.view(Viewer::Spectator).fighters[i].sheet.is_none());
    }
    assert!(seats.len() > 2, "the arena has another player's seat to hide a sheet from");
}
