//! Two server instances on one PostgreSQL (issue 16, part 4): a seat on one instance and a seat
//! on the other play one table together, the instances' updates fanned out by LISTEN/NOTIFY; two
//! instances racing at one journal number keep exactly one entry each, the loser catching up
//! and answering its client; a notice missed is made good; and when the instance holding a
//! table's lease dies, the other takes its bots over and its clients play on through it.
//!
//! Each instance is `server::start_with` on its own `PgTables` (each its own writer, listener
//! and hub), wrapped in [`Instance`], through which a test can make an instance deaf (its
//! notices are dropped, as over a broken listener) or cut it off the database (every call
//! fails, as for a dead machine: its leases are not renewed and expire).
//!
//! The PostgreSQL server comes from `FACEDOWN_TEST_POSTGRES` (see tests/postgres.rs).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use server::Running;
use server::client::Client;
use server::protocol::{
    Change, ClientMessage, Controller, CreateTable, ErrorCode, SeatMode, ServerMessage, SetupSource,
    TableOptions,
};
use sqlx::Connection;
use sqlx::postgres::PgConnection;
use store::tables::{Heard, NewTable, StoredTable, TableId, TableStore, Write};
use store::{PersistError, PgTables};
use tokio::sync::broadcast;

mod pgcommon;
use pgcommon::*;

/// One instance's store: the shared `PgTables`, which a test can make deaf or cut off.
#[derive(Clone)]
struct Instance {
    inner: PgTables,
    /// Notices heard while deaf are dropped.
    deaf: Arc<AtomicBool>,
    /// Every call fails.
    cut: Arc<AtomicBool>,
    /// Every commit fails: this instance cannot apply a request itself.
    no_commits: Arc<AtomicBool>,
    /// The commits that kept journal entries.
    journal_commits: Arc<AtomicUsize>,
    /// Where this instance's server hears, once it listens.
    heard: Arc<Mutex<Option<broadcast::Sender<Heard>>>>,
}

impl Instance {
    async fn open(url: &str) -> Instance {
        Instance {
            inner: PgTables::open(url).await.unwrap(),
            deaf: Arc::default(),
            cut: Arc::default(),
            no_commits: Arc::default(),
            journal_commits: Arc::default(),
            heard: Arc::default(),
        }
    }

    fn check(&self) -> Result<(), PersistError> {
        if self.cut.load(Ordering::SeqCst) { Err(PersistError::Closed) } else { Ok(()) }
    }

    /// Hears again, told it may have missed notices (as after a listener's reconnection).
    fn hear_again(&self) {
        self.deaf.store(false, Ordering::SeqCst);
        if let Some(tx) = self.heard.lock().unwrap().as_ref() {
            let _ = tx.send(Heard::Missed);
        }
    }
}

impl Instance {
    /// What `from` hears, passed on unless this instance is deaf or cut off.
    fn relay(&self, mut from: broadcast::Receiver<Heard>) -> broadcast::Receiver<Heard> {
        let (tx, rx) = broadcast::channel(4096);
        *self.heard.lock().unwrap() = Some(tx.clone());
        let (deaf, cut) = (self.deaf.clone(), self.cut.clone());
        tokio::spawn(async move {
            while let Ok(notice) = from.recv().await {
                if !deaf.load(Ordering::SeqCst) && !cut.load(Ordering::SeqCst) && tx.send(notice).is_err() {
                    return;
                }
            }
        });
        rx
    }
}

impl TableStore for Instance {
    async fn create_table(&self, table: &NewTable) -> Result<TableId, PersistError> {
        self.check()?;
        self.inner.create_table(table).await
    }
    async fn commit(&self, writes: Vec<Write>) -> Result<(), PersistError> {
        self.check()?;
        if self.no_commits.load(Ordering::SeqCst) {
            return Err(PersistError::Closed);
        }
        let journal = writes.iter().any(|w| matches!(w, Write::Journal { .. }));
        self.inner.commit(writes).await?;
        if journal {
            self.journal_commits.fetch_add(1, Ordering::SeqCst);
        }
        Ok(())
    }
    async fn load(&self, table: TableId) -> Result<StoredTable, PersistError> {
        self.check()?;
        self.inner.load(table).await
    }
    async fn open_tables(&self) -> Result<Vec<TableId>, PersistError> {
        self.check()?;
        self.inner.open_tables().await
    }
    async fn load_since(&self, table: TableId, from: u64) -> Result<StoredTable, PersistError> {
        self.check()?;
        self.inner.load_since(table, from).await
    }
    async fn list_tables(&self) -> Result<Vec<store::tables::TableSummary>, PersistError> {
        self.check()?;
        self.inner.list_tables().await
    }
    async fn import_table(&self, table: &store::MovedTable) -> Result<TableId, PersistError> {
        self.check()?;
        self.inner.import_table(table).await
    }
    fn shared(&self) -> bool {
        true
    }
    async fn listen(&self) -> Result<Option<broadcast::Receiver<Heard>>, PersistError> {
        self.check()?;
        let from = self.inner.listen().await?.expect("PostgreSQL is shared");
        Ok(Some(self.relay(from)))
    }
    async fn listen_as(&self, instance: &str) -> Result<Option<broadcast::Receiver<Heard>>, PersistError> {
        self.check()?;
        let from = self.inner.listen_as(instance).await?.expect("PostgreSQL is shared");
        Ok(Some(self.relay(from)))
    }
    async fn tell(&self, told: Vec<(String, String)>) -> Result<(), PersistError> {
        self.check()?;
        self.inner.tell(told).await
    }
    async fn leases(
        &self,
        tables: Vec<TableId>,
        holder: &str,
        seconds: u32,
    ) -> Result<Vec<(TableId, String)>, PersistError> {
        self.check()?;
        self.inner.leases(tables, holder, seconds).await
    }

