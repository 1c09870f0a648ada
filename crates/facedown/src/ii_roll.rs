//! `facedown inciting-incident roll`: the dice calculator for a physical table. Every rule is
//! the `inciting-incident` crate's: [`calculator::compute`] checks the request, rolls (or takes
//! the totals of real dice) and applies the level dice, Talent Rolls against 20, Regular and
//! Decisive Attacks, Rest Scenes and Ability Rolls. This module reads the flags, seeds the dice
//! and prints the [`Answer`].

use std::io::Write;
use std::process::ExitCode;

use anyhow::bail;
use inciting_incident::attack::{ExtraHits, MAX_ADVANTAGE};
use inciting_incident::calculator::{self, Answer, Request};
use inciting_incident::character::{MAX_DICE, MAX_MODIFIER};
use inciting_incident::dice::AdvantageRule;
use inciting_incident::wounds::{RestOutcome, Wounds};

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
    /// A Rest Scene for one character: a roll removes a hit on a success; an
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
        /// The character is Incapacitated and nobody revived it. At Max Hits a character is
        /// Incapacitated unless it was revived: pass this or --revived.
        #[arg(long)]
        incapacitated: bool,
        /// A healing Skill revived the character: no longer Incapacitated, even at Max Hits.
        #[arg(long)]
        revived: bool,
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

/// The request the flags describe.
fn request(what: What) -> Request {
    match what {
        What::Levels => Request::Levels,
        What::Talent { level, rd, modifier, advantage, result, automatic } => {
            Request::Talent { level, rd, modifier, advantage, result, automatic }
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
        } => Request::Decisive {
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
            extra_hits: if strict { ExtraHits::StrictlyMore } else { ExtraHits::AtLeast },
        },
        What::Rest {
            level,
            difficulty,
            hits,
            max_hits,
            death_hits,
            incapacitated,
            revived,
            full_day,
            result,
        } => Request::Rest {
            level,
            difficulty,
            wounds: Wounds { hits, max_hits, death_hits, incapacitated, doomed: false },
            revived,
            full_day,
            result,
        },
        What::Ability { level, difficulty, result } => Request::Ability { level, difficulty, result },
    }
}

/// Runs `facedown inciting-incident roll`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let rule = match args.rule.as_str() {
        "extra-die" => AdvantageRule::ExtraDie,
        "plus-minus-d6" => AdvantageRule::PlusMinusD6,
        other => bail!("--rule {other:?}: use extra-die or plus-minus-d6"),
    };
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
    });
    let mut rng = table::Draws::seeded(seed).stream();
    let request = request(args.what);
    let answer = calculator::compute(&request, rule, &mut rng)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&answer)?)?;
    } else {
        write!(out, "{}", text(&request, &answer))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The plain-text rendering of an answer.
fn text(request: &Request, answer: &Answer) -> String {
    let mut s = String::new();
    let mut line = |l: String| {
        s.push_str(&l);
        s.push('\n');
    };
    match (request, answer) {
        (_, Answer::Levels { levels }) => {
            line("level  dice  cost  mean  P(≥20 alone)".to_owned());
            for r in levels {
                line(format!("{:>5}  {:>4}  {:>4}  {:>4.1}  {:.3}", r.level, r.dice, r.cost, r.mean, r.p_20));
            }
        }
        (_, Answer::Automatic { flow, crisis, .. }) => {
            line(format!("Automatic Regular Attack: Flow +{flow} toward the attacker, Crisis +{crisis}."));
        }
        (
            Request::Talent { level, rd, .. },
            Answer::Talent { roll, total, success, flow, crisis, p_success },
        ) => {
            match roll {
                Some(r) => line(format!("Talent Roll (level {level}, RD {rd}): {}", r.describe())),
                None => line(format!("Talent Roll total: {total}")),
            }
            if *success {
                line(format!("Success: Flow +{flow} toward the attacker, Crisis +{crisis}."));
            } else {
                line(format!("Failure: Flow unchanged, Crisis +{crisis}."));
            }
            line(format!("(Chance to reach 20 without Advantage: {:.1}%.)", p_success * 100.0));
        }
        (
            Request::Decisive { rv, flow, ranged, .. },
            Answer::Decisive {
                attack,
                attack_total,
                defence,
                defence_total,
                defence_value,
                needed,
                hits,
                flow_shift,
                crisis,
                subtracted,
                flow_after,
            },
        ) => {
            match attack {
                Some(r) => line(format!("Attack roll: {}", r.describe())),
                None => line(format!("Attack roll: {attack_total}")),
            }
            match defence {
                Some(r) => line(format!("Defence roll: {}", r.describe())),
                None => line(format!("Defence roll: {defence_total}")),
            }
            let what = if *ranged { "Talent level" } else { "Flow" };
            line(format!("Defence value: RV {rv} − {what} {subtracted} = {defence_value}; needed {needed}"));
            line(if *hits > 0 { format!("Hit: {hits} hit(s).") } else { "Miss.".to_owned() });
            if *ranged {
                line(format!("Crisis +{crisis}; a ranged Decisive Attack leaves the Flow alone."));
            } else {
                line(format!(
                    "Crisis +{crisis}; the Flow moves {flow_shift} away from the attacker: {flow:+} → {flow_after:+} (attacker's view)."
                ));
            }
        }
        (
            Request::Rest { level, difficulty, wounds: before, full_day, .. },
            Answer::Rest { roll, total, outcome, wounds: w, .. },
        ) => {
            if *full_day {
                line("A whole day of rest.".to_owned());
                if before.incapacitated && *outcome != RestOutcome::Dead {
                    line(
                        "The full-day heal does not apply while Incapacitated: the daily roll decides."
                            .to_owned(),
                    );
                }
            }
            match (roll, total) {
                (Some(r), _) => {
                    line(format!("Rest roll (level {level}, difficulty {difficulty}d6): {}", r.describe()))
                }
                (None, Some(t)) => line(format!("Rest roll total: {t}")),
                (None, None) => {}
            }
            let what = outcome.describe();
            let mut what = what.chars();
            let first = what.next().map(|c| c.to_uppercase().collect::<String>()).unwrap_or_default();
            line(format!(
                "{first}{}. Hits {}/{}, Death Hits {}/{}.",
                what.as_str(),
                w.hits,
                w.max_hits,
                w.death_hits,
                w.max_hits
            ));
        }
        (Request::Ability { level, difficulty, .. }, Answer::Ability { roll, total, success, .. }) => {
            match roll {
                Some(r) => {
                    line(format!("Ability Roll (level {level}, difficulty {difficulty}d6): {}", r.describe()))
                }
                None => line(format!("Ability Roll total: {total}")),
            }
            line(if *success { "Success." } else { "Failure." }.to_owned());
        }
        _ => {}
    }
    s
}
