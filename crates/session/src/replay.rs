//! The rules replayed from a finished game's verifiable log (docs/fairness.md §7.3): what
//! `facedown verify --replay` checks beyond [`fairlog::verify`](crate::fairlog::verify).
//!
//! The fairness checks read no rules, so a host that nulls a sealed nonce and moves its
//! `opened` past the next `bound` (or, in a game's last round, after the end) passes them. At
//! each end the log reveals what the rules need to be replayed: the server seed, the setup
//! (its first end) and the game's record ([`Item::Record`](crate::Item::Record): every
//! `(seat, command)` the session applied, as [`Record`](crate::Record) keeps it). [`replay`]
//! rebuilds the game from them — the setup's state, the draws keyed by the revealed server
//! seeds, the log's client seeds and mixes at their places, the record's commands — and checks,
//! naming the first entry at fault:
//!
//! 1. the rules accept every command of the record (so each opened choice was legal when
//!    bound), and each sealed round's opened choices are the record's commands of the round:
//!    an `opened` with no such command, or a command of the round never opened, is refused;
//! 2. every `event` entry is the rebuilt event as the log's viewer is shown it, by the
//!    ruleset's own redaction (the viewer is the one whose redaction every event matches), and
//!    its narration, when the log has one, the ruleset's for that viewer;
//! 3. every `draw` entry is the draw the rules made;
//! 4. nothing was revealed late: a seat's nonce left out of a round's mix (`null`) is only that
//!    of a choice the rules still held face down once the round's commands were given, and a
//!    choice face up by then is opened before the next `bound`.
//!
//! The replay needs a finished game: a log with no revealed record is refused with
//! [`ReplayError::NotYet`]. The GM's undo is replayed as the session makes it (the game
//! rebuilt from the commands that stand). A face-down choice taken back (by its seat, or by an
//! undo) is in no record; the record item reveals it beside the record
//! ([`TakenBack`](crate::TakenBack): its place among the commands given, and the `took_back`
//! entry that took it back), and the replay gives it at its place, checks its events like any
//! command's, and at that `took_back` entry takes it back as the session does: it must still
//! wait for its reveal, and the game is rebuilt from the commands that stand. A plain seat's
//! `took_back` no revealed command matches, or a revealed one the log never takes back, is
//! named.

use serde_json::Value;
use table::fairness::{ClientSeed, Commitment, DrawRecord, Nonce, ServerSeed, record_draws, settled};
use table::{Draws, Ruleset, SeatId, Table, Viewer};
use thiserror::Error;

use crate::fair::Step;
use crate::fairlog::{self, VerifyError};
use crate::{Entry, How, TakenBack};

/// Why a log could not be replayed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReplayError {
    /// The log is wrong: the first entry at fault, and why (the fairness checks' or the
    /// replay's).
    #[error(transparent)]
    Bad(#[from] VerifyError),
    /// The log cannot be replayed yet: the game is not over, so its record is not revealed.
    #[error("cannot replay yet: {0}")]
    NotYet(String),
    /// The log holds what the replay does not follow (no log the session writes: kept for a
    /// caller's own limits, such as `facedown verify`'s rule systems).
    #[error("cannot replay: {0}")]
    Unsupported(String),
}

/// What a log that replayed holds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReplayReport {
    /// What the fairness checks found.
    pub log: fairlog::Report,
    /// How many commands of the record were replayed.
    pub commands: u64,
    /// How many face-down choices taken back were replayed, and taken back.
    #[serde(skip_serializing_if = "is_zero")]
    pub taken_back: u64,
    /// How many `event` entries were compared with the rebuilt events.
    pub events: u64,
    /// How many `draw` entries were compared with the rebuilt draws.
    pub draws: u64,
    /// How many `opened` choices were matched with the record's commands.
    pub opened: u64,
    /// The viewers whose redaction every event matches (`seat N`, `spectator`).
    pub viewers: Vec<String>,
    /// Entries after the last revealed record (play that went on after an end), not replayed.
    pub not_replayed: u64,
}

impl std::fmt::Display for ReplayReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}\nreplayed: {} commands, {} events as {} is shown them, {} draws, {} opened choices matched",
            self.log,
            self.commands,
            self.events,
            self.viewers.join(" or "),
            self.draws,
            self.opened
        )?;
        if self.taken_back > 0 {
            write!(f, ", {} face-down choices taken back", self.taken_back)?;
        }
        if self.not_replayed > 0 {
            write!(
                f,
                "; the last {} entries come after the last revealed record, not replayed",
                self.not_replayed
            )?;
        }
        Ok(())
    }
}

/// One step of a replayed game as the cards were played: everything the rules did from the
/// end of the step before up to (and including) a command whose events a spectator is shown
/// face up — a reveal, a resolution, a public choice. Face-down choices (shown blanked, as
/// they were) ride along into the step of their reveal. Only the public view: no step shows
/// what a spectator was not shown at that point.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ReplayStep {
    /// The ruleset's view for a spectator after the step, as JSON (its turn's or Hand's result
    /// and, at the end, who won, where the ruleset's view carries them).
    pub view: Value,
    /// The step's events as a spectator is told them (the rules' narration), line by line.
    pub lines: Vec<String>,
}

