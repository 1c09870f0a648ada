//! Known matrix games and properties of the matrix-game solver (issue 7, parts 1 and 7).

use proptest::prelude::*;
use solver::matrix::{MatrixError, MatrixGame, Solver, TOLERANCE};

fn game(rows: &[&[f64]]) -> MatrixGame {
    MatrixGame::from_rows(&rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>()).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12
}

#[test]
fn rock_paper_scissors_is_uniform_with_value_zero() {
    let g = game(&[&[0.0, -1.0, 1.0], &[1.0, 0.0, -1.0], &[-1.0, 1.0, 0.0]]);
    let eq = g.solve().unwrap();
    assert!(close(eq.value, 0.0), "{}", eq.value);
    for p in eq.row.iter().chain(&eq.col) {
        assert!(close(*p, 1.0 / 3.0), "{eq:?}");
    }
    assert!(eq.exploitability(&g) <= TOLERANCE);
}

#[test]
fn matching_pennies_is_half_and_half() {
    let g = game(&[&[1.0, -1.0], &[-1.0, 1.0]]);
    let eq = g.solve().unwrap();
    assert!(close(eq.value, 0.0));
    assert!(eq.row.iter().chain(&eq.col).all(|p| close(*p, 0.5)), "{eq:?}");
}

#[test]
fn an_unbalanced_game_has_the_textbook_mixture() {
    // Row: [3, -1; -2, 1]: p·3 − 2(1−p) = −p + (1−p) ⇒ p = 3/7, value 1/7.
    let g = game(&[&[3.0, -1.0], &[-2.0, 1.0]]);
    let eq = g.solve().unwrap();
    assert!(close(eq.value, 1.0 / 7.0), "{}", eq.value);
    assert!(close(eq.row[0], 3.0 / 7.0) && close(eq.col[0], 2.0 / 7.0), "{eq:?}");
}

#[test]
fn a_pure_saddle_point_is_found() {
    // Row 1 column 0 (value 4) is the least of its row and the greatest of its column.
    let g = game(&[&[1.0, 5.0, 0.0], &[4.0, 6.0, 8.0], &[3.0, 2.0, 9.0]]);
    let eq = g.solve().unwrap();
    assert_eq!(eq.value, 4.0);
    assert_eq!(eq.row, vec![0.0, 1.0, 0.0]);
    assert_eq!(eq.col, vec![1.0, 0.0, 0.0]);
}

#[test]
fn rectangular_games_solve() {
    // 2×4: the row player plays the first row with 5/9, where columns 1 and 3 meet at 1/3.
    let g = game(&[&[2.0, -1.0, 0.5, 3.0], &[-1.0, 2.0, 0.5, -3.0]]);
    let eq = g.solve().unwrap();
    assert!(eq.exploitability(&g) <= TOLERANCE, "{eq:?}");
    assert!(close(eq.value, 1.0 / 3.0), "{}", eq.value);
    assert!(close(eq.row[0], 5.0 / 9.0), "{eq:?}");
}

#[test]
fn bad_games_are_refused_with_a_reason() {
    assert!(matches!(MatrixGame::new(0, 2, vec![]), Err(MatrixError::Empty { .. })));
    assert!(matches!(MatrixGame::new(2, 2, vec![1.0; 3]), Err(MatrixError::Shape { got: 3, .. })));
    let e = MatrixGame::new(1, 2, vec![1.0, f64::NAN]).unwrap_err();
    assert_eq!(e, MatrixError::NotFinite { row: 0, col: 1 });
    assert!(e.to_string().contains("row 0, column 1"));
    assert!(MatrixGame::from_rows(&[vec![1.0], vec![1.0, 2.0]]).is_err());
}

