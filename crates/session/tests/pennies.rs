//! The session's own machinery on a toy ruleset whose every part is known: matching pennies.
//! Two players each put a penny face down; once both are down they are revealed; seat 0
//! ("even") wins on a match. A third seat, the GM, only watches and may force a decision. The
//! forced default is heads.

use serde::{Deserialize, Serialize};
use session::{Control, How, Item, ResumeError, Session, SessionError};
use table::{
    Bot, Choice, Decision, Face, Prompt, Role, Ruleset, Sealed, Seat, SeatId, Seats, SideId, Viewer,
};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Pennies {
    seats: Seats,
    pennies: [Sealed<bool>; 2],
    winner: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Event {
    /// `heads` is `None` when blanked for a viewer.
    Played {
        seat: u16,
        heads: Option<bool>,
    },
    Revealed {
        winner: u16,
        pennies: [bool; 2],
    },
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum Refused {
    #[error("that seat has already played (§1)")]
    AlreadyPlayed,
    #[error("that seat plays no penny (§1)")]
    NoPenny,
    #[error("the game is over (§2)")]
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
        let seat = |name: &str, side, role| Seat { name: name.to_owned(), side: SideId(side), role };
        let seats = Seats::new(vec![
            seat("even", 0, Role::Player),
            seat("odd", 1, Role::Player),
            seat("gm", 2, Role::Gm),
        ])
        .expect("three named seats");
        Ok(Pennies { seats, pennies: [Sealed::Empty; 2], winner: None })
    }

    fn seats(s: &Pennies) -> &Seats {
        &s.seats
    }

    fn decide(s: &Pennies, seat: SeatId, heads: &bool, out: &mut Vec<Event>) -> Result<(), Refused> {
        if s.winner.is_some() {
            return Err(Refused::Over);
        }
        let slot = s.pennies.get(usize::from(seat.0)).ok_or(Refused::NoPenny)?;
        if slot.is_committed() {
            return Err(Refused::AlreadyPlayed);
        }
        out.push(Event::Played { seat: seat.0, heads: Some(*heads) });
        Ok(())
    }

    fn apply(s: &mut Pennies, e: &Event) {
        match *e {
            Event::Played { seat, heads } => {
                s.pennies[usize::from(seat)] =
                    Sealed::FaceDown(heads.expect("the table applies whole events"))
            }
            Event::Revealed { winner, .. } => {
                s.pennies.iter_mut().for_each(Sealed::reveal);
                s.winner = Some(winner);
            }
        }
    }

    fn automatic(s: &Pennies) -> Option<Event> {
        match (s.winner, s.pennies[0].value(), s.pennies[1].value()) {
            (None, Some(a), Some(b)) => {
                Some(Event::Revealed { winner: if a == b { 0 } else { 1 }, pennies: [a, b] })
            }
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

    fn narrate(_: &Pennies, e: &Event, _: Viewer) -> Option<String> {
        Some(match e {
            Event::Played { seat, heads: Some(h) } => {
                format!("seat {seat} put down {}", if *h { "heads" } else { "tails" })
            }
            Event::Played { seat, heads: None } => format!("seat {seat} put a penny face down"),
            Event::Revealed { winner, .. } => format!("seat {winner} wins"),
        })
    }

    fn legal_commands(s: &Pennies, seat: SeatId, out: &mut Vec<bool>) {
        if s.winner.is_none() && s.pennies.get(usize::from(seat.0)).is_some_and(|p| !p.is_committed()) {
            out.extend([true, false]);
        }
    }

    fn prompt(s: &Pennies, seat: SeatId) -> Option<Prompt<bool>> {
        let mut legal = Vec::new();
        Self::legal_commands(s, seat, &mut legal);
        (!legal.is_empty()).then(|| Prompt {
            seat,
            question: "put a penny face down".to_owned(),
            private: true,
            choices: legal
                .into_iter()
                .map(|h| Choice {
                    label: if h { "heads" } else { "tails" }.to_owned(),
                    command: h,
                    private: true,
                })
                .collect(),
        })
    }

    fn forced(s: &Pennies, seat: SeatId) -> Option<bool> {
        Self::prompt(s, seat).map(|_| true)
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

const EVEN: SeatId = SeatId(0);
const ODD: SeatId = SeatId(1);
const GM: SeatId = SeatId(2);

fn game() -> Session<MatchingPennies> {
    Session::new(()).unwrap()
}

fn items(s: &Session<MatchingPennies>, v: Viewer) -> Vec<Item<Event>> {
    s.updates_since(v, 0).into_iter().map(|u| u.item).collect()
}

#[test]
fn a_face_down_choice_reaches_other_viewers_blanked_and_narrated_as_such() {
    let mut s = game();
    s.submit(EVEN, &false).unwrap();
    let own = items(&s, Viewer::Seat(EVEN));
    assert_eq!(
        own,
        vec![Item::Event {
            event: Event::Played { seat: 0, heads: Some(false) },
            text: Some("seat 0 put down tails".into())
        }]
    );
    for v in [Viewer::Seat(ODD), Viewer::Seat(GM), Viewer::Spectator] {
        assert_eq!(
            items(&s, v),
            vec![Item::Event {
                event: Event::Played { seat: 0, heads: None },
                text: Some("seat 0 put a penny face down".into())
            }],
            "{v:?}"
        );
    }
}

#[test]
fn a_seat_takes_back_its_face_down_choice_until_the_reveal() {
    let mut s = game();
    s.submit(EVEN, &false).unwrap();
    s.take_back(EVEN).unwrap();
    assert_eq!(s.awaiting(), vec![EVEN, ODD], "the seat is asked again");
    assert_eq!(
        *items(&s, Viewer::Spectator).last().unwrap(),
        Item::TookBack { seat: EVEN },
        "logged publicly"
    );
    assert_eq!(s.take_back(EVEN), Err(SessionError::NothingToTakeBack(0)));
    assert_eq!(s.take_back(ODD), Err(SessionError::NothingToTakeBack(1)), "only one's own choice");
    s.submit(EVEN, &true).unwrap();
    s.submit(ODD, &true).unwrap();
    assert!(s.is_over());
    assert_eq!(s.take_back(EVEN), Err(SessionError::NothingToTakeBack(0)), "a revealed choice stands");
    assert_eq!(s.table().state().winner, Some(0), "the choice made again counts");
}

#[test]
fn a_record_taken_mid_turn_leaves_out_the_face_down_choice() {
    let mut s = game();
    s.submit(ODD, &true).unwrap();
    let record = s.record();
    assert!(record.entries.is_empty(), "the pending choice is not kept");
    let json = serde_json::to_string(&record).unwrap();
    assert!(!json.contains("true"), "nothing of the choice in the saved text: {json}");
    let mut resumed = Session::<MatchingPennies>::resume(record).unwrap();
    assert_eq!(resumed.awaiting(), vec![EVEN, ODD], "the seat that had chosen chooses again");
    resumed.submit(ODD, &false).unwrap();
    resumed.submit(EVEN, &false).unwrap();
    let record = resumed.record();
    assert_eq!(record.entries.len(), 2, "revealed choices are kept");
    let again = Session::<MatchingPennies>::resume(record).unwrap();
    assert_eq!(again.table().state(), resumed.table().state());
}

#[test]
fn only_the_gm_or_the_timer_forces_a_decision_with_the_documented_default() {
    let mut s = game();
    assert_eq!(s.force(ODD, Some(EVEN)), Err(SessionError::NotGm), "a player cannot force");
    s.submit(ODD, &false).unwrap();
    assert_eq!(s.force(ODD, Some(GM)), Err(SessionError::NotAwaited(1)), "only an awaited decision");
    s.force(EVEN, None).unwrap();
    assert!(s.is_over());
    assert_eq!(s.table().state().winner, Some(1), "heads (the default) against tails");
    let log = items(&s, Viewer::Spectator);
    assert!(log.contains(&Item::Forced { seat: EVEN }), "logged as forced: {log:?}");
    let record = s.record();
    assert_eq!(record.entries[1].how, How::Forced);
    // The forced mark survives a resume.
    let resumed = Session::<MatchingPennies>::resume(record).unwrap();
    assert!(items(&resumed, Viewer::Spectator).contains(&Item::Forced { seat: EVEN }));
}

#[test]
fn every_viewer_catches_up_from_its_last_sequence_number() {
    let mut s = game();
    s.submit(EVEN, &true).unwrap();
    let seen = s.seq();
    s.submit(ODD, &true).unwrap();
    for v in [Viewer::Seat(EVEN), Viewer::Seat(ODD), Viewer::Seat(GM), Viewer::Spectator] {
        let missed = s.updates_since(v, seen);
        assert_eq!(missed.len(), 2, "the odd seat's penny and the reveal");
        assert_eq!(missed[0].seq, seen + 1);
        assert_eq!(s.updates_since(v, s.seq()), vec![], "nothing after the last");
        assert_eq!(s.updates_since(v, u64::MAX), vec![], "a sequence from the future gets nothing");
    }
    assert_eq!(s.updates_since(Viewer::Seat(SeatId(7)), 0), vec![], "no such seat");
}

struct AlwaysTails;

impl Bot<MatchingPennies> for AlwaysTails {
    fn choose(&mut self, d: &Decision<'_, MatchingPennies>) -> usize {
        d.legal.iter().position(|&h| !h).unwrap_or(0)
    }
}

#[test]
fn a_bot_plays_its_seat_when_the_game_waits_for_it() {
    let mut s = game();
    s.control(ODD, Control::Bot(Box::new(AlwaysTails))).unwrap();
    assert_eq!(s.awaiting(), vec![EVEN], "the bot played at once");
    s.submit(EVEN, &false).unwrap();
    assert_eq!(s.table().state().winner, Some(0));
}

#[test]
fn a_tampered_record_is_refused_naming_the_command() {
    let mut s = game();
    s.submit(EVEN, &true).unwrap();
    s.submit(ODD, &true).unwrap();
    let mut record = s.record();
    record.entries[1].seat = EVEN;
    match Session::<MatchingPennies>::resume(record) {
        Err(ResumeError::Refused { number: 2, why }) => assert!(why.contains("already played"), "{why}"),
        other => panic!("{other:?}"),
    }
    let mut record = s.record();
    record.version = 0;
    record.entries[1].command = false;
    match Session::<MatchingPennies>::resume(record) {
        Err(e @ ResumeError::Diverged { recorded: 0, now: 1, .. }) => {
            assert!(e.to_string().contains("version 0"), "{e}")
        }
        other => panic!("{other:?}"),
    }
}
