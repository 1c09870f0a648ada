//! The scene (rules reference §5, §6, §8, §10): its setup file, and the state the rules
//! work on — fighters, minion groups, Regions, Duels, the Crisis pool, triggers, rounds.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use table::{Draws, Role, Sealed, Seat, SeatError, SeatId, Seats, SideId};
use thiserror::Error;

use crate::attack::ExtraHits;
use crate::character::{AdvancedEffect, MinionStats, Sheet, SheetError};
use crate::dice::AdvantageRule;
use crate::map::{Links, Region, RegionEffect, RegionId, link, unlink};
use crate::rules::Action;

/// The largest a minion group can grow (reinforcements stop there).
pub const MAX_MINIONS: u32 = 1000;

/// The round limit a shell (`play`, a session) applies when neither its user nor the scene
/// file sets one, so that a game of bots always ends (the rules end a scene by a narrative
/// decision, §5 step 9, which bots never take).
pub const DEFAULT_ROUND_LIMIT: u32 = 100;

/// The most Crisis Triggers a scene file may set, and the most Skills may add in a scene.
pub const MAX_TRIGGERS: usize = 64;

/// A combat or a non-violent conflict (§10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SceneKind {
    /// A Combat scene: each character has Max Hits; a side with nobody able to fight loses.
    #[default]
    Combat,
    /// A non-violent conflict: hits remove the side's Strikes; a side with none left loses.
    NonViolent,
}

/// Rules options: every Decision that has a live alternative is switchable here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// How Advantage and Disadvantage work (§3.3).
    #[serde(default)]
    pub advantage: AdvantageRule,
    /// How extra hits are counted (rules reference Q4).
    #[serde(default)]
    pub extra_hits: ExtraHits,
    /// The difficulty, in d6, of Ability Rolls whose target the core rules do not give: keep
    /// fighting, Simple Obstacles without their own number (§3.2; default 4).
    #[serde(default = "default_ability_dice")]
    pub ability_dice: u8,
    /// End the scene after this many rounds (the end is otherwise a narrative decision).
    #[serde(default)]
    pub max_rounds: Option<u32>,
}

fn default_ability_dice() -> u8 {
    4
}

impl Default for Options {
    fn default() -> Self {
        Options {
            advantage: AdvantageRule::default(),
            extra_hits: ExtraHits::default(),
            ability_dice: default_ability_dice(),
            max_rounds: None,
        }
    }
}

/// A seat in the scene file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatSpec {
    /// Its name.
    pub name: String,
    /// The side it plays for (one of the scene's two side names).
    pub side: String,
    /// Whether it is the GM's seat.
    #[serde(default)]
    pub gm: bool,
}

/// A character in the scene file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CharacterSpec {
    /// The seat that plays it; its side is the seat's.
    pub seat: String,
    /// Where it starts (required unless absent).
    #[serde(default)]
    pub region: Option<String>,
    /// Not physically present: no place in the rounds; acts on Crisis Triggers (§10).
    #[serde(default)]
    pub absent: bool,
    /// Its sheet.
    pub sheet: Sheet,
}

/// A group of minions in the scene file (§7.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinionSpec {
    /// The side it fights for.
    pub side: String,
    /// Where it stands.
    pub region: String,
    /// How many.
    pub count: u32,
    /// The stat block (its name names the group).
    pub stats: MinionStats,
}

/// What a Crisis Trigger does (§8). Names refer to the scene file's groups, characters and
/// Regions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TriggerEffect {
    /// A minion group makes its one Regular Attack (§7.4).
    MinionsAttack {
        /// The group.
        group: String,
    },
    /// A major NPC (or an absent opponent) takes an extra action at once (§5 step 7, §10).
    ExtraAction {
        /// The character.
        character: String,
    },
    /// Reinforcements join a minion group.
    Reinforce {
        /// The group.
        group: String,
        /// How many arrive.
        count: u32,
    },
    /// A Region's effect changes (the tavern bar catches fire).
    ChangeRegion {
        /// The Region.
        region: String,
        /// Its new effect.
        effect: RegionEffect,
    },
    /// A hazard wounds everyone in a Region (minions there die).
    Hazard {
        /// The Region.
        region: String,
        /// Hits dealt to each character.
        hits: u8,
    },
    /// Only the trigger's note (a timer ticking, a clue found).
    Note,
    /// A narrative timer runs out and ends the scene (the escape opens, the laser fires).
    EndScene {
        /// The side that wins, if any.
        #[serde(default)]
        winner: Option<String>,
    },
}

