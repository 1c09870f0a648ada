//! The tables a server holds, each run by one task (its *actor*) that owns the table's session:
//! requests in, durable journal entries, per-viewer changes out.
//!
//! A table is two halves (the sans-IO model, ../shared/design/models.md):
//! - [`core`]: the table itself — its game, links, connections, answers, sealed rounds,
//!   rulings, management and deadlines — as a state machine that performs no I/O and reads no
//!   clock. Events in (a join, a request, a leave, a commit's result, the time), effects out
//!   (journal entries to make durable, frames per connection, closes, the next deadline).
//! - The async shell here ([`Actor`], [`actor_main`]): the table's inbox, its connections'
//!   queues, the store, the clock and the tokio task. It hands the core each event, makes the
//!   entries the core gives durable and hands back the result, then carries out the core's
//!   effects. [`fanout`] is the shell's part for several instances on one shared store
//!   (leases, forwarding, notices).
//! - [`Hub`]: the tables in memory, their creation, and the start and end of their actors.
//!
//! A table's actor handles one request at a time: the core applies the request to the
//! session (the rules check it) and gives back its journal entry; the shell hands it to the
//! store and awaits its durable commit (the store groups the commits of every table in flight
//! into one sync), and only then does the core send each connection its change — so nothing a
//! client has seen, and nothing acknowledged, can be lost to a crash. Bots and decision timers
//! are the core's deadlines, which the shell sleeps until. A table with no connection and
//! nothing to do leaves memory after the idle limit and is reloaded (its journal replayed)
//! when a client comes back.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use store::tables::{Access, NewTable, TableId, TableStore, Write};
use table::fairness::ServerSeed;
use table::{SeatId, Viewer};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;

use crate::auth;
use crate::config::Config;
use crate::journal::Op;
use crate::metrics::Metrics;
use crate::protocol::{
    ClientMessage, Controller, CreateTable, CreatedTable, ErrorCode, ManageAction, SeatMode, ServerMessage,
    TableLog, TableOptions, Who, link,
};
use crate::systems;

mod core;
pub(crate) mod fanout;
pub(crate) mod hosted;
pub(crate) mod relink;

use self::core::{Core, Counts, Effect, Judged, Remote, Setting};

/// Times a request is tried again after another instance kept its journal number first
/// (each after a short pause that grows, so two instances racing at one table fall out of step).
const MAX_CONFLICTS: u32 = 8;

