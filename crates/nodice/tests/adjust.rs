//! Decision 35, GM adjustments: the GM sets an Actor's chips in one Attribute or its
//! Wildcards left, always with a reason, logged publicly; refused from a player seat; bounded;
//! outside chip conservation; replayed by the checked load.

mod common;

use common::*;
use nodice::*;
use table::{Ruleset, SeatId, Viewer};

const GM: SeatId = SeatId(1);
const KARA_SEAT: SeatId = SeatId(0);

fn adjust(actor: u8, change: Adjustment, reason: &str) -> Command {
    Command::Adjust { actor: ActorId(actor), change, reason: reason.to_owned() }
}

#[test]
fn gm_adjustment_sets_chips_logs_it_publicly_and_stays_outside_chip_conservation() {
    let mut t = start(kara_vs_bandit());
    let str_ = attr("STR");
    let before = t.state().actors[0].stacks[str_.index()];
    t.submit(GM, &adjust(0, Adjustment::Chips { attribute: str_, to: before + 2 }, "the healer's draught"))
        .unwrap();
    assert_eq!(t.state().actors[0].stacks[str_.index()], before + 2);
    assert_eq!(t.state().chips_adjusted, 2);
    assert!(chips_conserved(t.state()));
    let event = t.log().last().unwrap().clone();
    assert_eq!(
        event,
        Event::Adjusted {
            actor: ActorId(0),
            change: Adjustment::Chips { attribute: str_, to: before + 2 },
            from: before,
            reason: "the healer's draught".into()
        }
    );
    // Public: every viewer's log holds it as it is, narrated with its reason.
    let mut state = t.initial().clone();
    for e in &t.log()[..t.log().len() - 1] {
        NoDice::apply(&mut state, e);
    }
    for viewer in [Viewer::Spectator, Viewer::Seat(KARA_SEAT), Viewer::Seat(GM)] {
        assert_eq!(NoDice::redact(&state, &event, viewer), event);
    }
    assert_eq!(
        NoDice::narrate(&state, &event, Viewer::Spectator).unwrap(),
        format!(
            "The GM adjusts Kara: Strength {before} → {} (reason: \"the healer's draught\").",
            before + 2
        )
    );
    // The save replays through the checked load.
    let saved = t.save();
    assert!(load_checked(saved).is_ok());
}

#[test]
fn gm_adjustment_refused_from_a_player_seat() {
    let mut t = start(kara_vs_bandit());
    let err =
        t.submit(KARA_SEAT, &adjust(0, Adjustment::Chips { attribute: attr("STR"), to: 9 }, "I say so"));
    assert_eq!(err.unwrap_err(), RuleError::AdjustNotGm);
    assert!(RuleError::AdjustNotGm.to_string().contains("only the GM"));
    assert!(!RuleError::AdjustNotGm.to_string().contains("Decision 35"));
}

#[test]
fn gm_adjustment_bounds_are_checked() {
    let mut t = start(kara_vs_bandit());
    let refused = |t: &mut table::Table<NoDice>, c: Command| {
        let before = t.state().clone();
        let e = t.submit(GM, &c).unwrap_err();
        assert_eq!(t.state(), &before, "a refused adjustment changes nothing");
        assert!(matches!(e, RuleError::Adjust(_) | RuleError::UnknownActor(_)), "{e:?}");
        e.to_string()
    };
    let over = refused(&mut t, adjust(0, Adjustment::Chips { attribute: attr("STR"), to: 101 }, "r"));
    assert!(over.contains("0–100"), "{over}");
    assert!(
        refused(&mut t, adjust(0, Adjustment::Chips { attribute: attr("STR"), to: 3 }, "  "))
            .contains("reason")
    );
    assert!(
        refused(&mut t, adjust(0, Adjustment::Chips { attribute: attr("STR"), to: 3 }, "a\u{1b}[2J"))
            .contains("control")
    );
    refused(&mut t, adjust(9, Adjustment::Wildcards { to: 0 }, "r"));
    let pool = t.state().actors[0].sheet.wildcards;
    assert!(
        refused(&mut t, adjust(0, Adjustment::Wildcards { to: pool + 1 }, "r")).contains("Wildcard pool")
    );
    // The Bandit (an NPC) has no Wildcard pool.
    assert!(refused(&mut t, adjust(1, Adjustment::Wildcards { to: 1 }, "r")).contains("pool of 0"));
    // Kara's Wildcards back to her pool, 100 chips in one stack: both at the bounds.
    t.submit(GM, &adjust(0, Adjustment::Wildcards { to: pool }, "a fresh start")).unwrap();
    t.submit(GM, &adjust(0, Adjustment::Chips { attribute: attr("STR"), to: 100 }, "giant's belt")).unwrap();
    t.submit(GM, &adjust(0, Adjustment::Chips { attribute: attr("STR"), to: 0 }, "the belt breaks")).unwrap();
    assert!(chips_conserved(t.state()));
}

#[test]
fn gm_adjustment_refused_for_an_absent_attribute() {
    let mut setup = kara_vs_bandit();
    setup.actors[1].statblock = block("R20/0(200/0)-M-(-/-/-)-B66(9/9/-)-S1(-/-/2)");
    let mut t = start(setup);
    let absent =
        Attribute::ALL.into_iter().find(|&x| !t.state().actors[1].sheet.statblock.possesses(x)).unwrap();
    let e = t.submit(GM, &adjust(1, Adjustment::Chips { attribute: absent, to: 3 }, "r")).unwrap_err();
    assert!(e.to_string().contains("does not possess"), "{e}");
}

/// Decisions 33 and 35, and the End Conflict step: the GM's rulings outside the choices of
/// play — an adjustment, the Engagement's clusters, ending the Conflict — are what a GM screen
/// gives on the GM seat's behalf ([`table::Ruleset::is_gm_ruling`]); an Actor's cards, damage
/// spread and justification line are not.
#[test]
fn gm_rulings_are_adjustments_engagement_and_the_end() {
    let rulings = [
        adjust(1, Adjustment::Wildcards { to: 0 }, "lost"),
        Command::Engage { clusters: Vec::new() },
        Command::EndConflict,
    ];
    for r in &rulings {
        assert!(NoDice::is_gm_ruling(r), "{r:?}");
    }
    let others = [
        Command::Withdraw { actor: ActorId(0) },
        Command::SpreadDamage { actor: ActorId(0), spread: [1, 0, 0] },
        Command::Justify { actor: ActorId(0), line: "a feint".into() },
    ];
    for o in &others {
        assert!(!NoDice::is_gm_ruling(o), "{o:?}");
    }
}
