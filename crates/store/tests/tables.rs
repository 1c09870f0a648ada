//! `SqliteTables`, the server's table store (issue 15): tables, access rows and journals read
//! back as written; journal numbers checked; group commit (many requests, one transaction, a
//! refused request failing alone); everything acknowledged still there after a reopen and after
//! the writing process is killed with SIGKILL.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::RngExt;
use sqlx::Connection;
use store::tables::{Access, NewTable, TableId, TableStore, Write};
use store::{PersistError, SqliteTables};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

fn db(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("server.sqlite")
}

fn access(who: &str, token: Option<&str>, controller: &str) -> Access {
    Access { who: who.into(), token_hash: token.map(Into::into), controller: controller.into() }
}

fn new_table(i: u64) -> NewTable {
    NewTable {
        ruleset: "iron-triangle".into(),
        ruleset_version: "0.1.0".into(),
        setup: format!(r#"{{"fighters":["ada","bandit"],"i":{i}}}"#),
        options: r#"{"edition":"current","timer_s":null}"#.into(),
        // Ordered by `who`, as the store gives them back.
        access: vec![
            access("gm", Some("aa11"), "null"),
            access("seat:0", Some("bb22"), r#"{"person":null}"#),
            access("seat:1", Some("cc33"), r#"{"bot":"greedy"}"#),
            access("spectator", Some("dd44"), "null"),
        ],
    }
}

/// A journal entry of about 200 bytes, different for every table and number.
fn entry(table: TableId, n: u64) -> String {
    format!(
        r#"{{"table":{},"n":{n},"seat":{},"command":{{"Commit":{{"stance":"aggressive","move":"sweeping strike"}}}},"client":"c-{:016x}","pad":"{}"}}"#,
        table.0,
        n % 2,
        table.0.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ n,
        "x".repeat(40)
    )
}

fn journal(table: TableId, n: u64) -> Write {
    Write::Journal { table, n, entry: entry(table, n) }
}

#[test]
fn a_table_reads_back_as_created_and_committed() {
    let dir = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let s = SqliteTables::open(&db(&dir)).await.unwrap();
        let a = s.create_table(&new_table(1)).await.unwrap();
        let b = s.create_table(&new_table(2)).await.unwrap();
        assert_ne!(a, b);

        let fresh = s.load(a).await.unwrap();
        assert_eq!(fresh.id, a);
        assert_eq!(fresh.table, new_table(1));
        assert!(fresh.journal.is_empty());
        assert!(!fresh.finished);

        // One commit, several entries; the other table's journal is its own.
        s.commit(vec![journal(a, 0), journal(a, 1), journal(b, 0)]).await.unwrap();
        s.commit(vec![journal(a, 2)]).await.unwrap();
        let loaded = s.load(a).await.unwrap();
        assert_eq!(loaded.journal, vec![entry(a, 0), entry(a, 1), entry(a, 2)]);
        assert_eq!(s.load(b).await.unwrap().journal, vec![entry(b, 0)]);
        assert_eq!(s.open_tables().await.unwrap(), vec![a, b]);

        // An empty commit changes nothing.
        s.commit(Vec::new()).await.unwrap();
        assert_eq!(s.load(a).await.unwrap(), loaded);
        s.close().await;
    });
}

#[test]
fn journal_numbers_are_refused_on_a_gap_or_a_duplicate_and_nothing_of_the_commit_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let s = SqliteTables::open(&db(&dir)).await.unwrap();
        let t = s.create_table(&new_table(1)).await.unwrap();
        let other = s.create_table(&new_table(2)).await.unwrap();
        s.commit(vec![journal(t, 0), journal(t, 1)]).await.unwrap();

        // A gap, after a valid entry and an access change in the same commit: none of it kept.
        let gap = s
            .commit(vec![
                journal(t, 2),
                Write::Access { table: t, access: access("seat:0", None, "null") },
                journal(other, 0),
                journal(t, 4),
            ])
            .await;
        match gap {
            Err(e @ PersistError::JournalSequence { table, expected: 3, got: 4 }) if table == t => {
                let text = e.to_string();
                assert!(
                    text.contains(&format!("table {}", t.0)) && text.contains("4") && text.contains("3"),
                    "{text}"
                );
            }
            other => panic!("a gap: {other:?}"),
        }
        // A duplicate.
        match s.commit(vec![journal(t, 1)]).await {
            Err(PersistError::JournalSequence { table, expected: 2, got: 1 }) if table == t => {}
            other => panic!("a duplicate: {other:?}"),
        }
        let kept = s.load(t).await.unwrap();
        assert_eq!(kept.journal, vec![entry(t, 0), entry(t, 1)]);
        assert_eq!(kept.table.access, new_table(1).access, "the refused commit's access row is not kept");
        assert!(s.load(other).await.unwrap().journal.is_empty(), "nor its entry of another table");

        // The journal goes on from where it was.
        s.commit(vec![journal(t, 2)]).await.unwrap();
        assert_eq!(s.load(t).await.unwrap().journal.len(), 3);

        // No such table, for a commit and for a load.
        let none = TableId(999);
        assert!(matches!(s.commit(vec![journal(none, 0)]).await, Err(PersistError::NoTable(x)) if x == none));
        assert!(matches!(
            s.commit(vec![Write::Finished { table: none }]).await,
            Err(PersistError::NoTable(_))
        ));
        assert!(matches!(s.load(none).await, Err(PersistError::NoTable(_))));
        assert!(matches!(s.load(TableId(u64::MAX)).await, Err(PersistError::NoTable(_))));

        // Texts must be JSON, within the limits; numbers within the limit.
        let bad = Write::Journal { table: t, n: 3, entry: "not json".into() };
        assert!(matches!(
            s.commit(vec![bad]).await,
            Err(PersistError::NotJson { field: "journal entry", .. })
        ));
        let huge = Write::Journal { table: t, n: 3, entry: format!("\"{}\"", "x".repeat(2 << 20)) };
        assert!(matches!(s.commit(vec![huge]).await, Err(PersistError::Limit { .. })));
        let far = Write::Journal { table: t, n: u64::MAX, entry: "{}".into() };
        assert!(matches!(s.commit(vec![far]).await, Err(PersistError::Limit { .. })));
        let mut broken = new_table(3);
        broken.options = "{".into();
        assert!(matches!(s.create_table(&broken).await, Err(PersistError::NotJson { field: "options", .. })));
        assert_eq!(s.load(t).await.unwrap().journal.len(), 3);
        s.close().await;
    });
}

