//! Who won (seed Step 4: Trine and Attribute Dominance, Sweep, Showdown Totals; the
//! Elimination Check), as the view gives it to every shell: [`nodice::outcome`]. On the rules
//! reference's worked example (§7, Kara against the Bandit).

mod common;

use common::*;
use nodice::*;
use table::{Ruleset, SeatId, Viewer};

/// §7 Hand 1: Body beats Spirit and Strength beats Presence: Kara wins both Dominances, a
/// Sweep, Showdown Totals 8 to 3 — in every viewer's view once the Actions are revealed.
#[test]
fn hand_sweep_is_winning_trine_and_attribute_dominance_worked_example_hand_1() {
    let mut t = start(kara_vs_bandit());
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "WIL", &["Kara"]).unwrap();
    assert_eq!(NoDice::view(t.state(), Viewer::Spectator).hand_result, None, "not before the reveal");
    commit_action(&mut t, "Kara", "STR", 4, true).unwrap();
    commit_action(&mut t, "Bandit", "PRE", 3, false).unwrap();
    for v in [Viewer::Spectator, Viewer::Seat(SeatId(0)), Viewer::Seat(SeatId(1))] {
        let r = NoDice::view(t.state(), v).hand_result.expect("revealed");
        assert_eq!(r.hand, 1);
        let p = &r.pairs[0];
        let kara = id(&t, "Kara");
        assert_eq!(
            (p.trine, p.attribute, p.sweep, p.ahead),
            (Some(kara), Some(kara), Some(kara), Some(kara))
        );
        assert_eq!(p.totals, [8, 3]);
        assert_eq!(
            p.words,
            "Kara against Bandit: Kara wins Trine Dominance (Body over Spirit) and Attribute Dominance \
             (Strength over Presence), a Sweep; Showdown Totals 8 to 3."
        );
        assert_eq!(r.headline, "Hand 1: Kara sweeps Bandit.");
    }
}

/// §7 Hand 2: a Trine Dominance tie; Knowledge beats Quickness: Kara wins Attribute Dominance
/// alone and is ahead 5 to 3.
#[test]
fn hand_trine_tie_attribute_dominance_alone_worked_example_hand_2() {
    let mut t = start(kara_vs_bandit());
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "WIL", &["Kara"]).unwrap();
    commit_action(&mut t, "Kara", "STR", 4, true).unwrap();
    commit_action(&mut t, "Bandit", "PRE", 3, false).unwrap();
    spread(&mut t, "Kara", [0, 0, 3]).unwrap();
    spread(&mut t, "Bandit", [3, 0, 2]).unwrap();
    commit_aspect(&mut t, "Kara", "REA", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "KNO", &["Kara"]).unwrap();
    commit_action(&mut t, "Kara", "KNO", 4, false).unwrap();
    commit_action(&mut t, "Bandit", "QUI", 3, false).unwrap();
    let r = NoDice::view(t.state(), Viewer::Spectator).hand_result.unwrap();
    let p = &r.pairs[0];
    assert_eq!((p.trine, p.sweep), (None, None));
    assert_eq!(p.attribute, Some(id(&t, "Kara")));
    assert!(p.words.contains("Kara wins Attribute Dominance (Knowledge over Quickness)"), "{}", p.words);
    assert_eq!(r.headline, "Hand 2: Kara comes out ahead of Bandit.");
}

/// Elimination Check: an Actor that withdraws leaves; with one side left it wins, each
/// viewer reading it in its own words, with the summary (Hands, damage, who left and why).
#[test]
fn conflict_one_side_left_wins_in_each_viewers_words() {
    let mut t = start(kara_vs_bandit());
    let bandit = id(&t, "Bandit");
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    t.submit(seat_of(&t, "Bandit"), &Command::Withdraw { actor: bandit }).unwrap();
    while !t.is_over() {
        finish_hand(&mut t);
    }
    let of = |v: Viewer| NoDice::view(t.state(), v).who_won.expect("over");
    let kara = of(Viewer::Seat(seat_of(&t, "Kara")));
    assert_eq!(kara.headline, "You won: Kara's side wins.");
    assert_eq!(kara.you_won, Some(true));
    assert_eq!(of(Viewer::Seat(seat_of(&t, "Bandit"))).headline, "You lost: Kara's side wins.");
    let spectator = of(Viewer::Spectator);
    assert_eq!(spectator.headline, "The Conflict ends: Kara's side wins.");
    assert_eq!(spectator.winner, Some(table::SideId(0)));
    assert!(
        spectator.summary.contains(&"Bandit took 0 damage; withdrew.".to_owned()),
        "{:?}",
        spectator.summary
    );
}

/// The GM ends it (the fiction resolved the objective): nobody wins.
#[test]
fn conflict_ended_by_the_gm_has_no_winner() {
    let mut t = start(kara_vs_bandit());
    t.submit(seat_of(&t, "Bandit"), &Command::EndConflict).unwrap();
    let w = NoDice::view(t.state(), Viewer::Seat(SeatId(0))).who_won.unwrap();
    assert_eq!((w.winner, w.you_won), (None, None));
    assert!(w.headline.starts_with("The GM ends the Conflict"), "{}", w.headline);
}

/// §3.2–3.3, the worked example (§7): Kara's serial `R2/1(38/5)-M4(5/4/3)-B4(4/4/4)-S3(2/3/4)`
/// is explained in words where it is shown, and its values follow the damage (Hand 1: INT
/// 4 → 1, WIL 2 → 3 from the pot) while the Rank, the Budget and the Trine Scores stay.
#[test]
fn serial_explained_in_words_and_updated_after_damage_worked_example() {
    let mut t = start(kara_vs_bandit());
    let kara = |t: &table::Table<NoDice>| NoDice::view(t.state(), Viewer::Seat(SeatId(0))).actors[0].clone();
    let before = kara(&t);
    assert_eq!(before.serial.as_deref(), Some("R2/1(38/5)-M4(5/4/3)-B4(4/4/4)-S3(2/3/4)"));
    assert_eq!(before.serial_now, before.serial, "no damage yet");
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "WIL", &["Kara"]).unwrap();
    commit_action(&mut t, "Kara", "STR", 4, true).unwrap();
    commit_action(&mut t, "Bandit", "PRE", 3, false).unwrap();
    spread(&mut t, "Kara", [0, 0, 3]).unwrap();
    spread(&mut t, "Bandit", [3, 0, 2]).unwrap();
    let after = kara(&t);
    assert_eq!(after.serial, before.serial, "the sheet as built");
    assert_eq!(after.serial_now.as_deref(), Some("R2/1(38/5)-M4(5/4/3)-B4(4/4/4)-S3(3/3/1)"));
    let words = after.serial_words.unwrap();
    assert!(words.starts_with("Rank 2, Wildcard Rank 1, Build Budget 38 (5 on abilities); "), "{words}");
    assert!(words.contains("Mind: Trine Score 4 — Reason 5, Knowledge 4, Quickness 3"), "{words}");
    assert!(words.ends_with("Spirit: Trine Score 3 — Willpower 3, Presence 3, Intuition 1"), "{words}");
    let hidden = NoDice::view(t.state(), Viewer::Seat(SeatId(0))).actors[1].clone();
    assert_eq!((hidden.serial_now, hidden.serial_words), (None, None), "the NPC's stat block stays the GM's");
}
