//! Issue 33, the journal: attacks on a real server through its store. A seat that sends its
//! command with a long field the rules do not read, then takes it back, in a loop, used to grow
//! the database by 69 GB an hour until the table could never load again. Each test here is one
//! finding: the junk is refused and never kept; a table's journal is bounded with a clear
//! refusal and still loads; other tables are unaffected. Floods are bounded in count and time.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use server::client::Client;
use server::protocol::{ClientMessage, CreateTable, CreatedTable, ErrorCode, ServerMessage};
use server::{Config, Running};
use store::tables::{TableId, TableStore};

mod common;
use common::next;

fn config(db: &Path) -> Config {
    let mut c = Config::new(db.to_path_buf());
    c.listen = "127.0.0.1:0".parse().unwrap();
    c.limits.messages_per_second = 10_000;
    c.limits.burst = 10_000;
    c
}

async fn duel(server: &Running) -> CreatedTable {
    server.create_table(CreateTable::example("iron-triangle", "duel")).await.unwrap()
}

/// A seat of `table` asked a face-down question, joined, with the first answer it is offered.
async fn asked_seat(table: &CreatedTable) -> (Client, Value) {
    for link in table.seats.values() {
        let mut c = Client::join(link, 0).await.unwrap();
        let ServerMessage::Welcome { change, .. } = next(&mut c).await else { panic!("a welcome") };
        if let Some(prompt) = change.prompt.filter(|p| p["private"] == json!(true)) {
            return (c, prompt["choices"][0]["command"].clone());
        }
    }
    panic!("no seat is asked a face-down question")
}

/// The answer to the request `id`: its ack's sequence number, or its error's code and message.
async fn answer(client: &mut Client, id: &str) -> Result<u64, (ErrorCode, String)> {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match next(client).await {
                ServerMessage::Ack { id: got, seq } if got == id => return Ok(seq),
                ServerMessage::Error { id: Some(got), code, message } if got == id => {
                    return Err((code, message));
                }
                _ => continue,
            }
        }
    })
    .await
    .expect("an answer")
}

async fn send(client: &mut Client, message: ClientMessage) {
    client.send(&message).await.unwrap();
}

/// The bytes of the database and its write-ahead log.
fn db_bytes(db: &Path) -> u64 {
    let wal = db.with_extension("db-wal");
    [db.to_path_buf(), wal].iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum()
}

async fn journal(db: &Path, table: &str) -> Vec<String> {
    let store = store::SqliteTables::open(db).await.unwrap();
    let journal = store.load(TableId(table.parse().unwrap())).await.unwrap().journal;
    store.close().await;
    journal
}

/// The finding: `commit_stance` with an extra 60 KB `"junk"` field, then `take_back`, in a loop.
/// The command is refused naming the field (the rules do not read it), nothing is kept, the
/// database stays small; the command without it is kept exactly as the rules read it, and
/// another table plays on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_with_a_field_the_rules_do_not_read_is_refused_and_never_kept() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let server = server::start(config(&db)).await.unwrap();
    let attacked = duel(&server).await;
    let other = duel(&server).await;
    let (mut seat, command) = asked_seat(&attacked).await;
    let before = db_bytes(&db);
    let junk = "x".repeat(60_000);
    for i in 1..=40 {
        let mut padded = command.clone();
        let inner = padded.as_object_mut().unwrap().values_mut().next().unwrap();
        inner["junk"] = json!(junk);
        send(&mut seat, ClientMessage::Command { id: format!("j{}", 2 * i), command: padded }).await;
        let (code, message) = answer(&mut seat, &format!("j{}", 2 * i)).await.unwrap_err();
        assert_eq!(code, ErrorCode::Refused, "{message}");
        assert!(message.contains("junk`") && !message.contains('§'), "the field is named: {message}");
        send(&mut seat, ClientMessage::TakeBack { id: format!("j{}", 2 * i + 1), lost: false }).await;
        answer(&mut seat, &format!("j{}", 2 * i + 1)).await.unwrap_err();
    }
    // A field spelled otherwise than the rules read it is refused too, naming where.
    let mut odd = command.clone();
    odd.as_object_mut().unwrap().values_mut().next().unwrap()["stance"]["amount"] = json!("0");
    send(&mut seat, ClientMessage::Command { id: "j100".into(), command: odd }).await;
    let (code, message) = answer(&mut seat, "j100").await.unwrap_err();
    assert_eq!(code, ErrorCode::Refused, "{message}");
    send(&mut seat, ClientMessage::Command { id: "j101".into(), command: command.clone() }).await;
    answer(&mut seat, "j101").await.expect("the command as the rules read it is kept");
    let grown = db_bytes(&db).saturating_sub(before);
    assert!(grown < 1 << 20, "40 junk commands of 60 KB grew the database by {grown} bytes");
    let (mut other_seat, other_command) = asked_seat(&other).await;
    send(&mut other_seat, ClientMessage::Command { id: "o1".into(), command: other_command }).await;
    answer(&mut other_seat, "o1").await.expect("another table plays on");
    server.shutdown().await.unwrap();

    let kept = journal(&db, &attacked.table).await;
    assert!(kept.iter().all(|e| !e.contains("junk")), "no junk kept: {kept:?}");
    let last: Value = serde_json::from_str(kept.last().unwrap()).unwrap();
    assert_eq!(last["command"], command, "the command is kept as the rules read it");
}

