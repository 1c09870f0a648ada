//! `facedown inciting-incident play`: a whole Inciting Incident scene in the terminal.
//!
//! Seats are people at one keyboard (hot-seat; declarations typed without echo), bots
//! (`--bot`), or a script of JSON lines (`--script`). Every accepted command's events are
//! printed for everyone — declarations stay face down until all are in — with every die.
//! `--save` and `--resume` pause and continue a scene. The rules all live in the
//! `inciting-incident` crate; this module asks the engine what is awaited and what is legal.
//! The formats are documented in `docs/inciting-incident-play.md`.

mod adjust;
mod narrate;
mod script;

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::bot_flags::{bot_seed, seat_bots};
use anyhow::{Context, bail};
use inciting_incident::{Command, IncitingIncident, Scene, Setup};
use solver::bots::{Bot, RandomBot};
use table::{Ruleset, Saved, SeatId, Table, Viewer};

use narrate::Narrator;
use script::Script;

/// Play an Inciting Incident scene: hot-seat at one keyboard, against bots, or from a script.
#[derive(clap::Args)]
#[command(after_help = "\
Seats are people at this keyboard unless --bot or --script says otherwise. Declarations are \
typed without echo and stay face down until every character has declared; then the side with \
the initiative resolves its actions in the order it chooses, then the other side. A decision \
with a single legal command is taken automatically. The GM's seat may end the scene at once \
(its menu's last choices, or the script line {\"seat\": \"gm\", \"command\": {\"end_scene\": \
{\"winner\": SIDE}}}); bots never do. See docs/inciting-incident-play.md for the scene file and \
script formats.

Exit status: 0 when the scene ends (or a --save game pauses); 2 on a bad file, flag or \
rejected script command.")]
pub struct Args {
    /// The scene file (.toml or .json): sides, seats, Regions, characters, minions, triggers.
    #[arg(value_name = "SCENE_FILE", required_unless_present = "resume", conflicts_with = "resume")]
    pub scene: Option<PathBuf>,

    /// Continue the scene saved in FILE (written by --save) instead of starting a new one.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,

    /// Save the scene to FILE after every accepted command (pretty JSON, written atomically,
    /// readable by its owner only). With --script, a script that ends early pauses the scene
    /// (exit 0). A save taken mid-round holds the declarations already made face down in plain
    /// text: keep it from the other players.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,

    /// Let a bot play a seat: SEAT=random, where SEAT is a seat name or `all`. Repeatable.
    #[arg(long = "bot", value_name = "SEAT=KIND")]
    pub bots: Vec<String>,

    /// Seed of the random bots: the bot of seat number i (from 0) uses seed × 1000003 + i.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,

    /// Seed of the scene's dice, instead of the scene file's `seed`.
    #[arg(long, value_name = "N")]
    pub dice_seed: Option<u64>,

    /// Take the commands of the seats without a bot from FILE (`-` for standard input): one
    /// JSON object per line, {"seat": "gm", "command": {...}}.
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,

    /// Stop the scene after N rounds, printing that the round limit stopped it. Default: the
    /// scene file's `options.max_rounds`, else 100 — so a game of bots always ends.
    #[arg(long, value_name = "N", conflicts_with = "resume", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_rounds: Option<u32>,

    /// After the scene, the GM holds up to N daily Rest Scenes (§9): everyone wounded rolls
    /// to remove a hit; the unrevived Incapacitated recover or mark Death Hits. Needs a GM
    /// seat. A script may instead give the GM's `rest_scene` commands after the end.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=365))]
    pub rest: u32,

    /// Print each event as a JSON line (declarations left face down) and finish with the
    /// spectator's view of the scene as one JSON line. Prompts go to standard error.
    #[arg(long)]
    pub json: bool,
}

type SeatBot = Box<dyn Bot<IncitingIncident>>;

/// Reads a scene file (TOML, or JSON by its `.json` extension) and starts the scene.
pub fn load_scene(path: &Path, dice_seed: Option<u64>, max_rounds: Option<u32>) -> anyhow::Result<Scene> {
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
    Scene::new(setup).with_context(|| format!("{name}: the scene cannot start"))
}

fn make_bots(args: &Args, scene: &Scene) -> anyhow::Result<Vec<Option<SeatBot>>> {
    let kinds = seat_bots(&args.bots, &scene.seats, &["random"], "Inciting Incident")?;
    Ok(kinds
        .into_iter()
        .enumerate()
        .map(|(i, k)| k.map(|_| -> SeatBot { Box::new(RandomBot::new(bot_seed(args.seed, i))) }))
        .collect())
}

/// Writes the save atomically (see [`crate::save_file`]).
fn write_save(table: &Table<IncitingIncident>, path: &Path) -> anyhow::Result<()> {
    let json = serde_json::to_string_pretty(&table.save()).context("cannot encode the save")?;
    crate::save_file::write_atomic(path, &(json + "\n"))
}

/// Reads a save and checks it: its initial state must be the start of its scene file's scene,
/// and every event must follow from the rules.
fn read_save(path: &Path) -> anyhow::Result<Table<IncitingIncident>> {
    let name = path.display();
    let text = crate::input::read_bounded(path, crate::input::SAVE_LIMIT)
        .with_context(|| format!("cannot read the save {name}"))?;
    let saved: Saved<IncitingIncident> = serde_json::from_str(&text)
        .with_context(|| format!("{name} is not a facedown Inciting Incident save"))?;
    let fresh =
        Scene::new((*saved.initial.setup).clone()).with_context(|| format!("{name}: corrupt save"))?;
    if fresh != saved.initial {
        bail!("{name}: corrupt save: its initial state is not the start of its scene");
    }
    inciting_incident::replay::load_checked(saved).with_context(|| format!("{name}: corrupt save"))
}

enum Source {
    Keyboard,
    Script(Script),
}

enum Stop {
    Over,
    Paused(String),
}

struct Game {
    table: Table<IncitingIncident>,
    narrator: Narrator,
    bots: Vec<Option<SeatBot>>,
    source: Source,
    save: Option<PathBuf>,
    json: bool,
    tty: bool,
}

impl Game {
    fn after_accept(&mut self) -> anyhow::Result<()> {
        if let Some(path) = &self.save {
            write_save(&self.table, path)?;
        }
        let mut out = std::io::stdout().lock();
        self.narrator.catch_up(&self.table, &mut out)
    }

    fn run(&mut self) -> anyhow::Result<Stop> {
        let mut legal = Vec::new();
        self.after_accept()?;
        loop {
            if self.table.is_over() {
                // After the end, a script may go on with the GM's Rest Scenes (§9).
                if let Source::Script(script) = &mut self.source
                    && let Some(s) = script.next(self.table.state())?
                {
                    let name = script.name().to_owned();
                    if let Err(e) = self.table.submit(s.seat, &s.command) {
                        bail!("{name} line {} (seat {}): {e}", s.line, self.table.state().seat_name(s.seat));
                    }
                    self.after_accept()?;
                    continue;
                }
                return Ok(Stop::Over);
            }
            let awaiting = self.table.awaiting();
            if awaiting.is_empty() {
                bail!(
                    "the engine waits for {} but nobody has a legal command",
                    crate::input::Shown(&self.table.state().waiting_for())
                );
            }
            // A decision with one legal command reveals nothing: take it for any seat (the
            // GM's standing offer to end the scene is no choice of play).
            let mut forced = None;
            for &seat in &awaiting {
                self.table.legal_commands(seat, &mut legal);
                legal.retain(|c| !c.is_gm_ruling());
                if legal.len() == 1 {
                    forced = Some((seat, legal[0]));
                    break;
                }
            }
            if let Some((seat, c)) = forced {
                self.table
                    .submit(seat, &c)
                    .map_err(|e| anyhow::anyhow!("the engine refused a legal command: {e}"))?;
                self.after_accept()?;
                continue;
            }
            if let Some(&seat) = awaiting.iter().find(|s| self.bots[usize::from(s.0)].is_some()) {
                // Bots never end the scene by the GM's ruling.
                self.table.legal_commands(seat, &mut legal);
                legal.retain(|c| !c.is_gm_ruling());
                let decision = table::Decision::new(self.table.state(), seat, &legal);
                let pick = match &mut self.bots[usize::from(seat.0)] {
                    Some(bot) => bot.choose(&decision),
                    None => 0,
                };
                let c = legal[pick.min(legal.len() - 1)];
                self.table
                    .submit(seat, &c)
                    .map_err(|e| anyhow::anyhow!("the engine refused a legal command: {e}"))?;
                self.after_accept()?;
                continue;
            }
            match &mut self.source {
                Source::Script(script) => {
                    let Some(s) = script.next(self.table.state())? else {
                        return Ok(Stop::Paused(format!(
                            "the script {} ended before the scene did ({})",
                            script.name(),
                            crate::input::Shown(&self.table.state().waiting_for())
                        )));
                    };
                    if self.bots.get(usize::from(s.seat.0)).is_some_and(Option::is_some) {
                        bail!(
                            "{} line {}: seat {} is played by a bot (--bot); a script gives only the commands of seats without one",
                            script.name(),
                            s.line,
                            self.table.state().seat_name(s.seat)
                        );
                    }
                    let name = script.name().to_owned();
                    if let Err(e) = self.table.submit(s.seat, &s.command) {
                        bail!("{name} line {} (seat {}): {e}", s.line, self.table.state().seat_name(s.seat));
                    }
                    self.after_accept()?;
                }
                Source::Keyboard => {
                    if let Some(stop) = self.ask(awaiting[0])? {
                        return Ok(stop);
                    }
                }
            }
        }
    }

    fn read(&self, prompt: &str, hidden: bool, out: &mut dyn Write) -> anyhow::Result<Option<String>> {
        if self.tty && hidden {
            out.flush()?;
            return match rpassword::prompt_password(prompt) {
                Ok(s) => Ok(Some(s)),
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
                Err(e) => Err(e.into()),
            };
        }
        write!(out, "{prompt}")?;
        out.flush()?;
        let mut line = String::new();
        if std::io::stdin().lock().read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(None);
        }
        if !self.tty {
            writeln!(out)?;
        }
        Ok(Some(line.trim().to_owned()))
    }

    /// Holds up to `days` daily Rest Scenes after the scene, in the GM's name (§9), while
    /// anyone alive is wounded or Incapacitated.
    fn rest(&mut self, days: u32) -> anyhow::Result<()> {
        if days == 0 {
            return Ok(());
        }
        let state = self.table.state();
        let Some(gm) = state.gm_seat() else {
            bail!("--rest: the scene has no GM seat to hold the Rest Scenes (§9)");
        };
        let mut legal = Vec::new();
        for _ in 0..days {
            self.table.legal_commands(gm, &mut legal);
            let rest = inciting_incident::Command::RestScene { full_day: false };
            if !legal.contains(&rest) {
                break;
            }
            self.table
                .submit(gm, &rest)
                .map_err(|e| anyhow::anyhow!("the engine refused a Rest Scene: {e}"))?;
            self.after_accept()?;
        }
        Ok(())
    }

    /// Asks the person at the keyboard for `seat`'s decision until the engine accepts one.
    fn ask(&mut self, seat: SeatId) -> anyhow::Result<Option<Stop>> {
        let state = self.table.state().clone();
        // The rules say what the seat is asked, its choices and whether the answer is face down.
        let Some(prompt) = IncitingIncident::prompt(&state, seat) else {
            bail!("the engine does not wait for seat {}", crate::input::Shown(state.seat_name(seat)));
        };
        let legal: Vec<Command> = prompt.choices.iter().map(|c| c.command).collect();
        let seat_name = crate::input::escape(state.seat_name(seat)).into_owned();
        let hidden = prompt.private;
        let mut out: Box<dyn Write> =
            if self.json { Box::new(std::io::stderr()) } else { Box::new(std::io::stdout()) };
        let private = self.tty && !self.json && hidden;
        writeln!(out)?;
        if private {
            let ready = format!(
                "Pass the keyboard to seat {seat_name}. {seat_name}: press Enter when the others look away."
            );
            if self.read(&ready, false, &mut out)?.is_none() {
                return Ok(Some(Stop::Paused(format!(
                    "the input ended ({})",
                    crate::input::Shown(&state.waiting_for())
                ))));
            }
        }
        writeln!(out, "===== Seat {seat_name}{} =====", if hidden { " (others look away)" } else { "" })?;
        narrate::seat_view(&state, &self.table.view(Viewer::Seat(seat)), &mut out)?;
        writeln!(out, "  {}", crate::input::Shown(&prompt.question))?;
        for (i, c) in prompt.choices.iter().enumerate() {
            writeln!(out, "  {:>3}. {}", i + 1, crate::input::Shown(&c.label))?;
        }
        let command = loop {
            let Some(answer) = self.read(&format!("{seat_name}> "), hidden, &mut out)? else {
                return Ok(Some(Stop::Paused(format!(
                    "the input ended before the scene did ({})",
                    crate::input::Shown(&state.waiting_for())
                ))));
            };
            if state.is_gm(seat) {
                // The GM may adjust a count at any of its prompts (Decision 30).
                match adjust::parse(&state, &answer) {
                    Ok(Some(c)) => match self.table.submit(seat, &c) {
                        Ok(_) => {
                            if private {
                                write!(out, "\x1b[2J\x1b[3J\x1b[H")?;
                            }
                            out.flush()?;
                            drop(out);
                            self.after_accept()?;
                            return Ok(None);
                        }
                        Err(e) => {
                            writeln!(out, "Not accepted: {}", crate::input::Shown(&e.to_string()))?;
                            continue;
                        }
                    },
                    Err(e) => {
                        writeln!(out, "Not accepted: {}", crate::input::Shown(&e))?;
                        continue;
                    }
                    Ok(None) => {}
                }
            }
            match answer.parse::<usize>() {
                Ok(n) if (1..=legal.len()).contains(&n) => break legal[n - 1],
                _ => writeln!(out, "Not accepted: type a number from 1 to {}. Try again.", legal.len())?,
            }
        };
        if private {
            write!(out, "\x1b[2J\x1b[3J\x1b[H")?;
        }
        out.flush()?;
        drop(out);
        self.table
            .submit(seat, &command)
            .map_err(|e| anyhow::anyhow!("the engine refused a legal command: {e}"))?;
        self.after_accept()?;
        Ok(None)
    }
}

