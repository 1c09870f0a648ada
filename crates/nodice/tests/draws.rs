//! The pot's token draws come from the recorded draw source (`table::Draws`): a Conflict saved
//! as JSON after a draw resumes with the same next draws, and its draw position never goes back.

mod common;

use common::*;
use nodice::*;
use proptest::prelude::*;
use rand::RngExt;
use table::{Ruleset, Saved, Table, TableRng, seeded_rng};

/// One random legal command of a random awaited seat; `false` when the Conflict is over.
fn step(t: &mut Table<NoDice>, rng: &mut TableRng) -> bool {
    let awaiting = t.awaiting();
    if t.is_over() || awaiting.is_empty() {
        return false;
    }
    let seat = awaiting[rng.random_range(0..awaiting.len())];
    let mut legal = Vec::new();
    t.legal_commands(seat, &mut legal);
    let c = legal[rng.random_range(0..legal.len())].clone();
    t.submit(seat, &c).unwrap();
    true
}

/// Whether a token was drawn among several leaders (a real draw, not the lone leader's).
fn drawn(t: &Table<NoDice>) -> bool {
    let mut first = None;
    for e in t.log() {
        if let Event::TokenPaid { to, .. } = e {
            if first.is_some_and(|f| f != *to) {
                return true;
            }
            first = first.or(Some(*to));
        }
    }
    false
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
fn continue_both(mut t: Table<NoDice>, mut u: Table<NoDice>, bots: u64) {
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
fn a_conflict_saved_as_json_after_a_token_draw_resumes_with_the_same_draws() {
    let mut tested = 0;
    for seed in 0..40 {
        let mut setup = brawl(2);
        setup.seed = seed;
        let mut t = start(setup);
        let mut rng = seeded_rng(seed);
        while !drawn(&t) && step(&mut t, &mut rng) {}
        if t.is_over() {
            continue;
        }
        tested += 1;
        let json = serde_json::to_string(t.state()).expect("a Conflict after a draw serialises to JSON");
        let back: Conflict = serde_json::from_str(&json).unwrap();
        assert_eq!(&back, t.state());
        let resumed = Table::<NoDice>::new(back);
        through_envelope(Envelope::State { state: Box::new(t.state().clone()) });
        for event in t.log() {
            through_envelope(Envelope::Event { event: event.clone() });
        }
        let saved = serde_json::to_string(&t.save()).expect("a save after a draw serialises to JSON");
        let saved: Saved<NoDice> = serde_json::from_str(&saved).unwrap();
        let reloaded = Table::load_checked(saved).unwrap();
        assert_eq!(reloaded.state(), t.state());
        continue_both(Table::<NoDice>::new(t.state().clone()), resumed, 100 + seed);
        continue_both(t, reloaded, 200 + seed);
        if tested == 4 {
            break;
        }
    }
    assert!(tested >= 3, "tokens were drawn in enough games to test ({tested})");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random brawls: the draw position never goes back, and it stands where the last
    /// recorded token draw left it.
    #[test]
    fn draw_position_never_decreases(seed in any::<u64>(), bots in any::<u64>(), stakes in 1u8..4) {
        let mut setup = brawl(stakes);
        setup.seed = seed;
        let mut t = start(setup);
        let mut rng = seeded_rng(bots);
        let mut last = NoDice::draw_position(t.state());
        for _ in 0..300 {
            if !step(&mut t, &mut rng) {
                break;
            }
            let now = NoDice::draw_position(t.state());
            prop_assert!(now >= last, "the draw position went back from {} to {}", last, now);
            last = now;
        }
        let recorded = t.log().iter().filter_map(|e| match e {
            Event::TokenPaid { rng_pos, .. } => Some(*rng_pos),
            _ => None,
        }).max();
        prop_assert_eq!(recorded.unwrap_or(0), last);
    }
}

/// A Conflict drawing from a verifiable source (docs/fairness.md) plays as ever, counting its
/// draws one by one, and no view, redacted event, narration or prompt shows any viewer the
/// secret server seed.
#[test]
fn a_verifiable_source_draws_the_pot_and_no_viewer_sees_its_seed() {
    use table::fairness::ServerSeed;
    let seed = ServerSeed::from_bytes([0x5e; 32]);
    let initial = Conflict::new(brawl(2)).unwrap();
    let seats = NoDice::seats(&initial).len() as u16;
    let state =
        table::testing::with_draws::<NoDice>(&initial, &table::Draws::verifiable(seed, seats)).unwrap();
    assert!(NoDice::draw_position(&state) == 0 && state != initial);
    let mut drew = 0;
    for game in 0..12 {
        let (shown, position) = table::testing::shown_in_random_play::<NoDice>(state.clone(), game, 600);
        drew += position;
        for text in &shown {
            assert!(!text.contains(&seed.reveal()) && !text.contains("server_seed"), "shown: {text}");
        }
    }
    assert!(drew > 0, "some pot tokens were drawn among several leaders");
}
