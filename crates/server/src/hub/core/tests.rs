//! Property tests of the table core without sockets, store or clock: thousands of random
//! interleavings of joins, leaves, requests (valid and invalid, sealed and plain, take-backs,
//! duplicate and out-of-order ids, display names, chat lines and mutes, rematches), commit results (success, a lost race, a failure that makes
//! the table reload) and time passing, against invariants:
//!
//! - `nothing_is_sent_before_its_journal_entry_is_durable`: no frame carries a sequence number
//!   past the durable journal's, and no acknowledgement leaves before its entry is durable;
//! - `a_seats_hidden_choice_never_reaches_another_seat`: no item private to one seat (its log
//!   differs there from the spectator's) is in a frame to another seat's or the spectator's
//!   connection;
//! - `every_acknowledged_request_is_in_the_journal_exactly_once`;
//! - `replaying_the_durable_journal_rebuilds_the_same_table`;
//! - `no_deadline_is_left_in_the_past_once_handled`;
//! - `a_rematchs_links_reach_only_the_connections_holding_their_seats_link`: a rematch's new
//!   seat link reaches only connections of that seat's current link (never a spectator's, a
//!   revoked or a replaced one), its GM and spectator links only the GM;
//! - `a_revoked_or_reissued_link_opens_nothing_and_keeps_no_connection`: once the GM revoked or
//!   reissued a link (a seat's, the spectators', its own), the old token is refused and no
//!   connection of it stays open but the GM's own that asked; a new link reaches only the GM.
//!
//! One simulation checks them all; each property is a test of its own over it, so that a
//! failure names the rule broken. Case counts follow proptest's default (`PROPTEST_CASES`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use proptest::prelude::*;
use session::sealed::Commitment;

use super::*;
use crate::protocol::{SetupSource, TableOptions};
use crate::systems;

/// The systems, each with an example, and the seats that may play sealed there.
const GAMES: [(&str, &str, &[&str]); 3] = [
    ("iron-triangle", "duel", &["ada", "gm"]),
    ("nodice", "pc-vs-bandit", &["kara"]),
    ("inciting-incident", "river-fight", &["bren", "mira"]),
];

/// What happens next, as drawn.
#[derive(Debug, Clone)]
enum Event {
    /// A link opens a connection (a seat's, the GM's, the spectator's).
    Join { link: u8, since: u8 },
    /// A connection ends.
    Leave { pick: u8 },
    /// A connection's queue fills up: the shell finds it stuck on its next frame.
    Jam { pick: u8 },
    /// A request from a connection.
    Request { pick: u8, kind: u8, choice: u8 },
    /// Two requests that wait together at the table (one commit).
    Together { a: (u8, u8, u8), b: (u8, u8, u8) },
    /// The commit in flight (if any) ends: 0–5 durable, 6 a lost race, 7 a failure.
    Commit { result: u8 },
    /// Time passes; deadlines due fire.
    Wait { ms: u16 },
    /// The GM link manages the table: a seat to a bot or a person, a link revoked or
    /// reissued (a seat's, the spectators', the GM's own), or (rarely) the table closed.
    Manage { kind: u8, seat: u8 },
}

fn event() -> impl Strategy<Value = Event> {
    let req = (any::<u8>(), 0u8..17, any::<u8>());
    prop_oneof![
        2 => (any::<u8>(), any::<u8>()).prop_map(|(link, since)| Event::Join { link, since }),
        1 => any::<u8>().prop_map(|pick| Event::Leave { pick }),
        1 => any::<u8>().prop_map(|pick| Event::Jam { pick }),
        10 => req.clone().prop_map(|(pick, kind, choice)| Event::Request { pick, kind, choice }),
        2 => (req.clone(), req).prop_map(|(a, b)| Event::Together { a, b }),
        4 => (0u8..8).prop_map(|result| Event::Commit { result }),
        2 => any::<u16>().prop_map(|ms| Event::Wait { ms }),
        1 => (0u8..44, any::<u8>()).prop_map(|(kind, seat)| Event::Manage { kind, seat }),
    ]
}

/// How a table is set up, as drawn.
#[derive(Debug, Clone)]
struct Table {
    game: usize,
    /// Which of the game's sealed-capable seats play sealed (bits).
    sealed: u8,
    /// A seat handed to a bot (by index, when below the seat count).
    bot: u8,
    decision_seconds: Option<u32>,
    opening: bool,
}

fn table() -> impl Strategy<Value = Table> {
    (0..GAMES.len(), any::<u8>(), 0u8..6, prop::option::of(1u32..4), any::<bool>()).prop_map(
        |(game, sealed, bot, decision_seconds, opening)| Table {
            game,
            sealed,
            bot,
            decision_seconds,
            opening,
        },
    )
}

/// A connection as the simulated shell sees it.
struct Line {
    who: Who,
    key: String,
    /// The token it joined with.
    token: String,
    frames: Vec<String>,
    open: bool,
    jammed: bool,
    /// The link's next request counter.
    next: u64,
    /// The last id sent, for a duplicate.
    last_id: Option<String>,
    /// Sealed choices committed and not revealed: the command and its nonce.
    sealed: Vec<(Value, Nonce)>,
}

/// A commit in flight: what the core waits on.
enum InFlight {
    Keep(Vec<Write>, Box<Keeping>),
    Batch(Box<Batch>),
    Manage(Vec<Write>, Box<Managing>, (String, String)),
}

