//! The §6 Decisions on specials that an independent audit found the engine and the calculator
//! disagreeing on: two Dig Two Graves in one pair, which loss a special means, identical
//! I Already Know cancelling, and Yojimbo naming a character who loses nothing.

mod common;

use common::*;
use iron_triangle::effects::{self, forbidden_actions};
use iron_triangle::special::Special;
use iron_triangle::turn::{self, Contender, Play};
use iron_triangle::windows::SpecialCard;
use iron_triangle::{Action, Command, FighterId, Move, Phase, Stance, Step};
use proptest::prelude::*;

/// A level-5 NPC knowing every move, with `specials`.
fn npc5(name: &str, energy: iron_triangle::Energy, specials: &[Special]) -> iron_triangle::Character {
    let mut c = npc_all(name, energy);
    c.level = 5;
    c.specials = specials.to_vec();
    c
}

/// A 1v1 where the PC "p" plays A (level 10, every move) against the GM's B.
fn duel(a_specials: &[Special], b: iron_triangle::Character) -> Game {
    let mut a = npc5("A", en(5, 5, 5), a_specials);
    a.level = 10;
    Build::new().pc("p", a).npc(b).table()
}

/// Stances, then both specials before the move (passing any response), then both moves.
fn duel_turn(g: &mut Game, specials: [Option<Special>; 2], stances: [&str; 2], moves: [&str; 2]) {
    let (a, b) = (id(g, "A"), id(g, "B"));
    ok!(*g, seat(g, "p"), stance(stances[0]));
    ok!(*g, seat(g, GM_SEAT), stance(stances[1]));
    assert_eq!(turn(g).step, Step::Window(iron_triangle::Window::BeforeMove));
    let card = |s: Option<Special>| s.map(SpecialCard::new);
    ok!(*g, seat(g, "p"), Command::PlaySpecial { fighter: a, card: card(specials[0]) });
    ok!(*g, seat(g, GM_SEAT), Command::PlaySpecial { fighter: b, card: card(specials[1]) });
    while let Phase::Turn(t) = &g.state().phase {
        if !matches!(t.step, Step::Window(iron_triangle::Window::BeforeMove)) {
            break;
        }
        let waiting = g.awaiting()[0];
        let who = if waiting == seat(g, "p") { a } else { b };
        ok!(*g, waiting, Command::PlaySpecial { fighter: who, card: None });
    }
    ok!(*g, seat(g, "p"), play(moves[0]));
    ok!(*g, seat(g, GM_SEAT), play(moves[1]));
}

fn final_losses(g: &Game) -> [u32; 2] {
    let Phase::Aftermath(a) = &g.state().phase else {
        panic!("aftermath expected, got {:?}", g.state().phase)
    };
    [a.losses[0].total(), a.losses[1].total()]
}

/// Decision (two specials at one place in the list): A's Dig Two Graves ▨ and B's Dig Two
/// Graves ○ apply at once, each from the losses before either. B wins ▨☷ over ○☷: A loses 4;
/// B, acting with ▨, loses A's 4; A, acting with ○, loses B's 0 (not B's mirrored 4).
#[test]
fn dig_two_graves_of_different_types_apply_at_the_same_time() {
    let (dg, dd) = (Special::DigTwoGraves(Action::Grapple), Special::DigTwoGraves(Action::Defend));
    let wax = |a| Special::WaxOn(a);
    // A plays ○☷ with Dig Two Graves ▨; B plays ▨☷ with Dig Two Graves ○.
    let mut g = duel(&[wax(Action::Grapple), dg], npc5("B", en(5, 5, 5), &[wax(Action::Defend), dd]));
    duel_turn(&mut g, [Some(dg), Some(dd)], ["0", "0"], ["○☷", "▨☷"]);
    assert_eq!(final_losses(&g), [4, 4]);
    // The mirror: the same characters with A and B swapped give the same numbers, swapped.
    let mut g = duel(&[wax(Action::Defend), dd], npc5("B", en(5, 5, 5), &[wax(Action::Grapple), dg]));
    duel_turn(&mut g, [Some(dd), Some(dg)], ["0", "0"], ["▨☷", "○☷"]);
    assert_eq!(final_losses(&g), [4, 4]);
}

