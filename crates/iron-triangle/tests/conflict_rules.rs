//! The conflict rules of Iron Triangle (rules reference `shared/rules/iron-triangle.md`, §5),
//! played through `table::Table<IronTriangle>` with `Command`s.
//!
//! Each test is named after the rule it checks and cites its section.

#[macro_use]
mod common;

use common::*;
use iron_triangle::conflict::{SeatSpec, Status};
use iron_triangle::rules::Verdict;
use iron_triangle::turn::{Loss, Outcome};
use iron_triangle::{
    Action, Command, Conflict, Event, FighterId, GM, PLAYERS, Phase, RuleError, SetupError, Step,
};
use table::{Role, SeatId, Table};

// ---------------------------------------------------------------------------------------------
// §5.3 The book's worked example
// ---------------------------------------------------------------------------------------------

/// A level-8 player character knowing the nine three-element moves and ▨☰, ▨☯, with the combo
/// ○☵ → ▨☰, ▨☯ (a valid §4 sheet: 11 moves ≤ 3 + 8, energy 12 within 10..=18).
fn book_a() -> iron_triangle::Character {
    let mut moves = NINE.to_vec();
    moves.extend(["▨☰", "▨☯"]);
    sheet("A", 8, en(3, 4, 5), &moves, &[("○☵", &["▨☰", "▨☯"])])
}

/// §5.3 worked example: A won the prior turn (○☵ over B's ◆☷, so B has ◆☷ face up and A's
/// follow-ups of the chain's newest move are ▨☰ and ▨☯). Stances A 2▨, B 1○; moves A ▨☰,
/// B ○☷: ▨ beats ○ and B loses 2×3 + 1 + 4 + 1 + 1 = 13, at least 1 of it from ○.
#[test]
fn book_worked_example_b_loses_thirteen_at_least_one_from_defend() {
    let mut g = Build::new().pc("p1", book_a()).npc(npc("B", en(6, 6, 6), &["○☷", "◆☷", "○☵"])).table();
    let (a, b) = (id(&g, "A"), id(&g, "B"));
    let gm = seat(&g, GM_SEAT);

    // The prior turn, through the engine: A ○☵ beats B ◆☷ (○ beats ◆), B loses 2.
    let ev = play_turn(&mut g, "A", "B", ["0", "0"], ["○☵", "◆☷"]);
    assert_eq!(resolved(&ev).outcome, Outcome::Win { winner: 0 });
    ok!(g, gm, Command::SpreadLoss { spread: en(0, 0, 2) });
    assert_eq!(energy(&g, "B"), en(6, 6, 4));
    assert_eq!(g.state().fighter(b).disadvantage.cards(), vec![mv("◆☷")]);
    let combo = g.state().combo.clone().expect("A's win started a combo chain");
    assert_eq!((combo.side, combo.against, combo.newest()), (PLAYERS, b, mv("○☵")));
    // A is alone on its side: the next turn is A's, against B.
    assert_eq!((turn(&g).active, turn(&g).opponent), (a, Some(b)));

    // The example's turn.
    let ev = play_turn(&mut g, "A", "B", ["2▨", "1○"], ["▨☰", "○☷"]);
    let r = resolved(&ev);
    assert_eq!(r.outcome, Outcome::Win { winner: 0 });
    assert_eq!(r.disadvantaged, [false, true], "○☷ shares ☷ with B's face-up ◆☷");
    assert!(r.combo_continued);
    let loss = r.losses[1];
    assert_eq!(
        loss,
        Loss {
            winner_stance: 6,
            own_stance: 1,
            base: 4,
            combo: 1,
            disadvantage: 1,
            stance_type: Some(Action::Defend),
            mirrored: 0,
        }
    );
    assert_eq!(loss.total(), 13);
    assert_eq!(r.losses[0].total(), 0, "the winner loses nothing");

    // B chooses how the 12 that do not come from ○ are spread over (5, 6, 4) left after ○.
    let spreads = legal(&g, gm);
    assert_eq!(spreads.len(), 10, "every (○, ▨, ◆) within (5, 6, 4) adding up to 12: {spreads:?}");
    for c in &spreads {
        let Command::SpreadLoss { spread } = c else { panic!("only spreads are legal now: {c:?}") };
        assert_eq!(spread.total(), 12);
        assert!(spread.fits_within(&en(5, 6, 4)), "{spread:?}");
    }
    assert!(legal(&g, seat(&g, "p1")).is_empty(), "A has nothing to spread");
    let ev = ok!(g, gm, Command::SpreadLoss { spread: en(5, 6, 1) });
    assert_eq!(loss_taken(&ev, b), Some(en(6, 6, 1)), "1 from ○ for the stance, then the spread");
    assert_eq!(energy(&g, "B"), en(0, 0, 3));
    assert_eq!(g.state().fighter(b).zero_marks, [true, true, false]);
    assert_eq!(g.state().fighter(b).status, Status::In);
    assert_eq!(g.state().fighter(b).disadvantage.cards(), vec![mv("◆☷"), mv("○☷")]);
    assert_eq!(g.state().combo.as_ref().map(|c| c.len()), Some(2));
}

/// §5.3: the spread must add up to the part not taken from the stance's type, and may not
/// take more of a type than is left; both errors name §5.3 and change nothing.
#[test]
fn loss_spread_must_add_up_and_fit_the_energy_left() {
    let mut g = Build::new().pc("p1", book_a()).npc(npc("B", en(6, 6, 6), &["○☷", "◆☷"])).table();
    let gm = seat(&g, GM_SEAT);
    play_turn(&mut g, "A", "B", ["2▨", "1○"], ["▨☰", "○☷"]);
    // 6 + 1 + 4 = 11, 1 of it from ○: 10 to spread over (5, 6, 6).
    let e = refused!(g, gm, Command::SpreadLoss { spread: en(5, 6, 0) });
    assert!(matches!(e, RuleError::SpreadTotal { expected: 10, got: 11, .. }), "{e:?}");
    assert!(names_rule(&e, "§5.3"), "{e}");
    let e = refused!(g, gm, Command::SpreadLoss { spread: en(6, 4, 0) });
    assert!(
        matches!(e, RuleError::SpreadAboveEnergy { action: Action::Defend, asked: 6, left: 5, .. }),
        "{e:?}"
    );
    assert!(names_rule(&e, "§5.3"), "{e}");
    let e = refused!(g, seat(&g, "p1"), Command::SpreadLoss { spread: en(0, 0, 0) });
    assert!(matches!(e, RuleError::OutOfTurn { .. }), "the winner has no loss to spread: {e:?}");
}

// ---------------------------------------------------------------------------------------------
// §5.4 Disadvantage
// ---------------------------------------------------------------------------------------------

/// §5.4 book example through real turns: lose with ◆☷ → [◆☷]; ○☷ (matches ☷) loses: +1,
/// [◆☷, ○☷]; ◆☲ (matches neither ○ nor ☷) loses: +0, [◆☲].
#[test]
fn disadvantage_book_example_three_losses() {
    let mut g = Build::new()
        .pc("p1", pc("A", en(3, 3, 4)))
        .npc(npc("B", en(10, 10, 10), &["◆☷", "○☷", "◆☲"]))
        .table();
    let b = id(&g, "B");
    let gm = seat(&g, GM_SEAT);

    let r = resolved(&play_full(&mut g, "A", "B", ["0", "0"], ["○☵", "◆☷"]));
    assert_eq!(
        (r.outcome, r.disadvantaged, r.losses[1].total()),
        (Outcome::Win { winner: 0 }, [false, false], 2)
    );
    assert_eq!(g.state().fighter(b).disadvantage.cards(), vec![mv("◆☷")]);
    // ◆☷ is face up: not among B's legal moves.
    give_turn(&mut g, "A");
    ok!(g, seat(&g, "p1"), stance("0"));
    ok!(g, gm, stance("0"));
    let moves = legal(&g, gm);
    assert!(!moves.contains(&play("◆☷")) && moves.contains(&play("○☷")) && moves.contains(&play("◆☲")));

    ok!(g, seat(&g, "p1"), play("▨☷"));
    let ev = ok!(g, gm, play("○☷"));
    settle(&mut g);
    let r = resolved(&ev);
    assert_eq!(r.disadvantaged, [false, true]);
    assert_eq!((r.losses[1].base, r.losses[1].disadvantage, r.losses[1].total()), (4, 1, 5));
    assert_eq!(g.state().fighter(b).disadvantage.cards(), vec![mv("◆☷"), mv("○☷")]);

    let r = resolved(&play_full(&mut g, "A", "B", ["0", "0"], ["○☵", "◆☲"]));
    assert_eq!(r.disadvantaged, [false, false]);
    assert_eq!((r.losses[1].disadvantage, r.losses[1].total()), (0, 2));
    assert_eq!(g.state().fighter(b).disadvantage.cards(), vec![mv("◆☲")]);
    assert_eq!(energy(&g, "B").total(), 30 - 2 - 5 - 2);
}

/// §5.4: "Choosing a different opponent does not clear it" — the chain is the character's,
/// across opponents: B1 loses to A1, then faces A2 with a matching move and pays +1.
#[test]
fn disadvantage_chain_survives_a_change_of_opponent() {
    let mut g = Build::new()
        .pc("p1", pc("A1", en(3, 3, 4)))
        .pc("p2", pc("A2", en(3, 3, 4)))
        .npc(npc_all("B1", en(10, 10, 10)))
        .npc(npc_all("B2", en(10, 10, 10)))
        .table();
    let b1 = id(&g, "B1");
    play_full(&mut g, "A1", "B1", ["0", "0"], ["○☵", "◆☷"]);
    assert_eq!(g.state().fighter(b1).disadvantage.cards(), vec![mv("◆☷")]);
    let r = resolved(&play_full(&mut g, "A2", "B1", ["0", "0"], ["▨☷", "○☷"]));
    assert_eq!(r.disadvantaged, [false, true]);
    assert_eq!((r.losses[1].disadvantage, r.losses[1].total()), (1, 5));
    assert_eq!(g.state().fighter(b1).disadvantage.cards(), vec![mv("◆☷"), mv("○☷")]);
}

