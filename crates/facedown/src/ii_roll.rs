//! `facedown inciting-incident roll`: the dice calculator for a physical table. It rolls (or
//! takes the totals of real dice) and applies the rules of the `inciting-incident` crate: the
//! level dice, Talent Rolls against 20, Regular and Decisive Attacks, Ability Rolls.

use std::io::Write;
use std::process::ExitCode;

use anyhow::bail;
use inciting_incident::attack::{
    ExtraHits, MAX_ADVANTAGE, decisive_flow_shift, decisive_hits, defence_value, regular_automatic,
    regular_roll,
};
use inciting_incident::character::{MAX_DICE, MAX_MODIFIER};
use inciting_incident::dice::{
    self, AdvantageRule, Pool, Roll, TARGET, ability_pool, defence_pool, level_cost, level_dice,
    success_chance, talent_pool,
};
use inciting_incident::wounds::{RestOutcome, Wounds};
use serde_json::json;

/// The engine's bounds, for clap: a count of d6 (a Resistance Difficulty, a difficulty) goes
/// from 0 to [`MAX_DICE`], as on a sheet.
fn dice_count() -> clap::builder::RangedI64ValueParser<u8> {
    clap::value_parser!(u8).range(0..=i64::from(MAX_DICE))
}

/// A flat Skill modifier goes from −[`MAX_MODIFIER`] to [`MAX_MODIFIER`], as on a sheet.
fn modifier() -> clap::builder::RangedI64ValueParser<i32> {
    clap::value_parser!(i32).range(-i64::from(MAX_MODIFIER)..=i64::from(MAX_MODIFIER))
}

/// Net Advantage goes from −[`MAX_ADVANTAGE`] to [`MAX_ADVANTAGE`], as the engine clamps it.
fn advantage() -> clap::builder::RangedI64ValueParser<i32> {
    clap::value_parser!(i32).range(-i64::from(MAX_ADVANTAGE)..=i64::from(MAX_ADVANTAGE))
}

/// Roll dice and apply the attack rules, for a table playing with real dice or none.
#[derive(clap::Args)]
#[command(after_help = "\
Without --seed the dice are seeded from the clock. Give a total you rolled with real dice \
(--result, --attack, --defence) to skip rolling. Levels go from 1 to 9 (the level table: \
facedown inciting-incident roll levels). The bounds are the engine's, as on a sheet: a \
Resistance Difficulty, a difficulty or Protection has 0 to 20 dice (MAX_DICE), a flat \
modifier goes from -100 to 100 (MAX_MODIFIER), net Advantage from -20 to 20. See \
docs/inciting-incident-play.md.")]
pub struct Args {
    #[command(subcommand)]
    what: What,
    /// Seed of the dice (for a reproducible roll).
    #[arg(long, global = true, value_name = "N")]
    seed: Option<u64>,
    /// Advantage/Disadvantage rule: extra-die (the default) or plus-minus-d6.
    #[arg(long, global = true, value_name = "RULE", default_value = "extra-die")]
    rule: String,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(clap::Subcommand)]
