//! The referee calculator (`facedown iron-triangle resolve`): one turn of Iron Triangle played
//! with real cards, described by the referee ([`TurnSheet`]), checked ([`TurnSheet::check`],
//! [`RefereeError`] names the field and the rule) and resolved ([`resolve`]) by the engine's
//! own functions: [`turn::resolve`] decides the turn (§5.2 step 4, §5.3),
//! [`effects::forbidden_actions`] and [`effects::settle`] apply the specials revealed in it in
//! list order (§6), [`chain::after_turn`] carries the disadvantage and combo chains into the
//! next turn (§5.4, §5.5). Nothing here re-derives a rule; the [`Report`] gathers the answer
//! (the `--json` output of the command), and a shell only renders it.
//!
//! The file format and the output are described in `docs/iron-triangle-resolve.md`.

use std::fmt;

use serde::{Deserialize, Serialize};
use table::SideId;
use thiserror::Error;

use crate::card::CardError;
use crate::chain::{self, ComboCard, ComboChain, DisadvantageChain};
use crate::effects::{self, ExtraKind, Settlement};
use crate::special::{Edition, Special, SpecialError};
use crate::turn::{self, Contender, Decided, Loss, Outcome, Play, TurnResult};
use crate::windows::SpecialCard;
use crate::{Energy, FighterId, Move, MoveSet, RuleError, Stance};

// ---------------------------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------------------------

/// One turn as the referee enters it (an input file, or the `--a-*`/`--b-*` flags): both of
/// the pair, as text, checked by [`TurnSheet::check`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnSheet {
    /// Free text, ignored (JSON has no comments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// The edition of the specials: "current" (default) or "earlier".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edition: Option<String>,
    /// "a" or "b": an ally of that side plays Yojimbo naming it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yojimbo: Option<String>,
    /// Character A.
    pub a: SideSheet,
    /// Character B.
    pub b: SideSheet,
}

/// One character of the pair as the referee enters it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideSheet {
    /// Its name (default "A" or "B").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Current energy ○, ▨, ◆ (optional: enables the stance check and the wipe-out check).
    #[serde(default, deserialize_with = "energy_list", skip_serializing_if = "Option::is_none")]
    pub energy: Option<[u8; 3]>,
    /// The revealed stance, e.g. "2▨", "2 grapple" or "0" (default: no stance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stance: Option<String>,
    /// The revealed move, e.g. "▨☰" or "grapple heaven", or "surrender".
    #[serde(rename = "move")]
    pub play: String,
    /// Its disadvantage chain before this turn, oldest first.
    #[serde(default)]
    pub disadvantage: Vec<String>,
    /// The combo chain it is continuing against the other, oldest first.
    #[serde(default)]
    pub combo: Vec<String>,
    /// Its learned follow-ups of the combo chain's newest move.
    #[serde(default)]
    pub follow_ups: Vec<String>,
    /// The special revealed this turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub special: Option<String>,
    /// When `special` is Liquid Metal (earlier edition: Mimic): the special it copies, e.g.
    /// "vampire grapple". The copy acts as that special at its place in the list, and is not
    /// identical to it (§6 Decision, Liquid Metal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_of: Option<String>,
}

/// Deserializes `energy` as three numbers, with a message that names the field.
fn energy_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<[u8; 3]>, D::Error> {
    use serde::de::Error as _;
    let list = Vec::<u8>::deserialize(d).map_err(|e| {
        D::Error::custom(format!(
            "energy must be three numbers 0 to 255, the current ○, ▨, ◆ energy, e.g. [3, 4, 5]: {e}"
        ))
    })?;
    <[u8; 3]>::try_from(list.as_slice()).map(Some).map_err(|_| {
        D::Error::custom(format!(
            "energy must be three numbers, the current ○, ▨, ◆ energy, e.g. [3, 4, 5], not {}",
            list.len()
        ))
    })
}

/// Which of the pair: A (position 0) or B (position 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Character A, position 0.
    A,
    /// Character B, position 1.
    B,
}

impl Side {
    /// The position: 0 for A, 1 for B.
    pub fn index(self) -> usize {
        match self {
            Side::A => 0,
            Side::B => 1,
        }
    }

    /// The key in files and in the output: "a" or "b".
    pub fn key(self) -> &'static str {
        match self {
            Side::A => "a",
            Side::B => "b",
        }
    }

    /// The side at a position (0 is A, anything else B).
    pub fn from_index(i: usize) -> Side {
        if i == 0 { Side::A } else { Side::B }
    }
}

/// A field of the turn description, to name it in an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// A field of one of the pair, by its name in the file (`move`, `follow_ups`…).
    Side(Side, &'static str),
    /// A field of the whole turn (`yojimbo`, `edition`).
    Turn(&'static str),
}

impl Field {
    /// The field as a command-line flag: `--a-follow-ups`, `--yojimbo`.
    pub fn flag(self) -> String {
        match self {
            Field::Side(s, f) => format!("--{}-{}", s.key(), f.replace('_', "-")),
            Field::Turn(f) => format!("--{f}"),
        }
    }
}

impl fmt::Display for Field {
    /// The field as in a file: `a.follow_ups`, `yojimbo`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Field::Side(s, name) => write!(f, "{}.{name}", s.key()),
            Field::Turn(name) => f.write_str(name),
        }
    }
}

