//! Sealed rounds (commit–reveal) on every rule system: a game played sealed — seats committing
//! hashes, plain seats bound by nonces, reveals once bound — is the same game as played plainly;
//! nothing of a sealed choice is in the session before its reveal; wrong nonces, illegal
//! choices and missing reveals are public faults with the forced decision; a commitment may be
//! replaced until every awaited seat has committed.

use rand::{RngExt, SeedableRng};
use serde_json::Value;
use session::sealed::{Commitment, Fault, Mode, Nonce, SealError};
use session::{How, Item, Session, SessionError};
use table::{Ruleset, SeatId, Viewer};

mod common;
use common::nodice_brawl;

fn iron_triangle() -> iron_triangle::Setup {
    use iron_triangle::{Character, Energy, Setup};
    Setup::one_on_one(
        Character::with_starting_moves("Ada", Energy::new(3, 2, 5)),
        Character::with_starting_moves("Ninja", Energy::new(4, 3, 3)),
    )
}

fn river_fight() -> inciting_incident::Setup {
    let mut setup: inciting_incident::Setup =
        toml::from_str(include_str!("../../../examples/inciting-incident/river-fight.toml")).unwrap();
    setup.apply_round_limit(Some(6));
    setup
}

fn json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap()
}

/// The commitment to a command's JSON with a nonce (docs/fairness.md).
fn commit(command: &Value, nonce: &Nonce) -> Commitment {
    Commitment::to_command(command, nonce).unwrap()
}

/// A plain game of random answers to the prompts (a face-down question answered face down),
/// as the list of commands given.
fn plain_game<R: Ruleset>(
    setup: R::Setup,
    seed: u64,
    limit: usize,
) -> (Session<R>, Vec<(SeatId, R::Command)>) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut s = Session::<R>::new(setup).unwrap();
    let mut given = Vec::new();
    for _ in 0..limit {
        let Some(&seat) = s.awaiting().first() else { break };
        let Some(prompt) = s.prompt(seat) else { break };
        let choices: Vec<_> = prompt.choices.iter().filter(|c| c.private == prompt.private).collect();
        let command = choices[rng.random_range(0..choices.len())].command.clone();
        s.submit(seat, &command).unwrap();
        given.push((seat, command));
    }
    (s, given)
}

/// Plays `given` again with `modes`: a sealed round's commands committed (sealed seats by hash,
/// plain ones bound by a nonce) and revealed once bound.
fn sealed_game<R: Ruleset>(setup: R::Setup, modes: &[Mode], given: &[(SeatId, R::Command)]) -> Session<R> {
    let mut s = Session::<R>::new(setup).unwrap();
    for (i, m) in modes.iter().enumerate() {
        s.set_mode(SeatId(i as u16), *m).unwrap();
    }
    let mut to_reveal = Vec::new();
    for (k, (seat, command)) in given.iter().enumerate() {
        if !s.in_round(*seat) {
            assert!(s.round().is_none(), "a command outside a round while one is open");
            s.submit(*seat, command).unwrap();
            continue;
        }
        assert!(s.awaiting().contains(seat), "the round asks the seat the plain game asked");
        let nonce = Nonce::from_bytes([(k % 251) as u8; 32]);
        if s.mode(*seat) == Mode::Sealed {
            s.seal(*seat, commit(&json(command), &nonce)).unwrap();
            to_reveal.push((*seat, command.clone(), nonce));
        } else {
            s.submit_bound(*seat, command, nonce).unwrap();
        }
        if s.round().is_some_and(|r| r.bound) {
            for (seat, command, nonce) in to_reveal.drain(..) {
                assert_eq!(s.reveal(seat, &command, nonce), Ok(None));
            }
        }
    }
    s
}

/// The items of the spectators' log.
fn public<R: Ruleset>(s: &Session<R>) -> Vec<Item<R::Event>> {
    s.updates_since(Viewer::Spectator, 0).into_iter().map(|u| u.item).collect()
}

/// Every opened command and nonce hashes to the commitment bound for its decision, and no
/// fault was logged.
fn check_opened<R: Ruleset>(s: &Session<R>) -> usize {
    let mut bound: Vec<(SeatId, String)> = Vec::new();
    let mut opened = 0;
    for item in public(s) {
        match item {
            Item::Bound { commitments } => {
                bound.extend(commitments.into_iter().map(|c| (c.seat, c.commitment)))
            }
            Item::Opened { seat, command, nonce } => {
                let c = commit(&command, &nonce.parse::<Nonce>().unwrap()).to_string();
                let at = bound.iter().position(|b| *b == (seat, c.clone()));
                assert!(at.is_some(), "opened {seat:?} {command} matches no bound commitment");
                bound.remove(at.unwrap());
                opened += 1;
            }
            Item::Fault { seat, fault } => panic!("a fault for {seat:?}: {fault:?}"),
            _ => {}
        }
    }
    opened
}

