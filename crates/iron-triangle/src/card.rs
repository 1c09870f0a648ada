//! Actions, elements and moves: the cards of Iron Triangle (rules reference §1–3).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use thiserror::Error;

/// An energy type, which is also a move's action: Defend ○, Grapple ▨, Attack ◆ (§1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Defend ○: blocks attacks.
    Defend,
    /// Grapple ▨: grabs defenders.
    Grapple,
    /// Attack ◆: hurts attempts to grapple.
    Attack,
}

impl Action {
    /// The three actions in the book's order.
    pub const ALL: [Action; 3] = [Action::Defend, Action::Grapple, Action::Attack];

    /// Rankings of actions (§2): Defend beats Attack, Grapple beats Defend, Attack beats Grapple.
    pub fn beats(self, other: Action) -> bool {
        matches!(
            (self, other),
            (Action::Defend, Action::Attack)
                | (Action::Grapple, Action::Defend)
                | (Action::Attack, Action::Grapple)
        )
    }

    /// The index of this type in energy arrays: ○ 0, ▨ 1, ◆ 2.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The book's symbol.
    pub fn symbol(self) -> char {
        match self {
            Action::Defend => '○',
            Action::Grapple => '▨',
            Action::Attack => '◆',
        }
    }

    /// The lower-case English name.
    pub fn name(self) -> &'static str {
        match self {
            Action::Defend => "defend",
            Action::Grapple => "grapple",
            Action::Attack => "attack",
        }
    }

    fn from_word(word: &str) -> Option<Action> {
        Some(match word {
            "○" | "o" | "d" | "def" | "defend" | "defense" | "defence" => Action::Defend,
            "▨" | "▒" | "▤" | "g" | "grapple" | "grab" => Action::Grapple,
            "◆" | "♠" | "▲" | "⬆" | "a" | "att" | "attack" => Action::Attack,
            _ => return None,
        })
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.symbol())
    }
}

impl FromStr for Action {
    type Err = CardError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Action::from_word(&s.trim().to_lowercase()).ok_or_else(|| CardError::UnknownAction(s.into()))
    }
}

/// An element (§1–2): Earth/Low ☷, Water/Mid ☵, Fire/High ☲, Heaven/Jump ☰, Balance/Spin ☯.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Element {
    /// Earth, Low ☷.
    Earth,
    /// Water, Mid ☵.
    Water,
    /// Fire, High ☲.
    Fire,
    /// Heaven, Jump ☰ (learnable once all nine three-element moves are known).
    Heaven,
    /// Balance, Spin ☯ (learnable once all nine three-element moves are known).
    Spin,
}

impl Element {
    /// The five elements in the book's order.
    pub const ALL: [Element; 5] =
        [Element::Earth, Element::Water, Element::Fire, Element::Heaven, Element::Spin];

    /// Rankings of elements (§2): every element beats exactly two others.
    pub fn beats(self, other: Element) -> bool {
        use Element::*;
        matches!(
            (self, other),
            (Earth, Fire)
                | (Earth, Spin)
                | (Water, Earth)
                | (Water, Heaven)
                | (Fire, Water)
                | (Fire, Heaven)
                | (Heaven, Earth)
                | (Heaven, Spin)
                | (Spin, Fire)
                | (Spin, Water)
        )
    }

    /// Whether this is one of the three basic elements ☷ ☵ ☲.
    pub fn is_basic(self) -> bool {
        matches!(self, Element::Earth | Element::Water | Element::Fire)
    }

    /// The book's symbol.
    pub fn symbol(self) -> char {
        match self {
            Element::Earth => '☷',
            Element::Water => '☵',
            Element::Fire => '☲',
            Element::Heaven => '☰',
            Element::Spin => '☯',
        }
    }

    /// The lower-case English name.
    pub fn name(self) -> &'static str {
        match self {
            Element::Earth => "earth",
            Element::Water => "water",
            Element::Fire => "fire",
            Element::Heaven => "heaven",
            Element::Spin => "spin",
        }
    }

    fn from_word(word: &str) -> Option<Element> {
        Some(match word {
            "☷" | "earth" | "low" | "l" => Element::Earth,
            "☵" | "water" | "mid" | "m" => Element::Water,
            "☲" | "fire" | "high" | "h" => Element::Fire,
            "☰" | "heaven" | "jump" | "j" => Element::Heaven,
            "☯" | "spin" | "balance" | "s" => Element::Spin,
            _ => return None,
        })
    }
}

impl fmt::Display for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.symbol())
    }
}

impl FromStr for Element {
    type Err = CardError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Element::from_word(&s.trim().to_lowercase()).ok_or_else(|| CardError::UnknownElement(s.into()))
    }
}

