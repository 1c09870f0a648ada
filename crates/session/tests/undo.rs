//! Undo (issue 14 part 5): a seat takes back its own face-down choice before the reveal; after
//! it, revealed choices and draws stand, and only the GM undoes the last public command, which
//! is logged publicly, recorded, and replayed on resume.

use iron_triangle::rules::Note;
use iron_triangle::{Character, Command, Energy, FighterId, IronTriangle};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use session::{How, Item, Record, Session, SessionError};
use table::{Role, Ruleset, Seat, SeatId, Seats, SideId, Viewer};

const PLAYER: SeatId = SeatId(0);
const GM: SeatId = SeatId(1);

fn duel() -> Session<IronTriangle> {
    Session::new(iron_triangle::Setup::one_on_one(
        Character::with_starting_moves("Ada", Energy::new(3, 2, 5)),
        Character::with_starting_moves("Ninja", Energy::new(4, 3, 3)),
    ))
    .unwrap()
}

fn adjust(energy: Energy) -> Command {
    Command::AdjustEnergy { fighter: FighterId(0), energy, reason: Note::from("ruling").unwrap() }
}

fn first_legal(s: &Session<IronTriangle>, seat: SeatId) -> Command {
    let mut legal = Vec::new();
    s.table().legal_commands(seat, &mut legal);
    legal.into_iter().find(|c| !matches!(c, Command::AdjustEnergy { .. })).expect("a legal command")
}

fn last_item(s: &Session<IronTriangle>, viewer: Viewer) -> Item<iron_triangle::Event> {
    s.updates_since(viewer, s.seq() - 1).pop().unwrap().item
}

#[test]
fn the_gm_undoes_the_last_public_command_and_it_is_logged_and_recorded() {
    let mut s = duel();
    let start = s.table().state().clone();
    s.submit(GM, &adjust(Energy::new(1, 1, 1))).unwrap();
    assert_ne!(s.table().state(), &start);
    s.undo(GM).unwrap();
    assert_eq!(s.table().state(), &start, "the game is back where it was before the adjustment");
    for viewer in [Viewer::Seat(PLAYER), Viewer::Seat(GM), Viewer::Spectator] {
        assert_eq!(last_item(&s, viewer), Item::Undone { by: GM, seat: GM }, "public to {viewer:?}");
    }
    let record = s.record();
    let hows: Vec<How> = record.entries.iter().map(|e| e.how).collect();
    assert_eq!(hows, [How::Given, How::Undo], "the record only grows: the undo is an entry");
    let json = serde_json::to_string(&record).unwrap();
    let resumed = Session::<IronTriangle>::resume(serde_json::from_str(&json).unwrap()).unwrap();
    assert_eq!(resumed.table().state(), &start);
    assert_eq!(resumed.updates_since(Viewer::Spectator, 0), s.updates_since(Viewer::Spectator, 0));
    // Nothing public is left to undo.
    assert_eq!(s.undo(GM).unwrap_err(), SessionError::NothingToUndo);
}

#[test]
fn only_the_gm_undoes() {
    let mut s = duel();
    s.submit(GM, &adjust(Energy::new(1, 1, 1))).unwrap();
    let before = s.record();
    assert_eq!(s.undo(PLAYER).unwrap_err(), SessionError::NotGmUndo);
    assert_eq!(s.undo(SeatId(7)).unwrap_err(), SessionError::NoSeat(7));
    assert_eq!(s.record(), before, "a refused undo changes nothing");
}

#[test]
fn a_revealed_choice_stands() {
    let mut s = duel();
    // Both seats commit face down; the second commitment reveals both.
    let mut guard = 0;
    while s.record().entries.is_empty() {
        let seat = s.awaiting()[0];
        s.submit(seat, &first_legal(&s, seat)).unwrap();
        guard += 1;
        assert!(guard < 10, "the first stances are revealed within a few commands");
    }
    let before = s.record();
    assert_eq!(s.undo(GM).unwrap_err(), SessionError::RevealStands);
    assert_eq!(s.record(), before);
}

#[test]
fn undo_takes_back_the_face_down_choices_given_after_the_command() {
    let mut s = duel();
    let start = s.table().state().clone();
    s.submit(GM, &adjust(Energy::new(2, 2, 2))).unwrap();
    let seat = s.awaiting()[0];
    s.submit(seat, &first_legal(&s, seat)).unwrap();
    s.undo(GM).unwrap();
    assert_eq!(s.table().state(), &start);
    let tail = s.updates_since(Viewer::Spectator, s.seq() - 2);
    assert_eq!(tail[0].item, Item::TookBack { seat });
    assert_eq!(tail[1].item, Item::Undone { by: GM, seat: GM });
}

