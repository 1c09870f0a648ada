//! `facedown analyze`: equilibria and balance reports for game designers (issue 7).
//!
//! A thin shell over the `solver` crate: it reads energies, sheets and matrices, times the
//! solves, and prints text, JSON, CSV or an SVG heatmap. Every rule and every equilibrium
//! comes from `solver` and `iron-triangle`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use iron_triangle::chain::DisadvantageChain;
use iron_triangle::{Character, Energy, Move, MoveSet, Stance};
use serde::Serialize;
use solver::duel::{Duel, DuelSolution, Sheet, Space};
use solver::matrix::{MatrixGame, Solver};
use solver::one_turn::{MoveWorth, TurnSide, move_stage, move_worths, solve_turn, stance_worths};

/// Equilibria and balance reports.
#[derive(Subcommand)]
pub enum AnalyzeCommand {
    /// Solve zero-sum matrix games given as JSON (and time the solver).
    Matrix(MatrixArgs),
    /// One Iron Triangle turn as a two-stage game: stance mixes, the worth of each stance and
    /// each move, at neutral and under disadvantage, and dominated moves. Surrender is left
    /// out: both sides play one of their moves.
    Turn(TurnArgs),
    /// A whole 1v1 Iron Triangle conflict solved exactly: A's winning probability.
    Conflict(ConflictArgs),
    /// Every energy distribution against every other: winning probabilities as a matrix
    /// (CSV, SVG heatmap).
    Distributions(DistributionArgs),
}

/// Arguments of `analyze matrix`.
#[derive(Args)]
#[command(after_help = "\
FILE holds one game as rows of payoffs to the row player, [[0,-1,1],[1,0,-1],[-1,1,0]], or \
a list of such games. With --repeat N each game is solved N times and the mean time per \
solve is printed (the benchmark against Gambit, bench/gambit.sh, uses it).")]
pub struct MatrixArgs {
    /// The JSON file of one game or a list of games (`-` for standard input).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Solve each game N times and report the mean time per solve.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub repeat: u32,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `analyze turn`.
#[derive(Args)]
pub struct TurnArgs {
    /// A's energy as defend,grapple,attack.
    #[arg(long, value_name = "D,G,A", default_value = "3,3,4", value_parser = parse_energy)]
    pub a: Energy,
    /// B's energy as defend,grapple,attack.
    #[arg(long, value_name = "D,G,A", default_value = "3,3,4", value_parser = parse_energy)]
    pub b: Energy,
    /// The moves both know: `starting` (○☵ ▨☷ ◆☲), `nine` (the three-element moves) or `all`.
    #[arg(long, value_name = "SET", default_value = "starting")]
    pub moves: String,
    /// The payoff: `energy` (B's loss minus A's this turn, the author's measure) or `win`
    /// (A's probability of winning the whole conflict after the turn, from its exact solve).
    #[arg(long, value_enum, default_value = "energy")]
    pub payoff: PayoffArg,
    /// A's revealed stance for the move-stage report, e.g. `2 grapple` (default: none).
    #[arg(long, value_name = "STANCE", default_value = "0")]
    pub a_stance: Stance,
    /// B's revealed stance for the move-stage report.
    #[arg(long, value_name = "STANCE", default_value = "0")]
    pub b_stance: Stance,
    /// Print JSON (with the move stage's payoff matrix, `move_game`).
    #[arg(long)]
    pub json: bool,
}

/// The payoff of `analyze turn`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PayoffArg {
    /// Energy differential.
    Energy,
    /// Winning probability of the whole conflict.
    Win,
}

