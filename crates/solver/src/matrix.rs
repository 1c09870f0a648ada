//! Exact equilibria of two-player zero-sum matrix games, by linear programming.
//!
//! The row player maximises, the column player minimises the payoff. [`Solver`] maps the
//! payoffs onto [1, 2] (positive) and runs a dense tableau simplex on
//! `max Σw  subject to  A·w ≤ 1, w ≥ 0`: at the optimum `w / Σw` is the column player's
//! strategy and the slack columns' reduced costs give the row player's. A pure saddle point,
//! common in the games the conflict solver meets, is found first without any pivoting. Every
//! result is checked: both strategies are probability vectors and their exploitability (what
//! the best replies to both strategies gain over each other) must not exceed [`TOLERANCE`]
//! times the payoff range (the greatest payoff minus the least; issue 13: an absolute
//! tolerance failed games with payoffs of a million), NaN failing; the value returned is the
//! midpoint of the two best replies, so it is what the checked strategies guarantee
//! (`1 / Σw` shifted back loses digits they keep).
//!
//! The simplex and the check work on the payoffs mapped affinely onto [0, 1]: an equilibrium
//! does not change under such a map, and the game's value maps with it. So a game solves to
//! the same relative precision whatever its payoffs' size or distance from zero (payoffs up
//! to 1e12 are tested against a second method, a linear program by good_lp). The simplex
//! first counts numbers below 1e-12 as zero; if that result fails the check, it runs again
//! with 1e-15, for games whose structure lies far below their range.
//!
//! A hand-written dense simplex is used rather than an LP crate: on 3×3 to 13×13 games it
//! needs no model building, no allocation per solve (the [`Solver`] keeps its buffers) and
//! solves a 13×13 game in a few microseconds (see `docs/solver.md`).

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The largest exploitability a solution may have to pass the check, as a fraction of the
/// game's payoff range (greatest payoff minus least): a game with payoffs from −1 to 1 must be
/// solved to within 2e-9.
pub const TOLERANCE: f64 = 1e-9;

/// Pivoting stops being "largest coefficient first" and turns to Bland's rule (which cannot
/// cycle) after this many pivots per row and column.
const DANTZIG_PIVOTS_PER_DIM: usize = 4;

/// Numbers below these are treated as zero in pivoting: first the coarser, which suits the
/// common games; if its result fails the check, the simplex is run again with the finer. On
/// the payoffs mapped onto [0, 1], a game whose structure lies a millionth of its range deep
/// (payoffs of −8e9 and −869 beside 0) has improving columns with reduced costs and pivots
/// near 1e-14: stopping at 1e-12 left an exploitability of 1e-7 of the range (issue 13).
const EPS: [f64; 2] = [1e-12, 1e-15];

/// Why a matrix game could not be solved.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum MatrixError {
    /// A player has no strategy.
    #[error("a matrix game needs at least one row and one column (got {rows}×{cols})")]
    Empty {
        /// Rows given.
        rows: usize,
        /// Columns given.
        cols: usize,
    },
    /// The payoff list does not have rows × cols entries, or the rows differ in length.
    #[error("a {rows}×{cols} game needs {} payoffs, got {got}", rows * cols)]
    Shape {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
        /// Payoffs given.
        got: usize,
    },
    /// A payoff is NaN or infinite.
    #[error("payoff at row {row}, column {col} is not a finite number")]
    NotFinite {
        /// Its row.
        row: usize,
        /// Its column.
        col: usize,
    },
    /// The simplex did not finish (numerical trouble).
    #[error("the simplex did not converge on a {rows}×{cols} game")]
    NoConvergence {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
    },
    /// The result failed its check.
    #[error(
        "the solution's exploitability {exploitability:e} exceeds the tolerance {tolerance:e} ({TOLERANCE:e} × the payoff range)"
    )]
    Inexact {
        /// What the best replies gain.
        exploitability: f64,
        /// The largest exploitability allowed: [`TOLERANCE`] × the payoff range.
        tolerance: f64,
    },
}

