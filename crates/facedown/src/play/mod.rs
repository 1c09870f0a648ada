//! `facedown … play`: one game loop for every rule system, a thin client of
//! [`session::Session`].
//!
//! Seats are played by people at one keyboard (hot-seat: a face-down choice is typed without
//! echo and the screen is cleared after it), by bots (`--bot`), or by a script of JSON lines
//! (`--script`). The loop asks the session what it waits for and shows each person seat the
//! ruleset's [`Prompt`](table::Prompt); it prints the spectator's narrated updates (or each
//! [`Update`](session::Update) as a JSON line with `--json`), keeps the game's
//! [`Record`](session::Record) in a save file through the store (`--save`, `--resume`), and
//! appends the narrated log to a file as it goes (`--log`). Every rule lives in the ruleset
//! crates; the per-system part ([`System`]) is the setup file, the bot kinds, the names a
//! script may use, and how a view is rendered. The formats are documented in `docs/play.md`.

mod ii_render;
pub mod inciting_incident;
pub mod iron_triangle;
pub(crate) mod it_render;
mod it_setup;
pub mod keyboard;
pub(crate) mod nd_render;
mod nd_setup;
pub mod nodice;
mod saves;
mod script;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use serde_json::Value;
use session::{Item, Session, Update};
use solver::kinds::BotKinds;
use table::{Bot, Decision, Role, Ruleset, SeatId, Seats, Viewer};

use crate::input::escape;
use keyboard::Keyboard;
use saves::Saver;
use script::{Line, Script};

/// The flags every `play` command takes.
#[derive(clap::Args, Default, Clone)]
pub struct Common {
    /// Continue the game saved in FILE (written by --save) instead of starting a new one.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,

    /// Save the game to FILE after every accepted command: its record (setup and commands;
    /// events are derived), written atomically, readable by its owner only. A face-down choice
    /// not yet revealed is not saved: on resume that seat chooses again. With --script, a
    /// script that ends early pauses the game (exit 0).
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,

    /// Let a bot play a seat: SEAT=KIND, where SEAT is a seat name or `all` (the kinds are
    /// the system's; see below). Repeatable; later flags override earlier ones.
    #[arg(long = "bot", value_name = "SEAT=KIND")]
    pub bots: Vec<String>,

    /// Seed of the bots: the bot of seat number i (from 0) uses seed × 1000003 + i, so the
    /// same seed replays the same game.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,

    /// Take the commands of the seats without a bot from FILE (`-` for standard input): one
    /// JSON object per line, {"seat": "gm", "command": {...}}; also {"seat": "gm", "undo":
    /// true} and {"seat": NAME, "take_back": true}.
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,

    /// Append the narrated log (what a spectator sees) to FILE as the game goes (created
    /// readable by its owner only).
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// Print each update as a JSON line (hidden parts blanked) and finish with the spectator's
    /// view as one JSON line. Prompts go to standard error.
    #[arg(long)]
    pub json: bool,
}

/// The per-system part of the play loop: everything else is the same for every ruleset. The
/// bot kinds `--bot SEAT=KIND` accepts (the default first), their bots and which commands are
/// choices of play are the system's [`BotKinds`], shared with the server.
pub trait System: BotKinds + Ruleset + Sized + 'static {
    /// The system's name in messages ("Iron Triangle").
    const TITLE: &'static str;
    /// What one game is called ("conflict", "scene").
    const GAME: &'static str;
    /// Replaces the names a script or a typed JSON command may use (characters, moves…) by
    /// the numbers of the ruleset's serde `Command`, for `seat`.
    fn resolve_names(state: &Self::State, seat: SeatId, command: &mut Value) -> anyhow::Result<()> {
        let _ = (state, seat, command);
        Ok(())
    }

    /// The opening lines: what everyone sees at the start.
    fn intro(state: &Self::State) -> String;

    /// What `seat` sees before it decides.
    fn seat_view(state: &Self::State, seat: SeatId) -> String;

    /// The closing lines, who won in `viewer`'s words first.
    fn summary(state: &Self::State, viewer: Viewer) -> String;
}

/// Why the loop must stop now, if it must (see [`Limits::stop`]).
pub type StopAt<R> = Box<dyn Fn(&<R as Ruleset>::State) -> Option<String>>;

/// The next command a system's flags give after the end (see [`Limits::epilogue`]).
pub type Epilogue<R> = Box<dyn FnMut(&<R as Ruleset>::State) -> Option<(SeatId, <R as Ruleset>::Command)>>;

/// The per-game limits and epilogue a system's flags set (`--max-hands`, `--rest`).
pub struct Limits<R: Ruleset> {
    /// Why the loop stops before the end, if it must now (a Hand limit).
    pub stop: StopAt<R>,
    /// After the end: the next command the system's flags give by themselves (a GM's Rest
    /// Scene), if any.
    pub epilogue: Epilogue<R>,
}