/// Why the calculator cannot resolve a turn: the field and what is wrong with it. Its
/// message names fields as in a file (`a.move`); [`RefereeError::message`] names them another
/// way (e.g. as flags).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{}", self.message(&|f| f.to_string()))]
pub struct RefereeError {
    /// The field at fault.
    pub field: Field,
    /// What is wrong (boxed: the error stays small on the happy path).
    pub problem: Box<Problem>,
}

/// What is wrong with a field of the turn description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// An empty name.
    EmptyName,
    /// A stance that does not read.
    Stance(String),
    /// A move that does not read.
    Move(CardError),
    /// A move in a list (a chain, follow-ups) that does not read.
    MoveList(CardError),
    /// A rule of the engine refuses the choice (a stance above the energy, §5.2 step 2; a move
    /// of the disadvantage chain, §5.2 step 3).
    Rule(RuleError),
    /// Follow-ups without a combo chain to continue (§5.5).
    FollowUpsWithoutCombo {
        /// The character.
        name: String,
    },
    /// Both of the pair continue a combo chain (§5.5).
    BothCombos,
    /// A special that does not read (§6).
    Special(SpecialError),
    /// A special of the other edition (§6, §11).
    OtherEdition {
        /// The special.
        special: Special,
        /// The edition of the turn.
        edition: Edition,
    },
    /// Yojimbo given as a special of the pair: it is played by an ally (§6).
    YojimboOfThePair {
        /// Its name in the edition.
        name: String,
    },
    /// A copied special given for a special that is not Liquid Metal (§6).
    CopyWithoutLiquidMetal {
        /// Liquid Metal's name in the edition.
        liquid_metal: String,
        /// The special given instead, in the edition's words, if any.
        special: Option<String>,
    },
    /// A copy of a special Liquid Metal cannot copy: Drunken Monkey, The Way of the Samurai,
    /// or Liquid Metal itself (§6 Decision, Liquid Metal).
    NotCopyable {
        /// Liquid Metal's name in the edition.
        liquid_metal: String,
        /// The special named as copied, in the edition's words.
        copied: String,
        /// The specials that cannot be copied, in the edition's words.
        excluded: [String; 2],
    },
    /// A move I Already Know forbids (§6).
    Forbidden {
        /// The engine's refusal.
        error: RuleError,
        /// Who played I Already Know.
        by: String,
        /// The special's name in the edition.
        special: String,
        /// The one who may not play the move.
        fighter: String,
        /// The move.
        card: Move,
    },
    /// A Yojimbo side that is neither a nor b.
    NotASide(String),
    /// An edition that is neither current nor earlier.
    NotAnEdition(String),
}

impl RefereeError {
    fn new(field: Field, problem: Problem) -> RefereeError {
        RefereeError { field, problem: Box::new(problem) }
    }

    /// The message, with every field named by `name` (e.g. [`Field::flag`]).
    pub fn message(&self, name: &dyn Fn(Field) -> String) -> String {
        let field = name(self.field);
        let side = match self.field {
            Field::Side(s, _) => s,
            Field::Turn(_) => Side::A,
        };
        let text = match &*self.problem {
            Problem::EmptyName => "a name cannot be empty".to_owned(),
            Problem::Stance(e) => e.clone(),
            Problem::Move(e) => format!("{e} (or \"surrender\")"),
            Problem::MoveList(e) => e.to_string(),
            Problem::Rule(e) => e.to_string(),
            Problem::FollowUpsWithoutCombo { name: who } => format!(
                "follow-ups only matter when {who} continues a combo chain (a follow-up is a learned link from the chain's newest move); give the chain in {} (oldest first)",
                name(Field::Side(side, "combo"))
            ),
            Problem::BothCombos => {
                return format!(
                    "{} and {} are both given: only one side can be continuing a combo chain, since a chain ends when its side loses or ties a turn",
                    name(Field::Side(Side::A, "combo")),
                    name(Field::Side(Side::B, "combo"))
                );
            }
            Problem::Special(e) => format!(
                "{e} (write a special by its name in either edition or its key, e.g. \"pressure point\", \"wax on grapple\", \"santa_carla_attack\")"
            ),
            Problem::OtherEdition { special, edition } => other_edition(*special, *edition),
            Problem::YojimboOfThePair { name } => format!(
                "{name} is played by an ally of the pair, before resolving, naming the one of the pair whose loss it takes: use --yojimbo a|b (or yojimbo = \"a\" in the input file)"
            ),
            Problem::CopyWithoutLiquidMetal { liquid_metal, special } => {
                let given = match special {
                    Some(sp) => format!("{} is {sp}", name(Field::Side(side, "special"))),
                    None => format!("{} is not given", name(Field::Side(side, "special"))),
                };
                format!(
                    "only {liquid_metal} copies another special, and {given}: give {liquid_metal} as the special with the special it copies"
                )
            }
            Problem::NotCopyable { liquid_metal, copied, excluded: [monkey, samurai] } => {
                if copied == liquid_metal {
                    format!(
                        "{liquid_metal} cannot copy itself: it copies a special another character used in this conflict"
                    )
                } else {
                    format!(
                        "{liquid_metal} cannot copy {copied}: it copies a special another character used in this conflict, any but {monkey} and {samurai}"
                    )
                }
            }
            Problem::Forbidden { error, by, special, fighter, card } => {
                format!("{error}: {by} played {special}, so {fighter} may not play {card}")
            }
            Problem::NotASide(w) => {
                format!("{w:?} is not a side: write a or b, the side whose loss an ally takes with Yojimbo")
            }
            Problem::NotAnEdition(text) => format!(
                "{text:?} is not an edition: write current (the default) or earlier (the earlier edition, with Parry and Vampire)"
            ),
        };
        format!("{field}: {text}")
    }
}

