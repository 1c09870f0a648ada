//! The campaign store (a shell, layer 4): an Iron Triangle campaign kept in a SQLite database,
//! so a group can play session after session.
//!
//! One file is one campaign. [`Store::open`] creates it when missing and brings its schema up
//! to date with the versioned migrations in `migrations/`. Every method that changes state runs
//! in one transaction ([`Store::write`]) and appends to the campaign log; when it returns `Ok`
//! the change is committed (WAL journal, `synchronous = FULL`), so killing the process at any
//! moment loses nothing a command reported as done.
//!
//! The rules are not here: every check and change is a pure function of
//! `iron_triangle::campaign` (problems, countdowns, rests, levelling, entry and write-back) or
//! of `iron_triangle::character` (sheet validation). The store loads, calls, stores and logs.
//! The API is async and the store owns no runtime: every method is an `async fn` the caller
//! awaits on its own tokio runtime (a server's multi-thread runtime, or the one the CLI creates
//! at its top). Nothing inside calls `block_on`, so the store works from inside async code.

mod tx;

use std::path::{Path, PathBuf};
use std::str::FromStr;

use iron_triangle::campaign::conflicts::{check_entry, sat_out, write_back};
use iron_triangle::campaign::levelling::{self, Advance, LevelUp};
use iron_triangle::campaign::problem::{self, Choice, Cost, Decider, Stage};
use iron_triangle::campaign::rest::{self, Rest};
use iron_triangle::campaign::{CampaignError, Countdown, Problem, Sheet};
use iron_triangle::conflict::{Entrant, SeatSpec};
use iron_triangle::special::Edition;
use iron_triangle::{
    Action, Character, Conflict, Event, GM, IronTriangle, Kind, PLAYERS, Setup, SetupError, Stakes,
};
use serde::Serialize;
use serde_json::json;
use session::Session;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use store::sessions::{self, SessionStoreError};
use store::{GameId, SqliteGames};
use table::Role;
use thiserror::Error;

pub use tx::Tx;

/// The embedded, versioned schema migrations (`migrations/*.sql`), numbered below
/// [`GAMES_MIGRATIONS`].
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// Where the `store` crate's games migrations start: a campaign file may hold games (several
/// at once) next to the campaign, and their migrations are not the campaign's schema.
const GAMES_MIGRATIONS: i64 = 1000;

/// The campaign's migrator, accepting migrations of the games kept in the same file.
fn migrator() -> sqlx::migrate::Migrator {
    let mut m = sqlx::migrate::Migrator {
        migrations: MIGRATOR.migrations.clone(),
        ..sqlx::migrate::Migrator::DEFAULT
    };
    m.set_ignore_missing(true);
    m
}

/// Why a store command failed. Nothing was changed.
#[derive(Debug, Error)]
pub enum StoreError {
    /// A rule of the game refused the command.
    #[error(transparent)]
    Rule(#[from] CampaignError),
    /// A conflict could not start.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// No such character, problem, countdown or conflict.
    #[error("{0}")]
    NotFound(String),
    /// The name is taken.
    #[error("{0}")]
    Exists(String),
    /// Something else must finish first.
    #[error("{0}")]
    Busy(String),
    /// The command does not apply.
    #[error("{0}")]
    Invalid(String),
    /// A stored document could not be read.
    #[error("the campaign database is damaged: {0}")]
    Corrupt(String),
    /// The database.
    #[error("database error: {0}")]
    Db(#[from] sqlx::Error),
    /// The schema migrations.
    #[error("cannot bring the campaign database up to date: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// Files and the runtime.
    #[error("{0}")]
    Io(String),
    /// The file is not a facedown campaign (another program's database, or not a database),
    /// or is a place where nothing would be kept (`:memory:`). It was left as it was.
    #[error("{0}")]
    NotACampaign(String),
    /// The campaign file is read-only: it answers every read, and refuses this change.
    #[error("{0}")]
    ReadOnly(String),
    /// A conflict's game (its setup and commands, kept next to the campaign).
    #[error(transparent)]
    Game(#[from] SessionStoreError),
}

/// One entry of the campaign log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogEntry {
    /// Its number.
    pub seq: i64,
    /// When (UTC, ISO 8601).
    pub at: String,
    /// What kind of command, e.g. `problem.settle`.
    pub kind: String,
    /// Who or what it concerned.
    pub subject: String,
    /// The details.
    pub detail: serde_json::Value,
}

/// A conflict of the campaign, in a list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConflictSummary {
    /// Its number.
    pub id: u64,
    /// Whether it is still being played.
    pub running: bool,
    /// How it ended ("abandoned" when abandoned).
    pub outcome: Option<String>,
    /// When it started (UTC, ISO 8601).
    pub started_at: String,
}

/// What a finished conflict did to the campaign.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConflictResult {
    /// The conflict's number.
    pub id: u64,
    /// "the players' side wins", "the GM's side wins" or "drawn (the GM recorded the outcome)".
    pub outcome: String,
    /// The player characters written back, as they are now.
    pub characters: Vec<Sheet>,
    /// Player characters whose sit-out mark cleared because they sat this conflict out.
    pub sat_out: Vec<String>,
}

