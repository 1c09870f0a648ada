//! A server on PostgreSQL (issue 16, part 3): `server::start` with a `postgres://` URL as its
//! database keeps its tables in PostgreSQL. Two people play an Iron Triangle duel on the wire,
//! the server stops mid-game, a new server starts on the same database, and the people
//! reconnect: everything they saw is given back exactly, and the game goes on to its end.
//!
//! The PostgreSQL server comes from `FACEDOWN_TEST_POSTGRES` (a base URL; `.ci/postgres.sh
//! start` starts a throwaway one) and the test makes a database of its own on it. Without the
//! variable the test prints that it skipped — except under CI (`CI` set), where it fails.

use std::str::FromStr;

use server::protocol::CreateTable;
use sqlx::postgres::PgConnectOptions;
use store::tables::{TableId, TableStore};

mod pgcommon;
use pgcommon::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_on_postgres_resumes_after_a_restart() {
    let Some(db) = Database::create("a_table_on_postgres_resumes_after_a_restart").await else { return };
    let url = db.url();
    assert!(PgConnectOptions::from_str(&url).is_ok(), "{url}");

    let first = server::start(config(&url)).await.unwrap();
    let created = first
        .create_table(CreateTable::example("iron-triangle", "duel"))
        .await
        .unwrap_or_else(|e| panic!("a duel: {}", e.message));
    // A decision each (both stances: no stance ends the game, where a random move may be a
    // surrender), then the server stops mid-game.
    let before = play_all(links_on(&first, &created.seats), Some(1)).await;
    assert!(
        before.iter().all(|s| !s.over && !s.items.is_empty()),
        "the game is under way: {:?}",
        before.iter().map(|s| (s.who, s.over, s.items.len())).collect::<Vec<_>>()
    );
    first.shutdown().await.unwrap();

    // What the database holds: the table and its journal.
    let store = store::PgTables::open(&url).await.unwrap();
    let id = TableId(created.table.parse().unwrap());
    let stored = store.load(id).await.unwrap();
    assert_eq!(stored.table.ruleset, "iron-triangle");
    assert!(stored.journal.len() >= 2, "the played commands are kept: {}", stored.journal.len());
    assert!(!stored.finished);
    assert_eq!(store.open_tables().await.unwrap(), vec![id]);
    store.close().await;

    // A new server on the same database: the people come back and play on to the end.
    let second = server::start(config(&url)).await.unwrap();
    assert_ne!(second.base_url, "", "listening");
    let after = play_all(links_on(&second, &created.seats), None).await;
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(a.who, b.who);
        assert!(a.over, "{:?} played to the end", a.who);
        for (seq, item) in &b.items {
            assert_eq!(a.items.get(seq), Some(item), "{:?} is given back item {seq} as it saw it", a.who);
        }
        assert!(a.items.len() > b.items.len(), "the game went on");
    }
    second.shutdown().await.unwrap();

    let store = store::PgTables::open(&url).await.unwrap();
    let done = store.load(id).await.unwrap();
    assert!(done.finished, "a finished game is marked so");
    assert!(done.journal.len() > stored.journal.len());
    assert!(store.open_tables().await.unwrap().is_empty());
    store.close().await;
    db.drop_it().await;
}
