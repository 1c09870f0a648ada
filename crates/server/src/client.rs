//! A client of the protocol over a real WebSocket: what `facedown join`, the wire tests and
//! the load generator speak with.

use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use table::fairness::{CanonicalError, Commitment, Nonce};

use crate::protocol::{ClientMessage, ServerMessage, VERSION, parse_link};

/// Why the client stopped.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The link is not `{base}/t/{table}#{token}`.
    #[error("not a facedown link (expected http://host:port/t/TABLE#TOKEN): {0}")]
    BadLink(String),
    /// The WebSocket failed.
    #[error("connection: {0}")]
    Ws(#[from] tokio_tungstenite::tungstenite::Error),
    /// The server sent something that is not a protocol message.
    #[error("the server sent a message this client does not understand: {0}")]
    Protocol(String),
    /// The server closed the connection.
    #[error("the server closed the connection")]
    Closed,
}

/// A sealed seat's commitment to `command` (its JSON, exactly as the prompt's choice gives
/// it): a fresh nonce from the operating system's generator and the commitment to send in
/// `seal`. Keep the nonce: it goes with the command in the `reveal`.
pub fn seal(command: &serde_json::Value) -> Result<(Commitment, Nonce), CanonicalError> {
    let nonce = Nonce::from_bytes(rand::random());
    Ok((Commitment::to_command(command, &nonce)?, nonce))
}

/// The question a sealed seat asked again in one round answers (docs/protocol.md, Sealed
/// choices): the branch of `prompt` whose sequence of earlier choices is the latest of
/// `kept` (the seat's choices not yet revealed, oldest first; compared by their canonical
/// JSON). `None` when the prompt has no branches or none matches: answer the prompt itself.
pub fn own_branch(prompt: &serde_json::Value, kept: &[serde_json::Value]) -> Option<serde_json::Value> {
    let key = |c: &serde_json::Value| table::fairness::canonical_json(c).ok();
    let mine: Vec<Option<String>> = kept.iter().map(key).collect();
    prompt.get("branches")?.as_array()?.iter().find_map(|branch| {
        let matches = branch.get("earlier")?.as_array()?.iter().any(|seq| {
            seq.as_array().is_some_and(|seq| {
                !seq.is_empty()
                    && seq.len() <= mine.len()
                    && seq
                        .iter()
                        .zip(&mine[mine.len() - seq.len()..])
                        .all(|(c, m)| key(c).is_some() && key(c) == *m)
            })
        });
        if matches { branch.get("prompt").cloned() } else { None }
    })
}

/// One connection to a table.
pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

/// The WebSocket address of a link's server: `http` becomes `ws`, `https` becomes `wss`.
pub fn ws_url(base: &str) -> String {
    let base = base.trim_end_matches('/');
    if let Some(rest) = base.strip_prefix("https://") {
        format!("wss://{rest}/ws")
    } else if let Some(rest) = base.strip_prefix("http://") {
        format!("ws://{rest}/ws")
    } else {
        format!("{base}/ws")
    }
}

impl Client {
    /// Connects to the server of `link` and says hello with its table and token, asking for
    /// the updates after `since`. Returns the client; the welcome is its first message.
    pub async fn join(link: &str, since: u64) -> Result<Client, ClientError> {
        let (base, table, token) = parse_link(link).ok_or_else(|| ClientError::BadLink(link.to_owned()))?;
        let mut client = Client::connect(&ws_url(&base)).await?;
        client.send(&ClientMessage::Hello { v: VERSION, table, token, since }).await?;
        Ok(client)
    }

    /// Opens a WebSocket to `url` (`ws://host:port/ws`) without saying hello, with
    /// TCP_NODELAY (a seal's reveal, sent right after another frame, waits for no ACK).
    pub async fn connect(url: &str) -> Result<Client, ClientError> {
        let (ws, _) = tokio_tungstenite::connect_async_with_config(url, None, true).await?;
        Ok(Client { ws })
    }

    /// Sends a message.
    pub async fn send(&mut self, message: &ClientMessage) -> Result<(), ClientError> {
        let text = serde_json::to_string(message).map_err(|e| ClientError::Protocol(e.to_string()))?;
        self.send_text(text).await
    }

    /// Sends a text frame as it is (for tests of bad input).
    pub async fn send_text(&mut self, text: String) -> Result<(), ClientError> {
        self.ws.send(Message::text(text)).await?;
        Ok(())
    }

    /// The next message from the server, with the frame's text as received.
    pub async fn next_raw(&mut self) -> Result<(ServerMessage, String), ClientError> {
        loop {
            match self.ws.next().await {
                None => return Err(ClientError::Closed),
                Some(Err(e)) => return Err(e.into()),
                Some(Ok(Message::Text(text))) => {
                    let message = serde_json::from_str(&text)
                        .map_err(|e| ClientError::Protocol(format!("{e}: {}", text.as_str())))?;
                    return Ok((message, text.as_str().to_owned()));
                }
                Some(Ok(Message::Close(_))) => return Err(ClientError::Closed),
                Some(Ok(_)) => continue,
            }
        }
    }

    /// The next message from the server.
    pub async fn next(&mut self) -> Result<ServerMessage, ClientError> {
        Ok(self.next_raw().await?.0)
    }

    /// Closes the connection.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_sealed_seat_asked_again_answers_the_branch_after_its_latest_choices() {
        let (a, b) = (json!({"declare": {"character": 2}}), json!({"declare": {"character": 3}}));
        let prompt = json!({
            "question": "for 3",
            "branches": [
                {"earlier": [[a]], "prompt": {"question": "for 3"}},
                {"earlier": [[b]], "prompt": {"question": "for 2"}},
            ],
        });
        assert_eq!(own_branch(&prompt, &[json!({"x": 1}), b.clone()]), Some(json!({"question": "for 2"})));
        assert_eq!(own_branch(&prompt, std::slice::from_ref(&a)), Some(json!({"question": "for 3"})));
        assert_eq!(own_branch(&prompt, &[]), None);
        assert_eq!(own_branch(&json!({"question": "q"}), &[a]), None);
    }
}
