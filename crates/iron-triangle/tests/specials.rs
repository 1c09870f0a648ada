//! Specials in play (rules reference §6): the timing-window protocol, hidden cards, the effects
//! implemented so far, use limits, clashes, the GM's energy adjustment and the edition option.

mod common;

use common::*;
use iron_triangle::conflict::{SetupError, Window};
use iron_triangle::special::{Edition, Special};
use iron_triangle::view::PhaseView;
use iron_triangle::windows::SpecialCard;
use iron_triangle::{Action, Command, Event, Phase, RuleError, Status, Step};
use table::{Face, Viewer};

fn with_specials(
    mut c: iron_triangle::Character,
    level: u32,
    specials: &[Special],
) -> iron_triangle::Character {
    c.level = level;
    c.specials = specials.to_vec();
    c
}

fn note(text: &str) -> iron_triangle::rules::Note {
    iron_triangle::rules::Note::from(text).expect("a short note")
}

fn card(special: Special) -> Option<SpecialCard> {
    Some(SpecialCard::new(special))
}

fn pass(g: &Game, who: &str) -> Command {
    Command::PlaySpecial { fighter: id(g, who), card: None }
}

fn special(g: &Game, who: &str, special: Special) -> Command {
    Command::PlaySpecial { fighter: id(g, who), card: card(special) }
}

fn window(g: &Game) -> Option<Window> {
    match turn(g).step {
        Step::Window(w) => Some(w),
        _ => None,
    }
}

/// §6: Ada (a PC who knows Scouter) against a bandit; Ada has the first turn.
fn scout_duel() -> Game {
    Build::new()
        .pc("ada", with_specials(pc("Ada", en(3, 2, 5)), 0, &[Special::Scouter]))
        .npc(npc("Bandit", en(4, 3, 3), &["○☵", "▨☷", "◆☲", "◆☷"]))
        .table()
}

#[test]
fn a_window_opens_only_when_someone_could_play_in_it() {
    // Without specials a turn goes straight to the opponent (and here, straight past it).
    let mut plain =
        Build::new().pc("ada", pc("Ada", en(3, 2, 5))).npc(npc_all("Bandit", en(4, 3, 3))).table();
    give_turn(&mut plain, "Ada");
    assert_eq!(turn(&plain).step, Step::Stance);
    // Ada knows Scouter: the before-opponent window opens for her.
    let g = scout_duel();
    assert_eq!(window(&g), Some(Window::BeforeOpponent));
    assert_eq!(g.awaiting(), vec![seat(&g, "ada")]);
}

#[test]
fn window_protocol_choose_then_count_then_respond_then_reveal() {
    let mut g = scout_duel();
    // Before opponent: Ada alone; her pass closes the window (a lone character has no
    // response round: the count would tell her nothing).
    let events = ok!(g, seat(&g, "ada"), pass(&g, "Ada"));
    assert!(events.contains(&Event::CardsCounted { count: 0 }) && events.contains(&Event::WindowClosed));
    // The opponent is chosen by the engine (only one); the before-stance window opens, for
    // the pair: Ada and the bandit.
    assert_eq!(window(&g), Some(Window::BeforeStance));
    let w = turn(&g).window.clone().unwrap();
    assert_eq!(w.participants, vec![id(&g, "Ada"), id(&g, "Bandit")]);
    let events = ok!(g, seat(&g, "ada"), special(&g, "Ada", Special::Scouter));
    assert!(matches!(events[..], [Event::SpecialCommitted { .. }]));
    let events = ok!(g, seat(&g, GM_SEAT), pass(&g, "Bandit"));
    assert!(events.contains(&Event::CardsCounted { count: 1 }), "{events:?}");
    // Only the bandit, who passed, may respond.
    assert_eq!(g.awaiting(), vec![seat(&g, GM_SEAT)]);
    let e = refused!(g, seat(&g, "ada"), pass(&g, "Ada"));
    assert!(matches!(e, RuleError::AlreadyCommitted { .. }), "{e}");
    let events = ok!(g, seat(&g, GM_SEAT), pass(&g, "Bandit"));
    let revealed: Vec<&Event> =
        events.iter().filter(|e| matches!(e, Event::SpecialRevealed { .. })).collect();
    assert_eq!(
        revealed,
        vec![&Event::SpecialRevealed {
            fighter: id(&g, "Ada"),
            card: SpecialCard { special: Special::Scouter, target: None, copy: None },
            cancelled: false
        }]
    );
    assert!(events.contains(&Event::WindowClosed));
    assert_eq!(turn(&g).step, Step::Stance);
}

