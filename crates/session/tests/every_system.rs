//! The session's invariants, checked on every rule system with random legal play:
//! every viewer's log has the same length; a face-down choice is in no other viewer's log
//! before its reveal; a record taken at any point resumes and continues identically; bots
//! play the seats they control to the end.

use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use session::{Control, Item, Record, ResumeError, Session};
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
    setup.apply_round_limit(Some(12));
    setup
}

/// Plays one random legal command for the first seat awaited and returns it; `None` when no
/// seat is awaited.
fn step<R: Ruleset>(s: &mut Session<R>, rng: &mut rand_chacha::ChaCha8Rng) -> Option<R::Command> {
    let &seat = s.awaiting().first()?;
    let mut legal = Vec::new();
    s.table().legal_commands(seat, &mut legal);
    if legal.is_empty() {
        return None;
    }
    let command = legal[rng.random_range(0..legal.len())].clone();
    s.submit(seat, &command).expect("a legal command is accepted");
    Some(command)
}

fn seat_count<R: Ruleset>(s: &Session<R>) -> usize {
    R::seats(s.table().state()).len()
}

fn viewers(n: usize) -> Vec<Viewer> {
    (0..n).map(|i| Viewer::Seat(SeatId(i as u16))).chain([Viewer::Spectator]).collect()
}

/// How `command` of `seat` at `state` looks to `viewer`: the events it causes, redacted.
fn seen<R: Ruleset>(
    state: &R::State,
    seat: SeatId,
    command: &R::Command,
    viewer: Viewer,
) -> Option<Vec<R::Event>> {
    let mut events = Vec::new();
    R::decide(state, seat, command, &mut events).ok()?;
    let mut state = state.clone();
    let mut out = Vec::new();
    for e in &events {
        out.push(R::redact(&state, e, viewer));
        R::apply(&mut state, e);
    }
    Some(out)
}

/// The kinds of the events `command` causes (which another viewer may always tell apart).
fn kinds<R: Ruleset>(
    state: &R::State,
    seat: SeatId,
    command: &R::Command,
) -> Vec<std::mem::Discriminant<R::Event>> {
    let mut events = Vec::new();
    let _ = R::decide(state, seat, command, &mut events);
    events.iter().map(std::mem::discriminant).collect()
}

/// Plays a random game checking, after every command, that the logs line up and, for a
/// face-down choice, that no other viewer can tell it from any other face-down choice of the
/// same kind before its reveal (the blanked events are the same).
fn play_checked<R: Ruleset>(setup: R::Setup, seed: u64, limit: usize) -> Session<R>
where
    R::SetupError: std::fmt::Debug,
{
    play_counted(setup, seed, limit, true).0
}

/// [`play_checked`], also counting the face-down choices made (so a test can make sure its
/// hidden-choice check ran). With `whole_choice_hidden` false, a face-down choice may have
/// public parts (No Dice's targets, Inciting Incident's acting character): then the check is
/// that every other viewer gets the blanked events, never the events as they are.
fn play_counted<R: Ruleset>(
    setup: R::Setup,
    seed: u64,
    limit: usize,
    whole_choice_hidden: bool,
) -> (Session<R>, usize)
where
    R::SetupError: std::fmt::Debug,
{
    let mut s = Session::<R>::new(setup).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let all = viewers(seat_count(&s));
    let mut face_down = 0;
    for _ in 0..limit {
        let Some(&seat) = s.awaiting().first() else { break };
        let prompt = s.prompt(seat);
        let before = s.table().state().clone();
        let before_log = s.table().log().len();
        let before_seq = s.seq();
        let Some(given) = step(&mut s, &mut rng) else { break };
        let lens: Vec<usize> = all.iter().map(|&v| s.updates_since(v, 0).len()).collect();
        assert!(lens.windows(2).all(|w| w[0] == w[1]), "every viewer's log has the same length: {lens:?}");
        if !session::is_face_down::<R>(&before, seat, &given) {
            continue;
        }
        let Some(prompt) = prompt else { continue };
        face_down += 1;
        let caused = s.table().log().len() - before_log - s.table().last_automatic();
        let kind = kinds::<R>(&before, seat, &given);
        for &viewer in all.iter().filter(|&&v| v != Viewer::Seat(seat)) {
            let mine = seen::<R>(&before, seat, &given, viewer).expect("the given command is legal");
            // What the viewer's log got is exactly the blanked events.
            let new = s.updates_since(viewer, before_seq);
            for (k, e) in mine.iter().enumerate().take(caused) {
                assert!(matches!(&new[k].item, Item::Event { event, .. } if event == e), "{viewer:?}");
            }
            let whole = seen::<R>(&before, seat, &given, Viewer::Seat(seat)).expect("legal");
            assert_ne!(mine, whole, "{viewer:?} saw seat {}'s face-down choice {given:?} as it is", seat.0);
            if !whole_choice_hidden {
                continue;
            }
            for other in prompt
                .choices
                .iter()
                .filter(|c| c.private)
                .map(|c| &c.command)
                .filter(|c| kinds::<R>(&before, seat, c) == kind)
            {
                assert_eq!(
                    seen::<R>(&before, seat, other, viewer).as_ref(),
                    Some(&mine),
                    "{viewer:?} can tell seat {}'s face-down choice {given:?} from {other:?}",
                    seat.0
                );
            }
        }
    }
    (s, face_down)
}