/// Finished tables deleted from the store at most in one round of [`Hub::sweep`]: each may hold
/// a whole journal ([`crate::Limits::max_table_entries`]), so a round's work stays bounded.
pub(crate) const EXPIRE_PER_ROUND: usize = 16;

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
            | ClientMessage::Name { .. }
            | ClientMessage::Chat { .. }
            | ClientMessage::Mute { .. }
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
    /// Where the table stands for the link this token opens (issue 34, Lobby).
    Status { token: String, reply: oneshot::Sender<Result<crate::protocol::TableStatus, Refusal>> },
    /// A request another instance forwarded (this one applies the table): from its
    /// connection `conn`, whose link opens `who`.
    Forwarded { from: String, conn: u64, who: String, message: Box<ClientMessage> },
    /// The answer to a request this instance forwarded: `frame` for connection `conn`.
    Answered(Box<Answered>),
    /// A link opening `who` was opened on another instance: this one's connections of it are
    /// taken over.
    TakenOver { who: String },
    /// Nobody joined the table in time ([`crate::Limits::unjoined_seconds`]): it closes, unless
    /// someone joined meanwhile.
    Expire,
    /// The table was finished long enough and is deleted from the store
    /// ([`crate::Limits::keep_finished_seconds`]): no link opens it, every connection is told
    /// `revoked` and closed, and it leaves memory.
    Deleted,
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
    /// Open tables counted, with the creations under way here ([`Hub::reserve_table`]).
    open: AtomicUsize,
    /// Creations under way here that hold a place in `open` (taken and not yet kept or given
    /// back); a creation refused never counts here.
    creating: AtomicUsize,
    /// Held while a place is reserved, so that a recount from the store never misses a place
    /// taken meanwhile ([`Hub::reserve_table`]).
    reserving: tokio::sync::Mutex<()>,
    /// The tables nobody joined yet, since when ([`Hub::sweep`]).
    unjoined: Mutex<HashMap<u64, Instant>>,
    /// Whether the task that closes tables nobody joined runs.
    sweeping: std::sync::atomic::AtomicBool,
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
            creating: AtomicUsize::new(0),
            reserving: tokio::sync::Mutex::new(()),
            unjoined: Mutex::new(HashMap::new()),
            sweeping: std::sync::atomic::AtomicBool::new(false),
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
        if let ToTable::Join { token, .. }
        | ToTable::Log { token, .. }
        | ToTable::FairLog { token, .. }
        | ToTable::Status { token, .. } = &message
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
        self.create(request, false, None).await
    }

    /// The table `facedown serve --table` hosts: created as [`Hub::create_table`] creates one,
    /// its links' tokens derived from the host's `key` at generation 0
    /// ([`auth::derived_token`]), so that the host prints them again after a restart
    /// ([`hosted::hosted_links`]). The store keeps only their hashes, as for every table.
    pub async fn create_hosted_table(
        self: &Arc<Self>,
        request: CreateTable,
        key: &[u8],
    ) -> Result<CreatedTable, Refusal> {
        self.create(request, false, Some(key)).await
    }

    /// A rematch's new table ([`ManageAction::Rematch`]): created as [`Hub::create_table`]
    /// creates one, under the same limits, from a setup as the store keeps it (`request.setup`
    /// is [`crate::protocol::SetupSource::Json`] of the finished table's stored setup, opened
    /// as it is, never read again as a setup file).
    pub(crate) async fn create_rematch(
        self: &Arc<Self>,
        request: CreateTable,
    ) -> Result<CreatedTable, Refusal> {
        self.create(request, true, None).await
    }

    /// [`Hub::create_table`]; `stored`: the setup is one the store kept, opened as it is;
    /// `key`: the links' tokens are derived from the host's key ([`Hub::create_hosted_table`]).
    async fn create(
        self: &Arc<Self>,
        request: CreateTable,
        stored: bool,
        key: Option<&[u8]>,
    ) -> Result<CreatedTable, Refusal> {
        let refused = |m: String| Refusal::new(ErrorCode::Refused, m);
        self.sweep();
        let mut slot = self.reserve_table().await?;
        check_options(&request.options).map_err(refused)?;
        let (setup, mut game) = match (&request.setup, stored) {
            (crate::protocol::SetupSource::Json(setup), true) => systems::open(&request.system, setup)
                .map(|game| (setup.clone(), game))
                .map_err(|e| refused(e.to_string()))?,
            _ => systems::read_and_open_with(&request.system, &request.setup, &request.rules)
                .map_err(|e| refused(e.to_string()))?,
        };
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
        let mut new = NewTable {
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
        // A hosted table: its links' tokens are the host key's for this table, generation 0
        // (the random ones above were never shown), their hashes kept before anyone has a link.
        if let Some(key) = key {
            let mut writes = Vec::new();
            for (row, (_, token)) in new.access.iter_mut().zip(tokens.iter_mut()) {
                *token = auth::derived_token(key, id.0, &row.who, 0);
                row.token_hash = Some(auth::hash(token));
                writes.push(Write::Access { table: id, access: row.clone() });
            }
            self.store.commit(writes).await.map_err(|e| {
                tracing::error!("keeping the links of {id}: {e}");
                Refusal::new(ErrorCode::Internal, "the table's links could not be kept")
            })?;
        }
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
        // The table counts from now on: its slot is kept.
        slot.keep();
        self.unjoined().insert(id.0, Instant::now());
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
        let core = Core::assemble(
            id,
            request.system,
            game,
            request.options,
            &new.access,
            setting(self),
            Instant::now(),
        );
        match core {
            Ok(mut core) => {
                core.setup = setup;
                core.journal = journal.len() as u64;
                core.used = crate::journal::Used::of(&journal);
                core.set_fair_table();
                self.start(Box::new(Actor::new(Arc::clone(self), core)))
            }
            Err(refusal) => tracing::error!("{id}: {}", refusal.message),
        }
        Ok(CreatedTable { table: name, seats: links, gm, spectator })
    }

    /// A slot for one more open table, taken at once (issue 33 §1: creations at once never
    /// overshoot [`Limits::max_tables`](crate::Limits::max_tables)); given back unless the
    /// creation keeps it ([`Slot::keep`]). This instance counts the tables it created and the
    /// ones it saw finish; with several instances on one store another may finish ours, so at
    /// the limit the count is read again from the store, plus the creations here that hold a
    /// place (one stored and not yet kept counts twice meanwhile: a refusal too many, never a
    /// table too many). Reservations take turns, so that a recount never misses a place taken
    /// meanwhile; a refused creation never counts.
    async fn reserve_table(&self) -> Result<Slot<'_>, Refusal> {
        let max = self.config.limits.max_tables;
        let _turn = self.reserving.lock().await;
        let take =
            || self.open.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < max).then_some(n + 1));
        if take().is_err() {
            let Ok(open) = self.store.open_tables().await else { return Err(full(max)) };
            let holding = self.creating.load(Ordering::SeqCst);
            self.open.store(open.len() + holding, Ordering::SeqCst);
            self.metrics.tables_open.set(open.len() as i64);
            if take().is_err() {
                return Err(full(max));
            }
        }
        self.creating.fetch_add(1, Ordering::SeqCst);
        Ok(Slot { open: &self.open, creating: &self.creating, kept: false })
    }

    fn unjoined(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Instant>> {
        // Single inserts and removes: a poisoned lock holds a consistent map.
        self.unjoined.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Someone joined table `id`: it never expires for want of players.
    fn joined(&self, id: TableId) {
        self.unjoined().remove(&id.0);
    }

    /// Starts, once, the task that expires tables (issue 33 §1), when the server starts and
    /// again at each creation (a no-op once it runs). Ends when the server shuts down. Each round:
    ///
    /// - the tables nobody joined within [`crate::Limits::unjoined_seconds`] (unplayed tables
    ///   filled the limit for good) — those created here, and those stored before the start
    ///   with no entry played (counted from the server's start) — are each sent
    ///   [`ToTable::Expire`], which closes them;
    /// - at most [`EXPIRE_PER_ROUND`] finished or closed tables whose last entry is older than
    ///   [`crate::Limits::keep_finished_seconds`] are deleted from the store (bounded work a
    ///   round; the rest wait for the next), each told [`ToTable::Deleted`] if it is in memory,
    ///   and their count logged (never a token).
    pub(crate) fn sweep(self: &Arc<Self>) {
        let unjoined = self.config.limits.unjoined_seconds;
        let keep = self.config.limits.keep_finished_seconds;
        if (unjoined == 0 && keep == 0) || self.sweeping.swap(true, Ordering::SeqCst) {
            return;
        }
        let hub = Arc::clone(self);
        let mut shutdown = self.shutdown.clone();
        tokio::spawn(async move {
            let after = Duration::from_secs(unjoined);
            if unjoined > 0
                && let Ok(tables) = hub.store.list_tables().await
            {
                let now = Instant::now();
                let mut unjoined = hub.unjoined();
                for t in tables.into_iter().filter(|t| !t.finished && t.entries <= 1) {
                    unjoined.entry(t.id.0).or_insert(now);
                }
            }
            // A quarter of the shorter time, between 100 ms and a minute.
            let shortest = [unjoined, keep].into_iter().filter(|s| *s > 0).min().unwrap_or(60);
            let mut look = tokio::time::interval(Duration::from_millis((shortest * 250).clamp(100, 60_000)));
            look.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = look.tick() => {}
                    changed = shutdown.changed() => {
                        if changed.is_err() || *shutdown.borrow() {
                            return;
                        }
                    }
                }
                if unjoined > 0 {
                    let now = Instant::now();
                    let due: Vec<u64> = {
                        let mut unjoined = hub.unjoined();
                        let due: Vec<u64> = unjoined
                            .iter()
                            .filter(|(_, at)| **at + after <= now)
                            .map(|(id, _)| *id)
                            .collect();
                        for id in &due {
                            unjoined.remove(id);
                        }
                        due
                    };
                    for id in due {
                        // A table that cannot be loaded is looked at no more.
                        let _ = hub.send(id, ToTable::Expire).await;
                    }
                }
                if keep > 0 {
                    hub.expire_finished(keep).await;
                }
            }
        });
    }

    /// One round of the finished tables' expiry ([`Hub::sweep`]): at most [`EXPIRE_PER_ROUND`]
    /// deleted from the store, each in memory here told it is gone.
    async fn expire_finished(&self, keep: u64) {
        match self.store.expire_finished(keep, EXPIRE_PER_ROUND).await {
            Ok(gone) if gone.is_empty() => {}
            Ok(gone) => {
                let more = if gone.len() == EXPIRE_PER_ROUND { " (more may be due: next round)" } else { "" };
                tracing::info!(
                    deleted = gone.len(),
                    "deleted {} finished tables whose last entry is older than {keep} s{more}",
                    gone.len()
                );
                for id in gone {
                    self.send_if_loaded(id.0, ToTable::Deleted).await;
                }
            }
            Err(e) => tracing::warn!("finished tables could not be expired: {e}"),
        }
    }

    pub(crate) fn table_finished(&self) {
        // Never below zero: on a shared store this instance may finish a table another created.
        let _ = self.open.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
        self.metrics.tables_open.set(self.open.load(Ordering::Relaxed) as i64);
    }
}

