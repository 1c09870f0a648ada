//! Commands, events and the rules that connect them (rules reference §5–§10).
//!
//! `decide` checks a command and names the events it causes (resolving an action on a
//! scratch copy of the scene, so dice, Crisis Triggers and wounds follow each other in
//! order); `apply` changes the state for one event; `automatic` takes the steps the rules
//! take by themselves (round starts, the reveal, skipping characters who cannot act, the end).

use serde::{Deserialize, Serialize};
use table::{Sealed, SeatId};
use thiserror::Error;

use crate::actions::illegal;
use crate::attack;
use crate::character::DefenceKind;
use crate::dice::{self, Roll, ability_pool};
use crate::map::{RegionEffect, RegionId};
use crate::resolve::Emit;
use crate::scene::{Outcome, Pending, Phase, Scene, Status};

/// A Move's Regions, in order (at most 8), stored inline so actions stay `Copy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(try_from = "Vec<RegionId>", into = "Vec<RegionId>")]
pub struct Path {
    len: u8,
    regions: [RegionId; 8],
}

impl Path {
    /// The Regions.
    pub fn regions(&self) -> &[RegionId] {
        &self.regions[..usize::from(self.len)]
    }

    /// A path through these Regions (`None` for more than 8).
    pub fn new(regions: &[RegionId]) -> Option<Path> {
        if regions.len() > 8 {
            return None;
        }
        let mut p = Path { len: regions.len() as u8, regions: [0; 8] };
        p.regions[..regions.len()].copy_from_slice(regions);
        Some(p)
    }

    /// The last Region.
    pub fn last(&self) -> Option<RegionId> {
        self.regions().last().copied()
    }
}

impl TryFrom<Vec<RegionId>> for Path {
    type Error = String;
    fn try_from(v: Vec<RegionId>) -> Result<Self, String> {
        Path::new(&v).ok_or_else(|| "a move crosses at most 8 Regions".to_owned())
    }
}

impl From<Path> for Vec<RegionId> {
    fn from(p: Path) -> Self {
        p.regions().to_vec()
    }
}

/// Whom an attack is aimed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// A character (by number).
    Character(u8),
    /// A minion group, as one block (§7.4).
    Minions(u8),
}

/// The one action a character declares each round (§5 step 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Do nothing this round (no Crisis; Decision: a character may hold).
    Hold,
    /// Move through up to three adjacent, unblocked Regions (§5.2).
    Move {
        /// The Regions entered, in order.
        path: Path,
    },
    /// A Regular Attack: move the Flow of Battle (§7.1).
    Regular {
        /// The Talent used; `None` for an automatic success without a Talent.
        #[serde(default)]
        talent: Option<u8>,
        /// The enemy aimed at (its Duel's Flow moves).
        target: Target,
        /// Make a Talent Roll (true) or take the automatic success (false).
        #[serde(default)]
        roll: bool,
        /// The GM's pick of defence, when not the Talent's usual one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        defence: Option<DefenceKind>,
    },
    /// A Decisive Attack: turn the Flow into wounds (§7.2).
    Decisive {
        /// The Talent used.
        talent: u8,
        /// The enemy aimed at.
        target: Target,
        /// The GM's pick of defence, when not the Talent's usual one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        defence: Option<DefenceKind>,
    },
    /// An Advanced Action one of the Talent's Skills allows (§5, §11).
    Advanced {
        /// The Talent.
        talent: u8,
        /// Which of its Advanced Actions.
        action: u8,
        /// The character it is used on (healing).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<u8>,
    },
}

/// A short note in words, stored inline (at most 64 bytes of UTF-8) so that commands stay
/// `Copy`: the reason of a GM adjustment.
pub type Note = arrayvec::ArrayString<64>;

/// The largest Flow of Battle, Crisis or Strikes a GM adjustment may set (Decision 30).
pub const MAX_ADJUSTED: u32 = 1_000_000;

/// What a GM adjustment sets (Decision 30): a correction of a count, not a move of the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Adjustment {
    /// A character's hits (§9): from 0 to Max Hits − 1 for a character still fighting, up
    /// to Max Hits for an Incapacitated one. Its status does not change.
    Hits {
        /// The character.
        character: u8,
        /// Its hits afterwards.
        hits: u8,
    },
    /// A Duel's Flow of Battle (§6), in the positive side's frame: at most
    /// [`MAX_ADJUSTED`] either way.
    Flow {
        /// The Duel.
        duel: u16,
        /// The Flow afterwards.
        flow: i32,
    },
    /// The Crisis pool (§8), at most [`MAX_ADJUSTED`]. No Crisis Trigger fires by it: a
    /// threshold the adjusted pool has passed fires when Crisis is next added.
    Crisis {
        /// The pool afterwards.
        crisis: u32,
    },
    /// A side's Strikes in a non-violent conflict (§10), at most [`MAX_ADJUSTED`]; a side
    /// set to 0 has lost, as the rules say.
    Strikes {
        /// The side (0 or 1).
        side: u8,
        /// Its Strikes afterwards.
        strikes: u32,
    },
}

/// What a seat asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Command {
    /// Declare a character's action for the round, face down (§5 step 5).
    Declare {
        /// The character.
        character: u8,
        /// Its action.
        action: Action,
    },
    /// Resolve a character's declared action now: its side chooses the order (§5 step 6).
    Act {
        /// The character.
        character: u8,
    },
    /// An Incapacitated character rolls to keep fighting, or declines (§9).
    KeepFighting {
        /// The character.
        character: u8,
        /// Roll (true) or decline (false).
        roll: bool,
    },
    /// An Advanced Action a Skill allows outside round order, resolved at once during the
    /// resolution (at most one per character per round, §5 step 7).
    OutOfOrder {
        /// The character.
        character: u8,
        /// The Advanced Action (`Action::Advanced` of an out-of-order Advanced Action).
        action: Action,
    },
    /// The extra action a Crisis Trigger gave a character, resolved at once (§8).
    ExtraAction {
        /// The character.
        character: u8,
        /// Its action.
        action: Action,
    },
    /// The GM ends the scene at once: the fiction resolves it, or the GM calls it (§5 step 9:
    /// the end is a narrative decision). Only a GM seat may give it, at any moment; it is a
    /// ruling, not a move of the game, so bots never give it ([`Command::is_gm_ruling`]).
    EndScene {
        /// The side that wins (0 or 1), if any.
        #[serde(default)]
        winner: Option<u8>,
    },
    /// The GM spends Rising Tension to give a side more Strikes, making the sides unequal
    /// (§10; open question 14): `per_strike` Rising Tension per Strike. Only a GM seat, only in
    /// a non-violent conflict, at any moment until the end; a ruling, so bots never give it.
    SpendTension {
        /// The side that gets the Strikes.
        side: u8,
        /// How many Strikes.
        strikes: u32,
    },
    /// The GM holds a Rest Scene after the scene is over (§9): every living character who is
    /// wounded or Incapacitated rolls the higher of Fortitude and Perseverance against 20 with
    /// `options.ability_dice` d6 of difficulty, and [`crate::wounds::Wounds`] says what the
    /// roll does (a hit removed; for the unrevived Incapacitated, recovery or a Death Hit).
    /// With `full_day`, a whole day's rest: every hit of a conscious character is removed
    /// without a roll; an Incapacitated one makes its daily roll instead. Only a GM seat may
    /// give it, and only once the scene is over (Decision: Rest Scenes come between scenes).
    RestScene {
        /// A whole day of rest rather than a short Rest Scene.
        #[serde(default)]
        full_day: bool,
    },
    /// The GM corrects a count — a character's hits, a Duel's Flow, the Crisis pool or a
    /// side's Strikes — at any moment, with a reason logged for everyone (Decision 30). Only a
    /// GM seat may give it; a ruling, so bots never give it and it is never in a legal list.
    Adjust {
        /// What is set, to what.
        #[serde(flatten)]
        adjustment: Adjustment,
        /// Why, in words (at most 64 bytes; not empty).
        reason: Note,
    },
}

