//! Commands, events and the rules that connect them (rules reference §5–§10).
//!
//! `decide` checks a command and names the events it causes (resolving an action on a
//! scratch copy of the scene, so dice, Crisis Triggers and wounds follow each other in
//! order); `apply` changes the state for one event; `automatic` takes the steps the rules
//! take by themselves (round starts, the reveal, skipping characters who cannot act, the end).

use serde::{Deserialize, Serialize};
use table::{Sealed, SeatId};
use thiserror::Error;

use crate::attack::{
    self, DECISIVE_CRISIS, LEAVE_DUEL_CRISIS, MOVE_CRISIS, decisive_flow_shift, decisive_hits, defence_value,
    flow_for, minion_advantage, regular_automatic, regular_roll,
};
use crate::character::{AdvancedEffect, Context, DefenceKind, Ranged, Talent};
use crate::dice::{self, Pool, Roll, ability_pool, defence_pool, talent_pool};
use crate::map::{RegionEffect, RegionId};
use crate::scene::{Outcome, Pending, Phase, Scene, SceneKind, Status, TriggerEffect};

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
        /// Where the scene's dice stand afterwards.
        rng_pos: u128,
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
        /// How many.
        strikes: u32,
        /// Left.
        left: u32,
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
    #[error("{0} has already declared this round; a face-down declaration cannot be taken back (§5 step 5)")]
    AlreadyDeclared(String),
    /// An illegal action.
    #[error("{character}: {reason}")]
    Illegal {
        /// The character.
        character: String,
        /// Why, naming the rule.
        reason: String,
    },
}

fn illegal(scene: &Scene, f: u8, reason: impl Into<String>) -> RuleError {
    RuleError::Illegal { character: scene.fighter_name(f).to_owned(), reason: reason.into() }
}

/// Why an attack cannot reach, before it is put in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    NoCharacter(u8),
    NoGroup(u8),
    NoTalent(u8),
    SameSide,
    NotInFight,
    AllDead,
    OffMap,
    OutsideDuel,
    NeedsRanged,
    OutOfRange(RegionId),
}

impl Why {
    fn error(self, scene: &Scene, f: u8, target: Target) -> RuleError {
        let name = match target {
            Target::Character(c) => scene.fighter_name(c).to_owned(),
            Target::Minions(g) => {
                scene.minions.get(usize::from(g)).map_or("?".into(), |m| format!("the {}", m.stats.name))
            }
        };
        let reason = match self {
            Why::NoCharacter(c) => return RuleError::UnknownCharacter(c),
            Why::NoGroup(g) => format!("there is no minion group number {g}"),
            Why::NoTalent(t) => format!("has no Talent number {t}"),
            Why::SameSide => format!("{name} is on the same side"),
            Why::NotInFight => format!("{name} cannot be attacked: not in the fight"),
            Why::AllDead => format!("{name} are all dead"),
            Why::OffMap => "is not on the map".into(),
            Why::OutsideDuel => {
                "in a Duel you can only attack members of that Duel, even with a Ranged Skill (§7.3)".into()
            }
            Why::NeedsRanged => {
                "is in no Duel with the target; attacking another Region needs a Talent with a Ranged Skill (§7.3)".into()
            }
            Why::OutOfRange(r) => format!(
                "{} is out of range: a ranged attack reaches adjacent Regions with line of sight (§7.3)",
                scene.region_name(r)
            ),
        };
        illegal(scene, f, reason)
    }
}

/// How an attack reaches its target (§7.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    /// Ranged (from another Region, or a basic-Ranged Talent inside a Duel).
    pub ranged: bool,
    /// Only a Decisive Attack is possible: the target is in no Duel.
    pub decisive_only: bool,
    /// The Duel whose Flow the attack uses or moves.
    pub duel: Option<u16>,
    /// Whether a Decisive Attack subtracts the Flow (true) or the Talent level (false).
    pub uses_flow: bool,
    /// Net Advantage from the situation.
    pub advantage: i32,
}

impl Scene {
    fn fighter_checked(&self, f: u8) -> Result<&crate::scene::Fighter, RuleError> {
        self.fighters.get(usize::from(f)).ok_or(RuleError::UnknownCharacter(f))
    }

    fn talent(&self, f: u8, t: u8) -> Result<&Talent, RuleError> {
        self.fighter_checked(f)?
            .sheet
            .talents
            .get(usize::from(t))
            .ok_or_else(|| illegal(self, f, format!("has no Talent number {t}")))
    }

    /// The Region of a target and whether it can still be attacked.
    fn target_region(&self, f: u8, target: Target) -> Result<RegionId, Why> {
        let side = self.fighters[usize::from(f)].side;
        match target {
            Target::Character(c) => {
                let t = self.fighters.get(usize::from(c)).ok_or(Why::NoCharacter(c))?;
                if t.side == side {
                    return Err(Why::SameSide);
                }
                match t.region {
                    Some(r) if t.engaged_capable() => Ok(r),
                    _ => Err(Why::NotInFight),
                }
            }
            Target::Minions(g) => {
                let m = self.minions.get(usize::from(g)).ok_or(Why::NoGroup(g))?;
                if m.side == side {
                    return Err(Why::SameSide);
                }
                if m.count == 0 {
                    return Err(Why::AllDead);
                }
                Ok(m.region)
            }
        }
    }

    /// Enemies (characters and single minions) of `side` in a Region.
    pub fn count_side(&self, region: RegionId, side: u8) -> u32 {
        let fighters = self
            .fighters
            .iter()
            .filter(|x| x.engaged_capable() && x.region == Some(region) && x.side == side)
            .count();
        let minions: u32 =
            self.minions.iter().filter(|m| m.region == region && m.side == side).map(|m| m.count).sum();
        fighters as u32 + minions
    }

