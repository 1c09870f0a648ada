//! A conflict's state (rules reference §5): who is in it, whose turn it is, which step of the
//! turn we are at, and the face-up chains.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use table::{Draws, Role, Sealed, Seat, SeatError, SeatId, Seats, SideId};
use thiserror::Error;

use crate::card::{Action, Move, MoveSet};
use crate::chain::{ComboChain, DisadvantageChain};
use crate::character::{Character, Kind, SheetError};
use crate::effects::Extra;
use crate::energy::{Energy, Stance};
use crate::special::{Edition, Special};
use crate::turn::Loss;
use crate::turn::{Play, TurnResult};
use crate::windows::{SpecialCard, WindowPlay};

/// The players' side.
pub const PLAYERS: SideId = SideId(0);
/// The GM's side (the non-player characters).
pub const GM: SideId = SideId(1);

/// The name of a side.
pub fn side_name(side: SideId) -> &'static str {
    if side == GM { "the GM's side" } else { "the players' side" }
}

/// A character's index in [`Conflict::fighters`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FighterId(pub u8);

/// The stakes of a conflict (§5.1 step 1).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stakes {
    /// What the players want.
    #[serde(default)]
    pub want: String,
    /// How they mean to get it.
    #[serde(default)]
    pub how: String,
    /// The consequences the GM sets.
    #[serde(default)]
    pub consequences: String,
    /// Intent to kill: characters out of energy die, and a winner may kill a surrendered
    /// opponent.
    #[serde(default)]
    pub lethal: bool,
    /// A minor conflict is a single turn (§5.7).
    #[serde(default)]
    pub minor: bool,
}

/// Whether a character is still in the conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Still in the conflict.
    In,
    /// Left by surrendering (§5.2).
    Surrendered,
    /// Out: zero energy in all three types (§5.3).
    Out,
}

/// One character taking part in the conflict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fighter {
    /// The sheet it entered with (maximum energy, moves, combos), shared between copies of
    /// the state.
    pub character: Arc<Character>,
    /// The seat controlling it.
    pub seat: SeatId,
    /// Its side.
    pub side: SideId,
    /// Current energy.
    pub energy: Energy,
    /// In, surrendered or out.
    pub status: Status,
    /// Died in this conflict (out in a lethal conflict, or killed after surrendering).
    pub dead: bool,
    /// Types that reached zero during this conflict, marked for level-up (§5.3, §10),
    /// indexed ○ ▨ ◆.
    pub zero_marks: [bool; 3],
    /// Its disadvantage chain (§5.4).
    pub disadvantage: DisadvantageChain,
    /// Turns taken as the active character; a combo streak counts once (§5.6).
    pub turns_taken: u32,
    /// Known moves (derived from the sheet).
    pub known: MoveSet,
    /// Learned follow-ups of each move (derived from the sheet), by [`Move::index`].
    pub follow_ups: [MoveSet; 13],
    /// Specials used since the last full rest: the sheet's, then those used here (§6).
    #[serde(default)]
    pub specials_used: Vec<Special>,
    /// How many times it played To Blave in this conflict (twice at most).
    #[serde(default)]
    pub blaves: u8,
    /// The turn number in which it last played a special (one a turn, Yojimbo aside).
    #[serde(default)]
    pub special_turn: u32,
    /// The Way of the Samurai is active: it stays in at zero energy and dies at the end.
    #[serde(default)]
    pub samurai: bool,
    /// Seats that scouted it (Scouter): they see its moves, combos and specials.
    #[serde(default)]
    pub scouted_by: Vec<SeatId>,
    /// Drunken Monkey is active: once a turn it may swap its revealed move for a random one.
    #[serde(default)]
    pub drunken: bool,
    /// It must sit out the next conflict (Drunken Monkey).
    #[serde(default)]
    pub sits_out_next: bool,
}

impl Fighter {
    /// The character's name.
    pub fn name(&self) -> &str {
        &self.character.name
    }

    /// Whether it is still in the conflict.
    pub fn is_in(&self) -> bool {
        self.status == Status::In
    }
}

/// The named timing windows of a turn, where specials are played (§6). Without specials
/// nobody can act in a window and the turn passes straight through it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Window {
    /// Before the active character chooses an opponent (the active character only).
    BeforeOpponent,
    /// Before stances (the pair).
    BeforeStance,
    /// Before moves (the pair).
    BeforeMove,
    /// Before resolving (the pair's allies).
    BeforeResolving,
}

