//! Stakes (seed: Stakes Calculation; rules reference §5 "Conflict setup").

use std::fmt;

use serde::{Deserialize, Serialize};

/// The Conflict-wide danger level, 1–5: the ante, the Dominance bonuses and the Sweep bonus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Stakes(u8);

/// Stakes outside 1–5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("Stakes {0} is out of range; Stakes are 1 (Low Stakes) to 5 (Mythic)")]
pub struct StakesError(pub u8);

impl TryFrom<u8> for Stakes {
    type Error = StakesError;

    fn try_from(value: u8) -> Result<Self, Self::Error> {
        Stakes::new(value)
    }
}

impl From<Stakes> for u8 {
    fn from(s: Stakes) -> u8 {
        s.0
    }
}

/// Which Stakes formula to use (Open question 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum StakesFormula {
    /// The seed's: `floor(highest Rank / 5)`, clamped to 1–5. The default: the seed wins.
    #[default]
    Seed,
    /// The January revisions': `min(5, 1 + floor((highest Rank − 1) / 5))`.
    Old,
}

impl Stakes {
    /// The lowest Stakes.
    pub const LOW: Stakes = Stakes(1);

    /// Stakes `value`, which must be 1–5.
    pub fn new(value: u8) -> Result<Stakes, StakesError> {
        if (1..=5).contains(&value) { Ok(Stakes(value)) } else { Err(StakesError(value)) }
    }

    /// Stakes from the highest Rank among the participants (seed: Stakes Formula,
    /// `Stakes = (Highest Actor Rank) / 5 (1 minimum)`, rounded down, at most 5).
    pub fn from_rank(highest_rank: u16, formula: StakesFormula) -> Stakes {
        let v = match formula {
            StakesFormula::Seed => highest_rank / 5,
            StakesFormula::Old => 1 + highest_rank.saturating_sub(1) / 5,
        };
        Stakes(v.clamp(1, 5) as u8)
    }

    /// The number, 1–5.
    pub fn value(self) -> u16 {
        u16::from(self.0)
    }

    /// The Stakes name the GM announces (seed: Stakes names).
    pub fn name(self) -> &'static str {
        ["Low Stakes", "Hot", "High Stakes", "Deadly", "Mythic"][usize::from(self.0 - 1)]
    }
}

impl fmt::Display for Stakes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.0, self.name())
    }
}
