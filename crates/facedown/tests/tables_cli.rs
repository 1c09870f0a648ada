//! `facedown tables` (issue 16, part 5): a table exported mid-game from one store and imported
//! into another — another SQLite file, or PostgreSQL — is served there by `facedown serve` and
//! resumes: every seat's log is what it was, the seats' old keys (their token hashes came along)
//! open it at its new number, and play goes on. The commands refuse what they must, with
//! non-zero exit codes, and the document is written with mode 0600 without any token.
//!
//! The PostgreSQL test needs `FACEDOWN_TEST_POSTGRES` (skipped, and printed, without it outside
//! CI; in CI it fails instead).

mod common;

use std::path::Path;
use std::time::Duration;

use common::{Server, rebase, run_facedown};
use serde_json::Value;
use server::client::Client;
use server::protocol::{Change, ClientMessage, ServerMessage, link, parse_link};

/// The longest one wait for the server may take.
const WAIT: Duration = Duration::from_secs(20);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// What a seat sees on joining afresh.
async fn welcome(seat_link: &str) -> Change {
    let mut client = Client::join(seat_link, 0).await.expect("the seat joins");
    let change = loop {
        match tokio::time::timeout(WAIT, client.next()).await.expect("an answer in time").expect("a message")
        {
            ServerMessage::Welcome { change, .. } => break change,
            ServerMessage::Error { code, message, .. } => panic!("{seat_link}: refused: {code:?} {message}"),
            _ => {}
        }
    };
    client.close().await;
    change
}

/// Whether the server refuses the link.
async fn refused(seat_link: &str) -> bool {
    let Ok(mut client) = Client::join(seat_link, 0).await else { return true };
    loop {
        match tokio::time::timeout(WAIT, client.next()).await.expect("an answer in time") {
            Ok(ServerMessage::Welcome { .. }) => return false,
            Ok(ServerMessage::Error { .. }) | Err(_) => return true,
            Ok(_) => {}
        }
    }
}

/// The seat sends the first of its prompt's choices and waits for the acknowledgement: its
/// sequence number, or `None` when the seat is not asked anything.
async fn play(seat_link: &str, id: &str) -> Option<u64> {
    let mut client = Client::join(seat_link, 0).await.expect("the seat joins");
    let change = loop {
        match tokio::time::timeout(WAIT, client.next()).await.expect("an answer in time").expect("a message")
        {
            ServerMessage::Welcome { change, .. } => break change,
            ServerMessage::Error { code, message, .. } => panic!("{seat_link}: refused: {code:?} {message}"),
            _ => {}
        }
    };
    let command =
        change.prompt.as_ref().and_then(|p| p["choices"].as_array()?.first()?.get("command").cloned());
    let Some(command) = command else {
        client.close().await;
        return None;
    };
    client.send(&ClientMessage::Command { id: id.to_owned(), command }).await.expect("sent");
    let seq = loop {
        match tokio::time::timeout(WAIT, client.next()).await.expect("an answer in time").expect("a message")
        {
            ServerMessage::Ack { id: acked, seq } if acked == id => break seq,
            ServerMessage::Error { code, message, .. } => panic!("{id} refused: {code:?} {message}"),
            _ => {}
        }
    };
    client.close().await;
    Some(seq)
}

/// The seats' links from a `serve --json` start-up line, in seat order.
fn seat_links(started: &Value) -> Vec<String> {
    let seats = started["table"]["seats"].as_object().expect("the table's seats");
    seats.values().map(|l| l.as_str().expect("a link").to_owned()).collect()
}

/// Starts a server on `db` with a table of its own and stops it: the store then holds one
/// table, so that an imported one gets another number.
fn store_with_one_table(db: &Path) {
    let mut server = Server::start(db, &["--table", "iron-triangle:duel"]);
    assert_eq!(server.stop(), Some(0), "{}", server.stderr());
}

/// `facedown ARGS`, which must succeed: its standard output.
fn facedown_ok(args: &[&str]) -> String {
    let (code, out, err) = run_facedown(args);
    assert_eq!(code, Some(0), "facedown {args:?}: {err}");
    out
}