impl Window {
    /// The window's name in words, e.g. "before stance".
    pub fn name(self) -> &'static str {
        match self {
            Window::BeforeOpponent => "before opponent",
            Window::BeforeStance => "before stance",
            Window::BeforeMove => "before move",
            Window::BeforeResolving => "before resolving",
        }
    }
}

/// The steps of one turn, in order (§5.2), with the timing windows between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "step", content = "window")]
pub enum Step {
    /// A timing window.
    Window(Window),
    /// Step 1: the active character chooses an opponent.
    Opponent,
    /// Step 2: both choose a stance in secret, then reveal.
    Stance,
    /// Step 3: both choose a move in secret, then reveal.
    Move,
    /// After the reveal, a character under Drunken Monkey may swap its move for a random one
    /// (§6); skipped when nobody may.
    Swap,
    /// Steps 4–5: the rules find the winner.
    Resolve,
}

impl Step {
    /// This step, or the first step after it that is not a timing window or the swap (the
    /// steps only specials open).
    pub fn past_windows(self) -> Step {
        let mut step = self;
        while let Step::Window(_) | Step::Swap = step {
            step = step.next();
        }
        step
    }

    /// The step after this one.
    pub fn next(self) -> Step {
        match self {
            Step::Window(Window::BeforeOpponent) => Step::Opponent,
            Step::Opponent => Step::Window(Window::BeforeStance),
            Step::Window(Window::BeforeStance) => Step::Stance,
            Step::Stance => Step::Window(Window::BeforeMove),
            Step::Window(Window::BeforeMove) => Step::Move,
            Step::Move => Step::Swap,
            Step::Swap => Step::Window(Window::BeforeResolving),
            Step::Window(Window::BeforeResolving) | Step::Resolve => Step::Resolve,
        }
    }
}

/// A turn in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// The active character.
    pub active: FighterId,
    /// Its opponent, once chosen.
    pub opponent: Option<FighterId>,
    /// Where the turn is.
    pub step: Step,
    /// The pair's stances: index 0 the active character, 1 the opponent.
    pub stances: [Sealed<Stance>; 2],
    /// The pair's moves, likewise.
    pub plays: [Sealed<Play>; 2],
    /// On a consecutive turn given only to continue a combo (§5.6), the combo's opponent,
    /// whom the active character must face.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub must_face: Option<FighterId>,
    /// The timing window in progress, when the step is an open window (§6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Box<WindowPlay>>,
    /// An action each of the pair may not play this turn (I Already Know).
    #[serde(default)]
    pub forbidden: [Option<Action>; 2],
    /// Whether each of the pair has decided on its Drunken Monkey swap this turn.
    #[serde(default)]
    pub swap_decided: [bool; 2],
}

impl Turn {
    /// The pair, once the opponent is chosen.
    pub fn pair(&self) -> Option<[FighterId; 2]> {
        self.opponent.map(|o| [self.active, o])
    }

    /// The position of `f` in the pair.
    pub fn position(&self, f: FighterId) -> Option<usize> {
        if f == self.active {
            Some(0)
        } else if Some(f) == self.opponent {
            Some(1)
        } else {
            None
        }
    }
}

/// A surrendered character whose fate the winner decides in a lethal conflict (§5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mercy {
    /// The turn's winner, who decides.
    pub winner: FighterId,
    /// The character who surrendered.
    pub surrendered: FighterId,
}

/// After a turn is resolved: losses to take, a surrendered life to decide, the next turn to
/// give.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Aftermath {
    /// The pair, active character first.
    pub pair: [FighterId; 2],
    /// The revealed stances.
    pub stances: [Stance; 2],
    /// The revealed moves.
    pub plays: [Play; 2],
    /// The result.
    pub result: TurnResult,
    /// Whether each of the pair has taken its loss.
    pub loss_taken: [bool; 2],
    /// A pending decision about a surrendered character's life.
    pub mercy: Option<Mercy>,
    /// The pair's losses after specials (the result's, without any).
    #[serde(default)]
    pub losses: [Loss; 2],
    /// Who spreads each of the pair's losses when not its own controller (Pressure Point).
    #[serde(default)]
    pub spreaders: [Option<FighterId>; 2],
}

impl Aftermath {
    /// The turn's winner (a lone surrender counts).
    pub fn winner(&self) -> Option<FighterId> {
        self.result.outcome.winner().map(|w| self.pair[w])
    }
}

