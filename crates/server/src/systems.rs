//! The three rule systems as the server hosts them, behind one object type ([`Hosted`]): a
//! setup read from an upload or an example (never from the host's files), a session whose seats
//! are all remote, and the server's bots.
//!
//! INTERFACE STUB — implemented in issue 15's systems work.

use std::collections::BTreeMap;

use serde_json::Value;
use session::any::AnySession;
use table::SeatId;
use thiserror::Error;

use crate::protocol::SetupSource;

/// The systems a server hosts, by their names on the wire.
pub const SYSTEMS: &[&str] = &["iron-triangle", "nodice", "inciting-incident"];

/// Why a table cannot be created from a setup.
#[derive(Debug, Error)]
pub enum SetupError {
    /// No such system.
    #[error("there is no rule system named {0:?} (the systems are iron-triangle, nodice, inciting-incident)")]
    NoSystem(String),
    /// No such example.
    #[error("{system} has no example named {name:?} (its examples: {known})")]
    NoExample {
        /// The system.
        system: String,
        /// The name asked for.
        name: String,
        /// The names it has.
        known: String,
    },
    /// The setup names a file of the host's (a sheet path, an `inherits`): refused in uploads.
    #[error("{0}")]
    ReadsFiles(String),
    /// The setup is not valid, or the rules refuse it (names the field or rule).
    #[error("{0}")]
    Invalid(String),
}

/// A session of some system as the server hosts it: every seat remote; bots run by the server.
pub trait Hosted: AnySession {
    /// Seats a bot of `kind` (one of [`bot_kinds`]) in `seat`, or none to take the seat back
    /// for a person. The session never runs it by itself: the server asks
    /// [`bot_command`](Hosted::bot_command) after its think delay.
    fn set_bot(&mut self, seat: SeatId, kind: Option<&str>, seed: u64) -> Result<(), SetupError>;
    /// The command the bot in `seat` gives now, if the game waits for that seat and a bot
    /// holds it.
    fn bot_command(&mut self, seat: SeatId) -> Option<Value>;
    /// The ruleset options this game was set up with (the rules references' Decisions that
    /// are options, the edition), by name, shown to every seat.
    fn rules_options(&self) -> BTreeMap<String, Value>;
}

/// The bot kinds of `system`.
pub fn bot_kinds(system: &str) -> Option<&'static [&'static str]> {
    let _ = system;
    None
}

/// The examples `system` carries, by name.
pub fn examples(system: &str) -> Option<&'static [&'static str]> {
    let _ = system;
    None
}

/// Reads a setup for `system` from an upload or an example, into the ruleset's typed setup
/// as JSON, checked to start a game. Nothing is read from the host's files.
pub fn read_setup(system: &str, source: &SetupSource) -> Result<Value, SetupError> {
    let _ = source;
    Err(SetupError::NoSystem(system.to_owned()))
}

/// Opens a new game of `system` from a setup [`read_setup`] returned (or a stored one).
pub fn open(system: &str, setup: &Value) -> Result<Box<dyn Hosted>, SetupError> {
    let _ = setup;
    Err(SetupError::NoSystem(system.to_owned()))
}
