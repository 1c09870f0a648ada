//! Commands, events and the rules that connect them (rules reference §5.2–5.7).
//!
//! `decide` checks a command against the rules and names the events it causes; `apply`
//! changes the state for one event; `automatic` finds the steps the rules take by themselves.

use serde::{Deserialize, Serialize};
use table::{Role, Sealed, SeatId, SideId};
use thiserror::Error;

use crate::card::{Action, Move, MoveSet};
use crate::chain::after_turn;
use crate::conflict::{
    Aftermath, Conflict, Ending, FighterId, GM, Mercy, PLAYERS, Phase, Status, Step, Turn, Window, side_name,
};
use crate::effects::ExtraKind;
use crate::energy::{Energy, Stance};
use crate::turn::{Contender, Outcome, Play, TurnResult, resolve};
use crate::windows::SpecialCard;

/// How the GM records a tied minor conflict (§5.7, Decision).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The players' side wins.
    Players,
    /// The GM's side wins.
    Gm,
    /// Nobody wins.
    Draw,
}

/// A short note in words, stored inline (at most [`Note::CAPACITY`] bytes of UTF-8) so that
/// commands stay `Copy` and cheap on the hot path.
pub type Note = arrayvec::ArrayString<64>;

/// What a seat asks for. The character acting is the seat's own member of the turn's pair
/// where the command does not name one (a seat sits on one side, so it has at most one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Command {
    /// The players choose which player character takes the first turn (§5.1 step 4).
    TakeFirstTurn {
        /// The character.
        fighter: FighterId,
    },
    /// The active character chooses its opponent (§5.2 step 1).
    ChooseOpponent {
        /// The opponent.
        opponent: FighterId,
    },
    /// The active character ends its side's combo chain before choosing a move (§5.5).
    EndCombo,
    /// Commit a stance face down (§5.2 step 2).
    CommitStance {
        /// The stance.
        stance: Stance,
    },
    /// Commit a move, or surrender, face down (§5.2 step 3).
    CommitMove {
        /// The move or surrender.
        play: Play,
    },
    /// Spread the part of a loss that is not taken from the stance's type (§5.3); with
    /// Pressure Point the opponent's loss, with Yojimbo the ally's. A seat with several
    /// losses to spread settles them in order: the pair's, then those taken over.
    SpreadLoss {
        /// How much comes from each type.
        spread: Energy,
    },
    /// Spread energy regained (Santa Carla, Vampire), never above maximum (§6).
    SpreadGain {
        /// How much each type regains.
        spread: Energy,
    },
    /// In a lethal conflict, the winner decides whether a surrendered opponent dies (§5.2).
    DecideMercy {
        /// Kill (true) or spare (false).
        kill: bool,
    },
    /// Give the next turn to a character (§5.6).
    PassTurn {
        /// The character who takes it.
        to: FighterId,
    },
    /// The GM records the outcome of a tied minor conflict (§5.7).
    RecordOutcome {
        /// The outcome.
        verdict: Verdict,
    },
    /// In a timing window, play a special face down for one of the seat's characters, or pass
    /// (`card` absent) (§6).
    PlaySpecial {
        /// The character playing.
        fighter: FighterId,
        /// The card, or `None` to pass.
        #[serde(default)]
        card: Option<SpecialCard>,
    },
    /// Under Drunken Monkey, after the moves are revealed: swap the revealed move for one the
    /// opponent picks at random from the remaining moves, or keep it (§6).
    DrunkenSwap {
        /// Swap (true) or keep (false).
        swap: bool,
    },
    /// The GM sets a character's current energy, with a reason for the log (§6: the GM may
    /// always correct energy). Never above the character's maximum.
    AdjustEnergy {
        /// The character.
        fighter: FighterId,
        /// Its new current energy.
        energy: Energy,
        /// Why, in words (at most 64 bytes).
        reason: Note,
    },
}

impl Command {
    /// Whether this is a GM's ruling outside the choices of play: setting a character's
    /// energy (§6: the GM may always correct energy). Never face down, never waited for, never
    /// given by a bot ([`table::Ruleset::is_gm_ruling`]).
    pub fn is_gm_ruling(&self) -> bool {
        matches!(self, Command::AdjustEnergy { .. })
    }
}

/// Everything that can happen in a conflict. Applying the log rebuilds the state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "event")]
pub enum Event {
    /// A turn began with this active character.
    TurnBegan {
        /// The active character.
        active: FighterId,
    },
    /// The active character chose its opponent.
    OpponentChosen {
        /// The opponent.
        opponent: FighterId,
    },
    /// The combo chain was ended voluntarily; its cards return to hand.
    ComboEnded {
        /// Who ended it.
        by: FighterId,
    },
    /// A stance was committed face down. Another seat sees that it was committed, with the
    /// stance blanked (`None`) until the reveal ([`Conflict::redact`]).
    StanceCommitted {
        /// Who.
        fighter: FighterId,
        /// The stance; `None` (left out of the JSON) when blanked for a viewer who may not
        /// see it. (A save made before blanking existed holds the same shape: it still loads.)
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stance: Option<Stance>,
    },
    /// Both stances are revealed.
    StancesRevealed {
        /// Active character first.
        stances: [Stance; 2],
    },
    /// A move was committed face down. Another seat sees that it was committed, with the
    /// move blanked (`None`) until the reveal ([`Conflict::redact`]).
    MoveCommitted {
        /// Who.
        fighter: FighterId,
        /// The move or surrender; `None` (left out of the JSON) when blanked for a viewer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        play: Option<Play>,
    },
    /// Both moves are revealed.
    MovesRevealed {
        /// Active character first.
        plays: [Play; 2],
    },
    /// The turn was resolved (§5.2 step 4–5).
    TurnResolved {
        /// The winner and each loss broken down.
        result: TurnResult,
    },
    /// A character took its loss.
    LossTaken {
        /// Who.
        fighter: FighterId,
        /// How much left each type (never more than was there).
        taken: Energy,
    },
    /// A character regained energy (Santa Carla, Vampire).
    GainTaken {
        /// Who.
        fighter: FighterId,
        /// How much each type regained (never above maximum).
        gained: Energy,
    },
    /// A character is out: zero energy in all three types (§5.3).
    WentOut {
        /// Who.
        fighter: FighterId,
        /// Whether it died (a lethal conflict).
        dead: bool,
    },
    /// The winner decided a surrendered character's fate (§5.2).
    MercyDecided {
        /// The surrendered character.
        fighter: FighterId,
        /// Whether it was killed.
        killed: bool,
    },
    /// A minor conflict's single turn tied: the GM records the outcome.
    MinorConflictTied,
    /// The conflict ended (§5.7).
    ConflictEnded {
        /// The winning side; `None` for a drawn minor conflict.
        winner: Option<SideId>,
    },
    /// A special (or a pass) was committed face down in a timing window. Another seat sees
    /// that a choice was made, not which: `hidden` is set and `card` blanked to `None`, so a
    /// pass and a card look the same until the count ([`Conflict::redact`]).
    SpecialCommitted {
        /// Who.
        fighter: FighterId,
        /// The card, or `None` for a pass (or when `hidden`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        card: Option<SpecialCard>,
        /// Whether the choice is blanked for this viewer (absent in saves: `false`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        hidden: bool,
    },
    /// Everyone in the window has chosen: this many cards are face down; those who passed
    /// may respond.
    CardsCounted {
        /// How many cards.
        count: u8,
    },
    /// A special of the window is revealed and takes effect; the window's cards are revealed
    /// one by one in list order, so a later special prevails (§6).
    SpecialRevealed {
        /// Who played it.
        fighter: FighterId,
        /// The card.
        card: SpecialCard,
        /// Cancelled by the identical special of the other of the pair: spent, no effect.
        cancelled: bool,
    },
    /// Every card of the window is revealed: the turn goes on.
    WindowClosed,
    /// A Drunken Monkey swap was decided: the new move, drawn at random, or none if kept.
    SwapDecided {
        /// Who.
        fighter: FighterId,
        /// The move it now plays, if it swapped.
        to: Option<Move>,
        /// The conflict's draw position ([`table::Draws::position`]) after the draw.
        rng_pos: u64,
    },
    /// The GM set a character's energy.
    EnergyAdjusted {
        /// Who.
        fighter: FighterId,
        /// The new current energy.
        energy: Energy,
        /// Why.
        reason: Note,
    },
}