#[test]
fn one_refused_request_in_a_group_fails_alone_and_the_group_shares_few_syncs() {
    const N: u64 = 200;
    let dir = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let s = SqliteTables::open(&db(&dir)).await.unwrap();
        let mut tables = Vec::new();
        for i in 0..N {
            tables.push(s.create_table(&new_table(i)).await.unwrap());
        }
        let (syncs, acknowledged) = (s.syncs(), s.acknowledged());
        // Another connection holds the database's write lock, so the writer waits at its first
        // group's BEGIN while every commit is sent; then the rest make one group.
        let mut lock =
            sqlx::SqliteConnection::connect(&format!("sqlite://{}", db(&dir).display())).await.unwrap();
        sqlx::query("BEGIN IMMEDIATE").execute(&mut lock).await.unwrap();
        // Every task waits at the barrier, then all commit at once; every tenth is refused.
        let barrier = Arc::new(tokio::sync::Barrier::new(N as usize));
        let mut tasks = tokio::task::JoinSet::new();
        for (i, &t) in tables.iter().enumerate() {
            let (s, barrier) = (s.clone(), barrier.clone());
            tasks.spawn(async move {
                barrier.wait().await;
                let n = if i % 10 == 3 { 1 } else { 0 };
                (t, n, s.commit(vec![journal(t, n)]).await)
            });
        }
        // Bounded: 10 s.
        for _ in 0..10_000 {
            if s.in_flight() == N {
                break;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        assert_eq!(s.in_flight(), N, "every commit is sent");
        sqlx::query("COMMIT").execute(&mut lock).await.unwrap();
        let mut refused = 0;
        while let Some(done) = tasks.join_next().await {
            let (t, n, result) = done.unwrap();
            if n == 0 {
                result.unwrap();
                assert_eq!(s.load(t).await.unwrap().journal, vec![entry(t, 0)]);
            } else {
                refused += 1;
                assert!(matches!(result, Err(PersistError::JournalSequence { expected: 0, got: 1, .. })));
                assert!(s.load(t).await.unwrap().journal.is_empty());
            }
        }
        assert_eq!(refused, N / 10);
        let syncs = s.syncs() - syncs;
        assert_eq!(s.acknowledged() - acknowledged, N - N / 10);
        assert!(syncs <= 2, "{N} concurrent commits took {syncs} transactions: no group formed");
        assert_eq!(s.in_flight(), 0);
        s.close().await;
    });
}

