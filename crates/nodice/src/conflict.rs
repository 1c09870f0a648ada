//! A Conflict's state (seed: Conflicts, Conflict Procedure): the Actors with their chip
//! stacks, the Stakes, the Hand under way, the pot and the Jackpot.

use std::sync::Arc;

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};
use table::{Draws, Role, Sealed, SeatId, Seats, SideId};
use thiserror::Error;

use crate::actor::{Kind, Statblock};
use crate::extension::{Ext, Extension, Extensions};
use crate::hand::{ActorId, MAX_ACTORS, Showdown, Targets};
use crate::stakes::{Stakes, StakesFormula};
use crate::trine::{Aspect, Attribute};

/// One Actor as it enters a Conflict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActorSheet {
    /// Its name, unique in the Conflict.
    pub name: String,
    /// PC, NPC or abstract.
    pub kind: Kind,
    /// Its built stat block.
    pub statblock: Statblock,
    /// The seat that plays it.
    pub seat: SeatId,
    /// Its side: Actors on one side never target each other.
    pub side: SideId,
    /// Wildcards it brings to this Conflict (§3.2: its Wildcard Rank for a PC, none for an
    /// NPC, unless the setup says otherwise).
    pub wildcards: u16,
}

impl ActorSheet {
    /// An Actor of `kind` with the default Wildcards: the Wildcard Rank for a PC (or the one
    /// its serial states), none for NPCs and abstract Actors.
    pub fn new(name: &str, kind: Kind, statblock: Statblock, seat: SeatId, side: SideId) -> Self {
        let wildcards = Self::wildcard_pool(kind, &statblock);
        ActorSheet { name: name.to_owned(), kind, statblock, seat, side, wildcards }
    }
}

impl ActorSheet {
    /// The Wildcards an Actor of `kind` brings to a Conflict by default (§3.2; Decision 11):
    /// a PC its Wildcard Rank (or the one its serial states), NPCs and abstract Actors none
    /// (a setup's `wildcards = N` overrides it: the Featured NPC's Extension).
    pub fn wildcard_pool(kind: Kind, statblock: &Statblock) -> u16 {
        match kind {
            Kind::Pc => statblock.stated_wildcards.unwrap_or_else(|| statblock.wildcard_rank()),
            Kind::Npc | Kind::Abstract => 0,
        }
    }
}

/// Ruleset options: each open question of the rules reference answered by one switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// Seed formula (default) or the old one (Open question 1).
    #[serde(default)]
    pub stakes_formula: StakesFormula,
    /// The Sweep bonus; `None` = the Stakes (Open question 2).
    #[serde(default)]
    pub sweep_bonus: Option<u16>,
    /// Stalemate (Decision 31): this many Hands in a row without damage or elimination end
    /// the Conflict ([`Ending::Stalemate`]); 0 = never. Default [`DEFAULT_STALEMATE_HANDS`].
    #[serde(default = "default_stalemate_hands")]
    pub stalemate_hands: u32,
}

/// The default of [`Options::stalemate_hands`].
pub const DEFAULT_STALEMATE_HANDS: u32 = 10;

fn default_stalemate_hands() -> u32 {
    DEFAULT_STALEMATE_HANDS
}

impl Default for Options {
    fn default() -> Self {
        Options {
            stakes_formula: StakesFormula::default(),
            sweep_bonus: None,
            stalemate_hands: DEFAULT_STALEMATE_HANDS,
        }
    }
}

/// Everything a Conflict starts from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// The seats.
    pub seats: Seats,
    /// The Actors, in table order.
    pub actors: Vec<ActorSheet>,
    /// The Actor who initiated the Action that triggered the Conflict: UTG of the first Hand.
    pub initiator: ActorId,
    /// Stakes the GM sets instead of the formula, if any.
    pub stakes: Option<Stakes>,
    /// Ruleset options.
    pub options: Options,
    /// Extensions in play.
    pub extensions: Vec<Ext>,
    /// Seed of the pot's random draws.
    pub seed: u64,
}

