//! Issue 33 §1 on a real server: finished and closed tables are deleted from the store some time
//! after their last entry (`--keep-finished-seconds`), so that a stranger creating tables in a
//! loop fills neither the cap of open tables nor the disk.

use std::path::Path;
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use server::client::Client;
use server::protocol::{ClientMessage, ErrorCode, ManageAction, ServerMessage};
use store::tables::TableStore;

mod common;
use common::{config, duel, next, welcomed};

/// How many tables the store at `db` holds, read beside the server.
async fn stored(db: &Path) -> usize {
    let s = store::SqliteTables::open(db).await.unwrap();
    let n = s.list_tables().await.unwrap().len();
    s.close().await;
    n
}

/// Waits (at most 15 s) until the store at `db` holds no table.
async fn emptied(db: &Path) {
    let start = Instant::now();
    loop {
        let n = stored(db).await;
        if n == 0 {
            return;
        }
        assert!(start.elapsed() < Duration::from_secs(15), "{n} tables still stored");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The attack of issue 33 §1, as a loop: creations at once fill the cap (never past it), a GM
/// closes one table and nobody joins the others (they close by themselves); a second later all
/// are deleted from the store — journal, links and all — so the next round finds the store
/// empty and the cap free again. Their links open nothing, as any unknown table's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_and_closed_tables_expire_and_never_accumulate() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let mut c = config(&db);
    c.limits.max_tables = 3;
    c.limits.unjoined_seconds = 1;
    c.limits.keep_finished_seconds = 1;
    let server = server::start(c).await.unwrap();
    for round in 0..3 {
        let results = join_all((0..8).map(|_| server.create_table(duel()))).await;
        let created: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(created.len(), 3, "round {round}: exactly the cap is created");
        for refused in results.iter().filter_map(|r| r.as_ref().err()) {
            assert_eq!(refused.code, ErrorCode::Full, "{}", refused.message);
        }
        assert!(stored(&db).await <= 3, "round {round}: the store holds only this round's tables");
        let mut gm = welcomed(&created[0].gm).await;
        gm.send(&ClientMessage::Manage { id: "c1".into(), action: ManageAction::Close {} }).await.unwrap();
        loop {
            if let ServerMessage::Revoked {} = next(&mut gm).await {
                break;
            }
        }
        emptied(&db).await;
        for table in &created {
            let mut old = Client::join(&table.seats["ada"], 0).await.unwrap();
            match next(&mut old).await {
                ServerMessage::Error { code, .. } => assert_eq!(code, ErrorCode::Unauthorized),
                other => panic!("a deleted table's link opens nothing: {other:?}"),
            }
        }
    }
    server.shutdown().await.unwrap();
}

/// `--keep-finished-seconds 0` keeps finished tables for ever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_keeping_time_finished_tables_stay() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let mut c = config(&db);
    c.limits.keep_finished_seconds = 0;
    let server = server::start(c).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    let mut gm = welcomed(&created.gm).await;
    gm.send(&ClientMessage::Manage { id: "c1".into(), action: ManageAction::Close {} }).await.unwrap();
    loop {
        if let ServerMessage::Revoked {} = next(&mut gm).await {
            break;
        }
    }
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(stored(&db).await, 1, "the closed table is kept");
    server.shutdown().await.unwrap();
}
