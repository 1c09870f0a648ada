//! Sealed choices (commit–reveal): a face-down decision the server itself cannot know before
//! every seat is bound.
//!
//! A seat in [`Mode::Sealed`] answers a face-down question with a [`Commitment`] only:
//! SHA-256 over the canonical JSON of its command followed by a 32-byte [`Nonce`] it keeps
//! (`table::fairness` and docs/fairness.md define both exactly).
//! When a table has any sealed seat, every face-down decision becomes a *sealed round*:
//!
//! 1. **Committing.** Each seat the round waits for commits: a sealed seat its hash
//!    ([`Session::seal`]), a plain seat or a bot its command, which the caller binds with a
//!    fresh random nonce of its own ([`Session::submit_bound`]) so that it too is one hash
//!    among the others. Until every awaited seat has committed, a seat may replace its
//!    commitment (seal again) or take it back, without a fault. Nothing reaches the rules yet:
//!    the session's table does not change.
//! 2. **Bound.** When the round waits for no one more, the commitments are bound: one
//!    [`Item::Bound`](crate::Item::Bound) in every log lists them all, and the sealed seats are
//!    asked to reveal.
//! 3. **Reveals.** Each sealed seat reveals its command and nonce ([`Session::reveal`]); a
//!    reveal that does not hash to the seat's commitment is a [`Fault::WrongNonce`]. No reveal
//!    before the table's deadline ([`Session::force`] during the reveals) is a
//!    [`Fault::NoReveal`]; so is a seat's own word that it lost its secret
//!    ([`Session::give_up`], with [`NoRevealReason::SecretLost`]).
//! 4. **Resolution.** Once every sealed seat has revealed (or faulted), the commands go to the
//!    rules in the order the rules ask for them; a command the rules refuse is a
//!    [`Fault::Illegal`]. A faulted seat gets the session's forced decision, after a public
//!    [`Item::Fault`](crate::Item::Fault). Then every command and its nonce is opened to all
//!    ([`Item::Opened`](crate::Item::Opened)), so each seat can check every commitment.
//!    A decision the rules never ask for, because an earlier command of the round ended the
//!    game (a GM ending the scene), is withdrawn: neither mixed nor opened (docs/fairness.md
//!    §3, "A decision the rules never take").
//!
//! **Decisions in sequence.** Some rules ask their face-down questions one seat after another
//! (No Dice's Commit steps, from UTG; a GM declaring for several fighters). The round still
//! binds every one of them before any reveal: the session asks the next seat on a scratch
//! table where each committed decision is played — by its command when the session holds it
//! (a plain seat's, a bot's), by a *stand-in* when it is sealed (the first face-down answer the
//! seat's prompt offered). Hidden information never shapes another seat's question (the rules'
//! invariant: a prompt shows nothing of another seat's face-down card), so the next seat is
//! asked what it would be asked after the real choice. The round ends at the first reveal of
//! the scratch table.
//!
//! A *sealed* seat asked again in one round (a sealed GM declaring for several fighters) is
//! the exception: its own next question may depend on its own earlier choice, which the
//! session does not know. Beside the question after the stand-in, [`Session::own_branches`]
//! gives the question after each sequence of its own earlier choices (at most
//! [`MAX_BRANCHES`]), and its client answers the one after the choices it made (say, about the
//! fighter it has not declared for yet); a choice the rules then refuse is a fault like any
//! other.

use serde::{Deserialize, Serialize};
use serde_json::Value;
pub use table::fairness::{Commitment, Nonce};
use table::{Ruleset, SeatId, Table};
use thiserror::Error;

use crate::{How, Item, Session, SessionError};

/// How a seat answers face-down questions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The seat sends its command; the server holds it (and, in a sealed round, binds it with
    /// a nonce of its own).
    #[default]
    Plain,
    /// The seat sends a commitment, then reveals its command and nonce once every seat is
    /// bound.
    Sealed,
}

/// Why a seat's sealed decision was taken by the session: shown to every viewer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fault", rename_all = "snake_case")]
pub enum Fault {
    /// The revealed command and nonce do not hash to the seat's commitment.
    WrongNonce,
    /// The revealed command is not one the rules allow.
    Illegal {
        /// The rules' reason.
        reason: String,
    },
    /// The seat did not reveal before the table's deadline, or said it cannot
    /// ([`Session::give_up`]).
    NoReveal {
        /// Why, when the seat said so: `{"fault": "no_reveal", "reason": "secret_lost"}`.
        /// Absent for a deadline or a GM's force (the log's older form).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<NoRevealReason>,
    },
}

impl Fault {
    /// The missed reveal of a deadline or a GM's force (no reason given).
    pub const NO_REVEAL: Fault = Fault::NoReveal { reason: None };
    /// The missed reveal of a seat that lost its secret (docs/fairness.md §3, "A lost secret").
    pub const SECRET_LOST: Fault = Fault::NoReveal { reason: Some(NoRevealReason::SecretLost) };
}