impl<R: Ruleset> Default for Limits<R> {
    fn default() -> Self {
        Limits { stop: Box::new(|_| None), epilogue: Box::new(|_| None) }
    }
}

/// How a game starts: a setup (with the commands its file gives before play), or a save.
pub enum Start<R: Ruleset> {
    /// A new game.
    New {
        /// The setup.
        setup: R::Setup,
        /// Commands given before play (No Dice's engagement from the file), by seat.
        first: Vec<(SeatId, R::Command)>,
        /// Lines printed before the intro (the file's scene text, warnings).
        preface: Vec<String>,
    },
    /// `--resume FILE`.
    Resume(PathBuf),
    /// A game kept elsewhere (a campaign conflict, from the campaign's store): the session,
    /// and whether it had begun.
    Session(Box<Session<R>>, bool),
}

/// Called with the session after every accepted command (the campaign store keeps the new
/// commands; an error stops the game).
pub type Hook<R> = Box<dyn FnMut(&Session<R>) -> anyhow::Result<()>>;

/// How a game stopped.
enum Stop {
    Over,
    Paused(String),
    Limit(String),
}

/// Where the decisions of the seats without a bot come from.
enum Source {
    Keyboard(Keyboard),
    Script(Script),
}

struct Game<R: System> {
    session: Session<R>,
    shown: u64,
    bots: Vec<Option<Box<dyn Bot<R>>>>,
    source: Source,
    saver: Option<Saver>,
    json: bool,
    log: Option<std::fs::File>,
    /// The spectator's narrated lines so far, reprinted after a private prompt clears the screen.
    public: Vec<String>,
    hook: Option<Hook<R>>,
    limits: Limits<R>,
}

/// Reads `--bot SEAT=KIND` flags against `seats`: for each seat the kind of bot that plays it.
fn seat_bots<'k>(
    specs: &[String],
    seats: &Seats,
    kinds: &[&'k str],
    title: &str,
) -> anyhow::Result<Vec<Option<&'k str>>> {
    let mut out = vec![None; seats.len()];
    let example = kinds.last().copied().unwrap_or("random");
    for spec in specs {
        let (seat, kind) = spec
            .split_once('=')
            .with_context(|| format!("--bot {spec:?}: write SEAT=KIND, e.g. gm={example}"))?;
        let asked = kind.trim().to_ascii_lowercase();
        let Some(&kind) = kinds.iter().find(|&&k| k == asked) else {
            let list: Vec<String> = kinds.iter().map(|k| format!("`{k}`")).collect();
            bail!("--bot {spec:?}: unknown bot kind {asked:?}; {title} has {}", list.join(", "));
        };
        if seat.trim() == "all" {
            out.iter_mut().for_each(|k| *k = Some(kind));
        } else {
            let names: Vec<&str> = seats.iter().map(|(_, s)| s.name.as_str()).collect();
            let id = seats
                .find(seat.trim())
                .with_context(|| format!("--bot {spec:?}: the seats are {}", names.join(", ")))?;
            out[usize::from(id.0)] = Some(kind);
        }
    }
    Ok(out)
}

/// The seed of the bot of seat number `seat`: `seed × 1000003 + seat`.
fn bot_seed(seed: u64, seat: usize) -> u64 {
    seed.wrapping_mul(1_000_003).wrapping_add(seat as u64)
}

fn seat_name<R: Ruleset>(state: &R::State, seat: SeatId) -> String {
    R::seats(state).get(seat).map_or_else(|_| format!("#{}", seat.0), |s| s.name.clone())
}

fn is_gm<R: Ruleset>(state: &R::State, seat: SeatId) -> bool {
    R::seats(state).get(seat).is_ok_and(|s| s.role == Role::Gm)
}

/// What the GM may say when nothing else is known: the quick reference, or a fallback.
pub(crate) fn quick_reference<R: Ruleset>() -> String {
    let r = R::quick_reference();
    if r.trim().is_empty() {
        format!("No quick reference for {} yet: see the docs folder (docs/{}.md).", R::NAME, R::NAME)
    } else {
        r
    }
}

