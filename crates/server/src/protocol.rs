//! The wire protocol (version [`VERSION`]): JSON text frames over one WebSocket per client, and
//! the HTTP API's bodies. docs/protocol.md describes it; the JSON Schemas under
//! `docs/protocol/` are generated from these types (`schemars`) and a test keeps them current.
//!
//! A connection starts with the client's [`ClientMessage::Hello`], carrying the table and the
//! secret token from its link's fragment. The server answers [`ServerMessage::Welcome`]: who the
//! client is, the seats, the table's options, the updates the client missed since the sequence
//! number it sent, its view, its prompt and its legal choices. Then every change of the table
//! comes as one [`ServerMessage::Update`]: the log items the change added, each redacted for this
//! client by the ruleset (a hidden part is blanked, an item is never dropped, so every viewer's
//! log has the same numbering), with the client's new view and prompt.
//!
//! Commands carry a client-chosen id ([`ClientMessage::Command`] and the rest) ending in a
//! counter that grows with each new request of a link ([`id_counter`]): the server applies a
//! command once per `(seat, id)` and answers a retry of one of the link's last
//! [`REMEMBERED_IDS`] requests with the first answer, so a client that lost its connection
//! before the [`ServerMessage::Ack`] sends the command again safely; an older id is refused
//! ([`ErrorCode::IdExpired`]), never applied again. An acknowledged command is durable.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol's version: a client's [`ClientMessage::Hello`] names the version it speaks,
/// and a server refuses another with [`ErrorCode::Version`].
///
/// Version 2: a request's id ends in its counter, which grows with each new request of a link
/// (docs/protocol.md, Requests and client ids), and an id older than the link's last
/// [`REMEMBERED_IDS`] is refused with [`ErrorCode::IdExpired`].
///
/// Version 3 (the server on the open internet): [`ErrorCode::Timeout`] (no hello, or nothing at
/// all, in time); a WebSocket frame larger than the message limit closes the connection (after
/// a [`ErrorCode::TooLarge`] error); every frame counts towards the rate limits, which hold per
/// link and per address, not per connection; an unknown table and a link that opens nothing at
/// a table are answered alike.
pub const VERSION: u32 = 3;

/// The reveal timer of a sealed seat at a table with no decision timer (`decision_seconds`), in
/// seconds (docs/protocol.md, Sealed choices): it starts when the round is bound, and a reveal
/// not made by then is a fault (`no_reveal`), so a sealed seat gone for good never holds a table
/// forever. At least two minutes: the page reveals by itself at once, and a player whose device
/// lost the choice gives it up sooner (docs/fairness.md §3, "A lost secret").
pub const REVEAL_SECONDS: u64 = 120;

/// The longest client id the server accepts, in bytes.
pub const MAX_CLIENT_ID: usize = 64;

/// How many of a link's requests the server answers again as the first time: the last ones
/// applied. An older id is refused with [`ErrorCode::IdExpired`].
pub const REMEMBERED_IDS: usize = 64;

/// The largest counter an id may end in: 2^53 − 1, so that a JavaScript number holds it.
pub const MAX_ID_COUNTER: u64 = (1 << 53) - 1;

/// The counter a request's id ends in: its last decimal digits, a number from 1 to
/// [`MAX_ID_COUNTER`] written without a leading zero (`c17` → 17, `p3f-2` → 2, `9` → 9).
/// A link's counters grow: each new request's is above every one the link sent before.
/// `None` for an id that ends in no such number (docs/protocol.md, Requests and client ids).
pub fn id_counter(id: &str) -> Option<u64> {
    let digits = id.len() - id.bytes().rev().take_while(u8::is_ascii_digit).count();
    let tail = &id[digits..];
    if tail.is_empty() || tail.starts_with('0') || tail.len() > 16 {
        return None;
    }
    tail.parse().ok().filter(|n| (1..=MAX_ID_COUNTER).contains(n))
}