/// Why a sealed seat did not reveal, when it said so itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoRevealReason {
    /// The seat's secret — the command and nonce behind its commitment — was lost (kept on
    /// another device, or the browser's storage was cleared), so it cannot open its commitment.
    SecretLost,
}

/// One bound commitment, as every viewer is shown it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatCommitment {
    /// The seat.
    pub seat: SeatId,
    /// Its commitment, 64 lowercase hex digits.
    pub commitment: String,
}

/// Why a sealed-round request was refused; nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SealError {
    /// Not 64 lowercase hex digits.
    #[error(
        "commitment: not 64 lowercase hex digits (SHA-256 of the command's canonical JSON and the nonce)"
    )]
    BadCommitment,
    /// Not 64 lowercase hex digits.
    #[error("nonce: not 64 lowercase hex digits (32 bytes)")]
    BadNonce,
    /// The table has no sealed seat: commands are plain.
    #[error("no seat at this table is sealed: send the command itself")]
    NotSealed,
    /// The seat is not asked a face-down question now.
    #[error("seat {0} is not asked a face-down question now (nothing to commit)")]
    NotAsked(u16),
    /// Every awaited seat has committed: commitments are bound and can no longer change.
    #[error(
        "the commitments are bound (every awaited seat committed): seat {0} can no longer change its choice; reveal it"
    )]
    Bound(u16),
    /// Reveals come after every awaited seat has committed.
    #[error("not every awaited seat has committed yet: seat {0} reveals once the commitments are bound")]
    NotBound(u16),
    /// The seat has nothing sealed to reveal.
    #[error("seat {0} has no sealed commitment waiting for its reveal")]
    NothingToReveal(u16),
    /// A sealed round is open: other requests wait for its reveal.
    #[error("a sealed round is open (seats commit, then reveal): this waits until the reveal")]
    RoundOpen,
    /// The command has no canonical JSON form, so no commitment can bind it.
    #[error("{0}")]
    NoCanonicalForm(String),
    /// In a sealed round a plain seat's command is bound with a nonce: the caller must give
    /// one ([`Session::submit_bound`]).
    #[error("in a sealed round seat {0}'s command is bound with a nonce, which the caller must give")]
    NeedsNonce(u16),
}

/// What became of a commitment in a round.
#[derive(Debug, Clone)]
enum Held<C> {
    /// A sealed seat's hash, waiting for its reveal.
    Sealed,
    /// A plain seat's (or a forced) command with the nonce the caller bound it with.
    Plain { command: C, nonce: Nonce, how: How },
    /// A sealed seat's command, revealed and matching its commitment.
    Revealed { command: C, nonce: Nonce },
    /// The seat's decision will be forced.
    Fault(Fault),
}

#[derive(Debug, Clone)]
struct Slot<C> {
    seat: SeatId,
    commitment: Commitment,
    held: Held<C>,
}

/// A finished round played on a copy of the table ([`Session::play_on_copy`]).
struct Played {
    /// The slots (by index) whose commands the rules still hold face down after the round.
    face_down: Vec<usize>,
    /// Per slot: whether the rules ask for it (else the round withdraws it).
    taken: Vec<bool>,
}

/// A sealed round: the commitments of the decisions before one reveal.
#[derive(Debug, Clone)]
pub(crate) struct Round<R: Ruleset> {
    slots: Vec<Slot<R::Command>>,
    bound: bool,
    /// Per slot, the state in which its seat was asked (none while an earlier decision is
    /// missing).
    asked_in: Vec<Option<R::State>>,
    /// The scratch state after every stand-in that could be played.
    end: R::State,
    /// The seats the round still waits for a commitment from.
    next: Vec<SeatId>,
}

/// The sealed round as a caller may show it (never a command).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RoundInfo {
    /// The seats that have committed, in order (a seat with several decisions once each).
    pub committed: Vec<SeatId>,
    /// Whether the commitments are bound (every awaited seat committed).
    pub bound: bool,
    /// Once bound: every commitment.
    pub commitments: Vec<SeatCommitment>,
    /// Once bound: the sealed seats whose reveal is awaited.
    pub revealing: Vec<SeatId>,
    /// Whether this is the table's opening round (docs/fairness.md §8): every seat commits to
    /// `{}` before the rules' first step.
    pub opening: bool,
}

/// The most sequences of a sealed seat's own earlier choices [`Session::own_branches`] plays
/// out; beyond them the seat is asked after the stand-ins alone.
pub const MAX_BRANCHES: usize = 512;

/// What a sealed seat asked again in one round is asked after some of its own earlier sealed
/// choices ([`Session::own_branches`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(bound(serialize = "C: Serialize"))]
pub struct Branch<C> {
    /// The sequences of the seat's earlier commands in the round (oldest first) after which it
    /// is asked this.
    pub earlier: Vec<Vec<C>>,
    /// The question.
    pub prompt: table::Prompt<C>,
}

