//! The dice calculator (`facedown inciting-incident roll`) for a table playing with real dice
//! or none: a [`Request`] (a Talent Roll, a Decisive Attack, a Rest Scene roll, an Ability Roll,
//! or the level table) is checked ([`RollError`] names the flag and the rule) and answered
//! ([`compute`]) by the engine's own functions: the pools of [`dice`], the attack arithmetic of
//! [`attack`] (§7.1, §7.2), the wounds of [`wounds`] (§9). The dice are rolled from the
//! caller's [`Stream`] (the table's recorded draw source) unless the total of real dice is given. Nothing here re-derives a
//! rule; the [`Answer`] is the command's `--json` output, and a shell only renders it.

use serde::Serialize;
use table::Stream;
use thiserror::Error;

use crate::attack::{
    DECISIVE_CRISIS, ExtraHits, MAX_ADVANTAGE, decisive_flow_shift, decisive_hits, defence_value,
    regular_automatic, regular_roll,
};
use crate::character::{MAX_DICE, MAX_MODIFIER};
use crate::dice::{
    self, AdvantageRule, Pool, Roll, TARGET, ability_pool, defence_pool, level_cost, level_dice,
    success_chance, talent_pool,
};
use crate::wounds::{RestOutcome, StateError, Wounds};

/// What to roll, with the totals of real dice where given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// The level → dice → cost table (§3.1).
    Levels,
    /// A Talent Roll for a Regular Attack (§7.1): level dice + modifier + the target's RD in
    /// d6, against 20; or the automatic success.
    Talent {
        /// The Talent's level, 1 to 9.
        level: u8,
        /// The target defence's Resistance Difficulty in d6, 0 to [`MAX_DICE`].
        rd: u8,
        /// A flat Skill modifier, ±[`MAX_MODIFIER`].
        modifier: i32,
        /// Net Advantage (negative: Disadvantage), ±[`MAX_ADVANTAGE`].
        advantage: i32,
        /// The total rolled with real dice.
        result: Option<i32>,
        /// The automatic success instead of a roll (Flow 4, Crisis 4).
        automatic: bool,
    },
    /// A Decisive Attack (§7.2, ranged §7.3).
    Decisive {
        /// The attacker's Talent level, 1 to 9.
        level: u8,
        /// The target defence's Resistance Difficulty in d6.
        rd: u8,
        /// The target defence's Resistance Value, at least 1.
        rv: u8,
        /// The defender's Ability level for the defence roll, 0 to 9.
        ability: u8,
        /// Protection dice sizes.
        protection: Vec<u8>,
        /// The Flow of Battle from the attacker's side (ignored when ranged).
        flow: i32,
        /// A ranged Decisive Attack: the Talent level replaces the Flow, which stays.
        ranged: bool,
        /// A flat Skill modifier on the attack.
        modifier: i32,
        /// Net Advantage on the attack.
        advantage: i32,
        /// The attack total rolled with real dice.
        attack: Option<i32>,
        /// The defence total rolled with real dice.
        defence: Option<i32>,
        /// How extra hits are counted.
        extra_hits: ExtraHits,
    },
    /// A Rest Scene for one character (§9).
    Rest {
        /// The level rolled (an Ability or a Talent), 0 to 9.
        level: u8,
        /// The difficulty in d6.
        difficulty: u8,
        /// The character's wounds now.
        wounds: Wounds,
        /// Stated revived (by a healing Skill): at Max Hits, a character is Incapacitated unless
        /// stated revived, and one of the two must be said (§9, Decision).
        revived: bool,
        /// A whole day of rest instead of a roll.
        full_day: bool,
        /// The total rolled with real dice.
        result: Option<i32>,
    },
    /// An Ability Roll (rest, keep fighting, obstacles): Ability dice + difficulty d6, vs 20.
    Ability {
        /// The Ability level, 0 to 9.
        level: u8,
        /// The difficulty in d6.
        difficulty: u8,
        /// The total rolled with real dice.
        result: Option<i32>,
    },
}

