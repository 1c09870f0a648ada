//! A game in progress: its state, its event log, and how to save and replay it.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::{Ruleset, SeatId, Viewer};

/// Why a save cannot be trusted.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReplayError {
    /// An event that neither the rules' automatic steps nor any legal command would cause.
    #[error("event {number} does not follow from the events before it")]
    Unexpected {
        /// The event's position in the log, counting from 1.
        number: usize,
    },
    /// The log stops before the rules' automatic steps are done.
    #[error("the log stops in the middle of the rules' automatic steps")]
    Unfinished,
}

/// A game of ruleset `R` in progress: the state it started from, the state now, and every
/// event in between.
#[derive(Debug, Clone)]
pub struct Table<R: Ruleset> {
    /// `None` for an unlogged table, whose save starts from the current state.
    initial: Option<R::State>,
    state: R::State,
    log: Vec<R::Event>,
    scratch: Vec<R::Event>,
    keep_log: bool,
    /// How many automatic steps the last command (or opening) caused.
    last_automatic: usize,
}

/// A saved game: the initial state and the event log. Replaying the log rebuilds the state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(
    serialize = "R::State: Serialize, R::Event: Serialize",
    deserialize = "R::State: serde::de::DeserializeOwned, R::Event: serde::de::DeserializeOwned"
))]
pub struct Saved<R: Ruleset> {
    /// The state before the first event.
    pub initial: R::State,
    /// Every event, oldest first.
    pub events: Vec<R::Event>,
}

impl<R: Ruleset> Table<R> {
    /// Opens a table at `initial`, first running the rules' automatic steps.
    pub fn new(initial: R::State) -> Self {
        let mut table = Self::unopened(initial);
        table.open();
        table
    }

    /// A table at `initial` whose automatic steps have not run yet: it waits for
    /// [`open`](Table::open). For a session that must change the draw source before the rules
    /// first draw (an opening round, docs/fairness.md §8).
    pub fn unopened(initial: R::State) -> Self {
        Table {
            state: initial.clone(),
            initial: Some(initial),
            log: Vec::new(),
            scratch: Vec::new(),
            keep_log: true,
            last_automatic: 0,
        }
    }

    /// Runs the rules' automatic steps of a table made [`unopened`](Table::unopened) (nothing
    /// when they have run).
    pub fn open(&mut self) {
        self.run_automatic();
    }

    /// A table that keeps neither its event log nor its initial state: for simulations and
    /// benchmarks, where only the outcome matters. Its save holds the current state and no
    /// events.
    pub fn unlogged(initial: R::State) -> Self {
        let mut table = Table {
            state: initial,
            initial: None,
            log: Vec::new(),
            scratch: Vec::new(),
            keep_log: false,
            last_automatic: 0,
        };
        table.run_automatic();
        table
    }

    /// The current state, the table given up (a scratch table's outcome, kept without a copy).
    pub fn into_state(self) -> R::State {
        self.state
    }

    /// Starts the table again from `initial`, keeping its buffers (and whether it keeps a
    /// log): for simulations that play many games in a row.
    pub fn restart(&mut self, initial: R::State) {
        self.log.clear();
        if self.keep_log {
            self.state = initial.clone();
            self.initial = Some(initial);
        } else {
            self.state = initial;
            self.initial = None;
        }
        self.run_automatic();
    }

    /// Like [`restart`](Table::restart) from a copy of `initial`, but the copy reuses the
    /// buffers of the finished game's state (through [`Clone::clone_from`]): what a
    /// simulation playing the same start over and over wants.
    pub fn restart_from(&mut self, initial: &R::State) {
        self.log.clear();
        self.state.clone_from(initial);
        if self.keep_log {
            match &mut self.initial {
                Some(kept) => kept.clone_from(initial),
                None => self.initial = Some(initial.clone()),
            }
        } else {
            self.initial = None;
        }
        self.run_automatic();
    }

    /// Rebuilds a table by applying `events` to `initial`.
    pub fn replay(initial: R::State, events: Vec<R::Event>) -> Self {
        let mut state = initial.clone();
        for event in &events {
            R::apply(&mut state, event);
        }
        Table {
            initial: Some(initial),
            state,
            log: events,
            scratch: Vec::new(),
            keep_log: true,
            last_automatic: 0,
        }
    }

    /// Rebuilds a table from a save, trusting it.
    pub fn load(saved: Saved<R>) -> Self {
        Self::replay(saved.initial, saved.events)
    }

    /// Rebuilds a table from a save that may have been damaged or edited by hand: every event
    /// must be the rules' next automatic step, or what a legal command of some seat causes,
    /// given the events before it. (Whether the initial state is a real start is the
    /// ruleset's business.)
    pub fn load_checked(saved: Saved<R>) -> Result<Self, ReplayError> {
        let mut state = saved.initial.clone();
        let (mut legal, mut caused) = (Vec::new(), Vec::new());
        let events = &saved.events;
        let mut i = 0;
        while i < events.len() {
            let step = match R::automatic(&state) {
                Some(auto) => (auto == events[i]).then_some(1),
                None => {
                    R::seats(&state).iter().map(|(seat, _)| seat).collect::<Vec<_>>().into_iter().find_map(
                        |seat| {
                            legal.clear();
                            R::legal_commands(&state, seat, &mut legal);
                            legal.iter().find_map(|c| {
                                caused.clear();
                                let ok = R::decide(&state, seat, c, &mut caused).is_ok()
                                    && !caused.is_empty()
                                    && events[i..].starts_with(&caused);
                                ok.then_some(caused.len())
                            })
                        },
                    )
                }
            };
            let Some(n) = step else {
                return Err(ReplayError::Unexpected { number: i + 1 });
            };
            for event in &events[i..i + n] {
                R::apply(&mut state, event);
            }
            i += n;
        }
        if R::automatic(&state).is_some() {
            return Err(ReplayError::Unfinished);
        }
        Ok(Table {
            initial: Some(saved.initial),
            state,
            log: saved.events,
            scratch: Vec::new(),
            keep_log: true,
            last_automatic: 0,
        })
    }

