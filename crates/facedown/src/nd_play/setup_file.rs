//! No Dice conflict files: seats, Actors (serials inline or in actor files), the initiator,
//! optional Stakes, options and extensions, in TOML or JSON (chosen by the file's extension).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use nodice::sheets::{self, ActorFile, merge_inherited};
use nodice::{
    ActorId, ActorSheet, Aspect, Conflict, DamageAbility, Ext, Kind, Options, Setup, Stakes, Statblock,
};
use serde::Deserialize;
use table::{Role, Seat, Seats, SideId};

/// A conflict file.
#[derive(Debug, Clone, Deserialize)]
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
#[derive(Debug, Clone, Deserialize)]
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
#[derive(Debug, Clone, Deserialize)]
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
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DamageEntry {
    /// Build Points.
    pub points: u16,
    /// The Aspect its damage hurts (default: whatever the Action hurts).
    #[serde(default)]
    pub aspect: Option<Aspect>,
}

/// An actor file's path, as the `nodice` Inherits walk names it.
#[derive(Clone, PartialEq)]
struct SheetPath(PathBuf);

impl std::fmt::Display for SheetPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.display())
    }
}

/// Reads an actor file for the Inherits walk: its canonical path (to find cycles), its content
/// and the paths of the sheets it inherits, relative to it.
fn load_sheet(path: &SheetPath) -> Result<sheets::Loaded<SheetPath>, String> {
    let file: ActorFile = read(&path.0).map_err(|e| format!("{e:#}"))?;
    let id = path.0.canonicalize().map_err(|e| format!("cannot read {}: {e}", path.0.display()))?;
    let dir = path.0.parent().unwrap_or(Path::new("."));
    let inherits = file.inherits.iter().map(|p| SheetPath(dir.join(p))).collect();
    Ok(sheets::Loaded { id: SheetPath(id), file, inherits })
}

fn parse_text<T: serde::de::DeserializeOwned>(path: &Path, text: &str) -> anyhow::Result<T> {
    let name = path.display();
    if path.extension().is_some_and(|e| e == "json") {
        serde_json::from_str(text).with_context(|| format!("{name} is not a valid file of this kind"))
    } else {
        toml::from_str(text).with_context(|| format!("{name} is not a valid file of this kind"))
    }
}

fn read<T: serde::de::DeserializeOwned>(path: &Path) -> anyhow::Result<T> {
    let text = crate::input::read_bounded(path, crate::input::TEXT_LIMIT)
        .with_context(|| format!("cannot read {}", path.display()))?;
    parse_text(path, &text)
}

/// A loaded conflict file: the Conflict, its scene, warnings, and the GM's engagement.
pub struct Loaded {
    /// The Conflict.
    pub conflict: Conflict,
    /// The scene text.
    pub scene: Option<String>,
    /// Warnings to print.
    pub warnings: Vec<String>,
    /// The interaction clusters the GM engages at the start (empty: everyone).
    pub engagement: Vec<nodice::Targets>,
}

/// Reads a conflict file and builds its Setup; returns the scene text too.
pub fn load(path: &Path) -> anyhow::Result<Loaded> {
    let file: ConflictFile = read(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.display();
    let seats = Seats::new(
        file.seats
            .iter()
            .enumerate()
            .map(|(i, s)| Seat {
                name: s.name.clone(),
                side: SideId(s.side.unwrap_or(i as u8)),
                role: s.role,
            })
            .collect(),
    )
    .with_context(|| format!("{name}: seats"))?;
    let mut actors = Vec::new();
    let mut extensions = Vec::new();
    let mut warnings = Vec::new();
    for (i, entry) in file.actors.iter().enumerate() {
        let at = || format!("{name}: actor {}", i + 1);
        let seat =
            seats.find(&entry.seat).with_context(|| format!("{}: unknown seat {:?}", at(), entry.seat))?;
        let (mut actor_name, mut kind, mut serial, mut wildcards) =
            (entry.name.clone(), entry.kind, entry.serial.clone(), entry.wildcards);
        let mut inherits: Vec<SheetPath> =
            entry.inherits.iter().flatten().map(|p| SheetPath(dir.join(p))).collect();
        let mut chain = Vec::new();
        if let Some(sheet) = &entry.sheet {
            let sheet_path = dir.join(sheet);
            let f: ActorFile = read(&sheet_path).with_context(at)?;
            actor_name = actor_name.or(Some(f.name));
            kind = kind.or(Some(f.kind));
            serial = serial.or(Some(f.serial));
            wildcards = wildcards.or(f.wildcards);
            if entry.inherits.is_none() {
                let sheet_dir = sheet_path.parent().unwrap_or(Path::new("."));
                inherits = f.inherits.iter().map(|p| SheetPath(sheet_dir.join(p))).collect();
            }
            chain.extend(sheet_path.canonicalize().ok().map(SheetPath));
        }
        let Some(actor_name) = actor_name else { bail!("{}: give it a name (or a sheet)", at()) };
        let Some(serial) = serial else { bail!("{}: {actor_name} needs a serial (or a sheet)", at()) };
        let (block, warns) = Statblock::parse_with_warnings(&serial)
            .with_context(|| format!("{}: {actor_name}'s serial {serial:?}", at()))?;
        warnings.extend(warns.into_iter().map(|w| format!("{actor_name}: {w}")));
        let (block, warns) =
            merge_inherited(&actor_name, kind.unwrap_or_default(), block, &inherits, chain, &mut load_sheet)
                .with_context(at)?;
        warnings.extend(warns);
        let seat_side = seats.get(seat).map(|s| s.side).unwrap_or(SideId(0));
        let side = entry.side.map(SideId).unwrap_or(seat_side);
        let mut sheet = ActorSheet::new(&actor_name, kind.unwrap_or_default(), block, seat, side);
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
    let initiator = match &file.initiator {
        None => ActorId(0),
        Some(n) => actors
            .iter()
            .position(|a| a.name.eq_ignore_ascii_case(n))
            .map(|i| ActorId(i as u8))
            .with_context(|| format!("{name}: the initiator {n:?} is not an Actor"))?,
    };
    let stakes = file.stakes.map(Stakes::new).transpose().with_context(|| format!("{name}: stakes"))?;
    let setup =
        Setup { seats, actors, initiator, stakes, options: file.options, extensions, seed: file.seed };
    let conflict = Conflict::new(setup).with_context(|| format!("{name}: the Conflict cannot start"))?;
    let mut engagement = Vec::new();
    for (k, cluster) in file.engagement.iter().enumerate() {
        let mut t = nodice::Targets::NONE;
        for n in cluster {
            let a = conflict
                .find(n)
                .with_context(|| format!("{name}: engagement cluster {}: {n:?} is not an Actor", k + 1))?;
            t = t.with(a);
        }
        engagement.push(t);
    }
    Ok(Loaded { conflict, scene: file.scene, warnings, engagement })
}
