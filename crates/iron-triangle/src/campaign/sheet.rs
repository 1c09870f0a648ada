//! The campaign character sheet (rules reference §4): the conflict sheet ([`Character`]) plus
//! what lives between conflicts — goal, belief, flaw, veto, backgrounds, the level-up marks
//! and the rests taken since the last full rest.

use serde::{Deserialize, Serialize};

use crate::campaign::CampaignError;
use crate::card::Action;
use crate::character::{Character, Kind};
use crate::energy::Energy;
use crate::special::Edition;

/// A background (§4): a free-text name with points to spend on problems (§7 option 2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Background {
    /// The player's name for it, e.g. "former cop".
    pub name: String,
    /// Its maximum points (1 or 2).
    pub points: u8,
    /// Points not yet spent (the current value); full when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<u8>,
}

impl Background {
    /// Points left to spend.
    pub fn left(&self) -> u8 {
        self.left.unwrap_or(self.points)
    }
}

/// A player character's whole campaign sheet.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sheet {
    /// Name, style, level, energy, moves, combos, specials, death: what conflicts need.
    pub character: Character,
    /// A picture of the character (a path or URL; shown on the printable sheet).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub image: String,
    /// The goal (§4), and whether the GM marked it accomplished (§10's second question).
    #[serde(default)]
    pub goal: String,
    /// The goal is accomplished.
    #[serde(default)]
    pub goal_achieved: bool,
    /// The belief.
    #[serde(default)]
    pub belief: String,
    /// The belief was used in a problem.
    #[serde(default)]
    pub belief_marked: bool,
    /// The flaw.
    #[serde(default)]
    pub flaw: String,
    /// The flaw was used in a problem.
    #[serde(default)]
    pub flaw_marked: bool,
    /// The one veto (§7) was used.
    #[serde(default)]
    pub veto_used: bool,
    /// Backgrounds: 3 points in all, at most 2 in one; may be filled in during play.
    #[serde(default)]
    pub backgrounds: Vec<Background>,
    /// §10's first question: a problem was played out with a complication or failure on the
    /// belief or flaw since the last level-up. **Decision:** kept apart from the belief and
    /// flaw marks, which survive a level-up unless both are marked.
    #[serde(default)]
    pub played_belief_or_flaw: bool,
    /// Types that reached zero energy in a conflict since the last level-up (§10's third
    /// question), indexed ○ ▨ ◆.
    #[serde(default)]
    pub zero_marks: [bool; 3],
    /// Types that ever reached zero in a conflict (a record only: a +1 maximum goes to a type
    /// of `zero_marks`, since §10 erases those marks at every level-up).
    #[serde(default)]
    pub ever_zero: [bool; 3],
    /// A breather was taken since the last full rest (§9).
    #[serde(default)]
    pub breather_taken: bool,
    /// A short rest was taken since the last full rest (§9).
    #[serde(default)]
    pub short_rest_taken: bool,
}

impl Sheet {
    /// A new level 0 sheet around a conflict sheet.
    pub fn new(character: Character) -> Sheet {
        Sheet { character, ..Sheet::default() }
    }

    /// The character's name.
    pub fn name(&self) -> &str {
        &self.character.name
    }

    /// Checks every rule of §4 on a new character: the conflict sheet's creation rules (10
    /// energy, at least 1 a type, the three starting moves, level 0, no combos or specials)
    /// through [`Character::validate_in`], plus the backgrounds, and no marks yet.
    pub fn validate_creation(&self, edition: Edition) -> Result<(), CampaignError> {
        let fail = |detail: String| CampaignError::Creation { name: self.name().to_owned(), detail };
        if self.character.level != 0 {
            return Err(fail(format!(
                "a new character starts at level 0, not {} (a replacement character is built with `replace`)",
                self.character.level
            )));
        }
        if !self.character.specials.is_empty() {
            return Err(fail("a level 0 character has no specials".into()));
        }
        let marked = self.goal_achieved
            || self.belief_marked
            || self.flaw_marked
            || self.veto_used
            || self.played_belief_or_flaw
            || self.zero_marks.iter().chain(&self.ever_zero).any(|&z| z);
        if marked {
            return Err(fail(
                "a new character has no marks yet (goal, belief, flaw, veto, zero energy)".into(),
            ));
        }
        if self.current() != self.character.energy || self.backgrounds.iter().any(|b| b.left() != b.points) {
            return Err(fail("a new character starts with full energy and background points".into()));
        }
        if self.character.dead || self.character.sits_out_next_conflict {
            return Err(fail("a new character is alive and sits out nothing".into()));
        }
        self.validate(edition)
    }

    /// Checks the sheet as it may be during a campaign: the conflict sheet as a PC
    /// ([`Character::validate_in`]) and the backgrounds.
    pub fn validate(&self, edition: Edition) -> Result<(), CampaignError> {
        self.character.validate_in(Kind::Pc, edition)?;
        self.validate_backgrounds()
    }

