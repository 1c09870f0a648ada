//! Issue 34, Rematch on the wire: the GM link of a finished table asks for a new table of the
//! same setup and seats; each new seat link goes only to the connections holding that seat's
//! link (never a spectator's, never a revoked link's), the GM gets the new GM and spectator
//! links and the seats that got nothing, and the server's creation limits hold.

use std::collections::BTreeMap;
use std::time::Duration;

use server::client::Client;
use server::protocol::{
    ClientMessage, Controller, CreateTable, CreatedTable, ErrorCode, ManageAction, ServerMessage, Who,
};

mod common;
use common::{config, next, welcomed};

/// The Iron Triangle duel with both seats the greedy bot's (it plays itself to the end).
fn bots_duel() -> CreateTable {
    let mut request = CreateTable::example("iron-triangle", "duel");
    request.seats = BTreeMap::from([
        ("ada".to_owned(), Controller::Bot { bot: "greedy".into() }),
        ("gm".to_owned(), Controller::Bot { bot: "greedy".into() }),
    ]);
    request
}

/// Reads `gm` until the game is over (the bots play it out), within a minute.
async fn until_over(gm: &mut Client) {
    let over = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            match gm.next().await.unwrap() {
                ServerMessage::Update { change } if change.over => return,
                ServerMessage::Welcome { change, .. } if change.over => return,
                _ => {}
            }
        }
    })
    .await;
    assert!(over.is_ok(), "the bots' duel ended in time");
}

/// The answer to request `id` on `c`: the messages before its ack (seats notices and updates
/// skipped), or its refusal.
async fn answered(c: &mut Client, id: &str) -> Result<Vec<ServerMessage>, (ErrorCode, String)> {
    let mut before = Vec::new();
    for _ in 0..40 {
        match next(c).await {
            ServerMessage::Ack { id: got, .. } if got == id => return Ok(before),
            ServerMessage::Error { id: Some(got), code, message } if got == id => {
                return Err((code, message));
            }
            ServerMessage::Seats { .. } | ServerMessage::Update { .. } | ServerMessage::Sealed { .. } => {}
            m => before.push(m),
        }
    }
    panic!("no answer to {id}");
}

/// Nothing but seats notices and updates reaches `client` within a short while.
async fn nothing_more(client: &mut Client) {
    let quiet = tokio::time::timeout(Duration::from_millis(400), async {
        loop {
            match client.next().await {
                Ok(ServerMessage::Seats { .. } | ServerMessage::Update { .. }) => {}
                other => return other,
            }
        }
    })
    .await;
    assert!(quiet.is_err(), "nothing more was expected: {quiet:?}");
}

/// A finished duel whose seat 0 (ada) is a person's again; the GM connected.
async fn finished(server: &server::Running) -> (CreatedTable, Client) {
    let created = server.create_table(bots_duel()).await.unwrap();
    // Its welcome read here: the bots may have ended the game before it.
    let mut gm = Client::join(&created.gm, 0).await.unwrap();
    until_over(&mut gm).await;
    let person = ManageAction::Person { seat: 0 };
    gm.send(&ClientMessage::Manage { id: "g1".into(), action: person }).await.unwrap();
    answered(&mut gm, "g1").await.unwrap();
    (created, gm)
}

fn rematch(id: &str) -> ClientMessage {
    ClientMessage::Manage { id: id.into(), action: ManageAction::Rematch {} }
}

