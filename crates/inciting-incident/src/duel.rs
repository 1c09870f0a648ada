//! Duel bookkeeping (rules reference §6, seed "Flow of Battle"): which Duels stand after
//! people move, and where their Flow of Battle comes from.
//!
//! - Exactly one active Duel per Region with both sides in it (the reference's proposal).
//! - A Duel nobody fights in any more is saved with its Flow; when the same opponents
//!   re-engage it is restored at the Flow it was left at — also when it broke up only because
//!   a combatant was taken out.
//! - When only part of an active Duel re-engages elsewhere, the new Duel starts with a copy
//!   of its Flow; the two then diverge.
//! - Anyone engaging different enemies starts a new Duel at Flow 0.
//! - A combatant joining another active Duel changes no Flow, unless its enemies from its old
//!   Duel are there too: then the old Duel's Flow is added to the new one (signed sum,
//!   Decision) — only once for each Duel combined in, ever.
//! - A Duel's Flow belongs to the enemies who fought in it (Decision on alliances): it is
//!   restored, copied or combined only where everyone it is carried to fights on the same side
//!   as they did in it, so no Flow won while allied reaches a Duel between former allies; and
//!   a Duel whose combatants have turned on each other ends.
//!
//! Every change is an event, one at a time ([`next_event`]): the rules push them while an
//! action resolves, and [`crate::Scene::automatic`] takes any still due (after an alliance
//! ends), so every Duel formed, joined, ended or combined is in the log.

use crate::rules::{Event, FlowSource};
use crate::scene::Scene;

/// Who is in a Region and able to fight, per side, as combatant bit masks.
pub fn present(scene: &Scene, region: u8) -> [u64; 2] {
    let mut sides = [0u64; 2];
    for (i, f) in scene.fighters.iter().enumerate() {
        if f.engaged_capable() && f.region == Some(region) {
            sides[usize::from(f.side & 1)] |= scene.fighter_bit(i);
        }
    }
    for (j, m) in scene.minions.iter().enumerate() {
        if m.count > 0 && m.region == region {
            sides[usize::from(m.side & 1)] |= scene.minion_bit(j);
        }
    }
    sides
}

/// The current Duel of a combatant (by bit index), or the last one it was in.
pub fn last_duel(scene: &Scene, bit: usize) -> Option<u16> {
    let n = scene.fighters.len();
    if bit < n { scene.fighters[bit].duel } else { scene.minions.get(bit - n).and_then(|m| m.duel) }
}

/// A combatant's side now (0 or 1).
pub fn side_of(scene: &Scene, bit: usize) -> u8 {
    let n = scene.fighters.len();
    let side =
        if bit < n { scene.fighters[bit].side } else { scene.minions.get(bit - n).map_or(0, |m| m.side) };
    side & 1
}

/// The combatants of a bit mask, lowest first.
pub fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            i
        })
    })
}

/// Whether Duel `duel`'s Flow was already combined into another Duel: it is only combined
/// once (§6, "this is only done once for each Duel being combined in").
pub fn combined_away(scene: &Scene, duel: u16) -> bool {
    scene.duels.iter().any(|d| d.merged_from.contains(&duel))
}

/// The Duel whose Flow a new Duel between `camps` (side 0's combatants, side 1's) takes (§6):
/// one in which everyone of `camps` fought, each on the side it is on now — the same
/// opponents, never former allies (Decision on alliances) — preferring a Duel the combatants
/// were last in (their `duel`), so a Duel broken only because a combatant was taken out
/// re-forms at the Flow it was left at; then the newest.
pub fn flow_source(scene: &Scene, camps: [u64; 2]) -> Option<usize> {
    let candidate = |i: usize| {
        scene
            .duels
            .get(i)
            .is_some_and(|d| d.sides[0] & camps[0] == camps[0] && d.sides[1] & camps[1] == camps[1])
    };
    let all = camps[0] | camps[1];
    bits(all)
        .filter_map(|b| last_duel(scene, b))
        .map(usize::from)
        .filter(|&i| candidate(i))
        .max()
        .or_else(|| (0..scene.duels.len()).rev().find(|&i| candidate(i)))
}

/// Whether combatant `bit`, arriving in Duel `into`, brings its old Duel's Flow with it (§6):
/// its old Duel is another one, not yet combined anywhere, in which it fought on its present
/// side, and an enemy it fought there (on the other side then and now) is in `into`'s Region.
fn combines(scene: &Scene, bit: usize, into: u16, here: u64) -> Option<u16> {
    let old = last_duel(scene, bit).filter(|&o| o != into)?;
    let d = scene.duels.get(usize::from(old))?;
    let side = usize::from(side_of(scene, bit));
    if d.sides[side] & (1 << bit) == 0 || combined_away(scene, old) {
        return None;
    }
    let enemy_followed = bits(here & d.sides[1 - side]).any(|x| usize::from(side_of(scene, x)) != side);
    enemy_followed.then_some(old)
}

/// The next event that brings the Duels in line with where everyone stands now, if any.
/// Applying it and asking again reaches a fixed point: each event ends, forms or joins one
/// Duel, or combines one Duel that was never combined.
pub fn next_event(scene: &Scene) -> Option<Event> {
    for region in 0..scene.effects.len() as u8 {
        let camps = present(scene, region);
        let here = camps[0] | camps[1];
        match scene.duel_in(region) {
            Some(d) => {
                if camps[0] == 0 || camps[1] == 0 {
                    return Some(Event::DuelEnded { duel: d });
                }
                let duel = &scene.duels[usize::from(d)];
                // Someone fighting in it now stands on the other side from its own (an alliance
                // ended): these are different enemies, so the Duel ends (Decision on alliances).
                let turned = bits(here).any(|b| {
                    last_duel(scene, b) == Some(d)
                        && duel.sides[usize::from(side_of(scene, b))] & (1 << b) == 0
                });
                if turned {
                    return Some(Event::DuelEnded { duel: d });
                }
                // Someone who was not fighting in it (a newcomer, or back from another Duel).
                if let Some(bit) = bits(here).find(|&b| last_duel(scene, b) != Some(d)) {
                    if let Some(from) = combines(scene, bit, d, here) {
                        let flow = duel.flow.saturating_add(scene.duels[usize::from(from)].flow);
                        return Some(Event::DuelsCombined { into: d, from, flow });
                    }
                    return Some(Event::DuelJoined { duel: d, combatant: bit as u8 });
                }
            }
            None if camps[0] != 0 && camps[1] != 0 => {
                let source = flow_source(scene, camps).map(|i| (i, &scene.duels[i]));
                let next = scene.duels.len() as u16;
                let (duel, flow, from) = match source {
                    Some((i, d)) if !d.active => (i as u16, d.flow, FlowSource::Restored),
                    Some((i, d)) => (next, d.flow, FlowSource::Copied(i as u16)),
                    None => (next, 0, FlowSource::New),
                };
                return Some(Event::DuelFormed { duel, region, flow, from, members: here });
            }
            None => {}
        }
    }
    None
}

/// Brings the Duels in line with where everyone stands on `scene`, applying and pushing each
/// event ([`next_event`]).
pub fn reconcile(scene: &mut Scene, events: &mut Vec<Event>) {
    // Each event settles one combatant or Duel; the bound only guards against a bug looping.
    for _ in 0..4 * 64 * 8 {
        let Some(e) = next_event(scene) else { return };
        scene.apply(&e);
        events.push(e);
    }
}
