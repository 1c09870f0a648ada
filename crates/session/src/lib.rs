//! The one game loop for every rule system: commands in, per-viewer updates out.
//!
//! A [`Session`] is what boardgame.io calls its *master*, generic over [`Ruleset`]: it holds a
//! game's [`Table`], who controls each seat ([`Control`]: a person at this keyboard, a remote
//! client, or a bot), and one log per viewer. Every command enters through
//! [`Session::submit`]; the session checks it against the rules, applies it, runs the bot seats
//! the game now waits for, and appends what happened to every viewer's log — each event
//! redacted for that viewer by the ruleset, narrated by the ruleset, never dropped, so every
//! viewer's log has the same length and order and a client catches up from a sequence number
//! ([`Session::updates_since`]) at a cost proportional to what it missed.
//!
//! The session does no I/O, reads no clock and owns no runtime: the caller drives it (a
//! terminal loop, a server task) and persists its [`Record`].
//!
//! **Commands are the record.** A game's [`Record`] is its setup, the ruleset's name and
//! version, and the sequence of `(seat, command)` [`Entry`]s; events are derived.
//! [`Session::resume`] replays the commands through the rules and compares a hash of the
//! derived events with the one recorded, so a replay that diverges (a newer ruleset version,
//! an edited file) is reported, never silently continued.
//!
//! **Face-down choices are not kept.** A face-down choice — a command whose own events the
//! ruleset's redaction blanks for some viewer — not yet revealed is *pending*: its
//! seat may take it back ([`Session::take_back`]) until the reveal, and a record taken while it
//! is pending leaves it out — on resume that seat chooses again, and since nobody has seen
//! anything nothing is lost.
//!
//! **Forced decisions.** Only when a table's decision timer runs out or the GM calls for it,
//! [`Session::force`] takes the seat's decision by the ruleset's documented default
//! ([`Ruleset::forced`]: never a surrender) and logs publicly that it was forced. A
//! disconnected seat alone is simply waited for.
//!
//! **Undo.** Before a reveal a seat takes back its own face-down choice. After it, revealed
//! choices and dice stand: the GM may undo the last public command ([`Session::undo`]: a loss
//! distribution, a damage split, an adjustment, an order of resolution) and it is given again.
//! An undo that would take back a draw is refused, so the draw counter never rewinds. Every
//! undo is logged publicly and recorded as an entry of its own: the record only grows.

pub mod any;
pub mod fair;
pub mod fairlog;
pub mod opening;
pub mod replay;
pub mod sealed;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use table::fairness::{CanonicalError, canonical_json};
use table::{Bot, Prompt, Role, Ruleset, SeatId, Table, Viewer};
use thiserror::Error;

/// Who makes a seat's decisions.
pub enum Control<R: Ruleset> {
    /// A person at this table's keyboard (the caller asks them).
    Person,
    /// A remote client (the caller relays its commands).
    Remote,
    /// A bot, which the session runs whenever the game waits for its seat.
    Bot(Box<dyn Bot<R> + Send>),
}

impl<R: Ruleset> std::fmt::Debug for Control<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Control::Person => "Person",
            Control::Remote => "Remote",
            Control::Bot(_) => "Bot",
        })
    }
}

/// How a recorded command was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum How {
    /// By the seat (a person, a client or a bot).
    #[default]
    Given,
    /// By the session for the seat, with the ruleset's default ([`Session::force`]).
    Forced,
    /// Not a command: the GM's seat undid the last public command, which this entry repeats
    /// ([`Session::undo`]).
    Undo,
}

/// One command of the record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(serialize = "C: Serialize", deserialize = "C: serde::de::DeserializeOwned"))]
pub struct Entry<C> {
    /// The seat the command is for.
    pub seat: SeatId,
    /// The command.
    pub command: C,
    /// Given by the seat, or forced.
    #[serde(default, skip_serializing_if = "is_given")]
    pub how: How,
}

fn is_given(how: &How) -> bool {
    *how == How::Given
}

/// A game as it is kept: the setup, the ruleset, and the commands; events are derived.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(
    serialize = "R::Setup: Serialize, R::Command: Serialize",
    deserialize = "R::Setup: serde::de::DeserializeOwned, R::Command: serde::de::DeserializeOwned"
))]
pub struct Record<R: Ruleset> {
    /// [`Ruleset::NAME`] of the rules that made it.
    pub ruleset: String,
    /// [`Ruleset::VERSION`] of the rules that made it.
    pub version: u32,
    /// What the game started from.
    pub setup: R::Setup,
    /// Every command, oldest first (pending face-down choices left out).
    pub entries: Vec<Entry<R::Command>>,
    /// SHA-256 (hex) of the events the entries derive, each as canonical JSON on one line.
    pub events_hash: String,
}

