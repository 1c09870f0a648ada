//! Scripted scenes: a scene file and `play`-style script lines (names, not numbers), as the
//! audit's reproductions under `tests/data/` are written.

use inciting_incident::{Command, IncitingIncident, Scene, Setup};
use serde_json::Value;
use table::Table;

/// A file under `tests/data/`.
pub fn data(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Replaces the script's names (characters, Talents, Regions) by numbers, as `play` does.
pub fn numbers(v: &mut Value, scene: &Scene, acting: Option<u8>) {
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
pub fn forced(table: &mut Table<IncitingIncident>) {
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

/// Plays the script `lines` (one JSON command a line; `#` comments) on a new table of `setup`.
pub fn run(setup: Setup, lines: &str) -> Table<IncitingIncident> {
    let mut table = Table::<IncitingIncident>::new(Scene::new(setup).unwrap());
    for line in lines.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let mut v: Value = serde_json::from_str(line).unwrap();
        let seat = table.state().seats.find(v["seat"].as_str().unwrap()).unwrap();
        numbers(&mut v["command"], table.state(), None);
        let c: Command = serde_json::from_value(v["command"].clone()).unwrap();
        forced(&mut table);
        table.submit(seat, &c).unwrap();
    }
    forced(&mut table);
    table
}
