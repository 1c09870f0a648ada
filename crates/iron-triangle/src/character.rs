//! Character sheets, as far as conflicts need them, and their validation (rules reference §4).

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::card::{Action, Move, MoveSet};
use crate::energy::Energy;
use crate::special::{Edition, Special};

/// A move the character knows, with the name the player gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownMove {
    /// The player's name for it, e.g. "Philly Shell".
    pub name: String,
    /// Which of the thirteen moves it is.
    #[serde(rename = "move")]
    pub card: Move,
}

/// A learned combo (§5.5): a starting move and at most two follow-up moves, all known moves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Combo {
    /// The starting move.
    pub from: Move,
    /// Up to two follow-ups.
    pub follow_ups: Vec<Move>,
}

/// Whether a sheet is a player character's or a non-player character's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A player character: every creation rule of §4 applies.
    Pc,
    /// A non-player character. **Decision** (the book gives the GM no build rules for NPCs):
    /// only the structural rules apply: real moves, no duplicates, combos between known moves,
    /// current energy within maximum.
    Npc,
}

/// A character sheet: the fields a conflict needs plus the descriptive ones.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Character {
    /// The character's name.
    pub name: String,
    /// Fighting style (free text, no rule effect).
    #[serde(default)]
    pub fighting_style: String,
    /// Description (free text).
    #[serde(default)]
    pub description: String,
    /// Level, starting at 0.
    #[serde(default)]
    pub level: u32,
    /// Maximum energy per type.
    pub energy: Energy,
    /// Current energy per type; full (the maximum) when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<Energy>,
    /// Known moves.
    pub moves: Vec<KnownMove>,
    /// Learned combos.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub combos: Vec<Combo>,
    /// Learned specials (§6), each variant separately.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub specials: Vec<Special>,
    /// Specials used since the last full rest (§6: once until the next full rest).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub specials_used: Vec<Special>,
    /// Marked "sits out the next conflict" (after Drunken Monkey).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sits_out_next_conflict: bool,
    /// Dead characters enter no conflict.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dead: bool,
}

