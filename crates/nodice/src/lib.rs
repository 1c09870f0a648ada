//! The No Dice rule system (Joshua DeRoos): Trine conflicts decided by simultaneous hidden
//! choice — ante and a face-down Aspect card, a face-down Action card and bid, Trine and
//! Attribute Dominance, a Showdown.
//!
//! Pure logic with no I/O. Start with [`Conflict::new`] from a [`Setup`], then drive it through
//! a [`table::Table<NoDice>`]: commands in, events out, a redacted view per seat.
//!
//! Where each rule lives (seed 002 "Conflicts"; rules reference `shared/rules/nodice.md` §):
//! - §3.1, §4 Aspects, Attributes, Trine and Attribute Dominance: [`trine`]
//! - §3.2–3.4 stat blocks, Trine Score, Rank, Wildcard Rank, the serial notation: [`actor`]
//! - seed Stakes Calculation: [`stakes`]
//! - seed Steps 3–4 (Resolve AD, Sweep, Showdown Total, Margin, Action Priority): [`hand`]
//! - §6 damage and the partial-Aspect table: [`damage`]
//! - seed The Contract, §8 the Damage ability: [`extension`]
//! - seed Steps 1–4 as a state machine (ante, pot, bids, refresh, elimination, UTG): [`conflict`],
//!   [`rules`]
//! - the referee calculator (`nodice resolve`), on the engine's own functions: [`referee`]
//! - the conflict file, typed and validated (I/O left to the shell): [`conflict_file`]
//! - actor files and their "Inherits" chains, bounded: [`sheets`]
//! - who won each pair of a Hand and the Conflict, in the players' words: [`outcome`]
//! - hidden information: [`view`]
//! - the narration of events in the book's words: [`narrate`]
//! - what a seat is asked and the default taken for it (Decision 34): [`prompt`]
//! - the players' quick reference, with a legend of every symbol: [`reference`]
//! - GM adjustments (Decision 35): `Command::Adjust` in [`rules`]
//! - a greedy player for bots (`--bot SEAT=greedy`): [`bot`]
//!
//! Every Decision beyond the seed and the reference is documented in `docs/nodice.md`.

pub mod actor;
pub mod bot;
pub mod conflict;
pub mod conflict_file;
pub mod damage;
pub mod extension;
pub mod hand;
pub mod narrate;
pub mod outcome;
pub mod prompt;
pub mod referee;
pub mod reference;
pub mod rules;
pub mod sheets;
pub mod stakes;
pub mod trine;
pub mod view;

pub use actor::{Inheritance, Kind, SerialError, SerialWarning, Statblock};
pub use conflict::{
    ActionCard, Actor, ActorSheet, AspectCard, Cluster, Conflict, Ending, Options, Phase, Setup, SetupError,
    Status,
};
pub use extension::{DamageAbility, Ext, Extension, Extensions};
pub use hand::{ActorId, Play, Showdown, Strike, Targets};
pub use rules::{Adjustment, Command, Event, RuleError};
pub use stakes::{Stakes, StakesFormula};
pub use trine::{Aspect, Attribute, Dominance, attribute_dominance, trine_dominance};
pub use view::{ConflictView, Spreading};

use table::{ReplayError, Ruleset, Saved, SeatId, Table, Viewer};

/// The No Dice ruleset, for [`table::Table`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoDice;

impl Ruleset for NoDice {
    const NAME: &'static str = "nodice";
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
        state.redact(event, viewer).unwrap_or_else(|| event.clone()) // never None: blanks, never drops
    }

    fn narrate(state: &Conflict, event: &Event, viewer: Viewer) -> Option<String> {
        narrate::narrate(state, event, viewer)
    }

    fn prompt(state: &Conflict, seat: SeatId) -> Option<table::Prompt<Command>> {
        prompt::prompt(state, seat)
    }

    fn forced(state: &Conflict, seat: SeatId) -> Option<Command> {
        prompt::forced(state, seat)
    }

    fn is_gm_ruling(command: &Command) -> bool {
        command.is_gm_ruling()
    }

    fn quick_reference() -> String {
        reference::quick_reference()
    }

    fn legal_commands(state: &Conflict, seat: SeatId, out: &mut Vec<Command>) {
        state.legal_commands(seat, out)
    }

    /// How far the Conflict's [`Draws`](table::Draws) (the pot's token draws) has been drawn.
    fn draw_position(state: &Conflict) -> u64 {
        state.draws.position()
    }

    /// The Conflict's only draw pays a pot token blind (seed: Pay the Ante Pot), and a pot
    /// holds only the tokens of anted cards and a jackpot of earlier pots (empty as the
    /// Conflict opens), paid after the face-down aspects are revealed (Reveal AT): nothing is
    /// drawn before a reveal, so a sealed table needs no opening round (docs/fairness.md §7.2).
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
        state.phase == Phase::Over
    }
}

