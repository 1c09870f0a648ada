//! One Hand's pure resolution (seed: Steps 2–4; rules reference §5 and its Decision on the
//! resolution order): Trine Dominance wins, Attribute Dominance, Sweep, Showdown Totals,
//! Margin and Action Priority. Used by the engine, the referee calculator and the bench.

use std::fmt;

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use crate::extension::{Extension, Extensions};
use crate::stakes::Stakes;
use crate::trine::{Aspect, Attribute, Dominance, attribute_dominance, trine_dominance};

/// The most Actors in one Conflict (a bitset of targets holds them).
pub const MAX_ACTORS: usize = 16;

/// An Actor's index in its Conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ActorId(pub u8);

impl ActorId {
    /// The index as a `usize`.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

impl fmt::Display for ActorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// The target(s) of an Action (seed: Target), a set of Actors. Serialised as a list of ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(try_from = "Vec<ActorId>", into = "Vec<ActorId>")]
pub struct Targets(u16);

/// A list of ids read from a file, a script or a save: an id no Conflict can have is refused,
/// never silently dropped.
impl TryFrom<Vec<ActorId>> for Targets {
    type Error = String;

    fn try_from(ids: Vec<ActorId>) -> Result<Self, String> {
        match ids.iter().find(|a| a.index() >= MAX_ACTORS) {
            Some(a) => Err(format!("there is no Actor {}: a Conflict has at most {MAX_ACTORS} Actors", a.0)),
            None => Ok(ids.into_iter().fold(Targets::NONE, Targets::with)),
        }
    }
}

impl From<Targets> for Vec<ActorId> {
    fn from(t: Targets) -> Self {
        t.iter().collect()
    }
}

impl Targets {
    /// No target.
    pub const NONE: Targets = Targets(0);

    /// Just `actor`.
    pub fn one(actor: ActorId) -> Targets {
        Targets::NONE.with(actor)
    }

    /// These targets and `actor` (an id beyond [`MAX_ACTORS`] cannot be a target and is left
    /// out).
    pub fn with(self, actor: ActorId) -> Targets {
        if actor.index() < MAX_ACTORS { Targets(self.0 | (1 << actor.0)) } else { self }
    }

    /// Whether `actor` is a target.
    pub fn has(self, actor: ActorId) -> bool {
        actor.index() < MAX_ACTORS && self.0 & (1 << actor.0) != 0
    }

    /// Whether there is no target.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many targets.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The targets in id order.
    pub fn iter(self) -> impl Iterator<Item = ActorId> {
        (0..MAX_ACTORS as u8).filter(move |i| self.0 & (1 << i) != 0).map(ActorId)
    }

    /// The bits (bit `i` = Actor `i`).
    pub fn bits(self) -> u16 {
        self.0
    }

    /// Targets from bits.
    pub fn from_bits(bits: u16) -> Targets {
        Targets(bits)
    }
}

/// One Actor's revealed commitments in a Hand: what the Showdown needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Play {
    /// Who.
    pub actor: ActorId,
    /// The Trine Aspect card played.
    pub aspect: Aspect,
    /// The Action card's Attribute.
    pub attribute: Attribute,
    /// Chips bid.
    pub bid: u16,
    /// Whether a Wildcard was spent (+1).
    pub wildcard: bool,
    /// The target(s).
    pub targets: Targets,
    /// The Aspect its damage hurts: the played Aspect, or any for abstract Actors (§6).
    pub damage_aspect: Aspect,
}

/// One engaged pair's Showdown (seed: Step 3 Resolve AD, Step 4 Margin).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairShowdown {
    /// The Actors, in commit order.
    pub actors: [ActorId; 2],
    /// Trine Dominance for the first.
    pub trine: Dominance,
    /// Attribute Dominance for the first.
    pub attribute: Dominance,
    /// Whether each swept the other (won both TD and AD).
    pub sweep: [bool; 2],
    /// Each one's Showdown Total against the other.
    pub totals: [u16; 2],
}

/// One Action resolved against one target, in Action Priority order (seed: Step 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Strike {
    /// Who acts.
    pub attacker: ActorId,
    /// Its target.
    pub target: ActorId,
    /// The damaged Aspect.
    pub aspect: Aspect,
    /// Damage before the target's partial-Aspect reduction (§6).
    pub damage: u16,
    /// Whether it struck first in a mutual pair and dealt its whole total (unopposed).
    pub unopposed: bool,
    /// Its Action Priority value (the Bid, plus what extensions add).
    pub priority: u32,
}