/// A message from a client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// The first message of every connection.
    Hello {
        /// The protocol version the client speaks ([`VERSION`]).
        v: u32,
        /// The table, as its links name it.
        table: String,
        /// The secret token from the link's fragment: a seat's, the GM's or the spectators'.
        token: String,
        /// The last sequence number the client has seen (0 for none): the welcome carries
        /// every update after it.
        #[serde(default)]
        since: u64,
    },
    /// A command of the ruleset, for the client's seat (a seat link only).
    Command {
        /// The client's id for this command, unique per seat (at most [`MAX_CLIENT_ID`]
        /// bytes): a retry with the same id is answered as the first one was.
        id: String,
        /// The ruleset's command, in its JSON form (one of the prompt's choices' `command`,
        /// or a public ruling the rules allow beside it).
        command: Value,
    },
    /// Takes back the seat's face-down choice before the reveal.
    TakeBack {
        /// The client's id for this request.
        id: String,
        /// A sealed seat lost its secret (the command and nonce behind its commitment): before
        /// the binding a take-back like any other; once bound, its missed reveal is a fault at
        /// once, `no_reveal` with the reason `secret_lost` (docs/fairness.md §3, "A lost secret").
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        lost: bool,
    },
    /// The GM link forces a seat's awaited decision with the rules' documented default.
    Force {
        /// The client's id for this request.
        id: String,
        /// The seat whose decision is forced.
        seat: u16,
    },
    /// The GM (the GM link, or the ruleset's GM seat) undoes the last public command.
    Undo {
        /// The client's id for this request.
        id: String,
    },
    /// A GM link's management of the table.
    Manage {
        /// The client's id for this request.
        id: String,
        /// What to do.
        action: ManageAction,
    },
    /// A sealed seat's face-down decision, committed by its hash alone (sealed mode): SHA-256
    /// over the canonical JSON of the command (exactly as the prompt's choice gives it)
    /// followed by 32 random bytes the client keeps (the nonce). Sent again before every
    /// awaited seat has committed, it replaces the seat's commitment.
    Seal {
        /// The client's id for this request.
        id: String,
        /// The commitment, 64 lowercase hex digits.
        commitment: String,
    },
    /// A sealed seat reveals its command and nonce, once the commitments are bound
    /// ([`ServerMessage::Bound`]). A pair that does not hash to the seat's commitment is a
    /// fault: the seat's decision is forced.
    Reveal {
        /// The client's id for this request.
        id: String,
        /// The command, in the ruleset's JSON form.
        command: Value,
        /// The nonce, 64 lowercase hex digits.
        nonce: String,
    },
    /// The seat gives a client seed for the table's verifiable draws (docs/fairness.md §4):
    /// public at once, in the draws from the next mix on; a new one replaces the last.
    ClientSeed {
        /// The client's id for this request.
        id: String,
        /// The client seed, 64 lowercase hex digits (a phrase's SHA-256, or random bytes).
        seed: String,
    },
    /// A seat's player sets the display name shown beside the seat's name on every page (at
    /// most 32 characters, unique at the table letter case aside, no control, invisible or
    /// direction-changing characters: `server::names`); an empty name clears it. Answered with
    /// an ack, and everyone is sent the seats again ([`ServerMessage::Seats`]).
    Name {
        /// The client's id for this request.
        id: String,
        /// The name.
        name: String,
    },
    /// A line of the table's chat, from a seat's link or the GM link (`server::chat`: at most
    /// 500 characters, no control, invisible or direction-changing characters, at most 5
    /// lines in 10 seconds a link). Answered with an ack; every connection is sent the line
    /// ([`ServerMessage::Chat`]).
    Chat {
        /// The client's id for this request.
        id: String,
        /// The line.
        text: String,
    },
    /// The GM link mutes a seat in the chat (its lines are refused), or lets it speak again.
    Mute {
        /// The client's id for this request.
        id: String,
        /// The seat.
        seat: u16,
        /// Whether it is muted.
        muted: bool,
    },
    /// Asks for a [`ServerMessage::Pong`] (keeps a connection alive through proxies).
    Ping {},
}

