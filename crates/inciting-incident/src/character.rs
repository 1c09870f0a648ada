//! Characters and NPCs (rules reference §4, §7.4): Abilities, Talents with their Skills,
//! the three defences, Max Hits Taken, and minion stat blocks. Derived numbers the sources do
//! not give (Resistance Value, Resistance Difficulty, Protection, Max Hits) are sheet data.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::dice::{MAX_LEVEL, valid_sides};

/// The three Abilities (§4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ability {
    /// Physical toughness.
    Fortitude,
    /// Will.
    Perseverance,
    /// Speed and agility.
    Nimbleness,
}

impl Ability {
    /// The Ability's name.
    pub fn name(self) -> &'static str {
        match self {
            Ability::Fortitude => "Fortitude",
            Ability::Perseverance => "Perseverance",
            Ability::Nimbleness => "Nimbleness",
        }
    }
}

/// A character's Ability levels, 0–9 each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Abilities {
    /// Fortitude.
    pub fortitude: u8,
    /// Perseverance.
    pub perseverance: u8,
    /// Nimbleness.
    pub nimbleness: u8,
}

impl Abilities {
    /// The level of one Ability.
    pub fn get(&self, a: Ability) -> u8 {
        match a {
            Ability::Fortitude => self.fortitude,
            Ability::Perseverance => self.perseverance,
            Ability::Nimbleness => self.nimbleness,
        }
    }
}

/// The three defences (§4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DefenceKind {
    /// Against physical strength; Fortitude + Nimbleness; Protection is Armour.
    Resilience,
    /// Against attacks on the will to fight; Fortitude + Perseverance; Protection is
    /// Determination.
    Resolve,
    /// Against speed and surprise; Perseverance + Nimbleness; Protection is Confidence.
    Reactions,
}

impl DefenceKind {
    /// All three, in sheet order.
    pub const ALL: [DefenceKind; 3] = [DefenceKind::Resilience, DefenceKind::Resolve, DefenceKind::Reactions];

    /// The two Abilities a defence roll may use (§4.3).
    pub fn abilities(self) -> [Ability; 2] {
        match self {
            DefenceKind::Resilience => [Ability::Fortitude, Ability::Nimbleness],
            DefenceKind::Resolve => [Ability::Fortitude, Ability::Perseverance],
            DefenceKind::Reactions => [Ability::Perseverance, Ability::Nimbleness],
        }
    }

    /// The name of its Protection (§4.3).
    pub fn protection_name(self) -> &'static str {
        match self {
            DefenceKind::Resilience => "Armour",
            DefenceKind::Resolve => "Determination",
            DefenceKind::Reactions => "Confidence",
        }
    }

    /// The defence's name.
    pub fn name(self) -> &'static str {
        match self {
            DefenceKind::Resilience => "Resilience",
            DefenceKind::Resolve => "Resolve",
            DefenceKind::Reactions => "Reactions",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One defence on the sheet (§4.3): Resistance Value, Resistance Difficulty and Protection.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defence {
    /// Resistance Value: what a Decisive Attack must get past (at least 1). Left out (0): the
    /// defence is derived by the scene's `derived_defences`, if it has one (§4.3 [MISSING]).
    #[serde(default)]
    pub rv: u8,
    /// Resistance Difficulty: how many d6 the attacker adds to its roll.
    #[serde(default)]
    pub rd: u8,
    /// Protection dice from Skills (sizes, e.g. `[6]` for a d6 of Armour).
    #[serde(default)]
    pub protection: Vec<u8>,
}

/// The three defences of a sheet.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defences {
    /// Resilience.
    #[serde(default)]
    pub resilience: Defence,
    /// Resolve.
    #[serde(default)]
    pub resolve: Defence,
    /// Reactions.
    #[serde(default)]
    pub reactions: Defence,
}

impl Defences {
    /// One defence, to change.
    pub fn get_mut(&mut self, kind: DefenceKind) -> &mut Defence {
        match kind {
            DefenceKind::Resilience => &mut self.resilience,
            DefenceKind::Resolve => &mut self.resolve,
            DefenceKind::Reactions => &mut self.reactions,
        }
    }

