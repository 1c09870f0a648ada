//! Disadvantage chains (§5.4) and combo chains (§5.5): the face-up cards that carry one turn's
//! result into the next.

use serde::{Deserialize, Serialize};
use table::SideId;

use crate::card::{Move, MoveSet};
use crate::conflict::FighterId;

/// A character's disadvantage chain (§5.4): its consecutive losing moves, face up, newest
/// last. It follows the character across opponents.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DisadvantageChain(Vec<Move>);

impl DisadvantageChain {
    /// A chain of these cards, oldest first.
    pub fn from_cards(cards: Vec<Move>) -> Self {
        DisadvantageChain(cards)
    }

    /// The cards, oldest first.
    pub fn cards(&self) -> &[Move] {
        &self.0
    }

    /// The newest card.
    pub fn newest(&self) -> Option<Move> {
        self.0.last().copied()
    }

    /// The chain's length: the bonus a disadvantaged loss adds.
    pub fn len(&self) -> u8 {
        self.0.len() as u8
    }

    /// Whether the chain is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The cards as a set (they are unavailable to their owner).
    pub fn set(&self) -> MoveSet {
        self.0.iter().copied().collect()
    }

    /// Whether `m` is disadvantaged: the chain is not empty and `m` shares the action or the
    /// element of the newest card.
    pub fn disadvantages(&self, m: Move) -> bool {
        self.newest().is_some_and(|n| m.matches(n))
    }

    /// After losing with `m`: a disadvantaged move is appended; any other move starts the
    /// chain again with just itself.
    pub fn lose_with(&mut self, m: Move) {
        if !self.disadvantages(m) {
            self.0.clear();
        }
        self.0.push(m);
    }

    /// After a win or a tie, or at the end of the conflict: the cards return to hand.
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

/// One card of a combo chain and who played it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComboCard {
    /// The character who played it.
    pub by: FighterId,
    /// The move.
    #[serde(rename = "move")]
    pub card: Move,
}

/// A combo chain (§5.5): the consecutive winning moves of one side against one opponent,
/// face up in front of that opponent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComboChain {
    /// The side building the chain.
    pub side: SideId,
    /// The opponent it is built against.
    pub against: FighterId,
    /// The winning moves, oldest first.
    pub cards: Vec<ComboCard>,
}

impl ComboChain {
    /// The newest move.
    pub fn newest(&self) -> Move {
        // A chain always holds at least the win that started it.
        self.cards.last().map_or(Move::ALL[0], |c| c.card)
    }

    /// The chain's length: the bonus a winning follow-up adds.
    pub fn len(&self) -> u8 {
        self.cards.len().min(u8::MAX as usize) as u8
    }

    /// Whether the chain is empty (never, for a live chain).
    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }

    /// The cards `fighter` played in this chain: unavailable to it while the chain lasts.
    pub fn played_by(&self, fighter: FighterId) -> MoveSet {
        self.cards
            .iter()
            .filter(|c| c.by == fighter)
            .map(|c| c.card)
            .collect()
    }

    /// The combo bonus `card` would earn for a fighter of `side` facing `opponent` whose
    /// learned follow-ups of the newest move are `follow_ups`: the chain's length if the move
    /// is a legal follow-up against the same opponent, else 0.
    pub fn bonus_for(
        &self,
        side: SideId,
        opponent: FighterId,
        follow_ups: MoveSet,
        card: Move,
    ) -> u8 {
        if self.side == side && self.against == opponent && follow_ups.contains(card) {
            self.len()
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(s: &str) -> Move {
        s.parse().unwrap()
    }

    /// The book's disadvantage example (§5.4).
    #[test]
    fn book_example_disadvantage_chain() {
        let mut chain = DisadvantageChain::default();
        chain.lose_with(mv("◆☷"));
        assert_eq!(chain.cards(), &[mv("◆☷")]);
        // ○☷ matches ☷: disadvantaged, +1 if it loses, appended.
        assert!(chain.disadvantages(mv("○☷")));
        assert_eq!(chain.len(), 1);
        chain.lose_with(mv("○☷"));
        assert_eq!(chain.cards(), &[mv("◆☷"), mv("○☷")]);
        // ◆☲ matches neither ○ nor ☷ of the newest card: +0, the chain becomes [◆☲].
        assert!(!chain.disadvantages(mv("◆☲")));
        chain.lose_with(mv("◆☲"));
        assert_eq!(chain.cards(), &[mv("◆☲")]);
        chain.clear();
        assert!(chain.is_empty() && !chain.disadvantages(mv("◆☲")));
    }

    /// The book's combo example (§5.5): chain [◆☷, ▨☲], follow-ups of ▨☲ are ○☲ or ◆☲;
    /// ◆☲ wins: +2.
    #[test]
    fn book_example_combo_bonus() {
        let me = FighterId(0);
        let them = FighterId(1);
        let chain = ComboChain {
            side: SideId(0),
            against: them,
            cards: vec![
                ComboCard {
                    by: me,
                    card: mv("◆☷"),
                },
                ComboCard {
                    by: me,
                    card: mv("▨☲"),
                },
            ],
        };
        let follow_ups: MoveSet = [mv("○☲"), mv("◆☲")].into_iter().collect();
        assert_eq!(chain.newest(), mv("▨☲"));
        assert_eq!(chain.bonus_for(SideId(0), them, follow_ups, mv("◆☲")), 2);
        assert_eq!(
            chain.bonus_for(SideId(0), them, follow_ups, mv("◆☵")),
            0,
            "not a follow-up"
        );
        assert_eq!(
            chain.bonus_for(SideId(0), FighterId(2), follow_ups, mv("◆☲")),
            0,
            "another opponent"
        );
        assert_eq!(
            chain.bonus_for(SideId(1), them, follow_ups, mv("◆☲")),
            0,
            "the other side"
        );
        assert_eq!(chain.played_by(me).len(), 2);
        assert!(chain.played_by(FighterId(3)).is_empty());
    }
}