/// Why a command was refused. Every message names the rule.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RuleError {
    /// The conflict is over.
    #[error("the conflict is over")]
    ConflictOver,
    /// No such character.
    #[error("there is no character number {0} in this conflict")]
    UnknownFighter(u8),
    /// No such seat.
    #[error("there is no seat number {0}")]
    UnknownSeat(u16),
    /// Out of turn.
    #[error("{seat} cannot do that now: {waiting}")]
    OutOfTurn {
        /// The seat.
        seat: String,
        /// What the conflict is waiting for.
        waiting: String,
        /// The rules section governing it.
        section: &'static str,
    },
    /// A seat tried to act for a character it does not control.
    #[error("{seat} does not control {fighter}")]
    NotYourCharacter {
        /// The seat.
        seat: String,
        /// The character.
        fighter: String,
    },
    /// A bad opponent.
    #[error("{opponent} cannot be chosen as opponent: {reason}")]
    BadOpponent {
        /// The character named.
        opponent: String,
        /// Why not.
        reason: String,
    },
    /// A second commitment at the same step.
    #[error("{fighter} has already committed a {what} this turn; a face-down card cannot be taken back")]
    AlreadyCommitted {
        /// Who.
        fighter: String,
        /// Stance or move.
        what: &'static str,
    },
    /// A stance above the energy of its type.
    #[error("{fighter} cannot take a stance of {amount}{}: {fighter} has {current} {} energy, and a stance is 0 to the current energy of its type", action.symbol(), action.name())]
    StanceAboveEnergy {
        /// Who.
        fighter: String,
        /// The type.
        action: Action,
        /// The amount asked.
        amount: u8,
        /// The energy there is.
        current: u8,
    },
    /// A move the character does not know.
    #[error("{fighter} does not know the move {card}; known moves: {known}")]
    UnknownMove {
        /// Who.
        fighter: String,
        /// The move.
        card: Move,
        /// What it knows.
        known: String,
    },
    /// A move face up in a chain.
    #[error("{fighter} cannot play {card}: it is face up in {fighter}'s {chain} chain")]
    MoveUnavailable {
        /// Who.
        fighter: String,
        /// The move.
        card: Move,
        /// "disadvantage" or "combo".
        chain: &'static str,
    },
    /// No chain to end.
    #[error("{fighter}'s side has no combo chain to end")]
    NoComboToEnd {
        /// Who.
        fighter: String,
    },
    /// A spread that does not add up.
    #[error("{fighter} must spread exactly {expected}, not {got}")]
    SpreadTotal {
        /// Who.
        fighter: String,
        /// The amount due.
        expected: u32,
        /// The amount given.
        got: u32,
    },
    /// A spread takes more than a type has.
    #[error("{fighter} cannot lose {asked} {} energy: only {left} is left after the stance part", action.name())]
    SpreadAboveEnergy {
        /// Who.
        fighter: String,
        /// The type.
        action: Action,
        /// Asked.
        asked: u8,
        /// There.
        left: u8,
    },
    /// A special that cannot be played now.
    #[error("{fighter} cannot play {special} now: {reason}")]
    SpecialNotPlayable {
        /// Who.
        fighter: String,
        /// The special's name.
        special: String,
        /// Why not.
        reason: String,
    },
    /// A move of an action the opponent's I Already Know forbids.
    #[error("{fighter} cannot play a {} move this turn: the opponent's I Already Know {} forbids it", action.name(), action.symbol())]
    MoveForbidden {
        /// Who.
        fighter: String,
        /// The forbidden action.
        action: Action,
    },
    /// Surrender under The Way of the Samurai.
    #[error("{fighter} cannot surrender: The Way of the Samurai keeps it in the conflict until the end")]
    SamuraiCannotSurrender {
        /// Who.
        fighter: String,
    },
    /// Something only the GM may do.
    #[error("only the GM can {0}")]
    NotGm(&'static str),
    /// An energy adjustment above the maximum.
    #[error("{fighter} cannot be set to {energy}: its maximum is {max}")]
    AboveMaximum {
        /// Who.
        fighter: String,
        /// The energy asked for.
        energy: Energy,
        /// The maximum.
        max: Energy,
    },
    /// A character that cannot take the next turn.
    #[error("{fighter} cannot take the next turn: {reason}")]
    CannotTakeTurn {
        /// Who.
        fighter: String,
        /// Why not.
        reason: String,
    },
}

/// Who chooses the next turn and among whom (§5.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NextTurn {
    /// The seat that decides: the turn winner's controller, or the GM after a tie.
    pub decider: SeatId,
    /// The characters it may choose.
    pub candidates: Vec<FighterId>,
}

impl Conflict {
    fn name(&self, id: FighterId) -> String {
        self.fighter(id).name().to_owned()
    }

    fn check_fighter(&self, id: FighterId) -> Result<(), RuleError> {
        if usize::from(id.0) < self.fighters.len() { Ok(()) } else { Err(RuleError::UnknownFighter(id.0)) }
    }

    /// Whether `to` taking the next turn continues its combo streak (§5.6): it was this turn's
    /// active character, it won, its side's chain is live, it has an available follow-up of
    /// the chain's newest move to play, and it has taken fewer than three consecutive turns.
    pub fn continues_streak(&self, a: &Aftermath, to: FighterId) -> bool {
        let f = self.fighter(to);
        self.last_active == Some(to)
            && a.pair[0] == to
            && matches!(a.result.outcome, Outcome::Win { winner: 0 })
            && self.streak < 3
            && self.combo.as_ref().is_some_and(|c| {
                c.side == f.side
                    && self.fighter(c.against).is_in()
                    && !f.follow_ups[c.newest().index()].intersection(self.available_moves(to)).is_empty()
                    // There Can Be Only One may bind it to others only: then it cannot face
                    // the chain's opponent, so the streak cannot go on. Bound to the chain's
                    // opponent among others, it may (several bonds, §6 Decision).
                    && self.may_face_bound(to, c.against)
            })
    }

