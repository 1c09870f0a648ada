//! The conflict file, typed and validated in the ruleset (no I/O): seats, Actors (serials
//! inline or in actor files), the initiator, optional Stakes, options, extensions and the GM's
//! engagement. [`ConflictFile::build`] turns it into a [`Setup`]; the actor files it names
//! are read through a loader the shell gives (files for the CLI), with the bounded
//! "Inherits" walk of [`crate::sheets`]. The format is documented in `docs/nodice-play.md`.

use std::fmt::Display;

use serde::{Deserialize, Serialize};
use table::{Role, Seat, Seats, SideId};
use thiserror::Error;

use crate::actor::{Kind, SerialError, Statblock};
use crate::conflict::{ActorSheet, Options, Setup, SetupError};
use crate::extension::{DamageAbility, Ext};
use crate::hand::{ActorId, Targets};
use crate::sheets::{InheritError, Loaded, merge_inherited};
use crate::stakes::{Stakes, StakesError};
use crate::trine::Aspect;

/// A conflict file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConflictFile {
    /// The seats at the table.
    pub seats: Vec<SeatEntry>,
    /// The Actors, in table order.
    pub actors: Vec<ActorEntry>,
    /// The Actor who initiated the Action that triggered the Conflict (UTG of Hand 1);
    /// default the first Actor.
    #[serde(default)]
    pub initiator: Option<String>,
    /// Stakes the GM sets instead of the formula (1–5).
    #[serde(default)]
    pub stakes: Option<u8>,
    /// Ruleset options.
    #[serde(default)]
    pub options: Options,
    /// Seed of the pot's random draws.
    #[serde(default)]
    pub seed: u64,
    /// What the Conflict is about (printed at the start).
    #[serde(default)]
    pub scene: Option<String>,
    /// The GM's interaction clusters from the first Hand (seed Step 1; Decision 33), by
    /// Actor name; empty: every Actor plays every Hand.
    #[serde(default)]
    pub engagement: Vec<Vec<String>>,
}

/// A seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatEntry {
    /// Its name.
    pub name: String,
    /// `player` (default) or `gm`.
    #[serde(default)]
    pub role: Role,
    /// Its side; default: its position in the list.
    #[serde(default)]
    pub side: Option<u8>,
}

/// An Actor entering the Conflict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActorEntry {
    /// The seat that plays it.
    pub seat: String,
    /// An actor file (relative to the conflict file) with `name`, `kind`, `serial` and
    /// optionally `wildcards`, `notes` and `inherits`.
    #[serde(default)]
    pub sheet: Option<String>,
    /// Its name (required without `sheet`; with it, replaces the sheet's).
    #[serde(default)]
    pub name: Option<String>,
    /// `pc`, `npc` or `abstract` (default from the sheet, else `pc`).
    #[serde(default)]
    pub kind: Option<Kind>,
    /// Its serial, e.g. `R1/0(27/0)-M3(3/3/3)-B3(3/3/3)-S3(3/3/3)`.
    #[serde(default)]
    pub serial: Option<String>,
    /// Its side; default its seat's.
    #[serde(default)]
    pub side: Option<u8>,
    /// Wildcards it brings; default its Wildcard Rank for a PC, none otherwise.
    #[serde(default)]
    pub wildcards: Option<u16>,
    /// The Damage ability (extension): `{ points = 2, aspect = "body" }`.
    #[serde(default)]
    pub damage: Option<DamageEntry>,
    /// Actor files an abstract Actor inherits (relative to the conflict file; with `sheet`,
    /// replaces the sheet's list): each Aspect it lacks comes from the first that has it.
    #[serde(default)]
    pub inherits: Option<Vec<String>>,
}

/// The Damage ability of an Actor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DamageEntry {
    /// Build Points.
    pub points: u16,
    /// The Aspect its damage hurts (default: whatever the Action hurts).
    #[serde(default)]
    pub aspect: Option<Aspect>,
}

/// Why a conflict file cannot start a Conflict. `actor` is the Actor's position (from 1).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConflictFileError {
    /// Bad seats.
    #[error("seats: {0}")]
    Seats(String),
    /// An Actor at a seat that is not there.
    #[error("actor {actor}: unknown seat {seat:?}")]
    UnknownSeat {
        /// Position.
        actor: usize,
        /// The seat named.
        seat: String,
    },
    /// An actor file the loader could not give.
    #[error("actor {actor}: {error}")]
    Sheet {
        /// Position.
        actor: usize,
        /// Why.
        error: String,
    },
    /// No name.
    #[error("actor {0}: give it a name (or a sheet)")]
    NoName(usize),
    /// No serial.
    #[error("actor {actor}: {name} needs a serial (or a sheet)")]
    NoSerial {
        /// Position.
        actor: usize,
        /// Its name.
        name: String,
    },
    /// A serial that does not parse.
    #[error("actor {actor}: {name}'s serial {serial:?}: {error}")]
    Serial {
        /// Position.
        actor: usize,
        /// Its name.
        name: String,
        /// The serial.
        serial: String,
        /// Why.
        error: SerialError,
    },
    /// Inherited sheets refused.
    #[error("actor {actor}: {error}")]
    Inherits {
        /// Position.
        actor: usize,
        /// Why.
        error: InheritError,
    },
    /// An initiator that is not an Actor.
    #[error("the initiator {0:?} is not an Actor")]
    Initiator(String),
    /// Bad Stakes.
    #[error("stakes: {0}")]
    Stakes(StakesError),
    /// An engagement naming someone who is not an Actor.
    #[error("engagement cluster {cluster}: {name:?} is not an Actor")]
    Engagement {
        /// The cluster (from 1).
        cluster: usize,
        /// The name.
        name: String,
    },
    /// The Conflict's own checks.
    #[error("the Conflict cannot start: {0}")]
    Setup(SetupError),
}