/// Where the conflict is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "phase")]
pub enum Phase {
    /// The players choose which player character takes the first turn (§5.1 step 4).
    FirstTurn,
    /// A turn is being played.
    Turn(Turn),
    /// A turn was resolved and its consequences are being taken.
    Aftermath(Aftermath),
    /// A minor conflict's single turn was a tie: the GM records the outcome (§5.7).
    MinorOutcome,
    /// The conflict is over.
    Over,
}

/// How the conflict ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ending {
    /// The winning side; `None` when the GM recorded a drawn minor conflict.
    pub winner: Option<SideId>,
}

/// One seat of a conflict setup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatSpec {
    /// The seat's name.
    pub name: String,
    /// Player or GM: players control player characters, the GM the NPCs.
    #[serde(default)]
    pub role: Role,
}

/// A character entering the conflict and the seat controlling it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entrant {
    /// The seat's name.
    pub seat: String,
    /// The character sheet.
    pub character: Character,
}

/// Everything needed to start a conflict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// The stakes.
    #[serde(default)]
    pub stakes: Stakes,
    /// The seats.
    pub seats: Vec<SeatSpec>,
    /// The characters.
    pub characters: Vec<Entrant>,
    /// The edition of the rules (§11); the current one when not given.
    #[serde(default)]
    pub edition: Edition,
    /// The seed of the conflict's randomness (Drunken Monkey's draws).
    #[serde(default)]
    pub seed: u64,
}

impl Setup {
    /// A one-on-one conflict: a player seat "player" with `pc` against the GM's seat "gm" with
    /// `npc`, no stakes, the current edition. The usual start for simulations and examples.
    pub fn one_on_one(pc: Character, npc: Character) -> Setup {
        Setup {
            stakes: Stakes::default(),
            seats: vec![
                SeatSpec { name: "player".into(), role: Role::Player },
                SeatSpec { name: "gm".into(), role: Role::Gm },
            ],
            characters: vec![
                Entrant { seat: "player".into(), character: pc },
                Entrant { seat: "gm".into(), character: npc },
            ],
            edition: Edition::Current,
            seed: 0,
        }
    }
}

/// Why a conflict cannot start.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SetupError {
    /// A seat problem.
    #[error(transparent)]
    Seat(#[from] SeatError),
    /// A sheet broke a rule.
    #[error(transparent)]
    Sheet(#[from] SheetError),
    /// No GM seat.
    #[error("a conflict needs a seat with role \"gm\" to control the NPCs")]
    NoGm,
    /// A side has nobody.
    #[error("{} has no characters: a conflict needs at least one on each side", side_name(*.0))]
    EmptySide(SideId),
    /// Two characters share a name.
    #[error("two characters are named {0:?}; names must be unique in a conflict")]
    DuplicateCharacter(String),
    /// Zero total energy.
    #[error("{0} has zero total energy and cannot enter a conflict")]
    NoEnergy(String),
    /// Sits out this conflict.
    #[error("{0} is marked to sit out the next conflict and cannot enter")]
    SitsOut(String),
    /// Dead characters cannot enter.
    #[error("{0} is dead")]
    Dead(String),
    /// Too many characters.
    #[error("a conflict holds at most 255 characters")]
    TooMany,
}

/// The whole state of a conflict, hidden commitments included.
///
/// `Clone` is written out so that [`Clone::clone_from`] reuses the buffers of the state it
/// overwrites: simulations restart a table from the same initial state many times.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conflict {
    /// The stakes.
    pub stakes: Stakes,
    /// The seats at the table (fixed for the conflict, shared between copies of the state).
    pub seats: Arc<Seats>,
    /// Every character in the conflict, in or out.
    pub fighters: Vec<Fighter>,
    /// Where the conflict is.
    pub phase: Phase,
    /// The live combo chain, if any (at most one side can hold one at a time).
    pub combo: Option<ComboChain>,
    /// How many turns have begun.
    pub turn_number: u32,
    /// The previous turn's active character.
    pub last_active: Option<FighterId>,
    /// How many consecutive turns `last_active` has taken (§5.6: at most 3 winning ones).
    pub streak: u8,
    /// How it ended.
    pub ending: Option<Ending>,
    /// The edition of the rules in force.
    #[serde(default)]
    pub edition: Edition,
    /// Pairs bound by There Can Be Only One: each faces only the other until one is out.
    #[serde(default)]
    pub bonds: Vec<[FighterId; 2]>,
    /// Every special revealed in this conflict and who played it.
    #[serde(default)]
    pub specials_played: Vec<(FighterId, Special)>,
    /// Seats that played Scouter before this turn's opponent was chosen: they learn the
    /// opponent's sheet once it is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending_scouts: Vec<SeatId>,
    /// Whether anyone in the conflict knows a special (fixed at the start): when nobody does,
    /// turns pass their timing windows without looking.
    #[serde(default)]
    pub specials_known: bool,
    /// The conflict's draw source (Drunken Monkey's swaps), seeded with the setup's `seed`:
    /// the only randomness of the rules. Every draw's result and new position are in its
    /// event, so replays are exact.
    pub draws: Draws,
    /// This turn's specials played before the move that stay face down until the moves are
    /// revealed, and whether an identical card of the other of the pair cancels each. (Kept
    /// here rather than in the turn so that the turn stays small: it is copied at every step.)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turn_delayed: Vec<(FighterId, SpecialCard, bool)>,
    /// This turn's revealed specials acting on its losses, in the order revealed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turn_effects: Vec<(FighterId, SpecialCard)>,
    /// The aftermath's losses taken over (Yojimbo) and gains (Santa Carla, Vampire).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extras: Vec<Extra>,
}