/// Why a Conflict cannot start.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SetupError {
    /// Fewer than two Actors.
    #[error("a Conflict needs at least two Actors")]
    TooFewActors,
    /// More Actors than the engine holds.
    #[error("a Conflict holds at most {MAX_ACTORS} Actors")]
    TooManyActors,
    /// Every Actor on one side.
    #[error("every Actor is on the same side; a Conflict needs opposition")]
    OneSide,
    /// Two Actors share a name.
    #[error("two Actors are named {0:?}")]
    DuplicateName(String),
    /// An Actor with an empty name.
    #[error("an Actor has an empty name")]
    EmptyName,
    /// An Actor at a seat that does not exist.
    #[error("Actor {0:?} sits at a seat that does not exist")]
    Seat(String),
    /// An Actor with no Aspect at all.
    #[error("Actor {0:?} has no Attribute at all")]
    NoAspect(String),
    /// An Attribute value outside 0–100 (§3.2).
    #[error("Actor {0:?} has {1} {2}; an Attribute value is 0–100")]
    Value(String, Attribute, u8),
    /// An Actor starting with an exhausted Aspect.
    #[error(
        "Actor {0:?} has every {1} Attribute at 0: it is eliminated before the Conflict starts (seed: Elimination Check)"
    )]
    Exhausted(String, Aspect),
    /// The initiator is not an Actor.
    #[error("the initiator {0} is not an Actor of this Conflict")]
    Initiator(ActorId),
    /// An extension for an Actor that is not there.
    #[error("an extension belongs to Actor {0}, who is not in this Conflict")]
    Extension(ActorId),
}

/// Whether an Actor is still in the Conflict, and if not, why (seed: Elimination).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "status", content = "aspect")]
pub enum Status {
    /// In the Conflict.
    In,
    /// Would not ante: withdrew (retreat, surrender…).
    Withdrew,
    /// Could not ante (no Attribute of any Aspect with the ante in chips).
    CouldNotAnte,
    /// Every Attribute of this Aspect at 0.
    Exhausted(Aspect),
    /// Removed by an extension's Elimination Check.
    Removed,
}

/// A Trine Aspect card and the ante on it (seed: Step 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AspectCard {
    /// The Aspect played.
    pub aspect: Aspect,
    /// The Attribute the ante comes from.
    pub ante: Attribute,
}

/// An Action card and the bid on it (seed: Step 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ActionCard {
    /// The Attribute.
    pub attribute: Attribute,
    /// Chips bid.
    pub bid: u16,
    /// A Wildcard played with it.
    pub wildcard: bool,
    /// The Aspect its damage hurts.
    pub damage_aspect: Aspect,
}

/// One Actor in the Conflict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actor {
    /// Its sheet (shared; never changes in a Conflict).
    pub sheet: Arc<ActorSheet>,
    /// Chips in each Attribute's stack (serial order), bids on the card excluded.
    pub stacks: [u16; 9],
    /// In or out.
    pub status: Status,
    /// Wildcards left this Conflict.
    pub wildcards: u16,
    /// This Hand's Aspect card.
    pub aspect: Sealed<AspectCard>,
    /// This Hand's stated intent (public table talk).
    pub intent: Option<String>,
    /// This Hand's target(s) (public).
    pub targets: Targets,
    /// This Hand's Action card.
    pub action: Sealed<ActionCard>,
    /// Whether its bid was played face up ("chip bully").
    pub open_bid: bool,
    /// Chips on its Action card (moved from the stack at the reveal).
    pub on_card: u16,
    /// Trine Dominance wins this Hand.
    pub trine_wins: u8,
    /// Attribute Dominance wins this Hand.
    pub attribute_wins: u8,
    /// Damage taken this Conflict (chips removed).
    pub damage_taken: u32,
    /// The Hand in which its Action card was last revealed (0: never).
    #[serde(default)]
    pub revealed_in: u32,
    /// The Hand it last added a justification line for (0: never).
    #[serde(default)]
    pub justified_in: u32,
}

impl Actor {
    fn new(sheet: ActorSheet) -> Actor {
        Actor {
            stacks: sheet.statblock.attributes.map(|v| u16::from(v.unwrap_or(0))),
            wildcards: sheet.wildcards,
            sheet: Arc::new(sheet),
            status: Status::In,
            aspect: Sealed::Empty,
            intent: None,
            targets: Targets::NONE,
            action: Sealed::Empty,
            open_bid: false,
            on_card: 0,
            trine_wins: 0,
            attribute_wins: 0,
            damage_taken: 0,
            revealed_in: 0,
            justified_in: 0,
        }
    }

    /// Whether it is still in the Conflict.
    pub fn is_in(&self) -> bool {
        self.status == Status::In
    }

    /// Current value of an Attribute (§3.2: chips in its stack plus those bid on the card),
    /// `None` when absent.
    pub fn value(&self, attribute: Attribute) -> Option<u16> {
        self.sheet.statblock.value(attribute)?;
        let on_card = match self.action.value() {
            Some(card) if card.attribute == attribute => self.on_card,
            _ => 0,
        };
        Some(self.stacks[attribute.index()] + on_card)
    }

