//! A greedy No Dice player: one decision at a time, from what its seat may see (a
//! [`ConflictView`]) and the legal commands, never the hidden state. The CLI's
//! `--bot SEAT=greedy` wraps it as a solver bot; the rules it reasons with are the engine's
//! own ([`hand::resolve`]), so it never keeps a second copy of a rule.
//!
//! - **Commit Aspect:** it targets the opponent with the fewest visible chips (the first when
//!   none is visible) and plays the Aspect and ante that leave it the highest bid cap,
//!   weighted by how much of the damage of that Aspect gets through the target's partial
//!   Aspect (§6; nothing through an Aspect the target lacks), preferring the target's weakest
//!   Aspect (elimination) and, on a tie, the ante that leaves it most chips. It never withdraws
//!   while it can ante.
//! - **Commit Action:** with every Aspect card revealed, it tries each of its legal Actions
//!   against every engaged opponent's possible Actions (each Attribute of the Aspect it played,
//!   bids spread over 0 to its cap — the visible cap, else the Stakes plus 2), resolves each
//!   pairing with the engine's Showdown, and plays the Action with the best average of damage
//!   dealt minus damage taken (a blow that empties one of the target's Aspects counts extra).
//!   Bid chips come back after the Hand, so a bid costs nothing but its place in Action
//!   Priority: the lower bid strikes first with its whole total (Decision 6). The bot bids its
//!   cap when that wins the Showdown or leaves it the lower bidder anyway, and less when a
//!   lower bid likely slips under the opponent's; a Wildcard is played only when it gains more
//!   than one point of damage on average.
//! - **Spread damage:** it keeps its biggest stack as big as possible (the ante needs the
//!   Stakes in one stack), then as many Attributes above 0 as possible.
//! - **Not predictable:** choices within [`NEAR`] of the best are drawn uniformly, and one
//!   Aspect card in [`BLUFF`] is drawn among all that can hurt the target, from a seeded
//!   generator (the same seed plays the same game). A hidden-choice game punishes a player
//!   who always plays the same card, and two greedy bots with equal Actors would otherwise
//!   tie every Hand forever.

use rand::RngExt;
use table::{Face, TableRng, seeded_rng};

use crate::conflict::Status;
use crate::extension::Extensions;
use crate::hand::{self, ActorId, Play, Showdown, Targets};
use crate::rules::Command;
use crate::stakes::Stakes;
use crate::trine::{Aspect, Attribute};
use crate::view::{ActorView, ConflictView};

/// What keeping a Wildcard for later is worth, in damage (the greedy bot spends one only to
/// gain more than this on average).
const WILDCARD_RESERVE: f64 = 1.0;

/// Most bids of an opponent the greedy bot tries (spread evenly over 0 to the cap).
const OPPONENT_BIDS: u16 = 9;

/// The score of an Aspect card whose damage cannot get through the target.
const CANNOT_HURT: f64 = -1e3;

/// How close to the best score a choice must be to be drawn among the best.
pub const NEAR: f64 = 0.25;

/// The share of Aspect cards drawn among every Aspect that can hurt the target (a bluff).
pub const BLUFF: f64 = 0.15;

/// The greedy No Dice player, with its seeded generator for ties and bluffs.
#[derive(Debug, Clone)]
pub struct GreedyBot {
    rng: TableRng,
}

impl GreedyBot {
    /// A greedy bot drawing its ties and bluffs from a generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        GreedyBot { rng: seeded_rng(seed) }
    }

    /// The index in `legal` of its command, for the seat whose view is `view`. `legal` must
    /// not be empty (a seat is asked only when it has a command); 0 otherwise.
    pub fn choose(&mut self, view: &ConflictView, legal: &[Command]) -> usize {
        let scores = match legal.first() {
            Some(Command::CommitAspect { actor, .. } | Command::Withdraw { actor }) => {
                let scores = commit_aspect(view, *actor, legal);
                if self.rng.random_bool(BLUFF) {
                    // A bluff: every Aspect card that can hurt the target is as good.
                    let any: Vec<Option<f64>> =
                        scores.iter().map(|s| s.filter(|&v| v > CANNOT_HURT / 2.0).map(|_| 0.0)).collect();
                    if any.iter().any(Option::is_some) {
                        return self.draw(&any);
                    }
                }
                scores
            }
            Some(Command::CommitAction { actor, .. }) => commit_action(view, *actor, legal),
            Some(Command::SpreadDamage { actor, .. }) => spread(view, *actor, legal),
            _ => Vec::new(),
        };
        self.draw(&scores)
    }

    /// Draws uniformly among the scored choices within [`NEAR`] of the best; the first
    /// command when nothing is scored.
    fn draw(&mut self, scores: &[Option<f64>]) -> usize {
        let best = scores.iter().flatten().copied().fold(f64::NEG_INFINITY, f64::max);
        let near: Vec<usize> =
            (0..scores.len()).filter(|&i| scores[i].is_some_and(|v| v >= best - NEAR)).collect();
        match near.len() {
            0 => 0,
            1 => near[0],
            n => near[self.rng.random_range(0..n)],
        }
    }
}

