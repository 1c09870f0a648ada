//! End-to-end tests of `facedown iron-triangle resolve`: the built binary over every example in
//! `examples/iron-triangle/resolve/` (text and `--json` output), the flags, standard input, and
//! the error cases (exit code 2 with a message naming the problem).

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

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

/// The expected result of one example file.
struct Expected {
    file: &'static str,
    /// "win", "tie" or "surrender".
    outcome: &'static str,
    winner: Option<&'static str>,
    decided_by: &'static str,
    /// A's and B's loss: [winner's stance, own stance, base, combo, disadvantage, total,
    /// to distribute].
    losses: [[u64; 7]; 2],
    /// The type the own-stance part of each loss comes from.
    stance_type: [Option<&'static str>; 2],
    next_disadvantage: [&'static [&'static str]; 2],
    /// (side, cards) of the next combo chain.
    next_combo: Option<(&'static str, &'static [&'static str])>,
    /// Phrases the text output must contain (after whitespace is normalised).
    text: &'static [&'static str],
    /// Extra checks on the JSON output: (JSON pointer, value).
    json: &'static [(&'static str, &'static str)],
}

const NONE: [u64; 7] = [0; 7];

fn expectations() -> Vec<Expected> {
    vec![
        Expected {
            file: "book-win-13.toml",
            outcome: "win",
            winner: Some("a"),
            decided_by: "action",
            losses: [NONE, [6, 1, 4, 1, 1, 13, 12]],
            stance_type: [None, Some("defend")],
            next_disadvantage: [&[], &["◆☷", "○☷"]],
            next_combo: Some(("a", &["○☵", "▨☰"])),
            text: &[
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
            json: &[
                ("/a/combo_bonus", "1"),
                ("/b/disadvantaged", "true"),
                ("/combo_continued", "true"),
                ("/b/energy", "null"),
            ],
        },
        Expected {
            file: "book-win-13-energy.json",
            outcome: "win",
            winner: Some("a"),
            decided_by: "action",
            losses: [NONE, [6, 1, 4, 1, 1, 13, 12]],
            stance_type: [None, Some("defend")],
            next_disadvantage: [&[], &["◆☷", "○☷"]],
            next_combo: Some(("a", &["○☵", "▨☰"])),
            text: &[
                "Ayame wins: ▨ beats ○",
                "Bruno loses 13:",
                "total 13",
                "at least 1 of it from ○",
                "the ○ part leaves ○0 ▨4 ◆5 (9 in all)",
                "the rest (12) wipes it all out: Bruno is out of the conflict",
                "Next disadvantage chains: Ayame: none; Bruno: ◆☷, ○☷",
                "Next combo chain: Ayame against Bruno: ○☵, ▨☰",
            ],
            json: &[
                ("/a/name", "\"Ayame\""),
                ("/b/name", "\"Bruno\""),
                ("/b/energy/before", r#"{"defend":1,"grapple":4,"attack":5}"#),
                ("/b/energy/after_stance_part", r#"{"defend":0,"grapple":4,"attack":5}"#),
                ("/b/energy/left_after_stance_part", "9"),
                ("/b/energy/left_after_loss", "0"),
                ("/b/energy/wiped_out", "true"),
                ("/a/energy/wiped_out", "false"),
            ],
        },
        Expected {
            file: "tie.toml",
            outcome: "tie",
            winner: None,
            decided_by: "tie",
            losses: [[0, 0, 3, 0, 0, 3, 3], [0, 0, 3, 0, 0, 3, 3]],
            stance_type: [None, None],
            next_disadvantage: [&[], &[]],
            next_combo: None,
            text: &[
                "Tie: both played ◆☵",
                "A loses 3: base 3 (B's ◆☵); total 3",
                "B loses 3: base 3 (A's ◆☵); total 3",
                "Next disadvantage chains: A: none; B: none",
                "Next combo chain: none",
            ],
            json: &[("/combo_continued", "false"), ("/b/disadvantaged", "false")],
        },
        Expected {
            file: "disadvantage-1.toml",
            outcome: "win",
            winner: Some("a"),
            decided_by: "action",
            losses: [NONE, [0, 0, 2, 0, 0, 2, 2]],
            stance_type: [None, None],
            next_disadvantage: [&[], &["◆☷"]],
            next_combo: Some(("a", &["○☵"])),
            text: &[
                "A wins: ○ beats ◆",
                "B loses 2:",
                "total 2",
                "all 2 spread as B chooses",
                "Next disadvantage chains: A: none; B: ◆☷",
                "Next combo chain: A against B: ○☵",
            ],
            json: &[],
        },
        Expected {
            file: "disadvantage-2.toml",
            outcome: "win",
            winner: Some("a"),
            decided_by: "action",
            losses: [NONE, [0, 0, 4, 0, 1, 5, 5]],
            stance_type: [None, None],
            next_disadvantage: [&[], &["◆☷", "○☷"]],
            next_combo: Some(("a", &["▨☷"])),
            text: &[
                "A wins: ▨ beats ○",
                "B loses 5:",
                "combo +0",
                "disadvantage +1",
                "total 5",
                "Next disadvantage chains: A: none; B: ◆☷, ○☷",
                "Next combo chain: A against B: ▨☷",
            ],
            json: &[("/b/disadvantaged", "true"), ("/a/combo_bonus", "0"), ("/combo_continued", "false")],
        },
        Expected {
            file: "disadvantage-3.toml",
            outcome: "win",
            winner: Some("a"),
            decided_by: "action",
            losses: [NONE, [0, 0, 2, 0, 0, 2, 2]],
            stance_type: [None, None],
            next_disadvantage: [&[], &["◆☲"]],
            next_combo: Some(("a", &["○☲"])),
            text: &[
                "B loses 2:",
                "disadvantage +0",
                "total 2",
                "Next disadvantage chains: A: none; B: ◆☲",
                "Next combo chain: A against B: ○☲",
            ],
            json: &[("/b/disadvantaged", "false")],
        },
        Expected {
            file: "disadvantage-decides.toml",
            outcome: "win",
            winner: Some("a"),
            decided_by: "disadvantage",
            losses: [NONE, [0, 0, 3, 0, 1, 4, 4]],
            stance_type: [None, None],
            next_disadvantage: [&[], &["◆☷", "◆☲"]],
            next_combo: Some(("a", &["◆☲"])),
            text: &["A wins: ◆☲ against ◆☲, and only B's move is disadvantaged", "B loses 4:", "total 4"],
            json: &[("/a/disadvantaged", "false"), ("/b/disadvantaged", "true")],
        },
        Expected {
            file: "combo-plus-2.toml",
            outcome: "win",
            winner: Some("a"),
            decided_by: "action",
            losses: [NONE, [0, 0, 3, 2, 0, 5, 5]],
            stance_type: [None, None],
            next_disadvantage: [&[], &["▨☷"]],
            next_combo: Some(("a", &["◆☷", "▨☲", "◆☲"])),
            text: &[
                "A wins: ◆ beats ▨",
                "B loses 5:",
                "combo +2",
                "total 5",
                "Next combo chain: A against B: ◆☷, ▨☲, ◆☲",
            ],
            json: &[("/a/combo_bonus", "2"), ("/combo_continued", "true")],
        },
        Expected {
            file: "surrender.toml",
            outcome: "surrender",
            winner: Some("a"),
            decided_by: "surrender",
            losses: [NONE, NONE],
            stance_type: [None, None],
            next_disadvantage: [&[], &[]],
            next_combo: None,
            text: &[
                "Bruno surrenders: Ayame counts as the turn's winner",
                "Bruno leaves the conflict.",
                "Nobody loses energy",
                "Next disadvantage chains: Ayame: none; Bruno: none",
                "Next combo chain: none",
            ],
            json: &[("/b/surrendered", "true"), ("/a/surrendered", "false"), ("/b/move", "\"surrender\"")],
        },
        Expected {
            file: "feint.toml",
            outcome: "win",
            winner: Some("a"),
            decided_by: "action",
            losses: [NONE, [0, 0, 3, 0, 0, 3, 3]],
            stance_type: [None, None],
            next_disadvantage: [&[], &["▨☲"]],
            next_combo: Some(("a", &["◆☲"])),
            text: &[
                "A wins: ◆ beats ▨",
                "winner's stance 0 (A's 3▨ is a feint",
                "own stance 0 (B's 2◆ is a feint",
                "total 3",
                "all 3 spread as B chooses",
            ],
            json: &[("/a/stance_counts", "false"), ("/b/stance_counts", "false")],
        },
    ]
}

fn check_json(file: &str, v: &Value, e: &Expected) {
    assert_eq!(v["outcome"], e.outcome, "{file}: outcome");
    assert_eq!(v["winner"], json!(e.winner), "{file}: winner");
    assert_eq!(v["decided_by"], e.decided_by, "{file}: decided_by");
    for (i, who) in ["a", "b"].into_iter().enumerate() {
        let loss = &v[who]["loss"];
        let got: Vec<Value> =
            ["winner_stance", "own_stance", "base", "combo", "disadvantage", "total", "to_distribute"]
                .iter()
                .map(|k| loss[*k].clone())
                .collect();
        let want: Vec<Value> = e.losses[i].iter().map(|n| json!(n)).collect();
        assert_eq!(got, want, "{file}: {who}'s loss");
        assert_eq!(loss["stance_type"], json!(e.stance_type[i]), "{file}: {who}'s stance type");
        assert_eq!(
            v["next"]["disadvantage"][who],
            json!(e.next_disadvantage[i]),
            "{file}: {who}'s next disadvantage chain"
        );
    }
    let combo = e.next_combo.map(
        |(side, cards)| json!({"side": side, "against": if side == "a" { "b" } else { "a" }, "cards": cards}),
    );
    assert_eq!(v["next"]["combo"], json!(combo), "{file}: next combo chain");
    for (pointer, want) in e.json {
        let want: Value = serde_json::from_str(want).expect("the expectation is JSON");
        assert_eq!(v.pointer(pointer), Some(&want), "{file}: {pointer} in {v:#}");
    }
}

#[test]
fn every_example_file_has_expectations() {
    let files: BTreeSet<String> = std::fs::read_dir(examples_dir())
        .expect("the examples directory exists")
        .map(|e| e.expect("a directory entry").file_name().to_string_lossy().into_owned())
        .collect();
    let expected: BTreeSet<String> = expectations().iter().map(|e| e.file.to_owned()).collect();
    assert_eq!(files, expected);
}

#[test]
fn every_example_gives_the_expected_text() {
    for e in expectations() {
        let path = examples_dir().join(e.file);
        let text = ok_text(&resolve(&["--input", &path.to_string_lossy()], None));
        for phrase in e.text {
            assert!(text.contains(phrase), "{}: missing {phrase:?} in:\n{text}", e.file);
        }
        // Every loss total is stated.
        for (who, loss) in ["A", "B"].iter().zip(e.losses) {
            if loss[5] > 0 && !e.file.contains("energy") {
                assert!(
                    text.contains(&format!("{who} loses {}:", loss[5])),
                    "{}: {who}'s total {} in:\n{text}",
                    e.file,
                    loss[5]
                );
            }
        }
    }
}

#[test]
fn every_example_gives_the_expected_json() {
    for e in expectations() {
        let path = examples_dir().join(e.file);
        let v = ok_json(&resolve(&["--input", &path.to_string_lossy(), "--json"], None));
        check_json(e.file, &v, &e);
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

/// Bad input: exit code 2 and a message naming the field or the rule; never a panic.
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
        (vec!["--a-move", "defend jump", "--b-move", "○☷"], None, vec!["--a-move", "§3"]),
        (
            vec!["--a-move", "▨☰", "--a-stance", "3▨", "--a-energy", "1,2,3", "--b-move", "○☷"],
            None,
            vec!["--a-stance", "§5.2 step 2"],
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
            vec!["a.stance", "§5.2 step 2"],
        ),
        (
            vec!["--input", "-"],
            Some(r#"{"a": {"move": "▨☰"}, "b": {"move": "○☷"}, "c": {}}"#),
            vec!["unknown field `c`"],
        ),
        (vec!["--input", "-"], Some("{\"a\": "), vec!["standard input", "JSON"]),
        (vec!["--a-move", "▨☰"], None, vec!["--b-move is missing"]),
        (
            vec!["--a-move", "▨☰", "--b-move", "○☷", "--b-disadvantage", "◆☷, ○☷"],
            None,
            vec!["--b-move", "disadvantage chain", "§5.2 step 3"],
        ),
        (
            vec!["--a-move", "▨☰", "--a-combo", "○☵", "--b-move", "○☷", "--b-combo", "◆☲"],
            None,
            vec!["--a-combo", "--b-combo", "§5.5"],
        ),
        (
            vec!["--a-move", "▨☰", "--a-follow-ups", "▨☰", "--b-move", "○☷"],
            None,
            vec!["--a-follow-ups", "--a-combo", "§5.5"],
        ),
        (
            vec!["--a-move", "▨☰", "--b-move", "○☷", "--b-energy", "1,2"],
            None,
            vec!["--b-energy", "three numbers"],
        ),
        (
            vec!["--a-move", "▨☰", "--b-move", "○☷", "--b-stance", "lots"],
            None,
            vec!["--b-stance", "not a stance"],
        ),
        (vec!["--input", &typo, "--a-move", "▨☰"], None, vec!["--a-move cannot be combined with --input"]),
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