    async fn lease(&self, table: TableId, holder: &str, seconds: u32) -> Result<bool, PersistError> {
        self.check()?;
        self.inner.lease(table, holder, seconds).await
    }
    async fn release(&self, table: TableId, holder: &str, hand_over: bool) -> Result<(), PersistError> {
        self.check()?;
        self.inner.release(table, holder, hand_over).await
    }
    async fn orphans(&self, limit: usize) -> Result<Vec<TableId>, PersistError> {
        self.check()?;
        self.inner.orphans(limit).await
    }
    async fn clear_orphan(&self, table: TableId) -> Result<(), PersistError> {
        self.check()?;
        self.inner.clear_orphan(table).await
    }
}

/// An instance of the server on `url`, with leases of `lease_seconds`.
async fn instance(url: &str, lease_seconds: u32) -> (Running, Instance) {
    instance_holding(url, lease_seconds, config(url).limits.hold).await
}

/// [`instance`] whose seats' decisions wait `hold` for another's.
async fn instance_holding(url: &str, lease_seconds: u32, hold: Duration) -> (Running, Instance) {
    let store = Instance::open(url).await;
    let mut c = config(url);
    c.limits.lease_seconds = lease_seconds;
    c.limits.hold = hold;
    (server::start_with(c, store.clone()).await.unwrap(), store)
}

/// Two instances on one fresh database, with leases of `lease_seconds`, a table created on the
/// first by `request`, and its seats' links on each instance.
struct Two {
    db: Database,
    url: String,
    a: Running,
    a_store: Instance,
    b: Running,
    b_store: Instance,
    created: server::protocol::CreatedTable,
    on_a: Vec<String>,
    on_b: Vec<String>,
}

impl Two {
    /// `None` (printed) when no PostgreSQL server is named outside CI.
    async fn start(test: &str, lease_seconds: u32, request: CreateTable) -> Option<Two> {
        let db = Database::create(test).await?;
        let url = db.url();
        let (a, a_store) = instance(&url, lease_seconds).await;
        let (b, b_store) = instance(&url, lease_seconds).await;
        let created = a.create_table(request).await.unwrap_or_else(|e| panic!("{}", e.message));
        let on_a = links_on(&a, &created.seats);
        let on_b = links_on(&b, &created.seats);
        Some(Two { db, url, a, a_store, b, b_store, created, on_a, on_b })
    }
}

/// Shuts both instances down, then drops the test's database.
async fn stop(db: Database, instances: [Running; 2]) {
    for s in instances {
        s.shutdown().await.unwrap();
    }
    db.drop_it().await;
}

/// The built-in duel, with its bots' think delay.
fn duel(seats: BTreeMap<String, Controller>, think_ms: u32) -> CreateTable {
    CreateTable {
        system: "iron-triangle".into(),
        setup: SetupSource::Example("duel".into()),
        seats,
        options: TableOptions { decision_seconds: None, think_ms, ..Default::default() },
        rules: Default::default(),
    }
}

/// The next message that is not a seats notice, within a few seconds.
async fn next(client: &mut Client) -> ServerMessage {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(15), client.next())
            .await
            .expect("a message within 15 s")
            .expect("the server keeps the connection");
        if !matches!(m, ServerMessage::Seats { .. }) {
            return m;
        }
    }
}

/// Joins with `link` and returns the client and its welcome's change.
async fn join(link: &str) -> (Client, Change) {
    let mut client = Client::join(link, 0).await.expect("connects");
    match next(&mut client).await {
        ServerMessage::Welcome { change, .. } => (client, change),
        other => panic!("a welcome, not {other:?}"),
    }
}

/// The first legal choice of the prompt of `change`.
fn first_choice(change: &Change) -> Value {
    change.prompt.as_ref().expect("a prompt")["choices"][0]["command"].clone()
}

/// The stored journal's requests as JSON: every entry after the table's first, which keeps its
/// server seed (`verifiable`) and is no request.
async fn journal_of(url: &str, table: &str) -> Vec<Value> {
    let store = PgTables::open(url).await.unwrap();
    let stored = store.load(TableId(table.parse().unwrap())).await.unwrap();
    store.close().await;
    let journal: Vec<Value> = stored.journal.iter().map(|e| serde_json::from_str(e).unwrap()).collect();
    assert_eq!(journal.first().map(|e| e["op"].clone()), Some(Value::from("verifiable")), "{journal:?}");
    journal.into_iter().skip(1).collect()
}