/// The message for a special of the other edition (§6, §11), naming the special that takes
/// its place.
fn other_edition(sp: Special, edition: Edition) -> String {
    let (other, hint) = match edition {
        Edition::Current => ("earlier", "add --edition earlier (or edition = \"earlier\" in the input file)"),
        Edition::Earlier => ("current", "leave out the earlier edition"),
    };
    let instead = match sp {
        Special::Parry(a) => {
            format!("; the current edition has {} in its place", Special::WaxOn(a).name(Edition::Current))
        }
        Special::Vampire(a) => {
            format!(
                "; the current edition has {} in its place",
                Special::SantaCarla(a).name(Edition::Current)
            )
        }
        Special::WaxOn(a) => {
            format!("; the earlier edition has {} in its place", Special::Parry(a).name(Edition::Earlier))
        }
        Special::SantaCarla(a) => {
            format!("; the earlier edition has {} in its place", Special::Vampire(a).name(Edition::Earlier))
        }
        _ => String::new(),
    };
    format!(
        "{} is a special of the {other} edition only, not of the {} edition{instead}: {hint}",
        sp.name(Edition::Current),
        edition_name(edition)
    )
}

/// Reads an edition: "current" or "earlier" (any case).
pub fn parse_edition(text: &str) -> Result<Edition, RefereeError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "current" => Ok(Edition::Current),
        "earlier" => Ok(Edition::Earlier),
        _ => Err(RefereeError::new(Field::Turn("edition"), Problem::NotAnEdition(text.to_owned()))),
    }
}

/// The name of an edition in files and in the output: "current" or "earlier".
pub fn edition_name(e: Edition) -> &'static str {
    match e {
        Edition::Current => "current",
        Edition::Earlier => "earlier",
    }
}

/// One character of the turn, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fighter {
    /// Its name.
    pub name: String,
    /// Its current energy, when given.
    pub energy: Option<Energy>,
    /// The revealed stance.
    pub stance: Stance,
    /// The revealed move or surrender.
    pub play: Play,
    /// Its disadvantage chain before this turn.
    pub disadvantage: DisadvantageChain,
    /// The combo chain it continues, oldest first (empty: none).
    pub combo: Vec<Move>,
    /// Its learned follow-ups of the combo chain's newest move.
    pub follow_ups: MoveSet,
    /// The special revealed this turn, if any: a Liquid Metal with the special it copies.
    pub special: Option<SpecialCard>,
}

/// The whole turn, checked: what [`resolve`] takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// A and B.
    pub fighters: [Fighter; 2],
    /// The combo chain one of the pair is continuing against the other.
    pub combo: Option<ComboChain>,
    /// The side whose loss an ally takes with Yojimbo.
    pub yojimbo: Option<Side>,
    /// The edition of the specials.
    pub edition: Edition,
}

impl TurnSheet {
    /// Checks the turn and reads it into a [`Turn`]: every move, stance and special must read;
    /// a stance may not exceed the energy of its type (§5.2 step 2); a move of the disadvantage
    /// chain may not be played (§5.2 step 3); only one of the pair continues a combo chain
    /// (§5.5); a special belongs to the turn's edition and I Already Know forbids a move of its
    /// type (§6).
    pub fn check(&self) -> Result<Turn, RefereeError> {
        let edition = self.edition.as_deref().map(parse_edition).transpose()?.unwrap_or_default();
        let fighters = [fighter(&self.a, Side::A, edition)?, fighter(&self.b, Side::B, edition)?];
        let combo = combo_chain(&fighters)?;
        forbidden_moves(&fighters, edition)?;
        let yojimbo = match self.yojimbo.as_deref().map(str::trim) {
            None => None,
            Some(w) if w.eq_ignore_ascii_case("a") => Some(Side::A),
            Some(w) if w.eq_ignore_ascii_case("b") => Some(Side::B),
            Some(w) => {
                return Err(RefereeError::new(Field::Turn("yojimbo"), Problem::NotASide(w.to_owned())));
            }
        };
        Ok(Turn { fighters, combo, yojimbo, edition })
    }
}

/// Checks and resolves a turn description: [`TurnSheet::check`] then [`resolve`].
pub fn compute(sheet: &TurnSheet) -> Result<Report, RefereeError> {
    Ok(resolve(&sheet.check()?))
}

