//! Builders and drivers shared by the Iron Triangle integration tests.
//!
//! Everything goes through `table::Table<IronTriangle>` and `Command`s; the helpers only save
//! typing (sheets, setups, whole turns) and check the table's contract (a refused command
//! leaves the state and the log as they were).

// Each test file uses a different subset of these helpers.
#![allow(dead_code)]

use iron_triangle::chain::{ComboCard, ComboChain, DisadvantageChain};
use iron_triangle::conflict::{Entrant, SeatSpec};
use iron_triangle::turn::Play;
use iron_triangle::{
    Character, Combo, Command, Conflict, Energy, Event, FighterId, IronTriangle, KnownMove, Move, Phase,
    RuleError, Setup, Stakes, Stance, Step,
};
use rand::RngExt;
use table::{Role, SeatId, Table, TableRng, Viewer};

/// Submits a command that must be accepted: `ok!(game, seat, command)`; the seat and command
/// are evaluated first, so they may look at the game. Returns the events.
#[macro_export]
macro_rules! ok {
    ($g:expr, $seat:expr, $cmd:expr) => {{
        let seat = $seat;
        let cmd = $cmd;
        $crate::common::submit_ok(&mut $g, seat, cmd)
    }};
}

/// Submits a command that must be refused, checking the state and log are unchanged:
/// `refused!(game, seat, command)`. Returns the error.
#[macro_export]
macro_rules! refused {
    ($g:expr, $seat:expr, $cmd:expr) => {{
        let seat = $seat;
        let cmd = $cmd;
        $crate::common::submit_refused(&mut $g, seat, cmd)
    }};
}

/// The table every test drives.
pub type Game = Table<IronTriangle>;

/// The name of the GM's seat in every setup built here.
pub const GM_SEAT: &str = "gm";

/// A move from its symbols, e.g. `mv("▨☰")`.
pub fn mv(s: &str) -> Move {
    s.parse().unwrap_or_else(|e| panic!("bad move {s:?} in a test: {e}"))
}

/// A stance from text, e.g. `st("2▨")` or `st("0")`.
pub fn st(s: &str) -> Stance {
    s.parse().unwrap_or_else(|e| panic!("bad stance {s:?} in a test: {e}"))
}

/// Energy from ○, ▨, ◆.
pub fn en(d: u8, g: u8, a: u8) -> Energy {
    Energy::new(d, g, a)
}

/// `CommitStance` from text.
pub fn stance(s: &str) -> Command {
    Command::CommitStance { stance: st(s) }
}

/// `CommitMove` from text (`"surrender"` surrenders).
pub fn play(s: &str) -> Command {
    Command::CommitMove { play: s.parse::<Play>().unwrap() }
}

/// A character sheet. Moves are named after their symbols; `combos` are (from, follow-ups).
pub fn sheet(
    name: &str,
    level: u32,
    energy: Energy,
    moves: &[&str],
    combos: &[(&str, &[&str])],
) -> Character {
    Character {
        name: name.into(),
        level,
        energy,
        moves: moves.iter().map(|m| KnownMove { name: format!("move {m}"), card: mv(m) }).collect(),
        combos: combos
            .iter()
            .map(|(from, fu)| Combo { from: mv(from), follow_ups: fu.iter().map(|m| mv(m)).collect() })
            .collect(),
        ..Character::default()
    }
}

/// A level-0 player character with the three starting moves (a valid §4 sheet when the
/// energy totals 10 with at least 1 in each type).
pub fn pc(name: &str, energy: Energy) -> Character {
    sheet(name, 0, energy, &["○☵", "▨☷", "◆☲"], &[])
}

/// An NPC knowing `moves` (NPC sheets are not held to the creation rules).
pub fn npc(name: &str, energy: Energy, moves: &[&str]) -> Character {
    sheet(name, 0, energy, moves, &[])
}

/// An NPC knowing all thirteen moves.
pub fn npc_all(name: &str, energy: Energy) -> Character {
    let all: Vec<String> = Move::ALL.iter().map(|m| m.to_string()).collect();
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    npc(name, energy, &refs)
}

