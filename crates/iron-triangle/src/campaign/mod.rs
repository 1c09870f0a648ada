//! Everything outside a conflict (rules reference §4, §7–10): the campaign character sheet,
//! problems, countdowns, resting and levelling. Pure rules with no I/O: the `campaign` crate
//! keeps their state in a database and asks these functions for every rule.
//!
//! - §4 the campaign sheet (goal, belief, flaw, veto, backgrounds, marks): [`sheet`]
//! - §7 problems: [`problem`]
//! - §8 countdowns: [`countdown`]
//! - §9 resting: [`rest`]
//! - §5.1 entering a conflict and §5.7 writing its end back: [`conflicts`]
//! - §10 level up and replacement characters: [`levelling`]
//!
//! Every function here either returns the changed state or an error naming the rule; on an
//! error nothing is changed, so a shell can refuse a command by simply not storing anything.

pub mod conflicts;
pub mod countdown;
pub mod levelling;
pub mod problem;
pub mod rest;
pub mod sheet;

use thiserror::Error;

use crate::character::SheetError;

pub use countdown::Countdown;
pub use levelling::{Advance, LevelUp, Refill};
pub use problem::{Choice, Mark, Problem, ProblemOption};
pub use rest::Rest;
pub use sheet::{Background, Sheet};

/// A campaign rule was broken; the message names it (§).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CampaignError {
    /// The sheet itself breaks a rule of §4.
    #[error(transparent)]
    Sheet(#[from] SheetError),
    /// A new character breaks a creation rule beyond the conflict sheet's.
    #[error("{name}: {detail}")]
    Creation {
        /// The character.
        name: String,
        /// What is wrong.
        detail: String,
    },
    /// Background points: 3 in all, at most 2 in one.
    #[error("{name}: {detail} (3 background points, at most 2 in any one)")]
    Backgrounds {
        /// The character.
        name: String,
        /// What is wrong.
        detail: String,
    },
    /// A background point is needed and none is left.
    #[error("{name} has no background point left{}; option 2 needs one", background.as_ref().map(|b| format!(" in {b:?}")).unwrap_or_default())]
    NoBackgroundPoint {
        /// The character.
        name: String,
        /// The background named, if any.
        background: Option<String>,
    },
    /// No such background on the sheet.
    #[error("{name} has no background named {background:?}")]
    UnknownBackground {
        /// The character.
        name: String,
        /// The name given.
        background: String,
    },
    /// The belief or flaw needed is already marked.
    #[error("{name}: {what} already marked; options 3 and 4 need an unmarked belief or flaw")]
    AlreadyMarked {
        /// The character.
        name: String,
        /// "the belief", "the flaw" or "the belief and the flaw are".
        what: String,
    },
    /// The veto was used.
    #[error("{0} has used their veto (one veto, marked when used)")]
    VetoUsed(String),
    /// A problem command in the wrong phase.
    #[error("{0}")]
    Problem(String),
    /// A character that is not taking part.
    #[error("{0} is not choosing in this problem")]
    NotInProblem(String),
    /// A conflict's entry rules (§5.1 step 2).
    #[error("{0}")]
    Entry(String),
    /// A dead character.
    #[error("{0} is dead")]
    Dead(String),
    /// Countdown size.
    #[error("a countdown has 4 to 8 boxes, not {0}")]
    CountdownBoxes(u32),
    /// A full countdown.
    #[error("the countdown {0:?} is already complete: every box is marked")]
    CountdownFull(String),
    /// A rest that is not available.
    #[error("{name} already took a {rest} since the last full rest")]
    RestUsed {
        /// The character.
        name: String,
        /// "breather" or "short rest".
        rest: &'static str,
    },
    /// A choice of type that the rest does not allow.
    #[error("{name}: {detail}")]
    RestChoice {
        /// The character.
        name: String,
        /// What is wrong.
        detail: String,
    },
    /// Not enough marks to level up.
    #[error("{name} cannot level up: {detail}")]
    NotEnoughMarks {
        /// The character.
        name: String,
        /// What is missing.
        detail: String,
    },
    /// A level-up choice breaks a rule.
    #[error("{name}: {detail}")]
    LevelUp {
        /// The character.
        name: String,
        /// What is wrong.
        detail: String,
    },
    /// A move the character does not know.
    #[error("{name} knows no move {text:?}")]
    UnknownMove {
        /// The character.
        name: String,
        /// What was given.
        text: String,
    },
    /// A replacement character's starting level.
    #[error(
        "a replacement for {dead} starts at level 0 to {max}, not {level} (min(5, the dead character's level), and level 0 unless it continues the dead character's fighting style)"
    )]
    ReplacementLevel {
        /// The dead character.
        dead: String,
        /// The highest allowed.
        max: u32,
        /// The level asked for.
        level: u32,
    },
}