/// The simulated shell: a store (the durable journal and access rows), the connections, time.
struct Sim {
    system: &'static str,
    setup: Value,
    options: TableOptions,
    access: Vec<Access>,
    /// Every link: who it opens, its token, whether it opens the table (not revoked).
    tokens: Vec<(Who, String, bool)>,
    /// The GM's management requests made durable (access rows, not journal entries).
    managed: BTreeSet<(String, String)>,
    core: Core,
    /// The journal as made durable.
    durable: Vec<String>,
    finished: bool,
    lines: BTreeMap<u64, Line>,
    next_conn: u64,
    in_flight: Option<InFlight>,
    /// Requests kept again one at a time after a batch lost a race.
    again: VecDeque<(Op, u64, Instant)>,
    now: Instant,
    /// The sequence number of the table as the durable journal has it.
    durable_seq: u64,
    /// Every acknowledgement seen: the link's key and the id.
    acked: BTreeSet<(String, String)>,
    /// Private items seen in the durable table at some point: seat, canonical text.
    private: BTreeSet<(u16, String)>,
    /// Violations found, each naming its invariant.
    broken: Vec<String>,
    /// Rematches made.
    rematches: u64,
}

fn metrics() -> &'static Metrics {
    static METRICS: std::sync::OnceLock<Metrics> = std::sync::OnceLock::new();
    METRICS.get_or_init(Metrics::new)
}

fn setting() -> Setting {
    Setting {
        base_url: "http://test".into(),
        hold: Duration::ZERO,
        reveal_hold: Duration::ZERO,
        shared: false,
        counts: Counts::of(metrics()),
        limits: crate::Limits::default(),
    }
}

/// A frame's JSON written as a `Value` writes it (keys sorted).
fn canonical(raw: &str) -> String {
    serde_json::from_str::<Value>(raw).map_or_else(|_| raw.to_owned(), |v| v.to_string())
}

impl Sim {
    /// A table made as `Hub::create_table` makes one, its entry 0 durable.
    fn new(t: &Table) -> Sim {
        let (system, example, sealable) = GAMES[t.game];
        let source = SetupSource::Example(example.into());
        let (setup, mut game) =
            systems::read_and_open_with(system, &source, &BTreeMap::new()).expect("the example opens");
        let names: Vec<String> = game.seats().iter().map(|(_, s)| s.name.clone()).collect();
        let bot = (usize::from(t.bot) < names.len()).then_some(usize::from(t.bot));
        let mut options = TableOptions::default();
        for (i, name) in sealable.iter().enumerate() {
            let seat = names.iter().position(|n| n.as_str() == *name);
            if t.sealed & (1 << i) != 0 && seat != bot {
                options.modes.insert(name.to_string(), crate::protocol::SeatMode::Sealed);
            }
        }
        options.decision_seconds = t.decision_seconds;
        options.opening_round = Some(t.opening);
        options.think_ms = 50;
        let mut access = Vec::new();
        let mut tokens = Vec::new();
        for i in 0..names.len() {
            let token = auth::new_token();
            let controller = match (bot == Some(i), systems::bot_kinds(system)) {
                (true, Some(kinds)) => Controller::Bot { bot: kinds[0].to_owned() },
                _ => Controller::Person,
            };
            let who = Who::Seat { seat: i as u16 };
            access.push(Access {
                who: who_key(who),
                token_hash: Some(auth::hash(&token)),
                controller: serde_json::to_string(&controller).expect("JSON"),
            });
            tokens.push((who, token, true));
        }
        for who in [Who::Gm, Who::Spectator] {
            let token = auth::new_token();
            access.push(Access {
                who: who_key(who),
                token_hash: Some(auth::hash(&token)),
                controller: "null".into(),
            });
            tokens.push((who, token, true));
        }
        let opening = options.opens_with_round(game.draws_before_a_reveal());
        let seed = ServerSeed::from_bytes(rand::random::<[u8; 32]>());
        let rotation = ServerSeed::from_bytes(rand::random::<[u8; 32]>());
        let op =
            Op::Verifiable { server_seed: seed.reveal(), rotation_key: Some(rotation.reveal()), opening };
        let mut durable = Vec::new();
        let made = game
            .use_verifiable(seed)
            .and_then(|_| game.rotate_with(rotation))
            .and_then(|()| if opening { game.open_with_round() } else { Ok(()) });
        if made.is_ok() {
            durable.push(entry(&op));
        }
        let now = Instant::now();
        let mut core =
            Core::assemble(TableId(1), system.into(), game, options.clone(), &access, setting(), now)
                .expect("the table assembles");
        core.journal = durable.len() as u64;
        core.set_fair_table();
        let durable_seq = core.game.seq();
        let mut sim = Sim {
            system,
            setup,
            options,
            access,
            tokens,
            managed: BTreeSet::new(),
            core,
            durable,
            finished: false,
            lines: BTreeMap::new(),
            next_conn: 1,
            in_flight: None,
            again: VecDeque::new(),
            now,
            durable_seq,
            acked: BTreeSet::new(),
            private: BTreeSet::new(),
            broken: Vec::new(),
            rematches: 0,
        };
        sim.core.setup = sim.setup.clone();
        sim.core.reschedule(None);
        sim
    }

    /// The table as the store has it: opened, its journal replayed (the shell's `load`).
    fn load(&self) -> Core {
        let game = systems::open(self.system, &self.setup).expect("the setup opens");
        let mut core = Core::assemble(
            TableId(1),
            self.system.into(),
            game,
            self.options.clone(),
            &self.access,
            setting(),
            self.now,
        )
        .expect("the table assembles");
        core.finished = self.finished;
        core.setup = self.setup.clone();
        core.replay(&self.durable).expect("the durable journal replays");
        core.set_fair_table();
        core
    }

    fn break_rule(&mut self, rule: &str, what: String) {
        self.broken.push(format!("{rule}: {what}"));
    }

