//! Duel bookkeeping (rules reference §6): which Duels stand after people move, and where
//! their Flow of Battle comes from.
//!
//! - Exactly one active Duel per Region with both sides in it (the reference's proposal).
//! - A Duel nobody fights in any more is saved with its Flow; when the same opponents
//!   re-engage (everyone now facing each other was in it) it is restored.
//! - When only part of an active Duel re-engages elsewhere, the new Duel starts with a copy
//!   of its Flow; the two then diverge.
//! - Anyone engaging different enemies starts a new Duel at Flow 0.
//! - A combatant joining another active Duel changes no Flow, unless an enemy from its old
//!   Duel is already there: then the old Duel's Flow is added to the new one, once per Duel
//!   combined in (signed sum, Decision).

use crate::rules::Event;
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

/// The last Duel of a combatant (by bit index).
fn last_duel(scene: &Scene, bit: usize) -> Option<u16> {
    let n = scene.fighters.len();
    if bit < n { scene.fighters[bit].duel } else { scene.minions.get(bit - n).and_then(|m| m.duel) }
}

fn side_of(scene: &Scene, bit: usize) -> u8 {
    let n = scene.fighters.len();
    if bit < n { scene.fighters[bit].side } else { scene.minions.get(bit - n).map_or(0, |m| m.side) }
}

fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            i
        })
    })
}

/// The Duel whose Flow a new Duel of `all` takes (§6): one that every combatant in `all` was
/// in, never one already combined into another (its Flow lives on in that Duel) nor one closed
/// when an alliance ended (its members were allies then), preferring a
/// Duel the combatants were last in (their `duel`), then the newest. Without the preference an
/// older Duel of the same opponents — one combined away — came back with a stale Flow when a
/// Duel broke up only because a combatant was Incapacitated (audit repro `flowjump`).
pub fn flow_source(scene: &Scene, all: u64) -> Option<usize> {
    let combined_away =
        |i: usize| scene.duels.iter().any(|d| d.merged_from.iter().any(|&m| usize::from(m) == i));
    let candidate = |i: usize| {
        scene.duels.get(i).is_some_and(|d| d.members & all == all && !d.closed) && !combined_away(i)
    };
    let last: Vec<usize> = bits(all).filter_map(|b| last_duel(scene, b)).map(usize::from).collect();
    last.iter()
        .copied()
        .filter(|&i| candidate(i))
        .max()
        .or_else(|| (0..scene.duels.len()).rev().find(|&i| candidate(i)))
}

/// Pushes the events that bring the Duels in line with where everyone stands now.
pub fn reconcile(scene: &Scene, events: &mut Vec<Event>) {
    let mut next = scene.duels.len() as u16;
    for region in 0..scene.effects.len() as u8 {
        let [a, b] = present(scene, region);
        let active = scene.duel_in(region);
        match active {
            Some(d) if a != 0 && b != 0 => {
                let duel = &scene.duels[usize::from(d)];
                let newcomers = (a | b) & !duel.members;
                if newcomers == 0 {
                    continue;
                }
                let mut merged = duel.merged_from.clone();
                let mut flow = duel.flow;
                for bit in bits(newcomers) {
                    // A newcomer. Is an enemy from its old Duel here already?
                    if let Some(old) = last_duel(scene, bit).filter(|&o| o != d && !merged.contains(&o)) {
                        let old_duel = &scene.duels[usize::from(old)];
                        let side = side_of(scene, bit);
                        let enemy_followed = bits(duel.members & (a | b))
                            .any(|x| side_of(scene, x) != side && old_duel.members & (1 << x) != 0);
                        if enemy_followed {
                            flow = flow.saturating_add(old_duel.flow);
                            merged.push(old);
                            events.push(Event::DuelsCombined { into: d, from: old, flow });
                        }
                    }
                    events.push(Event::DuelJoined { duel: d, combatant: bit as u8 });
                }
            }
            Some(d) => events.push(Event::DuelEnded { duel: d }),
            None if a != 0 && b != 0 => {
                let all = a | b;
                // The Duel everyone here was last in: restore it if saved, copy it if it is
                // still fought elsewhere; else a new Duel at 0.
                let source = flow_source(scene, all).map(|i| (i, &scene.duels[i]));
                let (duel, flow, from) = match source {
                    Some((i, d)) if !d.active => (i as u16, d.flow, crate::rules::FlowSource::Restored),
                    Some((i, d)) => {
                        let n = next;
                        next += 1;
                        (n, d.flow, crate::rules::FlowSource::Copied(i as u16))
                    }
                    None => {
                        let n = next;
                        next += 1;
                        (n, 0, crate::rules::FlowSource::New)
                    }
                };
                events.push(Event::DuelFormed { duel, region, flow, from, members: all });
            }
            None => {}
        }
    }
}
