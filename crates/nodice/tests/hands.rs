//! The worked examples of the rules reference §7 played through the engine, and the Hand's
//! rules step by step (seed: Conflict Procedure), each Decision with a test named after it.

mod common;

use common::*;
use nodice::hand::{UtgPass, UtgReason, next_utg, showdown_total, strike_damage};
use nodice::*;
use table::{SeatId, Table};

fn hand_one(t: &mut Table<NoDice>) {
    commit_aspect(t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(t, "Bandit", "WIL", &["Kara"]).unwrap();
}

#[test]
fn worked_example_hand_1_kara_sweeps_the_bandit() {
    let mut t = start(kara_vs_bandit());
    assert_eq!(t.state().stakes.value(), 1);
    assert_eq!(t.state().utg, ActorId(0), "the initiator is UTG of the first Hand");
    hand_one(&mut t);
    // TD: Body beats Spirit → the pot (1 STR, 1 WIL) goes to Kara.
    assert_eq!(values(&t, "Kara"), [5, 4, 3, 4, 4, 4, 3, 3, 4]);
    assert_eq!(values(&t, "Bandit"), [3, 3, 3, 3, 3, 3, 2, 3, 3]);
    assert_eq!(t.state().jackpot, [0; 9]);
    commit_action(&mut t, "Kara", "STR", 4, true).unwrap();
    commit_action(&mut t, "Bandit", "PRE", 3, false).unwrap();
    let sd = &t.state().showdown;
    assert_eq!(sd.pairs.len(), 1);
    let pair = sd.pairs[0];
    assert_eq!((pair.trine, pair.attribute), (Dominance::Win, Dominance::Win));
    assert_eq!(pair.sweep, [true, false]);
    assert_eq!(pair.totals, [8, 3], "4 + 1 Wildcard + 1 TD + 1 AD + 1 Sweep; the Bandit 3");
    // Action Priority: the Bandit (bid 3) first, its whole total unopposed; then Kara 8 − 3.
    let order: Vec<_> = sd.strikes.iter().map(|s| (s.attacker, s.damage, s.unopposed, s.aspect)).collect();
    assert_eq!(order, vec![(ActorId(1), 3, true, Aspect::Spirit), (ActorId(0), 5, false, Aspect::Body)]);
    // Kara spreads the Bandit's 3 Spirit damage (INT 4 → 1).
    assert_eq!(t.state().spreading(), Some((ActorId(0), Aspect::Spirit, 3)));
    spread(&mut t, "Kara", [0, 0, 3]).unwrap();
    // The Bandit takes 5 Body: STR −3, AGI −2 → B(0/3/1).
    spread(&mut t, "Bandit", [3, 0, 2]).unwrap();
    assert_eq!(values(&t, "Bandit")[3..6], [0, 3, 1]);
    // Bids returned: Kara's STR stack back to 4.
    assert_eq!(values(&t, "Kara"), [5, 4, 3, 4, 4, 4, 3, 3, 1]);
    assert_eq!(t.state().actors[0].stacks[Attribute::Str.index()], 4);
    let s = t.state();
    assert!(s.actors.iter().all(|a| a.is_in()));
    assert_eq!(s.hand, 2);
    assert_eq!(s.utg, ActorId(0), "Kara had 2 Dominance wins, the Bandit 0");
    assert_eq!(s.actors[0].wildcards, 0, "no Wildcard left this Conflict");
    assert!(chips_conserved(s));
}

#[test]
fn worked_example_hand_2_tie_makes_a_jackpot() {
    let mut t = start(kara_vs_bandit());
    hand_one(&mut t);
    commit_action(&mut t, "Kara", "STR", 4, true).unwrap();
    commit_action(&mut t, "Bandit", "PRE", 3, false).unwrap();
    spread(&mut t, "Kara", [0, 0, 3]).unwrap();
    spread(&mut t, "Bandit", [3, 0, 2]).unwrap();
    // Hand 2: both Mind; TD tie → the whole pot becomes the Jackpot.
    commit_aspect(&mut t, "Kara", "REA", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "KNO", &["Kara"]).unwrap();
    let mut jackpot = [0; 9];
    jackpot[Attribute::Rea.index()] = 1;
    jackpot[Attribute::Kno.index()] = 1;
    assert_eq!(t.state().jackpot, jackpot);
    commit_action(&mut t, "Kara", "KNO", 4, false).unwrap();
    commit_action(&mut t, "Bandit", "QUI", 3, false).unwrap();
    assert_eq!(t.state().showdown.pairs[0].totals, [5, 3]);
    let strikes: Vec<_> = t.state().showdown.strikes.iter().map(|s| (s.attacker, s.damage)).collect();
    assert_eq!(strikes, vec![(ActorId(1), 3), (ActorId(0), 2)]);
    spread(&mut t, "Kara", [1, 1, 1]).unwrap();
    // Mind damage to the Bandit may come off the chips bid on QUI.
    spread(&mut t, "Bandit", [0, 0, 2]).unwrap();
    assert_eq!(values(&t, "Bandit")[0..3], [3, 2, 1]);
    assert_eq!(t.state().utg, ActorId(0));
    assert_eq!(t.state().hand, 3);
    assert_eq!(t.state().jackpot, jackpot, "the next Hand's pot starts with the 2-token Jackpot");
    assert!(chips_conserved(t.state()));
    // Hand 3: the Jackpot joins the pot at the reveal and goes to the TD winner.
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "WIL", &["Kara"]).unwrap();
    assert_eq!(t.state().jackpot, [0; 9]);
    // REA and KNO were 3 after Hand 2's damage; each receives its Jackpot token.
    assert_eq!(values(&t, "Kara")[0..2], [4, 4], "Kara receives the REA and KNO tokens");
}