/// The welcome `link` opens: who it is and the seats' controllers.
async fn opens(link: &str) -> (Who, Vec<Controller>) {
    let mut c = Client::join(link, 0).await.unwrap();
    match next(&mut c).await {
        ServerMessage::Welcome { you, seats, .. } => (you, seats.into_iter().map(|s| s.controller).collect()),
        other => panic!("{link} opens nothing: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematchs_seat_link_goes_only_to_the_connections_holding_that_seats_link() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(config(&dir.path().join("s.db"))).await.unwrap();
    let (created, mut gm) = finished(&server).await;
    let mut ada = welcomed(&created.seats["ada"]).await;
    let mut watching = welcomed(&created.spectator).await;
    gm.send(&rematch("g2")).await.unwrap();
    let before = answered(&mut gm, "g2").await.unwrap();
    let [ServerMessage::Rematched { table, gm: new_gm, spectator, sent, unsent, bots }] = &before[..] else {
        panic!("expected the rematch's links before the ack, got {before:?}");
    };
    assert_ne!(*table, created.table, "a new table");
    assert_eq!((sent.as_slice(), unsent.as_slice(), bots.as_slice()), (&[0u16][..], &[][..], &[1u16][..]));
    // Ada's connection gets her seat's new link, and it opens her seat there.
    let url = loop {
        match next(&mut ada).await {
            ServerMessage::Rematch { table: t, seat, url } => {
                assert_eq!((t.as_str(), seat), (table.as_str(), 0));
                break url;
            }
            ServerMessage::Seats { .. } | ServerMessage::Update { .. } => {}
            other => panic!("expected ada's new link, got {other:?}"),
        }
    };
    let (you, controllers) = opens(&url).await;
    assert_eq!(you, Who::Seat { seat: 0 });
    // The same seats: ada a person's, the GM's seat still the bot's.
    assert_eq!(controllers, vec![Controller::Person, Controller::Bot { bot: "greedy".into() }]);
    assert_eq!(opens(new_gm).await.0, Who::Gm);
    assert_eq!(opens(spectator).await.0, Who::Spectator);
    // The spectators get nothing.
    nothing_more(&mut watching).await;
    // A retry of the same request (a GM whose connection dropped before the answer) is
    // answered as the first time, the new table's links with it, and makes no other table.
    let mut again = welcomed(&created.gm).await;
    again.send(&rematch("g2")).await.unwrap();
    let before = answered(&mut again, "g2").await.unwrap();
    assert!(
        matches!(&before[..], [ServerMessage::Rematched { table: t, gm: g, .. }] if t == table && g == new_gm),
        "the same answer again: {before:?}"
    );
    // Only hashes are kept: no new link's token is anywhere in the database's files.
    let mut stored = Vec::new();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        stored.extend(std::fs::read(entry.unwrap().path()).unwrap());
    }
    let stored = String::from_utf8_lossy(&stored);
    for link in [&url, new_gm, spectator] {
        let token = link.split_once('#').unwrap().1;
        assert!(!stored.contains(token), "a token was stored in clear");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_link_gets_no_rematch_and_the_gm_is_told_who_got_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(config(&dir.path().join("s.db"))).await.unwrap();
    let (created, mut gm) = finished(&server).await;
    let mut ada = welcomed(&created.seats["ada"]).await;
    let revoke = ManageAction::Revoke { seat: Some(0) };
    gm.send(&ClientMessage::Manage { id: "g2".into(), action: revoke }).await.unwrap();
    answered(&mut gm, "g2").await.unwrap();
    loop {
        match next(&mut ada).await {
            ServerMessage::Revoked {} => break,
            ServerMessage::Seats { .. } | ServerMessage::Update { .. } => {}
            other => panic!("expected the revocation, got {other:?}"),
        }
    }
    gm.send(&rematch("g3")).await.unwrap();
    let before = answered(&mut gm, "g3").await.unwrap();
    let [ServerMessage::Rematched { sent, unsent, .. }] = &before[..] else {
        panic!("expected the rematch's links, got {before:?}");
    };
    assert!(sent.is_empty(), "nobody holds ada's link now");
    assert_eq!(unsent, &[0], "the GM is told ada's seat got nothing");
    // The revoked connection was closed and got nothing more.
    let after = tokio::time::timeout(Duration::from_millis(400), ada.next()).await;
    assert!(!matches!(after, Ok(Ok(ServerMessage::Rematch { .. }))), "{after:?}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_is_refused_before_the_end_and_to_a_seats_link() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(config(&dir.path().join("s.db"))).await.unwrap();
    let created = server.create_table(common::duel()).await.unwrap();
    let mut gm = welcomed(&created.gm).await;
    gm.send(&rematch("g1")).await.unwrap();
    let (code, message) = answered(&mut gm, "g1").await.unwrap_err();
    assert_eq!(code, ErrorCode::Refused, "{message}");
    assert!(message.contains("not over"), "{message}");
    let mut ada = welcomed(&created.seats["ada"]).await;
    ada.send(&rematch("a1")).await.unwrap();
    assert_eq!(answered(&mut ada, "a1").await.unwrap_err().0, ErrorCode::Forbidden);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_holds_the_servers_limit_of_open_tables() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.max_tables = 2;
    let server = server::start(c).await.unwrap();
    let (_, mut gm) = finished(&server).await;
    // The finished table counts no more: one other table open, then one rematch fills the limit.
    server.create_table(common::duel()).await.unwrap();
    gm.send(&rematch("g2")).await.unwrap();
    answered(&mut gm, "g2").await.unwrap();
    gm.send(&rematch("g3")).await.unwrap();
    let (code, message) = answered(&mut gm, "g3").await.unwrap_err();
    assert_eq!(code, ErrorCode::Full, "{message}");
    assert!(message.contains("limit of 2 open tables"), "{message}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_holds_the_per_address_rate_of_creations() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.limits.tables_per_minute_per_address = 1;
    let server = server::start(c).await.unwrap();
    let (_, mut gm) = finished(&server).await;
    gm.send(&rematch("g2")).await.unwrap();
    answered(&mut gm, "g2").await.unwrap();
    gm.send(&rematch("g3")).await.unwrap();
    let (code, message) = answered(&mut gm, "g3").await.unwrap_err();
    assert_eq!(code, ErrorCode::RateLimited, "{message}");
    assert!(message.contains("1 tables a minute"), "{message}");
    server.shutdown().await.unwrap();
}
