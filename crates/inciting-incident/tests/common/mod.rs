//! Shared helpers: the example scenes and a seeded random player.
#![allow(dead_code)]

use inciting_incident::{IncitingIncident, Scene, Setup};
use rand::RngExt;
use table::{Table, seeded_rng};

/// The example scene file `name` under examples/inciting-incident/.
pub fn example(name: &str) -> Setup {
    let path = format!("{}/../../examples/inciting-incident/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    toml::from_str(&text).unwrap()
}

/// The example fight.
pub fn fight() -> Scene {
    Scene::new(example("river-fight.toml")).unwrap()
}

/// Plays a table to its end (or `max_steps` commands) with uniformly random legal commands.
pub fn play_random(table: &mut Table<IncitingIncident>, seed: u64, max_steps: usize) -> usize {
    let mut rng = seeded_rng(seed);
    let mut legal = Vec::new();
    let mut steps = 0;
    while !table.is_over() && steps < max_steps {
        let awaiting = table.awaiting();
        assert!(!awaiting.is_empty(), "nobody to act: {}", table.state().waiting_for());
        let seat = awaiting[rng.random_range(0..awaiting.len())];
        table.legal_commands(seat, &mut legal);
        // Random players never end the scene by the GM's ruling.
        legal.retain(|c| !c.is_gm_ruling());
        let c = legal[rng.random_range(0..legal.len())];
        table.submit(seat, &c).unwrap();
        steps += 1;
    }
    steps
}

pub mod duels;
pub mod script;

use inciting_incident::{Action, Command, Event, Path, Target};
use table::SeatId;

/// A small arena: Regions A – B – C in a line (A and C not adjacent), seats `p` (players)
/// and `gm` (enemies); players P1, P2 and enemies E1, E2, all in A unless moved; no minions
/// and no triggers. Every defence RV 6, RD 3; Max Hits 2.
pub fn arena() -> Setup {
    let sheet = |name: &str, talent: &str, ranged: &str| {
        format!(
            r#"
[[characters]]
seat = "{seat}"
region = "A"
[characters.sheet]
name = "{name}"
abilities = {{ fortitude = 5, perseverance = 4, nimbleness = {nimble} }}
max_hits = 2
defences.resilience = {{ rv = 6, rd = 3, protection = [6] }}
defences.resolve = {{ rv = 6, rd = 3 }}
defences.reactions = {{ rv = 6, rd = 3 }}
[[characters.sheet.talents]]
name = "{talent}"
ability = "fortitude"
level = 5
skills = {{ ranged = "{ranged}" }}
"#,
            seat = if name.starts_with('P') { "p" } else { "gm" },
            nimble = if name == "P1" { 4 } else { 3 },
        )
    };
    let text = format!(
        r#"
title = "Arena"
sides = ["players", "enemies"]
adjacent = [["A", "B"], ["B", "C"]]
[[seats]]
name = "p"
side = "players"
[[seats]]
name = "gm"
side = "enemies"
gm = true
[[regions]]
name = "A"
[[regions]]
name = "B"
[[regions]]
name = "C"
{}{}{}{}"#,
        sheet("P1", "Sword", "none"),
        sheet("P2", "Bow", "basic"),
        sheet("E1", "Axe", "none"),
        sheet("E2", "Sling", "versatile"),
    );
    toml::from_str(&text).unwrap()
}

/// Places a character of a setup in a Region.
pub fn place(setup: &mut Setup, name: &str, region: &str) {
    let c = setup.characters.iter_mut().find(|c| c.sheet.name == name).unwrap();
    c.region = Some(region.to_owned());
}

/// The seat of a character.
pub fn seat_of(table: &Table<IncitingIncident>, f: u8) -> SeatId {
    table.state().fighters[usize::from(f)].seat
}

/// Declares actions for the characters listed and `Hold` for everyone else who must declare.
pub fn declare(table: &mut Table<IncitingIncident>, actions: &[(u8, Action)]) {
    let n = table.state().fighters.len();
    for f in 0..n {
        if !table.state().must_declare(f) || table.state().fighters[f].declared.is_committed() {
            continue;
        }
        let action = actions.iter().find(|(c, _)| usize::from(*c) == f).map_or(Action::Hold, |(_, a)| *a);
        let seat = seat_of(table, f as u8);
        table.submit(seat, &Command::Declare { character: f as u8, action }).unwrap();
    }
}

/// Resolves a character's action and returns the events it caused.
pub fn act(table: &mut Table<IncitingIncident>, f: u8) -> Vec<Event> {
    let seat = seat_of(table, f);
    table.submit(seat, &Command::Act { character: f }).unwrap().to_vec()
}

/// A Move through named Regions.
pub fn go(table: &Table<IncitingIncident>, regions: &[&str]) -> Action {
    let ids: Vec<u8> = regions.iter().map(|r| table.state().find_region(r).unwrap()).collect();
    Action::Move { path: Path::new(&ids).unwrap() }
}

/// A character target by name.
pub fn ch(table: &Table<IncitingIncident>, name: &str) -> Target {
    Target::Character(table.state().find_fighter(name).unwrap())
}

/// The Crisis added by a list of events.
pub fn crisis_in(events: &[Event]) -> u32 {
    events.iter().map(|e| if let Event::CrisisAdded { amount, .. } = e { *amount } else { 0 }).sum()
}

/// Resolves the rest of the round: each awaited seat's first legal command (which resolves
/// the characters in list order), until a new round starts, a decision is pending, or the end.
pub fn finish_round(table: &mut Table<IncitingIncident>) -> Vec<Event> {
    let mut all = Vec::new();
    let mut legal = Vec::new();
    while !table.is_over()
        && matches!(table.state().phase, inciting_incident::Phase::Resolve { .. })
        && table.state().pending.is_empty()
    {
        let seat = table.awaiting()[0];
        table.legal_commands(seat, &mut legal);
        all.extend(table.submit(seat, &legal[0]).unwrap().iter().cloned());
    }
    all
}