    /// Current values of an Aspect's three Attributes.
    pub fn aspect_values(&self, aspect: Aspect) -> [Option<u16>; 3] {
        aspect.attributes().map(|a| self.value(a))
    }

    /// The first Aspect it possesses whose possessed Attributes are all at 0 (Decision:
    /// only possessed Aspects count), if any.
    pub fn exhausted_aspect(&self) -> Option<Aspect> {
        Aspect::ALL.into_iter().find(|&aspect| {
            let values = self.aspect_values(aspect);
            values.iter().any(Option::is_some) && values.iter().all(|v| v.is_none_or(|v| v == 0))
        })
    }

    /// Every chip it holds: stacks and card.
    pub fn chips(&self) -> u32 {
        self.stacks.iter().map(|&c| u32::from(c)).sum::<u32>() + u32::from(self.on_card)
    }
}

/// The step of the Hand (seed: Conflict Procedure).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "step")]
pub enum Phase {
    /// Step 1: the next Hand is about to start.
    Engagement,
    /// Step 2: Actors ante and play an Aspect card face down, in order from UTG.
    CommitAspect,
    /// Step 2: the pot is paid, token by token.
    PayPot,
    /// Step 3: Actors play an Action card and bid, in order from UTG.
    CommitAction,
    /// Step 4: Actions resolve in Action Priority order.
    Strikes,
    /// Step 4: the damaged Actor spreads `damage` over the struck Aspect.
    SpreadDamage {
        /// Damage to place (after the partial-Aspect reduction).
        damage: u16,
    },
    /// Step 4: Elimination Check, then the next Hand or the end.
    EliminationCheck,
    /// The Conflict is over.
    Over,
}

/// How a Conflict ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "ending", content = "side")]
pub enum Ending {
    /// Only one side (or none) remains able and willing to go on.
    OneSideLeft(Option<SideId>),
    /// The GM said the fiction resolved the objective.
    Fiction,
    /// An extension ended it at End Conflict / Next Hand.
    Extension,
    /// A stalemate (Decision 31): this many Hands in a row without damage or elimination.
    Stalemate(u32),
}

/// One interaction cluster of a brawl the GM split (seed: Step 1, Engagement; Decision 33):
/// it plays each Hand as a Hand of its own, with its own pot, Jackpot and UTG.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cluster {
    /// Its Actors.
    pub actors: Targets,
    /// Its UTG for its next Hand (while another cluster plays; the one playing uses
    /// [`Conflict::utg`]).
    pub utg: ActorId,
    /// Its Jackpot (while another cluster plays; the one playing uses [`Conflict::jackpot`]).
    pub jackpot: [u16; 9],
}

/// A Conflict in progress: the state of the No Dice ruleset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conflict {
    /// The seats (shared; they never change in a Conflict).
    pub seats: Arc<Seats>,
    /// The Actors, in table order.
    pub actors: Vec<Actor>,
    /// The Conflict's Stakes.
    pub stakes: Stakes,
    /// Stakes the GM set instead of the formula.
    pub set_stakes: Option<Stakes>,
    /// Options.
    pub options: Options,
    /// Extensions.
    pub extensions: Extensions,
    /// The Conflict's draw source (the pot's token draws), seeded with the setup's `seed`: the
    /// only randomness of the rules.
    pub draws: Draws,
    /// Who initiated the Conflict.
    pub initiator: ActorId,
    /// The Hand number, from 1 (0 before the first).
    pub hand: u32,
    /// Under the Gun this Hand.
    pub utg: ActorId,
    /// This Hand's acting order from UTG (Actors in the Conflict when it started, then those
    /// who committed an Aspect).
    pub order: ArrayVec<ActorId, MAX_ACTORS>,
    /// Whose turn in `order` it is to commit.
    pub turn: u8,
    /// The step.
    pub phase: Phase,
    /// The Ante Pot: tokens per Attribute.
    pub pot: [u16; 9],
    /// The Jackpot carried into the next Hand's pot.
    pub jackpot: [u16; 9],
    /// Pot tokens paid this Hand (the round-robin counter).
    pub paid: u16,
    /// This Hand's Showdown, once Actions are revealed.
    pub showdown: Showdown,
    /// The next Action to resolve in `showdown.strikes`.
    pub next_strike: u16,
    /// How it ended.
    pub ending: Option<Ending>,
    /// Hands in a row, before this one, without damage or elimination (Decision 31).
    #[serde(default)]
    pub quiet_hands: u32,
    /// Whether this Hand dealt damage or eliminated someone so far.
    #[serde(default)]
    pub progress: bool,
    /// The interaction clusters (Decision 33); empty: every Actor plays every Hand.
    #[serde(default)]
    pub clusters: Vec<Cluster>,
    /// The cluster playing now (an index in `clusters`).
    #[serde(default)]
    pub cluster: u8,
    /// Clusters that finished their part of this Hand.
    #[serde(default)]
    pub clusters_done: u8,
    /// Net chips the GM's adjustments added (negative: removed), outside chip conservation
    /// (Decision 35): chips in play + destroyed = built + adjusted.
    #[serde(default)]
    pub chips_adjusted: i64,
}

