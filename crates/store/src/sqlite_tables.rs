//! A server's tables in a SQLite database, written by one group-commit task.
//!
//! Every write — a new table, a [`TableStore::commit`] — goes to one *writer* task that owns one
//! connection. The writer takes everything queued (up to [`MAX_GROUP`] requests), checks each
//! request's journal numbers against the next numbers it keeps per table (loaded from the
//! database on a table's first use, never counted per entry), answers the refused ones at once,
//! and writes all the others in one `BEGIN IMMEDIATE` … `COMMIT` transaction: one WAL sync for
//! the whole group. The writer's connection is SQLite's own, called synchronously on the
//! writer's thread (rusqlite), not sqlx's, which would hand every statement to a thread of its
//! own and back. Each request is answered only after `COMMIT` returned, so everything
//! acknowledged is durable.
//!
//! Should a statement of the group fail all the same (the database changed behind the writer's
//! back, a constraint), the transaction is rolled back and the group is written again one
//! request at a time, each under its own `SAVEPOINT` and checked against the database itself:
//! the failing request is rolled back alone and answered with its own error; the others commit.
//!
//! Reads ([`TableStore::load`], [`TableStore::open_tables`]) use a small pool of connections:
//! in WAL mode they read a consistent snapshot beside the writer. One `SqliteTables` writes a
//! database at a time (the writer trusts its cached next numbers; another writer's duplicates
//! would still be refused by the primary keys).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use sqlx::Connection;
use sqlx::sqlite::{SqliteConnection, SqlitePool, SqlitePoolOptions};

use crate::PersistError;
use crate::tables::{
    Access, NewTable, SalvagePage, StoredTable, TableId, TableStore, TableSummary, Write, check_moved_table,
    check_new_table, check_number, check_writes, limits,
};
use crate::writer::{self, GroupWriter, Handle, Kept, Reply, Request, Stats};

/// The most requests the writer takes into one group (one transaction, one sync).
pub const MAX_GROUP: usize = 4096;
/// Requests queued for the writer before [`TableStore::commit`] waits for room.
const QUEUE: usize = 2 * MAX_GROUP;
/// Rows of the largest multi-row statement. Groups are written in chunks of powers of two up
/// to it, so that the connection's statement cache holds a few statements, all reused.
const CHUNK: usize = 256;
/// Journal entries read per statement by [`TableStore::load`].
const PAGE: i64 = 4096;
/// Pages (4 KiB by default) the write-ahead log may grow to before the writer folds it back into
/// the database file: 32 MiB.
const WAL_CHECKPOINT_PAGES: u32 = 8192;
/// Tables whose next journal number the writer keeps; past it the cache starts again.
const MAX_CACHED_TABLES: usize = 1 << 20;

/// The embedded, versioned schema migrations (`migrations/*.sql`), shared with
/// [`crate::SqliteGames`].
fn migrator() -> sqlx::migrate::Migrator {
    let mut m = sqlx::migrate!("./migrations");
    // The database may also hold a campaign's migrations, which this build does not list.
    m.set_ignore_missing(true);
    m
}

fn to_i64(n: u64, what: &str) -> Result<i64, PersistError> {
    i64::try_from(n).map_err(|_| PersistError::Corrupt(format!("{what} {n} is too large to store")))
}

fn to_u64(n: i64, what: &str) -> Result<u64, PersistError> {
    u64::try_from(n).map_err(|_| PersistError::Corrupt(format!("{what} {n} is negative")))
}

/// A server's tables kept in a SQLite database (see the module's documentation). Cheap to
/// clone: clones share the writer and the pool.
#[derive(Clone)]
pub struct SqliteTables {
    inner: Arc<Inner>,
}

struct Inner {
    /// Readers.
    pool: SqlitePool,
    /// The writer.
    writer: Handle,
    /// The database file, with a shared lock (`flock`, apart from SQLite's own locks) held while
    /// the store is open, so that [`SqliteTables::alone`] can tell whether another process has
    /// it open; `None` when the file cannot be locked (then nothing is known of others).
    lock: Option<std::fs::File>,
    /// The file's path, for messages.
    path: PathBuf,
}

/// The database file at `path`, with a shared lock: taken at once, or after whatever holds it
/// alone ([`SqliteTables::alone`], a short change of links) lets it go, waiting at most 10
/// seconds; `None` when it cannot be taken.
async fn shared_lock(path: &Path) -> Option<std::fs::File> {
    let file = std::fs::File::open(path).ok()?;
    for _ in 0..200 {
        match file.try_lock_shared() {
            Ok(()) => return Some(file),
            Err(std::fs::TryLockError::WouldBlock) => tokio::time::sleep(Duration::from_millis(50)).await,
            Err(std::fs::TryLockError::Error(_)) => return None,
        }
    }
    None
}

/// A request of the group being written; a commit's plan is each table's next journal number
/// after it.
type Work = writer::Work<Vec<(TableId, u64)>>;