/// Decision (which loss a special means): Dig Two Graves mirrors the §5.3 loss before energy
/// runs out. B (1 energy of each type) loses 2×3 + 1 + 4 = 11 though it has only 3: A, acting
/// with ▨, loses 11, not 3.
#[test]
fn dig_two_graves_mirrors_the_loss_before_energy_runs_out() {
    let dtg = Special::DigTwoGraves(Action::Grapple);
    let mut b = npc5("B", en(5, 5, 5), &[Special::WaxOn(Action::Grapple), dtg]);
    b.current = Some(en(1, 1, 1));
    let mut g = duel(&[], b);
    duel_turn(&mut g, [None, Some(dtg)], ["2 grapple", "1 defend"], ["▨☰", "○☷"]);
    assert_eq!(final_losses(&g), [11, 11]);
}

/// Decision (which loss a special means), earlier edition: Vampire regains the opponent's
/// whole §5.3 loss, not only what its energy could pay.
#[test]
fn vampire_regains_the_loss_before_energy_runs_out() {
    let vampire = Special::Vampire(Action::Grapple);
    let (pair, plays) = ([FighterId(0), FighterId(1)], [Play::Move(mv("▨☰")), Play::Move(mv("○☷"))]);
    let stances = [st("2▨"), st("1○")];
    let result =
        turn::resolve(&[Contender::plain(stances[0], plays[0]), Contender::plain(stances[1], plays[1])]);
    let s = effects::settle(pair, stances, plays, &result, &[(FighterId(0), SpecialCard::new(vampire))]);
    assert_eq!(s.extras.len(), 1);
    assert_eq!(s.extras[0].amount, 11, "B's whole loss, whatever B has left");
}

/// Decision: identical I Already Know (Premonition) played by both of a pair cancel: neither
/// forbids a move. A lone one forbids its action to the opponent.
#[test]
fn identical_i_already_know_of_the_pair_forbid_nothing() {
    let iak = |a| Some(SpecialCard::new(Special::IAlreadyKnow(a)));
    assert_eq!(forbidden_actions([iak(Action::Grapple), iak(Action::Grapple)]), [None, None]);
    assert_eq!(forbidden_actions([iak(Action::Grapple), None]), [None, Some(Action::Grapple)]);
    assert_eq!(
        forbidden_actions([iak(Action::Grapple), iak(Action::Attack)]),
        [Some(Action::Attack), Some(Action::Grapple)]
    );
    // Another special of the opponent's does not cancel it.
    assert_eq!(
        forbidden_actions([iak(Action::Defend), Some(SpecialCard::new(Special::Scouter))]),
        [None, Some(Action::Defend)]
    );
}

