//! `facedown iron-triangle play`: a whole conflict in the terminal.
//!
//! Seats are played by people at one keyboard (hot-seat, hidden choices typed without echo),
//! by bots (`--bot`), or by a script of JSON lines (`--script`). After every accepted command
//! the new events are printed for everyone, redacted so that face-down cards stay face down,
//! and the game can be saved (`--save`) and resumed (`--resume`). The rules all live in the
//! `iron-triangle` crate: this module asks the engine what is awaited and what is legal.
//! The formats are documented in `docs/iron-triangle-play.md`.

pub(crate) mod input;
mod narrate;
mod save;
mod script;
mod setup_file;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::bot_flags::{bot_seed, seat_bots};
use anyhow::bail;
use iron_triangle::{Command, IronTriangle};
use solver::bots::{Bot, GreedyBot, RandomBot};
use solver::equilibrium::EquilibriumBot;
use table::{SeatId, Table, Viewer};

use input::{Keyboard, Kind};
use narrate::Narrator;
use script::Script;

/// Play an Iron Triangle conflict: hot-seat at one keyboard, against bots, or from a script.
#[derive(clap::Args, Default)]
#[command(after_help = "\
Seats are people at this keyboard unless --bot or --script says otherwise. Hidden choices \
(stance, move, special) are typed without echo. A decision with a single legal command is taken \
automatically. At any prompt the GM may type `adjust <character> <○> <▨> <◆> <reason>` to set \
a character's energy. See docs/iron-triangle-play.md for the conflict file and script formats.

Exit status: 0 when the conflict ends (or a --save game pauses); 2 on a bad file, flag or \
rejected script command.")]
pub struct Args {
    /// The conflict file (.toml or .json): stakes, seats and characters. Without it, the
    /// built-in duel (examples/iron-triangle/duel.toml: Ada against a ninja).
    #[arg(value_name = "CONFLICT_FILE", conflicts_with = "resume")]
    pub conflict: Option<PathBuf>,

    /// Continue the game saved in FILE (written by --save) instead of starting a new one.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,

    /// Save the game to FILE after every accepted command (pretty JSON, written atomically,
    /// readable by its owner only). With --script, a script that ends early pauses the game
    /// (exit 0). A save taken mid-turn holds the stances and moves already committed face down
    /// in plain text: keep it from the other players.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,

    /// Let a bot play a seat: SEAT=KIND, where SEAT is a seat name or `all` and KIND is
    /// `random`, `greedy` or `equilibrium` (plays the solved mixed strategies of the whole
    /// 1v1 conflict, or of one turn where that is too large). Repeatable; later flags
    /// override earlier ones.
    #[arg(long = "bot", value_name = "SEAT=KIND")]
    pub bots: Vec<String>,

    /// Seed of the random and equilibrium bots: the bot of seat number i (from 0) uses seed × 1000003 + i, so
    /// the same seed replays the same game.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,

    /// Take the commands of the seats without a bot from FILE (`-` for standard input): one
    /// JSON object per line, {"seat": "gm", "command": {...}}.
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,

    /// Print each event as a JSON line (hidden values left out) and finish with the
    /// spectator's view of the conflict as one JSON line. Prompts go to standard error.
    #[arg(long)]
    pub json: bool,
}

/// Called with the table after every accepted command (the campaign store records the new
/// events; an error stops the game).
pub(crate) type Hook = Box<dyn FnMut(&Table<IronTriangle>) -> anyhow::Result<()>>;

/// A bot and what it is called.
type SeatBot = Box<dyn Bot<IronTriangle>>;

fn make_bots(args: &Args, table: &Table<IronTriangle>) -> anyhow::Result<Vec<Option<SeatBot>>> {
    let kinds =
        seat_bots(&args.bots, &table.state().seats, &["random", "greedy", "equilibrium"], "Iron Triangle")?;
    Ok(kinds
        .into_iter()
        .enumerate()
        .map(|(i, k)| {
            k.map(|k| -> SeatBot {
                match k {
                    "greedy" => Box::new(GreedyBot::new()),
                    "equilibrium" => Box::new(EquilibriumBot::new(bot_seed(args.seed, i))),
                    _ => Box::new(RandomBot::new(bot_seed(args.seed, i))),
                }
            })
        })
        .collect())
}

/// Where the decisions of the seats without a bot come from.
enum Source {
    Keyboard(Keyboard),
    Script(Script),
}

/// The game loop's state.
struct Game {
    table: Table<IronTriangle>,
    narrator: Narrator,
    bots: Vec<Option<SeatBot>>,
    source: Source,
    save: Option<PathBuf>,
    json: bool,
    /// The seat that holds the keyboard privately after a GM adjustment: it is asked its
    /// question again without a new hand-over.
    handed_over: Option<SeatId>,
    /// Called after every accepted command.
    hook: Option<Hook>,
}

