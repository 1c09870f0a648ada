//! End-to-end tests of `facedown campaign`, running the built binary against a temporary
//! database: two sessions of a small campaign, and bad input changing nothing.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_facedown");

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/iron-triangle")
}

fn ex(rel: &str) -> String {
    examples().join(rel).display().to_string()
}

/// Runs `facedown campaign --db DB ARGS` with `stdin` piped in.
fn run(db: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(BIN)
        .arg("campaign")
        .arg("--db")
        .arg(db)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// Runs and expects success; returns standard output.
fn ok(db: &Path, args: &[&str]) -> String {
    let o = run(db, args, "");
    assert!(
        o.status.success(),
        "{args:?} failed: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs and expects the error status 2; returns standard error.
fn fails(db: &Path, args: &[&str]) -> String {
    let o = run(db, args, "");
    assert_eq!(o.status.code(), Some(2), "{args:?} should fail: {}", String::from_utf8_lossy(&o.stdout));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(db: &Path, args: &[&str]) -> serde_json::Value {
    let mut a = vec!["--json"];
    a.extend_from_slice(args);
    serde_json::from_str(ok(db, &a).trim()).expect("one JSON document")
}

fn sheet(db: &Path, name: &str) -> serde_json::Value {
    json(db, &["character", "show", name])
}

#[test]
fn two_sessions_of_a_small_campaign() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("campaign.sqlite");

    // ----- Session 1 -----
    assert!(ok(&db, &["init"]).contains("schema version 2"));
    ok(&db, &["character", "create", "--file", &ex("campaign/ada.toml")]);
    ok(&db, &["character", "create", "--file", &ex("campaign/bao.toml")]);
    ok(&db, &["npc", "add", &ex("characters/ninja.toml")]);
    ok(&db, &["countdown", "create", "The Elbow Clan's plan", "6"]);

    // A problem: Ada succeeds with a complication on her belief, Bao fails on his flaw; the
    // highest choice (Bao's failure) decides.
    let p =
        json(&db, &["problem", "start", "The library door is locked", "--player", "Ada", "--player", "Bao"]);
    assert_eq!(p["id"], 1);
    ok(&db, &["problem", "choose", "1", "Ada", "3"]);
    // The choice is hidden until the reveal.
    let shown = ok(&db, &["problem", "show", "1"]);
    assert!(shown.contains("has chosen (face down)") && !shown.contains("complication"), "{shown}");
    // Hidden entry from standard input.
    let o = run(&db, &["problem", "choose", "1", "Bao"], "4\n");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let revealed = ok(&db, &["problem", "reveal", "1"]);
    assert!(revealed.contains("Bao narrates: fail in an interesting way"), "{revealed}");
    ok(&db, &["problem", "settle", "1", "--consequence", "the ghosts scare Bao off"]);
    assert_eq!(sheet(&db, "Bao")["flaw_marked"], true);
    assert_eq!(sheet(&db, "Ada")["belief_marked"], false, "only the decider pays");

    // Ada alone: a complication on her belief.
    ok(&db, &["problem", "start", "The guard blocks the stairs", "--player", "Ada"]);
    ok(&db, &["problem", "choose", "2", "Ada", "3", "--mark", "belief"]);
    ok(&db, &["problem", "reveal", "2"]);
    ok(&db, &["problem", "settle", "2"]);
    assert_eq!(sheet(&db, "Ada")["played_belief_or_flaw"], true);

    // A conflict, played by bots, written back.
    let start = ok(
        &db,
        &["conflict", "start", "--pc", "Ada", "--pc", "Bao", "--npc", "Ninja", "--want", "the scroll"],
    );
    assert!(start.contains("Conflict 1 starts"), "{start}");
    fails(&db, &["rest", "full"]);
    let played = ok(&db, &["conflict", "play", "--bot", "all=greedy"]);
    assert!(played.contains("Conflict 1 is over") && played.contains("Written back"), "{played}");
    let ada = sheet(&db, "Ada");
    let zero: Vec<bool> = serde_json::from_value(ada["zero_marks"].clone()).unwrap();
    assert!(zero.iter().any(|&z| z), "Ada reached zero in the greedy duel: {ada}");
    assert!(ada["character"]["current"].is_object(), "Ada's energy is written back");

    // Rest: a short rest, then a full rest that marks a countdown.
    ok(&db, &["rest", "short"]);
    fails(&db, &["rest", "short"]);
    let full = json(&db, &["rest", "full", "--mark-countdown", "The Elbow Clan's plan"]);
    assert_eq!(full["countdown"]["marked"], 1);
    assert!(sheet(&db, "Ada")["character"]["current"].is_null(), "full energy again");

    // End of session 1: the GM marks Ada's goal; she has all three marks and levels up.
    fails(&db, &["character", "level-up", "Bao", "--advance", "move ◆☵ Jab", "--refill", "veto"]);
    ok(&db, &["character", "goal", "Ada"]);
    let end = json(&db, &["session", "end"]);
    assert_eq!(end[0]["may_level_up"], true);
    assert_eq!(end[1]["may_level_up"], false);
    let up =
        ok(&db, &["character", "level-up", "Ada", "--advance", "move attack water Jab", "--refill", "veto"]);
    assert!(up.contains("Ada is now level 1"), "{up}");
    let ada = sheet(&db, "Ada");
    assert_eq!(ada["character"]["level"], 1);
    assert_eq!(ada["goal"], "", "the goal is erased");
    assert_eq!(ada["belief_marked"], true, "belief stays marked: the flaw is not");
    ok(&db, &["character", "rewrite", "Ada", "--goal", "Unmask the Elbow Clan's leader"]);
    ok(&db, &["character", "rewrite", "Bao", "--flaw", "Cannot refuse a drink"]);

    // ----- Session 2 -----
    let status = json(&db, &["status"]);
    assert_eq!(
        status["characters"][1]["questions"],
        serde_json::json!([true, false, false]),
        "Bao's mark carried over"
    );
    ok(&db, &["character", "rename-move", "Ada", "Jab", "Quick Jab"]);
    ok(&db, &["problem", "start", "The rooftop is slick", "--player", "Ada", "--player", "Bao"]);
    ok(&db, &["problem", "choose", "3", "Ada", "2", "--background", "detective"]);
    ok(&db, &["problem", "choose", "3", "Bao", "1"]);
    ok(&db, &["problem", "reveal", "3"]);
    ok(&db, &["problem", "settle", "3"]);
    let ada = sheet(&db, "Ada");
    assert_eq!(ada["backgrounds"][1]["left"], 0, "Ada spent her detective point");

    // Hot-seat at one keyboard: each player in turn, a refused option asked again.
    ok(&db, &["problem", "start", "The gate", "--player", "Ada", "--player", "Bao"]);
    let o = run(&db, &["problem", "hot-seat", "4"], "7\n1\n3\n");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && out.contains("Bao narrates"),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("Not accepted"));
    ok(&db, &["problem", "settle", "4"]);

    // A minor conflict, one turn.
    ok(&db, &["conflict", "start", "--pc", "Ada", "--npc", "Ninja=Lookout", "--minor"]);
    ok(&db, &["conflict", "play", "--bot", "all=greedy"]);
    let list = ok(&db, &["conflict", "list"]);
    assert!(list.lines().count() == 2 && !list.contains("running"), "{list}");
    ok(&db, &["rest", "breather", "--choice", "Ada=attack"]);
    fails(&db, &["rest", "breather"]);
    ok(&db, &["countdown", "mark", "The Elbow Clan's plan"]);
    assert!(ok(&db, &["countdown", "list"]).contains("■■□□□□"));
    ok(&db, &["countdown", "create", "The bridge collapses", "4"]);
    ok(&db, &["countdown", "erase", "the bridge collapses"]);
    assert!(!ok(&db, &["countdown", "list"]).contains("bridge"), "erased when the threat is stopped");
    assert!(fails(&db, &["countdown", "mark", "The bridge collapses"]).contains("no countdown named"));

    // The log holds both sessions.
    let log = ok(&db, &["log"]);
    for kind in
        ["character.create", "problem.settle", "conflict.end", "rest", "character.level_up", "countdown.mark"]
    {
        assert!(log.contains(kind), "{kind} missing from the log");
    }
    // Sheets print as text and HTML, and travel as JSON.
    assert!(ok(&db, &["character", "show", "Ada"]).contains("Quick Jab"));
    let html = dir.path().join("ada.html");
    ok(&db, &["character", "show", "Ada", "--html", html.to_str().unwrap()]);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("Quick Jab"));
    let export = dir.path().join("ada.json");
    ok(&db, &["character", "export", "Ada", "--out", export.to_str().unwrap()]);
    let other = dir.path().join("other.sqlite");
    ok(&other, &["character", "import", export.to_str().unwrap()]);
    assert_eq!(sheet(&other, "Ada"), sheet(&db, "Ada"));
}

#[test]
fn bad_input_gets_a_clear_error_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.sqlite");
    ok(&db, &["character", "create", "--file", &ex("campaign/ada.toml")]);
    let before = ok(&db, &["character", "export", "Ada"]);
    let log_before = ok(&db, &["log"]);
    // An invalid sheet.
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"character": {"name": "Cy", "energy": {"defend": 5, "grapple": 5, "attack": 5}, "moves": []}}"#,
    )
    .unwrap();
    assert!(fails(&db, &["character", "create", "--file", bad.to_str().unwrap()]).contains("10 points"));
    // A name that does not exist.
    assert!(fails(&db, &["character", "show", "Nobody"]).contains("no player character named \"Nobody\""));
    // A level-up without three marks.
    assert!(
        fails(&db, &["character", "level-up", "Ada", "--advance", "move ◆☵"]).contains("all three questions")
    );
    // An option Ada cannot afford.
    ok(&db, &["problem", "start", "x", "--player", "Ada"]);
    assert!(
        fails(&db, &["problem", "choose", "1", "Ada", "2", "--background", "painter"]).contains("painter")
    );
    assert!(fails(&db, &["problem", "choose", "1", "Ada", "5"]).contains("1, 2, 3 or 4"));
    assert!(fails(&db, &["countdown", "create", "x", "3"]).contains("4 to 8"));
    assert!(fails(&db, &["conflict", "start", "--pc", "Ada", "--npc", "Ghost"]).contains("no NPC named"));
    assert_eq!(ok(&db, &["character", "export", "Ada"]), before);
    let log_after = ok(&db, &["log"]);
    assert_eq!(
        log_after.lines().count(),
        log_before.lines().count() + 1,
        "only the problem start was logged"
    );
}

