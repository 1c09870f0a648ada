//! End-to-end tests of the `rules` subcommands: `facedown iron-triangle rules`,
//! `facedown nodice rules`, `facedown inciting-incident rules` print the ruleset's own quick
//! reference, as text or as JSON.

use std::process::{Command, Output};

use table::Ruleset;

const BIN: &str = env!("CARGO_BIN_EXE_facedown");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("the binary runs")
}

/// The text `facedown SYSTEM rules` prints, checked to succeed.
fn text(system: &str) -> String {
    let o = run(&[system, "rules"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).expect("UTF-8")
}

/// The JSON `facedown SYSTEM rules --json` prints, checked to succeed.
fn json(system: &str) -> serde_json::Value {
    let o = run(&[system, "rules", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

fn check<R: Ruleset>(system: &str, alias: &str, symbols: &[&str]) {
    let reference = R::quick_reference();
    assert!(reference.contains("LEGEND"), "{reference}");
    assert_eq!(text(system), reference, "the text is the ruleset's own");
    assert_eq!(text(alias), reference, "the alias {alias} prints it too");
    for s in symbols {
        assert!(reference.contains(s), "{s} missing from\n{reference}");
    }
    let v = json(system);
    assert_eq!(v["ruleset"], R::NAME);
    assert_eq!(v["reference"], reference.as_str());
}

#[test]
fn rules_prints_iron_triangles_quick_reference() {
    check::<iron_triangle::IronTriangle>("iron-triangle", "it", &["☷", "☵", "☲", "☰", "☯", "○", "▨", "◆"]);
}

#[test]
fn rules_prints_no_dices_quick_reference() {
    check::<nodice::NoDice>("nodice", "nd", &["Mind", "Body", "Spirit", "REA", "INT", "Showdown Total"]);
}

#[test]
fn rules_prints_inciting_incidents_quick_reference() {
    check::<inciting_incident::IncitingIncident>(
        "inciting-incident",
        "ii",
        &["Resilience", "Resolve", "Reactions", "d6:4", "Flow"],
    );
}

#[test]
fn rules_refuses_an_unknown_flag_with_status_2() {
    let o = run(&["nodice", "rules", "--jsn"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--jsn"));
}