/// What a viewer is shown, one per position in its log.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
#[serde(bound(serialize = "E: Serialize"))]
pub enum Item<E> {
    /// An event of the rules, as the viewer may see it, with its narration.
    Event {
        /// The event, hidden parts blanked.
        event: E,
        /// The ruleset's narration for this viewer, if the event is worth reading.
        text: Option<String>,
    },
    /// A seat took back its face-down choice.
    TookBack {
        /// The seat.
        seat: SeatId,
    },
    /// The next command was forced on a seat (timer or GM), with the ruleset's default.
    Forced {
        /// The seat.
        seat: SeatId,
    },
    /// The GM undid the last public command; the game is back where it was before it, and
    /// the seat is asked again. Face-down choices given after it were taken back as well.
    Undone {
        /// The GM's seat.
        by: SeatId,
        /// The seat whose command was undone.
        seat: SeatId,
    },
    /// A sealed round's commitments are bound: every awaited seat committed (one entry per
    /// decision, in order); the sealed seats now reveal.
    Bound {
        /// Each decision's commitment.
        commitments: Vec<sealed::SeatCommitment>,
    },
    /// A seat's sealed decision failed (wrong nonce, illegal choice, no reveal in time): its
    /// decision is forced next.
    Fault {
        /// The seat.
        seat: SeatId,
        /// What went wrong.
        #[serde(flatten)]
        fault: sealed::Fault,
    },
    /// A sealed round's command and nonce, opened to every viewer after the reveal so that
    /// each can check the seat's commitment.
    Opened {
        /// The seat.
        seat: SeatId,
        /// The command, in the ruleset's JSON form.
        command: serde_json::Value,
        /// The nonce it was bound with, 64 lowercase hex digits.
        nonce: String,
    },
    /// A seat gave a client seed (docs/fairness.md §4); it takes part in the draws from the
    /// next [`Item::Mix`] on. Only at a table with verifiable draws.
    ClientSeed {
        /// The seat.
        seat: SeatId,
        /// The client seed, 64 lowercase hex digits.
        seed: String,
    },
    /// A revealed sealed round mixed into the verifiable draws (docs/fairness.md §5.2), before
    /// the rules act on its commands: each seat's nonce of the round, in seat order (none for
    /// a seat without one), and the client seeds now in effect.
    Mix {
        /// Each seat's nonce, 64 lowercase hex digits, or none.
        round_nonces: Vec<Option<String>>,
    },
    /// One verifiable draw the rules made (docs/fairness.md §7), after the events that used it.
    Draw {
        /// The draw: counter, range size, outcome, retries and mixes.
        draw: table::fairness::DrawRecord,
    },
    /// The game is over and the server seed in use is revealed (docs/fairness.md §4), to be
    /// checked against its published commitment; with it every draw it keyed can be
    /// re-derived. When play may go on, the next seed's commitment comes with it (a
    /// *rotation*): the draws after this item are keyed by that seed.
    ServerSeed {
        /// The server seed, 64 lowercase hex digits.
        revealed: String,
        /// Its commitment, as published when it came into use (the table's, for the first).
        commitment: String,
        /// The commitment of the seed the draws go on with, if play may go on.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        next: Option<String>,
    },
    /// The game's setup, revealed at its first end right after the server seed (docs/fairness.md
    /// §7.1): until then a viewer's log holds only its commitment
    /// ([`Session::setup_commitment`]), so nothing the rules hide (an NPC's moves) is in it.
    Setup {
        /// The setup's JSON text, as committed.
        setup: String,
        /// The nonce of its commitment, 64 lowercase hex digits.
        nonce: String,
    },
    /// The game's record revealed at each end right after the server seed (and the setup), so
    /// that a verifier can replay the rules ([`crate::replay`], docs/fairness.md §7.3): every
    /// command given so far as the record keeps it ([`Entry`]: seat, command, how), oldest
    /// first, a choice still face down at the end included.
    Record {
        /// The entries, each an [`Entry`] in the ruleset's JSON form.
        entries: Vec<serde_json::Value>,
        /// The face-down choices taken back so far, each a [`TakenBack`] in the ruleset's JSON
        /// form, to be replayed at their places (left out when there are none).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        taken_back: Vec<serde_json::Value>,
    },
}

/// The canonical texts [`Session::updates_canonical`] wrote, kept for the other viewers'
/// logs (the same public item is written once for all). Good while the session stays as it
/// was: a server makes one per round of frames, and one kept across a change is cleared when
/// the log's length moved.
#[derive(Debug, Default)]
pub struct CanonicalTexts {
    /// The length of the logs the texts were written at.
    seq: u64,
    /// (viewer's log, position, text).
    written: Vec<(usize, usize, Arc<str>)>,
}

/// One position of a viewer's log.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(bound(serialize = "E: Serialize"))]
pub struct Update<E> {
    /// The position, counting from 1; the same item number in every viewer's log.
    pub seq: u64,
    /// What the viewer is shown.
    #[serde(flatten)]
    pub item: Item<E>,
}