/// A ruleset with one random draw: the GM notes a number (public) or rolls (draws).
#[derive(Debug, Clone, Copy)]
struct Dice;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct DiceState {
    seats: Seats,
    draws: u64,
    notes: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum DiceCommand {
    Note(u8),
    Roll,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("only the GM notes and rolls")]
struct NotGm;

impl Ruleset for Dice {
    const NAME: &'static str = "dice";
    const VERSION: u32 = 1;
    type Setup = ();
    type State = DiceState;
    type Command = DiceCommand;
    type Event = DiceCommand;
    type View = DiceState;
    type Error = NotGm;
    type SetupError = NotGm;

    fn setup(_: &()) -> Result<DiceState, NotGm> {
        let seat = |name: &str, role| Seat { name: name.to_owned(), side: SideId(0), role };
        let seats =
            Seats::new(vec![seat("player", Role::Player), seat("gm", Role::Gm)]).map_err(|_| NotGm)?;
        Ok(DiceState { seats, draws: 0, notes: Vec::new() })
    }
    fn seats(state: &DiceState) -> &Seats {
        &state.seats
    }
    fn decide(
        _: &DiceState,
        seat: SeatId,
        command: &DiceCommand,
        events: &mut Vec<DiceCommand>,
    ) -> Result<(), NotGm> {
        if seat != GM {
            return Err(NotGm);
        }
        events.push(command.clone());
        Ok(())
    }
    fn apply(state: &mut DiceState, event: &DiceCommand) {
        match event {
            DiceCommand::Note(n) => state.notes.push(*n),
            DiceCommand::Roll => state.draws += 1,
        }
    }
    fn automatic(_: &DiceState) -> Option<DiceCommand> {
        None
    }
    fn view(state: &DiceState, _: Viewer) -> DiceState {
        state.clone()
    }
    fn redact(_: &DiceState, event: &DiceCommand, _: Viewer) -> DiceCommand {
        event.clone()
    }
    fn legal_commands(_: &DiceState, seat: SeatId, out: &mut Vec<DiceCommand>) {
        if seat == GM {
            out.extend([DiceCommand::Note(1), DiceCommand::Roll]);
        }
    }
    fn awaiting(_: &DiceState, out: &mut Vec<SeatId>) {
        out.push(GM);
    }
    fn is_over(_: &DiceState) -> bool {
        false
    }
    fn draw_position(state: &DiceState) -> u64 {
        state.draws
    }
}

#[test]
fn a_draw_stands_and_the_draw_counter_never_rewinds() {
    let mut s = Session::<Dice>::new(()).unwrap();
    s.submit(GM, &DiceCommand::Note(3)).unwrap();
    s.submit(GM, &DiceCommand::Roll).unwrap();
    assert_eq!(s.undo(GM).unwrap_err(), SessionError::DrawStands);
    assert_eq!(s.table().state().draws, 1);
    s.submit(GM, &DiceCommand::Note(4)).unwrap();
    s.undo(GM).unwrap();
    assert_eq!(s.table().state().notes, [3], "a command after the draw may be undone");
    assert_eq!(s.undo(GM).unwrap_err(), SessionError::DrawStands, "but not the draw before it");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random play with the GM adjusting and undoing at random: whatever was accepted or
    /// refused, the record resumes to the same game and every viewer's log, and play goes on
    /// identically from there.
    #[test]
    fn random_undos_resume_identically(seed in any::<u64>()) {
        let mut s = duel();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut undone = 0;
        let mut steps = 0;
        let mut settled_before = Vec::new();
        while steps < 80 && !s.is_over() {
            steps += 1;
            match rng.random_range(0..8) {
                0 => {
                    let _ = s.submit(GM, &adjust(Energy::new(rng.random_range(0..3), 1, 1)));
                }
                1 | 2 => {
                    if s.undo(GM).is_ok() {
                        undone += 1;
                    }
                }
                _ => {
                    let seat = s.awaiting()[0];
                    let mut legal = Vec::new();
                    s.table().legal_commands(seat, &mut legal);
                    let pick = legal[rng.random_range(0..legal.len())];
                    s.submit(seat, &pick).unwrap();
                }
            }
            let json = serde_json::to_string(&s.record()).unwrap();
            let back: Record<IronTriangle> = serde_json::from_str(&json).unwrap();
            let resumed = Session::<IronTriangle>::resume(back).unwrap();
            prop_assert_eq!(resumed.record(), s.record());
            // The settled entries are a prefix of the record that later records keep.
            let settled = s.settled();
            prop_assert_eq!(&settled_before[..], &s.record().entries[..settled_before.len()]);
            settled_before = s.record().entries[..settled].to_vec();
            if s.face_down() == 0 {
                prop_assert_eq!(resumed.table().state(), s.table().state());
            }
        }
        prop_assert!(undone > 0 || steps < 30, "in a long game some of the GM's undos were taken");
    }
}