    /// How `f`'s attack with `talent` reaches `target`, or why it cannot (§7.3).
    pub fn reach(&self, f: u8, talent: Option<u8>, target: Target) -> Result<Reach, RuleError> {
        self.fighter_checked(f)?;
        self.reach_why(f, talent, target).map_err(|why| why.error(self, f, target))
    }

    /// [`Scene::reach`] without building a message (for the legal lists).
    fn reach_why(&self, f: u8, talent: Option<u8>, target: Target) -> Result<Reach, Why> {
        let me = self.fighters.get(usize::from(f)).ok_or(Why::NoCharacter(f))?;
        let ranged_skill = match talent {
            Some(t) => me.sheet.talents.get(usize::from(t)).ok_or(Why::NoTalent(t))?.skills.ranged,
            None => Ranged::None,
        };
        let tr = self.target_region(f, target)?;
        let target_duel = self.duel_in(tr);
        if me.absent {
            // Absent opponents act as members of the target's Duel (Decision, §10).
            return Ok(Reach {
                ranged: false,
                decisive_only: target_duel.is_none(),
                duel: target_duel,
                uses_flow: target_duel.is_some(),
                advantage: 0,
            });
        }
        let fr = me.region.ok_or(Why::OffMap)?;
        let effect = &self.effects[usize::from(fr)];
        let enemy = 1 - (me.side & 1);
        if let Some(d) = self.duel_in(fr) {
            if tr != fr {
                return Err(Why::OutsideDuel);
            }
            let ranged = ranged_skill == Ranged::Basic;
            let penalty = if ranged { self.count_side(fr, enemy) as i32 } else { 0 };
            let advantage =
                effect.attack_advantage - penalty + if ranged { effect.ranged_advantage } else { 0 };
            return Ok(Reach { ranged, decisive_only: false, duel: Some(d), uses_flow: true, advantage });
        }
        if ranged_skill == Ranged::None {
            return Err(Why::NeedsRanged);
        }
        if !self.links.in_range(fr, tr) {
            return Err(Why::OutOfRange(tr));
        }
        let reduction = talent.map_or(0, |t| me.sheet.talents[usize::from(t)].skills.ally_penalty_reduction);
        let allies = match target_duel {
            Some(_) => (self.count_side(tr, me.side) as i32 - i32::from(reduction)).max(0),
            None => 0,
        };
        Ok(Reach {
            ranged: true,
            decisive_only: target_duel.is_none(),
            duel: target_duel,
            uses_flow: false,
            advantage: effect.attack_advantage + effect.ranged_advantage - allies,
        })
    }

    /// The furthest a Move of `f` may go now (§5.2; a Region effect may limit it).
    pub fn max_move(&self, f: u8) -> u8 {
        let me = &self.fighters[usize::from(f)];
        let limit = me.region.and_then(|r| self.effects[usize::from(r)].max_move).unwrap_or(u8::MAX);
        me.sheet.max_move.min(limit).min(8)
    }

    /// Checks an action against the rules as the scene stands (§5, §7).
    pub fn check_action(&self, f: u8, action: &Action) -> Result<(), RuleError> {
        let me = self.fighter_checked(f)?;
        if me.status != Status::Fighting {
            return Err(illegal(self, f, "is Incapacitated and cannot meaningfully act (§9)"));
        }
        match *action {
            Action::Hold => Ok(()),
            Action::Move { path } => {
                let Some(mut at) = me.region else {
                    return Err(illegal(self, f, "is not physically present and cannot move (§10)"));
                };
                if path.regions().is_empty() {
                    return Err(illegal(self, f, "a Move enters at least one Region"));
                }
                let max = self.max_move(f);
                if path.regions().len() > usize::from(max) {
                    return Err(illegal(self, f, format!("can move at most {max} Regions (§5.2)")));
                }
                let mut seen = 1u16 << at;
                for &r in path.regions() {
                    if usize::from(r) >= self.effects.len() {
                        return Err(illegal(self, f, format!("there is no Region number {r}")));
                    }
                    if !self.links.can_move(at, r) {
                        return Err(illegal(
                            self,
                            f,
                            format!(
                                "cannot move from {} to {}: not adjacent, or movement is blocked (§5.2)",
                                self.region_name(at),
                                self.region_name(r)
                            ),
                        ));
                    }
                    if seen & (1 << r) != 0 {
                        return Err(illegal(self, f, "a Move does not enter a Region twice"));
                    }
                    seen |= 1 << r;
                    at = r;
                }
                Ok(())
            }
            Action::Regular { talent, target, roll, .. } => {
                if roll && talent.is_none() {
                    return Err(illegal(self, f, "a Regular Attack by Talent Roll needs a Talent (§7.1)"));
                }
                let reach = self.reach(f, talent, target)?;
                if reach.decisive_only {
                    return Err(illegal(
                        self,
                        f,
                        "the target is in no Duel: only Decisive Attacks can be made against it (§7.3)",
                    ));
                }
                Ok(())
            }
            Action::Decisive { talent, target, .. } => self.reach(f, Some(talent), target).map(|_| ()),
            Action::Advanced { talent, action, target } => {
                let t = self.talent(f, talent)?;
                let adv = t.advanced.get(usize::from(action)).ok_or_else(|| {
                    illegal(self, f, format!("Talent {} has no Advanced Action number {action}", t.name))
                })?;
                match &adv.effect {
                    AdvancedEffect::Heal { .. } => {
                        let c = target.unwrap_or(f);
                        let other = self.fighter_checked(c)?;
                        if other.side != me.side || other.region != me.region || other.absent {
                            return Err(illegal(
                                self,
                                f,
                                format!("{} is not an ally in the same Region", other.sheet.name),
                            ));
                        }
                        if other.hits == 0 {
                            return Err(illegal(
                                self,
                                f,
                                format!("{} has no hits to heal", other.sheet.name),
                            ));
                        }
                        Ok(())
                    }
                    AdvancedEffect::ShiftFlow { .. } => match me.region.and_then(|r| self.duel_in(r)) {
                        Some(_) => Ok(()),
                        None => Err(illegal(self, f, format!("{} needs a Duel to move the Flow", adv.name))),
                    },
                    AdvancedEffect::ChangeRegion { .. } => match me.region {
                        Some(_) => Ok(()),
                        None => Err(illegal(self, f, "is not in a Region")),
                    },
                }
            }
        }
    }

