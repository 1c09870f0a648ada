//! What every shell asks of the ruleset (issue 14): a seat's prompt (its choices exactly the
//! legal commands, private exactly for the face-down commitments), the forced default
//! (documented in docs/iron-triangle.md, never a surrender), uniform redaction (blanked, never
//! dropped) and narration in the book's words.

mod common;

use common::*;
use iron_triangle::special::Special;
use iron_triangle::turn::Play;
use iron_triangle::{Command, Conflict, Event, IronTriangle, Phase, Step};
use table::{Ruleset, SeatId, Viewer, seeded_rng};

fn with_specials(mut c: iron_triangle::Character, specials: &[Special]) -> iron_triangle::Character {
    c.specials = specials.to_vec();
    c
}

/// A 2v2 with specials, so that windows, losses taken over and mercy can come up.
fn games() -> Vec<Game> {
    vec![
        Build::new()
            .pc("ada", with_specials(pc("Ada", en(3, 2, 5)), &[Special::Scouter]))
            .npc(npc("Bandit", en(4, 3, 3), &["○☵", "▨☷", "◆☲", "◆☷"]))
            .table(),
        Build::new()
            .lethal()
            .pc("p1", pc("A1", en(3, 3, 4)))
            .pc("p2", pc("A2", en(4, 3, 3)))
            .npc(npc_all("B1", en(4, 4, 4)))
            .npc(npc_all("B2", en(3, 3, 3)))
            .table(),
        Build::new().minor().pc("ada", pc("Ada", en(3, 3, 4))).npc(npc_all("Kuro", en(4, 3, 3))).table(),
    ]
}

fn seats(g: &Game) -> Vec<SeatId> {
    g.state().seats.iter().map(|(s, _)| s).collect()
}

/// Whether the conflict waits for a face-down commitment from `seat`.
fn face_down_step(c: &Conflict, seat: SeatId) -> bool {
    let mut legal = Vec::new();
    c.legal_commands(seat, &mut legal);
    match &c.phase {
        Phase::Turn(t) => {
            !legal.is_empty()
                && (matches!(t.step, Step::Stance | Step::Move | Step::Window(_)))
                && legal.iter().any(|c| !matches!(c, Command::EndCombo))
        }
        _ => false,
    }
}

/// Plays random games; at every point checks every seat's prompt and forced default.
#[test]
fn prompt_choices_are_exactly_the_legal_commands_and_private_only_face_down() {
    for seed in 0..12u64 {
        for mut g in games() {
            let mut rng = seeded_rng(seed);
            for _ in 0..400 {
                let state = g.state();
                for seat in seats(&g) {
                    let legal = legal(&g, seat);
                    let prompt = IronTriangle::prompt(state, seat);
                    let forced = IronTriangle::forced(state, seat);
                    if legal.is_empty() {
                        assert_eq!(prompt, None);
                        assert_eq!(forced, None);
                        assert!(!IronTriangle::asks_face_down(state, seat));
                        assert_eq!(IronTriangle::first_face_down(state, seat), None);
                        continue;
                    }
                    let p = prompt.expect("an awaited seat has a prompt");
                    // A sealed round's questions, answered without the labels: the prompt's.
                    assert_eq!(IronTriangle::asks_face_down(state, seat), p.private);
                    let first = p.choices.iter().find(|c| c.private).map(|c| c.command);
                    assert_eq!(IronTriangle::first_face_down(state, seat), first);
                    assert_eq!(p.seat, seat);
                    let commands: Vec<Command> = p.choices.iter().map(|c| c.command).collect();
                    assert_eq!(commands, legal, "the choices are the legal commands");
                    assert!(p.choices.iter().all(|c| !c.label.is_empty() && !c.label.contains('{')));
                    assert_eq!(p.private, face_down_step(state, seat), "{:?}: {}", state.phase, p.question);
                    forced_is_the_documented_default(state, seat, &legal, forced);
                }
                let Some((seat, cmd)) = random_legal(&g, &mut rng) else { break };
                g.submit(seat, &cmd).expect("legal");
            }
        }
    }
}

/// The documented default (docs/iron-triangle.md, Decision "forced decisions").
fn forced_is_the_documented_default(c: &Conflict, seat: SeatId, legal: &[Command], forced: Option<Command>) {
    let f = forced.expect("an awaited seat has a default");
    assert!(legal.contains(&f), "the default {f:?} is legal");
    assert_ne!(f, Command::CommitMove { play: Play::Surrender }, "never a surrender");
    match legal[0] {
        Command::CommitStance { .. } => {
            assert_eq!(f, Command::CommitStance { stance: iron_triangle::Stance::NONE }, "the lowest stance")
        }
        Command::CommitMove { .. } => {
            let first = legal.iter().find(|c| matches!(c, Command::CommitMove { play: Play::Move(_) }));
            assert_eq!(Some(&f), first, "the first legal move");
        }
        Command::PlaySpecial { fighter, .. } => {
            assert_eq!(f, Command::PlaySpecial { fighter, card: None }, "no special")
        }
        Command::SpreadLoss { spread } | Command::SpreadGain { spread } => {
            let Phase::Aftermath(a) = &c.phase else { panic!("a spread outside the aftermath") };
            let p = c.pending_for(a, seat).unwrap();
            let (_, due, room) = c.pending_parts(a, p);
            assert_eq!(spread.total(), due);
            assert!(
                matches!(f, Command::SpreadLoss { spread } | Command::SpreadGain { spread } if spread == room.default_spread(due))
            );
        }
        Command::DecideMercy { .. } => assert_eq!(f, Command::DecideMercy { kill: false }, "spare"),
        Command::DrunkenSwap { .. } => assert_eq!(f, Command::DrunkenSwap { swap: false }, "keep"),
        _ => {}
    }
}

