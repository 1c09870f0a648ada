//! Moving a table between stores (issue 16, part 5): a table exported from one store as a
//! [`TableDocument`] and imported into another comes back byte for byte — setup, options,
//! access rows (token hashes) and every journal entry — on SQLite and on PostgreSQL, and a
//! document that is malformed, too large, of another version or tampered with is refused with
//! the field at fault named.
//!
//! The PostgreSQL tests need a server: `FACEDOWN_TEST_POSTGRES` names one (a base URL such as
//! `postgres://postgres@127.0.0.1:5432`; `.ci/postgres.sh start` starts a throwaway one). Outside
//! CI they are skipped, and say so, without it; in CI (`CI` set) they fail instead.

use std::str::FromStr;

use rand::RngExt;
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};
use store::tables::{Access, NewTable, StoredTable, TableId, TableStore, Write};
use store::{DocumentError, MovedTable, PersistError, PgTables, SqliteTables, TABLE_VERSION, TableDocument};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// A new database on the tests' PostgreSQL server, or `None` (printed) when no server is named
/// outside CI. The cluster is thrown away after the tests.
fn pg_options(test: &str) -> Option<PgConnectOptions> {
    let Ok(base) = std::env::var("FACEDOWN_TEST_POSTGRES") else {
        if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
            panic!("{test}: FACEDOWN_TEST_POSTGRES is not set, and in CI the PostgreSQL tests never skip");
        }
        eprintln!("{test}: skipped, no PostgreSQL server (FACEDOWN_TEST_POSTGRES is not set)");
        return None;
    };
    let name = format!("facedown_move_{:016x}", rand::rng().random::<u64>());
    runtime().block_on(async {
        let mut admin = PgConnection::connect(&base).await.expect("the tests' PostgreSQL server answers");
        sqlx::query(&format!("CREATE DATABASE {name}")).execute(&mut admin).await.unwrap();
        admin.close().await.unwrap();
    });
    Some(PgConnectOptions::from_str(&base).unwrap().database(&name))
}

/// A SHA-256 in hex, as the server keeps a token's.
fn hash_of(i: u8) -> String {
    format!("{:02x}", i).repeat(32)
}

/// A table whose texts a careless copy would change: spacing, key order, escapes, numbers
/// written in unusual ways, non-ASCII text, a revoked link.
fn awkward_table() -> (NewTable, Vec<String>) {
    let table = NewTable {
        ruleset: "iron-triangle".into(),
        ruleset_version: "0.16.0".into(),
        setup: "{ \"z\":1,  \"a\" : [1.0, 2e3, -0.0],\n\t\"name\": \"Ada \\u00e9 ☷ \\\"quoted\\\"\" }".into(),
        options: "{\"think_ms\":400,\"decision_seconds\":null}".into(),
        access: vec![
            Access { who: "gm".into(), token_hash: Some(hash_of(1)), controller: "null".into() },
            Access { who: "seat:0".into(), token_hash: Some(hash_of(2)), controller: "\"person\"".into() },
            Access {
                who: "seat:1".into(),
                token_hash: Some(hash_of(3)),
                controller: "{ \"bot\" : \"greedy\" }".into(),
            },
            Access { who: "spectator".into(), token_hash: None, controller: "null".into() },
        ],
    };
    let journal = vec![
        "{\"op\":\"submit\",\"seat\":0,\"command\":{\"stance\":2},\"id\":\"c-1\"}".into(),
        "{ \"op\" : \"take_back\", \"seat\" : 0 }".into(),
        "{\"op\":\"submit\",\"seat\":1,\"command\":[1,2,3.50,\"\\ud83d\\ude00\"]}".into(),
        "{\"commitment\":\"00ff\",\"nested\":{\"b\":1,\"a\":2},\"text\":\"line\\nbreak\\ttab\"}".into(),
        "123456789012345678901234567890".into(),
    ];
    (table, journal)
}