/// A zero-sum game given by its payoffs to the row player, row by row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatrixGame {
    /// Number of row strategies.
    pub rows: usize,
    /// Number of column strategies.
    pub cols: usize,
    /// `rows × cols` payoffs to the row player, row-major.
    pub payoffs: Vec<f64>,
}

impl MatrixGame {
    /// A game from row-major payoffs; checks the shape and that every payoff is finite.
    pub fn new(rows: usize, cols: usize, payoffs: Vec<f64>) -> Result<MatrixGame, MatrixError> {
        check_input(rows, cols, &payoffs)?;
        Ok(MatrixGame { rows, cols, payoffs })
    }

    /// A game from its rows, which must all have the same length.
    pub fn from_rows(rows: &[Vec<f64>]) -> Result<MatrixGame, MatrixError> {
        let cols = rows.first().map_or(0, Vec::len);
        if let Some(bad) = rows.iter().find(|r| r.len() != cols) {
            return Err(MatrixError::Shape { rows: rows.len(), cols, got: bad.len() * rows.len() });
        }
        MatrixGame::new(rows.len(), cols, rows.concat())
    }

    /// The payoff to the row player when row `i` meets column `j`.
    pub fn payoff(&self, i: usize, j: usize) -> f64 {
        self.payoffs[i * self.cols + j]
    }

    /// Solves the game and checks the result.
    pub fn solve(&self) -> Result<Equilibrium, MatrixError> {
        let mut solver = Solver::new();
        let value = solver.solve(self.rows, self.cols, &self.payoffs)?;
        Ok(Equilibrium { value, row: solver.row.clone(), col: solver.col.clone() })
    }
}

/// An equilibrium of a matrix game: optimal mixed strategies of both players and the value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Equilibrium {
    /// The value of the game to the row player.
    pub value: f64,
    /// The row player's optimal mixed strategy (probabilities summing to 1).
    pub row: Vec<f64>,
    /// The column player's optimal mixed strategy.
    pub col: Vec<f64>,
}

impl Equilibrium {
    /// The exploitability of these strategies in `game`: the best row reply to `col` minus
    /// the best column reply to `row`. Zero at an exact equilibrium.
    pub fn exploitability(&self, game: &MatrixGame) -> f64 {
        exploitability(game.rows, game.cols, &game.payoffs, &self.row, &self.col)
    }
}

fn check_input(rows: usize, cols: usize, payoffs: &[f64]) -> Result<(), MatrixError> {
    if rows == 0 || cols == 0 {
        return Err(MatrixError::Empty { rows, cols });
    }
    if payoffs.len() != rows * cols {
        return Err(MatrixError::Shape { rows, cols, got: payoffs.len() });
    }
    if let Some(k) = payoffs.iter().position(|p| !p.is_finite()) {
        return Err(MatrixError::NotFinite { row: k / cols, col: k % cols });
    }
    Ok(())
}

/// The best row reply to `col` minus the best column reply to `row` (both ≥ the value at
/// an equilibrium, so the difference is never negative up to rounding). Infinite when the
/// payoffs are not `rows × cols` or a strategy has the wrong length: such strategies exploit
/// nothing and pass no check.
///
/// It is computed on the payoffs less the least of them (which changes nothing for
/// probability vectors), so payoffs far from zero keep the digits of their differences.
pub fn exploitability(rows: usize, cols: usize, payoffs: &[f64], row: &[f64], col: &[f64]) -> f64 {
    if payoffs.len() != rows.saturating_mul(cols) || row.len() != rows || col.len() != cols {
        return f64::INFINITY;
    }
    let scale = Scale::of(payoffs);
    let (best_row, best_col) = best_replies(rows, cols, payoffs, row, col, |p| scale.unit(p));
    let gap = best_row - best_col;
    // An exact equilibrium exploits nothing, even when the range overflows (0 × ∞ is NaN).
    if gap == 0.0 { 0.0 } else { gap * scale.range() }
}

