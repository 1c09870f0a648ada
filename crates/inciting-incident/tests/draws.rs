//! The scene's dice come from the recorded draw source (`table::Draws`): a scene saved as JSON
//! after any die or lot resumes with the same next draws, and its draw position never goes back.

mod common;

use inciting_incident::{Event, IncitingIncident, Scene};
use proptest::prelude::*;
use rand::RngExt;
use table::{Ruleset, Saved, Table, TableRng, seeded_rng};

/// One uniformly random legal command (never the GM's ruling that ends the scene).
fn step(t: &mut Table<IncitingIncident>, rng: &mut TableRng) -> bool {
    if t.is_over() {
        return false;
    }
    let awaiting = t.awaiting();
    let seat = awaiting[rng.random_range(0..awaiting.len())];
    let mut legal = Vec::new();
    t.legal_commands(seat, &mut legal);
    legal.retain(|c| !c.is_gm_ruling());
    let c = legal[rng.random_range(0..legal.len())];
    t.submit(seat, &c).unwrap();
    true
}

/// A message as a server or a store might wrap a state or an event: internally tagged, which
/// serde reads through its buffer (where a `u128` cannot go).
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Envelope {
    State { state: Box<Scene> },
    Event { event: Event },
}

/// `value` written as JSON inside an [`Envelope`] and read back.
fn through_envelope(value: Envelope) {
    let json = serde_json::to_string(&value).expect("serialises to JSON");
    let back: Envelope = serde_json::from_str(&json).expect("reads back from JSON");
    assert_eq!(back, value);
}

/// Plays `t` and its copy `u` with the same random commands to the end: they must stay equal.
fn continue_both(mut t: Table<IncitingIncident>, mut u: Table<IncitingIncident>, bots: u64) {
    let (mut r1, mut r2) = (seeded_rng(bots), seeded_rng(bots));
    let (from_t, from_u) = (t.log().len(), u.log().len());
    for _ in 0..400 {
        let (a, b) = (step(&mut t, &mut r1), step(&mut u, &mut r2));
        assert_eq!(a, b);
        assert_eq!(t.state(), u.state());
        if !a {
            break;
        }
    }
    assert_eq!(t.log()[from_t..], u.log()[from_u..], "the same events follow");
}

#[test]
fn a_scene_saved_as_json_after_a_die_was_rolled_resumes_with_the_same_dice() {
    let mut rolled_games = 0;
    for seed in 0..6 {
        let mut t = Table::<IncitingIncident>::new(common::fight());
        let mut rng = seeded_rng(seed);
        while !t.log().iter().any(|e| matches!(e, Event::Rolled { .. })) && step(&mut t, &mut rng) {}
        if t.is_over() {
            continue;
        }
        rolled_games += 1;
        // The state alone, as a shell or a store writes it.
        let json = serde_json::to_string(t.state()).expect("a scene after a roll serialises to JSON");
        let back: Scene = serde_json::from_str(&json).unwrap();
        assert_eq!(&back, t.state());
        let resumed = Table::<IncitingIncident>::new(back);
        through_envelope(Envelope::State { state: Box::new(t.state().clone()) });
        for event in t.log() {
            through_envelope(Envelope::Event { event: event.clone() });
        }
        // And the whole save (initial state and events).
        let saved = serde_json::to_string(&t.save()).expect("a save after a roll serialises to JSON");
        let saved: Saved<IncitingIncident> = serde_json::from_str(&saved).unwrap();
        let reloaded = Table::load_checked(saved).unwrap();
        assert_eq!(reloaded.state(), t.state());
        let copy = Table::<IncitingIncident>::new(t.state().clone());
        continue_both(copy, resumed, 100 + seed);
        continue_both(t, reloaded, 200 + seed);
    }
    assert!(rolled_games >= 3, "the dice rolled in enough games to test ({rolled_games})");
}

/// The position an event records, if it records a draw.
fn drawn_to(e: &Event) -> Option<u64> {
    match e {
        Event::Rolled { rng_pos, .. } => Some(*rng_pos),
        Event::RoundStarted { rng_pos, .. } => *rng_pos,
        _ => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Random scenes: the draw position never goes back, and it stands where the last
    /// recorded draw left it.
    #[test]
    fn draw_position_never_decreases(seed in any::<u64>(), bots in any::<u64>()) {
        let mut setup = common::example("river-fight.toml");
        setup.seed = seed;
        let mut t = Table::<IncitingIncident>::new(Scene::new(setup).unwrap());
        let mut rng = seeded_rng(bots);
        let mut last = IncitingIncident::draw_position(t.state());
        for _ in 0..300 {
            if !step(&mut t, &mut rng) {
                break;
            }
            let now = IncitingIncident::draw_position(t.state());
            prop_assert!(now >= last, "the draw position went back from {} to {}", last, now);
            last = now;
        }
        let recorded = t.log().iter().filter_map(drawn_to).max();
        prop_assert_eq!(recorded.unwrap_or(0), last);
        prop_assert_eq!(recorded.is_some(), last > 0);
    }
}

/// A scene drawing from a verifiable source (docs/fairness.md) plays as ever, counting its draws
/// one by one (one per die), and no view, redacted event, narration or prompt shows any viewer
/// the secret server seed.
#[test]
fn a_verifiable_source_rolls_the_dice_and_no_viewer_sees_its_seed() {
    use table::fairness::ServerSeed;
    let seed = ServerSeed::from_bytes([0x5e; 32]);
    let initial = common::fight();
    let seats = IncitingIncident::seats(&initial).len() as u16;
    let state =
        table::testing::with_draws::<IncitingIncident>(&initial, &table::Draws::verifiable(seed, seats))
            .unwrap();
    let mut drew = 0;
    for game in 0..4 {
        let (shown, position) =
            table::testing::shown_in_random_play::<IncitingIncident>(state.clone(), game, 300);
        drew += position;
        for text in &shown {
            assert!(!text.contains(&seed.reveal()) && !text.contains("server_seed"), "shown: {text}");
        }
    }
    assert!(drew > 0, "some dice were rolled");
}
