//! The worked examples of `docs/iron-triangle-resolve.md` (the files under
//! `examples/iron-triangle/resolve/`, from the rules reference §5.2–§5.5 and §6) resolved by
//! [`referee::compute`]: the winner and the step that decided it, every loss component, the
//! chains of the next turn and, with specials, the final losses, who spreads them, the gains
//! and the losses taken over. (The command's text and flags are tested in
//! crates/facedown/tests/it_resolve.rs.)

use std::collections::BTreeSet;
use std::path::PathBuf;

use iron_triangle::referee::{self, TurnSheet};
use serde_json::{Value, json};

fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/iron-triangle/resolve")
}

/// An example file, TOML or JSON by its extension.
fn read(file: &str) -> TurnSheet {
    let text = std::fs::read_to_string(examples_dir().join(file)).expect("the example is readable");
    if file.ends_with(".json") {
        serde_json::from_str(&text).expect("the example is JSON")
    } else {
        toml::from_str(&text).expect("the example is TOML")
    }
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
    let base = |file: &'static str| Expected {
        file,
        outcome: "win",
        winner: Some("a"),
        decided_by: "action",
        losses: [NONE, B_11],
        stance_type: [None, Some("defend")],
        next_disadvantage: [&[], &["○☷"]],
        next_combo: Some(("a", &["▨☰"])),
        json: &[],
    };
    vec![
        (
            base("pressure-point.toml"),
            Settled {
                final_losses: [FINAL_NONE, B_11_FINAL],
                spreaders: ["a", "a"],
                extras: &[],
                specials: &[("a", "pressure_point", true)],
            },
        ),
        (
            base("wax-on.toml"),
            Settled {
                final_losses: [FINAL_NONE, [0, 1, 4, 0, 0, 0, 5, 4]],
                spreaders: ["a", "b"],
                extras: &[],
                specials: &[("b", "wax_on_grapple", true)],
            },
        ),
        (
            base("parry.toml"),
            Settled {
                final_losses: [FINAL_NONE, FINAL_NONE],
                spreaders: ["a", "b"],
                extras: &[],
                specials: &[("b", "parry_grapple", true)],
            },
        ),
        (
            base("santa-carla.toml"),
            Settled {
                final_losses: [FINAL_NONE, B_11_FINAL],
                spreaders: ["a", "b"],
                extras: &[("a", "gain", 2, "santa_carla_grapple")],
                specials: &[("a", "santa_carla_grapple", true)],
            },
        ),
        (
            base("vampire.toml"),
            Settled {
                final_losses: [FINAL_NONE, B_11_FINAL],
                spreaders: ["a", "b"],
                extras: &[("a", "gain", 11, "vampire_grapple")],
                specials: &[("a", "vampire_grapple", true)],
            },
        ),
        (
            base("dig-two-graves.toml"),
            Settled {
                final_losses: [[0, 0, 0, 0, 0, 11, 11, 11], B_11_FINAL],
                spreaders: ["a", "b"],
                extras: &[],
                specials: &[("b", "dig_two_graves_grapple", true)],
            },
        ),
        (
            base("yojimbo.toml"),
            Settled {
                final_losses: [FINAL_NONE, FINAL_NONE],
                spreaders: ["a", "b"],
                extras: &[("b_ally", "loss", 11, "yojimbo")],
                specials: &[("b_ally", "yojimbo", true)],
            },
        ),
        (
            base("pressure-point-yojimbo.toml"),
            Settled {
                final_losses: [FINAL_NONE, FINAL_NONE],
                spreaders: ["a", "b"],
                extras: &[("b_ally", "loss", 11, "yojimbo")],
                specials: &[("a", "pressure_point", true), ("b_ally", "yojimbo", true)],
            },
        ),
        (
            // §6 Decision (Liquid Metal): a copy and its original do not cancel.
            base("liquid-metal.toml"),
            Settled {
                final_losses: [FINAL_NONE, [0, 1, 4, 0, 0, 0, 5, 4]],
                spreaders: ["a", "b"],
                extras: &[],
                specials: &[("a", "wax_on_grapple", false), ("b", "liquid_metal", true)],
            },
        ),
        (
            base("wax-on-vs-dig-two-graves.toml"),
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
fn every_example_resolves_as_the_rules_say() {
    for (e, settled) in all_expectations() {
        let report = referee::compute(&read(e.file)).unwrap_or_else(|err| panic!("{}: {err}", e.file));
        let v = serde_json::to_value(&report).expect("the report is JSON");
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
