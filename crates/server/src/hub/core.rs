//! A table's core: the whole of what a table does with what it is told, as a state machine
//! that performs no I/O and reads no clock (the *sans-IO* model of quinn-proto; see
//! ../shared/design/models.md). The async shell ([`super::Actor`]) owns the channels, the
//! store and the clock, and drives it.
//!
//! Its methods come in the kinds quinn names:
//! - *events in*: [`Core::tick`] (the time is now T: every event brings its time, the core
//!   never reads a clock), [`Core::join`]/[`Core::admit`] (a hello with a token),
//!   [`Core::leave`], [`Core::stuck`], [`Core::precheck`] and [`Core::judge`] (a request),
//!   [`Core::fire`] (a deadline came), [`Core::apply_entries`] and [`Core::take_rows`]
//!   (what another instance committed);
//! - *commits*: a request the rules accept is applied at once and comes back as the journal
//!   entries to make durable ([`Core::begin_keep`], [`Core::begin_batch`],
//!   [`Core::begin_manage`]); the shell makes them durable and hands the result back
//!   ([`Core::kept`], [`Core::batch_kept`], [`Core::managed`]; on a failure the shell reloads
//!   the table, the change applied here is dropped with it). Only then does anyone hear of the
//!   change: no frame that shows it, and no acknowledgement, leaves before its entry is
//!   durable;
//! - *polls*: [`Core::take_effects`] (frames for connections, closes, answers to other
//!   instances, the table's end) and [`Core::next_deadline`] (when to call [`Core::fire`]).
//!
//! Every rule of who may see and do what lives here: redaction per viewer, who may ask what,
//! client ids (retries answered once), sealed rounds' messages, decision timers and bots.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::histogram::Histogram;
use serde_json::Value;
use serde_json::value::RawValue;
use session::CanonicalTexts;
use session::any::AnyError;
use session::sealed::{Fault, Mode, Nonce, RoundInfo, SealError};
use store::tables::{Access, TableId, Write};
use table::fairness::{FairnessError, HashChain, ServerSeed};
use table::{SeatId, Viewer};
use tokio::time::Instant;

use super::{Refusal, check_bot, table_name, text, viewer, who_key, who_of};
use crate::auth;
use crate::journal::{Op, Used};
use crate::metrics::Metrics;
use crate::protocol::{
    Change, ClientMessage, Controller, CreatedTable, ErrorCode, ManageAction, REMEMBERED_IDS, SeatInfo,
    SeatMode, ServerMessage, TableLog, TableOptions, Timer, Who, link,
};
use crate::sealing::{answer, refusal_code, round_state};
use crate::systems::Hosted;

/// What the core asks its shell to do, in order ([`Core::take_effects`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Effect {
    /// A frame for connection `conn` of this instance; a connection whose queue is full is
    /// stuck: the shell closes it and tells the core ([`Core::stuck`]).
    Send { conn: u64, frame: String },
    /// A frame for connection `conn` if its queue has room, else dropped (an answer the client
    /// learns again from its welcome when it reconnects).
    Try { conn: u64, frame: String },
    /// Close connection `conn` after the frames before (it already left the core).
    Close { conn: u64 },
    /// A frame answering request `id` for connection `conn` of another instance, which
    /// forwarded the request ([`Core::add_remote`]).
    Remote { conn: u64, id: Option<String>, frame: String },
    /// A link opening `key` was opened here: every other instance closes its connections of it.
    Opened { key: String },
    /// The table just finished (the server counts its open tables).
    Finished,
}

/// The metrics the core counts (clones of the server's: the same counters), and the log's
/// summary of refusals.
#[derive(Clone)]
pub(crate) struct Counts {
    commands: Counter,
    refused: Counter,
    reveals: Counter,
    reveal_latency: Histogram,
    summary: Arc<crate::metrics::Tally>,
}

impl Counts {
    pub(crate) fn of(metrics: &Metrics) -> Counts {
        Counts {
            commands: metrics.commands.clone(),
            refused: metrics.refused.clone(),
            reveals: metrics.reveals.clone(),
            reveal_latency: metrics.reveal_latency.clone(),
            summary: Arc::clone(&metrics.tally),
        }
    }

    /// A refusal with `code`, in the metrics and the log's summary.
    fn refusal(&self, code: ErrorCode) {
        self.refused.inc();
        self.summary.refusal(code);
    }
}

/// What a core is given from the server's configuration.
#[derive(Clone)]
pub(crate) struct Setting {
    /// The address links start with.
    pub(crate) base_url: String,
    /// [`crate::Limits::hold`].
    pub(crate) hold: Duration,
    /// [`crate::Limits::reveal_hold`].
    pub(crate) reveal_hold: Duration,
    /// Whether the store is shared with other instances.
    pub(crate) shared: bool,
    pub(crate) counts: Counts,
    /// The bounds of a table's journal ([`Used::admit`]).
    pub(crate) limits: crate::Limits,
}