/// Creates `table` with `journal` in `store` (through the ordinary writes), maybe finished.
async fn create<S: TableStore>(store: &S, table: &NewTable, journal: &[String], finished: bool) -> TableId {
    let id = store.create_table(table).await.unwrap();
    let mut writes: Vec<Write> = journal
        .iter()
        .enumerate()
        .map(|(n, entry)| Write::Journal { table: id, n: n as u64, entry: entry.clone() })
        .collect();
    if finished {
        writes.push(Write::Finished { table: id });
    }
    store.commit(writes).await.unwrap();
    id
}

/// Exports `id` from `from` as text, reads the text back and imports it into `to`.
async fn carry<A: TableStore, B: TableStore>(from: &A, id: TableId, to: &B) -> (String, TableId) {
    let text = from.export_table(id).await.unwrap().to_json();
    let doc = TableDocument::parse(&text).unwrap();
    assert_eq!(doc.exported_id(), id);
    let new = to.import_table(&doc.into_moved().unwrap()).await.unwrap();
    (text, new)
}

/// A stored table without its number.
fn unnumbered(stored: StoredTable) -> (NewTable, Vec<String>, bool) {
    (stored.table, stored.journal, stored.finished)
}

#[test]
fn a_table_goes_from_sqlite_to_postgres_and_back_byte_for_byte() {
    let Some(pg) = pg_options("a_table_goes_from_sqlite_to_postgres_and_back_byte_for_byte") else { return };
    let dir = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let first = SqliteTables::open(&dir.path().join("first.db")).await.unwrap();
        let middle = PgTables::connect_with(pg).await.unwrap();
        let last = SqliteTables::open(&dir.path().join("last.db")).await.unwrap();
        let (table, journal) = awkward_table();
        // Another table first, so that the numbers differ from store to store.
        create(&middle, &table, &[], true).await;
        let id = create(&first, &table, &journal, false).await;
        let original = first.load(id).await.unwrap();

        let (text_1, in_pg) = carry(&first, id, &middle).await;
        assert_ne!(in_pg, id, "the first table of PostgreSQL is taken: a new number");
        assert_eq!(unnumbered(middle.load(in_pg).await.unwrap()), unnumbered(original.clone()));
        let (text_2, back) = carry(&middle, in_pg, &last).await;
        let returned = last.load(back).await.unwrap();
        assert_eq!(unnumbered(returned), unnumbered(original));
        // The two documents differ only in the number the table had where it was exported.
        let renumbered = text_2.replacen(&format!("\"id\": {}", in_pg.0), &format!("\"id\": {}", id.0), 1);
        assert_eq!(renumbered, text_1);

        let listed = middle.list_tables().await.unwrap();
        assert_eq!(listed.len(), 2);
        assert_eq!((listed[1].id, listed[1].entries, listed[1].finished), (in_pg, 5, false));
        assert_eq!((listed[0].entries, listed[0].finished), (0, true));
        assert_eq!(middle.open_tables().await.unwrap(), vec![in_pg]);
        for store in [&first, &last] {
            store.close().await;
        }
        middle.close().await;
    });
}

#[test]
fn a_table_moves_between_sqlite_files_and_goes_on_taking_commits() {
    let dir = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let from = SqliteTables::open(&dir.path().join("from.db")).await.unwrap();
        let to = SqliteTables::open(&dir.path().join("to.db")).await.unwrap();
        let (table, journal) = awkward_table();
        create(&to, &table, &journal[..1], false).await;
        let finished = create(&from, &table, &journal[..2], true).await;
        let id = create(&from, &table, &journal, false).await;
        let (_, moved) = carry(&from, id, &to).await;
        assert_eq!(moved, TableId(2));
        assert_eq!(unnumbered(to.load(moved).await.unwrap()), unnumbered(from.load(id).await.unwrap()));
        // The importing store's writer learns the imported journal's length: the next entry is
        // number 5, a kept number is a conflict.
        let entry = |n: u64| Write::Journal { table: moved, n, entry: "{}".into() };
        assert!(matches!(to.commit(vec![entry(4)]).await, Err(PersistError::Conflict { seq: 4, .. })));
        to.commit(vec![entry(5)]).await.unwrap();
        assert_eq!(to.load(moved).await.unwrap().journal.len(), 6);
        // A finished table stays finished, and is not among the open ones.
        let (_, done) = carry(&from, finished, &to).await;
        assert!(to.load(done).await.unwrap().finished);
        assert_eq!(to.open_tables().await.unwrap(), vec![TableId(1), moved]);
        let listed = to.list_tables().await.unwrap();
        let summary: Vec<(u64, &str, u64, bool)> =
            listed.iter().map(|t| (t.id.0, t.ruleset.as_str(), t.entries, t.finished)).collect();
        assert_eq!(
            summary,
            vec![
                (1, "iron-triangle", 1, false),
                (2, "iron-triangle", 6, false),
                (3, "iron-triangle", 2, true)
            ]
        );
        from.close().await;
        to.close().await;
    });
}