impl SqliteTables {
    /// Opens (creating if missing) the database at `path` — it may also hold
    /// [`crate::SqliteGames`]' games — applies any migration it lacks and starts the writer
    /// on a thread of its own.
    pub async fn open(path: &Path) -> Result<SqliteTables, PersistError> {
        let options = crate::sqlite::durable_options(path)?;
        let pool = SqlitePoolOptions::new().max_connections(4).connect_with(options.clone()).await?;
        migrator().run(&pool).await?;
        let conn = open_writer(path)?;
        // On a thread of its own, beside a server's shared runtime (see `spawn_on_own_thread`).
        // Synchronous: an abort is the writer's own (`GroupWriter::aborted`), not a task's.
        let writer = Handle::start("table-writer", QUEUE, false, |requests, stats| {
            writer::run(Writer { conn, next: HashMap::new(), stats }, requests, MAX_GROUP)
        })?;
        let lock = shared_lock(path).await;
        Ok(SqliteTables { inner: Arc::new(Inner { pool, writer, lock, path: path.to_path_buf() }) })
    }

    /// Whether this store is the only one open on its file among every process of the machine
    /// (issue 34: `facedown tables links` changes the links of a table, which a server serving
    /// the file holds in memory and would not see). On `Ok` the file stays this store's alone
    /// until it is closed: a server starting meanwhile waits for it. [`PersistError::InUse`]
    /// when another store has it open (a `facedown serve`, a `facedown tables` command).
    pub fn alone(&self) -> Result<(), PersistError> {
        let shown = self.inner.path.display().to_string();
        let Some(file) = &self.inner.lock else {
            return Err(PersistError::Io(format!(
                "{shown}: the file cannot be locked, so whether a server uses it is unknown"
            )));
        };
        match file.try_lock() {
            Ok(()) => Ok(()),
            Err(std::fs::TryLockError::WouldBlock) => Err(PersistError::InUse(shown)),
            Err(std::fs::TryLockError::Error(e)) => Err(PersistError::Io(format!("{shown}: {e}"))),
        }
    }

    /// Stops the writer once the requests already queued are written (later ones fail with
    /// [`PersistError::Closed`]), folds the write-ahead log into the database file
    /// ([`SqliteTables::checkpoint`]) and closes the database. [`TableStore::shut_down`] says
    /// whether the checkpoint succeeded.
    pub async fn close(&self) {
        let _ = TableStore::shut_down(self).await;
    }

