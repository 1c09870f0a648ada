//! No Dice conflict files: seats, Actors (serials inline or in actor files), the initiator,
//! optional Stakes, options and extensions, in TOML or JSON (chosen by the file's extension).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
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

/// An actor file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ActorFile {
    name: String,
    #[serde(default)]
    kind: Kind,
    serial: String,
    #[serde(default)]
    wildcards: Option<u16>,
    /// Free text for the GM (ignored by the engine).
    #[serde(default)]
    #[allow(dead_code)]
    notes: Option<String>,
    /// Actor files this (abstract) Actor inherits, relative to this file (§3.4; Decision 30).
    #[serde(default)]
    inherits: Vec<String>,
}

/// Merges the sheets an Actor inherits into its stat block (§3.4 "Inherits"; the rule is
/// [`Statblock::inherit`], Decision 30). `chain` holds the actor files being read, to refuse
/// a sheet that inherits itself.
fn merge_inherited(
    name: &str,
    kind: Kind,
    block: Statblock,
    inherits: &[PathBuf],
    chain: &mut Vec<PathBuf>,
    warnings: &mut Vec<String>,
) -> anyhow::Result<Statblock> {
    if inherits.is_empty() {
        return Ok(block);
    }
    if !kind.may_inherit() {
        bail!(
            "{name} inherits sheets but is not an abstract Actor: only abstract Actors (Places and Things) \
             inherit (§3.4 \"Inherits\"); set kind = \"abstract\" or remove inherits"
        );
    }
    let mut parents = Vec::new();
    let mut names = Vec::new();
    for path in inherits {
        let (parent_name, parent) = read_sheet(path, chain, warnings)
            .with_context(|| format!("{name} inherits {}", path.display()))?;
        parents.push(parent);
        names.push(parent_name);
    }
    let merged = block.inherit(&parents);
    for (i, parent_name) in names.iter().enumerate() {
        if !merged.taken.iter().any(|&(_, j)| j == i) {
            warnings.push(format!(
                "{name} takes nothing from {parent_name}: every Aspect {parent_name} has is {name}'s own or \
                 an earlier inherited sheet's (Decision 30)"
            ));
        }
    }
    Ok(merged.statblock)
}

/// Reads an actor file and merges the sheets it inherits; returns its name and stat block.
fn read_sheet(
    path: &Path,
    chain: &mut Vec<PathBuf>,
    warnings: &mut Vec<String>,
) -> anyhow::Result<(String, Statblock)> {
    let f: ActorFile = read(path)?;
    let canonical = path.canonicalize().with_context(|| format!("cannot read {}", path.display()))?;
    if chain.contains(&canonical) {
        bail!("{} inherits itself (an actor file in its own Inherits chain)", path.display());
    }
    let (block, warns) = Statblock::parse_with_warnings(&f.serial)
        .with_context(|| format!("{}: {}'s serial {:?}", path.display(), f.name, f.serial))?;
    warnings.extend(warns.into_iter().map(|w| format!("{}: {w}", f.name)));
    let dir = path.parent().unwrap_or(Path::new("."));
    let inherits: Vec<PathBuf> = f.inherits.iter().map(|p| dir.join(p)).collect();
    chain.push(canonical);
    let block = merge_inherited(&f.name, f.kind, block, &inherits, chain, warnings);
    chain.pop();
    Ok((f.name, block?))
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

/// Reads a conflict file and builds its Setup; returns the scene text too.
pub fn load(path: &Path) -> anyhow::Result<(Conflict, Option<String>, Vec<String>)> {
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
        let mut inherits: Vec<PathBuf> = entry.inherits.iter().flatten().map(|p| dir.join(p)).collect();
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
                inherits = f.inherits.iter().map(|p| sheet_dir.join(p)).collect();
            }
            chain.extend(sheet_path.canonicalize().ok());
        }
        let Some(actor_name) = actor_name else { bail!("{}: give it a name (or a sheet)", at()) };
        let Some(serial) = serial else { bail!("{}: {actor_name} needs a serial (or a sheet)", at()) };
        let (block, warns) = Statblock::parse_with_warnings(&serial)
            .with_context(|| format!("{}: {actor_name}'s serial {serial:?}", at()))?;
        warnings.extend(warns.into_iter().map(|w| format!("{actor_name}: {w}")));
        let block = merge_inherited(
            &actor_name,
            kind.unwrap_or_default(),
            block,
            &inherits,
            &mut chain,
            &mut warnings,
        )
        .with_context(at)?;
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
    Ok((conflict, file.scene, warnings))
}
