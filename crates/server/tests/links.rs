//! Issue 33 §2 on the wire: the GM link revokes the spectators' link (and reissues it), and
//! reissues its own link, which goes only to the GM connection that asked.

use std::time::Duration;

use server::client::Client;
use server::protocol::{ClientMessage, ErrorCode, ManageAction, ServerMessage, Who};

mod common;
use common::{config, duel, next, welcomed};

/// The next message that is not a seats notice or an update, within 10 s.
async fn answer(client: &mut Client) -> ServerMessage {
    loop {
        match next(client).await {
            ServerMessage::Seats { .. } | ServerMessage::Update { .. } | ServerMessage::Sealed { .. } => {}
            m => return m,
        }
    }
}

/// `link` opens nothing: its hello is refused as `unauthorized`.
async fn refused(link: &str) {
    let mut c = Client::join(link, 0).await.unwrap();
    match answer(&mut c).await {
        ServerMessage::Error { code, .. } => assert_eq!(code, ErrorCode::Unauthorized),
        other => panic!("the old link opens nothing: {other:?}"),
    }
}

/// Nothing but seats notices and updates reaches `client` within a short while.
async fn nothing_more(client: &mut Client) {
    let quiet = tokio::time::timeout(Duration::from_millis(300), async {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gm_revokes_the_spectator_link_until_it_is_reissued() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(config(&dir.path().join("s.db"))).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    let mut gm = welcomed(&created.gm).await;
    let mut watching = welcomed(&created.spectator).await;
    let mut also = welcomed(&created.spectator).await;
    gm.send(&ClientMessage::Manage { id: "g1".into(), action: ManageAction::Revoke { seat: None } })
        .await
        .unwrap();
    match answer(&mut gm).await {
        ServerMessage::Ack { id, .. } => assert_eq!(id, "g1"),
        other => panic!("expected the ack, got {other:?}"),
    }
    for c in [&mut watching, &mut also] {
        assert!(matches!(answer(c).await, ServerMessage::Revoked {}), "every spectator is told");
    }
    refused(&created.spectator).await;
    // Reissued: a new spectator link works, the old one still opens nothing.
    gm.send(&ClientMessage::Manage { id: "g2".into(), action: ManageAction::Reissue { seat: None } })
        .await
        .unwrap();
    let url = match answer(&mut gm).await {
        ServerMessage::Link { seat: None, who, url } => {
            assert_eq!(who, Some(Who::Spectator));
            url
        }
        other => panic!("expected the new spectator link, got {other:?}"),
    };
    let mut again = Client::join(&url, 0).await.unwrap();
    match answer(&mut again).await {
        ServerMessage::Welcome { you, .. } => assert_eq!(you, Who::Spectator),
        other => panic!("the new spectator link opens the table: {other:?}"),
    }
    refused(&created.spectator).await;
    server.shutdown().await.unwrap();
}

/// A GM link opened twice on one server is taken over (the first connection is told
/// `taken_over`): one GM connection at a time holds it here, and on other instances of a shared
/// store every connection of the old link is closed with `revoked` when the new row reaches them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reissued_gm_link_goes_only_to_the_gm_connection_that_asked() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(config(&dir.path().join("s.db"))).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    let mut asking = welcomed(&created.gm).await;
    let mut ada = welcomed(&created.seats["ada"]).await;
    let mut watching = welcomed(&created.spectator).await;
    // A seat may not.
    ada.send(&ClientMessage::Manage { id: "c1".into(), action: ManageAction::ReissueGm {} }).await.unwrap();
    match answer(&mut ada).await {
        ServerMessage::Error { code, .. } => assert_eq!(code, ErrorCode::Forbidden),
        other => panic!("a seat cannot reissue the GM link: {other:?}"),
    }
    asking
        .send(&ClientMessage::Manage { id: "g1".into(), action: ManageAction::ReissueGm {} })
        .await
        .unwrap();
    let url = match answer(&mut asking).await {
        ServerMessage::Link { seat: None, who, url } => {
            assert_eq!(who, Some(Who::Gm));
            url
        }
        other => panic!("expected the new GM link, got {other:?}"),
    };
    assert_ne!(url, created.gm);
    match answer(&mut asking).await {
        ServerMessage::Ack { id, .. } => assert_eq!(id, "g1"),
        other => panic!("expected the ack, got {other:?}"),
    }
    // The seat and the spectator are told nothing of the new link.
    nothing_more(&mut ada).await;
    nothing_more(&mut watching).await;
    // The asking connection stays, and still manages the table.
    asking
        .send(&ClientMessage::Manage { id: "g2".into(), action: ManageAction::Reissue { seat: Some(0) } })
        .await
        .unwrap();
    assert!(matches!(answer(&mut asking).await, ServerMessage::Link { seat: Some(0), .. }));
    assert!(matches!(answer(&mut asking).await, ServerMessage::Ack { .. }));
    refused(&created.gm).await;
    // The new link opens the GM screen (elsewhere: the asking connection is taken over).
    let mut new_gm = Client::join(&url, 0).await.unwrap();
    match answer(&mut new_gm).await {
        ServerMessage::Welcome { you, .. } => assert_eq!(you, Who::Gm),
        other => panic!("the new GM link opens the table: {other:?}"),
    }
    assert!(matches!(answer(&mut asking).await, ServerMessage::TakenOver {}));
    server.shutdown().await.unwrap();
}