/// Runs a game of `R` to its end or a pause.
pub fn run<R: System>(
    common: &Common,
    start: Start<R>,
    limits: Limits<R>,
    hook: Option<(Hook<R>, String)>,
) -> anyhow::Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let (session, resumed, preface) = match start {
        Start::New { setup, first, preface } => {
            let setup = escaped_setup::<R>(setup)?;
            let mut session =
                Session::<R>::new(setup).map_err(|e| anyhow::anyhow!("the {} cannot start: {e}", R::GAME))?;
            for (seat, command) in first {
                session.submit(seat, &command).map_err(|e| anyhow::anyhow!("{e}"))?;
            }
            (session, None, preface)
        }
        Start::Resume(path) => (saves::read::<R>(&rt, &path)?, Some(path), Vec::new()),
        Start::Session(session, resumed) => (*session, resumed.then(PathBuf::new), Vec::new()),
    };
    let state = session.table().state();
    let kinds = seat_bots(&common.bots, R::seats(state), R::BOT_KINDS, R::TITLE)?;
    let bots = kinds
        .into_iter()
        .enumerate()
        .map(|(i, k)| {
            k.map(|k| {
                R::bot(k, bot_seed(common.seed, i))
                    .map(|b| -> Box<dyn Bot<R>> { b })
                    .with_context(|| format!("{} has no bot kind {k:?}", R::TITLE))
            })
            .transpose()
        })
        .collect::<anyhow::Result<_>>()?;
    let source = match &common.script {
        Some(p) => Source::Script(Script::open(p)?),
        None => Source::Keyboard(Keyboard::new()),
    };
    let log = match &common.log {
        Some(p) => Some(open_log(p)?),
        None => None,
    };
    let saver = common.save.as_ref().map(|p| Saver::new(rt, p.clone()));
    let (hook, kept) = match hook {
        Some((h, note)) => (Some(h), Some(note)),
        None => (None, None),
    };
    let shown = if resumed.is_some() { session.seq() } else { 0 };
    let mut game = Game {
        session,
        shown,
        bots,
        source,
        saver,
        json: common.json,
        log,
        public: Vec::new(),
        hook,
        limits,
    };
    if !game.json {
        let mut out = std::io::stdout().lock();
        for line in &preface {
            writeln!(out, "{}", escape(line))?;
        }
        if let Some(p) = resumed.as_ref().filter(|p| !p.as_os_str().is_empty()) {
            writeln!(
                out,
                "Resuming {} ({} commands so far).",
                p.display(),
                game.session.record().entries.len()
            )?;
        }
        print_lines(&mut out, &R::intro(game.session.table().state()))?;
    }
    game.save()?;
    let stop = match game.play() {
        Ok(s) => s,
        Err(e) => {
            // Whatever was accepted is already saved; show what happened before the error.
            let _ = game.show();
            return Err(e);
        }
    };
    game.finish(stop, common, kept)
}

/// `setup` with every control character in its texts (names, stakes, descriptions) escaped
/// as Rust writes it (`\u{1b}`): a name from a file can then never move the cursor or forge a
/// line in any narration, view or prompt that shows it. The game keeps the escaped names.
fn escaped_setup<R: Ruleset>(setup: R::Setup) -> anyhow::Result<R::Setup> {
    fn walk(v: &mut Value) -> bool {
        match v {
            Value::String(s) => match escape(s) {
                std::borrow::Cow::Owned(e) => {
                    *s = e;
                    true
                }
                std::borrow::Cow::Borrowed(_) => false,
            },
            Value::Array(items) => items.iter_mut().fold(false, |changed, v| walk(v) | changed),
            Value::Object(map) => map.values_mut().fold(false, |changed, v| walk(v) | changed),
            _ => false,
        }
    }
    let mut value = serde_json::to_value(&setup)?;
    if !walk(&mut value) {
        return Ok(setup);
    }
    serde_json::from_value(value).context("the setup with its texts escaped")
}

/// Prints `text` line by line, escaped (names come from files).
pub(crate) fn print_lines(out: &mut dyn Write, text: &str) -> anyhow::Result<()> {
    for line in text.lines() {
        writeln!(out, "{}", escape(line))?;
    }
    Ok(())
}

/// Opens `--log FILE` for appending, created with mode 0600.
fn open_log(path: &std::path::Path) -> anyhow::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path).with_context(|| format!("cannot open the log {}", path.display()))
}

/// A spectator's update as lines of text.
fn update_text<R: Ruleset>(state: &R::State, update: &Update<R::Event>) -> Vec<String> {
    let who = |seat: SeatId| seat_name::<R>(state, seat);
    match &update.item {
        Item::Event { text: Some(t), .. } => t.lines().map(|l| escape(l).into_owned()).collect(),
        Item::Event { text: None, .. } => Vec::new(),
        Item::TookBack { seat } => vec![took_back_text(&who(*seat))],
        Item::Forced { seat } => vec![forced_text(&who(*seat))],
        Item::Undone { by, seat } => vec![undone_text(&who(*by), &who(*seat))],
        // Local play has no sealed seats: these come only from a server's sealed rounds.
        Item::Bound { .. } | Item::Opened { .. } => Vec::new(),
        // Local play's draws are seeded, not verifiable: these come only from a server's table.
        Item::ClientSeed { .. }
        | Item::Mix { .. }
        | Item::Draw { .. }
        | Item::ServerSeed { .. }
        | Item::Setup { .. }
        | Item::Record { .. } => Vec::new(),
        Item::Fault { seat, fault } => vec![fault_text(&who(*seat), fault_name(fault))],
    }
}