/// Why the session refused something.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SessionError<E: std::error::Error> {
    /// The rules refused the command.
    #[error(transparent)]
    Rules(E),
    /// No seat has this number.
    #[error("there is no seat number {0}")]
    NoSeat(u16),
    /// Only the GM may call for a forced decision.
    #[error("only the GM may force a seat's decision")]
    NotGm,
    /// Only the GM may undo the last command (issue 33 §2: a player's undo was told "only the
    /// GM may force").
    #[error("only the GM may undo the last command")]
    NotGmUndo,
    /// The game is not waiting for that seat.
    #[error("the game is not waiting for seat {0}")]
    NotAwaited(u16),
    /// The ruleset has no default for this decision.
    #[error("the rules give no default for seat {0}'s decision")]
    NoDefault(u16),
    /// Nothing of the seat's is face down to take back.
    #[error("seat {0} has no face-down choice to take back (a revealed choice stands)")]
    NothingToTakeBack(u16),
    /// The game is over: a face-down choice left unrevealed stays as it is.
    #[error("the game is over: seat {0}'s face-down choice can no longer be taken back")]
    Over(u16),
    /// Nothing public is left to undo.
    #[error("there is no public command to undo")]
    NothingToUndo,
    /// The last public command is a revealed choice, or caused a reveal: it stands.
    #[error("the last command revealed face-down choices, and a revealed choice stands")]
    RevealStands,
    /// The last public command drew from the table's random source: dice stand.
    #[error(
        "the last command drew dice or cards at random, and a draw stands (the draw counter never rewinds)"
    )]
    DrawStands,
    /// A sealed round refused the request.
    #[error(transparent)]
    Sealing(sealed::SealError),
    /// A verifiable-draws request refused (no verifiable source, a draw already made, a seat
    /// out of range).
    #[error("verifiable draws: {0}")]
    Fairness(#[from] table::fairness::FairnessError),
    /// The draws can be made verifiable only before the first command and the first draw.
    #[error("the draws can be made verifiable only before the first command and draw")]
    DrawsStarted,
    /// Bots kept playing past the session's step limit.
    #[error("the bots made {0} decisions without the game ending or waiting for a person")]
    BotsTooLong(usize),
}

/// Why a record cannot be resumed.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ResumeError {
    /// The record is of another rule system.
    #[error("the record is a {found} game, not {expected}")]
    WrongRuleset {
        /// This ruleset's name.
        expected: &'static str,
        /// The record's.
        found: String,
    },
    /// The setup is refused by the rules.
    #[error("the record's setup is refused: {0}")]
    Setup(String),
    /// A recorded command is refused by the rules.
    #[error("command {number} of the record is refused: {why}")]
    Refused {
        /// Its position, counting from 1.
        number: usize,
        /// The rules' reason.
        why: String,
    },
    /// The commands replay to other events than the record says.
    #[error(
        "the record replays differently than when it was made (recorded under {ruleset} version \
         {recorded}, replayed under version {now}): its events hash does not match"
    )]
    Diverged {
        /// The ruleset.
        ruleset: &'static str,
        /// The version the record names.
        recorded: u32,
        /// This build's version.
        now: u32,
    },
}

/// What the session learnt of an entry when it was given.
#[derive(Debug, Clone, Copy)]
struct Mark {
    /// Its own events were blanked for some viewer: a face-down choice.
    face_down: bool,
    /// Its automatic steps revealed face-down choices.
    revealed: bool,
    /// It, or the steps it set off, drew from the table's random source.
    drew: bool,
    /// Undone by a later undo, or an undo itself: it no longer counts.
    undone: bool,
    /// Its place among every command given, taken back ones included ([`TakenBack::given`]).
    serial: usize,
}

/// A face-down choice taken back (docs/fairness.md §7.3): in no [`Record`], revealed only in a
/// verifiable log's record item, so that a verifier replays it at its place and takes it back
/// as the session did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(serialize = "C: Serialize", deserialize = "C: serde::de::DeserializeOwned"))]
pub struct TakenBack<C> {
    /// The command as it was given.
    #[serde(flatten)]
    pub entry: Entry<C>,
    /// Its place among every command given, taken back ones included: the record's entries
    /// and the taken-back commands merged in the order they were given.
    pub given: usize,
    /// Which of the log's `took_back` entries took it back, counting from 0.
    pub took_back: usize,
}

/// The viewers of a table: each seat, then the spectators.
fn viewers(seats: usize) -> impl Iterator<Item = Viewer> {
    (0..seats).map(|i| Viewer::Seat(SeatId(i as u16))).chain(std::iter::once(Viewer::Spectator))
}