    /// Folds the write-ahead log (`FILE-wal`) back into the database file and empties it
    /// (`PRAGMA wal_checkpoint(TRUNCATE)`): afterwards the file alone holds every table, for a
    /// copy or a backup by file (issue 33: after a SIGTERM everything used to stay in the log).
    /// Refused while another connection reads or writes ([`PersistError::Io`]).
    pub async fn checkpoint(&self) -> Result<(), PersistError> {
        let (busy, _, _): (i64, i64, i64) =
            sqlx::query_as("PRAGMA wal_checkpoint(TRUNCATE)").fetch_one(&self.inner.pool).await?;
        if busy != 0 {
            return Err(PersistError::Io(
                "the write-ahead log could not be folded into the database: another connection is using it"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Writes a consistent copy of the whole database, as of one moment, to the new file `to`
    /// (`VACUUM INTO`), while the server goes on serving: a backup that opens as a database of
    /// its own, with mode 0600 (it holds the links' token hashes). Refused when `to` exists.
    pub async fn backup(&self, to: &Path) -> Result<(), PersistError> {
        let shown = to.display();
        if to.exists() {
            return Err(PersistError::Io(format!(
                "{shown} exists already: a backup is written to a new file"
            )));
        }
        let path = to.to_str().ok_or_else(|| PersistError::Io(format!("{shown}: the path is not UTF-8")))?;
        sqlx::query("VACUUM INTO ?").bind(path).execute(&self.inner.pool).await?;
        // It holds the links' token hashes: as private as the database.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o600))
                .map_err(|e| PersistError::Io(format!("{shown}: {e}")))?;
        }
        Ok(())
    }

    /// Its writer's handle: the counters of what it committed, and `abort` for tests of a
    /// caller's recovery.
    pub fn writer(&self) -> &Handle {
        &self.inner.writer
    }

    async fn send<T>(&self, make: impl FnOnce(Reply<T>) -> Request) -> Result<T, PersistError> {
        self.inner.writer.send(make).await
    }
}

impl TableStore for SqliteTables {
    async fn create_table(&self, table: &NewTable) -> Result<TableId, PersistError> {
        check_new_table(table)?;
        let table = table.clone();
        self.send(|reply| Request::Create { table, reply }).await
    }

    async fn commit(&self, writes: Vec<Write>) -> Result<(), PersistError> {
        if writes.is_empty() {
            return Ok(());
        }
        check_writes(&writes)?;
        self.send(|reply| Request::Commit { writes, reply }).await
    }

    async fn load(&self, table: TableId) -> Result<StoredTable, PersistError> {
        let id = i64::try_from(table.0).map_err(|_| PersistError::NoTable(table))?;
        // One read transaction: the table, its access rows and its journal as of one moment.
        let mut tx = self.inner.pool.begin().await?;
        let (head, finished) = read_head(&mut tx, id, table).await?;
        let mut journal: Vec<String> = Vec::new();
        let mut bytes = 0u64;
        // Bounded: each page is full or the last, and numbers are below MAX_JOURNAL_ENTRIES.
        for _ in 0..=(limits::MAX_JOURNAL_ENTRIES / PAGE as u64) {
            let page: Vec<(i64, String)> = sqlx::query_as(
                "SELECT n, entry FROM server_journal WHERE table_id = ? AND n >= ? ORDER BY n LIMIT ?",
            )
            .bind(id)
            .bind(to_i64(journal.len() as u64, "journal length")?)
            .bind(PAGE)
            .fetch_all(&mut *tx)
            .await?;
            let last = page.len() < PAGE as usize;
            for (n, entry) in page {
                if to_u64(n, "journal entry number")? != journal.len() as u64 {
                    return Err(PersistError::Corrupt(format!(
                        "{table}: journal entry {} is missing (the next stored is {n})",
                        journal.len()
                    )));
                }
                bytes += entry.len() as u64;
                if bytes > limits::MAX_JOURNAL_BYTES {
                    return Err(PersistError::Limit {
                        what: "journal (bytes)",
                        size: bytes,
                        limit: limits::MAX_JOURNAL_BYTES,
                    });
                }
                journal.push(entry);
            }
            if last {
                break;
            }
        }
        tx.rollback().await?;
        Ok(StoredTable { id: table, table: head, journal, finished })
    }

    async fn salvage_page(
        &self,
        table: TableId,
        from: u64,
        max_entries: u32,
    ) -> Result<SalvagePage, PersistError> {
        let id = i64::try_from(table.0).map_err(|_| PersistError::NoTable(table))?;
        let mut tx = self.inner.pool.begin().await?;
        let (head, finished) = read_head(&mut tx, id, table).await?;
        let page: Vec<(i64, String)> = sqlx::query_as(
            "SELECT n, entry FROM server_journal WHERE table_id = ? AND n >= ? ORDER BY n LIMIT ?",
        )
        .bind(id)
        .bind(to_i64(from, "journal entry number")?)
        .bind(i64::from(max_entries.max(1)))
        .fetch_all(&mut *tx)
        .await?;
        tx.rollback().await?;
        let entries = page
            .into_iter()
            .map(|(n, e)| Ok((to_u64(n, "journal entry number")?, e)))
            .collect::<Result<_, PersistError>>()?;
        Ok(SalvagePage {
            head: StoredTable { id: table, table: head, journal: Vec::new(), finished },
            entries,
        })
    }

    async fn shut_down(&self) -> Result<(), PersistError> {
        self.inner.writer.stop().await;
        let checkpointed = self.checkpoint().await;
        self.inner.pool.close().await;
        checkpointed
    }

    async fn opens(&self, table: TableId, token_hash: &str) -> Result<bool, PersistError> {
        let Ok(id) = i64::try_from(table.0) else { return Ok(false) };
        let row: Option<(i64,)> =
            sqlx::query_as("SELECT 1 FROM server_access WHERE table_id = ? AND token_hash = ? LIMIT 1")
                .bind(id)
                .bind(token_hash)
                .fetch_optional(&self.inner.pool)
                .await?;
        Ok(row.is_some())
    }

    /// Written beside the writer, on a connection of the pool, in one `BEGIN IMMEDIATE`
    /// transaction, as an import. A number deleted is kept in `server_numbers`, so that no later
    /// table takes it.
    async fn expire_finished(&self, seconds: u64, limit: usize) -> Result<Vec<TableId>, PersistError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let age = format!("-{} seconds", seconds.min(i64::MAX as u64));
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        const DUE: &str = "SELECT id FROM server_tables WHERE finished AND campaign IS NULL \
             AND finished_at IS NOT NULL AND finished_at <= datetime('now', ?) ORDER BY finished_at, id LIMIT ?";
        // Read first (the index alone): the write lock is taken only when a table is due.
        let due: Option<(i64,)> =
            sqlx::query_as(DUE).bind(&age).bind(1i64).fetch_optional(&self.inner.pool).await?;
        if due.is_none() {
            return Ok(Vec::new());
        }
        let mut conn = self.inner.pool.acquire().await?;
        let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
        let rows: Vec<(i64,)> = sqlx::query_as(DUE).bind(&age).bind(limit).fetch_all(&mut *tx).await?;
        let ids: Vec<i64> = rows.into_iter().map(|(id,)| id).collect();
        let Some(&highest) = ids.iter().max() else {
            tx.rollback().await?;
            return Ok(Vec::new());
        };
        let list = vec!["?"; ids.len()].join(", ");
        for sql in [
            format!("DELETE FROM server_journal WHERE table_id IN ({list})"),
            format!("DELETE FROM server_access WHERE table_id IN ({list})"),
            format!("DELETE FROM server_tables WHERE id IN ({list})"),
        ] {
            let mut query = sqlx::query(&sql);
            for id in &ids {
                query = query.bind(id);
            }
            query.execute(&mut *tx).await?;
        }
        sqlx::query("UPDATE server_numbers SET deleted_up_to = MAX(deleted_up_to, ?)")
            .bind(highest)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        ids.into_iter().map(|id| Ok(TableId(to_u64(id, "table number")?))).collect()
    }

    async fn open_tables(&self) -> Result<Vec<TableId>, PersistError> {
        let rows: Vec<(i64,)> =
            sqlx::query_as("SELECT id FROM server_tables WHERE finished = FALSE ORDER BY id LIMIT ?")
                .bind(limits::MAX_OPEN_TABLES as i64 + 1)
                .fetch_all(&self.inner.pool)
                .await?;
        if rows.len() > limits::MAX_OPEN_TABLES {
            return Err(PersistError::Limit {
                what: "open tables",
                size: rows.len() as u64,
                limit: limits::MAX_OPEN_TABLES as u64,
            });
        }
        rows.into_iter().map(|(id,)| Ok(TableId(to_u64(id, "table number")?))).collect()
    }

    async fn list_tables(&self) -> Result<Vec<TableSummary>, PersistError> {
        let rows: Vec<(i64, String, String, i64, bool)> = sqlx::query_as(
            "SELECT t.id, t.ruleset, t.ruleset_version, \
             (SELECT COALESCE(MAX(j.n) + 1, 0) FROM server_journal j WHERE j.table_id = t.id), t.finished \
             FROM server_tables t ORDER BY t.id LIMIT ?",
        )
        .bind(limits::MAX_OPEN_TABLES as i64 + 1)
        .fetch_all(&self.inner.pool)
        .await?;
        summaries(rows)
    }

    /// Written beside the writer, on a connection of the pool, in one `BEGIN IMMEDIATE`
    /// transaction (SQLite lets one transaction write at a time; the other waits its busy
    /// timeout). The writer learns the new table's numbers from the database on first use.
    async fn import_table(&self, moved: &crate::MovedTable) -> Result<TableId, PersistError> {
        check_moved_table(moved)?;
        let mut conn = self.inner.pool.acquire().await?;
        let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
        let id = insert_table(&mut tx, &moved.table).await?;
        let mut rows: HashMap<&str, &Access> = HashMap::new();
        for row in &moved.table.access {
            rows.insert(&row.who, row);
        }
        let rows: Vec<(i64, &Access)> = rows.into_values().map(|row| (id, row)).collect();
        upsert_access(&mut tx, &rows).await?;
        // Checked: at most MAX_JOURNAL_ENTRIES entries, so every number fits an i64.
        let journal: Vec<(i64, i64, &str)> =
            moved.journal.iter().enumerate().map(|(n, e)| (id, n as i64, e.as_str())).collect();
        insert_journal(&mut tx, &journal).await?;
        if moved.finished {
            mark_finished(&mut tx, &[id]).await?;
        }
        tx.commit().await?;
        Ok(TableId(to_u64(id, "table number")?))
    }
}

/// The lines of [`TableStore::list_tables`], bounded.
pub(crate) fn summaries(
    rows: Vec<(i64, String, String, i64, bool)>,
) -> Result<Vec<TableSummary>, PersistError> {
    if rows.len() > limits::MAX_OPEN_TABLES {
        return Err(PersistError::Limit {
            what: "tables listed",
            size: rows.len() as u64,
            limit: limits::MAX_OPEN_TABLES as u64,
        });
    }
    rows.into_iter()
        .map(|(id, ruleset, ruleset_version, entries, finished)| {
            Ok(TableSummary {
                id: TableId(to_u64(id, "table number")?),
                ruleset,
                ruleset_version,
                entries: to_u64(entries, "journal length")?,
                finished,
            })
        })
        .collect()
}

/// Splits `n` rows into chunks: as many [`CHUNK`]s as fit, then the powers of two of the rest.
fn chunks(mut n: usize) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if n == 0 {
            return None;
        }
        let size = if n >= CHUNK { CHUNK } else { 1 << n.ilog2() };
        n -= size;
        Some(size)
    })
}

