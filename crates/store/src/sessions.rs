//! Keeping a [`Session`] in a [`Persist`] store: the one glue every shell uses (the CLI's
//! `--save`, campaign conflicts, a server).
//!
//! A session's [`Record`] maps onto the store's rows: the setup as JSON, each [`session::Entry`]
//! one [`Entry`] (`played`, `forced` or `undo`), and the events hash. Only *settled* entries are
//! appended ([`Session::settled`]): a face-down choice not yet revealed is never stored — on a
//! resume its seat chooses again — and the entries after it wait until the reveal, because the
//! choice then enters the record at its place. The store is append-only, so what is stored never
//! changes.

use session::{How, Record, ResumeError, Session};
use table::Ruleset;
use thiserror::Error;

use crate::{Entry, EventsHash, GameId, Mark, NewGame, Persist, PersistError};

/// Why a stored game could not be kept or resumed.
#[derive(Debug, Error)]
pub enum SessionStoreError {
    /// The store failed.
    #[error(transparent)]
    Persist(#[from] PersistError),
    /// The stored game is of another rule system.
    #[error("{game} is a {found} game, not {expected}")]
    WrongRuleset {
        /// The game.
        game: GameId,
        /// The ruleset asked for.
        expected: &'static str,
        /// The stored one.
        found: String,
    },
    /// A stored setup or command is not what this ruleset reads.
    #[error("{game}: the stored {what} cannot be read as one of {ruleset}'s: {reason}")]
    Unreadable {
        /// The game.
        game: GameId,
        /// The ruleset.
        ruleset: &'static str,
        /// `setup` or `command`.
        what: &'static str,
        /// What the JSON reader said.
        reason: String,
    },
    /// The commands do not replay.
    #[error("{game}: {0}", game = .1)]
    Resume(ResumeError, GameId),
    /// The session's record no longer starts with what the store holds (another process wrote
    /// to the game, or the session is not the game's).
    #[error("{0}: the store holds commands this session does not have; reload the game")]
    Diverged(GameId),
}

/// The store's description of `record`'s game: its ruleset, version and setup.
pub fn new_game<R: Ruleset>(record: &Record<R>) -> Result<NewGame, PersistError> {
    let setup = serde_json::to_string(&record.setup)
        .map_err(|e| PersistError::NotJson { field: "setup", reason: e.to_string() })?;
    Ok(NewGame {
        ruleset: R::NAME.to_owned(),
        ruleset_version: R::VERSION.to_string(),
        setup,
        // Today's draw source is seeded by the setup itself; sources mixed from several seeds
        // (issue 16) keep theirs here.
        seeds: Vec::new(),
    })
}

/// `record`'s entries as the store's rows, numbered from 0.
pub fn rows<R: Ruleset>(record: &Record<R>) -> Result<Vec<Entry>, PersistError> {
    record
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let command = serde_json::to_string(&e.command)
                .map_err(|e| PersistError::NotJson { field: "command", reason: e.to_string() })?;
            let mark = match e.how {
                How::Given => Mark::Played,
                How::Forced => Mark::Forced,
                How::Undo => Mark::Undo,
            };
            Ok(Entry { seq: i as u64, seat: e.seat, command, mark })
        })
        .collect()
}

/// Creates a game in `store` for `session` (as it is now, usually just begun) and stores what
/// is settled of it. Returns the game's number.
pub async fn create<P: Persist, R: Ruleset>(
    store: &P,
    session: &Session<R>,
) -> Result<GameId, SessionStoreError> {
    let game = store.create_game(&new_game(&session.record())?).await?;
    save(store, game, session, 0).await?;
    Ok(game)
}

/// Appends the session's settled entries beyond the first `stored` to `game`, and the events
/// hash when nothing is pending. Returns how many entries the game now holds (the next call's
/// `stored`).
pub async fn save<P: Persist, R: Ruleset>(
    store: &P,
    game: GameId,
    session: &Session<R>,
    stored: u64,
) -> Result<u64, SessionStoreError> {
    let record = session.settled_record();
    let settled = record.entries.len();
    let from = usize::try_from(stored).unwrap_or(usize::MAX);
    if from > settled {
        return Err(SessionStoreError::Diverged(game));
    }
    for row in &rows(&record)?[from..] {
        store.append(game, row).await?;
    }
    if settled > from {
        let hash = EventsHash { entries: settled as u64, hash: record.events_hash };
        store.set_events_hash(game, &hash).await?;
    }
    Ok(settled as u64)
}

/// Resumes `game` from `store` as a session of `R`: its commands replay through the rules and
/// must derive the stored events hash. Returns the session and how many entries are stored.
pub async fn load<P: Persist, R: Ruleset>(
    store: &P,
    game: GameId,
) -> Result<(Session<R>, u64), SessionStoreError> {
    let stored = store.game(game).await?;
    if stored.game.ruleset != R::NAME {
        return Err(SessionStoreError::WrongRuleset { game, expected: R::NAME, found: stored.game.ruleset });
    }
    let unreadable = |what, e: serde_json::Error| SessionStoreError::Unreadable {
        game,
        ruleset: R::NAME,
        what,
        reason: e.to_string(),
    };
    let setup: R::Setup = serde_json::from_str(&stored.game.setup).map_err(|e| unreadable("setup", e))?;
    let rows = store.entries(game).await?;
    let mut entries = Vec::with_capacity(rows.len());
    for row in &rows {
        let command: R::Command = serde_json::from_str(&row.command).map_err(|e| unreadable("command", e))?;
        let how = match row.mark {
            Mark::Played => How::Given,
            Mark::Forced => How::Forced,
            Mark::Undo => How::Undo,
        };
        entries.push(session::Entry { seat: row.seat, command, how });
    }
    let version = stored.game.ruleset_version.parse().unwrap_or(0);
    let hash = stored.events_hash.filter(|h| h.entries == rows.len() as u64);
    let checked = hash.is_some();
    let record = Record::<R> {
        ruleset: R::NAME.to_owned(),
        version,
        setup,
        entries,
        events_hash: hash.map(|h| h.hash).unwrap_or_default(),
    };
    // The hash is stored after the commands it covers: after a crash between the two, the
    // commands are replayed (each still checked by the rules) without it.
    let session = if checked { Session::resume(record) } else { Session::replay(record) }
        .map_err(|e| SessionStoreError::Resume(e, game))?;
    Ok((session, rows.len() as u64))
}