/// A game in progress with its seats' controls and every viewer's log.
pub struct Session<R: Ruleset> {
    setup: R::Setup,
    table: Table<R>,
    /// The state the viewers' logs have been written up to (lags the table within a call).
    shadow: R::State,
    /// Events of the table's log already written to the viewers' logs.
    written: usize,
    controls: Vec<Control<R>>,
    /// One log per viewer: seats in order, then the spectators.
    logs: Vec<Vec<Item<R::Event>>>,
    entries: Vec<Entry<R::Command>>,
    /// What the session learnt of each entry when it was given (parallel to `entries`).
    marks: Vec<Mark>,
    /// Indices in `entries` of face-down choices not yet revealed.
    pending: Vec<usize>,
    narrate: bool,
    bot_limit: usize,
    legal: Vec<R::Command>,
    /// How each seat answers face-down questions.
    modes: Vec<sealed::Mode>,
    /// The open sealed round, if any.
    round: Option<sealed::Round<R>>,
    /// The opening round the table waits for before the rules' first step, if any.
    opening: Option<opening::Opening>,
    /// How many of `fair`'s changes were made before the table opened (after an opening
    /// round): a rebuild makes them before the rules' first step.
    opening_steps: usize,
    /// Commands of finished sealed rounds still face down in the rules (a public command of
    /// the round revealed nothing), with their nonces: opened once the rules reveal them.
    deferred: Vec<(SeatId, R::Command, sealed::Nonce)>,
    /// Changes made to the verifiable draw source, each before the entry of its index, so a
    /// rebuild makes them again at the same points.
    fair: Vec<(usize, fair::Step)>,
    /// The server seed's commitment, once the draws are verifiable.
    commitment: Option<table::fairness::Commitment>,
    /// Whether the server seed was revealed (at the end of the game) with none to go on with.
    seed_revealed: bool,
    /// The seeds after a rotation come from this secret ([`Session::rotate_with`]), never
    /// revealed; with it, each reveal of a seed commits the next at once.
    rotation: Option<fair::Rotation>,
    /// The setup's JSON text and the nonce it is committed with, once the draws are
    /// verifiable; revealed in every log at the game's first end.
    setup_secret: Option<(String, table::fairness::Nonce)>,
    /// Whether the setup was revealed.
    setup_revealed: bool,
    /// How many commands were given, taken back ones included (the next one's
    /// [`TakenBack::given`]).
    given: usize,
    /// How many `took_back` items the logs hold.
    took_back: usize,
    /// The face-down choices taken back, revealed with the record at each end (never in a
    /// [`Record`]).
    taken_back: Vec<TakenBack<R::Command>>,
}

impl<R: Ruleset> std::fmt::Debug for Session<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("ruleset", &R::NAME)
            .field("entries", &self.entries.len())
            .field("events", &self.table.log().len())
            .field("controls", &self.controls)
            .finish_non_exhaustive()
    }
}

impl<R: Ruleset> Session<R> {
    /// Opens a game from `setup`, every seat controlled by a person; see
    /// [`Session::control`] to seat bots and remote clients.
    pub fn new(setup: R::Setup) -> Result<Self, R::SetupError> {
        let initial = R::setup(&setup)?;
        let table = Table::new(initial.clone());
        let seats = R::seats(&initial).len();
        let mut session = Session {
            setup,
            shadow: initial,
            table,
            written: 0,
            controls: (0..seats).map(|_| Control::Person).collect(),
            logs: vec![Vec::new(); seats + 1],
            entries: Vec::new(),
            marks: Vec::new(),
            pending: Vec::new(),
            narrate: true,
            bot_limit: 1_000_000,
            legal: Vec::new(),
            modes: vec![sealed::Mode::Plain; seats],
            round: None,
            opening: None,
            opening_steps: 0,
            deferred: Vec::new(),
            fair: Vec::new(),
            commitment: None,
            seed_revealed: false,
            rotation: None,
            setup_secret: None,
            setup_revealed: false,
            given: 0,
            took_back: 0,
            taken_back: Vec::new(),
        };
        session.write_logs(0);
        Ok(session)
    }

    /// Whether events are narrated into the logs (on by default; simulations may turn it off).
    pub fn set_narration(&mut self, on: bool) {
        self.narrate = on;
    }

    /// At most how many bot decisions one call may make (a bound so a game between bots that
    /// never ends cannot hang its caller).
    pub fn set_bot_limit(&mut self, limit: usize) {
        self.bot_limit = limit;
    }

    /// Gives `seat` to `control`, then runs the bots if the game waits for one.
    pub fn control(&mut self, seat: SeatId, control: Control<R>) -> Result<(), SessionError<R::Error>> {
        let slot = self.controls.get_mut(usize::from(seat.0)).ok_or(SessionError::NoSeat(seat.0))?;
        *slot = control;
        self.run_bots()
    }

    /// Who controls `seat`.
    pub fn control_of(&self, seat: SeatId) -> Option<&Control<R>> {
        self.controls.get(usize::from(seat.0))
    }

    /// The rules' table: state, log and views. Shells show views, never the state.
    pub fn table(&self) -> &Table<R> {
        &self.table
    }

    /// What `viewer` may see now.
    pub fn view(&self, viewer: Viewer) -> R::View {
        self.table.view(viewer)
    }

    /// What `seat` is asked now, if the game waits for it. In a sealed round: the question of
    /// its next decision, asked on the round's scratch table; none once it has committed.
    pub fn prompt(&self, seat: SeatId) -> Option<Prompt<R::Command>> {
        if self.opening.is_some() {
            return None;
        }
        match &self.round {
            None => R::prompt(self.table.state(), seat),
            Some(_) if self.in_round(seat) => R::prompt(self.decision_state(seat), seat),
            Some(_) => None,
        }
    }