/// A client's ids appear at most once in the journal: nothing applied twice.
fn assert_no_duplicates(journal: &[Value]) {
    let ids: Vec<&str> = journal.iter().filter_map(|e| e["id"].as_str()).collect();
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "a client id twice in the journal: {journal:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_on_each_instance_play_one_table_together() {
    let Some(Two { db, url, a, b, created, on_a, on_b, .. }) =
        Two::start("a_seat_on_each_instance_play_one_table_together", 10, duel(BTreeMap::new(), 20)).await
    else {
        return;
    };
    // Seat 0 on the first instance, seat 1 on the second.
    let seen = play_all(vec![on_a[0].clone(), on_b[1].clone()], None).await;
    for s in &seen {
        assert!(s.over, "{:?} played to the end across the two instances", s.who);
    }
    let journal = journal_of(&url, &created.table).await;
    assert_no_duplicates(&journal);
    assert!(journal.iter().any(|e| e["seat"] == 0) && journal.iter().any(|e| e["seat"] == 1));
    stop(db, [a, b]).await;
}

/// Both instances apply a command at the same journal number: the database keeps one; the
/// other instance reads the table again and applies its command after it (the rules accept
/// it), its client acknowledged — one entry each, nothing lost or twice. Then a seat's second
/// device on the deaf instance races its first: answered, and still nothing twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_racing_at_one_number_keep_one_entry_each() {
    let Some(Two { db, url, a, b, created, on_a, on_b, b_store, .. }) =
        Two::start("instances_racing_at_one_number_keep_one_entry_each", 10, duel(BTreeMap::new(), 20)).await
    else {
        return;
    };
    let (mut zero, start0) = join(&on_a[0]).await;
    let (mut one, start1) = join(&on_b[1]).await;
    assert!(start0.awaiting.contains(&0) && start0.awaiting.contains(&1), "both seats choose at once");
    // The second instance hears nothing of the first from here on.
    b_store.deaf.store(true, Ordering::SeqCst);
    zero.send(&ClientMessage::Command { id: "zero-1".into(), command: first_choice(&start0) }).await.unwrap();
    loop {
        match next(&mut zero).await {
            ServerMessage::Ack { id, .. } if id == "zero-1" => break,
            ServerMessage::Update { .. } => {}
            other => panic!("seat 0: {other:?}"),
        }
    }
    assert_eq!(journal_of(&url, &created.table).await.len(), 1);
    // The deaf instance still has only the table's first entry: it applies at number 1 and is
    // refused.
    one.send(&ClientMessage::Command { id: "one-1".into(), command: first_choice(&start1) }).await.unwrap();
    loop {
        match next(&mut one).await {
            ServerMessage::Ack { id, seq } if id == "one-1" => {
                assert!(seq >= 2, "acknowledged after seat 0's entry: {seq}");
                break;
            }
            ServerMessage::Update { .. } => {}
            other => panic!("seat 1 is answered after the catch-up, not {other:?}"),
        }
    }
    let journal = journal_of(&url, &created.table).await;
    assert_eq!(journal.len(), 2, "one entry each: {journal:?}");
    assert_eq!((journal[0]["seat"].as_u64(), journal[0]["id"].as_str()), (Some(0), Some("zero-1")));
    assert_eq!((journal[1]["seat"].as_u64(), journal[1]["id"].as_str()), (Some(1), Some("one-1")));
    // The first instance heard the second's entry: seat 0 sees the reveal too.
    let mut zero_seq = 0;
    while zero_seq < 2 {
        match next(&mut zero).await {
            ServerMessage::Update { change } => zero_seq = change.seq,
            other => panic!("seat 0: {other:?}"),
        }
    }

    // Seat 1's link on both instances, the second still deaf: both answer the next decision.
    let (mut one_on_a, now_a) = join(&on_a[1]).await;
    let Some(choice) = now_a.prompt.as_ref().map(|_| first_choice(&now_a)) else {
        panic!("seat 1 is asked again: {now_a:?}")
    };
    one_on_a.send(&ClientMessage::Command { id: "one-2".into(), command: choice.clone() }).await.unwrap();
    loop {
        match next(&mut one_on_a).await {
            ServerMessage::Ack { id, .. } if id == "one-2" => break,
            ServerMessage::Update { .. } => {}
            other => panic!("seat 1 on the first instance: {other:?}"),
        }
    }
    one.send(&ClientMessage::Command { id: "one-3".into(), command: choice }).await.unwrap();
    let answered = loop {
        match next(&mut one).await {
            ServerMessage::Ack { id, .. } if id == "one-3" => break "applied",
            ServerMessage::Error { id: Some(id), code: ErrorCode::Refused, .. } if id == "one-3" => {
                break "refused";
            }
            ServerMessage::Update { .. } => {}
            other => panic!("seat 1 on the deaf instance: {other:?}"),
        }
    };
    let journal = journal_of(&url, &created.table).await;
    assert_no_duplicates(&journal);
    let last = journal.iter().filter(|e| e["id"] == "one-3").count();
    assert_eq!(last, usize::from(answered == "applied"), "{answered}: {journal:?}");
    // A fresh instance replays the journal whole.
    let (c, _) = instance(&url, 10).await;
    let (_, replayed) = join(&links_on(&c, &created.seats)[0]).await;
    assert!(replayed.seq >= 2);
    for s in [a, b, c] {
        s.shutdown().await.unwrap();
    }
    db.drop_it().await;
}

