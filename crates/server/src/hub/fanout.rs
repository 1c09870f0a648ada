//! Several server instances on one shared store (issue 16, part 4): exactly one instance — the
//! holder of the table's lease — applies each table's requests and runs its bots and decision
//! timers, and what it commits reaches the connections of the others.
//!
//! *Leases.* Every actor on a shared store asks for its table's lease when it starts and
//! every third of the lease's time ([`TableStore::leases`]: the leases asked for meanwhile,
//! all in one statement); it counts the lease held for two thirds of it, and otherwise learns
//! who holds it. An actor leaving memory, or whose table ended, gives the lease up (handed
//! over at once when deadlines remain); a lease that is not renewed (its holder died) expires,
//! and every instance looks for such *orphans* as often as leases are renewed and loads them,
//! so that one of them takes the lease over.
//!
//! *Forwarding.* An actor that does not hold the lease sends each request that may add to the
//! journal to the holder ([`Bus::Request`] on the holder's own channel, [`TableStore::tell`])
//! instead of applying it; the holder handles it as its own connections' requests, and sends
//! a refusal back the same way ([`Bus::Answer`]). The forwarding actor acknowledges its
//! client once the entry — which carries the client's id — reaches it. Unanswered, it looks at
//! the store and the lease, forwards once more, then applies the request itself: once, since a
//! client id already answered is never applied again, even after a conflict.
//!
//! *Fan-out.* Every commit to a shared store (PostgreSQL) is told to every instance once it is
//! durable ([`Heard`], PostgreSQL's NOTIFY), with the entries appended when they fit. This
//! instance's [`Fanout`] passes each notice to the actor of the table if it holds it in
//! memory, through a [`watch`] channel per actor — a notice never waits and is never dropped
//! for a busy actor; several coalesce into one — and keeps the entries it carried. The actor
//! applies those entries as a load does (the table's end, when the notice says so, with them),
//! or, when some are missing or access rows changed, reads what it lacks ([`TableStore::load_since`]); then it sends its own
//! connections what changed. A notice that may have been lost ([`Heard::Missed`]: the
//! listener connected again, or fell behind) makes every actor check the store. A commit
//! refused because another instance kept that entry number first ([`PersistError::Conflict`],
//! now only around a change of holder) makes the actor read the table again before it tries
//! once more — the rules then accept the request on the new state or refuse it.
//!
//! On a store that is not shared (SQLite) none of this runs: one instance holds every table.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use store::PersistError;
use store::tables::{Heard, MAX_NOTICE_BYTES, TableId, TableStore};
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::time::Instant;

use super::core::Row;
use super::{Actor, Hub, ToTable, who_of};
use crate::protocol::{ClientMessage, Controller, Who};

/// Orphaned tables loaded per look.
const ORPHANS_PER_LOOK: usize = 64;
/// Leases taken or renewed in one statement at most.
const LEASES_PER_STATEMENT: usize = 1024;
/// Messages to other instances sent in one statement at most.
const TOLD_PER_STATEMENT: usize = 256;
/// Entries carried by notices an actor keeps before it has read them (more: it reads the
/// store instead).
const CARRIED: usize = 256;
/// How long a request forwarded to the applying instance waits for its answer before this
/// instance looks at the store (applied there?) and at the lease (still held there?).
pub(super) const FORWARD_CHECK: Duration = Duration::from_secs(2);

/// What one instance tells another, as the payload of a NOTIFY on the other's channel.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "k", rename_all = "snake_case")]
pub(crate) enum Bus {
    /// A request a client sent instance `from`, for the instance that applies the table.
    Request {
        /// The table.
        table: u64,
        /// The instance the client is connected to, where answers go.
        from: String,
        /// The client's connection there.
        conn: u64,
        /// Who the connection's link opens (`seat:N`, `gm`, `spectator`).
        who: String,
        /// The request as the client sent it.
        message: ClientMessage,
    },
    /// A link was opened on instance `from` (told to every instance): a connection of that
    /// link elsewhere is taken over, as one on the same instance is.
    Opened {
        /// The table.
        table: u64,
        /// Who the link opens (`seat:N`, `gm`).
        who: String,
        /// The instance it was opened on.
        from: String,
    },
    /// A frame for a connection of the instance the request came from: a refusal, or a
    /// retried request's first answer.
    Answer {
        /// The table.
        table: u64,
        /// The connection.
        conn: u64,
        /// Who the connection's link opens.
        who: String,
        /// The client's id of the request answered.
        id: Option<String>,
        /// The frame, as the connection is to be sent it.
        frame: String,
    },
}