    /// The seats the game waits for. In a sealed round: the seats it waits for a commitment
    /// from, then, once bound, the sealed seats whose reveal it waits for.
    pub fn awaiting(&self) -> Vec<SeatId> {
        if let Some(opening) = &self.opening {
            return opening.awaiting();
        }
        match self.round() {
            None => self.table.awaiting(),
            Some(r) if r.bound => {
                let mut out = r.revealing;
                out.dedup();
                out
            }
            Some(_) => self.round_next(),
        }
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.table.is_over()
    }

    /// The one entry point: `command` from `seat`. The rules check it (on error nothing
    /// changes), the bots the game then waits for play, and every viewer's log grows.
    ///
    /// At a table with sealed seats, a command of a sealed round is refused here: it needs the
    /// caller's nonce ([`Session::submit_bound`]).
    pub fn submit(&mut self, seat: SeatId, command: &R::Command) -> Result<(), SessionError<R::Error>> {
        if self.opening.is_some() {
            return Err(SessionError::Sealing(sealed::SealError::RoundOpen));
        }
        if self.in_round(seat) {
            return Err(SessionError::Sealing(sealed::SealError::NeedsNonce(seat.0)));
        }
        if self.round.is_some() {
            return Err(SessionError::Sealing(sealed::SealError::RoundOpen));
        }
        self.submit_as(seat, command, How::Given)?;
        self.run_bots()
    }

    fn submit_as(
        &mut self,
        seat: SeatId,
        command: &R::Command,
        how: How,
    ) -> Result<(), SessionError<R::Error>> {
        if usize::from(seat.0) >= self.controls.len() {
            return Err(SessionError::NoSeat(seat.0));
        }
        let before = self.table.log().len();
        let draws_before = R::draw_position(self.table.state());
        let (submitted, made) =
            table::fairness::record_draws(|| self.table.submit(seat, command).map(|_| ()));
        submitted.map_err(SessionError::Rules)?;
        let caused = self.table.log().len() - before - self.table.last_automatic();
        // A face-down choice is a command whose own events some viewer sees blanked.
        let private = self.write_logs(caused);
        self.log_draws(&made, draws_before);
        let mut revealed = false;
        if self.table.last_automatic() > 0 {
            // A reveal is an automatic step: every face-down choice so far is face up now.
            revealed = !self.pending.is_empty() || private;
            self.pending.clear();
        }
        let drew = R::draw_position(self.table.state()) != draws_before;
        self.marks.push(Mark { face_down: private, revealed, drew, undone: false, serial: self.given });
        self.given += 1;
        self.entries.push(Entry { seat, command: command.clone(), how });
        if private && self.table.last_automatic() == 0 {
            self.pending.push(self.entries.len() - 1);
        }
        self.reveal_seed_if_over();
        Ok(())
    }

    /// Takes `seat`'s decision with the ruleset's documented default, logged publicly as
    /// forced: only when the table's decision timer ran out (`by` = `None`) or the GM calls for
    /// it (`by` = the GM's seat).
    pub fn force(&mut self, seat: SeatId, by: Option<SeatId>) -> Result<(), SessionError<R::Error>> {
        if let Some(by) = by {
            let role = R::seats(self.table.state())
                .get(by)
                .map(|s| s.role)
                .map_err(|_| SessionError::NoSeat(by.0))?;
            if role != Role::Gm {
                return Err(SessionError::NotGm);
            }
        }
        if self.round.is_some() || self.opening.is_some() || self.in_round(seat) {
            return Err(SessionError::Sealing(sealed::SealError::NeedsNonce(seat.0)));
        }
        if !self.table.awaiting().contains(&seat) {
            return Err(SessionError::NotAwaited(seat.0));
        }
        let command = R::forced(self.table.state(), seat).ok_or(SessionError::NoDefault(seat.0))?;
        for log in &mut self.logs {
            log.push(Item::Forced { seat });
        }
        self.submit_as(seat, &command, How::Forced)?;
        self.run_bots()
    }

    /// Takes back `seat`'s latest face-down choice, allowed until it is revealed (until every
    /// awaited seat has committed) while the game is not over. Logged publicly; the seat is
    /// asked again.
    ///
    /// In a sealed round not yet bound, takes back the seat's latest commitment instead.
    pub fn take_back(&mut self, seat: SeatId) -> Result<(), SessionError<R::Error>> {
        if self.take_back_opening(seat)? || self.take_back_commitment(seat)? {
            return Ok(());
        }
        let Some(at) = self.pending.iter().rposition(|&i| self.entries[i].seat == seat) else {
            return Err(SessionError::NothingToTakeBack(seat.0));
        };
        if self.is_over() {
            // A finished game's log is final (a server has marked the table finished).
            return Err(SessionError::Over(seat.0));
        }
        let index = self.pending[at];
        // Rebuild the table from the commands: before a reveal nothing depends on the choice —
        // unless a later face-down choice was given on top of it (in No Dice each Actor commits
        // its Aspect card after the one before it): then the take-back is refused, with the
        // rules' reason, and nothing changes.
        let kept = (
            self.entries.clone(),
            self.marks.clone(),
            self.pending.clone(),
            self.fair.clone(),
            self.taken_back.len(),
        );
        self.drop_pending(index);
        if let Err(e) = self.rebuild() {
            (self.entries, self.marks, self.pending, self.fair, _) = kept;
            self.taken_back.truncate(kept.4);
            return Err(e);
        }
        self.log_took_back(seat);
        Ok(())
    }