/// Notices dropped while an instance is deaf are made good when it is told it missed some.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missed_notice_is_caught_up_from_the_journal() {
    let Some(db) = Database::create("a_missed_notice_is_caught_up_from_the_journal").await else { return };
    let url = db.url();
    let (a, _) = instance(&url, 10).await;
    let (b, b_store) = instance(&url, 10).await;
    let created = a.create_table(duel(BTreeMap::new(), 20)).await.unwrap_or_else(|e| panic!("{}", e.message));
    let (mut zero, start0) = join(&links_on(&a, &created.seats)[0]).await;
    let (mut one, start1) = join(&links_on(&b, &created.seats)[1]).await;
    // The second instance tells every instance that seat 1's link opened there; let that notice
    // reach the first before the link opens there too, or the first instance would take its
    // own new connection over as the older one.
    tokio::time::sleep(Duration::from_millis(500)).await;
    b_store.deaf.store(true, Ordering::SeqCst);
    // Seat 1 decides through the first instance too (its link opened there as well).
    let mut one_on_a = Client::join(&links_on(&a, &created.seats)[1], 0).await.unwrap();
    for (client, change, id) in [(&mut zero, &start0, "z1"), (&mut one_on_a, &start1, "o1")] {
        client.send(&ClientMessage::Command { id: id.into(), command: first_choice(change) }).await.unwrap();
    }
    for (client, id) in [(&mut zero, "z1"), (&mut one_on_a, "o1")] {
        loop {
            match next(client).await {
                ServerMessage::Ack { id: got, .. } if got == id => break,
                ServerMessage::Update { .. } | ServerMessage::Welcome { .. } => {}
                other => panic!("{id}: {other:?}"),
            }
        }
    }
    // Nothing reaches the deaf instance's client...
    let quiet = tokio::time::timeout(Duration::from_millis(800), one.next()).await;
    assert!(
        !matches!(quiet, Ok(Ok(ServerMessage::Update { .. }))),
        "a deaf instance hears nothing: {quiet:?}"
    );
    // ...until it is told it may have missed notices: then it reads the journal.
    b_store.hear_again();
    let mut seq = 0;
    while seq < 2 {
        match next(&mut one).await {
            ServerMessage::Update { change } => seq = change.seq,
            other => panic!("seat 1 on the second instance: {other:?}"),
        }
    }
    stop(db, [a, b]).await;
}

/// How many journal entries `table` has.
async fn entries(c: &mut PgConnection, table: i64) -> i64 {
    // The requests: the table's first entry keeps its server seed.
    let (n,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM server_journal WHERE table_id = $1 AND entry::jsonb ->> 'op' <> 'verifiable'",
    )
    .bind(table)
    .fetch_one(c)
    .await
    .unwrap();
    n
}

/// Who holds the lease of `table` (`None`: nobody).
async fn lease_holder(url: &str, table: &str) -> Option<String> {
    let mut c = PgConnection::connect(url).await.unwrap();
    let row: Option<(String,)> = sqlx::query_as("SELECT holder FROM server_leases WHERE table_id = $1")
        .bind(table.parse::<i64>().unwrap())
        .fetch_optional(&mut c)
        .await
        .unwrap();
    c.close().await.unwrap();
    row.map(|(h,)| h)
}

/// A table with a bot, created on the first instance (which loads it, holds its lease and
/// runs the bot); a person plays some turns through it; the first instance dies — cut off the
/// database, so its lease is not renewed or given up, then stopped. The person reconnects to
/// the second instance and plays on to the end: the second took the lease over once it
/// expired and runs the bot, and the person is given back everything it saw.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_the_lease_holder_dies_the_other_instance_runs_the_bots_and_its_clients_play_on() {
    let test = "when_the_lease_holder_dies_the_other_instance_runs_the_bots_and_its_clients_play_on";
    let Some(db) = Database::create(test).await else { return };
    let url = db.url();
    let (a, a_store) = instance(&url, 2).await;
    let (b, _) = instance(&url, 2).await;
    let bots = BTreeMap::from([("gm".to_owned(), Controller::Bot { bot: "greedy".into() })]);
    // The bot thinks long enough that it still has a choice to make when the person's third
    // command is acknowledged: its instance holds the lease then.
    let created = a.create_table(duel(bots, 600)).await.unwrap_or_else(|e| panic!("{}", e.message));
    let person: Vec<String> =
        created.seats.iter().filter(|(name, _)| *name != "gm").map(|(_, l)| l.clone()).collect();
    assert_eq!(person.len(), 1);
    let people = BTreeMap::from([("ada".to_owned(), person[0].clone())]);
    let before = play_all(links_on(&a, &people), Some(3)).await;
    assert!(before.iter().all(|s| !s.over && !s.items.is_empty()), "the game is under way");
    let first_holder = lease_holder(&url, &created.table).await.expect("the first instance holds the lease");

    a_store.cut.store(true, Ordering::SeqCst);
    a.shutdown().await.unwrap();

    let after = play_all(links_on(&b, &people), None).await;
    for (b4, af) in before.iter().zip(&after) {
        assert!(af.over, "played to the end through the second instance");
        for (seq, item) in &b4.items {
            assert_eq!(af.items.get(seq), Some(item), "item {seq} is given back as it was seen");
        }
        assert!(af.items.len() > b4.items.len());
    }
    let journal = journal_of(&url, &created.table).await;
    assert_no_duplicates(&journal);
    let holder = lease_holder(&url, &created.table).await;
    assert!(holder.as_ref() != Some(&first_holder), "the lease changed hands: {holder:?}");
    b.shutdown().await.unwrap();
    db.drop_it().await;
}

