//! Sealed seats on the wire (commit–reveal): whole games of all three systems with sealed
//! seats, plain seats and bots; the database and the session between commit and reveal hold
//! only hashes; a wrong nonce is a public fault with the forced decision; a commitment is
//! replaced before the binding without a fault; a restart between commit and reveal continues.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use server::client::Client;
use server::protocol::{
    ClientMessage, CreateTable, CreatedTable, ErrorCode, SeatMode, ServerMessage, SetupSource, TableOptions,
    Who, link, parse_link,
};
use server::systems::Hosted;
use server::{Config, Running};
use session::sealed::Nonce;
use store::tables::{TableId, TableStore};
use table::fairness::canonical_json;
use table::{SeatId, Viewer};

mod sealedplay;
use sealedplay::{Seen, commit, create, create_with, play};

fn config(db: &Path) -> Config {
    let mut c = Config::new(db.to_path_buf());
    c.listen = "127.0.0.1:0".parse().unwrap();
    c.limits.messages_per_second = 10_000;
    c.limits.burst = 10_000;
    c
}

/// The game replayed from the server's journal.
async fn replay(db: &Path, table: &str) -> (Box<dyn Hosted>, Vec<Value>) {
    let store = store::SqliteTables::open(db).await.unwrap();
    let stored = store.load(TableId(table.parse().unwrap())).await.unwrap();
    store.close().await;
    let setup: Value = serde_json::from_str(&stored.table.setup).unwrap();
    let options: TableOptions = serde_json::from_str(&stored.table.options).unwrap();
    let mut game = server::systems::open(&stored.table.ruleset, &setup).unwrap();
    let names: Vec<String> = game.seats().iter().map(|(_, s)| s.name.clone()).collect();
    for (name, mode) in options.modes {
        let i = names.iter().position(|n| *n == name).unwrap();
        game.set_mode(SeatId(i as u16), mode.into()).unwrap();
    }
    let ops: Vec<Value> = stored.journal.iter().map(|e| serde_json::from_str(e).unwrap()).collect();
    for op in &ops {
        let seat = |k: &str| SeatId(op[k].as_u64().unwrap() as u16);
        let nonce = op.get("nonce").and_then(Value::as_str).map(|n| n.parse::<Nonce>().unwrap());
        let by = op.get("by").and_then(Value::as_u64).map(|b| SeatId(b as u16));
        match (op["op"].as_str().unwrap(), nonce) {
            ("submit", Some(n)) => game.submit_bound(seat("seat"), &op["command"], &n).unwrap(),
            ("submit", None) => game.submit(seat("seat"), &op["command"]).unwrap(),
            ("force", Some(n)) => game.force_bound(seat("seat"), by, &n).unwrap(),
            ("force", None) => game.force(seat("seat"), by).unwrap(),
            ("take_back", _) if op["lost"] == true => game.give_up(seat("seat")).unwrap(),
            ("take_back", _) => game.take_back(seat("seat")).unwrap(),
            ("seal", _) => game.seal(seat("seat"), op["commitment"].as_str().unwrap()).unwrap(),
            ("reveal", _) => {
                game.reveal(seat("seat"), &op["command"], op["nonce"].as_str().unwrap()).unwrap();
            }
            ("verifiable", _) => {
                game.use_verifiable(op["server_seed"].as_str().unwrap().parse().unwrap()).unwrap();
                if let Some(key) = op["rotation_key"].as_str() {
                    game.rotate_with(key.parse().unwrap()).unwrap();
                }
                if op["opening"] == true {
                    game.open_with_round().unwrap();
                }
            }
            ("client_seed", _) => game.add_client_seed(seat("seat"), op["seed"].as_str().unwrap()).unwrap(),
            (other, _) => panic!("journal entry {other}"),
        }
    }
    (game, ops)
}

fn viewer(who: Who) -> Viewer {
    match who {
        Who::Seat { seat } => Viewer::Seat(SeatId(seat)),
        _ => Viewer::Spectator,
    }
}

/// Every client got exactly its redaction of every item of the replayed game; an item private
/// to a seat reached no other client; every opened command matches a bound commitment and no
/// fault happened.
fn check(game: &dyn Hosted, seen: &[Seen]) {
    let spectator = game.updates_since(Viewer::Spectator, 0);
    for s in seen {
        let log = game.updates_since(viewer(s.who.unwrap()), 0);
        assert_eq!(s.items.len(), log.len(), "{:?} saw every item", s.who);
        for (i, item) in log.iter().enumerate() {
            assert_eq!(&s.items[&(i as u64 + 1)], item, "{:?} got its redaction of item {}", s.who, i + 1);
        }
    }
    for x in 0..game.seats().len() as u16 {
        for (i, item) in game.updates_since(Viewer::Seat(SeatId(x)), 0).iter().enumerate() {
            if *item == spectator[i] {
                continue;
            }
            for s in seen.iter().filter(|s| s.who != Some(Who::Seat { seat: x })) {
                assert_ne!(
                    &s.items[&(i as u64 + 1)],
                    item,
                    "seat {x}'s private item {} reached {:?}",
                    i + 1,
                    s.who
                );
            }
        }
    }
    let mut bound: Vec<(u64, String)> = Vec::new();
    let mut opened = 0;
    for item in &spectator {
        match item["kind"].as_str().unwrap() {
            "bound" => {
                for c in item["commitments"].as_array().unwrap() {
                    bound.push((c["seat"].as_u64().unwrap(), c["commitment"].as_str().unwrap().to_owned()));
                }
            }
            "opened" => {
                let nonce = item["nonce"].as_str().unwrap().parse::<Nonce>().unwrap();
                let c = (item["seat"].as_u64().unwrap(), commit(&item["command"], &nonce).to_string());
                let at =
                    bound.iter().position(|b| *b == c).expect("an opened command matches its commitment");
                bound.remove(at);
                opened += 1;
            }
            "fault" => panic!("a fault: {item}"),
            _ => {}
        }
    }
    assert!(opened > 0, "some round was sealed");
}

