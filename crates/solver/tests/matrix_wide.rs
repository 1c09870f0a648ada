//! Matrix games whose payoffs span wide ranges (issue 13): the check is relative to the payoff
//! range, and the value agrees with a second method, a linear program solved by good_lp's
//! microlp backend.

use good_lp::{Expression, Solution, SolverModel, constraint, variable, variables};
use proptest::prelude::*;
use solver::matrix::{MatrixGame, TOLERANCE, exploitability};

/// The least and greatest payoff.
fn bounds(payoffs: &[f64]) -> (f64, f64) {
    payoffs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &p| (lo.min(p), hi.max(p)))
}

/// A bracket around the game's value from a second method: the textbook linear programs of
/// both players (`max v` subject to `Σᵢ xᵢ aᵢⱼ ≥ v` for every column, `x` a distribution;
/// and the column player's mirror image), solved by microlp on the payoffs mapped affinely
/// onto [0, 1]. What each program's strategy guarantees is then computed from the payoffs
/// themselves, so the bracket holds whatever microlp's own tolerances: the row strategy's
/// guarantee is at most the value, the column strategy's at least. `None` when microlp gives
/// up (it reports some degenerate programs as singular).
fn lp_bracket(g: &MatrixGame) -> Option<(f64, f64)> {
    let (lo, hi) = bounds(&g.payoffs);
    let range = hi - lo;
    if range == 0.0 {
        return Some((lo, lo));
    }
    let a = |i: usize, j: usize| (g.payoff(i, j) - lo) / range;
    // The row player's program; the column player's is the same on the negated transpose.
    let program = |n: usize, m: usize, entry: &dyn Fn(usize, usize) -> f64| -> Option<Vec<f64>> {
        let mut vars = variables!();
        let x: Vec<_> = (0..n).map(|_| vars.add(variable().min(0.0).max(1.0))).collect();
        let v = vars.add(variable().min(-1.0).max(1.0));
        let mut model = vars.maximise(v).using(good_lp::microlp);
        for j in 0..m {
            let column: Expression = (0..n).map(|i| entry(i, j) * x[i]).sum();
            model = model.with(constraint!(column >= v));
        }
        let total: Expression = x.iter().copied().sum();
        model = model.with(constraint!(total == 1.0));
        let solution = model.solve().ok()?;
        let mut p: Vec<f64> = x.iter().map(|&xi| solution.value(xi).max(0.0)).collect();
        let sum: f64 = p.iter().sum();
        p.iter_mut().for_each(|q| *q /= sum);
        Some(p)
    };
    let x = program(g.rows, g.cols, &|i, j| a(i, j))?;
    let y = program(g.cols, g.rows, &|j, i| -a(i, j))?;
    let row_guarantee =
        (0..g.cols).map(|j| (0..g.rows).map(|i| a(i, j) * x[i]).sum::<f64>()).fold(f64::INFINITY, f64::min);
    let col_guarantee = (0..g.rows)
        .map(|i| (0..g.cols).map(|j| a(i, j) * y[j]).sum::<f64>())
        .fold(f64::NEG_INFINITY, f64::max);
    Some((lo + range * row_guarantee, lo + range * col_guarantee))
}

/// A game of up to 9×9 whose payoffs are spread evenly over ±10^e for an `e` of up to 12,
/// some of them moved by an offset of up to 10^e as well (so not centred on zero).
fn wide_game() -> impl Strategy<Value = MatrixGame> {
    (1usize..10, 1usize..10, 0i32..=12, -1.0f64..1.0).prop_flat_map(|(rows, cols, e, offset)| {
        let size = 10f64.powi(e);
        proptest::collection::vec(-1.0f64..1.0, rows * cols).prop_map(move |m| {
            let p = m.iter().map(|x| (x + offset) * size).collect();
            MatrixGame::new(rows, cols, p).expect("finite payoffs")
        })
    })
}

/// Found by the audit: an 8×8 game with payoffs up to ±1e6 failed the absolute check
/// ("the solution's exploitability 1.4e-9 exceeds the tolerance 1e-9").
#[test]
fn a_game_with_payoffs_of_a_million_solves() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for _ in 0..200 {
        let payoffs: Vec<f64> = (0..64).map(|_| next() * 1e6).collect();
        let g = MatrixGame::new(8, 8, payoffs).unwrap();
        let eq = g.solve().unwrap_or_else(|e| panic!("{e}: {:?}", g.payoffs));
        let (lo, hi) = bounds(&g.payoffs);
        assert!(eq.exploitability(&g) <= TOLERANCE * (hi - lo), "{eq:?}");
    }
}

/// Payoffs far from zero but close together: the check is relative to the range, not to the
/// payoffs' size, so the games still solve to the range's precision.
#[test]
fn a_game_far_from_zero_solves_to_the_precision_of_its_range() {
    let g = MatrixGame::new(2, 2, vec![1e12 + 1.0, 1e12, 1e12, 1e12 + 1.0]).unwrap();
    let eq = g.solve().unwrap();
    assert!((eq.value - (1e12 + 0.5)).abs() <= 1e-9, "{}", eq.value);
    assert!(eq.exploitability(&g) <= TOLERANCE, "{eq:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Every game with payoffs up to 1e12 in magnitude solves, with exploitability at most
    /// 1e-9 × the payoff range, and its value lies in the bracket of the linear programs.
    #[test]
    fn wide_games_solve_and_agree_with_a_linear_program(g in wide_game()) {
        let eq = g.solve().map_err(|e| TestCaseError::fail(format!("{e}: {:?}", g.payoffs)))?;
        let (lo, hi) = bounds(&g.payoffs);
        let range = hi - lo;
        let e = exploitability(g.rows, g.cols, &g.payoffs, &eq.row, &eq.col);
        prop_assert!(e <= TOLERANCE * range, "exploitability {e:e} over a range of {range:e}");
        prop_assert!(eq.value >= lo && eq.value <= hi, "{} outside [{lo}, {hi}]", eq.value);
        // The second method: the value lies between what the linear programs' strategies
        // guarantee (up to the check's tolerance), and they come close to it.
        if let Some((floor, ceiling)) = lp_bracket(&g) {
            let slack = TOLERANCE * range;
            prop_assert!(floor <= eq.value + slack, "LP row strategy guarantees {floor}, above the value {}", eq.value);
            prop_assert!(eq.value <= ceiling + slack, "LP column strategy concedes {ceiling}, below the value {}", eq.value);
            prop_assert!(ceiling - floor <= 1e-3 * range.max(f64::MIN_POSITIVE), "LP bracket [{floor}, {ceiling}] too wide");
        }
    }
}
