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

/// What the specials of an example leave (§6).
struct Settled {
    /// A's and B's final loss: [winner's stance, own stance, base, combo, disadvantage,
    /// dig two graves (mirrored), total, to distribute].
    final_losses: [[u64; 8]; 2],
    /// Who spreads A's and B's loss.
    spreaders: [&'static str; 2],
    /// (fighter, kind, amount, special).
    extras: &'static [(&'static str, &'static str, u64, &'static str)],
    /// (by, special key, changed) in list order.
    specials: &'static [(&'static str, &'static str, bool)],
}

const FINAL_NONE: [u64; 8] = [0; 8];
/// B's loss in the specials examples: A 2▨ with ▨☰ against B 1○ with ○☷, 6 + 1 + 4 = 11.
const B_11: [u64; 7] = [6, 1, 4, 0, 0, 11, 10];
const B_11_FINAL: [u64; 8] = [6, 1, 4, 0, 0, 0, 11, 10];

/// The examples with specials: the turn A 2▨ ▨☰ against B 1○ ○☷ (B loses 11 before specials)
/// with each special that changes the numbers, and two clashes.
fn special_expectations() -> Vec<(Expected, Settled)> {
    let base = |file: &'static str, text: &'static [&'static str]| Expected {
        file,
        outcome: "win",
        winner: Some("a"),
        decided_by: "action",
        losses: [NONE, B_11],
        stance_type: [None, Some("defend")],
        next_disadvantage: [&[], &["○☷"]],
        next_combo: Some(("a", &["▨☰"])),
        text,
        json: &[],
    };
    vec![
        (
            base(
                "pressure-point.toml",
                &[
                    "Pressure Point (A, place 4): A chooses how B's loss is spread",
                    "B loses 11: winner's stance 6 + own stance 1 + base 4 + combo 0 + disadvantage 0 = 11",
                    "the rest (10) spread as A chooses (Pressure Point)",
                ],
            ),
            Settled {
                final_losses: [FINAL_NONE, B_11_FINAL],
                spreaders: ["a", "a"],
                extras: &[],
                specials: &[("a", "pressure_point", true)],
            },
        ),
        (
            base(
                "wax-on.toml",
                &[
                    "B loses 11 before specials:",
                    "Wax On ▨ (B, place 5): B loses nothing from A's stance: −6",
                    "B loses 5: winner's stance 0 + own stance 1 + base 4 + combo 0 + disadvantage 0 = 5",
                    "at least 1 of it from ○ (B's stance); the rest (4) spread as B chooses",
                ],
            ),
            Settled {
                final_losses: [FINAL_NONE, [0, 1, 4, 0, 0, 0, 5, 4]],
                spreaders: ["a", "b"],
                extras: &[],
                specials: &[("b", "wax_on_grapple", true)],
            },
        ),
        (
            base(
                "parry.toml",
                &[
                    "Parry ▨ (B, place 5): B loses no energy at all this turn: −11",
                    "After specials: A loses nothing. B loses nothing.",
                ],
            ),
            Settled {
                final_losses: [FINAL_NONE, FINAL_NONE],
                spreaders: ["a", "b"],
                extras: &[],
                specials: &[("b", "parry_grapple", true)],
            },
        ),
        (
            base(
                "santa-carla.toml",
                &[
                    "Santa Carla ▨ (A, place 6): A regains its committed stance, 2",
                    "A regains 2 (Santa Carla ▨), spread as A chooses, each type at most its maximum",
                ],
            ),
            Settled {
                final_losses: [FINAL_NONE, B_11_FINAL],
                spreaders: ["a", "b"],
                extras: &[("a", "gain", 2, "santa_carla_grapple")],
                specials: &[("a", "santa_carla_grapple", true)],
            },
        ),
        (
            base(
                "vampire.toml",
                &[
                    "Vampire ▨ (A, place 6): A regains what B loses, 11 (the whole loss, before energy runs out, §6)",
                    "the rest (10) wipes it all out: B is out of the conflict",
                    "A regains 11 (Vampire ▨)",
                ],
            ),
            Settled {
                final_losses: [FINAL_NONE, B_11_FINAL],
                spreaders: ["a", "b"],
                extras: &[("a", "gain", 11, "vampire_grapple")],
                specials: &[("a", "vampire_grapple", true)],
            },
        ),
        (
            base(
                "dig-two-graves.toml",
                &[
                    "Dig Two Graves ▨ (B, place 7): A loses as much as B loses: dig two graves +11",
                    "A loses 11: winner's stance 0 + own stance 0 + base 0 + combo 0 + disadvantage 0 + dig two graves 11 = 11",
                    "all 11 spread as A chooses",
                    "the rest (10) leaves 1 in all",
                ],
            ),
            Settled {
                final_losses: [[0, 0, 0, 0, 0, 11, 11, 11], B_11_FINAL],
                spreaders: ["a", "b"],
                extras: &[],
                specials: &[("b", "dig_two_graves_grapple", true)],
            },
        ),
        (
            base(
                "yojimbo.toml",
                &[
                    "Yojimbo (B's ally, place 9): B's ally takes B's whole loss, 11",
                    "B loses nothing: B's ally took its loss.",
                    "B's ally loses 11 (Yojimbo), spread as B's ally chooses.",
                ],
            ),
            Settled {
                final_losses: [FINAL_NONE, FINAL_NONE],
                spreaders: ["a", "b"],
                extras: &[("b_ally", "loss", 11, "yojimbo")],
                specials: &[("b_ally", "yojimbo", true)],
            },
        ),
        (
            base(
                "pressure-point-yojimbo.toml",
                &[
                    "Pressure Point (A, place 4)",
                    "Yojimbo (B's ally, place 9)",
                    "A's Pressure Point no longer applies to it",
                    "B's ally loses 11 (Yojimbo), spread as B's ally chooses.",
                ],
            ),
            Settled {
                final_losses: [FINAL_NONE, FINAL_NONE],
                spreaders: ["a", "b"],
                extras: &[("b_ally", "loss", 11, "yojimbo")],
                specials: &[("a", "pressure_point", true), ("b_ally", "yojimbo", true)],
            },
        ),
        (
            base(
                "wax-on-vs-dig-two-graves.toml",
                &[
                    "Wax On ○ (A, place 5): changes nothing this turn",
                    "dig two graves +11 (B's whole loss before energy runs out",
                    "A loses 11:",
                ],
            ),
            Settled {
                final_losses: [[0, 0, 0, 0, 0, 11, 11, 11], B_11_FINAL],
                spreaders: ["a", "b"],
                extras: &[],
                specials: &[("a", "wax_on_defend", false), ("b", "dig_two_graves_grapple", true)],
            },
        ),
    ]
}