/// Arguments of `analyze conflict`.
#[derive(Args)]
pub struct ConflictArgs {
    /// A's energy as defend,grapple,attack, with the three starting moves.
    #[arg(long, value_name = "D,G,A", default_value = "3,3,4", value_parser = parse_energy, conflicts_with = "a_sheet")]
    pub a: Energy,
    /// B's energy as defend,grapple,attack, with the three starting moves.
    #[arg(long, value_name = "D,G,A", default_value = "3,3,4", value_parser = parse_energy, conflicts_with = "b_sheet")]
    pub b: Energy,
    /// A's character sheet (TOML or JSON), instead of --a.
    #[arg(long, value_name = "FILE")]
    pub a_sheet: Option<PathBuf>,
    /// B's character sheet (TOML or JSON), instead of --b.
    #[arg(long, value_name = "FILE")]
    pub b_sheet: Option<PathBuf>,
    /// Threads to solve on (default: every core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `analyze distributions`.
#[derive(Args)]
pub struct DistributionArgs {
    /// The energy each character distributes (at least 1 per type). The book's is 10
    /// (about 30 s on one core); smaller totals solve in moments.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u8).range(3..=15))]
    pub total: u8,
    /// Write the matrix of A's winning probabilities as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Write the matrix as an SVG heatmap to FILE.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Threads to solve on (default: every core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs an `analyze` subcommand.
pub fn run(command: AnalyzeCommand) -> anyhow::Result<ExitCode> {
    match command {
        AnalyzeCommand::Matrix(a) => matrix(a),
        AnalyzeCommand::Turn(a) => turn(a),
        AnalyzeCommand::Conflict(a) => conflict(a),
        AnalyzeCommand::Distributions(a) => distributions(a),
    }
    .map(|()| ExitCode::SUCCESS)
}

/// Reads `D,G,A` (or `○D ▨G ◆A` with spaces) as an energy.
fn parse_energy(s: &str) -> Result<Energy, String> {
    let parts: Vec<&str> = s
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|p| !p.is_empty())
        .map(|p| p.trim_start_matches(['○', '▨', '◆']))
        .collect();
    let nums: Result<Vec<u8>, _> = parts.iter().map(|p| p.parse::<u8>()).collect();
    match nums.as_deref() {
        Ok([d, g, a]) => Ok(Energy::new(*d, *g, *a)),
        _ => Err(format!("{s:?} is not an energy: write defend,grapple,attack, e.g. 3,3,4")),
    }
}

fn read_text(path: &Path) -> anyhow::Result<String> {
    if path == Path::new("-") {
        return crate::input::read_stdin_bounded(crate::input::TEXT_LIMIT).context("reading standard input");
    }
    crate::input::read_bounded(path, crate::input::TEXT_LIMIT)
        .with_context(|| format!("cannot read {}", path.display()))
}

/// The peak resident memory of this process (Linux), in bytes.
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

// ---------------------------------------------------------------------------------------
// analyze matrix

#[derive(Serialize)]
struct MatrixReport {
    rows: usize,
    cols: usize,
    value: f64,
    row: Vec<f64>,
    col: Vec<f64>,
    exploitability: f64,
    /// The largest exploitability the check allows: 1e-9 × the payoff range.
    tolerance: f64,
    /// Mean time per solve over --repeat solves, in microseconds.
    micros_per_solve: f64,
}

fn matrix(args: MatrixArgs) -> anyhow::Result<()> {
    let text = read_text(&args.file)?;
    let value: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", args.file.display()))?;
    let games: Vec<Vec<Vec<f64>>> = if value.pointer("/0/0/0").is_some() {
        serde_json::from_value(value)
    } else {
        serde_json::from_value(value).map(|g| vec![g])
    }
    .with_context(|| format!("{}: expected rows of numbers, or a list of such games", args.file.display()))?;
    if args.repeat == 0 {
        bail!("--repeat must be at least 1");
    }
    let mut reports = Vec::new();
    for (k, rows) in games.iter().enumerate() {
        let game = MatrixGame::from_rows(rows).with_context(|| format!("game {}", k + 1))?;
        let mut solver = Solver::new();
        // One solve to check and keep, then the timed repeats on the same warm buffers.
        let value =
            solver.solve(game.rows, game.cols, &game.payoffs).with_context(|| format!("game {}", k + 1))?;
        let (row, col) = (solver.row_strategy().to_vec(), solver.col_strategy().to_vec());
        let start = Instant::now();
        for _ in 0..args.repeat {
            std::hint::black_box(solver.solve(game.rows, game.cols, std::hint::black_box(&game.payoffs)))?;
        }
        let micros = start.elapsed().as_secs_f64() * 1e6 / f64::from(args.repeat);
        let exploitability = solver::matrix::exploitability(game.rows, game.cols, &game.payoffs, &row, &col);
        let (lo, hi) = game.payoffs.iter().fold((f64::MAX, f64::MIN), |(l, h), &p| (l.min(p), h.max(p)));
        reports.push(MatrixReport {
            rows: game.rows,
            cols: game.cols,
            value,
            row,
            col,
            exploitability,
            tolerance: solver::matrix::TOLERANCE * (hi - lo),
            micros_per_solve: micros,
        });
    }
    if args.json {
        println!("{}", serde_json::to_string(&reports)?);
        return Ok(());
    }
    for (k, r) in reports.iter().enumerate() {
        println!("game {} ({}×{}): value {:.12}", k + 1, r.rows, r.cols, r.value);
        println!("  row player: {}", mix(&r.row));
        println!("  column player: {}", mix(&r.col));
        println!(
            "  exploitability {:.1e} (check: at most {:.1e}, 1e-9 × the payoff range); {:.2} µs per solve over {} solves",
            r.exploitability, r.tolerance, r.micros_per_solve, args.repeat
        );
    }
    Ok(())
}

fn mix(p: &[f64]) -> String {
    p.iter().map(|x| format!("{x:.4}")).collect::<Vec<_>>().join(" ")
}

// ---------------------------------------------------------------------------------------
// analyze turn

fn move_set(name: &str) -> anyhow::Result<MoveSet> {
    Ok(match name {
        "starting" => Move::STARTING.into_iter().collect(),
        "nine" => Move::ALL.into_iter().filter(|m| m.element().is_basic()).collect(),
        "all" => Move::ALL.into_iter().collect(),
        other => bail!("--moves {other:?}: use starting, nine or all"),
    })
}

#[derive(Serialize)]
struct StanceShare {
    stance: Stance,
    probability: f64,
}

#[derive(Serialize)]
struct StanceWorth {
    stance: Stance,
    /// A's expected payoff with this stance against B's optimal stance mix.
    worth: f64,
}

#[derive(Serialize)]
struct DisadvantageReport {
    /// The newest card of A's disadvantage chain (a chain of one card).
    newest: Move,
    value: f64,
    moves: Vec<MoveWorth>,
}

#[derive(Serialize)]
struct TurnReport {
    a: Energy,
    b: Energy,
    payoff: &'static str,
    /// With the win-probability payoff: the states of the whole-conflict solve.
    #[serde(skip_serializing_if = "Option::is_none")]
    states: Option<u64>,
    value: f64,
    a_stances: Vec<StanceShare>,
    b_stances: Vec<StanceShare>,
    stance_worths: Vec<StanceWorth>,
    /// The stances of the move-stage report.
    move_stances: [Stance; 2],
    /// The move stage under those stances: A's moves (rows), B's (columns), payoffs to A.
    move_game: MatrixGame,
    neutral_value: f64,
    neutral_moves: Vec<MoveWorth>,
    under_disadvantage: Vec<DisadvantageReport>,
}

fn shares(stances: &[Stance], p: &[f64]) -> Vec<StanceShare> {
    stances
        .iter()
        .zip(p)
        .filter(|(_, p)| **p > 1e-9)
        .map(|(s, p)| StanceShare { stance: *s, probability: *p })
        .collect()
}

fn turn(args: TurnArgs) -> anyhow::Result<()> {
    Sheet::starting("A", args.a).check_in()?;
    Sheet::starting("B", args.b).check_in()?;
    let moves = move_set(&args.moves)?;
    let sides = [TurnSide::plain(args.a, moves), TurnSide::plain(args.b, moves)];
    let t = solve_turn(&sides)?;
    for (who, e, st) in [("A", args.a, args.a_stance), ("B", args.b, args.b_stance)] {
        if st.amount > e.get(st.action) {
            bail!("{who}'s stance {st} is above its {} energy {} (§5.2 step 2)", st.action, e.get(st.action));
        }
    }
    let move_stances = [args.a_stance, args.b_stance];
    if args.payoff == PayoffArg::Win {
        return turn_win(&args, moves, move_stances);
    }
    let neutral = move_stage(&sides, move_stances)?;
    let mut under = Vec::new();
    for newest in moves.iter() {
        // A lost last turn with `newest`: a chain of one card, unavailable to it (§5.4).
        let chain = DisadvantageChain::from_cards(vec![newest]);
        let a =
            TurnSide { available: moves.without(chain.set()), disadvantage: (Some(newest), 1), ..sides[0] };
        if a.available.is_empty() {
            continue;
        }
        let s = move_stage(&[a, sides[1]], move_stances)?;
        under.push(DisadvantageReport { newest, value: s.equilibrium.value, moves: move_worths(&s) });
    }
    let report = TurnReport {
        a: args.a,
        b: args.b,
        payoff: "energy differential (B's loss minus A's)",
        states: None,
        value: t.equilibrium.value,
        a_stances: shares(&t.stances[0], &t.equilibrium.row),
        b_stances: shares(&t.stances[1], &t.equilibrium.col),
        stance_worths: stance_worths(&t)
            .into_iter()
            .map(|(stance, worth)| StanceWorth { stance, worth })
            .collect(),
        move_stances,
        move_game: neutral.game.clone(),
        neutral_value: neutral.equilibrium.value,
        neutral_moves: move_worths(&neutral),
        under_disadvantage: under,
    };
    print_turn(&report, args.json)
}

/// The turn with A's winning probability of the whole conflict as the payoff (the conflict is
/// solved first; the disadvantage part of the report needs a reachable position, so it is
/// left out).
fn turn_win(args: &TurnArgs, moves: MoveSet, move_stances: [Stance; 2]) -> anyhow::Result<()> {
    let sheet = |name: &str, energy: Energy| Sheet {
        name: name.into(),
        known: moves,
        follow_ups: [MoveSet::EMPTY; 13],
        energy,
    };
    let (a, b) = (sheet("A", args.a), sheet("B", args.b));
    let sol = solve_duel(
        Duel::new(a, b)?,
        [Space::boxed(args.a), Space::boxed(args.b)],
        1,
        "solving the conflict",
    )?;
    let p = solver::duel::Position { energy: [args.a, args.b], chains: Default::default() };
    let t = sol.turn(&p)?.context("the start is outside the solved states")?;
    let stage = sol.move_stage_at(&p, move_stances)?.context("a fighter has no available move")?;
    let report = TurnReport {
        a: args.a,
        b: args.b,
        payoff: "A's probability of winning the whole conflict after the turn",
        states: Some(sol.stats.states),
        value: t.equilibrium.value,
        a_stances: shares(&t.stances[0], &t.equilibrium.row),
        b_stances: shares(&t.stances[1], &t.equilibrium.col),
        stance_worths: stance_worths(&t)
            .into_iter()
            .map(|(stance, worth)| StanceWorth { stance, worth })
            .collect(),
        move_stances,
        move_game: stage.stage.game.clone(),
        neutral_value: stage.stage.equilibrium.value,
        neutral_moves: move_worths(&stage.stage),
        under_disadvantage: Vec::new(),
    };
    print_turn(&report, args.json)
}

fn print_turn(report: &TurnReport, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string(report)?);
        return Ok(());
    }
    println!("One turn, A {} against B {}; payoff: {}.", report.a, report.b, report.payoff);
    println!("Value of the turn to A: {:+.6}", report.value);
    let list = |s: &[StanceShare]| {
        s.iter().map(|x| format!("{} {:.4}", x.stance, x.probability)).collect::<Vec<_>>().join(", ")
    };
    println!("A's stances: {}", list(&report.a_stances));
    println!("B's stances: {}", list(&report.b_stances));
    println!("Worth of each of A's stances against B's optimal mix:");
    for w in &report.stance_worths {
        println!("  {:>10}  {:+.4}", w.stance.to_string(), w.worth);
    }
    let print_moves = |title: String, value: f64, moves: &[MoveWorth]| {
        println!("{title} (value {value:+.4}):");
        for m in moves {
            let dominated = m.dominated_by.map_or(String::new(), |d| format!("  dominated by {d}"));
            println!("  {}  worth {:+.4}  played {:.4}{}", m.card, m.value, m.weight, dominated);
        }
    };
    let [sa, sb] = report.move_stances;
    print_moves(
        format!("Moves at neutral, stances A {sa}, B {sb}"),
        report.neutral_value,
        &report.neutral_moves,
    );
    for d in &report.under_disadvantage {
        print_moves(format!("A's moves under disadvantage, newest card {}", d.newest), d.value, &d.moves);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// analyze conflict

fn load_sheet(path: &Path) -> anyhow::Result<Sheet> {
    let text = read_text(path)?;
    let c: Character = if path.extension().is_some_and(|e| e == "json") {
        serde_json::from_str(&text).with_context(|| format!("{}: not a character sheet", path.display()))?
    } else {
        toml::from_str(&text)
            .map_err(|e| anyhow::anyhow!("{}: not a character sheet: {e}", path.display()))?
    };
    Ok(Sheet::from_character(&c)?)
}

#[derive(Serialize)]
struct ConflictReport {
    a: Sheet,
    b: Sheet,
    /// A's probability of winning under optimal play of both.
    value: f64,
    stats: solver::duel::SolveStats,
    seconds: f64,
    threads: usize,
    peak_memory_bytes: Option<u64>,
}

fn conflict(args: ConflictArgs) -> anyhow::Result<()> {
    let a = match &args.a_sheet {
        Some(p) => load_sheet(p)?,
        None => Sheet::starting("A", args.a),
    };
    let b = match &args.b_sheet {
        Some(p) => load_sheet(p)?,
        None => Sheet::starting("B", args.b),
    };
    a.check_in()?;
    b.check_in()?;
    let start = Instant::now();
    let spaces = [Space::boxed(a.energy), Space::boxed(b.energy)];
    let energy = [a.energy, b.energy];
    let sol =
        solve_duel(Duel::new(a.clone(), b.clone())?, spaces, threads(args.threads), "solving the conflict")?;
    let value = sol.value(energy)?;
    let elapsed = start.elapsed();
    let report = ConflictReport {
        a,
        b,
        value,
        stats: sol.stats,
        seconds: elapsed.as_secs_f64(),
        threads: threads(args.threads),
        peak_memory_bytes: peak_memory(),
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    let (a, b) = (crate::input::Shown(&report.a.name), crate::input::Shown(&report.b.name));
    println!("{a} {} against {b} {}:", energy[0], energy[1]);
    println!("  {a}'s probability of winning under optimal play: {value:.6}");
    print_stats(&report.stats, elapsed, report.threads, report.peak_memory_bytes);
    Ok(())
}

/// A progress bar on standard error for a long solve, shown only when standard error is a
/// terminal (piped or redirected runs stay quiet); `None` otherwise.
fn progress_bar(what: &str, states: u64) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal as _;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::with_draw_target(Some(states), indicatif::ProgressDrawTarget::stderr());
    let style = indicatif::ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} states, eta {eta}")
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_message(what.to_owned());
    Some(bar)
}

