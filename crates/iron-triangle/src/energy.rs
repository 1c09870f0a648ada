//! Energy per type, stances, and taking losses (rules reference §1, §5.2 step 2, §5.3).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::card::Action;

/// Energy per type: Defend ○, Grapple ▨, Attack ◆.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Energy {
    /// Defend ○.
    pub defend: u8,
    /// Grapple ▨.
    pub grapple: u8,
    /// Attack ◆.
    pub attack: u8,
}

impl Energy {
    /// No energy at all.
    pub const ZERO: Energy = Energy { defend: 0, grapple: 0, attack: 0 };

    /// Energy from ○, ▨, ◆ amounts.
    pub const fn new(defend: u8, grapple: u8, attack: u8) -> Energy {
        Energy { defend, grapple, attack }
    }

    /// The amount of one type.
    pub fn get(&self, action: Action) -> u8 {
        match action {
            Action::Defend => self.defend,
            Action::Grapple => self.grapple,
            Action::Attack => self.attack,
        }
    }

    /// A mutable reference to one type.
    pub fn get_mut(&mut self, action: Action) -> &mut u8 {
        match action {
            Action::Defend => &mut self.defend,
            Action::Grapple => &mut self.grapple,
            Action::Attack => &mut self.attack,
        }
    }

    /// The sum over the three types.
    pub fn total(&self) -> u32 {
        u32::from(self.defend) + u32::from(self.grapple) + u32::from(self.attack)
    }

    /// Whether every type of `self` is at most that of `other`.
    pub fn fits_within(&self, other: &Energy) -> bool {
        Action::ALL.iter().all(|&a| self.get(a) <= other.get(a))
    }

    /// Takes `amount` from one type, never below zero; returns what was actually taken.
    pub fn take(&mut self, action: Action, amount: u8) -> u8 {
        let e = self.get_mut(action);
        let taken = amount.min(*e);
        *e -= taken;
        taken
    }

    /// Adds `other` type by type (saturating).
    pub fn plus(&self, other: &Energy) -> Energy {
        Energy {
            defend: self.defend.saturating_add(other.defend),
            grapple: self.grapple.saturating_add(other.grapple),
            attack: self.attack.saturating_add(other.attack),
        }
    }

    /// Subtracts `other` type by type, never below zero.
    pub fn saturating_sub(&self, other: &Energy) -> Energy {
        Energy {
            defend: self.defend.saturating_sub(other.defend),
            grapple: self.grapple.saturating_sub(other.grapple),
            attack: self.attack.saturating_sub(other.attack),
        }
    }

    /// The default way a bot or a hurried player spreads a loss (a documented default, since
    /// §5.3 leaves the choice to the loser's controller): one point at a time from the type
    /// with the most energy left, ties going to ○, then ▨, then ◆. This keeps every type
    /// usable for stances as long as possible. Returns the amount taken from each type.
    pub fn default_spread(&self, amount: u32) -> Energy {
        let mut left = *self;
        let mut taken = Energy::ZERO;
        for _ in 0..amount.min(self.total()) {
            let mut best = Action::Defend;
            for a in [Action::Grapple, Action::Attack] {
                if left.get(a) > left.get(best) {
                    best = a;
                }
            }
            *left.get_mut(best) -= 1;
            *taken.get_mut(best) += 1;
        }
        taken
    }
}

impl fmt::Display for Energy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "○{} ▨{} ◆{}", self.defend, self.grapple, self.attack)
    }
}

/// A stance (§5.2 step 2): a secret commitment of an amount of one energy type, between 0 and
/// the current energy of that type. Amount 0 means no stance.
///
/// It is written `{"type": "grapple", "amount": 2}`; input files may also write it as text,
/// `"2 grapple"`, `"2▨"` or `"0"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "StanceInput")]
pub struct Stance {
    /// The energy type committed.
    #[serde(rename = "type")]
    pub action: Action,
    /// How much is committed; 0 is no stance.
    pub amount: u8,
}

impl Stance {
    /// No stance (an empty fist).
    pub const NONE: Stance = Stance { action: Action::Defend, amount: 0 };

    /// A stance of `amount` of `action`.
    pub fn new(action: Action, amount: u8) -> Stance {
        Stance { action, amount }
    }

