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
use tokio::sync::broadcast;

use crate::{PersistError, check_json};

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
    /// Who may open it. A store gives the rows back ordered by `who`; of two rows with the same
    /// `who`, the last is kept.
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

impl Write {
    /// The table it changes.
    pub fn table(&self) -> TableId {
        match self {
            Write::Journal { table, .. } | Write::Access { table, .. } | Write::Finished { table } => *table,
        }
    }
}

/// The bounds every table store keeps to, so that every read is bounded: what is refused on
/// the way in cannot be too large on the way out.
pub mod limits {
    /// Bytes of one JSON text: a setup, the options, a journal entry, a controller.
    pub const MAX_TEXT_BYTES: usize = 1 << 20;
    /// Bytes of a name: a ruleset, its version, an access row's `who`, a token hash.
    pub const MAX_NAME_BYTES: usize = 256;
    /// Access rows of one table.
    pub const MAX_ACCESS_ROWS: usize = 1024;
    /// Journal entries of one table (entry numbers are below it).
    pub const MAX_JOURNAL_ENTRIES: u64 = 1 << 20;
    /// Bytes of one table's whole journal, as [`super::TableStore::load`] reads it.
    pub const MAX_JOURNAL_BYTES: u64 = 256 << 20;
    /// Open tables [`super::TableStore::open_tables`] lists.
    pub const MAX_OPEN_TABLES: usize = 1 << 20;
    /// Writes in one [`super::TableStore::commit`].
    pub const MAX_WRITES: usize = 4096;
}

fn check_size(what: &'static str, size: usize, limit: usize) -> Result<(), PersistError> {
    if size > limit {
        return Err(PersistError::Limit { what, size: size as u64, limit: limit as u64 });
    }
    Ok(())
}

/// Refuses a NUL character in a name: PostgreSQL's text cannot hold one, and every store refuses
/// what another could not keep, so that a table can move between stores. (JSON text never
/// holds one: the parser refuses it.)
fn check_no_nul(field: &'static str, text: &str) -> Result<(), PersistError> {
    if text.contains('\0') {
        return Err(PersistError::Nul { field });
    }
    Ok(())
}

fn check_access(access: &Access) -> Result<(), PersistError> {
    use limits::*;
    check_size("access row's who (bytes)", access.who.len(), MAX_NAME_BYTES)?;
    check_no_nul("access row's who", &access.who)?;
    if let Some(hash) = &access.token_hash {
        check_size("token hash (bytes)", hash.len(), MAX_NAME_BYTES)?;
        check_no_nul("token hash", hash)?;
    }
    check_size("controller (bytes)", access.controller.len(), MAX_TEXT_BYTES)?;
    check_json("controller", &access.controller)
}

/// Checks a new table against the [`limits`] and that its setup, options and controllers are
/// JSON text, before anything is sent to a store.
pub(crate) fn check_new_table(table: &NewTable) -> Result<(), PersistError> {
    use limits::*;
    check_size("ruleset name (bytes)", table.ruleset.len(), MAX_NAME_BYTES)?;
    check_size("ruleset version (bytes)", table.ruleset_version.len(), MAX_NAME_BYTES)?;
    check_no_nul("ruleset name", &table.ruleset)?;
    check_no_nul("ruleset version", &table.ruleset_version)?;
    check_size("setup (bytes)", table.setup.len(), MAX_TEXT_BYTES)?;
    check_size("options (bytes)", table.options.len(), MAX_TEXT_BYTES)?;
    check_size("access rows", table.access.len(), MAX_ACCESS_ROWS)?;
    check_json("setup", &table.setup)?;
    check_json("options", &table.options)?;
    table.access.iter().try_for_each(check_access)
}