    /// §4: background points total at most 3 (they may be filled in later), at most 2 in one,
    /// points left within the maximum, names given and distinct.
    pub fn validate_backgrounds(&self) -> Result<(), CampaignError> {
        let bad = |detail: String| CampaignError::Backgrounds { name: self.name().to_owned(), detail };
        let mut total = 0u32;
        for (i, b) in self.backgrounds.iter().enumerate() {
            if b.name.trim().is_empty() {
                return Err(bad("a background needs a name".into()));
            }
            if self.backgrounds[..i].iter().any(|o| o.name.eq_ignore_ascii_case(&b.name)) {
                return Err(bad(format!("the background {:?} is listed twice", b.name)));
            }
            if b.points == 0 || b.points > 2 {
                return Err(bad(format!("{:?} has {} points", b.name, b.points)));
            }
            if b.left() > b.points {
                return Err(bad(format!("{:?} has {} points left of {}", b.name, b.left(), b.points)));
            }
            total += u32::from(b.points);
        }
        if total > 3 {
            return Err(bad(format!("the backgrounds total {total} points")));
        }
        Ok(())
    }

    /// Background points left, over all backgrounds.
    pub fn background_points_left(&self) -> u32 {
        self.backgrounds.iter().map(|b| u32::from(b.left())).sum()
    }

    /// Adds a background during play (§4: "you can wait until during play"), checked.
    pub fn add_background(&self, name: &str, points: u8) -> Result<Sheet, CampaignError> {
        let mut s = self.clone();
        s.backgrounds.push(Background { name: name.trim().to_owned(), points, left: None });
        s.validate_backgrounds()?;
        Ok(s)
    }

    /// Spends one point of a background (§7 option 2). With no name, the first background
    /// with a point left pays.
    pub fn spend_background(&self, background: Option<&str>) -> Result<Sheet, CampaignError> {
        let mut s = self.clone();
        let name = self.name().to_owned();
        let b = match background {
            Some(want) => {
                s.backgrounds.iter_mut().find(|b| b.name.eq_ignore_ascii_case(want.trim())).ok_or_else(
                    || CampaignError::UnknownBackground { name: name.clone(), background: want.to_owned() },
                )?
            }
            None => {
                s.backgrounds.iter_mut().find(|b| b.left() > 0).ok_or_else(|| {
                    CampaignError::NoBackgroundPoint { name: name.clone(), background: None }
                })?
            }
        };
        if b.left() == 0 {
            return Err(CampaignError::NoBackgroundPoint { name, background: Some(b.name.clone()) });
        }
        b.left = Some(b.left() - 1);
        Ok(s)
    }

    /// Renames a known move (free at any time, §10): found by its name or its symbols.
    pub fn rename_move(&self, which: &str, new_name: &str, edition: Edition) -> Result<Sheet, CampaignError> {
        let mut s = self.clone();
        let card =
            self.character.find_move(which).filter(|m| self.character.known().contains(*m)).ok_or_else(
                || CampaignError::UnknownMove { name: self.name().to_owned(), text: which.to_owned() },
            )?;
        if new_name.trim().is_empty() {
            return Err(CampaignError::UnknownMove {
                name: self.name().to_owned(),
                text: "(an empty name)".into(),
            });
        }
        for m in &mut s.character.moves {
            if m.card == card {
                m.name = new_name.trim().to_owned();
            }
        }
        s.validate(edition)?;
        Ok(s)
    }

    /// Records the character's death.
    pub fn record_death(&self) -> Sheet {
        let mut s = self.clone();
        s.character.dead = true;
        s
    }

    /// Current energy.
    pub fn current(&self) -> Energy {
        self.character.current_energy()
    }

    /// Sets current energy, storing `None` when it equals the maximum.
    pub fn set_current(&mut self, e: Energy) {
        self.character.current = if e == self.character.energy { None } else { Some(e) };
    }

    /// Marks that a type reached zero in a conflict (§5.3, §10).
    pub fn mark_zero(&mut self, a: Action) {
        self.zero_marks[a.index()] = true;
        self.ever_zero[a.index()] = true;
    }

    /// The three questions of §10, in the book's order: belief/flaw played, goal accomplished,
    /// zero energy in a conflict.
    pub fn questions(&self) -> [bool; 3] {
        [self.played_belief_or_flaw, self.goal_achieved, self.zero_marks.iter().any(|&z| z)]
    }

    /// Rewrites goal, belief and flaw at the end of a session (§10); `None` keeps one. A new
    /// goal starts unaccomplished; a rewritten belief or flaw keeps its mark (**Decision**:
    /// rewriting is not a way to erase marks).
    pub fn rewrite(&self, goal: Option<&str>, belief: Option<&str>, flaw: Option<&str>) -> Sheet {
        let mut s = self.clone();
        if let Some(g) = goal {
            s.goal = g.trim().to_owned();
            s.goal_achieved = false;
        }
        if let Some(b) = belief {
            s.belief = b.trim().to_owned();
        }
        if let Some(f) = flaw {
            s.flaw = f.trim().to_owned();
        }
        s
    }
}
