//! End-to-end tests of `facedown inciting-incident play`, running the built binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_facedown");

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/inciting-incident")
        .join(name)
        .display()
        .to_string()
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("facedown-ii-play-{}-{name}", std::process::id()))
}

fn play(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(BIN)
        .args(["inciting-incident", "play"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn bot_scenes_finish_show_every_die_and_replay_with_the_same_seeds() {
    for name in ["river-fight.toml", "cover-up.toml"] {
        let a = play(&[&example(name), "--bot", "all=random", "--seed", "4"], "");
        assert!(a.status.success(), "{name}: {}", stderr(&a));
        let text = stdout(&a);
        assert!(text.contains("== Round 1 =="), "{text}");
        assert!(text.contains("The scene is over"), "{text}");
        assert!(text.contains("has declared."), "declarations are shown face down first");
        let b = play(&[&example(name), "--bot", "all=random", "--seed", "4"], "");
        assert_eq!(stdout(&a), stdout(&b));
    }
    let a = stdout(&play(
        &[&example("river-fight.toml"), "--bot", "all=random", "--seed", "4", "--dice-seed", "99"],
        "",
    ));
    assert!(a.contains(" = "), "rolls list their dice and total: {a}");
}

#[test]
fn json_mode_prints_events_and_the_final_view() {
    let o = play(&[&example("river-fight.toml"), "--bot", "all=random", "--json"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    for l in &lines {
        let _: serde_json::Value = serde_json::from_str(l).expect("every line is JSON");
    }
    let view: serde_json::Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    assert_eq!(view["phase"], "over");
    // Declarations are face down in the event stream.
    assert!(lines.iter().any(|l| l.contains("\"event\":\"declared\"") && l.contains("\"action\":null")));
    assert!(lines.iter().any(|l| l.contains("\"event\":\"rolled\"")));
}

const ROUND_ONE: &str = r#"{"seat": "bren", "command": {"declare": {"character": "Bren", "action": {"regular": {"target": {"character": "Y'ras'byn"}}}}}}
{"seat": "mira", "command": {"declare": {"character": "Mira", "action": "hold"}}}
{"seat": "gm", "command": {"declare": {"character": "Y'ras'byn", "action": {"regular": {"talent": "Fire magic", "target": {"character": "Bren"}}}}}}
{"seat": "gm", "command": {"declare": {"character": "Cult captain", "action": {"move": {"path": ["Shallows"]}}}}}
{"seat": "gm", "command": {"act": {"character": "Cult captain"}}}
"#;

#[test]
fn a_script_plays_a_round_with_names_and_the_save_resumes() {
    let script = temp("round1.jsonl");
    std::fs::write(&script, ROUND_ONE).unwrap();
    let save = temp("round1-save.json");
    let o = play(
        &[
            &example("river-fight.toml"),
            "--script",
            &script.display().to_string(),
            "--save",
            &save.display().to_string(),
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Bren: Regular Attack (automatic) on Y'ras'byn"), "{text}");
    assert!(text.contains("Cult captain moves to Shallows"), "{text}");
    assert!(text.contains("Cult captain joins the Duel in Shallows"), "{text}");
    assert!(text.contains("== Round 2 =="), "{text}");
    assert!(text.contains("Crisis +4"), "{text}");
    assert!(text.contains("paused"), "{text}");
    let o = play(&["--resume", &save.display().to_string(), "--bot", "all=random"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("Resuming"));
    assert!(stdout(&o).contains("The scene is over"));
    let _ = std::fs::remove_file(&script);
    let _ = std::fs::remove_file(&save);
}

#[test]
fn a_rejected_script_line_names_the_line_and_the_rule_and_exits_2() {
    let script = temp("bad.jsonl");
    std::fs::write(
        &script,
        r#"{"seat": "mira", "command": {"declare": {"character": "Bren", "action": "hold"}}}
"#,
    )
    .unwrap();
    let o = play(&[&example("river-fight.toml"), "--script", &script.display().to_string()], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("line 1") && stderr(&o).contains("does not play Bren"), "{}", stderr(&o));
    std::fs::write(
        &script,
        r#"{"seat": "bren", "command": {"declare": {"character": "Bren", "action": {"move": {"path": ["Rocks"]}}}}}
"#,
    )
    .unwrap();
    let o = play(&[&example("river-fight.toml"), "--script", &script.display().to_string()], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(!stderr(&o).contains('§'), "{}", stderr(&o));
    let _ = std::fs::remove_file(&script);
}

#[test]
fn hot_seat_players_pick_numbered_actions() {
    // Seats at the keyboard answer with numbers; option 1 is always "hold".
    let o = play(&[&example("river-fight.toml"), "--bot", "gm=random"], "1\n1\n");
    let text = stdout(&o);
    assert!(text.contains("===== Bren — seat bren (others look away) ====="), "{text}");
    assert!(text.contains("1. Bren: hold (no action)"), "{text}");
    assert!(text.contains("Bren: hold (no action)"));
    // The input ends before the scene: exit 2 without --save.
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn bad_scene_files_and_flags_get_clear_errors() {
    let bad = temp("bad.toml");
    std::fs::write(
        &bad,
        "title = \"x\"\nsides = [\"a\", \"a\"]\nseats = []\nregions = []\ncharacters = []\n",
    )
    .unwrap();
    let o = play(&[&bad.display().to_string()], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("two different"), "{}", stderr(&o));
    let o = play(&[&example("river-fight.toml"), "--bot", "gm=greedy"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("random"));
    let o = play(&["--resume", "/nonexistent/save.json"], "");
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_file(&bad);
}

#[test]
fn a_tampered_save_is_refused() {
    let script = temp("tamper.jsonl");
    std::fs::write(&script, ROUND_ONE).unwrap();
    let save = temp("tamper-save.json");
    let o = play(
        &[
            &example("river-fight.toml"),
            "--script",
            &script.display().to_string(),
            "--save",
            &save.display().to_string(),
        ],
        "",
    );
    assert!(o.status.success());
    let text = std::fs::read_to_string(&save).unwrap();
    // The save holds commands and the hash of the events they derive: a changed hash (or a
    // changed command) no longer matches the replay.
    let hash = text.find("\"hash\": \"").expect("the events hash") + 9;
    let mut tampered = text.clone();
    tampered.replace_range(hash..hash + 1, if &text[hash..hash + 1] == "0" { "1" } else { "0" });
    assert_ne!(text, tampered);
    std::fs::write(&save, tampered).unwrap();
    let o = play(&["--resume", &save.display().to_string(), "--bot", "all=random"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("replays differently"), "{}", stderr(&o));
    let _ = std::fs::remove_file(&script);
    let _ = std::fs::remove_file(&save);
}

#[test]
fn json_scene_files_work_like_toml_ones() {
    let text = std::fs::read_to_string(example("river-fight.toml")).unwrap();
    let value: serde_json::Value = toml::from_str(&text).unwrap();
    let json = temp("river-fight.json");
    std::fs::write(&json, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    let a = play(&[&json.display().to_string(), "--bot", "all=random", "--seed", "3"], "");
    let b = play(&[&example("river-fight.toml"), "--bot", "all=random", "--seed", "3"], "");
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(stdout(&a), stdout(&b));
    let _ = std::fs::remove_file(&json);
}

#[test]
fn the_gm_ends_the_scene_from_a_script_a_player_seat_cannot() {
    let script = temp("end.jsonl");
    let save = temp("end-save.json");
    // A player's seat is refused with the rule; exit 2.
    std::fs::write(
        &script,
        r#"{"seat": "bren", "command": {"end_scene": {"winner": "players"}}}
"#,
    )
    .unwrap();
    let o = play(&[&example("river-fight.toml"), "--script", &script.display().to_string()], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("line 1") && stderr(&o).contains("only the GM may end the scene"),
        "{}",
        stderr(&o)
    );
    // The GM ends it mid-round, after one face-down declaration; the save replays.
    std::fs::write(
        &script,
        r#"{"seat": "mira", "command": {"declare": {"character": "Mira", "action": "hold"}}}
{"seat": "gm", "command": {"end_scene": {"winner": "players"}}}
"#,
    )
    .unwrap();
    let args = [
        &example("river-fight.toml"),
        "--script",
        &script.display().to_string(),
        "--save",
        &save.display().to_string(),
    ];
    let o = play(&args, "");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("The scene is over: the GM ends the scene in favour of players — players win."),
        "{text}"
    );
    let o = play(&["--resume", &save.display().to_string(), "--json"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(r#""by_gm":true"#), "{}", stdout(&o));
    let _ = std::fs::remove_file(&script);
    let _ = std::fs::remove_file(&save);
}

#[test]
fn hot_seat_gm_menu_offers_ending_the_scene_bots_never_take_it() {
    // Bren and Mira hold; the GM's menu ends with the three endings.
    let o = play(&[&example("river-fight.toml")], "1\n1\n");
    let text = stdout(&o);
    let players = text.split("===== The GM — seat gm").next().unwrap_or_default();
    assert!(players.contains("===== Mira — seat mira"), "{text}");
    assert!(!players.contains("end the scene now"), "players' menus have no ending: {text}");
    let o = play(&[&example("river-fight.toml"), "--bot", "bren=random", "--bot", "mira=random"], "");
    let text = stdout(&o);
    assert!(text.contains("===== The GM — seat gm"), "{text}");
    assert!(text.contains("GM: end the scene now, without a winner"), "{text}");
    assert!(text.contains("GM: end the scene now, enemies win"), "{text}");
    // Bots (GM included) play many scenes to the rules' end, never the GM's call.
    for seed in 0..8 {
        let seed = seed.to_string();
        let o = play(&[&example("river-fight.toml"), "--bot", "all=random", "--seed", &seed, "--json"], "");
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(!stdout(&o).contains("by_gm"), "{}", stdout(&o));
    }
}

#[test]
fn a_skill_adds_its_own_crisis_trigger_and_a_climber_passes_the_blocker() {
    let script = temp("skills.jsonl");
    let save = temp("skills-save.json");
    std::fs::write(
        &script,
        r#"{"seat": "bren", "command": {"declare": {"character": "Bren", "action": {"advanced": {"talent": "Icy blade", "action": 0}}}}}
{"seat": "mira", "command": {"declare": {"character": "Mira", "action": {"move": {"path": ["Shallows"]}}}}}
{"seat": "gm", "command": {"declare": {"character": "Y'ras'byn", "action": "hold"}}}
{"seat": "gm", "command": {"declare": {"character": "Cult captain", "action": "hold"}}}
"#,
    )
    .unwrap();
    let o = play(
        &[
            &example("river-fight.toml"),
            "--script",
            &script.display().to_string(),
            "--save",
            &save.display().to_string(),
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Bren adds a Crisis Trigger at 6: Bren's battle fury: an extra action"), "{text}");
    assert!(text.contains("Mira moves to Shallows"), "{text}");
    let _ = std::fs::remove_file(&script);
    let _ = std::fs::remove_file(&save);
}

#[test]
fn a_script_naming_a_talent_of_a_character_number_that_does_not_exist_exits_2() {
    let script = temp("nochar.jsonl");
    for character in ["9", "300"] {
        std::fs::write(
            &script,
            format!(
                r#"{{"seat": "gm", "command": {{"declare": {{"character": {character}, "action": {{"decisive": {{"talent": "Fire magic", "target": {{"character": "Bren"}}}}}}}}}}}}
"#
            ),
        )
        .unwrap();
        let o = play(&[&example("river-fight.toml"), "--script", &script.display().to_string()], "");
        assert_eq!(o.status.code(), Some(2), "character {character}: {}", stderr(&o));
        assert!(stderr(&o).contains("line 1") && stderr(&o).contains(character), "{}", stderr(&o));
    }
    let _ = std::fs::remove_file(&script);
}

/// A scene nobody can win: the two sides stand in Regions with no way between them.
const STALEMATE: &str = r#"
title = "Stalemate"
sides = ["heroes", "villains"]
[[seats]]
name = "h"
side = "heroes"
[[seats]]
name = "v"
side = "villains"
[[regions]]
name = "A"
[[regions]]
name = "B"
[[regions]]
name = "C"
[[characters]]
seat = "h"
region = "A"
[characters.sheet]
name = "H"
abilities = { fortitude = 3, perseverance = 3, nimbleness = 3 }
max_hits = 2
defences.resilience = { rv = 5, rd = 2 }
defences.resolve = { rv = 5, rd = 2 }
defences.reactions = { rv = 5, rd = 2 }
[[characters]]
seat = "v"
region = "C"
[characters.sheet]
name = "V"
abilities = { fortitude = 3, perseverance = 3, nimbleness = 2 }
max_hits = 2
defences.resilience = { rv = 5, rd = 2 }
defences.resolve = { rv = 5, rd = 2 }
defences.reactions = { rv = 5, rd = 2 }
"#;

/// Runs `play` and fails (instead of hanging) when it has not ended after a minute.
fn play_with_deadline(args: &[&str]) -> Output {
    let mut child = Command::new(BIN)
        .args(["inciting-incident", "play"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("play did not end within a minute: a bot-only game must end");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn round_limit_ends_a_bot_only_game_and_says_so() {
    let file = temp("stalemate.toml");
    std::fs::write(&file, STALEMATE).unwrap();
    let file = file.display().to_string();
    // The default limit: 100 rounds.
    let o = play_with_deadline(&[&file, "--bot", "all=random"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("== Round 100 ==") && !text.contains("== Round 101 =="), "{text}");
    assert!(text.contains("Stopped by the round limit: 100 rounds"), "{text}");
    // A flag overrides it (and the scene file's own max_rounds).
    let o = play_with_deadline(&[&file, "--bot", "all=random", "--max-rounds", "3"]);
    let text = stdout(&o);
    assert!(text.contains("== Round 3 ==") && !text.contains("== Round 4 =="), "{text}");
    assert!(text.contains("Stopped by the round limit: 3 rounds"), "{text}");
    let o = play_with_deadline(&[&example("river-fight.toml"), "--bot", "all=random", "--max-rounds", "1"]);
    assert!(stdout(&o).contains("Stopped by the round limit: 1 round "), "{}", stdout(&o));
    let o = play_with_deadline(&[&file, "--bot", "all=random", "--max-rounds", "0"]);
    assert_eq!(o.status.code(), Some(2), "a limit is at least 1");
}

#[test]
fn rest_scenes_and_death_hits_inside_play() {
    // --rest N: after the scene the GM holds daily Rest Scenes with the crate's §9 rules.
    let o = play(&[&example("river-fight.toml"), "--bot", "all=random", "--seed", "1", "--rest", "2"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let end = text.find("The scene is over").expect("the scene ends");
    let rest = text[end..].find("== Rest Scene ==").expect("a Rest Scene after the end");
    assert!(text[end + rest..].contains("rest roll") && text.contains("Death Hits"), "{text}");
    // A script may hold them too, in the GM's name, after the end; a player may not.
    let script = temp("rest.jsonl");
    std::fs::write(
        &script,
        "{\"seat\": \"gm\", \"command\": {\"end_scene\": {}}}\n{\"seat\": \"gm\", \"command\": {\"rest_scene\": {\"full_day\": true}}}\n",
    )
    .unwrap();
    let o = play(&[&example("river-fight.toml"), "--script", &script.display().to_string()], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("== A whole day of rest =="), "{}", stdout(&o));
    std::fs::write(&script, "{\"seat\": \"gm\", \"command\": {\"rest_scene\": {}}}\n").unwrap();
    let o = play(&[&example("river-fight.toml"), "--script", &script.display().to_string()], "");
    assert_eq!(o.status.code(), Some(2), "no Rest Scene before the end");
    assert!(stderr(&o).contains("Rest Scene comes after"), "{}", stderr(&o));
    // Without a GM seat there is nobody to hold them.
    let file = temp("stalemate-rest.toml");
    std::fs::write(&file, STALEMATE).unwrap();
    let o =
        play(&[&file.display().to_string(), "--bot", "all=random", "--max-rounds", "1", "--rest", "1"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no GM seat"), "{}", stderr(&o));
}

#[test]
fn three_factions_example_two_ally_until_the_third_is_beaten() {
    let o = play(&[&example("three-factions.toml"), "--bot", "all=random", "--seed", "10"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let ends = text.find("the alliance ends: smugglers turn on watch").expect(&text);
    let over = text.find("The scene is over").expect(&text);
    assert!(ends < over, "{text}");
    assert!(text[ends..].contains("A Duel starts") || text[ends..].contains("Flow 0"), "{text}");
}

#[test]
fn rising_tension_spent_by_the_gm_in_a_script() {
    let scene = temp("tension.toml");
    let text = std::fs::read_to_string(example("cover-up.toml")).unwrap();
    std::fs::write(&scene, format!("rising_tension = {{ pool = 2 }}\n{text}")).unwrap();
    let script = temp("tension.jsonl");
    std::fs::write(
        &script,
        "{\"seat\": \"gm\", \"command\": {\"spend_tension\": {\"side\": \"conspiracy\", \"strikes\": 2}}}\n\
         {\"seat\": \"gm\", \"command\": {\"spend_tension\": {\"side\": \"conspiracy\", \"strikes\": 1}}}\n",
    )
    .unwrap();
    let o = play(&[&scene.display().to_string(), "--script", &script.display().to_string()], "");
    let out = stdout(&o);
    assert!(out.contains("The GM spends Rising Tension: conspiracy gain 2 Strike(s)"), "{out}");
    assert_eq!(o.status.code(), Some(2), "the second spend is more than the GM has left");
    assert!(stderr(&o).contains("Rising Tension"), "{}", stderr(&o));
}

#[test]
fn flowjump_repro_duel_in_b_reforms_at_plus_12() {
    // The audit's reproduction (kept in the crate's test data): after round 6 the Duel in B,
    // broken up only by H1's Incapacitation, re-forms at +12, its own Flow.
    let data = |n: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../inciting-incident/tests/data")
            .join(n)
            .display()
            .to_string()
    };
    let save = temp("flowjump.json");
    let o = play(
        &[&data("flowjump.toml"), "--script", &data("flowjump.jsonl"), "--save", &save.display().to_string()],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let round6 = text.find("== Round 6 ==").expect(&text);
    assert!(text[round6..].contains("A Duel starts in B at Flow +12"), "{text}");
    assert!(!text[round6..].contains("A Duel starts in B at Flow +4"), "{text}");
}

#[test]
fn the_gm_adjusts_hits_flow_and_crisis_from_a_script_and_the_save_resumes() {
    let script = temp("adjust.jsonl");
    std::fs::write(
        &script,
        r#"{"seat": "gm", "command": {"adjust": {"crisis": {"crisis": 5}, "reason": "forgot a move"}}}
{"seat": "gm", "command": {"adjust": {"hits": {"character": "Cult captain", "hits": 1}, "reason": "the spear hit"}}}
{"seat": "gm", "command": {"adjust": {"flow": {"duel": "Shallows", "flow": -2}, "reason": "misread"}}}
{"seat": "bren", "command": {"declare": {"character": "Bren", "action": "hold"}}}
"#,
    )
    .unwrap();
    let save = temp("adjust-save.json");
    let o = play(
        &[
            &example("river-fight.toml"),
            "--script",
            &script.display().to_string(),
            "--save",
            &save.display().to_string(),
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("The GM adjusts the Crisis pool: 0 → 5 (reason: forgot a move)"), "{text}");
    assert!(text.contains("The GM adjusts Cult captain's hits: 0/2 → 1/2 (reason: the spear hit)"), "{text}");
    assert!(
        text.contains("The GM adjusts the Flow of Battle in Shallows: +0 → -2 (reason: misread)"),
        "{text}"
    );
    // A save holding adjustments resumes (its log is checked, adjustments included).
    let o = play(&["--resume", &save.display().to_string(), "--bot", "all=random"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("Resuming"), "{}", stdout(&o));
    // A player's seat may not adjust: the rule is named, exit 2.
    std::fs::write(
        &script,
        r#"{"seat": "mira", "command": {"adjust": {"crisis": {"crisis": 0}, "reason": "please"}}}
"#,
    )
    .unwrap();
    let o = play(&[&example("river-fight.toml"), "--script", &script.display().to_string()], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("only the GM may adjust") && stderr(&o).contains("Decision 30"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_file(&script);
    let _ = std::fs::remove_file(&save);
}

#[test]
fn hot_seat_gm_types_an_adjustment_at_its_prompt() {
    let o = play(
        &[&example("river-fight.toml"), "--max-rounds", "1"],
        "1\n1\n{\"adjust\": {\"hits\": {\"character\": \"Cult captain\", \"hits\": 1}, \"reason\": \"the spear hit\"}}\n\
         {\"adjust\": {\"crisis\": {\"crisis\": \"x\"}, \"reason\": \"y\"}}\n1\n1\n",
    );
    let text = stdout(&o);
    assert!(text.contains("The GM adjusts Cult captain's hits: 0/2 → 1/2 (reason: the spear hit)"), "{text}");
    assert!(text.contains("Not accepted: not a command"), "{text}");
}

/// Saves of facedown before the session layer held events, not commands: refused, saying so.
#[test]
fn an_old_inciting_incident_save_is_refused_as_an_old_format() {
    let old = temp("old.json");
    std::fs::write(&old, "{\"initial\": {\"round\": 1}, \"events\": []}\n").unwrap();
    let o = play(&["--resume", old.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is a save of the old format"), "{}", stderr(&o));
    let _ = std::fs::remove_file(old);
}

/// Issue 14, part 5, in a scene: a declaration is taken back before the reveal, and the GM's
/// adjustment is undone; the save keeps both and resumes.
#[test]
fn a_declaration_is_taken_back_and_the_gms_adjustment_undone() {
    let script = temp("undo.jsonl");
    std::fs::write(
        &script,
        r#"{"seat": "gm", "command": {"adjust": {"crisis": {"crisis": 5}, "reason": "forgot a move"}}}
{"seat": "gm", "undo": true}
{"seat": "bren", "command": {"declare": {"character": "Bren", "action": "hold"}}}
{"seat": "bren", "take_back": true}
{"seat": "bren", "command": {"declare": {"character": "Bren", "action": "hold"}}}
"#,
    )
    .unwrap();
    let save = temp("undo-save.json");
    let o = play(
        &[
            &example("river-fight.toml"),
            "--script",
            &script.display().to_string(),
            "--save",
            &save.display().to_string(),
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("The GM adjusts the Crisis pool: 0 → 5"), "{text}");
    assert!(
        text.contains("The GM (seat gm) undoes the last command of seat gm, which is asked again."),
        "{text}"
    );
    assert!(text.contains("bren takes back a face-down choice."), "{text}");
    let o = play(&["--resume", &save.display().to_string(), "--bot", "all=random"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let _ = std::fs::remove_file(&script);
    let _ = std::fs::remove_file(&save);
}

/// Issue 34, the log: a seeded 12-round river fight of bots, as `play` prints it. Each roll is
/// one line with its dice; every attack's result is said where it is resolved (a line
/// `Result: …` before the next action), and every round's (the Flow of Battle of each Duel
/// fought) at its end — about 400 lines for the whole scene (the scene file's dice seed, the
/// bots' seed 0), not one line a die.
#[test]
fn a_seeded_twelve_round_scene_says_each_attack_and_round_result_a_line_a_roll() {
    let o =
        play(&[&example("river-fight.toml"), "--bot", "all=random", "--seed", "0", "--max-rounds", "12"], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.len() < 600, "{} lines", lines.len());
    // A roll is one line, its dice and total on it.
    let rolls: Vec<&&str> = lines.iter().filter(|l| l.contains(" roll: ") || l.contains(" Roll: ")).collect();
    assert!(!rolls.is_empty());
    let dice_first =
        |l: &str| l.split(": ").nth(1).is_some_and(|r| r.starts_with('d') || r.starts_with("(d"));
    assert!(rolls.iter().all(|l| l.contains(" = ") && dice_first(l)), "{rolls:?}");
    assert!(!out.contains("Draw #"), "no line a draw");
    // Each attack started has its result before the next action starts.
    let mut attacks = 0;
    let mut open: Option<&str> = None;
    for l in &lines {
        let starts_action =
            !l.starts_with(' ') && (l.contains(": Regular Attack") || l.contains(": Decisive Attack"));
        let other_start =
            !l.starts_with(' ') && !starts_action && l.contains(": ") && !l.starts_with("Round");
        if starts_action || other_start || l.starts_with("Round ") || l.starts_with("-- ") {
            assert!(open.is_none(), "no result for {open:?} before {l:?}");
        }
        if starts_action {
            attacks += 1;
            open = Some(l);
        }
        if l.trim_start().starts_with("Result: ") {
            assert!(open.take().is_some(), "a result with no attack: {l}");
        }
    }
    assert!(attacks > 5, "{attacks} attacks");
    // Every round ends saying where it leaves the Duels.
    let ends: Vec<&&str> = lines.iter().filter(|l| l.starts_with("Round ") && l.contains(" ends.")).collect();
    assert_eq!(ends.len(), 12, "twelve rounds");
    assert!(
        ends.iter().all(|l| l.contains("Flow of Battle: ") || l.contains("No Duel is being fought.")),
        "{ends:?}"
    );
}
