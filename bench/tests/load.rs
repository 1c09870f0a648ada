//! The load generator against real servers (in this process, on 127.0.0.1 port 0): short
//! loads, stopped by their reveal cap, time every reveal they count — plain seats on SQLite,
//! sealed seats on SQLite, and two instances sharing one PostgreSQL database.
//!
//! The PostgreSQL test needs `FACEDOWN_TEST_POSTGRES` (a base URL; `.ci/postgres.sh start`
//! starts a throwaway server). Without it the test prints that it skipped — except under CI
//! (`CI` set), where it fails.

use std::time::Duration;

use facedown_bench::{LoadOptions, Report, Spread, Target, run_load};
use rand::RngExt;
use sqlx::Connection;
use sqlx::postgres::PgConnection;

const POSTGRES_VAR: &str = "FACEDOWN_TEST_POSTGRES";

fn options(tables: usize, max_reveals: u64, sealed: bool) -> LoadOptions {
    LoadOptions { tables, seconds: Duration::from_secs(30), max_reveals, sealed, ..LoadOptions::default() }
}

fn config(db: std::path::PathBuf) -> server::Config {
    let mut config = server::Config::new(db);
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.limits.messages_per_second = 100_000;
    config.limits.burst = 100_000;
    // Every seat and every table comes from 127.0.0.1: the per-address limits must not bind.
    config.limits.max_connections_per_address = 100_000;
    config.limits.messages_per_second_per_address = 1_000_000;
    config.limits.burst_per_address = 1_000_000;
    config.limits.tables_per_minute_per_address = 1_000_000;
    config
}

