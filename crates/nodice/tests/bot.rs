//! The greedy bot (`nodice::bot`) against the random one over many seeded Conflicts, and its
//! single decisions.

mod common;

use common::*;
use nodice::bot::GreedyBot;
use nodice::*;
use solver::bots::{Bot, RandomBot, play_out};
use table::{Decision, SeatId, Table};

struct Greedy(GreedyBot);

impl Bot<NoDice> for Greedy {
    fn choose(&mut self, decision: &Decision<'_, NoDice>) -> usize {
        self.0.choose(&decision.view(), decision.legal)
    }
}

/// The greedy bot's choices at one decision with seeds 0–29 (ties and bluffs are drawn).
fn greedy_choices(t: &Table<NoDice>, seat: SeatId) -> Vec<Command> {
    let mut legal = Vec::new();
    let d = t.decision(seat, &mut legal);
    let view = d.view();
    (0..30).map(|seed| d.legal[GreedyBot::new(seed).choose(&view, d.legal)].clone()).collect()
}

/// The CLI's random bot: uniform over the legal commands, but never withdrawing while it can
/// ante (a bot that walks away would lose by itself).
struct Steady(RandomBot);

impl Bot<NoDice> for Steady {
    fn choose(&mut self, decision: &Decision<'_, NoDice>) -> usize {
        let pick = self.0.choose(decision);
        let legal = decision.legal;
        if matches!(legal.get(pick), Some(Command::Withdraw { .. })) && legal.len() > 1 {
            (pick + 1) % legal.len()
        } else {
            pick
        }
    }
}

/// Two even 27-point builds, both PCs (everything visible to both), the given seed.
fn mirror(seed: u64) -> Setup {
    let mut setup = kara_vs_bandit();
    for a in &mut setup.actors {
        *a = ActorSheet::new(&a.name, Kind::Pc, block(BANDIT), a.seat, a.side);
    }
    setup.seed = seed;
    setup
}

/// Plays one Conflict with the greedy bot at `greedy_seat`; whether it was the one left in.
fn greedy_wins(setup: Setup, greedy_seat: usize, seed: u64) -> Option<bool> {
    let mut t: Table<NoDice> = start(setup);
    let (mut g, mut r) = (Greedy(GreedyBot::new(seed + 1)), Steady(RandomBot::new(seed)));
    let mut bots: [&mut dyn Bot<NoDice>; 2] = [&mut g, &mut r];
    if greedy_seat == 1 {
        bots.swap(0, 1);
    }
    play_out(&mut t, &mut bots, 20_000).unwrap();
    assert!(t.is_over());
    let s = t.state();
    let greedy_actor = s.actors.iter().find(|a| a.sheet.seat == SeatId(greedy_seat as u16)).unwrap();
    let other = s.actors.iter().find(|a| a.sheet.seat != SeatId(greedy_seat as u16)).unwrap();
    match (greedy_actor.is_in(), other.is_in()) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
    }
}

#[test]
fn greedy_beats_random_over_many_seeded_conflicts() {
    // Equal Actors, each seat in turn: the greedy bot should win three times as often. (The
    // random bot is uniform over the legal commands since `withdraw` is no longer listed,
    // Decision 26; skipping it used to weigh its first choice twice, which made it weaker.)
    let (mut wins, mut losses) = (0, 0);
    for seed in 0..100 {
        for seat in 0..2 {
            match greedy_wins(mirror(seed), seat, seed * 7 + 1) {
                Some(true) => wins += 1,
                Some(false) => losses += 1,
                None => {}
            }
        }
    }
    eprintln!("mirror: greedy won {wins}, lost {losses} of 200");
    assert!(wins >= 3 * losses, "greedy won {wins}, lost {losses} of 200");
    // Even the weaker side (the Bandit, Rank 1, against Kara, Rank 2) wins most Conflicts.
    let (mut wins, mut losses) = (0, 0);
    for seed in 0..100 {
        let mut setup = kara_vs_bandit();
        setup.seed = seed;
        match greedy_wins(setup, 1, seed + 1000) {
            Some(true) => wins += 1,
            Some(false) => losses += 1,
            None => {}
        }
    }
    eprintln!("the greedy Bandit against Kara: won {wins}, lost {losses} of 100");
    assert!(wins > 2 * losses, "the greedy Bandit won {wins}, lost {losses} of 100");
}

