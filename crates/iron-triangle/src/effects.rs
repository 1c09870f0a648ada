//! What the specials revealed in a turn do to its losses (rules reference §6, §11).
//!
//! Effects apply in list order, so a later special prevails where two touch the same loss:
//! Pressure Point (4) hands the spread of the opponent's loss to its player; Wax On (5) removes
//! the opponent's stance from its player's loss, Parry (5, earlier edition) the whole loss;
//! Santa Carla (6) regains the committed stance after a win with stance and action of its
//! type, Vampire (6, earlier edition) what the opponent loses; Dig Two Graves (7) adds its
//! player's loss to the opponent's; Yojimbo (9) moves an ally's loss onto its player, who
//! spreads it (the Pressure Point choice no longer applies to it).
//!
//! **Decision** (the reference's, "which loss a special means"): wherever a special speaks of
//! a loss, it is the turn's §5.3 loss, its parts summed, before energy runs out; only the
//! energy actually removed is capped at what remains. **Decision** ("two specials at one
//! place in the list"): two Dig Two Graves in one pair apply at the same time, each from the
//! losses before either, so the result never depends on which character is called A.

use serde::{Deserialize, Serialize};

use crate::card::Action;
use crate::conflict::{Conflict, FighterId};
use crate::energy::Stance;
use crate::special::Special;
use crate::turn::{Loss, Play, TurnResult};
use crate::windows::SpecialCard;

/// Something besides the pair's own losses that a turn leaves to settle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Extra {
    /// Who.
    pub fighter: FighterId,
    /// A loss taken over (Yojimbo) or a gain (Santa Carla, Vampire).
    pub kind: ExtraKind,
    /// How much.
    pub amount: u32,
    /// Whether it has been taken.
    pub done: bool,
}

/// The kind of an [`Extra`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtraKind {
    /// A loss, spread by its bearer's controller (Yojimbo's player).
    Loss,
    /// Energy regained, spread by its player, never above maximum.
    Gain,
}

/// The turn's losses after specials, who spreads them, and the extras.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Settlement {
    /// The pair's losses.
    pub losses: [Loss; 2],
    /// Who spreads each of the pair's losses when not its own controller (Pressure Point).
    pub spreaders: [Option<FighterId>; 2],
    /// Losses taken over and gains.
    pub extras: Vec<Extra>,
}

/// Applies a turn's revealed specials, in list order, to its result (§6 clashes): the single
/// place these effects live, used by the conflict and by the `resolve` calculator.
///
/// `pair` is the pair (active first); an effect whose player is not one of the pair is an
/// ally's Yojimbo, naming one of the pair. The losses are the §5.3 losses before energy runs
/// out (§6 Decision), so the pair's energy plays no part here.
pub fn settle(
    pair: [FighterId; 2],
    stances: [Stance; 2],
    plays: [Play; 2],
    result: &TurnResult,
    effects: &[(FighterId, SpecialCard)],
) -> Settlement {
    let mut s = Settlement { losses: result.losses, ..Settlement::default() };
    if effects.is_empty() {
        return s;
    }
    let mut ordered = effects.to_vec();
    ordered.sort_by_key(|(_, c)| c.effective().rank());
    let action = |i: usize| plays[i].as_move().map(|m| m.action());
    // Dig Two Graves (7): every one in the pair mirrors the losses as they stood before the
    // first of them (§6 Decision), taken when the first is met in list order.
    let mut before_graves: Option<[u32; 2]> = None;
    for (user, card) in ordered {
        let Some(p) = pair.iter().position(|&f| f == user) else {
            // Not of the pair: Yojimbo, from an ally.
            if card.effective() == Special::Yojimbo
                && let Some(q) = card.target.and_then(|t| pair.iter().position(|&f| f == t))
            {
                let amount = s.losses[q].total();
                // §6 Decision: naming a character that loses nothing has no effect (the card is
                // still spent: the engine counts it as used when it is revealed).
                if amount == 0 {
                    continue;
                }
                s.losses[q] = Loss::default();
                s.spreaders[q] = None;
                s.extras.push(Extra { fighter: user, kind: ExtraKind::Loss, amount, done: false });
            }
            continue;
        };
        let o = 1 - p;
        match card.effective() {
            Special::PressurePoint => s.spreaders[o] = Some(user),
            Special::WaxOn(x) if action(o) == Some(x) => s.losses[p].winner_stance = 0,
            Special::Parry(x) if action(o) == Some(x) => s.losses[p] = Loss::default(),
            // Santa Carla needs a real win: a surrender's other side only "counts as winner"
            // for passing the turn (§5.2 Decision).
            Special::SantaCarla(x)
                if result.outcome == (crate::turn::Outcome::Win { winner: p })
                    && stances[p].counts_for(x)
                    && action(p) == Some(x) =>
            {
                let amount = u32::from(stances[p].amount);
                s.extras.push(Extra { fighter: user, kind: ExtraKind::Gain, amount, done: false });
            }
            Special::Vampire(x) if action(p) == Some(x) => {
                let amount = s.losses[o].total();
                s.extras.push(Extra { fighter: user, kind: ExtraKind::Gain, amount, done: amount == 0 });
            }
            Special::DigTwoGraves(x) if action(o) == Some(x) => {
                let losses = &s.losses;
                let mine = before_graves.get_or_insert_with(|| [losses[0].total(), losses[1].total()])[p];
                let l = &mut s.losses[o];
                l.mirrored = l.mirrored.saturating_add(mine.min(u32::from(u8::MAX)) as u8);
            }
            _ => {}
        }
    }
    s
}