/// Solves a duel, with a progress bar on a terminal (states of both energies solved, level by
/// level of the backward induction).
fn solve_duel(duel: Duel, spaces: [Space; 2], threads: usize, what: &str) -> anyhow::Result<DuelSolution> {
    let bar = progress_bar(what, (spaces[0].len() * spaces[1].len()) as u64);
    let mut report = |done: u64, all: u64| {
        if let Some(b) = &bar {
            b.set_length(all);
            b.set_position(done);
        }
    };
    let sol = DuelSolution::solve_with_progress(duel, spaces, threads, &mut report);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok(sol?)
}

/// The threads asked for, else one per core.
fn threads(asked: Option<usize>) -> usize {
    asked.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)).max(1)
}

fn print_stats(stats: &solver::duel::SolveStats, elapsed: Duration, threads: usize, peak: Option<u64>) {
    println!(
        "  {} states ({} chain configurations), {} matrix games, {:.2?} on {} thread{}",
        stats.states,
        stats.configs,
        stats.games,
        elapsed,
        threads,
        if threads == 1 { "" } else { "s" }
    );
    println!(
        "  tables {:.1} MiB; peak memory {}",
        mib(stats.table_bytes),
        peak.map_or("unknown".to_owned(), |b| format!("{:.1} MiB", mib(b)))
    );
}