fn same_game_sealed<R: Ruleset>(setup: R::Setup, modes: &[Mode], seed: u64, limit: usize) -> Session<R> {
    let (plain, given) = plain_game::<R>(setup.clone(), seed, limit);
    let sealed = sealed_game::<R>(setup, modes, &given);
    assert_eq!(
        json(&sealed.record().entries),
        json(&plain.record().entries),
        "the sealed game is the plain game"
    );
    assert_eq!(sealed.record().events_hash, plain.record().events_hash);
    assert_eq!(sealed.table().log(), plain.table().log());
    assert!(check_opened(&sealed) > 0, "some decision was sealed");
    sealed
}

#[test]
fn iron_triangle_played_sealed_is_the_same_game() {
    for seed in 0..4 {
        same_game_sealed::<iron_triangle::IronTriangle>(
            iron_triangle(),
            &[Mode::Sealed, Mode::Sealed],
            seed,
            400,
        );
        same_game_sealed::<iron_triangle::IronTriangle>(
            iron_triangle(),
            &[Mode::Sealed, Mode::Plain],
            seed,
            400,
        );
    }
}

#[test]
fn nodice_played_sealed_binds_every_actor_before_any_reveal() {
    for seed in 0..4 {
        let s = same_game_sealed::<nodice::NoDice>(
            nodice_brawl(),
            &[Mode::Sealed, Mode::Plain, Mode::Sealed],
            seed,
            300,
        );
        // The Commit steps are asked one Actor after another: the first round still binds all
        // three before anything is revealed.
        let first = public(&s).into_iter().find_map(|i| match i {
            Item::Bound { commitments } => Some(commitments),
            _ => None,
        });
        assert_eq!(first.map(|c| c.len()), Some(3));
    }
}

#[test]
fn inciting_incident_played_sealed_is_the_same_game() {
    let seats = Session::<inciting_incident::IncitingIncident>::new(river_fight()).unwrap();
    let n = inciting_incident::IncitingIncident::seats(seats.table().state()).len();
    let mut modes = vec![Mode::Sealed; n];
    modes[0] = Mode::Plain;
    for seed in 0..3 {
        same_game_sealed::<inciting_incident::IncitingIncident>(river_fight(), &modes, seed, 400);
    }
}

type It = iron_triangle::IronTriangle;

/// A duel with both seats sealed and the first stances of each seat's prompt.
fn duel() -> (Session<It>, [iron_triangle::Command; 2]) {
    let mut s = Session::<It>::new(iron_triangle()).unwrap();
    s.set_mode(SeatId(0), Mode::Sealed).unwrap();
    s.set_mode(SeatId(1), Mode::Sealed).unwrap();
    let pick = |s: &Session<It>, seat: u16, k: usize| {
        let p = s.prompt(SeatId(seat)).unwrap();
        assert!(p.private);
        p.choices.iter().filter(|c| c.private).nth(k).unwrap().command
    };
    let commands = [pick(&s, 0, 2), pick(&s, 1, 3)];
    (s, commands)
}

#[test]
fn between_commit_and_reveal_the_session_holds_only_hashes() {
    let (mut s, [a, b]) = duel();
    let before = json(s.table().state());
    let (na, nb) = (Nonce::from_bytes([1; 32]), Nonce::from_bytes([2; 32]));
    s.seal(SeatId(0), commit(&json(&a), &na)).unwrap();
    s.seal(SeatId(1), commit(&json(&b), &nb)).unwrap();
    assert!(s.round().unwrap().bound);
    // The rules' state did not move, the record holds nothing, the logs hold the hashes only.
    assert_eq!(json(s.table().state()), before);
    assert!(s.record().entries.is_empty());
    let everything = format!("{:?} {:?}", s.round(), s.updates_since(Viewer::Seat(SeatId(1)), 0));
    for command in [&a, &b] {
        let text = serde_json::to_string(command).unwrap();
        assert!(!everything.contains(&text) && !format!("{everything:?}").contains(&format!("{command:?}")));
    }
    assert!(everything.contains(&commit(&json(&a), &na).to_string()));
    assert_eq!(s.reveal(SeatId(0), &a, na), Ok(None));
    assert_eq!(s.awaiting(), vec![SeatId(1)]);
    assert_eq!(json(s.table().state()), before, "nothing reaches the rules before every reveal");
    assert_eq!(s.reveal(SeatId(1), &b, nb), Ok(None));
    assert!(s.round().is_none());
    assert_eq!(s.record().entries.len(), 2);
    assert_eq!(check_opened(&s), 2);
}

