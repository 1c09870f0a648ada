//! A server's tables in PostgreSQL (issue 16), written by one group-commit task per store.
//!
//! The schema (`migrations_pg/`) has the same tables, columns and meaning as SQLite's. Unlike a
//! SQLite file, one PostgreSQL database may be written by several stores at once (one per server
//! instance), so nothing is cached between groups: every number is checked against the
//! database, and the primary key `(table_id, n)` of the journal is what finally keeps a table's
//! order — of two writers racing at one number exactly one keeps it, the other is refused with
//! [`PersistError::Conflict`].
//!
//! Every write goes to one *writer* task that owns one connection. It takes everything queued
//! (up to [`MAX_GROUP`] requests) and, in one transaction: reads the next journal number of
//! every table the group touches (one statement), answers at once the requests refused by
//! those numbers, and writes all the others with one statement per kind of row (arrays bound
//! as parameters and unnested), in a fixed order of keys so that two writers lock rows in the
//! same order. Each request is answered only after `COMMIT` returned — with
//! `synchronous_commit = on`, once the commit is flushed to the write-ahead log — so
//! everything acknowledged is durable.
//!
//! Should a statement fail all the same (another writer kept a number in between, a deadlock
//! between two writers), the transaction is rolled back and the group written again one
//! request at a time, each under its own savepoint and checked against the database again:
//! the failing request is rolled back alone and answered with its own error; the others
//! commit. A lost connection fails the group in flight ([`PersistError::GroupFailed`], or
//! [`PersistError::WriterLost`] when it was lost during `COMMIT`, which may have been kept);
//! the writer connects again for the next group.
//!
//! Reads ([`TableStore::load`], [`TableStore::open_tables`]) use a small pool; a load reads
//! in one `REPEATABLE READ` transaction, so the table, its access rows and its journal are of
//! one moment.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::str::FromStr;
use std::sync::Arc;

use sqlx::postgres::{PgConnectOptions, PgConnection, PgListener, PgPool, PgPoolOptions};
use sqlx::{Acquire, Connection, PgExecutor, Postgres, Transaction};
use tokio::sync::{broadcast, oneshot};
use tokio::task::JoinHandle;

use crate::PersistError;
use crate::tables::{
    Access, EVERY_INSTANCE, Heard, NOTIFY_CHANNEL, NewTable, SalvagePage, StoredTable, TableId, TableStore,
    TableSummary, Write, check_moved_table, check_new_table, check_number, check_writes, instance_channel,
    limits,
};
use crate::writer::{self, GroupWriter, Handle, Reply, Request, Stats};

/// The most requests the writer takes into one group (one transaction, one sync).
pub const MAX_GROUP: usize = 4096;
/// Requests queued for the writer before [`TableStore::commit`] waits for room.
const QUEUE: usize = 2 * MAX_GROUP;
/// Rows bound into one statement at most.
const CHUNK_ROWS: usize = 1024;
/// Bytes of text bound into one statement at most (past the first row): PostgreSQL refuses a
/// message over 1 GiB.
const CHUNK_BYTES: usize = 64 << 20;
/// Journal entries read per statement by [`TableStore::load`].
const PAGE: i64 = 4096;
/// Connections of the readers' pool.
const READERS: u32 = 4;
/// Bytes of an instance's name (its channel's name, with the prefix, is 63 at most).
const MAX_INSTANCE_BYTES: usize = 48;
/// Connections of the pool for leases and messages between instances.
const ASIDE: u32 = 2;
/// Notices a [`TableStore::listen`]er may fall behind by before it is told [`Heard::Missed`].
const HEARD_QUEUE: usize = 4096;
/// How long the listener waits before connecting again after a failed attempt.
const LISTEN_RETRY: std::time::Duration = std::time::Duration::from_millis(500);

/// The embedded, versioned schema migrations for PostgreSQL (`migrations_pg/*.sql`).
fn migrator() -> sqlx::migrate::Migrator {
    sqlx::migrate!("./migrations_pg")
}

fn to_u64(n: i64, what: &str) -> Result<u64, PersistError> {
    u64::try_from(n).map_err(|_| PersistError::Corrupt(format!("{what} {n} is negative")))
}

/// Whether `url` names a PostgreSQL database (`postgres://…` or `postgresql://…`).
pub fn is_postgres_url(url: &str) -> bool {
    let lower = url.get(..13).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("postgres://") || lower.starts_with("postgresql://")
}

