//! The table's opening and its draws (docs/fairness.md §8): a draw the rules make as the table
//! opens (an Inciting Incident initiative lot) comes from the verifiable source, and an
//! opening round mixes every seat's nonce in before the rules' first step, so that no draw is
//! left to the server seed alone.

use inciting_incident::rules::InitiativeWhy;
use inciting_incident::{Event, IncitingIncident};
use session::fairlog::{self, SeatEntry};
use session::opening::opening_command;
use session::sealed::{Fault, Mode};
use session::{Item, Session, SessionError};
use table::fairness::{Commitment, Nonce, ServerSeed};
use table::{Ruleset, SeatId, Viewer};

/// The river fight with both sides tied on Nimbleness, headcount and Nimbleness Talents: the
/// first round's initiative is a lot (Decision 8).
fn tied() -> inciting_incident::Setup {
    let text = include_str!("../../../examples/inciting-incident/river-fight.toml")
        .replace(
            "abilities = { fortitude = 6, perseverance = 3, nimbleness = 3 }",
            "abilities = { fortitude = 6, perseverance = 3, nimbleness = 4 }",
        )
        .replace("ability = \"nimbleness\"\nlevel = 6", "ability = \"fortitude\"\nlevel = 3");
    let mut setup: inciting_incident::Setup = toml::from_str(&text).unwrap();
    setup.apply_round_limit(Some(3));
    setup
}

fn lot(s: &Session<IncitingIncident>) -> Option<u8> {
    s.table().log().iter().find_map(|e| match e {
        Event::RoundStarted { round: 1, initiative, why: InitiativeWhy::Coin, .. } => Some(*initiative),
        _ => None,
    })
}

/// The spectator's verifiable log of `s`.
fn fair_log(s: &Session<IncitingIncident>, modes: &[&str]) -> String {
    let seats: Vec<SeatEntry> = IncitingIncident::seats(s.table().state())
        .iter()
        .zip(modes)
        .map(|((_, seat), mode)| SeatEntry { name: seat.name.clone(), mode: (*mode).into() })
        .collect();
    let commitment = s.server_seed_commitment().unwrap();
    let table = fairlog::table_entry(
        IncitingIncident::NAME,
        s.setup_commitment().as_ref(),
        &seats,
        Some(&commitment),
    );
    let updates = s.updates_since(Viewer::Spectator, 0);
    let entries = std::iter::once(table).chain(updates.iter().map(|u| serde_json::to_value(u).unwrap()));
    fairlog::write(entries).unwrap().0
}

fn draws(s: &Session<IncitingIncident>) -> Vec<table::fairness::DrawRecord> {
    s.updates_since(Viewer::Spectator, 0)
        .into_iter()
        .filter_map(|u| match u.item {
            Item::Draw { draw } => Some(draw),
            _ => None,
        })
        .collect()
}

#[test]
fn a_lot_drawn_as_the_table_opens_comes_from_the_verifiable_draws() {
    let mut s = Session::<IncitingIncident>::new(tied()).unwrap();
    assert!(lot(&s).is_some(), "the setup ties: the opening draws a lot");
    assert!(s.draws_before_a_reveal(), "an opening round would protect the lot");
    // The lot was drawn from the setup's seeded dice; making the draws verifiable opens the
    // table again, and the lot comes from the server seed (it was refused, and the table kept
    // the seeded dice, before).
    s.use_verifiable(ServerSeed::from_bytes([7; 32])).unwrap();
    assert!(lot(&s).is_some());
    let made = draws(&s);
    assert_eq!(made.len(), 1, "the lot is logged: {made:?}");
    assert_eq!((made[0].counter, made[0].mixes), (0, 0));
    let report = fairlog::verify(&fair_log(&s, &["plain"; 3])).unwrap();
    assert_eq!((report.draws, report.before_first_mix), (1, 1), "a verifier flags the foreseeable lot");
    let started = s
        .updates_since(Viewer::Spectator, 0)
        .iter()
        .filter(|u| matches!(u.item, Item::Event { event: Event::RoundStarted { .. }, .. }))
        .count();
    assert_eq!(started, 1, "the logs are written anew, the seeded opening gone");
    let seeds: std::collections::BTreeSet<_> = (0..16u8)
        .map(|b| {
            let mut s = Session::<IncitingIncident>::new(tied()).unwrap();
            s.use_verifiable(ServerSeed::from_bytes([b; 32])).unwrap();
            lot(&s)
        })
        .collect();
    assert_eq!(seeds.len(), 2, "the server seed decides the lot");
}