/// Why a table to import ([`crate::MovedTable`]) was refused, by the part at fault.
#[derive(Debug, thiserror::Error)]
pub enum MoveError {
    /// The table's row: its names, setup or options, or how many access rows it has.
    #[error("{0}")]
    Table(PersistError),
    /// Access row number `index`.
    #[error("access row {index}: {error}")]
    Access {
        /// Its index in the table's access rows.
        index: usize,
        /// Why.
        error: PersistError,
    },
    /// Journal entry number `index`.
    #[error("journal entry {index}: {error}")]
    Entry {
        /// Its number.
        index: usize,
        /// Why.
        error: PersistError,
    },
    /// The journal as a whole: too many entries, or too many bytes.
    #[error("{0}")]
    Journal(PersistError),
}

impl From<MoveError> for PersistError {
    fn from(e: MoveError) -> PersistError {
        match e {
            MoveError::Table(e) | MoveError::Journal(e) => e,
            MoveError::Access { error, .. } | MoveError::Entry { error, .. } => error,
        }
    }
}

/// Checks a table to import against the [`limits`] — the ones a table grown by commits keeps
/// to, so that what is imported can be loaded — and that its texts are JSON.
pub(crate) fn check_moved_table(moved: &crate::MovedTable) -> Result<(), MoveError> {
    use limits::*;
    let table = &moved.table;
    for (index, access) in table.access.iter().enumerate() {
        check_access(access).map_err(|error| MoveError::Access { index, error })?;
    }
    check_new_table(table).map_err(MoveError::Table)?;
    let entries = moved.journal.len() as u64;
    if entries > MAX_JOURNAL_ENTRIES {
        return Err(MoveError::Journal(PersistError::Limit {
            what: "journal (entries)",
            size: entries,
            limit: MAX_JOURNAL_ENTRIES,
        }));
    }
    let mut bytes = 0u64;
    for (index, entry) in moved.journal.iter().enumerate() {
        check_size("journal entry (bytes)", entry.len(), MAX_TEXT_BYTES)
            .and_then(|()| check_json("journal entry", entry))
            .map_err(|error| MoveError::Entry { index, error })?;
        bytes += entry.len() as u64;
    }
    if bytes > MAX_JOURNAL_BYTES {
        return Err(MoveError::Journal(PersistError::Limit {
            what: "journal (bytes)",
            size: bytes,
            limit: MAX_JOURNAL_BYTES,
        }));
    }
    Ok(())
}

/// Checks a commit's writes against the [`limits`] and that its texts are JSON, before
/// anything is sent to a store. Journal numbers are the store's to check.
pub(crate) fn check_writes(writes: &[Write]) -> Result<(), PersistError> {
    use limits::*;
    check_size("commit (writes)", writes.len(), MAX_WRITES)?;
    for write in writes {
        match write {
            Write::Journal { n, entry, .. } => {
                if *n >= MAX_JOURNAL_ENTRIES {
                    return Err(PersistError::Limit {
                        what: "journal entry number",
                        size: *n,
                        limit: MAX_JOURNAL_ENTRIES - 1,
                    });
                }
                check_size("journal entry (bytes)", entry.len(), MAX_TEXT_BYTES)?;
                check_json("journal entry", entry)?;
            }
            Write::Access { access, .. } => check_access(access)?,
            Write::Finished { .. } => {}
        }
    }
    Ok(())
}

/// Checks journal entry number `n` of `table` in a request: `before` is the table's next number
/// before the request, `expected` its next number after the request's earlier entries. A number
/// below `before` was kept already — by another writer, or by an earlier request — and is a
/// [`PersistError::Conflict`]; any other number but `expected` (a gap, or a number the request
/// gives twice) is a [`PersistError::JournalSequence`].
pub(crate) fn check_number(table: TableId, n: u64, before: u64, expected: u64) -> Result<(), PersistError> {
    if n < before {
        return Err(PersistError::Conflict { table, seq: n });
    }
    if n != expected {
        return Err(PersistError::JournalSequence { table, expected, got: n });
    }
    Ok(())
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

/// One page of a table read for salvage ([`TableStore::salvage_page`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SalvagePage {
    /// The table's row and access rows; its `journal` is empty.
    pub head: StoredTable,
    /// Journal entries with the numbers they are stored under, in order (a gap shows as a jump
    /// in the numbers); none past the last.
    pub entries: Vec<(u64, String)>,
}

