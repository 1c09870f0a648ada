//! Attack tests of the table-side bounds (issue 33 §1, §2) on a real server: many creations at
//! once never overshoot the tables cap, and a seat's `undo` is told that only the GM may undo.

use std::time::Duration;

use futures_util::future::join_all;
use server::client::Client;
use server::protocol::{ClientMessage, ErrorCode, ServerMessage};

mod common;
use common::{config, duel};

/// The next message that is not a seats notice or an update, within 10 s.
async fn answer(client: &mut Client) -> ServerMessage {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), client.next())
            .await
            .expect("an answer in time")
            .unwrap();
        match m {
            ServerMessage::Seats { .. } | ServerMessage::Update { .. } | ServerMessage::Sealed { .. } => {}
            m => return m,
        }
    }
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

/// Issue 33 §2: a player's `undo` was answered "only the GM may force a seat's decision". It
/// is refused with the rule it breaks: only the GM may undo.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_players_undo_is_told_only_the_gm_may_undo() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(config(&dir.path().join("s.db"))).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    let mut ada = Client::join(&created.seats["ada"], 0).await.unwrap();
    match answer(&mut ada).await {
        ServerMessage::Welcome { .. } => {}
        other => panic!("expected a welcome, got {other:?}"),
    }
    ada.send(&ClientMessage::Undo { id: "c1".into() }).await.unwrap();
    match answer(&mut ada).await {
        ServerMessage::Error { id, message, .. } => {
            assert_eq!(id.as_deref(), Some("c1"));
            assert!(message.contains("only the GM may undo"), "{message}");
            assert!(!message.contains("force"), "{message}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    server.shutdown().await.unwrap();
}

/// Issue 33 §1: a GM link closes its table. Every connection is told `revoked` and closed (the
/// GM's after its ack), no link opens the table again, and it counts no longer towards the
/// limit: at a cap of one table, another can be created at once. A seat cannot close it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gm_link_closes_its_table_for_good_and_frees_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.max_tables = 1;
    let server = server::start(c).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    assert_eq!(server.create_table(duel()).await.unwrap_err().code, ErrorCode::Full);
    let mut ada = Client::join(&created.seats["ada"], 0).await.unwrap();
    let mut gm = Client::join(&created.gm, 0).await.unwrap();
    for c in [&mut ada, &mut gm] {
        assert!(matches!(answer(c).await, ServerMessage::Welcome { .. }));
    }
    let close = server::protocol::ManageAction::Close {};
    ada.send(&ClientMessage::Manage { id: "c1".into(), action: close.clone() }).await.unwrap();
    match answer(&mut ada).await {
        ServerMessage::Error { code, .. } => assert_eq!(code, ErrorCode::Forbidden),
        other => panic!("a seat cannot close the table: {other:?}"),
    }
    gm.send(&ClientMessage::Manage { id: "c1".into(), action: close }).await.unwrap();
    match answer(&mut gm).await {
        ServerMessage::Ack { id, .. } => assert_eq!(id, "c1"),
        other => panic!("expected the ack, got {other:?}"),
    }
    assert!(matches!(answer(&mut gm).await, ServerMessage::Revoked {}));
    assert!(matches!(answer(&mut ada).await, ServerMessage::Revoked {}));
    for link in [&created.seats["ada"], &created.gm, &created.spectator] {
        let mut again = Client::join(link, 0).await.unwrap();
        match answer(&mut again).await {
            ServerMessage::Error { code, .. } => assert_eq!(code, ErrorCode::Unauthorized),
            other => panic!("a closed table's link opens nothing: {other:?}"),
        }
    }
    server.create_table(duel()).await.expect("the closed table's place is free");
    server.shutdown().await.unwrap();
}

/// Issue 33 §1: 10,004 unplayed tables filled the limit for good. A table nobody joined
/// within `Limits::unjoined_seconds` closes (its links open nothing) and frees its place; one
/// a seat joined stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_nobody_joined_expires_and_frees_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.max_tables = 2;
    c.limits.unjoined_seconds = 1;
    let server = server::start(c).await.unwrap();
    let unplayed = server.create_table(duel()).await.unwrap();
    let played = server.create_table(duel()).await.unwrap();
    assert_eq!(server.create_table(duel()).await.unwrap_err().code, ErrorCode::Full);
    let mut ada = Client::join(&played.seats["ada"], 0).await.unwrap();
    assert!(matches!(answer(&mut ada).await, ServerMessage::Welcome { .. }));
    drop(ada);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    server.create_table(duel()).await.expect("the unplayed table's place is free");
    assert_eq!(server.create_table(duel()).await.unwrap_err().code, ErrorCode::Full, "the played one stays");
    let mut gone = Client::join(&unplayed.gm, 0).await.unwrap();
    match answer(&mut gone).await {
        ServerMessage::Error { code, .. } => assert_eq!(code, ErrorCode::Unauthorized),
        other => panic!("an expired table's link opens nothing: {other:?}"),
    }
    let mut ada = Client::join(&played.seats["ada"], 0).await.unwrap();
    assert!(matches!(answer(&mut ada).await, ServerMessage::Welcome { .. }));
    server.shutdown().await.unwrap();
}
