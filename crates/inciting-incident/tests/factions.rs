//! §6 three or more factions: a Duel has at most two sides, so two factions ally until the
//! third is beaten, then fight each other (example `three-factions.toml`).

mod common;

use inciting_incident::rules::FlowSource;
use inciting_incident::scene::FactionSpec;
use inciting_incident::{Event, IncitingIncident, Scene, SceneKind, SetupError, Status};
use table::Table;

fn ford() -> Scene {
    Scene::new(common::example("three-factions.toml")).unwrap()
}

/// Runs the rules' own steps until they stop, returning the events.
fn settle(s: &mut Scene) -> Vec<Event> {
    let mut out = Vec::new();
    while let Some(e) = s.automatic() {
        s.apply(&e);
        out.push(e);
        if out.len() > 50 {
            break;
        }
    }
    out
}

#[test]
fn three_factions_two_ally_until_the_third_is_beaten() {
    let mut s = ford();
    let hale = usize::from(s.find_fighter("Sergeant Hale").unwrap());
    let wren = usize::from(s.find_fighter("Captain Wren").unwrap());
    let priest = usize::from(s.find_fighter("The Drowned Priest").unwrap());
    // Three factions in the Ford, one Duel of two sides: the watch and the smugglers allied.
    assert_eq!((s.fighters[hale].side, s.fighters[wren].side, s.fighters[priest].side), (0, 0, 1));
    assert_eq!(s.fighters[wren].faction, Some(1));
    let view = s.view(table::Viewer::Spectator);
    assert_eq!(view.fighters[wren].faction.as_deref(), Some("smugglers"));
    assert_eq!(view.fighters[wren].side, "alliance");
    let ford = s.find_region("Ford").unwrap();
    let d = usize::from(s.duel_in(ford).unwrap());
    s.duels[d].flow = 8;
    // The cult is beaten: the alliance ends, the smugglers take the cult's side.
    s.fighters[priest].status = Status::Incapacitated;
    s.minions[0].count = 0;
    let ev = settle(&mut s);
    assert!(
        ev.iter().any(|e| matches!(e, Event::AllianceEnded { beaten: 1, turned } if turned == &vec![1])),
        "{ev:?}"
    );
    assert!(!s.is_over(), "the former allies go on to fight each other");
    assert_eq!((s.fighters[hale].side, s.fighters[wren].side), (0, 1));
    // Different enemies now: a new Duel at Flow 0, not the allied Duel's +8 (§6).
    let nd = usize::from(s.duel_in(ford).unwrap());
    assert_ne!(nd, d);
    assert_eq!(s.duels[nd].flow, 0);
    assert!(!s.duels[d].active);
    // When the smugglers are beaten too, the watch wins, and the reason names the faction.
    s.fighters[wren].status = Status::Incapacitated;
    let ev = settle(&mut s);
    let Some(Event::SceneOver { outcome }) = ev.last() else { panic!("{ev:?}") };
    assert_eq!(outcome.winner, Some(0));
    assert!(outcome.why.contains("smugglers"), "{}", outcome.why);
}

#[test]
fn three_factions_alliance_duel_is_never_restored_after_it_ends() {
    // Replays deterministically through the table too: the event rebuilds the same state.
    let mut s = ford();
    let priest = usize::from(s.find_fighter("The Drowned Priest").unwrap());
    s.fighters[priest].status = Status::Incapacitated;
    s.minions[0].count = 0;
    let before = s.clone();
    let ev = settle(&mut s);
    let mut replay = before;
    for e in &ev {
        replay.apply(e);
    }
    assert_eq!(replay, s);
    let formed = s.duels.iter().filter(|d| d.active).count();
    assert_eq!(formed, 1);
    assert!(
        !ev.iter().any(|e| matches!(
            e,
            Event::DuelFormed { from: FlowSource::Restored | FlowSource::Copied(_), .. }
        )),
        "{ev:?}"
    );
}

#[test]
fn three_factions_scene_plays_to_its_end_with_random_players() {
    for seed in 0..20 {
        let mut t = Table::<IncitingIncident>::new(ford());
        common::play_random(&mut t, seed, 5000);
        assert!(t.is_over(), "seed {seed}: {}", t.state().waiting_for());
        // Every Duel ever formed had the two sides in it, never allies against allies.
        for d in t.state().duels.iter().filter(|d| d.active) {
            let sides: Vec<u8> = t
                .state()
                .fighters
                .iter()
                .filter(|f| f.engaged_capable() && f.region == Some(d.region))
                .map(|f| f.side)
                .collect();
            assert!(sides.contains(&0) || sides.contains(&1));
        }
    }
}

#[test]
fn three_factions_setup_errors_name_the_field() {
    let mut setup = common::example("three-factions.toml");
    setup.seats[1].side = "pirates".into();
    let e = Scene::new(setup).unwrap_err();
    assert!(
        matches!(&e, SetupError::Unknown { what: "faction", field, .. } if field == "seats[1].side"),
        "{e}"
    );
    let mut setup = common::example("three-factions.toml");
    setup.factions[2].side = "alliance".into();
    let e = Scene::new(setup).unwrap_err();
    assert!(e.to_string().contains("each of the two sides needs a faction"), "{e}");
    let mut setup = common::example("three-factions.toml");
    setup.factions.push(FactionSpec { name: "watch".into(), side: "opposition".into() });
    assert!(matches!(Scene::new(setup), Err(SetupError::Duplicate { what: "factions", .. })));
    let mut setup = common::example("three-factions.toml");
    setup.kind = SceneKind::NonViolent;
    setup.strikes = Some([3, 3]);
    assert!(Scene::new(setup).unwrap_err().to_string().contains("only a combat has factions"));
}