/// Rising Tension, the GM's resource (§10, rules reference open question 14): its definition
/// is missing from every source we could read, so it is GM-editable scene data. Its one known
/// use is making the sides' Strikes unequal in a non-violent conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RisingTension {
    /// The GM's Rising Tension at the start of the scene (default 0: how it is gained is
    /// missing, so the GM writes it down).
    #[serde(default)]
    pub pool: u32,
    /// The Rising Tension one Strike of difference between the sides costs (default 1, a
    /// placeholder: the real price is missing).
    #[serde(default = "one")]
    pub per_strike: u32,
}

fn one() -> u32 {
    1
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The most Crisis a scene may start with.
pub const MAX_CRISIS_START: u32 = 1_000_000;

impl Default for RisingTension {
    fn default() -> Self {
        RisingTension { pool: 0, per_strike: 1 }
    }
}

impl RisingTension {
    /// What making the sides' Strikes `strikes` costs: the difference times `per_strike`
    /// (equal Strikes cost nothing, §10).
    pub fn cost(&self, strikes: [u32; 2]) -> u64 {
        u64::from(strikes[0].abs_diff(strikes[1])) * u64::from(self.per_strike)
    }
}

/// A faction in a scene with three or more (§6). A Duel has at most two sides, so the scene's
/// two `sides` are the two camps every Duel is fought between, and each faction fights in one
/// of them: the factions sharing a camp are the GM's declared temporary alliance. When the
/// other camp is beaten (nobody in it able to fight), the alliance ends: the first-listed
/// surviving faction of the alliance keeps its camp and the others take the beaten camp, so
/// they go on to fight each other (Decision: the seed says two factions "must" ally but not
/// which; the GM chooses by this list).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactionSpec {
    /// Its name; seats and minion groups name it as their `side`.
    pub name: String,
    /// The camp (one of the scene's two `sides`) it fights in while allied.
    pub side: String,
}

/// A Crisis Trigger in the scene file (§8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TriggerSpec {
    /// The Crisis at which it first fires.
    pub at: u32,
    /// Fires again every this much Crisis after `at` (at least 1).
    #[serde(default)]
    pub every: Option<u32>,
    /// What it means, for the log.
    #[serde(default)]
    pub note: String,
    /// What it does.
    pub effect: TriggerEffect,
}

/// A scene file: everything needed to start a Combat scene or a non-violent conflict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// The scene's title.
    pub title: String,
    /// Combat or non-violent.
    #[serde(default)]
    pub kind: SceneKind,
    /// The seed of the scene's dice.
    #[serde(default)]
    pub seed: u64,
    /// The names of the two sides (a Duel has exactly two, §6). With `factions`, the two camps.
    pub sides: [String; 2],
    /// Three or more factions (§6): each fights in one of the two sides, allied with the
    /// others there until the other side is beaten. Empty: the two sides are the factions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub factions: Vec<FactionSpec>,
    /// The side whose Regular Attacks add to the Flow (default: the first side, §6).
    #[serde(default)]
    pub positive_side: Option<String>,
    /// A side that surprised the other plays one whole round alone first (§5 step 2).
    #[serde(default)]
    pub surprise: Option<String>,
    /// The seats.
    pub seats: Vec<SeatSpec>,
    /// The Regions, 3–5 for a combat (1–5 for a non-violent conflict).
    pub regions: Vec<Region>,
    /// Adjacent pairs.
    #[serde(default)]
    pub adjacent: Vec<[String; 2]>,
    /// Adjacent pairs nobody can move between.
    #[serde(default)]
    pub movement_blocked: Vec<[String; 2]>,
    /// Adjacent pairs without line of sight (adjacent Regions see each other otherwise).
    #[serde(default)]
    pub sight_blocked: Vec<[String; 2]>,
    /// Pairs of Regions that are not adjacent but see each other, for Talents whose Ranged
    /// upgrade reaches farther (`skills.range`; default none: only adjacent Regions see each
    /// other, §7.3 [MISSING] as data).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sight: Vec<[String; 2]>,
    /// The Crisis the scene starts with (default 0). The rules for Crisis in Action scenes,
    /// and whether it carries into a Combat, are missing (§8 [MISSING]): a GM who carries
    /// Crisis in from an Action scene writes it here. Triggers at or below it fire with the
    /// first Crisis added.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub crisis_start: u32,
    /// A rule to derive the defences a sheet leaves out from its Abilities (§4.3 [MISSING]:
    /// GM-chosen data, not the book's formula; default none, so every sheet gives its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived_defences: Option<crate::character::DefenceFormula>,
    /// The characters: player characters and major NPCs.
    pub characters: Vec<CharacterSpec>,
    /// Minion groups.
    #[serde(default)]
    pub minions: Vec<MinionSpec>,
    /// Crisis Triggers.
    #[serde(default)]
    pub triggers: Vec<TriggerSpec>,
    /// Strikes per side, in side order (required for a non-violent conflict, §10). Unequal
    /// Strikes cost the GM Rising Tension.
    #[serde(default)]
    pub strikes: Option<[u32; 2]>,
    /// The GM's Rising Tension (§10, open question 14): GM-editable data.
    #[serde(default)]
    pub rising_tension: RisingTension,
    /// Rules options.
    #[serde(default)]
    pub options: Options,
}