/// The refusal of a table over the limit of `max`.
fn full(max: usize) -> Refusal {
    Refusal::new(ErrorCode::Full, format!("the server holds its limit of {max} open tables"))
}

/// One open table's place under the limit, while its creation is under way.
struct Slot<'a> {
    open: &'a AtomicUsize,
    creating: &'a AtomicUsize,
    /// Whether the table was created and keeps it.
    kept: bool,
}

impl Slot<'_> {
    /// The table was created: it keeps its place.
    fn keep(&mut self) {
        self.kept = true;
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.creating.fetch_sub(1, Ordering::SeqCst);
        if !self.kept {
            let _ = self.open.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        }
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

/// A table's async shell: drives its [`Core`] with what arrives (its inbox, its deadlines,
/// the other instances), makes the core's journal entries durable, and carries out its
/// effects (frames to the connections' queues, closes, messages to other instances).
struct Actor<S: TableStore> {
    hub: Arc<Hub<S>>,
    id: TableId,
    core: Core,
    /// The queue of each connection of this instance to the table (those the core holds).
    outs: HashMap<u64, mpsc::Sender<Out>>,
    idle_since: Instant,
    /// On a shared store: what other instances committed, and the lease.
    follow: Option<fanout::Follow>,
    /// Requests forwarded to the instance applying the table, by who sent them and their id.
    forwarded: HashMap<(String, String), Pending>,
    /// Set while a request this instance forwarded in vain is applied here after all.
    local: bool,
    /// Whether a connection joined the table since the actor started (it never expires then:
    /// [`Hub::sweep`]).
    joined: bool,
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
        None => Box::pin(load(&hub, id))
            .await
            .map(|core| Box::new(Actor::new(Arc::clone(&hub), core)))
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
                    ToTable::Status { reply, .. } => {
                        let _ = reply.send(Err(refusal.clone()));
                    }
                    _ => {}
                }
            }
        }
    }
}

