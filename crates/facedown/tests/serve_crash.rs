//! The crash test of `facedown serve` (issue 15): the real binary serves an Iron Triangle duel
//! whose two seats are people, played by two WebSocket clients choosing at random among their
//! prompts' choices. The server is killed with SIGKILL at random moments (seeded: a few kills,
//! each after 50–500 ms of play) and restarted on the same database on a new port; the clients
//! reconnect with the last sequence number they saw and send again, with the same client id,
//! the command that had no acknowledgement yet, and the last acknowledged one (as a client whose
//! acknowledgement was lost would). Checked:
//!
//! - every update each client receives follows the last one it saw, across restarts: no
//!   sequence gap, no reordering, no item seen twice differently;
//! - nothing acknowledged is lost: at the end (and whenever a game ends) each seat's whole log,
//!   asked for afresh, holds every item the client ever received, unchanged, and reaches past
//!   every acknowledged command; a retried command is answered as it first was (same sequence
//!   number), not applied again;
//! - the game goes on after every restart.
//!
//! The first table comes from `--table`; a game that ends (random duels are short) is checked
//! while the server is up and followed by a new table (`POST /api/tables`), so every kill
//! comes mid-play. Bounded: a fixed number of kills, every wait with a timeout, the whole test
//! a few seconds. It runs on SQLite and on PostgreSQL (`FACEDOWN_TEST_POSTGRES`; skipped, and
//! printed, without it outside CI).

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use rand::RngExt;
use serde_json::Value;
use server::client::{Client, ClientError};
use server::protocol::{Change, ClientMessage, CreatedTable, ErrorCode, ServerMessage, link, parse_link};
use table::TableRng;
use tokio::sync::watch;

/// How many times the server is killed.
const KILLS: usize = 5;
/// The seed of the kill moments and of the seats' choices.
const SEED: u64 = 15;
/// The table every game is played at.
const TABLE: &str = "iron-triangle:duel";
/// The longest any one wait (a start, a welcome, a message, an answer) may take.
const WAIT: Duration = Duration::from_secs(15);
/// The most messages one connection handles before it stops (a bound; never reached).
const MAX_MESSAGES: usize = 100_000;

/// A `facedown serve` process and what it printed at start.
struct Server {
    child: Child,
    base: String,
    start: Value,
}

