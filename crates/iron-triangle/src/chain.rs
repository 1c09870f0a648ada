//! Disadvantage chains (§5.4) and combo chains (§5.5): the face-up cards that carry one turn's
//! result into the next.

use serde::{Deserialize, Serialize};
use table::SideId;

use crate::card::{Move, MoveSet};
use crate::conflict::FighterId;
use crate::turn::{Outcome, Play, TurnResult};

/// A character's disadvantage chain (§5.4): its consecutive losing moves, face up, newest
/// last. It follows the character across opponents.
///
/// Each card in it is unavailable to its owner, so it never holds a move twice and never more
/// than the thirteen moves: it lives in a fixed array and never allocates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DisadvantageChain {
    cards: [Option<Move>; 13],
    len: u8,
}

impl Serialize for DisadvantageChain {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.cards().serialize(s)
    }
}

impl<'de> Deserialize<'de> for DisadvantageChain {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let cards = Vec::<Move>::deserialize(d)?;
        if cards.len() > 13 {
            return Err(serde::de::Error::custom("a disadvantage chain holds at most 13 cards"));
        }
        Ok(DisadvantageChain::from_cards(cards))
    }
}

impl DisadvantageChain {
    /// A chain of these cards, oldest first (at most the newest 13 are kept).
    pub fn from_cards(cards: Vec<Move>) -> Self {
        let mut chain = DisadvantageChain::default();
        for m in cards.into_iter().rev().take(13).collect::<Vec<_>>().into_iter().rev() {
            chain.push(m);
        }
        chain
    }

    fn push(&mut self, m: Move) {
        if usize::from(self.len) < self.cards.len() {
            self.cards[usize::from(self.len)] = Some(m);
            self.len += 1;
        }
    }

    /// The cards, oldest first.
    pub fn cards(&self) -> Vec<Move> {
        self.iter().collect()
    }

    /// The cards, oldest first, without allocating.
    pub fn iter(&self) -> impl Iterator<Item = Move> + '_ {
        self.cards[..usize::from(self.len)].iter().flatten().copied()
    }

    /// The newest card.
    pub fn newest(&self) -> Option<Move> {
        self.len.checked_sub(1).and_then(|i| self.cards[usize::from(i)])
    }

    /// The chain's length: the bonus a disadvantaged loss adds.
    pub fn len(&self) -> u8 {
        self.len
    }

    /// Whether the chain is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The cards as a set (they are unavailable to their owner).
    pub fn set(&self) -> MoveSet {
        self.iter().collect()
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
            self.clear();
        }
        self.push(m);
    }

    /// After a win or a tie, or at the end of the conflict: the cards return to hand.
    pub fn clear(&mut self) {
        *self = DisadvantageChain::default();
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
        self.cards.iter().filter(|c| c.by == fighter).map(|c| c.card).collect()
    }

    /// The combo bonus `card` would earn for a fighter of `side` facing `opponent` whose
    /// learned follow-ups of the newest move are `follow_ups`: the chain's length if the move
    /// is a legal follow-up against the same opponent, else 0.
    pub fn bonus_for(&self, side: SideId, opponent: FighterId, follow_ups: MoveSet, card: Move) -> u8 {
        if self.side == side && self.against == opponent && follow_ups.contains(card) {
            self.len()
        } else {
            0
        }
    }
}

/// The chains a resolved turn leaves behind (§5.4, §5.5, and the surrender Decision of §5.2).
///
/// `pair`, `sides`, `plays` and `disadvantage` are the pair's, active character first;
/// `combo` is the live combo chain. On a win the winner's move continues the combo chain when
/// the result says it did, else starts a new one against the loser; the winner's disadvantage
/// clears and the loser's chain takes its move. A tie ends the combo chain and both
/// disadvantage chains. A surrender ends the combo chain and the surrenderer's disadvantage;
/// the other keeps its own, since nothing is started or extended.
pub fn after_turn(
    result: &TurnResult,
    pair: [FighterId; 2],
    sides: [SideId; 2],
    plays: [Play; 2],
    disadvantage: &mut [DisadvantageChain; 2],
    combo: &mut Option<ComboChain>,
) {
    match result.outcome {
        Outcome::Win { winner } => {
            let loser = 1 - winner;
            if let (Some(wm), Some(lm)) = (plays[winner].as_move(), plays[loser].as_move()) {
                let card = ComboCard { by: pair[winner], card: wm };
                match combo {
                    Some(c) if result.combo_continued => c.cards.push(card),
                    // A new chain replaces the old one; its buffer is reused.
                    Some(c) => {
                        c.side = sides[winner];
                        c.against = pair[loser];
                        c.cards.clear();
                        c.cards.push(card);
                    }
                    None => {
                        *combo =
                            Some(ComboChain { side: sides[winner], against: pair[loser], cards: vec![card] })
                    }
                }
                disadvantage[winner].clear();
                disadvantage[loser].lose_with(lm);
            }
        }
        Outcome::Tie => {
            *combo = None;
            disadvantage.iter_mut().for_each(DisadvantageChain::clear);
        }
        Outcome::Surrender { surrendered } => {
            *combo = None;
            for (chain, left) in disadvantage.iter_mut().zip(surrendered) {
                if left {
                    chain.clear();
                }
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

    /// The book's disadvantage example (§5.4).
    #[test]
    fn book_example_disadvantage_chain() {
        let mut chain = DisadvantageChain::default();
        chain.lose_with(mv("◆☷"));
        assert_eq!(chain.cards(), [mv("◆☷")]);
        // ○☷ matches ☷: disadvantaged, +1 if it loses, appended.
        assert!(chain.disadvantages(mv("○☷")));
        assert_eq!(chain.len(), 1);
        chain.lose_with(mv("○☷"));
        assert_eq!(chain.cards(), [mv("◆☷"), mv("○☷")]);
        // ◆☲ matches neither ○ nor ☷ of the newest card: +0, the chain becomes [◆☲].
        assert!(!chain.disadvantages(mv("◆☲")));
        chain.lose_with(mv("◆☲"));
        assert_eq!(chain.cards(), [mv("◆☲")]);
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
            cards: vec![ComboCard { by: me, card: mv("◆☷") }, ComboCard { by: me, card: mv("▨☲") }],
        };
        let follow_ups: MoveSet = [mv("○☲"), mv("◆☲")].into_iter().collect();
        assert_eq!(chain.newest(), mv("▨☲"));
        assert_eq!(chain.bonus_for(SideId(0), them, follow_ups, mv("◆☲")), 2);
        assert_eq!(chain.bonus_for(SideId(0), them, follow_ups, mv("◆☵")), 0, "not a follow-up");
        assert_eq!(chain.bonus_for(SideId(0), FighterId(2), follow_ups, mv("◆☲")), 0, "another opponent");
        assert_eq!(chain.bonus_for(SideId(1), them, follow_ups, mv("◆☲")), 0, "the other side");
        assert_eq!(chain.played_by(me).len(), 2);
        assert!(chain.played_by(FighterId(3)).is_empty());
    }
}