impl Command {
    /// Whether this is a GM's ruling outside the choices of play ([`Command::EndScene`]). The
    /// GM seat's legal list holds these at every moment; bots and random players skip them,
    /// and the engine never waits for them.
    pub fn is_gm_ruling(&self) -> bool {
        matches!(
            self,
            Command::EndScene { .. }
                | Command::RestScene { .. }
                | Command::SpendTension { .. }
                | Command::Adjust { .. }
        )
    }
}

/// Where a new Duel's Flow came from (§6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowSource {
    /// A new Duel: Flow 0.
    New,
    /// The same opponents re-engaged: the saved Duel is fought again with its Flow.
    Restored,
    /// Part of a Duel re-engaged elsewhere: a copy of its Flow.
    Copied(u16),
}

/// Who rolled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Who {
    /// A character.
    Character(u8),
    /// A minion group.
    Minions(u8),
}

/// What a roll was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Purpose {
    /// A Regular Attack's Talent Roll.
    Regular,
    /// A Decisive Attack's attack roll.
    Decisive,
    /// A defence roll against a Decisive Attack.
    Defence,
    /// The roll to keep fighting (§9).
    KeepFighting,
    /// A Simple Obstacle on entering a Region.
    Obstacle,
    /// A Rest Scene roll, or the daily roll of the unrevived Incapacitated (§9).
    Rest,
}

/// Why a side has the initiative (§5 steps 2–4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InitiativeWhy {
    /// It surprised the other side: it plays this round alone.
    Surprise,
    /// Highest Nimbleness (ties broken by the next highest).
    Nimbleness,
    /// Tied on Nimbleness and the other side ran out of characters: more characters.
    Headcount,
    /// Tied on everything else: the highest Nimbleness-based Talent.
    Talent,
    /// Tied on everything: a seeded coin (Decision).
    Coin,
    /// It generated the least Crisis last round.
    LeastCrisis,
    /// Both sides generated the same Crisis: the initiative stays (Decision).
    Kept,
}

