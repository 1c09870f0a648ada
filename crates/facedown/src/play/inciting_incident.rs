//! `facedown inciting-incident play`: the per-system part of the play loop for Inciting
//! Incident — the scene file, `--dice-seed`, `--max-rounds`, `--rest`, the bot kind, the names
//! a script may use, and the views in words.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use inciting_incident::{Command, IncitingIncident, Scene, Setup};
use serde_json::Value;
use table::{Ruleset, SeatId, Viewer};

use super::{Common, Limits, Start, System, ii_render};

/// Play an Inciting Incident scene: hot-seat at one keyboard, against bots, or from a script.
#[derive(clap::Args)]
#[command(after_help = "\
Seats are people at this keyboard unless --bot or --script says otherwise. Each seat is shown \
its question and numbered choices: type a number or the choice's words. Declarations are typed \
without echo and stay face down until every character has declared; then the side with the \
initiative resolves its actions in the order it chooses, then the other side. A decision with a \
single choice is taken automatically. The GM's seat may end the scene at once (its menu's last \
choices, or the script line {\"seat\": \"gm\", \"command\": {\"end_scene\": {\"winner\": SIDE}}}); \
bots never do. At any prompt: `?` shows the quick reference; a command may be typed as JSON \
(the GM's {\"adjust\": …}); the GM may type `undo`; `back` takes back your declaration. Bot \
kind: random. See docs/play.md.

Exit status: 0 when the scene ends (or a --save game pauses); 2 on a bad file, flag or \
rejected script command.")]
pub struct Args {
    /// The scene file (.toml or .json): sides, seats, Regions, characters, minions, triggers.
    #[arg(value_name = "SCENE_FILE", required_unless_present = "resume", conflicts_with = "resume")]
    pub scene: Option<PathBuf>,

    /// Seed of the scene's dice, instead of the scene file's `seed`.
    #[arg(long, value_name = "N")]
    pub dice_seed: Option<u64>,

    /// Stop the scene after N rounds, printing that the round limit stopped it. Default: the
    /// scene file's `options.max_rounds`, else 100 — so a game of bots always ends.
    #[arg(long, value_name = "N", conflicts_with = "resume", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_rounds: Option<u32>,

    /// After the scene, the GM holds up to N daily Rest Scenes: everyone wounded rolls
    /// to remove a hit; the unrevived Incapacitated recover or mark Death Hits. Needs a GM
    /// seat. A script may instead give the GM's `rest_scene` commands after the end.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=365))]
    pub rest: u32,

    /// The flags of every play command.
    #[command(flatten)]
    pub common: Common,
}

/// Reads a scene file (TOML, or JSON by its `.json` extension) into its checked setup.
pub fn load_setup(path: &Path, dice_seed: Option<u64>, max_rounds: Option<u32>) -> anyhow::Result<Setup> {
    let name = path.display();
    let text = crate::input::read_bounded(path, crate::input::TEXT_LIMIT)
        .with_context(|| format!("cannot read the scene file {name}"))?;
    let mut setup: Setup = if path.extension().is_some_and(|e| e == "json") {
        serde_json::from_str(&text).with_context(|| format!("{name} is not an Inciting Incident scene"))?
    } else {
        toml::from_str(&text).with_context(|| format!("{name} is not an Inciting Incident scene"))?
    };
    if let Some(seed) = dice_seed {
        setup.seed = seed;
    }
    // The round limit is a rules option (the crate's default when neither flag nor file sets it).
    setup.apply_round_limit(max_rounds);
    Scene::new(setup.clone()).with_context(|| format!("{name}: the scene cannot start"))?;
    Ok(setup)
}

/// Runs `facedown inciting-incident play`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let start = match (&args.common.resume, &args.scene) {
        (Some(p), _) => Start::Resume(p.clone()),
        (None, Some(path)) => {
            let setup = load_setup(path, args.dice_seed, args.max_rounds)?;
            if args.rest > 0 && Scene::new(setup.clone()).ok().and_then(|s| s.gm_seat()).is_none() {
                bail!("--rest: the scene has no GM seat to hold the Rest Scenes");
            }
            Start::New { setup, first: Vec::new(), preface: Vec::new() }
        }
        (None, None) => bail!("give a scene file or --resume FILE"),
    };
    let mut days = args.rest;
    let limits = Limits {
        epilogue: Box::new(move |scene: &Scene| {
            let gm = scene.gm_seat()?;
            let rest = Command::RestScene { full_day: false };
            let mut legal = Vec::new();
            IncitingIncident::legal_commands(scene, gm, &mut legal);
            if days == 0 || !legal.contains(&rest) {
                return None;
            }
            days -= 1;
            Some((gm, rest))
        }),
        ..Limits::default()
    };
    super::run::<IncitingIncident>(&args.common, start, limits, None)
}

