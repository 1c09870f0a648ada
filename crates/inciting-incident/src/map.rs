//! The map (rules reference §5.2): 3–5 Regions, their adjacency, movement and line-of-sight
//! blockers, and Region effects as data.

use serde::{Deserialize, Serialize};

/// A Region's number on the map (its place in the scene file's list, from 0).
pub type RegionId = u8;

/// What a Region does to everyone in it (§5.2). Triggers and Advanced Actions may replace
/// it mid-scene.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionEffect {
    /// A short description for the log, e.g. "High Ground".
    #[serde(default)]
    pub name: String,
    /// Crisis per entry into this Region instead of 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_crisis: Option<u32>,
    /// A Move that starts here crosses at most this many Regions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_move: Option<u8>,
    /// Advantage (negative: Disadvantage) on ranged attacks made from here ("High Ground").
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ranged_advantage: i32,
    /// Advantage (negative: Disadvantage) on every attack made from here.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attack_advantage: i32,
    /// Extra Protection dice for everyone defending here (cover, a barricade).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub protection: Vec<u8>,
    /// Entering needs a Simple Obstacle: a Nimbleness Ability Roll with this many d6 of
    /// difficulty must reach 20, else the Move stops outside (Decision, §3.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obstacle: Option<u8>,
}

impl RegionEffect {
    /// Checks the effect's numbers: dice sizes d4–d12, at most 20 obstacle or Protection dice,
    /// Advantage within ±20.
    pub fn check(&self) -> Result<(), String> {
        let max = crate::character::MAX_DICE;
        if self.obstacle.is_some_and(|d| d > max) || self.protection.len() > usize::from(max) {
            return Err(format!("at most {max} obstacle or Protection dice"));
        }
        if let Some(s) = self.protection.iter().find(|s| !crate::dice::valid_sides(**s)) {
            return Err(format!("protection has a d{s}; dice are d4, d6, d8, d10 or d12"));
        }
        let adv = crate::attack::MAX_ADVANTAGE;
        if self.ranged_advantage.unsigned_abs() > adv.unsigned_abs()
            || self.attack_advantage.unsigned_abs() > adv.unsigned_abs()
        {
            return Err(format!("Advantage goes from -{adv} to {adv}"));
        }
        Ok(())
    }
}

fn is_zero(n: &i32) -> bool {
    *n == 0
}

/// A Region as the scene file describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Region {
    /// Its name.
    pub name: String,
    /// What it looks like.
    #[serde(default)]
    pub description: String,
    /// Its effect.
    #[serde(default)]
    pub effect: RegionEffect,
}

/// The map's connections as bit masks: bit `j` of `adjacent[i]` says Regions `i` and `j` are
/// adjacent, and so on. Symmetric.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Links {
    /// Adjacency.
    pub adjacent: Vec<u8>,
    /// Adjacent pairs a wall or the like keeps anyone from moving between.
    pub move_blocked: Vec<u8>,
    /// Pairs with line of sight (precomputed: some straight line crosses no obstruction).
    pub sight: Vec<u8>,
}

impl Links {
    /// Whether `a` and `b` are adjacent.
    pub fn adjacent(&self, a: RegionId, b: RegionId) -> bool {
        bit(&self.adjacent, a, b)
    }

    /// Whether one may move from `a` into `b` (adjacent and not blocked).
    pub fn can_move(&self, a: RegionId, b: RegionId) -> bool {
        self.adjacent(a, b) && !bit(&self.move_blocked, a, b)
    }

    /// Whether one may move from `a` into `b`, passing movement blockers when `pass_blockers`
    /// (a movement Skill).
    pub fn passable(&self, a: RegionId, b: RegionId, pass_blockers: bool) -> bool {
        self.adjacent(a, b) && (pass_blockers || !bit(&self.move_blocked, a, b))
    }

    /// The Regions one step of a Move from `a` may enter (bit `r`), passing up to `skip`
    /// intervening Regions on the way without entering them (movement Skills, §5.2).
    pub fn steps(&self, a: RegionId, skip: u8, pass_blockers: bool) -> u16 {
        let n = self.adjacent.len() as u8;
        if a >= n {
            return 0;
        }
        let mut reached: u16 = 1 << a;
        let mut frontier: u16 = 1 << a;
        let mut out: u16 = 0;
        for _ in 0..=skip {
            let mut next: u16 = 0;
            for from in (0..n).filter(|&r| frontier & (1 << r) != 0) {
                for to in (0..n).filter(|&r| reached & (1 << r) == 0) {
                    if self.passable(from, to, pass_blockers) {
                        next |= 1 << to;
                    }
                }
            }
            reached |= next;
            out |= next;
            frontier = next;
        }
        out
    }

    /// Whether `a` sees `b`.
    pub fn sees(&self, a: RegionId, b: RegionId) -> bool {
        a == b || bit(&self.sight, a, b)
    }

    /// How many adjacency steps apart `a` and `b` are (movement blockers do not matter: this
    /// is distance, not a path one walks), or `None` when unconnected.
    pub fn distance(&self, a: RegionId, b: RegionId) -> Option<u8> {
        let n = self.adjacent.len() as u8;
        if a >= n || b >= n {
            return None;
        }
        let mut reached: u16 = 1 << a;
        let mut frontier: u16 = 1 << a;
        for d in 0..n {
            if reached & (1 << b) != 0 {
                return Some(d);
            }
            let mut next = 0u16;
            for from in (0..n).filter(|&r| frontier & (1 << r) != 0) {
                next |= u16::from(self.adjacent[usize::from(from)]) & !reached;
            }
            if next == 0 {
                return None;
            }
            reached |= next;
            frontier = next;
        }
        (reached & (1 << b) != 0).then_some(n)
    }

    /// Whether a ranged attack with `range` (in Regions, 1 for the basic Ranged Skill) reaches
    /// from `a` to `b`: another Region at most `range` steps away, in sight unless the attack
    /// passes sight blockers (§7.3; a longer range is a Ranged upgrade's data).
    pub fn in_reach(&self, a: RegionId, b: RegionId, range: u8, pass_sight_blockers: bool) -> bool {
        a != b && self.distance(a, b).is_some_and(|d| d <= range) && (pass_sight_blockers || self.sees(a, b))
    }

    /// Whether a basic ranged attack reaches from `a` to `b`: adjacent with line of sight
    /// (§7.3).
    pub fn in_range(&self, a: RegionId, b: RegionId) -> bool {
        self.adjacent(a, b) && self.sees(a, b)
    }
}

fn bit(masks: &[u8], a: RegionId, b: RegionId) -> bool {
    masks.get(usize::from(a)).is_some_and(|m| m.checked_shr(u32::from(b)).is_some_and(|m| m & 1 != 0))
}

/// Sets both directions of a pair.
pub fn link(masks: &mut [u8], a: RegionId, b: RegionId) {
    masks[usize::from(a)] |= 1 << b;
    masks[usize::from(b)] |= 1 << a;
}

/// Clears both directions of a pair.
pub fn unlink(masks: &mut [u8], a: RegionId, b: RegionId) {
    masks[usize::from(a)] &= !(1 << b);
    masks[usize::from(b)] &= !(1 << a);
}
