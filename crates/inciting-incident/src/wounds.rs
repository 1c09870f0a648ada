//! Wounds after the fight (rules reference §9): Rest Scenes, a full day's rest, the daily
//! roll of an unrevived Incapacitated character with its Death Hits, and revival. The rolls
//! themselves are Ability (or Talent) Rolls from [`crate::dice`]; these rules say what a
//! success or failure does.

use serde::{Deserialize, Serialize};
use thiserror::Error;

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
    /// The character is already dead (Death Hits at Max Hits, or a failed keep-fighting roll):
    /// no rest changes anything (§9).
    Dead,
}

impl RestOutcome {
    /// What happened, in words (for the calculator and `play`).
    pub fn describe(self) -> &'static str {
        match self {
            RestOutcome::Healed => "one hit removed",
            RestOutcome::FullyHealed => "every hit removed",
            RestOutcome::Recovered => "one hit removed; no longer Incapacitated",
            RestOutcome::Nothing => "nothing further happens",
            RestOutcome::DeathHit => "still Incapacitated; a Death Hit is marked",
            RestOutcome::Dies => "Death Hits reached Max Hits: the character dies before the next scene",
            RestOutcome::Dead => "the character is dead: no rest brings it back",
        }
    }
}

/// Why wounds as a caller states them cannot be read (rules reference §9, Decision on the
/// state at Max Hits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum StateError {
    /// At Max Hits without saying whether the character is Incapacitated or was revived.
    #[error(
        "{hits} hits is the character's Max Hits: a character at Max Hits is Incapacitated unless it was revived; say which"
    )]
    Unstated {
        /// The hits (equal to Max Hits).
        hits: u8,
    },
    /// Said to be both Incapacitated and revived.
    #[error("a revived character is no longer Incapacitated: say one or the other")]
    Both,
}

impl Wounds {
    /// Checks the state a caller gives a character (rules reference §9, Decision on the state
    /// at Max Hits): a character whose hits equal its Max Hits is Incapacitated unless it is
    /// stated to have been revived, so a caller with Max Hits must say which — `incapacitated`
    /// here, or `revived` — and never both. The rules never guess: reading Max Hits without
    /// either as "revived" would give an unrevived Incapacitated character a full day's heal
    /// instead of its daily roll.
    pub fn check_stated(&self, revived: bool) -> Result<(), StateError> {
        if revived && self.incapacitated {
            return Err(StateError::Both);
        }
        if self.max_hits > 0 && self.hits >= self.max_hits && !self.incapacitated && !revived {
            return Err(StateError::Unstated { hits: self.hits });
        }
        Ok(())
    }

    /// Whether the character is dead or must die before the next Action or Conflict scene:
    /// Death Hits at Max Hits, or a failed keep-fighting roll (§9). Nothing a rest does
    /// changes that (Decision: revival clears Death Hits only while they are below Max Hits).
    pub fn is_dead(&self) -> bool {
        self.doomed || (self.max_hits > 0 && self.death_hits >= self.max_hits)
    }

    /// Whether a whole day of rest removes every hit: only for a living character who is not
    /// Incapacitated (§9; an unrevived Incapacitated character makes its daily roll instead).
    pub fn full_day_heals(&self) -> bool {
        !self.is_dead() && !self.incapacitated
    }

    /// Whether a Rest Scene asks this character for a roll: alive and wounded or
    /// Incapacitated (§9).
    pub fn needs_rest(&self) -> bool {
        !self.is_dead() && (self.hits > 0 || self.incapacitated)
    }

    /// A Rest Scene roll (Fortitude, Perseverance, or a relevant Talent; a helper may roll
    /// with a fitting Talent) for a wounded character who is not Incapacitated: a success
    /// removes one hit, a failure does nothing (§9). An Incapacitated character rolls
    /// [`Wounds::daily_roll`] instead; a dead one changes nothing.
    pub fn rest(&mut self, success: bool) -> RestOutcome {
        if self.is_dead() {
            return RestOutcome::Dead;
        }
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

    /// A whole day of rest removes every hit (§9). The full-day heal does not apply while
    /// Incapacitated: that character's day holds its daily roll, whose result is
    /// `daily_success` (ignored for everyone else). A dead character changes nothing.
    pub fn full_day(&mut self, daily_success: bool) -> RestOutcome {
        if self.is_dead() {
            return RestOutcome::Dead;
        }
        if self.incapacitated {
            return self.daily_roll(daily_success);
        }
        self.hits = 0;
        RestOutcome::FullyHealed
    }

    /// The daily Rest Scene roll (Fortitude or Perseverance) of an Incapacitated character
    /// nobody revived (§9): a success removes one hit and ends the Incapacitation; a failure
    /// marks a Death Hit, and as many Death Hits as Max Hits mean death before the next scene.
    pub fn daily_roll(&mut self, success: bool) -> RestOutcome {
        if self.is_dead() {
            return RestOutcome::Dead;
        }
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
    /// cleared (§9). A dead character is not revived.
    pub fn revive(&mut self, hits: u8) {
        if self.is_dead() {
            return;
        }
        self.hits = self.hits.saturating_sub(hits.max(1));
        self.incapacitated = false;
        self.death_hits = 0;
    }
}