fn fighter(scene: &Scene, name: &str) -> anyhow::Result<u8> {
    scene.find_fighter(name).with_context(|| format!("there is no character named {name:?}"))
}

/// Replaces names by numbers: `character` (and a healing `target`), `{"character": …}` and
/// `{"minions": …}` targets, `talent` (of the acting character), the Regions of `path`, and
/// the side of an ending's `winner` or of a Rising Tension spend's or an adjustment's `side`,
/// and an adjustment's `duel` by its Region.
fn resolve(value: &mut Value, scene: &Scene, acting: Option<u8>) -> anyhow::Result<()> {
    let Value::Object(map) = value else {
        if let Value::Array(items) = value {
            for v in items {
                resolve(v, scene, acting)?;
            }
        }
        return Ok(());
    };
    let mut acting = acting;
    if let Some(Value::String(name)) = map.get("character") {
        let id = fighter(scene, name)?;
        map.insert("character".into(), Value::from(id));
        acting = acting.or(Some(id));
    } else if let Some(Value::Number(id)) = map.get("character") {
        // A number is checked where a name needs it (a Talent's name); the engine checks the rest.
        acting = acting.or(Some(
            id.as_u64()
                .and_then(|i| u8::try_from(i).ok())
                .filter(|&i| usize::from(i) < scene.fighters.len())
                .with_context(|| format!("there is no character number {id}"))?,
        ));
    }
    for (key, v) in map.iter_mut() {
        match (key.as_str(), &*v) {
            ("minions", Value::String(name)) => {
                let id = scene
                    .find_minions(name)
                    .with_context(|| format!("there is no minion group named {name:?}"))?;
                *v = Value::from(id);
            }
            ("target", Value::String(name)) => *v = Value::from(fighter(scene, name)?),
            ("winner" | "side", Value::String(name)) => {
                let side = scene
                    .setup
                    .sides
                    .iter()
                    .position(|s| s == name)
                    .with_context(|| format!("there is no side named {name:?}"))?;
                *v = Value::from(side);
            }
            ("duel", Value::String(name)) => {
                // A GM adjustment's Duel, by the Region it is fought in.
                let region =
                    scene.find_region(name).with_context(|| format!("there is no Region named {name:?}"))?;
                let duel = scene.duel_in(region).with_context(|| format!("there is no Duel in {name:?}"))?;
                *v = Value::from(duel);
            }
            ("talent", Value::String(name)) => {
                let Some(f) = acting else { bail!("name the character before its Talent {name:?}") };
                let i = scene
                    .fighters
                    .get(usize::from(f))
                    .with_context(|| format!("there is no character number {f}"))?
                    .sheet
                    .talents
                    .iter()
                    .position(|t| &t.name == name)
                    .with_context(|| format!("{} has no Talent named {name:?}", scene.fighter_name(f)))?;
                *v = Value::from(i);
            }
            ("path", Value::Array(items)) => {
                let mut ids = Vec::new();
                for item in items {
                    ids.push(match item {
                        Value::String(name) => Value::from(
                            scene
                                .find_region(name)
                                .with_context(|| format!("there is no Region named {name:?}"))?,
                        ),
                        other => other.clone(),
                    });
                }
                *v = Value::Array(ids);
            }
            _ => resolve(v, scene, acting)?,
        }
    }
    Ok(())
}

fn text(f: impl FnOnce(&mut Vec<u8>) -> anyhow::Result<()>) -> String {
    let mut out = Vec::new();
    let _ = f(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

impl System for IncitingIncident {
    const TITLE: &'static str = "Inciting Incident";
    const GAME: &'static str = "scene";
    fn resolve_names(state: &Scene, _seat: SeatId, command: &mut Value) -> anyhow::Result<()> {
        resolve(command, state, None)
    }

    fn intro(state: &Scene) -> String {
        text(|o| ii_render::intro(state, o))
    }

    fn seat_view(state: &Scene, seat: SeatId) -> String {
        text(|o| ii_render::seat_view(state, &IncitingIncident::view(state, Viewer::Seat(seat)), o))
    }

    fn summary(state: &Scene, viewer: Viewer) -> String {
        let mut s = text(|o| ii_render::summary(state, viewer, o));
        if let Some(n) = state.outcome.as_ref().and_then(|o| o.round_limit) {
            s.push_str(&ii_render::round_limit_note(n));
            s.push('\n');
        }
        s
    }
}
