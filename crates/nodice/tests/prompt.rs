//! What a seat is asked (`NoDice::prompt`) and the default taken for it (`NoDice::forced`,
//! Decision 34), checked against the legal commands along random Conflicts.

mod common;

use common::*;
use nodice::*;
use proptest::prelude::*;
use table::{Ruleset, SeatId, Table};

/// Every seat's prompt and forced default agree with the rules at this point of `t`.
fn check_prompts(t: &Table<NoDice>) {
    let s = t.state();
    let awaited = t.awaiting();
    for (seat, _) in s.seats.iter() {
        let prompt = NoDice::prompt(s, seat);
        let forced = NoDice::forced(s, seat);
        if !awaited.contains(&seat) {
            assert!(prompt.is_none() && forced.is_none(), "seat {} is not asked", seat.0);
            continue;
        }
        let p = prompt.expect("the awaited seat is asked");
        let mut legal = Vec::new();
        t.legal_commands(seat, &mut legal);
        let choices: Vec<Command> = p.choices.iter().map(|c| c.command.clone()).collect();
        assert_eq!(choices, legal, "the prompt's choices are exactly the legal commands");
        assert!(p.choices.iter().all(|c| !c.label.is_empty() && !c.label.starts_with('{')));
        assert!(!p.question.is_empty());
        let face_down = matches!(s.phase, Phase::CommitAspect | Phase::CommitAction)
            && legal.iter().all(|c| !matches!(c, Command::Withdraw { .. }));
        assert_eq!(p.private, face_down, "private exactly for the face-down cards ({:?})", s.phase);
        let f = forced.expect("a default for every awaited decision");
        assert!(!matches!(f, Command::Withdraw { .. } | Command::EndConflict), "never withdraws");
        assert!(legal.contains(&f), "the default is a legal command: {f:?}");
    }
}

#[test]
fn prompt_commit_aspect_is_private_and_labels_ante_aspect_and_target() {
    let t = start(kara_vs_bandit());
    let p = NoDice::prompt(t.state(), SeatId(0)).unwrap();
    assert!(p.private);
    assert_eq!(
        p.question,
        "Kara: ante 1 chip from one Attribute — it fixes your face-down Aspect card — and name whom you target"
    );
    assert_eq!(p.choices.len(), 9);
    assert_eq!(p.choices[0].label, "Mind, ante from REA → Bandit");
    assert!(NoDice::prompt(t.state(), SeatId(1)).is_none(), "the GM is not asked while Kara commits");
    check_prompts(&t);
}

#[test]
fn prompt_commit_action_is_private_and_spread_is_public() {
    let mut t = start(kara_vs_bandit());
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "WIL", &["Kara"]).unwrap();
    let p = NoDice::prompt(t.state(), SeatId(0)).unwrap();
    assert!(p.private);
    assert!(
        p.question.starts_with("Kara: play an Action card of Body (STR FIT AGI) and bid up to"),
        "{}",
        p.question
    );
    assert!(p.choices.iter().any(|c| c.label == "STR bid 4 + Wildcard"));
    check_prompts(&t);
    commit_action(&mut t, "Kara", "STR", 4, true).unwrap();
    commit_action(&mut t, "Bandit", "PRE", 3, false).unwrap();
    let p = NoDice::prompt(t.state(), SeatId(0)).unwrap();
    assert!(!p.private, "a damage spread is said aloud");
    assert_eq!(p.question, "Kara: spread 3 Spirit damage over WIL PRE INT");
    assert!(p.choices.iter().any(|c| c.label == "INT −3"));
    check_prompts(&t);
    // The view says the same to every viewer, so a page labels the spread's three numbers
    // from it rather than from the question's words.
    for viewer in [table::Viewer::Seat(SeatId(0)), table::Viewer::Seat(SeatId(1)), table::Viewer::Spectator] {
        let v = NoDice::view(t.state(), viewer);
        assert_eq!(
            v.spreading,
            Some(Spreading {
                actor: ActorId(0),
                aspect: Aspect::Spirit,
                attributes: [Attribute::Wil, Attribute::Pre, Attribute::Int],
                damage: 3,
            })
        );
    }
}

#[test]
fn forced_defaults_follow_decision_34() {
    let mut t = start(kara_vs_bandit());
    // Kara's most chips: STR 4? The first Attribute in serial order with the most chips.
    let kara = &t.state().actors[0];
    let most = Attribute::ALL
        .into_iter()
        .filter(|&x| t.state().may_ante(ActorId(0), x))
        .max_by_key(|&x| (kara.stacks[x.index()], std::cmp::Reverse(x.index())))
        .unwrap();
    assert_eq!(
        NoDice::forced(t.state(), SeatId(0)),
        Some(Command::CommitAspect {
            actor: ActorId(0),
            aspect: most.aspect(),
            ante: most,
            targets: Targets::one(ActorId(1)),
            intent: None
        })
    );
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "WIL", &["Kara"]).unwrap();
    let s = t.state();
    let cap = s.bid_cap(ActorId(0), Aspect::Body);
    let Some(Command::CommitAction {
        attribute, bid, wildcard: false, open: false, damage_aspect: None, ..
    }) = NoDice::forced(s, SeatId(0))
    else {
        panic!("an Action card without Wildcard, face down")
    };
    assert_eq!(attribute.aspect(), Aspect::Body);
    assert_eq!(bid, cap.min(s.actors[0].stacks[attribute.index()]), "the largest legal bid");
    let best = Aspect::Body.attributes().into_iter().map(|x| s.actors[0].stacks[x.index()]).max().unwrap();
    assert_eq!(s.actors[0].stacks[attribute.index()], best, "the Attribute with the most chips");
    commit_action(&mut t, "Kara", "STR", 4, true).unwrap();
    commit_action(&mut t, "Bandit", "PRE", 3, false).unwrap();
    let values = t.state().actors[0].aspect_values(Aspect::Spirit);
    assert_eq!(
        NoDice::forced(t.state(), SeatId(0)),
        Some(Command::SpreadDamage { actor: ActorId(0), spread: damage::even_spread(values, 3) })
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Along random Conflicts (some played by the forced defaults alone), every prompt's
    /// choices are the legal commands, private exactly at the Commit steps, and the default
    /// is legal and never withdraws.
    #[test]
    fn prompt_and_forced_agree_with_the_legal_commands(stakes in 1u8..=3, picks in prop::collection::vec(any::<usize>(), 0..150), by_default in any::<bool>()) {
        let mut t = if stakes == 3 { start(kara_vs_bandit()) } else { start(brawl(stakes)) };
        let mut legal = Vec::new();
        for pick in picks {
            if t.is_over() {
                break;
            }
            check_prompts(&t);
            let seat = t.awaiting()[0];
            let command = if by_default {
                NoDice::forced(t.state(), seat).unwrap()
            } else {
                t.legal_commands(seat, &mut legal);
                legal[pick % legal.len()].clone()
            };
            t.submit(seat, &command).unwrap();
        }
    }
}
