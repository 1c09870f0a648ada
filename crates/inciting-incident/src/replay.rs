//! Checking a saved log that holds GM adjustments (Decision 30).
//!
//! [`Table::load_checked`] accepts an event only when the rules' next automatic step or some
//! seat's legal command causes it; a GM adjustment is never in a legal list (its values and
//! reason are free), so [`load_checked`] checks the log between adjustments with it and each
//! adjustment by giving its command again from the GM's seat. A later session layer, where
//! commands are the record, replaces this.

use table::{ReplayError, Saved, Table};

use crate::rules::{Command, Event};
use crate::{IncitingIncident, Scene};

/// Rebuilds a table from a save that may have been damaged or edited by hand, as
/// [`Table::load_checked`] does, accepting also each [`Event::Adjusted`] that a GM seat's
/// [`Command::Adjust`] would cause at its place in the log.
pub fn load_checked(saved: Saved<IncitingIncident>) -> Result<Table<IncitingIncident>, ReplayError> {
    let Saved { initial, events } = saved;
    let mut state: Scene = initial.clone();
    let mut start = 0;
    let offset = |e: ReplayError, start: usize| match e {
        ReplayError::Unexpected { number } => ReplayError::Unexpected { number: number + start },
        other => other,
    };
    for (j, event) in events.iter().enumerate() {
        let Event::Adjusted { adjustment, reason } = event else { continue };
        let segment = Saved { initial: state, events: events[start..j].to_vec() };
        state =
            Table::<IncitingIncident>::load_checked(segment).map_err(|e| offset(e, start))?.state().clone();
        let command = Command::Adjust { adjustment: *adjustment, reason: *reason };
        let mut caused = Vec::new();
        let given = state.gm_seat().is_some_and(|gm| state.decide(gm, &command, &mut caused).is_ok());
        if !given || caused.as_slice() != std::slice::from_ref(event) {
            return Err(ReplayError::Unexpected { number: j + 1 });
        }
        state.apply(event);
        start = j + 1;
    }
    let segment = Saved { initial: state, events: events[start..].to_vec() };
    Table::<IncitingIncident>::load_checked(segment).map_err(|e| offset(e, start))?;
    Ok(Table::replay(initial, events))
}
