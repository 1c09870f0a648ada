//! Actors and their stat blocks (rules reference §3): the nine Attribute values, Trine Score,
//! Total Trine Score, Build Budget, Rank, Wildcard Rank, and the actor serial notation.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::trine::{Aspect, Attribute};

/// The highest Attribute value (§3.2); `@` in a serial.
pub const MAX_AV: u8 = 100;

/// The Build Budget of Rank 1, an average adult human (§3.2).
pub const BASE_BUILD_BUDGET: u16 = 27;

/// What kind of Actor this is (§3.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A player character: has Wildcards (its Wildcard Rank) by default.
    #[default]
    Pc,
    /// A non-player character: no Wildcards by default; its Rank is hidden from the players.
    Npc,
    /// An abstract Actor, a Place or a Thing (a swamp, a door): played by the GM like an NPC,
    /// and may deal damage of any Aspect (§3.4).
    Abstract,
}

impl Kind {
    /// Whether the GM's stat block is hidden from the players (§3.4: NPC Rank is secret).
    pub fn is_gm_secret(self) -> bool {
        !matches!(self, Kind::Pc)
    }

    /// Whether an Actor of this kind may inherit other sheets (§3.4: "Inherits" fields are
    /// the abstract Actors'; Decision 30). Any kind of sheet may be inherited from.
    pub fn may_inherit(self) -> bool {
        self == Kind::Abstract
    }
}

/// A stat block merged with the sheets it inherits ([`Statblock::inherit`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inheritance {
    /// The merged stat block.
    pub statblock: Statblock,
    /// Each Aspect taken from an inherited sheet, with that sheet's place in the list.
    pub taken: Vec<(Aspect, usize)>,
}

/// An Actor's built stat block: the nine Attribute values (`None` = the Actor does not possess
/// the Attribute, `-` in a serial; distinct from 0), Build Points spent on abilities, and what
/// a serial stated about its Build Budget, Rank and Wildcard Rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub struct Statblock {
    /// Built values in serial order (§3.1), 0–100, `None` when absent.
    pub attributes: [Option<u8>; 9],
    /// Build Points spent on abilities and extensions (part of the Build Budget).
    #[serde(default)]
    pub ability_points: u16,
    /// The Build Budget a serial stated, authoritative for Rank when present (Decision 10).
    #[serde(default)]
    pub stated_budget: Option<u16>,
    /// The Rank a serial stated (kept for printing; Rank is computed, Decision 9).
    #[serde(default)]
    pub stated_rank: Option<u16>,
    /// The Wildcard Rank a serial stated.
    #[serde(default)]
    pub stated_wildcards: Option<u16>,
}

/// Trine Score of three values (§3.2): the average rounded down, absent counting as 0; if that
/// is 0 while some value is not, 1 (the minimum-1 rule). `None` when all three are absent.
pub fn trine_score(values: [Option<u16>; 3]) -> Option<u16> {
    if values.iter().all(Option::is_none) {
        return None;
    }
    let sum: u16 = values.iter().map(|v| v.unwrap_or(0)).sum();
    let ts = sum / 3;
    Some(if ts == 0 && sum > 0 { 1 } else { ts })
}

/// Rank from a Build Budget (§3.2): `1 + floor((BB − 27) / 9)`, at least 1.
pub fn rank(build_budget: u16) -> u16 {
    1 + build_budget.saturating_sub(BASE_BUILD_BUDGET) / 9
}

/// Wildcard Rank from a Rank (§3.2): `1 + floor((R − 1) / 2)`.
pub fn wildcard_rank(rank: u16) -> u16 {
    1 + rank.saturating_sub(1) / 2
}

impl Statblock {
    /// A stat block with these nine values (serial order) and nothing stated.
    pub fn new(attributes: [Option<u8>; 9]) -> Self {
        Statblock { attributes, ..Statblock::default() }
    }

    /// An even build: every Attribute at `value` (3 = an average adult human, §3.2).
    pub fn even(value: u8) -> Self {
        Statblock::new([Some(value); 9])
    }

    /// The built value of an Attribute (`None` when absent).
    pub fn value(&self, attribute: Attribute) -> Option<u8> {
        self.attributes[attribute.index()]
    }

    /// Whether the Actor possesses the Attribute.
    pub fn possesses(&self, attribute: Attribute) -> bool {
        self.value(attribute).is_some()
    }