/// What a table's core is given from `hub`'s configuration.
fn setting<S: TableStore>(hub: &Hub<S>) -> Setting {
    Setting {
        base_url: hub.base_url.clone(),
        hold: hub.config.limits.hold,
        reveal_hold: hub.config.limits.reveal_hold,
        shared: hub.store.shared(),
        counts: Counts::of(&hub.metrics),
        limits: hub.config.limits.clone(),
    }
}

/// Table `id` as the store keeps it: its game opened and its journal replayed.
async fn load<S: TableStore>(hub: &Hub<S>, id: TableId) -> Result<Core, Refusal> {
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
    let mut core = Core::assemble(
        id,
        stored.table.ruleset,
        game,
        options,
        &stored.table.access,
        setting(hub),
        Instant::now(),
    )?;
    core.finished = stored.finished;
    core.setup = setup;
    core.replay(&stored.journal)?;
    core.set_fair_table();
    Ok(core)
}

impl<S: TableStore> Actor<S> {
    fn new(hub: Arc<Hub<S>>, core: Core) -> Actor<S> {
        Actor {
            hub,
            id: core.id,
            core,
            outs: HashMap::new(),
            idle_since: Instant::now(),
            follow: None,
            forwarded: HashMap::new(),
            local: false,
            joined: false,
        }
    }

