//! Attacks on the server's edge, as a stranger would try them from another machine (here, from
//! other loopback addresses: 127.0.0.2 and on), each bounded in count and time: half-open
//! connections, oversized frames, floods that reconnect per burst, tunnels, cross-site and DNS
//! rebinding requests, and answers that would tell which tables exist (issue 33, §1 and §2).
//! Each checks that the server stays up, that other clients are unaffected, and that the
//! attacker gets a clear error.

use std::net::SocketAddr;
use std::time::Duration;

use server::Running;
use server::client::Client;
use server::protocol::{ClientMessage, ErrorCode, ServerMessage, VERSION, parse_link};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

mod common;
use common::{config, duel, next, welcomed};

/// A TCP connection to `to` from the loopback address `127.0.0.{from}`.
async fn from(from: u8, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::from(([127, 0, 0, from], 0))).unwrap();
    socket.connect(to).await.unwrap()
}

/// Everything the server sends on `s` until it closes it (or 10 s pass: a failure), or the
/// error that ended it (a reset: the server closed while what was sent to it was unread).
async fn read_outcome(s: &mut TcpStream) -> Result<String, std::io::ErrorKind> {
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut out))
        .await
        .expect("closed by the server in time")
        .map_err(|e| e.kind())?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Everything the server sends on `s` until it closes it.
async fn read_to_close(s: &mut TcpStream) -> String {
    read_outcome(s).await.expect("closed, not reset")
}

