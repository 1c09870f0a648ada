//! Benchmark: bot-only games through a [`Session`] (one log per viewer, each event redacted
//! for every viewer, narration on) against the same games on a logged [`Table`] with the same
//! redaction done by hand. The session's own cost is the difference (issue 14 target: within
//! 10%).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
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
    let mut logs: [Vec<iron_triangle::Event>; 3] = Default::default();
    let (mut legal, mut written) = (Vec::new(), 0);
    loop {
        while written < table.log().len() {
            let event = &table.log()[written];
            for (log, &v) in logs.iter_mut().zip(&viewers) {
                let seen = IronTriangle::redact(&shadow, event, v);
                let _ = IronTriangle::narrate(&shadow, &seen, v);
                log.push(seen);
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

criterion_group!(benches, games);
criterion_main!(benches);