/// Why a scene cannot start.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SetupError {
    /// A bad sheet.
    #[error(transparent)]
    Sheet(#[from] SheetError),
    /// Bad seats.
    #[error(transparent)]
    Seat(#[from] SeatError),
    /// A name that is not in the scene.
    #[error("{field}: there is no {what} named {name:?}")]
    Unknown {
        /// The field.
        field: String,
        /// What kind of thing.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// A wrong number of Regions.
    #[error("a {kind} has {min} to 5 Regions; this one has {count}")]
    RegionCount {
        /// Combat or non-violent.
        kind: &'static str,
        /// The least allowed.
        min: usize,
        /// How many there are.
        count: usize,
    },
    /// Two things share a name.
    #[error("two {what} are named {name:?}")]
    Duplicate {
        /// What kind of thing.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// Anything else, in words.
    #[error("{0}")]
    Invalid(String),
}

/// A character's state in the fight (§9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Able to act.
    Fighting,
    /// At Max Hits: conscious but cannot meaningfully act.
    Incapacitated,
}

/// A player character or major NPC in the scene.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fighter {
    /// The sheet.
    pub sheet: Arc<Sheet>,
    /// The seat that plays it.
    pub seat: SeatId,
    /// Its side (0 or 1).
    pub side: u8,
    /// Its faction (an index into the scene file's `factions`), in a scene with factions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faction: Option<u8>,
    /// Where it is (`None` when absent).
    pub region: Option<RegionId>,
    /// Not physically present (§10).
    pub absent: bool,
    /// Hits taken.
    pub hits: u8,
    /// Death Hits marked (§9).
    pub death_hits: u8,
    /// Fighting or Incapacitated.
    pub status: Status,
    /// Failed the keep-fighting roll: must die before the next Action or Conflict scene (§9).
    pub doomed: bool,
    /// This round's declaration, face down until all have declared.
    pub declared: Sealed<Action>,
    /// Whether its declared action has been resolved this round.
    pub acted: bool,
    /// Its current Duel, or the last one it was in.
    pub duel: Option<u16>,
    /// Whether it has used an Advanced Action outside round order this round.
    pub out_of_order_used: bool,
}

impl Fighter {
    /// Its wounds, for the rules of [`crate::wounds`] (§9).
    pub fn wounds(&self) -> crate::wounds::Wounds {
        crate::wounds::Wounds {
            hits: self.hits,
            max_hits: self.sheet.max_hits,
            death_hits: self.death_hits,
            incapacitated: self.status == Status::Incapacitated,
            doomed: self.doomed,
        }
    }

    /// Whether it can act and be fought: fighting and present.
    pub fn engaged_capable(&self) -> bool {
        self.status == Status::Fighting && !self.absent && self.region.is_some()
    }
}

/// A minion group in the scene (§7.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Minions {
    /// The stat block.
    pub stats: Arc<MinionStats>,
    /// Its side.
    pub side: u8,
    /// Its faction, in a scene with factions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faction: Option<u8>,
    /// Where it stands.
    pub region: RegionId,
    /// How many are left.
    pub count: u32,
    /// Its current or last Duel.
    pub duel: Option<u16>,
}

/// A Duel (§6): everyone of both sides in one Region, with its Flow of Battle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Duel {
    /// Its Region.
    pub region: RegionId,
    /// The Flow of Battle, in the positive side's frame.
    pub flow: i32,
    /// Whether it is being fought now; an inactive Duel keeps its Flow for a re-engagement.
    pub active: bool,
    /// Every combatant who fought in it, by the side it fought on (bit `i`: fighter `i`; bit
    /// `fighters + j`: minion group `j`): its Flow belongs to these enemies (§6, Decision on
    /// alliances).
    pub sides: [u64; 2],
    /// The Duels already combined into this one (a Duel is combined only once, §6).
    pub merged_from: Vec<u16>,
}

impl Duel {
    /// Every combatant who fought in it, on either side.
    pub fn members(&self) -> u64 {
        self.sides[0] | self.sides[1]
    }
}

/// A decision the scene waits for in the middle of a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pending {
    /// An Incapacitated character chooses whether to roll to keep fighting (§9).
    KeepFighting(u8),
    /// A character takes an extra action a Crisis Trigger gave it (§8).
    ExtraAction(u8),
}