    /// Whether `id` is the last character of its side still in.
    fn alone(&self, id: FighterId) -> bool {
        self.in_side(self.fighter(id).side).nth(1).is_none()
    }

    /// Who may take the next turn, and who chooses (§5.6).
    ///
    /// The turn's winner chooses among the characters of its side still in — even when it went
    /// out in its own winning turn (Decision); on a tie (or when both surrendered) the GM
    /// chooses a character of either side. A character takes consecutive turns only to
    /// continue its combo streak (at most three), except that a side with one character left
    /// gives it every turn (Decision). Among the others of a side the choice falls on those
    /// with the fewest turns taken, whoever chooses (Decision: equal turns bind the GM too).
    pub fn next_turn(&self, a: &Aftermath) -> NextTurn {
        NextTurn { decider: self.next_turn_decider(a), candidates: self.next_turn_candidates(a).collect() }
    }

    /// The turn's winner, who passes the next turn within its side (§5.6).
    ///
    /// **Decision (the winner went out in its own winning turn**, §5.6, e.g. through Dig Two
    /// Graves): its side still keeps the turn, and whoever controls the winner chooses among
    /// that side's characters still in (equal turns apply). If none is left, §5.7 ends the
    /// conflict before anyone is asked.
    fn passing_winner(&self, a: &Aftermath) -> Option<FighterId> {
        a.winner()
    }

    /// The seat that gives the next turn: the winner's controller, else the GM (§5.6).
    pub fn next_turn_decider(&self, a: &Aftermath) -> SeatId {
        self.passing_winner(a).map_or_else(|| self.gm_seat(), |w| self.fighter(w).seat)
    }

    /// The characters that may take the next turn, in id order, without allocating (§5.6).
    ///
    /// **Decision (equal turns bind the GM too**, §5.6): after a tie the GM may give the turn
    /// to either side, but within the side chosen the choice falls on the characters with the
    /// fewest turns taken, as it does for a winner's choice.
    pub fn next_turn_candidates<'a>(&'a self, a: &'a Aftermath) -> impl Iterator<Item = FighterId> + 'a {
        let winner = self.passing_winner(a);
        let prev = self.last_active;
        let in_pool = move |id: FighterId| {
            let f = self.fighter(id);
            f.is_in() && winner.is_none_or(|w| self.fighter(w).side == f.side)
        };
        // Consecutive turns only to continue a combo, unless alone on the side.
        let ordinary = move |id: FighterId| in_pool(id) && (Some(id) != prev || self.alone(id));
        // Equal turns, within each side, whoever chooses.
        let turns = move |id: FighterId| self.fighter(id).turns_taken;
        let fewest = move |id: FighterId| {
            let side = self.fighter(id).side;
            self.ids().filter(|&o| ordinary(o) && self.fighter(o).side == side).map(turns).min()
        };
        self.ids().filter(move |&id| {
            (ordinary(id) && fewest(id) == Some(turns(id)))
                || (Some(id) == prev && in_pool(id) && self.continues_streak(a, id))
        })
    }

