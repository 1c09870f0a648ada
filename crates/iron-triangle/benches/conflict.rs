//! Benchmark: one turn's resolution (issue target: ≥ 10 million per second on one core).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use iron_triangle::turn::{Contender, Play, resolve};
use iron_triangle::{Move, Stance};

fn turn_resolution(c: &mut Criterion) {
    // Every pair of moves with a spread of stances, disadvantage and combo states.
    let mut pairs = Vec::new();
    for (i, &a) in Move::ALL.iter().enumerate() {
        for (j, &b) in Move::ALL.iter().enumerate() {
            let sa = Stance::new(a.action(), (i % 4) as u8);
            let sb = Stance::new(Move::ALL[(i + j) % 13].action(), (j % 3) as u8);
            let ca = Contender { combo_len: (i % 3) as u8, ..Contender::plain(sa, Play::Move(a)) };
            let cb = Contender {
                disadvantage_newest: (j % 2 == 0).then_some(Move::ALL[(i * 7 + j) % 13]),
                disadvantage_len: (j % 2 == 0) as u8 * 2,
                ..Contender::plain(sb, Play::Move(b))
            };
            pairs.push([ca, cb]);
        }
    }
    let mut group = c.benchmark_group("iron_triangle");
    group.throughput(Throughput::Elements(pairs.len() as u64));
    group.bench_function("turn_resolution", |bench| {
        bench.iter(|| {
            let mut total = 0u32;
            for p in &pairs {
                let r = resolve(black_box(p));
                total += r.losses[0].total() + r.losses[1].total();
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, turn_resolution);
criterion_main!(benches);