/// The first face-down answer `seat`'s prompt offers, standing in for its sealed choice on the
/// scratch table; the forced default when none is offered.
fn stand_in<R: Ruleset>(state: &R::State, seat: SeatId) -> Option<R::Command> {
    R::first_face_down(state, seat).or_else(|| R::forced(state, seat))
}

/// Whether `seat`'s question in `state` is a face-down one.
fn asked_face_down<R: Ruleset>(state: &R::State, seat: SeatId) -> bool {
    R::asks_face_down(state, seat)
}

/// Plays the round's committed decisions from `state` as [`Round::project`] does, but where
/// `seat` committed sealed, every answer its prompt offered in turn: each sequence of `seat`'s
/// own choices that leaves it asked again, with the state it is asked in. `None` past
/// [`MAX_BRANCHES`].
fn explore<R: Ruleset>(
    slots: &[Slot<R::Command>],
    seat: SeatId,
    state: R::State,
    mut played: Vec<bool>,
    earlier: Vec<R::Command>,
    out: &mut Vec<(Vec<R::Command>, R::State)>,
) -> Option<()> {
    let mut scratch = Table::<R>::unlogged(state);
    loop {
        let awaiting = scratch.awaiting();
        let Some(i) = (0..slots.len()).find(|&i| !played[i] && awaiting.contains(&slots[i].seat)) else {
            if out.len() >= MAX_BRANCHES {
                return None;
            }
            out.push((earlier, scratch.state().clone()));
            return Some(());
        };
        played[i] = true;
        let slot = &slots[i];
        if slot.seat == seat && matches!(slot.held, Held::Sealed) {
            let Some(prompt) = R::prompt(scratch.state(), seat) else { return Some(()) };
            for choice in prompt.choices {
                let mut next = Table::<R>::unlogged(scratch.state().clone());
                if next.submit(seat, &choice.command).is_err() || next.last_automatic() > 0 {
                    continue;
                }
                let mut sequence = earlier.clone();
                sequence.push(choice.command);
                explore::<R>(slots, seat, next.state().clone(), played.clone(), sequence, out)?;
            }
            return Some(());
        }
        let command = match &slot.held {
            Held::Plain { command, .. } | Held::Revealed { command, .. } => Some(command.clone()),
            Held::Sealed | Held::Fault(_) => stand_in::<R>(scratch.state(), slot.seat),
        };
        let Some(command) = command else { return Some(()) };
        if scratch.submit(slot.seat, &command).is_err() || scratch.last_automatic() > 0 {
            return Some(());
        }
    }
}

impl<R: Ruleset> Round<R> {
    fn new(state: &R::State) -> Round<R> {
        let (asked_in, end, next) = Self::projection(&[], state);
        Round { slots: Vec::new(), bound: false, asked_in, end, next }
    }

    /// Plays the stand-ins on a scratch table from `state`, in the order the rules ask for
    /// them, up to the first reveal; finds who is asked next.
    fn project(&mut self, state: &R::State) {
        (self.asked_in, self.end, self.next) = Self::projection(&self.slots, state);
    }

    /// [`Round::project`]'s outcome for `slots`: the state each slot's seat was asked in, the
    /// scratch state at the end, and the seats asked next.
    fn projection(
        slots: &[Slot<R::Command>],
        state: &R::State,
    ) -> (Vec<Option<R::State>>, R::State, Vec<SeatId>) {
        let mut scratch = Table::<R>::unlogged(state.clone());
        let n = slots.len();
        let mut asked_in = vec![None; n];
        let mut played = vec![false; n];
        let mut revealed = false;
        while !revealed {
            let awaiting = scratch.awaiting();
            let Some(i) = (0..n).find(|&i| !played[i] && awaiting.contains(&slots[i].seat)) else {
                break;
            };
            let seat = slots[i].seat;
            asked_in[i] = Some(scratch.state().clone());
            // A command the session holds (a plain seat's, a bot's, a forced one) is played
            // as it is; a sealed one by a stand-in.
            let command = match &slots[i].held {
                Held::Plain { command, .. } | Held::Revealed { command, .. } => Some(command.clone()),
                Held::Sealed | Held::Fault(_) => stand_in::<R>(scratch.state(), seat),
            };
            let Some(command) = command else { break };
            if scratch.submit(seat, &command).is_err() {
                break;
            }
            played[i] = true;
            revealed = scratch.last_automatic() > 0;
        }
        let next = if revealed {
            Vec::new()
        } else {
            scratch.awaiting().into_iter().filter(|&s| asked_face_down::<R>(scratch.state(), s)).collect()
        };
        (asked_in, scratch.into_state(), next)
    }