    /// One defence.
    pub fn get(&self, kind: DefenceKind) -> &Defence {
        match kind {
            DefenceKind::Resilience => &self.resilience,
            DefenceKind::Resolve => &self.resolve,
            DefenceKind::Reactions => &self.reactions,
        }
    }
}

/// The Ranged Skills (§7.3, §11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ranged {
    /// Melee only: attacks members of the attacker's own Duel.
    #[default]
    None,
    /// Ranged: adjacent Regions with line of sight; 1 Disadvantage per enemy when used inside
    /// a Duel.
    Basic,
    /// Ranged (Versatile): each attack is declared melee or ranged, so no in-Duel penalty.
    Versatile,
}

/// In which conflicts a Skill applies (§10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Context {
    /// Every conflict.
    #[default]
    Any,
    /// Only Combat scenes.
    Combat,
    /// Only non-violent conflicts.
    NonViolent,
}

/// The mechanical hooks of a Talent's Skills (§11; the skill reference page is missing, so
/// these are the kinds of effect the seed describes, as data).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Skills {
    /// Ranged or Ranged (Versatile).
    #[serde(default)]
    pub ranged: Ranged,
    /// A flat modifier on the Talent's rolls.
    #[serde(default)]
    pub modifier: i32,
    /// Extra dice on the Talent's rolls (sizes).
    #[serde(default)]
    pub bonus_dice: Vec<u8>,
    /// Fewer Disadvantages for allies in a Duel shot into (ranged upgrades).
    #[serde(default)]
    pub ally_penalty_reduction: u8,
    /// Crisis generated by this Talent's Talent Rolls and Decisive Attacks is lowered by this
    /// much (never below 0); an automatic Regular Attack uses no Talent, so it keeps its 4.
    #[serde(default)]
    pub crisis_reduction: u32,
    /// Where the modifiers, bonus dice and Crisis reduction apply (§10).
    #[serde(default)]
    pub context: Context,
    /// A Ranged upgrade: how many Regions away this Talent's ranged attacks reach, counted in
    /// adjacency steps (default 1: adjacent Regions, the basic Ranged Skill, §7.3). The
    /// target's Region must still be in sight (adjacent Regions see each other unless the
    /// scene file blocks it; farther ones only where its `sight` list says so). The length a
    /// real Ranged upgrade gives is missing: it is the sheet's data (at most 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<u8>,
    /// A Ranged upgrade: ranged attacks with this Talent pass line-of-sight blockers, so they
    /// reach every adjacent Region (§5.2, §7.3: "Skills that can improve range, and change
    /// limitations").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore_sight_blockers: bool,
}

/// The movement Skills of a sheet (§5.2: "skipping intervening Regions, passing blocking
/// elements"; a longer Move is [`Sheet::max_move`]). The numbers are the Skill's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Movement {
    /// Each step of a Move may leap over up to this many intervening Regions, entering only
    /// the Region it lands in: the Regions leapt over are not entered (no Crisis, no Simple
    /// Obstacle, not counted toward `max_move`). The leap follows adjacent Regions, and a
    /// movement blocker on its way stops it unless `pass_blockers` (Decision). At most 3.
    #[serde(default)]
    pub skip: u8,
    /// Moves pass movement blockers between adjacent Regions.
    #[serde(default)]
    pub pass_blockers: bool,
}

/// The most intervening Regions a step may leap over (a map has at most 5 Regions).
pub const MAX_SKIP: u8 = 3;

/// What an Advanced Action does (§5, §11; the Skills are missing, so these are data).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdvancedEffect {
    /// Quick healing: remove hits from a character in the same Region; revives an
    /// Incapacitated one and clears its Death Hits.
    Heal {
        /// Hits removed.
        hits: u8,
    },
    /// Move the Flow of the user's Duel by this much in its side's favour.
    ShiftFlow {
        /// How far.
        amount: i32,
    },
    /// Change the effect of the user's Region.
    ChangeRegion {
        /// The new effect.
        effect: crate::map::RegionEffect,
    },
    /// Add the character's own Crisis Trigger to the scene (§8: characters who "thrive in
    /// chaos" add their own Triggers — hazards for their enemies or everyone, lasting or
    /// repeating effects, or extra actions for themselves, their use of Crisis). Its `at`
    /// counts from the Crisis when the action is used; its names are the scene file's.
    AddTrigger {
        /// The trigger.
        trigger: crate::scene::TriggerSpec,
    },
}

