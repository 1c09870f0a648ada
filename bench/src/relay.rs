//! The relay floor: the load's traffic with no game behind it. A WebSocket relay that keeps no
//! game, parses no JSON, writes no disk and hashes nothing answers the same exchanges as
//! `facedown serve` does under the load generator — each request acknowledged, an update of
//! the size the server's are to the seat that asked first, and one to both seats once both
//! have asked — and a load plays N tables of two seats against it as fast as it answers.
//!
//! What it measures is the floor on this machine: what the kernel's loopback TCP, WebSocket
//! framing and two tokio runtimes cost for the traffic alone. A server of this protocol does at
//! least the relay's work for each reveal, so a target beneath the floor is out of reach of
//! any change to the game, its JSON, its storage or its hashing (docs/performance.md, "The
//! relay floor").
//!
//! With a store (`relayfloor --durable`), each request is first made durable as one journal
//! entry through the server's own SQLite table store ([`store::SqliteTables`]: its group-commit
//! writer, `synchronous = FULL`), and only then answered, as `facedown serve` answers only what
//! is on disk: the floor of a durable server of this protocol, the game, its JSON and its
//! hashing left out.
//!
//! The relay is the cheapest honest one: a task per connection and an outbox per connection
//! (a connection's writes are one after the other), the two seats of a table sharing a lock
//! instead of an actor, and every frame but the acknowledgement built once. The load is
//! cheaper than `loadgen`'s too: one task per table driving both its seats, and a table that
//! never ends (no table is created, nor a seat connected, during the load).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde::Serialize;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{WebSocketStream, accept_async_with_config, client_async_with_config};

use store::SqliteTables;
use store::tables::{NewTable, TableId, TableStore, Write};

use crate::{Failures, Latency, LoadError, procstat};

/// The size of an update frame by default, in bytes: the mean of `facedown serve`'s updates to
/// a seat of the Iron Triangle duel the load generator plays (3,201 bytes, measured).
pub const UPDATE_BYTES: usize = 3200;

/// The size of a request frame, in bytes (a command frame of the duel is 60–100 bytes).
pub const REQUEST_BYTES: usize = 96;

/// The most tables a relay keeps (the load generator's own bound).
pub const MAX_TABLES: u64 = 5000;

/// The largest frame either side accepts.
const MAX_FRAME: usize = 64 * 1024;

/// Frames queued for one connection before the relay drops it (a load that does not read).
const OUTBOX: usize = 64;

/// What a step does: the frames it sends, to which seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    /// The acknowledgement of a request.
    Ack,
    /// An update while the step waits for the other seat.
    Waiting,
    /// The update that ends the step (both seats have asked).
    Done,
}

/// A table at the relay: which seats have asked in the current step.
#[derive(Debug, Default)]
pub struct Step {
    asked: [bool; 2],
}

impl Step {
    /// Seat `seat` (0 or 1) asked: the frames that answer it, each with the seat it goes to.
    /// A seat asking twice in one step is answered as once (the load never does).
    pub fn ask(&mut self, seat: usize) -> Vec<(usize, Frame)> {
        let seat = seat.min(1);
        self.asked[seat] = true;
        if self.asked == [true, true] {
            self.asked = [false, false];
            vec![(seat, Frame::Ack), (0, Frame::Done), (1, Frame::Done)]
        } else {
            vec![(seat, Frame::Ack), (seat, Frame::Waiting)]
        }
    }
}

/// The frames the relay sends, built once.
struct Frames {
    waiting: Arc<str>,
    done: Arc<str>,
}

impl Frames {
    fn new(update_bytes: usize) -> Frames {
        let pad = |kind: &str| -> Arc<str> {
            let head = format!("{{\"type\":\"update\",\"step\":\"{kind}\",\"pad\":\"");
            let n = update_bytes.saturating_sub(head.len() + 2);
            format!("{head}{}\"}}", "x".repeat(n)).into()
        };
        Frames { waiting: pad("waiting"), done: pad("done") }
    }
}

