//! A table's journal entries: every request the table accepted, in order, as the store keeps
//! them. Replaying them through a fresh session rebuilds the table exactly — its per-viewer
//! logs and their sequence numbers included — and the client ids already answered.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One accepted request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    /// A seat's command (or its bot's).
    Submit {
        /// The seat.
        seat: u16,
        /// The ruleset's command.
        command: Value,
        /// The client's id, none for a bot's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// At a table with a sealed seat: the server's nonce that binds the command if it
        /// belongs to a sealed round (64 hex digits).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        nonce: Option<String>,
        /// The link that gave it when that is not the seat's own: the GM link's ruling on the
        /// GM seat's behalf (`gm`), whose client ids are its own, not the seat's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        who: Option<String>,
    },
    /// A seat took back its face-down choice.
    TakeBack {
        /// The seat.
        seat: u16,
        /// The client's id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// It lost its secret ([`session::Session::give_up`]): once bound, a fault.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        lost: bool,
    },
    /// A seat's decision was forced: by the GM's seat, or by the decision timer (none).
    Force {
        /// The seat.
        seat: u16,
        /// The GM's seat, none for the timer or a GM link without a GM seat.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<u16>,
        /// The client's id (who asked: `gm` or a seat).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// Who asked, for the client id (`gm`, `seat:N`); none for the timer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        who: Option<String>,
        /// At a table with a sealed seat: the server's nonce binding the forced command.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        nonce: Option<String>,
    },
    /// A sealed seat's commitment: its hash only, never the command.
    Seal {
        /// The seat.
        seat: u16,
        /// The commitment, 64 lowercase hex digits.
        commitment: String,
        /// The client's id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
    /// A sealed seat's reveal, after the binding (a wrong nonce too: it is a fault).
    Reveal {
        /// The seat.
        seat: u16,
        /// The ruleset's command.
        command: Value,
        /// The nonce, 64 hex digits.
        nonce: String,
        /// The client's id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
    /// The GM's seat undid the last public command.
    Undo {
        /// The GM's seat.
        by: u16,
        /// The client's id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// Who asked (`gm`, `seat:N`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        who: Option<String>,
    },
    /// The table's draws are verifiable (docs/fairness.md): the secret server seed they are
    /// keyed by, 64 hex digits. The first entry of a table created with it; the journal is the
    /// server's own store, never shown to a client.
    Verifiable {
        /// The server seed.
        server_seed: String,
        /// The secret the seeds after each end of the game are derived from (a rotation,
        /// docs/fairness.md §4), 64 hex digits; never revealed. Absent in tables created
        /// before rotations, whose seed is revealed once.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rotation_key: Option<String>,
        /// The table opens with an opening round (docs/fairness.md §8).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        opening: bool,
    },
    /// A seat gave a client seed (docs/fairness.md §4), in effect from the next mix.
    ClientSeed {
        /// The seat.
        seat: u16,
        /// The client seed, 64 lowercase hex digits.
        seed: String,
        /// The client's id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
}
