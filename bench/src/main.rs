//! `loadgen`: the load generator for `facedown serve` (see the crate's documentation and
//! docs/performance.md, "Server"). Starts the server as a process of its own on 127.0.0.1
//! with a temporary database, loads it, stops it, and prints the figures.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use facedown_bench::serve::{ServerProcess, open_files_for};
use facedown_bench::{LoadOptions, Spread, Target, print_report, run_load, runtime};
use store::is_postgres_url;

/// The same allocator as the server's: the load generator shares the machine with it, and
/// glibc's malloc and free were a sixth of its CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Loads a `facedown serve` with N Iron Triangle duels played at random as fast as it answers
/// (loopback only; stops by itself after --seconds or --max-reveals).
#[derive(Parser)]
#[command(name = "loadgen", version, about)]
struct Args {
    /// The `facedown` binary to start the server from.
    #[arg(long, default_value = "target/release/facedown")]
    server_bin: PathBuf,
    /// Tables played at once (two connected seats each).
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..=12_000))]
    tables: u32,
    /// The longest the load phase runs, in seconds.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=600))]
    seconds: u64,
    /// Seconds the tables play before the load phase, not counted: every table starts in
    /// step, and the first moves of all of them at once are left out of the figures.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=600))]
    warmup_seconds: u64,
    /// The load phase stops once this many reveals were timed.
    #[arg(long, default_value_t = 2_000_000)]
    max_reveals: u64,
    /// Tables created and seats connected at once while connecting.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=1024))]
    connect_concurrency: u32,
    /// Milliseconds the tables stay idle before the server's memory is measured.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(0..=60_000))]
    settle_ms: u64,
    /// The seed of the seats' random choices.
    #[arg(long, default_value_t = 15)]
    seed: u64,
    /// The server's database: a PostgreSQL URL (`postgres://…`, whose tables are kept after
    /// the run: give each run a database of its own) instead of a temporary SQLite file.
    #[arg(long)]
    db: Option<String>,
    /// Server instances started on the one database (2 needs a PostgreSQL --db): each table is
    /// created on one in turn and its two seats connect one to each, so that every update
    /// reaches a seat through the other instance.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=2))]
    instances: u32,
    /// With several instances, how each table's seats are spread over them: `seats` (a seat
    /// of every table on each instance) or `tables` (both seats of a table on the instance it
    /// was created on, the tables shared out in turn).
    #[arg(long, value_enum, default_value_t = Spread::Seats)]
    spread: Spread,
    /// Every seat plays sealed: each face-down choice a commitment (`seal`), revealed once the
    /// round is bound.
    #[arg(long)]
    sealed: bool,
    /// The tables open with an opening round (docs/fairness.md §7.2) although their rules draw
    /// nothing before a reveal (the server's default leaves it out of an Iron Triangle table):
    /// to compare with rounds measured before that default.
    #[arg(long, conflicts_with = "no_opening_round")]
    opening_round: bool,
    /// The tables open without an opening round, whatever the server's default (with Iron
    /// Triangle's duels, the default already).
    #[arg(long)]
    no_opening_round: bool,
    /// An open loop, at a human pace: each table thinks this many milliseconds on average
    /// (exponentially distributed, one draw per choice) before each of its face-down choices,
    /// and latency counts from the scheduled time. 0: a closed loop, every seat answering at
    /// once.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=600_000))]
    think_ms: u64,
    /// The seats connect from 127.0.0.1 to 127.0.0.N in turn, so that the server's
    /// per-address caps bind as they would for N hosts (raise them with --server-arg).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=254))]
    client_addresses: u8,
    /// An argument passed on to `facedown serve` (repeat for several, e.g. limits).
    #[arg(long = "server-arg", allow_hyphen_values = true)]
    server_args: Vec<String>,
    /// Prints the figures as one JSON object.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("loadgen: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    open_files_for(args.tables)?;
    let dir = tempfile::tempdir()?;
    let db = match &args.db {
        Some(url) if is_postgres_url(url) => url.into(),
        Some(url) => return Err(format!("--db takes a PostgreSQL URL (postgres://…), not {url:?}").into()),
        None if args.instances > 1 => {
            return Err(
                "--instances 2 shares one database between the servers: give --db postgres://…".into()
            );
        }
        None => dir.path().join("facedown.sqlite").into_os_string(),
    };
    // One after the other: each applies any migration the database lacks at start.
    let mut servers = Vec::new();
    for i in 0..args.instances {
        let own = dir.path().join(format!("instance-{i}"));
        std::fs::create_dir(&own)?;
        servers.push(ServerProcess::start(
            &args.server_bin,
            &db,
            &own,
            &args.server_args,
            Duration::from_secs(60),
        )?);
    }
    let target = Target {
        base_urls: servers.iter().map(ServerProcess::base_url).collect(),
        pids: servers.iter().map(ServerProcess::pid).collect(),
    };
    let opts = LoadOptions {
        tables: args.tables as usize,
        seconds: Duration::from_secs(args.seconds),
        warmup: Duration::from_secs(args.warmup_seconds),
        max_reveals: args.max_reveals,
        connect_concurrency: args.connect_concurrency as usize,
        connect_timeout: Duration::from_secs(300),
        settle: Duration::from_millis(args.settle_ms),
        stall: Duration::from_secs(30),
        seed: args.seed,
        sealed: args.sealed,
        opening_round: if args.opening_round { Some(true) } else { args.no_opening_round.then_some(false) },
        spread: args.spread,
        think: (args.think_ms > 0).then(|| Duration::from_millis(args.think_ms)),
        client_addresses: args.client_addresses,
    };
    let runtime = runtime()?;
    let report = runtime.block_on(run_load(&opts, &target));
    runtime.shutdown_timeout(Duration::from_secs(5));
    for server in servers {
        server.stop(Duration::from_secs(10));
    }
    print_report(&report?, args.json)?;
    Ok(())
}