/// The name of a sealed-round fault, as the protocol spells it.
fn fault_name(fault: &session::sealed::Fault) -> &'static str {
    match fault {
        session::sealed::Fault::WrongNonce => "wrong_nonce",
        session::sealed::Fault::Illegal { .. } => "illegal",
        session::sealed::Fault::NoReveal { reason: Some(session::sealed::NoRevealReason::SecretLost) } => {
            "secret_lost"
        }
        session::sealed::Fault::NoReveal { reason: None } => "no_reveal",
    }
}

/// A log item: `seat`'s sealed choice failed (`fault`), so its decision is forced.
pub(crate) fn fault_text(seat: &str, fault: &str) -> String {
    let why = match fault {
        "wrong_nonce" => "its reveal does not match its commitment",
        "illegal" => "its revealed choice is not one the rules allow",
        "no_reveal" => "it did not reveal in time",
        "secret_lost" => "its secret was lost, so its face-down choice could not be revealed",
        _ => "its sealed choice failed",
    };
    format!("{}: fault — {why}; the decision is forced.", escape(seat))
}

/// A log item: `seat` took back a face-down choice (local and remote play say it alike).
pub(crate) fn took_back_text(seat: &str) -> String {
    format!("{} takes back a face-down choice.", escape(seat))
}

/// A log item: `seat`'s decision was forced.
pub(crate) fn forced_text(seat: &str) -> String {
    format!("{}'s decision is forced: the rules' default is taken.", escape(seat))
}

/// A log item: the GM (`by`) undid the last command of `seat`.
pub(crate) fn undone_text(by: &str, seat: &str) -> String {
    format!(
        "The GM (seat {}) undoes the last command of seat {}, which is asked again.",
        escape(by),
        escape(seat)
    )
}

/// How a header names a seat (issue 34, words a player knows: seats as the books write them):
/// its characters' names from the view (every system's view lists them with their seat's
/// name), or "The GM" for the rules' GM seat, then the seat's own name: "Ada — seat ada".
pub(crate) fn seat_title(view: &serde_json::Value, seat: &str, gm: bool) -> String {
    if gm {
        return format!("The GM — seat {seat}");
    }
    let names: Vec<&str> = ["fighters", "actors"]
        .iter()
        .filter_map(|k| view.get(*k).and_then(serde_json::Value::as_array))
        .flatten()
        .filter(|f| f.get("seat").and_then(serde_json::Value::as_str) == Some(seat))
        .filter_map(|f| f.get("name").and_then(serde_json::Value::as_str))
        .collect();
    match names.as_slice() {
        [] => format!("Seat {seat}"),
        [one] => format!("{one} — seat {seat}"),
        [rest @ .., last] => format!("{} and {last} — seat {seat}", rest.join(", ")),
    }
}

/// Writes what a seat is asked: its header, what it sees (`view`, lines), the question, the
/// numbered choices and a line of `help` — local and remote play look the same.
pub(crate) fn write_prompt(
    out: &mut dyn Write,
    name: &str,
    private: bool,
    view: &str,
    question: &str,
    labels: &[&str],
    help: &str,
) -> anyhow::Result<()> {
    writeln!(out, "===== {}{} =====", escape(name), if private { " (others look away)" } else { "" })?;
    print_lines(out, view)?;
    writeln!(out, "{}", escape(question))?;
    for (i, label) in labels.iter().enumerate() {
        writeln!(out, "  {}. {}", i + 1, escape(label))?;
    }
    writeln!(out, "({help})")?;
    Ok(())
}

impl<R: System> Game<R> {
    /// Prints the spectator's updates not shown yet (and appends them to the log file).
    fn show(&mut self) -> anyhow::Result<()> {
        let updates = self.session.updates_since(Viewer::Spectator, self.shown);
        if updates.is_empty() {
            return Ok(());
        }
        let mut out = std::io::stdout().lock();
        for u in &updates {
            let lines = update_text::<R>(self.session.table().state(), u);
            if self.json {
                writeln!(out, "{}", serde_json::to_string(u)?)?;
            } else {
                for l in &lines {
                    writeln!(out, "{l}")?;
                }
            }
            if let Some(log) = &mut self.log {
                for l in &lines {
                    writeln!(log, "{l}")?;
                }
            }
            self.public.extend(lines);
            self.shown = u.seq;
        }
        out.flush()?;
        if let Some(log) = &mut self.log {
            log.flush()?;
        }
        Ok(())
    }

    fn save(&mut self) -> anyhow::Result<()> {
        if let Some(saver) = &mut self.saver {
            saver.write(&self.session.record())?;
        }
        Ok(())
    }

    /// After an accepted command: save, tell the hook, print.
    fn accepted(&mut self) -> anyhow::Result<()> {
        self.save()?;
        if let Some(hook) = &mut self.hook {
            hook(&self.session)?;
        }
        self.show()
    }