    /// Every action `f` may declare now, in a fixed order.
    pub fn actions(&self, f: u8, out: &mut Vec<Action>) {
        let Some(me) = self.fighters.get(usize::from(f)) else { return };
        if me.status != Status::Fighting {
            return;
        }
        out.push(Action::Hold);
        if let Some(start) = me.region {
            let max = self.max_move(f);
            let mut stack = [0u8; 8];
            self.paths(start, 1 << start, &mut stack, 0, max, out);
        }
        let mut targets = [Target::Character(0); 64];
        let mut n = 0;
        for (c, x) in self.fighters.iter().enumerate() {
            if x.side != me.side && x.engaged_capable() {
                targets[n] = Target::Character(c as u8);
                n += 1;
            }
        }
        for (g, m) in self.minions.iter().enumerate() {
            if m.side != me.side && m.count > 0 {
                targets[n] = Target::Minions(g as u8);
                n += 1;
            }
        }
        // One automatic Regular Attack per Duel reachable (the target only names the Duel),
        // then each Talent's Regular (Talent Roll) and Decisive Attacks.
        let mut duels_done: u64 = 0;
        let talents = me.sheet.talents.len() as u8;
        for talent in std::iter::once(None).chain((0..talents).map(Some)) {
            for &target in &targets[..n] {
                let Ok(r) = self.reach_why(f, talent, target) else { continue };
                if !r.decisive_only
                    && let Some(d) = r.duel
                    && duels_done & (1 << (d % 64)) == 0
                {
                    duels_done |= 1 << (d % 64);
                    out.push(Action::Regular { talent, target, roll: false, defence: None });
                }
                if let Some(t) = talent {
                    // The Talent's usual defence, then the GM's other possible picks.
                    let usual = me.sheet.talents[usize::from(t)].defence;
                    let picks = std::iter::once(None).chain(
                        DefenceKind::ALL
                            .into_iter()
                            .filter(|&k| k != usual && matches!(target, Target::Character(_)))
                            .map(Some),
                    );
                    for defence in picks {
                        if !r.decisive_only {
                            out.push(Action::Regular { talent: Some(t), target, roll: true, defence });
                        }
                        out.push(Action::Decisive { talent: t, target, defence });
                    }
                }
            }
        }
        self.advanced_actions(f, false, out);
    }

    /// Pushes the Advanced Actions `f` may use now (only those usable outside round order
    /// when `out_of_order`), without building error messages.
    fn advanced_actions(&self, f: u8, out_of_order: bool, out: &mut Vec<Action>) {
        let me = &self.fighters[usize::from(f)];
        for (t, talent) in me.sheet.talents.iter().enumerate() {
            for (a, adv) in talent.advanced.iter().enumerate() {
                if out_of_order && !adv.out_of_order {
                    continue;
                }
                let (t, a) = (t as u8, a as u8);
                match adv.effect {
                    AdvancedEffect::Heal { .. } => {
                        for (c, other) in self.fighters.iter().enumerate() {
                            if other.side == me.side
                                && other.region == me.region
                                && !other.absent
                                && other.hits > 0
                            {
                                out.push(Action::Advanced { talent: t, action: a, target: Some(c as u8) });
                            }
                        }
                    }
                    AdvancedEffect::ShiftFlow { .. } => {
                        if me.region.and_then(|r| self.duel_in(r)).is_some() {
                            out.push(Action::Advanced { talent: t, action: a, target: None });
                        }
                    }
                    AdvancedEffect::ChangeRegion { .. } => {
                        if me.region.is_some() {
                            out.push(Action::Advanced { talent: t, action: a, target: None });
                        }
                    }
                }
            }
        }
    }

    fn paths(
        &self,
        at: RegionId,
        seen: u16,
        stack: &mut [u8; 8],
        depth: usize,
        max: u8,
        out: &mut Vec<Action>,
    ) {
        if depth >= usize::from(max) {
            return;
        }
        for r in 0..self.effects.len() as u8 {
            if seen & (1 << r) == 0 && self.links.can_move(at, r) {
                stack[depth] = r;
                if let Some(path) = Path::new(&stack[..=depth]) {
                    out.push(Action::Move { path });
                }
                self.paths(r, seen | (1 << r), stack, depth + 1, max, out);
            }
        }
    }