/// What the instance has heard of one table since its actor started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Head {
    /// The longest journal heard of.
    len: u64,
    /// How many notices said more than the journal changed (access rows, the table's end).
    access: u64,
    /// How many times notices may have been lost.
    missed: u64,
    /// Whether a notice that carried its entries said the table finished.
    finished: bool,
}

/// Entries carried by notices, by number, that an actor has not applied yet.
type Carried = Arc<Mutex<BTreeMap<u64, String>>>;

/// The actor of each table in memory: its generation, its head and the entries heard.
type Heads = HashMap<u64, (u64, watch::Sender<Head>, Carried)>;

/// The queues' receiving ends: messages to other instances, leases to ask for.
type Queues = (mpsc::UnboundedReceiver<(String, String)>, mpsc::UnboundedReceiver<LeaseAsk>);

/// What an actor asks of the lease task: the table, and where to say who holds its lease.
type LeaseAsk = (TableId, oneshot::Sender<Result<String, String>>);

/// The instance's side: its name as a lease holder, and the tables it follows.
pub(crate) struct Fanout {
    /// Whether the store is shared (else nothing here runs).
    shared: bool,
    /// This instance's name in the leases and on the bus between instances: random, made
    /// when it starts.
    pub(crate) holder: String,
    /// How long a lease lasts unless renewed.
    pub(super) lease_seconds: u32,
    /// The actor of each table in memory: its generation, its head and the entries heard.
    heads: Mutex<Heads>,
    /// How many times notices may have been lost, for actors that start later.
    missed: Mutex<u64>,
    /// Messages to other instances, for the task that sends them.
    told: mpsc::UnboundedSender<(String, String)>,
    /// Leases to take or renew, for the task that asks the store.
    asks: mpsc::UnboundedSender<LeaseAsk>,
    /// The receiving ends, until [`run`] starts the tasks.
    queues: Mutex<Option<Queues>>,
}

impl Fanout {
    /// The fan-out of the instance named `holder` on a store that is `shared` or not.
    pub(crate) fn new(shared: bool, lease_seconds: u32, holder: String) -> Fanout {
        let (told, told_rx) = mpsc::unbounded_channel();
        let (asks, asks_rx) = mpsc::unbounded_channel();
        Fanout {
            shared,
            holder,
            lease_seconds: lease_seconds.max(1),
            heads: Mutex::new(HashMap::new()),
            missed: Mutex::new(0),
            told,
            asks,
            queues: Mutex::new(Some((told_rx, asks_rx))),
        }
    }

    /// Sends `message` to instance `to` (with the next group of messages).
    pub(super) fn tell(&self, to: &str, message: &Bus) -> Result<(), String> {
        let payload = serde_json::to_string(message).map_err(|e| e.to_string())?;
        if payload.len() > MAX_NOTICE_BYTES {
            return Err(format!("{} bytes do not fit a notice", payload.len()));
        }
        self.told.send((to.to_owned(), payload)).map_err(|_| "the instance is shutting down".to_owned())
    }

    /// Takes or renews this instance's lease on `table` (with the next group of leases):
    /// who holds it then.
    async fn lease(&self, table: TableId) -> Result<String, String> {
        let (reply, answer) = oneshot::channel();
        self.asks.send((table, reply)).map_err(|_| "the instance is shutting down".to_owned())?;
        answer.await.map_err(|_| "the lease task ended".to_owned())?
    }

    /// How often leases are renewed and orphans looked for: a third of a lease.
    fn period(&self) -> Duration {
        Duration::from_millis(u64::from(self.lease_seconds) * 1000 / 3)
    }