/// `url` without its password, for printing (`postgres://user:secret@host/db` →
/// `postgres://user:***@host/db`).
pub fn redacted_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    // The query and fragment may hold an `@`; before them, the user information ends at the
    // last `@` (a password may hold a `/` that should have been escaped: still hidden).
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    let (before, after) = rest.split_at(end);
    match before.rsplit_once('@') {
        Some((user, host)) => match user.split_once(':') {
            Some((name, _)) => format!("{scheme}://{name}:***@{host}{after}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

/// A server's tables kept in a PostgreSQL database (see the module's documentation). Cheap to
/// clone: clones share the writer and the pool.
#[derive(Clone)]
pub struct PgTables {
    inner: Arc<Inner>,
}

struct Inner {
    /// Readers.
    pool: PgPool,
    /// The writer.
    writer: Handle,
    /// The listener's own connection (one, apart from the readers').
    listening: PgPool,
    /// The listener task and where it tells what it hears, once started.
    listener: std::sync::Mutex<Option<(JoinHandle<()>, broadcast::Sender<Heard>)>>,
    /// The channel of the instance the listener hears for, if any ([`TableStore::listen_as`]).
    instance: std::sync::Mutex<Option<String>>,
    /// Leases and messages between instances: connections that commit without waiting for a
    /// flush (`synchronous_commit = off`). Nothing there needs to survive a crash of the
    /// database: a lease lost with it is taken again, and the journal's primary key, not the
    /// lease, keeps each table's order (two instances applying at once conflict, one retries).
    aside: PgPool,
}

/// A request of the group being written: nothing is kept between groups, so a commit's
/// check leaves nothing with it.
type Work = writer::Work<()>;

impl PgTables {
    /// Connects to the database at `url` (`postgres://user:password@host:port/database`, with
    /// the usual query parameters such as `sslmode`), applies any migration it lacks and
    /// starts the writer on a thread of its own. The database must exist.
    pub async fn open(url: &str) -> Result<PgTables, PersistError> {
        PgTables::connect_with(PgConnectOptions::from_str(url)?).await
    }

    /// As [`PgTables::open`], with the connection's options.
    pub async fn connect_with(options: PgConnectOptions) -> Result<PgTables, PersistError> {
        let options = options.application_name("facedown");
        // One connection first: a database that cannot be reached is named at once, with the
        // reason (a pool would wait for its timeout and say only that). Several instances
        // starting at once: the migrator takes an advisory lock.
        let mut first = PgConnection::connect_with(&options).await?;
        migrator().run_direct(&mut first).await?;
        first.close().await?;
        let pool = PgPoolOptions::new().max_connections(READERS).connect_lazy_with(options.clone());
        let listening = PgPoolOptions::new().max_connections(1).connect_lazy_with(options.clone());
        let aside = PgPoolOptions::new()
            .max_connections(ASIDE)
            .connect_lazy_with(options.clone().options([("synchronous_commit", "off")]));
        // Acknowledged means flushed, whatever the server's or the role's default.
        let writing = options.options([("synchronous_commit", "on")]);
        let (connected, first) = oneshot::channel();
        // On a thread of its own, beside a server's shared runtime; its connection is made
        // there, on the runtime that drives it.
        let writer = Handle::start("pg-table-writer", QUEUE, true, |requests, stats| async move {
            let mut writer = Writer { options: writing, conn: None, stats };
            match writer.connection().await {
                Ok(_) => {
                    let _ = connected.send(Ok(()));
                    writer::run(writer, requests, MAX_GROUP).await;
                }
                Err(e) => drop(connected.send(Err(e))),
            }
        })?;
        match first.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(e.into()),
            Err(_) => return Err(PersistError::WriterLost),
        }
        Ok(PgTables {
            inner: Arc::new(Inner {
                pool,
                writer,
                listening,
                listener: std::sync::Mutex::new(None),
                instance: std::sync::Mutex::new(None),
                aside,
            }),
        })
    }

    /// Stops the writer once the requests already queued are written (later ones fail with
    /// [`PersistError::Closed`]) and closes the connections.
    pub async fn close(&self) {
        self.inner.writer.stop().await;
        if let Some((task, _)) = self.listener().take() {
            task.abort();
        }
        self.inner.pool.close().await;
        self.inner.listening.close().await;
        self.inner.aside.close().await;
    }

    fn listener(&self) -> std::sync::MutexGuard<'_, Option<(JoinHandle<()>, broadcast::Sender<Heard>)>> {
        // Only replaced whole under the lock: a poisoned lock holds a consistent value.
        self.inner.listener.lock().unwrap_or_else(|p| p.into_inner())
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

impl TableStore for PgTables {
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
        self.load_from(table, 0).await
    }

    async fn load_since(&self, table: TableId, from: u64) -> Result<StoredTable, PersistError> {
        self.load_from(table, from.min(limits::MAX_JOURNAL_ENTRIES)).await
    }

    async fn salvage_page(
        &self,
        table: TableId,
        from: u64,
        max_entries: u32,
    ) -> Result<SalvagePage, PersistError> {
        let id = i64::try_from(table.0).map_err(|_| PersistError::NoTable(table))?;
        let from = i64::try_from(from)
            .map_err(|_| PersistError::Corrupt(format!("journal entry number {from} is too large")))?;
        let mut tx = self.inner.pool.begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").await?;
        let (head, finished) = read_head(&mut tx, id, table).await?;
        let page: Vec<(i64, String)> = sqlx::query_as(
            "SELECT n, entry FROM server_journal WHERE table_id = $1 AND n >= $2 ORDER BY n LIMIT $3",
        )
        .bind(id)
        .bind(from)
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
        PgTables::close(self).await;
        Ok(())
    }

    async fn opens(&self, table: TableId, token_hash: &str) -> Result<bool, PersistError> {
        let Ok(id) = i64::try_from(table.0) else { return Ok(false) };
        let row: Option<(i32,)> =
            sqlx::query_as("SELECT 1 FROM server_access WHERE table_id = $1 AND token_hash = $2 LIMIT 1")
                .bind(id)
                .bind(token_hash)
                .fetch_optional(&self.inner.pool)
                .await?;
        Ok(row.is_some())
    }

    /// Written beside the writer, on a connection of the pool, in one transaction; the rows
    /// chosen are locked (`FOR UPDATE SKIP LOCKED`), so that instances expiring at once never
    /// wait for each other nor delete a table twice.
    async fn expire_finished(&self, seconds: u64, limit: usize) -> Result<Vec<TableId>, PersistError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let mut tx = self.inner.pool.begin().await?;
        sqlx::query("SET LOCAL synchronous_commit = on").execute(&mut *tx).await?;
        let rows: Vec<(i64,)> = sqlx::query_as(
            "SELECT id FROM server_tables WHERE finished AND campaign IS NULL AND finished_at IS NOT NULL \
             AND finished_at <= CURRENT_TIMESTAMP - make_interval(secs => $1) \
             ORDER BY finished_at, id LIMIT $2 FOR UPDATE SKIP LOCKED",
        )
        .bind(seconds.min(i64::MAX as u64 / 2) as f64)
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&mut *tx)
        .await?;
        let ids: Vec<i64> = rows.into_iter().map(|(id,)| id).collect();
        if ids.is_empty() {
            tx.rollback().await?;
            return Ok(Vec::new());
        }
        for sql in [
            "DELETE FROM server_journal WHERE table_id = ANY($1)",
            "DELETE FROM server_access WHERE table_id = ANY($1)",
            "DELETE FROM server_leases WHERE table_id = ANY($1)",
            "DELETE FROM server_tables WHERE id = ANY($1)",
        ] {
            sqlx::query(sql).bind(&ids).execute(&mut *tx).await?;
        }
        tx.commit().await?;
        ids.into_iter().map(|id| Ok(TableId(to_u64(id, "table number")?))).collect()
    }

    async fn open_tables(&self) -> Result<Vec<TableId>, PersistError> {
        let rows: Vec<(i64,)> =
            sqlx::query_as("SELECT id FROM server_tables WHERE NOT finished ORDER BY id LIMIT $1")
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
             FROM server_tables t ORDER BY t.id LIMIT $1",
        )
        .bind(limits::MAX_OPEN_TABLES as i64 + 1)
        .fetch_all(&self.inner.pool)
        .await?;
        crate::sqlite_tables::summaries(rows)
    }

    /// Written beside the writer, on a connection of the pool, in one transaction flushed to
    /// the write-ahead log before it is acknowledged (`synchronous_commit = on`, as the
    /// writer's). No other writer knows the new table's number until it is committed.
    async fn import_table(&self, moved: &crate::MovedTable) -> Result<TableId, PersistError> {
        check_moved_table(moved)?;
        let mut tx = self.inner.pool.begin().await?;
        sqlx::query("SET LOCAL synchronous_commit = on").execute(&mut *tx).await?;
        let id = insert_table(&mut tx, &moved.table).await?;
        let mut rows: BTreeMap<&str, &Access> = BTreeMap::new();
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

    fn shared(&self) -> bool {
        true
    }

    async fn listen(&self) -> Result<Option<broadcast::Receiver<Heard>>, PersistError> {
        let instance = self.inner.instance.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some((task, heard)) = self.listener().as_ref()
            && !task.is_finished()
        {
            return Ok(Some(heard.subscribe()));
        }
        // LISTEN before answering: whatever is committed from now on is heard.
        let listener = listen_on(&self.inner.listening, instance.as_deref()).await?;
        let mut slot = self.listener();
        if let Some((task, heard)) = slot.as_ref()
            && !task.is_finished()
        {
            // Another caller started one meanwhile.
            return Ok(Some(heard.subscribe()));
        }
        let (heard, receiver) = broadcast::channel(HEARD_QUEUE);
        let task = tokio::spawn(hear(self.inner.listening.clone(), listener, instance, heard.clone()));
        *slot = Some((task, heard));
        Ok(Some(receiver))
    }

    async fn listen_as(&self, instance: &str) -> Result<Option<broadcast::Receiver<Heard>>, PersistError> {
        if instance.len() > MAX_INSTANCE_BYTES {
            return Err(PersistError::Limit {
                what: "instance name (bytes)",
                size: instance.len() as u64,
                limit: MAX_INSTANCE_BYTES as u64,
            });
        }
        let channel = instance_channel(instance);
        let before = self.inner.instance.lock().unwrap_or_else(|p| p.into_inner()).replace(channel.clone());
        if before.as_deref() != Some(channel.as_str())
            && let Some((task, _)) = self.listener().take()
        {
            // A listener for another instance (or none): its receivers hear it closed and
            // listen again, on this one.
            task.abort();
        }
        self.listen().await
    }

    async fn tell(&self, told: Vec<(String, String)>) -> Result<(), PersistError> {
        if told.is_empty() {
            return Ok(());
        }
        let channels: Vec<String> = told.iter().map(|(to, _)| instance_channel(to)).collect();
        let payloads: Vec<&str> = told.iter().map(|(_, p)| p.as_str()).collect();
        sqlx::query("SELECT pg_notify(m.channel, m.payload) FROM UNNEST($1::TEXT[], $2::TEXT[]) AS m (channel, payload)")
            .bind(&channels)
            .bind(&payloads)
            .execute(&self.inner.aside)
            .await?;
        Ok(())
    }

    async fn leases(
        &self,
        tables: Vec<TableId>,
        holder: &str,
        seconds: u32,
    ) -> Result<Vec<(TableId, String)>, PersistError> {
        // In order and once each: two instances lock the rows in the same order, and an
        // upsert may not touch one row twice.
        let ids: BTreeSet<i64> = tables.iter().filter_map(|t| i64::try_from(t.0).ok()).collect();
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<i64> = ids.into_iter().collect();
        // Only the tables that exist (a lease's foreign key); each taken when free, renewed by
        // its holder, taken over once expired, by the database's clock. The outer SELECT sees
        // the leases as they were before the upsert: where the upsert wrote, `holder` holds.
        let rows: Vec<(i64, Option<String>)> = sqlx::query_as(
            "WITH want AS (SELECT t.id FROM server_tables t WHERE t.id = ANY($1)), \
             taken AS (INSERT INTO server_leases (table_id, holder, expires) \
               SELECT id, $2, clock_timestamp() + make_interval(secs => $3) FROM want ORDER BY id \
               ON CONFLICT (table_id) DO UPDATE SET holder = excluded.holder, expires = excluded.expires \
               WHERE server_leases.holder = excluded.holder OR server_leases.expires <= clock_timestamp() \
               RETURNING table_id) \
             SELECT w.id, CASE WHEN EXISTS (SELECT 1 FROM taken WHERE taken.table_id = w.id) THEN $2 \
               ELSE (SELECT l.holder FROM server_leases l WHERE l.table_id = w.id) END \
             FROM want w",
        )
        .bind(&ids)
        .bind(holder)
        .bind(f64::from(seconds))
        .fetch_all(&self.inner.aside)
        .await?;
        rows.into_iter()
            .filter_map(|(id, who)| Some((id, who?)))
            .map(|(id, who)| Ok((TableId(to_u64(id, "table number")?), who)))
            .collect()
    }

    async fn lease(&self, table: TableId, holder: &str, seconds: u32) -> Result<bool, PersistError> {
        let id = i64::try_from(table.0).map_err(|_| PersistError::NoTable(table))?;
        // Taken when nobody holds it, renewed by its holder, taken over once expired; always
        // by the database's clock.
        let row: Option<(String,)> = sqlx::query_as(
            "INSERT INTO server_leases (table_id, holder, expires) \
             VALUES ($1, $2, clock_timestamp() + make_interval(secs => $3)) \
             ON CONFLICT (table_id) DO UPDATE SET holder = excluded.holder, expires = excluded.expires \
             WHERE server_leases.holder = excluded.holder OR server_leases.expires <= clock_timestamp() \
             RETURNING holder",
        )
        .bind(id)
        .bind(holder)
        .bind(f64::from(seconds))
        .fetch_optional(&self.inner.aside)
        .await
        .map_err(|e| match &e {
            sqlx::Error::Database(d) if d.is_foreign_key_violation() => PersistError::NoTable(table),
            _ => e.into(),
        })?;
        Ok(row.is_some())
    }

    async fn release(&self, table: TableId, holder: &str, hand_over: bool) -> Result<(), PersistError> {
        let Ok(id) = i64::try_from(table.0) else { return Ok(()) };
        let statement = if hand_over {
            "UPDATE server_leases SET expires = clock_timestamp() WHERE table_id = $1 AND holder = $2"
        } else {
            "DELETE FROM server_leases WHERE table_id = $1 AND holder = $2"
        };
        sqlx::query(statement).bind(id).bind(holder).execute(&self.inner.aside).await?;
        Ok(())
    }

    async fn clear_orphan(&self, table: TableId) -> Result<(), PersistError> {
        let Ok(id) = i64::try_from(table.0) else { return Ok(()) };
        sqlx::query("DELETE FROM server_leases WHERE table_id = $1 AND expires <= clock_timestamp()")
            .bind(id)
            .execute(&self.inner.aside)
            .await?;
        Ok(())
    }

    async fn orphans(&self, limit: usize) -> Result<Vec<TableId>, PersistError> {
        let rows: Vec<(i64,)> = sqlx::query_as(
            "SELECT l.table_id FROM server_leases l JOIN server_tables t ON t.id = l.table_id \
             WHERE l.expires <= clock_timestamp() AND NOT t.finished ORDER BY l.table_id LIMIT $1",
        )
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.inner.pool)
        .await?;
        rows.into_iter().map(|(id,)| Ok(TableId(to_u64(id, "table number")?))).collect()
    }
}