/// Why the calculator refuses a request: the flag and the rule.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RollError {
    /// A level that rolls no dice.
    #[error("--level {0}: levels that roll dice go from 1 to 9")]
    Level(u8),
    /// An Ability level above 9.
    #[error("{flag} {level}: Ability levels go from 0 to 9")]
    Ability {
        /// The flag.
        flag: &'static str,
        /// The level.
        level: u8,
    },
    /// A count of d6 above [`MAX_DICE`].
    #[error("{flag} {count}: at most {MAX_DICE} dice, as on a sheet")]
    Dice {
        /// The flag.
        flag: &'static str,
        /// The count.
        count: u8,
    },
    /// A modifier beyond ±[`MAX_MODIFIER`].
    #[error("--modifier {0}: a flat modifier goes from -{MAX_MODIFIER} to {MAX_MODIFIER}, as on a sheet")]
    Modifier(i32),
    /// Advantage beyond ±[`MAX_ADVANTAGE`].
    #[error("--advantage {0}: net Advantage goes from -{MAX_ADVANTAGE} to {MAX_ADVANTAGE}")]
    Advantage(i32),
    /// A Resistance Value of 0.
    #[error("--rv 0: a Resistance Value is at least 1")]
    Rv,
    /// A Protection die that is no die.
    #[error("--protection {0}: dice are d4, d6, d8, d10 or d12")]
    ProtectionDie(u8),
    /// Too many Protection dice.
    #[error("--protection: at most {MAX_DICE} Protection dice, as on a sheet")]
    ProtectionCount,
    /// Hits beyond Max Hits.
    #[error("--hits and --death-hits go from 0 to --max-hits, which is at least 1")]
    Hits,
    /// Max Hits without saying whether the character is Incapacitated or revived (§9,
    /// Decision on the state at Max Hits: the calculator refuses to guess).
    #[error(
        "--hits {hits} is --max-hits {hits}: a character at Max Hits is Incapacitated unless it was revived. \
         Pass --incapacitated (nobody revived it: its day holds its daily roll) or --revived (a healing \
         Skill revived it)"
    )]
    MaxHitsUnstated {
        /// The hits, equal to Max Hits.
        hits: u8,
    },
    /// Both `--incapacitated` and `--revived`.
    #[error("--incapacitated and --revived: a revived character is no longer Incapacitated; pass only one")]
    IncapacitatedAndRevived,
}

impl From<StateError> for RollError {
    fn from(e: StateError) -> Self {
        match e {
            StateError::Unstated { hits } => RollError::MaxHitsUnstated { hits },
            StateError::Both => RollError::IncapacitatedAndRevived,
        }
    }
}

/// One row of the level table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LevelRow {
    /// The level.
    pub level: u8,
    /// Its dice, e.g. "2d6".
    pub dice: String,
    /// Its cost.
    pub cost: u32,
    /// The mean of its dice.
    pub mean: f64,
    /// The chance to reach 20 with its dice alone.
    pub p_20: f64,
}

/// The calculator's answer (the `--json` output).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Answer {
    /// The level table.
    Levels {
        /// Levels 1 to 9.
        levels: Vec<LevelRow>,
    },
    /// The automatic Regular Attack.
    Automatic {
        /// Always true.
        automatic: bool,
        /// Flow toward the attacker.
        flow: i32,
        /// Crisis generated.
        crisis: u32,
    },
    /// A Talent Roll for a Regular Attack.
    Talent {
        /// The dice, when rolled here.
        roll: Option<Roll>,
        /// The total.
        total: i32,
        /// Whether it reached 20.
        success: bool,
        /// Flow toward the attacker.
        flow: i32,
        /// Crisis generated.
        crisis: u32,
        /// The chance to reach 20 without Advantage.
        p_success: f64,
    },
    /// A Decisive Attack.
    Decisive {
        /// The attack dice, when rolled here.
        attack: Option<Roll>,
        /// The attack total.
        attack_total: i32,
        /// The defence dice, when rolled here.
        defence: Option<Roll>,
        /// The defence total.
        defence_total: i32,
        /// RV − Flow (ranged: RV − Talent level).
        defence_value: i32,
        /// What the attack needed: the defence total plus the defence value.
        needed: i32,
        /// The hits dealt.
        hits: u32,
        /// How far the Flow moves away from the attacker (0 when ranged).
        flow_shift: i32,
        /// The Crisis generated.
        crisis: u32,
        /// What the defence value subtracts from the RV: the Flow, or the Talent level when
        /// ranged.
        #[serde(skip)]
        subtracted: i32,
        /// The Flow afterwards, from the attacker's side.
        #[serde(skip)]
        flow_after: i32,
    },
    /// A Rest Scene roll or a whole day of rest.
    Rest {
        /// The dice, when rolled here.
        roll: Option<Roll>,
        /// The total, when a roll was needed.
        total: Option<i32>,
        /// What the rest did.
        outcome: RestOutcome,
        /// The wounds afterwards.
        wounds: Wounds,
        /// Whether the character is dead.
        dead: bool,
    },
    /// An Ability Roll.
    Ability {
        /// The dice, when rolled here.
        roll: Option<Roll>,
        /// The total.
        total: i32,
        /// Whether it reached 20.
        success: bool,
        /// The chance to reach 20.
        p_success: f64,
    },
}

fn check_level(level: u8) -> Result<(), RollError> {
    if (1..=dice::MAX_LEVEL).contains(&level) { Ok(()) } else { Err(RollError::Level(level)) }
}

fn check_ability(flag: &'static str, level: u8) -> Result<(), RollError> {
    if level <= dice::MAX_LEVEL { Ok(()) } else { Err(RollError::Ability { flag, level }) }
}

fn check_dice(flag: &'static str, count: u8) -> Result<(), RollError> {
    if count <= MAX_DICE { Ok(()) } else { Err(RollError::Dice { flag, count }) }
}

fn check_attack(modifier: i32, advantage: i32) -> Result<(), RollError> {
    if modifier.unsigned_abs() > MAX_MODIFIER.unsigned_abs() {
        return Err(RollError::Modifier(modifier));
    }
    if advantage.unsigned_abs() > MAX_ADVANTAGE.unsigned_abs() {
        return Err(RollError::Advantage(advantage));
    }
    Ok(())
}