#[test]
fn a_face_down_special_is_seen_only_by_its_seat_until_the_window_closes() {
    let mut g = scout_duel();
    ok!(g, seat(&g, "ada"), pass(&g, "Ada"));
    ok!(g, seat(&g, "ada"), special(&g, "Ada", Special::Scouter));
    let face = |v: Viewer| match g.view(v).phase {
        PhaseView::Turn { window: Some(w), .. } => w.first[0],
        other => panic!("no window in {other:?}"),
    };
    assert_eq!(face(Viewer::Seat(seat(&g, "ada"))), Face::Known(card(Special::Scouter)));
    assert_eq!(face(Viewer::Seat(seat(&g, GM_SEAT))), Face::FaceDown);
    assert_eq!(face(Viewer::Spectator), Face::FaceDown);
    let gm_json = serde_json::to_string(&g.view(Viewer::Seat(seat(&g, GM_SEAT)))).unwrap();
    // Ada's learned specials are public (she is a PC); the card she put down is not.
    assert!(!gm_json.contains("\"special\":\"scouter\""), "the GM must not see Ada's card: {gm_json}");
    for v in [Viewer::Seat(seat(&g, GM_SEAT)), Viewer::Spectator] {
        // Blanked, not dropped: they see that Ada chose, not what (nor whether she passed).
        // (Each of her two windows so far: a pass, then Scouter.)
        let committed: Vec<Event> =
            g.log_for(v).into_iter().filter(|e| matches!(e, Event::SpecialCommitted { .. })).collect();
        // Her earlier pass and her card look the same.
        let blank = Event::SpecialCommitted { fighter: id(&g, "Ada"), card: None, hidden: true };
        assert_eq!(committed, [blank; 2], "{v:?}");
    }
    assert!(g.log_for(Viewer::Seat(seat(&g, "ada"))).iter().any(
        |e| matches!(e, Event::SpecialCommitted { card: Some(c), hidden: false, .. } if Some(*c) == card(Special::Scouter))
    ));
}

#[test]
fn scouter_shows_the_opponents_sheet_to_that_seat_only() {
    let mut g = Build::new()
        .pc("ada", with_specials(pc("Ada", en(3, 2, 5)), 0, &[Special::Scouter]))
        .pc("bao", pc("Bao", en(4, 3, 3)))
        .npc(npc("Bandit", en(4, 3, 3), &["○☵", "▨☷", "◆☲", "◆☷"]))
        .table();
    ok!(g, seat(&g, "ada"), Command::TakeFirstTurn { fighter: id(&g, "Ada") });
    ok!(g, seat(&g, "ada"), pass(&g, "Ada"));
    let bandit = id(&g, "Bandit");
    let sees =
        |g: &Game, s: &str| g.view(Viewer::Seat(seat(g, s))).fighters[usize::from(bandit.0)].moves.is_some();
    assert!(!sees(&g, "ada") && !sees(&g, "bao"));
    assert_eq!(turn(&g).opponent, Some(bandit), "the only opponent is chosen by the engine");
    ok!(g, seat(&g, "ada"), special(&g, "Ada", Special::Scouter));
    ok!(g, seat(&g, GM_SEAT), pass(&g, "Bandit"));
    ok!(g, seat(&g, GM_SEAT), pass(&g, "Bandit"));
    assert!(sees(&g, "ada"), "Ada's seat learned the bandit's moves");
    assert!(!sees(&g, "bao"), "Bao's seat did not");
    let v = g.view(Viewer::Seat(seat(&g, "ada")));
    assert!(
        v.fighters[usize::from(bandit.0)].specials.is_some()
            && v.fighters[usize::from(bandit.0)].combos.is_some()
    );
}

