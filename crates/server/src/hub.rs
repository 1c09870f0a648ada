//! The tables a server holds, each run by one task (its *actor*) that owns the table's session:
//! requests in, durable journal entries, per-viewer changes out.
//!
//! A table's actor handles one request at a time: it applies the request to the session (the
//! rules check it), hands the journal entry to the store and awaits its durable commit (the
//! store groups the commits of every table in flight into one sync), and only then sends each
//! connection its change — so nothing a client has seen, and nothing acknowledged, can be lost
//! to a crash. Bots and decision timers are deadlines in the same loop. A table with no
//! connection and nothing to do leaves memory after the idle limit and is reloaded (its
//! journal replayed) when a client comes back.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use serde_json::value::RawValue;
use session::CanonicalTexts;
use session::any::AnyError;
use session::sealed::{Fault, Mode, Nonce, RoundInfo, SealError};
use store::tables::{Access, NewTable, TableId, TableStore, Write};
use table::fairness::{FairnessError, HashChain, ServerSeed};
use table::{SeatId, Viewer};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

use crate::auth;
use crate::config::Config;
use crate::journal::Op;
use crate::metrics::Metrics;
use crate::protocol::{
    Change, ClientMessage, Controller, CreateTable, CreatedTable, ErrorCode, ManageAction, SeatInfo,
    SeatMode, ServerMessage, TableLog, TableOptions, Timer, Who, link,
};
use crate::sealing::{answer, refusal_code, round_state};
use crate::systems::{self, Hosted};

pub(crate) mod fanout;

/// Times a request is tried again after another instance kept its journal number first
/// (each after a short pause that grows, so two instances racing at one table fall out of step).
const MAX_CONFLICTS: u32 = 8;

use crate::protocol::REMEMBERED_IDS;
/// Frames queued to a connection before it counts as stuck and is closed.
pub(crate) const OUTBOX: usize = 64;
/// Requests queued to a table.
const INBOX: usize = 256;
/// At most how many requests waiting together at a table are made durable by one commit.
const MAX_TOGETHER: usize = 16;

/// The requests kept together when they wait at a table at once ([`Actor::requests`]): a
/// seat's choices and their like, each at most one journal entry, with no other effect.
fn together(message: &ClientMessage) -> bool {
    matches!(
        message,
        ClientMessage::Command { .. }
            | ClientMessage::Seal { .. }
            | ClientMessage::Reveal { .. }
            | ClientMessage::TakeBack { .. }
            | ClientMessage::ClientSeed { .. }
    )
}
/// The longest decision timer, and the longest bot think delay.
const MAX_DECISION_SECONDS: u32 = 7 * 24 * 3600;
const MAX_THINK_MS: u32 = 60_000;

/// A refusal, as the protocol reports it.
#[derive(Debug, Clone)]
pub struct Refusal {
    /// What kind.
    pub code: ErrorCode,
    /// What was wrong, naming the rule or field.
    pub message: String,
}

impl Refusal {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal { code, message: message.into() }
    }
}

/// What a connection is sent.
#[derive(Debug)]
pub(crate) enum Out {
    /// A frame.
    Text(String),
    /// Close the connection (after the frames before it).
    Close,
}

/// The answer to a request this instance forwarded ([`ToTable::Answered`]), boxed so that
/// a table's inbox, which allocates room for 32 messages, stays small.
pub(crate) struct Answered {
    /// The connection that sent the request.
    pub(crate) conn: u64,
    /// Who its link opens.
    pub(crate) who: String,
    /// The request's id.
    pub(crate) id: Option<String>,
    /// The answer's frame.
    pub(crate) frame: String,
}

/// What a table's actor is asked.
pub(crate) enum ToTable {
    /// A connection said hello with this token.
    Join {
        token: String,
        since: u64,
        conn: u64,
        out: mpsc::Sender<Out>,
        reply: oneshot::Sender<Result<(), Refusal>>,
    },
    /// A joined connection's request.
    Request { conn: u64, message: Box<ClientMessage>, received: Instant },
    /// A connection ended.
    Leave { conn: u64 },
    /// The log of the viewer this token opens.
    Log { token: String, reply: oneshot::Sender<Result<TableLog, Refusal>> },
    /// The verifiable log (JSON Lines) of the viewer this token opens.
    FairLog { token: String, reply: oneshot::Sender<Result<String, Refusal>> },
    /// A request another instance forwarded (this one applies the table): from its
    /// connection `conn`, whose link opens `who`.
    Forwarded { from: String, conn: u64, who: String, message: Box<ClientMessage> },
    /// The answer to a request this instance forwarded: `frame` for connection `conn`.
    Answered(Box<Answered>),
    /// A link opening `who` was opened on another instance: this one's connections of it are
    /// taken over.
    TakenOver { who: String },
    /// The server is shutting down.
    Close,
}

/// The connection numbers an actor gives, while it handles one, the requests another instance
/// forwarded (never a number of this instance's own connections).
const REMOTE: u64 = 1 << 63;

/// The server's tables and everything they share.
pub struct Hub<S: TableStore> {
    pub(crate) store: S,
    pub(crate) metrics: Metrics,
    pub(crate) config: Config,
    pub(crate) base_url: String,
    /// Each table in memory: its actor's generation (which spawn it is) and inbox.
    tables: Mutex<HashMap<u64, (u64, mpsc::Sender<ToTable>)>>,
    next_gen: AtomicUsize,
    open: AtomicUsize,
    pub(crate) connections: AtomicUsize,
    next_conn: AtomicUsize,
    /// Set when the server shuts down.
    pub(crate) shutdown: watch::Receiver<bool>,
    /// Every actor holds a clone; shutdown waits until all are dropped.
    alive: Mutex<Option<mpsc::Sender<()>>>,
    /// Other instances on the same store: what they commit, and the leases.
    pub(crate) fanout: fanout::Fanout,
}

/// The name of a table on the wire: its number.
pub(crate) fn table_name(id: TableId) -> String {
    id.0.to_string()
}

fn who_key(who: Who) -> String {
    match who {
        Who::Seat { seat } => format!("seat:{seat}"),
        Who::Gm => "gm".into(),
        Who::Spectator => "spectator".into(),
    }
}

fn who_of(key: &str) -> Option<Who> {
    match key {
        "gm" => Some(Who::Gm),
        "spectator" => Some(Who::Spectator),
        _ => key.strip_prefix("seat:")?.parse().ok().map(|seat| Who::Seat { seat }),
    }
}

/// Whose redaction `who` sees: a seat its own; the GM link what the rules' GM seat `gm` may
/// see (the NPCs' sheets and face-down choices: the hidden information the GM may see, decided
/// once by the ruleset's own redaction), or what is public when the rules have no GM seat; a
/// spectator what is public.
fn viewer(who: Who, gm: Option<u16>) -> Viewer {
    match (who, gm) {
        (Who::Seat { seat }, _) => Viewer::Seat(SeatId(seat)),
        (Who::Gm, Some(gm)) => Viewer::Seat(SeatId(gm)),
        (Who::Gm, None) | (Who::Spectator, _) => Viewer::Spectator,
    }
}

impl<S: TableStore> Hub<S> {
    /// A hub over `store`, with the number of open tables it holds.
    pub(crate) fn new(
        store: S,
        config: Config,
        base_url: String,
        open: usize,
        shutdown: watch::Receiver<bool>,
        alive: mpsc::Sender<()>,
        instance: String,
    ) -> Hub<S> {
        let metrics = Metrics::new();
        metrics.tables_open.set(open as i64);
        let fanout = fanout::Fanout::new(store.shared(), config.limits.lease_seconds, instance);
        Hub {
            fanout,
            store,
            metrics,
            config,
            base_url,
            tables: Mutex::new(HashMap::new()),
            open: AtomicUsize::new(open),
            connections: AtomicUsize::new(0),
            next_conn: AtomicUsize::new(1),
            next_gen: AtomicUsize::new(1),
            shutdown,
            alive: Mutex::new(Some(alive)),
        }
    }

