//! The browser's verifier (crates/server/web/js/fairness.js), a second implementation of
//! docs/fairness.md, run under Node against the logs kept in docs/fairness/logs and against
//! logs this server writes in this very run: a whole game of each system with sealed seats,
//! played over the wire, each seat's verifiable log fetched as a page would fetch it. The Node
//! test (crates/server/web/test/fairness.test.mjs) verifies every log and a set of tamperings
//! of each that must be caught at the right line.
//!
//! Without `node` on the PATH the test is skipped with a message, unless `CI` is set: then it
//! fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use server::protocol::parse_link;
use server::{Config, Running};

mod sealedplay;
use sealedplay::{create, play};

fn web_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("web")
}

/// Whether `node` runs; without it the test is skipped, or fails when `CI` is set.
fn node_present(what: &str) -> bool {
    let ok = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but `node` is not on the PATH: {what} cannot run"
        );
        eprintln!("skipped: no `node` on the PATH to run {what}");
    }
    ok
}

/// Runs the Node test of the browser's verifier over the logs in `logs`; panics with its output
/// when a test fails.
fn node_test(logs: &Path) {
    let test = web_dir().join("test/fairness.test.mjs");
    let out = Command::new("node")
        .arg("--test")
        .arg(&test)
        .env("FACEDOWN_FAIR_LOGS", logs)
        .output()
        .expect("node runs");
    let said = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "node --test {} over {}:\n{said}", test.display(), logs.display());
    assert!(said.contains("# fail 0"), "{said}");
    let logs_verified =
        said.lines().filter(|l| l.starts_with("ok ") && l.contains(".jsonl verifies (pure)")).count();
    assert!(logs_verified > 0, "the Node test verified no log:\n{said}");
}

#[test]
fn the_browser_verifier_checks_the_logs_kept_in_the_docs() {
    if !node_present("crates/server/web/test/fairness.test.mjs") {
        return;
    }
    node_test(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/fairness/logs"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_browser_verifier_checks_logs_this_server_just_wrote() {
    if !node_present("crates/server/web/test/fairness.test.mjs") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let games = [
        Game { system: "iron-triangle", example: "duel", bots: &[("gm", "greedy")], sealed: &["ada"] },
        Game { system: "nodice", example: "brawl-3", bots: &[("gm", "random")], sealed: &["kara"] },
        Game { system: "inciting-incident", example: "river-fight", bots: &[], sealed: &["bren", "mira"] },
    ];
    let mut all = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let logs = whole_game(game, 40 + i as u64).await;
        for (j, log) in logs.into_iter().enumerate() {
            let report = session::fairlog::verify(&log).unwrap_or_else(|e| panic!("{}: {e}", game.system));
            assert!(report.seed_revealed && report.mixes > 0, "{}: {report}", game.system);
            if game.system == "inciting-incident" {
                let rotations = log.matches("\"next\":").count();
                assert!(rotations >= 1, "the end rotated the seed: {log}");
            }
            std::fs::write(dir.path().join(format!("{}-{j}.jsonl", game.system)), &log).unwrap();
            all.push((format!("{}-{j}", game.system), log));
        }
    }
    let dir_path = dir.path().to_path_buf();
    tokio::task::spawn_blocking(move || node_test(&dir_path)).await.unwrap();
    let tampered = tempfile::tempdir().unwrap();
    let tampered_path = tampered.path().to_path_buf();
    tokio::task::spawn_blocking(move || both_verifiers_agree(&all, &tampered_path)).await.unwrap();
}

/// A table to play: its system and example, the seats bots play, the seats sealed.
struct Game {
    system: &'static str,
    example: &'static str,
    bots: &'static [(&'static str, &'static str)],
    sealed: &'static [&'static str],
}

/// The browser's verifier and the Rust one (`session::fairlog::verify`) give the same verdict,
/// naming the same line, on many changed copies of `logs`: one byte changed anywhere, and one
/// value inside an entry changed with the chain written afresh (so that the commitments, seeds,
/// mixes and draws must catch it, not the hashes).
fn both_verifiers_agree(logs: &[(String, String)], dir: &Path) {
    let mut rng = ChaCha8Rng::seed_from_u64(logs.iter().map(|(_, l)| l.len() as u64).sum());
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse::<usize>().ok())
        .unwrap_or(256)
        .clamp(8, 256);
    let mut expected = std::collections::BTreeMap::new();
    for (name, log) in logs {
        for k in 0..cases / 4 {
            let mut bytes = log.clone().into_bytes();
            let at = rng.random_range(0..bytes.len());
            bytes[at] = if bytes[at] == b'x' { b'y' } else { b'x' };
            let Ok(text) = String::from_utf8(bytes) else { continue };
            expected.insert(format!("{name}-byte-{k}.jsonl"), text);
        }
        let entries: Vec<Value> =
            log.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["entry"].clone()).collect();
        for k in 0..cases / 4 {
            let mut changed = entries.clone();
            let i = rng.random_range(0..changed.len());
            if !change_a_leaf(&mut changed[i], &mut rng) {
                continue;
            }
            let (text, _) = session::fairlog::write(changed).unwrap();
            expected.insert(format!("{name}-value-{k}.jsonl"), text);
        }
    }
    for (file, text) in &expected {
        std::fs::write(dir.join(file), text).unwrap();
    }
    let script = web_dir().join("test/verify-each.mjs");
    let out = Command::new("node").arg(&script).arg(dir).output().expect("node runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let verdicts: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(verdicts.len(), expected.len(), "one verdict a log");
    let mut caught = 0;
    for v in verdicts {
        let file = v["file"].as_str().unwrap();
        let rust = session::fairlog::verify(&expected[file]);
        let js_line = v["line"].as_u64();
        match &rust {
            Ok(_) => assert_eq!(v["ok"], true, "{file}: Rust accepts it, the browser says {v}"),
            Err(e) => {
                assert_eq!(js_line, Some(e.entry), "{file}: Rust says {e}, the browser says {v}");
                caught += 1;
            }
        }
    }
    assert!(caught * 2 > expected.len(), "most changes are caught: {caught} of {}", expected.len());
}