#[test]
fn a_statement_failing_in_a_group_fails_only_its_own_request() {
    // Another connection appends an entry behind the writer's back, so the writer's cached next
    // number is stale: its group's insert fails on the primary key, and the group is written again
    // request by request.
    let dir = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let s = SqliteTables::open(&db(&dir)).await.unwrap();
        let stale = s.create_table(&new_table(1)).await.unwrap();
        let fine: Vec<TableId> =
            [s.create_table(&new_table(2)).await.unwrap(), s.create_table(&new_table(3)).await.unwrap()]
                .into();
        s.commit(vec![journal(stale, 0)]).await.unwrap();
        let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", db(&dir).display())).await.unwrap();
        sqlx::query("INSERT INTO server_journal (table_id, n, entry) VALUES (?, 1, ?)")
            .bind(stale.0 as i64)
            .bind(entry(stale, 1))
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;

        let (a, b, c) = tokio::join!(
            s.commit(vec![journal(fine[0], 0)]),
            s.commit(vec![journal(stale, 1)]),
            s.commit(vec![journal(fine[1], 0), journal(fine[1], 1)]),
        );
        a.unwrap();
        c.unwrap();
        match b {
            Err(PersistError::JournalSequence { table, expected: 2, got: 1 }) if table == stale => {}
            other => panic!("a duplicate the cache did not know of: {other:?}"),
        }
        assert_eq!(s.load(fine[0]).await.unwrap().journal.len(), 1);
        assert_eq!(s.load(fine[1]).await.unwrap().journal.len(), 2);
        // The writer learnt the real next number.
        s.commit(vec![journal(stale, 2)]).await.unwrap();
        assert_eq!(
            s.load(stale).await.unwrap().journal,
            vec![entry(stale, 0), entry(stale, 1), entry(stale, 2)]
        );
        s.close().await;
    });
}