    pub(crate) fn next_conn(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed) as u64
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, (u64, mpsc::Sender<ToTable>)>> {
        // A panic while holding the lock cannot leave the map inconsistent (single inserts and
        // removes), so a poisoned lock is used as it is.
        self.tables.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The actor of table `id`, started (and the table loaded) if it is not in memory.
    pub(crate) fn table(self: &Arc<Self>, id: u64) -> Option<mpsc::Sender<ToTable>> {
        if *self.shutdown.borrow() {
            return None;
        }
        let alive = self.alive.lock().unwrap_or_else(|p| p.into_inner()).clone()?;
        let mut map = self.lock();
        if let Some((_, tx)) = map.get(&id).filter(|(_, tx)| !tx.is_closed()) {
            return Some(tx.clone());
        }
        let (tx, rx) = mpsc::channel(INBOX);
        let generation = self.next_gen.fetch_add(1, Ordering::Relaxed) as u64;
        map.insert(id, (generation, tx.clone()));
        drop(map);
        let hub = Arc::clone(self);
        tokio::spawn(async move {
            let _alive = alive;
            actor_main(hub, TableId(id), generation, rx, None).await;
        });
        Some(tx)
    }

    /// Starts the actor of a table just created, with the game it was created from (nothing to
    /// read back from the store). Does nothing if the server is shutting down: the table is
    /// kept, and loads on its first hello after a restart.
    fn start(self: &Arc<Self>, actor: Box<Actor<S>>) {
        if *self.shutdown.borrow() {
            return;
        }
        let Some(alive) = self.alive.lock().unwrap_or_else(|p| p.into_inner()).clone() else { return };
        let id = actor.id;
        let (tx, rx) = mpsc::channel(INBOX);
        let generation = self.next_gen.fetch_add(1, Ordering::Relaxed) as u64;
        self.lock().insert(id.0, (generation, tx));
        let hub = Arc::clone(self);
        tokio::spawn(async move {
            let _alive = alive;
            actor_main(hub, id, generation, rx, Some(actor)).await;
        });
    }

    /// Sends `message` to table `id`'s actor, loading the table if needed (once more if the
    /// actor left memory meanwhile).
    pub(crate) async fn send(self: &Arc<Self>, id: u64, mut message: ToTable) -> Result<(), Refusal> {
        // Issue 33: a token none of the table's links has loads nothing (the store's token index).
        if let ToTable::Join { token, .. } | ToTable::Log { token, .. } | ToTable::FairLog { token, .. } =
            &message
            && self.lock().get(&id).is_none_or(|(_, tx)| tx.is_closed())
            && matches!(self.store.opens(TableId(id), &auth::hash(token)).await, Ok(false))
        {
            let m = format!("this link opens nothing at table {id} (mistyped, revoked or reissued)");
            return Err(Refusal::new(ErrorCode::Unauthorized, m));
        }
        for _ in 0..3 {
            let tx = self
                .table(id)
                .ok_or_else(|| Refusal::new(ErrorCode::Internal, "the server is shutting down"))?;
            match tx.send(message).await {
                Ok(()) => return Ok(()),
                Err(mpsc::error::SendError(m)) => message = m,
            }
        }
        Err(Refusal::new(ErrorCode::Internal, format!("table {id} could not be loaded")))
    }

    /// Sends `message` to table `id`'s actor if the table is in memory (else drops it).
    pub(crate) async fn send_if_loaded(&self, id: u64, message: ToTable) {
        let tx = self.lock().get(&id).map(|(_, tx)| tx.clone());
        if let Some(tx) = tx {
            let _ = tx.send(message).await;
        }
    }

    /// Removes table `id`'s entry if it is still this actor's (`generation`) and nothing waits
    /// in its inbox; false when something does.
    fn leave_memory(&self, id: TableId, generation: u64, rx: &mpsc::Receiver<ToTable>) -> bool {
        let mut map = self.lock();
        if !rx.is_empty() {
            return false;
        }
        self.forget(&mut map, id, generation);
        true
    }

    fn forget(&self, map: &mut HashMap<u64, (u64, mpsc::Sender<ToTable>)>, id: TableId, generation: u64) {
        if map.get(&id.0).is_some_and(|(g, _)| *g == generation) {
            map.remove(&id.0);
        }
    }

    /// Every table in memory is told to close; returns once all their actors ended.
    pub(crate) async fn close_all(&self, mut all_gone: mpsc::Receiver<()>) {
        let senders: Vec<_> = self.lock().values().map(|(_, tx)| tx.clone()).collect();
        self.alive.lock().unwrap_or_else(|p| p.into_inner()).take();
        for tx in senders {
            let _ = tx.send(ToTable::Close).await;
        }
        // Every actor holds a sender: recv returns None once the last one ended.
        let _ = tokio::time::timeout(Duration::from_secs(20), all_gone.recv()).await;
    }

    /// Creates a table: reads the setup (never the host's files), checks the seats, the bots
    /// and the options, makes the links' tokens and keeps only their hashes.
    pub async fn create_table(self: &Arc<Self>, request: CreateTable) -> Result<CreatedTable, Refusal> {
        let refused = |m: String| Refusal::new(ErrorCode::Refused, m);
        // This instance counts the tables it created and the ones it saw finish; with several
        // instances on one store another may finish ours, so at the limit the store counts.
        if self.open.load(Ordering::Relaxed) >= self.config.limits.max_tables
            && let Ok(open) = self.store.open_tables().await
        {
            self.open.store(open.len(), Ordering::Relaxed);
            self.metrics.tables_open.set(open.len() as i64);
        }
        if self.open.load(Ordering::Relaxed) >= self.config.limits.max_tables {
            return Err(Refusal::new(
                ErrorCode::Full,
                format!("the server holds its limit of {} open tables", self.config.limits.max_tables),
            ));
        }
        check_options(&request.options).map_err(refused)?;
        let (setup, mut game) = systems::read_and_open_with(&request.system, &request.setup, &request.rules)
            .map_err(|e| refused(e.to_string()))?;
        let seats = game.seats().clone();
        let names: Vec<String> = seats.iter().map(|(_, s)| s.name.clone()).collect();
        let mut controllers: Vec<Controller> = vec![Controller::Person; names.len()];
        for (name, controller) in &request.seats {
            let Some(i) = names.iter().position(|n| n == name) else {
                return Err(refused(format!(
                    "seats: there is no seat named {name:?} (the seats: {})",
                    names.join(", ")
                )));
            };
            if let Controller::Bot { bot } = controller {
                check_bot(&request.system, bot).map_err(refused)?;
            }
            controllers[i] = controller.clone();
        }
        for (name, mode) in &request.options.modes {
            let Some(i) = names.iter().position(|n| n == name) else {
                return Err(refused(format!(
                    "options.modes: there is no seat named {name:?} (the seats: {})",
                    names.join(", ")
                )));
            };
            if *mode == SeatMode::Sealed && matches!(controllers[i], Controller::Bot { .. }) {
                return Err(refused(format!(
                    "options.modes: seat {name:?} is a bot's, and a bot plays on the server: plain"
                )));
            }
        }
        let mut access = Vec::new();
        let mut links = BTreeMap::new();
        let mut tokens: Vec<(Option<String>, String)> = Vec::new();
        for (i, (name, controller)) in names.iter().zip(&controllers).enumerate() {
            let token = auth::new_token();
            access.push(Access {
                who: who_key(Who::Seat { seat: i as u16 }),
                token_hash: Some(auth::hash(&token)),
                controller: serde_json::to_string(controller).unwrap_or_else(|_| "null".into()),
            });
            tokens.push((Some(name.clone()), token));
        }
        for who in [Who::Gm, Who::Spectator] {
            let token = auth::new_token();
            access.push(Access {
                who: who_key(who),
                token_hash: Some(auth::hash(&token)),
                controller: "null".into(),
            });
            tokens.push((None, token));
        }
        let new = NewTable {
            ruleset: request.system.clone(),
            ruleset_version: game.version().to_string(),
            setup: setup.to_string(),
            options: serde_json::to_string(&request.options).unwrap_or_else(|_| "{}".into()),
            access,
        };
        let id = self.store.create_table(&new).await.map_err(|e| {
            tracing::error!("creating a table: {e}");
            Refusal::new(ErrorCode::Internal, "the table could not be kept; nothing was created")
        })?;
        // docs/fairness.md §4: a fresh secret server seed keys the table's draws; it is kept in
        // the journal (the server's own store) as its entry 0, and only its commitment is shown.
        let seed = ServerSeed::from_bytes(rand::random::<[u8; 32]>());
        let rotation = ServerSeed::from_bytes(rand::random::<[u8; 32]>());
        // docs/fairness.md §8: with an opening round, the rules' first step (and any draw it
        // makes) waits until every seat has committed and the sealed seats have revealed.
        let opening = request.options.opens_with_round(game.draws_before_a_reveal());
        let op =
            Op::Verifiable { server_seed: seed.reveal(), rotation_key: Some(rotation.reveal()), opening };
        let entry = serde_json::to_string(&op).unwrap_or_default();
        let made = game
            .use_verifiable(seed)
            .and_then(|_| game.rotate_with(rotation))
            .and_then(|()| if opening { game.open_with_round() } else { Ok(()) });
        let journal = match made {
            Ok(_) => {
                let write = Write::Journal { table: id, n: 0, entry: entry.clone() };
                self.store.commit(vec![write]).await.map_err(|e| {
                    tracing::error!("keeping the server seed of {id}: {e}");
                    Refusal::new(ErrorCode::Internal, "the table's server seed could not be kept")
                })?;
                vec![entry]
            }
            Err(e) => {
                // A ruleset that never draws keeps its seeded source.
                tracing::error!("{id}: the draws cannot be made verifiable: {e}");
                Vec::new()
            }
        };
        self.open.fetch_add(1, Ordering::Relaxed);
        self.metrics.tables_open.inc();
        let name = table_name(id);
        let mut gm = String::new();
        let mut spectator = String::new();
        for (i, (seat, token)) in tokens.into_iter().enumerate() {
            let url = link(&self.base_url, &name, &token);
            match seat {
                Some(seat) => {
                    links.insert(seat, url);
                }
                None if i == names.len() => gm = url,
                None => spectator = url,
            }
        }
        // The table's actor starts now with the game just opened (bots play without anyone
        // connected; people connect next).
        match Actor::assemble(Arc::clone(self), id, request.system, game, request.options, &new.access) {
            Ok(mut actor) => {
                actor.journal = journal.len() as u64;
                actor.used = crate::journal::Used::of(&journal);
                actor.set_fair_table();
                self.start(Box::new(actor))
            }
            Err(refusal) => tracing::error!("{id}: {}", refusal.message),
        }
        Ok(CreatedTable { table: name, seats: links, gm, spectator })
    }

    pub(crate) fn table_finished(&self) {
        // Never below zero: on a shared store this instance may finish a table another created.
        let _ = self.open.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
        self.metrics.tables_open.set(self.open.load(Ordering::Relaxed) as i64);
    }
}

fn check_options(options: &TableOptions) -> Result<(), String> {
    if let Some(s) = options.decision_seconds
        && !(1..=MAX_DECISION_SECONDS).contains(&s)
    {
        return Err(format!("options.decision_seconds: {s} is not between 1 and {MAX_DECISION_SECONDS}"));
    }
    if options.think_ms > MAX_THINK_MS {
        return Err(format!("options.think_ms: {} is more than {MAX_THINK_MS}", options.think_ms));
    }
    Ok(())
}

fn check_bot(system: &str, kind: &str) -> Result<(), String> {
    let kinds = systems::bot_kinds(system).unwrap_or(&[]);
    if kinds.contains(&kind) {
        Ok(())
    } else {
        Err(format!("{system} has no bot kind {kind:?} (its kinds: {})", kinds.join(", ")))
    }
}

/// Applies one journal entry to the game; a sealed seat's reveal that does not match its
/// commitment comes back as its fault (applied: the seat's decision will be forced).
fn apply(game: &mut dyn Hosted, op: &Op) -> Result<Option<Fault>, AnyError> {
    let nonce = |n: &str| n.parse::<Nonce>().map_err(|_| AnyError::Sealing(SealError::BadNonce));
    match op {
        Op::Submit { seat, command, nonce: Some(n), .. } => {
            game.submit_bound(SeatId(*seat), command, &nonce(n)?).map(|()| None)
        }
        Op::Submit { seat, command, nonce: None, .. } => game.submit(SeatId(*seat), command).map(|()| None),
        Op::TakeBack { seat, lost: false, .. } => game.take_back(SeatId(*seat)).map(|()| None),
        Op::TakeBack { seat, lost: true, .. } => game.give_up(SeatId(*seat)).map(|()| None),
        Op::Force { seat, by, nonce: Some(n), .. } => {
            game.force_bound(SeatId(*seat), by.map(SeatId), &nonce(n)?).map(|()| None)
        }
        Op::Force { seat, by, nonce: None, .. } => game.force(SeatId(*seat), by.map(SeatId)).map(|()| None),
        Op::Undo { by, .. } => game.undo(SeatId(*by)).map(|()| None),
        Op::Seal { seat, commitment, .. } => game.seal(SeatId(*seat), commitment).map(|()| None),
        Op::Reveal { seat, command, nonce, .. } => game.reveal(SeatId(*seat), command, nonce),
        Op::Verifiable { server_seed, rotation_key, opening } => {
            let seed: ServerSeed = server_seed
                .parse()
                .map_err(|e: FairnessError| AnyError::Refused(format!("server seed: {e}")))?;
            game.use_verifiable(seed)?;
            if let Some(key) = rotation_key {
                let key: ServerSeed = key
                    .parse()
                    .map_err(|e: FairnessError| AnyError::Refused(format!("rotation key: {e}")))?;
                game.rotate_with(key)?;
            }
            if *opening {
                game.open_with_round()?;
            }
            Ok(None)
        }
        Op::ClientSeed { seat, seed, .. } => game.add_client_seed(SeatId(*seat), seed).map(|()| None),
    }
}

/// Who asked for an entry, and the client's id, when a client did.
fn asked(op: &Op) -> Option<(String, String)> {
    match op {
        Op::Submit { id: Some(id), who: Some(who), .. } => Some((who.clone(), id.clone())),
        Op::Submit { seat, id: Some(id), .. }
        | Op::TakeBack { seat, id: Some(id), .. }
        | Op::Seal { seat, id: Some(id), .. }
        | Op::Reveal { seat, id: Some(id), .. }
        | Op::ClientSeed { seat, id: Some(id), .. } => Some((who_key(Who::Seat { seat: *seat }), id.clone())),
        Op::Force { id: Some(id), who: Some(who), .. } | Op::Undo { id: Some(id), who: Some(who), .. } => {
            Some((who.clone(), id.clone()))
        }
        _ => None,
    }
}

struct Conn {
    who: Who,
    key: String,
    out: mpsc::Sender<Out>,
    /// The last sequence number this connection was sent.
    seq: u64,
    /// A digest of the last prompt this connection was sent in an update frame (`None`:
    /// not known): a refresh after a commitment skips a seat whose prompt stands.
    prompt: Option<u64>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Deadline {
    Bot,
    Timer,
}

struct Row {
    hash: Option<String>,
    controller: Controller,
}

/// A request another instance forwarded, while this actor handles it.
struct Remote {
    /// The instance it came from.
    instance: String,
    /// Its connection there.
    conn: u64,
    who: Who,
    key: String,
}

/// A request this instance forwarded to the one applying the table, until it is answered.
struct Pending {
    /// The connection it came from.
    conn: u64,
    message: ClientMessage,
    /// The instance it was forwarded to.
    to: String,
    /// When it was last forwarded.
    since: Instant,
    /// How many times it was forwarded again.
    tries: u32,
}

struct Actor<S: TableStore> {
    hub: Arc<Hub<S>>,
    id: TableId,
    name: String,
    ruleset: String,
    game: Box<dyn Hosted>,
    options: TableOptions,
    rules: BTreeMap<String, Value>,
    journal: u64,
    /// What the journal holds, against the table's bounds (issue 33).
    used: crate::journal::Used,
    access: BTreeMap<String, Row>,
    conns: HashMap<u64, Conn>,
    answered: HashMap<String, VecDeque<(String, String)>>,
    deadlines: BTreeMap<u16, (Instant, Deadline)>,
    finished: bool,
    idle_since: Instant,
    /// On a shared store: what other instances committed, and the lease.
    follow: Option<fanout::Follow>,
    /// While requests kept together are judged ([`Actor::requests`]): the refusals, sent only
    /// after the change of the requests kept before them, which may be why they were refused.
    refusals: Option<Vec<(u64, ServerMessage)>>,
    /// Requests another instance forwarded, by the connection number given them while they
    /// are handled.
    remotes: HashMap<u64, Remote>,
    /// Requests forwarded to the instance applying the table, by who sent them and their id.
    forwarded: HashMap<(String, String), Pending>,
    /// Set while a request this instance forwarded in vain is applied here after all.
    local: bool,
    /// The first entry of every viewer's verifiable log (docs/fairness.md §7).
    fair_table: Value,
    /// Each viewer's hash chain over its log so far, and the sequence number it reached.
    heads: std::cell::RefCell<HashMap<Viewer, (HashChain, u64)>>,
    /// The chain of every viewer's verifiable log after its first entry, the table's own
    /// (the same for all): hashed once per table, not once per viewer.
    genesis: Option<HashChain>,
}

async fn actor_main<S: TableStore>(
    hub: Arc<Hub<S>>,
    id: TableId,
    generation: u64,
    mut rx: mpsc::Receiver<ToTable>,
    created: Option<Box<Actor<S>>>,
) {
    // Followed before the load: nothing committed after it goes unheard.
    let follow = hub.fanout.follow(id, generation);
    let actor = match created {
        Some(actor) => Ok(actor),
        None => Box::pin(Actor::load(Arc::clone(&hub), id))
            .await
            .map(Box::new)
            .inspect(|_| tracing::info!(table = id.0, "table {} loaded", id.0)),
    };
    match actor {
        Ok(mut actor) => {
            actor.follow = follow;
            hub.metrics.tables_loaded.inc();
            actor.run(generation, &mut rx).await;
            hub.metrics.tables_loaded.dec();
            hub.fanout.unfollow(id, generation);
        }
        Err(refusal) => {
            hub.fanout.unfollow(id, generation);
            // Answer what is queued, then leave: the next hello tries again.
            rx.close();
            hub.forget(&mut hub.lock(), id, generation);
            while let Some(m) = rx.recv().await {
                match m {
                    ToTable::Join { reply, .. } => {
                        let _ = reply.send(Err(refusal.clone()));
                    }
                    ToTable::Log { reply, .. } => {
                        let _ = reply.send(Err(refusal.clone()));
                    }
                    ToTable::FairLog { reply, .. } => {
                        let _ = reply.send(Err(refusal.clone()));
                    }
                    _ => {}
                }
            }
        }
    }
}

impl<S: TableStore> Actor<S> {
    async fn load(hub: Arc<Hub<S>>, id: TableId) -> Result<Actor<S>, Refusal> {
        let unknown = || Refusal::new(ErrorCode::Unauthorized, format!("there is no table {}", id.0));
        let stored = hub.store.load(id).await.map_err(|e| match e {
            store::PersistError::NoTable(_) => unknown(),
            // Issue 33: said to whoever opens it and in the log, never taken for a missing table.
            e => {
                tracing::error!(
                    "{id} cannot be loaded: {e} (`facedown tables export --table {}` still writes it)",
                    id.0
                );
                Refusal::new(ErrorCode::Internal, format!("table {} cannot be loaded: {e}", id.0))
            }
        })?;
        let damaged = |what: &str, e: &dyn std::fmt::Display| {
            tracing::error!("{id} cannot be resumed: {what}: {e}");
            Refusal::new(ErrorCode::Internal, format!("table {} cannot be resumed ({what})", id.0))
        };
        let setup: Value = serde_json::from_str(&stored.table.setup).map_err(|e| damaged("setup", &e))?;
        let game = systems::open(&stored.table.ruleset, &setup).map_err(|e| damaged("setup", &e))?;
        let options: TableOptions =
            serde_json::from_str(&stored.table.options).map_err(|e| damaged("options", &e))?;
        let mut actor = Actor::assemble(hub, id, stored.table.ruleset, game, options, &stored.table.access)?;
        actor.finished = stored.finished;
        for (n, entry) in stored.journal.iter().enumerate() {
            let op: Op =
                serde_json::from_str(entry).map_err(|e| damaged(&format!("journal entry {n}"), &e))?;
            let fault =
                apply(&mut *actor.game, &op).map_err(|e| damaged(&format!("journal entry {n}"), &e))?;
            if let Some((who, cid)) = asked(&op) {
                let answer = answer(cid.clone(), actor.game.seq(), fault);
                remember(&mut actor.answered, who, cid, &answer);
            }
        }
        actor.journal = stored.journal.len() as u64;
        actor.used = crate::journal::Used::of(&stored.journal);
        actor.set_fair_table();
        Ok(actor)
    }