/// A finished game replayed step by step ([`replay_steps`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Replayed {
    /// What the replay checked (the log's head among it).
    pub report: ReplayReport,
    /// The game from its start (the first step: the table as it opened) to its end.
    pub steps: Vec<ReplayStep>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn bad(entry: u64, reason: impl Into<String>) -> ReplayError {
    ReplayError::Bad(VerifyError { entry, reason: reason.into() })
}

fn viewer_name(v: Viewer) -> String {
    match v {
        Viewer::Seat(s) => format!("seat {}", s.0),
        Viewer::Spectator => "spectator".to_owned(),
    }
}

/// A sealed round as the replay follows it.
#[derive(Default)]
struct Round {
    /// The entry of its `bound`, and how many decisions it binds.
    bound_at: u64,
    decisions: usize,
    /// The entry of its mix, and the seats whose nonce it left out.
    mix_at: u64,
    nulls: Vec<u16>,
    /// Mixed before the table opened, with no command given: an opening round (`{}` opened).
    opening: bool,
    /// The record's commands given in the round, whether each was opened yet.
    given: Vec<(usize, bool)>,
    /// The round's commands are all given (right after its mix, one per decision it binds).
    done: bool,
    /// The faulted seats (their decisions are forced, not opened).
    faulted: Vec<u16>,
    /// The face-down choices still pending once the round's commands were given.
    pending_at_done: Vec<usize>,
}

/// The game being rebuilt.
struct Rebuild<R: Ruleset> {
    table: Table<R>,
    opened_table: bool,
    /// The state the events are redacted against (lags the table within a command).
    shadow: R::State,
    viewers: Vec<Viewer>,
    /// Each rebuilt event as every viewer is shown it.
    events: Vec<Vec<(Value, Option<String>)>>,
    draws: std::collections::VecDeque<DrawRecord>,
    record: Vec<Entry<R::Command>>,
    /// The entry of the last record revealed.
    record_at: u64,
    next: usize,
    /// Face-down choices not yet revealed by the rules (indices in the record).
    pending: Vec<usize>,
    round: Option<Round>,
    /// The state the game started from, its draws keyed by the first seed (for a rebuild).
    initial: R::State,
    /// Events of the table's log already taken into `events` (a rebuild after an undo leaves
    /// the events shown before it in `events`, as the session leaves them in the logs).
    written: usize,
    /// Each change made to the draws, with the index of the record's command it came before,
    /// and how many came before the table opened: a rebuild makes them again at those points.
    steps: Vec<(usize, Step)>,
    opening_steps: usize,
    /// Per command of the record: undone (or an undo, or taken back), whether it drew, whether
    /// it was face down or revealed face-down choices (an undo of it is refused, as the session
    /// refuses it).
    undone: Vec<bool>,
    /// Per command replayed: its index in the revealed record, none for a taken-back one.
    numbers: Vec<Option<usize>>,
    stands: Vec<(bool, bool)>,
    /// The steps a spectator is shown, when asked for ([`replay_steps`]): those so far, the
    /// first event not in one yet, and whether a spectator saw one of the events since face up.
    shown: Option<Vec<ReplayStep>>,
    shown_from: usize,
    public_since: bool,
}

impl<R: Ruleset> Rebuild<R> {
    fn open(&mut self) {
        if self.opened_table {
            return;
        }
        self.opened_table = true;
        let ((), made) = record_draws(|| self.table.open());
        self.take_events(0);
        let to = R::draw_position(self.table.state());
        self.draws.extend(settled(&made, 0, to));
        self.end_step(true);
    }

    /// Ends the step here when it showed a spectator something face up (or `always`): the
    /// spectator's view now, and the narration of the events since the last step.
    fn end_step(&mut self, always: bool) {
        let Some(shown) = self.shown.as_mut() else { return };
        if !always && !self.public_since {
            return;
        }
        let spectator = self.viewers.len() - 1;
        let lines = self.events[self.shown_from..]
            .iter()
            .filter_map(|seen| seen.get(spectator).and_then(|(_, text)| text.as_deref()))
            .flat_map(str::lines)
            .map(str::to_owned)
            .collect();
        // A view is plain data: serialising one cannot fail.
        let view =
            serde_json::to_value(R::view(self.table.state(), Viewer::Spectator)).unwrap_or(Value::Null);
        shown.push(ReplayStep { view, lines });
        self.shown_from = self.events.len();
        self.public_since = false;
    }