/// Stakes 2, three Actors in a ring: A (Mind) → B, B (Body) → C, C (Spirit) → A.
fn ring() -> Table<NoDice> {
    let mut t = start(brawl(2));
    commit_aspect(&mut t, "A", "REA", &["B"]).unwrap();
    commit_aspect(&mut t, "B", "STR", &["C"]).unwrap();
    commit_aspect(&mut t, "C", "WIL", &["A"]).unwrap();
    t
}

#[test]
fn worked_example_pot_split_three_actors_one_win_each() {
    let t = ring();
    let s = t.state();
    assert_eq!(s.actors.iter().map(|a| a.trine_wins).collect::<Vec<_>>(), [1, 1, 1]);
    // Pot 6 → 2 each, nothing left.
    for a in &s.actors {
        assert_eq!(a.chips(), 36, "{} anted 2 and received 2", a.sheet.name);
    }
    assert_eq!(s.pot, [0; 9]);
    assert_eq!(s.jackpot, [0; 9]);
}

#[test]
fn worked_example_pot_of_7_round_robin_from_utg() {
    // A and B tied leaders (1 TD win each), C none; pot 6 antes + 1 Jackpot token = 7.
    let mut c = Conflict::new(brawl(2)).unwrap();
    c.jackpot[Attribute::Kno.index()] = 1;
    let mut t = Table::<NoDice>::new(c);
    commit_aspect(&mut t, "A", "REA", &["C"]).unwrap();
    commit_aspect(&mut t, "B", "KNO", &["C"]).unwrap();
    commit_aspect(&mut t, "C", "STR", &["A"]).unwrap();
    let paid: Vec<_> = t
        .log()
        .iter()
        .filter_map(|e| match e {
            Event::TokenPaid { to, .. } => Some(*to),
            _ => None,
        })
        .collect();
    assert_eq!(paid, [0, 1, 0, 1, 0, 1, 0].map(ActorId), "round-robin from UTG until the pot is empty");
    let s = t.state();
    assert_eq!(s.actors[0].chips(), 36 - 2 + 4);
    assert_eq!(s.actors[1].chips(), 36 - 2 + 3);
    assert_eq!(s.jackpot, [0; 9]);
}

#[test]
fn pot_draw_is_seeded_and_replays() {
    let draws = |seed| {
        let mut setup = brawl(2);
        setup.seed = seed;
        let mut t = start(setup);
        commit_aspect(&mut t, "A", "REA", &["B"]).unwrap();
        commit_aspect(&mut t, "B", "STR", &["C"]).unwrap();
        commit_aspect(&mut t, "C", "WIL", &["A"]).unwrap();
        let replayed = Table::<NoDice>::replay(t.initial().clone(), t.log().to_vec());
        assert_eq!(replayed.state(), t.state());
        t.log().iter().filter(|e| matches!(e, Event::TokenPaid { .. })).cloned().collect::<Vec<_>>()
    };
    assert_eq!(draws(3), draws(3));
    let differ = (4..20).any(|s| draws(s) != draws(3));
    assert!(differ, "the draw depends on the seed");
}

#[test]
fn decision_pot_token_of_an_attribute_the_receiver_lacks_goes_to_the_jackpot() {
    // The Bandit (no Mind) wins the pot, which holds Kara's REA ante.
    let mut setup = kara_vs_bandit();
    setup.actors[1].statblock = block("R1/0(27/0)-M-(-/-/-)-B3(3/3/3)-S3(3/3/3)");
    let mut t = start(setup);
    commit_aspect(&mut t, "Kara", "REA", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "WIL", &["Kara"]).unwrap();
    let mut expect = [0; 9];
    expect[Attribute::Rea.index()] = 1;
    assert_eq!(t.state().jackpot, expect);
    assert_eq!(values(&t, "Bandit")[6], 3, "its own WIL token came back");
    assert!(chips_conserved(t.state()));
}

#[test]
fn decision_pot_tokens_may_raise_a_value_above_its_built_one() {
    let mut t = start(kara_vs_bandit());
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "STR", &["Kara"]).unwrap();
    // Body vs Body tie: Jackpot. Use Mind vs Body instead on the next Hand.
    commit_action(&mut t, "Kara", "FIT", 0, false).unwrap();
    commit_action(&mut t, "Bandit", "FIT", 0, false).unwrap();
    commit_aspect(&mut t, "Kara", "REA", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "STR", &["Kara"]).unwrap();
    // Kara won TD: the pot is the 2 STR of the Jackpot, her REA and the Bandit's STR; her STR
    // stack goes 3 + 3 = 6, above its built 4.
    assert_eq!(values(&t, "Kara")[Attribute::Str.index()], 6);
    assert_eq!(t.state().actors[0].sheet.statblock.trine_score(Aspect::Body), Some(4));
}