/// The Showdown of a Hand.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Showdown {
    /// Every engaged pair.
    pub pairs: Vec<PairShowdown>,
    /// The Actions in the order they resolve.
    pub strikes: Vec<Strike>,
    /// Attribute Dominance wins per Actor id.
    pub attribute_wins: [u8; MAX_ACTORS],
}

impl Showdown {
    /// Empties it, keeping its buffers.
    pub fn clear(&mut self) {
        self.pairs.clear();
        self.strikes.clear();
        self.attribute_wins = [0; MAX_ACTORS];
    }
}

/// Whether two Actors are engaged: one targets the other (seed: "pairwise between each Actor
/// and their Target(s)"; each engaged pair is evaluated once, Decision on Open question 5).
pub fn engaged(a: (ActorId, Targets), b: (ActorId, Targets)) -> bool {
    a.1.has(b.0) || b.1.has(a.0)
}

/// Trine Dominance of an engaged pair, after the extensions' Resolve TD hooks.
pub fn pair_trine(a: ActorId, a_aspect: Aspect, b: ActorId, b_aspect: Aspect, ext: &Extensions) -> Dominance {
    let mut d = trine_dominance(a_aspect, b_aspect);
    ext.resolve_td(a, b, &mut d);
    d
}

/// Trine Dominance wins (seed: Step 2, Resolve TD): each engaged pair once; the dominant side
/// scores. `plays` are `(actor, Aspect played, targets)` in commit order.
pub fn trine_wins(plays: &[(ActorId, Aspect, Targets)], ext: &Extensions) -> [u8; MAX_ACTORS] {
    let mut wins = [0; MAX_ACTORS];
    for (i, &(a, aa, at)) in plays.iter().enumerate() {
        for &(b, ba, bt) in &plays[i + 1..] {
            if !engaged((a, at), (b, bt)) {
                continue;
            }
            match pair_trine(a, aa, b, ba, ext) {
                Dominance::Win => wins[a.index()] += 1,
                Dominance::Loss => wins[b.index()] += 1,
                Dominance::Tie => {}
            }
        }
    }
    wins
}

/// Showdown Total (seed: Step 4): `Bid + Wildcard + Stakes·[TD win] + Stakes·[AD win] +
/// Sweep bonus·[Sweep]`. Stops at `u16::MAX` rather than overflow (a Sweep bonus from a file
/// may be as large as its type).
pub fn showdown_total(
    bid: u16,
    wildcard: bool,
    trine_win: bool,
    attribute_win: bool,
    stakes: u16,
    sweep_bonus: u16,
) -> u16 {
    let sweep = trine_win && attribute_win;
    bid.saturating_add(u16::from(wildcard))
        .saturating_add(stakes.saturating_mul(u16::from(trine_win)))
        .saturating_add(stakes.saturating_mul(u16::from(attribute_win)))
        .saturating_add(sweep_bonus.saturating_mul(u16::from(sweep)))
}

/// The damage of one Action (Decision: resolution order, points 3–4): the lower bidder of a
/// mutual pair deals its whole total unopposed; otherwise the Margin `own − opponent's`, at
/// least 0. Returns the damage and whether it was unopposed.
pub fn strike_damage(
    own_total: u16,
    their_total: u16,
    mutual: bool,
    own_priority: u32,
    their_priority: u32,
) -> (u16, bool) {
    if mutual && own_priority < their_priority {
        (own_total, true)
    } else {
        (own_total.saturating_sub(their_total), false)
    }
}