/// Only the holder of a table's lease runs its bots: while an instance that was cut off the
/// database still holds it, the other instance's bot waits — and moves once the lease expired.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_waits_while_another_instance_holds_the_lease() {
    let Some(db) = Database::create("a_bot_waits_while_another_instance_holds_the_lease").await else {
        return;
    };
    let url = db.url();
    let (a, a_store) = instance(&url, 6).await;
    let (b, _) = instance(&url, 6).await;
    let bots = BTreeMap::from([("gm".to_owned(), Controller::Bot { bot: "greedy".into() })]);
    // The bot thinks 2 s: the first instance, which loaded the table at once, holds the lease
    // for its bot when it is cut off.
    let created = a.create_table(duel(bots, 2000)).await.unwrap_or_else(|e| panic!("{}", e.message));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(lease_holder(&url, &created.table).await.is_some());
    a_store.cut.store(true, Ordering::SeqCst);
    let cut_at = tokio::time::Instant::now();
    let table = created.table.parse::<i64>().unwrap();
    let mut db_conn = PgConnection::connect(&url).await.unwrap();
    assert_eq!(entries(&mut db_conn, table).await, 0, "the bot had not moved when its instance was cut");
    // The person joins through the second instance, which loads the table: its bot is
    // awaited, and the person makes no move, so the first entry is the bot's, made there.
    let ada = BTreeMap::from([("ada".to_owned(), created.seats["ada"].clone())]);
    let (client, _) = join(&links_on(&b, &ada)[0]).await;
    let moved = loop {
        if entries(&mut db_conn, table).await > 0 {
            break cut_at.elapsed();
        }
        assert!(cut_at.elapsed() < Duration::from_secs(30), "the bot moves once the lease expired");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    db_conn.close().await.unwrap();
    // Renewed at most 2 s before the cut, the lease (6 s) expires at least 4 s after it; the
    // second instance's bot, if it did not wait for the lease, would have moved 2 s after the
    // table was loaded there.
    assert!(
        moved >= Duration::from_millis(3500),
        "the bot moved {moved:?} after its holder was cut: before the lease could expire"
    );
    client.close().await;
    stop(db, [a, b]).await;
}

/// What `client` is sent until the answer to request `id`: the answer, and the highest
/// sequence number of the updates before it.
async fn answer_to(client: &mut Client, id: &str) -> (ServerMessage, u64) {
    let mut seq = 0;
    loop {
        match next(client).await {
            ServerMessage::Update { change } => seq = seq.max(change.seq),
            ServerMessage::Sealed { .. } | ServerMessage::Bound { .. } => {}
            m @ ServerMessage::Ack { .. } if m_id(&m) == Some(id) => return (m, seq),
            m @ ServerMessage::Error { .. } if m_id(&m) == Some(id) => return (m, seq),
            other => panic!("waiting for the answer to {id}: {other:?}"),
        }
    }
}

fn m_id(m: &ServerMessage) -> Option<&str> {
    match m {
        ServerMessage::Ack { id, .. } => Some(id),
        ServerMessage::Error { id, .. } => id.as_deref(),
        _ => None,
    }
}

/// The instance that created a table holds its lease and applies its requests: a request sent
/// to the other instance — which cannot commit anything here, so it can only forward — is
/// applied once by the holder and acknowledged on the connection it came from, after the
/// update carrying it; a refusal comes back the same way; a retry of an id already applied,
/// on either instance, is answered as the first time and applied once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_at_the_instance_without_the_lease_is_applied_by_the_holder_and_answered_once() {
    let test = "a_request_at_the_instance_without_the_lease_is_applied_by_the_holder_and_answered_once";
    let Some(Two { db, url, a, b, created, on_a, on_b, b_store, .. }) =
        Two::start(test, 10, duel(BTreeMap::new(), 20)).await
    else {
        return;
    };
    let (mut zero, start0) = join(&on_a[0]).await;
    let (mut one, start1) = join(&on_b[1]).await;
    let holder = lease_holder(&url, &created.table).await.expect("the creating instance holds the lease");
    b_store.no_commits.store(true, Ordering::SeqCst);

    // A refusal, from the holder, on the connection the request came from.
    one.send(&ClientMessage::Command { id: "nonsense-1".into(), command: serde_json::json!({"no": "such"}) })
        .await
        .unwrap();
    match answer_to(&mut one, "nonsense-1").await.0 {
        ServerMessage::Error { code: ErrorCode::Refused, .. } => {}
        other => panic!("the holder's refusal: {other:?}"),
    }
    // Applied by the holder (the other commits nothing), acknowledged where it came from.
    one.send(&ClientMessage::Command { id: "one-1".into(), command: first_choice(&start1) }).await.unwrap();
    let (ack, _) = answer_to(&mut one, "one-1").await;
    let ServerMessage::Ack { seq, .. } = ack else { panic!("acknowledged: {ack:?}") };
    let journal = journal_of(&url, &created.table).await;
    assert_eq!(journal.len(), 1, "{journal:?}");
    assert_eq!((journal[0]["seat"].as_u64(), journal[0]["id"].as_str()), (Some(1), Some("one-1")));
    // The retry on the same instance: the first answer again, nothing more.
    one.send(&ClientMessage::Command { id: "one-1".into(), command: first_choice(&start1) }).await.unwrap();
    assert_eq!(answer_to(&mut one, "one-1").await.0, ServerMessage::Ack { id: "one-1".into(), seq });
    // Seat 0 on the holder decides; seat 1 sees the reveal through the other instance.
    zero.send(&ClientMessage::Command { id: "zero-1".into(), command: first_choice(&start0) }).await.unwrap();
    let (ack, _) = answer_to(&mut zero, "zero-1").await;
    assert!(matches!(ack, ServerMessage::Ack { .. }), "{ack:?}");
    let mut seen = 0;
    while seen < 2 {
        if let ServerMessage::Update { change } = next(&mut one).await {
            seen = change.seq;
        }
    }
    // The retry from seat 1's second device, on the holder (which takes the seat over from
    // the first): the first answer again, nothing more.
    let (mut one_on_a, _) = join(&on_a[1]).await;
    one_on_a
        .send(&ClientMessage::Command { id: "one-1".into(), command: first_choice(&start1) })
        .await
        .unwrap();
    assert_eq!(answer_to(&mut one_on_a, "one-1").await.0, ServerMessage::Ack { id: "one-1".into(), seq });
    let journal = journal_of(&url, &created.table).await;
    assert_eq!(journal.len(), 2, "one entry each: {journal:?}");
    assert_no_duplicates(&journal);
    assert_eq!(lease_holder(&url, &created.table).await, Some(holder), "the lease stayed where it was");
    stop(db, [a, b]).await;
}

