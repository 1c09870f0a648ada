//! The specials that change a turn's losses (rules reference §6, §11): each effect, the order
//! of reveal, and the clashes between them (later on the list prevails).

mod common;

use common::*;
use iron_triangle::special::{Edition, Special};
use iron_triangle::windows::SpecialCard;
use iron_triangle::{Action, Command, Event, Phase, Step};

/// A level-5 NPC knowing every move, with `specials`.
fn npc5(name: &str, energy: iron_triangle::Energy, specials: &[Special]) -> iron_triangle::Character {
    let mut c = npc_all(name, energy);
    c.level = 5;
    c.specials = specials.to_vec();
    c
}

fn card(special: Special, target: Option<iron_triangle::FighterId>) -> Option<SpecialCard> {
    Some(SpecialCard { special, target })
}

/// Plays a 1v1 turn where the PC seat "p" (character A) faces the GM's B, each optionally
/// playing a special before the move, then settles with the default spreads.
fn duel_turn(
    g: &mut Game,
    specials: [Option<Special>; 2],
    stances: [&str; 2],
    moves: [&str; 2],
) -> Vec<Event> {
    let (a, b) = (id(g, "A"), id(g, "B"));
    let mut events = Vec::new();
    ok!(*g, seat(g, "p"), stance(stances[0]));
    ok!(*g, seat(g, GM_SEAT), stance(stances[1]));
    assert_eq!(turn(g).step, Step::Window(iron_triangle::Window::BeforeMove), "the before-move window opens");
    events.extend(ok!(
        *g,
        seat(g, "p"),
        Command::PlaySpecial { fighter: a, card: specials[0].and_then(|s| card(s, None)) }
    ));
    events.extend(ok!(
        *g,
        seat(g, GM_SEAT),
        Command::PlaySpecial { fighter: b, card: specials[1].and_then(|s| card(s, None)) }
    ));
    // Those who passed get one response: pass.
    while let Phase::Turn(t) = &g.state().phase {
        if !matches!(t.step, Step::Window(iron_triangle::Window::BeforeMove)) {
            break;
        }
        let waiting = g.awaiting()[0];
        let who = if waiting == seat(g, "p") { a } else { b };
        events.extend(ok!(*g, waiting, Command::PlaySpecial { fighter: who, card: None }));
    }
    events.extend(ok!(*g, seat(g, "p"), play(moves[0])));
    events.extend(ok!(*g, seat(g, GM_SEAT), play(moves[1])));
    events
}

fn duel(a_specials: &[Special], b_specials: &[Special]) -> Game {
    Build::new()
        .pc("p", {
            let mut c = sheet("A", 6, en(5, 5, 5), &NINE, &[]);
            c.specials = a_specials.to_vec();
            c
        })
        .npc(npc5("B", en(5, 5, 5), b_specials))
        .table()
}

#[test]
fn revealed_before_resolving_specials_stay_face_down_until_the_moves_are_revealed() {
    let mut g = duel(&[Special::PressurePoint], &[]);
    let events = duel_turn(&mut g, [Some(Special::PressurePoint), None], ["0", "0"], ["▨☷", "○☵"]);
    let moves = events.iter().position(|e| matches!(e, Event::MovesRevealed { .. })).expect("moves revealed");
    let pp = events.iter().position(|e| matches!(e, Event::SpecialRevealed { .. })).expect("PP revealed");
    assert!(pp > moves, "Pressure Point is revealed after the moves: {events:?}");
}

#[test]
fn pressure_point_hands_the_spread_of_the_opponents_loss_to_its_player() {
    let mut g = duel(&[Special::PressurePoint], &[]);
    duel_turn(&mut g, [Some(Special::PressurePoint), None], ["0", "0"], ["▨☷", "○☵"]);
    // B loses 4 and has energy in all three types: A's seat spreads it.
    assert_eq!(g.awaiting(), vec![seat(&g, "p")]);
    let e = refused!(g, seat(&g, GM_SEAT), Command::SpreadLoss { spread: en(4, 0, 0) });
    assert!(e.to_string().contains("§5.3"), "{e}");
    ok!(g, seat(&g, "p"), Command::SpreadLoss { spread: en(4, 0, 0) });
    assert_eq!(energy(&g, "B"), en(1, 5, 5));
}

#[test]
fn wax_on_removes_the_opponents_stance_from_the_loss() {
    let wax = Special::WaxOn(Action::Grapple);
    let mut g = duel(&[], &[wax]);
    // A wins with 3▨ on ▨☷ (×2 = 6) + base 4: Wax On ▨ leaves only the base.
    duel_turn(&mut g, [None, Some(wax)], ["3 grapple", "0"], ["▨☷", "○☵"]);
    let Phase::Aftermath(a) = &g.state().phase else { panic!("aftermath") };
    assert_eq!((a.result.losses[1].total(), a.losses[1].total()), (10, 4));
}