impl Server {
    /// Starts the server on 127.0.0.1, port 0, on `db`; with a new duel table when `new_table`.
    fn start(db: &Path, new_table: bool) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_facedown"));
        command.args(["serve", "--listen", "127.0.0.1:0", "--db"]).arg(db).arg("--json");
        // A new table the moment a game ends, from one address, for as long as the test runs.
        command.args(["--tables-per-minute-per-address", "100000"]);
        if new_table {
            command.args(["--table", TABLE]);
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the facedown binary starts");
        let stdout = child.stdout.take().expect("piped standard output");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let first = (&mut reader).take(1 << 20).read_line(&mut line).map(|_| line);
            let _ = tx.send(first);
            // Keep reading so the server never blocks on a full pipe.
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
        });
        let line = match rx.recv_timeout(WAIT) {
            Ok(Ok(line)) if !line.trim().is_empty() => line,
            other => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("`facedown serve --json` printed no start line: {other:?}");
            }
        };
        let start: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("start line {line:?}: {e}"));
        let addr = start["addr"].as_str().unwrap_or_else(|| panic!("no addr in {line}"));
        Server { child, base: format!("http://{addr}"), start }
    }

    /// Kills it with SIGKILL and waits for it.
    fn kill(&mut self) {
        // An error here means it is already dead and reaped.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The table the start line announces (its links, wherever the line puts them).
fn created_table(start: &Value) -> Option<CreatedTable> {
    if let Ok(created) = serde_json::from_value::<CreatedTable>(start.clone()) {
        return Some(created);
    }
    match start {
        Value::Object(map) => map.values().find_map(created_table),
        Value::Array(items) => items.iter().find_map(created_table),
        _ => None,
    }
}

/// A command the server acknowledged.
#[derive(Debug, Clone)]
struct Acked {
    id: String,
    command: Value,
    seq: u64,
}

/// One seat's client, kept across connections (and so across the server's restarts).
struct SeatClient {
    name: String,
    table: String,
    token: String,
    rng: TableRng,
    next_id: u64,
    /// The last sequence number seen.
    seq: u64,
    /// Every log item received, by sequence number.
    items: BTreeMap<u64, Value>,
    /// What the seat is asked, as of `prompt_seq`.
    prompt: Option<Value>,
    prompt_seq: u64,
    /// No prompt older than this is answered (the last acknowledgement's sequence number).
    act_from: u64,
    over: bool,
    /// The command sent and not yet answered.
    unacked: Option<(String, Value)>,
    acked: Vec<Acked>,
    /// Retries of acknowledged commands, and the sequence number their first answer had.
    replays: BTreeMap<String, u64>,
    problems: Vec<String>,
}

impl SeatClient {
    fn new(name: &str, seat_link: &str, seed: u64) -> SeatClient {
        let (_, table, token) = parse_link(seat_link).expect("a seat link");
        SeatClient {
            name: name.to_owned(),
            table,
            token,
            rng: table::seeded_rng(seed),
            next_id: 0,
            seq: 0,
            items: BTreeMap::new(),
            prompt: None,
            prompt_seq: 0,
            act_from: 0,
            over: false,
            unacked: None,
            acked: Vec::new(),
            replays: BTreeMap::new(),
            problems: Vec::new(),
        }
    }

    fn link(&self, base: &str) -> String {
        link(base, &self.table, &self.token)
    }

    /// Takes in a change: each item must follow the last seen.
    fn absorb(&mut self, change: Change) {
        for item in change.updates {
            let Some(seq) = item.get("seq").and_then(Value::as_u64) else {
                self.problems.push(format!("{}: an update without a seq: {item}", self.name));
                continue;
            };
            if seq != self.seq + 1 {
                self.problems.push(format!("{}: update {seq} came after {}", self.name, self.seq));
            }
            if let Some(before) = self.items.get(&seq)
                && *before != item
            {
                self.problems.push(format!("{}: item {seq} changed from {before} to {item}", self.name));
            }
            self.items.insert(seq, item);
            self.seq = self.seq.max(seq);
        }
        if change.seq != self.seq {
            self.problems.push(format!(
                "{}: a change at seq {} after items up to {}",
                self.name, change.seq, self.seq
            ));
        }
        self.prompt = change.prompt;
        self.prompt_seq = change.seq;
        self.over = change.over;
    }

    /// Sends one of the prompt's choices if the seat is asked, nothing is in flight, and the
    /// prompt is not older than the last acknowledgement (nor answered already).
    async fn act(&mut self, client: &mut Client) -> Result<(), ClientError> {
        if self.unacked.is_some() || self.prompt_seq < self.act_from || self.over {
            return Ok(());
        }
        let Some(choices) = self.prompt.as_ref().and_then(|p| p["choices"].as_array()) else {
            return Ok(());
        };
        if choices.is_empty() {
            return Ok(());
        }
        let command = choices[self.rng.random_range(0..choices.len())]["command"].clone();
        self.act_from = self.prompt_seq + 1;
        self.next_id += 1;
        let id = format!("{}-{}", self.name, self.next_id);
        self.unacked = Some((id.clone(), command.clone()));
        client.send(&ClientMessage::Command { id, command }).await
    }

    /// One connection: joins with the last seq seen, retries what needs retrying, then plays
    /// until the connection ends (the server was killed), the game is over, or `stop`.
    async fn connection(&mut self, base: &str, mut stop: watch::Receiver<bool>) -> Result<(), ClientError> {
        {
            let mut client = Client::join(&self.link(base), self.seq).await?;
            loop {
                match tokio::time::timeout(WAIT, client.next()).await {
                    Err(_) => {
                        self.problems.push(format!("{}: no welcome within {WAIT:?}", self.name));
                        return Ok(());
                    }
                    Ok(message) => match message? {
                        ServerMessage::Welcome { change, .. } => {
                            self.absorb(change);
                            break;
                        }
                        ServerMessage::Error { code, message, .. } => {
                            self.problems.push(format!("{}: hello refused: {code:?} {message}", self.name));
                            return Ok(());
                        }
                        _ => {}
                    },
                }
            }
            // A client whose acknowledgement was lost sends the command again.
            if let Some(last) = self.acked.last().cloned() {
                self.replays.insert(last.id.clone(), last.seq);
                client.send(&ClientMessage::Command { id: last.id, command: last.command }).await?;
            }
            // The command in flight when the server died: sent again with its id.
            if let Some((id, command)) = self.unacked.clone() {
                client.send(&ClientMessage::Command { id, command }).await?;
            }
            self.act(&mut client).await?;
            for _ in 0..MAX_MESSAGES {
                if self.over || *stop.borrow() {
                    client.close().await;
                    return Ok(());
                }
                let message = tokio::select! {
                    changed = stop.changed() => {
                        if changed.is_err() {
                            client.close().await;
                            return Ok(());
                        }
                        continue;
                    }
                    m = tokio::time::timeout(WAIT, client.next()) => match m {
                        Ok(m) => m?,
                        Err(_) => {
                            self.problems.push(format!("{}: the server said nothing for {WAIT:?}", self.name));
                            return Ok(());
                        }
                    },
                };
                match message {
                    ServerMessage::Update { change } => self.absorb(change),
                    ServerMessage::Ack { id, seq } => {
                        if let Some(first) = self.replays.remove(&id) {
                            if first != seq {
                                self.problems.push(format!(
                                    "{}: the retry of {id} was answered with seq {seq}, first {first}",
                                    self.name
                                ));
                            }
                        } else if self.unacked.as_ref().is_some_and(|(u, _)| *u == id) {
                            let (id, command) = self.unacked.take().expect("checked");
                            self.acked.push(Acked { id, command, seq });
                            self.act_from = seq;
                        } else {
                            self.problems
                                .push(format!("{}: an ack for {id}, which is not in flight", self.name));
                        }
                    }
                    ServerMessage::Error { id: Some(id), code, message } => {
                        if self.replays.remove(&id).is_some() {
                            self.problems.push(format!(
                                "{}: the retry of acknowledged {id} was refused: {code:?} {message}",
                                self.name
                            ));
                        } else if self.unacked.as_ref().is_some_and(|(u, _)| *u == id) {
                            // Refused: never applied. Too fast: the same prompt a little later;
                            // a stale prompt: the next change's.
                            self.unacked = None;
                            match code {
                                ErrorCode::RateLimited => {
                                    tokio::time::sleep(Duration::from_millis(60)).await;
                                    self.act_from = self.prompt_seq;
                                }
                                ErrorCode::Refused => self.act_from = self.seq + 1,
                                _ => self
                                    .problems
                                    .push(format!("{}: {id} refused: {code:?} {message}", self.name)),
                            }
                        }
                    }
                    ServerMessage::Error { id: None, code, message } => {
                        self.problems.push(format!("{}: error frame {code:?}: {message}", self.name));
                    }
                    ServerMessage::TakenOver {} | ServerMessage::Revoked {} => {
                        self.problems
                            .push(format!("{}: the connection was taken over or revoked", self.name));
                        return Ok(());
                    }
                    _ => {}
                }
                self.act(&mut client).await?;
            }
            Ok(())
        }
    }
}

/// Checks a seat's whole log, asked for afresh, against everything its client received.
async fn check_log(seat: &SeatClient, base: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut client = match Client::join(&seat.link(base), 0).await {
        Ok(c) => c,
        Err(e) => return vec![format!("{}: cannot reconnect for the check: {e}", seat.name)],
    };
    let change = loop {
        match tokio::time::timeout(WAIT, client.next()).await {
            Ok(Ok(ServerMessage::Welcome { change, .. })) => break change,
            Ok(Ok(_)) => continue,
            other => return vec![format!("{}: no welcome for the check: {other:?}", seat.name)],
        }
    };
    client.close().await;
    let log: BTreeMap<u64, Value> =
        change.updates.into_iter().filter_map(|u| Some((u.get("seq")?.as_u64()?, u))).collect();
    let numbers: Vec<u64> = log.keys().copied().collect();
    if numbers != (1..=change.seq).collect::<Vec<_>>() {
        problems.push(format!("{}: the whole log is not numbered 1..={}", seat.name, change.seq));
    }
    for (seq, item) in &seat.items {
        match log.get(seq) {
            Some(kept) if kept == item => {}
            Some(kept) => problems.push(format!("{}: item {seq} was {item}, is now {kept}", seat.name)),
            None => problems.push(format!("{}: item {seq} was received and is lost", seat.name)),
        }
    }
    for acked in &seat.acked {
        if acked.seq > change.seq {
            problems.push(format!(
                "{}: command {} was acknowledged at seq {} and the log ends at {}",
                seat.name, acked.id, acked.seq, change.seq
            ));
        }
    }
    problems
}

/// What the rounds have seen.
#[derive(Default)]
struct Tally {
    games: u64,
    acked: usize,
    kills: usize,
    problems: Vec<String>,
}

/// Runs the seats of one game until they all end (the game is over) or `until`; then kills the
/// server mid-play when `kill`, or tells the seats to stop. Returns the seats and whether the
/// server was killed.
async fn play_game(
    seats: Vec<SeatClient>,
    server: &mut Server,
    until: tokio::time::Instant,
    kill: bool,
) -> (Vec<SeatClient>, bool) {
    let (stop_tx, stop) = watch::channel(false);
    let mut tasks = Vec::new();
    for mut seat in seats {
        let (base, stop) = (server.base.clone(), stop.clone());
        tasks.push(tokio::spawn(async move {
            let result = seat.connection(&base, stop).await;
            (seat, result)
        }));
    }
    let all_done = async {
        let mut out = Vec::new();
        for task in tasks {
            out.push(task.await.expect("a seat task"));
        }
        out
    };
    tokio::pin!(all_done);
    let mut killed = false;
    let ended = tokio::select! {
        seats = &mut all_done => seats,
        _ = tokio::time::sleep_until(until) => {
            if kill {
                server.kill();
                killed = true;
            } else {
                let _ = stop_tx.send(true);
            }
            tokio::time::timeout(WAIT, all_done).await.expect("the seats stop when told")
        }
    };
    let seats = ended
        .into_iter()
        .map(|(mut seat, result)| {
            // A connection error is what a killed server looks like.
            if let Err(e) = result
                && !killed
            {
                seat.problems.push(format!("{}: connection failed: {e}", seat.name));
            }
            seat
        })
        .collect();
    (seats, killed)
}

/// Plays on `server` for `ms` milliseconds: the current game, and whenever a game ends, checks
/// it (the server is up) and goes on at a new table. Then kills the server when `kill`.
async fn play_round(
    mut seats: Vec<SeatClient>,
    server: &mut Server,
    ms: u64,
    kill: bool,
    tally: &mut Tally,
) -> Vec<SeatClient> {
    let until = tokio::time::Instant::now() + Duration::from_millis(ms);
    // Bounded by the time; the count bounds it too.
    for _ in 0..1000 {
        let acked_before: usize = seats.iter().map(|s| s.acked.len()).sum();
        let (played, killed) = play_game(seats, server, until, kill).await;
        seats = played;
        tally.acked += seats.iter().map(|s| s.acked.len()).sum::<usize>() - acked_before;
        tally.kills += usize::from(killed);
        if killed || !seats.iter().all(|s| s.over) {
            break;
        }
        // The game ended with the server up: check it whole, then a new table.
        for seat in &seats {
            tally.problems.extend(check_log(seat, &server.base).await);
        }
        for seat in &mut seats {
            tally.problems.append(&mut seat.problems);
        }
        let base = server.base.clone();
        let created =
            tokio::task::spawn_blocking(move || create_table(&base)).await.expect("the HTTP client");
        tally.games += 1;
        seats = new_seats(&serde_json::to_value(created).expect("a created table"), tally.games);
        if tokio::time::Instant::now() >= until {
            if kill {
                server.kill();
                tally.kills += 1;
            }
            break;
        }
    }
    seats
}

/// Creates a new duel over the HTTP API (from loopback: no admin secret).
fn create_table(base: &str) -> CreatedTable {
    let (system, example) = TABLE.split_once(':').expect("SYSTEM:EXAMPLE");
    let request = serde_json::json!({"system": system, "setup": {"example": example}});
    let agent: ureq::Agent = ureq::Agent::config_builder().timeout_global(Some(WAIT)).build().into();
    let mut answer = agent.post(&format!("{base}/api/tables")).send_json(&request).expect("POST /api/tables");
    answer.body_mut().with_config().limit(1 << 20).read_json().expect("a created table")
}

fn new_seats(start: &Value, game: u64) -> Vec<SeatClient> {
    let created = created_table(start).unwrap_or_else(|| panic!("no table's links in {start}"));
    assert_eq!(created.seats.len(), 2, "the duel has two seats: {created:?}");
    created
        .seats
        .iter()
        .enumerate()
        .map(|(i, (name, l))| SeatClient::new(name, l, SEED ^ (game << 8) ^ i as u64))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_acknowledged_command_is_lost_when_the_server_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    kill_and_restart(&dir.path().join("crash.sqlite")).await;
}

/// The same on PostgreSQL (`--db postgres://…`, a database of its own on the server
/// `FACEDOWN_TEST_POSTGRES` names): what PostgreSQL acknowledged survives the server's SIGKILL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_acknowledged_command_is_lost_when_a_server_on_postgres_is_killed() {
    let test = "no_acknowledged_command_is_lost_when_a_server_on_postgres_is_killed";
    // Made on a thread of its own: the helper runs a runtime of its own.
    let Some(url) = std::thread::spawn(move || common::postgres_database(test)).join().unwrap() else {
        return;
    };
    kill_and_restart(Path::new(&url)).await;
}

