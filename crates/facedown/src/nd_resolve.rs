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
use nodice::damage::through_partial_aspect;
use nodice::hand::{self, Play, Showdown};
use nodice::{
    ActorId, Aspect, Attribute, DamageAbility, Dominance, Ext, Extensions, Kind, Stakes, StakesFormula,
    Statblock, Targets,
};
use serde::{Deserialize, Serialize};

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

/// A Hand file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HandFile {
    #[serde(default)]
    stakes: Option<u8>,
    #[serde(default)]
    sweep_bonus: Option<u16>,
    #[serde(default)]
    stakes_formula: StakesFormula,
    #[serde(default)]
    pot: Option<u16>,
    actors: Vec<ActorPlay>,
}

/// One Actor's revealed play.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ActorPlay {
    name: String,
    attribute: Attribute,
    #[serde(default)]
    bid: u16,
    #[serde(default)]
    wildcard: bool,
    #[serde(default)]
    targets: Vec<String>,
    #[serde(default)]
    serial: Option<String>,
    #[serde(default)]
    kind: Option<Kind>,
    #[serde(default)]
    damage_aspect: Option<Aspect>,
    #[serde(default)]
    damage: Option<DamageSpec>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct DamageSpec {
    points: u16,
    #[serde(default)]
    aspect: Option<Aspect>,
}

/// The calculator's answer (the `--json` output).
#[derive(Debug, Serialize)]
struct Report {
    stakes: u16,
    stakes_name: &'static str,
    sweep_bonus: u16,
    pairs: Vec<PairReport>,
    wins: Vec<WinsReport>,
    pot_leaders: Vec<String>,
    /// Tokens each leader receives, round-robin from UTG, when the pot's size is given.
    pot_shares: Option<Vec<(String, u16)>>,
    next_utg: Option<String>,
    strikes: Vec<StrikeReport>,
}

#[derive(Debug, Serialize)]
struct PairReport {
    actors: [String; 2],
    trine: Option<String>,
    attribute: Option<String>,
    sweep: Option<String>,
    totals: [u16; 2],
}

#[derive(Debug, Serialize)]
struct WinsReport {
    actor: String,
    trine: u8,
    attribute: u8,
}

#[derive(Debug, Serialize)]
struct StrikeReport {
    attacker: String,
    target: String,
    aspect: Aspect,
    priority: u32,
    unopposed: bool,
    damage: u16,
    /// After the target's partial-Aspect reduction, when its serial is known.
    damage_through: Option<u16>,
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
        damage_aspect,
        damage: None,
    })
}

