//! The dice calculator ([`calculator`], `facedown inciting-incident roll`) and the engine
//! apply the same rules: random scenes are played through a [`Table`], and every Talent Roll
//! of a Regular Attack and every Decisive Attack on a character is entered into
//! [`calculator::compute`] as a table with real dice would enter it (the Talent level, the
//! target's defence, the Flow or a ranged attack, the totals rolled). Both must agree on the
//! success, the Flow moved, the Crisis and the hits.

mod common;

use inciting_incident::calculator::{self, Answer, Request};
use inciting_incident::rules::{Purpose, Who};
use inciting_incident::{Action, Event, IncitingIncident, Scene, SceneKind, Target};
use proptest::prelude::*;
use rand::RngExt;
use table::{Table, seeded_rng};

/// An attack being resolved: the request the calculator gets, once the rolls are known.
struct Pending {
    /// The attacker.
    attacker: u8,
    /// The request, without the totals.
    request: Request,
    /// The target character and its hits before the attack, for a Decisive Attack.
    target: Option<(u8, u8, u8)>,
    /// Whether the attacker's Skills reduce the Crisis (the calculator has no Skills).
    reduced: bool,
    /// The totals rolled, in order.
    totals: Vec<i32>,
    /// The Flow moved (in the attacker's frame) and the Crisis added.
    flow: i32,
    crisis: u32,
    /// Hits dealt.
    hits: Option<u8>,
}

impl Pending {
    /// Whether every roll of the attack is known (the attack roll, and the defence roll of a
    /// Decisive Attack).
    fn rolled(&self) -> bool {
        self.totals.len() == if self.target.is_some() { 2 } else { 1 }
    }
}

/// What the calculator needs to know about an attack, read from the scene as it starts.
fn pending(s: &Scene, f: u8, action: &Action) -> Option<Pending> {
    let me = &s.fighters[usize::from(f)];
    let (talent, target, defence, decisive) = match *action {
        Action::Regular { talent: Some(t), target, roll: true, defence } => (t, target, defence, false),
        Action::Decisive { talent, target, defence } => (talent, target, defence, true),
        _ => return None,
    };
    let Target::Character(c) = target else { return None };
    let t = &me.sheet.talents[usize::from(talent)];
    let reach = s.reach(f, Some(talent), target).ok()?;
    let them = &s.fighters[usize::from(c)];
    let kind = defence.unwrap_or(t.defence);
    let def = them.sheet.defences.get(kind);
    let reduced = t.skills.crisis_reduction > 0;
    // The Skill modifier and bonus dice change the pool, not the rules applied to the totals.
    if !decisive {
        return Some(Pending {
            attacker: f,
            request: Request::Talent {
                level: t.level,
                rd: def.rd,
                modifier: 0,
                advantage: 0,
                result: None,
                automatic: false,
            },
            target: None,
            reduced,
            totals: Vec::new(),
            flow: 0,
            crisis: 0,
            hits: None,
        });
    }
    let mut protection = def.protection.clone();
    if let Some(r) = them.region {
        protection.extend_from_slice(&s.effects[usize::from(r)].protection);
    }
    let (_, ability) = them.sheet.defence_ability(kind);
    let (flow, ranged) = match (reach.uses_flow, reach.duel) {
        (true, Some(d)) => {
            let flow = s.duels[usize::from(d)].flow;
            (if me.side == s.positive { flow } else { -flow }, false)
        }
        _ => (0, true),
    };
    Some(Pending {
        attacker: f,
        request: Request::Decisive {
            level: t.level,
            rd: def.rd,
            rv: def.rv,
            ability,
            protection,
            flow,
            ranged,
            modifier: 0,
            advantage: 0,
            attack: None,
            defence: None,
            extra_hits: s.setup.options.extra_hits,
        },
        target: Some((c, them.hits, them.sheet.max_hits)),
        reduced,
        totals: Vec::new(),
        flow: 0,
        crisis: 0,
        hits: None,
    })
}

