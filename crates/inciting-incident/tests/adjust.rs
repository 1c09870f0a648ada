//! The GM's adjustment of hits, Flow, Crisis and Strikes (Decision 30): GM only, bounded,
//! logged for everyone with its reason, and replayed from a save.

mod common;

use inciting_incident::{Adjustment, Command, Event, IncitingIncident, Note, RuleError, Scene, Status};
use table::{Ruleset, Table, Viewer};

fn table(file: &str) -> Table<IncitingIncident> {
    Table::new(Scene::new(common::example(file)).unwrap())
}

fn adjust(adjustment: Adjustment, reason: &str) -> Command {
    Command::Adjust { adjustment, reason: Note::from(reason).unwrap() }
}

/// Submits a GM adjustment and returns its narration for a spectator.
fn gm_adjusts(t: &mut Table<IncitingIncident>, adjustment: Adjustment, reason: &str) -> String {
    let gm = t.state().gm_seat().unwrap();
    let before = t.state().clone();
    let n = t.log().len();
    t.submit(gm, &adjust(adjustment, reason)).unwrap();
    let event = &t.log()[n];
    assert_eq!(event, &Event::Adjusted { adjustment, reason: Note::from(reason).unwrap() });
    // Public: every seat and a spectator see it whole.
    for (seat, _) in t.state().seats.iter() {
        assert_eq!(before.redact(event, Viewer::Seat(seat)).as_ref(), Some(event));
    }
    IncitingIncident::narrate(&before, event, Viewer::Spectator).unwrap()
}

#[test]
fn gm_adjustment_sets_hits_flow_and_crisis_logged_publicly_with_its_reason() {
    let mut t = table("river-fight.toml");
    let text = gm_adjusts(&mut t, Adjustment::Hits { character: 0, hits: 1 }, "the spear hit after all");
    assert_eq!(t.state().fighters[0].hits, 1);
    assert_eq!(text, "  The GM adjusts Bren's hits: 0/2 → 1/2 (reason: the spear hit after all)");
    let text = gm_adjusts(&mut t, Adjustment::Flow { duel: 0, flow: -3 }, "misread");
    assert_eq!(t.state().duels[0].flow, -3);
    assert!(text.ends_with(": +0 → -3 (reason: misread)"), "{text}");
    let text = gm_adjusts(&mut t, Adjustment::Crisis { crisis: 7 }, "forgot a move");
    assert_eq!(t.state().crisis, 7);
    assert_eq!(text, "  The GM adjusts the Crisis pool: 0 → 7 (reason: forgot a move)");
    // The log replays: a save with adjustments loads and checks.
    let json = serde_json::to_string(&t.save()).unwrap();
    let back = inciting_incident::replay::load_checked(serde_json::from_str(&json).unwrap()).unwrap();
    assert_eq!(back.state(), t.state());
    assert_eq!(back.log(), t.log());
    // An adjustment edited by hand into one a GM could not give is refused.
    let mut saved = t.save();
    let i = saved.events.iter().position(|e| matches!(e, Event::Adjusted { .. })).unwrap();
    saved.events[i] = Event::Adjusted {
        adjustment: Adjustment::Crisis { crisis: u32::MAX },
        reason: Note::from("x").unwrap(),
    };
    let err = inciting_incident::replay::load_checked(saved).unwrap_err();
    assert_eq!(err, table::ReplayError::Unexpected { number: i + 1 });
}

#[test]
fn gm_adjustment_sets_strikes_in_a_non_violent_conflict() {
    let mut t = table("cover-up.toml");
    let text = gm_adjusts(&mut t, Adjustment::Strikes { side: 1, strikes: 4 }, "a new lead");
    assert_eq!(t.state().strikes, Some([3, 4]));
    assert_eq!(text, "  The GM adjusts conspiracy' Strikes: 3 → 4 (reason: a new lead)");
    // A side set to 0 Strikes has lost, by the rules (§10).
    gm_adjusts(&mut t, Adjustment::Strikes { side: 0, strikes: 0 }, "they gave up the trail");
    assert!(t.is_over());
    assert_eq!(t.state().outcome.as_ref().unwrap().winner, Some(1));
}

