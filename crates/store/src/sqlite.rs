//! Games in a SQLite database: one row per game, its commands appended one row each.
//!
//! The schema (`migrations/`, applied with `sqlx::migrate!`) is portable SQL so that the
//! PostgreSQL backend of a later issue implements [`Persist`] on the same tables; only the
//! connection pragmas (WAL, `synchronous = FULL`, foreign keys, busy timeout) and
//! `BEGIN IMMEDIATE` are SQLite's. Sequence numbers are unique per game by the primary key
//! `(game_id, seq)`, so even two writers racing on one game cannot store the same number twice.
//! Several games may run at once in one database (one campaign); its migrations are numbered
//! from 1001 so they sit next to a campaign's in the same file.

use std::path::Path;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use crate::{Entry, EventsHash, GameId, GameRecord, Mark, NewGame, Persist, PersistError, check_json};

/// The embedded, versioned schema migrations (`migrations/*.sql`).
fn migrator() -> sqlx::migrate::Migrator {
    let mut m = sqlx::migrate!("./migrations");
    // The database may also hold a campaign's migrations, which this build does not list.
    m.set_ignore_missing(true);
    m
}

/// How every store opens its SQLite file (creating it and its folder if missing): WAL,
/// `synchronous = FULL` (a commit is on disk when it returns), foreign keys, a busy timeout.
pub(crate) fn durable_options(path: &Path) -> Result<SqliteConnectOptions, PersistError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| PersistError::Io(format!("cannot create {}: {e}", dir.display())))?;
    }
    Ok(SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .foreign_keys(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
        .busy_timeout(std::time::Duration::from_secs(10)))
}

/// Games kept in a SQLite database. Cheap to clone (the connection pool is shared).
#[derive(Clone)]
pub struct SqliteGames {
    pool: SqlitePool,
}

type GameRow = (i64, String, String, String, String, Option<String>, Option<i64>);

const GAME_COLUMNS: &str = "id, ruleset, ruleset_version, setup, seeds, events_hash, hashed_entries";

fn to_i64(n: u64, what: &str) -> Result<i64, PersistError> {
    i64::try_from(n).map_err(|_| PersistError::Corrupt(format!("{what} {n} is too large to store")))
}

fn to_u64(n: i64, what: &str) -> Result<u64, PersistError> {
    u64::try_from(n).map_err(|_| PersistError::Corrupt(format!("{what} {n} is negative")))
}

fn record(row: GameRow) -> Result<GameRecord, PersistError> {
    let (id, ruleset, ruleset_version, setup, seeds, hash, hashed) = row;
    let id = GameId(to_u64(id, "game number")?);
    let seeds =
        serde_json::from_str(&seeds).map_err(|e| PersistError::Corrupt(format!("{id}: seeds: {e}")))?;
    let events_hash = match (hash, hashed) {
        (Some(hash), Some(n)) => Some(EventsHash { entries: to_u64(n, "hashed entries")?, hash }),
        _ => None,
    };
    Ok(GameRecord { id, game: NewGame { ruleset, ruleset_version, setup, seeds }, events_hash })
}

impl SqliteGames {
    /// Opens (creating if missing) the database at `path` and applies any migration it lacks.
    /// A campaign database may be given: the games live next to the campaign.
    pub async fn open(path: &Path) -> Result<SqliteGames, PersistError> {
        let options = durable_options(path)?;
        let pool = SqlitePoolOptions::new().max_connections(4).connect_with(options).await?;
        SqliteGames::with_pool(pool).await
    }

    /// Uses an open pool (e.g. the campaign's), bringing the games schema up to date.
    pub async fn with_pool(pool: SqlitePool) -> Result<SqliteGames, PersistError> {
        migrator().run(&pool).await?;
        Ok(SqliteGames { pool })
    }

    /// Uses an open pool whose games schema is known to be current (e.g. a read-only campaign
    /// file, already brought up to date when it was last written): no migration is run.
    pub fn current(pool: SqlitePool) -> SqliteGames {
        SqliteGames { pool }
    }

    /// Closes the database (folding the write-ahead log back into the file).
    pub async fn close(&self) {
        self.pool.close().await;
    }

    async fn entry_count(tx: &mut sqlx::SqliteConnection, game: GameId) -> Result<u64, PersistError> {
        let id = to_i64(game.0, "game number")?;
        let exists: Option<(i64,)> =
            sqlx::query_as("SELECT id FROM games WHERE id = ?").bind(id).fetch_optional(&mut *tx).await?;
        if exists.is_none() {
            return Err(PersistError::NoGame(game));
        }
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM game_commands WHERE game_id = ?")
            .bind(id)
            .fetch_one(&mut *tx)
            .await?;
        to_u64(n, "entry count")
    }
}

