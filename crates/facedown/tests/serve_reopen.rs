//! Issue 34: the README's command, run again on the same data, reopens the unfinished table it
//! made and prints the same links (docs/hosting.md); `facedown tables links` reissues them as the
//! next generation, which the command prints from then on; a finished table makes way for a new
//! one. The real binary, started again and again.

#![cfg(unix)]

mod common;

use std::time::Duration;

use common::Server;
use serde_json::Value;
use server::client::Client;
use server::protocol::{ClientMessage, ManageAction, ServerMessage};

/// The README's command.
const README: [&str; 6] = ["--table", "iron-triangle:duel", "--bot", "gm=greedy", "--think-ms", "400"];

/// A start-up line's table, each link without its address (`/t/N#TOKEN`: the port is the
/// system's choice each time).
fn links(started: &Value) -> Vec<String> {
    let table = &started["table"];
    let mut all: Vec<&str> = vec![table["gm"].as_str().unwrap(), table["spectator"].as_str().unwrap()];
    all.extend(table["seats"].as_object().unwrap().values().map(|v| v.as_str().unwrap()));
    all.iter().map(|l| l.split_once("/t/").map(|(_, rest)| rest.to_owned()).unwrap()).collect()
}

/// The GM link closes the table (finished for good).
fn close(gm: &str) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let mut c = Client::join(gm, 0).await.unwrap();
        c.send(&ClientMessage::Manage { id: "c1".into(), action: ManageAction::Close {} }).await.unwrap();
        loop {
            let m =
                tokio::time::timeout(Duration::from_secs(10), c.next()).await.expect("an answer").unwrap();
            match m {
                ServerMessage::Ack { id, .. } if id == "c1" => break,
                ServerMessage::Error { message, .. } => panic!("the close was refused: {message}"),
                _ => {}
            }
        }
    });
}

#[test]
fn the_readme_command_run_again_reopens_its_unfinished_table_with_the_same_links() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let mut first = Server::start(&db, &README);
    assert_eq!(first.started["reopened"], false);
    let made = links(&first.started);
    let table = first.started["table"]["table"].clone();
    assert_eq!(first.stop(), Some(0));

    // The host's key is its own: mode 0600.
    let key = dir.path().join("host.key");
    let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&key).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600, "the host key is readable by its owner alone");
    // Only the links' hashes are stored: no token in the database's files.
    let mut stored = Vec::new();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("server.db")) {
            stored.extend(std::fs::read(path).unwrap());
        }
    }
    let stored = String::from_utf8_lossy(&stored);
    for l in &made {
        let token = l.split_once('#').unwrap().1;
        assert!(!stored.contains(token), "a token was stored in clear");
    }

    // The same command again: the same table, the same links, and they open it.
    let mut second = Server::start(&db, &README);
    assert_eq!(second.started["reopened"], true, "{}", second.started);
    assert_eq!(second.started["table"]["table"], table);
    assert_eq!(links(&second.started), made, "the same links are printed again");
    let (code, out, err) = common::join_json(second.started["table"]["seats"]["ada"].as_str().unwrap(), &[]);
    let first_line = out.lines().next().unwrap_or_default();
    assert!(
        first_line.contains("\"type\":\"welcome\""),
        "the link opens its seat: {first_line} / {err} ({code:?})"
    );

    assert_eq!(second.stop(), Some(0));

    // Reissued from the terminal: the next generation of links; the command prints those now.
    let n = table.as_str().unwrap().to_owned();
    let (code, out, err) =
        common::run_facedown(&["tables", "links", &n, "--db", db.to_str().unwrap(), "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let reissued: Value = serde_json::from_str(out.trim()).unwrap();
    let reissued = links(&serde_json::json!({ "table": reissued }));
    assert!(reissued.iter().all(|l| !made.contains(l)), "every link is new");
    let mut second = Server::start(&db, &README);
    assert_eq!(second.started["reopened"], true, "{}", second.started);
    assert_eq!(links(&second.started), reissued, "the reissued links are printed");
    assert_eq!(second.started["changed"], serde_json::json!([]));

    // Finished (its GM closed it): the command makes a new table.
    close(second.started["table"]["gm"].as_str().unwrap());
    assert_eq!(second.stop(), Some(0));
    let mut third = Server::start(&db, &README);
    assert_eq!(third.started["reopened"], false);
    assert_ne!(third.started["table"]["table"], table, "a finished table makes way for a new one");
    assert_ne!(links(&third.started), made);
    assert_eq!(third.stop(), Some(0));

    // Another request (another example) is another table too.
    let mut other = Server::start(&db, &["--table", "iron-triangle:duel", "--think-ms", "400"]);
    assert_eq!(other.started["reopened"], false);
    assert_ne!(other.started["table"]["table"], third.started["table"]["table"]);
    assert_eq!(other.stop(), Some(0));
}