/// Resolves the revealed Actions of a Hand (seed: Step 3 Resolve AD, Step 4 Outcome): every
/// engaged pair's Dominance, Sweep and Showdown Totals once, then the Actions in Action
/// Priority order (ascending Bid plus extension priority; ties keep the commit order) with
/// their damage. `plays` are in commit order from UTG. Writes into `out` (cleared first).
pub fn resolve(plays: &[Play], stakes: Stakes, sweep_bonus: u16, ext: &Extensions, out: &mut Showdown) {
    out.clear();
    let n = plays.len().min(MAX_ACTORS);
    let plays = &plays[..n];
    let s = stakes.value();
    for i in 0..n {
        for j in i + 1..n {
            let (p, q) = (&plays[i], &plays[j]);
            if !engaged((p.actor, p.targets), (q.actor, q.targets)) {
                continue;
            }
            let td = pair_trine(p.actor, p.aspect, q.actor, q.aspect, ext);
            let mut ad = attribute_dominance(p.attribute, q.attribute);
            ext.resolve_ad(p.actor, q.actor, &mut ad);
            match ad {
                Dominance::Win => out.attribute_wins[p.actor.index()] += 1,
                Dominance::Loss => out.attribute_wins[q.actor.index()] += 1,
                Dominance::Tie => {}
            }
            let mut tp = showdown_total(p.bid, p.wildcard, td.is_win(), ad.is_win(), s, sweep_bonus);
            let mut tq =
                showdown_total(q.bid, q.wildcard, td.flip().is_win(), ad.flip().is_win(), s, sweep_bonus);
            ext.margin(p.actor, q.actor, &mut tp);
            ext.margin(q.actor, p.actor, &mut tq);
            out.pairs.push(PairShowdown {
                actors: [p.actor, q.actor],
                trine: td,
                attribute: ad,
                sweep: [td.is_win() && ad.is_win(), td.flip().is_win() && ad.flip().is_win()],
                totals: [tp, tq],
            });
        }
    }
    // Each Actor's total against another, from the pair they are in.
    let totals = |pairs: &[PairShowdown], x: ActorId, y: ActorId| -> (u16, u16) {
        pairs
            .iter()
            .find_map(|p| match p.actors {
                [a, b] if a == x && b == y => Some((p.totals[0], p.totals[1])),
                [a, b] if a == y && b == x => Some((p.totals[1], p.totals[0])),
                _ => None,
            })
            .unwrap_or((0, 0))
    };
    let mut priority = [0u32; MAX_ACTORS];
    let mut order: ArrayVec<usize, MAX_ACTORS> = ArrayVec::new();
    for (i, p) in plays.iter().enumerate() {
        let mut pr = u32::from(p.bid);
        ext.action_priority(p.actor, &mut pr);
        priority[i] = pr;
        // Insertion keeps equal priorities in commit order.
        let at = order.iter().position(|&k| priority[k] > pr).unwrap_or(order.len());
        order.insert(at, i);
    }
    for &i in &order {
        let p = &plays[i];
        // Several targets are struck in commit order from UTG (so the order does not depend
        // on how the Actors are numbered: the calculator numbers them in commit order).
        for (j, q) in plays.iter().enumerate() {
            let t = q.actor;
            if j == i || !p.targets.has(t) {
                continue;
            }
            let mutual = plays[j].targets.has(p.actor);
            let (own, theirs) = totals(&out.pairs, p.actor, t);
            let (mut damage, unopposed) = strike_damage(own, theirs, mutual, priority[i], priority[j]);
            ext.apply_damage(p.actor, t, p.damage_aspect, &mut damage);
            out.strikes.push(Strike {
                attacker: p.actor,
                target: t,
                aspect: p.damage_aspect,
                damage,
                unopposed,
                priority: priority[i],
            });
        }
    }
}

/// Why the next Hand's UTG is who it is (seed: Step 1, UTG Assignment; Decision 21 and the
/// rules reference's Decision "UTG when the leader is out", §5 Update State).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "why")]
pub enum UtgReason {
    /// The only Actor with the most Dominance wins, still in.
    MostWins,
    /// A tie for the most Dominance wins (counting Actors eliminated in the Hand): UTG stays.
    Tie,
    /// A tie, but the UTG who stays has left the Conflict: the next Actor still in after it,
    /// in table order.
    TieUtgOut,
    /// The only Actor with the most Dominance wins (`leader`) was eliminated: the Actor with
    /// the most wins among those still in.
    LeaderOut {
        /// The eliminated Actor who had the most wins.
        leader: ActorId,
    },
    /// The only Actor with the most Dominance wins (`leader`) was eliminated and several of
    /// those still in tie for the most: the current UTG if it is one of them, else the first
    /// of them in commit order.
    LeaderOutTie {
        /// The eliminated Actor who had the most wins.
        leader: ActorId,
        /// Whether the current UTG is one of them (and stays).
        stays: bool,
    },
}