#[test]
fn ante_comes_from_one_attribute_of_the_aspect_played() {
    let mut t = start(kara_vs_bandit());
    let kara = ActorId(0);
    let err = t
        .submit(
            SeatId(0),
            &Command::CommitAspect {
                actor: kara,
                aspect: Aspect::Mind,
                ante: Attribute::Str,
                targets: Targets::one(ActorId(1)),
                intent: None,
            },
        )
        .unwrap_err();
    assert_eq!(err, RuleError::OutsideAspect { attribute: Attribute::Str, aspect: Aspect::Mind, step: 2 });
    let mut setup = brawl(3);
    setup.actors[0].statblock = block("M2(2/2/2)-B4(4/4/4)-S4(4/4/4)");
    let mut t = start(setup);
    assert_eq!(
        commit_aspect(&mut t, "A", "REA", &["B"]),
        Err(RuleError::AnteShort { attribute: Attribute::Rea, has: 2, ante: 3 })
    );
}

#[test]
fn an_actor_who_cannot_ante_is_eliminated() {
    let mut setup = brawl(3);
    setup.actors[0].statblock = block("M2(2/2/2)-B2(2/2/2)-S2(2/2/2)");
    let t = start(setup);
    assert_eq!(t.state().actors[0].status, Status::CouldNotAnte);
    assert!(t.log().contains(&Event::CouldNotAnte { actor: ActorId(0) }));
    assert_eq!(t.state().committing(), Some(ActorId(1)));
}

#[test]
fn an_actor_who_will_not_ante_withdraws_and_the_conflict_ends_with_one_side() {
    let mut t = start(kara_vs_bandit());
    t.submit(SeatId(0), &Command::Withdraw { actor: ActorId(0) }).unwrap();
    let s = t.state();
    assert_eq!(s.actors[0].status, Status::Withdrew);
    assert!(t.is_over());
    assert_eq!(s.winner(), Some(table::SideId(1)));
}

#[test]
fn commits_go_in_order_from_utg() {
    let mut t = start(kara_vs_bandit());
    assert!(matches!(commit_aspect(&mut t, "Bandit", "WIL", &["Kara"]), Err(RuleError::NotNow(_))));
    assert_eq!(t.awaiting(), vec![SeatId(0)]);
}

#[test]
fn bid_cap_is_the_trine_score_and_the_chips_in_the_stack() {
    let mut t = start(kara_vs_bandit());
    commit_aspect(&mut t, "Kara", "QUI", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "STR", &["Kara"]).unwrap();
    // Kara: Mind TS 4; REA stack 5 → capped by TS; QUI anted 1 but the pot came back.
    assert_eq!(commit_action(&mut t, "Kara", "REA", 5, false), Err(RuleError::OverCap { bid: 5, cap: 4 }));
    assert_eq!(
        commit_action(&mut t, "Kara", "QUI", 4, false),
        Err(RuleError::OverStack { bid: 4, has: 3, attribute: Attribute::Qui })
    );
    assert_eq!(
        commit_action(&mut t, "Kara", "STR", 1, false),
        Err(RuleError::OutsideAspect { attribute: Attribute::Str, aspect: Aspect::Mind, step: 3 })
    );
    commit_action(&mut t, "Kara", "REA", 4, true).unwrap();
    assert_eq!(
        commit_action(&mut t, "Bandit", "STR", 1, true),
        Err(RuleError::NoWildcardPool("Bandit".into()))
    );
}

/// §3.2: NPCs (and abstract Actors) have no Wildcards unless the setup grants some; a
/// Wildcard from an empty pool is refused with an error naming the field.
#[test]
fn a_wildcard_from_an_empty_wildcard_pool_is_refused_naming_the_field() {
    let mut t = start(kara_vs_bandit());
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "STR", &["Kara"]).unwrap();
    commit_action(&mut t, "Kara", "STR", 1, false).unwrap();
    let e = commit_action(&mut t, "Bandit", "STR", 1, true).unwrap_err();
    assert_eq!(e, RuleError::NoWildcardPool("Bandit".into()));
    let msg = e.to_string();
    assert!(msg.contains("Bandit") && msg.contains("`wildcards`"), "{msg}");
    // The same Hand through the referee calculator: refused the same way.
    let sheet = |kind: Option<Kind>, wildcards: Option<u16>| referee::HandSheet {
        stakes: Some(1),
        actors: vec![
            referee::ActorPlay {
                name: "Bandit".into(),
                attribute: Attribute::Str,
                bid: 1,
                wildcard: true,
                targets: vec![],
                serial: Some(BANDIT.into()),
                kind,
                wildcards,
                values: None,
                damage_aspect: None,
                damage: None,
            },
            referee::ActorPlay {
                name: "Kara".into(),
                attribute: Attribute::Str,
                bid: 1,
                wildcard: false,
                targets: vec![],
                serial: Some(KARA.into()),
                kind: Some(Kind::Pc),
                wildcards: None,
                values: None,
                damage_aspect: None,
                damage: None,
            },
        ],
        ..Default::default()
    };
    let e = referee::compute(&sheet(Some(Kind::Npc), None)).unwrap_err();
    assert_eq!(e, referee::RefereeError::NoWildcardPool("Bandit".into()));
    assert!(e.to_string().contains("`wildcards`"));
    assert!(referee::compute(&sheet(Some(Kind::Npc), Some(1))).is_ok(), "a Featured NPC's Wildcard");
    assert!(referee::compute(&sheet(None, None)).is_ok(), "unknown pool: not refused");
}

