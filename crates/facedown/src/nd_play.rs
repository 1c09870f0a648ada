//! `facedown nodice play`: a whole No Dice Conflict in the terminal.
//!
//! Seats are played by people at one keyboard (hot-seat: face-down choices typed without
//! echo), by bots (`--bot`), or by a script of JSON lines (`--script`). After every accepted
//! command the new events are printed as the spectator sees them (face-down cards stay face
//! down); the game can be saved (`--save`) and resumed (`--resume`). Every rule lives in the
//! `nodice` crate. The formats are documented in `docs/nodice-play.md`.

mod narrate;
mod setup_file;

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use nodice::bot::GreedyBot;
use nodice::damage::even_spread;
use nodice::{ActorId, Aspect, Attribute, Command, Conflict, NoDice, Phase, Targets};
use serde_json::Value;
use solver::bots::{Bot, RandomBot};
use table::{Decision, Ruleset, Saved, SeatId, Table, Viewer};

use narrate::Narrator;

use crate::bot_flags::{bot_seed, seat_bots};
use crate::script_lines::{ScriptLine, ScriptLines};

/// Play a No Dice Conflict: hot-seat at one keyboard, against bots, or from a script.
#[derive(clap::Args)]
#[command(after_help = "\
Seats are people at this keyboard unless --bot or --script says otherwise. Face-down choices \
are typed without echo:
  Commit Aspect:  ANTE-ATTRIBUTE [TARGET,...] [: intent]   e.g.  str bandit : I swing at him
                  (the Aspect is the ante's; the target may be left out with one opponent),
                  or `withdraw` (will not ante).
  Commit Action:  ATTRIBUTE BID [wildcard] [open] [damage ASPECT]   e.g.  str 4 wildcard
  Spread damage:  three numbers in serial order (e.g. `0 0 3`), ATTRIBUTE AMOUNT pairs
                  (e.g. `int 3`), or `even`.
After a reveal, `justify: LINE` (or `justify ACTOR: LINE`) at a prompt adds a justification \
line, shown to everyone. At the start of a Hand the GM may type `engage A,B | C,D` to split a \
brawl into interaction clusters (`engage all`: everyone again). The GM may type \
`adjust ACTOR ATTRIBUTE N : reason` (or `adjust ACTOR wildcards N : reason`) at any of its \
prompts to set an Actor's chips or Wildcards, logged publicly. The GM may type `end` at any of its prompts to end the Conflict (the \
fiction resolved it). See \
docs/nodice-play.md for the conflict file and script formats.

Exit status: 0 when the Conflict ends (or a --save game pauses); 2 on a bad file, flag or \
rejected script command.")]
#[command(group(clap::ArgGroup::new("start").required(true).args(["conflict", "resume"])))]
pub struct Args {
    /// The conflict file (.toml or .json): seats, Actors, initiator, Stakes. Required unless
    /// --resume is given.
    #[arg(value_name = "CONFLICT_FILE")]
    pub conflict: Option<PathBuf>,

    /// Continue the game saved in FILE (written by --save) instead of starting from a
    /// conflict file.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,

    /// Save the game to FILE after every accepted command (pretty JSON, written atomically,
    /// readable by its owner only). A save taken mid-Hand holds the cards already committed
    /// face down in plain text: keep it from the other players.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,

    /// Let a bot play a seat: SEAT=random or SEAT=greedy, where SEAT is a seat name or `all`.
    /// Repeatable; a later one wins. Random bots choose uniformly among the legal commands but
    /// never withdraw while they can ante; greedy bots play the Aspect, Action and bid with
    /// the best expected damage this Hand (docs/nodice-play.md).
    #[arg(long = "bot", value_name = "SEAT=KIND")]
    pub bots: Vec<String>,

    /// Seed of the bots: seat i (from 0) uses seed × 1000003 + i.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,

    /// Take the commands of the seats without a bot from FILE (`-` for standard input): one
    /// JSON object per line, {"seat": "gm", "command": {...}}.
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,

    /// Stop after N Hands if the Conflict has not ended (the rules also end it as a
    /// stalemate after 10 Hands in a row without damage or elimination; docs/nodice.md,
    /// Decision 31). The game is saved with --save and can be resumed.
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub max_hands: u32,

    /// Print each event as a JSON line (hidden values left out) and finish with the
    /// spectator's view as one JSON line. Prompts go to standard error.
    #[arg(long)]
    pub json: bool,
}

/// A random bot that does not withdraw while it can ante.
struct SteadyBot(RandomBot);

impl Bot<NoDice> for SteadyBot {
    fn choose(&mut self, decision: &Decision<'_, NoDice>) -> usize {
        let pick = self.0.choose(decision);
        let legal = decision.legal;
        if matches!(legal.get(pick), Some(Command::Withdraw { .. })) && legal.len() > 1 {
            (pick + 1) % legal.len()
        } else {
            pick
        }
    }
}

/// The bots of `--bot`.
enum NdBot {
    /// `random`.
    Random(SteadyBot),
    /// `greedy`: [`nodice::bot::GreedyBot`] on the seat's own view.
    Greedy(GreedyBot),
}

impl Bot<NoDice> for NdBot {
    fn choose(&mut self, decision: &Decision<'_, NoDice>) -> usize {
        match self {
            NdBot::Random(bot) => bot.choose(decision),
            NdBot::Greedy(bot) => bot.choose(&decision.view(), decision.legal),
        }
    }
}

fn make_bots(args: &Args, state: &Conflict) -> anyhow::Result<Vec<Option<NdBot>>> {
    let on = seat_bots(&args.bots, &state.seats, &["random", "greedy"], "No Dice")?;
    Ok(on
        .into_iter()
        .enumerate()
        .map(|(i, b)| {
            let seed = bot_seed(args.seed, i);
            b.map(|kind| match kind {
                "greedy" => NdBot::Greedy(GreedyBot::new(seed)),
                _ => NdBot::Random(SteadyBot(RandomBot::new(seed))),
            })
        })
        .collect())
}

/// Writes the save atomically (see [`crate::save_file`]).
fn write_save(table: &Table<NoDice>, path: &Path) -> anyhow::Result<()> {
    let json = serde_json::to_string_pretty(&table.save()).context("cannot encode the save")?;
    crate::save_file::write_atomic(path, &(json + "\n"))
}

/// Reads a save and checks it against the rules.
fn read_save(path: &Path) -> anyhow::Result<Table<NoDice>> {
    let name = path.display();
    let text = crate::input::read_bounded(path, crate::input::SAVE_LIMIT)
        .with_context(|| format!("cannot read the save {name}"))?;
    let saved: Saved<NoDice> =
        serde_json::from_str(&text).with_context(|| format!("{name} is not a facedown No Dice save"))?;
    nodice::load_checked(saved).with_context(|| format!("{name}: corrupt save"))
}

/// Turns a typed answer into a command for `actor`.
fn parse_answer(state: &Conflict, actor: ActorId, answer: &str) -> Result<Command, String> {
    let (main, intent) = match answer.split_once(':') {
        Some((m, i)) => (m, Some(i.trim().to_owned()).filter(|i| !i.is_empty())),
        None => (answer, None),
    };
    let words: Vec<&str> =
        main.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()).collect();
    match state.phase {
        Phase::CommitAspect => {
            if words.first().is_some_and(|w| w.eq_ignore_ascii_case("withdraw")) {
                return Ok(Command::Withdraw { actor });
            }
            let first = words.first().ok_or("type the ante's Attribute (it fixes the Aspect), e.g. `str`")?;
            let ante: Attribute = first.parse().map_err(|e| format!("{e}"))?;
            let mut targets = Targets::NONE;
            for w in &words[1..] {
                let t = state.find(w).ok_or_else(|| format!("there is no Actor named {w:?}"))?;
                targets = targets.with(t);
            }
            if targets.is_empty() {
                let opponents: Vec<ActorId> = (0..state.actors.len() as u8)
                    .map(ActorId)
                    .filter(|&t| state.may_target(actor, t))
                    .collect();
                match opponents.as_slice() {
                    [only] => targets = Targets::one(*only),
                    _ => return Err("name your target(s) after the Attribute, e.g. `str bandit`".into()),
                }
            }
            Ok(Command::CommitAspect { actor, aspect: ante.aspect(), ante, targets, intent })
        }
        Phase::CommitAction => {
            let [attr, bid, rest @ ..] = words.as_slice() else {
                return Err("type the Attribute and the bid, e.g. `str 4`".into());
            };
            let attribute: Attribute = attr.parse().map_err(|e| format!("{e}"))?;
            let bid: u16 = bid.parse().map_err(|_| format!("the bid {bid:?} is not a number"))?;
            let (mut wildcard, mut open, mut damage_aspect) = (false, false, None);
            let mut it = rest.iter();
            while let Some(w) = it.next() {
                match w.to_ascii_lowercase().as_str() {
                    "wildcard" | "wc" | "w" => wildcard = true,
                    "open" | "up" => open = true,
                    "damage" => {
                        let x = it.next().ok_or("`damage` needs an Aspect, e.g. `damage body`")?;
                        damage_aspect = Some(x.parse::<Aspect>().map_err(|e| format!("{e}"))?);
                    }
                    other => return Err(format!("{other:?}: expected wildcard, open or damage ASPECT")),
                }
            }
            Ok(Command::CommitAction { actor, attribute, bid, wildcard, open, damage_aspect })
        }
        Phase::SpreadDamage { damage } => {
            let Some((_, aspect, _)) = state.spreading() else { return Err("nothing to spread".into()) };
            let values = state.actors[actor.index()].aspect_values(aspect);
            if words.first().is_some_and(|w| w.eq_ignore_ascii_case("even")) {
                return Ok(Command::SpreadDamage { actor, spread: even_spread(values, damage) });
            }
            let mut spread = [0u16; 3];
            if words.len() == 3 && words.iter().all(|w| w.parse::<u16>().is_ok()) {
                for (s, w) in spread.iter_mut().zip(&words) {
                    *s = w.parse().unwrap_or(0);
                }
            } else {
                if !words.len().is_multiple_of(2) || words.is_empty() {
                    return Err(format!(
                        "spread {damage} {aspect} damage: three numbers, ATTRIBUTE AMOUNT pairs, or `even`"
                    ));
                }
                for pair in words.chunks(2) {
                    let a: Attribute = pair[0].parse().map_err(|e| format!("{e}"))?;
                    if a.aspect() != aspect {
                        return Err(format!("{a} is not a {aspect} Attribute"));
                    }
                    let n = pair[1].parse::<u16>().map_err(|_| format!("{:?} is not a number", pair[1]))?;
                    spread[a.slot()] = spread[a.slot()].checked_add(n).ok_or_else(|| {
                        format!("the spread is too large: {damage} {aspect} damage to place")
                    })?;
                }
            }
            Ok(Command::SpreadDamage { actor, spread })
        }
        _ => Err("nothing to decide now".into()),
    }
}

