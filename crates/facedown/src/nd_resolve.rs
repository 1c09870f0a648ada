//! `facedown nodice resolve`: a referee calculator for one No Dice Hand played with real
//! cards.
//!
//! Given each Actor's revealed Action card (its Attribute fixes the Aspect card), bid,
//! Wildcard and target(s), it prints every engaged pair's Trine and Attribute Dominance,
//! Sweep and Showdown Totals, each Actor's Dominance wins (the pot's leaders and the next
//! UTG), and the Actions in Action Priority order with their damage. Every rule comes from
//! the `nodice` crate ([`nodice::hand::resolve`], [`nodice::damage`]); this module only reads
//! input and writes output. Formats: `docs/nodice-play.md` (section "resolve").

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use nodice::referee::{self, ActorPlay, HandSheet, Report, UtgWhy};
use nodice::rules::Void;
use nodice::{Aspect, Attribute, Kind, StakesFormula};

/// Arguments of `facedown nodice resolve`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
An Actor is written NAME: ATTRIBUTE BID [wildcard] [damage ASPECT] [-> TARGET,TARGET], e.g.
  --actor \"Kara: str 4 wildcard -> Bandit\" --actor \"Bandit: pre 3 -> Kara\"
Actors are listed in commit order from UTG. With two Actors the target may be left out. \
Give --stakes, or every Actor's serial (--serial NAME=SERIAL) to compute it. See \
docs/nodice-play.md for the --input file and the --json output.")]
pub struct Args {
    /// Read the Hand from a TOML or JSON file (`-` reads JSON from standard input).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["actors", "serials"])]
    input: Option<PathBuf>,
    /// One Actor's revealed play (repeatable, in commit order from UTG).
    #[arg(long = "actor", value_name = "SPEC")]
    actors: Vec<String>,
    /// An Actor's serial: NAME=SERIAL (repeatable), full or a Thing's shortened form
    /// (`Door=FIT-1`). Checks the bid cap and applies the partial-Aspect damage table.
    #[arg(long = "serial", value_name = "NAME=SERIAL")]
    serials: Vec<String>,
    /// The Conflict's Stakes, 1–5 (default: from the highest Rank of the serials).
    #[arg(long, value_name = "1-5")]
    stakes: Option<u8>,
    /// The Sweep bonus (default: the Stakes).
    #[arg(long, value_name = "N")]
    sweep_bonus: Option<u16>,
    /// Tokens in the pot (antes plus the Jackpot): prints how many each leader receives.
    #[arg(long, value_name = "N")]
    pot: Option<u16>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

fn parse_spec(spec: &str) -> anyhow::Result<ActorPlay> {
    let bad =
        || format!("--actor {spec:?}: write NAME: ATTRIBUTE BID [wildcard] [damage ASPECT] [-> TARGETS]");
    let (name, rest) = spec.split_once(':').with_context(bad)?;
    let (play, targets) = match rest.split_once("->") {
        Some((p, t)) => (p, t.split(',').map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()).collect()),
        None => (rest, Vec::new()),
    };
    let words: Vec<&str> = play.split_whitespace().collect();
    let [attr, bid, more @ ..] = words.as_slice() else { bail!(bad()) };
    let attribute: Attribute = attr.parse().with_context(bad)?;
    let bid: u16 =
        bid.parse().with_context(|| format!("--actor {spec:?}: the bid {bid:?} is not a number"))?;
    let (mut wildcard, mut damage_aspect) = (false, None);
    let mut it = more.iter();
    while let Some(w) = it.next() {
        match w.to_ascii_lowercase().as_str() {
            "wildcard" | "wc" => wildcard = true,
            "damage" => {
                let x = it.next().with_context(bad)?;
                damage_aspect = Some(x.parse::<Aspect>().with_context(bad)?);
            }
            _ => bail!(bad()),
        }
    }
    Ok(ActorPlay {
        name: name.trim().to_owned(),
        attribute,
        bid,
        wildcard,
        targets,
        serial: None,
        kind: damage_aspect.map(|_| Kind::Abstract),
        wildcards: None,
        values: None,
        damage_aspect,
        damage: None,
    })
}

fn read_file(path: &Path) -> anyhow::Result<HandSheet> {
    if path.as_os_str() == "-" {
        let s = crate::input::read_stdin_bounded(crate::input::TEXT_LIMIT)
            .context("cannot read standard input")?;
        return serde_json::from_str(&s).context("standard input is not a JSON Hand");
    }
    let text = crate::input::read_bounded(path, crate::input::TEXT_LIMIT)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if path.extension().is_some_and(|e| e == "json") {
        serde_json::from_str(&text).with_context(|| format!("{} is not a Hand file", path.display()))
    } else {
        toml::from_str(&text).with_context(|| format!("{} is not a Hand file", path.display()))
    }
}