// ---------------------------------------------------------------------------------------
// analyze distributions

#[derive(Serialize)]
struct DistributionReport {
    total: u8,
    distributions: Vec<Energy>,
    /// `win[i][j]`: A's winning probability with distribution i against B with j.
    win: Vec<Vec<f64>>,
    /// `seat_averaged[i][j]`: the probability that distribution i beats j, averaged over the
    /// two seats (the GM's double-knockout edge, §5.7, taken out).
    seat_averaged: Vec<Vec<f64>>,
    stats: solver::duel::SolveStats,
    seconds: f64,
    threads: usize,
    peak_memory_bytes: Option<u64>,
}

/// Every way to spread `total` over the three types with at least 1 in each (§4).
fn distributions_of(total: u8) -> Vec<Energy> {
    let mut out = Vec::new();
    for d in 1..total {
        for g in 1..total - d {
            out.push(Energy::new(d, g, total - d - g));
        }
    }
    out
}

fn label(e: &Energy) -> String {
    format!("{}-{}-{}", e.defend, e.grapple, e.attack)
}

fn distributions(args: DistributionArgs) -> anyhow::Result<()> {
    let total = args.total;
    let max = Energy::new(total, total, total);
    let start = Instant::now();
    let duel = Duel::new(Sheet::starting("A", max), Sheet::starting("B", max))?;
    let space = Space::new(max, u32::from(total));
    let sol = solve_duel(duel, [space.clone(), space], threads(args.threads), "solving every distribution")?;
    let dists = distributions_of(total);
    let win = dists
        .iter()
        .map(|a| dists.iter().map(|b| sol.value([*a, *b])).collect::<Result<Vec<_>, _>>())
        .collect::<Result<Vec<_>, _>>()?;
    let elapsed = start.elapsed();
    let report = DistributionReport {
        total,
        distributions: dists,
        seat_averaged: seat_averaged(&win),
        win,
        stats: sol.stats,
        seconds: elapsed.as_secs_f64(),
        threads: threads(args.threads),
        peak_memory_bytes: peak_memory(),
    };
    if let Some(path) = &args.csv {
        std::fs::write(path, csv(&report)).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.svg {
        heatmap(&report, path)?;
    }
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    let n = report.distributions.len();
    println!(
        "Every {total}-point distribution (at least 1 per type, three starting moves) against every other: {n}×{n} conflicts."
    );
    print_stats(&report.stats, elapsed, report.threads, report.peak_memory_bytes);
    // Mean winning probability as A against all B, and as B against all A (1 − A's).
    let mut rank: Vec<(f64, &Energy)> = (0..n)
        .map(|i| {
            let as_a: f64 = report.win[i].iter().sum::<f64>() / n as f64;
            let as_b: f64 = (0..n).map(|k| 1.0 - report.win[k][i]).sum::<f64>() / n as f64;
            ((as_a + as_b) / 2.0, &report.distributions[i])
        })
        .collect();
    rank.sort_by(|x, y| y.0.total_cmp(&x.0));
    let show =
        |r: &[(f64, &Energy)]| r.iter().map(|(v, e)| format!("{e} {v:.4}")).collect::<Vec<_>>().join("; ");
    println!("Mean winning probability over both seats, best: {}", show(&rank[..rank.len().min(5)]));
    println!("worst: {}", show(&rank[rank.len().saturating_sub(5)..]));
    let same = (0..n).map(|i| report.win[i][i]).fold(f64::NAN, f64::min);
    println!(
        "Mirror matches: A wins at least {same:.4} (below 1/2: both out at once is the GM's win, §5.7)."
    );
    if let Some(p) = &args.csv {
        println!("CSV written to {}", p.display());
    }
    if let Some(p) = &args.svg {
        println!("SVG heatmap written to {}", p.display());
    }
    Ok(())
}

fn csv(r: &DistributionReport) -> String {
    let mut s = String::from("a\\b");
    for b in &r.distributions {
        s.push(',');
        s.push_str(&label(b));
    }
    s.push('\n');
    for (a, row) in r.distributions.iter().zip(&r.win) {
        s.push_str(&label(a));
        for v in row {
            s.push_str(&format!(",{v:.9}"));
        }
        s.push('\n');
    }
    s
}

/// The seat-averaged view: `avg[i][j]`, the probability that distribution i beats
/// distribution j, averaged over the two seats — as A against j as B (`win[i][j]`) and as B
/// against j as A (`1 − win[j][i]`). It takes out the GM's edge of a double knockout (§5.7),
/// which otherwise colours every cell towards B; `avg[i][j] + avg[j][i] = 1`.
fn seat_averaged(win: &[Vec<f64>]) -> Vec<Vec<f64>> {
    (0..win.len()).map(|i| (0..win.len()).map(|j| 0.5 * (win[i][j] + 1.0 - win[j][i])).collect()).collect()
}

/// A diverging colour for `v` on a scale centred on ½ reaching ½ ± `reach`: white at ½,
/// deepening to blue above (the row's side wins more often) and to red below.
fn diverging(v: f64, reach: f64) -> plotters::style::RGBColor {
    let t = ((v - 0.5) / reach).clamp(-1.0, 1.0);
    let fade = |x: f64| (255.0 * (1.0 - 0.85 * x.abs())).round() as u8;
    let deep = |x: f64| (255.0 * (1.0 - 0.55 * x.abs())).round() as u8;
    if t >= 0.0 {
        plotters::style::RGBColor(fade(t), fade(t) / 2 + deep(t) / 2, 255)
    } else {
        plotters::style::RGBColor(255, fade(t), fade(t))
    }
}

/// The heatmap: two panels with labelled axes, each on a diverging colour scale centred on ½
/// with its colour bar. Left, the seat-averaged view (the probability that the row's
/// distribution beats the column's, over both seats); right, the raw matrix (A's distribution
/// in rows against B's in columns), where the GM's double-knockout edge (§5.7) tints most
/// cells red.
fn heatmap(r: &DistributionReport, path: &Path) -> anyhow::Result<()> {
    use plotters::prelude::*;
    let n = r.distributions.len() as i32;
    let cell = 18i32;
    let (left, top) = (70i32, 120i32);
    let side = cell * n;
    let bar_gap = 16i32;
    let bar_width = 14i32;
    let panel = left + side + bar_gap + bar_width + 60;
    let size = ((2 * panel + 20) as u32, (top + side + 70) as u32);
    let root = SVGBackend::new(path, size).into_drawing_area();
    let draw = |e: DrawingAreaErrorKind<_>| anyhow::anyhow!("cannot draw {}: {e:?}", path.display());
    root.fill(&WHITE).map_err(draw)?;
    let font = |px: u32| ("sans-serif", px).into_font();
    root.draw(&Text::new(
        format!(
            "Every {}-energy distribution (at least 1 per type, starting moves) against every other, under optimal play",
            r.total
        ),
        (10, 8),
        font(15),
    ))
    .map_err(draw)?;
    let averaged = seat_averaged(&r.win);
    // Each panel: its matrix, title, note, and the rows' and columns' axis titles.
    type Panel<'a> = (&'a [Vec<f64>], &'a str, &'a str, &'a str, &'a str);
    let panels: [Panel; 2] = [
        (
            &averaged,
            "Seat-averaged: P(row beats column), mean of both seats",
            "the double-knockout edge of the GM (§5.7) averaged out",
            "row's distribution",
            "column's distribution",
        ),
        (
            &r.win,
            "As played: P(A wins), A = players' side, B = GM",
            "B wins a double knockout (§5.7), so most cells lean red",
            "A's distribution (○-▨-◆)",
            "B's distribution (○-▨-◆)",
        ),
    ];
    for (k, (m, title, note, rows_label, cols_label)) in panels.into_iter().enumerate() {
        let x0 = k as i32 * panel + left;
        let y0 = top;
        // A symmetric reach around ½, stretched to the data so small differences show.
        let reach = m.iter().flatten().fold(0.0f64, |r, v| r.max((v - 0.5).abs())).max(1e-9);
        root.draw(&Text::new(title.to_owned(), (x0 - left + 10, 34), font(14))).map_err(draw)?;
        root.draw(&Text::new(note.to_owned(), (x0 - left + 10, 52), font(11))).map_err(draw)?;
        for (i, row) in m.iter().enumerate() {
            for (j, v) in row.iter().enumerate() {
                let (x, y) = (x0 + j as i32 * cell, y0 + i as i32 * cell);
                root.draw(&Rectangle::new([(x, y), (x + cell, y + cell)], diverging(*v, reach).filled()))
                    .map_err(draw)?;
            }
        }
        root.draw(&Rectangle::new([(x0, y0), (x0 + side, y0 + side)], BLACK.stroke_width(1)))
            .map_err(draw)?;
        // Tick labels: rows on the left, columns above, each distribution as ○-▨-◆.
        for (t, e) in r.distributions.iter().enumerate() {
            let l = label(e);
            let t = t as i32;
            root.draw(&Text::new(l.clone(), (x0 - 40, y0 + t * cell + cell / 2 - 4), font(9)))
                .map_err(draw)?;
            let style = font(9).transform(FontTransform::Rotate270);
            root.draw(&Text::new(l, (x0 + t * cell + cell / 2 - 4, y0 - 4), style)).map_err(draw)?;
        }
        // Axis titles.
        root.draw(&Text::new(format!("columns: {cols_label} →"), (x0, y0 + side + 8), font(12)))
            .map_err(draw)?;
        let style = font(12).transform(FontTransform::Rotate270);
        root.draw(&Text::new(format!("rows: {rows_label} →"), (x0 - 58, y0 + side), style)).map_err(draw)?;
        // The colour bar: ½ − reach at the bottom to ½ + reach at the top, labelled.
        let bx = x0 + side + bar_gap;
        let steps = 60;
        for s in 0..steps {
            let v = 0.5 + reach * (1.0 - 2.0 * (s as f64 + 0.5) / steps as f64);
            let y = y0 + s * side / steps;
            let y1 = y0 + (s + 1) * side / steps;
            root.draw(&Rectangle::new([(bx, y), (bx + bar_width, y1)], diverging(v, reach).filled()))
                .map_err(draw)?;
        }
        root.draw(&Rectangle::new([(bx, y0), (bx + bar_width, y0 + side)], BLACK.stroke_width(1)))
            .map_err(draw)?;
        for (frac, v) in [(0.0, 0.5 + reach), (0.5, 0.5), (1.0, 0.5 - reach)] {
            let y = y0 + (frac * side as f64) as i32;
            root.draw(&Text::new(format!("{v:.4}"), (bx + bar_width + 4, y - 5), font(10))).map_err(draw)?;
        }
        root.draw(&Text::new(
            "colour bar: white ½, blue the row side wins more, red less".to_owned(),
            (x0, y0 + side + 26),
            font(11),
        ))
        .map_err(draw)?;
    }
    root.present().map_err(draw)?;
    Ok(())
}