    /// Carries out what the core asked, in order: frames to the connections' queues (a
    /// connection whose queue is full is stuck, closed, and told to the core), closes,
    /// answers and notices to other instances, the table's end.
    fn flush(&mut self) {
        for effect in self.core.take_effects() {
            match effect {
                Effect::Send { conn, frame } => {
                    if let Some(out) = self.outs.get(&conn)
                        && out.try_send(Out::Text(frame)).is_err()
                    {
                        if let Some(out) = self.outs.remove(&conn) {
                            let _ = out.try_send(Out::Close);
                        }
                        self.core.stuck(conn);
                    }
                }
                Effect::Try { conn, frame } => {
                    if let Some(out) = self.outs.get(&conn) {
                        let _ = out.try_send(Out::Text(frame));
                    }
                }
                Effect::Close { conn } => {
                    if let Some(out) = self.outs.remove(&conn) {
                        let _ = out.try_send(Out::Close);
                    }
                }
                Effect::Remote { conn, id, frame } => self.answer_remote(conn, id, frame),
                Effect::Opened { key } => self.tell_opened(&key),
                Effect::Finished => self.hub.table_finished(),
            }
        }
    }

    /// Sends a connection of the instance that forwarded request `id` its answer, through the
    /// store.
    fn answer_remote(&self, conn: u64, id: Option<String>, frame: String) {
        let Some(remote) = self.core.remotes.get(&conn) else { return };
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
                message: "the answer did not fit a notice between instances; send the request again".into(),
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
    }

    /// Closes every connection, each told `last`.
    fn close_all(&mut self, last: ServerMessage) {
        self.core.close_all(&last);
        self.flush();
    }

    /// Runs the table until it leaves memory. The actor is boxed, so that its task holds it
    /// once, behind a pointer, and not once in each of the futures that pass it on.
    async fn run(mut self: Box<Self>, generation: u64, rx: &mut mpsc::Receiver<ToTable>) {
        self.core.tick(Instant::now());
        self.core.reschedule(None);
        // The sub-futures are boxed: an idle table's task holds only the wait below, not the
        // largest request's state (a few KiB a table; docs/performance.md).
        if let Err(fatal) = Box::pin(self.renew_lease()).await {
            tracing::error!("{}: {fatal}", self.id);
        }
        let idle = Duration::from_secs(self.hub.config.limits.idle_seconds);
        loop {
            // Bots and timers run where the table's lease is held.
            fanout::want(&mut self.follow, !self.core.deadlines.is_empty() && !self.core.finished);
            let runs = fanout::runs_deadlines(&self.follow);
            let next = self.core.next_deadline().filter(|_| runs);
            // A finished table nobody is connected to leaves memory at once: nothing can change
            // it but an undo, whose link reloads it, and the tables a busy server finishes would
            // otherwise pile up for the idle limit (docs/performance-history.md, round 14).
            let wait = if self.core.finished { Duration::ZERO } else { idle };
            let idle_at = (self.core.conns.is_empty() && next.is_none()).then(|| self.idle_since + wait);
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
                                    let hold = self.core.waits_for_another(first.0, &first.1);
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
                                    self.core.clear_remotes();
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
                    self.core.tick(Instant::now());
                    if let Err(fatal) = Box::pin(self.woken(wake)).await {
                        tracing::error!("{}: {fatal}; the table leaves memory and reloads from the store", self.id);
                        self.close_all(ServerMessage::Closing {});
                        break;
                    }
                }
                () = sleep_until(check_at), if check_at.is_some() => {
                    self.core.tick(Instant::now());
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
            if !self.core.is_idle() {
                // Idle from now, unless it already was.
                self.idle_since = Instant::now();
            }
        }
        Box::pin(self.release_lease()).await;
        self.hub.forget(&mut self.hub.lock(), self.id, generation);
    }

