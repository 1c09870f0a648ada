//! The table's machinery tested on a toy ruleset: matching pennies. Two seats each put a
//! penny face down (heads or tails); once both are down they are revealed; seat 0 wins on a
//! match, seat 1 otherwise.

use serde::{Deserialize, Serialize};
use table::{Face, ReplayError, Role, Ruleset, Saved, Sealed, Seat, SeatId, Seats, SideId, Table, Viewer};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Pennies {
    seats: Seats,
    pennies: [Sealed<bool>; 2],
    winner: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Event {
    /// `heads` is blanked (`None`) for the other seat until the reveal.
    Played {
        seat: u16,
        heads: Option<bool>,
    },
    Revealed {
        winner: u16,
    },
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum Refused {
    #[error("that seat has already played")]
    AlreadyPlayed,
    #[error("no such seat")]
    NoSeat,
    #[error("the game is over")]
    Over,
}

#[derive(Debug, Clone, PartialEq)]
struct MatchingPennies;

impl Ruleset for MatchingPennies {
    const NAME: &'static str = "matching-pennies";
    const VERSION: u32 = 1;

    type Setup = ();
    type SetupError = std::convert::Infallible;
    type State = Pennies;
    type Command = bool;
    type Event = Event;
    type View = [Face<bool>; 2];
    type Error = Refused;

    fn setup(_: &()) -> Result<Pennies, std::convert::Infallible> {
        Ok(start())
    }

    fn seats(s: &Pennies) -> &Seats {
        &s.seats
    }

    fn decide(s: &Pennies, seat: SeatId, heads: &bool, out: &mut Vec<Event>) -> Result<(), Refused> {
        if s.winner.is_some() {
            return Err(Refused::Over);
        }
        let slot = s.pennies.get(usize::from(seat.0)).ok_or(Refused::NoSeat)?;
        if slot.is_committed() {
            return Err(Refused::AlreadyPlayed);
        }
        out.push(Event::Played { seat: seat.0, heads: Some(*heads) });
        Ok(())
    }

    fn apply(s: &mut Pennies, e: &Event) {
        match *e {
            Event::Played { seat, heads: Some(heads) } => {
                s.pennies[usize::from(seat)] = Sealed::FaceDown(heads)
            }
            Event::Played { heads: None, .. } => {}
            Event::Revealed { winner } => {
                s.pennies.iter_mut().for_each(Sealed::reveal);
                s.winner = Some(winner);
            }
        }
    }

    fn automatic(s: &Pennies) -> Option<Event> {
        match (s.winner, s.pennies[0].value(), s.pennies[1].value()) {
            (None, Some(a), Some(b)) => Some(Event::Revealed { winner: if a == b { 0 } else { 1 } }),
            _ => None,
        }
    }

    fn view(s: &Pennies, viewer: Viewer) -> [Face<bool>; 2] {
        [0, 1].map(|i| s.pennies[i].face(viewer == Viewer::Seat(SeatId(i as u16))))
    }

    fn redact(_: &Pennies, e: &Event, viewer: Viewer) -> Event {
        match e {
            Event::Played { seat, .. } if viewer != Viewer::Seat(SeatId(*seat)) => {
                Event::Played { seat: *seat, heads: None }
            }
            e => e.clone(),
        }
    }

    fn legal_commands(s: &Pennies, seat: SeatId, out: &mut Vec<bool>) {
        if s.winner.is_none() && s.pennies.get(usize::from(seat.0)).is_some_and(|p| !p.is_committed()) {
            out.extend([true, false]);
        }
    }

    fn awaiting(s: &Pennies, out: &mut Vec<SeatId>) {
        if s.winner.is_none() {
            out.extend((0..2).filter(|&i| !s.pennies[i].is_committed()).map(|i| SeatId(i as u16)));
        }
    }

    fn is_over(s: &Pennies) -> bool {
        s.winner.is_some()
    }
}

fn start() -> Pennies {
    let seat = |name: &str, side| Seat { name: name.to_owned(), side: SideId(side), role: Role::Player };
    let seats = Seats::new(vec![seat("even", 0), seat("odd", 1)]).expect("two named seats");
    Pennies { seats, pennies: [Sealed::Empty; 2], winner: None }
}

#[test]
fn submit_runs_automatic_steps_and_logs_every_event() {
    let mut t = Table::<MatchingPennies>::new(start());
    t.submit(SeatId(0), &true).unwrap();
    assert_eq!(t.awaiting(), vec![SeatId(1)]);
    let events = t.submit(SeatId(1), &true).unwrap().to_vec();
    assert_eq!(events, vec![Event::Played { seat: 1, heads: Some(true) }, Event::Revealed { winner: 0 }]);
    assert!(t.is_over());
    assert_eq!(t.log().len(), 3);
}

#[test]
fn a_refused_command_changes_nothing() {
    let mut t = Table::<MatchingPennies>::new(start());
    t.submit(SeatId(0), &true).unwrap();
    let (state, log) = (t.state().clone(), t.log().to_vec());
    assert_eq!(t.submit(SeatId(0), &false), Err(Refused::AlreadyPlayed));
    assert_eq!(t.submit(SeatId(7), &false), Err(Refused::NoSeat));
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
    tampered.events[2] = Event::Revealed { winner: 1 };
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
