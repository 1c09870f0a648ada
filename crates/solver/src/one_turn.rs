//! One Iron Triangle turn solved as the game it is (issue 7, part 2).
//!
//! Stances are chosen secretly and revealed first, then moves (§5.2 steps 2–3). So the turn
//! is a two-stage game: the *move stage*, for each pair of revealed stances, is a matrix game
//! over the available moves; the *stance stage* is a matrix game whose every cell is the value
//! of the move stage under those stances. Its value is the turn's value.
//!
//! Payoffs ([`Payoff`]): the energy differential (what B loses minus what A loses this turn,
//! the measure the Iron Triangle author used), or A's probability of winning the whole
//! conflict after the turn (from a solved duel, [`crate::duel::DuelSolution::turn`]).

use iron_triangle::turn::{Contender, Play, TurnResult, resolve};
use iron_triangle::{Energy, Move, MoveSet, Stance};
use serde::Serialize;

use crate::duel::stances;
use crate::matrix::{Equilibrium, MatrixError, MatrixGame};

/// What a turn's outcome is worth to A.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Payoff {
    /// Energy B loses minus energy A loses this turn (losses beyond what is left are not
    /// counted: energy never goes below zero, §5.3).
    EnergyDifferential,
    /// A's probability of winning the conflict after the turn (needs a solved duel).
    WinProbability,
}

/// One fighter as a turn sees it: energy, available moves, and the chain bonuses that apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnSide {
    /// Current energy (bounds the stances, §5.2 step 2).
    pub energy: Energy,
    /// Available moves (§5.2 step 3).
    pub available: MoveSet,
    /// The newest card of its disadvantage chain and the chain's length (§5.4).
    pub disadvantage: (Option<Move>, u8),
    /// The combo bonus each move would earn (by [`Move::index`], §5.5).
    pub combo_len: [u8; 13],
}

impl TurnSide {
    /// A fighter with this energy and these moves, no chains.
    pub fn plain(energy: Energy, available: MoveSet) -> TurnSide {
        TurnSide { energy, available, disadvantage: (None, 0), combo_len: [0; 13] }
    }

    /// The contender it is with this stance and move.
    pub fn contender(&self, stance: Stance, m: Move) -> Contender {
        Contender {
            stance,
            play: Play::Move(m),
            disadvantage_newest: self.disadvantage.0,
            disadvantage_len: self.disadvantage.1,
            combo_len: self.combo_len[m.index()],
        }
    }
}

/// Who won the turn: 1 when A won, −1 when B won, 0 on a tie — the payoff of a minor
/// conflict, which the turn's winner wins (§5.1, §5.7).
pub fn turn_won(r: &TurnResult) -> f64 {
    match r.outcome.winner() {
        Some(0) => 1.0,
        Some(_) => -1.0,
        None => 0.0,
    }
}

/// The energy differential of a resolved turn: B's loss minus A's, each at most what is left.
pub fn energy_differential(sides: &[TurnSide; 2], r: &TurnResult) -> f64 {
    let taken = |s: usize| f64::from(r.losses[s].total().min(sides[s].energy.total()));
    taken(1) - taken(0)
}

/// A move stage solved: the moves of A (rows) and B (columns), the game and its equilibrium.
#[derive(Debug, Clone, Serialize)]
pub struct MoveStage {
    /// The stances revealed.
    pub stances: [Stance; 2],
    /// The moves of A and of B.
    pub moves: [Vec<Move>; 2],
    /// The payoffs to A.
    pub game: MatrixGame,
    /// Optimal mixes and the value.
    pub equilibrium: Equilibrium,
}

/// A turn solved: the stance stage's game (cells are move-stage values) and its equilibrium.
#[derive(Debug, Clone, Serialize)]
pub struct TurnSolution {
    /// The stances of A (rows) and B (columns), in the engine's order.
    pub stances: [Vec<Stance>; 2],
    /// The stance stage's payoffs to A.
    pub game: MatrixGame,
    /// Optimal stance mixes and the turn's value.
    pub equilibrium: Equilibrium,
}

