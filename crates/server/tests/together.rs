//! Requests waiting at a table together are made durable by one commit (two seats' reveals of
//! a sealed round share one sync instead of waiting one after the other), each judged and
//! applied in turn as one at a time would be, and answered only once that commit is durable;
//! a retry queued behind its own first copy is answered as the first, applied once. A seat's
//! decision awaited with another connected seat's waits a moment for it, so that the two share a
//! commit.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use server::client::Client;
use server::protocol::{ClientMessage, CreateTable, SeatMode, ServerMessage, SetupSource, TableOptions};
use session::sealed::Nonce;
use store::PersistError;
use store::tables::{NewTable, StoredTable, TableId, TableStore, TableSummary, Write};
use table::fairness::Commitment;

/// The server's SQLite store, whose commits can be held at a gate: each commit's number of
/// journal entries is recorded.
#[derive(Clone)]
struct Gated {
    inner: store::SqliteTables,
    /// While set, a commit waits at the gate until it is opened.
    hold: Arc<AtomicBool>,
    /// Opens the gate (one commit each).
    open: Arc<tokio::sync::Semaphore>,
    /// Set by a commit waiting at the gate.
    waiting: Arc<tokio::sync::Notify>,
    /// The journal entries of each commit, in order.
    commits: Arc<Mutex<Vec<usize>>>,
}

impl Gated {
    /// The SQLite store at `db`, its commits passing until `hold` is set.
    async fn open(db: &std::path::Path) -> Gated {
        Gated {
            inner: store::SqliteTables::open(db).await.unwrap(),
            hold: Arc::default(),
            open: Arc::new(tokio::sync::Semaphore::new(0)),
            waiting: Arc::default(),
            commits: Arc::default(),
        }
    }
}

impl TableStore for Gated {
    async fn create_table(&self, table: &NewTable) -> Result<TableId, PersistError> {
        self.inner.create_table(table).await
    }
    async fn commit(&self, writes: Vec<Write>) -> Result<(), PersistError> {
        if self.hold.swap(false, Ordering::SeqCst) {
            self.waiting.notify_one();
            let permit = self.open.acquire().await.map_err(|_| PersistError::Closed)?;
            permit.forget();
        }
        let entries = writes.iter().filter(|w| matches!(w, Write::Journal { .. })).count();
        self.commits.lock().unwrap().push(entries);
        self.inner.commit(writes).await
    }
    async fn load(&self, table: TableId) -> Result<StoredTable, PersistError> {
        self.inner.load(table).await
    }
    async fn open_tables(&self) -> Result<Vec<TableId>, PersistError> {
        self.inner.open_tables().await
    }
    async fn list_tables(&self) -> Result<Vec<TableSummary>, PersistError> {
        self.inner.list_tables().await
    }
    async fn import_table(&self, table: &store::MovedTable) -> Result<TableId, PersistError> {
        self.inner.import_table(table).await
    }
}

async fn next(client: &mut Client) -> ServerMessage {
    tokio::time::timeout(Duration::from_secs(10), client.next()).await.expect("a message in time").unwrap()
}

/// The messages up to the answer to request `id`.
async fn until_answer(client: &mut Client, id: &str) -> Vec<ServerMessage> {
    let mut got = Vec::new();
    loop {
        let m = next(client).await;
        let done = matches!(&m, ServerMessage::Ack { id: i, .. } | ServerMessage::Error { id: Some(i), .. } if i == id);
        got.push(m);
        if done {
            return got;
        }
    }
}