/// A seat choosing and taking back in a loop fills its table's journal: past the table's bound
/// of entries (take-backs count) each request is refused with `full`, naming the bound, and
/// nothing changes; the table still loads; another table plays on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_past_its_bound_of_entries_refuses_clearly_and_still_loads() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let mut c = config(&db);
    c.limits.max_table_entries = 30;
    let server = server::start(c).await.unwrap();
    let attacked = duel(&server).await;
    let other = duel(&server).await;
    let (mut seat, command) = asked_seat(&attacked).await;
    let mut refused = None;
    for i in 1..=40 {
        let id = format!("c{}", 2 * i);
        send(&mut seat, ClientMessage::Command { id: id.clone(), command: command.clone() }).await;
        if let Err(e) = answer(&mut seat, &id).await {
            refused = Some(e);
            break;
        }
        let id = format!("c{}", 2 * i + 1);
        send(&mut seat, ClientMessage::TakeBack { id: id.clone(), lost: false }).await;
        if let Err(e) = answer(&mut seat, &id).await {
            refused = Some(e);
            break;
        }
    }
    let (code, message) = refused.expect("refused before 80 requests");
    assert_eq!(code, ErrorCode::Full, "{message}");
    assert!(message.contains("at most 30 requests"), "{message}");
    assert_eq!(journal(&db, &attacked.table).await.len(), 30, "kept up to the bound, not past it");
    let (mut other_seat, other_command) = asked_seat(&other).await;
    send(&mut other_seat, ClientMessage::Command { id: "o1".into(), command: other_command }).await;
    answer(&mut other_seat, "o1").await.expect("another table plays on");
    let base = server.base_url.clone();
    server.shutdown().await.unwrap();

    // Loaded again by a new server: the full table opens, and still refuses clearly.
    let mut c = config(&db);
    c.limits.max_table_entries = 30;
    let server = server::start(c).await.unwrap();
    let mut again = attacked.clone();
    again.seats.values_mut().for_each(|l| *l = l.replace(&base, &server.base_url));
    let (mut seat, command) = asked_seat(&again).await;
    send(&mut seat, ClientMessage::TakeBack { id: "d1".into(), lost: false }).await;
    send(&mut seat, ClientMessage::Command { id: "d2".into(), command }).await;
    let (code, _) = answer(&mut seat, "d2").await.unwrap_err();
    assert_eq!(code, ErrorCode::Full);
    server.shutdown().await.unwrap();
}