    fn ready_to_bind(&self) -> bool {
        self.next.is_empty() && self.asked_in.iter().all(Option::is_some) && !self.slots.is_empty()
    }

    fn waiting_reveals(&self) -> bool {
        self.slots.iter().any(|s| matches!(s.held, Held::Sealed))
    }

    fn info(&self) -> RoundInfo {
        RoundInfo {
            committed: self.slots.iter().map(|s| s.seat).collect(),
            bound: self.bound,
            commitments: if self.bound { self.commitments() } else { Vec::new() },
            revealing: if self.bound {
                self.slots.iter().filter(|s| matches!(s.held, Held::Sealed)).map(|s| s.seat).collect()
            } else {
                Vec::new()
            },
            opening: false,
        }
    }

    fn commitments(&self) -> Vec<SeatCommitment> {
        self.slots
            .iter()
            .map(|s| SeatCommitment { seat: s.seat, commitment: s.commitment.to_string() })
            .collect()
    }
}

impl<R: Ruleset> Session<R> {
    /// Sets how `seat` answers face-down questions. A table with any sealed seat plays every
    /// face-down decision as a sealed round (see the module's documentation); its bots are
    /// then run by the caller, who binds their commands with nonces ([`Session::submit_bound`]).
    pub fn set_mode(&mut self, seat: SeatId, mode: Mode) -> Result<(), SessionError<R::Error>> {
        let slot = self.modes.get_mut(usize::from(seat.0)).ok_or(SessionError::NoSeat(seat.0))?;
        *slot = mode;
        Ok(())
    }

    /// How `seat` answers face-down questions.
    pub fn mode(&self, seat: SeatId) -> Mode {
        self.modes.get(usize::from(seat.0)).copied().unwrap_or_default()
    }

    /// Whether any seat is sealed: face-down decisions are sealed rounds.
    pub fn sealing(&self) -> bool {
        self.modes.contains(&Mode::Sealed)
    }

    /// The open sealed round, as it may be shown to everyone.
    pub fn round(&self) -> Option<RoundInfo> {
        if let Some(opening) = &self.opening {
            return Some(opening.info());
        }
        self.round.as_ref().map(Round::info)
    }

    /// The seats the open round waits for a commitment from, each once.
    pub(crate) fn round_next(&self) -> Vec<SeatId> {
        let mut out: Vec<SeatId> = Vec::new();
        for &seat in self.round.iter().flat_map(|r| &r.next) {
            if !out.contains(&seat) {
                out.push(seat);
            }
        }
        out
    }

    /// Whether `seat`'s next decision belongs to a sealed round (it must be committed).
    pub fn in_round(&self, seat: SeatId) -> bool {
        if !self.sealing() {
            return false;
        }
        if let Some(opening) = &self.opening {
            return opening.asks(seat) && opening.awaiting().contains(&seat);
        }
        match &self.round {
            Some(r) => !r.bound && r.next.contains(&seat),
            None => self.table.awaiting().contains(&seat) && asked_face_down::<R>(self.table.state(), seat),
        }
    }

    /// The state in which `seat` is asked now: the scratch state of the open round, or the
    /// table's. Its bots decide from it (it holds stand-ins, never another seat's choice).
    pub fn decision_state(&self, seat: SeatId) -> &R::State {
        match &self.round {
            Some(r) if !r.bound && r.next.contains(&seat) => &r.end,
            _ => self.table.state(),
        }
    }

    /// A sealed seat asked again in the open round: its next question after each sequence of
    /// its own earlier sealed choices in the round, which the session does not know (a sealed
    /// GM declaring for several fighters is asked for the fighters it has not declared for).
    /// Its client answers the branch of the choices it made; the others' decisions are played
    /// as [`Round`]'s projection plays them (their commands, or stand-ins: their choices never
    /// shape this seat's question). `None` when the seat is not so asked, or past
    /// [`MAX_BRANCHES`] sequences.
    pub fn own_branches(&self, seat: SeatId) -> Option<Vec<Branch<R::Command>>> {
        let round = self.round.as_ref()?;
        if round.bound || !round.next.contains(&seat) || self.mode(seat) != Mode::Sealed {
            return None;
        }
        if !round.slots.iter().any(|s| s.seat == seat && matches!(s.held, Held::Sealed)) {
            return None;
        }
        let mut leaves = Vec::new();
        let played = vec![false; round.slots.len()];
        explore::<R>(&round.slots, seat, self.table.state().clone(), played, Vec::new(), &mut leaves)?;
        let mut branches: Vec<Branch<R::Command>> = Vec::new();
        for (earlier, state) in leaves {
            let Some(prompt) = R::prompt(&state, seat) else { continue };
            match branches.iter_mut().find(|b| b.prompt == prompt) {
                Some(b) => b.earlier.push(earlier),
                None => branches.push(Branch { earlier: vec![earlier], prompt }),
            }
        }
        Some(branches)
    }

