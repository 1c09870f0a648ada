//! The equilibrium bot (issue 7, part 4).

use iron_triangle::{Character, Conflict, Energy, GM, IronTriangle, PLAYERS, Setup};
use solver::bots::{RandomBot, play_out};
use solver::equilibrium::EquilibriumBot;
use table::Table;

/// A 1v1 between valid level-0 sheets entering with little energy (a quick solve).
fn small_duel() -> Conflict {
    let sheet = |name: &str, current: Energy| Character {
        current: Some(current),
        ..Character::with_starting_moves(name, Energy::new(3, 3, 4))
    };
    Conflict::new(Setup::one_on_one(sheet("A", Energy::new(1, 1, 2)), sheet("B", Energy::new(2, 1, 1))))
        .unwrap()
}

fn play(seed: u64, gm_is_eq: bool) -> (Vec<iron_triangle::Event>, Option<table::SideId>) {
    let mut t = Table::<IronTriangle>::new(small_duel());
    let mut eq = EquilibriumBot::new(seed);
    let mut rnd = RandomBot::new(seed + 1);
    if gm_is_eq {
        play_out(&mut t, &mut [&mut rnd, &mut eq], 10_000).unwrap();
        assert!(eq.solved_whole(), "the GM sees the PC's sheet: the whole conflict is solved");
    } else {
        play_out(&mut t, &mut [&mut eq, &mut rnd], 10_000).unwrap();
    }
    assert!(t.is_over());
    (t.log().to_vec(), t.state().ending.and_then(|e| e.winner))
}

#[test]
fn the_same_seed_replays_the_same_conflict() {
    assert_eq!(play(3, true).0, play(3, true).0);
}

#[test]
fn the_equilibrium_gm_beats_a_random_player_more_often_than_not() {
    let wins = (0..20).filter(|&s| play(s, true).1 == Some(GM)).count();
    assert!(wins >= 14, "won {wins} of 20");
}

/// The players' bot cannot see the NPC's moves: it falls back to the one-turn equilibrium
/// (assuming all thirteen moves) and still finishes, and beats a random GM.
#[test]
fn hidden_opponents_fall_back_to_the_one_turn_equilibrium() {
    let wins = (0..20).filter(|&s| play(s, false).1 == Some(PLAYERS)).count();
    assert!(wins >= 12, "won {wins} of 20");
}

/// A minor conflict is one turn (§5.1): the bot plays that turn's equilibrium, winning the
/// turn as the payoff, and never solves the whole conflict.
#[test]
fn minor_conflicts_are_played_as_one_turn() {
    let sheet = |name: &str| Character::with_starting_moves(name, Energy::new(3, 3, 4));
    let mut setup = Setup::one_on_one(sheet("A"), sheet("B"));
    setup.stakes.minor = true;
    let mut t = Table::<IronTriangle>::new(Conflict::new(setup).unwrap());
    let (mut a, mut b) = (RandomBot::new(1), EquilibriumBot::new(2));
    play_out(&mut t, &mut [&mut a, &mut b], 1_000).unwrap();
    assert!(t.is_over());
    assert!(!b.solved_whole());
}
