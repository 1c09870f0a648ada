//! The load generator for `facedown serve` (issue 15's benchmark): N Iron Triangle tables of
//! two person seats each, every seat a WebSocket connection playing uniformly random legal
//! choices as fast as the server answers, and what it costs: the latency of each reveal from
//! the last commit to both seats having it, reveals and commands per second, and the server
//! process's CPU and memory (idle and under load). Loopback only; bounded in count and time.
//!
//! The phases: create the tables and connect every seat; measure the server's memory with
//! every table idle but connected; then play until `seconds` have passed or `max_reveals`
//! reveals were timed, and stop. A game that ends is replaced by a new table.

pub mod api;
pub mod play;
pub mod procstat;
pub mod relay;
pub mod serve;
pub mod wire;

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use server::protocol::{ErrorCode, SeatMode, SetupSource, TableOptions, link, parse_link};
use thiserror::Error;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use crate::api::Api;
use crate::play::{Counters, Pace, RevealClock, Seat, SeatEnd};

/// Why the load generator stopped short.
#[derive(Debug, Error)]
pub enum LoadError {
    /// Reading a process's usage under `/proc`.
    #[error("reading {path}: {reason}")]
    Proc {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// The server's start line is not the JSON `facedown serve --json` prints.
    #[error("the server's start line {line:?} is not its JSON with an `addr`: {reason}")]
    StartLine {
        /// The line.
        line: String,
        /// Why.
        reason: String,
    },
    /// Starting the server process.
    #[error("starting the server {bin:?}: {reason}")]
    Spawn {
        /// The binary.
        bin: std::path::PathBuf,
        /// Why.
        reason: String,
    },
    /// Raising the limit of open files.
    #[error("raising RLIMIT_NOFILE: {0}")]
    Limit(String),
    /// An HTTP request to the API.
    #[error("{url}: {reason}")]
    Http {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// A WebSocket connection.
    #[error("WebSocket: {0}")]
    Ws(String),
    /// A frame from the server is not the protocol's.
    #[error("the server sent a frame the protocol does not have ({reason}): {frame}")]
    Frame {
        /// What is wrong with it.
        reason: String,
        /// Its beginning.
        frame: String,
    },
    /// The server refused a request the load generator cannot go on from.
    #[error("the server refused ({code:?}): {message}")]
    Refused {
        /// The kind of refusal.
        code: ErrorCode,
        /// The server's message.
        message: String,
    },
    /// Nothing came within the time allowed.
    #[error("no {what} within {timeout:?}")]
    Stalled {
        /// What was awaited.
        what: &'static str,
        /// How long.
        timeout: Duration,
    },
    /// The server closed the connection (another device, a revoked link, a shutdown).
    #[error("the server closed a seat's connection")]
    Closed,
    /// The latency histogram.
    #[error("histogram: {0}")]
    Histogram(String),
    /// The table is not what the load generator plays.
    #[error("{0}")]
    Setup(String),
    /// A task of the load generator failed.
    #[error("a task failed: {0}")]
    Task(String),
}

/// What to run.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// How many tables.
    pub tables: usize,
    /// The longest the load phase runs.
    pub seconds: Duration,
    /// How long the tables play before the load phase and its counts start: the first moves
    /// of every table at once, in step, are left out of the figures.
    pub warmup: Duration,
    /// The load phase stops once this many reveals were timed.
    pub max_reveals: u64,
    /// Tables created and seats connected at once in the connect phase.
    pub connect_concurrency: usize,
    /// The longest the connect phase may take.
    pub connect_timeout: Duration,
    /// How long the tables stay idle before their memory is measured.
    pub settle: Duration,
    /// The longest a seat waits for any message before its table counts as failed.
    pub stall: Duration,
    /// The seed of the seats' random choices.
    pub seed: u64,
    /// Whether every seat plays sealed (`options.modes`): each face-down choice a `seal`, then
    /// a `reveal` once the round is bound.
    pub sealed: bool,
    /// The tables' `opening_round` option (docs/fairness.md §7.2): none for the server's
    /// default (an opening round at a table with a sealed seat whose rules may draw before a
    /// reveal: never an Iron Triangle table's).
    pub opening_round: Option<bool>,
    /// How the seats of a table are spread over several instances.
    pub spread: Spread,
    /// An open loop: the mean think time of a table before each of its face-down choices
    /// ([`Pace`]), instead of playing as fast as the server answers (none). Latency is then
    /// measured from each choice's scheduled time.
    pub think: Option<Duration>,
    /// Loopback addresses the seats connect from, in turn: 127.0.0.1 to 127.0.0.N (1: every
    /// seat from the system's choice of address), so that a server's per-address caps bind
    /// as they would for N hosts.
    pub client_addresses: u8,
}

impl Default for LoadOptions {
    /// A short closed loop: 4 tables, 10 s, 1,000 reveals.
    fn default() -> LoadOptions {
        LoadOptions {
            tables: 4,
            seconds: Duration::from_secs(10),
            warmup: Duration::ZERO,
            max_reveals: 1000,
            connect_concurrency: 4,
            connect_timeout: Duration::from_secs(30),
            settle: Duration::ZERO,
            stall: Duration::from_secs(10),
            seed: 1,
            sealed: false,
            opening_round: None,
            spread: Spread::Seats,
            think: None,
            client_addresses: 1,
        }
    }
}

/// The loopback address seat `seat` of table slot `index` connects from, of `n` (none with
/// one: the system chooses).
pub fn client_address(index: usize, seat: usize, n: u8) -> Option<std::net::IpAddr> {
    (n > 1).then(|| {
        let k = ((2 * index + seat) % usize::from(n)) as u8;
        std::net::IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 1 + k))
    })
}

