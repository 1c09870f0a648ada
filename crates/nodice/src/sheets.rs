//! Actor sheets and their "Inherits" chains (§3.4; Decision 30), without I/O: the typed
//! actor file, and the walk that merges the sheets an abstract Actor inherits, with the
//! sheets read through a loader the shell gives (files for the CLI). The walk refuses a
//! sheet in its own chain, chains deeper than [`MAX_INHERIT_DEPTH`] and more than
//! [`MAX_INHERITED_SHEETS`] sheets read for one Actor, so a small file cannot expand
//! exponentially (a sheet inheriting the next one twice, again and again).

use std::fmt::Display;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::actor::{Kind, SerialError, Statblock};

/// The deepest "Inherits" chain: a sheet inheriting a sheet … this many levels down.
pub const MAX_INHERIT_DEPTH: usize = 8;

/// The most sheets read through "Inherits" for one Actor (each time a sheet is named counts).
pub const MAX_INHERITED_SHEETS: usize = 64;

/// An actor file: a sheet a conflict file names, or one an abstract Actor inherits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActorFile {
    /// Its name.
    pub name: String,
    /// PC, NPC or abstract (default PC).
    #[serde(default)]
    pub kind: Kind,
    /// Its serial (§3.3).
    pub serial: String,
    /// Wildcards it brings (default: §3.2).
    #[serde(default)]
    pub wildcards: Option<u16>,
    /// Free text for the GM (ignored by the engine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// Actor files this (abstract) Actor inherits, relative to this file (§3.4; Decision 30).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inherits: Vec<String>,
}

/// Why an Actor's inherited sheets cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InheritError {
    /// A non-abstract Actor with `inherits`.
    #[error(
        "{0} inherits sheets but is not an abstract Actor: only abstract Actors (Places and Things) inherit; set kind = \"abstract\" or remove inherits"
    )]
    NotAbstract(String),
    /// A sheet in its own chain.
    #[error("{0} inherits itself (an actor file in its own Inherits chain)")]
    Cycle(String),
    /// A chain deeper than [`MAX_INHERIT_DEPTH`].
    #[error(
        "{actor}: the Inherits chain through {sheet} is deeper than {MAX_INHERIT_DEPTH} sheets (`inherits`)"
    )]
    TooDeep {
        /// The Actor.
        actor: String,
        /// The sheet too deep.
        sheet: String,
    },
    /// More than [`MAX_INHERITED_SHEETS`] sheets.
    #[error(
        "{actor}: its Inherits chains name more than {MAX_INHERITED_SHEETS} sheets in all (`inherits`; a sheet named twice counts twice)"
    )]
    TooMany {
        /// The Actor.
        actor: String,
    },
    /// A sheet the loader could not give.
    #[error("{actor} inherits {sheet}: {error}")]
    Load {
        /// The Actor.
        actor: String,
        /// The sheet.
        sheet: String,
        /// Why.
        error: String,
    },
    /// A sheet's serial does not parse.
    #[error("{sheet}: {name}'s serial {serial:?}: {error}")]
    Serial {
        /// The sheet.
        sheet: String,
        /// Its name.
        name: String,
        /// The serial.
        serial: String,
        /// Why.
        error: SerialError,
    },
}

/// A sheet as the loader gives it: its identity (a canonical path, to find cycles), its
/// content, and the keys of the sheets it inherits (already resolved relative to it).
pub struct Loaded<K> {
    /// Its identity.
    pub id: K,
    /// Its content.
    pub file: ActorFile,
    /// The sheets it inherits.
    pub inherits: Vec<K>,
}

/// The walk's bookkeeping for one Actor.
struct Walk<'a, K, L> {
    actor: &'a str,
    load: &'a mut L,
    chain: Vec<K>,
    read: usize,
    warnings: Vec<String>,
}

/// Merges the sheets an Actor inherits into `block` (§3.4 "Inherits"; the rule is
/// [`Statblock::inherit`], Decision 30), reading them with `load` (key → sheet). `chain` are
/// the sheets already being read (the Actor's own actor file, if any). Returns the merged
/// stat block and the warnings (serial inconsistencies, a sheet that gives nothing).
pub fn merge_inherited<K, L>(
    name: &str,
    kind: Kind,
    block: Statblock,
    inherits: &[K],
    chain: Vec<K>,
    load: &mut L,
) -> Result<(Statblock, Vec<String>), InheritError>
where
    K: Clone + PartialEq + Display,
    L: FnMut(&K) -> Result<Loaded<K>, String>,
{
    let mut walk = Walk { actor: name, load, chain, read: 0, warnings: Vec::new() };
    let block = walk.merge(name, kind, block, inherits)?;
    Ok((block, walk.warnings))
}

impl<K, L> Walk<'_, K, L>
where
    K: Clone + PartialEq + Display,
    L: FnMut(&K) -> Result<Loaded<K>, String>,
{
    fn merge(
        &mut self,
        name: &str,
        kind: Kind,
        block: Statblock,
        inherits: &[K],
    ) -> Result<Statblock, InheritError> {
        if inherits.is_empty() {
            return Ok(block);
        }
        if !kind.may_inherit() {
            return Err(InheritError::NotAbstract(name.to_owned()));
        }
        let mut parents = Vec::new();
        let mut names = Vec::new();
        for key in inherits {
            let (parent_name, parent) = self.read(key)?;
            parents.push(parent);
            names.push(parent_name);
        }
        let merged = block.inherit(&parents);
        for (i, parent_name) in names.iter().enumerate() {
            if !merged.taken.iter().any(|&(_, j)| j == i) {
                self.warnings.push(format!(
                    "{name} takes nothing from {parent_name}: every Aspect {parent_name} has is {name}'s own or \
                     an earlier inherited sheet's (Decision 30)"
                ));
            }
        }
        Ok(merged.statblock)
    }

    fn read(&mut self, key: &K) -> Result<(String, Statblock), InheritError> {
        self.read += 1;
        if self.read > MAX_INHERITED_SHEETS {
            return Err(InheritError::TooMany { actor: self.actor.to_owned() });
        }
        if self.chain.len() >= MAX_INHERIT_DEPTH {
            return Err(InheritError::TooDeep { actor: self.actor.to_owned(), sheet: key.to_string() });
        }
        let loaded = (self.load)(key).map_err(|error| InheritError::Load {
            actor: self.actor.to_owned(),
            sheet: key.to_string(),
            error,
        })?;
        if self.chain.contains(&loaded.id) {
            return Err(InheritError::Cycle(key.to_string()));
        }
        let f = loaded.file;
        let (block, warns) =
            Statblock::parse_with_warnings(&f.serial).map_err(|error| InheritError::Serial {
                sheet: key.to_string(),
                name: f.name.clone(),
                serial: f.serial.clone(),
                error,
            })?;
        self.warnings.extend(warns.into_iter().map(|w| format!("{}: {w}", f.name)));
        self.chain.push(loaded.id);
        let block = self.merge(&f.name, f.kind, block, &loaded.inherits);
        self.chain.pop();
        Ok((f.name, block?))
    }
}
