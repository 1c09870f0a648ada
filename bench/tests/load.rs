//! The load generator against a real server (in this process, on 127.0.0.1 port 0): a short
//! load, stopped by its reveal cap, times every reveal it counts.

use std::time::Duration;

use facedown_bench::{LoadOptions, Target, run_load};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_load_times_reveals_against_a_real_server() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = server::Config::new(dir.path().join("load.sqlite"));
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.limits.messages_per_second = 100_000;
    config.limits.burst = 100_000;
    let running = server::start(config).await.unwrap();
    let target = Target { base_url: running.base_url.clone(), pid: None };
    let opts = LoadOptions {
        tables: 4,
        seconds: Duration::from_secs(30),
        max_reveals: 100,
        connect_concurrency: 4,
        connect_timeout: Duration::from_secs(30),
        settle: Duration::ZERO,
        stall: Duration::from_secs(10),
        seed: 1,
    };
    let report = run_load(&opts, &target).await.unwrap();
    running.shutdown().await.expect("a graceful shutdown");
    assert_eq!(report.failed_tables, 0, "{:?}", report.failures);
    assert!(report.reveals >= 100, "{report}");
    assert_eq!(report.latency_ms.count, report.reveals);
    // Every reveal needs a face-down choice from each seat.
    assert!(report.commands >= 2 * report.reveals, "{report}");
    assert!(report.latency_ms.p50 > 0.0 && report.latency_ms.p50 <= report.latency_ms.max);
    assert!(report.server.is_none());
}
