//! `facedown verify LOG`: checks a table's verifiable log (docs/fairness.md §7), as
//! `GET /api/tables/{table}/log?format=fair` serves it — the chain, every reveal against its
//! commitment, the revealed server seed against its commitment, every draw re-derived — and
//! names the first entry at fault. With `--replay`, the rules are replayed from a finished
//! game's revealed setup, seeds and record (docs/fairness.md §7.3). The checks are
//! `session::fairlog::verify`'s and `session::replay::replay`'s; this shell reads the file,
//! picks the system's rules and prints.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use session::replay::ReplayError;
use table::Ruleset;

/// Options of `facedown verify`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The verifiable log: JSON Lines, one `{"entry":…,"hash":"…"}` a line (`-` reads stdin).
    pub log: PathBuf,
    /// Print JSON: the report, or {"ok": false, "entry": N, "reason": TEXT} (`entry` null when
    /// the log cannot be replayed yet).
    #[arg(long)]
    pub json: bool,
    /// Replay the rules too, from the setup, server seeds and record a finished game's log
    /// reveals at its end: every opened choice was legal and is the record's command of its
    /// round, every event is the rules' event as this log's viewer is shown it, every draw is
    /// the rules' draw, and no choice was revealed late (docs/fairness.md, "Replaying the rules"). A log of a game
    /// not over yet cannot be replayed (exit status 2).
    #[arg(long)]
    pub replay: bool,
}

/// The system a log's table entry names, read without checking anything else.
fn system_of(text: &str) -> Option<String> {
    let first: serde_json::Value = serde_json::from_str(text.lines().next()?).ok()?;
    first["entry"]["system"].as_str().map(str::to_owned)
}

/// Checks the log; exit status 0 when it verifies, 2 naming the first bad entry otherwise.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let text = if args.log.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin()).context("reading the log from stdin")?
    } else {
        std::fs::read_to_string(&args.log).with_context(|| format!("reading {}", args.log.display()))?
    };
    if args.replay {
        return replay(&text, args.json);
    }
    match session::fairlog::verify(&text) {
        Ok(report) => {
            if args.json {
                let mut value = serde_json::to_value(&report)?;
                value["ok"] = serde_json::Value::Bool(true);
                println!("{value}");
            } else {
                println!("{report}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            if args.json {
                println!("{}", serde_json::json!({"ok": false, "entry": e.entry, "reason": e.reason}));
            } else {
                println!("bad: {e}");
            }
            Ok(ExitCode::from(2))
        }
    }
}

/// `--replay`: the rules of the system the log names.
fn replay(text: &str, json: bool) -> anyhow::Result<ExitCode> {
    let verdict = match system_of(text).as_deref() {
        Some(iron_triangle::IronTriangle::NAME) => {
            session::replay::replay::<iron_triangle::IronTriangle>(text)
        }
        Some(nodice::NoDice::NAME) => session::replay::replay::<nodice::NoDice>(text),
        Some(inciting_incident::IncitingIncident::NAME) => {
            session::replay::replay::<inciting_incident::IncitingIncident>(text)
        }
        // Not a log these rules know: the fairness checks name what is wrong with its first
        // entry, or say which system it is.
        other => match session::fairlog::verify(text) {
            Err(e) => Err(ReplayError::Bad(e)),
            Ok(_) => Err(ReplayError::Unsupported(format!(
                "the log is of the system {other:?}, whose rules this program does not have"
            ))),
        },
    };
    match verdict {
        Ok(report) => {
            if json {
                let mut value = serde_json::to_value(&report.log)?;
                value["ok"] = serde_json::Value::Bool(true);
                value["replay"] = serde_json::json!({
                    "commands": report.commands,
                    "events": report.events,
                    "draws": report.draws,
                    "opened": report.opened,
                    "viewers": report.viewers,
                    "not_replayed": report.not_replayed,
                });
                println!("{value}");
            } else {
                println!("{report}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(ReplayError::Bad(e)) => {
            if json {
                println!("{}", serde_json::json!({"ok": false, "entry": e.entry, "reason": e.reason}));
            } else {
                println!("bad: {e}");
            }
            Ok(ExitCode::from(2))
        }
        Err(e) => {
            if json {
                println!("{}", serde_json::json!({"ok": false, "entry": null, "reason": e.to_string()}));
            } else {
                println!("{e}");
            }
            Ok(ExitCode::from(2))
        }
    }
}