#[test]
fn there_can_be_only_one_binds_the_pair_until_one_is_out() {
    let tcboo = Special::ThereCanBeOnlyOne;
    let mut g = Build::new()
        .pc("ada", with_specials(pc("Ada", en(3, 2, 5)), 0, &[tcboo]))
        .pc("bao", pc("Bao", en(4, 3, 3)))
        .npc(npc_all("B1", en(2, 0, 0)))
        .npc(npc_all("B2", en(5, 5, 5)))
        .table();
    ok!(g, seat(&g, "ada"), Command::TakeFirstTurn { fighter: id(&g, "Ada") });
    let b1 = id(&g, "B1");
    ok!(
        g,
        seat(&g, "ada"),
        Command::PlaySpecial {
            fighter: id(&g, "Ada"),
            card: Some(SpecialCard { special: tcboo, target: Some(b1), copy: None })
        }
    );
    assert_eq!(g.state().bonds, vec![[id(&g, "Ada"), b1]]);
    // Ada may now face only B1, so the engine chooses B1 for her.
    assert_eq!(turn(&g).opponent, Some(b1));
    let t = turn(&g).clone();
    assert_eq!(g.state().legal_opponents(&t).collect::<Vec<_>>(), vec![b1]);
    // B1 loses everything: the bond ends when one is out.
    ok!(g, seat(&g, "ada"), stance("3 attack"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    ok!(g, seat(&g, "ada"), play("◆☲"));
    ok!(g, seat(&g, GM_SEAT), play("▨☵"));
    settle(&mut g);
    assert_eq!(g.state().fighter(b1).status, Status::Out);
    assert_eq!(g.state().bound_opponents(id(&g, "Ada")).count(), 0);
}

#[test]
fn i_already_know_removes_an_action_from_the_opponents_choices() {
    let iak = Special::IAlreadyKnow(Action::Attack);
    let mut g = Build::new()
        .pc("ada", with_specials(pc("Ada", en(3, 2, 5)), 10, &[iak]))
        .npc(npc_all("Bandit", en(4, 3, 3)))
        .table();
    // Before stance: Ada plays I Already Know ◆; the bandit passes twice.
    ok!(g, seat(&g, "ada"), special(&g, "Ada", iak));
    ok!(g, seat(&g, GM_SEAT), pass(&g, "Bandit"));
    ok!(g, seat(&g, GM_SEAT), pass(&g, "Bandit"));
    ok!(g, seat(&g, "ada"), stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    let moves: Vec<Command> = legal(&g, seat(&g, GM_SEAT));
    assert!(!moves.iter().any(|c| matches!(c, Command::CommitMove { play: iron_triangle::Play::Move(m) } if m.action() == Action::Attack)));
    assert!(moves.contains(&play("○☵")));
    let e = refused!(g, seat(&g, GM_SEAT), play("◆☲"));
    assert!(matches!(e, RuleError::MoveForbidden { action: Action::Attack, .. }), "{e}");
    assert!(!e.to_string().contains('§'));
}

#[test]
fn the_way_of_the_samurai_refills_keeps_its_user_in_and_kills_it_at_the_end() {
    let wots = Special::WayOfTheSamurai;
    let mut g = Build::new()
        .pc("ada", with_specials(with_current(pc("Ada", en(3, 2, 5)), en(1, 0, 0)), 10, &[wots]))
        .npc(npc_all("Bandit", en(2, 0, 0)))
        .table();
    ok!(g, seat(&g, "ada"), special(&g, "Ada", wots));
    ok!(g, seat(&g, GM_SEAT), pass(&g, "Bandit"));
    ok!(g, seat(&g, GM_SEAT), pass(&g, "Bandit"));
    assert_eq!(energy(&g, "Ada"), en(3, 2, 5), "all energy regained");
    assert!(g.state().fighter(id(&g, "Ada")).samurai);
    // The GM drops Ada to zero: a samurai stays in.
    ok!(
        g,
        seat(&g, GM_SEAT),
        Command::AdjustEnergy { fighter: id(&g, "Ada"), energy: en(0, 0, 0), reason: note("test") }
    );
    ok!(g, seat(&g, "ada"), stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    ok!(g, seat(&g, "ada"), play("○☵"));
    ok!(g, seat(&g, GM_SEAT), play("◆☷"));
    settle(&mut g);
    assert_eq!(g.state().fighter(id(&g, "Ada")).status, Status::In);
    // Win it out: the bandit goes out, the conflict ends, and Ada dies.
    while !g.is_over() {
        let waiting = g.awaiting()[0];
        let cmd = legal(&g, waiting)[0];
        ok!(g, waiting, cmd);
    }
    assert!(g.state().fighter(id(&g, "Ada")).dead, "the samurai dies at the end of the conflict");
}

#[test]
fn npcs_never_use_the_way_of_the_samurai() {
    let mut g = Build::new()
        .pc("ada", with_specials(pc("Ada", en(3, 2, 5)), 0, &[Special::Scouter]))
        .npc(with_specials(npc_all("Ronin", en(4, 3, 3)), 10, &[Special::WayOfTheSamurai]))
        .table();
    ok!(g, seat(&g, "ada"), pass(&g, "Ada"));
    assert_eq!(window(&g), Some(Window::BeforeStance));
    assert_eq!(legal(&g, seat(&g, GM_SEAT)), vec![pass(&g, "Ronin")]);
    let e = refused!(g, seat(&g, GM_SEAT), special(&g, "Ronin", Special::WayOfTheSamurai));
    assert!(matches!(e, RuleError::SpecialNotPlayable { .. }) && !e.to_string().contains('§'), "{e}");
}

#[test]
fn a_special_is_used_once_until_a_full_rest() {
    // Used before this conflict (the sheet says so): not offered at all, so no window opens.
    let mut used = with_specials(pc("Ada", en(3, 2, 5)), 0, &[Special::Scouter]);
    used.specials_used = vec![Special::Scouter];
    let g = Build::new().pc("ada", used).npc(npc_all("Bandit", en(4, 3, 3))).table();
    assert_ne!(window(&g), Some(Window::BeforeOpponent));
    // Used in this conflict: marked, and not offered again.
    let mut g = scout_duel();
    ok!(g, seat(&g, "ada"), special(&g, "Ada", Special::Scouter));
    assert!(g.state().fighter(id(&g, "Ada")).specials_used.contains(&Special::Scouter));
    assert_eq!(turn(&g).step, Step::Stance, "no window opens for a used special");
}

#[test]
fn one_special_per_turn_and_to_blave_twice_per_conflict() {
    let mut g = Build::new()
        .pc("ada", with_specials(pc("Ada", en(5, 5, 5)), 5, &[Special::Scouter, Special::ToBlave]))
        .npc(npc_all("Bandit", en(9, 9, 9)))
        .table();
    // Turn 1, before opponent: To Blave (bluffing Scouter). Before stance she may play nothing
    // more this turn, so no window opens.
    ok!(g, seat(&g, "ada"), special(&g, "Ada", Special::ToBlave));
    assert_eq!(turn(&g).step, Step::Stance, "one special per turn");
    assert_eq!(g.state().fighter(id(&g, "Ada")).blaves, 1);
    assert!(!g.state().fighter(id(&g, "Ada")).specials_used.contains(&Special::ToBlave));
    let mut blaves = 1;
    let mut steps = 0;
    // Play on with the first legal command everywhere, giving Ada every turn, and watch the
    // before-opponent window: To Blave is offered until it was played twice.
    while !g.is_over() && steps < 400 && g.state().turn_number < 6 {
        steps += 1;
        if matches!(g.state().phase, Phase::Turn(_)) && window(&g) == Some(Window::BeforeOpponent) {
            let can_blave = legal(&g, seat(&g, "ada")).contains(&special(&g, "Ada", Special::ToBlave));
            assert_eq!(can_blave, blaves < 2, "To Blave is offered twice per conflict");
            if can_blave {
                ok!(g, seat(&g, "ada"), special(&g, "Ada", Special::ToBlave));
                blaves += 1;
                continue;
            }
        }
        let waiting = g.awaiting()[0];
        let cmds = legal(&g, waiting);
        let cmd = *cmds
            .iter()
            .find(|c| matches!(c, Command::PassTurn { to } if *to == id(&g, "Ada")))
            .or_else(|| cmds.iter().find(|c| matches!(c, Command::PlaySpecial { card: None, .. })))
            .unwrap_or(&cmds[0]);
        ok!(g, waiting, cmd);
    }
    assert_eq!(g.state().fighter(id(&g, "Ada")).blaves, 2);
}

#[test]
fn identical_specials_played_by_the_pair_cancel() {
    let mut g = Build::new()
        .pc("ada", with_specials(pc("Ada", en(3, 2, 5)), 0, &[Special::Scouter]))
        .npc(with_specials(npc_all("Spy", en(4, 3, 3)), 0, &[Special::Scouter]))
        .table();
    ok!(g, seat(&g, "ada"), pass(&g, "Ada"));
    ok!(g, seat(&g, "ada"), special(&g, "Ada", Special::Scouter));
    ok!(g, seat(&g, GM_SEAT), special(&g, "Spy", Special::Scouter));
    // Both played: nobody responds; the window closes; both are spent, neither works.
    assert_eq!(turn(&g).step, Step::Stance);
    let spy = id(&g, "Spy");
    assert!(g.state().fighter(spy).scouted_by.is_empty());
    assert!(g.view(Viewer::Seat(seat(&g, "ada"))).fighters[usize::from(spy.0)].moves.is_none());
    for f in ["Ada", "Spy"] {
        assert!(g.state().fighter(id(&g, f)).specials_used.contains(&Special::Scouter), "{f}");
    }
}

#[test]
fn specials_that_cannot_be_played_now_are_refused_with_a_reason() {
    let lm = Special::LiquidMetal;
    let mut g = Build::new()
        .pc("ada", with_specials(pc("Ada", en(3, 2, 5)), 10, &[Special::Scouter, lm, Special::PressurePoint]))
        .npc(npc_all("Bandit", en(4, 3, 3)))
        .table();
    // Nothing another character revealed: Liquid Metal has nothing to copy.
    let e = refused!(g, seat(&g, "ada"), special(&g, "Ada", lm));
    assert!(
        matches!(e, RuleError::SpecialNotPlayable { .. }) && e.to_string().contains("copies a special"),
        "{e}"
    );
    let e = refused!(g, seat(&g, "ada"), special(&g, "Ada", Special::Yojimbo));
    assert!(e.to_string().contains("not learned"), "{e}");
    // A special out of its window names the window.
    let e = refused!(g, seat(&g, "ada"), special(&g, "Ada", Special::PressurePoint));
    assert!(e.to_string().contains("not played before opponent"), "{e}");
}

#[test]
fn gm_adjustment_is_logged_checked_and_can_put_a_character_out() {
    let mut g = Build::new().pc("ada", pc("Ada", en(3, 2, 5))).npc(npc_all("Bandit", en(4, 3, 3))).table();
    let ada = id(&g, "Ada");
    let adjust = |energy, reason: &str| Command::AdjustEnergy { fighter: ada, energy, reason: note(reason) };
    let e = refused!(g, seat(&g, "ada"), adjust(en(3, 2, 5), "cheating"));
    assert_eq!(e, RuleError::NotGm("adjust a character's energy"));
    let e = refused!(g, seat(&g, GM_SEAT), adjust(en(4, 2, 5), "too much"));
    assert!(matches!(e, RuleError::AboveMaximum { .. }), "{e}");
    let events = ok!(g, seat(&g, GM_SEAT), adjust(en(1, 0, 5), "misread spread"));
    assert_eq!(
        events[0],
        Event::EnergyAdjusted { fighter: ada, energy: en(1, 0, 5), reason: note("misread spread") }
    );
    assert_eq!(energy(&g, "Ada"), en(1, 0, 5));
    assert!(g.state().fighter(ada).zero_marks[Action::Grapple.index()], "reaching zero marks it");
    // Replaying the log rebuilds the adjustment.
    let replayed = Game::replay(g.initial().clone(), g.log().to_vec());
    assert_eq!(replayed.state(), g.state());
    // Set to zero: out once the turn's aftermath checks.
    ok!(g, seat(&g, GM_SEAT), adjust(en(0, 0, 0), "struck by lightning"));
    ok!(g, seat(&g, "ada"), stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    ok!(g, seat(&g, "ada"), play("○☵"));
    ok!(g, seat(&g, GM_SEAT), play("○☵"));
    settle(&mut g);
    assert_eq!(g.state().fighter(ada).status, Status::Out);
}

#[test]
fn the_earlier_edition_has_its_own_specials() {
    let mut b = Build::new()
        .pc("ada", with_specials(pc("Ada", en(3, 2, 5)), 0, &[Special::WaxOn(Action::Defend)]))
        .npc(npc_all("Bandit", en(4, 3, 3)));
    let mut setup = b.setup();
    setup.edition = Edition::Earlier;
    assert!(matches!(iron_triangle::Conflict::new(setup), Err(SetupError::Sheet(_))));
    b = Build::new()
        .pc("ada", with_specials(pc("Ada", en(3, 2, 5)), 0, &["insight".parse().unwrap()]))
        .npc(npc_all("Bandit", en(4, 3, 3)));
    let mut setup = b.setup();
    setup.edition = Edition::Earlier;
    let c = iron_triangle::Conflict::new(setup).expect("Insight is the earlier Scouter");
    assert_eq!(c.fighter(cid(&c, "Ada")).character.specials[0].name(c.edition), "Insight");
}

#[test]
fn a_samurai_cannot_surrender_while_it_has_a_move() {
    let wots = Special::WayOfTheSamurai;
    let mut g = Build::new()
        .pc("ada", with_specials(pc("Ada", en(3, 2, 5)), 10, &[wots]))
        .npc(npc_all("Bandit", en(4, 3, 3)))
        .table();
    ok!(g, seat(&g, "ada"), special(&g, "Ada", wots));
    ok!(g, seat(&g, GM_SEAT), pass(&g, "Bandit"));
    ok!(g, seat(&g, GM_SEAT), pass(&g, "Bandit"));
    ok!(g, seat(&g, "ada"), stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    assert!(!legal(&g, seat(&g, "ada")).contains(&play("surrender")));
    let e = refused!(g, seat(&g, "ada"), play("surrender"));
    assert!(matches!(e, RuleError::SamuraiCannotSurrender { .. }) && !e.to_string().contains('§'), "{e}");
    // The bandit may still surrender.
    assert!(legal(&g, seat(&g, GM_SEAT)).contains(&play("surrender")));
}

/// Found by bots: a combo streak must not be offered when There Can Be Only One binds its
/// holder to another opponent (it would have no legal opponent at all).
#[test]
fn a_bond_to_another_opponent_ends_the_combo_streak() {
    let tcboo = Special::ThereCanBeOnlyOne;
    let mut ren =
        with_specials(sheet("Ren", 3, en(4, 4, 5), &["○☵", "▨☷", "◆☲"], &[("▨☷", &["◆☲"])]), 3, &[tcboo]);
    ren.current = None;
    let mut g = Build::new()
        .pc("ren", ren)
        .pc("mika", pc("Mika", en(4, 3, 3)))
        .npc(npc_all("Oni", en(9, 9, 9)))
        .npc(npc_all("Goro", en(9, 9, 9)))
        .table();
    ok!(g, seat(&g, "ren"), Command::TakeFirstTurn { fighter: id(&g, "Ren") });
    ok!(g, seat(&g, "ren"), pass(&g, "Ren"));
    ok!(g, seat(&g, "ren"), Command::ChooseOpponent { opponent: id(&g, "Oni") });
    // Before stance, Ren binds himself to Goro; Oni passes twice.
    ok!(
        g,
        seat(&g, "ren"),
        Command::PlaySpecial {
            fighter: id(&g, "Ren"),
            card: Some(SpecialCard { special: tcboo, target: Some(id(&g, "Goro")), copy: None })
        }
    );
    ok!(g, seat(&g, GM_SEAT), pass(&g, "Oni"));
    ok!(g, seat(&g, GM_SEAT), pass(&g, "Oni"));
    // Ren wins against Oni with ▨☷, which has a follow-up: a streak would face Oni, but the bond says Goro.
    ok!(g, seat(&g, "ren"), stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    ok!(g, seat(&g, "ren"), play("▨☷"));
    ok!(g, seat(&g, GM_SEAT), play("○☵"));
    settle(&mut g);
    // No streak for Ren: the only candidate, Mika, takes the next turn by herself.
    assert_eq!(turn(&g).active, id(&g, "Mika"));
}

/// §6 Decision (The Way of the Samurai): "the character may not surrender. Where §5.2 would
/// force a surrender because no move is available, every move it knows is available instead."
#[test]
fn the_way_of_the_samurai_forbids_surrender_and_makes_every_known_move_available() {
    let mut c = Build::new().pc("ada", pc("Ada", en(3, 2, 5))).npc(npc_all("Bandit", en(4, 3, 3))).conflict();
    // Every move Ada knows is face up in her disadvantage chain, and she is a samurai.
    fm(&mut c, "Ada").disadvantage = chain(&["○☵", "▨☷", "◆☲"]);
    fm(&mut c, "Ada").samurai = true;
    let mut g = Game::new(c);
    let ada = seat(&g, "ada");
    ok!(g, ada, stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    assert_eq!(legal(&g, ada), vec![play("○☵"), play("▨☷"), play("◆☲")]);
    let e = refused!(g, ada, play("surrender"));
    assert!(matches!(e, RuleError::SamuraiCannotSurrender { .. }), "{e:?}");
    ok!(g, ada, play("▨☷"));
}

/// §6 Decision (several There Can Be Only One bonds): "a character bound by several bonds may
/// choose as opponent any character it is bound to, and only those, until all but one of them
/// are out; a combo may continue against any of them."
#[test]
fn several_there_can_be_only_one_bonds_allow_any_bound_opponent_and_a_combo_against_each() {
    let mut ren = sheet("Ren", 3, en(4, 4, 5), &["○☵", "▨☷", "◆☲"], &[("▨☷", &["◆☲"])]);
    ren.current = None;
    let mut c = Build::new()
        .pc("ren", ren)
        .pc("mika", pc("Mika", en(4, 3, 3)))
        .npc(npc_all("Oni", en(9, 9, 9)))
        .npc(npc_all("Goro", en(9, 9, 9)))
        .npc(npc_all("Kuro", en(9, 9, 9)))
        .conflict();
    let (r, oni, goro) = (cid(&c, "Ren"), cid(&c, "Oni"), cid(&c, "Goro"));
    c.bonds = vec![[r, oni], [goro, r]];
    let mut g = Game::new(c);
    let p = seat(&g, "ren");
    ok!(g, p, Command::TakeFirstTurn { fighter: r });
    // Ren may choose Oni or Goro, not Kuro.
    assert_eq!(
        legal(&g, p),
        vec![Command::ChooseOpponent { opponent: oni }, Command::ChooseOpponent { opponent: goro }]
    );
    let e = refused!(g, p, Command::ChooseOpponent { opponent: id(&g, "Kuro") });
    assert!(matches!(e, RuleError::BadOpponent { .. }), "{e:?}");
    assert!(e.to_string().contains("There Can Be Only One binds Ren to face only Oni or Goro"), "{e}");
    // Ren wins against Goro with ▨☷, which has a follow-up: the combo may go on against Goro.
    ok!(g, p, Command::ChooseOpponent { opponent: goro });
    ok!(g, p, stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    ok!(g, p, play("▨☷"));
    ok!(g, seat(&g, GM_SEAT), play("○☵"));
    settle(&mut g);
    assert_eq!(
        legal(&g, p),
        vec![Command::PassTurn { to: r }, Command::PassTurn { to: id(&g, "Mika") }],
        "Ren may continue the combo"
    );
    ok!(g, p, Command::PassTurn { to: r });
    assert_eq!(turn(&g).opponent, Some(goro), "the streak faces the combo's opponent");
}

mod random_games {
    use super::*;
    use proptest::prelude::*;

    const PLAYABLE: [Special; 15] = [
        Special::DrunkenMonkey,
        Special::LiquidMetal,
        Special::Scouter,
        Special::ToBlave,
        Special::ThereCanBeOnlyOne,
        Special::IAlreadyKnow(Action::Defend),
        Special::IAlreadyKnow(Action::Grapple),
        Special::IAlreadyKnow(Action::Attack),
        Special::WayOfTheSamurai,
        Special::PressurePoint,
        Special::WaxOn(Action::Grapple),
        Special::SantaCarla(Action::Attack),
        Special::DigTwoGraves(Action::Attack),
        Special::Yojimbo,
        Special::WaxOn(Action::Defend),
    ];

    fn specials_from(mask: u16) -> Vec<Special> {
        let mut out: Vec<Special> =
            PLAYABLE.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, s)| *s).collect();
        // Dig Two Graves needs its Wax On.
        if out.contains(&Special::DigTwoGraves(Action::Attack)) {
            out.push(Special::WaxOn(Action::Attack));
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, rng_seed: proptest::test_runner::RngSeed::Fixed(7), ..ProptestConfig::default() })]

        /// Random 2v2 games where everyone may know any of the specials in play: every awaited
        /// seat always has a legal command (no deadlock between bonds, streaks and windows),
        /// every legal command is accepted, face-down cards stay hidden, the game ends, and
        /// the log replays into the same state.
        #[test]
        fn random_games_with_specials_end_and_replay(masks in proptest::array::uniform4(0u16..(1 << 15)), seed in any::<u64>()) {
            let level10 = |name: &str, mask: u16| with_specials(sheet(name, 10, en(5, 5, 5), &["○☵", "▨☷", "◆☲"], &[("▨☷", &["◆☲"])]), 10, &specials_from(mask));
            let mut g = Build::new()
                .pc("ren", level10("Ren", masks[0]))
                .pc("mika", level10("Mika", masks[1]))
                .npc(level10("Oni", masks[2]))
                .npc(level10("Goro", masks[3]))
                .table();
            let mut rng = table::seeded_rng(seed);
            for _ in 0..3000 {
                if g.is_over() {
                    break;
                }
                assert_commitments_hidden(&g, false);
                let (seat, cmd) = random_legal(&g, &mut rng).expect("an awaited seat has a legal command");
                prop_assert!(g.submit(seat, &cmd).is_ok(), "legal {:?} refused", cmd);
            }
            prop_assert!(g.is_over(), "the game did not end");
            let replayed = Game::replay(g.initial().clone(), g.log().to_vec());
            prop_assert_eq!(replayed.state(), g.state());
        }
    }
}

/// §6: the GM may always correct energy — a ruling outside the choices of play, which a GM
/// screen gives on the GM seat's behalf ([`table::Ruleset::is_gm_ruling`]); no move, stance,
/// special or turn is one.
#[test]
fn gm_energy_correction_is_the_one_gm_ruling() {
    use iron_triangle::IronTriangle;
    use table::Ruleset;
    let adjust = Command::AdjustEnergy {
        fighter: iron_triangle::FighterId(0),
        energy: en(1, 1, 1),
        reason: note("a fall"),
    };
    assert!(IronTriangle::is_gm_ruling(&adjust));
    for other in [stance("grapple 2"), play("▨☷"), Command::PassTurn { to: iron_triangle::FighterId(1) }]
    {
        assert!(!IronTriangle::is_gm_ruling(&other), "{other:?}");
    }
}
