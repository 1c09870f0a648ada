//! Every verifiable log the server writes verifies, whatever order the seats commit in
//! (docs/fairness.md §3, §7): real sealed rounds of all three systems, opened from the server's
//! own examples as the server opens them (`server::systems`), with random seat modes, random
//! commit orders, take-backs, lost secrets given up, wrong nonces, the GM's rulings (its end of
//! the scene among them, given from the GM link or committed sealed as the GM seat's decision)
//! and forced decisions;
//! every viewer's log checked by `session::fairlog::verify`, the engine of `facedown verify`.

use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use server::protocol::SetupSource;
use server::systems::{self, Hosted};
use session::fairlog::{self, SeatEntry};
use session::replay::{self, ReplayError};
use session::sealed::{Commitment, Mode, Nonce};
use table::fairness::ServerSeed;
use table::{Role, SeatId, Viewer};

/// The games: each system's examples with a GM seat, and one without.
const GAMES: &[(&str, &str)] = &[
    ("inciting-incident", "river-fight"),
    ("inciting-incident", "three-factions"),
    ("nodice", "brawl-clusters"),
    ("nodice", "brawl-3"),
    ("iron-triangle", "duel"),
    ("iron-triangle", "ambush-2v3"),
];

/// GM rulings worth trying in each system, beside those the GM seat's prompt offers.
fn rulings(system: &str) -> Vec<Value> {
    match system {
        "inciting-incident" => vec![
            json!({"end_scene": {"winner": null}}),
            json!({"end_scene": {"winner": 1}}),
            json!({"rest_scene": {"full_day": false}}),
            json!({"spend_tension": {"side": 0, "strikes": 1}}),
        ],
        "nodice" => vec![json!("end_conflict")],
        _ => vec![
            json!({"adjust_energy": {"fighter": 0, "energy": {"defend": 1, "grapple": 1, "attack": 1}, "reason": "a fall"}}),
        ],
    }
}

fn nonce(rng: &mut ChaCha8Rng) -> Nonce {
    Nonce::from_bytes(rng.random())
}

/// A sealed seat's commitments in the open round, oldest first, with what it will reveal.
type Kept = Vec<Vec<(Value, Nonce)>>;

/// The choices `seat` is offered now: its prompt's commands (a sealed seat asked again: any
/// branch's too).
fn choices(game: &dyn Hosted, seat: SeatId) -> Vec<Value> {
    let Ok(Some(prompt)) = game.prompt(seat) else { return Vec::new() };
    let mut out: Vec<Value> =
        prompt["choices"].as_array().into_iter().flatten().map(|c| c["command"].clone()).collect();
    for branch in prompt["branches"].as_array().into_iter().flatten() {
        out.extend(
            branch["prompt"]["choices"].as_array().into_iter().flatten().map(|c| c["command"].clone()),
        );
    }
    out
}

