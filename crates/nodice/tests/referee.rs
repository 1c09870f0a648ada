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

// ---------------------------------------------------------------------------------------------
// Worked examples of the calculator (moved from the CLI tests)
// ---------------------------------------------------------------------------------------------

/// An Actor as the referee enters it: `NAME: attribute bid -> targets`.
fn actor(name: &str, attribute: Attribute, bid: u16, targets: &[&str]) -> ActorPlay {
    ActorPlay {
        name: name.into(),
        attribute,
        bid,
        wildcard: false,
        targets: targets.iter().map(|t| (*t).to_owned()).collect(),
        serial: None,
        kind: None,
        wildcards: None,
        values: None,
        damage_aspect: None,
        damage: None,
    }
}

fn with_serial(mut a: ActorPlay, serial: &str) -> ActorPlay {
    a.serial = Some(serial.into());
    a
}

fn hand(stakes: u8, actors: Vec<ActorPlay>) -> HandSheet {
    HandSheet { stakes: Some(stakes), actors, ..HandSheet::default() }
}

/// Three Actors resolve pairwise; Body damage reaches B's single Body Attribute as
/// floor(3/3) = 1 (the partial-Aspect table).
#[test]
fn three_actors_resolve_pairwise_with_partial_aspect_damage() {
    let r = referee::compute(&hand(
        1,
        vec![
            actor("A", Attribute::Fit, 4, &["B", "C"]),
            with_serial(actor("B", Attribute::Pre, 2, &["A"]), "M4(4/4/4)-B4(4/-/-)-S4(4/4/4)"),
            actor("C", Attribute::Rea, 1, &["B"]),
        ],
    ))
    .unwrap();
    assert_eq!(r.pairs.len(), 3);
    let a_to_b = r.strikes.iter().find(|s| s.attacker == "A" && s.target == "B").unwrap();
    assert_eq!((a_to_b.damage, a_to_b.damage_through), (3, Some(1)));
}

/// §3.3: F1 is an object that just has FIT, B1(-/1/-): its bid cap is 1 and Body damage
/// reaches it through its single Attribute (floor(4/3) = 1); a bad shortened serial names the
/// word.
#[test]
fn thing_shortened_notation_in_serials() {
    let mut door = with_serial(actor("Door", Attribute::Fit, 1, &["Kara"]), "F1");
    door.kind = Some(Kind::Abstract);
    door.damage_aspect = Some(Aspect::Spirit);
    let r =
        referee::compute(&hand(1, vec![actor("Kara", Attribute::Str, 4, &["Door"]), door.clone()])).unwrap();
    let kara = r.strikes.iter().find(|s| s.attacker == "Kara").unwrap();
    assert_eq!((kara.damage, kara.damage_through), (4, Some(1)));
    door.serial = Some("FIT-1".into());
    door.bid = 2;
    let e =
        referee::compute(&hand(1, vec![actor("Kara", Attribute::Str, 4, &[]), door.clone()])).unwrap_err();
    assert!(e.to_string().contains("over the cap of 1"), "{e}");
    door.serial = Some("FOO-1".into());
    let e = referee::compute(&hand(1, vec![actor("Kara", Attribute::Str, 4, &[]), door])).unwrap_err();
    assert!(e.to_string().contains("\"FOO\" in the shortened Thing notation is not an Attribute"), "{e}");
}

/// Seed: Pay the Ante Pot. A and B (Mind) both beat C (Body): a pot of 7 is paid round-robin
/// to A and B, 4 and 3.
#[test]
fn worked_example_pot_of_7_between_two_tied_leaders_pays_4_and_3() {
    let mut h = hand(
        2,
        vec![
            actor("A", Attribute::Rea, 1, &["C"]),
            actor("B", Attribute::Kno, 1, &["C"]),
            actor("C", Attribute::Str, 1, &["A"]),
        ],
    );
    h.pot = Some(7);
    let r = referee::compute(&h).unwrap();
    assert_eq!(r.pot_leaders, ["A", "B"]);
    assert_eq!(r.pot_shares, Some(vec![("A".to_owned(), 4), ("B".to_owned(), 3)]));
}