impl Conflict {
    /// [`settle`] for the conflict's pair.
    pub fn settle(
        &self,
        pair: [FighterId; 2],
        stances: [Stance; 2],
        plays: [Play; 2],
        result: &TurnResult,
        effects: &[(FighterId, SpecialCard)],
    ) -> Settlement {
        settle(pair, stances, plays, result, effects)
    }
}

/// The action each of the pair may not play this turn because of the other's I Already Know
/// (§6; earlier edition: Premonition), given the special each of the pair revealed before the
/// stance.
pub fn forbidden_actions(cards: [Option<SpecialCard>; 2]) -> [Option<Action>; 2] {
    // Identical specials played by the two of a pair cancel (§6 Decision): neither forbids.
    if let [Some(a), Some(b)] = cards
        && a.cancels(b)
    {
        return [None, None];
    }
    let forbids = |c: Option<SpecialCard>| match c.map(SpecialCard::effective) {
        Some(Special::IAlreadyKnow(a)) => Some(a),
        _ => None,
    };
    [forbids(cards[1]), forbids(cards[0])]
}

/// One thing still to settle in an aftermath.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pending {
    /// The loss of the pair member at this position.
    Pair(usize),
    /// The extra at this index.
    Extra(usize),
}

impl Pending {
    /// Whether it is a gain (settled with `spread_gain`) rather than a loss.
    pub fn is_gain(self, c: &Conflict) -> bool {
        matches!(self, Pending::Extra(i) if c.extras.get(i).is_some_and(|e| e.kind == ExtraKind::Gain))
    }
}

impl Conflict {
    /// Whether only the pair's own losses are to settle, each by its own controller (no
    /// special touched the turn): the common case, which takes a shorter path.
    #[inline]
    pub fn plain(&self, a: &crate::conflict::Aftermath) -> bool {
        self.extras.is_empty() && a.spreaders[0].is_none() && a.spreaders[1].is_none()
    }

    /// The first thing `seat` has to settle: a loss (before any gain), the pair's first.
    pub fn pending_for(&self, a: &crate::conflict::Aftermath, seat: table::SeatId) -> Option<Pending> {
        if self.plain(a) {
            return (0..2)
                .find(|&p| !a.loss_taken[p] && self.fighter(a.pair[p]).seat == seat)
                .map(Pending::Pair);
        }
        let mine =
            |gain: bool| self.pending(a).find(|&p| self.chooser(a, p) == seat && p.is_gain(self) == gain);
        mine(false).or_else(|| mine(true))
    }

    /// What is still to settle, in order: the pair's losses, losses taken over, then — once
    /// no loss is left — gains.
    pub fn pending<'a>(&'a self, a: &'a crate::conflict::Aftermath) -> impl Iterator<Item = Pending> + 'a {
        let losses = (0..2).filter(|&p| !a.loss_taken[p]).map(Pending::Pair).chain(
            (0..self.extras.len())
                .filter(|&i| !self.extras[i].done && self.extras[i].kind == ExtraKind::Loss)
                .map(Pending::Extra),
        );
        let any_loss = losses.clone().next().is_some();
        let gains = (0..self.extras.len())
            .filter(move |&i| !any_loss && !self.extras[i].done && self.extras[i].kind == ExtraKind::Gain)
            .map(Pending::Extra);
        losses.chain(gains)
    }

    /// Whose energy it changes.
    pub fn pending_fighter(&self, a: &crate::conflict::Aftermath, p: Pending) -> FighterId {
        match p {
            Pending::Pair(pos) => a.pair[pos],
            Pending::Extra(i) => self.extras[i].fighter,
        }
    }

    /// The seat that spreads it: the loser's controller, or the Pressure Point player's.
    pub fn chooser(&self, a: &crate::conflict::Aftermath, p: Pending) -> table::SeatId {
        let by = match p {
            Pending::Pair(pos) => a.spreaders[pos].unwrap_or(a.pair[pos]),
            Pending::Extra(i) => self.extras[i].fighter,
        };
        self.fighter(by).seat
    }

    /// The part fixed in advance (a loss's own-stance part), how much is to be spread, and the
    /// most each type can take (what is left for a loss, the room below maximum for a gain).
    #[inline]
    pub fn pending_parts(
        &self,
        a: &crate::conflict::Aftermath,
        p: Pending,
    ) -> (crate::Energy, u32, crate::Energy) {
        match p {
            Pending::Pair(pos) => {
                let f = self.fighter(a.pair[pos]);
                let (stance_part, due) = a.losses[pos].taken_from(f.energy);
                (stance_part, due, f.energy.saturating_sub(&stance_part))
            }
            Pending::Extra(i) => {
                let e = self.extras[i];
                let f = self.fighter(e.fighter);
                let room = match e.kind {
                    ExtraKind::Loss => f.energy,
                    ExtraKind::Gain => f.character.energy.saturating_sub(&f.energy),
                };
                (crate::Energy::ZERO, e.amount.min(room.total()), room)
            }
        }
    }
}
