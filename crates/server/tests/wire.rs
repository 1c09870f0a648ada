//! Tests on the wire: a real server on 127.0.0.1 (port 0), real WebSocket clients per seat and
//! a spectator, whole games of all three systems with people and bots mixed. Every frame each
//! client receives is recorded and checked against the game replayed from the server's own
//! journal: each client got exactly its redaction of every log item, in order, without gaps,
//! and no item private to one seat ever reached another seat or the spectator.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use server::client::Client;
use server::protocol::{
    ClientMessage, Controller, CreateTable, CreatedTable, ErrorCode, ManageAction, ServerMessage,
    SetupSource, TableOptions, VERSION, Who,
};
use server::{Config, Running};
use store::tables::{TableId, TableStore};
use table::{SeatId, Viewer};

const GAME_TIMEOUT: Duration = Duration::from_secs(60);
const MAX_COMMANDS: usize = 2_000;

fn config(db: &Path) -> Config {
    let mut c = Config::new(db.to_path_buf());
    c.listen = "127.0.0.1:0".parse().unwrap();
    c.limits.messages_per_second = 10_000;
    c.limits.burst = 10_000;
    c
}

async fn create(server: &Running, system: &str, example: &str, seats: &[(&str, &str)]) -> CreatedTable {
    let seats = seats
        .iter()
        .map(|(name, bot)| (name.to_string(), Controller::Bot { bot: bot.to_string() }))
        .collect();
    server
        .create_table(CreateTable { seats, ..CreateTable::example(system, example) })
        .await
        .unwrap_or_else(|e| panic!("{system} {example}: {}", e.message))
}

/// Everything one client received.
#[derive(Default)]
struct Seen {
    who: Option<Who>,
    /// Every update item by sequence number (each must come once, in order).
    items: BTreeMap<u64, Value>,
    frames: Vec<String>,
    over: bool,
}

impl Seen {
    fn take(&mut self, change: &server::protocol::Change) {
        for u in &change.updates {
            let seq = u["seq"].as_u64().expect("an update has its seq");
            let expected = self.items.keys().next_back().map_or(1, |s| s + 1);
            assert_eq!(seq, expected, "updates come in order without gaps or repeats");
            self.items.insert(seq, u.clone());
        }
        assert_eq!(change.seq, self.items.keys().next_back().copied().unwrap_or(0));
        self.over = change.over;
    }
}

/// Plays one link until the game is over: a seat answers each of its prompts with a random
/// choice; a spectator watches.
async fn play(link: String, seed: u64) -> Seen {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut client = Client::join(&link, 0).await.expect("connects");
    let mut seen = Seen::default();
    let mut sent = 0usize;
    let mut asked_at = None;
    let mut last = String::new();
    // One command in flight at a time: the next prompt is answered once it is acknowledged.
    let mut in_flight = false;
    // Whether several seats were asked at once when this seat last answered.
    let mut multi = false;
    let mut latest: Option<server::protocol::Change> = None;
    let result = tokio::time::timeout(GAME_TIMEOUT, async {
        loop {
            let (message, raw) = client.next_raw().await.expect("the server keeps the connection");
            // Searched for items' texts as a `Value` writes them (keys sorted): the server writes
            // its frames from the typed values, keys in declaration order.
            let canonical = serde_json::from_str::<Value>(&raw).map_or(raw, |v| v.to_string());
            seen.frames.push(canonical);
            match message {
                ServerMessage::Welcome { you, change, .. } => {
                    seen.who = Some(you);
                    seen.take(&change);
                    latest = Some(change);
                }
                ServerMessage::Update { change } => {
                    seen.take(&change);
                    latest = Some(change);
                }
                ServerMessage::Ack { .. } => in_flight = false,
                ServerMessage::Seats { .. } => {}
                ServerMessage::Error { code: ErrorCode::Refused, message, .. } if multi => {
                    // Another seat's command came first (two seats may both be asked, e.g. who
                    // takes the first turn): wait for the next change.
                    let _ = message;
                    in_flight = false;
                }
                ServerMessage::Error { message, .. } => panic!("refused: {message} (after {last})"),
                other => panic!("unexpected {other:?}"),
            }
            let Some(change) = &latest else { continue };
            if change.over {
                return;
            }
            if let (Some(prompt), Some(Who::Seat { seat }), false) = (&change.prompt, seen.who, in_flight)
                && change.awaiting.contains(&seat)
                && asked_at != Some(change.seq)
            {
                let choices = prompt["choices"].as_array().expect("a prompt has choices");
                let pick = &choices[rng.random_range(0..choices.len())];
                sent += 1;
                assert!(sent < MAX_COMMANDS, "the game ends within {MAX_COMMANDS} commands");
                asked_at = Some(change.seq);
                in_flight = true;
                multi = change.awaiting.len() > 1;
                last = format!("{} from {}", pick["command"], serde_json::to_string(change).unwrap());
                client
                    .send(&ClientMessage::Command {
                        id: format!("c{sent}"),
                        command: pick["command"].clone(),
                    })
                    .await
                    .unwrap();
            }
        }
    })
    .await;
    assert!(result.is_ok(), "the game ends within {GAME_TIMEOUT:?}");
    client.close().await;
    seen
}

