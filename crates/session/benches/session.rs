//! Benchmark: bot-only games through a [`Session`] (one log per viewer, each event redacted
//! for every viewer, narration on) against the same games on a logged [`Table`] with the same
//! redaction done by hand. The session's own cost is the difference (issue 14 target: within
//! 10%). A second group measures one viewer's catch-up (`updates_since` for the newest item)
//! on a short and a long log: its cost must not grow with the log.
//!
//! For instruction counts that do not depend on a noisy machine, run the bench binary under
//! callgrind with `FACEDOWN_BENCH_GAMES=session` or `=by_hand`: it then plays 200 fixed games
//! that way and exits, without criterion (see docs/performance.md).

use criterion::{Criterion, Throughput, criterion_group};
use iron_triangle::{Character, Energy, IronTriangle, Setup};
use session::{Control, Session};
use solver::bots::RandomBot;
use table::{Bot, Ruleset, SeatId, Table, Viewer};

fn duel() -> Setup {
    Setup::one_on_one(
        Character::with_starting_moves("Ada", Energy::new(3, 2, 5)),
        Character::with_starting_moves("Bandit", Energy::new(4, 3, 3)),
    )
}

/// One whole game on a logged table, redacting every new event for each seat and the
/// spectator into per-viewer logs, as a server would without the session.
fn by_hand(setup: &Setup, bots: &mut [RandomBot; 2]) -> usize {
    let initial = IronTriangle::setup(setup).expect("valid duel");
    let mut shadow = initial.clone();
    let mut table = Table::<IronTriangle>::new(initial);
    let viewers = [Viewer::Seat(SeatId(0)), Viewer::Seat(SeatId(1)), Viewer::Spectator];
    // Each viewer's log keeps the redacted event and its narration, as the session's does.
    let mut logs: [Vec<(iron_triangle::Event, Option<String>)>; 3] = Default::default();
    let (mut legal, mut written) = (Vec::new(), 0);
    loop {
        while written < table.log().len() {
            let event = &table.log()[written];
            for (log, &v) in logs.iter_mut().zip(&viewers) {
                let seen = IronTriangle::redact(&shadow, event, v);
                let text = IronTriangle::narrate(&shadow, &seen, v);
                log.push((seen, text));
            }
            IronTriangle::apply(&mut shadow, event);
            written += 1;
        }
        let Some(&seat) = table.awaiting().first() else { break };
        let decision = table.decision(seat, &mut legal);
        let pick = bots[usize::from(seat.0)].choose(&decision);
        let command = legal[pick];
        table.submit(seat, &command).expect("a legal command");
    }
    logs[2].len()
}

fn through_session(setup: &Setup, seeds: [u64; 2]) -> u64 {
    let mut s = Session::<IronTriangle>::new(setup.clone()).expect("valid duel");
    for (i, seed) in seeds.into_iter().enumerate() {
        s.control(SeatId(i as u16), Control::Bot(Box::new(RandomBot::new(seed)))).expect("bots finish");
    }
    s.seq()
}

fn games(c: &mut Criterion) {
    let setup = duel();
    let mut group = c.benchmark_group("session");
    group.throughput(Throughput::Elements(1));
    let mut seed = 0u64;
    group.bench_function("random_1v1_through_session", |b| {
        b.iter(|| {
            seed += 2;
            through_session(&setup, [seed, seed + 1])
        })
    });
    let mut seed = 0u64;
    group.bench_function("random_1v1_logged_table_redacted_by_hand", |b| {
        b.iter(|| {
            seed += 2;
            by_hand(&setup, &mut [RandomBot::new(seed), RandomBot::new(seed + 1)])
        })
    });
    group.finish();
}

/// A game whose log holds about `n` items: the GM corrects Ada's energy `n` times.
fn long_log(n: usize) -> Session<IronTriangle> {
    let mut s = Session::<IronTriangle>::new(duel()).expect("valid duel");
    let note = iron_triangle::rules::Note::from("ruling").expect("a short note");
    for i in 0..n {
        let energy = Energy::new(u8::try_from(i % 3).unwrap_or(0), 1, 1);
        let command = iron_triangle::Command::AdjustEnergy {
            fighter: iron_triangle::FighterId(0),
            energy,
            reason: note,
        };
        s.submit(SeatId(1), &command).expect("the GM may adjust");
    }
    s
}

fn catch_up(c: &mut Criterion) {
    let mut group = c.benchmark_group("catch_up");
    for n in [100, 10_000] {
        let s = long_log(n);
        let seq = s.seq() - 1;
        group.bench_function(format!("newest_item_of_{n}"), |b| {
            b.iter(|| s.updates_since(Viewer::Seat(SeatId(0)), std::hint::black_box(seq)).len())
        });
    }
    group.finish();
}

criterion_group!(benches, games, catch_up);

fn main() {
    if let Ok(mode) = std::env::var("FACEDOWN_BENCH_GAMES") {
        let setup = duel();
        let mut items = 0u64;
        for seed in (0..400).step_by(2) {
            items += match mode.as_str() {
                "session" => through_session(&setup, [seed, seed + 1]),
                "by_hand" => by_hand(&setup, &mut [RandomBot::new(seed), RandomBot::new(seed + 1)]) as u64,
                other => panic!("FACEDOWN_BENCH_GAMES is `session` or `by_hand`, not {other:?}"),
            };
        }
        println!("{mode}: 200 games, {items} log items");
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