/// Everything that can happen in a scene. Applying the log rebuilds the state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "event")]
pub enum Event {
    /// A round starts.
    RoundStarted {
        /// Its number, from 1.
        round: u32,
        /// The side with the initiative.
        initiative: u8,
        /// Whether only that side plays (a surprise round).
        surprise: bool,
        /// Why it has the initiative.
        why: InitiativeWhy,
        /// Where the scene's dice stand after a seeded lot drew from them (Decision 8), so no
        /// die reuses the lot's draw; absent when no lot was drawn (and in older saves).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rng_pos: Option<u64>,
    },
    /// A character declared its action (hidden from other seats until the reveal).
    Declared {
        /// The character.
        character: u8,
        /// The action (`None` in another seat's view).
        action: Option<Action>,
    },
    /// Everyone has declared: all actions face up.
    Revealed {
        /// The declarations.
        actions: Vec<(u8, Action)>,
    },
    /// The initiative side is done; the other side resolves.
    SideDone {
        /// The side that resolves next.
        next: u8,
    },
    /// An action is resolved (possibly switched to the closest alternative, §5 step 6).
    Started {
        /// The character.
        character: u8,
        /// The action as resolved.
        action: Action,
        /// Whether it replaced the declared one.
        substituted: bool,
    },
    /// An action became impossible and is wasted: no Crisis (§5 step 6).
    Wasted {
        /// The character.
        character: u8,
        /// Why.
        why: String,
    },
    /// A character's action for the round is done.
    Acted {
        /// The character.
        character: u8,
    },
    /// A character who cannot act any more is skipped for the round.
    Skipped {
        /// The character.
        character: u8,
    },
    /// Dice rolled.
    Rolled {
        /// Who rolled.
        who: Who,
        /// What for.
        purpose: Purpose,
        /// Every die.
        roll: Roll,
        /// Where the scene's dice stand afterwards ([`table::Draws::position`]).
        rng_pos: u64,
    },
    /// A character moved.
    Moved {
        /// The character.
        character: u8,
        /// The Regions entered.
        path: Path,
    },
    /// Crisis was generated (§8).
    CrisisAdded {
        /// How much.
        amount: u32,
        /// The side that generated it (`None` for effects).
        side: Option<u8>,
        /// The pool afterwards.
        total: u32,
    },
    /// A Duel's Flow of Battle moved (in the positive side's frame).
    FlowMoved {
        /// The Duel.
        duel: u16,
        /// By how much.
        by: i32,
        /// The Flow afterwards.
        flow: i32,
    },
    /// A Duel starts (or a saved one is fought again).
    DuelFormed {
        /// Its number.
        duel: u16,
        /// Its Region.
        region: RegionId,
        /// Its Flow.
        flow: i32,
        /// Where the Flow came from.
        from: FlowSource,
        /// Who is in it.
        members: u64,
    },
    /// Someone joins an active Duel.
    DuelJoined {
        /// The Duel.
        duel: u16,
        /// The combatant (fighter number, or fighters + minion group number).
        combatant: u8,
    },
    /// A Duel is no longer fought; its Flow is saved.
    DuelEnded {
        /// The Duel.
        duel: u16,
    },
    /// Two Duels' Flows are combined (§6).
    DuelsCombined {
        /// The Duel fought on.
        into: u16,
        /// The Duel added in.
        from: u16,
        /// The Flow afterwards.
        flow: i32,
    },
    /// A character took hits.
    Wounded {
        /// The character.
        character: u8,
        /// Hits taken.
        hits: u8,
        /// Its hits afterwards.
        total: u8,
    },
    /// A side lost Strikes (non-violent conflict, §10).
    StrikesLost {
        /// The side.
        side: u8,
        /// How many it lost: never more than it had.
        strikes: u32,
        /// Left.
        left: u32,
        /// The hits dealt, when more than the Strikes the side had left (they are clamped).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hits: Option<u32>,
    },
    /// A character reached Max Hits (§9).
    Incapacitated {
        /// The character.
        character: u8,
    },
    /// An Incapacitated character rolled to keep fighting: one hit removed; on a failure it
    /// must die before the next Action or Conflict scene.
    KeptFighting {
        /// The character.
        character: u8,
        /// Whether the roll succeeded.
        success: bool,
    },
    /// An Incapacitated character declined the roll: it survives but cannot act.
    Declined {
        /// The character.
        character: u8,
    },
    /// Hits healed; an Incapacitated character is revived and its Death Hits cleared.
    Healed {
        /// The character.
        character: u8,
        /// Hits removed.
        hits: u8,
        /// Whether it was revived.
        revived: bool,
    },
    /// Minions died.
    MinionsKilled {
        /// The group.
        group: u8,
        /// How many died.
        killed: u32,
        /// How many are left.
        left: u32,
    },
    /// Reinforcements joined a minion group.
    MinionsArrived {
        /// The group.
        group: u8,
        /// How many arrived.
        count: u32,
    },
    /// A minion group could not act.
    MinionsIdle {
        /// The group.
        group: u8,
    },
    /// A Region's effect changed.
    RegionChanged {
        /// The Region.
        region: RegionId,
        /// The new effect.
        effect: RegionEffect,
    },
    /// A character's Skill added its own Crisis Trigger (§8), with its threshold from now on.
    TriggerAdded {
        /// The character.
        character: u8,
        /// The trigger (its `at` absolute), number `setup.triggers.len()` + those added before.
        trigger: crate::scene::TriggerSpec,
    },
    /// A Crisis Trigger fired (§8).
    TriggerFired {
        /// The trigger (its place in the scene file).
        trigger: u16,
        /// The threshold crossed.
        at: u32,
    },
    /// A Crisis Trigger gave a character an extra action.
    ExtraActionGranted {
        /// The character.
        character: u8,
    },
    /// A character uses an Advanced Action outside round order.
    OutOfOrderTaken {
        /// The character.
        character: u8,
    },
    /// A character takes the extra action it was given.
    ExtraActionTaken {
        /// The character.
        character: u8,
    },
    /// An extra action was lost: the character cannot act any more.
    ExtraActionLost {
        /// The character.
        character: u8,
    },
    /// A round ends.
    RoundEnded {
        /// The Crisis each side generated in it.
        crisis: [u32; 2],
    },
    /// The scene is over.
    SceneOver {
        /// How it ended.
        outcome: Outcome,
    },
    /// The GM spent Rising Tension on a side's Strikes (§10).
    TensionSpent {
        /// The side.
        side: u8,
        /// Strikes gained.
        strikes: u32,
        /// Its Strikes afterwards.
        total: u32,
        /// The GM's Rising Tension left.
        left: u32,
    },
    /// A side is beaten while the other holds allied factions (§6): their alliance ends. The
    /// factions in `turned` take the beaten side. The Duels follow as events of their own: the
    /// former allies face each other in new Duels at Flow 0 (Decision on alliances).
    AllianceEnded {
        /// The side that was beaten, which the turned factions take.
        beaten: u8,
        /// The factions that change sides.
        turned: Vec<u8>,
    },
    /// The GM holds a Rest Scene after the scene (§9).
    RestStarted {
        /// A whole day of rest.
        full_day: bool,
    },
    /// A character's Rest Scene, by the rules of [`crate::wounds`]: its wounds afterwards.
    Rested {
        /// The character.
        character: u8,
        /// What the rest did.
        outcome: crate::wounds::RestOutcome,
        /// Hits afterwards.
        hits: u8,
        /// Death Hits afterwards.
        death_hits: u8,
        /// Whether it is still Incapacitated.
        incapacitated: bool,
        /// Whether it must die before the next Action or Conflict scene.
        doomed: bool,
    },
    /// The GM corrected a count (Decision 30): public, with its reason.
    Adjusted {
        /// What was set, to what.
        #[serde(flatten)]
        adjustment: Adjustment,
        /// Why, in the GM's words.
        reason: Note,
    },
}

/// A ruling only a GM seat may give, each by its own rule (named when a player's seat is
/// refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum GmRuling {
    /// Ending the scene: its end is a narrative decision (§5 step 9).
    #[error("only the GM may end the scene: when it ends is the GM's narrative decision")]
    EndScene,
    /// Spending Rising Tension, the GM's own resource (§10).
    #[error("only the GM may spend Rising Tension: it is the GM's resource")]
    SpendTension,
    /// Holding a Rest Scene between scenes (§9, Decision: Rest Scenes come between scenes).
    #[error("only the GM may hold a Rest Scene: Rest Scenes come between scenes, when the GM calls them")]
    RestScene,
}

/// Why a command was refused. The state is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RuleError {
    /// The scene is over.
    #[error("the scene is over")]
    Over,
    /// No such character.
    #[error("there is no character number {0} in this scene")]
    UnknownCharacter(u8),
    /// A seat acting for another's character.
    #[error("seat {seat} does not play {character}")]
    NotYours {
        /// The seat.
        seat: String,
        /// The character.
        character: String,
    },
    /// Out of turn.
    #[error("{character} cannot do that now: the scene waits for {waiting}")]
    OutOfTurn {
        /// The character.
        character: String,
        /// What the scene waits for.
        waiting: String,
    },
    /// A second declaration.
    #[error("{0} has already declared this round; a face-down declaration cannot be taken back")]
    AlreadyDeclared(String),
    /// A GM's ruling from a player's seat: the refusal names the ruling and the rule that
    /// makes it the GM's.
    #[error("{ruling}; seat {seat} is a player's")]
    GmOnly {
        /// The seat.
        seat: String,
        /// The ruling refused.
        ruling: GmRuling,
    },
    /// Rising Tension cannot be spent so (§10, open question 14).
    #[error("{0}")]
    Tension(String),
    /// A command that has to wait for a later moment.
    #[error("{0}")]
    NotYet(String),
    /// A GM adjustment refused: names the rule or the bound (Decision 30).
    #[error("GM adjustment: {0}")]
    Adjust(String),
    /// A side number that is not 0 or 1.
    #[error("there is no side number {0}; the sides are 0 and 1")]
    UnknownSide(u8),
    /// An illegal action.
    #[error("{character}: {reason}")]
    Illegal {
        /// The character.
        character: String,
        /// Why, naming the rule.
        reason: String,
    },
}

