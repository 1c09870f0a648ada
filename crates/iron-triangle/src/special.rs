//! Specials (rules reference §6) and the earlier edition's (§11): the cards, when each may be
//! played, when it is revealed, what learning it requires, and the list order that settles
//! clashes.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use thiserror::Error;

use crate::card::Action;
use crate::conflict::Window;

/// Which edition of Iron Triangle a conflict follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Edition {
    /// The current edition (seed 001), the default.
    #[default]
    Current,
    /// The earlier draft edition (seed 000, §11): other special names, Parry and Vampire
    /// instead of Wax On and Santa Carla, no To Blave.
    Earlier,
}

/// A special card. Specials with variants carry the action type they are learned for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Special {
    /// Place 1 on the list: Scouter (earlier: Insight): learn the opponent's moves, combos and specials.
    Scouter,
    /// Place 2 on the list: To Blave: a bluff with no effect, twice per conflict (current edition only).
    ToBlave,
    /// Place 3 on the list: There Can Be Only One (earlier: Showdown): you and a named character face only each
    /// other until one is out.
    ThereCanBeOnlyOne,
    /// Place 4 on the list: Pressure Point (earlier: Precise): you spread your opponent's losses this turn.
    PressurePoint,
    /// Place 5 on the list: Wax On: no loss from the opponent's stance when its action is of this type
    /// (current edition).
    WaxOn(Action),
    /// Place 5 on the list: Parry: no loss at all when the opponent's action is of this type (earlier edition,
    /// in Wax On's place).
    Parry(Action),
    /// Place 6 on the list: Santa Carla (level 5): win with stance and action of this type and regain the stance
    /// (current edition).
    SantaCarla(Action),
    /// Place 6 on the list: Vampire (level 5): act with this type and regain what the opponent loses (earlier
    /// edition, in Santa Carla's place).
    Vampire(Action),
    /// Place 7 on the list: Dig Two Graves (level 5, and Wax On / Parry of the type): the opponent acting with this
    /// type loses what you lose.
    DigTwoGraves(Action),
    /// Place 8 on the list: I Already Know (level 10; earlier: Premonition): the opponent may not play a move of
    /// this action this turn.
    IAlreadyKnow(Action),
    /// Place 9 on the list: Yojimbo (level 5; earlier: Bodyguard): take a named ally's loss this turn.
    Yojimbo,
    /// Place 10 on the list: Liquid Metal (level 10; earlier: Mimic): copy a special another character used in
    /// this conflict, except the last two of the list.
    LiquidMetal,
    /// Place 11 on the list: Drunken Monkey (level 10): swap your revealed move for a random one, once a turn,
    /// until the conflict ends; sit out the next conflict.
    DrunkenMonkey,
    /// Place 12 on the list: The Way of the Samurai (level 10; earlier: Last Stand): regain all energy, stay in
    /// until the end, then die. Not for NPCs.
    WayOfTheSamurai,
}

/// Errors in naming a special or learning one.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SpecialError {
    /// Not a special.
    #[error("{0:?} is not a special")]
    Unknown(String),
    /// A variant special needs its action type.
    #[error("{0} needs an action type, e.g. \"{0} grapple\" or \"{0} ▨\"")]
    NeedsType(&'static str),
}

impl Special {
    /// Every special of both editions, every variant, in list order.
    pub fn all() -> Vec<Special> {
        use Special::*;
        let mut out = vec![Scouter, ToBlave, ThereCanBeOnlyOne, PressurePoint];
        for wrap in [WaxOn as fn(Action) -> Special, Parry, SantaCarla, Vampire, DigTwoGraves, IAlreadyKnow] {
            out.extend(Action::ALL.map(wrap));
        }
        out.extend([Yojimbo, LiquidMetal, DrunkenMonkey, WayOfTheSamurai]);
        out
    }

    /// Its place in the list (1–12); later places prevail in clashes (§6). Parry and Vampire
    /// take the places of Wax On and Santa Carla, whose slots they fill in the earlier edition.
    pub fn rank(self) -> u8 {
        use Special::*;
        match self {
            Scouter => 1,
            ToBlave => 2,
            ThereCanBeOnlyOne => 3,
            PressurePoint => 4,
            WaxOn(_) | Parry(_) => 5,
            SantaCarla(_) | Vampire(_) => 6,
            DigTwoGraves(_) => 7,
            IAlreadyKnow(_) => 8,
            Yojimbo => 9,
            LiquidMetal => 10,
            DrunkenMonkey => 11,
            WayOfTheSamurai => 12,
        }
    }

    /// The action type of a variant special.
    pub fn action(self) -> Option<Action> {
        use Special::*;
        match self {
            WaxOn(a) | Parry(a) | SantaCarla(a) | Vampire(a) | DigTwoGraves(a) | IAlreadyKnow(a) => Some(a),
            _ => None,
        }
    }

    /// Whether the special exists in `edition`.
    pub fn in_edition(self, edition: Edition) -> bool {
        use Special::*;
        match self {
            ToBlave | WaxOn(_) | SantaCarla(_) => edition == Edition::Current,
            Parry(_) | Vampire(_) => edition == Edition::Earlier,
            _ => true,
        }
    }

