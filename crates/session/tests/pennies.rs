//! The session's own machinery on the toy ruleset whose every part is known:
//! `table::testing`'s matching pennies (the table's tests play it too). Two players each put a
//! penny face down; once both are down they are revealed; seat 0 ("even") wins on a match. A
//! third seat, the GM, only watches and may force a decision. The forced default is heads.

use session::{Control, How, Item, ResumeError, Session, SessionError};
use table::testing::{Event, MatchingPennies};
use table::{Bot, Decision, SeatId, Viewer};

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