    /// The closest possible alternative to an action made impossible (§5 step 6): another
    /// target in reach for the same attack, or the part of a Move still open.
    fn alternative(&self, f: u8, action: &Action) -> Option<Action> {
        match *action {
            Action::Move { path } => {
                let me = &self.fighters[usize::from(f)];
                me.region?;
                let regions = path.regions();
                (1..regions.len()).rev().find_map(|n| {
                    let p = Path::new(&regions[..n])?;
                    let a = Action::Move { path: p };
                    self.check_action(f, &a).is_ok().then_some(a)
                })
            }
            Action::Regular { .. } | Action::Decisive { .. } | Action::Advanced { .. } => {
                let mut all = Vec::new();
                self.actions(f, &mut all);
                let same_kind = |a: &Action| match (a, action) {
                    (Action::Regular { talent, roll, .. }, Action::Regular { talent: t2, roll: r2, .. }) => {
                        talent == t2 && roll == r2
                    }
                    (Action::Decisive { talent, .. }, Action::Decisive { talent: t2, .. }) => talent == t2,
                    (
                        Action::Advanced { talent, action, .. },
                        Action::Advanced { talent: t2, action: a2, .. },
                    ) => talent == t2 && action == a2,
                    _ => false,
                };
                all.into_iter().find(same_kind).map(|mut a| {
                    // Keep the GM's pick of defence.
                    match (&mut a, action) {
                        (Action::Regular { defence, .. }, Action::Regular { defence: d, .. })
                        | (Action::Decisive { defence, .. }, Action::Decisive { defence: d, .. }) => {
                            *defence = *d
                        }
                        _ => {}
                    }
                    a
                })
            }
            Action::Hold => None,
        }
    }

    /// The one form of an action the legal lists hold (so a checked replay finds it): an
    /// automatic Regular Attack is named by the first listed one into the same Duel, and a
    /// pick of the Talent's usual defence (or any pick against minions) is no pick.
    pub fn normalize(&self, f: u8, action: Action) -> Action {
        match action {
            Action::Regular { talent, target, roll: false, .. } => {
                let Ok(Reach { duel: Some(d), .. }) = self.reach_why(f, talent, target) else {
                    return action;
                };
                // The first automatic attack `actions` lists into Duel `d`.
                let me = &self.fighters[usize::from(f)];
                let talents = me.sheet.talents.len() as u8;
                let targets = self
                    .fighters
                    .iter()
                    .enumerate()
                    .filter(|(_, x)| x.side != me.side && x.engaged_capable())
                    .map(|(c, _)| Target::Character(c as u8))
                    .chain(
                        self.minions
                            .iter()
                            .enumerate()
                            .filter(|(_, m)| m.side != me.side && m.count > 0)
                            .map(|(g, _)| Target::Minions(g as u8)),
                    );
                for t in std::iter::once(None).chain((0..talents).map(Some)) {
                    for g in targets.clone() {
                        if let Ok(r) = self.reach_why(f, t, g)
                            && !r.decisive_only
                            && r.duel == Some(d)
                        {
                            return Action::Regular { talent: t, target: g, roll: false, defence: None };
                        }
                    }
                }
                action
            }
            Action::Regular { talent: Some(t), target, roll: true, defence: Some(k) } => {
                let usual =
                    self.fighters[usize::from(f)].sheet.talents.get(usize::from(t)).map(|x| x.defence);
                let defence = (Some(k) != usual && matches!(target, Target::Character(_))).then_some(k);
                Action::Regular { talent: Some(t), target, roll: true, defence }
            }
            Action::Decisive { talent, target, defence: Some(k) } => {
                let usual =
                    self.fighters[usize::from(f)].sheet.talents.get(usize::from(talent)).map(|x| x.defence);
                let defence = (Some(k) != usual && matches!(target, Target::Character(_))).then_some(k);
                Action::Decisive { talent, target, defence }
            }
            a => a,
        }
    }

    /// Whether `action` is an Advanced Action whose Skill allows it outside round order.
    fn out_of_order_allowed(&self, f: u8, action: &Action) -> bool {
        let Action::Advanced { talent, action: a, .. } = *action else { return false };
        self.fighters
            .get(usize::from(f))
            .and_then(|x| x.sheet.talents.get(usize::from(talent)))
            .and_then(|t| t.advanced.get(usize::from(a)))
            .is_some_and(|adv| adv.out_of_order)
    }

    /// Pushes the out-of-order Advanced Actions `f` may use now (§5 step 7).
    fn out_of_order_actions(&self, f: u8, out: &mut Vec<Command>) {
        let me = &self.fighters[usize::from(f)];
        if me.out_of_order_used || me.status != Status::Fighting || me.absent {
            return;
        }
        if !me.sheet.talents.iter().any(|t| t.advanced.iter().any(|a| a.out_of_order)) {
            return;
        }
        let mut all = Vec::new();
        self.advanced_actions(f, true, &mut all);
        out.extend(all.into_iter().map(|action| Command::OutOfOrder { character: f, action }));
    }

    /// Whether a fighter must declare this round.
    pub fn must_declare(&self, f: usize) -> bool {
        let x = &self.fighters[f];
        x.engaged_capable() && (!self.surprise_round || x.side == self.initiative)
    }