    /// Opens the round if `seat` is asked a face-down question in it; `None` when the seat's
    /// decision is not part of a round.
    fn round_for(&mut self, seat: SeatId) -> Result<Option<&mut Round<R>>, SessionError<R::Error>> {
        if !self.sealing() {
            return Ok(None);
        }
        if self.round.is_none() {
            if !(self.table.awaiting().contains(&seat) && asked_face_down::<R>(self.table.state(), seat)) {
                return Ok(None);
            }
            self.round = Some(Round::new(self.table.state()));
        }
        let Some(round) = self.round.as_mut() else { return Ok(None) };
        if round.bound {
            return Err(SessionError::Sealing(SealError::Bound(seat.0)));
        }
        Ok(Some(round))
    }

    /// Adds or replaces `seat`'s commitment: a new decision when the round asks the seat, else
    /// its latest one (a seat that reloads commits again).
    fn commit(
        &mut self,
        seat: SeatId,
        commitment: Commitment,
        held: Held<R::Command>,
    ) -> Result<(), SessionError<R::Error>> {
        if self.round_for(seat)?.is_none() {
            return Err(SessionError::Sealing(SealError::NotAsked(seat.0)));
        }
        let Some(round) = self.round.as_mut() else {
            return Err(SessionError::Sealing(SealError::NotAsked(seat.0)));
        };
        if round.next.contains(&seat) {
            round.slots.push(Slot { seat, commitment, held });
        } else if let Some(slot) = round.slots.iter_mut().rev().find(|s| s.seat == seat) {
            slot.commitment = commitment;
            slot.held = held;
        } else {
            return Err(SessionError::Sealing(SealError::NotAsked(seat.0)));
        }
        round.project(self.table.state());
        self.bind_if_ready();
        Ok(())
    }

    /// The state `seat`'s new (or replaced) decision is asked in: the table's when no round is
    /// open yet (the seat's decision would open it).
    fn asking_state(&self, seat: SeatId) -> Option<&R::State> {
        let Some(round) = self.round.as_ref() else {
            return self.in_round(seat).then(|| self.table.state());
        };
        if round.next.contains(&seat) {
            return Some(&round.end);
        }
        let i = round.slots.iter().rposition(|s| s.seat == seat)?;
        round.asked_in[i].as_ref()
    }

    /// `seat` commits its face-down decision by `commitment` alone (a sealed seat): the
    /// session learns nothing of the choice until the reveal.
    pub fn seal(&mut self, seat: SeatId, commitment: Commitment) -> Result<(), SessionError<R::Error>> {
        if usize::from(seat.0) >= self.controls.len() {
            return Err(SessionError::NoSeat(seat.0));
        }
        if !self.sealing() {
            return Err(SessionError::Sealing(SealError::NotSealed));
        }
        if self.opening.is_some() {
            return self.seal_opening(seat, commitment);
        }
        self.commit(seat, commitment, Held::Sealed)
    }

    /// `command` from `seat`, bound by `nonce` when it belongs to a sealed round (a plain
    /// seat's or a bot's command, the nonce the caller's fresh random one): held, its
    /// commitment published with the others', and given to the rules after the reveals.
    /// Outside a round it is [`Session::submit`].
    pub fn submit_bound(
        &mut self,
        seat: SeatId,
        command: &R::Command,
        nonce: Nonce,
    ) -> Result<(), SessionError<R::Error>> {
        if self.opening.is_some() {
            // The opening round's `{}` is the caller's to bind: [`Session::force_bound`].
            return Err(SessionError::Sealing(SealError::RoundOpen));
        }
        if !self.in_round(seat)
            && !self.round.as_ref().is_some_and(|r| r.slots.iter().any(|s| s.seat == seat))
        {
            if self.round.is_some() {
                return Err(SessionError::Sealing(SealError::RoundOpen));
            }
            return self.submit(seat, command);
        }
        self.hold(seat, command.clone(), nonce, How::Given)
    }

    fn hold(
        &mut self,
        seat: SeatId,
        command: R::Command,
        nonce: Nonce,
        how: How,
    ) -> Result<(), SessionError<R::Error>> {
        // Checked before anything changes: a refused command opens no round.
        let state = self.asking_state(seat).ok_or(SessionError::Sealing(SealError::NotAsked(seat.0)))?;
        let mut events = Vec::new();
        R::decide(state, seat, &command, &mut events).map_err(SessionError::Rules)?;
        let json = serde_json::to_value(&command).unwrap_or(Value::Null);
        let commitment = Commitment::to_command(&json, &nonce)
            .map_err(|e| SessionError::Sealing(SealError::NoCanonicalForm(e.to_string())))?;
        self.commit(seat, commitment, Held::Plain { command, nonce, how })
    }