    /// The first entry of every viewer's verifiable log (docs/fairness.md §7.1): the system,
    /// the setup's commitment (the setup itself is revealed in the log at the game's end, so
    /// no viewer reads in it what the rules hide, an NPC's moves), the seats with their modes
    /// and the server seed's commitment. Set once the game's draws are verifiable (or known
    /// not to be).
    fn set_fair_table(&mut self) {
        let game = &self.game;
        let seats: Vec<session::fairlog::SeatEntry> = game
            .seats()
            .iter()
            .enumerate()
            .map(|(i, (_, s))| session::fairlog::SeatEntry {
                name: s.name.clone(),
                mode: if game.mode(SeatId(i as u16)) == Mode::Sealed { "sealed" } else { "plain" }.to_owned(),
            })
            .collect();
        self.fair_table = session::fairlog::table_entry(
            &self.ruleset,
            game.setup_commitment().as_ref(),
            &seats,
            game.server_seed_commitment().as_ref(),
        );
        let mut chain = HashChain::new();
        self.genesis = chain.append(&self.fair_table).ok().map(|_| chain);
        self.heads.borrow_mut().clear();
    }

    /// A table's actor before its journal is replayed: the opened game, its seats' tokens and
    /// controllers (bots seated), nothing answered yet.
    fn assemble(
        hub: Arc<Hub<S>>,
        id: TableId,
        ruleset: String,
        mut game: Box<dyn Hosted>,
        options: TableOptions,
        rows: &[Access],
    ) -> Result<Actor<S>, Refusal> {
        let damaged = |what: &str, e: &dyn std::fmt::Display| {
            tracing::error!("{id} cannot be resumed: {what}: {e}");
            Refusal::new(ErrorCode::Internal, format!("table {} cannot be resumed ({what})", id.0))
        };
        let mut access = BTreeMap::new();
        for row in rows {
            let controller = if row.who.starts_with("seat:") {
                serde_json::from_str(&row.controller).map_err(|e| damaged("seat controller", &e))?
            } else {
                Controller::Person
            };
            if let (Some(Who::Seat { seat }), Controller::Bot { bot }) = (who_of(&row.who), &controller) {
                game.set_bot(SeatId(seat), Some(bot), bot_seed(id, seat)).map_err(|e| damaged("bot", &e))?;
            }
            access.insert(row.who.clone(), Row { hash: row.token_hash.clone(), controller });
        }
        let names: Vec<String> = game.seats().iter().map(|(_, s)| s.name.clone()).collect();
        for (name, mode) in &options.modes {
            if let Some(i) = names.iter().position(|n| n == name) {
                game.set_mode(SeatId(i as u16), (*mode).into()).map_err(|e| damaged("options.modes", &e))?;
            }
        }
        let rules = game.rules_options();
        Ok(Actor {
            // Set once the server seed is in (`set_fair_table`).
            fair_table: Value::Null,
            heads: Default::default(),
            genesis: None,
            name: table_name(id),
            ruleset,
            hub,
            id,
            game,
            options,
            rules,
            journal: 0,
            used: Default::default(),
            access,
            conns: HashMap::new(),
            answered: HashMap::new(),
            deadlines: BTreeMap::new(),
            finished: false,
            idle_since: Instant::now(),
            follow: None,
            refusals: None,
            remotes: HashMap::new(),
            forwarded: HashMap::new(),
            local: false,
        })
    }

