//! Benchmark: journal entries committed per second through `SqliteTables`' group commit, with
//! 1, 64 and 1024 concurrent committers (each on its own table, one ~200-byte JSON entry per
//! commit, each waiting for its acknowledgement before the next), against the naive way — one
//! `BEGIN IMMEDIATE` … `COMMIT` per entry through a pool of connections, as `SqliteGames` does.
//! Both on a database file on disk, in WAL mode with `synchronous = FULL`: every
//! acknowledgement waits for a sync. Throughput is in elements (commits) per second; after each
//! group-commit case the average group size (commits per transaction) is printed.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use store::SqliteTables;
use store::tables::{Access, NewTable, TableId, TableStore, Write};

const COMMITTERS: [usize; 3] = [1, 64, 1024];

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime")
}

fn new_table() -> NewTable {
    NewTable {
        ruleset: "iron-triangle".into(),
        ruleset_version: "0.1.0".into(),
        setup: r#"{"fighters":["ada","bandit"]}"#.into(),
        options: "{}".into(),
        access: vec![Access {
            who: "gm".into(),
            token_hash: Some("00".repeat(32)),
            controller: "null".into(),
        }],
    }
}

/// A journal entry of about 200 bytes.
fn entry(table: TableId, n: u64) -> String {
    format!(
        r#"{{"kind":"command","seat":{},"client":"c-{:016x}","command":{{"Commit":{{"stance":"aggressive","move":"sweeping strike"}}}},"at":"2026-11-25T18:00:00Z","n":{n},"table":{}}}"#,
        n % 2,
        table.0 ^ n,
        table.0
    )
}

/// One committer's table and the next number of its journal.
struct Committer {
    table: TableId,
    next: AtomicU64,
}

/// Runs `iters` commits (at least one round of every committer) spread over the committers,
/// each through `commit`; returns the time scaled to `iters` commits.
async fn run<F, Fut>(committers: &Arc<Vec<Committer>>, iters: u64, commit: F) -> Duration
where
    F: Fn(TableId, u64) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let rounds = iters.div_ceil(committers.len() as u64).max(1);
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..committers.len() {
        let (committers, commit) = (committers.clone(), commit.clone());
        tasks.spawn(async move {
            let c = &committers[i];
            for _ in 0..rounds {
                let n = c.next.fetch_add(1, Ordering::Relaxed);
                commit(c.table, n).await;
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.expect("a committer");
    }
    start.elapsed().mul_f64(iters as f64 / (rounds * committers.len() as u64) as f64)
}

async fn tables(store: &SqliteTables, count: usize) -> Arc<Vec<Committer>> {
    let mut committers = Vec::with_capacity(count);
    for _ in 0..count {
        let table = store.create_table(&new_table()).await.expect("a table");
        committers.push(Committer { table, next: AtomicU64::new(0) });
    }
    Arc::new(committers)
}

fn group_commit(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("journal_commits");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    group.throughput(Throughput::Elements(1));
    for committers in COMMITTERS {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = rt.block_on(SqliteTables::open(&dir.path().join("bench.sqlite"))).expect("the store");
        let tables = rt.block_on(tables(&store, committers));
        let (syncs, acknowledged) = (store.writer().syncs(), store.writer().acknowledged());
        group.bench_function(format!("group_commit/{committers}"), |b| {
            b.iter_custom(|iters| {
                let store = store.clone();
                rt.block_on(run(&tables, iters, move |table, n| {
                    let store = store.clone();
                    async move {
                        let entry = entry(table, n);
                        store.commit(vec![Write::Journal { table, n, entry }]).await.expect("a commit");
                    }
                }))
            })
        });
        let (syncs, acknowledged) =
            (store.writer().syncs() - syncs, store.writer().acknowledged() - acknowledged);
        eprintln!(
            "group_commit/{committers}: {acknowledged} commits in {syncs} transactions, {:.1} per transaction",
            acknowledged as f64 / syncs.max(1) as f64
        );
        rt.block_on(store.close());
    }

    for committers in COMMITTERS {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("bench.sqlite");
        let store = rt.block_on(SqliteTables::open(&path)).expect("the store");
        let tables = rt.block_on(tables(&store, committers));
        rt.block_on(store.close());
        let options = SqliteConnectOptions::new()
            .filename(&path)
            .foreign_keys(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(Duration::from_secs(60));
        let pool: SqlitePool =
            rt.block_on(SqlitePoolOptions::new().max_connections(4).connect_with(options)).expect("a pool");
        group.bench_function(format!("naive_one_transaction_each/{committers}"), |b| {
            b.iter_custom(|iters| {
                let pool = pool.clone();
                rt.block_on(run(&tables, iters, move |table, n| {
                    let pool = pool.clone();
                    async move { naive_commit(&pool, table, n).await }
                }))
            })
        });
        rt.block_on(pool.close());
    }
    group.finish();
}

/// One entry, one transaction: check the number, insert, commit (one sync).
async fn naive_commit(pool: &SqlitePool, table: TableId, n: u64) {
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await.expect("a transaction");
    let (next,): (i64,) =
        sqlx::query_as("SELECT COALESCE(MAX(n) + 1, 0) FROM server_journal WHERE table_id = ?")
            .bind(table.0 as i64)
            .fetch_one(&mut *tx)
            .await
            .expect("the next number");
    assert_eq!(next as u64, n, "{table}");
    sqlx::query("INSERT INTO server_journal (table_id, n, entry) VALUES (?, ?, ?)")
        .bind(table.0 as i64)
        .bind(n as i64)
        .bind(entry(table, n))
        .execute(&mut *tx)
        .await
        .expect("an insert");
    tx.commit().await.expect("a commit");
}

criterion_group!(benches, group_commit);
criterion_main!(benches);