/// How the seats of a table are spread over the instances, when there are several.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Spread {
    /// Seat `i` of table `t` connects to instance `t + i` (in turn): with two instances every
    /// table has a seat on each, so every request of one seat is forwarded to the instance
    /// that applies the table, and every update reaches the other seat through PostgreSQL's
    /// LISTEN/NOTIFY. The most work two instances can be given for one table.
    #[default]
    Seats,
    /// Both seats of table `t` connect to instance `t` (in turn), the one it was created on:
    /// the tables are shared out, as a proxy that sends each table's links to one instance
    /// would share them, and the instances meet only in the database.
    Tables,
}

impl Spread {
    /// The instance (of `n`) seat `seat` of table slot `index` connects to.
    pub fn instance(self, index: usize, seat: usize, n: usize) -> usize {
        match self {
            Spread::Seats => (index + seat) % n.max(1),
            Spread::Tables => index % n.max(1),
        }
    }
}

/// The server under load: one instance, or several on one shared database.
#[derive(Debug, Clone)]
pub struct Target {
    /// Each instance's base URL, `http://host:port`. Tables are created on the instances in
    /// turn, and the seats of table `t` connect to them in turn from instance `t` on — with two
    /// instances, every table has a seat on each, so every update reaches one of its seats
    /// through the other instance (PostgreSQL's LISTEN/NOTIFY).
    pub base_urls: Vec<String>,
    /// The instances' processes, when they are processes of their own: their CPU and memory
    /// are then measured, summed over them.
    pub pids: Vec<u32>,
}

impl Target {
    /// One instance at `base_url`, its process `pid` if it is one of its own.
    pub fn one(base_url: String, pid: Option<u32>) -> Target {
        Target { base_urls: vec![base_url], pids: pid.into_iter().collect() }
    }
}

/// Reveal latencies, in milliseconds.
#[derive(Debug, Clone, Serialize)]
pub struct Latency {
    /// How many reveals were timed.
    pub count: u64,
    /// The median.
    pub p50: f64,
    /// The 90th percentile.
    pub p90: f64,
    /// The 99th percentile.
    pub p99: f64,
    /// The largest.
    pub max: f64,
    /// The mean.
    pub mean: f64,
}