/// The affine map of a game's payoffs onto [0, 1]: `(p − least) / range`. With payoffs so large
/// that their range overflows, both are halved first, so the map stays finite.
#[derive(Debug, Clone, Copy)]
struct Scale {
    /// The factor applied before subtracting: 1, or ½ when the range would overflow.
    half: f64,
    /// The least payoff, times `half`.
    least: f64,
    /// The payoff range, times `half` (1 when all payoffs are equal).
    span: f64,
}

impl Scale {
    fn of(payoffs: &[f64]) -> Scale {
        let (lo, hi) =
            payoffs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        let half = if (hi - lo).is_finite() { 1.0 } else { 0.5 };
        let span = hi * half - lo * half;
        Scale { half, least: lo * half, span: if span > 0.0 { span } else { 1.0 } }
    }

    /// A payoff mapped onto [0, 1].
    #[inline]
    fn unit(self, p: f64) -> f64 {
        (p * self.half - self.least) / self.span
    }

    /// A value on [0, 1] mapped back to payoffs.
    fn payoff(self, u: f64) -> f64 {
        (self.least + u * self.span) / self.half
    }

    /// The payoff range (infinite if it overflows).
    fn range(self) -> f64 {
        self.span / self.half
    }
}

/// The best row reply's payoff against `col` and the best column reply's against `row`, with
/// each payoff seen through `map`. A NaN payoff of any reply makes the result NaN (so no
/// check can pass on it).
fn best_replies(
    rows: usize,
    cols: usize,
    payoffs: &[f64],
    row: &[f64],
    col: &[f64],
    map: impl Fn(f64) -> f64,
) -> (f64, f64) {
    let nan_max = |a: f64, b: f64| if a.is_nan() || b.is_nan() { f64::NAN } else { a.max(b) };
    let nan_min = |a: f64, b: f64| if a.is_nan() || b.is_nan() { f64::NAN } else { a.min(b) };
    let best_row = (0..rows)
        .map(|i| (0..cols).map(|j| map(payoffs[i * cols + j]) * col[j]).sum::<f64>())
        .fold(f64::NEG_INFINITY, nan_max);
    let best_col = (0..cols)
        .map(|j| (0..rows).map(|i| map(payoffs[i * cols + j]) * row[i]).sum::<f64>())
        .fold(f64::INFINITY, nan_min);
    (best_row, best_col)
}

/// A reusable matrix-game solver: keeps its tableau and strategy buffers between solves, so
/// solving allocates nothing once the buffers have grown to the largest game seen.
#[derive(Debug, Clone, Default)]
pub struct Solver {
    tableau: Vec<f64>,
    basis: Vec<usize>,
    row: Vec<f64>,
    col: Vec<f64>,
}

impl Solver {
    /// A solver with empty buffers.
    pub fn new() -> Solver {
        Solver::default()
    }

    /// The row player's optimal strategy from the last successful [`Solver::solve`].
    pub fn row_strategy(&self) -> &[f64] {
        &self.row
    }

    /// The column player's optimal strategy from the last successful [`Solver::solve`].
    pub fn col_strategy(&self) -> &[f64] {
        &self.col
    }

    /// Solves the `rows × cols` game with row-major `payoffs` (to the row player) and
    /// returns its value; the strategies are then in [`Solver::row_strategy`] and
    /// [`Solver::col_strategy`]. The result is checked (exploitability ≤ [`TOLERANCE`] × the
    /// payoff range).
    pub fn solve(&mut self, rows: usize, cols: usize, payoffs: &[f64]) -> Result<f64, MatrixError> {
        check_input(rows, cols, payoffs)?;
        self.row.clear();
        self.row.resize(rows, 0.0);
        self.col.clear();
        self.col.resize(cols, 0.0);
        if let Some(value) = self.saddle_point(rows, cols, payoffs) {
            return Ok(value);
        }
        let scale = Scale::of(payoffs);
        let mut result = Err(MatrixError::NoConvergence { rows, cols });
        for eps in EPS {
            result = self.simplex(rows, cols, payoffs, scale, eps).and_then(|()| self.check(payoffs, scale));
            if result.is_ok() {
                break;
            }
        }
        result
    }

