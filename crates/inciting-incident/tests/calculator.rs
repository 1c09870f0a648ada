//! The dice calculator ([`calculator`], `facedown inciting-incident roll`) and the engine
//! apply the same rules: random scenes are played through a [`Table`], and every Talent Roll
//! of a Regular Attack and every Decisive Attack on a character is entered into
//! [`calculator::compute`] as a table with real dice would enter it (the Talent level, the
//! target's defence, the Flow or a ranged attack, the totals rolled). Both must agree on the
//! success, the Flow moved, the Crisis and the hits.

mod common;

use inciting_incident::attack::ExtraHits;
use inciting_incident::calculator::{self, Answer, Request};
use inciting_incident::dice::AdvantageRule;
use inciting_incident::rules::{Purpose, Who};
use inciting_incident::wounds::{RestOutcome, Wounds};
use inciting_incident::{Action, Event, IncitingIncident, Scene, SceneKind, Target};
use proptest::prelude::*;
use rand::RngExt;
use table::{Draws, Table, seeded_rng};

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
    let mut unused = Draws::seeded(0).stream();
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

// ---------------------------------------------------------------------------------------------
// The worked examples and the calculator's own checks (§3.1, §7, §9)
// ---------------------------------------------------------------------------------------------

#[track_caller]
fn answer(request: Request) -> Answer {
    calculator::compute(&request, AdvantageRule::ExtraDie, &mut Draws::seeded(1).stream())
        .unwrap_or_else(|e| panic!("refused: {e}"))
}

fn talent(level: u8, rd: u8, result: i32) -> Request {
    Request::Talent { level, rd, modifier: 0, advantage: 0, result: Some(result), automatic: false }
}

fn decisive(level: u8, rd: u8, rv: u8, ability: u8, protection: &[u8], flow: Option<i32>) -> Request {
    Request::Decisive {
        level,
        rd,
        rv,
        ability,
        protection: protection.to_vec(),
        flow: flow.unwrap_or(0),
        ranged: flow.is_none(),
        modifier: 0,
        advantage: 0,
        attack: None,
        defence: None,
        extra_hits: ExtraHits::AtLeast,
    }
}

fn with_totals(mut r: Request, a: i32, d: i32) -> Request {
    if let Request::Decisive { attack, defence, .. } = &mut r {
        (*attack, *defence) = (Some(a), Some(d));
    }
    r
}

fn rest(hits: u8, death_hits: u8, incapacitated: bool, full_day: bool, result: Option<i32>) -> Request {
    Request::Rest {
        level: 5,
        difficulty: 4,
        wounds: Wounds { hits, max_hits: 2, death_hits, incapacitated, doomed: false },
        revived: false,
        full_day,
        result,
    }
}

/// Worked example B (§7.1): a Talent Roll of 25 moves the Flow 5 for 2 Crisis; 13 fails for
/// 7 Crisis; level 6 against RD 3 reaches 20 half the time.
#[test]
fn worked_example_b_with_real_dice() {
    let Answer::Talent { flow, crisis, .. } = answer(talent(6, 3, 25)) else { panic!() };
    assert_eq!((flow, crisis), (5, 2));
    let Answer::Talent { flow, crisis, p_success, .. } = answer(talent(6, 3, 13)) else { panic!() };
    assert_eq!((flow, crisis), (0, 7));
    assert!((p_success - 0.5).abs() < 0.002);
}

/// Worked examples C (§7.2) and F (§7.3, ranged).
#[test]
fn worked_examples_c_and_f_decisive_with_real_dice() {
    let Answer::Decisive { hits, flow_shift, needed, .. } =
        answer(with_totals(decisive(7, 2, 6, 4, &[6], Some(4)), 17, 9))
    else {
        panic!()
    };
    assert_eq!((hits, flow_shift, needed), (2, 3, 11));
    let Answer::Decisive { hits, flow_shift, .. } =
        answer(with_totals(decisive(5, 2, 7, 3, &[], None), 18, 5))
    else {
        panic!()
    };
    assert_eq!((hits, flow_shift), (2, 0));
}

