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

// --- Forgeries (issue 32): real logs changed as a host could, the chain, the `seq`s and every
// draw written afresh with the revealed seeds, so that only the fairness rules can catch them.

use serde_json::Value;
use table::fairness::{ClientSeed, Commitment, Nonce, ServerSeed, Verifiable};

fn entries_of(log: &str) -> Vec<Value> {
    log.lines().map(|l| serde_json::from_str::<Value>(l).expect("a line")["entry"].clone()).collect()
}

/// Writes `entries` as a host would who forged them: `seq` renumbered, every draw re-derived
/// from the revealed seeds and the client seeds and mixes as they now stand, the chain anew.
fn forged(mut entries: Vec<Value>) -> String {
    let seats = entries[0]["seats"].as_array().expect("seats").len() as u16;
    let seeds: Vec<ServerSeed> = entries
        .iter()
        .filter(|e| e["kind"] == "server_seed")
        .map(|e| {
            let c: Commitment = e["commitment"].as_str().unwrap().parse().unwrap();
            ServerSeed::from_revealed(e["revealed"].as_str().unwrap(), &c).unwrap()
        })
        .collect();
    let mut v = Verifiable::new(seeds[0], seats);
    let mut epoch = 0;
    for (i, e) in entries.iter_mut().enumerate().skip(1) {
        e["seq"] = Value::from(i as u64);
        match e["kind"].as_str().unwrap() {
            "client_seed" => {
                let s: ClientSeed = e["seed"].as_str().unwrap().parse().unwrap();
                v.add_client_seed(e["seat"].as_u64().unwrap() as u16, s).unwrap();
            }
            "mix" => {
                let nonces: Vec<Option<Nonce>> = e["round_nonces"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_str().map(|n| n.parse().unwrap()))
                    .collect();
                v.mix(&nonces).unwrap();
            }
            "draw" => {
                let counter: u64 = e["draw"]["counter"].as_str().unwrap().parse().unwrap();
                let n: u128 = e["draw"]["n"].as_str().unwrap().parse().unwrap();
                let drawn = v.inputs().draw(counter, n).unwrap();
                e["draw"]["value"] = Value::from(drawn.value.to_string());
                e["draw"]["retries"] = Value::from(drawn.retries);
                e["draw"]["mixes"] = Value::from(v.mixes());
            }
            "server_seed" if e.get("next").is_some() => {
                epoch += 1;
                if let Some(next) = seeds.get(epoch) {
                    v.rotate(*next);
                }
            }
            _ => {}
        }
    }
    session::fairlog::write(entries).expect("canonical").0
}

fn sample(system: &str) -> String {
    std::fs::read_to_string(logs().join(format!("{system}.jsonl"))).expect("the log")
}

const SYSTEMS: [&str; 3] = ["inciting-incident", "nodice", "iron-triangle"];

#[test]
fn forging_changes_nothing_but_what_it_is_told() {
    for system in SYSTEMS {
        let log = sample(system);
        assert_eq!(forged(entries_of(&log)), log, "{system}: a forgery of nothing is the log itself");
    }
}

/// docs/fairness.md §3, §5.2: a seat's nonce is left out of a mix (`null`) only when its choice
/// stays face down after the round; a sealed seat's nonce replaced by `null` in a round where
/// the seat's choice is opened — the host's way to draw without it — is named at the mix.
#[test]
fn a_sealed_nonce_nulled_in_a_mix_is_named_at_the_mix() {
    let (mut refused, mut after_end) = (0, 0);
    for system in SYSTEMS {
        let entries = entries_of(&sample(system));
        for (i, e) in entries.iter().enumerate().filter(|(_, e)| e["kind"] == "mix") {
            for seat in 0..e["round_nonces"].as_array().unwrap().len() {
                if e["round_nonces"][seat].is_null() || entries[0]["seats"][seat]["mode"] != "sealed" {
                    continue;
                }
                // A choice opened after the game's end may have stayed face down to the end:
                // only `verify --replay`, which knows the rules, tells that from a forgery.
                let end = (i..entries.len())
                    .find(|&k| entries[k]["kind"] == "server_seed" || entries[k]["kind"] == "bound");
                if end.is_some_and(|k| entries[k]["kind"] == "server_seed") {
                    after_end += 1;
                    continue;
                }
                let mut changed = entries.clone();
                changed[i]["round_nonces"][seat] = Value::Null;
                let verdict = session::fairlog::verify(&forged(changed));
                let e = verdict.expect_err("a nulled nonce is refused");
                assert_eq!(e.entry, i as u64 + 1, "{system}: named at the mix: {e}");
                refused += 1;
            }
        }
    }
    assert!(refused > 20 && after_end < 10, "{refused} forgeries refused, {after_end} in the last round");
}