    /// The special's name in `edition`, without its type.
    pub fn base_name(self, edition: Edition) -> &'static str {
        use Special::*;
        let earlier = edition == Edition::Earlier;
        match self {
            Scouter if earlier => "Insight",
            Scouter => "Scouter",
            ToBlave => "To Blave",
            ThereCanBeOnlyOne if earlier => "Showdown",
            ThereCanBeOnlyOne => "There Can Be Only One",
            PressurePoint if earlier => "Precise",
            PressurePoint => "Pressure Point",
            WaxOn(_) => "Wax On",
            Parry(_) => "Parry",
            SantaCarla(_) => "Santa Carla",
            Vampire(_) => "Vampire",
            DigTwoGraves(_) => "Dig Two Graves",
            IAlreadyKnow(_) if earlier => "Premonition",
            IAlreadyKnow(_) => "I Already Know",
            Yojimbo if earlier => "Bodyguard",
            Yojimbo => "Yojimbo",
            LiquidMetal if earlier => "Mimic",
            LiquidMetal => "Liquid Metal",
            DrunkenMonkey => "Drunken Monkey",
            WayOfTheSamurai if earlier => "Last Stand",
            WayOfTheSamurai => "The Way of the Samurai",
        }
    }

    /// The special's full name in `edition`, e.g. "Wax On ▨".
    pub fn name(self, edition: Edition) -> String {
        match self.action() {
            Some(a) => format!("{} {}", self.base_name(edition), a.symbol()),
            None => self.base_name(edition).to_owned(),
        }
    }

    /// The level needed to learn it (§6, §11).
    pub fn level_required(self) -> u32 {
        use Special::*;
        match self {
            SantaCarla(_) | Vampire(_) | DigTwoGraves(_) | Yojimbo => 5,
            IAlreadyKnow(_) | LiquidMetal | DrunkenMonkey | WayOfTheSamurai => 10,
            _ => 0,
        }
    }

    /// The special that must be learned first, in `edition`: Dig Two Graves needs Wax On
    /// (earlier edition: Parry) of its type.
    pub fn prerequisite(self, edition: Edition) -> Option<Special> {
        match self {
            Special::DigTwoGraves(a) if edition == Edition::Earlier => Some(Special::Parry(a)),
            Special::DigTwoGraves(a) => Some(Special::WaxOn(a)),
            _ => None,
        }
    }

    /// Whether it may be played in `window` (§6 "used"). To Blave may be played wherever
    /// another special its player knows could be; Liquid Metal where the copied special could.
    pub fn fits(self, window: Window) -> bool {
        use Special::*;
        match self {
            Scouter | ThereCanBeOnlyOne => matches!(window, Window::BeforeOpponent | Window::BeforeStance),
            PressurePoint | WaxOn(_) | Parry(_) | SantaCarla(_) | Vampire(_) | DigTwoGraves(_)
            | DrunkenMonkey => window == Window::BeforeMove,
            IAlreadyKnow(_) | WayOfTheSamurai => window == Window::BeforeStance,
            Yojimbo => window == Window::BeforeResolving,
            ToBlave | LiquidMetal => true,
        }
    }

    /// Whether it stays face down until the moves are revealed ("reveal before resolving").
    pub fn revealed_before_resolving(self) -> bool {
        use Special::*;
        matches!(self, PressurePoint | WaxOn(_) | Parry(_) | SantaCarla(_) | Vampire(_) | DigTwoGraves(_))
    }

    /// Whether it names a character.
    pub fn takes_target(self) -> bool {
        matches!(self, Special::ThereCanBeOnlyOne | Special::Yojimbo)
    }

    /// Whether Liquid Metal may copy it: every special before Liquid Metal on the list, To
    /// Blave included — not Liquid Metal itself, nor Drunken Monkey or The Way of the Samurai.
    /// **Decision (Liquid Metal, §6):** it may copy To Blave; the copy is then a bluff with no
    /// effect, and Liquid Metal is spent.
    pub fn copyable(self) -> bool {
        self.rank() < Special::LiquidMetal.rank()
    }

    /// The snake_case key used in files, e.g. `wax_on_grapple`.
    pub fn key(self) -> String {
        let base = match self {
            Special::Scouter => "scouter",
            Special::ToBlave => "to_blave",
            Special::ThereCanBeOnlyOne => "there_can_be_only_one",
            Special::PressurePoint => "pressure_point",
            Special::WaxOn(_) => "wax_on",
            Special::Parry(_) => "parry",
            Special::SantaCarla(_) => "santa_carla",
            Special::Vampire(_) => "vampire",
            Special::DigTwoGraves(_) => "dig_two_graves",
            Special::IAlreadyKnow(_) => "i_already_know",
            Special::Yojimbo => "yojimbo",
            Special::LiquidMetal => "liquid_metal",
            Special::DrunkenMonkey => "drunken_monkey",
            Special::WayOfTheSamurai => "the_way_of_the_samurai",
        };
        match self.action() {
            Some(a) => format!("{base}_{}", a.name()),
            None => base.to_owned(),
        }
    }
}