impl ClientMessage {
    /// The client's id of a request, if it carries one.
    pub fn id(&self) -> Option<&str> {
        match self {
            ClientMessage::Command { id, .. }
            | ClientMessage::TakeBack { id, .. }
            | ClientMessage::Force { id, .. }
            | ClientMessage::Undo { id }
            | ClientMessage::Manage { id, .. }
            | ClientMessage::Seal { id, .. }
            | ClientMessage::Reveal { id, .. }
            | ClientMessage::ClientSeed { id, .. }
            | ClientMessage::Name { id, .. }
            | ClientMessage::Chat { id, .. }
            | ClientMessage::Mute { id, .. } => Some(id),
            ClientMessage::Hello { .. } | ClientMessage::Ping {} => None,
        }
    }
}

/// What the GM link may do to the table besides playing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum ManageAction {
    /// Makes a new link for a seat (or the spectators, with no seat); the old one stops
    /// working and its connection is closed.
    Reissue {
        /// The seat; none for the spectator link.
        seat: Option<u16>,
    },
    /// Revokes a seat's link (or the spectators', with no seat): it stops working and its
    /// connections are closed with `revoked`; the seat waits for a reissued link (or a bot),
    /// the spectators for a reissued spectator link.
    Revoke {
        /// The seat; none for the spectator link.
        seat: Option<u16>,
    },
    /// Makes a new GM link: it goes only to the GM connection that asked (which stays
    /// connected); the old one stops working and every other connection holding it is closed
    /// with `revoked`.
    ReissueGm {},
    /// Hands a seat to a bot of this kind, playing on the server.
    Bot {
        /// The seat.
        seat: u16,
        /// One of the system's bot kinds (`random`, `greedy`, …).
        kind: String,
    },
    /// Takes a seat back from its bot for a person.
    Person {
        /// The seat.
        seat: u16,
    },
    /// Closes the table for good: it counts no longer towards the server's limit of open
    /// tables, every link stops working, and every connection gets `revoked` (the GM's after
    /// its ack). The table stays in the store, for `facedown tables` to export.
    Close {},
    /// On a finished table: a new table of the same setup, seats (bots stay bots, sealed seats
    /// stay sealed) and options, under the server's creation limits (a refusal `full` or
    /// `rate_limited` otherwise). Each new seat link goes only to the connections holding that
    /// seat's current link ([`ServerMessage::Rematch`]); the GM connection that asked gets the
    /// new GM and spectator links ([`ServerMessage::Rematched`]), and learns which seats got
    /// nothing (nobody held their link: reissue theirs at the new table).
    Rematch {},
}

/// Who a connection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Who {
    /// A seat: sees what its characters know.
    Seat {
        /// The seat's number.
        seat: u16,
    },
    /// The table's GM link: manages the table and sees what is public.
    Gm,
    /// A spectator: sees what is public.
    Spectator,
}

/// Who controls a seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Controller {
    /// A person, through the seat's link.
    Person,
    /// A bot playing on the server.
    Bot {
        /// The bot kind.
        bot: String,
    },
}

/// How a seat answers face-down questions; every seat sees every seat's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum SeatMode {
    /// The seat sends its command and the server holds it (bots always play so).
    #[default]
    Plain,
    /// The seat sends only a commitment, and reveals once every seat is bound: not even the
    /// server knows its choice before that.
    Sealed,
}

impl From<SeatMode> for session::sealed::Mode {
    fn from(mode: SeatMode) -> Self {
        match mode {
            SeatMode::Plain => session::sealed::Mode::Plain,
            SeatMode::Sealed => session::sealed::Mode::Sealed,
        }
    }
}

/// One decision's commitment in a sealed round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatCommitment {
    /// The seat.
    pub seat: u16,
    /// Its commitment, 64 lowercase hex digits.
    pub commitment: String,
}

/// The open sealed round, as a welcome shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
pub struct RoundState {
    /// The seats that have committed (one entry per decision).
    pub sealed: Vec<u16>,
    /// Whether the commitments are bound (every awaited seat committed): sealed seats reveal.
    pub bound: bool,
    /// Once bound: every commitment, in order.
    pub commitments: Vec<SeatCommitment>,
    /// Once bound: the sealed seats whose reveal the table waits for.
    pub revealing: Vec<u16>,
    /// Whether this is the table's opening round (docs/fairness.md §8): every seat commits to
    /// the empty command `{}` before the rules' first step; a sealed seat seals it, then
    /// reveals `{}` with its nonce.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub opening: bool,
}