/// A record taken after `k` commands, through JSON, resumes; the face-down choices it left
/// out are chosen again, the rest of the game is played, and the end is the same.
fn resume_anywhere<R: Ruleset>(setup: R::Setup, full: &Session<R>, k: usize)
where
    R::SetupError: std::fmt::Debug,
{
    let entries = full.record().entries;
    let k = k.min(entries.len());
    let mut partial = Session::<R>::new(setup).unwrap();
    for e in &entries[..k] {
        partial.submit(e.seat, &e.command).unwrap();
    }
    let record = partial.record();
    let json = serde_json::to_string(&record).unwrap();
    let back: Record<R> = serde_json::from_str(&json).unwrap();
    let mut resumed = Session::<R>::resume(back).unwrap();
    // The left-out face-down choices are made again, then the rest of the game.
    let kept = record.entries.len();
    let mut left_out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < k {
        if j < kept && record.entries[j] == entries[i] {
            j += 1;
        } else {
            left_out.push(entries[i].clone());
        }
        i += 1;
    }
    assert!(left_out.iter().all(|e| e.how == session::How::Given));
    for e in left_out.iter().chain(&entries[k..]) {
        resumed.submit(e.seat, &e.command).unwrap();
    }
    // The game as its record keeps it (a face-down choice never revealed — the GM ended the
    // scene first — is not kept, so it is compared with the record's own replay).
    let kept = Session::<R>::resume(full.record()).unwrap();
    assert_eq!(resumed.table().state(), kept.table().state(), "resumed after {k} commands");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn iron_triangle_logs_line_up_hide_choices_and_resume_anywhere(seed in any::<u64>(), at in 0usize..60) {
        let (full, face_down) = play_counted::<iron_triangle::IronTriangle>(iron_triangle(), seed, 400, true);
        prop_assert!(face_down > 0, "the hidden-choice check ran");
        resume_anywhere(iron_triangle(), &full, at);
    }

    #[test]
    fn nodice_logs_line_up_hide_choices_and_resume_anywhere(seed in any::<u64>(), at in 0usize..60) {
        let (full, face_down) = play_counted::<nodice::NoDice>(nodice_brawl(), seed, 300, false);
        prop_assert!(face_down > 0, "the hidden-choice check ran");
        resume_anywhere(nodice_brawl(), &full, at);
    }

    #[test]
    fn inciting_incident_logs_line_up_hide_choices_and_resume_anywhere(seed in any::<u64>(), at in 0usize..60) {
        let (full, face_down) = play_counted::<inciting_incident::IncitingIncident>(river_fight(), seed, 300, false);
        prop_assert!(face_down > 0, "the hidden-choice check ran");
        resume_anywhere(river_fight(), &full, at);
    }
}

#[test]
fn a_record_that_replays_differently_is_reported() {
    let full = play_checked::<iron_triangle::IronTriangle>(iron_triangle(), 5, 60);
    let mut record = full.record();
    record.events_hash = "0".repeat(64);
    assert!(matches!(
        Session::<iron_triangle::IronTriangle>::resume(record.clone()),
        Err(ResumeError::Diverged { .. })
    ));
    record.ruleset = "nodice".to_owned();
    assert!(matches!(
        Session::<iron_triangle::IronTriangle>::resume(record),
        Err(ResumeError::WrongRuleset { .. })
    ));
}