    /// Runs the table until it leaves memory. The actor is boxed, so that its task holds it
    /// once, behind a pointer, and not once in each of the futures that pass it on.
    async fn run(mut self: Box<Self>, generation: u64, rx: &mut mpsc::Receiver<ToTable>) {
        self.reschedule(None);
        // The sub-futures are boxed: an idle table's task holds only the wait below, not the
        // largest request's state (a few KiB a table; docs/performance.md).
        if let Err(fatal) = Box::pin(self.renew_lease()).await {
            tracing::error!("{}: {fatal}", self.id);
        }
        let idle = Duration::from_secs(self.hub.config.limits.idle_seconds);
        loop {
            // Bots and timers run where the table's lease is held.
            fanout::want(&mut self.follow, !self.deadlines.is_empty() && !self.finished);
            let runs = fanout::runs_deadlines(&self.follow);
            let next = self.deadlines.values().map(|(at, _)| *at).min().filter(|_| runs);
            // A finished table nobody is connected to leaves memory at once: nothing can change
            // it but an undo, whose link reloads it, and the tables a busy server finishes would
            // otherwise pile up for the idle limit (docs/performance.md, round 14).
            let wait = if self.finished { Duration::ZERO } else { idle };
            let idle_at = (self.conns.is_empty() && next.is_none()).then(|| self.idle_since + wait);
            let check_at = self.forwarded_check_at();
            tokio::select! {
                message = rx.recv() => {
                    let Some(message) = message else { break };
                    match message {
                        ToTable::Close => {
                            self.close_all(ServerMessage::Closing {});
                            break;
                        }
                        m => {
                            let (handled, later) = match self.batchable(m) {
                                // Requests already waiting behind this one are kept with it.
                                Ok(first) => {
                                    let hold = self.waits_for_another(first.0, &first.1);
                                    let next = match rx.try_recv() {
                                        Ok(next) => Some(next),
                                        // The other seat's decision is likely on its way: kept
                                        // with this one, the two share a commit.
                                        Err(_) if let Some(wait) = hold => {
                                            tokio::time::timeout(wait, rx.recv()).await.ok().flatten()
                                        }
                                        Err(_) => None,
                                    };
                                    let mut batch = vec![first];
                                    let mut later = next.and_then(|n| match self.batchable(n) {
                                        Ok(second) => {
                                            batch.push(second);
                                            None
                                        }
                                        Err(other) => Some(*other),
                                    });
                                    while batch.len() > 1 && batch.len() < MAX_TOGETHER && later.is_none() {
                                        match rx.try_recv() {
                                            Ok(next) => match self.batchable(next) {
                                                Ok(request) => batch.push(request),
                                                Err(other) => later = Some(*other),
                                            },
                                            Err(_) => break,
                                        }
                                    }
                                    let handled = if batch.len() > 1 {
                                        Box::pin(self.requests(batch)).await
                                    } else {
                                        // Alone (the usual case): as any request.
                                        let (conn, message, received) = batch.remove(0);
                                        Box::pin(self.request(conn, message, received)).await
                                    };
                                    // The forwarded requests' connection numbers end with them.
                                    self.remotes.clear();
                                    (handled, later)
                                }
                                Err(m) => (Box::pin(self.handle(*m)).await, None),
                            };
                            let (handled, close) = match later {
                                Some(ToTable::Close) => (handled, true),
                                Some(m) if handled.is_ok() => (Box::pin(self.handle(m)).await, false),
                                _ => (handled, false),
                            };
                            if close && handled.is_ok() {
                                self.close_all(ServerMessage::Closing {});
                                break;
                            }
                            if let Err(fatal) = handled {
                                tracing::error!("{}: {fatal}; the table leaves memory and reloads from the store", self.id);
                                self.close_all(ServerMessage::Error {
                                    id: None,
                                    code: ErrorCode::Internal,
                                    message: "the server could not keep a change; reconnect".into(),
                                });
                                break;
                            }
                        }
                    }
                }
                () = sleep_until(next), if next.is_some() => {
                    if let Err(fatal) = Box::pin(self.fire()).await {
                        tracing::error!("{}: {fatal}", self.id);
                        self.close_all(ServerMessage::Closing {});
                        break;
                    }
                }
                wake = fanout::wake(&mut self.follow) => {
                    if let Err(fatal) = Box::pin(self.woken(wake)).await {
                        tracing::error!("{}: {fatal}; the table leaves memory and reloads from the store", self.id);
                        self.close_all(ServerMessage::Closing {});
                        break;
                    }
                }
                () = sleep_until(check_at), if check_at.is_some() => {
                    if let Err(fatal) = Box::pin(self.check_forwarded()).await {
                        tracing::error!("{}: {fatal}; the table leaves memory and reloads from the store", self.id);
                        self.close_all(ServerMessage::Closing {});
                        break;
                    }
                }
                () = sleep_until(idle_at), if idle_at.is_some() => {
                    if self.hub.leave_memory(self.id, generation, rx) {
                        break;
                    }
                }
            }
            if self.conns.is_empty() && self.deadlines.is_empty() {
                // Idle from now, unless it already was.
            } else {
                self.idle_since = Instant::now();
            }
        }
        Box::pin(self.release_lease()).await;
        self.hub.forget(&mut self.hub.lock(), self.id, generation);
    }

    async fn handle(&mut self, message: ToTable) -> Result<(), String> {
        match message {
            ToTable::Join { token, since, conn, out, reply } => {
                let _ = reply.send(self.join(&token, since, conn, out));
                Ok(())
            }
            ToTable::Request { conn, message, received } => self.request(conn, *message, received).await,
            ToTable::Leave { conn } => {
                if let Some(c) = self.conns.remove(&conn)
                    && matches!(c.who, Who::Seat { .. })
                {
                    self.send_seats();
                }
                Ok(())
            }
            ToTable::Log { token, reply } => {
                let _ = reply.send(self.log(&token));
                Ok(())
            }
            ToTable::FairLog { token, reply } => {
                let _ = reply.send(self.fair_log(&token));
                Ok(())
            }
            ToTable::Forwarded { from, conn, who, message } => {
                let Some(w) = who_of(&who) else { return Ok(()) };
                let remote = REMOTE | self.hub.next_conn();
                self.remotes.insert(remote, Remote { instance: from, conn, who: w, key: who });
                let result = self.request(remote, *message, Instant::now()).await;
                self.remotes.remove(&remote);
                result
            }
            ToTable::TakenOver { who } => {
                let had = self.conns.values().any(|c| c.key == who);
                self.take_over(&who);
                if had && who.starts_with("seat:") {
                    self.send_seats();
                }
                Ok(())
            }
            ToTable::Answered(answered) => {
                let Answered { conn, who, id, frame } = *answered;
                // Answered once: a second answer (the request was forwarded again) is dropped;
                // the answer goes where the client sent the request last.
                let conn = match id {
                    Some(id) => match self.forwarded.remove(&(who, id)) {
                        Some(pending) => pending.conn,
                        None => return Ok(()),
                    },
                    None => conn,
                };
                if let Some(c) = self.conns.get(&conn) {
                    let _ = c.out.try_send(Out::Text(frame));
                }
                Ok(())
            }
            ToTable::Close => Ok(()),
        }
    }

    /// Who `token` opens, compared in constant time against every link's hash.
    fn who_by_token(&self, token: &str) -> Option<Who> {
        let mut found = None;
        for (key, row) in &self.access {
            if let Some(hash) = &row.hash
                && auth::matches(token, hash)
            {
                found = who_of(key);
            }
        }
        found
    }

    fn unauthorized(&self) -> Refusal {
        Refusal::new(
            ErrorCode::Unauthorized,
            format!("this link opens nothing at table {} (mistyped, revoked or reissued)", self.name),
        )
    }

    fn join(&mut self, token: &str, since: u64, conn: u64, out: mpsc::Sender<Out>) -> Result<(), Refusal> {
        let who = self.who_by_token(token).ok_or_else(|| self.unauthorized())?;
        let key = who_key(who);
        if who != Who::Spectator {
            // A link opened on a second device takes the seat over, here and on every other
            // instance of a shared store.
            self.take_over(&key);
            self.tell_opened(&key);
        }
        let since = since.min(self.game.seq());
        let change = self.change(who, since);
        let welcome = ServerMessage::Welcome {
            v: crate::protocol::VERSION,
            table: self.name.clone(),
            ruleset: self.ruleset.clone(),
            you: who,
            seats: self.seats(),
            options: self.options.clone(),
            rules: self.rules.clone(),
            round: self.game.round().map(|r| Box::new(round_state(r))),
            server_seed_commitment: self.game.server_seed_commitment().map(|c| c.to_string()),
            last_id: self.answered.get(&key).map_or(0, |q| ids_seen(q).1),
            change,
        };
        let seq = self.game.seq();
        if out.try_send(Out::Text(text(&welcome))).is_err() {
            return Err(Refusal::new(ErrorCode::Internal, "the connection closed"));
        }
        let prompt = match who {
            Who::Seat { seat } => {
                Some(prompt_digest(self.game.prompt_raw(SeatId(seat)).ok().flatten().as_deref()))
            }
            _ => None,
        };
        self.conns.insert(conn, Conn { who, key, out, seq, prompt });
        if matches!(who, Who::Seat { .. }) {
            self.send_seats();
        }
        Ok(())
    }

    /// Closes this instance's connections of the link opening `key`, telling each it was
    /// taken over by another device.
    fn take_over(&mut self, key: &str) {
        let old: Vec<u64> = self.conns.iter().filter(|(_, c)| c.key == key).map(|(id, _)| *id).collect();
        for id in old {
            if let Some(c) = self.conns.remove(&id) {
                let _ = c.out.try_send(Out::Text(text(&ServerMessage::TakenOver {})));
                let _ = c.out.try_send(Out::Close);
            }
        }
    }

    fn log(&self, token: &str) -> Result<TableLog, Refusal> {
        let who = self.who_by_token(token).ok_or_else(|| self.unauthorized())?;
        Ok(TableLog {
            ruleset: self.ruleset.clone(),
            you: who,
            updates: self.game.updates_since(viewer(who, self.gm_seat()), 0),
            over: self.game.is_over(),
        })
    }

    fn change(&self, who: Who, since: u64) -> Change {
        let v = viewer(who, self.gm_seat());
        let prompt = match who {
            Who::Seat { seat } => self.game.prompt(SeatId(seat)).ok().flatten(),
            _ => None,
        };
        Change {
            updates: self.game.updates_since(v, since),
            seq: self.game.seq(),
            view: self.game.view(v).unwrap_or(Value::Null),
            prompt,
            awaiting: self.game.awaiting().into_iter().map(|s| s.0).collect(),
            over: self.game.is_over(),
            head: self.head(v),
            timers: self.timers(),
        }
    }

    /// The decision timers running now: seat → milliseconds left before its decision is
    /// forced (a bot's think delay is no timer).
    fn timers(&self) -> Vec<Timer> {
        let now = Instant::now();
        self.deadlines
            .iter()
            .filter(|(_, (_, kind))| *kind == Deadline::Timer)
            .map(|(&seat, (at, _))| Timer { seat, ms: at.saturating_duration_since(now).as_millis() as u64 })
            .collect()
    }

    /// The head of `viewer`'s verifiable log as it stands (docs/fairness.md §6), chained on
    /// from where it was last asked.
    fn head(&self, viewer: Viewer) -> Option<String> {
        let mut heads = self.heads.borrow_mut();
        let seq = self.game.seq();
        let (chain, done) = match heads.entry(viewer) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert((self.genesis?, 0)),
        };
        if *done < seq {
            for update in self.game.updates_since(viewer, *done) {
                chain.append(&update).ok()?;
            }
            *done = seq;
        }
        Some(chain.head().to_string())
    }

    /// [`Actor::head`] once `viewer` has been sent `items`, the canonical texts of its log
    /// after `since`: chained on from them when the chain stands at `since`, as it does when
    /// every frame to `viewer` carried the items since the one before.
    fn head_after(&self, viewer: Viewer, since: u64, items: &[Arc<str>]) -> Option<String> {
        {
            let mut heads = self.heads.borrow_mut();
            let seq = self.game.seq();
            let (chain, done) = match heads.entry(viewer) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => e.insert((self.genesis?, 0)),
            };
            if *done == since && since + items.len() as u64 == seq {
                for item in items {
                    chain.append_canonical(item);
                }
                *done = seq;
                return Some(chain.head().to_string());
            }
        }
        self.head(viewer)
    }

    /// `viewer`'s verifiable log (docs/fairness.md §7): JSON Lines, the table entry then every
    /// item of its log, each chained to the one before.
    fn fair_log(&self, token: &str) -> Result<String, Refusal> {
        let who = self.who_by_token(token).ok_or_else(|| self.unauthorized())?;
        let entries = std::iter::once(self.fair_table.clone())
            .chain(self.game.updates_since(viewer(who, self.gm_seat()), 0));
        session::fairlog::write(entries)
            .map(|(text, _)| text)
            .map_err(|e| Refusal::new(ErrorCode::Internal, format!("the log has no canonical form: {e}")))
    }