impl Conflict {
    /// Starts a Conflict: checks the Actors, computes the Stakes (seed formula from the
    /// highest Rank, or the GM's), gives each Actor its chips.
    pub fn new(setup: Setup) -> Result<Conflict, SetupError> {
        let n = setup.actors.len();
        if n < 2 {
            return Err(SetupError::TooFewActors);
        }
        if n > MAX_ACTORS {
            return Err(SetupError::TooManyActors);
        }
        for (i, a) in setup.actors.iter().enumerate() {
            if a.name.trim().is_empty() {
                return Err(SetupError::EmptyName);
            }
            // Names are found case-insensitively (`Conflict::find`): compare them that way.
            if setup.actors[..i].iter().any(|b| b.name.trim().eq_ignore_ascii_case(a.name.trim())) {
                return Err(SetupError::DuplicateName(a.name.clone()));
            }
            if setup.seats.get(a.seat).is_err() {
                return Err(SetupError::Seat(a.name.clone()));
            }
            if let Some((attribute, v)) = Attribute::ALL
                .into_iter()
                .find_map(|x| a.statblock.value(x).filter(|&v| v > crate::actor::MAX_AV).map(|v| (x, v)))
            {
                return Err(SetupError::Value(a.name.clone(), attribute, v));
            }
            if !Aspect::ALL.iter().any(|&x| a.statblock.has_aspect(x)) {
                return Err(SetupError::NoAspect(a.name.clone()));
            }
        }
        if setup.actors.iter().all(|a| a.side == setup.actors[0].side) {
            return Err(SetupError::OneSide);
        }
        if setup.initiator.index() >= n {
            return Err(SetupError::Initiator(setup.initiator));
        }
        if let Some(e) = setup.extensions.iter().find(|e| e.actor().index() >= n) {
            return Err(SetupError::Extension(e.actor()));
        }
        let actors: Vec<Actor> = setup.actors.into_iter().map(Actor::new).collect();
        if let Some((a, aspect)) = actors.iter().find_map(|a| a.exhausted_aspect().map(|x| (a, x))) {
            return Err(SetupError::Exhausted(a.sheet.name.clone(), aspect));
        }
        let highest = actors.iter().map(|a| a.sheet.statblock.rank()).max().unwrap_or(1);
        let extensions = Extensions::new(setup.extensions);
        let mut stakes = setup.stakes.unwrap_or(Stakes::from_rank(highest, setup.options.stakes_formula));
        extensions.engagement(&mut stakes);
        Ok(Conflict {
            seats: Arc::new(setup.seats),
            actors,
            stakes,
            set_stakes: setup.stakes,
            options: setup.options,
            extensions,
            draws: Draws::seeded(setup.seed),
            initiator: setup.initiator,
            hand: 0,
            utg: setup.initiator,
            order: ArrayVec::new(),
            turn: 0,
            phase: Phase::Engagement,
            pot: [0; 9],
            jackpot: [0; 9],
            paid: 0,
            showdown: Showdown::default(),
            next_strike: 0,
            ending: None,
            quiet_hands: 0,
            progress: false,
            clusters: Vec::new(),
            cluster: 0,
            clusters_done: 0,
            chips_adjusted: 0,
        })
    }

    /// The setup this Conflict started from (for checking saves).
    pub fn setup(&self) -> Setup {
        Setup {
            seats: (*self.seats).clone(),
            actors: self.actors.iter().map(|a| (*a.sheet).clone()).collect(),
            initiator: self.initiator,
            stakes: self.set_stakes,
            options: self.options,
            extensions: self.extensions.list().to_vec(),
            seed: self.draws.source().seeds().first().copied().unwrap_or_default(),
        }
    }

    /// The Actor with this id.
    pub fn actor(&self, id: ActorId) -> Option<&Actor> {
        self.actors.get(id.index())
    }