#[test]
fn wildcard_at_most_one_per_hand_refreshed_once_per_conflict() {
    // A Rank 3 PC has 2 Wildcards for the whole Conflict; one Command spends at most one.
    let mut setup = kara_vs_bandit();
    setup.actors[0] = ActorSheet::new(
        "Kara",
        Kind::Pc,
        block("M9(9/9/9)-B9(9/9/9)-S9(9/9/9)"),
        SeatId(0),
        table::SideId(0),
    );
    let mut t = start(setup);
    assert_eq!(t.state().actors[0].sheet.statblock.rank(), 7);
    assert_eq!(t.state().actors[0].wildcards, 4);
    assert_eq!(showdown_total(3, true, false, false, 1, 1), 4, "a Wildcard adds 1, outside the cap");
    for _ in 0..2 {
        commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
        commit_aspect(&mut t, "Bandit", "STR", &["Kara"]).unwrap();
        commit_action(&mut t, "Kara", "FIT", 0, true).unwrap();
        commit_action(&mut t, "Bandit", "FIT", 0, false).unwrap();
        finish_hand(&mut t);
    }
    assert_eq!(t.state().actors[0].wildcards, 2);
    // A Command carries one Wildcard flag: a second one in the same Hand cannot be expressed.
}

#[test]
fn decision_resolution_order_lower_bidder_strikes_first_unopposed() {
    // Mutual pair, different bids: the lower bidder deals its whole total; then the other
    // deals the Margin.
    assert_eq!(strike_damage(3, 8, true, 3, 4), (3, true));
    assert_eq!(strike_damage(8, 3, true, 4, 3), (5, false));
    // Equal bids and one-way Actions: the Margin, at least 0; equal totals deal nothing.
    assert_eq!(strike_damage(6, 4, true, 2, 2), (2, false));
    assert_eq!(strike_damage(4, 6, false, 1, 5), (0, false));
    assert_eq!(strike_damage(5, 5, true, 3, 3), (0, false));
}

#[test]
fn decision_an_actor_eliminated_before_its_turn_deals_nothing() {
    // Kara's Mind is one chip of REA; the Bandit bids low and strikes her Mind first.
    let mut setup = kara_vs_bandit();
    setup.actors[0].statblock = block("M1(1/-/-)-B4(4/4/4)-S4(4/4/4)");
    setup.stakes = Some(Stakes::new(1).unwrap());
    let mut t = start(setup);
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "REA", &["Kara"]).unwrap();
    // The Bandit won TD and the pot; Kara's STR is 3 after her ante.
    commit_action(&mut t, "Kara", "STR", 3, false).unwrap();
    commit_action(&mut t, "Bandit", "KNO", 1, false).unwrap();
    let s = t.state();
    assert_eq!(s.actors[0].status, Status::Exhausted(Aspect::Mind));
    assert!(t.log().iter().any(|e| matches!(e, Event::StrikeVoid { why: rules::Void::AttackerOut, .. })));
    assert!(t.is_over());
    assert!(chips_conserved(s));
}

#[test]
fn showdown_tie_deals_no_damage() {
    let mut t = start(kara_vs_bandit());
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "STR", &["Kara"]).unwrap();
    commit_action(&mut t, "Kara", "FIT", 2, false).unwrap();
    commit_action(&mut t, "Bandit", "FIT", 2, false).unwrap();
    assert!(t.state().showdown.strikes.iter().all(|s| s.damage == 0));
    assert_eq!(t.state().hand, 2);
}

#[test]
fn damage_to_a_partial_aspect_and_an_object_destroyed() {
    // §7: 2 Body damage to an object B1(-/1/-): floor(2/3) = 0 → 1; FIT 1 → 0: destroyed.
    let mut setup = kara_vs_bandit();
    // The object written in the shortened Thing notation (§3.3): F1 = B1(-/1/-).
    setup.actors[1] = ActorSheet::new("Pot", Kind::Abstract, block("F1"), SeatId(1), table::SideId(1));
    let mut t = start(setup);
    // The GM sees it by its natural serial, the shortened one.
    let gm_view = t.view(table::Viewer::Seat(SeatId(1)));
    assert_eq!(gm_view.actors[1].serial.as_deref(), Some("FIT-1"));
    commit_aspect(&mut t, "Kara", "REA", &["Pot"]).unwrap();
    commit_aspect(&mut t, "Pot", "FIT", &["Kara"]).unwrap();
    // Kara wins TD and takes the FIT token; the Pot's Body is at 0 before any damage.
    assert_eq!(values(&t, "Pot")[Attribute::Fit.index()], 0);
    commit_action(&mut t, "Kara", "REA", 0, false).unwrap();
    let pot = id(&t, "Pot");
    t.submit(
        SeatId(1),
        &Command::CommitAction {
            actor: pot,
            attribute: Attribute::Fit,
            bid: 0,
            wildcard: false,
            open: false,
            damage_aspect: Some(Aspect::Spirit),
        },
    )
    .unwrap();
    assert_eq!(t.state().actors[pot.index()].status, Status::Exhausted(Aspect::Body));
    assert!(t.is_over());
}

#[test]
fn abstract_actors_choose_their_damage_aspect_others_do_not() {
    let mut t = start(kara_vs_bandit());
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "STR", &["Kara"]).unwrap();
    let err = t
        .submit(
            SeatId(0),
            &Command::CommitAction {
                actor: ActorId(0),
                attribute: Attribute::Str,
                bid: 1,
                wildcard: false,
                open: false,
                damage_aspect: Some(Aspect::Mind),
            },
        )
        .unwrap_err();
    assert_eq!(err, RuleError::DamageAspect);
}