#[test]
fn a_wrong_nonce_is_a_public_fault_and_the_forced_decision() {
    let (mut s, [a, b]) = duel();
    s.seal(SeatId(0), commit(&json(&a), &Nonce::from_bytes([1; 32]))).unwrap();
    s.seal(SeatId(1), commit(&json(&b), &Nonce::from_bytes([2; 32]))).unwrap();
    assert_eq!(s.reveal(SeatId(1), &b, Nonce::from_bytes([9; 32])), Ok(Some(Fault::WrongNonce)));
    assert_eq!(
        s.reveal(SeatId(1), &b, Nonce::from_bytes([2; 32])),
        Err(SessionError::Sealing(SealError::NothingToReveal(1)))
    );
    assert_eq!(s.reveal(SeatId(0), &a, Nonce::from_bytes([1; 32])), Ok(None));
    let forced = It::forced(&Session::<It>::new(iron_triangle()).unwrap().table().state().clone(), SeatId(1));
    let entries = s.record().entries;
    assert_eq!(entries[1].seat, SeatId(1));
    assert_eq!(entries[1].how, How::Forced);
    assert_eq!(Some(entries[1].command), forced);
    for viewer in [Viewer::Spectator, Viewer::Seat(SeatId(0)), Viewer::Seat(SeatId(1))] {
        let items: Vec<_> = s.updates_since(viewer, 0).into_iter().map(|u| u.item).collect();
        let at = items.iter().position(|i| *i == Item::Fault { seat: SeatId(1), fault: Fault::WrongNonce });
        let at = at.expect("every viewer sees the fault");
        assert_eq!(items[at + 1], Item::Forced { seat: SeatId(1) });
    }
}

#[test]
fn an_illegal_revealed_choice_is_a_fault() {
    let (mut s, [a, _]) = duel();
    // Ada has 5 points of one energy at most: a stance of 9 is refused by the rules.
    let illegal = iron_triangle::Command::CommitStance {
        stance: iron_triangle::Stance::new(iron_triangle::Action::Attack, 9),
    };
    s.seal(SeatId(0), commit(&json(&a), &Nonce::from_bytes([1; 32]))).unwrap();
    s.seal(SeatId(1), commit(&json(&illegal), &Nonce::from_bytes([2; 32]))).unwrap();
    assert_eq!(s.reveal(SeatId(1), &illegal, Nonce::from_bytes([2; 32])), Ok(None));
    assert_eq!(s.reveal(SeatId(0), &a, Nonce::from_bytes([1; 32])), Ok(None));
    let fault = public(&s).into_iter().find_map(|i| match i {
        Item::Fault { seat, fault } => Some((seat, fault)),
        _ => None,
    });
    assert!(matches!(fault, Some((SeatId(1), Fault::Illegal { .. }))), "{fault:?}");
    assert_eq!(s.record().entries[1].how, How::Forced);
}

#[test]
fn no_reveal_before_the_deadline_is_a_fault() {
    let (mut s, [a, b]) = duel();
    s.seal(SeatId(0), commit(&json(&a), &Nonce::from_bytes([1; 32]))).unwrap();
    s.seal(SeatId(1), commit(&json(&b), &Nonce::from_bytes([2; 32]))).unwrap();
    assert_eq!(s.reveal(SeatId(0), &a, Nonce::from_bytes([1; 32])), Ok(None));
    s.force_bound(SeatId(1), None, Nonce::from_bytes([3; 32])).unwrap();
    assert!(public(&s).contains(&Item::Fault { seat: SeatId(1), fault: Fault::NO_REVEAL }));
    assert!(s.round().is_none());
    assert_eq!(s.record().entries.len(), 2);
}

/// docs/fairness.md §3, "A lost secret": once bound, a seat that says it lost its secret
/// faults at once — the missed reveal, with the reason — and the rules' default is taken.
#[test]
fn a_lost_secret_after_binding_is_a_missed_reveal_with_its_reason() {
    let (mut s, [a, b]) = duel();
    s.seal(SeatId(0), commit(&json(&a), &Nonce::from_bytes([1; 32]))).unwrap();
    s.seal(SeatId(1), commit(&json(&b), &Nonce::from_bytes([2; 32]))).unwrap();
    assert_eq!(s.reveal(SeatId(0), &a, Nonce::from_bytes([1; 32])), Ok(None));
    s.give_up(SeatId(1)).unwrap();
    let fault = public(&s).into_iter().find_map(|i| match i {
        Item::Fault { seat, fault } => Some((seat, fault)),
        _ => None,
    });
    assert_eq!(fault, Some((SeatId(1), Fault::SECRET_LOST)));
    assert_eq!(
        serde_json::to_value(&Fault::SECRET_LOST).unwrap(),
        serde_json::json!({"fault": "no_reveal", "reason": "secret_lost"})
    );
    assert_eq!(serde_json::to_value(&Fault::NO_REVEAL).unwrap(), serde_json::json!({"fault": "no_reveal"}));
    assert!(s.round().is_none(), "the round resolves: the table does not wait");
    assert_eq!(s.record().entries[1].how, How::Forced);
    assert_eq!(s.give_up(SeatId(1)), Err(SessionError::NothingToTakeBack(1)), "nothing left to give up");
}

