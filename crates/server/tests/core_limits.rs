//! Attack tests of the table-side bounds (issue 33 §1) on a real server: many creations at
//! once never overshoot the tables cap.

use std::path::Path;

use futures_util::future::join_all;
use server::Config;
use server::protocol::{CreateTable, ErrorCode};

fn config(db: &Path) -> Config {
    let mut c = Config::new(db.to_path_buf());
    c.listen = "127.0.0.1:0".parse().unwrap();
    c
}

fn duel() -> CreateTable {
    CreateTable::example("iron-triangle", "duel")
}

/// Issue 33 §1: 10,004 tables of 10,000 — creations at once each passed the check before any
/// was counted. Forty at once against a cap of three: exactly three are created, every other
/// is refused as `full`, and the server still answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tables_cap_is_never_overshot_by_creations_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.max_tables = 3;
    let server = server::start(c).await.unwrap();
    let results = join_all((0..40).map(|_| server.create_table(duel()))).await;
    let created = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!(created, 3, "created {created} tables against a cap of 3");
    for refused in results.iter().filter_map(|r| r.as_ref().err()) {
        assert_eq!(refused.code, ErrorCode::Full, "{}", refused.message);
    }
    // Still answering, and still full.
    let again = server.create_table(duel()).await.unwrap_err();
    assert_eq!(again.code, ErrorCode::Full);
    server.shutdown().await.unwrap();
}