/// A campaign database. Cheap to clone (the connection pool is shared). Its futures are `Send`:
/// a server may use it from any task of a multi-thread runtime.
#[derive(Clone)]
pub struct Store {
    pool: SqlitePool,
    /// The conflicts' games, kept in the same file.
    games: SqliteGames,
    path: PathBuf,
    read_only: bool,
}

/// The default campaign file: `facedown/campaign.sqlite` in the user's data directory
/// (`$XDG_DATA_HOME` or `~/.local/share` on Linux).
pub fn default_path() -> Option<PathBuf> {
    dirs::data_dir().map(|d| d.join("facedown").join("campaign.sqlite"))
}

/// Checks that the database at `path` is a facedown campaign, or empty (then `true`: a new
/// campaign may be made in it). Another program's database is refused before anything is
/// added to it.
async fn check_campaign(pool: &SqlitePool, path: &Path) -> Result<bool, StoreError> {
    let tables: Vec<(String,)> = sqlx::query_as(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
    )
    .fetch_all(pool)
    .await?;
    if tables.is_empty() {
        return Ok(true);
    }
    let has = |t: &str| tables.iter().any(|(n,)| n == t);
    let not_ours = || {
        StoreError::NotACampaign(format!(
            "{} is not a facedown campaign (it is another database: tables {}); it was left unchanged",
            path.display(),
            tables.iter().take(5).map(|(n,)| format!("{n:?}")).collect::<Vec<_>>().join(", ")
        ))
    };
    if !has("_sqlx_migrations") || !has("campaign") {
        return Err(not_ours());
    }
    let ruleset: Option<(String,)> = sqlx::query_as("SELECT ruleset FROM campaign WHERE id = 1")
        .fetch_optional(pool)
        .await
        .map_err(|_| not_ours())?;
    match ruleset {
        Some((r,)) if r == "iron-triangle" => Ok(false),
        _ => Err(not_ours()),
    }
}

/// Checks that a read-only campaign needs no migration (it cannot be brought up to date).
async fn check_schema_current(pool: &SqlitePool, path: &Path) -> Result<(), StoreError> {
    let newest = MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0);
    let (applied,): (Option<i64>,) =
        sqlx::query_as("SELECT MAX(version) FROM _sqlx_migrations WHERE success = 1 AND version < ?")
            .bind(GAMES_MIGRATIONS)
            .fetch_one(pool)
            .await?;
    if applied.unwrap_or(0) < newest {
        return Err(StoreError::ReadOnly(format!(
            "the campaign {} is read-only and was made by an older facedown: give it write \
             permission once so its schema can be brought up to date",
            path.display()
        )));
    }
    Ok(())
}

fn edition_name(e: Edition) -> &'static str {
    if e == Edition::Earlier { "earlier" } else { "current" }
}