/// As above with the bound of bytes: long commands (each under the message cap) fill it and
/// are refused with `full` naming the bytes; what is kept stays under it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_past_its_bound_of_bytes_refuses_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let mut c = config(&db);
    c.limits.max_table_bytes = 8_000;
    let server = server::start(c).await.unwrap();
    let attacked = duel(&server).await;
    let (mut seat, command) = asked_seat(&attacked).await;
    let mut refused = None;
    for i in 1..=200 {
        let id = format!("b{i}");
        let message = if i % 2 == 1 {
            ClientMessage::Command { id: id.clone(), command: command.clone() }
        } else {
            ClientMessage::TakeBack { id: id.clone(), lost: false }
        };
        send(&mut seat, message).await;
        if let Err(e) = answer(&mut seat, &id).await {
            refused = Some(e);
            break;
        }
    }
    let (code, message) = refused.expect("refused before 200 requests");
    assert_eq!(code, ErrorCode::Full, "{message}");
    assert!(message.contains("at most 8000 bytes"), "{message}");
    server.shutdown().await.unwrap();
    let bytes: usize = journal(&db, &attacked.table).await.iter().map(String::len).sum();
    assert!(bytes <= 8_000, "{bytes} bytes kept");
}

/// A raw HTTP/1.1 exchange over plain TCP: the status line and headers, then the body.
async fn raw_http(addr: std::net::SocketAddr, request: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut out)).await.unwrap().unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

/// The tables the server holds in memory, from its `/metrics`.
async fn loaded(server: &Running) -> i64 {
    let body = raw_http(server.addr, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await;
    body.lines()
        .find(|l| l.starts_with("facedown_tables_loaded "))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<i64>().ok())
        .unwrap()
}

/// `table`'s links on `server` (restarted on another port).
fn moved(table: &CreatedTable, from: &str, server: &Running) -> CreatedTable {
    let mut t = table.clone();
    t.seats.values_mut().for_each(|l| *l = l.replace(from, &server.base_url));
    t.gm = t.gm.replace(from, &server.base_url);
    t.spectator = t.spectator.replace(from, &server.base_url);
    t
}

/// The first message after a hello on `link`.
async fn hello(link: &str) -> ServerMessage {
    let mut c = Client::join(link, 0).await.unwrap();
    next(&mut c).await
}

/// The finding: a wrong token made the server load the table and replay its journal (3.9 ms
/// against 0.5 ms for a missing table). Now the token is checked against the store's token
/// index first: refused as for any link that opens nothing, and the table stays unloaded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_token_loads_no_table_and_replays_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let server = server::start(config(&db)).await.unwrap();
    let created = duel(&server).await;
    let (mut seat, command) = asked_seat(&created).await;
    send(&mut seat, ClientMessage::Command { id: "a1".into(), command }).await;
    answer(&mut seat, "a1").await.unwrap();
    let base = server.base_url.clone();
    server.shutdown().await.unwrap();

    let server = server::start(config(&db)).await.unwrap();
    let links = moved(&created, &base, &server);
    let link = links.seats.values().next().unwrap();
    let (head, _) = link.split_once('#').unwrap();
    for wrong in [format!("{head}#{}", "0".repeat(32)), format!("{head}#x")] {
        match hello(&wrong).await {
            ServerMessage::Error { code: ErrorCode::Unauthorized, message, .. } => {
                assert!(message.contains("opens no table here"), "{message}");
            }
            other => panic!("a wrong token is refused: {other:?}"),
        }
    }
    assert_eq!(loaded(&server).await, 0, "a wrong token loaded the table");
    match hello(link).await {
        ServerMessage::Welcome { .. } => {}
        other => panic!("the right token opens it: {other:?}"),
    }
    assert_eq!(loaded(&server).await, 1, "the right token loads it");
    server.shutdown().await.unwrap();
}

