//! Benchmarks of the solver's hot paths (issue 7): matrix games of the sizes a turn meets
//! (the 3×3 move stage of starting moves, the author's 9×9, the 13×13 of all moves, an 11×11
//! stance stage), and a small whole-conflict solve. The full 10-energy solve of every
//! distribution is timed through the CLI (`facedown analyze distributions`, docs/solver.md).

use criterion::{Criterion, criterion_group, criterion_main};
use iron_triangle::{Action, Energy, Move, MoveSet, Stance};
use solver::duel::{Duel, DuelSolution, Sheet, Space};
use solver::matrix::Solver;
use solver::one_turn::{TurnSide, move_stage, solve_turn};

fn matrices(c: &mut Criterion) {
    let mut group = c.benchmark_group("matrix");
    let nine: MoveSet = Move::ALL.into_iter().filter(|m| m.element().is_basic()).collect();
    let all: MoveSet = Move::ALL.into_iter().collect();
    let starting: MoveSet = Move::STARTING.into_iter().collect();
    let st = [Stance::new(Action::Grapple, 2), Stance::new(Action::Attack, 1)];
    for (name, moves) in
        [("3x3_starting_moves", starting), ("9x9_three_element_moves", nine), ("13x13_all_moves", all)]
    {
        let sides =
            [TurnSide::plain(Energy::new(4, 3, 3), moves), TurnSide::plain(Energy::new(3, 4, 3), moves)];
        let g = move_stage(&sides, st).expect("solvable").game;
        let mut solver = Solver::new();
        group.bench_function(name, |b| {
            b.iter(|| solver.solve(g.rows, g.cols, std::hint::black_box(&g.payoffs)).expect("solvable"))
        });
    }
    let side = TurnSide::plain(Energy::new(3, 3, 4), starting);
    let stance_stage = solve_turn(&[side, side]).expect("solvable").game;
    let mut solver = Solver::new();
    group.bench_function("11x11_stance_stage", |b| {
        b.iter(|| solver.solve(11, 11, std::hint::black_box(&stance_stage.payoffs)).expect("solvable"))
    });
    group.finish();
}

fn whole_conflict(c: &mut Criterion) {
    let mut group = c.benchmark_group("duel");
    group.sample_size(10);
    let e = Energy::new(2, 2, 2);
    group.bench_function("starting_moves_2_2_2_each", |b| {
        b.iter(|| {
            let duel = Duel::new(Sheet::starting("A", e), Sheet::starting("B", e)).expect("duel");
            DuelSolution::solve(duel, [Space::boxed(e), Space::boxed(e)]).expect("solved").value([e, e])
        })
    });
    group.finish();
}

criterion_group!(benches, matrices, whole_conflict);
criterion_main!(benches);