impl Store {
    /// Opens the campaign at `path`, creating the file (and its directory) if missing, and
    /// applies any schema migration it lacks.
    ///
    /// Refused, leaving the file as it was: `:memory:` or an empty path (nothing would be
    /// kept), and a file that is not a facedown campaign (another program's database gets no
    /// table added). A file without write permission is opened read-only: every read works,
    /// every change is refused with [`StoreError::ReadOnly`].
    pub async fn open(path: &Path) -> Result<Store, StoreError> {
        let shown = path.display();
        let name = path.to_string_lossy();
        if name.is_empty() || name == ":memory:" || name.starts_with("file::memory:") {
            return Err(StoreError::NotACampaign(format!(
                "{name:?} is not a file: a campaign in memory would be lost when the command ends; \
                 give a file path"
            )));
        }
        let read_only = std::fs::metadata(path).is_ok_and(|m| m.permissions().readonly());
        if let Some(dir) = path.parent().filter(|d| !read_only && !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| StoreError::Io(format!("cannot create {}: {e}", dir.display())))?;
        }
        let options = SqliteConnectOptions::new()
            .filename(path)
            .foreign_keys(true)
            .busy_timeout(std::time::Duration::from_secs(10));
        let options = if read_only {
            // Without pending changes in a write-ahead log, read the file as immutable: SQLite
            // then creates no `-wal` and `-shm` files (read-only like the database) that would
            // stand in the way once the file is made writable again.
            let mut wal = path.as_os_str().to_owned();
            wal.push("-wal");
            let wal_pending = std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0);
            options.read_only(true).immutable(!wal_pending)
        } else {
            options
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Full)
        };
        let not_a_database = |e: sqlx::Error| match &e {
            sqlx::Error::Database(d) if d.code().as_deref() == Some("26") => StoreError::NotACampaign(
                format!("{shown} is not a facedown campaign: it is not a SQLite database"),
            ),
            _ => StoreError::Db(e),
        };
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await
            .map_err(not_a_database)?;
        let checked = async {
            let fresh = check_campaign(&pool, path).await.map_err(|e| match e {
                StoreError::Db(e) => not_a_database(e),
                e => e,
            })?;
            if read_only {
                if fresh {
                    return Err(StoreError::NotACampaign(format!(
                        "{shown} is read-only and empty: it is not a campaign yet"
                    )));
                }
                check_schema_current(&pool, path).await
            } else {
                migrator().run(&pool).await?;
                SqliteGames::with_pool(pool.clone())
                    .await
                    .map_err(|e| StoreError::Game(SessionStoreError::Persist(e)))?;
                Ok(())
            }
        }
        .await;
        if let Err(e) = checked {
            pool.close().await;
            return Err(e);
        }
        Ok(Store { games: SqliteGames::current(pool.clone()), pool, path: path.to_owned(), read_only })
    }

    /// Closes the database: waits for the connection to finish and checkpoints the write-ahead
    /// log. Optional — everything a command reported as done is already committed — but a
    /// shell calls it before it exits so the `-wal` file is folded back into the database.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// Whether the campaign file was opened read-only (it has no write permission).
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version (the newest migration applied).
    pub async fn schema_version(&self) -> Result<i64, StoreError> {
        let (v,): (i64,) =
            sqlx::query_as("SELECT MAX(version) FROM _sqlx_migrations WHERE success = 1 AND version < ?")
                .bind(GAMES_MIGRATIONS)
                .fetch_one(&self.pool)
                .await?;
        Ok(v)
    }

    fn read_only_error(&self) -> StoreError {
        StoreError::ReadOnly(format!(
            "the campaign {} is read-only: it answers reads (status, show, lists) but changes \
             nothing; give it write permission to change it",
            self.path.display()
        ))
    }

    /// Runs `f` in one transaction and commits if it returns `Ok`; on `Err` nothing changes.
    pub async fn write<T>(
        &self,
        f: impl AsyncFnOnce(&mut Tx) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if self.read_only {
            return Err(self.read_only_error());
        }
        // IMMEDIATE takes the write lock at once, so two processes writing the same campaign
        // wait for each other (busy timeout) instead of failing on a read-to-write upgrade.
        let tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        let mut tx = Tx { tx };
        match f(&mut tx).await {
            Ok(out) => {
                tx.commit().await?;
                Ok(out)
            }
            Err(e) => {
                let _ = tx.tx.rollback().await;
                Err(e)
            }
        }
    }

    /// Runs `f` in a transaction that is rolled back: for reading.
    pub async fn read<T>(
        &self,
        f: impl AsyncFnOnce(&mut Tx) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let tx = self.pool.begin().await?;
        let mut tx = Tx { tx };
        let out = f(&mut tx).await;
        let _ = tx.tx.rollback().await;
        out
    }

    /// The campaign's edition of the rules.
    pub async fn edition(&self) -> Result<Edition, StoreError> {
        self.read(async |tx| tx.edition().await).await
    }

    /// Chooses the edition (§11); only before any character exists.
    pub async fn set_edition(&self, edition: Edition) -> Result<(), StoreError> {
        self.write(async |tx| {
            if !tx.pcs().await?.is_empty() || !tx.npcs().await?.is_empty() {
                if tx.edition().await? == edition {
                    return Ok(());
                }
                return Err(StoreError::Busy(
                    "the edition is chosen before the first character; this campaign has characters".into(),
                ));
            }
            tx.set_edition(edition).await?;
            tx.log("campaign.edition", "", json!({ "edition": edition_name(edition) })).await
        })
        .await
    }

    // ----- characters (§4) -----

    /// Creates a new player character: every creation rule of §4 is checked.
    pub async fn create_pc(&self, sheet: &Sheet) -> Result<Sheet, StoreError> {
        self.write(async |tx| {
            let edition = tx.edition().await?;
            let mut s = sheet.clone();
            s.character.name = s.character.name.trim().to_owned();
            s.validate_creation(edition)?;
            tx.insert_pc(&s).await?;
            tx.log("character.create", s.name(), json!({ "energy": s.character.energy.to_string() })).await?;
            Ok(s)
        })
        .await
    }

    /// Imports a player character exported from a campaign (any level; the sheet is checked
    /// against §4 and the levelling limits).
    pub async fn import_pc(&self, sheet: &Sheet) -> Result<Sheet, StoreError> {
        self.write(async |tx| {
            let edition = tx.edition().await?;
            let mut s = sheet.clone();
            s.character.name = s.character.name.trim().to_owned();
            s.validate(edition)?;
            tx.insert_pc(&s).await?;
            tx.log("character.import", s.name(), json!({ "level": s.character.level })).await?;
            Ok(s)
        })
        .await
    }

    /// A player character.
    pub async fn pc(&self, name: &str) -> Result<Sheet, StoreError> {
        self.read(async |tx| tx.pc(name).await).await
    }

    /// Every player character.
    pub async fn pcs(&self) -> Result<Vec<Sheet>, StoreError> {
        self.read(async |tx| tx.pcs().await).await
    }

    /// Changes a player character with a rule function; logs `kind` with `detail`.
    pub async fn update_pc(
        &self,
        name: &str,
        kind: &str,
        detail: serde_json::Value,
        f: impl FnOnce(&Sheet, Edition) -> Result<Sheet, CampaignError>,
    ) -> Result<Sheet, StoreError> {
        self.write(async |tx| {
            let edition = tx.edition().await?;
            let s = tx.pc(name).await?;
            let new = f(&s, edition)?;
            tx.put_pc(&new).await?;
            tx.log(kind, s.name(), detail).await?;
            Ok(new)
        })
        .await
    }

    /// Adds an NPC sheet (the structural rules of §4 apply).
    pub async fn add_npc(&self, c: &Character) -> Result<Character, StoreError> {
        self.write(async |tx| {
            let edition = tx.edition().await?;
            let mut c = c.clone();
            c.name = c.name.trim().to_owned();
            c.validate_in(Kind::Npc, edition).map_err(CampaignError::from)?;
            tx.insert_npc(&c).await?;
            tx.log("npc.add", &c.name, json!({})).await?;
            Ok(c)
        })
        .await
    }

    /// An NPC sheet.
    pub async fn npc(&self, name: &str) -> Result<Character, StoreError> {
        self.read(async |tx| tx.npc(name).await).await
    }

    /// Every NPC sheet.
    pub async fn npcs(&self) -> Result<Vec<Character>, StoreError> {
        self.read(async |tx| tx.npcs().await).await
    }

    /// Removes an NPC sheet.
    pub async fn remove_npc(&self, name: &str) -> Result<(), StoreError> {
        self.write(async |tx| {
            tx.delete_npc(name).await?;
            tx.log("npc.remove", name.trim(), json!({})).await
        })
        .await
    }

    // ----- problems (§7) -----

    /// Starts a problem for the interested players' characters (living PCs).
    pub async fn start_problem(
        &self,
        description: &str,
        characters: &[String],
    ) -> Result<Problem, StoreError> {
        self.write(async |tx| {
            let mut names = Vec::new();
            for c in characters {
                let s = tx.pc(c).await?;
                if s.character.dead {
                    return Err(CampaignError::Dead(s.name().to_owned()).into());
                }
                names.push(s.name().to_owned());
            }
            if description.trim().is_empty() {
                return Err(StoreError::Invalid(
                    "a problem needs a description of what stands in the way".into(),
                ));
            }
            let id = tx.next_problem_id().await?;
            let p = Problem::new(id, description, &names)?;
            tx.put_problem(&p).await?;
            tx.log(
                "problem.start",
                &format!("problem {id}"),
                json!({ "description": p.description, "characters": names }),
            )
            .await?;
            Ok(p)
        })
        .await
    }

    /// A problem.
    pub async fn problem(&self, id: u64) -> Result<Problem, StoreError> {
        self.read(async |tx| tx.problem(id).await).await
    }

    /// Every problem.
    pub async fn problems(&self) -> Result<Vec<Problem>, StoreError> {
        self.read(async |tx| tx.problems().await).await
    }

    /// A player's face-down choice (the log says only that it was made).
    pub async fn choose(&self, id: u64, character: &str, choice: &Choice) -> Result<Problem, StoreError> {
        self.write(async |tx| {
            let p = tx.problem(id).await?;
            let s = tx.pc(character).await?;
            let p = p.choose(&s, choice)?;
            tx.put_problem(&p).await?;
            tx.log("problem.choose", &format!("problem {id}"), json!({ "character": s.name() })).await?;
            Ok(p)
        })
        .await
    }

    /// Reveals a problem's choices and names its narrator (or the GM on a tie).
    pub async fn reveal(&self, id: u64) -> Result<Problem, StoreError> {
        self.write(async |tx| {
            let p = tx.problem(id).await?;
            let mut last = Vec::new();
            for e in &p.entries {
                last.push((e.character.clone(), tx.last_decided(&e.character).await?));
            }
            let lookup = |n: &str| last.iter().find(|(c, _)| c.eq_ignore_ascii_case(n)).and_then(|(_, v)| *v);
            let p = p.reveal(&lookup)?;
            tx.put_problem(&p).await?;
            tx.log(
                "problem.reveal",
                &format!("problem {id}"),
                json!({ "choices": p.view().entries, "stage": p.stage }),
            )
            .await?;
            Ok(p)
        })
        .await
    }

    /// The GM breaks a tie.
    pub async fn break_tie(&self, id: u64, character: &str) -> Result<Problem, StoreError> {
        self.problem_step(id, "problem.tie", json!({ "character": character }), |p| {
            p.gm_breaks_tie(character)
        })
        .await
    }

    /// The narrator cannot narrate within the rules: the next-highest choice wins.
    pub async fn cannot_narrate(&self, id: u64) -> Result<Problem, StoreError> {
        self.problem_step(id, "problem.pass", json!({}), Problem::cannot_narrate).await
    }

    async fn problem_step(
        &self,
        id: u64,
        kind: &str,
        detail: serde_json::Value,
        f: impl FnOnce(&Problem) -> Result<Problem, CampaignError>,
    ) -> Result<Problem, StoreError> {
        self.write(async |tx| {
            let p = f(&tx.problem(id).await?)?;
            tx.put_problem(&p).await?;
            tx.log(kind, &format!("problem {id}"), json!({ "detail": detail, "stage": p.stage })).await?;
            Ok(p)
        })
        .await
    }

    /// A veto (§7).
    pub async fn veto(&self, id: u64, character: &str, choice: &Choice) -> Result<Problem, StoreError> {
        self.write(async |tx| {
            let s = tx.pc(character).await?;
            let p = tx.problem(id).await?.veto(&s, choice)?;
            tx.put_problem(&p).await?;
            tx.log(
                "problem.veto",
                &format!("problem {id}"),
                json!({ "character": s.name(), "stage": p.stage }),
            )
            .await?;
            Ok(p)
        })
        .await
    }

    /// Settles a problem: the deciding character pays its option's cost (and the veto mark)
    /// and becomes the most recent decider; `consequence` is free text for the log.
    pub async fn settle(
        &self,
        id: u64,
        consequence: &str,
    ) -> Result<(Problem, Vec<(String, Cost)>), StoreError> {
        self.write(async |tx| {
            let (p, costs) = tx.problem(id).await?.settle()?;
            for (name, cost) in &costs {
                let s = tx.pc(name).await?;
                tx.put_pc(&problem::pay(&s, cost)?).await?;
            }
            if let Some(Decider::Character { name, .. }) = p.decider() {
                let name = name.clone();
                tx.set_last_decided(&name).await?;
            }
            tx.put_problem(&p).await?;
            tx.log(
                "problem.settle",
                &format!("problem {id}"),
                json!({ "stage": p.stage, "costs": costs, "consequence": consequence }),
            )
            .await?;
            Ok((p, costs))
        })
        .await
    }

    // ----- countdowns (§8) -----

    /// Creates a countdown of 4–8 boxes.
    pub async fn create_countdown(&self, name: &str, boxes: u32) -> Result<Countdown, StoreError> {
        self.write(async |tx| {
            let c = Countdown::new(name, boxes)?;
            tx.insert_countdown(&c).await?;
            tx.log("countdown.create", &c.name, json!({ "boxes": boxes })).await?;
            Ok(c)
        })
        .await
    }

    /// Marks one box.
    pub async fn mark_countdown(&self, name: &str) -> Result<Countdown, StoreError> {
        self.write(async |tx| mark_countdown(tx, name).await).await
    }

    /// Erases a countdown (the threat was stopped).
    pub async fn erase_countdown(&self, name: &str) -> Result<Countdown, StoreError> {
        self.write(async |tx| {
            let c = tx.delete_countdown(name).await?;
            tx.log("countdown.erase", &c.name, json!({ "marked": c.marked, "boxes": c.boxes })).await?;
            Ok(c)
        })
        .await
    }

    /// Every countdown.
    pub async fn countdowns(&self) -> Result<Vec<Countdown>, StoreError> {
        self.read(async |tx| tx.countdowns().await).await
    }

    // ----- resting (§9) -----

    /// A rest for every living player character (§9), with each player's choice of type
    /// where the rest has one; a full rest may mark a countdown. All or nothing.
    pub async fn rest(
        &self,
        kind: Rest,
        choices: &[(String, Action)],
        mark: Option<&str>,
    ) -> Result<Vec<Sheet>, StoreError> {
        self.write(async |tx| {
            if let Some(id) = tx.running_conflict().await? {
                return Err(StoreError::Busy(format!("conflict {id} is still running; rest after it (§9)")));
            }
            let pcs = tx.pcs().await?;
            for (n, _) in choices {
                if !pcs.iter().any(|s| s.name().eq_ignore_ascii_case(n)) {
                    tx.pc(n).await?;
                }
            }
            if mark.is_some() && kind != Rest::Full {
                return Err(StoreError::Invalid("only a full rest lets the GM mark a countdown (§9)".into()));
            }
            let choice = |n: &str| choices.iter().find(|(c, _)| c.eq_ignore_ascii_case(n)).map(|(_, a)| *a);
            let rested = rest::rest_all(&pcs, kind, &choice)?;
            for s in &rested {
                tx.put_pc(s).await?;
            }
            tx.log(
                "rest",
                kind.name(),
                json!({ "energy": rested.iter().filter(|s| !s.character.dead).map(|s| (s.name().to_owned(), s.current().to_string())).collect::<Vec<_>>() }),
            ).await?;
            if let Some(m) = mark {
                mark_countdown(tx, m).await?;
            }
            Ok(rested)
        }).await
    }

    // ----- levelling (§10) -----

    /// Levels a character up (§10).
    pub async fn level_up(&self, name: &str, decision: &LevelUp) -> Result<Sheet, StoreError> {
        self.update_pc(name, "character.level_up", json!({ "decision": decision }), |s, e| {
            levelling::level_up(s, decision, e)
        })
        .await
    }

    /// Ends a session (§10): logs it and returns each living player character with whether its
    /// marks allow a level-up now. Marks carry over; nothing on the sheets changes.
    pub async fn end_session(&self) -> Result<Vec<(Sheet, bool)>, StoreError> {
        self.write(async |tx| {
            let edition = tx.edition().await?;
            let out: Vec<(Sheet, bool)> = tx
                .pcs()
                .await?
                .into_iter()
                .filter(|s| !s.character.dead)
                .map(|s| {
                    let may = levelling::may_level_up(&s, edition);
                    (s, may)
                })
                .collect();
            tx.log(
                "session.end",
                "",
                json!(out.iter().map(|(s, may)| json!({ "name": s.name(), "questions": s.questions(), "may_level_up": may })).collect::<Vec<_>>()),
            ).await?;
            Ok(out)
        }).await
    }

    /// Creates a replacement for a dead character (§10).
    pub async fn replace(&self, dead: &str, base: &Sheet, levels: &[Advance]) -> Result<Sheet, StoreError> {
        self.write(async |tx| {
            let edition = tx.edition().await?;
            let d = tx.pc(dead).await?;
            let mut base = base.clone();
            base.character.name = base.character.name.trim().to_owned();
            let s = levelling::replacement(&d, &base, levels, edition)?;
            tx.insert_pc(&s).await?;
            tx.log(
                "character.replace",
                s.name(),
                json!({ "replaces": d.name(), "level": s.character.level, "levels": levels }),
            )
            .await?;
            Ok(s)
        })
        .await
    }

    // ----- conflicts (§5) -----

    /// Starts a conflict from campaign characters: the player characters by name (each in a
    /// seat of its own, named after it) and NPC sheets (all in the seat `gm`), each NPC given
    /// as `(sheet name, name in this conflict)`. Checks the entry rules (§5.1 step 2).
    pub async fn start_conflict(
        &self,
        pcs: &[String],
        npcs: &[(String, Option<String>)],
        stakes: &Stakes,
        seed: u64,
    ) -> Result<(u64, Conflict), StoreError> {
        if self.read_only {
            // Refused before a game is created for it.
            return Err(self.read_only_error());
        }
        let setup = self.read(async |tx| conflict_setup(tx, pcs, npcs, stakes, seed).await).await?;
        let session = Session::<IronTriangle>::new(setup.clone())?;
        // The game is created first (its own write): a conflict that then fails to start
        // leaves a game nothing refers to, never a conflict without its commands.
        let game = sessions::create(&self.games, &session).await?;
        self.write(async |tx| {
            if conflict_setup(tx, pcs, npcs, stakes, seed).await? != setup {
                return Err(StoreError::Busy(
                    "the campaign changed while the conflict was being set up; start it again".into(),
                ));
            }
            let conflict = session.table().initial().clone();
            let id = tx.insert_conflict(&conflict, game).await?;
            tx.log(
                "conflict.start",
                &format!("conflict {id}"),
                json!({ "stakes": stakes, "characters": conflict.fighters.iter().map(|f| f.name().to_owned()).collect::<Vec<_>>() }),
            ).await?;
            Ok((id, conflict))
        }).await
    }

    /// A running conflict as a session to play on, with where its game is kept. A conflict
    /// begun by an older facedown (kept as events, not commands) cannot be continued: it is
    /// refused with a message saying to abandon it.
    pub async fn conflict_session(
        &self,
        id: u64,
    ) -> Result<(Session<IronTriangle>, ConflictGame), StoreError> {
        let (game, running) = self
            .read(async |tx| {
                let (_, _, running) = tx.conflict(id).await?;
                Ok((tx.conflict_game(id).await?, running))
            })
            .await?;
        let Some(game) = game else {
            return Err(StoreError::Invalid(format!(
                "conflict {id} was begun by an older facedown, which kept its events rather than its \
                 commands, so it cannot be continued; abandon it (`facedown campaign conflict abandon \
                 {id}`) and start it again"
            )));
        };
        let (session, stored) = sessions::load::<_, IronTriangle>(&self.games, game).await?;
        Ok((session, ConflictGame { id, game, stored, running }))
    }

    /// Stores a conflict's progress: the session's settled commands not stored yet and, when
    /// the conflict is over, its end written back to the player characters (one transaction).
    /// Returns the result when it ended.
    pub async fn save_conflict(
        &self,
        conflict: &mut ConflictGame,
        session: &Session<IronTriangle>,
    ) -> Result<Option<ConflictResult>, StoreError> {
        let id = conflict.id;
        if !conflict.running {
            return Err(StoreError::Busy(format!("conflict {id} is over")));
        }
        conflict.stored = sessions::save(&self.games, conflict.game, session, conflict.stored).await?;
        let state = session.table().state();
        if !matches!(state.phase, iron_triangle::Phase::Over) {
            return Ok(None);
        }
        let result = self
            .write(async |tx| {
                let (_, _, running) = tx.conflict(id).await?;
                if !running {
                    return Err(StoreError::Busy(format!("conflict {id} is over")));
                }
                conflict_over(tx, id, state).await
            })
            .await?;
        conflict.running = false;
        Ok(Some(result))
    }

    /// A conflict's initial state, events and whether it runs.
    pub async fn conflict(&self, id: u64) -> Result<(Conflict, Vec<Event>, bool), StoreError> {
        let (initial, events, running, game) = self
            .read(async |tx| {
                let (initial, events, running) = tx.conflict(id).await?;
                Ok((initial, events, running, tx.conflict_game(id).await?))
            })
            .await?;
        let Some(game) = game else { return Ok((initial, events, running)) };
        // Kept as commands: the events are derived by replaying them.
        let (session, _) = sessions::load::<_, IronTriangle>(&self.games, game).await?;
        Ok((session.table().initial().clone(), session.table().log().to_vec(), running))
    }

    /// The running conflict's number, if any.
    pub async fn running_conflict(&self) -> Result<Option<u64>, StoreError> {
        self.read(async |tx| tx.running_conflict().await).await
    }

    /// Every conflict, oldest first.
    pub async fn conflicts(&self) -> Result<Vec<ConflictSummary>, StoreError> {
        self.read(async |tx| tx.conflicts().await).await
    }

    /// Abandons a running conflict: nothing is written back (the GM narrates what happened).
    pub async fn abandon_conflict(&self, id: u64) -> Result<(), StoreError> {
        self.write(async |tx| {
            let (_, _, running) = tx.conflict(id).await?;
            if !running {
                return Err(StoreError::Busy(format!("conflict {id} is over")));
            }
            tx.finish_conflict(id, "abandoned").await?;
            tx.log("conflict.abandon", &format!("conflict {id}"), json!({})).await
        })
        .await
    }

    /// The campaign log (the last `limit` entries when given).
    pub async fn log(&self, limit: Option<u32>) -> Result<Vec<LogEntry>, StoreError> {
        self.read(async |tx| tx.log_entries(limit).await).await
    }
}