/// One HTTP answer on `s`: its head and its body (by its Content-Length), within 10 s.
async fn read_answer(s: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    let whole = |out: &[u8]| {
        let text = String::from_utf8_lossy(out);
        let Some((head, body)) = text.split_once("\r\n\r\n") else { return false };
        let length = head
            .lines()
            .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|n| n.trim().to_owned()))
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(0);
        body.len() >= length
    };
    while !whole(&out) {
        let n =
            tokio::time::timeout(Duration::from_secs(10), s.read(&mut buf)).await.expect("an answer in time");
        match n {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A raw HTTP/1.1 exchange from `127.0.0.{source}`: the answer.
async fn raw_http(source: u8, addr: SocketAddr, request: &str) -> String {
    let mut s = from(source, addr).await;
    s.write_all(request.as_bytes()).await.unwrap();
    read_answer(&mut s).await
}

/// `POST /api/tables` with `headers` (each ending in CRLF) and a body.
fn post_tables(host: &str, headers: &str, body: &str) -> String {
    format!(
        "POST /api/tables HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

const DUEL: &str = r#"{"system": "iron-triangle", "setup": {"example": "duel"}}"#;

/// The upgrade request of a WebSocket.
fn upgrade(host: &str, origin: Option<&str>) -> String {
    let origin = origin.map(|o| format!("Origin: {o}\r\n")).unwrap_or_default();
    format!(
        "GET /ws HTTP/1.1\r\nHost: {host}\r\n{origin}Connection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    )
}

/// A WebSocket opened by hand from `127.0.0.{source}`: the socket, past the 101 answer.
async fn raw_websocket(source: u8, addr: SocketAddr) -> TcpStream {
    let mut s = from(source, addr).await;
    s.write_all(upgrade(&addr.to_string(), None).as_bytes()).await.unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut byte).await.unwrap();
        head.push(byte[0]);
    }
    assert!(head.starts_with(b"HTTP/1.1 101"), "{}", String::from_utf8_lossy(&head));
    s
}

/// A client frame's header (FIN, masked) announcing `len` bytes of `opcode`, with a zero mask.
fn frame_header(opcode: u8, len: u64) -> Vec<u8> {
    let mut h = vec![0x80 | opcode];
    match len {
        0..=125 => h.push(0x80 | len as u8),
        126..=0xffff => {
            h.push(0x80 | 126);
            h.extend_from_slice(&(len as u16).to_be_bytes());
        }
        _ => {
            h.push(0x80 | 127);
            h.extend_from_slice(&len.to_be_bytes());
        }
    }
    h.extend_from_slice(&[0, 0, 0, 0]);
    h
}

/// A whole client frame (zero mask: the payload as it is).
fn frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = frame_header(opcode, payload.len() as u64);
    f.extend_from_slice(payload);
    f
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_open_connections_are_capped_per_address_and_closed_in_time() {
    // One address opens many more sockets than it may, some sending half a request, some a
    // piece of HTTP/2's preface, others nothing. The server refuses those over the cap at once, closes the
    // rest within the request-head timeout, and a player from another address plays on.
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.max_connections_per_address = 8;
    c.limits.head_timeout = Duration::from_millis(800);
    let server = server::start(c).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    let mut held = Vec::new();
    let mut refused = 0;
    for i in 0..40 {
        let mut s = from(2, server.addr).await;
        match i % 3 {
            0 => {
                let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ").await;
            }
            // A piece of HTTP/2's preface: not yet HTTP/1 nor HTTP/2.
            1 => {
                let _ = s.write_all(b"PRI * HTTP/2.0\r\n").await;
            }
            _ => {}
        }
        held.push(s);
    }
    let started = std::time::Instant::now();
    let (mut told, mut closed) = (0, 0);
    for s in &mut held {
        match read_outcome(s).await {
            Ok(answer) if answer.starts_with("HTTP/1.1 503") => {
                assert!(
                    answer.contains(r#""code":"full""#) && answer.contains("from one address"),
                    "{answer}"
                );
                refused += 1;
                told += 1;
            }
            // Closed, at most with hyper's 408 for the half-sent head.
            Ok(answer) => {
                assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 408"), "{answer}");
                closed += 1;
            }
            // Refused while its half request was unread: the close resets it.
            Err(std::io::ErrorKind::ConnectionReset) => refused += 1,
            Err(e) => panic!("{e:?}"),
        }
    }
    assert_eq!((refused, closed), (32, 8), "8 held, the rest refused at once");
    assert!(told > 0, "the refused are told why");
    assert!(started.elapsed() < Duration::from_secs(5), "closed within the head timeout");
    // Meanwhile and after, another address plays.
    let mut ada = welcomed(&created.seats["ada"]).await;
    ada.send(&ClientMessage::Ping {}).await.unwrap();
    while next(&mut ada).await != (ServerMessage::Pong {}) {}
    // Its places are free again.
    let again = raw_http(2, server.addr, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").await;
    assert!(again.ends_with("ok\n"), "{again}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http2_connection_that_answers_no_ping_is_closed() {
    // HTTP/2's whole preface, then silence: past the head timeout, held by HTTP/2 itself.
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.idle_timeout = Duration::from_millis(600);
    let server = server::start(c).await.unwrap();
    let mut s = from(2, server.addr).await;
    s.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").await.unwrap();
    // An empty SETTINGS frame: the handshake is done.
    s.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0]).await.unwrap();
    let started = std::time::Instant::now();
    let _ = read_outcome(&mut s).await;
    assert!(started.elapsed() < Duration::from_secs(5), "closed once its ping went unanswered");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raw_tcp_connections_count_towards_the_connection_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.max_connections = 3;
    let server = server::start(c).await.unwrap();
    // Three sockets from three addresses that send nothing hold every place.
    let _held = [from(2, server.addr).await, from(3, server.addr).await, from(4, server.addr).await];
    tokio::time::sleep(Duration::from_millis(200)).await;
    let answer = raw_http(5, server.addr, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").await;
    assert!(answer.starts_with("HTTP/1.1 503") && answer.contains("limit of 3 connections"), "{answer}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_open_files_limit_is_raised_and_sizes_the_connection_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.max_connections = usize::MAX;
    // The soft limit lowered first, as a distribution's default of 1,024 would leave it.
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit), 0);
        let lowered = libc::rlimit { rlim_cur: limit.rlim_max.min(1024), rlim_max: limit.rlim_max };
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &lowered), 0);
    }
    let server = server::start(c).await.unwrap();
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap();
    let line = limits.lines().find(|l| l.starts_with("Max open files")).unwrap();
    let numbers: Vec<&str> = line.split_whitespace().skip(3).take(2).collect();
    assert_eq!(numbers[0], numbers[1], "the soft limit is raised to the hard one: {line}");
    if let Ok(files) = numbers[0].parse::<usize>() {
        assert!(server.max_connections < files, "room is left for the database: {line}");
        assert!(server.max_connections >= files * 8 / 10, "{} of {line}", server.max_connections);
    }
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_websocket_that_says_no_hello_or_nothing_at_all_is_closed_with_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.hello_timeout = Duration::from_millis(500);
    c.limits.idle_timeout = Duration::from_millis(600);
    let server = server::start(c).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    // No hello.
    let mut silent = raw_websocket(2, server.addr).await;
    let said = read_to_close(&mut silent).await;
    assert!(said.contains(r#""code":"timeout""#) && said.contains("no hello"), "{said}");
    // A hello, then silence, the server's ping unanswered.
    let mut quiet = raw_websocket(3, server.addr).await;
    let (_, table, token) = parse_link(&created.spectator).unwrap();
    let hello = serde_json::to_vec(&ClientMessage::Hello { v: VERSION, table, token, since: 0 }).unwrap();
    quiet.write_all(&frame(0x1, &hello)).await.unwrap();
    let said = read_to_close(&mut quiet).await;
    assert!(said.contains("welcome"), "{said}");
    assert!(said.contains(r#""code":"timeout""#) && said.contains("nothing received"), "{said}");
    // A client that answers the pings (as browsers and server::client do) stays.
    let mut ada = welcomed(&created.seats["ada"]).await;
    let until = tokio::time::Instant::now() + Duration::from_millis(1500);
    loop {
        match tokio::time::timeout_at(until, ada.next()).await {
            Err(_) => break,
            Ok(Ok(ServerMessage::Seats { .. })) => {}
            other => panic!("nothing but the seats and pings, answered: {other:?}"),
        }
    }
    ada.send(&ClientMessage::Ping {}).await.unwrap();
    while next(&mut ada).await != (ServerMessage::Pong {}) {}
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_over_the_message_limit_is_refused_before_it_is_buffered() {
    // A slow client announces a 1 MiB frame and sends a little of it: the server must not
    // wait to buffer it (300 such spectators once held 344 MiB), but refuse it at its header.
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(config(&dir.path().join("s.db"))).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    let mut s = raw_websocket(2, server.addr).await;
    // Its header alone: the payload never comes (what comes after the close would reset it).
    s.write_all(&frame_header(0x1, 1 << 20)).await.unwrap();
    let said = read_to_close(&mut s).await;
    assert!(said.contains(r#""code":"too_large""#) && said.contains("65536 bytes"), "{said}");
    // Just over the message limit is refused alike.
    let mut s = raw_websocket(2, server.addr).await;
    s.write_all(&frame_header(0x2, 64 * 1024 + 1)).await.unwrap();
    let said = read_to_close(&mut s).await;
    assert!(said.contains(r#""code":"too_large""#), "{said}");
    let _ada = welcomed(&created.seats["ada"]).await;
    server.shutdown().await.unwrap();
}

/// Sends `n` pings on `client` and counts the answers: (pongs, rate_limited).
async fn pings(client: &mut Client, n: usize) -> (usize, usize) {
    for _ in 0..n {
        client.send(&ClientMessage::Ping {}).await.unwrap();
    }
    let (mut pongs, mut limited) = (0, 0);
    while pongs + limited < n {
        match next(client).await {
            ServerMessage::Pong {} => pongs += 1,
            ServerMessage::Error { code: ErrorCode::RateLimited, .. } => limited += 1,
            ServerMessage::Seats { .. } => {}
            other => panic!("{other:?}"),
        }
    }
    (pongs, limited)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconnecting_per_burst_does_not_refill_a_links_rate() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.messages_per_second = 1;
    c.limits.burst = 5;
    let server = server::start(c).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    let mut answered = 0;
    for _ in 0..3 {
        let mut spectator = welcomed(&created.spectator).await;
        answered += pings(&mut spectator, 5).await.0;
        spectator.close().await;
    }
    // The hellos count too: 3 hellos and 15 pings, of which at most the burst (and the second
    // or two of refill) are answered.
    assert!(answered <= 7, "{answered} of 15 answered");
    // Another link of the table is its own.
    let mut ada = welcomed(&created.seats["ada"]).await;
    assert_eq!(pings(&mut ada, 3).await, (3, 0));
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pings_and_binary_frames_count_towards_the_rate_and_a_flood_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.messages_per_second = 1;
    c.limits.burst = 4;
    let server = server::start(c).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    let mut s = raw_websocket(2, server.addr).await;
    let (_, table, token) = parse_link(&created.spectator).unwrap();
    let hello = serde_json::to_vec(&ClientMessage::Hello { v: VERSION, table, token, since: 0 }).unwrap();
    s.write_all(&frame(0x1, &hello)).await.unwrap();
    // WebSocket pings and binary frames, far over the rate: each is counted; the connection is
    // told, then closed once the flood goes on.
    // Exactly as many as it takes: the burst of 4, then 65 over the rate (64 are answered);
    // frames after the close would reset the connection.
    let mut flood = Vec::new();
    for i in 0..69 {
        flood.extend(frame(if i % 2 == 0 { 0x9 } else { 0x2 }, b"x"));
    }
    let _ = s.write_all(&flood).await;
    let said = read_to_close(&mut s).await;
    assert!(said.contains(r#""code":"rate_limited""#), "{said}");
    assert!(said.contains("the connection is closed"), "{said}");
    let _ada = welcomed(&created.seats["ada"]).await;
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_is_limited_over_all_its_links_and_connections() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.messages_per_second_per_address = 1;
    c.limits.burst_per_address = 8;
    let server = server::start(c).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    // Two links of one table from this one address (127.0.0.1): 2 hellos and 10 pings.
    let mut ada = welcomed(&created.seats["ada"]).await;
    let mut gm = welcomed(&created.seats["gm"]).await;
    let (a, _) = pings(&mut ada, 5).await;
    let (g, _) = pings(&mut gm, 5).await;
    assert!(a + g <= 8, "{a} + {g} answered");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_creation_is_rate_limited_per_address() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.tables_per_minute_per_address = 3;
    let server = server::start(c).await.unwrap();
    let host = server.addr.to_string();
    let json = "Content-Type: application/json\r\n";
    for _ in 0..3 {
        let answer = raw_http(1, server.addr, &post_tables(&host, json, DUEL)).await;
        assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    }
    let answer = raw_http(1, server.addr, &post_tables(&host, json, DUEL)).await;
    assert!(answer.starts_with("HTTP/1.1 429"), "{answer}");
    assert!(answer.contains(r#""code":"rate_limited""#) && answer.contains("3 tables a minute"), "{answer}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_an_admin_secret_a_request_relayed_by_a_tunnel_needs_it() {
    // `ssh -R` or socat relays a stranger's request from loopback, with no proxy header.
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.admin_secret = Some("correct-horse-battery".into());
    c.public_url = Some("https://dice.example.org".into());
    let server = server::start(c).await.unwrap();
    let json = "Content-Type: application/json\r\n";
    let answer = raw_http(1, server.addr, &post_tables("dice.example.org", json, DUEL)).await;
    assert!(answer.starts_with("HTTP/1.1 401") && answer.contains("admin secret"), "{answer}");
    let metrics = raw_http(1, server.addr, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").await;
    assert!(metrics.starts_with("HTTP/1.1 401"), "/metrics is the host's alone: {metrics}");
    let shown = "Content-Type: application/json\r\nAuthorization: Bearer correct-horse-battery\r\n";
    let answer = raw_http(1, server.addr, &post_tables("dice.example.org", shown, DUEL)).await;
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    let metrics = raw_http(
        1,
        server.addr,
        "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer correct-horse-battery\r\n\r\n",
    )
    .await;
    assert!(metrics.starts_with("HTTP/1.1 200") && metrics.contains("facedown_tables_open"), "{metrics}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cross_site_or_rebinding_request_cannot_create_a_table_or_open_a_websocket() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(config(&dir.path().join("s.db"))).await.unwrap();
    let host = server.addr.to_string();
    let own = format!("http://{host}");
    // A form or a text/plain fetch from another site (a "simple" request, no preflight).
    let plain = format!("Content-Type: text/plain\r\nOrigin: {own}\r\n");
    let answer = raw_http(1, server.addr, &post_tables(&host, &plain, DUEL)).await;
    assert!(answer.starts_with("HTTP/1.1 415") && answer.contains("application/json"), "{answer}");
    for origin in ["null", "https://evil.example"] {
        let h = format!("Content-Type: application/json\r\nOrigin: {origin}\r\n");
        let answer = raw_http(1, server.addr, &post_tables(&host, &h, DUEL)).await;
        assert!(answer.starts_with("HTTP/1.1 403") && answer.contains(r#""code":"forbidden""#), "{answer}");
    }
    // DNS rebinding: evil.example now resolves to this server; the page is same-origin with
    // itself and names its own domain.
    let evil = format!("evil.example:{}", server.addr.port());
    let h = format!("Content-Type: application/json\r\nOrigin: http://{evil}\r\n");
    let answer = raw_http(1, server.addr, &post_tables(&evil, &h, DUEL)).await;
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    let answer = raw_http(1, server.addr, &upgrade(&evil, Some(&format!("http://{evil}")))).await;
    assert!(answer.starts_with("HTTP/1.1 403") && answer.contains("--public-url"), "{answer}");
    // The server's own page still may.
    let h = format!("Content-Type: application/json\r\nOrigin: {own}\r\n");
    let answer = raw_http(1, server.addr, &post_tables(&host, &h, DUEL)).await;
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    let mut s = from(1, server.addr).await;
    s.write_all(upgrade(&host, Some(&own)).as_bytes()).await.unwrap();
    let mut head = [0u8; 12];
    s.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 101");
    server.shutdown().await.unwrap();
}

/// The error a hello for `table` with `token` gets.
async fn hello_refused(server: &Running, table: &str, token: &str) -> (ErrorCode, String) {
    let mut c = Client::connect(&server::client::ws_url(&server.base_url)).await.unwrap();
    let hello = ClientMessage::Hello { v: VERSION, table: table.into(), token: token.into(), since: 0 };
    c.send(&hello).await.unwrap();
    match next(&mut c).await {
        ServerMessage::Error { code, message, .. } => (code, message),
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_never_tells_whether_a_table_exists_and_plus_one_opens_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(config(&dir.path().join("s.db"))).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    let (_, table, token) = parse_link(&created.spectator).unwrap();
    let wrong = "0".repeat(32);
    let missing = hello_refused(&server, "999", &wrong).await;
    let mistyped = hello_refused(&server, &table, &wrong).await;
    assert_eq!(missing, mistyped);
    assert_eq!(missing.0, ErrorCode::Unauthorized);
    for name in [format!("+{table}"), format!("0{table}"), format!(" {table}")] {
        assert_eq!(hello_refused(&server, &name, &token).await, missing, "{name:?}");
    }
    let log = |table: &str, token: &str| {
        format!(
            "GET /api/tables/{table}/log HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
        )
    };
    let body = |answer: String| answer.split("\r\n\r\n").nth(1).unwrap_or_default().to_owned();
    let missing = raw_http(1, server.addr, &log("999", &wrong)).await;
    let mistyped = raw_http(1, server.addr, &log(&table, &wrong)).await;
    let plus = raw_http(1, server.addr, &log(&format!("%2B{table}"), &token)).await;
    assert!(missing.starts_with("HTTP/1.1 401"), "{missing}");
    assert_eq!(missing.lines().next(), mistyped.lines().next());
    assert_eq!(missing.lines().next(), plus.lines().next());
    assert_eq!(body(missing.clone()), body(mistyped));
    assert_eq!(body(missing), body(plus));
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_over_long_body_gets_the_protocols_json_error() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(config(&dir.path().join("s.db"))).await.unwrap();
    let host = server.addr.to_string();
    let long = format!(r#"{{"system": "{}"}}"#, "x".repeat(70 * 1024));
    let answer =
        raw_http(1, server.addr, &post_tables(&host, "Content-Type: application/json\r\n", &long)).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.to_ascii_lowercase().contains("content-type: application/json"), "{answer}");
    assert!(answer.contains(r#""code":"too_large""#) && answer.contains("65536 bytes"), "{answer}");
    server.shutdown().await.unwrap();
}

/// Issue 33: inside TLS, the first bytes that tell HTTP/1 from HTTP/2 come only after the
/// handshake. A client that completes it and then sends a piece of HTTP/2's preface, or
/// nothing, is closed within the request-head timeout (it was held for as long as it liked,
/// bounded only by the connection caps); an HTTP/2 client and an HTTP/1 one are served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inside_tls_a_piece_of_the_http2_preface_or_nothing_is_closed_in_time() {
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    std::fs::write(dir.path().join("cert.pem"), cert.cert.pem()).unwrap();
    std::fs::write(dir.path().join("key.pem"), cert.signing_key.serialize_pem()).unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.tls = Some(server::Tls { cert: dir.path().join("cert.pem"), key: dir.path().join("key.pem") });
    c.limits.head_timeout = Duration::from_millis(800);
    c.limits.idle_timeout = Duration::from_secs(60);
    let server = server::start(c).await.unwrap();
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert.cert.der().clone()).unwrap();
    let mut tls = rustls::ClientConfig::builder().with_root_certificates(roots).with_no_client_auth();
    tls.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    let connector = tokio_rustls::TlsConnector::from(Arc::new(tls));
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let connect = || async {
        let tcp = TcpStream::connect(server.addr).await.unwrap();
        connector.connect(name.clone(), tcp).await.unwrap()
    };
    for sent in [&b"PRI * HTTP/2.0\r\n"[..], b""] {
        let mut s = connect().await;
        assert_eq!(s.get_ref().1.alpn_protocol(), Some(&b"h2"[..]), "HTTP/2 was agreed");
        s.write_all(sent).await.unwrap();
        s.flush().await.unwrap();
        let started = std::time::Instant::now();
        let mut out = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut out))
            .await
            .expect("closed by the server in time");
        assert!(read.is_ok() || started.elapsed() < Duration::from_secs(5), "{read:?}");
        assert!(out.is_empty(), "nothing is answered: {out:?}");
        assert!(started.elapsed() < Duration::from_secs(5), "closed within the head timeout");
    }
    // An HTTP/2 client: the preface, SETTINGS, then a GET /healthz (HEADERS, literal fields
    // without indexing); the server answers with its own SETTINGS and a HEADERS frame.
    let mut s = connect().await;
    s.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").await.unwrap();
    s.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0]).await.unwrap();
    let mut block = Vec::new();
    for (name, value) in
        [(":method", "GET"), (":scheme", "https"), (":path", "/healthz"), (":authority", "localhost")]
    {
        block.push(0);
        block.push(name.len() as u8);
        block.extend_from_slice(name.as_bytes());
        block.push(value.len() as u8);
        block.extend_from_slice(value.as_bytes());
    }
    let len = block.len() as u32;
    let mut headers = vec![(len >> 16) as u8, (len >> 8) as u8, len as u8, 1, 0x5, 0, 0, 0, 1];
    headers.extend_from_slice(&block);
    s.write_all(&headers).await.unwrap();
    s.flush().await.unwrap();
    // Frames until a HEADERS frame on stream 1.
    let answered = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let mut head = [0u8; 9];
            s.read_exact(&mut head).await.unwrap();
            let len = (usize::from(head[0]) << 16) | (usize::from(head[1]) << 8) | usize::from(head[2]);
            let mut payload = vec![0u8; len];
            s.read_exact(&mut payload).await.unwrap();
            if head[3] == 1 && head[5..9] == [0, 0, 0, 1] {
                return true;
            }
        }
    })
    .await;
    assert_eq!(answered, Ok(true), "an HTTP/2 client is answered");
    server.shutdown().await.unwrap();
}