    /// `seat` reveals its sealed `command` and `nonce` once the commitments are bound. A pair
    /// that does not hash to its commitment is a [`Fault::WrongNonce`]: accepted (and returned)
    /// — the seat's decision will be forced. The rules judge the command once every reveal is
    /// in.
    pub fn reveal(
        &mut self,
        seat: SeatId,
        command: &R::Command,
        nonce: Nonce,
    ) -> Result<Option<Fault>, SessionError<R::Error>> {
        if self.opening.is_some() {
            let json = serde_json::to_value(command).unwrap_or(Value::Null);
            return self.reveal_opening(seat, &json, nonce);
        }
        let Some(round) = self.round.as_mut() else {
            return Err(SessionError::Sealing(SealError::NothingToReveal(seat.0)));
        };
        let Some(slot) = round.slots.iter_mut().find(|s| s.seat == seat && matches!(s.held, Held::Sealed))
        else {
            return Err(SessionError::Sealing(SealError::NothingToReveal(seat.0)));
        };
        if !round.bound {
            return Err(SessionError::Sealing(SealError::NotBound(seat.0)));
        }
        let json = serde_json::to_value(command).unwrap_or(Value::Null);
        // A command with no canonical form matches no commitment: a fault as a wrong nonce.
        let fault = if table::fairness::verify_commitment(&json, &nonce, &slot.commitment).is_ok() {
            slot.held = Held::Revealed { command: command.clone(), nonce };
            None
        } else {
            slot.held = Held::Fault(Fault::WrongNonce);
            Some(Fault::WrongNonce)
        };
        self.finish_if_revealed();
        Ok(fault)
    }

    /// A forced decision inside a round: before the binding the seat's default is held like
    /// a plain command (bound by `nonce`); after it, a sealed seat that has not revealed
    /// faults ([`Fault::NoReveal`]). Outside a round it is [`Session::force`].
    pub fn force_bound(
        &mut self,
        seat: SeatId,
        by: Option<SeatId>,
        nonce: Nonce,
    ) -> Result<(), SessionError<R::Error>> {
        if self.opening.is_some() {
            self.check_forcer(by)?;
            return self.force_opening(seat, nonce);
        }
        let Some(round) = self.round.as_ref() else {
            if self.in_round(seat) {
                return self.force_in_round(seat, by, nonce);
            }
            return self.force(seat, by);
        };
        if round.bound {
            self.check_forcer(by)?;
            let round = self.round.as_mut().ok_or(SessionError::NotAwaited(seat.0))?;
            let Some(slot) =
                round.slots.iter_mut().find(|s| s.seat == seat && matches!(s.held, Held::Sealed))
            else {
                return Err(SessionError::NotAwaited(seat.0));
            };
            slot.held = Held::Fault(Fault::NO_REVEAL);
            self.finish_if_revealed();
            return Ok(());
        }
        if !round.next.contains(&seat) {
            return Err(SessionError::NotAwaited(seat.0));
        }
        self.force_in_round(seat, by, nonce)
    }

    fn force_in_round(
        &mut self,
        seat: SeatId,
        by: Option<SeatId>,
        nonce: Nonce,
    ) -> Result<(), SessionError<R::Error>> {
        self.check_forcer(by)?;
        let state = self.asking_state(seat).ok_or(SessionError::NotAwaited(seat.0))?;
        let command = R::forced(state, seat).ok_or(SessionError::NoDefault(seat.0))?;
        self.hold(seat, command, nonce, How::Forced)
    }

    /// `seat` gives up its sealed decisions of the open round because it lost its secret — the
    /// command and nonce behind its commitment, kept on another device or in a browser's storage
    /// since cleared (docs/fairness.md §3, "A lost secret"). Before the binding it is a
    /// take-back like any other ([`Session::take_back`]): no fault, and the seat chooses again.
    /// Once bound, each of its commitments not yet revealed faults at once —
    /// [`Fault::NoReveal`] with [`NoRevealReason::SecretLost`] — and the rules' default is
    /// taken for it, so the table does not wait for the deadline.
    pub fn give_up(&mut self, seat: SeatId) -> Result<(), SessionError<R::Error>> {
        if self.give_up_opening(seat)? {
            return Ok(());
        }
        if let Some(round) = self.round.as_mut()
            && round.bound
        {
            let mut any = false;
            for slot in round.slots.iter_mut().filter(|s| s.seat == seat && matches!(s.held, Held::Sealed)) {
                slot.held = Held::Fault(Fault::SECRET_LOST);
                any = true;
            }
            if !any {
                return Err(SessionError::Sealing(SealError::NothingToReveal(seat.0)));
            }
            self.finish_if_revealed();
            return Ok(());
        }
        self.take_back(seat)
    }

