//! One turn's resolution, as a pure function: who wins and what each side loses
//! (rules reference §5.2 steps 4–5 and §5.3).
//!
//! This is the single place where the winner order and the loss formula live. The conflict
//! engine, the `resolve` referee calculator and the solver all call [`resolve`].

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::card::{Action, Move};
use crate::energy::{Energy, Stance};

/// What a character plays at the move step: a move, or surrender (§5.2 step 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Play {
    /// One of the character's available moves.
    Move(Move),
    /// Surrender: leave the conflict, losing no energy this turn.
    Surrender,
}

impl Play {
    /// The move, unless this is a surrender.
    pub fn as_move(self) -> Option<Move> {
        match self {
            Play::Move(m) => Some(m),
            Play::Surrender => None,
        }
    }
}

impl fmt::Display for Play {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Play::Move(m) => write!(f, "{m}"),
            Play::Surrender => write!(f, "surrender"),
        }
    }
}

impl FromStr for Play {
    type Err = crate::card::CardError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().eq_ignore_ascii_case("surrender") {
            Ok(Play::Surrender)
        } else {
            s.parse().map(Play::Move)
        }
    }
}

impl Serialize for Play {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Play {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// One of the pair, as the resolution sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contender {
    /// The revealed stance.
    pub stance: Stance,
    /// The revealed move or surrender.
    pub play: Play,
    /// The newest card of this character's disadvantage chain, if the chain is not empty.
    pub disadvantage_newest: Option<Move>,
    /// The disadvantage chain's length before this turn.
    pub disadvantage_len: u8,
    /// The combo chain's length before this turn if `play` is a legal follow-up of its newest
    /// move (§5.5); 0 when the move does not combo.
    pub combo_len: u8,
}

impl Contender {
    /// A contender with no disadvantage and no combo.
    pub fn plain(stance: Stance, play: Play) -> Contender {
        Contender { stance, play, disadvantage_newest: None, disadvantage_len: 0, combo_len: 0 }
    }

    /// Whether the move is disadvantaged (§5.4): the chain is not empty and the move shares
    /// the action or the element of its newest card. Surrender is never disadvantaged.
    pub fn is_disadvantaged(&self) -> bool {
        match (self.play, self.disadvantage_newest) {
            (Play::Move(m), Some(newest)) => m.matches(newest),
            _ => false,
        }
    }
}

/// How the turn went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Outcome {
    /// One of the pair won; `winner` is 0 for the first contender, 1 for the second.
    Win {
        /// The winner's position in the pair.
        winner: usize,
    },
    /// Neither won (§5.2 step 4.4).
    Tie,
    /// At least one surrendered (§5.2, Decision): nobody loses energy; if only one
    /// surrendered, the other counts as the turn's winner for passing the next turn.
    Surrender {
        /// Which of the pair surrendered.
        surrendered: [bool; 2],
    },
}

impl Outcome {
    /// The position of the turn's winner, if there is one (a lone surrender counts).
    pub fn winner(&self) -> Option<usize> {
        match *self {
            Outcome::Win { winner } => Some(winner),
            Outcome::Surrender { surrendered: [true, false] } => Some(1),
            Outcome::Surrender { surrendered: [false, true] } => Some(0),
            _ => None,
        }
    }
}

/// A loss broken into its components (§5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Loss {
    /// The winner's stance amount × the winner's move multiplier, if the winner's stance counts.
    pub winner_stance: u8,
    /// The loser's own stance amount, unmultiplied, if it counts. This part comes from
    /// [`Loss::stance_type`].
    pub own_stance: u8,
    /// The winning move's base (on a tie: the base of the other's move).
    pub base: u8,
    /// The combo bonus: prior wins in the winner's combo chain.
    pub combo: u8,
    /// The disadvantage bonus: prior losses in the loser's disadvantage chain.
    pub disadvantage: u8,
    /// Dig Two Graves (§6): what the special's player lost this turn, mirrored.
    #[serde(default)]
    pub mirrored: u8,
    /// The type the own-stance part must come from.
    pub stance_type: Option<Action>,
}