#[test]
fn stance_and_move_labels_use_the_books_names_and_symbols() {
    let mut g = Build::new().pc("ada", pc("Ada", en(3, 2, 5))).npc(npc_all("Kuro", en(4, 3, 3))).table();
    give_turn(&mut g, "Ada");
    let ada = seat(&g, "ada");
    let p = IronTriangle::prompt(g.state(), ada).unwrap();
    assert!(p.private);
    assert!(p.question.starts_with("Ada: commit a stance face down"), "{}", p.question);
    let labels: Vec<&str> = p.choices.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels[0], "no stance");
    assert!(labels.contains(&"2 grapple ▨"), "{labels:?}");
    ok!(g, ada, stance("0"));
    ok!(g, seat(&g, GM_SEAT), stance("0"));
    let p = IronTriangle::prompt(g.state(), ada).unwrap();
    assert!(p.private);
    let labels: Vec<&str> = p.choices.iter().map(|c| c.label.as_str()).collect();
    assert!(labels.iter().any(|l| l.starts_with("▨☷")), "{labels:?}");
    assert_eq!(labels.last(), Some(&"surrender"));
    assert_eq!(IronTriangle::forced(g.state(), ada), Some(p.choices[0].command));
}

#[test]
fn redaction_blanks_every_face_down_commitment_and_drops_nothing() {
    for seed in 0..8u64 {
        for mut g in games() {
            let mut rng = seeded_rng(seed);
            play_out_random(&mut g, &mut rng, 2000);
            let all = viewers(&g);
            let logs: Vec<Vec<Event>> = all.iter().map(|&v| g.log_for(v)).collect();
            for (log, &v) in logs.iter().zip(&all) {
                assert_eq!(log.len(), g.log().len(), "{v:?}: same length");
                for (seen, real) in log.iter().zip(g.log()) {
                    assert_eq!(std::mem::discriminant(seen), std::mem::discriminant(real), "same order");
                    let owner = |fighter: iron_triangle::FighterId| {
                        v == Viewer::Seat(g.state().fighter(fighter).seat)
                    };
                    match *seen {
                        Event::StanceCommitted { fighter, stance } => {
                            assert_eq!(stance.is_some(), owner(fighter))
                        }
                        Event::MoveCommitted { fighter, play } => assert_eq!(play.is_some(), owner(fighter)),
                        Event::SpecialCommitted { fighter, card, hidden } => {
                            assert_eq!(hidden, !owner(fighter));
                            assert!(!hidden || card.is_none());
                            // The blank's JSON carries no card.
                            assert!(!hidden || !serde_json::to_string(seen).unwrap().contains("special\":"));
                        }
                        _ => assert_eq!(seen, real, "public events are whole"),
                    }
                }
            }
        }
    }
}

/// An event in the shape saves had before blanking (a bare stance, a pass's `"card": null`)
/// still loads as the same event.
#[test]
fn events_saved_before_blanking_still_load() {
    let old = r#"{"event":"stance_committed","fighter":1,"stance":{"type":"grapple","amount":2}}"#;
    let e: Event = serde_json::from_str(old).unwrap();
    assert_eq!(e, Event::StanceCommitted { fighter: iron_triangle::FighterId(1), stance: Some(st("2▨")) });
    assert_eq!(serde_json::to_string(&e).unwrap(), old, "the whole event keeps its old shape");
    let pass: Event =
        serde_json::from_str(r#"{"event":"special_committed","fighter":0,"card":null}"#).unwrap();
    assert_eq!(
        pass,
        Event::SpecialCommitted { fighter: iron_triangle::FighterId(0), card: None, hidden: false }
    );
}

/// Narration of the main event kinds, for a spectator and for the seat itself.
#[test]
fn narration_tells_the_main_events_in_the_books_words() {
    let mut g = Build::new().pc("ada", pc("Ada", en(3, 2, 5))).npc(npc_all("Kuro", en(4, 3, 3))).table();
    give_turn(&mut g, "Ada");
    let (ada, gm) = (seat(&g, "ada"), seat(&g, GM_SEAT));
    ok!(g, ada, stance("2▨"));
    ok!(g, gm, stance("1○"));
    ok!(g, ada, play("▨☷"));
    ok!(g, gm, play("○☵"));
    settle(&mut g);
    let mut texts = std::collections::HashMap::<Viewer, Vec<String>>::new();
    for v in [Viewer::Spectator, Viewer::Seat(ada)] {
        let mut state = g.initial().clone();
        for e in g.log() {
            let seen = IronTriangle::redact(&state, e, v);
            if let Some(t) = IronTriangle::narrate(&state, &seen, v) {
                texts.entry(v).or_default().extend(t.lines().map(str::to_owned));
            }
            IronTriangle::apply(&mut state, e);
        }
    }
    let spectator = texts[&Viewer::Spectator].join("\n");
    let own = texts[&Viewer::Seat(ada)].join("\n");
    assert!(spectator.contains("Turn 1: Ada takes the turn."), "{spectator}");
    assert!(spectator.contains("Ada commits a stance face down."), "{spectator}");
    assert!(spectator.contains("Kuro commits a move face down."), "{spectator}");
    assert!(!spectator.contains("commits the stance"), "{spectator}");
    assert!(own.contains("Ada commits the stance 2▨."), "{own}");
    assert!(own.contains("Kuro commits a stance face down."), "{own}");
    assert!(spectator.contains("Stances revealed: Ada 2▨, Kuro 1○."), "{spectator}");
    assert!(spectator.contains("Moves revealed: Ada plays"), "{spectator}");
    assert!(spectator.contains("Ada wins the turn with"), "{spectator}");
    assert!(spectator.contains("Kuro takes the loss"), "{spectator}");
}
