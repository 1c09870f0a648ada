//! Seed Step 1, Engagement: the GM decides who interacts each Hand and may split a brawl into
//! interaction clusters; each cluster resolves exactly as a Hand of its own (its own pot,
//! Jackpot, UTG and one-Wildcard limit), and Actors outside every cluster sit the Hand out
//! (Decision 33 of `docs/nodice.md`).

mod common;

use common::*;
use nodice::*;
use proptest::prelude::*;
use table::{Role, SeatId, Seats, SideId, Table};

const SERIALS: [&str; 4] = [
    "R2/1(38/5)-M4(5/4/3)-B4(4/4/4)-S3(2/3/4)",
    "M3(3/3/3)-B3(3/3/3)-S3(3/3/3)",
    "M2(2/2/3)-B4(5/4/3)-S2(1/2/3)",
    "M3(4/3/2)-B2(2/2/2)-S4(4/4/5)",
];
const NAMES: [&str; 4] = ["A", "B", "C", "D"];

/// Seats p0–p3 (one per Actor) and a GM seat; the Actors `ids` of A–D, each on its own side.
fn setup(ids: &[usize]) -> Setup {
    let seats = Seats::new(vec![
        seat("p0", 0, Role::Player),
        seat("p1", 1, Role::Player),
        seat("p2", 2, Role::Player),
        seat("p3", 3, Role::Player),
        seat("gm", 4, Role::Gm),
    ])
    .unwrap();
    let actors = ids
        .iter()
        .map(|&i| {
            let kind = if i == 0 || i == 3 { Kind::Pc } else { Kind::Npc };
            ActorSheet::new(NAMES[i], kind, block(SERIALS[i]), SeatId(i as u16), SideId(i as u8))
        })
        .collect();
    let options = Options { stalemate_hands: 0, ..Options::default() };
    Setup {
        seats,
        actors,
        initiator: ActorId(0),
        stakes: Some(Stakes::new(2).unwrap()),
        options,
        extensions: vec![],
        seed: 3,
    }
}

/// The id in a separate Conflict of the brawl's Actor `id`, and which Conflict.
fn mirror(id: ActorId) -> (usize, ActorId) {
    match id.0 {
        0 => (0, ActorId(0)),
        1 => (0, ActorId(1)),
        2 => (1, ActorId(0)),
        _ => (1, ActorId(1)),
    }
}

fn mirror_command(c: &Command) -> (usize, Command) {
    let mut c = c.clone();
    let (k, new) = match &mut c {
        Command::CommitAspect { actor, targets, .. } => {
            let (k, a) = mirror(*actor);
            *actor = a;
            *targets = targets.iter().fold(Targets::NONE, |t, x| t.with(mirror(x).1));
            (k, a)
        }
        Command::CommitAction { actor, .. }
        | Command::SpreadDamage { actor, .. }
        | Command::Withdraw { actor }
        | Command::Justify { actor, .. } => {
            let (k, a) = mirror(*actor);
            *actor = a;
            (k, a)
        }
        _ => unreachable!(),
    };
    let _ = new;
    (k, c)
}