    /// Validates `command` from `seat` and pushes its events.
    pub fn decide(&self, seat: SeatId, command: &Command, events: &mut Vec<Event>) -> Result<(), RuleError> {
        if self.phase == Phase::Over {
            return Err(RuleError::Over);
        }
        let f = match *command {
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
            _ if pending.is_some() => Err(out_of_turn()),
            Command::OutOfOrder { action, .. } => {
                if !matches!(self.phase, Phase::Resolve { .. }) {
                    return Err(out_of_turn());
                }
                if me.out_of_order_used {
                    return Err(illegal(
                        self,
                        f,
                        "has already used an Advanced Action outside round order this round (§5 step 7)",
                    ));
                }
                if !self.out_of_order_allowed(f, &action) {
                    return Err(illegal(
                        self,
                        f,
                        "only an Advanced Action whose Skill allows it can be used outside round order (§5 step 7)",
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

    fn able(&self, side: u8) -> bool {
        self.fighters.iter().any(|f| f.side == side && f.status == Status::Fighting)
            || self.minions.iter().any(|m| m.side == side && m.count > 0)
    }

    fn over_check(&self) -> Option<Outcome> {
        if let Some(s) = self.strikes {
            for side in 0..2u8 {
                if s[usize::from(side)] == 0 {
                    return Some(Outcome {
                        winner: Some(1 - side),
                        why: format!("{} have no Strikes left (§10)", self.side_name(side)),
                    });
                }
            }
        }
        let (a, b) = (self.able(0), self.able(1));
        match (a, b) {
            (false, false) => Some(Outcome { winner: None, why: "nobody is left able to fight".into() }),
            (true, false) | (false, true) => {
                let loser = if a { 1 } else { 0 };
                Some(Outcome {
                    winner: Some(1 - loser),
                    why: format!("{} have nobody left able to fight", self.side_name(loser)),
                })
            }
            (true, true) => None,
        }
    }

    /// Round-one initiative (§5 step 3).
    fn first_initiative(&self) -> (u8, InitiativeWhy) {
        let mut nimble: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
        let mut talent = [0u8; 2];
        for f in self.fighters.iter().filter(|f| f.engaged_capable()) {
            nimble[usize::from(f.side & 1)].push(f.sheet.abilities.nimbleness);
            talent[usize::from(f.side & 1)] =
                talent[usize::from(f.side & 1)].max(f.sheet.best_nimbleness_talent());
        }
        initiative_order(&nimble, talent).unwrap_or_else(|| {
            let mut rng = self.dice();
            use rand::RngExt;
            (rng.random_range(0..2u8), InitiativeWhy::Coin)
        })
    }

    /// The next step the rules take by themselves.
    pub fn automatic(&self) -> Option<Event> {
        if self.phase == Phase::Over {
            return None;
        }
        if let Some(&p) = self.pending.first() {
            return match p {
                Pending::ExtraAction(c) if self.fighters[usize::from(c)].status != Status::Fighting => {
                    Some(Event::ExtraActionLost { character: c })
                }
                _ => None,
            };
        }
        if let Some(outcome) = self.over_check() {
            return Some(Event::SceneOver { outcome });
        }
        match self.phase {
            Phase::Between => {
                if let Some(max) = self.setup.options.max_rounds
                    && self.round >= max
                {
                    return Some(Event::SceneOver {
                        outcome: Outcome { winner: None, why: format!("the scene ends after {max} rounds") },
                    });
                }
                let round = self.round + 1;
                let surprise = if round == 1 {
                    self.setup.surprise.as_ref().and_then(|s| self.setup.sides.iter().position(|x| x == s))
                } else {
                    None
                };
                let (initiative, why) = match surprise {
                    Some(s) => (s as u8, InitiativeWhy::Surprise),
                    None if round == 1 => self.first_initiative(),
                    None => {
                        let [a, b] = self.round_crisis;
                        if a < b {
                            (0, InitiativeWhy::LeastCrisis)
                        } else if b < a {
                            (1, InitiativeWhy::LeastCrisis)
                        } else {
                            (self.initiative, InitiativeWhy::Kept)
                        }
                    }
                };
                let anyone = self
                    .fighters
                    .iter()
                    .any(|f| f.engaged_capable() && (surprise.is_none() || f.side == initiative));
                if !anyone && surprise.is_none() {
                    return Some(Event::SceneOver {
                        outcome: Outcome { winner: None, why: "nobody on the map can act".into() },
                    });
                }
                Some(Event::RoundStarted { round, initiative, surprise: surprise.is_some(), why })
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

    /// Pushes the legal commands of `seat`.
    pub fn legal_commands(&self, seat: SeatId, out: &mut Vec<Command>) {
        if self.phase == Phase::Over {
            return;
        }
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
        match event {
            Event::RoundStarted { round, initiative, surprise, .. } => {
                self.round = *round;
                self.initiative = *initiative;
                self.surprise_round = *surprise;
                self.round_crisis = [0; 2];
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
            Event::Started { .. } | Event::Wasted { .. } | Event::MinionsIdle { .. } => {}
            Event::Acted { character } | Event::Skipped { character } => {
                if let Some(f) = self.fighters.get_mut(usize::from(*character)) {
                    f.acted = true;
                }
            }
            Event::Rolled { rng_pos, .. } => {
                self.rng_pos = *rng_pos;
            }
            Event::Moved { character, path } => {
                if let Some(f) = self.fighters.get_mut(usize::from(*character)) {
                    f.region = path.last().or(f.region);
                }
            }
            Event::CrisisAdded { amount, side, total } => {
                self.crisis = *total;
                if let Some(s) = side {
                    self.round_crisis[usize::from(s & 1)] += amount;
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
                    d.members |= members;
                } else {
                    self.duels.push(crate::scene::Duel {
                        region: *region,
                        flow: *flow,
                        active: true,
                        members: *members,
                        merged_from: Vec::new(),
                    });
                }
                let n = self.fighters.len();
                let mut rest = *members;
                while rest != 0 {
                    let bit = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    self.set_duel(bit, n, *duel);
                }
            }
            Event::DuelJoined { duel, combatant } => {
                if let Some(d) = self.duels.get_mut(usize::from(*duel)) {
                    d.members |= 1 << combatant;
                }
                let n = self.fighters.len();
                self.set_duel(usize::from(*combatant), n, *duel);
            }
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
            Event::TriggerFired { trigger, .. } => {
                if let Some(n) = self.fired.get_mut(usize::from(*trigger)) {
                    *n += 1;
                }
            }
            Event::ExtraActionGranted { character } => self.pending.push(Pending::ExtraAction(*character)),
            Event::OutOfOrderTaken { character } => {
                if let Some(f) = self.fighters.get_mut(usize::from(*character)) {
                    f.out_of_order_used = true;
                }
            }
            Event::ExtraActionLost { character } | Event::ExtraActionTaken { character } => {
                self.pending.retain(|p| *p != Pending::ExtraAction(*character));
            }
            Event::RoundEnded { .. } => {
                self.phase = Phase::Between;
            }
            Event::SceneOver { outcome } => {
                self.phase = Phase::Over;
                self.pending.clear();
                self.outcome = Some(outcome.clone());
            }
        }
    }

    fn set_duel(&mut self, bit: usize, fighters: usize, duel: u16) {
        if bit < fighters {
            self.fighters[bit].duel = Some(duel);
        } else if let Some(m) = self.minions.get_mut(bit - fighters) {
            m.duel = Some(duel);
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

/// Resolution on a scratch copy of the scene: each event is applied as it is pushed, so the
/// next rule sees its effect.
struct Emit<'a> {
    s: Scene,
    out: &'a mut Vec<Event>,
    fired_now: u64,
    rng: Option<table::TableRng>,
}

impl<'a> Emit<'a> {
    fn new(scene: &Scene, out: &'a mut Vec<Event>) -> Emit<'a> {
        Emit { s: scene.clone(), out, fired_now: 0, rng: None }
    }

    fn push(&mut self, e: Event) {
        self.s.apply(&e);
        self.out.push(e);
    }

    fn roll(&mut self, who: Who, purpose: Purpose, pool: &Pool, advantage: i32) -> i32 {
        let rng = self.rng.get_or_insert_with(|| self.s.dice());
        let roll = dice::roll(rng, pool, advantage, self.s.setup.options.advantage);
        let total = roll.total;
        let rng_pos = rng.get_word_pos();
        self.push(Event::Rolled { who, purpose, roll, rng_pos });
        total
    }

    fn reconcile(&mut self) {
        let mut ev = Vec::new();
        crate::duel::reconcile(&self.s, &mut ev);
        for e in ev {
            self.push(e);
        }
    }

    fn move_flow(&mut self, duel: u16, toward: u8, amount: i32) {
        if amount == 0 {
            return;
        }
        let by = if toward == self.s.positive { amount } else { -amount };
        let flow = self.s.duels[usize::from(duel)].flow.saturating_add(by);
        self.push(Event::FlowMoved { duel, by, flow });
    }

    fn add_crisis(&mut self, amount: u32, side: Option<u8>) {
        if amount == 0 || self.s.phase == Phase::Over {
            return;
        }
        let total = self.s.crisis.saturating_add(amount);
        self.push(Event::CrisisAdded { amount, side, total });
        self.fire_triggers();
    }

    /// Fires every trigger whose threshold the pool has reached, lowest threshold first (then
    /// file order); each trigger fires at most once per action (Decision: no endless chains).
    fn fire_triggers(&mut self) {
        loop {
            if self.s.phase == Phase::Over {
                return;
            }
            let setup = self.s.setup.clone();
            let next = setup
                .triggers
                .iter()
                .enumerate()
                .filter(|(i, _)| self.fired_now & (1 << i) == 0)
                .filter_map(|(i, t)| {
                    let n = self.s.fired[i];
                    let at = match t.every {
                        Some(e) => t.at.checked_add(n.checked_mul(e)?)?,
                        None if n == 0 => t.at,
                        None => return None,
                    };
                    (at <= self.s.crisis).then_some((at, i))
                })
                .min();
            let Some((at, i)) = next else { return };
            self.fired_now |= 1 << i;
            self.push(Event::TriggerFired { trigger: i as u16, at });
            self.trigger_effect(&setup.triggers[i].effect, setup.triggers[i].note.clone());
        }
    }

    fn trigger_effect(&mut self, effect: &TriggerEffect, note: String) {
        match effect {
            TriggerEffect::MinionsAttack { group } => {
                if let Some(g) = self.s.find_minions(group) {
                    self.minion_attack(g);
                }
            }
            TriggerEffect::ExtraAction { character } => {
                if let Some(c) = self.s.find_fighter(character) {
                    if self.s.fighters[usize::from(c)].status == Status::Fighting {
                        self.push(Event::ExtraActionGranted { character: c });
                    } else {
                        self.push(Event::ExtraActionLost { character: c });
                    }
                }
            }
            TriggerEffect::Reinforce { group, count } => {
                if let Some(g) = self.s.find_minions(group) {
                    self.push(Event::MinionsArrived { group: g, count: *count });
                    self.reconcile();
                }
            }
            TriggerEffect::ChangeRegion { region, effect } => {
                if let Some(r) = self.s.find_region(region) {
                    self.push(Event::RegionChanged { region: r, effect: effect.clone() });
                }
            }
            TriggerEffect::Hazard { region, hits } => {
                if let Some(r) = self.s.find_region(region) {
                    for c in 0..self.s.fighters.len() {
                        let f = &self.s.fighters[c];
                        if f.engaged_capable() && f.region == Some(r) {
                            self.wound(c as u8, u32::from(*hits));
                        }
                    }
                    for g in 0..self.s.minions.len() {
                        let m = &self.s.minions[g];
                        if m.region == r && m.count > 0 && *hits > 0 {
                            self.push(Event::MinionsKilled { group: g as u8, killed: m.count, left: 0 });
                        }
                    }
                    self.reconcile();
                }
            }
            TriggerEffect::Note => {}
            TriggerEffect::EndScene { winner } => {
                let winner = winner
                    .as_ref()
                    .and_then(|w| self.s.setup.sides.iter().position(|s| s == w))
                    .map(|s| s as u8);
                let why = if note.is_empty() { "a Crisis Trigger ends the scene".to_owned() } else { note };
                self.push(Event::SceneOver { outcome: Outcome { winner, why } });
            }
        }
    }

    /// A minion group's one Regular Attack (§7.4): the best attack it has, against the enemy
    /// in its Duel whose defence is easiest (the highest Resistance Difficulty), with 1
    /// Advantage per minion outnumbering the opponents (Disadvantage when outnumbered).
    fn minion_attack(&mut self, g: u8) {
        let m = &self.s.minions[usize::from(g)];
        let (region, side, count) = (m.region, m.side, m.count);
        let stats = m.stats.clone();
        let Some(duel) = self.s.duel_in(region).filter(|_| count > 0) else {
            self.push(Event::MinionsIdle { group: g });
            return;
        };
        let enemy = 1 - side;
        let rd = self
            .s
            .fighters
            .iter()
            .filter(|f| f.engaged_capable() && f.region == Some(region) && f.side == enemy)
            .map(|f| f.sheet.defences.get(stats.attack.defence).rd)
            .chain(
                self.s
                    .minions
                    .iter()
                    .filter(|o| o.region == region && o.side == enemy && o.count > 0)
                    .map(|o| o.stats.rd),
            )
            .max()
            .unwrap_or(0);
        let opponents = self.s.count_side(region, enemy);
        let advantage =
            minion_advantage(count, opponents) + self.s.effects[usize::from(region)].attack_advantage;
        let pool = talent_pool(stats.attack.level, &[], stats.attack.modifier, rd);
        let total = self.roll(Who::Minions(g), Purpose::Regular, &pool, advantage);
        let out = regular_roll(total);
        self.move_flow(duel, side, out.flow);
        self.add_crisis(out.crisis, Some(side));
    }

    fn wound(&mut self, c: u8, hits: u32) {
        if hits == 0 {
            return;
        }
        let f = &self.s.fighters[usize::from(c)];
        if self.s.setup.kind == SceneKind::NonViolent {
            let side = f.side;
            if let Some(s) = self.s.strikes {
                let left = s[usize::from(side & 1)].saturating_sub(hits);
                self.push(Event::StrikesLost { side, strikes: hits, left });
            }
            return;
        }
        let max = f.sheet.max_hits;
        let total = (u32::from(f.hits) + hits).min(u32::from(max)) as u8;
        let taken = total - f.hits;
        let fighting = f.status == Status::Fighting;
        self.push(Event::Wounded { character: c, hits: taken, total });
        if total >= max && fighting {
            self.push(Event::Incapacitated { character: c });
        }
    }

    /// Resolves an action (declared or extra): the closest alternative when it became
    /// impossible, else wasted without Crisis (§5 step 6).
    fn resolve(&mut self, f: u8, declared: Action) {
        let (action, substituted) = if self.s.check_action(f, &declared).is_ok() {
            (declared, false)
        } else if let Some(alt) = self.s.alternative(f, &declared) {
            (alt, true)
        } else {
            let why = match self.s.check_action(f, &declared) {
                Err(e) => e.to_string(),
                Ok(()) => String::new(),
            };
            self.push(Event::Wasted { character: f, why });
            return;
        };
        self.push(Event::Started { character: f, action, substituted });
        let side = self.s.fighters[usize::from(f)].side;
        match action {
            Action::Hold => {}
            Action::Move { path } => self.do_move(f, path),
            Action::Regular { talent, target, roll, defence } => {
                let Ok(reach) = self.s.reach_why(f, talent, target) else { return };
                let Some(duel) = reach.duel else { return };
                let (out, reduction) = if roll {
                    let Some(t) = talent else { return };
                    let (pool, reduction) = self.attack_pool(f, t, target, defence);
                    let total = self.roll(Who::Character(f), Purpose::Regular, &pool, reach.advantage);
                    (regular_roll(total), reduction)
                } else {
                    let reduction = talent.map_or(0, |t| self.talent_of(f, t).skills.crisis_reduction);
                    (regular_automatic(), reduction)
                };
                self.move_flow(duel, side, out.flow);
                self.add_crisis(out.crisis.saturating_sub(reduction), Some(side));
            }
            Action::Decisive { talent, target, defence } => self.do_decisive(f, talent, target, defence),
            Action::Advanced { talent, action, target } => {
                let adv = self.talent_of(f, talent).advanced[usize::from(action)].clone();
                match adv.effect {
                    AdvancedEffect::Heal { hits } => {
                        let c = target.unwrap_or(f);
                        let other = &self.s.fighters[usize::from(c)];
                        let healed = hits.min(other.hits);
                        let revived = other.status == Status::Incapacitated && healed > 0;
                        self.push(Event::Healed { character: c, hits: healed, revived });
                        self.reconcile();
                    }
                    AdvancedEffect::ShiftFlow { amount } => {
                        if let Some(d) =
                            self.s.fighters[usize::from(f)].region.and_then(|r| self.s.duel_in(r))
                        {
                            self.move_flow(d, side, amount);
                        }
                    }
                    AdvancedEffect::ChangeRegion { effect } => {
                        if let Some(r) = self.s.fighters[usize::from(f)].region {
                            self.push(Event::RegionChanged { region: r, effect });
                        }
                    }
                }
                self.add_crisis(adv.crisis, Some(side));
            }
        }
    }

    fn talent_of(&self, f: u8, t: u8) -> &Talent {
        &self.s.fighters[usize::from(f)].sheet.talents[usize::from(t)]
    }

    /// A Talent Roll's pool against a target (§3.2): level dice, Skill modifiers where their
    /// context applies, and the target defence's Resistance Difficulty in d6. Returns the
    /// Crisis reduction of the Talent's Skills too.
    fn attack_pool(&self, f: u8, t: u8, target: Target, defence: Option<DefenceKind>) -> (Pool, u32) {
        let talent = self.talent_of(f, t);
        let rd = match target {
            Target::Character(c) => {
                self.s.fighters[usize::from(c)].sheet.defences.get(defence.unwrap_or(talent.defence)).rd
            }
            Target::Minions(g) => self.s.minions[usize::from(g)].stats.rd,
        };
        let applies = matches!(
            (talent.skills.context, self.s.setup.kind),
            (Context::Any, _)
                | (Context::Combat, SceneKind::Combat)
                | (Context::NonViolent, SceneKind::NonViolent)
        );
        let pool = if applies {
            talent_pool(talent.level, &talent.skills.bonus_dice, talent.skills.modifier, rd)
        } else {
            talent_pool(talent.level, &[], 0, rd)
        };
        (pool, talent.skills.crisis_reduction)
    }

    fn do_decisive(&mut self, f: u8, t: u8, target: Target, defence: Option<DefenceKind>) {
        let Ok(reach) = self.s.reach_why(f, Some(t), target) else { return };
        let side = self.s.fighters[usize::from(f)].side;
        let level = i32::from(self.talent_of(f, t).level);
        let (pool, reduction) = self.attack_pool(f, t, target, defence);
        let attack = self.roll(Who::Character(f), Purpose::Decisive, &pool, reach.advantage);
        let flow_or_level = match (reach.uses_flow, reach.duel) {
            (true, Some(d)) => flow_for(self.s.duels[usize::from(d)].flow, side == self.s.positive),
            _ => level,
        };
        let rule = self.s.setup.options.extra_hits;
        let shift_rv = match target {
            Target::Character(c) => {
                let sheet = self.s.fighters[usize::from(c)].sheet.clone();
                let kind = defence.unwrap_or(self.talent_of(f, t).defence);
                let def = sheet.defences.get(kind);
                let region = self.s.fighters[usize::from(c)].region;
                let mut protection = def.protection.clone();
                if let Some(r) = region {
                    protection.extend_from_slice(&self.s.effects[usize::from(r)].protection);
                }
                let (_, ability) = sheet.defence_ability(kind);
                let def_roll =
                    self.roll(Who::Character(c), Purpose::Defence, &defence_pool(ability, &protection), 0);
                let dv = defence_value(i32::from(def.rv), flow_or_level);
                let hits = decisive_hits(attack, def_roll, dv, def.rv, rule);
                self.wound(c, hits);
                def.rv
            }
            Target::Minions(g) => {
                let m = &self.s.minions[usize::from(g)];
                let (stats, count, region) = (m.stats.clone(), m.count, m.region);
                let mut protection = stats.protection.clone();
                protection.extend_from_slice(&self.s.effects[usize::from(region)].protection);
                let def_roll = self.roll(
                    Who::Minions(g),
                    Purpose::Defence,
                    &defence_pool(stats.defence_level, &protection),
                    0,
                );
                // No Resistance Value when defending; excess carries over (§7.4).
                let dv = defence_value(0, flow_or_level);
                let kills = decisive_hits(attack, def_roll, dv, stats.rv, rule).min(count);
                if kills > 0 {
                    self.push(Event::MinionsKilled { group: g, killed: kills, left: count - kills });
                }
                stats.rv
            }
        };
        // Regardless of success: the Flow moves half the RV away from the attacker (ranged
        // Decisive Attacks leave the Flow alone, Decision), and Crisis +2.
        if reach.uses_flow
            && let Some(d) = reach.duel
        {
            self.move_flow(d, 1 - side, decisive_flow_shift(shift_rv));
        }
        self.reconcile();
        self.add_crisis(DECISIVE_CRISIS.saturating_sub(reduction), Some(side));
    }

    fn do_move(&mut self, f: u8, path: Path) {
        let me = &self.s.fighters[usize::from(f)];
        let Some(start) = me.region else { return };
        let side = me.side;
        let nimbleness = me.sheet.abilities.nimbleness;
        let leaving_duel = self.s.duel_in(start).is_some();
        let mut entered = [0u8; 8];
        let mut n = 0;
        let mut crisis = 0;
        for &r in path.regions() {
            let effect = &self.s.effects[usize::from(r)];
            let per = effect.move_crisis.unwrap_or(MOVE_CRISIS);
            if let Some(difficulty) = effect.obstacle {
                let total =
                    self.roll(Who::Character(f), Purpose::Obstacle, &ability_pool(nimbleness, difficulty), 0);
                if total < dice::TARGET {
                    break;
                }
            }
            entered[n] = r;
            n += 1;
            crisis += per;
        }
        let Some(moved) = Path::new(&entered[..n]).filter(|p| !p.regions().is_empty()) else {
            return;
        };
        self.push(Event::Moved { character: f, path: moved });
        self.reconcile();
        if leaving_duel {
            crisis += LEAVE_DUEL_CRISIS;
        }
        self.add_crisis(crisis, Some(side));
    }
}

/// Re-exported for the calculator: the arithmetic lives in [`attack`].
pub use attack::RegularOutcome;