/// A seat as every client is shown it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatInfo {
    /// The seat's number.
    pub seat: u16,
    /// The seat's name at the table.
    pub name: String,
    /// `player` or `gm`.
    pub role: String,
    /// The side the seat plays for.
    pub side: u8,
    /// A person or a bot.
    pub controller: Controller,
    /// Whether a client holds the seat's link now.
    pub connected: bool,
    /// How the seat answers face-down questions.
    #[serde(default)]
    pub mode: SeatMode,
    /// The display name its player chose ([`ClientMessage::Name`]), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// Whether the GM link muted it in the chat ([`ClientMessage::Mute`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub muted: bool,
}

/// A line of the table's chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChatLine {
    /// Its number at the table: 1, 2, 3…
    pub n: u64,
    /// The seat whose link said it; none for the GM link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<u16>,
    /// What it says (text: a page shows it as text, never as markup).
    pub text: String,
}

/// The options a table was created with, shown to every seat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct TableOptions {
    /// Seconds a seat has for each decision; when they run out the rules' documented default
    /// is taken for it (a forced decision, logged for everyone). None: no timer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_seconds: Option<u32>,
    /// Milliseconds a server bot waits before it decides (so people can follow).
    #[serde(default)]
    pub think_ms: u32,
    /// The seats that play sealed, by seat name (the others play plain). A table with a
    /// sealed seat plays every face-down decision as a sealed round.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub modes: BTreeMap<String, SeatMode>,
    /// Whether the table opens with an opening round (docs/fairness.md §7.2): every seat
    /// commits to `{}` and the sealed seats reveal before the rules' first step, so no draw
    /// depends on the server seed alone. Absent: on when any seat plays sealed and the rules
    /// may draw before a face-down decision is revealed (Inciting Incident tables; never Iron
    /// Triangle's or No Dice's, whose draws all follow a reveal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening_round: Option<bool>,
}

impl TableOptions {
    /// Whether the table opens with an opening round: as asked, else when any seat is sealed
    /// and `draws_before_a_reveal` (the rules' answer, `AnySession::draws_before_a_reveal`).
    pub fn opens_with_round(&self, draws_before_a_reveal: bool) -> bool {
        self.opening_round
            .unwrap_or_else(|| draws_before_a_reveal && self.modes.values().any(|m| *m == SeatMode::Sealed))
    }
}

/// A change of the table as one client sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Change {
    /// The log items the change added, in order, each redacted for this client (the JSON
    /// form of the session's `Update`: `seq`, `kind`, and the event with its narration).
    pub updates: Vec<Value>,
    /// The sequence number of the last item this client has now.
    pub seq: u64,
    /// What this client may see of the table now (the ruleset's view).
    pub view: Value,
    /// What this client's seat is asked now, with its legal choices (the ruleset's prompt);
    /// none when the seat is not asked, or the client is no seat.
    pub prompt: Option<Value>,
    /// The seats the game waits for.
    pub awaiting: Vec<u16>,
    /// Whether the game is over.
    pub over: bool,
    /// The head of this client's verifiable log once it holds these items (docs/fairness.md
    /// §6: 64 hex digits), to compare with the log downloaded later.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// The decision timers running (a table with `decision_seconds`), by seat.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timers: Vec<Timer>,
}

/// A seat's decision timer as a change reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Timer {
    /// The seat whose decision it times.
    pub seat: u16,
    /// Milliseconds left, when the change was sent, before the seat's decision is forced.
    pub ms: u64,
}

