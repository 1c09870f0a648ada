//! Several server instances on one shared store (issue 16, part 4): what one instance commits
//! reaches the connections of the others, and exactly one instance runs each table's bots and
//! decision timers.
//!
//! *Fan-out.* Every commit to a shared store (PostgreSQL) is told to every instance once it is
//! durable ([`Heard`], PostgreSQL's NOTIFY). This instance's [`Fanout`] passes each notice to
//! the actor of the table if it holds it in memory, through a [`watch`] channel per actor — a
//! notice never waits and is never dropped for a busy actor; several coalesce into one. The
//! actor reads the entries it lacks ([`TableStore::load_since`]), applies them as a load
//! does, and sends its own connections what changed. A notice that may have been lost
//! ([`Heard::Missed`]: the listener connected again, or fell behind) makes every actor check
//! the store. A commit refused because another instance kept that entry number first
//! ([`PersistError::Conflict`]) makes the actor read the table again before it tries once more
//! — the rules then accept the request on the new state or refuse it.
//!
//! *Leases.* A table's bots and timers run where its lease is held ([`TableStore::lease`]):
//! an actor that has deadlines to run, or holds the lease, takes or renews it every third of
//! the lease's time, and fires deadlines only while it holds it. An actor leaving memory gives
//! the lease up, handing it over at once when deadlines remain; a lease that is not renewed
//! (its holder died) expires, and every instance looks for such *orphans* as often as leases
//! are renewed and loads them, so that one of them takes the lease over.
//!
//! On a store that is not shared (SQLite) none of this runs: one instance holds every table.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use store::PersistError;
use store::tables::{Heard, TableId, TableStore};
use tokio::sync::{broadcast, watch};
use tokio::time::Instant;

use super::{Actor, Hub, Row, who_key, who_of};
use crate::journal::Op;
use crate::protocol::{Controller, ServerMessage, Who};

/// Orphaned tables loaded per look.
const ORPHANS_PER_LOOK: usize = 64;

/// What the instance has heard of one table since its actor started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Head {
    /// The longest journal heard of.
    len: u64,
    /// How many notices said more than the journal changed (access rows, the table's end).
    access: u64,
    /// How many times notices may have been lost.
    missed: u64,
}

/// The instance's side: its name as a lease holder, and the tables it follows.
pub(crate) struct Fanout {
    /// Whether the store is shared (else nothing here runs).
    shared: bool,
    /// This instance's name in the leases: random, made when it starts.
    pub(crate) holder: String,
    /// How long a lease lasts unless renewed.
    lease_seconds: u32,
    /// The actor of each table in memory: its generation and its head.
    heads: Mutex<HashMap<u64, (u64, watch::Sender<Head>)>>,
    /// How many times notices may have been lost, for actors that start later.
    missed: Mutex<u64>,
}

impl Fanout {
    /// The fan-out of an instance on a store that is `shared` or not.
    pub(crate) fn new(shared: bool, lease_seconds: u32) -> Fanout {
        Fanout {
            shared,
            holder: crate::auth::new_token(),
            lease_seconds: lease_seconds.max(1),
            heads: Mutex::new(HashMap::new()),
            missed: Mutex::new(0),
        }
    }

    /// How often leases are renewed and orphans looked for: a third of a lease.
    fn period(&self) -> Duration {
        Duration::from_millis(u64::from(self.lease_seconds) * 1000 / 3)
    }

    fn heads(&self) -> std::sync::MutexGuard<'_, HashMap<u64, (u64, watch::Sender<Head>)>> {
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
        self.heads().insert(id.0, (generation, tx));
        Some(Follow {
            head: rx,
            seen: head,
            held_until: None,
            renew_at: Instant::now(),
            asked: false,
            wanted: false,
        })
    }

    /// Stops following table `id`, if actor `generation` still follows it.
    pub(crate) fn unfollow(&self, id: TableId, generation: u64) {
        let mut heads = self.heads();
        if heads.get(&id.0).is_some_and(|(g, _)| *g == generation) {
            heads.remove(&id.0);
        }
    }

    /// Passes a notice on to the actor it concerns (or, [`Heard::Missed`], to all).
    fn heard(&self, heard: Heard) {
        match heard {
            Heard::Wrote { table, len, access } => {
                if let Some((_, tx)) = self.heads().get(&table.0) {
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
                for (_, tx) in self.heads().values() {
                    tx.send_modify(|head| head.missed += 1);
                }
            }
        }
    }
}

