//! `facedown iron-triangle resolve`: a referee calculator for one turn of Iron Triangle played
//! with real cards.
//!
//! Given both characters' stance, move, disadvantage chain and combo state, it prints who wins,
//! every component of each loss, the part that must come from a given type, and the
//! disadvantage and combo chains the next turn starts with. Every rule comes from the
//! `iron-triangle` crate: [`turn::resolve`] decides the turn, [`DisadvantageChain`] and
//! [`ComboChain`] carry it into the next. This module only reads input and writes output.
//!
//! The input and output formats are described in `docs/iron-triangle-resolve.md`.

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, anyhow, bail};
use iron_triangle::chain::{self, ComboCard, ComboChain, DisadvantageChain};
use iron_triangle::turn::{self, Contender, Decided, Loss, Outcome, Play, TurnResult};
use iron_triangle::{Action, Energy, FighterId, Move, MoveSet, RuleError, Stance};
use serde::{Deserialize, Serialize};
use table::SideId;

/// Arguments of `facedown iron-triangle resolve`: both characters of one turn, either as
/// `--a-*`/`--b-*` flags or as a file given with `--input`.
#[derive(clap::Args, Debug, Default)]
#[command(after_help = "Moves are written as symbols (▨☰) or words (\"grapple heaven\", \"attack low\"); \
                  stances as \"2▨\", \"2 grapple\" or 0; lists are comma-separated, oldest first.\n\
                  See docs/iron-triangle-resolve.md for the file format and the --json output.")]
pub struct Args {
    /// Read both characters from a TOML or JSON file (chosen by extension; `-` reads JSON
    /// from standard input). Cannot be combined with the --a-*/--b-* flags.
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,

    /// Print the result as JSON instead of text.
    #[arg(long)]
    json: bool,

    /// The two characters, as flags (boxed: they are many and usually empty).
    #[command(flatten)]
    flags: Box<SideFlags>,
}

/// The `--a-*` and `--b-*` flags of [`Args`].
#[derive(clap::Args, Debug, Default)]
struct SideFlags {
    /// Name of character A (default "A").
    #[arg(long, value_name = "NAME")]
    a_name: Option<String>,
    /// A's current energy as ○,▨,◆ (e.g. 3,4,5); optional, enables the stance check and the
    /// wipe-out check.
    #[arg(long, value_name = "D,G,A")]
    a_energy: Option<String>,
    /// A's revealed stance, e.g. "2▨", "2 grapple" or 0 (default: no stance).
    #[arg(long, value_name = "STANCE")]
    a_stance: Option<String>,
    /// A's revealed move, e.g. "▨☰" or "grapple heaven", or "surrender".
    #[arg(long, value_name = "MOVE")]
    a_move: Option<String>,
    /// A's disadvantage chain before this turn, oldest first, comma-separated.
    #[arg(long, value_name = "MOVES")]
    a_disadvantage: Option<String>,
    /// The combo chain A is continuing against B, oldest first, comma-separated.
    #[arg(long, value_name = "MOVES")]
    a_combo: Option<String>,
    /// A's learned follow-ups of the combo chain's newest move, comma-separated.
    #[arg(long, value_name = "MOVES")]
    a_follow_ups: Option<String>,

    /// Name of character B (default "B").
    #[arg(long, value_name = "NAME")]
    b_name: Option<String>,
    /// B's current energy as ○,▨,◆ (e.g. 3,4,5); optional.
    #[arg(long, value_name = "D,G,A")]
    b_energy: Option<String>,
    /// B's revealed stance, e.g. "1○", "1 defend" or 0 (default: no stance).
    #[arg(long, value_name = "STANCE")]
    b_stance: Option<String>,
    /// B's revealed move, or "surrender".
    #[arg(long, value_name = "MOVE")]
    b_move: Option<String>,
    /// B's disadvantage chain before this turn, oldest first, comma-separated.
    #[arg(long, value_name = "MOVES")]
    b_disadvantage: Option<String>,
    /// The combo chain B is continuing against A, oldest first, comma-separated.
    #[arg(long, value_name = "MOVES")]
    b_combo: Option<String>,
    /// B's learned follow-ups of the combo chain's newest move, comma-separated.
    #[arg(long, value_name = "MOVES")]
    b_follow_ups: Option<String>,
}