/// The finding: a table the store cannot give back (here its journal has a gap) was "there is no
/// table 1" for everyone, and nothing was logged. Now whoever opens it is told that it cannot be
/// loaded and why; other tables are unaffected.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_that_cannot_load_says_so_to_its_seats() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let server = server::start(config(&db)).await.unwrap();
    let broken = duel(&server).await;
    let other = duel(&server).await;
    let base = server.base_url.clone();
    server.shutdown().await.unwrap();
    {
        use sqlx::Connection;
        let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", db.display())).await.unwrap();
        sqlx::query("INSERT INTO server_journal (table_id, n, entry) VALUES (?, 7, '{}')")
            .bind(broken.table.parse::<i64>().unwrap())
            .execute(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
    }

    let server = server::start(config(&db)).await.unwrap();
    let links = moved(&broken, &base, &server);
    match hello(links.seats.values().next().unwrap()).await {
        ServerMessage::Error { code: ErrorCode::Internal, message, .. } => {
            assert!(message.contains(&format!("table {} cannot be loaded", broken.table)), "{message}");
            assert!(message.contains("missing"), "it says why: {message}");
        }
        other => panic!("the seat is told: {other:?}"),
    }
    let (mut seat, command) = asked_seat(&moved(&other, &base, &server)).await;
    send(&mut seat, ClientMessage::Command { id: "o1".into(), command }).await;
    answer(&mut seat, "o1").await.expect("another table plays on");
    server.shutdown().await.unwrap();
}

/// The finding: after a SIGTERM with active tables everything stayed in `server.db-wal`
/// (`server.db` 4 KB). A shutdown now folds the log into the database file: the file alone,
/// copied elsewhere, holds every table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shutdown_leaves_the_write_ahead_log_checkpointed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let server = server::start(config(&db)).await.unwrap();
    let created = duel(&server).await;
    let (mut seat, command) = asked_seat(&created).await;
    send(&mut seat, ClientMessage::Command { id: "a1".into(), command }).await;
    answer(&mut seat, "a1").await.unwrap();
    server.shutdown().await.unwrap();
    let wal = std::fs::metadata(db.with_extension("db-wal")).map_or(0, |m| m.len());
    assert_eq!(wal, 0, "the write-ahead log is empty after a shutdown");
    let copy = tempfile::tempdir().unwrap();
    std::fs::copy(&db, copy.path().join("s.db")).unwrap();
    let kept = journal(&copy.path().join("s.db"), &created.table).await;
    assert_eq!(kept.len(), 2, "the database file alone holds the table: {kept:?}");
}

/// Requests sent without waiting are judged together (one commit): one the rules refuse (a
/// take-back with nothing to take back) adds nothing to the journal, so it never counts
/// towards the bound — the table fills up to its bound exactly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_refused_by_the_rules_never_count_towards_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let mut c = config(&db);
    c.limits.max_table_entries = 12;
    let server = server::start(c).await.unwrap();
    let attacked = duel(&server).await;
    let (mut seat, command) = asked_seat(&attacked).await;
    // Sent two rounds at a time (their answers read before the next two: a connection that
    // reads nothing while its frames pile up is closed as stuck).
    let mut full = 0;
    for round in 0..10 {
        let mut waiting = std::collections::HashSet::new();
        for i in 2 * round..2 * round + 2 {
            for (k, message) in [
                ClientMessage::Command { id: format!("p{}", 3 * i + 1), command: command.clone() },
                ClientMessage::TakeBack { id: format!("p{}", 3 * i + 2), lost: false },
                ClientMessage::TakeBack { id: format!("p{}", 3 * i + 3), lost: false },
            ]
            .into_iter()
            .enumerate()
            {
                waiting.insert(format!("p{}", 3 * i + k + 1));
                seat.send(&message).await.unwrap();
            }
        }
        // Answers come in their own order (a batch's refusals after its acks): every one.
        while !waiting.is_empty() {
            match next(&mut seat).await {
                ServerMessage::Ack { id, .. } => assert!(waiting.remove(&id), "{id} answered once"),
                ServerMessage::Error { id: Some(id), code, .. } => {
                    assert!(waiting.remove(&id), "{id} answered once");
                    full += usize::from(code == ErrorCode::Full);
                }
                _ => {}
            }
        }
    }
    assert!(full > 0, "the bound was reached");
    server.shutdown().await.unwrap();
    assert_eq!(journal(&db, &attacked.table).await.len(), 12, "filled to the bound exactly");
}
