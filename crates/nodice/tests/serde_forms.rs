//! The serde forms of commands and setup errors, as documented in `docs/nodice-play.md`, and
//! the setup checks of a Conflict.

mod common;

use common::*;
use nodice::*;
use serde_json::json;
use table::{Role, SeatId, Seats, SideId};

#[test]
fn command_serde_form_is_as_documented() {
    let cases = [
        (
            Command::CommitAspect {
                actor: ActorId(0),
                aspect: Aspect::Body,
                ante: Attribute::Str,
                targets: Targets::one(ActorId(1)),
                intent: Some("I charge".into()),
            },
            json!({"commit_aspect": {"actor": 0, "aspect": "body", "ante": "str", "targets": [1], "intent": "I charge"}}),
        ),
        (Command::Withdraw { actor: ActorId(1) }, json!({"withdraw": {"actor": 1}})),
        (
            Command::CommitAction {
                actor: ActorId(0),
                attribute: Attribute::Str,
                bid: 4,
                wildcard: true,
                open: false,
                damage_aspect: None,
            },
            json!({"commit_action": {"actor": 0, "attribute": "str", "bid": 4, "wildcard": true, "open": false}}),
        ),
        (
            Command::SpreadDamage { actor: ActorId(0), spread: [0, 0, 3] },
            json!({"spread_damage": {"actor": 0, "spread": [0, 0, 3]}}),
        ),
        (Command::EndConflict, json!("end_conflict")),
    ];
    for (command, form) in &cases {
        assert_eq!(&serde_json::to_value(command).unwrap(), form);
        assert_eq!(&serde_json::from_value::<Command>(form.clone()).unwrap(), command);
    }
    // Names in any form; optional fields may be left out.
    assert_eq!(
        serde_json::from_value::<Command>(
            json!({"commit_action": {"actor": 0, "attribute": "Strength", "bid": 2}})
        )
        .unwrap(),
        Command::CommitAction {
            actor: ActorId(0),
            attribute: Attribute::Str,
            bid: 2,
            wildcard: false,
            open: false,
            damage_aspect: None
        }
    );
    assert!(
        serde_json::from_value::<Command>(
            json!({"commit_action": {"actor": 0, "attribute": "Strong", "bid": 2}})
        )
        .is_err()
    );
}

#[test]
fn setup_errors_name_the_problem() {
    let mut s = kara_vs_bandit();
    s.actors[1].name = "Kara".into();
    assert_eq!(Conflict::new(s), Err(SetupError::DuplicateName("Kara".into())));
    let mut s = kara_vs_bandit();
    s.actors[1].side = SideId(0);
    assert_eq!(Conflict::new(s), Err(SetupError::OneSide));
    let mut s = kara_vs_bandit();
    s.actors.pop();
    assert_eq!(Conflict::new(s), Err(SetupError::TooFewActors));
    let mut s = kara_vs_bandit();
    s.actors[1].statblock = block("M0(0/0/0)-B3(3/3/3)");
    assert_eq!(Conflict::new(s), Err(SetupError::Exhausted("Bandit".into(), Aspect::Mind)));
    let mut s = kara_vs_bandit();
    s.actors[1].seat = SeatId(7);
    assert_eq!(Conflict::new(s), Err(SetupError::Seat("Bandit".into())));
    let mut s = kara_vs_bandit();
    s.initiator = ActorId(4);
    assert_eq!(Conflict::new(s), Err(SetupError::Initiator(ActorId(4))));
    let seats = Seats::new(vec![seat("a", 0, Role::Player)]).unwrap();
    let mut s = kara_vs_bandit();
    s.seats = seats;
    assert_eq!(Conflict::new(s), Err(SetupError::Seat("Bandit".into())));
}

#[test]
fn pcs_bring_their_wildcard_rank_npcs_and_abstract_actors_none() {
    let c = Conflict::new(kara_vs_bandit()).unwrap();
    assert_eq!(c.actors[0].wildcards, 1);
    assert_eq!(c.actors[1].wildcards, 0);
    let thing = ActorSheet::new("Door", Kind::Abstract, block("B1(-/4/-)"), SeatId(1), SideId(1));
    assert_eq!(thing.wildcards, 0);
}

/// Commands and events are pushed by the dozen on the hot path (legal-command lists, the
/// log): they stay small (docs/nodice.md, Benchmarks).
#[test]
fn commands_and_events_stay_small() {
    assert!(std::mem::size_of::<Command>() <= 32, "{}", std::mem::size_of::<Command>());
    assert!(std::mem::size_of::<Event>() <= 32, "{}", std::mem::size_of::<Event>());
}

#[test]
fn a_target_no_conflict_can_have_is_refused_not_dropped() {
    let ok: Targets = serde_json::from_value(json!([1, 15])).expect("ids below 16 are targets");
    assert!(ok.has(ActorId(1)) && ok.has(ActorId(15)));
    let err = serde_json::from_value::<Targets>(json!([1, 16])).expect_err("id 16 cannot be an Actor");
    assert!(err.to_string().contains("there is no Actor 16"), "{err}");
    let command = json!({"commit_aspect": {"actor": 0, "aspect": "body", "ante": "str", "targets": [40]}});
    assert!(serde_json::from_value::<Command>(command).is_err(), "a command naming Actor 40 is refused");
}