impl Loss {
    /// The whole loss.
    pub fn total(&self) -> u32 {
        u32::from(self.winner_stance)
            + u32::from(self.own_stance)
            + u32::from(self.base)
            + u32::from(self.combo)
            + u32::from(self.disadvantage)
            + u32::from(self.mirrored)
    }

    /// The part the loser's controller spreads over the three types (everything but the
    /// own-stance part).
    pub fn to_distribute(&self) -> u32 {
        self.total() - u32::from(self.own_stance)
    }

    /// What the loss takes from `energy` (§5.3): the own-stance part from the stance's type,
    /// then the amount to spread over what is left — each no more than there is, since only
    /// the energy actually removed is capped. The whole loss is `total()`; whatever these two
    /// fall short of it is lost for want of energy.
    pub fn taken_from(&self, energy: Energy) -> (Energy, u32) {
        let mut stance_part = Energy::ZERO;
        if let Some(t) = self.stance_type {
            *stance_part.get_mut(t) = self.own_stance.min(energy.get(t));
        }
        let after = energy.saturating_sub(&stance_part);
        (stance_part, self.to_distribute().min(after.total()))
    }
}

/// The loss as a sum of its named parts, so that the total can be checked: "winner's stance
/// 6 + own stance 1 + base 4 + combo 0 + disadvantage 0 = 11" (a Dig Two Graves part is added
/// when there is one).
impl fmt::Display for Loss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "winner's stance {} + own stance {} + base {} + combo {} + disadvantage {}",
            self.winner_stance, self.own_stance, self.base, self.combo, self.disadvantage
        )?;
        if self.mirrored > 0 {
            write!(f, " + dig two graves {}", self.mirrored)?;
        }
        write!(f, " = {}", self.total())
    }
}

/// Which step of the winner order (§5.2 step 4) decided the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decided {
    /// Step 4.1: the winner's action beats the loser's.
    Action,
    /// Step 4.2: the winner's element beats the loser's.
    Element,
    /// Step 4.3: only the loser's move was disadvantaged.
    Disadvantage,
    /// Step 4.4: a tie.
    Tie,
    /// Somebody surrendered.
    Surrender,
}

/// The result of one turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnResult {
    /// Who won.
    pub outcome: Outcome,
    /// Which step of the winner order decided it.
    pub decided_by: Decided,
    /// Whether each of the pair played a disadvantaged move.
    pub disadvantaged: [bool; 2],
    /// What each of the pair loses.
    pub losses: [Loss; 2],
    /// Whether the winner's move continued a combo chain (its bonus is in the loss).
    pub combo_continued: bool,
}

/// Winner order (§5.2 step 4): action, then element, then disadvantage, else a tie.
/// Returns the winner's position, or `None` on a tie.
pub fn winner(a: Move, a_disadvantaged: bool, b: Move, b_disadvantaged: bool) -> Option<usize> {
    decide_winner(a, a_disadvantaged, b, b_disadvantaged).0
}

/// The winner order (§5.2 step 4) with the step that decided it.
pub fn decide_winner(
    a: Move,
    a_disadvantaged: bool,
    b: Move,
    b_disadvantaged: bool,
) -> (Option<usize>, Decided) {
    if a.action().beats(b.action()) {
        (Some(0), Decided::Action)
    } else if b.action().beats(a.action()) {
        (Some(1), Decided::Action)
    } else if a.element().beats(b.element()) {
        (Some(0), Decided::Element)
    } else if b.element().beats(a.element()) {
        (Some(1), Decided::Element)
    } else if a_disadvantaged != b_disadvantaged {
        // Exactly one is disadvantaged: it loses.
        (Some(if a_disadvantaged { 1 } else { 0 }), Decided::Disadvantage)
    } else {
        (None, Decided::Tie)
    }
}