#[test]
fn a_character_is_created_by_answering_questions() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.sqlite");
    let answers =
        "Cy\nMantis\nTall\n\nWin the tournament\nHonour\nPride\n5 5 5\n3 3 4\nHook\n\n\nmonk 2\nthief 1\n";
    let o = run(&db, &["character", "create"], answers);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("Not accepted"), "5 5 5 is refused by §4 and asked again: {out}");
    let cy = sheet(&db, "Cy");
    assert_eq!(cy["character"]["energy"], serde_json::json!({"defend": 3, "grapple": 3, "attack": 4}));
    assert_eq!(cy["character"]["moves"][0]["name"], "Hook");
    assert_eq!(cy["backgrounds"].as_array().unwrap().len(), 2);
    // The input ending early creates nothing.
    let o = run(&db, &["character", "create"], "Dee\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(run(&db, &["character", "show", "Dee"], "").status.code() == Some(2));
}

#[test]
fn a_replacement_continues_a_dead_characters_style() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.sqlite");
    ok(&db, &["character", "create", "--file", &ex("campaign/ada.toml")]);
    // Ada is at level 0: a replacement starts at level 0 too.
    ok(&db, &["character", "death", "Ada"]);
    let new = dir.path().join("cy.toml");
    std::fs::write(
        &new,
        "[character]\nname = \"Cy\"\nenergy = { defend = 3, grapple = 3, attack = 4 }\nmoves = [\n  { name = \"a\", move = \"○☵\" },\n  { name = \"b\", move = \"▨☷\" },\n  { name = \"c\", move = \"◆☲\" },\n]\n",
    )
    .unwrap();
    assert!(
        fails(&db, &["character", "replace", "Ada", "--file", new.to_str().unwrap(), "--advance", "move ◆☵"])
            .contains("level 0 to 0")
    );
    let out = ok(&db, &["character", "replace", "Ada", "--file", new.to_str().unwrap()]);
    assert!(out.contains("Cy replaces Ada at level 0"), "{out}");
    assert_eq!(sheet(&db, "Cy")["character"]["fighting_style"], "Dirty Boxing");
    assert!(fails(&db, &["conflict", "start", "--pc", "Ada", "--npc", "x"]).contains("dead"));
}