/// A whole game with `sealed` seats sealed and `bots` bots; people on the other seats and a
/// spectator.
async fn whole_game(system: &str, example: &str, bots: &[(&str, &str)], sealed: &[&str], seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let server = server::start(config(&db)).await.unwrap();
    let created = create(&server, system, example, bots, sealed).await;
    let mut tasks = Vec::new();
    for (i, (name, link)) in created.seats.iter().enumerate() {
        if !bots.iter().any(|(b, _)| b == name) {
            tasks.push(tokio::spawn(play(link.clone(), seed + i as u64)));
        }
    }
    tasks.push(tokio::spawn(play(created.spectator.clone(), 0)));
    let mut seen = Vec::new();
    for t in tasks {
        seen.push(t.await.unwrap());
    }
    assert!(seen.iter().all(|s| s.over));
    assert!(seen.iter().any(|s| s.revealed > 0), "a sealed seat revealed");
    let mut logs = Vec::new();
    for s in &seen {
        let (_, _, token) = parse_link(&s.link).unwrap();
        let log = fair_log(server.addr, &created.table, &token).await;
        let report = session::fairlog::verify(&log).unwrap_or_else(|e| panic!("{system}: {e}\n{log}"));
        assert_eq!(Some(&report.head), s.head.as_ref(), "the log ends in the head the last frame showed");
        assert!(report.seed_revealed, "the game is over: the server seed is revealed");
        assert!(report.mixes > 0 && report.reveals_checked > 0, "{report}");
        // docs/fairness.md §8: the opening round is mixed in before the rules' first step.
        assert_eq!(
            report.before_first_mix, 0,
            "{system}: no draw is left to the server seed alone: {report}"
        );
        // Two clusters of one against one pay each pot to its one leader: no draw.
        if system != "iron-triangle" && example != "brawl-clusters" {
            assert!(report.draws > 0, "{system} draws: {report}");
        }
        logs.push((log, report));
    }
    let revealed = logs[0].0.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).find_map(|l| {
        (l["entry"]["kind"] == "server_seed").then(|| l["entry"]["revealed"].as_str().unwrap().to_owned())
    });
    let revealed = revealed.expect("the seed is revealed at the end");
    for s in &seen {
        for item in s.items.values().filter(|i| i["kind"] != "server_seed") {
            assert!(
                !item.to_string().contains(&revealed),
                "{system}: the server seed was shown early: {item}"
            );
        }
    }
    tamper(system, &logs[0].0);
    if let Some(dir) = std::env::var_os("WRITE_FAIR_LOGS") {
        // Real logs for `facedown verify`'s tests and the README's example.
        std::fs::write(std::path::Path::new(&dir).join(format!("{system}.jsonl")), &logs[0].0).unwrap();
    }
    server.shutdown().await.unwrap();
    let (restarted, _) = replay(&db, &created.table).await;
    for (s, (log, _)) in seen.iter().zip(&logs) {
        // The journal rebuilds the same draws: the log replayed from it is the one served.
        let v = viewer(s.who.unwrap());
        let text = log.lines().skip(1).map(|l| serde_json::from_str::<Value>(l).unwrap()["entry"].clone());
        assert!(text.eq(restarted.updates_since(v, 0)), "{system}: the journal replays to the same log");
    }
    let (game, _) = replay(&db, &created.table).await;
    assert!(game.is_over(), "the journal replays to the end of the game");
    check(&*game, &seen);
}

/// `GET /api/tables/{table}/log?format=fair` with `token`: the viewer's verifiable log.
async fn fair_log(addr: std::net::SocketAddr, table: &str, token: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "GET /api/tables/{table}/log?format=fair HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    );
    s.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8(out).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        let mut rest = body;
        let mut out = String::new();
        loop {
            let (size, after) = rest.split_once("\r\n").unwrap();
            let size = usize::from_str_radix(size.trim(), 16).unwrap();
            if size == 0 {
                break;
            }
            out.push_str(&after[..size]);
            rest = &after[size + 2..];
        }
        out
    } else {
        body.to_owned()
    }
}