/// §5.4: "Win or tie: the chain is cleared (cards return to hand)." A win clears the winner's.
#[test]
fn disadvantage_chain_clears_when_its_owner_wins() {
    let mut c = Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(npc_all("B", en(10, 10, 10))).conflict();
    fm(&mut c, "B").disadvantage = chain(&["◆☷", "○☷"]);
    let mut g = Table::new(c);
    let (a, b) = (id(&g, "A"), id(&g, "B"));
    // B plays ◆☲ (◆ beats ▨): it wins; ◆☲ does not match ○☷, so it is not disadvantaged anyway.
    let r = resolved(&play_full(&mut g, "A", "B", ["0", "0"], ["▨☷", "◆☲"]));
    assert_eq!(r.outcome, Outcome::Win { winner: 1 });
    assert!(g.state().fighter(b).disadvantage.is_empty(), "B's cards return to hand");
    assert_eq!(g.state().fighter(a).disadvantage.cards(), vec![mv("▨☷")]);
    // B's ◆☷ and ○☷ are available again (the GM's own view lists them).
    let view = g.view(table::Viewer::Seat(seat(&g, GM_SEAT)));
    let avail = view.fighters[usize::from(b.0)].available.clone().unwrap();
    assert!(avail.contains(&mv("◆☷")) && avail.contains(&mv("○☷")));
}

/// §5.2 step 3 / §5.4: a move face up in the player's own disadvantage chain is unavailable;
/// choosing it is refused with `MoveUnavailable` naming §5.2, and nothing changes.
#[test]
fn disadvantage_cards_face_up_are_unavailable() {
    let mut c = Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(npc_all("B", en(10, 10, 10))).conflict();
    fm(&mut c, "B").disadvantage = chain(&["◆☷"]);
    fm(&mut c, "A").disadvantage = chain(&["○☵"]);
    let mut g = Table::new(c);
    let (p1, gm) = (seat(&g, "p1"), seat(&g, GM_SEAT));
    ok!(g, p1, stance("0"));
    ok!(g, gm, stance("0"));
    let e = refused!(g, gm, play("◆☷"));
    assert!(matches!(e, RuleError::MoveUnavailable { chain: "disadvantage", .. }), "{e:?}");
    assert!(names_rule(&e, "§5.2"), "{e}");
    let e = refused!(g, p1, play("○☵"));
    assert!(matches!(e, RuleError::MoveUnavailable { chain: "disadvantage", .. }), "{e:?}");
    assert!(!legal(&g, p1).contains(&play("○☵")));
    assert_eq!(legal(&g, p1), vec![play("▨☷"), play("◆☲"), play("surrender")]);
}

// ---------------------------------------------------------------------------------------------
// §5.5 Combos
// ---------------------------------------------------------------------------------------------

/// A level-3 character with the book's combo: ◆☷ → ▨☲, and ▨☲ → ○☲ or ◆☲.
fn comboist(name: &str) -> iron_triangle::Character {
    sheet(
        name,
        3,
        en(3, 3, 4),
        &["○☵", "▨☷", "◆☲", "◆☷", "▨☲", "○☲"],
        &[("◆☷", &["▨☲"]), ("▨☲", &["○☲", "◆☲"])],
    )
}