pub(crate) struct Conn {
    pub(crate) who: Who,
    pub(crate) key: String,
    /// The last sequence number this connection was sent.
    seq: u64,
    /// A digest of the last prompt this connection was sent in an update frame (`None`:
    /// not known): a refresh after a commitment skips a seat whose prompt stands.
    prompt: Option<u64>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Deadline {
    Bot,
    Timer,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct Row {
    pub(crate) hash: Option<String>,
    pub(crate) controller: Controller,
}

/// A request another instance forwarded, while this core handles it.
pub(crate) struct Remote {
    /// The instance it came from.
    pub(crate) instance: String,
    /// Its connection there.
    pub(crate) conn: u64,
    pub(crate) who: Who,
    pub(crate) key: String,
}

/// A joining connection, between its welcome and its admission ([`Core::admit`]).
pub(crate) struct Joining {
    who: Who,
    key: String,
    seq: u64,
    prompt: Option<u64>,
    /// The welcome frame, the connection's first.
    pub(crate) welcome: String,
}

/// What a request asks, once judged ([`Core::judge`]).
pub(crate) enum Judged {
    /// Nothing more (answered: a ping, a refusal).
    Done,
    /// This journal entry.
    Op(Op),
    /// The GM's management of the table (links and seats: an access row).
    Manage { id: String, action: ManageAction },
    /// The GM's rematch: a new table for the shell to create ([`Core::begin_rematch`]).
    Rematch { id: String },
}

/// A request applied and waiting for its entry to be durable ([`Core::begin_keep`]).
pub(crate) struct Keeping {
    pub(crate) op: Op,
    pub(crate) from: Option<u64>,
    pub(crate) received: Instant,
    /// The size of its entry.
    bytes: u64,
    face_down: usize,
    round: Option<RoundInfo>,
    seq: u64,
    fault: Option<Fault>,
    over: bool,
}

/// One request of a batch, applied and waiting for the batch's commit.
pub(crate) struct Kept {
    pub(crate) op: Op,
    pub(crate) conn: u64,
    pub(crate) received: Instant,
    fault: Option<Fault>,
    /// Whether it revealed: face-down choices all turned face up, or a bound sealed round
    /// resolved.
    revealed: bool,
    /// The sequence number after it, which its answer gives (as if kept alone).
    seq: u64,
}

/// Requests judged together ([`Core::begin_batch`]), waiting for one commit.
pub(crate) struct Batch {
    /// The entries to make durable (empty: nothing was kept).
    pub(crate) writes: Vec<Write>,
    pub(crate) kept: Vec<Kept>,
    /// The refusals, sent after the change of the requests kept before them.
    pub(crate) refusals: Vec<(u64, ServerMessage)>,
    /// The requests after one repeated within the batch: judged after it, as a batch of their own.
    pub(crate) rest: Vec<(u64, ClientMessage, Instant)>,
    entries: u64,
    /// What the journal holds once they are kept.
    used: Used,
    over: bool,
    round: Option<RoundInfo>,
    seq: u64,
    timed: bool,
}

/// The GM's management waiting for its access row to be durable ([`Core::begin_manage`]).
pub(crate) struct Managing {
    conn: u64,
    id: String,
    who: Who,
    row: Row,
    reply: Option<ServerMessage>,
    relinked: bool,
    /// The table closes ([`ManageAction::Close`]).
    close: bool,
}

/// The GM's rematch while its new table is created ([`Core::begin_rematch`]).
pub(crate) struct Rematching {
    conn: u64,
    id: String,
    /// This table's seat names, by seat number.
    names: Vec<String>,
    /// The new table.
    pub(crate) request: crate::protocol::CreateTable,
}

/// A table: its game, its links, its connections, what it answered, its deadlines.
pub(crate) struct Core {
    pub(crate) id: TableId,
    pub(crate) name: String,
    pub(crate) ruleset: String,
    pub(crate) game: Box<dyn Hosted>,
    pub(crate) options: TableOptions,
    pub(crate) rules: BTreeMap<String, Value>,
    /// The setup the table was opened from, as the store keeps it (a rematch opens it again:
    /// [`Core::begin_rematch`]); null where the shell did not give it.
    pub(crate) setup: Value,
    /// The journal's length as made durable (and applied here).
    pub(crate) journal: u64,
    /// What the journal holds, against the table's bounds (issue 33).
    pub(crate) used: Used,
    pub(crate) access: BTreeMap<String, Row>,
    pub(crate) conns: HashMap<u64, Conn>,
    pub(crate) answered: HashMap<String, VecDeque<(String, String)>>,
    pub(crate) deadlines: BTreeMap<u16, (Instant, Deadline)>,
    pub(crate) finished: bool,
    /// While requests kept together are judged ([`Core::begin_batch`]): the refusals, sent only
    /// after the change of the requests kept before them, which may be why they were refused.
    refusals: Option<Vec<(u64, ServerMessage)>>,
    /// Requests another instance forwarded, by the connection number given them while they
    /// are handled.
    pub(crate) remotes: HashMap<u64, Remote>,
    /// The first entry of every viewer's verifiable log (docs/fairness.md §7).
    fair_table: Value,
    /// Each viewer's hash chain over its log so far, and the sequence number it reached.
    heads: std::cell::RefCell<HashMap<Viewer, (HashChain, u64)>>,
    /// The chain of every viewer's verifiable log after its first entry, the table's own
    /// (the same for all): hashed once per table, not once per viewer.
    genesis: Option<HashChain>,
    setting: Setting,
    /// The time as last told ([`Core::tick`]).
    now: Instant,
    /// Per link: when its last chat lines were judged (the chat's rate, [`crate::chat`]).
    chat_sent: HashMap<String, VecDeque<Instant>>,
    /// The GM's last rematch while the table is in memory: its request's id and the answer
    /// with the new table's links, given again (before the ack) to a retry of that request, so
    /// that a GM whose connection dropped before the answer still gets the new GM link. Kept in
    /// memory alone, never stored.
    last_rematch: Option<(String, String)>,
    effects: Vec<Effect>,
}

impl Core {
    /// A table's core before its journal is replayed: the opened game, its seats' tokens and
    /// controllers (bots seated), nothing answered yet.
    pub(crate) fn assemble(
        id: TableId,
        ruleset: String,
        mut game: Box<dyn Hosted>,
        options: TableOptions,
        rows: &[Access],
        setting: Setting,
        now: Instant,
    ) -> Result<Core, Refusal> {
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
        Ok(Core {
            // Set once the server seed is in (`set_fair_table`).
            fair_table: Value::Null,
            heads: Default::default(),
            genesis: None,
            name: table_name(id),
            ruleset,
            id,
            game,
            options,
            rules,
            setup: Value::Null,
            journal: 0,
            used: Used::default(),
            access,
            conns: HashMap::new(),
            answered: HashMap::new(),
            deadlines: BTreeMap::new(),
            finished: false,
            refusals: None,
            remotes: HashMap::new(),
            setting,
            now,
            chat_sent: HashMap::new(),
            last_rematch: None,
            effects: Vec::new(),
        })
    }

    /// Replays the stored journal `entries` (a table loaded): each applied as it was, each
    /// client's answer remembered.
    pub(crate) fn replay(&mut self, entries: &[String]) -> Result<(), Refusal> {
        let id = self.id;
        let damaged = |what: &str, e: &dyn std::fmt::Display| {
            tracing::error!("{id} cannot be resumed: {what}: {e}");
            Refusal::new(ErrorCode::Internal, format!("table {} cannot be resumed ({what})", id.0))
        };
        for (n, entry) in entries.iter().enumerate() {
            let op: Op =
                serde_json::from_str(entry).map_err(|e| damaged(&format!("journal entry {n}"), &e))?;
            let fault =
                apply(&mut *self.game, &op).map_err(|e| damaged(&format!("journal entry {n}"), &e))?;
            if let Some((who, cid)) = asked(&op) {
                let answer = answer(cid.clone(), self.game.seq(), fault);
                remember(&mut self.answered, who, cid, &answer);
            }
        }
        self.journal = entries.len() as u64;
        self.used = Used::of(entries);
        Ok(())
    }

    /// The time is now `now`: every event brings its time (the core reads no clock).
    pub(crate) fn tick(&mut self, now: Instant) {
        self.now = now;
    }

    /// What the shell is to do now, in order.
    pub(crate) fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// When [`Core::fire`] is due next: the earliest bot's think delay or decision timer.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        self.deadlines.values().map(|(at, _)| *at).min()
    }

    /// Whether no connection is here and no deadline runs.
    pub(crate) fn is_idle(&self) -> bool {
        self.conns.is_empty() && self.deadlines.is_empty()
    }

    /// The first entry of every viewer's verifiable log (docs/fairness.md §7.1): the system,
    /// the setup's commitment (the setup itself is revealed in the log at the game's end, so
    /// no viewer reads in it what the rules hide, an NPC's moves), the seats with their modes
    /// and the server seed's commitment. Set once the game's draws are verifiable (or known
    /// not to be).
    pub(crate) fn set_fair_table(&mut self) {
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

    /// A hello with `token`, having seen the table up to `since`: its welcome, or why not.
    /// A link opened on a second device takes the seat over. The shell sends the welcome, then
    /// admits the connection ([`Core::admit`]).
    pub(crate) fn join(&mut self, token: &str, since: u64) -> Result<Joining, Refusal> {
        let who = self.who_by_token(token).ok_or_else(|| self.unauthorized())?;
        let key = who_key(who);
        if who != Who::Spectator {
            // A link opened on a second device takes the seat over, here and on every other
            // instance of a shared store.
            self.take_over(&key);
            self.effects.push(Effect::Opened { key: key.clone() });
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
            chat: self.game.chat_lines().iter().cloned().collect(),
            change,
        };
        let seq = self.game.seq();
        let prompt = match who {
            Who::Seat { seat } => {
                Some(prompt_digest(self.game.prompt_raw(SeatId(seat)).ok().flatten().as_deref()))
            }
            _ => None,
        };
        Ok(Joining { who, key, seq, prompt, welcome: text(&welcome) })
    }

    /// Connection `conn` was sent its welcome: it joins the table.
    pub(crate) fn admit(&mut self, conn: u64, joining: Joining) {
        let Joining { who, key, seq, prompt, .. } = joining;
        self.conns.insert(conn, Conn { who, key, seq, prompt });
        if matches!(who, Who::Seat { .. }) {
            self.send_seats();
        }
    }

    /// Connection `conn` ended.
    pub(crate) fn leave(&mut self, conn: u64) {
        if let Some(c) = self.conns.remove(&conn)
            && matches!(c.who, Who::Seat { .. })
        {
            self.send_seats();
        }
    }

    /// Connection `conn` was stuck (its queue full) and closed by the shell: it leaves, and
    /// catches up by sequence number when it reconnects.
    pub(crate) fn stuck(&mut self, conn: u64) {
        self.conns.remove(&conn);
    }

    /// A link opening `key` was opened on another instance: this one's connections of it are
    /// taken over.
    pub(crate) fn taken_over(&mut self, key: &str) {
        let had = self.conns.values().any(|c| c.key == key);
        self.take_over(key);
        if had && key.starts_with("seat:") {
            self.send_seats();
        }
    }

    /// Closes this instance's connections of the link opening `key`, telling each it was
    /// taken over by another device.
    fn take_over(&mut self, key: &str) {
        self.close_link(key, &ServerMessage::TakenOver {});
    }

    /// Closes this instance's connections of the link opening `key`, each told `last`.
    fn close_link(&mut self, key: &str, last: &ServerMessage) {
        self.close_link_but(key, None, last);
    }

    /// As [`Core::close_link`], but for connection `but`, which stays.
    fn close_link_but(&mut self, key: &str, but: Option<u64>, last: &ServerMessage) {
        let mut old: Vec<u64> = self
            .conns
            .iter()
            .filter(|(id, c)| c.key == key && Some(**id) != but)
            .map(|(id, _)| *id)
            .collect();
        old.sort_unstable();
        for conn in old {
            self.conns.remove(&conn);
            self.effects.push(Effect::Try { conn, frame: text(last) });
            self.effects.push(Effect::Close { conn });
        }
    }

    /// Request connection number `conn` stands for a request forwarded by another instance.
    pub(crate) fn add_remote(&mut self, conn: u64, remote: Remote) {
        self.remotes.insert(conn, remote);
    }

    /// The forwarded requests' connection numbers end with them.
    pub(crate) fn clear_remotes(&mut self) {
        self.remotes.clear();
    }

    pub(crate) fn log(&self, token: &str) -> Result<TableLog, Refusal> {
        let who = self.who_by_token(token).ok_or_else(|| self.unauthorized())?;
        Ok(TableLog {
            ruleset: self.ruleset.clone(),
            you: who,
            updates: self.game.updates_since(viewer(who, self.gm_seat()), 0),
            over: self.game.is_over(),
        })
    }

    /// Where the table stands for the link of `token` (issue 34, Lobby): its turn, waiting, or
    /// over. An unknown token is refused as every other.
    pub(crate) fn status(&self, token: &str) -> Result<crate::protocol::TableStatus, Refusal> {
        use crate::protocol::Standing;
        let who = self.who_by_token(token).ok_or_else(|| self.unauthorized())?;
        let standing = if self.game.is_over() || self.finished {
            Standing::Over
        } else {
            match who {
                Who::Seat { seat } if self.game.awaiting().iter().any(|s| s.0 == seat) => Standing::YourTurn,
                _ => Standing::Waiting,
            }
        };
        Ok(crate::protocol::TableStatus {
            table: self.name.clone(),
            ruleset: self.ruleset.clone(),
            you: who,
            standing,
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
    pub(crate) fn timers(&self) -> Vec<Timer> {
        let now = self.now;
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

    /// [`Core::head`] once `viewer` has been sent `items`, the canonical texts of its log
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
    pub(crate) fn fair_log(&self, token: &str) -> Result<String, Refusal> {
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
                    display_name: self.game.display_name(id).map(str::to_owned),
                    muted: self.game.muted(id),
                }
            })
            .collect()
    }

    fn send_seats(&mut self) {
        let frame = text(&ServerMessage::Seats { seats: self.seats() });
        self.send_all(&frame);
    }

    /// Sends every connection the chat's last `lines` lines, oldest first.
    fn send_chat(&mut self, lines: usize) {
        let kept = self.game.chat_lines();
        let frames: Vec<String> = kept
            .iter()
            .skip(kept.len().saturating_sub(lines))
            .map(|line| text(&ServerMessage::Chat { line: line.clone() }))
            .collect();
        for frame in frames {
            self.send_all(&frame);
        }
    }

    /// Whether the link `key` may send a chat line now ([`crate::chat::LINES_PER_WINDOW`] in
    /// [`crate::chat::WINDOW`]); counts it when it may.
    fn chat_allowed(&mut self, key: &str) -> bool {
        let now = self.now;
        let sent = self.chat_sent.entry(key.to_owned()).or_default();
        while sent.front().is_some_and(|t| now.saturating_duration_since(*t) >= crate::chat::WINDOW) {
            sent.pop_front();
        }
        if sent.len() >= crate::chat::LINES_PER_WINDOW {
            return false;
        }
        sent.push_back(now);
        true
    }

    /// Sends every connection `frame` (in the order of their numbers).
    fn send_all(&mut self, frame: &str) {
        let mut conns: Vec<u64> = self.conns.keys().copied().collect();
        conns.sort_unstable();
        for conn in conns {
            self.effects.push(Effect::Send { conn, frame: frame.to_owned() });
        }
    }

    fn send_to(&mut self, conn: u64, message: &ServerMessage) {
        let id = match message {
            ServerMessage::Error { id, .. } => id.clone(),
            ServerMessage::Ack { id, .. } => Some(id.clone()),
            _ => None,
        };
        self.send_frame(conn, id, text(message));
    }

    /// Sends connection `conn` a frame answering request `id`: a connection of this instance
    /// directly, one of the instance that forwarded the request through the store.
    fn send_frame(&mut self, conn: u64, id: Option<String>, frame: String) {
        if self.remotes.contains_key(&conn) {
            self.effects.push(Effect::Remote { conn, id, frame });
        } else if self.conns.contains_key(&conn) {
            self.effects.push(Effect::Send { conn, frame });
        }
    }

    /// An answer for connection `conn` of this instance, if it is still here (a forwarded
    /// request's instance learns of it from the journal entry, which carries the client's id).
    fn try_send(&mut self, conn: u64, frame: String) {
        if self.conns.contains_key(&conn) {
            self.effects.push(Effect::Try { conn, frame });
        }
    }

    /// Closes every connection, each told `last` first.
    pub(crate) fn close_all(&mut self, last: &ServerMessage) {
        let frame = text(last);
        let mut conns: Vec<u64> = self.conns.drain().map(|(conn, _)| conn).collect();
        conns.sort_unstable();
        for conn in conns {
            self.effects.push(Effect::Try { conn, frame: frame.clone() });
            self.effects.push(Effect::Close { conn });
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

    /// [`Core::update_frame`] with `who`'s prompt already written. The updates are the
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
        let mut conns: Vec<(&u64, &Conn)> = self.conns.iter().collect();
        conns.sort_unstable_by_key(|(id, _)| **id);
        for (id, c) in conns {
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
        for (conn, frame, prompt) in frames {
            if let Some(c) = self.conns.get_mut(&conn) {
                c.seq = seq;
                c.prompt = prompt;
                self.effects.push(Effect::Send { conn, frame });
            }
        }
    }

    fn refuse(&mut self, conn: u64, id: Option<String>, code: ErrorCode, message: String) {
        self.setting.counts.refusal(code);
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

    /// How long a seat's decision (a command, a commitment, a reveal) from `conn` waits for
    /// another seat's awaited with it that may come soon ([`Core::may_answer_soon`]); `None`:
    /// it does not wait. Both seats of a simultaneous choice, or of a bound round's reveals,
    /// usually answer within moments of each other, and kept together they are made durable by
    /// one commit instead of two in a row. A decision waits at most
    /// [`Limits::hold`](crate::config::Limits::hold): a person may take long over the other
    /// one. A reveal of a bound round waits up to
    /// [`Limits::reveal_hold`](crate::config::Limits::reveal_hold): the others' clients
    /// reveal on their own, and nothing is shown before every reveal is in. A bot's seat is
    /// decided here, on its think delay: never waited for.
    pub(crate) fn waits_for_another(&self, conn: u64, message: &ClientMessage) -> Option<Duration> {
        let (hold, reveal_hold) = (self.setting.hold, self.setting.reveal_hold);
        let wait = match message {
            ClientMessage::Command { .. } | ClientMessage::Seal { .. } => hold,
            ClientMessage::Reveal { .. } if self.game.round().is_some_and(|r| r.bound) => {
                hold.max(reveal_hold)
            }
            ClientMessage::Reveal { .. } => hold,
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
            || (self.setting.shared
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
    /// others learn who is awaited from the `sealed` message ([`Core::send_round`]); with
    /// decision timers running, every connection gets the update, which carries them.
    fn refresh(&mut self, timers: bool) {
        let mut frames = Vec::new();
        let mut texts = CanonicalTexts::default();
        let mut conns: Vec<(&u64, &Conn)> = self.conns.iter().collect();
        conns.sort_unstable_by_key(|(id, _)| **id);
        for (id, c) in conns {
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
        for (conn, frame, digest) in frames {
            if let Some(c) = self.conns.get_mut(&conn) {
                c.prompt = digest;
                self.effects.push(Effect::Send { conn, frame });
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
            self.send_all(&frame);
        }
    }

    pub(crate) fn gm_seat(&self) -> Option<u16> {
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

    /// Who sent connection `conn`'s request, and its link's key.
    fn sender(&self, conn: u64) -> Option<(Who, String)> {
        match (self.conns.get(&conn), self.remotes.get(&conn)) {
            (Some(c), _) => Some((c.who, c.key.clone())),
            (None, Some(r)) => Some((r.who, r.key.clone())),
            (None, None) => None,
        }
    }

    /// The first look at a request from `conn`: a retry is answered as the first time (applied
    /// once), an id out of order refused. `None` then (answered), else the key of the link
    /// that sent it, for the shell to forward the request to the instance applying the table
    /// before it is judged here ([`Core::judge`]).
    pub(crate) fn precheck(&mut self, conn: u64, message: &ClientMessage) -> Option<String> {
        let (_, key) = self.sender(conn)?;
        if let Some(id) = message.id()
            && let Some(frame) = self.answered.get(&key).and_then(|q| q.iter().find(|(i, _)| i == id))
        {
            // A retry: answered as the first time, applied once.
            let frame = frame.1.clone();
            if let Some((_, links)) = self.last_rematch.as_ref().filter(|(rid, _)| key == "gm" && rid == id) {
                let links = links.clone();
                self.send_frame(conn, None, links);
            }
            self.send_frame(conn, Some(id.to_owned()), frame);
            return None;
        }
        if let Some(id) = message.id()
            && let Err((code, why)) = check_id(self.answered.get(&key), id)
        {
            self.refuse(conn, Some(id.to_owned()), code, why);
            return None;
        }
        Some(key)
    }

    /// What a client's request asks the journal for (after [`Core::precheck`]): who may ask
    /// what, by the link that sent it.
    pub(crate) fn judge(&mut self, conn: u64, message: ClientMessage) -> Judged {
        let Some((who, key)) = self.sender(conn) else { return Judged::Done };
        let forbidden = |what: &str| (ErrorCode::Forbidden, what.to_owned());
        let op = match (message, who) {
            (ClientMessage::Ping {}, _) => {
                self.send_to(conn, &ServerMessage::Pong {});
                return Judged::Done;
            }
            (ClientMessage::Hello { .. }, _) => {
                self.refuse(conn, None, ErrorCode::BadMessage, "this connection already said hello".into());
                return Judged::Done;
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
            (ClientMessage::Name { id, name }, Who::Seat { seat }) => {
                Ok(Op::Name { seat, name: name.trim().to_owned(), id: Some(id) })
            }
            (ClientMessage::Chat { id, text }, who @ (Who::Seat { .. } | Who::Gm)) => {
                if !self.chat_allowed(&key) {
                    let m = format!(
                        "chat: at most {} lines in {} seconds from one link; wait a moment",
                        crate::chat::LINES_PER_WINDOW,
                        crate::chat::WINDOW.as_secs()
                    );
                    Err((Some(id), (ErrorCode::RateLimited, m)))
                } else {
                    let seat = match who {
                        Who::Seat { seat } => Some(seat),
                        _ => None,
                    };
                    Ok(Op::Chat { seat, text: text.trim().to_owned(), id: Some(id) })
                }
            }
            (m @ ClientMessage::Chat { .. }, _) => Err((
                m.id().map(str::to_owned),
                forbidden("a spectator link reads the chat; the seats' links and the GM link write in it"),
            )),
            (ClientMessage::Mute { id, seat, muted }, Who::Gm) => Ok(Op::Mute { seat, muted, id: Some(id) }),
            (m @ ClientMessage::Mute { .. }, _) => {
                Err((m.id().map(str::to_owned), forbidden("only the GM link mutes a seat in the chat")))
            }
            (m @ ClientMessage::Name { .. }, _) => Err((
                m.id().map(str::to_owned),
                forbidden("only a seat's link sets a display name (for the player in that seat)"),
            )),
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
                    return Judged::Done;
                }
            },
            (ClientMessage::Undo { id }, Who::Seat { seat }) => {
                Ok(Op::Undo { by: seat, id: Some(id), who: Some(key.clone()) })
            }
            (ClientMessage::Manage { id, action: ManageAction::Rematch {} }, Who::Gm) => {
                return Judged::Rematch { id };
            }
            (ClientMessage::Manage { id, action }, Who::Gm) => return Judged::Manage { id, action },
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
            Ok(op) => Judged::Op(op),
            Err((id, (code, message))) => {
                self.refuse(conn, id, code, message);
                Judged::Done
            }
        }
    }

    /// [`Core::precheck`] then [`Core::judge`], for a request this instance applies itself.
    fn request_op(&mut self, conn: u64, message: ClientMessage) -> Judged {
        match self.precheck(conn, &message) {
            Some(_) => self.judge(conn, message),
            None => Judged::Done,
        }
    }

    /// Requests that came in together, judged and applied in turn, as one at a time would
    /// be, to be made durable by one commit before anyone is told and answered (two seats'
    /// reveals of one sealed round share a commit instead of waiting one after the other).
    /// A request repeated within the batch (a retry) waits for the batch's answers: it and
    /// the ones after it come back as [`Batch::rest`]. Only requests that are each at most one
    /// journal entry with no other effect (never the GM's management).
    pub(crate) fn begin_batch(&mut self, batch: Vec<(u64, ClientMessage, Instant)>) -> Batch {
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
            let key = self.sender(conn).map(|(_, key)| key).unwrap_or_default();
            if let Some(id) = message.id()
                && asked_ids.iter().any(|(k, i)| *k == key && i == id)
            {
                rest.push((conn, message, received));
                rest.extend(batch);
                break;
            }
            let op = match self.request_op(conn, message) {
                Judged::Op(op) => op,
                Judged::Done => continue,
                // Never batched ([`super::together`]).
                Judged::Manage { id, .. } | Judged::Rematch { id } => {
                    self.refuse(conn, Some(id), ErrorCode::Internal, "send it again alone".into());
                    continue;
                }
            };
            // Counted once it is applied (below): a request the rules refuse adds nothing.
            if let Err((id, (code, message))) = used.admit(&op, &self.setting.limits) {
                self.refuse(conn, id, code, message);
                continue;
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
            let entry = entry(&op);
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
        let entries = writes.len() as u64;
        let over = !kept.is_empty() && self.game.is_over() && !self.finished;
        // A finished table is marked finished again with each later entry (an undo after its
        // end): it expires that long after its last entry ([`crate::Limits::keep_finished_seconds`]).
        if over || (!kept.is_empty() && self.finished) {
            writes.push(Write::Finished { table: self.id });
        }
        Batch { writes, kept, refusals, rest, entries, used, over, round, seq, timed }
    }

    /// The refusals of a batch, sent once its change was (or, when nothing was kept or the
    /// commit lost a race, without one).
    pub(crate) fn send_refusals(&mut self, refusals: Vec<(u64, ServerMessage)>) {
        for (conn, error) in refusals {
            self.send_to(conn, &error);
        }
    }

    /// A batch's entries are durable: everyone is told, each request answered, then the
    /// refusals sent. Gives back the requests after a repeated one ([`Batch::rest`]).
    pub(crate) fn batch_kept(&mut self, batch: Batch) -> Vec<(u64, ClientMessage, Instant)> {
        let Batch { kept, refusals, rest, entries, used, over, round, seq, timed, .. } = batch;
        if !kept.is_empty() {
            self.journal += entries;
            self.used = used;
            if over {
                self.finished = true;
                self.effects.push(Effect::Finished);
            }
            for k in &kept {
                self.setting.counts.commands.inc();
                if let Op::Submit { seat, .. }
                | Op::TakeBack { seat, .. }
                | Op::Force { seat, .. }
                | Op::Seal { seat, .. }
                | Op::Reveal { seat, .. } = &k.op
                {
                    self.reschedule(Some(*seat));
                }
            }
            if kept.iter().any(|k| matches!(k.op, Op::Name { .. } | Op::Mute { .. })) {
                self.send_seats();
            }
            self.send_chat(kept.iter().filter(|k| matches!(k.op, Op::Chat { .. })).count());
            self.broadcast();
            self.send_round(round.as_ref());
            if self.game.seq() == seq && self.game.round() != round {
                self.refresh(timed || !self.timers().is_empty());
            }
            for k in kept {
                if let Some((who, id)) = asked(&k.op) {
                    let ack = answer(id.clone(), k.seq, k.fault);
                    let frame = remember(&mut self.answered, who, id, &ack);
                    self.try_send(k.conn, frame);
                }
                if k.revealed {
                    self.setting.counts.reveals.inc();
                    self.setting.counts.reveal_latency.observe(self.since(k.received));
                }
            }
        }
        self.send_refusals(refusals);
        rest
    }

    /// Seconds from `then` to now.
    fn since(&self, then: Instant) -> f64 {
        self.now.saturating_duration_since(then).as_secs_f64()
    }

    /// Whether `op`'s client id is answered in the journal already (kept by another instance,
    /// after this one applied it on an older state): then its answer, as it was, goes to
    /// connection `from` again.
    pub(crate) fn answered_before(&mut self, op: &Op, from: Option<u64>) -> bool {
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

    /// Applies `op` (from connection `from`, or a bot's or timer's when `None`): the entries to
    /// make durable, or `None` when the rules refuse it (refused to its sender; a refusal
    /// changes nothing).
    pub(crate) fn begin_keep(
        &mut self,
        op: Op,
        from: Option<u64>,
        received: Instant,
    ) -> Option<(Vec<Write>, Keeping)> {
        let bytes = match self.used.admit(&op, &self.setting.limits) {
            Ok(bytes) => bytes,
            Err((id, (code, message))) => {
                match from {
                    Some(conn) => self.refuse(conn, id, code, message),
                    None => tracing::warn!("{}: a bot's or timer's decision was refused: {message}", self.id),
                }
                return None;
            }
        };
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
                return None;
            }
        };
        let mut writes = vec![Write::Journal { table: self.id, n: self.journal, entry: entry(&op) }];
        let over = self.game.is_over() && !self.finished;
        // A finished table is marked finished again with each later entry (an undo after its
        // end): it expires that long after its last entry ([`crate::Limits::keep_finished_seconds`]).
        if over || self.finished {
            writes.push(Write::Finished { table: self.id });
        }
        Some((writes, Keeping { op, from, received, bytes, face_down, round, seq, fault, over }))
    }

    /// `keeping`'s entry is durable: the timers move, everyone is told, the request answered.
    pub(crate) fn kept(&mut self, keeping: Keeping) {
        let Keeping { op, from, received, bytes, face_down, round, seq, fault, over } = keeping;
        self.setting.counts.commands.inc();
        self.journal += 1;
        self.used.add(bytes);
        if over {
            self.finished = true;
            self.effects.push(Effect::Finished);
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
            Op::Verifiable { .. }
            | Op::ClientSeed { .. }
            | Op::Name { .. }
            | Op::Chat { .. }
            | Op::Mute { .. } => None,
        };
        match op {
            Op::Name { .. } | Op::Mute { .. } => self.send_seats(),
            Op::Chat { .. } => self.send_chat(1),
            _ => {}
        }
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
            if let Some(conn) = from {
                self.try_send(conn, frame);
            }
        }
        let revealing = matches!(op, Op::Submit { .. } | Op::Force { .. } | Op::Reveal { .. });
        let sealed_reveal = round.is_some_and(|r| r.bound) && self.game.round().is_none();
        if revealing && ((face_down > 0 && self.game.face_down() == 0) || sealed_reveal) {
            self.setting.counts.reveals.inc();
            self.setting.counts.reveal_latency.observe(self.since(received));
        }
    }

    /// The GM's management of the table (from connection `conn`, request `id`): the access row
    /// to make durable, or `None` when refused.
    pub(crate) fn begin_manage(
        &mut self,
        conn: u64,
        id: String,
        action: ManageAction,
    ) -> Option<(Vec<Write>, Managing)> {
        let seats = self.game.seats().len();
        let seat_ok = |seat: u16| -> Result<(), String> {
            if usize::from(seat) < seats {
                Ok(())
            } else {
                Err(format!("seat: there is no seat number {seat} (seats 0 to {})", seats.saturating_sub(1)))
            }
        };
        let mut reply = None;
        if let ManageAction::Close {} = action {
            return Some(self.begin_close(conn, id));
        }
        let (who, row) = match &action {
            ManageAction::Reissue { seat } => {
                if let Some(seat) = seat
                    && let Err(m) = seat_ok(*seat)
                {
                    self.refuse(conn, Some(id), ErrorCode::Refused, m);
                    return None;
                }
                let who = seat.map_or(Who::Spectator, |seat| Who::Seat { seat });
                let (row, link) = self.new_link(who, *seat);
                reply = Some(link);
                (who, row)
            }
            // Issue 33 §2: the GM link itself is reissued; the new link goes to the asking
            // connection alone.
            ManageAction::ReissueGm {} => {
                let (row, link) = self.new_link(Who::Gm, None);
                reply = Some(link);
                (Who::Gm, row)
            }
            ManageAction::Revoke { seat } => {
                if let Some(seat) = seat
                    && let Err(m) = seat_ok(*seat)
                {
                    self.refuse(conn, Some(id), ErrorCode::Refused, m);
                    return None;
                }
                // Issue 33 §2: with no seat, the spectators' link.
                let who = seat.map_or(Who::Spectator, |seat| Who::Seat { seat });
                let controller =
                    self.access.get(&who_key(who)).map_or(Controller::Person, |r| r.controller.clone());
                (who, Row { hash: None, controller })
            }
            ManageAction::Bot { seat, kind } => {
                if let Err(m) = seat_ok(*seat).and_then(|()| check_bot(&self.ruleset, kind)) {
                    self.refuse(conn, Some(id), ErrorCode::Refused, m);
                    return None;
                }
                let who = Who::Seat { seat: *seat };
                let hash = self.access.get(&who_key(who)).and_then(|r| r.hash.clone());
                (who, Row { hash, controller: Controller::Bot { bot: kind.clone() } })
            }
            ManageAction::Person { seat } => {
                if let Err(m) = seat_ok(*seat) {
                    self.refuse(conn, Some(id), ErrorCode::Refused, m);
                    return None;
                }
                let who = Who::Seat { seat: *seat };
                let hash = self.access.get(&who_key(who)).and_then(|r| r.hash.clone());
                (who, Row { hash, controller: Controller::Person })
            }
            ManageAction::Close {} => unreachable!("closed above"),
            ManageAction::Rematch {} => {
                let m = "rematch: this request could not be handled here; send it again";
                self.refuse(conn, Some(id), ErrorCode::Internal, m.into());
                return None;
            }
        };
        let access = Access {
            who: who_key(who),
            token_hash: row.hash.clone(),
            controller: match who {
                Who::Seat { .. } => serde_json::to_string(&row.controller).unwrap_or_else(|_| "null".into()),
                _ => "null".into(),
            },
        };
        let relinked = matches!(
            action,
            ManageAction::Reissue { .. } | ManageAction::Revoke { .. } | ManageAction::ReissueGm {}
        );
        let writes = vec![Write::Access { table: self.id, access }];
        Some((writes, Managing { conn, id, who, row, reply, relinked, close: false }))
    }

    /// The GM's rematch ([`ManageAction::Rematch`], from connection `conn`, request `id`): the
    /// new table to create, the same setup, seats and options as this one — bots stay bots
    /// (the seats' controllers now), sealed seats stay sealed (a seat a bot plays now plays
    /// plain, as every bot) — or `None` when refused (the game is not over yet).
    pub(crate) fn begin_rematch(&mut self, conn: u64, id: String) -> Option<Rematching> {
        if !self.game.is_over() {
            let m = "rematch: the game is not over yet (a rematch starts a new table once it is)";
            self.refuse(conn, Some(id), ErrorCode::Refused, m.into());
            return None;
        }
        if self.setup.is_null() {
            let m = "rematch: this table's setup cannot be read again; create a new table instead";
            self.refuse(conn, Some(id), ErrorCode::Internal, m.into());
            return None;
        }
        let names: Vec<String> = self.game.seats().iter().map(|(_, s)| s.name.clone()).collect();
        let mut seats = BTreeMap::new();
        let mut options = self.options.clone();
        for (i, name) in names.iter().enumerate() {
            let key = who_key(Who::Seat { seat: i as u16 });
            let controller = self.access.get(&key).map_or(Controller::Person, |r| r.controller.clone());
            if matches!(controller, Controller::Bot { .. }) {
                options.modes.remove(name);
            }
            seats.insert(name.clone(), controller);
        }
        let request = crate::protocol::CreateTable {
            system: self.ruleset.clone(),
            setup: crate::protocol::SetupSource::Json(self.setup.clone()),
            seats,
            options,
            rules: BTreeMap::new(),
        };
        Some(Rematching { conn, id, names, request })
    }

    /// The rematch's new table was created (or refused): each seat's new link goes to the
    /// connections holding that seat's link here and to no other (never a spectator's, never
    /// a link taken over or revoked: those connections are closed and gone); the GM connection
    /// that asked is told the new GM and spectator links and which seats got nothing, then
    /// acknowledged.
    pub(crate) fn rematched(&mut self, rematching: Rematching, created: Result<CreatedTable, Refusal>) {
        let Rematching { conn, id, names, request } = rematching;
        let created = match created {
            Ok(created) => created,
            Err(refusal) => {
                let m = format!("rematch: {}", refusal.message);
                self.refuse(conn, Some(id), refusal.code, m);
                return;
            }
        };
        let (mut sent, mut unsent, mut bots) = (Vec::new(), Vec::new(), Vec::new());
        for (i, name) in names.iter().enumerate() {
            let seat = i as u16;
            if matches!(request.seats.get(name), Some(Controller::Bot { .. })) {
                bots.push(seat);
                continue;
            }
            let Some(url) = created.seats.get(name) else { continue };
            let holders: Vec<u64> = self
                .conns
                .iter()
                .filter(|(_, c)| c.who == Who::Seat { seat })
                .map(|(conn, _)| *conn)
                .collect();
            if holders.is_empty() {
                unsent.push(seat);
                continue;
            }
            sent.push(seat);
            let message = ServerMessage::Rematch { table: created.table.clone(), seat, url: url.clone() };
            for holder in holders {
                self.send_to(holder, &message);
            }
        }
        let reply = ServerMessage::Rematched {
            table: created.table,
            gm: created.gm,
            spectator: created.spectator,
            sent,
            unsent,
            bots,
        };
        self.setting.counts.commands.inc();
        self.send_to(conn, &reply);
        self.last_rematch = Some((id.clone(), text(&reply)));
        let ack = ServerMessage::Ack { id: id.clone(), seq: self.game.seq() };
        let frame = remember(&mut self.answered, "gm".into(), id, &ack);
        self.try_send(conn, frame);
    }

    /// A new link for `who` (`seat` as the link message names it): the row keeping only its
    /// token's hash, with the seat's controller, and the message that gives the link to the GM
    /// connection that asked (never stored, never logged).
    fn new_link(&self, who: Who, seat: Option<u16>) -> (Row, ServerMessage) {
        let token = auth::new_token();
        let message = ServerMessage::Link {
            seat,
            who: Some(who),
            url: link(&self.setting.base_url, &self.name, &token),
        };
        let controller = self.access.get(&who_key(who)).map_or(Controller::Person, |r| r.controller.clone());
        (Row { hash: Some(auth::hash(&token)), controller }, message)
    }

    /// The GM link closes the table (issue 33 §1): every link's token is dropped, and the table
    /// marked finished, in one commit.
    fn begin_close(&mut self, conn: u64, id: String) -> (Vec<Write>, Managing) {
        let writes = self.begin_expire();
        let row = Row { hash: None, controller: Controller::Person };
        (writes, Managing { conn, id, who: Who::Gm, row, reply: None, relinked: true, close: true })
    }

    /// The table closes for good, by the GM's link or because nobody joined it in time
    /// ([`crate::Limits::unjoined_seconds`]): every link's token dropped and the table marked
    /// finished, in one commit ([`Core::expired`] once durable).
    pub(crate) fn begin_expire(&mut self) -> Vec<Write> {
        let mut writes: Vec<Write> = self
            .access
            .iter()
            .map(|(key, row)| Write::Access {
                table: self.id,
                access: Access {
                    who: key.clone(),
                    token_hash: None,
                    controller: match who_of(key) {
                        Some(Who::Seat { .. }) => {
                            serde_json::to_string(&row.controller).unwrap_or_else(|_| "null".into())
                        }
                        _ => "null".into(),
                    },
                },
            })
            .collect();
        writes.push(Write::Finished { table: self.id });
        writes
    }

    /// The GM's management is durable: the seat handed over or its link changed (its
    /// connections told and closed), the GM answered, everyone told.
    pub(crate) fn managed(&mut self, managing: Managing) {
        if managing.close {
            return self.closed(managing);
        }
        let Managing { conn, id, who, row, reply, relinked, .. } = managing;
        let key = who_key(who);
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
            // The GM connection that reissued its own link keeps its connection: the new link
            // goes to it alone. Every other connection of the old link is closed.
            let asker = (who == Who::Gm).then_some(conn);
            self.close_link_but(&key, asker, &ServerMessage::Revoked {});
        }
        self.setting.counts.commands.inc();
        if let Some(reply) = reply {
            self.send_to(conn, &reply);
        }
        let ack = ServerMessage::Ack { id: id.clone(), seq: self.game.seq() };
        let frame = remember(&mut self.answered, "gm".into(), id, &ack);
        self.try_send(conn, frame);
        self.send_seats();
        self.reschedule(None);
    }

    /// Whether the GM closed the table ([`ManageAction::Close`]): finished, and no link opens
    /// it (the GM's link is never revoked otherwise, only reissued). Its bots and timers never
    /// run again.
    pub(crate) fn is_closed(&self) -> bool {
        self.finished && self.access.values().all(|row| row.hash.is_none())
    }

    /// The table's closing is durable: no link opens it any more, it counts no longer towards
    /// the server's limit, the GM is answered and every connection told and closed.
    fn closed(&mut self, managing: Managing) {
        self.setting.counts.commands.inc();
        let ack = ServerMessage::Ack { id: managing.id.clone(), seq: self.game.seq() };
        let frame = remember(&mut self.answered, "gm".into(), managing.id, &ack);
        self.try_send(managing.conn, frame);
        self.expired();
    }

    /// The table's closing ([`Core::begin_expire`]) is durable: no link opens it any more, it
    /// counts no longer towards the server's limit, and every connection is told and closed.
    pub(crate) fn expired(&mut self) {
        for row in self.access.values_mut() {
            row.hash = None;
        }
        if !self.finished {
            self.finished = true;
            self.effects.push(Effect::Finished);
        }
        self.deadlines.clear();
        self.close_all(&ServerMessage::Revoked {});
    }

    /// Sets the deadlines of the seats the game waits for: a bot's think delay, a person's
    /// decision timer. `acted` is the seat that just decided: its timer starts again.
    pub(crate) fn reschedule(&mut self, acted: Option<u16>) {
        if let Some(seat) = acted {
            self.deadlines.remove(&seat);
        }
        if self.game.is_over() || self.is_closed() {
            self.deadlines.clear();
            return;
        }
        let awaiting: Vec<u16> = self.game.awaiting().into_iter().map(|s| s.0).collect();
        self.deadlines.retain(|seat, _| awaiting.contains(seat));
        let now = self.now;
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

    /// The earliest deadline due by now: a bot's decision, or a timer forcing the decision —
    /// the entry to keep ([`Core::begin_keep`] with no connection), or `None`.
    pub(crate) fn fire(&mut self) -> Option<Op> {
        let now = self.now;
        let (&seat, &(_, kind)) =
            self.deadlines.iter().filter(|(_, (at, _))| *at <= now).min_by_key(|(_, (at, _))| *at)?;
        self.deadlines.remove(&seat);
        let revealing = self.game.round().is_some_and(|r| r.revealing.contains(&SeatId(seat)));
        Some(match kind {
            // A bot handed a seat whose sealed choice waits for its reveal cannot reveal it:
            // the seat faults (no reveal) and its decision is forced.
            Deadline::Bot if revealing => {
                Op::Force { seat, by: None, id: None, who: None, nonce: self.nonce() }
            }
            // The opening round: the server's own nonce binds the seat's `{}`.
            Deadline::Bot if self.game.round().is_some_and(|r| r.opening) => {
                Op::Force { seat, by: None, id: None, who: None, nonce: self.nonce() }
            }
            Deadline::Bot => {
                let command = self.game.bot_command(SeatId(seat))?;
                Op::Submit { seat, command, id: None, nonce: self.nonce(), who: None }
            }
            Deadline::Timer => Op::Force { seat, by: None, id: None, who: None, nonce: self.nonce() },
        })
    }

    /// Applies `entries` (the journal's next ones, committed by another instance) as a load
    /// does; then tells the connections what changed.
    pub(crate) fn apply_entries(&mut self, entries: &[String], finished: bool) -> Result<(), String> {
        let (round, seq, timed) = (self.game.round(), self.game.seq(), !self.timers().is_empty());
        let mut named = false;
        let mut said = 0;
        for entry in entries {
            let n = self.journal;
            let op: Op = serde_json::from_str(entry).map_err(|e| format!("journal entry {n}: {e}"))?;
            let fault = apply(&mut *self.game, &op).map_err(|e| format!("journal entry {n}: {e}"))?;
            self.journal += 1;
            self.used.add(entry.len() as u64);
            if let Some((who, cid)) = asked(&op) {
                let answer = answer(cid.clone(), self.game.seq(), fault);
                remember(&mut self.answered, who, cid, &answer);
            }
            let acted = match op {
                Op::Submit { seat, .. }
                | Op::TakeBack { seat, .. }
                | Op::Force { seat, .. }
                | Op::Seal { seat, .. }
                | Op::Reveal { seat, .. } => Some(seat),
                Op::Undo { .. } => {
                    self.deadlines.clear();
                    None
                }
                Op::Name { .. } | Op::Mute { .. } => {
                    named = true;
                    continue;
                }
                Op::Chat { .. } => {
                    said += 1;
                    continue;
                }
                // Not a decision: the timers stand.
                Op::Verifiable { .. } | Op::ClientSeed { .. } => continue,
            };
            self.reschedule(acted);
        }
        if finished {
            self.finished = true;
        }
        if named {
            self.send_seats();
        }
        self.send_chat(said);
        self.broadcast();
        // A sealed round moved on the other instance: this one's connections are told as the
        // applying instance tells its own (who has committed, the binding, changed prompts).
        self.send_round(round.as_ref());
        if self.game.seq() == seq && self.game.round() != round {
            self.refresh(timed || !self.timers().is_empty());
        }
        Ok(())
    }

    /// Takes the access rows as stored: a seat handed to a bot or back, a link reissued or
    /// revoked (its connections are told and closed) on another instance.
    pub(crate) fn take_rows(&mut self, rows: Vec<(String, Row)>) {
        let mut changed = false;
        for (key, row) in rows {
            let Some(who) = who_of(&key) else { continue };
            let old = self.access.get(&key);
            let relinked = old.is_some_and(|o| o.hash != row.hash);
            let handed = old.is_none_or(|o| o.controller != row.controller);
            if !relinked && !handed {
                continue;
            }
            changed = true;
            if let (Who::Seat { seat }, true) = (who, handed) {
                let bot = match &row.controller {
                    Controller::Bot { bot } => Some(bot.as_str()),
                    Controller::Person => None,
                };
                if let Err(e) = self.game.set_bot(SeatId(seat), bot, bot_seed(self.id, seat)) {
                    tracing::error!("{}: {e}", self.id);
                }
                self.deadlines.remove(&seat);
            }
            if relinked {
                self.close_link(&who_key(who), &ServerMessage::Revoked {});
            }
            self.access.insert(key, row);
        }
        if changed {
            self.send_seats();
            self.reschedule(None);
        }
    }

    /// The table as the store has it (after a lost race: this core's game had the refused
    /// request applied already), taken from `fresh`, a core just loaded; then the connections
    /// are told what they lack.
    pub(crate) fn reload_from(&mut self, fresh: Core) {
        self.game = fresh.game;
        self.journal = fresh.journal;
        self.used = fresh.used;
        self.answered = fresh.answered;
        self.finished = fresh.finished;
        self.rules = fresh.rules;
        self.take_rows(fresh.access.into_iter().collect());
        self.reschedule(None);
        self.broadcast();
    }
}

/// A journal entry's text.
fn entry(op: &Op) -> String {
    // The journal's entries are plain data: they always serialise.
    serde_json::to_string(op).unwrap_or_default()
}

/// Applies one journal entry to the game; a sealed seat's reveal that does not match its
/// commitment comes back as its fault (applied: the seat's decision will be forced).
pub(crate) fn apply(game: &mut dyn Hosted, op: &Op) -> Result<Option<Fault>, AnyError> {
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
        Op::Name { seat, name, .. } => game.set_display_name(SeatId(*seat), name).map(|()| None),
        Op::Chat { seat, text, .. } => game.say(seat.map(SeatId), text).map(|()| None),
        Op::Mute { seat, muted, .. } => game.mute(SeatId(*seat), *muted).map(|()| None),
    }
}

/// Who asked for an entry, and the client's id, when a client did.
pub(crate) fn asked(op: &Op) -> Option<(String, String)> {
    match op {
        Op::Submit { id: Some(id), who: Some(who), .. } => Some((who.clone(), id.clone())),
        Op::Submit { seat, id: Some(id), .. }
        | Op::TakeBack { seat, id: Some(id), .. }
        | Op::Seal { seat, id: Some(id), .. }
        | Op::Reveal { seat, id: Some(id), .. }
        | Op::ClientSeed { seat, id: Some(id), .. }
        | Op::Name { seat, id: Some(id), .. }
        | Op::Chat { seat: Some(seat), id: Some(id), .. } => {
            Some((who_key(Who::Seat { seat: *seat }), id.clone()))
        }
        Op::Chat { seat: None, id: Some(id), .. } | Op::Mute { id: Some(id), .. } => {
            Some((who_key(Who::Gm), id.clone()))
        }
        Op::Force { id: Some(id), who: Some(who), .. } | Op::Undo { id: Some(id), who: Some(who), .. } => {
            Some((who.clone(), id.clone()))
        }
        _ => None,
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
pub(crate) fn bot_seed(id: TableId, seat: u16) -> u64 {
    id.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(seat)
}

/// A digest of a prompt as written (`None`: no prompt), to tell whether a seat's changed.
fn prompt_digest(prompt: Option<&RawValue>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    prompt.map(RawValue::get).hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests;
