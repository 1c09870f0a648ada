//! Shared helpers: the example scenes and a seeded random player.
#![allow(dead_code)]

use inciting_incident::{IncitingIncident, Scene, Setup};
use rand::RngExt;
use table::{Table, seeded_rng};

/// The example scene file `name` under examples/inciting-incident/.
pub fn example(name: &str) -> Setup {
    let path = format!("{}/../../examples/inciting-incident/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    toml::from_str(&text).unwrap()
}

/// The example fight.
pub fn fight() -> Scene {
    Scene::new(example("river-fight.toml")).unwrap()
}

/// Plays a table to its end (or `max_steps` commands) with uniformly random legal commands.
pub fn play_random(table: &mut Table<IncitingIncident>, seed: u64, max_steps: usize) -> usize {
    let mut rng = seeded_rng(seed);
    let mut legal = Vec::new();
    let mut steps = 0;
    while !table.is_over() && steps < max_steps {
        let awaiting = table.awaiting();
        assert!(!awaiting.is_empty(), "nobody to act: {}", table.state().waiting_for());
        let seat = awaiting[rng.random_range(0..awaiting.len())];
        table.legal_commands(seat, &mut legal);
        let c = legal[rng.random_range(0..legal.len())];
        table.submit(seat, &c).unwrap();
        steps += 1;
    }
    steps
}