#[test]
fn a_campaign_conflict_pauses_and_resumes_from_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.sqlite");
    ok(&db, &["character", "create", "--file", &ex("campaign/ada.toml")]);
    ok(&db, &["npc", "add", &ex("characters/ninja.toml")]);
    ok(&db, &["conflict", "start", "--pc", "Ada", "--npc", "Ninja"]);
    // Ada's commands come from an empty script: the game pauses at her first decision.
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let paused = ok(&db, &["conflict", "play", "--bot", "gm=greedy", "--script", empty.to_str().unwrap()]);
    assert!(paused.contains("paused") && paused.contains("kept in the campaign"), "{paused}");
    let status = json(&db, &["status"]);
    assert_eq!(status["running_conflict"], 1);
    let done = ok(&db, &["conflict", "play", "--bot", "all=greedy"]);
    assert!(done.contains("Conflict 1 is over"), "{done}");
    assert_eq!(json(&db, &["status"])["running_conflict"], serde_json::Value::Null);
    assert!(fails(&db, &["conflict", "play"]).contains("no conflict is running"));
}

/// Issue 14's bug: a GM adjustment made a campaign conflict impossible to continue, because its
/// stored events were checked against the legal commands, which never list an adjustment.
/// Commands are the record now: the adjustment is stored as given and replayed.
#[test]
fn a_campaign_conflict_with_an_adjustment_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.sqlite");
    ok(&db, &["character", "create", "--file", &ex("campaign/ada.toml")]);
    ok(&db, &["npc", "add", &ex("characters/ninja.toml")]);
    ok(&db, &["conflict", "start", "--pc", "Ada", "--npc", "Ninja"]);
    let script = dir.path().join("adjust.jsonl");
    std::fs::write(
        &script,
        r#"{"seat": "gm", "command": {"adjust_energy": {"fighter": "Ada", "energy": {"defend": 1, "grapple": 1, "attack": 1}, "reason": "a fall"}}}"#,
    )
    .unwrap();
    let paused = ok(&db, &["conflict", "play", "--script", script.to_str().unwrap()]);
    assert!(paused.contains("paused"), "{paused}");
    let done = ok(&db, &["conflict", "play", "--bot", "all=greedy"]);
    assert!(done.contains("Conflict 1 is over"), "{done}");
    assert!(done.contains("energy ○1 ▨1 ◆1"), "the conflict resumes after the adjustment: {done}");
}

#[test]
fn the_earlier_edition_levels_up_with_two_marks() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.sqlite");
    ok(&db, &["init", "--edition", "earlier"]);
    ok(&db, &["character", "create", "--file", &ex("campaign/ada.toml")]);
    ok(&db, &["character", "goal", "Ada"]);
    fails(&db, &["character", "level-up", "Ada", "--advance", "energy grapple"]);
    ok(&db, &["problem", "start", "x", "--player", "Ada"]);
    ok(&db, &["problem", "choose", "1", "Ada", "4"]);
    ok(&db, &["problem", "reveal", "1"]);
    ok(&db, &["problem", "settle", "1"]);
    assert!(fails(&db, &["character", "level-up", "Ada", "--advance", "special Insight"]).contains("three"));
    let up = ok(&db, &["character", "level-up", "Ada", "--advance", "energy grapple"]);
    assert!(up.contains("level 1"), "{up}");
    assert_eq!(sheet(&db, "Ada")["character"]["energy"]["grapple"], 3);
}