/// Resolves one turn between the pair `[a, b]` (§5.2 step 4, §5.3).
pub fn resolve(pair: &[Contender; 2]) -> TurnResult {
    let disadvantaged = [pair[0].is_disadvantaged(), pair[1].is_disadvantaged()];
    let (a, b) = match (pair[0].play, pair[1].play) {
        (Play::Move(a), Play::Move(b)) => (a, b),
        (pa, pb) => {
            return TurnResult {
                outcome: Outcome::Surrender { surrendered: [pa == Play::Surrender, pb == Play::Surrender] },
                decided_by: Decided::Surrender,
                disadvantaged: [false; 2],
                losses: [Loss::default(); 2],
                combo_continued: false,
            };
        }
    };
    let (won, decided_by) = decide_winner(a, disadvantaged[0], b, disadvantaged[1]);
    match won {
        None => TurnResult {
            outcome: Outcome::Tie,
            decided_by,
            disadvantaged,
            // A tie: each loses the base of the other's move, nothing else.
            losses: [Loss { base: b.base(), ..Loss::default() }, Loss { base: a.base(), ..Loss::default() }],
            combo_continued: false,
        },
        Some(w) => {
            let l = 1 - w;
            let (win, lose) = (&pair[w], &pair[l]);
            let (wm, lm) = if w == 0 { (a, b) } else { (b, a) };
            let winner_stance = if win.stance.counts_for(wm.action()) {
                win.stance.amount.saturating_mul(wm.multiplier())
            } else {
                0
            };
            let own_counts = lose.stance.counts_for(lm.action());
            let loss = Loss {
                winner_stance,
                own_stance: if own_counts { lose.stance.amount } else { 0 },
                base: wm.base(),
                combo: win.combo_len,
                disadvantage: if disadvantaged[l] { lose.disadvantage_len } else { 0 },
                stance_type: own_counts.then_some(lose.stance.action),
                mirrored: 0,
            };
            let mut losses = [Loss::default(); 2];
            losses[l] = loss;
            TurnResult {
                outcome: Outcome::Win { winner: w },
                decided_by,
                disadvantaged,
                losses,
                combo_continued: win.combo_len > 0,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(s: &str) -> Move {
        s.parse().unwrap()
    }

    fn st(s: &str) -> Stance {
        s.parse().unwrap()
    }

    #[test]
    fn winner_order_action_then_element_then_disadvantage_then_tie() {
        // Action decides first, whatever the elements.
        assert_eq!(winner(mv("▨☷"), false, mv("○☵"), false), Some(0));
        assert_eq!(winner(mv("◆☷"), false, mv("○☷"), false), Some(1));
        // Same action: element decides.
        assert_eq!(winner(mv("◆☷"), false, mv("◆☲"), false), Some(0));
        // Identical move: exactly one disadvantaged loses.
        assert_eq!(winner(mv("◆☲"), true, mv("◆☲"), false), Some(1));
        // Otherwise a tie.
        assert_eq!(winner(mv("◆☲"), false, mv("◆☲"), false), None);
        assert_eq!(winner(mv("◆☲"), true, mv("◆☲"), true), None);
        // Disadvantage does not overturn a win by action or element.
        assert_eq!(winner(mv("◆☷"), true, mv("◆☲"), false), Some(0));
    }

    #[test]
    fn the_result_names_the_step_that_decided_it() {
        assert_eq!(decide_winner(mv("▨☷"), false, mv("○☵"), false), (Some(0), Decided::Action));
        assert_eq!(decide_winner(mv("◆☷"), false, mv("◆☲"), false), (Some(0), Decided::Element));
        assert_eq!(decide_winner(mv("◆☲"), true, mv("◆☲"), false), (Some(1), Decided::Disadvantage));
        assert_eq!(decide_winner(mv("◆☲"), false, mv("◆☲"), false), (None, Decided::Tie));
    }

    #[test]
    fn ties_happen_only_between_identical_moves() {
        for a in Move::ALL {
            for b in Move::ALL {
                if winner(a, false, b, false).is_none() {
                    assert_eq!(a, b);
                }
            }
        }
    }

    /// The book's worked example of a win (§5.3): 13 energy, at least 1 of it from ○.
    #[test]
    fn book_example_win_costs_thirteen() {
        let a = Contender { combo_len: 1, ..Contender::plain(st("2▨"), Play::Move(mv("▨☰"))) };
        let b = Contender {
            disadvantage_newest: Some(mv("◆☷")),
            disadvantage_len: 1,
            ..Contender::plain(st("1○"), Play::Move(mv("○☷")))
        };
        let r = resolve(&[a, b]);
        assert_eq!(r.outcome, Outcome::Win { winner: 0 });
        assert_eq!(r.disadvantaged, [false, true]);
        let loss = r.losses[1];
        assert_eq!(
            (loss.winner_stance, loss.own_stance, loss.base, loss.combo, loss.disadvantage),
            (6, 1, 4, 1, 1)
        );
        assert_eq!(loss.total(), 13);
        assert_eq!(loss.stance_type, Some(Action::Defend));
        assert_eq!(loss.to_distribute(), 12);
        assert_eq!(r.losses[0].total(), 0);
        assert!(r.combo_continued);
    }

    /// Tie example (§5.3, the book's ◆ against ◆): each loses 3, nothing else.
    #[test]
    fn tie_each_loses_the_base_of_the_others_move() {
        let a = Contender { combo_len: 2, ..Contender::plain(st("3◆"), Play::Move(mv("◆☵"))) };
        let b = Contender::plain(st("2◆"), Play::Move(mv("◆☵")));
        let r = resolve(&[a, b]);
        assert_eq!(r.outcome, Outcome::Tie);
        assert_eq!(r.losses[0], Loss { base: 3, ..Loss::default() });
        assert_eq!(r.losses[1], Loss { base: 3, ..Loss::default() });
        assert!(!r.combo_continued);
    }

    #[test]
    fn a_feint_stance_has_no_effect() {
        // Winner's stance ▨ but move ◆: a feint. Loser's stance ◆ but move ▨: a feint.
        let a = Contender::plain(st("3▨"), Play::Move(mv("◆☲")));
        let b = Contender::plain(st("2◆"), Play::Move(mv("▨☲")));
        let r = resolve(&[a, b]);
        assert_eq!(r.outcome, Outcome::Win { winner: 0 });
        assert_eq!(r.losses[1].total(), 3);
        assert_eq!(r.losses[1].stance_type, None);
    }

    #[test]
    fn disadvantage_bonus_applies_only_to_a_disadvantaged_loser() {
        // B has a chain of 2 ending in ◆☷; plays ○☲ (no match) and loses: no bonus.
        let b = Contender {
            disadvantage_newest: Some(mv("◆☷")),
            disadvantage_len: 2,
            ..Contender::plain(Stance::NONE, Play::Move(mv("○☲")))
        };
        let a = Contender::plain(Stance::NONE, Play::Move(mv("▨☷")));
        let r = resolve(&[a, b]);
        assert_eq!(r.disadvantaged, [false, false]);
        assert_eq!(r.losses[1].total(), 4);
    }

    #[test]
    fn surrender_costs_nobody_energy_and_the_other_counts_as_winner() {
        let a = Contender::plain(st("3▨"), Play::Move(mv("▨☲")));
        let b = Contender::plain(Stance::NONE, Play::Surrender);
        let r = resolve(&[a, b]);
        assert_eq!(r.outcome, Outcome::Surrender { surrendered: [false, true] });
        assert_eq!(r.outcome.winner(), Some(0));
        assert_eq!(r.losses, [Loss::default(); 2]);
        let both = resolve(&[b, b]);
        assert_eq!(both.outcome.winner(), None);
    }
}
