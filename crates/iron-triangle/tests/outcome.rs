//! Who won (rules reference `shared/rules/iron-triangle.md` §5.2 step 4, §5.3, §5.7), as the
//! view gives it to every shell: [`iron_triangle::outcome`]. Each test is named after the rule
//! it checks, on the reference's worked examples.

#[macro_use]
mod common;

use common::*;
use iron_triangle::outcome::Why;
use iron_triangle::rules::Verdict;
use iron_triangle::{Command, IronTriangle, Phase};
use table::{Ruleset, Viewer};

/// The §5.3 worked example's A (see conflict_rules.rs).
fn book_a() -> iron_triangle::Character {
    let mut moves = NINE.to_vec();
    moves.extend(["▨☰", "▨☯"]);
    sheet("A", 8, en(3, 4, 5), &moves, &[("○☵", &["▨☰", "▨☯"])])
}

/// A player character knowing the nine three-element moves.
fn nine(name: &str) -> iron_triangle::Character {
    sheet(name, 8, en(3, 4, 5), &NINE, &[])
}

/// §5.2 step 4.1 and §5.3, the book's worked example: ▨ beats ○, A wins; B loses
/// 2×3 + 1 + 4 + 1 + 1 = 13. The turn's result, why and the loss in its parts are in every
/// viewer's view while the loss is taken.
#[test]
fn turn_winner_by_action_book_worked_example_loses_thirteen() {
    let mut g = Build::new().pc("p1", book_a()).npc(npc("B", en(6, 6, 6), &["○☷", "◆☷", "○☵"])).table();
    let (a, b) = (id(&g, "A"), id(&g, "B"));
    play_full(&mut g, "A", "B", ["0", "0"], ["○☵", "◆☷"]);
    play_turn(&mut g, "A", "B", ["2▨", "1○"], ["▨☰", "○☷"]);
    for viewer in viewers(&g) {
        let view = IronTriangle::view(g.state(), viewer);
        let r = view.turn_result.expect("the aftermath shows the turn's result");
        assert_eq!(r.turn, 2);
        assert_eq!(r.winner, Some(a));
        assert_eq!(r.why, Why::Action { words: "▨ Grapple beats ○ Defend".into() });
        assert_eq!(r.losses.len(), 1, "the winner loses nothing");
        assert_eq!(r.losses[0].fighter, b);
        assert_eq!(r.losses[0].loss.total(), 13);
        assert_eq!(
            r.losses[0].words,
            "B loses 13: winner's stance 6 + own stance 1 + base 4 + combo 1 + disadvantage 1 = 13."
        );
        assert!(r.headline.starts_with("Turn 2: A wins with "), "{}", r.headline);
        assert!(r.headline.contains("continuing the combo"), "{}", r.headline);
        assert!(r.headline.ends_with("(▨ Grapple beats ○ Defend)."), "{}", r.headline);
        assert!(!r.headline.contains('§'));
    }
    settle(&mut g);
    assert!(matches!(g.state().phase, Phase::Turn(_)));
    assert_eq!(IronTriangle::view(g.state(), Viewer::Spectator).turn_result, None, "only while it is taken");
}

/// §5.2 step 4.2: with the same action, the element decides (☵ Water beats ☷ Earth).
#[test]
fn turn_winner_by_element_when_the_actions_are_the_same() {
    let mut g = Build::new().pc("p1", nine("A")).npc(npc_all("B", en(6, 6, 6))).table();
    play_turn(&mut g, "A", "B", ["0", "0"], ["◆☵", "◆☷"]);
    let r = IronTriangle::view(g.state(), Viewer::Spectator).turn_result.unwrap();
    assert_eq!(r.winner, Some(id(&g, "A")));
    assert_eq!(r.why, Why::Element { words: "☵ Water beats ☷ Earth".into() });
}

/// §5.2 step 4.3: same action and element, only the loser's move disadvantaged: it loses.
#[test]
fn turn_winner_by_disadvantage_when_action_and_element_are_the_same() {
    let mut g = Build::new().pc("p1", nine("A")).npc(npc_all("B", en(9, 9, 9))).table();
    // B loses with ◆☷: its chain is [◆☷]; then ◆☵ (shares ◆) against the same ◆☵ is
    // disadvantaged, A's is not.
    play_full(&mut g, "A", "B", ["0", "0"], ["○☷", "◆☷"]);
    play_turn(&mut g, "A", "B", ["0", "0"], ["◆☵", "◆☵"]);
    let r = IronTriangle::view(g.state(), Viewer::Spectator).turn_result.unwrap();
    assert_eq!(r.winner, Some(id(&g, "A")));
    assert_eq!(r.why, Why::Disadvantage { words: "B's move was at a disadvantage".into() });
}