impl Scene {
    /// Whether a fighter must declare this round.
    pub fn must_declare(&self, f: usize) -> bool {
        self.fighters
            .get(f)
            .is_some_and(|x| x.engaged_capable() && (!self.surprise_round || x.side == self.initiative))
    }

    /// Validates `command` from `seat` and pushes its events.
    pub fn decide(&self, seat: SeatId, command: &Command, events: &mut Vec<Event>) -> Result<(), RuleError> {
        if let Command::RestScene { full_day } = *command {
            return self.rest_scene(seat, full_day, events);
        }
        if let Command::Adjust { adjustment, reason } = *command {
            return self.adjust(seat, adjustment, reason, events);
        }
        if self.phase == Phase::Over {
            return Err(RuleError::Over);
        }
        let f = match *command {
            Command::EndScene { winner } => return self.end_scene(seat, winner, events),
            Command::SpendTension { side, strikes } => {
                return self.spend_tension(seat, side, strikes, events);
            }
            Command::RestScene { .. } | Command::Adjust { .. } => return Err(RuleError::Over),
            Command::Declare { character, .. }
            | Command::Act { character }
            | Command::KeepFighting { character, .. }
            | Command::ExtraAction { character, .. }
            | Command::OutOfOrder { character, .. } => character,
        };
        let me = self.fighter_checked(f)?;
        if me.seat != seat {
            return Err(RuleError::NotYours {
                seat: self.seat_name(seat).to_owned(),
                character: me.sheet.name.clone(),
            });
        }
        let out_of_turn =
            || RuleError::OutOfTurn { character: me.sheet.name.clone(), waiting: self.waiting_for() };
        let pending = self.pending.first().copied();
        match *command {
            Command::KeepFighting { roll, .. } => {
                if pending != Some(Pending::KeepFighting(f)) {
                    return Err(out_of_turn());
                }
                if !roll {
                    events.push(Event::Declined { character: f });
                    return Ok(());
                }
                let mut em = Emit::new(self, events);
                let (_, level) = me.sheet.recovery_ability();
                let total = em.roll(
                    Who::Character(f),
                    Purpose::KeepFighting,
                    &ability_pool(level, self.setup.options.ability_dice),
                    0,
                );
                em.push(Event::KeptFighting { character: f, success: total >= dice::TARGET });
                em.reconcile();
                Ok(())
            }
            Command::ExtraAction { action, .. } => {
                if pending != Some(Pending::ExtraAction(f)) {
                    return Err(out_of_turn());
                }
                self.check_action(f, &action)?;
                let action = self.normalize(f, action);
                let mut em = Emit::new(self, events);
                em.push(Event::ExtraActionTaken { character: f });
                em.resolve(f, action);
                Ok(())
            }
            Command::EndScene { winner } => self.end_scene(seat, winner, events),
            Command::RestScene { full_day } => self.rest_scene(seat, full_day, events),
            Command::Adjust { adjustment, reason } => self.adjust(seat, adjustment, reason, events),
            Command::SpendTension { side, strikes } => self.spend_tension(seat, side, strikes, events),
            _ if pending.is_some() => Err(out_of_turn()),
            Command::OutOfOrder { action, .. } => {
                if !matches!(self.phase, Phase::Resolve { .. }) {
                    return Err(out_of_turn());
                }
                if me.out_of_order_used {
                    return Err(illegal(
                        self,
                        f,
                        "has already used an Advanced Action outside round order this round",
                    ));
                }
                if !self.out_of_order_allowed(f, &action) {
                    return Err(illegal(
                        self,
                        f,
                        "only an Advanced Action whose Skill allows it can be used outside round order",
                    ));
                }
                self.check_action(f, &action)?;
                let mut em = Emit::new(self, events);
                em.push(Event::OutOfOrderTaken { character: f });
                em.resolve(f, action);
                Ok(())
            }
            Command::Declare { action, .. } => {
                if self.phase != Phase::Declare || !self.must_declare(usize::from(f)) {
                    return Err(out_of_turn());
                }
                if me.declared.is_committed() {
                    return Err(RuleError::AlreadyDeclared(me.sheet.name.clone()));
                }
                self.check_action(f, &action)?;
                let action = self.normalize(f, action);
                events.push(Event::Declared { character: f, action: Some(action) });
                Ok(())
            }
            Command::Act { .. } => {
                let Phase::Resolve { side } = self.phase else {
                    return Err(out_of_turn());
                };
                let Some(action) = me.declared.value() else {
                    return Err(out_of_turn());
                };
                if me.side != side || me.acted || me.status != Status::Fighting {
                    return Err(out_of_turn());
                }
                let mut em = Emit::new(self, events);
                em.resolve(f, action);
                em.push(Event::Acted { character: f });
                Ok(())
            }
        }
    }

    /// The GM ends the scene now, with the winner it names (§5 step 9: the scene ends by a
    /// narrative decision). Refused from a player's seat.
    fn end_scene(&self, seat: SeatId, winner: Option<u8>, events: &mut Vec<Event>) -> Result<(), RuleError> {
        if !self.is_gm(seat) {
            return Err(RuleError::GmOnly {
                seat: self.seat_name(seat).to_owned(),
                ruling: GmRuling::EndScene,
            });
        }
        if let Some(w) = winner.filter(|&w| w > 1) {
            return Err(RuleError::UnknownSide(w));
        }
        let why = match winner {
            Some(w) => format!("the GM ends the scene in favour of {}", self.side_name(w)),
            None => "the GM ends the scene".to_owned(),
        };
        events.push(Event::SceneOver { outcome: Outcome { winner, why, by_gm: true, round_limit: None } });
        Ok(())
    }