fn actor(view: &ConflictView, id: ActorId) -> Option<&ActorView> {
    view.actors.get(id.index())
}

/// The share of an Aspect's damage that gets through `target` (§6's partial-Aspect table, as
/// a fraction), or 1 when its stat block is hidden.
fn through(target: &ActorView, aspect: Aspect) -> f64 {
    match target.stacks {
        None => 1.0,
        Some(stacks) => match aspect.attributes().iter().filter(|a| stacks[a.index()].is_some()).count() {
            0 => 0.0,
            n => n as f64 / 3.0,
        },
    }
}

/// Chips `target` visibly has left in an Aspect.
fn chips_in(target: &ActorView, aspect: Aspect) -> Option<u16> {
    let stacks = target.stacks?;
    Some(aspect.attributes().iter().map(|a| stacks[a.index()].unwrap_or(0)).sum())
}

fn total_chips(target: &ActorView) -> Option<u16> {
    Some(target.stacks?.iter().map(|v| v.unwrap_or(0)).sum())
}

fn opponents<'a>(view: &'a ConflictView, me: &'a ActorView) -> impl Iterator<Item = &'a ActorView> {
    view.actors.iter().filter(move |a| a.side != me.side && a.status == Status::In)
}

/// Scores of the Commit Aspect commands (`None`: not considered).
fn commit_aspect(view: &ConflictView, id: ActorId, legal: &[Command]) -> Vec<Option<f64>> {
    let mut scores = vec![None; legal.len()];
    let Some(me) = actor(view, id) else { return scores };
    let target = opponents(view, me).min_by_key(|o| total_chips(o).unwrap_or(u16::MAX)).map(|o| o.id);
    let stacks = me.stacks.unwrap_or([None; 9]);
    let ts = me.trine_scores.unwrap_or([None; 3]);
    for (i, command) in legal.iter().enumerate() {
        let Command::CommitAspect { aspect, ante, targets, .. } = command else { continue };
        if target.is_some_and(|t| *targets != Targets::one(t)) {
            continue;
        }
        let cap = ts[aspect.index()].unwrap_or(0);
        let left = |a: Attribute| {
            let chips = stacks[a.index()].unwrap_or(0);
            if a == *ante { chips.saturating_sub(view.stakes) } else { chips }
        };
        let bid_cap = aspect.attributes().into_iter().map(|a| left(a).min(cap)).max().unwrap_or(0);
        let (weight, weakness) = match target.and_then(|t| actor(view, t)) {
            Some(t) => (through(t, *aspect), chips_in(t, *aspect).map_or(0.0, |c| f64::from(c) / 10.0)),
            None => (1.0, 0.0),
        };
        let remaining: u16 = aspect.attributes().into_iter().map(left).sum();
        // The chips left after the ante only break ties; an Aspect that cannot hurt the
        // target scores below every one that can (and is never a bluff).
        let tie = f64::from(remaining) / 1000.0;
        let score = if weight > 0.0 {
            weight * (f64::from(bid_cap + view.stakes) - weakness) + tie
        } else {
            tie + CANNOT_HURT
        };
        scores[i] = Some(score);
    }
    if scores.iter().all(Option::is_none) {
        // Only withdrawal (or only other targets) is left: the first that is not a withdrawal.
        let i = legal.iter().position(|c| !matches!(c, Command::Withdraw { .. })).unwrap_or(0);
        scores[i] = Some(0.0);
    }
    scores
}

