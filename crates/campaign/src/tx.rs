//! A database transaction with an async API: each call awaits its query on the caller's
//! runtime (the store owns none). Every state-changing command of the store is one [`Tx`].

use iron_triangle::campaign::{Countdown, Problem, Sheet};
use iron_triangle::special::Edition;
use iron_triangle::{Character, Conflict, Event};
use serde::Serialize;
use serde::de::DeserializeOwned;
use sqlx::{Sqlite, Transaction};

use crate::StoreError;
use store::GameId;

/// An open transaction. Dropped without [`Tx::commit`], it rolls back.
pub struct Tx {
    pub(crate) tx: Transaction<'static, Sqlite>,
}

fn decode<T: DeserializeOwned>(what: &str, text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("{what}: {e}")))
}

fn encode<T: Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::Corrupt(format!("cannot encode: {e}")))
}

impl Tx {
    /// Commits: from here on, the change survives any crash.
    pub async fn commit(self) -> Result<(), StoreError> {
        self.tx.commit().await?;
        Ok(())
    }

    /// The campaign's edition of the rules.
    pub async fn edition(&mut self) -> Result<Edition, StoreError> {
        let (e,): (String,) =
            sqlx::query_as("SELECT edition FROM campaign WHERE id = 1").fetch_one(&mut *self.tx).await?;
        Ok(if e == "earlier" { Edition::Earlier } else { Edition::Current })
    }

    /// Sets the edition.
    pub async fn set_edition(&mut self, edition: Edition) -> Result<(), StoreError> {
        let e = if edition == Edition::Earlier { "earlier" } else { "current" };
        sqlx::query("UPDATE campaign SET edition = ? WHERE id = 1").bind(e).execute(&mut *self.tx).await?;
        Ok(())
    }

    /// The kind ("pc" or "npc") and stored name of a character, if there is one by that name.
    pub async fn kind_of(&mut self, name: &str) -> Result<Option<(String, String)>, StoreError> {
        Ok(sqlx::query_as("SELECT kind, name FROM characters WHERE name = ?")
            .bind(name.trim())
            .fetch_optional(&mut *self.tx)
            .await?)
    }

    async fn sheet_text(&mut self, kind: &str, name: &str) -> Result<String, StoreError> {
        let row: Option<(String,)> =
            sqlx::query_as("SELECT sheet FROM characters WHERE name = ? AND kind = ?")
                .bind(name.trim())
                .bind(kind)
                .fetch_optional(&mut *self.tx)
                .await?;
        match row {
            Some((t,)) => Ok(t),
            None => Err(self.not_found(kind, name).await?),
        }
    }

    async fn not_found(&mut self, kind: &str, name: &str) -> Result<StoreError, StoreError> {
        let names: Vec<(String,)> =
            sqlx::query_as("SELECT name FROM characters WHERE kind = ? ORDER BY created_at, name")
                .bind(kind)
                .fetch_all(&mut *self.tx)
                .await?;
        let what = if kind == "pc" { "player character" } else { "NPC" };
        let known = if names.is_empty() {
            "there are none yet".to_owned()
        } else {
            format!("the {what}s are {}", names.into_iter().map(|(n,)| n).collect::<Vec<_>>().join(", "))
        };
        Ok(StoreError::NotFound(format!("no {what} named {:?}; {known}", name.trim())))
    }

    /// A player character's sheet.
    pub async fn pc(&mut self, name: &str) -> Result<Sheet, StoreError> {
        let t = self.sheet_text("pc", name).await?;
        decode(name, &t)
    }

    /// An NPC's sheet.
    pub async fn npc(&mut self, name: &str) -> Result<Character, StoreError> {
        let t = self.sheet_text("npc", name).await?;
        decode(name, &t)
    }

    /// Every player character, in the order created.
    pub async fn pcs(&mut self) -> Result<Vec<Sheet>, StoreError> {
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT name, sheet FROM characters WHERE kind = 'pc' ORDER BY created_at, rowid")
                .fetch_all(&mut *self.tx)
                .await?;
        rows.iter().map(|(n, t)| decode(n, t)).collect()
    }

