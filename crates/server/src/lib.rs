//! facedown's server (a shell, layer 5): remote tables of every rule system over WebSockets,
//! where every seat sees only what it may, kept durably.
//!
//! See ARCHITECTURE.md and docs/protocol.md.

pub mod client;
mod config;
pub mod protocol;
pub mod systems;

pub use config::{Config, Limits, Running, ServerError, Tls, start};