/// docs/fairness.md §3, "A lost secret": before the binding, giving up is a take-back: no
/// fault, and the seat chooses again.
#[test]
fn a_lost_secret_before_binding_is_taken_back_without_a_fault() {
    let (mut s, [a, b]) = duel();
    s.seal(SeatId(0), commit(&json(&a), &Nonce::from_bytes([1; 32]))).unwrap();
    s.give_up(SeatId(0)).unwrap();
    assert!(s.round().is_none());
    assert!(s.awaiting().contains(&SeatId(0)), "asked again");
    s.seal(SeatId(0), commit(&json(&a), &Nonce::from_bytes([3; 32]))).unwrap();
    s.seal(SeatId(1), commit(&json(&b), &Nonce::from_bytes([2; 32]))).unwrap();
    assert_eq!(s.reveal(SeatId(0), &a, Nonce::from_bytes([3; 32])), Ok(None));
    assert_eq!(s.reveal(SeatId(1), &b, Nonce::from_bytes([2; 32])), Ok(None));
    assert!(!public(&s).iter().any(|i| matches!(i, Item::Fault { .. })));
    assert_eq!(check_opened(&s), 2);
}

#[test]
fn a_commitment_is_replaced_without_a_fault_until_every_seat_committed() {
    let (mut s, [a, b]) = duel();
    let first = commit(&json(&b), &Nonce::from_bytes([5; 32]));
    s.seal(SeatId(0), first).unwrap();
    let second = commit(&json(&a), &Nonce::from_bytes([1; 32]));
    s.seal(SeatId(0), second).unwrap();
    assert_eq!(s.round().unwrap().committed, vec![SeatId(0)], "replaced, not added");
    s.take_back(SeatId(1)).unwrap_err();
    s.seal(SeatId(1), commit(&json(&b), &Nonce::from_bytes([2; 32]))).unwrap();
    let r = s.round().unwrap();
    assert!(r.bound);
    assert_eq!(r.commitments[0].commitment, second.to_string());
    assert_eq!(s.seal(SeatId(0), first), Err(SessionError::Sealing(SealError::Bound(0))));
    assert_eq!(s.take_back(SeatId(0)), Err(SessionError::Sealing(SealError::Bound(0))));
    assert_eq!(s.reveal(SeatId(0), &a, Nonce::from_bytes([1; 32])), Ok(None));
    assert_eq!(s.reveal(SeatId(1), &b, Nonce::from_bytes([2; 32])), Ok(None));
    assert_eq!(check_opened(&s), 2);
}

#[test]
fn a_sealed_round_refuses_what_does_not_fit() {
    let (mut s, [a, b]) = duel();
    assert_eq!(s.submit(SeatId(0), &a), Err(SessionError::Sealing(SealError::NeedsNonce(0))));
    assert_eq!(
        s.reveal(SeatId(0), &a, Nonce::from_bytes([1; 32])),
        Err(SessionError::Sealing(SealError::NothingToReveal(0)))
    );
    s.seal(SeatId(0), commit(&json(&a), &Nonce::from_bytes([1; 32]))).unwrap();
    assert_eq!(
        s.reveal(SeatId(0), &a, Nonce::from_bytes([1; 32])),
        Err(SessionError::Sealing(SealError::NotBound(0)))
    );
    assert!(matches!(s.undo(SeatId(1)), Err(SessionError::Sealing(SealError::RoundOpen))));
    // Taking back a commitment before the binding asks the seat again.
    s.take_back(SeatId(0)).unwrap();
    assert!(s.round().is_none());
    assert_eq!(s.awaiting(), vec![SeatId(0), SeatId(1)]);
    // A plain seat's illegal command is refused at once; nothing changes.
    s.set_mode(SeatId(1), Mode::Plain).unwrap();
    let illegal = iron_triangle::Command::CommitStance {
        stance: iron_triangle::Stance::new(iron_triangle::Action::Attack, 9),
    };
    assert!(matches!(
        s.submit_bound(SeatId(1), &illegal, Nonce::from_bytes([2; 32])),
        Err(SessionError::Rules(_))
    ));
    assert!(s.round().is_none(), "a refused command opens no round");
    s.submit_bound(SeatId(1), &b, Nonce::from_bytes([2; 32])).unwrap();
    assert_eq!(s.awaiting(), vec![SeatId(0)]);
    assert_eq!(s.prompt(SeatId(1)), None);
    assert!(s.prompt(SeatId(0)).is_some());
}

