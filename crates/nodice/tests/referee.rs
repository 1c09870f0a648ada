//! The referee calculator (`nodice resolve`) and the engine (`nodice play`) decide a Hand with
//! the same functions: random Hands played through the engine are entered, as a referee would
//! enter them, into [`referee::compute`], and both must agree on every Action's damage, which
//! Actions are void (Decision: resolution order, point 5), who is eliminated, the pot's
//! leaders and the tokens each receives (or the pot going to the Jackpot), and the next UTG.

mod common;

use common::*;
use nodice::hand::Void;
use nodice::referee::{self, ActorPlay, DamageSpec, HandSheet};
use nodice::*;
use proptest::prelude::*;

fn setups() -> impl Strategy<Value = Setup> {
    prop_oneof![
        Just(kara_vs_bandit()),
        (1u8..=3).prop_map(brawl),
        // Weak Actors, so that eliminations (also before an Actor's turn) are frequent.
        (1u8..=2).prop_map(|stakes| {
            let mut s = brawl(stakes);
            s.actors[0].statblock = block("M2(2/1/2)-B2(1/2/2)-S2(2/2/1)");
            s.actors[1].statblock = block("M1(1/1/1)-B3(3/3/3)-S1(1/1/1)");
            s.actors[2].statblock = block("M-(-/-/-)-B2(2/-/2)-S3(3/3/3)");
            s.actors[2].kind = Kind::Abstract;
            s
        }),
        Just({
            let mut s = kara_vs_bandit();
            s.actors[1].statblock = block("R20/0(200/0)-M-(-/-/-)-B66(9/9/-)-S1(-/-/2)");
            s.extensions =
                vec![Ext::DamageAbility(DamageAbility { actor: ActorId(0), points: 1, aspect: None })];
            s
        }),
    ]
}

/// The Hand as a referee at the table would enter it, read at Reveal AT.
fn sheet_of(c: &Conflict) -> HandSheet {
    let name = |id: ActorId| c.actors[id.index()].sheet.name.clone();
    let actors = c
        .order
        .iter()
        .filter_map(|&id| {
            let a = &c.actors[id.index()];
            let card = a.action.value()?;
            let damage = c.extensions.list().iter().find_map(|e| match e {
                Ext::DamageAbility(d) if d.actor == id => {
                    Some(DamageSpec { points: d.points, aspect: d.aspect })
                }
                _ => None,
            });
            Some(ActorPlay {
                name: name(id),
                attribute: card.attribute,
                bid: a.on_card,
                wildcard: card.wildcard,
                // A target that left before Reveal AT is not in the Hand.
                targets: a
                    .targets
                    .iter()
                    .filter(|t| c.actors[t.index()].action.value().is_some())
                    .map(name)
                    .collect(),
                serial: Some(a.sheet.statblock.to_string()),
                kind: Some(a.sheet.kind),
                wildcards: Some(a.wildcards + u16::from(card.wildcard)),
                values: Some(Attribute::ALL.map(|x| a.value(x).unwrap_or(0))),
                damage_aspect: Some(card.damage_aspect),
                damage,
            })
        })
        .collect();
    HandSheet {
        stakes: Some(c.stakes.value() as u8),
        sweep_bonus: Some(c.sweep_bonus()),
        pot: None,
        actors,
        ..Default::default()
    }
}

/// One Hand as the engine played it, from Reveal AT to its end.
#[derive(Default, Debug)]
struct Played {
    /// Per Action in order: void (why) or the damage that got through.
    strikes: Vec<Result<u16, Void>>,
    eliminated: Vec<String>,
    next_utg: Option<String>,
}

fn compare(report: &referee::Report, played: &Played) {
    let referee_strikes: Vec<Result<u16, Void>> =
        report.strikes.iter().map(|s| s.void.map_or(Ok(s.damage_through.unwrap_or(s.damage)), Err)).collect();
    assert_eq!(referee_strikes, played.strikes, "{report:#?}");
    let mut a = report.eliminated.clone();
    let mut b = played.eliminated.clone();
    a.sort();
    b.sort();
    assert_eq!(a, b, "{report:#?}");
    if let Some(u) = &played.next_utg {
        assert_eq!(report.next_utg.as_ref(), Some(u), "{report:#?}");
    }
}