#[test]
fn access_rows_are_replaced_or_added() {
    let dir = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let s = SqliteTables::open(&db(&dir)).await.unwrap();
        let t = s.create_table(&new_table(1)).await.unwrap();
        s.commit(vec![
            // Reissued link, then the seat handed to a bot: the last row for a `who` wins.
            Write::Access { table: t, access: access("seat:0", Some("ee55"), r#"{"person":null}"#) },
            Write::Access { table: t, access: access("seat:0", Some("ee55"), r#"{"bot":"random"}"#) },
            // Revoked.
            Write::Access { table: t, access: access("seat:1", None, r#"{"bot":"greedy"}"#) },
            // A late-joining seat.
            Write::Access { table: t, access: access("seat:2", Some("ff66"), r#"{"person":null}"#) },
            journal(t, 0),
        ])
        .await
        .unwrap();
        let rows = s.load(t).await.unwrap().table.access;
        assert_eq!(
            rows,
            vec![
                access("gm", Some("aa11"), "null"),
                access("seat:0", Some("ee55"), r#"{"bot":"random"}"#),
                access("seat:1", None, r#"{"bot":"greedy"}"#),
                access("seat:2", Some("ff66"), r#"{"person":null}"#),
                access("spectator", Some("dd44"), "null"),
            ]
        );
        let bad = Write::Access { table: t, access: access("seat:3", None, "{person}") };
        assert!(matches!(s.commit(vec![bad]).await, Err(PersistError::NotJson { field: "controller", .. })));
        s.close().await;
    });
}

#[test]
fn finished_tables_leave_the_open_tables() {
    let dir = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let s = SqliteTables::open(&db(&dir)).await.unwrap();
        let mut tables = Vec::new();
        for i in 0..4 {
            tables.push(s.create_table(&new_table(i)).await.unwrap());
        }
        s.commit(vec![journal(tables[1], 0), Write::Finished { table: tables[1] }]).await.unwrap();
        s.commit(vec![Write::Finished { table: tables[3] }]).await.unwrap();
        assert_eq!(s.open_tables().await.unwrap(), vec![tables[0], tables[2]]);
        let done = s.load(tables[1]).await.unwrap();
        assert!(done.finished);
        assert_eq!(done.journal, vec![entry(tables[1], 0)]);
        assert!(!s.load(tables[0]).await.unwrap().finished);
        s.close().await;
    });
}

#[test]
fn everything_reads_back_after_a_reopen_beside_the_games() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(&dir);
    let rt = runtime();
    let (written, open) = rt.block_on(async {
        // The games store shares the file and its migrations.
        let games = store::SqliteGames::open(&path).await.unwrap();
        let s = SqliteTables::open(&path).await.unwrap();
        let mut written = Vec::new();
        for i in 0..5u64 {
            let t = s.create_table(&new_table(i)).await.unwrap();
            let writes: Vec<Write> = (0..i * 3).map(|n| journal(t, n)).collect();
            s.commit(writes).await.unwrap();
            if i == 2 {
                s.commit(vec![Write::Finished { table: t }]).await.unwrap();
            }
            written.push(s.load(t).await.unwrap());
        }
        let open = s.open_tables().await.unwrap();
        assert_eq!(open.len(), 4);
        s.close().await;
        games.close().await;
        (written, open)
    });
    drop(rt);
    runtime().block_on(async {
        let s = SqliteTables::open(&path).await.unwrap();
        for table in &written {
            assert_eq!(&s.load(table.id).await.unwrap(), table);
        }
        assert_eq!(s.open_tables().await.unwrap(), open);
        // The journals go on where they stopped, and new tables get new numbers.
        let last = written.last().unwrap();
        s.commit(vec![journal(last.id, last.journal.len() as u64)]).await.unwrap();
        let t = s.create_table(&new_table(9)).await.unwrap();
        assert!(written.iter().all(|w| w.id != t));
        s.close().await;
    });
}

#[test]
fn two_thousand_tables_of_ten_entries_land_in_order() {
    const TABLES: u64 = 2000;
    const ENTRIES: u64 = 10;
    let dir = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let s = SqliteTables::open(&db(&dir)).await.unwrap();
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..TABLES {
            let s = s.clone();
            tasks.spawn(async move {
                let t = s.create_table(&new_table(i)).await?;
                for n in 0..ENTRIES {
                    s.commit(vec![journal(t, n)]).await?;
                }
                Ok::<_, PersistError>(t)
            });
        }
        let mut tables = Vec::new();
        while let Some(done) = tasks.join_next().await {
            tables.push(done.unwrap().unwrap());
        }
        tables.sort();
        tables.dedup();
        assert_eq!(tables.len() as u64, TABLES);
        for &t in &tables {
            let journal: Vec<String> = (0..ENTRIES).map(|n| entry(t, n)).collect();
            assert_eq!(s.load(t).await.unwrap().journal, journal, "{t}");
        }
        let requests = TABLES * (ENTRIES + 1);
        assert_eq!(s.acknowledged(), requests);
        assert!(s.syncs() < requests / 10, "{requests} requests took {} transactions", s.syncs());
        s.close().await;
    });
}

#[test]
fn a_stopped_writer_fails_commits_instead_of_hanging() {
    let dir = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let s = SqliteTables::open(&db(&dir)).await.unwrap();
        let t = s.create_table(&new_table(1)).await.unwrap();
        s.abort();
        let after = tokio::time::timeout(Duration::from_secs(10), s.commit(vec![journal(t, 0)])).await;
        assert!(
            matches!(after, Ok(Err(PersistError::Closed | PersistError::WriterLost))),
            "after the writer stopped: {after:?}"
        );
        // Reads still work; nothing was written.
        assert!(s.load(t).await.unwrap().journal.is_empty());

        let s = SqliteTables::open(&db(&dir)).await.unwrap();
        s.close().await;
        assert!(matches!(s.commit(vec![journal(t, 0)]).await, Err(PersistError::Closed)));
        assert!(matches!(s.create_table(&new_table(2)).await, Err(PersistError::Closed)));
    });
}

/// Set in the child process of the SIGKILL test: the database it writes.
const CHILD_DB: &str = "STORE_TABLES_CRASH_CHILD_DB";
const CRASH_TABLES: u64 = 16;

/// The writing child of `acknowledged_entries_survive_sigkill` (a no-op as a test of its own):
/// commits entries to every table from concurrent tasks and prints `kept T N` once each commit
/// has returned. Bounded: stops after 5 s or 4000 entries per table.
#[test]
fn crash_child() {
    let Some(path) = std::env::var_os(CHILD_DB) else { return };
    runtime().block_on(async {
        let s = SqliteTables::open(Path::new(&path)).await.unwrap();
        let started = Instant::now();
        let mut tasks = tokio::task::JoinSet::new();
        for t in s.open_tables().await.unwrap() {
            let s = s.clone();
            let from = s.load(t).await.unwrap().journal.len() as u64;
            tasks.spawn(async move {
                for n in from..from + 4000 {
                    if started.elapsed() > Duration::from_secs(5) {
                        break;
                    }
                    s.commit(vec![journal(t, n)]).await.unwrap();
                    println!("kept {} {n}", t.0);
                }
            });
        }
        while let Some(done) = tasks.join_next().await {
            done.unwrap();
        }
    });
}

#[test]
fn acknowledged_entries_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(&dir);
    let rt = runtime();
    rt.block_on(async {
        let s = SqliteTables::open(&path).await.unwrap();
        for i in 0..CRASH_TABLES {
            s.create_table(&new_table(i)).await.unwrap();
        }
        s.close().await;
    });
    let mut rng = rand::rng();
    for round in 0..5 {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "crash_child", "--nocapture", "--test-threads", "1"])
            .env(CHILD_DB, &path)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (lines_tx, lines) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            let mut stdout = std::io::BufReader::new(stdout);
            let mut kept = Vec::new();
            let mut line = String::new();
            // Bounded by the child: it writes at most CRASH_TABLES × 4000 lines, then exits.
            while stdout.read_line(&mut line).map(|read| read > 0).unwrap_or(false) {
                // A line cut short by the kill has no newline: it was not wholly printed.
                let parsed = line.strip_suffix('\n').and_then(|l| l.strip_prefix("kept ")).and_then(|l| {
                    let (t, n) = l.split_once(' ')?;
                    Some((TableId(t.parse().ok()?), n.parse::<u64>().ok()?))
                });
                if let Some(kept_one) = parsed {
                    if kept.is_empty() {
                        let _ = lines_tx.send(());
                    }
                    kept.push(kept_one);
                }
                line.clear();
            }
            kept
        });
        // Once the child is writing, kill it at a random moment.
        lines.recv_timeout(Duration::from_secs(30)).expect("the child commits");
        std::thread::sleep(Duration::from_millis(rng.random_range(0..400)));
        child.kill().unwrap();
        child.wait().unwrap();
        let kept = reader.join().unwrap();
        assert!(!kept.is_empty());

        rt.block_on(async {
            let s = SqliteTables::open(&path).await.unwrap();
            let mut lengths = std::collections::HashMap::new();
            for t in s.open_tables().await.unwrap() {
                let journal = s.load(t).await.unwrap().journal;
                for (n, e) in journal.iter().enumerate() {
                    assert_eq!(e, &entry(t, n as u64), "round {round}: {t} entry {n}");
                }
                lengths.insert(t, journal.len() as u64);
            }
            for (t, n) in &kept {
                let have = lengths.get(t).copied().unwrap_or(0);
                assert!(
                    *n < have,
                    "round {round}: {t} entry {n} was acknowledged but only {have} are stored"
                );
            }
            s.close().await;
        });
    }
}