/// `(?, ?, ?), (?, ?, ?)…`: `rows` groups of `columns` placeholders.
fn placeholders(rows: usize, columns: usize) -> String {
    let one = format!("({})", vec!["?"; columns].join(", "));
    vec![one; rows].join(", ")
}

/// How a group's fast path failed.
enum Failed {
    /// Starting or committing the transaction: the group fails as a whole.
    Group(rusqlite::Error),
    /// A statement: some request may be at fault; the group is written again one by one.
    Statement,
}

/// Opens the writer's own connection to the database at `path` (created and brought up to date
/// by the pool already), with the pool's durability: WAL, `synchronous = FULL` (`COMMIT` returns
/// once the group is on disk), foreign keys, the same busy timeout; and its own checkpoint
/// interval ([`WAL_CHECKPOINT_PAGES`]).
///
/// The writer runs SQLite synchronously on its own thread (rusqlite) rather than through
/// sqlx, whose connection runs every statement on a worker thread of its own: each of a group's
/// round trips to that thread (`BEGIN`, each new table, the rows, `COMMIT`) woke both threads,
/// and those wake-ups were a third of a reveal's CPU (docs/performance.md, "The cost of a
/// reveal").
fn open_writer(path: &Path) -> Result<rusqlite::Connection, PersistError> {
    use rusqlite::OpenFlags;
    let conn = rusqlite::Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI,
    )?;
    conn.busy_timeout(Duration::from_secs(10))?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(PersistError::Io(format!(
            "{}: the database cannot be put in WAL mode (it is in {mode} mode)",
            path.display()
        )));
    }
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // Every group rewrites the index pages of every table it touches; checkpointing (copying
    // the WAL's pages into the file, and a sync) after every 1000 pages as by default would
    // write them all again for nearly every group. Every WAL_CHECKPOINT_PAGES instead, a page
    // written by many groups is copied once (measured: 13,000 → 20,000+ commits/s with 1024
    // committers on this machine).
    conn.pragma_update(None, "wal_autocheckpoint", WAL_CHECKPOINT_PAGES)?;
    Ok(conn)
}