/// Runs `facedown iron-triangle resolve`. Bad input is an `Err` (exit code 2 in `main`).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let turn = read_turn(&args)?;
    let report = Report::new(&turn);
    if args.json {
        let text = serde_json::to_string_pretty(&report).context("writing the JSON output")?;
        println!("{text}");
    } else {
        print!("{}", report.text());
    }
    Ok(ExitCode::SUCCESS)
}

// ---------------------------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------------------------

/// The input file: both characters of the turn.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InputFile {
    /// Free text, ignored (JSON has no comments).
    #[serde(default, rename = "comment")]
    _comment: Option<String>,
    /// Character A.
    a: SideInput,
    /// Character B.
    b: SideInput,
}

/// One character as written in a file or on the command line; parsed into [`Fighter`] with
/// error messages that name the field.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SideInput {
    name: Option<String>,
    /// Current energy ○, ▨, ◆.
    #[serde(default, deserialize_with = "energy_list")]
    energy: Option<[u8; 3]>,
    stance: Option<String>,
    #[serde(rename = "move")]
    play: String,
    #[serde(default)]
    disadvantage: Vec<String>,
    #[serde(default)]
    combo: Vec<String>,
    #[serde(default)]
    follow_ups: Vec<String>,
}

/// Which of the pair: A (position 0) or B (position 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Who {
    A,
    B,
}

impl Who {
    fn index(self) -> usize {
        match self {
            Who::A => 0,
            Who::B => 1,
        }
    }

    fn key(self) -> &'static str {
        match self {
            Who::A => "a",
            Who::B => "b",
        }
    }

    fn from_index(i: usize) -> Who {
        if i == 0 { Who::A } else { Who::B }
    }
}

/// Where the input came from, to name fields the way the user wrote them.
#[derive(Debug, Clone, Copy)]
enum Source {
    Flags,
    File,
}

impl Source {
    fn field(self, who: Who, field: &str) -> String {
        match self {
            Source::Flags => format!("--{}-{}", who.key(), field.replace('_', "-")),
            Source::File => format!("{}.{}", who.key(), field),
        }
    }
}

/// One character of the turn, parsed.
#[derive(Debug, Clone)]
struct Fighter {
    name: String,
    energy: Option<Energy>,
    stance: Stance,
    play: Play,
    disadvantage: DisadvantageChain,
    combo: Vec<Move>,
    follow_ups: MoveSet,
}

/// The whole turn, parsed and checked.
#[derive(Debug, Clone)]
struct Turn {
    fighters: [Fighter; 2],
    /// The combo chain one of the pair is continuing against the other.
    combo: Option<ComboChain>,
}

fn read_turn(args: &Args) -> anyhow::Result<Turn> {
    let (a, b, source) = match &args.input {
        Some(path) => {
            if let Some(flag) = first_side_flag(args) {
                bail!("{flag} cannot be combined with --input: give the turn either as a file or as flags");
            }
            let file = read_file(path)?;
            (file.a, file.b, Source::File)
        }
        None => (
            side_from_flags(
                Who::A,
                [
                    &args.flags.a_name,
                    &args.flags.a_energy,
                    &args.flags.a_stance,
                    &args.flags.a_move,
                    &args.flags.a_disadvantage,
                    &args.flags.a_combo,
                    &args.flags.a_follow_ups,
                ],
            )?,
            side_from_flags(
                Who::B,
                [
                    &args.flags.b_name,
                    &args.flags.b_energy,
                    &args.flags.b_stance,
                    &args.flags.b_move,
                    &args.flags.b_disadvantage,
                    &args.flags.b_combo,
                    &args.flags.b_follow_ups,
                ],
            )?,
            Source::Flags,
        ),
    };
    let fighters = [fighter(a, Who::A, source)?, fighter(b, Who::B, source)?];
    let combo = combo_chain(&fighters, source)?;
    Ok(Turn { fighters, combo })
}