fn first_choice(client_welcome: &ServerMessage) -> Value {
    match client_welcome {
        ServerMessage::Welcome { change, .. } => {
            change.prompt.as_ref().unwrap()["choices"][0]["command"].clone()
        }
        other => panic!("expected a welcome, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_reveals_waiting_together_share_one_commit_and_a_retry_among_them_is_applied_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let store = Gated::open(&db).await;
    let mut config = server::Config::new(db.clone());
    config.listen = "127.0.0.1:0".parse().unwrap();
    let server = server::start_with(config, store.clone()).await.unwrap();
    let (created, mut ada, mut gm, ca, cg) = sealed_duel(&server).await;
    let (na, ng) = (Nonce::from_bytes([1; 32]), Nonce::from_bytes([2; 32]));
    let seal = |id: &str, c: &Value, n: &Nonce| ClientMessage::Seal {
        id: id.into(),
        commitment: Commitment::to_command(c, n).unwrap().to_string(),
    };
    let reveal = |id: &str, c: &Value, n: &Nonce| ClientMessage::Reveal {
        id: id.into(),
        command: c.clone(),
        nonce: n.to_string(),
    };
    ada.send(&seal("s1", &ca, &na)).await.unwrap();
    until_answer(&mut ada, "s1").await;
    gm.send(&seal("s2", &cg, &ng)).await.unwrap();
    until_answer(&mut gm, "s2").await;

    // Ada's client seed is held at the gate; meanwhile both reveals, and Ada's reveal once
    // more (a retry), wait at the table together.
    store.hold.store(true, Ordering::SeqCst);
    let seed = table::fairness::ClientSeed::from_phrase("gate").to_string();
    ada.send(&ClientMessage::ClientSeed { id: "q5".into(), seed }).await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), store.waiting.notified())
        .await
        .expect("the seed's commit waits");
    let pause = || tokio::time::sleep(Duration::from_millis(100));
    ada.send(&reveal("r11", &ca, &na)).await.unwrap();
    pause().await;
    gm.send(&reveal("r12", &cg, &ng)).await.unwrap();
    pause().await;
    ada.send(&reveal("r11", &ca, &na)).await.unwrap();
    // Let them reach the table's inbox, then open the gate.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = store.commits.lock().unwrap().len();
    store.open.add_permits(1);

    let mut acks = 0;
    let mut resolved = false;
    for m in until_answer(&mut ada, "q5").await.into_iter().chain(until_answer(&mut ada, "r11").await) {
        if let ServerMessage::Update { change } = &m {
            resolved |= change.updates.iter().any(|u| u["kind"] == "opened");
        }
        if let ServerMessage::Ack { .. } = m {
            acks += 1;
        }
    }
    assert_eq!(acks, 2, "the seed and the first reveal answered");
    // The retry is answered as the first was.
    let retried = until_answer(&mut ada, "r11").await;
    assert!(matches!(retried.last(), Some(ServerMessage::Ack { .. })), "{retried:?}");
    let gm_saw = until_answer(&mut gm, "r12").await;
    assert!(matches!(gm_saw.last(), Some(ServerMessage::Ack { .. })), "{gm_saw:?}");
    resolved |= gm_saw.iter().any(|m| matches!(m, ServerMessage::Update { change } if change.updates.iter().any(|u| u["kind"] == "opened")));
    assert!(resolved, "the round resolved");
    let commits = store.commits.lock().unwrap()[before..].to_vec();
    // The seed's commit, then both reveals in one; the retry, answered from memory, in none.
    assert_eq!(commits, vec![1, 2], "the reveals waiting together were kept by one commit");
    server.shutdown().await.unwrap();

    // The journal: each request once.
    let stored = {
        let s = store::SqliteTables::open(&db).await.unwrap();
        let t = s.load(TableId(created.table.parse().unwrap())).await.unwrap();
        s.close().await;
        t
    };
    let ids: Vec<String> = stored
        .journal
        .iter()
        .filter_map(|e| serde_json::from_str::<Value>(e).ok()?["id"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(ids, vec!["s1", "s2", "q5", "r11", "r12"]);
}

/// A duel whose two seats play sealed, with no opening round, on `server`: both seats joined
/// and welcomed, each with its prompt's first choice.
async fn sealed_duel(
    server: &server::Running,
) -> (server::protocol::CreatedTable, Client, Client, Value, Value) {
    let modes = [("ada".to_owned(), SeatMode::Sealed), ("gm".to_owned(), SeatMode::Sealed)].into();
    let created = server
        .create_table(CreateTable {
            system: "iron-triangle".into(),
            setup: SetupSource::Example("duel".into()),
            seats: BTreeMap::new(),
            options: TableOptions { modes, opening_round: Some(false), ..TableOptions::default() },
            rules: Default::default(),
        })
        .await
        .unwrap();
    let mut ada = Client::join(&created.seats["ada"], 0).await.unwrap();
    let mut gm = Client::join(&created.seats["gm"], 0).await.unwrap();
    let (ca, cg) = (first_choice(&next(&mut ada).await), first_choice(&next(&mut gm).await));
    (created, ada, gm, ca, cg)
}

/// A server on a [`Gated`] store in a new folder (which must outlive it), with these holds.
async fn gated_server(hold: Duration, reveal_hold: Duration) -> (server::Running, tempfile::TempDir, Gated) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let store = Gated::open(&db).await;
    let mut config = server::Config::new(db);
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.limits.hold = hold;
    config.limits.reveal_hold = reveal_hold;
    let server = server::start_with(config, store.clone()).await.unwrap();
    (server, dir, store)
}

/// A plain duel on a [`Gated`] store whose decisions wait `hold` for another's: its two seats
/// joined (or Ada's alone), their welcomes read; the store's folder goes with the server.
async fn plain_duel(
    hold: Duration,
    both: bool,
) -> ((server::Running, tempfile::TempDir), Gated, Client, Option<Client>) {
    let (server, dir, store) = gated_server(hold, server::Limits::default().reveal_hold).await;
    let created = server.create_table(CreateTable::example("iron-triangle", "duel")).await.unwrap();
    let mut ada = Client::join(&created.seats["ada"], 0).await.unwrap();
    next(&mut ada).await;
    let gm = if both {
        let mut gm = Client::join(&created.seats["gm"], 0).await.unwrap();
        next(&mut gm).await;
        Some(gm)
    } else {
        None
    };
    ((server, dir), store, ada, gm)
}

/// Both seats' stances: Ada's first, the GM's a moment later.
async fn both_stances(ada: &mut Client, gm: &mut Client) {
    let stance = |id: &str| ClientMessage::Command {
        id: id.into(),
        command: serde_json::json!({"commit_stance": {"stance": {"type": "attack", "amount": 1}}}),
    };
    ada.send(&stance("a1")).await.unwrap();
    tokio::time::sleep(Duration::from_millis(150)).await;
    gm.send(&stance("g1")).await.unwrap();
    for (client, id) in [(ada, "a1"), (gm, "g1")] {
        let got = until_answer(client, id).await;
        assert!(matches!(got.last(), Some(ServerMessage::Ack { .. })), "{got:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seats_decision_waits_for_the_other_seats_awaited_with_it_and_both_share_one_commit() {
    // Waiting (long enough for any machine): the two stances are kept by one commit.
    let (server, store, mut ada, gm) = plain_duel(Duration::from_secs(5), true).await;
    let before = store.commits.lock().unwrap().len();
    both_stances(&mut ada, &mut gm.unwrap()).await;
    assert_eq!(store.commits.lock().unwrap()[before..].to_vec(), vec![2], "one commit for both stances");
    server.0.shutdown().await.unwrap();

    // Not waiting: one commit each.
    let (server, store, mut ada, gm) = plain_duel(Duration::ZERO, true).await;
    let before = store.commits.lock().unwrap().len();
    both_stances(&mut ada, &mut gm.unwrap()).await;
    assert_eq!(store.commits.lock().unwrap()[before..].to_vec(), vec![1, 1], "a commit for each stance");
    server.0.shutdown().await.unwrap();

    // The other seat not connected: nothing to wait for, answered at once (far within the
    // hold of a minute).
    let (server, store, mut ada, _) = plain_duel(Duration::from_secs(60), false).await;
    let before = store.commits.lock().unwrap().len();
    let stance = ClientMessage::Command {
        id: "a1".into(),
        command: serde_json::json!({"commit_stance": {"stance": {"type": "defend", "amount": 1}}}),
    };
    ada.send(&stance).await.unwrap();
    let answered = tokio::time::timeout(Duration::from_secs(20), until_answer(&mut ada, "a1")).await;
    assert!(answered.is_ok(), "a seat whose partner is not connected does not wait for it");
    assert_eq!(store.commits.lock().unwrap()[before..].to_vec(), vec![1]);
    server.0.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_refused_because_of_one_kept_before_it_is_refused_after_that_ones_update() {
    // The GM's ruling takes Ada's attack energy away while her stance waits with it; her
    // stance, an attack, is then refused — and she learns why before she learns she was.
    let (server, _store, mut ada, gm) = plain_duel(Duration::from_secs(5), true).await;
    let mut gm = gm.unwrap();
    let ruling = serde_json::json!({"adjust_energy": {"fighter": 0, "energy": {"defend": 3, "grapple": 2, "attack": 0}, "reason": "a fall"}});
    gm.send(&ClientMessage::Command { id: "g1".into(), command: ruling }).await.unwrap();
    tokio::time::sleep(Duration::from_millis(150)).await;
    let attack = serde_json::json!({"commit_stance": {"stance": {"type": "attack", "amount": 3}}});
    ada.send(&ClientMessage::Command { id: "a1".into(), command: attack }).await.unwrap();
    let got = until_answer(&mut ada, "a1").await;
    let adjusted = got.iter().position(|m| {
        matches!(m, ServerMessage::Update { change } if change.updates.iter().any(|u| u["event"]["event"] == "energy_adjusted"))
    });
    let refused = got.iter().position(|m| matches!(m, ServerMessage::Error { id: Some(i), .. } if i == "a1"));
    assert!(refused.is_some(), "the attack is refused: {got:?}");
    assert!(adjusted.is_some_and(|a| Some(a) < refused), "the ruling's update first: {got:?}");
    let answered = until_answer(&mut gm, "g1").await;
    assert!(matches!(answered.last(), Some(ServerMessage::Ack { .. })), "{answered:?}");
    server.0.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reveal_waits_for_the_other_reveals_of_its_bound_round_and_all_share_one_commit() {
    // Decisions never wait (`hold` zero), reveals do (long enough for any machine): the two
    // seals, 150 ms apart, are kept one at a time, the two reveals by one commit.
    let (commits, opened) = sealed_round_commits(Duration::ZERO, Duration::from_secs(5)).await;
    assert_eq!(commits, vec![1, 1, 2], "a commit for each seal, one for both reveals");
    assert!(opened, "the round resolved");

    // Reveals not waiting either: a commit each.
    let (commits, opened) = sealed_round_commits(Duration::ZERO, Duration::ZERO).await;
    assert_eq!(commits, vec![1, 1, 1, 1], "a commit for each seal and each reveal");
    assert!(opened, "the round resolved");
}

/// A sealed duel on a [`Gated`] store with these holds: Ada seals, the GM 150 ms later; once
/// bound, Ada reveals, the GM 150 ms later. The journal entries of each commit from the first
/// seal on, and whether Ada saw the round resolve.
async fn sealed_round_commits(hold: Duration, reveal_hold: Duration) -> (Vec<usize>, bool) {
    let (server, _dir, store) = gated_server(hold, reveal_hold).await;
    let (_, mut ada, mut gm, ca, cg) = sealed_duel(&server).await;
    let (na, ng) = (Nonce::from_bytes([3; 32]), Nonce::from_bytes([4; 32]));
    let before = store.commits.lock().unwrap().len();
    let pause = || tokio::time::sleep(Duration::from_millis(150));
    let seal = |id: &str, c: &Value, n: &Nonce| ClientMessage::Seal {
        id: id.into(),
        commitment: Commitment::to_command(c, n).unwrap().to_string(),
    };
    ada.send(&seal("s1", &ca, &na)).await.unwrap();
    pause().await;
    gm.send(&seal("s2", &cg, &ng)).await.unwrap();
    until_answer(&mut ada, "s1").await;
    until_answer(&mut gm, "s2").await;
    let reveal = |id: &str, c: &Value, n: &Nonce| ClientMessage::Reveal {
        id: id.into(),
        command: c.clone(),
        nonce: n.to_string(),
    };
    ada.send(&reveal("r11", &ca, &na)).await.unwrap();
    pause().await;
    gm.send(&reveal("r12", &cg, &ng)).await.unwrap();
    let resolved = |got: &[ServerMessage]| {
        got.iter().any(|m| matches!(m, ServerMessage::Update { change } if change.updates.iter().any(|u| u["kind"] == "opened")))
    };
    // The resolution reaches Ada with her answer (kept together) or after it (alone), and
    // the GM before his answer either way.
    let ada_saw = until_answer(&mut ada, "r11").await;
    let gm_saw = until_answer(&mut gm, "r12").await;
    let mut opened = resolved(&ada_saw);
    for _ in 0..10 {
        if opened {
            break;
        }
        opened = resolved(&[next(&mut ada).await]);
    }
    let opened = opened && resolved(&gm_saw);
    let commits = store.commits.lock().unwrap()[before..].to_vec();
    server.shutdown().await.unwrap();
    (commits, opened)
}
