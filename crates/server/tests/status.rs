//! Issue 34, Lobby: `GET /api/tables/{table}/status` tells the holder of a link where the table
//! stands for it (its turn, waiting, over) and nothing more; a token that opens nothing is
//! refused as every other; the requests count towards the address's rate.

use std::net::SocketAddr;

use serde_json::Value;
use server::protocol::{ClientMessage, ManageAction};

mod common;
use common::{answer, config, duel, welcomed};

/// `GET /api/tables/{table}/status` with `token` (none: no Authorization): the status code and
/// the body as JSON.
async fn status(addr: SocketAddr, table: &str, token: Option<&str>) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
    let request =
        format!("GET /api/tables/{table}/status HTTP/1.1\r\nHost: x\r\n{auth}Connection: close\r\n\r\n");
    s.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8(out).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let code = head.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap();
    (code, serde_json::from_str(body.trim()).unwrap_or(Value::Null))
}

fn token(link: &str) -> &str {
    link.split_once('#').unwrap().1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_links_status_says_its_turn_waiting_or_over_and_nothing_more() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(config(&dir.path().join("s.db"))).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    let t = created.table.as_str();
    // The duel asks both seats at once: each one's turn; the GM link and the spectators wait.
    let (code, ada) = status(server.addr, t, Some(token(&created.seats["ada"]))).await;
    assert_eq!(code, 200, "{ada}");
    assert_eq!(ada["standing"], "your_turn", "{ada}");
    assert_eq!(ada["you"], serde_json::json!({"kind": "seat", "seat": 0}));
    assert_eq!(ada["ruleset"], "iron-triangle");
    let keys: Vec<&String> = ada.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["ruleset", "standing", "table", "you"], "nothing more: {ada}");
    for link in [&created.gm, &created.spectator] {
        let (code, body) = status(server.addr, t, Some(token(link))).await;
        assert_eq!((code, body["standing"].as_str()), (200, Some("waiting")), "{body}");
    }
    // A token that opens nothing, none at all, a table that is not there: refused alike.
    let (code, body) = status(server.addr, t, Some("0123456789abcdef0123456789abcdef")).await;
    assert_eq!((code, body["code"].as_str()), (401, Some("unauthorized")), "{body}");
    let (code, _) = status(server.addr, t, None).await;
    assert_eq!(code, 401);
    let (unknown, _) = status(server.addr, "999", Some(token(&created.seats["ada"]))).await;
    assert_eq!(unknown, 401);
    // Closed by its GM: over (and its links open nothing any more).
    let mut gm = welcomed(&created.gm).await;
    gm.send(&ClientMessage::Manage { id: "g1".into(), action: ManageAction::Close {} }).await.unwrap();
    answer(&mut gm, "g1").await.unwrap();
    let (code, _) = status(server.addr, t, Some(token(&created.seats["ada"]))).await;
    assert_eq!(code, 401, "a closed table's links open nothing");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_requests_count_towards_the_addresss_rate() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.messages_per_second_per_address = 1;
    c.limits.burst_per_address = 3;
    let server = server::start(c).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    let mut codes = Vec::new();
    for _ in 0..8 {
        codes.push(status(server.addr, &created.table, Some(token(&created.seats["ada"]))).await.0);
    }
    assert!(codes.contains(&200) && codes.contains(&429), "{codes:?}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_games_links_say_over() {
    use server::protocol::{Controller, CreateTable};
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(config(&dir.path().join("s.db"))).await.unwrap();
    let mut request = CreateTable::example("iron-triangle", "duel");
    for seat in ["ada", "gm"] {
        request.seats.insert(seat.into(), Controller::Bot { bot: "greedy".into() });
    }
    let created = server.create_table(request).await.unwrap();
    // The bots play it out (asked until over: waiting meanwhile).
    let over = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        loop {
            let (_, body) = status(server.addr, &created.table, Some(token(&created.gm))).await;
            if body["standing"] == "over" {
                return;
            }
            assert_eq!(body["standing"], "waiting", "{body}");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(over.is_ok(), "the bots' duel ended in time");
    for link in [&created.seats["ada"], &created.gm, &created.spectator] {
        let (code, body) = status(server.addr, &created.table, Some(token(link))).await;
        assert_eq!((code, body["standing"].as_str()), (200, Some("over")), "{body}");
    }
    server.shutdown().await.unwrap();
}