/// The nine three-element moves.
pub const NINE: [&str; 9] = ["○☷", "○☵", "○☲", "▨☷", "▨☵", "▨☲", "◆☷", "◆☵", "◆☲"];

/// Sets a sheet's current energy (below its maximum).
pub fn with_current(mut c: Character, current: Energy) -> Character {
    c.current = Some(current);
    c
}

/// Builds a setup: player characters on named player seats, NPCs on the GM's seat.
#[derive(Debug, Clone, Default)]
pub struct Build {
    stakes: Stakes,
    seats: Vec<SeatSpec>,
    characters: Vec<Entrant>,
}

impl Build {
    /// An empty setup.
    pub fn new() -> Self {
        Build::default()
    }

    /// A lethal conflict.
    pub fn lethal(mut self) -> Self {
        self.stakes.lethal = true;
        self
    }

    /// A minor conflict.
    pub fn minor(mut self) -> Self {
        self.stakes.minor = true;
        self
    }

    fn seat(&mut self, name: &str, role: Role) {
        if !self.seats.iter().any(|s| s.name == name) {
            self.seats.push(SeatSpec { name: name.into(), role });
        }
    }

    /// Adds a seat with no character (e.g. a GM seat with no NPCs).
    pub fn empty_seat(mut self, name: &str, role: Role) -> Self {
        self.seat(name, role);
        self
    }

    /// A character on a player's seat (the seat is created on first use).
    pub fn pc(mut self, seat: &str, c: Character) -> Self {
        self.seat(seat, Role::Player);
        self.characters.push(Entrant { seat: seat.into(), character: c });
        self
    }

    /// A character on the GM's seat.
    pub fn npc(mut self, c: Character) -> Self {
        self.seat(GM_SEAT, Role::Gm);
        self.characters.push(Entrant { seat: GM_SEAT.into(), character: c });
        self
    }

    /// The setup.
    pub fn setup(&self) -> Setup {
        Setup {
            stakes: self.stakes.clone(),
            seats: self.seats.clone(),
            characters: self.characters.clone(),
            edition: Default::default(),
            seed: 0,
        }
    }

    /// The conflict (panics if the setup is refused).
    pub fn conflict(&self) -> Conflict {
        Conflict::new(self.setup()).unwrap_or_else(|e| panic!("setup refused: {e}"))
    }

    /// A table at the start of the conflict.
    pub fn table(&self) -> Game {
        Table::new(self.conflict())
    }
}

/// A seat by name.
pub fn seat(g: &Game, name: &str) -> SeatId {
    g.state().seats.find(name).unwrap()
}

/// A character by name.
pub fn id(g: &Game, name: &str) -> FighterId {
    g.state().find(name).unwrap_or_else(|| panic!("no character {name}"))
}

/// A character by name in a conflict.
pub fn cid(c: &Conflict, name: &str) -> FighterId {
    c.find(name).unwrap_or_else(|| panic!("no character {name}"))
}

/// The seat controlling a character.
pub fn seat_of(g: &Game, name: &str) -> SeatId {
    g.state().fighter(id(g, name)).seat
}

/// Current energy of a character.
pub fn energy(g: &Game, name: &str) -> Energy {
    g.state().fighter(id(g, name)).energy
}

/// A disadvantage chain from symbols.
pub fn chain(cards: &[&str]) -> DisadvantageChain {
    DisadvantageChain::from_cards(cards.iter().map(|c| mv(c)).collect())
}

/// A combo chain of `side`'s character `by` against `against`, from symbols.
pub fn combo_chain(c: &Conflict, by: &str, against: &str, cards: &[&str]) -> ComboChain {
    let by = cid(c, by);
    ComboChain {
        side: c.fighter(by).side,
        against: cid(c, against),
        cards: cards.iter().map(|m| ComboCard { by, card: mv(m) }).collect(),
    }
}

/// Submits a command that must be accepted; returns the events it caused.
#[track_caller]
pub fn submit_ok(g: &mut Game, seat: SeatId, cmd: Command) -> Vec<Event> {
    match g.submit(seat, &cmd) {
        Ok(events) => events.to_vec(),
        Err(e) => panic!("{cmd:?} from seat {} refused: {e}", seat.0),
    }
}