/// The move stage under `st` with the energy-differential payoff.
pub fn move_stage(sides: &[TurnSide; 2], st: [Stance; 2]) -> Result<MoveStage, MatrixError> {
    move_stage_with(sides, st, |r| energy_differential(sides, r))
}

/// The move stage under `st` with any payoff of the resolved turn.
pub fn move_stage_with(
    sides: &[TurnSide; 2],
    st: [Stance; 2],
    mut payoff: impl FnMut(&TurnResult) -> f64,
) -> Result<MoveStage, MatrixError> {
    let moves: [Vec<Move>; 2] = [sides[0].available.iter().collect(), sides[1].available.iter().collect()];
    let mut cells = Vec::with_capacity(moves[0].len() * moves[1].len());
    for &ma in &moves[0] {
        for &mb in &moves[1] {
            let r = resolve(&[sides[0].contender(st[0], ma), sides[1].contender(st[1], mb)]);
            cells.push(payoff(&r));
        }
    }
    let game = MatrixGame::new(moves[0].len(), moves[1].len(), cells)?;
    let equilibrium = game.solve()?;
    Ok(MoveStage { stances: st, moves, game, equilibrium })
}

/// The whole turn with the energy-differential payoff.
pub fn solve_turn(sides: &[TurnSide; 2]) -> Result<TurnSolution, MatrixError> {
    stance_stage(sides, |st| Ok(move_stage(sides, st)?.equilibrium.value))
}

/// The stance stage, given the value of the move stage under each pair of stances.
pub fn stance_stage<E: From<MatrixError>>(
    sides: &[TurnSide; 2],
    mut move_value: impl FnMut([Stance; 2]) -> Result<f64, E>,
) -> Result<TurnSolution, E> {
    let mut lists = [Vec::new(), Vec::new()];
    stances(sides[0].energy, &mut lists[0]);
    stances(sides[1].energy, &mut lists[1]);
    let mut cells = Vec::with_capacity(lists[0].len() * lists[1].len());
    for &sa in &lists[0] {
        for &sb in &lists[1] {
            cells.push(move_value([sa, sb])?);
        }
    }
    let game = MatrixGame::new(lists[0].len(), lists[1].len(), cells)?;
    let equilibrium = game.solve()?;
    Ok(TurnSolution { stances: lists, game, equilibrium })
}

/// What each of A's moves is worth in a move stage: its payoff against B's optimal mix, its
/// weight in A's own optimal mix, and whether another move weakly dominates it (never worse
/// against any of B's moves, better against one).
#[derive(Debug, Clone, Serialize)]
pub struct MoveWorth {
    /// The move.
    #[serde(rename = "move")]
    pub card: Move,
    /// Expected payoff against B's optimal mix.
    pub value: f64,
    /// Probability in A's optimal mix.
    pub weight: f64,
    /// A move that weakly dominates it, if any.
    pub dominated_by: Option<Move>,
}

/// The worth of each of A's moves in a solved move stage.
pub fn move_worths(stage: &MoveStage) -> Vec<MoveWorth> {
    let g = &stage.game;
    let row_vs = |i: usize| (0..g.cols).map(|j| g.payoff(i, j) * stage.equilibrium.col[j]).sum::<f64>();
    (0..g.rows)
        .map(|i| {
            let dominated_by = (0..g.rows)
                .find(|&k| {
                    k != i
                        && (0..g.cols).all(|j| g.payoff(k, j) >= g.payoff(i, j))
                        && (0..g.cols).any(|j| g.payoff(k, j) > g.payoff(i, j))
                })
                .map(|k| stage.moves[0][k]);
            MoveWorth {
                card: stage.moves[0][i],
                value: row_vs(i),
                weight: stage.equilibrium.row[i],
                dominated_by,
            }
        })
        .collect()
}

/// The worth of each of A's stances: its payoff against B's optimal stance mix.
pub fn stance_worths(turn: &TurnSolution) -> Vec<(Stance, f64)> {
    let g = &turn.game;
    (0..g.rows)
        .map(|i| {
            let v = (0..g.cols).map(|j| g.payoff(i, j) * turn.equilibrium.col[j]).sum::<f64>();
            (turn.stances[0][i], v)
        })
        .collect()
}