/// A table with seat 0 sealed, waiting for its opening round.
fn opening_table(seed: u8) -> Session<IncitingIncident> {
    let mut s = Session::<IncitingIncident>::new(tied()).unwrap();
    s.use_verifiable(ServerSeed::from_bytes([seed; 32])).unwrap();
    s.set_mode(SeatId(0), Mode::Sealed).unwrap();
    s.open_with_round().unwrap();
    s
}

fn nonce(b: u8) -> Nonce {
    Nonce::from_bytes([b; 32])
}

#[test]
fn the_opening_round_mixes_every_seat_in_before_the_rules_first_step() {
    let mut s = opening_table(7);
    assert!(s.opening());
    assert!(s.table().log().is_empty(), "the rules have not started");
    assert!(draws(&s).is_empty());
    assert_eq!(s.awaiting(), vec![SeatId(0), SeatId(1), SeatId(2)]);
    assert!(s.prompt(SeatId(1)).is_none());
    let round = s.round().unwrap();
    assert!(round.opening && !round.bound);
    // Seat 0 commits to {} with a nonce only it knows; the others' are the caller's.
    let commitment = Commitment::to_command(&opening_command(), &nonce(1)).unwrap();
    s.seal(SeatId(0), commitment).unwrap();
    s.force_bound(SeatId(1), None, nonce(2)).unwrap();
    assert!(matches!(s.undo(SeatId(2)), Err(SessionError::Sealing(_))), "nothing is undone meanwhile");
    s.force_bound(SeatId(2), None, nonce(3)).unwrap();
    let round = s.round().unwrap();
    assert!(round.bound && round.opening);
    assert_eq!(round.commitments.len(), 3);
    assert_eq!(s.awaiting(), vec![SeatId(0)], "the sealed seat reveals");
    assert!(s.table().log().is_empty(), "nothing before the reveal");
    assert_eq!(s.reveal_opening(SeatId(0), &opening_command(), nonce(1)).unwrap(), None);
    assert!(!s.opening() && s.round().is_none());
    assert!(lot(&s).is_some(), "the table opened, its lot drawn after the mix");
    let made = draws(&s);
    assert_eq!((made.len(), made[0].mixes), (1, 1));
    let report = fairlog::verify(&fair_log(&s, &["sealed", "plain", "plain"])).unwrap();
    assert_eq!(report.before_first_mix, 0, "no draw was left to the server seed alone");
    assert_eq!((report.mixes, report.reveals_checked), (1, 3));
    // The sealed seat's nonce decides the lot as much as the server seed does.
    let lots: std::collections::BTreeSet<_> = (10..26u8)
        .map(|b| {
            let mut s = opening_table(7);
            s.seal(SeatId(0), Commitment::to_command(&opening_command(), &nonce(b)).unwrap()).unwrap();
            s.force_bound(SeatId(1), None, nonce(2)).unwrap();
            s.force_bound(SeatId(2), None, nonce(3)).unwrap();
            s.reveal_opening(SeatId(0), &opening_command(), nonce(b)).unwrap();
            lot(&s)
        })
        .collect();
    assert_eq!(lots.len(), 2);
}

#[test]
fn a_sealed_seat_that_does_not_reveal_its_opening_faults_and_the_table_opens() {
    let mut s = opening_table(7);
    s.seal(SeatId(0), Commitment::to_command(&opening_command(), &nonce(1)).unwrap()).unwrap();
    // Before the binding a commitment may be taken back (a reload), without a fault.
    s.take_back(SeatId(0)).unwrap();
    assert_eq!(s.awaiting(), vec![SeatId(0), SeatId(1), SeatId(2)]);
    s.seal(SeatId(0), Commitment::to_command(&opening_command(), &nonce(1)).unwrap()).unwrap();
    s.force_bound(SeatId(1), None, nonce(2)).unwrap();
    s.force_bound(SeatId(2), None, nonce(3)).unwrap();
    assert!(matches!(s.take_back(SeatId(0)), Err(SessionError::Sealing(_))), "bound");
    // The decision timer runs out: seat 0 faults, and the mix goes on without its nonce.
    s.force_bound(SeatId(0), None, nonce(9)).unwrap();
    assert!(!s.opening());
    let items = s.updates_since(Viewer::Spectator, 0);
    assert!(
        items.iter().any(|u| matches!(&u.item, Item::Fault { seat: SeatId(0), fault: Fault::NO_REVEAL }))
    );
    assert!(items.iter().any(|u| matches!(&u.item, Item::Mix { round_nonces } if round_nonces[0].is_none() && round_nonces[1].is_some())));
    let report = fairlog::verify(&fair_log(&s, &["sealed", "plain", "plain"])).unwrap();
    assert_eq!(report.reveals_checked, 2);
}