proptest! {
    /// Any game: the strategies are distributions, the check passes, and the value lies
    /// between the pure maximin and minimax.
    #[test]
    fn random_games_solve_exactly(rows in 1usize..14, cols in 1usize..14, seed in proptest::collection::vec(-50i32..50, 169)) {
        let payoffs: Vec<f64> = (0..rows * cols).map(|k| f64::from(seed[k]) / 7.0).collect();
        let g = MatrixGame::new(rows, cols, payoffs).unwrap();
        let eq = g.solve().unwrap();
        prop_assert!(eq.exploitability(&g) <= TOLERANCE);
        prop_assert!((eq.row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        prop_assert!((eq.col.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        prop_assert!(eq.row.iter().chain(&eq.col).all(|p| *p >= 0.0));
        let maximin = (0..rows).map(|i| (0..cols).map(|j| g.payoff(i, j)).fold(f64::INFINITY, f64::min)).fold(f64::NEG_INFINITY, f64::max);
        let minimax = (0..cols).map(|j| (0..rows).map(|i| g.payoff(i, j)).fold(f64::NEG_INFINITY, f64::max)).fold(f64::INFINITY, f64::min);
        prop_assert!(eq.value >= maximin - 1e-9 && eq.value <= minimax + 1e-9);
    }

    /// The value of the transposed, negated game is the negated value (the players swap).
    #[test]
    fn swapping_the_players_negates_the_value(rows in 1usize..8, cols in 1usize..8, seed in proptest::collection::vec(-20i32..20, 64)) {
        let payoffs: Vec<f64> = (0..rows * cols).map(|k| f64::from(seed[k])).collect();
        let mut swapped = vec![0.0; rows * cols];
        for i in 0..rows { for j in 0..cols { swapped[j * rows + i] = -payoffs[i * cols + j]; } }
        let mut s = Solver::new();
        let v = s.solve(rows, cols, &payoffs).unwrap();
        let w = s.solve(cols, rows, &swapped).unwrap();
        prop_assert!((v + w).abs() < 1e-9, "{} {}", v, w);
    }
}

/// Whatever `solve` returns as `Ok` must pass the check the docs promise: a finite value,
/// probability vectors, and exploitability within the tolerance times the payoff range.
fn checked_or_refused(g: &MatrixGame) {
    match g.solve() {
        Ok(eq) => {
            assert!(eq.value.is_finite(), "a non-finite value passed the check: {eq:?}");
            for p in [&eq.row, &eq.col] {
                assert!(p.iter().all(|x| x.is_finite() && *x >= 0.0), "{eq:?}");
                assert!((p.iter().sum::<f64>() - 1.0).abs() <= 1e-9, "not a mixed strategy: {eq:?}");
            }
            let (lo, hi) = g.payoffs.iter().fold((f64::MAX, f64::MIN), |(l, h), &p| (l.min(p), h.max(p)));
            // The range may overflow to infinity (then any finite exploitability passes).
            assert!(eq.exploitability(g) <= TOLERANCE * (hi - lo), "{eq:?}");
        }
        Err(e) => {
            assert!(matches!(e, MatrixError::NoConvergence { .. } | MatrixError::Inexact { .. }), "{e}")
        }
    }
}

#[test]
fn the_value_returned_is_the_value_the_strategies_guarantee() {
    // Found by a random search: the simplex's `1/z − shift` lost precision (6e-6 here) while
    // the strategies were exact, and the check looked at the strategies only.
    let cases: [(usize, usize, Vec<f64>); 3] = [
        (
            2,
            3,
            vec![
                -96999999999.99997,
                3.0999999999999923e77,
                5.830000000000001e132,
                18.399999999999995,
                -978000000.0,
                -6850000.000000001,
            ],
        ),
        (
            3,
            4,
            vec![
                207999999.99999997,
                -693000000.0000001,
                59.80000000000001,
                3890.0,
                -198999.99999999994,
                -7140000.0,
                62400000.00000001,
                0.607,
                5049999.999999999,
                1.0499999999999998,
                -23.599999999999998,
                28800000.000000004,
            ],
        ),
        (
            4,
            5,
            vec![
                -7.7700000000000005,
                334.99999999999994,
                0.30200000000000005,
                -9399.999999999996,
                -4.82,
                88.00000000000009,
                -718.0,
                0.5820000000000001,
                999000.0000000001,
                -736.0,
                -101999.99999999999,
                7330.000000000001,
                -0.02300000000000002,
                -8240000.000000001,
                -77.0,
                0.07600000000000007,
                -94100.0,
                0.5600000000000005,
                -89.1,
                280.99999999999994,
            ],
        ),
    ];
    for (r, c, p) in cases {
        let g = MatrixGame::new(r, c, p.clone()).unwrap();
        let Ok(eq) = g.solve() else { continue };
        let best_row =
            (0..r).map(|i| (0..c).map(|j| p[i * c + j] * eq.col[j]).sum::<f64>()).fold(f64::MIN, f64::max);
        let best_col =
            (0..c).map(|j| (0..r).map(|i| p[i * c + j] * eq.row[i]).sum::<f64>()).fold(f64::MAX, f64::min);
        // Within the check's tolerance, which is relative to the payoff range (issue 13).
        let (lo, hi) = p.iter().fold((f64::MAX, f64::MIN), |(l, h), &x| (l.min(x), h.max(x)));
        let slack = TOLERANCE * (hi - lo);
        assert!(
            eq.value >= best_col - slack && eq.value <= best_row + slack,
            "value {} outside what the strategies guarantee [{best_col}, {best_row}]",
            eq.value
        );
        checked_or_refused(&g);
    }
}

#[test]
fn payoffs_too_large_for_the_simplex_are_refused_not_passed_as_nan() {
    // Finite payoffs whose shift overflows to infinity inside the tableau: the check must not
    // let NaN strategies or a NaN value through (NaN > TOLERANCE is false).
    checked_or_refused(&game(&[&[1e308, -1e308], &[-1e308, 1e308]]));
    checked_or_refused(&game(&[
        &[f64::MAX, 0.0, -f64::MAX],
        &[0.0, -f64::MAX, f64::MAX],
        &[-f64::MAX, f64::MAX, 0.0],
    ]));
}

#[test]
fn exploitability_of_strategies_of_the_wrong_length_is_infinite_not_a_panic() {
    let g = game(&[&[1.0, -1.0], &[-1.0, 1.0]]);
    let e = solver::matrix::exploitability(2, 2, &g.payoffs, &[1.0], &[0.5, 0.5]);
    assert_eq!(e, f64::INFINITY);
    assert_eq!(
        solver::matrix::exploitability(3, 2, &g.payoffs, &[0.5, 0.5, 0.0], &[0.5, 0.5]),
        f64::INFINITY
    );
    let eq = solver::matrix::Equilibrium { value: 0.0, row: vec![1.0, 0.0, 0.0], col: vec![0.5, 0.5] };
    assert_eq!(eq.exploitability(&g), f64::INFINITY);
}