impl Clone for Conflict {
    fn clone(&self) -> Self {
        Conflict {
            stakes: self.stakes.clone(),
            seats: Arc::clone(&self.seats),
            fighters: self.fighters.clone(),
            phase: self.phase.clone(),
            combo: self.combo.clone(),
            turn_number: self.turn_number,
            last_active: self.last_active,
            streak: self.streak,
            ending: self.ending,
            edition: self.edition,
            bonds: self.bonds.clone(),
            specials_played: self.specials_played.clone(),
            pending_scouts: self.pending_scouts.clone(),
            specials_known: self.specials_known,
            draws: self.draws.clone(),
            turn_delayed: self.turn_delayed.clone(),
            turn_effects: self.turn_effects.clone(),
            extras: self.extras.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        // Destructured without `..`, so that a new field cannot be forgotten here.
        let Conflict {
            stakes,
            seats,
            fighters,
            phase,
            combo,
            turn_number,
            last_active,
            streak,
            ending,
            edition,
            bonds,
            specials_played,
            pending_scouts,
            specials_known,
            draws,
            turn_delayed,
            turn_effects,
            extras,
        } = self;
        stakes.clone_from(&source.stakes);
        if !Arc::ptr_eq(seats, &source.seats) {
            *seats = Arc::clone(&source.seats);
        }
        fighters.clone_from(&source.fighters);
        phase.clone_from(&source.phase);
        combo.clone_from(&source.combo);
        *turn_number = source.turn_number;
        *last_active = source.last_active;
        *streak = source.streak;
        *ending = source.ending;
        *edition = source.edition;
        bonds.clone_from(&source.bonds);
        specials_played.clone_from(&source.specials_played);
        pending_scouts.clone_from(&source.pending_scouts);
        *specials_known = source.specials_known;
        draws.clone_from(&source.draws);
        turn_delayed.clone_from(&source.turn_delayed);
        turn_effects.clone_from(&source.turn_effects);
        extras.clone_from(&source.extras);
    }
}

impl Conflict {
    /// Starts a conflict: checks seats, sheets and the entry rules of §5.1.
    pub fn new(setup: Setup) -> Result<Conflict, SetupError> {
        let seats = Seats::new(
            setup
                .seats
                .iter()
                .map(|s| Seat {
                    name: s.name.clone(),
                    side: if s.role == Role::Gm { GM } else { PLAYERS },
                    role: s.role,
                })
                .collect(),
        )?;
        if !seats.iter().any(|(_, s)| s.role == Role::Gm) {
            return Err(SetupError::NoGm);
        }
        if setup.characters.len() > 255 {
            return Err(SetupError::TooMany);
        }
        let mut fighters = Vec::with_capacity(setup.characters.len());
        for (i, e) in setup.characters.into_iter().enumerate() {
            let seat_id = seats.find(&e.seat)?;
            let seat = seats.get(seat_id)?;
            let c = e.character;
            c.validate_in(if seat.role == Role::Gm { Kind::Npc } else { Kind::Pc }, setup.edition)?;
            if fighters.iter().take(i).any(|f: &Fighter| f.name().eq_ignore_ascii_case(&c.name)) {
                return Err(SetupError::DuplicateCharacter(c.name));
            }
            if c.dead {
                return Err(SetupError::Dead(c.name));
            }
            if c.sits_out_next_conflict {
                return Err(SetupError::SitsOut(c.name));
            }
            if c.current_energy().total() == 0 {
                return Err(SetupError::NoEnergy(c.name));
            }
            fighters.push(Fighter {
                seat: seat_id,
                side: seat.side,
                energy: c.current_energy(),
                status: Status::In,
                dead: false,
                zero_marks: [false; 3],
                disadvantage: DisadvantageChain::default(),
                turns_taken: 0,
                known: c.known(),
                follow_ups: c.follow_ups(),
                specials_used: c.specials_used.clone(),
                blaves: 0,
                special_turn: 0,
                samurai: false,
                scouted_by: Vec::new(),
                drunken: false,
                sits_out_next: false,
                character: Arc::new(c),
            });
        }
        for side in [PLAYERS, GM] {
            if !fighters.iter().any(|f| f.side == side) {
                return Err(SetupError::EmptySide(side));
            }
        }
        let specials_known = fighters.iter().any(|f| !f.character.specials.is_empty());
        Ok(Conflict {
            stakes: setup.stakes,
            seats: Arc::new(seats),
            fighters,
            phase: Phase::FirstTurn,
            combo: None,
            turn_number: 0,
            last_active: None,
            streak: 0,
            ending: None,
            edition: setup.edition,
            bonds: Vec::new(),
            specials_played: Vec::new(),
            pending_scouts: Vec::new(),
            specials_known,
            draws: Draws::seeded(setup.seed),
            turn_delayed: Vec::new(),
            turn_effects: Vec::new(),
            extras: Vec::new(),
        })
    }

