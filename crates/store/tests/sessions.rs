//! A session kept in each store (`store::sessions`): saved after every command — GM
//! adjustments and undos among them, face-down choices pending — and loaded again at any point,
//! it resumes to its settled record; a game whose hash lags its last command (a crash between
//! the two writes) still loads, every command checked by the rules; a game of another ruleset
//! is refused by name.

use std::path::{Path, PathBuf};

use iron_triangle::rules::Note;
use iron_triangle::{Character, Command, Energy, FighterId, IronTriangle};
use rand::{RngExt, SeedableRng};
use session::Session;
use store::sessions::{self, SessionStoreError};
use store::{Entry, Mark, NewGame, Persist, PersistError, SaveFile, SqliteGames};
use table::SeatId;

const GM: SeatId = SeatId(1);

fn duel() -> Session<IronTriangle> {
    Session::new(iron_triangle::Setup::one_on_one(
        Character::with_starting_moves("Ada", Energy::new(3, 2, 5)),
        Character::with_starting_moves("Ninja", Energy::new(4, 3, 3)),
    ))
    .unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// Plays a random game, saving after every step and loading it back from a freshly opened
/// store each time.
async fn save_and_load_anywhere<P: Persist, F, Fut>(path: PathBuf, open: F, seed: u64)
where
    F: Fn(PathBuf) -> Fut,
    Fut: std::future::Future<Output = Result<P, PersistError>>,
{
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut s = duel();
    let game = sessions::create(&open(path.clone()).await.unwrap(), &s).await.unwrap();
    let mut stored = 0;
    let mut pending_seen = false;
    for _ in 0..60 {
        if s.is_over() {
            break;
        }
        match rng.random_range(0..6) {
            0 => {
                let energy = Energy::new(rng.random_range(0..3), 1, 1);
                let reason = Note::from("ruling").unwrap();
                s.submit(GM, &Command::AdjustEnergy { fighter: FighterId(0), energy, reason }).unwrap();
            }
            1 => {
                let _ = s.undo(GM);
            }
            _ => {
                let seat = s.awaiting()[0];
                let mut legal = Vec::new();
                s.table().legal_commands(seat, &mut legal);
                s.submit(seat, &legal[rng.random_range(0..legal.len())]).unwrap();
            }
        }
        pending_seen |= s.face_down() > 0;
        let store = open(path.clone()).await.unwrap();
        stored = sessions::save(&store, game, &s, stored).await.unwrap();
        drop(store);
        let store = open(path.clone()).await.unwrap();
        let (back, n) = sessions::load::<_, IronTriangle>(&store, game).await.unwrap();
        assert_eq!(n, stored);
        assert_eq!(back.record(), s.settled_record(), "loads to the settled record");
        if s.face_down() == 0 {
            assert_eq!(back.table().state(), s.table().state());
        }
    }
    assert!(pending_seen, "saves were taken with face-down choices pending");
}

#[test]
fn a_session_saved_anywhere_loads_to_its_settled_record_in_a_save_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.json");
    for seed in 0..4 {
        let _ = std::fs::remove_file(&path);
        runtime().block_on(save_and_load_anywhere(
            path.clone(),
            |p| async move { SaveFile::open(&p).await },
            seed,
        ));
    }
}

#[test]
fn a_session_saved_anywhere_loads_to_its_settled_record_in_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    for seed in 0..3 {
        let path = dir.path().join(format!("games-{seed}.db"));
        runtime().block_on(save_and_load_anywhere(
            path,
            |p| async move { SqliteGames::open(&p).await },
            seed,
        ));
    }
}

async fn save_file(path: &Path) -> SaveFile {
    SaveFile::open(path).await.unwrap()
}

#[test]
fn a_command_stored_without_its_hash_is_replayed_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.json");
    runtime().block_on(async {
        let store = save_file(&path).await;
        let mut s = duel();
        let game = sessions::create(&store, &s).await.unwrap();
        let adjust = Command::AdjustEnergy {
            fighter: FighterId(0),
            energy: Energy::new(1, 1, 1),
            reason: Note::from("ruling").unwrap(),
        };
        s.submit(GM, &adjust).unwrap();
        // As if the process died between storing the command and its hash.
        let command = serde_json::to_string(&adjust).unwrap();
        store.append(game, &Entry { seq: 0, seat: GM, command, mark: Mark::Played }).await.unwrap();
        let (back, n) = sessions::load::<_, IronTriangle>(&store, game).await.unwrap();
        assert_eq!((n, back.table().state()), (1, s.table().state()));
        // A stored command the rules refuse is reported with its number.
        let refused = serde_json::to_string(&Command::EndCombo).unwrap();
        store
            .append(game, &Entry { seq: 1, seat: SeatId(0), command: refused, mark: Mark::Played })
            .await
            .unwrap();
        let e = sessions::load::<_, IronTriangle>(&store, game).await.unwrap_err();
        assert!(
            matches!(e, SessionStoreError::Resume(session::ResumeError::Refused { number: 2, .. }, _)),
            "{e}"
        );
    });
}

#[test]
fn a_game_of_another_ruleset_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.json");
    runtime().block_on(async {
        let store = save_file(&path).await;
        let game = store
            .create_game(&NewGame {
                ruleset: "nodice".into(),
                ruleset_version: "1".into(),
                setup: "{}".into(),
                seeds: vec![],
            })
            .await
            .unwrap();
        let e = sessions::load::<_, IronTriangle>(&store, game).await.unwrap_err();
        assert_eq!(e.to_string(), "game 1 is a nodice game, not iron-triangle");
        let game = store
            .create_game(&NewGame {
                ruleset: "iron-triangle".into(),
                ruleset_version: "1".into(),
                setup: "{}".into(),
                seeds: vec![],
            })
            .await
            .unwrap();
        let e = sessions::load::<_, IronTriangle>(&store, game).await.unwrap_err();
        assert!(e.to_string().contains("the stored setup cannot be read as one of iron-triangle's"), "{e}");
    });
}