type Outbox = mpsc::Sender<Arc<str>>;

#[derive(Default)]
struct RelayTable {
    step: Step,
    seats: [Option<Outbox>; 2],
    acks: u64,
}

type Tables = HashMap<u64, RelayTable>;

/// A connection takes `seat` of `table`: its outbox replaces any earlier connection's, and the
/// step starts afresh (a load that stopped mid-step leaves no half step behind).
fn take_seat(tables: &mut Tables, table: u64, seat: usize, out: Outbox) {
    let t = tables.entry(table).or_default();
    t.seats[seat] = Some(out);
    t.step = Step::default();
}

/// A connection ended: it gives up `seat` of `table` only if it still holds it, so a connection
/// that closes late cannot clear the seat of the one that took it since (a second load on the
/// same relay reuses the table numbers). The table goes once neither seat is held.
fn leave_seat(tables: &mut Tables, table: u64, seat: usize, out: &Outbox) {
    let Some(t) = tables.get_mut(&table) else { return };
    if t.seats[seat].as_ref().is_some_and(|held| held.same_channel(out)) {
        t.seats[seat] = None;
    }
    if t.seats.iter().all(Option::is_none) {
        tables.remove(&table);
    }
}

/// Serves the relay on `listener` until `stop` says so. Each connection first sends
/// `hello TABLE SEAT` (a table number below [`MAX_TABLES`], a seat 0 or 1); every text frame
/// after it is a request of that seat. With a `store`, each request is kept in it (one journal
/// entry, on a table of the store's own per connection) before it is answered.
pub async fn serve(
    listener: TcpListener,
    update_bytes: usize,
    store: Option<SqliteTables>,
    mut stop: watch::Receiver<bool>,
) {
    let frames = Arc::new(Frames::new(update_bytes));
    let tables: Arc<Mutex<Tables>> = Arc::default();
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((socket, _)) = accepted else { continue };
                let (frames, tables, store) = (frames.clone(), tables.clone(), store.clone());
                connections.spawn(async move {
                    let _ = relay_connection(socket, &frames, &tables, store.as_ref()).await;
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            _ = stop.changed() => break,
        }
    }
    connections.abort_all();
}

fn config() -> WebSocketConfig {
    // The load generator's read buffer (see wire.rs).
    WebSocketConfig::default()
        .read_buffer_size(4096)
        .max_message_size(Some(MAX_FRAME))
        .max_frame_size(Some(MAX_FRAME))
}

/// A connection's journal in the relay's store: its table, and the number of its next entry.
struct Journal<'a> {
    store: &'a SqliteTables,
    table: TableId,
    next: u64,
}