    fn waiting(&self) -> String {
        let state = self.session.table().state();
        let names: Vec<String> = self.session.awaiting().iter().map(|&s| seat_name::<R>(state, s)).collect();
        format!("waiting for {}", escape(&names.join(", ")))
    }

    fn play(&mut self) -> anyhow::Result<Stop> {
        self.show()?;
        loop {
            if self.session.is_over() {
                if let Some((seat, command)) = (self.limits.epilogue)(self.session.table().state()) {
                    self.session.submit(seat, &command).map_err(|e| anyhow::anyhow!("{e}"))?;
                    self.accepted()?;
                    continue;
                }
                // After the end, a script may go on (the GM's Rest Scenes).
                if let Source::Script(script) = &mut self.source
                    && let Some(line) = script.next_line()?
                {
                    self.scripted(line)?;
                    continue;
                }
                return Ok(Stop::Over);
            }
            if let Some(why) = (self.limits.stop)(self.session.table().state()) {
                return Ok(Stop::Limit(why));
            }
            let awaiting = self.session.awaiting();
            if awaiting.is_empty() {
                bail!("the game waits for nobody but is not over");
            }
            // A decision with one choice of play reveals nothing: take it for any seat.
            let mut single = None;
            for &seat in &awaiting {
                if let Some(p) = self.session.prompt(seat) {
                    let mut plays = p.choices.iter().filter(|c| R::is_play(&c.command));
                    if let (Some(only), None) = (plays.next(), plays.next()) {
                        single = Some((seat, only.command.clone()));
                        break;
                    }
                }
            }
            if let Some((seat, command)) = single {
                self.session.submit(seat, &command).map_err(|e| anyhow::anyhow!("{e}"))?;
                self.accepted()?;
                continue;
            }
            // Bots first: they never wait on a person.
            if let Some(&seat) =
                awaiting.iter().find(|s| self.bots.get(usize::from(s.0)).is_some_and(Option::is_some))
            {
                let mut legal = Vec::new();
                R::legal_commands(self.session.table().state(), seat, &mut legal);
                legal.retain(|c| R::is_play(c));
                let decision = Decision::<R>::new(self.session.table().state(), seat, &legal);
                let pick = match &mut self.bots[usize::from(seat.0)] {
                    Some(bot) => bot.choose(&decision),
                    None => 0,
                };
                let Some(command) = legal.get(pick.min(legal.len().saturating_sub(1))).cloned() else {
                    bail!(
                        "the bot of seat {} has nothing to choose",
                        seat_name::<R>(self.session.table().state(), seat)
                    );
                };
                self.session.submit(seat, &command).map_err(|e| anyhow::anyhow!("{e}"))?;
                self.accepted()?;
                continue;
            }
            let waiting = self.waiting();
            match &mut self.source {
                Source::Script(script) => {
                    let Some(line) = script.next_line()? else {
                        return Ok(Stop::Paused(format!(
                            "the script {} ended before the {} did ({waiting})",
                            script.name(),
                            R::GAME,
                        )));
                    };
                    self.scripted(line)?;
                }
                Source::Keyboard(_) => {
                    if let Some(stop) = self.ask(awaiting[0])? {
                        return Ok(stop);
                    }
                }
            }
        }
    }

    /// Gives one script line to the session.
    fn scripted(&mut self, line: Line) -> anyhow::Result<()> {
        let state = self.session.table().state();
        let at = line.at.clone();
        let seat = R::seats(state)
            .find(&line.seat)
            .with_context(|| format!("{at}: unknown seat {:?}", line.seat))?;
        if self.bots.get(usize::from(seat.0)).is_some_and(Option::is_some) {
            bail!(
                "{at}: seat {} is played by a bot (--bot); a script gives only the commands of seats without one",
                escape(&line.seat)
            );
        }
        let result = match line.what {
            script::What::Command(mut value) => {
                R::resolve_names(state, seat, &mut value).with_context(|| format!("{at}: bad command"))?;
                let command: R::Command =
                    serde_json::from_value(value).with_context(|| format!("{at}: not a command"))?;
                self.session.submit(seat, &command).map_err(|e| e.to_string())
            }
            script::What::TakeBack => take_back(&mut self.session, seat),
            script::What::Undo => undo(&mut self.session, seat),
            script::What::Force(named) => match R::seats(state).find(&named) {
                Ok(other) => force(&mut self.session, other, seat),
                Err(_) => Err(format!("there is no seat named {:?} to force", escape(&named))),
            },
        };
        if let Err(e) = result {
            bail!("{at} (seat {}): {e}", escape(&line.seat));
        }
        self.accepted()
    }

