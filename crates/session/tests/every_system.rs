//! The session's invariants, checked on every rule system with random legal play:
//! every viewer's log has the same length; a face-down choice is in no other viewer's log
//! before its reveal; a record taken at any point resumes and continues identically; bots
//! play the seats they control to the end.

use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use session::{Control, Item, Record, ResumeError, Session};
use table::{Ruleset, SeatId, Viewer};

fn iron_triangle() -> iron_triangle::Setup {
    use iron_triangle::{Character, Energy, Setup};
    Setup::one_on_one(
        Character::with_starting_moves("Ada", Energy::new(3, 2, 5)),
        Character::with_starting_moves("Ninja", Energy::new(4, 3, 3)),
    )
}

fn nodice_brawl() -> nodice::Setup {
    use nodice::{ActorId, ActorSheet, Kind, Options, Setup, Stakes, Statblock};
    use table::{Role, Seat, Seats, SideId};
    let seat = |name: &str, side| Seat { name: name.to_owned(), side: SideId(side), role: Role::Player };
    Setup {
        seats: Seats::new(vec![seat("a", 0), seat("b", 1), seat("c", 2)]).unwrap(),
        actors: ["A", "B", "C"]
            .iter()
            .enumerate()
            .map(|(i, n)| {
                ActorSheet::new(n, Kind::Npc, Statblock::even(4), SeatId(i as u16), SideId(i as u8))
            })
            .collect(),
        initiator: ActorId(0),
        stakes: Some(Stakes::new(2).unwrap()),
        options: Options::default(),
        extensions: vec![],
        seed: 11,
    }
}

fn river_fight() -> inciting_incident::Setup {
    let mut setup: inciting_incident::Setup =
        toml::from_str(include_str!("../../../examples/inciting-incident/river-fight.toml")).unwrap();
    setup.apply_round_limit(Some(12));
    setup
}

fn seat_count<R: Ruleset>(s: &Session<R>) -> usize {
    R::seats(s.table().state()).len()
}

fn viewers(n: usize) -> Vec<Viewer> {
    (0..n).map(|i| Viewer::Seat(SeatId(i as u16))).chain([Viewer::Spectator]).collect()
}

/// Plays a random game checking, after every command, that the logs line up and that the
/// events a face-down choice caused reach no other viewer as they are. Returns the record.
fn play_checked<R: Ruleset>(setup: R::Setup, seed: u64, limit: usize) -> Session<R>
where
    R::SetupError: std::fmt::Debug,
{
    play_counted(setup, seed, limit).0
}

/// [`play_checked`], also counting the face-down choices made (so a test can make sure its
/// hidden-choice check ran).
fn play_counted<R: Ruleset>(setup: R::Setup, seed: u64, limit: usize) -> (Session<R>, usize)
where
    R::SetupError: std::fmt::Debug,
{
    let mut s = Session::<R>::new(setup).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let all = viewers(seat_count(&s));
    let mut face_down = 0;
    for _ in 0..limit {
        let Some(&seat) = s.awaiting().first() else { break };
        let mut legal = Vec::new();
        s.table().legal_commands(seat, &mut legal);
        if legal.is_empty() {
            break;
        }
        let command = legal[rng.random_range(0..legal.len())].clone();
        let private = session::is_face_down::<R>(s.table().state(), seat, &command);
        let before_log = s.table().log().len();
        let before_seq = s.seq();
        s.submit(seat, &command).expect("a legal command is accepted");
        let lens: Vec<usize> = all.iter().map(|&v| s.updates_since(v, 0).len()).collect();
        assert!(lens.windows(2).all(|w| w[0] == w[1]), "every viewer's log has the same length: {lens:?}");
        if private {
            face_down += 1;
            // The events the seat's own command caused (the automatic steps after it may be a
            // reveal, which everyone sees).
            let caused = s.table().log().len() - before_log - s.table().last_automatic();
            for &viewer in all.iter().filter(|&&v| v != Viewer::Seat(seat)) {
                let new = s.updates_since(viewer, before_seq);
                for (k, original) in s.table().log()[before_log..before_log + caused].iter().enumerate() {
                    assert_ne!(
                        new[k].item,
                        Item::Event { event: original.clone(), text: new[k].item_text() },
                        "{viewer:?} saw seat {}'s face-down choice as it is",
                        seat.0
                    );
                }
            }
        }
    }
    (s, face_down)
}

trait ItemText {
    fn item_text(&self) -> Option<String>;
}

impl<E> ItemText for session::Update<E> {
    fn item_text(&self) -> Option<String> {
        match &self.item {
            Item::Event { text, .. } => text.clone(),
            _ => None,
        }
    }
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
        let full = play_checked::<iron_triangle::IronTriangle>(iron_triangle(), seed, 400);
        resume_anywhere(iron_triangle(), &full, at);
    }

    #[test]
    fn nodice_logs_line_up_hide_choices_and_resume_anywhere(seed in any::<u64>(), at in 0usize..60) {
        let (full, face_down) = play_counted::<nodice::NoDice>(nodice_brawl(), seed, 300);
        prop_assert!(face_down > 0, "the hidden-choice check ran");
        resume_anywhere(nodice_brawl(), &full, at);
    }

    #[test]
    fn inciting_incident_logs_line_up_hide_choices_and_resume_anywhere(seed in any::<u64>(), at in 0usize..60) {
        let (full, face_down) = play_counted::<inciting_incident::IncitingIncident>(river_fight(), seed, 300);
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
