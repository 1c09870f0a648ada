//! What one seat may see of a conflict (rules reference §5.1 step 3, §5.2 steps 2–3).
//!
//! Energy is public. Player characters' moves and combos are public; NPCs' are seen only by
//! the GM. A face-down stance or move is seen only by the seat that committed it until both
//! of the pair have committed and the cards are revealed.

use serde::{Deserialize, Serialize};
use table::{Face, Role, SeatId, SideId, Viewer};

use crate::card::{Action, Move};
use crate::chain::ComboChain;
use crate::character::{Combo, KnownMove};
use crate::conflict::{
    Aftermath, Conflict, Ending, Fighter, FighterId, PLAYERS, Phase, Stakes, Status, Step, Window,
};
use crate::energy::{Energy, Stance};
use crate::outcome::{Ended, TurnOutcome, turn_outcome, who_won};
use crate::rules::Event;
use crate::special::{Edition, Special};
use crate::turn::Play;
use crate::windows::SpecialCard;

/// A seat as everyone sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    /// Its name.
    pub name: String,
    /// Player or GM.
    pub role: Role,
}

/// A character as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FighterView {
    /// Its id.
    pub id: FighterId,
    /// Its name.
    pub name: String,
    /// The seat controlling it.
    pub seat: String,
    /// Its side.
    pub side: SideId,
    /// Current energy (public, §5.1 step 3).
    pub energy: Energy,
    /// Maximum energy.
    pub max_energy: Energy,
    /// In, surrendered or out.
    pub status: Status,
    /// Whether it died.
    pub dead: bool,
    /// Zero-energy marks (○ ▨ ◆).
    pub zero_marks: [bool; 3],
    /// Its disadvantage chain (face up).
    pub disadvantage: Vec<Move>,
    /// Turns taken.
    pub turns_taken: u32,
    /// Known moves, when the viewer may see them.
    pub moves: Option<Vec<KnownMove>>,
    /// Learned combos, when the viewer may see them.
    pub combos: Option<Vec<Combo>>,
    /// Moves available now, when the viewer may see them.
    pub available: Option<Vec<Move>>,
    /// Learned specials, when the viewer may see them.
    pub specials: Option<Vec<Special>>,
    /// Specials used since the last full rest, when the viewer may see them.
    pub specials_used: Option<Vec<Special>>,
    /// The Way of the Samurai is active (public: it was revealed).
    pub samurai: bool,
    /// Drunken Monkey is active (public: it was revealed).
    pub drunken: bool,
    /// It must sit out the next conflict (Drunken Monkey).
    pub sits_out_next: bool,
}

/// A timing window as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowView {
    /// Which window.
    pub window: Window,
    /// The characters acting in it.
    pub participants: Vec<FighterId>,
    /// Their first choices: face down, or known to their own seat (`null` inside is a pass).
    pub first: Vec<Face<Option<SpecialCard>>>,
    /// How many cards the first round put down, once everyone has chosen.
    pub count: Option<u8>,
    /// The responses of those who passed.
    pub response: Vec<Face<Option<SpecialCard>>>,
}

/// The phase as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "phase")]
pub enum PhaseView {
    /// The players choose who takes the first turn.
    FirstTurn,
    /// A turn is under way.
    Turn {
        /// The active character.
        active: FighterId,
        /// Its opponent, once chosen.
        opponent: Option<FighterId>,
        /// The step.
        step: Step,
        /// The pair's stances as this viewer sees them.
        stances: [Face<Stance>; 2],
        /// The pair's moves as this viewer sees them.
        plays: [Face<Play>; 2],
        /// The timing window in progress, if any.
        window: Option<WindowView>,
        /// An action each of the pair may not play this turn (I Already Know, revealed).
        forbidden: [Option<Action>; 2],
    },
    /// A resolved turn's consequences (everything in it is face up).
    Aftermath(Aftermath),
    /// The GM records a tied minor conflict's outcome.
    MinorOutcome,
    /// Over.
    Over,
}

/// A conflict as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConflictView {
    /// Who is looking.
    pub viewer: Viewer,
    /// The stakes.
    pub stakes: Stakes,
    /// The seats.
    pub seats: Vec<SeatView>,
    /// Every character.
    pub fighters: Vec<FighterView>,
    /// The combo chain, face up.
    pub combo: Option<ComboChain>,
    /// The phase.
    pub phase: PhaseView,
    /// How many turns have begun.
    pub turn_number: u32,
    /// What the conflict is waiting for, in words.
    pub waiting_for: String,
    /// How it ended.
    pub ending: Option<Ending>,
    /// The edition of the rules.
    pub edition: Edition,
    /// Pairs bound by There Can Be Only One (revealed, so public).
    pub bonds: Vec<[FighterId; 2]>,
    /// The turn just resolved, while its consequences are taken: who won, why, the losses
    /// ([`crate::outcome::turn_outcome`]).
    #[serde(default)]
    pub turn_result: Option<TurnOutcome>,
    /// Who won, once the conflict is over, in this viewer's words ([`crate::outcome::who_won`]).
    #[serde(default)]
    pub who_won: Option<Ended>,
}