/// A message from the server.
// A message is made once and written out at once, never kept in bulk: the welcome's size
// costs nothing a box would save.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The answer to a hello: who the client is, the table, and what it missed.
    Welcome {
        /// The protocol version ([`VERSION`]).
        v: u32,
        /// The table.
        table: String,
        /// The rule system (`iron-triangle`, `nodice`, `inciting-incident`).
        ruleset: String,
        /// Who this connection is.
        you: Who,
        /// The seats.
        seats: Vec<SeatInfo>,
        /// The table's options.
        options: TableOptions,
        /// The ruleset's options chosen at creation (the rules references' Decisions that are
        /// options, the edition), by name.
        rules: BTreeMap<String, Value>,
        /// The open sealed round, if any: who has committed, and once bound every commitment.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        round: Option<Box<RoundState>>,
        /// The commitment of the secret server seed the table's draws are keyed by
        /// (docs/fairness.md §4), 64 hex digits; none at a table whose draws are not verifiable.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        server_seed_commitment: Option<String>,
        /// The counter of the last request applied for this link (0: none): the link's next
        /// new request's id ends in a greater one ([`id_counter`]).
        #[serde(default)]
        last_id: u64,
        /// The table's last chat lines (at most `server::chat::KEPT_LINES`), oldest first.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        chat: Vec<ChatLine>,
        /// The updates after the hello's `since`, the view, the prompt.
        #[serde(flatten)]
        change: Change,
    },
    /// The table changed.
    Update {
        /// What changed, for this client.
        #[serde(flatten)]
        change: Change,
    },
    /// A request was applied and is durable.
    Ack {
        /// The request's client id.
        id: String,
        /// The sequence number of the last log item once it was applied.
        seq: u64,
    },
    /// A message or request was refused; nothing changed.
    Error {
        /// The request's client id, when the message had one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// What kind of refusal.
        code: ErrorCode,
        /// What was wrong, naming the rule or the field.
        message: String,
    },
    /// The seats changed (a connection, a bot, a link).
    Seats {
        /// Every seat.
        seats: Vec<SeatInfo>,
    },
    /// A new link, for the GM link that asked for it.
    Link {
        /// The seat; none for the spectator link and the GM link (`who` tells them apart).
        seat: Option<u16>,
        /// Whose link it is: a seat's, the spectators' or the GM's own. Always sent; absent
        /// only from servers before the GM link could be reissued.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        who: Option<Who>,
        /// The link.
        url: String,
    },
    /// Another device opened this link: this connection is closed.
    TakenOver {},
    /// The link was revoked or reissued: this connection is closed.
    Revoked {},
    /// Who has committed in the open sealed round (never what) and who it waits for, after
    /// each commitment and each reveal that does not yet resolve the round.
    Sealed {
        /// The seats that have committed, one entry per decision.
        seats: Vec<u16>,
        /// The seats the round waits for: a commitment before it binds, a reveal after (as
        /// an update's `awaiting`). An update with no new item follows only for a seat whose
        /// prompt changed.
        #[serde(default)]
        awaiting: Vec<u16>,
    },
    /// Every awaited seat has committed: the commitments are bound, and the sealed seats now
    /// reveal. Sent to everyone after the update that logs them (an item of kind `bound`).
    Bound {
        /// Every commitment of the round, in order, plain seats' and bots' included.
        commitments: Vec<SeatCommitment>,
    },
    /// A line of the table's chat, to every connection.
    Chat {
        /// The line.
        line: ChatLine,
    },
    /// The GM made a rematch ([`ManageAction::Rematch`]): this seat's link at the new table,
    /// sent only to the connections holding the seat's link here.
    Rematch {
        /// The new table.
        table: String,
        /// The seat (the same number at the new table).
        seat: u16,
        /// The seat's link at the new table.
        url: String,
    },
    /// The answer to the GM's [`ManageAction::Rematch`], for the GM connection that asked
    /// alone (before its ack): the new table's GM and spectator links, and what became of
    /// each seat's link.
    Rematched {
        /// The new table.
        table: String,
        /// The new table's GM link.
        gm: String,
        /// The new table's spectator link.
        spectator: String,
        /// The seats whose new link went to the connections holding their link here.
        sent: Vec<u16>,
        /// People's seats whose link went to nobody (no connection held their link here): the
        /// GM reissues theirs at the new table (`manage` `reissue`) and hands it over.
        unsent: Vec<u16>,
        /// The seats bots play at the new table (their links went to nobody).
        bots: Vec<u16>,
    },
    /// The answer to a ping.
    Pong {},
    /// The server is shutting down: reconnect later with the last sequence number seen.
    Closing {},
}