/// Mid-play, the instance holding the lease dies (cut off the database): a request the other
/// forwarded to it is applied once all the same — by the other, which takes the table over —
/// and both seats play on to the end through the survivor.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_the_holder_dies_mid_play_the_other_applies_and_play_goes_on() {
    let test = "when_the_holder_dies_mid_play_the_other_applies_and_play_goes_on";
    let Some(Two { db, url, a, b, created, on_a, on_b, a_store, .. }) =
        Two::start(test, 3, duel(BTreeMap::new(), 20)).await
    else {
        return;
    };
    let (_zero, _) = join(&on_a[0]).await;
    let (mut one, start1) = join(&on_b[1]).await;
    let first_holder =
        lease_holder(&url, &created.table).await.expect("the creating instance holds the lease");
    a_store.cut.store(true, Ordering::SeqCst);
    one.send(&ClientMessage::Command { id: "one-1".into(), command: first_choice(&start1) }).await.unwrap();
    let (ack, _) = answer_to(&mut one, "one-1").await;
    assert!(matches!(ack, ServerMessage::Ack { .. }), "applied by the survivor: {ack:?}");
    a.shutdown().await.unwrap();
    drop(one);
    let seen = play_all(on_b.clone(), None).await;
    for s in &seen {
        assert!(s.over, "{:?} played to the end through the survivor", s.who);
    }
    let journal = journal_of(&url, &created.table).await;
    assert_no_duplicates(&journal);
    assert_eq!(journal.iter().filter(|e| e["id"] == "one-1").count(), 1, "{journal:?}");
    let holder = lease_holder(&url, &created.table).await;
    assert!(holder.as_ref() != Some(&first_holder), "the lease changed hands: {holder:?}");
    b.shutdown().await.unwrap();
    db.drop_it().await;
}

/// Sealed seats through the instance without the lease behave as on the holder: the clear
/// command refused (`sealed_seat`), the seal acknowledged once the holder kept it, a reveal
/// before the round is bound refused (`not_bound`), the reveal after it acknowledged — all
/// applied by the holder (the other cannot commit).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sealed_seals_and_reveals_forwarded_to_the_holder_behave_as_local_ones() {
    let test = "sealed_seals_and_reveals_forwarded_to_the_holder_behave_as_local_ones";
    let mut request = duel(BTreeMap::new(), 20);
    request.options.modes =
        [("ada".to_owned(), SeatMode::Sealed), ("gm".to_owned(), SeatMode::Sealed)].into();
    request.options.opening_round = Some(false);
    let Some(Two { db, url, a, b, created, on_a, on_b, b_store, .. }) = Two::start(test, 10, request).await
    else {
        return;
    };
    let (mut zero, start0) = join(&on_a[0]).await;
    let (mut one, start1) = join(&on_b[1]).await;
    b_store.no_commits.store(true, Ordering::SeqCst);
    let refused = |m: ServerMessage, want: ErrorCode| match m {
        ServerMessage::Error { code, .. } if code == want => {}
        other => panic!("refused with {want:?}, not {other:?}"),
    };

    let choice1 = first_choice(&start1);
    one.send(&ClientMessage::Command { id: "clear-1".into(), command: choice1.clone() }).await.unwrap();
    refused(answer_to(&mut one, "clear-1").await.0, ErrorCode::SealedSeat);
    let (commitment1, nonce1) = server::client::seal(&choice1).unwrap();
    one.send(&ClientMessage::Seal { id: "s1".into(), commitment: commitment1.to_string() }).await.unwrap();
    assert!(matches!(answer_to(&mut one, "s1").await.0, ServerMessage::Ack { .. }));
    let reveal1 = ClientMessage::Reveal { id: "r2".into(), command: choice1, nonce: nonce1.to_string() };
    one.send(&reveal1).await.unwrap();
    refused(answer_to(&mut one, "r2").await.0, ErrorCode::NotBound);

    let choice0 = first_choice(&start0);
    let (commitment0, nonce0) = server::client::seal(&choice0).unwrap();
    zero.send(&ClientMessage::Seal { id: "s5".into(), commitment: commitment0.to_string() }).await.unwrap();
    assert!(matches!(answer_to(&mut zero, "s5").await.0, ServerMessage::Ack { .. }));
    // Bound: the item of kind `bound`, then the `bound` message, reach the other instance's
    // seat as they reach the holder's. Then the reveal again, with a new id, through the
    // instance without the lease.
    let mut item = false;
    loop {
        match next(&mut one).await {
            ServerMessage::Update { change } if change.updates.iter().any(|u| u["kind"] == "bound") => {
                item = true
            }
            ServerMessage::Bound { commitments } => {
                assert!(item, "the bound item comes before the message");
                assert_eq!(commitments.len(), 2);
                break;
            }
            _ => {}
        }
    }
    let ClientMessage::Reveal { command, nonce, .. } = reveal1 else { unreachable!() };
    one.send(&ClientMessage::Reveal { id: "r3".into(), command, nonce }).await.unwrap();
    // Seat 1's reveal, applied by the holder: the seat on the other instance is told the round
    // now waits for seat 0 alone, then answered.
    let mut told = None;
    loop {
        match next(&mut one).await {
            ServerMessage::Sealed { awaiting, .. } => told = Some(awaiting),
            m @ ServerMessage::Ack { .. } if m_id(&m) == Some("r3") => break,
            ServerMessage::Update { .. } => {}
            other => panic!("waiting for the answer to r1b: {other:?}"),
        }
    }
    assert_eq!(told, Some(vec![0]));
    zero.send(&ClientMessage::Reveal { id: "r6".into(), command: choice0, nonce: nonce0.to_string() })
        .await
        .unwrap();
    assert!(matches!(answer_to(&mut zero, "r6").await.0, ServerMessage::Ack { .. }));
    let journal = journal_of(&url, &created.table).await;
    let ids: Vec<&str> = journal.iter().filter_map(|e| e["id"].as_str()).collect();
    assert_eq!(ids, vec!["s1", "s5", "r3", "r6"], "{journal:?}");
    stop(db, [a, b]).await;
}