/// A sheet broke a rule of §4; the message names it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SheetError {
    /// Empty name.
    #[error("a character needs a name")]
    NoName,
    /// Level 0 energy must total 10.
    #[error("{name}: energy must total 10 points at creation, this sheet has {total}")]
    CreationEnergyTotal {
        /// The character.
        name: String,
        /// Its total.
        total: u32,
    },
    /// Maximum energy outside what levels allow.
    #[error("{name}: at level {level} maximum energy totals 10 to {}, this sheet has {total}", level.saturating_add(10))]
    EnergyTotal {
        /// The character.
        name: String,
        /// Its level.
        level: u32,
        /// Its total.
        total: u32,
    },
    /// Every type needs at least 1 maximum energy.
    #[error("{name}: every energy type needs at least 1 point, {} has 0", action.name())]
    EmptyType {
        /// The character.
        name: String,
        /// The empty type.
        action: Action,
    },
    /// Current above maximum.
    #[error("{name}: current {} energy {current} is above its maximum {max}", action.name())]
    CurrentAboveMax {
        /// The character.
        name: String,
        /// The type.
        action: Action,
        /// Current.
        current: u8,
        /// Maximum.
        max: u8,
    },
    /// The starting moves are always known.
    #[error("{name}: every character knows the starting moves ○☵, ▨☷ and ◆☲; {missing} is missing")]
    MissingStartingMove {
        /// The character.
        name: String,
        /// The missing move.
        missing: Move,
    },
    /// More moves than levels allow.
    #[error("{name}: at level {level} a character knows at most {} moves, this sheet has {count}", 3 + level)]
    TooManyMoves {
        /// The character.
        name: String,
        /// Its level.
        level: u32,
        /// How many moves it lists.
        count: usize,
    },
    /// A move listed twice.
    #[error("{name}: {card} is listed twice; a character knows each move once")]
    DuplicateMove {
        /// The character.
        name: String,
        /// The move.
        card: Move,
    },
    /// Two moves share a name.
    #[error("{name}: two moves are named {move_name:?}; give each move its own name")]
    DuplicateMoveName {
        /// The character.
        name: String,
        /// The name.
        move_name: String,
    },
    /// Five-element moves before the nine three-element moves.
    #[error("{name}: {card} needs all nine three-element moves (☷ ☵ ☲) first")]
    FiveElementTooEarly {
        /// The character.
        name: String,
        /// The move.
        card: Move,
    },
    /// No combos at level 0.
    #[error("{name}: a level 0 character has no combos")]
    CombosAtLevelZero {
        /// The character.
        name: String,
    },
    /// A combo names a move the character does not know.
    #[error("{name}: the combo from {from} uses {card}, which {name} does not know")]
    ComboUnknownMove {
        /// The character.
        name: String,
        /// The combo's starting move.
        from: Move,
        /// The unknown move.
        card: Move,
    },
    /// Too many follow-ups.
    #[error("{name}: the combo from {from} has {count} follow-ups; at most two per starting move")]
    TooManyFollowUps {
        /// The character.
        name: String,
        /// The starting move.
        from: Move,
        /// How many.
        count: usize,
    },
    /// A special of the other edition.
    #[error("{name}: {special} is not a special of the {edition:?} edition")]
    SpecialNotInEdition {
        /// The character.
        name: String,
        /// The special.
        special: String,
        /// The edition.
        edition: Edition,
    },
    /// A special learned twice.
    #[error("{name}: {special} is listed twice; a character learns each special once")]
    DuplicateSpecial {
        /// The character.
        name: String,
        /// The special.
        special: String,
    },
    /// A special above the character's level.
    #[error("{name}: {special} requires level {required}, {name} is level {level}")]
    SpecialLevel {
        /// The character.
        name: String,
        /// The special.
        special: String,
        /// The level it requires.
        required: u32,
        /// The character's level.
        level: u32,
    },
    /// A special whose prerequisite is missing.
    #[error("{name}: {special} requires {prerequisite} to be learned first")]
    SpecialPrerequisite {
        /// The character.
        name: String,
        /// The special.
        special: String,
        /// The special it needs.
        prerequisite: String,
    },
    /// A used special that is not learned.
    #[error("{name}: {special} is marked used but not learned")]
    UsedUnknownSpecial {
        /// The character.
        name: String,
        /// The special.
        special: String,
    },
    /// The same starting move appears in two combo entries.
    #[error("{name}: two combo entries start from {from}; list its follow-ups in one entry")]
    DuplicateComboStart {
        /// The character.
        name: String,
        /// The starting move.
        from: Move,
    },
}

impl Character {
    /// A level 0 character with this energy and the three starting moves (§4), each named by
    /// its symbols: the quickest valid sheet, for examples, simulations and tests.
    pub fn with_starting_moves(name: &str, energy: Energy) -> Character {
        Character {
            name: name.to_owned(),
            energy,
            moves: Move::STARTING.iter().map(|&card| KnownMove { name: card.to_string(), card }).collect(),
            ..Character::default()
        }
    }

    /// The current energy (the maximum when no current energy is recorded).
    pub fn current_energy(&self) -> Energy {
        self.current.unwrap_or(self.energy)
    }

    /// The set of known moves.
    pub fn known(&self) -> MoveSet {
        self.moves.iter().map(|m| m.card).collect()
    }

    /// The learned follow-ups of each starting move, indexed by [`Move::index`].
    pub fn follow_ups(&self) -> [MoveSet; 13] {
        let mut out = [MoveSet::EMPTY; 13];
        for c in &self.combos {
            out[c.from.index()] = c.follow_ups.iter().copied().collect();
        }
        out
    }

    /// The player's name for a move, or its symbols if it is not known.
    pub fn move_name(&self, card: Move) -> String {
        self.moves.iter().find(|m| m.card == card).map_or_else(|| card.to_string(), |m| m.name.clone())
    }