/// What every run must show: no failed table, every counted reveal timed, and at least
/// `per_reveal` acknowledged requests per reveal — but for the acknowledgements still on
/// their way when the load stopped: a seat can see a reveal before the acknowledgement of the
/// request that made it (the update and the `ack` are two frames), so each seat of each table
/// may have one uncounted.
fn check(report: &Report, max_reveals: u64, per_reveal: u64) {
    assert_eq!(report.failed_tables, 0, "{:?}", report.failures);
    assert!(report.reveals >= max_reveals, "{report}");
    assert_eq!(report.latency_ms.count, report.reveals);
    let in_flight = 2 * report.tables as u64;
    assert!(report.commands + in_flight >= per_reveal * report.reveals, "{report}");
    assert!(report.latency_ms.p50 > 0.0 && report.latency_ms.p50 <= report.latency_ms.max);
    assert!(report.server.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_load_times_reveals_against_a_real_server() {
    let dir = tempfile::tempdir().unwrap();
    let running = server::start(config(dir.path().join("load.sqlite"))).await.unwrap();
    let target = Target::one(running.base_url.clone(), None);
    let report = run_load(&options(4, 300, false), &target).await.unwrap();
    running.shutdown().await.expect("a graceful shutdown");
    // Every reveal needs a face-down choice from each seat.
    check(&report, 300, 2);
    assert!(!report.sealed);
    assert_eq!(report.instances, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_loop_thinks_between_choices_and_seats_come_from_several_addresses() {
    let dir = tempfile::tempdir().unwrap();
    let running = server::start(config(dir.path().join("open.sqlite"))).await.unwrap();
    let target = Target::one(running.base_url.clone(), None);
    let opts =
        LoadOptions { think: Some(Duration::from_millis(100)), client_addresses: 3, ..options(4, 40, false) };
    let started = std::time::Instant::now();
    let report = run_load(&opts, &target).await.unwrap();
    let took = started.elapsed();
    running.shutdown().await.expect("a graceful shutdown");
    check(&report, 40, 2);
    assert_eq!((report.think_ms, report.client_addresses), (Some(100.0), 3));
    // 40 reveals over 4 tables, each after a think time of 100 ms on average: about ten
    // think times a table, so about a second (a closed loop plays them in a few dozen ms).
    assert!(took >= Duration::from_millis(500), "{took:?}: {report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warm_up_is_played_but_not_counted() {
    let dir = tempfile::tempdir().unwrap();
    let running = server::start(config(dir.path().join("warm.sqlite"))).await.unwrap();
    let target = Target::one(running.base_url.clone(), None);
    let opts = LoadOptions { warmup: Duration::from_millis(1500), ..options(4, 60, false) };
    let report = run_load(&opts, &target).await.unwrap();
    // The server's own count of reveals includes the warm-up's.
    let metrics = ureq::get(format!("{}/metrics", running.base_url))
        .call()
        .unwrap()
        .into_body()
        .read_to_string()
        .unwrap();
    running.shutdown().await.expect("a graceful shutdown");
    assert_eq!(report.failed_tables, 0, "{:?}", report.failures);
    assert!(report.reveals >= 60, "{report}");
    assert_eq!(report.latency_ms.count, report.reveals);
    // A reveal counted just after the warm-up may come of requests acknowledged within it:
    // one more uncounted per seat than at the end of [`check`].
    assert!(report.commands + 4 * report.tables as u64 >= 2 * report.reveals, "{report}");
    assert_eq!(report.warmup_seconds, 1.5);
    let served: f64 = metrics
        .lines()
        .find(|l| l.starts_with("facedown_reveals_total "))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .expect("the server counts reveals");
    assert!(
        served >= report.reveals as f64 + 20.0,
        "the warm-up's reveals were played ({served} in all) but not counted ({})",
        report.reveals
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sealed_seats_commit_then_reveal_every_face_down_choice() {
    let dir = tempfile::tempdir().unwrap();
    let running = server::start(config(dir.path().join("sealed.sqlite"))).await.unwrap();
    let target = Target::one(running.base_url.clone(), None);
    let report = run_load(&options(2, 20, true), &target).await.unwrap();
    // With an opening round asked for (an Iron Triangle table has none by default), the seats
    // take their part in it before play: `{}` sealed, then revealed.
    let opened =
        run_load(&LoadOptions { opening_round: Some(true), ..options(2, 20, true) }, &target).await.unwrap();
    running.shutdown().await.expect("a graceful shutdown");
    for report in [&report, &opened] {
        // Sealed, each seat's face-down choice is two requests: its `seal` and its `reveal` (a
        // table whose seats played plain would have about two requests per reveal, not four).
        check(report, 20, 4);
        assert!(report.sealed);
        assert_eq!(report.refused, 0, "{report}");
    }
}

/// A database of its own on the tests' PostgreSQL server: its URL and its name; none (printed)
/// when no server is named outside CI.
async fn database(test: &str) -> Option<(String, String, String)> {
    let Ok(base) = std::env::var(POSTGRES_VAR) else {
        if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
            panic!("{test}: {POSTGRES_VAR} is not set, and in CI the PostgreSQL tests never skip");
        }
        eprintln!("{test}: skipped, no PostgreSQL server ({POSTGRES_VAR} is not set; .ci/postgres.sh start)");
        return None;
    };
    let name = format!("facedown_bench_{:016x}", rand::rng().random::<u64>());
    let mut admin = PgConnection::connect(&base).await.expect("the tests' PostgreSQL server answers");
    sqlx::query(&format!("CREATE DATABASE {name}")).execute(&mut admin).await.unwrap();
    admin.close().await.unwrap();
    // The base URL with the database's name as its path.
    let plain = base.split(['?', '#']).next().unwrap_or(&base);
    let authority = plain.split_once("://").map_or(plain, |(_, rest)| rest);
    let url = match authority.split_once('/') {
        Some(_) => format!("{}/{name}", plain.rsplit_once('/').map_or(plain, |(b, _)| b)),
        None => format!("{}/{name}", plain.trim_end_matches('/')),
    };
    Some((base, url, name))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_on_postgres_play_tables_with_a_seat_on_each() {
    let Some((base, url, name)) = database("two_instances_on_postgres_play_tables_with_a_seat_on_each").await
    else {
        return;
    };
    let a = server::start(config(url.clone().into())).await.unwrap();
    let b = server::start(config(url.into())).await.unwrap();
    let target = Target { base_urls: vec![a.base_url.clone(), b.base_url.clone()], pids: vec![] };
    // Two table slots: tables are created on both instances, each with a seat on each, so
    // each instance finishes tables the other created (its count of open tables once wrapped
    // below zero there, and it refused every new table as `full`).
    let report = run_load(&options(2, 20, false), &target).await;
    // Then each table on one instance: both instances create and play tables of their own.
    let shared_out =
        run_load(&LoadOptions { spread: Spread::Tables, ..options(2, 20, false) }, &target).await;
    a.shutdown().await.expect("a graceful shutdown");
    b.shutdown().await.expect("a graceful shutdown");
    let mut admin = PgConnection::connect(&base).await.unwrap();
    sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).execute(&mut admin).await.unwrap();
    admin.close().await.unwrap();
    let report = report.unwrap();
    // Each table has a seat on each instance: every reveal reached one of its seats through
    // the other instance.
    check(&report, 20, 2);
    assert_eq!((report.instances, report.spread), (2, Spread::Seats));
    let shared_out = shared_out.unwrap();
    check(&shared_out, 20, 2);
    assert_eq!((shared_out.instances, shared_out.spread), (2, Spread::Tables));
}