/// The total of real dice when given, else a roll of `pool` from `rng` (with the roll).
fn roll_or(
    given: Option<i32>,
    pool: &Pool,
    advantage: i32,
    rule: AdvantageRule,
    rng: &mut Stream,
) -> (Option<Roll>, i32) {
    match given {
        Some(total) => (None, total),
        None => {
            let r = dice::roll(rng, pool, advantage, rule);
            let total = r.total;
            (Some(r), total)
        }
    }
}

/// Checks and answers a request, rolling from `rng` where no total is given.
pub fn compute(request: &Request, rule: AdvantageRule, rng: &mut Stream) -> Result<Answer, RollError> {
    Ok(match request {
        Request::Levels => Answer::Levels {
            levels: (1..=dice::MAX_LEVEL)
                .map(|l| {
                    let (n, s) = level_dice(l);
                    LevelRow {
                        level: l,
                        dice: format!("{n}d{s}"),
                        cost: level_cost(l),
                        mean: f64::from(n) * (f64::from(s) + 1.0) / 2.0,
                        p_20: success_chance(&Pool::level(l)),
                    }
                })
                .collect(),
        },
        Request::Talent { automatic: true, .. } => {
            let o = regular_automatic();
            Answer::Automatic { automatic: true, flow: o.flow, crisis: o.crisis }
        }
        &Request::Talent { level, rd, modifier, advantage, result, automatic: false } => {
            check_level(level)?;
            check_dice("--rd", rd)?;
            check_attack(modifier, advantage)?;
            let pool = talent_pool(level, &[], modifier, rd);
            let (roll, total) = roll_or(result, &pool, advantage, rule, rng);
            let o = regular_roll(total);
            Answer::Talent {
                roll,
                total,
                success: total >= TARGET,
                flow: o.flow,
                crisis: o.crisis,
                p_success: success_chance(&pool),
            }
        }
        Request::Decisive {
            level,
            rd,
            rv,
            ability,
            protection,
            flow,
            ranged,
            modifier,
            advantage,
            attack,
            defence,
            extra_hits,
        } => {
            check_level(*level)?;
            check_ability("--ability", *ability)?;
            check_dice("--rd", *rd)?;
            check_attack(*modifier, *advantage)?;
            if *rv == 0 {
                return Err(RollError::Rv);
            }
            if let Some(&s) = protection.iter().find(|s| !dice::valid_sides(**s)) {
                return Err(RollError::ProtectionDie(s));
            }
            if protection.len() > usize::from(MAX_DICE) {
                return Err(RollError::ProtectionCount);
            }
            let apool = talent_pool(*level, &[], *modifier, *rd);
            let (arolled, a) = roll_or(*attack, &apool, *advantage, rule, rng);
            let dpool = defence_pool(*ability, protection);
            let (drolled, d) = roll_or(*defence, &dpool, 0, rule, rng);
            // §7.3: a ranged Decisive Attack subtracts the Talent level instead of the Flow.
            let subtracted = if *ranged { i32::from(*level) } else { *flow };
            let dv = defence_value(i32::from(*rv), subtracted);
            let hits = decisive_hits(a, d, dv, *rv, *extra_hits);
            // §7.2 step 6, hit or miss; a ranged attack leaves the Flow alone (Decision).
            let shift = if *ranged { 0 } else { decisive_flow_shift(*rv) };
            Answer::Decisive {
                attack: arolled,
                attack_total: a,
                defence: drolled,
                defence_total: d,
                defence_value: dv,
                needed: d.saturating_add(dv),
                hits,
                flow_shift: shift,
                crisis: DECISIVE_CRISIS,
                subtracted,
                flow_after: flow.saturating_sub(shift),
            }
        }
        &Request::Rest { level, difficulty, wounds, revived, full_day, result } => {
            check_ability("--level", level)?;
            check_dice("--difficulty", difficulty)?;
            if wounds.max_hits == 0 || wounds.hits > wounds.max_hits || wounds.death_hits > wounds.max_hits {
                return Err(RollError::Hits);
            }
            wounds.check_stated(revived)?;
            let mut w = wounds;
            // §9: a dead character rolls nothing; a full day heals every hit of a conscious
            // character, while an Incapacitated one makes its daily roll that day instead.
            let needs_roll = !(w.is_dead() || full_day && w.full_day_heals());
            let (roll, total) = if needs_roll {
                let (roll, total) = roll_or(result, &ability_pool(level, difficulty), 0, rule, rng);
                (roll, Some(total))
            } else {
                (None, None)
            };
            let success = total.is_some_and(|t| t >= TARGET);
            let outcome = if full_day { w.full_day(success) } else { w.rest(success) };
            Answer::Rest { roll, total, outcome, wounds: w, dead: w.is_dead() }
        }
        &Request::Ability { level, difficulty, result } => {
            check_ability("--level", level)?;
            check_dice("--difficulty", difficulty)?;
            let pool = ability_pool(level, difficulty);
            let (roll, total) = roll_or(result, &pool, 0, rule, rng);
            Answer::Ability { roll, total, success: total >= TARGET, p_success: success_chance(&pool) }
        }
    })
}
