//! Dice (rules reference §3): the level → dice table, pools, Talent and Ability Rolls, and
//! Advantage/Disadvantage.
//!
//! Every roll is drawn from the scene's draw source ([`table::Draws`], through a
//! [`Stream`]) and recorded as a [`Roll`] with each die, so a scene replays identically and
//! the log shows every die.

use serde::{Deserialize, Serialize};
use table::Stream;

/// The number a Talent Roll (and, by Decision, every Ability Roll) must reach: success is
/// `total ≥ 20` (§3.2).
pub const TARGET: i32 = 20;

/// The highest level of an Ability or Talent (§3.1).
pub const MAX_LEVEL: u8 = 9;

/// The dice a level rolls (§3.1 table): `(count, sides)`. Level 0 rolls nothing (the rules
/// reference's proposal: it contributes 0, and a level-0 Talent cannot be used for a roll).
pub fn level_dice(level: u8) -> (u8, u8) {
    match level {
        1 => (1, 4),
        2 => (1, 6),
        3 => (1, 8),
        4 => (1, 10),
        5 => (2, 6),
        6 => (2, 8),
        7 => (2, 10),
        8 => (3, 8),
        9 => (3, 10),
        _ => (0, 0),
    }
}

/// The point cost of a level (§3.1 table): the triangular number `L(L+1)/2`.
pub fn level_cost(level: u8) -> u32 {
    let l = u32::from(level.min(MAX_LEVEL));
    l * (l + 1) / 2
}

/// Whether a die size is one the game uses (protection and bonus dice: d4–d12).
pub fn valid_sides(sides: u8) -> bool {
    matches!(sides, 4 | 6 | 8 | 10 | 12)
}

/// What a die did in a roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counted {
    /// Added to the total.
    Added,
    /// Rolled but dropped by Advantage or Disadvantage.
    Dropped,
    /// Subtracted from the total (the "−1d6 per Disadvantage" rule).
    Subtracted,
}

/// One die of a roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Die {
    /// Its size: 4 for a d4 …
    pub sides: u8,
    /// What it showed.
    pub value: u8,
    /// Whether it counts.
    pub counted: Counted,
}

/// A pool of dice before rolling: groups of `count` dice of `sides`, and a flat modifier.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Pool {
    /// `(count, sides)` groups, in the order they are rolled.
    pub groups: Vec<(u8, u8)>,
    /// A flat number added to the total (Skill modifiers).
    pub modifier: i32,
}

impl Pool {
    /// The dice of a level.
    pub fn level(level: u8) -> Pool {
        let mut p = Pool::default();
        p.add_level(level);
        p
    }

    /// Adds the dice of a level.
    pub fn add_level(&mut self, level: u8) -> &mut Self {
        let (n, s) = level_dice(level);
        self.add(n, s)
    }

    /// Adds `count` dice of `sides` (nothing for a count of 0).
    pub fn add(&mut self, count: u8, sides: u8) -> &mut Self {
        if count > 0 && sides > 0 {
            self.groups.push((count, sides));
        }
        self
    }

    /// The largest die type in the pool (0 for an empty pool).
    pub fn largest(&self) -> u8 {
        self.groups.iter().map(|g| g.1).max().unwrap_or(0)
    }

    /// How many dice the pool has.
    pub fn len(&self) -> usize {
        self.groups.iter().map(|g| usize::from(g.0)).sum()
    }

    /// Whether the pool has no dice.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// How Advantage and Disadvantage change a roll (§3.3). The core rules' text is missing;
/// this is the one swappable rule (Decision, rules reference Q1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdvantageRule {
    /// (Proposed; the default.) Net Advantage against Disadvantage; each point of the net
    /// rolls one extra die of the pool's largest type, then drops that many lowest dice
    /// (Advantage) or highest dice (Disadvantage). The Resistance Difficulty d6 are part of
    /// the pool.
    #[default]
    ExtraDie,
    /// The alternative: each net point of Advantage adds 1d6 to the total, each net point of
    /// Disadvantage subtracts 1d6.
    PlusMinusD6,
}

/// A rolled pool: every die, the modifier and the total.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Roll {
    /// Every die rolled, in pool order, extra dice last.
    pub dice: Vec<Die>,
    /// The flat modifier.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub modifier: i32,
    /// Net Advantage (positive) or Disadvantage (negative) applied.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub advantage: i32,
    /// The total: counted dice plus the modifier.
    pub total: i32,
}

fn is_zero(n: &i32) -> bool {
    *n == 0
}

impl Roll {
    /// The dice as text, e.g. `d8:7 d8:5 d6:3 (d6:1 dropped) +1 = 16`.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        for d in &self.dice {
            if !s.is_empty() {
                s.push(' ');
            }
            match d.counted {
                Counted::Added => s.push_str(&format!("d{}:{}", d.sides, d.value)),
                Counted::Dropped => s.push_str(&format!("(d{}:{} dropped)", d.sides, d.value)),
                Counted::Subtracted => s.push_str(&format!("−d{}:{}", d.sides, d.value)),
            }
        }
        if self.modifier != 0 {
            s.push_str(&format!(" {:+}", self.modifier));
        }
        if s.is_empty() {
            s.push_str("no dice");
        }
        s.push_str(&format!(" = {}", self.total));
        s
    }

    /// Whether the roll reaches [`TARGET`].
    pub fn succeeds(&self) -> bool {
        self.total >= TARGET
    }
}