/// Where the scene is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Before a round starts.
    Between,
    /// Everyone declares face down (§5 step 5).
    Declare,
    /// A side resolves its actions in the order it chooses (§5 step 6).
    Resolve {
        /// The side resolving.
        side: u8,
    },
    /// The scene is over.
    Over,
}

/// How the scene ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The winning side, if any.
    pub winner: Option<u8>,
    /// Why, in words.
    pub why: String,
    /// Whether the GM ended the scene by [`crate::Command::EndScene`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_gm: bool,
    /// The round limit that stopped the scene (`options.max_rounds`), if that is why it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_limit: Option<u32>,
}

impl Outcome {
    /// An end the rules reach by themselves (not the GM's call).
    pub fn new(winner: Option<u8>, why: impl Into<String>) -> Outcome {
        Outcome { winner, why: why.into(), by_gm: false, round_limit: None }
    }
}

/// The whole state of a scene, hidden declarations included.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scene {
    /// The setup it started from.
    pub setup: Arc<Setup>,
    /// The seats.
    pub seats: Arc<Seats>,
    /// The map's links.
    pub links: Arc<Links>,
    /// Each Region's current effect.
    pub effects: Arc<Vec<RegionEffect>>,
    /// The characters.
    pub fighters: Vec<Fighter>,
    /// The minion groups.
    pub minions: Vec<Minions>,
    /// Every Duel, active or saved.
    pub duels: Vec<Duel>,
    /// The scene's Crisis pool (§8).
    pub crisis: u32,
    /// Crisis each side generated this round (for initiative, §5 step 4).
    pub round_crisis: [u32; 2],
    /// How often each trigger has fired: the scene file's, then those added in the scene.
    pub fired: Vec<u32>,
    /// Crisis Triggers characters added with their Skills (§8), thresholds made absolute;
    /// trigger number `setup.triggers.len() + i`.
    #[serde(default)]
    pub added_triggers: Vec<TriggerSpec>,
    /// The round number: 0 before the first round; a surprise round is round 1.
    pub round: u32,
    /// Whether this round is a surprise round.
    pub surprise_round: bool,
    /// The side with the initiative this round.
    pub initiative: u8,
    /// Where the scene is.
    pub phase: Phase,
    /// Strikes left per side (non-violent conflict).
    pub strikes: Option<[u32; 2]>,
    /// The positive side of every Flow (§6).
    pub positive: u8,
    /// Decisions the round waits for, oldest first.
    pub pending: Vec<Pending>,
    /// The scene's draw source (its dice and initiative lots), seeded with the setup's
    /// `seed`: the only randomness of the rules. Every draw's new position is in its event.
    pub draws: Draws,
    /// The active Duel of each Region (an index into `duels`), kept by `apply`.
    pub duel_at: [Option<u16>; 5],
    /// How the scene ended.
    pub outcome: Option<Outcome>,
    /// The GM's Rising Tension left (after paying for unequal Strikes, §10).
    #[serde(default)]
    pub rising_tension: u32,
    /// The Crisis Triggers fired in the current chain: an action and the extra actions it sets
    /// off. Each fires at most once in a chain, so chains always end (Decision 10); a repeating
    /// trigger that fell behind catches up one firing per chain. Kept by `apply`: a chain
    /// starts with each action that is not an extra action.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chain_fired: Vec<u16>,
    /// An extra action was just taken: the next action resolved is it, and continues the chain.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub extra_action_next: bool,
    /// What the action being resolved has done so far (from its `Started` to its `Acted`), so
    /// that its result is told in one line when it ends (issue 34: each attack's result). Kept
    /// by `apply` from the events; no rule reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acting: Option<Acting>,
}

/// The action being resolved, and what it has done so far: see [`Scene::acting`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Acting {
    /// Whose action.
    pub character: u8,
    /// The action, as resolved.
    pub action: crate::rules::Action,
    /// The total of its Talent Roll (a Regular Attack) or attack roll (a Decisive Attack).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roll: Option<i32>,
    /// The total of the target's defence roll (a Decisive Attack).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defence: Option<i32>,
    /// Hits dealt: wounds, minions killed, Strikes lost.
    #[serde(default)]
    pub hits: u32,
    /// How far the Flow of Battle moved, toward the positive side (its first move: a Crisis
    /// Trigger's minions attacking after it are theirs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<i32>,
    /// The action's own part is over (its Crisis is added; what follows is the Triggers').
    #[serde(default)]
    pub done: bool,
}