/// An Advanced Action a Talent's Skills allow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdvancedAction {
    /// Its name.
    pub name: String,
    /// The Crisis it generates (the Skill says; "Variable Crisis").
    #[serde(default)]
    pub crisis: u32,
    /// What it does.
    pub effect: AdvancedEffect,
    /// The Skill lets it be used outside round order: at any point of the resolution, at
    /// most one such action per character per round, besides the declared action (§5 step 7).
    #[serde(default)]
    pub out_of_order: bool,
}

/// A Talent (§4.1): a specialism under one Ability, level 1–9.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Talent {
    /// Its name.
    pub name: String,
    /// Its parent Ability.
    pub ability: Ability,
    /// Its level (1 to the parent Ability's level).
    pub level: u8,
    /// A short description.
    #[serde(default)]
    pub description: String,
    /// The defence its attacks usually target: the GM's pick of "the most appropriate
    /// defence" (§7.1), recorded on the sheet's Actions (Decision).
    #[serde(default = "default_defence")]
    pub defence: DefenceKind,
    /// Its Skills' hooks.
    #[serde(default)]
    pub skills: Skills,
    /// Advanced Actions its Skills allow.
    #[serde(default)]
    pub advanced: Vec<AdvancedAction>,
}

fn default_defence() -> DefenceKind {
    DefenceKind::Resilience
}

/// A character sheet (§4.4): a player character or a major NPC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sheet {
    /// The name.
    pub name: String,
    /// A one-line summary.
    #[serde(default)]
    pub summary: String,
    /// The Abilities.
    pub abilities: Abilities,
    /// The Talents.
    #[serde(default)]
    pub talents: Vec<Talent>,
    /// The defences (one left out is derived by the scene's `derived_defences`, if any).
    #[serde(default)]
    pub defences: Defences,
    /// Max Hits Taken (from the sheet; the formula is missing, §4.2).
    pub max_hits: u8,
    /// The most Regions a Move may cross (3 unless a movement Skill says more, §5.2).
    #[serde(default = "default_move")]
    pub max_move: u8,
    /// Movement Skills beyond distance: leaping over Regions, passing movement blockers.
    #[serde(default)]
    pub movement: Movement,
    /// Other Skills, in words (for the sheet; no mechanical hook).
    #[serde(default)]
    pub skills: Vec<String>,
}

fn default_move() -> u8 {
    3
}

/// Why a sheet or stat block is refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SheetError {
    /// An empty name.
    #[error("a character or Talent has an empty name")]
    EmptyName,
    /// An Ability above 9.
    #[error("{who}: {ability} is {level}; levels go from 0 to 9")]
    AbilityLevel {
        /// Whose.
        who: String,
        /// Which Ability.
        ability: &'static str,
        /// The level given.
        level: u8,
    },
    /// A Talent level outside 1..=parent.
    #[error(
        "{who}: Talent {talent} is level {level}, but a Talent's level must be 1 to its Ability's level ({ability} {parent})"
    )]
    TalentLevel {
        /// Whose.
        who: String,
        /// Which Talent.
        talent: String,
        /// Its level.
        level: u8,
        /// The parent Ability.
        ability: &'static str,
        /// The parent's level.
        parent: u8,
    },
    /// Too many Talents under one Ability.
    #[error(
        "{who}: {ability} {level} carries {count} Talents, but an Ability carries at most as many Talents as its level"
    )]
    TooManyTalents {
        /// Whose.
        who: String,
        /// Which Ability.
        ability: &'static str,
        /// Its level.
        level: u8,
        /// How many Talents it has.
        count: usize,
    },
    /// Two Talents share a name.
    #[error("{who}: two Talents are named {talent:?}")]
    DuplicateTalent {
        /// Whose.
        who: String,
        /// The name.
        talent: String,
    },
    /// A Resistance Value of 0.
    #[error(
        "{who}: {defence} has Resistance Value 0 (or is left out); it must be at least 1, or be derived by the scene's derived_defences"
    )]
    ZeroResistance {
        /// Whose.
        who: String,
        /// Which defence.
        defence: &'static str,
    },
    /// Max Hits of 0.
    #[error("{who}: max_hits must be at least 1")]
    ZeroMaxHits {
        /// Whose.
        who: String,
    },
    /// A die size that is not d4–d12.
    #[error("{who}: {what} has a d{sides}; dice are d4, d6, d8, d10 or d12")]
    BadDie {
        /// Whose.
        who: String,
        /// Where.
        what: String,
        /// The size given.
        sides: u8,
    },
    /// An unreasonable number of dice.
    #[error("{who}: {what} has more than {MAX_DICE} dice (Resistance Difficulty, Protection or bonus dice)")]
    TooManyDice {
        /// Whose.
        who: String,
        /// Where.
        what: String,
    },
    /// A Region effect with bad numbers.
    #[error("{who}: {what}: {why}")]
    BadEffect {
        /// Whose.
        who: String,
        /// Where.
        what: String,
        /// What is wrong.
        why: String,
    },
    /// A move distance of 0.
    #[error("{who}: max_move must be at least 1")]
    ZeroMove {
        /// Whose.
        who: String,
    },
    /// A flat modifier or a Flow shift out of bounds.
    #[error(
        "{who}: {what} is {value}; a Skill's modifier or Flow shift goes from -{MAX_MODIFIER} to {MAX_MODIFIER}"
    )]
    Modifier {
        /// Whose.
        who: String,
        /// Where.
        what: String,
        /// The number given.
        value: i32,
    },
    /// A movement Skill leaping over too many Regions.
    #[error(
        "{who}: movement.skip is {skip}; a step leaps over at most {MAX_SKIP} Regions (a map has 3 to 5)"
    )]
    TooFarSkip {
        /// Whose.
        who: String,
        /// The number given.
        skip: u8,
    },
}