/// One line of [`TableStore::list_tables`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSummary {
    /// Its number.
    pub id: TableId,
    /// The ruleset's name.
    pub ruleset: String,
    /// The version of the ruleset that created it.
    pub ruleset_version: String,
    /// How many journal entries it has.
    pub entries: u64,
    /// Whether it was marked finished.
    pub finished: bool,
}

/// Where a server keeps its tables: SQLite ([`crate::SqliteTables`], in [`crate::SqliteGames`]'
/// database) or PostgreSQL ([`crate::PgTables`]), behind this one interface. Futures are
/// `Send`; each call is atomic.
pub trait TableStore: Send + Sync + 'static {
    /// Creates a table and returns its number.
    fn create_table(&self, table: &NewTable) -> impl Future<Output = Result<TableId, PersistError>> + Send;

    /// Keeps `writes` atomically and durably (all or none), grouped with the other commits
    /// in flight into one transaction and one sync. A journal entry whose number is kept
    /// already is refused with [`PersistError::Conflict`] — of two writers racing at one number,
    /// exactly one wins —, one whose number is otherwise not the table's next (a gap) with
    /// [`PersistError::JournalSequence`], a write to a table the
    /// store does not have with [`PersistError::NoTable`], a text that is not JSON or over the
    /// [`limits`] before it reaches the store; then nothing of this call is kept, and other
    /// callers' commits in the same group are unaffected. Returns `Ok` only once the writes are
    /// durable. A call whose future is dropped after it was queued may still be kept: load the
    /// table to know.
    fn commit(&self, writes: Vec<Write>) -> impl Future<Output = Result<(), PersistError>> + Send;

    /// A table with its access rows and journal.
    fn load(&self, table: TableId) -> impl Future<Output = Result<StoredTable, PersistError>> + Send;

    /// Closes the store once what is queued is written: SQLite folds its write-ahead log into
    /// the database file ([`crate::SqliteTables::checkpoint`]), so that the file alone holds
    /// every table; an error says what could not be done (the writes are durable all the same).
    /// What a server does when it shuts down, after its tables closed.
    fn shut_down(&self) -> impl Future<Output = Result<(), PersistError>> + Send {
        async { Ok(()) }
    }

    /// Whether `token_hash` is the hash of one of `table`'s links (false when there is no such
    /// table, or the link is revoked): the store's per-table token index, its access rows, read
    /// without the journal — what a server checks before it loads a table for a token, so that
    /// a wrong token reads nothing more (issue 33). Hashes only: the token never reaches the
    /// store. By default, from [`load`](TableStore::load); SQLite and PostgreSQL read the index
    /// alone.
    fn opens(
        &self,
        table: TableId,
        token_hash: &str,
    ) -> impl Future<Output = Result<bool, PersistError>> + Send {
        async move {
            match self.load(table).await {
                Ok(stored) => {
                    Ok(stored.table.access.iter().any(|a| a.token_hash.as_deref() == Some(token_hash)))
                }
                Err(PersistError::NoTable(_)) => Ok(false),
                Err(e) => Err(e),
            }
        }
    }

    /// Deletes at most `limit` of the tables marked finished (played to the end, or closed) at
    /// least `seconds` ago by the store's clock, and belonging to no campaign, those finished
    /// longest ago first: each with its journal, its access rows (the links' token hashes) and
    /// its lease, in one transaction (issue 33 §1: finished tables expire). A table marked
    /// finished again (an entry after its end) counts from then. A table's number is never given
    /// to another table afterwards. Returns the tables deleted. By default none: a store that
    /// keeps everything.
    fn expire_finished(
        &self,
        seconds: u64,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<TableId>, PersistError>> + Send {
        let _ = (seconds, limit);
        async { Ok(Vec::new()) }
    }

    /// The tables not marked finished, oldest first.
    fn open_tables(&self) -> impl Future<Output = Result<Vec<TableId>, PersistError>> + Send;

    /// Every table, finished or not, oldest first (at most [`limits::MAX_OPEN_TABLES`]).
    fn list_tables(&self) -> impl Future<Output = Result<Vec<TableSummary>, PersistError>> + Send;

    /// Adds a table moved from another store as a new table of this one — its row, its access
    /// rows and its whole journal, texts byte for byte, in one transaction: all of it is kept
    /// (durably) or none — and returns its number here. Refused, before anything reaches the
    /// store, when it breaks the [`limits`] or a text is not JSON. A table imported while a
    /// server serves this store is loaded when a client opens it.
    fn import_table(
        &self,
        table: &crate::MovedTable,
    ) -> impl Future<Output = Result<TableId, PersistError>> + Send;

    /// A table as a [`crate::TableDocument`], to import into another store.
    fn export_table(
        &self,
        table: TableId,
    ) -> impl Future<Output = Result<crate::TableDocument, PersistError>> + Send {
        async move { Ok(crate::TableDocument::from_stored(&self.load(table).await?)) }
    }

    /// Salvage (`facedown tables export --salvage`): a table's row and access rows, with at most
    /// `max_entries` (at least 1) of its journal entries numbered `from` or more, each with the
    /// number it is stored under, in order — without the checks [`load`](TableStore::load)
    /// makes of the whole journal (its size, its numbering without gaps), so that a table that
    /// cannot load can still be read, page by page, in bounded memory. By default, from
    /// [`load`](TableStore::load); SQLite and PostgreSQL read the page alone.
    fn salvage_page(
        &self,
        table: TableId,
        from: u64,
        max_entries: u32,
    ) -> impl Future<Output = Result<SalvagePage, PersistError>> + Send {
        async move {
            let stored = self.load(table).await?;
            let start = usize::try_from(from).unwrap_or(usize::MAX).min(stored.journal.len());
            let entries = stored
                .journal
                .iter()
                .enumerate()
                .skip(start)
                .take(max_entries.max(1) as usize)
                .map(|(n, e)| (n as u64, e.clone()))
                .collect();
            Ok(SalvagePage { head: StoredTable { journal: Vec::new(), ..stored }, entries })
        }
    }

    /// A table with its access rows and the journal entries from number `from` on (fewer
    /// than `from` entries: none) — what a server holding the table lacks after another
    /// instance wrote to it. [`StoredTable::journal`] then starts at entry `from`.
    fn load_since(
        &self,
        table: TableId,
        from: u64,
    ) -> impl Future<Output = Result<StoredTable, PersistError>> + Send {
        async move {
            let mut stored = self.load(table).await?;
            let from = usize::try_from(from).unwrap_or(usize::MAX).min(stored.journal.len());
            stored.journal.drain(..from);
            Ok(stored)
        }
    }

    /// Whether other writers (other server instances) may share this store, so that a server
    /// must [`listen`](TableStore::listen) for their writes and take [leases](TableStore::lease).
    /// False for a SQLite file (one server per file), true for PostgreSQL.
    fn shared(&self) -> bool {
        false
    }

    /// Starts hearing what every writer of the store commits: each commit is [`Heard`] once
    /// it is durable (a store that is not [`shared`](TableStore::shared) has nothing to tell:
    /// `None`). Whoever calls it first starts the listener; once this returns, nothing
    /// committed afterwards goes unheard — when notices may have been lost (the listener
    /// connected again, a receiver fell behind), [`Heard::Missed`] says so.
    fn listen(
        &self,
    ) -> impl Future<Output = Result<Option<broadcast::Receiver<Heard>>, PersistError>> + Send {
        async { Ok(None) }
    }

    /// Takes, or renews, `holder`'s lease on `table` for `seconds` (by the database's clock):
    /// true when `holder` holds it now, false when another holder's lease has not expired.
    /// The holder of a table's lease is the one server instance that runs its bots and
    /// decision timers. A store that is not [`shared`](TableStore::shared) has one holder,
    /// always granted.
    fn lease(
        &self,
        table: TableId,
        holder: &str,
        seconds: u32,
    ) -> impl Future<Output = Result<bool, PersistError>> + Send {
        let _ = (table, holder, seconds);
        async { Ok(true) }
    }

    /// Gives up `holder`'s lease on `table` (nothing if another holds it): `hand_over` marks
    /// it expired, so that another instance [takes it over](TableStore::orphans) at once (the
    /// table still has bots or timers to run); otherwise the lease is removed.
    fn release(
        &self,
        table: TableId,
        holder: &str,
        hand_over: bool,
    ) -> impl Future<Output = Result<(), PersistError>> + Send {
        let _ = (table, holder, hand_over);
        async { Ok(()) }
    }

    /// Removes `table`'s lease if it expired (its holder died, or handed it over): what an
    /// instance that loads a table with nothing to run does, so that the table is nobody's
    /// orphan any longer, in one statement that writes nothing when there is no such lease.
    fn clear_orphan(&self, table: TableId) -> impl Future<Output = Result<(), PersistError>> + Send {
        let _ = table;
        async { Ok(()) }
    }

    /// Unfinished tables whose lease expired (their holder died, or handed them over), at most
    /// `limit`, oldest first: an instance loads them to take their leases over.
    fn orphans(&self, limit: usize) -> impl Future<Output = Result<Vec<TableId>, PersistError>> + Send {
        let _ = limit;
        async { Ok(Vec::new()) }
    }

    /// As [`listen`](TableStore::listen), and also hears, as [`Heard::Told`], what other
    /// instances [tell](TableStore::tell) the instance named `instance` (at most 48 bytes).
    /// A store that is not [`shared`](TableStore::shared) has nothing to tell: `None`.
    fn listen_as(
        &self,
        instance: &str,
    ) -> impl Future<Output = Result<Option<broadcast::Receiver<Heard>>, PersistError>> + Send {
        let _ = instance;
        self.listen()
    }

    /// Tells each instance named in `told` its message (PostgreSQL: one NOTIFY each on the
    /// instance's [channel](instance_channel), all in one statement; nothing durable — a
    /// message to an instance that is not listening is lost). A store that is not
    /// [`shared`](TableStore::shared) has nobody to tell: nothing is sent.
    fn tell(&self, told: Vec<(String, String)>) -> impl Future<Output = Result<(), PersistError>> + Send {
        let _ = told;
        async { Ok(()) }
    }

    /// Takes or renews `holder`'s lease on each of `tables` for `seconds`, as
    /// [`lease`](TableStore::lease) does for one, all in one statement; returns who holds
    /// each lease afterwards (`holder` where it was granted). A store that is not
    /// [`shared`](TableStore::shared) grants every lease.
    fn leases(
        &self,
        tables: Vec<TableId>,
        holder: &str,
        seconds: u32,
    ) -> impl Future<Output = Result<Vec<(TableId, String)>, PersistError>> + Send {
        let _ = seconds;
        let granted = tables.into_iter().map(|t| (t, holder.to_owned())).collect();
        async { Ok(granted) }
    }
}

