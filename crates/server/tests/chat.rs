//! The table's chat (issue 34, "Names and chat"): a seat's line reaches every connection, the
//! spectators' too; a spectator only reads; a line is refused, naming the rule, when empty,
//! too long or holding a control or direction-changing character; a link sends at most 5
//! lines in 10 seconds; the GM link mutes a seat and lets it speak again; the last lines come
//! back with a welcome, after a restart too.

mod common;

use common::{answer, config, duel, next, welcomed};
use server::client::Client;
use server::protocol::{ChatLine, ClientMessage, ErrorCode, ServerMessage};

/// The next chat line on `c`.
async fn line(c: &mut Client) -> ChatLine {
    for _ in 0..40 {
        if let ServerMessage::Chat { line } = next(c).await {
            return line;
        }
    }
    panic!("no chat line");
}

fn say(id: &str, text: &str) -> ClientMessage {
    ClientMessage::Chat { id: id.into(), text: text.into() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chat_reaches_everyone_within_its_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(config(&dir.path().join("s.db"))).await.unwrap();
    let created = server.create_table(duel()).await.unwrap();
    let mut ada = welcomed(&created.seats["ada"]).await;
    let mut gm = welcomed(&created.gm).await;
    let mut watcher = welcomed(&created.spectator).await;

    ada.send(&say("c1", " <b>hello</b> ")).await.unwrap();
    assert_eq!(answer(&mut ada, "c1").await, Ok(()));
    let heard = line(&mut watcher).await;
    assert_eq!((heard.n, heard.seat, heard.text.as_str()), (1, Some(0), "<b>hello</b>"));
    assert_eq!(line(&mut gm).await, heard, "the same line to everyone");

    for (id, bad, why) in
        [("c2", "  ", "empty"), ("c3", "a\nb", "line-breaking"), ("c4", "x\u{202E}y", "direction-changing")]
    {
        ada.send(&say(id, bad)).await.unwrap();
        match answer(&mut ada, id).await {
            Err((ErrorCode::Refused, m)) => assert!(m.contains(why), "{bad:?}: {m}"),
            got => panic!("{bad:?}: {got:?}"),
        }
    }
    ada.send(&say("c5", &"x".repeat(501))).await.unwrap();
    assert!(
        matches!(answer(&mut ada, "c5").await, Err((ErrorCode::Refused, m)) if m.contains("at most 500"))
    );
    watcher.send(&say("w1", "hi")).await.unwrap();
    assert!(
        matches!(answer(&mut watcher, "w1").await, Err((ErrorCode::Forbidden, m)) if m.contains("reads the chat"))
    );

    // Five lines in ten seconds (the refused ones above counted), then a refusal.
    let mut refused = None;
    for i in 6..12 {
        let id = format!("c{i}");
        ada.send(&say(&id, "again")).await.unwrap();
        if let Err(e) = answer(&mut ada, &id).await {
            refused = Some(e);
            break;
        }
    }
    match refused {
        Some((ErrorCode::RateLimited, m)) => assert!(m.contains("at most 5 lines in 10 seconds"), "{m}"),
        other => panic!("a flood is refused: {other:?}"),
    }

    // The GM mutes Ada: her lines are refused, the seats say so; then she speaks again.
    gm.send(&ClientMessage::Mute { id: "m1".into(), seat: 0, muted: true }).await.unwrap();
    assert_eq!(answer(&mut gm, "m1").await, Ok(()));
    ada.send(&ClientMessage::Mute { id: "c20".into(), seat: 0, muted: false }).await.unwrap();
    assert!(
        matches!(answer(&mut ada, "c20").await, Err((ErrorCode::Forbidden, _))),
        "only the GM link mutes"
    );
    gm.send(&say("g2", "quiet, please")).await.unwrap();
    assert_eq!(answer(&mut gm, "g2").await, Ok(()));
    let from_gm = line(&mut watcher).await;
    assert_eq!((from_gm.seat, from_gm.text.as_str()), (None, "quiet, please"));
    drop((ada, gm, watcher));
    server.shutdown().await.unwrap();

    // After a restart, a welcome carries the lines and the seats say who is muted.
    let server = server::start(config(&dir.path().join("s.db"))).await.unwrap();
    let base = |link: &str| link.replace(&link[..link.find("/t/").unwrap()], &server.base_url);
    let mut c = Client::join(&base(&created.spectator), 0).await.unwrap();
    match next(&mut c).await {
        ServerMessage::Welcome { chat, seats, .. } => {
            let texts: Vec<&str> = chat.iter().map(|l| l.text.as_str()).collect();
            assert_eq!(texts.first(), Some(&"<b>hello</b>"));
            assert_eq!(texts.last(), Some(&"quiet, please"));
            assert!(seats.iter().find(|s| s.seat == 0).unwrap().muted);
        }
        other => panic!("{other:?}"),
    }
    let mut ada = Client::join(&base(&created.seats["ada"]), 0).await.unwrap();
    assert!(matches!(next(&mut ada).await, ServerMessage::Welcome { .. }));
    ada.send(&say("c30", "let me speak")).await.unwrap();
    assert!(matches!(answer(&mut ada, "c30").await, Err((ErrorCode::Refused, m)) if m.contains("muted")));
    server.shutdown().await.unwrap();
}