    async fn handle(&mut self, message: ToTable) -> Result<(), String> {
        self.core.tick(Instant::now());
        match message {
            ToTable::Join { token, since, conn, out, reply } => {
                let joined = self.core.join(&token, since).and_then(|mut joining| {
                    // Those taken over are told first.
                    self.flush();
                    let welcome = std::mem::take(&mut joining.welcome);
                    if out.try_send(Out::Text(welcome)).is_err() {
                        return Err(Refusal::new(ErrorCode::Internal, "the connection closed"));
                    }
                    self.outs.insert(conn, out);
                    self.core.admit(conn, joining);
                    self.hub.joined(self.id);
                    self.joined = true;
                    Ok(())
                });
                self.flush();
                let _ = reply.send(joined);
                Ok(())
            }
            ToTable::Request { conn, message, received } => self.request(conn, *message, received).await,
            ToTable::Leave { conn } => {
                self.outs.remove(&conn);
                self.core.leave(conn);
                self.flush();
                Ok(())
            }
            ToTable::Log { token, reply } => {
                let _ = reply.send(self.core.log(&token));
                Ok(())
            }
            ToTable::FairLog { token, reply } => {
                let _ = reply.send(self.core.fair_log(&token));
                Ok(())
            }
            ToTable::Status { token, reply } => {
                let _ = reply.send(self.core.status(&token));
                Ok(())
            }
            ToTable::Forwarded { from, conn, who, message } => {
                let Some(w) = who_of(&who) else { return Ok(()) };
                let remote = REMOTE | self.hub.next_conn();
                self.core.add_remote(remote, Remote { instance: from, conn, who: w, key: who });
                let result = self.request(remote, *message, Instant::now()).await;
                self.core.remotes.remove(&remote);
                result
            }
            ToTable::TakenOver { who } => {
                self.core.taken_over(&who);
                self.flush();
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
                if let Some(out) = self.outs.get(&conn) {
                    let _ = out.try_send(Out::Text(frame));
                }
                Ok(())
            }
            ToTable::Expire => self.expire().await,
            ToTable::Deleted => {
                // Gone from the store: nothing of it opens any more (a finished table with no
                // connection leaves memory at once).
                self.core.expired();
                self.flush();
                Ok(())
            }
            ToTable::Close => Ok(()),
        }
    }

