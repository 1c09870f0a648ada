//! The server's log (issue 33, §3): what it records of a server's life (start, the address it
//! listens on, tables created and loaded, refusals by code and limits hit, summarized rather
//! than a line each, stop), and that it never records a token or the admin secret, even at
//! the finest level. Its own test binary: the log is recorded by a process-wide subscriber.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use server::Config;
use server::client::Client;
use server::protocol::{ClientMessage, CreateTable, ServerMessage, VERSION, parse_link};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

mod common;
use common::next;

/// What the subscriber writes, kept.
#[derive(Clone, Default)]
struct Kept(Arc<Mutex<Vec<u8>>>);

impl Write for Kept {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

const SECRET: &str = "correct-horse-battery-staple";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_tells_a_servers_life_and_refusals_in_sums_and_never_a_token() {
    let kept = Kept::default();
    let writer = kept.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .init();
    let dir = tempfile::tempdir().unwrap();
    let mut c = Config::new(dir.path().join("s.db"));
    c.listen = "127.0.0.1:0".parse().unwrap();
    c.admin_secret = Some(SECRET.into());
    c.limits.messages_per_second = 1;
    c.limits.burst = 2;
    c.limits.summary_every = Duration::from_millis(300);
    let server = server::start(c.clone()).await.unwrap();

    // A table created over HTTP, with the secret; another by the host.
    let body = r#"{"system": "iron-triangle", "setup": {"example": "duel"}}"#;
    let request = format!(
        "POST /api/tables HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAuthorization: Bearer {SECRET}\r\n\
         Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
        server.addr,
        body.len()
    );
    let mut s = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    let created = server.create_table(CreateTable::example("iron-triangle", "duel")).await.unwrap();
    let mut tokens: Vec<String> = [&created.gm, &created.spectator]
        .into_iter()
        .chain(created.seats.values())
        .map(|l| parse_link(l).unwrap().2)
        .collect();
    let first_body = answer.split("\r\n\r\n").nth(1).unwrap();
    let first: server::protocol::CreatedTable = serde_json::from_str(first_body).unwrap();
    tokens.extend(
        [&first.gm, &first.spectator]
            .into_iter()
            .chain(first.seats.values())
            .map(|l| parse_link(l).unwrap().2),
    );

    // A seat floods; a stranger guesses a token.
    let mut ada = Client::join(&created.seats["ada"], 0).await.unwrap();
    assert!(matches!(next(&mut ada).await, ServerMessage::Welcome { .. }));
    for _ in 0..6 {
        ada.send(&ClientMessage::Ping {}).await.unwrap();
    }
    let mut guess = Client::connect(&server::client::ws_url(&server.base_url)).await.unwrap();
    let wrong = "5eed".repeat(8);
    guess
        .send(&ClientMessage::Hello {
            v: VERSION,
            table: created.table.clone(),
            token: wrong.clone(),
            since: 0,
        })
        .await
        .unwrap();
    assert!(matches!(next(&mut guess).await, ServerMessage::Error { .. }));
    tokio::time::sleep(Duration::from_millis(700)).await;
    ada.close().await;
    server.shutdown().await.unwrap();

    // Served again: the table loads from the store when its link comes back.
    let server = server::start(c).await.unwrap();
    let (_, table, token) = parse_link(&created.spectator).unwrap();
    let mut back = Client::join(&server::protocol::link(&server.base_url, &table, &token), 0).await.unwrap();
    assert!(matches!(next(&mut back).await, ServerMessage::Welcome { .. }));
    back.close().await;
    server.shutdown().await.unwrap();

    let log = String::from_utf8(kept.0.lock().unwrap().clone()).unwrap();
    for said in [
        "listening on 127.0.0.1:",
        &format!("table {} created", first.table),
        &format!("table {} created", created.table),
        "refusals in the last",
        "rate_limited",
        "unauthorized 1",
        "limits hit in the last",
        &format!("table {} loaded", created.table),
        "stopped",
    ] {
        assert!(log.contains(said), "the log says {said:?}:\n{log}");
    }
    let sums = log.matches("refusals in the last").count();
    assert!((1..=2).contains(&sums), "one summary a period, not a line a refusal:\n{log}");
    for token in tokens.iter().chain([&wrong, &SECRET.to_owned()]) {
        assert!(!log.contains(token.as_str()), "a token or the secret in the log:\n{log}");
    }
}