/// A conflict file built: the setup to start the Conflict from, and what goes with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Built {
    /// The setup ([`crate::Conflict::new`] accepts it).
    pub setup: Setup,
    /// The scene text.
    pub scene: Option<String>,
    /// Warnings (serial inconsistencies, inherited sheets giving nothing).
    pub warnings: Vec<String>,
    /// The interaction clusters the GM engages at the start (empty: everyone).
    pub engagement: Vec<Targets>,
}

impl ConflictFile {
    /// Builds the setup, reading the actor files it names with `load`; `key` turns a path
    /// written in the conflict file into the loader's key (relative to the file).
    pub fn build<K, L>(&self, key: impl Fn(&str) -> K, load: &mut L) -> Result<Built, ConflictFileError>
    where
        K: Clone + PartialEq + Display,
        L: FnMut(&K) -> Result<Loaded<K>, String>,
    {
        let seats = Seats::new(
            self.seats
                .iter()
                .enumerate()
                .map(|(i, s)| Seat {
                    name: s.name.clone(),
                    side: SideId(s.side.unwrap_or(i as u8)),
                    role: s.role,
                })
                .collect(),
        )
        .map_err(|e| ConflictFileError::Seats(e.to_string()))?;
        let mut actors = Vec::new();
        let mut extensions = Vec::new();
        let mut warnings = Vec::new();
        for (i, entry) in self.actors.iter().enumerate() {
            let at = i + 1;
            let seat = seats
                .find(&entry.seat)
                .map_err(|_| ConflictFileError::UnknownSeat { actor: at, seat: entry.seat.clone() })?;
            let (mut actor_name, mut kind, mut serial, mut wildcards) =
                (entry.name.clone(), entry.kind, entry.serial.clone(), entry.wildcards);
            let mut inherits: Vec<K> = entry.inherits.iter().flatten().map(|p| key(p)).collect();
            let mut chain = Vec::new();
            if let Some(sheet) = &entry.sheet {
                let loaded =
                    load(&key(sheet)).map_err(|error| ConflictFileError::Sheet { actor: at, error })?;
                let f = loaded.file;
                actor_name = actor_name.or(Some(f.name));
                kind = kind.or(Some(f.kind));
                serial = serial.or(Some(f.serial));
                wildcards = wildcards.or(f.wildcards);
                if entry.inherits.is_none() {
                    inherits = loaded.inherits;
                }
                chain.push(loaded.id);
            }
            let Some(actor_name) = actor_name else { return Err(ConflictFileError::NoName(at)) };
            let Some(serial) = serial else {
                return Err(ConflictFileError::NoSerial { actor: at, name: actor_name });
            };
            let (block, warns) =
                Statblock::parse_with_warnings(&serial).map_err(|error| ConflictFileError::Serial {
                    actor: at,
                    name: actor_name.clone(),
                    serial: serial.clone(),
                    error,
                })?;
            warnings.extend(warns.into_iter().map(|w| format!("{actor_name}: {w}")));
            let kind = kind.unwrap_or_default();
            let (block, warns) = merge_inherited(&actor_name, kind, block, &inherits, chain, load)
                .map_err(|error| ConflictFileError::Inherits { actor: at, error })?;
            warnings.extend(warns);
            let seat_side = seats.get(seat).map(|s| s.side).unwrap_or(SideId(0));
            let side = entry.side.map(SideId).unwrap_or(seat_side);
            let mut sheet = ActorSheet::new(&actor_name, kind, block, seat, side);
            if let Some(w) = wildcards {
                sheet.wildcards = w;
            }
            if let Some(d) = entry.damage {
                extensions.push(Ext::DamageAbility(DamageAbility {
                    actor: ActorId(i as u8),
                    points: d.points,
                    aspect: d.aspect,
                }));
            }
            actors.push(sheet);
        }
        let find = |n: &str| actors.iter().position(|a| a.name.trim().eq_ignore_ascii_case(n.trim()));
        let initiator = match &self.initiator {
            None => ActorId(0),
            Some(n) => ActorId(find(n).ok_or_else(|| ConflictFileError::Initiator(n.clone()))? as u8),
        };
        let mut engagement = Vec::new();
        for (k, cluster) in self.engagement.iter().enumerate() {
            let mut t = Targets::NONE;
            for n in cluster {
                let a = find(n)
                    .ok_or_else(|| ConflictFileError::Engagement { cluster: k + 1, name: n.clone() })?;
                t = t.with(ActorId(a as u8));
            }
            engagement.push(t);
        }
        let stakes = self.stakes.map(Stakes::new).transpose().map_err(ConflictFileError::Stakes)?;
        let setup =
            Setup { seats, actors, initiator, stakes, options: self.options, extensions, seed: self.seed };
        crate::Conflict::new(setup.clone()).map_err(ConflictFileError::Setup)?;
        Ok(Built { setup, scene: self.scene.clone(), warnings, engagement })
    }
}
