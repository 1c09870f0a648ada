//! Plays many random 1v1 Iron Triangle conflicts, the same work as the `random_1v1_conflict`
//! benchmark, as a plain program for profilers (`perf`, `valgrind --tool=callgrind`), whose
//! instruction counts are repeatable where wall time is not.
//!
//! It plays the conflicts in batches of 10,000 and prints the best batch's rate too: on a busy
//! machine the fastest batch is the one least disturbed by other processes, which makes it the
//! fairer figure for comparing two builds run side by side.
//!
//! `cargo run --release -p solver --example random_conflicts -- 100000`

use std::time::Instant;

use iron_triangle::{Character, Conflict, Energy, IronTriangle, Setup};
use solver::bots::{RandomBot, Runner};
use table::Table;

const BATCH: u64 = 10_000;

fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let start = Conflict::new(Setup::one_on_one(
        Character::with_starting_moves("Ada", Energy::new(3, 2, 5)),
        Character::with_starting_moves("Bandit", Energy::new(4, 3, 3)),
    ))
    .expect("valid duel");
    let mut table = Table::<IronTriangle>::unlogged(start.clone());
    let mut runner = Runner::new();
    let (mut a, mut b) = (RandomBot::new(1), RandomBot::new(2));
    let mut decisions = 0;
    let mut best = f64::INFINITY;
    let mut played = 0;
    while played < n {
        let batch = BATCH.min(n - played);
        let clock = Instant::now();
        for _ in 0..batch {
            table.restart_from(&start);
            decisions += runner.play_out(&mut table, &mut [&mut a, &mut b], 10_000).expect("bots finish");
        }
        best = best.min(clock.elapsed().as_secs_f64() / batch as f64);
        played += batch;
    }
    println!("{n} conflicts, {decisions} decisions; best batch: {:.3} M conflicts/s", 1e-6 / best);
}