    /// Asks a person at the keyboard for `seat`'s decision until the session accepts one.
    fn ask(&mut self, seat: SeatId) -> anyhow::Result<Option<Stop>> {
        let waiting = self.waiting();
        let Source::Keyboard(keyboard) = &mut self.source else { return Ok(None) };
        let Some(prompt) = self.session.prompt(seat) else {
            bail!("the game waits for seat {} but has no question for it", seat.0);
        };
        let state = self.session.table().state();
        let name = escape(&seat_name::<R>(state, seat)).into_owned();
        let gm = is_gm::<R>(state, seat);
        let mut out: Box<dyn Write> =
            if self.json { Box::new(std::io::stderr()) } else { Box::new(std::io::stdout()) };
        // At a real terminal a private decision (a face-down choice, or the GM's view) is
        // handed over: the seat confirms the others look away; the screen is cleared after.
        let private = keyboard.is_terminal() && !self.json && (prompt.private || gm);
        writeln!(out)?;
        if private {
            let ready =
                format!("Pass the keyboard to seat {name}. {name}: press Enter when the others look away.");
            if keyboard.read(&ready, false, &mut out)?.is_none() {
                return Ok(Some(Stop::Paused(format!(
                    "the input ended before the {} did ({waiting})",
                    R::GAME
                ))));
            }
        }
        let gm_seat = R::seats(state).iter().find(|(_, s)| s.role == Role::Gm).map(|(id, _)| id);
        let help = format!(
            "a number or a choice's words; `?` the quick reference; a command as JSON {{...}}; `back [SEAT]` \
             takes back a face-down choice not yet revealed{}",
            if gm_seat.is_some() {
                "; `undo`: the GM undoes the last public command; `force [SEAT]`: the GM has the rules' default \
                 taken for this seat (or SEAT)"
            } else {
                ""
            }
        );
        let labels: Vec<&str> = prompt.choices.iter().map(|c| c.label.as_str()).collect();
        let raw_name = seat_name::<R>(state, seat);
        let view = serde_json::to_value(R::view(state, Viewer::Seat(seat))).unwrap_or_default();
        let title = seat_title(&view, &raw_name, is_gm::<R>(state, seat));
        write_prompt(
            &mut out,
            &title,
            prompt.private,
            &R::seat_view(state, seat),
            &prompt.question,
            &labels,
            &help,
        )?;
        loop {
            let Some(answer) = keyboard.read(&format!("{name}> "), prompt.private, &mut out)? else {
                return Ok(Some(Stop::Paused(format!(
                    "the input ended before the {} did ({waiting})",
                    R::GAME
                ))));
            };
            let answer = answer.trim();
            let result = match answer {
                "?" | "help" => {
                    print_lines(&mut out, &quick_reference::<R>())?;
                    continue;
                }
                "undo" => match gm_seat {
                    Some(by) => undo(&mut self.session, by),
                    None => Err("there is no GM seat to undo a command".to_owned()),
                },
                "back" => take_back(&mut self.session, seat),
                "force" => match gm_seat {
                    Some(by) => force(&mut self.session, seat, by),
                    None => Err("there is no GM seat to force a decision".to_owned()),
                },
                _ if answer.starts_with("force ") => {
                    let named = answer["force ".len()..].trim();
                    match (gm_seat, R::seats(self.session.table().state()).find(named)) {
                        (None, _) => Err("there is no GM seat to force a decision".to_owned()),
                        (Some(by), Ok(other)) => force(&mut self.session, other, by),
                        (_, Err(_)) => Err(format!("there is no seat named {named:?}")),
                    }
                }
                _ if answer.starts_with("back ") => {
                    let named = answer["back ".len()..].trim();
                    match R::seats(self.session.table().state()).find(named) {
                        Ok(other) => take_back(&mut self.session, other),
                        Err(_) => Err(format!("there is no seat named {named:?}")),
                    }
                }
                _ => match parse_answer::<R>(self.session.table().state(), seat, &prompt.choices, answer) {
                    Ok(command) => self.session.submit(seat, &command).map_err(|e| e.to_string()),
                    Err(e) => Err(e),
                },
            };
            match result {
                Ok(()) => break,
                Err(e) => writeln!(out, "Not accepted: {}. Try again.", escape(&e))?,
            }
        }
        if private {
            write!(out, "{}", cleared_screen(&self.public))?;
        }
        out.flush()?;
        drop(out);
        self.accepted()?;
        Ok(None)
    }

    /// Whom the end speaks to: the one seat no bot plays, when there is exactly one ("You
    /// lost: Kuro's side wins"); else everyone at the screen, as a spectator.
    fn you(&self) -> Viewer {
        let mut people = self.bots.iter().enumerate().filter(|(_, b)| b.is_none());
        match (people.next(), people.next()) {
            (Some((seat, _)), None) => {
                u16::try_from(seat).map_or(Viewer::Spectator, |s| Viewer::Seat(SeatId(s)))
            }
            _ => Viewer::Spectator,
        }
    }