/// `justify [ACTOR]: line` — a justification line after the reveal (seed: Step 3, Bluff
/// Space Rule); `None` when the answer is something else.
fn parse_justify(state: &Conflict, actor: ActorId, answer: &str) -> Option<Result<Command, String>> {
    let rest = answer.trim_start();
    let head = rest.get(..7).filter(|h| h.eq_ignore_ascii_case("justify"))?;
    let rest = &rest[head.len()..];
    let Some((who, line)) = rest.split_once(':') else {
        return Some(Err("write `justify: your line` (or `justify ACTOR: your line`)".into()));
    };
    let who = who.trim();
    let actor = if who.is_empty() {
        actor
    } else {
        match state.find(who) {
            Some(a) => a,
            None => return Some(Err(format!("there is no Actor named {who:?}"))),
        }
    };
    Some(Ok(Command::Justify { actor, line: line.trim().to_owned() }))
}

/// `engage A,B | C,D` (the GM's interaction clusters) or `engage all`; `None` when the
/// answer is something else.
fn parse_engage(state: &Conflict, answer: &str) -> Option<Result<Command, String>> {
    let rest = answer.trim_start();
    let head = rest.get(..6).filter(|h| h.eq_ignore_ascii_case("engage"))?;
    let rest = rest[head.len()..].trim();
    if rest.is_empty() || rest.eq_ignore_ascii_case("all") {
        return Some(Ok(Command::Engage { clusters: vec![] }));
    }
    let mut clusters = Vec::new();
    for part in rest.split('|') {
        let mut t = Targets::NONE;
        for w in part.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()) {
            match state.find(w) {
                Some(a) => t = t.with(a),
                None => return Some(Err(format!("there is no Actor named {w:?}"))),
            }
        }
        clusters.push(t);
    }
    Some(Ok(Command::Engage { clusters }))
}