    /// Whether the stance counts with this action (§5.3): the move's action equals the
    /// stance's type and the amount is above zero. Otherwise the stance was a feint.
    pub fn counts_for(&self, action: Action) -> bool {
        self.amount > 0 && self.action == action
    }
}

/// How a stance may be written in input: the struct form or text.
#[derive(Deserialize)]
#[serde(untagged)]
enum StanceInput {
    Text(String),
    Parts {
        #[serde(rename = "type")]
        action: Action,
        amount: u8,
    },
}

impl TryFrom<StanceInput> for Stance {
    type Error = String;
    fn try_from(input: StanceInput) -> Result<Self, Self::Error> {
        match input {
            StanceInput::Text(t) => t.parse(),
            StanceInput::Parts { action, amount } => Ok(Stance { action, amount }),
        }
    }
}

impl fmt::Display for Stance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.amount == 0 {
            write!(f, "no stance")
        } else {
            write!(f, "{}{}", self.amount, self.action.symbol())
        }
    }
}

impl FromStr for Stance {
    type Err = String;

    /// Reads `2▨`, `2 grapple`, `grapple 2`, `0` or `none`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().to_lowercase();
        if t == "0" || t == "none" || t == "no stance" || t.is_empty() {
            return Ok(Stance::NONE);
        }
        let digits: String = t.chars().filter(|c| c.is_ascii_digit()).collect();
        let rest: String = t.chars().filter(|c| !c.is_ascii_digit()).collect();
        let amount: u8 = digits
            .parse()
            .map_err(|_| format!("{s:?} is not a stance: write an amount and a type, e.g. \"2 grapple\" or \"2▨\", or 0 for none"))?;
        if amount == 0 && rest.trim().is_empty() {
            return Ok(Stance::NONE);
        }
        let action: Action = rest.trim().parse().map_err(|e: crate::card::CardError| e.to_string())?;
        Ok(Stance::new(action, amount))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn energy_never_goes_below_zero() {
        let mut e = Energy::new(1, 2, 3);
        assert_eq!(e.take(Action::Defend, 5), 1);
        assert_eq!(e, Energy::new(0, 2, 3));
        assert_eq!(Energy::new(1, 1, 1).saturating_sub(&Energy::new(2, 0, 1)), Energy::new(0, 1, 0));
    }

    #[test]
    fn default_spread_takes_from_the_largest_type_first() {
        let e = Energy::new(3, 2, 5);
        assert_eq!(e.default_spread(2), Energy::new(0, 0, 2));
        assert_eq!(e.default_spread(3), Energy::new(1, 0, 2), "ties go to ○ first");
        assert_eq!(e.default_spread(5), Energy::new(2, 0, 3));
        assert_eq!(e.default_spread(99), e);
        assert_eq!(e.default_spread(0), Energy::ZERO);
    }

    #[test]
    fn stance_counts_only_with_a_move_of_its_type() {
        let s = Stance::new(Action::Grapple, 2);
        assert!(s.counts_for(Action::Grapple));
        assert!(!s.counts_for(Action::Attack));
        assert!(!Stance::new(Action::Grapple, 0).counts_for(Action::Grapple));
    }

    #[test]
    fn stances_read_from_json_as_parts_or_text() {
        let parts: Stance = serde_json::from_str(r#"{"type":"grapple","amount":2}"#).unwrap();
        let text: Stance = serde_json::from_str(r#""2 grapple""#).unwrap();
        assert_eq!(parts, Stance::new(Action::Grapple, 2));
        assert_eq!(text, parts);
        assert_eq!(serde_json::to_string(&parts).unwrap(), r#"{"type":"grapple","amount":2}"#);
        assert!(serde_json::from_str::<Stance>(r#""lots""#).is_err());
    }

    #[test]
    fn stances_read_from_text() {
        assert_eq!("2▨".parse::<Stance>().unwrap(), Stance::new(Action::Grapple, 2));
        assert_eq!("attack 3".parse::<Stance>().unwrap(), Stance::new(Action::Attack, 3));
        assert_eq!("0".parse::<Stance>().unwrap(), Stance::NONE);
        assert!("lots".parse::<Stance>().is_err());
    }
}
