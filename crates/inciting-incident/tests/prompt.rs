//! What a seat is asked ([`Ruleset::prompt`]) and the documented default taken for it
//! ([`Ruleset::forced`], Decision 29), checked at every step of random games.

mod common;

use inciting_incident::scene::Pending;
use inciting_incident::{Action, Command, IncitingIncident, Phase, Scene, Status};
use rand::RngExt;
use table::{Ruleset, SeatId, Table, seeded_rng};

/// Whether anyone on `side` other than character `c` can fight (§9: the keep-fighting roll).
fn others_able(scene: &Scene, side: u8, c: u8) -> bool {
    scene
        .fighters
        .iter()
        .enumerate()
        .any(|(i, f)| i != usize::from(c) && f.side == side && f.status == Status::Fighting)
        || scene.minions.iter().any(|m| m.side == side && m.count > 0)
}

/// What the checks saw, so a test can tell it met each kind of decision.
#[derive(Default)]
struct Seen {
    declarations: usize,
    resolutions: usize,
    keep_fighting: usize,
    extra_actions: usize,
}

/// Checks prompt and forced for every seat of `scene`.
fn check(scene: &Scene, seen: &mut Seen) {
    let mut awaiting = Vec::new();
    IncitingIncident::awaiting(scene, &mut awaiting);
    for (seat, _) in scene.seats.iter() {
        let prompt = IncitingIncident::prompt(scene, seat);
        let forced = IncitingIncident::forced(scene, seat);
        if !awaiting.contains(&seat) {
            assert!(prompt.is_none() && forced.is_none(), "seat {seat:?} is not awaited");
            continue;
        }
        let prompt = prompt.expect("an awaited seat is asked");
        let mut legal = Vec::new();
        IncitingIncident::legal_commands(scene, seat, &mut legal);
        let choices: Vec<Command> = prompt.choices.iter().map(|c| c.command).collect();
        assert_eq!(choices, legal, "a prompt's choices are exactly the legal commands");
        assert_eq!(prompt.seat, seat);
        assert!(prompt.choices.iter().all(|c| !c.label.is_empty() && !c.label.contains('{')));
        assert!(!prompt.question.is_empty());
        // Private exactly for the face-down declarations (§5 step 5).
        let declares = scene.phase == Phase::Declare && scene.pending.is_empty();
        assert_eq!(prompt.private, declares, "{:?}: {}", scene.phase, prompt.question);
        if declares {
            assert!(legal.iter().filter(|c| !c.is_gm_ruling()).all(|c| matches!(c, Command::Declare { .. })));
        }
        let forced = forced.expect("an awaited seat has a default");
        assert!(legal.contains(&forced) && !forced.is_gm_ruling(), "{forced:?}");
        match (scene.pending.first(), forced) {
            (Some(&Pending::KeepFighting(c)), Command::KeepFighting { character, roll }) => {
                assert_eq!(c, character);
                let side = scene.fighters[usize::from(c)].side;
                assert_eq!(roll, !others_able(scene, side, c), "stay down unless it gives up the scene");
                seen.keep_fighting += 1;
            }
            (Some(&Pending::ExtraAction(c)), Command::ExtraAction { character, action }) => {
                assert_eq!((c, action), (character, Action::Hold));
                seen.extra_actions += 1;
            }
            (None, Command::Declare { action, .. }) => {
                assert_eq!(action, Action::Hold);
                seen.declarations += 1;
            }
            (None, Command::Act { .. }) => seen.resolutions += 1,
            other => panic!("unexpected default {other:?}"),
        }
    }
}

fn play_and_check(table: &mut Table<IncitingIncident>, seed: u64, seen: &mut Seen) {
    let mut rng = seeded_rng(seed);
    let mut legal = Vec::new();
    let mut steps = 0;
    while !table.is_over() && steps < 400 {
        check(table.state(), seen);
        let awaiting = table.awaiting();
        let seat: SeatId = awaiting[rng.random_range(0..awaiting.len())];
        table.legal_commands(seat, &mut legal);
        legal.retain(|c| !c.is_gm_ruling());
        // Now and then the documented default instead of a random choice.
        let c = if rng.random_range(0..4) == 0 {
            IncitingIncident::forced(table.state(), seat).unwrap()
        } else {
            legal[rng.random_range(0..legal.len())]
        };
        table.submit(seat, &c).unwrap();
        steps += 1;
    }
    check(table.state(), seen);
}

#[test]
fn a_prompts_choices_are_exactly_the_legal_commands_and_only_declarations_are_private() {
    let mut seen = Seen::default();
    for seed in 0..12 {
        for file in ["river-fight.toml", "three-factions.toml", "cover-up.toml"] {
            let mut table = Table::<IncitingIncident>::new(Scene::new(common::example(file)).unwrap());
            play_and_check(&mut table, seed, &mut seen);
        }
    }
    assert!(seen.declarations > 0 && seen.resolutions > 0, "both phases met");
    assert!(seen.keep_fighting > 0, "a keep-fighting roll met");
}

#[test]
fn forced_default_holds_a_declaration_and_resolves_in_file_order() {
    let scene = Scene::new(common::example("river-fight.toml")).unwrap();
    let mut table = Table::<IncitingIncident>::new(scene);
    let seat = table.awaiting()[0];
    let forced = IncitingIncident::forced(table.state(), seat).unwrap();
    let Command::Declare { character, action: Action::Hold } = forced else { panic!("{forced:?}") };
    assert_eq!(table.state().fighters[usize::from(character)].seat, seat);
    let prompt = IncitingIncident::prompt(table.state(), seat).unwrap();
    assert!(prompt.private && prompt.question.contains("declare face down"), "{}", prompt.question);
    assert!(prompt.choices.iter().any(|c| c.label.ends_with(": hold (no action)")));
    // Every seat takes its default: everyone holds, then the resolution asks in public.
    while table.state().phase == Phase::Declare {
        let seat = table.awaiting()[0];
        let c = IncitingIncident::forced(table.state(), seat).unwrap();
        table.submit(seat, &c).unwrap();
    }
    let seat = table.awaiting()[0];
    let prompt = IncitingIncident::prompt(table.state(), seat).unwrap();
    assert!(!prompt.private && prompt.question.contains("resolve next"), "{}", prompt.question);
    let first = table.state().fighters.iter().position(|f| f.seat == seat).unwrap() as u8;
    assert_eq!(IncitingIncident::forced(table.state(), seat), Some(Command::Act { character: first }));
}

#[test]
fn forced_default_is_none_for_a_seat_not_awaited_and_never_the_gms_ruling() {
    let scene = Scene::new(common::example("river-fight.toml")).unwrap();
    let mut table = Table::<IncitingIncident>::new(scene);
    let gm = table.state().gm_seat().unwrap();
    table.submit(gm, &Command::EndScene { winner: None }).unwrap();
    assert!(IncitingIncident::prompt(table.state(), gm).is_none());
    assert!(IncitingIncident::forced(table.state(), gm).is_none());
}