/// The kinds of refusal in [`ServerMessage::Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The frame is not JSON, or not one of the protocol's messages.
    BadMessage,
    /// The hello's protocol version is not the server's.
    Version,
    /// No table by that name, or the token opens none of its links.
    Unauthorized,
    /// The frame is larger than the server accepts.
    TooLarge,
    /// Too many messages too fast.
    RateLimited,
    /// The command is not the ruleset's, or the rules refuse it (the message names the rule).
    Refused,
    /// The request needs another link (a seat's, or the GM's).
    Forbidden,
    /// The server is at its limit of tables or connections, or the table at its limit of
    /// requests kept (the entries or bytes of its journal).
    Full,
    /// The server could not keep the change: nothing was applied.
    Internal,
    /// A sealed seat sent its face-down choice in the clear: it sends `seal`, then `reveal`.
    SealedSeat,
    /// The seat is asked no face-down question now, or has nothing sealed to reveal.
    NotAsked,
    /// The commitments are bound: a commitment can no longer be replaced or taken back.
    Bound,
    /// Reveals come once every awaited seat has committed.
    NotBound,
    /// A sealed round is open: this request waits until its reveal.
    RoundOpen,
    /// The revealed command and nonce do not hash to the seat's commitment: a fault, applied
    /// (the seat's decision is forced, and every seat sees the fault).
    WrongNonce,
    /// The request's id is older than the link's last [`REMEMBERED_IDS`] requests applied:
    /// the server can no longer tell whether it applied it, so it refuses it and changes
    /// nothing (it may have been applied once already).
    IdExpired,
    /// The connection said no hello, or nothing at all, within the server's time: it is
    /// closed.
    Timeout,
}

impl ErrorCode {
    /// The code as the wire spells it (`rate_limited`): the server's log counts refusals by it.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadMessage => "bad_message",
            ErrorCode::Version => "version",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::Refused => "refused",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::Full => "full",
            ErrorCode::Internal => "internal",
            ErrorCode::SealedSeat => "sealed_seat",
            ErrorCode::NotAsked => "not_asked",
            ErrorCode::Bound => "bound",
            ErrorCode::NotBound => "not_bound",
            ErrorCode::RoundOpen => "round_open",
            ErrorCode::WrongNonce => "wrong_nonce",
            ErrorCode::IdExpired => "id_expired",
            ErrorCode::Timeout => "timeout",
        }
    }
}

/// Where a new table's setup comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SetupSource {
    /// One of the examples the server carries, by name (`duel`, `pc-vs-bandit`, …).
    Example(String),
    /// The text of a setup file in TOML (as the CLI's files; paths to other files refused).
    Toml(String),
    /// A setup file as JSON (as the CLI's files; paths to other files refused).
    Json(Value),
}

/// The body of `POST /api/tables`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTable {
    /// The rule system.
    pub system: String,
    /// The setup.
    pub setup: SetupSource,
    /// Who sits where, by seat name: seats not named are people's.
    #[serde(default)]
    pub seats: BTreeMap<String, Controller>,
    /// The table's options.
    #[serde(default)]
    pub options: TableOptions,
    /// Ruleset options to set on the setup, by name (docs/server-rules-options.md): they
    /// override the setup's own fields.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rules: BTreeMap<String, Value>,
}

impl CreateTable {
    /// A table of `system`'s embedded example `name`, every seat a person's, with the default
    /// options and the setup's own rules.
    pub fn example(system: &str, name: &str) -> CreateTable {
        CreateTable {
            system: system.to_owned(),
            setup: SetupSource::Example(name.to_owned()),
            seats: BTreeMap::new(),
            options: TableOptions::default(),
            rules: BTreeMap::new(),
        }
    }
}

/// The answer to `POST /api/tables`: the links, each with its secret token in the fragment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CreatedTable {
    /// The table's name.
    pub table: String,
    /// One link per seat, by seat name (bots' seats too: a person may take one over later).
    pub seats: BTreeMap<String, String>,
    /// The GM link: manages the table.
    pub gm: String,
    /// The spectator link: sees what is public.
    pub spectator: String,
}

/// The body of an HTTP API error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ApiError {
    /// What kind of refusal.
    pub code: ErrorCode,
    /// What was wrong, naming the rule or the field.
    pub message: String,
}

/// The answer to `GET /api/tables/{table}/log`: the viewer's whole log, redacted for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TableLog {
    /// The rule system.
    pub ruleset: String,
    /// Who the log was redacted for.
    pub you: Who,
    /// Every log item, in order.
    pub updates: Vec<Value>,
    /// Whether the game is over.
    pub over: bool,
}

