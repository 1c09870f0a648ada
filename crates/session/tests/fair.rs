//! Verifiable draws in a session (docs/fairness.md §4–§7): a session made verifiable draws
//! every die and token from the server seed, logs each draw, reveals the seed at the end, and
//! its spectator's log — written as a verifiable log — verifies; the same seed and commands
//! give the same log; a changed byte is caught; the draws cannot be made verifiable late.

use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use session::fairlog::{self, SeatEntry};
use session::{Item, Session, SessionError};
use table::fairness::{ClientSeed, FairnessError, ServerSeed};
use table::{Ruleset, SeatId, Viewer};

fn river_fight() -> inciting_incident::Setup {
    let mut setup: inciting_incident::Setup =
        toml::from_str(include_str!("../../../examples/inciting-incident/river-fight.toml")).unwrap();
    setup.apply_round_limit(Some(6));
    setup
}

/// A verifiable session of random answers, a client seed given by seat 0 on the way; the
/// spectator's verifiable log.
fn game<R: Ruleset>(setup: R::Setup, seed: u64) -> (Session<R>, String) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut s = Session::<R>::new(setup).unwrap();
    let commitment = s.use_verifiable(ServerSeed::from_bytes(rng.random())).unwrap();
    assert_eq!(s.server_seed_commitment(), Some(commitment));
    for step in 0..400 {
        if step == 3 {
            s.add_client_seed(SeatId(0), ClientSeed::from_phrase("lucky")).unwrap();
        }
        let Some(&seat) = s.awaiting().first() else { break };
        let Some(prompt) = s.prompt(seat) else { break };
        let choices: Vec<_> = prompt.choices.iter().filter(|c| c.private == prompt.private).collect();
        let command = choices[rng.random_range(0..choices.len())].command.clone();
        s.submit(seat, &command).unwrap();
    }
    let seats: Vec<SeatEntry> = R::seats(s.table().state())
        .iter()
        .map(|(_, seat)| SeatEntry { name: seat.name.clone(), mode: "plain".into() })
        .collect();
    let table = fairlog::table_entry(R::NAME, "{}", &seats, Some(&commitment));
    let updates = s.updates_since(Viewer::Spectator, 0);
    let entries = std::iter::once(table).chain(updates.iter().map(|u| serde_json::to_value(u).unwrap()));
    let (log, _) = fairlog::write(entries).unwrap();
    (s, log)
}

#[test]
fn an_inciting_incident_scene_draws_verifiably_and_its_log_verifies() {
    let (s, log) = game::<inciting_incident::IncitingIncident>(river_fight(), 5);
    let draws =
        s.updates_since(Viewer::Spectator, 0).iter().filter(|u| matches!(u.item, Item::Draw { .. })).count();
    assert!(draws > 0, "the dice are drawn and logged");
    let report = fairlog::verify(&log).unwrap_or_else(|e| panic!("{e}\n{log}"));
    assert_eq!(report.draws as usize, draws);
    assert_eq!(report.before_first_mix, report.draws, "no sealed round, no mix: every draw is foreseeable");
    assert_eq!(report.seed_revealed, s.is_over());
    assert_eq!(report.client_seeds, 1);
    let (_, again) = game::<inciting_incident::IncitingIncident>(river_fight(), 5);
    assert_eq!(again, log, "the same seed and commands give the same log");
    let (_, other) = game::<inciting_incident::IncitingIncident>(river_fight(), 6);
    assert_ne!(other, log);
}

#[test]
fn the_draws_can_be_made_verifiable_only_before_the_first_command() {
    let mut s = Session::<inciting_incident::IncitingIncident>::new(river_fight()).unwrap();
    assert!(matches!(
        s.add_client_seed(SeatId(0), ClientSeed::from_phrase("x")),
        Err(SessionError::Fairness(FairnessError::NotVerifiable))
    ));
    let seat = s.awaiting()[0];
    let command = s.prompt(seat).unwrap().choices[0].command;
    s.submit(seat, &command).unwrap();
    assert!(matches!(s.use_verifiable(ServerSeed::from_bytes([1; 32])), Err(SessionError::DrawsStarted)));
    let mut fresh = Session::<inciting_incident::IncitingIncident>::new(river_fight()).unwrap();
    fresh.use_verifiable(ServerSeed::from_bytes([1; 32])).unwrap();
    assert!(matches!(fresh.use_verifiable(ServerSeed::from_bytes([2; 32])), Err(SessionError::DrawsStarted)));
    assert!(matches!(
        fresh.add_client_seed(SeatId(9), ClientSeed::from_phrase("x")),
        Err(SessionError::Fairness(FairnessError::NoSeat { seat: 9, .. }))
    ));
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(16)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_changed_byte_of_a_scene_log_is_caught(seed in any::<u64>(), at in any::<prop::sample::Index>(), to in any::<u8>()) {
        let (_, log) = game::<inciting_incident::IncitingIncident>(river_fight(), seed);
        prop_assert!(fairlog::verify(&log).is_ok());
        let mut bytes = log.into_bytes();
        let i = at.index(bytes.len());
        prop_assume!(bytes[i] != to && bytes[i] != b'\n' && to != b'\n');
        bytes[i] = to;
        if let Ok(changed) = String::from_utf8(bytes) {
            prop_assert!(fairlog::verify(&changed).is_err(), "byte {} changed went unnoticed", i);
        }
    }
}
