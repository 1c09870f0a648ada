//! Level up at the end of a session, and replacement characters (rules reference §10; the
//! earlier edition's levelling, §11, behind [`Edition::Earlier`]).

use serde::{Deserialize, Serialize};

use crate::campaign::CampaignError;
use crate::campaign::sheet::Sheet;
use crate::card::{Action, Move};
use crate::character::{Kind, KnownMove};
use crate::special::{Edition, Special};

/// One change to a combo (§10): `to` becomes a follow-up of `from`, in place of `replacing`
/// when given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FollowUp {
    /// The starting move.
    pub from: Move,
    /// The follow-up learned.
    pub to: Move,
    /// A follow-up of `from` given up for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacing: Option<Move>,
}

/// The one main choice of a level-up (§10).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Advance {
    /// Learn a move (no duplicates; ☰/☯ moves only once all nine three-element moves are
    /// known), with its name.
    LearnMove {
        /// The move.
        #[serde(rename = "move")]
        card: Move,
        /// The player's name for it.
        #[serde(default)]
        name: String,
    },
    /// Learn or change two combo follow-ups (at most two per starting move; both moves
    /// known). **Decision:** one change is allowed too. The earlier edition: exactly one.
    Combos {
        /// The changes, one or two.
        changes: Vec<FollowUp>,
    },
    /// +1 maximum energy in a type that reached zero in a conflict since the last level-up
    /// (its zero-energy mark; earlier edition: any type). **Decision:** current energy of
    /// that type rises by 1 with it.
    MaxEnergy {
        /// The type.
        action: Action,
    },
    /// Learn a special (requirements met at the new level, no duplicates). The earlier
    /// edition: only with all three marks.
    LearnSpecial {
        /// The special.
        special: Special,
    },
}

/// The second choice of a level-up (§10): refill background points (up to 3) or the veto.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Refill {
    /// Every background back to its maximum (3 points in all at most).
    Backgrounds,
    /// The veto unmarked (1 at most).
    Veto,
}

/// A whole level-up decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelUp {
    /// The main choice.
    pub advance: Advance,
    /// The refill; required in the current edition unless there is nothing to refill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refill: Option<Refill>,
}

/// Why a sheet may level up: the number of the three questions marked, checked against the
/// edition (§10: all three; §11: two, and three for a special).
pub fn check_marks(sheet: &Sheet, edition: Edition, advance: &Advance) -> Result<(), CampaignError> {
    let q = sheet.questions();
    let yes = q.iter().filter(|&&b| b).count();
    let missing: Vec<&str> =
        ["belief or flaw played in a problem", "goal accomplished", "zero energy in a conflict"]
            .iter()
            .zip(q)
            .filter(|(_, m)| !m)
            .map(|(w, _)| *w)
            .collect();
    let fail = |detail: String| CampaignError::NotEnoughMarks { name: sheet.name().to_owned(), detail };
    match edition {
        Edition::Current if yes < 3 => {
            Err(fail(format!("all three questions must be marked; missing: {}", missing.join(", "))))
        }
        Edition::Earlier if yes < 2 => Err(fail(format!(
            "the earlier edition needs two yes answers, {} has {yes}; missing: {}",
            sheet.name(),
            missing.join(", ")
        ))),
        Edition::Earlier if yes < 3 && matches!(advance, Advance::LearnSpecial { .. }) => {
            Err(fail("the earlier edition allows a special only with all three yes answers".into()))
        }
        _ => Ok(()),
    }
}

/// Whether the sheet's marks allow a level-up now (§10: all three; §11: two). Dead characters
/// never level up.
pub fn may_level_up(sheet: &Sheet, edition: Edition) -> bool {
    let yes = sheet.questions().iter().filter(|&&b| b).count();
    !sheet.character.dead && yes >= if edition == Edition::Earlier { 2 } else { 3 }
}