/// Errors in naming a card.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CardError {
    /// Not an action.
    #[error("{0:?} is not an action (use defend ○, grapple ▨ or attack ◆)")]
    UnknownAction(String),
    /// Not an element.
    #[error(
        "{0:?} is not an element (use earth/low ☷, water/mid ☵, fire/high ☲, heaven/jump ☰ or spin/balance ☯)"
    )]
    UnknownElement(String),
    /// Not one of the thirteen moves.
    #[error("there is no move {0}: Defend has no Heaven ☰ or Spin ☯ move")]
    NoSuchMove(String),
    /// Could not read a move.
    #[error("{0:?} is not a move: write an action and an element, e.g. \"▨☷\" or \"grapple earth\"")]
    Unreadable(String),
}

/// One of the thirteen moves (§3): an action and an element, with a base loss and a stance
/// multiplier. Written like the book, e.g. `▨☰`, or in words, e.g. `grapple heaven`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    action: Action,
    element: Element,
}

impl Move {
    /// The move of this action and element; Defend has no Heaven or Spin move (§3).
    pub fn new(action: Action, element: Element) -> Result<Move, CardError> {
        if action == Action::Defend && !element.is_basic() {
            return Err(CardError::NoSuchMove(format!("{}{}", action.symbol(), element.symbol())));
        }
        Ok(Move { action, element })
    }

    /// The thirteen moves, in the book's table order.
    pub const ALL: [Move; 13] = {
        use Action::*;
        use Element::*;
        const fn m(action: Action, element: Element) -> Move {
            Move { action, element }
        }
        [
            m(Defend, Earth),
            m(Defend, Water),
            m(Defend, Fire),
            m(Grapple, Earth),
            m(Grapple, Water),
            m(Grapple, Fire),
            m(Grapple, Heaven),
            m(Grapple, Spin),
            m(Attack, Earth),
            m(Attack, Water),
            m(Attack, Fire),
            m(Attack, Heaven),
            m(Attack, Spin),
        ]
    };

    /// The starting moves of every new character (§3): ○☵, ▨☷, ◆☲.
    pub const STARTING: [Move; 3] = [Move::ALL[1], Move::ALL[3], Move::ALL[10]];

    /// The move's action.
    pub fn action(self) -> Action {
        self.action
    }

    /// The move's element.
    pub fn element(self) -> Element {
        self.element
    }

    /// The base loss the opponent suffers when this move wins (§3): ○ 2, ▨ 4, ◆ 3.
    pub fn base(self) -> u8 {
        match self.action {
            Action::Defend => 2,
            Action::Grapple => 4,
            Action::Attack => 3,
        }
    }

    /// The multiplier applied to the winner's stance (§3): ○ ×1; ▨ ×2, ▨☰ ×3, ▨☯ ×4;
    /// ◆ ×2, ◆☰ and ◆☯ ×3.
    pub fn multiplier(self) -> u8 {
        match (self.action, self.element) {
            (Action::Defend, _) => 1,
            (Action::Grapple, Element::Heaven) => 3,
            (Action::Grapple, Element::Spin) => 4,
            (Action::Attack, Element::Heaven | Element::Spin) => 3,
            _ => 2,
        }
    }

    /// The move's position in [`Move::ALL`] (0..13), used for move sets.
    pub fn index(self) -> usize {
        match self.action {
            Action::Defend => self.element as usize,
            Action::Grapple => 3 + self.element as usize,
            Action::Attack => 8 + self.element as usize,
        }
    }

    /// Whether this move shares the action or the element of `other` (§5.4).
    pub fn matches(self, other: Move) -> bool {
        self.action == other.action || self.element == other.element
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.action.symbol(), self.element.symbol())
    }
}

impl FromStr for Move {
    type Err = CardError;

    /// Reads `▨☰`, `grapple heaven`, `grapple-jump`, `G jump` and the like.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| c.is_whitespace() || c == '-' || c == '_' || c == '/')
            .filter(|w| !w.is_empty())
            .collect();
        let (a, e) = match words.as_slice() {
            [a, e] => (Action::from_word(a), Element::from_word(e)),
            [one] => {
                // Two symbols run together, e.g. "▨☰".
                let mut chars = one.chars();
                match (chars.next(), chars.next(), chars.next()) {
                    (Some(a), Some(e), None) => (
                        Action::from_word(a.encode_utf8(&mut [0; 4])),
                        Element::from_word(e.encode_utf8(&mut [0; 4])),
                    ),
                    _ => (None, None),
                }
            }
            _ => (None, None),
        };
        match (a, e) {
            (Some(a), Some(e)) => Move::new(a, e),
            _ => Err(CardError::Unreadable(s.into())),
        }
    }
}

impl Serialize for Move {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Move {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A set of moves (a bit per move of [`Move::ALL`]): cheap to copy and test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MoveSet(u16);

impl MoveSet {
    /// The empty set.
    pub const EMPTY: MoveSet = MoveSet(0);