/// The next Hand's UTG and why ([`next_utg`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct UtgPass {
    /// UTG of the next Hand.
    pub utg: ActorId,
    /// Why.
    #[serde(flatten)]
    pub why: UtgReason,
}

/// UTG of the next Hand (seed: Step 1, UTG Assignment), and why:
/// - the Actor with the most Dominance wins (TD + AD) this Hand;
/// - on a tie for the most wins UTG stays with `utg`; the tie is among every Actor that played
///   the Hand, including one eliminated during it (an eliminated Actor's wins still make a
///   tie). When that UTG has left, UTG passes to the next Actor still in after it, in table
///   order (Decision 21);
/// - when a single Actor has the most wins but was eliminated, UTG goes to the Actor with the
///   most wins among those still in; a tie among them keeps UTG with `utg` if it is one of
///   them, else the first of them in commit order (the rules reference's Decision "UTG when
///   the leader is out", §5 Update State).
///
/// `wins[i]` are Actor `i`'s Dominance wins; `eligible(i)` says whether it can be UTG (still
/// in the Conflict, and in the cluster). Commit order is table order from `utg` (the engine's
/// acting order; the calculator lists its Actors in commit order with UTG first).
pub fn next_utg(wins: &[u16], utg: ActorId, eligible: impl Fn(usize) -> bool) -> UtgPass {
    let n = wins.len();
    let eligible = |i: usize| i < n && eligible(i);
    // Actors in commit order: table order from the current UTG.
    let from_utg = || (0..n).map(move |k| (utg.index() + k) % n);
    let best = wins.iter().copied().max().unwrap_or(0);
    let mut leaders = (0..n).filter(|&i| wins[i] == best);
    let pass = |i: usize, why: UtgReason| UtgPass { utg: ActorId(i as u8), why };
    match (leaders.next(), leaders.next()) {
        (Some(only), None) if eligible(only) => pass(only, UtgReason::MostWins),
        (Some(only), None) => {
            let leader = ActorId(only as u8);
            // Nobody still in (the Conflict is over): UTG does not move.
            let Some(best_in) = (0..n).filter(|&i| eligible(i)).map(|i| wins[i]).max() else {
                return UtgPass { utg, why: UtgReason::LeaderOut { leader } };
            };
            let among = |i: usize| eligible(i) && wins[i] == best_in;
            if (0..n).filter(|&i| among(i)).count() == 1 {
                let i = (0..n).find(|&i| among(i)).unwrap_or(utg.index());
                pass(i, UtgReason::LeaderOut { leader })
            } else {
                let i = from_utg().find(|&i| among(i)).unwrap_or(utg.index());
                pass(i, UtgReason::LeaderOutTie { leader, stays: i == utg.index() })
            }
        }
        _ if eligible(utg.index()) => UtgPass { utg, why: UtgReason::Tie },
        _ => match from_utg().find(|&i| eligible(i)) {
            Some(i) => pass(i, UtgReason::TieUtgOut),
            None => UtgPass { utg, why: UtgReason::TieUtgOut },
        },
    }
}

/// Why an Action dealt nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Void {
    /// The attacker was eliminated before its turn (Decision: resolution order, point 5).
    AttackerOut,
    /// The target already left the Conflict.
    TargetOut,
}

/// What one Action does when its turn in Action Priority comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StrikeFate {
    /// It deals nothing.
    Void(Void),
    /// This much damage gets through to the target, after its partial-Aspect reduction (§6).
    Damage(u16),
}

/// The fate of one Action at its turn (Decision: resolution order, point 5: an Actor
/// eliminated before its turn deals nothing; nothing strikes an Actor already out; §6: the
/// damage that gets through a partial Aspect). `target_possessed` is how many Attributes of
/// the struck Aspect the target possesses. The engine and the referee calculator both call it.
pub fn strike_fate(
    strike: &Strike,
    attacker_in: bool,
    target_in: bool,
    target_possessed: usize,
) -> StrikeFate {
    if !attacker_in {
        StrikeFate::Void(Void::AttackerOut)
    } else if !target_in {
        StrikeFate::Void(Void::TargetOut)
    } else {
        StrikeFate::Damage(crate::damage::through_partial_aspect(strike.damage, target_possessed))
    }
}