/// Who is levelling: a character in play, or a replacement being built (§10), which may
/// take the dead character's moves (with their names) and combos but no special.
#[derive(Clone, Copy)]
enum Building<'a> {
    InPlay,
    Replacement(&'a Sheet),
}

fn apply_advance(
    s: &mut Sheet,
    advance: &Advance,
    edition: Edition,
    building: Building<'_>,
) -> Result<(), CampaignError> {
    let name = s.name().to_owned();
    let fail = |detail: String| CampaignError::LevelUp { name: name.clone(), detail };
    let known = s.character.known();
    match advance {
        Advance::LearnMove { card, name: move_name } => {
            if known.contains(*card) {
                return Err(fail(format!("{card} is already known; a character learns each move once")));
            }
            let mut n = move_name.trim().to_owned();
            if n.is_empty()
                && let Building::Replacement(dead) = building
                && dead.character.known().contains(*card)
            {
                n = dead.character.move_name(*card);
            }
            if n.is_empty() {
                n = card.to_string();
            }
            s.character.moves.push(KnownMove { name: n, card: *card });
        }
        Advance::Combos { changes } => {
            let most = if edition == Edition::Earlier { 1 } else { 2 };
            if changes.is_empty() || changes.len() > most {
                return Err(fail(format!(
                    "a level-up changes {} combo follow-up{}, not {}",
                    if most == 1 { "one" } else { "one or two" },
                    if most == 1 { "" } else { "s" },
                    changes.len()
                )));
            }
            for ch in changes {
                for m in [ch.from, ch.to] {
                    if !s.character.known().contains(m) {
                        return Err(fail(format!("a combo uses known moves only, and {m} is not known")));
                    }
                }
                let entry = match s.character.combos.iter().position(|c| c.from == ch.from) {
                    Some(i) => i,
                    None => {
                        s.character
                            .combos
                            .push(crate::character::Combo { from: ch.from, follow_ups: Vec::new() });
                        s.character.combos.len() - 1
                    }
                };
                let combo = &mut s.character.combos[entry];
                if let Some(r) = ch.replacing {
                    let Some(i) = combo.follow_ups.iter().position(|&f| f == r) else {
                        return Err(fail(format!("{r} is not a follow-up of {} to replace", ch.from)));
                    };
                    combo.follow_ups.remove(i);
                }
                if combo.follow_ups.contains(&ch.to) {
                    return Err(fail(format!("{} is already a follow-up of {}", ch.to, ch.from)));
                }
                if combo.follow_ups.len() >= 2 {
                    return Err(fail(format!(
                        "{} already has two follow-ups; at most two per starting move — name one to replace",
                        ch.from
                    )));
                }
                combo.follow_ups.push(ch.to);
            }
            s.character.combos.retain(|c| !c.follow_ups.is_empty());
        }
        Advance::MaxEnergy { action } => {
            let any_type = edition == Edition::Earlier || matches!(building, Building::Replacement(_));
            // §10: the zero-energy marks are erased at every level-up ("you can't save the
            // type you didn't use"), so only a type marked since the last level-up qualifies.
            if !any_type && !s.zero_marks[action.index()] {
                return Err(fail(format!(
                    "+1 maximum goes to a type that reached zero in a conflict since the last level-up, and {} did not",
                    action.name()
                )));
            }
            let mut cur = s.current();
            let Some(raised) = s.character.energy.get(*action).checked_add(1) else {
                return Err(fail(format!(
                    "{} maximum energy is already {}, the most a sheet holds",
                    action.name(),
                    u8::MAX
                )));
            };
            *s.character.energy.get_mut(*action) = raised;
            *cur.get_mut(*action) = cur.get(*action).saturating_add(1);
            s.set_current(cur);
        }
        Advance::LearnSpecial { special } => {
            if matches!(building, Building::Replacement(_)) {
                return Err(fail("a replacement character's level-ups may not learn specials".into()));
            }
            if s.character.specials.contains(special) {
                return Err(fail(format!("{} is already learned", special.name(edition))));
            }
            s.character.specials.push(*special);
        }
    }
    s.character.validate_in(Kind::Pc, edition)?;
    Ok(())
}