/// Plays a duel part way on a SQLite store, moves the table to `to` (made to hold a table
/// already) and checks that it resumes there.
fn move_mid_game_and_resume(to: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let from = dir.path().join("from.db");
    let mut server = Server::start(&from, &["--table", "iron-triangle:duel"]);
    let links = seat_links(&server.started);
    assert_eq!(links.len(), 2, "the duel has two seats");
    let rt = runtime();
    // A whole step by both seats, then the first seat's face-down choice alone: mid-game, with a
    // hidden choice waiting for the other seat.
    let mut acked = 0;
    for (i, seat) in [0, 1, 0].into_iter().enumerate() {
        acked += usize::from(rt.block_on(play(&links[seat], &format!("before-{}", i + 1))).is_some());
    }
    assert!(acked >= 2, "the seats played ({acked} commands)");
    let before: Vec<Change> = links.iter().map(|l| rt.block_on(welcome(l))).collect();
    assert!(before.iter().all(|c| !c.over), "mid-game");
    assert_eq!(server.stop(), Some(0), "{}", server.stderr());

    let (_, old_table, _) = parse_link(&links[0]).unwrap();
    let doc = dir.path().join("table.json");
    let from_db = from.to_str().unwrap();
    facedown_ok(&["tables", "export", "--db", from_db, "--table", &old_table, "-o", doc.to_str().unwrap()]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&doc).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the document holds token hashes");
    }
    let text = std::fs::read_to_string(&doc).unwrap();
    for l in &links {
        let (_, _, token) = parse_link(l).unwrap();
        assert!(!text.contains(&token), "a document carries token hashes, never tokens");
    }

    let to_db = to.to_str().unwrap();
    let out = facedown_ok(&["tables", "import", "--db", to_db, doc.to_str().unwrap(), "--json"]);
    let imported: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(imported["from"].as_u64().unwrap().to_string(), old_table);
    let new_table = imported["table"].as_u64().expect("the new number").to_string();
    assert_ne!(new_table, old_table, "the store held a table already: a new number");
    let listed = facedown_ok(&["tables", "list", "--db", to_db, "--json"]);
    let listed: Vec<Value> = serde_json::from_str(listed.trim()).unwrap();
    let line = listed.iter().find(|t| t["id"].as_u64().unwrap().to_string() == new_table).expect("listed");
    assert_eq!(line["ruleset"], "iron-triangle");
    assert_eq!(line["finished"], false);

    let mut server = Server::start(to, &[]);
    let moved: Vec<String> = links
        .iter()
        .map(|l| {
            let (_, _, token) = parse_link(l).unwrap();
            link(&format!("http://{}", server.addr), &new_table, &token)
        })
        .collect();
    for (seat, (l, was)) in moved.iter().zip(&before).enumerate() {
        let now = rt.block_on(welcome(l));
        assert_eq!(now.updates, was.updates, "seat {seat}'s log is what it was");
        assert_eq!(
            (now.seq, &now.prompt, &now.awaiting),
            (was.seq, &was.prompt, &was.awaiting),
            "seat {seat}"
        );
    }
    // A key opens its own table only: at the old number, this store has another table.
    let (_, _, token) = parse_link(&links[0]).unwrap();
    assert!(rt.block_on(refused(&link(&format!("http://{}", server.addr), &old_table, &token))));
    // Play goes on: the second seat answers the first's face-down choice.
    let seq = rt.block_on(play(&moved[1], "after-9")).expect("the second seat is asked");
    assert!(seq > before[1].seq, "a new entry after the moved ones");
    let after = rt.block_on(welcome(&moved[0]));
    assert!(after.seq > before[0].seq, "the first seat sees play go on");
    assert_eq!(after.updates[..before[0].updates.len()], before[0].updates[..]);
    assert_eq!(server.stop(), Some(0), "{}", server.stderr());
}

#[test]
fn a_table_moved_mid_game_to_another_sqlite_file_resumes_with_its_old_keys() {
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("to.db");
    store_with_one_table(&to);
    move_mid_game_and_resume(&to);
}