/// A seat's link opened on the second instance takes the seat over from the device on the
/// first, as on one instance: the first is told (`taken_over`) and closed, the second plays.
/// The spectators' link is shared and takes nothing over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_opened_on_the_other_instance_takes_the_seat_over() {
    let test = "a_link_opened_on_the_other_instance_takes_the_seat_over";
    let Some(Two { db, a, b, created, on_a, on_b, .. }) =
        Two::start(test, 10, duel(BTreeMap::new(), 20)).await
    else {
        return;
    };
    let (mut first, _) = join(&on_a[0]).await;
    let spectators_a = {
        let (_, table, token) = server::protocol::parse_link(&created.spectator).unwrap();
        server::protocol::link(&a.base_url, &table, &token)
    };
    let spectators_b = {
        let (_, table, token) = server::protocol::parse_link(&created.spectator).unwrap();
        server::protocol::link(&b.base_url, &table, &token)
    };
    let (mut watching, _) = join(&spectators_a).await;
    let (_also_watching, _) = join(&spectators_b).await;
    let (mut second, start) = join(&on_b[0]).await;
    loop {
        match tokio::time::timeout(Duration::from_secs(15), first.next()).await.expect("told within 15 s") {
            Ok(ServerMessage::TakenOver {}) => break,
            Ok(_) => {}
            Err(e) => panic!("the first device was closed without being told: {e}"),
        }
    }
    // The second device plays on; the spectators on the first instance still watch.
    let choice = first_choice(&start);
    second.send(&ClientMessage::Command { id: "c1".into(), command: choice }).await.unwrap();
    assert!(matches!(answer_to(&mut second, "c1").await.0, ServerMessage::Ack { .. }));
    loop {
        if let ServerMessage::Update { change } = next(&mut watching).await
            && !change.updates.is_empty()
        {
            break;
        }
    }
    stop(db, [a, b]).await;
}

/// Waits for the acknowledgement of `client`'s request `id`; returns the last change received
/// meanwhile.
async fn acked(client: &mut Client, id: &str) -> Option<Change> {
    let mut last = None;
    loop {
        match next(client).await {
            ServerMessage::Ack { id: got, .. } if got == id => return last,
            ServerMessage::Update { change } => last = Some(change),
            ServerMessage::Ack { .. } => {}
            other => panic!("{id}: {other:?}"),
        }
    }
}