    /// The save of this table (initial state and log).
    pub fn save(&self) -> Saved<R> {
        match &self.initial {
            Some(initial) => Saved { initial: initial.clone(), events: self.log.clone() },
            None => Saved { initial: self.state.clone(), events: Vec::new() },
        }
    }

    /// The current state, hidden parts included. Shells show [`Table::view`] instead.
    pub fn state(&self) -> &R::State {
        &self.state
    }

    /// The current state's draw source, for the session to mix in a sealed round, add a
    /// client seed or rotate the server seed ([`Ruleset::draws_mut`]); `None` for a ruleset
    /// that never draws. Changing it adds no event: the caller records the change.
    pub fn draws_mut(&mut self) -> Option<&mut crate::Draws> {
        R::draws_mut(&mut self.state)
    }

    /// Replaces the draw source of the table from its start, before anything was drawn (the
    /// initial state's too, so a replay from it draws from `draws`). Gives back `false`, and
    /// changes nothing, when a draw was made already or the ruleset never draws.
    pub fn start_draws(&mut self, draws: crate::Draws) -> bool {
        if R::draw_position(&self.state) != 0 || R::draws_mut(&mut self.state).is_none() {
            return false;
        }
        if let Some(initial) = &mut self.initial
            && let Some(d) = R::draws_mut(initial)
        {
            *d = draws.clone();
        }
        if let Some(d) = R::draws_mut(&mut self.state) {
            *d = draws;
        }
        true
    }

    /// The state the table started from (the current state for an unlogged table).
    pub fn initial(&self) -> &R::State {
        self.initial.as_ref().unwrap_or(&self.state)
    }

    /// Every event so far, oldest first.
    pub fn log(&self) -> &[R::Event] {
        &self.log
    }

    /// What `viewer` may see now.
    pub fn view(&self, viewer: Viewer) -> R::View {
        R::view(&self.state, viewer)
    }

    /// The log as `viewer` may see it.
    pub fn log_for(&self, viewer: Viewer) -> Vec<R::Event> {
        // Redaction looks at the state the event was applied to, so replay alongside.
        let mut state = self.initial().clone();
        let mut out = Vec::new();
        for event in &self.log {
            out.push(R::redact(&state, event, viewer));
            R::apply(&mut state, event);
        }
        out
    }

    /// Submits `command` from `seat`. On success returns the events it caused (automatic
    /// steps included); on error the state is unchanged.
    pub fn submit(&mut self, seat: SeatId, command: &R::Command) -> Result<&[R::Event], R::Error> {
        let start = self.log.len();
        self.scratch.clear();
        R::decide(&self.state, seat, command, &mut self.scratch)?;
        for event in &self.scratch {
            R::apply(&mut self.state, event);
        }
        if self.keep_log {
            self.log.extend(self.scratch.iter().cloned());
        }
        self.run_automatic();
        if self.keep_log { Ok(&self.log[start..]) } else { Ok(&[]) }
    }

    /// How many automatic steps the rules took after the last command (or when the table
    /// opened): a reveal is one, so a session knows when face-down choices turned face up.
    pub fn last_automatic(&self) -> usize {
        self.last_automatic
    }

    fn run_automatic(&mut self) {
        self.last_automatic = 0;
        while let Some(event) = R::automatic(&self.state) {
            self.last_automatic += 1;
            R::apply(&mut self.state, &event);
            if self.keep_log {
                self.log.push(event);
            }
        }
    }

    /// Pushes the commands `seat` may give now onto `out` (cleared first).
    pub fn legal_commands(&self, seat: SeatId, out: &mut Vec<R::Command>) {
        out.clear();
        R::legal_commands(&self.state, seat, out);
    }

    /// The seats the game waits for.
    pub fn awaiting(&self) -> Vec<SeatId> {
        let mut out = Vec::new();
        R::awaiting(&self.state, &mut out);
        out
    }

    /// Writes the seats the game waits for into `out` (cleared first), without allocating
    /// once `out` has room.
    pub fn awaiting_into(&self, out: &mut Vec<SeatId>) {
        out.clear();
        R::awaiting(&self.state, out);
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        R::is_over(&self.state)
    }
}

impl<R: Ruleset> Table<R> {
    /// The decision `seat` faces now, with its legal commands written into `legal`.
    pub fn decision<'a>(&'a self, seat: SeatId, legal: &'a mut Vec<R::Command>) -> crate::Decision<'a, R> {
        legal.clear();
        R::legal_commands(&self.state, seat, legal);
        crate::Decision::new(&self.state, seat, legal)
    }
}
