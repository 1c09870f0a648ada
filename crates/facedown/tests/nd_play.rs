//! End-to-end tests of `facedown nodice play`, running the built binary over the examples.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_facedown");

/// Kara's Aspect card with an intent, typed as a JSON command at her prompt.
const CHARGE: &str = "{\"commit_aspect\": {\"actor\": \"Kara\", \"aspect\": \"body\", \"ante\": \"STR\", \"targets\": [\"Bandit\"], \"intent\": \"I charge\"}}";

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/nodice")
}

fn example(name: &str) -> String {
    examples().join(name).to_str().unwrap().to_owned()
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("facedown-nd-play-{}-{name}", std::process::id()))
}

fn play(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(BIN)
        .args(["nodice", "play"])
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
fn bot_games_of_every_example_finish_and_the_same_seed_replays() {
    for file in ["pc-vs-bandit.toml", "brawl-3.toml", "door.toml", "ruin.toml"] {
        let run = |seed: &str| play(&[&example(file), "--bot", "all=random", "--seed", seed], "");
        let (a, b) = (run("5"), run("5"));
        assert!(a.status.success(), "{file}: {}", stderr(&a));
        assert!(stdout(&a).contains("The Conflict is over"), "{file}: {}", stdout(&a));
        assert_eq!(stdout(&a), stdout(&b), "{file}");
    }
}

#[test]
fn greedy_bots_play_every_example_to_the_end() {
    for file in ["pc-vs-bandit.toml", "brawl-3.toml", "door.toml", "ruin.toml"] {
        let run = || play(&[&example(file), "--bot", "all=random", "--bot", "gm=greedy", "--seed", "2"], "");
        let (a, b) = (run(), run());
        assert!(a.status.success(), "{file}: {}", stderr(&a));
        assert!(stdout(&a).contains("The Conflict is over"), "{file}: {}", stdout(&a));
        assert_eq!(stdout(&a), stdout(&b), "{file}");
    }
    let o = play(&[&example("pc-vs-bandit.toml"), "--bot", "all=greedy"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("The Conflict is over"), "{}", stdout(&o));
}

#[test]
fn json_mode_prints_events_and_the_final_view() {
    let o = play(&[&example("pc-vs-bandit.toml"), "--bot", "all=random", "--json"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // Each update in the session's form: {"seq", "kind", "event", "text"}.
    assert!(lines.iter().any(|l| l["event"] == "aspects_revealed"));
    let last = lines.last().unwrap();
    assert_eq!(last["phase"]["step"], "over");
    // Face-down cards are never in the spectator's log.
    for l in &lines {
        if let Some(c) = l["event"].get("aspect_committed") {
            assert!(c["card"].is_null(), "{l}");
        }
        if let Some(c) = l["event"].get("action_committed") {
            assert!(c["card"].is_null(), "{l}");
        }
    }
}

#[test]
fn scripted_hand_saves_and_resumes_to_the_end() {
    let save = temp("save.json");
    let o = play(
        &[
            &example("pc-vs-bandit.toml"),
            "--script",
            &example("pc-vs-bandit.script.jsonl"),
            "--save",
            save.to_str().unwrap(),
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Showdown Totals 8 – 3"), "{out}");
    assert!(out.contains("Bandit takes it: STR −3, AGI −2."), "{out}");
    assert!(out.contains("paused"), "{out}");
    // A hand-edited save (Kara's bid raised over her cap) is refused by the rules on replay.
    let text = std::fs::read_to_string(&save).unwrap();
    assert!(text.contains("\\\"bid\\\":4"), "{text}");
    let edited = temp("edited.json");
    std::fs::write(&edited, text.replacen("\\\"bid\\\":4", "\\\"bid\\\":9", 1)).unwrap();
    let o = play(&["--resume", edited.to_str().unwrap(), "--bot", "all=random"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("command 3 of the record is refused: a bid of 9"), "{}", stderr(&o));
    let o = play(&["--resume", save.to_str().unwrap(), "--bot", "all=random"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("Resuming"));
    assert!(stdout(&o).contains("The Conflict is over"));
    let _ = std::fs::remove_file(save);
    let _ = std::fs::remove_file(edited);
}

#[test]
fn hot_seat_hides_the_other_seats_cards_until_the_reveal() {
    // The intent goes with a command typed as JSON; the menus take the rest.
    let input = format!("{CHARGE}\nwil\nstr 4 wildcard\npre 3\nint 3\nstr 3 agi 2\n");
    let o = play(&[&example("pc-vs-bandit.toml")], &input);
    let out = stdout(&o);
    // The GM's screen, before the reveal: Kara's card is face down, her intent is public.
    let gm = out.find("===== The GM — seat gm (others look away) =====").expect("the GM is asked");
    let gm_screen = &out[gm..out[gm..].find("gm> ").map(|i| gm + i).unwrap()];
    assert!(gm_screen.contains("Aspect card: face down"), "{gm_screen}");
    assert!(gm_screen.contains("Intent: \"I charge\""), "{gm_screen}");
    assert!(!gm_screen.contains("ante STR"), "{gm_screen}");
    assert!(out.contains("Kara played Body (ante 1 STR)"), "{out}");
    assert!(out.contains("Kara against Bandit: Trine Dominance Kara, Attribute Dominance Kara, Sweep for Kara; Showdown Totals 8 – 3"), "{out}");
    // NPC stat blocks stay hidden from the player.
    assert!(out.contains("Bandit: stat block hidden (GM only)"), "{out}");
    // Input ran out: an error (status 2) asking for --save.
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--save"), "{}", stderr(&o));
}

#[test]
fn a_rejected_answer_is_asked_again_and_a_bad_script_line_stops_with_status_2() {
    let o = play(
        &[&example("pc-vs-bandit.toml")],
        "rea nobody\n{\"commit_aspect\": {\"actor\": \"Kara\", \"aspect\": \"body\", \"ante\": \"STR\", \"targets\": [\"nobody\"]}}\nstr\n",
    );
    let out = stdout(&o);
    assert!(out.contains("Not accepted: \"rea nobody\" is none of the choices"), "{out}");
    assert!(out.contains("Not accepted: there is no Actor named \"nobody\""), "{out}");
    let script = temp("bad.jsonl");
    std::fs::write(
        &script,
        "{\"seat\": \"kara\", \"command\": {\"commit_aspect\": {\"actor\": \"Kara\", \"aspect\": \"mind\", \"ante\": \"STR\", \"targets\": [\"Bandit\"]}}}\n",
    )
    .unwrap();
    let o = play(&[&example("pc-vs-bandit.toml"), "--script", script.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("STR is not a Mind Attribute"), "{}", stderr(&o));
    let _ = std::fs::remove_file(script);
}

#[test]
fn thing_shortened_notation_in_conflict_and_actor_files() {
    // The door example's actor file says FIT-4; an inline F1 works the same way.
    let file = temp("thing.toml");
    std::fs::write(
        &file,
        format!(
            "[[seats]]\nname = \"kara\"\n[[seats]]\nname = \"gm\"\nrole = \"gm\"\n\
             [[actors]]\nseat = \"kara\"\nsheet = {:?}\n\
             [[actors]]\nseat = \"gm\"\nname = \"Pot\"\nkind = \"abstract\"\nserial = \"F1\"\n",
            example("actors/kara.toml")
        ),
    )
    .unwrap();
    let o = play(&[file.to_str().unwrap(), "--bot", "all=random", "--json"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("\"Pot\""), "{}", stdout(&o));
    std::fs::write(
        &file,
        "[[seats]]\nname = \"a\"\n[[actors]]\nseat = \"a\"\nname = \"X\"\nserial = \"FIT-1 STR\"\n",
    )
    .unwrap();
    let o = play(&[file.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("X's serial \"FIT-1 STR\""), "{}", stderr(&o));
    assert!(stderr(&o).contains("e.g. FIT-1 or F1"), "{}", stderr(&o));
    let _ = std::fs::remove_file(file);
}

#[test]
fn inherits_the_ruin_example_merges_its_swamp_and_its_ghost() {
    // §3.4: the haunted ruin inherits its swamp and its ghost (Decision 30): the save's
    // initial state holds the merged stat block.
    let save = temp("ruin-save.json");
    let o = play(&[&example("ruin.toml"), "--bot", "all=random", "--save", save.to_str().unwrap()], "");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "no warnings: {}", stderr(&o));
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&save).unwrap()).unwrap();
    let setup: serde_json::Value =
        serde_json::from_str(saved["games"][0]["setup"].as_str().expect("the setup, as JSON text")).unwrap();
    let ruin = &setup["actors"][1];
    assert_eq!(ruin["name"], "Haunted ruin");
    // M1(-/-/5) from the swamp, B5(8/7/-) its own, S5(6/7/4) from the ghost.
    assert_eq!(ruin["statblock"]["attributes"], serde_json::json!([null, null, 5, 8, 7, null, 6, 7, 4]));
    let _ = std::fs::remove_file(save);
}

#[test]
fn inherits_errors_and_warnings_are_clear() {
    let dir = temp("inherits");
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    let conflict = |inherits: &str, kind: &str| {
        format!(
            "[[seats]]\nname = \"kara\"\n[[seats]]\nname = \"gm\"\nrole = \"gm\"\n\
             [[actors]]\nseat = \"kara\"\nsheet = {:?}\n\
             [[actors]]\nseat = \"gm\"\nname = \"Ruin\"\nkind = {kind:?}\nserial = \"B5(8/7/-)\"\n\
             inherits = [{inherits}]\n",
            example("actors/kara.toml")
        )
    };
    let run = |text: String| {
        write("c.toml", &text);
        play(&[dir.join("c.toml").to_str().unwrap(), "--bot", "all=random"], "")
    };
    // Only abstract Actors inherit.
    let o = run(conflict(&format!("{:?}", example("actors/ghost.toml")), "npc"));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("Ruin inherits sheets but is not an abstract Actor"), "{}", stderr(&o));
    // A missing sheet names the file.
    let o = run(conflict("\"nowhere.toml\"", "abstract"));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("Ruin inherits"), "{}", stderr(&o));
    assert!(stderr(&o).contains("nowhere.toml"), "{}", stderr(&o));
    // A sheet that inherits itself, through another.
    write("a.toml", "name = \"A\"\nkind = \"abstract\"\nserial = \"F1\"\ninherits = [\"b.toml\"]\n");
    write("b.toml", "name = \"B\"\nkind = \"abstract\"\nserial = \"S1\"\ninherits = [\"a.toml\"]\n");
    let o = run(conflict("\"a.toml\"", "abstract"));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("inherits itself"), "{}", stderr(&o));
    // A sheet that gives nothing is a warning, not an error.
    write("c2.toml", "name = \"Mud\"\nkind = \"abstract\"\nserial = \"FIT-3\"\n");
    let o = run(conflict("\"c2.toml\"", "abstract"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: Ruin takes nothing from Mud"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_files_and_flags_are_clear_errors() {
    let bad = temp("bad.toml");
    std::fs::write(
        &bad,
        "[[seats]]\nname = \"a\"\n[[actors]]\nseat = \"a\"\nname = \"X\"\nserial = \"M3(3/3)\"\n",
    )
    .unwrap();
    let o = play(&[bad.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("lists 2 values"), "{}", stderr(&o));
    let o = play(&[&example("pc-vs-bandit.toml"), "--bot", "gm=clever"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown bot kind"), "{}", stderr(&o));
    let corrupt = temp("corrupt.json");
    std::fs::write(&corrupt, "{\"format\": 1}").unwrap();
    let o = play(&["--resume", corrupt.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not a facedown save"), "{}", stderr(&o));
    let _ = std::fs::remove_file(bad);
    let _ = std::fs::remove_file(corrupt);
}

#[test]
fn hot_seat_brawl_with_several_targets_resolves_pairwise() {
    // Kara (UTG) targets both; the GM plays the Thug, then the Bandit.
    let input = "{\"commit_aspect\": {\"actor\": \"Kara\", \"aspect\": \"body\", \"ante\": \"STR\", \"targets\": [\"Thug\", \"Bandit\"], \"intent\": \"I flip the table onto both\"}}\nwil kara\nrea kara\nfit 2\npre 2\nkno 1\n";
    let o = play(&[&example("brawl-3.toml")], input);
    let out = stdout(&o);
    assert!(out.contains("Kara antes and plays an Aspect card face down, targeting Thug, Bandit: \"I flip the table onto both\""), "{out}");
    assert!(out.contains("Kara against Thug: Trine Dominance Kara"), "{out}");
    assert!(out.contains("Kara against Bandit: Trine Dominance Bandit"), "{out}");
    assert!(!out.contains("Thug against Bandit"), "the Thug and the Bandit do not target each other: {out}");
}

#[test]
fn a_spread_answer_too_large_to_add_up_is_asked_again_not_a_panic() {
    // Kara spreads the Bandit's 3 Spirit damage: two huge amounts on INT would overflow.
    let input = "str bandit\nwil\nstr 4 wildcard\npre 3\n{\"spread_damage\": {\"actor\": \"Kara\", \"spread\": [0, 0, 65535]}}\n";
    let o = play(&[&example("pc-vs-bandit.toml")], input);
    let out = stdout(&o);
    assert!(out.contains("Not accepted: "), "{out}\n{}", stderr(&o));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

fn repro(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/nd_repro").join(name).to_str().unwrap().to_owned()
}

/// Seed 002, Step 1 (UTG Assignment): "If there is a tie for most wins, UTG remains with
/// whoever was UTG in the preceding Hand" — also when one of the tied Actors was eliminated
/// during the Hand (the audit's reproduction: B and C tie with 2 wins, C is eliminated, UTG
/// must stay with A).
#[test]
fn utg_stays_on_a_tie_even_when_a_tied_actor_was_eliminated() {
    let o = play(&[&repro("nd_utg_tie.toml"), "--script", &repro("nd_utg_tie.jsonl")], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("C has no Mind left: eliminated"), "{out}");
    assert!(out.contains("=== Hand 2 — Stakes 1 (Low Stakes) — Under the Gun: A ==="), "{out}");
}

/// `nodice play --help` shows the conflict file as required unless `--resume` is given.
#[test]
fn play_help_shows_the_conflict_file_as_required_unless_resume() {
    let o = play(&["--help"], "");
    assert!(o.status.success());
    let out = stdout(&o);
    let usage = out.lines().find(|l| l.starts_with("Usage:")).unwrap();
    assert!(usage.contains("<CONFLICT_FILE|--resume <FILE>>"), "{usage}");
    assert!(out.contains("Required unless --resume is given"), "{out}");
    let o = play(&[], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("CONFLICT_FILE"), "{}", stderr(&o));
    let o = play(&[&example("pc-vs-bandit.toml"), "--resume", "x.json"], "");
    assert_eq!(o.status.code(), Some(2), "a file and --resume conflict");
}

/// Player-facing text is prose: no Debug formatting (`["Bandit"]`, `Exhausted(Mind)`, `Some(`)
/// and articles that fit the word ("an AGI", "an Agility token", never "a AGI").
fn assert_prose(out: &str) {
    for bad in ["[\"", "\"]", "[out:", "Exhausted(", "Some(", "None", "ActorId", "Targets("] {
        assert!(!out.contains(bad), "Debug text {bad:?} in:\n{out}");
    }
    let words: Vec<&str> = out.split_whitespace().collect();
    for w in words.windows(2) {
        let next = w[1].trim_start_matches(['"', '(']);
        if w[0] == "a" {
            assert!(
                !next.starts_with(['A', 'E', 'I', 'O', 'U', 'a', 'e', 'i', 'o', 'u']),
                "\"{} {}\" in:\n{out}",
                w[0],
                w[1]
            );
        }
    }
}

#[test]
fn narration_has_no_debug_formatting_and_articles_fit_the_word() {
    // Hot seat: the seat views show targets, and after C is eliminated, C's status.
    let input = "str b\nkno c\npre b\nstr 1\nrea 3\nwil 5\n";
    let o = play(&[&repro("nd_utg_tie.toml")], input);
    let out = stdout(&o);
    assert!(out.contains("Aspect card: Body (ante STR), targets B"), "{out}");
    assert!(out.contains("C (out: eliminated, Mind exhausted)"), "{out}");
    assert_prose(&out);
    let input = format!("{CHARGE}\nwil\nstr 4 wildcard\npre 3\nint 3\nstr 3 agi 2\n");
    assert_prose(&stdout(&play(&[&example("pc-vs-bandit.toml")], &input)));
    // Bot games over every example: pot tokens of every Attribute, eliminations, the summary.
    for file in ["pc-vs-bandit.toml", "brawl-3.toml", "door.toml", "ruin.toml"] {
        for seed in ["1", "2", "3"] {
            let o = play(&[&example(file), "--bot", "all=random", "--seed", seed], "");
            assert_prose(&stdout(&o));
        }
    }
}

/// A Conflict between bots must end: `--max-hands N` (default 200) stops the game after N
/// Hands; the rules end it as a stalemate after 10 quiet Hands (`nodice` tests).
#[test]
fn max_hands_stops_a_bot_game_after_n_hands() {
    let o = play(&[&example("pc-vs-bandit.toml"), "--bot", "all=random", "--max-hands", "1"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("stopped after 1 Hand(s) (--max-hands 1); the Conflict goes on"), "{out}");
    assert!(!out.contains("=== Hand 3"), "{out}");
    let o = play(&[&example("pc-vs-bandit.toml"), "--bot", "all=random", "--max-hands", "x"], "");
    assert_eq!(o.status.code(), Some(2));
}

/// Seed Step 3, Bluff Space Rule: after the reveal a player may add one justification line
/// (`justify: …` at a prompt, `{"justify": …}` in a script); everyone sees it.
#[test]
fn justification_line_after_the_reveal_is_shown_to_everyone() {
    // Hand 1 of the worked example; at the next prompt Kara justifies, then spreads.
    let justify = |line: &str| format!("{{\"justify\": {{\"actor\": \"Kara\", \"line\": \"{line}\"}}}}\n");
    let input =
        format!("{CHARGE}\nwil\nstr 4 wildcard\npre 3\n{}int 3\n", justify("I only wanted his map case"));
    let o = play(&[&example("pc-vs-bandit.toml")], &input);
    let out = stdout(&o);
    assert!(out.contains("Kara justifies: \"I only wanted his map case\""), "{out}");
    // Before the reveal it is refused and asked again.
    let o = play(&[&example("pc-vs-bandit.toml")], &justify("too early"));
    assert!(stdout(&o).contains("Not accepted: "), "{}", stdout(&o));
    // In a script, and refused with control characters.
    let script = temp("justify.jsonl");
    let mut lines = std::fs::read_to_string(examples().join("pc-vs-bandit.script.jsonl")).unwrap();
    lines.push_str("{\"seat\": \"gm\", \"command\": {\"justify\": {\"actor\": \"Bandit\", \"line\": \"bad\\u001b[2J\"}}}\n");
    std::fs::write(&script, lines).unwrap();
    let o = play(&[&example("pc-vs-bandit.toml"), "--script", script.to_str().unwrap()], "");
    let _ = std::fs::remove_file(&script);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stdout(&o).contains("Kara justifies: \"The map case hangs from his sword belt\""),
        "{}",
        stdout(&o)
    );
    assert!(stderr(&o).contains("control character"), "{}", stderr(&o));
}

/// §3.4 "Inherits": chains are bounded — a cycle, a chain deeper than 8 sheets, or more than
/// 64 sheets named in all (a small file that would expand exponentially) are clear errors.
#[test]
fn inherits_chains_refuse_cycles_and_are_bounded_in_depth_and_size() {
    let dir = temp("inherits-bounds");
    std::fs::create_dir_all(&dir).unwrap();
    let conflict = |root: &str| {
        format!(
            "[[seats]]\nname = \"p\"\n[[seats]]\nname = \"gm\"\nrole = \"gm\"\n\
             [[actors]]\nseat = \"p\"\nname = \"Kara\"\nkind = \"pc\"\nserial = \"M3(3/3/3)-B3(3/3/3)-S3(3/3/3)\"\n\
             [[actors]]\nseat = \"gm\"\nsheet = \"{root}\"\n"
        )
    };
    let sheet = |name: &str, inherits: &[String]| {
        let list: Vec<String> = inherits.iter().map(|i| format!("{i:?}")).collect();
        format!(
            "name = \"{name}\"\nkind = \"abstract\"\nserial = \"B1(1/1/1)\"\ninherits = [{}]\n",
            list.join(", ")
        )
    };
    // Exponential: w0 inherits w1 three times, w1 inherits w2 three times, … (3^6 sheets).
    for i in 0..7 {
        let next = format!("wide{}.toml", i + 1);
        let inherits = if i < 6 { vec![next.clone(), next.clone(), next] } else { vec![] };
        std::fs::write(dir.join(format!("wide{i}.toml")), sheet(&format!("W{i}"), &inherits)).unwrap();
    }
    std::fs::write(dir.join("wide.toml"), conflict("wide0.toml")).unwrap();
    let started = std::time::Instant::now();
    let o = play(&[dir.join("wide.toml").to_str().unwrap(), "--bot", "all=random"], "");
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("more than 64 sheets"), "{}", stderr(&o));
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    // Deep: a chain of 12 sheets, each inheriting the next once.
    for i in 0..12 {
        let inherits = if i < 11 { vec![format!("deep{}.toml", i + 1)] } else { vec![] };
        std::fs::write(dir.join(format!("deep{i}.toml")), sheet(&format!("D{i}"), &inherits)).unwrap();
    }
    std::fs::write(dir.join("deep.toml"), conflict("deep0.toml")).unwrap();
    let o = play(&[dir.join("deep.toml").to_str().unwrap(), "--bot", "all=random"], "");
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("deeper than 8 sheets"), "{}", stderr(&o));
    // A cycle through two sheets.
    std::fs::write(dir.join("ping.toml"), sheet("Ping", &["pong.toml".into()])).unwrap();
    std::fs::write(dir.join("pong.toml"), sheet("Pong", &["ping.toml".into()])).unwrap();
    std::fs::write(dir.join("cycle.toml"), conflict("ping.toml")).unwrap();
    let o = play(&[dir.join("cycle.toml").to_str().unwrap(), "--bot", "all=random"], "");
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("inherits itself"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Seed Step 1, Engagement (Decision 33): a conflict file's `engagement`, a script's
/// `engage` and the GM's `engage A,B | C,D` split a brawl into interaction clusters.
#[test]
fn engagement_clusters_from_the_file_a_script_and_the_keyboard() {
    for seed in ["1", "2", "3"] {
        let o = play(&[&example("brawl-clusters.toml"), "--bot", "all=random", "--seed", seed], "");
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(
            out.contains("The GM splits the brawl (cluster 1: Kara, Thug; cluster 2: Ren, Bandit)"),
            "{out}"
        );
        assert!(out.contains("--- Cluster 2 — Under the Gun: Ren ---"), "{out}");
        assert!(out.contains("The Conflict is over"), "{out}");
        assert_prose(&out);
    }
    // A script: the GM engages Kara and the Thug only; the Bandit sits the Hand out.
    let script = temp("engage.jsonl");
    std::fs::write(
        &script,
        "{\"seat\": \"gm\", \"command\": {\"engage\": {\"clusters\": [[\"Kara\", \"Thug\"]]}}}\n\
         {\"seat\": \"kara\", \"command\": {\"commit_aspect\": {\"actor\": \"Kara\", \"aspect\": \"body\", \"ante\": \"STR\", \"targets\": [\"Bandit\"]}}}\n",
    )
    .unwrap();
    let o = play(&[&example("brawl-3.toml"), "--script", script.to_str().unwrap()], "");
    let _ = std::fs::remove_file(&script);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).contains("cluster 1: Kara, Thug"), "{}", stdout(&o));
    assert!(stderr(&o).contains("Bandit"), "a target outside the cluster is refused: {}", stderr(&o));
    // The keyboard: the GM's answer at the start of a Hand (the Thug is UTG here).
    let o =
        play(&[&example("brawl-3.toml")], "str thug\n{\"engage\": {\"clusters\": [[\"Kara\", \"Thug\"]]}}\n");
    assert!(
        stdout(&o).contains("Not accepted: engagement: the GM engages Actors at the start of a Hand"),
        "{}",
        stdout(&o)
    );
}

/// Decision 35: the GM adjusts an Actor's chips or Wildcards, with a reason, shown to
/// everyone (`adjust …` at a GM prompt, `{"adjust": …}` in a script); from a player's seat
/// it is refused, naming the rule.
#[test]
fn gm_adjustment_is_logged_publicly_and_refused_from_a_player_seat() {
    let script = temp("adjust.jsonl");
    let gm_line = "{\"seat\": \"gm\", \"command\": {\"adjust\": {\"actor\": \"Kara\", \"change\": {\"chips\": {\"attribute\": \"STR\", \"to\": 9}}, \"reason\": \"the healer's draught\"}}}\n";
    std::fs::write(&script, gm_line).unwrap();
    let o = play(&[&example("pc-vs-bandit.toml"), "--script", script.to_str().unwrap()], "");
    assert!(
        stdout(&o).contains("The GM adjusts Kara: Strength 4 → 9 (reason: \"the healer's draught\")."),
        "{}",
        stdout(&o)
    );
    std::fs::write(&script, gm_line.replace("\"seat\": \"gm\"", "\"seat\": \"kara\"")).unwrap();
    let o = play(&[&example("pc-vs-bandit.toml"), "--script", script.to_str().unwrap()], "");
    let _ = std::fs::remove_file(&script);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("only the GM may adjust") && stderr(&o).contains("Decision 35"),
        "{}",
        stderr(&o)
    );
    // At the keyboard: the GM's prompt (the Bandit commits), then the same question again.
    let o = play(
        &[&example("pc-vs-bandit.toml")],
        "str bandit\n{\"adjust\": {\"actor\": \"Bandit\", \"change\": {\"wildcards\": {\"to\": 1}}, \"reason\": \"r\"}}\n\
         {\"adjust\": {\"actor\": \"Bandit\", \"change\": {\"chips\": {\"attribute\": \"WIL\", \"to\": 2}}, \"reason\": \"the curse bites\"}}\nwil\n",
    );
    let out = stdout(&o);
    assert!(out.contains("Not accepted: GM adjustment (Decision 35): 1 Wildcards"), "{out}");
    assert!(out.contains("The GM adjusts Bandit: Willpower 3 → 2 (reason: \"the curse bites\")."), "{out}");
    assert!(out.contains("Reveal:"), "{out}");
}

/// Saves of facedown before the session layer held events, not commands: refused, saying so.
#[test]
fn an_old_nodice_save_is_refused_as_an_old_format() {
    let old = temp("old.json");
    std::fs::write(&old, "{\"initial\": {\"actors\": []}, \"events\": [{\"hand_started\": {}}]}\n").unwrap();
    let o = play(&["--resume", old.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is a save of the old format"), "{}", stderr(&o));
    let _ = std::fs::remove_file(old);
}

/// Issue 34, words a player knows: what `play` prints spells every abbreviation out (Under the
/// Gun, Trine Dominance, Attribute Dominance, Trine Score), as the page does; the quick
/// reference's legend is where the short forms are explained.
#[test]
fn a_conflict_printed_spells_out_utg_td_ad_and_ts() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/nodice/pc-vs-bandit.toml");
    let out = Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args(["nodice", "play", &path.display().to_string(), "--bot", "all=greedy"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    for short in ["UTG", "TD", "AD", "TS"] {
        let bare = text.split(|c: char| !c.is_alphanumeric()).any(|w| w == short);
        assert!(!bare, "{short} is not spelled out:\n{text}");
    }
    assert!(text.contains("Trine Score"), "{text}");
}