    fn seats(&self) -> Vec<SeatInfo> {
        self.game
            .seats()
            .iter()
            .map(|(id, s)| {
                let i = id.0;
                let key = who_key(Who::Seat { seat: i });
                SeatInfo {
                    seat: i,
                    name: s.name.clone(),
                    role: serde_json::to_value(s.role)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default(),
                    side: s.side.0,
                    controller: self.access.get(&key).map_or(Controller::Person, |r| r.controller.clone()),
                    connected: self.conns.values().any(|c| c.key == key),
                    mode: match self.game.mode(id) {
                        Mode::Plain => SeatMode::Plain,
                        Mode::Sealed => SeatMode::Sealed,
                    },
                }
            })
            .collect()
    }

    fn send_seats(&mut self) {
        let frame = text(&ServerMessage::Seats { seats: self.seats() });
        self.send_all(|_| Some(frame.clone()));
    }

    /// Sends each connection what `frame` makes for it; a connection whose queue is full is
    /// stuck and closed (it reconnects and catches up by sequence number).
    fn send_all(&mut self, mut frame: impl FnMut(&Conn) -> Option<String>) {
        let mut stuck = Vec::new();
        for (id, c) in &self.conns {
            if let Some(f) = frame(c)
                && c.out.try_send(Out::Text(f)).is_err()
            {
                stuck.push(*id);
            }
        }
        for id in stuck {
            if let Some(c) = self.conns.remove(&id) {
                let _ = c.out.try_send(Out::Close);
            }
        }
    }

    fn send_to(&mut self, conn: u64, message: &ServerMessage) {
        if self.remotes.contains_key(&conn) {
            let id = match message {
                ServerMessage::Error { id, .. } => id.clone(),
                ServerMessage::Ack { id, .. } => Some(id.clone()),
                _ => None,
            };
            self.send_frame(conn, id, text(message));
            return;
        }
        if let Some(c) = self.conns.get(&conn)
            && c.out.try_send(Out::Text(text(message))).is_err()
        {
            let c = self.conns.remove(&conn);
            if let Some(c) = c {
                let _ = c.out.try_send(Out::Close);
            }
        }
    }

    /// Sends connection `conn` a frame answering request `id`: a connection of this instance
    /// directly, one of the instance that forwarded the request through the store.
    fn send_frame(&mut self, conn: u64, id: Option<String>, frame: String) {
        if let Some(remote) = self.remotes.get(&conn) {
            let answer = fanout::Bus::Answer {
                table: self.id.0,
                conn: remote.conn,
                who: remote.key.clone(),
                id: id.clone(),
                frame,
            };
            let told = self.hub.fanout.tell(&remote.instance, &answer).or_else(|e| {
                // Too large for a notice (a long refusal): the client is told to ask again.
                tracing::warn!("{}: an answer to another instance: {e}", self.id);
                let short = ServerMessage::Error {
                    id: id.clone(),
                    code: ErrorCode::Internal,
                    message: "the answer did not fit a notice between instances; send the request again"
                        .into(),
                };
                let answer = fanout::Bus::Answer {
                    table: self.id.0,
                    conn: remote.conn,
                    who: remote.key.clone(),
                    id,
                    frame: text(&short),
                };
                self.hub.fanout.tell(&remote.instance, &answer)
            });
            if let Err(e) = told {
                tracing::warn!("{}: an answer to another instance was lost: {e}", self.id);
            }
            return;
        }
        if let Some(c) = self.conns.get(&conn)
            && c.out.try_send(Out::Text(frame)).is_err()
            && let Some(c) = self.conns.remove(&conn)
        {
            let _ = c.out.try_send(Out::Close);
        }
    }

    fn close_all(&mut self, last: ServerMessage) {
        let frame = text(&last);
        for (_, c) in self.conns.drain() {
            let _ = c.out.try_send(Out::Text(frame.clone()));
            let _ = c.out.try_send(Out::Close);
        }
    }

    /// The update frame `who` is sent for the items after `since`: the items' canonical
    /// texts, and the view and prompt written from the session's typed values straight to
    /// text. The same JSON as [`ServerMessage::Update`].
    fn update_frame(&self, who: Who, since: u64, texts: &mut CanonicalTexts) -> String {
        let prompt = match who {
            Who::Seat { seat } => self.game.prompt_raw(SeatId(seat)).ok().flatten(),
            _ => None,
        };
        self.update_frame_with(who, since, prompt.as_deref(), texts)
    }