/// The same in play: both of the pair play I Already Know ▨ before the stance; the engine
/// cancels both and neither may be refused a ▨ move.
#[test]
fn identical_i_already_know_in_play_cancel_and_forbid_nothing() {
    let iak = Special::IAlreadyKnow(Action::Grapple);
    let mut a = npc5("A", en(5, 5, 5), &[iak]);
    a.level = 10;
    let mut b = npc5("B", en(5, 5, 5), &[iak]);
    b.level = 10;
    let mut g = Build::new().pc("p", a).npc(b).table();
    let (ia, ib) = (id(&g, "A"), id(&g, "B"));
    assert_eq!(turn(&g).step, Step::Window(iron_triangle::Window::BeforeStance));
    ok!(g, seat(&g, "p"), Command::PlaySpecial { fighter: ia, card: Some(SpecialCard::new(iak)) });
    ok!(g, seat(&g, GM_SEAT), Command::PlaySpecial { fighter: ib, card: Some(SpecialCard::new(iak)) });
    ok!(g, seat(&g, "p"), stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    ok!(g, seat(&g, "p"), play("▨☲"));
    ok!(g, seat(&g, GM_SEAT), play("▨☰"));
}

/// Decision: Yojimbo may name a character that turns out to lose nothing; it has no effect
/// and still counts as used.
#[test]
fn yojimbo_naming_a_character_who_loses_nothing_has_no_effect_and_is_used() {
    let mut g = Build::new()
        .pc("p", {
            let mut a = npc5("A", en(5, 5, 5), &[]);
            a.level = 10;
            a
        })
        .npc(npc5("B", en(5, 5, 5), &[]))
        .npc(npc5("C", en(6, 6, 6), &[Special::Yojimbo]))
        .table();
    let (b, c) = (id(&g, "B"), id(&g, "C"));
    ok!(g, seat(&g, "p"), Command::ChooseOpponent { opponent: b });
    ok!(g, seat(&g, "p"), stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    // A plays ○☵, B wins with ▨☷: B loses nothing.
    ok!(g, seat(&g, "p"), play("○☵"));
    ok!(g, seat(&g, GM_SEAT), play("▨☷"));
    assert_eq!(turn(&g).step, Step::Window(iron_triangle::Window::BeforeResolving));
    let card = SpecialCard { special: Special::Yojimbo, target: Some(b), copy: None };
    ok!(g, seat(&g, GM_SEAT), Command::PlaySpecial { fighter: c, card: Some(card) });
    settle(&mut g);
    assert_eq!(energy(&g, "C"), en(6, 6, 6), "C takes nothing");
    assert_eq!(energy(&g, "B"), en(5, 5, 5));
    assert!(g.state().fighter(c).specials_used.contains(&Special::Yojimbo), "Yojimbo counts as used");
}

fn any_move() -> impl Strategy<Value = Move> {
    prop::sample::select(Move::ALL.to_vec())
}

fn any_stance() -> impl Strategy<Value = Stance> {
    (0u8..6, prop::sample::select(Action::ALL.to_vec()))
        .prop_map(|(amount, action)| if amount == 0 { Stance::NONE } else { Stance { amount, action } })
}

fn any_loss_special() -> impl Strategy<Value = Option<Special>> {
    let a = prop::sample::select(Action::ALL.to_vec());
    prop_oneof![
        Just(None),
        Just(Some(Special::PressurePoint)),
        a.clone().prop_map(|x| Some(Special::WaxOn(x))),
        a.clone().prop_map(|x| Some(Special::Parry(x))),
        a.clone().prop_map(|x| Some(Special::SantaCarla(x))),
        a.clone().prop_map(|x| Some(Special::Vampire(x))),
        a.prop_map(|x| Some(Special::DigTwoGraves(x))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Decision (two specials at one place in the list): the settlement never depends on
    /// which of the pair is called A.
    #[test]
    fn settling_specials_does_not_depend_on_who_is_a(
        moves in [any_move(), any_move()],
        stances in [any_stance(), any_stance()],
        specials in [any_loss_special(), any_loss_special()],
    ) {
        let plays = moves.map(Play::Move);
        let settle = |order: [usize; 2]| {
            let pair = [FighterId(0), FighterId(1)];
            let st = order.map(|i| stances[i]);
            let pl = order.map(|i| plays[i]);
            let result = turn::resolve(&[Contender::plain(st[0], pl[0]), Contender::plain(st[1], pl[1])]);
            let effects: Vec<(FighterId, SpecialCard)> = (0..2)
                .filter_map(|p| specials[order[p]].map(|s| (pair[p], SpecialCard::new(s))))
                .collect();
            let cancelled = effects.len() == 2 && effects[0].1.cancels(effects[1].1);
            let effects = if cancelled { Vec::new() } else { effects };
            effects::settle(pair, st, pl, &result, &effects)
        };
        let ab = settle([0, 1]);
        let ba = settle([1, 0]);
        prop_assert_eq!(ab.losses, [ba.losses[1], ba.losses[0]]);
        let amounts = |s: &effects::Settlement, who: u8| -> Vec<(effects::ExtraKind, u32)> {
            s.extras.iter().filter(|e| e.fighter == FighterId(who)).map(|e| (e.kind, e.amount)).collect()
        };
        prop_assert_eq!(amounts(&ab, 0), amounts(&ba, 1));
        prop_assert_eq!(amounts(&ab, 1), amounts(&ba, 0));
    }
}

/// A and B (level 10, each knowing Liquid Metal and `extra`), with `used` already played in
/// this conflict, as (character, special) pairs: the first turn is A's.
fn liquid_duel(extra: &[Special], used: &[(&str, Special)]) -> Game {
    let mut a = npc5("A", en(5, 5, 5), &[&[Special::LiquidMetal], extra].concat());
    a.level = 10;
    let mut b = npc5("B", en(5, 5, 5), &[Special::LiquidMetal]);
    b.level = 10;
    let mut c = Build::new().pc("p", a).npc(b).conflict();
    c.specials_played = used.iter().map(|&(who, s)| (cid(&c, who), s)).collect();
    Game::new(c)
}

fn copy(special: Special, copied: Special, target: Option<FighterId>) -> Option<SpecialCard> {
    Some(SpecialCard { special, target, copy: Some(copied) })
}

/// Decision (Liquid Metal), §6: "two Liquid Metals are identical only when they copy the same
/// special (the same variant): two Liquid Metals copying different specials both act" (the
/// audit's reproduction `it_lm_different_copies`, turn 2: one copies I Already Know ◆, the
/// other There Can Be Only One).
#[test]
fn two_liquid_metals_copying_different_specials_both_act() {
    let lm = Special::LiquidMetal;
    let iak = Special::IAlreadyKnow(Action::Attack);
    let tcboo = Special::ThereCanBeOnlyOne;
    let mut g = liquid_duel(&[], &[("A", tcboo), ("B", iak)]);
    let (ia, ib) = (id(&g, "A"), id(&g, "B"));
    // Each copies what the other used (not its own): nothing for A before the opponent.
    assert_eq!(turn(&g).step, Step::Window(iron_triangle::Window::BeforeStance));
    ok!(g, seat(&g, "p"), Command::PlaySpecial { fighter: ia, card: copy(lm, iak, None) });
    let events =
        ok!(g, seat(&g, GM_SEAT), Command::PlaySpecial { fighter: ib, card: copy(lm, tcboo, Some(ia)) });
    let revealed: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            iron_triangle::Event::SpecialRevealed { fighter, cancelled, .. } => Some((*fighter, *cancelled)),
            _ => None,
        })
        .collect();
    assert_eq!(revealed, vec![(ib, false), (ia, false)], "{events:?}");
    assert_eq!(g.state().bonds, vec![[ib, ia]], "B's copy of There Can Be Only One binds");
    assert_eq!(g.state().forbidden_action(turn(&g), ib), Some(Action::Attack), "A's copy forbids ◆");
    // Two Liquid Metals copying the same special are identical: they cancel.
    let mut g = liquid_duel(&[], &[("A", iak), ("B", iak)]);
    ok!(g, seat(&g, "p"), Command::PlaySpecial { fighter: ia, card: copy(lm, iak, None) });
    let events = ok!(g, seat(&g, GM_SEAT), Command::PlaySpecial { fighter: ib, card: copy(lm, iak, None) });
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, iron_triangle::Event::SpecialRevealed { cancelled: true, .. }))
            .count(),
        2,
        "{events:?}"
    );
    assert_eq!(g.state().forbidden_action(turn(&g), ia), None);
    assert_eq!(g.state().forbidden_action(turn(&g), ib), None);
}