impl Acting {
    /// Takes in one event of the action being resolved.
    pub(crate) fn follow(&mut self, event: &crate::rules::Event) {
        use crate::rules::{Event, Purpose, Who};
        if self.done {
            return;
        }
        match event {
            Event::Rolled {
                who: Who::Character(c),
                purpose: Purpose::Regular | Purpose::Decisive,
                roll,
                ..
            } if *c == self.character && self.roll.is_none() => {
                self.roll = Some(roll.total);
            }
            Event::Rolled { purpose: Purpose::Defence, roll, .. } if self.defence.is_none() => {
                self.defence = Some(roll.total);
            }
            Event::Wounded { hits, .. } => self.hits = self.hits.saturating_add(u32::from(*hits)),
            Event::MinionsKilled { killed, .. } => self.hits = self.hits.saturating_add(*killed),
            Event::StrikesLost { strikes, hits, .. } => {
                self.hits = self.hits.saturating_add(hits.unwrap_or(*strikes));
            }
            Event::FlowMoved { by, .. } if self.flow.is_none() => self.flow = Some(*by),
            Event::CrisisAdded { .. } => self.done = true,
            _ => {}
        }
    }
}

fn region_id(regions: &[Region], field: &str, name: &str) -> Result<RegionId, SetupError> {
    regions.iter().position(|r| r.name == name).map(|i| i as RegionId).ok_or_else(|| SetupError::Unknown {
        field: field.into(),
        what: "Region",
        name: name.into(),
    })
}

/// The side and faction that a seat's or minion group's `side` names: a faction of the scene's
/// `factions` when it has some, else one of the two sides.
fn camp(setup: &Setup, field: &str, name: &str) -> Result<(u8, Option<u8>), SetupError> {
    if setup.factions.is_empty() {
        return Ok((side_id(&setup.sides, field, name)?, None));
    }
    let i = setup.factions.iter().position(|f| f.name == name).ok_or_else(|| SetupError::Unknown {
        field: field.into(),
        what: "faction",
        name: name.into(),
    })?;
    let side = side_id(&setup.sides, &format!("factions[{i}].side"), &setup.factions[i].side)?;
    Ok((side, Some(i as u8)))
}

fn side_id(sides: &[String; 2], field: &str, name: &str) -> Result<u8, SetupError> {
    sides.iter().position(|s| s == name).map(|i| i as u8).ok_or_else(|| SetupError::Unknown {
        field: field.into(),
        what: "side",
        name: name.into(),
    })
}

impl Setup {
    /// Checks the factions (§6): unique names, each in one of the two sides, at least one in
    /// each side, and only in a combat (a non-violent conflict keeps Strikes per side).
    fn check_factions(&self) -> Result<(), SetupError> {
        if self.factions.is_empty() {
            return Ok(());
        }
        if self.kind == SceneKind::NonViolent {
            return Err(SetupError::Invalid(
                "factions: only a combat has factions; a non-violent conflict keeps two sides with their Strikes"
                    .into(),
            ));
        }
        if self.factions.len() > 16 {
            return Err(SetupError::Invalid("factions: at most 16".into()));
        }
        let mut camps = [false; 2];
        for (i, f) in self.factions.iter().enumerate() {
            if f.name.trim().is_empty() {
                return Err(SetupError::Invalid(format!("factions[{i}].name: a faction needs a name")));
            }
            if self.factions[..i].iter().any(|o| o.name == f.name) {
                return Err(SetupError::Duplicate { what: "factions", name: f.name.clone() });
            }
            camps[usize::from(side_id(&self.sides, &format!("factions[{i}].side"), &f.side)?)] = true;
        }
        if camps != [true; 2] {
            return Err(SetupError::Invalid(
                "factions: each of the two sides needs a faction (a Duel has two sides)".into(),
            ));
        }
        Ok(())
    }

    /// Sets the round limit a shell plays with (`options.max_rounds`): `limit` when its user
    /// gave one, else the scene file's own, else [`DEFAULT_ROUND_LIMIT`]. Returns the limit in
    /// force. A later session layer calls this the same way `play` does.
    pub fn apply_round_limit(&mut self, limit: Option<u32>) -> u32 {
        let max = limit.or(self.options.max_rounds).unwrap_or(DEFAULT_ROUND_LIMIT).max(1);
        self.options.max_rounds = Some(max);
        max
    }