/// A seat on each instance answers the same prompt: the instance holding the lease waits for
/// the other seat's decision, forwarded by the other instance, and keeps both by one commit
/// (docs/performance-history.md, round 9) — as two seats on one instance do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decisions_from_a_seat_on_each_instance_share_one_commit_of_the_lease_holder() {
    let test = "decisions_from_a_seat_on_each_instance_share_one_commit_of_the_lease_holder";
    let Some(db) = Database::create(test).await else { return };
    let url = db.url();
    // A long wait, so that the forwarded decision surely arrives within it.
    let hold = Duration::from_secs(2);
    let (a, a_store) = instance_holding(&url, 10, hold).await;
    let (b, b_store) = instance_holding(&url, 10, hold).await;
    let created = a.create_table(duel(BTreeMap::new(), 20)).await.unwrap_or_else(|e| panic!("{}", e.message));
    let (on_a, on_b) = (links_on(&a, &created.seats), links_on(&b, &created.seats));
    let (mut zero, start0) = join(&on_a[0]).await;
    let (mut one, start1) = join(&on_b[1]).await;
    assert!(start0.awaiting.contains(&0) && start0.awaiting.contains(&1), "both seats choose at once");
    // The stances first: by the time both are answered, each instance has heard of the other's
    // connection (a notice that, arriving while a decision waits, would end the wait). A stance
    // of 1 each (the second choice; with none, no move follows).
    let stance = |c: &Change| c.prompt.as_ref().expect("a prompt")["choices"][1]["command"].clone();
    zero.send(&ClientMessage::Command { id: "zero-1".into(), command: stance(&start0) }).await.unwrap();
    one.send(&ClientMessage::Command { id: "one-1".into(), command: stance(&start1) }).await.unwrap();
    let (seen0, seen1) = (acked(&mut zero, "zero-1").await, acked(&mut one, "one-1").await);
    // Then the moves, asked of both at once.
    let (moves0, moves1) = (asked_with(&mut zero, seen0, 1).await, asked_with(&mut one, seen1, 0).await);
    let holder = lease_holder(&url, &created.table).await.expect("a lease is held");
    let before =
        (a_store.journal_commits.load(Ordering::SeqCst), b_store.journal_commits.load(Ordering::SeqCst));
    zero.send(&ClientMessage::Command { id: "zero-2".into(), command: first_choice(&moves0) }).await.unwrap();
    one.send(&ClientMessage::Command { id: "one-2".into(), command: first_choice(&moves1) }).await.unwrap();
    acked(&mut zero, "zero-2").await;
    acked(&mut one, "one-2").await;
    let after =
        (a_store.journal_commits.load(Ordering::SeqCst), b_store.journal_commits.load(Ordering::SeqCst));
    assert_eq!(
        (after.0 - before.0) + (after.1 - before.1),
        1,
        "one commit kept both decisions (the holder's: {holder}), not one each: {before:?} → {after:?}"
    );
    let journal = journal_of(&url, &created.table).await;
    assert_eq!(journal.len(), 4, "{journal:?}");
    assert_no_duplicates(&journal);
    stop(db, [a, b]).await;
}

/// The change that asks `client` for a decision together with seat `other`: `seen`, the last
/// one it received, or the next such.
async fn asked_with(client: &mut Client, seen: Option<Change>, other: u16) -> Change {
    let asks = |c: &Change| c.prompt.is_some() && c.awaiting.contains(&other);
    if let Some(change) = seen.filter(|c| asks(c)) {
        return change;
    }
    loop {
        match next(client).await {
            ServerMessage::Update { change } if asks(&change) => return change,
            ServerMessage::Update { .. } | ServerMessage::Ack { .. } => {}
            m => panic!("waiting to be asked: {m:?}"),
        }
    }
}

/// Two seats' decisions kept together by the lease holder lose the race for their journal
/// numbers (another writer kept one of them first: here the same request of seat 0, as if the
/// other instance applied it when forwarding went unanswered). The holder reads the table
/// again and keeps each again alone: seat 0's is answered as the other kept it, seat 1's is
/// applied after it — one entry each, nothing lost or applied twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decisions_kept_together_that_lose_the_race_are_kept_again_one_at_a_time() {
    let test = "decisions_kept_together_that_lose_the_race_are_kept_again_one_at_a_time";
    let Some(db) = Database::create(test).await else { return };
    let url = db.url();
    let (a, _) = instance_holding(&url, 10, Duration::from_secs(2)).await;
    let created = a.create_table(duel(BTreeMap::new(), 20)).await.unwrap_or_else(|e| panic!("{}", e.message));
    let links = links_on(&a, &created.seats);
    let (mut zero, start0) = join(&links[0]).await;
    let (mut one, start1) = join(&links[1]).await;
    let (command0, command1) = (first_choice(&start0), first_choice(&start1));
    // Seat 0's request, kept at number 1 behind the instance's back (no notice).
    let entry = serde_json::json!({"op": "submit", "seat": 0, "command": command0, "id": "zero-1"});
    let mut c = PgConnection::connect(&url).await.unwrap();
    sqlx::query("INSERT INTO server_journal (table_id, n, entry) VALUES ($1, 1, $2)")
        .bind(created.table.parse::<i64>().unwrap())
        .bind(entry.to_string())
        .execute(&mut c)
        .await
        .unwrap();
    c.close().await.unwrap();
    zero.send(&ClientMessage::Command { id: "zero-1".into(), command: command0 }).await.unwrap();
    one.send(&ClientMessage::Command { id: "one-1".into(), command: command1 }).await.unwrap();
    acked(&mut zero, "zero-1").await;
    acked(&mut one, "one-1").await;
    let journal = journal_of(&url, &created.table).await;
    assert_eq!(journal.len(), 2, "one entry each: {journal:?}");
    assert_no_duplicates(&journal);
    assert_eq!((journal[0]["seat"].as_u64(), journal[0]["id"].as_str()), (Some(0), Some("zero-1")));
    assert_eq!((journal[1]["seat"].as_u64(), journal[1]["id"].as_str()), (Some(1), Some("one-1")));
    a.shutdown().await.unwrap();
    db.drop_it().await;
}
