//! A session behind `AnySession` (JSON in, JSON out) plays exactly as the typed session: the
//! same random legal commands, given as JSON, give every viewer the same updates, prompts,
//! views and record; a command that is not the ruleset's is refused naming the ruleset, and
//! changes nothing.

use rand::{RngExt, SeedableRng};
use serde::Serialize;
use session::any::{AnyError, AnySession};
use session::{CanonicalTexts, Session};
use std::sync::Arc;
use table::fairness::canonical_json;
use table::{Ruleset, SeatId, Viewer};

fn json<T: Serialize>(v: &T) -> serde_json::Value {
    serde_json::to_value(v).unwrap()
}

fn same_game<R>(setup: R::Setup, seed: u64)
where
    R: Ruleset + 'static,
    R::Setup: Send,
    R::State: Send,
    R::Command: Send,
    R::Event: Send,
    R::SetupError: std::fmt::Debug,
{
    let mut typed = Session::<R>::new(setup.clone()).unwrap();
    let mut erased: Box<dyn AnySession> = Box::new(Session::<R>::new(setup).unwrap());
    assert_eq!(erased.ruleset(), R::NAME);
    let viewers: Vec<Viewer> = (0..erased.seats().len() as u16)
        .map(|i| Viewer::Seat(SeatId(i)))
        .chain([Viewer::Spectator])
        .collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut steps = 0;
    while let Some(&seat) = typed.awaiting().first() {
        assert_eq!(erased.awaiting(), typed.awaiting());
        assert_eq!(erased.prompt(seat).unwrap(), typed.prompt(seat).as_ref().map(json));
        let mut legal = Vec::new();
        typed.table().legal_commands(seat, &mut legal);
        if legal.is_empty() || steps == 200 {
            break;
        }
        let command = &legal[rng.random_range(0..legal.len())];
        // Every legal command is its own canonical form: a shell keeps what it was given.
        assert_eq!(erased.canonical_command(&json(command)).unwrap(), json(command));
        typed.submit(seat, command).unwrap();
        erased.submit(seat, &json(command)).unwrap();
        steps += 1;
    }
    assert!(steps >= 2, "the game went on past its first commands");
    assert_eq!(erased.seq(), typed.seq());
    for &v in &viewers {
        let typed_updates: Vec<_> = typed.updates_since(v, 0).iter().map(json).collect();
        assert_eq!(erased.updates_since(v, 0), typed_updates, "{v:?}");
        assert_eq!(erased.view(v).unwrap(), json(&typed.view(v)), "{v:?}");
    }
    canonical_texts_are_each_viewers_own(erased.as_ref(), &viewers);
    assert_eq!(erased.record(), json(&typed.record()));
    assert_eq!(erased.is_over(), typed.is_over());
    // Not a command of this ruleset: refused, naming it; nothing changes.
    let before = (erased.seq(), erased.record());
    let e = erased.submit(SeatId(0), &serde_json::json!({"no such command": 1})).unwrap_err();
    assert!(matches!(e, AnyError::NotACommand { ruleset, .. } if ruleset == R::NAME), "{e}");
    assert_eq!((erased.seq(), erased.record()), before);
    assert_eq!(erased.view(Viewer::Seat(SeatId(99))).unwrap_err(), AnyError::NoSeat(99));
}