    /// Checks the strategies the simplex left and returns the value they guarantee.
    fn check(&self, payoffs: &[f64], scale: Scale) -> Result<f64, MatrixError> {
        let (rows, cols) = (self.row.len(), self.col.len());
        // normalise() leaves an all-zero strategy as it is: that is no mixed strategy.
        let mixed = |p: &[f64]| (p.iter().sum::<f64>() - 1.0).abs() <= TOLERANCE;
        if !mixed(&self.row) || !mixed(&self.col) {
            return Err(MatrixError::NoConvergence { rows, cols });
        }
        // The check covers what is returned: the value is taken from the strategies (the
        // simplex's `1/z − shift` can lose digits the strategies keep), lying between what
        // the row strategy guarantees and what the column strategy concedes; and a NaN
        // anywhere fails it (NaN compares false).
        // All on the payoffs mapped onto [0, 1], where the tolerance is TOLERANCE.
        let (best_row, best_col) = best_replies(rows, cols, payoffs, &self.row, &self.col, |p| scale.unit(p));
        let e = best_row - best_col;
        if e.is_nan() || e > TOLERANCE {
            let range = scale.range();
            return Err(MatrixError::Inexact { exploitability: e * range, tolerance: TOLERANCE * range });
        }
        Ok(scale.payoff(0.5 * (best_row + best_col)))
    }

    /// A pure saddle point: a cell that is the least of its row and the greatest of its
    /// column. Sets the strategies and returns the value when there is one.
    fn saddle_point(&mut self, rows: usize, cols: usize, payoffs: &[f64]) -> Option<f64> {
        let (mut maximin, mut best_row) = (f64::NEG_INFINITY, 0);
        for i in 0..rows {
            let m = payoffs[i * cols..(i + 1) * cols].iter().copied().fold(f64::INFINITY, f64::min);
            if m > maximin {
                (maximin, best_row) = (m, i);
            }
        }
        let (mut minimax, mut best_col) = (f64::INFINITY, 0);
        for j in 0..cols {
            let m = (0..rows).map(|i| payoffs[i * cols + j]).fold(f64::NEG_INFINITY, f64::max);
            if m < minimax {
                (minimax, best_col) = (m, j);
            }
        }
        (maximin == minimax).then(|| {
            self.row[best_row] = 1.0;
            self.col[best_col] = 1.0;
            maximin
        })
    }

