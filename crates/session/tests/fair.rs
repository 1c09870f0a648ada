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
    let table = fairlog::table_entry(R::NAME, s.setup_commitment().as_ref(), &seats, Some(&commitment));
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

/// docs/fairness.md §4, rotation: with a rotation key, the end of the scene reveals the seed
/// and commits the next in the same item, so a Rest Scene's rolls after the end are keyed by a
/// seed nobody has seen; the next end reveals that one, and the whole log verifies. Without a
/// key the seed is revealed once, and a draw after it is what a verifier refuses.
#[test]
fn a_rest_scene_after_the_end_rolls_with_a_rotated_seed_and_the_log_verifies() {
    use inciting_incident::{Command, IncitingIncident};
    let rest = Command::RestScene { full_day: false };
    let play = |seed: u64, rotate: bool| -> Option<(Session<IncitingIncident>, String)> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut s = Session::<IncitingIncident>::new(river_fight()).unwrap();
        let commitment = s.use_verifiable(ServerSeed::from_bytes(rng.random())).unwrap();
        if rotate {
            s.rotate_with(ServerSeed::from_bytes(rng.random())).unwrap();
        }
        for _ in 0..400 {
            let Some(&seat) = s.awaiting().first() else { break };
            let Some(prompt) = s.prompt(seat) else { break };
            let choices: Vec<_> = prompt
                .choices
                .iter()
                .filter(|c| c.private == prompt.private && !IncitingIncident::is_gm_ruling(&c.command))
                .collect();
            if choices.is_empty() {
                break;
            }
            let command = choices[rng.random_range(0..choices.len())].command;
            s.submit(seat, &command).unwrap();
        }
        if !s.is_over() {
            return None;
        }
        let gm = IncitingIncident::seats(s.table().state())
            .iter()
            .find(|(_, seat)| seat.role == table::Role::Gm)
            .map(|(id, _)| id)?;
        let before = s.updates_since(Viewer::Spectator, 0).len();
        s.submit(gm, &rest).unwrap();
        let after = s.updates_since(Viewer::Spectator, 0);
        if !after[before..].iter().any(|u| matches!(u.item, Item::Draw { .. })) {
            return None; // nobody was hurt: the Rest Scene rolled nothing
        }
        let seats: Vec<SeatEntry> = IncitingIncident::seats(s.table().state())
            .iter()
            .map(|(_, seat)| SeatEntry { name: seat.name.clone(), mode: "plain".into() })
            .collect();
        let table = fairlog::table_entry(
            IncitingIncident::NAME,
            s.setup_commitment().as_ref(),
            &seats,
            Some(&commitment),
        );
        let entries = std::iter::once(table).chain(after.iter().map(|u| serde_json::to_value(u).unwrap()));
        Some((s, fairlog::write(entries).unwrap().0))
    };
    let seed =
        (0..200).find(|&seed| play(seed, true).is_some()).expect("a scene that ends with someone hurt");
    let (s, log) = play(seed, true).unwrap();
    let seeds: Vec<_> = s
        .updates_since(Viewer::Spectator, 0)
        .into_iter()
        .filter_map(|u| match u.item {
            Item::ServerSeed { revealed, commitment, next } => Some((revealed, commitment, next)),
            _ => None,
        })
        .collect();
    assert_eq!(seeds.len(), 2, "the end reveals the seed, the Rest Scene's end the rotated one: {seeds:?}");
    assert_eq!(
        seeds[0].2.as_deref(),
        Some(seeds[1].1.as_str()),
        "the first reveal committed the second seed"
    );
    assert_ne!(seeds[0].0, seeds[1].0, "a fresh seed");
    let report = fairlog::verify(&log).unwrap_or_else(|e| panic!("{e}\n{log}"));
    assert!(report.seed_revealed, "every draw's seed is revealed: {report}");
    // The browser's verifier checks the same log, kept in the docs (its test reads it there);
    // `UPDATE_LOGS=1` writes it anew.
    if std::env::var_os("UPDATE_LOGS").is_some() {
        let path =
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/fairness/rotation/inciting-incident-rest.jsonl");
        std::fs::write(path, &log).unwrap();
    }
    assert_eq!(
        log,
        include_str!("../../../docs/fairness/rotation/inciting-incident-rest.jsonl"),
        "docs/fairness/rotation/inciting-incident-rest.jsonl is this log"
    );
    // The rotated seed is bound by its commitment: another revealed in its place, the log
    // chained afresh, is caught at that entry.
    let mut entries: Vec<serde_json::Value> =
        log.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["entry"].clone()).collect();
    let second = entries.iter().rposition(|e| e["kind"] == "server_seed").unwrap();
    entries[second]["revealed"] = seeds[0].0.clone().into();
    let (forged, _) = fairlog::write(entries).unwrap();
    let e = fairlog::verify(&forged).unwrap_err();
    assert_eq!(e.entry as usize, second + 1, "{e}");
    // Without a rotation key the same play reveals the seed once and rolls after it: the
    // verifier names that draw.
    let (_, legacy) = play(seed, false).expect("the same play without rotation");
    let e = fairlog::verify(&legacy).unwrap_err();
    assert!(e.reason.contains("after the server seed was revealed"), "{e}");
}