#[test]
fn partial_aspect_reduction_applies_to_the_target() {
    let mut setup = kara_vs_bandit();
    setup.actors[1].statblock = block("R20/0(200/0)-M-(-/-/-)-B66(@/@/-)-S-(-/-/-)");
    setup.stakes = Some(Stakes::new(1).unwrap());
    let mut t = start(setup);
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "STR", &["Kara"]).unwrap();
    commit_action(&mut t, "Kara", "AGI", 4, true).unwrap();
    commit_action(&mut t, "Bandit", "STR", 5, false).unwrap();
    // Kara: 4 + 1 + 1 (AD: AGI beats STR) = 6 vs 5, lower bidder: 6 unopposed → floor(12/3) = 4.
    let struck = t.log().iter().find_map(|e| match e {
        Event::Struck { damage, strike }
            if t.state().showdown.strikes[*strike as usize].attacker == ActorId(0) =>
        {
            Some(*damage)
        }
        _ => None,
    });
    assert_eq!(struck, Some(4));
}

#[test]
fn utg_rotates_to_most_dominance_wins_and_stays_on_a_tie() {
    let mut t = start(kara_vs_bandit());
    // Hand 1: the Bandit wins TD (Mind beats Body) and AD (REA beats KNO... REA vs STR ties).
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "REA", &["Kara"]).unwrap();
    commit_action(&mut t, "Kara", "FIT", 0, false).unwrap();
    commit_action(&mut t, "Bandit", "KNO", 0, false).unwrap();
    // TD Bandit; AD: KNO vs FIT tie → Bandit 1 win, Kara 0.
    finish_hand(&mut t);
    assert_eq!(t.state().utg, ActorId(1));
    assert_eq!(t.state().committing(), Some(ActorId(1)));
    // Hand 2: a tie in wins (0–0) keeps the Bandit UTG.
    commit_aspect(&mut t, "Bandit", "STR", &["Kara"]).unwrap();
    commit_aspect(&mut t, "Kara", "AGI", &["Bandit"]).unwrap();
    commit_action(&mut t, "Bandit", "STR", 0, false).unwrap();
    commit_action(&mut t, "Kara", "STR", 0, false).unwrap();
    assert_eq!(t.state().hand, 3);
    assert_eq!(t.state().utg, ActorId(1));
}

#[test]
fn the_gm_ends_the_conflict_when_the_fiction_says_so() {
    let mut t = start(kara_vs_bandit());
    assert_eq!(t.submit(SeatId(0), &Command::EndConflict).unwrap_err(), RuleError::NotGm);
    t.submit(SeatId(1), &Command::EndConflict).unwrap();
    assert!(t.is_over());
    assert_eq!(t.state().ending, Some(Ending::Fiction));
    assert_eq!(t.submit(SeatId(1), &Command::EndConflict).unwrap_err(), RuleError::Over);
}

#[test]
fn bad_commands_leave_the_state_unchanged() {
    let mut t = start(kara_vs_bandit());
    let before = t.state().clone();
    let log = t.log().len();
    for bad in [
        Command::CommitAspect {
            actor: ActorId(0),
            aspect: Aspect::Body,
            ante: Attribute::Str,
            targets: Targets::NONE,
            intent: None,
        },
        Command::CommitAspect {
            actor: ActorId(0),
            aspect: Aspect::Body,
            ante: Attribute::Str,
            targets: Targets::one(ActorId(0)),
            intent: None,
        },
        Command::CommitAspect {
            actor: ActorId(9),
            aspect: Aspect::Body,
            ante: Attribute::Str,
            targets: Targets::one(ActorId(1)),
            intent: None,
        },
        Command::CommitAction {
            actor: ActorId(0),
            attribute: Attribute::Str,
            bid: 1,
            wildcard: false,
            open: false,
            damage_aspect: None,
        },
        Command::SpreadDamage { actor: ActorId(0), spread: [1, 0, 0] },
        Command::Withdraw { actor: ActorId(1) },
    ] {
        assert!(t.submit(SeatId(0), &bad).is_err(), "{bad:?}");
    }
    assert_eq!(t.state(), &before);
    assert_eq!(t.log().len(), log);
}

#[test]
fn decision_sweep_bonus_is_the_stakes_unless_the_options_say_otherwise() {
    let mut t = start(kara_vs_bandit());
    assert_eq!(t.state().sweep_bonus(), 1);
    let mut setup = kara_vs_bandit();
    setup.options.sweep_bonus = Some(3);
    let mut t3 = start(setup);
    for t in [&mut t, &mut t3] {
        hand_one(t);
        commit_action(t, "Kara", "STR", 4, true).unwrap();
        commit_action(t, "Bandit", "PRE", 3, false).unwrap();
    }
    assert_eq!(t.state().showdown.pairs[0].totals, [8, 3]);
    assert_eq!(t3.state().showdown.pairs[0].totals, [10, 3]);
}

#[test]
fn decision_an_attribute_at_0_is_unusable_while_the_aspect_has_chips() {
    let mut setup = kara_vs_bandit();
    setup.actors[0].statblock = block("M4(5/4/3)-B2(1/1/4)-S3(2/3/4)");
    let mut t = start(setup);
    // Kara antes her only STR chip; the Bandit wins the pot (Mind beats Body).
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "REA", &["Kara"]).unwrap();
    assert_eq!(values(&t, "Kara")[Attribute::Str.index()], 0);
    assert_eq!(commit_action(&mut t, "Kara", "STR", 0, false), Err(RuleError::Unusable(Attribute::Str)));
    commit_action(&mut t, "Kara", "AGI", 2, false).unwrap();
}