/// The end of conflict `id`, over in `state`, written back to the player characters (§5.4) and
/// logged; the conflict is marked finished.
async fn conflict_over(tx: &mut Tx, id: u64, state: &Conflict) -> Result<ConflictResult, StoreError> {
    let outcome = match state.ending.and_then(|e| e.winner) {
        Some(s) if s == PLAYERS => "the players' side wins",
        Some(s) if s == GM => "the GM's side wins",
        _ => "drawn (the GM recorded the outcome)",
    };
    let mut written = Vec::new();
    let mut cleared = Vec::new();
    for s in tx.pcs().await? {
        let fighter =
            state.fighters.iter().find(|f| f.side == PLAYERS && f.name().eq_ignore_ascii_case(s.name()));
        match fighter {
            Some(f) => {
                let new = write_back(&s, f);
                tx.put_pc(&new).await?;
                written.push(new);
            }
            None if s.character.sits_out_next_conflict => {
                tx.put_pc(&sat_out(&s)).await?;
                cleared.push(s.name().to_owned());
            }
            None => {}
        }
    }
    tx.finish_conflict(id, outcome).await?;
    tx.log(
        "conflict.end",
        &format!("conflict {id}"),
        json!({
            "outcome": outcome,
            "characters": written.iter().map(|s| json!({
                "name": s.name(), "energy": s.current().to_string(), "dead": s.character.dead,
                "zero_marks": s.zero_marks, "sits_out_next_conflict": s.character.sits_out_next_conflict,
            })).collect::<Vec<_>>(),
            "sat_out": cleared,
        }),
    )
    .await?;
    Ok(ConflictResult { id, outcome: outcome.to_owned(), characters: written, sat_out: cleared })
}

