//! Where facedown keeps games (a shell, layer 4): the [`Persist`] interface and its two
//! implementations, a save file ([`SaveFile`]) and a SQLite database ([`SqliteGames`]).
//!
//! A game's record is what it takes to replay it (issue 14, part 3): the ruleset's name and
//! version, its setup, the draw source's seeds, and the append-only sequence of
//! `(seat, command)` [`Entry`]s. Events are derived by replaying the commands through the rules;
//! the hash of the derived events ([`EventsHash`]) is kept with the record so that a replay
//! that diverges (a newer ruleset, a damaged record) is detected and reported.
//!
//! The store knows no ruleset: setups and commands are JSON text, checked to be JSON and kept
//! exactly as given. A server's tables ([`tables::TableStore`]) are kept in SQLite
//! ([`SqliteTables`]) or PostgreSQL ([`PgTables`]).
//!
//! It is async and owns no runtime: its futures are `Send`, so a server can
//! await them from any task, and the CLI awaits them on the runtime it creates at its top.

mod pg_tables;
mod save_file;
pub mod sessions;
mod sqlite;
mod sqlite_tables;
mod table_document;
pub mod tables;
mod writer;
pub use writer::Handle as WriterHandle;

use std::future::Future;

use serde::{Deserialize, Serialize};
use table::SeatId;
use thiserror::Error;

pub use pg_tables::{PgTables, is_postgres_url, redacted_url};
pub use save_file::{SAVE_FORMAT, SAVE_VERSION, SaveFile, write_atomic, write_atomic_with};
pub use sqlite::SqliteGames;
pub use sqlite_tables::SqliteTables;
pub use table_document::{
    AccessRow, DocumentError, JournalEntry, MAX_DOCUMENT_BYTES, MovedTable, TABLE_FORMAT, TABLE_VERSION,
    TableDocument, TableRow,
};
pub use tables::SalvagePage;

/// A game's number in its store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct GameId(pub u64);

impl std::fmt::Display for GameId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "game {}", self.0)
    }
}

/// What a new game is made of: everything its replay needs besides the commands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewGame {
    /// The ruleset's name, e.g. `iron-triangle`.
    pub ruleset: String,
    /// The version of the ruleset that played it (a replay under another version may diverge).
    pub ruleset_version: String,
    /// The ruleset's typed setup as JSON text.
    pub setup: String,
    /// The draw source's seeds.
    pub seeds: Vec<u64>,
}

/// How an entry came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    /// The seat gave the command.
    Played,
    /// The system's documented default, taken when the seat's decision timer ran out or the
    /// GM called for it (logged as forced).
    Forced,
    /// An undo: takes back the last public command (the command says which; entries are never
    /// changed or removed, so an undo is an entry of its own).
    Undo,
}

impl Mark {
    /// The mark as stored: `played`, `forced` or `undo`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Played => "played",
            Mark::Forced => "forced",
            Mark::Undo => "undo",
        }
    }

    /// Reads a stored mark.
    pub fn parse(s: &str) -> Option<Mark> {
        match s {
            "played" => Some(Mark::Played),
            "forced" => Some(Mark::Forced),
            "undo" => Some(Mark::Undo),
            _ => None,
        }
    }
}

/// One entry of a game's record: the seat and its command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Its number in the game: 0, 1, 2… without gaps, unique per game.
    pub seq: u64,
    /// The seat that gave it (or for which it was forced).
    pub seat: SeatId,
    /// The ruleset's command as JSON text.
    pub command: String,
    /// Played, forced or an undo.
    pub mark: Mark,
}

/// The hash of the events derived from a game's first `entries` commands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventsHash {
    /// How many entries the hash covers.
    pub entries: u64,
    /// The hash, as the session layer writes it (e.g. hexadecimal).
    pub hash: String,
}

/// A stored game, without its entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Its number.
    pub id: GameId,
    /// The ruleset, its version, the setup and the seeds it was created with.
    #[serde(flatten)]
    pub game: NewGame,
    /// The hash of the derived events, once stored.
    pub events_hash: Option<EventsHash>,
}