#[test]
fn a_timer_before_the_binding_holds_the_forced_decision_like_a_plain_one() {
    let (mut s, [a, _]) = duel();
    s.seal(SeatId(0), commit(&json(&a), &Nonce::from_bytes([1; 32]))).unwrap();
    // Seat 1 has not committed: its default is bound by the caller's nonce, then the round binds.
    s.force_bound(SeatId(1), None, Nonce::from_bytes([4; 32])).unwrap();
    let r = s.round().unwrap();
    assert!(r.bound);
    assert_eq!(r.revealing, vec![SeatId(0)]);
    assert_eq!(s.reveal(SeatId(0), &a, Nonce::from_bytes([1; 32])), Ok(None));
    let entries = s.record().entries;
    assert_eq!((entries[1].seat, entries[1].how), (SeatId(1), How::Forced));
    let items = public(&s);
    assert!(items.contains(&Item::Forced { seat: SeatId(1) }));
    assert!(!items.iter().any(|i| matches!(i, Item::Fault { .. })), "a timer before the binding is no fault");
    assert_eq!(check_opened(&s), 2);
}

/// A game played sealed from the start, every seat sealed: each asked seat commits to a
/// command its prompt offers — one `prefer` picks whenever offered, else a random one — and
/// every seat reveals once the round is bound.
fn sealed_random_game<R: Ruleset>(
    setup: R::Setup,
    seed: u64,
    limit: usize,
    prefer: impl Fn(&R::Command) -> bool,
) -> (Session<R>, usize) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut s = Session::<R>::new(setup).unwrap();
    s.use_verifiable(table::fairness::ServerSeed::from_bytes([7; 32])).unwrap();
    let seats = R::seats(s.table().state()).len();
    for i in 0..seats {
        s.set_mode(SeatId(i as u16), Mode::Sealed).unwrap();
    }
    let mut to_reveal = Vec::new();
    let mut preferred = 0;
    for k in 0..limit {
        let Some(&seat) = s.awaiting().first() else { break };
        let Some(prompt) = s.prompt(seat) else { break };
        let command = match prompt.choices.iter().find(|c| prefer(&c.command)) {
            Some(c) => {
                preferred += 1;
                c.command.clone()
            }
            None => {
                let choices: Vec<_> = prompt.choices.iter().filter(|c| c.private == prompt.private).collect();
                choices[rng.random_range(0..choices.len())].command.clone()
            }
        };
        if !s.in_round(seat) {
            s.submit(seat, &command).unwrap();
            continue;
        }
        let nonce = Nonce::from_bytes([(k % 251) as u8; 32]);
        s.seal(seat, commit(&json(&command), &nonce)).unwrap();
        to_reveal.push((seat, command, nonce));
        if s.round().is_some_and(|r| r.bound) {
            for (seat, command, nonce) in to_reveal.drain(..) {
                s.reveal(seat, &command, nonce).unwrap();
            }
        }
    }
    (s, preferred)
}

/// What a verifier says of the spectators' verifiable log of `s`, every seat sealed.
fn verified<R: Ruleset>(s: &Session<R>) -> Result<session::fairlog::Report, session::fairlog::VerifyError> {
    let seats: Vec<session::fairlog::SeatEntry> = R::seats(s.table().state())
        .iter()
        .map(|(_, seat)| session::fairlog::SeatEntry { name: seat.name.clone(), mode: "sealed".into() })
        .collect();
    let commitment = s.server_seed_commitment().unwrap();
    let table =
        session::fairlog::table_entry(R::NAME, s.setup_commitment().as_ref(), &seats, Some(&commitment));
    let updates = s.updates_since(Viewer::Spectator, 0);
    let entries = std::iter::once(table).chain(updates.iter().map(|u| serde_json::to_value(u).unwrap()));
    let (log, _) = session::fairlog::write(entries).unwrap();
    session::fairlog::verify(&log)
}