/// The setup of a conflict between campaign characters: the player characters by name (each in
/// a seat of its own, named after it) and NPC sheets (all in the seat `gm`), each NPC given as
/// `(sheet name, name in this conflict)`. Checks the entry rules (§5.1 step 2).
async fn conflict_setup(
    tx: &mut Tx,
    pcs: &[String],
    npcs: &[(String, Option<String>)],
    stakes: &Stakes,
    seed: u64,
) -> Result<Setup, StoreError> {
    let edition = tx.edition().await?;
    let all = tx.pcs().await?;
    let mut names = Vec::new();
    for n in pcs {
        names.push(tx.pc(n).await?.name().to_owned());
    }
    check_entry(&all, &names, stakes)?;
    if npcs.is_empty() {
        return Err(StoreError::Invalid("a conflict needs at least one NPC on the GM's side (§5.1)".into()));
    }
    let mut seats = Vec::new();
    let mut characters = Vec::new();
    for n in &names {
        let s = tx.pc(n).await?;
        seats.push(SeatSpec { name: n.clone(), role: Role::Player });
        characters.push(Entrant { seat: n.clone(), character: s.character });
    }
    seats.push(SeatSpec { name: "gm".into(), role: Role::Gm });
    for (sheet, alias) in npcs {
        let mut c = tx.npc(sheet).await?;
        if let Some(a) = alias {
            c.name = a.trim().to_owned();
        }
        characters.push(Entrant { seat: "gm".into(), character: c });
    }
    Ok(Setup { stakes: stakes.clone(), seats, characters, edition, seed })
}

