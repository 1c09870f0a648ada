//! Wounds after the fight (rules reference §9): Rest Scenes, a full day's rest, the daily
//! roll of an unrevived Incapacitated character with its Death Hits, and revival. The rolls
//! themselves are Ability (or Talent) Rolls from [`crate::dice`]; these rules say what a
//! success or failure does.

use serde::{Deserialize, Serialize};

/// A character's wounds between scenes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Wounds {
    /// Hits taken.
    pub hits: u8,
    /// Max Hits Taken (from the sheet).
    pub max_hits: u8,
    /// Death Hits marked.
    pub death_hits: u8,
    /// Whether the character is Incapacitated.
    pub incapacitated: bool,
    /// Whether the character must die before the next Action or Conflict scene.
    pub doomed: bool,
}

/// What a rest did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RestOutcome {
    /// One hit removed.
    Healed,
    /// Every hit removed.
    FullyHealed,
    /// One hit removed and no longer Incapacitated.
    Recovered,
    /// Nothing further happens.
    Nothing,
    /// A Death Hit marked; the character stays Incapacitated.
    DeathHit,
    /// Death Hits reached Max Hits: the character must die before the next scene.
    Dies,
}

impl Wounds {
    /// A Rest Scene roll (Fortitude, Perseverance, or a relevant Talent; a helper may roll
    /// with a fitting Talent) for a wounded character who is not Incapacitated: a success
    /// removes one hit, a failure does nothing (§9). An Incapacitated character rolls
    /// [`Wounds::daily_roll`] instead.
    pub fn rest(&mut self, success: bool) -> RestOutcome {
        if self.incapacitated {
            return self.daily_roll(success);
        }
        if success && self.hits > 0 {
            self.hits -= 1;
            RestOutcome::Healed
        } else {
            RestOutcome::Nothing
        }
    }

    /// A whole day of rest removes every hit (§9). An unrevived Incapacitated character
    /// still has to make its daily roll (Decision: the full-day rule is for the conscious
    /// wounded).
    pub fn full_day(&mut self) -> RestOutcome {
        if self.incapacitated {
            return RestOutcome::Nothing;
        }
        self.hits = 0;
        RestOutcome::FullyHealed
    }

    /// The daily Rest Scene roll (Fortitude or Perseverance) of an Incapacitated character
    /// nobody revived (§9): a success removes one hit and ends the Incapacitation; a failure
    /// marks a Death Hit, and as many Death Hits as Max Hits mean death before the next scene.
    pub fn daily_roll(&mut self, success: bool) -> RestOutcome {
        if !self.incapacitated {
            return self.rest(success);
        }
        if success {
            self.hits = self.hits.saturating_sub(1);
            self.incapacitated = false;
            RestOutcome::Recovered
        } else {
            self.death_hits = self.death_hits.saturating_add(1);
            if self.death_hits >= self.max_hits {
                self.doomed = true;
                RestOutcome::Dies
            } else {
                RestOutcome::DeathHit
            }
        }
    }

    /// Revival by a healing Skill: `hits` removed, no longer Incapacitated, every Death Hit
    /// cleared (§9).
    pub fn revive(&mut self, hits: u8) {
        self.hits = self.hits.saturating_sub(hits.max(1));
        self.incapacitated = false;
        self.death_hits = 0;
    }
}