    /// Writes the table's new events, each as every viewer is shown it; whether any of the
    /// first `watched` was blanked for some viewer (a face-down choice).
    fn take_events(&mut self, watched: usize) -> bool {
        let mut blanked = false;
        let mut k = 0;
        while self.written < self.table.log().len() {
            let event = &self.table.log()[self.written];
            let mut seen = Vec::with_capacity(self.viewers.len());
            for &viewer in &self.viewers {
                let shown = R::redact(&self.shadow, event, viewer);
                blanked |= k < watched && shown != *event;
                self.public_since |= viewer == Viewer::Spectator && shown == *event;
                // Events are plain data: serialising one cannot fail.
                let text = R::narrate(&self.shadow, &shown, viewer);
                seen.push((serde_json::to_value(&shown).unwrap_or(Value::Null), text));
            }
            R::apply(&mut self.shadow, event);
            self.events.push(seen);
            self.written += 1;
            k += 1;
        }
        blanked
    }

    /// How messages name command `k` of the replayed commands (the record's with the
    /// taken-back ones merged in).
    fn label(&self, k: usize) -> String {
        match self.numbers.get(k) {
            Some(Some(i)) => format!("command {} of the record", i + 1),
            _ => format!("the command given at place {} of the game and taken back", k + 1),
        }
    }

    /// `seat` takes back, at the log's `took_back` entry `n`, its face-down choice `k` (a
    /// revealed [`TakenBack`](crate::TakenBack)): the choice is given and its events checked
    /// first, like any command; then, as the session does ([`Session::take_back`](crate::Session::take_back),
    /// or an undo's), it must still wait for its reveal, and the game is rebuilt without it.
    fn take_back(&mut self, n: u64, seat: u16, k: usize, shown: usize) -> Result<(), ReplayError> {
        while self.next <= k {
            if !self.open_or_submit()? {
                break;
            }
        }
        if self.record[k].seat.0 != seat {
            return Err(bad(
                n,
                format!(
                    "seat {seat} takes back a face-down choice, yet the one the record reveals taken back here is seat {}'s",
                    self.record[k].seat.0
                ),
            ));
        }
        if self.events.len() > shown || !self.draws.is_empty() {
            return Err(bad(
                n,
                format!(
                    "the commands given before this take-back ({} among them) derive events or draws the log does not show before it",
                    self.label(k)
                ),
            ));
        }
        if !self.pending.contains(&k) {
            return Err(bad(
                n,
                format!(
                    "seat {seat} takes back {}, which is no face-down choice waiting for its reveal",
                    self.label(k)
                ),
            ));
        }
        self.pending.retain(|&p| p != k);
        if let Some(r) = self.round.as_mut() {
            r.given.retain(|&(g, _)| g != k);
            r.pending_at_done.retain(|&p| p != k);
        }
        self.undone[k] = true;
        let (at, what) = (self.next, self.label(k));
        self.rebuild(at, &|why| bad(n, format!("the take-back of {what}: {why}")))
    }

    /// Gives the record's next command to the rules, as the session did; false when the record
    /// has no more.
    fn submit_next(&mut self) -> Result<bool, ReplayError> {
        let Some(entry) = self.record.get(self.next).cloned() else { return Ok(false) };
        let k = self.next;
        self.open();
        self.next += 1;
        if entry.how == How::Undo {
            self.undo(k, &entry)?;
            return Ok(true);
        }
        let before = self.table.log().len();
        let from = R::draw_position(self.table.state());
        let (submitted, made) = record_draws(|| self.table.submit(entry.seat, &entry.command).map(|_| ()));
        submitted.map_err(|e| {
            bad(
                self.record_at,
                format!("{} (seat {}) is refused by the rules: {e}", self.label(k), entry.seat.0),
            )
        })?;
        let caused = self.table.log().len() - before - self.table.last_automatic();
        let private = self.take_events(caused);
        self.draws.extend(settled(&made, from, R::draw_position(self.table.state())));
        let revealed = self.table.last_automatic() > 0 && (!self.pending.is_empty() || private);
        if self.table.last_automatic() > 0 {
            self.pending.clear();
        } else if private {
            self.pending.push(k);
        }
        let drew = R::draw_position(self.table.state()) != from;
        self.stands.push((drew, private || revealed));
        self.undone.push(false);
        self.end_step(false);
        Ok(true)
    }

    /// Makes a change to the draws (a client seed, a mix, a rotation), kept for a rebuild.
    fn step(&mut self, n: u64, step: Step) -> Result<(), ReplayError> {
        crate::fair::redo(&mut self.table, &step).map_err(|err| bad(n, err.to_string()))?;
        if !self.opened_table {
            self.opening_steps += 1;
        }
        self.steps.push((self.next, step));
        Ok(())
    }