/// The game replayed from the server's journal, as a session of the same system.
async fn replay(db: &Path, table: &str) -> Box<dyn server::systems::Hosted> {
    let store = store::SqliteTables::open(db).await.unwrap();
    let stored = store.load(TableId(table.parse().unwrap())).await.unwrap();
    let setup: Value = serde_json::from_str(&stored.table.setup).unwrap();
    let mut game = server::systems::open(&stored.table.ruleset, &setup).unwrap();
    for entry in &stored.journal {
        let op: Value = serde_json::from_str(entry).unwrap();
        let seat = |k: &str| SeatId(op[k].as_u64().unwrap() as u16);
        match op["op"].as_str().unwrap() {
            "submit" => game.submit(seat("seat"), &op["command"]).unwrap(),
            "take_back" => game.take_back(seat("seat")).unwrap(),
            "force" => game
                .force(seat("seat"), op.get("by").and_then(Value::as_u64).map(|b| SeatId(b as u16)))
                .unwrap(),
            "undo" => game.undo(seat("by")).unwrap(),
            "verifiable" => {
                game.use_verifiable(op["server_seed"].as_str().unwrap().parse().unwrap()).unwrap();
                if let Some(key) = op["rotation_key"].as_str() {
                    game.rotate_with(key.parse().unwrap()).unwrap();
                }
                if op["opening"] == true {
                    game.open_with_round().unwrap();
                }
            }
            other => panic!("journal entry {other}"),
        }
    }
    store.close().await;
    game
}

fn viewer(who: Who) -> Viewer {
    match who {
        Who::Seat { seat } => Viewer::Seat(SeatId(seat)),
        _ => Viewer::Spectator,
    }
}

/// Checks what every client saw against the replayed game.
fn check_redaction(game: &dyn server::systems::Hosted, seen: &[Seen]) {
    let seq = game.seq();
    let logs: Vec<(Who, Vec<Value>)> =
        seen.iter().map(|s| (s.who.unwrap(), game.updates_since(viewer(s.who.unwrap()), 0))).collect();
    let spectator = game.updates_since(Viewer::Spectator, 0);
    for (s, (who, log)) in seen.iter().zip(&logs) {
        assert_eq!(s.items.len() as u64, seq, "{who:?} saw every item of the log");
        for (i, item) in log.iter().enumerate() {
            assert_eq!(
                &s.items[&(i as u64 + 1)],
                item,
                "{who:?} got exactly its redaction of item {}",
                i + 1
            );
        }
    }
    // An item private to a seat (it differs from what the spectators are shown) reaches no
    // other seat's frames and no spectator's.
    let seats = game.seats().len() as u16;
    for x in 0..seats {
        let mine = game.updates_since(Viewer::Seat(SeatId(x)), 0);
        for (i, item) in mine.iter().enumerate() {
            if *item == spectator[i] {
                continue;
            }
            let hidden = serde_json::to_string(item).unwrap();
            for s in seen {
                if s.who == Some(Who::Seat { seat: x }) {
                    continue;
                }
                let theirs = serde_json::to_string(&s.items[&(i as u64 + 1)]).unwrap();
                assert_ne!(theirs, hidden, "seat {x}'s private item {} reached {:?}", i + 1, s.who);
                for frame in &s.frames {
                    assert!(
                        !frame.contains(&hidden),
                        "seat {x}'s private item {} is in a frame to {:?}",
                        i + 1,
                        s.who
                    );
                }
            }
        }
    }
}