    /// Carries out the core's effects as the shell does, checking each frame as it leaves.
    fn flush(&mut self) {
        for effect in self.core.take_effects() {
            let sent = matches!(effect, Effect::Send { .. });
            match effect {
                Effect::Send { conn, frame } | Effect::Try { conn, frame } => {
                    // A connection taken over, revoked or gone is closed: a rematch's link for it
                    // would be a link to nobody who holds the seat now.
                    if frame.contains(r#""type":"rematch""#) && self.lines.get(&conn).is_none_or(|l| !l.open)
                    {
                        self.break_rule(
                            "rematch",
                            format!("a rematch's link was sent to closed connection {conn}"),
                        );
                    }
                    let Some(line) = self.lines.get(&conn).filter(|l| l.open) else { continue };
                    if line.jammed {
                        // A frame that must arrive closes a stuck connection; an answer that
                        // need not is dropped.
                        if sent {
                            self.lines.get_mut(&conn).expect("a line").open = false;
                            self.core.stuck(conn);
                        }
                        continue;
                    }
                    let key = line.key.clone();
                    let current = self.tokens.iter().any(|(_, t, valid)| *valid && *t == line.token);
                    if !current && frame.contains(r#""type":"rematch""#) {
                        self.break_rule(
                            "rematch",
                            format!("a rematch's link reached a revoked link of {key}"),
                        );
                    }
                    self.check_frame(&key, &frame);
                    // The GM connection that reissued its own link holds the new one now.
                    if let Ok(v) = serde_json::from_str::<Value>(&frame)
                        && v["type"] == "link"
                        && v["who"]["kind"] == "gm"
                        && let Some((_, token)) = v["url"].as_str().and_then(|u| u.split_once('#'))
                    {
                        self.lines.get_mut(&conn).expect("a line").token = token.to_owned();
                    }
                    self.lines.get_mut(&conn).expect("a line").frames.push(frame);
                }
                Effect::Close { conn } => {
                    if let Some(line) = self.lines.get_mut(&conn) {
                        line.open = false;
                    }
                }
                Effect::Remote { .. } => self.break_rule("remote", "an answer to another instance".into()),
                Effect::Opened { .. } | Effect::Finished => {}
            }
        }
    }

    /// Nothing sent before its journal entry is durable: no sequence number past the durable
    /// table's, no acknowledgement of an entry not durable.
    fn check_frame(&mut self, key: &str, frame: &str) {
        let Ok(v) = serde_json::from_str::<Value>(frame) else {
            return self.break_rule("frame", format!("not JSON: {frame}"));
        };
        if v["type"] == "link"
            && let Some(token) = v["url"].as_str().and_then(|u| u.split_once('#')).map(|(_, t)| t.to_owned())
        {
            if key != "gm" {
                self.break_rule("revoked", format!("a new link reached {key}: {frame}"));
            }
            let who = match serde_json::from_value::<Who>(v["who"].clone()) {
                Ok(who) => who,
                Err(_) => {
                    return self.break_rule("frame", format!("a link that does not say whose: {frame}"));
                }
            };
            if v["seat"].as_u64().map(|s| Who::Seat { seat: s as u16 }).unwrap_or(Who::Spectator) != who
                && who != Who::Gm
            {
                self.break_rule("frame", format!("a link's seat and who disagree: {frame}"));
            }
            // The old token opens nothing any more: kept, to be tried again.
            for t in self.tokens.iter_mut().filter(|t| t.0 == who) {
                t.2 = false;
            }
            self.tokens.push((who, token, true));
        }
        // A rematch's seat link reaches only a connection of that seat's link; the new GM and
        // spectator links only the GM.
        if v["type"] == "rematch" && v["seat"].as_u64().is_none_or(|seat| key != format!("seat:{seat}")) {
            self.break_rule("rematch", format!("a rematch's seat link reached {key}: {frame}"));
        }
        if v["type"] == "rematched" && key != "gm" {
            self.break_rule("rematch", format!("a rematch's GM link reached {key}: {frame}"));
        }
        let seq = match v["type"].as_str() {
            Some("update") | Some("ack") => v["seq"].as_u64(),
            Some("welcome") => v["change"]["seq"].as_u64(),
            _ => None,
        };
        if let Some(seq) = seq
            && seq > self.durable_seq
        {
            let durable = self.durable_seq;
            self.break_rule(
                "durable",
                format!("a frame at seq {seq} while the durable table is at {durable}: {frame}"),
            );
        }
        let acked = match (v["type"].as_str(), v["code"].as_str()) {
            (Some("ack"), _) | (Some("error"), Some("wrong_nonce")) => v["id"].as_str(),
            _ => None,
        };
        if let Some(id) = acked
            && !self.managed.contains(&(key.to_owned(), id.to_owned()))
        {
            let n = self.in_journal(key, id);
            if n != 1 {
                self.break_rule("durable", format!("{key}'s {id} acknowledged with {n} entries durable"));
            }
            self.acked.insert((key.to_owned(), id.to_owned()));
        }
    }

    /// How many durable entries answer `key`'s request `id`.
    fn in_journal(&self, key: &str, id: &str) -> usize {
        self.durable
            .iter()
            .filter_map(|e| serde_json::from_str::<Op>(e).ok())
            .filter(|op| asked(op).is_some_and(|(k, i)| k == key && i == id))
            .count()
    }

    /// Notes the durable table's private items (when the core stands where the store does).
    fn durable_now(&mut self) {
        self.durable_seq = self.core.game.seq();
        let game = &self.core.game;
        let spectator = game.updates_since(Viewer::Spectator, 0);
        for seat in 0..game.seats().len() as u16 {
            let mine = game.updates_since(Viewer::Seat(SeatId(seat)), 0);
            for (item, public) in mine.iter().zip(&spectator) {
                if item != public {
                    self.private.insert((seat, item.to_string()));
                }
            }
        }
    }

    fn line(&self, pick: u8) -> Option<u64> {
        let open: Vec<u64> = self.lines.iter().filter(|(_, l)| l.open).map(|(c, _)| *c).collect();
        (!open.is_empty()).then(|| open[usize::from(pick) % open.len()])
    }

    /// A request of kind `kind` from connection `conn`: valid ones (a choice of its prompt,
    /// sealed or plain, a reveal, a take-back) and invalid ones (a repeated or stale id, a
    /// force, an undo, a command nobody asked for, a second hello).
    fn request(&mut self, conn: u64, kind: u8, choice: u8) -> ClientMessage {
        let seat = match self.lines[&conn].who {
            Who::Seat { seat } => Some(seat),
            _ => None,
        };
        let prompt = seat.and_then(|s| self.core.game.prompt(SeatId(s)).ok().flatten());
        let pick = prompt.as_ref().and_then(|p| {
            let choices = p["choices"].as_array()?;
            (!choices.is_empty()).then(|| choices[usize::from(choice) % choices.len()]["command"].clone())
        });
        let line = self.lines.get_mut(&conn).expect("a line");
        let id = match kind {
            // The last id again (a retry), or one out of order.
            10 => line.last_id.clone().unwrap_or_else(|| "c1".into()),
            11 => "c0".into(),
            _ => {
                line.next += 1;
                format!("c{}", line.next)
            }
        };
        line.last_id = Some(id.clone());
        match kind {
            0..=3 | 10 | 11 => ClientMessage::Command {
                id,
                command: pick.unwrap_or_else(|| serde_json::json!({"junk": choice})),
            },
            4 | 5 => {
                let command = pick.unwrap_or(Value::Null);
                let nonce = Nonce::from_bytes(rand::random());
                let commitment = Commitment::to_command(&command, &nonce)
                    .map_or_else(|_| "00".repeat(32), |c| c.to_string());
                line.sealed.push((command, nonce));
                ClientMessage::Seal { id, commitment }
            }
            6 | 7 => match line.sealed.first().cloned() {
                Some((command, nonce)) => {
                    if kind == 6 {
                        line.sealed.remove(0);
                    }
                    ClientMessage::Reveal { id, command, nonce: nonce.to_string() }
                }
                None => ClientMessage::Reveal { id, command: Value::Null, nonce: "zz".into() },
            },
            // A take-back, or (one in four) a seat that lost its secret giving its choice up.
            8 => ClientMessage::TakeBack { id, lost: choice.is_multiple_of(4) },
            9 => ClientMessage::Force { id, seat: u16::from(choice % 4) },
            12 => ClientMessage::Undo { id },
            // A display name: a few shared ones (so that two seats may ask for the same), an
            // empty one (cleared), one too long, one with a control character.
            14 => {
                let name = match choice % 6 {
                    0 => String::new(),
                    1 => "x".repeat(40),
                    2 => "Kuro\u{7}".to_owned(),
                    n => format!("Player {}", n % 2),
                };
                ClientMessage::Name { id, name }
            }
            // A chat line (from any link: a spectator's is refused), now and then too long.
            15 => {
                let text = if choice.is_multiple_of(5) { "y".repeat(501) } else { format!("line {choice}") };
                ClientMessage::Chat { id, text }
            }
            // A mute or unmute (the GM link's alone), of a seat or of none that exists.
            16 => ClientMessage::Mute { id, seat: u16::from(choice % 4), muted: !choice.is_multiple_of(3) },
            _ => ClientMessage::Ping {},
        }
    }

    /// A single request, as the shell handles one: judged, then kept.
    fn single(&mut self, conn: u64, message: ClientMessage) {
        let Some(_) = self.core.precheck(conn, &message) else { return self.flush() };
        match self.core.judge(conn, message) {
            Judged::Op(op) => self.keep(op, Some(conn)),
            Judged::Done => self.flush(),
            Judged::Manage { id, action } => {
                let key = self.lines[&conn].key.clone();
                match self.core.begin_manage(conn, id.clone(), action) {
                    Some((writes, managing)) => {
                        self.flush();
                        self.in_flight = Some(InFlight::Manage(writes, Box::new(managing), (key, id)));
                    }
                    None => self.flush(),
                }
            }
            Judged::Rematch { id } => self.rematch(conn, id),
        }
    }

    /// The GM's rematch, as the shell makes it: the new table "created" (its links made up
    /// here: the hub's creation is not the core's), its links handed out by the core.
    fn rematch(&mut self, conn: u64, id: String) {
        let Some(rematching) = self.core.begin_rematch(conn, id.clone()) else { return self.flush() };
        self.flush();
        // The same setup, seats and options: bots stay bots, sealed seats stay sealed (a seat a
        // bot plays now plays plain, as every bot).
        let asked = &rematching.request;
        let names: Vec<String> = self.core.game.seats().iter().map(|(_, s)| s.name.clone()).collect();
        for (i, name) in names.iter().enumerate() {
            let now =
                self.core.access.get(&who_key(Who::Seat { seat: i as u16 })).map(|r| r.controller.clone());
            if asked.seats.get(name) != now.as_ref() {
                self.break_rule(
                    "rematch",
                    format!("seat {name}'s controller {:?} became {:?}", now, asked.seats.get(name)),
                );
            }
            let sealed = self.options.modes.get(name) == Some(&crate::protocol::SeatMode::Sealed)
                && !matches!(now, Some(Controller::Bot { .. }));
            if sealed != (asked.options.modes.get(name) == Some(&crate::protocol::SeatMode::Sealed)) {
                self.break_rule("rematch", format!("seat {name}'s mode changed in the rematch"));
            }
        }
        let (a, o) = (&asked.options, &self.options);
        if (a.decision_seconds, a.think_ms, a.opening_round)
            != (o.decision_seconds, o.think_ms, o.opening_round)
        {
            self.break_rule("rematch", "the rematch's options are not the table's".into());
        }
        if asked.setup != SetupSource::Json(self.setup.clone()) || asked.system != self.system {
            self.break_rule("rematch", "the rematch's setup is not the table's".into());
        }
        // Answered with no journal entry, as the GM's management.
        self.managed.insert((self.lines[&conn].key.clone(), id));
        self.rematches += 1;
        let n = self.rematches;
        let url = |who: &str| format!("http://test/t/{}#rematch-{n}-{who}", 100 + n);
        let created = CreatedTable {
            table: (100 + n).to_string(),
            seats: rematching.request.seats.keys().map(|name| (name.clone(), url(name))).collect(),
            gm: url("gm"),
            spectator: url("spectator"),
        };
        self.core.rematched(rematching, Ok(created));
        self.flush();
    }

    fn keep(&mut self, op: Op, from: Option<u64>) {
        match self.core.begin_keep(op, from, self.now) {
            Some((writes, keeping)) => {
                self.flush();
                self.in_flight = Some(InFlight::Keep(writes, Box::new(keeping)));
            }
            None => self.flush(),
        }
    }

    fn batch(&mut self, batch: Vec<(u64, ClientMessage, Instant)>) {
        let batch = self.core.begin_batch(batch);
        self.flush();
        if batch.kept.is_empty() {
            self.core.send_refusals(batch.refusals);
            self.flush();
            if !batch.rest.is_empty() {
                self.batch(batch.rest);
            }
        } else {
            self.in_flight = Some(InFlight::Batch(Box::new(batch)));
        }
    }

    fn write(&mut self, writes: &[Write]) {
        for w in writes {
            match w {
                Write::Journal { n, entry, .. } => {
                    if *n != self.durable.len() as u64 {
                        let len = self.durable.len();
                        self.break_rule("journal", format!("entry {n} written after {len}"));
                    }
                    self.durable.push(entry.clone());
                }
                Write::Finished { .. } => self.finished = true,
                Write::Access { access, .. } => {
                    self.access.retain(|a| a.who != access.who);
                    self.access.push(access.clone());
                    // A token opens its link while the stored hash is its own: a revoked or
                    // reissued link's old token opens nothing from now on.
                    if let Some(who) = who_of(&access.who) {
                        for t in self.tokens.iter_mut().filter(|t| t.0 == who) {
                            t.2 = t.2 && access.token_hash.as_deref() == Some(auth::hash(&t.1).as_str());
                        }
                    }
                }
            }
        }
    }

    /// The commit in flight ends with `result`.
    fn commit(&mut self, result: u8) {
        let Some(flight) = self.in_flight.take() else { return };
        let fatal = result == 7 || (result == 6 && matches!(flight, InFlight::Manage(..)));
        match result {
            // A failure (for the GM's management, any error): the shell closes every connection
            // and the table reloads from the store.
            _ if fatal => {
                self.core.close_all(&ServerMessage::Closing {});
                self.flush();
                self.core = self.load();
                self.core.tick(self.now);
                self.core.reschedule(None);
                self.again.clear();
            }
            // Another instance's race: the table as the store has it, then kept again.
            6 => {
                let fresh = self.load();
                self.core.reload_from(fresh);
                self.flush();
                match flight {
                    InFlight::Keep(_, keeping) => {
                        if self.core.answered_before(&keeping.op, keeping.from) {
                            self.flush();
                        } else {
                            self.keep(keeping.op, keeping.from);
                        }
                    }
                    InFlight::Batch(batch) => {
                        for k in batch.kept {
                            self.again.push_back((k.op, k.conn, k.received));
                        }
                        self.core.send_refusals(batch.refusals);
                        self.flush();
                    }
                    InFlight::Manage(..) => unreachable!("fatal above"),
                }
            }
            _ => match flight {
                InFlight::Keep(writes, keeping) => {
                    self.write(&writes);
                    self.core.kept(*keeping);
                    self.durable_now();
                    self.flush();
                }
                InFlight::Batch(mut batch) => {
                    let writes = std::mem::take(&mut batch.writes);
                    self.write(&writes);
                    let rest = self.core.batch_kept(*batch);
                    self.durable_now();
                    self.flush();
                    if !rest.is_empty() {
                        self.batch(rest);
                    }
                }
                InFlight::Manage(writes, managing, asked) => {
                    self.write(&writes);
                    self.managed.insert(asked);
                    self.core.managed(*managing);
                    self.durable_now();
                    self.flush();
                }
            },
        }
    }

    /// Requests kept again after a lost race, one at a time (each commit durable).
    fn settle(&mut self) {
        let mut rounds = 0;
        while self.in_flight.is_some() || !self.again.is_empty() {
            rounds += 1;
            if rounds > 64 {
                return self.break_rule("settle", "commits never end".into());
            }
            if self.in_flight.is_some() {
                self.commit(0);
            } else if let Some((op, conn, _)) = self.again.pop_front() {
                if !self.core.answered_before(&op, Some(conn)) {
                    self.keep(op, Some(conn));
                } else {
                    self.flush();
                }
            }
        }
    }

    fn step(&mut self, event: Event) {
        self.step_once(event);
        self.check_links();
    }

    /// No connection stays open on a link that opens nothing any more (revoked, reissued, the
    /// table closed): the core closed it when the change became durable.
    fn check_links(&mut self) {
        let stale: Vec<String> = self
            .lines
            .values()
            .filter(|l| l.open && !self.tokens.iter().any(|(_, t, valid)| *valid && *t == l.token))
            .map(|l| format!("{:?}'s connection stays open on a link that opens nothing", l.who))
            .collect();
        for s in stale {
            self.break_rule("revoked", s);
        }
    }

    fn step_once(&mut self, event: Event) {
        // The shell awaits a commit before it handles anything else.
        if self.in_flight.is_some() && !matches!(event, Event::Commit { .. }) {
            self.settle();
        }
        self.core.tick(self.now);
        match event {
            Event::Join { link, since } => {
                let (who, token, valid) = self.tokens[usize::from(link) % self.tokens.len()].clone();
                let since = u64::from(since % 4) * self.core.game.seq() / 3;
                if let Ok(mut joining) = self.core.join(&token, since) {
                    self.flush();
                    let conn = self.next_conn;
                    self.next_conn += 1;
                    let welcome = std::mem::take(&mut joining.welcome);
                    if !valid {
                        self.break_rule(
                            "revoked",
                            format!("{who:?}'s revoked or replaced token opened the table"),
                        );
                    }
                    let mut line = Line {
                        who,
                        key: who_key(who),
                        token: token.clone(),
                        frames: Vec::new(),
                        open: true,
                        jammed: false,
                        next: 0,
                        last_id: None,
                        sealed: Vec::new(),
                    };
                    // A link's ids go on from its last one (the welcome says which).
                    line.next = serde_json::from_str::<Value>(&welcome)
                        .ok()
                        .and_then(|v| v["last_id"].as_u64())
                        .unwrap_or(0);
                    self.lines.insert(conn, line);
                    self.check_frame(&who_key(who), &welcome);
                    self.lines.get_mut(&conn).expect("a line").frames.push(welcome);
                    self.core.admit(conn, joining);
                } else if valid {
                    self.break_rule("join", format!("{who:?}'s own token refused"));
                }
                self.flush();
            }
            Event::Leave { pick } => {
                if let Some(conn) = self.line(pick) {
                    self.lines.get_mut(&conn).expect("a line").open = false;
                    self.core.leave(conn);
                    self.flush();
                }
            }
            Event::Jam { pick } => {
                if let Some(conn) = self.line(pick) {
                    self.lines.get_mut(&conn).expect("a line").jammed = true;
                }
            }
            Event::Request { pick, kind, choice } => {
                if let Some(conn) = self.line(pick) {
                    let message = self.request(conn, kind, choice);
                    self.single(conn, message);
                }
            }
            Event::Together { a, b } => {
                let mut batch = Vec::new();
                for (pick, kind, choice) in [a, b] {
                    if let Some(conn) = self.line(pick) {
                        let message = self.request(conn, kind, choice);
                        if super::super::together(&message) {
                            batch.push((conn, message, self.now));
                        }
                    }
                }
                if batch.len() > 1 {
                    self.batch(batch);
                } else if let Some((conn, message, _)) = batch.pop() {
                    self.single(conn, message);
                }
            }
            Event::Commit { result } => self.commit(result),
            Event::Manage { kind, seat } => {
                let gm = self.lines.iter().find(|(_, l)| l.open && l.who == Who::Gm).map(|(c, _)| *c);
                let Some(conn) = gm else { return };
                let seat = u16::from(seat % 4);
                let action = match kind % 44 {
                    0..=9 => ManageAction::Bot {
                        seat,
                        kind: systems::bot_kinds(self.system).map_or("random", |k| k[0]).to_owned(),
                    },
                    10..=19 => ManageAction::Person { seat },
                    20..=29 => ManageAction::Revoke { seat: (seat < 3).then_some(seat) },
                    30..=39 => ManageAction::Reissue { seat: (seat < 3).then_some(seat) },
                    40 | 41 => ManageAction::ReissueGm {},
                    42 => ManageAction::Close {},
                    _ => ManageAction::Rematch {},
                };
                let line = self.lines.get_mut(&conn).expect("a line");
                line.next += 1;
                let id = format!("c{}", line.next);
                self.single(conn, ClientMessage::Manage { id, action });
            }
            Event::Wait { ms } => {
                self.now += Duration::from_millis(u64::from(ms) * 8);
                self.core.tick(self.now);
                for _ in 0..32 {
                    let due = self.core.next_deadline().is_some_and(|at| at <= self.now);
                    if !due {
                        break;
                    }
                    if let Some(op) = self.core.fire() {
                        self.keep(op, None);
                        self.settle();
                    }
                    self.core.tick(self.now);
                }
                if let Some(at) = self.core.next_deadline()
                    && at <= self.now
                {
                    self.break_rule("deadline", "a deadline left in the past once handled".into());
                }
            }
        }
    }

    /// The game played to its end: each awaited decision forced with the rules' default, as
    /// a decision timer forces it. False when it does not end (a closed table, a refusal).
    fn play_out(&mut self) -> bool {
        self.settle();
        for _ in 0..4000 {
            if self.core.game.is_over() {
                return !self.core.is_closed();
            }
            let Some(seat) = self.core.game.awaiting().first().map(|s| s.0) else { return false };
            let op = Op::Force { seat, by: None, id: None, who: None, nonce: self.core.nonce() };
            let seq = self.core.game.seq();
            self.keep(op, None);
            self.settle();
            if self.core.game.seq() == seq {
                return false;
            }
        }
        false
    }

    /// The GM asks for a rematch once the game is over: a connection of the GM link (one
    /// joined if none is open), then every open connection of a person's seat on its current
    /// link must have been sent that seat's new link.
    fn rematch_at_the_end(&mut self) {
        if !self.play_out() {
            return;
        }
        let gm = self.lines.iter().find(|(_, l)| l.open && l.who == Who::Gm).map(|(c, _)| *c);
        let gm = match gm {
            Some(conn) => conn,
            None => {
                let Some(link) = self.tokens.iter().position(|(w, _, valid)| *w == Who::Gm && *valid) else {
                    return;
                };
                self.step(Event::Join { link: link as u8, since: 0 });
                let Some(conn) = self.lines.iter().find(|(_, l)| l.open && l.who == Who::Gm).map(|(c, _)| *c)
                else {
                    return;
                };
                conn
            }
        };
        let before = self.rematches;
        let line = self.lines.get_mut(&gm).expect("a line");
        line.next += 1;
        let id = format!("c{}", line.next);
        self.single(gm, ClientMessage::Manage { id, action: ManageAction::Rematch {} });
        self.check_links();
        if self.rematches == before {
            return self.break_rule("rematch", "a finished table's GM link was refused a rematch".into());
        }
        let missed: Vec<String> = self
            .lines
            .values()
            .filter(|l| l.open && !l.jammed)
            .filter_map(|l| match l.who {
                Who::Seat { seat } => Some((seat, l)),
                _ => None,
            })
            .filter(|(seat, _)| {
                let key = who_key(Who::Seat { seat: *seat });
                self.core.access.get(&key).is_some_and(|r| r.controller == Controller::Person)
            })
            .filter(|(_, l)| !l.frames.last().is_some_and(|f| f.contains(r#""type":"rematch""#)))
            .map(|(seat, _)| format!("seat {seat}'s connection got no rematch link"))
            .collect();
        for m in missed {
            self.break_rule("rematch", m);
        }
    }

    /// The checks of a whole run, once every commit ended.
    fn finish(&mut self) {
        self.settle();
        // Every acknowledged request is in the journal exactly once.
        for (key, id) in self.acked.clone() {
            let n = self.in_journal(&key, &id);
            if n != 1 {
                self.break_rule("once", format!("{key}'s {id} acknowledged, {n} times in the journal"));
            }
        }
        // Replaying the durable journal rebuilds the same table.
        let fresh = self.load();
        let (a, b) = (&self.core.game, &fresh.game);
        let mut viewers = vec![Viewer::Spectator];
        viewers.extend((0..a.seats().len() as u16).map(|s| Viewer::Seat(SeatId(s))));
        let same = a.seq() == b.seq()
            && a.is_over() == b.is_over()
            && a.awaiting() == b.awaiting()
            && a.round() == b.round()
            && self.core.journal == fresh.journal
            && without(&self.core.answered, &self.managed) == without(&fresh.answered, &self.managed)
            && viewers.iter().all(|v| {
                a.updates_since(*v, 0) == b.updates_since(*v, 0) && a.view(*v).ok() == b.view(*v).ok()
            })
            && (0..a.seats().len() as u16).all(|s| a.prompt(SeatId(s)).ok() == b.prompt(SeatId(s)).ok())
            // Names, chat and mutes are kept with the table (outside the hash chain).
            && a.chat_lines() == b.chat_lines()
            && (0..a.seats().len() as u16).all(|s| {
                a.display_name(SeatId(s)) == b.display_name(SeatId(s)) && a.muted(SeatId(s)) == b.muted(SeatId(s))
            });
        if !same {
            self.break_rule(
                "replay",
                format!("the durable journal replays to another table ({} entries)", self.durable.len()),
            );
        }
        // A seat's hidden choice never reaches another seat.
        self.durable_now();
        let gm = self.core.gm_seat();
        let mut leaks = Vec::new();
        for line in self.lines.values() {
            let me = match line.who {
                Who::Seat { seat } => Some(seat),
                Who::Gm => gm,
                Who::Spectator => None,
            };
            let frames: Vec<String> = line.frames.iter().map(|f| canonical(f)).collect();
            for (seat, text) in &self.private {
                if Some(*seat) != me && frames.iter().any(|f| f.contains(text.as_str())) {
                    leaks.push(format!("seat {seat}'s {text} reached {:?}", line.who));
                }
            }
        }
        for leak in leaks {
            self.break_rule("hidden", leak);
        }
    }
}

/// Each link's remembered answers but those of the GM's management (kept as access rows,
/// not journal entries: a reload does not remember them).
fn without(
    answered: &HashMap<String, VecDeque<(String, String)>>,
    managed: &BTreeSet<(String, String)>,
) -> BTreeMap<String, Vec<(String, String)>> {
    answered
        .iter()
        .map(|(key, q)| {
            let kept =
                q.iter().filter(|(id, _)| !managed.contains(&(key.clone(), id.clone()))).cloned().collect();
            (key.clone(), kept)
        })
        .filter(|(_, q): &(String, Vec<_>)| !q.is_empty())
        .collect()
}

/// Runs `events` at a table set up as `t`; the violations found.
fn run(t: &Table, events: Vec<Event>) -> Vec<String> {
    let mut sim = Sim::new(t);
    for event in events {
        sim.step(event);
    }
    sim.finish();
    sim.broken
}

fn check(t: &Table, events: Vec<Event>, rule: &str) -> Result<(), TestCaseError> {
    let broken: Vec<String> = run(t, events).into_iter().filter(|b| b.starts_with(rule)).collect();
    prop_assert!(broken.is_empty(), "{}", broken.join("\n"));
    Ok(())
}

proptest! {
    #[test]
    fn nothing_is_sent_before_its_journal_entry_is_durable(
        t in table(), events in prop::collection::vec(event(), 1..80),
    ) {
        check(&t, events, "durable")?;
    }

    #[test]
    fn a_seats_hidden_choice_never_reaches_another_seat(
        t in table(), events in prop::collection::vec(event(), 1..80),
    ) {
        check(&t, events, "hidden")?;
    }

    #[test]
    fn every_acknowledged_request_is_in_the_journal_exactly_once(
        t in table(), events in prop::collection::vec(event(), 1..80),
    ) {
        check(&t, events, "once")?;
    }

    #[test]
    fn replaying_the_durable_journal_rebuilds_the_same_table(
        t in table(), events in prop::collection::vec(event(), 1..80),
    ) {
        check(&t, events, "replay")?;
    }

    #[test]
    fn no_deadline_is_left_in_the_past_once_handled(
        t in table(), events in prop::collection::vec(event(), 1..80),
    ) {
        check(&t, events, "deadline")?;
    }

    #[test]
    fn a_rematchs_links_reach_only_the_connections_holding_their_seats_link(
        t in table(), events in prop::collection::vec(event(), 1..80),
    ) {
        let mut sim = Sim::new(&t);
        for event in events {
            sim.step(event);
        }
        sim.rematch_at_the_end();
        sim.finish();
        let broken: Vec<String> = sim.broken.into_iter().filter(|b| b.starts_with("rematch")).collect();
        prop_assert!(broken.is_empty(), "{}", broken.join("\n"));
    }

    #[test]
    fn a_revoked_or_reissued_link_opens_nothing_and_keeps_no_connection(
        t in table(), events in prop::collection::vec(event(), 1..80),
    ) {
        check(&t, events, "revoked")?;
    }
}

/// The simulation sees what it checks: a frame past the durable table, and a private item in
/// another seat's frame, are reported.
#[test]
fn the_simulation_reports_a_frame_ahead_of_the_journal_and_a_leak() {
    let t = Table { game: 1, sealed: 0, bot: 9, decision_seconds: None, opening: false };
    let mut sim = Sim::new(&t);
    sim.check_frame("seat:0", r#"{"type":"update","seq":99}"#);
    assert!(sim.broken.iter().any(|b| b.starts_with("durable")), "{:?}", sim.broken);
    sim.broken.clear();
    sim.check_frame("seat:0", r#"{"type":"ack","id":"c5","seq":0}"#);
    assert!(sim.broken.iter().any(|b| b.starts_with("durable")), "{:?}", sim.broken);
    sim.broken.clear();
    let spectator = sim.tokens.iter().position(|(w, _, _)| *w == Who::Spectator).expect("a spectator") as u8;
    sim.step(Event::Join { link: spectator, since: 0 });
    let conn = *sim.lines.keys().next().expect("joined");
    sim.private.insert((0, r#"{"secret":1}"#.into()));
    sim.lines
        .get_mut(&conn)
        .expect("a line")
        .frames
        .push(r#"{"type":"update","updates":[{"secret":1}]}"#.into());
    sim.finish();
    assert!(sim.broken.iter().any(|b| b.starts_with("hidden")), "{:?}", sim.broken);
}

/// The simulation sees names and chat in what it checks: a journal whose chat line or display
/// name replays to another one is reported, and so is a rematch's seat link in a spectator's or
/// another seat's frame.
#[test]
fn the_simulation_reports_a_chat_line_or_name_replayed_otherwise_and_a_misdelivered_rematch_link() {
    let t = Table { game: 0, sealed: 0, bot: 9, decision_seconds: None, opening: false };
    for (lost, was, now) in [("chat", "hello", "hullo"), ("name", "Ada L.", "Ada M.")] {
        let mut sim = Sim::new(&t);
        let ada = sim.tokens.iter().position(|(w, _, _)| *w == Who::Seat { seat: 0 }).expect("seat 0") as u8;
        sim.step(Event::Join { link: ada, since: 0 });
        let conn = *sim.lines.keys().next().expect("joined");
        sim.single(conn, ClientMessage::Chat { id: "c1".into(), text: "hello".into() });
        sim.settle();
        sim.single(conn, ClientMessage::Name { id: "c2".into(), name: "Ada L.".into() });
        sim.settle();
        assert!(sim.broken.is_empty(), "{:?}", sim.broken);
        assert_eq!(sim.core.game.chat_lines().len(), 1);
        assert_eq!(sim.core.game.display_name(SeatId(0)), Some("Ada L."));
        // The entry altered as kept (its answer the same): only the line or name differs.
        let entry =
            sim.durable.iter_mut().find(|e| e.contains(&format!(r#""op":"{lost}""#))).expect("the entry");
        *entry = entry.replace(was, now);
        sim.finish();
        assert!(sim.broken.iter().any(|b| b.starts_with("replay")), "{lost}: {:?}", sim.broken);
    }
    let mut sim = Sim::new(&t);
    sim.check_frame("spectator", r#"{"type":"rematch","table":"2","seat":0,"url":"http://test/t/2#x"}"#);
    sim.check_frame("seat:1", r#"{"type":"rematch","table":"2","seat":0,"url":"http://test/t/2#x"}"#);
    sim.check_frame("seat:0", r#"{"type":"rematched","table":"2","gm":"g","spectator":"s"}"#);
    assert_eq!(sim.broken.iter().filter(|b| b.starts_with("rematch")).count(), 3, "{:?}", sim.broken);
}

/// The random runs reach what the properties look at: requests acknowledged, seats' private
/// items, entries kept, the GM's management (a property that never meets its subject proves
/// nothing).
#[test]
fn the_random_runs_reach_play_acknowledgements_and_private_items() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut acks, mut private, mut entries, mut managed, mut runs) = (0, 0, 0, 0, 0);
    let (mut names, mut lines, mut mutes, mut rematches) = (0, 0, 0, 0);
    for _ in 0..48 {
        let t = table().new_tree(&mut runner).expect("a table").current();
        let events = prop::collection::vec(event(), 60..80).new_tree(&mut runner).expect("events").current();
        let mut sim = Sim::new(&t);
        for event in events {
            sim.step(event);
        }
        sim.rematch_at_the_end();
        sim.finish();
        assert!(sim.broken.is_empty(), "{:?}", sim.broken);
        runs += 1;
        acks += sim.acked.len();
        private += sim.private.len();
        entries += sim.durable.len();
        managed += sim.managed.len();
        let seats = sim.core.game.seats().len() as u16;
        names += (0..seats).filter(|s| sim.core.game.display_name(SeatId(*s)).is_some()).count();
        mutes += (0..seats).filter(|s| sim.core.game.muted(SeatId(*s))).count();
        lines += sim.core.game.chat_lines().len();
        rematches += sim.rematches;
    }
    eprintln!("{names} display names, {lines} chat lines, {mutes} seats muted, {rematches} rematches");
    assert!(
        names > 0 && lines > 0 && mutes > 0 && rematches > 0,
        "names, chat, mutes and rematches are reached"
    );
    eprintln!(
        "{runs} runs: {acks} acknowledged, {private} private items, {entries} durable entries, {managed} managed"
    );
    assert!(
        acks >= runs && private > 0 && entries >= 2 * runs && managed > 0,
        "{acks} {private} {entries} {managed}"
    );
}