#[test]
fn an_opening_reveal_that_does_not_match_or_is_not_the_empty_command_faults() {
    let mut s = opening_table(7);
    s.seal(SeatId(0), Commitment::to_command(&opening_command(), &nonce(1)).unwrap()).unwrap();
    assert!(matches!(
        s.reveal_opening(SeatId(0), &opening_command(), nonce(1)),
        Err(SessionError::Sealing(session::sealed::SealError::NotBound(0)))
    ));
    s.force_bound(SeatId(1), None, nonce(2)).unwrap();
    s.force_bound(SeatId(2), None, nonce(3)).unwrap();
    assert_eq!(s.reveal_opening(SeatId(0), &opening_command(), nonce(4)).unwrap(), Some(Fault::WrongNonce));
    assert!(!s.opening());

    let mut s = opening_table(7);
    let other = serde_json::json!({"pass": true});
    s.seal(SeatId(0), Commitment::to_command(&other, &nonce(1)).unwrap()).unwrap();
    s.force_bound(SeatId(1), None, nonce(2)).unwrap();
    s.force_bound(SeatId(2), None, nonce(3)).unwrap();
    assert!(matches!(s.reveal_opening(SeatId(0), &other, nonce(1)).unwrap(), Some(Fault::Illegal { .. })));
    assert!(lot(&s).is_some());
}

#[test]
fn a_rebuild_after_the_opening_round_makes_its_mix_before_the_rules_first_step() {
    // No sealed seat here: face-down choices are plain, and taking one back rebuilds the
    // table from its start — which must mix the opening round in before the lot again.
    let mut unmixed = Session::<IncitingIncident>::new(tied()).unwrap();
    unmixed.use_verifiable(ServerSeed::from_bytes([7; 32])).unwrap();
    // Nonces whose mix turns the lot the other way, so a rebuild that drew it before the mix
    // would show.
    let mut s = (1..40u8)
        .map(|b| {
            let mut s = Session::<IncitingIncident>::new(tied()).unwrap();
            s.use_verifiable(ServerSeed::from_bytes([7; 32])).unwrap();
            s.open_with_round().unwrap();
            for seat in 0..3 {
                s.force_bound(SeatId(seat), None, nonce(b.wrapping_add(seat as u8))).unwrap();
            }
            s
        })
        .find(|s| lot(s) != lot(&unmixed))
        .unwrap();
    let opened: Vec<Event> = s.table().log().to_vec();
    let seat = s.awaiting()[0];
    let prompt = s.prompt(seat).unwrap();
    let choice = prompt.choices.iter().find(|c| c.private).unwrap().command;
    s.submit(seat, &choice).unwrap();
    s.take_back(seat).unwrap();
    assert_eq!(s.table().log(), &opened[..], "the same opening, lot included");
}

#[test]
fn a_sealed_seats_opening_taken_for_it_is_public_and_a_plain_seats_is_not() {
    let mut s = opening_table(7);
    s.force_bound(SeatId(1), None, nonce(2)).unwrap();
    s.force_bound(SeatId(0), None, nonce(1)).unwrap();
    let forced: Vec<SeatId> = s
        .updates_since(Viewer::Spectator, 0)
        .into_iter()
        .filter_map(|u| match u.item {
            Item::Forced { seat } => Some(seat),
            _ => None,
        })
        .collect();
    assert_eq!(forced, vec![SeatId(0)]);
    assert!(matches!(s.force_bound(SeatId(0), None, nonce(5)), Err(SessionError::NotAwaited(0))));
    assert!(matches!(s.force_bound(SeatId(2), Some(SeatId(0)), nonce(3)), Err(SessionError::NotGm)));
    s.force_bound(SeatId(2), Some(SeatId(2)), nonce(3)).unwrap();
    assert!(!s.opening(), "no sealed commitment left to reveal: the table opened");
}