/// Submits a command that must be refused; checks that the state and the log are unchanged,
/// and returns the error.
#[track_caller]
pub fn submit_refused(g: &mut Game, seat: SeatId, cmd: Command) -> RuleError {
    let state = g.state().clone();
    let log = g.log().to_vec();
    let err = match g.submit(seat, &cmd) {
        Ok(events) => panic!("{cmd:?} from seat {} was accepted: {events:?}", seat.0),
        Err(e) => e,
    };
    assert_eq!(g.state(), &state, "a refused command changed the state");
    assert_eq!(g.log(), &log[..], "a refused command changed the log");
    err
}

/// The legal commands of a seat.
pub fn legal(g: &Game, seat: SeatId) -> Vec<Command> {
    let mut out = Vec::new();
    g.legal_commands(seat, &mut out);
    out
}

/// The turn in progress.
pub fn turn(g: &Game) -> &iron_triangle::conflict::Turn {
    match &g.state().phase {
        Phase::Turn(t) => t,
        other => panic!("not in a turn: {other:?}"),
    }
}

/// The aftermath in progress.
pub fn aftermath(g: &Game) -> &iron_triangle::conflict::Aftermath {
    match &g.state().phase {
        Phase::Aftermath(a) => a,
        other => panic!("not in an aftermath: {other:?}"),
    }
}

/// Gives the next turn to `active` if the game is waiting for that (first turn or passing);
/// does nothing if `active` already has the turn.
#[track_caller]
pub fn give_turn(g: &mut Game, active: &str) -> Vec<Event> {
    let to = id(g, active);
    match &g.state().phase {
        Phase::FirstTurn => ok!(*g, seat_of(g, active), Command::TakeFirstTurn { fighter: to }),
        Phase::Aftermath(_) => {
            let decider = g.awaiting()[0];
            ok!(*g, decider, Command::PassTurn { to })
        }
        Phase::Turn(t) if t.active == to => Vec::new(),
        other => panic!("cannot give the turn to {active} in {other:?}"),
    }
}

/// Plays one turn up to its resolution: gives the turn to `active` if needed, chooses the
/// opponent if the engine did not, commits both stances then both moves (active first).
/// Losses that need a choice are left pending. Returns every event.
#[track_caller]
pub fn play_turn(
    g: &mut Game,
    active: &str,
    opponent: &str,
    stances: [&str; 2],
    moves: [&str; 2],
) -> Vec<Event> {
    let mut events = give_turn(g, active);
    let (a, o) = (id(g, active), id(g, opponent));
    assert_eq!(turn(g).active, a, "{active} should be active");
    if turn(g).step == Step::Opponent {
        events.extend(ok!(*g, seat_of(g, active), Command::ChooseOpponent { opponent: o }));
    }
    assert_eq!(turn(g).opponent, Some(o), "{opponent} should be the opponent");
    events.extend(ok!(*g, seat_of(g, active), stance(stances[0])));
    events.extend(ok!(*g, seat_of(g, opponent), stance(stances[1])));
    events.extend(ok!(*g, seat_of(g, active), play(moves[0])));
    events.extend(ok!(*g, seat_of(g, opponent), play(moves[1])));
    events
}

/// Settles every pending loss with the documented default spread.
#[track_caller]
pub fn settle(g: &mut Game) -> Vec<Event> {
    let mut events = Vec::new();
    while let Phase::Aftermath(a) = &g.state().phase {
        let c = g.state();
        let Some(p) = c.pending(a).next() else { break };
        let (_, due, room) = c.pending_parts(a, p);
        let spread = room.default_spread(due);
        let s = c.chooser(a, p);
        let cmd = if p.is_gain(c) { Command::SpreadGain { spread } } else { Command::SpreadLoss { spread } };
        events.extend(ok!(*g, s, cmd));
    }
    events
}

/// A whole turn: [`play_turn`] then [`settle`].
#[track_caller]
pub fn play_full(
    g: &mut Game,
    active: &str,
    opponent: &str,
    stances: [&str; 2],
    moves: [&str; 2],
) -> Vec<Event> {
    let mut events = play_turn(g, active, opponent, stances, moves);
    events.extend(settle(g));
    events
}

