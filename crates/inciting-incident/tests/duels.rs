//! Duel bookkeeping (rules reference §6, seed "Flow of Battle", Decision on alliances): the
//! audit's reproductions, and a property over random scenes that every Duel's Flow is
//! combined at most once, a re-formed Duel starts at the Flow it was left at (0 between former
//! allies), and every Duel formed or joined is logged.

mod common;

use common::duels::{check_log, check_quiet};
use common::script::{data, run};
use inciting_incident::rules::FlowSource;
use inciting_incident::{Event, IncitingIncident, Scene, Setup};
use proptest::prelude::*;
use rand::RngExt;
use table::{Table, seeded_rng};

/// The audit's `ii_alliance_flow` reproduction: the watch and the cult are allied against the
/// smugglers in the Hall and win its Duel to +4; the cult captain walks to the Tower, the
/// smugglers are beaten and the alliance ends, and the watchman walks into the Tower.
#[test]
fn flow_won_while_allied_is_never_carried_into_a_duel_between_the_former_allies() {
    let setup: Setup = serde_json::from_str(&data("ii_alliance_flow.json")).unwrap();
    let table = run(setup, &data("ii_alliance_flow.jsonl"));
    let s = table.state();
    check_log(table.initial(), table.log()).unwrap();
    let tower = s.find_region("Tower").unwrap();
    let d = s.duel_in(tower).expect("the watch and the cult fight in the Tower");
    assert_eq!(s.duels[usize::from(d)].flow, 0, "no Flow won while allied: {:?}", s.duels);
    assert!(!table.log().iter().any(|e| matches!(e, Event::DuelsCombined { .. })), "{:?}", table.log());
    // The Duel between the former allies is formed in the log, at 0, after the alliance ends.
    let ended = table.log().iter().position(|e| matches!(e, Event::AllianceEnded { .. })).unwrap();
    assert!(
        table.log()[ended..].iter().any(|e| matches!(
            e,
            Event::DuelFormed { region, flow: 0, from: FlowSource::New, .. } if *region == tower
        )),
        "{:?}",
        &table.log()[ended..]
    );
}

/// Plays a scene with random legal commands, checking after each command that the Duels stand
/// where everyone is.
fn play_checked(initial: Scene, seed: u64, max_steps: usize) -> Result<Table<IncitingIncident>, String> {
    let mut table = Table::<IncitingIncident>::new(initial);
    let mut rng = seeded_rng(seed);
    let mut legal = Vec::new();
    for _ in 0..max_steps {
        if table.is_over() {
            break;
        }
        let awaiting = table.awaiting();
        let seat = awaiting[rng.random_range(0..awaiting.len())];
        table.legal_commands(seat, &mut legal);
        legal.retain(|c| !c.is_gm_ruling());
        let c = legal[rng.random_range(0..legal.len())];
        table.submit(seat, &c).unwrap();
        if !table.is_over() {
            check_quiet(table.state()).map_err(|m| format!("after {c:?}: {m}"))?;
        }
    }
    Ok(table)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// §6 over random multi-Region scenes (two sides, three factions, the flowjump map): a
    /// Duel's Flow is combined at most once, a re-formed Duel starts at the Flow it was left
    /// at (0 between former allies), the same opponents get the Duel they last fought in, and
    /// every Duel formed or joined is logged.
    #[test]
    fn duel_bookkeeping_holds_over_random_scenes(which in 0u8..3, dice in any::<u64>(), bots in any::<u64>()) {
        let mut setup = match which {
            0 => common::example("river-fight.toml"),
            1 => common::example("three-factions.toml"),
            _ => toml::from_str(&data("flowjump.toml")).unwrap(),
        };
        setup.seed = dice;
        let table = play_checked(Scene::new(setup).unwrap(), bots, 5_000);
        let table = match table {
            Ok(t) => t,
            Err(m) => return Err(TestCaseError::fail(m)),
        };
        if let Err(m) = check_log(table.initial(), table.log()) {
            return Err(TestCaseError::fail(m));
        }
    }
}