/// Changes one leaf of `value` picked at random: a digit or letter of a string, a number, a
/// boolean. Returns whether it found a leaf.
fn change_a_leaf(value: &mut Value, rng: &mut ChaCha8Rng) -> bool {
    let mut leaves = Vec::new();
    collect_leaves(value, &mut Vec::new(), &mut leaves);
    if leaves.is_empty() {
        return false;
    }
    let path = &leaves[rng.random_range(0..leaves.len())];
    let mut leaf = value;
    for step in path {
        leaf = match step {
            Step::Key(k) => &mut leaf[k.as_str()],
            Step::Index(i) => &mut leaf[*i],
        };
    }
    *leaf = match leaf.take() {
        Value::String(s) if !s.is_empty() => {
            let mut chars: Vec<char> = s.chars().collect();
            let at = rng.random_range(0..chars.len());
            chars[at] = match chars[at] {
                '0'..='8' => char::from(chars[at] as u8 + 1),
                '9' => '0',
                'a' => 'b',
                _ => 'a',
            };
            Value::String(chars.into_iter().collect())
        }
        Value::String(_) => Value::String("x".into()),
        Value::Number(n) => Value::from(n.as_u64().map_or(0, |n| n + 1)),
        Value::Bool(b) => Value::Bool(!b),
        Value::Null => Value::from(0),
        other => other,
    };
    true
}

/// One step into a JSON value.
#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn collect_leaves(value: &Value, path: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    match value {
        Value::Object(m) => {
            for (k, v) in m {
                path.push(Step::Key(k.clone()));
                collect_leaves(v, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                path.push(Step::Index(i));
                collect_leaves(v, path, out);
                path.pop();
            }
        }
        _ => out.push(path.clone()),
    }
}

fn config(db: &Path) -> Config {
    let mut c = Config::new(db.to_path_buf());
    c.listen = "127.0.0.1:0".parse().unwrap();
    c.limits.messages_per_second = 10_000;
    c.limits.burst = 10_000;
    c
}

/// A whole game of `example`: `bots` played by bots, `sealed` seats sealed, people on the
/// others; gives back each person's verifiable log and the spectator's.
async fn whole_game(game: &Game, seed: u64) -> Vec<String> {
    let Game { system, example, bots, sealed } = *game;
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(config(&dir.path().join("server.db"))).await.unwrap();
    let created = create(&server, system, example, bots, sealed).await;
    let mut links: Vec<String> = created
        .seats
        .iter()
        .filter(|(n, _)| !bots.iter().any(|(b, _)| b == n))
        .map(|(_, l)| l.clone())
        .collect();
    let tasks: Vec<_> =
        links.iter().enumerate().map(|(i, l)| tokio::spawn(play(l.clone(), seed + i as u64))).collect();
    for t in tasks {
        t.await.unwrap();
    }
    if system == "inciting-incident" {
        rest_scene(&created.gm).await;
    }
    links.push(created.spectator.clone());
    let mut logs = Vec::new();
    for link in &links {
        let (_, _, token) = parse_link(link).unwrap();
        logs.push(fair_log(&server, &created.table, &token).await);
    }
    server.shutdown().await.unwrap();
    logs
}

/// The GM holds a Rest Scene from the GM link once the scene is over (a ruling on the GM
/// seat's behalf): its rolls come after the end, keyed by the seed the end's reveal rotated to
/// (docs/fairness.md §4), so both verifiers replay a rotation.
async fn rest_scene(gm_link: &str) {
    use server::protocol::{ClientMessage, ServerMessage};
    let mut gm = server::client::Client::join(gm_link, 0).await.unwrap();
    let over = match gm.next().await.unwrap() {
        ServerMessage::Welcome { change, .. } => change.over,
        other => panic!("expected a welcome, got {other:?}"),
    };
    assert!(over, "the scene is over before its Rest Scene");
    let command = serde_json::json!({"rest_scene": {"full_day": false}});
    gm.send(&ClientMessage::Command { id: "g1".into(), command }).await.unwrap();
    loop {
        match tokio::time::timeout(std::time::Duration::from_secs(10), gm.next()).await.unwrap().unwrap() {
            ServerMessage::Ack { id, .. } if id == "g1" => return,
            ServerMessage::Error { message, .. } => panic!("the Rest Scene was refused: {message}"),
            _ => continue,
        }
    }
}

/// `GET /api/tables/{table}/log?format=fair` with `token`, as the page fetches it.
async fn fair_log(server: &Running, table: &str, token: &str) -> String {
    let url = format!("http://{}/api/tables/{table}/log?format=fair", server.addr);
    let auth = format!("Bearer {token}");
    tokio::task::spawn_blocking(move || {
        let mut response = ureq::get(&url).header("Authorization", &auth).call().expect("the log is served");
        response.body_mut().read_to_string().expect("the log is text")
    })
    .await
    .unwrap()
}