fn first_side_flag(args: &Args) -> Option<&'static str> {
    [
        ("--a-name", args.flags.a_name.is_some()),
        ("--a-energy", args.flags.a_energy.is_some()),
        ("--a-stance", args.flags.a_stance.is_some()),
        ("--a-move", args.flags.a_move.is_some()),
        ("--a-disadvantage", args.flags.a_disadvantage.is_some()),
        ("--a-combo", args.flags.a_combo.is_some()),
        ("--a-follow-ups", args.flags.a_follow_ups.is_some()),
        ("--b-name", args.flags.b_name.is_some()),
        ("--b-energy", args.flags.b_energy.is_some()),
        ("--b-stance", args.flags.b_stance.is_some()),
        ("--b-move", args.flags.b_move.is_some()),
        ("--b-disadvantage", args.flags.b_disadvantage.is_some()),
        ("--b-combo", args.flags.b_combo.is_some()),
        ("--b-follow-ups", args.flags.b_follow_ups.is_some()),
    ]
    .into_iter()
    .find(|(_, given)| *given)
    .map(|(flag, _)| flag)
}

fn read_file(path: &Path) -> anyhow::Result<InputFile> {
    if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).context("reading the input from standard input")?;
        return from_json(&text, "standard input");
    }
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let shown = path.display();
    match ext.as_deref() {
        Some("toml") => {
            let text = std::fs::read_to_string(path).with_context(|| format!("reading {shown}"))?;
            toml::from_str(&text).map_err(|e| anyhow!("{shown} is not a valid resolve input (TOML): {e}"))
        }
        Some("json") => {
            let text = std::fs::read_to_string(path).with_context(|| format!("reading {shown}"))?;
            from_json(&text, &shown.to_string())
        }
        _ => bail!(
            "cannot tell the format of {shown}: name it *.toml or *.json, or use - for JSON on standard input"
        ),
    }
}

/// Reads JSON input; a failure quotes the offending line, so that it names the field even
/// where serde's message does not.
fn from_json(text: &str, shown: &str) -> anyhow::Result<InputFile> {
    serde_json::from_str(text).map_err(|e| {
        let line = text
            .lines()
            .nth(e.line().saturating_sub(1))
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| format!("\n  {} | {l}", e.line()))
            .unwrap_or_default();
        anyhow!("{shown} is not a valid resolve input (JSON): {e}{line}")
    })
}

/// Deserializes `energy` as three numbers, with a message that names the field.
fn energy_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<[u8; 3]>, D::Error> {
    use serde::de::Error as _;
    let list = Vec::<u8>::deserialize(d).map_err(|e| {
        D::Error::custom(format!(
            "energy must be three numbers 0 to 255, the current ○, ▨, ◆ energy, e.g. [3, 4, 5]: {e}"
        ))
    })?;
    <[u8; 3]>::try_from(list.as_slice()).map(Some).map_err(|_| {
        D::Error::custom(format!(
            "energy must be three numbers, the current ○, ▨, ◆ energy, e.g. [3, 4, 5], not {}",
            list.len()
        ))
    })
}

/// The flags of one side, in the order name, energy, stance, move, disadvantage, combo,
/// follow-ups.
fn side_from_flags(who: Who, flags: [&Option<String>; 7]) -> anyhow::Result<SideInput> {
    let [name, energy, stance, play, disadvantage, combo, follow_ups] = flags;
    let src = Source::Flags;
    let play = play.clone().ok_or_else(|| {
        anyhow!(
            "{} is missing: give both moves (or \"surrender\"), or use --input FILE",
            src.field(who, "move")
        )
    })?;
    let energy = match energy {
        None => None,
        Some(text) => Some(parse_energy_flag(text).map_err(|e| {
            anyhow!("{}: {e} (write the current ○,▨,◆ energy, e.g. 3,4,5)", src.field(who, "energy"))
        })?),
    };
    Ok(SideInput {
        name: name.clone(),
        energy,
        stance: stance.clone(),
        play,
        disadvantage: split_list(disadvantage),
        combo: split_list(combo),
        follow_ups: split_list(follow_ups),
    })
}

fn split_list(text: &Option<String>) -> Vec<String> {
    text.as_deref()
        .map(|t| t.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect())
        .unwrap_or_default()
}

fn parse_energy_flag(text: &str) -> Result<[u8; 3], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [d, g, a] = parts.as_slice() else {
        return Err(format!("{text:?} is not three numbers"));
    };
    let num = |s: &str| s.parse::<u8>().map_err(|_| format!("{s:?} is not an amount of energy (0 to 255)"));
    Ok([num(d)?, num(g)?, num(a)?])
}