#[test]
fn santa_carla_regains_the_committed_stance_capped_at_maximum() {
    let sc = Special::SantaCarla(Action::Attack);
    let mut a = sheet("A", 6, en(5, 5, 5), &NINE, &[]);
    a.specials = vec![sc];
    a.current = Some(en(5, 5, 4));
    let mut g = Build::new().pc("p", a).npc(npc5("B", en(5, 5, 5), &[])).table();
    // A commits 3◆ and wins with ◆☲ against ▨☲: regains 3 ◆, but only 1 fits under its maximum.
    duel_turn(&mut g, [Some(sc), None], ["3 attack", "0"], ["◆☲", "▨☲"]);
    settle(&mut g);
    assert_eq!(energy(&g, "A"), en(5, 5, 5));
}

#[test]
fn dig_two_graves_mirrors_your_loss_onto_the_opponent() {
    let dtg = Special::DigTwoGraves(Action::Attack);
    let mut g = duel(&[Special::WaxOn(Action::Attack), dtg], &[]);
    // B wins with ◆☲ over ▨☲: A loses 3; B, whose action was ◆, loses 3 too.
    duel_turn(&mut g, [Some(dtg), None], ["0", "0"], ["▨☲", "◆☲"]);
    let Phase::Aftermath(a) = &g.state().phase else { panic!("aftermath") };
    assert_eq!((a.losses[0].total(), a.losses[1].total(), a.losses[1].mirrored), (3, 3, 3));
}

#[test]
fn clash_wax_on_does_not_reduce_the_loss_dig_two_graves_mirrors() {
    // A has Wax On ▨, B has Dig Two Graves ▨. A wins ▨☷ (2▨) over B's ▨☲ (3▨): B loses
    // 2×2 + 3 + 4 = 11. B's Dig Two Graves (7): A acted with ▨, so A loses 11 as well. A's Wax
    // On (5) takes only B's stance out of A's loss, and the mirrored 11 is not from a stance.
    let (wax, dtg) = (Special::WaxOn(Action::Grapple), Special::DigTwoGraves(Action::Grapple));
    let mut g = duel(&[wax], &[Special::WaxOn(Action::Grapple), dtg]);
    duel_turn(&mut g, [Some(wax), Some(dtg)], ["2 grapple", "3 grapple"], ["▨☷", "▨☲"]);
    let Phase::Aftermath(a) = &g.state().phase else { panic!("aftermath") };
    assert_eq!(a.losses[1].total(), 11);
    assert_eq!((a.losses[0].mirrored, a.losses[0].total()), (11, 11));
}

#[test]
fn identical_specials_of_the_pair_cancel_before_resolving() {
    let wax = Special::WaxOn(Action::Grapple);
    let mut g = duel(&[wax], &[wax]);
    let events = duel_turn(&mut g, [Some(wax), Some(wax)], ["3 grapple", "0"], ["▨☷", "○☵"]);
    assert!(
        events.iter().filter(|e| matches!(e, Event::SpecialRevealed { cancelled: true, .. })).count() == 2
    );
    let Phase::Aftermath(a) = &g.state().phase else { panic!("aftermath") };
    assert_eq!(a.losses[1].total(), 10, "no Wax On: B loses the whole 10");
}

/// 2v1: the PC "p" (A) faces B, whose ally C (a level-5 NPC with Yojimbo) takes B's loss.
fn bodyguard(a_specials: &[Special], b_specials: &[Special]) -> Game {
    Build::new()
        .pc("p", {
            let mut c = sheet("A", 6, en(5, 5, 5), &NINE, &[]);
            c.specials = a_specials.to_vec();
            c
        })
        .npc(npc5("B", en(5, 5, 5), b_specials))
        .npc(npc5("C", en(6, 6, 6), &[Special::Yojimbo]))
        .table()
}

fn yojimbo_window(g: &mut Game) {
    assert_eq!(turn(g).step, Step::Window(iron_triangle::Window::BeforeResolving));
    let (b, c) = (id(g, "B"), id(g, "C"));
    ok!(*g, seat(g, GM_SEAT), Command::PlaySpecial { fighter: c, card: card(Special::Yojimbo, Some(b)) });
}

