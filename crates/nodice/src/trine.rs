//! The Trine: three Aspects, nine Attributes, and Dominance between them (rules reference §3.1,
//! §4).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One of the three Aspects of an Actor (a Trine Aspect card, §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Aspect {
    /// Mind: Reason, Knowledge, Quickness.
    Mind,
    /// Body: Strength, Fitness, Agility.
    Body,
    /// Spirit: Willpower, Presence, Intuition.
    Spirit,
}

impl Aspect {
    /// The three Aspects in serial order.
    pub const ALL: [Aspect; 3] = [Aspect::Mind, Aspect::Body, Aspect::Spirit];

    /// 0, 1, 2 in serial order (also its Trine Dominance class, §4).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The Aspect's three Attributes in serial order (§3.1).
    pub fn attributes(self) -> [Attribute; 3] {
        let i = self.index() * 3;
        [Attribute::ALL[i], Attribute::ALL[i + 1], Attribute::ALL[i + 2]]
    }

    /// Its serial letter: `M`, `B` or `S`.
    pub fn letter(self) -> char {
        ['M', 'B', 'S'][self.index()]
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        ["Mind", "Body", "Spirit"][self.index()]
    }
}

impl fmt::Display for Aspect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a word is not an Aspect or an Attribute.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{word:?} is not {what}")]
pub struct NameError {
    word: String,
    what: &'static str,
}

impl FromStr for Aspect {
    type Err = NameError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "m" | "mind" => Ok(Aspect::Mind),
            "b" | "body" => Ok(Aspect::Body),
            "s" | "spirit" => Ok(Aspect::Spirit),
            _ => Err(NameError { word: s.to_owned(), what: "an Aspect (Mind, Body or Spirit)" }),
        }
    }
}

/// One of the nine Attributes, in the canonical serial order of §3.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Attribute {
    /// Reason (REA), Mind.
    Rea,
    /// Knowledge (KNO), Mind.
    Kno,
    /// Quickness (QUI), Mind.
    Qui,
    /// Strength (STR), Body.
    Str,
    /// Fitness (FIT), Body.
    Fit,
    /// Agility (AGI), Body.
    Agi,
    /// Willpower (WIL), Spirit.
    Wil,
    /// Presence (PRE), Spirit.
    Pre,
    /// Intuition (INT), Spirit.
    Int,
}

const LONG: [&str; 9] = [
    "Reason",
    "Knowledge",
    "Quickness",
    "Strength",
    "Fitness",
    "Agility",
    "Willpower",
    "Presence",
    "Intuition",
];
const ABBREV: [&str; 9] = ["REA", "KNO", "QUI", "STR", "FIT", "AGI", "WIL", "PRE", "INT"];

impl Attribute {
    /// The nine Attributes in serial order (REA KNO QUI, STR FIT AGI, WIL PRE INT).
    pub const ALL: [Attribute; 9] = [
        Attribute::Rea,
        Attribute::Kno,
        Attribute::Qui,
        Attribute::Str,
        Attribute::Fit,
        Attribute::Agi,
        Attribute::Wil,
        Attribute::Pre,
        Attribute::Int,
    ];

    /// 0–8 in serial order.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The Aspect it belongs to.
    pub fn aspect(self) -> Aspect {
        Aspect::ALL[self.index() / 3]
    }

    /// Its place (0–2) inside its Aspect's serial triplet.
    pub fn slot(self) -> usize {
        self.index() % 3
    }

    /// Its three-letter name (`STR`).
    pub fn abbrev(self) -> &'static str {
        ABBREV[self.index()]
    }

    /// Its long name (`Strength`).
    pub fn name(self) -> &'static str {
        LONG[self.index()]
    }

    /// Its Dominance class (§4, closed form): 0 = {REA, STR, WIL}, 1 = {KNO, FIT, PRE},
    /// 2 = {QUI, AGI, INT}. In serial order this is the slot.
    fn class(self) -> usize {
        self.slot()
    }
}

impl fmt::Display for Attribute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.abbrev())
    }
}

impl FromStr for Attribute {
    type Err = NameError;

    /// Accepts the three-letter name, the long name or the one-letter name of §3.1, in any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let w = s.trim();
        let found = Attribute::ALL.into_iter().find(|a| {
            w.eq_ignore_ascii_case(a.abbrev())
                || w.eq_ignore_ascii_case(a.name())
                || (w.len() == 1 && w.eq_ignore_ascii_case(&a.abbrev()[..1]))
        });
        found.ok_or_else(|| NameError {
            word: s.to_owned(),
            what: "an Attribute (REA KNO QUI, STR FIT AGI, WIL PRE INT)",
        })
    }
}

/// Reads an Aspect or Attribute by any of its names (as [`FromStr`] does), so files may say
/// `"STR"`, `"str"` or `"Strength"`.
fn deserialize_by_name<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: FromStr<Err = NameError>,
{
    let s = String::deserialize(d)?;
    s.parse().map_err(serde::de::Error::custom)
}

impl<'de> Deserialize<'de> for Aspect {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_by_name(d)
    }
}

impl<'de> Deserialize<'de> for Attribute {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_by_name(d)
    }
}

/// The outcome of a Dominance check for the first side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dominance {
    /// The first side dominates.
    Win,
    /// Neither dominates.
    Tie,
    /// The second side dominates.
    Loss,
}

impl Dominance {
    /// The same outcome seen from the other side.
    pub fn flip(self) -> Dominance {
        match self {
            Dominance::Win => Dominance::Loss,
            Dominance::Tie => Dominance::Tie,
            Dominance::Loss => Dominance::Win,
        }
    }

    /// Whether the first side won.
    pub fn is_win(self) -> bool {
        self == Dominance::Win
    }
}

/// Rock-paper-scissors between classes 0–2: the class after one's own loses to it.
fn by_class(x: usize, y: usize) -> Dominance {
    match (y + 3 - x) % 3 {
        0 => Dominance::Tie,
        1 => Dominance::Win,
        _ => Dominance::Loss,
    }
}

/// Trine Dominance (§4): Mind beats Body, Body beats Spirit, Spirit beats Mind; the same
/// Aspect ties.
pub fn trine_dominance(a: Aspect, b: Aspect) -> Dominance {
    by_class(a.index(), b.index())
}

/// Attribute Dominance (§4), the whole 81-cell table: inside an Aspect REA > KNO > QUI > REA,
/// STR > FIT > AGI > STR, WIL > PRE > INT > WIL; across Aspects by the closed form of §4
/// (same class ties, class `c` beats class `c + 1 mod 3`), verified cell by cell against the
/// wiki's 27 cross-Aspect cells in `tests/dominance.rs`.
pub fn attribute_dominance(x: Attribute, y: Attribute) -> Dominance {
    by_class(x.class(), y.class())
}