    /// Every NPC sheet, in the order added.
    pub async fn npcs(&mut self) -> Result<Vec<Character>, StoreError> {
        let rows: Vec<(String, String)> = sqlx::query_as(
            "SELECT name, sheet FROM characters WHERE kind = 'npc' ORDER BY created_at, rowid",
        )
        .fetch_all(&mut *self.tx)
        .await?;
        rows.iter().map(|(n, t)| decode(n, t)).collect()
    }

    async fn insert(&mut self, kind: &str, name: &str, text: String) -> Result<(), StoreError> {
        if kind == "pc" && name.trim().eq_ignore_ascii_case("gm") {
            return Err(StoreError::Invalid(
                "a player character cannot be called \"gm\": that is the NPCs' seat in conflicts".into(),
            ));
        }
        if let Some((k, existing)) = self.kind_of(name).await? {
            let what = if k == "pc" { "a player character" } else { "an NPC" };
            return Err(StoreError::Exists(format!(
                "{existing} is already {what} of this campaign; names are unique"
            )));
        }
        sqlx::query("INSERT INTO characters (name, kind, sheet) VALUES (?, ?, ?)")
            .bind(name.trim())
            .bind(kind)
            .bind(text)
            .execute(&mut *self.tx)
            .await?;
        Ok(())
    }

    /// Adds a player character (already validated).
    pub async fn insert_pc(&mut self, sheet: &Sheet) -> Result<(), StoreError> {
        let t = encode(sheet)?;
        self.insert("pc", sheet.name(), t).await
    }

    /// Adds an NPC sheet (already validated).
    pub async fn insert_npc(&mut self, c: &Character) -> Result<(), StoreError> {
        let t = encode(c)?;
        self.insert("npc", &c.name, t).await
    }

    /// Stores a changed player character (found by its name).
    pub async fn put_pc(&mut self, sheet: &Sheet) -> Result<(), StoreError> {
        let t = encode(sheet)?;
        let r = sqlx::query("UPDATE characters SET sheet = ? WHERE name = ? AND kind = 'pc'")
            .bind(t)
            .bind(sheet.name())
            .execute(&mut *self.tx)
            .await?;
        if r.rows_affected() != 1 {
            return Err(self.not_found("pc", sheet.name()).await?);
        }
        Ok(())
    }

    /// Removes an NPC sheet.
    pub async fn delete_npc(&mut self, name: &str) -> Result<(), StoreError> {
        let r = sqlx::query("DELETE FROM characters WHERE name = ? AND kind = 'npc'")
            .bind(name.trim())
            .execute(&mut *self.tx)
            .await?;
        if r.rows_affected() != 1 {
            return Err(self.not_found("npc", name).await?);
        }
        Ok(())
    }

    /// When the character last decided a problem's outcome: a number that grows with each
    /// problem settled (§7 tie-break); `None` if never.
    pub async fn last_decided(&mut self, name: &str) -> Result<Option<u64>, StoreError> {
        let row: Option<(Option<i64>,)> =
            sqlx::query_as("SELECT last_decided FROM characters WHERE name = ?")
                .bind(name)
                .fetch_optional(&mut *self.tx)
                .await?;
        Ok(row.and_then(|(v,)| v).and_then(|v| u64::try_from(v).ok()))
    }