    /// Whether the Actor has the Aspect at all (at least one possessed Attribute).
    pub fn has_aspect(&self, aspect: Aspect) -> bool {
        aspect.attributes().iter().any(|&a| self.possesses(a))
    }

    /// The sum of the nine built values.
    pub fn value_total(&self) -> u16 {
        self.attributes.iter().map(|v| u16::from(v.unwrap_or(0))).sum()
    }

    /// Build Budget (§3.2): the stated one, else the values plus ability points.
    pub fn build_budget(&self) -> u16 {
        self.stated_budget.unwrap_or(self.value_total().saturating_add(self.ability_points))
    }

    /// Rank (§3.2), from the Build Budget.
    pub fn rank(&self) -> u16 {
        rank(self.build_budget())
    }

    /// Wildcard Rank by the formula (§3.2); PCs have it by default, NPCs none.
    pub fn wildcard_rank(&self) -> u16 {
        wildcard_rank(self.rank())
    }

    /// Trine Score of an Aspect from the built values (§3.2; never lowered by bids or damage).
    pub fn trine_score(&self, aspect: Aspect) -> Option<u16> {
        trine_score(aspect.attributes().map(|a| self.value(a).map(u16::from)))
    }

    /// Total Trine Score: the sum of the three Trine Scores (§3.2).
    pub fn total_trine_score(&self) -> u16 {
        Aspect::ALL.iter().filter_map(|&a| self.trine_score(a)).sum()
    }

    /// Merges the sheets this abstract Actor inherits (§3.4: "a ruin inherits its swamp and
    /// its ghost"; Decision 30): every Aspect this stat block lacks entirely (all three
    /// Attributes `-`) is taken whole — its three values — from the first sheet in `sheets`
    /// that has it. Aspects it has stay its own, so its Trine Scores never mix two sheets.
    /// The Build Budget grows by the values taken (a stated one too); a stated Rank, which
    /// described the sheet alone, is dropped once something is taken; ability points and
    /// Wildcards are not inherited.
    pub fn inherit(&self, sheets: &[Statblock]) -> Inheritance {
        let mut merged = *self;
        let mut taken = Vec::new();
        let mut added: u16 = 0;
        for aspect in Aspect::ALL {
            if self.has_aspect(aspect) {
                continue;
            }
            if let Some(i) = sheets.iter().position(|s| s.has_aspect(aspect)) {
                for a in aspect.attributes() {
                    merged.attributes[a.index()] = sheets[i].value(a);
                    added += u16::from(sheets[i].value(a).unwrap_or(0));
                }
                taken.push((aspect, i));
            }
        }
        if !taken.is_empty() {
            merged.stated_budget = self.stated_budget.map(|b| b.saturating_add(added));
            merged.stated_rank = None;
        }
        Inheritance { statblock: merged, taken }
    }

    /// Parses a serial, also returning the inconsistencies it tolerates (Decision 10).
    pub fn parse_with_warnings(serial: &str) -> Result<(Statblock, Vec<SerialWarning>), SerialError> {
        parse(serial)
    }
}

