//! Every link of a table made anew from the host's terminal (`facedown tables links`, issue 34,
//! Lobby): the GM's, each seat's and the spectators'. Only their hashes are stored, so the old
//! links cannot be shown again: reissuing is the only way to hand them out again, and it
//! revokes the old ones.
//!
//! It writes the table's access rows in one commit. A server serving the same PostgreSQL
//! database hears the commit (access rows changed) and closes every connection of the old links
//! with `revoked`, whatever instance holds them; a SQLite file has no such notice, so
//! [`reissue_every_link`] is for a store no server is serving (the CLI checks it:
//! `store::SqliteTables::alone`).

use std::collections::BTreeMap;

use serde_json::Value;
use store::tables::{Access, TableId, TableStore, Write};

use super::{who_key, who_of};
use crate::auth;
use crate::protocol::{Controller, CreatedTable, Who, link};

/// Why a table's links could not be reissued.
#[derive(Debug, thiserror::Error)]
pub enum RelinkError {
    /// The store has no such table.
    #[error("there is no table {0} in the store")]
    NoTable(u64),
    /// The table was closed (by its GM link, or because nobody joined it in time): reissuing
    /// would open it again.
    #[error(
        "table {0} is closed (its GM closed it, or nobody joined it in time): a closed table is not \
         opened again; `facedown tables export` still writes it"
    )]
    Closed(u64),
    /// The table's setup cannot be read (its seats' names come from it).
    #[error("table {table} cannot be read: {why}")]
    Damaged {
        /// The table.
        table: u64,
        /// Why.
        why: String,
    },
    /// The store refused or failed.
    #[error(transparent)]
    Store(#[from] store::PersistError),
}

/// Makes a new token for every link of table `id` (each seat's, the GM's, the spectators'),
/// keeps only their hashes (each seat's controller unchanged) in one commit, and returns the
/// new links, made with `base` (`http://host:port` or the public URL), as a creation gives
/// them. The old links open nothing afterwards. A closed table is refused: this reopens
/// nothing.
pub async fn reissue_every_link<S: TableStore>(
    store: &S,
    id: TableId,
    base: &str,
) -> Result<CreatedTable, RelinkError> {
    reissue_every_link_with(store, id, base, &|_| auth::new_token()).await
}

/// [`reissue_every_link`] with each new token from `token` (given who the link opens:
/// `seat:N`, `gm`, `spectator`): the hosted table's next generation of derived tokens
/// ([`crate::hosted_token`], docs/hosting.md).
pub async fn reissue_every_link_with<S: TableStore>(
    store: &S,
    id: TableId,
    base: &str,
    token: &(dyn Fn(&str) -> String + Sync),
) -> Result<CreatedTable, RelinkError> {
    let stored = store.load(id).await.map_err(|e| match e {
        store::PersistError::NoTable(_) => RelinkError::NoTable(id.0),
        e => RelinkError::Store(e),
    })?;
    let closed = stored.finished && stored.table.access.iter().all(|a| a.token_hash.is_none());
    if closed {
        return Err(RelinkError::Closed(id.0));
    }
    let damaged = |why: String| RelinkError::Damaged { table: id.0, why };
    let setup: Value =
        serde_json::from_str(&stored.table.setup).map_err(|e| damaged(format!("setup: {e}")))?;
    let game =
        crate::systems::open(&stored.table.ruleset, &setup).map_err(|e| damaged(format!("setup: {e}")))?;
    let names: Vec<String> = game.seats().iter().map(|(_, s)| s.name.clone()).collect();
    let mut rows: BTreeMap<String, String> =
        stored.table.access.iter().map(|a| (a.who.clone(), a.controller.clone())).collect();
    // Every link the table has, even one whose row is missing.
    for who in (0..names.len() as u16).map(|seat| Who::Seat { seat }).chain([Who::Gm, Who::Spectator]) {
        let controller = match who {
            Who::Seat { .. } => serde_json::to_string(&Controller::Person).unwrap_or_else(|_| "null".into()),
            _ => "null".to_owned(),
        };
        rows.entry(who_key(who)).or_insert(controller);
    }
    let name = super::table_name(id);
    let mut writes = Vec::new();
    let mut created = CreatedTable {
        table: name.clone(),
        seats: BTreeMap::new(),
        gm: String::new(),
        spectator: String::new(),
    };
    for (key, controller) in rows {
        let Some(who) = who_of(&key) else { continue };
        let token = token(&key);
        let url = link(base, &name, &token);
        match who {
            Who::Seat { seat } => match names.get(usize::from(seat)) {
                Some(seat) => {
                    created.seats.insert(seat.clone(), url);
                }
                // A row of no seat of the setup: revoked, never handed out.
                None => {
                    writes.push(Write::Access {
                        table: id,
                        access: Access { who: key, token_hash: None, controller },
                    });
                    continue;
                }
            },
            Who::Gm => created.gm = url,
            Who::Spectator => created.spectator = url,
        }
        writes.push(Write::Access {
            table: id,
            access: Access { who: key, token_hash: Some(auth::hash(&token)), controller },
        });
    }
    store.commit(writes).await?;
    Ok(created)
}