/// A running conflict's game: where its commands are kept and how many are stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictGame {
    /// The conflict's number.
    pub id: u64,
    /// Its game in the store (same file).
    pub game: GameId,
    /// How many of its commands are stored.
    pub stored: u64,
    /// Whether it was still running when loaded.
    pub running: bool,
}

async fn mark_countdown(tx: &mut Tx, name: &str) -> Result<Countdown, StoreError> {
    let c = tx.countdown(name).await?.mark()?;
    tx.put_countdown(&c).await?;
    tx.log(
        "countdown.mark",
        &c.name,
        json!({ "marked": c.marked, "boxes": c.boxes, "complete": c.is_complete() }),
    )
    .await?;
    Ok(c)
}

/// Parses an edition name: `current` or `earlier`.
pub fn parse_edition(s: &str) -> Result<Edition, StoreError> {
    match s.trim().to_ascii_lowercase().as_str() {
        "current" | "001" => Ok(Edition::Current),
        "earlier" | "000" => Ok(Edition::Earlier),
        other => Err(StoreError::Invalid(format!("unknown edition {other:?}; use current or earlier"))),
    }
}

/// Parses `NAME=TYPE` for a rest choice.
pub fn parse_rest_choice(s: &str) -> Result<(String, Action), StoreError> {
    let (n, t) = s
        .split_once('=')
        .ok_or_else(|| StoreError::Invalid(format!("{s:?}: write CHARACTER=TYPE, e.g. Ada=grapple")))?;
    let a = Action::from_str(t.trim()).map_err(|e| StoreError::Invalid(format!("{s:?}: {e}")))?;
    Ok((n.trim().to_owned(), a))
}

