//! Both implementations of `Persist` pass the same generic test (issue 14, part 4): create,
//! append, read back, a duplicate or missing sequence number refused, several games at once,
//! the events hash, and everything still there after the store is dropped and reopened.

use std::future::Future;
use std::path::{Path, PathBuf};

use store::{Entry, EventsHash, GameId, Mark, NewGame, Persist, PersistError, SaveFile, SqliteGames};
use table::SeatId;

fn new_game(ruleset: &str) -> NewGame {
    NewGame {
        ruleset: ruleset.into(),
        ruleset_version: "0.1.0".into(),
        setup: r#"{"stakes":{"want":"the scroll"},"seats":["ada","gm"]}"#.into(),
        seeds: vec![7, u64::MAX],
    }
}

fn entry(seq: u64, seat: u16, command: &str, mark: Mark) -> Entry {
    Entry { seq, seat: SeatId(seat), command: command.into(), mark }
}

/// The same checks for every backend; `open` opens the store kept at `path`.
async fn persist_contract<P, F, Fut>(path: PathBuf, open: F)
where
    P: Persist + 'static,
    F: Fn(PathBuf) -> Fut,
    Fut: Future<Output = Result<P, PersistError>>,
{
    let s = open(path.clone()).await.unwrap();
    assert!(s.games().await.unwrap().is_empty());
    let a = s.create_game(&new_game("iron-triangle")).await.unwrap();
    let b = s.create_game(&new_game("nodice")).await.unwrap();
    assert_ne!(a, b, "several games in one store");

    // Appended entries read back in order, exactly as given; two games interleave.
    let played = [
        entry(0, 0, r#"{"Act":{"action":"strike"}}"#, Mark::Played),
        entry(1, 1, r#""Pass""#, Mark::Forced),
        entry(2, 1, r#"{"Undo":null}"#, Mark::Undo),
    ];
    for e in &played {
        s.append(a, e).await.unwrap();
        s.append(b, &entry(e.seq, 0, "[]", Mark::Played)).await.unwrap();
    }
    assert_eq!(s.entries(a).await.unwrap(), played);
    assert_eq!(s.entries(b).await.unwrap().len(), 3);

    // A duplicate sequence number is refused, and so is a gap; nothing changes.
    match s.append(a, &entry(1, 0, "{}", Mark::Played)).await {
        Err(PersistError::Sequence { expected: 3, got: 1, .. }) => {}
        other => panic!("a duplicate sequence number: {other:?}"),
    }
    assert!(matches!(
        s.append(a, &entry(5, 0, "{}", Mark::Played)).await,
        Err(PersistError::Sequence { .. })
    ));
    assert!(matches!(
        s.append(a, &entry(3, 0, "not json", Mark::Played)).await,
        Err(PersistError::NotJson { .. })
    ));
    assert!(matches!(
        s.append(GameId(99), &entry(0, 0, "{}", Mark::Played)).await,
        Err(PersistError::NoGame(_))
    ));
    assert!(matches!(
        s.create_game(&NewGame { setup: "{".into(), ..new_game("x") }).await,
        Err(PersistError::NotJson { field: "setup", .. })
    ));
    assert_eq!(s.entries(a).await.unwrap(), played);

    // The hash of the derived events, never beyond the entries stored.
    let hash = EventsHash { entries: 3, hash: "9f2c".into() };
    s.set_events_hash(a, &hash).await.unwrap();
    assert!(matches!(
        s.set_events_hash(a, &EventsHash { entries: 4, hash: "x".into() }).await,
        Err(PersistError::HashBeyondEnd { .. })
    ));

    // A server's tasks share the store: the futures are Send.
    let shared = std::sync::Arc::new(s);
    let task = {
        let s = shared.clone();
        tokio::spawn(async move { s.append(b, &entry(3, 1, "{}", Mark::Played)).await })
    };
    task.await.unwrap().unwrap();
    drop(shared);

    // Reopened after the store was dropped: everything is there.
    let s = open(path).await.unwrap();
    let games = s.games().await.unwrap();
    assert_eq!(games.iter().map(|g| g.id).collect::<Vec<_>>(), [a, b]);
    assert_eq!(games[0].game, new_game("iron-triangle"));
    assert_eq!(games[0].events_hash, Some(hash));
    assert_eq!(s.game(b).await.unwrap().events_hash, None);
    assert_eq!(s.entries(a).await.unwrap(), played);
    assert_eq!(s.entries(b).await.unwrap().len(), 4);
    s.append(a, &entry(3, 0, "{}", Mark::Played)).await.unwrap();
    assert!(matches!(s.game(GameId(99)).await, Err(PersistError::NoGame(_))));
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

#[test]
fn persist_save_file_keeps_games() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.json");
    runtime().block_on(persist_contract(path.clone(), |p| async move { SaveFile::open(&p).await }));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(r#""format": "facedown-save""#) && text.contains(r#""version": 1"#), "{text}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }
    // Only the save itself is left in the folder (no temporary file).
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn persist_sqlite_keeps_games() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.sqlite");
    runtime().block_on(persist_contract(path, |p| async move { SqliteGames::open(&p).await }));
}

#[test]
fn persist_save_file_of_another_format_or_version_is_refused_and_left_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    for (name, text) in [
        ("letter.json", "Dear diary"),
        ("other.json", r#"{"hello": 1}"#),
        ("newer.json", r#"{"format": "facedown-save", "version": 99, "games": []}"#),
    ] {
        let path: &Path = &dir.path().join(name);
        std::fs::write(path, text).unwrap();
        match rt.block_on(SaveFile::open(path)) {
            Err(PersistError::Format(m)) => {
                assert!(m.contains("facedown save") || m.contains("version"), "{m}")
            }
            Err(e) => panic!("{name}: {e}"),
            Ok(_) => panic!("{name} was opened as a save"),
        }
        assert_eq!(std::fs::read_to_string(path).unwrap(), text);
    }
}

#[test]
fn persist_sqlite_sequence_numbers_are_unique_per_game_in_the_schema() {
    // Even a writer that skips the store's check cannot store a number twice for one game.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.sqlite");
    runtime().block_on(async {
        let s = SqliteGames::open(&path).await.unwrap();
        let g = s.create_game(&new_game("nodice")).await.unwrap();
        s.append(g, &entry(0, 0, "{}", Mark::Played)).await.unwrap();
        s.close().await;
        use sqlx::Connection as _;
        let opts = sqlx::sqlite::SqliteConnectOptions::new().filename(&path);
        let mut c = sqlx::SqliteConnection::connect_with(&opts).await.unwrap();
        let dup = sqlx::query(
            "INSERT INTO game_commands (game_id, seq, seat, command, mark) VALUES (?, 0, 0, '{}', 'played')",
        )
        .bind(i64::try_from(g.0).unwrap())
        .execute(&mut c)
        .await;
        assert!(dup.is_err(), "the schema refused a duplicate sequence number");
        let bad_mark = sqlx::query(
            "INSERT INTO game_commands (game_id, seq, seat, command, mark) VALUES (?, 1, 0, '{}', 'maybe')",
        )
        .bind(i64::try_from(g.0).unwrap())
        .execute(&mut c)
        .await;
        assert!(bad_mark.is_err(), "the schema refused an unknown mark");
    });
}
