//! A table's journal entries: every request the table accepted, in order, as the store keeps
//! them. Replaying them through a fresh session rebuilds the table exactly — its per-viewer
//! logs and their sequence numbers included — and the client ids already answered.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use session::any::AnySession;

use crate::config::Limits;
use crate::protocol::ErrorCode;
use crate::sealing::refusal_code;

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
    /// A line of the table's chat (`crate::chat`), from a seat's link or (no seat) the GM
    /// link. Not part of the game: in no log, untouched by an undo.
    Chat {
        /// The seat; none for the GM link.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<u16>,
        /// The line as kept (trimmed).
        text: String,
        /// The client's id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
    /// The GM link muted a seat in the chat, or let it speak again.
    Mute {
        /// The seat.
        seat: u16,
        /// Whether it is muted.
        muted: bool,
        /// The client's id (the GM link's).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
    /// A seat's player set its display name (`crate::names`; empty: cleared). Not part of the
    /// game: in no log, untouched by an undo.
    Name {
        /// The seat.
        seat: u16,
        /// The name as kept (trimmed), or empty.
        name: String,
        /// The client's id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
}

impl Op {
    /// The entry with each command it carries in its canonical form, as the rules read it
    /// ([`AnySession::canonical_command`]): the journal keeps the command the rules judged and a
    /// sealed commitment covers, never the text a client sent. A command saying anything more —
    /// a field the rules do not read, however long — is refused, naming the field, so that
    /// nothing a client adds reaches the store (issue 33). Refused: the request's id and why.
    pub(crate) fn canonical<G: AnySession + ?Sized>(
        mut self,
        game: &G,
    ) -> Result<Op, (Option<String>, (ErrorCode, String))> {
        if let Op::Submit { command, .. } | Op::Reveal { command, .. } = &mut self {
            match game.canonical_command(command) {
                Ok(canonical) => *command = canonical,
                Err(e) => return Err((self.id(), (refusal_code(&e), e.to_string()))),
            }
        }
        Ok(self)
    }
}

/// What one table's journal holds, against the server's bounds on it
/// ([`Limits::max_table_entries`], [`Limits::max_table_bytes`]): every entry counts, take-backs
/// and refused reveals included. A request that would go over is refused before the rules see
/// it (nothing changes), so a table's journal never outgrows what a load reads back
/// ([`store::tables::limits`]): a table always loads again (issue 33).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Used {
    /// Entries.
    pub(crate) entries: u64,
    /// Bytes of their JSON texts.
    pub(crate) bytes: u64,
}

impl Used {
    /// What `journal` (a stored table's entries) holds.
    pub(crate) fn of(journal: &[String]) -> Used {
        Used { entries: journal.len() as u64, bytes: journal.iter().map(|e| e.len() as u64).sum() }
    }

    /// Counts one more entry of `bytes` bytes.
    pub(crate) fn add(&mut self, bytes: u64) {
        self.entries += 1;
        self.bytes += bytes;
    }

    /// The size of `op`'s entry when the journal has room for it; else the refusal, with the
    /// request's id, code [`ErrorCode::Full`].
    pub(crate) fn admit(
        &self,
        op: &Op,
        limits: &Limits,
    ) -> Result<u64, (Option<String>, (ErrorCode, String))> {
        // Never above what a load reads back, whatever the configuration says.
        let max_entries = limits.max_table_entries.min(store::tables::limits::MAX_JOURNAL_ENTRIES);
        let max_bytes = limits.max_table_bytes.min(store::tables::limits::MAX_JOURNAL_BYTES);
        let bytes = serde_json::to_string(op).map_or(u64::MAX, |e| e.len() as u64);
        let full = if self.entries >= max_entries {
            Some(format!("{max_entries} requests"))
        } else if self.bytes.saturating_add(bytes) > max_bytes {
            Some(format!("{max_bytes} bytes of requests"))
        } else {
            None
        };
        match full {
            None => Ok(bytes),
            Some(limit) => Err((
                op.id(),
                (
                    ErrorCode::Full,
                    format!(
                        "this table has kept all it may: its journal holds at most {limit}, and this \
                         request would go over; nothing changed"
                    ),
                ),
            )),
        }
    }
}

impl Op {
    /// The client's id of the request, if it has one.
    pub(crate) fn id(&self) -> Option<String> {
        match self {
            Op::Submit { id, .. }
            | Op::TakeBack { id, .. }
            | Op::Force { id, .. }
            | Op::Seal { id, .. }
            | Op::Reveal { id, .. }
            | Op::Undo { id, .. }
            | Op::ClientSeed { id, .. }
            | Op::Name { id, .. }
            | Op::Chat { id, .. }
            | Op::Mute { id, .. } => id.clone(),
            Op::Verifiable { .. } => None,
        }
    }
}
