//! End-to-end tests of `facedown iron-triangle resolve`: the built binary over every example in
//! `examples/iron-triangle/resolve/` (text and `--json` output), the flags, standard input, and
//! the error cases (exit code 2 with a message naming the problem).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use iron_triangle::referee::{self, TurnSheet};
use serde_json::Value;

fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/iron-triangle/resolve")
}

/// Runs `facedown iron-triangle resolve ARGS`, feeding `stdin` if given.
fn resolve(args: &[&str], stdin: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_facedown"));
    cmd.args(["iron-triangle", "resolve"])
        .args(args)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the facedown binary runs");
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .expect("stdin is piped")
            .write_all(input.as_bytes())
            .expect("stdin takes the input");
    }
    child.wait_with_output().expect("facedown finishes")
}

/// The text output of a successful run, with every run of whitespace made a single space.
fn ok_text(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "facedown failed: {stderr}");
    String::from_utf8_lossy(&out.stdout).split_whitespace().collect::<Vec<_>>().join(" ")
}

fn ok_json(out: &Output) -> Value {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "facedown failed: {stderr}");
    serde_json::from_slice(&out.stdout).expect("--json prints JSON")
}

/// Phrases the text output of each example must contain (after whitespace is normalised).
/// The numbers themselves are the crate's: crates/iron-triangle/tests/referee_examples.rs.
fn texts() -> Vec<(&'static str, &'static [&'static str])> {
    vec![
        (
            "book-win-13.toml",
            &[
                "A wins: ▨ beats ○",
                "B loses 13:",
                "winner's stance 2 × 3 = 6",
                "own stance 1",
                "base 4",
                "combo +1",
                "disadvantage +1",
                "total 13",
                "at least 1 of it from ○",
                "the rest (12) spread as B chooses",
                "A loses nothing",
                "Next disadvantage chains: A: none; B: ◆☷, ○☷",
                "Next combo chain: A against B: ○☵, ▨☰",
            ],
        ),
        (
            "book-win-13-energy.json",
            &[
                "Ayame wins: ▨ beats ○",
                "Bruno loses 13:",
                "total 13",
                "at least 1 of it from ○",
                "the ○ part leaves ○0 ▨4 ◆5 (9 in all)",
                "the rest (12) wipes it all out: Bruno is out of the conflict",
                "Next disadvantage chains: Ayame: none; Bruno: ◆☷, ○☷",
                "Next combo chain: Ayame against Bruno: ○☵, ▨☰",
            ],
        ),
        (
            "tie.toml",
            &[
                "Tie: both played ◆☵",
                "A loses 3: base 3 (B's ◆☵); total 3",
                "B loses 3: base 3 (A's ◆☵); total 3",
                "Next disadvantage chains: A: none; B: none",
                "Next combo chain: none",
            ],
        ),
        (
            "disadvantage-1.toml",
            &[
                "A wins: ○ beats ◆",
                "B loses 2:",
                "total 2",
                "all 2 spread as B chooses",
                "Next disadvantage chains: A: none; B: ◆☷",
                "Next combo chain: A against B: ○☵",
            ],
        ),
        (
            "disadvantage-2.toml",
            &[
                "A wins: ▨ beats ○",
                "B loses 5:",
                "combo +0",
                "disadvantage +1",
                "total 5",
                "Next disadvantage chains: A: none; B: ◆☷, ○☷",
                "Next combo chain: A against B: ▨☷",
            ],
        ),
        (
            "disadvantage-3.toml",
            &[
                "B loses 2:",
                "disadvantage +0",
                "total 2",
                "Next disadvantage chains: A: none; B: ◆☲",
                "Next combo chain: A against B: ○☲",
            ],
        ),
        (
            "disadvantage-decides.toml",
            &["A wins: ◆☲ against ◆☲, and only B's move is disadvantaged", "B loses 4:", "total 4"],
        ),
        (
            "combo-plus-2.toml",
            &[
                "A wins: ◆ beats ▨",
                "B loses 5:",
                "combo +2",
                "total 5",
                "Next combo chain: A against B: ◆☷, ▨☲, ◆☲",
            ],
        ),
        (
            "surrender.toml",
            &[
                "Bruno surrenders: Ayame counts as the turn's winner",
                "Bruno leaves the conflict.",
                "Nobody loses energy",
                "Next disadvantage chains: Ayame: none; Bruno: none",
                "Next combo chain: none",
            ],
        ),
        (
            "feint.toml",
            &[
                "A wins: ◆ beats ▨",
                "winner's stance 0 (A's 3▨ is a feint",
                "own stance 0 (B's 2◆ is a feint",
                "total 3",
                "all 3 spread as B chooses",
            ],
        ),
        (
            "pressure-point.toml",
            &[
                "Pressure Point (A, place 4): A chooses how B's loss is spread",
                "B loses 11: winner's stance 6 + own stance 1 + base 4 + combo 0 + disadvantage 0 = 11",
                "the rest (10) spread as A chooses (Pressure Point)",
            ],
        ),
        (
            "liquid-metal.toml",
            &[
                "B: stance 1○, plays ○☷; special Liquid Metal copying Wax On ▨",
                "B loses 11 before specials:",
                "Wax On ▨ (A, place 5): changes nothing this turn",
                "Liquid Metal copying Wax On ▨ (B, place 5): B loses nothing from A's stance: −6",
                "B loses 5: winner's stance 0 + own stance 1 + base 4 + combo 0 + disadvantage 0 = 5",
            ],
        ),
        (
            "wax-on.toml",
            &[
                "B loses 11 before specials:",
                "Wax On ▨ (B, place 5): B loses nothing from A's stance: −6",
                "B loses 5: winner's stance 0 + own stance 1 + base 4 + combo 0 + disadvantage 0 = 5",
                "at least 1 of it from ○ (B's stance); the rest (4) spread as B chooses",
            ],
        ),
        (
            "parry.toml",
            &[
                "Parry ▨ (B, place 5): B loses no energy at all this turn: −11",
                "After specials: A loses nothing. B loses nothing.",
            ],
        ),
        (
            "santa-carla.toml",
            &[
                "Santa Carla ▨ (A, place 6): A regains its committed stance, 2",
                "A regains 2 (Santa Carla ▨), spread as A chooses, each type at most its maximum",
            ],
        ),
        (
            "vampire.toml",
            &[
                "Vampire ▨ (A, place 6): A regains what B loses, 11 (the whole loss, before energy runs out)",
                "the rest (10) wipes it all out: B is out of the conflict",
                "A regains 11 (Vampire ▨)",
            ],
        ),
        (
            "dig-two-graves.toml",
            &[
                "Dig Two Graves ▨ (B, place 7): A loses as much as B loses: dig two graves +11",
                "A loses 11: winner's stance 0 + own stance 0 + base 0 + combo 0 + disadvantage 0 + dig two graves 11 = 11",
                "all 11 spread as A chooses",
                "the rest (10) leaves 1 in all",
            ],
        ),
        (
            "yojimbo.toml",
            &[
                "Yojimbo (B's ally, place 9): B's ally takes B's whole loss, 11",
                "B loses nothing: B's ally took its loss.",
                "B's ally loses 11 (Yojimbo), spread as B's ally chooses.",
            ],
        ),
        (
            "pressure-point-yojimbo.toml",
            &[
                "Pressure Point (A, place 4)",
                "Yojimbo (B's ally, place 9)",
                "A's Pressure Point no longer applies to it",
                "B's ally loses 11 (Yojimbo), spread as B's ally chooses.",
            ],
        ),
        (
            "wax-on-vs-dig-two-graves.toml",
            &[
                "Wax On ○ (A, place 5): changes nothing this turn",
                "dig two graves +11 (B's whole loss before energy runs out",
                "A loses 11:",
            ],
        ),
    ]
}

/// An example file read as the crate reads it.
fn read(file: &str) -> TurnSheet {
    let text = std::fs::read_to_string(examples_dir().join(file)).expect("the example is readable");
    if file.ends_with(".json") {
        serde_json::from_str(&text).expect("the example is JSON")
    } else {
        toml::from_str(&text).expect("the example is TOML")
    }
}

#[test]
fn every_example_gives_the_expected_text() {
    for (file, phrases) in texts() {
        let path = examples_dir().join(file);
        let text = ok_text(&resolve(&["--input", &path.to_string_lossy()], None));
        for phrase in phrases {
            assert!(text.contains(phrase), "{file}: missing {phrase:?} in:\n{text}");
        }
        // In the players' words: no reference to a section of the rules reference.
        assert!(!text.contains('§'), "{file}: a § in:\n{text}");
        // Every loss total is stated.
        let v = ok_json(&resolve(&["--input", &path.to_string_lossy(), "--json"], None));
        for (who, key) in [("A", "a"), ("B", "b")] {
            let total = v[key]["loss"]["total"].as_u64().unwrap_or(0);
            if total > 0 && !file.contains("energy") {
                assert!(
                    text.contains(&format!("{who} loses {total}:"))
                        || text.contains(&format!("{who} loses {total} before specials:")),
                    "{file}: {who}'s total {total} in:\n{text}"
                );
            }
        }
    }
}

/// The `--json` output of every example is the crate's report, whole.
#[test]
fn every_example_prints_the_crates_report_as_json() {
    for (file, _) in texts() {
        let path = examples_dir().join(file);
        let v = ok_json(&resolve(&["--input", &path.to_string_lossy(), "--json"], None));
        let report = referee::compute(&read(file)).expect("the example resolves");
        assert_eq!(v, serde_json::to_value(&report).expect("the report is JSON"), "{file}");
    }
}

/// The same turn read from flags (the brief's example), from a file and from standard input
/// gives the same result.
#[test]
fn flags_and_standard_input_match_the_file() {
    let flags = [
        "--a-stance",
        "2 grapple",
        "--a-move",
        "▨☰",
        "--a-combo",
        "○☵",
        "--a-follow-ups",
        "▨☰, ▨☯",
        "--b-stance",
        "1○",
        "--b-move",
        "defend earth",
        "--b-disadvantage",
        "◆☷",
    ];
    let from_file = ok_json(&resolve(
        &["--input", &examples_dir().join("book-win-13.toml").to_string_lossy(), "--json"],
        None,
    ));
    let mut with_json = flags.to_vec();
    with_json.push("--json");
    let from_flags = ok_json(&resolve(&with_json, None));
    assert_eq!(from_flags, from_file);
    let text = ok_text(&resolve(&flags, None));
    assert!(text.contains("B loses 13:") && text.contains("total 13"), "{text}");

    let stdin = std::fs::read_to_string(examples_dir().join("book-win-13-energy.json"))
        .expect("the example is readable");
    let from_stdin = ok_json(&resolve(&["--input", "-", "--json"], Some(&stdin)));
    assert_eq!(from_stdin["b"]["loss"]["total"], 13);
    assert_eq!(from_stdin["b"]["energy"]["wiped_out"], true);
}

#[test]
fn energies_on_the_command_line() {
    // B keeps energy when the loss is smaller than what is left.
    let out = resolve(&["--a-move", "○☵", "--b-move", "◆☷", "--b-stance", "2◆", "--b-energy", "3,4,5"], None);
    let text = ok_text(&out);
    assert!(text.contains("B loses 4:"), "{text}");
    assert!(text.contains("own stance 2"), "{text}");
    assert!(text.contains("the ◆ part leaves ○3 ▨4 ◆3 (10 in all); the rest (2) leaves 8 in all"), "{text}");
}

/// Bad input: exit code 2 and a message naming the field (as a flag or as in the file) or the
/// rule; never a panic. (Every rule's refusal is tested in crates/iron-triangle/tests/referee.rs.)
#[test]
fn bad_input_is_refused_with_exit_code_2() {
    let dir = std::env::temp_dir().join(format!("facedown-it-resolve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).expect("a temporary file");
        p.to_string_lossy().into_owned()
    };
    let typo = write("typo.toml", "[a]\nmoev = \"▨☰\"\n[b]\nmove = \"○☷\"\n");
    let malformed = write("malformed.toml", "[a\nmove = \"▨☰\"\n");
    let bad_move = write("bad-move.json", r#"{"a": {"move": "kick"}, "b": {"move": "○☷"}}"#);
    let yaml = write("turn.yaml", "a: {}\n");

    let cases: Vec<(Vec<&str>, Option<&str>, Vec<&str>)> = vec![
        (vec!["--a-move", "kick", "--b-move", "○☷"], None, vec!["--a-move", "\"kick\" is not a move"]),
        (
            vec!["--a-move", "▨☰", "--a-stance", "3▨", "--a-energy", "1,2,3", "--b-move", "○☷"],
            None,
            vec!["--a-stance", "a stance is 0 to the current energy"],
        ),
        (vec!["--input", &typo], None, vec!["unknown field `moev`"]),
        (vec!["--input", &malformed], None, vec!["TOML"]),
        (vec!["--input", &bad_move], None, vec!["a.move", "kick"]),
        (vec!["--input", &yaml], None, vec!["*.toml or *.json"]),
        (
            vec!["--input", "-"],
            Some(r#"{"a": {"move": "▨☰", "energy": [1, 2]}, "b": {"move": "○☷"}}"#),
            vec!["energy must be three numbers"],
        ),
        (
            vec!["--input", "-"],
            Some(r#"{"a": {"move": "▨☰", "stance": "9▨", "energy": [1, 2, 3]}, "b": {"move": "○☷"}}"#),
            vec!["a.stance", "a stance is 0 to the current energy"],
        ),
        (
            vec!["--input", "-"],
            Some(r#"{"a": {"move": "▨☰"}, "b": {"move": "○☷"}, "c": {}}"#),
            vec!["unknown field `c`"],
        ),
        (vec!["--input", "-"], Some("{\"a\": "), vec!["standard input", "JSON"]),
        (vec!["--a-move", "▨☰"], None, vec!["--b-move is missing"]),
        (
            vec!["--a-move", "▨☰", "--a-combo", "○☵", "--b-move", "○☷", "--b-combo", "◆☲"],
            None,
            vec!["--a-combo", "--b-combo", "a chain ends when its side loses or ties"],
        ),
        (
            vec!["--a-move", "▨☰", "--a-follow-ups", "▨☰", "--b-move", "○☷"],
            None,
            vec!["--a-follow-ups", "--a-combo", "a follow-up is a learned link"],
        ),
        (
            vec!["--a-move", "▨☰", "--b-move", "○☷", "--b-energy", "1,2"],
            None,
            vec!["--b-energy", "three numbers"],
        ),
        (vec!["--input", &typo, "--a-move", "▨☰"], None, vec!["--a-move cannot be combined with --input"]),
        // Specials (§6).
        (
            vec!["--a-move", "▨☰", "--b-move", "○☷", "--b-special", "parry grapple"],
            None,
            vec!["--b-special", "Parry ▨", "earlier edition", "--edition earlier"],
        ),
        (
            vec!["--edition", "earlier", "--a-move", "▨☰", "--b-move", "○☷", "--b-special", "wax on grapple"],
            None,
            vec!["--b-special", "Wax On ▨", "current edition", "Parry ▨"],
        ),
        (
            vec!["--edition", "third", "--a-move", "▨☰", "--b-move", "○☷"],
            None,
            vec!["--edition", "current", "earlier"],
        ),
        (
            vec!["--input", "-"],
            Some(r#"{"a": {"move": "▨☰", "special": "premonition ▨"}, "b": {"move": "▨☲"}}"#),
            vec!["b.move", "I Already Know ▨", "B may not play ▨☲"],
        ),
        (
            vec![
                "--a-move",
                "▨☰",
                "--a-special",
                "liquid metal",
                "--a-copy-of",
                "drunken monkey",
                "--b-move",
                "○☷",
            ],
            None,
            vec!["--a-copy-of", "Liquid Metal cannot copy Drunken Monkey"],
        ),
        (
            vec!["--input", "-"],
            Some(
                r#"{"a": {"move": "▨☰", "special": "scouter", "copy_of": "wax on defend"}, "b": {"move": "○☷"}}"#,
            ),
            vec!["a.copy_of", "only Liquid Metal copies another special"],
        ),
        (vec!["--a-move", "▨☰", "--b-move", "○☷", "--yojimbo", "c"], None, vec!["--yojimbo", "write a or b"]),
        (vec!["--input", &typo, "--yojimbo", "a"], None, vec!["--yojimbo cannot be combined with --input"]),
    ];
    for (args, stdin, phrases) in cases {
        let out = resolve(&args, stdin);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?} printed a result");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        for phrase in phrases {
            assert!(stderr.contains(phrase), "{args:?}: {phrase:?} missing in {stderr}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The text says when the specials change no loss (the rules of the specials themselves are
/// tested in the crate: crates/iron-triangle/tests/referee.rs).
#[test]
fn specials_without_effect_on_the_numbers_are_said_to_change_nothing() {
    let text = ok_text(&resolve(&["--a-move", "▨☰", "--b-move", "○☷", "--a-special", "scouter"], None));
    assert!(text.contains("Scouter (A, place 1): does not change this turn's losses"), "{text}");
    assert!(text.contains("The specials change no loss this turn."), "{text}");
    assert!(text.contains("B loses 4:"), "{text}");
}

/// §6 Decision (Liquid Metal): a copy given with `--b-copy-of` acts as the copied special and
/// does not cancel with its original (entered as the copied special, the two would cancel);
/// the flags give what the file gives.
#[test]
fn a_liquid_metal_copy_and_its_original_both_act() {
    let flags = [
        "--a-stance",
        "2▨",
        "--a-move",
        "▨☰",
        "--a-special",
        "wax on grapple",
        "--b-stance",
        "1○",
        "--b-move",
        "○☷",
        "--b-special",
        "liquid metal",
        "--b-copy-of",
        "wax on grapple",
    ];
    let text = ok_text(&resolve(&flags, None));
    assert!(
        text.contains("Liquid Metal copying Wax On ▨ (B, place 5): B loses nothing from A's stance: −6"),
        "{text}"
    );
    assert!(text.contains("B loses 5:"), "{text}");
    assert!(!text.contains("cancel"), "{text}");
    let mut with_json = flags.to_vec();
    with_json.push("--json");
    let v = ok_json(&resolve(&with_json, None));
    assert_eq!(v["b"]["special"], "liquid_metal");
    assert_eq!(v["b"]["copy_of"], "wax_on_grapple");
    assert_eq!(v["specials"][1]["copy_of"], "wax_on_grapple");
    assert_eq!(v["final_losses"]["b"]["total"], 5);
    let from_file = ok_json(&resolve(
        &["--input", &examples_dir().join("liquid-metal.toml").to_string_lossy(), "--json"],
        None,
    ));
    assert_eq!(v, from_file);
    // Two copies of the same special are identical: they cancel, in words a player reads.
    let text = ok_text(&resolve(
        &[
            "--a-move",
            "▨☰",
            "--a-special",
            "liquid metal",
            "--a-copy-of",
            "pressure point",
            "--b-move",
            "○☷",
            "--b-special",
            "liquid metal",
            "--b-copy-of",
            "pressure point",
        ],
        None,
    ));
    assert!(text.contains("both of the pair played Liquid Metal copying Pressure Point"), "{text}");
    assert!(!text.contains("cancel each other (§"), "{text}");
}

/// `--help` says how to enter a Liquid Metal copy, in the players' words (no § reference).
#[test]
fn the_help_says_how_to_enter_a_liquid_metal_copy() {
    let out = resolve(&["--help"], None);
    let text = ok_text(&out);
    for phrase in
        ["--a-copy-of", "--b-copy-of", "--a-special \"liquid metal\" --a-copy-of \"wax on grapple\""]
    {
        assert!(text.contains(phrase), "{phrase:?} missing in {text}");
    }
    assert!(text.contains("two Liquid Metals cancel only when they copy the same special"), "{text}");
    assert!(!text.contains('§'), "{text}");
}