    /// The id of the Actor with this name (case-insensitive).
    pub fn find(&self, name: &str) -> Option<ActorId> {
        let name = name.trim();
        self.actors.iter().position(|a| a.sheet.name.eq_ignore_ascii_case(name)).map(|i| ActorId(i as u8))
    }

    /// The name of a seat.
    pub fn seat_name(&self, seat: SeatId) -> &str {
        self.seats.get(seat).map(|s| s.name.as_str()).unwrap_or("?")
    }

    /// Whether the seat is the GM's.
    pub fn is_gm(&self, seat: SeatId) -> bool {
        self.seats.get(seat).is_ok_and(|s| s.role == Role::Gm)
    }

    /// Chips anywhere (Decision 16, when chips move): stacks, bids, the pot and the Jackpot —
    /// every Jackpot: with interaction clusters (Decision 33) each cluster keeps its own, the
    /// live one for the cluster playing and a stored one for each other cluster, until the
    /// engagement dissolves or changes (even when the Conflict ends first).
    pub fn chips_in_play(&self) -> u32 {
        let stored = self.clusters.iter().flat_map(|c| &c.jackpot);
        self.actors.iter().map(Actor::chips).sum::<u32>()
            + self.pot.iter().chain(&self.jackpot).chain(stored).map(|&c| u32::from(c)).sum::<u32>()
    }

    /// Chips the Actors were built with.
    pub fn chips_built(&self) -> u32 {
        self.actors.iter().map(|a| u32::from(a.sheet.statblock.value_total())).sum()
    }

    /// Chips removed by damage so far.
    pub fn chips_destroyed(&self) -> u32 {
        self.actors.iter().map(|a| a.damage_taken).sum()
    }

    /// The sides that still have an Actor in the Conflict.
    pub fn sides_in(&self) -> ArrayVec<SideId, MAX_ACTORS> {
        let mut sides = ArrayVec::new();
        for a in self.actors.iter().filter(|a| a.is_in()) {
            if !sides.contains(&a.sheet.side) {
                sides.push(a.sheet.side);
            }
        }
        sides
    }

    /// The ante `actor` owes (seed: Step 2, the Stakes, after the Ante hook).
    pub fn ante_amount(&self, actor: ActorId) -> u16 {
        let mut amount = self.stakes.value();
        self.extensions.ante(actor, &mut amount);
        amount
    }

    /// The Bid cap of `actor` for `aspect` (seed: Step 3 Bid Cap: its Trine Score, after the
    /// Bid hook).
    pub fn bid_cap(&self, actor: ActorId, aspect: Aspect) -> u16 {
        let mut cap = self.actors[actor.index()].sheet.statblock.trine_score(aspect).unwrap_or(0);
        self.extensions.bid(actor, &mut cap);
        cap
    }

    /// The Sweep bonus (Open question 2: the Stakes unless the options say otherwise).
    pub fn sweep_bonus(&self) -> u16 {
        self.options.sweep_bonus.unwrap_or(self.stakes.value())
    }

    /// The Actor whose commitment the Hand waits for, in the commit steps.
    pub fn committing(&self) -> Option<ActorId> {
        match self.phase {
            Phase::CommitAspect | Phase::CommitAction => self.order.get(usize::from(self.turn)).copied(),
            _ => None,
        }
    }

    /// The Actor who must spread damage now.
    pub fn spreading(&self) -> Option<(ActorId, Aspect, u16)> {
        match self.phase {
            Phase::SpreadDamage { damage } => {
                self.showdown.strikes.get(usize::from(self.next_strike)).map(|s| (s.target, s.aspect, damage))
            }
            _ => None,
        }
    }

    /// Who the game waits for, in words.
    pub fn waiting_for(&self) -> String {
        let name = |id: ActorId| self.actors[id.index()].sheet.name.clone();
        match self.phase {
            Phase::CommitAspect => self
                .committing()
                .map(|a| format!("{} to ante and play an Aspect card", name(a)))
                .unwrap_or_default(),
            Phase::CommitAction => self
                .committing()
                .map(|a| format!("{} to play an Action card and bid", name(a)))
                .unwrap_or_default(),
            Phase::SpreadDamage { damage } => self
                .spreading()
                .map(|(a, aspect, _)| format!("{} to spread {damage} {aspect} damage", name(a)))
                .unwrap_or_default(),
            Phase::Over => "nobody: the Conflict is over".to_owned(),
            _ => "the rules".to_owned(),
        }
    }
}
