//! The protocol as the load generator reads it: a WebSocket of its own (tokio-tungstenite) and
//! a lean reading of the server's frames that keeps only what playing and timing need — the
//! sequence numbers, the names of the events (to find reveals), the prompt as raw JSON, an
//! acknowledgement's id — and skips each view without building it. The load generator shares
//! the machine with the server, so what it spends reading frames is taken from the server.

use std::borrow::Cow;
use std::net::{IpAddr, SocketAddr};

use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::value::RawValue;
use server::client::ws_url;
use server::protocol::{ClientMessage, ErrorCode, VERSION, parse_link};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::LoadError;

/// The largest frame accepted from the server.
const MAX_FRAME: usize = 1024 * 1024;

/// The Iron Triangle events that reveal face-down choices to everyone: the update carrying
/// one of them ends a simultaneous choice.
pub const REVEAL_EVENTS: &[&str] = &["stances_revealed", "moves_revealed"];

/// A frame from the server, as far as the load generator reads it.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    /// A welcome or an update.
    Change {
        /// The last sequence number the client has now.
        seq: u64,
        /// The sequence numbers of the reveals among the change's items.
        reveals: Vec<u64>,
        /// The prompt's choices, if the seat is asked.
        prompt: Option<Vec<Choice>>,
        /// Whether the prompt is a face-down question (its `private`): a sealed seat seals
        /// whichever of its choices it makes.
        face_down: bool,
        /// Whether the game is over.
        over: bool,
        /// Whether the change binds a sealed round's commitments (an item of kind `bound`):
        /// a sealed seat now reveals what it committed.
        bound: bool,
        /// A welcome to a table waiting for its opening round's commitments (docs/fairness.md
        /// §8): a sealed seat commits to `{}`.
        opening: bool,
    },
    /// A request was applied.
    Ack {
        /// Its client id.
        id: String,
        /// The sequence number after it.
        seq: u64,
    },
    /// A request or message was refused.
    Error {
        /// The request's client id, if it had one.
        id: Option<String>,
        /// The kind of refusal.
        code: ErrorCode,
        /// Why.
        message: String,
    },
    /// The server closed this connection (taken over, revoked, shutting down).
    Closing,
    /// Anything else (seats, links, pongs).
    Other,
}

#[derive(Deserialize)]
struct Frame<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default)]
    seq: Option<u64>,
    #[serde(default, borrow)]
    updates: Vec<Item<'a>>,
    #[serde(default)]
    prompt: Option<Prompt>,
    #[serde(default)]
    over: bool,
    #[serde(default)]
    code: Option<ErrorCode>,
    #[serde(default, borrow)]
    message: Option<Cow<'a, str>>,
    #[serde(default)]
    round: Option<Round>,
}

/// A welcome's open round, as far as it is read.
#[derive(Deserialize)]
struct Round {
    #[serde(default)]
    bound: bool,
    #[serde(default)]
    opening: bool,
}

#[derive(Deserialize)]
struct Item<'a> {
    seq: u64,
    #[serde(borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    event: Option<EventName<'a>>,
}

#[derive(Deserialize)]
struct EventName<'a> {
    #[serde(borrow)]
    event: Cow<'a, str>,
}

/// Reads a frame of the server's.
pub fn parse(text: &str) -> Result<Incoming, LoadError> {
    let bad = |reason: String| LoadError::Frame { reason, frame: text.chars().take(200).collect() };
    let frame: Frame = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    Ok(match frame.kind.as_ref() {
        "welcome" | "update" => Incoming::Change {
            seq: frame.seq.ok_or_else(|| bad("a change without `seq`".into()))?,
            reveals: frame
                .updates
                .iter()
                .filter(|u| {
                    u.kind == "event"
                        && u.event.as_ref().is_some_and(|e| REVEAL_EVENTS.contains(&e.event.as_ref()))
                })
                .map(|u| u.seq)
                .collect(),
            face_down: frame.prompt.as_ref().is_some_and(|p| p.private),
            prompt: frame.prompt.map(|p| p.choices).filter(|c| !c.is_empty()),
            over: frame.over,
            bound: frame.updates.iter().any(|u| u.kind == "bound"),
            opening: frame.round.is_some_and(|r| r.opening && !r.bound),
        },
        "ack" => Incoming::Ack {
            id: frame.id.ok_or_else(|| bad("an ack without `id`".into()))?.into_owned(),
            seq: frame.seq.ok_or_else(|| bad("an ack without `seq`".into()))?,
        },
        "error" => Incoming::Error {
            id: frame.id.map(Cow::into_owned),
            code: frame.code.ok_or_else(|| bad("an error without `code`".into()))?,
            message: frame.message.map(Cow::into_owned).unwrap_or_default(),
        },
        "taken_over" | "revoked" | "closing" => Incoming::Closing,
        _ => Incoming::Other,
    })
}

/// A prompt, as far as it is read: its choices (labels and the question skipped).
#[derive(Deserialize)]
struct Prompt {
    choices: Vec<Choice>,
    #[serde(default)]
    private: bool,
}