/// The task that owns the writing connection.
struct Writer {
    conn: rusqlite::Connection,
    /// Each known table's next journal number, as committed.
    next: HashMap<TableId, u64>,
    stats: Arc<Stats>,
}

impl GroupWriter for Writer {
    type Plan = Vec<(TableId, u64)>;

    /// Writes one group: checks, then one transaction, then the answers. Synchronous: the
    /// writer's thread runs nothing else.
    async fn group(&mut self, group: Vec<Work>) {
        if group.is_empty() {
            return;
        }
        if self.next.len() > MAX_CACHED_TABLES {
            self.next.clear();
        }
        let unknown: HashSet<TableId> = group
            .iter()
            .filter_map(|w| match w {
                Work::Commit { writes, .. } => Some(writes),
                Work::Create { .. } => None,
            })
            .flatten()
            .map(Write::table)
            .filter(|t| !self.next.contains_key(t))
            .collect();
        if let Err(e) = self.learn(unknown) {
            let e = e.to_string();
            group.into_iter().for_each(|w| w.fail(PersistError::GroupFailed(e.clone())));
            return;
        }

        // Each request's journal numbers, against the ones accepted before it in this group.
        let mut pending: HashMap<TableId, u64> = HashMap::new();
        let mut accepted = Vec::with_capacity(group.len());
        for work in group {
            match work {
                Work::Commit { writes, reply, .. } => match self.plan(&writes, &pending) {
                    Ok(next) => {
                        pending.extend(next.iter().copied());
                        accepted.push(Work::Commit { writes, reply, plan: next });
                    }
                    Err(e) => drop(reply.send(Err(e))),
                },
                create => accepted.push(create),
            }
        }
        if accepted.is_empty() {
            return;
        }

        match self.write_group(&accepted) {
            Ok(created) => self.answer(accepted.into_iter().map(|w| (w, Ok(()))), created),
            Err(Failed::Group(e)) => {
                let e = e.to_string();
                accepted.into_iter().for_each(|w| w.fail(PersistError::GroupFailed(e.clone())));
            }
            Err(Failed::Statement) => self.one_by_one(accepted),
        }
    }

    async fn close(self) {
        let _ = self.conn.close();
    }