fn parse_moves(list: &[String], field: &str) -> anyhow::Result<Vec<Move>> {
    list.iter().map(|s| s.parse::<Move>().map_err(|e| anyhow!("{field}: {e}"))).collect()
}

fn fighter(input: SideInput, who: Who, src: Source) -> anyhow::Result<Fighter> {
    let field = |f: &str| src.field(who, f);
    let name = match input.name {
        Some(n) if n.trim().is_empty() => bail!("{}: a name cannot be empty", field("name")),
        Some(n) => n.trim().to_owned(),
        None => match who {
            Who::A => "A".to_owned(),
            Who::B => "B".to_owned(),
        },
    };
    let stance: Stance = match &input.stance {
        None => Stance::NONE,
        Some(s) => s.parse().map_err(|e: String| anyhow!("{}: {e}", field("stance")))?,
    };
    let play: Play = input.play.parse().map_err(|e| anyhow!("{}: {e} (or \"surrender\")", field("move")))?;
    let energy = input.energy.map(|[d, g, a]| Energy::new(d, g, a));
    if let Some(energy) = energy {
        let current = energy.get(stance.action);
        if stance.amount > current {
            let e = RuleError::StanceAboveEnergy {
                fighter: name.clone(),
                action: stance.action,
                amount: stance.amount,
                current,
            };
            bail!("{}: {e}", field("stance"));
        }
    }
    let disadvantage =
        DisadvantageChain::from_cards(parse_moves(&input.disadvantage, &field("disadvantage"))?);
    if let Play::Move(m) = play
        && disadvantage.set().contains(m)
    {
        let e = RuleError::MoveUnavailable { fighter: name.clone(), card: m, chain: "disadvantage" };
        bail!("{}: {e}", field("move"));
    }
    let combo = parse_moves(&input.combo, &field("combo"))?;
    let follow_ups: MoveSet = parse_moves(&input.follow_ups, &field("follow_ups"))?.into_iter().collect();
    if combo.is_empty() && !follow_ups.is_empty() {
        bail!(
            "{}: follow-ups only matter when {name} continues a combo chain; give the chain in {} (oldest first) (§5.5)",
            field("follow_ups"),
            field("combo")
        );
    }
    Ok(Fighter { name, energy, stance, play, disadvantage, combo, follow_ups })
}