    /// The simplex on `max Σw, A'·w ≤ 1, w ≥ 0` with `A'` the payoffs mapped onto [0, 1]
    /// plus 1 (so positive), on a condensed (Tucker) tableau: only the nonbasic columns are
    /// stored, each row and column labelled with its variable (`j < cols`: w_j; `cols + i`:
    /// the slack of row i). Numbers below `eps` count as zero. Leaves the strategies in
    /// `row` and `col`.
    fn simplex(
        &mut self,
        rows: usize,
        cols: usize,
        payoffs: &[f64],
        scale: Scale,
        eps: f64,
    ) -> Result<(), MatrixError> {
        let shift = 1.0;
        self.row.fill(0.0);
        self.col.fill(0.0);
        let width = cols + 1;
        let rhs = cols;
        let obj = rows * width;
        let t = &mut self.tableau;
        t.clear();
        t.resize((rows + 1) * width, 0.0);
        for i in 0..rows {
            for j in 0..cols {
                t[i * width + j] = scale.unit(payoffs[i * cols + j]) + shift;
            }
            t[i * width + rhs] = 1.0;
        }
        for j in 0..cols {
            t[obj + j] = -1.0;
        }
        // basis[i]: the variable of row i; the column labels follow it.
        self.basis.clear();
        self.basis.extend(cols..cols + rows);
        self.basis.extend(0..cols);
        let (row_label, col_label) = self.basis.split_at_mut(rows);

        let dantzig_limit = DANTZIG_PIVOTS_PER_DIM * (rows + cols);
        let limit = 50 * (rows + cols) + 100;
        let mut pivots = 0;
        loop {
            // Entering column: most negative reduced cost, or (Bland) the smallest label.
            let bland = pivots >= dantzig_limit;
            let mut enter: Option<usize> = None;
            let mut best = -eps;
            for j in 0..cols {
                let c = t[obj + j];
                if c < -eps {
                    let take = match enter {
                        None => true,
                        Some(e) if bland => col_label[j] < col_label[e],
                        Some(_) => c < best,
                    };
                    if take {
                        enter = Some(j);
                        best = c;
                    }
                }
            }
            let Some(q) = enter else { break };
            // Leaving row: the minimum ratio; ties to the smallest label (Bland).
            let mut leave: Option<usize> = None;
            let mut ratio = f64::INFINITY;
            for i in 0..rows {
                let a = t[i * width + q];
                if a > eps {
                    let r = t[i * width + rhs] / a;
                    let better = match leave {
                        None => true,
                        Some(l) => r < ratio - eps || (r <= ratio + eps && row_label[i] < row_label[l]),
                    };
                    if better {
                        leave = Some(i);
                        ratio = r;
                    }
                }
            }
            // A positive matrix keeps the problem bounded: every column has a positive entry.
            let Some(p) = leave else { return Err(MatrixError::NoConvergence { rows, cols }) };
            tucker_pivot(t, width, rows + 1, p, q);
            std::mem::swap(&mut row_label[p], &mut col_label[q]);
            pivots += 1;
            if pivots > limit {
                return Err(MatrixError::NoConvergence { rows, cols });
            }
        }
        let z = t[obj + rhs];
        if z <= eps {
            return Err(MatrixError::NoConvergence { rows, cols });
        }
        for (i, &v) in row_label.iter().enumerate() {
            if v < cols {
                self.col[v] = t[i * width + rhs] / z;
            }
        }
        for (j, &v) in col_label.iter().enumerate() {
            if v >= cols {
                self.row[v - cols] = t[obj + j].max(0.0) / z;
            }
        }
        normalise(&mut self.row);
        normalise(&mut self.col);
        Ok(())
    }
}

/// A pivot of the condensed tableau on (`p`, `q`): the row and column swap their variables.
fn tucker_pivot(t: &mut [f64], width: usize, height: usize, p: usize, q: usize) {
    let inv = 1.0 / t[p * width + q];
    let (before, rest) = t.split_at_mut(p * width);
    let (prow, after) = rest.split_at_mut(width);
    for x in prow.iter_mut() {
        *x *= inv;
    }
    prow[q] = inv;
    let eliminate = |r: &mut [f64]| {
        let f = r[q];
        if f != 0.0 {
            for (x, y) in r.iter_mut().zip(prow.iter()) {
                *x -= f * y;
            }
            r[q] = -f * inv;
        }
    };
    before.chunks_exact_mut(width).for_each(eliminate);
    after.chunks_exact_mut(width).take(height - p - 1).for_each(eliminate);
}

/// Clears rounding noise: negatives to zero, then rescales to sum 1.
fn normalise(p: &mut [f64]) {
    let mut sum = 0.0;
    for x in p.iter_mut() {
        if *x < 0.0 {
            *x = 0.0;
        }
        sum += *x;
    }
    if sum > 0.0 {
        p.iter_mut().for_each(|x| *x /= sum);
    }
}
