//! facedown's server (a shell, layer 5): remote tables of every rule system over WebSockets,
//! where every seat sees only what it may, kept durably.
//!
//! See ARCHITECTURE.md and docs/protocol.md.

pub mod assets;
mod auth;
pub mod chat;
pub mod client;
mod config;
mod hub;
mod journal;
mod limits;
mod metrics;
pub mod names;
pub mod protocol;
mod replay;
mod sealing;
pub mod systems;
mod web;

pub use config::{Config, Instance, Limits, Running, ServerError, Tls, start, start_with};
pub use hub::relink::{RelinkError, reissue_every_link};
pub use hub::{Hub, Refusal};