    /// Closes the table if nobody joined it yet ([`Hub::sweep`]).
    async fn expire(&mut self) -> Result<(), String> {
        if self.joined || !self.core.conns.is_empty() || self.core.is_closed() {
            return Ok(());
        }
        let writes = self.core.begin_expire();
        self.hub.store.commit(writes).await.map_err(|e| format!("the table could not be closed: {e}"))?;
        tracing::info!("{}: closed, nobody joined it in time", self.id);
        self.core.tick(Instant::now());
        self.core.expired();
        self.flush();
        Ok(())
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
                    self.core.add_remote(remote, Remote { instance: from, conn, who: w, key: who });
                    Ok((remote, *message, Instant::now()))
                }
                None => Err(Box::new(ToTable::Forwarded { from, conn, who, message })),
            },
            other => Err(Box::new(other)),
        }
    }

    /// A client's request: answered by the core, forwarded to the instance applying the
    /// table, or kept (made durable, then everyone told).
    async fn request(&mut self, conn: u64, message: ClientMessage, received: Instant) -> Result<(), String> {
        self.core.tick(Instant::now());
        let Some(key) = self.core.precheck(conn, &message) else {
            self.flush();
            return Ok(());
        };
        // On a shared store, the instance holding the table's lease applies its requests
        // (never one forwarded here again: no request goes round in circles).
        if let Some(to) = fanout::elsewhere(&self.follow).map(str::to_owned)
            && fanout::forwarded(&message)
            && !self.local
            && self.core.conns.contains_key(&conn)
            && self.forward(conn, &key, &to, &message)
        {
            return Ok(());
        }
        match self.core.judge(conn, message) {
            Judged::Done => {
                self.flush();
                Ok(())
            }
            Judged::Op(op) => self.keep(op, Some(conn), received).await,
            Judged::Manage { id, action } => self.manage(conn, id, action).await,
            Judged::Rematch { id } => self.rematch(conn, id).await,
        }
    }

    /// Requests that came in together ([`Core::begin_batch`]), made durable by one commit.
    /// Only where this instance applies the table's requests ([`Actor::batchable`]); should
    /// another instance append to the journal meanwhile (a shared store), the commit loses the
    /// race and each request is kept again alone.
    async fn requests(&mut self, batch: Vec<(u64, ClientMessage, Instant)>) -> Result<(), String> {
        if batch.len() <= 1 {
            for (conn, message, received) in batch {
                Box::pin(self.request(conn, message, received)).await?;
            }
            return Ok(());
        }
        self.core.tick(Instant::now());
        let mut batch = self.core.begin_batch(batch);
        self.flush();
        let rest = if batch.kept.is_empty() {
            self.core.send_refusals(batch.refusals);
            batch.rest
        } else {
            let writes = std::mem::take(&mut batch.writes);
            let started = Instant::now();
            match Box::pin(self.hub.store.commit(writes)).await {
                Ok(()) => {
                    self.hub.metrics.commit_latency.observe(started.elapsed().as_secs_f64());
                    self.core.tick(Instant::now());
                    self.core.batch_kept(batch)
                }
                // On a shared store another instance kept one of these numbers first (it took
                // the lease over meanwhile, or applied a request forwarded to it in vain): the
                // table as the store has it, then each request kept here again, one at a time
                // as if it came alone (one kept meanwhile by the other is answered as it was).
                // Nothing here was acknowledged.
                Err(e) if fanout::is_conflict(&e) => {
                    self.reload().await?;
                    for k in batch.kept {
                        Box::pin(self.keep_again(k.op, k.conn, k.received)).await?;
                    }
                    self.core.send_refusals(batch.refusals);
                    batch.rest
                }
                // Any other error is fatal (the table leaves memory and reloads; nothing here
                // was acknowledged).
                Err(e) => return Err(format!("the journal could not be kept: {e}")),
            }
        };
        self.flush();
        if rest.is_empty() { Ok(()) } else { Box::pin(self.requests(rest)).await }
    }

    /// A request kept in a batch whose commit lost a race ([`Actor::requests`]), kept again on
    /// the table as the store has it: answered as it was when the other instance kept it
    /// meanwhile (the same client id), else kept alone.
    async fn keep_again(&mut self, op: Op, conn: u64, received: Instant) -> Result<(), String> {
        if self.core.answered_before(&op, Some(conn)) {
            self.flush();
            return Ok(());
        }
        self.keep(op, Some(conn), received).await
    }

    /// Applies `op`, makes it durable, then tells everyone. A refusal changes nothing.
    async fn keep(&mut self, mut op: Op, from: Option<u64>, received: Instant) -> Result<(), String> {
        let mut conflicts = 0;
        loop {
            let Some((writes, keeping)) = self.core.begin_keep(op, from, received) else {
                self.flush();
                return Ok(());
            };
            self.flush();
            let started = Instant::now();
            match self.hub.store.commit(writes).await {
                Ok(()) => {
                    self.hub.metrics.commit_latency.observe(started.elapsed().as_secs_f64());
                    self.core.tick(Instant::now());
                    self.core.kept(keeping);
                    self.flush();
                    return Ok(());
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
                    if self.core.answered_before(&keeping.op, from) {
                        self.flush();
                        return Ok(());
                    }
                    op = keeping.op;
                }
                Err(e) => return Err(format!("the journal could not be kept: {e}")),
            }
        }
    }

    /// The GM's management of the table: its access row made durable, then everyone told.
    async fn manage(&mut self, conn: u64, id: String, action: ManageAction) -> Result<(), String> {
        let Some((writes, managing)) = self.core.begin_manage(conn, id, action) else {
            self.flush();
            return Ok(());
        };
        self.flush();
        self.hub.store.commit(writes).await.map_err(|e| format!("a link could not be kept: {e}"))?;
        self.core.tick(Instant::now());
        self.core.managed(managing);
        self.flush();
        Ok(())
    }

    /// The GM's rematch of a finished table: the new table created under the server's limits
    /// (as `POST /api/tables`; the per-address rate is the connection's, taken at the edge),
    /// then its links handed out by the core.
    async fn rematch(&mut self, conn: u64, id: String) -> Result<(), String> {
        let Some(rematching) = self.core.begin_rematch(conn, id) else {
            self.flush();
            return Ok(());
        };
        self.flush();
        let created = Box::pin(self.hub.create_rematch(rematching.request.clone())).await;
        crate::web::log_created(&created, None);
        self.core.tick(Instant::now());
        self.core.rematched(rematching, created);
        self.flush();
        Ok(())
    }

    /// The earliest deadline has come: a bot decides, or a timer forces the decision.
    async fn fire(&mut self) -> Result<(), String> {
        let now = Instant::now();
        self.core.tick(now);
        let Some(op) = self.core.fire() else { return Ok(()) };
        self.keep(op, None, now).await
    }
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
    /// 64 KiB of memory per idle table (docs/performance-history.md, round 10). Before the actor was
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