/// The longest range (in Regions) a Ranged upgrade may give; a scene has at most 5 Regions.
pub const MAX_RANGE: u8 = 4;

/// The most dice a Resistance Difficulty, a Protection or a Talent's bonus dice may have.
pub const MAX_DICE: u8 = 20;

/// The largest flat modifier (and Flow shift of an Advanced Action) a Skill may give: far
/// beyond any real table, and small enough that no total or Flow can overflow.
pub const MAX_MODIFIER: i32 = 100;

fn check_modifier(who: &str, what: String, value: i32) -> Result<(), SheetError> {
    if value.unsigned_abs() > MAX_MODIFIER.unsigned_abs() {
        return Err(SheetError::Modifier { who: who.into(), what, value });
    }
    Ok(())
}

fn check_dice(who: &str, what: &str, dice: &[u8]) -> Result<(), SheetError> {
    match dice.iter().find(|&&s| !valid_sides(s)) {
        Some(&sides) => Err(SheetError::BadDie { who: who.into(), what: what.into(), sides }),
        None => Ok(()),
    }
}

impl Sheet {
    /// Checks the sheet against the character rules (§4.1–4.3).
    pub fn validate(&self) -> Result<(), SheetError> {
        let who = self.name.trim();
        if who.is_empty() {
            return Err(SheetError::EmptyName);
        }
        for a in [Ability::Fortitude, Ability::Perseverance, Ability::Nimbleness] {
            let level = self.abilities.get(a);
            if level > MAX_LEVEL {
                return Err(SheetError::AbilityLevel { who: who.into(), ability: a.name(), level });
            }
            let count = self.talents.iter().filter(|t| t.ability == a).count();
            if count > usize::from(level) {
                return Err(SheetError::TooManyTalents { who: who.into(), ability: a.name(), level, count });
            }
        }
        for (i, t) in self.talents.iter().enumerate() {
            if t.name.trim().is_empty() {
                return Err(SheetError::EmptyName);
            }
            if self.talents[..i].iter().any(|o| o.name == t.name) {
                return Err(SheetError::DuplicateTalent { who: who.into(), talent: t.name.clone() });
            }
            let parent = self.abilities.get(t.ability);
            if t.level == 0 || t.level > parent {
                return Err(SheetError::TalentLevel {
                    who: who.into(),
                    talent: t.name.clone(),
                    level: t.level,
                    ability: t.ability.name(),
                    parent,
                });
            }
            check_dice(who, &format!("Talent {}", t.name), &t.skills.bonus_dice)?;
            if t.skills.bonus_dice.len() > usize::from(MAX_DICE) {
                return Err(SheetError::TooManyDice { who: who.into(), what: format!("Talent {}", t.name) });
            }
            check_modifier(who, format!("Talent {}: skills.modifier", t.name), t.skills.modifier)?;
            if t.skills.range.is_some_and(|r| r == 0 || r > MAX_RANGE) {
                return Err(SheetError::BadEffect {
                    who: who.into(),
                    what: format!("Talent {}: skills.range", t.name),
                    why: format!("a range goes from 1 to {MAX_RANGE} Regions"),
                });
            }
            for a in &t.advanced {
                if let AdvancedEffect::ShiftFlow { amount } = a.effect {
                    check_modifier(who, format!("Advanced Action {}: the Flow shift", a.name), amount)?;
                }
                if let AdvancedEffect::ChangeRegion { effect } = &a.effect {
                    effect.check().map_err(|why| SheetError::BadEffect {
                        who: who.into(),
                        what: format!("Advanced Action {}", a.name),
                        why,
                    })?;
                }
            }
        }
        for kind in DefenceKind::ALL {
            let d = self.defences.get(kind);
            if d.rv == 0 {
                return Err(SheetError::ZeroResistance { who: who.into(), defence: kind.name() });
            }
            if d.rd > MAX_DICE || d.protection.len() > usize::from(MAX_DICE) {
                return Err(SheetError::TooManyDice { who: who.into(), what: kind.name().into() });
            }
            check_dice(who, kind.protection_name(), &d.protection)?;
        }
        if self.max_hits == 0 {
            return Err(SheetError::ZeroMaxHits { who: who.into() });
        }
        if self.max_move == 0 {
            return Err(SheetError::ZeroMove { who: who.into() });
        }
        if self.movement.skip > MAX_SKIP {
            return Err(SheetError::TooFarSkip { who: who.into(), skip: self.movement.skip });
        }
        Ok(())
    }