    fn heads(&self) -> std::sync::MutexGuard<'_, Heads> {
        // Single inserts and removes: a poisoned lock holds a consistent map.
        self.heads.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn missed_count(&self) -> u64 {
        *self.missed.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts following table `id` for its actor `generation` — before the actor loads it, so
    /// that nothing committed after the load goes unheard. `None` on a store that is not shared.
    pub(crate) fn follow(&self, id: TableId, generation: u64) -> Option<Follow> {
        if !self.shared {
            return None;
        }
        let missed = self.missed_count();
        let head = Head { missed, ..Head::default() };
        let (tx, rx) = watch::channel(head);
        let carried = Carried::default();
        self.heads().insert(id.0, (generation, tx, Arc::clone(&carried)));
        Some(Follow {
            head: rx,
            carried,
            elsewhere: None,
            seen: head,
            held_until: None,
            renew_at: Instant::now(),
            wanted: false,
        })
    }

    /// Stops following table `id`, if actor `generation` still follows it.
    pub(crate) fn unfollow(&self, id: TableId, generation: u64) {
        let mut heads = self.heads();
        if heads.get(&id.0).is_some_and(|(g, _, _)| *g == generation) {
            heads.remove(&id.0);
        }
    }

    /// Passes a notice on to the actor it concerns (or, [`Heard::Missed`], to all).
    fn heard(&self, heard: Heard) {
        match heard {
            Heard::Appended { table, len, access, finished, entries } => {
                if let Some((_, tx, carried)) = self.heads().get(&table.0) {
                    let mut carried = carried.lock().unwrap_or_else(|p| p.into_inner());
                    if carried.len() + entries.len() > CARRIED {
                        // Too far behind: the actor reads the store.
                        carried.clear();
                    } else {
                        let first = len - entries.len() as u64;
                        carried.extend((first..).zip(entries));
                    }
                    if finished {
                        // Set before the length, whose change wakes the actor: it sees both.
                        tx.send_if_modified(|head| {
                            head.finished = true;
                            false
                        });
                    }
                }
                self.heard(Heard::Wrote { table, len, access });
            }
            // Handled by [`run`], which can reach the tables.
            Heard::Told(_) => {}
            Heard::Wrote { table, len, access } => {
                if let Some((_, tx, _)) = self.heads().get(&table.0) {
                    tx.send_if_modified(|head| {
                        let longer = len > head.len;
                        head.len = head.len.max(len);
                        if access {
                            head.access += 1;
                        }
                        longer || access
                    });
                }
            }
            Heard::Missed => {
                *self.missed.lock().unwrap_or_else(|p| p.into_inner()) += 1;
                for (_, tx, _) in self.heads().values() {
                    tx.send_modify(|head| head.missed += 1);
                }
            }
        }
    }
}

/// An actor's side on a shared store: what it has heard and its lease.
pub(crate) struct Follow {
    head: watch::Receiver<Head>,
    /// Entries carried by notices, not applied yet.
    carried: Carried,
    /// The other instance that holds the lease, as last seen: the one that applies the
    /// table's requests, to which this instance forwards them.
    elsewhere: Option<String>,
    /// The head as the actor last caught up with it.
    seen: Head,
    /// Until when this instance holds the table's lease, by its own clock (a third of a lease
    /// before the database would let another take it).
    held_until: Option<Instant>,
    /// When to renew (or try to take) the lease next.
    renew_at: Instant,
    /// Whether the actor had deadlines to run when last told.
    wanted: bool,
}

impl Follow {
    /// Whether this instance holds the lease now.
    fn holds(&self) -> bool {
        self.held_until.is_some_and(|until| Instant::now() < until)
    }
}

/// Whether `follow` lets the actor run its bots and timers: always on a store that is not
/// shared, else while it holds the lease.
pub(super) fn runs_deadlines(follow: &Option<Follow>) -> bool {
    follow.as_ref().is_none_or(Follow::holds)
}

/// The other instance that applies the table's requests, when another holds its lease (on a
/// shared store); `None` when this instance applies them.
pub(super) fn elsewhere(follow: &Option<Follow>) -> Option<&str> {
    follow.as_ref().filter(|f| !f.holds()).and_then(|f| f.elsewhere.as_deref())
}

/// The requests an instance that does not apply a table forwards to the one that does: every
/// request that may append to the journal (not the GM's management of links and seats, whose
/// rows no two instances can race for, nor a ping or a second hello).
pub(super) fn forwarded(message: &ClientMessage) -> bool {
    matches!(
        message,
        ClientMessage::Command { .. }
            | ClientMessage::TakeBack { .. }
            | ClientMessage::Force { .. }
            | ClientMessage::Undo { .. }
            | ClientMessage::Seal { .. }
            | ClientMessage::Reveal { .. }
            | ClientMessage::ClientSeed { .. }
            | ClientMessage::Name { .. }
            | ClientMessage::Chat { .. }
            | ClientMessage::Mute { .. }
    )
}

/// Tells the fan-out whether the actor has deadlines to run (`wanted`): when it comes to have
/// some without holding the lease, the lease is asked for at once, not at the next renewal.
pub(super) fn want(follow: &mut Option<Follow>, wanted: bool) {
    let Some(follow) = follow else { return };
    if wanted && !follow.wanted && !follow.holds() {
        follow.renew_at = Instant::now();
    }
    follow.wanted = wanted;
}

/// Resolves when the actor should act on the fan-out: something was heard, or the lease is
/// due. Never, on a store that is not shared.
pub(super) async fn wake(follow: &mut Option<Follow>) -> Wake {
    let Some(follow) = follow else { return std::future::pending().await };
    tokio::select! {
        changed = follow.head.changed() => match changed {
            Ok(()) => Wake::Heard,
            // The instance stopped following (a newer actor took the table over).
            Err(_) => std::future::pending().await,
        },
        () = tokio::time::sleep_until(follow.renew_at) => Wake::Lease,
    }
}

/// Why [`wake`] resolved.
pub(super) enum Wake {
    Heard,
    Lease,
}

impl<S: TableStore> Actor<S> {
    /// Acts on what [`wake`] said.
    pub(super) async fn woken(&mut self, wake: Wake) -> Result<(), String> {
        match wake {
            Wake::Heard => self.catch_up_if_behind().await,
            Wake::Lease => self.renew_lease().await,
        }
    }