fn apply_refill(s: &mut Sheet, refill: Option<Refill>, edition: Edition) -> Result<(), CampaignError> {
    let can_refill_bg = s.backgrounds.iter().any(|b| b.left() < b.points);
    match refill {
        Some(Refill::Backgrounds) => {
            for b in &mut s.backgrounds {
                b.left = None;
            }
        }
        Some(Refill::Veto) => s.veto_used = false,
        None if edition == Edition::Current && (can_refill_bg || s.veto_used) => {
            return Err(CampaignError::LevelUp {
                name: s.name().to_owned(),
                detail: "also choose a refill: background points or the veto".into(),
            });
        }
        None => {}
    }
    Ok(())
}

/// Levels a character up (§10): checks the marks, raises the level, applies the main choice
/// and the refill, then erases the goal and its mark, all zero-energy marks, and the belief
/// and flaw marks only if both are marked. The earlier edition (§11) erases every yes mark.
/// On any error the sheet is unchanged (a new sheet is returned).
pub fn level_up(sheet: &Sheet, decision: &LevelUp, edition: Edition) -> Result<Sheet, CampaignError> {
    if sheet.character.dead {
        return Err(CampaignError::Dead(sheet.name().to_owned()));
    }
    check_marks(sheet, edition, &decision.advance)?;
    let mut s = sheet.clone();
    s.character.level = sheet.character.level.checked_add(1).ok_or_else(|| CampaignError::LevelUp {
        name: sheet.name().to_owned(),
        detail: format!("level {} is the highest a sheet holds", sheet.character.level),
    })?;
    apply_advance(&mut s, &decision.advance, edition, Building::InPlay)?;
    apply_refill(&mut s, decision.refill, edition)?;
    s.goal.clear();
    s.goal_achieved = false;
    s.zero_marks = [false; 3];
    s.played_belief_or_flaw = false;
    if edition == Edition::Earlier || (s.belief_marked && s.flaw_marked) {
        s.belief_marked = false;
        s.flaw_marked = false;
    }
    Ok(s)
}

/// Builds a replacement for a dead character (§10): `base` is a new level 0 character
/// (every creation rule checked), then one level-up decision per level, `levels.len()` of
/// them, at most min(5, the dead character's level) — and none unless the replacement
/// continues the dead character's fighting style (an empty style takes it). The level-ups need no marks and may
/// take the dead character's moves (keeping their names when none is given) and combos;
/// **Decision:** no specials, +1 maximum may go to any type, and refills are ignored (a new
/// character's backgrounds and veto are full).
pub fn replacement(
    dead: &Sheet,
    base: &Sheet,
    levels: &[Advance],
    edition: Edition,
) -> Result<Sheet, CampaignError> {
    if !dead.character.dead {
        return Err(CampaignError::LevelUp {
            name: dead.name().to_owned(),
            detail: "is not dead; a replacement character replaces a dead one".into(),
        });
    }
    // §10: only a replacement that continues the deceased's fighting tradition starts above
    // level 0 (an empty style on the new sheet takes the dead one's).
    let style = base.character.fighting_style.trim();
    let continues = style.is_empty() || style.eq_ignore_ascii_case(dead.character.fighting_style.trim());
    let max = if continues { dead.character.level.min(5) } else { 0 };
    let level = u32::try_from(levels.len()).unwrap_or(u32::MAX);
    if level > max {
        return Err(CampaignError::ReplacementLevel { dead: dead.name().to_owned(), max, level });
    }
    base.validate_creation(edition)?;
    let mut s = base.clone();
    if s.character.fighting_style.trim().is_empty() {
        s.character.fighting_style = dead.character.fighting_style.clone();
    }
    for advance in levels {
        s.character.level += 1;
        apply_advance(&mut s, advance, edition, Building::Replacement(dead))?;
    }
    s.validate(edition)?;
    Ok(s)
}