/// One of a prompt's choices.
#[derive(Debug, Clone, Deserialize)]
pub struct Choice {
    /// The command it gives, the ruleset's JSON as the server wrote it: kept as text (a
    /// prompt has a dozen choices and the seat sends one; building each as a `Value` tree
    /// was half of the load generator's reading of frames).
    pub command: Box<RawValue>,
    /// Whether it is a face-down choice.
    #[serde(default)]
    pub private: bool,
}

impl PartialEq for Choice {
    fn eq(&self, other: &Choice) -> bool {
        self.command.get() == other.command.get() && self.private == other.private
    }
}

/// The frame of a command: `id` is the client id, `command` JSON (a `Value` or the text of
/// a prompt's choice).
pub fn command_frame(id: u64, command: &impl std::fmt::Display) -> String {
    format!(r#"{{"type":"command","id":"{id}","command":{command}}}"#)
}

/// The frame of a sealed seat's commitment (`seal`): `commitment` is 64 hex digits.
pub fn seal_frame(id: u64, commitment: &str) -> String {
    format!(r#"{{"type":"seal","id":"{id}","commitment":"{commitment}"}}"#)
}

/// The frame of a sealed seat's reveal: the command it committed to and the nonce (64 hex
/// digits).
pub fn reveal_frame(id: u64, command: &serde_json::Value, nonce: &str) -> String {
    format!(r#"{{"type":"reveal","id":"{id}","command":{command},"nonce":"{nonce}"}}"#)
}

/// One WebSocket connection to a table.
pub struct Conn {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl Conn {
    /// Connects to the server of a seat's `link` and says hello, asking for what came after
    /// `since`.
    pub async fn join(link: &str, since: u64) -> Result<Conn, LoadError> {
        Conn::join_from(link, since, None).await
    }

    /// [`Conn::join`] from the local address `from` (a loopback address such as 127.0.0.2, so
    /// that many seats do not all come from one address), when given.
    pub async fn join_from(link: &str, since: u64, from: Option<IpAddr>) -> Result<Conn, LoadError> {
        let (base, table, token) =
            parse_link(link).ok_or_else(|| LoadError::Setup(format!("not a facedown link: {link}")))?;
        // A small read buffer: tungstenite zero-fills its whole read buffer for each read, and
        // at the default 128 KiB that was a quarter of the load generator's CPU.
        let config = WebSocketConfig::default()
            .read_buffer_size(4096)
            .max_message_size(Some(MAX_FRAME))
            .max_frame_size(Some(MAX_FRAME));
        let ws = match from {
            None => {
                tokio_tungstenite::connect_async_with_config(ws_url(&base), Some(config), true)
                    .await
                    .map_err(|e| LoadError::Ws(e.to_string()))?
                    .0
            }
            Some(from) => {
                let server: SocketAddr =
                    base.strip_prefix("http://").and_then(|a| a.parse().ok()).ok_or_else(|| {
                        LoadError::Setup(format!(
                            "a seat's own address needs an http://IP:PORT server, not {base}"
                        ))
                    })?;
                let socket = if from.is_ipv4() { TcpSocket::new_v4() } else { TcpSocket::new_v6() }
                    .map_err(|e| LoadError::Ws(e.to_string()))?;
                socket
                    .bind(SocketAddr::new(from, 0))
                    .map_err(|e| LoadError::Ws(format!("binding {from}: {e}")))?;
                let stream = socket.connect(server).await.map_err(|e| LoadError::Ws(e.to_string()))?;
                stream.set_nodelay(true).map_err(|e| LoadError::Ws(e.to_string()))?;
                tokio_tungstenite::client_async_with_config(
                    ws_url(&base),
                    MaybeTlsStream::Plain(stream),
                    Some(config),
                )
                .await
                .map_err(|e| LoadError::Ws(e.to_string()))?
                .0
            }
        };
        let mut conn = Conn { ws };
        let hello = ClientMessage::Hello { v: VERSION, table, token, since };
        let hello = serde_json::to_string(&hello).map_err(|e| LoadError::Setup(e.to_string()))?;
        conn.send(hello).await?;
        Ok(conn)
    }

    /// Sends a text frame.
    pub async fn send(&mut self, text: String) -> Result<(), LoadError> {
        self.ws.send(Message::text(text)).await.map_err(|e| LoadError::Ws(e.to_string()))
    }

    /// The next frame from the server, read.
    pub async fn next(&mut self) -> Result<Incoming, LoadError> {
        loop {
            match self.ws.next().await {
                None | Some(Ok(Message::Close(_))) => return Err(LoadError::Closed),
                Some(Err(e)) => return Err(LoadError::Ws(e.to_string())),
                Some(Ok(Message::Text(text))) => return parse(text.as_str()),
                Some(Ok(_)) => continue,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use server::protocol::{Change, ServerMessage};

    fn change(updates: Vec<serde_json::Value>, prompt: Option<serde_json::Value>, over: bool) -> Change {
        Change {
            updates,
            seq: 10,
            view: json!({"fighters": [{"energy": [1, 2, 3]}]}),
            prompt,
            awaiting: vec![0],
            over,
            head: None,
            timers: Vec::new(),
        }
    }

    #[test]
    fn frames_are_read_as_the_protocol_writes_them() {
        let updates = vec![
            json!({"seq": 8, "kind": "event", "event": {"event": "move_committed", "fighter": 1}, "text": null}),
            json!({"seq": 9, "kind": "event", "event": {"event": "moves_revealed", "plays": []}, "text": "x"}),
            json!({"seq": 10, "kind": "forced", "seat": 1}),
        ];
        let prompt = json!({"seat": 0, "question": "q", "private": true, "choices": []});
        let update = ServerMessage::Update { change: change(updates, Some(prompt), false) };
        let Incoming::Change { seq, reveals, prompt: got, over, bound, face_down, .. } =
            parse(&serde_json::to_string(&update).unwrap()).unwrap()
        else {
            panic!("not a change")
        };
        assert_eq!((seq, reveals, over, bound, face_down), (10, vec![9], false, false, true));
        assert_eq!(got, Some(vec![]).filter(|c: &Vec<Choice>| !c.is_empty()));
        let choices = json!([{"label": "a", "command": "end_combo", "private": false},
                             {"label": "b", "command": {"c": 1}, "private": true}]);
        let asked = ServerMessage::Update {
            change: change(vec![], Some(json!({"seat": 0, "choices": choices})), false),
        };
        let Incoming::Change { prompt: Some(got), face_down: false, .. } =
            parse(&serde_json::to_string(&asked).unwrap()).unwrap()
        else {
            panic!("no public prompt")
        };
        assert_eq!(
            got,
            vec![
                Choice { command: RawValue::from_string(r#""end_combo""#.into()).unwrap(), private: false },
                Choice { command: RawValue::from_string(r#"{"c":1}"#.into()).unwrap(), private: true }
            ]
        );

        let over = ServerMessage::Update { change: change(vec![], None, true) };
        assert!(matches!(
            parse(&serde_json::to_string(&over).unwrap()).unwrap(),
            Incoming::Change { prompt: None, over: true, .. }
        ));
        let ack = ServerMessage::Ack { id: "7".into(), seq: 12 };
        assert_eq!(
            parse(&serde_json::to_string(&ack).unwrap()).unwrap(),
            Incoming::Ack { id: "7".into(), seq: 12 }
        );
        let error = ServerMessage::Error { id: None, code: ErrorCode::RateLimited, message: "slow".into() };
        assert_eq!(
            parse(&serde_json::to_string(&error).unwrap()).unwrap(),
            Incoming::Error { id: None, code: ErrorCode::RateLimited, message: "slow".into() }
        );
        let closing = serde_json::to_string(&ServerMessage::Closing {}).unwrap();
        assert_eq!(parse(&closing).unwrap(), Incoming::Closing);
        assert_eq!(parse(&serde_json::to_string(&ServerMessage::Pong {}).unwrap()).unwrap(), Incoming::Other);
        assert!(matches!(parse("{\"type\": 3}"), Err(LoadError::Frame { .. })));
        assert!(matches!(parse(r#"{"type":"ack","seq":1}"#), Err(LoadError::Frame { .. })));
    }

    #[test]
    fn a_bound_item_is_read_as_the_round_bound() {
        let updates =
            vec![json!({"seq": 11, "kind": "bound", "commitments": [{"seat": 0, "commitment": "ab"}]})];
        let update = ServerMessage::Update { change: change(updates, None, false) };
        let Incoming::Change { bound, reveals, .. } =
            parse(&serde_json::to_string(&update).unwrap()).unwrap()
        else {
            panic!("not a change")
        };
        assert!(bound);
        assert!(reveals.is_empty());
        // The message `bound` that follows is not a change.
        let message = ServerMessage::Bound { commitments: vec![] };
        assert_eq!(parse(&serde_json::to_string(&message).unwrap()).unwrap(), Incoming::Other);
    }

    #[test]
    fn seal_and_reveal_frames_are_the_protocols() {
        let command = json!({"commit_stance": {"stance": {"type": "grapple", "amount": 2}}});
        let nonce = "9f".repeat(32);
        let commitment = "e8aa6dc50ba3fadd440e71381ca7b76f2ebd180fd59976a3ad97e512dfad3779";
        let seal: ClientMessage = serde_json::from_str(&seal_frame(4, commitment)).unwrap();
        assert_eq!(seal, ClientMessage::Seal { id: "4".into(), commitment: commitment.into() });
        let reveal: ClientMessage = serde_json::from_str(&reveal_frame(5, &command, &nonce)).unwrap();
        assert_eq!(reveal, ClientMessage::Reveal { id: "5".into(), command, nonce });
    }

    #[test]
    fn a_command_frame_is_the_protocols() {
        let command = json!({"commit_stance": {"stance": {"action": "attack", "amount": 2}}});
        let frame: ClientMessage = serde_json::from_str(&command_frame(3, &command)).unwrap();
        assert_eq!(frame, ClientMessage::Command { id: "3".into(), command });
    }
}
