//! `facedown nodice play`: the per-system part of the play loop for No Dice — the conflict
//! file (with its actor files, Inherits and engagement), the bot kinds, `--max-hands`, the
//! names a script may use, and the views in words.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use nodice::{Command, Conflict, NoDice};
use serde_json::Value;
use table::{Role, Ruleset, SeatId, Viewer};

use super::{Common, Limits, Start, System, nd_render, nd_setup};

/// Play a No Dice Conflict: hot-seat at one keyboard, against bots, or from a script.
#[derive(clap::Args)]
#[command(after_help = "\
Seats are people at this keyboard unless --bot or --script says otherwise. Each seat is shown \
its question and numbered choices: type a number or the choice's words. Face-down choices are \
typed without echo. At any prompt: `?` shows the quick reference; a command may be typed as \
JSON, names allowed (a justification line {\"justify\": …}, the GM's engagement \
{\"engage\": …} or adjustment {\"adjust\": …}); the GM may type `undo`; `back` takes back your \
face-down choice. Bot kinds: random (never withdraws while it can ante), greedy (the Aspect, \
Action and bid with the best expected damage this Hand). See docs/play.md.

Exit status: 0 when the Conflict ends (or a --save game pauses); 2 on a bad file, flag or \
rejected script command.")]
#[command(group(clap::ArgGroup::new("start").required(true).args(["conflict", "resume"])))]
pub struct Args {
    /// The conflict file (.toml or .json): seats, Actors, initiator, Stakes. Required unless
    /// --resume is given.
    #[arg(value_name = "CONFLICT_FILE")]
    pub conflict: Option<PathBuf>,

    /// Stop after N Hands if the Conflict has not ended (the rules also end it as a
    /// stalemate after 10 Hands in a row without damage or elimination; docs/nodice.md,
    /// Decision 31). The game is saved with --save and can be resumed.
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub max_hands: u32,

    /// The flags of every play command.
    #[command(flatten)]
    pub common: Common,
}

/// Runs `facedown nodice play`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let start = match (&args.common.resume, &args.conflict) {
        (Some(p), _) => Start::Resume(p.clone()),
        (None, Some(path)) => {
            let loaded = nd_setup::load(path)?;
            for w in &loaded.warnings {
                eprintln!("warning: {}", crate::input::escape(w));
            }
            let mut first = Vec::new();
            if !loaded.engagement.is_empty() {
                let gm = loaded.setup.seats.iter().find(|(_, s)| s.role == Role::Gm).map(|(id, _)| id);
                let gm = gm.with_context(|| {
                    format!("{}: engagement needs a GM seat (the GM engages the Actors)", path.display())
                })?;
                first.push((gm, Command::Engage { clusters: loaded.engagement }));
            }
            Start::New { setup: loaded.setup, first, preface: loaded.scene.into_iter().collect() }
        }
        (None, None) => anyhow::bail!("give a conflict file or --resume FILE"),
    };
    let max = args.max_hands;
    let limits = Limits {
        stop: Box::new(move |c: &Conflict| {
            (c.hand > max)
                .then(|| format!("stopped after {max} Hand(s) (--max-hands {max}); the Conflict goes on"))
        }),
        ..Limits::default()
    };
    super::run::<NoDice>(&args.common, start, limits, None)
}

/// Replaces Actor names by ids (keys `actor`, `targets`, `clusters`).
fn resolve(value: &mut Value, state: &Conflict) -> anyhow::Result<()> {
    let id = |v: &mut Value| -> anyhow::Result<()> {
        if let Value::String(name) = v {
            let a = state.find(name).with_context(|| format!("there is no Actor named {name:?}"))?;
            *v = Value::from(a.0);
        }
        Ok(())
    };
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match (key.as_str(), v) {
                    ("actor", v) => id(v)?,
                    ("targets", Value::Array(items)) => items.iter_mut().try_for_each(id)?,
                    ("clusters", Value::Array(clusters)) => {
                        for cluster in clusters {
                            if let Value::Array(items) = cluster {
                                items.iter_mut().try_for_each(id)?;
                            }
                        }
                    }
                    (_, v) => resolve(v, state)?,
                }
            }
        }
        Value::Array(items) => items.iter_mut().try_for_each(|v| resolve(v, state))?,
        _ => {}
    }
    Ok(())
}

fn text(f: impl FnOnce(&mut Vec<u8>) -> anyhow::Result<()>) -> String {
    let mut out = Vec::new();
    let _ = f(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

impl System for NoDice {
    const TITLE: &'static str = "No Dice";
    const GAME: &'static str = "conflict";
    fn resolve_names(state: &Conflict, _seat: SeatId, command: &mut Value) -> anyhow::Result<()> {
        resolve(command, state)
    }

    fn intro(state: &Conflict) -> String {
        text(|o| nd_render::intro(&NoDice::view(state, Viewer::Spectator), None, o))
    }

    fn seat_view(state: &Conflict, seat: SeatId) -> String {
        let name = state.seats.get(seat).map(|s| s.name.clone()).unwrap_or_default();
        text(|o| nd_render::seat_view(&NoDice::view(state, Viewer::Seat(seat)), &name, o))
    }

    fn summary(state: &Conflict, viewer: Viewer) -> String {
        text(|o| nd_render::summary(&NoDice::view(state, viewer), o))
    }
}
