//! What the two group-commit writers ([`crate::SqliteTables`], [`crate::PgTables`]) share:
//! their counters, the in-flight gauge and the thread each runs on.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::PersistError;

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