    /// [`Actor::update_frame`] with `who`'s prompt already written. The updates are the
    /// canonical texts `who`'s verifiable log hashes (`texts` keeps those of this round of
    /// frames for the other viewers), so each item is written once for the frame and the
    /// head both.
    fn update_frame_with(
        &self,
        who: Who,
        since: u64,
        prompt: Option<&RawValue>,
        texts: &mut CanonicalTexts,
    ) -> String {
        #[derive(serde::Serialize)]
        struct Frame<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            updates: &'a RawValue,
            seq: u64,
            view: &'a RawValue,
            prompt: Option<&'a RawValue>,
            awaiting: &'a [u16],
            over: bool,
            #[serde(skip_serializing_if = "Option::is_none")]
            head: Option<String>,
            #[serde(skip_serializing_if = "Vec::is_empty")]
            timers: Vec<Timer>,
        }
        let v = viewer(who, self.gm_seat());
        let written = self.game.updates_canonical(v, since, texts).ok().and_then(|items| {
            let list = RawValue::from_string(format!("[{}]", items.join(","))).ok()?;
            Some((list, self.head_after(v, since, &items)))
        });
        // An item without a canonical form (none of the rulesets' has one) still reaches its
        // viewer; only the head is missing, as `head` gives none either.
        let (updates, head) = written.unwrap_or_else(|| (self.game.updates_raw(v, since), self.head(v)));
        let view = self.game.view_raw(v).unwrap_or_else(|_| RawValue::NULL.to_owned());
        let awaiting: Vec<u16> = self.game.awaiting().into_iter().map(|s| s.0).collect();
        let frame = Frame {
            kind: "update",
            updates: &updates,
            seq: self.game.seq(),
            view: &view,
            prompt,
            awaiting: &awaiting,
            over: self.game.is_over(),
            head,
            timers: self.timers(),
        };
        serde_json::to_string(&frame).unwrap_or_default()
    }

    /// Sends every connection the log items it has not seen, with its view and prompt. Links
    /// that are asked nothing and see the same (the spectators; GM links) share one frame.
    fn broadcast(&mut self) {
        let seq = self.game.seq();
        let gm = self.gm_seat();
        let mut made: Vec<((Viewer, u64), String)> = Vec::new();
        let mut texts = CanonicalTexts::default();
        let mut frames = Vec::new();
        for (id, c) in &self.conns {
            if c.seq < seq {
                // A seat's frame carries its prompt, so it is never shared, not even with the
                // GM link, which sees as the GM seat but is asked nothing.
                let (frame, prompt) = if let Who::Seat { seat } = c.who {
                    let prompt = self.game.prompt_raw(SeatId(seat)).ok().flatten();
                    let frame = self.update_frame_with(c.who, c.seq, prompt.as_deref(), &mut texts);
                    (frame, Some(prompt_digest(prompt.as_deref())))
                } else {
                    let key = (viewer(c.who, gm), c.seq);
                    let frame = match made.iter().find(|(k, _)| *k == key) {
                        Some((_, f)) => f.clone(),
                        None => {
                            let f = self.update_frame(c.who, c.seq, &mut texts);
                            made.push((key, f.clone()));
                            f
                        }
                    };
                    (frame, None)
                };
                frames.push((*id, frame, prompt));
            }
        }
        let mut stuck = Vec::new();
        for (id, frame, prompt) in frames {
            if let Some(c) = self.conns.get_mut(&id) {
                c.seq = seq;
                c.prompt = prompt;
                if c.out.try_send(Out::Text(frame)).is_err() {
                    stuck.push(id);
                }
            }
        }
        for id in stuck {
            if let Some(c) = self.conns.remove(&id) {
                let _ = c.out.try_send(Out::Close);
            }
        }
    }

    fn refuse(&mut self, conn: u64, id: Option<String>, code: ErrorCode, message: String) {
        self.hub.metrics.refusal(code);
        let error = ServerMessage::Error { id, code, message };
        match self.refusals.as_mut() {
            Some(later) => later.push((conn, error)),
            None => self.send_to(conn, &error),
        }
    }

    /// A fresh random nonce for a command that may belong to a sealed round: only at a table
    /// with a sealed seat (the server's own commitment to a plain seat's or a bot's choice).
    fn nonce(&self) -> Option<String> {
        (self.game.sealing() || self.game.round().is_some_and(|r| r.opening))
            .then(|| hex::encode(rand::random::<[u8; 32]>()))
    }

    /// `message` as a request that may be kept together with others ([`Actor::requests`]):
    /// a seat's decision or one like it, from a connection of this instance or forwarded by
    /// another, while this instance applies the table's requests (on a store of its own, or
    /// holding the table's lease on a shared one). A forwarded one gets its connection number
    /// here, until the batch is handled. Anything else is given back.
    fn batchable(&mut self, message: ToTable) -> Result<(u64, ClientMessage, Instant), Box<ToTable>> {
        if fanout::elsewhere(&self.follow).is_some() || self.local {
            return Err(Box::new(message));
        }
        match message {
            ToTable::Request { conn, message, received } if together(&message) => {
                Ok((conn, *message, received))
            }
            ToTable::Forwarded { from, conn, who, message } if together(&message) => match who_of(&who) {
                Some(w) => {
                    let remote = REMOTE | self.hub.next_conn();
                    self.remotes.insert(remote, Remote { instance: from, conn, who: w, key: who });
                    Ok((remote, *message, Instant::now()))
                }
                None => Err(Box::new(ToTable::Forwarded { from, conn, who, message })),
            },
            other => Err(Box::new(other)),
        }
    }

    /// How long a seat's decision (a command, a commitment, a reveal) from `conn` waits for
    /// another seat's awaited with it that may come soon ([`Actor::may_answer_soon`]); `None`:
    /// it does not wait. Both seats of a simultaneous choice, or of a bound round's reveals,
    /// usually answer within moments of each other, and kept together they are made durable by
    /// one commit instead of two in a row. A decision waits at most
    /// [`Limits::hold`](crate::config::Limits::hold): a person may take long over the other
    /// one. A reveal of a bound round waits up to
    /// [`Limits::reveal_hold`](crate::config::Limits::reveal_hold): the others' clients
    /// reveal on their own, and nothing is shown before every reveal is in. A bot's seat is
    /// decided here, on its think delay: never waited for.
    fn waits_for_another(&self, conn: u64, message: &ClientMessage) -> Option<Duration> {
        let limits = &self.hub.config.limits;
        let wait = match message {
            ClientMessage::Command { .. } | ClientMessage::Seal { .. } => limits.hold,
            ClientMessage::Reveal { .. } if self.game.round().is_some_and(|r| r.bound) => {
                limits.hold.max(limits.reveal_hold)
            }
            ClientMessage::Reveal { .. } => limits.hold,
            _ => return None,
        };
        let who = self.conns.get(&conn).map(|c| c.who).or_else(|| self.remotes.get(&conn).map(|r| r.who));
        let Some(Who::Seat { seat }) = who else { return None };
        if wait.is_zero() {
            return None;
        }
        let awaiting = self.game.awaiting();
        (awaiting.contains(&SeatId(seat))
            && awaiting.iter().any(|other| other.0 != seat && self.may_answer_soon(other.0)))
        .then_some(wait)
    }

    /// Whether `seat`'s decision may come as a request soon: its link is connected here, or,
    /// on a shared store, a person plays it (whose link may be connected to another instance,
    /// which forwards its requests here).
    fn may_answer_soon(&self, seat: u16) -> bool {
        self.conns.values().any(|c| c.who == Who::Seat { seat })
            || (self.follow.is_some()
                && self
                    .access
                    .get(&who_key(Who::Seat { seat }))
                    .is_some_and(|row| matches!(row.controller, Controller::Person)))
    }

    /// Whether `seat` plays sealed and its next face-down decision is in the open round (or
    /// it already committed there): its choice may only come as a commitment.
    fn sealed_decision(&self, seat: u16) -> bool {
        let seat = SeatId(seat);
        self.game.mode(seat) == Mode::Sealed
            && (self.game.in_round(seat) || self.game.round().is_some_and(|r| r.committed.contains(&seat)))
    }

    /// After a commitment or a reveal that adds no log item: every seat whose prompt changed
    /// gets its view, prompt and who is awaited again (an update with no new item). The
    /// others learn who is awaited from the `sealed` message ([`Actor::send_round`]); with
    /// decision timers running, every connection gets the update, which carries them.
    fn refresh(&mut self, timers: bool) {
        let mut frames = Vec::new();
        let mut texts = CanonicalTexts::default();
        for (id, c) in &self.conns {
            let prompt = match c.who {
                Who::Seat { seat } => self.game.prompt_raw(SeatId(seat)).ok().flatten(),
                _ if timers => None,
                _ => continue,
            };
            let digest = prompt_digest(prompt.as_deref());
            if matches!(c.who, Who::Seat { .. }) && !timers && c.prompt == Some(digest) {
                continue;
            }
            let frame = self.update_frame_with(c.who, c.seq, prompt.as_deref(), &mut texts);
            frames.push((*id, frame, matches!(c.who, Who::Seat { .. }).then_some(digest)));
        }
        for (id, frame, digest) in frames {
            if let Some(c) = self.conns.get_mut(&id) {
                c.prompt = digest;
                if c.out.try_send(Out::Text(frame)).is_err()
                    && let Some(c) = self.conns.remove(&id)
                {
                    let _ = c.out.try_send(Out::Close);
                }
            }
        }
    }

    /// After a change: tells everyone who has committed in the open round (never what) and
    /// who the round waits for, after each commitment and each reveal that does not yet
    /// resolve it; or, when the round just bound, every commitment.
    fn send_round(&mut self, before: Option<&RoundInfo>) {
        let after = self.game.round();
        let awaiting = || self.game.awaiting().into_iter().map(|s| s.0).collect::<Vec<u16>>();
        let message = match (&after, before) {
            (Some(r), b) if r.bound && !b.is_some_and(|b| b.bound) => {
                let commitments = round_state(r.clone()).commitments;
                Some(ServerMessage::Bound { commitments })
            }
            (Some(r), Some(b)) if r.bound && b.revealing != r.revealing => Some(ServerMessage::Sealed {
                seats: r.committed.iter().map(|s| s.0).collect(),
                awaiting: awaiting(),
            }),
            (Some(r), b) if !r.bound && b.is_none_or(|b| b.committed != r.committed) => {
                Some(ServerMessage::Sealed {
                    seats: r.committed.iter().map(|s| s.0).collect(),
                    awaiting: awaiting(),
                })
            }
            (None, Some(b)) if !b.bound => {
                Some(ServerMessage::Sealed { seats: Vec::new(), awaiting: awaiting() })
            }
            _ => None,
        };
        if let Some(message) = message {
            let frame = text(&message);
            self.send_all(|_| Some(frame.clone()));
        }
    }

    fn gm_seat(&self) -> Option<u16> {
        self.game.seats().iter().find(|(_, s)| s.role == table::Role::Gm).map(|(id, _)| id.0)
    }

    /// The GM seat a GM link's `command` is given for: only a GM's ruling outside the choices
    /// of play ([`table::Ruleset::is_gm_ruling`]: an energy set, an adjustment, the end of the
    /// scene). A decision the game waits for stays with the GM seat's own link or its bot.
    fn gm_ruling(&self, command: &Value) -> Result<u16, (ErrorCode, String)> {
        let Some(gm) = self.gm_seat() else {
            return Err((ErrorCode::Forbidden, "these rules have no GM seat to give a ruling for".into()));
        };
        match self.game.is_gm_ruling(command) {
            Ok(true) => Ok(gm),
            Ok(false) => Err((
                ErrorCode::Forbidden,
                "the GM link gives only the GM's rulings (an adjustment, the end of the conflict); \
                 the GM seat's own decisions are given from its link or by its bot"
                    .into(),
            )),
            Err(e) => Err((ErrorCode::Refused, e.to_string())),
        }
    }

    async fn request(&mut self, conn: u64, message: ClientMessage, received: Instant) -> Result<(), String> {
        match self.request_op(conn, message).await? {
            Some(op) => self.keep(op, Some(conn), received).await,
            None => Ok(()),
        }
    }

    /// What a client's request asks the journal for; `None` when it was answered already (a
    /// ping, a retry, a refusal, a forward, the GM's management of the table).
    async fn request_op(&mut self, conn: u64, message: ClientMessage) -> Result<Option<Op>, String> {
        let (who, key) = match (self.conns.get(&conn), self.remotes.get(&conn)) {
            (Some(c), _) => (c.who, c.key.clone()),
            (None, Some(r)) => (r.who, r.key.clone()),
            (None, None) => return Ok(None),
        };
        if let Some(id) = message.id()
            && let Some(frame) = self.answered.get(&key).and_then(|q| q.iter().find(|(i, _)| i == id))
        {
            // A retry: answered as the first time, applied once.
            let frame = frame.1.clone();
            self.send_frame(conn, Some(id.to_owned()), frame);
            return Ok(None);
        }
        if let Some(id) = message.id()
            && let Err((code, why)) = check_id(self.answered.get(&key), id)
        {
            self.refuse(conn, Some(id.to_owned()), code, why);
            return Ok(None);
        }
        // On a shared store, the instance holding the table's lease applies its requests
        // (never one forwarded here again: no request goes round in circles).
        if let Some(to) = fanout::elsewhere(&self.follow).map(str::to_owned)
            && fanout::forwarded(&message)
            && !self.local
            && self.conns.contains_key(&conn)
            && self.forward(conn, &key, &to, &message)
        {
            return Ok(None);
        }
        let forbidden = |what: &str| (ErrorCode::Forbidden, what.to_owned());
        let op = match (message, who) {
            (ClientMessage::Ping {}, _) => {
                self.send_to(conn, &ServerMessage::Pong {});
                return Ok(None);
            }
            (ClientMessage::Hello { .. }, _) => {
                self.refuse(conn, None, ErrorCode::BadMessage, "this connection already said hello".into());
                return Ok(None);
            }
            (ClientMessage::Command { id, .. }, Who::Seat { seat }) if self.sealed_decision(seat) => {
                let m = format!(
                    "seat {seat} plays sealed: its face-down choice is sent as `seal` (the commitment), \
                     then `reveal` once every seat is bound — never in the clear"
                );
                Err((Some(id), (ErrorCode::SealedSeat, m)))
            }
            (ClientMessage::Command { id, command }, Who::Seat { seat }) => {
                Ok(Op::Submit { seat, command, id: Some(id), nonce: self.nonce(), who: None })
            }
            (ClientMessage::Command { id, command }, Who::Gm) => match self.gm_ruling(&command) {
                // Answered to the GM link (its ids are its own), applied for the GM seat.
                Ok(seat) => Ok(Op::Submit {
                    seat,
                    command,
                    id: Some(id),
                    nonce: self.nonce(),
                    who: Some(key.clone()),
                }),
                Err(refusal) => Err((Some(id), refusal)),
            },
            (ClientMessage::Seal { id, commitment }, Who::Seat { seat }) => {
                Ok(Op::Seal { seat, commitment, id: Some(id) })
            }
            (ClientMessage::Reveal { id, command, nonce }, Who::Seat { seat }) => {
                Ok(Op::Reveal { seat, command, nonce, id: Some(id) })
            }
            (ClientMessage::ClientSeed { id, seed }, Who::Seat { seat }) => {
                Ok(Op::ClientSeed { seat, seed, id: Some(id) })
            }
            (ClientMessage::TakeBack { id, lost }, Who::Seat { seat }) => {
                Ok(Op::TakeBack { seat, id: Some(id), lost })
            }
            (ClientMessage::Force { id, seat }, Who::Gm) => Ok(Op::Force {
                seat,
                by: self.gm_seat(),
                id: Some(id),
                who: Some(key.clone()),
                nonce: self.nonce(),
            }),
            (ClientMessage::Force { id, seat }, Who::Seat { seat: by }) => Ok(Op::Force {
                seat,
                by: Some(by),
                id: Some(id),
                who: Some(key.clone()),
                nonce: self.nonce(),
            }),
            (ClientMessage::Undo { id }, Who::Gm) => match self.gm_seat() {
                Some(by) => Ok(Op::Undo { by, id: Some(id), who: Some(key.clone()) }),
                None => {
                    let m = "undo: these rules have no GM seat to undo for (an undo is the GM's)";
                    self.refuse(conn, Some(id), ErrorCode::Refused, m.into());
                    return Ok(None);
                }
            },
            (ClientMessage::Undo { id }, Who::Seat { seat }) => {
                Ok(Op::Undo { by: seat, id: Some(id), who: Some(key.clone()) })
            }
            (ClientMessage::Manage { id, action }, Who::Gm) => {
                return self.manage(conn, id, action).await.map(|()| None);
            }
            (
                m @ (ClientMessage::Command { .. }
                | ClientMessage::TakeBack { .. }
                | ClientMessage::Seal { .. }
                | ClientMessage::Reveal { .. }
                | ClientMessage::ClientSeed { .. }),
                _,
            ) => Err((
                m.id().map(str::to_owned),
                forbidden("only a seat's link gives commands (the GM link: the GM's rulings alone)"),
            )),
            (m @ ClientMessage::Manage { .. }, _) => {
                Err((m.id().map(str::to_owned), forbidden("only the GM link manages the table")))
            }
            (m @ (ClientMessage::Force { .. } | ClientMessage::Undo { .. }), Who::Spectator) => {
                Err((m.id().map(str::to_owned), forbidden("a spectator link only watches")))
            }
        };
        match op.and_then(|op| op.canonical(&*self.game)) {
            Ok(op) => Ok(Some(op)),
            Err((id, (code, message))) => {
                self.refuse(conn, id, code, message);
                Ok(None)
            }
        }
    }

    /// Requests that came in together: each is judged and applied in turn, as one at a time
    /// would be, but all are made durable by one commit before anyone is told and answered (two
    /// seats' reveals of one sealed round share a commit instead of waiting one after the
    /// other). Only where this instance applies the table's requests ([`Actor::batchable`]);
    /// should another instance append to the journal meanwhile (a shared store), the commit
    /// loses the race and each request is kept again alone. A request repeated within the
    /// batch (a retry) waits for the batch's answers.
    async fn requests(&mut self, batch: Vec<(u64, ClientMessage, Instant)>) -> Result<(), String> {
        struct Kept {
            op: Op,
            conn: u64,
            received: Instant,
            fault: Option<Fault>,
            /// Whether it revealed: face-down choices all turned face up, or a bound sealed
            /// round resolved.
            revealed: bool,
            /// The sequence number after it, which its answer gives (as if kept alone).
            seq: u64,
        }
        if batch.len() <= 1 {
            for (conn, message, received) in batch {
                Box::pin(self.request(conn, message, received)).await?;
            }
            return Ok(());
        }
        let (round, seq, timed) = (self.game.round(), self.game.seq(), !self.timers().is_empty());
        let mut kept: Vec<Kept> = Vec::with_capacity(batch.len());
        let mut asked_ids: Vec<(String, String)> = Vec::new();
        let mut writes = Vec::with_capacity(batch.len() + 1);
        let mut rest = Vec::new();
        let mut batch = batch.into_iter();
        let mut used = self.used;
        // A request refused after others were kept may be refused because of them (the scene
        // they ended): its refusal leaves after their change, as one at a time would have it.
        self.refusals = Some(Vec::new());
        while let Some((conn, message, received)) = batch.next() {
            let key = match (self.conns.get(&conn), self.remotes.get(&conn)) {
                (Some(c), _) => c.key.clone(),
                (None, Some(r)) => r.key.clone(),
                (None, None) => String::new(),
            };
            if let Some(id) = message.id()
                && asked_ids.iter().any(|(k, i)| *k == key && i == id)
            {
                rest.push((conn, message, received));
                rest.extend(batch);
                break;
            }
            let Some(op) = Box::pin(self.request_op(conn, message)).await? else { continue };
            // Counted once it is applied (below): a request the rules refuse adds nothing.
            match used.admit(&op, &self.hub.config.limits) {
                Ok(_) => {}
                Err((id, (code, message))) => {
                    self.refuse(conn, id, code, message);
                    continue;
                }
            }
            let (face_down, bound) = (self.game.face_down(), self.game.round().is_some_and(|r| r.bound));
            let fault = match apply(&mut *self.game, &op) {
                Ok(fault) => fault,
                Err(e) => {
                    let id = asked(&op).map(|(_, id)| id);
                    self.refuse(conn, id, refusal_code(&e), e.to_string());
                    continue;
                }
            };
            let entry = serde_json::to_string(&op).map_err(|e| e.to_string())?;
            used.add(entry.len() as u64);
            let n = self.journal + writes.len() as u64;
            writes.push(Write::Journal { table: self.id, n, entry });
            if let Some(asked) = asked(&op) {
                asked_ids.push(asked);
            }
            let revealing = matches!(op, Op::Submit { .. } | Op::Force { .. } | Op::Reveal { .. });
            let revealed = revealing
                && ((face_down > 0 && self.game.face_down() == 0) || (bound && self.game.round().is_none()));
            kept.push(Kept { op, conn, received, fault, revealed, seq: self.game.seq() });
        }
        let refusals = self.refusals.take().unwrap_or_default();
        if !kept.is_empty() {
            let entries = writes.len() as u64;
            let over = self.game.is_over() && !self.finished;
            if over {
                writes.push(Write::Finished { table: self.id });
            }
            let started = Instant::now();
            match Box::pin(self.hub.store.commit(writes)).await {
                Ok(()) => {}
                // On a shared store another instance kept one of these numbers first (it took
                // the lease over meanwhile, or applied a request forwarded to it in vain): the
                // table as the store has it, then each request kept here again, one at a time
                // as if it came alone (one kept meanwhile by the other is answered as it was).
                // Nothing here was acknowledged.
                Err(e) if fanout::is_conflict(&e) => {
                    self.reload().await?;
                    for k in kept {
                        Box::pin(self.keep_again(k.op, k.conn, k.received)).await?;
                    }
                    for (conn, error) in refusals {
                        self.send_to(conn, &error);
                    }
                    return if rest.is_empty() { Ok(()) } else { Box::pin(self.requests(rest)).await };
                }
                // Any other error is fatal (the table leaves memory and reloads; nothing here
                // was acknowledged).
                Err(e) => return Err(format!("the journal could not be kept: {e}")),
            }
            self.hub.metrics.commit_latency.observe(started.elapsed().as_secs_f64());
            self.journal += entries;
            self.used = used;
            if over {
                self.finished = true;
                self.hub.table_finished();
            }
            for k in &kept {
                self.hub.metrics.commands.inc();
                if let Op::Submit { seat, .. }
                | Op::TakeBack { seat, .. }
                | Op::Force { seat, .. }
                | Op::Seal { seat, .. }
                | Op::Reveal { seat, .. } = &k.op
                {
                    self.reschedule(Some(*seat));
                }
            }
            self.broadcast();
            self.send_round(round.as_ref());
            if self.game.seq() == seq && self.game.round() != round {
                self.refresh(timed || !self.timers().is_empty());
            }
            for k in kept {
                if let Some((who, id)) = asked(&k.op) {
                    let ack = answer(id.clone(), k.seq, k.fault);
                    let frame = remember(&mut self.answered, who, id, &ack);
                    if let Some(c) = self.conns.get(&k.conn) {
                        let _ = c.out.try_send(Out::Text(frame));
                    }
                }
                if k.revealed {
                    self.hub.metrics.reveals.inc();
                    self.hub.metrics.reveal_latency.observe(k.received.elapsed().as_secs_f64());
                }
            }
        }
        for (conn, error) in refusals {
            self.send_to(conn, &error);
        }
        if rest.is_empty() { Ok(()) } else { Box::pin(self.requests(rest)).await }
    }

    /// A request kept in a batch whose commit lost a race ([`Actor::requests`]), kept again on
    /// the table as the store has it: answered as it was when the other instance kept it
    /// meanwhile (the same client id), else kept alone.
    async fn keep_again(&mut self, op: Op, conn: u64, received: Instant) -> Result<(), String> {
        if self.answered_before(&op, Some(conn)) {
            return Ok(());
        }
        self.keep(op, Some(conn), received).await
    }

    /// Whether `op`'s client id is answered in the journal already (kept by another instance,
    /// after this one applied it on an older state): then its answer, as it was, goes to
    /// connection `from` again.
    fn answered_before(&mut self, op: &Op, from: Option<u64>) -> bool {
        let Some((who, id)) = asked(op) else { return false };
        let Some(frame) = self.answered.get(&who).and_then(|q| q.iter().find(|(i, _)| *i == id)) else {
            return false;
        };
        let frame = frame.1.clone();
        if let Some(conn) = from {
            self.send_frame(conn, Some(id), frame);
        }
        true
    }

    /// Applies `op`, makes it durable, then tells everyone. A refusal changes nothing.
    async fn keep(&mut self, op: Op, from: Option<u64>, received: Instant) -> Result<(), String> {
        let bytes = match self.used.admit(&op, &self.hub.config.limits) {
            Ok(bytes) => bytes,
            Err((id, (code, message))) => {
                match from {
                    Some(conn) => self.refuse(conn, id, code, message),
                    None => tracing::warn!("{}: a bot's or timer's decision was refused: {message}", self.id),
                }
                return Ok(());
            }
        };
        let mut conflicts = 0;
        let (face_down, round, seq, fault, over) = loop {
            let face_down = self.game.face_down();
            let round = self.game.round();
            let seq = self.game.seq();
            let fault = match apply(&mut *self.game, &op) {
                Ok(fault) => fault,
                Err(e) => {
                    if let Some(conn) = from {
                        let id = asked(&op).map(|(_, id)| id);
                        self.refuse(conn, id, refusal_code(&e), e.to_string());
                    } else {
                        tracing::warn!("{}: a bot's or timer's decision was refused: {e}", self.id);
                    }
                    return Ok(());
                }
            };
            let entry = serde_json::to_string(&op).map_err(|e| e.to_string())?;
            let mut writes = vec![Write::Journal { table: self.id, n: self.journal, entry }];
            let over = self.game.is_over() && !self.finished;
            if over {
                writes.push(Write::Finished { table: self.id });
            }
            let started = Instant::now();
            match self.hub.store.commit(writes).await {
                Ok(()) => {
                    self.hub.metrics.commit_latency.observe(started.elapsed().as_secs_f64());
                    break (face_down, round, seq, fault, over);
                }
                // Another instance kept this number first: the table as the store has it,
                // then the request again, which the rules accept or refuse on that state.
                Err(e) if fanout::is_conflict(&e) && conflicts < MAX_CONFLICTS => {
                    conflicts += 1;
                    let pause = rand::random_range(0..=u64::from(conflicts) * 4);
                    tokio::time::sleep(Duration::from_millis(pause)).await;
                    self.reload().await?;
                    // Kept meanwhile by the other instance (the same client id, forwarded or
                    // retried there): answered as it was, applied once.
                    if self.answered_before(&op, from) {
                        return Ok(());
                    }
                }
                Err(e) => return Err(format!("the journal could not be kept: {e}")),
            }
        };
        self.hub.metrics.commands.inc();
        self.journal += 1;
        self.used.add(bytes);
        if over {
            self.finished = true;
            self.hub.table_finished();
        }
        // The timers first, so the frames below carry them as they now run.
        let acted = match &op {
            Op::Submit { seat, .. }
            | Op::TakeBack { seat, .. }
            | Op::Force { seat, .. }
            | Op::Seal { seat, .. }
            | Op::Reveal { seat, .. } => Some(Some(*seat)),
            Op::Undo { .. } => Some(None),
            // Not a decision: the timers stand.
            Op::Verifiable { .. } | Op::ClientSeed { .. } => None,
        };
        let timed = !self.timers().is_empty();
        if let Some(acted) = acted {
            if acted.is_none() {
                self.deadlines.clear();
            }
            self.reschedule(acted);
        }
        self.broadcast();
        // Who is awaited, then the prompts that changed (a commitment adds no log item, yet
        // who is asked next may change: decisions asked in sequence).
        self.send_round(round.as_ref());
        if self.game.seq() == seq && self.game.round() != round {
            self.refresh(timed || !self.timers().is_empty());
        }
        if let Some((who, id)) = asked(&op) {
            let ack = answer(id.clone(), self.game.seq(), fault);
            let frame = remember(&mut self.answered, who, id, &ack);
            if let Some(conn) = from
                && let Some(c) = self.conns.get(&conn)
            {
                let _ = c.out.try_send(Out::Text(frame));
            }
        }
        let revealing = matches!(op, Op::Submit { .. } | Op::Force { .. } | Op::Reveal { .. });
        let sealed_reveal = round.is_some_and(|r| r.bound) && self.game.round().is_none();
        if revealing && ((face_down > 0 && self.game.face_down() == 0) || sealed_reveal) {
            self.hub.metrics.reveals.inc();
            self.hub.metrics.reveal_latency.observe(received.elapsed().as_secs_f64());
        }
        Ok(())
    }

    async fn manage(&mut self, conn: u64, id: String, action: ManageAction) -> Result<(), String> {
        let seats = self.game.seats().len();
        let seat_ok = |seat: u16| -> Result<(), String> {
            if usize::from(seat) < seats {
                Ok(())
            } else {
                Err(format!("seat: there is no seat number {seat} (seats 0 to {})", seats.saturating_sub(1)))
            }
        };
        let mut reply = None;
        let (who, row) = match &action {
            ManageAction::Reissue { seat } => {
                if let Some(seat) = seat
                    && let Err(m) = seat_ok(*seat)
                {
                    self.refuse(conn, Some(id), ErrorCode::Refused, m);
                    return Ok(());
                }
                let who = seat.map_or(Who::Spectator, |seat| Who::Seat { seat });
                let token = auth::new_token();
                reply = Some(ServerMessage::Link {
                    seat: *seat,
                    url: link(&self.hub.base_url, &self.name, &token),
                });
                let controller =
                    self.access.get(&who_key(who)).map_or(Controller::Person, |r| r.controller.clone());
                (who, Row { hash: Some(auth::hash(&token)), controller })
            }
            ManageAction::Revoke { seat } => {
                if let Err(m) = seat_ok(*seat) {
                    self.refuse(conn, Some(id), ErrorCode::Refused, m);
                    return Ok(());
                }
                let who = Who::Seat { seat: *seat };
                let controller =
                    self.access.get(&who_key(who)).map_or(Controller::Person, |r| r.controller.clone());
                (who, Row { hash: None, controller })
            }
            ManageAction::Bot { seat, kind } => {
                if let Err(m) = seat_ok(*seat).and_then(|()| check_bot(&self.ruleset, kind)) {
                    self.refuse(conn, Some(id), ErrorCode::Refused, m);
                    return Ok(());
                }
                let who = Who::Seat { seat: *seat };
                let hash = self.access.get(&who_key(who)).and_then(|r| r.hash.clone());
                (who, Row { hash, controller: Controller::Bot { bot: kind.clone() } })
            }
            ManageAction::Person { seat } => {
                if let Err(m) = seat_ok(*seat) {
                    self.refuse(conn, Some(id), ErrorCode::Refused, m);
                    return Ok(());
                }
                let who = Who::Seat { seat: *seat };
                let hash = self.access.get(&who_key(who)).and_then(|r| r.hash.clone());
                (who, Row { hash, controller: Controller::Person })
            }
        };
        let key = who_key(who);
        let access = Access {
            who: key.clone(),
            token_hash: row.hash.clone(),
            controller: match who {
                Who::Seat { .. } => serde_json::to_string(&row.controller).unwrap_or_else(|_| "null".into()),
                _ => "null".into(),
            },
        };
        self.hub
            .store
            .commit(vec![Write::Access { table: self.id, access }])
            .await
            .map_err(|e| format!("a link could not be kept: {e}"))?;
        let relinked = matches!(action, ManageAction::Reissue { .. } | ManageAction::Revoke { .. });
        if let Who::Seat { seat } = who {
            let bot = match &row.controller {
                Controller::Bot { bot } => Some(bot.as_str()),
                Controller::Person => None,
            };
            if let Err(e) = self.game.set_bot(SeatId(seat), bot, bot_seed(self.id, seat)) {
                tracing::error!("{}: {e}", self.id);
            }
            self.deadlines.remove(&seat);
        }
        self.access.insert(key.clone(), row);
        if relinked {
            let old: Vec<u64> = self.conns.iter().filter(|(_, c)| c.key == key).map(|(i, _)| *i).collect();
            for i in old {
                if let Some(c) = self.conns.remove(&i) {
                    let _ = c.out.try_send(Out::Text(text(&ServerMessage::Revoked {})));
                    let _ = c.out.try_send(Out::Close);
                }
            }
        }
        self.hub.metrics.commands.inc();
        if let Some(reply) = reply {
            self.send_to(conn, &reply);
        }
        let ack = ServerMessage::Ack { id: id.clone(), seq: self.game.seq() };
        let frame = remember(&mut self.answered, "gm".into(), id, &ack);
        if let Some(c) = self.conns.get(&conn) {
            let _ = c.out.try_send(Out::Text(frame));
        }
        self.send_seats();
        self.reschedule(None);
        Ok(())
    }

    /// Sets the deadlines of the seats the game waits for: a bot's think delay, a person's
    /// decision timer. `acted` is the seat that just decided: its timer starts again.
    fn reschedule(&mut self, acted: Option<u16>) {
        if let Some(seat) = acted {
            self.deadlines.remove(&seat);
        }
        if self.game.is_over() {
            self.deadlines.clear();
            return;
        }
        let awaiting: Vec<u16> = self.game.awaiting().into_iter().map(|s| s.0).collect();
        self.deadlines.retain(|seat, _| awaiting.contains(seat));
        let now = Instant::now();
        let opening = self.game.round().is_some_and(|r| r.opening);
        for seat in awaiting {
            let bot = matches!(
                self.access.get(&who_key(Who::Seat { seat })).map(|r| &r.controller),
                Some(Controller::Bot { .. })
            );
            // In the opening round the server commits `{}` for a plain seat at once: its client
            // is asked nothing (docs/fairness.md §8).
            let plain_opening = opening && self.game.mode(SeatId(seat)) != Mode::Sealed;
            let wanted = if plain_opening {
                Some((now, Deadline::Bot))
            } else if bot {
                Some((now + Duration::from_millis(u64::from(self.options.think_ms)), Deadline::Bot))
            } else if let Some(s) = self.options.decision_seconds {
                Some((now + Duration::from_secs(u64::from(s)), Deadline::Timer))
            } else {
                // A sealed seat's reveal, once bound, is timed even with no decision timer.
                self.game
                    .round()
                    .filter(|r| r.bound && r.revealing.contains(&SeatId(seat)))
                    .map(|_| (now + Duration::from_secs(crate::protocol::REVEAL_SECONDS), Deadline::Timer))
            };
            match (self.deadlines.get(&seat), wanted) {
                (Some((_, kind)), Some((_, want))) if *kind == want => {}
                (_, Some(d)) => {
                    self.deadlines.insert(seat, d);
                }
                (_, None) => {
                    self.deadlines.remove(&seat);
                }
            }
        }
    }

    /// The earliest deadline has come: a bot decides, or a timer forces the decision.
    async fn fire(&mut self) -> Result<(), String> {
        let now = Instant::now();
        let Some((&seat, &(_, kind))) =
            self.deadlines.iter().filter(|(_, (at, _))| *at <= now).min_by_key(|(_, (at, _))| *at)
        else {
            return Ok(());
        };
        self.deadlines.remove(&seat);
        let revealing = self.game.round().is_some_and(|r| r.revealing.contains(&SeatId(seat)));
        let op = match kind {
            // A bot handed a seat whose sealed choice waits for its reveal cannot reveal it:
            // the seat faults (no reveal) and its decision is forced.
            Deadline::Bot if revealing => {
                Op::Force { seat, by: None, id: None, who: None, nonce: self.nonce() }
            }
            // The opening round: the server's own nonce binds the seat's `{}`.
            Deadline::Bot if self.game.round().is_some_and(|r| r.opening) => {
                Op::Force { seat, by: None, id: None, who: None, nonce: self.nonce() }
            }
            Deadline::Bot => match self.game.bot_command(SeatId(seat)) {
                Some(command) => Op::Submit { seat, command, id: None, nonce: self.nonce(), who: None },
                None => return Ok(()),
            },
            Deadline::Timer => Op::Force { seat, by: None, id: None, who: None, nonce: self.nonce() },
        };
        self.keep(op, None, now).await
    }
}