impl Persist for SqliteGames {
    async fn create_game(&self, game: &NewGame) -> Result<GameId, PersistError> {
        check_json("setup", &game.setup)?;
        let seeds = serde_json::to_string(&game.seeds).map_err(|e| PersistError::Corrupt(e.to_string()))?;
        let (id,): (i64,) = sqlx::query_as(
            "INSERT INTO games (ruleset, ruleset_version, setup, seeds) VALUES (?, ?, ?, ?) RETURNING id",
        )
        .bind(&game.ruleset)
        .bind(&game.ruleset_version)
        .bind(&game.setup)
        .bind(seeds)
        .fetch_one(&self.pool)
        .await?;
        Ok(GameId(to_u64(id, "game number")?))
    }

    async fn append(&self, game: GameId, entry: &Entry) -> Result<(), PersistError> {
        check_json("command", &entry.command)?;
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        let expected = SqliteGames::entry_count(&mut tx, game).await?;
        if entry.seq != expected {
            return Err(PersistError::Sequence { game, expected, got: entry.seq });
        }
        let inserted = sqlx::query(
            "INSERT INTO game_commands (game_id, seq, seat, command, mark) VALUES (?, ?, ?, ?, ?)",
        )
        .bind(to_i64(game.0, "game number")?)
        .bind(to_i64(entry.seq, "sequence number")?)
        .bind(i64::from(entry.seat.0))
        .bind(&entry.command)
        .bind(entry.mark.as_str())
        .execute(&mut *tx)
        .await;
        match inserted {
            Ok(_) => {}
            // The primary key (game_id, seq): another writer stored this number first.
            Err(sqlx::Error::Database(d)) if d.is_unique_violation() => {
                return Err(PersistError::Sequence { game, expected: entry.seq + 1, got: entry.seq });
            }
            Err(e) => return Err(e.into()),
        }
        tx.commit().await?;
        Ok(())
    }

    async fn entries(&self, game: GameId) -> Result<Vec<Entry>, PersistError> {
        let mut tx = self.pool.begin().await?;
        SqliteGames::entry_count(&mut tx, game).await?;
        let rows: Vec<(i64, i64, String, String)> = sqlx::query_as(
            "SELECT seq, seat, command, mark FROM game_commands WHERE game_id = ? ORDER BY seq",
        )
        .bind(to_i64(game.0, "game number")?)
        .fetch_all(&mut *tx)
        .await?;
        tx.rollback().await?;
        rows.into_iter()
            .map(|(seq, seat, command, mark)| {
                Ok(Entry {
                    seq: to_u64(seq, "sequence number")?,
                    seat: table::SeatId(
                        u16::try_from(seat)
                            .map_err(|_| PersistError::Corrupt(format!("{game}: seat {seat}")))?,
                    ),
                    command,
                    mark: Mark::parse(&mark)
                        .ok_or_else(|| PersistError::Corrupt(format!("{game}: mark {mark:?}")))?,
                })
            })
            .collect()
    }

    async fn game(&self, game: GameId) -> Result<GameRecord, PersistError> {
        let row: Option<GameRow> = sqlx::query_as(&format!("SELECT {GAME_COLUMNS} FROM games WHERE id = ?"))
            .bind(to_i64(game.0, "game number")?)
            .fetch_optional(&self.pool)
            .await?;
        record(row.ok_or(PersistError::NoGame(game))?)
    }

    async fn games(&self) -> Result<Vec<GameRecord>, PersistError> {
        let rows: Vec<GameRow> = sqlx::query_as(&format!("SELECT {GAME_COLUMNS} FROM games ORDER BY id"))
            .fetch_all(&self.pool)
            .await?;
        rows.into_iter().map(record).collect()
    }

    async fn set_events_hash(&self, game: GameId, hash: &EventsHash) -> Result<(), PersistError> {
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        let have = SqliteGames::entry_count(&mut tx, game).await?;
        if hash.entries > have {
            return Err(PersistError::HashBeyondEnd { game, entries: hash.entries, have });
        }
        sqlx::query("UPDATE games SET events_hash = ?, hashed_entries = ? WHERE id = ?")
            .bind(&hash.hash)
            .bind(to_i64(hash.entries, "hashed entries")?)
            .bind(to_i64(game.0, "game number")?)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }
}