    /// The point cost of the Abilities and Talents (§3.1; the budget is missing).
    pub fn build_cost(&self) -> u32 {
        use crate::dice::level_cost;
        let a = &self.abilities;
        level_cost(a.fortitude)
            + level_cost(a.perseverance)
            + level_cost(a.nimbleness)
            + self.talents.iter().map(|t| level_cost(t.level)).sum::<u32>()
    }

    /// The Ability a defender rolls for `kind`: the higher of the two allowed (Decision,
    /// rules reference Q3: the defender picks, and more dice is never worse; ties go to the
    /// first listed).
    pub fn defence_ability(&self, kind: DefenceKind) -> (Ability, u8) {
        let [a, b] = kind.abilities();
        let (la, lb) = (self.abilities.get(a), self.abilities.get(b));
        if lb > la { (b, lb) } else { (a, la) }
    }

    /// The Ability rolled to keep fighting, to rest while Incapacitated, or to recover: the
    /// higher of Fortitude and Perseverance (§9; Decision for the keep-fighting roll).
    pub fn recovery_ability(&self) -> (Ability, u8) {
        let (f, p) = (self.abilities.fortitude, self.abilities.perseverance);
        if p > f { (Ability::Perseverance, p) } else { (Ability::Fortitude, f) }
    }

    /// The highest level of a Nimbleness-based Talent (round-one initiative tie-break, §5).
    pub fn best_nimbleness_talent(&self) -> u8 {
        self.talents.iter().filter(|t| t.ability == Ability::Nimbleness).map(|t| t.level).max().unwrap_or(0)
    }
}

/// A minion's attack (§7.4): the group's best attack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinionAttack {
    /// Its Talent level (dice, §3.1).
    pub level: u8,
    /// A flat modifier.
    #[serde(default)]
    pub modifier: i32,
    /// The defence it targets.
    #[serde(default = "default_defence")]
    pub defence: DefenceKind,
    /// A ranged attack: outside a Duel, the group attacks the first Duel in range (adjacent,
    /// line of sight), its Advantage counted against that Duel.
    #[serde(default)]
    pub ranged: bool,
}