/// The oldest and the newest counter among a link's remembered ids (ids of tables from before
/// protocol version 2 may have none: they count as 0).
fn ids_seen(q: &VecDeque<(String, String)>) -> (u64, u64) {
    let counters = q.iter().map(|(id, _)| crate::protocol::id_counter(id).unwrap_or(0));
    (counters.clone().min().unwrap_or(0), counters.max().unwrap_or(0))
}

/// docs/protocol.md, Requests and client ids: a request whose id is not one of the link's
/// remembered ones must end in a counter above the link's last applied one. An older one is
/// `id_expired` when it is older than every remembered id of a link that remembers its
/// [`REMEMBERED_IDS`] (it may have been applied and forgotten), else out of order.
fn check_id(answered: Option<&VecDeque<(String, String)>>, id: &str) -> Result<(), (ErrorCode, String)> {
    let Some(counter) = crate::protocol::id_counter(id) else {
        return Err((
            ErrorCode::BadMessage,
            format!(
                "id {id:?}: a request's id ends in its counter, a number from 1 to 2^53 - 1 without a \
                 leading zero (as in \"c17\"), greater for each new request of the link"
            ),
        ));
    };
    let Some(q) = answered.filter(|q| !q.is_empty()) else { return Ok(()) };
    let (oldest, last) = ids_seen(q);
    if counter > last {
        return Ok(());
    }
    if q.len() >= REMEMBERED_IDS && counter < oldest {
        return Err((
            ErrorCode::IdExpired,
            format!(
                "id {id:?} is older than the last {REMEMBERED_IDS} requests this link made: the \
                 server no longer knows whether it applied it, so it applies nothing (send a new \
                 request with a new id above {last})"
            ),
        ));
    }
    Err((
        ErrorCode::BadMessage,
        format!(
            "id {id:?}: out of order, its counter {counter} is not above {last}, the link's last \
             request applied, and it is not one of the link's requests answered: each new \
             request's id ends in a greater counter"
        ),
    ))
}