    /// Logs that `seat` took back a commitment or a choice (each `took_back` item is counted, so
    /// a [`TakenBack`] names its own).
    pub(crate) fn log_took_back(&mut self, seat: SeatId) {
        for log in &mut self.logs {
            log.push(Item::TookBack { seat });
        }
        self.took_back += 1;
    }

    /// Forgets the pending face-down choice at `index` of the entries, kept for the fair log
    /// as taken back by the next `took_back` item.
    fn drop_pending(&mut self, index: usize) {
        self.pending.retain(|&p| p != index);
        let entry = self.entries.remove(index);
        let mark = self.marks.remove(index);
        self.taken_back.push(TakenBack { entry, given: mark.serial, took_back: self.took_back });
        for p in &mut self.pending {
            if *p > index {
                *p -= 1;
            }
        }
        for (at, _) in &mut self.fair {
            if *at > index {
                *at -= 1;
            }
        }
    }

    /// Rebuilds the table from the commands that stand (neither undone nor undos).
    fn rebuild(&mut self) -> Result<(), SessionError<R::Error>> {
        let mut table = Table::<R>::unopened(self.table.initial().clone());
        let mut steps = self.fair.iter().peekable();
        // An opening round's changes (client seeds, its mix) came before the rules' first step.
        for _ in 0..self.opening_steps {
            if let Some((_, step)) = steps.next() {
                fair::redo(&mut table, step)?;
            }
        }
        table.open();
        for (i, (e, m)) in self.entries.iter().zip(&self.marks).enumerate() {
            while let Some((_, step)) = steps.next_if(|(at, _)| *at <= i) {
                fair::redo(&mut table, step)?;
            }
            if !m.undone {
                table.submit(e.seat, &e.command).map_err(SessionError::Rules)?;
            }
        }
        for (_, step) in steps {
            fair::redo(&mut table, step)?;
        }
        self.shadow = table.state().clone();
        self.written = table.log().len();
        self.table = table;
        Ok(())
    }

    /// The GM's seat `by` undoes the last public command, which its seat is then asked again;
    /// face-down choices given after it (not yet revealed) are taken back with it. Refused when
    /// that command revealed face-down choices or drew at random: revealed choices and draws
    /// stand, and the draw counter never rewinds. Logged publicly and recorded.
    pub fn undo(&mut self, by: SeatId) -> Result<(), SessionError<R::Error>> {
        if self.round.is_some() || self.opening.is_some() {
            return Err(SessionError::Sealing(sealed::SealError::RoundOpen));
        }
        self.undo_inner(by, None)?;
        self.run_bots()
    }

    /// [`Session::undo`] without running the bots; with `expect`, the command it must undo
    /// (when replaying a record).
    fn undo_inner(&mut self, by: SeatId, expect: Option<&R::Command>) -> Result<(), SessionError<R::Error>> {
        let role =
            R::seats(self.table.state()).get(by).map(|s| s.role).map_err(|_| SessionError::NoSeat(by.0))?;
        if role != Role::Gm {
            return Err(SessionError::NotGmUndo);
        }
        let mut later = Vec::new();
        let mut target = None;
        for i in (0..self.entries.len()).rev() {
            if self.marks[i].undone {
                continue;
            }
            if self.pending.contains(&i) {
                later.push(i);
                continue;
            }
            target = Some(i);
            break;
        }
        let Some(target) = target else { return Err(SessionError::NothingToUndo) };
        let mark = self.marks[target];
        if mark.face_down || mark.revealed {
            return Err(SessionError::RevealStands);
        }
        if mark.drew {
            return Err(SessionError::DrawStands);
        }
        let undone = self.entries[target].clone();
        if expect.is_some_and(|c| *c != undone.command) {
            return Err(SessionError::NothingToUndo);
        }
        // `later` is in descending order, so removing keeps the other indices valid.
        let took_back: Vec<SeatId> = later.iter().map(|&i| self.entries[i].seat).collect();
        let dropped = later.len();
        for i in later {
            self.drop_pending(i);
        }
        // They are logged oldest first, each by a `took_back` item of its own.
        let from = self.taken_back.len() - dropped;
        self.taken_back[from..].reverse();
        for (j, t) in self.taken_back[from..].iter_mut().enumerate() {
            t.took_back = self.took_back + j;
        }
        // A sealed round's command taken back is never opened: its seat chooses again.
        for seat in &took_back {
            if let Some(at) = self.deferred.iter().rposition(|(s, _, _)| s == seat) {
                self.deferred.remove(at);
            }
        }
        self.marks[target].undone = true;
        self.entries.push(Entry { seat: by, command: undone.command, how: How::Undo });
        self.marks.push(Mark {
            face_down: false,
            revealed: false,
            drew: false,
            undone: true,
            serial: self.given,
        });
        self.given += 1;
        self.rebuild()?;
        for &seat in took_back.iter().rev() {
            self.log_took_back(seat);
        }
        for log in &mut self.logs {
            log.push(Item::Undone { by, seat: undone.seat });
        }
        Ok(())
    }