    /// Takes or renews the table's lease (on a shared store every table held in memory asks
    /// for it: its holder applies the table's requests, and runs its bots and timers); learns
    /// who holds it otherwise, to forward requests there. A finished table gives it up. The
    /// leases of every table due are asked for together, in one statement ([`Fanout::lease`]).
    /// When this instance just took the lease over, the requests it forwarded and that were
    /// not answered are applied here.
    pub(super) async fn renew_lease(&mut self) -> Result<(), String> {
        let hub = Arc::clone(&self.hub);
        let finished = self.core.finished;
        let Some(follow) = self.follow.as_mut() else { return Ok(()) };
        let now = Instant::now();
        follow.renew_at = now + hub.fanout.period();
        if finished {
            follow.elsewhere = None;
            if follow.held_until.take().is_some()
                && let Err(e) = hub.store.release(self.id, &hub.fanout.holder, false).await
            {
                tracing::warn!("{}: the lease could not be given up (it expires): {e}", self.id);
            }
            return Ok(());
        }
        let held = follow.holds();
        match hub.fanout.lease(self.id).await {
            Ok(holder) if holder == hub.fanout.holder => {
                // Valid until two thirds of the lease from when it was asked for: renewed once
                // a third has gone by, given up a third before the database lets it go.
                let seconds = hub.fanout.lease_seconds;
                follow.held_until = Some(now + Duration::from_millis(u64::from(seconds) * 2000 / 3));
                follow.elsewhere = None;
            }
            Ok(holder) => {
                follow.held_until = None;
                follow.elsewhere = Some(holder);
            }
            // It lapses by itself if no renewal succeeds.
            Err(e) => tracing::warn!("{}: the lease could not be renewed: {e}", self.id),
        }
        if !held && follow.holds() {
            tracing::debug!("{}: this instance holds the table's lease", self.id);
            if !self.forwarded.is_empty() {
                return self.take_over_forwarded().await;
            }
        }
        Ok(())
    }

