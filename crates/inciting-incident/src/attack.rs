//! The arithmetic of attacks (rules reference §5.1, §7), as pure functions: the engine, the
//! `roll` calculator and the tests share them.

use serde::{Deserialize, Serialize};

use crate::dice::TARGET;

/// Crisis of an automatic Regular Attack, and how far it moves the Flow (§7.1).
pub const AUTOMATIC: i32 = 4;
/// The least a successful Regular Talent Roll moves the Flow (§7.1).
pub const MIN_FLOW: i32 = 4;
/// Crisis of a successful Regular Talent Roll (§5.1).
pub const REGULAR_SUCCESS_CRISIS: u32 = 2;
/// Crisis of a Decisive Attack, hit or miss (§5.1).
pub const DECISIVE_CRISIS: u32 = 2;
/// Crisis per Region entered (§5.2).
pub const MOVE_CRISIS: u32 = 2;
/// Extra Crisis for leaving a Duel (§5.2).
pub const LEAVE_DUEL_CRISIS: u32 = 4;

/// What a Regular Attack did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegularOutcome {
    /// How far the Flow moves toward the attacker (0 on a failure).
    pub flow: i32,
    /// The Crisis it generates.
    pub crisis: u32,
}

/// An automatic Regular Attack: Flow 4 toward the attacker, Crisis 4 (§7.1).
pub fn regular_automatic() -> RegularOutcome {
    RegularOutcome { flow: AUTOMATIC, crisis: AUTOMATIC as u32 }
}

/// A Regular Attack by Talent Roll with this `result` (§7.1): at 20 or more the Flow moves by
/// the excess, at least 4, for 2 Crisis; below 20 the Flow stays and Crisis rises by
/// `20 − result` (saturating, so a calculator's absurd `--result` cannot overflow).
pub fn regular_roll(result: i32) -> RegularOutcome {
    if result >= TARGET {
        RegularOutcome { flow: result.saturating_sub(TARGET).max(MIN_FLOW), crisis: REGULAR_SUCCESS_CRISIS }
    } else {
        let crisis = i64::from(TARGET) - i64::from(result);
        RegularOutcome { flow: 0, crisis: u32::try_from(crisis).unwrap_or(u32::MAX) }
    }
}

/// How extra hits are counted from the excess (rules reference Q4; a scene option).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtraHits {
    /// (Proposed; the default.) `1 + ⌊excess / RV⌋`: an excess equal to the RV is "over it
    /// again".
    #[default]
    AtLeast,
    /// The strict reading: an extra hit per multiple the excess strictly exceeds,
    /// `1 + ⌊(excess − 1) / RV⌋` for a positive excess.
    StrictlyMore,
}

/// The defence value of a Decisive Attack (§7.2 step 4): `RV − Flow` in the attacker's
/// frame; for a ranged Decisive Attack `RV − Talent level` (§7.3); for a minion block the RV
/// is 0 (§7.4). Saturating: a Flow at the edge of `i32` cannot overflow it.
pub fn defence_value(rv: i32, flow_or_level: i32) -> i32 {
    rv.saturating_sub(flow_or_level)
}

/// The hits a Decisive Attack deals (§7.2 step 5): none when `attack < defence_roll +
/// defence_value`, else one plus one per further multiple of `divisor` (the RV) in the excess.
pub fn decisive_hits(
    attack: i32,
    defence_roll: i32,
    defence_value: i32,
    divisor: u8,
    rule: ExtraHits,
) -> u32 {
    // In i64: the sum and the excess of two i32 cannot overflow there.
    let needed = i64::from(defence_roll) + i64::from(defence_value);
    let attack = i64::from(attack);
    if attack < needed {
        return 0;
    }
    let excess = attack - needed;
    let d = i64::from(divisor.max(1));
    let hits = match rule {
        ExtraHits::AtLeast => 1 + excess / d,
        ExtraHits::StrictlyMore => 1 + (excess - 1).max(0) / d,
    };
    u32::try_from(hits).unwrap_or(u32::MAX)
}

/// How far a Decisive Attack moves the Flow away from the attacker afterwards (§7.2 step 6):
/// half the defender's RV, rounded down (rules reference Q6).
pub fn decisive_flow_shift(rv: u8) -> i32 {
    i32::from(rv / 2)
}

/// A Flow value seen by one side: the stored Flow is in the positive side's frame (§6).
pub fn flow_for(flow: i32, side_is_positive: bool) -> i32 {
    if side_is_positive { flow } else { flow.saturating_neg() }
}

/// The most Advantage or Disadvantage a roll takes (Decision: a bound that no real table
/// reaches, so a huge minion group cannot make a roll of millions of dice).
pub const MAX_ADVANTAGE: i32 = 20;

/// Minion Advantage (§7.4): `minions − opponents`; positive is Advantage, negative
/// Disadvantage.
pub fn minion_advantage(minions: u32, opponents: u32) -> i32 {
    (i64::from(minions) - i64::from(opponents)).clamp(-i64::from(MAX_ADVANTAGE), i64::from(MAX_ADVANTAGE))
        as i32
}