#[test]
fn gm_adjustment_is_refused_from_a_player_seat_naming_the_rule() {
    let mut t = table("river-fight.toml");
    let player = t.state().fighters[0].seat;
    let before = t.state().clone();
    let err = t.submit(player, &adjust(Adjustment::Crisis { crisis: 0 }, "please")).unwrap_err();
    assert!(
        err.to_string().contains("only the GM may adjust") && !err.to_string().contains("Decision 30"),
        "{err}"
    );
    assert_eq!(t.state(), &before);
}

#[test]
fn gm_adjustment_bounds_are_checked_and_the_state_is_unchanged() {
    let mut t = table("river-fight.toml");
    let gm = t.state().gm_seat().unwrap();
    let before = t.state().clone();
    let max = before.fighters[0].sheet.max_hits;
    let refused = |t: &mut Table<IncitingIncident>, a: Adjustment, reason: &str| {
        let e = t.submit(gm, &adjust(a, reason)).unwrap_err();
        assert!(
            matches!(e, RuleError::Adjust(_) | RuleError::UnknownCharacter(_) | RuleError::UnknownSide(_)),
            "{e}"
        );
        e.to_string()
    };
    // A fighting character reaches Max Hits by wounds, not by an adjustment (§9).
    assert!(refused(&mut t, Adjustment::Hits { character: 0, hits: max }, "x").contains("at most"));
    refused(&mut t, Adjustment::Hits { character: 99, hits: 0 }, "x");
    assert!(refused(&mut t, Adjustment::Flow { duel: 99, flow: 0 }, "x").contains("no Duel"));
    assert!(refused(&mut t, Adjustment::Flow { duel: 0, flow: i32::MIN }, "x").contains("at most"));
    assert!(refused(&mut t, Adjustment::Crisis { crisis: u32::MAX }, "x").contains("at most"));
    assert!(refused(&mut t, Adjustment::Strikes { side: 0, strikes: 1 }, "x").contains("non-violent"));
    refused(&mut t, Adjustment::Strikes { side: 2, strikes: 1 }, "x");
    assert!(refused(&mut t, Adjustment::Crisis { crisis: 1 }, "  ").contains("give a reason"));
    assert!(refused(&mut t, Adjustment::Crisis { crisis: 1 }, "one\nline").contains("one line"));
    assert_eq!(t.state(), &before);
    assert!(Note::from(&"x".repeat(65)).is_err(), "a reason holds at most 64 bytes");
}

#[test]
fn gm_adjustment_of_hits_keeps_the_characters_status() {
    let mut t = table("river-fight.toml");
    let max = t.state().fighters[0].sheet.max_hits;
    gm_adjusts(&mut t, Adjustment::Hits { character: 0, hits: max - 1 }, "one more hit");
    assert_eq!(t.state().fighters[0].status, Status::Fighting);
    gm_adjusts(&mut t, Adjustment::Hits { character: 0, hits: 0 }, "healed between scenes");
    assert_eq!(t.state().fighters[0].hits, 0);
}

#[test]
fn gm_adjustment_json_form_is_flat_and_a_gm_ruling() {
    let c: Command = serde_json::from_str(
        r#"{"adjust": {"hits": {"character": 0, "hits": 1}, "reason": "the spear hit after all"}}"#,
    )
    .unwrap();
    assert_eq!(c, adjust(Adjustment::Hits { character: 0, hits: 1 }, "the spear hit after all"));
    assert!(c.is_gm_ruling());
    let back: Command = serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
    assert_eq!(back, c);
    let e: Event =
        serde_json::from_str(r#"{"event": "adjusted", "crisis": {"crisis": 3}, "reason": "r"}"#).unwrap();
    assert_eq!(
        e,
        Event::Adjusted { adjustment: Adjustment::Crisis { crisis: 3 }, reason: Note::from("r").unwrap() }
    );
}
