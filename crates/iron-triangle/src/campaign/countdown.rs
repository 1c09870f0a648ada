//! Countdowns (rules reference §8): named, shown to everyone, 4 to 8 boxes the GM marks one at
//! a time; erased when the threat is stopped.

use serde::{Deserialize, Serialize};

use crate::campaign::CampaignError;

/// A countdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Countdown {
    /// Its name, e.g. "8 pieces of the demon statue".
    pub name: String,
    /// How many boxes (4–8).
    pub boxes: u32,
    /// How many are marked.
    #[serde(default)]
    pub marked: u32,
}

impl Countdown {
    /// A new countdown with no box marked; 4 to 8 boxes (§8).
    pub fn new(name: &str, boxes: u32) -> Result<Countdown, CampaignError> {
        if !(4..=8).contains(&boxes) {
            return Err(CampaignError::CountdownBoxes(boxes));
        }
        if name.trim().is_empty() {
            return Err(CampaignError::Problem("a countdown needs a name".into()));
        }
        Ok(Countdown { name: name.trim().to_owned(), boxes, marked: 0 })
    }

    /// Marks one box (§8: one at a time). Marking a complete countdown is refused.
    pub fn mark(&self) -> Result<Countdown, CampaignError> {
        if self.is_complete() {
            return Err(CampaignError::CountdownFull(self.name.clone()));
        }
        Ok(Countdown { marked: self.marked + 1, ..self.clone() })
    }

    /// Every box is marked: the GM narrates the consequence (never a PC's death).
    pub fn is_complete(&self) -> bool {
        self.marked >= self.boxes
    }

    /// The boxes drawn: ■ marked, □ not.
    pub fn boxes_drawn(&self) -> String {
        (0..self.boxes).map(|i| if i < self.marked { '■' } else { '□' }).collect()
    }
}
