//! Whole 1v1 conflicts (issue 7, parts 3 and 7): the solver against a brute force that plays
//! every legal command of the real engine, and properties of the solved values.

use std::collections::HashMap;

use iron_triangle::rules::Command;
use iron_triangle::{Character, Conflict, Energy, IronTriangle, Phase, Setup, Step};
use solver::duel::{Duel, DuelSolution, Sheet, Space};
use solver::matrix::Solver;
use table::{SeatId, Table};

const PC: SeatId = SeatId(0);

/// A's winning probability under optimal play, found by trying every legal command of the
/// engine: simultaneous commitments as matrix games, everything else as a choice of the
/// seat that decides. Memoised at the start of each turn by energies and face-up chains.
fn brute_force(t: &Table<IronTriangle>, memo: &mut HashMap<String, f64>) -> f64 {
    let state = t.state();
    if t.is_over() {
        return if state.ending.and_then(|e| e.winner) == Some(iron_triangle::PLAYERS) { 1.0 } else { 0.0 };
    }
    let key = match &state.phase {
        Phase::Turn(turn)
            if turn.step == Step::Stance
                && !turn.stances[0].is_committed()
                && !turn.stances[1].is_committed() =>
        {
            Some(format!(
                "{:?}",
                (
                    state.fighters.iter().map(|f| (f.energy, f.disadvantage.cards())).collect::<Vec<_>>(),
                    &state.combo
                )
            ))
        }
        _ => None,
    };
    if let Some(v) = key.as_ref().and_then(|k| memo.get(k)) {
        return *v;
    }
    let awaiting = t.awaiting();
    let legal = |seat: SeatId| {
        let mut out = Vec::new();
        t.legal_commands(seat, &mut out);
        out
    };
    let after = |cmds: &[(SeatId, Command)], memo: &mut HashMap<String, f64>| {
        let mut next = t.clone();
        for (seat, c) in cmds {
            next.submit(*seat, c).expect("legal command");
        }
        brute_force(&next, memo)
    };
    let best = |seat: SeatId, vals: Vec<f64>| {
        if seat == PC {
            vals.into_iter().fold(f64::NEG_INFINITY, f64::max)
        } else {
            vals.into_iter().fold(f64::INFINITY, f64::min)
        }
    };
    let v = if awaiting.len() == 2 {
        // Simultaneous: both commit (stance, move, or a tie's two spreads). Ending the combo is
        // a public choice the active character may make first.
        let (a, b) = (awaiting[0], awaiting[1]);
        let (la, lb) = (legal(a), legal(b));
        let ends: Vec<(SeatId, Command)> = [(a, &la), (b, &lb)]
            .iter()
            .filter(|(_, l)| l.contains(&Command::EndCombo))
            .map(|(s, _)| (*s, Command::EndCombo))
            .collect();
        let (ra, rb): (Vec<_>, Vec<_>) = (
            la.iter().filter(|c| **c != Command::EndCombo).cloned().collect(),
            lb.iter().filter(|c| **c != Command::EndCombo).cloned().collect(),
        );
        let mut cells = Vec::new();
        for ca in &ra {
            for cb in &rb {
                cells.push(after(&[(a, *ca), (b, *cb)], memo));
            }
        }
        let (rows, cols, cells) = if a == PC {
            (ra.len(), rb.len(), cells)
        } else {
            let mut tr = vec![0.0; cells.len()];
            for i in 0..ra.len() {
                for j in 0..rb.len() {
                    tr[j * ra.len() + i] = cells[i * rb.len() + j];
                }
            }
            (rb.len(), ra.len(), tr)
        };
        let game = Solver::new().solve(rows, cols, &cells).expect("solvable");
        match ends.first() {
            Some((seat, end)) => {
                let ended = after(&[(*seat, *end)], memo);
                best(*seat, vec![game, ended])
            }
            None => game,
        }
    } else {
        let seat = awaiting[0];
        let vals = legal(seat).iter().map(|c| after(&[(seat, *c)], memo)).collect();
        best(seat, vals)
    };
    if let Some(k) = key {
        memo.insert(k, v);
    }
    v
}

fn engine_value(a: Energy, b: Energy) -> f64 {
    // Valid level-0 sheets (10 energy) that enter hurt, with the energy under test.
    let sheet = |name: &str, current: Energy| Character {
        current: Some(current),
        ..Character::with_starting_moves(name, Energy::new(3, 3, 4))
    };
    let conflict = Conflict::new(Setup::one_on_one(sheet("A", a), sheet("B", b))).unwrap();
    brute_force(&Table::unlogged(conflict), &mut HashMap::new())
}