/// Runs `facedown inciting-incident play`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (table, resumed) = match (&args.resume, &args.scene) {
        (Some(path), _) => (read_save(path)?, true),
        (None, Some(path)) => (Table::new(load_scene(path, args.dice_seed, args.max_rounds)?), false),
        (None, None) => bail!("give a scene file, or --resume FILE"),
    };
    let bots = make_bots(&args, table.state())?;
    let source = match &args.script {
        Some(p) => Source::Script(Script::open(p)?),
        None => Source::Keyboard,
    };
    let narrator =
        if resumed { Narrator::from_now(&table, args.json) } else { Narrator::from_start(args.json) };
    if !args.json {
        let mut out = std::io::stdout().lock();
        if let Some(p) = &args.resume {
            writeln!(out, "Resuming {} ({} events so far).", p.display(), table.log().len())?;
        }
        narrate::intro(table.state(), &mut out)?;
    }
    let tty = std::io::stdin().is_terminal();
    let mut game = Game { table, narrator, bots, source, save: args.save.clone(), json: args.json, tty };
    let stop = match game.run().and_then(|s| {
        if matches!(s, Stop::Over) {
            game.rest(args.rest)?;
        }
        Ok(s)
    }) {
        Ok(s) => s,
        Err(e) => {
            let mut out = std::io::stdout().lock();
            let _ = game.narrator.catch_up(&game.table, &mut out);
            return Err(e);
        }
    };
    let view = game.table.view(Viewer::Spectator);
    let mut out = std::io::stdout().lock();
    match stop {
        Stop::Over => {
            let limit = game.table.state().outcome.as_ref().and_then(|o| o.round_limit);
            if args.json {
                writeln!(out, "{}", serde_json::to_string(&view)?)?;
                if let Some(n) = limit {
                    eprintln!("{}", narrate::round_limit_note(n));
                }
            } else {
                narrate::summary(game.table.state(), &mut out)?;
                if let Some(n) = limit {
                    writeln!(out, "{}", narrate::round_limit_note(n))?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Stop::Paused(why) => match &args.save {
            Some(path) => {
                let note = format!(
                    "paused: {why}; the scene is saved in {p}; continue with --resume {p}",
                    p = path.display()
                );
                if args.json {
                    writeln!(out, "{}", serde_json::json!({ "paused": note, "save": path }))?;
                } else {
                    writeln!(out, "\n{}", crate::input::Shown(&note))?;
                }
                Ok(ExitCode::SUCCESS)
            }
            None => bail!("{why}; use --save FILE to pause a scene and --resume FILE to go on"),
        },
    }
}