    /// Runs the bot seats while the game waits for one.
    fn run_bots(&mut self) -> Result<(), SessionError<R::Error>> {
        if self.sealing() {
            // A sealed table's bots are run by the caller, who binds their commands.
            return Ok(());
        }
        let mut steps = 0;
        loop {
            let awaiting = self.table.awaiting();
            let Some(seat) = awaiting
                .into_iter()
                .find(|s| matches!(self.controls.get(usize::from(s.0)), Some(Control::Bot(_))))
            else {
                return Ok(());
            };
            if steps == self.bot_limit {
                return Err(SessionError::BotsTooLong(steps));
            }
            steps += 1;
            let mut legal = std::mem::take(&mut self.legal);
            let decision = self.table.decision(seat, &mut legal);
            let Some(Control::Bot(bot)) = self.controls.get_mut(usize::from(seat.0)) else { unreachable!() };
            let pick = bot.choose(&decision).min(legal.len().saturating_sub(1));
            let command = legal.get(pick).cloned();
            self.legal = legal;
            let Some(command) = command else { return Ok(()) };
            self.submit_as(seat, &command, How::Given)?;
        }
    }

    /// Writes the table's new events to every viewer's log. Returns whether any of the first
    /// `watched` of them was blanked for some viewer (what makes a command a face-down choice).
    fn write_logs(&mut self, watched: usize) -> bool {
        let seats = self.controls.len();
        let (mut blanked, mut k) = (false, 0);
        while self.written < self.table.log().len() {
            let event = &self.table.log()[self.written];
            for (log, viewer) in self.logs.iter_mut().zip(viewers(seats)) {
                let seen = R::redact(&self.shadow, event, viewer);
                blanked |= k < watched && seen != *event;
                let text = if self.narrate { R::narrate(&self.shadow, &seen, viewer) } else { None };
                log.push(Item::Event { event: seen, text });
            }
            R::apply(&mut self.shadow, event);
            self.written += 1;
            k += 1;
        }
        blanked
    }

    fn log_index(&self, viewer: Viewer) -> Option<usize> {
        match viewer {
            Viewer::Seat(s) if usize::from(s.0) < self.controls.len() => Some(usize::from(s.0)),
            Viewer::Seat(_) => None,
            Viewer::Spectator => Some(self.controls.len()),
        }
    }

    /// How many entries of the record are settled: those before the first face-down choice
    /// still waiting for its reveal. They never change again, so an append-only store
    /// ([`Record`] entries kept one row each) appends up to here; the entries after it may
    /// still move, because a face-down choice enters the record at its place once revealed.
    pub fn settled(&self) -> usize {
        self.pending.first().copied().unwrap_or(self.entries.len())
    }

    /// How many face-down choices wait for their reveal (a record leaves them out).
    pub fn face_down(&self) -> usize {
        self.pending.len()
    }

    /// How many items every viewer's log holds.
    pub fn seq(&self) -> u64 {
        self.logs.first().map_or(0, |l| l.len() as u64)
    }

    /// What `viewer` has not seen yet: the items after `seq` (0 for all of them). Costs what
    /// is returned, not the length of the game.
    pub fn updates_since(&self, viewer: Viewer, seq: u64) -> Vec<Update<R::Event>> {
        let Some(i) = self.log_index(viewer) else { return Vec::new() };
        let log = &self.logs[i];
        let from = usize::try_from(seq).unwrap_or(usize::MAX).min(log.len());
        log[from..]
            .iter()
            .enumerate()
            .map(|(k, item)| Update { seq: (from + k + 1) as u64, item: item.clone() })
            .collect()
    }

