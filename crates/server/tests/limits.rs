//! The server's limits and hygiene on a real server: rate limits, the most tables and
//! connections, idle tables leaving memory and coming back (finished ones at once), the
//! WebSocket Origin check, and
//! HTTPS served directly with rustls.

use std::sync::Arc;
use std::time::Duration;

use server::Running;
use server::client::Client;
use server::protocol::{ClientMessage, Controller, CreateTable, ErrorCode, ServerMessage};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

mod common;
use common::{config, duel, next, welcomed};

/// A raw HTTP/1.1 exchange over plain TCP: the status line and headers, then the body.
async fn raw_http(addr: std::net::SocketAddr, request: &str) -> String {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut out)).await.unwrap().unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_sending_too_fast_is_told_and_its_extra_messages_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.messages_per_second = 1;
    c.limits.burst = 3;
    let server = server::start(c).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    let mut spectator = welcomed(&created.spectator).await;
    for _ in 0..6 {
        spectator.send(&ClientMessage::Ping {}).await.unwrap();
    }
    let mut pongs = 0;
    let mut limited = 0;
    while pongs + limited < 6 {
        match next(&mut spectator).await {
            ServerMessage::Pong {} => pongs += 1,
            ServerMessage::Error { code: ErrorCode::RateLimited, .. } => limited += 1,
            ServerMessage::Seats { .. } => {}
            other => panic!("{other:?}"),
        }
    }
    assert!(pongs <= 3 && limited >= 3, "{pongs} answered, {limited} limited");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_holds_at_most_its_limit_of_tables_and_connections() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.max_tables = 2;
    c.limits.max_connections = 2;
    let server = server::start(c).await.unwrap();
    let first = server.create_table(duel()).await.unwrap();
    server.create_table(duel()).await.unwrap();
    let full = server.create_table(duel()).await.unwrap_err();
    assert_eq!(full.code, ErrorCode::Full);
    assert!(full.message.contains("2 open tables"), "{}", full.message);
    let _a = welcomed(&first.seats["ada"]).await;
    let _b = welcomed(&first.seats["gm"]).await;
    let refused = Client::join(&first.spectator, 0).await;
    assert!(refused.is_err(), "a third connection is refused at the upgrade");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_table_leaves_memory_and_comes_back_when_a_client_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.idle_seconds = 1;
    let server = server::start(c).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    let mut ada = welcomed(&created.seats["ada"]).await;
    ada.send(&ClientMessage::Ping {}).await.unwrap();
    while next(&mut ada).await != (ServerMessage::Pong {}) {}
    ada.close().await;
    assert!(unloaded_within(&server, Duration::from_secs(10)).await, "the idle table left memory");
    let back = welcomed(&created.seats["ada"]).await;
    assert_eq!(loaded(&server).await, 1, "and came back for its client");
    back.close().await;
    server.shutdown().await.unwrap();
}

/// The tables the server holds in memory, from its `/metrics`.
async fn loaded(server: &Running) -> i64 {
    let body = raw_http(server.addr, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await;
    body.lines()
        .find(|l| l.starts_with("facedown_tables_loaded "))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<i64>().ok())
        .unwrap()
}

/// Whether the server holds no table in memory within `limit` (polled every 100 ms).
async fn unloaded_within(server: &Running, limit: Duration) -> bool {
    let until = tokio::time::Instant::now() + limit;
    while loaded(server).await != 0 {
        if tokio::time::Instant::now() >= until {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_table_nobody_is_connected_to_leaves_memory_at_once() {
    // Two bots play the duel to its end while a spectator watches; the idle limit is five
    // minutes, and once the spectator leaves the finished table leaves memory long before.
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.idle_seconds = 300;
    let server = server::start(c).await.unwrap();
    let bots = [("ada", "greedy"), ("gm", "random")]
        .into_iter()
        .map(|(seat, bot)| (seat.to_owned(), Controller::Bot { bot: bot.into() }))
        .collect();
    let created = server.create_table(CreateTable { seats: bots, ..duel() }).await.unwrap();
    let over = |m: &ServerMessage| match m {
        ServerMessage::Welcome { change, .. } | ServerMessage::Update { change } => change.over,
        _ => false,
    };
    let mut watcher = Client::join(&created.spectator, 0).await.unwrap();
    while !over(&next(&mut watcher).await) {}
    assert_eq!(loaded(&server).await, 1, "a watched table stays in memory");
    watcher.close().await;
    assert!(
        unloaded_within(&server, Duration::from_secs(20)).await,
        "the finished table left memory within 20 s, not after the idle limit"
    );
    // Its spectators' link loads it again, finished.
    let mut watcher = Client::join(&created.spectator, 0).await.unwrap();
    assert!(over(&next(&mut watcher).await), "the game is over");
    assert_eq!(loaded(&server).await, 1);
    watcher.close().await;
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_websocket_from_another_origin_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.public_url = Some("https://games.example.org".into());
    let server = server::start(c).await.unwrap();
    let upgrade = |origin: &str| {
        format!(
            "GET /ws HTTP/1.1\r\nHost: games.example.org\r\nOrigin: {origin}\r\nConnection: Upgrade\r\n\
             Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        )
    };
    let mut s = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    s.write_all(upgrade("https://evil.example").as_bytes()).await.unwrap();
    let mut evil = String::new();
    let mut buf = [0u8; 4096];
    while !evil.contains("--public-url") {
        let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut buf)).await.unwrap().unwrap();
        assert!(n > 0, "the refusal comes whole: {evil}");
        evil.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    assert!(evil.starts_with("HTTP/1.1 403"), "{evil}");
    assert!(evil.contains("--public-url"), "{evil}");
    let mut s = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    s.write_all(upgrade("https://games.example.org").as_bytes()).await.unwrap();
    let mut head = [0u8; 12];
    s.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 101");
    drop(s);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_is_served_directly_with_the_given_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let (cert_pem, key_pem) = (cert.cert.pem(), cert.signing_key.serialize_pem());
    std::fs::write(dir.path().join("cert.pem"), &cert_pem).unwrap();
    std::fs::write(dir.path().join("key.pem"), &key_pem).unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.tls = Some(server::Tls { cert: dir.path().join("cert.pem"), key: dir.path().join("key.pem") });
    let server: Running = server::start(c).await.unwrap();
    assert!(server.base_url.starts_with("https://"), "{}", server.base_url);

    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert.cert.der().clone()).unwrap();
    let tls = rustls::ClientConfig::builder().with_root_certificates(roots).with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(tls));
    let tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let mut stream = connector.connect(name, tcp).await.unwrap();
    stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut out)).await.unwrap();
    let text = String::from_utf8_lossy(&out);
    assert!(text.starts_with("HTTP/1.1 200") && text.ends_with("ok\n"), "{text}");

    let mut bad = config(&dir.path().join("s2.db"));
    bad.tls = Some(server::Tls { cert: dir.path().join("missing.pem"), key: dir.path().join("key.pem") });
    let err = server::start(bad).await.err().expect("a missing certificate is refused");
    assert!(err.to_string().contains("missing.pem"), "{err}");
    server.shutdown().await.unwrap();
}
