//! Property tests: random command sequences, legal and not, never panic; refused commands
//! change nothing; values never go below 0; chips are conserved (every chip is in a stack, a
//! bid, the pot or the Jackpot, or was removed by damage, give or take the GM's adjustments,
//! Decision 35); hidden cards stay hidden; the log
//! replays into the same state and passes the checked load.

mod common;

use common::*;
use nodice::*;
use proptest::prelude::*;
use table::{Face, SeatId, Table, Viewer};

#[derive(Debug, Clone)]
enum Step {
    Legal(usize),
    Raw { kind: u8, actor: u8, a: u8, b: u8, bid: u16, targets: u16, flag: bool },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => any::<usize>().prop_map(Step::Legal),
        1 => (0u8..7, 0u8..4, 0u8..9, 0u8..9, 0u16..8, 0u16..16, any::<bool>())
            .prop_map(|(kind, actor, a, b, bid, targets, flag)| Step::Raw { kind, actor, a, b, bid, targets, flag }),
    ]
}

fn raw(kind: u8, actor: u8, a: u8, b: u8, bid: u16, targets: u16, flag: bool) -> Command {
    let actor = ActorId(actor);
    let attr = Attribute::ALL[usize::from(a)];
    match kind {
        0 => Command::CommitAspect {
            actor,
            aspect: Aspect::ALL[usize::from(b % 3)],
            ante: attr,
            targets: Targets::from_bits(targets),
            intent: flag.then(|| "I lunge".to_owned()),
        },
        1 => Command::CommitAction {
            actor,
            attribute: attr,
            bid,
            wildcard: flag,
            open: b.is_multiple_of(2),
            damage_aspect: (b > 5).then_some(Aspect::ALL[usize::from(b % 3)]),
        },
        2 => Command::SpreadDamage { actor, spread: [bid, u16::from(a), u16::from(b)] },
        3 => Command::Withdraw { actor },
        4 if flag => Command::Engage {
            clusters: vec![Targets::from_bits(targets), Targets::from_bits(!targets & 0b111)],
        },
        4 => Command::Justify { actor, line: "x".repeat(usize::from(a) * 40) },
        5 => Command::Adjust {
            actor,
            change: if flag {
                Adjustment::Chips { attribute: attr, to: bid * 16 }
            } else {
                Adjustment::Wildcards { to: u16::from(b) }
            },
            reason: if a == 0 { String::new() } else { "the rope gives way".to_owned() },
        },
        _ => Command::EndConflict,
    }
}

fn setups() -> impl Strategy<Value = Setup> {
    prop_oneof![
        Just(kara_vs_bandit()),
        (1u8..=3).prop_map(brawl),
        Just({
            let mut s = kara_vs_bandit();
            s.actors[1].statblock = block("R20/0(200/0)-M-(-/-/-)-B66(9/9/-)-S1(-/-/2)");
            s.extensions =
                vec![Ext::DamageAbility(DamageAbility { actor: ActorId(0), points: 1, aspect: None })];
            s
        }),
    ]
}

fn hidden_stays_hidden(t: &Table<NoDice>) {
    let s = t.state();
    let seats: Vec<SeatId> = s.seats.iter().map(|(id, _)| id).collect();
    for (i, a) in s.actors.iter().enumerate() {
        for &seat in &seats {
            let v = t.view(Viewer::Seat(seat));
            let own = a.sheet.seat == seat;
            if matches!(a.aspect, table::Sealed::FaceDown(_)) && !own {
                assert_eq!(v.actors[i].aspect, Face::FaceDown);
            }
            if matches!(a.action, table::Sealed::FaceDown(_)) && !own {
                assert_eq!(v.actors[i].action, Face::FaceDown);
            }
            if a.sheet.kind != Kind::Pc && !own && !s.is_gm(seat) {
                assert!(v.actors[i].rank.is_none() && v.actors[i].stacks.is_none());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_command_sequences_keep_every_invariant(setup in setups(), steps in prop::collection::vec(step(), 0..120)) {
        let mut t = Table::<NoDice>::new(Conflict::new(setup).unwrap());
        let mut legal = Vec::new();
        for st in steps {
            if t.is_over() {
                break;
            }
            let seats: Vec<SeatId> = t.state().seats.iter().map(|(id, _)| id).collect();
            let awaited = t.awaiting();
            prop_assert!(!awaited.is_empty(), "a live Conflict always waits for someone");
            let seat = awaited[0];
            match st {
                Step::Legal(i) => {
                    t.legal_commands(seat, &mut legal);
                    prop_assert!(!legal.is_empty(), "the awaited seat has a legal command");
                    let c = legal[i % legal.len()].clone();
                    prop_assert!(t.submit(seat, &c).is_ok(), "legal command refused: {c:?}");
                }
                Step::Raw { kind, actor, a, b, bid, targets, flag } => {
                    let c = raw(kind, actor, a, b, bid, targets, flag);
                    let who = seats[usize::from(actor) % seats.len()];
                    let before = t.state().clone();
                    let len = t.log().len();
                    if t.submit(who, &c).is_err() {
                        prop_assert_eq!(t.state(), &before);
                        prop_assert_eq!(t.log().len(), len);
                    }
                }
            }
            let s = t.state();
            prop_assert!(chips_conserved(s), "chips: {} + {} != {} + {}", s.chips_in_play(), s.chips_destroyed(), s.chips_built(), s.chips_adjusted);
            for a in &s.actors {
                let total: u32 = a.stacks.iter().map(|&x| u32::from(x)).sum();
                prop_assert!(i64::from(total) <= i64::from(s.chips_built()) + s.chips_adjusted);
            }
            hidden_stays_hidden(&t);
        }
        // The redacted log shows no seat another seat's face-down card.
        for (seat, _) in t.state().seats.iter() {
            for e in t.log_for(Viewer::Seat(seat)) {
                match e {
                    Event::AspectCommitted { actor, card: Some(_), .. } | Event::ActionCommitted { actor, card: Some(_), .. } => {
                        prop_assert_eq!(t.state().actors[actor.index()].sheet.seat, seat);
                    }
                    _ => {}
                }
            }
        }
        let replayed = Table::<NoDice>::replay(t.initial().clone(), t.log().to_vec());
        prop_assert_eq!(replayed.state(), t.state());
        let checked = nodice::load_checked(t.save());
        prop_assert!(checked.is_ok(), "{:?}", checked.err());
    }
}

#[test]
fn a_tampered_save_is_refused() {
    let mut t = start(kara_vs_bandit());
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "WIL", &["Kara"]).unwrap();
    let mut saved = t.save();
    assert!(nodice::load_checked(saved.clone()).is_ok());
    // Kara's ante changed to an Attribute she could not ante from.
    for e in &mut saved.events {
        if let Event::AspectCommitted { actor: ActorId(0), card: Some(card), .. } = e {
            card.ante = Attribute::Wil;
        }
    }
    assert!(nodice::load_checked(saved).is_err());
    let mut saved = t.save();
    saved.initial.actors[0].stacks[0] = 99;
    assert_eq!(nodice::load_checked(saved).err(), Some(nodice::SaveError::NotAStart));
    let mut saved = t.save();
    saved.events.truncate(3);
    saved.events.remove(1);
    assert!(matches!(nodice::load_checked(saved), Err(nodice::SaveError::Replay(_))));
}