/// A listener on [`NOTIFY_CHANNEL`] (and on `instance`'s channel, if any), on the listener's
/// own connection.
async fn listen_on(pool: &PgPool, instance: Option<&str>) -> Result<PgListener, PersistError> {
    let mut listener = PgListener::connect_with(pool).await?;
    listener.listen(NOTIFY_CHANNEL).await?;
    if let Some(channel) = instance {
        listener.listen(channel).await?;
        listener.listen(&instance_channel(EVERY_INSTANCE)).await?;
    }
    Ok(listener)
}

/// The listener task: tells every receiver each notice it hears; after a lost connection,
/// listens again and then tells [`Heard::Missed`] (so that what receivers read from the store
/// then is as new as anything heard afterwards). Ends when no receiver is left.
async fn hear(
    pool: PgPool,
    mut listener: PgListener,
    instance: Option<String>,
    heard: broadcast::Sender<Heard>,
) {
    let every = instance_channel(EVERY_INSTANCE);
    loop {
        match listener.try_recv().await {
            Ok(Some(notice)) => {
                let told = instance.as_deref() == Some(notice.channel())
                    || (instance.is_some() && notice.channel() == every);
                // A payload that is not `table:len` is another program's: not ours to tell.
                let notice = if told {
                    Some(Heard::Told(notice.payload().to_owned()))
                } else {
                    Heard::parse(notice.payload())
                };
                if let Some(notice) = notice
                    && heard.send(notice).is_err()
                {
                    return;
                }
            }
            Ok(None) | Err(_) => {
                // The pool has one connection: the lost listener gives it back first. A short
                // pause first, so that a connection lost again at once is no busy loop.
                drop(listener);
                tokio::time::sleep(LISTEN_RETRY / 5).await;
                listener = loop {
                    if heard.receiver_count() == 0 {
                        return;
                    }
                    match listen_on(&pool, instance.as_deref()).await {
                        Ok(listener) => break listener,
                        Err(_) => tokio::time::sleep(LISTEN_RETRY).await,
                    }
                };
                if heard.send(Heard::Missed).is_err() {
                    return;
                }
            }
        }
    }
}