/// The load's tokio runtime: two worker threads, as the server's.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()
}

/// Prints a run's figures: one JSON object with `json`, readable text otherwise.
pub fn print_report<T: Serialize + std::fmt::Display>(
    report: &T,
    json: bool,
) -> Result<(), serde_json::Error> {
    if json {
        println!("{}", serde_json::to_string(report)?);
    } else {
        print!("{report}");
    }
    Ok(())
}

impl std::fmt::Display for Latency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            self.p50, self.p90, self.p99, self.max
        )
    }
}

/// The tables whose play failed: how many, and the first few errors.
#[derive(Debug, Default)]
pub struct Failures {
    /// Tables whose play failed.
    pub tables: u64,
    /// The first five errors.
    pub first: Vec<String>,
}

impl Failures {
    /// Notes how one table's task ended: nothing if it played to its end.
    pub fn note(&mut self, result: Result<Result<(), LoadError>, tokio::task::JoinError>) {
        let error = match result {
            Ok(Ok(())) => return,
            Ok(Err(e)) => e.to_string(),
            Err(e) => e.to_string(),
        };
        self.tables += 1;
        if self.first.len() < 5 {
            self.first.push(error);
        }
    }
}

impl Latency {
    /// The figures of a histogram of microseconds.
    pub fn of(h: &hdrhistogram::Histogram<u64>) -> Latency {
        let ms = |q: f64| h.value_at_quantile(q) as f64 / 1000.0;
        Latency {
            count: h.len(),
            p50: ms(0.5),
            p90: ms(0.9),
            p99: ms(0.99),
            max: h.max() as f64 / 1000.0,
            mean: h.mean() / 1000.0,
        }
    }
}

/// What the server process cost.
#[derive(Debug, Clone, Serialize)]
pub struct ServerCost {
    /// CPU seconds (user + system) during the load phase.
    pub cpu_seconds: f64,
    /// Cores busy on average during the load phase.
    pub cpu_cores: f64,
    /// CPU microseconds per reveal, everything included (the tables opened to replace the
    /// games that ended too).
    pub cpu_us_per_reveal: f64,
    /// CPU microseconds per reveal without the tables opened during the load phase, each
    /// counted at [`ServerCost::cpu_us_per_table_opened`]: the cost of a reveal itself.
    pub cpu_us_per_reveal_without_openings: f64,
    /// Reveals per table opened during the load phase (none if no game ended).
    pub reveals_per_opening: Option<f64>,
    /// CPU microseconds per table opened in the connect phase (created over HTTP, both seats
    /// connected and welcomed): the cost of each game that ends and is replaced.
    pub cpu_us_per_table_opened: f64,
    /// Resident memory before any table, KiB.
    pub rss_kib_before: u64,
    /// Resident memory with every table idle and its seats connected, KiB.
    pub rss_kib_idle: u64,
    /// Resident memory at the end of the load phase, KiB.
    pub rss_kib_end: u64,
    /// (idle − before) / tables, KiB.
    pub kib_per_idle_table: f64,
}