    /// Records that the character has just decided a problem's outcome: it becomes the most
    /// recent decider. The number is one more than any given so far, so it follows the order
    /// problems were settled in, not their numbers (two problems may be open at once).
    pub async fn set_last_decided(&mut self, name: &str) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE characters SET last_decided = \
                 (SELECT COALESCE(MAX(last_decided), 0) + 1 FROM characters) WHERE name = ?",
        )
        .bind(name)
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    /// Every countdown, by name.
    pub async fn countdowns(&mut self) -> Result<Vec<Countdown>, StoreError> {
        let rows: Vec<(String, i64, i64)> =
            sqlx::query_as("SELECT name, boxes, marked FROM countdowns ORDER BY rowid")
                .fetch_all(&mut *self.tx)
                .await?;
        Ok(rows
            .into_iter()
            .map(|(name, b, m)| Countdown {
                name,
                boxes: u32::try_from(b).unwrap_or(0),
                marked: u32::try_from(m).unwrap_or(0),
            })
            .collect())
    }

    /// One countdown.
    pub async fn countdown(&mut self, name: &str) -> Result<Countdown, StoreError> {
        let all = self.countdowns().await?;
        let names: Vec<String> = all.iter().map(|c| c.name.clone()).collect();
        all.into_iter().find(|c| c.name.eq_ignore_ascii_case(name.trim())).ok_or_else(|| {
            StoreError::NotFound(if names.is_empty() {
                format!("no countdown named {:?}; there are none", name.trim())
            } else {
                format!("no countdown named {:?}; the countdowns are {}", name.trim(), names.join(", "))
            })
        })
    }

    /// Adds a countdown.
    pub async fn insert_countdown(&mut self, c: &Countdown) -> Result<(), StoreError> {
        if self.countdown(&c.name).await.is_ok() {
            return Err(StoreError::Exists(format!("a countdown named {:?} exists already", c.name)));
        }
        sqlx::query("INSERT INTO countdowns (name, boxes, marked) VALUES (?, ?, ?)")
            .bind(&c.name)
            .bind(i64::from(c.boxes))
            .bind(i64::from(c.marked))
            .execute(&mut *self.tx)
            .await?;
        Ok(())
    }

    /// Stores a marked countdown.
    pub async fn put_countdown(&mut self, c: &Countdown) -> Result<(), StoreError> {
        sqlx::query("UPDATE countdowns SET marked = ? WHERE name = ?")
            .bind(i64::from(c.marked))
            .bind(&c.name)
            .execute(&mut *self.tx)
            .await?;
        Ok(())
    }

    /// Erases a countdown.
    pub async fn delete_countdown(&mut self, name: &str) -> Result<Countdown, StoreError> {
        let c = self.countdown(name).await?;
        sqlx::query("DELETE FROM countdowns WHERE name = ?").bind(&c.name).execute(&mut *self.tx).await?;
        Ok(c)
    }

    /// The next problem number.
    pub async fn next_problem_id(&mut self) -> Result<u64, StoreError> {
        let (n,): (i64,) =
            sqlx::query_as("SELECT COALESCE(MAX(id), 0) + 1 FROM problems").fetch_one(&mut *self.tx).await?;
        Ok(u64::try_from(n).unwrap_or(1))
    }

    /// A problem by number.
    pub async fn problem(&mut self, id: u64) -> Result<Problem, StoreError> {
        let row: Option<(String,)> = sqlx::query_as("SELECT state FROM problems WHERE id = ?")
            .bind(i64::try_from(id).unwrap_or(-1))
            .fetch_optional(&mut *self.tx)
            .await?;
        match row {
            Some((t,)) => decode(&format!("problem {id}"), &t),
            None => Err(StoreError::NotFound(format!("no problem number {id}; `problem list` shows them"))),
        }
    }

    /// Every problem, oldest first.
    pub async fn problems(&mut self) -> Result<Vec<Problem>, StoreError> {
        let rows: Vec<(i64, String)> =
            sqlx::query_as("SELECT id, state FROM problems ORDER BY id").fetch_all(&mut *self.tx).await?;
        rows.iter().map(|(id, t)| decode(&format!("problem {id}"), t)).collect()
    }

    /// Stores a problem (new or changed).
    pub async fn put_problem(&mut self, p: &Problem) -> Result<(), StoreError> {
        let settled = matches!(p.stage, iron_triangle::campaign::problem::Stage::Settled { .. });
        sqlx::query(
            "INSERT INTO problems (id, state, settled) VALUES (?, ?, ?) \
                 ON CONFLICT (id) DO UPDATE SET state = excluded.state, settled = excluded.settled",
        )
        .bind(i64::try_from(p.id).unwrap_or(-1))
        .bind(encode(p)?)
        .bind(settled)
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    /// Starts a conflict record kept as the store's game `game`; returns its number.
    pub async fn insert_conflict(&mut self, initial: &Conflict, game: GameId) -> Result<u64, StoreError> {
        if let Some(id) = self.running_conflict().await? {
            return Err(StoreError::Busy(format!(
                "conflict {id} is still running; play it to its end (`conflict play`) or abandon it first"
            )));
        }
        let r = sqlx::query("INSERT INTO conflicts (initial, running, game_id) VALUES (?, 1, ?)")
            .bind(encode(initial)?)
            .bind(i64::try_from(game.0).unwrap_or(-1))
            .execute(&mut *self.tx)
            .await?;
        Ok(u64::try_from(r.last_insert_rowid()).unwrap_or(0))
    }

    /// The running conflict, if any.
    pub async fn running_conflict(&mut self) -> Result<Option<u64>, StoreError> {
        let row: Option<(i64,)> = sqlx::query_as("SELECT id FROM conflicts WHERE running = 1")
            .fetch_optional(&mut *self.tx)
            .await?;
        Ok(row.and_then(|(v,)| u64::try_from(v).ok()))
    }

    /// A conflict's initial state, its events and whether it still runs.
    pub async fn conflict(&mut self, id: u64) -> Result<(Conflict, Vec<Event>, bool), StoreError> {
        let key = i64::try_from(id).unwrap_or(-1);
        let row: Option<(String, bool)> =
            sqlx::query_as("SELECT initial, running FROM conflicts WHERE id = ?")
                .bind(key)
                .fetch_optional(&mut *self.tx)
                .await?;
        let Some((initial, running)) = row else {
            return Err(StoreError::NotFound(format!("no conflict number {id}; `conflict list` shows them")));
        };
        let rows: Vec<(String,)> =
            sqlx::query_as("SELECT event FROM conflict_events WHERE conflict_id = ? ORDER BY seq")
                .bind(key)
                .fetch_all(&mut *self.tx)
                .await?;
        let events =
            rows.iter().map(|(t,)| decode(&format!("conflict {id} event"), t)).collect::<Result<_, _>>()?;
        Ok((decode(&format!("conflict {id}"), &initial)?, events, running))
    }

    /// The store's game a conflict is kept as; `None` for a conflict begun by an older
    /// facedown, kept as events in `conflict_events`.
    pub async fn conflict_game(&mut self, id: u64) -> Result<Option<GameId>, StoreError> {
        let row: Option<(Option<i64>,)> = sqlx::query_as("SELECT game_id FROM conflicts WHERE id = ?")
            .bind(i64::try_from(id).unwrap_or(-1))
            .fetch_optional(&mut *self.tx)
            .await?;
        let Some((game,)) = row else {
            return Err(StoreError::NotFound(format!("no conflict number {id}; `conflict list` shows them")));
        };
        Ok(game.and_then(|g| u64::try_from(g).ok()).map(GameId))
    }

    /// Every conflict, oldest first.
    pub async fn conflicts(&mut self) -> Result<Vec<crate::ConflictSummary>, StoreError> {
        let rows: Vec<(i64, bool, Option<String>, String)> =
            sqlx::query_as("SELECT id, running, outcome, started_at FROM conflicts ORDER BY id")
                .fetch_all(&mut *self.tx)
                .await?;
        Ok(rows
            .into_iter()
            .map(|(i, running, outcome, started_at)| crate::ConflictSummary {
                id: u64::try_from(i).unwrap_or(0),
                running,
                outcome,
                started_at,
            })
            .collect())
    }

    /// Marks a conflict finished with its outcome.
    pub async fn finish_conflict(&mut self, id: u64, outcome: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE conflicts SET running = 0, outcome = ? WHERE id = ?")
            .bind(outcome)
            .bind(i64::try_from(id).unwrap_or(-1))
            .execute(&mut *self.tx)
            .await?;
        Ok(())
    }

    /// Appends to the campaign log.
    pub async fn log(
        &mut self,
        kind: &str,
        subject: &str,
        detail: serde_json::Value,
    ) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO log (kind, subject, detail) VALUES (?, ?, ?)")
            .bind(kind)
            .bind(subject)
            .bind(detail.to_string())
            .execute(&mut *self.tx)
            .await?;
        Ok(())
    }

    /// The campaign log, oldest first (the last `limit` entries when given).
    pub async fn log_entries(&mut self, limit: Option<u32>) -> Result<Vec<crate::LogEntry>, StoreError> {
        let rows: Vec<(i64, String, String, String, String)> = sqlx::query_as(
                "SELECT seq, at, kind, subject, detail FROM (SELECT * FROM log ORDER BY seq DESC LIMIT ?) ORDER BY seq",
            )
            .bind(limit.map_or(-1, i64::from))
            .fetch_all(&mut *self.tx).await?;
        rows.into_iter()
            .map(|(seq, at, kind, subject, detail)| {
                Ok(crate::LogEntry { seq, at, kind, subject, detail: decode("log entry", &detail)? })
            })
            .collect()
    }
}