    /// [`updates_since`](Session::updates_since), each update as its canonical JSON text
    /// (docs/fairness.md §2): what `viewer`'s verifiable log hashes, and a JSON form of the
    /// update like any other. An item `texts` already holds for the same position, equal in
    /// another viewer's log (most items are public), is not written again.
    pub fn updates_canonical(
        &self,
        viewer: Viewer,
        seq: u64,
        texts: &mut CanonicalTexts,
    ) -> Result<Vec<Arc<str>>, CanonicalError> {
        let Some(i) = self.log_index(viewer) else { return Ok(Vec::new()) };
        if texts.seq != self.seq() {
            texts.written.clear();
            texts.seq = self.seq();
        }
        let log = &self.logs[i];
        let from = usize::try_from(seq).unwrap_or(usize::MAX).min(log.len());
        let mut out = Vec::with_capacity(log.len() - from);
        for (at, item) in log.iter().enumerate().skip(from) {
            let same = texts
                .written
                .iter()
                .find(|(j, k, _)| *k == at && self.logs.get(*j).and_then(|l| l.get(at)) == Some(item));
            let text = match same {
                Some((_, _, text)) => Arc::clone(text),
                None => {
                    let update = Update { seq: at as u64 + 1, item: item.clone() };
                    // Items are plain data with string keys: they always serialise.
                    let value = serde_json::to_value(&update).unwrap_or(serde_json::Value::Null);
                    let text: Arc<str> = canonical_json(&value)?.into();
                    texts.written.push((i, at, Arc::clone(&text)));
                    text
                }
            };
            out.push(text);
        }
        Ok(out)
    }

    /// The game's record: its setup and commands, face-down choices not yet revealed left
    /// out, with the hash of the events they derive.
    pub fn record(&self) -> Record<R> {
        self.record_of(self.entries.len())
    }

    /// The record up to [`settled`](Session::settled): what an append-only store keeps, with
    /// the hash of the events those entries derive.
    pub fn settled_record(&self) -> Record<R> {
        self.record_of(self.settled())
    }

    /// The record of the first `upto` entries, pending face-down choices left out, with the
    /// hash of the events they derive.
    fn record_of(&self, upto: usize) -> Record<R> {
        let kept = |i: &usize| *i < upto && !self.pending.contains(i);
        let entries: Vec<_> =
            self.entries.iter().enumerate().filter(|(i, _)| kept(i)).map(|(_, e)| e.clone()).collect();
        let events_hash = if self.pending.is_empty() && upto == self.entries.len() {
            events_hash::<R>(self.table.log())
        } else {
            let mut table = Table::<R>::new(self.table.initial().clone());
            for (i, (e, m)) in self.entries.iter().zip(&self.marks).enumerate() {
                if !m.undone && kept(&i) {
                    // These commands were all accepted in this order, less face-down choices
                    // nothing has depended on yet, so they are accepted again.
                    let _ = table.submit(e.seat, &e.command);
                }
            }
            events_hash::<R>(table.log())
        };
        Record {
            ruleset: R::NAME.to_owned(),
            version: R::VERSION,
            setup: self.setup.clone(),
            entries,
            events_hash,
        }
    }

    /// Resumes a game from its record: the commands replay through the rules, and the events
    /// they derive must hash as recorded. Every seat is a person's until
    /// [`control`](Session::control) says otherwise.
    pub fn resume(record: Record<R>) -> Result<Self, ResumeError> {
        let (recorded, hash) = (record.version, record.events_hash.clone());
        let session = Self::replay(record)?;
        if events_hash::<R>(session.table.log()) != hash {
            return Err(ResumeError::Diverged { ruleset: R::NAME, recorded, now: R::VERSION });
        }
        Ok(session)
    }

    /// [`resume`](Session::resume) without comparing the events hash: every command is still
    /// checked by the rules. For a store whose hash lags its last entries (a crash between
    /// storing a command and its hash).
    pub fn replay(record: Record<R>) -> Result<Self, ResumeError> {
        if record.ruleset != R::NAME {
            return Err(ResumeError::WrongRuleset { expected: R::NAME, found: record.ruleset });
        }
        let mut session = Session::<R>::new(record.setup).map_err(|e| ResumeError::Setup(e.to_string()))?;
        for (n, entry) in record.entries.into_iter().enumerate() {
            if entry.how == How::Undo {
                session
                    .undo_inner(entry.seat, Some(&entry.command))
                    .map_err(|e| ResumeError::Refused { number: n + 1, why: format!("undo: {e}") })?;
                continue;
            }
            if entry.how == How::Forced {
                for log in &mut session.logs {
                    log.push(Item::Forced { seat: entry.seat });
                }
            }
            session
                .submit_as(entry.seat, &entry.command, entry.how)
                .map_err(|e| ResumeError::Refused { number: n + 1, why: e.to_string() })?;
        }
        Ok(session)
    }
}

/// Whether `command` from `seat` is a face-down choice: one of the seat's prompt's choices
/// marked private. A command the prompt does not offer (a GM's ruling given beside it) is
/// public.
pub fn is_face_down<R: Ruleset>(state: &R::State, seat: SeatId, command: &R::Command) -> bool {
    R::prompt(state, seat)
        .is_some_and(|p| p.private && p.choices.iter().any(|c| c.private && c.command == *command))
}

/// SHA-256 (hex) of `events`, each as JSON on its own line.
pub fn events_hash<R: Ruleset>(events: &[R::Event]) -> String {
    let mut hasher = Sha256::new();
    for e in events {
        // Events are plain data: serialising them cannot fail.
        let line = serde_json::to_vec(e).unwrap_or_default();
        hasher.update(&line);
        hasher.update(b"\n");
    }
    hex::encode(hasher.finalize())
}