#[test]
fn an_import_the_store_refuses_keeps_nothing() {
    let dir = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let store = SqliteTables::open(&dir.path().join("t.db")).await.unwrap();
        let (table, mut journal) = awkward_table();
        journal.push("not json".into());
        let moved = MovedTable { table: table.clone(), journal, finished: false };
        let e = store.import_table(&moved).await.unwrap_err();
        assert!(matches!(e, PersistError::NotJson { field: "journal entry", .. }), "{e}");
        let mut nul = table;
        nul.ruleset = "iron\0triangle".into();
        let e = store
            .import_table(&MovedTable { table: nul, journal: vec![], finished: false })
            .await
            .unwrap_err();
        assert!(matches!(e, PersistError::Nul { field: "ruleset name" }), "{e}");
        assert!(store.list_tables().await.unwrap().is_empty());
        store.close().await;
    });
}

/// A valid document's JSON value, to tamper with.
fn document_value() -> serde_json::Value {
    let (table, journal) = awkward_table();
    let stored = StoredTable { id: TableId(7), table, journal, finished: false };
    serde_json::from_str(&TableDocument::from_stored(&stored).to_json()).unwrap()
}

fn refused(value: &serde_json::Value) -> DocumentError {
    TableDocument::parse(&value.to_string()).expect_err("a tampered document is refused")
}

fn refused_field(value: &serde_json::Value) -> String {
    match refused(value) {
        DocumentError::Field { field, .. } => field,
        other => panic!("refused without naming a field: {other}"),
    }
}

#[test]
fn a_tampered_document_is_refused_naming_the_field() {
    let good = document_value();
    assert!(TableDocument::parse(&good.to_string()).is_ok());

    let mut gap = good.clone();
    gap["journal"][2]["n"] = 3.into();
    assert_eq!(refused_field(&gap), "journal[2].n");
    let mut dropped = good.clone();
    dropped["journal"].as_array_mut().unwrap().remove(1);
    assert_eq!(refused_field(&dropped), "journal[1].n");
    let mut not_json = good.clone();
    not_json["journal"][1]["entry"] = "{\"op\":".into();
    assert_eq!(refused_field(&not_json), "journal[1].entry");
    let mut token = good.clone();
    token["access"][1]["token_hash"] = "0123456789abcdef0123456789abcdef".into();
    assert_eq!(refused_field(&token), "access[1].token_hash");
    let mut twice = good.clone();
    twice["access"][2]["who"] = "seat:0".into();
    assert_eq!(refused_field(&twice), "access[2].who");
    let mut controller = good.clone();
    controller["access"][0]["controller"] = "bot".into();
    assert_eq!(refused_field(&controller), "access[0]");
    let mut setup = good.clone();
    setup["table"]["setup"] = "{".into();
    let DocumentError::Field { field, reason } = refused(&setup) else { panic!("a field") };
    assert_eq!(field, "table.setup");
    assert!(reason.contains("not JSON"), "{reason}");
    let mut nul = good.clone();
    nul["table"]["ruleset_version"] = "1\u{0}".into();
    assert_eq!(refused_field(&nul), "table.ruleset_version");
    let mut long = good.clone();
    long["table"]["ruleset"] = "x".repeat(store::tables::limits::MAX_NAME_BYTES + 1).into();
    assert_eq!(refused_field(&long), "table.ruleset");

    let mut unknown = good.clone();
    unknown["table"]["owner"] = "mallory".into();
    assert!(matches!(refused(&unknown), DocumentError::Malformed { reason } if reason.contains("owner")));
    let mut missing = good.clone();
    missing["table"].as_object_mut().unwrap().remove("options");
    assert!(matches!(refused(&missing), DocumentError::Malformed { reason } if reason.contains("options")));
    let mut wrong_type = good.clone();
    wrong_type["table"]["finished"] = "no".into();
    assert!(matches!(refused(&wrong_type), DocumentError::Malformed { reason } if reason.contains("bool")));
}

