//! What the server's attack and limit tests share: a server on loopback, the duel they play,
//! and reading its answers within a bound.
// Each test file uses its own part of these.
#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use server::Config;
use server::client::Client;
use server::protocol::{CreateTable, ErrorCode, ServerMessage};

/// A server on 127.0.0.1 (a port of the system's choice), its tables in `db`.
pub fn config(db: &Path) -> Config {
    let mut c = Config::new(db.to_path_buf());
    c.listen = "127.0.0.1:0".parse().unwrap();
    c
}

/// An Iron Triangle duel of the example, both seats people.
pub fn duel() -> CreateTable {
    CreateTable::example("iron-triangle", "duel")
}

/// The next message, within 10 s.
pub async fn next(client: &mut Client) -> ServerMessage {
    tokio::time::timeout(Duration::from_secs(10), client.next()).await.expect("an answer in time").unwrap()
}

/// A client joined to `link` and welcomed.
pub async fn welcomed(link: &str) -> Client {
    let mut c = Client::join(link, 0).await.unwrap();
    match next(&mut c).await {
        ServerMessage::Welcome { .. } => c,
        other => panic!("expected a welcome, got {other:?}"),
    }
}

/// The answer to request `id` on `c` (other messages skipped, at most 40): Ok for its ack, else
/// the refusal's code and message.
pub async fn answer(c: &mut Client, id: &str) -> Result<(), (ErrorCode, String)> {
    for _ in 0..40 {
        match next(c).await {
            ServerMessage::Ack { id: got, .. } if got == id => return Ok(()),
            ServerMessage::Error { id: Some(got), code, message } if got == id => {
                return Err((code, message));
            }
            _ => {}
        }
    }
    panic!("no answer to {id}");
}