/// The figures of one run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Tables played at once.
    pub tables: usize,
    /// Seconds the connect phase took (tables created, seats welcomed).
    pub connect_seconds: f64,
    /// Seconds the tables played before the load phase, not counted.
    pub warmup_seconds: f64,
    /// Seconds the load phase ran.
    pub seconds: f64,
    /// Reveals both seats received.
    pub reveals: u64,
    /// Requests acknowledged: commands, and with sealed seats their seals and reveals.
    pub commands: u64,
    /// Requests the server refused (stale prompts, rate limits).
    pub refused: u64,
    /// Games that ended (each replaced by a new table).
    pub games: u64,
    /// Reveals per second.
    pub reveals_per_second: f64,
    /// Acknowledged requests per second.
    pub commands_per_second: f64,
    /// Reveal latency from the last commit (in an open loop: its scheduled time) to both seats
    /// having the reveal.
    pub latency_ms: Latency,
    /// An open loop's mean think time per face-down choice, in milliseconds (none: a closed
    /// loop, as fast as the server answers).
    pub think_ms: Option<f64>,
    /// Loopback addresses the seats connected from.
    pub client_addresses: u8,
    /// Whether the seats played sealed.
    pub sealed: bool,
    /// How many server instances served the tables.
    pub instances: usize,
    /// How the seats of a table were spread over them.
    pub spread: Spread,
    /// The server processes' cost (summed over the instances), when they are processes of
    /// their own.
    pub server: Option<ServerCost>,
    /// The load generator's own CPU seconds during the load phase.
    pub loadgen_cpu_seconds: Option<f64>,
    /// The load generator's own CPU microseconds per table opened in the connect phase.
    pub loadgen_cpu_us_per_table_opened: Option<f64>,
    /// The server's own mean time from a journal entry handed to its store to the entry's
    /// durable commit, during the load phase (from its `/metrics`), in milliseconds.
    pub server_commit_ms: Option<f64>,
    /// The server's commits (each a table's journal entries made durable together) per reveal
    /// during the load phase (from its `/metrics`): requests kept together share one.
    pub server_commits_per_reveal: Option<f64>,
    /// Tables whose play failed (a connection error, a stall).
    pub failed_tables: u64,
    /// The first few failures.
    pub failures: Vec<String>,
}

/// Everything the tables' tasks share.
struct Shared {
    /// One client per instance, in the order of [`Target::base_urls`].
    apis: Vec<Api>,
    base_urls: Vec<String>,
    counters: Arc<Counters>,
    stop: watch::Receiver<bool>,
    opts: LoadOptions,
    /// The tables' options: every seat sealed, or none.
    options: TableOptions,
}

const SYSTEM: &str = "iron-triangle";
const EXAMPLE: &str = "duel";

/// The options of the tables played: with `sealed`, every seat of the example plays sealed
/// (its seat names read from the example, as the server opens it); `opening_round` as given.
pub fn table_options(sealed: bool, opening_round: Option<bool>) -> Result<TableOptions, LoadError> {
    let mut options = TableOptions { opening_round, ..TableOptions::default() };
    if sealed {
        let (_, game) = server::systems::read_and_open(SYSTEM, &SetupSource::Example(EXAMPLE.to_owned()))
            .map_err(|e| LoadError::Setup(format!("the {SYSTEM} example {EXAMPLE:?}: {e}")))?;
        for (_, seat) in game.seats().iter() {
            options.modes.insert(seat.name.clone(), SeatMode::Sealed);
        }
    }
    Ok(options)
}

/// Creates table slot `index`'s next duel on instance `index` (of the instances, in turn) and
/// connects its two seats as [`LoadOptions::spread`] says.
async fn open_table(shared: &Shared, index: usize) -> Result<[Seat; 2], LoadError> {
    let n = shared.apis.len().max(1);
    let api = shared.apis[index % n].clone();
    let options = shared.options.clone();
    let created = tokio::task::spawn_blocking(move || api.create_table(SYSTEM, EXAMPLE, options))
        .await
        .map_err(|e| LoadError::Task(e.to_string()))??;
    let links: Vec<String> = created
        .seats
        .values()
        .enumerate()
        .map(|(i, l)| {
            let (_, table, token) =
                parse_link(l).ok_or_else(|| LoadError::Setup(format!("not a facedown link: {l}")))?;
            Ok(link(&shared.base_urls[shared.opts.spread.instance(index, i, n)], &table, &token))
        })
        .collect::<Result<_, LoadError>>()?;
    let [a, b] = &links[..] else {
        return Err(LoadError::Setup(format!(
            "the {SYSTEM} example {EXAMPLE:?} has {} seats; the load generator plays two",
            links.len()
        )));
    };
    let (timeout, sealed) = (shared.opts.stall, shared.opts.sealed);
    let from = |seat| client_address(index, seat, shared.opts.client_addresses);
    let (a, b) = tokio::try_join!(
        Seat::join_from(a, 0, sealed, timeout, from(0)),
        Seat::join_from(b, 1, sealed, timeout, from(1))
    )?;
    Ok([a, b])
}

