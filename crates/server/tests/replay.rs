//! `POST /api/replay` (issue 34, Replay): a finished game's verifiable log, as a table page
//! downloads it, replayed by the rules step by step — on the logs this server's tests keep
//! (docs/fairness/logs/, one finished game of each system). A log with a byte changed, an
//! over-long one and one request too many are refused, each saying why.

use std::path::{Path, PathBuf};

use serde_json::Value;
use server::{Config, Running};

fn logs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/fairness/logs")
}

async fn start(replays_a_minute: u32) -> (tempfile::TempDir, Running) {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Config::new(dir.path().join("r.db"));
    c.listen = "127.0.0.1:0".parse().unwrap();
    c.limits.tables_per_minute_per_address = replays_a_minute;
    let server = server::start(c).await.unwrap();
    (dir, server)
}

/// A POST of `body`: status and the body as text.
async fn post(url: String, body: String) -> (u16, String) {
    tokio::task::spawn_blocking(move || {
        let agent = ureq::Agent::config_builder().http_status_as_error(false).build().new_agent();
        match agent.post(&url).header("content-type", "application/jsonl").send(body) {
            Ok(mut response) => (response.status().as_u16(), response.body_mut().read_to_string().unwrap()),
            // A server may close on an over-long body before reading it all.
            Err(e) => (0, e.to_string()),
        }
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_games_log_replays_step_by_step_and_a_tampered_one_is_refused() {
    let (_dir, server) = start(20).await;
    let url = format!("{}/api/replay", server.base_url);
    for system in ["iron-triangle", "nodice", "inciting-incident"] {
        let log = std::fs::read_to_string(logs().join(format!("{system}.jsonl"))).unwrap();
        let (status, body) = post(url.clone(), log.clone()).await;
        assert_eq!(status, 200, "{system}: {body}");
        let answer: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(answer["system"], system);
        // The head is the last entry's hash.
        let last: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
        assert_eq!(answer["head"], last["hash"], "{system}");
        let steps = answer["steps"].as_array().unwrap();
        assert!(steps.len() > 2, "{system}: {} steps", steps.len());
        assert!(steps.iter().all(|s| s["view"].is_object() && s["lines"].is_array()), "{system}");
        assert!(
            steps.last().unwrap()["view"]["who_won"]["headline"].is_string(),
            "{system}: the last step says who won: {}",
            steps.last().unwrap()["view"]
        );
        assert!(answer["seats"].as_array().is_some_and(|s| !s.is_empty()), "{system}");
        // One byte changed in an entry of the middle: the chain no longer checks.
        let lines: Vec<&str> = log.lines().collect();
        let mid = lines.len() / 2;
        let mut tampered: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
        tampered[mid] = tampered[mid].replacen("\"seq\":", "\"seq\": ", 1);
        assert_ne!(tampered[mid], lines[mid]);
        let (status, body) = post(url.clone(), tampered.join("\n") + "\n").await;
        assert_eq!(status, 422, "{system}: {body}");
        assert!(body.contains("does not check") && body.contains(&format!("entry {}", mid + 1)), "{body}");
    }
    // A table's export (the host's document) is named as such.
    let export = r#"{"format": "facedown-table", "version": 1, "table": {}}"#;
    let (status, body) = post(url.clone(), export.into()).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("facedown tables export"), "{body}");
    // Not a log at all, and a game's log cut before its end.
    let (status, body) = post(url.clone(), "hello\n".into()).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("not a table's verifiable log"), "{body}");
    let log = std::fs::read_to_string(logs().join("iron-triangle.jsonl")).unwrap();
    // Up to the last round's binding: the record is not revealed yet.
    let end = log.lines().collect::<Vec<_>>().iter().rposition(|l| l.contains("\"kind\":\"bound\"")).unwrap();
    let cut: String = log.lines().take(end).map(|l| format!("{l}\n")).collect();
    let (status, body) = post(url, cut).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("not over"), "{body}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_over_long_log_and_a_replay_too_many_are_refused_in_words() {
    let (_dir, server) = start(2).await;
    let url = format!("{}/api/replay", server.base_url);
    let (status, body) = post(url.clone(), "x".repeat(5 << 20)).await;
    assert!(status == 413 || status == 0, "{status}: {body}");
    if status == 413 {
        assert!(body.contains("at most 4 MiB"), "{body}");
    }
    let (status, _) = post(url.clone(), "hello\n".into()).await;
    assert_eq!(status, 422);
    let (status, body) = post(url, "hello\n".into()).await;
    assert_eq!(status, 429, "{body}");
    assert!(body.contains("replays at most 2 logs a minute"), "{body}");
    server.shutdown().await.unwrap();
}
