//! The conflict file, typed in the ruleset (no I/O): the stakes, the seats and the characters
//! of one conflict, each sheet inline or named by a path. [`ConflictFile::build`] turns it into
//! a [`Setup`], reading the sheets it names through a loader the shell gives (files for the
//! CLI, embedded examples for a server, nothing at all for an upload). The format is
//! documented in `docs/iron-triangle-play.md`.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::character::Character;
use crate::conflict::{Entrant, SeatSpec, Setup, Stakes};
use crate::special::Edition;

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
    pub edition: Edition,
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

/// Why a conflict file cannot be built into a [`Setup`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConflictFileError {
    /// A sheet the loader could not give (`characters[i].sheet`, from 0).
    #[error("characters[{index}].sheet {path:?}: {error}")]
    Sheet {
        /// The character's position in the file, from 0.
        index: usize,
        /// The path written in the file.
        path: String,
        /// The loader's reason.
        error: String,
    },
}

impl ConflictFile {
    /// The sheet paths the file names, with the position of their character (from 0): what a
    /// shell that reads no files refuses.
    pub fn sheet_paths(&self) -> impl Iterator<Item = (usize, &str)> {
        self.characters.iter().enumerate().filter_map(|(i, c)| match &c.sheet {
            SheetRef::Path(p) => Some((i, p.as_str())),
            SheetRef::Inline(_) => None,
        })
    }

    /// Builds the setup, reading each sheet named by a path with `load` (given the path as
    /// written, relative to the conflict file). The setup is not checked here: the conflict
    /// starts with [`crate::Conflict::new`].
    pub fn build<L>(self, mut load: L) -> Result<Setup, ConflictFileError>
    where
        L: FnMut(&str) -> Result<Character, String>,
    {
        let mut characters = Vec::with_capacity(self.characters.len());
        for (index, entry) in self.characters.into_iter().enumerate() {
            let mut character = match entry.sheet {
                SheetRef::Inline(c) => *c,
                SheetRef::Path(path) => {
                    load(&path).map_err(|error| ConflictFileError::Sheet { index, path, error })?
                }
            };
            if let Some(n) = entry.name {
                character.name = n;
            }
            characters.push(Entrant { seat: entry.seat, character });
        }
        Ok(Setup {
            stakes: self.stakes,
            seats: self.seats,
            characters,
            edition: self.edition,
            seed: self.seed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
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

    #[test]
    fn sheets_may_be_inline_or_paths() {
        let f: ConflictFile = toml::from_str(FILE).unwrap();
        assert!(matches!(f.characters[0].sheet, SheetRef::Path(_)));
        assert!(matches!(f.characters[1].sheet, SheetRef::Inline(_)));
        assert_eq!(f.sheet_paths().collect::<Vec<_>>(), vec![(0, "characters/ada.toml")]);
        let bad = FILE.replace("energy =", "energi =");
        let e = toml::from_str::<ConflictFile>(&bad).unwrap_err().to_string();
        assert!(e.contains("energi"), "{e}");
    }

    #[test]
    fn the_loader_gives_the_named_sheets_and_its_refusal_names_the_field() {
        let f: ConflictFile = toml::from_str(FILE).unwrap();
        let inline = match &f.characters[1].sheet {
            SheetRef::Inline(c) => (**c).clone(),
            SheetRef::Path(_) => unreachable!(),
        };
        let mut asked = Vec::new();
        let setup = f
            .clone()
            .build(|p| {
                asked.push(p.to_owned());
                Ok(inline.clone())
            })
            .unwrap();
        assert_eq!(asked, ["characters/ada.toml"]);
        assert_eq!(setup.characters[1].character.name, "Shadow");
        let e = f.build(|_| Err("no files here".into())).unwrap_err().to_string();
        assert_eq!(e, "characters[0].sheet \"characters/ada.toml\": no files here");
    }
}
