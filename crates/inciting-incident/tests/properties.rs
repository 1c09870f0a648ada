//! Property tests: random declarations and choices never panic, hits are never negative nor
//! above Max Hits, the same seed gives the same scene, the log replays into the same state,
//! and hidden declarations are in no other seat's view.

mod common;

use inciting_incident::{Command, Event, IncitingIncident, Scene};
use proptest::prelude::*;
use rand::RngExt;
use table::{Face, Table, Viewer, seeded_rng};

fn play(initial: Scene, bot_seed: u64, max_steps: usize) -> Table<IncitingIncident> {
    let mut table = Table::<IncitingIncident>::new(initial);
    let mut rng = seeded_rng(bot_seed);
    let mut legal = Vec::new();
    for _ in 0..max_steps {
        if table.is_over() {
            break;
        }
        let awaiting = table.awaiting();
        // awaiting names exactly the seats with a command they must give (an Advanced
        // Action outside round order is optional).
        for (seat, _) in table.state().seats.iter() {
            table.legal_commands(seat, &mut legal);
            let required =
                legal.iter().any(|c| !matches!(c, Command::OutOfOrder { .. }) && !c.is_gm_ruling());
            assert_eq!(awaiting.contains(&seat), required, "{}", table.state().waiting_for());
        }
        let seat = awaiting[rng.random_range(0..awaiting.len())];
        table.legal_commands(seat, &mut legal);
        // Every listed command is accepted.
        let mut scratch = Vec::new();
        for c in &legal {
            scratch.clear();
            let ok = <IncitingIncident as table::Ruleset>::decide(table.state(), seat, c, &mut scratch);
            assert!(ok.is_ok(), "{c:?}: {ok:?}");
        }
        // Only GM seats may end the scene, at every moment; random players never do.
        let gm = table.state().is_gm(seat);
        assert_eq!(legal.iter().filter(|c| c.is_gm_ruling()).count(), if gm { 3 } else { 0 });
        legal.retain(|c| !c.is_gm_ruling());
        let c = legal[rng.random_range(0..legal.len())];
        table.submit(seat, &c).unwrap();
        // Hidden declarations stay hidden from every other seat.
        for (viewer, _) in table.state().seats.iter() {
            let view = table.view(Viewer::Seat(viewer));
            for (f, fv) in table.state().fighters.iter().zip(&view.fighters) {
                if f.seat != viewer && matches!(f.declared, table::Sealed::FaceDown(_)) {
                    assert!(matches!(fv.declared, Face::FaceDown));
                }
            }
        }
        for f in &table.state().fighters {
            assert!(f.hits <= f.sheet.max_hits);
        }
    }
    table
}

fn scene(which: u8, dice_seed: u64) -> Scene {
    let name = if which == 0 { "river-fight.toml" } else { "cover-up.toml" };
    let mut setup = common::example(name);
    setup.seed = dice_seed;
    Scene::new(setup).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_declarations_play_to_the_end_and_replay(which in 0u8..2, dice in any::<u64>(), bots in any::<u64>()) {
        let a = play(scene(which, dice), bots, 5_000);
        prop_assert!(a.is_over());
        // The same seeds give the same scene.
        let b = play(scene(which, dice), bots, 5_000);
        prop_assert_eq!(a.log(), b.log());
        // Replaying the log rebuilds the state, and a checked load accepts it.
        let replayed = Table::<IncitingIncident>::replay(a.initial().clone(), a.log().to_vec());
        prop_assert_eq!(replayed.state(), a.state());
        let checked = Table::<IncitingIncident>::load_checked(a.save()).unwrap();
        prop_assert_eq!(checked.state(), a.state());
        // Other seats' logs never show a declaration's content before the reveal.
        for (seat, _) in a.state().seats.iter() {
            for e in a.log_for(Viewer::Seat(seat)) {
                if let Event::Declared { character, action: Some(_) } = e {
                    prop_assert_eq!(a.state().fighters[usize::from(character)].seat, seat);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn the_gm_ending_the_scene_at_any_moment_replays(which in 0u8..2, dice in any::<u64>(), bots in any::<u64>(), steps in 0usize..60, winner in proptest::option::of(0u8..2)) {
        let mut t = play(scene(which, dice), bots, steps);
        let over = t.is_over();
        let gm = t.state().seats.iter().find(|(_, s)| s.role == table::Role::Gm).map(|(id, _)| id).unwrap();
        let r = t.submit(gm, &Command::EndScene { winner });
        if over {
            prop_assert!(r.is_err());
        } else {
            prop_assert!(r.is_ok());
            prop_assert!(t.is_over());
            let outcome = t.state().outcome.clone().unwrap();
            prop_assert!(outcome.by_gm);
            prop_assert_eq!(outcome.winner, winner);
        }
        let checked = Table::<IncitingIncident>::load_checked(t.save()).unwrap();
        prop_assert_eq!(checked.state(), t.state());
    }
}