#[test]
fn a_table_moved_mid_game_to_postgres_resumes_with_its_old_keys() {
    let Some(url) = common::postgres_database("a_table_moved_mid_game_to_postgres_resumes_with_its_old_keys")
    else {
        return;
    };
    store_with_one_table(Path::new(&url));
    move_mid_game_and_resume(Path::new(&url));
}

#[test]
fn the_commands_refuse_what_they_must_with_a_non_zero_status() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let db = db.to_str().unwrap();
    store_with_one_table(Path::new(db));
    let doc = dir.path().join("t.json");
    let doc_s = doc.to_str().unwrap();
    let out = facedown_ok(&["tables", "export", "--db", db, "--table", "1", "-o", doc_s, "--json"]);
    let written: Value = serde_json::from_str(out.trim()).unwrap();
    // One journal entry before any play: the table's secret server seed (docs/fairness.md §4).
    assert_eq!((written["table"].as_u64(), written["entries"].as_u64()), (Some(1), Some(1)));
    // Without -o, the document itself goes to standard output.
    assert_eq!(
        facedown_ok(&["tables", "export", "--db", db, "--table", "1"]),
        std::fs::read_to_string(&doc).unwrap()
    );

    let refusal = |args: &[&str], says: &str| {
        let (code, out, err) = run_facedown(args);
        assert_eq!(code, Some(2), "facedown {args:?}: {out}{err}");
        assert!(err.contains(says), "facedown {args:?} should say {says:?}: {err}");
    };
    refusal(&["tables", "export", "--db", db, "--table", "9"], "there is no table 9");
    let missing = dir.path().join("missing.db");
    refusal(&["tables", "list", "--db", missing.to_str().unwrap()], "no database file");
    assert!(!missing.exists(), "listing a missing database does not create it");
    refusal(&["tables", "import", "--db", db, dir.path().join("none.json").to_str().unwrap()], "cannot read");

    let good: Value = serde_json::from_str(&std::fs::read_to_string(&doc).unwrap()).unwrap();
    let tampered = dir.path().join("tampered.json");
    let tamper = |edit: &dyn Fn(&mut Value), says: &str| {
        let mut value = good.clone();
        edit(&mut value);
        std::fs::write(&tampered, value.to_string()).unwrap();
        refusal(&["tables", "import", "--db", db, tampered.to_str().unwrap()], says);
    };
    tamper(&|v| v["version"] = 99.into(), "version: 99");
    tamper(&|v| v["format"] = "facedown-save".into(), "format:");
    tamper(
        &|v| v["access"][0]["token_hash"] = "0123456789abcdef0123456789abcdef".into(),
        "access[0].token_hash",
    );
    tamper(&|v| v["journal"] = serde_json::json!([{"n": 1, "entry": "{}"}]), "journal[0].n");
    tamper(&|v| v["table"]["options"] = "{".into(), "options is not JSON");
    tamper(&|v| v["table"]["extra"] = 1.into(), "unknown field `extra`");
    tamper(&|v| v["table"]["ruleset"] = "chess".into(), "table.ruleset: \"chess\" is not a rule system");
    std::fs::write(&tampered, "{\"format\": \"facedown-table\", ").unwrap();
    refusal(&["tables", "import", "--db", db, tampered.to_str().unwrap()], "not JSON");
    let listed = facedown_ok(&["tables", "list", "--db", db]);
    assert_eq!(listed.lines().count(), 2, "nothing refused was imported: {listed}");
    refusal(&["tables", "export", "--db", db, "--table", "1", "--json"], "--output");

    for args in [
        &["tables", "--help"][..],
        &["tables", "list", "--help"],
        &["tables", "export", "--help"],
        &["tables", "import", "--help"],
    ] {
        let out = facedown_ok(args);
        assert!(out.contains("Usage:") && out.contains("--db"), "{args:?}: {out}");
    }
}