    /// Takes back `seat`'s latest commitment in a round not yet bound; false when the seat has
    /// none (then [`Session::take_back`] looks at the table).
    pub(crate) fn take_back_commitment(&mut self, seat: SeatId) -> Result<bool, SessionError<R::Error>> {
        let Some(round) = self.round.as_mut() else { return Ok(false) };
        let Some(i) = round.slots.iter().rposition(|s| s.seat == seat) else { return Ok(false) };
        if round.bound {
            return Err(SessionError::Sealing(SealError::Bound(seat.0)));
        }
        round.slots.remove(i);
        if round.slots.is_empty() {
            self.round = None;
        } else {
            round.project(self.table.state());
        }
        self.log_took_back(seat);
        Ok(true)
    }

    /// Binds the commitments when the round waits for no one more: one public item lists them.
    fn bind_if_ready(&mut self) {
        let Some(round) = self.round.as_mut() else { return };
        if round.bound || !round.ready_to_bind() {
            return;
        }
        round.bound = true;
        let commitments = round.commitments();
        for log in &mut self.logs {
            log.push(Item::Bound { commitments: commitments.clone() });
        }
        // With no sealed seat in it, the round resolves at once.
        self.finish_if_revealed();
    }

    /// Once every sealed seat has revealed or faulted, gives the commands to the rules in the
    /// order they ask for them, forces the faulted seats' decisions, and opens every command
    /// and nonce.
    ///
    /// Never fails: every request was checked before it changed anything. A forced decision
    /// the rules would refuse is left out, and the seat is asked again.
    fn finish_if_revealed(&mut self) {
        if self.round.as_ref().is_none_or(|r| !r.bound || r.waiting_reveals()) {
            return;
        }
        let Some(round) = self.round.take() else { return };
        // The round is played on a copy first (docs/fairness.md §3): a command the rules will
        // still hold face down after the round (a public command in it, such as ending a
        // combo, revealed nothing) is opened only once the rules reveal it, and its nonce,
        // which with the public commitment would give the choice away, is not mixed; a
        // decision the rules never take (an earlier one of the round ended the game: a GM
        // ending the scene) is withdrawn — neither mixed nor opened.
        let copy = self.play_on_copy(&round.slots);
        // Decided per decision, not per seat: a seat asked twice in one round (a GM declaring
        // face down for a fighter, then ending the scene in public) has its public decision
        // mixed and opened now, its face-down one deferred.
        let hidden = copy.face_down;
        // docs/fairness.md §5.2: the round is mixed into the draws before the rules act on
        // it; each seat's nonce is its last valid one of the decisions the rules take.
        let mut round_nonces = vec![None; R::seats(self.table.state()).len()];
        for (k, (slot, _)) in
            round.slots.iter().zip(&copy.taken).enumerate().filter(|(_, (_, taken))| **taken)
        {
            if hidden.contains(&k) {
                continue;
            }
            if let (Held::Plain { nonce, .. } | Held::Revealed { nonce, .. }, Some(place)) =
                (&slot.held, round_nonces.get_mut(usize::from(slot.seat.0)))
            {
                *place = Some(*nonce);
            }
        }
        let mixed = round_nonces.clone();
        self.mix_round(round_nonces);
        let mut left: Vec<Option<Slot<R::Command>>> = round.slots.into_iter().map(Some).collect();
        let mut opened = Vec::new();
        loop {
            let awaiting = self.table.awaiting();
            let Some(i) = left.iter().position(|s| s.as_ref().is_some_and(|s| awaiting.contains(&s.seat)))
            else {
                break;
            };
            let Some(slot) = left[i].take() else { break };
            let k = i;
            let seat = slot.seat;
            let fault = match slot.held {
                Held::Plain { command, nonce, how } => {
                    if how == How::Forced {
                        for log in &mut self.logs {
                            log.push(Item::Forced { seat });
                        }
                    }
                    match self.submit_as(seat, &command, how) {
                        Ok(()) => {
                            opened.push((k, seat, command, nonce));
                            None
                        }
                        Err(e) => Some(Fault::Illegal { reason: e.to_string() }),
                    }
                }
                Held::Revealed { command, nonce } => match self.submit_as(seat, &command, How::Given) {
                    Ok(()) => {
                        opened.push((k, seat, command, nonce));
                        None
                    }
                    Err(e) => Some(Fault::Illegal { reason: e.to_string() }),
                },
                Held::Fault(f) => Some(f),
                Held::Sealed => Some(Fault::NO_REVEAL),
            };
            if let Some(fault) = fault {
                for log in &mut self.logs {
                    log.push(Item::Fault { seat, fault: fault.clone() });
                }
                if let Some(command) = R::forced(self.table.state(), seat) {
                    for log in &mut self.logs {
                        log.push(Item::Forced { seat });
                    }
                    let _ = self.submit_as(seat, &command, How::Forced);
                }
            }
        }
        // A decision the copy saw the rules take but the game did not (no rule lets a draw
        // decide that; this keeps the log true if one ever did): its nonce was mixed, so it is
        // opened like the others. Every other decision left is withdrawn.
        for (k, slot) in left.into_iter().enumerate() {
            if let Some(slot) = slot
                && let Held::Plain { command, nonce, .. } | Held::Revealed { command, nonce } = slot.held
                && mixed.get(usize::from(slot.seat.0)).is_some_and(|n| *n == Some(nonce))
            {
                opened.push((k, slot.seat, command, nonce));
            }
        }
        // Every choice of the round that is face up is opened, with its nonce, so every seat
        // can check every commitment; one still face down waits for its reveal.
        let (later, now): (Vec<_>, Vec<_>) = opened.into_iter().partition(|(k, ..)| hidden.contains(k));
        let strip = |v: Vec<(usize, SeatId, R::Command, Nonce)>| v.into_iter().map(|(_, s, c, n)| (s, c, n));
        self.open(strip(now).collect());
        self.deferred.extend(strip(later));
        // Once the rules reveal them — or the game ended without their reveal.
        if self.pending.is_empty() || self.table.is_over() {
            let deferred = std::mem::take(&mut self.deferred);
            self.open(deferred);
        }
    }