fn seat_rng(seed: u64, table: usize, round: u64, seat: usize) -> table::TableRng {
    let n = ((table as u64) << 32) ^ (round << 1) ^ seat as u64;
    table::seeded_rng(seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// The most games one table slot plays in a run (a bound; the time cap comes first).
const MAX_GAMES: u64 = 1_000_000;

/// Plays one table until stopped, replacing its game with a new table whenever one ends.
async fn drive(shared: Arc<Shared>, index: usize, mut seats: [Seat; 2]) -> Result<(), LoadError> {
    // An open loop's schedule for this table slot, over all its games.
    let pace = shared.opts.think.map(|mean| {
        let rng = seat_rng(shared.opts.seed, index, u64::MAX >> 1, 2);
        Arc::new(Mutex::new(Pace::new(mean, rng, Instant::now())))
    });
    for round in 0..MAX_GAMES {
        if let Some(pace) = &pace {
            pace.lock().map_err(|e| LoadError::Task(e.to_string()))?.new_game();
        }
        let clock = Arc::new(Mutex::new(RevealClock::default()));
        let [a, b] = seats;
        let play = |seat: Seat| {
            let (clock, counters, stop) = (clock.clone(), shared.counters.clone(), shared.stop.clone());
            let rng = seat_rng(shared.opts.seed, index, round, seat.index);
            let (stall, pace) = (shared.opts.stall, pace.clone());
            tokio::spawn(async move { seat.play(&clock, &counters, rng, stop, stall, pace.as_deref()).await })
        };
        let (ha, hb) = (play(a), play(b));
        let (ra, rb) = tokio::join!(ha, hb);
        let ea = ra.map_err(|e| LoadError::Task(e.to_string()))??;
        let eb = rb.map_err(|e| LoadError::Task(e.to_string()))??;
        if ea != SeatEnd::Over || eb != SeatEnd::Over || *shared.stop.borrow() {
            return Ok(());
        }
        seats = open_table(&shared, index).await?;
    }
    Ok(())
}

/// Each instance's metrics, if it answers.
async fn scrape(apis: &[Api]) -> Vec<Option<String>> {
    let mut texts = Vec::with_capacity(apis.len());
    for api in apis {
        let api = api.clone();
        texts.push(tokio::task::spawn_blocking(move || api.metrics().ok()).await.ok().flatten());
    }
    texts
}

/// The instances' usage, summed; none when they are not processes of their own.
fn usage(pids: &[u32]) -> Result<Option<procstat::Usage>, LoadError> {
    let mut sum: Option<procstat::Usage> = None;
    for &pid in pids {
        let u = procstat::usage(pid)?;
        let total = sum.get_or_insert(procstat::Usage { cpu_seconds: 0.0, rss_kib: 0 });
        total.cpu_seconds += u.cpu_seconds;
        total.rss_kib += u.rss_kib;
    }
    Ok(sum)
}

/// The sum and count of the instances' `facedown_commit_latency_seconds`, if all answered.
fn commit_latency(texts: &[Option<String>]) -> Option<(f64, f64)> {
    texts.iter().try_fold((0.0, 0.0), |(s, n), text| {
        let text = text.as_deref()?;
        Some((
            s + api::metric(text, "facedown_commit_latency_seconds_sum")?,
            n + api::metric(text, "facedown_commit_latency_seconds_count")?,
        ))
    })
}

/// Runs the load against `target` on the current tokio runtime, in its three phases, and
/// reports what it measured.
pub async fn run_load(opts: &LoadOptions, target: &Target) -> Result<Report, LoadError> {
    if target.base_urls.is_empty() {
        return Err(LoadError::Setup("no server instance to load".into()));
    }
    let options = table_options(opts.sealed, opts.opening_round)?;
    let pids = &target.pids[..];
    let before = usage(pids)?;
    let own_before = procstat::own_usage().ok();
    let (stop_tx, stop) = watch::channel(false);
    let shared = Arc::new(Shared {
        apis: target.base_urls.iter().map(|url| Api::new(url, opts.stall)).collect(),
        base_urls: target.base_urls.clone(),
        counters: Arc::new(Counters::new()?),
        stop,
        opts: opts.clone(),
        options,
    });

    // Connect: every table created and both its seats welcomed.
    let connect_start = Instant::now();
    let permits = Arc::new(Semaphore::new(opts.connect_concurrency.max(1)));
    let mut opening = JoinSet::new();
    for index in 0..opts.tables {
        let (shared, permits) = (shared.clone(), permits.clone());
        opening.spawn(async move {
            let _permit = permits.acquire_owned().await.map_err(|e| LoadError::Task(e.to_string()))?;
            Ok::<_, LoadError>((index, open_table(&shared, index).await?))
        });
    }
    let mut opened = Vec::with_capacity(opts.tables);
    let connecting = async {
        while let Some(result) = opening.join_next().await {
            opened.push(result.map_err(|e| LoadError::Task(e.to_string()))??);
        }
        Ok::<_, LoadError>(())
    };
    tokio::time::timeout(opts.connect_timeout, connecting).await.map_err(|_| LoadError::Stalled {
        what: "end of the connect phase",
        timeout: opts.connect_timeout,
    })??;
    let connect_seconds = connect_start.elapsed().as_secs_f64();
    let connected = usage(pids)?;
    let own_connected = procstat::own_usage().ok();
    let per_table = |a: procstat::Usage, b: procstat::Usage| {
        (b.cpu_seconds - a.cpu_seconds) * 1e6 / opts.tables.max(1) as f64
    };

    // Idle: every table in memory, its seats connected, nothing in flight.
    tokio::time::sleep(opts.settle).await;
    let idle = usage(pids)?;

    // Warm-up (played, not counted), then the load.
    let counters = &shared.counters;
    let mut failed = Failures::default();
    let mut note = |result| failed.note(result);
    let mut driving = JoinSet::new();
    if !opts.warmup.is_zero() {
        counters.measuring.store(false, Ordering::Relaxed);
        for (index, seats) in opened.drain(..) {
            driving.spawn(drive(shared.clone(), index, seats));
        }
        let warm = tokio::time::Instant::now() + opts.warmup;
        while tokio::time::Instant::now() < warm && !driving.is_empty() {
            tokio::select! {
                Some(result) = driving.join_next() => note(result),
                _ = tokio::time::sleep_until(warm) => {}
            }
        }
    }
    let metrics_start = scrape(&shared.apis).await;
    let own_start = procstat::own_usage().ok();
    let start_usage = usage(pids)?;
    let start = Instant::now();
    let deadline = tokio::time::Instant::now() + opts.seconds;
    counters.measuring.store(true, Ordering::Relaxed);
    for (index, seats) in opened {
        driving.spawn(drive(shared.clone(), index, seats));
    }
    while tokio::time::Instant::now() < deadline
        && counters.reveals.load(Ordering::Relaxed) < opts.max_reveals
        && !driving.is_empty()
    {
        let tick = (tokio::time::Instant::now() + Duration::from_millis(20)).min(deadline);
        tokio::select! {
            Some(result) = driving.join_next() => note(result),
            _ = tokio::time::sleep_until(tick) => {}
        }
    }
    let _ = stop_tx.send(true);
    let (reveals, commands, latency) = counters.stop()?;
    let seconds = start.elapsed().as_secs_f64();
    let end_usage = usage(pids)?;
    let own_end = procstat::own_usage().ok();
    let metrics_end = scrape(&shared.apis).await;

    // Wind down: every seat sees the stop at its next message or at once.
    let winding = async {
        while let Some(result) = driving.join_next().await {
            note(result);
        }
    };
    if tokio::time::timeout(opts.stall, winding).await.is_err() {
        driving.abort_all();
    }

    let server = match (before, connected, idle, start_usage, end_usage) {
        (Some(before), Some(connected), Some(idle), Some(start), Some(end)) => {
            let cpu = end.cpu_seconds - start.cpu_seconds;
            let opened = per_table(before, connected);
            let games = counters.games.load(Ordering::Relaxed);
            let per_reveal = |cpu: f64| if reveals > 0 { cpu * 1e6 / reveals as f64 } else { 0.0 };
            Some(ServerCost {
                cpu_seconds: cpu,
                cpu_cores: cpu / seconds.max(1e-9),
                cpu_us_per_reveal: per_reveal(cpu),
                cpu_us_per_reveal_without_openings: per_reveal((cpu - games as f64 * opened / 1e6).max(0.0)),
                reveals_per_opening: (games > 0).then(|| reveals as f64 / games as f64),
                cpu_us_per_table_opened: opened,
                rss_kib_before: before.rss_kib,
                rss_kib_idle: idle.rss_kib,
                rss_kib_end: end.rss_kib,
                kib_per_idle_table: (idle.rss_kib as f64 - before.rss_kib as f64) / opts.tables.max(1) as f64,
            })
        }
        _ => None,
    };
    let server_commit_ms = match (commit_latency(&metrics_start), commit_latency(&metrics_end)) {
        (Some((s0, n0)), Some((s1, n1))) if n1 > n0 => Some((s1 - s0) * 1000.0 / (n1 - n0)),
        _ => None,
    };
    let server_commits_per_reveal = match (commit_latency(&metrics_start), commit_latency(&metrics_end)) {
        (Some((_, n0)), Some((_, n1))) if reveals > 0 => Some((n1 - n0) / reveals as f64),
        _ => None,
    };
    Ok(Report {
        server_commit_ms,
        server_commits_per_reveal,
        tables: opts.tables,
        connect_seconds,
        warmup_seconds: opts.warmup.as_secs_f64(),
        seconds,
        reveals,
        commands,
        refused: counters.refused.load(Ordering::Relaxed),
        games: counters.games.load(Ordering::Relaxed),
        reveals_per_second: reveals as f64 / seconds.max(1e-9),
        commands_per_second: commands as f64 / seconds.max(1e-9),
        latency_ms: latency,
        think_ms: opts.think.map(|t| t.as_secs_f64() * 1000.0),
        client_addresses: opts.client_addresses.max(1),
        sealed: opts.sealed,
        instances: target.base_urls.len(),
        spread: opts.spread,
        server,
        loadgen_cpu_seconds: own_start.zip(own_end).map(|(a, b)| b.cpu_seconds - a.cpu_seconds),
        loadgen_cpu_us_per_table_opened: own_before.zip(own_connected).map(|(a, b)| per_table(a, b)),
        failed_tables: failed.tables,
        failures: failed.first,
    })
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = if self.sealed { "sealed" } else { "plain" };
        writeln!(
            f,
            "tables            {} {mode}, {} instance(s){} (connected in {:.1} s)",
            self.tables,
            self.instances,
            match (self.instances, self.spread) {
                (1, _) => "",
                (_, Spread::Seats) => ", a seat of each table on each",
                (_, Spread::Tables) => ", each table on one",
            },
            self.connect_seconds
        )?;
        let warm = if self.warmup_seconds > 0.0 {
            format!(" (after a warm-up of {:.1} s, not counted)", self.warmup_seconds)
        } else {
            String::new()
        };
        writeln!(f, "load phase        {:.1} s{warm}, {} games ended", self.seconds, self.games)?;
        match self.think_ms {
            Some(ms) => writeln!(
                f,
                "loop              open: a think time of {:.1} s on average before each face-down choice; seats from {} address(es)",
                ms / 1000.0,
                self.client_addresses
            )?,
            None => writeln!(
                f,
                "loop              closed: every seat answers at once; seats from {} address(es)",
                self.client_addresses
            )?,
        }
        writeln!(f, "reveals           {} ({:.0}/s)", self.reveals, self.reveals_per_second)?;
        writeln!(
            f,
            "commands          {} ({:.0}/s), {} refused",
            self.commands, self.commands_per_second, self.refused
        )?;
        writeln!(f, "reveal latency    {}", self.latency_ms)?;
        if let Some(s) = &self.server {
            writeln!(
                f,
                "server CPU        {:.2} s ({:.2} cores), {:.1} µs per reveal",
                s.cpu_seconds, s.cpu_cores, s.cpu_us_per_reveal
            )?;
            writeln!(
                f,
                "server CPU/reveal {:.1} µs without the tables opened ({} reveals per table opened)",
                s.cpu_us_per_reveal_without_openings,
                s.reveals_per_opening.map_or("no".to_owned(), |n| format!("{n:.1}"))
            )?;
            writeln!(f, "server CPU/table  {:.0} µs per table opened", s.cpu_us_per_table_opened)?;
            writeln!(
                f,
                "server RSS        {} KiB before, {} KiB idle ({:.1} KiB per idle table), {} KiB at the end",
                s.rss_kib_before, s.rss_kib_idle, s.kib_per_idle_table, s.rss_kib_end
            )?;
        }
        if let Some(cpu) = self.loadgen_cpu_seconds {
            writeln!(f, "loadgen CPU       {cpu:.2} s")?;
        }
        if let Some(cpu) = self.loadgen_cpu_us_per_table_opened {
            writeln!(f, "loadgen CPU/table {cpu:.0} µs per table opened")?;
        }
        if let Some(ms) = self.server_commit_ms {
            let per_reveal =
                self.server_commits_per_reveal.map(|n| format!(", {n:.2} per reveal")).unwrap_or_default();
            writeln!(f, "server commits    {ms:.2} ms on average{per_reveal} (its /metrics)")?;
        }
        if self.failed_tables > 0 {
            writeln!(f, "failed tables     {}", self.failed_tables)?;
            for failure in &self.failures {
                writeln!(f, "  {failure}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Spread, client_address};

    #[test]
    fn seats_come_from_loopback_addresses_in_turn() {
        assert_eq!(client_address(0, 0, 1), None);
        let from = |index, seat| client_address(index, seat, 3).unwrap().to_string();
        assert_eq!(
            [from(0, 0), from(0, 1), from(1, 0), from(1, 1)],
            ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.1"]
        );
    }

    #[test]
    fn seats_spread_puts_a_seat_of_every_table_on_each_instance_and_tables_spread_keeps_a_table_on_one() {
        // Table slots 0 and 1 on two instances.
        let seats: Vec<[usize; 2]> =
            (0..2).map(|t| [0, 1].map(|s| Spread::Seats.instance(t, s, 2))).collect();
        assert_eq!(seats, vec![[0, 1], [1, 0]]);
        let tables: Vec<[usize; 2]> =
            (0..2).map(|t| [0, 1].map(|s| Spread::Tables.instance(t, s, 2))).collect();
        assert_eq!(tables, vec![[0, 0], [1, 1]]);
        // One instance: everything on it.
        assert_eq!([Spread::Seats.instance(5, 1, 1), Spread::Tables.instance(5, 1, 1)], [0, 0]);
    }
}