#[test]
fn another_format_or_version_is_refused_before_anything_else() {
    let good = document_value();
    let mut newer = good.clone();
    newer["version"] = (TABLE_VERSION + 1).into();
    // Whatever else a newer version changed, its version is what is named.
    newer["journal"] = "a newer shape".into();
    assert_eq!(refused(&newer), DocumentError::Version { found: (TABLE_VERSION + 1).to_string() });
    let mut none = good.clone();
    none.as_object_mut().unwrap().remove("version");
    assert_eq!(refused(&none), DocumentError::Version { found: "null".into() });
    let mut save = good.clone();
    save["format"] = "facedown-save".into();
    assert_eq!(refused(&save), DocumentError::Format { found: "\"facedown-save\"".into() });
    assert!(matches!(TableDocument::parse("[1, 2]"), Err(DocumentError::Malformed { .. })));
    assert!(matches!(TableDocument::parse("[1, 2"), Err(DocumentError::NotJson { .. })));
    assert!(matches!(TableDocument::parse("{\"format\": "), Err(DocumentError::NotJson { .. })));
}

#[test]
fn an_oversized_document_or_entry_is_refused() {
    let text = document_value().to_string();
    let limit = text.len() as u64 - 1;
    assert_eq!(TableDocument::read(text.as_bytes(), limit), Err(DocumentError::TooLarge { limit }));
    assert!(TableDocument::read(text.as_bytes(), text.len() as u64).is_ok());
    // An endless reader is cut at the limit.
    assert_eq!(
        TableDocument::read(std::io::repeat(b' '), 1 << 16),
        Err(DocumentError::TooLarge { limit: 1 << 16 })
    );
    let mut big = document_value();
    let huge = format!("\"{}\"", "x".repeat(store::tables::limits::MAX_TEXT_BYTES));
    big["journal"][0]["entry"] = huge.into();
    let DocumentError::Field { field, reason } = refused(&big) else { panic!("a field") };
    assert_eq!(field, "journal[0].entry");
    assert!(reason.contains("limit"), "{reason}");
    let not_text = [b'{', 0xff, b'}'];
    assert!(matches!(TableDocument::read(&not_text[..], 16), Err(DocumentError::NotJson { .. })));
}

/// Any JSON texts (strings of any characters, written with any spacing) come back from a
/// document exactly.
#[test]
fn any_texts_survive_a_document_exactly() {
    use proptest::prelude::*;
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .map_or(64, |n| n.clamp(1, 64));
    let config = ProptestConfig { cases, failure_persistence: None, ..Default::default() };
    let text = (any::<String>(), "[ \t\n]{0,3}")
        .prop_map(|(s, pad)| format!("{pad}{}{pad}", serde_json::to_string(&s).unwrap()));
    proptest!(config, |(setup in text.clone(), journal in proptest::collection::vec(text, 0..8), finished: bool, id: u32)| {
        let (mut table, _) = awkward_table();
        table.setup = setup;
        let stored = StoredTable { id: TableId(u64::from(id)), table, journal, finished };
        let doc = TableDocument::from_stored(&stored);
        let read = TableDocument::parse(&doc.to_json()).unwrap();
        prop_assert_eq!(&read, &doc);
        let moved = read.into_moved().unwrap();
        prop_assert_eq!((moved.table, moved.journal, moved.finished), unnumbered(stored));
    });
}
