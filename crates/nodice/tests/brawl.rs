//! Multi-Actor Hands (rules reference Open questions 5 and 8): several Actors, each with its
//! own target(s), resolved pairwise; one Bid compared in full against each target.

mod common;

use common::*;
use nodice::*;

#[test]
fn one_bid_against_two_targets_resolves_pairwise() {
    // Stakes 1. A (Body, FIT 4) targets B and C; B (Spirit, PRE 2) targets A; C (Mind, REA 1)
    // targets B.
    let mut t = start(brawl(1));
    commit_aspect(&mut t, "A", "STR", &["B", "C"]).unwrap();
    commit_aspect(&mut t, "B", "PRE", &["A"]).unwrap();
    commit_aspect(&mut t, "C", "REA", &["B"]).unwrap();
    // Engaged pairs: A–B (A: Body beats Spirit), A–C (C: Mind beats Body), B–C (C: Spirit
    // beats Mind → B). TD wins: A 1, B 1, C 1.
    let wins: Vec<_> = t.state().actors.iter().map(|a| a.trine_wins).collect();
    assert_eq!(wins, [1, 1, 1]);
    commit_action(&mut t, "A", "FIT", 4, false).unwrap();
    commit_action(&mut t, "B", "PRE", 2, false).unwrap();
    commit_action(&mut t, "C", "REA", 1, false).unwrap();
    let sd = &t.state().showdown;
    assert_eq!(sd.pairs.len(), 3);
    let pair =
        |x: u8, y: u8| sd.pairs.iter().find(|p| p.actors == [ActorId(x), ActorId(y)]).copied().unwrap();
    // A–B: TD A; AD FIT ties PRE: 4 + 1 = 5 vs 2.
    assert_eq!(pair(0, 1).totals, [5, 2]);
    assert_eq!(pair(0, 1).sweep, [false, false]);
    // A–C: TD C; AD REA beats FIT → C sweeps: A 4, C 1 + 1 + 1 + 1 = 4.
    assert_eq!(pair(0, 2).totals, [4, 4]);
    assert_eq!(pair(0, 2).sweep, [false, true]);
    // B–C: TD B (Spirit beats Mind); AD PRE vs REA: REA beats PRE → C. B 2 + 1 = 3, C 1 + 1 = 2.
    assert_eq!(pair(1, 2).totals, [3, 2]);
    // Priority: C (1), B (2), A (4).
    let strikes: Vec<_> =
        sd.strikes.iter().map(|s| (s.attacker.0, s.target.0, s.damage, s.unopposed)).collect();
    assert_eq!(
        strikes,
        vec![
            (2, 1, 0, false), // C → B one-way: 2 − 3, nothing.
            (1, 0, 2, true),  // B → A mutual, lower bid: whole total 2, unopposed.
            (0, 1, 3, false), // A → B: 5 − 2.
            (0, 2, 0, false), // A → C one-way: 4 − 4, nothing.
        ]
    );
}

#[test]
fn targets_must_be_opponents_still_in_the_conflict() {
    let mut t = start(brawl(1));
    assert_eq!(commit_aspect(&mut t, "A", "STR", &["A"]), Err(RuleError::BadTarget("A".into())));
    assert_eq!(commit_aspect(&mut t, "A", "STR", &[]), Err(RuleError::NoTarget));
}

#[test]
fn random_brawls_end_with_chips_conserved() {
    use solver::bots::{RandomBot, play_out};
    for seed in 0..20 {
        let mut setup = brawl(2);
        setup.seed = seed;
        let mut t = start(setup);
        let (mut a, mut b, mut c) =
            (RandomBot::new(seed), RandomBot::new(seed + 100), RandomBot::new(seed + 200));
        play_out(&mut t, &mut [&mut a, &mut b, &mut c], 10_000).unwrap();
        assert!(t.is_over());
        assert!(chips_conserved(t.state()));
    }
}