/// Rules reference §6, Drunken Monkey ("swap your revealed move for a random one"), and
/// docs/fairness.md §7.2: Iron Triangle's only draw follows the reveal of the pair's face-down
/// moves, so a table played sealed with no opening round leaves no draw to the server seed
/// alone, and the ruleset says it needs no opening round. (Only Ada knows the special: two
/// Drunken Monkeys played in one window cancel.)
#[test]
fn iron_triangle_draws_nothing_before_a_reveal() {
    use iron_triangle::{Command, IronTriangle, special::Special};
    let drunk = |name: &str, energy| {
        let mut c = iron_triangle::Character::with_starting_moves(name, energy);
        c.level = 10;
        c.specials = vec![Special::DrunkenMonkey];
        c
    };
    let setup = iron_triangle::Setup::one_on_one(
        drunk("Ada", iron_triangle::Energy::new(5, 5, 5)),
        iron_triangle::Character::with_starting_moves("Oni", iron_triangle::Energy::new(5, 5, 5)),
    );
    assert!(!Session::<IronTriangle>::new(setup.clone()).unwrap().draws_before_a_reveal());
    // Drunken Monkey played and its swap taken whenever offered: many draws.
    let draws = no_draw_before_the_first_mix::<IronTriangle>(setup, 8, 2000, |c| {
        matches!(c, Command::DrunkenSwap { swap: true })
            || matches!(c, Command::PlaySpecial { card: Some(card), .. } if card.special == Special::DrunkenMonkey)
    });
    assert!(draws > 0, "Drunken Monkey swaps were drawn");
}

/// Plays `seeds` games of `setup` sealed from the start with no opening round (see
/// [`sealed_random_game`]), checks that a verifier finds no draw before the first mix in any,
/// and gives the number of draws made in all.
fn no_draw_before_the_first_mix<R: Ruleset>(
    setup: R::Setup,
    seeds: u64,
    limit: usize,
    prefer: impl Fn(&R::Command) -> bool + Copy,
) -> u64 {
    let mut draws = 0;
    for seed in 0..seeds {
        let (s, _) = sealed_random_game::<R>(setup.clone(), seed, limit, prefer);
        let report = verified(&s).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(report.before_first_mix, 0, "seed {seed}: a draw before the first mix: {report}");
        draws += report.draws;
    }
    draws
}

/// No Dice (seed: Pay the Ante Pot) and docs/fairness.md §7.2: the Conflict's only draw pays a
/// pot token blind, and a pot holds only the tokens of anted cards (and a jackpot of earlier
/// pots), paid after the face-down aspects' reveal; so a table played sealed with no opening
/// round leaves no draw to the server seed alone, and the ruleset says it needs no opening
/// round.
#[test]
fn nodice_draws_nothing_before_a_reveal() {
    assert!(!Session::<nodice::NoDice>::new(nodice_brawl()).unwrap().draws_before_a_reveal());
    let draws = no_draw_before_the_first_mix::<nodice::NoDice>(nodice_brawl(), 24, 3000, |_| false);
    assert!(draws > 0, "pot tokens were drawn");
}

#[test]
fn a_choice_left_face_down_by_its_round_is_opened_at_its_reveal_and_its_nonce_not_mixed_before() {
    // docs/fairness.md §3: an Iron Triangle winner who ends the combo (a public command) beside
    // the other fighter's face-down stance ends the round with that stance still face down.
    let mut cases = 0;
    for seed in 0..12 {
        let (sealed, ended) =
            sealed_random_game::<iron_triangle::IronTriangle>(iron_triangle(), seed, 600, |c| {
                matches!(c, iron_triangle::Command::EndCombo)
            });
        if ended == 0 {
            continue;
        }
        cases += 1;
        // Every nonce a mix shows is opened with its command before the next round is bound,
        // and every commitment is opened once the rules reveal its command.
        let mut unopened: Vec<(SeatId, String)> = Vec::new();
        let mut mixed: Vec<(SeatId, String)> = Vec::new();
        // Per fighter (the duel's seat numbers): face-down cards on the table not yet revealed.
        let mut face_down = [0usize; 2];
        let mut mixes = 0;
        for item in public(&sealed) {
            use iron_triangle::Event as E;
            match item {
                Item::Event { event: E::StanceCommitted { fighter, stance: None }, .. } => {
                    face_down[fighter.0 as usize] += 1
                }
                Item::Event { event: E::MoveCommitted { fighter, play: None }, .. } => {
                    face_down[fighter.0 as usize] += 1
                }
                Item::Event { event: E::StancesRevealed { .. } | E::MovesRevealed { .. }, .. } => {
                    face_down = [0, 0]
                }
                Item::Bound { commitments } => {
                    assert!(mixed.is_empty(), "seed {seed}: a mixed nonce never opened: {mixed:?}");
                    unopened.extend(commitments.into_iter().map(|c| (c.seat, c.commitment)));
                }
                Item::Mix { round_nonces } => {
                    mixes += 1;
                    for (i, n) in round_nonces.iter().enumerate() {
                        assert!(
                            n.is_none() || face_down[i] == 0,
                            "seed {seed}: seat {i}'s nonce shown while its card is face down"
                        );
                        if let Some(n) = n {
                            mixed.push((SeatId(i as u16), n.clone()));
                        }
                    }
                }
                Item::Opened { seat, command, nonce } => {
                    let c = commit(&command, &nonce.parse::<Nonce>().unwrap()).to_string();
                    let at = unopened.iter().position(|b| *b == (seat, c.clone()));
                    assert!(at.is_some(), "seed {seed}: opened {seat:?} {command} matches no commitment");
                    assert_eq!(
                        face_down[usize::from(seat.0)],
                        0,
                        "seed {seed}: {command} opened while face down"
                    );
                    unopened.remove(at.unwrap());
                    mixed.retain(|m| *m != (seat, nonce.clone()));
                }
                _ => {}
            }
        }
        assert!(mixes > 0, "the draws are verifiable: each round is mixed");
        // And the verifiable log says so to a verifier, who carries the stance left face down.
        verified(&sealed).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        if sealed.is_over() {
            assert!(unopened.is_empty(), "seed {seed}: commitments never opened: {unopened:?}");
        }
    }
    assert!(cases > 0, "some game ended a combo");
}