/// Why a store operation failed. Nothing was changed (except after [`PersistError::WriterLost`],
/// when it is unknown).
#[derive(Debug, Error)]
pub enum PersistError {
    /// No game by that number.
    #[error("there is no {0} in this store")]
    NoGame(GameId),
    /// An entry's sequence number is not the game's next one (a duplicate, or a gap).
    #[error(
        "{game}: entry number {got} refused; the next entry is number {expected} (sequence numbers are unique per game)"
    )]
    Sequence {
        /// The game.
        game: GameId,
        /// The number the next entry must have.
        expected: u64,
        /// The number given.
        got: u64,
    },
    /// A field that must be JSON text is not.
    #[error("the {field} is not JSON text: {reason}")]
    NotJson {
        /// Which text: `setup`, `command`, `options`, `journal entry`, `controller`.
        field: &'static str,
        /// What the JSON parser said.
        reason: String,
    },
    /// An events hash covers more entries than the game has.
    #[error("{game}: an events hash over {entries} entries, but the game has {have}")]
    HashBeyondEnd {
        /// The game.
        game: GameId,
        /// The entries the hash claims to cover.
        entries: u64,
        /// The entries stored.
        have: u64,
    },
    /// No table by that number (see [`tables::TableStore`]).
    #[error("there is no {0} in this store")]
    NoTable(tables::TableId),
    /// A journal entry's number is not the table's next one: a gap, or a number given twice in
    /// one request (a number kept already is a [`PersistError::Conflict`]).
    #[error(
        "{table}: journal entry number {got} refused; the next entry is number {expected} (journal entries are numbered 0, 1, 2… per table, without gaps)"
    )]
    JournalSequence {
        /// The table.
        table: tables::TableId,
        /// The number the next entry must have.
        expected: u64,
        /// The number given.
        got: u64,
    },
    /// A journal entry's number is kept already: another writer (another server instance, a
    /// concurrent request) or an earlier request kept an entry at it first. Two writers can
    /// never both keep one number; the loser loads the table to catch up.
    #[error(
        "{table}: journal entry number {seq} is kept already (another writer kept an entry at that number first); load the table to catch up"
    )]
    Conflict {
        /// The table.
        table: tables::TableId,
        /// The number refused.
        seq: u64,
    },
    /// A name holds a NUL character, which PostgreSQL's text cannot keep (every store refuses
    /// it, so that a table can move between stores).
    #[error("the {field} holds a NUL character, which a store cannot keep")]
    Nul {
        /// Which name: `ruleset name`, `access row's who`, …
        field: &'static str,
    },
    /// A value over one of the store's limits (see [`tables::limits`]).
    #[error("the {what} is {size}, over the store's limit of {limit}")]
    Limit {
        /// What is too large, e.g. `journal entry (bytes)`.
        what: &'static str,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The transaction this request shared with others (a group commit) failed as a whole,
    /// e.g. the disk is full; nothing of it was kept.
    #[error("the group commit failed, nothing of it was kept: {0}")]
    GroupFailed(String),
    /// The store was closed: nothing was written.
    #[error("the table store is closed")]
    Closed,
    /// The store's writer stopped (crashed or aborted) while the request was in flight: whether
    /// it was kept is unknown until the table is loaded again.
    #[error(
        "the table store's writer stopped before answering; load the table to see whether the request was kept"
    )]
    WriterLost,
    /// A save file of another format or version.
    #[error("{0}")]
    Format(String),
    /// A stored record could not be read.
    #[error("the store is damaged: {0}")]
    Corrupt(String),
    /// Reading or writing a file.
    #[error("{0}")]
    Io(String),
    /// Another process has the SQLite file open (a server serving it, most likely), and what
    /// was asked needs it alone ([`SqliteTables::alone`]).
    #[error(
        "{0} is open in another process (a `facedown serve` serving it, most likely): a running server \
         keeps its tables' links in memory and would not see the change; stop it first, or use the \
         GM link's `manage` actions"
    )]
    InUse(String),
    /// The database.
    #[error("database error: {0}")]
    Db(#[from] sqlx::Error),
    /// The database, through the SQLite table store's writer (its own connection, see
    /// [`SqliteTables`]).
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The schema migrations.
    #[error("cannot bring the games database up to date: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

/// Where games are kept: one interface, several backends (a save file, SQLite; PostgreSQL in a
/// later issue). Every method is async and its future is `Send`; each call is atomic — when it
/// returns `Ok` the change is durable, on `Err` nothing changed.
pub trait Persist: Send + Sync {
    /// Creates a game and returns its number. `setup` must be JSON text.
    fn create_game(&self, game: &NewGame) -> impl Future<Output = Result<GameId, PersistError>> + Send;

    /// Appends one entry to a game's record. Its `seq` must be the game's next number (the
    /// number of entries it has): a duplicate or a gap is refused with
    /// [`PersistError::Sequence`]. `command` must be JSON text.
    fn append(&self, game: GameId, entry: &Entry) -> impl Future<Output = Result<(), PersistError>> + Send;

    /// A game's entries, in order.
    fn entries(&self, game: GameId) -> impl Future<Output = Result<Vec<Entry>, PersistError>> + Send;

    /// A game's record (without its entries).
    fn game(&self, game: GameId) -> impl Future<Output = Result<GameRecord, PersistError>> + Send;

    /// Every game, oldest first.
    fn games(&self) -> impl Future<Output = Result<Vec<GameRecord>, PersistError>> + Send;

    /// Stores the hash of the events derived from the game's first `hash.entries` entries,
    /// replacing the one stored before.
    fn set_events_hash(
        &self,
        game: GameId,
        hash: &EventsHash,
    ) -> impl Future<Output = Result<(), PersistError>> + Send;
}

/// Checks that `text` is JSON (any value); the store keeps it as given.
fn check_json(field: &'static str, text: &str) -> Result<(), PersistError> {
    serde_json::from_str::<serde::de::IgnoredAny>(text)
        .map(drop)
        .map_err(|e| PersistError::NotJson { field, reason: e.to_string() })
}