/// An actor's side on a shared store: what it has heard and its lease.
pub(crate) struct Follow {
    head: watch::Receiver<Head>,
    /// The head as the actor last caught up with it.
    seen: Head,
    /// Until when this instance holds the table's lease, by its own clock (a third of a lease
    /// before the database would let another take it).
    held_until: Option<Instant>,
    /// When to renew (or try to take) the lease next.
    renew_at: Instant,
    /// Whether the lease was asked for once: an actor that starts takes it if it is free
    /// (then no orphan is left behind by a table loaded with nothing to run).
    asked: bool,
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
            Wake::Lease => {
                self.renew_lease().await;
                Ok(())
            }
        }
    }

    /// Takes or renews the table's lease while there is something to run (bots, timers); gives
    /// it up when there is nothing (no lease kept for nothing). Once, when the actor starts
    /// with nothing to run, an expired lease is cleared (`clear_orphan`, one statement that
    /// writes nothing when there is none), so a table left behind by a dead holder is nobody's
    /// orphan any longer.
    pub(super) async fn renew_lease(&mut self) {
        let hub = Arc::clone(&self.hub);
        let wanted = !self.deadlines.is_empty() && !self.finished;
        let Some(follow) = self.follow.as_mut() else { return };
        let now = Instant::now();
        follow.renew_at = now + hub.fanout.period();
        let first = !follow.asked;
        follow.asked = true;
        if !wanted && first && follow.held_until.is_none() {
            // Nothing to run: an expired lease (an orphan's) is cleared, without taking it.
            if let Err(e) = hub.store.clear_orphan(self.id).await {
                tracing::warn!("{}: an expired lease could not be cleared: {e}", self.id);
            }
            return;
        }
        if !wanted && !first {
            if follow.held_until.take().is_some()
                && let Err(e) = hub.store.release(self.id, &hub.fanout.holder, false).await
            {
                tracing::warn!("{}: the lease could not be given up (it expires): {e}", self.id);
            }
            return;
        }
        let seconds = hub.fanout.lease_seconds;
        match hub.store.lease(self.id, &hub.fanout.holder, seconds).await {
            Ok(true) => {
                // Valid until two thirds of the lease from when it was asked for: renewed once
                // a third has gone by, given up a third before the database lets it go.
                let until = now + Duration::from_millis(u64::from(seconds) * 2000 / 3);
                if follow.held_until.is_none() && wanted {
                    tracing::info!("{}: this instance holds the table's lease", self.id);
                }
                follow.held_until = Some(until);
            }
            Ok(false) => follow.held_until = None,
            // It lapses by itself if no renewal succeeds.
            Err(e) => tracing::warn!("{}: the lease could not be renewed: {e}", self.id),
        }
    }

    /// Gives the lease up as the actor leaves memory: handed over when deadlines remain.
    pub(super) async fn release_lease(&mut self) {
        let Some(follow) = self.follow.as_mut() else { return };
        if follow.held_until.take().is_none() {
            return;
        }
        let hand_over = !self.deadlines.is_empty() && !self.finished;
        if let Err(e) = self.hub.store.release(self.id, &self.hub.fanout.holder, hand_over).await {
            tracing::warn!("{}: the lease could not be given up (it expires): {e}", self.id);
        }
    }

    /// Reads and applies what another instance committed, when the head says there is some.
    async fn catch_up_if_behind(&mut self) -> Result<(), String> {
        let Some(follow) = self.follow.as_mut() else { return Ok(()) };
        let head = *follow.head.borrow_and_update();
        let behind =
            head.len > self.journal || head.access != follow.seen.access || head.missed != follow.seen.missed;
        follow.seen = head;
        if behind { self.catch_up().await } else { Ok(()) }
    }

    /// Reads the entries this actor lacks, and the access rows, and applies them as a load
    /// does; then tells its connections.
    pub(super) async fn catch_up(&mut self) -> Result<(), String> {
        let stored = self
            .hub
            .store
            .load_since(self.id, self.journal)
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
        for entry in &stored.journal {
            let n = self.journal;
            let op: Op = serde_json::from_str(entry).map_err(|e| format!("journal entry {n}: {e}"))?;
            let fault = super::apply(&mut *self.game, &op).map_err(|e| format!("journal entry {n}: {e}"))?;
            self.journal += 1;
            if let Some((who, cid)) = super::asked(&op) {
                let answer = super::answer(cid.clone(), self.game.seq(), fault);
                super::remember(&mut self.answered, who, cid, &answer);
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
                // Not a decision: the timers stand.
                Op::Verifiable { .. } | Op::ClientSeed { .. } => continue,
            };
            self.reschedule(acted);
        }
        if stored.finished {
            self.finished = true;
        }
        self.broadcast();
        Ok(())
    }

    /// Takes the access rows as stored: a seat handed to a bot or back, a link reissued or
    /// revoked (its connections are told and closed) on another instance.
    fn take_rows(&mut self, rows: Vec<(String, Row)>) {
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
                if let Err(e) = self.game.set_bot(table::SeatId(seat), bot, super::bot_seed(self.id, seat)) {
                    tracing::error!("{}: {e}", self.id);
                }
                self.deadlines.remove(&seat);
            }
            if relinked {
                let key = who_key(who);
                let old: Vec<u64> =
                    self.conns.iter().filter(|(_, c)| c.key == key).map(|(i, _)| *i).collect();
                for i in old {
                    if let Some(c) = self.conns.remove(&i) {
                        let _ = c.out.try_send(super::Out::Text(super::text(&ServerMessage::Revoked {})));
                        let _ = c.out.try_send(super::Out::Close);
                    }
                }
            }
            self.access.insert(key, row);
        }
        if changed {
            self.send_seats();
            self.reschedule(None);
        }
    }

    /// After a [`PersistError::Conflict`]: the table as the store has it (this actor's game
    /// had the refused request applied already), then its connections told what they lack.
    pub(super) async fn reload(&mut self) -> Result<(), String> {
        let fresh = Actor::load(Arc::clone(&self.hub), self.id)
            .await
            .map_err(|r| format!("reloading after a conflict: {}", r.message))?;
        self.game = fresh.game;
        self.journal = fresh.journal;
        self.answered = fresh.answered;
        self.finished = fresh.finished;
        self.rules = fresh.rules;
        self.take_rows(fresh.access.into_iter().collect());
        self.reschedule(None);
        self.broadcast();
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
    loop {
        tokio::select! {
            notice = heard.recv() => match notice {
                Ok(notice) => hub.fanout.heard(notice),
                Err(broadcast::error::RecvError::Lagged(_)) => hub.fanout.heard(Heard::Missed),
                Err(broadcast::error::RecvError::Closed) => {
                    // The store's listener ended: listen again (anything in between missed).
                    match hub.store.listen().await {
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