#[test]
fn yojimbo_moves_an_allys_loss_onto_its_player() {
    let mut g = bodyguard(&[], &[]);
    ok!(g, seat(&g, "p"), Command::ChooseOpponent { opponent: id(&g, "B") });
    ok!(g, seat(&g, "p"), stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    ok!(g, seat(&g, "p"), play("▨☷"));
    ok!(g, seat(&g, GM_SEAT), play("○☵"));
    yojimbo_window(&mut g);
    settle(&mut g);
    assert_eq!(energy(&g, "B"), en(5, 5, 5), "B loses nothing");
    assert_eq!(energy(&g, "C").total(), 18 - 4, "C takes B's 4");
}

#[test]
fn clash_pressure_point_then_yojimbo_the_bodyguard_spreads_its_own_loss() {
    let mut g = bodyguard(&[Special::PressurePoint], &[]);
    ok!(g, seat(&g, "p"), Command::ChooseOpponent { opponent: id(&g, "B") });
    ok!(g, seat(&g, "p"), stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    ok!(
        g,
        seat(&g, "p"),
        Command::PlaySpecial { fighter: id(&g, "A"), card: card(Special::PressurePoint, None) }
    );
    ok!(g, seat(&g, GM_SEAT), Command::PlaySpecial { fighter: id(&g, "B"), card: None });
    ok!(g, seat(&g, GM_SEAT), Command::PlaySpecial { fighter: id(&g, "B"), card: None });
    ok!(g, seat(&g, "p"), play("▨☷"));
    ok!(g, seat(&g, GM_SEAT), play("○☵"));
    yojimbo_window(&mut g);
    // Yojimbo (9) prevails over Pressure Point (4): C's own seat (the GM) spreads C's loss.
    assert_eq!(g.awaiting(), vec![seat(&g, GM_SEAT)]);
    assert!(legal(&g, seat(&g, "p")).is_empty());
    ok!(g, seat(&g, GM_SEAT), Command::SpreadLoss { spread: en(0, 0, 4) });
    assert_eq!(energy(&g, "C"), en(6, 6, 2));
    assert_eq!(energy(&g, "B"), en(5, 5, 5));
}

#[test]
fn clash_dig_two_graves_then_yojimbo_the_mirror_stays_on_the_opponent() {
    // B has Dig Two Graves ◆ and loses to A's ◆; C takes B's loss; A still loses what B lost.
    let dtg = Special::DigTwoGraves(Action::Attack);
    let mut g = bodyguard(&[], &[Special::WaxOn(Action::Attack), dtg]);
    ok!(g, seat(&g, "p"), Command::ChooseOpponent { opponent: id(&g, "B") });
    ok!(g, seat(&g, "p"), stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    ok!(g, seat(&g, "p"), Command::PlaySpecial { fighter: id(&g, "A"), card: None });
    ok!(g, seat(&g, GM_SEAT), Command::PlaySpecial { fighter: id(&g, "B"), card: card(dtg, None) });
    ok!(g, seat(&g, "p"), Command::PlaySpecial { fighter: id(&g, "A"), card: None });
    ok!(g, seat(&g, "p"), play("◆☲"));
    ok!(g, seat(&g, GM_SEAT), play("▨☲"));
    yojimbo_window(&mut g);
    let Phase::Aftermath(a) = &g.state().phase else { panic!("aftermath") };
    assert_eq!(a.losses[0].mirrored, 3, "A, acting with ◆, loses what B would have lost");
    assert_eq!(a.losses[1].total(), 0, "B's loss went to C");
    settle(&mut g);
    assert_eq!(energy(&g, "C").total(), 18 - 3);
    assert_eq!(energy(&g, "A").total(), 15 - 3);
}

fn earlier_duel(a_specials: &[Special]) -> Game {
    let b = Build::new()
        .pc("p", {
            let mut c = sheet("A", 6, en(5, 5, 5), &NINE, &[]);
            c.specials = a_specials.to_vec();
            c
        })
        .npc(npc5("B", en(5, 5, 5), &[]));
    let mut setup = b.setup();
    setup.edition = Edition::Earlier;
    Game::new(iron_triangle::Conflict::new(setup).expect("a valid earlier-edition setup"))
}

#[test]
fn earlier_edition_parry_loses_nothing_at_all() {
    let parry = Special::Parry(Action::Grapple);
    let mut g = earlier_duel(&[parry]);
    // B wins with 3▨ on ▨☷ against A's ○☵: A would lose 10; Parry ▨ makes it 0.
    duel_turn(&mut g, [Some(parry), None], ["0", "3 grapple"], ["○☵", "▨☷"]);
    assert!(
        !matches!(g.state().phase, Phase::Aftermath(_)) || {
            let Phase::Aftermath(a) = &g.state().phase else { unreachable!() };
            a.losses[0].total() == 0
        }
    );
    assert_eq!(energy(&g, "A"), en(5, 5, 5));
}

#[test]
fn earlier_edition_vampire_regains_what_the_opponent_loses() {
    let vampire = Special::Vampire(Action::Grapple);
    let mut a = sheet("A", 6, en(5, 5, 5), &NINE, &[]);
    a.specials = vec![vampire];
    a.current = Some(en(1, 1, 1));
    let b = Build::new().pc("p", a).npc(npc5("B", en(5, 5, 5), &[]));
    let mut setup = b.setup();
    setup.edition = Edition::Earlier;
    let mut g = Game::new(iron_triangle::Conflict::new(setup).unwrap());
    // A wins with ▨☷ (base 4) over ○☵: B loses 4, A regains 4.
    duel_turn(&mut g, [Some(vampire), None], ["0", "0"], ["▨☷", "○☵"]);
    settle(&mut g);
    assert_eq!(energy(&g, "B").total(), 11);
    assert_eq!(energy(&g, "A").total(), 3 + 4);
}
