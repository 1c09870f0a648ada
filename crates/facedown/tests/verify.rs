//! End-to-end tests of `facedown verify LOG`: real verifiable logs of all three systems (served
//! by `GET /api/tables/{t}/log?format=fair` at the end of sealed games, kept in
//! docs/fairness/logs/ by the server's tests) verify; a log with any one byte changed — a
//! name, a die, a nonce, a narration line — fails with exit status 2, naming an entry.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_facedown");

fn logs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/fairness/logs")
}

fn verify_stdin(text: &[u8], json: bool) -> Output {
    let mut args = vec!["verify", "-"];
    if json {
        args.push("--json");
    }
    let mut child = Command::new(BIN)
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().expect("stdin").write_all(text).expect("the log is written");
    child.wait_with_output().expect("the binary ends")
}

#[test]
fn the_logs_of_all_three_systems_verify() {
    for system in ["inciting-incident", "nodice", "iron-triangle"] {
        let path = logs().join(format!("{system}.jsonl"));
        let o = Command::new(BIN).arg("verify").arg(&path).output().expect("the binary runs");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{system}: {out}{}", String::from_utf8_lossy(&o.stderr));
        assert!(out.starts_with("ok: "), "{system}: {out}");
        let o = Command::new(BIN).arg("verify").arg(&path).arg("--json").output().expect("the binary runs");
        let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
        assert_eq!(report["ok"], true);
        assert_eq!(report["seed_revealed"], true, "{system}: the game ended, the seed is revealed");
        if system != "iron-triangle" {
            assert!(report["draws"].as_u64().unwrap() > 0, "{system} draws dice or tokens: {report}");
        }
    }
}

/// Changes one byte at `at` (to a byte that keeps the text UTF-8), if it can.
fn changed(log: &[u8], at: usize) -> Option<Vec<u8>> {
    let mut out = log.to_vec();
    out[at] = if log[at].is_ascii_digit() {
        b'0' + (log[at] - b'0' + 1) % 10
    } else if log[at].is_ascii_alphabetic() {
        log[at] ^ 0x20
    } else if log[at] == b'\n' {
        return None;
    } else {
        b'x'
    };
    String::from_utf8(out.clone()).ok().map(|_| out)
}

#[test]
fn one_changed_byte_anywhere_is_named_and_exits_2() {
    let log = std::fs::read(logs().join("inciting-incident.jsonl")).expect("the log");
    let text = String::from_utf8(log.clone()).expect("UTF-8");
    let mut positions: Vec<usize> = (0..log.len()).step_by((log.len() / 60).max(1)).collect();
    for needle in ["\"name\":\"", "\"value\":\"", "\"nonce\":\"", "\"text\":\"", "\"revealed\":\""] {
        let at = text.find(needle).unwrap_or_else(|| panic!("the log holds {needle}")) + needle.len();
        positions.push(at);
    }
    let mut checked = 0;
    for at in positions {
        let Some(bad) = changed(&log, at) else { continue };
        let o = verify_stdin(&bad, true);
        assert_eq!(o.status.code(), Some(2), "a change at byte {at} is caught");
        let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
        assert_eq!(report["ok"], false);
        let line = text[..at].matches('\n').count() as u64 + 1;
        assert_eq!(report["entry"].as_u64(), Some(line), "the entry named is the changed one");
        checked += 1;
    }
    assert!(checked > 50, "{checked} changes");
    let o = verify_stdin(&log, false);
    assert!(o.status.success(), "the untouched log verifies");
}