/// §5.2 step 4.4 and §5.3: a tie has no winner; each loses the base of the other's move.
#[test]
fn turn_tie_has_no_winner_and_each_loses_the_others_base() {
    let mut g = Build::new().pc("p1", nine("A")).npc(npc_all("B", en(6, 6, 6))).table();
    play_turn(&mut g, "A", "B", ["0", "0"], ["▨☲", "▨☲"]);
    let r = IronTriangle::view(g.state(), Viewer::Spectator).turn_result.unwrap();
    assert_eq!((r.winner, r.why.clone()), (None, Why::Tie));
    assert_eq!(r.losses.iter().map(|l| l.loss.total()).collect::<Vec<_>>(), [4, 4]);
    assert!(r.headline.contains("a tie"), "{}", r.headline);
}

/// §5.7: "When every character of one side is out, the other side wins": each viewer reads
/// it in its own words, with the summary (turns, losses, marks, deaths).
#[test]
fn conflict_winner_is_the_side_with_someone_still_in_in_each_viewers_words() {
    let mut g =
        Build::new().pc("p1", nine("A")).npc(with_current(npc_all("Kuro", en(5, 5, 5)), en(0, 2, 1))).table();
    assert_eq!(IronTriangle::view(g.state(), Viewer::Spectator).who_won, None, "not before the end");
    play_turn(&mut g, "A", "Kuro", ["0", "0"], ["▨☷", "○☷"]);
    assert!(g.is_over());
    let of = |v: Viewer| IronTriangle::view(g.state(), v).who_won.expect("over");
    let player = of(Viewer::Seat(seat(&g, "p1")));
    assert_eq!(player.headline, "You won: the players win.");
    assert_eq!(player.you_won, Some(true));
    let gm = of(Viewer::Seat(seat(&g, GM_SEAT)));
    assert_eq!(gm.headline, "You lost: the players win.");
    let spectator = of(Viewer::Spectator);
    assert_eq!(spectator.headline, "The conflict ends: the players win.");
    assert_eq!(spectator.winner, Some(iron_triangle::PLAYERS));
    assert_eq!(spectator.turns, 1);
    assert_eq!(spectator.summary[0], "1 turn.");
    let kuro = spectator.fighters.iter().find(|f| f.name == "Kuro").unwrap();
    assert_eq!(kuro.lost, 15, "all of its 15");
    assert_eq!(kuro.marks.len(), 2, "the two types that reached zero in it are marked (§5.3)");
    assert!(
        spectator.summary.iter().any(|l| l.starts_with("Kuro lost 15 energy and went out; marked at zero")),
        "{:?}",
        spectator.summary
    );
    assert!(spectator.summary.contains(&"Nobody died.".to_owned()));
}

/// §5.7: "If the last characters of both sides go out in the same turn, the GM's side wins";
/// the GM's side is named by its characters.
#[test]
fn conflict_both_out_in_the_same_turn_the_gms_side_wins_named_by_its_characters() {
    let mut g = Build::new()
        .pc("p1", with_current(nine("A"), en(1, 1, 1)))
        .npc(with_current(npc_all("Kuro", en(5, 5, 5)), en(0, 2, 1)))
        .table();
    play_turn(&mut g, "A", "Kuro", ["0", "0"], ["◆☲", "◆☲"]);
    let w = IronTriangle::view(g.state(), Viewer::Seat(seat(&g, "p1"))).who_won.unwrap();
    assert_eq!(w.headline, "You lost: Kuro's side wins.");
    assert_eq!(w.you_won, Some(false));
}

/// §5.7 Decision: a tied minor conflict the GM records as a draw has no winner.
#[test]
fn conflict_minor_draw_recorded_by_the_gm_has_no_winner() {
    let mut g = Build::new().minor().pc("p1", pc("A", en(3, 3, 4))).npc(npc_all("B", en(10, 10, 10))).table();
    play_full(&mut g, "A", "B", ["0", "0"], ["◆☲", "◆☲"]);
    let gm = seat(&g, GM_SEAT);
    ok!(g, gm, Command::RecordOutcome { verdict: Verdict::Draw });
    let w = IronTriangle::view(g.state(), Viewer::Seat(seat(&g, "p1"))).who_won.unwrap();
    assert_eq!((w.winner, w.you_won), (None, None));
    assert!(w.headline.contains("draw"), "{}", w.headline);
}