/// I Already Know (§6): the opponent may not choose a move of its action this turn, unless
/// both of the pair played the same one (they cancel). The engine says which action each of
/// the pair is forbidden.
fn forbidden_moves(fighters: &[Fighter; 2], edition: Edition) -> Result<(), RefereeError> {
    let forbidden = effects::forbidden_actions([fighters[0].special, fighters[1].special]);
    for (i, f) in fighters.iter().enumerate() {
        let o = &fighters[1 - i];
        if let Some(card) = f.special
            && let Some(action) = forbidden[1 - i]
            && let Play::Move(m) = o.play
            && m.action() == action
        {
            let error = RuleError::MoveForbidden { fighter: o.name.clone(), action };
            return Err(RefereeError::new(
                Field::Side(Side::from_index(1 - i), "move"),
                Problem::Forbidden {
                    error,
                    by: f.name.clone(),
                    special: card.name(edition),
                    fighter: o.name.clone(),
                    card: m,
                },
            ));
        }
    }
    Ok(())
}

fn parse_moves(list: &[String], field: Field) -> Result<Vec<Move>, RefereeError> {
    list.iter()
        .map(|s| s.parse::<Move>().map_err(|e| RefereeError::new(field, Problem::MoveList(e))))
        .collect()
}

fn fighter(input: &SideSheet, who: Side, edition: Edition) -> Result<Fighter, RefereeError> {
    let field = |f: &'static str| Field::Side(who, f);
    let err = |f: &'static str, p: Problem| RefereeError::new(field(f), p);
    let name = match &input.name {
        Some(n) if n.trim().is_empty() => return Err(err("name", Problem::EmptyName)),
        Some(n) => n.trim().to_owned(),
        None => who.key().to_ascii_uppercase(),
    };
    let stance: Stance = match &input.stance {
        None => Stance::NONE,
        Some(s) => s.parse().map_err(|e: String| err("stance", Problem::Stance(e)))?,
    };
    let play: Play = input.play.parse().map_err(|e| err("move", Problem::Move(e)))?;
    let energy = input.energy.map(|[d, g, a]| Energy::new(d, g, a));
    if let Some(energy) = energy {
        let current = energy.get(stance.action);
        if stance.amount > current {
            let e = RuleError::StanceAboveEnergy {
                fighter: name.clone(),
                action: stance.action,
                amount: stance.amount,
                current,
            };
            return Err(err("stance", Problem::Rule(e)));
        }
    }
    let disadvantage =
        DisadvantageChain::from_cards(parse_moves(&input.disadvantage, field("disadvantage"))?);
    if let Play::Move(m) = play
        && disadvantage.set().contains(m)
    {
        let e = RuleError::MoveUnavailable { fighter: name.clone(), card: m, chain: "disadvantage" };
        return Err(err("move", Problem::Rule(e)));
    }
    let combo = parse_moves(&input.combo, field("combo"))?;
    let follow_ups: MoveSet = parse_moves(&input.follow_ups, field("follow_ups"))?.into_iter().collect();
    if combo.is_empty() && !follow_ups.is_empty() {
        return Err(err("follow_ups", Problem::FollowUpsWithoutCombo { name }));
    }
    let special = match input.special.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(text) => Some(parse_special(text, field("special"), edition)?),
    };
    let special = match input.copy_of.as_deref().map(str::trim) {
        None | Some("") => special.map(SpecialCard::new),
        Some(text) => Some(liquid_metal_copy(special, text, field("copy_of"), edition)?),
    };
    Ok(Fighter { name, energy, stance, play, disadvantage, combo, follow_ups, special })
}

/// Reads a special of `edition` played by one of the pair.
fn parse_special(text: &str, field: Field, edition: Edition) -> Result<Special, RefereeError> {
    let sp: Special = text.parse().map_err(|e| RefereeError::new(field, Problem::Special(e)))?;
    if !sp.in_edition(edition) {
        return Err(RefereeError::new(field, Problem::OtherEdition { special: sp, edition }));
    }
    if sp == Special::Yojimbo {
        return Err(RefereeError::new(field, Problem::YojimboOfThePair { name: sp.name(edition) }));
    }
    Ok(sp)
}

/// Liquid Metal copying the special `text` names: `special` must be Liquid Metal, and the copy
/// one of the specials it may copy. **Decision (Liquid Metal, §6):** any special another
/// character used in this conflict except Drunken Monkey and The Way of the Samurai (nor Liquid
/// Metal itself: [`Special::copyable`]); the copy acts as the copied special at its place in the
/// list, and for the cancelling rule it is not identical to the original
/// ([`SpecialCard::cancels`]).
fn liquid_metal_copy(
    special: Option<Special>,
    text: &str,
    field: Field,
    edition: Edition,
) -> Result<SpecialCard, RefereeError> {
    let liquid_metal = Special::LiquidMetal.name(edition);
    if special != Some(Special::LiquidMetal) {
        let special = special.map(|sp| sp.name(edition));
        return Err(RefereeError::new(field, Problem::CopyWithoutLiquidMetal { liquid_metal, special }));
    }
    let copied = parse_special(text, field, edition)?;
    if !copied.copyable() {
        let excluded = [Special::DrunkenMonkey.name(edition), Special::WayOfTheSamurai.name(edition)];
        let copied = copied.name(edition);
        return Err(RefereeError::new(field, Problem::NotCopyable { liquid_metal, copied, excluded }));
    }
    Ok(SpecialCard { special: Special::LiquidMetal, target: None, copy: Some(copied) })
}

