//! The Duel bookkeeping invariants of the rules reference §6 (seed "Flow of Battle" and the
//! Decision on alliances), checked event by event on a replayed log. Shared by the crate's
//! tests and the `play` tests of the `facedown` binary (`#[path]`).

use inciting_incident::rules::FlowSource;
use inciting_incident::{Event, Scene};

fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            i
        })
    })
}

fn last_duel(s: &Scene, bit: usize) -> Option<u16> {
    let n = s.fighters.len();
    if bit < n { s.fighters[bit].duel } else { s.minions[bit - n].duel }
}

fn side_of(s: &Scene, bit: usize) -> usize {
    let n = s.fighters.len();
    usize::from(if bit < n { s.fighters[bit].side } else { s.minions[bit - n].side } & 1)
}

/// Who can fight in a Region, per side.
fn present(s: &Scene, region: u8) -> [u64; 2] {
    let mut out = [0u64; 2];
    for (i, f) in s.fighters.iter().enumerate() {
        if f.engaged_capable() && f.region == Some(region) {
            out[usize::from(f.side & 1)] |= 1 << i;
        }
    }
    for (j, m) in s.minions.iter().enumerate() {
        if m.count > 0 && m.region == region {
            out[usize::from(m.side & 1)] |= 1 << (s.fighters.len() + j);
        }
    }
    out
}

/// Whether everyone of `camps` fought in Duel `d` on the side it is on now.
fn same_enemies(s: &Scene, d: usize, camps: [u64; 2]) -> bool {
    let duel = &s.duels[d];
    duel.sides[0] & camps[0] == camps[0] && duel.sides[1] & camps[1] == camps[1]
}

/// Checks one event against the state before it: Err names the rule it breaks.
pub fn check_event(before: &Scene, event: &Event) -> Result<(), String> {
    match *event {
        Event::DuelsCombined { into, from, flow } => {
            let (i, f) = (usize::from(into), usize::from(from));
            if before.duels.iter().any(|d| d.merged_from.contains(&from)) {
                return Err(format!(
                    "Duel {from}'s Flow is combined a second time (into {into}): only once (§6)"
                ));
            }
            if flow != before.duels[i].flow.saturating_add(before.duels[f].flow) {
                return Err(format!("Duels {into} and {from} combine to {flow}, not the sum (§6)"));
            }
            // Someone arriving brings it, and an enemy it fought there (still an enemy) is here.
            let [a, b] = present(before, before.duels[i].region);
            let ok = bits(a | b).filter(|&c| last_duel(before, c) == Some(from)).any(|c| {
                let side = side_of(before, c);
                before.duels[f].sides[side] & (1 << c) != 0
                    && bits((a | b) & before.duels[f].sides[1 - side]).any(|e| side_of(before, e) != side)
            });
            if !ok {
                return Err(format!(
                    "Duel {from} is combined into {into} though none of its enemies followed (§6; a Duel's Flow belongs to the enemies who fought in it)"
                ));
            }
        }
        Event::DuelFormed { duel, region, flow, from, members } => {
            let d = usize::from(duel);
            let camps = [0, 1].map(|side| {
                bits(members).filter(|&c| side_of(before, c) == side).fold(0u64, |m, c| m | 1 << c)
            });
            if camps != present(before, region) {
                return Err(format!("Duel {duel} forms with {members:#b}, not everyone in its Region (§6)"));
            }
            match from {
                FlowSource::New => {
                    if flow != 0 || d != before.duels.len() {
                        return Err(format!("new Duel {duel} starts at {flow}, not a fresh Duel at 0 (§6)"));
                    }
                }
                FlowSource::Restored => {
                    let Some(old) = before.duels.get(d) else {
                        return Err(format!("no Duel {duel} to restore"));
                    };
                    if old.active || flow != old.flow || !same_enemies(before, d, camps) {
                        return Err(format!(
                            "Duel {duel} restored at {flow}: it was left at {} (active {}, same enemies {}) (§6)",
                            old.flow,
                            old.active,
                            same_enemies(before, d, camps)
                        ));
                    }
                }
                FlowSource::Copied(o) => {
                    let old = &before.duels[usize::from(o)];
                    if !old.active || flow != old.flow || !same_enemies(before, usize::from(o), camps) {
                        return Err(format!("Duel {duel} copies Duel {o}'s Flow wrongly (§6)"));
                    }
                }
            }
            // Everyone was last in one and the same Duel and fought each other there: it
            // re-forms at the Flow it was left at (or is copied, if still fought elsewhere).
            let last: Vec<Option<u16>> = bits(members).map(|c| last_duel(before, c)).collect();
            if let Some(Some(o)) = last.first().copied()
                && last.iter().all(|&l| l == Some(o))
                && same_enemies(before, usize::from(o), camps)
            {
                let want = if before.duels[usize::from(o)].active {
                    (before.duels.len() as u16, FlowSource::Copied(o))
                } else {
                    (o, FlowSource::Restored)
                };
                if (duel, from) != want {
                    return Err(format!(
                        "everyone in Duel {duel} ({from:?}, Flow {flow}) was last in Duel {o} (Flow {}), which must re-form at the Flow it was left at (§6)",
                        before.duels[usize::from(o)].flow
                    ));
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Checks that the Duels stand where everyone is (between actions): one active Duel in each
/// Region with both sides in it, none elsewhere, and everyone there in it — every Duel formed
/// or joined was logged, since only events change the state.
pub fn check_quiet(s: &Scene) -> Result<(), String> {
    for region in 0..s.setup.regions.len() as u8 {
        let [a, b] = present(s, region);
        let name = s.region_name(region);
        match s.duel_in(region) {
            None if a != 0 && b != 0 => return Err(format!("both sides in {name} and no Duel logged (§6)")),
            None => {}
            Some(d) if a == 0 || b == 0 => return Err(format!("Duel {d} in {name} without two sides (§6)")),
            Some(d) => {
                if !s.duels[usize::from(d)].active {
                    return Err(format!("Duel {d} in {name} is not active"));
                }
                for c in bits(a | b) {
                    if last_duel(s, c) != Some(d) {
                        return Err(format!(
                            "combatant {c} fights in Duel {d} in {name} without a logged join (its Duel: {:?}) (§6)",
                            last_duel(s, c)
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Replays `log` from `initial`, checking every Duel event and, before each event that comes
/// between actions, where the Duels stand. Err names the event number (from 1) and the rule.
pub fn check_log(initial: &Scene, log: &[Event]) -> Result<(), String> {
    let mut s = initial.clone();
    for (i, e) in log.iter().enumerate() {
        let quiet = matches!(
            e,
            Event::RoundStarted { .. }
                | Event::Acted { .. }
                | Event::Declared { .. }
                | Event::RoundEnded { .. }
        );
        if quiet && !s.is_over() {
            check_quiet(&s).map_err(|m| format!("before event {}: {m}", i + 1))?;
        }
        check_event(&s, e).map_err(|m| format!("event {} ({e:?}): {m}", i + 1))?;
        s.apply(e);
    }
    Ok(())
}
