//! No Dice conflict files: reading them (TOML or JSON, chosen by the file's extension) and
//! the actor files they name. The format is typed and validated in the ruleset
//! ([`nodice::conflict_file::ConflictFile`]); this module only does the I/O.

use std::path::{Path, PathBuf};

use anyhow::Context;
use nodice::conflict_file::ConflictFile;
use nodice::sheets::{self, ActorFile};
use nodice::{Conflict, Targets};

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
    /// The Conflict's setup (checked: the Conflict starts).
    pub setup: nodice::Setup,
    /// The scene text.
    pub scene: Option<String>,
    /// Warnings to print.
    pub warnings: Vec<String>,
    /// The interaction clusters the GM engages at the start (empty: everyone).
    pub engagement: Vec<Targets>,
}

/// Reads a conflict file and builds its Conflict.
pub fn load(path: &Path) -> anyhow::Result<Loaded> {
    let file: ConflictFile = read(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.display();
    let built = file
        .build(|p| SheetPath(dir.join(p)), &mut load_sheet)
        .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    Conflict::new(built.setup.clone()).with_context(|| format!("{name}: the Conflict cannot start"))?;
    Ok(Loaded {
        setup: built.setup,
        scene: built.scene,
        warnings: built.warnings,
        engagement: built.engagement,
    })
}