/// The combo chain of the turn, from whichever of the pair is continuing one.
fn combo_chain(fighters: &[Fighter; 2]) -> Result<Option<ComboChain>, RefereeError> {
    match (fighters[0].combo.is_empty(), fighters[1].combo.is_empty()) {
        (true, true) => Ok(None),
        (false, false) => Err(RefereeError::new(Field::Side(Side::A, "combo"), Problem::BothCombos)),
        (a_empty, _) => {
            let i = if a_empty { 1 } else { 0 };
            Ok(Some(ComboChain {
                side: SideId(i as u8),
                against: FighterId(1 - i as u8),
                cards: fighters[i]
                    .combo
                    .iter()
                    .map(|&card| ComboCard { by: FighterId(i as u8), card })
                    .collect(),
            }))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Resolution
// ---------------------------------------------------------------------------------------------

/// The turn as the engine sees it: each of the pair as a [`Contender`].
fn contenders(turn: &Turn) -> [Contender; 2] {
    let contender = |i: usize| {
        let f = &turn.fighters[i];
        let combo_len = match (&turn.combo, f.play) {
            (Some(chain), Play::Move(m)) if !chain.is_empty() => {
                chain.bonus_for(SideId(i as u8), FighterId(1 - i as u8), f.follow_ups, m)
            }
            _ => 0,
        };
        Contender {
            stance: f.stance,
            play: f.play,
            disadvantage_newest: f.disadvantage.newest(),
            disadvantage_len: f.disadvantage.len(),
            combo_len,
        }
    };
    [contender(0), contender(1)]
}

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

/// The `--json` output.
#[derive(Debug, Serialize)]
pub struct Report {
    /// Character A.
    pub a: FighterReport,
    /// Character B.
    pub b: FighterReport,
    /// "win", "tie" or "surrender".
    pub outcome: &'static str,
    /// "a", "b", or null on a tie or when both surrender. A lone surrender makes the other
    /// the winner (for passing the next turn).
    pub winner: Option<&'static str>,
    /// The winner-order step that decided the turn.
    pub decided_by: Decided,
    /// One line saying who won and why.
    pub summary: String,
    /// Whether the winner's move continued the combo chain.
    pub combo_continued: bool,
    /// The chains the next turn starts with.
    pub next: NextReport,
    /// "current" or "earlier": the edition the specials' names follow.
    pub edition: &'static str,
    /// The specials revealed this turn, in list order (the order they take effect, §6).
    pub specials: Vec<SpecialReport>,
    /// The pair's losses after the specials (without specials: the same as `a.loss`, `b.loss`).
    pub final_losses: Pair<LossReport>,
    /// Who spreads the part of each final loss that does not come from its own stance: the
    /// character itself, or the opponent's Pressure Point.
    pub spreaders: Pair<&'static str>,
    /// Losses taken over (Yojimbo) and gains (Santa Carla, Vampire).
    pub extras: Vec<ExtraReport>,
}

/// One value for each of the pair.
#[derive(Debug, Clone, Serialize)]
pub struct Pair<T> {
    pub a: T,
    pub b: T,
}

/// A special revealed this turn.
#[derive(Debug, Serialize)]
pub struct SpecialReport {
    /// Who played it: "a", "b", or "a_ally"/"b_ally" (Yojimbo by an ally of that side).
    pub by: &'static str,
    /// The special's key, e.g. "wax_on_grapple" ("liquid_metal" for a copy).
    pub special: Special,
    /// For Liquid Metal: the key of the special it copies, whose effect it has.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy_of: Option<Special>,
    /// Its name in the edition, e.g. "Wax On ▨" or "Liquid Metal copying Vampire ▨".
    pub name: String,
    /// Its place in the list (1–12), a copy's the copied special's; later places prevail.
    pub place: u8,
    /// Whether an identical special of the other of the pair cancelled it (§6).
    pub cancelled: bool,
    /// Whether it changed a loss, who spreads one, or added a loss or gain.
    pub changed: bool,
    /// What it did, in words.
    pub effect: String,
}

/// A loss taken over or a gain.
#[derive(Debug, Serialize)]
pub struct ExtraReport {
    /// Whose energy it changes: "a", "b", or "a_ally"/"b_ally".
    pub fighter: &'static str,
    /// The name printed for it.
    pub name: String,
    /// "loss" (spread by its bearer) or "gain" (spread by its player, never above maximum).
    pub kind: ExtraKind,
    pub amount: u32,
    /// The special it comes from.
    pub special: Special,
}

/// One character in the `--json` output.
#[derive(Debug, Serialize)]
pub struct FighterReport {
    pub name: String,
    pub stance: Stance,
    /// Whether the stance counts (its type equals the move's action and the amount is > 0).
    pub stance_counts: bool,
    /// The move, or "surrender".
    #[serde(rename = "move")]
    pub play: Play,
    pub disadvantaged: bool,
    /// The combo bonus this move earns if it wins (the chain's length, when it is a legal
    /// follow-up).
    pub combo_bonus: u8,
    pub surrendered: bool,
    pub loss: LossReport,
    /// The special revealed this turn, if any (its key).
    pub special: Option<Special>,
    /// For Liquid Metal: the key of the special it copies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy_of: Option<Special>,
    /// Present only when the energy was given; computed from the final loss (after specials).
    pub energy: Option<EnergyReport>,
}

/// A loss in the `--json` output: the engine's components plus the totals.
#[derive(Debug, Serialize)]
pub struct LossReport {
    #[serde(flatten)]
    pub parts: Loss,
    pub total: u32,
    /// Everything but `own_stance`, spread over the three types by the loser's controller.
    pub to_distribute: u32,
}

/// The energy consequences of a loss, when the energy was given.
#[derive(Debug, Serialize)]
pub struct EnergyReport {
    pub before: Energy,
    /// After the own-stance part was taken from the stance's type.
    pub after_stance_part: Energy,
    /// The total left after the own-stance part.
    pub left_after_stance_part: u32,
    /// The total left once the rest is spread (never below zero).
    pub left_after_loss: u32,
    /// Whether the loss takes all three types to zero (the character is out, §5.3).
    pub wiped_out: bool,
}

/// The chains after the turn.
#[derive(Debug, Serialize)]
pub struct NextReport {
    pub disadvantage: NextDisadvantage,
    pub combo: Option<NextCombo>,
}

#[derive(Debug, Serialize)]
pub struct NextDisadvantage {
    pub a: Vec<Move>,
    pub b: Vec<Move>,
}

#[derive(Debug, Serialize)]
pub struct NextCombo {
    /// "a" or "b": whose side builds the chain.
    pub side: &'static str,
    /// "a" or "b": the opponent it is built against.
    pub against: &'static str,
    /// The winning moves, oldest first.
    pub cards: Vec<Move>,
}

/// The specials of the turn, in list order, and what each did.
struct Specials {
    reports: Vec<SpecialReport>,
    settlement: Settlement,
    /// The special each extra of the settlement comes from.
    extra_sources: Vec<Special>,
}

/// The name of a position in the engine's terms: 0 = A, 1 = B, 2 = the Yojimbo ally.
fn by_key(f: FighterId, yojimbo: Option<Side>) -> &'static str {
    match (f.0, yojimbo) {
        (0, _) => "a",
        (1, _) => "b",
        (_, Some(Side::B)) => "b_ally",
        _ => "a_ally",
    }
}

/// Applies the turn's specials with [`effects::settle`], one more at a time in list order, to
/// say what each changed.
fn apply_specials(turn: &Turn, pair: &[Contender; 2], result: &TurnResult) -> Specials {
    let ids = [FighterId(0), FighterId(1)];
    const ALLY: FighterId = FighterId(2);
    let stances = [pair[0].stance, pair[1].stance];
    let plays = [pair[0].play, pair[1].play];
    let settle = |effects: &[(FighterId, SpecialCard)]| effects::settle(ids, stances, plays, result, effects);
    let specials = [turn.fighters[0].special, turn.fighters[1].special];
    // Identical specials played by the two of the pair cancel each other (§6): the engine says
    // which cards are identical (a Liquid Metal copy is not identical to its original).
    let cancelled = match specials {
        [Some(a), Some(b)] => a.cancels(b),
        _ => false,
    };
    let mut cards: Vec<(FighterId, SpecialCard)> = Vec::new();
    for i in 0..2 {
        if let Some(card) = specials[i] {
            cards.push((ids[i], card));
        }
    }
    if let Some(w) = turn.yojimbo {
        let mut card = SpecialCard::new(Special::Yojimbo);
        card.target = Some(ids[w.index()]);
        cards.push((ALLY, card));
    }
    // The engine applies them in list order; so does this description.
    cards.sort_by_key(|(_, c)| c.effective().rank());
    let names = |f: FighterId| -> String {
        match f.0 {
            0 | 1 => turn.fighters[usize::from(f.0)].name.clone(),
            _ => ally_name(turn),
        }
    };
    let mut applied: Vec<(FighterId, SpecialCard)> = Vec::new();
    let mut before = settle(&applied);
    let mut reports = Vec::new();
    let mut extra_sources = Vec::new();
    for (by, card) in cards {
        let sp = card.effective();
        let is_cancelled = cancelled && by != ALLY;
        if !is_cancelled {
            applied.push((by, card));
        }
        let after = settle(&applied);
        let changed = after != before;
        let new_extras = &after.extras[before.extras.len().min(after.extras.len())..];
        extra_sources.extend(new_extras.iter().map(|_| sp));
        let effect = if is_cancelled {
            format!(
                "cancelled: both of the pair played {}, and identical specials cancel each other: both are spent, with no effect",
                card.name(turn.edition)
            )
        } else {
            describe(
                turn,
                usize::from(by.0),
                sp,
                &before,
                &after,
                new_extras.first().map(|e| e.amount),
                &names,
            )
        };
        reports.push(SpecialReport {
            by: by_key(by, turn.yojimbo),
            special: card.special,
            copy_of: card.copy,
            name: card.name(turn.edition),
            place: sp.rank(),
            cancelled: is_cancelled,
            changed,
            effect,
        });
        before = after;
    }
    Specials { reports, settlement: before, extra_sources }
}

fn ally_name(turn: &Turn) -> String {
    let w = turn.yojimbo.unwrap_or(Side::A);
    format!("{}'s ally", turn.fighters[w.index()].name)
}

/// What one special did, comparing the settlement before it and after it.
fn describe(
    turn: &Turn,
    p: usize,
    sp: Special,
    before: &Settlement,
    after: &Settlement,
    extra: Option<u32>,
    names: &dyn Fn(FighterId) -> String,
) -> String {
    if p > 1 {
        // Yojimbo from an ally.
        let w = turn.yojimbo.unwrap_or(Side::A).index();
        let name = &turn.fighters[w].name;
        let amount = extra.unwrap_or(0);
        if amount == 0 {
            // §6 Decision: naming a character that loses nothing is legal, has no effect, and
            // the special still counts as used.
            return format!(
                "has no effect: {name} loses nothing this turn (after the other specials), so there is no loss to take; {} still counts as used",
                sp.name(turn.edition)
            );
        }
        let pressure = if before.spreaders[w].is_some() {
            format!(
                "; {}'s Pressure Point no longer applies to it",
                names(before.spreaders[w].unwrap_or(FighterId(0)))
            )
        } else {
            String::new()
        };
        return format!(
            "{} takes {name}'s whole loss, {amount} (its stance part included), and spreads it itself; {name} loses nothing{pressure}",
            names(FighterId(2))
        );
    }
    let o = 1 - p;
    let (me, them) = (&turn.fighters[p], &turn.fighters[o]);
    let played = |f: &Fighter| match f.play {
        Play::Move(m) => format!("{} played {m}", f.name),
        Play::Surrender => format!("{} surrendered", f.name),
    };
    let loss_diff = |i: usize| {
        let d = i64::from(after.losses[i].total()) - i64::from(before.losses[i].total());
        if d < 0 { format!("−{}", -d) } else { format!("+{d}") }
    };
    let changed = after != before;
    match sp {
        Special::PressurePoint => {
            let mut text = format!(
                "{} chooses how {}'s loss is spread (the part not from {}'s own stance)",
                me.name, them.name, them.name
            );
            if after.losses[o].total() == 0 {
                text.push_str(&format!("; {} loses nothing so far", them.name));
            }
            text
        }
        Special::WaxOn(_) if changed => {
            format!("{} loses nothing from {}'s stance: {}", me.name, them.name, loss_diff(p))
        }
        Special::Parry(_) if changed => {
            format!("{} loses no energy at all this turn: {}", me.name, loss_diff(p))
        }
        Special::WaxOn(x) | Special::Parry(x) => {
            let what = if matches!(sp, Special::WaxOn(_)) {
                format!("nothing from {}'s stance", them.name)
            } else {
                "nothing".to_owned()
            };
            if them.play.as_move().is_some_and(|m| m.action() == x) {
                format!("changes nothing this turn: at its place in the list {} loses {what} anyway", me.name)
            } else {
                format!(
                    "changes nothing this turn: it acts only if the opponent's action is {x} ({})",
                    played(them)
                )
            }
        }
        Special::SantaCarla(x) => match extra {
            Some(n) => format!(
                "{} regains its committed stance, {n} (unmultiplied), spread as {} chooses, never above its maximum of a type",
                me.name, me.name
            ),
            // The opponent surrendered: nobody won the turn; the other side only counts as its
            // winner for passing the next turn (§5.2 Decision).
            None if them.play == Play::Surrender => format!(
                "changes nothing this turn: {} surrendered, so nobody won the turn ({} only counts as its winner for passing the next turn), and there is no win to regain a stance from",
                them.name, me.name
            ),
            None => format!(
                "changes nothing this turn: {} regains its stance only if it wins with a stance of {x} and a move of {x} ({} took {}, {})",
                me.name,
                me.name,
                if me.stance.amount == 0 { "no stance".to_owned() } else { me.stance.to_string() },
                played(me)
            ),
        },
        Special::Vampire(x) => match extra {
            Some(n) => format!(
                "{} regains what {} loses, {n} (the whole loss, before energy runs out), spread as {} chooses, never above its maximum of a type",
                me.name, them.name, me.name
            ),
            None => format!(
                "changes nothing this turn: it acts only if {}'s action is {x} ({})",
                me.name,
                played(me)
            ),
        },
        Special::DigTwoGraves(x) => {
            let added = after.losses[o].mirrored.saturating_sub(before.losses[o].mirrored);
            if added > 0 {
                format!(
                    "{} loses as much as {} loses: dig two graves +{added} ({}'s whole loss before energy runs out and before any other Dig Two Graves)",
                    them.name, me.name, me.name
                )
            } else if them.play.as_move().is_some_and(|m| m.action() == x) {
                format!("changes nothing this turn: {} loses nothing, so there is nothing to mirror", me.name)
            } else {
                format!(
                    "changes nothing this turn: it acts only if the opponent's action is {x} ({})",
                    played(them)
                )
            }
        }
        Special::IAlreadyKnow(x) => format!(
            "{} could not play a {x} move this turn (checked); it does not change this turn's losses",
            them.name
        ),
        Special::LiquidMetal => format!(
            "copies a special another character used in this conflict: give the special it copies (e.g. --{}-copy-of \"wax on grapple\", or copy_of in the input file) to count its effect; as given it does not change this turn's losses",
            Side::from_index(p).key()
        ),
        Special::DrunkenMonkey => format!(
            "swaps {}'s revealed move for a random one: enter the move played after any swap; it does not change this turn's losses",
            me.name
        ),
        Special::WayOfTheSamurai => format!(
            "{} regained all its energy before the stance (enter the energy after that) and cannot be removed from this conflict; it does not change this turn's losses",
            me.name
        ),
        Special::Scouter | Special::ToBlave | Special::ThereCanBeOnlyOne | Special::Yojimbo => {
            "does not change this turn's losses".to_owned()
        }
    }
}

/// Resolves a checked turn with the engine's functions (§5.2 step 4, §5.3–§5.5, §6).
pub fn resolve(turn: &Turn) -> Report {
    let pair = contenders(turn);
    let result = turn::resolve(&pair);
    let specials = apply_specials(turn, &pair, &result);
    let settlement = &specials.settlement;
    let plays = [pair[0].play, pair[1].play];
    let decided = result.decided_by;
    let mut chains = [turn.fighters[0].disadvantage, turn.fighters[1].disadvantage];
    let mut combo = turn.combo.clone();
    chain::after_turn(
        &result,
        [FighterId(0), FighterId(1)],
        [SideId(0), SideId(1)],
        plays,
        &mut chains,
        &mut combo,
    );
    let surrendered = match result.outcome {
        Outcome::Surrender { surrendered } => surrendered,
        _ => [false; 2],
    };
    let loss_report =
        |loss: &Loss| LossReport { parts: *loss, total: loss.total(), to_distribute: loss.to_distribute() };
    let fighter = |i: usize| {
        let f = &turn.fighters[i];
        let loss = result.losses[i];
        let final_loss = settlement.losses[i];
        FighterReport {
            name: f.name.clone(),
            stance: f.stance,
            stance_counts: f.play.as_move().is_some_and(|m| f.stance.counts_for(m.action())),
            play: f.play,
            disadvantaged: result.disadvantaged[i],
            combo_bonus: pair[i].combo_len,
            surrendered: surrendered[i],
            loss: loss_report(&loss),
            special: f.special.map(|c| c.special),
            copy_of: f.special.and_then(|c| c.copy),
            energy: f.energy.map(|e| energy_report(e, &final_loss)),
        }
    };
    let spreader = |i: usize| by_key(settlement.spreaders[i].unwrap_or(FighterId(i as u8)), turn.yojimbo);
    let extras = settlement
        .extras
        .iter()
        .zip(&specials.extra_sources)
        .map(|(e, &special)| ExtraReport {
            fighter: by_key(e.fighter, turn.yojimbo),
            name: match e.fighter.0 {
                0 | 1 => turn.fighters[usize::from(e.fighter.0)].name.clone(),
                _ => ally_name(turn),
            },
            kind: e.kind,
            amount: e.amount,
            special,
        })
        .collect();
    let [chain_a, chain_b] = chains;
    Report {
        a: fighter(0),
        b: fighter(1),
        outcome: match result.outcome {
            Outcome::Win { .. } => "win",
            Outcome::Tie => "tie",
            Outcome::Surrender { .. } => "surrender",
        },
        winner: result.outcome.winner().map(|w| Side::from_index(w).key()),
        decided_by: decided,
        summary: summary(turn, &result, decided),
        combo_continued: result.combo_continued,
        next: NextReport {
            disadvantage: NextDisadvantage { a: chain_a.cards().to_vec(), b: chain_b.cards().to_vec() },
            combo: combo.map(|c| NextCombo {
                side: Side::from_index(usize::from(c.side.0)).key(),
                against: Side::from_index(usize::from(c.against.0)).key(),
                cards: c.cards.iter().map(|c| c.card).collect(),
            }),
        },
        edition: edition_name(turn.edition),
        final_losses: Pair { a: loss_report(&settlement.losses[0]), b: loss_report(&settlement.losses[1]) },
        spreaders: Pair { a: spreader(0), b: spreader(1) },
        extras,
        specials: specials.reports,
    }
}

fn energy_report(before: Energy, loss: &Loss) -> EnergyReport {
    let mut after = before;
    if let Some(t) = loss.stance_type {
        after.take(t, loss.own_stance);
    }
    let left = after.total();
    let left_after_loss = left.saturating_sub(loss.to_distribute());
    EnergyReport {
        before,
        after_stance_part: after,
        left_after_stance_part: left,
        left_after_loss,
        wiped_out: loss.total() > 0 && left_after_loss == 0,
    }
}

fn summary(turn: &Turn, result: &TurnResult, decided: Decided) -> String {
    let name = |i: usize| turn.fighters[i].name.as_str();
    let play = |i: usize| turn.fighters[i].play;
    match result.outcome {
        Outcome::Win { winner: w } => {
            let l = 1 - w;
            let (Some(wm), Some(lm)) = (play(w).as_move(), play(l).as_move()) else {
                return format!("{} wins", name(w));
            };
            let why = match decided {
                Decided::Action => format!("{} beats {}", wm.action(), lm.action()),
                Decided::Element => {
                    format!("same action {}, {} beats {}", wm.action(), wm.element(), lm.element())
                }
                _ => {
                    format!("{wm} against {lm}, and only {}'s move is disadvantaged", name(l))
                }
            };
            format!("{} wins: {why}", name(w))
        }
        Outcome::Tie => {
            let both = if result.disadvantaged == [true, true] { ", both disadvantaged" } else { "" };
            format!("Tie: both played {}{both}", play(0))
        }
        Outcome::Surrender { surrendered } => match result.outcome.winner() {
            Some(w) => format!(
                "{} surrenders: {} counts as the turn's winner (for passing the next turn)",
                name(1 - w),
                name(w)
            ),
            None if surrendered == [true, true] => "Both surrender".into(),
            None => "Surrender".into(),
        },
    }
}