#[test]
fn a_refused_command_changes_nothing_and_names_the_rule() {
    let mut s = Session::<iron_triangle::IronTriangle>::new(iron_triangle()).unwrap();
    let before = (s.seq(), s.record());
    let awaited = s.awaiting();
    let idle = (0..2).map(SeatId).find(|x| !awaited.contains(x));
    if let Some(idle) = idle {
        let mut legal = Vec::new();
        s.table().legal_commands(awaited[0], &mut legal);
        assert!(s.submit(idle, &legal[0]).is_err());
    }
    assert!(s.submit(SeatId(9), &iron_triangle::Command::EndCombo).is_err());
    assert_eq!((s.seq(), s.record()), before);
}

#[test]
fn bots_play_the_seats_they_control_to_the_end() {
    let mut s = Session::<nodice::NoDice>::new(nodice_brawl()).unwrap();
    s.set_bot_limit(100_000);
    for seat in 0..3 {
        s.control(SeatId(seat), Control::Bot(Box::new(solver::bots::RandomBot::new(u64::from(seat)))))
            .unwrap();
    }
    assert!(s.is_over(), "three bots play the brawl to its end (a stalemate ends it at worst)");
    let resumed = Session::<nodice::NoDice>::resume(s.record()).unwrap();
    assert_eq!(resumed.table().state(), s.table().state());
}

#[test]
fn only_the_gm_forces_a_decision_and_only_an_awaited_one() {
    use nodice::NoDice;
    let mut setup = nodice_brawl();
    // Seat "c" is the GM here.
    let seats: Vec<_> = setup.seats.iter().map(|(_, s)| s.clone()).collect();
    let mut seats = seats;
    seats[2].role = table::Role::Gm;
    setup.seats = table::Seats::new(seats).unwrap();
    let mut s = Session::<NoDice>::new(setup).unwrap();
    let awaited = s.awaiting()[0];
    assert_eq!(s.force(awaited, Some(SeatId(0))).unwrap_err(), session::SessionError::NotGm);
    let idle = (0..3).map(SeatId).find(|x| !s.awaiting().contains(x));
    if let Some(idle) = idle {
        assert_eq!(s.force(idle, Some(SeatId(2))).unwrap_err(), session::SessionError::NotAwaited(idle.0));
    }
}

/// A take-back never loses state (found by the server's `sealed_logs` property through the
/// rules replay): in No Dice each Actor commits its Aspect card after the one before it, so
/// taking back an earlier face-down card while a later one stands would leave the later one
/// given out of turn. The session used to drop the earlier card, fail to rebuild, and keep
/// neither the old game nor a new one; the take-back is now refused with the rules' reason and
/// nothing changes, and the later card can still be taken back first.
#[test]
fn a_take_back_the_later_choices_depend_on_is_refused_and_changes_nothing() {
    let mut s = Session::<nodice::NoDice>::new(nodice_brawl()).unwrap();
    let mut given = Vec::new();
    while given.len() < 2 {
        let seat = s.awaiting()[0];
        let choice =
            s.prompt(seat).unwrap().choices.into_iter().find(|c| c.private).expect("a face-down card");
        s.submit(seat, &choice.command).unwrap();
        given.push(seat);
    }
    assert_ne!(given[0], given[1], "two Actors committed in turn");
    let record = s.record();
    let log = s.updates_since(Viewer::Spectator, 0).len();
    assert_eq!(s.face_down(), 2);
    assert!(s.take_back(given[0]).is_err(), "the later card was given on top of the earlier one");
    assert_eq!(s.face_down(), 2, "a refused take-back keeps both face-down cards");
    assert_eq!(s.record(), record, "and changes nothing else");
    assert_eq!(s.updates_since(Viewer::Spectator, 0).len(), log, "nor logs anything");
    s.take_back(given[1]).unwrap();
    s.take_back(given[0]).unwrap();
    assert_eq!(s.face_down(), 0);
    assert_eq!(s.awaiting(), vec![given[0]], "the first Actor is asked again");
}