    /// Opens commands and their nonces in every log.
    fn open(&mut self, opened: Vec<(SeatId, R::Command, Nonce)>) {
        for (seat, command, nonce) in opened {
            let command = serde_json::to_value(&command).unwrap_or(Value::Null);
            for log in &mut self.logs {
                log.push(Item::Opened { seat, command: command.clone(), nonce: nonce.to_string() });
            }
        }
    }

    /// Plays a finished round's decisions on a copy of the table, in the order
    /// [`finish_if_revealed`](Self::finish_if_revealed) gives them: which decisions the rules
    /// take (asked for, whether the command stands or faults), and the decisions whose commands
    /// the rules will still hold face down afterwards (a face-down command after the copy's
    /// last reveal). (The copy draws from the source before the round's mix; no rule here lets
    /// a die decide whether a choice is revealed, or whether a seat is asked.)
    fn play_on_copy(&self, slots: &[Slot<R::Command>]) -> Played {
        let mut scratch = Table::<R>::new(self.table.state().clone());
        let mut shadow = self.shadow.clone();
        let viewers: Vec<table::Viewer> = crate::viewers(self.controls.len()).collect();
        let mut left: Vec<usize> = (0..slots.len()).collect();
        let mut out = Played { face_down: Vec::new(), taken: vec![false; slots.len()] };
        loop {
            let awaiting = scratch.awaiting();
            let Some(i) = left.iter().position(|&k| awaiting.contains(&slots[k].seat)) else { break };
            let k = left.remove(i);
            out.taken[k] = true;
            let slot = &slots[k];
            let given = match &slot.held {
                Held::Plain { command, .. } | Held::Revealed { command, .. } => Some(command.clone()),
                Held::Sealed | Held::Fault(_) => None,
            };
            let before = scratch.log().len();
            let ok = given.is_some_and(|c| scratch.submit(slot.seat, &c).is_ok())
                || R::forced(scratch.state(), slot.seat)
                    .is_some_and(|c| scratch.submit(slot.seat, &c).is_ok());
            if !ok {
                continue;
            }
            let caused = scratch.log().len() - before - scratch.last_automatic();
            let mut private = false;
            for (k, event) in scratch.log()[before..].iter().enumerate() {
                private |= k < caused && viewers.iter().any(|v| R::redact(&shadow, event, *v) != *event);
                R::apply(&mut shadow, event);
            }
            if scratch.last_automatic() > 0 {
                out.face_down.clear();
            } else if private {
                out.face_down.push(k);
            }
        }
        out
    }

    fn check_forcer(&self, by: Option<SeatId>) -> Result<(), SessionError<R::Error>> {
        if let Some(by) = by {
            let role = R::seats(self.table.state())
                .get(by)
                .map(|s| s.role)
                .map_err(|_| SessionError::NoSeat(by.0))?;
            if role != table::Role::Gm {
                return Err(SessionError::NotGm);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_protocol_documents_this_commitment() {
        // docs/protocol.md, Sealed choices: the worked example a client author checks against.
        let command = json!({"commit_stance": {"stance": {"type": "grapple", "amount": 2}}});
        let nonce = Nonce::from_bytes([0x9f; 32]);
        assert_eq!(
            table::fairness::canonical_json(&command).unwrap(),
            r#"{"commit_stance":{"stance":{"amount":2,"type":"grapple"}}}"#
        );
        assert_eq!(
            Commitment::to_command(&command, &nonce).unwrap().to_string(),
            "e8aa6dc50ba3fadd440e71381ca7b76f2ebd180fd59976a3ad97e512dfad3779"
        );
    }
}