/// The combo chain of the turn, from whichever of the pair is continuing one.
fn combo_chain(fighters: &[Fighter; 2], src: Source) -> anyhow::Result<Option<ComboChain>> {
    match (fighters[0].combo.is_empty(), fighters[1].combo.is_empty()) {
        (true, true) => Ok(None),
        (false, false) => bail!(
            "{} and {} are both given: only one side can be continuing a combo chain, since a chain ends when its side loses or ties a turn (§5.5)",
            src.field(Who::A, "combo"),
            src.field(Who::B, "combo")
        ),
        (a_empty, _) => {
            let who = if a_empty { Who::B } else { Who::A };
            let i = who.index();
            Ok(Some(ComboChain {
                side: SideId(i as u8),
                against: FighterId(1 - i as u8),
                cards: fighters[i]
                    .combo
                    .iter()
                    .map(|&card| ComboCard { by: FighterId(i as u8), card })
                    .collect(),
            }))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Resolution
// ---------------------------------------------------------------------------------------------

/// The turn as the engine sees it: each of the pair as a [`Contender`].
fn contenders(turn: &Turn) -> [Contender; 2] {
    let contender = |i: usize| {
        let f = &turn.fighters[i];
        let combo_len = match (&turn.combo, f.play) {
            (Some(chain), Play::Move(m)) if !chain.is_empty() => {
                chain.bonus_for(SideId(i as u8), FighterId(1 - i as u8), f.follow_ups, m)
            }
            _ => 0,
        };
        Contender {
            stance: f.stance,
            play: f.play,
            disadvantage_newest: f.disadvantage.newest(),
            disadvantage_len: f.disadvantage.len(),
            combo_len,
        }
    };
    [contender(0), contender(1)]
}

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

/// The `--json` output.
#[derive(Debug, Serialize)]
struct Report {
    /// Character A.
    a: FighterReport,
    /// Character B.
    b: FighterReport,
    /// "win", "tie" or "surrender".
    outcome: &'static str,
    /// "a", "b", or null on a tie or when both surrender. A lone surrender makes the other
    /// the winner (for passing the next turn).
    winner: Option<&'static str>,
    /// The winner-order step that decided the turn.
    decided_by: Decided,
    /// One line saying who won and why.
    summary: String,
    /// Whether the winner's move continued the combo chain.
    combo_continued: bool,
    /// The chains the next turn starts with.
    next: NextReport,
}

/// One character in the `--json` output.
#[derive(Debug, Serialize)]
struct FighterReport {
    name: String,
    stance: Stance,
    /// Whether the stance counts (its type equals the move's action and the amount is > 0).
    stance_counts: bool,
    /// The move, or "surrender".
    #[serde(rename = "move")]
    play: Play,
    disadvantaged: bool,
    /// The combo bonus this move earns if it wins (the chain's length, when it is a legal
    /// follow-up).
    combo_bonus: u8,
    surrendered: bool,
    loss: LossReport,
    /// Present only when the energy was given.
    energy: Option<EnergyReport>,
}

/// A loss in the `--json` output: the engine's components plus the totals.
#[derive(Debug, Serialize)]
struct LossReport {
    #[serde(flatten)]
    parts: Loss,
    total: u32,
    /// Everything but `own_stance`, spread over the three types by the loser's controller.
    to_distribute: u32,
}

/// The energy consequences of a loss, when the energy was given.
#[derive(Debug, Serialize)]
struct EnergyReport {
    before: Energy,
    /// After the own-stance part was taken from the stance's type.
    after_stance_part: Energy,
    /// The total left after the own-stance part.
    left_after_stance_part: u32,
    /// The total left once the rest is spread (never below zero).
    left_after_loss: u32,
    /// Whether the loss takes all three types to zero (the character is out, §5.3).
    wiped_out: bool,
}

/// The chains after the turn.
#[derive(Debug, Serialize)]
struct NextReport {
    disadvantage: NextDisadvantage,
    combo: Option<NextCombo>,
}

#[derive(Debug, Serialize)]
struct NextDisadvantage {
    a: Vec<Move>,
    b: Vec<Move>,
}

#[derive(Debug, Serialize)]
struct NextCombo {
    /// "a" or "b": whose side builds the chain.
    side: &'static str,
    /// "a" or "b": the opponent it is built against.
    against: &'static str,
    /// The winning moves, oldest first.
    cards: Vec<Move>,
}

impl Report {
    fn new(turn: &Turn) -> Report {
        let pair = contenders(turn);
        let result = turn::resolve(&pair);
        let plays = [pair[0].play, pair[1].play];
        let decided = result.decided_by;
        let mut chains = [turn.fighters[0].disadvantage, turn.fighters[1].disadvantage];
        let mut combo = turn.combo.clone();
        chain::after_turn(
            &result,
            [FighterId(0), FighterId(1)],
            [SideId(0), SideId(1)],
            plays,
            &mut chains,
            &mut combo,
        );
        let surrendered = match result.outcome {
            Outcome::Surrender { surrendered } => surrendered,
            _ => [false; 2],
        };
        let fighter = |i: usize| {
            let f = &turn.fighters[i];
            let loss = result.losses[i];
            FighterReport {
                name: f.name.clone(),
                stance: f.stance,
                stance_counts: f.play.as_move().is_some_and(|m| f.stance.counts_for(m.action())),
                play: f.play,
                disadvantaged: result.disadvantaged[i],
                combo_bonus: pair[i].combo_len,
                surrendered: surrendered[i],
                loss: LossReport { parts: loss, total: loss.total(), to_distribute: loss.to_distribute() },
                energy: f.energy.map(|e| energy_report(e, &loss)),
            }
        };
        let [chain_a, chain_b] = chains;
        Report {
            a: fighter(0),
            b: fighter(1),
            outcome: match result.outcome {
                Outcome::Win { .. } => "win",
                Outcome::Tie => "tie",
                Outcome::Surrender { .. } => "surrender",
            },
            winner: result.outcome.winner().map(|w| Who::from_index(w).key()),
            decided_by: decided,
            summary: summary(turn, &result, decided),
            combo_continued: result.combo_continued,
            next: NextReport {
                disadvantage: NextDisadvantage { a: chain_a.cards().to_vec(), b: chain_b.cards().to_vec() },
                combo: combo.map(|c| NextCombo {
                    side: Who::from_index(usize::from(c.side.0)).key(),
                    against: Who::from_index(usize::from(c.against.0)).key(),
                    cards: c.cards.iter().map(|c| c.card).collect(),
                }),
            },
        }
    }

    fn fighter(&self, who: Who) -> &FighterReport {
        match who {
            Who::A => &self.a,
            Who::B => &self.b,
        }
    }

    /// The plain-text output.
    fn text(&self) -> String {
        let mut out = String::new();
        for who in [Who::A, Who::B] {
            let _ = writeln!(out, "{}", self.fighter_line(who));
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", self.summary);
        match self.outcome {
            "win" => {
                let w = if self.winner == Some("a") { Who::A } else { Who::B };
                let l = Who::from_index(1 - w.index());
                self.write_win_loss(&mut out, w, l);
                let _ = writeln!(out, "{} loses nothing.", self.fighter(w).name);
            }
            "tie" => {
                let _ = writeln!(
                    out,
                    "On a tie each loses the base of the other's move and nothing else: no stance, combo or disadvantage (§5.3)."
                );
                for who in [Who::A, Who::B] {
                    self.write_tie_loss(&mut out, who);
                }
            }
            _ => {
                for who in [Who::A, Who::B] {
                    if self.fighter(who).surrendered {
                        let _ = writeln!(out, "{} leaves the conflict.", self.fighter(who).name);
                    }
                }
                let _ = writeln!(
                    out,
                    "Nobody loses energy; no combo or disadvantage is started or extended (§5.2)."
                );
            }
        }
        let _ = writeln!(out);
        let chain = |cards: &[Move]| {
            if cards.is_empty() { "none".to_owned() } else { join(cards) }
        };
        let _ = writeln!(
            out,
            "Next disadvantage chains: {}: {}; {}: {}",
            self.a.name,
            chain(&self.next.disadvantage.a),
            self.b.name,
            chain(&self.next.disadvantage.b)
        );
        match &self.next.combo {
            Some(c) => {
                let side = if c.side == "a" { Who::A } else { Who::B };
                let against = Who::from_index(1 - side.index());
                let _ = writeln!(
                    out,
                    "Next combo chain: {} against {}: {}",
                    self.fighter(side).name,
                    self.fighter(against).name,
                    join(&c.cards)
                );
            }
            None => {
                let _ = writeln!(out, "Next combo chain: none");
            }
        }
        out
    }

    fn fighter_line(&self, who: Who) -> String {
        let f = self.fighter(who);
        let stance =
            if f.stance.amount == 0 { "no stance".to_owned() } else { format!("stance {}", f.stance) };
        let mut line = format!("{}: {stance}, plays {}", f.name, f.play);
        if f.disadvantaged {
            line.push_str(" (disadvantaged)");
        }
        if f.combo_bonus > 0 {
            let _ = write!(line, " (combo follow-up, +{} if it wins)", f.combo_bonus);
        }
        if let Some(e) = &f.energy {
            let _ = write!(line, "; energy {}", e.before);
        }
        line
    }

    fn write_win_loss(&self, out: &mut String, w: Who, l: Who) {
        let (win, lose) = (self.fighter(w), self.fighter(l));
        let loss = &lose.loss;
        let parts = &loss.parts;
        let _ = writeln!(out, "{} loses {}:", lose.name, loss.total);
        let winner_stance = match win.play.as_move() {
            Some(m) if win.stance_counts => format!(
                "{} × {} = {}   ({}'s {} with {})",
                win.stance.amount,
                m.multiplier(),
                parts.winner_stance,
                win.name,
                win.stance,
                m
            ),
            _ => format!("0   ({})", stance_note(win)),
        };
        let _ = writeln!(out, "  winner's stance  {winner_stance}");
        let own = if lose.stance_counts {
            format!("{}   ({}'s {})", parts.own_stance, lose.name, lose.stance)
        } else {
            format!("0   ({})", stance_note(lose))
        };
        let _ = writeln!(out, "  own stance       {own}");
        let _ = writeln!(out, "  base             {}   ({})", parts.base, win.play);
        let _ = writeln!(out, "  combo            +{}", parts.combo);
        let _ = writeln!(out, "  disadvantage     +{}", parts.disadvantage);
        let _ = writeln!(out, "  total            {}", loss.total);
        match parts.stance_type {
            Some(t) if parts.own_stance > 0 => {
                let _ = writeln!(
                    out,
                    "  at least {} of it from {} ({}'s stance); the rest ({}) spread as {} chooses",
                    parts.own_stance, t, lose.name, loss.to_distribute, lose.name
                );
            }
            _ => {
                let _ = writeln!(out, "  all {} spread as {} chooses", loss.to_distribute, lose.name);
            }
        }
        write_energy(out, lose, parts.stance_type);
    }

    fn write_tie_loss(&self, out: &mut String, who: Who) {
        let f = self.fighter(who);
        let other = self.fighter(Who::from_index(1 - who.index()));
        let _ = writeln!(
            out,
            "{} loses {}: base {} ({}'s {}); total {}; all {} spread as {} chooses",
            f.name,
            f.loss.total,
            f.loss.parts.base,
            other.name,
            other.play,
            f.loss.total,
            f.loss.to_distribute,
            f.name
        );
        write_energy(out, f, None);
    }
}

/// Why a stance does not count.
fn stance_note(f: &FighterReport) -> String {
    if f.stance.amount == 0 {
        format!("{} took no stance", f.name)
    } else {
        format!("{}'s {} is a feint: it played {}", f.name, f.stance, f.play)
    }
}

fn write_energy(out: &mut String, f: &FighterReport, stance_type: Option<Action>) {
    let Some(e) = &f.energy else { return };
    let rest = f.loss.to_distribute;
    let after = match stance_type {
        Some(t) if f.loss.parts.own_stance > 0 => {
            format!("the {t} part leaves {} ({} in all)", e.after_stance_part, e.left_after_stance_part)
        }
        _ => format!("{} has {} ({} in all)", f.name, e.before, e.left_after_stance_part),
    };
    if e.wiped_out {
        let _ = writeln!(
            out,
            "  {after}; the rest ({rest}) wipes it all out: {} is out of the conflict unless The Way of the Samurai is active (§5.3)",
            f.name
        );
    } else {
        let _ = writeln!(
            out,
            "  {after}; the rest ({rest}) leaves {} in all, spread as {} chooses",
            e.left_after_loss, f.name
        );
    }
}

fn energy_report(before: Energy, loss: &Loss) -> EnergyReport {
    let mut after = before;
    if let Some(t) = loss.stance_type {
        after.take(t, loss.own_stance);
    }
    let left = after.total();
    let left_after_loss = left.saturating_sub(loss.to_distribute());
    EnergyReport {
        before,
        after_stance_part: after,
        left_after_stance_part: left,
        left_after_loss,
        wiped_out: loss.total() > 0 && left_after_loss == 0,
    }
}

fn join(cards: &[Move]) -> String {
    cards.iter().map(Move::to_string).collect::<Vec<_>>().join(", ")
}

fn summary(turn: &Turn, result: &TurnResult, decided: Decided) -> String {
    let name = |i: usize| turn.fighters[i].name.as_str();
    let play = |i: usize| turn.fighters[i].play;
    match result.outcome {
        Outcome::Win { winner: w } => {
            let l = 1 - w;
            let (Some(wm), Some(lm)) = (play(w).as_move(), play(l).as_move()) else {
                return format!("{} wins", name(w));
            };
            let why = match decided {
                Decided::Action => format!("{} beats {}", wm.action(), lm.action()),
                Decided::Element => {
                    format!("same action {}, {} beats {}", wm.action(), wm.element(), lm.element())
                }
                _ => {
                    format!("{wm} against {lm}, and only {}'s move is disadvantaged (§5.2 step 4.3)", name(l))
                }
            };
            format!("{} wins: {why}", name(w))
        }
        Outcome::Tie => {
            let both = if result.disadvantaged == [true, true] { ", both disadvantaged" } else { "" };
            format!("Tie: both played {}{both}", play(0))
        }
        Outcome::Surrender { surrendered } => match result.outcome.winner() {
            Some(w) => format!(
                "{} surrenders: {} counts as the turn's winner (for passing the next turn)",
                name(1 - w),
                name(w)
            ),
            None if surrendered == [true, true] => "Both surrender".into(),
            None => "Surrender".into(),
        },
    }
}
