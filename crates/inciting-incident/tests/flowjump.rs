//! §6 regression: a Duel that breaks up only because a combatant is Incapacitated re-forms,
//! after the keep-fighting roll, with its own Flow — not an older Duel's (the audit's
//! `flowjump` reproduction, kept in `tests/data/`).

use inciting_incident::rules::FlowSource;
use inciting_incident::{Command, Event, IncitingIncident, Scene, Setup};
use serde_json::Value;
use table::Table;

fn data(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Replaces the script's names (characters, Talents, Regions) by numbers, as `play` does.
fn numbers(v: &mut Value, scene: &Scene, acting: Option<u8>) {
    match v {
        Value::Array(items) => items.iter_mut().for_each(|x| numbers(x, scene, acting)),
        Value::Object(map) => {
            let mut acting = acting;
            if let Some(Value::String(n)) = map.get("character") {
                let id = scene.find_fighter(n).unwrap();
                map.insert("character".into(), id.into());
                acting = Some(id);
            }
            for (k, x) in map.iter_mut() {
                match (k.as_str(), &*x) {
                    ("talent", Value::String(n)) => {
                        let f = &scene.fighters[usize::from(acting.unwrap())];
                        *x = f.sheet.talents.iter().position(|t| &t.name == n).unwrap().into();
                    }
                    ("path", Value::Array(rs)) => {
                        *x = rs.iter().map(|r| scene.find_region(r.as_str().unwrap()).unwrap()).collect();
                    }
                    _ => numbers(x, scene, acting),
                }
            }
        }
        _ => {}
    }
}

/// Takes every decision with one legal command (the acts of a side's characters), as `play`
/// does between script lines.
fn forced(table: &mut Table<IncitingIncident>) {
    let mut legal = Vec::new();
    loop {
        let next = table.awaiting().into_iter().find_map(|seat| {
            table.legal_commands(seat, &mut legal);
            legal.retain(|c| !c.is_gm_ruling());
            (legal.len() == 1).then(|| (seat, legal[0]))
        });
        let Some((seat, c)) = next else { return };
        table.submit(seat, &c).unwrap();
    }
}

#[test]
fn duel_reformed_after_keep_fighting_keeps_its_own_flow() {
    let setup: Setup = toml::from_str(&data("flowjump.toml")).unwrap();
    let mut table = Table::<IncitingIncident>::new(Scene::new(setup).unwrap());
    for line in data("flowjump.jsonl").lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let mut v: Value = serde_json::from_str(line).unwrap();
        let seat = table.state().seats.find(v["seat"].as_str().unwrap()).unwrap();
        numbers(&mut v["command"], table.state(), None);
        let c: Command = serde_json::from_value(v["command"].clone()).unwrap();
        forced(&mut table);
        table.submit(seat, &c).unwrap();
    }
    forced(&mut table);
    let scene = table.state();
    assert_eq!(scene.round, 7, "round 6 is over: {}", scene.waiting_for());
    let b = scene.find_region("B").unwrap();
    let d = scene.duel_in(b).expect("after round 6 the Duel in B stands again");
    assert_eq!(scene.duels[usize::from(d)].flow, 12, "the Duel in B re-forms at +12");
    let reformed = table
        .log()
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::DuelFormed { region, flow, from, .. } if *region == b => Some((*flow, *from)),
            _ => None,
        })
        .unwrap();
    assert_eq!(reformed, (12, FlowSource::Restored));
}

mod common;

use proptest::prelude::*;

/// The Duels the combatants of `members` were last in.
fn last_duels(scene: &Scene, members: u64) -> Vec<u16> {
    let n = scene.fighters.len();
    let mut out: Vec<u16> = (0..64usize)
        .filter(|b| members & (1u64 << b) != 0)
        .filter_map(|b| {
            if b < n { scene.fighters[b].duel } else { scene.minions.get(b - n).and_then(|m| m.duel) }
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// §6 in random multi-Region games: when a Duel is restored and everyone in it was last in
    /// one and the same Duel, that is the Duel restored (the audit found the wrong, older
    /// Duel's Flow in about 5% of such games).
    #[test]
    fn duel_restored_is_the_one_its_combatants_were_last_in(which in 0u8..2, dice in any::<u64>(), bots in any::<u64>()) {
        let name = if which == 0 { "river-fight.toml" } else { "three-factions.toml" };
        let mut setup = common::example(name);
        setup.seed = dice;
        let mut table = Table::<IncitingIncident>::new(Scene::new(setup).unwrap());
        common::play_random(&mut table, bots, 5_000);
        let mut state = table.initial().clone();
        for e in table.log() {
            if let Event::DuelFormed { duel, from: FlowSource::Restored, members, .. } = e {
                let last = last_duels(&state, *members);
                if let [only] = last[..] {
                    prop_assert_eq!(*duel, only, "restored Duel {} but everyone was last in Duel {}", duel, only);
                }
            }
            state.apply(e);
        }
    }
}