/// §9: a rest roll heals a hit; an unrevived Incapacitated character's failed daily roll
/// marks a Death Hit (the last one kills); a whole day heals a conscious character; a dead
/// one rolls nothing; the full-day heal does not apply to the Incapacitated.
#[test]
fn rest_scenes_heal_and_the_incapacitated_mark_death_hits() {
    let outcome = |r: Request| match answer(r) {
        Answer::Rest { outcome, wounds, dead, .. } => (outcome, wounds.hits, dead),
        other => panic!("{other:?}"),
    };
    assert_eq!(outcome(rest(1, 0, false, false, Some(20))), (RestOutcome::Healed, 0, false));
    assert_eq!(outcome(rest(2, 1, true, false, Some(12))).0, RestOutcome::Dies);
    assert_eq!(outcome(rest(1, 0, false, true, None)).1, 0);
    assert_eq!(outcome(revived(rest(2, 0, false, true, None))), (RestOutcome::FullyHealed, 0, false));
    assert_eq!(outcome(rest(2, 2, true, false, Some(25))), (RestOutcome::Dead, 2, true));
    assert_eq!(outcome(rest(2, 0, true, true, Some(20))), (RestOutcome::Recovered, 1, false));
    assert_eq!(outcome(rest(2, 0, true, true, Some(3))), (RestOutcome::DeathHit, 2, false));
}

/// Bad requests are refused with the rule: levels (§3.1), RV (§4.3), hits (§9), the engine's
/// bounds.
#[test]
fn bad_requests_are_refused_with_the_rule() {
    let refused = |r: Request| {
        calculator::compute(&r, AdvantageRule::ExtraDie, &mut Draws::seeded(1).stream())
            .expect_err("refused")
            .to_string()
    };
    assert!(!refused(talent(12, 0, 20)).contains('§'));
    assert!(!refused(talent(0, 0, 20)).contains('§'));
    assert!(refused(Request::Ability { level: 12, difficulty: 4, result: None }).contains("0 to 9"));
    assert!(refused(decisive(5, 2, 6, 10, &[], Some(0))).contains("0 to 9"));
    assert!(refused(decisive(5, 2, 0, 3, &[], Some(0))).contains("a Resistance Value is at least 1"));
    assert!(refused(decisive(5, 2, 6, 3, &[7], Some(0))).contains("d4, d6, d8, d10 or d12"));
    assert!(refused(decisive(5, 21, 6, 3, &[], Some(0))).contains("at most 20"));
    assert!(!refused(rest(3, 0, false, false, None)).contains('§'));
    let mut r = talent(5, 0, 20);
    if let Request::Talent { modifier, .. } = &mut r {
        *modifier = i32::MAX;
    }
    assert!(refused(r).contains("--modifier"));
    // Level 0 is an Ability level: no dice, only the difficulty.
    assert!(matches!(
        answer(Request::Ability { level: 0, difficulty: 4, result: None }),
        Answer::Ability { .. }
    ));
}

fn revived(mut r: Request) -> Request {
    if let Request::Rest { revived, .. } = &mut r {
        *revived = true;
    }
    r
}

/// Rules reference §9, Decision on the state at Max Hits: a character at Max Hits is
/// Incapacitated unless stated revived; the calculator refuses to guess, naming both options,
/// and refuses both at once.
#[test]
fn at_max_hits_a_character_is_incapacitated_unless_stated_revived() {
    let refused = |r: Request| {
        calculator::compute(&r, AdvantageRule::ExtraDie, &mut Draws::seeded(1).stream())
            .expect_err("refused")
            .to_string()
    };
    for full_day in [false, true] {
        let why = refused(rest(2, 0, false, full_day, Some(20)));
        assert!(why.contains("--incapacitated") && why.contains("--revived"), "{why}");
        assert!(!why.contains('§'), "players' words: {why}");
    }
    let why = refused(revived(rest(2, 0, true, true, None)));
    assert!(why.contains("--incapacitated") && why.contains("--revived"), "{why}");
    // Below Max Hits nothing needs saying.
    assert!(matches!(
        answer(rest(1, 0, false, true, None)),
        Answer::Rest { outcome: RestOutcome::FullyHealed, .. }
    ));
}
