//! The referee calculator ([`referee`], `facedown iron-triangle resolve`) and the engine decide
//! a turn with the same functions: random turns played through a [`table::Table`] are entered,
//! as a referee at a real table would enter them (both stances, moves, chains, the combo
//! being continued, the energies and the specials revealed), into [`referee::compute`], and
//! both must agree on the winner and the step that decided it, every loss component, the
//! losses after the specials, who spreads each, the gains, the chains of the next turn and
//! whether a loss wipes a character out.

#[macro_use]
mod common;

use common::*;
use iron_triangle::referee::{self, Report, SideSheet, TurnSheet};
use iron_triangle::special::{Edition, Special};
use iron_triangle::{Combo, Command, Conflict, Event, FighterId, Move, Phase};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use rand::RngExt;
use table::{Table, TableRng, seeded_rng};

fn config(cases: u32) -> Config {
    let seed = std::env::var("PROPTEST_RNG_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x1207_2019);
    Config { cases, failure_persistence: None, rng_seed: RngSeed::Fixed(seed), ..Config::default() }
}

/// A random set of specials of `edition` a character of level 12 may know (Yojimbo needs an
/// ally, so a 1v1 leaves it out), each Dig Two Graves with its prerequisite.
fn random_specials(edition: Edition, rng: &mut TableRng) -> Vec<Special> {
    let mut out: Vec<Special> = Vec::new();
    for sp in Special::all() {
        // The specials that change a turn's losses come more often, so that they clash.
        let changes_losses = matches!(
            sp,
            Special::PressurePoint
                | Special::WaxOn(_)
                | Special::Parry(_)
                | Special::DigTwoGraves(_)
                | Special::SantaCarla(_)
                | Special::Vampire(_)
        );
        let odds = if changes_losses { 2 } else { 6 };
        if !sp.in_edition(edition) || sp == Special::Yojimbo || rng.random_range(0..odds) != 0 {
            continue;
        }
        if let Some(pre) = sp.prerequisite(edition)
            && !out.contains(&pre)
        {
            out.push(pre);
        }
        if !out.contains(&sp) {
            out.push(sp);
        }
    }
    out
}

/// A 1v1 of two level-12 characters knowing every move, with random energies (12 to 21, §10,
/// sometimes lower now) and specials.
fn duel(seed: u64) -> Conflict {
    let mut rng = seeded_rng(seed);
    let edition = if rng.random_range(0..4) == 0 { Edition::Earlier } else { Edition::Current };
    let mut character = |name: &str| {
        let max = en(rng.random_range(4..=7), rng.random_range(4..=7), rng.random_range(4..=7));
        let mut c = npc_all(name, max);
        c.level = 12;
        c.specials = random_specials(edition, &mut rng);
        // Combos between random moves, so that chains are continued (§5.5).
        let mut combos = Vec::new();
        for from in Move::ALL {
            if rng.random_range(0..2) == 0 {
                // At most two follow-ups per starting move (§5.5, §10).
                let follow_ups =
                    (0..rng.random_range(1..=2)).map(|_| Move::ALL[rng.random_range(0..13)]).collect();
                combos.push(Combo { from, follow_ups });
            }
        }
        c.combos = combos;
        if rng.random_range(0..3) == 0 {
            c.current = Some(en(
                rng.random_range(0..=max.defend),
                rng.random_range(0..=max.grapple),
                rng.random_range(1..=max.attack),
            ));
        }
        c
    };
    let (a, b) = (character("A"), character("B"));
    let mut setup = Build::new().pc("p", a).npc(b).setup();
    setup.edition = edition;
    Conflict::new(setup).unwrap_or_else(|e| panic!("setup refused: {e}"))
}

/// The turn about to be resolved, as a referee enters it: `state` is the conflict just before
/// its `TurnResolved` event, `specials` the cards revealed this turn.
fn sheet_of(state: &Conflict, specials: &[(FighterId, Special)]) -> Option<TurnSheet> {
    let Phase::Turn(t) = &state.phase else { return None };
    let pair = t.pair()?;
    let side = |i: usize| -> Option<SideSheet> {
        let id = pair[i];
        let f = state.fighter(id);
        let mine: Vec<Special> = specials.iter().filter(|(by, _)| *by == id).map(|(_, s)| *s).collect();
        if mine.len() > 1 {
            // The calculator takes one special per character and turn.
            return None;
        }
        let (combo, follow_ups) = match &state.combo {
            Some(c) if c.side == f.side && c.against == pair[1 - i] && !c.is_empty() => (
                c.cards.iter().map(|c| c.card.to_string()).collect(),
                f.follow_ups[c.newest().index()].iter().map(|m| m.to_string()).collect(),
            ),
            _ => (Vec::new(), Vec::new()),
        };
        Some(SideSheet {
            name: Some(f.character.name.clone()),
            energy: Some([f.energy.defend, f.energy.grapple, f.energy.attack]),
            stance: Some(t.stances[i].value()?.to_string()),
            play: t.plays[i].value()?.to_string(),
            disadvantage: f.disadvantage.iter().map(|m| m.to_string()).collect(),
            combo,
            follow_ups,
            special: mine.first().map(|s| s.key()),
        })
    };
    Some(TurnSheet {
        comment: None,
        edition: Some(referee::edition_name(state.edition).to_owned()),
        yojimbo: None,
        a: side(0)?,
        b: side(1)?,
    })
}

/// "a" or "b" for one of the pair.
fn key(pair: [FighterId; 2], id: FighterId) -> &'static str {
    if id == pair[0] { "a" } else { "b" }
}