enum What {
    /// The level → dice → cost table, with each level's mean and chance to reach 20 alone.
    Levels,
    /// A Talent Roll (Regular Attack): level dice + modifiers + the target's RD in d6, vs 20.
    Talent {
        /// The Talent's level.
        #[arg(long)]
        level: u8,
        /// The target defence's Resistance Difficulty (d6 added), 0 to 20.
        #[arg(long, default_value_t = 0, value_parser = dice_count())]
        rd: u8,
        /// A flat Skill modifier, -100 to 100.
        #[arg(long, default_value_t = 0, allow_hyphen_values = true, value_parser = modifier())]
        modifier: i32,
        /// Net Advantage (negative for Disadvantage), -20 to 20.
        #[arg(long, default_value_t = 0, allow_hyphen_values = true, value_parser = advantage())]
        advantage: i32,
        /// The total rolled with real dice, instead of rolling.
        #[arg(long)]
        result: Option<i32>,
        /// Take the automatic success instead (Flow 4, Crisis 4).
        #[arg(long)]
        automatic: bool,
    },
    /// A Decisive Attack: attack roll against defence roll + (RV − Flow).
    Decisive {
        /// The attacker's Talent level.
        #[arg(long)]
        level: u8,
        /// The target defence's Resistance Difficulty, 0 to 20.
        #[arg(long, value_parser = dice_count())]
        rd: u8,
        /// The target defence's Resistance Value.
        #[arg(long)]
        rv: u8,
        /// The defender's Ability level for the defence roll.
        #[arg(long)]
        ability: u8,
        /// Protection dice sizes, e.g. 6 or 6,4 (at most 20 dice).
        #[arg(long, value_delimiter = ',')]
        protection: Vec<u8>,
        /// The Flow of Battle from the attacker's side (ignored with --ranged).
        #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
        flow: i32,
        /// A ranged Decisive Attack: the Talent level replaces the Flow.
        #[arg(long)]
        ranged: bool,
        /// A flat Skill modifier on the attack, -100 to 100.
        #[arg(long, default_value_t = 0, allow_hyphen_values = true, value_parser = modifier())]
        modifier: i32,
        /// Net Advantage on the attack (negative for Disadvantage), -20 to 20.
        #[arg(long, default_value_t = 0, allow_hyphen_values = true, value_parser = advantage())]
        advantage: i32,
        /// The attack total rolled with real dice.
        #[arg(long)]
        attack: Option<i32>,
        /// The defence total rolled with real dice.
        #[arg(long)]
        defence: Option<i32>,
        /// Count extra hits strictly (an excess must exceed each multiple of RV).
        #[arg(long)]
        strict: bool,
    },
    /// A Rest Scene for one character (§9): a roll removes a hit on a success; an
    /// Incapacitated character rolls daily and marks a Death Hit on a failure.
    Rest {
        /// The level rolled (Fortitude, Perseverance, or a relevant Talent).
        #[arg(long)]
        level: u8,
        /// The difficulty in d6 (4 by default), 0 to 20.
        #[arg(long, default_value_t = 4, value_parser = dice_count())]
        difficulty: u8,
        /// Hits taken now.
        #[arg(long)]
        hits: u8,
        /// Max Hits Taken.
        #[arg(long)]
        max_hits: u8,
        /// Death Hits marked so far.
        #[arg(long, default_value_t = 0)]
        death_hits: u8,
        /// The character is Incapacitated and nobody revived it.
        #[arg(long)]
        incapacitated: bool,
        /// A whole day of rest instead of a roll: removes every hit of a conscious character;
        /// an Incapacitated one gets no full-day heal and makes its daily roll instead.
        #[arg(long)]
        full_day: bool,
        /// The total rolled with real dice.
        #[arg(long)]
        result: Option<i32>,
    },
    /// An Ability Roll (rest, keep fighting, obstacles): Ability dice + difficulty d6 vs 20.
    Ability {
        /// The Ability level.
        #[arg(long)]
        level: u8,
        /// The difficulty in d6 (4 by default), 0 to 20.
        #[arg(long, default_value_t = 4, value_parser = dice_count())]
        difficulty: u8,
        /// The total rolled with real dice.
        #[arg(long)]
        result: Option<i32>,
    },
}

fn check_level(level: u8) -> anyhow::Result<()> {
    if !(1..=9).contains(&level) {
        bail!("--level {level}: levels that roll dice go from 1 to 9 (§3.1)");
    }
    Ok(())
}

fn check_ability(flag: &str, level: u8) -> anyhow::Result<()> {
    if level > dice::MAX_LEVEL {
        bail!("{flag} {level}: Ability levels go from 0 to 9 (§3.1)");
    }
    Ok(())
}