/// Why an actor serial cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SerialError {
    /// Nothing to read.
    #[error("the actor serial is empty; write e.g. R1/1(27)-M3(3/3/3)-B3(3/3/3)-S3(3/3/3)")]
    Empty,
    /// The `R{Rank}/{WR}({BB}/{ability points})` header is malformed.
    #[error(
        "bad serial header {0:?}: write R{{Rank}}/{{Wildcard Rank}}({{Build Budget}}[/{{ability points}}]), e.g. R2/1(38/5)"
    )]
    Header(String),
    /// A letter that is not an Aspect.
    #[error("{0:?} in the serial is not an Aspect letter; use M, B or S, e.g. M3(3/3/3)")]
    AspectLetter(char),
    /// The same Aspect twice.
    #[error("the serial gives the {0} Aspect twice")]
    DuplicateAspect(Aspect),
    /// An Aspect without its `(a/b/c)` triplet.
    #[error("the {0} Aspect needs its three values in parentheses, e.g. {1}3(3/3/3)")]
    Triplet(Aspect, char),
    /// A triplet without three values.
    #[error("the {0} Aspect lists {1} values; it needs exactly three, separated by /")]
    Count(Aspect, usize),
    /// A value that is not 0–100, `@` or `-`.
    #[error("{attribute} value {text:?} is not 0–100, @ (100) or - (absent)")]
    Value {
        /// The Attribute.
        attribute: Attribute,
        /// What was written.
        text: String,
    },
    /// A Trine Score that is not a number or `-`.
    #[error("the {0} Trine Score {1:?} is not a number or -")]
    TrineScore(Aspect, String),
    /// Something after the last Aspect.
    #[error("unexpected {0:?} in the serial; Aspects are separated by -")]
    Trailing(String),
    /// A term of the shortened Thing notation without an Attribute name or a value.
    #[error(
        "{0:?} is not an Attribute and its value; the shortened Thing notation is ATTRIBUTE-VALUE, e.g. FIT-1 or F1 (for B1(-/1/-))"
    )]
    ShortTerm(String),
    /// A name in the shortened Thing notation that is not an Attribute.
    #[error(
        "{0:?} in the shortened Thing notation is not an Attribute; use REA KNO QUI, STR FIT AGI, WIL PRE INT or their first letters, e.g. FIT-1 or F1"
    )]
    ShortAttribute(String),
    /// The same Attribute twice in the shortened Thing notation.
    #[error("the serial gives {0} twice")]
    DuplicateAttribute(Attribute),
    /// No Aspect at all.
    #[error("the serial names no Aspect; write at least one, e.g. B3(3/3/3)")]
    NoAspect,
}

/// An inconsistency a serial may carry without being rejected (Decisions 9 and 10).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SerialWarning {
    /// The printed Trine Score differs from the computed one.
    #[error("the serial prints {aspect} Trine Score {printed}; the values give {computed}")]
    TrineScore {
        /// The Aspect.
        aspect: Aspect,
        /// As printed.
        printed: u16,
        /// As computed.
        computed: u16,
    },
    /// The stated Rank differs from the one computed from the Build Budget.
    #[error("the serial states Rank {stated}; its Build Budget gives Rank {computed}, which is used")]
    Rank {
        /// As stated.
        stated: u16,
        /// As computed.
        computed: u16,
    },
    /// The stated Build Budget is not the values plus the ability points.
    #[error(
        "the serial states Build Budget {stated} but its values and ability points add up to {sum}; the stated budget is used"
    )]
    Budget {
        /// As stated.
        stated: u16,
        /// Values plus ability points.
        sum: u16,
    },
}

fn number(text: &str) -> Option<u16> {
    (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())).then(|| text.parse().ok()).flatten()
}

/// What a serial header states: Rank, Wildcard Rank, Build Budget, ability points.
type Header = (Option<u16>, Option<u16>, Option<u16>, u16);

fn parse_header(h: &str) -> Result<Header, SerialError> {
    let bad = || SerialError::Header(h.to_owned());
    let body = h.strip_prefix('R').ok_or_else(bad)?;
    let (ranks, rest) = body.split_once('(').ok_or_else(bad)?;
    let budget = rest.strip_suffix(')').ok_or_else(bad)?;
    let (r, wr) = match ranks.split_once('/') {
        Some((r, wr)) => (r, Some(wr)),
        None => (ranks, None),
    };
    let r = if r.is_empty() { None } else { Some(number(r).ok_or_else(bad)?) };
    let wr = match wr {
        None | Some("") | Some("-") => None,
        Some(w) => Some(number(w).ok_or_else(bad)?),
    };
    let (bb, ab) = match budget.split_once('/') {
        Some((bb, ab)) => (bb, number(ab).ok_or_else(bad)?),
        None => (budget, 0),
    };
    let bb = if bb.is_empty() { None } else { Some(number(bb).ok_or_else(bad)?) };
    Ok((r, wr, bb, ab))
}

/// Splits a leading `R…(…)` header off a serial, if there is one.
fn split_header(s: &str) -> (Option<&str>, &str) {
    if s.starts_with('R')
        && let Some(close) = s.find(')')
        && s[..close].contains('(')
    {
        return (Some(&s[..=close]), &s[close + 1..]);
    }
    (None, s)
}