    /// The GM spends Rising Tension for `strikes` more Strikes on `side` (§10, open question
    /// 14): `rising_tension.per_strike` each, from what the GM has left.
    fn spend_tension(
        &self,
        seat: SeatId,
        side: u8,
        strikes: u32,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        if !self.is_gm(seat) {
            return Err(RuleError::GmOnly {
                seat: self.seat_name(seat).to_owned(),
                ruling: GmRuling::SpendTension,
            });
        }
        if side > 1 {
            return Err(RuleError::UnknownSide(side));
        }
        let Some(have) = self.strikes else {
            return Err(RuleError::Tension(
                "Rising Tension buys Strikes, which only a non-violent conflict has".into(),
            ));
        };
        if strikes == 0 {
            return Err(RuleError::Tension("spend Rising Tension on at least 1 Strike".into()));
        }
        let per = self.setup.rising_tension.per_strike;
        let cost = u64::from(strikes) * u64::from(per);
        let left =
            u32::try_from(cost).ok().and_then(|c| self.rising_tension.checked_sub(c)).ok_or_else(|| {
                RuleError::Tension(format!(
                    "{strikes} Strike(s) cost {cost} Rising Tension ({per} each); the GM has {}",
                    self.rising_tension
                ))
            })?;
        let total = have[usize::from(side)].saturating_add(strikes);
        events.push(Event::TensionSpent { side, strikes, total, left });
        Ok(())
    }

    /// The GM's adjustment of a count (Decision 30): only a GM seat, with a reason, within
    /// bounds; logged for everyone as [`Event::Adjusted`].
    fn adjust(
        &self,
        seat: SeatId,
        adjustment: Adjustment,
        reason: Note,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        if !self.is_gm(seat) {
            return Err(RuleError::Adjust(format!(
                "only the GM may adjust hits, Flow, Crisis or Strikes; seat {} is a player's (Decision 30)",
                self.seat_name(seat)
            )));
        }
        if reason.trim().is_empty() {
            return Err(RuleError::Adjust(
                "give a reason: every adjustment is logged for everyone with its reason (Decision 30)".into(),
            ));
        }
        // One line of plain text, so every shell can print it as it is.
        let unsafe_char = |c: char| {
            c.is_control()
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        };
        if reason.chars().any(unsafe_char) {
            return Err(RuleError::Adjust(
                "a reason is one line of plain text: no control characters, line breaks or direction overrides (Decision 30)"
                    .into(),
            ));
        }
        let bad = |why: String| Err(RuleError::Adjust(why));
        match adjustment {
            Adjustment::Hits { character, hits } => {
                let f = self.fighter_checked(character)?;
                let max = f.sheet.max_hits;
                let top = if f.status == Status::Fighting { max.saturating_sub(1) } else { max };
                if hits > top {
                    return bad(format!(
                        "{} may have at most {top} hits ({}; Max Hits {max}): reaching Max Hits comes from wounds, not an adjustment",
                        f.sheet.name,
                        if f.status == Status::Fighting { "still fighting" } else { "Incapacitated" }
                    ));
                }
            }
            Adjustment::Flow { duel, flow } => {
                if usize::from(duel) >= self.duels.len() {
                    return bad(format!("there is no Duel number {duel}"));
                }
                if flow.unsigned_abs() > MAX_ADJUSTED {
                    return bad(format!("a Flow of Battle is at most {MAX_ADJUSTED} either way"));
                }
            }
            Adjustment::Crisis { crisis } => {
                if crisis > MAX_ADJUSTED {
                    return bad(format!("the Crisis pool is at most {MAX_ADJUSTED}"));
                }
            }
            Adjustment::Strikes { side, strikes } => {
                if side > 1 {
                    return Err(RuleError::UnknownSide(side));
                }
                if self.strikes.is_none() {
                    return bad("only a non-violent conflict has Strikes".into());
                }
                if strikes > MAX_ADJUSTED {
                    return bad(format!("a side has at most {MAX_ADJUSTED} Strikes"));
                }
            }
        }
        events.push(Event::Adjusted { adjustment, reason });
        Ok(())
    }

    /// A Rest Scene (§9), once the scene is over, by the GM: each living character who is
    /// wounded or Incapacitated rolls (or, for a whole day, heals without a roll when it may),
    /// and [`crate::wounds::Wounds`] applies the result — the same rules as the `roll rest`
    /// calculator.
    fn rest_scene(&self, seat: SeatId, full_day: bool, events: &mut Vec<Event>) -> Result<(), RuleError> {
        if !self.is_gm(seat) {
            return Err(RuleError::GmOnly {
                seat: self.seat_name(seat).to_owned(),
                ruling: GmRuling::RestScene,
            });
        }
        if self.phase != Phase::Over {
            return Err(RuleError::NotYet(
                "a Rest Scene comes after the scene is over; end the scene first".into(),
            ));
        }
        let mut em = Emit::new(self, events);
        em.push(Event::RestStarted { full_day });
        for (i, f) in self.fighters.iter().enumerate() {
            let mut w = f.wounds();
            if !w.needs_rest() {
                continue;
            }
            let success = if full_day && w.full_day_heals() {
                false
            } else {
                let (_, level) = f.sheet.recovery_ability();
                let pool = ability_pool(level, self.setup.options.ability_dice);
                em.roll(Who::Character(i as u8), Purpose::Rest, &pool, 0) >= dice::TARGET
            };
            let outcome = if full_day { w.full_day(success) } else { w.rest(success) };
            em.push(Event::Rested {
                character: i as u8,
                outcome,
                hits: w.hits,
                death_hits: w.death_hits,
                incapacitated: w.incapacitated,
                doomed: w.doomed,
            });
        }
        Ok(())
    }