/// What a [`TableStore::listen`]er hears.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    /// A writer committed to `table`; its journal now has `len` entries. PostgreSQL's NOTIFY
    /// payload on [`NOTIFY_CHANNEL`]: `table:len`, or `table:len:access`.
    Wrote {
        /// The table.
        table: TableId,
        /// The journal's length after the commit.
        len: u64,
        /// Whether more than journal entries were written: access rows, or the table's end
        /// (payload `table:len:access`).
        access: bool,
    },
    /// A writer committed journal entries to `table`, and the notice carries them (they fit a
    /// NOTIFY's payload): the journal now ends with `entries`, numbers `len - entries.len()`
    /// to `len - 1`. Payload: `table:len:entries:[e, …]` (or `table:len:access:entries:[e, …]`,
    /// `table:len:finished:entries:[e, …]`), the entries' JSON texts byte for byte in one JSON
    /// array.
    Appended {
        /// The table.
        table: TableId,
        /// The journal's length after the commit.
        len: u64,
        /// Whether access rows were written too (to be read from the store).
        access: bool,
        /// Whether the commit marked the table finished (and wrote no access row): a follower
        /// knows all that changed without reading the store.
        finished: bool,
        /// The entries the commit appended, in order: the journal's last ones.
        entries: Vec<String>,
    },
    /// A message to this instance from another on the same store (see
    /// [`TableStore::listen_as`] and [`TableStore::tell`]): the payload, as sent.
    Told(String),
    /// Notices may have been lost: every table held in memory must check the store.
    Missed,
}