    fn aborted(&self) -> bool {
        self.stats.aborted.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl Writer {
    /// Loads the next journal number of each of `tables` the database has.
    fn learn(&mut self, tables: HashSet<TableId>) -> Result<(), rusqlite::Error> {
        use rusqlite::OptionalExtension;
        let mut next = self.conn.prepare_cached(NEXT_NUMBER)?;
        for table in tables {
            let Ok(id) = i64::try_from(table.0) else { continue };
            let found: Option<i64> = next.query_row([id], |row| row.get(0)).optional()?;
            if let Some(Ok(n)) = found.map(u64::try_from) {
                self.next.insert(table, n);
            }
        }
        Ok(())
    }

    /// Checks a commit against the known tables and their next numbers (after the requests
    /// already accepted in this group, `pending`); returns the next numbers after it.
    fn plan(
        &self,
        writes: &[Write],
        pending: &HashMap<TableId, u64>,
    ) -> Result<Vec<(TableId, u64)>, PersistError> {
        let mut next: Vec<(TableId, u64)> = Vec::new();
        for write in writes {
            let table = write.table();
            let Some(&stored) = self.next.get(&table) else {
                return Err(PersistError::NoTable(table));
            };
            if let Write::Journal { n, .. } = write {
                let before = pending.get(&table).copied().unwrap_or(stored);
                let at = match next.iter().position(|(t, _)| *t == table) {
                    Some(at) => at,
                    None => {
                        next.push((table, before));
                        next.len() - 1
                    }
                };
                check_number(table, *n, before, next[at].1)?;
                next[at].1 += 1;
            }
        }
        Ok(next)
    }

    /// The fast path: the whole group in one transaction, its rows in order through the
    /// connection's cached statements. Returns the numbers of the tables created, in order.
    fn write_group(&mut self, group: &[Work]) -> Result<Vec<i64>, Failed> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(Failed::Group)?;
        let mut created = Vec::new();
        for work in group {
            match work {
                Work::Create { table, .. } => {
                    created.push(create_row(&tx, table).map_err(|_| Failed::Statement)?);
                }
                Work::Commit { writes, .. } => {
                    for write in writes {
                        write_row(&tx, write).map_err(|_| Failed::Statement)?;
                    }
                }
            }
        }
        // Dropped on a failed statement above: rolled back.
        tx.commit().map_err(Failed::Group)?;
        Ok(created)
    }

    /// The slow path, after a statement of the fast path failed: the group again, one request
    /// at a time under its own savepoint, each checked against the database itself.
    fn one_by_one(&mut self, group: Vec<Work>) {
        // The cached numbers may be what was wrong: they are loaded again on next use.
        self.next.clear();
        let mut tx = match self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate) {
            Ok(tx) => tx,
            Err(e) => {
                let e = e.to_string();
                group.into_iter().for_each(|w| w.fail(PersistError::GroupFailed(e.clone())));
                return;
            }
        };
        let mut results = Vec::with_capacity(group.len());
        let mut created = Vec::new();
        for work in group {
            let result = match savepoint(&mut tx, &work) {
                Ok(result) => result,
                Err(e) => {
                    // The savepoint itself failed: the transaction is lost (rolled back as
                    // it is dropped).
                    drop(tx);
                    let e = e.to_string();
                    results.into_iter().map(|(w, _)| w).chain([work]).for_each(|w: Work| {
                        w.fail(PersistError::GroupFailed(e.clone()));
                    });
                    return;
                }
            };
            if let Ok(Some(id)) = result {
                created.push(id);
            }
            results.push((work, result.map(drop)));
        }
        if let Err(e) = tx.commit() {
            let e = e.to_string();
            results.into_iter().for_each(|(w, _)| w.fail(PersistError::GroupFailed(e.clone())));
            return;
        }
        self.next.clear();
        self.answer(results.into_iter(), created);
    }

    /// Answers a committed group: `Ok` to the requests kept, their own error to the others;
    /// the kept ones' next numbers are known from now on.
    fn answer(&mut self, group: impl Iterator<Item = (Work, Result<(), PersistError>)>, created: Vec<i64>) {
        let next = &mut self.next;
        writer::answer(&self.stats, group.collect(), created, |kept| match kept {
            Kept::Created(id) => drop(next.insert(id, 0)),
            Kept::Committed(plan) => next.extend(plan),
        });
    }
}

/// One request of the slow path under its own savepoint. `Err`: the transaction failed;
/// `Ok(Err)`: this request was refused and rolled back alone; `Ok(Ok(id))`: kept (with the
/// new table's number for a creation).
fn savepoint(
    tx: &mut rusqlite::Transaction<'_>,
    work: &Work,
) -> Result<Result<Option<i64>, PersistError>, rusqlite::Error> {
    let sp = tx.savepoint()?;
    let result = match work {
        Work::Create { table, .. } => create_row(&sp, table).map(Some).map_err(PersistError::from),
        Work::Commit { writes, .. } => commit_checked(&sp, writes).map(|()| None),
    };
    match result {
        Ok(id) => sp.commit().map(|()| Ok(id)),
        // A savepoint rolls back (and is released) as it finishes uncommitted.
        Err(e) => sp.finish().map(|()| Err(e)),
    }
}

/// Each table's next journal number, if the table exists.
const NEXT_NUMBER: &str = "SELECT (SELECT COALESCE(MAX(n) + 1, 0) FROM server_journal WHERE table_id = ?1) \
     FROM server_tables WHERE id = ?1";

/// A new table's row, numbered after every table there is and every table deleted
/// (`server_numbers`): a number is never given twice.
const INSERT_TABLE: &str = "INSERT INTO server_tables (id, ruleset, ruleset_version, setup, options) VALUES (\
     MAX((SELECT COALESCE(MAX(id), 0) FROM server_tables), \
     (SELECT COALESCE(MAX(deleted_up_to), 0) FROM server_numbers)) + 1, ?, ?, ?, ?) RETURNING id";