impl PgTables {
    /// A table with its access rows and its journal from entry `from` on, read in one snapshot.
    async fn load_from(&self, table: TableId, from: u64) -> Result<StoredTable, PersistError> {
        let id = i64::try_from(table.0).map_err(|_| PersistError::NoTable(table))?;
        // One snapshot for every statement: the table, its access rows and its journal as of
        // one moment, whatever other writers commit meanwhile.
        let mut tx = self.inner.pool.begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").await?;
        let (head, finished) = read_head(&mut tx, id, table).await?;
        let mut journal: Vec<String> = Vec::new();
        let mut bytes = 0u64;
        // Bounded: each page is full or the last, and numbers are below MAX_JOURNAL_ENTRIES.
        for _ in 0..=(limits::MAX_JOURNAL_ENTRIES / PAGE as u64) {
            // `from` is at most MAX_JOURNAL_ENTRIES, and so is the next number: both fit an i64.
            let next = from + journal.len() as u64;
            let page: Vec<(i64, String)> = sqlx::query_as(
                "SELECT n, entry FROM server_journal WHERE table_id = $1 AND n >= $2 ORDER BY n LIMIT $3",
            )
            .bind(id)
            .bind(next as i64)
            .bind(PAGE)
            .fetch_all(&mut *tx)
            .await?;
            let last = page.len() < PAGE as usize;
            for (n, entry) in page {
                let next = from + journal.len() as u64;
                if to_u64(n, "journal entry number")? != next {
                    return Err(PersistError::Corrupt(format!(
                        "{table}: journal entry {next} is missing (the next stored is {n})"
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
}

/// How a group's fast path failed.
enum Failed {
    /// The connection (starting the transaction, a statement that never reached the
    /// database): the group fails as a whole, nothing of it was kept.
    Group(sqlx::Error),
    /// A statement the database refused: some request may be at fault; the group is written
    /// again one by one.
    Statement,
}

/// A statement's error, sorted: the database's refusals can be some request's fault, anything
/// else is the connection's.
fn statement(e: sqlx::Error) -> Failed {
    match e {
        sqlx::Error::Database(_) => Failed::Statement,
        e => Failed::Group(e),
    }
}

/// Whether the database refused a row for a duplicate key.
fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_unique_violation())
}

/// The task that owns the writing connection.
struct Writer {
    options: PgConnectOptions,
    /// None after the connection was lost: the next group connects again.
    conn: Option<PgConnection>,
    stats: Arc<Stats>,
}

impl GroupWriter for Writer {
    type Plan = ();

    /// Writes one group: the fast path, else one by one; then the answers.
    async fn group(&mut self, group: Vec<Work>) {
        if group.is_empty() {
            return;
        }
        let conn = match self.connection().await {
            Ok(conn) => conn,
            Err(e) => {
                let e = format!("cannot connect to PostgreSQL: {e}");
                group.into_iter().for_each(|w| w.fail(PersistError::GroupFailed(e.clone())));
                return;
            }
        };
        let (accepted, outcome) = fast_path(conn, group).await;
        match outcome {
            Ok(Committed::Nothing) => {}
            Ok(Committed::Done(created)) => self.answer(accepted.into_iter().map(|w| (w, Ok(()))), created),
            Ok(Committed::Unknown) => {
                // The connection broke during COMMIT: kept or not, nobody knows until a load.
                self.conn = None;
                accepted.into_iter().for_each(|w| w.fail(PersistError::WriterLost));
            }
            Err(Failed::Group(e)) => {
                self.conn = None;
                let e = e.to_string();
                accepted.into_iter().for_each(|w| w.fail(PersistError::GroupFailed(e.clone())));
            }
            Err(Failed::Statement) => self.one_by_one(accepted).await,
        }
    }

    async fn close(mut self) {
        if let Some(conn) = self.conn.take() {
            let _ = conn.close().await;
        }
    }
}

impl Writer {
    /// The connection, made again if it was lost.
    async fn connection(&mut self) -> Result<&mut PgConnection, sqlx::Error> {
        if self.conn.is_none() {
            self.conn = Some(PgConnection::connect_with(&self.options).await?);
        }
        // Set just above.
        self.conn.as_mut().ok_or(sqlx::Error::PoolClosed)
    }

    /// The slow path, after a statement of the fast path failed: the group again, one request
    /// at a time under its own savepoint, each checked against the database again.
    async fn one_by_one(&mut self, group: Vec<Work>) {
        let conn = match self.connection().await {
            Ok(conn) => conn,
            Err(e) => {
                let e = format!("cannot connect to PostgreSQL: {e}");
                group.into_iter().for_each(|w| w.fail(PersistError::GroupFailed(e.clone())));
                return;
            }
        };
        let (results, end) = slow_path(conn, group).await;
        // Each request's error, when the transaction did not commit.
        let error: Box<dyn Fn() -> PersistError + Send> = match end {
            Ok(created) => return self.answer(results.into_iter(), created),
            Err(Ended::Refused(e)) => {
                let e = e.to_string();
                Box::new(move || PersistError::GroupFailed(e.clone()))
            }
            Err(Ended::Lost(e)) => {
                self.conn = None;
                let e = e.to_string();
                Box::new(move || PersistError::GroupFailed(e.clone()))
            }
            Err(Ended::Unknown) => {
                // Kept or not, nobody knows until a load.
                self.conn = None;
                Box::new(|| PersistError::WriterLost)
            }
        };
        results.into_iter().for_each(|(work, _)| work.fail(error()));
    }

    /// Answers a committed group: `Ok` to the requests kept, their own error to the others.
    fn answer(&mut self, group: impl Iterator<Item = (Work, Result<(), PersistError>)>, created: Vec<i64>) {
        writer::answer(&self.stats, group.collect(), created, |_| {});
    }
}

/// How the fast path's transaction ended.
enum Committed {
    /// Every request was refused before anything was written: rolled back, nothing to answer.
    Nothing,
    /// Committed: the numbers of the tables created, in order.
    Done(Vec<i64>),
    /// The connection broke during `COMMIT`.
    Unknown,
}

/// The fast path: the group's next numbers read once, the requests they refuse answered, the
/// others written in one transaction with a few statements. Returns the requests not yet
/// answered and how it ended.
async fn fast_path(conn: &mut PgConnection, group: Vec<Work>) -> (Vec<Work>, Result<Committed, Failed>) {
    let mut tx = match Connection::begin(&mut *conn).await {
        Ok(tx) => tx,
        Err(e) => return (group, Err(Failed::Group(e))),
    };
    let tables: BTreeSet<TableId> = group.iter().flat_map(Work::writes).map(Write::table).collect();
    let next = match next_numbers(&mut *tx, &tables).await {
        Ok(next) => next,
        Err(e) => return (group, Err(statement(e))),
    };
    // Each request against the numbers, after the requests accepted before it in this group.
    let mut pending = next;
    let mut accepted = Vec::with_capacity(group.len());
    for work in group {
        match work {
            Work::Commit { writes, reply, .. } => match plan(&writes, &pending) {
                Ok(after) => {
                    pending.extend(after);
                    accepted.push(Work::Commit { writes, reply, plan: () });
                }
                Err(e) => drop(reply.send(Err(e))),
            },
            create => accepted.push(create),
        }
    }
    if accepted.is_empty() {
        let _ = tx.rollback().await;
        return (accepted, Ok(Committed::Nothing));
    }
    let written = write_group(&mut tx, &accepted).await;
    let created = match written {
        Ok(created) => created,
        Err(e) => {
            // A statement refused: the transaction is aborted; roll it back (or lose the
            // connection, which rolls it back all the same).
            let failed = statement(e);
            if let Err(e) = tx.rollback().await {
                return (accepted, Err(Failed::Group(e)));
            }
            return (accepted, Err(failed));
        }
    };
    match tx.commit().await {
        Ok(()) => (accepted, Ok(Committed::Done(created))),
        // Refused by the database at COMMIT (a deferred check): nothing was kept.
        Err(e @ sqlx::Error::Database(_)) => (accepted, Err(Failed::Group(e))),
        Err(_) => (accepted, Ok(Committed::Unknown)),
    }
}

/// How the slow path's transaction ended, when it did not commit.
enum Ended {
    /// The database refused the transaction (at `COMMIT`): nothing was kept.
    Refused(sqlx::Error),
    /// The connection broke before `COMMIT`: nothing was kept.
    Lost(sqlx::Error),
    /// The connection broke during `COMMIT`: kept or not, unknown.
    Unknown,
}

/// The slow path's transaction: every request under its own savepoint. Returns each request
/// with its own result, and the numbers of the tables created once committed.
async fn slow_path(
    conn: &mut PgConnection,
    group: Vec<Work>,
) -> (Vec<(Work, Result<(), PersistError>)>, Result<Vec<i64>, Ended>) {
    let mut tx = match Connection::begin(&mut *conn).await {
        Ok(tx) => tx,
        Err(e) => return (group.into_iter().map(|w| (w, Ok(()))).collect(), Err(Ended::Lost(e))),
    };
    let mut results = Vec::with_capacity(group.len());
    let mut created = Vec::new();
    let mut group = group.into_iter();
    while let Some(work) = group.next() {
        let result = match savepoint(&mut tx, &work).await {
            Ok(result) => result,
            Err(e) => {
                // The savepoint itself failed: the transaction is lost.
                results.push((work, Ok(())));
                results.extend(group.map(|w| (w, Ok(()))));
                return (results, Err(Ended::Lost(e)));
            }
        };
        if let Ok(Some(id)) = result {
            created.push(id);
        }
        results.push((work, result.map(drop)));
    }
    let mut written: BTreeMap<i64, bool> = BTreeMap::new();
    for write in results.iter().filter(|(_, result)| result.is_ok()).flat_map(|(work, _)| work.writes()) {
        // Kept: its table exists, so its number fits an i64.
        let more = written.entry(write.table().0 as i64).or_insert(false);
        *more |= !matches!(write, Write::Journal { .. });
    }
    if let Err(e) = notify(&mut tx, &written).await {
        // The transaction is aborted: nothing of it is kept.
        let _ = tx.rollback().await;
        return (results, Err(Ended::Lost(e)));
    }
    match tx.commit().await {
        Ok(()) => (results, Ok(created)),
        Err(e @ sqlx::Error::Database(_)) => (results, Err(Ended::Refused(e))),
        Err(_) => (results, Err(Ended::Unknown)),
    }
}

/// The next journal number of each of `tables` the database has (the others are missing).
async fn next_numbers<'c>(
    conn: impl PgExecutor<'c>,
    tables: &BTreeSet<TableId>,
) -> Result<HashMap<TableId, u64>, sqlx::Error> {
    let ids: Vec<i64> = tables.iter().filter_map(|t| i64::try_from(t.0).ok()).collect();
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows: Vec<(i64, i64)> = sqlx::query_as(
        "SELECT t.id, (SELECT COALESCE(MAX(j.n) + 1, 0) FROM server_journal j WHERE j.table_id = t.id) \
         FROM server_tables t WHERE t.id = ANY($1)",
    )
    .bind(&ids)
    .fetch_all(conn)
    .await?;
    Ok(rows
        .into_iter()
        .filter_map(|(id, next)| Some((TableId(u64::try_from(id).ok()?), u64::try_from(next).ok()?)))
        .collect())
}

/// Checks a commit against the tables' next numbers (`next`, after the requests accepted
/// before it); returns the next numbers after it, of the tables it appends to.
fn plan(writes: &[Write], next: &HashMap<TableId, u64>) -> Result<Vec<(TableId, u64)>, PersistError> {
    let mut after: Vec<(TableId, u64)> = Vec::new();
    for write in writes {
        let table = write.table();
        let Some(&before) = next.get(&table) else {
            return Err(PersistError::NoTable(table));
        };
        if let Write::Journal { n, .. } = write {
            let at = match after.iter().position(|(t, _)| *t == table) {
                Some(at) => at,
                None => {
                    after.push((table, before));
                    after.len() - 1
                }
            };
            check_number(table, *n, before, after[at].1)?;
            after[at].1 += 1;
        }
    }
    Ok(after)
}

/// The group's rows, one statement per kind (and per chunk), keys in order. Returns the
/// numbers of the tables created, in the group's order.
async fn write_group(tx: &mut PgConnection, group: &[Work]) -> Result<Vec<i64>, sqlx::Error> {
    let mut created = Vec::new();
    // Access rows by (table, who), the last one kept; journal entries by (table, n); both in
    // key order, so that two writers take the rows' locks in the same order.
    let mut access: BTreeMap<(i64, &str), &Access> = BTreeMap::new();
    let mut journal: BTreeMap<(i64, i64), &str> = BTreeMap::new();
    let mut finished: BTreeSet<i64> = BTreeSet::new();
    for work in group {
        match work {
            Work::Create { table, .. } => {
                let id = insert_table(&mut *tx, table).await?;
                for row in &table.access {
                    access.insert((id, row.who.as_str()), row);
                }
                created.push(id);
            }
            Work::Commit { writes, .. } => {
                for write in writes {
                    // Checked by `plan` (known tables come from the database) and by
                    // `check_writes` (numbers below MAX_JOURNAL_ENTRIES): both fit an i64.
                    let table = write.table().0 as i64;
                    match write {
                        Write::Journal { n, entry, .. } => {
                            journal.insert((table, *n as i64), entry);
                        }
                        Write::Access { access: row, .. } => {
                            access.insert((table, row.who.as_str()), row);
                        }
                        Write::Finished { .. } => {
                            finished.insert(table);
                        }
                    }
                }
            }
        }
    }
    let journal: Vec<(i64, i64, &str)> = journal.into_iter().map(|((t, n), e)| (t, n, e)).collect();
    let access: Vec<(i64, &Access)> = access.into_iter().map(|((t, _), row)| (t, row)).collect();
    let finished: Vec<i64> = finished.into_iter().collect();
    // Each table a commit wrote to (a new table has nobody to tell), and whether it wrote
    // access rows, and whether it marked the table finished.
    let mut written: BTreeMap<i64, (bool, bool)> = BTreeMap::new();
    for write in group.iter().flat_map(Work::writes) {
        // Checked as above: fits an i64.
        let (access, finished) = written.entry(write.table().0 as i64).or_insert((false, false));
        *access |= matches!(write, Write::Access { .. });
        *finished |= matches!(write, Write::Finished { .. });
    }
    insert_journal(&mut *tx, &journal).await?;
    upsert_access(&mut *tx, &access).await?;
    mark_finished(&mut *tx, &finished).await?;
    // A table the group appended to: its journal now ends with the group's entries (numbers
    // were checked against the database's next ones), so the notice can say its length and
    // carry the entries without asking the database. The others' lengths come from it.
    let mut carried: BTreeMap<i64, Vec<(i64, &str)>> = BTreeMap::new();
    for (t, n, e) in &journal {
        carried.entry(*t).or_default().push((*n, e));
    }
    let mut payloads = Vec::new();
    written.retain(|table, (access, finished)| match carried.get(table) {
        Some(entries) => {
            let len = entries.last().map_or(0, |(n, _)| *n as u64 + 1);
            let texts: Vec<&str> = entries.iter().map(|(_, e)| *e).collect();
            payloads.push(Heard::payload(TableId(*table as u64), len, *access, *finished, &texts));
            false
        }
        None => true,
    });
    let written: BTreeMap<i64, bool> = written.into_iter().map(|(t, (a, f))| (t, a || f)).collect();
    notify(&mut *tx, &written).await?;
    notify_payloads(&mut *tx, &payloads).await?;
    Ok(created)
}

/// NOTIFYs [`NOTIFY_CHANNEL`] once for each of `tables` (`table:len`, the journal's length as
/// this transaction leaves it, then `:access` when more than its journal was written — access
/// rows, its end): delivered to every listener when the transaction commits, never if it does
/// not.
async fn notify(tx: &mut PgConnection, tables: &BTreeMap<i64, bool>) -> Result<(), sqlx::Error> {
    if tables.is_empty() {
        return Ok(());
    }
    let ids: Vec<i64> = tables.keys().copied().collect();
    let more: Vec<bool> = tables.values().copied().collect();
    sqlx::query(
        "SELECT pg_notify($1, w.id::TEXT || ':' || \
         (SELECT COALESCE(MAX(j.n) + 1, 0) FROM server_journal j WHERE j.table_id = w.id)::TEXT || \
         CASE WHEN w.more THEN ':access' ELSE '' END) \
         FROM UNNEST($2::BIGINT[], $3::BOOL[]) AS w (id, more)",
    )
    .bind(NOTIFY_CHANNEL)
    .bind(&ids)
    .bind(&more)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// NOTIFYs [`NOTIFY_CHANNEL`] once with each of `payloads` (made by [`Heard::payload`]).
async fn notify_payloads(tx: &mut PgConnection, payloads: &[String]) -> Result<(), sqlx::Error> {
    if payloads.is_empty() {
        return Ok(());
    }
    sqlx::query("SELECT pg_notify($1, p) FROM UNNEST($2::TEXT[]) AS p")
        .bind(NOTIFY_CHANNEL)
        .bind(payloads)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// One request of the slow path under its own savepoint. `Err`: the transaction failed;
/// `Ok(Err)`: this request was refused and rolled back alone; `Ok(Ok(id))`: kept (with the
/// new table's number for a creation).
async fn savepoint(
    tx: &mut Transaction<'_, Postgres>,
    work: &Work,
) -> Result<Result<Option<i64>, PersistError>, sqlx::Error> {
    let mut sp = tx.begin().await?;
    let result = match work {
        Work::Create { table, .. } => create_one(&mut sp, table).await,
        Work::Commit { writes, .. } => commit_one(&mut sp, writes).await.map(|()| None),
    };
    match result {
        Ok(id) => sp.commit().await.map(|()| Ok(id)),
        Err(e) => sp.rollback().await.map(|()| Err(e)),
    }
}

async fn create_one(tx: &mut PgConnection, table: &NewTable) -> Result<Option<i64>, PersistError> {
    let id = insert_table(&mut *tx, table).await?;
    let mut rows: BTreeMap<&str, &Access> = BTreeMap::new();
    for row in &table.access {
        rows.insert(&row.who, row);
    }
    let rows: Vec<(i64, &Access)> = rows.into_values().map(|row| (id, row)).collect();
    upsert_access(&mut *tx, &rows).await?;
    Ok(Some(id))
}

/// A commit's writes one by one, each checked against the database (which sees what other
/// writers committed since the fast path read).
async fn commit_one(tx: &mut PgConnection, writes: &[Write]) -> Result<(), PersistError> {
    let tables: BTreeSet<TableId> = writes.iter().map(Write::table).collect();
    let before = next_numbers(&mut *tx, &tables).await?;
    let mut next = before.clone();
    for write in writes {
        let table = write.table();
        let (Some(&first), Some(expected)) = (before.get(&table), next.get_mut(&table)) else {
            return Err(PersistError::NoTable(table));
        };
        // Known tables come from the database, numbers are below MAX_JOURNAL_ENTRIES: both
        // fit an i64.
        let id = table.0 as i64;
        match write {
            Write::Journal { n, entry, .. } => {
                check_number(table, *n, first, *expected)?;
                match insert_journal(&mut *tx, &[(id, *n as i64, entry)]).await {
                    Ok(()) => *expected += 1,
                    // Another writer kept this number after the read above.
                    Err(e) if is_unique_violation(&e) => {
                        return Err(PersistError::Conflict { table, seq: *n });
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            Write::Access { access, .. } => upsert_access(&mut *tx, &[(id, access)]).await?,
            Write::Finished { .. } => mark_finished(&mut *tx, &[id]).await?,
        }
    }
    Ok(())
}

async fn insert_table(tx: &mut PgConnection, table: &NewTable) -> Result<i64, sqlx::Error> {
    let (id,): (i64,) = sqlx::query_as(
        "INSERT INTO server_tables (ruleset, ruleset_version, setup, options) VALUES ($1, $2, $3, $4) \
         RETURNING id",
    )
    .bind(&table.ruleset)
    .bind(&table.ruleset_version)
    .bind(&table.setup)
    .bind(&table.options)
    .fetch_one(&mut *tx)
    .await?;
    Ok(id)
}

/// Splits `rows` into runs of at most [`CHUNK_ROWS`] rows and [`CHUNK_BYTES`] bytes of text
/// (a longer row makes a run of its own).
fn runs<T>(rows: &[T], bytes: impl Fn(&T) -> usize) -> Vec<&[T]> {
    let mut runs = Vec::new();
    let (mut start, mut size) = (0, 0);
    for (i, row) in rows.iter().enumerate() {
        let b = bytes(row);
        if i > start && (i - start == CHUNK_ROWS || size + b > CHUNK_BYTES) {
            runs.push(&rows[start..i]);
            (start, size) = (i, 0);
        }
        size += b;
    }
    if start < rows.len() {
        runs.push(&rows[start..]);
    }
    runs
}

async fn insert_journal(tx: &mut PgConnection, rows: &[(i64, i64, &str)]) -> Result<(), sqlx::Error> {
    for run in runs(rows, |(_, _, e)| e.len()) {
        let tables: Vec<i64> = run.iter().map(|r| r.0).collect();
        let numbers: Vec<i64> = run.iter().map(|r| r.1).collect();
        let entries: Vec<&str> = run.iter().map(|r| r.2).collect();
        sqlx::query(
            "INSERT INTO server_journal (table_id, n, entry) \
             SELECT * FROM UNNEST($1::BIGINT[], $2::BIGINT[], $3::TEXT[])",
        )
        .bind(&tables)
        .bind(&numbers)
        .bind(&entries)
        .execute(&mut *tx)
        .await?;
    }
    Ok(())
}

async fn upsert_access(tx: &mut PgConnection, rows: &[(i64, &Access)]) -> Result<(), sqlx::Error> {
    for run in runs(rows, |(_, a)| a.controller.len() + a.who.len()) {
        let tables: Vec<i64> = run.iter().map(|r| r.0).collect();
        let who: Vec<&str> = run.iter().map(|r| r.1.who.as_str()).collect();
        let hashes: Vec<Option<&str>> = run.iter().map(|r| r.1.token_hash.as_deref()).collect();
        let controllers: Vec<&str> = run.iter().map(|r| r.1.controller.as_str()).collect();
        sqlx::query(
            "INSERT INTO server_access (table_id, who, token_hash, controller) \
             SELECT * FROM UNNEST($1::BIGINT[], $2::TEXT[], $3::TEXT[], $4::TEXT[]) \
             ON CONFLICT (table_id, who) DO UPDATE SET token_hash = excluded.token_hash, \
             controller = excluded.controller",
        )
        .bind(&tables)
        .bind(&who)
        .bind(&hashes)
        .bind(&controllers)
        .execute(&mut *tx)
        .await?;
    }
    Ok(())
}

async fn mark_finished(tx: &mut PgConnection, tables: &[i64]) -> Result<(), sqlx::Error> {
    if tables.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "UPDATE server_tables SET finished = TRUE, finished_at = CURRENT_TIMESTAMP WHERE id = ANY($1)",
    )
    .bind(tables)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// A table's row and access rows (bounded by [`limits::MAX_ACCESS_ROWS`]), read in `tx`.
async fn read_head(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    id: i64,
    table: TableId,
) -> Result<(NewTable, bool), PersistError> {
    let row: Option<(String, String, String, String, bool)> = sqlx::query_as(
        "SELECT ruleset, ruleset_version, setup, options, finished FROM server_tables WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(&mut **tx)
    .await?;
    let (ruleset, ruleset_version, setup, options, finished) = row.ok_or(PersistError::NoTable(table))?;
    // Ordered as SQLite orders text (by bytes), whatever the database's collation.
    let access: Vec<(String, Option<String>, String)> = sqlx::query_as(
        "SELECT who, token_hash, controller FROM server_access WHERE table_id = $1 \
             ORDER BY who COLLATE \"C\" LIMIT $2",
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
    fn runs_cover_every_row_within_the_bounds() {
        let rows: Vec<usize> = vec![10; 2500];
        let sizes: Vec<usize> = runs(&rows, |b| *b).iter().map(|r| r.len()).collect();
        assert_eq!(sizes, vec![1024, 1024, 452]);
        let big = vec![CHUNK_BYTES / 2 + 1; 3];
        assert_eq!(runs(&big, |b| *b).len(), 3, "two halves and a byte do not share a statement");
        let huge = vec![CHUNK_BYTES * 2];
        assert_eq!(runs(&huge, |b| *b).len(), 1, "a longer row makes a run of its own");
        assert!(runs::<usize>(&[], |b| *b).is_empty());
    }

    #[test]
    fn urls_are_recognised_and_printed_without_their_password() {
        assert!(is_postgres_url("postgres://u@h/db"));
        assert!(is_postgres_url("PostgreSQL://u@h/db"));
        assert!(!is_postgres_url("server.db"));
        assert!(!is_postgres_url("postgres"));
        assert_eq!(redacted_url("postgres://u:secret@h:5432/db?x=1"), "postgres://u:***@h:5432/db?x=1");
        assert_eq!(redacted_url("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(redacted_url("postgres://h/db"), "postgres://h/db");
        assert_eq!(redacted_url("postgres://u:p@ss@h/db"), "postgres://u:***@h/db");
        assert_eq!(redacted_url("postgres://u:a/b@h/db"), "postgres://u:***@h/db");
        assert_eq!(redacted_url("postgres://h/db?user=a@b"), "postgres://h/db?user=a@b");
    }

    #[test]
    fn a_plan_refuses_kept_numbers_as_conflicts_and_gaps_as_sequence_errors() {
        let t = TableId(1);
        let next: HashMap<TableId, u64> = [(t, 5)].into();
        let journal = |n| Write::Journal { table: t, n, entry: "{}".into() };
        assert_eq!(plan(&[journal(5), journal(6)], &next).unwrap(), vec![(t, 7)]);
        assert!(matches!(plan(&[journal(4)], &next), Err(PersistError::Conflict { seq: 4, .. })));
        assert!(matches!(
            plan(&[journal(6)], &next),
            Err(PersistError::JournalSequence { expected: 5, got: 6, .. })
        ));
        assert!(matches!(
            plan(&[journal(5), journal(5)], &next),
            Err(PersistError::JournalSequence { expected: 6, got: 5, .. })
        ));
        assert!(matches!(
            plan(&[Write::Finished { table: TableId(2) }], &next),
            Err(PersistError::NoTable(TableId(2)))
        ));
    }
}