/// `updates_canonical` gives each viewer the canonical JSON of its own updates, from any
/// point, whether the texts are shared between the viewers or not; and with them shared, an
/// item the same for two viewers is written once.
fn canonical_texts_are_each_viewers_own(game: &dyn AnySession, viewers: &[Viewer]) {
    let mut shared = CanonicalTexts::default();
    let mut seen: Vec<Arc<str>> = Vec::new();
    let mut reused = 0;
    for &v in viewers {
        let own: Vec<String> = game.updates_since(v, 0).iter().map(|u| canonical_json(u).unwrap()).collect();
        let alone = game.updates_canonical(v, 0, &mut CanonicalTexts::default()).unwrap();
        assert_eq!(alone.iter().map(|t| t.to_string()).collect::<Vec<_>>(), own, "{v:?}");
        let with = game.updates_canonical(v, 0, &mut shared).unwrap();
        assert_eq!(with.iter().map(|t| t.to_string()).collect::<Vec<_>>(), own, "{v:?} with shared texts");
        let later = game.updates_canonical(v, 2, &mut shared).unwrap();
        assert_eq!(later.iter().map(|t| t.to_string()).collect::<Vec<_>>(), own[2.min(own.len())..], "{v:?}");
        reused += with.iter().filter(|t| seen.iter().any(|s| Arc::ptr_eq(s, t))).count();
        seen.extend(with);
    }
    assert!(reused > 0, "the public items are written once for every viewer");
}

#[test]
fn every_system_plays_the_same_behind_any_session() {
    for seed in 0..3 {
        same_game::<iron_triangle::IronTriangle>(
            iron_triangle::Setup::one_on_one(
                iron_triangle::Character::with_starting_moves("Ada", iron_triangle::Energy::new(3, 2, 5)),
                iron_triangle::Character::with_starting_moves("Ninja", iron_triangle::Energy::new(4, 3, 3)),
            ),
            seed,
        );
        let mut scene: inciting_incident::Setup =
            toml::from_str(include_str!("../../../examples/inciting-incident/river-fight.toml")).unwrap();
        scene.apply_round_limit(Some(12));
        same_game::<inciting_incident::IncitingIncident>(scene, seed);
        let conflict: nodice::Setup = nodice_setup();
        same_game::<nodice::NoDice>(conflict, seed);
    }
}

fn nodice_setup() -> nodice::Setup {
    use nodice::{ActorId, ActorSheet, Kind, Options, Setup, Stakes, Statblock};
    use table::{Role, Seat, Seats, SideId};
    let seat = |name: &str, side| Seat { name: name.to_owned(), side: SideId(side), role: Role::Player };
    Setup {
        seats: Seats::new(vec![seat("a", 0), seat("b", 1)]).unwrap(),
        actors: ["A", "B"]
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
        seed: 3,
    }
}

/// Issue 33: a command is kept as the rules read it. One saying more — a field the rules do not
/// read (a 60 KB `junk`), a value spelled otherwise — is refused naming the field, so that what
/// a shell keeps, and a sealed commitment covers, is exactly what was judged; a field left out
/// that the rules give a default is filled in.
#[test]
fn a_command_is_kept_as_the_rules_read_it_and_one_saying_more_is_refused() {
    let game: Box<dyn AnySession> = Box::new(
        Session::<iron_triangle::IronTriangle>::new(iron_triangle::Setup::one_on_one(
            iron_triangle::Character::with_starting_moves("Ada", iron_triangle::Energy::new(3, 2, 5)),
            iron_triangle::Character::with_starting_moves("Ninja", iron_triangle::Energy::new(4, 3, 3)),
        ))
        .unwrap(),
    );
    let stance = serde_json::json!({"commit_stance": {"stance": {"type": "defend", "amount": 0}}});
    assert_eq!(game.canonical_command(&stance).unwrap(), stance);
    let mut junk = stance.clone();
    junk["commit_stance"]["junk"] = serde_json::json!("x".repeat(60_000));
    let e = game.canonical_command(&junk).unwrap_err();
    assert!(matches!(e, AnyError::NotACommand { .. }), "{e:?}");
    assert!(e.to_string().contains("`commit_stance.junk` is not part of the command"), "{e}");
    let mut spelled = stance.clone();
    spelled["commit_stance"]["stance"]["amount"] = serde_json::json!("0");
    assert!(game.canonical_command(&spelled).is_err(), "a number given as text is not read as one");
    // `card` left out of a pass is the rules' default (none): filled in.
    let pass = serde_json::json!({"play_special": {"fighter": 0}});
    assert_eq!(
        game.canonical_command(&pass).unwrap(),
        serde_json::json!({"play_special": {"fighter": 0, "card": null}})
    );
}
