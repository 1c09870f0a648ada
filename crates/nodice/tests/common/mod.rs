//! Shared test fixtures: the rules reference's Kara and Bandit (§7), seats, and helpers that
//! drive a table by seat and Actor names.
#![allow(dead_code)]

use nodice::*;
use table::{Role, Seat, SeatId, Seats, SideId, Table};

pub const KARA: &str = "R2/1(38/5)-M4(5/4/3)-B4(4/4/4)-S3(2/3/4)";
pub const BANDIT: &str = "R1/0(27/0)-M3(3/3/3)-B3(3/3/3)-S3(3/3/3)";

pub fn seat(name: &str, side: u8, role: Role) -> Seat {
    Seat { name: name.into(), side: SideId(side), role }
}

pub fn block(serial: &str) -> Statblock {
    serial.parse().unwrap()
}

/// Kara (PC, seat "kara") against the Bandit (NPC, seat "gm"); Kara initiates.
pub fn kara_vs_bandit() -> Setup {
    let seats = Seats::new(vec![seat("kara", 0, Role::Player), seat("gm", 1, Role::Gm)]).unwrap();
    Setup {
        seats,
        actors: vec![
            ActorSheet::new("Kara", Kind::Pc, block(KARA), SeatId(0), SideId(0)),
            ActorSheet::new("Bandit", Kind::Npc, block(BANDIT), SeatId(1), SideId(1)),
        ],
        initiator: ActorId(0),
        stakes: None,
        options: Options::default(),
        extensions: vec![],
        seed: 7,
    }
}

/// Three Actors each on its own side, each at its own player seat, all `3/3/3` in every
/// Aspect, with the given Stakes.
pub fn brawl(stakes: u8) -> Setup {
    let seats =
        Seats::new(vec![seat("a", 0, Role::Player), seat("b", 1, Role::Player), seat("c", 2, Role::Player)])
            .unwrap();
    Setup {
        seats,
        actors: ["A", "B", "C"]
            .iter()
            .enumerate()
            .map(|(i, n)| {
                ActorSheet::new(n, Kind::Npc, Statblock::even(4), SeatId(i as u16), SideId(i as u8))
            })
            .collect(),
        initiator: ActorId(0),
        stakes: Some(Stakes::new(stakes).unwrap()),
        options: Options::default(),
        extensions: vec![],
        seed: 11,
    }
}

pub fn start(setup: Setup) -> Table<NoDice> {
    Table::new(Conflict::new(setup).unwrap())
}

pub fn id(t: &Table<NoDice>, name: &str) -> ActorId {
    t.state().find(name).unwrap()
}

pub fn seat_of(t: &Table<NoDice>, actor: &str) -> SeatId {
    t.state().actors[id(t, actor).index()].sheet.seat
}

pub fn attr(s: &str) -> Attribute {
    s.parse().unwrap()
}

pub fn aspect(s: &str) -> Aspect {
    s.parse().unwrap()
}

/// `actor` antes from `ante`, plays its Aspect and targets `targets`.
pub fn commit_aspect(
    t: &mut Table<NoDice>,
    actor: &str,
    ante: &str,
    targets: &[&str],
) -> Result<(), RuleError> {
    let a = id(t, actor);
    let ante = attr(ante);
    let targets = targets.iter().fold(Targets::NONE, |s, n| s.with(id(t, n)));
    let seat = seat_of(t, actor);
    t.submit(seat, &Command::CommitAspect { actor: a, aspect: ante.aspect(), ante, targets, intent: None })
        .map(|_| ())
}

/// `actor` plays `attribute` and bids.
pub fn commit_action(
    t: &mut Table<NoDice>,
    actor: &str,
    attribute: &str,
    bid: u16,
    wildcard: bool,
) -> Result<(), RuleError> {
    let a = id(t, actor);
    let seat = seat_of(t, actor);
    t.submit(
        seat,
        &Command::CommitAction {
            actor: a,
            attribute: attr(attribute),
            bid,
            wildcard,
            open: false,
            damage_aspect: None,
        },
    )
    .map(|_| ())
}

pub fn spread(t: &mut Table<NoDice>, actor: &str, spread: [u16; 3]) -> Result<(), RuleError> {
    let a = id(t, actor);
    let seat = seat_of(t, actor);
    t.submit(seat, &Command::SpreadDamage { actor: a, spread }).map(|_| ())
}

/// An Actor's current values in serial order (0 for absent).
pub fn values(t: &Table<NoDice>, actor: &str) -> [u16; 9] {
    let a = &t.state().actors[id(t, actor).index()];
    Attribute::ALL.map(|x| a.value(x).unwrap_or(0))
}

/// Chip conservation: every chip built is in play or was destroyed by damage, give or take
/// the GM's adjustments, which are outside it (Decision 35).
pub fn chips_conserved(c: &Conflict) -> bool {
    i64::from(c.chips_in_play()) + i64::from(c.chips_destroyed())
        == i64::from(c.chips_built()) + c.chips_adjusted
}

/// Gives each awaited seat its first legal command until the Hand number changes or the
/// Conflict ends.
pub fn finish_hand(t: &mut Table<NoDice>) {
    let hand = t.state().hand;
    let mut legal = Vec::new();
    while !t.is_over() && t.state().hand == hand {
        let seat = t.awaiting()[0];
        t.legal_commands(seat, &mut legal);
        t.submit(seat, &legal[0]).unwrap();
    }
}