/// A minion stat block (§7.4; the GM guide is missing, so these fields are Decisions).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinionStats {
    /// The kind's name, e.g. "Cultist".
    pub name: String,
    /// The group's attack.
    pub attack: MinionAttack,
    /// The Resistance Difficulty of the group's best defence (d6 the attacker adds).
    pub rd: u8,
    /// The Ability level the block rolls when defending.
    #[serde(default)]
    pub defence_level: u8,
    /// Protection dice.
    #[serde(default)]
    pub protection: Vec<u8>,
    /// The stat-block Resistance Value, used only as the divisor of carried-over kills and for
    /// the Flow shift after a Decisive Attack (rules reference Q9; default 4).
    #[serde(default = "default_minion_rv")]
    pub rv: u8,
}

fn default_minion_rv() -> u8 {
    4
}

impl MinionStats {
    /// Checks the stat block.
    pub fn validate(&self) -> Result<(), SheetError> {
        let who = self.name.trim();
        if who.is_empty() {
            return Err(SheetError::EmptyName);
        }
        if self.attack.level == 0 || self.attack.level > MAX_LEVEL {
            return Err(SheetError::TalentLevel {
                who: who.into(),
                talent: "attack".into(),
                level: self.attack.level,
                ability: "minion",
                parent: MAX_LEVEL,
            });
        }
        if self.defence_level > MAX_LEVEL {
            return Err(SheetError::AbilityLevel {
                who: who.into(),
                ability: "defence",
                level: self.defence_level,
            });
        }
        check_modifier(who, "attack.modifier".into(), self.attack.modifier)?;
        if self.rv == 0 {
            return Err(SheetError::ZeroResistance { who: who.into(), defence: "the stat block" });
        }
        if self.rd > MAX_DICE || self.protection.len() > usize::from(MAX_DICE) {
            return Err(SheetError::TooManyDice { who: who.into(), what: "the stat block".into() });
        }
        check_dice(who, "protection", &self.protection)
    }
}

/// The index of a defence in sheet order, for compact storage.
pub fn defence_index(kind: DefenceKind) -> usize {
    kind.index()
}

/// A linear rule a scene file may give to derive left-out defences from Abilities. The real
/// derivation is in the unreachable part of the character-creation page (rules reference §4.3
/// [MISSING]); this is GM-chosen data, not the book's formula, and a scene without it derives
/// nothing (every sheet gives its defences). With `m` the exact mean of the defence's two
/// Abilities: `RV = rv_base + rv_per_level × m` and, since a tougher defence must have a
/// smaller Resistance Difficulty (§3.2), `RD = rd_base − rd_per_level × m` — see
/// [`DefenceFormula::derive`] for the rounding. The sheet's Protection dice stay as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DefenceFormula {
    /// RV at Abilities 0.
    pub rv_base: u8,
    /// RV added per level of the Abilities' mean.
    pub rv_per_level: u8,
    /// RD at Abilities 0.
    pub rd_base: u8,
    /// RD taken away per level of the Abilities' mean.
    pub rd_per_level: u8,
}

impl DefenceFormula {
    /// The RV and RD of `kind` for these Abilities (rules reference §4.3, Decision on derived
    /// defences): the exact mean of the defence's two Abilities, with no rounding before the
    /// rule; when RV or RD comes out with a fraction, RV is rounded down and RD up (the weaker
    /// defence); then the floors, RV at least 1 and RD at least 0.
    pub fn derive(&self, abilities: &Abilities, kind: DefenceKind) -> (u8, u8) {
        let [a, b] = kind.abilities();
        // Twice the mean, so the arithmetic stays in whole numbers.
        let sum = u32::from(abilities.get(a)) + u32::from(abilities.get(b));
        let rv2 = 2 * u32::from(self.rv_base) + u32::from(self.rv_per_level) * sum;
        let rd2 = (2 * u32::from(self.rd_base)).saturating_sub(u32::from(self.rd_per_level) * sum);
        let rv = (rv2 / 2).clamp(1, 255) as u8;
        let rd = rd2.div_ceil(2).min(u32::from(MAX_DICE)) as u8;
        (rv, rd)
    }

    /// Fills every defence the sheet left out (RV 0) by this rule.
    pub fn fill(&self, sheet: &mut Sheet) {
        for kind in DefenceKind::ALL {
            let (rv, rd) = self.derive(&sheet.abilities, kind);
            let d = sheet.defences.get_mut(kind);
            if d.rv == 0 {
                d.rv = rv;
                d.rd = rd;
            }
        }
    }
}