/// How a game stopped.
enum Stop {
    Over,
    Paused(String),
}

impl Game {
    fn print_events(&mut self) -> anyhow::Result<()> {
        let mut out = std::io::stdout().lock();
        self.narrator.catch_up(&self.table, &mut out)
    }

    /// Submits a command already checked or trusted to be legal; prints and saves.
    fn accept(&mut self, seat: SeatId, command: &Command) -> anyhow::Result<()> {
        self.table
            .submit(seat, command)
            .map_err(|e| anyhow::anyhow!("the engine refused a legal command: {e}"))?;
        self.after_accept()
    }

    fn after_accept(&mut self) -> anyhow::Result<()> {
        if let Some(path) = &self.save {
            save::write(&self.table, path)?;
        }
        if let Some(hook) = &mut self.hook {
            hook(&self.table)?;
        }
        self.print_events()
    }

    fn run(&mut self) -> anyhow::Result<Stop> {
        let mut legal = Vec::new();
        self.print_events()?;
        loop {
            if self.table.is_over() {
                return Ok(Stop::Over);
            }
            let awaiting = self.table.awaiting();
            // A decision with one legal command reveals nothing: take it for any seat.
            let mut forced = None;
            let mut deciding = Vec::new();
            for &seat in &awaiting {
                self.table.legal_commands(seat, &mut legal);
                if forced.is_some() {
                    continue;
                }
                if legal.len() == 1 {
                    forced = legal.first().cloned().map(|c| (seat, c));
                } else if let Some(pass) = input::forced_pass(&legal) {
                    forced = Some((seat, pass));
                } else if !legal.is_empty() {
                    deciding.push(seat);
                }
            }
            if let Some((seat, command)) = forced {
                self.accept(seat, &command)?;
                continue;
            }
            if deciding.is_empty() {
                bail!(
                    "the engine waits for {} but nobody has a legal command",
                    crate::input::Shown(&self.table.state().waiting_for())
                );
            }
            // Bots first: they never wait on a person.
            if let Some(&seat) = deciding.iter().find(|s| self.bots[usize::from(s.0)].is_some()) {
                let decision = self.table.decision(seat, &mut legal);
                let pick = match &mut self.bots[usize::from(seat.0)] {
                    Some(bot) => bot.choose(&decision),
                    None => 0,
                };
                let Some(command) = legal.get(pick.min(legal.len() - 1)).cloned() else {
                    bail!("the bot of seat {} chose nothing", self.table.state().seat_name(seat));
                };
                self.accept(seat, &command)?;
                continue;
            }
            match &mut self.source {
                Source::Script(script) => {
                    let Some(s) = script.next(self.table.state())? else {
                        return Ok(Stop::Paused(format!(
                            "the script {} ended before the conflict did ({})",
                            script.name(),
                            crate::input::Shown(&self.table.state().waiting_for())
                        )));
                    };
                    let name = script.name().to_owned();
                    script::check_not_bot(
                        &s,
                        self.bots.get(usize::from(s.seat.0)).is_some_and(Option::is_some),
                        self.table.state(),
                        &name,
                    )?;
                    if let Err(e) = self.table.submit(s.seat, &s.command) {
                        bail!("{name} line {} (seat {}): {e}", s.line, self.table.state().seat_name(s.seat));
                    }
                    self.after_accept()?;
                }
                Source::Keyboard(_) => {
                    if let Some(stop) = self.ask(deciding[0])? {
                        return Ok(stop);
                    }
                }
            }
        }
    }

