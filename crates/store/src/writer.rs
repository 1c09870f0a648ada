//! What the two group-commit writers ([`crate::SqliteTables`], [`crate::PgTables`]) share:
//! the requests a store sends its writer and the [`Handle`] it sends them through, the
//! writer's loop that gathers them into groups and stops on request ([`run`]), the answers to
//! a committed group ([`answer`]), their counters, the in-flight gauge and the thread each
//! runs on. What differs — how a group is checked and written — is each backend's
//! [`GroupWriter`].

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::PersistError;
use crate::tables::{NewTable, TableId, Write};

/// The answer to one request of a writer.
pub(crate) type Reply<T> = oneshot::Sender<Result<T, PersistError>>;

/// A writer's counters.
#[derive(Default)]
pub(crate) struct Stats {
    /// Transactions committed (one sync each).
    pub(crate) syncs: AtomicU64,
    /// Requests acknowledged as durable.
    pub(crate) acknowledged: AtomicU64,
    /// Requests sent and not yet answered.
    pub(crate) in_flight: AtomicU64,
    /// Set by [`Handle::abort`]: a writer that writes a group without pausing (SQLite's,
    /// synchronous) is not cancelled as a task; it stops before its next group instead.
    pub(crate) aborted: AtomicBool,
}

impl Stats {
    /// Counts one committed transaction that kept `kept` requests — before any of them is
    /// answered, so whoever reads the counters after their answer sees their request counted.
    pub(crate) fn committed(&self, kept: u64) {
        self.syncs.fetch_add(1, Ordering::Relaxed);
        self.acknowledged.fetch_add(kept, Ordering::Relaxed);
    }
}

/// Counts a request in flight while it lives (also when its caller gives up waiting).
pub(crate) struct InFlight<'a>(&'a AtomicU64);