fn read_file(path: &Path) -> anyhow::Result<HandFile> {
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

fn compute(file: HandFile) -> anyhow::Result<Report> {
    let n = file.actors.len();
    if n < 2 {
        bail!("a Hand needs at least two Actors");
    }
    if n > hand::MAX_ACTORS {
        bail!("at most {} Actors", hand::MAX_ACTORS);
    }
    let find = |name: &str| file.actors.iter().position(|a| a.name.eq_ignore_ascii_case(name.trim()));
    let mut blocks: Vec<Option<Statblock>> = Vec::new();
    for (i, a) in file.actors.iter().enumerate() {
        if file.actors[..i].iter().any(|b| b.name.eq_ignore_ascii_case(&a.name)) {
            bail!("two Actors are named {:?}", a.name);
        }
        let block = a
            .serial
            .as_deref()
            .map(|s| s.parse::<Statblock>().with_context(|| format!("{}'s serial {s:?}", a.name)))
            .transpose()?;
        if a.bid > u16::from(nodice::actor::MAX_AV) {
            bail!(
                "{}'s bid of {} is over 100: a bid never exceeds the Trine Score, and no Trine Score is over 100 (seed: Step 3, Bid Cap; §3.2)",
                a.name,
                a.bid
            );
        }
        if let Some(b) = &block {
            if !b.possesses(a.attribute) {
                bail!("{} does not possess {} (-)", a.name, a.attribute);
            }
            let cap = b.trine_score(a.attribute.aspect()).unwrap_or(0);
            if a.bid > cap {
                bail!(
                    "{}'s bid of {} is over the cap of {cap}, the Trine Score of {} (seed: Step 3, Bid Cap)",
                    a.name,
                    a.bid,
                    a.attribute.aspect()
                );
            }
        }
        if a.damage_aspect.is_some_and(|d| d != a.attribute.aspect()) && a.kind != Some(Kind::Abstract) {
            bail!(
                "{}: only abstract Actors (kind = \"abstract\") choose the Aspect their damage hurts",
                a.name
            );
        }
        blocks.push(block);
    }
    let stakes = match file.stakes {
        Some(s) => Stakes::new(s)?,
        None => {
            if blocks.iter().any(Option::is_none) {
                bail!("give the Stakes (--stakes 1-5), or every Actor's serial to compute them");
            }
            let highest = blocks.iter().flatten().map(Statblock::rank).max().unwrap_or(1);
            Stakes::from_rank(highest, file.stakes_formula)
        }
    };
    let sweep_bonus = file.sweep_bonus.unwrap_or(stakes.value());
    let mut plays = Vec::new();
    let mut exts = Vec::new();
    for (i, a) in file.actors.iter().enumerate() {
        let mut targets = Targets::NONE;
        for t in &a.targets {
            let j =
                find(t).with_context(|| format!("{}'s target {t:?} is not an Actor of this Hand", a.name))?;
            if j == i {
                bail!("{} cannot target itself", a.name);
            }
            targets = targets.with(ActorId(j as u8));
        }
        if targets.is_empty() {
            if n == 2 {
                targets = Targets::one(ActorId(1 - i as u8));
            } else {
                bail!("{}: name its target(s) with -> TARGET", a.name);
            }
        }
        if let Some(d) = a.damage {
            exts.push(Ext::DamageAbility(DamageAbility {
                actor: ActorId(i as u8),
                points: d.points,
                aspect: d.aspect,
            }));
        }
        plays.push(Play {
            actor: ActorId(i as u8),
            aspect: a.attribute.aspect(),
            attribute: a.attribute,
            bid: a.bid,
            wildcard: a.wildcard,
            targets,
            damage_aspect: a.damage_aspect.unwrap_or(a.attribute.aspect()),
        });
    }
    let ext = Extensions::new(exts);
    let aspects: Vec<_> = plays.iter().map(|p| (p.actor, p.aspect, p.targets)).collect();
    let trine = hand::trine_wins(&aspects, &ext);
    let mut sd = Showdown::default();
    hand::resolve(&plays, stakes, sweep_bonus, &ext, &mut sd);
    let name = |id: ActorId| file.actors[id.index()].name.clone();
    let pairs = sd
        .pairs
        .iter()
        .map(|p| {
            let [x, y] = p.actors;
            let who = |d: Dominance| match d {
                Dominance::Win => Some(name(x)),
                Dominance::Loss => Some(name(y)),
                Dominance::Tie => None,
            };
            PairReport {
                actors: [name(x), name(y)],
                trine: who(p.trine),
                attribute: who(p.attribute),
                sweep: match p.sweep {
                    [true, _] => Some(name(x)),
                    [_, true] => Some(name(y)),
                    _ => None,
                },
                totals: p.totals,
            }
        })
        .collect();
    let wins: Vec<WinsReport> = (0..n)
        .map(|i| WinsReport {
            actor: file.actors[i].name.clone(),
            trine: trine[i],
            attribute: sd.attribute_wins[i],
        })
        .collect();
    let best_td = trine[..n].iter().copied().max().unwrap_or(0);
    let pot_leaders = if best_td == 0 {
        vec![]
    } else {
        (0..n).filter(|&i| trine[i] == best_td).map(|i| name(ActorId(i as u8))).collect()
    };
    // Seed: Pay the Ante Pot — round-robin among the tied leaders, in commit order from UTG,
    // until the pot is empty.
    let pot_shares = file.pot.filter(|_| !pot_leaders.is_empty()).map(|pot| {
        let k = pot_leaders.len() as u16;
        pot_leaders
            .iter()
            .enumerate()
            .map(|(i, l)| (l.clone(), pot / k + u16::from((i as u16) < pot % k)))
            .collect()
    });
    let total = |w: &WinsReport| u16::from(w.trine) + u16::from(w.attribute);
    let best = wins.iter().map(total).max().unwrap_or(0);
    let leaders: Vec<&WinsReport> = wins.iter().filter(|w| total(w) == best).collect();
    let next_utg = (leaders.len() == 1).then(|| leaders[0].actor.clone());
    let strikes = sd
        .strikes
        .iter()
        .map(|s| StrikeReport {
            attacker: name(s.attacker),
            target: name(s.target),
            aspect: s.aspect,
            priority: s.priority,
            unopposed: s.unopposed,
            damage: s.damage,
            damage_through: blocks[s.target.index()].as_ref().map(|b| {
                let possessed = s.aspect.attributes().iter().filter(|&&a| b.possesses(a)).count();
                through_partial_aspect(s.damage, possessed)
            }),
        })
        .collect();
    Ok(Report {
        stakes: stakes.value(),
        stakes_name: stakes.name(),
        sweep_bonus,
        pairs,
        wins,
        pot_leaders,
        pot_shares,
        next_utg,
        strikes,
    })
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
    match &r.next_utg {
        Some(u) => {
            let _ = writeln!(s, "Next UTG: {u} (most Dominance wins).");
        }
        None => {
            let _ = writeln!(s, "Next UTG: unchanged (tie for most Dominance wins).");
        }
    }
    let _ = writeln!(s, "\nAction Priority (lowest bid first):");
    for (i, k) in r.strikes.iter().enumerate() {
        let how = if k.unopposed { ", first and unopposed (whole total)" } else { "" };
        let through = match k.damage_through {
            Some(d) if d != k.damage => format!(" ({d} through {}'s partial {})", k.target, k.aspect),
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "  {}. {} → {} (priority {}): {} {} damage{how}{through}",
            i + 1,
            k.attacker,
            k.target,
            k.priority,
            k.damage,
            k.aspect
        );
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
            HandFile {
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
    let report = compute(file)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        write!(out, "{}", text(&report))?;
    }
    Ok(ExitCode::SUCCESS)
}