/// [`journal_sql`] of one row, for the writer's cached statement.
const JOURNAL_ROW: &str = "INSERT INTO server_journal (table_id, n, entry) VALUES (?, ?, ?)";
/// [`access_sql`] of one row.
const ACCESS_ROW: &str = "INSERT INTO server_access (table_id, who, token_hash, controller) VALUES (?, ?, ?, ?) \
     ON CONFLICT (table_id, who) DO UPDATE SET token_hash = excluded.token_hash, \
     controller = excluded.controller";
/// [`finished_sql`] of one table.
const FINISHED_ROW: &str =
    "UPDATE server_tables SET finished = TRUE, finished_at = CURRENT_TIMESTAMP WHERE id IN (?)";

/// A new table's row and its access rows (the last row of each `who` kept), on the writer's
/// connection; returns its number.
fn create_row(conn: &rusqlite::Connection, table: &NewTable) -> Result<i64, rusqlite::Error> {
    let id: i64 = conn
        .prepare_cached(INSERT_TABLE)?
        .query_row((&table.ruleset, &table.ruleset_version, &table.setup, &table.options), |row| {
            row.get(0)
        })?;
    // An upsert per row: a later row of the same `who` replaces an earlier one.
    let mut access = conn.prepare_cached(ACCESS_ROW)?;
    for row in &table.access {
        access.execute((id, &row.who, row.token_hash.as_deref(), &row.controller))?;
    }
    Ok(id)
}

/// One write of a commit, checked already, on the writer's connection.
fn write_row(conn: &rusqlite::Connection, write: &Write) -> Result<(), rusqlite::Error> {
    // Checked by `plan` (known tables come from the database) and by `check_writes` (numbers
    // below MAX_JOURNAL_ENTRIES): both fit an i64.
    let table = write.table().0 as i64;
    match write {
        Write::Journal { n, entry, .. } => {
            conn.prepare_cached(JOURNAL_ROW)?.execute((table, *n as i64, entry))?;
        }
        Write::Access { access: row, .. } => {
            conn.prepare_cached(ACCESS_ROW)?.execute((
                table,
                &row.who,
                row.token_hash.as_deref(),
                &row.controller,
            ))?;
        }
        Write::Finished { .. } => {
            conn.prepare_cached(FINISHED_ROW)?.execute([table])?;
        }
    }
    Ok(())
}

/// A commit's writes one by one, each checked against the database.
fn commit_checked(conn: &rusqlite::Connection, writes: &[Write]) -> Result<(), PersistError> {
    use rusqlite::OptionalExtension;
    // Entries this request kept so far, per table.
    let mut mine: HashMap<TableId, u64> = HashMap::new();
    for write in writes {
        let table = write.table();
        let id = i64::try_from(table.0).map_err(|_| PersistError::NoTable(table))?;
        let next: Option<i64> =
            conn.prepare_cached(NEXT_NUMBER)?.query_row([id], |row| row.get(0)).optional()?;
        let next = next.ok_or(PersistError::NoTable(table))?;
        if let Write::Journal { n, .. } = write {
            let expected = to_u64(next, "journal length")?;
            // Checked against the database before each entry: a number below it is kept
            // already, by this request's earlier entries only if it is in the request.
            let before = expected.saturating_sub(mine.get(&table).copied().unwrap_or(0));
            check_number(table, *n, before, expected)?;
            *mine.entry(table).or_default() += 1;
            to_i64(*n, "journal entry number")?;
        }
        write_row(conn, write)?;
    }
    Ok(())
}

/// A new table's row ([`INSERT_TABLE`]) on a connection of the pool (an import).
async fn insert_table(tx: &mut SqliteConnection, table: &NewTable) -> Result<i64, sqlx::Error> {
    let (id,): (i64,) = sqlx::query_as(INSERT_TABLE)
        .bind(&table.ruleset)
        .bind(&table.ruleset_version)
        .bind(&table.setup)
        .bind(&table.options)
        .fetch_one(&mut *tx)
        .await?;
    Ok(id)
}

/// The SQL of [`insert_journal`] for `rows` rows.
fn journal_sql(rows: usize) -> String {
    format!("INSERT INTO server_journal (table_id, n, entry) VALUES {}", placeholders(rows, 3))
}

/// The SQL of [`upsert_access`] for `rows` rows.
fn access_sql(rows: usize) -> String {
    format!(
        "INSERT INTO server_access (table_id, who, token_hash, controller) VALUES {} \
         ON CONFLICT (table_id, who) DO UPDATE SET token_hash = excluded.token_hash, \
         controller = excluded.controller",
        placeholders(rows, 4)
    )
}

/// The SQL of [`mark_finished`] for `rows` tables.
fn finished_sql(rows: usize) -> String {
    format!(
        "UPDATE server_tables SET finished = TRUE, finished_at = CURRENT_TIMESTAMP WHERE id IN ({})",
        vec!["?"; rows].join(", ")
    )
}

