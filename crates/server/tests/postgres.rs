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

/// The next message that is not a seats notice or an update, within 10 s.
async fn answer(client: &mut server::client::Client) -> server::protocol::ServerMessage {
    use server::protocol::ServerMessage;
    loop {
        let m = tokio::time::timeout(std::time::Duration::from_secs(10), client.next())
            .await
            .expect("an answer in time")
            .unwrap();
        match m {
            ServerMessage::Seats { .. } | ServerMessage::Update { .. } | ServerMessage::Sealed { .. } => {}
            m => return m,
        }
    }
}

/// Issue 33 §2 across instances: the GM link on one instance revokes the spectators' link, and a
/// spectator connected to the other instance is told `revoked` and closed; the GM link reissued
/// on the first opens the table on the second, where the old one opens nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_revoked_or_reissued_on_one_instance_stop_working_on_the_other() {
    use server::client::Client;
    use server::protocol::{ClientMessage, ErrorCode, ManageAction, ServerMessage, Who};
    let Some(db) =
        Database::create("links_revoked_or_reissued_on_one_instance_stop_working_on_the_other").await
    else {
        return;
    };
    let url = db.url();
    let a = server::start(config(&url)).await.unwrap();
    let b = server::start(config(&url)).await.unwrap();
    let created = a.create_table(CreateTable::example("iron-triangle", "duel")).await.unwrap();
    let on = |server: &server::Running, l: &str| {
        let (_, table, token) = server::protocol::parse_link(l).unwrap();
        server::protocol::link(&server.base_url, &table, &token)
    };
    let mut gm = Client::join(&on(&a, &created.gm), 0).await.unwrap();
    assert!(matches!(answer(&mut gm).await, ServerMessage::Welcome { .. }));
    let mut watching = Client::join(&on(&b, &created.spectator), 0).await.unwrap();
    assert!(matches!(answer(&mut watching).await, ServerMessage::Welcome { .. }));
    gm.send(&ClientMessage::Manage { id: "g1".into(), action: ManageAction::Revoke { seat: None } })
        .await
        .unwrap();
    assert!(matches!(answer(&mut gm).await, ServerMessage::Ack { .. }));
    assert!(matches!(answer(&mut watching).await, ServerMessage::Revoked {}), "told on the other instance");
    gm.send(&ClientMessage::Manage { id: "g2".into(), action: ManageAction::ReissueGm {} }).await.unwrap();
    let url_gm = match answer(&mut gm).await {
        ServerMessage::Link { who: Some(Who::Gm), url, .. } => url,
        other => panic!("expected the new GM link, got {other:?}"),
    };
    assert!(matches!(answer(&mut gm).await, ServerMessage::Ack { .. }));
    for (link, opens) in [(&created.spectator, false), (&created.gm, false), (&url_gm, true)] {
        let mut c = Client::join(&on(&b, link), 0).await.unwrap();
        match answer(&mut c).await {
            ServerMessage::Welcome { you, .. } if opens => assert_eq!(you, Who::Gm),
            ServerMessage::Error { code, .. } if !opens => assert_eq!(code, ErrorCode::Unauthorized),
            other => panic!("{link}: {other:?}"),
        }
    }
    a.shutdown().await.unwrap();
    b.shutdown().await.unwrap();
    db.drop_it().await;
}

/// Issue 33 §1 on PostgreSQL: a table nobody joined closes, then expires, deleted from the
/// database (its journal and links) by the server's sweep.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_table_expires_from_postgres() {
    let Some(db) = Database::create("a_closed_table_expires_from_postgres").await else { return };
    let url = db.url();
    let mut c = config(&url);
    c.limits.unjoined_seconds = 1;
    c.limits.keep_finished_seconds = 1;
    let server = server::start(c).await.unwrap();
    let created = server.create_table(CreateTable::example("iron-triangle", "duel")).await.unwrap();
    let id = TableId(created.table.parse().unwrap());
    let store = store::PgTables::open(&url).await.unwrap();
    let start = std::time::Instant::now();
    while store.list_tables().await.unwrap().iter().any(|t| t.id == id) {
        assert!(start.elapsed() < std::time::Duration::from_secs(15), "{id} still stored");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert!(matches!(store.load(id).await, Err(store::PersistError::NoTable(_))));
    store.close().await;
    server.shutdown().await.unwrap();
    db.drop_it().await;
}