/// One Action of [`settle`], in Action Priority order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settled {
    /// Its fate.
    pub fate: StrikeFate,
    /// Whether its damage exhausts the struck Aspect and so eliminates the target (Decision
    /// 19: at once).
    pub eliminates: bool,
}

/// Plays out a Hand's Actions in Action Priority order (seed: Step 4 Outcome; Decision:
/// resolution order) from each Actor's current values (`values[i]`, serial order, `None` =
/// absent; chips in the stack plus those bid). Each Action's fate comes from
/// [`strike_fate`]; damage that reaches the sum of the struck Aspect's values exhausts it and
/// eliminates the target at once (Decision 10: the damaged Actor places all the damage, or
/// every chip the Aspect has left, so how it spreads the damage cannot matter). Returns one
/// entry per strike of `showdown` and whether each Actor is still in after the Elimination
/// Check (which also removes an Actor whose Aspect its ante exhausted).
pub fn settle(showdown: &Showdown, values: &[[Option<u16>; 9]]) -> (Vec<Settled>, Vec<bool>) {
    let mut sums: Vec<[u32; 3]> = values
        .iter()
        .map(|v| {
            Aspect::ALL.map(|x| x.attributes().iter().map(|a| u32::from(v[a.index()].unwrap_or(0))).sum())
        })
        .collect();
    let mut is_in = vec![true; values.len()];
    let mut out = Vec::with_capacity(showdown.strikes.len());
    for s in &showdown.strikes {
        let (a, t) = (s.attacker.index(), s.target.index());
        let (Some(&att_in), Some(&tgt_in)) = (is_in.get(a), is_in.get(t)) else {
            out.push(Settled { fate: StrikeFate::Void(Void::TargetOut), eliminates: false });
            continue;
        };
        let possessed = s.aspect.attributes().iter().filter(|x| values[t][x.index()].is_some()).count();
        let fate = strike_fate(s, att_in, tgt_in, possessed);
        let mut eliminates = false;
        if let StrikeFate::Damage(d) = fate
            && d > 0
        {
            let sum = &mut sums[t][s.aspect.index()];
            let taken = u32::from(d).min(*sum);
            *sum -= taken;
            if *sum == 0 {
                eliminates = true;
                is_in[t] = false;
            }
        }
        out.push(Settled { fate, eliminates });
    }
    // Elimination Check (seed: Step 4): an Aspect exhausted otherwise (by the ante).
    for (i, v) in values.iter().enumerate() {
        let possessed = |x: Aspect| x.attributes().iter().any(|a| v[a.index()].is_some());
        if Aspect::ALL.into_iter().any(|x| possessed(x) && sums[i][x.index()] == 0) {
            is_in[i] = false;
        }
    }
    (out, is_in)
}

/// The pot's leaders (seed: Step 2, Pay the Ante Pot): the Actors with the most TD wins, in
/// `order` (commit order from UTG); none when nobody won Trine Dominance. `wins` by Actor id.
pub fn pot_leaders(wins: &[u8], order: &[ActorId]) -> ArrayVec<ActorId, MAX_ACTORS> {
    let win = |a: &ActorId| wins.get(a.index()).copied().unwrap_or(0);
    let best = order.iter().map(win).max().unwrap_or(0);
    order.iter().copied().filter(|a| best > 0 && win(a) == best).collect()
}

/// The leader that receives the pot token number `paid` (from 0): round-robin among the
/// leaders in their order until the pot is empty (seed: "round-robin in table order among the
/// tied leaders"). `None` when there is no leader (the pot becomes the Jackpot).
pub fn pot_recipient(leaders: &[ActorId], paid: u16) -> Option<ActorId> {
    (!leaders.is_empty()).then(|| leaders[usize::from(paid) % leaders.len()])
}

/// How many tokens of a pot of `pot` each leader receives, in the leaders' order (the
/// counts [`pot_recipient`] gives token by token).
pub fn pot_shares(pot: u16, leaders: usize) -> Vec<u16> {
    let k = leaders as u16;
    (0..k).map(|i| pot / k + u16::from(i < pot % k)).collect()
}
