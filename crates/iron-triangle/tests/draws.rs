//! The conflict's Drunken Monkey swaps come from the recorded draw source (`table::Draws`):
//! a conflict saved as JSON after a swap resumes with the same next draws, and its draw
//! position never goes back.

mod common;

use common::*;
use iron_triangle::special::Special;
use iron_triangle::{Conflict, Event, IronTriangle};
use proptest::prelude::*;
use table::{Ruleset, Saved, seeded_rng};

/// Two on two, everyone level 10 and knowing Drunken Monkey: swaps are drawn often.
fn drunk_brawl(seed: u64) -> Game {
    let drunk = |name: &str| {
        let mut c = sheet(name, 10, en(5, 5, 5), &["○☵", "▨☷", "◆☲"], &[("▨☷", &["◆☲"])]);
        c.level = 10;
        c.specials = vec![Special::DrunkenMonkey];
        c
    };
    let mut setup = Build::new()
        .pc("ren", drunk("Ren"))
        .pc("mika", drunk("Mika"))
        .npc(drunk("Oni"))
        .npc(drunk("Goro"))
        .setup();
    setup.seed = seed;
    Game::new(Conflict::new(setup).unwrap())
}

fn swapped(g: &Game) -> bool {
    g.log().iter().any(|e| matches!(e, Event::SwapDecided { to: Some(_), .. }))
}

/// A message as a server or a store might wrap a state or an event: internally tagged, which
/// serde reads through its buffer (where a `u128` cannot go).
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Envelope {
    State { state: Box<Conflict> },
    Event { event: Event },
}

/// `value` written as JSON inside an [`Envelope`] and read back.
fn through_envelope(value: Envelope) {
    let json = serde_json::to_string(&value).expect("serialises to JSON");
    let back: Envelope = serde_json::from_str(&json).expect("reads back from JSON");
    assert_eq!(back, value);
}

/// Plays `t` and its copy `u` with the same random commands to the end: they must stay equal.
fn continue_both(mut t: Game, mut u: Game, bots: u64) {
    let (mut r1, mut r2) = (seeded_rng(bots), seeded_rng(bots));
    let (from_t, from_u) = (t.log().len(), u.log().len());
    for _ in 0..3000 {
        let (a, b) = (random_legal(&t, &mut r1), random_legal(&u, &mut r2));
        assert_eq!(a, b);
        let Some((seat, cmd)) = a else { break };
        assert_eq!(t.submit(seat, &cmd).is_ok(), u.submit(seat, &cmd).is_ok());
        assert_eq!(t.state(), u.state());
    }
    assert_eq!(t.log()[from_t..], u.log()[from_u..], "the same events follow");
}

#[test]
fn a_conflict_saved_as_json_after_a_swap_draw_resumes_with_the_same_draws() {
    let mut tested = 0;
    for seed in 0..40 {
        let mut g = drunk_brawl(seed);
        let mut rng = seeded_rng(seed);
        while !swapped(&g) && !g.is_over() {
            let (seat, cmd) = random_legal(&g, &mut rng).unwrap();
            g.submit(seat, &cmd).unwrap();
        }
        if g.is_over() {
            continue;
        }
        tested += 1;
        let json = serde_json::to_string(g.state()).expect("a conflict after a swap serialises to JSON");
        let back: Conflict = serde_json::from_str(&json).unwrap();
        assert_eq!(&back, g.state());
        let resumed = Game::new(back);
        through_envelope(Envelope::State { state: Box::new(g.state().clone()) });
        for event in g.log() {
            through_envelope(Envelope::Event { event: *event });
        }
        let saved = serde_json::to_string(&g.save()).expect("a save after a swap serialises to JSON");
        let saved: Saved<IronTriangle> = serde_json::from_str(&saved).unwrap();
        let reloaded = Game::load_checked(saved).unwrap();
        assert_eq!(reloaded.state(), g.state());
        continue_both(Game::new(g.state().clone()), resumed, 100 + seed);
        continue_both(g, reloaded, 200 + seed);
        if tested == 4 {
            break;
        }
    }
    assert!(tested >= 3, "swaps were drawn in enough games to test ({tested})");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random drunken brawls: the draw position never goes back, and it stands where the
    /// last recorded swap draw left it.
    #[test]
    fn draw_position_never_decreases(seed in any::<u64>(), bots in any::<u64>()) {
        let mut g = drunk_brawl(seed);
        let mut rng = seeded_rng(bots);
        let mut last = IronTriangle::draw_position(g.state());
        for _ in 0..3000 {
            let Some((seat, cmd)) = random_legal(&g, &mut rng) else { break };
            prop_assert!(g.submit(seat, &cmd).is_ok());
            let now = IronTriangle::draw_position(g.state());
            prop_assert!(now >= last, "the draw position went back from {} to {}", last, now);
            last = now;
        }
        let recorded = g.log().iter().filter_map(|e| match e {
            Event::SwapDecided { rng_pos, .. } => Some(*rng_pos),
            _ => None,
        }).max();
        prop_assert_eq!(recorded.unwrap_or(0), last);
        prop_assert_eq!(swapped(&g), last > 0, "a position only after a swap was drawn");
    }
}

/// A conflict drawing from a verifiable source (docs/fairness.md) plays as ever, counting its
/// draws one by one, and no view, redacted event, narration or prompt shows any viewer the
/// secret server seed.
#[test]
fn a_verifiable_source_draws_the_swaps_and_no_viewer_sees_its_seed() {
    use table::fairness::ServerSeed;
    let seed = ServerSeed::from_bytes([0x5e; 32]);
    let initial = drunk_brawl(1).state().clone();
    let seats = IronTriangle::seats(&initial).len() as u16;
    let state =
        table::testing::with_draws::<IronTriangle>(&initial, &table::Draws::verifiable(seed, seats)).unwrap();
    let mut drew = 0;
    for game in 0..8 {
        let (shown, position) =
            table::testing::shown_in_random_play::<IronTriangle>(state.clone(), game, 600);
        drew += position;
        for text in &shown {
            assert!(!text.contains(&seed.reveal()) && !text.contains("server_seed"), "shown: {text}");
        }
    }
    assert!(drew > 0, "some Drunken Monkey swaps were drawn");
}