    fn finish(mut self, stop: Stop, common: &Common, kept: Option<String>) -> anyhow::Result<ExitCode> {
        self.show()?;
        let state = self.session.table().state();
        let view = R::view(state, Viewer::Spectator);
        let mut out = std::io::stdout().lock();
        match stop {
            Stop::Over => {
                if self.json {
                    writeln!(out, "{}", serde_json::to_string(&view)?)?;
                } else {
                    writeln!(out, "\nThe {} is over.", R::GAME)?;
                    print_lines(&mut out, &R::summary(state, self.you()))?;
                }
                Ok(ExitCode::SUCCESS)
            }
            Stop::Limit(why) => {
                let note = match &common.save {
                    Some(p) => format!("{why}: continue with --resume {}", p.display()),
                    None => why,
                };
                if self.json {
                    writeln!(out, "{}", serde_json::json!({ "stopped": note, "view": view }))?;
                } else {
                    writeln!(out, "\n{}", escape(&note))?;
                }
                Ok(ExitCode::SUCCESS)
            }
            Stop::Paused(why) if kept.is_some() => {
                let note = format!("paused: {why}; {}", kept.unwrap_or_default());
                if self.json {
                    writeln!(out, "{}", serde_json::json!({ "paused": note }))?;
                } else {
                    writeln!(out, "\n{}", escape(&note))?;
                }
                Ok(ExitCode::SUCCESS)
            }
            Stop::Paused(why) => match &common.save {
                Some(path) => {
                    let note = format!(
                        "paused: {why}; the game is saved in {p}; continue with --resume {p}",
                        p = path.display()
                    );
                    if self.json {
                        writeln!(out, "{}", serde_json::json!({ "paused": note, "save": path }))?;
                    } else {
                        writeln!(out, "\n{}", escape(&note))?;
                    }
                    Ok(ExitCode::SUCCESS)
                }
                None => bail!("{why}; use --save FILE to pause a game and --resume FILE to go on"),
            },
        }
    }
}

/// How many lines of the public log are reprinted after the screen is cleared.
const REPRINTED: usize = 40;