    /// Asks a person at the keyboard for `seat`'s decision until the engine accepts one.
    fn ask(&mut self, seat: SeatId) -> anyhow::Result<Option<Stop>> {
        let Source::Keyboard(keyboard) = &mut self.source else {
            return Ok(None);
        };
        let mut legal = Vec::new();
        self.table.legal_commands(seat, &mut legal);
        let kind = Kind::of(&legal);
        let view = self.table.view(Viewer::Seat(seat));
        let state = self.table.state();
        let seat_name = crate::input::escape(state.seat_name(seat)).into_owned();
        let mut out: Box<dyn Write> =
            if self.json { Box::new(std::io::stderr()) } else { Box::new(std::io::stdout()) };
        // At a real terminal, a private decision (a face-down card, or the GM's view of the
        // NPCs) is handed over: the seat confirms the others look away, and the screen and its
        // scrollback are cleared once the card is down.
        let private = keyboard.is_terminal() && !self.json && (kind.hidden() || state.is_gm(seat));
        let held = self.handed_over.take();
        if held.is_some_and(|h| h != seat) {
            // The previous seat kept the keyboard after an adjustment: clear its screen.
            write!(out, "\x1b[2J\x1b[3J\x1b[H")?;
        }
        writeln!(out)?;
        if private && held != Some(seat) {
            let ready = format!(
                "Pass the keyboard to seat {seat_name}. {seat_name}: press Enter when the others look away."
            );
            if keyboard.read(&ready, false, &mut out)?.is_none() {
                return Ok(Some(Stop::Paused(format!(
                    "the input ended before the conflict did ({})",
                    crate::input::Shown(&self.table.state().waiting_for())
                ))));
            }
        }
        writeln!(
            out,
            "===== Seat {seat_name}{} =====",
            if kind.hidden() { " (others look away)" } else { "" }
        )?;
        narrate::seat_view(&view, &mut out)?;
        writeln!(out, "{}", input::question(kind, &legal, &view, state, seat))?;
        loop {
            let prompt = format!("{seat_name}> ");
            let Some(answer) = keyboard.read(&prompt, kind.hidden(), &mut out)? else {
                return Ok(Some(Stop::Paused(format!(
                    "the input ended before the conflict did ({})",
                    crate::input::Shown(&self.table.state().waiting_for())
                ))));
            };
            // The GM may correct a character's energy at any prompt; then the question
            // is asked again (the adjustment may change it).
            if self.table.state().is_gm(seat)
                && let Some(adjust) = input::parse_adjust(&answer, self.table.state())
            {
                match adjust.map(|c| self.table.submit(seat, &c).map_err(|e| e.to_string())) {
                    Ok(Ok(_)) => {
                        if private {
                            self.handed_over = Some(seat);
                        }
                        out.flush()?;
                        drop(out);
                        self.after_accept()?;
                        return Ok(None);
                    }
                    Ok(Err(msg)) | Err(msg) => {
                        writeln!(out, "Not accepted: {msg}. Try again.")?;
                        continue;
                    }
                }
            }
            let command = match input::parse_answer(kind, &answer, &legal, &view, self.table.state(), seat) {
                Ok(c) => c,
                Err(msg) => {
                    writeln!(out, "Not accepted: {msg}. Try again.")?;
                    continue;
                }
            };
            match self.table.submit(seat, &command) {
                Ok(_) => break,
                Err(e) => writeln!(out, "Not accepted: {e}. Try again.")?,
            }
        }
        if private {
            write!(out, "\x1b[2J\x1b[3J\x1b[H")?;
        }
        out.flush()?;
        drop(out);
        self.after_accept()?;
        Ok(None)
    }
}

fn start(args: &Args) -> anyhow::Result<(Table<IronTriangle>, bool)> {
    match &args.resume {
        Some(path) => Ok((save::read(path)?, true)),
        None => {
            let conflict = setup_file::load_conflict(args.conflict.as_deref())?;
            Ok((Table::new(conflict), false))
        }
    }
}

/// Runs `facedown iron-triangle play`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (table, resumed) = start(&args)?;
    play(&args, table, resumed, None)
}