#[test]
fn a_sealed_seat_asked_again_in_a_round_is_asked_after_its_own_choices_not_the_stand_ins() {
    // The river fight's GM declares for Y'ras'byn and the Cult captain before one reveal. Sealed,
    // it declares for the captain first: the session, which does not know that, plays the
    // stand-in (a declaration for Y'ras'byn) and asks about the captain; the branches ask the
    // GM about Y'ras'byn after its own declaration for the captain.
    type Ii = inciting_incident::IncitingIncident;
    let mut s = Session::<Ii>::new(river_fight()).unwrap();
    let gm = SeatId(2);
    s.set_mode(gm, Mode::Sealed).unwrap();
    let first = s.prompt(gm).unwrap();
    let for_captain = first
        .choices
        .iter()
        .rev()
        .find(|c| c.private)
        .map(|c| c.command)
        .expect("a declaration for the captain");
    let for_yras = first.choices.iter().find(|c| c.private).map(|c| c.command).unwrap();
    let name =
        |c: &inciting_incident::Command| serde_json::to_value(c).unwrap()["declare"]["character"].clone();
    assert_ne!(name(&for_captain), name(&for_yras), "the GM's first prompt offers both fighters");
    let (n1, n2) = (Nonce::from_bytes([1; 32]), Nonce::from_bytes([2; 32]));
    s.seal(gm, commit(&json(&for_captain), &n1)).unwrap();
    let stand_in = s.prompt(gm).expect("asked again");
    assert!(stand_in.choices.iter().filter(|c| c.private).all(|c| name(&c.command) == name(&for_captain)));
    let branches = s.own_branches(gm).expect("branches");
    let mine =
        branches.iter().find(|b| b.earlier.contains(&vec![for_captain])).expect("a branch after its choice");
    let second = mine.prompt.choices.iter().find(|c| c.private).map(|c| c.command).unwrap();
    assert_eq!(name(&second), name(&for_yras), "asked about the fighter it has not declared for");
    s.seal(gm, commit(&json(&second), &n2)).unwrap();
    for seat in [SeatId(0), SeatId(1)] {
        let p = s.prompt(seat).unwrap();
        let c = p.choices.iter().find(|c| c.private).unwrap().command;
        s.submit_bound(seat, &c, Nonce::from_bytes([seat.0 as u8 + 5; 32])).unwrap();
    }
    assert_eq!(s.reveal(gm, &for_captain, n1).unwrap(), None);
    assert_eq!(s.reveal(gm, &second, n2).unwrap(), None);
    assert!(s.round().is_none(), "revealed");
    assert!(!public(&s).iter().any(|i| matches!(i, Item::Fault { .. })), "no fault: {:?}", public(&s));
    // Plain seats, and a sealed seat asked once, have no branches.
    assert!(s.own_branches(SeatId(0)).is_none());
}