fn parse(serial: &str) -> Result<(Statblock, Vec<SerialWarning>), SerialError> {
    let trimmed = serial.trim();
    if trimmed.is_empty() {
        return Err(SerialError::Empty);
    }
    let (header, rest) = split_header(trimmed);
    if !rest.contains('(') {
        return parse_short(header, rest);
    }
    let s: String = serial.chars().filter(|c| !c.is_whitespace()).collect();
    let mut block = Statblock::default();
    let mut rest = s.as_str();
    if rest.starts_with('R') {
        let end = rest.find(')').map(|i| i + 1).unwrap_or(rest.len());
        let (r, wr, bb, ab) = parse_header(&rest[..end])?;
        block.stated_rank = r;
        block.stated_wildcards = wr;
        block.stated_budget = bb;
        block.ability_points = ab;
        rest = &rest[end..];
        rest = rest.strip_prefix('-').unwrap_or(rest);
    }
    let mut seen = [false; 3];
    let mut printed: [Option<u16>; 3] = [None; 3];
    while !rest.is_empty() {
        let mut chars = rest.chars();
        let letter = chars.next().unwrap_or(' ');
        let aspect = match letter {
            'M' | 'm' => Aspect::Mind,
            'B' | 'b' => Aspect::Body,
            'S' | 's' => Aspect::Spirit,
            other => return Err(SerialError::AspectLetter(other)),
        };
        if seen[aspect.index()] {
            return Err(SerialError::DuplicateAspect(aspect));
        }
        seen[aspect.index()] = true;
        rest = &rest[1..];
        let open = rest.find('(').ok_or(SerialError::Triplet(aspect, aspect.letter()))?;
        let ts = &rest[..open];
        if !ts.is_empty() && ts != "-" {
            printed[aspect.index()] =
                Some(number(ts).ok_or_else(|| SerialError::TrineScore(aspect, ts.to_owned()))?);
        }
        let close = rest.find(')').ok_or(SerialError::Triplet(aspect, aspect.letter()))?;
        if close < open {
            return Err(SerialError::Triplet(aspect, aspect.letter()));
        }
        let values: Vec<&str> = rest[open + 1..close].split('/').collect();
        if values.len() != 3 {
            return Err(SerialError::Count(aspect, values.len()));
        }
        for (attribute, text) in aspect.attributes().into_iter().zip(values) {
            block.attributes[attribute.index()] = match text {
                "-" | "—" => None,
                "@" => Some(MAX_AV),
                t => match number(t) {
                    Some(v) if v <= u16::from(MAX_AV) => Some(v as u8),
                    _ => return Err(SerialError::Value { attribute, text: t.to_owned() }),
                },
            };
        }
        rest = &rest[close + 1..];
        if let Some(r) = rest.strip_prefix('-') {
            rest = r;
            if rest.is_empty() {
                return Err(SerialError::Trailing("-".to_owned()));
            }
        } else if !rest.is_empty() {
            return Err(SerialError::Trailing(rest.to_owned()));
        }
    }
    if !seen.iter().any(|&x| x) {
        return Err(SerialError::NoAspect);
    }
    let warnings = warnings(&block, printed);
    Ok((block, warnings))
}

/// The inconsistencies a parsed serial carries (Decisions 9 and 10): printed Trine Scores,
/// stated Build Budget and Rank that the values do not give.
fn warnings(block: &Statblock, printed: [Option<u16>; 3]) -> Vec<SerialWarning> {
    let mut warnings = Vec::new();
    for aspect in Aspect::ALL {
        if let (Some(p), Some(c)) = (printed[aspect.index()], block.trine_score(aspect))
            && p != c
        {
            warnings.push(SerialWarning::TrineScore { aspect, printed: p, computed: c });
        }
    }
    if let Some(stated) = block.stated_budget {
        let sum = block.value_total().saturating_add(block.ability_points);
        if stated != sum {
            warnings.push(SerialWarning::Budget { stated, sum });
        }
    }
    if let Some(stated) = block.stated_rank
        && stated != block.rank()
    {
        warnings.push(SerialWarning::Rank { stated, computed: block.rank() });
    }
    warnings
}

/// Characters between the terms of a shortened Thing serial.
fn is_term_separator(c: char) -> bool {
    c.is_whitespace() || matches!(c, ',' | ';' | '+' | '-')
}

