//! Duel bookkeeping in `facedown inciting-incident play` (rules reference §6, seed "Flow of
//! Battle"): the random games in which the audit found a Duel re-formed at the wrong Flow, a
//! combatant joining without a logged join, and a Duel's Flow combined twice. Each game is
//! played by the built binary with the audit's seeds; its spectator log (`--json`) is replayed
//! and every Duel event checked against the rules (the checks of the rules crate's tests).

use std::path::Path;
use std::process::Command;

use inciting_incident::{Event, Scene, Setup};

#[path = "../../inciting-incident/tests/common/duels.rs"]
mod duels;

const BIN: &str = env!("CARGO_BIN_EXE_facedown");

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/inciting-incident")
        .join(name)
        .display()
        .to_string()
}

/// Plays `scene` with random bots and the given seeds; returns the initial scene and the log.
fn play(scene: &str, seed: &str, dice_seed: Option<&str>) -> (Scene, Vec<Event>) {
    let mut args = vec!["inciting-incident", "play", scene, "--bot", "all=random", "--seed", seed, "--json"];
    if let Some(d) = dice_seed {
        args.extend(["--dice-seed", d]);
    }
    let out = Command::new(BIN).args(&args).output().expect("the binary runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut setup: Setup = toml::from_str(&std::fs::read_to_string(scene).unwrap()).unwrap();
    if let Some(d) = dice_seed {
        setup.seed = d.parse().unwrap();
    }
    setup.apply_round_limit(None);
    let log = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (v["kind"] == "event").then(|| serde_json::from_value(v["event"].clone()).unwrap())
        })
        .collect();
    (Scene::new(setup).unwrap(), log)
}

fn checked(scene: &str, seed: &str, dice_seed: Option<&str>) -> Vec<Event> {
    let (initial, log) = play(&example(scene), seed, dice_seed);
    assert!(!log.is_empty());
    if let Err(m) = duels::check_log(&initial, &log) {
        panic!("{scene} --seed {seed} --dice-seed {dice_seed:?}: {m}");
    }
    log
}

/// `river-fight.toml --bot all=random --seed 15`: the Duel in the Rocks broke up only because
/// the cult captain was taken out; after the keep-fighting roll it re-formed at 0 (event 155).
#[test]
fn duel_broken_by_a_takeout_reforms_at_the_flow_it_was_left_at() {
    let log = checked("river-fight.toml", "15", None);
    // The game still has a Duel re-formed after a keep-fighting roll, restored.
    assert!(log.iter().any(|e| matches!(e, Event::KeptFighting { .. })));
}

/// `three-factions.toml --bot all=random --seed 242340 --dice-seed 840803`: the Duel in the
/// Ford, left at +1, re-formed at +3 (an older Duel's), a combatant walking back into it
/// without a `duel_joined` event (event 165).
#[test]
fn same_opponents_reengaging_get_the_duel_they_last_fought_in_and_joins_are_logged() {
    checked("three-factions.toml", "242340", Some("840803"));
}

/// `river-fight.toml --bot all=random --seed 513295 --dice-seed 732404`: the Flow of the Duel
/// in the Shallows was combined twice (events 188 and 331); the seed says only once.
#[test]
fn a_duels_flow_is_combined_only_once() {
    checked("river-fight.toml", "513295", Some("732404"));
}