/// The question of the ruleset's prompt (escaped), with how to type an answer here.
fn question(state: &Conflict, seat: SeatId) -> String {
    let Some(prompt) = NoDice::prompt(state, seat) else { return String::new() };
    let how = match state.phase {
        Phase::CommitAspect => "ATTRIBUTE [TARGETS] [: intent], or `withdraw`",
        Phase::CommitAction => "ATTRIBUTE BID [wildcard] [open]",
        Phase::SpreadDamage { .. } => "three numbers, ATTRIBUTE AMOUNT pairs, or `even`",
        _ => "",
    };
    format!("{}: {how}.", crate::input::escape(&prompt.question))
}

/// `adjust ACTOR ATTRIBUTE N : reason` or `adjust ACTOR wildcards N : reason` (the GM's
/// adjustment, Decision 35); `None` when the answer is something else.
fn parse_adjust(state: &Conflict, answer: &str) -> Option<Result<Command, String>> {
    let rest = answer.trim_start();
    let head = rest.get(..6).filter(|h| h.eq_ignore_ascii_case("adjust"))?;
    let rest = &rest[head.len()..];
    let usage = "write `adjust ACTOR ATTRIBUTE N : reason` or `adjust ACTOR wildcards N : reason`";
    let Some((what, reason)) = rest.split_once(':') else { return Some(Err(usage.into())) };
    let words: Vec<&str> = what.split_whitespace().collect();
    let [who, field, n] = words.as_slice() else { return Some(Err(usage.into())) };
    let Some(actor) = state.find(who) else { return Some(Err(format!("there is no Actor named {who:?}"))) };
    let Ok(to) = n.parse::<u16>() else { return Some(Err(format!("{n:?} is not a number"))) };
    let change = if field.eq_ignore_ascii_case("wildcards") || field.eq_ignore_ascii_case("wildcard") {
        nodice::Adjustment::Wildcards { to }
    } else {
        match field.parse::<Attribute>() {
            Ok(attribute) => nodice::Adjustment::Chips { attribute, to },
            Err(e) => return Some(Err(format!("{e}"))),
        }
    };
    Some(Ok(Command::Adjust { actor, change, reason: reason.trim().to_owned() }))
}