/// The PostgreSQL channel writers NOTIFY on after each commit, one notice per table written.
pub const NOTIFY_CHANNEL: &str = "facedown_tables";

/// The most bytes of a NOTIFY payload a writer sends (PostgreSQL refuses 8,000 or more).
pub const MAX_NOTICE_BYTES: usize = 7900;

/// The name to [tell](TableStore::tell) a message to every instance listening on the store
/// (the sender included) rather than to one: no instance is named so (their names are random
/// hex).
pub const EVERY_INSTANCE: &str = "every";

/// The PostgreSQL channel on which the instance named `instance` hears what other instances
/// [tell](TableStore::tell) it (`instance` is at most 48 bytes: a channel's name is 63 at most).
pub fn instance_channel(instance: &str) -> String {
    format!("facedown_i_{instance}")
}

impl Heard {
    /// Reads a notice's payload, `table:len` or `table:len:access`, either followed by
    /// `:entries:` and a JSON array of the entries appended; `table:len:finished` only so.
    pub fn parse(payload: &str) -> Option<Heard> {
        let (head, carried) = match payload.split_once(":entries:") {
            Some((head, carried)) => (head, Some(carried)),
            None => (payload, None),
        };
        let mut parts = head.split(':');
        let table = TableId(parts.next()?.parse().ok()?);
        let len = parts.next()?.parse().ok()?;
        let (access, finished) = match parts.next() {
            None => (false, false),
            Some("access") => (true, false),
            Some("finished") if carried.is_some() => (false, true),
            Some(_) => return None,
        };
        if parts.next().is_some() {
            return None;
        }
        let Some(carried) = carried else { return Some(Heard::Wrote { table, len, access }) };
        let entries: Vec<Box<serde_json::value::RawValue>> = serde_json::from_str(carried).ok()?;
        if entries.is_empty() || entries.len() as u64 > len {
            return None;
        }
        let entries = entries.into_iter().map(|e| e.get().to_owned()).collect();
        Some(Heard::Appended { table, len, access, finished, entries })
    }

    /// The payload of a notice of `len` entries, `access` rows written or not, the table
    /// `finished` or not, carrying `entries` (the last ones) when they fit in
    /// [`MAX_NOTICE_BYTES`]; without them otherwise (and then a finished table is told as
    /// `access`: its end is read from the store with the entries). Each entry must be JSON
    /// text.
    pub fn payload(table: TableId, len: u64, access: bool, finished: bool, entries: &[&str]) -> String {
        let alone = format!("{}:{len}{}", table.0, if access || finished { ":access" } else { "" });
        if entries.is_empty() || entries.len() as u64 > len {
            return alone;
        }
        let mark = match (access, finished) {
            (true, _) => ":access",
            (false, true) => ":finished",
            (false, false) => "",
        };
        let head = format!("{}:{len}{mark}", table.0);
        let size = head.len() + ":entries:[]".len() + entries.iter().map(|e| e.len() + 1).sum::<usize>();
        if size > MAX_NOTICE_BYTES {
            return alone;
        }
        let mut payload = head;
        payload.push_str(":entries:[");
        for (i, entry) in entries.iter().enumerate() {
            if i > 0 {
                payload.push(',');
            }
            payload.push_str(entry);
        }
        payload.push(']');
        payload
    }
}