#[test]
fn decision_utg_passes_on_in_table_order_when_the_staying_utg_is_out() {
    let mut c = Conflict::new(brawl(1)).unwrap();
    c.utg = ActorId(1);
    assert_eq!(c.next_utg(), ActorId(1), "a tie (no wins) keeps UTG");
    c.actors[1].status = Status::Withdrew;
    assert_eq!(c.next_utg(), ActorId(2));
    c.actors[0].trine_wins = 1;
    assert_eq!(c.next_utg(), ActorId(0), "a sole leader takes UTG");
}

#[test]
fn decision_legal_commands_list_game_choices_not_table_talk_or_the_gms_call() {
    let t = start(kara_vs_bandit());
    let mut legal = Vec::new();
    t.legal_commands(SeatId(0), &mut legal);
    // Nine antes (each fixing its Aspect) against the one opponent; withdrawing is accepted
    // but said aloud, not listed while an ante is possible.
    assert_eq!(legal.len(), 9);
    assert!(!legal.contains(&Command::Withdraw { actor: ActorId(0) }));
    let mut events = Vec::new();
    assert!(t.state().decide(SeatId(0), &Command::Withdraw { actor: ActorId(0) }, &mut events).is_ok());
    assert!(legal.iter().all(|c| !matches!(c, Command::CommitAspect { intent: Some(_), .. })));
    t.legal_commands(SeatId(1), &mut legal);
    assert!(legal.is_empty(), "the GM is not asked while Kara commits; end_conflict is never listed");
    // The brawl: every non-empty set of the two opponents.
    let b = start(brawl(1));
    b.legal_commands(SeatId(0), &mut legal);
    assert_eq!(legal.len(), 9 * 3);
}

#[test]
fn decision_the_old_stakes_formula_is_an_option() {
    let mut setup = kara_vs_bandit();
    setup.actors[0].statblock = block("M9(9/9/9)-B9(9/9/9)-S9(9/9/9)");
    assert_eq!(Conflict::new(setup.clone()).unwrap().stakes.value(), 1, "R7: seed formula 1");
    setup.options.stakes_formula = StakesFormula::Old;
    assert_eq!(Conflict::new(setup).unwrap().stakes.value(), 2, "R7: old formula 2");
}

#[test]
fn utg_stays_on_a_tie_of_one_win_each_even_when_the_other_is_first_in_table_order() {
    // Seed Step 1: a tie for most wins keeps UTG with the preceding Hand's UTG. The Bandit
    // initiated (UTG), Kara wins TD (Body beats Spirit), the Bandit AD (WIL beats FIT).
    let mut setup = kara_vs_bandit();
    setup.initiator = ActorId(1);
    let mut t = start(setup);
    commit_aspect(&mut t, "Bandit", "WIL", &["Kara"]).unwrap();
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_action(&mut t, "Bandit", "WIL", 0, false).unwrap();
    commit_action(&mut t, "Kara", "FIT", 0, false).unwrap();
    assert_eq!(t.state().hand, 2);
    let wins: Vec<_> = t.state().actors.iter().map(|a| (a.trine_wins, a.attribute_wins)).collect();
    assert_eq!(wins, [(0, 0), (0, 0)], "the new Hand starts with no wins");
    assert_eq!(t.state().utg, ActorId(1), "1–1: the Bandit stays UTG");
}

#[test]
fn utg_stays_when_others_tie_for_most_wins() {
    // Ring, Stakes 2: 1 TD win each; AD: AGI beats REA (B over A), INT beats REA (C over A),
    // AGI ties INT. A (UTG) 1 win, B 2, C 2: a tie for most wins, so A stays UTG.
    let mut t = ring();
    commit_action(&mut t, "A", "REA", 0, false).unwrap();
    commit_action(&mut t, "B", "AGI", 0, false).unwrap();
    commit_action(&mut t, "C", "INT", 0, false).unwrap();
    let s = t.state();
    let wins: Vec<_> =
        s.order.iter().map(|a| s.actors[a.index()].trine_wins + s.actors[a.index()].attribute_wins).collect();
    assert_eq!(wins, [1, 2, 2]);
    finish_hand(&mut t);
    assert!(t.state().actors.iter().all(|a| a.is_in()));
    assert_eq!(t.state().utg, ActorId(0));
}

/// Seed 002, Step 1 (UTG Assignment): a tie for most Dominance wins keeps UTG where it was,
/// even when one of the tied Actors was eliminated during the Hand (audit reproduction
/// `nd_utg_tie`: B and C tie with 2 wins each, C is eliminated, UTG stays with A).
#[test]
fn utg_stays_on_a_tie_even_when_a_tied_actor_was_eliminated() {
    let mut setup = brawl(1);
    setup.actors[2].statblock = block("M1(1/0/0)-B3(3/3/3)-S5(5/5/5)");
    let mut t = start(setup);
    commit_aspect(&mut t, "A", "STR", &["B"]).unwrap();
    commit_aspect(&mut t, "B", "KNO", &["C"]).unwrap();
    commit_aspect(&mut t, "C", "PRE", &["B"]).unwrap();
    commit_action(&mut t, "A", "STR", 1, false).unwrap();
    commit_action(&mut t, "B", "REA", 3, false).unwrap();
    commit_action(&mut t, "C", "WIL", 5, false).unwrap();
    while t.state().hand == 1 {
        let seat = t.awaiting()[0];
        let mut legal = Vec::new();
        t.legal_commands(seat, &mut legal);
        t.submit(seat, &legal[0]).unwrap();
    }
    assert!(!t.state().actors[2].is_in(), "C is eliminated");
    assert_eq!(t.state().utg, ActorId(0), "UTG stays with A");
}