/// Replaces Actor names by ids (keys `actor`, `targets`, `clusters`).
fn resolve_names(value: &mut Value, state: &Conflict) -> anyhow::Result<()> {
    let id = |v: &Value| -> anyhow::Result<Value> {
        match v {
            Value::String(name) => state
                .find(name)
                .map(|a| Value::from(a.0))
                .with_context(|| format!("there is no Actor named {name:?}")),
            other => Ok(other.clone()),
        }
    };
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match key.as_str() {
                    "actor" => *v = id(v)?,
                    "targets" => {
                        if let Value::Array(items) = v {
                            for item in items.iter_mut() {
                                *item = id(item)?;
                            }
                        }
                    }
                    "clusters" => {
                        if let Value::Array(clusters) = v {
                            for cluster in clusters.iter_mut() {
                                if let Value::Array(items) = cluster {
                                    for item in items.iter_mut() {
                                        *item = id(item)?;
                                    }
                                }
                            }
                        }
                    }
                    _ => resolve_names(v, state)?,
                }
            }
        }
        Value::Array(items) => {
            for v in items {
                resolve_names(v, state)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// A No Dice script: the shared line reader, with Actor names resolved to ids.
struct Script(ScriptLines);

impl Script {
    fn open(path: &Path) -> anyhow::Result<Script> {
        Ok(Script(ScriptLines::open(path)?))
    }

    fn name(&self) -> &str {
        self.0.name()
    }

    fn next(&mut self, state: &Conflict) -> anyhow::Result<Option<(usize, SeatId, Command)>> {
        let Some(ScriptLine { number, at, seat, mut command }) = self.0.next_line()? else {
            return Ok(None);
        };
        let seat = state.seats.find(&seat).with_context(|| format!("{at}: unknown seat"))?;
        resolve_names(&mut command, state).with_context(|| format!("{at}: bad command"))?;
        let command: Command =
            serde_json::from_value(command).with_context(|| format!("{at}: not a command"))?;
        Ok(Some((number, seat, command)))
    }
}

enum Source {
    Keyboard { tty: bool, stdin: std::io::StdinLock<'static> },
    Script(Script),
}

enum Stop {
    Over,
    Paused(String),
    /// `--max-hands` Hands were played and the Conflict goes on.
    MaxHands,
}

struct Game {
    table: Table<NoDice>,
    narrator: Narrator,
    bots: Vec<Option<NdBot>>,
    source: Source,
    save: Option<PathBuf>,
    json: bool,
    max_hands: u32,
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
                return Ok(Stop::Over);
            }
            if self.table.state().hand > self.max_hands {
                return Ok(Stop::MaxHands);
            }
            let Some(&seat) = self.table.awaiting().first() else {
                bail!(
                    "the engine waits for {} but no seat is asked",
                    crate::input::Shown(&self.table.state().waiting_for())
                );
            };
            if let Some(bot) = &mut self.bots[usize::from(seat.0)] {
                let decision = self.table.decision(seat, &mut legal);
                if decision.legal.is_empty() {
                    bail!("seat {} has no legal command", self.table.state().seat_name(seat));
                }
                let pick = bot.choose(&decision).min(legal.len() - 1);
                let command = legal[pick].clone();
                self.table
                    .submit(seat, &command)
                    .map_err(|e| anyhow::anyhow!("the engine refused a legal command: {e}"))?;
                self.after_accept()?;
                continue;
            }
            match &mut self.source {
                Source::Script(script) => {
                    let Some((line, who, command)) = script.next(self.table.state())? else {
                        return Ok(Stop::Paused(format!(
                            "the script {} ended before the Conflict did (waiting for {})",
                            script.name(),
                            crate::input::Shown(&self.table.state().waiting_for())
                        )));
                    };
                    let name = script.name().to_owned();
                    if self.bots.get(usize::from(who.0)).is_some_and(Option::is_some) {
                        bail!(
                            "{name} line {line}: seat {} is played by a bot (--bot)",
                            self.table.state().seat_name(who)
                        );
                    }
                    if let Err(e) = self.table.submit(who, &command) {
                        bail!("{name} line {line} (seat {}): {e}", self.table.state().seat_name(who));
                    }
                    self.after_accept()?;
                }
                Source::Keyboard { .. } => {
                    if let Some(stop) = self.ask(seat)? {
                        return Ok(stop);
                    }
                }
            }
        }
    }

    fn read(&mut self, prompt: &str, hidden: bool, out: &mut dyn Write) -> anyhow::Result<Option<String>> {
        let Source::Keyboard { tty, stdin } = &mut self.source else { return Ok(None) };
        if *tty && hidden {
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
        if stdin.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(None);
        }
        if !*tty {
            writeln!(out)?;
        }
        Ok(Some(line.trim().to_owned()))
    }

    fn ask(&mut self, seat: SeatId) -> anyhow::Result<Option<Stop>> {
        let tty = matches!(self.source, Source::Keyboard { tty: true, .. });
        let state = self.table.state().clone();
        let Some(actor) = state.committing().or(state.spreading().map(|s| s.0)) else {
            bail!("the engine waits for seat {} but for no Actor", state.seat_name(seat));
        };
        let seat_name = crate::input::escape(state.seat_name(seat)).into_owned();
        // The ruleset says which answers are face down.
        let hidden = NoDice::prompt(&state, seat).is_some_and(|p| p.private)
            || matches!(state.phase, Phase::CommitAspect | Phase::CommitAction);
        let mut out: Box<dyn Write> =
            if self.json { Box::new(std::io::stderr()) } else { Box::new(std::io::stdout()) };
        // A face-down choice, or the GM's screen (it shows the NPCs' stat blocks), is handed
        // over privately at a terminal.
        let private = tty && !self.json && (hidden || state.is_gm(seat));
        writeln!(out)?;
        if private {
            let ready = format!(
                "Pass the keyboard to seat {seat_name}. {seat_name}: press Enter when the others look away."
            );
            if self.read(&ready, false, &mut out)?.is_none() {
                return Ok(Some(Stop::Paused(format!(
                    "the input ended (waiting for {})",
                    crate::input::Shown(&state.waiting_for())
                ))));
            }
        }
        writeln!(out, "===== Seat {seat_name}{} =====", if hidden { " (others look away)" } else { "" })?;
        narrate::seat_view(&self.table.view(Viewer::Seat(seat)), state.seat_name(seat), &mut out)?;
        writeln!(out, "{}", question(&state, seat))?;
        loop {
            let Some(answer) = self.read(&format!("{seat_name}> "), hidden, &mut out)? else {
                return Ok(Some(Stop::Paused(format!(
                    "the input ended before the Conflict did (waiting for {})",
                    crate::input::Shown(&state.waiting_for())
                ))));
            };
            let command = if answer.trim().eq_ignore_ascii_case("end") {
                Command::EndConflict
            } else if let Some(e) = parse_engage(&state, &answer) {
                match e {
                    Ok(c) => c,
                    Err(msg) => {
                        writeln!(out, "Not accepted: {msg}. Try again.")?;
                        continue;
                    }
                }
            } else if let Some(a) = parse_adjust(&state, &answer) {
                match a {
                    Ok(c) => c,
                    Err(msg) => {
                        writeln!(out, "Not accepted: {msg}. Try again.")?;
                        continue;
                    }
                }
            } else if let Some(j) = parse_justify(&state, actor, &answer) {
                match j {
                    Ok(c) => c,
                    Err(msg) => {
                        writeln!(out, "Not accepted: {msg}. Try again.")?;
                        continue;
                    }
                }
            } else {
                match parse_answer(&state, actor, &answer) {
                    Ok(c) => c,
                    Err(msg) => {
                        writeln!(out, "Not accepted: {msg}. Try again.")?;
                        continue;
                    }
                }
            };
            match self.table.submit(seat, &command) {
                Ok(_) if matches!(command, Command::Justify { .. } | Command::Adjust { .. }) => {
                    // Table talk or the GM's adjustment: shown to everyone, then the same
                    // question again (an adjustment may change the legal answers).
                    out.flush()?;
                    self.after_accept()?;
                    writeln!(out, "{}", question(&state, seat))?;
                }
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

/// Runs `facedown nodice play`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (table, scene, resumed) = match (&args.resume, &args.conflict) {
        (Some(path), _) => (read_save(path)?, None, true),
        (None, Some(path)) => {
            let loaded = setup_file::load(path)?;
            for w in &loaded.warnings {
                eprintln!("warning: {w}");
            }
            let mut table: Table<NoDice> = Table::new(loaded.conflict);
            if !loaded.engagement.is_empty() {
                let gm =
                    table.state().seats.iter().find(|(id, _)| table.state().is_gm(*id)).map(|(id, _)| id);
                let gm = gm.with_context(|| {
                    format!("{}: engagement needs a GM seat (the GM engages the Actors)", path.display())
                })?;
                table
                    .submit(gm, &Command::Engage { clusters: loaded.engagement })
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            }
            (table, loaded.scene, false)
        }
        (None, None) => bail!("give a conflict file or --resume FILE"),
    };
    let bots = make_bots(&args, table.state())?;
    let source = match &args.script {
        Some(p) => Source::Script(Script::open(p)?),
        None => {
            let stdin = std::io::stdin();
            Source::Keyboard { tty: stdin.is_terminal(), stdin: stdin.lock() }
        }
    };
    let narrator =
        if resumed { Narrator::from_now(&table, args.json) } else { Narrator::from_start(&table, args.json) };
    if !args.json {
        let mut out = std::io::stdout().lock();
        if let Some(p) = &args.resume {
            writeln!(out, "Resuming {} ({} events so far).", p.display(), table.log().len())?;
        }
        narrate::intro(&table.view(Viewer::Spectator), scene.as_deref(), &mut out)?;
    }
    let mut game = Game {
        table,
        narrator,
        bots,
        source,
        save: args.save.clone(),
        json: args.json,
        max_hands: args.max_hands,
    };
    let stop = match game.run() {
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
            if args.json {
                writeln!(out, "{}", serde_json::to_string(&view)?)?;
            } else {
                narrate::summary(&view, &mut out)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Stop::MaxHands => {
            let note = format!(
                "stopped after {n} Hand(s) (--max-hands {n}); the Conflict goes on{}",
                args.save
                    .as_ref()
                    .map(|p| format!(": continue with --resume {}", p.display()))
                    .unwrap_or_default(),
                n = args.max_hands,
            );
            if args.json {
                writeln!(out, "{}", serde_json::json!({ "stopped": note, "view": view }))?;
            } else {
                writeln!(out, "\n{note}")?;
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