fn remember(
    answered: &mut HashMap<String, VecDeque<(String, String)>>,
    who: String,
    id: String,
    answer: &ServerMessage,
) -> String {
    let frame = text(answer);
    let q = answered.entry(who).or_default();
    if q.len() >= REMEMBERED_IDS {
        q.pop_front();
    }
    q.push_back((id, frame.clone()));
    frame
}

/// A bot's seed: fixed per table and seat.
fn bot_seed(id: TableId, seat: u16) -> u64 {
    id.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(seat)
}

/// A digest of a prompt as written (`None`: no prompt), to tell whether a seat's changed.
fn prompt_digest(prompt: Option<&RawValue>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    prompt.map(RawValue::get).hash(&mut h);
    h.finish()
}

pub(crate) fn text(message: &ServerMessage) -> String {
    // The protocol's types are plain data: they always serialise.
    serde_json::to_string(message).unwrap_or_default()
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size of the future `f` returns (a function of five arguments).
    fn future_size<F, A, B, C, D, E, Fut>(_: F) -> usize
    where
        F: FnOnce(A, B, C, D, E) -> Fut,
    {
        std::mem::size_of::<Fut>()
    }

    /// An idle table costs its task (the future of `actor_main`, the actor boxed beside it)
    /// and its inbox, which allocates room for 32 messages at once: issue 15 asks under
    /// 64 KiB of memory per idle table (docs/performance.md, round 10). Before the actor was
    /// boxed, the task held it in each future that passed it on (5.8 KiB of future), and a
    /// forwarded request made every inbox slot 136 bytes.
    #[test]
    fn an_idle_tables_task_and_inbox_stay_small() {
        type S = store::SqliteTables;
        let task = future_size(actor_main::<S>);
        assert!(task <= 2048, "an idle table's task is {task} bytes");
        let slot = std::mem::size_of::<ToTable>();
        assert!(slot <= 64, "an inbox slot is {slot} bytes");
    }
}
