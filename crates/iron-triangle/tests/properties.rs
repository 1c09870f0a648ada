//! Property tests of the conflict engine: random setups, random (legal and arbitrary)
//! commands, and the invariants of the rules reference (§4, §5) and of the table (replay,
//! save, hidden information).
//!
//! The proptest seed is fixed so the suite is deterministic; set `PROPTEST_RNG_SEED` to
//! explore other inputs.

#[macro_use]
mod common;

use common::*;
use iron_triangle::rules::Verdict;
use iron_triangle::turn::Play;
use iron_triangle::{
    Action, Character, Combo, Command, Conflict, Energy, FighterId, IronTriangle, Kind, KnownMove, Move,
    Phase, Stance, Status,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use rand::RngExt;
use table::{Saved, SeatId, Table, TableRng, seeded_rng};

fn config(cases: u32) -> Config {
    let seed = std::env::var("PROPTEST_RNG_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x1207_2019);
    Config { cases, failure_persistence: None, rng_seed: RngSeed::Fixed(seed), ..Config::default() }
}

// ---------------------------------------------------------------------------------------------
// Random sheets and setups (§4: PCs 10 points, at least 1 each; NPCs any energy ≥ 1 in all)
// ---------------------------------------------------------------------------------------------

fn shuffle<T>(v: &mut [T], rng: &mut TableRng) {
    for i in (1..v.len()).rev() {
        v.swap(i, rng.random_range(0..=i));
    }
}

/// Random combos between known moves, at most two follow-ups each.
fn random_combos(known: &[Move], rng: &mut TableRng) -> Vec<Combo> {
    let mut combos = Vec::new();
    for &from in known {
        if rng.random_range(0..3) == 0 {
            let mut pool = known.to_vec();
            shuffle(&mut pool, rng);
            let n = rng.random_range(1..=2.min(pool.len()));
            combos.push(Combo { from, follow_ups: pool[..n].to_vec() });
        }
    }
    combos
}

/// Current energy within `max`, sometimes below it, never zero in total.
fn random_current(max: Energy, rng: &mut TableRng) -> Option<Energy> {
    if rng.random_range(0..4) != 0 {
        return None;
    }
    let e = Energy::new(
        rng.random_range(0..=max.defend),
        rng.random_range(0..=max.grapple),
        rng.random_range(0..=max.attack),
    );
    (e.total() > 0).then_some(e)
}

fn known_moves(moves: &[Move]) -> Vec<KnownMove> {
    moves.iter().map(|m| KnownMove { name: format!("{m}"), card: *m }).collect()
}

/// A valid player character: level 0–3, 10 energy points with at least 1 in each type, the
/// three starting moves plus up to `level` more three-element moves, combos from level 1.
fn random_pc(name: &str, rng: &mut TableRng) -> Character {
    let level = rng.random_range(0..=3u32);
    let d = rng.random_range(1..=8u8);
    let g = rng.random_range(1..=9 - d);
    let energy = Energy::new(d, g, 10 - d - g);
    let mut moves = Move::STARTING.to_vec();
    let mut others: Vec<Move> =
        Move::ALL.iter().copied().filter(|m| m.element().is_basic() && !moves.contains(m)).collect();
    shuffle(&mut others, rng);
    moves.extend(&others[..rng.random_range(0..=level as usize)]);
    let combos = if level > 0 { random_combos(&moves, rng) } else { Vec::new() };
    let c = Character {
        name: name.into(),
        level,
        energy,
        current: random_current(energy, rng),
        moves: known_moves(&moves),
        combos,
        ..Character::default()
    };
    assert_eq!(c.validate(Kind::Pc), Ok(()), "the generator made an invalid PC: {c:?}");
    c
}

/// A valid NPC: any energy of at most 6 per type with at least 1 in all, any non-empty set of
/// moves, any combos between them.
fn random_npc(name: &str, rng: &mut TableRng) -> Character {
    let energy = loop {
        let e = Energy::new(rng.random_range(0..=6), rng.random_range(0..=6), rng.random_range(0..=6));
        if e.total() > 0 {
            break e;
        }
    };
    let mut moves: Vec<Move> = Move::ALL.iter().copied().filter(|_| rng.random_range(0..2) == 0).collect();
    if moves.is_empty() {
        moves.push(Move::ALL[rng.random_range(0..13)]);
    }
    let combos = random_combos(&moves, rng);
    let c = Character {
        name: name.into(),
        level: 0,
        energy,
        current: random_current(energy, rng),
        moves: known_moves(&moves),
        combos,
        ..Character::default()
    };
    assert_eq!(c.validate(Kind::Npc), Ok(()), "the generator made an invalid NPC: {c:?}");
    c
}

/// The shape of a random conflict.
#[derive(Debug, Clone)]
struct Shape {
    /// 1v1 or 2v3.
    big: bool,
    /// In a 2v3, whether the two player characters share a seat.
    shared_seat: bool,
    lethal: bool,
    minor: bool,
    /// Seeds the sheets.
    sheets: u64,
}

fn shape() -> impl Strategy<Value = Shape> {
    (any::<bool>(), any::<bool>(), any::<bool>(), prop::bool::weighted(0.2), any::<u64>()).prop_map(
        |(big, shared_seat, lethal, minor, sheets)| Shape { big, shared_seat, lethal, minor, sheets },
    )
}

fn build(shape: &Shape) -> Conflict {
    let mut rng = seeded_rng(shape.sheets);
    let mut b = Build::new();
    if shape.lethal {
        b = b.lethal();
    }
    if shape.minor {
        b = b.minor();
    }
    let (pcs, npcs) = if shape.big { (2, 3) } else { (1, 1) };
    for i in 0..pcs {
        let seat = if shape.shared_seat { "p1".to_owned() } else { format!("p{}", i + 1) };
        b = b.pc(&seat, random_pc(&format!("A{}", i + 1), &mut rng));
    }
    for i in 0..npcs {
        b = b.npc(random_npc(&format!("B{}", i + 1), &mut rng));
    }
    Conflict::new(b.setup()).expect("a random setup of valid sheets starts")
}

// ---------------------------------------------------------------------------------------------
// Random commands
// ---------------------------------------------------------------------------------------------

/// Any command at all, with arguments in and out of range: fighters beyond the conflict,
/// stances above any energy, moves nobody knows, spreads that do not add up.
fn arbitrary_command() -> impl Strategy<Value = Command> {
    let fighter = (0u8..8).prop_map(FighterId);
    let action = prop_oneof![Just(Action::Defend), Just(Action::Grapple), Just(Action::Attack)];
    let stance = (action, 0u8..10).prop_map(|(a, n)| Stance::new(a, n));
    let play = prop_oneof![(0usize..13).prop_map(|i| Play::Move(Move::ALL[i])), Just(Play::Surrender)];
    let spread = (0u8..8, 0u8..8, 0u8..8).prop_map(|(d, g, a)| Energy::new(d, g, a));
    let verdict = prop_oneof![Just(Verdict::Players), Just(Verdict::Gm), Just(Verdict::Draw)];
    prop_oneof![
        fighter.clone().prop_map(|fighter| Command::TakeFirstTurn { fighter }),
        fighter.clone().prop_map(|opponent| Command::ChooseOpponent { opponent }),
        Just(Command::EndCombo),
        stance.prop_map(|stance| Command::CommitStance { stance }),
        play.prop_map(|play| Command::CommitMove { play }),
        spread.prop_map(|spread| Command::SpreadLoss { spread }),
        any::<bool>().prop_map(|kill| Command::DecideMercy { kill }),
        fighter.prop_map(|to| Command::PassTurn { to }),
        verdict.prop_map(|verdict| Command::RecordOutcome { verdict }),
    ]
}

/// One step of a random session.
#[derive(Debug, Clone)]
enum Step {
    /// One of the legal commands of one of the awaited seats (indices taken modulo).
    Legal { seat: usize, index: usize },
    /// An arbitrary command from any seat number (including one past the last seat).
    Any { seat: u16, command: Command },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (any::<usize>(), any::<usize>()).prop_map(|(seat, index)| Step::Legal { seat, index }),
        2 => (0u16..5, arbitrary_command()).prop_map(|(seat, command)| Step::Any { seat, command }),
    ]
}

/// The seat and command a step stands for now, or `None` if nobody is awaited.
fn pick(g: &Game, step: &Step) -> Option<(SeatId, Command)> {
    match step {
        Step::Legal { seat, index } => {
            let awaiting = g.awaiting();
            if awaiting.is_empty() {
                return None;
            }
            let seat = awaiting[seat % awaiting.len()];
            let cmds = legal(g, seat);
            (!cmds.is_empty()).then(|| (seat, cmds[index % cmds.len()]))
        }
        Step::Any { seat, command } => Some((SeatId(seat % (g.state().seats.len() as u16 + 1)), *command)),
    }
}

/// A command as the engine records it (a stance of 0 is "no stance" whatever its type).
fn normalized(c: Command) -> Command {
    match c {
        Command::CommitStance { stance } if stance.amount == 0 => {
            Command::CommitStance { stance: Stance::NONE }
        }
        c => c,
    }
}

// ---------------------------------------------------------------------------------------------
// Invariants
// ---------------------------------------------------------------------------------------------

/// Whether the turn's losses are still being spread (a character zeroed by a forced loss
/// goes out once both of the pair have taken theirs).
fn losses_pending(c: &Conflict) -> bool {
    matches!(&c.phase, Phase::Aftermath(a) if a.loss_taken != [true; 2])
}

fn check_invariants(g: &Game) -> Result<(), TestCaseError> {
    let c = g.state();
    for id in c.ids() {
        let f = c.fighter(id);
        // §5.3: energy never goes below zero (u8) nor above the maximum.
        prop_assert!(
            f.energy.fits_within(&f.character.energy),
            "{} has {} above its maximum",
            f.name(),
            f.energy
        );
        // §5.3: all three types at 0 → out.
        if f.energy.total() == 0 && !losses_pending(c) {
            prop_assert!(!f.is_in(), "{} has no energy but is still in ({:?})", f.name(), c.phase);
        }
        // §5.4: a disadvantage chain never holds a move twice.
        prop_assert_eq!(f.disadvantage.set().len(), f.disadvantage.len() as usize);
        // Docs Decisions 6 and 11: a character that leaves (out or surrendered) loses its
        // disadvantage chain.
        if f.status != Status::In {
            prop_assert!(f.disadvantage.is_empty(), "{} left with a disadvantage chain", f.name());
        }
    }
    // §5.5: at most one chain (an Option), built by one side against one opponent.
    if let Some(chain) = &c.combo {
        prop_assert!(!chain.is_empty());
        prop_assert!(c.fighter(chain.against).side != chain.side);
        for card in &chain.cards {
            prop_assert_eq!(c.fighter(card.by).side, chain.side);
        }
    }
    match &c.phase {
        Phase::Over => {
            // §5.7: disadvantage and combos end.
            prop_assert!(c.ending.is_some());
            prop_assert!(c.combo.is_none());
            prop_assert!(c.ids().all(|id| c.fighter(id).disadvantage.is_empty()));
            prop_assert!(g.awaiting().is_empty());
        }
        Phase::Turn(t) => {
            prop_assert!(c.fighter(t.active).is_in(), "the active character is out");
            if let Some(o) = t.opponent {
                prop_assert!(c.fighter(o).is_in());
                prop_assert!(c.fighter(o).side != c.fighter(t.active).side);
            }
        }
        _ => {}
    }
    if !g.is_over() {
        // Never stuck: somebody is awaited, and every awaited seat has something to do.
        let awaiting = g.awaiting();
        prop_assert!(!awaiting.is_empty(), "nobody is awaited in {:?}", c.phase);
        for s in awaiting {
            prop_assert!(
                !legal(g, s).is_empty(),
                "seat {} is awaited with nothing to do in {:?}",
                s.0,
                c.phase
            );
        }
    }
    Ok(())
}

/// (b) Replaying the log, and a JSON round trip of the save, rebuild the same state.
fn check_replay(g: &Game) -> Result<(), TestCaseError> {
    let replayed = Table::<IronTriangle>::replay(g.initial().clone(), g.log().to_vec());
    prop_assert_eq!(replayed.state(), g.state());
    let json = serde_json::to_string(&g.save()).unwrap();
    let saved: Saved<IronTriangle> = serde_json::from_str(&json).unwrap();
    prop_assert_eq!(&saved, &g.save());
    let checked = Table::<IronTriangle>::load_checked(saved.clone());
    prop_assert!(checked.is_ok(), "a genuine save fails the checked loader: {:?}", checked.err());
    let checked = checked.unwrap();
    prop_assert_eq!(checked.state(), g.state());
    let loaded = Table::load(saved);
    prop_assert_eq!(loaded.state(), g.state());
    prop_assert_eq!(loaded.log(), g.log());
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(256))]

    /// (a) Random sessions mixing legal and arbitrary commands from random seats: a refused
    /// command changes neither the state nor the log; a command is accepted exactly when it is
    /// among the seat's legal commands; the invariants hold after every step; nothing panics.
    /// Then, with legal commands only, the conflict ends within a bounded number of steps.
    #[test]
    fn random_commands_keep_the_rules_invariants(shape in shape(), steps in prop::collection::vec(step(), 0..160), tail in any::<u64>()) {
        let mut g = Table::new(build(&shape));
        check_invariants(&g)?;
        for s in &steps {
            let Some((seat, cmd)) = pick(&g, s) else { continue };
            let listed = legal(&g, seat).contains(&normalized(cmd));
            let (state, log) = (g.state().clone(), g.log().to_vec());
            match g.submit(seat, &cmd) {
                Ok(_) => prop_assert!(listed, "{:?} from seat {} was accepted but not listed as legal", cmd, seat.0),
                Err(e) => {
                    prop_assert!(!listed, "legal {:?} from seat {} was refused: {}", cmd, seat.0, e);
                    prop_assert_eq!(g.state(), &state, "refused {:?} changed the state", cmd);
                    prop_assert_eq!(g.log(), &log[..], "refused {:?} changed the log", cmd);
                }
            }
            check_invariants(&g)?;
        }
        check_replay(&g)?;
        let mut rng = seeded_rng(tail);
        let bound = 3000;
        for _ in 0..bound {
            let Some((seat, cmd)) = random_legal(&g, &mut rng) else { break };
            prop_assert!(g.submit(seat, &cmd).is_ok(), "legal {:?} refused", cmd);
            check_invariants(&g)?;
        }
        prop_assert!(g.is_over(), "the conflict did not end within {} legal commands", bound);
        check_replay(&g)?;
    }

    /// (b) At random points of random legal games, replay and the JSON save rebuild the
    /// identical state.
    #[test]
    fn replay_and_save_round_trip_rebuild_the_state(shape in shape(), seed in any::<u64>(), stops in prop::collection::vec(0usize..400, 1..4)) {
        let mut g = Table::new(build(&shape));
        let mut rng = seeded_rng(seed);
        let mut n = 0;
        while !g.is_over() && n < 3000 {
            if stops.contains(&n) {
                check_replay(&g)?;
            }
            let (seat, cmd) = random_legal(&g, &mut rng).expect("a live conflict waits for someone");
            prop_assert!(g.submit(seat, &cmd).is_ok());
            n += 1;
        }
        prop_assert!(g.is_over());
        check_replay(&g)?;
        // The hand-written `Clone::clone_from` (simulations restart from it) copies every field.
        let mut reused = g.state().clone();
        reused.clone_from(g.initial());
        prop_assert_eq!(&reused, g.initial());
        reused.clone_from(g.state());
        prop_assert_eq!(&reused, g.state());
    }

    /// (c) At every step of random legal games, a face-down stance or move is seen by its own
    /// seat only: faces, serialized views, counterfactual views and redacted logs.
    #[test]
    fn hidden_commitments_never_reach_another_seat(shape in shape(), seed in any::<u64>()) {
        let mut g = Table::new(build(&shape));
        let mut rng = seeded_rng(seed);
        let mut n = 0usize;
        while !g.is_over() && n < 3000 {
            assert_commitments_hidden(&g, n.is_multiple_of(8));
            let (seat, cmd) = random_legal(&g, &mut rng).expect("a live conflict waits for someone");
            prop_assert!(g.submit(seat, &cmd).is_ok());
            n += 1;
        }
        assert_commitments_hidden(&g, true);
    }

    /// (d) Random 1v1 and 2v3 setups of valid sheets start, and the engine's loss accounting
    /// matches §5.3 turn by turn: every `LossTaken` takes what the resolution said, capped by
    /// what was left, with the loser's counted stance part from the stance's type.
    #[test]
    fn random_setups_start_and_losses_follow_the_resolution(shape in shape(), seed in any::<u64>()) {
        let conflict = build(&shape);
        for id in conflict.ids() {
            let f = conflict.fighter(id);
            prop_assert_eq!(f.energy, f.character.current_energy());
            prop_assert!(f.energy.total() > 0);
            prop_assert!(f.is_in());
        }
        let mut g: Game = Table::new(conflict);
        let mut rng = seeded_rng(seed);
        let mut n = 0;
        while !g.is_over() && n < 3000 {
            let before = g.state().clone();
            let (seat, cmd) = random_legal(&g, &mut rng).expect("a live conflict waits for someone");
            let events = g.submit(seat, &cmd).map(|e| e.to_vec());
            prop_assert!(events.is_ok());
            let mut state = before;
            for e in events.unwrap() {
                if let (&iron_triangle::Event::LossTaken { fighter, taken }, Phase::Aftermath(a)) = (&e, &state.phase) {
                    let pos = a.pair.iter().position(|&p| p == fighter).expect("the loser is one of the pair");
                    let loss = a.result.losses[pos];
                    let had = state.fighter(fighter).energy;
                    prop_assert!(taken.fits_within(&had), "took {} from {}", taken, had);
                    prop_assert_eq!(taken.total(), loss.total().min(had.total()), "loss {:?} from {}", loss, had);
                    if let Some(t) = loss.stance_type {
                        prop_assert!(taken.get(t) >= loss.own_stance.min(had.get(t)), "the stance part comes from {:?}", t);
                    }
                }
                state.apply(&e);
            }
            n += 1;
        }
        prop_assert!(g.is_over());
    }
}
