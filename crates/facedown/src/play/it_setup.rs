//! Conflict files: the stakes, the seats and the characters of one conflict, in TOML or JSON
//! (chosen by the file's extension), with character sheets inline or in their own files.

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use iron_triangle::conflict::{Entrant, SeatSpec};
use iron_triangle::{Character, Setup, Stakes};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

/// The built-in conflict, used when no file is given: `examples/iron-triangle/duel.toml` and
/// the sheets it names, embedded at build time.
const EMBEDDED: &[(&str, &str)] = &[
    ("duel.toml", include_str!("../../../../examples/iron-triangle/duel.toml")),
    ("characters/ada.toml", include_str!("../../../../examples/iron-triangle/characters/ada.toml")),
    ("characters/ninja.toml", include_str!("../../../../examples/iron-triangle/characters/ninja.toml")),
];

/// A conflict file.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ConflictFile {
    /// What is at stake (all fields optional).
    #[serde(default)]
    pub stakes: Stakes,
    /// The seats at the table.
    pub seats: Vec<SeatSpec>,
    /// The characters entering the conflict.
    pub characters: Vec<CharacterEntry>,
    /// The edition of the rules: "current" (default) or "earlier" (§11).
    #[serde(default)]
    pub edition: iron_triangle::special::Edition,
    /// The seed of the conflict's own randomness (Drunken Monkey's draws); 0 when not given.
    #[serde(default)]
    pub seed: u64,
}

/// One character entering the conflict.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CharacterEntry {
    /// The name of the seat controlling it.
    pub seat: String,
    /// The sheet: a path (relative to the conflict file) or an inline sheet.
    pub sheet: SheetRef,
    /// A name replacing the sheet's, so one sheet can enter several times (three bandits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A character sheet, inline or in a file of its own.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum SheetRef {
    /// A path to a TOML or JSON sheet, relative to the conflict file.
    Path(String),
    /// The sheet itself.
    Inline(Box<Character>),
}

impl<'de> Deserialize<'de> for SheetRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SheetRef;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(
                    f,
                    "a path to a character sheet file (e.g. \"characters/ada.toml\") or an inline sheet"
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<SheetRef, E> {
                Ok(SheetRef::Path(v.to_owned()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<SheetRef, A::Error> {
                Character::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|c| SheetRef::Inline(Box::new(c)))
            }
        }
        d.deserialize_any(V)
    }
}

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
    let mut characters = Vec::with_capacity(file.characters.len());
    for (i, entry) in file.characters.into_iter().enumerate() {
        let mut character = match entry.sheet {
            SheetRef::Inline(c) => *c,
            SheetRef::Path(p) => {
                let (sheet_name, sheet_text) =
                    origin.read(&p).with_context(|| format!("{name}: characters[{i}].sheet"))?;
                parse::<Character>(&sheet_name, &sheet_text)
                    .with_context(|| format!("{name}: characters[{i}].sheet"))?
            }
        };
        if let Some(n) = entry.name {
            character.name = n;
        }
        characters.push(Entrant { seat: entry.seat, character });
    }
    Ok((
        name,
        Setup { stakes: file.stakes, seats: file.seats, characters, edition: file.edition, seed: file.seed },
    ))
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

    #[test]
    fn sheets_may_be_inline_or_paths() {
        let text = r#"
            seats = [{ name = "p" }, { name = "gm", role = "gm" }]
            [[characters]]
            seat = "p"
            sheet = "characters/ada.toml"
            [[characters]]
            seat = "gm"
            name = "Shadow"
            [characters.sheet]
            name = "X"
            energy = { defend = 1, grapple = 1, attack = 1 }
            moves = [{ name = "Jab", move = "◆☵" }]
        "#;
        let f: ConflictFile = parse("x.toml", text).unwrap();
        assert!(matches!(f.characters[0].sheet, SheetRef::Path(_)));
        assert!(matches!(f.characters[1].sheet, SheetRef::Inline(_)));
        let bad = text.replace("energy =", "energi =");
        let e = format!("{:#}", parse::<ConflictFile>("x.toml", &bad).unwrap_err());
        assert!(e.contains("energi"), "{e}");
    }
}
