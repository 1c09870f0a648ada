//! Display names (issue 34, "Names and chat"): a seat's player names itself; everyone is sent
//! the seats with the name; a name is refused, naming the rule, when it is too long, holds a
//! control, invisible or direction-changing character, or is taken at the table; only a seat's
//! link names its player; and the name comes back with the table after a restart.

mod common;

use common::{answer, config, duel, next, welcomed};
use server::client::Client;
use server::protocol::{ClientMessage, ErrorCode, SeatInfo, ServerMessage};

/// The next `seats` frame on `c` (skipping updates), within the bound of [`next`].
async fn seats(c: &mut Client) -> Vec<SeatInfo> {
    for _ in 0..20 {
        if let ServerMessage::Seats { seats } = next(c).await {
            return seats;
        }
    }
    panic!("no seats frame");
}

fn name(id: &str, name: &str) -> ClientMessage {
    ClientMessage::Name { id: id.into(), name: name.into() }
}

fn display(seats: &[SeatInfo], seat: &str) -> Option<String> {
    seats.iter().find(|s| s.name == seat).and_then(|s| s.display_name.clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_names_itself_and_every_page_is_told() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(config(&dir.path().join("s.db"))).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    let mut ada = welcomed(&created.seats["ada"]).await;
    let mut watcher = welcomed(&created.spectator).await;
    ada.send(&name("n1", "  Sam ")).await.unwrap();
    assert_eq!(answer(&mut ada, "n1").await, Ok(()));
    assert_eq!(display(&seats(&mut watcher).await, "ada").as_deref(), Some("Sam"), "trimmed, told to all");

    // Refused, naming the rule; nothing changes.
    let mut other = welcomed(&created.seats[created.seats.keys().find(|k| *k != "ada").unwrap()]).await;
    let refusals = [
        ("n1", "sam", "taken at this table"),
        ("n2", "ADA", "taken at this table"),
        ("n3", "evil\u{202E}gpj.exe", "direction-changing"),
        ("n4", "bell\u{7}", "control"),
        ("n5", &"x".repeat(33), "at most 32 characters"),
    ];
    for (id, bad, why) in refusals {
        other.send(&name(id, bad)).await.unwrap();
        match answer(&mut other, id).await {
            Err((ErrorCode::Refused, message)) => assert!(message.contains(why), "{bad:?}: {message}"),
            got => panic!("{bad:?}: {got:?}"),
        }
    }
    watcher.send(&name("w1", "Eve")).await.unwrap();
    match answer(&mut watcher, "w1").await {
        Err((ErrorCode::Forbidden, message)) => assert!(message.contains("only a seat's link"), "{message}"),
        got => panic!("a spectator names nobody: {got:?}"),
    }
    // Cleared with an empty name.
    ada.send(&name("n2", "")).await.unwrap();
    assert_eq!(answer(&mut ada, "n2").await, Ok(()));
    assert_eq!(display(&seats(&mut watcher).await, "ada"), None);
    ada.send(&name("n3", "Zoë")).await.unwrap();
    assert_eq!(answer(&mut ada, "n3").await, Ok(()));
    drop((ada, other, watcher));
    server.shutdown().await.unwrap();

    // After a restart, the welcome carries the name (the journal keeps it).
    let server = server::start(config(&dir.path().join("s.db"))).await.unwrap();
    let mut c = Client::join(
        &created
            .spectator
            .replace(&created.spectator[..created.spectator.find("/t/").unwrap()], &server.base_url),
        0,
    )
    .await
    .unwrap();
    match next(&mut c).await {
        ServerMessage::Welcome { seats, .. } => assert_eq!(display(&seats, "ada").as_deref(), Some("Zoë")),
        other => panic!("{other:?}"),
    }
    server.shutdown().await.unwrap();
}