/// Parses the shortened Thing notation (§3.3: an object that "just has FIT", `B1(-/1/-)`, is
/// written `FIT-1` or `F1`): one or more `ATTRIBUTE-VALUE` terms (the Attribute by its
/// three-letter, one-letter or long name, the `-` optional, the value 0–100 or `@`), separated
/// by spaces, commas or `-`, after an optional `R…(…)` header. Unnamed Attributes are absent;
/// nothing is stated unless a header is given, so the Build Budget is the sum of the values and
/// the Rank follows from it (Decision 29 in `docs/nodice.md`).
fn parse_short(header: Option<&str>, rest: &str) -> Result<(Statblock, Vec<SerialWarning>), SerialError> {
    let mut block = Statblock::default();
    if let Some(h) = header {
        let h: String = h.chars().filter(|c| !c.is_whitespace()).collect();
        let (r, wr, bb, ab) = parse_header(&h)?;
        block.stated_rank = r;
        block.stated_wildcards = wr;
        block.stated_budget = bb;
        block.ability_points = ab;
    }
    let mut seen = false;
    let mut text = rest;
    loop {
        text = text.trim_start_matches(is_term_separator);
        if text.is_empty() {
            break;
        }
        let term_end =
            text.find(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '+')).unwrap_or(text.len());
        let name_end = text.find(|c: char| !c.is_alphabetic()).unwrap_or(text.len());
        let name = &text[..name_end];
        let after = text[name_end..].trim_start_matches(|c: char| c.is_whitespace() || c == '-');
        let value_end = after.find(|c: char| !(c.is_ascii_digit() || c == '@')).unwrap_or(after.len());
        let value = &after[..value_end];
        if name.is_empty() || value.is_empty() {
            return Err(SerialError::ShortTerm(text[..term_end.max(1)].to_owned()));
        }
        let attribute = match name.parse::<Attribute>() {
            Ok(a) => a,
            Err(_) if name.eq_ignore_ascii_case("m") || name.eq_ignore_ascii_case("b") => {
                let aspect = if name.eq_ignore_ascii_case("m") { Aspect::Mind } else { Aspect::Body };
                return Err(SerialError::Triplet(aspect, aspect.letter()));
            }
            Err(_) => return Err(SerialError::ShortAttribute(name.to_owned())),
        };
        if block.possesses(attribute) {
            return Err(SerialError::DuplicateAttribute(attribute));
        }
        block.attributes[attribute.index()] = Some(match value {
            "@" => MAX_AV,
            v => match number(v) {
                Some(v) if v <= u16::from(MAX_AV) => v as u8,
                _ => return Err(SerialError::Value { attribute, text: v.to_owned() }),
            },
        });
        seen = true;
        text = &after[value_end..];
    }
    if !seen {
        return Err(SerialError::NoAspect);
    }
    let warnings = warnings(&block, [None; 3]);
    Ok((block, warnings))
}

impl FromStr for Statblock {
    type Err = SerialError;

    /// Parses an actor serial (§3.3), tolerating the inconsistencies of Decisions 9–10.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse(s).map(|(b, _)| b)
    }
}

impl Statblock {
    /// The shortened Thing notation (§3.3): `FIT-1` for `B1(-/1/-)`, `STR-5 FIT-8` for two
    /// Attributes, in serial order with three-letter names and `@` for 100. `None` when it
    /// would lose something the full serial says: ability points, or a stated Build Budget
    /// other than the sum of the values.
    pub fn short_serial(&self) -> Option<String> {
        if self.ability_points != 0 || self.build_budget() != self.value_total() {
            return None;
        }
        let terms: Vec<String> = Attribute::ALL
            .into_iter()
            .filter_map(|a| {
                self.value(a).map(|v| match v {
                    MAX_AV => format!("{a}-@"),
                    v => format!("{a}-{v}"),
                })
            })
            .collect();
        (!terms.is_empty()).then(|| terms.join(" "))
    }

    /// The serial to print for an Actor of `kind` that brings `wildcards` to the Conflict: the
    /// shortened Thing notation for an abstract Actor that has a single Attribute and no
    /// Wildcards (a Thing that "just has FIT", §3.3; Decision 29), else the full serial whose
    /// header shows the Wildcards an NPC or abstract Actor really has (the formula's Wildcard
    /// Rank is a PC's).
    pub fn serial_for(&self, kind: Kind, wildcards: u16) -> String {
        let single = self.attributes.iter().filter(|v| v.is_some()).count() == 1;
        if kind == Kind::Abstract
            && single
            && wildcards == 0
            && let Some(short) = self.short_serial()
        {
            return short;
        }
        let wr = match (kind, self.stated_wildcards) {
            (_, Some(stated)) => stated,
            (Kind::Pc, None) => self.wildcard_rank(),
            (Kind::Npc | Kind::Abstract, None) => wildcards,
        };
        FullSerial(self, wr).to_string()
    }
}

