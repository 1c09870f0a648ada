"""Times facedown and pygambit on the same zero-sum matrix games; run through gambit.sh.

The games are Iron Triangle move stages (payoff: energy differential, the author's measure)
printed by `facedown analyze turn --json`, so no rule is re-derived here. Each game is solved
by facedown (`facedown analyze matrix --repeat N --json`: mean time per solve inside one
process) and by pygambit's LP and LCP solvers (mean time per call of `lp_solve` /
`lcp_solve` on a game built once). The values must agree to 1e-9.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time

import pygambit as gbt

# (moves, A's energy, B's energy, A's stance, B's stance)
CASES = [
    ("nine", "4,3,3", "3,4,3", "0", "0"),
    ("nine", "4,3,3", "3,4,3", "2 grapple", "1 attack"),
    ("nine", "3,3,4", "3,3,4", "3 attack", "2 defend"),
    ("all", "4,3,3", "3,4,3", "0", "0"),
    ("all", "4,3,3", "3,4,3", "2 grapple", "1 attack"),
    ("all", "3,3,4", "3,3,4", "3 attack", "2 defend"),
]


def move_game(facedown, moves, a, b, sa, sb):
    out = subprocess.run(
        [facedown, "analyze", "turn", "--moves", moves, "--a", a, "--b", b,
         "--a-stance", sa, "--b-stance", sb, "--json"],
        check=True, capture_output=True, text=True).stdout
    g = json.loads(out)["move_game"]
    rows, cols, p = g["rows"], g["cols"], g["payoffs"]
    return [[p[i * cols + j] for j in range(cols)] for i in range(rows)]


def equilibria(result):
    # pygambit ≥ 16.1 returns a NashComputationResult; older versions a list.
    return result.equilibria if hasattr(result, "equilibria") else result


def gambit_time(solve, game, repeat):
    eqs = equilibria(solve(game))
    value = float(eqs[0].payoff(next(iter(game.players))))
    start = time.perf_counter()
    for _ in range(repeat):
        solve(game)
    return value, (time.perf_counter() - start) / repeat


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--facedown", required=True)
    ap.add_argument("--repeat", type=int, default=200, help="pygambit calls per game")
    ap.add_argument("--facedown-repeat", type=int, default=100000, help="facedown solves per game")
    args = ap.parse_args()

    games = [move_game(args.facedown, *c) for c in CASES]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(games, f)
        path = f.name
    fd = json.loads(subprocess.run(
        [args.facedown, "analyze", "matrix", path, "--repeat", str(args.facedown_repeat), "--json"],
        check=True, capture_output=True, text=True).stdout)

    lp = lambda g: gbt.nash.lp_solve(g, rational=False)
    lcp = lambda g: gbt.nash.lcp_solve(g, rational=False)
    print(f"pygambit {getattr(gbt, '__version__', '?')}; facedown: {args.facedown_repeat} solves per game, "
          f"pygambit: {args.repeat} calls per solver per game")
    print(f"{'game':<40} {'size':>6} {'facedown':>11} {'gambit lp':>11} {'gambit lcp':>11} {'ratio':>8}  values")
    ok = True
    ratios = {}
    for case, rows, r in zip(CASES, games, fd):
        a = [[float(x) for x in row] for row in rows]
        neg = [[-x for x in row] for row in a]
        game = gbt.Game.from_arrays(a, neg)
        v_lp, t_lp = gambit_time(lp, game, args.repeat)
        v_lcp, t_lcp = gambit_time(lcp, game, max(1, args.repeat // 4))
        t_fd = r["micros_per_solve"] * 1e-6
        agree = abs(v_lp - r["value"]) <= 1e-9 and abs(v_lcp - r["value"]) <= 1e-9
        ok &= agree
        fastest = min(t_lp, t_lcp)
        ratio = fastest / t_fd
        size = f"{r['rows']}x{r['cols']}"
        ratios.setdefault(size, []).append(ratio)
        stance = lambda s: "no stance" if s == "0" else s
        name = f"{case[0]} A {case[1]} {stance(case[3])}, B {case[2]} {stance(case[4])}"
        print(f"{name:<40} {size:>6} {t_fd*1e6:>8.2f} µs {t_lp*1e3:>8.3f} ms {t_lcp*1e3:>8.3f} ms {ratio:>7.0f}×  "
              f"{r['value']:.12f} {'agree' if agree else 'DIFFER'} (lp {v_lp:.12f}, lcp {v_lcp:.12f})")
    for size, rs in ratios.items():
        print(f"{size}: facedown is {min(rs):.0f}× to {max(rs):.0f}× faster than pygambit's fastest solver")
    print("values agree to 1e-9" if ok else "VALUES DIFFER")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