    /// Finds a known move by its name (case-insensitive) or by its symbols/words.
    pub fn find_move(&self, text: &str) -> Option<Move> {
        let t = text.trim();
        self.moves
            .iter()
            .find(|m| m.name.eq_ignore_ascii_case(t))
            .map(|m| m.card)
            .or_else(|| t.parse::<Move>().ok())
    }

    /// Checks the sheet against §4 (all rules for a PC, the structural ones for an NPC) and
    /// its specials against §6 in the current edition.
    pub fn validate(&self, kind: Kind) -> Result<(), SheetError> {
        self.validate_in(kind, Edition::Current)
    }

    /// Checks the specials' learning requirements (§6, §11): each of the edition, learned
    /// once, the level reached, Wax On (earlier: Parry) before Dig Two Graves; used specials
    /// must be learned ones. They apply to NPCs too.
    pub fn validate_specials(&self, edition: Edition) -> Result<(), SheetError> {
        let name = || self.name.clone();
        for (i, &sp) in self.specials.iter().enumerate() {
            let special = || sp.name(edition);
            if !sp.in_edition(edition) {
                return Err(SheetError::SpecialNotInEdition { name: name(), special: special(), edition });
            }
            if self.specials[..i].contains(&sp) {
                return Err(SheetError::DuplicateSpecial { name: name(), special: special() });
            }
            if self.level < sp.level_required() {
                return Err(SheetError::SpecialLevel {
                    name: name(),
                    special: special(),
                    required: sp.level_required(),
                    level: self.level,
                });
            }
            if let Some(pre) = sp.prerequisite(edition)
                && !self.specials.contains(&pre)
            {
                return Err(SheetError::SpecialPrerequisite {
                    name: name(),
                    special: special(),
                    prerequisite: pre.name(edition),
                });
            }
        }
        if let Some(u) = self.specials_used.iter().find(|u| !self.specials.contains(u)) {
            return Err(SheetError::UsedUnknownSpecial { name: name(), special: u.name(edition) });
        }
        Ok(())
    }

    /// Checks the sheet in `edition`: §4 (all rules for a PC, the structural ones for an NPC)
    /// and the specials' requirements.
    pub fn validate_in(&self, kind: Kind, edition: Edition) -> Result<(), SheetError> {
        self.validate_sheet(kind, edition)?;
        self.validate_specials(edition)
    }