    /// Command `k` of the record is the GM's undo of the last public command (`entry.command`):
    /// as the session does, the game is rebuilt from the commands that stand, the draws'
    /// changes made again at their points; the events shown before stay shown.
    fn undo(&mut self, k: usize, entry: &Entry<R::Command>) -> Result<(), ReplayError> {
        let (at, what) = (self.record_at, self.label(k));
        let refuse = move |why: String| bad(at, format!("{what}, an undo: {why}"));
        self.undone.push(true);
        self.stands.push((false, false));
        if let Some(&p) = self.pending.first() {
            // The session takes back the face-down choices given after the command it undoes,
            // each logged `took_back` (and revealed as taken back) before the undo.
            return Err(refuse(format!(
                "{} still waits for its reveal, yet the log does not take it back before the undo",
                self.label(p)
            )));
        }
        let role = R::seats(self.table.state()).get(entry.seat).map(|s| s.role);
        if role != Ok(table::Role::Gm) {
            return Err(refuse(format!("seat {} is not the GM's", entry.seat.0)));
        }
        let Some(target) = (0..k).rev().find(|&i| !self.undone[i]) else {
            return Err(refuse("there is no public command to undo".to_owned()));
        };
        if self.record[target].command != entry.command {
            return Err(refuse(format!(
                "it repeats another command than the last one that stands ({})",
                self.label(target)
            )));
        }
        match self.stands[target] {
            (true, _) => return Err(refuse("the last command drew at random, and a draw stands".to_owned())),
            (_, true) => {
                return Err(refuse("the last command revealed face-down choices, which stand".to_owned()));
            }
            _ => {}
        }
        self.undone[target] = true;
        self.rebuild(k, &refuse)?;
        // The game as it stands after the undo is a step of its own.
        self.end_step(true);
        Ok(())
    }

    /// Rebuilds the table from the commands before `k` that stand, as the session does after
    /// an undo or a take-back: the draws' changes made again at their points, the events shown
    /// before left shown.
    fn rebuild(&mut self, k: usize, refuse: &dyn Fn(String) -> ReplayError) -> Result<(), ReplayError> {
        let mut table = Table::<R>::unopened(self.initial.clone());
        let mut steps = self.steps.iter().peekable();
        for _ in 0..self.opening_steps {
            if let Some((_, step)) = steps.next() {
                crate::fair::redo(&mut table, step).map_err(|e| refuse(e.to_string()))?;
            }
        }
        table.open();
        for i in 0..k {
            while let Some((_, step)) = steps.next_if(|(at, _)| *at <= i) {
                crate::fair::redo(&mut table, step).map_err(|e| refuse(e.to_string()))?;
            }
            if !self.undone[i] {
                let e = &self.record[i];
                table
                    .submit(e.seat, &e.command)
                    .map_err(|e| refuse(format!("a command that stands is refused: {e}")))?;
            }
        }
        for (_, step) in steps {
            crate::fair::redo(&mut table, step).map_err(|e| refuse(e.to_string()))?;
        }
        self.shadow = table.state().clone();
        self.written = table.log().len();
        self.table = table;
        Ok(())
    }

