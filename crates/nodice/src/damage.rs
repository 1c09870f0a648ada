//! Applying damage (seed: Step 4 Apply Damage; rules reference §6): the partial-Aspect
//! reduction, and how the damaged Actor may spread it.

use serde::{Deserialize, Serialize};

/// Damage that gets through to an Aspect of which the Actor possesses `possessed` Attributes
/// (§6 table): all of it with 3, `floor(2D/3)` with 2, `floor(D/3)` with 1 — at least 1 when
/// `D ≥ 1` (the precise reading of "~2/3", "~1/3") — and nothing with 0.
pub fn through_partial_aspect(damage: u16, possessed: usize) -> u16 {
    if damage == 0 {
        return 0;
    }
    match possessed {
        0 => 0,
        1 => (damage / 3).max(1),
        // 2D in u32: D may be as large as its type.
        2 => ((u32::from(damage) * 2 / 3) as u16).max(1),
        _ => damage,
    }
}

/// How much of `damage` the spread must place: all of it, or every chip the Aspect has left
/// when that is less (Open question 11: excess is lost). `avs` are the current values of the
/// Aspect's three Attributes in serial order, `None` when absent.
pub fn to_place(avs: [Option<u16>; 3], damage: u16) -> u16 {
    damage.min(avs.iter().map(|v| v.unwrap_or(0)).sum())
}

/// Why a damage spread is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum SpreadError {
    /// The spread does not add up.
    #[error(
        "the spread places {placed} damage but {expected} must be placed (all of it, or all the Aspect has left)"
    )]
    Total {
        /// What the spread adds up to.
        placed: u16,
        /// What it must add up to.
        expected: u16,
    },
    /// More on one Attribute than it has.
    #[error("the spread puts {placed} on an Attribute with {has} left (values never go below 0)")]
    TooMuch {
        /// Placed on it.
        placed: u16,
        /// Its current value.
        has: u16,
    },
    /// Damage on an Attribute the Actor does not possess.
    #[error("the spread puts damage on an Attribute the Actor does not possess (-)")]
    Absent,
}

/// Checks a spread of `damage` over the Aspect's Attributes (`avs`, serial order).
pub fn check_spread(avs: [Option<u16>; 3], damage: u16, spread: [u16; 3]) -> Result<(), SpreadError> {
    for (av, &s) in avs.iter().zip(&spread) {
        match av {
            None if s > 0 => return Err(SpreadError::Absent),
            Some(v) if s > *v => return Err(SpreadError::TooMuch { placed: s, has: *v }),
            _ => {}
        }
    }
    let placed = spread.iter().sum();
    let expected = to_place(avs, damage);
    if placed != expected {
        return Err(SpreadError::Total { placed, expected });
    }
    Ok(())
}

/// Every legal spread, in lexicographic order, given to `out`.
pub fn spreads(avs: [Option<u16>; 3], damage: u16, mut out: impl FnMut([u16; 3])) {
    let total = to_place(avs, damage);
    let cap = avs.map(|v| v.unwrap_or(0));
    for a in 0..=cap[0].min(total) {
        for b in 0..=cap[1].min(total - a) {
            let c = total - a - b;
            if c <= cap[2] {
                out([a, b, c]);
            }
        }
    }
}

/// Whether there is exactly one legal spread (then the engine places it without asking).
pub fn forced_spread(avs: [Option<u16>; 3], damage: u16) -> Option<[u16; 3]> {
    let total = to_place(avs, damage);
    let cap = avs.map(|v| v.unwrap_or(0));
    let sum: u16 = cap.iter().sum();
    let with_room = cap.iter().filter(|&&c| c > 0).count();
    if total == sum {
        Some(cap)
    } else if total == 0 {
        Some([0; 3])
    } else if with_room == 1 {
        Some(cap.map(|c| if c > 0 { total } else { 0 }))
    } else {
        None
    }
}

/// A suggested spread: one chip at a time on the Attribute with the most left (first in
/// serial order on ties), keeping the Aspect's values even. For bots and prompts.
pub fn even_spread(avs: [Option<u16>; 3], damage: u16) -> [u16; 3] {
    let mut left = avs.map(|v| v.unwrap_or(0));
    let mut spread = [0; 3];
    for _ in 0..to_place(avs, damage) {
        let mut best = 0;
        for i in 1..3 {
            if left[i] > left[best] {
                best = i;
            }
        }
        left[best] -= 1;
        spread[best] += 1;
    }
    spread
}
