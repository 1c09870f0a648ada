//! End-to-end tests of `facedown nodice resolve`, running the built binary: flags, files, text
//! and `--json` output, exit codes. The rules are tested on `nodice::referee` in
//! crates/nodice/tests/referee.rs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_facedown");

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/nodice")
}

fn resolve(args: &[&str]) -> Output {
    Command::new(BIN).args(["nodice", "resolve"]).args(args).output().expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn worked_example_hand_1_from_a_file_in_text() {
    let file = examples().join("resolve/hand-1.toml");
    let o = resolve(&["--input", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Stakes 1 (Low Stakes)"), "{out}");
    assert!(out.contains("Sweep: Kara"), "{out}");
    assert!(out.contains("Showdown Totals: Kara 8, Bandit 3"), "{out}");
    assert!(out.contains("1. Bandit → Kara (priority 3): 3 Spirit damage, first and unopposed"), "{out}");
    assert!(out.contains("2. Kara → Bandit (priority 4): 5 Body damage"), "{out}");
    assert!(out.contains("Next UTG: Kara"), "{out}");
}

#[test]
fn worked_example_hand_2_from_flags_in_json() {
    let o =
        resolve(&["--actor", "Kara: kno 4 -> Bandit", "--actor", "Bandit: qui 3", "--stakes", "1", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["pairs"][0]["totals"], serde_json::json!([5, 3]));
    assert_eq!(v["pairs"][0]["trine"], serde_json::Value::Null);
    assert_eq!(v["pot_leaders"], serde_json::json!([]));
    assert_eq!(v["strikes"][0]["damage"], 3);
    assert_eq!(v["strikes"][0]["unopposed"], true);
    assert_eq!(v["strikes"][1]["damage"], 2);
}

#[test]
fn bad_input_is_a_clear_error_with_status_2() {
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "--actor",
                "Kara: str 9",
                "--actor",
                "Bandit: pre 3",
                "--serial",
                "Kara=M4(5/4/3)-B4(4/4/4)-S3(2/3/4)",
                "--stakes",
                "1",
            ],
            "over the cap of 4",
        ),
        (&["--actor", "Kara: strong 4", "--actor", "B: pre 1", "--stakes", "1"], "write NAME: ATTRIBUTE BID"),
        (&["--actor", "Kara: str 4", "--actor", "B: pre 1"], "give the Stakes"),
        (&["--actor", "Kara: str 4", "--actor", "B: pre 1", "--stakes", "7"], "Stakes 7 is out of range"),
        (
            &[
                "--actor",
                "A: str 1 -> B",
                "--actor",
                "B: pre 1 -> A",
                "--actor",
                "C: rea 1 -> D",
                "--stakes",
                "1",
            ],
            "\"D\" is not an Actor",
        ),
        (&["--actor", "A: str 1", "--serial", "A=M4(x/4/4)", "--actor", "B: pre 1"], "REA value"),
    ];
    for (args, message) in cases {
        let o = resolve(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn worked_example_pot_of_7_between_two_tied_leaders_pays_4_and_3() {
    // A (Mind) and B (Mind) both target C (Body); C targets A.
    let o = resolve(&[
        "--actor",
        "A: rea 1 -> C",
        "--actor",
        "B: kno 1 -> C",
        "--actor",
        "C: str 1 -> A",
        "--stakes",
        "2",
        "--pot",
        "7",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("round-robin to A, B."), "{}", stdout(&o));
    assert!(stdout(&o).contains("Tokens: A 4, B 3."), "{}", stdout(&o));
}

/// Decision (resolution order, point 5): an Actor eliminated before its turn in the Action
/// Priority order deals nothing — in the calculator as in `nodice play` (the audit's
/// `nd_utg_tie` Hand: B's Mind damage exhausts C before C's turn). The tie for most
/// Dominance wins keeps UTG with A (seed: Step 1).
#[test]
fn an_actor_eliminated_before_its_turn_deals_nothing_in_the_calculator_too() {
    let o = resolve(&[
        "--actor",
        "A: str 1 -> B",
        "--actor",
        "B: rea 3 -> C",
        "--actor",
        "C: wil 5 -> B",
        "--serial",
        "A=M3(3/3/3)-B3(3/3/3)-S3(3/3/3)",
        "--serial",
        "B=M3(3/3/3)-B3(3/3/3)-S3(3/3/3)",
        "--serial",
        "C=M1(1/0/0)-B3(3/3/3)-S5(5/5/5)",
        "--stakes",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("B → C (priority 3): 3 Mind damage, first and unopposed (whole total); C is eliminated"),
        "{out}"
    );
    assert!(out.contains("C → B (priority 5): nothing: C is eliminated before its turn."), "{out}");
    assert!(out.contains("Next UTG: A (tie"), "{out}");
}

/// The calculator's text is prose: no Debug formatting, articles that fit the word.
#[test]
fn calculator_output_has_no_debug_formatting_and_articles_fit_the_word() {
    let file = examples().join("resolve/hand-1.toml");
    let outs = [
        stdout(&resolve(&["--input", file.to_str().unwrap(), "--pot", "7"])),
        stdout(&resolve(&[
            "--actor",
            "A: fit 3 -> B,C",
            "--actor",
            "B: pre 1 -> A",
            "--actor",
            "C: int 1 -> B",
            "--stakes",
            "2",
            "--serial",
            "A=M3(3/3/3)-B3(3/3/3)-S3(3/3/3)",
            "--serial",
            "B=M1(1/-/-)-B1(1/1/1)-S1(1/1/1)",
            "--serial",
            "C=M3(3/3/3)-B3(3/3/3)-S3(3/3/3)",
        ])),
    ];
    for out in outs {
        assert!(!out.is_empty());
        for bad in ["[\"", "Some(", "None", "ActorId", "AttackerOut", "TargetOut"] {
            assert!(!out.contains(bad), "{bad:?} in:\n{out}");
        }
        let words: Vec<&str> = out.split_whitespace().collect();
        for w in words.windows(2) {
            if w[0] == "a" {
                assert!(!w[1].starts_with(['A', 'E', 'I', 'O', 'U', 'a', 'e', 'i', 'o', 'u']), "{out}");
            }
        }
    }
}

/// Decision "UTG when the leader is out" (rules reference §5, Update State; issue 32): B alone
/// has the most Dominance wins but is eliminated; the text names A, the most wins among those
/// still in, and says why; a void strike on C, who has no serial, lets 0 through in `--json`.
#[test]
fn calculator_says_utg_goes_to_most_wins_among_those_still_in() {
    use std::io::Write as _;
    let hand = r#"{"stakes":1,"actors":[{"name":"A","serial":"M3(3/3/3)-B3(3/3/3)-S3(3/3/3)","attribute":"KNO","bid":1,"targets":["B"]},{"name":"B","serial":"M1(1/-/-)-B3(3/3/3)","attribute":"STR","bid":3,"targets":["A","C"]},{"name":"C","attribute":"WIL","bid":0,"targets":["B"]}]}"#;
    let run = |json: bool| {
        let mut args = vec!["nodice", "resolve", "--input", "-"];
        if json {
            args.push("--json");
        }
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the binary runs");
        child.stdin.take().unwrap().write_all(hand.as_bytes()).unwrap();
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let out = run(false);
    assert!(
        out.contains(
            "Next UTG: A (B had the most Dominance wins but is eliminated: most wins among those still in)."
        ),
        "{out}"
    );
    let v: serde_json::Value = serde_json::from_str(&run(true)).unwrap();
    assert_eq!(v["next_utg"], "A");
    assert_eq!(v["utg_why"], serde_json::json!({"why": "leader_out", "leader": "B"}));
    let b_to_c = v["strikes"].as_array().unwrap().iter().find(|s| s["attacker"] == "B" && s["target"] == "C");
    assert_eq!(b_to_c.unwrap()["damage_through"], 0, "{v}");
}