/// Plays the brawl split into two 1-vs-1 clusters (A–B, C–D) next to two separate Conflicts,
/// choosing each command by the next of `picks` (cycled), and compares them.
fn two_clusters_like_two_conflicts(picks: Vec<usize>) -> Result<(), TestCaseError> {
    let mut brawl = start(setup(&[0, 1, 2, 3]));
    let gm = SeatId(4);
    brawl
        .submit(
            gm,
            &Command::Engage {
                clusters: vec![
                    Targets::one(ActorId(0)).with(ActorId(1)),
                    Targets::one(ActorId(2)).with(ActorId(3)),
                ],
            },
        )
        .unwrap();
    let mut sep = [start(setup(&[0, 1])), start(setup(&[2, 3]))];
    let mut legal = Vec::new();
    let mut picks = picks.into_iter().cycle();
    let mut steps = 0;
    let done = |sep: &[Table<NoDice>; 2]| sep[0].is_over() && sep[1].is_over();
    while !done(&sep) && !brawl.is_over() && steps < 400 {
        steps += 1;
        let seat = brawl.awaiting()[0];
        brawl.legal_commands(seat, &mut legal);
        let choices: Vec<&Command> =
            legal.iter().filter(|c| !matches!(c, Command::Withdraw { .. })).collect();
        let command = choices[picks.next().unwrap() % choices.len()].clone();
        brawl.submit(seat, &command).unwrap();
        let (k, m) = mirror_command(&command);
        prop_assert!(!sep[k].is_over(), "the brawl asks an Actor of a finished Conflict: {command:?}");
        sep[k].submit(seat, &m).unwrap();
        prop_assert!(chips_conserved(brawl.state()), "chips after {:?}", command);
    }
    // Once both clusters have lost their opposition the engagement dissolves and the
    // brawl may go on with everyone (Decision 33): compare the state just before that.
    let mut b = brawl.initial().clone();
    for e in brawl.log() {
        let had = !b.clusters.is_empty();
        b.apply(e);
        if had && b.clusters.is_empty() {
            break;
        }
    }
    let b = &b;
    for (i, name) in NAMES.iter().enumerate() {
        let (k, a) = mirror(ActorId(i as u8));
        let (x, y) = (&b.actors[i], &sep[k].state().actors[a.index()]);
        prop_assert_eq!(x.stacks, y.stacks, "{}", name);
        prop_assert_eq!(x.on_card, y.on_card);
        prop_assert_eq!(x.status, y.status, "{}", name);
        prop_assert_eq!(x.wildcards, y.wildcards);
        prop_assert_eq!(x.damage_taken, y.damage_taken);
    }
    // Each cluster's Jackpot: live for the one playing, stored for the other.
    for (k, cluster) in b.clusters.iter().enumerate() {
        let jackpot = if usize::from(b.cluster) == k { b.jackpot } else { cluster.jackpot };
        if !sep[k].is_over() {
            prop_assert_eq!(jackpot, sep[k].state().jackpot, "cluster {}", k + 1);
        }
    }
    prop_assert!(chips_conserved(brawl.state()));
    // The save replays through the checked load.
    prop_assert!(load_checked(brawl.save()).is_ok());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// A 4-Actor brawl split into two 1-vs-1 clusters (A–B, C–D) plays exactly like two
    /// separate Conflicts: the same commands are accepted in the same order, and every
    /// Actor's chips, status and Wildcards, each cluster's Jackpot and UTG come out the same.
    #[test]
    fn engagement_two_clusters_play_like_two_separate_conflicts(picks in prop::collection::vec(any::<usize>(), 1..300)) {
        two_clusters_like_two_conflicts(picks)?;
    }
}

/// Chip conservation (Decision 16) with clusters (Decision 33): a cluster's stored Jackpot is
/// in play. Issue 32, proptest's case: the Conflict ended while the C–D cluster still held a
/// Jackpot of 12 chips, which went uncounted.
#[test]
fn chips_in_a_clusters_stored_jackpot_stay_in_play() {
    let picks = vec![
        16933732957958402333,
        2787333990166945419,
        8356983105604718187,
        5764122831349379575,
        2108542659751264864,
        13013795790458018117,
        2336346941890957511,
        488158511518707502,
        6088281128296770782,
        7968923915372920922,
        6401578887861734912,
        4002102204115777963,
        7693040900426921508,
        14183058899316559439,
        7848121582488110626,
    ];
    two_clusters_like_two_conflicts(picks).unwrap();
}

#[test]
fn engagement_outside_every_cluster_sits_out_and_targets_stay_inside() {
    let mut t = start(setup(&[0, 1, 2, 3]));
    let gm = SeatId(4);
    // Only the GM engages, and at the start of a Hand.
    let one = vec![Targets::one(ActorId(0)).with(ActorId(1))];
    assert_eq!(t.submit(SeatId(0), &Command::Engage { clusters: one.clone() }), Err(RuleError::NotGm));
    t.submit(gm, &Command::Engage { clusters: one.clone() }).unwrap();
    assert_eq!(t.state().order.as_slice(), &[ActorId(0), ActorId(1)], "C and D sit the Hand out");
    // A may not target C (outside its cluster).
    let bad = Command::CommitAspect {
        actor: ActorId(0),
        aspect: Aspect::Body,
        ante: Attribute::Str,
        targets: Targets::one(ActorId(2)),
        intent: None,
    };
    assert!(matches!(t.submit(SeatId(0), &bad), Err(RuleError::BadTarget(_))));
    commit_aspect(&mut t, "A", "STR", &["B"]).unwrap();
    let e = t.submit(gm, &Command::Engage { clusters: vec![] }).unwrap_err();
    assert!(matches!(e, RuleError::Engagement(_)), "{e}");
    // Bad clusters are refused, naming the problem.
    let mut fresh = start(setup(&[0, 1, 2, 3]));
    for (clusters, what) in [
        (vec![Targets::one(ActorId(0))], "two sides"),
        (
            vec![Targets::one(ActorId(0)).with(ActorId(1)), Targets::one(ActorId(1)).with(ActorId(2))],
            "two clusters",
        ),
    ] {
        let e = fresh.submit(gm, &Command::Engage { clusters }).unwrap_err();
        assert!(e.to_string().contains(what), "{e}");
    }
    // The Hand plays with A and B only; C and D keep every chip.
    finish_hand(&mut t);
    assert_eq!(values(&t, "C"), Attribute::ALL.map(|x| block(SERIALS[2]).value(x).map_or(0, u16::from)));
}
