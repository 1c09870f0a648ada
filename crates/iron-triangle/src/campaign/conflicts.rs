//! Conflicts inside a campaign (rules reference §5.1 step 2, §5.7): who may enter, and what a
//! finished conflict writes back onto the campaign sheets.

use crate::campaign::CampaignError;
use crate::campaign::sheet::Sheet;
use crate::card::Action;
use crate::conflict::{Fighter, Stakes};

/// Checks the entry rules of §5.1 step 2 for the player characters `entering`: each is a
/// living PC with energy left and no sit-out mark; a lethal conflict involves every PC.
/// **Decision:** "every PC" means every PC able to enter: the dead, those at zero energy and
/// those marked to sit out stay out of a lethal conflict too.
pub fn check_entry(pcs: &[Sheet], entering: &[String], stakes: &Stakes) -> Result<(), CampaignError> {
    let bad = |m: String| CampaignError::Entry(m);
    if entering.is_empty() {
        return Err(bad("a conflict needs at least one player character".into()));
    }
    for (i, name) in entering.iter().enumerate() {
        if entering[..i].iter().any(|o| o.eq_ignore_ascii_case(name)) {
            return Err(bad(format!("{name} is listed twice")));
        }
        let Some(s) = pcs.iter().find(|s| s.name().eq_ignore_ascii_case(name)) else {
            return Err(bad(format!("{name} is not a player character of this campaign")));
        };
        if s.character.dead {
            return Err(CampaignError::Dead(s.name().to_owned()));
        }
        if s.current().total() == 0 {
            return Err(bad(format!("{} has zero energy and cannot enter a conflict", s.name())));
        }
        if s.character.sits_out_next_conflict {
            return Err(bad(format!("{} is marked to sit out the next conflict and cannot enter", s.name())));
        }
    }
    if stakes.lethal {
        let missing: Vec<&str> = pcs
            .iter()
            .filter(|s| can_enter(s) && !entering.iter().any(|n| n.eq_ignore_ascii_case(s.name())))
            .map(Sheet::name)
            .collect();
        if !missing.is_empty() {
            return Err(bad(format!(
                "a lethal conflict involves every player character; add {}",
                missing.join(", ")
            )));
        }
    }
    Ok(())
}

/// Whether a PC may enter a conflict now (§5.1 step 2).
pub fn can_enter(s: &Sheet) -> bool {
    !s.character.dead && !s.character.sits_out_next_conflict && s.current().total() > 0
}

/// What a finished conflict writes back onto a PC's sheet (§5.3, §5.7): its energy, the
/// zero-energy marks (for §10's third question and the +1 maximum), its death, the specials
/// used (until the next full rest), and the sit-out mark Drunken Monkey leaves.
pub fn write_back(sheet: &Sheet, fighter: &Fighter) -> Sheet {
    let mut s = sheet.clone();
    let max = s.character.energy;
    let mut e = fighter.energy;
    for a in Action::ALL {
        *e.get_mut(a) = e.get(a).min(max.get(a));
        if fighter.zero_marks[a.index()] {
            s.mark_zero(a);
        }
    }
    s.set_current(e);
    if fighter.dead {
        s.character.dead = true;
    }
    s.character.specials_used = fighter.specials_used.clone();
    s.character.sits_out_next_conflict = fighter.sits_out_next;
    s
}

/// A PC that sat out this conflict: its sit-out mark clears (§5.1 step 2: the mark clears
/// after the conflict it sits out).
pub fn sat_out(sheet: &Sheet) -> Sheet {
    let mut s = sheet.clone();
    s.character.sits_out_next_conflict = false;
    s
}