impl Statblock {
    /// The serial in words (§3.2–3.3), for a player who has not learnt the notation:
    /// "Rank 2, Wildcard Rank 1, Build Budget 38 (5 on abilities); Mind: Trine Score 4 —
    /// Reason 5, Knowledge 4, Quickness 3; …". `values` are the values now (after damage),
    /// in serial order; the Rank, the Budget and the Trine Scores are the sheet's (damage never
    /// lowers them).
    pub fn serial_words(&self, wildcards: u16, values: [Option<u16>; 9]) -> String {
        let mut out =
            format!("Rank {}, Wildcard Rank {wildcards}, Build Budget {}", self.rank(), self.build_budget());
        if self.ability_points > 0 {
            out.push_str(&format!(" ({} on abilities)", self.ability_points));
        }
        for aspect in Aspect::ALL {
            match self.trine_score(aspect) {
                None => out.push_str(&format!("; {}: none", aspect.name())),
                Some(ts) => {
                    let parts: Vec<String> = aspect
                        .attributes()
                        .into_iter()
                        .map(|a| match values[a.index()] {
                            None => format!("no {}", a.name()),
                            Some(v) => format!("{} {v}", a.name()),
                        })
                        .collect();
                    out.push_str(&format!("; {}: Trine Score {ts} — {}", aspect.name(), parts.join(", ")));
                }
            }
        }
        out
    }

    /// The serial with the values now (after damage) in its parentheses, the sheet's header and
    /// Trine Scores kept: `R2/1(38/5)-M4(5/1/3)-B4(4/4/4)-S3(2/3/4)`.
    pub fn serial_now(&self, wildcards: u16, values: [Option<u16>; 9]) -> String {
        let mut now = *self;
        for (slot, v) in now.attributes.iter_mut().zip(values) {
            *slot = v.map(|v| u8::try_from(v).unwrap_or(MAX_AV).min(MAX_AV));
        }
        let mut out =
            format!("R{}/{}({}/{})", self.rank(), wildcards, self.build_budget(), self.ability_points);
        for aspect in Aspect::ALL {
            let ts = self.trine_score(aspect);
            let vals: Vec<String> = aspect
                .attributes()
                .into_iter()
                .map(|a| match now.value(a) {
                    None => "-".to_owned(),
                    Some(MAX_AV) => "@".to_owned(),
                    Some(v) => v.to_string(),
                })
                .collect();
            match ts {
                Some(ts) => out.push_str(&format!("-{}{ts}({})", aspect.letter(), vals.join("/"))),
                None => out.push_str(&format!("-{}-({})", aspect.letter(), vals.join("/"))),
            }
        }
        out
    }
}

/// The full serial with a given Wildcard Rank in its header.
struct FullSerial<'a>(&'a Statblock, u16);

impl fmt::Display for FullSerial<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let FullSerial(block, wr) = *self;
        write!(f, "R{}/{}({}/{})", block.rank(), wr, block.build_budget(), block.ability_points)?;
        for aspect in Aspect::ALL {
            f.write_str("-")?;
            write_aspect(block, aspect, f)?;
        }
        Ok(())
    }
}

impl fmt::Display for Statblock {
    /// The canonical serial (§3.3): `R{R}/{WR}({BB}/{ability points})-M{TS}(…)-B{TS}(…)-S{TS}(…)`,
    /// with the computed Rank and the stated Wildcard Rank (or the formula's), `@` for 100 and
    /// `-` for absent.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let wr = self.stated_wildcards.unwrap_or_else(|| self.wildcard_rank());
        FullSerial(self, wr).fmt(f)
    }
}

fn write_aspect(block: &Statblock, aspect: Aspect, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match block.trine_score(aspect) {
        Some(ts) => write!(f, "{}{}(", aspect.letter(), ts)?,
        None => write!(f, "{}-(", aspect.letter())?,
    }
    for (i, a) in aspect.attributes().into_iter().enumerate() {
        if i > 0 {
            f.write_str("/")?;
        }
        match block.value(a) {
            None => f.write_str("-")?,
            Some(MAX_AV) => f.write_str("@")?,
            Some(v) => write!(f, "{v}")?,
        }
    }
    f.write_str(")")
}