    /// The opponents the active character may choose (§5.2 step 1): characters of the other
    /// side still in; on a consecutive turn given to continue a combo, only its opponent.
    pub fn legal_opponents<'a>(&'a self, t: &Turn) -> impl Iterator<Item = FighterId> + 'a {
        let me = self.fighter(t.active);
        // There Can Be Only One: a bound character faces only its partner while both are in.
        // A bond made during this turn prevails over the combo streak's opponent (facing
        // another opponent ends the chain, §5.5).
        let active = t.active;
        let must_face = t.must_face.filter(|&o| self.may_face_bound(active, o));
        self.ids().filter(move |&id| {
            let f = self.fighter(id);
            f.side != me.side
                && f.is_in()
                && must_face.is_none_or(|o| o == id)
                && self.may_face_bound(active, id)
        })
    }

    /// Whether There Can Be Only One lets `id` choose `opponent` (§6): a character bound by no
    /// bond may choose anyone; one bound by bonds still in force, only a character it is bound
    /// to.
    ///
    /// **Decision (several There Can Be Only One bonds, §6):** a character bound by several
    /// bonds may choose as opponent any character it is bound to, and only those, until all but
    /// one of them are out; a combo may continue against any of them.
    pub fn may_face_bound(&self, id: FighterId, opponent: FighterId) -> bool {
        let mut bound = self.bound_opponents(id).peekable();
        bound.peek().is_none() || bound.any(|o| o == opponent)
    }

    /// The moves `id` may commit this turn (§5.2 step 3): its available moves, less the
    /// action an I Already Know forbids it (§6).
    ///
    /// **Decision (The Way of the Samurai, §6):** "cannot be removed from this conflict"
    /// covers leaving by choice, so where §5.2 would force a surrender because no move is
    /// available, every move it knows is available instead (less a forbidden action; should I
    /// Already Know forbid every move it knows, The Way of the Samurai, later on the list,
    /// prevails: every move it knows).
    pub fn playable_moves(&self, t: &Turn, id: FighterId) -> MoveSet {
        let forbidden = self.forbidden_action(t, id);
        let allowed =
            |set: MoveSet| set.iter().filter(|m| Some(m.action()) != forbidden).collect::<MoveSet>();
        let playable = allowed(self.available_moves(id));
        let f = self.fighter(id);
        if !playable.is_empty() || !f.samurai {
            return playable;
        }
        let known = allowed(f.known);
        if known.is_empty() { f.known } else { known }
    }

    /// Whether `id` may surrender (§5.2 step 3): always, except under The Way of the Samurai,
    /// which may not leave the conflict by choice (§6 Decision; `playable_moves` gives it a
    /// move wherever it knows one).
    pub fn may_surrender(&self, id: FighterId) -> bool {
        !self.fighter(id).samurai
            || match &self.phase {
                Phase::Turn(t) => self.playable_moves(t, id).is_empty(),
                _ => true,
            }
    }

    /// Whether a pending loss leaves its controller no choice: nothing to spread, everything
    /// left goes, or only one type has energy.
    fn spread_is_forced(rest: u32, after: &Energy) -> bool {
        rest == 0 || rest >= after.total() || Action::ALL.iter().filter(|&&t| after.get(t) > 0).count() <= 1
    }

    /// The pair member `seat` controls in the current turn or aftermath.
    fn seat_member(&self, seat: SeatId) -> Option<(usize, FighterId)> {
        let pair = match &self.phase {
            Phase::Turn(t) => t.pair().unwrap_or([t.active, t.active]),
            Phase::Aftermath(a) => a.pair,
            _ => return None,
        };
        pair.iter().enumerate().find(|(_, f)| self.fighter(**f).seat == seat).map(|(i, f)| (i, *f))
    }

    /// A sentence saying what the conflict waits for.
    pub fn waiting_for(&self) -> String {
        let names = |ids: &[FighterId]| ids.iter().map(|&i| self.name(i)).collect::<Vec<_>>().join(" and ");
        match &self.phase {
            Phase::FirstTurn => "the players choose which player character takes the first turn".into(),
            Phase::Turn(t) => match t.step {
                Step::Opponent => format!("{} chooses an opponent", self.name(t.active)),
                Step::Stance | Step::Move => {
                    let what = if t.step == Step::Stance { "stance" } else { "move" };
                    let slots = if t.step == Step::Stance {
                        [t.stances[0].is_committed(), t.stances[1].is_committed()]
                    } else {
                        [t.plays[0].is_committed(), t.plays[1].is_committed()]
                    };
                    let pair = t.pair().unwrap_or([t.active; 2]);
                    let missing: Vec<FighterId> = (0..2).filter(|&i| !slots[i]).map(|i| pair[i]).collect();
                    format!("waiting for a {what} from {}", names(&missing))
                }
                Step::Window(w) => {
                    let due: Vec<FighterId> = t.window.as_ref().map_or_else(Vec::new, |wp| {
                        (0..wp.participants.len())
                            .filter(|&i| wp.slot_due(i))
                            .map(|i| wp.participants[i])
                            .collect()
                    });
                    let round = match t.window.as_ref().and_then(|wp| wp.count) {
                        None => "a special or a pass".to_owned(),
                        Some(n) => {
                            format!("a response to {n} face-down card{}", if n == 1 { "" } else { "s" })
                        }
                    };
                    format!("{} timing window: waiting for {round} from {}", w.name(), names(&due))
                }
                Step::Resolve => "resolving the turn".into(),
                Step::Swap => {
                    let due: Vec<FighterId> = t
                        .pair()
                        .map(|p| (0..2).filter(|&i| self.swap_due(t, i)).map(|i| p[i]).collect())
                        .unwrap_or_default();
                    format!("{} decides whether to swap its move (Drunken Monkey)", names(&due))
                }
            },
            Phase::Aftermath(a) => {
                let spreading: Vec<FighterId> = self.pending(a).map(|p| self.pending_fighter(a, p)).collect();
                if !spreading.is_empty() {
                    format!("energy still to spread for {}", names(&spreading))
                } else if let Some(m) = a.mercy {
                    format!("{} decides whether {} dies", self.name(m.winner), self.name(m.surrendered))
                } else {
                    let nt = self.next_turn(a);
                    format!(
                        "{} gives the next turn to {}",
                        self.seat_name(nt.decider),
                        names(&nt.candidates).replace(" and ", " or ")
                    )
                }
            }
            Phase::MinorOutcome => "the GM records the outcome of the tied minor conflict".into(),
            Phase::Over => "nothing: the conflict is over".into(),
        }
    }

    /// The rules section governing what the conflict waits for.
    pub fn current_section(&self) -> &'static str {
        match &self.phase {
            Phase::FirstTurn => "§5.1 step 4",
            Phase::Turn(t) => match t.step {
                Step::Window(_) => "§6",
                Step::Opponent => "§5.2 step 1",
                Step::Stance => "§5.2 step 2",
                Step::Move => "§5.2 step 3",
                Step::Resolve => "§5.2 step 4",
                Step::Swap => "§6",
            },
            Phase::Aftermath(a) if self.pending(a).next().is_some() => "§5.3",
            Phase::Aftermath(a) if a.mercy.is_some() => "§5.2",
            Phase::Aftermath(_) => "§5.6",
            Phase::MinorOutcome | Phase::Over => "§5.7",
        }
    }

    fn out_of_turn(&self, seat: SeatId) -> RuleError {
        RuleError::OutOfTurn {
            seat: self.seat_name(seat).to_owned(),
            waiting: self.waiting_for(),
            section: self.current_section(),
        }
    }

    /// Checks `command` from `seat` and pushes the events it causes.
    pub fn decide(&self, seat: SeatId, command: &Command, events: &mut Vec<Event>) -> Result<(), RuleError> {
        self.seats.get(seat).map_err(|_| RuleError::UnknownSeat(seat.0))?;
        if matches!(self.phase, Phase::Over) {
            return Err(RuleError::ConflictOver);
        }
        match *command {
            Command::TakeFirstTurn { fighter } => {
                self.check_fighter(fighter)?;
                if !matches!(self.phase, Phase::FirstTurn)
                    || self.seats.get(seat).map(|s| s.role) != Ok(Role::Player)
                {
                    return Err(self.out_of_turn(seat));
                }
                let f = self.fighter(fighter);
                if f.side != PLAYERS || !f.is_in() {
                    return Err(RuleError::CannotTakeTurn {
                        fighter: self.name(fighter),
                        reason: "the first turn goes to a player character".into(),
                    });
                }
                events.push(Event::TurnBegan { active: fighter });
            }
            Command::ChooseOpponent { opponent } => {
                self.check_fighter(opponent)?;
                let Phase::Turn(t) = &self.phase else {
                    return Err(self.out_of_turn(seat));
                };
                if t.step != Step::Opponent || self.fighter(t.active).seat != seat {
                    return Err(self.out_of_turn(seat));
                }
                if !self.legal_opponents(t).any(|o| o == opponent) {
                    let o = self.fighter(opponent);
                    let reason = if o.side == self.fighter(t.active).side {
                        "it is on the same side".to_owned()
                    } else if !o.is_in() {
                        "it is out of the conflict".to_owned()
                    } else if !self.may_face_bound(t.active, opponent) {
                        let bound: Vec<String> =
                            self.bound_opponents(t.active).map(|b| self.name(b)).collect();
                        format!(
                            "There Can Be Only One binds {} to face only {}",
                            self.name(t.active),
                            bound.join(" or ")
                        )
                    } else {
                        "a consecutive turn may only continue the combo against its opponent".to_owned()
                    };
                    return Err(RuleError::BadOpponent { opponent: self.name(opponent), reason });
                }
                events.push(Event::OpponentChosen { opponent });
            }
            Command::EndCombo => {
                let Phase::Turn(t) = &self.phase else {
                    return Err(self.out_of_turn(seat));
                };
                if self.fighter(t.active).seat != seat || t.plays[0].is_committed() {
                    return Err(self.out_of_turn(seat));
                }
                if self.combo.as_ref().is_none_or(|c| c.side != self.fighter(t.active).side) {
                    return Err(RuleError::NoComboToEnd { fighter: self.name(t.active) });
                }
                events.push(Event::ComboEnded { by: t.active });
            }
            Command::CommitStance { stance } => {
                let Phase::Turn(t) = &self.phase else {
                    return Err(self.out_of_turn(seat));
                };
                let Some((pos, id)) = self.seat_member(seat).filter(|_| t.step == Step::Stance) else {
                    return Err(self.out_of_turn(seat));
                };
                if t.stances[pos].is_committed() {
                    return Err(RuleError::AlreadyCommitted { fighter: self.name(id), what: "stance" });
                }
                let current = self.fighter(id).energy.get(stance.action);
                if stance.amount > current {
                    return Err(RuleError::StanceAboveEnergy {
                        fighter: self.name(id),
                        action: stance.action,
                        amount: stance.amount,
                        current,
                    });
                }
                let stance = if stance.amount == 0 { Stance::NONE } else { stance };
                events.push(Event::StanceCommitted { fighter: id, stance: Some(stance) });
            }
            Command::CommitMove { play } => {
                let Phase::Turn(t) = &self.phase else {
                    return Err(self.out_of_turn(seat));
                };
                let Some((pos, id)) = self.seat_member(seat).filter(|_| t.step == Step::Move) else {
                    return Err(self.out_of_turn(seat));
                };
                if t.plays[pos].is_committed() {
                    return Err(RuleError::AlreadyCommitted { fighter: self.name(id), what: "move" });
                }
                if let Play::Move(card) = play
                    && !self.playable_moves(t, id).contains(card)
                {
                    let f = self.fighter(id);
                    if !f.known.contains(card) {
                        let known = f.known.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" ");
                        return Err(RuleError::UnknownMove { fighter: self.name(id), card, known });
                    }
                    if let Some(action) = self.forbidden_action(t, id).filter(|&a| a == card.action()) {
                        return Err(RuleError::MoveForbidden { fighter: self.name(id), action });
                    }
                    let chain = if f.disadvantage.set().contains(card) { "disadvantage" } else { "combo" };
                    return Err(RuleError::MoveUnavailable { fighter: self.name(id), card, chain });
                }
                if play == Play::Surrender && !self.may_surrender(id) {
                    return Err(RuleError::SamuraiCannotSurrender { fighter: self.name(id) });
                }
                events.push(Event::MoveCommitted { fighter: id, play: Some(play) });
            }
            Command::SpreadLoss { spread } | Command::SpreadGain { spread } => {
                let Phase::Aftermath(a) = &self.phase else {
                    return Err(self.out_of_turn(seat));
                };
                let gain = matches!(command, Command::SpreadGain { .. });
                let Some(p) = self.pending_for(a, seat).filter(|p| p.is_gain(self) == gain) else {
                    return Err(self.out_of_turn(seat));
                };
                let id = self.pending_fighter(a, p);
                let (base, due, room) = self.pending_parts(a, p);
                if spread.total() != due {
                    return Err(RuleError::SpreadTotal {
                        fighter: self.name(id),
                        expected: due,
                        got: spread.total(),
                    });
                }
                for t in Action::ALL {
                    if spread.get(t) > room.get(t) {
                        return Err(RuleError::SpreadAboveEnergy {
                            fighter: self.name(id),
                            action: t,
                            asked: spread.get(t),
                            left: room.get(t),
                        });
                    }
                }
                events.push(self.settlement_event(p, id, base, spread));
            }
            Command::DecideMercy { kill } => {
                let Phase::Aftermath(a) = &self.phase else {
                    return Err(self.out_of_turn(seat));
                };
                match a.mercy {
                    Some(m) if self.pending(a).next().is_none() && self.fighter(m.winner).seat == seat => {
                        events.push(Event::MercyDecided { fighter: m.surrendered, killed: kill });
                    }
                    _ => return Err(self.out_of_turn(seat)),
                }
            }
            Command::PassTurn { to } => {
                self.check_fighter(to)?;
                let Phase::Aftermath(a) = &self.phase else {
                    return Err(self.out_of_turn(seat));
                };
                if self.pending(a).next().is_some() || a.mercy.is_some() || self.automatic().is_some() {
                    return Err(self.out_of_turn(seat));
                }
                let decider = self.next_turn_decider(a);
                if decider != seat && !(self.is_gm(seat) && self.is_gm(decider)) {
                    return Err(self.out_of_turn(seat));
                }
                if !self.next_turn_candidates(a).any(|c| c == to) {
                    let f = self.fighter(to);
                    let reason = if !f.is_in() {
                        "it is out of the conflict".to_owned()
                    } else if a.winner().is_some_and(|w| self.fighter(w).side != f.side) {
                        "the winner passes the turn within its own side".to_owned()
                    } else if Some(to) == self.last_active {
                        "a character takes consecutive turns only to continue a combo, at most three"
                            .to_owned()
                    } else {
                        "another character of its side has taken fewer turns".to_owned()
                    };
                    return Err(RuleError::CannotTakeTurn { fighter: self.name(to), reason });
                }
                events.push(Event::TurnBegan { active: to });
            }
            Command::PlaySpecial { fighter, card } => {
                self.check_fighter(fighter)?;
                if let Some(target) = card.and_then(|c| c.target) {
                    self.check_fighter(target)?;
                }
                self.decide_special(seat, fighter, card, events)?;
            }
            Command::DrunkenSwap { swap } => {
                let Phase::Turn(t) = &self.phase else { return Err(self.out_of_turn(seat)) };
                let Some((pos, id)) =
                    self.seat_member(seat).filter(|&(p, _)| t.step == Step::Swap && self.swap_due(t, p))
                else {
                    return Err(self.out_of_turn(seat));
                };
                let (to, rng_pos) = match self.draw_swap(t, pos).filter(|_| swap) {
                    Some((m, p)) => (Some(m), p),
                    None => (None, self.draws.position()),
                };
                events.push(Event::SwapDecided { fighter: id, to, rng_pos });
            }
            Command::AdjustEnergy { fighter, energy, reason } => {
                self.check_fighter(fighter)?;
                if !self.is_gm(seat) {
                    return Err(RuleError::NotGm("adjust a character's energy"));
                }
                let max = self.fighter(fighter).character.energy;
                if !energy.fits_within(&max) {
                    return Err(RuleError::AboveMaximum { fighter: self.name(fighter), energy, max });
                }
                events.push(Event::EnergyAdjusted { fighter, energy, reason });
            }
            Command::RecordOutcome { verdict } => {
                if !matches!(self.phase, Phase::MinorOutcome) || !self.is_gm(seat) {
                    return Err(self.out_of_turn(seat));
                }
                let winner = match verdict {
                    Verdict::Players => Some(PLAYERS),
                    Verdict::Gm => Some(GM),
                    Verdict::Draw => None,
                };
                events.push(Event::ConflictEnded { winner });
            }
        }
        Ok(())
    }

    /// The next step the rules take by themselves, if any.
    pub fn automatic(&self) -> Option<Event> {
        match &self.phase {
            Phase::FirstTurn => {
                let mut pcs = self.in_side(PLAYERS);
                match (pcs.next(), pcs.next()) {
                    (Some(active), None) => Some(Event::TurnBegan { active }),
                    _ => None,
                }
            }
            Phase::Turn(t) if !self.turn_delayed.is_empty() && self.delayed_step(t).is_some() => {
                self.delayed_step(t)
            }
            Phase::Turn(t) => match t.step {
                Step::Opponent => {
                    let mut legal = self.legal_opponents(t);
                    let (first, second) = (legal.next(), legal.next());
                    match (first, second) {
                        (Some(opponent), None) => Some(Event::OpponentChosen { opponent }),
                        _ => None,
                    }
                }
                Step::Stance => match (t.stances[0].value(), t.stances[1].value()) {
                    (Some(a), Some(b)) => Some(Event::StancesRevealed { stances: [a, b] }),
                    _ => None,
                },
                Step::Move => match (t.plays[0].value(), t.plays[1].value()) {
                    (Some(a), Some(b)) => Some(Event::MovesRevealed { plays: [a, b] }),
                    _ => None,
                },
                Step::Resolve => Some(Event::TurnResolved { result: self.resolve_turn(t) }),
                Step::Window(_) => t.window.as_ref().and_then(|w| self.window_step(t, w)),
                Step::Swap => None,
            },
            Phase::Aftermath(a) => self.aftermath_step(a),
            Phase::MinorOutcome | Phase::Over => None,
        }
    }

    /// The pure resolution (§5.2 step 4–5) fed from the conflict's chains.
    fn resolve_turn(&self, t: &Turn) -> TurnResult {
        let pair = t.pair().unwrap_or([t.active; 2]);
        let contender = |i: usize| {
            let f = self.fighter(pair[i]);
            let play = t.plays[i].value().unwrap_or(Play::Surrender);
            Contender {
                stance: t.stances[i].value().unwrap_or(Stance::NONE),
                play,
                disadvantage_newest: f.disadvantage.newest(),
                disadvantage_len: f.disadvantage.len(),
                combo_len: play.as_move().map_or(0, |m| self.combo_bonus(pair[i], pair[1 - i], m)),
            }
        };
        resolve(&[contender(0), contender(1)])
    }

    fn aftermath_step(&self, a: &Aftermath) -> Option<Event> {
        // The common case, without specials: just the pair's own losses.
        let plain = self.plain(a);
        if plain {
            for pos in 0..2 {
                if a.loss_taken[pos] {
                    continue;
                }
                let (base, due, room) = self.pending_parts(a, crate::effects::Pending::Pair(pos));
                if !Self::spread_is_forced(due, &room) {
                    continue;
                }
                let p = crate::effects::Pending::Pair(pos);
                return Some(self.settlement_event(p, a.pair[pos], base, room.default_spread(due)));
            }
        }
        if !plain {
            if let Some(e) = self.forced_settlement(a) {
                return Some(e);
            }
            if self.pending(a).next().is_some() {
                return None;
            }
        } else if !(a.loss_taken[0] && a.loss_taken[1]) {
            return None;
        }
        // Anyone at zero goes out (the pair after its losses, or someone the GM set to zero),
        // except a character under The Way of the Samurai.
        for id in self.ids() {
            let f = self.fighter(id);
            if f.is_in() && f.energy.total() == 0 && !f.samurai {
                return Some(Event::WentOut { fighter: id, dead: self.stakes.lethal });
            }
        }
        if a.mercy.is_some() {
            return None;
        }
        let players = self.in_side(PLAYERS).count();
        let gm = self.in_side(GM).count();
        if players == 0 || gm == 0 {
            // Both sides out in the same turn: the GM's side wins (§5.7).
            let winner = if players > 0 { PLAYERS } else { GM };
            return Some(Event::ConflictEnded { winner: Some(winner) });
        }
        if self.stakes.minor {
            return Some(match a.winner() {
                Some(w) => Event::ConflictEnded { winner: Some(self.fighter(w).side) },
                None => Event::MinorConflictTied,
            });
        }
        let mut candidates = self.next_turn_candidates(a);
        match (candidates.next(), candidates.next()) {
            (Some(active), None) => Some(Event::TurnBegan { active }),
            _ => None,
        }
    }

    /// The next settlement the rules take by themselves when specials touched the turn: a
    /// loss or gain whose spread leaves no choice.
    #[inline(never)]
    fn forced_settlement(&self, a: &Aftermath) -> Option<Event> {
        for p in self.pending(a) {
            let (base, due, room) = self.pending_parts(a, p);
            if Self::spread_is_forced(due, &room) {
                let fighter = self.pending_fighter(a, p);
                return Some(self.settlement_event(p, fighter, base, room.default_spread(due)));
            }
        }
        None
    }

    /// The event that settles `p` for `fighter`: the fixed part (a loss's own-stance part)
    /// plus the spread, taken as a loss or regained as a gain.
    fn settlement_event(
        &self,
        p: crate::effects::Pending,
        fighter: FighterId,
        base: Energy,
        spread: Energy,
    ) -> Event {
        let amounts = base.plus(&spread);
        if p.is_gain(self) {
            Event::GainTaken { fighter, gained: amounts }
        } else {
            Event::LossTaken { fighter, taken: amounts }
        }
    }

    /// Applies one event.
    ///
    /// A small dispatcher: the events a turn sees at every step are handled here, the others
    /// in their own functions, so that the common steps do not pay for the rare ones' stack
    /// frames (the simulation benchmarks call this for every event).
    pub fn apply(&mut self, event: &Event) {
        match *event {
            Event::TurnBegan { active } => self.apply_turn_began(active),
            Event::OpponentChosen { opponent } => self.apply_opponent_chosen(opponent),
            Event::ComboEnded { .. } => self.combo = None,
            // A blanked commitment (a viewer's copy, never in the table's log) changes nothing.
            Event::StanceCommitted { fighter, stance: Some(stance) } => {
                if let Phase::Turn(t) = &mut self.phase
                    && let Some(pos) = t.position(fighter)
                {
                    t.stances[pos] = Sealed::FaceDown(stance);
                }
            }
            Event::StancesRevealed { .. } => {
                if let Phase::Turn(t) = &mut self.phase {
                    t.stances.iter_mut().for_each(Sealed::reveal);
                }
                self.advance_turn(Step::Stance.next());
            }
            Event::StanceCommitted { stance: None, .. } => {}
            Event::MoveCommitted { fighter, play: Some(play) } => {
                if let Phase::Turn(t) = &mut self.phase
                    && let Some(pos) = t.position(fighter)
                {
                    t.plays[pos] = Sealed::FaceDown(play);
                }
            }
            Event::MoveCommitted { play: None, .. } => {}
            Event::MovesRevealed { .. } => {
                if let Phase::Turn(t) = &mut self.phase {
                    t.plays.iter_mut().for_each(Sealed::reveal);
                }
                self.advance_turn(Step::Move.next());
            }
            Event::TurnResolved { result } => self.apply_resolution(result),
            Event::LossTaken { fighter, taken } => self.apply_loss_taken(fighter, taken),
            Event::GainTaken { fighter, gained } => self.apply_gain_taken(fighter, gained),
            Event::WentOut { fighter, dead } => self.apply_went_out(fighter, dead),
            Event::MercyDecided { fighter, killed } => {
                self.fighter_mut(fighter).dead |= killed;
                if let Phase::Aftermath(a) = &mut self.phase {
                    a.mercy = None;
                }
            }
            Event::MinorConflictTied => self.phase = Phase::MinorOutcome,
            Event::ConflictEnded { winner } => self.apply_conflict_ended(winner),
            Event::SpecialCommitted { fighter, card, hidden: false } => {
                self.apply_special_committed(fighter, card)
            }
            Event::SpecialCommitted { hidden: true, .. } => {}
            Event::SwapDecided { fighter, to, rng_pos } => self.apply_swap_decided(fighter, to, rng_pos),
            Event::CardsCounted { count } => self.apply_cards_counted(count),
            Event::SpecialRevealed { fighter, card, cancelled } => {
                self.apply_special_revealed(fighter, card, cancelled)
            }
            Event::WindowClosed => self.apply_window_closed(),
            Event::EnergyAdjusted { fighter, energy, .. } => self.apply_energy_adjusted(fighter, energy),
        }
    }

    /// A turn begins (§5.2, §5.6): the streak, the turn count, a fresh turn.
    #[inline(never)]
    fn apply_turn_began(&mut self, active: FighterId) {
        let continuing = match &self.phase {
            Phase::Aftermath(a) => self.continues_streak(a, active),
            _ => false,
        };
        // A character alone on its side gets the turn anyway and may face anyone.
        let must_face = self.combo.as_ref().map(|c| c.against).filter(|_| continuing && !self.alone(active));
        if continuing {
            self.streak += 1;
        } else {
            self.streak = 1;
            self.fighter_mut(active).turns_taken += 1;
        }
        self.last_active = Some(active);
        self.turn_number += 1;
        self.turn_delayed.clear();
        self.turn_effects.clear();
        self.extras.clear();
        let first = Step::Window(Window::BeforeOpponent);
        self.phase = Phase::Turn(Turn {
            active,
            opponent: None,
            step: first,
            stances: [Sealed::Empty; 2],
            plays: [Sealed::Empty; 2],
            must_face,
            window: None,
            forbidden: [None; 2],
            swap_decided: [false; 2],
        });
        self.advance_turn(first);
    }

    /// The opponent is chosen (§5.2 step 1); a different opponent ends the chain (§5.5).
    #[inline(never)]
    fn apply_opponent_chosen(&mut self, opponent: FighterId) {
        if let Phase::Turn(t) = &mut self.phase {
            t.opponent = Some(opponent);
            let side = self.fighters[usize::from(t.active.0)].side;
            // Choosing a different opponent ends the chain (§5.5).
            if self.combo.as_ref().is_some_and(|c| c.side != side || c.against != opponent) {
                self.combo = None;
            }
            // Scouter played before the opponent was chosen.
            if !self.pending_scouts.is_empty() {
                let scouts = std::mem::take(&mut self.pending_scouts);
                let f = &mut self.fighters[usize::from(opponent.0)];
                for seat in scouts {
                    if !f.scouted_by.contains(&seat) {
                        f.scouted_by.push(seat);
                    }
                }
            }
        }
        self.advance_turn(Step::Opponent.next());
    }

    /// A loss leaves the character's energy, marking types that reach zero (§5.3).
    #[inline(never)]
    fn apply_loss_taken(&mut self, fighter: FighterId, taken: Energy) {
        let f = self.fighter_mut(fighter);
        for t in Action::ALL {
            let before = f.energy.get(t);
            f.energy.take(t, taken.get(t));
            if before > 0 && f.energy.get(t) == 0 {
                f.zero_marks[t.index()] = true;
            }
        }
        if let Phase::Aftermath(a) = &mut self.phase {
            match a.pair.iter().position(|&p| p == fighter).filter(|&pos| !a.loss_taken[pos]) {
                Some(pos) => a.loss_taken[pos] = true,
                None => {
                    if let Some(e) = self
                        .extras
                        .iter_mut()
                        .find(|e| e.fighter == fighter && !e.done && e.kind == ExtraKind::Loss)
                    {
                        e.done = true;
                    }
                }
            }
        }
    }

    /// Energy regained, never above maximum (Santa Carla, Vampire, §6).
    #[inline(never)]
    fn apply_gain_taken(&mut self, fighter: FighterId, gained: Energy) {
        let f = self.fighter_mut(fighter);
        for t in Action::ALL {
            let max = f.character.energy.get(t);
            let e = f.energy.get_mut(t);
            *e = e.saturating_add(gained.get(t)).min(max);
        }
        if let Phase::Aftermath(_) = &self.phase
            && let Some(e) =
                self.extras.iter_mut().find(|e| e.fighter == fighter && !e.done && e.kind == ExtraKind::Gain)
        {
            e.done = true;
        }
    }

    /// A character goes out (§5.3): its chain goes, and a combo against it ends.
    #[inline(never)]
    fn apply_went_out(&mut self, fighter: FighterId, dead: bool) {
        let f = self.fighter_mut(fighter);
        f.status = Status::Out;
        f.dead |= dead;
        f.disadvantage.clear();
        if self.combo.as_ref().is_some_and(|c| c.against == fighter) {
            self.combo = None;
        }
    }

    /// The conflict ends (§5.7); The Way of the Samurai kills its user (§6).
    #[inline(never)]
    fn apply_conflict_ended(&mut self, winner: Option<SideId>) {
        self.ending = Some(Ending { winner });
        self.phase = Phase::Over;
        self.combo = None;
        for f in &mut self.fighters {
            f.disadvantage.clear();
            // The Way of the Samurai: at the end of the conflict, its user dies.
            f.dead |= f.samurai;
        }
    }

    /// A Drunken Monkey swap is decided (§6).
    #[inline(never)]
    fn apply_swap_decided(&mut self, fighter: FighterId, to: Option<Move>, rng_pos: u64) {
        self.draws.advance_to(rng_pos);
        let mut done = false;
        if let Phase::Turn(t) = &mut self.phase
            && let Some(pos) = t.position(fighter)
        {
            t.swap_decided[pos] = true;
            if let Some(m) = to {
                t.plays[pos] = Sealed::FaceUp(Play::Move(m));
            }
            done = true;
        }
        let next = match &self.phase {
            Phase::Turn(t) if done && !(0..2).any(|p| self.swap_due(t, p)) => Some(t.step.next()),
            _ => None,
        };
        if let Some(step) = next {
            self.advance_turn(step);
        }
    }

    /// The GM sets a character's energy; types it brings to zero are marked (§5.3, §6).
    #[inline(never)]
    fn apply_energy_adjusted(&mut self, fighter: FighterId, energy: Energy) {
        let f = self.fighter_mut(fighter);
        for t in Action::ALL {
            if f.energy.get(t) > 0 && energy.get(t) == 0 {
                f.zero_marks[t.index()] = true;
            }
        }
        f.energy = energy;
    }

    /// The chains and statuses after a resolution (§5.4, §5.5, surrender Decision).
    fn apply_resolution(&mut self, result: TurnResult) {
        let Phase::Turn(t) = &self.phase else { return };
        let pair = t.pair().unwrap_or([t.active; 2]);
        let stances =
            [t.stances[0].value().unwrap_or(Stance::NONE), t.stances[1].value().unwrap_or(Stance::NONE)];
        let plays =
            [t.plays[0].value().unwrap_or(Play::Surrender), t.plays[1].value().unwrap_or(Play::Surrender)];
        let sides = [self.fighter(pair[0]).side, self.fighter(pair[1]).side];
        let mut chains = [self.fighter(pair[0]).disadvantage, self.fighter(pair[1]).disadvantage];
        after_turn(&result, pair, sides, plays, &mut chains, &mut self.combo);
        for (id, chain) in pair.into_iter().zip(chains) {
            self.fighter_mut(id).disadvantage = chain;
        }
        let mut mercy = None;
        if let Outcome::Surrender { surrendered } = result.outcome {
            for (i, &s) in surrendered.iter().enumerate() {
                if s {
                    self.fighter_mut(pair[i]).status = Status::Surrendered;
                }
            }
            if self.stakes.lethal
                && let Some(w) = result.outcome.winner()
            {
                mercy = Some(Mercy { winner: pair[w], surrendered: pair[1 - w] });
            }
        }
        let effects = match &self.phase {
            Phase::Turn(_) => self.turn_effects.as_slice(),
            _ => &[],
        };
        let (losses, spreaders) = if effects.is_empty() {
            (result.losses, [None; 2])
        } else {
            let settlement = self.settle(pair, stances, plays, &result, effects);
            self.extras.clear();
            self.extras.extend(settlement.extras);
            (settlement.losses, settlement.spreaders)
        };
        let loss_taken = [losses[0].total() == 0, losses[1].total() == 0];
        self.phase = Phase::Aftermath(Aftermath {
            pair,
            stances,
            plays,
            result,
            loss_taken,
            mercy,
            losses,
            spreaders,
        });
    }

    /// Every command `seat` may give now.
    pub fn legal_commands(&self, seat: SeatId, out: &mut Vec<Command>) {
        match &self.phase {
            Phase::FirstTurn => {
                if self.seats.get(seat).map(|s| s.role) == Ok(Role::Player) {
                    out.extend(self.in_side(PLAYERS).map(|fighter| Command::TakeFirstTurn { fighter }));
                }
            }
            Phase::Turn(t) if matches!(t.step, Step::Window(_)) => {
                let Some(w) = &t.window else { return };
                let mut cards = Vec::new();
                for (i, &id) in w.participants.iter().enumerate() {
                    if self.fighter(id).seat != seat || !w.slot_due(i) {
                        continue;
                    }
                    out.push(Command::PlaySpecial { fighter: id, card: None });
                    cards.clear();
                    self.special_options(t, id, &mut cards);
                    out.extend(cards.iter().map(|&c| Command::PlaySpecial { fighter: id, card: Some(c) }));
                }
            }
            Phase::Turn(t) => {
                let Some((pos, id)) = self.seat_member(seat) else {
                    return;
                };
                let f = self.fighter(id);
                let may_end_combo = pos == 0
                    && !t.plays[0].is_committed()
                    && matches!(t.step, Step::Opponent | Step::Stance | Step::Move)
                    && self.combo.as_ref().is_some_and(|c| c.side == f.side);
                match t.step {
                    Step::Opponent if pos == 0 => {
                        out.extend(
                            self.legal_opponents(t).map(|opponent| Command::ChooseOpponent { opponent }),
                        );
                    }
                    Step::Stance if !t.stances[pos].is_committed() => {
                        out.push(Command::CommitStance { stance: Stance::NONE });
                        for a in Action::ALL {
                            for amount in 1..=f.energy.get(a) {
                                out.push(Command::CommitStance { stance: Stance::new(a, amount) });
                            }
                        }
                    }
                    Step::Swap if self.swap_due(t, pos) => {
                        out.extend([
                            Command::DrunkenSwap { swap: false },
                            Command::DrunkenSwap { swap: true },
                        ]);
                    }
                    Step::Move if !t.plays[pos].is_committed() => {
                        out.extend(
                            self.playable_moves(t, id)
                                .iter()
                                .map(|m| Command::CommitMove { play: Play::Move(m) }),
                        );
                        if self.may_surrender(id) {
                            out.push(Command::CommitMove { play: Play::Surrender });
                        }
                    }
                    _ => {}
                }
                if may_end_combo {
                    out.push(Command::EndCombo);
                }
            }
            Phase::Aftermath(a) => {
                let unsettled =
                    if self.plain(a) { a.loss_taken != [true; 2] } else { self.pending(a).next().is_some() };
                if unsettled {
                    // The seat's first loss to spread, else its first gain.
                    if let Some(p) = self.pending_for(a, seat) {
                        let (_, due, room) = self.pending_parts(a, p);
                        let gain = p.is_gain(self);
                        // Every (○, ▨, ◆) within the room that adds up to what is due.
                        let (d_max, g_max, a_max) =
                            (u32::from(room.defend), u32::from(room.grapple), u32::from(room.attack));
                        for d in 0..=d_max.min(due) {
                            let left = due - d;
                            for g in left.saturating_sub(a_max)..=g_max.min(left) {
                                // Each part is at most that type's room, so it fits in a u8.
                                let spread = Energy::new(d as u8, g as u8, (left - g) as u8);
                                out.push(if gain {
                                    Command::SpreadGain { spread }
                                } else {
                                    Command::SpreadLoss { spread }
                                });
                            }
                        }
                    }
                    return;
                }
                if let Some(m) = a.mercy {
                    if self.fighter(m.winner).seat == seat {
                        out.extend([
                            Command::DecideMercy { kill: false },
                            Command::DecideMercy { kill: true },
                        ]);
                    }
                    return;
                }
                let decider = self.next_turn_decider(a);
                if decider == seat || (self.is_gm(seat) && self.is_gm(decider)) {
                    out.extend(self.next_turn_candidates(a).map(|to| Command::PassTurn { to }));
                }
            }
            Phase::MinorOutcome => {
                if self.is_gm(seat) {
                    out.extend(
                        [Verdict::Players, Verdict::Gm, Verdict::Draw]
                            .map(|verdict| Command::RecordOutcome { verdict }),
                    );
                }
            }
            Phase::Over => {}
        }
    }

    /// Pushes the seats the conflict waits for onto `out`.
    pub fn awaiting(&self, out: &mut Vec<SeatId>) {
        let start = out.len();
        match &self.phase {
            Phase::FirstTurn => {
                for id in self.in_side(PLAYERS) {
                    let seat = self.fighter(id).seat;
                    if !out[start..].contains(&seat) {
                        out.push(seat);
                    }
                }
            }
            Phase::Turn(t) => match (t.step, t.pair()) {
                (Step::Opponent, _) => out.push(self.fighter(t.active).seat),
                (Step::Stance, Some(p)) => out.extend(
                    (0..2).filter(|&i| !t.stances[i].is_committed()).map(|i| self.fighter(p[i]).seat),
                ),
                (Step::Move, Some(p)) => out
                    .extend((0..2).filter(|&i| !t.plays[i].is_committed()).map(|i| self.fighter(p[i]).seat)),
                (Step::Swap, Some(p)) => {
                    out.extend((0..2).filter(|&i| self.swap_due(t, i)).map(|i| self.fighter(p[i]).seat))
                }
                (Step::Window(_), _) => {
                    if let Some(w) = &t.window {
                        for (i, &id) in w.participants.iter().enumerate() {
                            let seat = self.fighter(id).seat;
                            if w.slot_due(i) && !out[start..].contains(&seat) {
                                out.push(seat);
                            }
                        }
                    }
                }
                _ => {}
            },
            Phase::Aftermath(a) => {
                if self.plain(a) {
                    out.extend((0..2).filter(|&i| !a.loss_taken[i]).map(|i| self.fighter(a.pair[i]).seat));
                } else {
                    for p in self.pending(a) {
                        let seat = self.chooser(a, p);
                        if !out[start..].contains(&seat) {
                            out.push(seat);
                        }
                    }
                }
                if out.len() == start {
                    match a.mercy {
                        Some(m) => out.push(self.fighter(m.winner).seat),
                        None => out.push(self.next_turn_decider(a)),
                    }
                }
            }
            Phase::MinorOutcome => out.push(self.gm_seat()),
            Phase::Over => {}
        }
        // Both of a pair may share a seat only in odd setups; list each seat once.
        if out.len() == start + 2 && out[start] == out[start + 1] {
            out.pop();
        }
    }

    /// The side name of a side id (for messages).
    pub fn side_label(side: SideId) -> &'static str {
        side_name(side)
    }
}