/// The command that caused a logged event, when a seat's command caused it: what
/// [`load_checked`] re-decides.
fn command_of(state: &Conflict, event: &Event) -> Option<(SeatId, Command)> {
    let seat = |a: ActorId| state.seat_of(a);
    match event {
        Event::AspectCommitted { actor, card: Some(card), targets, intent } => Some((
            seat(*actor)?,
            Command::CommitAspect {
                actor: *actor,
                aspect: card.aspect,
                ante: card.ante,
                targets: *targets,
                intent: intent.clone(),
            },
        )),
        Event::Withdrew { actor } => Some((seat(*actor)?, Command::Withdraw { actor: *actor })),
        Event::ActionCommitted { actor, card: Some(card), open_bid } => Some((
            seat(*actor)?,
            Command::CommitAction {
                actor: *actor,
                attribute: card.attribute,
                bid: card.bid,
                wildcard: card.wildcard,
                open: open_bid.is_some(),
                damage_aspect: (card.damage_aspect != card.attribute.aspect()).then_some(card.damage_aspect),
            },
        )),
        Event::Engaged { clusters } => {
            let gm = state.seats.iter().find(|(id, _)| state.is_gm(*id)).map(|(id, _)| id)?;
            Some((gm, Command::Engage { clusters: clusters.clone() }))
        }
        Event::Justified { actor, line, .. } => {
            Some((seat(*actor)?, Command::Justify { actor: *actor, line: line.clone() }))
        }
        Event::DamageTaken { actor, spread, .. } => {
            Some((seat(*actor)?, Command::SpreadDamage { actor: *actor, spread: *spread }))
        }
        Event::Adjusted { actor, change, reason, .. } => {
            let gm = state.seats.iter().find(|(id, _)| state.is_gm(*id)).map(|(id, _)| id)?;
            Some((gm, Command::Adjust { actor: *actor, change: *change, reason: reason.clone() }))
        }
        Event::ConflictEnded { ending: Ending::Fiction } => {
            let gm = state.seats.iter().find(|(id, _)| state.is_gm(*id)).map(|(id, _)| id)?;
            Some((gm, Command::EndConflict))
        }
        _ => None,
    }
}

/// Why a save cannot be trusted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SaveError {
    /// The initial state is not a Conflict as [`Conflict::new`] starts it.
    #[error("its initial state is not the start of a Conflict")]
    NotAStart,
    /// The initial state's setup is refused.
    #[error("its Conflict cannot start: {0}")]
    Setup(#[from] SetupError),
    /// The log does not follow from the rules.
    #[error(transparent)]
    Replay(#[from] ReplayError),
}

/// Rebuilds a table from a save that may be damaged or hand-edited: the initial state must
/// be what [`Conflict::new`] makes of its own setup, and every event must be the rules' next
/// automatic step or exactly what a seat's command causes (re-decided from the event, so
/// table talk and face-up bids replay too).
pub fn load_checked(saved: Saved<NoDice>) -> Result<Table<NoDice>, SaveError> {
    let fresh = Conflict::new(saved.initial.setup())?;
    if fresh != saved.initial {
        return Err(SaveError::NotAStart);
    }
    let mut state = saved.initial.clone();
    let mut caused = Vec::new();
    let events = &saved.events;
    let mut i = 0;
    while i < events.len() {
        let n = match state.automatic() {
            Some(auto) => usize::from(auto == events[i]),
            None => {
                caused.clear();
                match command_of(&state, &events[i]) {
                    Some((seat, command))
                        if state.decide(seat, &command, &mut caused).is_ok()
                            && !caused.is_empty()
                            && events[i..].starts_with(&caused) =>
                    {
                        caused.len()
                    }
                    _ => 0,
                }
            }
        };
        if n == 0 {
            return Err(ReplayError::Unexpected { number: i + 1 }.into());
        }
        for e in &events[i..i + n] {
            state.apply(e);
        }
        i += n;
    }
    if state.automatic().is_some() {
        return Err(ReplayError::Unfinished.into());
    }
    let table = Table::load(saved);
    Ok(table)
}