fn check_settled(file: &str, v: &Value, s: &Settled) {
    for (i, who) in ["a", "b"].into_iter().enumerate() {
        let loss = &v["final_losses"][who];
        let got: Vec<Value> = [
            "winner_stance",
            "own_stance",
            "base",
            "combo",
            "disadvantage",
            "mirrored",
            "total",
            "to_distribute",
        ]
        .iter()
        .map(|k| loss[*k].clone())
        .collect();
        let want: Vec<Value> = s.final_losses[i].iter().map(|n| json!(n)).collect();
        assert_eq!(got, want, "{file}: {who}'s final loss");
        assert_eq!(v["spreaders"][who], s.spreaders[i], "{file}: who spreads {who}'s loss");
    }
    let extras: Vec<Value> =
        s.extras.iter().map(|(f, kind, amount, special)| json!([f, kind, amount, special])).collect();
    let got: Vec<Value> = v["extras"]
        .as_array()
        .expect("extras is a list")
        .iter()
        .map(|e| json!([e["fighter"], e["kind"], e["amount"], e["special"]]))
        .collect();
    assert_eq!(got, extras, "{file}: extras");
    let specials: Vec<Value> =
        s.specials.iter().map(|(by, key, changed)| json!([by, key, changed])).collect();
    let got: Vec<Value> = v["specials"]
        .as_array()
        .expect("specials is a list")
        .iter()
        .map(|e| json!([e["by"], e["special"], e["changed"]]))
        .collect();
    assert_eq!(got, specials, "{file}: specials");
}

/// Every example: those without specials and those with.
fn all_expectations() -> Vec<(Expected, Option<Settled>)> {
    let plain = expectations().into_iter().map(|e| (e, None));
    plain.chain(special_expectations().into_iter().map(|(e, s)| (e, Some(s)))).collect()
}

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
    let expected: BTreeSet<String> = all_expectations().iter().map(|(e, _)| e.file.to_owned()).collect();
    assert_eq!(files, expected);
}

#[test]
fn every_example_gives_the_expected_text() {
    for (e, _) in all_expectations() {
        let path = examples_dir().join(e.file);
        let text = ok_text(&resolve(&["--input", &path.to_string_lossy()], None));
        for phrase in e.text {
            assert!(text.contains(phrase), "{}: missing {phrase:?} in:\n{text}", e.file);
        }
        // Every loss total is stated.
        for (who, loss) in ["A", "B"].iter().zip(e.losses) {
            if loss[5] > 0 && !e.file.contains("energy") {
                assert!(
                    text.contains(&format!("{who} loses {}:", loss[5]))
                        || text.contains(&format!("{who} loses {} before specials:", loss[5])),
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
    for (e, settled) in all_expectations() {
        let path = examples_dir().join(e.file);
        let v = ok_json(&resolve(&["--input", &path.to_string_lossy(), "--json"], None));
        check_json(e.file, &v, &e);
        match settled {
            Some(s) => check_settled(e.file, &v, &s),
            None => {
                // Without specials the final losses are the turn's.
                assert_eq!(v["specials"], json!([]), "{}: specials", e.file);
                assert_eq!(v["final_losses"]["a"], v["a"]["loss"], "{}: A's final loss", e.file);
                assert_eq!(v["final_losses"]["b"], v["b"]["loss"], "{}: B's final loss", e.file);
                assert_eq!(v["spreaders"], json!({"a": "a", "b": "b"}), "{}: spreaders", e.file);
                assert_eq!(v["extras"], json!([]), "{}: extras", e.file);
            }
        }
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
            vec!["b.move", "§6", "I Already Know ▨", "B may not play ▨☲"],
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
