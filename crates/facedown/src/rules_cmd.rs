//! `facedown iron-triangle rules`, `facedown nodice rules`, `facedown inciting-incident rules`:
//! print a system's quick reference — the steps in brief and a legend of every symbol its log
//! and prompts use. The text is the ruleset's own ([`table::Ruleset::quick_reference`]); this
//! shell only prints it.

use std::process::ExitCode;

use table::Ruleset;

/// Options of a `rules` subcommand.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print JSON: {"ruleset": NAME, "reference": TEXT}.
    #[arg(long)]
    pub json: bool,
}

/// Prints `R`'s quick reference, as text or, with `--json`, as a JSON object.
pub fn run<R: Ruleset>(args: Args) -> anyhow::Result<ExitCode> {
    let reference = R::quick_reference();
    if args.json {
        println!("{}", serde_json::json!({ "ruleset": R::NAME, "reference": reference }));
    } else {
        print!("{reference}");
    }
    Ok(ExitCode::SUCCESS)
}
