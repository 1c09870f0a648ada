//! Setups shared by the session's tests.

use table::SeatId;

/// A three-way No Dice brawl: three NPC Actors, one a seat and a side each, Stakes 2.
pub fn nodice_brawl() -> nodice::Setup {
    use nodice::{ActorId, ActorSheet, Kind, Options, Setup, Stakes, Statblock};
    use table::{Role, Seat, Seats, SideId};
    let seat = |name: &str, side| Seat { name: name.to_owned(), side: SideId(side), role: Role::Player };
    Setup {
        seats: Seats::new(vec![seat("a", 0), seat("b", 1), seat("c", 2)]).unwrap(),
        actors: ["A", "B", "C"]
            .iter()
            .enumerate()
            .map(|(i, n)| {
                ActorSheet::new(n, Kind::Npc, Statblock::even(4), SeatId(i as u16), SideId(i as u8))
            })
            .collect(),
        initiator: ActorId(0),
        stakes: Some(Stakes::new(2).unwrap()),
        options: Options::default(),
        extensions: vec![],
        seed: 11,
    }
}