/// Issue 33, backups: `facedown tables backup FILE` copies a SQLite store while its server runs
/// (its last commands still in the write-ahead log): the copy opens as a store of its own, is
/// served, and holds the table as it was; an existing file and a PostgreSQL store are refused,
/// the latter naming pg_dump. A server that stops leaves its write-ahead log folded in.
#[test]
fn a_backup_taken_while_the_server_runs_opens_and_holds_its_tables() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let mut server = Server::start(&db, &["--table", "iron-triangle:duel"]);
    let links = seat_links(&server.started);
    let rt = runtime();
    let seq = rt.block_on(play(&links[0], "b-1")).expect("the first seat is asked");
    let before = rt.block_on(welcome(&links[0]));
    let backup = dir.path().join("backup.db");
    let out =
        facedown_ok(&["tables", "backup", "--db", db.to_str().unwrap(), backup.to_str().unwrap(), "--json"]);
    let written: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(written["tables"], 1, "{out}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&backup).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the backup holds token hashes");
    }
    let (code, _, err) =
        run_facedown(&["tables", "backup", "--db", db.to_str().unwrap(), backup.to_str().unwrap()]);
    assert_eq!(code, Some(2), "an existing file is refused: {err}");
    assert!(err.contains("exists already"), "{err}");
    let (code, _, err) =
        run_facedown(&["tables", "backup", "--db", "postgres://facedown@127.0.0.1:1/facedown", "x.db"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("pg_dump"), "PostgreSQL is backed up with pg_dump: {err}");
    assert_eq!(server.stop(), Some(0), "{}", server.stderr());
    let wal = std::fs::metadata(db.with_extension("db-wal")).map_or(0, |m| m.len());
    assert_eq!(wal, 0, "a stopped server leaves its write-ahead log folded into the database");

    let mut restored = Server::start(&backup, &[]);
    let (_, table, token) = parse_link(&links[0]).unwrap();
    let now = rt.block_on(welcome(&link(&format!("http://{}", restored.addr), &table, &token)));
    assert_eq!(
        (now.seq, &now.updates),
        (before.seq, &before.updates),
        "the backup holds the table as it was"
    );
    assert!(now.seq >= seq);
    assert_eq!(restored.stop(), Some(0), "{}", restored.stderr());
}