impl<'a> Journal<'a> {
    /// A table of the store's own for one connection.
    async fn open(store: &'a SqliteTables) -> Result<Journal<'a>, String> {
        let table = NewTable {
            ruleset: "relay".into(),
            ruleset_version: "1".into(),
            setup: "{}".into(),
            options: "{}".into(),
            access: Vec::new(),
        };
        let table = store.create_table(&table).await.map_err(|e| e.to_string())?;
        Ok(Journal { store, table, next: 0 })
    }

    /// Keeps `request` as the next entry: durable once it returns.
    async fn keep(&mut self, request: &str) -> Result<(), String> {
        let write = Write::Journal { table: self.table, n: self.next, entry: request.to_owned() };
        self.store.commit(vec![write]).await.map_err(|e| e.to_string())?;
        self.next += 1;
        Ok(())
    }
}

async fn relay_connection(
    socket: TcpStream,
    frames: &Frames,
    tables: &Mutex<Tables>,
    store: Option<&SqliteTables>,
) -> Result<(), String> {
    socket.set_nodelay(true).map_err(|e| e.to_string())?;
    let ws = accept_async_with_config(socket, Some(config())).await.map_err(|e| e.to_string())?;
    let (mut sink, mut stream) = ws.split();
    let hello = match stream.next().await {
        Some(Ok(Message::Text(t))) => t,
        _ => return Err("no hello".into()),
    };
    let (table, seat) = parse_hello(hello.as_str()).ok_or("not a hello")?;
    let mut journal = match store {
        Some(store) => Some(Journal::open(store).await?),
        None => None,
    };
    let (out, mut outbox) = mpsc::channel::<Arc<str>>(OUTBOX);
    take_seat(&mut *tables.lock().map_err(|e| e.to_string())?, table, seat, out.clone());
    loop {
        tokio::select! {
            frame = stream.next() => match frame {
                Some(Ok(Message::Text(request))) => {
                    if let Some(journal) = &mut journal {
                        journal.keep(request.as_str()).await?;
                    }
                    let mut tables = tables.lock().map_err(|e| e.to_string())?;
                    let t = tables.get_mut(&table).ok_or("the table is gone")?;
                    for (to, frame) in t.step.ask(seat) {
                        let text: Arc<str> = match frame {
                            Frame::Ack => {
                                t.acks += 1;
                                format!("{{\"type\":\"ack\",\"id\":\"{}\",\"seq\":{}}}", t.acks, t.acks).into()
                            }
                            Frame::Waiting => frames.waiting.clone(),
                            Frame::Done => frames.done.clone(),
                        };
                        if let Some(out) = &t.seats[to] {
                            // A full outbox is a load that stopped reading: its frames are dropped.
                            let _ = out.try_send(text);
                        }
                    }
                }
                Some(Ok(_)) => {}
                _ => break,
            },
            queued = outbox.recv() => {
                let Some(text) = queued else { break };
                // Everything queued goes out with one flush.
                sink.feed(Message::text(&*text)).await.map_err(|e| e.to_string())?;
                while let Ok(text) = outbox.try_recv() {
                    sink.feed(Message::text(&*text)).await.map_err(|e| e.to_string())?;
                }
                sink.flush().await.map_err(|e| e.to_string())?;
            }
        }
    }
    if let Ok(mut tables) = tables.lock() {
        leave_seat(&mut tables, table, seat, &out);
    }
    Ok(())
}

/// `hello TABLE SEAT`: the table (below [`MAX_TABLES`]) and the seat (0 or 1).
pub fn parse_hello(text: &str) -> Option<(u64, usize)> {
    let mut words = text.split(' ');
    let (hello, table, seat) = (words.next()?, words.next()?, words.next()?);
    let table: u64 = table.parse().ok()?;
    let seat: usize = seat.parse().ok()?;
    (hello == "hello" && words.next().is_none() && table < MAX_TABLES && seat < 2).then_some((table, seat))
}

/// What to run against a relay.
#[derive(Debug, Clone)]
pub struct RelayOptions {
    /// Tables played at once (at most [`MAX_TABLES`]).
    pub tables: usize,
    /// The longest the load phase runs.
    pub seconds: Duration,
    /// The load phase stops once this many reveals were timed.
    pub max_reveals: u64,
    /// Each reveal is two steps, as a sealed one is: every seat's commitment, then (once both
    /// have answered) every seat's reveal.
    pub sealed: bool,
    /// The longest a seat waits for a frame before its table counts as failed.
    pub stall: Duration,
}

/// The figures of a run against the relay.
#[derive(Debug, Clone, Serialize)]
pub struct RelayReport {
    /// Tables played at once.
    pub tables: usize,
    /// Whether each reveal took two steps (as sealed) or one (as plain).
    pub sealed: bool,
    /// Seconds the load phase ran.
    pub seconds: f64,
    /// Reveals both seats received.
    pub reveals: u64,
    /// Reveals per second.
    pub reveals_per_second: f64,
    /// Frames the load received per reveal.
    pub frames_per_reveal: f64,
    /// From the last request of a reveal's first step to both seats having the update that ends
    /// its last step.
    pub latency_ms: Latency,
    /// The relay process's CPU microseconds per reveal, when it is a process of its own.
    pub relay_cpu_us_per_reveal: Option<f64>,
    /// The load's own CPU microseconds per reveal.
    pub load_cpu_us_per_reveal: Option<f64>,
    /// Tables whose play failed (a connection error, a stall).
    pub failed_tables: u64,
    /// The first few failures.
    pub failures: Vec<String>,
}

impl std::fmt::Display for RelayReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode =
            if self.sealed { "two steps a reveal (as sealed)" } else { "one step a reveal (as plain)" };
        writeln!(f, "tables            {}, {mode}", self.tables)?;
        writeln!(f, "load phase        {:.1} s", self.seconds)?;
        writeln!(
            f,
            "reveals           {} ({:.0}/s), {:.1} frames received per reveal",
            self.reveals, self.reveals_per_second, self.frames_per_reveal
        )?;
        writeln!(f, "reveal latency    {}", self.latency_ms)?;
        if let Some(us) = self.relay_cpu_us_per_reveal {
            writeln!(f, "relay CPU         {us:.1} µs per reveal")?;
        }
        if let Some(us) = self.load_cpu_us_per_reveal {
            writeln!(f, "load CPU          {us:.1} µs per reveal")?;
        }
        if self.failed_tables > 0 {
            writeln!(f, "failed tables     {}: {}", self.failed_tables, self.failures.join("; "))?;
        }
        Ok(())
    }
}