fn text(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Stakes {} ({}); Sweep bonus {}.", r.stakes, r.stakes_name, r.sweep_bonus);
    for p in &r.pairs {
        let or_tie = |w: &Option<String>| w.clone().unwrap_or_else(|| "tie".to_owned());
        let _ = writeln!(s, "\n{} vs {}", p.actors[0], p.actors[1]);
        let _ = writeln!(s, "  Trine Dominance: {}", or_tie(&p.trine));
        let _ = writeln!(s, "  Attribute Dominance: {}", or_tie(&p.attribute));
        if let Some(w) = &p.sweep {
            let _ = writeln!(s, "  Sweep: {w}");
        }
        let _ = writeln!(
            s,
            "  Showdown Totals: {} {}, {} {}",
            p.actors[0], p.totals[0], p.actors[1], p.totals[1]
        );
    }
    let _ = writeln!(s, "\nDominance wins:");
    for w in &r.wins {
        let _ = writeln!(s, "  {}: {} (TD {}, AD {})", w.actor, w.trine + w.attribute, w.trine, w.attribute);
    }
    match r.pot_leaders.as_slice() {
        [] => {
            let _ = writeln!(s, "Pot: nobody won Trine Dominance; the whole pot becomes the Jackpot.");
        }
        leaders => {
            let _ =
                writeln!(s, "Pot: paid token by token, drawn blind, round-robin to {}.", leaders.join(", "));
            if let Some(shares) = &r.pot_shares {
                let shares: Vec<String> = shares.iter().map(|(n, k)| format!("{n} {k}")).collect();
                let _ = writeln!(s, "  Tokens: {}.", shares.join(", "));
            }
        }
    }
    if let Some(u) = &r.next_utg {
        let why = match &r.utg_why {
            UtgWhy::MostWins => "most Dominance wins".to_owned(),
            UtgWhy::Tie => "tie for most Dominance wins: UTG stays".to_owned(),
            UtgWhy::TieUtgOut { out } => {
                format!("tie for most Dominance wins: UTG would stay, but {out} is out, so it passes on")
            }
            UtgWhy::LeaderOut { leader } => {
                format!(
                    "{leader} had the most Dominance wins but is eliminated: most wins among those still in"
                )
            }
            UtgWhy::LeaderOutTie { leader, stays: true } => format!(
                "{leader} had the most Dominance wins but is eliminated; those still in tie for the most: UTG stays"
            ),
            UtgWhy::LeaderOutTie { leader, stays: false } => format!(
                "{leader} had the most Dominance wins but is eliminated; those still in tie for the most: the first of them in commit order"
            ),
        };
        let _ = writeln!(s, "Next UTG: {u} ({why}).");
    }
    let _ = writeln!(s, "\nAction Priority (lowest bid first):");
    for (i, k) in r.strikes.iter().enumerate() {
        let head = format!("  {}. {} → {} (priority {}):", i + 1, k.attacker, k.target, k.priority);
        match k.void {
            Some(Void::AttackerOut) => {
                let _ = writeln!(s, "{head} nothing: {} is eliminated before its turn.", k.attacker);
                continue;
            }
            Some(Void::TargetOut) => {
                let _ = writeln!(s, "{head} nothing: {} is already eliminated.", k.target);
                continue;
            }
            None => {}
        }
        let how = if k.unopposed { ", first and unopposed (whole total)" } else { "" };
        let through = match k.damage_through {
            Some(d) if d != k.damage => format!(" ({d} through {}'s partial {})", k.target, k.aspect),
            _ => String::new(),
        };
        let out = if k.eliminates { format!("; {} is eliminated", k.target) } else { String::new() };
        let _ = writeln!(s, "{head} {} {} damage{how}{through}{out}", k.damage, k.aspect);
    }
    s
}

/// Runs `facedown nodice resolve`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut file = match &args.input {
        Some(path) => read_file(path)?,
        None => {
            if args.actors.is_empty() {
                bail!("give the Actors with --actor (at least two) or a file with --input; see --help");
            }
            let actors = args.actors.iter().map(|s| parse_spec(s)).collect::<anyhow::Result<Vec<_>>>()?;
            HandSheet {
                stakes: None,
                sweep_bonus: None,
                stakes_formula: StakesFormula::Seed,
                pot: None,
                actors,
            }
        }
    };
    for spec in &args.serials {
        let (name, serial) =
            spec.split_once('=').with_context(|| format!("--serial {spec:?}: write NAME=SERIAL"))?;
        let a = file
            .actors
            .iter_mut()
            .find(|a| a.name.eq_ignore_ascii_case(name.trim()))
            .with_context(|| format!("--serial {spec:?}: no Actor named {name:?}"))?;
        a.serial = Some(serial.trim().to_owned());
    }
    if args.stakes.is_some() {
        file.stakes = args.stakes;
    }
    if args.sweep_bonus.is_some() {
        file.sweep_bonus = args.sweep_bonus;
    }
    if args.pot.is_some() {
        file.pot = args.pot;
    }
    if !args.json {
        // Names from a file or a flag reach the terminal with control characters escaped (the
        // same escaping on both sides, so targets still name their Actors).
        let e = |n: &mut String| *n = crate::input::escape(n).into_owned();
        for a in &mut file.actors {
            e(&mut a.name);
            a.targets.iter_mut().for_each(e);
        }
    }
    let report = referee::compute(&file)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        write!(out, "{}", text(&report))?;
    }
    Ok(ExitCode::SUCCESS)
}
