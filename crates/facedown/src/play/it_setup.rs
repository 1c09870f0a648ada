//! Reading Iron Triangle conflict files: TOML or JSON (chosen by the file's extension), with
//! character sheets inline or in their own files. The format is typed in the ruleset
//! ([`iron_triangle::conflict_file::ConflictFile`]); this module only does the I/O.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use iron_triangle::conflict_file::ConflictFile;
use iron_triangle::{Character, Setup};

/// The built-in conflict, used when no file is given: `examples/iron-triangle/duel.toml` and
/// the sheets it names, embedded at build time.
const EMBEDDED: &[(&str, &str)] = &[
    ("duel.toml", include_str!("../../../../examples/iron-triangle/duel.toml")),
    ("characters/ada.toml", include_str!("../../../../examples/iron-triangle/characters/ada.toml")),
    ("characters/ninja.toml", include_str!("../../../../examples/iron-triangle/characters/ninja.toml")),
];

/// Where a conflict file and its sheets are read from.
enum Origin {
    /// The directory holding the conflict file.
    Disk(PathBuf),
    /// The embedded default.
    Embedded,
}

impl Origin {
    fn read(&self, rel: &str) -> anyhow::Result<(String, String)> {
        match self {
            Origin::Disk(dir) => {
                let path = dir.join(rel);
                let text = crate::input::read_bounded(&path, crate::input::TEXT_LIMIT)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                Ok((path.display().to_string(), text))
            }
            Origin::Embedded => {
                let rel = rel.trim_start_matches("./");
                EMBEDDED
                    .iter()
                    .find(|(name, _)| *name == rel)
                    .map(|(name, text)| (format!("(built-in) {name}"), (*text).to_owned()))
                    .with_context(|| format!("the built-in conflict has no file {rel}"))
            }
        }
    }
}

/// Parses `text` as TOML or JSON according to the extension of `name`.
fn parse<T: serde::de::DeserializeOwned>(name: &str, text: &str) -> anyhow::Result<T> {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".json") {
        serde_json::from_str(text).with_context(|| format!("{name}: invalid file"))
    } else if lower.ends_with(".toml") {
        toml::from_str(text).map_err(|e| anyhow::anyhow!("{name}: invalid file: {e}"))
    } else {
        bail!("{name}: unknown file type; use a .toml or .json file")
    }
}

/// Reads a conflict file (or the built-in duel when `path` is `None`) into a [`Setup`].
pub fn read_setup(path: Option<&Path>) -> anyhow::Result<(String, Setup)> {
    let (origin, rel) = match path {
        Some(p) => {
            let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
            let file = p
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .with_context(|| format!("{} is not a file name", p.display()))?;
            (Origin::Disk(dir), file)
        }
        None => (Origin::Embedded, "duel.toml".to_owned()),
    };
    let (name, text) = origin.read(&rel)?;
    let file: ConflictFile = parse(&name, &text)?;
    let setup = file
        .build(|path| {
            let (sheet_name, sheet_text) = origin.read(path).map_err(|e| format!("{e:#}"))?;
            parse::<Character>(&sheet_name, &sheet_text).map_err(|e| format!("{e:#}"))
        })
        .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    Ok((name, setup))
}

/// Reads a conflict file and starts the conflict.
#[cfg(test)]
pub fn load_conflict(path: Option<&Path>) -> anyhow::Result<iron_triangle::Conflict> {
    let (name, setup) = read_setup(path)?;
    iron_triangle::Conflict::new(setup).with_context(|| format!("{name}: cannot start the conflict"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_duel_starts() {
        let c = load_conflict(None).unwrap();
        assert_eq!(c.fighters.len(), 2);
        assert_eq!(c.fighters[0].character.name, "Ada");
    }
}