    /// Adds a move.
    pub fn insert(&mut self, m: Move) {
        self.0 |= 1 << m.index();
    }

    /// Whether the set holds `m`.
    pub fn contains(self, m: Move) -> bool {
        self.0 & (1 << m.index()) != 0
    }

    /// The moves in `self` but not in `other`.
    pub fn without(self, other: MoveSet) -> MoveSet {
        MoveSet(self.0 & !other.0)
    }

    /// The moves in both sets.
    pub fn intersection(self, other: MoveSet) -> MoveSet {
        MoveSet(self.0 & other.0)
    }

    /// How many moves are in the set.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The moves in book order.
    pub fn iter(self) -> impl Iterator<Item = Move> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(Move::ALL[i])
        })
    }
}

impl FromIterator<Move> for MoveSet {
    fn from_iter<I: IntoIterator<Item = Move>>(iter: I) -> Self {
        let mut s = MoveSet::EMPTY;
        for m in iter {
            s.insert(m);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(s: &str) -> Move {
        s.parse().unwrap()
    }

    #[test]
    fn rankings_of_actions_form_a_triangle() {
        use Action::*;
        assert!(Defend.beats(Attack) && Grapple.beats(Defend) && Attack.beats(Grapple));
        for a in Action::ALL {
            assert!(!a.beats(a));
            assert_eq!(Action::ALL.iter().filter(|b| a.beats(**b)).count(), 1);
        }
    }

    #[test]
    fn rankings_of_elements_every_element_beats_two_and_loses_to_two() {
        for e in Element::ALL {
            assert!(!e.beats(e));
            assert_eq!(Element::ALL.iter().filter(|o| e.beats(**o)).count(), 2, "{e:?}");
            assert_eq!(Element::ALL.iter().filter(|o| o.beats(e)).count(), 2, "{e:?}");
        }
        // The three basic elements: low ducks high, high out-ranges mid, mid crushes low.
        use Element::*;
        assert!(Earth.beats(Fire) && Fire.beats(Water) && Water.beats(Earth));
        // Jump beats low and spin, spin beats high and mid.
        assert!(Heaven.beats(Earth) && Heaven.beats(Spin) && Spin.beats(Fire) && Spin.beats(Water));
    }

    #[test]
    fn the_thirteen_moves_have_the_books_base_and_multiplier() {
        let table = [
            ("○☷", 2, 1),
            ("○☵", 2, 1),
            ("○☲", 2, 1),
            ("▨☷", 4, 2),
            ("▨☵", 4, 2),
            ("▨☲", 4, 2),
            ("▨☰", 4, 3),
            ("▨☯", 4, 4),
            ("◆☷", 3, 2),
            ("◆☵", 3, 2),
            ("◆☲", 3, 2),
            ("◆☰", 3, 3),
            ("◆☯", 3, 3),
        ];
        for (i, (s, base, mult)) in table.into_iter().enumerate() {
            let m = mv(s);
            assert_eq!(Move::ALL[i], m);
            assert_eq!(m.index(), i);
            assert_eq!((m.base(), m.multiplier()), (base, mult), "{s}");
        }
        assert!(Move::new(Action::Defend, Element::Heaven).is_err());
        assert!(Move::new(Action::Defend, Element::Spin).is_err());
    }

    #[test]
    fn starting_moves_are_defend_water_grapple_earth_attack_fire() {
        assert_eq!(Move::STARTING, [mv("○☵"), mv("▨☷"), mv("◆☲")]);
    }

    #[test]
    fn moves_read_from_symbols_and_words() {
        assert_eq!(mv("grapple heaven"), mv("▨☰"));
        assert_eq!(mv("Attack-Low"), mv("◆☷"));
        assert_eq!(mv("d mid"), mv("○☵"));
        assert_eq!(mv("♠☲"), mv("◆☲"));
        assert!(matches!("defend jump".parse::<Move>(), Err(CardError::NoSuchMove(_))));
        assert!(matches!("kick".parse::<Move>(), Err(CardError::Unreadable(_))));
        assert_eq!(serde_json::to_string(&mv("▨☯")).unwrap(), "\"▨☯\"");
        assert_eq!(serde_json::from_str::<Move>("\"attack spin\"").unwrap(), mv("◆☯"));
    }

    #[test]
    fn move_sets_hold_moves() {
        let s: MoveSet = [mv("○☵"), mv("◆☯")].into_iter().collect();
        assert!(s.contains(mv("◆☯")) && !s.contains(mv("◆☰")));
        assert_eq!(s.len(), 2);
        assert_eq!(s.without([mv("○☵")].into_iter().collect()).iter().collect::<Vec<_>>(), vec![mv("◆☯")]);
    }
}
