//! The ruleset-agnostic core of facedown.
//!
//! Every game facedown plays is decided by *simultaneous hidden choice*: each seat commits a
//! choice face down, all reveal, the rules resolve. This crate holds what every rule system
//! shares and nothing that belongs to one of them:
//!
//! - [`Seat`]s and their sides ([`SideId`]), gathered in [`Seats`];
//! - hidden commitments and their reveal ([`Sealed`], [`Face`]);
//! - the [`Ruleset`] trait: a typed setup, `state + command → Result<events>`, deterministic
//!   `apply`, automatic follow-up events, a redacted view per [`Viewer`], the legal commands
//!   and the [`Prompt`] of a seat, its forced default, narration;
//! - the [`Bot`] trait: a program that plays a seat from its [`Decision`] alone;
//! - the [`Table`]: a state, its event log, replay, and a save format;
//! - the one recorded draw source every ruleset draws from ([`Draws`], from a [`Source`]);
//! - sealed commitments, verifiable draws and the hash-chained log of docs/fairness.md
//!   ([`fairness`]);
//! - seeded, portable randomness for bots and tests ([`TableRng`]), never for rule draws;
//! - the shape of a ruleset's quick reference and its legend of symbols ([`reference`]);
//! - with the `testing` feature (for tests only), a toy ruleset and a random player
//!   (`testing`).

mod draws;
pub mod fairness;
mod hidden;
pub mod reference;
mod rng;
mod ruleset;
mod seat;
mod table;
#[cfg(feature = "testing")]
pub mod testing;

pub use draws::{DrawInt, DrawRange, Draws, Source, Stream};
pub use hidden::{Face, Sealed};
pub use rng::{TableRng, seeded_rng};
pub use ruleset::{Bot, Choice, Decision, Prompt, Ruleset, Viewer};
pub use seat::{Role, Seat, SeatError, SeatId, Seats, SideId};
pub use table::{ReplayError, Saved, Table};