/// The stage of a problem in words.
pub fn stage_words(p: &Problem) -> String {
    match &p.stage {
        Stage::Choosing => {
            let waiting: Vec<&str> =
                p.entries.iter().filter(|e| e.choice.is_none()).map(|e| e.character.as_str()).collect();
            if waiting.is_empty() {
                "everyone has chosen; reveal".into()
            } else {
                format!("choosing, face down; waiting for {}", waiting.join(", "))
            }
        }
        Stage::GmTie { tied, .. } => format!("tie between {}: the GM names the narrator", tied.join(", ")),
        Stage::Narrating { decider: Decider::Gm, .. } => "the GM decides the outcome".into(),
        Stage::Narrating { decider: Decider::Character { name, choice }, vetoed, .. } => format!(
            "{name} narrates: {} ({}){}",
            choice.option.describe(),
            choice.option.number(),
            if vetoed.is_some() { ", by veto" } else { "" }
        ),
        Stage::Settled { decider: Decider::Gm, .. } => "settled: the GM decided".into(),
        Stage::Settled { decider: Decider::Character { name, choice }, vetoed } => format!(
            "settled: {name} decided — {} ({}){}",
            choice.option.describe(),
            choice.option.number(),
            if vetoed.is_some() { ", by veto" } else { "" }
        ),
    }
}
