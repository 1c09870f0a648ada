//! The specials that change a turn's losses (rules reference §6, §11): each effect, the order
//! of reveal, and the clashes between them (later on the list prevails).

mod common;

use common::*;
use iron_triangle::special::{Edition, Special};
use iron_triangle::windows::SpecialCard;
use iron_triangle::{Action, Command, Event, Phase, RuleError, Step};

/// A level-5 NPC knowing every move, with `specials`.
fn npc5(name: &str, energy: iron_triangle::Energy, specials: &[Special]) -> iron_triangle::Character {
    let mut c = npc_all(name, energy);
    c.level = 5;
    c.specials = specials.to_vec();
    c
}

fn card(special: Special, target: Option<iron_triangle::FighterId>) -> Option<SpecialCard> {
    Some(SpecialCard { special, target, copy: None })
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
    assert!(!e.to_string().contains('§'), "{e}");
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

mod liquid_metal {
    use super::*;
    use iron_triangle::Conflict;

    /// What a turn left behind, to compare a special with its copy.
    #[derive(Debug, PartialEq)]
    struct Outcome {
        played: bool,
        losses: Option<[iron_triangle::Loss; 2]>,
        spreaders: Option<[Option<iron_triangle::FighterId>; 2]>,
        energies: Vec<iron_triangle::Energy>,
        bonds: Vec<[iron_triangle::FighterId; 2]>,
        scouted: Vec<Vec<table::SeatId>>,
    }

    /// A (PC, level 10, all nine three-element moves) against B, with C, B's ally. A knows
    /// `x`, or Liquid Metal with `x` already used by B. A plays its card in the first window
    /// that offers it; everyone else passes. `a_wins` picks the moves.
    fn run(x: Special, copy: bool, a_wins: bool) -> Outcome {
        let mut a = sheet("A", 10, en(5, 5, 5), &NINE, &[]);
        a.specials = if copy { vec![Special::LiquidMetal] } else { vec![x] };
        if let Some(pre) = x.prerequisite(Edition::Current).filter(|_| !copy) {
            a.specials.push(pre);
        }
        let mut c: Conflict = Build::new()
            .pc("p", a)
            .pc("q", pc("D", en(4, 3, 3)))
            .npc(npc5("B", en(6, 6, 6), &[]))
            .npc(npc5("C", en(6, 6, 6), &[]))
            .conflict();
        if copy {
            c.specials_played.push((cid(&c, "B"), x));
        }
        let mut g = Game::new(c);
        ok!(g, seat(&g, "p"), Command::TakeFirstTurn { fighter: id(&g, "A") });
        let mut played = false;
        let b = id(&g, "B");
        // Windows, opponent, stances and moves; A plays its card once, when first offered.
        for _ in 0..40 {
            let Phase::Turn(t) = &g.state().phase else { break };
            let waiting = g.awaiting();
            let Some(&s) = waiting.first() else { break };
            let cmds = legal(&g, s);
            let cmd = match t.step {
                Step::Window(_) => cmds
                    .iter()
                    .find(|c| {
                        !played
                            && matches!(c, Command::PlaySpecial { card: Some(k), .. }
                                if k.effective() == x && k.target.is_none_or(|t| t == b || t == id(&g, "B")))
                    })
                    .or_else(|| cmds.iter().find(|c| matches!(c, Command::PlaySpecial { card: None, .. })))
                    .copied(),
                Step::Opponent => Some(Command::ChooseOpponent { opponent: b }),
                Step::Stance => Some(stance(if s == seat(&g, "p") { "2 grapple" } else { "1 grapple" })),
                Step::Move => {
                    let wanted = play(match (s == seat(&g, "p"), a_wins) {
                        (true, true) => "▨☷",
                        (false, true) => "▨☲",
                        (true, false) => "▨☲",
                        (false, false) => "▨☷",
                    });
                    // I Already Know may forbid it: then the first move left.
                    Some(if cmds.contains(&wanted) { wanted } else { cmds[0] })
                }
                _ => None,
            };
            let Some(cmd) = cmd else { break };
            if matches!(cmd, Command::PlaySpecial { fighter, card: Some(_) } if fighter == id(&g, "A")) {
                played = true;
            }
            ok!(g, s, cmd);
        }
        let (losses, spreaders) = match &g.state().phase {
            Phase::Aftermath(a) => (Some(a.losses), Some(a.spreaders)),
            _ => (None, None),
        };
        settle(&mut g);
        let st = g.state();
        Outcome {
            played,
            losses,
            spreaders,
            energies: st.ids().map(|f| st.fighter(f).energy).collect(),
            bonds: st.bonds.clone(),
            scouted: st.ids().map(|f| st.fighter(f).scouted_by.clone()).collect(),
        }
    }

    #[test]
    fn liquid_metal_copies_every_copyable_special_to_the_same_effect() {
        let copyable: Vec<Special> =
            Special::all().into_iter().filter(|s| s.copyable() && s.in_edition(Edition::Current)).collect();
        assert!(copyable.len() >= 15, "{copyable:?}");
        for x in copyable {
            if x == Special::Yojimbo || x == Special::ToBlave {
                // A is of the pair; Yojimbo is checked on its own below. A copy of To Blave is
                // a bluff (tests/special_decisions.rs).
                continue;
            }
            for a_wins in [true, false] {
                let original = run(x, false, a_wins);
                let copied = run(x, true, a_wins);
                assert!(original.played, "{x} was never offered to A");
                assert!(copied.played, "Liquid Metal did not offer a copy of {x}");
                assert_eq!(copied, original, "Liquid Metal copying {x} (A wins: {a_wins})");
            }
        }
    }

    #[test]
    fn liquid_metal_copies_only_what_another_character_used() {
        let mut a = sheet("A", 10, en(5, 5, 5), &NINE, &[]);
        a.specials = vec![Special::LiquidMetal];
        let mut c: Conflict = Build::new().pc("p", a).npc(npc5("B", en(6, 6, 6), &[])).conflict();
        // Nothing used yet, and what A itself used does not count: no window opens for A.
        c.specials_played.push((cid(&c, "A"), Special::Scouter));
        let g = Game::new(c.clone());
        assert_ne!(turn(&g).step, Step::Window(iron_triangle::Window::BeforeOpponent));
        // The specials after Liquid Metal on the list cannot be copied.
        c.specials_played =
            vec![(cid(&c, "B"), Special::DrunkenMonkey), (cid(&c, "B"), Special::WayOfTheSamurai)];
        let g = Game::new(c.clone());
        assert!(!matches!(turn(&g).step, Step::Window(_)));
        // Scouter used by B: A may copy it before the opponent.
        c.specials_played = vec![(cid(&c, "B"), Special::Scouter)];
        let g = Game::new(c);
        assert_eq!(turn(&g).step, Step::Window(iron_triangle::Window::BeforeOpponent));
        let offered = legal(&g, seat(&g, "p"));
        assert!(offered.iter().any(
            |c| matches!(c, Command::PlaySpecial { card: Some(k), .. } if k.copy == Some(Special::Scouter))
        ));
    }

    #[test]
    fn liquid_metal_copies_yojimbo_for_an_ally() {
        let mut g = bodyguard(&[], &[]);
        // C knows Liquid Metal instead of Yojimbo, and A used Yojimbo earlier (a fiction for the test).
        let mut c = g.state().clone();
        let cc = cid(&c, "C");
        let mut sheet_c = iron_triangle::Character::clone(&c.fighter(cc).character);
        sheet_c.level = 10;
        sheet_c.specials = vec![Special::LiquidMetal];
        c.fighters[usize::from(cc.0)].character = std::sync::Arc::new(sheet_c);
        c.specials_played.push((cid(&c, "A"), Special::Yojimbo));
        g = Game::new(c);
        ok!(g, seat(&g, "p"), Command::ChooseOpponent { opponent: id(&g, "B") });
        ok!(g, seat(&g, "p"), stance("0"));
        ok!(g, seat(&g, GM_SEAT), stance("0"));
        ok!(g, seat(&g, "p"), play("▨☷"));
        ok!(g, seat(&g, GM_SEAT), play("○☵"));
        let (b, cc) = (id(&g, "B"), id(&g, "C"));
        ok!(
            g,
            seat(&g, GM_SEAT),
            Command::PlaySpecial {
                fighter: cc,
                card: Some(SpecialCard {
                    special: Special::LiquidMetal,
                    target: Some(b),
                    copy: Some(Special::Yojimbo)
                })
            }
        );
        settle(&mut g);
        assert_eq!(energy(&g, "B"), en(5, 5, 5));
        assert_eq!(energy(&g, "C").total(), 18 - 4);
    }
}

mod drunken_monkey {
    use super::*;

    fn drunk_duel(seed: u64) -> Game {
        let mut a = sheet("A", 10, en(5, 5, 5), &NINE, &[]);
        a.specials = vec![Special::DrunkenMonkey];
        let b = Build::new().pc("p", a).npc(npc5("B", en(6, 6, 6), &[]));
        let mut setup = b.setup();
        setup.seed = seed;
        Game::new(iron_triangle::Conflict::new(setup).unwrap())
    }

    /// Plays Drunken Monkey before the move, then A ▨☷ against B ○☵; returns the events.
    fn drunk_turn(g: &mut Game) -> Vec<Event> {
        let (a, b) = (id(g, "A"), id(g, "B"));
        let mut events = ok!(*g, seat(g, "p"), stance("0"));
        events.extend(ok!(*g, seat(g, GM_SEAT), stance("0")));
        events.extend(ok!(
            *g,
            seat(g, "p"),
            Command::PlaySpecial { fighter: a, card: card(Special::DrunkenMonkey, None) }
        ));
        events.extend(ok!(*g, seat(g, GM_SEAT), Command::PlaySpecial { fighter: b, card: None }));
        events.extend(ok!(*g, seat(g, GM_SEAT), Command::PlaySpecial { fighter: b, card: None }));
        events.extend(ok!(*g, seat(g, "p"), play("▨☷")));
        events.extend(ok!(*g, seat(g, GM_SEAT), play("○☵")));
        events
    }

    #[test]
    fn drunken_monkey_offers_a_swap_after_the_reveal_and_marks_a_sit_out() {
        let mut g = drunk_duel(1);
        drunk_turn(&mut g);
        let a = id(&g, "A");
        assert!(g.state().fighter(a).drunken && g.state().fighter(a).sits_out_next);
        assert_eq!(turn(&g).step, Step::Swap);
        assert_eq!(g.awaiting(), vec![seat(&g, "p")]);
        assert_eq!(
            legal(&g, seat(&g, "p")),
            vec![Command::DrunkenSwap { swap: false }, Command::DrunkenSwap { swap: true }]
        );
        let events = ok!(g, seat(&g, "p"), Command::DrunkenSwap { swap: true });
        let Event::SwapDecided { to: Some(to), .. } = events[0] else { panic!("{events:?}") };
        assert_ne!(to, mv("▨☷"), "a different move");
        assert!(g.state().fighter(a).known.contains(to));
        // The turn resolves with the drawn move.
        let resolved = resolved(&events);
        assert_eq!(resolved, {
            let b = g.state();
            let Phase::Aftermath(af) = &b.phase else { panic!() };
            af.result
        });
        let Phase::Aftermath(af) = &g.state().phase else { panic!("aftermath") };
        assert_eq!(af.plays[0], iron_triangle::Play::Move(to));
    }

    #[test]
    fn drunken_monkey_draws_are_seeded_and_replay() {
        let draw = |seed| {
            let mut g = drunk_duel(seed);
            drunk_turn(&mut g);
            let events = ok!(g, seat(&g, "p"), Command::DrunkenSwap { swap: true });
            let replayed = Game::replay(g.initial().clone(), g.log().to_vec());
            assert_eq!(replayed.state(), g.state());
            match events[0] {
                Event::SwapDecided { to, .. } => to,
                _ => None,
            }
        };
        assert_eq!(draw(5), draw(5));
        let draws: std::collections::HashSet<_> = (0..16).map(draw).collect();
        assert!(draws.len() > 1, "different seeds draw different moves: {draws:?}");
    }

    #[test]
    fn keeping_the_move_is_allowed_and_the_swap_comes_once_a_turn() {
        let mut g = drunk_duel(2);
        drunk_turn(&mut g);
        let events = ok!(g, seat(&g, "p"), Command::DrunkenSwap { swap: false });
        assert!(matches!(events[0], Event::SwapDecided { to: None, .. }));
        assert!(!matches!(g.state().phase, Phase::Turn(ref t) if t.step == Step::Swap));
        let e = refused!(g, seat(&g, "p"), Command::DrunkenSwap { swap: true });
        assert!(matches!(e, RuleError::OutOfTurn { .. }) && !e.to_string().contains('§'), "{e}");
    }
}

/// Found by the calculator's author: Santa Carla needs a real win; a surrender's other side
/// only counts as winner for passing the turn (§5.2 Decision), and nobody's energy changes.
#[test]
fn santa_carla_gains_nothing_when_the_opponent_surrenders() {
    use iron_triangle::turn::{Contender, resolve};
    let sc = Special::SantaCarla(Action::Grapple);
    let stances = [st("2 grapple"), iron_triangle::Stance::NONE];
    let plays = [iron_triangle::Play::Move(mv("▨☰")), iron_triangle::Play::Surrender];
    let result = resolve(&[Contender::plain(stances[0], plays[0]), Contender::plain(stances[1], plays[1])]);
    let ids = [iron_triangle::FighterId(0), iron_triangle::FighterId(1)];
    let s = iron_triangle::effects::settle(ids, stances, plays, &result, &[(ids[0], SpecialCard::new(sc))]);
    assert!(s.extras.is_empty(), "{:?}", s.extras);
}