fn solved(a: Energy, b: Energy) -> f64 {
    let duel = Duel::new(Sheet::starting("A", a), Sheet::starting("B", b)).unwrap();
    DuelSolution::solve(duel, [Space::boxed(a), Space::boxed(b)]).unwrap().value([a, b]).unwrap()
}

/// The solver's value of tiny conflicts equals the brute force over the engine's legal
/// commands, surrender, every loss spread and ending the combo included.
#[test]
fn tiny_whole_conflicts_match_a_brute_force_over_the_engine() {
    for (a, b) in [
        (Energy::new(1, 1, 1), Energy::new(1, 1, 1)),
        (Energy::new(2, 1, 1), Energy::new(1, 1, 2)),
        (Energy::new(1, 2, 1), Energy::new(1, 1, 1)),
    ] {
        let (s, e) = (solved(a, b), engine_value(a, b));
        assert!((s - e).abs() < 1e-9, "{a} against {b}: solver {s}, brute force {e}");
    }
}

/// The same with a combo and a longer disadvantage chain: the book's ninja (four moves, ▨☷
/// followed by ◆☰; ◆☲ and ◆☰ share ◆) as the GM's side.
#[test]
fn a_combo_character_matches_the_brute_force_too() {
    let ninja: Character =
        toml::from_str(include_str!("../../../examples/iron-triangle/characters/ninja.toml")).unwrap();
    for (a, b) in [(Energy::new(1, 1, 2), Energy::new(2, 1, 1)), (Energy::new(2, 1, 2), Energy::new(1, 2, 1))]
    {
        let pc = Character { current: Some(a), ..Character::with_starting_moves("A", Energy::new(3, 3, 4)) };
        let npc = Character { current: Some(b), ..ninja.clone() };
        let conflict = Conflict::new(Setup::one_on_one(pc.clone(), npc.clone())).unwrap();
        let e = brute_force(&Table::unlogged(conflict), &mut HashMap::new());
        let (sa, sb) = (Sheet::from_character(&pc).unwrap(), Sheet::from_character(&npc).unwrap());
        let duel = Duel::new(sa, sb).unwrap();
        assert!(duel.configs.len() > 13, "the combo and the ◆ chain add configurations");
        let s = DuelSolution::solve(duel, [Space::boxed(a), Space::boxed(b)]).unwrap().value([a, b]).unwrap();
        assert!((s - e).abs() < 1e-9, "{a} against the ninja {b}: solver {s}, brute force {e}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 24, ..Default::default() })]

    /// Random NPCs — any two to four of the thirteen moves, one random combo — against the
    /// starting moves from small energies: the solver equals the brute force over the engine.
    #[test]
    fn random_npcs_match_the_brute_force(
        moves in proptest::sample::subsequence(iron_triangle::Move::ALL.to_vec(), 2..=4),
        combo in (0usize..4, 0usize..4),
        a in (1u8..=2, 0u8..=1, 1u8..=2),
        b in (0u8..=2, 1u8..=2, 0u8..=1),
    ) {
        let (a, b) = (Energy::new(a.0, a.1, a.2), Energy::new(b.0, b.1, b.2));
        let (from, to) = (moves[combo.0 % moves.len()], moves[combo.1 % moves.len()]);
        let npc = Character {
            name: "B".into(),
            level: 3,
            energy: Energy::new(3, 3, 4),
            current: Some(b),
            moves: moves.iter().map(|&card| iron_triangle::KnownMove { name: card.to_string(), card }).collect(),
            combos: if from == to { vec![] } else { vec![iron_triangle::Combo { from, follow_ups: vec![to] }] },
            ..Character::default()
        };
        let pc = Character { current: Some(a), ..Character::with_starting_moves("A", Energy::new(3, 3, 4)) };
        let conflict = Conflict::new(Setup::one_on_one(pc.clone(), npc.clone())).unwrap();
        let e = brute_force(&Table::unlogged(conflict), &mut HashMap::new());
        let duel = Duel::new(Sheet::from_character(&pc).unwrap(), Sheet::from_character(&npc).unwrap()).unwrap();
        let s = DuelSolution::solve(duel, [Space::boxed(a), Space::boxed(b)]).unwrap().value([a, b]).unwrap();
        proptest::prop_assert!((s - e).abs() < 1e-9, "{} against {:?} {}: solver {}, brute force {}", a, moves, b, s, e);
    }
}

/// More energy never lowers the winning probability, in any type, for either side.
#[test]
fn more_energy_never_lowers_the_win_probability() {
    let max = Energy::new(3, 3, 3);
    let duel = Duel::new(Sheet::starting("A", max), Sheet::starting("B", max)).unwrap();
    let space = Space::new(max, 4);
    let sol = DuelSolution::solve(duel, [space.clone(), space.clone()]).unwrap();
    for ia in 0..space.len() {
        for ib in 0..space.len() {
            let (ea, eb) = (space.energy(ia), space.energy(ib));
            let v = sol.value([ea, eb]).unwrap();
            assert!((0.0..=1.0).contains(&v));
            for t in iron_triangle::Action::ALL {
                let mut more = ea;
                *more.get_mut(t) += 1;
                if let Some(j) = space.find(more) {
                    assert!(sol.value_at(j, ib, 0) >= v - 1e-12, "A {ea} → {more} against {eb}");
                }
                let mut more = eb;
                *more.get_mut(t) += 1;
                if let Some(j) = space.find(more) {
                    assert!(sol.value_at(ia, j, 0) <= v + 1e-12, "B {eb} → {more} against {ea}");
                }
            }
        }
    }
}

/// Splitting each level between threads gives the same values, bit for bit.
#[test]
fn threads_give_the_same_values() {
    let max = Energy::new(3, 3, 3);
    let space = Space::new(max, 4);
    let solve = |threads| {
        let duel = Duel::new(Sheet::starting("A", max), Sheet::starting("B", max)).unwrap();
        DuelSolution::solve_on(duel, [space.clone(), space.clone()], threads).unwrap()
    };
    let (one, two) = (solve(1), solve(2));
    for ia in 0..space.len() {
        for ib in 0..space.len() {
            for c in 0..one.duel.configs.len() {
                assert_eq!(one.value_at(ia, ib, c).to_bits(), two.value_at(ia, ib, c).to_bits());
            }
        }
    }
    assert_eq!(one.stats, two.stats);
}

/// With equal sheets the duel is fair but for §5.7: when both go out at once the GM wins,
/// so A's chance is at most one half, and out of reach of a side with no energy.
#[test]
fn equal_sheets_give_the_gm_only_the_simultaneous_knockout() {
    let e = Energy::new(1, 1, 2);
    let v = solved(e, e);
    assert!(v <= 0.5 && v > 0.3, "{v}");
    assert_eq!(solved(Energy::new(1, 0, 0), Energy::new(0, 0, 0)), 1.0);
}

#[test]
fn sheets_with_specials_are_refused() {
    let mut c = Character::with_starting_moves("Ada", Energy::new(3, 3, 4));
    c.specials = vec![iron_triangle::special::Special::Scouter];
    let e = Sheet::from_character(&c).unwrap_err();
    assert!(e.to_string().contains("specials"), "{e}");
}

/// The book's full case: every 10-point distribution of the starting moves, one solve over
/// all energies with total ≤ 10 (about 30 s of CPU in release, far longer unoptimised):
/// `cargo test -p solver --release --test duel -- --ignored`. Checks monotonicity over the
/// whole space and the mirror matches' §5.7 edge for the GM.
#[test]
#[ignore = "heavy: about 30 s of CPU in release"]
fn every_ten_point_distribution_is_solved_and_monotone() {
    let max = Energy::new(10, 10, 10);
    let space = Space::new(max, 10);
    let duel = Duel::new(Sheet::starting("A", max), Sheet::starting("B", max)).unwrap();
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let sol = DuelSolution::solve_on(duel, [space.clone(), space.clone()], threads).unwrap();
    assert_eq!(sol.stats.states, 286 * 286 * 13);
    for ia in 0..space.len() {
        for ib in 0..space.len() {
            let v = sol.value_at(ia, ib, 0);
            for t in iron_triangle::Action::ALL {
                let mut more = space.energy(ia);
                *more.get_mut(t) += 1;
                if let Some(j) = space.find(more) {
                    assert!(sol.value_at(j, ib, 0) >= v - 1e-12);
                }
            }
        }
    }
    let e = Energy::new(3, 3, 4);
    let mirror = sol.value([e, e]).unwrap();
    assert!(mirror < 0.5 && mirror > 0.4, "{mirror}");
}