/// Where a table stands for one link, as the home page's list of the tables this browser
/// holds links for shows it (issue 34, Lobby).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// The game waits for this link's seat.
    YourTurn,
    /// The game goes on, waiting for others (or, for the GM's and the spectators' links, goes on).
    Waiting,
    /// The game is over, or the table closed.
    Over,
}

/// The answer to `GET /api/tables/{table}/status`: where the table stands for the link whose
/// token the request shows, and nothing more (not even whom it waits for).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TableStatus {
    /// The table.
    pub table: String,
    /// The rule system.
    pub ruleset: String,
    /// Who the link opens.
    pub you: Who,
    /// Where the table stands for it.
    pub standing: Standing,
}

/// A link as the server prints it: `{base}/t/{table}#{token}`. The token is in the fragment,
/// which a browser never sends, so it never reaches a request line or a proxy's log.
pub fn link(base: &str, table: &str, token: &str) -> String {
    format!("{}/t/{table}#{token}", base.trim_end_matches('/'))
}

/// Splits a link into its base, table and token.
pub fn parse_link(link: &str) -> Option<(String, String, String)> {
    let (before, token) = link.split_once('#')?;
    let (base, table) = before.rsplit_once("/t/")?;
    if table.is_empty() || token.is_empty() || table.contains('/') {
        return None;
    }
    Some((base.to_owned(), table.to_owned(), token.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_error_codes_name_is_its_wire_spelling() {
        use ErrorCode::*;
        for code in [
            BadMessage,
            Version,
            Unauthorized,
            TooLarge,
            RateLimited,
            Refused,
            Forbidden,
            Full,
            Internal,
            SealedSeat,
            NotAsked,
            Bound,
            NotBound,
            RoundOpen,
            WrongNonce,
            IdExpired,
            Timeout,
        ] {
            assert_eq!(serde_json::to_value(code).unwrap(), serde_json::json!(code.as_str()));
        }
    }

    #[test]
    fn a_link_carries_its_token_in_the_fragment() {
        let l = link("http://127.0.0.1:8080/", "7", "ab12");
        assert_eq!(l, "http://127.0.0.1:8080/t/7#ab12");
        assert_eq!(parse_link(&l), Some(("http://127.0.0.1:8080".into(), "7".into(), "ab12".into())));
        assert_eq!(parse_link("http://x/t/7"), None);
        assert_eq!(parse_link("http://x/u/7#k"), None);
    }

    #[test]
    fn messages_have_their_documented_json_form() {
        let hello: ClientMessage =
            serde_json::from_value(json!({"type": "hello", "v": 1, "table": "3", "token": "k"})).unwrap();
        assert_eq!(hello, ClientMessage::Hello { v: 1, table: "3".into(), token: "k".into(), since: 0 });
        let manage: ClientMessage = serde_json::from_value(
            json!({"type": "manage", "id": "a", "action": {"action": "bot", "seat": 1, "kind": "random"}}),
        )
        .unwrap();
        assert_eq!(manage.id(), Some("a"));
        let unknown = serde_json::from_value::<ClientMessage>(json!({"type": "hello", "v": 1, "x": 2}));
        assert!(unknown.is_err());
        let ack = serde_json::to_value(ServerMessage::Ack { id: "a".into(), seq: 4 }).unwrap();
        assert_eq!(ack, json!({"type": "ack", "id": "a", "seq": 4}));
    }

    /// docs/protocol.md, Requests and client ids: an id ends in its counter, 1 to 2^53 − 1,
    /// with no leading zero; anything else has none.
    #[test]
    fn a_request_id_ends_in_its_counter() {
        for (id, counter) in [("c17", 17), ("p3f9a-12", 12), ("9", 9), ("x-9007199254740991", MAX_ID_COUNTER)]
        {
            assert_eq!(id_counter(id), Some(counter), "{id}");
        }
        for id in ["", "x", "c0", "c07", "-", "é", "9007199254740992", "12345678901234567", "1a"] {
            assert_eq!(id_counter(id), None, "{id}");
        }
    }
}