impl<'a> InFlight<'a> {
    /// Counts one more request until the guard is dropped.
    pub(crate) fn start(count: &'a AtomicU64) -> InFlight<'a> {
        count.fetch_add(1, Ordering::Relaxed);
        InFlight(count)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What a store sends its writer.
pub(crate) enum Request {
    /// A new table; answered with its number.
    Create { table: NewTable, reply: Reply<TableId> },
    /// Writes of [`crate::tables::TableStore::commit`].
    Commit { writes: Vec<Write>, reply: Reply<()> },
    /// Write what is queued, close, and say so.
    Stop { done: oneshot::Sender<()> },
}

/// A request of the group being written. `P` is what a backend's check of a commit leaves with
/// it until the group is answered (SQLite: each table's next journal number after it).
pub(crate) enum Work<P = ()> {
    /// A new table.
    Create { table: NewTable, reply: Reply<TableId> },
    /// A commit's writes.
    Commit { writes: Vec<Write>, reply: Reply<()>, plan: P },
}

impl<P> Work<P> {
    /// Answers the request with `e`.
    pub(crate) fn fail(self, e: PersistError) {
        // A caller that gave up waiting is no longer interested in the answer.
        match self {
            Work::Create { reply, .. } => drop(reply.send(Err(e))),
            Work::Commit { reply, .. } => drop(reply.send(Err(e))),
        }
    }

    /// The request's writes (none for a new table).
    pub(crate) fn writes(&self) -> &[Write] {
        match self {
            Work::Create { .. } => &[],
            Work::Commit { writes, .. } => writes,
        }
    }
}

/// What differs between the backends' writers: how a group is checked, written and answered,
/// and how the connection is closed.
pub(crate) trait GroupWriter: Send {
    /// What the check of a commit leaves with it (see [`Work`]).
    type Plan: Default + Send;

    /// Writes one group (in the order received; maybe empty) and answers every request of it.
    fn group(&mut self, group: Vec<Work<Self::Plan>>) -> impl Future<Output = ()> + Send;

    /// Closes the writer's connection.
    fn close(self) -> impl Future<Output = ()> + Send;

    /// Whether [`Handle::abort`] stopped it: a writer that writes a group without pausing
    /// cannot be cancelled as a task, so [`run`] asks before each group.
    fn aborted(&self) -> bool {
        false
    }
}

/// The writer's loop: takes everything queued (up to `max_group` requests) as one group until
/// every [`Handle`] is gone or a [`Request::Stop`] comes. Nothing queued after a stop is
/// written: it is answered [`PersistError::Closed`]; the group before it is written first.
pub(crate) async fn run<W: GroupWriter>(
    mut writer: W,
    mut requests: mpsc::Receiver<Request>,
    max_group: usize,
) {
    let mut batch = Vec::with_capacity(max_group);
    loop {
        batch.clear();
        if requests.recv_many(&mut batch, max_group).await == 0 {
            break; // every handle is gone
        }
        if writer.aborted() {
            // As a crash: nothing more is written, every request queued is lost.
            drop(batch);
            requests.close();
            while requests.try_recv().is_ok() {}
            return;
        }
        let mut stop = Vec::new();
        let mut group = Vec::with_capacity(batch.len());
        for request in batch.drain(..) {
            match request {
                Request::Stop { done } => stop.push(done),
                // Nothing after a stop is written.
                Request::Create { reply, .. } if !stop.is_empty() => {
                    drop(reply.send(Err(PersistError::Closed)))
                }
                Request::Commit { reply, .. } if !stop.is_empty() => {
                    drop(reply.send(Err(PersistError::Closed)))
                }
                Request::Create { table, reply } => group.push(Work::Create { table, reply }),
                Request::Commit { writes, reply } => {
                    group.push(Work::Commit { writes, reply, plan: W::Plan::default() })
                }
            }
        }
        writer.group(group).await;
        if !stop.is_empty() {
            requests.close();
            // Bounded: the queue is closed, so at most its capacity of requests remain.
            while let Ok(request) = requests.try_recv() {
                match request {
                    Request::Create { reply, .. } => drop(reply.send(Err(PersistError::Closed))),
                    Request::Commit { reply, .. } => drop(reply.send(Err(PersistError::Closed))),
                    Request::Stop { done } => stop.push(done),
                }
            }
            writer.close().await;
            for done in stop {
                let _ = done.send(());
            }
            return;
        }
    }
    writer.close().await;
}

/// A request of a committed group that was kept, as [`answer`] tells it before answering.
pub(crate) enum Kept<P> {
    /// A new table, by its number.
    Created(TableId),
    /// A commit, with its plan.
    Committed(P),
}

/// Answers a committed group: `Ok` to the requests kept (a new table with its number from
/// `created`, in order), their own error to the others. Before each answer goes out, `on_kept`
/// is told what was kept; and the counters count the group before any answer, so whoever reads
/// them after their answer sees their request counted (the writer runs on a thread of its own).
pub(crate) fn answer<P>(
    stats: &Stats,
    group: Vec<(Work<P>, Result<(), PersistError>)>,
    created: Vec<i64>,
    mut on_kept: impl FnMut(Kept<P>),
) {
    stats.committed(group.iter().filter(|(_, r)| r.is_ok()).count() as u64);
    let mut created = created.into_iter();
    for (work, result) in group {
        match (work, result) {
            (work, Err(e)) => work.fail(e),
            (Work::Create { reply, .. }, Ok(())) => {
                let id = created
                    .next()
                    .ok_or_else(|| {
                        PersistError::Corrupt("a new table's number went missing in the writer".into())
                    })
                    .and_then(|id| {
                        u64::try_from(id)
                            .map(TableId)
                            .map_err(|_| PersistError::Corrupt(format!("table number {id} is negative")))
                    });
                if let Ok(id) = id {
                    on_kept(Kept::Created(id));
                }
                let _ = reply.send(id);
            }
            (Work::Commit { reply, plan, .. }, Ok(())) => {
                on_kept(Kept::Committed(plan));
                let _ = reply.send(Ok(()));
            }
        }
    }
}

/// A table store's side of its writer: the queue to it, its task, its counters. Each store
/// keeps one, shared by its clones, and shows it with `writer()` (`store::WriterHandle`) (the counters for metrics and
/// benchmarks, `abort` for tests of a caller's recovery).
pub struct Handle {
    queue: mpsc::Sender<Request>,
    writer: JoinHandle<()>,
    stats: Arc<Stats>,
    /// Whether [`Handle::abort`] cancels the writer's task (a writer that awaits its
    /// database), or only tells it ([`GroupWriter::aborted`]).
    cancel: bool,
}

impl Handle {
    /// Starts a writer on a thread of its own named `name` (see [`spawn_on_own_thread`]) with a
    /// queue of `queue` requests: `writer` is given the queue's receiving end and the counters,
    /// and is expected to [`run`].
    pub(crate) fn start<F>(
        name: &str,
        queue: usize,
        cancel: bool,
        writer: impl FnOnce(mpsc::Receiver<Request>, Arc<Stats>) -> F,
    ) -> Result<Handle, PersistError>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let stats = Arc::new(Stats::default());
        let (sender, requests) = mpsc::channel(queue);
        let writer = spawn_on_own_thread(name, writer(requests, stats.clone()))?;
        Ok(Handle { queue: sender, writer, stats, cancel })
    }

    /// Sends the request `make` builds and waits for its answer, counted in flight meanwhile.
    pub(crate) async fn send<T>(&self, make: impl FnOnce(Reply<T>) -> Request) -> Result<T, PersistError> {
        let _counted = InFlight::start(&self.stats.in_flight);
        let (reply, answer) = oneshot::channel();
        self.queue.send(make(reply)).await.map_err(|_| PersistError::Closed)?;
        answer.await.map_err(|_| PersistError::WriterLost)?
    }

    /// Stops the writer once the requests already queued are written; later ones fail with
    /// [`PersistError::Closed`].
    pub(crate) async fn stop(&self) {
        let (done, stopped) = oneshot::channel();
        if self.queue.send(Request::Stop { done }).await.is_ok() {
            // An error here means the writer is gone already.
            let _ = stopped.await;
        }
    }

    /// Stops the writer at once, as a crash would: requests in flight fail with
    /// [`PersistError::WriterLost`] (a transaction not yet committed is rolled back by the
    /// database), later ones with [`PersistError::Closed`]. For tests of a caller's recovery.
    /// A group the writer is writing when this is called may still be written to its end (as
    /// a crash just after it would leave it); any request sent after this returns fails (the
    /// SQLite writer, which is not cancelled as a task, stops when it next takes requests).
    pub fn abort(&self) {
        self.stats.aborted.store(true, Ordering::SeqCst);
        if self.cancel {
            self.writer.abort();
        }
    }

    /// Transactions (each one sync) committed: with group commit, fewer than the requests
    /// acknowledged.
    pub fn syncs(&self) -> u64 {
        self.stats.syncs.load(Ordering::Relaxed)
    }

    /// Requests (new tables and commits) acknowledged as durable.
    pub fn acknowledged(&self) -> u64 {
        self.stats.acknowledged.load(Ordering::Relaxed)
    }

    /// Requests callers have sent and still wait for (queued, or in the group being
    /// written): a gauge for metrics.
    pub fn in_flight(&self) -> u64 {
        self.stats.in_flight.load(Ordering::Relaxed)
    }
}

/// Runs `writer` on a single-threaded runtime on a thread of its own, named `name`; the thread
/// ends when the writer does or is aborted through the returned handle.
///
/// On a server's shared runtime a writer's every round trip to its database would wait behind
/// thousands of connection tasks, and every acknowledgement with it (measured with SQLite:
/// groups of ~200 entries taking ~200 ms under load, with the disk and the CPUs mostly idle).
/// Whatever the writer connects to, it must connect from inside `writer`, on its own runtime.
pub(crate) fn spawn_on_own_thread(
    name: &str,
    writer: impl Future<Output = ()> + Send + 'static,
) -> Result<JoinHandle<()>, PersistError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| PersistError::Io(format!("cannot start the table store's writer: {e}")))?;
    let (finished, writer_gone) = oneshot::channel::<()>();
    let handle = runtime.spawn(async move {
        writer.await;
        drop(finished);
    });
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            // Ends when the writer does (or is aborted, which drops `finished`).
            runtime.block_on(async move {
                let _ = writer_gone.await;
            });
        })
        .map_err(|e| PersistError::Io(format!("cannot start the table store's writer: {e}")))?;
    Ok(handle)
}