/// docs/fairness.md §5.2, §7.1: every sealed round of a table with verifiable draws is mixed,
/// right after its `bound`; a removed mix is named where it should have been, whether a draw
/// follows it or not.
#[test]
fn a_removed_mix_is_named_where_it_belongs() {
    let mut refused = 0;
    for system in SYSTEMS {
        let entries = entries_of(&sample(system));
        for i in (0..entries.len()).filter(|&i| entries[i]["kind"] == "mix") {
            let mut changed = entries.clone();
            changed.remove(i);
            let e = session::fairlog::verify(&forged(changed)).expect_err("a removed mix is refused");
            assert_eq!(e.entry, i as u64 + 1, "{system}: named where the mix was: {e}");
            refused += 1;
        }
    }
    assert!(refused >= 15, "{refused} forgeries");
}

/// docs/fairness.md §4: a `server_seed` that lost its `next` ends the draws; the first draw
/// after it is the entry at fault, not the next `server_seed` further on.
#[test]
fn a_removed_next_names_the_first_draw_after_it() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/fairness/rotation/inciting-incident-rest.jsonl");
    let entries = entries_of(&std::fs::read_to_string(path).expect("the log"));
    let at = entries.iter().position(|e| e["kind"] == "server_seed").expect("a rotation");
    let first_draw = (at..entries.len()).find(|&i| entries[i]["kind"] == "draw").expect("a draw after it");
    let mut changed = entries.clone();
    changed[at].as_object_mut().unwrap().remove("next");
    let (text, _) = session::fairlog::write(changed).unwrap();
    let e = session::fairlog::verify(&text).expect_err("refused");
    assert_eq!(e.entry, first_draw as u64 + 1, "{e}");
}