/// One whole game of `system`'s `example`: the seats in `bots` are the server's bots, the
/// others people on their own WebSockets, and a spectator watches.
async fn whole_game(system: &str, example: &str, bots: &[(&str, &str)], seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let server = server::start(config(&db)).await.unwrap();
    let created = create(&server, system, example, bots).await;
    let mut tasks = Vec::new();
    for (i, (name, link)) in created.seats.iter().enumerate() {
        if bots.iter().any(|(b, _)| b == name) {
            continue;
        }
        tasks.push(tokio::spawn(play(link.clone(), seed + i as u64)));
    }
    tasks.push(tokio::spawn(play(created.spectator.clone(), 0)));
    let mut seen = Vec::new();
    for t in tasks {
        seen.push(t.await.unwrap());
    }
    assert!(seen.iter().all(|s| s.over));
    server.shutdown().await.unwrap();
    let game = replay(&db, &created.table).await;
    assert!(game.is_over(), "the journal replays to the end of the game");
    check_redaction(&*game, &seen);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn iron_triangle_on_the_wire_every_seat_sees_only_what_it_may() {
    whole_game("iron-triangle", "duel", &[], 1).await;
    whole_game("iron-triangle", "ambush-2v3", &[("gm", "random")], 2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodice_on_the_wire_every_seat_sees_only_what_it_may() {
    whole_game("nodice", "pc-vs-bandit", &[], 3).await;
    whole_game("nodice", "brawl-3", &[("gm", "random")], 4).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inciting_incident_on_the_wire_every_seat_sees_only_what_it_may() {
    whole_game("inciting-incident", "river-fight", &[], 5).await;
    whole_game("inciting-incident", "three-factions", &[("gm", "random")], 6).await;
}

async fn welcome(client: &mut Client) -> (Who, server::protocol::Change) {
    match client.next().await.unwrap() {
        ServerMessage::Welcome { you, change, .. } => (you, change),
        other => panic!("expected a welcome, got {other:?}"),
    }
}

/// The next message that is not a seats notice.
async fn next(client: &mut Client) -> ServerMessage {
    loop {
        match tokio::time::timeout(Duration::from_secs(10), client.next()).await.expect("an answer").unwrap()
        {
            ServerMessage::Seats { .. } => continue,
            m => return m,
        }
    }
}

/// Waits (at most 10 s) for the ack of request `id`, named `what` if it is refused instead.
async fn expect_ack(client: &mut Client, id: &str, what: &str) -> Result<(), tokio::time::error::Elapsed> {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match next(client).await {
                ServerMessage::Ack { id: got, .. } if got == id => return,
                ServerMessage::Error { message, .. } => panic!("{what} was refused: {message}"),
                _ => continue,
            }
        }
    })
    .await
}

async fn expect_error(client: &mut Client, code: ErrorCode) -> String {
    loop {
        match next(client).await {
            ServerMessage::Error { code: c, message, .. } => {
                assert_eq!(c, code, "{message}");
                return message;
            }
            ServerMessage::Update { .. } => continue,
            other => panic!("expected an error {code:?}, got {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_on_the_wire_gets_a_clear_error_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let server = server::start(config(&db)).await.unwrap();
    let created = create(&server, "iron-triangle", "duel", &[]).await;
    let url = server::client::ws_url(&server.base_url);

    // Before hello, and hellos that open nothing.
    let mut c = Client::connect(&url).await.unwrap();
    c.send(&ClientMessage::Command { id: "x".into(), command: json!("end_combo") }).await.unwrap();
    expect_error(&mut c, ErrorCode::BadMessage).await;
    c.send_text("{not json".into()).await.unwrap();
    assert!(expect_error(&mut c, ErrorCode::BadMessage).await.contains("not a protocol message"));
    c.send_text(json!({"type": "hello", "v": "one", "table": 1, "token": []}).to_string()).await.unwrap();
    expect_error(&mut c, ErrorCode::BadMessage).await;
    // A client of protocol version 1 (ids in no order) is told the version.
    c.send(&ClientMessage::Hello { v: 1, table: created.table.clone(), token: "0".repeat(32), since: 0 })
        .await
        .unwrap();
    assert!(expect_error(&mut c, ErrorCode::Version).await.contains(&format!("version {VERSION}")));
    let mut c = Client::connect(&url).await.unwrap();
    c.send(&ClientMessage::Hello {
        v: VERSION,
        table: created.table.clone(),
        token: "0".repeat(32),
        since: 0,
    })
    .await
    .unwrap();
    expect_error(&mut c, ErrorCode::Unauthorized).await;
    c.send(&ClientMessage::Hello { v: VERSION, table: "999".into(), token: "0".repeat(32), since: 0 })
        .await
        .unwrap();
    expect_error(&mut c, ErrorCode::Unauthorized).await;
    c.send_text("x".repeat(200 * 1024)).await.unwrap();
    expect_error(&mut c, ErrorCode::TooLarge).await;

    // A seat: commands out of turn, of the wrong shape, from another seat's token.
    let ada = created.seats["ada"].clone();
    let gm = created.seats["gm"].clone();
    let mut a = Client::join(&ada, 0).await.unwrap();
    let (_, before) = welcome(&mut a).await;
    let mut g0 = Client::join(&gm, 0).await.unwrap();
    welcome(&mut g0).await;
    a.send(&ClientMessage::Command { id: "1".into(), command: json!({"no_such_command": {}}) })
        .await
        .unwrap();
    assert!(expect_error(&mut a, ErrorCode::Refused).await.contains("iron-triangle"));
    a.send(&ClientMessage::Command { id: "2".into(), command: json!({"pass_turn": {"to": 0}}) })
        .await
        .unwrap();
    expect_error(&mut a, ErrorCode::Refused).await;
    a.send(&ClientMessage::Manage { id: "3".into(), action: ManageAction::Revoke { seat: Some(1) } })
        .await
        .unwrap();
    expect_error(&mut a, ErrorCode::Forbidden).await;
    a.send(&ClientMessage::Command { id: "y".repeat(65), command: json!("end_combo") }).await.unwrap();
    expect_error(&mut a, ErrorCode::BadMessage).await;
    a.send(&ClientMessage::Ping {}).await.unwrap();
    assert_eq!(next(&mut a).await, ServerMessage::Pong {});

    // Nothing changed: a fresh look shows the same log and view.
    let mut again = Client::join(&ada, 0).await.unwrap();
    let (_, after) = welcome(&mut again).await;
    assert_eq!(after.seq, before.seq);
    assert_eq!(after.view, before.view);
    assert_eq!(after.prompt, before.prompt);
    // The first connection was taken over by the second.
    loop {
        match a.next().await {
            Ok(ServerMessage::TakenOver {}) => break,
            Ok(_) => continue,
            Err(e) => panic!("expected a takeover notice, got {e}"),
        }
    }

    // A replayed client id is applied once and answered as the first time.
    let mut g = Client::join(&gm, 0).await.unwrap();
    let (_, gm_now) = welcome(&mut g).await;
    let mut player = again;
    let (mover, prompt) = match (after.prompt.clone(), gm_now.prompt) {
        (Some(p), _) => (&mut player, p),
        (None, Some(p)) => (&mut g, p),
        (None, None) => panic!("someone is asked first"),
    };
    let command = prompt["choices"][0]["command"].clone();
    mover.send(&ClientMessage::Command { id: "c9".into(), command: command.clone() }).await.unwrap();
    let first = loop {
        if let ServerMessage::Ack { id, seq } = next(mover).await {
            assert_eq!(id, "c9");
            break seq;
        }
    };
    mover.send(&ClientMessage::Command { id: "c9".into(), command }).await.unwrap();
    match next(mover).await {
        ServerMessage::Ack { id, seq } => assert_eq!((id.as_str(), seq), ("c9", first)),
        other => panic!("a retry is answered with its first ack, got {other:?}"),
    }
    server.shutdown().await.unwrap();
}

async fn http_get(url: &str, token: Option<&str>) -> (u16, String) {
    let url = url.to_owned();
    let token = token.map(str::to_owned);
    tokio::task::spawn_blocking(move || {
        let agent = ureq::Agent::config_builder().http_status_as_error(false).build().new_agent();
        let mut request = agent.get(&url);
        if let Some(t) = token {
            request = request.header("Authorization", &format!("Bearer {t}"));
        }
        let mut response = request.call().unwrap();
        let status = response.status().as_u16();
        let headers = format!("{:?}", response.headers());
        let body = response.body_mut().read_to_string().unwrap();
        (status, format!("{headers}\n{body}"))
    })
    .await
    .unwrap()
}

async fn http_post_with(url: &str, body: Value, headers: &[(&str, &str)]) -> (u16, Value) {
    let url = url.to_owned();
    let headers: Vec<(String, String)> =
        headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    tokio::task::spawn_blocking(move || {
        let agent = ureq::Agent::config_builder().http_status_as_error(false).build().new_agent();
        let mut request = agent.post(&url);
        for (k, v) in &headers {
            request = request.header(k, v);
        }
        let mut response = request.send_json(&body).unwrap();
        let status = response.status().as_u16();
        let body: Value = response.body_mut().read_json().unwrap();
        (status, body)
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_api_creates_tables_serves_logs_health_and_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(&dir.path().join("s.db"));
    c.admin_secret = Some("correct horse".into());
    let server = server::start(c).await.unwrap();
    let base = server.base_url.clone();
    // Relayed by a proxy, a request is not the host's own: it needs the admin secret.
    let body = json!({"system": "nodice", "setup": {"example": "pc-vs-bandit"}});
    let relayed = [("X-Forwarded-For", "192.0.2.7")];
    let (status, refused) = http_post_with(&format!("{base}/api/tables"), body.clone(), &relayed).await;
    assert_eq!(status, 401, "{refused}");
    assert!(refused["message"].as_str().unwrap().contains("admin secret"), "{refused}");
    let wrong = [("X-Forwarded-For", "192.0.2.7"), ("Authorization", "Bearer wrong horse")];
    assert_eq!(http_post_with(&format!("{base}/api/tables"), body.clone(), &wrong).await.0, 401);
    let right = [("X-Forwarded-For", "192.0.2.7"), ("Authorization", "Bearer correct horse")];
    assert_eq!(http_post_with(&format!("{base}/api/tables"), body, &right).await.0, 201);
    // With an admin secret, the host's own requests need it too (a tunnel relays from loopback).
    let admin = [("Authorization", "Bearer correct horse")];
    let (status, created) = http_post_with(
        &format!("{base}/api/tables"),
        json!({"system": "nodice", "setup": {"example": "pc-vs-bandit"}, "seats": {}, "options": {"think_ms": 0}}),
        &admin,
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let created: CreatedTable = serde_json::from_value(created).unwrap();
    assert!(created.gm.contains('#'), "the token is in the fragment");

    // An upload that names a host file is refused, naming the field.
    let (status, refused) = http_post_with(
        &format!("{base}/api/tables"),
        json!({"system": "iron-triangle", "setup": {"toml": "[[seats]]\nname = \"a\"\nrole = \"player\"\n[[seats]]\nname = \"b\"\nrole = \"gm\"\n[[characters]]\nseat = \"a\"\nsheet = \"/etc/passwd\"\n[[characters]]\nseat = \"b\"\nsheet = \"/etc/passwd\"\n"}}),
        &admin,
    )
    .await;
    assert_eq!(status, 422, "{refused}");
    assert!(refused["message"].as_str().unwrap().contains("sheet"), "{refused}");
    let (status, refused) =
        http_post_with(&format!("{base}/api/tables"), json!({"system": "chess"}), &admin).await;
    assert_eq!(status, 400, "{refused}");

    let (_, _, token) = server::protocol::parse_link(&created.spectator).unwrap();
    let (status, body) = http_get(&format!("{base}/api/tables/{}/log", created.table), Some(&token)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"ruleset\":\"nodice\""), "{body}");
    assert!(body.contains("no-store") && body.contains("nosniff"), "security headers: {body}");
    let (status, _) = http_get(&format!("{base}/api/tables/{}/log", created.table), Some("0000")).await;
    assert_eq!(status, 401);
    let (status, body) = http_get(&format!("{base}/healthz"), None).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = http_get(&format!("{base}/metrics"), Some("correct horse")).await;
    assert_eq!(status, 200);
    for name in [
        "facedown_tables_open",
        "facedown_connections",
        "facedown_commands_total",
        "facedown_reveal_latency_seconds",
    ] {
        assert!(body.contains(name), "{name} in {body}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gm_reissues_revokes_and_hands_seats_to_bots_and_a_timer_forces_a_decision() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(config(&dir.path().join("s.db"))).await.unwrap();
    let created = server
        .create_table(CreateTable {
            system: "iron-triangle".into(),
            setup: SetupSource::Example("duel".into()),
            seats: BTreeMap::new(),
            options: TableOptions { decision_seconds: Some(1), think_ms: 0, ..TableOptions::default() },
            rules: Default::default(),
        })
        .await
        .unwrap();
    let mut gm = Client::join(&created.gm, 0).await.unwrap();
    let (you, first) = welcome(&mut gm).await;
    assert_eq!(you, Who::Gm);
    // Every client is told the timers as they run: each awaited seat's, at most a second.
    let timed: Vec<u16> = first.timers.iter().map(|t| t.seat).collect();
    assert_eq!(timed, first.awaiting, "a timer runs for each awaited seat");
    assert!(first.timers.iter().all(|t| t.ms <= 1_000), "{:?}", first.timers);
    // Nobody plays: the timer forces the first decision, logged for everyone, and the next
    // decision's timer starts.
    let forced = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let ServerMessage::Update { change } = gm.next().await.unwrap()
                && change.updates.iter().any(|u| u["kind"] == "forced")
            {
                if !change.over {
                    assert!(!change.timers.is_empty(), "the next decision's timer runs");
                    assert!(change.timers.iter().all(|t| change.awaiting.contains(&t.seat)), "{change:?}");
                }
                return;
            }
        }
    })
    .await;
    assert!(forced.is_ok(), "the decision timer forced a decision");

    let mut ada = Client::join(&created.seats["ada"], 0).await.unwrap();
    welcome(&mut ada).await;
    gm.send(&ClientMessage::Manage { id: "g1".into(), action: ManageAction::Reissue { seat: Some(0) } })
        .await
        .unwrap();
    let new_link = loop {
        if let ServerMessage::Link { seat, url, .. } = next(&mut gm).await {
            assert_eq!(seat, Some(0));
            break url;
        }
    };
    loop {
        match ada.next().await {
            Ok(ServerMessage::Revoked {}) => break,
            Ok(_) => continue,
            Err(e) => panic!("the old link's connection is told: {e}"),
        }
    }
    let mut old = Client::join(&created.seats["ada"], 0).await.unwrap();
    expect_error(&mut old, ErrorCode::Unauthorized).await;
    let mut ada = Client::join(&new_link, 0).await.unwrap();
    welcome(&mut ada).await;

    // A seat to a bot and back to its person: every client is shown who controls it.
    let controller_of = |seats: &[server::protocol::SeatInfo], seat: usize| seats[seat].controller.clone();
    gm.send(&ClientMessage::Manage {
        id: "g2".into(),
        action: ManageAction::Bot { seat: 1, kind: "greedy".into() },
    })
    .await
    .unwrap();
    loop {
        if let ServerMessage::Seats { seats } = gm.next().await.unwrap()
            && controller_of(&seats, 1) == (Controller::Bot { bot: "greedy".into() })
        {
            break;
        }
    }
    gm.send(&ClientMessage::Manage { id: "g3".into(), action: ManageAction::Person { seat: 1 } })
        .await
        .unwrap();
    loop {
        if let ServerMessage::Seats { seats } = gm.next().await.unwrap()
            && controller_of(&seats, 1) == Controller::Person
        {
            break;
        }
    }

    // Both seats to bots: the game plays itself to the end.
    for seat in [0, 1] {
        gm.send(&ClientMessage::Manage {
            id: format!("g{}", 4 + seat),
            action: ManageAction::Bot { seat, kind: "random".into() },
        })
        .await
        .unwrap();
    }
    let over = tokio::time::timeout(GAME_TIMEOUT, async {
        loop {
            if let ServerMessage::Update { change } = gm.next().await.unwrap()
                && change.over
            {
                return;
            }
        }
    })
    .await;
    assert!(over.is_ok(), "the bots finished the game");
    gm.send(&ClientMessage::Manage {
        id: "g6".into(),
        action: ManageAction::Bot { seat: 0, kind: "psychic".into() },
    })
    .await
    .unwrap();
    assert!(expect_error(&mut gm, ErrorCode::Refused).await.contains("random"));
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_reconnecting_after_a_restart_gets_exactly_what_it_missed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let server = server::start(config(&db)).await.unwrap();
    let created = create(&server, "iron-triangle", "duel", &[("gm", "random")]).await;
    let mut link = created.seats["ada"].clone();
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut seen = Seen::default();
    let mut client = Client::join(&link, 0).await.unwrap();
    let mut server = Some(server);
    let mut sent = 0;
    let mut restarts = 0;
    let done = tokio::time::timeout(GAME_TIMEOUT, async {
        loop {
            let change = match client.next().await {
                Ok(ServerMessage::Welcome { change, you, .. }) => {
                    seen.who = Some(you);
                    change
                }
                Ok(ServerMessage::Update { change }) => change,
                Ok(ServerMessage::Closing {}) | Err(_) => {
                    // Restarted: come back with the last number seen.
                    let last = seen.items.keys().next_back().copied().unwrap_or(0);
                    client = Client::join(&link, last).await.unwrap();
                    continue;
                }
                Ok(_) => continue,
            };
            seen.take(&change);
            if change.over {
                return;
            }
            if restarts < 3 && sent > restarts {
                // Restart the server in the middle of the game (the port changes: rejoin the
                // link re-based on the new address).
                restarts += 1;
                server.take().unwrap().shutdown().await.unwrap();
                let mut c = config(&db);
                c.public_url = None;
                let s = server::start(c).await.unwrap();
                let (_, table, token) = server::protocol::parse_link(&link).unwrap();
                link = server::protocol::link(&s.base_url, &table, &token);
                server = Some(s);
                let last = seen.items.keys().next_back().copied().unwrap_or(0);
                client = Client::join(&link, last).await.unwrap();
                continue;
            }
            if let Some(prompt) = &change.prompt {
                let choices = prompt["choices"].as_array().unwrap();
                let pick = &choices[rng.random_range(0..choices.len())];
                sent += 1;
                client
                    .send(&ClientMessage::Command {
                        id: format!("c{sent}"),
                        command: pick["command"].clone(),
                    })
                    .await
                    .unwrap();
            }
        }
    })
    .await;
    assert!(done.is_ok(), "the game ended across restarts");
    assert_eq!(restarts, 3);
    server.unwrap().shutdown().await.unwrap();
    let game = replay(&db, &created.table).await;
    let log = game.updates_since(Viewer::Seat(SeatId(0)), 0);
    assert_eq!(seen.items.values().cloned().collect::<Vec<_>>(), log, "nothing missed, nothing twice");
}

/// The GM screen (protocol.md, "Links"): the GM link sees what the rules' GM seat may see —
/// the NPC's face-down stance before the reveal, which the spectators see blanked — and gives
/// the GM's rulings on that seat's behalf, nothing else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gm_link_sees_what_the_gm_seat_may_and_gives_only_the_gms_rulings() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let server = server::start(config(&db)).await.unwrap();
    let created = create(&server, "iron-triangle", "duel", &[("gm", "greedy")]).await;
    let mut gm = Client::join(&created.gm, 0).await.unwrap();
    let mut watcher = Client::join(&created.spectator, 0).await.unwrap();
    let mut ada = Client::join(&created.seats["ada"], 0).await.unwrap();
    let (you, first) = welcome(&mut gm).await;
    assert_eq!(you, Who::Gm);
    welcome(&mut watcher).await;
    let (_, ada_now) = welcome(&mut ada).await;
    assert!(ada_now.prompt.is_some(), "Ada is asked for her stance");

    // The bot (the GM seat, seat 1) commits its stance face down as soon as it is asked.
    let mut change = first;
    let mut seen = change.updates.clone();
    let waited = tokio::time::timeout(Duration::from_secs(10), async {
        while change.awaiting != [0] {
            if let ServerMessage::Update { change: c } = next(&mut gm).await {
                seen.extend(c.updates.iter().cloned());
                change = c;
            }
        }
        (change, seen)
    })
    .await;
    let (change, seen) = waited.expect("the bot committed its stance");
    assert!(change.prompt.is_none(), "the GM link is asked nothing");
    assert_eq!(change.view["viewer"], json!({"kind": "seat", "seat": 1}), "{}", change.view);
    let game = replay(&db, &created.table).await;
    let as_gm_seat = game.updates_since(Viewer::Seat(SeatId(1)), 0);
    let public = game.updates_since(Viewer::Spectator, 0);
    assert_eq!(seen, as_gm_seat, "the GM link gets the GM seat's redaction of every item");
    assert!(
        seen.iter().zip(&public).any(|(g, p)| g != p),
        "the GM link sees the NPC's face-down stance, which the spectators do not: {seen:?}"
    );
    // Ada's own face-down choice stays hidden from the GM link: she commits, the GM link's
    // next item is the public one.
    let stance = ada_now.prompt.unwrap()["choices"][0]["command"].clone();
    ada.send(&ClientMessage::Command { id: "s1".into(), command: stance }).await.unwrap();

    // A ruling: the GM corrects Ada's energy from the GM screen, logged for everyone.
    let ruling = json!({"adjust_energy": {"fighter": 0, "energy": {"defend": 1, "grapple": 1, "attack": 1}, "reason": "a fall"}});
    gm.send(&ClientMessage::Command { id: "r1".into(), command: ruling }).await.unwrap();
    let acked = expect_ack(&mut gm, "r1", "the ruling").await;
    assert!(acked.is_ok(), "the GM link's ruling is applied");
    // Sent again with its id (a retry after a lost answer): answered as the first time, applied
    // once — the GM link's ids are its own, not the GM seat's.
    let again = json!({"adjust_energy": {"fighter": 0, "energy": {"defend": 1, "grapple": 1, "attack": 1}, "reason": "a fall"}});
    gm.send(&ClientMessage::Command { id: "r1".into(), command: again }).await.unwrap();
    let retried = expect_ack(&mut gm, "r1", "the retry").await;
    assert!(retried.is_ok(), "the retry is answered");
    let game = replay(&db, &created.table).await;
    let narrated = serde_json::to_string(&game.updates_since(Viewer::Spectator, 0)).unwrap();
    assert!(narrated.contains("a fall"), "the ruling is public: {narrated}");
    assert_eq!(narrated.matches("\"energy_adjusted\"").count(), 1, "the ruling was applied once: {narrated}");
    let gm_log = game.updates_since(Viewer::Seat(SeatId(1)), 0);
    let ada_log = game.updates_since(Viewer::Seat(SeatId(0)), 0);
    let public = game.updates_since(Viewer::Spectator, 0);
    for (i, mine) in ada_log.iter().enumerate() {
        if *mine != public[i] {
            assert_ne!(gm_log[i], *mine, "Ada's face-down item {} is hidden from the GM link", i + 1);
        }
    }

    // Not a ruling: a decision of play stays with the GM seat's link or its bot.
    let decision = json!({"commit_stance": {"stance": {"type": "defend", "amount": 0}}});
    gm.send(&ClientMessage::Command { id: "r2".into(), command: decision }).await.unwrap();
    let m = expect_error(&mut gm, ErrorCode::Forbidden).await;
    assert!(m.contains("rulings"), "{m}");
    // Not a command of these rules at all: named as such.
    gm.send(&ClientMessage::Command { id: "r3".into(), command: json!({"adjust": {}}) }).await.unwrap();
    let m = expect_error(&mut gm, ErrorCode::Refused).await;
    assert!(m.contains("iron-triangle"), "{m}");
    // The spectators only watch.
    let ruling = json!({"adjust_energy": {"fighter": 0, "energy": {"defend": 2, "grapple": 2, "attack": 2}, "reason": "x"}});
    watcher.send(&ClientMessage::Command { id: "w1".into(), command: ruling }).await.unwrap();
    expect_error(&mut watcher, ErrorCode::Forbidden).await;
}

/// The answer to the request `id`: its ack's sequence number, or its error's code and message.
async fn answer(client: &mut Client, id: &str) -> Result<u64, (ErrorCode, String)> {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match next(client).await {
                ServerMessage::Ack { id: got, seq } if got == id => return Ok(seq),
                ServerMessage::Error { id: Some(got), code, message } if got == id => {
                    return Err((code, message));
                }
                _ => continue,
            }
        }
    })
    .await
    .expect("an answer")
}

/// docs/protocol.md, Requests and client ids: a link's ids end in a counter that grows. The
/// server answers the link's last 64 requests applied again as the first time; an older id is
/// refused with `id_expired` and changes nothing (it was applied twice: the first of 80
/// commands sent again was applied again); an id out of order or without a counter is refused
/// with a clear error; a welcome tells a new connection of the link where its ids stand.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_id_older_than_the_last_64_is_refused_as_expired_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let server = server::start(config(&db)).await.unwrap();
    let created = create(&server, "iron-triangle", "duel", &[]).await;
    let mut gm = Client::join(&created.gm, 0).await.unwrap();
    welcome(&mut gm).await;
    let ruling = |n: u32| json!({"adjust_energy": {"fighter": 0, "energy": {"defend": n % 4, "grapple": 2, "attack": 3}, "reason": "a fall"}});
    let mut acks = vec![0];
    for n in 1..=80 {
        let id = format!("g{n}");
        gm.send(&ClientMessage::Command { id: id.clone(), command: ruling(n) }).await.unwrap();
        acks.push(answer(&mut gm, &id).await.unwrap_or_else(|e| panic!("{id}: {e:?}")));
    }
    // The first command again, after 80: refused, not applied again.
    gm.send(&ClientMessage::Command { id: "g1".into(), command: ruling(1) }).await.unwrap();
    let (code, message) = answer(&mut gm, "g1").await.unwrap_err();
    assert_eq!(code, ErrorCode::IdExpired, "{message}");
    assert!(message.contains("older than the last 64"), "{message}");
    // Ids 17 to 80, the last 64, are answered as the first time.
    for n in [17, 40, 80] {
        let id = format!("g{n}");
        gm.send(&ClientMessage::Command { id: id.clone(), command: ruling(n) }).await.unwrap();
        assert_eq!(answer(&mut gm, &id).await, Ok(acks[n as usize]), "{id} answered as before");
    }
    // 16, just before them, is forgotten: expired too.
    gm.send(&ClientMessage::Command { id: "g16".into(), command: ruling(16) }).await.unwrap();
    assert_eq!(answer(&mut gm, "g16").await.unwrap_err().0, ErrorCode::IdExpired);
    // An id with no counter, or a counter of 0.
    for id in ["x", "g0", "g07"] {
        gm.send(&ClientMessage::Command { id: id.into(), command: ruling(1) }).await.unwrap();
        let (code, message) = answer(&mut gm, id).await.unwrap_err();
        assert_eq!(code, ErrorCode::BadMessage, "{message}");
        assert!(message.contains("ends in its counter"), "{message}");
    }
    // A request refused is not remembered; once a later one is applied, it is out of order.
    gm.send(&ClientMessage::Command { id: "g81".into(), command: json!({"adjust": {}}) }).await.unwrap();
    assert_eq!(answer(&mut gm, "g81").await.unwrap_err().0, ErrorCode::Refused);
    gm.send(&ClientMessage::Command { id: "g82".into(), command: ruling(82) }).await.unwrap();
    let last = answer(&mut gm, "g82").await.unwrap();
    assert_eq!(last - acks[80], acks[80] - acks[79], "nothing was applied between g80 and g82");
    gm.send(&ClientMessage::Command { id: "g81".into(), command: ruling(81) }).await.unwrap();
    let (code, message) = answer(&mut gm, "g81").await.unwrap_err();
    assert_eq!(code, ErrorCode::BadMessage, "{message}");
    assert!(message.contains("out of order"), "{message}");
    // A new connection of the link is told the last id applied, so its next id is above it.
    let mut again = Client::join(&created.gm, 0).await.unwrap();
    match next(&mut again).await {
        ServerMessage::Welcome { last_id, change, .. } => {
            assert_eq!(last_id, 82);
            assert_eq!(change.seq, last, "nothing changed after g82");
        }
        other => panic!("expected a welcome, got {other:?}"),
    }
    server.shutdown().await.unwrap();
    // And the journal holds each ruling once: 80, then g82.
    let game = replay(&db, &created.table).await;
    let narrated = serde_json::to_string(&game.updates_since(Viewer::Spectator, 0)).unwrap();
    assert_eq!(narrated.matches("\"energy_adjusted\"").count(), 81);
}
