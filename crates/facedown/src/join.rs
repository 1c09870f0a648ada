//! `facedown join LINK`: plays one seat of a remote table (or watches it, with the GM's or the
//! spectators' link) over the protocol of docs/protocol.md, with the same prompts and narration
//! as local play.
//!
//! Every request carries a client id. When the connection drops, the client reconnects with
//! the last sequence number it saw (bounded retries with a growing pause) and sends a request
//! that was not acknowledged again with the same id: the server applies it once.

use std::collections::VecDeque;
use std::hash::BuildHasher;
use std::io::{BufRead, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::Value;
use server::client::{Client, ClientError};
use server::protocol::{
    ClientMessage, ErrorCode, ManageAction, SeatInfo, SeatMode, ServerMessage, Who, parse_link,
};
use table::Ruleset;
use table::fairness::Nonce;

use crate::input::{TEXT_LIMIT, escape, read_bounded};
use crate::play;

/// Play one seat of a remote table in the terminal, or watch it.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
facedown join --link-file ada.link                # the link saved in a file\n  \
facedown join < ada.link                          # or as the first line of standard input\n  \
facedown join http://192.168.1.5:8080/t/3#…       # or given whole (it stays in the shell's history)\n\n\
At a prompt type a number or a choice's words; `back` takes back your face-down choice before\n\
the reveal; `?` prints the quick reference. The GM link or the rules' GM seat: `force SEAT`\n\
and `undo`; the GM link also `bot SEAT KIND`, `person SEAT`, `reissue [SEAT]`, `revoke SEAT`.\n\
Exits 0 when the game is over.")]
pub struct Args {
    /// The table's link, http://host:port/t/TABLE#TOKEN. Leave it out to read it from
    /// --link-file or the first line of standard input: a link on the command line stays in
    /// the shell's history and shows in the process list.
    #[arg(value_name = "LINK")]
    pub link: Option<String>,

    /// Read the link from FILE (its first line).
    #[arg(long, value_name = "FILE", conflicts_with = "link")]
    pub link_file: Option<PathBuf>,

    /// Take the answers from FILE instead of the keyboard: one JSON value a line — a choice's
    /// number (1 is the first), a typed answer as a string ("2 grapple", "back", "undo",
    /// "force ninja"), or a command of the ruleset as {"command": {...}}. A refused line stops
    /// the client (exit status 2), unless the table moved on while it was on its way (a bot
    /// decided first): then it is passed over and the next line answers the question asked now.
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,

    /// Print every frame the server sends as it came, one JSON line each (prompts go to
    /// standard error).
    #[arg(long)]
    pub json: bool,

    /// Times in a row to try reconnecting after the connection drops (pausing 0.25 s, then
    /// twice as long each time, at most 5 s).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub retries: u32,
}

/// How long connecting and the welcome may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How often an idle connection is pinged (so proxies keep it open).
const PING_EVERY: Duration = Duration::from_secs(25);

/// Lines typed ahead that are kept until they can be used (more wait in the keyboard's pipe).
const KEYBOARD_LINES: usize = 64;

/// The longest line of a link file or of the keyboard.
const LINE_LIMIT: u64 = 64 * 1024;

/// One answer, from the keyboard or a script.
#[derive(Debug, Clone, PartialEq)]
enum Answer {
    /// Words as typed: a number, a choice's words, or one of the commands (`back`, `undo`…).
    Typed(String),
    /// A command of the ruleset as JSON.
    Command(Value),
}

/// Where answers come from.
struct Answers {
    /// Answers read but not used yet, with where they came from ("script.jsonl:3").
    queue: VecDeque<(Answer, String)>,
    /// Whether no more will come.
    ended: bool,
    /// Whether they come from a script (a refused one stops the client).
    scripted: bool,
    /// The keyboard's lines, read on a thread of their own.
    keyboard: Option<tokio::sync::mpsc::Receiver<String>>,
}

/// Reads a script: one JSON value a line.
fn read_script(path: &std::path::Path) -> anyhow::Result<VecDeque<(Answer, String)>> {
    let text = read_bounded(path, TEXT_LIMIT).with_context(|| format!("--script {}", path.display()))?;
    let mut out = VecDeque::new();
    for (i, line) in text.lines().enumerate() {
        let at = format!("{}:{}", path.display(), i + 1);
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let value: Value = serde_json::from_str(line).with_context(|| format!("{at}: not JSON"))?;
        let answer = match value {
            Value::Number(n) => Answer::Typed(n.to_string()),
            Value::String(s) => Answer::Typed(s),
            Value::Object(mut o) if o.len() == 1 && o.contains_key("command") => {
                Answer::Command(o.remove("command").unwrap_or(Value::Null))
            }
            _ => bail!(
                "{at}: write a choice's number, a typed answer as a string, or {{\"command\": {{...}}}}"
            ),
        };
        out.push_back((answer, at));
    }
    Ok(out)
}

/// Starts reading the keyboard on a thread of its own: its lines come on the channel, which
/// closes when the input ends.
fn keyboard() -> tokio::sync::mpsc::Receiver<String> {
    let (tx, rx) = tokio::sync::mpsc::channel(KEYBOARD_LINES);
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut lines = stdin.lock();
        loop {
            let mut line = String::new();
            match (&mut lines).take(LINE_LIMIT).read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if tx.blocking_send(line.trim().to_owned()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    rx
}

/// Reads the link: the argument, the first line of --link-file, or of standard input.
fn read_link(args: &Args) -> anyhow::Result<String> {
    let link = match (&args.link, &args.link_file) {
        (Some(l), _) => l.clone(),
        (None, Some(path)) => {
            let text =
                read_bounded(path, LINE_LIMIT).with_context(|| format!("--link-file {}", path.display()))?;
            text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default().to_owned()
        }
        (None, None) => {
            let mut line = String::new();
            std::io::stdin().lock().take(LINE_LIMIT).read_line(&mut line).context("reading the link")?;
            line.trim().to_owned()
        }
    };
    if link.is_empty() {
        bail!("no link: give LINK, --link-file FILE, or the link as the first line of standard input");
    }
    // The link is never quoted back: it holds the secret token.
    if parse_link(&link).is_none() {
        bail!("LINK: not a facedown link (expected http://host:port/t/TABLE#TOKEN)");
    }
    Ok(link)
}

/// Why one connection ended.
enum Ended {
    /// The game is over.
    Over,
    /// The connection dropped (or the server is restarting): reconnect.
    Dropped(String),
}

/// What the client knows of the table, kept across reconnections.
struct Join {
    link: String,
    json: bool,
    /// The last sequence number seen.
    seq: u64,
    you: Option<Who>,
    ruleset: String,
    seats: Vec<SeatInfo>,
    /// What the seat is asked now (none while its own request is in flight).
    prompt: Option<Value>,
    /// The prompt last printed.
    shown_prompt: Option<Value>,
    view: Value,
    awaiting: Vec<u16>,
    /// The request sent and not yet answered, with the prompt before it.
    in_flight: Option<(ClientMessage, Option<Value>, String)>,
    /// Whether a change arrived since the request in flight was sent.
    changed: bool,
    /// The prefix of this client's ids and how many it made.
    id_prefix: String,
    ids: u64,
    answers: Answers,
    welcomed: bool,
    /// A sealed seat's commitments not yet revealed, oldest first: the command, the nonce
    /// (kept only here), and whether the round is bound (so it is revealed now).
    sealed: Vec<(Value, Nonce, bool)>,
}

/// The lines of one update of a viewer's log (the JSON form of the session's `Update`).
fn update_lines(update: &Value, name: &dyn Fn(u16) -> String) -> Vec<String> {
    let seat = |key: &str| {
        let number = update.get(key).and_then(Value::as_u64).and_then(|s| u16::try_from(s).ok());
        number.map_or_else(|| "?".to_owned(), name)
    };
    match update.get("kind").and_then(Value::as_str) {
        Some("event") => match update.get("text").and_then(Value::as_str) {
            Some(t) => t.lines().map(|l| escape(l).into_owned()).collect(),
            None => Vec::new(),
        },
        Some("took_back") => vec![play::took_back_text(&seat("seat"))],
        Some("forced") => vec![play::forced_text(&seat("seat"))],
        Some("undone") => vec![play::undone_text(&seat("by"), &seat("seat"))],
        Some("bound") => {
            let n = update.get("commitments").and_then(Value::as_array).map_or(0, Vec::len);
            vec![format!("Every choice is sealed ({n} commitments): now they are revealed.")]
        }
        Some("fault") => {
            // A missed reveal whose seat lost its secret says so (docs/fairness.md §3).
            let fault = match (
                update.get("fault").and_then(Value::as_str),
                update.get("reason").and_then(Value::as_str),
            ) {
                (Some("no_reveal"), Some("secret_lost")) => "secret_lost",
                (fault, _) => fault.unwrap_or(""),
            };
            vec![play::fault_text(&seat("seat"), fault)]
        }
        _ => Vec::new(),
    }
}

/// The lines of a change's updates: each as [`update_lines`] words it, but a roll's verifiable
/// draws (issue 34: each roll's dice on the roll's own line) named at the end of the roll's
/// line — a `rolled` event records where the dice stand after it (`rng_pos`) and its dice, one
/// draw a die — and any other run of draws (a lot) on one line of its own, never dropped.
fn change_lines(updates: &[&Value], name: &dyn Fn(u16) -> String) -> Vec<String> {
    let counter =
        |u: &Value| u.pointer("/draw/counter").and_then(|c| c.as_u64().or_else(|| c.as_str()?.parse().ok()));
    let draws: Vec<u64> = updates
        .iter()
        .filter(|u| u.get("kind").and_then(Value::as_str) == Some("draw"))
        .filter_map(|u| counter(u))
        .collect();
    let mut owned: Vec<u64> = Vec::new();
    let mut out = Vec::new();
    let mut run: Vec<u64> = Vec::new();
    let flush = |run: &mut Vec<u64>, out: &mut Vec<String>| {
        if !run.is_empty() {
            out.push(format!("Dice drawn (verifiable): {}.", counters_text(run)));
            run.clear();
        }
    };
    for u in updates {
        if u.get("kind").and_then(Value::as_str) == Some("draw") {
            if let Some(c) = counter(u).filter(|c| !owned.contains(c)) {
                run.push(c);
            }
            continue;
        }
        flush(&mut run, &mut out);
        let mut lines = update_lines(u, name);
        let roll = u.get("event").filter(|e| e.get("event").and_then(Value::as_str) == Some("rolled"));
        if let Some((to, dice)) = roll.and_then(|e| {
            Some((e.get("rng_pos")?.as_u64()?, e.pointer("/roll/dice")?.as_array()?.len() as u64))
        }) {
            let mine: Vec<u64> = draws.iter().copied().filter(|&c| c < to && c + dice >= to).collect();
            if let (false, Some(last)) = (mine.is_empty(), lines.last_mut()) {
                last.push_str(&format!(" (drawn verifiably: {})", counters_text(&mine)));
                owned.extend(mine);
            }
        }
        out.extend(lines);
    }
    flush(&mut run, &mut out);
    out
}

/// Draw counters in words: "#4–#7", or "#1, #3".
fn counters_text(counters: &[u64]) -> String {
    let mut sorted = counters.to_vec();
    sorted.sort_unstable();
    match (sorted.first(), sorted.last()) {
        (Some(&a), Some(&b)) if sorted.len() > 1 && b - a + 1 == sorted.len() as u64 => format!("#{a}–#{b}"),
        _ => sorted.iter().map(|c| format!("#{c}")).collect::<Vec<_>>().join(", "),
    }
}

/// A view in words, as local play shows it, where the ruleset's view carries everything
/// needed (Iron Triangle and No Dice; an Inciting Incident scene's map is in its setup).
fn view_text(ruleset: &str, view: &Value, seat: &str, part: ViewPart) -> String {
    let mut out = Vec::new();
    let done = match ruleset {
        iron_triangle::IronTriangle::NAME => {
            match serde_json::from_value::<iron_triangle::ConflictView>(view.clone()) {
                Ok(v) => match part {
                    ViewPart::Intro => play::it_render::intro(&v, &mut out),
                    ViewPart::Seat => play::it_render::seat_view(&v, &mut out),
                    ViewPart::Summary => play::it_render::summary(&v, &mut out),
                },
                Err(_) => return String::new(),
            }
        }
        nodice::NoDice::NAME => match serde_json::from_value::<nodice::ConflictView>(view.clone()) {
            Ok(v) => match part {
                ViewPart::Intro => play::nd_render::intro(&v, None, &mut out),
                ViewPart::Seat => play::nd_render::seat_view(&v, seat, &mut out),
                ViewPart::Summary => play::nd_render::summary(&v, &mut out),
            },
            Err(_) => return String::new(),
        },
        _ => return String::new(),
    };
    if done.is_err() {
        return String::new();
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Which part of local play's rendering.
#[derive(Clone, Copy)]
enum ViewPart {
    Intro,
    Seat,
    Summary,
}

/// A rule system's name as the books write it ("Iron Triangle"), by its protocol name.
fn system_title(ruleset: &str) -> &str {
    match ruleset {
        iron_triangle::IronTriangle::NAME => "Iron Triangle",
        nodice::NoDice::NAME => "No Dice",
        inciting_incident::IncitingIncident::NAME => "Inciting Incident",
        other => other,
    }
}

/// The quick reference of a ruleset, by its name.
fn quick_reference(ruleset: &str) -> String {
    match ruleset {
        iron_triangle::IronTriangle::NAME => play::quick_reference::<iron_triangle::IronTriangle>(),
        nodice::NoDice::NAME => play::quick_reference::<nodice::NoDice>(),
        inciting_incident::IncitingIncident::NAME => {
            play::quick_reference::<inciting_incident::IncitingIncident>()
        }
        other => format!("no quick reference for {}", escape(other)),
    }
}

/// The pause before reconnection attempt `n` (from 1): 0.25 s doubling, at most 5 s.
fn backoff(n: u32) -> Duration {
    Duration::from_millis(250u64.saturating_mul(1 << n.saturating_sub(1).min(5))).min(Duration::from_secs(5))
}

impl Join {
    fn seat_name(&self, seat: u16) -> String {
        self.seats.iter().find(|s| s.seat == seat).map_or_else(|| format!("#{seat}"), |s| s.name.clone())
    }

    /// A seat by name or number.
    fn find_seat(&self, named: &str) -> Result<u16, String> {
        let named = named.trim();
        if let Some(s) = self.seats.iter().find(|s| s.name.eq_ignore_ascii_case(named)) {
            return Ok(s.seat);
        }
        match named.parse::<u16>() {
            Ok(n) if self.seats.iter().any(|s| s.seat == n) => Ok(n),
            _ => {
                let names: Vec<String> = self.seats.iter().map(|s| escape(&s.name).into_owned()).collect();
                Err(format!("there is no seat named {:?}; the seats are {}", escape(named), names.join(", ")))
            }
        }
    }

    fn is_gm(&self) -> bool {
        self.you == Some(Who::Gm)
    }

    fn my_seat(&self) -> Option<u16> {
        match self.you {
            Some(Who::Seat { seat }) => Some(seat),
            _ => None,
        }
    }

    fn next_id(&mut self) -> String {
        self.ids += 1;
        format!("{}-{}", self.id_prefix, self.ids)
    }

    /// Where prompts and notes go: standard error when standard output carries JSON.
    fn out(&self) -> Box<dyn Write> {
        if self.json { Box::new(std::io::stderr()) } else { Box::new(std::io::stdout()) }
    }

    /// Takes in a change: prints its updates and the new prompt.
    fn change(&mut self, change: server::protocol::Change) -> anyhow::Result<bool> {
        let bound = change.updates.iter().any(|u| {
            u.get("kind").and_then(Value::as_str) == Some("bound")
                && u.get("seq").and_then(Value::as_u64).is_some_and(|s| s > self.seq)
        });
        if bound {
            // Every seat is bound: this seat's sealed choices are revealed now.
            for pending in &mut self.sealed {
                pending.2 = true;
            }
        }
        if !self.json {
            let mut out = std::io::stdout().lock();
            // After a reconnection an update may come twice: print it once.
            let fresh: Vec<&Value> = change
                .updates
                .iter()
                .filter(|u| u.get("seq").and_then(Value::as_u64).is_none_or(|s| s > self.seq))
                .collect();
            for l in change_lines(&fresh, &|s| self.seat_name(s)) {
                writeln!(out, "{l}")?;
            }
            out.flush()?;
        }
        self.seq = self.seq.max(change.seq);
        self.view = change.view;
        self.awaiting = change.awaiting;
        if self.in_flight.is_some() {
            self.changed = true;
        }
        // A sealed seat asked again in a round answers the question after its own earlier
        // choices (the prompt's branch that names them).
        let kept: Vec<Value> = self.sealed.iter().filter(|p| !p.2).map(|p| p.0.clone()).collect();
        self.prompt = change.prompt.map(|p| server::client::own_branch(&p, &kept).unwrap_or(p));
        if change.over {
            let mut out = self.out();
            writeln!(out, "\nThe game is over.")?;
            let name = self.my_seat().map(|s| self.seat_name(s)).unwrap_or_default();
            play::print_lines(&mut out, &view_text(&self.ruleset, &self.view, &name, ViewPart::Summary))?;
            out.flush()?;
            return Ok(true);
        }
        self.show_prompt()?;
        Ok(false)
    }

    /// Prints the seat's prompt if it is new.
    fn show_prompt(&mut self) -> anyhow::Result<()> {
        if self.in_flight.is_some() || self.prompt.is_none() || self.prompt == self.shown_prompt {
            return Ok(());
        }
        let Some(prompt) = self.prompt.clone() else { return Ok(()) };
        let name = self.my_seat().map(|s| self.seat_name(s)).unwrap_or_default();
        let question = prompt.get("question").and_then(Value::as_str).unwrap_or("Your decision:");
        let labels = labels(&prompt);
        let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
        let view = view_text(&self.ruleset, &self.view, &name, ViewPart::Seat);
        let gm_seat = self
            .my_seat()
            .and_then(|m| self.seats.iter().find(|s| s.seat == m))
            .is_some_and(|s| s.role == "gm");
        let help = format!(
            "a number or a choice's words; `?` the quick reference; a command as JSON {{...}}; `back` takes back \
             your face-down choice not yet revealed{}",
            if gm_seat {
                "; `undo`: the GM undoes the last public command; `force [SEAT]`: the GM has the rules' default \
                 taken for SEAT (or the first seat awaited)"
            } else {
                ""
            }
        );
        let mut out = self.out();
        writeln!(out)?;
        let title = play::seat_title(&self.view, &name, gm_seat);
        play::write_prompt(&mut out, &title, false, &view, question, &labels, &help)?;
        if self.answers.keyboard.is_some() {
            write!(out, "{}> ", escape(&name))?;
        }
        out.flush()?;
        self.shown_prompt = Some(prompt);
        Ok(())
    }

    /// The request an answer makes, or why there is none: Ok(None) when the answer was
    /// handled here (help) and Err with what to tell the person.
    fn request(&mut self, answer: &Answer) -> Result<Option<ClientMessage>, String> {
        let text = match answer {
            Answer::Command(command) => {
                return self.command(command.clone());
            }
            Answer::Typed(t) => t.trim().to_owned(),
        };
        let (word, rest) = match text.split_once(' ') {
            Some((w, r)) => (w, r.trim()),
            None => (text.as_str(), ""),
        };
        let gm_only = |what: &str| format!("`{what}` needs the GM link");
        match (word, rest) {
            ("?" | "help", _) => {
                let mut out = self.out();
                let _ = play::print_lines(&mut out, &quick_reference(&self.ruleset));
                Ok(None)
            }
            ("back", "") if self.my_seat().is_some() => {
                Ok(Some(ClientMessage::TakeBack { id: self.next_id(), lost: false }))
            }
            ("undo", "") if self.is_gm() || self.my_seat().is_some() => {
                Ok(Some(ClientMessage::Undo { id: self.next_id() }))
            }
            // The GM link, or the rules' GM seat (the server asks the rules).
            ("force", seat) => {
                if self.you == Some(Who::Spectator) {
                    return Err("a spectator link only watches".to_owned());
                }
                let seat = if seat.is_empty() {
                    *self.awaiting.first().ok_or("the game waits for nobody")?
                } else {
                    self.find_seat(seat)?
                };
                Ok(Some(ClientMessage::Force { id: self.next_id(), seat }))
            }
            ("bot" | "person" | "reissue" | "revoke", _) if !self.is_gm() => Err(gm_only(word)),
            ("bot", rest) => {
                let (seat, kind) = rest.split_once(' ').ok_or("write `bot SEAT KIND`")?;
                let seat = self.find_seat(seat)?;
                let action = ManageAction::Bot { seat, kind: kind.trim().to_owned() };
                Ok(Some(ClientMessage::Manage { id: self.next_id(), action }))
            }
            ("person", seat) => {
                let action = ManageAction::Person { seat: self.find_seat(seat)? };
                Ok(Some(ClientMessage::Manage { id: self.next_id(), action }))
            }
            ("reissue", seat) => {
                let seat =
                    if seat.is_empty() || seat == "spectators" { None } else { Some(self.find_seat(seat)?) };
                Ok(Some(ClientMessage::Manage { id: self.next_id(), action: ManageAction::Reissue { seat } }))
            }
            ("revoke", seat) => {
                let action = ManageAction::Revoke { seat: Some(self.find_seat(seat)?) };
                Ok(Some(ClientMessage::Manage { id: self.next_id(), action }))
            }
            _ if text.starts_with('{') => {
                let value: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
                self.command(value)
            }
            _ if self.my_seat().is_none() => Err(if self.is_gm() {
                "only a seat's link plays commands; the GM link may `force SEAT`, `undo`, `bot SEAT KIND`, \
                 `person SEAT`, `reissue [SEAT]`, `revoke SEAT`"
                    .to_owned()
            } else {
                "only a seat's link plays commands; a spectator watches".to_owned()
            }),
            _ => {
                let Some(prompt) = &self.prompt else {
                    return Err("nothing is asked of this seat now".to_owned());
                };
                let labels = labels(prompt);
                let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
                let i = play::choose(&labels, &text)?;
                let command = prompt
                    .get("choices")
                    .and_then(|c| c.get(i))
                    .and_then(|c| c.get("command"))
                    .cloned()
                    .ok_or("the prompt's choice has no command")?;
                self.command(command)
            }
        }
    }

    fn command(&mut self, command: Value) -> Result<Option<ClientMessage>, String> {
        let Some(seat) = self.my_seat() else {
            return Err("only a seat's link plays commands".to_owned());
        };
        let sealed = self.seats.get(usize::from(seat)).is_some_and(|s| s.mode == SeatMode::Sealed);
        let face_down = self.prompt.as_ref().is_some_and(|p| p.get("private") == Some(&Value::Bool(true)));
        if sealed && face_down {
            // Sealed: only the commitment leaves this client; the choice and its nonce follow
            // once every seat is bound.
            let (commitment, nonce) = server::client::seal(&command).map_err(|e| e.to_string())?;
            self.sealed.push((command, nonce, false));
            return Ok(Some(ClientMessage::Seal { id: self.next_id(), commitment: commitment.to_string() }));
        }
        Ok(Some(ClientMessage::Command { id: self.next_id(), command }))
    }

    /// The table's opening round (docs/fairness.md §8): a sealed seat commits to `{}` with a
    /// nonce of its own before the rules' first step, revealed once every seat is bound. Asked
    /// of nobody: the client does it (sent as the request in flight).
    fn seal_opening(&mut self, round: &server::protocol::RoundState) -> anyhow::Result<()> {
        let Some(seat) = self.my_seat() else { return Ok(()) };
        if self.seats.get(usize::from(seat)).is_none_or(|s| s.mode != SeatMode::Sealed)
            || round.sealed.contains(&seat)
        {
            return Ok(());
        }
        let command = session::opening::opening_command();
        let (commitment, nonce) = server::client::seal(&command).map_err(|e| anyhow::anyhow!("{e}"))?;
        self.sealed.push((command, nonce, false));
        let message = ClientMessage::Seal { id: self.next_id(), commitment: commitment.to_string() };
        self.in_flight = Some((message, None, "the opening round".to_owned()));
        self.changed = false;
        if !self.json {
            println!(
                "The opening round: this client seals a secret number of its own, revealed once every seat has; \
                 no die of the game can be known before then."
            );
        }
        Ok(())
    }

    /// Whether an answer can be used now: a choice waits for the seat's prompt.
    fn ready_for(&self, answer: &Answer) -> bool {
        if self.in_flight.is_some() {
            return false;
        }
        match answer {
            Answer::Command(_) => self.prompt.is_some(),
            Answer::Typed(t) => {
                let word = t.split_whitespace().next().unwrap_or("");
                let standing = matches!(
                    word,
                    "?" | "help" | "back" | "undo" | "force" | "bot" | "person" | "reissue" | "revoke"
                );
                standing || self.prompt.is_some() || self.my_seat().is_none()
            }
        }
    }

    /// Sends the next answers that can be used now.
    async fn answer(&mut self, client: &mut Client) -> anyhow::Result<()> {
        if self.in_flight.is_none()
            && let Some((command, nonce, true)) = self.sealed.first().cloned()
        {
            let message = ClientMessage::Reveal { id: self.next_id(), command, nonce: nonce.to_string() };
            self.in_flight = Some((message.clone(), self.prompt.take(), "the reveal".to_owned()));
            self.changed = false;
            client.send(&message).await?;
        }
        while let Some((answer, _)) = self.answers.queue.front() {
            if !self.ready_for(answer) {
                break;
            }
            let Some((answer, at)) = self.answers.queue.pop_front() else { break };
            match self.request(&answer) {
                Ok(None) => {}
                Ok(Some(message)) => {
                    self.in_flight = Some((message.clone(), self.prompt.take(), at));
                    self.changed = false;
                    client.send(&message).await?;
                }
                Err(e) if self.answers.scripted => bail!("{at}: not accepted: {e}"),
                Err(e) => {
                    let mut out = self.out();
                    writeln!(out, "Not accepted: {}. Try again.", escape(&e))?;
                    self.shown_prompt = None;
                    self.show_prompt()?;
                }
            }
        }
        if self.answers.queue.is_empty()
            && self.answers.ended
            && self.in_flight.is_none()
            && self.prompt.is_some()
        {
            let waiting: Vec<String> =
                self.awaiting.iter().map(|&s| escape(&self.seat_name(s)).into_owned()).collect();
            let source = if self.answers.scripted { "the script" } else { "the input" };
            bail!("{source} ended before the game did (waiting for {})", waiting.join(", "));
        }
        Ok(())
    }

    /// The answer to the request in flight (an ack or an error with its id).
    fn answered(&mut self, id: &str, refused: Option<&str>, seq: u64) -> anyhow::Result<()> {
        let Some((message, before, at)) = self.in_flight.take_if(|(m, ..)| m.id() == Some(id)) else {
            return Ok(());
        };
        match &message {
            // A reveal is answered once: the next one may go.
            ClientMessage::Reveal { .. } if !self.sealed.is_empty() => {
                self.sealed.remove(0);
            }
            ClientMessage::Seal { .. } if refused.is_some() => {
                self.sealed.pop();
            }
            ClientMessage::TakeBack { .. }
                if refused.is_none() && self.sealed.last().is_some_and(|p| !p.2) =>
            {
                self.sealed.pop();
            }
            _ => {}
        }
        // Nothing changed for this client: it is asked what it was asked before.
        if !self.changed && (refused.is_some() || seq <= self.seq) {
            self.prompt = before;
        }
        if let Some(why) = refused {
            if self.answers.scripted && self.changed {
                // The table moved on while the answer was on its way (a bot decided first, at
                // a step asked before this seat's): the line answered a question no longer
                // asked, and the script goes on with the question asked now.
                eprintln!("{at}: not accepted, the table moved on meanwhile: {}", escape(why));
                self.shown_prompt = None;
                return self.show_prompt();
            }
            if self.answers.scripted {
                bail!("{at}: not accepted: {}", escape(why));
            }
            let mut out = self.out();
            writeln!(out, "Not accepted: {}. Try again.", escape(why))?;
            self.shown_prompt = None;
        } else if matches!(message, ClientMessage::TakeBack { .. }) {
            self.shown_prompt = None;
        }
        self.show_prompt()
    }

    /// One connection: hello, welcome, then changes and answers until the game is over or
    /// the connection drops.
    async fn connection(&mut self) -> anyhow::Result<Ended> {
        let connect = async {
            let mut client = Client::join(&self.link, self.seq).await?;
            let first = client.next_raw().await?;
            Ok::<_, ClientError>((client, first))
        };
        let (mut client, (first, raw)) = match tokio::time::timeout(CONNECT_TIMEOUT, connect).await {
            Err(_) => return Ok(Ended::Dropped("no welcome in time".to_owned())),
            Ok(Err(ClientError::Protocol(e))) => {
                bail!("the server does not speak this client's protocol: {}", escape(&e))
            }
            Ok(Err(e)) => return Ok(Ended::Dropped(e.to_string())),
            Ok(Ok(c)) => c,
        };
        if self.json {
            println!("{raw}");
        }
        match first {
            ServerMessage::Welcome { ruleset, you, seats, change, round, last_id, .. } => {
                // docs/protocol.md: a link's ids grow; the next new one is above the last the
                // server applied for this link (from this client or an earlier one).
                self.ids = self.ids.max(last_id);
                let first_time = !self.welcomed;
                self.welcomed = true;
                self.ruleset = ruleset;
                self.you = Some(you);
                self.seats = seats;
                if first_time && !self.json {
                    let who = match you {
                        Who::Seat { seat } => {
                            let gm = self.seats.iter().any(|s| s.seat == seat && s.role == "gm");
                            escape(&play::seat_title(&change.view, &self.seat_name(seat), gm)).into_owned()
                        }
                        Who::Gm => "the GM (you see what is public and manage the table)".to_owned(),
                        Who::Spectator => "a spectator (you see what is public)".to_owned(),
                    };
                    println!("Joined a table of {} as {who}.", escape(system_title(&self.ruleset)));
                    play::print_lines(
                        &mut std::io::stdout(),
                        &view_text(&self.ruleset, &change.view, "", ViewPart::Intro),
                    )?;
                } else if !self.json {
                    println!("(reconnected)");
                }
                self.shown_prompt = None;
                let awaited = self.my_seat().is_some_and(|seat| change.awaiting.contains(&seat));
                if self.change(change)? {
                    return Ok(Ended::Over);
                }
                if let Some(round) = round.filter(|r| r.opening && !r.bound)
                    && awaited
                    && self.in_flight.is_none()
                {
                    self.seal_opening(&round)?;
                }
            }
            ServerMessage::Error { code, message, .. } => match code {
                ErrorCode::Full | ErrorCode::RateLimited | ErrorCode::Internal => {
                    return Ok(Ended::Dropped(message));
                }
                _ => bail!("the server refused the link: {}", escape(&message)),
            },
            ServerMessage::Closing {} => return Ok(Ended::Dropped("the server is shutting down".to_owned())),
            other => bail!("the server answered the hello with {other:?}, not a welcome"),
        }
        // A request not acknowledged on the last connection is sent again with its id.
        if let Some((message, ..)) = &self.in_flight {
            client.send(message).await?;
        }
        let mut ping = tokio::time::interval(PING_EVERY);
        ping.tick().await;
        loop {
            self.answer(&mut client).await?;
            let keyboard = async {
                match &mut self.answers.keyboard {
                    Some(k) => k.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                line = keyboard, if self.answers.queue.len() < KEYBOARD_LINES => match line {
                    Some(line) => {
                        if !line.is_empty() {
                            self.answers.queue.push_back((Answer::Typed(line), "the keyboard".to_owned()));
                        }
                    }
                    None => {
                        self.answers.keyboard = None;
                        self.answers.ended = true;
                    }
                },
                _ = ping.tick() => {
                    if client.send(&ClientMessage::Ping {}).await.is_err() {
                        return Ok(Ended::Dropped("the connection broke".to_owned()));
                    }
                }
                next = client.next_raw() => {
                    let (message, raw) = match next {
                        Ok(m) => m,
                        Err(ClientError::Protocol(e)) => bail!("the server sent {}", escape(&e)),
                        Err(e) => return Ok(Ended::Dropped(e.to_string())),
                    };
                    if self.json {
                        println!("{raw}");
                    }
                    if self.message(message)? {
                        return Ok(Ended::Over);
                    }
                }
            }
        }
    }

    /// Takes in a message after the welcome; true when the game is over.
    fn message(&mut self, message: ServerMessage) -> anyhow::Result<bool> {
        match message {
            ServerMessage::Update { change } => return self.change(change),
            ServerMessage::Ack { id, seq } => self.answered(&id, None, seq)?,
            ServerMessage::Error { id: Some(id), message, .. }
                if self.in_flight.as_ref().is_some_and(|(m, ..)| m.id() == Some(id.as_str())) =>
            {
                self.answered(&id, Some(&message), self.seq)?;
            }
            ServerMessage::Error { message, .. } => {
                eprintln!("the server says: {}", escape(&message));
            }
            ServerMessage::Seats { seats } => self.seats = seats,
            // The table's chat, read here (a terminal writes none): escaped, as every text.
            ServerMessage::Chat { line } => {
                let who = line.seat.map_or_else(|| "GM".to_owned(), |s| self.seat_name(s));
                let mut out = self.out();
                writeln!(out, "[chat] {}: {}", escape(&who), escape(&line.text))?;
            }
            ServerMessage::Link { seat, who, url } => {
                let whose = match (who, seat) {
                    (Some(Who::Gm), _) => "the GM (this link's new one)".to_owned(),
                    (_, Some(s)) => format!("seat {}", self.seat_name(s)),
                    (_, None) => "the spectators".to_owned(),
                };
                let mut out = self.out();
                writeln!(out, "New link for {}: {url}", escape(&whose))?;
            }
            ServerMessage::TakenOver {} => {
                bail!("this link was opened on another device, which now holds the seat")
            }
            ServerMessage::Revoked {} => bail!("the GM revoked or reissued this link"),
            ServerMessage::Closing {} => {
                return Err(Restart.into());
            }
            // This client plays plain: a sealed round of other seats shows in its items.
            ServerMessage::Welcome { .. } | ServerMessage::Pong {} | ServerMessage::Bound { .. } => {}
            // Who the round waits for now (an update follows only when this seat's prompt
            // changed).
            ServerMessage::Sealed { awaiting, .. } => self.awaiting = awaiting,
        }
        Ok(false)
    }
}

/// The server said it is closing: reconnect.
#[derive(Debug, thiserror::Error)]
#[error("the server is restarting")]
struct Restart;

/// The labels of a prompt's choices.
fn labels(prompt: &Value) -> Vec<String> {
    prompt
        .get("choices")
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter().map(|c| c.get("label").and_then(Value::as_str).unwrap_or("?").to_owned()).collect()
        })
        .unwrap_or_default()
}

/// `facedown join`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let link = read_link(&args)?;
    let answers = match &args.script {
        Some(path) => Answers { queue: read_script(path)?, ended: true, scripted: true, keyboard: None },
        None => Answers { queue: VecDeque::new(), ended: false, scripted: false, keyboard: Some(keyboard()) },
    };
    let id_prefix =
        format!("j{:016x}", std::collections::hash_map::RandomState::new().hash_one(std::process::id()));
    let mut join = Join {
        link,
        json: args.json,
        seq: 0,
        you: None,
        ruleset: String::new(),
        seats: Vec::new(),
        prompt: None,
        shown_prompt: None,
        view: Value::Null,
        awaiting: Vec::new(),
        in_flight: None,
        changed: false,
        id_prefix,
        ids: 0,
        answers,
        welcomed: false,
        sealed: Vec::new(),
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    rt.block_on(async move {
        let mut failures = 0u32;
        loop {
            let seen = join.seq;
            let welcomed = join.welcomed;
            let ended = match join.connection().await {
                Ok(e) => e,
                Err(e) if e.is::<Restart>() => Ended::Dropped(e.to_string()),
                Err(e) => return Err(e),
            };
            match ended {
                Ended::Over => return Ok(ExitCode::SUCCESS),
                Ended::Dropped(why) => {
                    // A connection that got somewhere starts the count again.
                    if join.seq > seen || (join.welcomed && !welcomed) {
                        failures = 0;
                    }
                    failures += 1;
                    if failures > args.retries {
                        bail!(
                            "the connection to the table is lost ({}), after {} tries",
                            escape(&why),
                            args.retries
                        );
                    }
                    let pause = backoff(failures);
                    eprintln!(
                        "connection lost ({}); reconnecting in {:.1} s ({failures}/{})",
                        escape(&why),
                        pause.as_secs_f64(),
                        args.retries
                    );
                    tokio::time::sleep(pause).await;
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pause_between_reconnections_doubles_up_to_five_seconds() {
        assert_eq!(backoff(1), Duration::from_millis(250));
        assert_eq!(backoff(2), Duration::from_millis(500));
        assert_eq!(backoff(5), Duration::from_secs(4));
        assert_eq!(backoff(6), Duration::from_secs(5));
        assert_eq!(backoff(60), Duration::from_secs(5));
    }

    #[test]
    fn updates_read_as_in_local_play() {
        let name = |s: u16| ["Ada", "Ninja"][usize::from(s)].to_owned();
        let event =
            serde_json::json!({"seq": 3, "kind": "event", "event": {}, "text": "Ada wins.\n\u{1b}[2J"});
        assert_eq!(update_lines(&event, &name), vec!["Ada wins.".to_owned(), "\\u{1b}[2J".to_owned()]);
        let back = serde_json::json!({"seq": 4, "kind": "took_back", "seat": 1});
        assert_eq!(update_lines(&back, &name), vec!["Ninja takes back a face-down choice.".to_owned()]);
    }

    /// Issue 34: a roll's verifiable draws on the roll's own line; a draw of no roll (a lot)
    /// on a line of its own, a run of them on one; none dropped.
    #[test]
    fn a_rolls_draws_are_named_on_its_line_and_other_draws_on_one_line() {
        let name = |s: u16| ["Bren", "GM"][usize::from(s)].to_owned();
        let draw = |c: u64| serde_json::json!({"kind": "draw", "draw": {"counter": c.to_string(), "n": "6", "value": "2"}});
        let roll = serde_json::json!({"kind": "event", "event": {"event": "rolled", "rng_pos": 5, "roll": {"dice": [{}, {}, {}], "total": 9}}, "text": "  Bren attack roll: d6:3 d6:3 d6:3 = 9"});
        let lot = serde_json::json!({"kind": "event", "event": {"event": "round_started"}, "text": "== Round 1 =="});
        let updates = [lot.clone(), roll, draw(1), draw(2), draw(3), draw(4)];
        let refs: Vec<&Value> = updates.iter().collect();
        assert_eq!(
            change_lines(&refs, &name),
            vec![
                "== Round 1 ==".to_owned(),
                "  Bren attack roll: d6:3 d6:3 d6:3 = 9 (drawn verifiably: #2–#4)".to_owned(),
                "Dice drawn (verifiable): #1.".to_owned(),
            ]
        );
    }

    #[test]
    fn scripts_are_numbers_words_or_commands() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, "1\n\"2 grapple\"\n# a note\n{\"command\": {\"x\": 1}}\n").unwrap();
        let s = read_script(&path).unwrap();
        let answers: Vec<Answer> = s.into_iter().map(|(a, _)| a).collect();
        assert_eq!(
            answers,
            vec![
                Answer::Typed("1".into()),
                Answer::Typed("2 grapple".into()),
                Answer::Command(serde_json::json!({"x": 1}))
            ]
        );
        std::fs::write(&path, "[1]\n").unwrap();
        assert!(format!("{:#}", read_script(&path).unwrap_err()).contains("s.jsonl:1"));
    }
}
