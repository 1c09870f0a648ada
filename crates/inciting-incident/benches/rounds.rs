//! Benchmark: simulated rounds of the example fight (examples/inciting-incident/
//! river-fight.toml) through the full engine — declarations, reveal, resolution, dice,
//! Crisis Triggers, legal-command lists — with seeded random players. Issue target: at least
//! 100,000 rounds per second on one core.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use inciting_incident::{IncitingIncident, Scene, Setup};
use rand::RngExt;
use table::{SeatId, Table, seeded_rng};

fn fight() -> Result<Scene, String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/inciting-incident/river-fight.toml");
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let setup: Setup = toml::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    Scene::new(setup).map_err(|e| format!("{path}: {e}"))
}

/// Plays each scene to its end with random legal commands; returns the rounds played.
fn play(scenes: &[Scene], table: &mut Table<IncitingIncident>) -> u64 {
    let mut rng = seeded_rng(7);
    let mut legal = Vec::new();
    let mut awaiting: Vec<SeatId> = Vec::new();
    let mut rounds = 0;
    for scene in scenes {
        table.restart(scene.clone());
        while !table.is_over() {
            table.awaiting_into(&mut awaiting);
            let seat = awaiting[rng.random_range(0..awaiting.len())];
            table.legal_commands(seat, &mut legal);
            legal.retain(|c| !c.is_gm_ruling());
            let c = legal[rng.random_range(0..legal.len())];
            if table.submit(seat, &c).is_err() {
                break;
            }
        }
        rounds += u64::from(table.state().round);
    }
    rounds
}

fn rounds(c: &mut Criterion) {
    // 100 games, each with its own dice.
    let initial = match fight() {
        Ok(scene) => scene,
        Err(e) => panic!("the example fight cannot start: {e}"),
    };
    let scenes: Vec<Scene> = (0..100)
        .map(|g| {
            let mut scene = initial.clone();
            std::sync::Arc::make_mut(&mut scene.setup).seed = g;
            scene
        })
        .collect();
    let mut table = Table::unlogged(initial);
    let total = play(&scenes, &mut table);
    let mut group = c.benchmark_group("inciting_incident");
    group.throughput(Throughput::Elements(total));
    group.bench_function("random_rounds_river_fight", |b| {
        b.iter(|| black_box(play(black_box(&scenes), &mut table)))
    });
    group.finish();
}

criterion_group!(benches, rounds);
criterion_main!(benches);