/// Rules reference §5, Update State, Decision "UTG when the leader is out": B alone has the
/// most Dominance wins (AD over A, TD over C) but A's unopposed Mind strike exhausts B's only
/// Mind Attribute; UTG goes to the Actor with the most wins among those still in, A (1 win),
/// not to the next Actor after B in table order, C (issue 32).
#[test]
fn utg_goes_to_most_wins_among_those_still_in() {
    let mut setup = brawl(1);
    setup.actors[0].statblock = block("M3(3/3/3)-B3(3/3/3)-S3(3/3/3)");
    setup.actors[1].statblock = block("M1(1/-/-)-B3(3/3/3)");
    let mut t = start(setup);
    // B possesses no KNO or Spirit, so no pot token can raise its REA.
    commit_aspect(&mut t, "A", "KNO", &["B"]).unwrap();
    commit_aspect(&mut t, "B", "FIT", &["A", "C"]).unwrap();
    commit_aspect(&mut t, "C", "INT", &["B"]).unwrap();
    commit_action(&mut t, "A", "KNO", 1, false).unwrap();
    commit_action(&mut t, "B", "STR", 3, false).unwrap();
    commit_action(&mut t, "C", "WIL", 0, false).unwrap();
    // Every damage spread is forced (one Attribute each): the Hand plays out at once.
    assert_eq!(t.state().hand, 2);
    assert_eq!(t.state().actors[1].status, Status::Exhausted(Aspect::Mind), "B is eliminated");
    assert_eq!(t.state().utg, ActorId(0), "UTG goes to A, the most wins among those still in");
}

/// Decision "UTG when the leader is out" (§5 Update State), its tie: among those still in, a
/// tie for the most wins keeps UTG with the current UTG if it is one of them, else the first
/// of them in commit order (table order from UTG); a tie for the most wins overall still
/// keeps UTG (counting the eliminated), passing on in table order if the UTG is out.
#[test]
fn utg_tie_among_those_still_in_stays_with_utg_else_first_in_commit_order() {
    let out = |gone: usize| move |i: usize| i != gone;
    let pass = |utg: u8, why| UtgPass { utg: ActorId(utg), why };
    let leader = ActorId(1);
    // B (1) leads with 3 and is out; C (2) and D (3) tie with 1 among those still in.
    let wins = [0, 3, 1, 1];
    assert_eq!(next_utg(&wins, ActorId(3), out(1)), pass(3, UtgReason::LeaderOutTie { leader, stays: true }));
    assert_eq!(
        next_utg(&wins, ActorId(0), out(1)),
        pass(2, UtgReason::LeaderOutTie { leader, stays: false })
    );
    // The leader was UTG: commit order from B is C, D, A.
    assert_eq!(
        next_utg(&[1, 3, 0, 1], leader, out(1)),
        pass(3, UtgReason::LeaderOutTie { leader, stays: false })
    );
    // A single Actor with the most wins among those still in.
    assert_eq!(next_utg(&[2, 3, 0, 1], ActorId(3), out(1)), pass(0, UtgReason::LeaderOut { leader }));
    // A tie for the most wins overall, counting the eliminated B: UTG stays, or passes on.
    assert_eq!(next_utg(&[0, 3, 3, 1], ActorId(0), out(1)), pass(0, UtgReason::Tie));
    assert_eq!(next_utg(&[0, 3, 3, 1], ActorId(1), out(1)), pass(2, UtgReason::TieUtgOut));
    // Nobody still in (the Conflict is over): UTG does not move.
    assert_eq!(next_utg(&[0, 3, 1, 1], ActorId(2), |_| false), pass(2, UtgReason::LeaderOut { leader }));
    // A sole leader still in.
    assert_eq!(next_utg(&[0, 3, 1, 1], ActorId(0), |_| true), pass(1, UtgReason::MostWins));
}

/// Decision 31 (a stalemate ends a Conflict between bots): 10 Hands in a row without damage
/// or elimination end the Conflict as a stalemate, with the count in its event; the option
/// `stalemate_hands` sets the count (0: never).
#[test]
fn stalemate_after_ten_hands_without_damage_or_elimination() {
    let quiet_hand = |t: &mut Table<NoDice>, k: usize| {
        let ante = Attribute::ALL[k % 9];
        let utg = t.state().utg;
        let (first, second) = if utg == ActorId(0) { ("Kara", "Bandit") } else { ("Bandit", "Kara") };
        commit_aspect(t, first, ante.abbrev(), &[second]).unwrap();
        commit_aspect(t, second, ante.abbrev(), &[first]).unwrap();
        commit_action(t, first, ante.abbrev(), 0, false).unwrap();
        commit_action(t, second, ante.abbrev(), 0, false).unwrap();
    };
    let setup = || {
        let mut s = kara_vs_bandit();
        s.actors[0].statblock = Statblock::even(4);
        s.actors[1].statblock = Statblock::even(4);
        s
    };
    let mut t = start(setup());
    for k in 0..9 {
        quiet_hand(&mut t, k);
        assert!(!t.is_over(), "hand {k}");
    }
    quiet_hand(&mut t, 9);
    assert!(t.is_over());
    assert_eq!(t.state().ending, Some(Ending::Stalemate(10)));
    assert!(matches!(t.log().last(), Some(Event::ConflictEnded { ending: Ending::Stalemate(10) })));
    // Switched off: the Conflict goes on.
    let mut s = setup();
    s.options.stalemate_hands = 0;
    let mut t = start(s);
    for k in 0..12 {
        quiet_hand(&mut t, k);
    }
    assert!(!t.is_over());
}

