//! End-to-end tests of `facedown inciting-incident roll`, the dice calculator: flags, text and
//! `--json` output, exit codes. The rules it applies are tested on
//! `inciting_incident::calculator` in crates/inciting-incident/tests/calculator.rs.

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_facedown");

fn roll(args: &[&str]) -> Output {
    Command::new(BIN).args(["inciting-incident", "roll"]).args(args).output().expect("the binary runs")
}

fn json(args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.push("--json");
    let o = roll(&a);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn worked_example_c_decisive_with_real_dice() {
    // The numbers are the crate's (crates/inciting-incident/tests/calculator.rs); the text shows them.
    let o = roll(&[
        "decisive",
        "--level",
        "7",
        "--rd",
        "2",
        "--rv",
        "6",
        "--ability",
        "4",
        "--flow",
        "4",
        "--attack",
        "17",
        "--defence",
        "9",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("needed 11") && text.contains("Hit: 2 hit(s)"), "{text}");
}

#[test]
fn seeded_rolls_repeat_and_show_each_die() {
    let a = roll(&["talent", "--level", "9", "--rd", "2", "--seed", "5", "--advantage", "1"]);
    let b = roll(&["talent", "--level", "9", "--rd", "2", "--seed", "5", "--advantage", "1"]);
    assert_eq!(a.stdout, b.stdout);
    let text = String::from_utf8_lossy(&a.stdout);
    assert!(text.contains("d10:") && text.contains("dropped"), "{text}");
}

#[test]
fn the_level_table() {
    let v = json(&["levels"]);
    assert_eq!(v["levels"][8]["dice"], "3d10");
    assert_eq!(v["levels"][8]["cost"], 45);
}

#[test]
fn bad_input_exits_2_with_the_rule() {
    let o = roll(&["talent", "--level", "12"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&o.stderr).contains('§'));
    let o = roll(&["decisive", "--level", "5", "--rd", "2", "--rv", "0", "--ability", "3"]);
    assert_eq!(o.status.code(), Some(2));
    let o = roll(&["talent", "--level", "5", "--rule", "coin"]);
    assert_eq!(o.status.code(), Some(2));
    let o = roll(&["rest", "--level", "5", "--hits", "3", "--max-hits", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&o.stderr).contains('§'));
}

#[test]
fn numbers_at_the_ends_of_their_range_answer_instead_of_panicking() {
    // A failed Talent Roll far below 20: Crisis 20 − result.
    let v = json(&["talent", "--level", "5", "--result=-2147483648"]);
    assert_eq!(v["crisis"], 2_147_483_668u64);
    // A modifier past the engine's MAX_MODIFIER is refused, as on a sheet.
    let o = roll(&["talent", "--level", "5", "--modifier", "2147483647", "--seed", "1"]);
    assert_eq!(o.status.code(), Some(2));
    let v = json(&["talent", "--level", "5", "--modifier", "100", "--seed", "1"]);
    assert!(v["total"].as_i64().unwrap() > 100);
    for flow in ["-2147483648", "2147483647"] {
        for json_flag in [true, false] {
            let flow = format!("--flow={flow}");
            let mut args = vec![
                "decisive",
                "--level",
                "5",
                "--rd",
                "2",
                "--rv",
                "7",
                "--ability",
                "3",
                "--attack",
                "2147483647",
                "--defence=-2147483648",
            ];
            args.push(&flow);
            if json_flag {
                args.push("--json");
            }
            let o = roll(&args);
            assert!(o.status.success(), "--flow {flow}: {}", String::from_utf8_lossy(&o.stderr));
        }
    }
}

#[test]
fn ability_levels_above_9_are_refused_not_rolled_as_no_dice() {
    // §3.1: levels go from 0 to 9; a level 12 is a typo, not "no dice".
    for args in [
        &["ability", "--level", "12"][..],
        &["rest", "--level", "10", "--hits", "1", "--max-hits", "2"][..],
        &["decisive", "--level", "5", "--rd", "2", "--rv", "6", "--ability", "10"][..],
    ] {
        let o = roll(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains('§') && err.contains("0 to 9"), "{args:?}: {err}");
    }
    // Level 0 is a level: no dice, only the difficulty.
    assert!(roll(&["ability", "--level", "0", "--seed", "1"]).status.success());
}

#[test]
fn roll_bounds_are_the_engines_and_stated_in_help() {
    use inciting_incident::attack::MAX_ADVANTAGE;
    use inciting_incident::character::{MAX_DICE, MAX_MODIFIER};
    let over = (MAX_DICE + 1).to_string();
    let (m_over, m_under) = ((MAX_MODIFIER + 1).to_string(), format!("--modifier={}", -MAX_MODIFIER - 1));
    let a_over = format!("--advantage={}", MAX_ADVANTAGE + 1);
    for args in [
        &["talent", "--level", "5", "--rd", &over][..],
        &["talent", "--level", "5", "--modifier", &m_over],
        &["talent", "--level", "5", &m_under],
        &["talent", "--level", "5", &a_over],
        &["decisive", "--level", "5", "--rd", &over, "--rv", "6", "--ability", "3"],
        &["decisive", "--level", "5", "--rd", "2", "--rv", "6", "--ability", "3", "--modifier", &m_over],
        &["ability", "--level", "5", "--difficulty", &over],
        &["rest", "--level", "5", "--hits", "1", "--max-hits", "2", "--difficulty", &over],
    ] {
        let o = roll(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
    let many = vec!["6"; usize::from(MAX_DICE) + 1].join(",");
    let o = roll(&[
        "decisive",
        "--level",
        "5",
        "--rd",
        "2",
        "--rv",
        "6",
        "--ability",
        "3",
        "--protection",
        &many,
    ]);
    assert_eq!(o.status.code(), Some(2));
    // The edges themselves are accepted.
    let edge = MAX_DICE.to_string();
    let m_edge = format!("--modifier={}", -MAX_MODIFIER);
    assert!(roll(&["talent", "--level", "5", "--rd", &edge, &m_edge, "--seed", "1"]).status.success());
    let help = String::from_utf8_lossy(&roll(&["talent", "--help"]).stdout).into_owned();
    assert!(help.contains(&format!("0 to {MAX_DICE}")), "{help}");
    assert!(help.contains(&format!("-{MAX_MODIFIER} to {MAX_MODIFIER}")), "{help}");
    assert!(help.contains(&format!("-{MAX_ADVANTAGE} to {MAX_ADVANTAGE}")), "{help}");
}

#[test]
fn roll_output_has_no_negative_zero_and_no_probability_above_one() {
    let text = String::from_utf8_lossy(&roll(&["levels"]).stdout).into_owned();
    assert!(!text.contains("-0.0"), "{text}");
    let o = roll(&["ability", "--level", "1", "--difficulty", "0", "--seed", "1", "--json"]);
    let raw = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(!raw.contains("-0.0"), "{raw}");
    let text =
        String::from_utf8_lossy(&roll(&["talent", "--level", "1", "--modifier=-100", "--seed", "1"]).stdout)
            .into_owned();
    assert!(!text.contains("-0.0"), "{text}");
    for args in
        [&["talent", "--level", "9", "--rd", "20", "--modifier", "100", "--seed", "1"][..], &["levels"]]
    {
        let v = json(args);
        let mut ps = Vec::new();
        if let Some(p) = v["p_success"].as_f64() {
            ps.push(p);
        }
        for l in v["levels"].as_array().into_iter().flatten() {
            ps.push(l["p_20"].as_f64().unwrap());
        }
        assert!(!ps.is_empty() && ps.iter().all(|p| (0.0..=1.0).contains(p)), "{args:?}: {ps:?}");
    }
}

#[test]
fn rest_calculator_a_character_at_max_death_hits_is_dead_not_recovered() {
    let args = [
        "rest",
        "--level",
        "5",
        "--hits",
        "2",
        "--max-hits",
        "2",
        "--death-hits",
        "2",
        "--incapacitated",
        "--result",
        "25",
    ];
    let text = String::from_utf8_lossy(&roll(&args).stdout).into_owned();
    assert!(text.contains("dead") && !text.contains("no longer Incapacitated"), "{text}");
}

#[test]
fn rest_calculator_full_day_does_not_heal_the_incapacitated() {
    let base = ["rest", "--level", "5", "--hits", "2", "--max-hits", "2", "--incapacitated", "--full-day"];
    let mut bad = base.to_vec();
    bad.extend(["--result", "3"]);
    let text = String::from_utf8_lossy(&roll(&bad).stdout).into_owned();
    assert!(text.contains("does not apply while Incapacitated"), "{text}");
}

/// Rules reference §9, Decision on the state at Max Hits: `roll rest --level 4 --hits 2
/// --max-hits 2 --full-day` answered `fully_healed`, reading Max Hits without
/// `--incapacitated` as revived. It is refused, naming both flags; `--revived` says it.
#[test]
fn rest_calculator_at_max_hits_refuses_to_guess_incapacitated_or_revived() {
    let base = ["rest", "--level", "4", "--hits", "2", "--max-hits", "2", "--full-day"];
    let o = roll(&base);
    assert!(!o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(err.contains("--incapacitated") && err.contains("--revived"), "{err}");
    let mut said = base.to_vec();
    said.push("--revived");
    let o = roll(&said);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut both = said.clone();
    both.push("--incapacitated");
    assert!(!roll(&both).status.success());
}