impl Conflict {
    /// Whether `viewer` controls the fighter.
    fn owns(&self, viewer: Viewer, f: &Fighter) -> bool {
        viewer == Viewer::Seat(f.seat)
    }

    /// Whether `viewer` may see the fighter's moves and combos: everyone sees player
    /// characters'; only the GM (and the controlling seat) sees NPCs'.
    pub fn sees_sheet(&self, viewer: Viewer, f: &Fighter) -> bool {
        f.side == PLAYERS
            || self.owns(viewer, f)
            || matches!(viewer, Viewer::Seat(s) if self.is_gm(s) || f.scouted_by.contains(&s))
    }

    /// The conflict as `viewer` sees it.
    pub fn view(&self, viewer: Viewer) -> ConflictView {
        let fighters = self
            .ids()
            .map(|id| {
                let f = self.fighter(id);
                let sees = self.sees_sheet(viewer, f);
                FighterView {
                    id,
                    name: f.name().to_owned(),
                    seat: self.seat_name(f.seat).to_owned(),
                    side: f.side,
                    energy: f.energy,
                    max_energy: f.character.energy,
                    status: f.status,
                    dead: f.dead,
                    zero_marks: f.zero_marks,
                    disadvantage: f.disadvantage.cards().to_vec(),
                    turns_taken: f.turns_taken,
                    moves: sees.then(|| f.character.moves.clone()),
                    combos: sees.then(|| f.character.combos.clone()),
                    available: sees.then(|| self.available_moves(id).iter().collect()),
                    specials: sees.then(|| f.character.specials.clone()),
                    specials_used: sees.then(|| f.specials_used.clone()),
                    samurai: f.samurai,
                    drunken: f.drunken,
                    sits_out_next: f.sits_out_next,
                }
            })
            .collect();
        let phase = match &self.phase {
            Phase::FirstTurn => PhaseView::FirstTurn,
            Phase::Turn(t) => {
                let pair = t.pair().unwrap_or([t.active; 2]);
                let own = |i: usize| self.owns(viewer, self.fighter(pair[i]));
                PhaseView::Turn {
                    active: t.active,
                    opponent: t.opponent,
                    step: t.step,
                    stances: [t.stances[0].face(own(0)), t.stances[1].face(own(1))],
                    plays: [t.plays[0].face(own(0)), t.plays[1].face(own(1))],
                    window: t.window.as_ref().map(|w| {
                        let mine = |i: usize| self.owns(viewer, self.fighter(w.participants[i]));
                        WindowView {
                            window: w.window,
                            participants: w.participants.clone(),
                            first: (0..w.participants.len()).map(|i| w.first[i].face(mine(i))).collect(),
                            count: w.count,
                            response: (0..w.participants.len())
                                .map(|i| w.response[i].face(mine(i)))
                                .collect(),
                        }
                    }),
                    forbidden: t.forbidden,
                }
            }
            Phase::Aftermath(a) => PhaseView::Aftermath(a.clone()),
            Phase::MinorOutcome => PhaseView::MinorOutcome,
            Phase::Over => PhaseView::Over,
        };
        ConflictView {
            viewer,
            stakes: self.stakes.clone(),
            seats: self.seats.iter().map(|(_, s)| SeatView { name: s.name.clone(), role: s.role }).collect(),
            fighters,
            combo: self.combo.clone(),
            phase,
            turn_number: self.turn_number,
            waiting_for: self.waiting_for(),
            ending: self.ending,
            edition: self.edition,
            bonds: self.bonds.clone(),
            turn_result: match &self.phase {
                Phase::Aftermath(a) => Some(turn_outcome(self, a)),
                _ => None,
            },
            who_won: who_won(self, viewer),
        }
    }

    /// How an event looks to `viewer`: a face-down commitment (stance, move, special or pass)
    /// of another seat's character is blanked — the viewer sees that it was made, not what.
    /// Never dropped, the same shape as No Dice's and Inciting Incident's redaction.
    pub fn redact(&self, event: &Event, viewer: Viewer) -> Event {
        let hidden = |fighter: FighterId| !self.owns(viewer, self.fighter(fighter));
        match *event {
            Event::StanceCommitted { fighter, .. } if hidden(fighter) => {
                Event::StanceCommitted { fighter, stance: None }
            }
            Event::MoveCommitted { fighter, .. } if hidden(fighter) => {
                Event::MoveCommitted { fighter, play: None }
            }
            Event::SpecialCommitted { fighter, .. } if hidden(fighter) => {
                Event::SpecialCommitted { fighter, card: None, hidden: true }
            }
            e => e,
        }
    }

    /// Whether the seat is one of the seats at the table.
    pub fn has_seat(&self, seat: SeatId) -> bool {
        self.seats.get(seat).is_ok()
    }
}
