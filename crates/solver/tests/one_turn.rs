//! One turn as a two-stage game (issue 7, parts 2 and 7).

use iron_triangle::{Energy, Move, MoveSet, Stance};
use solver::duel::{Chains, Duel, DuelSolution, Position, Sheet, Space};
use solver::matrix::{TOLERANCE, exploitability};
use solver::one_turn::{TurnSide, move_stage, move_worths, solve_turn, stance_worths};

fn starting() -> MoveSet {
    Move::STARTING.into_iter().collect()
}

fn all() -> MoveSet {
    Move::ALL.into_iter().collect()
}

/// The neutral turn (equal energy, no chains) is fair: value 0, and each side's optimal
/// stance mix is optimal for the other too (the game is symmetric).
#[test]
fn the_neutral_turn_has_value_zero_and_is_symmetric() {
    for (energy, moves) in [(Energy::new(3, 3, 4), starting()), (Energy::new(2, 2, 2), all())] {
        let side = TurnSide::plain(energy, moves);
        let t = solve_turn(&[side, side]).unwrap();
        assert!(t.equilibrium.value.abs() < 1e-9, "{}", t.equilibrium.value);
        let g = &t.game;
        let row = &t.equilibrium.row;
        assert!(exploitability(g.rows, g.cols, &g.payoffs, row, row) <= TOLERANCE);
        // Antisymmetric payoffs: the stance stage is minus its transpose.
        for i in 0..g.rows {
            for j in 0..g.cols {
                assert!((g.payoff(i, j) + g.payoff(j, i)).abs() < 1e-9);
            }
        }
    }
}

/// The author's measure on the 9×9 game of the three-element moves without stances: fair,
/// and the move stage with all thirteen moves too.
#[test]
fn neutral_move_stages_are_fair() {
    let nine: MoveSet = Move::ALL.into_iter().filter(|m| m.element().is_basic()).collect();
    for moves in [nine, all()] {
        let side = TurnSide::plain(Energy::new(4, 3, 3), moves);
        let s = move_stage(&[side, side], [Stance::NONE; 2]).unwrap();
        assert_eq!(s.game.rows, moves.len());
        assert!(s.equilibrium.value.abs() < 1e-9);
        let worths = move_worths(&s);
        // Every move played with positive weight earns the value against the optimal mix.
        for w in worths.iter().filter(|w| w.weight > 1e-9) {
            assert!((w.value - s.equilibrium.value).abs() < 1e-9, "{w:?}");
        }
    }
}

/// A stance only adds to what the move stage is worth when it counts: committing more
/// energy to a type is a bet, and the stance stage prices each bet.
#[test]
fn stance_worths_cover_every_stance() {
    let side = TurnSide::plain(Energy::new(3, 3, 4), starting());
    let t = solve_turn(&[side, side]).unwrap();
    let w = stance_worths(&t);
    assert_eq!(w.len(), 1 + 3 + 3 + 4);
    // No stance does better than the value against the optimal mix (optimality of B's mix).
    assert!(w.iter().all(|(_, v)| *v <= t.equilibrium.value + 1e-9));
}

/// With the win-probability payoff, the turn's value is the solved position's value.
#[test]
fn the_win_probability_turn_is_worth_the_positions_value() {
    let (a, b) = (Energy::new(1, 2, 1), Energy::new(2, 1, 1));
    let duel = Duel::new(Sheet::starting("A", a), Sheet::starting("B", b)).unwrap();
    let sol = DuelSolution::solve(duel, [Space::boxed(a), Space::boxed(b)]).unwrap();
    let p = Position { energy: [a, b], chains: Chains::default() };
    let t = sol.turn(&p).unwrap().unwrap();
    assert!((t.equilibrium.value - sol.value([a, b]).unwrap()).abs() < 1e-12);
    let stage = sol.move_stage_at(&p, [Stance::NONE; 2]).unwrap().unwrap();
    assert!(!stage.end_combo);
    assert_eq!(stage.stage.moves[0].len(), 3);
}

/// A combo's holder whose every move is face up in its chain must end the chain to play
/// (§5.5, §5.2 step 3): the solved move stage says so.
#[test]
fn a_holder_without_moves_ends_its_combo() {
    use iron_triangle::chain::DisadvantageChain;
    use solver::duel::combo_of;
    let (a, b) = (Energy::new(1, 1, 1), Energy::new(1, 1, 1));
    let chains = Chains {
        disadvantage: [DisadvantageChain::default(), DisadvantageChain::from_cards(vec![Move::STARTING[0]])],
        combo: Some(combo_of(0, &Move::STARTING)),
    };
    let duel =
        Duel::from_chains(Sheet::starting("A", a), Sheet::starting("B", b), chains.clone(), 100).unwrap();
    let sol = DuelSolution::solve(duel, [Space::boxed(a), Space::boxed(b)]).unwrap();
    let p = Position { energy: [a, b], chains };
    let stage = sol.move_stage_at(&p, [Stance::NONE; 2]).unwrap().unwrap();
    assert!(stage.end_combo);
    assert_eq!(stage.stage.moves[0].len(), 3);
    let v = sol.position_value(&p).unwrap();
    assert!(v > 0.0, "ending the chain keeps A in the fight: {v}");
}