/// docs/fairness.md §3, "A decision the rules never take": every seat of the river fight
/// sealed, the GM commits the end of the scene before the players commit their declarations.
/// Bound and revealed, the GM's end comes first: the scene is over and the players' declarations
/// are never given to the rules. They are withdrawn — their nonces not mixed, never opened — so
/// the log verifies (it named the mix: "seat 0's nonce … is not one the seat revealed").
#[test]
fn decisions_a_gms_end_of_the_scene_leaves_untaken_are_withdrawn_neither_mixed_nor_opened() {
    type Ii = inciting_incident::IncitingIncident;
    let mut s = Session::<Ii>::new(river_fight()).unwrap();
    s.use_verifiable(table::fairness::ServerSeed::from_bytes([7; 32])).unwrap();
    for i in 0..3 {
        s.set_mode(SeatId(i), Mode::Sealed).unwrap();
    }
    let gm = SeatId(2);
    let end = inciting_incident::Command::EndScene { winner: None };
    let mut reveals = vec![(gm, end, Nonce::from_bytes([9; 32]))];
    s.seal(gm, commit(&json(&end), &reveals[0].2)).unwrap();
    for seat in [SeatId(0), SeatId(1)] {
        let c = s.prompt(seat).unwrap().choices.iter().find(|c| c.private).unwrap().command;
        let nonce = Nonce::from_bytes([seat.0 as u8 + 1; 32]);
        s.seal(seat, commit(&json(&c), &nonce)).unwrap();
        reveals.push((seat, c, nonce));
    }
    // The GM is asked for its second fighter after the stand-in of its first.
    while !s.round().is_some_and(|r| r.bound) {
        let c = s.prompt(gm).unwrap().choices.iter().find(|c| c.private).unwrap().command;
        let nonce = Nonce::from_bytes([0x33; 32]);
        s.seal(gm, commit(&json(&c), &nonce)).unwrap();
        reveals.push((gm, c, nonce));
    }
    for (seat, command, nonce) in reveals {
        assert_eq!(s.reveal(seat, &command, nonce), Ok(None));
    }
    assert!(s.is_over(), "the GM ended the scene");
    let items = public(&s);
    let mix = items.iter().find_map(|i| match i {
        Item::Mix { round_nonces } => Some(round_nonces.clone()),
        _ => None,
    });
    assert_eq!(mix.expect("mixed")[..2], [None, None], "the players' withdrawn nonces are not mixed");
    assert!(
        !items.iter().any(|i| matches!(i, Item::Opened { seat, .. } if *seat != gm)),
        "the players' withdrawn declarations are not opened"
    );
    verified(&s).unwrap();
}

/// docs/fairness.md §3, §5.2 (found by the server's `sealed_logs` property with the rules
/// replay): a seat asked twice in one round — the GM declares face down for its fighter, then
/// ends the scene in public — has each decision judged on its own. The end of the scene is
/// face up once the round is played: its nonce is the GM's in the mix and it is opened, while
/// the face-down declarations wait for their reveal. The GM's whole seat used to be treated as
/// face down, so the end of the scene was applied with its nonce left out of the mix.
#[test]
fn a_seats_public_decision_is_mixed_and_opened_though_its_other_decision_stays_face_down() {
    type Ii = inciting_incident::IncitingIncident;
    let mut s = Session::<Ii>::new(river_fight()).unwrap();
    s.use_verifiable(table::fairness::ServerSeed::from_bytes([7; 32])).unwrap();
    for i in 0..3 {
        s.set_mode(SeatId(i), Mode::Sealed).unwrap();
    }
    let gm = SeatId(2);
    let mut reveals = Vec::new();
    // The GM declares face down first, then the players, then the GM ends the scene.
    let declare = s.prompt(gm).unwrap().choices.iter().find(|c| c.private).unwrap().command;
    let declare_nonce = Nonce::from_bytes([0x44; 32]);
    s.seal(gm, commit(&json(&declare), &declare_nonce)).unwrap();
    reveals.push((gm, declare, declare_nonce));
    for seat in [SeatId(0), SeatId(1)] {
        let c = s.prompt(seat).unwrap().choices.iter().find(|c| c.private).unwrap().command;
        let nonce = Nonce::from_bytes([seat.0 as u8 + 1; 32]);
        s.seal(seat, commit(&json(&c), &nonce)).unwrap();
        reveals.push((seat, c, nonce));
    }
    let end = inciting_incident::Command::EndScene { winner: Some(0) };
    let end_nonce = Nonce::from_bytes([9; 32]);
    while !s.round().is_some_and(|r| r.bound) {
        s.seal(gm, commit(&json(&end), &end_nonce)).unwrap();
        reveals.push((gm, end, end_nonce));
    }
    for (seat, command, nonce) in reveals {
        assert_eq!(s.reveal(seat, &command, nonce), Ok(None));
    }
    assert!(s.is_over(), "the GM ended the scene");
    let items = public(&s);
    let mix = items.iter().position(|i| matches!(i, Item::Mix { .. })).expect("mixed");
    let Item::Mix { round_nonces } = &items[mix] else { unreachable!() };
    assert_eq!(round_nonces[2], Some(end_nonce.to_string()), "the GM's public end of the scene is mixed");
    assert!(
        items.iter().any(|i| matches!(i, Item::Opened { seat, nonce, .. } if *seat == gm && *nonce == end_nonce.to_string())),
        "the end of the scene is opened"
    );
    verified(&s).unwrap();
}