/// Plays `steps` random requests at a table of `system` opened from `example` as the server
/// opens one, and gives it back.
fn play(system: &str, example: &str, seed: u64, steps: usize) -> Box<dyn Hosted> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (_, mut game) = systems::read_and_open(system, &SetupSource::Example(example.into())).unwrap();
    let seats = game.seats().len();
    let gm = game.seats().iter().find(|(_, s)| s.role == Role::Gm).map(|(id, _)| id);
    // As the hub creates a table: verifiable draws, a rotation key, an opening round when the
    // rules may draw before a reveal and a seat is sealed (or as asked), then the seats' modes.
    let modes: Vec<Mode> =
        (0..seats).map(|_| if rng.random_bool(0.6) { Mode::Sealed } else { Mode::Plain }).collect();
    let sealed = modes.contains(&Mode::Sealed);
    let opening = match rng.random_range(0..4) {
        0 => false,
        1 => true,
        _ => sealed && game.draws_before_a_reveal(),
    };
    game.use_verifiable(ServerSeed::from_bytes(rng.random())).unwrap();
    game.rotate_with(ServerSeed::from_bytes(rng.random())).unwrap();
    if opening {
        game.open_with_round().unwrap();
    }
    for (i, m) in modes.iter().enumerate() {
        game.set_mode(SeatId(i as u16), *m).unwrap();
    }
    let rulings = rulings(system);
    // How often the GM rules, per 200 steps: never, now and then, often.
    let ruling_rate = [0, 1, 4][rng.random_range(0..3)];
    let mut kept: Kept = vec![Vec::new(); seats];
    // In about a third of the games a sealed seat now and then loses its secret and gives its
    // choice up (docs/fairness.md §3, "A lost secret"); drawn apart, so that the other games
    // (and the seeds of the regressions file) play as they did before.
    let mut lose = ChaCha8Rng::seed_from_u64(seed ^ 0x105e_5ec7);
    let losing = lose.random_bool(0.33);
    for _ in 0..steps {
        let round = game.round();
        if round.is_none() {
            for k in &mut kept {
                k.clear();
            }
        }
        let pick = rng.random_range(0..200);
        // The GM's rulings, from the GM link (given on the GM seat's behalf, bound by a nonce).
        if let Some(gm) = gm
            && pick < ruling_rate
        {
            let mut offered: Vec<Value> =
                choices(&*game, gm).into_iter().filter(|c| game.is_gm_ruling(c) == Ok(true)).collect();
            offered.extend(rulings.iter().cloned());
            let ruling = offered[rng.random_range(0..offered.len())].clone();
            let _ = game.submit_bound(gm, &ruling, &nonce(&mut rng));
            continue;
        }
        // Forced decisions: the GM's, or the timer's.
        if (3..9).contains(&pick) {
            let awaiting = game.awaiting();
            if awaiting.is_empty() {
                continue;
            }
            let seat = awaiting[rng.random_range(0..awaiting.len())];
            let by = if rng.random_bool(0.5) { gm } else { None };
            let bound = round.as_ref().is_some_and(|r| r.bound && !r.opening);
            // After the binding, the seat's first unrevealed decision faults (no reveal).
            if game.force_bound(seat, by, &nonce(&mut rng)).is_ok()
                && bound
                && !kept[usize::from(seat.0)].is_empty()
            {
                kept[usize::from(seat.0)].remove(0);
            }
            continue;
        }
        // A client seed now and then.
        if (9..11).contains(&pick) {
            let seat = SeatId(rng.random_range(0..seats) as u16);
            let _ = game.add_client_seed(seat, &hex::encode(rng.random::<[u8; 32]>()));
            continue;
        }
        if let Some(r) = round.as_ref().filter(|r| r.bound) {
            // The reveals, in a random order; now and then a wrong nonce.
            if r.revealing.is_empty() {
                continue;
            }
            let seat = r.revealing[rng.random_range(0..r.revealing.len())];
            let k = usize::from(seat.0);
            if kept[k].is_empty() {
                continue;
            }
            if losing && lose.random_bool(0.1) {
                // Its secret is lost: each of its decisions not yet revealed faults.
                game.give_up(seat).unwrap();
                kept[k].clear();
                continue;
            }
            let (command, n) = kept[k].remove(0);
            let n = if rng.random_bool(0.05) { nonce(&mut rng) } else { n };
            game.reveal(seat, &command, &n.to_string()).unwrap();
            continue;
        }
        let awaiting = game.awaiting();
        if awaiting.is_empty() {
            if game.is_over() {
                // After the end: a Rest Scene, or nothing more.
                if let Some(gm) = gm
                    && rng.random_bool(0.3)
                {
                    let offered = choices(&*game, gm);
                    if !offered.is_empty() {
                        let c = offered[rng.random_range(0..offered.len())].clone();
                        let _ = game.submit_bound(gm, &c, &nonce(&mut rng));
                        continue;
                    }
                }
                break;
            }
            continue;
        }
        let seat = awaiting[rng.random_range(0..awaiting.len())];
        let k = usize::from(seat.0);
        if round.as_ref().is_some_and(|r| r.opening) {
            // The opening round: `{}`, sealed or bound by the server's nonce.
            let n = nonce(&mut rng);
            if game.mode(seat) == Mode::Sealed {
                let c = Commitment::to_command(&json!({}), &n).unwrap();
                if game.seal(seat, &c.to_string()).is_ok() {
                    kept[k] = vec![(json!({}), n)];
                }
            } else {
                let _ = game.force_bound(seat, None, &n);
            }
            continue;
        }
        // A take-back now and then.
        if rng.random_bool(0.05) {
            // Before the binding, a lost secret is a take-back like any other.
            let taken =
                if losing && lose.random_bool(0.5) { game.give_up(seat) } else { game.take_back(seat) };
            if taken.is_ok() && game.mode(seat) == Mode::Sealed {
                kept[k].pop();
            }
            continue;
        }
        let mut offered = choices(&*game, seat);
        // A sealed GM seat may commit a ruling as its decision (the end of the scene).
        if Some(seat) == gm && rng.random_bool(0.05) {
            offered = rulings.clone();
        }
        if offered.is_empty() {
            continue;
        }
        let command = offered[rng.random_range(0..offered.len())].clone();
        let n = nonce(&mut rng);
        if game.mode(seat) == Mode::Sealed && game.in_round(seat) {
            let c = Commitment::to_command(&command, &n).unwrap();
            if game.seal(seat, &c.to_string()).is_ok() {
                kept[k].push((command, n));
            }
        } else {
            let _ = game.submit_bound(seat, &command, &n);
        }
    }
    game
}

