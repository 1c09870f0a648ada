//! `relayfloor`: the relay floor (see `facedown_bench::relay` and docs/performance.md, "The
//! relay floor"). Starts the relay as a process of its own on 127.0.0.1 (this binary, asked
//! to), plays N tables against it as fast as it answers, stops it, and prints the figures.

use std::ffi::OsString;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use facedown_bench::relay::{self, RelayOptions, UPDATE_BYTES};
use facedown_bench::serve::{ServerProcess, open_files_for, raise_open_files};
use facedown_bench::{print_report, runtime};

/// The load generator's allocator (see main.rs).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Plays N tables of two seats against a WebSocket relay that keeps no game: the floor under
/// `facedown serve`'s figures on this machine (loopback only; stops by itself).
#[derive(Parser)]
#[command(name = "relayfloor", version, about)]
struct Args {
    /// Tables played at once (two connected seats each).
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..=5000))]
    tables: u32,
    /// The longest the load phase runs, in seconds.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=600))]
    seconds: u64,
    /// The load phase stops once this many reveals were timed.
    #[arg(long, default_value_t = 20_000_000)]
    max_reveals: u64,
    /// Each reveal takes two steps, as a sealed one does (commitments, then reveals).
    #[arg(long)]
    sealed: bool,
    /// The size of the relay's update frames, in bytes.
    #[arg(long, default_value_t = UPDATE_BYTES, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(64..=60_000))]
    update_bytes: usize,
    /// The relay keeps each request durably before answering it: one journal entry through the
    /// server's SQLite table store (group commit, `synchronous = FULL`) in a temporary file.
    #[arg(long)]
    durable: bool,
    /// Prints the figures as one JSON object.
    #[arg(long)]
    json: bool,
    /// Where the relay child keeps its store with --durable.
    #[arg(long, hide = true)]
    relay_db: Option<std::path::PathBuf>,
    /// Runs the relay itself (what this binary starts as its child), for at most this many
    /// seconds: prints its address as a JSON start line and serves on 127.0.0.1.
    #[arg(long, hide = true, value_parser = clap::value_parser!(u64).range(1..=3600))]
    serve_relay_for: Option<u64>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match args.serve_relay_for {
        Some(seconds) => serve(&args, seconds),
        None => run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("relayfloor: {e}");
            ExitCode::FAILURE
        }
    }
}

fn serve(args: &Args, seconds: u64) -> Result<(), Box<dyn std::error::Error>> {
    raise_open_files()?;
    runtime()?.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let store = match &args.relay_db {
            Some(path) => Some(store::SqliteTables::open(path).await?),
            None => None,
        };
        println!("{}", serde_json::json!({ "addr": listener.local_addr()?.to_string() }));
        let (stop_tx, stop) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(seconds)).await;
            let _ = stop_tx.send(true);
        });
        relay::serve(listener, args.update_bytes, store.clone(), stop).await;
        if let Some(store) = store {
            store.close().await;
        }
        Ok(())
    })
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    open_files_for(args.tables)?;
    let dir = tempfile::tempdir()?;
    let stall = Duration::from_secs(30);
    let lifetime = args.seconds + 2 * stall.as_secs() + 30;
    let mut child_args: Vec<OsString> = vec![
        "--serve-relay-for".into(),
        lifetime.to_string().into(),
        "--update-bytes".into(),
        args.update_bytes.to_string().into(),
    ];
    if args.durable {
        child_args.extend(["--relay-db".into(), dir.path().join("relay.db").into_os_string()]);
    }
    let relay =
        ServerProcess::spawn(&std::env::current_exe()?, &child_args, dir.path(), Duration::from_secs(30))?;
    let opts = RelayOptions {
        tables: args.tables as usize,
        seconds: Duration::from_secs(args.seconds),
        max_reveals: args.max_reveals,
        sealed: args.sealed,
        stall,
    };
    let runtime = runtime()?;
    let report = runtime.block_on(relay::run(relay.addr, &opts, Some(relay.pid())));
    runtime.shutdown_timeout(Duration::from_secs(5));
    relay.stop(Duration::from_secs(5));
    print_report(&report?, args.json)?;
    Ok(())
}