    /// Checks every name the triggers use: the scene's, and those the characters' Skills add
    /// (Advanced Actions with an `add_trigger` effect).
    fn check_triggers(&self) -> Result<(), SetupError> {
        let own = self.characters.iter().enumerate().flat_map(|(c, spec)| {
            spec.sheet.talents.iter().flat_map(move |t| {
                t.advanced.iter().filter_map(move |a| match &a.effect {
                    AdvancedEffect::AddTrigger { trigger } => Some((
                        format!("characters[{c}] ({}): Advanced Action {}", spec.sheet.name, a.name),
                        trigger,
                    )),
                    _ => None,
                })
            })
        });
        let scene = self.triggers.iter().enumerate().map(|(i, t)| (format!("triggers[{i}]"), t));
        for (field, t) in scene.chain(own) {
            if t.every == Some(0) {
                return Err(SetupError::Invalid(format!("{field}: every must be at least 1")));
            }
            let group = |g: &str| {
                if self.minions.iter().any(|m| m.stats.name == g) {
                    Ok(())
                } else {
                    Err(SetupError::Unknown { field: field.clone(), what: "minion group", name: g.into() })
                }
            };
            match &t.effect {
                TriggerEffect::MinionsAttack { group: g } | TriggerEffect::Reinforce { group: g, .. } => {
                    group(g)?
                }
                TriggerEffect::ExtraAction { character } => {
                    if !self.characters.iter().any(|c| &c.sheet.name == character) {
                        return Err(SetupError::Unknown {
                            field,
                            what: "character",
                            name: character.clone(),
                        });
                    }
                }
                TriggerEffect::ChangeRegion { region, effect } => {
                    region_id(&self.regions, &field, region)?;
                    effect.check().map_err(|e| SetupError::Invalid(format!("{field}.effect: {e}")))?;
                }
                TriggerEffect::Hazard { region, .. } => {
                    region_id(&self.regions, &field, region)?;
                }
                TriggerEffect::EndScene { winner: Some(w) } => {
                    side_id(&self.sides, &field, w)?;
                }
                TriggerEffect::Note | TriggerEffect::EndScene { winner: None } => {}
            }
        }
        Ok(())
    }
}