#[test]
fn greedy_bots_finish_against_each_other_and_replay() {
    // Equal Actors too: ties and bluffs are drawn, so two greedy bots never tie forever.
    let run = |setup: Setup| {
        let mut t = start(setup);
        let (mut a, mut b) = (Greedy(GreedyBot::new(1)), Greedy(GreedyBot::new(2)));
        play_out(&mut t, &mut [&mut a, &mut b], 20_000).unwrap();
        assert!(t.is_over());
        t.log().to_vec()
    };
    assert_eq!(run(kara_vs_bandit()), run(kara_vs_bandit()));
    for seed in 0..20 {
        run(mirror(seed));
    }
}

#[test]
fn greedy_never_withdraws_and_plays_an_aspect_the_target_has() {
    // A golem with only a Body (a PC here, so its stat block is visible to Kara's seat):
    // damage of any other Aspect cannot get through (§6), so Kara plays Body against it,
    // though her Mind Trine Score is as high — even when she bluffs.
    let mut setup = kara_vs_bandit();
    setup.actors[1] = ActorSheet::new("Golem", Kind::Pc, block("B3(3/3/3)"), SeatId(1), table::SideId(1));
    let t = start(setup);
    for command in greedy_choices(&t, SeatId(0)) {
        match command {
            Command::CommitAspect { aspect, .. } => assert_eq!(aspect, Aspect::Body),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn greedy_bids_its_cap_when_it_wins_the_showdown_and_when_it_strikes_first_anyway() {
    // Body Trine Score 3 against a weak Body (Trine Score 1): the cap wins the Showdown.
    // Against Body Trine Score 30 it cannot win: bid chips come back after the Hand and the
    // lower bidder strikes first with its whole total, so the cap is still the best bid.
    for opponent in ["M3(3/3/3)-B1(1/1/1)-S3(3/3/3)", "M3(3/3/3)-B30(30/30/30)-S3(3/3/3)"] {
        let mut setup = mirror(1);
        setup.actors[1].statblock = block(opponent);
        let mut t = start(setup);
        commit_aspect(&mut t, "Kara", "FIT", &["Bandit"]).unwrap();
        commit_aspect(&mut t, "Bandit", "FIT", &["Kara"]).unwrap();
        for command in greedy_choices(&t, SeatId(0)) {
            let Command::CommitAction { bid, .. } = command else { panic!("{command:?}") };
            assert_eq!(bid, 3, "against {opponent}");
        }
    }
}

#[test]
fn greedy_bots_finish_brawls_and_games_against_things() {
    // Three Actors whose stat blocks are hidden from each other (estimates only), and an
    // abstract Actor that chooses its damage Aspect.
    for seed in 0..10 {
        let mut setup = brawl(1 + (seed % 3) as u8);
        setup.seed = seed;
        let mut t = start(setup);
        let (mut a, mut b, mut c) =
            (Greedy(GreedyBot::new(seed)), Greedy(GreedyBot::new(seed + 50)), Steady(RandomBot::new(seed)));
        play_out(&mut t, &mut [&mut a, &mut b, &mut c], 20_000).unwrap();
        assert!(t.is_over());
        let mut setup = kara_vs_bandit();
        setup.actors[1] =
            ActorSheet::new("Door", Kind::Abstract, block("FIT-9"), SeatId(1), table::SideId(1));
        setup.seed = seed;
        let mut t = start(setup);
        let (mut a, mut b) = (Greedy(GreedyBot::new(seed)), Greedy(GreedyBot::new(seed + 1)));
        play_out(&mut t, &mut [&mut a, &mut b], 20_000).unwrap();
        assert!(t.is_over());
    }
}