/// Runs `facedown inciting-incident roll`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let rule = match args.rule.as_str() {
        "extra-die" => AdvantageRule::ExtraDie,
        "plus-minus-d6" => AdvantageRule::PlusMinusD6,
        other => bail!("--rule {other:?}: use extra-die or plus-minus-d6 (§3.3)"),
    };
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
    });
    let mut rng = table::Draws::seeded(seed).stream();
    let mut roll_or = |given: Option<i32>, pool: &Pool, adv: i32| -> Option<Roll> {
        match given {
            Some(_) => None,
            None => Some(dice::roll(&mut rng, pool, adv, rule)),
        }
    };
    let mut out = std::io::stdout().lock();
    let value = match args.what {
        What::Levels => {
            let rows: Vec<_> = (1..=9u8)
                .map(|l| {
                    let (n, s) = level_dice(l);
                    let pool = Pool::level(l);
                    json!({"level": l, "dice": format!("{n}d{s}"), "cost": level_cost(l),
                           "mean": f64::from(n) * (f64::from(s) + 1.0) / 2.0, "p_20": success_chance(&pool)})
                })
                .collect();
            if !args.json {
                writeln!(out, "level  dice  cost  mean  P(≥20 alone)")?;
                for r in &rows {
                    writeln!(
                        out,
                        "{:>5}  {:>4}  {:>4}  {:>4.1}  {:.3}",
                        r["level"],
                        r["dice"].as_str().unwrap_or(""),
                        r["cost"],
                        r["mean"].as_f64().unwrap_or(0.0),
                        r["p_20"].as_f64().unwrap_or(0.0)
                    )?;
                }
            }
            json!({ "levels": rows })
        }
        What::Talent { level, rd, modifier, advantage, result, automatic } => {
            if automatic {
                let o = regular_automatic();
                if !args.json {
                    writeln!(
                        out,
                        "Automatic Regular Attack: Flow +{} toward the attacker, Crisis +{}.",
                        o.flow, o.crisis
                    )?;
                }
                json!({"automatic": true, "flow": o.flow, "crisis": o.crisis})
            } else {
                check_level(level)?;
                let pool = talent_pool(level, &[], modifier, rd);
                let rolled = roll_or(result, &pool, advantage);
                let total = rolled.as_ref().map_or(result.unwrap_or(0), |r| r.total);
                let o = regular_roll(total);
                let p = success_chance(&pool);
                if !args.json {
                    if let Some(r) = &rolled {
                        writeln!(out, "Talent Roll (level {level}, RD {rd}): {}", r.describe())?;
                    } else {
                        writeln!(out, "Talent Roll total: {total}")?;
                    }
                    if total >= TARGET {
                        writeln!(
                            out,
                            "Success: Flow +{} toward the attacker, Crisis +{}.",
                            o.flow, o.crisis
                        )?;
                    } else {
                        writeln!(out, "Failure: Flow unchanged, Crisis +{}.", o.crisis)?;
                    }
                    writeln!(out, "(Chance to reach 20 without Advantage: {:.1}%.)", p * 100.0)?;
                }
                json!({"roll": rolled, "total": total, "success": total >= TARGET, "flow": o.flow, "crisis": o.crisis, "p_success": p})
            }
        }
        What::Decisive {
            level,
            rd,
            rv,
            ability,
            protection,
            flow,
            ranged,
            modifier,
            advantage,
            attack,
            defence,
            strict,
        } => {
            check_level(level)?;
            check_ability("--ability", ability)?;
            if rv == 0 {
                bail!("--rv 0: a Resistance Value is at least 1 (§4.3)");
            }
            if let Some(s) = protection.iter().find(|s| !dice::valid_sides(**s)) {
                bail!("--protection {s}: dice are d4, d6, d8, d10 or d12");
            }
            if protection.len() > usize::from(MAX_DICE) {
                bail!("--protection: at most {MAX_DICE} Protection dice, as on a sheet (§4.3)");
            }
            let apool = talent_pool(level, &[], modifier, rd);
            let arolled = roll_or(attack, &apool, advantage);
            let dpool = defence_pool(ability, &protection);
            let drolled = roll_or(defence, &dpool, 0);
            let a = arolled.as_ref().map_or(attack.unwrap_or(0), |r| r.total);
            let d = drolled.as_ref().map_or(defence.unwrap_or(0), |r| r.total);
            let subtract = if ranged { i32::from(level) } else { flow };
            let dv = defence_value(i32::from(rv), subtract);
            let needed = d.saturating_add(dv);
            let rule = if strict { ExtraHits::StrictlyMore } else { ExtraHits::AtLeast };
            let hits = decisive_hits(a, d, dv, rv, rule);
            let shift = if ranged { 0 } else { decisive_flow_shift(rv) };
            if !args.json {
                match &arolled {
                    Some(r) => writeln!(out, "Attack roll: {}", r.describe())?,
                    None => writeln!(out, "Attack roll: {a}")?,
                }
                match &drolled {
                    Some(r) => writeln!(out, "Defence roll: {}", r.describe())?,
                    None => writeln!(out, "Defence roll: {d}")?,
                }
                let what = if ranged { "Talent level" } else { "Flow" };
                writeln!(out, "Defence value: RV {rv} − {what} {subtract} = {dv}; needed {needed}")?;
                if hits > 0 {
                    writeln!(out, "Hit: {hits} hit(s).")?;
                } else {
                    writeln!(out, "Miss.")?;
                }
                if ranged {
                    writeln!(out, "Crisis +2; a ranged Decisive Attack leaves the Flow alone.")?;
                } else {
                    writeln!(
                        out,
                        "Crisis +2; the Flow moves {shift} away from the attacker: {flow:+} → {:+} (attacker's view).",
                        flow.saturating_sub(shift)
                    )?;
                }
            }
            json!({"attack": arolled, "attack_total": a, "defence": drolled, "defence_total": d,
                   "defence_value": dv, "needed": needed, "hits": hits, "flow_shift": shift, "crisis": 2})
        }
        What::Rest { level, difficulty, hits, max_hits, death_hits, incapacitated, full_day, result } => {
            check_ability("--level", level)?;
            if max_hits == 0 || hits > max_hits || death_hits > max_hits {
                bail!("--hits and --death-hits go from 0 to --max-hits, which is at least 1 (§9)");
            }
            let mut w = Wounds { hits, max_hits, death_hits, incapacitated, doomed: false };
            // The rules are the crate's (§9): a dead character rolls nothing; a full day heals
            // every hit of a conscious character, while an Incapacitated one makes its daily
            // roll that day instead.
            let needs_roll = !(w.is_dead() || full_day && w.full_day_heals());
            let (rolled, total) = if needs_roll {
                let pool = ability_pool(level, difficulty);
                let rolled = roll_or(result, &pool, 0);
                let total = rolled.as_ref().map_or(result.unwrap_or(0), |r| r.total);
                (rolled, Some(total))
            } else {
                (None, None)
            };
            let success = total.is_some_and(|t| t >= TARGET);
            let outcome = if full_day { w.full_day(success) } else { w.rest(success) };
            if !args.json {
                if full_day {
                    writeln!(out, "A whole day of rest.")?;
                    if incapacitated && outcome != RestOutcome::Dead {
                        writeln!(
                            out,
                            "The full-day heal does not apply while Incapacitated (§9): the daily roll decides."
                        )?;
                    }
                }
                match (&rolled, total) {
                    (Some(r), _) => writeln!(
                        out,
                        "Rest roll (level {level}, difficulty {difficulty}d6): {}",
                        r.describe()
                    )?,
                    (None, Some(t)) => writeln!(out, "Rest roll total: {t}")?,
                    (None, None) => {}
                }
                let what = outcome.describe();
                let mut what = what.chars();
                let first = what.next().map(|c| c.to_uppercase().collect::<String>()).unwrap_or_default();
                writeln!(
                    out,
                    "{first}{}. Hits {}/{}, Death Hits {}/{}.",
                    what.as_str(),
                    w.hits,
                    w.max_hits,
                    w.death_hits,
                    w.max_hits
                )?;
            }
            json!({"roll": rolled, "total": total, "outcome": outcome, "wounds": w, "dead": w.is_dead()})
        }
        What::Ability { level, difficulty, result } => {
            check_ability("--level", level)?;
            let pool = ability_pool(level, difficulty);
            let rolled = roll_or(result, &pool, 0);
            let total = rolled.as_ref().map_or(result.unwrap_or(0), |r| r.total);
            if !args.json {
                match &rolled {
                    Some(r) => writeln!(
                        out,
                        "Ability Roll (level {level}, difficulty {difficulty}d6): {}",
                        r.describe()
                    )?,
                    None => writeln!(out, "Ability Roll total: {total}")?,
                }
                writeln!(out, "{}", if total >= TARGET { "Success." } else { "Failure." })?;
            }
            json!({"roll": rolled, "total": total, "success": total >= TARGET, "p_success": success_chance(&pool)})
        }
    };
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&value)?)?;
    }
    Ok(ExitCode::SUCCESS)
}
