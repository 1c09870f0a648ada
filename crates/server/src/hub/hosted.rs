//! The table `facedown serve --table` hosts (issue 34, Lobby; docs/hosting.md): its links'
//! tokens are derived from the host's key ([`auth::derived_token`]: the table, the link, a
//! generation), so that the command, run again on the same data, prints the same links of the
//! same unfinished table while the store keeps only their hashes.

use std::collections::BTreeMap;

use serde_json::Value;
use store::tables::{TableId, TableStore};

use super::relink::RelinkError;
use super::{who_key, who_of};
use crate::auth;
use crate::protocol::{CreatedTable, Who, link};

/// The links of a hosted table as the host's key derives them.
#[derive(Debug, Clone, PartialEq)]
pub struct HostedLinks {
    /// The links whose stored hash is still the derived token's, as a creation gives them
    /// (a link missing here was changed from the GM screen since: see `changed`).
    pub links: CreatedTable,
    /// The links changed since (reissued or revoked from the GM screen), by who they open
    /// (`seat:N`, `gm`, `spectator`): their tokens are not the host's to print.
    pub changed: Vec<String>,
}

/// The links of the hosted table `id` at `generation`, made with `base`, or `None` when the
/// table is not there to reopen: not in the store, or finished (over or closed): a finished
/// table makes way for a new one.
pub async fn hosted_links<S: TableStore>(
    store: &S,
    id: TableId,
    key: &[u8],
    generation: u64,
    base: &str,
) -> Result<Option<HostedLinks>, RelinkError> {
    let stored = match store.load(id).await {
        Ok(stored) => stored,
        Err(store::PersistError::NoTable(_)) => return Ok(None),
        Err(e) => return Err(RelinkError::Store(e)),
    };
    if stored.finished {
        return Ok(None);
    }
    let damaged = |why: String| RelinkError::Damaged { table: id.0, why };
    let setup: Value =
        serde_json::from_str(&stored.table.setup).map_err(|e| damaged(format!("setup: {e}")))?;
    let game =
        crate::systems::open(&stored.table.ruleset, &setup).map_err(|e| damaged(format!("setup: {e}")))?;
    let names: Vec<String> = game.seats().iter().map(|(_, s)| s.name.clone()).collect();
    let name = super::table_name(id);
    let mut links = CreatedTable {
        table: name.clone(),
        seats: BTreeMap::new(),
        gm: String::new(),
        spectator: String::new(),
    };
    let mut changed = Vec::new();
    for row in &stored.table.access {
        let Some(who) = who_of(&row.who) else { continue };
        let token = auth::derived_token(key, id.0, &who_key(who), generation);
        if !row.token_hash.as_deref().is_some_and(|stored| auth::matches(&token, stored)) {
            changed.push(row.who.clone());
            continue;
        }
        let url = link(base, &name, &token);
        match who {
            Who::Seat { seat } => {
                if let Some(seat) = names.get(usize::from(seat)) {
                    links.seats.insert(seat.clone(), url);
                }
            }
            Who::Gm => links.gm = url,
            Who::Spectator => links.spectator = url,
        }
    }
    Ok(Some(HostedLinks { links, changed }))
}

/// A new host key: 256 bits from the operating system's random source, as 64 hexadecimal
/// digits (the host keeps it in a file of its own, docs/hosting.md).
pub fn new_host_key() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

/// The token of the hosted table `table`'s link opening `who` (`seat:N`, `gm`, `spectator`)
/// at `generation`, derived from the host's `key` ([`auth::derived_token`]).
pub fn hosted_token(key: &[u8], table: u64, who: &str, generation: u64) -> String {
    auth::derived_token(key, table, who, generation)
}