/// Issue 33: a table the server cannot resume (here its journal holds a take-back with nothing
/// to take back) tells whoever opens it that it cannot be resumed, naming the entry, and
/// `facedown tables export` still writes its document, which imports back.
#[test]
fn a_table_that_cannot_be_resumed_says_so_and_is_still_exported() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let mut server = Server::start(&db, &["--table", "iron-triangle:duel"]);
    let links = seat_links(&server.started);
    assert_eq!(server.stop(), Some(0), "{}", server.stderr());
    let (_, table, token) = parse_link(&links[0]).unwrap();
    let db_s = db.to_str().unwrap();
    let doc = dir.path().join("table.json");
    facedown_ok(&["tables", "export", "--db", db_s, "--table", &table, "-o", doc.to_str().unwrap()]);
    let mut value: Value = serde_json::from_str(&std::fs::read_to_string(&doc).unwrap()).unwrap();
    let journal = value["journal"].as_array_mut().unwrap();
    journal.push(serde_json::json!({"n": journal.len(), "entry": r#"{"op":"take_back","seat":0}"#}));
    let broken_doc = dir.path().join("broken.json");
    std::fs::write(&broken_doc, value.to_string()).unwrap();
    let out = facedown_ok(&["tables", "import", "--db", db_s, broken_doc.to_str().unwrap(), "--json"]);
    let imported: Value = serde_json::from_str(out.trim()).unwrap();
    let broken = imported["table"].as_u64().unwrap().to_string();

    let mut server = Server::start(&db, &[]);
    let rt = runtime();
    let told = rt.block_on(async {
        let mut client =
            Client::join(&link(&format!("http://{}", server.addr), &broken, &token), 0).await.unwrap();
        tokio::time::timeout(WAIT, client.next()).await.expect("an answer in time").unwrap()
    });
    match told {
        ServerMessage::Error { message, .. } => {
            assert!(message.contains(&format!("table {broken} cannot be resumed")), "{message}");
            assert!(message.contains("journal entry 1"), "{message}");
        }
        other => panic!("the seat is told: {other:?}"),
    }
    assert_eq!(server.stop(), Some(0), "{}", server.stderr());
    let again = dir.path().join("again.json");
    let out = facedown_ok(&[
        "tables",
        "export",
        "--db",
        db_s,
        "--table",
        &broken,
        "--out",
        again.to_str().unwrap(),
        "--json",
    ]);
    let written: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(written["entries"], 2, "{out}");
}

/// Issue 33: a table the store cannot load at all (here a journal entry is missing; a journal
/// past the size a table may load is refused the same way) is refused by `export` with a
/// message pointing to `--salvage`, which writes its row, its links' hashes and its journal up
/// to the missing entry, says what it left out, and whose document imports back.
#[test]
fn a_table_the_store_cannot_load_is_salvaged_up_to_its_missing_entry() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    store_with_one_table(&db);
    let db_s = db.to_str().unwrap();
    // A table of six entries, imported, then entry 3 deleted behind the store's back.
    let doc = dir.path().join("table.json");
    facedown_ok(&["tables", "export", "--db", db_s, "--table", "1", "-o", doc.to_str().unwrap()]);
    let mut value: Value = serde_json::from_str(&std::fs::read_to_string(&doc).unwrap()).unwrap();
    let journal = value["journal"].as_array_mut().unwrap();
    journal.truncate(1);
    for n in 1..6 {
        journal.push(serde_json::json!({"n": n, "entry": format!("{{\"note\":{n}}}")}));
    }
    let six = dir.path().join("six.json");
    std::fs::write(&six, value.to_string()).unwrap();
    let out = facedown_ok(&["tables", "import", "--db", db_s, six.to_str().unwrap(), "--json"]);
    let table = serde_json::from_str::<Value>(out.trim()).unwrap()["table"].as_u64().unwrap().to_string();
    runtime().block_on(async {
        let pool = sqlx::SqlitePool::connect(&format!("sqlite://{db_s}")).await.unwrap();
        let gone = sqlx::query("DELETE FROM server_journal WHERE table_id = ? AND n = 3")
            .bind(table.parse::<i64>().unwrap())
            .execute(&pool)
            .await
            .unwrap();
        assert_eq!(gone.rows_affected(), 1);
        pool.close().await;
    });

    let out = dir.path().join("out.json");
    let out_s = out.to_str().unwrap();
    let (code, _, err) = run_facedown(&["tables", "export", "--db", db_s, "--table", &table, "-o", out_s]);
    assert!(matches!(code, Some(c) if c != 0), "{err}");
    assert!(err.contains("cannot load") && err.contains("journal entry 3 is missing"), "{err}");
    assert!(err.contains("--salvage"), "{err}");
    assert!(!out.exists(), "nothing is written when the export is refused");

    let said = facedown_ok(&["tables", "export", "--db", db_s, "--table", &table, "-o", out_s, "--salvage"]);
    assert!(said.contains("3 journal entries"), "{said}");
    assert!(
        said.contains("Entry 3 is missing") && said.contains("the 2 stored after it are left out"),
        "{said}"
    );
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let numbers: Vec<u64> =
        written["journal"].as_array().unwrap().iter().map(|e| e["n"].as_u64().unwrap()).collect();
    assert_eq!(numbers, [0, 1, 2]);
    assert_eq!(written["access"], value["access"], "the links' hashes come along");
    let json = facedown_ok(&[
        "tables",
        "export",
        "--db",
        db_s,
        "--table",
        &table,
        "-o",
        out_s,
        "--salvage",
        "--json",
    ]);
    let line: Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(
        (line["entries"].as_u64(), line["missing_from"].as_u64(), line["left_out"].as_u64()),
        (Some(3), Some(3), Some(2))
    );
    let back = facedown_ok(&["tables", "import", "--db", db_s, out_s, "--json"]);
    assert!(back.contains("\"table\""), "{back}");
}

/// Every link of a `serve --json` start-up line's table: the seats' (in seat order), the GM's,
/// the spectators'.
fn every_link(table: &Value) -> Vec<String> {
    let mut links: Vec<String> = table["seats"]
        .as_object()
        .expect("the table's seats")
        .values()
        .map(|l| l.as_str().expect("a link").to_owned())
        .collect();
    links.push(table["gm"].as_str().expect("the GM link").to_owned());
    links.push(table["spectator"].as_str().expect("the spectator link").to_owned());
    links
}

/// Issue 34 (Lobby): `facedown tables links N` reissues every link of a table from the host's
/// terminal. A server serving the SQLite file keeps the table's links in memory and would not
/// see the change, so the command refuses while one runs, saying why; once it stopped, every
/// link is new (with `--public-url`'s address), the old ones open nothing, the new ones open the
/// same seats. An unknown table and a closed one are refused.
#[test]
fn tables_links_reissues_every_link_and_refuses_while_a_server_serves_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let db_arg = db.to_str().unwrap();
    let mut server = Server::start(&db, &["--table", "iron-triangle:duel"]);
    let old = every_link(&server.started["table"]);
    let (_, table, _) = parse_link(&old[0]).unwrap();
    let (code, out, err) = run_facedown(&["tables", "links", &table, "--db", db_arg]);
    assert_eq!(code, Some(2), "refused while the server runs: {out} {err}");
    assert!(err.contains("open in another process") && err.contains("stop it first"), "{err}");
    let rt = runtime();
    rt.block_on(welcome(&old[0]));
    assert_eq!(server.stop(), Some(0), "{}", server.stderr());

    let out = facedown_ok(&[
        "tables",
        "links",
        &table,
        "--db",
        db_arg,
        "--json",
        "--public-url",
        "https://dice.example.org/",
    ]);
    let made: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    let new = every_link(&made);
    assert_eq!(new.len(), old.len(), "{out}");
    for l in &new {
        assert!(l.starts_with(&format!("https://dice.example.org/t/{table}#")), "{l}");
        assert!(!old.contains(l));
    }
    let text = facedown_ok(&["tables", "links", &table, "--db", db_arg]);
    assert!(text.contains("GM (manages the table): http://127.0.0.1:8080/t/"), "{text}");
    // The text's links are the newest: read them back for the server.
    let newest: Vec<String> =
        text.lines().filter_map(|l| l.split_once(": http").map(|(_, u)| format!("http{u}"))).collect();
    assert_eq!(newest.len(), old.len(), "{text}");

    let mut server = Server::start(&db, &[]);
    for (was, now) in old.iter().zip(&newest) {
        assert!(rt.block_on(refused(&rebase(was, server.addr))), "the old link {was} opens nothing");
        rt.block_on(welcome(&rebase(now, server.addr)));
    }
    assert_eq!(server.stop(), Some(0), "{}", server.stderr());

    let (code, _, err) = run_facedown(&["tables", "links", "99", "--db", db_arg]);
    assert_eq!(code, Some(2));
    assert!(err.contains("there is no table 99"), "{err}");
}