type Ws = WebSocketStream<TcpStream>;

async fn connect(addr: SocketAddr, table: usize, seat: usize) -> Result<Ws, LoadError> {
    let socket = TcpStream::connect(addr).await.map_err(|e| LoadError::Ws(e.to_string()))?;
    socket.set_nodelay(true).map_err(|e| LoadError::Ws(e.to_string()))?;
    let (mut ws, _) = client_async_with_config(format!("ws://{addr}/"), socket, Some(config()))
        .await
        .map_err(|e| LoadError::Ws(e.to_string()))?;
    ws.send(Message::text(format!("hello {table} {seat}")))
        .await
        .map_err(|e| LoadError::Ws(e.to_string()))?;
    Ok(ws)
}

/// One step: both seats ask, then each reads until it has its acknowledgement and the update
/// that ends the step. Returns when the requests were sent and when the last update arrived,
/// and counts the frames received.
async fn step(
    seats: &mut [Ws; 2],
    request: &str,
    stall: Duration,
    frames: &AtomicU64,
) -> Result<(Instant, Instant), LoadError> {
    for ws in seats.iter_mut() {
        ws.send(Message::text(request)).await.map_err(|e| LoadError::Ws(e.to_string()))?;
    }
    let sent = Instant::now();
    let mut last = sent;
    for ws in seats.iter_mut() {
        let (mut acked, mut done) = (false, false);
        while !(acked && done) {
            let frame = tokio::time::timeout(stall, ws.next())
                .await
                .map_err(|_| LoadError::Stalled { what: "a frame from the relay", timeout: stall })?;
            let text = match frame {
                Some(Ok(Message::Text(t))) => t,
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(LoadError::Ws(e.to_string())),
                None => return Err(LoadError::Closed),
            };
            frames.fetch_add(1, Ordering::Relaxed);
            let text = text.as_str();
            if text.starts_with("{\"type\":\"ack\"") {
                acked = true;
            } else if text.starts_with("{\"type\":\"update\",\"step\":\"done\"") {
                done = true;
            } else if !text.starts_with("{\"type\":\"update\"") {
                return Err(LoadError::Frame {
                    reason: "not the relay's".into(),
                    frame: text.chars().take(80).collect(),
                });
            }
        }
        last = Instant::now();
    }
    Ok((sent, last))
}

