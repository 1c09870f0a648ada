//! Plays random 1v1 Hands (Kara against the Bandit, the solver's `RandomBot`s, the full
//! engine, as `benches/hands.rs` does) and prints how many it played. Run it under `time` to
//! get the CPU time per Hand on a machine too busy for criterion's wall-clock figures:
//!
//! ```sh
//! cargo build --release -p nodice --example hand_rate
//! /usr/bin/time -f "%U s user" target/release/examples/hand_rate 5000000
//! ```

use nodice::*;
use solver::bots::{Bot, RandomBot};
use table::{Role, Seat, SeatId, Seats, SideId, Table};

fn main() {
    let hands: u64 = std::env::args().nth(1).and_then(|n| n.parse().ok()).unwrap_or(1_000_000);
    let seat = |name: &str, side| Seat { name: name.into(), side: SideId(side), role: Role::Player };
    let block = |s: &str| s.parse::<Statblock>().unwrap_or_default();
    let start = Conflict::new(Setup {
        seats: Seats::new(vec![seat("kara", 0), seat("bandit", 1)]).unwrap_or_default(),
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
    });
    let Ok(start) = start else {
        eprintln!("the duel cannot start");
        return;
    };
    let mut table = Table::<NoDice>::unlogged(start.clone());
    let (mut a, mut b) = (RandomBot::new(1), RandomBot::new(2));
    let (mut legal, mut awaiting) = (Vec::with_capacity(128), Vec::with_capacity(4));
    let mut conflicts = 1u64;
    for _ in 0..hands {
        if table.is_over() {
            table.restart(start.clone());
            conflicts += 1;
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
            if let Err(e) = table.submit(seat, &command) {
                eprintln!("refused: {e}");
                return;
            }
        }
    }
    println!("{hands} Hands in {conflicts} Conflicts");
}
