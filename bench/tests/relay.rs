//! The relay floor against a relay in this process, and `relayfloor` as a user runs it (the
//! relay a process of its own): short loads, stopped by their reveal cap.

use std::process::Command;
use std::time::Duration;

use facedown_bench::relay::{self, RelayOptions};

fn options(tables: usize, max_reveals: u64, sealed: bool) -> RelayOptions {
    RelayOptions {
        tables,
        seconds: Duration::from_secs(30),
        max_reveals,
        sealed,
        stall: Duration::from_secs(10),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_answers_each_step_with_an_ack_and_updates_and_every_reveal_is_timed() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let serving = tokio::spawn(relay::serve(listener, 500, None, stop));
    let plain = relay::run(addr, &options(3, 300, false), None).await.unwrap();
    let sealed = relay::run(addr, &options(3, 300, true), None).await.unwrap();
    let _ = stop_tx.send(true);
    tokio::time::timeout(Duration::from_secs(10), serving).await.expect("the relay stops when told").unwrap();
    for (report, steps) in [(&plain, 1.0), (&sealed, 2.0)] {
        assert_eq!(report.failed_tables, 0, "{report}");
        assert!(report.reveals >= 300, "{report}");
        assert_eq!(report.latency_ms.count, report.reveals, "{report}");
        assert!(report.latency_ms.p50 > 0.0 && report.latency_ms.p50 <= report.latency_ms.max, "{report}");
        // A step: two acknowledgements, the first seat's waiting update, and both seats' last.
        // The load stops between steps, so every counted reveal received exactly its frames
        // (those of a reveal cut short by the stop come on top).
        assert!(report.frames_per_reveal >= 5.0 * steps, "{report}");
        assert!(report.frames_per_reveal < 5.0 * steps + 0.5, "{report}");
        assert!(report.relay_cpu_us_per_reveal.is_none());
    }
    assert!(sealed.sealed && !plain.sealed);
}

#[test]
fn relayfloor_starts_its_relay_as_a_process_of_its_own_and_reports_as_json() {
    let out = Command::new(env!("CARGO_BIN_EXE_relayfloor"))
        .args(["--tables", "2", "--seconds", "20", "--max-reveals", "200", "--sealed", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["tables"], 2);
    assert_eq!(report["sealed"], true);
    assert_eq!(report["failed_tables"], 0, "{report}");
    assert!(report["reveals"].as_u64().unwrap() >= 200, "{report}");
    assert!(report["relay_cpu_us_per_reveal"].as_f64().is_some(), "the relay's own CPU: {report}");
    assert!(report["load_cpu_us_per_reveal"].as_f64().is_some(), "{report}");
}

#[test]
fn relayfloor_durable_plays_against_a_relay_that_keeps_each_request_in_a_store() {
    let out = Command::new(env!("CARGO_BIN_EXE_relayfloor"))
        .args(["--tables", "2", "--seconds", "20", "--max-reveals", "100", "--durable", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["failed_tables"], 0, "{report}");
    assert!(report["reveals"].as_u64().unwrap() >= 100, "{report}");
    assert!(report["relay_cpu_us_per_reveal"].as_f64().is_some(), "{report}");
}

#[test]
fn relayfloor_refuses_what_it_cannot_play() {
    let out = Command::new(env!("CARGO_BIN_EXE_relayfloor")).args(["--tables", "0"]).output().unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--tables"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(env!("CARGO_BIN_EXE_relayfloor")).args(["--update-bytes", "10"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--update-bytes"));
}