/// The Actions an opponent might play: each Attribute of its revealed Aspect (possessed, when
/// visible), bids spread over 0 to its cap.
fn opponent_plays(view: &ConflictView, o: &ActorView) -> Vec<Play> {
    let Face::Known(card) = o.aspect else { return Vec::new() };
    let aspect = card.aspect;
    let cap = match (o.trine_scores, o.stacks) {
        (Some(ts), _) => ts[aspect.index()].unwrap_or(0),
        _ => view.stakes + 2,
    };
    let steps = cap.clamp(1, OPPONENT_BIDS - 1);
    let mut plays = Vec::new();
    for attribute in aspect.attributes() {
        let chips = match o.stacks {
            Some(s) => match s[attribute.index()] {
                Some(c) => c,
                None => continue,
            },
            None => cap,
        };
        let mut last = None;
        for k in 0..=steps {
            let bid = (cap * k / steps).min(chips);
            if last == Some(bid) {
                continue;
            }
            last = Some(bid);
            plays.push(Play {
                actor: o.id,
                aspect,
                attribute,
                bid,
                wildcard: false,
                targets: o.targets,
                damage_aspect: aspect,
            });
        }
    }
    plays
}

/// Scores of the Commit Action commands: expected damage dealt minus taken.
fn commit_action(view: &ConflictView, id: ActorId, legal: &[Command]) -> Vec<Option<f64>> {
    let mut scores = vec![None; legal.len()];
    let Some(me) = actor(view, id) else { return scores };
    let Face::Known(my_card) = me.aspect else { return scores };
    let Ok(stakes) = Stakes::new(view.stakes.min(5) as u8) else { return scores };
    let ext = Extensions::default();
    let engaged: Vec<(&ActorView, Vec<Play>)> = opponents(view, me)
        .filter(|o| me.targets.has(o.id) || o.targets.has(me.id))
        .map(|o| (o, opponent_plays(view, o)))
        .collect();
    let mut showdown = Showdown::default();
    for (i, command) in legal.iter().enumerate() {
        let Command::CommitAction { attribute, bid, wildcard, damage_aspect, .. } = command else {
            continue;
        };
        let mine = Play {
            actor: me.id,
            aspect: my_card.aspect,
            attribute: *attribute,
            bid: *bid,
            wildcard: *wildcard,
            targets: me.targets,
            damage_aspect: damage_aspect.unwrap_or(my_card.aspect),
        };
        let mut value = if *wildcard { -WILDCARD_RESERVE } else { 0.0 };
        for (o, plays) in &engaged {
            if plays.is_empty() {
                continue;
            }
            let mut sum = 0.0;
            for theirs in plays {
                // This pair alone: restrict each side's targets to the other.
                let pair = [
                    Play { targets: restrict(mine.targets, o.id), ..mine },
                    Play { targets: restrict(theirs.targets, me.id), ..*theirs },
                ];
                hand::resolve(&pair, stakes, view.stakes, &ext, &mut showdown);
                for s in &showdown.strikes {
                    let d = f64::from(s.damage);
                    if s.attacker == me.id {
                        let hurt = d * through(o, s.aspect);
                        sum += hurt;
                        // Elimination: extra for a blow that empties an Aspect.
                        if chips_in(o, s.aspect).is_some_and(|c| c > 0 && f64::from(c) <= hurt) {
                            sum += 2.0;
                        }
                    } else if s.target == me.id {
                        sum -= d * through(me, s.aspect);
                    }
                }
            }
            value += sum / plays.len() as f64;
        }
        scores[i] = Some(value);
    }
    scores
}

fn restrict(targets: Targets, to: ActorId) -> Targets {
    if targets.has(to) { Targets::one(to) } else { Targets::NONE }
}

/// Scores of the damage spreads: the biggest stack left first, then how many stay above 0
/// (only the best spreads are within [`NEAR`] of the best).
fn spread(view: &ConflictView, id: ActorId, legal: &[Command]) -> Vec<Option<f64>> {
    let mut scores = vec![None; legal.len()];
    let Some(me) = actor(view, id) else { return scores };
    let Some(strike) = view.showdown.strikes.get(usize::from(view.next_strike)) else { return scores };
    let stacks = me.stacks.unwrap_or([None; 9]);
    let attributes = strike.aspect.attributes();
    for (i, command) in legal.iter().enumerate() {
        let Command::SpreadDamage { spread, .. } = command else { continue };
        let left: Vec<u16> = attributes
            .iter()
            .zip(spread)
            .filter_map(|(a, d)| stacks[a.index()].map(|v| v.saturating_sub(*d)))
            .collect();
        let biggest = f64::from(left.iter().copied().max().unwrap_or(0));
        let above_zero = left.iter().filter(|&&v| v > 0).count() as f64;
        scores[i] = Some(biggest + above_zero / 2.0);
    }
    scores
}
