//! Benchmarks (issue 5 target: ≥ 1 million random 1v1 Hands per second on one core):
//!
//! - `random_1v1_hand`: one whole Hand between random bots through the full engine
//!   (commands, events, automatic steps, legal-command lists), Kara against the Bandit, the
//!   table restarted when a Conflict ends;
//! - `showdown_1v1`: the pure Showdown resolution of one revealed 1v1 Hand.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use nodice::hand::{Play, Showdown, Targets, resolve};
use nodice::*;
use solver::bots::{Bot, RandomBot};
use table::{Role, Seat, SeatId, Seats, SideId, Table};

fn duel() -> Conflict {
    let seat = |name: &str, side| Seat { name: name.into(), side: SideId(side), role: Role::Player };
    let block = |s: &str| s.parse::<Statblock>().expect("serial");
    Conflict::new(Setup {
        seats: Seats::new(vec![seat("kara", 0), seat("bandit", 1)]).expect("seats"),
        actors: vec![
            ActorSheet::new(
                "Kara",
                Kind::Pc,
                block("R2/1(38/5)-M4(5/4/3)-B4(4/4/4)-S3(2/3/4)"),
                SeatId(0),
                SideId(0),
            ),
            ActorSheet::new(
                "Bandit",
                Kind::Npc,
                block("R1/0(27/0)-M3(3/3/3)-B3(3/3/3)-S3(3/3/3)"),
                SeatId(1),
                SideId(1),
            ),
        ],
        initiator: ActorId(0),
        stakes: None,
        options: Options::default(),
        extensions: vec![],
        seed: 1,
    })
    .expect("valid duel")
}

fn hands(c: &mut Criterion) {
    let start = duel();
    let mut group = c.benchmark_group("nodice");
    group.throughput(Throughput::Elements(1));
    let mut table = Table::<NoDice>::unlogged(start.clone());
    let (mut a, mut b) = (RandomBot::new(1), RandomBot::new(2));
    let mut legal = Vec::with_capacity(128);
    let mut awaiting = Vec::with_capacity(4);
    group.bench_function("random_1v1_hand", |bench| {
        bench.iter(|| {
            if table.is_over() {
                table.restart(start.clone());
            }
            let hand = table.state().hand;
            while !table.is_over() && table.state().hand == hand {
                table.awaiting_into(&mut awaiting);
                let seat = awaiting[0];
                let decision = table.decision(seat, &mut legal);
                let pick = if seat.0 == 0 {
                    Bot::<NoDice>::choose(&mut a, &decision)
                } else {
                    Bot::<NoDice>::choose(&mut b, &decision)
                };
                let command = legal[pick].clone();
                table.submit(seat, &command).expect("legal");
            }
        })
    });
    let plays = [
        Play {
            actor: ActorId(0),
            aspect: Aspect::Body,
            attribute: Attribute::Str,
            bid: 4,
            wildcard: true,
            targets: Targets::one(ActorId(1)),
            damage_aspect: Aspect::Body,
        },
        Play {
            actor: ActorId(1),
            aspect: Aspect::Spirit,
            attribute: Attribute::Pre,
            bid: 3,
            wildcard: false,
            targets: Targets::one(ActorId(0)),
            damage_aspect: Aspect::Spirit,
        },
    ];
    let ext = Extensions::default();
    let mut out = Showdown::default();
    let stakes = Stakes::LOW;
    group.bench_function("showdown_1v1", |bench| {
        bench.iter(|| {
            resolve(black_box(&plays), stakes, 1, &ext, &mut out);
            out.strikes.len()
        })
    });
    group.finish();
}

criterion_group!(benches, hands);
criterion_main!(benches);