/// Decision (Liquid Metal), §6: "it may copy any special another character used in this
/// conflict except 11 and 12, To Blave included (the copy is then a bluff with no effect;
/// Liquid Metal is spent)". Like To Blave, the copy is played where another special its player
/// knows could be, and before the move it waits face down with the cards revealed before
/// resolving.
#[test]
fn liquid_metal_may_copy_to_blave_as_a_bluff() {
    let lm = Special::LiquidMetal;
    let blave = Special::ToBlave;
    let mut g = liquid_duel(&[Special::PressurePoint], &[("B", blave)]);
    let (ia, ib) = (id(&g, "A"), id(&g, "B"));
    ok!(g, seat(&g, "p"), stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    assert_eq!(turn(&g).step, Step::Window(iron_triangle::Window::BeforeMove));
    let bluff = copy(lm, blave, None);
    assert!(legal(&g, seat(&g, "p")).contains(&Command::PlaySpecial { fighter: ia, card: bluff }));
    ok!(g, seat(&g, "p"), Command::PlaySpecial { fighter: ia, card: bluff });
    ok!(g, seat(&g, GM_SEAT), Command::PlaySpecial { fighter: ib, card: None });
    ok!(g, seat(&g, GM_SEAT), Command::PlaySpecial { fighter: ib, card: None });
    assert_eq!(turn(&g).step, Step::Move, "the bluff waits face down for the moves");
    ok!(g, seat(&g, "p"), play("▨☷"));
    let events = ok!(g, seat(&g, GM_SEAT), play("○☷"));
    assert!(
        events.contains(&iron_triangle::Event::SpecialRevealed {
            fighter: ia,
            card: bluff.unwrap(),
            cancelled: false
        }),
        "{events:?}"
    );
    // No effect: B's loss is the plain 4 (▨ base), and A spreads nothing of it.
    assert_eq!(final_losses(&g), [0, 4]);
    let a = g.state().fighter(ia);
    assert!(a.specials_used.contains(&lm), "Liquid Metal is spent");
    assert_eq!(a.blaves, 0, "the copy is not one of A's own To Blaves");
    // A cannot copy it where no other special of A's could be played (before the stance).
    let mut g = liquid_duel(&[Special::PressurePoint], &[("B", blave)]);
    ok!(g, seat(&g, "p"), stance("0"));
    let e = refused!(g, seat(&g, "p"), Command::PlaySpecial { fighter: ia, card: copy(lm, blave, None) });
    assert!(matches!(e, iron_triangle::RuleError::OutOfTurn { .. }), "{e:?}");
}

/// §5.6 Decision (the winner went out in its own winning turn, e.g. through Dig Two Graves):
/// "its side still keeps the turn; whoever controls the winner chooses among that side's
/// active characters (equal turns apply)".
#[test]
fn the_winner_out_in_its_own_winning_turn_keeps_the_turn_for_its_side() {
    let dtg = Special::DigTwoGraves(Action::Attack);
    let mut g = Build::new()
        .pc("p1", with_current(pc("A", en(3, 3, 4)), en(1, 0, 1)))
        .pc("p2", pc("A2", en(3, 3, 4)))
        .pc("p3", pc("A3", en(3, 3, 4)))
        .npc(npc5("B", en(6, 6, 6), &[Special::WaxOn(Action::Attack), dtg]))
        .npc(npc_all("B2", en(6, 6, 6)))
        .table();
    let (a, a2, a3, b) = (id(&g, "A"), id(&g, "A2"), id(&g, "A3"), id(&g, "B"));
    let (p1, gm) = (seat(&g, "p1"), seat(&g, GM_SEAT));
    ok!(g, p1, Command::TakeFirstTurn { fighter: a });
    ok!(g, p1, Command::ChooseOpponent { opponent: b });
    ok!(g, p1, stance("0"));
    ok!(g, gm, stance("0"));
    assert_eq!(turn(&g).step, Step::Window(iron_triangle::Window::BeforeMove));
    ok!(g, p1, Command::PlaySpecial { fighter: a, card: None });
    ok!(g, gm, Command::PlaySpecial { fighter: b, card: Some(SpecialCard::new(dtg)) });
    ok!(g, p1, Command::PlaySpecial { fighter: a, card: None });
    // A wins ◆ over ▨: B loses 3, and Dig Two Graves ◆ makes A lose as much: A goes out.
    ok!(g, p1, play("◆☲"));
    ok!(g, gm, play("▨☷"));
    settle(&mut g);
    assert!(!g.state().fighter(a).is_in(), "A went out in its own winning turn");
    assert_eq!(g.awaiting(), vec![p1], "A's player still passes the turn");
    assert_eq!(legal(&g, p1), vec![Command::PassTurn { to: a2 }, Command::PassTurn { to: a3 }]);
    let e = refused!(g, gm, Command::PassTurn { to: b });
    assert!(matches!(e, iron_triangle::RuleError::OutOfTurn { .. }), "{e:?}");
    ok!(g, p1, Command::PassTurn { to: a3 });
    assert_eq!(turn(&g).active, a3);
}

/// Decision (Liquid Metal), §6: "for the cancelling rule a copy is not identical to the
/// original": A's Liquid Metal copying I Already Know ◆ and B's own I Already Know ◆ in one
/// window both act (found by `resolve_agrees_with_the_engine_on_random_turns` at 1,000 cases,
/// with Mimic copying Vampire against Vampire: there the calculator, which names only the
/// copied special, had cancelled both).
#[test]
fn a_liquid_metal_copy_and_its_original_both_act() {
    let lm = Special::LiquidMetal;
    let iak = Special::IAlreadyKnow(Action::Attack);
    let mut a = npc5("A", en(5, 5, 5), &[lm]);
    a.level = 10;
    let mut b = npc5("B", en(5, 5, 5), &[iak]);
    b.level = 10;
    let mut c = Build::new().pc("p", a).npc(b).conflict();
    c.specials_played = vec![(cid(&c, "B"), iak)];
    let mut g = Game::new(c);
    let (ia, ib) = (id(&g, "A"), id(&g, "B"));
    assert_eq!(turn(&g).step, Step::Window(iron_triangle::Window::BeforeStance));
    ok!(g, seat(&g, "p"), Command::PlaySpecial { fighter: ia, card: copy(lm, iak, None) });
    let events =
        ok!(g, seat(&g, GM_SEAT), Command::PlaySpecial { fighter: ib, card: Some(SpecialCard::new(iak)) });
    assert!(
        !events.iter().any(|e| matches!(e, iron_triangle::Event::SpecialRevealed { cancelled: true, .. })),
        "{events:?}"
    );
    assert_eq!(g.state().forbidden_action(turn(&g), ia), Some(Action::Attack));
    assert_eq!(g.state().forbidden_action(turn(&g), ib), Some(Action::Attack));
}
