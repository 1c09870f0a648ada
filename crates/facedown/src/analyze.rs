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
    /// each move, at neutral and under disadvantage, and dominated moves.
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
    /// The energy each character distributes (at least 1 per type, §4). The book's is 10
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
        reports.push(MatrixReport {
            rows: game.rows,
            cols: game.cols,
            value,
            row,
            col,
            exploitability,
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
            "  exploitability {:.1e} (check: at most {:.0e}); {:.2} µs per solve over {} solves",
            r.exploitability,
            solver::matrix::TOLERANCE,
            r.micros_per_solve,
            args.repeat
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
    let sol = DuelSolution::solve(Duel::new(a, b)?, [Space::boxed(args.a), Space::boxed(args.b)])?;
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
    let start = Instant::now();
    let spaces = [Space::boxed(a.energy), Space::boxed(b.energy)];
    let energy = [a.energy, b.energy];
    let sol = DuelSolution::solve_on(Duel::new(a.clone(), b.clone())?, spaces, threads(args.threads))?;
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
    let sol = DuelSolution::solve_on(duel, [space.clone(), space], threads(args.threads))?;
    let dists = distributions_of(total);
    let win = dists
        .iter()
        .map(|a| dists.iter().map(|b| sol.value([*a, *b])).collect::<Result<Vec<_>, _>>())
        .collect::<Result<Vec<_>, _>>()?;
    let elapsed = start.elapsed();
    let report = DistributionReport {
        total,
        distributions: dists,
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

/// The heatmap: rows are A's distributions, columns B's; blue where A is likely to win,
/// red where B is, on a scale stretched to the data (the legend gives its ends).
fn heatmap(r: &DistributionReport, path: &Path) -> anyhow::Result<()> {
    use plotters::prelude::*;
    let n = r.distributions.len();
    let cell = 18u32;
    let margin = 90u32;
    let size = ((margin + cell * n as u32 + 20).max(720), margin + cell * n as u32 + 40);
    let root = SVGBackend::new(path, size).into_drawing_area();
    let draw = |e: DrawingAreaErrorKind<_>| anyhow::anyhow!("cannot draw {}: {e:?}", path.display());
    root.fill(&WHITE).map_err(draw)?;
    let title = format!(
        "P(A wins): A's distribution (rows) against B's (columns), {} energy, starting moves",
        r.total
    );
    root.draw(&Text::new(title, (10, 10), ("sans-serif", 14).into_font())).map_err(draw)?;
    // A diverging scale around ½, stretched to the data: the strongest blue is A's best
    // pairing, the strongest red B's best (the values are close to ½ for the book's 10).
    let (lo, hi) = r.win.iter().flatten().fold((0.5f64, 0.5f64), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    let reach = (hi - 0.5).max(0.5 - lo).max(1e-12);
    let color = |v: f64| {
        let t = ((v - 0.5) / reach).clamp(-1.0, 1.0);
        let fade = |x: f64| (255.0 * (1.0 - x.abs())) as u8;
        if t >= 0.0 { RGBColor(fade(t), fade(t), 255) } else { RGBColor(255, fade(t), fade(t)) }
    };
    let (x0, y0) = (margin as i32, margin as i32);
    let c = cell as i32;
    for (i, row) in r.win.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            let (x, y) = (x0 + j as i32 * c, y0 + i as i32 * c);
            root.draw(&Rectangle::new([(x, y), (x + c, y + c)], color(*v).filled())).map_err(draw)?;
        }
    }
    let small = ("sans-serif", 9).into_font();
    for (k, e) in r.distributions.iter().enumerate() {
        let l = label(e);
        root.draw(&Text::new(l.clone(), (8, y0 + k as i32 * c + c / 2 - 4), small.clone())).map_err(draw)?;
        let style = small.clone().transform(FontTransform::Rotate270);
        root.draw(&Text::new(l, (x0 + k as i32 * c + c / 2 - 4, y0 - 6), style)).map_err(draw)?;
    }
    let legend = format!(
        "P(A wins): white 1/2 · deepest blue {hi:.4} · deepest red {lo:.4} (the GM side B wins double knockouts, §5.7)"
    );
    root.draw(&Text::new(legend, (10, size.1 as i32 - 24), ("sans-serif", 12).into_font())).map_err(draw)?;
    root.present().map_err(draw)?;
    Ok(())
}