/// What clears the screen after a private answer (the screen and its scrollback), followed by
/// the tail of the public log, so clearing never wipes what everyone has seen.
fn cleared_screen(public: &[String]) -> String {
    let mut s = String::from("\x1b[2J\x1b[3J\x1b[H");
    let from = public.len().saturating_sub(REPRINTED);
    if from > 0 {
        s.push_str(&format!("(… {from} earlier lines: see --log FILE for the whole log)\n"));
    }
    for l in &public[from..] {
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// The GM's undo of the last public command.
fn undo<R: Ruleset>(session: &mut Session<R>, seat: SeatId) -> Result<(), String> {
    session.undo(seat).map_err(|e| e.to_string())
}

/// The GM's seat `by` has `seat`'s awaited decision taken by the rules' documented default
/// (logged as forced for everyone).
fn force<R: Ruleset>(session: &mut Session<R>, seat: SeatId, by: SeatId) -> Result<(), String> {
    session.force(seat, Some(by)).map_err(|e| e.to_string())
}

/// A seat takes back its face-down choice.
fn take_back<R: Ruleset>(session: &mut Session<R>, seat: SeatId) -> Result<(), String> {
    session.take_back(seat).map_err(|e| e.to_string())
}

/// `text` without its symbols and punctuation, lower case, words single-spaced.
fn words(text: &str) -> String {
    let kept: String =
        text.chars().map(|c| if c.is_alphanumeric() { c.to_ascii_lowercase() } else { ' ' }).collect();
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A typed answer: a choice's number, its label (symbols and case aside, or words of it), or
/// a command as JSON (names allowed, as in scripts).
fn parse_answer<R: System>(
    state: &R::State,
    seat: SeatId,
    choices: &[table::Choice<R::Command>],
    answer: &str,
) -> Result<R::Command, String> {
    if answer.is_empty() {
        return Err("type a number from the list".to_owned());
    }
    if answer.starts_with('{') || answer.starts_with('"') {
        let mut value: Value = serde_json::from_str(answer).map_err(|e| format!("not JSON: {e}"))?;
        R::resolve_names(state, seat, &mut value).map_err(|e| format!("{e:#}"))?;
        return serde_json::from_value(value).map_err(|e| format!("not a command: {e}"));
    }
    let labels: Vec<&str> = choices.iter().map(|c| c.label.as_str()).collect();
    let i = choose(&labels, answer)?;
    Ok(choices[i].command.clone())
}

/// Which of the choices labelled `labels` a typed answer picks (its index): a choice's number,
/// its label (symbols and case aside), or words of it in the label's order.
pub(crate) fn choose(labels: &[&str], answer: &str) -> Result<usize, String> {
    if answer.is_empty() {
        return Err("type a number from the list".to_owned());
    }
    if let Ok(n) = answer.parse::<usize>() {
        return match n.checked_sub(1).filter(|&i| i < labels.len()) {
            Some(i) => Ok(i),
            None => Err(format!("there is no choice {n}; choose 1 to {}", labels.len())),
        };
    }
    if let Some(i) = labels.iter().position(|l| l.trim().eq_ignore_ascii_case(answer)) {
        return Ok(i);
    }
    let typed = words(answer);
    if typed.is_empty() {
        return Err(format!("{answer:?} is none of the choices"));
    }
    let exact: Vec<usize> = (0..labels.len()).filter(|&i| words(labels[i]) == typed).collect();
    if let [one] = exact.as_slice() {
        return Ok(*one);
    }
    // The typed words in the label's order, the label with the fewest other words winning.
    let typed: Vec<&str> = typed.split(' ').collect();
    let fits: Vec<(usize, usize)> = labels
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let label = words(l);
            let label: Vec<&str> = label.split(' ').collect();
            let mut rest = label.iter();
            typed.iter().all(|w| rest.any(|l| l == w)).then_some((label.len(), i))
        })
        .collect();
    let fewest = fits.iter().map(|(n, _)| *n).min();
    let best: Vec<_> = fits.iter().filter(|(n, _)| Some(*n) == fewest).collect();
    match best.as_slice() {
        [(_, one)] => Ok(*one),
        [] => Err(format!("{answer:?} is none of the choices")),
        _ => Err(format!("{answer:?} fits several choices; type its number")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 34: a header names a seat by its characters as the books write them (every
    /// system's view lists them with their seat), the GM's seat as the GM, then the seat.
    #[test]
    fn a_seat_is_named_by_its_characters_then_the_seat() {
        let view = serde_json::json!({
            "fighters": [{"name": "Ada", "seat": "ada"}, {"name": "Kuro", "seat": "gm"}, {"name": "Bao", "seat": "pair"}, {"name": "Ren", "seat": "pair"}],
        });
        assert_eq!(seat_title(&view, "ada", false), "Ada — seat ada");
        assert_eq!(seat_title(&view, "pair", false), "Bao and Ren — seat pair");
        assert_eq!(seat_title(&view, "gm", true), "The GM — seat gm");
        assert_eq!(seat_title(&view, "nobody", false), "Seat nobody");
        let actors = serde_json::json!({"actors": [{"name": "Kara", "seat": "kara"}]});
        assert_eq!(seat_title(&actors, "kara", false), "Kara — seat kara");
    }

    /// docs/fairness.md §3, "A lost secret": the terminal says why a seat missed its reveal.
    #[test]
    fn a_lost_secret_reads_as_such_not_as_a_late_reveal() {
        let lost = session::sealed::Fault::SECRET_LOST;
        assert_eq!(fault_name(&lost), "secret_lost");
        assert_eq!(fault_name(&session::sealed::Fault::NO_REVEAL), "no_reveal");
        let text = fault_text("Kara", fault_name(&lost));
        assert!(text.contains("its secret was lost") && !text.contains('§'), "{text}");
    }

    /// Issue 14, part 8: clearing the screen for a private prompt reprints the public log.
    #[test]
    fn clearing_the_screen_reprints_the_public_log() {
        let public: Vec<String> = (1..=50).map(|i| format!("line {i}")).collect();
        let s = cleared_screen(&public);
        let cleared = s.find("\x1b[2J").expect("the screen is cleared");
        assert!(s[cleared..].contains("line 50\n") && s[cleared..].contains("line 11\n"), "{s}");
        assert!(!s.contains("line 10\n") && s.contains("10 earlier lines"), "{s}");
        assert!(cleared_screen(&public[..3]).ends_with("line 1\nline 2\nline 3\n"));
    }

    #[test]
    fn typed_answers_match_numbers_labels_and_words_in_order() {
        use ::iron_triangle::IronTriangle;
        let setup = ::iron_triangle::Setup::one_on_one(
            toml::from_str(include_str!("../../../../examples/iron-triangle/characters/ada.toml")).unwrap(),
            toml::from_str(include_str!("../../../../examples/iron-triangle/characters/ninja.toml")).unwrap(),
        );
        let state = IronTriangle::setup(&setup).unwrap();
        let mut table = table::Table::<IronTriangle>::new(state);
        let seat = table.awaiting()[0];
        let prompt = table.state().prompt(seat).expect("a stance is asked");
        let pick = |a: &str| parse_answer::<IronTriangle>(table.state(), seat, &prompt.choices, a);
        assert_eq!(pick("1").unwrap(), prompt.choices[0].command);
        assert_eq!(pick("2 grapple").unwrap(), pick("2 grapple ▨").unwrap());
        assert_eq!(pick("NO STANCE").unwrap(), prompt.choices[0].command);
        assert!(pick("99").unwrap_err().contains("there is no choice 99"));
        assert!(pick("grapple").unwrap_err().contains("fits several choices"));
        assert!(pick("fireball").unwrap_err().contains("none of the choices"));
        let _ = table.submit(seat, &prompt.choices[0].command);
    }
}
