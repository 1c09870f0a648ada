//! The Iron Triangle rule system: diceless conflicts decided by simultaneous hidden choice.
//!
//! Pure logic with no I/O. Start with [`Conflict::new`] from a [`Setup`], then drive it through
//! a [`table::Table<IronTriangle>`]: commands in, events out, a redacted view per seat.
//!
//! Where each rule lives (sections of `shared/rules/iron-triangle.md`):
//! - §2–3 rankings and the thirteen moves: [`card`]
//! - §4 character sheets: [`character`]
//! - §5.2 step 4 and §5.3 winner and losses: [`turn`] ([`turn::resolve`])
//! - §5.4 disadvantage, §5.5 combos: [`chain`]
//! - §5.1, §5.2 steps 1–3, §5.6, §5.7 the conflict flow: [`conflict`] and [`rules`]; the
//!   conflict file a shell reads (sheets inline or through the shell's loader): [`conflict_file`]
//! - who won a turn and the conflict, in the players' words: [`outcome`]
//! - hidden information: [`view`]; narration of events: [`narrate`]; a seat's prompt and its
//!   forced default: [`prompt`]
//! - §4 campaign sheets, §7 problems, §8 countdowns, §9 resting, §10 levelling: [`campaign`]
//!
//! **Decisions** beyond the rules reference are documented in `docs/iron-triangle.md` and on
//! the items that implement them.

pub mod campaign;
pub mod card;
pub mod chain;
pub mod character;
pub mod conflict;
pub mod conflict_file;
pub mod effects;
pub mod energy;
pub mod narrate;
pub mod outcome;
pub mod prompt;
pub mod referee;
pub mod reference;
pub mod rules;
pub mod special;
pub mod turn;
pub mod view;
pub mod windows;

pub use card::{Action, Element, Move, MoveSet};
pub use character::{Character, Combo, Kind, KnownMove};
pub use conflict::{
    Conflict, FighterId, GM, PLAYERS, Phase, Setup, SetupError, Stakes, Status, Step, Window,
};
pub use energy::{Energy, Stance};
pub use rules::{Command, Event, NextTurn, RuleError, Verdict};
pub use turn::{Contender, Decided, Loss, Outcome, Play, TurnResult};
pub use view::ConflictView;

use table::{Ruleset, SeatId, Viewer};

/// The Iron Triangle ruleset, for [`table::Table`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IronTriangle;

impl Ruleset for IronTriangle {
    const NAME: &'static str = "iron-triangle";
    const VERSION: u32 = 1;

    type Setup = Setup;
    type SetupError = SetupError;
    type State = Conflict;
    type Command = Command;
    type Event = Event;
    type View = ConflictView;
    type Error = RuleError;

    fn setup(setup: &Setup) -> Result<Conflict, SetupError> {
        Conflict::new(setup.clone())
    }

    fn seats(state: &Conflict) -> &table::Seats {
        &state.seats
    }

    fn decide(
        state: &Conflict,
        seat: SeatId,
        command: &Command,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        state.decide(seat, command, events)
    }

    fn apply(state: &mut Conflict, event: &Event) {
        state.apply(event)
    }

    fn automatic(state: &Conflict) -> Option<Event> {
        state.automatic()
    }

    fn view(state: &Conflict, viewer: Viewer) -> ConflictView {
        state.view(viewer)
    }

    fn redact(state: &Conflict, event: &Event, viewer: Viewer) -> Event {
        state.redact(event, viewer)
    }

    fn narrate(state: &Conflict, event: &Event, viewer: Viewer) -> Option<String> {
        narrate::narrate(state, event, viewer)
    }

    fn legal_commands(state: &Conflict, seat: SeatId, out: &mut Vec<Command>) {
        state.legal_commands(seat, out)
    }

    fn prompt(state: &Conflict, seat: SeatId) -> Option<table::Prompt<Command>> {
        state.prompt(seat)
    }

    fn asks_face_down(state: &Conflict, seat: SeatId) -> bool {
        state.asks_face_down(seat)
    }

    fn first_face_down(state: &Conflict, seat: SeatId) -> Option<Command> {
        state.first_face_down(seat)
    }

    fn forced(state: &Conflict, seat: SeatId) -> Option<Command> {
        state.forced(seat)
    }

    fn is_gm_ruling(command: &Command) -> bool {
        command.is_gm_ruling()
    }

    fn quick_reference() -> String {
        reference::quick_reference()
    }

    /// How far the conflict's [`Draws`](table::Draws) (Drunken Monkey's swaps) has been drawn.
    fn draw_position(state: &Conflict) -> u64 {
        state.draws.position()
    }

    /// The conflict's only draw is a Drunken Monkey swap (rules reference §6: "swap your
    /// revealed move for a random one"), decided in a turn's swap step, after the pair's
    /// face-down moves were revealed: nothing is drawn before a reveal, so a sealed table
    /// needs no opening round (docs/fairness.md §7.2).
    fn draws_before_a_reveal(_state: &Conflict) -> bool {
        false
    }

    fn draws_mut(state: &mut Conflict) -> Option<&mut table::Draws> {
        Some(&mut state.draws)
    }

    fn awaiting(state: &Conflict, out: &mut Vec<SeatId>) {
        state.awaiting(out)
    }

    fn is_over(state: &Conflict) -> bool {
        matches!(state.phase, Phase::Over)
    }
}

#[cfg(test)]
mod size_tests {
    /// Commands are `Copy` and pushed by the dozen on the hot path (legal-command lists), and
    /// events are moved for every step: keep both small. The GM's note is the largest part.
    #[test]
    fn commands_and_events_stay_small() {
        assert!(std::mem::size_of::<crate::Command>() <= 80, "{}", std::mem::size_of::<crate::Command>());
        assert!(std::mem::size_of::<crate::Event>() <= 80, "{}", std::mem::size_of::<crate::Event>());
    }
}