/// Plays `opts.tables` tables against the relay at `addr` on the current tokio runtime: connect
/// every seat, then load until `opts.seconds` or `opts.max_reveals`. `relay_pid` is the relay's
/// process, when it is one of its own, for its CPU.
pub async fn run(
    addr: SocketAddr,
    opts: &RelayOptions,
    relay_pid: Option<u32>,
) -> Result<RelayReport, LoadError> {
    if opts.tables == 0 || opts.tables as u64 > MAX_TABLES {
        return Err(LoadError::Setup(format!(
            "the relay plays 1 to {MAX_TABLES} tables, not {}",
            opts.tables
        )));
    }
    let mut connecting = JoinSet::new();
    for table in 0..opts.tables {
        connecting.spawn(async move {
            let seats = [connect(addr, table, 0).await?, connect(addr, table, 1).await?];
            Ok::<_, LoadError>(seats)
        });
    }
    let mut tables = Vec::with_capacity(opts.tables);
    let connected = async {
        while let Some(result) = connecting.join_next().await {
            tables.push(result.map_err(|e| LoadError::Task(e.to_string()))??);
        }
        Ok::<_, LoadError>(())
    };
    tokio::time::timeout(opts.stall, connected)
        .await
        .map_err(|_| LoadError::Stalled { what: "end of the connect phase", timeout: opts.stall })??;
    // Every hello reaches the relay before any request: a hello and a request on two
    // connections are not ordered otherwise.
    tokio::time::sleep(Duration::from_millis(100)).await;

    let latency = Arc::new(Mutex::new(
        hdrhistogram::Histogram::<u64>::new_with_bounds(1, 600_000_000, 3)
            .map_err(|e| LoadError::Histogram(e.to_string()))?,
    ));
    let reveals = Arc::new(AtomicU64::new(0));
    let frames = Arc::new(AtomicU64::new(0));
    let (stop_tx, stop) = watch::channel(false);
    let relay_start = relay_pid.map(procstat::usage).transpose()?;
    let own_start = procstat::own_usage().ok();
    let start = Instant::now();
    let mut playing = JoinSet::new();
    let request: Arc<str> =
        format!("{{\"type\":\"command\",\"pad\":\"{}\"}}", "c".repeat(REQUEST_BYTES - 31)).into();
    for mut seats in tables {
        let (latency, reveals, frames, stop, request) =
            (latency.clone(), reveals.clone(), frames.clone(), stop.clone(), request.clone());
        let (steps, stall) = (if opts.sealed { 2 } else { 1 }, opts.stall);
        playing.spawn(async move {
            while !*stop.borrow() {
                let mut first_sent = None;
                let mut last = Instant::now();
                for _ in 0..steps {
                    let (sent, arrived) = step(&mut seats, &request, stall, &frames).await?;
                    first_sent.get_or_insert(sent);
                    last = arrived;
                }
                // A reveal that ends after the stop is not counted.
                if *stop.borrow() {
                    break;
                }
                let micros = first_sent.map_or(0, |s| last.saturating_duration_since(s).as_micros());
                let micros = u64::try_from(micros).unwrap_or(u64::MAX).clamp(1, 600_000_000);
                reveals.fetch_add(1, Ordering::Relaxed);
                if let Ok(mut h) = latency.lock() {
                    let _ = h.record(micros);
                }
            }
            Ok::<_, LoadError>(())
        });
    }
    let deadline = tokio::time::Instant::now() + opts.seconds;
    while tokio::time::Instant::now() < deadline && reveals.load(Ordering::Relaxed) < opts.max_reveals {
        tokio::time::sleep_until((tokio::time::Instant::now() + Duration::from_millis(20)).min(deadline))
            .await;
    }
    let _ = stop_tx.send(true);
    let seconds = start.elapsed().as_secs_f64();
    let relay_end = relay_pid.map(procstat::usage).transpose()?;
    let own_end = procstat::own_usage().ok();
    let mut failed = Failures::default();
    let winding = async {
        while let Some(result) = playing.join_next().await {
            failed.note(result);
        }
    };
    if tokio::time::timeout(opts.stall, winding).await.is_err() {
        playing.abort_all();
    }
    // Every reveal counted was timed: read once every table has stopped.
    let (n, received) = (reveals.load(Ordering::Relaxed), frames.load(Ordering::Relaxed));
    let per_reveal =
        |a: procstat::Usage, b: procstat::Usage| (b.cpu_seconds - a.cpu_seconds) * 1e6 / n.max(1) as f64;
    let latency = Latency::of(&*latency.lock().map_err(|e| LoadError::Task(e.to_string()))?);
    Ok(RelayReport {
        tables: opts.tables,
        sealed: opts.sealed,
        seconds,
        reveals: n,
        reveals_per_second: n as f64 / seconds.max(1e-9),
        frames_per_reveal: received as f64 / n.max(1) as f64,
        latency_ms: latency,
        relay_cpu_us_per_reveal: relay_start.zip(relay_end).map(|(a, b)| per_reveal(a, b)),
        load_cpu_us_per_reveal: own_start.zip(own_end).map(|(a, b)| per_reveal(a, b)),
        failed_tables: failed.tables,
        failures: failed.first,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_answers_the_first_seat_alone_and_both_once_both_asked() {
        let mut step = Step::default();
        assert_eq!(step.ask(1), vec![(1, Frame::Ack), (1, Frame::Waiting)]);
        assert_eq!(step.ask(0), vec![(0, Frame::Ack), (0, Frame::Done), (1, Frame::Done)]);
        // The next step starts afresh.
        assert_eq!(step.ask(0), vec![(0, Frame::Ack), (0, Frame::Waiting)]);
        assert_eq!(step.ask(0), vec![(0, Frame::Ack), (0, Frame::Waiting)], "asking twice is asking once");
        assert_eq!(step.ask(1), vec![(1, Frame::Ack), (0, Frame::Done), (1, Frame::Done)]);
    }

    #[test]
    fn a_connection_that_closes_late_leaves_the_seat_to_the_one_that_took_it_since() {
        let mut tables = Tables::new();
        let outbox = || mpsc::channel::<Arc<str>>(1).0;
        let (old, new) = ([outbox(), outbox()], [outbox(), outbox()]);
        take_seat(&mut tables, 0, 0, old[0].clone());
        take_seat(&mut tables, 0, 1, old[1].clone());
        tables.get_mut(&0).unwrap().step.ask(0);
        // A second load takes seat 0 before the first load's connections have closed.
        take_seat(&mut tables, 0, 0, new[0].clone());
        assert_eq!(tables[&0].step.asked, [false, false], "a hello starts the step afresh");
        leave_seat(&mut tables, 0, 0, &old[0]);
        leave_seat(&mut tables, 0, 1, &old[1]);
        let t = tables.get(&0).expect("the table stays while the new seat 0 holds it");
        assert!(t.seats[0].as_ref().is_some_and(|held| held.same_channel(&new[0])));
        assert!(t.seats[1].is_none());
        take_seat(&mut tables, 0, 1, new[1].clone());
        leave_seat(&mut tables, 0, 1, &new[1]);
        leave_seat(&mut tables, 0, 0, &new[0]);
        assert!(tables.is_empty(), "the table goes once neither seat is held");
    }

    #[test]
    fn an_update_frame_has_the_size_asked_for() {
        let frames = Frames::new(UPDATE_BYTES);
        assert_eq!(frames.waiting.len(), UPDATE_BYTES);
        assert_eq!(frames.done.len(), UPDATE_BYTES);
        assert!(frames.done.starts_with("{\"type\":\"update\",\"step\":\"done\""));
        assert!(serde_json::from_str::<serde_json::Value>(&frames.waiting).is_ok());
    }

    #[test]
    fn a_hello_names_a_table_and_a_seat_within_bounds() {
        assert_eq!(parse_hello("hello 12 1"), Some((12, 1)));
        assert_eq!(parse_hello("hello 12 2"), None);
        assert_eq!(parse_hello(&format!("hello {MAX_TABLES} 0")), None);
        assert_eq!(parse_hello("hello 1 0 x"), None);
        assert_eq!(parse_hello("hi 1 0"), None);
        assert_eq!(parse_hello("hello -1 0"), None);
    }
}