    /// The setup this conflict was started from (as far as its fighters' sheets tell): a
    /// conflict that has not begun equals `Conflict::new(c.setup())`.
    pub fn setup(&self) -> Setup {
        Setup {
            stakes: self.stakes.clone(),
            seats: self.seats.iter().map(|(_, s)| SeatSpec { name: s.name.clone(), role: s.role }).collect(),
            characters: self
                .fighters
                .iter()
                .map(|f| Entrant {
                    seat: self.seat_name(f.seat).to_owned(),
                    character: Character::clone(&f.character),
                })
                .collect(),
            edition: self.edition,
            seed: self.draws.source().seeds().first().copied().unwrap_or_default(),
        }
    }

    /// The fighter with this id.
    pub fn fighter(&self, id: FighterId) -> &Fighter {
        &self.fighters[usize::from(id.0)]
    }

    pub(crate) fn fighter_mut(&mut self, id: FighterId) -> &mut Fighter {
        &mut self.fighters[usize::from(id.0)]
    }

    /// Every fighter with its id.
    pub fn ids(&self) -> impl Iterator<Item = FighterId> + '_ {
        (0..self.fighters.len()).map(|i| FighterId(i as u8))
    }

    /// Finds a fighter by name (case-insensitive).
    pub fn find(&self, name: &str) -> Option<FighterId> {
        self.ids().find(|&id| self.fighter(id).name().eq_ignore_ascii_case(name.trim()))
    }

    /// The characters of `side` still in the conflict.
    pub fn in_side(&self, side: SideId) -> impl Iterator<Item = FighterId> + '_ {
        self.ids().filter(move |&id| {
            let f = self.fighter(id);
            f.side == side && f.is_in()
        })
    }

    /// The moves `f` may play now (§5.2 step 3): known moves minus those face up in its own
    /// disadvantage chain and in the combo chain it played into.
    pub fn available_moves(&self, id: FighterId) -> MoveSet {
        let f = self.fighter(id);
        let mut out = f.known.without(f.disadvantage.set());
        if let Some(c) = &self.combo {
            out = out.without(c.played_by(id));
        }
        out
    }

    /// The combo bonus `card` would earn `id` against `opponent` (§5.5).
    pub fn combo_bonus(&self, id: FighterId, opponent: FighterId, card: Move) -> u8 {
        let f = self.fighter(id);
        self.combo
            .as_ref()
            .map_or(0, |c| c.bonus_for(f.side, opponent, f.follow_ups[c.newest().index()], card))
    }

    /// Whether the GM role belongs to `seat`.
    pub fn is_gm(&self, seat: SeatId) -> bool {
        self.seats.get(seat).is_ok_and(|s| s.role == Role::Gm)
    }

    /// The first GM seat (who decides where the rules say "the GM decides").
    pub fn gm_seat(&self) -> SeatId {
        self.seats.iter().find(|(_, s)| s.role == Role::Gm).map_or(SeatId(0), |(id, _)| id)
    }

    /// A seat's name.
    pub fn seat_name(&self, seat: SeatId) -> &str {
        self.seats.get(seat).map_or("?", |s| s.name.as_str())
    }
}