/// Changing any one byte of a real log — a name, a die, a nonce, a narration line, a hash —
/// is caught by `verify` (docs/fairness.md §6).
fn tamper(system: &str, log: &str) {
    let bytes = log.as_bytes();
    let mut rng = ChaCha8Rng::seed_from_u64(bytes.len() as u64);
    let step = (bytes.len() / 400).max(1);
    let mut positions: Vec<usize> = (0..bytes.len()).step_by(step).collect();
    positions.extend((0..200).map(|_| rng.random_range(0..bytes.len())));
    // The bytes that matter most: inside draws, nonces and narration.
    for needle in ["\"value\":\"", "\"nonce\":\"", "\"text\":\"", "\"name\":\"", "\"revealed\":\""] {
        for (at, _) in log.match_indices(needle).take(20) {
            positions.push(at + needle.len());
        }
    }
    let mut checked = 0;
    for at in positions {
        if bytes[at] == b'\n' {
            continue;
        }
        for replacement in [bytes[at] ^ 1, b'x'] {
            if replacement == bytes[at] {
                continue;
            }
            let mut changed = bytes.to_vec();
            changed[at] = replacement;
            let Ok(changed) = String::from_utf8(changed) else { continue };
            assert!(
                session::fairlog::verify(&changed).is_err(),
                "{system}: a change at byte {at} went unnoticed: {:?}",
                &log[log.floor_char_boundary(at.saturating_sub(40))
                    ..log.ceil_char_boundary((at + 40).min(log.len()))]
            );
            checked += 1;
        }
    }
    assert!(checked > 500, "{checked} changes checked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_sealed_seats_play_an_iron_triangle_duel() {
    whole_game("iron-triangle", "duel", &[], &["ada", "gm"], 11).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn iron_triangle_specials_and_several_seats_sealed() {
    // Timing windows of the specials (§6), and a 2-against-3 ambush with a bot beside.
    whole_game("iron-triangle", "specials-duel", &[], &["ren", "gm"], 16).await;
    whole_game("iron-triangle", "ambush-2v3", &[("bao", "random")], &["ada", "gm"], 17).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sealed_seat_plays_against_a_bot() {
    whole_game("iron-triangle", "duel", &[("gm", "greedy")], &["ada"], 12).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodice_sealed_seats_with_a_bot() {
    // The Commit steps are asked one Actor after another, the GM's two Actors among them.
    whole_game("nodice", "brawl-3", &[("gm", "random")], &["kara"], 21).await;
    whole_game("nodice", "brawl-3", &[], &["kara", "gm"], 15).await;
}

/// docs/protocol.md (`server_seed_commitment`) and docs/fairness.md §4: a No Dice table whose
/// setup engages its Actors in clusters (the GM's `engagement`, given as its first command)
/// draws verifiably like any other: its seed is committed, the seats' client seeds are taken,
/// and every viewer's log verifies. (It drew from a seed nobody could check, and refused client
/// seeds, because the engagement was given before the draws were made verifiable.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nodice_table_that_engages_in_clusters_draws_verifiably_with_client_seeds() {
    whole_game("nodice", "brawl-clusters", &[], &["kara", "gm"], 23).await;
    whole_game("nodice", "brawl-clusters", &[("gm", "random")], &["ren"], 24).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inciting_incident_sealed_seats() {
    // The players sealed; the GM, plain, declares for several fighters before the reveal.
    whole_game("inciting-incident", "river-fight", &[], &["bren", "mira"], 14).await;
    // The GM sealed too: asked again for its other fighter, it answers the question after its
    // own declaration, which the server does not know (the prompt's branches), and never faults.
    whole_game("inciting-incident", "river-fight", &[], &["bren", "mira", "gm"], 15).await;
    whole_game("inciting-incident", "three-factions", &[], &["gm"], 16).await;
}

// ---------------------------------------------------------------------------------------------
// One round by hand.

/// The next message that is not a seats notice, an update or a `sealed` notice.
async fn next(client: &mut Client) -> ServerMessage {
    loop {
        let m =
            tokio::time::timeout(Duration::from_secs(10), client.next()).await.expect("an answer").unwrap();
        match m {
            ServerMessage::Seats { .. } | ServerMessage::Update { .. } | ServerMessage::Sealed { .. } => {
                continue;
            }
            m => return m,
        }
    }
}

/// The welcome: the seat's first face-down choice, and the round if one is open.
async fn welcome(
    client: &mut Client,
) -> (Option<Value>, Option<Box<server::protocol::RoundState>>, Vec<SeatMode>) {
    match next(client).await {
        ServerMessage::Welcome { change, round, seats, .. } => {
            let first = change.prompt.map(|p| p["choices"][0]["command"].clone());
            (first, round, seats.iter().map(|s| s.mode).collect())
        }
        other => panic!("expected a welcome, got {other:?}"),
    }
}

/// The next answer to a request (a binding sent to everyone meanwhile skipped).
async fn answer(client: &mut Client) -> ServerMessage {
    loop {
        match next(client).await {
            ServerMessage::Bound { .. } => continue,
            m => return m,
        }
    }
}

async fn ack(client: &mut Client, id: &str) {
    match answer(client).await {
        ServerMessage::Ack { id: got, .. } => assert_eq!(got, id),
        other => panic!("expected the ack of {id}, got {other:?}"),
    }
}

async fn refused(client: &mut Client, expected: ErrorCode) -> Option<String> {
    match answer(client).await {
        ServerMessage::Error { code, id, message } => {
            assert_eq!(code, expected, "{message}");
            id
        }
        other => panic!("expected an error {expected:?}, got {other:?}"),
    }
}

async fn send(client: &mut Client, message: ClientMessage) {
    client.send(&message).await.unwrap();
}

fn seal(id: &str, command: &Value, nonce: &Nonce) -> ClientMessage {
    ClientMessage::Seal { id: id.into(), commitment: commit(command, nonce).to_string() }
}

fn reveal(id: &str, command: &Value, nonce: &Nonce) -> ClientMessage {
    ClientMessage::Reveal { id: id.into(), command: command.clone(), nonce: nonce.to_string() }
}

/// A duel with both seats sealed, both seats joined.
async fn sealed_duel(db: &Path) -> (Running, CreatedTable, Client, Client, Value, Value) {
    let server = server::start(config(db)).await.unwrap();
    // The rounds of play are what these tests are about: no opening round first.
    let created = create_with(&server, "iron-triangle", "duel", &[], &["ada", "gm"], Some(false)).await;
    let mut a = Client::join(&created.seats["ada"], 0).await.unwrap();
    let mut g = Client::join(&created.seats["gm"], 0).await.unwrap();
    let (ca, round, modes) = welcome(&mut a).await;
    assert_eq!(round, None);
    assert_eq!(modes, vec![SeatMode::Sealed, SeatMode::Sealed], "every seat sees the modes");
    let (cg, _, _) = welcome(&mut g).await;
    (server, created, a, g, ca.unwrap(), cg.unwrap())
}

/// The text of every file of the database (the WAL included).
fn database_text(db: &Path) -> String {
    let mut all = Vec::new();
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let path = format!("{}{suffix}", db.display());
        if let Ok(bytes) = std::fs::read(path) {
            all.extend(bytes);
        }
    }
    String::from_utf8_lossy(&all).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn between_commit_and_reveal_the_database_holds_only_hashes_and_a_restart_continues() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let (server, created, mut a, mut g, ca, cg) = sealed_duel(&db).await;
    let (na, ng) = (Nonce::from_bytes([0x5a; 32]), Nonce::from_bytes([0xa5; 32]));
    send(&mut a, seal("s1", &ca, &na)).await;
    ack(&mut a, "s1").await;
    send(&mut g, seal("s2", &cg, &ng)).await;
    let bound = match next(&mut g).await {
        ServerMessage::Bound { commitments } => commitments,
        other => panic!("expected the binding, got {other:?}"),
    };
    assert_eq!(bound.len(), 2);
    assert_eq!(bound[0].commitment, commit(&ca, &na).to_string());
    ack(&mut g, "s2").await;
    // A retried seal is answered as the first time and applied once.
    send(&mut a, seal("s1", &ca, &na)).await;
    ack(&mut a, "s1").await;
    a.close().await;
    g.close().await;
    server.shutdown().await.unwrap();

    // The database: the seals' hashes, never a command.
    let text = database_text(&db);
    assert!(text.contains(&bound[1].commitment));
    for command in [&ca, &cg] {
        assert!(!text.contains(&canonical_json(command).unwrap()), "{command} is in the database");
        assert!(!text.contains(&command.to_string()));
    }
    // The session rebuilt from it: the round bound, no command given to the rules.
    let (game, ops) = replay(&db, &created.table).await;
    assert_eq!(ops.iter().filter(|o| o["op"] == "seal").count(), 2);
    assert_eq!(ops[0]["op"], "verifiable", "the first entry keeps the table's server seed");
    for op in ops.iter().filter(|o| o["op"] != "verifiable" && o["op"] != "client_seed") {
        // The journal table's entries: a seal is its seat, its hash and the client's id.
        let keys: Vec<&str> = op.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["commitment", "id", "op", "seat"], "{op}");
    }
    assert_eq!(game.record()["entries"], json!([]));
    assert!(game.round().unwrap().bound);
    assert_eq!(game.face_down(), 0);
    let session_text = format!("{} {:?}", game.record(), game.round());
    assert!(
        !session_text.contains(&canonical_json(&ca).unwrap())
            && !session_text.contains(&canonical_json(&cg).unwrap())
    );

    // A restart: the round is still bound, the reveals continue the game.
    let server = server::start(config(&db)).await.unwrap();
    let moved = |old: &str| {
        let (_, table, token) = parse_link(old).unwrap();
        link(&server.base_url, &table, &token)
    };
    let mut a = Client::join(&moved(&created.seats["ada"]), 0).await.unwrap();
    let (_, round, _) = welcome(&mut a).await;
    let round = round.expect("the welcome shows the open round");
    assert!(round.bound);
    assert_eq!(round.revealing, vec![0, 1]);
    let mut g = Client::join(&moved(&created.seats["gm"]), 0).await.unwrap();
    welcome(&mut g).await;
    send(&mut a, reveal("r11", &ca, &na)).await;
    ack(&mut a, "r11").await;
    send(&mut g, reveal("r12", &cg, &ng)).await;
    ack(&mut g, "r12").await;
    let mut spectator = Client::join(&moved(&created.spectator), 0).await.unwrap();
    let change = match next(&mut spectator).await {
        ServerMessage::Welcome { change, round, .. } => {
            assert_eq!(round, None, "the round is over");
            change
        }
        other => panic!("{other:?}"),
    };
    let kinds: Vec<&str> = change.updates.iter().map(|u| u["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "opened").count(), 2, "{kinds:?}");
    assert!(!kinds.contains(&"fault"));
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_nonce_gets_the_forced_decision_and_a_public_fault() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let (server, created, mut a, mut g, ca, cg) = sealed_duel(&db).await;
    let (na, ng) = (Nonce::from_bytes([1; 32]), Nonce::from_bytes([2; 32]));
    // A sealed seat may not send its face-down choice in the clear.
    send(&mut a, ClientMessage::Command { id: "x1".into(), command: ca.clone() }).await;
    refused(&mut a, ErrorCode::SealedSeat).await;
    // Nor reveal before the binding.
    send(&mut a, seal("s1", &ca, &na)).await;
    ack(&mut a, "s1").await;
    send(&mut a, reveal("r10", &ca, &na)).await;
    refused(&mut a, ErrorCode::NotBound).await;
    send(&mut g, seal("s2", &cg, &ng)).await;
    assert!(matches!(next(&mut g).await, ServerMessage::Bound { .. }));
    ack(&mut g, "s2").await;
    send(&mut a, reveal("r11", &ca, &Nonce::from_bytes([3; 32]))).await;
    assert_eq!(refused(&mut a, ErrorCode::WrongNonce).await.as_deref(), Some("r11"));
    // Its retry is answered alike, and the fault stands.
    send(&mut a, reveal("r11", &ca, &na)).await;
    refused(&mut a, ErrorCode::WrongNonce).await;
    send(&mut g, reveal("r12", &cg, &ng)).await;
    ack(&mut g, "r12").await;
    let mut spectator = Client::join(&created.spectator, 0).await.unwrap();
    let change = match next(&mut spectator).await {
        ServerMessage::Welcome { change, .. } => change,
        other => panic!("{other:?}"),
    };
    let kinds: Vec<&str> = change.updates.iter().map(|u| u["kind"].as_str().unwrap()).collect();
    let fault = change.updates.iter().find(|u| u["kind"] == "fault").expect("a public fault");
    assert_eq!((fault["seat"].as_u64(), fault["fault"].as_str()), (Some(0), Some("wrong_nonce")));
    let at = kinds.iter().position(|k| *k == "fault").unwrap();
    assert_eq!(kinds[at + 1], "forced", "{kinds:?}");
    assert_eq!(change.updates[at + 1]["seat"], 0);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commitment_replaced_before_every_seat_committed_has_no_fault() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let (server, created, mut a, mut g, ca, cg) = sealed_duel(&db).await;
    let (first, second, ng) =
        (Nonce::from_bytes([7; 32]), Nonce::from_bytes([8; 32]), Nonce::from_bytes([9; 32]));
    send(&mut a, seal("s1", &cg, &first)).await;
    ack(&mut a, "s1").await;
    // The player reloads on another device and commits again.
    a.close().await;
    let mut a = Client::join(&created.seats["ada"], 0).await.unwrap();
    let (_, round, _) = welcome(&mut a).await;
    assert_eq!(round.map(|r| r.sealed), Some(vec![0]));
    send(&mut a, seal("s2", &ca, &second)).await;
    ack(&mut a, "s2").await;
    send(&mut g, seal("s3", &cg, &ng)).await;
    match next(&mut g).await {
        ServerMessage::Bound { commitments } => {
            assert_eq!(commitments.len(), 2);
            assert_eq!(commitments[0].commitment, commit(&ca, &second).to_string());
        }
        other => panic!("{other:?}"),
    }
    ack(&mut g, "s3").await;
    send(&mut a, seal("s4", &ca, &first)).await;
    refused(&mut a, ErrorCode::Bound).await;
    send(&mut a, reveal("r11", &ca, &second)).await;
    ack(&mut a, "r11").await;
    send(&mut g, reveal("r12", &cg, &ng)).await;
    ack(&mut g, "r12").await;
    server.shutdown().await.unwrap();
    let (game, _) = replay(&db, &created.table).await;
    let log = game.updates_since(Viewer::Spectator, 0);
    assert!(log.iter().all(|u| u["kind"] != "fault"));
    assert_eq!(log.iter().filter(|u| u["kind"] == "opened").count(), 2);
    assert_eq!(game.record()["entries"].as_array().unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_reveal_before_the_decision_timer_is_a_public_fault() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let server = server::start(config(&db)).await.unwrap();
    let modes = [("ada".to_string(), SeatMode::Sealed), ("gm".to_string(), SeatMode::Sealed)].into();
    let created = server
        .create_table(CreateTable {
            system: "iron-triangle".into(),
            setup: SetupSource::Example("duel".into()),
            seats: BTreeMap::new(),
            options: TableOptions {
                decision_seconds: Some(1),
                think_ms: 0,
                modes,
                opening_round: Some(false),
            },
            rules: Default::default(),
        })
        .await
        .unwrap();
    let mut a = Client::join(&created.seats["ada"], 0).await.unwrap();
    let mut g = Client::join(&created.seats["gm"], 0).await.unwrap();
    let ca = welcome(&mut a).await.0.unwrap();
    let cg = welcome(&mut g).await.0.unwrap();
    let (na, ng) = (Nonce::from_bytes([1; 32]), Nonce::from_bytes([2; 32]));
    send(&mut a, seal("s1", &ca, &na)).await;
    ack(&mut a, "s1").await;
    send(&mut g, seal("s2", &cg, &ng)).await;
    ack(&mut g, "s2").await;
    send(&mut a, reveal("r11", &ca, &na)).await;
    ack(&mut a, "r11").await;
    // The GM never reveals: its timer runs out, its decision is forced, and everyone sees why.
    let mut spectator = Client::join(&created.spectator, 0).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let mut kinds: Vec<(String, Value)> = Vec::new();
    while !kinds.iter().any(|(k, _)| k == "fault") {
        let m = tokio::time::timeout_at(deadline, spectator.next()).await.expect("the timer fires").unwrap();
        let change = match m {
            ServerMessage::Welcome { change, .. } | ServerMessage::Update { change } => change,
            _ => continue,
        };
        kinds.extend(change.updates.iter().map(|u| (u["kind"].as_str().unwrap().to_owned(), u.clone())));
    }
    let at = kinds.iter().position(|(k, _)| k == "fault").unwrap();
    assert_eq!((kinds[at].1["seat"].as_u64(), kinds[at].1["fault"].as_str()), (Some(1), Some("no_reveal")));
    assert_eq!(kinds[at + 1].0, "forced");
    let opened: Vec<u64> =
        kinds.iter().filter(|(k, _)| k == "opened").map(|(_, u)| u["seat"].as_u64().unwrap()).collect();
    assert_eq!(opened, vec![0], "Ada's command is opened; the GM's never came");
    server.shutdown().await.unwrap();
}

/// docs/fairness.md §3, "A lost secret": a sealed seat whose secret is lost says so with
/// `take_back` and `lost`; before the binding it chooses again with no fault, after it the missed
/// reveal is a public fault at once with the reason, the table goes on, the log verifies, and the
/// journal replays to the same log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_secret_is_taken_back_before_binding_and_a_missed_reveal_with_its_reason_after() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let (server, created, mut a, mut g, ca, cg) = sealed_duel(&db).await;
    send(&mut g, seal("s1", &cg, &Nonce::from_bytes([9; 32]))).await;
    ack(&mut g, "s1").await;
    // Before the binding: a take-back, no fault; the GM chooses again.
    send(&mut g, ClientMessage::TakeBack { id: "t2".into(), lost: true }).await;
    ack(&mut g, "t2").await;
    send(&mut g, seal("s3", &cg, &Nonce::from_bytes([2; 32]))).await;
    ack(&mut g, "s3").await;
    send(&mut a, seal("s1", &ca, &Nonce::from_bytes([1; 32]))).await;
    ack(&mut a, "s1").await;
    send(&mut a, reveal("r2", &ca, &Nonce::from_bytes([1; 32]))).await;
    ack(&mut a, "r2").await;
    // After it: the GM gives up its reveal; the round resolves at once.
    send(&mut g, ClientMessage::TakeBack { id: "t4".into(), lost: true }).await;
    ack(&mut g, "t4").await;
    send(&mut g, ClientMessage::TakeBack { id: "t5".into(), lost: true }).await;
    refused(&mut g, ErrorCode::Refused).await;
    let (_, _, token) = parse_link(&created.seats["ada"]).unwrap();
    let log = fair_log(server.addr, &created.table, &token).await;
    let report = session::fairlog::verify(&log).unwrap_or_else(|e| panic!("{e}\n{log}"));
    assert_eq!(report.reveals_checked, 1, "{report}");
    let items: Vec<Value> =
        log.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["entry"].clone()).collect();
    let faults: Vec<&Value> = items.iter().filter(|u| u["kind"] == "fault").collect();
    assert_eq!(faults.len(), 1, "one fault, after the binding: {faults:?}");
    assert_eq!((faults[0]["seat"].as_u64(), faults[0]["fault"].as_str()), (Some(1), Some("no_reveal")));
    assert_eq!(faults[0]["reason"], "secret_lost");
    assert_eq!(items.iter().filter(|u| u["kind"] == "took_back").count(), 1);
    // A fault the protocol does not name is refused, whatever its chain of hashes.
    let forged = items.iter().map(|u| {
        let mut u = u.clone();
        if u["kind"] == "fault" {
            u["reason"] = json!("dog_ate_it");
        }
        u
    });
    let (forged, _) = session::fairlog::write(forged).unwrap();
    let err = session::fairlog::verify(&forged).unwrap_err();
    assert!(err.to_string().contains("none the protocol names"), "{err}");
    if let Some(path) = std::env::var_os("WRITE_SECRET_LOST_LOG") {
        // The fixture of the page's verifier (crates/server/web/test/fixtures/secret-lost.jsonl).
        std::fs::write(path, &log).unwrap();
    }
    server.shutdown().await.unwrap();
    let (game, _) = replay(&db, &created.table).await;
    let replayed = game.updates_since(Viewer::Seat(SeatId(0)), 0);
    assert!(items[1..].iter().eq(replayed.iter()), "the journal replays to the same log");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_handed_to_a_bot_before_its_reveal_faults_and_play_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let (server, created, mut a, mut g, ca, cg) = sealed_duel(&db).await;
    send(&mut a, seal("s1", &ca, &Nonce::from_bytes([1; 32]))).await;
    ack(&mut a, "s1").await;
    send(&mut g, seal("s2", &cg, &Nonce::from_bytes([2; 32]))).await;
    ack(&mut g, "s2").await;
    // Ada's player leaves before revealing; the GM link hands her seat to a bot, which cannot
    // know her choice.
    let mut gm = Client::join(&created.gm, 0).await.unwrap();
    welcome(&mut gm).await;
    let action = server::protocol::ManageAction::Bot { seat: 0, kind: "random".into() };
    send(&mut gm, ClientMessage::Manage { id: "m1".into(), action }).await;
    ack(&mut gm, "m1").await;
    send(&mut g, reveal("r12", &cg, &Nonce::from_bytes([2; 32]))).await;
    ack(&mut g, "r12").await;
    let mut spectator = Client::join(&created.spectator, 0).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let mut items: Vec<Value> = Vec::new();
    while !items.iter().any(|u| u["kind"] == "fault") {
        let m =
            tokio::time::timeout_at(deadline, spectator.next()).await.expect("the bot's turn comes").unwrap();
        if let ServerMessage::Welcome { change, .. } | ServerMessage::Update { change } = m {
            items.extend(change.updates);
        }
    }
    let fault = items.iter().find(|u| u["kind"] == "fault").unwrap();
    assert_eq!((fault["seat"].as_u64(), fault["fault"].as_str()), (Some(0), Some("no_reveal")));
    server.shutdown().await.unwrap();
}

/// docs/protocol.md, Sealed choices: at a table with no decision timer, each sealed seat's
/// reveal is timed from the binding (`REVEAL_SECONDS`, two minutes), so a sealed seat gone for
/// good never holds the table; nothing is timed before the binding.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sealed_table_times_each_reveal_from_the_binding() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let (server, _created, mut a, mut g, ca, cg) = sealed_duel(&db).await;
    send(&mut a, seal("s1", &ca, &Nonce::from_bytes([1; 32]))).await;
    let before = until_answer(&mut a, "s1").await;
    for m in &before {
        if let ServerMessage::Update { change } = m {
            assert!(change.timers.is_empty(), "no timer before the binding: {:?}", change.timers);
        }
    }
    send(&mut g, seal("s2", &cg, &Nonce::from_bytes([2; 32]))).await;
    ack(&mut g, "s2").await;
    let after = until(&mut a, |m| matches!(m, ServerMessage::Bound { .. })).await;
    let change = after
        .iter()
        .find_map(|m| match m {
            ServerMessage::Update { change } if change.updates.iter().any(|u| u["kind"] == "bound") => {
                Some(change)
            }
            _ => None,
        })
        .expect("the binding's update");
    let mut seats: Vec<u16> = change.timers.iter().map(|t| t.seat).collect();
    seats.sort_unstable();
    assert_eq!(seats, vec![0, 1], "both sealed seats' reveals are timed");
    // At least two minutes (docs/protocol.md, Sealed choices).
    const { assert!(server::protocol::REVEAL_SECONDS >= 120) };
    let full = server::protocol::REVEAL_SECONDS * 1000;
    for t in &change.timers {
        assert!(t.ms > full - 10_000 && t.ms <= full, "{t:?}");
    }
    server.shutdown().await.unwrap();
}

/// Every message `client` gets up to and including the answer to request `id`.
async fn until_answer(client: &mut Client, id: &str) -> Vec<ServerMessage> {
    let mut got = Vec::new();
    loop {
        let m =
            tokio::time::timeout(Duration::from_secs(10), client.next()).await.expect("an answer").unwrap();
        let done = matches!(&m, ServerMessage::Ack { id: i, .. } | ServerMessage::Error { id: Some(i), .. } if i == id);
        got.push(m);
        if done {
            return got;
        }
    }
}

/// Every message `client` gets until one passes `last`.
async fn until(client: &mut Client, last: impl Fn(&ServerMessage) -> bool) -> Vec<ServerMessage> {
    let mut got = Vec::new();
    loop {
        let m =
            tokio::time::timeout(Duration::from_secs(10), client.next()).await.expect("a message").unwrap();
        let done = last(&m);
        got.push(m);
        if done {
            return got;
        }
    }
}

/// The updates among `messages` that add no log item (a refresh of prompts and `awaiting`).
fn refreshes(messages: &[ServerMessage]) -> Vec<&server::protocol::Change> {
    messages
        .iter()
        .filter_map(|m| match m {
            ServerMessage::Update { change } if change.updates.is_empty() => Some(change),
            _ => None,
        })
        .collect()
}

/// The `sealed` notices among `messages`: (who has committed, who is awaited).
fn sealed_notices(messages: &[ServerMessage]) -> Vec<(Vec<u16>, Vec<u16>)> {
    messages
        .iter()
        .filter_map(|m| match m {
            ServerMessage::Sealed { seats, awaiting } => Some((seats.clone(), awaiting.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commitment_tells_everyone_who_is_awaited_and_refreshes_only_the_prompts_it_changed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let (server, _created, mut a, mut g, ca, cg) = sealed_duel(&db).await;
    let (na, ng) = (Nonce::from_bytes([7; 32]), Nonce::from_bytes([8; 32]));

    // Ada commits: everyone learns that seat 0 has committed and the round waits for seat 1;
    // Ada's own prompt is gone, so she alone gets an update with no new item.
    send(&mut a, seal("s1", &ca, &na)).await;
    let to_a = until_answer(&mut a, "s1").await;
    assert_eq!(sealed_notices(&to_a), vec![(vec![0], vec![1])], "{to_a:?}");
    let refreshed = refreshes(&to_a);
    assert_eq!(refreshed.len(), 1, "{to_a:?}");
    assert_eq!((refreshed[0].prompt.clone(), refreshed[0].awaiting.clone()), (None, vec![1]));
    let to_g = until(&mut g, |m| matches!(m, ServerMessage::Sealed { .. })).await;
    assert_eq!(sealed_notices(&to_g), vec![(vec![0], vec![1])]);
    assert!(refreshes(&to_g).is_empty(), "the GM's prompt stands: {to_g:?}");

    // The GM commits: the round binds (a log item, then the commitments).
    send(&mut g, seal("s2", &cg, &ng)).await;
    let to_g = until_answer(&mut g, "s2").await;
    assert!(to_g.iter().any(|m| matches!(m, ServerMessage::Bound { .. })), "{to_g:?}");
    assert!(refreshes(&to_g).is_empty(), "{to_g:?}");
    until(&mut a, |m| matches!(m, ServerMessage::Bound { .. })).await;

    // Ada reveals: the round now waits for the GM's reveal alone, and nobody's prompt changed;
    // the reveal timers run from the binding, so the refresh carries them (the GM's alone now).
    send(&mut a, reveal("r11", &ca, &na)).await;
    let to_a = until_answer(&mut a, "r11").await;
    assert_eq!(sealed_notices(&to_a), vec![(vec![0, 1], vec![1])], "{to_a:?}");
    for c in refreshes(&to_a) {
        assert_eq!(c.prompt, None, "{to_a:?}");
        assert_eq!(c.timers.iter().map(|t| t.seat).collect::<Vec<_>>(), vec![1], "{to_a:?}");
    }
    let to_g = until(&mut g, |m| matches!(m, ServerMessage::Sealed { .. })).await;
    assert_eq!(sealed_notices(&to_g), vec![(vec![0, 1], vec![1])]);

    // The GM reveals: the resolution reaches both, with the next prompts.
    send(&mut g, reveal("r12", &cg, &ng)).await;
    until_answer(&mut g, "r12").await;
    let to_a =
        until(&mut a, |m| matches!(m, ServerMessage::Update { change } if !change.updates.is_empty())).await;
    let Some(ServerMessage::Update { change }) = to_a.last() else { unreachable!() };
    let kinds: Vec<&str> = change.updates.iter().map(|u| u["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "opened").count(), 2, "{kinds:?}");
    assert!(change.prompt.is_some(), "Ada is asked her move");
    server.shutdown().await.unwrap();
}

/// The `declare.character` of an Inciting Incident command.
fn character(command: &Value) -> Value {
    command["declare"]["character"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sealed_gm_asked_again_in_a_round_gets_the_question_after_its_own_declaration() {
    // The river fight's GM declares for Y'ras'byn and the Cult captain before one reveal. Sealed,
    // it declares for the captain first; the server, which knows only the commitment, asks it
    // again with the question after the stand-in (the captain again) and, in `branches`, the
    // question after each declaration it might have made: its branch asks about Y'ras'byn.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let server = server::start(config(&db)).await.unwrap();
    let created = create_with(&server, "inciting-incident", "river-fight", &[], &["gm"], Some(false)).await;
    let mut gm = Client::join(&created.seats["gm"], 0).await.unwrap();
    let first = match next(&mut gm).await {
        ServerMessage::Welcome { change, .. } => change.prompt.expect("the GM declares"),
        other => panic!("expected a welcome, got {other:?}"),
    };
    let private: Vec<Value> = first["choices"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["private"] == true)
        .map(|c| c["command"].clone())
        .collect();
    let for_captain = private.last().unwrap().clone();
    assert_ne!(character(&for_captain), character(&private[0]), "the prompt offers both fighters");
    let (n1, n2) = (Nonce::from_bytes([1; 32]), Nonce::from_bytes([2; 32]));
    send(&mut gm, seal("s1", &for_captain, &n1)).await;
    let mut asked = None;
    for m in until_answer(&mut gm, "s1").await {
        if let ServerMessage::Update { change } = m {
            asked = change.prompt.or(asked);
        }
    }
    let asked = asked.expect("the GM is asked again");
    let stand_in: Vec<Value> = asked["choices"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["private"] == true)
        .map(|c| character(&c["command"]))
        .collect();
    assert!(stand_in.iter().all(|c| *c == character(&for_captain)), "after the stand-in: {asked}");
    let branch = sealedplay::own_branch(&asked, std::slice::from_ref(&for_captain)).expect("its branch");
    let second =
        branch["choices"].as_array().unwrap().iter().find(|c| c["private"] == true).unwrap()["command"]
            .clone();
    assert_eq!(character(&second), character(&private[0]), "asked about Y'ras'byn: {branch}");
    send(&mut gm, seal("s2", &second, &n2)).await;
    ack(&mut gm, "s2").await;
    for name in ["bren", "mira"] {
        let mut c = Client::join(&created.seats[name], 0).await.unwrap();
        let (choice, _, _) = welcome(&mut c).await;
        send(&mut c, ClientMessage::Command { id: "c1".into(), command: choice.unwrap() }).await;
        ack(&mut c, "c1").await;
        c.close().await;
    }
    send(&mut gm, reveal("r11", &for_captain, &n1)).await;
    ack(&mut gm, "r11").await;
    send(&mut gm, reveal("r12", &second, &n2)).await;
    ack(&mut gm, "r12").await;
    gm.close().await;
    server.shutdown().await.unwrap();
    let (game, _) = replay(&db, &created.table).await;
    let log = game.updates_since(Viewer::Spectator, 0);
    assert!(log.iter().all(|u| u["kind"] != "fault"), "no fault");
    assert_eq!(log.iter().filter(|u| u["kind"] == "opened").count(), 4, "both declarations opened");
}