    /// Requests this instance forwarded and still waits for, once it holds the lease itself:
    /// what the store has is read first (a request the old holder applied is answered as it
    /// was), and the others are applied here — once: a retry's client id is looked up, and a
    /// conflict with an entry the old holder kept meanwhile reads the table again.
    async fn take_over_forwarded(&mut self) -> Result<(), String> {
        self.catch_up().await?;
        let waiting: Vec<_> = self.forwarded.drain().collect();
        for (_, pending) in waiting {
            self.apply_here(pending, Instant::now()).await?;
        }
        Ok(())
    }

    /// Tells every other instance that a link opening `key` was opened here, so that they
    /// close their connections of it (a link opened on a second device takes the seat over,
    /// whichever instance each device reached). Nothing on a store that is not shared.
    pub(super) fn tell_opened(&self, key: &str) {
        if !self.hub.fanout.shared {
            return;
        }
        let bus = Bus::Opened { table: self.id.0, who: key.to_owned(), from: self.hub.fanout.holder.clone() };
        if let Err(e) = self.hub.fanout.tell(store::tables::EVERY_INSTANCE, &bus) {
            tracing::warn!("{}: the other instances were not told of a link opened: {e}", self.id);
        }
    }

    /// Forwards `message`, from connection `conn` whose link opens `key`, to instance `to`,
    /// which applies the table's requests; false when it cannot go (too large for a notice,
    /// the instance shutting down): then it is applied here.
    pub(super) fn forward(&mut self, conn: u64, key: &str, to: &str, message: &ClientMessage) -> bool {
        let Some(id) = message.id() else { return false };
        let wait = (key.to_owned(), id.to_owned());
        if let Some(pending) = self.forwarded.get_mut(&wait) {
            // The client sent it again before the answer: answered once, on this connection.
            pending.conn = conn;
            return true;
        }
        let bus = Bus::Request {
            table: self.id.0,
            from: self.hub.fanout.holder.clone(),
            conn,
            who: key.to_owned(),
            message: message.clone(),
        };
        match self.hub.fanout.tell(to, &bus) {
            Ok(()) => {
                let now = Instant::now();
                let pending = super::Pending {
                    conn,
                    message: message.clone(),
                    to: to.to_owned(),
                    since: now,
                    tries: 0,
                };
                self.forwarded.insert(wait, pending);
                true
            }
            Err(e) => {
                tracing::debug!("{}: applied here, not forwarded: {e}", self.id);
                false
            }
        }
    }

    /// Answers the forwarded requests the journal now answers (the applying instance kept
    /// them, and this one applied the entry): each on the connection it came from, after the
    /// update that carries it.
    pub(super) fn settle_forwarded(&mut self) {
        if self.forwarded.is_empty() {
            return;
        }
        let done: Vec<(String, String)> = self
            .forwarded
            .keys()
            .filter(|(who, id)| self.core.answered.get(who).is_some_and(|q| q.iter().any(|(i, _)| i == id)))
            .cloned()
            .collect();
        for wait in done {
            let Some(pending) = self.forwarded.remove(&wait) else { continue };
            let frame = self.core.answered.get(&wait.0).and_then(|q| q.iter().find(|(i, _)| *i == wait.1));
            if let Some((_, frame)) = frame
                && let Some(out) = self.outs.get(&pending.conn)
            {
                let _ = out.try_send(super::Out::Text(frame.clone()));
            }
        }
    }