impl fmt::Display for Special {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name(Edition::Current))
    }
}

fn normalise(s: &str) -> String {
    s.trim()
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() || "○▨◆▒♠▲".contains(c) { c } else { ' ' })
        .collect::<String>()
        .split_whitespace()
        .filter(|w| *w != "the")
        .collect::<Vec<_>>()
        .join(" ")
}

impl FromStr for Special {
    type Err = SpecialError;

    /// Reads a special by its name in either edition or its key: "Scouter", "insight",
    /// "wax on grapple", "Wax On ▨", "wax_on_grapple", "The Way of the Samurai"…
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let text = normalise(s);
        for edition in [Edition::Current, Edition::Earlier] {
            for sp in Special::all() {
                let base = normalise(sp.base_name(edition));
                match sp.action() {
                    None if text == base => return Ok(sp),
                    None => {}
                    Some(a) => {
                        if let Some(rest) = text.strip_prefix(&base) {
                            let rest = rest.trim();
                            if rest.is_empty() {
                                return Err(SpecialError::NeedsType(sp.base_name(edition)));
                            }
                            if rest.parse::<Action>().ok() == Some(a) {
                                return Ok(sp);
                            }
                        }
                    }
                }
            }
        }
        Err(SpecialError::Unknown(s.to_owned()))
    }
}

impl Serialize for Special {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.key())
    }
}

impl<'de> Deserialize<'de> for Special {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_order_settles_clashes() {
        let order: Vec<u8> = Special::all().iter().map(|s| s.rank()).collect();
        assert!(order.windows(2).all(|w| w[0] <= w[1]));
        assert!(Special::Yojimbo.rank() > Special::PressurePoint.rank());
        assert_eq!(Special::Parry(Action::Attack).rank(), Special::WaxOn(Action::Defend).rank());
    }

    #[test]
    fn specials_read_by_either_editions_name_and_key() {
        let p = |s: &str| s.parse::<Special>().unwrap();
        assert_eq!(p("Scouter"), Special::Scouter);
        assert_eq!(p("insight"), Special::Scouter);
        assert_eq!(p("Wax On ▨"), Special::WaxOn(Action::Grapple));
        assert_eq!(p("wax_on_grapple"), Special::WaxOn(Action::Grapple));
        assert_eq!(p("The Way of the Samurai"), Special::WayOfTheSamurai);
        assert_eq!(p("last stand"), Special::WayOfTheSamurai);
        assert_eq!(p("premonition attack"), Special::IAlreadyKnow(Action::Attack));
        assert!(matches!("wax on".parse::<Special>(), Err(SpecialError::NeedsType(_))));
        assert!(matches!("fireball".parse::<Special>(), Err(SpecialError::Unknown(_))));
        for sp in Special::all() {
            assert_eq!(sp.key().parse::<Special>().unwrap(), sp);
            assert_eq!(serde_json::from_str::<Special>(&serde_json::to_string(&sp).unwrap()).unwrap(), sp);
        }
    }

    #[test]
    fn requirements_follow_the_list() {
        assert_eq!(Special::SantaCarla(Action::Defend).level_required(), 5);
        assert_eq!(Special::WayOfTheSamurai.level_required(), 10);
        assert_eq!(Special::Scouter.level_required(), 0);
        let dtg = Special::DigTwoGraves(Action::Attack);
        assert_eq!(dtg.prerequisite(Edition::Current), Some(Special::WaxOn(Action::Attack)));
        assert_eq!(dtg.prerequisite(Edition::Earlier), Some(Special::Parry(Action::Attack)));
    }

    #[test]
    fn each_edition_has_its_own_specials_and_names() {
        assert!(
            Special::ToBlave.in_edition(Edition::Current) && !Special::ToBlave.in_edition(Edition::Earlier)
        );
        assert!(Special::Parry(Action::Defend).in_edition(Edition::Earlier));
        assert!(!Special::WaxOn(Action::Defend).in_edition(Edition::Earlier));
        assert_eq!(Special::Yojimbo.name(Edition::Earlier), "Bodyguard");
        assert_eq!(Special::IAlreadyKnow(Action::Grapple).name(Edition::Current), "I Already Know ▨");
    }

    #[test]
    fn liquid_metal_may_copy_to_blave() {
        assert!(Special::ToBlave.copyable());
    }

    #[test]
    fn liquid_metal_cannot_copy_the_last_two_or_itself() {
        assert!(Special::Yojimbo.copyable() && Special::WaxOn(Action::Defend).copyable());
        assert!(!Special::DrunkenMonkey.copyable() && !Special::WayOfTheSamurai.copyable());
        assert!(!Special::LiquidMetal.copyable());
    }

    #[test]
    fn timing_windows_of_the_specials() {
        assert!(Special::Scouter.fits(Window::BeforeOpponent) && Special::Scouter.fits(Window::BeforeStance));
        assert!(!Special::Scouter.fits(Window::BeforeMove));
        assert!(Special::Yojimbo.fits(Window::BeforeResolving));
        assert!(
            Special::PressurePoint.revealed_before_resolving()
                && !Special::DrunkenMonkey.revealed_before_resolving()
        );
    }
}
