//! The contract every rule system implements.

use std::fmt::Debug;

use serde::{Deserialize, Serialize, de::DeserializeOwned};

use crate::{SeatId, Seats};

/// Who is looking at the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "seat")]
pub enum Viewer {
    /// A seat sees what its own characters know, and everything face up.
    Seat(SeatId),
    /// Someone with no seat sees only what is public.
    Spectator,
}

/// What a seat is asked now, in a form any shell (terminal, server, browser) can render.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(serialize = "C: Serialize", deserialize = "C: DeserializeOwned"))]
pub struct Prompt<C> {
    /// The seat asked.
    pub seat: SeatId,
    /// What it is asked, in the book's words ("Ada: choose a stance").
    pub question: String,
    /// Whether an answer is a face-down choice that no other seat may see before its reveal
    /// (so the question is answered out of the others' sight); each [`Choice`] says which.
    pub private: bool,
    /// The legal answers, each with a label for a person (never empty when a seat is asked).
    pub choices: Vec<Choice<C>>,
}

/// One legal answer to a [`Prompt`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(serialize = "C: Serialize", deserialize = "C: DeserializeOwned"))]
pub struct Choice<C> {
    /// A short label for a person ("2 grapple", "▨☰ Iron Fist").
    pub label: String,
    /// The command the choice gives.
    pub command: C,
    /// Whether this answer is face down (a GM's public ruling offered beside a face-down
    /// declaration is not).
    pub private: bool,
}

/// A rule system: pure logic with no I/O, clocks or async.
///
/// The flow of one command is: [`decide`](Ruleset::decide) validates it against the state and
/// pushes the events it causes (without touching the state); each event is
/// [`apply`](Ruleset::apply)-ed in order; then [`automatic`](Ruleset::automatic) is asked for
/// the steps the rules take by themselves (a reveal once everyone has committed, a resolution
/// once both moves are known…) until it has none. All of those events go to the log, and
/// applying the log to the initial state rebuilds the same state.
///
/// What every shell needs besides: the typed [`Setup`](Ruleset::Setup) a game starts from,
/// the [`seats`](Ruleset::seats), the [`prompt`](Ruleset::prompt) for a seat, the
/// [`forced`](Ruleset::forced) default when a decision must be taken for a seat,
/// [`redact`](Ruleset::redact)-ion (the same shape in every system: a hidden part is blanked,
/// an event is never dropped) and [`narrate`](Ruleset::narrate)-ion of events.
pub trait Ruleset {
    /// The rule system's name in records and on the wire ("iron-triangle").
    const NAME: &'static str;
    /// The version of the rules' behaviour: a record made under another version may replay
    /// differently, which the record's event hash detects.
    const VERSION: u32;

    /// The description a game starts from (the files under `examples/`), as data: no paths
    /// left to read, validated into the initial state by [`setup`](Ruleset::setup).
    type Setup: Clone + Debug + Serialize + DeserializeOwned;
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
    /// Why a setup cannot start a game (names the field and the rule).
    type SetupError: std::error::Error;

    /// Validates `setup` into the initial state.
    fn setup(setup: &Self::Setup) -> Result<Self::State, Self::SetupError>;

    /// The seats at the table, with their roles and sides.
    fn seats(state: &Self::State) -> &Seats;

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

    /// How `event`, about to be applied to `state`, looks to `viewer`: the same event with
    /// every part the viewer may not see blanked. Never dropped, so every viewer's log has the
    /// same length and order: a hidden part is blanked.
    fn redact(state: &Self::State, event: &Self::Event, viewer: Viewer) -> Self::Event;

    /// Readable text for `event` (already redacted for `viewer`), about to be applied to
    /// `state`: one line or a few, in the book's words; `None` for bookkeeping events a
    /// person need not read. Every shell (terminal, server, browser) shows this text.
    ///
    /// The default narrates nothing: a ruleset overrides it.
    fn narrate(state: &Self::State, event: &Self::Event, viewer: Viewer) -> Option<String> {
        let _ = (state, event, viewer);
        None
    }

    /// Pushes every command `seat` may legally give now onto `out`.
    fn legal_commands(state: &Self::State, seat: SeatId, out: &mut Vec<Self::Command>);