/// `viewer`'s verifiable log of `game`, as the server serves it.
fn fair_log(game: &dyn Hosted, system: &str, viewer: Viewer) -> String {
    let seats: Vec<SeatEntry> = game
        .seats()
        .iter()
        .enumerate()
        .map(|(i, (_, s))| SeatEntry {
            name: s.name.clone(),
            mode: if game.mode(SeatId(i as u16)) == Mode::Sealed { "sealed" } else { "plain" }.into(),
        })
        .collect();
    let table = fairlog::table_entry(
        system,
        game.setup_commitment().as_ref(),
        &seats,
        game.server_seed_commitment().as_ref(),
    );
    let entries = std::iter::once(table).chain(game.updates_since(viewer, 0));
    fairlog::write(entries).unwrap().0
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(48)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// docs/fairness.md §3 and §7.1: whatever order the seats commit in, and whatever the GM
    /// rules or forces, every viewer's log verifies.
    #[test]
    fn every_log_verifies_whatever_the_commit_order_and_the_gms_rulings(
        game in 0..GAMES.len(),
        seed in any::<u64>(),
    ) {
        let (system, example) = GAMES[game];
        let played = play(system, example, seed, 400);
        let seats = played.seats().len();
        let viewers = std::iter::once(Viewer::Spectator).chain((0..seats).map(|i| Viewer::Seat(SeatId(i as u16))));
        for viewer in viewers {
            let log = fair_log(&*played, system, viewer);
            if let Err(e) = fairlog::verify(&log) {
                prop_assert!(false, "{system} {example}, seed {seed}, {viewer:?}: {e}");
            }
            // §7.3: a genuine log is never called a forgery by the rules replay either, and a
            // finished one is replayed whatever it holds (a face-down choice taken back after
            // its events at a table of plain seats among them): only a log with no revealed
            // record is left for later.
            match replay(system, &log) {
                Ok(_) | Err(ReplayError::NotYet(_)) => {}
                Err(e) => prop_assert!(false, "{system} {example}, seed {seed}, {viewer:?}: replay: {e}"),
            }
        }
    }
}

/// docs/fairness.md §7.3: the rules replay of `log`, with the rules of `system`.
fn replay(system: &str, log: &str) -> Result<replay::ReplayReport, ReplayError> {
    match system {
        "iron-triangle" => replay::replay::<iron_triangle::IronTriangle>(log),
        "nodice" => replay::replay::<nodice::NoDice>(log),
        _ => replay::replay::<inciting_incident::IncitingIncident>(log),
    }
}