/// Plays `table` to its end or a pause with the seats, bots and script of `args`. With a
/// `keep` hook (the campaign store), the hook records every accepted command and a pause
/// needs no save file.
pub(crate) fn play(
    args: &Args,
    table: Table<IronTriangle>,
    resumed: bool,
    keep: Option<(Hook, String)>,
) -> anyhow::Result<ExitCode> {
    let bots = make_bots(args, &table)?;
    let source = match &args.script {
        Some(p) => Source::Script(Script::open(p)?),
        None => Source::Keyboard(Keyboard::new()),
    };
    let narrator =
        if resumed { Narrator::from_now(&table, args.json) } else { Narrator::from_start(&table, args.json) };
    if !args.json {
        let mut out = std::io::stdout().lock();
        if let Some(p) = &args.resume {
            writeln!(out, "Resuming {} ({} events so far).", p.display(), table.log().len())?;
        }
        narrate::intro(&table.view(Viewer::Spectator), &mut out)?;
    }
    let (hook, kept) = match keep {
        Some((h, note)) => (Some(h), Some(note)),
        None => (None, None),
    };
    let mut game = Game {
        table,
        narrator,
        bots,
        source,
        save: args.save.clone(),
        json: args.json,
        handed_over: None,
        hook,
    };
    if let Some(path) = &game.save {
        save::write(&game.table, path)?;
    }
    let stop = game.run();
    let stop = match stop {
        Ok(s) => s,
        Err(e) => {
            // Whatever was accepted is already saved; show what happened before the error.
            let _ = game.print_events();
            return Err(e);
        }
    };
    let view = game.table.view(Viewer::Spectator);
    let mut out = std::io::stdout().lock();
    match stop {
        Stop::Over => {
            if args.json {
                writeln!(out, "{}", serde_json::to_string(&view)?)?;
            } else {
                narrate::summary(&view, &mut out)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Stop::Paused(why) if kept.is_some() => {
            let note = format!("paused: {why}; {}", kept.unwrap_or_default());
            if args.json {
                writeln!(out, "{}", serde_json::json!({ "paused": note }))?;
            } else {
                writeln!(out, "\n{}", crate::input::Shown(&note))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Stop::Paused(why) => match &args.save {
            Some(path) => {
                let note = format!(
                    "paused: {why}; the game is saved in {p}; continue with --resume {p}",
                    p = path.display()
                );
                if args.json {
                    writeln!(out, "{}", serde_json::json!({ "paused": note, "save": path }))?;
                } else {
                    writeln!(out, "\n{}", crate::input::Shown(&note))?;
                }
                Ok(ExitCode::SUCCESS)
            }
            None => bail!("{why}; use --save FILE to pause a game and --resume FILE to go on"),
        },
    }
}

#[cfg(test)]
mod tests {
    use iron_triangle::special::Special;
    use iron_triangle::windows::SpecialCard;
    use iron_triangle::{Action, Command, Energy, FighterId, Play, Stance};
    use serde_json::json;

    /// The serde form of commands, as documented in docs/iron-triangle-play.md.
    #[test]
    fn command_serde_form_is_as_documented() {
        let cases = [
            (Command::TakeFirstTurn { fighter: FighterId(1) }, json!({"take_first_turn": {"fighter": 1}})),
            (Command::ChooseOpponent { opponent: FighterId(2) }, json!({"choose_opponent": {"opponent": 2}})),
            (Command::EndCombo, json!("end_combo")),
            (
                Command::CommitStance { stance: Stance::new(Action::Grapple, 2) },
                json!({"commit_stance": {"stance": {"type": "grapple", "amount": 2}}}),
            ),
            (
                Command::CommitMove { play: Play::Move("▨☷".parse().unwrap()) },
                json!({"commit_move": {"play": "▨☷"}}),
            ),
            (Command::CommitMove { play: Play::Surrender }, json!({"commit_move": {"play": "surrender"}})),
            (
                Command::SpreadLoss { spread: Energy::new(1, 0, 2) },
                json!({"spread_loss": {"spread": {"defend": 1, "grapple": 0, "attack": 2}}}),
            ),
            (Command::DecideMercy { kill: false }, json!({"decide_mercy": {"kill": false}})),
            (Command::PassTurn { to: FighterId(0) }, json!({"pass_turn": {"to": 0}})),
            (
                Command::RecordOutcome { verdict: iron_triangle::Verdict::Draw },
                json!({"record_outcome": {"verdict": "draw"}}),
            ),
            (
                Command::PlaySpecial { fighter: FighterId(0), card: None },
                json!({"play_special": {"fighter": 0, "card": null}}),
            ),
            (
                Command::PlaySpecial {
                    fighter: FighterId(0),
                    card: Some(SpecialCard {
                        special: Special::ThereCanBeOnlyOne,
                        target: Some(FighterId(1)),
                        copy: None,
                    }),
                },
                json!({"play_special": {"fighter": 0, "card": {"special": "there_can_be_only_one", "target": 1}}}),
            ),
            (
                Command::PlaySpecial {
                    fighter: FighterId(1),
                    card: Some(SpecialCard {
                        special: Special::IAlreadyKnow(Action::Attack),
                        target: None,
                        copy: None,
                    }),
                },
                json!({"play_special": {"fighter": 1, "card": {"special": "i_already_know_attack"}}}),
            ),
            (
                Command::AdjustEnergy {
                    fighter: FighterId(0),
                    energy: Energy::new(3, 2, 4),
                    reason: iron_triangle::rules::Note::from("misread the spread").unwrap(),
                },
                json!({"adjust_energy": {"fighter": 0, "energy": {"defend": 3, "grapple": 2, "attack": 4}, "reason": "misread the spread"}}),
            ),
        ];
        // A pass may leave the card out.
        assert_eq!(
            serde_json::from_value::<Command>(json!({"play_special": {"fighter": 2}})).unwrap(),
            Command::PlaySpecial { fighter: FighterId(2), card: None }
        );
        // Specials may be named in words, in either edition.
        assert_eq!(
            serde_json::from_value::<Command>(
                json!({"play_special": {"fighter": 0, "card": {"special": "Insight"}}})
            )
            .unwrap(),
            Command::PlaySpecial {
                fighter: FighterId(0),
                card: Some(SpecialCard { special: Special::Scouter, target: None, copy: None })
            }
        );
        for (command, form) in &cases {
            assert_eq!(&serde_json::to_value(command).unwrap(), form);
            assert_eq!(&serde_json::from_value::<Command>(form.clone()).unwrap(), command);
        }
    }
}