/// Seed Step 3, Bid Cap: a bid never exceeds a Trine Score, and no Trine Score is over 100.
#[test]
fn a_bid_over_100_is_a_clear_error_not_a_panic() {
    let e = referee::compute(&hand(
        5,
        vec![actor("A", Attribute::Str, 65535, &[]), actor("B", Attribute::Pre, 3, &[])],
    ))
    .unwrap_err();
    assert_eq!(e, referee::RefereeError::BidOver100("A".into(), 65535));
}

/// Decision (resolution order, point 5): an Actor eliminated before its turn in the Action
/// Priority order deals nothing (the audit's `nd_utg_tie` Hand: B's Mind damage exhausts C
/// before C's turn). The tie for most Dominance wins keeps UTG with A (seed: Step 1).
#[test]
fn an_actor_eliminated_before_its_turn_deals_nothing() {
    let r = referee::compute(&hand(
        1,
        vec![
            with_serial(actor("A", Attribute::Str, 1, &["B"]), "M3(3/3/3)-B3(3/3/3)-S3(3/3/3)"),
            with_serial(actor("B", Attribute::Rea, 3, &["C"]), "M3(3/3/3)-B3(3/3/3)-S3(3/3/3)"),
            with_serial(actor("C", Attribute::Wil, 5, &["B"]), "M1(1/0/0)-B3(3/3/3)-S5(5/5/5)"),
        ],
    ))
    .unwrap();
    assert_eq!(r.strikes[2].void, Some(Void::AttackerOut));
    assert_eq!(r.eliminated, ["C"]);
    assert_eq!((r.next_utg.as_deref(), r.utg_tie), (Some("A"), true));
}

/// The issue 32 Hand: B alone has the most Dominance wins and is eliminated by A's unopposed
/// strike before its turn; C has no serial.
fn leader_out_hand() -> HandSheet {
    hand(
        1,
        vec![
            with_serial(actor("A", Attribute::Kno, 1, &["B"]), "M3(3/3/3)-B3(3/3/3)-S3(3/3/3)"),
            with_serial(actor("B", Attribute::Str, 3, &["A", "C"]), "M1(1/-/-)-B3(3/3/3)"),
            actor("C", Attribute::Wil, 0, &["B"]),
        ],
    )
}

/// Decision "UTG when the leader is out" (§5 Update State), in the calculator: the next UTG is
/// the Actor with the most wins among those still in (A), and the report says why.
#[test]
fn calculator_utg_goes_to_most_wins_among_those_still_in() {
    let r = referee::compute(&leader_out_hand()).unwrap();
    assert_eq!(r.eliminated, ["B"]);
    assert_eq!((r.next_utg.as_deref(), r.utg_tie), (Some("A"), false));
    assert_eq!(r.utg_why, referee::UtgWhy::LeaderOut { leader: "B".into() });
}

/// A void Action lets 0 damage through, whether or not its target's serial is known
/// (`docs/nodice-play.md`: `damage_through` is 0 for a void Action; issue 32).
#[test]
fn a_void_action_lets_0_through_even_without_the_targets_serial() {
    let r = referee::compute(&leader_out_hand()).unwrap();
    let b_to_c = r.strikes.iter().find(|s| s.attacker == "B" && s.target == "C").unwrap();
    assert_eq!((b_to_c.void, b_to_c.damage_through), (Some(Void::AttackerOut), Some(0)));
    // A struck Action on a target without serial or values: unknown.
    let c_to_b = r.strikes.iter().find(|s| s.attacker == "C").unwrap();
    assert_eq!(c_to_b.void, None);
    let a_to_b = r.strikes.iter().find(|s| s.attacker == "A").unwrap();
    assert_eq!(a_to_b.damage_through, Some(1), "B's one Mind Attribute: at least 1 through");
}
