//! Resting (rules reference §9): after a conflict the players choose one rest, the same for
//! every player character.

use serde::{Deserialize, Serialize};

use crate::campaign::CampaignError;
use crate::campaign::sheet::Sheet;
use crate::card::Action;

/// The three rests of §9.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rest {
    /// Regain 1 energy of a type of the player's choice; not again until after a full rest.
    Breather,
    /// Regain the type with the lowest maximum up to its maximum (the player picks on a tie);
    /// not again until after a full rest.
    Short,
    /// Regain all energy; specials refresh; breather and short rest become available again.
    /// The GM may mark a countdown (done by the shell).
    Full,
}

impl Rest {
    /// Its name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Rest::Breather => "breather",
            Rest::Short => "short rest",
            Rest::Full => "full rest",
        }
    }
}

/// The type a rest restores for one character, given the player's choice (if any).
///
/// **Decisions** where the player does not say: a breather restores the type furthest below
/// its maximum (ties in the order ○ ▨ ◆); a short rest's tie between lowest maxima goes the
/// same way. A breather of a type already at its maximum is refused.
pub fn rest_type(sheet: &Sheet, rest: Rest, choice: Option<Action>) -> Result<Option<Action>, CampaignError> {
    let max = sheet.character.energy;
    let cur = sheet.current();
    let missing = |a: Action| max.get(a).saturating_sub(cur.get(a));
    let most_missing = |among: &[Action]| -> Option<Action> {
        let mut best: Option<Action> = None;
        for &a in among {
            if best.is_none_or(|b| missing(a) > missing(b)) {
                best = Some(a);
            }
        }
        best
    };
    let bad = |detail: String| CampaignError::RestChoice { name: sheet.name().to_owned(), detail };
    match rest {
        Rest::Full => Ok(None),
        Rest::Breather => match choice {
            Some(a) if missing(a) == 0 => Err(bad(format!(
                "{} energy is already at its maximum {}; a breather regains a type below it",
                a.name(),
                max.get(a)
            ))),
            Some(a) => Ok(Some(a)),
            None => Ok(most_missing(&Action::ALL).filter(|&a| missing(a) > 0)),
        },
        Rest::Short => {
            let lowest = Action::ALL.iter().map(|&a| max.get(a)).min().unwrap_or(0);
            let tied: Vec<Action> = Action::ALL.into_iter().filter(|&a| max.get(a) == lowest).collect();
            match choice {
                Some(a) if !tied.contains(&a) => Err(bad(format!(
                    "a short rest regains the type with the lowest maximum ({}), not {}",
                    tied.iter().map(|a| a.name()).collect::<Vec<_>>().join(" or "),
                    a.name()
                ))),
                Some(a) => Ok(Some(a)),
                None => Ok(most_missing(&tied)),
            }
        }
    }
}

/// Applies a rest to one character (§9), checking its once-until-full-rest limit.
pub fn rest(sheet: &Sheet, rest: Rest, choice: Option<Action>) -> Result<Sheet, CampaignError> {
    let mut s = sheet.clone();
    let name = sheet.name().to_owned();
    match rest {
        Rest::Breather if sheet.breather_taken => {
            return Err(CampaignError::RestUsed { name, rest: "breather" });
        }
        Rest::Short if sheet.short_rest_taken => {
            return Err(CampaignError::RestUsed { name, rest: "short rest" });
        }
        _ => {}
    }
    let kind = rest_type(sheet, rest, choice)?;
    let max = sheet.character.energy;
    let mut cur = sheet.current();
    match rest {
        Rest::Breather => {
            if let Some(a) = kind {
                *cur.get_mut(a) = (cur.get(a) + 1).min(max.get(a));
            }
            s.breather_taken = true;
        }
        Rest::Short => {
            if let Some(a) = kind {
                *cur.get_mut(a) = max.get(a);
            }
            s.short_rest_taken = true;
        }
        Rest::Full => {
            cur = max;
            s.character.specials_used.clear();
            s.breather_taken = false;
            s.short_rest_taken = false;
        }
    }
    s.set_current(cur);
    Ok(s)
}

/// Applies a rest to every living player character (§9: the same choice for all); all or
/// nothing — if one character cannot take it, nobody does.
pub fn rest_all(
    sheets: &[Sheet],
    kind: Rest,
    choice: &dyn Fn(&str) -> Option<Action>,
) -> Result<Vec<Sheet>, CampaignError> {
    sheets
        .iter()
        .map(|s| if s.character.dead { Ok(s.clone()) } else { rest(s, kind, choice(s.name())) })
        .collect()
}