    /// The factions of a side with someone able to fight, in file order (§6).
    pub fn able_factions(&self, side: u8) -> Vec<u8> {
        let mut out: Vec<u8> = self
            .fighters
            .iter()
            .filter(|f| f.side == side && f.status == Status::Fighting)
            .filter_map(|f| f.faction)
            .chain(self.minions.iter().filter(|m| m.side == side && m.count > 0).filter_map(|m| m.faction))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether a side is beaten while the other holds an alliance (§6): then the alliance
    /// ends — the first-listed surviving faction keeps its side, the others take the beaten one.
    fn alliance_check(&self) -> Option<Event> {
        if self.setup.factions.is_empty() {
            return None;
        }
        for beaten in 0..2u8 {
            let winners = self.able_factions(1 - beaten);
            if !self.able(beaten) && winners.len() >= 2 {
                return Some(Event::AllianceEnded { beaten, turned: winners[1..].to_vec() });
            }
        }
        None
    }

    /// The names of the factions now fighting in a side, or the side's name (§6).
    pub fn camp_name(&self, side: u8) -> String {
        let names: Vec<&str> = self
            .setup
            .factions
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                let i = Some(*i as u8);
                self.fighters.iter().any(|f| f.side == side && f.faction == i)
                    || self.minions.iter().any(|m| m.side == side && m.faction == i)
            })
            .map(|(_, f)| f.name.as_str())
            .collect();
        if names.is_empty() { self.side_name(side).to_owned() } else { names.join(" and ") }
    }

    pub(crate) fn able(&self, side: u8) -> bool {
        self.fighters.iter().any(|f| f.side == side && f.status == Status::Fighting)
            || self.minions.iter().any(|m| m.side == side && m.count > 0)
    }

    fn over_check(&self) -> Option<Outcome> {
        if let Some(s) = self.strikes {
            for side in 0..2u8 {
                if s[usize::from(side)] == 0 {
                    return Some(Outcome::new(
                        Some(1 - side),
                        format!("{} have no Strikes left", self.side_name(side)),
                    ));
                }
            }
        }
        let (a, b) = (self.able(0), self.able(1));
        match (a, b) {
            (false, false) => Some(Outcome::new(None, "nobody is left able to fight")),
            (true, false) | (false, true) => {
                let loser = if a { 1 } else { 0 };
                Some(Outcome::new(
                    Some(1 - loser),
                    format!("{} have nobody left able to fight", self.camp_name(loser)),
                ))
            }
            (true, true) => None,
        }
    }

    /// Round-one initiative (§5 step 3), and where the dice stand if a lot was drawn.
    fn first_initiative(&self) -> (u8, InitiativeWhy, Option<u64>) {
        let mut nimble: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
        let mut talent = [0u8; 2];
        for f in self.fighters.iter().filter(|f| f.engaged_capable()) {
            nimble[usize::from(f.side & 1)].push(f.sheet.abilities.nimbleness);
            talent[usize::from(f.side & 1)] =
                talent[usize::from(f.side & 1)].max(f.sheet.best_nimbleness_talent());
        }
        match initiative_order(&nimble, talent) {
            Some((side, why)) => (side, why, None),
            None => {
                let mut draws = self.draws.stream();
                let side = draws.uniform(0..2u8).unwrap_or(0);
                (side, InitiativeWhy::Coin, Some(draws.position()))
            }
        }
    }

    /// The next step the rules take by themselves.
    pub fn automatic(&self) -> Option<Event> {
        if self.phase == Phase::Over {
            return None;
        }
        // Duels still to bring in line with where everyone stands (after an alliance ends).
        if let Some(e) = crate::duel::next_event(self) {
            return Some(e);
        }
        if let Some(&p) = self.pending.first() {
            return match p {
                Pending::ExtraAction(c) if self.fighters[usize::from(c)].status != Status::Fighting => {
                    Some(Event::ExtraActionLost { character: c })
                }
                _ => None,
            };
        }
        if let Some(e) = self.alliance_check() {
            return Some(e);
        }
        if let Some(outcome) = self.over_check() {
            return Some(Event::SceneOver { outcome });
        }
        match self.phase {
            Phase::Between => {
                if let Some(max) = self.setup.options.max_rounds
                    && self.round >= max
                {
                    let mut outcome =
                        Outcome::new(None, format!("the round limit stops the scene after {max} rounds"));
                    outcome.round_limit = Some(max);
                    return Some(Event::SceneOver { outcome });
                }
                let round = self.round + 1;
                let surprise = if round == 1 {
                    self.setup.surprise.as_ref().and_then(|s| self.setup.sides.iter().position(|x| x == s))
                } else {
                    None
                };
                let (initiative, why, rng_pos) = match surprise {
                    Some(s) => (s as u8, InitiativeWhy::Surprise, None),
                    None if round == 1 => self.first_initiative(),
                    None => {
                        let [a, b] = self.round_crisis;
                        if a < b {
                            (0, InitiativeWhy::LeastCrisis, None)
                        } else if b < a {
                            (1, InitiativeWhy::LeastCrisis, None)
                        } else {
                            (self.initiative, InitiativeWhy::Kept, None)
                        }
                    }
                };
                let anyone = self
                    .fighters
                    .iter()
                    .any(|f| f.engaged_capable() && (surprise.is_none() || f.side == initiative));
                if !anyone && surprise.is_none() {
                    return Some(Event::SceneOver {
                        outcome: Outcome::new(None, "nobody on the map can act"),
                    });
                }
                Some(Event::RoundStarted { round, initiative, surprise: surprise.is_some(), why, rng_pos })
            }
            Phase::Declare => {
                let done = (0..self.fighters.len())
                    .all(|f| !self.must_declare(f) || self.fighters[f].declared.is_committed());
                done.then(|| Event::Revealed {
                    actions: self
                        .fighters
                        .iter()
                        .enumerate()
                        .filter_map(|(i, f)| f.declared.value().map(|a| (i as u8, a)))
                        .collect(),
                })
            }
            Phase::Resolve { side } => {
                let waiting = self
                    .fighters
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.side == side && f.declared.is_committed() && !f.acted);
                for (i, f) in waiting.clone() {
                    if f.status != Status::Fighting || f.absent {
                        return Some(Event::Skipped { character: i as u8 });
                    }
                }
                if waiting.count() > 0 {
                    return None;
                }
                if side == self.initiative && !self.surprise_round {
                    Some(Event::SideDone { next: 1 - side })
                } else {
                    Some(Event::RoundEnded { crisis: self.round_crisis })
                }
            }
            Phase::Over => None,
        }
    }

    /// Pushes the legal commands of `seat`. A GM seat's list ends with the three ways to end
    /// the scene at once ([`Command::EndScene`]: no winner, either side), at every moment
    /// until the end; bots skip them ([`Command::is_gm_ruling`]).
    pub fn legal_commands(&self, seat: SeatId, out: &mut Vec<Command>) {
        if self.phase == Phase::Over {
            // After the scene the GM may hold Rest Scenes while anyone alive needs one (§9).
            if self.is_gm(seat) && self.fighters.iter().any(|f| f.wounds().needs_rest()) {
                out.extend([false, true].map(|full_day| Command::RestScene { full_day }));
            }
            return;
        }
        self.play_commands(seat, out);
        if self.is_gm(seat) {
            out.extend([None, Some(0), Some(1)].map(|winner| Command::EndScene { winner }));
            // Rising Tension for one more Strike on either side, while the GM has enough (§10).
            if self.strikes.is_some() && self.rising_tension >= self.setup.rising_tension.per_strike {
                out.extend([0, 1].map(|side| Command::SpendTension { side, strikes: 1 }));
            }
        }
    }

    fn play_commands(&self, seat: SeatId, out: &mut Vec<Command>) {
        let mut actions = Vec::new();
        if let Some(&p) = self.pending.first() {
            match p {
                Pending::KeepFighting(c) if self.fighters[usize::from(c)].seat == seat => {
                    out.push(Command::KeepFighting { character: c, roll: true });
                    out.push(Command::KeepFighting { character: c, roll: false });
                }
                Pending::ExtraAction(c) if self.fighters[usize::from(c)].seat == seat => {
                    self.actions(c, &mut actions);
                    out.extend(
                        actions.into_iter().map(|action| Command::ExtraAction { character: c, action }),
                    );
                }
                _ => {}
            }
            return;
        }
        for (i, f) in self.fighters.iter().enumerate() {
            if f.seat != seat {
                continue;
            }
            match self.phase {
                Phase::Declare if self.must_declare(i) && !f.declared.is_committed() => {
                    actions.clear();
                    self.actions(i as u8, &mut actions);
                    out.extend(actions.iter().map(|&action| Command::Declare { character: i as u8, action }));
                }
                Phase::Resolve { side } => {
                    if f.side == side && f.declared.is_committed() && !f.acted && f.status == Status::Fighting
                    {
                        out.push(Command::Act { character: i as u8 });
                    }
                    self.out_of_order_actions(i as u8, out);
                }
                _ => {}
            }
        }
    }

    /// Pushes the seats the scene waits for (those with a legal command).
    pub fn awaiting(&self, out: &mut Vec<SeatId>) {
        let mut push = |seat: SeatId| {
            if !out.contains(&seat) {
                out.push(seat);
            }
        };
        if self.phase == Phase::Over {
            return;
        }
        if let Some(&p) = self.pending.first() {
            let (Pending::KeepFighting(c) | Pending::ExtraAction(c)) = p;
            if let Some(f) = self.fighters.get(usize::from(c))
                && (matches!(p, Pending::KeepFighting(_)) || f.status == Status::Fighting)
            {
                push(f.seat);
            }
            return;
        }
        for (i, f) in self.fighters.iter().enumerate() {
            let waiting = match self.phase {
                Phase::Declare => self.must_declare(i) && !f.declared.is_committed(),
                Phase::Resolve { side } => {
                    f.side == side && f.declared.is_committed() && !f.acted && f.status == Status::Fighting
                }
                _ => false,
            };
            if waiting {
                push(f.seat);
            }
        }
    }

    /// Applies one event.
    pub fn apply(&mut self, event: &Event) {
        // The action being resolved, for its result in words (narration only).
        match event {
            Event::Started { character, action, .. } => {
                self.acting = Some(crate::scene::Acting {
                    character: *character,
                    action: *action,
                    roll: None,
                    defence: None,
                    hits: 0,
                    flow: None,
                    done: false,
                });
            }
            Event::Acted { .. } | Event::Wasted { .. } | Event::RoundEnded { .. } => self.acting = None,
            other => {
                if let Some(a) = self.acting.as_mut() {
                    a.follow(other);
                }
            }
        }
        match event {
            Event::RoundStarted { round, initiative, surprise, rng_pos, .. } => {
                if let Some(pos) = rng_pos {
                    self.draws.advance_to(*pos);
                }
                self.round = *round;
                self.initiative = *initiative;
                self.surprise_round = *surprise;
                self.round_crisis = [0; 2];
                self.chain_fired.clear();
                self.extra_action_next = false;
                self.phase = Phase::Declare;
                for f in &mut self.fighters {
                    f.declared = Sealed::Empty;
                    f.acted = false;
                    f.out_of_order_used = false;
                }
            }
            Event::Declared { character, action } => {
                if let (Some(f), Some(a)) = (self.fighters.get_mut(usize::from(*character)), action) {
                    f.declared = Sealed::FaceDown(*a);
                }
            }
            Event::Revealed { .. } => {
                for f in &mut self.fighters {
                    f.declared.reveal();
                }
                self.phase = Phase::Resolve { side: self.initiative };
            }
            Event::SideDone { next } => self.phase = Phase::Resolve { side: *next },
            Event::Started { .. } | Event::Wasted { .. } => {
                // An extra action continues its chain; any other action starts a new one
                // (Decision 10: each trigger fires at most once in a chain).
                if !std::mem::take(&mut self.extra_action_next) {
                    self.chain_fired.clear();
                }
            }
            Event::MinionsIdle { .. } => {}
            Event::Acted { character } | Event::Skipped { character } => {
                if let Some(f) = self.fighters.get_mut(usize::from(*character)) {
                    f.acted = true;
                }
            }
            Event::Rolled { rng_pos, .. } => {
                self.draws.advance_to(*rng_pos);
            }
            Event::Moved { character, path } => {
                if let Some(f) = self.fighters.get_mut(usize::from(*character)) {
                    f.region = path.last().or(f.region);
                }
            }
            Event::CrisisAdded { amount, side, total } => {
                self.crisis = *total;
                if let Some(s) = side {
                    let r = &mut self.round_crisis[usize::from(s & 1)];
                    *r = r.saturating_add(*amount);
                }
            }
            Event::FlowMoved { duel, flow, .. } => {
                if let Some(d) = self.duels.get_mut(usize::from(*duel)) {
                    d.flow = *flow;
                }
            }
            Event::DuelFormed { duel, region, flow, members, .. } => {
                if let Some(slot) = self.duel_at.get_mut(usize::from(*region)) {
                    *slot = Some(*duel);
                }
                let i = usize::from(*duel);
                if i < self.duels.len() {
                    let d = &mut self.duels[i];
                    d.region = *region;
                    d.flow = *flow;
                    d.active = true;
                } else {
                    self.duels.push(crate::scene::Duel {
                        region: *region,
                        flow: *flow,
                        active: true,
                        sides: [0; 2],
                        merged_from: Vec::new(),
                    });
                }
                for bit in crate::duel::bits(*members) {
                    self.set_duel(bit, *duel);
                }
            }
            Event::DuelJoined { duel, combatant } => self.set_duel(usize::from(*combatant), *duel),
            Event::DuelEnded { duel } => {
                if let Some(d) = self.duels.get_mut(usize::from(*duel)) {
                    d.active = false;
                    let region = usize::from(d.region);
                    if let Some(slot) = self.duel_at.get_mut(region)
                        && *slot == Some(*duel)
                    {
                        *slot = None;
                    }
                }
            }
            Event::DuelsCombined { into, from, flow } => {
                if let Some(d) = self.duels.get_mut(usize::from(*into)) {
                    d.flow = *flow;
                    d.merged_from.push(*from);
                }
            }
            Event::Wounded { character, total, .. } => {
                if let Some(f) = self.fighters.get_mut(usize::from(*character)) {
                    f.hits = *total;
                }
            }
            Event::StrikesLost { side, left, .. } => {
                if let Some(s) = &mut self.strikes {
                    s[usize::from(side & 1)] = *left;
                }
            }
            Event::Incapacitated { character } => {
                if let Some(f) = self.fighters.get_mut(usize::from(*character)) {
                    f.status = Status::Incapacitated;
                }
                self.pending.push(Pending::KeepFighting(*character));
            }
            Event::KeptFighting { character, success } => {
                if let Some(f) = self.fighters.get_mut(usize::from(*character)) {
                    f.hits = f.hits.saturating_sub(1);
                    f.status = Status::Fighting;
                    f.doomed |= !success;
                }
                self.pending.retain(|p| *p != Pending::KeepFighting(*character));
            }
            Event::Declined { character } => {
                self.pending.retain(|p| *p != Pending::KeepFighting(*character));
            }
            Event::Healed { character, hits, revived } => {
                if let Some(f) = self.fighters.get_mut(usize::from(*character)) {
                    f.hits = f.hits.saturating_sub(*hits);
                    if *revived {
                        f.status = Status::Fighting;
                        f.death_hits = 0;
                    }
                }
                if *revived {
                    self.pending.retain(|p| *p != Pending::KeepFighting(*character));
                }
            }
            Event::MinionsKilled { group, left, .. } => {
                if let Some(m) = self.minions.get_mut(usize::from(*group)) {
                    m.count = *left;
                }
            }
            Event::MinionsArrived { group, count } => {
                if let Some(m) = self.minions.get_mut(usize::from(*group)) {
                    m.count = m.count.saturating_add(*count).min(crate::scene::MAX_MINIONS);
                }
            }
            Event::RegionChanged { region, effect } => {
                if let Some(e) = std::sync::Arc::make_mut(&mut self.effects).get_mut(usize::from(*region)) {
                    *e = effect.clone();
                }
            }
            Event::TriggerAdded { trigger, .. } => {
                self.added_triggers.push(trigger.clone());
                self.fired.push(0);
            }
            Event::TriggerFired { trigger, .. } => {
                if let Some(n) = self.fired.get_mut(usize::from(*trigger)) {
                    *n += 1;
                }
                if !self.chain_fired.contains(trigger) {
                    self.chain_fired.push(*trigger);
                }
            }
            Event::ExtraActionGranted { character } => self.pending.push(Pending::ExtraAction(*character)),
            Event::OutOfOrderTaken { character } => {
                if let Some(f) = self.fighters.get_mut(usize::from(*character)) {
                    f.out_of_order_used = true;
                }
            }
            Event::ExtraActionLost { character } => {
                self.pending.retain(|p| *p != Pending::ExtraAction(*character));
            }
            Event::ExtraActionTaken { character } => {
                self.pending.retain(|p| *p != Pending::ExtraAction(*character));
                self.extra_action_next = true;
            }
            Event::RoundEnded { .. } => {
                self.phase = Phase::Between;
            }
            Event::SceneOver { outcome } => {
                self.phase = Phase::Over;
                self.pending.clear();
                self.outcome = Some(outcome.clone());
            }
            Event::Adjusted { adjustment, .. } => match *adjustment {
                Adjustment::Hits { character, hits } => {
                    if let Some(f) = self.fighters.get_mut(usize::from(character)) {
                        f.hits = hits;
                    }
                }
                Adjustment::Flow { duel, flow } => {
                    if let Some(d) = self.duels.get_mut(usize::from(duel)) {
                        d.flow = flow;
                    }
                }
                Adjustment::Crisis { crisis } => self.crisis = crisis,
                Adjustment::Strikes { side, strikes } => {
                    if let Some(s) = &mut self.strikes {
                        s[usize::from(side & 1)] = strikes;
                    }
                }
            },
            Event::RestStarted { .. } => {}
            Event::TensionSpent { side, total, left, .. } => {
                if let Some(s) = &mut self.strikes {
                    s[usize::from(side & 1)] = *total;
                }
                self.rising_tension = *left;
            }
            Event::AllianceEnded { beaten, turned } => {
                let turned_to = |faction: Option<u8>| faction.is_some_and(|x| turned.contains(&x));
                for f in &mut self.fighters {
                    if turned_to(f.faction) {
                        f.side = *beaten;
                    }
                }
                for m in &mut self.minions {
                    if turned_to(m.faction) {
                        m.side = *beaten;
                    }
                }
                // The Duels follow as events of their own ([`Scene::automatic`]): a Duel whose
                // combatants turned on each other ends, and the former allies' Duels form at
                // Flow 0 (§6, Decision on alliances).
            }
            Event::Rested { character, hits, death_hits, incapacitated, doomed, .. } => {
                if let Some(f) = self.fighters.get_mut(usize::from(*character)) {
                    f.hits = *hits;
                    f.death_hits = *death_hits;
                    f.status = if *incapacitated { Status::Incapacitated } else { Status::Fighting };
                    f.doomed = *doomed;
                }
            }
        }
    }

    /// A combatant fights in `duel` now, on its present side (§6).
    fn set_duel(&mut self, bit: usize, duel: u16) {
        let fighters = self.fighters.len();
        let side = if bit < fighters {
            self.fighters[bit].duel = Some(duel);
            self.fighters[bit].side
        } else if let Some(m) = self.minions.get_mut(bit - fighters) {
            m.duel = Some(duel);
            m.side
        } else {
            return;
        };
        if let Some(d) = self.duels.get_mut(usize::from(duel)) {
            let s = usize::from(side & 1);
            d.sides[s] |= 1 << bit;
            d.sides[1 - s] &= !(1 << bit);
        }
    }
}

