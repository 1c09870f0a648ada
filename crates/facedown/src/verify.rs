//! `facedown verify LOG`: checks a table's verifiable log (docs/fairness.md §7), as
//! `GET /api/tables/{table}/log?format=fair` serves it — the chain, every reveal against its
//! commitment, the revealed server seed against its commitment, every draw re-derived — and
//! names the first entry at fault. The checks are `session::fairlog::verify`'s; this shell
//! reads the file and prints.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

/// Options of `facedown verify`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The verifiable log: JSON Lines, one `{"entry":…,"hash":"…"}` a line (`-` reads stdin).
    pub log: PathBuf,
    /// Print JSON: the report, or {"ok": false, "entry": N, "reason": TEXT}.
    #[arg(long)]
    pub json: bool,
}

/// Checks the log; exit status 0 when it verifies, 2 naming the first bad entry otherwise.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let text = if args.log.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin()).context("reading the log from stdin")?
    } else {
        std::fs::read_to_string(&args.log).with_context(|| format!("reading {}", args.log.display()))?
    };
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
