//! The contract every rule system implements.

use std::fmt::Debug;

use serde::{Serialize, de::DeserializeOwned};

use crate::SeatId;

/// Who is looking at the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "seat")]
pub enum Viewer {
    /// A seat sees what its own characters know, and everything face up.
    Seat(SeatId),
    /// Someone with no seat sees only what is public.
    Spectator,
}

/// A rule system: pure logic with no I/O, clocks or async.
///
/// The flow of one command is: [`decide`](Ruleset::decide) validates it against the state and
/// pushes the events it causes (without touching the state); each event is
/// [`apply`](Ruleset::apply)-ed in order; then [`automatic`](Ruleset::automatic) is asked for
/// the steps the rules take by themselves (a reveal once everyone has committed, a resolution
/// once both moves are known…) until it has none. All of those events go to the log, and
/// applying the log to the initial state rebuilds the same state.
pub trait Ruleset {
    /// Everything the rules need to know, hidden parts included.
    type State: Clone + Debug + PartialEq + Serialize + DeserializeOwned;
    /// What a seat asks for.
    type Command: Clone + Debug + PartialEq + Serialize + DeserializeOwned;
    /// What happened; applying events is the only way the state changes.
    type Event: Clone + Debug + PartialEq + Serialize + DeserializeOwned;
    /// What one viewer may see of the state.
    type View: Clone + Debug + Serialize;
    /// Why a command was refused.
    type Error: std::error::Error + Clone + PartialEq;

    /// Validates `command` from `seat` and pushes the events it causes onto `events`.
    ///
    /// On error nothing may have been pushed that the caller would apply: callers discard
    /// `events` when this returns `Err`.
    fn decide(
        state: &Self::State,
        seat: SeatId,
        command: &Self::Command,
        events: &mut Vec<Self::Event>,
    ) -> Result<(), Self::Error>;

    /// Applies one event. Events come from `decide` or `automatic`, so they are valid.
    fn apply(state: &mut Self::State, event: &Self::Event);

    /// The next step the rules take on their own, if any.
    fn automatic(state: &Self::State) -> Option<Self::Event>;

    /// What `viewer` may see of the state: hidden commitments of other seats stay hidden.
    fn view(state: &Self::State, viewer: Viewer) -> Self::View;

    /// How `event` looks to `viewer`: `None` when the viewer may not see it at all.
    fn redact(state: &Self::State, event: &Self::Event, viewer: Viewer) -> Option<Self::Event>;

    /// Pushes every command `seat` may legally give now onto `out`.
    fn legal_commands(state: &Self::State, seat: SeatId, out: &mut Vec<Self::Command>);

    /// Pushes the seats the game is waiting for onto `out`.
    fn awaiting(state: &Self::State, out: &mut Vec<SeatId>);

    /// Whether the game is over.
    fn is_over(state: &Self::State) -> bool;
}

/// A decision a seat must make: the seat, its legal commands, and — computed only on demand —
/// what the seat may see. Bots receive this and nothing else, so a bot cannot peek at hidden
/// commitments by construction.
pub struct Decision<'a, R: Ruleset> {
    state: &'a R::State,
    /// The seat deciding.
    pub seat: SeatId,
    /// The commands it may give (never empty when a seat is asked).
    pub legal: &'a [R::Command],
}

impl<'a, R: Ruleset> Decision<'a, R> {
    /// A decision for `seat` at `state` among `legal`.
    pub fn new(state: &'a R::State, seat: SeatId, legal: &'a [R::Command]) -> Self {
        Decision { state, seat, legal }
    }

    /// What the deciding seat may see.
    pub fn view(&self) -> R::View {
        R::view(self.state, Viewer::Seat(self.seat))
    }
}