    /// A forwarded request not answered within [`FORWARD_CHECK`]: the store is read (applied
    /// there and not heard?) and the lease asked for (its holder dead?); then it is forwarded
    /// once more (to whoever holds the lease now: the message, or its answer, may have been
    /// lost), and applied here when this instance now holds the lease or the second wait
    /// passed too — once: a retry's client id is looked up first, and should the holder keep
    /// it meanwhile, the conflict reads the table again and finds it answered.
    pub(super) async fn check_forwarded(&mut self) -> Result<(), String> {
        let now = Instant::now();
        if !self.forwarded.values().any(|p| p.since + FORWARD_CHECK <= now) {
            return Ok(());
        }
        self.catch_up().await?;
        self.renew_lease().await?;
        let overdue: Vec<(String, String)> = self
            .forwarded
            .iter()
            .filter(|(_, p)| p.since + FORWARD_CHECK <= now)
            .map(|(k, _)| k.clone())
            .collect();
        for wait in overdue {
            let Some(mut pending) = self.forwarded.remove(&wait) else { continue };
            match elsewhere(&self.follow).map(str::to_owned) {
                Some(to) if pending.tries == 0 => {
                    let bus = Bus::Request {
                        table: self.id.0,
                        from: self.hub.fanout.holder.clone(),
                        conn: pending.conn,
                        who: wait.0.clone(),
                        message: pending.message.clone(),
                    };
                    if self.hub.fanout.tell(&to, &bus).is_ok() {
                        pending.since = now;
                        pending.tries += 1;
                        self.forwarded.insert(wait, pending);
                        continue;
                    }
                    self.apply_here(pending, now).await?;
                }
                _ => self.apply_here(pending, now).await?,
            }
        }
        Ok(())
    }

    /// A request this instance forwarded in vain, applied here after all.
    async fn apply_here(&mut self, pending: super::Pending, now: Instant) -> Result<(), String> {
        tracing::debug!("{}: a request forwarded to {} went unanswered: applied here", self.id, pending.to);
        self.local = true;
        let result = self.request(pending.conn, pending.message, now).await;
        self.local = false;
        result
    }

    /// When the next forwarded request is due a check.
    pub(super) fn forwarded_check_at(&self) -> Option<Instant> {
        self.forwarded.values().map(|p| p.since + FORWARD_CHECK).min()
    }

    /// Gives the lease up as the actor leaves memory: handed over when deadlines remain.
    pub(super) async fn release_lease(&mut self) {
        let Some(follow) = self.follow.as_mut() else { return };
        if follow.held_until.take().is_none() {
            return;
        }
        let hand_over = !self.core.deadlines.is_empty() && !self.core.finished;
        if let Err(e) = self.hub.store.release(self.id, &self.hub.fanout.holder, hand_over).await {
            tracing::warn!("{}: the lease could not be given up (it expires): {e}", self.id);
        }
    }

    /// Applies what another instance committed, when the head says there is some: from the
    /// entries the notices carried when they are all there (and nothing but entries was
    /// written), else read from the store.
    async fn catch_up_if_behind(&mut self) -> Result<(), String> {
        let journal = self.core.journal;
        let Some(follow) = self.follow.as_mut() else { return Ok(()) };
        let head = *follow.head.borrow_and_update();
        let behind =
            head.len > journal || head.access != follow.seen.access || head.missed != follow.seen.missed;
        let only_entries = head.access == follow.seen.access && head.missed == follow.seen.missed;
        follow.seen = head;
        let carried: Option<Vec<String>> = {
            let mut carried = follow.carried.lock().unwrap_or_else(|p| p.into_inner());
            // What this actor applied already (its own entries among them) is dropped.
            *carried = carried.split_off(&journal);
            let all =
                only_entries && head.len > journal && (journal..head.len).all(|n| carried.contains_key(&n));
            all.then(|| (journal..head.len).filter_map(|n| carried.remove(&n)).collect())
        };
        match carried {
            // The table's end came with its last entries: nothing else to read.
            Some(entries) => self.apply_entries(&entries, head.finished),
            None if behind => self.catch_up().await,
            None => Ok(()),
        }
    }

    /// Reads the entries this actor lacks, and the access rows, and applies them as a load
    /// does; then tells its connections.
    pub(super) async fn catch_up(&mut self) -> Result<(), String> {
        let stored = self
            .hub
            .store
            .load_since(self.id, self.core.journal)
            .await
            .map_err(|e| format!("catching up with the store: {e}"))?;
        let mut rows = Vec::with_capacity(stored.table.access.len());
        for row in &stored.table.access {
            let controller = match who_of(&row.who) {
                Some(Who::Seat { .. }) => serde_json::from_str(&row.controller)
                    .map_err(|e| format!("the controller of {}: {e}", row.who))?,
                _ => Controller::Person,
            };
            rows.push((row.who.clone(), Row { hash: row.token_hash.clone(), controller }));
        }
        self.take_rows(rows);
        self.apply_entries(&stored.journal, stored.finished)
    }