/// The calculator's report against the engine's state right after `TurnResolved`.
fn compare(report: &Report, after: &Conflict) -> Result<(), TestCaseError> {
    let Phase::Aftermath(a) = &after.phase else {
        return Err(TestCaseError::fail(format!("no aftermath after TurnResolved: {:?}", after.phase)));
    };
    let r = &a.result;
    prop_assert_eq!(report.winner, r.outcome.winner().map(|w| key(a.pair, a.pair[w])));
    prop_assert_eq!(report.decided_by, r.decided_by);
    prop_assert_eq!(report.combo_continued, r.combo_continued);
    prop_assert_eq!([report.a.disadvantaged, report.b.disadvantaged], r.disadvantaged);
    prop_assert_eq!([report.a.loss.parts, report.b.loss.parts], r.losses);
    prop_assert_eq!([report.final_losses.a.parts, report.final_losses.b.parts], a.losses);
    let spreaders = [0, 1].map(|i| a.spreaders[i].map_or(key(a.pair, a.pair[i]), |s| key(a.pair, s)));
    prop_assert_eq!([report.spreaders.a, report.spreaders.b], spreaders);
    let extras: Vec<_> = after.extras.iter().map(|e| (key(a.pair, e.fighter), e.kind, e.amount)).collect();
    let reported: Vec<_> = report.extras.iter().map(|e| (e.fighter, e.kind, e.amount)).collect();
    prop_assert_eq!(reported, extras);
    let chains = [0, 1].map(|i| after.fighter(a.pair[i]).disadvantage.cards());
    prop_assert_eq!([report.next.disadvantage.a.clone(), report.next.disadvantage.b.clone()], chains);
    let combo = after.combo.as_ref().filter(|c| !c.is_empty()).map(|c| {
        let side = if after.fighter(a.pair[0]).side == c.side { "a" } else { "b" };
        (side, key(a.pair, c.against), c.cards.iter().map(|c| c.card).collect::<Vec<_>>())
    });
    let reported = report.next.combo.as_ref().map(|c| (c.side, c.against, c.cards.clone()));
    prop_assert_eq!(reported, combo);
    Ok(())
}

/// Whether the calculator's wipe-out says what the engine did: a character whose energy was
/// given goes out exactly when the report says its final loss wipes it out — unless a gain
/// came in between or The Way of the Samurai keeps it in (§5.3, §6).
fn check_out(open: &Open, out: &[FighterId]) -> Result<(), TestCaseError> {
    if !open.report.extras.is_empty() {
        return Ok(());
    }
    for (i, f) in [&open.report.a, &open.report.b].into_iter().enumerate() {
        let Some(e) = &f.energy else { continue };
        if open.samurai[i] {
            continue;
        }
        prop_assert_eq!(e.wiped_out, out.contains(&open.pair[i]), "{} in {:#?}", f.name, open.report);
    }
    Ok(())
}

/// A turn resolved whose losses are being taken.
struct Open {
    report: Report,
    pair: [FighterId; 2],
    /// Whether The Way of the Samurai keeps each of the pair in.
    samurai: [bool; 2],
}

proptest! {
    #![proptest_config(config(96))]

    /// §5.2 step 4, §5.3–§5.5, §6: `iron-triangle resolve` and the engine agree on random
    /// turns of random 1v1 conflicts, with random stances, moves, chains, energies and
    /// specials, in both editions.
    #[test]
    fn resolve_agrees_with_the_engine_on_random_turns(setup in any::<u64>(), seed in any::<u64>()) {
        let mut g: Game = Table::new(duel(setup));
        let mut rng = seeded_rng(seed);
        let mut turns = 0;
        let mut specials: Vec<(FighterId, Special)> = Vec::new();
        let mut open: Option<Open> = None;
        let mut out: Vec<FighterId> = Vec::new();
        let mut n = 0;
        while !g.is_over() && turns < 12 && n < 600 {
            n += 1;
            let (seat, cmd) = random_legal(&g, &mut rng).expect("a live conflict waits for someone");
            // Adjustments are the GM's, not the turn's.
            if matches!(cmd, Command::AdjustEnergy { .. }) {
                continue;
            }
            // The command's events, replayed from the state before it: the turn is seen just
            // before it is resolved.
            let mut state = g.state().clone();
            let events = ok!(g, seat, cmd);
            for e in &events {
                match e {
                    Event::TurnBegan { .. } => specials.clear(),
                    Event::SpecialRevealed { fighter, card, .. } => specials.push((*fighter, card.effective())),
                    Event::WentOut { fighter, .. } => out.push(*fighter),
                    _ => {}
                }
                if matches!(e, Event::TurnBegan { .. } | Event::ConflictEnded { .. })
                    && let Some(o) = open.take()
                {
                    check_out(&o, &out)?;
                }
                if let Event::TurnResolved { .. } = e {
                    turns += 1;
                    if let Some(sheet) = sheet_of(&state, &specials) {
                        let report = referee::compute(&sheet)
                            .map_err(|err| TestCaseError::fail(format!("{err} in {sheet:#?}")))?;
                        let mut after = state.clone();
                        after.apply(e);
                        compare(&report, &after)?;
                        let Phase::Aftermath(a) = &after.phase else { unreachable!("compare checked it") };
                        let samurai = a.pair.map(|id| state.fighter(id).samurai);
                        open = Some(Open { report, pair: a.pair, samurai });
                        out.clear();
                    }
                }
                state.apply(e);
            }
        }
    }
}