async fn insert_journal(tx: &mut SqliteConnection, rows: &[(i64, i64, &str)]) -> Result<(), sqlx::Error> {
    let mut rest = rows;
    for size in chunks(rows.len()) {
        let (these, after) = rest.split_at(size);
        rest = after;
        let sql = journal_sql(size);
        let mut query = sqlx::query(&sql);
        for &(table, n, entry) in these {
            query = query.bind(table).bind(n).bind(entry);
        }
        query.execute(&mut *tx).await?;
    }
    Ok(())
}

async fn upsert_access(tx: &mut SqliteConnection, rows: &[(i64, &Access)]) -> Result<(), sqlx::Error> {
    let mut rest = rows;
    for size in chunks(rows.len()) {
        let (these, after) = rest.split_at(size);
        rest = after;
        let sql = access_sql(size);
        let mut query = sqlx::query(&sql);
        for &(table, row) in these {
            query = query.bind(table).bind(&row.who).bind(row.token_hash.as_deref()).bind(&row.controller);
        }
        query.execute(&mut *tx).await?;
    }
    Ok(())
}

async fn mark_finished(tx: &mut SqliteConnection, tables: &[i64]) -> Result<(), sqlx::Error> {
    let mut rest = tables;
    for size in chunks(tables.len()) {
        let (these, after) = rest.split_at(size);
        rest = after;
        let sql = finished_sql(size);
        let mut query = sqlx::query(&sql);
        for &table in these {
            query = query.bind(table);
        }
        query.execute(&mut *tx).await?;
    }
    Ok(())
}

/// A table's row and access rows (bounded by [`limits::MAX_ACCESS_ROWS`]), read in `tx`.
async fn read_head(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    id: i64,
    table: TableId,
) -> Result<(NewTable, bool), PersistError> {
    let row: Option<(String, String, String, String, bool)> = sqlx::query_as(
        "SELECT ruleset, ruleset_version, setup, options, finished FROM server_tables WHERE id = ?",
    )
    .bind(id)
    .fetch_optional(&mut **tx)
    .await?;
    let (ruleset, ruleset_version, setup, options, finished) = row.ok_or(PersistError::NoTable(table))?;
    let access: Vec<(String, Option<String>, String)> = sqlx::query_as(
        "SELECT who, token_hash, controller FROM server_access WHERE table_id = ? ORDER BY who LIMIT ?",
    )
    .bind(id)
    .bind(limits::MAX_ACCESS_ROWS as i64 + 1)
    .fetch_all(&mut **tx)
    .await?;
    if access.len() > limits::MAX_ACCESS_ROWS {
        return Err(PersistError::Limit {
            what: "access rows",
            size: access.len() as u64,
            limit: limits::MAX_ACCESS_ROWS as u64,
        });
    }
    let access = access
        .into_iter()
        .map(|(who, token_hash, controller)| Access { who, token_hash, controller })
        .collect();
    Ok((NewTable { ruleset, ruleset_version, setup, options, access }, finished))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_every_row_with_few_sizes() {
        for n in [0, 1, 2, 3, 255, 256, 257, 1000, 4096, 4097] {
            let sizes: Vec<usize> = chunks(n).collect();
            assert_eq!(sizes.iter().sum::<usize>(), n, "{n}");
            assert!(sizes.iter().all(|s| s.is_power_of_two() && *s <= CHUNK), "{n}: {sizes:?}");
        }
        assert_eq!(placeholders(2, 3), "(?, ?, ?), (?, ?, ?)");
    }

    /// Everything acknowledged is durable: the writer's own connection commits with a sync
    /// (`synchronous = FULL` in WAL mode), checks foreign keys and waits for a reader's lock
    /// as the pool's connections do.
    #[test]
    fn the_writers_connection_syncs_every_commit_as_the_pools_do() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tables.db");
        drop(rusqlite::Connection::open(&path).unwrap());
        let conn = open_writer(&path).unwrap();
        let pragma = |name: &str| -> rusqlite::types::Value {
            conn.query_row(&format!("PRAGMA {name}"), [], |row| row.get(0)).unwrap()
        };
        use rusqlite::types::Value::{Integer, Text};
        assert_eq!(pragma("journal_mode"), Text("wal".into()));
        assert_eq!(pragma("synchronous"), Integer(2), "FULL");
        assert_eq!(pragma("foreign_keys"), Integer(1));
        assert_eq!(pragma("busy_timeout"), Integer(10_000));
        assert_eq!(pragma("wal_autocheckpoint"), Integer(i64::from(WAL_CHECKPOINT_PAGES)));
    }

    #[test]
    fn the_writers_one_row_statements_are_the_imports_of_one_row() {
        assert_eq!(JOURNAL_ROW, journal_sql(1));
        assert_eq!(ACCESS_ROW, access_sql(1));
        assert_eq!(FINISHED_ROW, finished_sql(1));
    }
}
