//! The table's machinery tested on the toy ruleset of `table::testing`: matching pennies. Two
//! seats each put a penny face down (heads or tails); once both are down they are revealed;
//! seat 0 wins on a match, seat 1 otherwise. (The session's tests play the same toy ruleset.)

use table::testing::{Event, MatchingPennies, Refused, start};
use table::{Face, ReplayError, Saved, SeatId, Table, Viewer};

#[test]
fn submit_runs_automatic_steps_and_logs_every_event() {
    let mut t = Table::<MatchingPennies>::new(start());
    t.submit(SeatId(0), &true).unwrap();
    assert_eq!(t.awaiting(), vec![SeatId(1)]);
    let events = t.submit(SeatId(1), &true).unwrap().to_vec();
    assert_eq!(
        events,
        vec![
            Event::Played { seat: 1, heads: Some(true) },
            Event::Revealed { winner: 0, pennies: [true, true] }
        ]
    );
    assert!(t.is_over());
    assert_eq!(t.log().len(), 3);
}

#[test]
fn a_refused_command_changes_nothing() {
    let mut t = Table::<MatchingPennies>::new(start());
    t.submit(SeatId(0), &true).unwrap();
    let (state, log) = (t.state().clone(), t.log().to_vec());
    assert_eq!(t.submit(SeatId(0), &false), Err(Refused::AlreadyPlayed));
    assert_eq!(t.submit(SeatId(7), &false), Err(Refused::NoPenny));
    assert_eq!(t.submit(SeatId(2), &false), Err(Refused::NoPenny), "the GM plays no penny");
    assert_eq!((t.state(), t.log()), (&state, log.as_slice()));
}

#[test]
fn a_face_down_penny_is_hidden_from_the_other_seat_and_its_log() {
    let mut t = Table::<MatchingPennies>::new(start());
    t.submit(SeatId(0), &true).unwrap();
    assert_eq!(t.view(Viewer::Seat(SeatId(0)))[0], Face::Known(true));
    assert_eq!(t.view(Viewer::Seat(SeatId(1)))[0], Face::FaceDown);
    assert_eq!(t.view(Viewer::Spectator)[0], Face::FaceDown);
    assert_eq!(t.log_for(Viewer::Seat(SeatId(1))), vec![Event::Played { seat: 0, heads: None }]);
    assert_eq!(t.log_for(Viewer::Seat(SeatId(0))), vec![Event::Played { seat: 0, heads: Some(true) }]);
    t.submit(SeatId(1), &false).unwrap();
    assert_eq!(t.view(Viewer::Spectator), [Face::Known(true), Face::Known(false)]);
}

#[test]
fn replaying_a_save_rebuilds_the_same_state() {
    let mut t = Table::<MatchingPennies>::new(start());
    t.submit(SeatId(1), &false).unwrap();
    t.submit(SeatId(0), &true).unwrap();
    let json = serde_json::to_string(&t.save()).unwrap();
    let saved: Saved<MatchingPennies> = serde_json::from_str(&json).unwrap();
    assert_eq!(Table::load(saved.clone()).state(), t.state());
    assert_eq!(Table::load_checked(saved).unwrap().state(), t.state());
}

#[test]
fn a_checked_load_refuses_events_the_rules_would_not_cause() {
    let mut t = Table::<MatchingPennies>::new(start());
    t.submit(SeatId(0), &true).unwrap();
    t.submit(SeatId(1), &true).unwrap();
    let mut tampered = t.save();
    tampered.events[2] = Event::Revealed { winner: 1, pennies: [true, true] };
    assert_eq!(Table::load_checked(tampered).err(), Some(ReplayError::Unexpected { number: 3 }));
    let mut cut = t.save();
    cut.events.pop();
    assert_eq!(Table::load_checked(cut).err(), Some(ReplayError::Unfinished));
    let mut doubled = t.save();
    doubled.events.insert(1, Event::Played { seat: 0, heads: Some(false) });
    assert_eq!(Table::load_checked(doubled).err(), Some(ReplayError::Unexpected { number: 2 }));
}

#[test]
fn restart_and_unlogged_tables_play_again_without_a_log() {
    let mut t = Table::<MatchingPennies>::unlogged(start());
    t.submit(SeatId(0), &true).unwrap();
    t.submit(SeatId(1), &true).unwrap();
    assert!(t.is_over() && t.log().is_empty());
    assert_eq!(Table::load(t.save()).state(), t.state(), "an unlogged save starts from now");
    t.restart(start());
    assert!(!t.is_over());
    assert_eq!(t.awaiting(), vec![SeatId(0), SeatId(1)]);
}

#[test]
fn restart_from_reuses_the_table_and_starts_a_fresh_log() {
    let mut t = Table::<MatchingPennies>::new(start());
    t.submit(SeatId(0), &true).unwrap();
    t.submit(SeatId(1), &false).unwrap();
    assert!(t.is_over());
    t.restart_from(&start());
    assert!(t.log().is_empty() && !t.is_over());
    assert_eq!((t.state(), t.initial()), (&start(), &start()));
    t.submit(SeatId(1), &true).unwrap();
    assert_eq!(t.log().len(), 1, "the new game logs from its own start");
}