/// Every forgery above, through the browser's verifier (crates/server/web/js/fairness.js, under
/// Node where it is installed): the same verdict, naming the same entry for the same reason.
#[test]
fn the_browser_verifier_names_every_forgery_as_this_one_does() {
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("node is not installed: the browser's verifier is checked by the server's tests elsewhere");
        return;
    }
    let dir = tempfile::tempdir().expect("a folder");
    let mut expected = Vec::new();
    let mut put = |name: String, text: String| {
        let verdict = session::fairlog::verify(&text).err().map(|e| (e.entry, e.reason));
        std::fs::write(dir.path().join(&name), text).expect("written");
        expected.push((name, verdict));
    };
    for system in SYSTEMS {
        let entries = entries_of(&sample(system));
        for (i, e) in entries.iter().enumerate() {
            if e["kind"] == "mix" {
                let mut removed = entries.clone();
                removed.remove(i);
                put(format!("{system}-{i}-removed.jsonl"), forged(removed));
                for seat in 0..e["round_nonces"].as_array().unwrap().len() {
                    let mut nulled = entries.clone();
                    nulled[i]["round_nonces"][seat] = Value::Null;
                    put(format!("{system}-{i}-{seat}-nulled.jsonl"), forged(nulled));
                }
            }
        }
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/fairness/rotation/inciting-incident-rest.jsonl");
    let mut entries = entries_of(&std::fs::read_to_string(path).expect("the log"));
    let at = entries.iter().position(|e| e["kind"] == "server_seed").expect("a rotation");
    entries[at].as_object_mut().unwrap().remove("next");
    put("rotation-next-removed.jsonl".into(), session::fairlog::write(entries).unwrap().0);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../server/web/test/verify-each.mjs");
    let o = Command::new("node").arg(script).arg(dir.path()).output().expect("node runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).expect("UTF-8");
    let mut seen = 0;
    for line in out.lines() {
        let js: Value = serde_json::from_str(line).expect("a verdict");
        let name = js["file"].as_str().unwrap();
        let (_, rust) = expected.iter().find(|(n, _)| n == name).expect("a file written here");
        let browser = js["line"].as_u64().map(|l| (l, js["what"].as_str().unwrap().to_owned()));
        assert_eq!(&browser, rust, "{name}");
        seen += 1;
    }
    assert_eq!(seen, expected.len());
}

/// `session::replay::replay` under the rules the log names (what `facedown verify --replay`
/// runs).
fn replayed(text: &str) -> Result<session::replay::ReplayReport, session::replay::ReplayError> {
    let system = entries_of(text)[0]["system"].as_str().unwrap().to_owned();
    match system.as_str() {
        "iron-triangle" => session::replay::replay::<iron_triangle::IronTriangle>(text),
        "nodice" => session::replay::replay::<nodice::NoDice>(text),
        _ => session::replay::replay::<inciting_incident::IncitingIncident>(text),
    }
}

/// The entry (counting from 1) a replay names, the log's fairness checks passing first: a
/// forgery only the rules can tell.
fn replay_names(system: &str, text: &str) -> u64 {
    if let Err(e) = session::fairlog::verify(text) {
        panic!("{system}: the fairness checks alone refuse this forgery: {e}");
    }
    match replayed(text) {
        Err(session::replay::ReplayError::Bad(e)) => e.entry,
        other => panic!("{system}: the replay does not refuse the forgery: {other:?}"),
    }
}

/// `facedown verify --replay` with `args` on `text` (stdin).
fn verify_replay(text: &str, json: bool) -> Output {
    let mut args = vec!["verify", "-", "--replay"];
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
    child.stdin.take().expect("stdin").write_all(text.as_bytes()).expect("the log is written");
    child.wait_with_output().expect("the binary ends")
}

/// docs/fairness.md §7.3: a finished game's log of each system replays: every command of the
/// revealed record accepted by the rules, every event the viewer's redaction of the rules'
/// event, every draw the rules' draw, every opened choice the record's command of its round.
#[test]
fn replay_of_a_finished_game_of_each_system_passes() {
    for system in SYSTEMS {
        let path = logs().join(format!("{system}.jsonl"));
        let o = Command::new(BIN).arg("verify").arg(&path).arg("--replay").output().expect("the binary runs");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{system}: {out}{}", String::from_utf8_lossy(&o.stderr));
        assert!(out.contains("replayed: "), "{system}: {out}");
        let o = verify_replay(&sample(system), true);
        assert!(o.status.success(), "{system}: {}", String::from_utf8_lossy(&o.stdout));
        let report: Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
        assert_eq!(report["ok"], true, "{report}");
        let r = &report["replay"];
        assert!(r["commands"].as_u64().unwrap() > 0 && r["events"].as_u64().unwrap() > 0, "{report}");
        assert!(r["opened"].as_u64().unwrap() > 0, "{system}: sealed choices matched: {report}");
        assert_eq!(r["not_replayed"], 0, "{report}");
        assert!(!r["viewers"].as_array().unwrap().is_empty(), "{report}");
        if system != "iron-triangle" {
            assert!(r["draws"].as_u64().unwrap() > 0, "{report}");
        }
    }
}

/// The last sealed round: `(mix entry index, seat)` of every sealed seat's nonce mixed in a
/// round that the game's end (a `server_seed`) closes, its choice opened after the end.
fn last_round_nonces(entries: &[Value]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate().filter(|(_, e)| e["kind"] == "mix") {
        let end = (i..entries.len())
            .find(|&k| entries[k]["kind"] == "server_seed" || entries[k]["kind"] == "bound");
        if !end.is_some_and(|k| entries[k]["kind"] == "server_seed") {
            continue;
        }
        let end = end.unwrap();
        for seat in 0..e["round_nonces"].as_array().unwrap().len() {
            let opened_after_end =
                !(i..end).any(|k| entries[k]["kind"] == "opened" && entries[k]["seat"] == seat);
            if !e["round_nonces"][seat].is_null()
                && entries[0]["seats"][seat]["mode"] == "sealed"
                && opened_after_end
            {
                out.push((i, seat));
            }
        }
    }
    out
}

/// docs/fairness.md §3, §7.3: in a game's last round a choice may be opened after the end, so
/// the fairness checks cannot tell a nonce nulled there from a choice kept face down; the
/// replay can — the seat's choice was face up once the round's commands were given, so its
/// nonce was mixed — and names the mix.
#[test]
fn replay_refuses_a_nonce_nulled_in_the_last_round() {
    let mut refused = 0;
    for system in SYSTEMS {
        let entries = entries_of(&sample(system));
        for (i, seat) in last_round_nonces(&entries) {
            let mut changed = entries.clone();
            changed[i]["round_nonces"][seat] = Value::Null;
            let text = forged(changed);
            assert_eq!(replay_names(system, &text), i as u64 + 1, "{system}: named at the mix");
            // The same verdict from the command line.
            let o = verify_replay(&text, true);
            assert_eq!(o.status.code(), Some(2), "{system}");
            let verdict: Value = serde_json::from_slice(&o.stdout).expect("JSON");
            assert_eq!(verdict["entry"], i as u64 + 1, "{system}: {verdict}");
            refused += 1;
        }
    }
    assert!(refused >= 3, "{refused} last-round forgeries");
}

/// docs/fairness.md §7.3, nothing revealed late: a choice face up after its round, its nonce
/// nulled and its `opened` moved past the next `bound` (after that round's mix, where the
/// fairness checks take it for a choice kept face down), is named at its round's mix.
#[test]
fn replay_refuses_an_opened_moved_past_the_next_bound() {
    let mut refused = 0;
    for system in SYSTEMS {
        let entries = entries_of(&sample(system));
        for (i, e) in entries.iter().enumerate().filter(|(_, e)| e["kind"] == "mix") {
            let Some(next) = (i..entries.len()).find(|&k| entries[k]["kind"] == "bound") else { continue };
            if (i..next).any(|k| entries[k]["kind"] == "server_seed") || entries[next + 1]["kind"] != "mix" {
                continue;
            }
            for seat in 0..e["round_nonces"].as_array().unwrap().len() {
                if e["round_nonces"][seat].is_null() || entries[0]["seats"][seat]["mode"] != "sealed" {
                    continue;
                }
                // Every choice the seat opened in the round (a GM may decide for several).
                let at: Vec<usize> = (i..next)
                    .filter(|&k| entries[k]["kind"] == "opened" && entries[k]["seat"] == seat)
                    .collect();
                if at.is_empty() {
                    continue;
                }
                let mut changed = entries.clone();
                changed[i]["round_nonces"][seat] = Value::Null;
                let moved: Vec<Value> = at.iter().rev().map(|&k| changed.remove(k)).collect();
                // After the next round's mix (now as many entries earlier).
                for opened in moved {
                    changed.insert(next + 1 - at.len() + 1, opened);
                }
                let text = forged(changed);
                assert_eq!(replay_names(system, &text), i as u64 + 1, "{system}: named at the mix");
                refused += 1;
            }
        }
    }
    assert!(refused > 10, "{refused} moved reveals refused");
}

/// docs/fairness.md §7.3: an event changed — the host's word against the rules' — is named.
#[test]
fn replay_refuses_a_changed_event() {
    let mut refused = 0;
    for system in SYSTEMS {
        let entries = entries_of(&sample(system));
        for i in (0..entries.len()).filter(|&i| entries[i]["kind"] == "event").step_by(3) {
            let mut changed = entries.clone();
            let Some(obj) = changed[i]["event"].as_object_mut() else { continue };
            let Some(key) = obj.iter().find(|(_, v)| v.is_u64()).map(|(k, _)| k.clone()) else { continue };
            obj[&key] = Value::from(obj[&key].as_u64().unwrap() + 1);
            let text = forged(changed);
            assert_eq!(replay_names(system, &text), i as u64 + 1, "{system}: the changed event is named");
            refused += 1;
        }
    }
    assert!(refused > 10, "{refused} changed events refused");
}

/// docs/fairness.md §7.3, Iron Triangle 5.1: a seat's log that shows another fighter's stance
/// committed face down (the redaction undone) is not that seat's redaction of the event.
#[test]
fn replay_refuses_a_viewer_shown_another_seats_hidden_choice() {
    let entries = entries_of(&sample("iron-triangle"));
    let mut refused = 0;
    for (i, e) in entries.iter().enumerate() {
        if e["kind"] != "event"
            || e["event"]["event"] != "stance_committed"
            || e["event"].get("stance").is_some()
        {
            continue;
        }
        let fighter = e["event"]["fighter"].as_u64().unwrap() as usize;
        let revealed = entries[i..]
            .iter()
            .find(|x| x["kind"] == "event" && x["event"]["event"] == "stances_revealed")
            .expect("the stances are revealed");
        let mut changed = entries.clone();
        changed[i]["event"]["stance"] = revealed["event"]["stances"][fighter].clone();
        let text = forged(changed);
        assert_eq!(replay_names("iron-triangle", &text), i as u64 + 1, "the stance shown is named");
        refused += 1;
    }
    assert!(refused > 0, "the log shows a stance committed face down");
}

/// docs/fairness.md §7.3: a command of the revealed record changed to another of its seat's is
/// refused — by the rules, or as not the choice the seat opened in its round — naming the
/// record.
#[test]
fn replay_refuses_a_changed_record_command() {
    let mut refused = 0;
    for system in SYSTEMS {
        let entries = entries_of(&sample(system));
        let at = entries.iter().rposition(|e| e["kind"] == "record").expect("a record");
        let record = entries[at]["entries"].as_array().unwrap().clone();
        let opened: Vec<&Value> = entries.iter().filter(|e| e["kind"] == "opened").collect();
        for (k, en) in record.iter().enumerate().step_by(3) {
            let is_opened = opened.iter().any(|o| o["seat"] == en["seat"] && o["command"] == en["command"]);
            let Some(other) =
                record.iter().find(|x| x["seat"] == en["seat"] && x["command"] != en["command"])
            else {
                continue;
            };
            if !is_opened {
                continue;
            }
            let mut changed = entries.clone();
            changed[at]["entries"][k]["command"] = other["command"].clone();
            let text = forged(changed);
            assert_eq!(replay_names(system, &text), at as u64 + 1, "{system}: command {} changed", k + 1);
            refused += 1;
        }
    }
    assert!(refused > 5, "{refused} changed commands refused");
}

/// docs/fairness.md §7.1, §7.3: a setup other than the one committed is named where it is
/// revealed, by `--replay` as by the fairness checks.
#[test]
fn replay_refuses_a_wrong_setup() {
    for system in SYSTEMS {
        let mut entries = entries_of(&sample(system));
        let at = entries.iter().position(|e| e["kind"] == "setup").expect("the setup");
        let setup = entries[at]["setup"].as_str().unwrap().to_owned();
        let name = entries[0]["seats"][0]["name"].as_str().unwrap().to_owned();
        entries[at]["setup"] = Value::from(setup.replacen(&name, &format!("{name}x"), 1));
        let o = verify_replay(&forged(entries), true);
        assert_eq!(o.status.code(), Some(2), "{system}");
        let verdict: Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(verdict["entry"], at as u64 + 1, "{system}: {verdict}");
    }
}

/// docs/fairness.md §7.3: a log of a game not over yet holds no record to replay: `--replay`
/// says so, with exit status 2.
#[test]
fn replay_of_an_unfinished_game_cannot_replay_yet() {
    for system in SYSTEMS {
        let entries = entries_of(&sample(system));
        // Up to the last round's `bound`: a round whose choices are not opened yet.
        let end = entries.iter().rposition(|e| e["kind"] == "bound").expect("a sealed round");
        let text = session::fairlog::write(entries[..end].to_vec()).unwrap().0;
        let o = verify_replay(&text, false);
        assert_eq!(o.status.code(), Some(2), "{system}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.starts_with("cannot replay yet: "), "{system}: {out}");
        let o = verify_replay(&text, true);
        let verdict: Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(verdict["ok"], false);
        assert!(verdict["entry"].is_null(), "{verdict}");
    }
}

/// docs/fairness.md §7.3: a narration line changed — the event kept, its words a lie — is not
/// the ruleset's narration of the event for the viewer, and is named.
#[test]
fn replay_refuses_a_changed_narration() {
    let mut refused = 0;
    for system in SYSTEMS {
        let entries = entries_of(&sample(system));
        for i in (0..entries.len()).filter(|&i| entries[i]["text"].is_string()).step_by(4) {
            let mut changed = entries.clone();
            changed[i]["text"] =
                Value::from(format!("{} Nobody saw it.", changed[i]["text"].as_str().unwrap()));
            let text = forged(changed);
            assert_eq!(replay_names(system, &text), i as u64 + 1, "{system}: the changed narration is named");
            refused += 1;
        }
    }
    assert!(refused > 10, "{refused} changed narrations refused");
}