    /// The round's commands are all given: a seat's nonce left out of its mix must be that of
    /// a choice the rules still hold face down (docs/fairness.md §3).
    fn round_done(&mut self) -> Result<(), ReplayError> {
        let Some(r) = self.round.as_mut().filter(|r| !r.done) else { return Ok(()) };
        r.done = true;
        r.pending_at_done = self.pending.clone();
        for &(k, _) in &r.given {
            let seat = self.record[k].seat.0;
            if r.nulls.contains(&seat) && !r.faulted.contains(&seat) && !self.pending.contains(&k) {
                return Err(bad(
                    r.mix_at,
                    format!(
                        "mix: seat {seat}'s nonce is null, yet its choice of the round (command {} of the record) was face up once the round's commands were given: its nonce was mixed, only a choice the rules still hold face down is left out (docs/fairness.md §3)",
                        k + 1
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The round ends (at the next `bound`, or the log's end, entry `n`): each command of it
    /// not opened must still be face down, and is opened later.
    fn close_round(&mut self, n: u64, carried: &mut Vec<(usize, u64)>) -> Result<(), ReplayError> {
        self.round_done()?;
        let Some(r) = self.round.take() else { return Ok(()) };
        for (k, opened) in r.given {
            let seat = self.record[k].seat.0;
            if opened || r.faulted.contains(&seat) {
                continue;
            }
            if r.pending_at_done.contains(&k) {
                carried.push((k, r.bound_at));
            } else {
                return Err(bad(
                    n,
                    format!(
                        "seat {seat}'s choice of the round bound at entry {} (command {} of the record) was face up once the round's commands were given, yet it is not opened before this entry: revealed late, or never",
                        r.bound_at,
                        k + 1
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Replays the rules of `R` from a finished game's verifiable log (docs/fairness.md §7.3),
/// after [`fairlog::verify`]'s checks; see the module's documentation for what it checks.
pub fn replay<R: Ruleset>(log: &str) -> Result<ReplayReport, ReplayError> {
    replay_with::<R>(log, false).map(|r| r.report)
}

/// [`replay`], and the game step by step as a spectator saw it ([`ReplayStep`]): what a page
/// steps through, turn by turn, once the log is checked — the steps come from the rules
/// replayed, never from the log's own words.
pub fn replay_steps<R: Ruleset>(log: &str) -> Result<Replayed, ReplayError> {
    replay_with::<R>(log, true)
}

fn replay_with<R: Ruleset>(log: &str, steps: bool) -> Result<Replayed, ReplayError> {
    let checked = fairlog::verify(log)?;
    let entries: Vec<Value> = log
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str::<Value>(l).map(|v| v["entry"].clone()).unwrap_or(Value::Null))
        .collect();
    let system = entries[0]["system"].as_str().unwrap_or_default();
    if system != R::NAME {
        return Err(bad(1, format!("the log is of {system:?}, not {}", R::NAME)));
    }
    let kind = |e: &Value| e["kind"].as_str().unwrap_or_default().to_owned();
    let Some(record_at) = entries.iter().rposition(|e| kind(e) == "record") else {
        return Err(ReplayError::NotYet(
            "the log holds no revealed record: the game's commands are revealed at its end, with the server seed (docs/fairness.md §7.3)"
                .to_owned(),
        ));
    };
    let record_n = record_at as u64 + 1;
    let Some(setup_text) = checked.setup.clone() else {
        return Err(ReplayError::NotYet("the log holds no revealed setup".to_owned()));
    };
    let setup_n = entries.iter().position(|e| kind(e) == "setup").map_or(1, |i| i as u64 + 1);
    let setup: R::Setup = serde_json::from_str(&setup_text)
        .map_err(|e| bad(setup_n, format!("not a {} setup: {e}", R::NAME)))?;
    let mut initial =
        R::setup(&setup).map_err(|e| bad(setup_n, format!("the rules refuse the setup: {e}")))?;
    // The revealed server seeds, in order (each already checked against its commitment).
    let mut seeds = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if kind(e) == "server_seed" {
            let c: Commitment = e["commitment"]
                .as_str()
                .unwrap_or_default()
                .parse()
                .map_err(|err: table::fairness::FairnessError| bad(i as u64 + 1, err.to_string()))?;
            let s = ServerSeed::from_revealed(e["revealed"].as_str().unwrap_or_default(), &c)
                .map_err(|err| bad(i as u64 + 1, err.to_string()))?;
            seeds.push(s);
        }
    }
    let seats = R::seats(&initial).len();
    let logged_seats = entries[0]["seats"].as_array().map_or(0, Vec::len);
    if seats != logged_seats {
        return Err(bad(1, format!("{logged_seats} seats, but the revealed setup seats {seats}")));
    }
    let Some(d) = R::draws_mut(&mut initial) else {
        return Err(bad(
            setup_n,
            format!("{} makes no draws: its log has no verifiable draws to replay", R::NAME),
        ));
    };
    *d = Draws::verifiable(seeds[0], seats as u16);
    let mut record: Vec<Entry<R::Command>> = Vec::new();
    for (i, e) in entries.iter().enumerate().filter(|(_, e)| kind(e) == "record") {
        let n = i as u64 + 1;
        let list: Vec<Entry<R::Command>> = serde_json::from_value(e["entries"].clone())
            .map_err(|err| bad(n, format!("the record's entries are not {} commands: {err}", R::NAME)))?;
        if list.len() < record.len() || list[..record.len()] != record[..] {
            return Err(bad(n, "the record revealed here does not go on from the one revealed before"));
        }
        if list.iter().any(|en| usize::from(en.seat.0) >= seats) {
            return Err(bad(
                n,
                format!("a command of the record for a seat the table has not ({seats} seats)"),
            ));
        }
        record = list;
    }
    // The face-down choices taken back (docs/fairness.md §7.3), merged into the record at the
    // places they were given: the commands replayed in the order the session was given them.
    let taken: Vec<TakenBack<R::Command>> = serde_json::from_value(
        entries[record_at].get("taken_back").cloned().unwrap_or(Value::Array(Vec::new())),
    )
    .map_err(|err| {
        bad(record_n, format!("the record's taken-back commands are not {} commands: {err}", R::NAME))
    })?;
    let total = record.len() + taken.len();
    let mut merged: Vec<Entry<R::Command>> = Vec::with_capacity(total);
    let mut numbers: Vec<Option<usize>> = Vec::with_capacity(total);
    // Per `took_back` entry of the log (in order), the replayed command it takes back.
    let mut takes: Vec<Option<usize>> = Vec::new();
    let mut standing = record.iter().enumerate();
    for place in 0..total {
        let mut here = taken.iter().filter(|t| t.given == place);
        match (here.next(), here.next()) {
            (Some(_), Some(_)) => {
                return Err(bad(
                    record_n,
                    format!("two taken-back commands are given at the same place ({place})"),
                ));
            }
            (Some(t), None) => {
                if usize::from(t.entry.seat.0) >= seats {
                    return Err(bad(
                        record_n,
                        format!("a taken-back command for a seat the table has not ({seats} seats)"),
                    ));
                }
                if takes.len() <= t.took_back {
                    takes.resize(t.took_back + 1, None);
                }
                if takes[t.took_back].replace(place).is_some() {
                    return Err(bad(
                        record_n,
                        format!(
                            "two taken-back commands are taken back by the same `took_back` entry ({})",
                            t.took_back + 1
                        ),
                    ));
                }
                merged.push(t.entry.clone());
                numbers.push(None);
            }
            (None, _) => {
                let Some((i, en)) = standing.next() else {
                    return Err(bad(
                        record_n,
                        format!("a taken-back command is given at place {place}, past every command given"),
                    ));
                };
                merged.push(en.clone());
                numbers.push(Some(i));
            }
        }
    }
    // Where each end's record stops among the commands replayed.
    let ends: Vec<usize> = (0..=record.len())
        .map(|upto| {
            if upto == 0 {
                0
            } else {
                numbers.iter().position(|&x| x == Some(upto - 1)).map_or(total, |p| p + 1)
            }
        })
        .collect();
    let viewers: Vec<Viewer> = (0..seats)
        .map(|s| Viewer::Seat(SeatId(s as u16)))
        .chain(std::iter::once(Viewer::Spectator))
        .collect();
    let mut g = Rebuild::<R> {
        table: Table::unopened(initial.clone()),
        opened_table: false,
        shadow: initial.clone(),
        initial,
        written: 0,
        steps: Vec::new(),
        opening_steps: 0,
        undone: Vec::new(),
        stands: Vec::new(),
        numbers,
        viewers: viewers.clone(),
        events: Vec::new(),
        draws: Default::default(),
        record: merged,
        record_at: record_n,
        next: 0,
        pending: Vec::new(),
        round: None,
        shown: steps.then(Vec::new),
        shown_from: 0,
        public_since: false,
    };
    // A `took_back` entry with no revealed taken-back command takes back a sealed round's
    // commitment not yet bound (or an opening one): no command, no events.
    let sealed = entries[0]["seats"].as_array().is_some_and(|l| l.iter().any(|s| s["mode"] == "sealed"));
    let mut took_backs = 0usize;
    let mut candidates: Vec<usize> = (0..viewers.len()).collect();
    let (mut compared, mut drawn, mut matched, mut cursor) = (0u64, 0u64, 0u64, 0usize);
    let mut carried: Vec<(usize, u64)> = Vec::new();
    let mut epoch = 0usize;
    let mut stopped_at: Option<u64> = None;
    let json_err = |n: u64, what: &str| bad(n, format!("`{what}` is missing or malformed"));
    for (i, e) in entries.iter().enumerate().skip(1) {
        let n = i as u64 + 1;
        let seat = || -> Result<u16, ReplayError> {
            e["seat"].as_u64().and_then(|s| u16::try_from(s).ok()).ok_or_else(|| json_err(n, "seat"))
        };
        match kind(e).as_str() {
            "client_seed" => {
                let s: ClientSeed = e["seed"]
                    .as_str()
                    .unwrap_or_default()
                    .parse()
                    .map_err(|err: table::fairness::FairnessError| bad(n, err.to_string()))?;
                g.step(n, Step::ClientSeed { seat: seat()?, seed: s })?;
            }
            "bound" => {
                g.close_round(n, &mut carried)?;
                let decisions = e["commitments"].as_array().map_or(0, Vec::len);
                g.round = Some(Round { bound_at: n, decisions, ..Round::default() });
            }
            "mix" => {
                let list = e["round_nonces"].as_array().ok_or_else(|| json_err(n, "round_nonces"))?;
                let mut nonces: Vec<Option<Nonce>> = Vec::with_capacity(list.len());
                for x in list {
                    nonces.push(match x.as_str() {
                        None => None,
                        Some(t) => Some(
                            t.parse()
                                .map_err(|err: table::fairness::FairnessError| bad(n, err.to_string()))?,
                        ),
                    });
                }
                g.step(n, Step::Mix { round_nonces: nonces.clone() })?;
                let opening = !g.opened_table && g.next == 0;
                let Some(r) = g.round.as_mut() else { continue };
                r.mix_at = n;
                r.opening = opening;
                r.nulls =
                    nonces.iter().enumerate().filter(|(_, x)| x.is_none()).map(|(s, _)| s as u16).collect();
                let after = &entries[i + 1..];
                let end = after.iter().position(|x| kind(x) == "bound").unwrap_or(after.len());
                let window = &after[..end];
                r.faulted = window
                    .iter()
                    .filter(|x| kind(x) == "fault")
                    .filter_map(|x| x["seat"].as_u64().and_then(|s| u16::try_from(s).ok()))
                    .collect();
                if opening {
                    // docs/fairness.md §7.2: every seat's `{}` is opened as the table opens; only
                    // a seat that faulted adds no nonce.
                    r.done = true;
                    if let Some(s) = r.nulls.iter().find(|s| !r.faulted.contains(s)) {
                        return Err(bad(
                            n,
                            format!(
                                "mix: seat {s}'s nonce is null in the opening round, yet it did not fault: every seat's `{{}}` is opened as the table opens"
                            ),
                        ));
                    }
                    continue;
                }
                // The session gives the round's commands to the rules right after its mix, one
                // for each decision bound, but a faulted one with no default to force.
                let faults = window.iter().filter(|x| kind(x) == "fault").count();
                let forced =
                    window.windows(2).filter(|w| kind(&w[0]) == "fault" && kind(&w[1]) == "forced").count();
                let count = (r.decisions + forced).saturating_sub(faults);
                for _ in 0..count {
                    let k = g.next;
                    if !g.submit_next()? {
                        break;
                    }
                    if let Some(r) = g.round.as_mut() {
                        r.given.push((k, false));
                    }
                }
                // Check 1 at once: each command of the round is the choice its seat opened in
                // the round (or one still face down, opened later).
                for &(k, _) in g.round.as_ref().map_or(&[][..], |r| &r.given[..]) {
                    let en = &g.record[k];
                    let s = en.seat.0;
                    if g.round.as_ref().is_some_and(|r| r.faulted.contains(&s)) || g.pending.contains(&k) {
                        continue;
                    }
                    let command = serde_json::to_value(&en.command).unwrap_or(Value::Null);
                    let opened: Vec<(usize, &Value)> = window
                        .iter()
                        .enumerate()
                        .filter(|(_, x)| kind(x) == "opened" && x["seat"].as_u64() == Some(u64::from(s)))
                        .map(|(j, x)| (j, &x["command"]))
                        .collect();
                    if let Some(&(j, _)) = opened.first()
                        && !opened.iter().any(|(_, c)| **c == command)
                    {
                        return Err(bad(
                            record_n,
                            format!(
                                "{}, seat {s}'s choice in the round bound at entry {}, is not the choice opened at entry {}",
                                g.label(k),
                                g.round.as_ref().map_or(0, |r| r.bound_at),
                                n + 1 + j as u64
                            ),
                        ));
                    }
                }
                g.round_done()?;
            }
            "event" => {
                while cursor >= g.events.len() {
                    if !g.open_or_submit()? {
                        if n > record_n {
                            stopped_at = Some(n);
                            break;
                        }
                        return Err(bad(n, "an event no command of the record derives"));
                    }
                }
                if stopped_at.is_some() {
                    break;
                }
                let shown = &e["event"];
                let rebuilt = &g.events[cursor];
                let before = candidates.clone();
                let who = || before.iter().map(|&v| viewer_name(viewers[v])).collect::<Vec<_>>().join(" or ");
                candidates.retain(|&v| rebuilt[v].0 == *shown);
                if candidates.is_empty() {
                    let expected = &rebuilt[before[0]].0;
                    return Err(bad(
                        n,
                        format!(
                            "the event is not the rules' event as this log's viewer ({}) is shown it: the replay gives {expected}",
                            who()
                        ),
                    ));
                }
                // The narration, when the log has one, is the ruleset's for the viewer (a
                // session may be set to narrate nothing: `null`).
                if let Some(text) = e["text"].as_str() {
                    let before = candidates.clone();
                    candidates.retain(|&v| rebuilt[v].1.as_deref() == Some(text));
                    if candidates.is_empty() {
                        return Err(bad(
                            n,
                            format!(
                                "the narration is not the rules' narration of the event for this log's viewer ({}): the replay gives {:?}",
                                before
                                    .iter()
                                    .map(|&v| viewer_name(viewers[v]))
                                    .collect::<Vec<_>>()
                                    .join(" or "),
                                rebuilt[before[0]].1
                            ),
                        ));
                    }
                }
                cursor += 1;
                compared += 1;
            }
            "draw" => {
                while g.draws.is_empty() {
                    if !g.open_or_submit()? {
                        if n > record_n {
                            stopped_at = Some(n);
                            break;
                        }
                        return Err(bad(n, "a draw no command of the record makes"));
                    }
                }
                if stopped_at.is_some() {
                    break;
                }
                let logged: DrawRecord = serde_json::from_value(e["draw"].clone())
                    .map_err(|err| bad(n, format!("draw: {err}")))?;
                let Some(rebuilt) = g.draws.pop_front() else {
                    return Err(bad(n, "a draw the rules did not make"));
                };
                if logged != rebuilt {
                    return Err(bad(n, format!("the draw is not the one the rules made: {rebuilt}")));
                }
                drawn += 1;
            }
            "opened" => {
                let s = seat()?;
                let command = &e["command"];
                let opening = g.round.as_ref().is_some_and(|r| r.opening);
                if opening && command.as_object().is_some_and(serde_json::Map::is_empty) {
                    continue;
                }
                let same = |en: &Entry<R::Command>| {
                    en.seat.0 == s && serde_json::to_value(&en.command).ok().as_ref() == Some(command)
                };
                let in_round = g
                    .round
                    .as_ref()
                    .and_then(|r| r.given.iter().position(|&(k, opened)| !opened && same(&g.record[k])));
                if let Some(at) = in_round {
                    if let Some(r) = g.round.as_mut() {
                        r.given[at].1 = true;
                    }
                } else if let Some(at) = carried.iter().position(|&(k, _)| same(&g.record[k])) {
                    carried.remove(at);
                } else {
                    let differs = g.round.as_ref().and_then(|r| {
                        r.given
                            .iter()
                            .find(|&&(k, opened)| !opened && g.record[k].seat.0 == s)
                            .map(|&(k, _)| k)
                    });
                    return Err(match differs {
                        Some(k) => bad(
                            record_n,
                            format!(
                                "{}, seat {s}'s choice in the round bound at entry {}, is not the choice opened at entry {n}",
                                g.label(k),
                                g.round.as_ref().map_or(0, |r| r.bound_at)
                            ),
                        ),
                        None => bad(
                            n,
                            format!("seat {s}'s opened choice is no command of the record in its round"),
                        ),
                    });
                }
                matched += 1;
            }
            // A rotation: the draws go on keyed by the next seed, once it is revealed.
            "server_seed" if e.get("next").is_some_and(|x| !x.is_null()) => {
                epoch += 1;
                if let Some(next) = seeds.get(epoch) {
                    g.step(n, Step::Rotate { next: *next })?;
                }
            }
            "took_back" => {
                let s = seat()?;
                let nth = took_backs;
                took_backs += 1;
                match takes.get(nth).copied().flatten() {
                    Some(k) if n <= record_n => g.take_back(n, s, k, cursor)?,
                    Some(_) => {}
                    None if n > record_n => {}
                    None if sealed && !g.pending.iter().any(|&k| g.record[k].seat.0 == s) => {}
                    None => {
                        return Err(bad(
                            n,
                            format!(
                                "seat {s} takes back a face-down choice, yet the record reveals no command taken back here"
                            ),
                        ));
                    }
                }
            }
            "record" => {
                // Every command before this end is given, and derives no event or draw the
                // log did not show before it.
                let upto = e["entries"].as_array().map_or(0, Vec::len);
                let upto = ends.get(upto).copied().unwrap_or(upto);
                while g.next < upto {
                    g.submit_next()?;
                }
                if cursor < g.events.len() || !g.draws.is_empty() {
                    return Err(bad(
                        n,
                        format!(
                            "the record's commands derive {} events and {} draws the log does not show before it",
                            g.events.len() - cursor,
                            g.draws.len()
                        ),
                    ));
                }
            }
            _ => {}
        }
    }
    let last = entries.len() as u64;
    if stopped_at.is_none() {
        while g.next < g.record.len() {
            g.submit_next()?;
        }
        if cursor < g.events.len() || !g.draws.is_empty() {
            return Err(bad(
                last,
                format!(
                    "the record's commands derive {} events and {} draws the log does not show",
                    g.events.len() - cursor,
                    g.draws.len()
                ),
            ));
        }
        g.close_round(last, &mut carried)?;
        if let Some(nth) =
            takes.iter().enumerate().skip(took_backs.min(takes.len())).find_map(|(i, t)| t.map(|_| i))
        {
            return Err(bad(
                record_n,
                format!(
                    "the record reveals a command taken back by the log's `took_back` entry number {}, which the log does not have",
                    nth + 1
                ),
            ));
        }
        if let Some(&(k, b)) = carried.first() {
            return Err(bad(
                last,
                format!(
                    "seat {}'s choice of the round bound at entry {b} ({}) is never opened",
                    g.record[k].seat.0,
                    g.label(k)
                ),
            ));
        }
    }
    // What the last command left (a public command's events end its own step).
    if g.shown_from < g.events.len() {
        g.end_step(true);
    }
    let report = ReplayReport {
        log: checked,
        commands: g.numbers[..g.next].iter().filter(|x| x.is_some()).count() as u64,
        taken_back: g.numbers[..g.next].iter().filter(|x| x.is_none()).count() as u64,
        events: compared,
        draws: drawn,
        opened: matched,
        viewers: candidates.iter().map(|&v| viewer_name(viewers[v])).collect(),
        not_replayed: stopped_at.map_or(0, |s| last - s + 1),
    };
    Ok(Replayed { report, steps: g.shown.unwrap_or_default() })
}

impl<R: Ruleset> Rebuild<R> {
    /// Opens the table if it is not yet, else gives the next command; false when neither is
    /// left to do.
    fn open_or_submit(&mut self) -> Result<bool, ReplayError> {
        if !self.opened_table {
            self.open();
            return Ok(true);
        }
        self.submit_next()
    }
}