    fn validate_sheet(&self, kind: Kind, edition: Edition) -> Result<(), SheetError> {
        let name = || self.name.clone();
        if self.name.trim().is_empty() {
            return Err(SheetError::NoName);
        }
        let cur = self.current_energy();
        for a in Action::ALL {
            if cur.get(a) > self.energy.get(a) {
                return Err(SheetError::CurrentAboveMax {
                    name: name(),
                    action: a,
                    current: cur.get(a),
                    max: self.energy.get(a),
                });
            }
        }
        let mut seen = MoveSet::EMPTY;
        for (i, m) in self.moves.iter().enumerate() {
            if seen.contains(m.card) {
                return Err(SheetError::DuplicateMove { name: name(), card: m.card });
            }
            seen.insert(m.card);
            if self.moves[..i].iter().any(|o| o.name.eq_ignore_ascii_case(&m.name)) {
                return Err(SheetError::DuplicateMoveName { name: name(), move_name: m.name.clone() });
            }
        }
        let mut starts = MoveSet::EMPTY;
        for c in &self.combos {
            if starts.contains(c.from) {
                return Err(SheetError::DuplicateComboStart { name: name(), from: c.from });
            }
            starts.insert(c.from);
            if c.follow_ups.len() > 2 {
                return Err(SheetError::TooManyFollowUps {
                    name: name(),
                    from: c.from,
                    count: c.follow_ups.len(),
                });
            }
            for &card in std::iter::once(&c.from).chain(&c.follow_ups) {
                if !seen.contains(card) {
                    return Err(SheetError::ComboUnknownMove { name: name(), from: c.from, card });
                }
            }
        }
        if kind == Kind::Npc {
            return Ok(());
        }
        // Player character creation and levelling rules.
        let total = self.energy.total();
        if self.level == 0 && total != 10 {
            return Err(SheetError::CreationEnergyTotal { name: name(), total });
        }
        if !(10..=self.level.saturating_add(10)).contains(&total) {
            return Err(SheetError::EnergyTotal { name: name(), level: self.level, total });
        }
        // The earlier edition spreads its 10 points without the minimum of 1 (§11).
        if edition == Edition::Current
            && let Some(a) = Action::ALL.into_iter().find(|&a| self.energy.get(a) == 0)
        {
            return Err(SheetError::EmptyType { name: name(), action: a });
        }
        for s in Move::STARTING {
            if !seen.contains(s) {
                return Err(SheetError::MissingStartingMove { name: name(), missing: s });
            }
        }
        if self.moves.len() as u64 > 3 + u64::from(self.level) {
            return Err(SheetError::TooManyMoves {
                name: name(),
                level: self.level,
                count: self.moves.len(),
            });
        }
        let three_element = Move::ALL.iter().filter(|m| m.element().is_basic()).all(|m| seen.contains(*m));
        if let Some(m) = self.moves.iter().find(|m| !m.card.element().is_basic() && !three_element) {
            return Err(SheetError::FiveElementTooEarly { name: name(), card: m.card });
        }
        if self.level == 0 && !self.combos.is_empty() {
            return Err(SheetError::CombosAtLevelZero { name: name() });
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn mv(s: &str) -> Move {
        s.parse().unwrap()
    }

    /// The book's Ada: Dirty Boxing; ○3 ▨2 ◆5; Philly Shell ○☵, Trip ▨☷, Overhand Right ◆☲.
    pub(crate) fn ada() -> Character {
        Character {
            name: "Ada".into(),
            fighting_style: "Dirty Boxing".into(),
            description: String::new(),
            level: 0,
            energy: Energy::new(3, 2, 5),
            current: None,
            moves: vec![
                KnownMove { name: "Philly Shell".into(), card: mv("○☵") },
                KnownMove { name: "Trip".into(), card: mv("▨☷") },
                KnownMove { name: "Overhand Right".into(), card: mv("◆☲") },
            ],
            combos: vec![],
            specials: vec![],
            specials_used: vec![],
            sits_out_next_conflict: false,
            dead: false,
        }
    }

    #[test]
    fn specials_need_their_level_their_prerequisite_and_their_edition() {
        use crate::special::Special::*;
        let mut c = ada();
        c.specials = vec![Scouter, Scouter];
        assert!(matches!(c.validate(Kind::Pc), Err(SheetError::DuplicateSpecial { .. })));
        c.specials = vec![Yojimbo];
        assert!(matches!(c.validate(Kind::Npc), Err(SheetError::SpecialLevel { required: 5, .. })));
        c.level = 5;
        assert_eq!(c.validate(Kind::Npc), Ok(()));
        c.specials = vec![DigTwoGraves(Action::Attack)];
        assert!(matches!(c.validate(Kind::Npc), Err(SheetError::SpecialPrerequisite { .. })));
        c.specials = vec![WaxOn(Action::Attack), DigTwoGraves(Action::Attack)];
        assert_eq!(c.validate(Kind::Npc), Ok(()));
        assert!(matches!(
            c.validate_in(Kind::Npc, Edition::Earlier),
            Err(SheetError::SpecialNotInEdition { .. })
        ));
        c.specials = vec![Parry(Action::Attack), DigTwoGraves(Action::Attack)];
        assert_eq!(c.validate_in(Kind::Npc, Edition::Earlier), Ok(()));
        c.specials_used = vec![Scouter];
        assert!(matches!(
            c.validate_in(Kind::Npc, Edition::Earlier),
            Err(SheetError::UsedUnknownSpecial { .. })
        ));
    }

    #[test]
    fn the_books_ada_is_a_valid_level_zero_character() {
        assert_eq!(ada().validate(Kind::Pc), Ok(()));
        assert_eq!(ada().find_move("trip"), Some(mv("▨☷")));
        assert_eq!(ada().move_name(mv("◆☲")), "Overhand Right");
    }

    #[test]
    fn a_character_with_the_starting_moves_is_a_valid_level_zero_sheet() {
        let c = Character::with_starting_moves("Kid", Energy::new(4, 3, 3));
        assert_eq!(c.validate(Kind::Pc), Ok(()));
        assert_eq!(c.known(), Move::STARTING.into_iter().collect());
    }

    #[test]
    fn creation_needs_ten_energy_with_at_least_one_per_type() {
        let mut c = ada();
        c.energy = Energy::new(3, 2, 6);
        assert!(matches!(c.validate(Kind::Pc), Err(SheetError::CreationEnergyTotal { total: 11, .. })));
        c.energy = Energy::new(0, 4, 6);
        assert!(matches!(c.validate(Kind::Pc), Err(SheetError::EmptyType { action: Action::Defend, .. })));
        // NPCs are not held to creation rules.
        assert_eq!(c.validate(Kind::Npc), Ok(()));
    }

    #[test]
    fn the_earlier_edition_spreads_ten_energy_without_the_minimum_of_one() {
        let mut c = ada();
        c.energy = Energy::new(0, 4, 6);
        assert_eq!(c.validate_in(Kind::Pc, Edition::Earlier), Ok(()));
        c.energy = Energy::new(0, 4, 7);
        assert!(matches!(
            c.validate_in(Kind::Pc, Edition::Earlier),
            Err(SheetError::CreationEnergyTotal { total: 11, .. })
        ));
    }

    #[test]
    fn creation_needs_exactly_the_three_starting_moves_and_no_combos() {
        let mut c = ada();
        c.moves.pop();
        assert!(matches!(c.validate(Kind::Pc), Err(SheetError::MissingStartingMove { .. })));
        let mut c = ada();
        c.moves.push(KnownMove { name: "Jab".into(), card: mv("◆☵") });
        assert!(matches!(c.validate(Kind::Pc), Err(SheetError::TooManyMoves { .. })));
        let mut c = ada();
        c.combos.push(Combo { from: mv("▨☷"), follow_ups: vec![mv("◆☲")] });
        assert!(matches!(c.validate(Kind::Pc), Err(SheetError::CombosAtLevelZero { .. })));
        c.level = 1;
        c.energy = Energy::new(3, 2, 5);
        assert_eq!(c.validate(Kind::Pc), Ok(()));
    }

    #[test]
    fn combos_use_known_moves_with_at_most_two_follow_ups() {
        let mut c = ada();
        c.level = 2;
        c.combos.push(Combo { from: mv("▨☷"), follow_ups: vec![mv("◆☯")] });
        assert!(matches!(c.validate(Kind::Npc), Err(SheetError::ComboUnknownMove { .. })));
        c.combos[0].follow_ups = vec![mv("◆☲"), mv("○☵"), mv("▨☷")];
        assert!(matches!(c.validate(Kind::Npc), Err(SheetError::TooManyFollowUps { count: 3, .. })));
    }

    #[test]
    fn five_element_moves_need_all_nine_three_element_moves() {
        let mut c = ada();
        c.level = 1;
        c.moves.push(KnownMove { name: "Flying Knee".into(), card: mv("◆☰") });
        assert!(matches!(c.validate(Kind::Pc), Err(SheetError::FiveElementTooEarly { .. })));
    }

    #[test]
    fn duplicate_moves_and_names_are_rejected() {
        let mut c = ada();
        c.level = 1;
        c.moves.push(KnownMove { name: "Again".into(), card: mv("▨☷") });
        assert!(matches!(c.validate(Kind::Npc), Err(SheetError::DuplicateMove { .. })));
        c.moves[3] = KnownMove { name: "trip".into(), card: mv("▨☵") };
        assert!(matches!(c.validate(Kind::Npc), Err(SheetError::DuplicateMoveName { .. })));
    }

    #[test]
    fn current_energy_may_not_exceed_maximum() {
        let mut c = ada();
        c.current = Some(Energy::new(4, 0, 0));
        assert!(matches!(c.validate(Kind::Npc), Err(SheetError::CurrentAboveMax { .. })));
    }
}
