//! Where a server keeps its tables (issue 15): each table's setup and options, who may open
//! it (token hashes, never tokens) and its *journal* — every request the table accepted, in the
//! order it accepted them, as JSON text the server writes and reads (a command, a take-back, a
//! forced decision, an undo, a seat handed to a bot…). Replaying the journal through a fresh
//! session rebuilds the table exactly, per-viewer logs and their sequence numbers included, so a
//! client reconnecting after a crash catches up from the last number it saw.
//!
//! A request is acknowledged only once its journal entry is durable. [`TableStore::commit`]
//! is a *group commit*: the requests of every table that arrive while a sync is under way are
//! written together in one transaction and share the next sync, so throughput is not capped at
//! the disk's syncs per second.

use std::future::Future;

use serde::{Deserialize, Serialize};

use crate::PersistError;

/// A table's number in its store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TableId(pub u64);

impl std::fmt::Display for TableId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "table {}", self.0)
    }
}

/// Who may open a table by a link: one row per seat, one for the GM link, one for the
/// spectator link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    /// `seat:N`, `gm` or `spectator`.
    pub who: String,
    /// The SHA-256 (hex) of the link's token; none while the link is revoked.
    pub token_hash: Option<String>,
    /// The server's JSON text for who controls the seat (`null` for the GM and spectators).
    pub controller: String,
}

/// What a new table is made of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewTable {
    /// The ruleset's name, e.g. `iron-triangle`.
    pub ruleset: String,
    /// The version of the ruleset that created it.
    pub ruleset_version: String,
    /// The ruleset's typed setup as JSON text.
    pub setup: String,
    /// The table's options as JSON text.
    pub options: String,
    /// Who may open it.
    pub access: Vec<Access>,
}

/// One change to keep, part of a [`TableStore::commit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Write {
    /// Appends entry number `n` (0, 1, 2… without gaps) to a table's journal.
    Journal {
        /// The table.
        table: TableId,
        /// The entry's number: the journal's length before it.
        n: u64,
        /// The entry, JSON text.
        entry: String,
    },
    /// Replaces the access row with the same `who` (or adds it).
    Access {
        /// The table.
        table: TableId,
        /// The new row.
        access: Access,
    },
    /// Marks a table finished: it is no longer among [`TableStore::open_tables`].
    Finished {
        /// The table.
        table: TableId,
    },
}

/// A stored table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredTable {
    /// Its number.
    pub id: TableId,
    /// Its setup, options and current access rows.
    pub table: NewTable,
    /// Its journal, in order.
    pub journal: Vec<String>,
    /// Whether it was marked finished.
    pub finished: bool,
}

/// Where a server keeps its tables: SQLite ([`crate::SqliteGames`]'s database) now, PostgreSQL
/// in a later issue, behind this one interface. Futures are `Send`; each call is atomic.
pub trait TableStore: Send + Sync + 'static {
    /// Creates a table and returns its number.
    fn create_table(&self, table: &NewTable) -> impl Future<Output = Result<TableId, PersistError>> + Send;

    /// Keeps `writes` atomically and durably (all or none), grouped with the other commits
    /// in flight into one transaction and one sync. A journal entry whose number is not the
    /// table's next is refused with [`PersistError::Sequence`]-like error and nothing of this
    /// call is kept; other callers' commits in the same group are unaffected.
    fn commit(&self, writes: Vec<Write>) -> impl Future<Output = Result<(), PersistError>> + Send;

    /// A table with its access rows and journal.
    fn load(&self, table: TableId) -> impl Future<Output = Result<StoredTable, PersistError>> + Send;

    /// The tables not marked finished, oldest first.
    fn open_tables(&self) -> impl Future<Output = Result<Vec<TableId>, PersistError>> + Send;
}