    /// What `seat` is asked now, with its legal choices labelled; `None` when the game is not
    /// waiting for it.
    ///
    /// The default asks a generic question, labels each legal command with its JSON form and
    /// calls the answer public: a ruleset overrides it with the book's words and says which
    /// answers are face down.
    fn prompt(state: &Self::State, seat: SeatId) -> Option<Prompt<Self::Command>> {
        let mut awaiting = Vec::new();
        Self::awaiting(state, &mut awaiting);
        if !awaiting.contains(&seat) {
            return None;
        }
        let mut legal = Vec::new();
        Self::legal_commands(state, seat, &mut legal);
        let choices = legal
            .into_iter()
            .map(|command| Choice {
                label: serde_json::to_string(&command).unwrap_or_else(|_| format!("{command:?}")),
                command,
                private: false,
            })
            .collect();
        Some(Prompt { seat, question: "choose".to_owned(), private: false, choices })
    }

    /// Whether `seat` is asked a face-down question now: the `private` of its
    /// [`prompt`](Ruleset::prompt). A ruleset may answer without writing the prompt's labels
    /// (a sealed round asks this of every seat at every commitment).
    fn asks_face_down(state: &Self::State, seat: SeatId) -> bool {
        Self::prompt(state, seat).is_some_and(|p| p.private)
    }

    /// The first face-down answer `seat`'s [`prompt`](Ruleset::prompt) offers (in its
    /// order), if any. A ruleset may answer without writing the prompt's labels.
    fn first_face_down(state: &Self::State, seat: SeatId) -> Option<Self::Command> {
        Self::prompt(state, seat).and_then(|p| p.choices.into_iter().find(|c| c.private).map(|c| c.command))
    }

    /// The system's documented default for `seat`'s decision, taken when a table's decision
    /// timer runs out or the GM calls for it: never a surrender or leaving the conflict.
    /// `None` when the game is not waiting for the seat.
    ///
    /// The default has none: a ruleset overrides it with its documented default.
    fn forced(state: &Self::State, seat: SeatId) -> Option<Self::Command> {
        let _ = (state, seat);
        None
    }

    /// Whether `command` is a GM's ruling outside the choices of play: a public correction or
    /// call the rules let the GM seat make at any moment (set an energy, adjust chips, end the
    /// scene), never face down and never waited for. The GM's screen gives these on the GM
    /// seat's behalf; bots never give them.
    ///
    /// The default has none: a ruleset overrides it.
    fn is_gm_ruling(command: &Self::Command) -> bool {
        let _ = command;
        false
    }

    /// A quick reference for players: the system's steps in brief and a legend of every symbol
    /// its narration and prompts use. Every shell shows it on request (`?` at a terminal prompt,
    /// the `rules` subcommand, the browser's help).
    ///
    /// The default says nothing: a ruleset overrides it.
    fn quick_reference() -> String {
        String::new()
    }

    /// How far the table's random source has been drawn in `state`: the position of the
    /// state's [`Draws`](crate::Draws), the only source a ruleset draws from. It never goes
    /// back: the session refuses an undo that would rewind it.
    ///
    /// The default is 0, for a ruleset that never draws.
    fn draw_position(state: &Self::State) -> u64 {
        let _ = state;
        0
    }

    /// Whether the rules, from `state`, may draw before a face-down decision has been revealed
    /// (docs/fairness.md §7.2). Such a draw would depend on the server seed alone, which the
    /// host chose; a table with a sealed seat opens with an opening round so that a sealed
    /// nonce is mixed in first. A ruleset whose every draw follows the reveal of a face-down
    /// decision (each reveal is mixed in before the rules go on) says `false`: an opening
    /// round would protect no draw of its tables, and they start without one.
    ///
    /// The default is `true`, the safe answer for a ruleset that draws.
    fn draws_before_a_reveal(state: &Self::State) -> bool {
        let _ = state;
        true
    }

    /// The state's [`Draws`](crate::Draws), for the session to change its source between
    /// commands: make it verifiable before the first draw, mix in a sealed round, add a
    /// client seed, reveal the server seed (docs/fairness.md §4–§5). The session records each
    /// change so a replay makes it at the same point.
    ///
    /// The default is `None`, for a ruleset that never draws.
    fn draws_mut(state: &mut Self::State) -> Option<&mut crate::Draws> {
        let _ = state;
        None
    }

    /// Pushes the seats the game is waiting for onto `out`.
    fn awaiting(state: &Self::State, out: &mut Vec<SeatId>);

    /// Whether the game is over.
    fn is_over(state: &Self::State) -> bool;
}

/// A decision a seat must make: the seat, its legal commands and — computed only on demand —
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

/// A bot plays one seat. It sees a [`Decision`]: the legal commands and, on demand, the
/// seat's own view — never the hidden state.
pub trait Bot<R: Ruleset> {
    /// The index in `decision.legal` of the command to give. `decision.legal` is never empty.
    fn choose(&mut self, decision: &Decision<'_, R>) -> usize;
}