impl Scene {
    /// Starts a scene from its setup, checking every rule of the setup (§4, §5.2, §7.4, §10).
    pub fn new(setup: Setup) -> Result<Scene, SetupError> {
        let sides = &setup.sides;
        if sides[0].trim().is_empty() || sides[1].trim().is_empty() || sides[0] == sides[1] {
            return Err(SetupError::Invalid("sides: two different, non-empty side names are needed".into()));
        }
        let (kind, min) = match setup.kind {
            SceneKind::Combat => ("combat", 3),
            SceneKind::NonViolent => ("non-violent conflict", 1),
        };
        let n = setup.regions.len();
        if n < min || n > 5 {
            return Err(SetupError::RegionCount { kind, min, count: n });
        }
        for (i, r) in setup.regions.iter().enumerate() {
            if setup.regions[..i].iter().any(|o| o.name == r.name) {
                return Err(SetupError::Duplicate { what: "Regions", name: r.name.clone() });
            }
            r.effect.check().map_err(|e| SetupError::Invalid(format!("regions[{i}].effect: {e}")))?;
        }
        let mut links = Links { adjacent: vec![0; n], move_blocked: vec![0; n], sight: vec![0; n] };
        for [a, b] in &setup.adjacent {
            let (a, b) =
                (region_id(&setup.regions, "adjacent", a)?, region_id(&setup.regions, "adjacent", b)?);
            if a == b {
                return Err(SetupError::Invalid("adjacent: a Region is not adjacent to itself".into()));
            }
            link(&mut links.adjacent, a, b);
            link(&mut links.sight, a, b);
        }
        for [a, b] in &setup.movement_blocked {
            let (a, b) = (
                region_id(&setup.regions, "movement_blocked", a)?,
                region_id(&setup.regions, "movement_blocked", b)?,
            );
            link(&mut links.move_blocked, a, b);
        }
        for [a, b] in &setup.sight {
            let (a, b) = (region_id(&setup.regions, "sight", a)?, region_id(&setup.regions, "sight", b)?);
            if a == b {
                return Err(SetupError::Invalid("sight: a Region always sees itself".into()));
            }
            link(&mut links.sight, a, b);
        }
        for [a, b] in &setup.sight_blocked {
            let (a, b) = (
                region_id(&setup.regions, "sight_blocked", a)?,
                region_id(&setup.regions, "sight_blocked", b)?,
            );
            unlink(&mut links.sight, a, b);
        }
        setup.check_factions()?;
        let mut seat_faction = Vec::new();
        let seats = Arc::new(Seats::new(
            setup
                .seats
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let (side, faction) = camp(&setup, &format!("seats[{i}].side"), &s.side)?;
                    seat_faction.push(faction);
                    Ok(Seat {
                        name: s.name.clone(),
                        side: SideId(side),
                        role: if s.gm { Role::Gm } else { Role::Player },
                    })
                })
                .collect::<Result<Vec<_>, SetupError>>()?,
        )?);
        let mut fighters = Vec::new();
        for (i, c) in setup.characters.iter().enumerate() {
            // Defences the sheet leaves out come from the scene's rule, if it has one (§4.3).
            let mut sheet = c.sheet.clone();
            if let Some(rule) = &setup.derived_defences {
                rule.fill(&mut sheet);
            }
            sheet.validate()?;
            if setup.characters[..i].iter().any(|o| o.sheet.name == c.sheet.name) {
                return Err(SetupError::Duplicate { what: "characters", name: c.sheet.name.clone() });
            }
            let seat = seats.find(&c.seat)?;
            let side = seats.get(seat)?.side.0;
            let region = match (&c.region, c.absent) {
                (Some(r), false) => Some(region_id(&setup.regions, &format!("characters[{i}].region"), r)?),
                (None, true) => None,
                (Some(_), true) => {
                    return Err(SetupError::Invalid(format!(
                        "characters[{i}] ({}): an absent character has no Region",
                        c.sheet.name
                    )));
                }
                (None, false) => {
                    return Err(SetupError::Invalid(format!(
                        "characters[{i}] ({}): a present character needs a region",
                        c.sheet.name
                    )));
                }
            };
            fighters.push(Fighter {
                sheet: Arc::new(sheet),
                seat,
                side,
                faction: seat_faction.get(usize::from(seat.0)).copied().flatten(),
                region,
                absent: c.absent,
                hits: 0,
                death_hits: 0,
                status: Status::Fighting,
                doomed: false,
                declared: Sealed::Empty,
                acted: false,
                duel: None,
                out_of_order_used: false,
            });
        }
        if fighters.is_empty() {
            return Err(SetupError::Invalid("characters: a scene needs at least one character".into()));
        }
        let mut minions = Vec::new();
        for (i, m) in setup.minions.iter().enumerate() {
            m.stats.validate()?;
            if m.count > MAX_MINIONS {
                return Err(SetupError::Invalid(format!(
                    "minions[{i}].count: at most {MAX_MINIONS} minions in a group"
                )));
            }
            if setup.minions[..i].iter().any(|o| o.stats.name == m.stats.name) {
                return Err(SetupError::Duplicate { what: "minion groups", name: m.stats.name.clone() });
            }
            let (side, faction) = camp(&setup, &format!("minions[{i}].side"), &m.side)?;
            minions.push(Minions {
                stats: Arc::new(m.stats.clone()),
                side,
                faction,
                region: region_id(&setup.regions, &format!("minions[{i}].region"), &m.region)?,
                count: m.count,
                duel: None,
            });
        }
        if fighters.len() + minions.len() > 64 {
            return Err(SetupError::Invalid("a scene holds at most 64 characters and minion groups".into()));
        }
        if setup.triggers.len() > MAX_TRIGGERS {
            return Err(SetupError::Invalid("triggers: a scene holds at most 64 Crisis Triggers".into()));
        }
        setup.check_triggers()?;
        let positive = match &setup.positive_side {
            Some(s) => side_id(sides, "positive_side", s)?,
            None => 0,
        };
        if let Some(s) = &setup.surprise {
            side_id(sides, "surprise", s)?;
        }
        let strikes = match (setup.kind, setup.strikes) {
            (SceneKind::NonViolent, None) => {
                return Err(SetupError::Invalid(
                    "strikes: a non-violent conflict needs Strikes per side".into(),
                ));
            }
            (SceneKind::NonViolent, Some(s)) if s.contains(&0) => {
                return Err(SetupError::Invalid("strikes: each side needs at least 1 Strike".into()));
            }
            (SceneKind::Combat, Some(_)) => {
                return Err(SetupError::Invalid("strikes: only a non-violent conflict has Strikes".into()));
            }
            (_, s) => s,
        };
        // Unequal Strikes are bought with the GM's Rising Tension (§10, open question 14).
        let tension = &setup.rising_tension;
        let cost = strikes.map_or(0, |s| tension.cost(s));
        let Some(rising_tension) = u32::try_from(cost).ok().and_then(|c| tension.pool.checked_sub(c)) else {
            let [a, b] = strikes.unwrap_or_default();
            return Err(SetupError::Invalid(format!(
                "strikes: unequal Strikes ({a} against {b}) cost {cost} Rising Tension \
                 ({} per Strike of difference, rising_tension.per_strike), but the GM has {} \
                 (rising_tension.pool)",
                tension.per_strike, tension.pool
            )));
        };
        if setup.options.ability_dice > 20 {
            return Err(SetupError::Invalid("options.ability_dice: at most 20 d6".into()));
        }
        if setup.crisis_start > MAX_CRISIS_START {
            return Err(SetupError::Invalid(format!("crisis_start: at most {MAX_CRISIS_START}")));
        }
        let effects = Arc::new(setup.regions.iter().map(|r| r.effect.clone()).collect());
        let fired = vec![0; setup.triggers.len()];
        let mut scene = Scene {
            seats,
            links: Arc::new(links),
            effects,
            fighters,
            minions,
            duels: Vec::new(),
            crisis: setup.crisis_start,
            round_crisis: [0; 2],
            fired,
            added_triggers: Vec::new(),
            round: 0,
            surprise_round: false,
            initiative: 0,
            phase: Phase::Between,
            strikes,
            positive,
            pending: Vec::new(),
            draws: Draws::seeded(setup.seed),
            duel_at: [None; 5],
            outcome: None,
            rising_tension,
            chain_fired: Vec::new(),
            extra_action_next: false,
            acting: None,
            setup: Arc::new(setup),
        };
        // The Duels standing at the start (§6: every Duel starts at Flow 0).
        crate::duel::reconcile(&mut scene, &mut Vec::new());
        Ok(scene)
    }

    /// Crisis Trigger number `i`: the scene file's, then those added by Skills (§8).
    pub fn trigger(&self, i: usize) -> Option<&TriggerSpec> {
        let n = self.setup.triggers.len();
        if i < n { self.setup.triggers.get(i) } else { self.added_triggers.get(i - n) }
    }

    /// How many Crisis Triggers the scene has now.
    pub fn trigger_count(&self) -> usize {
        self.setup.triggers.len() + self.added_triggers.len()
    }

    /// The seat's name.
    pub fn seat_name(&self, seat: SeatId) -> &str {
        self.seats.get(seat).map(|s| s.name.as_str()).unwrap_or("?")
    }

    /// A side's name.
    pub fn side_name(&self, side: u8) -> &str {
        &self.setup.sides[usize::from(side & 1)]
    }

    /// A Region's name.
    pub fn region_name(&self, r: RegionId) -> &str {
        self.setup.regions.get(usize::from(r)).map(|r| r.name.as_str()).unwrap_or("?")
    }

    /// A character's name.
    pub fn fighter_name(&self, f: u8) -> &str {
        self.fighters.get(usize::from(f)).map(|f| f.sheet.name.as_str()).unwrap_or("?")
    }

    /// The character with this name.
    pub fn find_fighter(&self, name: &str) -> Option<u8> {
        self.fighters.iter().position(|f| f.sheet.name == name).map(|i| i as u8)
    }

    /// The minion group with this name.
    pub fn find_minions(&self, name: &str) -> Option<u8> {
        self.minions.iter().position(|m| m.stats.name == name).map(|i| i as u8)
    }

    /// The Region with this name.
    pub fn find_region(&self, name: &str) -> Option<RegionId> {
        self.setup.regions.iter().position(|r| r.name == name).map(|i| i as RegionId)
    }

    /// The first GM seat, if the scene has one.
    pub fn gm_seat(&self) -> Option<SeatId> {
        self.seats.iter().map(|(id, _)| id).find(|&id| self.is_gm(id))
    }

    /// Whether the seat is the GM's.
    pub fn is_gm(&self, seat: SeatId) -> bool {
        self.seats.get(seat).is_ok_and(|s| s.role == Role::Gm)
    }

    /// The active Duel in a Region.
    pub fn duel_in(&self, r: RegionId) -> Option<u16> {
        self.duel_at.get(usize::from(r)).copied().flatten()
    }

    /// The combatant bit of a fighter (0 beyond the 64 a scene holds).
    pub fn fighter_bit(&self, f: usize) -> u64 {
        u32::try_from(f).ok().and_then(|f| 1u64.checked_shl(f)).unwrap_or(0)
    }

    /// The combatant bit of a minion group (0 beyond the 64 a scene holds).
    pub fn minion_bit(&self, g: usize) -> u64 {
        self.fighter_bit(self.fighters.len().saturating_add(g))
    }

    /// Whether the scene is over.
    pub fn is_over(&self) -> bool {
        self.phase == Phase::Over
    }

    /// What the scene waits for, in words.
    pub fn waiting_for(&self) -> String {
        if let Some(p) = self.pending.first() {
            return match *p {
                Pending::KeepFighting(f) => {
                    format!("{} decides whether to keep fighting", self.fighter_name(f))
                }
                Pending::ExtraAction(f) => format!("{} takes an extra action", self.fighter_name(f)),
            };
        }
        match self.phase {
            Phase::Between => "the next round".into(),
            Phase::Declare => format!("round {}: the declarations", self.round),
            Phase::Resolve { side } => {
                format!("round {}: {} resolve their actions", self.round, self.side_name(side))
            }
            Phase::Over => "nothing: the scene is over".into(),
        }
    }
}
