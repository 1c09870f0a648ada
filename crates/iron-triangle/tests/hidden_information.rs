//! Hidden information (rules reference §5.1 step 3, §5.2 steps 2–3): what each seat, and a
//! spectator, may see of a conflict and of its log.

#[macro_use]
mod common;

use common::*;
use iron_triangle::turn::Play;
use iron_triangle::view::PhaseView;
use iron_triangle::{Command, Event, FighterId, Step};
use table::{Face, Viewer};

/// Two players (A1 on p1, A2 on p2) against two NPCs on the GM's seat. B1 knows a move no
/// player character knows (▨☯, named "Secret Dragon") and a combo.
fn table() -> Game {
    let mut b1 = sheet("B1", 0, en(5, 5, 5), &["○☷", "▨☯", "◆☵"], &[("○☷", &["▨☯"])]);
    b1.moves[1].name = "Secret Dragon".into();
    Build::new()
        .pc("p1", pc("A1", en(3, 3, 4)))
        .pc("p2", pc("A2", en(3, 3, 4)))
        .npc(b1)
        .npc(npc("B2", en(5, 5, 5), &["○☲", "◆☷"]))
        .table()
}

/// The commitment events of `fighter` in a log whose value shows (not blanked).
fn commitments_of(log: &[Event], fighter: FighterId) -> Vec<Event> {
    log.iter()
        .filter(|e| {
            matches!(e, Event::StanceCommitted { fighter: f, stance: Some(_) } | Event::MoveCommitted { fighter: f, play: Some(_) } if *f == fighter)
        })
        .cloned()
        .collect()
}

/// The pair's stance and move faces as `viewer` sees them.
fn faces(g: &Game, viewer: Viewer) -> ([Face<iron_triangle::Stance>; 2], [Face<Play>; 2]) {
    match g.view(viewer).phase {
        PhaseView::Turn { stances, plays, .. } => (stances, plays),
        other => panic!("not a turn: {other:?}"),
    }
}