/// §5.5 book example, through real turns: chain [◆☷, ▨☲], follow-ups of ▨☲ are ○☲ or ◆☲;
/// ◆☲ wins: +2 (and the follow-up before it: +1). Moves in the chain are unavailable to A.
#[test]
fn combo_bonus_is_the_chain_length_on_a_legal_follow_up() {
    let mut g = Build::new().pc("p1", comboist("A")).npc(npc_all("B", en(10, 10, 10))).table();
    let (a, b) = (id(&g, "A"), id(&g, "B"));
    let p1 = seat(&g, "p1");

    let r = resolved(&play_full(&mut g, "A", "B", ["0", "0"], ["◆☷", "▨☵"]));
    assert_eq!((r.outcome, r.losses[1].combo, r.combo_continued), (Outcome::Win { winner: 0 }, 0, false));
    let r = resolved(&play_full(&mut g, "A", "B", ["0", "0"], ["▨☲", "○☷"]));
    assert_eq!((r.losses[1].combo, r.losses[1].total(), r.combo_continued), (1, 5, true));

    // Third turn: ◆☷ and ▨☲ are face up in A's chain, unavailable to A.
    give_turn(&mut g, "A");
    ok!(g, p1, stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    let moves: Vec<Command> =
        legal(&g, p1).into_iter().filter(|c| matches!(c, Command::CommitMove { .. })).collect();
    assert_eq!(moves, vec![play("○☵"), play("○☲"), play("▨☷"), play("◆☲"), play("surrender")]);
    let e = refused!(g, p1, play("◆☷"));
    assert!(matches!(e, RuleError::MoveUnavailable { chain: "combo", .. }), "{e:?}");
    assert!(names_rule(&e, "§5.2"), "{e}");

    ok!(g, p1, play("◆☲"));
    let r = resolved(&ok!(g, seat(&g, GM_SEAT), play("▨☵")));
    assert_eq!(r.disadvantaged, [false, false]);
    assert_eq!((r.losses[1].base, r.losses[1].combo, r.losses[1].total()), (3, 2, 5));
    let combo = g.state().combo.clone().unwrap();
    assert_eq!(
        combo.cards.iter().map(|c| (c.by, c.card)).collect::<Vec<_>>(),
        vec![(a, mv("◆☷")), (a, mv("▨☲")), (a, mv("◆☲"))]
    );
    assert_eq!(combo.against, b);
}

/// §5.5: "A win with a move that is not a legal follow-up starts a new chain of length 1 (no
/// bonus)."
#[test]
fn combo_a_win_that_does_not_follow_up_starts_a_new_chain_of_one() {
    let mut c = Build::new().pc("p1", comboist("A")).npc(npc_all("B", en(10, 10, 10))).conflict();
    let chain0 = combo_chain(&c, "A", "B", &["◆☷"]);
    c.combo = Some(chain0);
    let mut g = Table::new(c);
    let a = id(&g, "A");
    // ▨☷ is not a follow-up of ◆☷ (only ▨☲ is).
    let r = resolved(&play_full(&mut g, "A", "B", ["0", "0"], ["▨☷", "○☲"]));
    assert_eq!(
        (r.outcome, r.losses[1].combo, r.losses[1].total(), r.combo_continued),
        (Outcome::Win { winner: 0 }, 0, 4, false)
    );
    let combo = g.state().combo.clone().unwrap();
    assert_eq!(combo.cards.iter().map(|c| (c.by, c.card)).collect::<Vec<_>>(), vec![(a, mv("▨☷"))]);
}

/// §5.5: the chain ends when its side "chooses a different opponent".
#[test]
fn combo_ends_when_a_different_opponent_is_chosen() {
    let mut g = Build::new()
        .pc("p1", comboist("A1"))
        .pc("p2", comboist("A2"))
        .npc(npc_all("B1", en(10, 10, 10)))
        .npc(npc_all("B2", en(10, 10, 10)))
        .table();
    play_full(&mut g, "A1", "B1", ["0", "0"], ["◆☷", "▨☵"]);
    assert_eq!(g.state().combo.as_ref().map(|c| c.against), Some(id(&g, "B1")));
    give_turn(&mut g, "A2");
    assert!(g.state().combo.is_some(), "A2 could still continue the chain against B1");
    let ev = ok!(g, seat(&g, "p2"), Command::ChooseOpponent { opponent: id(&g, "B2") });
    assert!(g.state().combo.is_none(), "choosing B2 ends the chain against B1: {ev:?}");
    // ◆☷ is back in A1's hand, and A2's ▨☲ wins no bonus against B2.
    ok!(g, seat(&g, "p2"), stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    ok!(g, seat(&g, "p2"), play("▨☲"));
    let r = resolved(&ok!(g, seat(&g, GM_SEAT), play("○☷")));
    assert_eq!((r.losses[1].combo, r.losses[1].total()), (0, 4));
}

/// §5.5: the player may end the chain voluntarily before choosing a move; the cards return
/// to hand. `EndCombo` with no chain is refused naming §5.5.
#[test]
fn combo_voluntary_end_returns_the_cards() {
    let mut c = Build::new().pc("p1", comboist("A")).npc(npc_all("B", en(10, 10, 10))).conflict();
    let chain0 = combo_chain(&c, "A", "B", &["◆☷"]);
    c.combo = Some(chain0);
    let mut g = Table::new(c);
    let (p1, gm) = (seat(&g, "p1"), seat(&g, GM_SEAT));
    ok!(g, p1, stance("0"));
    ok!(g, gm, stance("0"));
    assert!(!legal(&g, p1).contains(&play("◆☷")), "◆☷ is face up in A's chain");
    assert!(legal(&g, p1).contains(&Command::EndCombo));
    assert!(!legal(&g, gm).contains(&Command::EndCombo));
    let e = refused!(g, gm, Command::EndCombo);
    assert!(matches!(e, RuleError::OutOfTurn { .. }), "only the active character ends its chain: {e:?}");
    let ev = ok!(g, p1, Command::EndCombo);
    assert_eq!(ev, vec![Event::ComboEnded { by: id(&g, "A") }]);
    assert!(g.state().combo.is_none());
    assert!(legal(&g, p1).contains(&play("◆☷")), "the card is back in hand");
    let e = refused!(g, p1, Command::EndCombo);
    assert!(matches!(e, RuleError::NoComboToEnd { .. }), "{e:?}");
    assert!(names_rule(&e, "§5.5"), "{e}");
    // ▨☲ would have been a follow-up of ◆☷; with the chain ended it earns nothing.
    ok!(g, p1, play("▨☲"));
    let r = resolved(&ok!(g, gm, play("○☷")));
    assert_eq!((r.losses[1].combo, r.combo_continued), (0, false));
}

/// Two level-1 player characters: A1 knows the combo ◆☲ → ○☵, A2 knows ◆☲ → ▨☷.
fn combo_team() -> Build {
    Build::new()
        .pc("p1", sheet("A1", 1, en(3, 3, 4), &["○☵", "▨☷", "◆☲"], &[("◆☲", &["○☵"])]))
        .pc("p2", sheet("A2", 1, en(3, 3, 4), &["○☵", "▨☷", "◆☲"], &[("◆☲", &["▨☷"])]))
        .npc(npc_all("B", en(10, 10, 10)))
}

/// §5.5: the one the winner passes to "may continue the chain next turn against the same
/// opponent with a move that is one of *its own* learned follow-ups" — A2's ▨☷ after A1's ◆☲.
#[test]
fn combo_teammate_continues_the_chain_with_its_own_follow_up() {
    let mut g = combo_team().table();
    let (a1, a2) = (id(&g, "A1"), id(&g, "A2"));
    play_full(&mut g, "A1", "B", ["0", "0"], ["◆☲", "▨☵"]);
    give_turn(&mut g, "A2");
    // A1's ◆☲ in the chain is unavailable to A1 only: A2 may play it.
    ok!(g, seat(&g, "p2"), stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    assert!(legal(&g, seat(&g, "p2")).contains(&play("◆☲")));
    ok!(g, seat(&g, "p2"), play("▨☷"));
    let r = resolved(&ok!(g, seat(&g, GM_SEAT), play("○☷")));
    assert_eq!((r.losses[1].combo, r.losses[1].total(), r.combo_continued), (1, 5, true));
    let combo = g.state().combo.clone().unwrap();
    assert_eq!(
        combo.cards.iter().map(|c| (c.by, c.card)).collect::<Vec<_>>(),
        vec![(a1, mv("◆☲")), (a2, mv("▨☷"))]
    );
}

/// §5.5: the follow-ups that count are the continuing character's own: A1's follow-up ○☵
/// played by A2 (who has no such link) is no combo and starts a new chain.
#[test]
fn combo_teammate_cannot_use_the_starters_follow_ups() {
    let mut g = combo_team().table();
    let a2 = id(&g, "A2");
    play_full(&mut g, "A1", "B", ["0", "0"], ["◆☲", "▨☵"]);
    let r = resolved(&play_full(&mut g, "A2", "B", ["0", "0"], ["○☵", "◆☷"]));
    assert_eq!(r.outcome, Outcome::Win { winner: 0 });
    assert_eq!((r.losses[1].combo, r.losses[1].total(), r.combo_continued), (0, 2, false));
    let combo = g.state().combo.clone().unwrap();
    assert_eq!(combo.cards.iter().map(|c| (c.by, c.card)).collect::<Vec<_>>(), vec![(a2, mv("○☵"))]);
}

/// A level-1 character whose combos cycle ◆☲ → ▨☷ → ○☵ → ◆☲.
fn cycler(name: &str) -> iron_triangle::Character {
    sheet(name, 1, en(3, 3, 4), &["○☵", "▨☷", "◆☲"], &[("◆☲", &["▨☷"]), ("▨☷", &["○☵"]), ("○☵", &["◆☲"])])
}

/// §5.6: "A character may take consecutive turns only to continue a combo, at most 3
/// consecutive winning turns; then it must pass." A whole streak counts as one turn.
#[test]
fn combo_streak_holder_must_pass_after_three_winning_turns() {
    let mut g = Build::new()
        .pc("p1", cycler("A1"))
        .pc("p2", pc("A2", en(3, 3, 4)))
        .npc(npc_all("B", en(10, 10, 10)))
        .table();
    let (a1, a2) = (id(&g, "A1"), id(&g, "A2"));
    let p1 = seat(&g, "p1");
    play_full(&mut g, "A1", "B", ["0", "0"], ["◆☲", "▨☵"]);
    let a = aftermath(&g).clone();
    assert_eq!(g.state().next_turn(&a).candidates, vec![a1, a2], "A1 may continue its combo");
    assert_eq!(legal(&g, p1), vec![Command::PassTurn { to: a1 }, Command::PassTurn { to: a2 }]);
    let r = resolved(&play_full(&mut g, "A1", "B", ["0", "0"], ["▨☷", "○☷"]));
    assert_eq!(r.losses[1].combo, 1);
    let r = resolved(&play_full(&mut g, "A1", "B", ["0", "0"], ["○☵", "◆☵"]));
    assert_eq!(r.losses[1].combo, 2);
    // Three consecutive winning turns: A1 must pass; A2, the only candidate, takes the turn.
    assert_eq!(turn(&g).active, a2, "the engine gives the turn to the sole candidate");
    assert_eq!(g.state().fighter(a1).turns_taken, 1, "the streak counted as one turn");
    assert_eq!(g.state().fighter(a2).turns_taken, 1);
    // A2 may still continue the chain against B if it knew a follow-up of ○☵; the chain is live.
    assert_eq!(g.state().combo.as_ref().map(|c| c.len()), Some(3));
}

/// §5.6 Decision: a character alone on its side takes every turn its side is given, beyond
/// three consecutive ones.
#[test]
fn combo_streak_limit_does_not_apply_to_a_character_alone_on_its_side() {
    let mut g = Build::new().pc("p1", cycler("A")).npc(npc_all("B", en(10, 10, 10))).table();
    let a = id(&g, "A");
    play_full(&mut g, "A", "B", ["0", "0"], ["◆☲", "▨☵"]);
    play_full(&mut g, "A", "B", ["0", "0"], ["▨☷", "○☷"]);
    play_full(&mut g, "A", "B", ["0", "0"], ["○☵", "◆☵"]);
    assert_eq!(turn(&g).active, a, "A is alone on its side: the fourth turn is A's too");
    assert_eq!(g.state().streak, 1, "a new streak begins");
    assert_eq!(g.state().fighter(a).turns_taken, 2);
}

// ---------------------------------------------------------------------------------------------
// §5.6 Passing turns
// ---------------------------------------------------------------------------------------------

fn two_on_two() -> Build {
    Build::new()
        .pc("p1", pc("A1", en(3, 3, 4)))
        .pc("p2", pc("A2", en(3, 3, 4)))
        .npc(npc_all("B1", en(10, 10, 10)))
        .npc(npc_all("B2", en(10, 10, 10)))
}

/// §5.6: "The turn's winner decides who takes the next turn, among the active characters of
/// the winner's side." Other seats, and characters of the other side, are refused naming §5.6.
#[test]
fn passing_the_winner_chooses_within_its_side() {
    // A1 knows the follow-up ◆☲ of its winning ○☵, so it may also continue its combo.
    let mut g = Build::new()
        .pc("p1", cycler("A1"))
        .pc("p2", pc("A2", en(3, 3, 4)))
        .npc(npc_all("B1", en(10, 10, 10)))
        .npc(npc_all("B2", en(10, 10, 10)))
        .table();
    let (a1, a2, b2) = (id(&g, "A1"), id(&g, "A2"), id(&g, "B2"));
    let (p1, p2, gm) = (seat(&g, "p1"), seat(&g, "p2"), seat(&g, GM_SEAT));
    play_full(&mut g, "A1", "B1", ["0", "0"], ["○☵", "◆☷"]);
    assert_eq!(g.awaiting(), vec![p1]);
    assert_eq!(legal(&g, p1), vec![Command::PassTurn { to: a1 }, Command::PassTurn { to: a2 }]);
    assert!(legal(&g, gm).is_empty() && legal(&g, p2).is_empty());
    let e = refused!(g, p1, Command::PassTurn { to: b2 });
    assert!(matches!(e, RuleError::CannotTakeTurn { .. }), "{e:?}");
    assert!(names_rule(&e, "§5.6"), "{e}");
    let e = refused!(g, gm, Command::PassTurn { to: b2 });
    assert!(matches!(e, RuleError::OutOfTurn { .. }), "{e:?}");
    let e = refused!(g, p2, Command::PassTurn { to: a2 });
    assert!(matches!(e, RuleError::OutOfTurn { .. }), "{e:?}");
    let e = refused!(g, p1, Command::PassTurn { to: FighterId(9) });
    assert_eq!(e, RuleError::UnknownFighter(9));
    let ev = ok!(g, p1, Command::PassTurn { to: a2 });
    assert_eq!(ev[0], Event::TurnBegan { active: a2 });
    assert_eq!(turn(&g).active, a2);
}

/// §5.6 equal turns: "the choice must fall on a character of that side with the fewest turns
/// taken so far" (the streak holder may still continue its combo).
#[test]
fn passing_equal_turns_go_to_those_with_fewest_turns_taken() {
    let mut g = Build::new()
        .pc("p1", cycler("A1"))
        .pc("p2", cycler("A2"))
        .pc("p3", pc("A3", en(3, 3, 4)))
        .npc(npc_all("B", en(10, 10, 10)))
        .table();
    let (a1, a2, a3) = (id(&g, "A1"), id(&g, "A2"), id(&g, "A3"));
    play_full(&mut g, "A1", "B", ["0", "0"], ["○☵", "◆☷"]);
    let a = aftermath(&g).clone();
    assert_eq!(g.state().next_turn(&a).candidates, vec![a1, a2, a3]);
    play_full(&mut g, "A2", "B", ["0", "0"], ["▨☷", "○☲"]);
    // A1 and A2 have taken a turn each, A3 none: A3, or A2 continuing its combo.
    let a = aftermath(&g).clone();
    assert_eq!(g.state().next_turn(&a).candidates, vec![a2, a3]);
    let e = refused!(g, seat(&g, "p2"), Command::PassTurn { to: a1 });
    assert!(matches!(e, RuleError::CannotTakeTurn { .. }), "{e:?}");
    assert!(names_rule(&e, "§5.6"), "{e}");
    assert!(e.to_string().contains("fewer turns"), "{e}");
    ok!(g, seat(&g, "p2"), Command::PassTurn { to: a3 });
    assert_eq!(turn(&g).active, a3);
}

/// §5.6: "on a tie the GM decides (any active character)" — except the one whose turn it was
/// (consecutive turns only continue a combo, and a tie ends it).
#[test]
fn passing_the_gm_chooses_after_a_tie() {
    let mut g = two_on_two().table();
    let (a2, b1, b2) = (id(&g, "A2"), id(&g, "B1"), id(&g, "B2"));
    let (p1, gm) = (seat(&g, "p1"), seat(&g, GM_SEAT));
    let r = resolved(&play_full(&mut g, "A1", "B1", ["0", "0"], ["◆☲", "◆☲"]));
    assert_eq!(r.outcome, Outcome::Tie);
    assert_eq!(g.awaiting(), vec![gm]);
    assert_eq!(
        legal(&g, gm),
        vec![Command::PassTurn { to: a2 }, Command::PassTurn { to: b1 }, Command::PassTurn { to: b2 }]
    );
    let e = refused!(g, p1, Command::PassTurn { to: a2 });
    assert!(matches!(e, RuleError::OutOfTurn { .. }), "{e:?}");
    let e = refused!(g, gm, Command::PassTurn { to: id(&g, "A1") });
    assert!(matches!(e, RuleError::CannotTakeTurn { .. }) && names_rule(&e, "§5.6"), "{e}");
    ok!(g, gm, Command::PassTurn { to: b2 });
    assert_eq!(turn(&g).active, b2);
}

/// §5.6 Decision (equal turns bind the GM too): "after a tie the GM may give the turn to
/// either side, but within the side chosen the equal-turns rule applies as it does to a
/// winner's choice."
#[test]
fn equal_turns_bind_the_gms_choice_after_a_tie() {
    let mut g = two_on_two().table();
    let (a1, a2, b1, b2) = (id(&g, "A1"), id(&g, "A2"), id(&g, "B1"), id(&g, "B2"));
    let gm = seat(&g, GM_SEAT);
    // A1 takes a turn and loses to B1; B1 takes the next; it ties with A1.
    let r = resolved(&play_full(&mut g, "A1", "B1", ["0", "0"], ["○☵", "▨☷"]));
    assert_eq!(r.outcome.winner(), Some(1));
    let r = resolved(&play_full(&mut g, "B1", "A1", ["0", "0"], ["◆☲", "◆☲"]));
    assert_eq!(r.outcome, Outcome::Tie);
    assert_eq!(g.awaiting(), vec![gm]);
    // A1 has taken a turn, A2 none: the GM may give the players' side only A2. B1's turn it
    // was: B2.
    assert_eq!(legal(&g, gm), vec![Command::PassTurn { to: a2 }, Command::PassTurn { to: b2 }]);
    let e = refused!(g, gm, Command::PassTurn { to: a1 });
    assert!(matches!(e, RuleError::CannotTakeTurn { .. }) && names_rule(&e, "§5.6"), "{e}");
    assert!(e.to_string().contains("fewer turns"), "{e}");
    let e = refused!(g, gm, Command::PassTurn { to: b1 });
    assert!(matches!(e, RuleError::CannotTakeTurn { .. }), "{e}");
    ok!(g, gm, Command::PassTurn { to: a2 });
    assert_eq!(turn(&g).active, a2);
}

/// §5.6 Decision: "in a side with one character left, that character takes every turn its
/// side is given" — even without a combo to continue.
#[test]
fn passing_a_side_with_one_character_left_gets_every_turn() {
    let mut g = Build::new()
        .pc("p1", pc("A", en(3, 3, 4)))
        .npc(npc_all("B1", en(10, 10, 10)))
        .npc(npc_all("B2", en(10, 10, 10)))
        .table();
    let a = id(&g, "A");
    play_full(&mut g, "A", "B1", ["0", "0"], ["○☵", "◆☷"]);
    assert_eq!(turn(&g).active, a, "the engine gives A the turn: nobody else can take it");
    play_full(&mut g, "A", "B1", ["0", "0"], ["▨☷", "○☲"]);
    play_full(&mut g, "A", "B1", ["0", "0"], ["○☵", "◆☵"]);
    play_full(&mut g, "A", "B1", ["0", "0"], ["◆☲", "▨☲"]);
    assert_eq!(turn(&g).active, a);
    assert_eq!(g.state().turn_number, 5);
}

/// §5.2 step 1: the active character chooses "any character of the other side still in the
/// conflict"; a lone character takes every turn (§5.6 Decision) without being bound to the
/// previous opponent, and choosing another ends the chain (§5.5).
#[test]
fn passing_a_lone_character_may_choose_any_opponent_on_its_next_turn() {
    let mut g = Build::new()
        .pc("p1", pc("A", en(3, 3, 4)))
        .npc(npc_all("B1", en(10, 10, 10)))
        .npc(npc_all("B2", en(10, 10, 10)))
        .table();
    let (a, b2) = (id(&g, "A"), id(&g, "B2"));
    play_full(&mut g, "A", "B1", ["0", "0"], ["○☵", "◆☷"]);
    assert_eq!(turn(&g).active, a);
    assert_eq!(turn(&g).step, Step::Opponent, "A has two possible opponents");
    assert_eq!(
        legal(&g, seat(&g, "p1")).iter().filter(|c| matches!(c, Command::ChooseOpponent { .. })).count(),
        2
    );
    ok!(g, seat(&g, "p1"), Command::ChooseOpponent { opponent: b2 });
    assert!(g.state().combo.is_none());
}

/// §5.6: "A character may take consecutive turns only to continue a combo" — a winner that
/// knows no follow-up of the chain's newest move cannot continue it, so it may not be given
/// the next turn while a teammate can take it.
#[test]
fn passing_no_consecutive_turn_without_a_follow_up_to_play() {
    let mut g = Build::new()
        .pc("p1", pc("A1", en(3, 3, 4)))
        .pc("p2", pc("A2", en(3, 3, 4)))
        .npc(npc_all("B", en(10, 10, 10)))
        .table();
    let a2 = id(&g, "A2");
    play_full(&mut g, "A1", "B", ["0", "0"], ["○☵", "◆☷"]);
    // A1 has no combos at all: it cannot continue the chain, so only A2 may take the turn
    // (and, being the sole candidate, takes it at once).
    let offered = match &g.state().phase {
        Phase::Aftermath(a) => g.state().next_turn(a).candidates,
        Phase::Turn(t) => vec![t.active],
        other => panic!("{other:?}"),
    };
    assert_eq!(offered, vec![a2], "A1 knows no follow-up of ○☵ yet is offered a consecutive turn");
}

// ---------------------------------------------------------------------------------------------
// §5.2 Surrender
// ---------------------------------------------------------------------------------------------

/// §5.2 Decision: a surrender costs nobody energy; the other counts as the turn's winner for
/// passing; no combo or disadvantage is started or extended (the chain ends, the surrenderer's
/// disadvantage clears, the other's is kept).
#[test]
fn surrender_loses_no_energy_and_the_other_passes_the_turn() {
    let mut c = Build::new()
        .pc("p1", pc("A1", en(3, 3, 4)))
        .pc("p2", pc("A2", en(3, 3, 4)))
        .pc("p3", pc("A3", en(3, 3, 4)))
        .npc(npc_all("B1", en(5, 5, 5)))
        .npc(npc_all("B2", en(5, 5, 5)))
        .conflict();
    fm(&mut c, "A1").disadvantage = chain(&["▨☷"]);
    fm(&mut c, "B1").disadvantage = chain(&["◆☵"]);
    let chain0 = combo_chain(&c, "A1", "B1", &["◆☲"]);
    c.combo = Some(chain0);
    let mut g = Table::new(c);
    let (a1, a2, a3, b1) = (id(&g, "A1"), id(&g, "A2"), id(&g, "A3"), id(&g, "B1"));
    let (p1, gm) = (seat(&g, "p1"), seat(&g, GM_SEAT));
    let before = g.state().clone();
    let ev = play_turn(&mut g, "A1", "B1", ["2○", "3▨"], ["○☵", "surrender"]);
    let r = resolved(&ev);
    assert_eq!(r.outcome, Outcome::Surrender { surrendered: [false, true] });
    assert_eq!(r.outcome.winner(), Some(0));
    assert_eq!(r.losses, [Loss::default(); 2]);
    assert!(!ev.iter().any(|e| matches!(e, Event::LossTaken { .. })), "nobody loses energy");
    for f in [a1, b1] {
        assert_eq!(g.state().fighter(f).energy, before.fighter(f).energy);
    }
    assert_eq!(g.state().fighter(b1).status, Status::Surrendered);
    assert!(!g.state().fighter(b1).dead);
    assert!(g.state().combo.is_none(), "no combo started or extended");
    assert!(g.state().fighter(b1).disadvantage.is_empty());
    assert_eq!(g.state().fighter(a1).disadvantage.cards(), vec![mv("▨☷")], "A1's is not cleared by a win");
    // A1 counts as the winner: its seat passes the turn within the players' side.
    assert_eq!(g.awaiting(), vec![p1]);
    assert_eq!(legal(&g, p1), vec![Command::PassTurn { to: a2 }, Command::PassTurn { to: a3 }]);
    let e = refused!(g, gm, Command::PassTurn { to: id(&g, "B2") });
    assert!(matches!(e, RuleError::OutOfTurn { .. }), "{e:?}");
    // B1 left: it is no longer a possible opponent.
    ok!(g, p1, Command::PassTurn { to: a2 });
    assert_eq!(turn(&g).opponent, Some(id(&g, "B2")), "B2 is the only NPC left in");
}

/// §5.2 Decision: "If both surrender, both leave." Nobody won: the GM gives the next turn.
#[test]
fn surrender_by_both_makes_both_leave() {
    let mut g = two_on_two().table();
    let (a1, a2, b1, b2) = (id(&g, "A1"), id(&g, "A2"), id(&g, "B1"), id(&g, "B2"));
    let r = resolved(&play_turn(&mut g, "A1", "B1", ["0", "0"], ["surrender", "surrender"]));
    assert_eq!(r.outcome, Outcome::Surrender { surrendered: [true, true] });
    assert_eq!(r.outcome.winner(), None);
    assert_eq!(g.state().fighter(a1).status, Status::Surrendered);
    assert_eq!(g.state().fighter(b1).status, Status::Surrendered);
    assert_eq!(g.awaiting(), vec![seat(&g, GM_SEAT)]);
    assert_eq!(
        legal(&g, seat(&g, GM_SEAT)),
        vec![Command::PassTurn { to: a2 }, Command::PassTurn { to: b2 }]
    );
}

/// §5.2: "In a lethal conflict the engine records that the winner may choose to kill a
/// surrendered opponent" — `DecideMercy` from the winner's seat only; a kill marks it dead.
#[test]
fn surrender_in_a_lethal_conflict_the_winner_decides_mercy() {
    let mut g = Build::new()
        .lethal()
        .pc("p1", pc("A", en(3, 3, 4)))
        .npc(npc_all("B1", en(5, 5, 5)))
        .npc(npc_all("B2", en(5, 5, 5)))
        .table();
    let (a, b1, b2) = (id(&g, "A"), id(&g, "B1"), id(&g, "B2"));
    let (p1, gm) = (seat(&g, "p1"), seat(&g, GM_SEAT));
    play_turn(&mut g, "A", "B1", ["0", "0"], ["○☵", "surrender"]);
    assert_eq!(g.awaiting(), vec![p1]);
    assert_eq!(
        legal(&g, p1),
        vec![Command::DecideMercy { kill: false }, Command::DecideMercy { kill: true }]
    );
    assert!(legal(&g, gm).is_empty());
    let e = refused!(g, gm, Command::DecideMercy { kill: false });
    assert!(matches!(e, RuleError::OutOfTurn { .. }), "{e:?}");
    let e = refused!(g, p1, Command::PassTurn { to: a });
    assert!(matches!(e, RuleError::OutOfTurn { .. }), "mercy comes first: {e:?}");
    let ev = ok!(g, p1, Command::DecideMercy { kill: true });
    assert_eq!(ev[0], Event::MercyDecided { fighter: b1, killed: true });
    assert!(g.state().fighter(b1).dead);
    assert_eq!(g.state().fighter(b1).status, Status::Surrendered);
    assert_eq!((turn(&g).active, turn(&g).opponent), (a, Some(b2)));
}

/// §5.2 and docs Decision 7: the last surrendered enemy can still be killed or spared before
/// the conflict ends; sparing leaves it alive.
#[test]
fn surrender_of_the_last_enemy_in_a_lethal_conflict_is_decided_before_the_end() {
    for kill in [false, true] {
        let mut g =
            Build::new().lethal().pc("p1", pc("A", en(3, 3, 4))).npc(npc_all("B", en(5, 5, 5))).table();
        let b = id(&g, "B");
        play_turn(&mut g, "A", "B", ["0", "0"], ["○☵", "surrender"]);
        assert!(!g.is_over(), "mercy is decided before the end");
        let ev = ok!(g, seat(&g, "p1"), Command::DecideMercy { kill });
        assert_eq!(
            ev,
            vec![
                Event::MercyDecided { fighter: b, killed: kill },
                Event::ConflictEnded { winner: Some(PLAYERS) }
            ]
        );
        assert_eq!(g.state().fighter(b).dead, kill);
    }
}

/// §5.2 step 3: "A character with no available move must surrender."
#[test]
fn surrender_is_forced_when_no_move_is_available() {
    let mut c = Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(npc("B", en(5, 5, 5), &["◆☷"])).conflict();
    fm(&mut c, "B").disadvantage = chain(&["◆☷"]);
    let mut g = Table::new(c);
    let gm = seat(&g, GM_SEAT);
    ok!(g, seat(&g, "p1"), stance("0"));
    ok!(g, gm, stance("0"));
    assert_eq!(legal(&g, gm), vec![play("surrender")]);
    let e = refused!(g, gm, play("◆☷"));
    assert!(matches!(e, RuleError::MoveUnavailable { .. }), "{e:?}");
    ok!(g, seat(&g, "p1"), play("○☵"));
    ok!(g, gm, play("surrender"));
    assert_eq!(g.state().ending.map(|e| e.winner), Some(Some(PLAYERS)));
}

// ---------------------------------------------------------------------------------------------
// §5.3 Consequences
// ---------------------------------------------------------------------------------------------

/// §5.3 tie: "each loses the base of the other's move. Nothing else (no stance, combo or
/// disadvantage loss). A tie ends both characters' combos and disadvantage."
#[test]
fn consequences_tie_each_loses_the_others_base_and_chains_end() {
    let mut c = Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(npc_all("B", en(5, 5, 5))).conflict();
    fm(&mut c, "A").disadvantage = chain(&["○☵"]);
    fm(&mut c, "B").disadvantage = chain(&["▨☷"]);
    let chain0 = combo_chain(&c, "A", "B", &["▨☷"]);
    c.combo = Some(chain0);
    let mut g = Table::new(c);
    let (a, b) = (id(&g, "A"), id(&g, "B"));
    let ev = play_full(&mut g, "A", "B", ["2◆", "3◆"], ["◆☲", "◆☲"]);
    let r = resolved(&ev);
    assert_eq!(r.outcome, Outcome::Tie);
    assert_eq!(r.disadvantaged, [false, false]);
    assert_eq!(r.losses, [Loss { base: 3, ..Loss::default() }; 2]);
    assert_eq!(loss_taken(&ev, a).map(|e| e.total()), Some(3));
    assert_eq!(loss_taken(&ev, b).map(|e| e.total()), Some(3));
    assert_eq!((energy(&g, "A").total(), energy(&g, "B").total()), (7, 12));
    assert!(g.state().fighter(a).disadvantage.is_empty() && g.state().fighter(b).disadvantage.is_empty());
    assert!(g.state().combo.is_none());
}

/// §5.3: "The part that comes from the loser's own counted stance is taken from the stance's
/// type; the rest is distributed ... by whoever controls the loser."
#[test]
fn consequences_the_stance_part_comes_from_the_stances_type() {
    let mut g = Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(npc_all("B", en(5, 5, 5))).table();
    let (b, gm) = (id(&g, "B"), seat(&g, GM_SEAT));
    let r = resolved(&play_turn(&mut g, "A", "B", ["0", "2○"], ["▨☷", "○☷"]));
    assert_eq!(
        r.losses[1],
        Loss { own_stance: 2, base: 4, stance_type: Some(Action::Defend), ..Loss::default() }
    );
    for c in legal(&g, gm) {
        let Command::SpreadLoss { spread } = c else { panic!("{c:?}") };
        assert_eq!(spread.total(), 4);
        assert!(spread.fits_within(&en(3, 5, 5)));
    }
    let ev = ok!(g, gm, Command::SpreadLoss { spread: en(0, 0, 4) });
    assert_eq!(loss_taken(&ev, b), Some(en(2, 0, 4)));
    assert_eq!(energy(&g, "B"), en(3, 5, 1));
}

/// §5.3: a stance counts only when the move's action equals its type; otherwise it is a feint.
#[test]
fn consequences_a_feint_stance_has_no_effect() {
    let mut g = Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(npc_all("B", en(5, 5, 5))).table();
    let r = resolved(&play_turn(&mut g, "A", "B", ["3◆", "2◆"], ["▨☷", "○☷"]));
    assert_eq!(r.losses[1], Loss { base: 4, ..Loss::default() });
}

/// §5.3: "Energy never goes below zero in any type; losses beyond what remains are simply
/// lost." A loss of 4 against 1 + 1 + 1 takes 3 (no spread asked) and B is out (§5.3).
#[test]
fn consequences_losses_beyond_what_is_left_are_lost() {
    let mut g = Build::new()
        .pc("p1", pc("A", en(3, 3, 4)))
        .npc(with_current(npc_all("B", en(5, 5, 5)), en(1, 1, 1)))
        .table();
    let b = id(&g, "B");
    let ev = play_turn(&mut g, "A", "B", ["0", "0"], ["▨☷", "○☷"]);
    assert_eq!(resolved(&ev).losses[1].total(), 4);
    assert_eq!(loss_taken(&ev, b), Some(en(1, 1, 1)));
    assert_eq!(energy(&g, "B"), en(0, 0, 0));
    assert_eq!(g.state().fighter(b).status, Status::Out);
    assert!(ev.contains(&Event::WentOut { fighter: b, dead: false }));
    assert_eq!(g.state().fighter(b).zero_marks, [true; 3]);
}

/// §5.3: "When a type reaches 0, mark it for level-up." Docs Decision 5: only a type that
/// reaches zero, not one already empty on entry.
#[test]
fn consequences_zero_energy_marks_are_set_when_a_type_reaches_zero() {
    let mut g = Build::new()
        .pc("p1", pc("A", en(3, 3, 4)))
        .npc(with_current(npc_all("B", en(3, 3, 3)), en(3, 3, 0)))
        .table();
    let (a, b) = (id(&g, "A"), id(&g, "B"));
    play_turn(&mut g, "A", "B", ["0", "0"], ["▨☷", "○☷"]);
    ok!(g, seat(&g, GM_SEAT), Command::SpreadLoss { spread: en(3, 1, 0) });
    assert_eq!(energy(&g, "B"), en(0, 2, 0));
    assert_eq!(g.state().fighter(b).zero_marks, [true, false, false], "◆ was empty on entry");
    assert_eq!(g.state().fighter(b).status, Status::In);
    assert_eq!(g.state().fighter(a).zero_marks, [false; 3]);
}

/// §5.3: out when all three types are 0, "dead if lethal, even if its side wins".
#[test]
fn consequences_out_in_a_lethal_conflict_is_dead_even_if_its_side_wins() {
    let mut g = Build::new()
        .lethal()
        .pc("p1", with_current(pc("A1", en(3, 3, 4)), en(1, 1, 1)))
        .pc("p2", pc("A2", en(3, 3, 4)))
        .npc(with_current(npc_all("B", en(5, 5, 5)), en(1, 1, 0)))
        .table();
    let (a1, b) = (id(&g, "A1"), id(&g, "B"));
    let ev = play_full(&mut g, "A1", "B", ["0", "0"], ["○☵", "▨☷"]);
    assert!(ev.contains(&Event::WentOut { fighter: a1, dead: true }));
    assert_eq!((g.state().fighter(a1).status, g.state().fighter(a1).dead), (Status::Out, true));
    // B, alone on its side, takes the turn; A2 is its only opponent; A2 wins and B is out too.
    let ev = play_full(&mut g, "B", "A2", ["0", "0"], ["◆☷", "○☵"]);
    assert!(ev.contains(&Event::WentOut { fighter: b, dead: true }));
    assert_eq!(g.state().ending.map(|e| e.winner), Some(Some(PLAYERS)));
    assert!(g.state().fighter(a1).dead, "A1 stays dead though its side won");
    assert!(!g.state().fighter(id(&g, "A2")).dead);
}

// ---------------------------------------------------------------------------------------------
// §5.7 End of conflict
// ---------------------------------------------------------------------------------------------

/// §5.7: "When every character of one side is out, the other side wins."
#[test]
fn end_a_side_with_no_one_in_loses() {
    let mut g = Build::new()
        .pc("p1", pc("A", en(3, 3, 4)))
        .npc(with_current(npc_all("B", en(5, 5, 5)), en(0, 2, 1)))
        .table();
    let ev = play_turn(&mut g, "A", "B", ["0", "0"], ["▨☷", "○☷"]);
    assert_eq!(ev.last(), Some(&Event::ConflictEnded { winner: Some(PLAYERS) }));
    assert!(g.is_over());
    assert_eq!(g.state().phase, Phase::Over);
    assert!(g.awaiting().is_empty());
}

/// §5.7: "If the last characters of both sides go out in the same turn, the GM's side wins":
/// a tie that zeroes both.
#[test]
fn end_simultaneous_elimination_gives_the_gms_side_the_win() {
    let mut g = Build::new()
        .pc("p1", with_current(pc("A", en(3, 3, 4)), en(1, 1, 1)))
        .npc(with_current(npc_all("B", en(5, 5, 5)), en(0, 2, 1)))
        .table();
    let (a, b) = (id(&g, "A"), id(&g, "B"));
    let ev = play_turn(&mut g, "A", "B", ["0", "0"], ["◆☲", "◆☲"]);
    assert_eq!(resolved(&ev).outcome, Outcome::Tie);
    assert!(ev.contains(&Event::WentOut { fighter: a, dead: false }));
    assert!(ev.contains(&Event::WentOut { fighter: b, dead: false }));
    assert_eq!(ev.last(), Some(&Event::ConflictEnded { winner: Some(GM) }));
    assert_eq!(g.state().ending.map(|e| e.winner), Some(Some(GM)));
}

/// §5.7: "A minor conflict is one turn: its winner's side wins the conflict."
#[test]
fn end_a_minor_conflict_ends_after_one_turn_with_the_winners_side() {
    for (moves, side) in [(["○☵", "◆☷"], PLAYERS), (["○☵", "▨☷"], GM)] {
        let mut g = two_on_two().minor().table();
        let ev = play_full(&mut g, "A1", "B1", ["0", "0"], moves);
        assert_eq!(ev.last(), Some(&Event::ConflictEnded { winner: Some(side) }));
        assert!(g.is_over());
        assert!(g.state().ids().all(|f| g.state().fighter(f).is_in()), "nobody had to go out");
        assert!(g.state().combo.is_none(), "§5.7: combos end");
        assert!(
            g.state().ids().all(|f| g.state().fighter(f).disadvantage.is_empty()),
            "§5.7: disadvantage ends"
        );
    }
}

/// §5.7 Decision: "on a tie the GM records the outcome" of a minor conflict.
#[test]
fn end_a_tied_minor_conflict_waits_for_the_gms_record() {
    let mut g = two_on_two().minor().table();
    let (p1, gm) = (seat(&g, "p1"), seat(&g, GM_SEAT));
    play_full(&mut g, "A1", "B1", ["0", "0"], ["◆☲", "◆☲"]);
    assert_eq!(g.state().phase, Phase::MinorOutcome);
    assert!(!g.is_over());
    assert_eq!(g.awaiting(), vec![gm]);
    assert_eq!(
        legal(&g, gm),
        [Verdict::Players, Verdict::Gm, Verdict::Draw]
            .map(|verdict| Command::RecordOutcome { verdict })
            .to_vec()
    );
    assert!(legal(&g, p1).is_empty());
    let e = refused!(g, p1, Command::RecordOutcome { verdict: Verdict::Players });
    assert!(matches!(e, RuleError::OutOfTurn { .. }), "{e:?}");
    let ev = ok!(g, gm, Command::RecordOutcome { verdict: Verdict::Draw });
    assert_eq!(ev, vec![Event::ConflictEnded { winner: None }]);
    assert!(g.is_over());
    assert_eq!(g.state().ending.map(|e| e.winner), Some(None));
}

/// Every kind of command, with plausible arguments.
fn every_command(fighters: u8) -> Vec<Command> {
    let mut out = vec![
        Command::EndCombo,
        stance("0"),
        stance("1○"),
        play("○☵"),
        play("surrender"),
        Command::SpreadLoss { spread: en(0, 0, 0) },
        Command::SpreadLoss { spread: en(1, 1, 1) },
        Command::DecideMercy { kill: true },
        Command::DecideMercy { kill: false },
    ];
    out.extend(
        [Verdict::Players, Verdict::Gm, Verdict::Draw].map(|verdict| Command::RecordOutcome { verdict }),
    );
    for f in 0..fighters {
        let f = FighterId(f);
        out.extend([
            Command::TakeFirstTurn { fighter: f },
            Command::ChooseOpponent { opponent: f },
            Command::PassTurn { to: f },
        ]);
    }
    out
}

/// §5.7: after the end, every command is refused with `ConflictOver`, and nothing changes;
/// disadvantage and combos end.
#[test]
fn end_after_the_end_every_command_gets_conflict_over() {
    let mut g = Build::new()
        .pc("p1", pc("A1", en(3, 3, 4)))
        .pc("p2", pc("A2", en(3, 3, 4)))
        .npc(with_current(npc_all("B", en(5, 5, 5)), en(1, 1, 0)))
        .table();
    // A1 loses once (a disadvantage chain), then A2 knocks B out.
    play_full(&mut g, "A1", "B", ["0", "0"], ["○☵", "▨☷"]);
    assert_eq!(g.state().fighter(id(&g, "A1")).disadvantage.len(), 1);
    assert!(g.state().combo.is_some());
    let ev = play_full(&mut g, "B", "A2", ["0", "0"], ["◆☷", "○☵"]);
    assert_eq!(ev.last(), Some(&Event::ConflictEnded { winner: Some(PLAYERS) }));
    assert!(g.state().combo.is_none());
    assert!(g.state().ids().all(|f| g.state().fighter(f).disadvantage.is_empty()), "chains are cleared");
    let seats: Vec<SeatId> = g.state().seats.iter().map(|(s, _)| s).collect();
    for s in seats {
        assert!(legal(&g, s).is_empty());
        for c in every_command(4) {
            let e = refused!(g, s, c);
            assert_eq!(e, RuleError::ConflictOver, "{c:?}");
        }
    }
    assert_eq!(refused!(g, SeatId(7), play("○☵")), RuleError::UnknownSeat(7));
}

// ---------------------------------------------------------------------------------------------
// §5.1 Entry
// ---------------------------------------------------------------------------------------------

fn setup_error(b: &Build) -> SetupError {
    Conflict::new(b.setup()).expect_err("the setup should be refused")
}

/// §5.1 step 2: "Characters with zero total energy cannot enter."
#[test]
fn entry_zero_total_energy_cannot_enter() {
    let b =
        Build::new().pc("p1", with_current(pc("A", en(3, 3, 4)), en(0, 0, 0))).npc(npc_all("B", en(5, 5, 5)));
    let e = setup_error(&b);
    assert_eq!(e, SetupError::NoEnergy("A".into()));
    assert!(!e.to_string().contains('§'), "{e}");
    let b = Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(npc_all("B", en(0, 0, 0)));
    assert_eq!(setup_error(&b), SetupError::NoEnergy("B".into()));
}

/// §5.1 step 2: a character marked "sits out next conflict" cannot enter.
#[test]
fn entry_sits_out_mark_cannot_enter() {
    let mut c = pc("A", en(3, 3, 4));
    c.sits_out_next_conflict = true;
    let e = setup_error(&Build::new().pc("p1", c).npc(npc_all("B", en(5, 5, 5))));
    assert_eq!(e, SetupError::SitsOut("A".into()));
    assert!(!e.to_string().contains('§'), "{e}");
}

/// §4 status: dead characters enter no conflict.
#[test]
fn entry_dead_characters_cannot_enter() {
    let mut c = npc_all("B", en(5, 5, 5));
    c.dead = true;
    assert_eq!(
        setup_error(&Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(c)),
        SetupError::Dead("B".into())
    );
}

/// §5.1 entering: characters are named uniquely in a conflict (names are how seats refer to
/// them, case-insensitively).
#[test]
fn entry_duplicate_character_names_are_refused() {
    let b = Build::new().pc("p1", pc("Ada", en(3, 3, 4))).npc(npc_all("ada", en(5, 5, 5)));
    assert_eq!(setup_error(&b), SetupError::DuplicateCharacter("ada".into()));
}

/// §5.1: a conflict needs a character on each side.
#[test]
fn entry_an_empty_side_is_refused() {
    let b = Build::new().pc("p1", pc("A", en(3, 3, 4))).empty_seat(GM_SEAT, Role::Gm);
    let e = setup_error(&b);
    assert_eq!(e, SetupError::EmptySide(GM));
    assert!(!e.to_string().contains('§'), "{e}");
    let b = Build::new().empty_seat("p1", Role::Player).npc(npc_all("B", en(5, 5, 5)));
    assert_eq!(setup_error(&b), SetupError::EmptySide(PLAYERS));
}

/// §5.1 and docs Decision 2: the GM controls the NPCs and decides where the rules say so (§5.6,
/// §5.7): a conflict needs a GM seat.
#[test]
fn entry_no_gm_seat_is_refused() {
    let mut setup = Build::new().pc("p1", pc("A", en(3, 3, 4))).pc("p2", pc("B", en(3, 3, 4))).setup();
    setup.seats.push(SeatSpec { name: "p3".into(), role: Role::Player });
    assert_eq!(Conflict::new(setup), Err(SetupError::NoGm));
}

/// §4: "Creation: 10 energy points over the three types, at least 1 in each. Exactly the
/// three starting moves." A PC sheet breaking it is refused naming §4; an NPC sheet is not
/// held to the creation rules (docs Decision 1).
#[test]
fn entry_a_pc_sheet_must_follow_the_creation_rules_an_npc_sheet_need_not() {
    let bad = || sheet("X", 0, en(0, 6, 6), &["▨☰"], &[]);
    let e = setup_error(&Build::new().pc("p1", bad()).npc(npc_all("B", en(5, 5, 5))));
    assert!(matches!(e, SetupError::Sheet(_)), "{e:?}");
    assert!(!e.to_string().contains('§'), "{e}");
    let g = Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(bad()).table();
    assert_eq!(g.state().fighter(id(&g, "X")).energy, en(0, 6, 6));
    // The same holds for every creation rule in turn.
    for (c, what) in [
        (sheet("X", 0, en(3, 3, 5), &["○☵", "▨☷", "◆☲"], &[]), "11 energy at level 0"),
        (sheet("X", 0, en(0, 5, 5), &["○☵", "▨☷", "◆☲"], &[]), "an empty type"),
        (sheet("X", 0, en(3, 3, 4), &["○☵", "▨☷"], &[]), "a starting move missing"),
        (sheet("X", 0, en(3, 3, 4), &["○☵", "▨☷", "◆☲", "◆☵"], &[]), "four moves at level 0"),
        (sheet("X", 0, en(3, 3, 4), &["○☵", "▨☷", "◆☲"], &[("○☵", &["▨☷"])]), "a combo at level 0"),
    ] {
        let e = setup_error(&Build::new().pc("p1", c.clone()).npc(npc_all("B", en(5, 5, 5))));
        assert!(matches!(e, SetupError::Sheet(_)) && !e.to_string().contains('§'), "{what}: {e}");
        assert!(
            Conflict::new(Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(c).setup()).is_ok(),
            "NPC: {what}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Bad input: a clear error naming the rule, and the state unchanged
// ---------------------------------------------------------------------------------------------

fn at_move_step() -> Game {
    let mut g = Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(npc_all("B", en(5, 5, 5))).table();
    ok!(g, seat(&g, "p1"), stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    g
}

/// §5.2 step 3: a move the character does not know is refused, naming the rule.
#[test]
fn bad_input_an_unknown_move_is_refused_naming_the_rule() {
    let mut g = at_move_step();
    let e = refused!(g, seat(&g, "p1"), play("▨☰"));
    assert!(matches!(e, RuleError::UnknownMove { .. }), "{e:?}");
    assert!(names_rule(&e, "§5.2"), "{e}");
    assert!(e.to_string().contains("▨☰"), "{e}");
}

/// §5.2 step 2: "a stance of N energy (0 ≤ N ≤ current energy of that type)".
#[test]
fn bad_input_a_stance_above_current_energy_is_refused_naming_the_rule() {
    let mut c = Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(npc_all("B", en(5, 5, 5))).conflict();
    fm(&mut c, "A").energy = en(0, 2, 4);
    let mut g = Table::new(c);
    let p1 = seat(&g, "p1");
    let e = refused!(g, p1, stance("3▨"));
    assert_eq!(
        e,
        RuleError::StanceAboveEnergy { fighter: "A".into(), action: Action::Grapple, amount: 3, current: 2 }
    );
    assert!(names_rule(&e, "§5.2"), "{e}");
    let e = refused!(g, p1, stance("1○"));
    assert!(
        matches!(e, RuleError::StanceAboveEnergy { current: 0, .. }),
        "a type at 0 allows no stance: {e:?}"
    );
    assert!(!legal(&g, p1).contains(&stance("1○")));
    assert!(legal(&g, p1).contains(&stance("2▨")));
    ok!(g, p1, stance("2▨"));
}

/// §5.2 step 3: a move face up in a chain is unavailable.
#[test]
fn bad_input_an_unavailable_move_is_refused_naming_the_rule() {
    let mut c = Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(npc_all("B", en(5, 5, 5))).conflict();
    fm(&mut c, "A").disadvantage = chain(&["◆☲"]);
    let mut g = Table::new(c);
    ok!(g, seat(&g, "p1"), stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    let e = refused!(g, seat(&g, "p1"), play("◆☲"));
    assert!(matches!(e, RuleError::MoveUnavailable { .. }), "{e:?}");
    assert!(names_rule(&e, "§5.2"), "{e}");
}

/// Acting out of turn (another seat's decision, a step not reached yet, a second
/// commitment) is refused, and the state and log are unchanged.
#[test]
fn bad_input_acting_out_of_turn_is_refused_and_changes_nothing() {
    let mut g = two_on_two().table();
    let (p1, p2, gm) = (seat(&g, "p1"), seat(&g, "p2"), seat(&g, GM_SEAT));
    // The players choose the first turn; the GM may not, and only for a player character.
    let e = refused!(g, gm, Command::TakeFirstTurn { fighter: id(&g, "B1") });
    assert!(matches!(e, RuleError::OutOfTurn { .. }), "{e:?}");
    let e = refused!(g, p1, Command::TakeFirstTurn { fighter: id(&g, "B1") });
    assert!(matches!(e, RuleError::CannotTakeTurn { .. }) && !e.to_string().contains('§'), "{e}");
    give_turn(&mut g, "A1");
    // A2's seat may not choose A1's opponent; nobody may commit a stance yet.
    let e = refused!(g, p2, Command::ChooseOpponent { opponent: id(&g, "B1") });
    assert!(matches!(e, RuleError::OutOfTurn { .. }), "{e:?}");
    let e = refused!(g, p1, stance("0"));
    assert!(matches!(e, RuleError::OutOfTurn { .. }), "{e:?}");
    ok!(g, p1, Command::ChooseOpponent { opponent: id(&g, "B1") });
    // A move during the stance step; a second stance; a seat outside the pair.
    let e = refused!(g, p1, play("○☵"));
    assert!(matches!(e, RuleError::OutOfTurn { .. }), "{e:?}");
    ok!(g, p1, stance("1○"));
    let e = refused!(g, p1, stance("0"));
    assert!(matches!(e, RuleError::AlreadyCommitted { .. }), "{e:?}");
    let e = refused!(g, p2, stance("0"));
    assert!(matches!(e, RuleError::OutOfTurn { .. }), "{e:?}");
    let e = refused!(g, SeatId(42), stance("0"));
    assert_eq!(e, RuleError::UnknownSeat(42));
}

/// The requirement: acting out of turn "gets a clear error naming the rule" — the
/// step of the turn that is waiting (§5.1 step 4 first turn, §5.2 steps 1–3, §5.3 spread,
/// §5.6 passing, §5.7 minor outcome).
#[test]
fn bad_input_out_of_turn_errors_name_the_rule() {
    let mut g = two_on_two().table();
    let (p1, p2, gm) = (seat(&g, "p1"), seat(&g, "p2"), seat(&g, GM_SEAT));
    let e = refused!(g, gm, Command::TakeFirstTurn { fighter: id(&g, "B1") });
    assert!(names_rule(&e, "§5.1"), "first turn: {e}");
    give_turn(&mut g, "A1");
    let e = refused!(g, p2, Command::ChooseOpponent { opponent: id(&g, "B1") });
    assert!(names_rule(&e, "§5.2"), "opponent step: {e}");
    ok!(g, p1, Command::ChooseOpponent { opponent: id(&g, "B1") });
    let e = refused!(g, p1, play("○☵"));
    assert!(names_rule(&e, "§5.2"), "stance step: {e}");
    ok!(g, p1, stance("0"));
    ok!(g, gm, stance("0"));
    let e = refused!(g, p2, play("○☵"));
    assert!(names_rule(&e, "§5.2"), "move step: {e}");
    // A tie: both spread a loss, then the GM gives the next turn to any character still in.
    ok!(g, p1, play("○☵"));
    ok!(g, gm, play("○☵"));
    let e = refused!(g, p1, Command::PassTurn { to: id(&g, "A2") });
    assert!(names_rule(&e, "§5.3"), "spread: {e}");
    settle(&mut g);
    let e = refused!(g, p1, Command::PassTurn { to: id(&g, "A2") });
    assert!(names_rule(&e, "§5.6"), "passing: {e}");
}

/// §5.2 step 1: the opponent is "any character of the other side still in the conflict".
#[test]
fn bad_input_an_opponent_who_is_out_is_refused_naming_the_rule() {
    let mut c = Build::new()
        .pc("p1", pc("A1", en(3, 3, 4)))
        .pc("p2", pc("A2", en(3, 3, 4)))
        .npc(npc_all("B1", en(5, 5, 5)))
        .npc(npc_all("B2", en(5, 5, 5)))
        .npc(npc_all("B3", en(5, 5, 5)))
        .conflict();
    let b1 = fm(&mut c, "B1");
    b1.energy = en(0, 0, 0);
    b1.status = Status::Out;
    b1.zero_marks = [true; 3];
    let mut g = Table::new(c);
    give_turn(&mut g, "A1");
    let p1 = seat(&g, "p1");
    assert_eq!(
        legal(&g, p1),
        vec![
            Command::ChooseOpponent { opponent: id(&g, "B2") },
            Command::ChooseOpponent { opponent: id(&g, "B3") }
        ]
    );
    let e = refused!(g, p1, Command::ChooseOpponent { opponent: id(&g, "B1") });
    assert!(matches!(e, RuleError::BadOpponent { .. }), "{e:?}");
    assert!(names_rule(&e, "§5.2") && e.to_string().contains("out of the conflict"), "{e}");
    let e = refused!(g, p1, Command::ChooseOpponent { opponent: id(&g, "A2") });
    assert!(matches!(e, RuleError::BadOpponent { .. }) && e.to_string().contains("same side"), "{e}");
    let e = refused!(g, p1, Command::ChooseOpponent { opponent: FighterId(200) });
    assert_eq!(e, RuleError::UnknownFighter(200));
}

/// A malformed setup or save file is refused with an error that says what is wrong (naming
/// the rule where one is broken); a table already open is not affected.
#[test]
fn bad_input_a_malformed_file_is_refused_naming_the_rule() {
    let good = serde_json::to_string(
        &Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(npc_all("B", en(5, 5, 5))).setup(),
    )
    .unwrap();
    assert!(serde_json::from_str::<iron_triangle::Setup>(&good).is_ok());
    // A move that does not exist (§3: no Defend Heaven).
    let bad = good.replacen("\"move\":\"○☵\"", "\"move\":\"○☰\"", 1);
    assert_ne!(bad, good);
    let e = serde_json::from_str::<iron_triangle::Setup>(&bad).unwrap_err();
    assert!(!e.to_string().contains('§'), "{e}");
    // An unknown field is named.
    let bad = good.replacen("\"level\"", "\"levle\"", 1);
    let e = serde_json::from_str::<iron_triangle::Setup>(&bad).unwrap_err();
    assert!(e.to_string().contains("levle"), "{e}");
    // A sheet that parses but breaks §4 is refused by Conflict::new naming §4.
    let bad = good.replacen("\"defend\":3", "\"defend\":4", 1);
    let setup: iron_triangle::Setup = serde_json::from_str(&bad).unwrap();
    let e = Conflict::new(setup).unwrap_err();
    assert!(!e.to_string().contains('§'), "{e}");

    // A corrupt save does not load, and the open table is untouched.
    let mut g = Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(npc_all("B", en(5, 5, 5))).table();
    ok!(g, seat(&g, "p1"), stance("1○"));
    let (state, log) = (g.state().clone(), g.log().to_vec());
    let save = serde_json::to_string(&g.save()).unwrap();
    assert!(
        serde_json::from_str::<table::Saved<iron_triangle::IronTriangle>>(
            &save[..save.find("\"events\"").unwrap()]
        )
        .is_err()
    );
    let bad = save.replacen("stance_committed", "stance_comitted", 1);
    let e = serde_json::from_str::<table::Saved<iron_triangle::IronTriangle>>(&bad).unwrap_err();
    assert!(e.to_string().contains("stance_comitted"), "{e}");
    assert_eq!((g.state(), g.log()), (&state, &log[..]));
}

/// A save edited by hand or damaged is refused by `Table::load_checked`: an event that no
/// legal command or automatic step causes, or a log that stops in the middle of the rules'
/// automatic steps. The genuine save loads to the identical state.
#[test]
fn bad_input_a_tampered_save_is_refused_by_the_checked_loader() {
    let mut g = Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(npc_all("B", en(5, 5, 5))).table();
    play_full(&mut g, "A", "B", ["1○", "2▨"], ["○☵", "▨☵"]);
    let saved = g.save();
    let checked = Table::load_checked(saved.clone()).expect("a genuine save loads");
    assert_eq!(checked.state(), g.state());
    // The loser's loss edited down to nothing.
    let i = saved.events.iter().position(|e| matches!(e, Event::LossTaken { .. })).unwrap();
    let mut edited = saved.clone();
    if let Event::LossTaken { taken, .. } = &mut edited.events[i] {
        *taken = en(0, 0, 0);
    }
    assert_eq!(Table::load_checked(edited).err(), Some(table::ReplayError::Unexpected { number: i + 1 }));
    // A stance nobody could take (above the energy of its type).
    let j = saved.events.iter().position(|e| matches!(e, Event::StanceCommitted { .. })).unwrap();
    let mut edited = saved.clone();
    if let Event::StanceCommitted { stance, .. } = &mut edited.events[j] {
        *stance = Some(st("9◆"));
    }
    assert_eq!(Table::load_checked(edited).err(), Some(table::ReplayError::Unexpected { number: j + 1 }));
    // Cut right after both moves are committed: the reveal and resolution are missing.
    let k = saved.events.iter().rposition(|e| matches!(e, Event::MoveCommitted { .. })).unwrap();
    let mut cut = saved.clone();
    cut.events.truncate(k + 1);
    assert_eq!(Table::load_checked(cut).err(), Some(table::ReplayError::Unfinished));
}

/// §5.1 step 4: "The players choose which PC takes the first turn" — any player seat, any
/// player character; not the GM.
#[test]
fn first_turn_the_players_choose_which_pc_starts() {
    let mut g = two_on_two().table();
    let (a1, a2) = (id(&g, "A1"), id(&g, "A2"));
    let (p1, p2, gm) = (seat(&g, "p1"), seat(&g, "p2"), seat(&g, GM_SEAT));
    assert_eq!(g.state().phase, Phase::FirstTurn);
    assert_eq!(g.awaiting(), vec![p1, p2]);
    let choices = vec![Command::TakeFirstTurn { fighter: a1 }, Command::TakeFirstTurn { fighter: a2 }];
    assert_eq!(legal(&g, p1), choices);
    assert_eq!(legal(&g, p2), choices);
    assert!(legal(&g, gm).is_empty());
    let ev = ok!(g, p2, Command::TakeFirstTurn { fighter: a1 });
    assert_eq!(ev, vec![Event::TurnBegan { active: a1 }]);
    assert_eq!((turn(&g).active, turn(&g).step), (a1, Step::Opponent));
    assert_eq!(g.state().fighter(a1).turns_taken, 1);
    // With a single player character the engine starts at once.
    let g = Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(npc_all("B", en(5, 5, 5))).table();
    assert_eq!(
        g.log()[..2],
        [Event::TurnBegan { active: id(&g, "A") }, Event::OpponentChosen { opponent: id(&g, "B") }]
    );
}

/// §5.2 step 2 and docs Decision 12: "Amount 0 = no stance", whatever type is named.
#[test]
fn stance_of_zero_is_no_stance_whatever_its_type() {
    let g = at_move_step_with(["0▨", "0◆"]);
    let stances = g.log().iter().filter_map(|e| match e {
        Event::StanceCommitted { stance, .. } => *stance,
        _ => None,
    });
    assert!(stances.into_iter().all(|s| s == iron_triangle::Stance::NONE));
    assert!(g.log().contains(&Event::StancesRevealed { stances: [iron_triangle::Stance::NONE; 2] }));
}

fn at_move_step_with(stances: [&str; 2]) -> Game {
    let mut g = Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(npc_all("B", en(5, 5, 5))).table();
    ok!(g, seat(&g, "p1"), stance(stances[0]));
    ok!(g, seat(&g, GM_SEAT), stance(stances[1]));
    g
}

/// §5.2 step 3: "A move's action type may be played even when that energy type is 0; only a
/// stance of that type is impossible."
#[test]
fn a_move_of_an_empty_energy_type_may_still_be_played() {
    let mut c = Build::new().pc("p1", pc("A", en(3, 3, 4))).npc(npc_all("B", en(5, 5, 5))).conflict();
    fm(&mut c, "A").energy = en(0, 3, 4);
    let mut g = Table::new(c);
    let p1 = seat(&g, "p1");
    assert!(!legal(&g, p1).iter().any(|c| matches!(c, Command::CommitStance { stance } if stance.action == Action::Defend && stance.amount > 0)));
    ok!(g, p1, stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    assert!(legal(&g, p1).contains(&play("○☵")));
    ok!(g, p1, play("○☵"));
    let r = resolved(&ok!(g, seat(&g, GM_SEAT), play("◆☷")));
    assert_eq!((r.outcome, r.losses[1].total()), (Outcome::Win { winner: 0 }, 2));
}

/// §5.6 and docs Decision 8: a character given a consecutive turn to continue its combo faces
/// the chain's opponent (the engine chooses it, there being no other choice).
#[test]
fn combo_consecutive_turn_faces_the_chains_opponent() {
    let mut g = Build::new()
        .pc("p1", cycler("A1"))
        .pc("p2", pc("A2", en(3, 3, 4)))
        .npc(npc_all("B1", en(10, 10, 10)))
        .npc(npc_all("B2", en(10, 10, 10)))
        .table();
    let (a1, b1) = (id(&g, "A1"), id(&g, "B1"));
    play_full(&mut g, "A1", "B1", ["0", "0"], ["◆☲", "▨☵"]);
    let ev = give_turn(&mut g, "A1");
    assert_eq!(ev, vec![Event::TurnBegan { active: a1 }, Event::OpponentChosen { opponent: b1 }]);
    assert_eq!(g.state().streak, 2);
    assert_eq!(g.state().fighter(a1).turns_taken, 1, "a streak counts as one turn");
    let e = refused!(g, seat(&g, "p1"), Command::ChooseOpponent { opponent: id(&g, "B2") });
    assert!(matches!(e, RuleError::OutOfTurn { .. }), "{e:?}");
    let r = resolved(&play_full(&mut g, "A1", "B1", ["0", "0"], ["▨☷", "○☷"]));
    assert_eq!(r.losses[1].combo, 1);
}
