//! Benchmark: whole random 1v1 Iron Triangle conflicts between random bots, through the full
//! engine (commands, events, automatic steps), without keeping the log
//! (issue target: ≥ 1 million conflicts per second on one core).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use iron_triangle::{Character, Conflict, Energy, IronTriangle, Setup};
use solver::bots::{GreedyBot, RandomBot, Runner};
use table::Table;

fn duel() -> Conflict {
    Conflict::new(Setup::one_on_one(
        Character::with_starting_moves("Ada", Energy::new(3, 2, 5)),
        Character::with_starting_moves("Bandit", Energy::new(4, 3, 3)),
    ))
    .expect("valid duel")
}

fn conflicts(c: &mut Criterion) {
    let start = duel();
    let mut group = c.benchmark_group("iron_triangle");
    group.throughput(Throughput::Elements(1));
    // One table and one runner reused from conflict to conflict, as a simulation would.
    let mut table = Table::<IronTriangle>::unlogged(start.clone());
    let mut runner = Runner::new();
    let (mut a, mut b) = (RandomBot::new(1), RandomBot::new(2));
    group.bench_function("random_1v1_conflict", |bench| {
        bench.iter(|| {
            table.restart_from(&start);
            runner.play_out(&mut table, &mut [&mut a, &mut b], 10_000).expect("bots finish")
        })
    });
    let (mut g, mut r) = (GreedyBot::new(), RandomBot::new(3));
    group.bench_function("greedy_vs_random_1v1_conflict", |bench| {
        bench.iter(|| {
            table.restart_from(&start);
            runner.play_out(&mut table, &mut [&mut g, &mut r], 10_000).expect("bots finish")
        })
    });
    group.finish();
}

criterion_group!(benches, conflicts);
criterion_main!(benches);