/// §5.2 steps 2–3: "Both secretly choose a stance ... then both are revealed", and the same
/// for moves. At every step of a turn, for every seat and a spectator: a committed card is
/// seen only by its own seat (faces, serialized view, every other field, and the redacted
/// log) until both have committed; then everyone sees it.
#[test]
fn hidden_commitments_are_seen_only_by_their_seat_until_revealed() {
    let mut g = table();
    let (a1, b1) = (id(&g, "A1"), id(&g, "B1"));
    let (p1, p2, gm) = (seat(&g, "p1"), seat(&g, "p2"), seat(&g, GM_SEAT));
    let others_of_p1 = [Viewer::Seat(p2), Viewer::Seat(gm), Viewer::Spectator];
    let others_of_gm = [Viewer::Seat(p1), Viewer::Seat(p2), Viewer::Spectator];

    // First turn and opponent steps: nothing committed.
    assert_commitments_hidden(&g, true);
    give_turn(&mut g, "A1");
    assert_eq!(turn(&g).step, Step::Opponent);
    assert_commitments_hidden(&g, true);
    ok!(g, p1, Command::ChooseOpponent { opponent: b1 });

    // Stance step, A1 committed 3▨ face down.
    ok!(g, p1, stance("3▨"));
    assert_commitments_hidden(&g, true);
    assert_eq!(faces(&g, Viewer::Seat(p1)).0, [Face::Known(st("3▨")), Face::Empty]);
    for v in others_of_p1 {
        assert_eq!(faces(&g, v).0, [Face::FaceDown, Face::Empty], "{v:?}");
        assert!(!serde_json::to_string(&g.view(v)).unwrap().contains(r#""amount":3"#), "{v:?}");
        assert!(commitments_of(&g.log_for(v), a1).is_empty(), "{v:?}");
        // Blanked, not dropped: the viewer sees that A1 committed a stance.
        assert!(g.log_for(v).contains(&Event::StanceCommitted { fighter: a1, stance: None }), "{v:?}");
    }
    assert_eq!(
        commitments_of(&g.log_for(Viewer::Seat(p1)), a1),
        vec![Event::StanceCommitted { fighter: a1, stance: Some(st("3▨")) }]
    );

    // Stances revealed: everyone sees both.
    ok!(g, gm, stance("2○"));
    assert_eq!(turn(&g).step, Step::Move);
    assert_commitments_hidden(&g, true);
    for v in viewers(&g) {
        assert_eq!(
            faces(&g, v),
            ([Face::Known(st("3▨")), Face::Known(st("2○"))], [Face::Empty, Face::Empty]),
            "{v:?}"
        );
        assert!(g.log_for(v).contains(&Event::StancesRevealed { stances: [st("3▨"), st("2○")] }));
    }

    // Move step, B1 committed ▨☯ face down (a move no player character knows).
    ok!(g, gm, play("▨☯"));
    assert_commitments_hidden(&g, true);
    assert_eq!(faces(&g, Viewer::Seat(gm)).1, [Face::Empty, Face::Known(Play::Move(mv("▨☯")))]);
    for v in others_of_gm {
        assert_eq!(faces(&g, v).1, [Face::Empty, Face::FaceDown], "{v:?}");
        let json = serde_json::to_string(&g.view(v)).unwrap();
        assert!(!json.contains("▨☯"), "{v:?} can read B1's hidden move in {json}");
        assert!(commitments_of(&g.log_for(v), b1).is_empty(), "{v:?}");
    }
    assert_eq!(commitments_of(&g.log_for(Viewer::Seat(gm)), b1).len(), 2);

    // Both moves in: revealed and resolved; the aftermath is the same for everyone.
    ok!(g, p1, play("◆☲"));
    let aftermath_view = g.view(Viewer::Seat(gm)).phase;
    let PhaseView::Aftermath(a) = &aftermath_view else { panic!("{aftermath_view:?}") };
    assert_eq!(a.plays, [Play::Move(mv("◆☲")), Play::Move(mv("▨☯"))]);
    for v in viewers(&g) {
        assert_eq!(g.view(v).phase, aftermath_view, "{v:?}");
        assert!(
            g.log_for(v).contains(&Event::MovesRevealed {
                plays: [Play::Move(mv("◆☲")), Play::Move(mv("▨☯"))]
            })
        );
    }
    for v in others_of_gm {
        assert!(commitments_of(&g.log_for(v), b1).is_empty(), "commitments stay out of others' logs: {v:?}");
    }
    for v in others_of_p1 {
        assert!(commitments_of(&g.log_for(v), a1).is_empty(), "{v:?}");
        // Blanked, not dropped: the viewer sees that A1 committed a stance.
        assert!(g.log_for(v).contains(&Event::StanceCommitted { fighter: a1, stance: None }), "{v:?}");
    }
    assert_commitments_hidden(&g, true);
}

/// §5.2 step 3 from the other side: the opponent commits its move first, the active
/// character's seat still sees nothing of it; a spectator sees only public things.
#[test]
fn hidden_the_opponents_commitment_is_hidden_from_the_active_seat() {
    let mut g = table();
    let (p1, gm) = (seat(&g, "p1"), seat(&g, GM_SEAT));
    give_turn(&mut g, "A1");
    ok!(g, p1, Command::ChooseOpponent { opponent: id(&g, "B2") });
    ok!(g, gm, stance("4◆"));
    assert_eq!(faces(&g, Viewer::Seat(p1)).0, [Face::Empty, Face::FaceDown]);
    assert_eq!(faces(&g, Viewer::Spectator).0, [Face::Empty, Face::FaceDown]);
    assert_eq!(faces(&g, Viewer::Seat(gm)).0, [Face::Empty, Face::Known(st("4◆"))]);
    assert_commitments_hidden(&g, true);
    ok!(g, p1, stance("0"));
    ok!(g, p1, play("○☵"));
    assert_eq!(faces(&g, Viewer::Seat(gm)).1, [Face::FaceDown, Face::Empty]);
    assert_eq!(faces(&g, Viewer::Seat(p1)).1, [Face::Known(Play::Move(mv("○☵"))), Face::Empty]);
    assert_commitments_hidden(&g, true);
    ok!(g, gm, play("surrender"));
    // The turn passed on at once (A2 is the only candidate); the reveal is in every log.
    assert_eq!(turn(&g).active, id(&g, "A2"));
    for v in viewers(&g) {
        let log = g.log_for(v);
        assert!(
            log.contains(&Event::MovesRevealed { plays: [Play::Move(mv("○☵")), Play::Surrender] }),
            "{v:?}"
        );
        let commits = log
            .iter()
            .filter(|e| {
                matches!(
                    e,
                    Event::StanceCommitted { stance: Some(_), .. }
                        | Event::MoveCommitted { play: Some(_), .. }
                )
            })
            .count();
        assert_eq!(commits, if v == Viewer::Seat(p1) || v == Viewer::Seat(gm) { 2 } else { 0 }, "{v:?}");
    }
}

/// §5.1 step 3: "PC moves and specials are public; NPC moves and specials are hidden from
/// players." NPCs' known moves, combos and available moves are in the GM's view only; energy
/// is public to all.
#[test]
fn hidden_npc_sheets_are_seen_only_by_the_gm_pc_sheets_by_all() {
    let g = table();
    let gm = seat(&g, GM_SEAT);
    for v in viewers(&g) {
        let view = g.view(v);
        let is_gm = v == Viewer::Seat(gm);
        for f in &view.fighters {
            let fighter = g.state().fighter(f.id);
            assert_eq!(f.energy, fighter.energy, "energy is public");
            let npc = fighter.side == iron_triangle::GM;
            if npc && !is_gm {
                assert_eq!(
                    (&f.moves, &f.combos, &f.available),
                    (&None, &None, &None),
                    "{v:?} sees {}",
                    f.name
                );
            } else {
                assert_eq!(f.moves.as_ref(), Some(&fighter.character.moves), "{v:?} / {}", f.name);
                assert_eq!(f.combos.as_ref(), Some(&fighter.character.combos));
                let avail: Vec<_> = g.state().available_moves(f.id).iter().collect();
                assert_eq!(f.available.as_ref(), Some(&avail));
            }
        }
        let json = serde_json::to_string(&view).unwrap();
        assert_eq!(json.contains("Secret Dragon"), is_gm, "{v:?}");
    }
    let b1 = &g.view(Viewer::Seat(gm)).fighters[usize::from(id(&g, "B1").0)];
    assert_eq!(b1.combos.as_ref().map(|c| c.len()), Some(1));
}

/// §5.1 step 3 with the seats' own characters: a player seat sees its own and the other
/// players' sheets (PC sheets are public), and never the NPCs', at any step.
#[test]
fn hidden_npc_sheets_stay_hidden_through_a_whole_turn() {
    let mut g = table();
    let (p1, p2, gm) = (seat(&g, "p1"), seat(&g, "p2"), seat(&g, GM_SEAT));
    let check = |g: &Game| {
        for v in [Viewer::Seat(p1), Viewer::Seat(p2), Viewer::Spectator] {
            let view = g.view(v);
            for f in &view.fighters {
                let npc = f.side == iron_triangle::GM;
                assert_eq!(f.moves.is_some(), !npc, "{v:?} / {}", f.name);
                assert_eq!(f.available.is_some(), !npc, "{v:?} / {}", f.name);
            }
        }
    };
    check(&g);
    give_turn(&mut g, "A2");
    ok!(g, p2, Command::ChooseOpponent { opponent: id(&g, "B1") });
    check(&g);
    ok!(g, p2, stance("1○"));
    ok!(g, gm, stance("1○"));
    check(&g);
    ok!(g, p2, play("▨☷"));
    ok!(g, gm, play("○☷"));
    check(&g);
    settle(&mut g);
    check(&g);
}