/// On PostgreSQL the running servers hear the new links: a connection of an old link is told
/// `revoked` and closed at once, the old link opens nothing, the new one opens the seat.
#[test]
fn tables_links_on_postgres_revokes_the_old_links_at_the_running_server() {
    let Some(url) =
        common::postgres_database("tables_links_on_postgres_revokes_the_old_links_at_the_running_server")
    else {
        return;
    };
    let mut server = Server::start(Path::new(&url), &["--table", "iron-triangle:duel"]);
    let old = every_link(&server.started["table"]);
    let (_, table, _) = parse_link(&old[0]).unwrap();
    let rt = runtime();
    rt.block_on(async {
        let mut ada = Client::join(&old[0], 0).await.expect("the seat joins");
        loop {
            match tokio::time::timeout(WAIT, ada.next()).await.expect("in time").expect("a message") {
                ServerMessage::Welcome { .. } => break,
                other => assert!(!matches!(other, ServerMessage::Error { .. }), "{other:?}"),
            }
        }
        let out = facedown_ok(&["tables", "links", &table, "--db", &url, "--json"]);
        let made: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
        loop {
            match tokio::time::timeout(WAIT, ada.next()).await.expect("told in time") {
                Ok(ServerMessage::Revoked {}) => break,
                Ok(_) => {}
                Err(e) => panic!("the old link's connection is told first: {e}"),
            }
        }
        assert!(refused(&old[0]).await, "the old link opens nothing");
        let new = every_link(&made);
        welcome(&rebase(&new[0], server.addr)).await;
    });
    assert_eq!(server.stop(), Some(0), "{}", server.stderr());
}