/// The turn result among events.
pub fn resolved(events: &[Event]) -> iron_triangle::TurnResult {
    events
        .iter()
        .find_map(|e| match e {
            Event::TurnResolved { result } => Some(*result),
            _ => None,
        })
        .expect("no TurnResolved event")
}

/// The energy a character lost in a `LossTaken` event among `events`.
pub fn loss_taken(events: &[Event], who: FighterId) -> Option<Energy> {
    events.iter().find_map(|e| match e {
        Event::LossTaken { fighter, taken } if *fighter == who => Some(*taken),
        _ => None,
    })
}

/// Every viewer of a table: each seat, then the spectator.
pub fn viewers(g: &Game) -> Vec<Viewer> {
    let mut v: Vec<Viewer> = g.state().seats.iter().map(|(s, _)| Viewer::Seat(s)).collect();
    v.push(Viewer::Spectator);
    v
}

/// A random legal command from a random awaited seat, or `None` when nobody is awaited.
pub fn random_legal(g: &Game, rng: &mut TableRng) -> Option<(SeatId, Command)> {
    let awaiting = g.awaiting();
    if awaiting.is_empty() {
        return None;
    }
    let seat = awaiting[rng.random_range(0..awaiting.len())];
    let cmds = legal(g, seat);
    assert!(!cmds.is_empty(), "seat {} is awaited but has no legal command at {:?}", seat.0, g.state().phase);
    // Surrendering and ending a combo end the interesting part of a game early: give them
    // one chance in ten when there is anything else to do.
    let rare = |c: &Command| matches!(c, Command::EndCombo | Command::CommitMove { play: Play::Surrender });
    let pick = cmds[rng.random_range(0..cmds.len())];
    if rare(&pick) && rng.random_range(0..10) != 0 {
        let others: Vec<Command> = cmds.iter().filter(|c| !rare(c)).cloned().collect();
        if !others.is_empty() {
            return Some((seat, others[rng.random_range(0..others.len())]));
        }
    }
    Some((seat, pick))
}

/// Plays random legal commands until the conflict is over; returns how many were given.
/// Panics after `max_steps`.
pub fn play_out_random(g: &mut Game, rng: &mut TableRng, max_steps: usize) -> usize {
    for step in 0..max_steps {
        if g.is_over() {
            return step;
        }
        let (seat, cmd) = random_legal(g, rng).expect("the conflict waits for nobody but is not over");
        if let Err(e) = g.submit(seat, &cmd) {
            panic!("legal command {cmd:?} refused: {e}");
        }
    }
    assert!(g.is_over(), "the conflict did not end within {max_steps} legal commands");
    max_steps
}

/// A fighter of a conflict by name, to set up a mid-conflict situation.
pub fn fm<'a>(c: &'a mut Conflict, name: &str) -> &'a mut iron_triangle::conflict::Fighter {
    let i = usize::from(cid(c, name).0);
    &mut c.fighters[i]
}

/// Whether an error message names a rules section.
pub fn names_rule(e: &RuleError, section: &str) -> bool {
    // A player reads no section of a file they do not have: the text names none; an
    // out-of-turn refusal keeps the section it is governed by as data.
    let text = e.to_string();
    !text.contains('§')
        && match e {
            RuleError::OutOfTurn { section: s, .. } => s.starts_with(section),
            _ => true,
        }
}

/// A different stance than `s`, for counterfactual views.
fn other_stance(s: Stance) -> Stance {
    if s.amount == 0 { Stance::new(iron_triangle::Action::Attack, 7) } else { Stance::NONE }
}

/// A different play than `p`, for counterfactual views.
fn other_play(p: Play) -> Play {
    match p {
        Play::Surrender => Play::Move(Move::ALL[12]),
        Play::Move(m) if m == Move::ALL[12] => Play::Move(Move::ALL[0]),
        Play::Move(_) => Play::Surrender,
    }
}