/// Plays, kills the server at random moments and starts it again on `db`, checking what the
/// module's documentation says.
async fn kill_and_restart(db: &Path) {
    let mut rng = table::seeded_rng(SEED);
    let mut tally = Tally::default();
    let mut seats: Vec<SeatClient> = Vec::new();
    let mut retried = 0usize;
    for round in 0..=KILLS {
        let mut server = Server::start(db, seats.is_empty());
        if seats.is_empty() {
            tally.games += 1;
            seats = new_seats(&server.start, tally.games);
        }
        retried += seats.iter().filter(|s| s.unacked.is_some()).count();
        let acked_before = tally.acked;
        let last = round == KILLS;
        let ms = if last { 1000 } else { rng.random_range(50..=500) };
        seats = play_round(seats, &mut server, ms, !last, &mut tally).await;
        if last {
            for seat in &seats {
                tally.problems.extend(check_log(seat, &server.base).await);
            }
            assert!(tally.acked > acked_before, "the game did not go on after the last restart");
        }
        for seat in &mut seats {
            tally.problems.append(&mut seat.problems);
        }
        server.kill();
    }
    eprintln!(
        "{} kills mid-play, {} games, {} commands acknowledged, {retried} sent again after a kill",
        tally.kills, tally.games, tally.acked
    );
    let problems = &tally.problems;
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
    assert_eq!(tally.kills, KILLS, "every kill came mid-play");
}