/// Seed: Pay the Ante Pot. The engine paid the pot token by token to the leaders in TD wins,
/// round-robin in commit order from UTG (`paid`), or moved it whole to the Jackpot (`None`)
/// when nobody won Trine Dominance: the calculator names the same leaders and shares.
fn compare_pot(report: &referee::Report, paid: Option<&[String]>) {
    match paid {
        None => assert!(report.pot_leaders.is_empty(), "{report:#?}"),
        Some([]) => {}
        Some(paid) => {
            let n = report.pot_leaders.len();
            assert!(n > 0, "{report:#?}");
            let expected: Vec<&String> = (0..paid.len()).map(|i| &report.pot_leaders[i % n]).collect();
            assert_eq!(paid.iter().collect::<Vec<_>>(), expected, "{report:#?}");
            let shares = report.pot_shares.clone().unwrap_or_default();
            for (leader, k) in shares {
                assert_eq!(paid.iter().filter(|p| **p == leader).count(), usize::from(k), "{report:#?}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    /// Decision (resolution order, point 5) and seed Steps 1–4: `nodice resolve` and `nodice
    /// play` agree on every Hand.
    #[test]
    fn resolve_and_play_agree_on_random_hands(setup in setups(), picks in prop::collection::vec(any::<usize>(), 1..200)) {
        let mut c = Conflict::new(setup).unwrap();
        let mut picks = picks.into_iter().cycle();
        let mut legal = Vec::new();
        let mut events = Vec::new();
        let mut pending: Option<(referee::Report, Played)> = None;
        let mut hands = 0;
        // The pot of the Hand being played: who received each token, or `None` when it
        // went to the Jackpot.
        let mut pot: Option<Vec<String>> = Some(Vec::new());
        while c.phase != Phase::Over && hands < 12 {
            if let Some(e) = c.automatic() {
                match &e {
                    Event::AspectsRevealed => pot = Some(Vec::new()),
                    Event::TokenPaid { to, .. } => if let Some(p) = pot.as_mut() { p.push(c.actors[to.index()].sheet.name.clone()) },
                    Event::PotToJackpot => pot = None,
                    Event::Struck { damage, .. } => if let Some(p) = pending.as_mut() { p.1.strikes.push(Ok(*damage)) },
                    Event::StrikeVoid { why, .. } => if let Some(p) = pending.as_mut() { p.1.strikes.push(Err(*why)) },
                    Event::HandEnded { next_utg } | Event::HandStarted { utg: next_utg, .. } => {
                        if let Some((report, mut played)) = pending.take() {
                            played.next_utg = Some(c.actors[next_utg.index()].sheet.name.clone());
                            compare(&report, &played);
                            hands += 1;
                        }
                    }
                    Event::ConflictEnded { .. } => {
                        if let Some((report, played)) = pending.take() {
                            compare(&report, &played);
                        }
                    }
                    _ => {}
                }
                let before: Vec<bool> = c.actors.iter().map(Actor::is_in).collect();
                c.apply(&e);
                if e == Event::ActionsRevealed {
                    // A Hand where an Actor's only target left before Reveal AT cannot be
                    // entered (the calculator would give it the other Actor): skipped.
                    let mut sheet = sheet_of(&c);
                    sheet.pot = pot.as_ref().map(|p| p.len() as u16).filter(|&n| n > 0);
                    if sheet.actors.iter().all(|a| !a.targets.is_empty()) {
                        let report = referee::compute(&sheet).unwrap();
                        compare_pot(&report, pot.as_deref());
                        pending = Some((report, Played::default()));
                    }
                }
                if let (Some((_, played)), Event::DamageTaken { .. } | Event::Eliminated { .. }) = (pending.as_mut(), &e) {
                    for (a, was) in c.actors.iter().zip(before) {
                        if was && !a.is_in() {
                            played.eliminated.push(a.sheet.name.clone());
                        }
                    }
                }
                continue;
            }
            let mut seats = Vec::new();
            c.awaiting(&mut seats);
            let seat = seats[0];
            legal.clear();
            c.legal_commands(seat, &mut legal);
            // Withdrawing is legal but ends Hands early; keep playing.
            let choices: Vec<&Command> = legal.iter().filter(|k| !matches!(k, Command::Withdraw { .. })).collect();
            let pick = choices[picks.next().unwrap() % choices.len()].clone();
            events.clear();
            c.decide(seat, &pick, &mut events).unwrap();
            for e in &events {
                let before: Vec<bool> = c.actors.iter().map(Actor::is_in).collect();
                c.apply(e);
                if let (Some((_, played)), Event::DamageTaken { .. }) = (pending.as_mut(), e) {
                    for (a, was) in c.actors.iter().zip(before) {
                        if was && !a.is_in() {
                            played.eliminated.push(a.sheet.name.clone());
                        }
                    }
                }
            }
        }
    }
}