/// Checks that no viewer but a commitment's own seat can learn a face-down stance or move:
/// - the phase shows the slot `FaceDown` (serialized as `{"state":"face_down"}`) to others and
///   `Known` to the owner; face-up slots are `Known` to everyone;
/// - every other viewer's whole view is identical to the one it would get had the hidden
///   card been different (so the value cannot leak through any field);
/// - a hidden stance's JSON appears nowhere in another viewer's serialized view (unless that
///   viewer's own card in the other slot happens to be the same);
/// - `log_for` of every viewer shows the value of no `StanceCommitted` / `MoveCommitted` /
///   `SpecialCommitted` of a character it does not control (they are blanked) (checked when `logs` is true; it replays the whole log).
pub fn assert_commitments_hidden(g: &Game, logs: bool) {
    use iron_triangle::view::PhaseView;
    use table::{Face, Sealed};
    let state = g.state();
    if let Phase::Turn(t) = &state.phase {
        let pair = t.pair().unwrap_or([t.active; 2]);
        for viewer in viewers(g) {
            let view = g.view(viewer);
            let PhaseView::Turn { stances, plays, .. } = &view.phase else {
                panic!("a turn is viewed as {:?}", view.phase)
            };
            let json = serde_json::to_string(&view).unwrap();
            for pos in 0..2 {
                if t.opponent.is_none() {
                    assert_eq!((stances[pos], plays[pos]), (Face::Empty, Face::Empty));
                    continue;
                }
                let mine = viewer == Viewer::Seat(state.fighter(pair[pos]).seat);
                match t.stances[pos] {
                    Sealed::Empty => assert_eq!(stances[pos], Face::Empty),
                    Sealed::FaceUp(s) => assert_eq!(stances[pos], Face::Known(s)),
                    Sealed::FaceDown(s) if mine => assert_eq!(stances[pos], Face::Known(s)),
                    Sealed::FaceDown(s) => {
                        assert_eq!(stances[pos], Face::FaceDown, "{viewer:?} sees a hidden stance");
                        assert_eq!(serde_json::to_string(&stances[pos]).unwrap(), r#"{"state":"face_down"}"#);
                        if stances[1 - pos] != Face::Known(s) {
                            let needle = serde_json::to_string(&s).unwrap();
                            assert!(
                                !json.contains(&needle),
                                "{viewer:?}'s view shows the hidden stance {needle}"
                            );
                        }
                        let mut other = state.clone();
                        if let Phase::Turn(ot) = &mut other.phase {
                            ot.stances[pos] = Sealed::FaceDown(other_stance(s));
                        }
                        assert_eq!(other.view(viewer), view, "{viewer:?}'s view depends on a hidden stance");
                    }
                }
                match t.plays[pos] {
                    Sealed::Empty => assert_eq!(plays[pos], Face::Empty),
                    Sealed::FaceUp(p) => assert_eq!(plays[pos], Face::Known(p)),
                    Sealed::FaceDown(p) if mine => assert_eq!(plays[pos], Face::Known(p)),
                    Sealed::FaceDown(p) => {
                        assert_eq!(plays[pos], Face::FaceDown, "{viewer:?} sees a hidden move");
                        assert_eq!(serde_json::to_string(&plays[pos]).unwrap(), r#"{"state":"face_down"}"#);
                        let mut other = state.clone();
                        if let Phase::Turn(ot) = &mut other.phase {
                            ot.plays[pos] = Sealed::FaceDown(other_play(p));
                        }
                        assert_eq!(other.view(viewer), view, "{viewer:?}'s view depends on a hidden move");
                    }
                }
            }
        }
    }
    if logs {
        for viewer in viewers(g) {
            for e in g.log_for(viewer) {
                if let Event::StanceCommitted { fighter, stance: Some(_) }
                | Event::MoveCommitted { fighter, play: Some(_) }
                | Event::SpecialCommitted { fighter, hidden: false, .. } = e
                {
                    assert_eq!(
                        Viewer::Seat(state.fighter(fighter).seat),
                        viewer,
                        "{viewer:?}'s log shows another seat's commitment {e:?}"
                    );
                }
            }
        }
    }
}