/// The calculator's answer with the engine's totals against what the engine did.
fn compare(s: &Scene, p: Pending) -> Result<(), TestCaseError> {
    let request = match p.request {
        Request::Talent { level, rd, modifier, advantage, automatic, .. } => {
            prop_assert_eq!(p.totals.len(), 1);
            Request::Talent { level, rd, modifier, advantage, result: Some(p.totals[0]), automatic }
        }
        Request::Decisive {
            level,
            rd,
            rv,
            ability,
            protection,
            flow,
            ranged,
            modifier,
            advantage,
            extra_hits,
            ..
        } => {
            prop_assert_eq!(p.totals.len(), 2);
            Request::Decisive {
                level,
                rd,
                rv,
                ability,
                protection,
                flow,
                ranged,
                modifier,
                advantage,
                attack: Some(p.totals[0]),
                defence: Some(p.totals[1]),
                extra_hits,
            }
        }
        other => return Err(TestCaseError::fail(format!("not an attack: {other:?}"))),
    };
    // With every total given, nothing is rolled.
    let mut unused = seeded_rng(0);
    let answer = calculator::compute(&request, s.setup.options.advantage, &mut unused)
        .map_err(|e| TestCaseError::fail(format!("{e} for {request:?}")))?;
    let crisis_ok = |want: u32| p.reduced || p.crisis == want;
    match answer {
        Answer::Talent { flow, crisis, .. } => {
            prop_assert_eq!(p.flow, flow, "{:?}", request);
            prop_assert!(crisis_ok(crisis), "crisis {} vs {} for {:?}", p.crisis, crisis, request);
        }
        Answer::Decisive { hits, flow_shift, crisis, .. } => {
            prop_assert_eq!(p.flow, -flow_shift, "{:?}", request);
            prop_assert!(crisis_ok(crisis), "crisis {} vs {} for {:?}", p.crisis, crisis, request);
            let (_, before, max) = p.target.expect("a Decisive Attack has a target");
            let dealt = hits.min(u32::from(max - before));
            prop_assert_eq!(u32::from(p.hits.unwrap_or(0)), dealt, "{:?}", request);
        }
        other => return Err(TestCaseError::fail(format!("not an attack: {other:?}"))),
    }
    Ok(())
}

fn scene(which: u8, dice: u64) -> Scene {
    let name = ["river-fight.toml", "three-factions.toml"][usize::from(which % 2)];
    let mut setup = common::example(name);
    setup.seed = dice;
    Scene::new(setup).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, failure_persistence: None, ..ProptestConfig::default() })]

    /// §7.1, §7.2, §7.3: `inciting-incident roll` and the engine agree on the success, the
    /// Flow, the Crisis and the hits of every attack of random combat scenes.
    #[test]
    fn roll_agrees_with_the_engine_on_random_attacks(which in 0u8..2, dice in any::<u64>(), bots in any::<u64>()) {
        let mut table = Table::<IncitingIncident>::new(scene(which, dice));
        prop_assume!(table.state().setup.kind == SceneKind::Combat);
        let mut rng = seeded_rng(bots);
        let mut legal = Vec::new();
        let mut open: Option<Pending> = None;
        let mut steps = 0;
        while !table.is_over() && steps < 2_000 {
            steps += 1;
            let awaiting = table.awaiting();
            let seat = awaiting[rng.random_range(0..awaiting.len())];
            table.legal_commands(seat, &mut legal);
            legal.retain(|c| !c.is_gm_ruling());
            let c = legal[rng.random_range(0..legal.len())];
            let mut state = table.state().clone();
            let events = table.submit(seat, &c).unwrap().to_vec();
            for e in &events {
                match e {
                    Event::Started { character, action, .. } => {
                        if let Some(p) = open.take() {
                            compare(&state, p)?;
                        }
                        open = pending(&state, *character, action);
                    }
                    Event::Acted { .. } | Event::Wasted { .. } => {
                        if let Some(p) = open.take() {
                            compare(&state, p)?;
                        }
                    }
                    Event::Rolled { who: Who::Character(w), purpose, roll, .. } => {
                        if let Some(p) = open.as_mut() {
                            let target = p.target.map(|(c, _, _)| c);
                            let ours = match purpose {
                                Purpose::Regular | Purpose::Decisive => *w == p.attacker,
                                Purpose::Defence => Some(*w) == target,
                                _ => false,
                            };
                            if ours {
                                p.totals.push(roll.total);
                            }
                        }
                    }
                    Event::FlowMoved { by, .. } => {
                        // The attack moves the Flow before it adds its Crisis; a Flow moved
                        // afterwards comes from a trigger the Crisis fired.
                        if let Some(p) = open.as_mut() && p.flow == 0 && p.crisis == 0 && p.rolled() {
                            let side = state.fighters[usize::from(p.attacker)].side;
                            p.flow = if side == state.positive { *by } else { -*by };
                        }
                    }
                    Event::CrisisAdded { amount, side: Some(side), .. } => {
                        if let Some(p) = open.as_mut()
                            && p.crisis == 0
                            && p.rolled()
                            && *side == state.fighters[usize::from(p.attacker)].side
                        {
                            p.crisis = *amount;
                        }
                    }
                    Event::Wounded { character, hits, .. } => {
                        if let Some(p) = open.as_mut()
                            && p.target.is_some_and(|(c, _, _)| c == *character)
                            && p.hits.is_none()
                        {
                            p.hits = Some(*hits);
                        }
                    }
                    _ => {}
                }
                state.apply(e);
            }
        }
    }
}