    /// Applies `entries` (the journal's next ones) as a load does ([`Core::apply_entries`]);
    /// then answers the forwarded requests among them.
    ///
    /// [`Core::apply_entries`]: super::core::Core::apply_entries
    fn apply_entries(&mut self, entries: &[String], finished: bool) -> Result<(), String> {
        let applied = self.core.apply_entries(entries, finished);
        self.flush();
        applied?;
        self.settle_forwarded();
        Ok(())
    }

    /// Takes the access rows as stored ([`Core::take_rows`]).
    ///
    /// [`Core::take_rows`]: super::core::Core::take_rows
    fn take_rows(&mut self, rows: Vec<(String, Row)>) {
        self.core.take_rows(rows);
        self.flush();
    }

    /// After a [`PersistError::Conflict`]: the table as the store has it (this actor's game
    /// had the refused request applied already), then its connections told what they lack.
    pub(super) async fn reload(&mut self) -> Result<(), String> {
        let fresh = super::load(&self.hub, self.id)
            .await
            .map_err(|r| format!("reloading after a conflict: {}", r.message))?;
        self.core.tick(Instant::now());
        self.core.reload_from(fresh);
        self.flush();
        self.settle_forwarded();
        Ok(())
    }
}

/// Whether a commit's error is another instance having kept the entry's number first.
pub(super) fn is_conflict(e: &PersistError) -> bool {
    matches!(e, PersistError::Conflict { .. })
}

/// The instance's fan-out task on a shared store: passes on every notice heard, and looks for
/// orphaned tables to load, until the server shuts down.
pub(crate) async fn run<S: TableStore>(
    hub: Arc<Hub<S>>,
    mut heard: broadcast::Receiver<Heard>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut look = tokio::time::interval(hub.fanout.period());
    look.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let queues = hub.fanout.queues.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let Some((told, asks)) = queues {
        tokio::spawn(send_told(Arc::clone(&hub), told));
        tokio::spawn(take_leases(Arc::clone(&hub), asks));
    }
    loop {
        tokio::select! {
            notice = heard.recv() => match notice {
                Ok(Heard::Told(payload)) => told(&hub, &payload),
                Ok(notice) => hub.fanout.heard(notice),
                Err(broadcast::error::RecvError::Lagged(_)) => hub.fanout.heard(Heard::Missed),
                Err(broadcast::error::RecvError::Closed) => {
                    // The store's listener ended: listen again (anything in between missed).
                    match hub.store.listen_as(&hub.fanout.holder).await {
                        Ok(Some(again)) => {
                            heard = again;
                            hub.fanout.heard(Heard::Missed);
                        }
                        Ok(None) => return,
                        Err(e) => {
                            tracing::warn!("listening to the store again: {e}");
                            tokio::time::sleep(hub.fanout.period()).await;
                        }
                    }
                }
            },
            _ = look.tick() => match hub.store.orphans(ORPHANS_PER_LOOK).await {
                Ok(orphans) => {
                    for id in orphans {
                        // Loaded (if not in memory already), its actor tries to take the lease.
                        hub.table(id.0);
                    }
                }
                Err(e) => tracing::warn!("looking for tables whose lease expired: {e}"),
            },
            changed = shutdown.changed() => {
                if changed.is_err() || *shutdown.borrow() {
                    return;
                }
            }
        }
    }
}

/// Passes a message from another instance to the table it concerns: a forwarded request to
/// its actor (loaded if need be), an answer to the actor that forwarded it (if it is still
/// in memory: else its connection is gone).
fn told<S: TableStore>(hub: &Arc<Hub<S>>, payload: &str) {
    let bus: Bus = match serde_json::from_str(payload) {
        Ok(bus) => bus,
        Err(e) => {
            tracing::warn!("a message from another instance that is none: {e}");
            return;
        }
    };
    let hub = Arc::clone(hub);
    tokio::spawn(async move {
        match bus {
            Bus::Request { table, from, conn, who, message } => {
                let forwarded = ToTable::Forwarded { from, conn, who, message: Box::new(message) };
                if let Err(r) = hub.send(table, forwarded).await {
                    tracing::warn!("table {table}: a forwarded request was not taken: {}", r.message);
                }
            }
            Bus::Answer { table, conn, who, id, frame } => {
                let answered = super::Answered { conn, who, id, frame };
                hub.send_if_loaded(table, ToTable::Answered(Box::new(answered))).await;
            }
            // The sender hears its own message too: nothing to take over there.
            Bus::Opened { table, who, from } if from != hub.fanout.holder => {
                hub.send_if_loaded(table, ToTable::TakenOver { who }).await;
            }
            Bus::Opened { .. } => {}
        }
    });
}

/// The task that sends the instance's messages to other instances: whatever is queued, up to
/// [`TOLD_PER_STATEMENT`], in one statement. A message that cannot be sent is lost, as one to
/// a dead instance: the forwarding actor looks again after [`FORWARD_CHECK`].
async fn send_told<S: TableStore>(hub: Arc<Hub<S>>, mut queue: mpsc::UnboundedReceiver<(String, String)>) {
    let mut batch = Vec::with_capacity(TOLD_PER_STATEMENT);
    while queue.recv_many(&mut batch, TOLD_PER_STATEMENT).await > 0 {
        if let Err(e) = hub.store.tell(std::mem::take(&mut batch)).await {
            tracing::warn!("messages to other instances were lost: {e}");
        }
    }
}

/// The task that takes and renews the instance's leases: whatever actors asked for, up to
/// [`LEASES_PER_STATEMENT`], in one statement, each actor told who holds its table's lease.
async fn take_leases<S: TableStore>(hub: Arc<Hub<S>>, mut queue: mpsc::UnboundedReceiver<LeaseAsk>) {
    let mut batch = Vec::with_capacity(LEASES_PER_STATEMENT);
    while queue.recv_many(&mut batch, LEASES_PER_STATEMENT).await > 0 {
        let tables: Vec<TableId> = batch.iter().map(|(t, _)| *t).collect();
        let seconds = hub.fanout.lease_seconds;
        match hub.store.leases(tables, &hub.fanout.holder, seconds).await {
            Ok(held) => {
                let held: HashMap<TableId, String> = held.into_iter().collect();
                for (table, reply) in batch.drain(..) {
                    let answer = held.get(&table).cloned().ok_or_else(|| format!("{table} has no lease"));
                    let _ = reply.send(answer);
                }
            }
            Err(e) => {
                let e = e.to_string();
                for (_, reply) in batch.drain(..) {
                    let _ = reply.send(Err(e.clone()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A notice that carries a finished table's last entries leaves its actor all it needs:
    /// the entries, the new length and the end — no read of the store. One with access rows
    /// does not (they are read).
    #[test]
    fn a_notice_of_a_tables_end_with_its_entries_needs_no_read() {
        let fanout = Fanout::new(true, 10, "a".into());
        let (table, other) = (TableId(1), TableId(2));
        let mut follow = fanout.follow(table, 0).expect("a shared store follows");
        let mut follow_other = fanout.follow(other, 0).expect("a shared store follows");
        let entries = vec!["{\"e\":3}".to_owned(), "{\"e\":4}".to_owned()];
        fanout.heard(Heard::Appended {
            table,
            len: 5,
            access: false,
            finished: true,
            entries: entries.clone(),
        });
        fanout.heard(Heard::Appended {
            table: other,
            len: 1,
            access: true,
            finished: false,
            entries: vec!["{}".into()],
        });
        assert!(follow.head.has_changed().unwrap());
        let head = *follow.head.borrow_and_update();
        assert_eq!(head, Head { len: 5, access: 0, missed: 0, finished: true });
        let carried = follow.carried.lock().unwrap().clone();
        assert_eq!(carried, BTreeMap::from([(3, entries[0].clone()), (4, entries[1].clone())]));
        // Access rows changed: the actor reads the store (its `access` count moved).
        let head = *follow_other.head.borrow_and_update();
        assert_eq!(head, Head { len: 1, access: 1, missed: 0, finished: false });
    }
}