/// Seed Step 3 and the Bluff Space Rule: after the reveal each player may add one short
/// "justification line" for its Actor's Action; it is kept in the log and shown to everyone.
/// One per Actor per Hand, only after its Action was revealed, length-limited, no control
/// characters.
#[test]
fn justification_line_after_the_reveal_is_logged_and_public() {
    let mut t = start(kara_vs_bandit());
    let justify = |t: &mut Table<NoDice>, actor: &str, line: &str| {
        let a = id(t, actor);
        let seat = seat_of(t, actor);
        t.submit(seat, &Command::Justify { actor: a, line: line.into() }).map(|_| ())
    };
    // Before any reveal: refused.
    assert!(matches!(justify(&mut t, "Kara", "I meant it"), Err(RuleError::NotNow(_))));
    commit_aspect(&mut t, "Kara", "WIL", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "STR", &["Kara"]).unwrap();
    commit_action(&mut t, "Kara", "PRE", 0, false).unwrap();
    commit_action(&mut t, "Bandit", "STR", 0, false).unwrap();
    // Hand 1 is revealed (and resolved: no damage at bids of 0 with a tie).
    let line = "but first I must take a sip of my tea";
    justify(&mut t, "Kara", line).unwrap();
    assert!(matches!(
        t.log().last(),
        Some(Event::Justified { actor: ActorId(0), hand: 1, line: l }) if l == line
    ));
    // Public: the GM's and everyone's redacted log keep it.
    let gm = t.state().redact(t.log().last().unwrap(), table::Viewer::Seat(SeatId(1)));
    assert_eq!(gm.as_ref(), t.log().last());
    // One per Actor per Hand; a seat justifies only its own Actors.
    assert!(matches!(justify(&mut t, "Kara", "again"), Err(RuleError::Justification(_))));
    assert!(matches!(
        t.submit(SeatId(0), &Command::Justify { actor: ActorId(1), line: "x".into() }),
        Err(RuleError::NotYourActor { .. })
    ));
    // Length and control characters.
    assert!(matches!(
        justify(&mut t, "Bandit", &"x".repeat(nodice::rules::MAX_JUSTIFICATION + 1)),
        Err(RuleError::Justification(_))
    ));
    assert!(matches!(justify(&mut t, "Bandit", "sneaky\u{1b}[2J"), Err(RuleError::Justification(_))));
    assert!(matches!(justify(&mut t, "Bandit", "   "), Err(RuleError::Justification(_))));
    justify(&mut t, "Bandit", "I was only stretching").unwrap();
    // The save replays through the checked load.
    let saved = t.save();
    assert!(load_checked(saved).is_ok());
}

/// Table talk is said aloud and shown to everyone: an intent with control characters (which
/// could rewrite the other players' screens) is refused, like a justification line's.
#[test]
fn intent_with_control_characters_is_refused() {
    let mut t = start(kara_vs_bandit());
    let e = t
        .submit(
            SeatId(0),
            &Command::CommitAspect {
                actor: ActorId(0),
                aspect: Aspect::Body,
                ante: Attribute::Str,
                targets: Targets::one(ActorId(1)),
                intent: Some("I charge\u{1b}[2J".into()),
            },
        )
        .unwrap_err();
    assert!(matches!(e, RuleError::Intent(_)), "{e}");
    assert!(e.to_string().contains("control character"), "{e}");
}

/// Seed Step 3, Bluff Space Rule, Decision 32: the view says when an Actor may add its
/// justification line, and for which Hand — after its Action's reveal, until it has justified
/// it or the next reveal — so a page never offers a form the rules refuse (issue 34: an old
/// "justify the revealed Action" box stayed in later Hands).
#[test]
fn justification_line_may_come_after_the_latest_reveal_once() {
    let mut t = start(kara_vs_bandit());
    let may = |t: &Table<NoDice>, who: &str| {
        let v = <NoDice as table::Ruleset>::view(t.state(), table::Viewer::Seat(seat_of(t, who)));
        v.actors[id(t, who).index()].may_justify
    };
    assert_eq!(may(&t, "Kara"), None, "not before any reveal");
    commit_aspect(&mut t, "Kara", "WIL", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "STR", &["Kara"]).unwrap();
    commit_action(&mut t, "Kara", "PRE", 0, false).unwrap();
    commit_action(&mut t, "Bandit", "STR", 0, false).unwrap();
    assert_eq!((may(&t, "Kara"), may(&t, "Bandit")), (Some(1), Some(1)), "after the reveal");
    let kara = id(&t, "Kara");
    t.submit(seat_of(&t, "Kara"), &Command::Justify { actor: kara, line: "a sip of tea".into() }).unwrap();
    assert_eq!(may(&t, "Kara"), None, "once justified, no form");
    finish_hand(&mut t);
    assert_eq!(may(&t, "Bandit"), Some(1), "until the next reveal (Decision 32), naming Hand 1");
    while t.state().hand == 2 && !t.is_over() && may(&t, "Kara").is_none() {
        let seat = t.awaiting()[0];
        let mut legal = Vec::new();
        t.legal_commands(seat, &mut legal);
        t.submit(seat, &legal[0]).unwrap();
    }
    assert_eq!(may(&t, "Kara"), Some(2), "the next reveal opens Hand 2's line");
    assert_eq!(may(&t, "Bandit"), Some(2), "and closes Hand 1's");
}