fn die(rng: &mut Stream, sides: u8) -> u8 {
    rng.die(sides)
}

/// Rolls `pool` with `advantage` net points (negative for Disadvantage) under `rule` (§3.3),
/// drawing every die from `rng` (a stream of the scene's [`table::Draws`], or of a fresh
/// `Draws::seeded(seed)` for a roll outside a scene).
pub fn roll(rng: &mut Stream, pool: &Pool, advantage: i32, rule: AdvantageRule) -> Roll {
    let advantage = advantage.clamp(-crate::attack::MAX_ADVANTAGE, crate::attack::MAX_ADVANTAGE);
    let mut dice = Vec::with_capacity(pool.len() + advantage.unsigned_abs() as usize);
    // A 0-sided die is no die (`Pool::add` skips them; a pool built field by field may not).
    for &(n, sides) in pool.groups.iter().filter(|g| g.1 > 0) {
        for _ in 0..n {
            dice.push(Die { sides, value: die(rng, sides), counted: Counted::Added });
        }
    }
    let extra = advantage.unsigned_abs() as usize;
    match rule {
        AdvantageRule::ExtraDie if extra > 0 && pool.largest() > 0 => {
            let sides = pool.largest();
            for _ in 0..extra {
                dice.push(Die { sides, value: die(rng, sides), counted: Counted::Added });
            }
            // Drop the `extra` lowest (Advantage) or highest (Disadvantage); among equal values
            // the later die is dropped first.
            for _ in 0..extra {
                let pick = dice.iter().enumerate().filter(|(_, d)| d.counted == Counted::Added).fold(
                    None::<(usize, u8)>,
                    |best, (i, d)| match best {
                        None => Some((i, d.value)),
                        Some((_, v))
                            if (advantage > 0 && d.value <= v) || (advantage < 0 && d.value >= v) =>
                        {
                            Some((i, d.value))
                        }
                        b => b,
                    },
                );
                if let Some((i, _)) = pick {
                    dice[i].counted = Counted::Dropped;
                }
            }
        }
        AdvantageRule::PlusMinusD6 if extra > 0 => {
            let counted = if advantage > 0 { Counted::Added } else { Counted::Subtracted };
            for _ in 0..extra {
                dice.push(Die { sides: 6, value: die(rng, 6), counted });
            }
        }
        _ => {}
    }
    // At most a few hundred dice: their sum fits; the modifier is added saturating.
    let total = dice
        .iter()
        .map(|d| match d.counted {
            Counted::Added => i32::from(d.value),
            Counted::Dropped => 0,
            Counted::Subtracted => -i32::from(d.value),
        })
        .sum::<i32>()
        .saturating_add(pool.modifier);
    Roll { dice, modifier: pool.modifier, advantage, total }
}

/// The pool of a Talent Roll (§3.2): the Talent's level dice, its Skills' bonus dice and
/// modifier, and the target's Resistance Difficulty in d6.
pub fn talent_pool(level: u8, bonus_dice: &[u8], modifier: i32, resistance_difficulty: u8) -> Pool {
    let mut p = Pool::level(level);
    for &s in bonus_dice {
        p.add(1, s);
    }
    p.add(resistance_difficulty, 6);
    p.modifier = modifier;
    p
}

/// The pool of a defence roll against a Decisive Attack (§7.2 step 3): the chosen Ability's
/// dice and the Protection dice.
pub fn defence_pool(ability_level: u8, protection: &[u8]) -> Pool {
    let mut p = Pool::level(ability_level);
    for &s in protection {
        p.add(1, s);
    }
    p
}

/// The pool of an Ability Roll against a difficulty of `difficulty` d6 (Decision for the
/// rolls whose target the core rules do not give: rest, keep fighting, obstacles — §3.2).
pub fn ability_pool(level: u8, difficulty: u8) -> Pool {
    let mut p = Pool::level(level);
    p.add(difficulty, 6);
    p
}

/// The exact distribution of the sum of a pool's dice without Advantage: `dist[t]` is the
/// probability that the dice sum to `t` (the modifier is not included; for tests and
/// analysis).
pub fn distribution(pool: &Pool) -> Vec<f64> {
    let mut dist = vec![1.0];
    for &(n, sides) in pool.groups.iter().filter(|g| g.1 > 0) {
        for _ in 0..n {
            let mut next = vec![0.0; dist.len() + usize::from(sides)];
            for (t, p) in dist.iter().enumerate() {
                for v in 1..=usize::from(sides) {
                    next[t + v] += p / f64::from(sides);
                }
            }
            dist = next;
        }
    }
    dist
}

/// The probability that a pool (without Advantage, modifier included) reaches [`TARGET`]:
/// always in `[0, 1]` and never `-0.0` (an empty `f64` sum is `-0.0`, which printed as
/// "-0.000"; rounding in a long sum may pass 1).
pub fn success_chance(pool: &Pool) -> f64 {
    let p = distribution(pool)
        .iter()
        .enumerate()
        .filter(|(t, _)| *t as i64 + i64::from(pool.modifier) >= i64::from(TARGET))
        .fold(0.0, |sum, (_, p)| sum + p);
    probability(p)
}

/// A computed chance made fit to print: clamped to `[0, 1]`, `-0.0` and NaN made `0.0`.
pub fn probability(p: f64) -> f64 {
    if p.is_nan() || p <= 0.0 { 0.0 } else { p.min(1.0) }
}