/// Round-one initiative from each side's Nimbleness levels and best Nimbleness-based Talent
/// (§5 step 3): highest single Nimbleness, ties broken by the next highest; a side that runs
/// out of characters to compare loses to the side with more; equal headcount and still tied:
/// the highest Nimbleness-based Talent. `None` when everything ties.
pub fn initiative_order(nimbleness: &[Vec<u8>; 2], best_talent: [u8; 2]) -> Option<(u8, InitiativeWhy)> {
    let mut a = nimbleness[0].clone();
    let mut b = nimbleness[1].clone();
    a.sort_unstable_by(|x, y| y.cmp(x));
    b.sort_unstable_by(|x, y| y.cmp(x));
    for (x, y) in a.iter().zip(&b) {
        if x != y {
            return Some((if x > y { 0 } else { 1 }, InitiativeWhy::Nimbleness));
        }
    }
    if a.len() != b.len() {
        return Some((if a.len() > b.len() { 0 } else { 1 }, InitiativeWhy::Headcount));
    }
    if best_talent[0] != best_talent[1] {
        return Some((if best_talent[0] > best_talent[1] { 0 } else { 1 }, InitiativeWhy::Talent));
    }
    None
}

/// Re-exported for the calculator: the arithmetic lives in [`attack`].
pub use attack::RegularOutcome;
