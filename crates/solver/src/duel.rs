//! Whole 1v1 Iron Triangle conflicts solved exactly by backward induction (issue 7, part 3).
//!
//! A conflict between two characters without specials is a finite two-player zero-sum game
//! with simultaneous moves. Its *state* at the start of a turn is the energy per type of both
//! characters and the face-up chains: both disadvantage chains (§5.4) and the combo chain
//! (§5.5). The chains do not depend on energy, so they are numbered once as *chain
//! configurations* ([`Duel::configs`]), each with its transition table (which configuration
//! every pair of moves leads to, computed by the engine's [`resolve`] and [`after_turn`]).
//! A state is then `(○▨◆ of A, ○▨◆ of B, configuration)`, three small integers that index
//! a dense value table.
//!
//! Every turn costs somebody energy (a loss is at least a move's base, §5.3), so the states
//! form a DAG ordered by the two characters' total energy; values are computed level by
//! level from zero upwards. The value of a state is the value of the turn game (§5.2): the
//! stance stage is a matrix game whose cells are the values of the move-stage matrix games
//! under those stances; a move cell's value is the value of the state it leads to, with the
//! loser choosing the spread of its loss that is best for it (a maximum, kept per level in the
//! table `best_spread` so that every spread is looked at once), and on a tie both choosing
//! their spreads at once (a small matrix game). The combo chain's holder may end it before
//! choosing its move (§5.5): it does so when that is better for it.
//!
//! Values are the probability that A (the players' side, the first sheet) wins.
//!
//! **Decisions** (see `docs/solver.md`): surrender is left out, as it can never raise the
//! surrendering side's chance of winning (its payoff is 0, the least there is; removing a
//! weakly dominated strategy leaves a zero-sum game's value unchanged), except that a character
//! with no available move must surrender (§5.2 step 3) and so loses; a tie's two spreads are
//! chosen simultaneously; specials are not modelled (sheets with specials are refused).

use std::collections::HashMap;

use iron_triangle::chain::{ComboCard, ComboChain, DisadvantageChain, after_turn};
use iron_triangle::turn::{Contender, Outcome, Play, resolve};
use iron_triangle::{Action, Character, Energy, FighterId, GM, Move, MoveSet, PLAYERS, Stance};
use serde::Serialize;
use table::SideId;
use thiserror::Error;

use crate::matrix::{MatrixError, Solver};

/// The fighters of a duel: A (position 0, the players' side) and B (the GM's).
pub const FIGHTERS: [FighterId; 2] = [FighterId(0), FighterId(1)];
/// The sides of A and B.
pub const SIDES: [SideId; 2] = [PLAYERS, GM];

/// Why a duel cannot be solved.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum DuelError {
    /// A sheet knows specials, which the solver does not model.
    #[error("{name} knows specials; the conflict solver handles conflicts without specials (§6)")]
    Specials {
        /// The character.
        name: String,
    },
    /// A sheet knows no move.
    #[error("{name} knows no move (§4)")]
    NoMoves {
        /// The character.
        name: String,
    },
    /// A character starts with zero energy in every type: it is out before the conflict
    /// starts (§5.3), so there is nothing to solve.
    #[error(
        "{name} has zero energy in every type: it is out of the conflict before it starts (§5.3); give it at least 1 energy"
    )]
    OutAtStart {
        /// The character.
        name: String,
    },
    /// The chain configurations exceed the limit.
    #[error("the conflict has more than {limit} chain configurations: too large to solve whole")]
    TooLarge {
        /// The limit.
        limit: usize,
    },
    /// The energy is above what the energy space holds.
    #[error("energy {energy} is outside the solved range (at most {max} per type, {total} in all)")]
    OutOfRange {
        /// The energy asked for.
        energy: Energy,
        /// Per-type maximum.
        max: Energy,
        /// Total maximum.
        total: u32,
    },
    /// The tables would not fit in memory.
    #[error(
        "{states} states would need {:.1} GiB of tables (the limit is 8 GiB): use smaller energies",
        *bytes as f64 / (1u64 << 30) as f64
    )]
    TooManyStates {
        /// States.
        states: u64,
        /// Bytes of the value and best-spread tables.
        bytes: u64,
    },
    /// A solving thread stopped without a result.
    #[error("a solving thread stopped unexpectedly")]
    Thread,
    /// A matrix game failed (numerical trouble).
    #[error(transparent)]
    Matrix(#[from] MatrixError),
}

/// What the solver needs of a character: its moves, its combos and its maximum energy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sheet {
    /// The character's name.
    pub name: String,
    /// Known moves.
    pub known: MoveSet,
    /// Learned follow-ups of each move, by [`Move::index`].
    pub follow_ups: [MoveSet; 13],
    /// Maximum (starting) energy.
    pub energy: Energy,
}

impl Sheet {
    /// The solver's view of a sheet; refuses specials and sheets without moves.
    pub fn from_character(c: &Character) -> Result<Sheet, DuelError> {
        if !c.specials.is_empty() {
            return Err(DuelError::Specials { name: c.name.clone() });
        }
        if c.moves.is_empty() {
            return Err(DuelError::NoMoves { name: c.name.clone() });
        }
        Ok(Sheet {
            name: c.name.clone(),
            known: c.known(),
            follow_ups: c.follow_ups(),
            energy: c.current_energy(),
        })
    }

    /// A level-0 character with the three starting moves (§3) and this energy.
    pub fn starting(name: &str, energy: Energy) -> Sheet {
        Sheet {
            name: name.to_owned(),
            known: Move::STARTING.into_iter().collect(),
            follow_ups: [MoveSet::EMPTY; 13],
            energy,
        }
    }

    /// Whether the character can start a conflict: a character with zero energy in every type
    /// is out (§5.3), and a report of a conflict or a turn for it would mean nothing. (The
    /// solver itself values such a position: the other side has won; `analyze` refuses it.)
    pub fn check_in(&self) -> Result<(), DuelError> {
        if self.energy.total() == 0 {
            return Err(DuelError::OutAtStart { name: self.name.clone() });
        }
        Ok(())
    }
}

/// A downward-closed set of energies (○, ▨, ◆): every energy within `max` type by type whose
/// total is at most `total`. Energies are numbered by increasing total.
#[derive(Debug, Clone)]
pub struct Space {
    max: Energy,
    total: u32,
    triples: Vec<Energy>,
    index: Vec<u32>,
    by_total: Vec<(usize, usize)>,
    down: Vec<[u32; 3]>,
}

const NONE: u32 = u32::MAX;

impl Space {
    /// Every energy within `max` type by type, with a total of at most `total`.
    pub fn new(max: Energy, total: u32) -> Space {
        let total = total.min(max.total());
        let (d, g, a) =
            (usize::from(max.defend) + 1, usize::from(max.grapple) + 1, usize::from(max.attack) + 1);
        let mut triples = Vec::new();
        for t in 0..=total {
            for x in 0..d {
                for y in 0..g {
                    let z = t as i64 - x as i64 - y as i64;
                    if z >= 0 && (z as usize) < a {
                        triples.push(Energy::new(x as u8, y as u8, z as u8));
                    }
                }
            }
        }
        let mut index = vec![NONE; d * g * a];
        let mut by_total = vec![(0, 0); total as usize + 1];
        for (i, e) in triples.iter().enumerate() {
            index[(usize::from(e.defend) * g + usize::from(e.grapple)) * a + usize::from(e.attack)] =
                i as u32;
            let t = e.total() as usize;
            if by_total[t].1 == 0 {
                by_total[t].0 = i;
            }
            by_total[t].1 = i + 1;
        }
        let mut space = Space { max, total, triples, index, by_total, down: Vec::new() };
        space.down = space
            .triples
            .iter()
            .map(|e| {
                Action::ALL.map(|t| {
                    let mut f = *e;
                    if f.take(t, 1) == 1 { space.find(f).map_or(NONE, |i| i as u32) } else { NONE }
                })
            })
            .collect();
        space
    }

    /// The box of every energy within `max`.
    pub fn boxed(max: Energy) -> Space {
        Space::new(max, max.total())
    }

    /// How many energies the space holds.
    pub fn len(&self) -> usize {
        self.triples.len()
    }

    /// Whether the space is empty (never: it holds at least zero energy).
    pub fn is_empty(&self) -> bool {
        self.triples.is_empty()
    }

    /// The energy numbered `i`.
    pub fn energy(&self, i: usize) -> Energy {
        self.triples[i]
    }

    /// The number of `e`, if the space holds it.
    pub fn find(&self, e: Energy) -> Option<usize> {
        if !e.fits_within(&self.max) || e.total() > self.total {
            return None;
        }
        let (g, a) = (usize::from(self.max.grapple) + 1, usize::from(self.max.attack) + 1);
        let i = self.index[(usize::from(e.defend) * g + usize::from(e.grapple)) * a + usize::from(e.attack)];
        (i != NONE).then_some(i as usize)
    }

    fn range(&self, total: u32) -> std::ops::Range<usize> {
        self.by_total.get(total as usize).map_or(0..0, |&(a, b)| a..b)
    }
}

/// The face-up chains at the start of a turn: both disadvantage chains and the combo chain.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Chains {
    /// The disadvantage chains of A and B (§5.4).
    pub disadvantage: [DisadvantageChain; 2],
    /// The combo chain (§5.5); in a duel it is always against the holder's opponent.
    pub combo: Option<ComboChain>,
}

/// A hashable key of a chain configuration.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ChainKey {
    disadvantage: [Vec<Move>; 2],
    combo: Option<(u8, Vec<Move>)>,
}

impl Chains {
    fn key(&self) -> ChainKey {
        ChainKey {
            disadvantage: [self.disadvantage[0].cards(), self.disadvantage[1].cards()],
            combo: self
                .combo
                .as_ref()
                .map(|c| (u8::from(c.side == SIDES[1]), c.cards.iter().map(|k| k.card).collect())),
        }
    }

    /// The holder of the combo chain (0 for A, 1 for B).
    pub fn holder(&self) -> Option<usize> {
        self.combo.as_ref().map(|c| usize::from(c.side == SIDES[1]))
    }
}

/// One chain configuration and what the solver precomputes about it.
#[derive(Debug, Clone)]
pub struct Config {
    /// The chains.
    pub chains: Chains,
    /// The moves each of A and B may play (§5.2 step 3).
    pub available: [MoveSet; 2],
    /// The configuration after the combo's holder ends it (§5.5), if there is a combo.
    pub ended: Option<u32>,
    /// The combo bonus of each move, per fighter.
    combo_len: [[u8; 13]; 2],
    /// The configuration each pair of moves (A's index × 13 + B's) leads to.
    next: Vec<u32>,
}

/// A state of a duel at the start of a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    /// Energy of A and B.
    pub energy: [Energy; 2],
    /// The face-up chains.
    pub chains: Chains,
}

/// Two sheets and the numbered chain configurations of their duel.
#[derive(Debug, Clone)]
pub struct Duel {
    /// The sheets of A and B.
    pub sheets: [Sheet; 2],
    /// The chain configurations; number 0 is the one the duel was built from.
    pub configs: Vec<Config>,
    ids: HashMap<ChainKey, u32>,
}

/// The most bytes of tables a solve may allocate (8 GiB).
pub const TABLE_LIMIT: u64 = 8 << 30;

/// The default limit on chain configurations.
pub const CONFIG_LIMIT: usize = 20_000;

impl Duel {
    /// The duel between two sheets, from empty chains.
    pub fn new(a: Sheet, b: Sheet) -> Result<Duel, DuelError> {
        Duel::from_chains(a, b, Chains::default(), CONFIG_LIMIT)
    }

    /// The duel between two sheets from the given chains, numbering every chain configuration
    /// reachable from them (at most `limit`).
    pub fn from_chains(a: Sheet, b: Sheet, start: Chains, limit: usize) -> Result<Duel, DuelError> {
        let mut duel = Duel { sheets: [a, b], configs: Vec::new(), ids: HashMap::new() };
        duel.intern(start, limit)?;
        let mut k = 0;
        while k < duel.configs.len() {
            duel.expand(k, limit)?;
            k += 1;
        }
        Ok(duel)
    }

    /// The number of a configuration, adding it if new.
    fn intern(&mut self, chains: Chains, limit: usize) -> Result<u32, DuelError> {
        let key = chains.key();
        if let Some(&id) = self.ids.get(&key) {
            return Ok(id);
        }
        if self.configs.len() >= limit {
            return Err(DuelError::TooLarge { limit });
        }
        let id = self.configs.len() as u32;
        let mut available = [MoveSet::EMPTY; 2];
        let mut combo_len = [[0u8; 13]; 2];
        for s in 0..2 {
            let mut av = self.sheets[s].known.without(chains.disadvantage[s].set());
            if let Some(c) = &chains.combo {
                av = av.without(c.played_by(FIGHTERS[s]));
                let follow_ups = self.sheets[s].follow_ups[c.newest().index()];
                for m in Move::ALL {
                    combo_len[s][m.index()] = c.bonus_for(SIDES[s], FIGHTERS[1 - s], follow_ups, m);
                }
            }
            available[s] = av;
        }
        self.configs.push(Config { chains, available, ended: None, combo_len, next: Vec::new() });
        self.ids.insert(key, id);
        Ok(id)
    }

    fn expand(&mut self, k: usize, limit: usize) -> Result<(), DuelError> {
        let chains = self.configs[k].chains.clone();
        if chains.combo.is_some() {
            let ended = Chains { combo: None, ..chains.clone() };
            let id = self.intern(ended, limit)?;
            self.configs[k].ended = Some(id);
        }
        let mut next = vec![NONE; 169];
        let [av_a, av_b] = self.configs[k].available;
        for ma in av_a.iter() {
            for mb in av_b.iter() {
                let pair = [self.contender(k, 0, Stance::NONE, ma), self.contender(k, 1, Stance::NONE, mb)];
                let result = resolve(&pair);
                let mut after = chains.clone();
                after_turn(
                    &result,
                    FIGHTERS,
                    SIDES,
                    [Play::Move(ma), Play::Move(mb)],
                    &mut after.disadvantage,
                    &mut after.combo,
                );
                next[ma.index() * 13 + mb.index()] = self.intern(after, limit)?;
            }
        }
        self.configs[k].next = next;
        Ok(())
    }

    /// The contender fighter `s` is in configuration `c` with this stance and move.
    pub fn contender(&self, c: usize, s: usize, stance: Stance, m: Move) -> Contender {
        let cfg = &self.configs[c];
        let dis = &cfg.chains.disadvantage[s];
        Contender {
            stance,
            play: Play::Move(m),
            disadvantage_newest: dis.newest(),
            disadvantage_len: dis.len(),
            combo_len: cfg.combo_len[s][m.index()],
        }
    }

    /// The number of the configuration of `chains`, if the duel reaches it.
    pub fn config_of(&self, chains: &Chains) -> Option<usize> {
        self.ids.get(&chains.key()).map(|&i| i as usize)
    }

    /// The configuration a pair of moves leads to from configuration `c`.
    pub fn next(&self, c: usize, ma: Move, mb: Move) -> usize {
        self.configs[c].next[ma.index() * 13 + mb.index()] as usize
    }
}

/// The stances a fighter with energy `e` may take (§5.2 step 2): none, then every amount of
/// every type, in the engine's order.
pub fn stances(e: Energy, out: &mut Vec<Stance>) {
    out.clear();
    out.push(Stance::NONE);
    for a in Action::ALL {
        for amount in 1..=e.get(a) {
            out.push(Stance::new(a, amount));
        }
    }
}

/// Every energy `e' ≤ e` type by type with total `total` (the ways to be left after a loss).
pub fn spreads_to(e: Energy, total: u32, out: &mut Vec<Energy>) {
    out.clear();
    for d in 0..=e.defend {
        for g in 0..=e.grapple {
            let a = i64::from(total) - i64::from(d) - i64::from(g);
            if a >= 0 && a <= i64::from(e.attack) {
                out.push(Energy::new(d, g, a as u8));
            }
        }
    }
}

/// The energy `e` is left with after losing `loss` (its own counted stance from its type, the
/// rest spread): the part taken from the stance type and the total left (§5.3).
fn after_stance(e: Energy, loss: &iron_triangle::Loss) -> (Energy, u32) {
    let mut e1 = e;
    if let Some(t) = loss.stance_type {
        e1.take(t, loss.own_stance);
    }
    let left = e1.total().saturating_sub(loss.to_distribute());
    (e1, left)
}

/// Statistics of a solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SolveStats {
    /// States valued: energies of A × energies of B × chain configurations.
    pub states: u64,
    /// Chain configurations.
    pub configs: usize,
    /// Matrix games solved.
    pub games: u64,
    /// Bytes of the value and best-spread tables.
    pub table_bytes: u64,
}

/// A solved duel: the winning probability of A in every state of the energy spaces.
#[derive(Debug, Clone)]
pub struct DuelSolution {
    /// The duel.
    pub duel: Duel,
    /// The energies of A and of B that were solved.
    pub spaces: [Space; 2],
    values: Vec<f64>,
    /// Per configuration with a combo: the loser's best value after a loss, indexed by
    /// (winner's energy, loser's energy before spreading, total left).
    best_spread: Vec<Vec<f64>>,
    /// Statistics.
    pub stats: SolveStats,
}

/// Reusable buffers of one turn's evaluation.
#[derive(Debug, Default)]
struct Scratch {
    stances: [Vec<Stance>; 2],
    moves: [Vec<Move>; 2],
    cells: Vec<f64>,
    stance_cells: Vec<f64>,
    spreads: [Vec<Energy>; 2],
    ties: Vec<(u32, u32, usize, f64)>,
    solver: Solver,
    games: u64,
}

impl DuelSolution {
    /// Solves the duel over every energy of `spaces[0]` for A and `spaces[1]` for B.
    pub fn solve(duel: Duel, spaces: [Space; 2]) -> Result<DuelSolution, DuelError> {
        DuelSolution::solve_on(duel, spaces, 1)
    }

    /// [`DuelSolution::solve`] on `threads` threads: the states of one level (one total of
    /// both energies) depend only on lower levels, so each level is split between threads.
    /// The values are the same whatever the number of threads.
    pub fn solve_on(duel: Duel, spaces: [Space; 2], threads: usize) -> Result<DuelSolution, DuelError> {
        DuelSolution::solve_with_progress(duel, spaces, threads, &mut |_, _| {})
    }

    /// [`DuelSolution::solve_on`], calling `progress(states solved, states in all)` after each
    /// level (a shell shows it; the solver itself prints nothing).
    pub fn solve_with_progress(
        duel: Duel,
        spaces: [Space; 2],
        threads: usize,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<DuelSolution, DuelError> {
        let threads = threads.max(1);
        let n = [spaces[0].len(), spaces[1].len()];
        let configs = duel.configs.len();
        // Refuse before allocating what would not fit.
        let cells = (configs * n[0] * n[1]) as u64
            + duel
                .configs
                .iter()
                .filter_map(|c| c.chains.holder())
                .map(|h| (n[h] * n[1 - h] * (spaces[1 - h].total as usize + 1)) as u64)
                .sum::<u64>();
        if cells * 8 > TABLE_LIMIT {
            return Err(DuelError::TooManyStates {
                states: (configs * n[0] * n[1]) as u64,
                bytes: cells * 8,
            });
        }
        let values = vec![0.0; configs * n[0] * n[1]];
        let best_spread: Vec<Vec<f64>> = duel
            .configs
            .iter()
            .map(|c| match c.chains.holder() {
                Some(h) => vec![0.0; n[h] * n[1 - h] * (spaces[1 - h].total as usize + 1)],
                None => Vec::new(),
            })
            .collect();
        let table_bytes = 8 * (values.len() as u64 + best_spread.iter().map(|v| v.len() as u64).sum::<u64>());
        let mut sol = DuelSolution {
            duel,
            spaces,
            values,
            best_spread,
            stats: SolveStats { states: (configs * n[0] * n[1]) as u64, configs, games: 0, table_bytes },
        };
        let mut scratch: Vec<Scratch> = (0..threads).map(|_| Scratch::default()).collect();
        let mut level_states: Vec<(usize, usize)> = Vec::new();
        let mut level_values: Vec<f64> = Vec::new();
        let top = sol.spaces[0].total + sol.spaces[1].total;
        let all_pairs = (n[0] * n[1]) as u64;
        let mut pairs_done = 0u64;
        for level in 0..=top {
            level_states.clear();
            for ta in 0..=level.min(sol.spaces[0].total) {
                let tb = level - ta;
                if tb <= sol.spaces[1].total {
                    for ia in sol.spaces[0].range(ta) {
                        level_states.extend(sol.spaces[1].range(tb).map(|ib| (ia, ib)));
                    }
                }
            }
            level_values.clear();
            level_values.resize(level_states.len() * configs, 0.0);
            let chunk = level_states.len().div_ceil(threads).max(1);
            let this = &sol;
            let solve_chunk = |states: &[(usize, usize)], out: &mut [f64], s: &mut Scratch| {
                for (k, &(ia, ib)) in states.iter().enumerate() {
                    for c in 0..configs {
                        out[k * configs + c] = this.state_value(ia, ib, c, s)?;
                    }
                }
                Ok::<(), DuelError>(())
            };
            if threads == 1 || level_states.len() < 64 {
                solve_chunk(&level_states, &mut level_values, &mut scratch[0])?;
            } else {
                std::thread::scope(|scope| {
                    let handles: Vec<_> = level_states
                        .chunks(chunk)
                        .zip(level_values.chunks_mut(chunk * configs))
                        .zip(scratch.iter_mut())
                        .map(|((states, out), s)| scope.spawn(move || solve_chunk(states, out, s)))
                        .collect();
                    handles.into_iter().try_for_each(|h| h.join().unwrap_or(Err(DuelError::Thread)))
                })?;
            }
            for (k, &(ia, ib)) in level_states.iter().enumerate() {
                for c in 0..configs {
                    let i = sol.at(ia, ib, c);
                    sol.values[i] = level_values[k * configs + c];
                }
            }
            sol.fill_best_spread(level);
            pairs_done += level_states.len() as u64;
            progress(pairs_done, all_pairs);
        }
        sol.stats.games = scratch.iter().map(|s| s.games).sum();
        Ok(sol)
    }

    /// The index of a state in the value table.
    fn at(&self, ia: usize, ib: usize, c: usize) -> usize {
        (c * self.spaces[0].len() + ia) * self.spaces[1].len() + ib
    }

    /// The value (A's winning probability) of a solved state given by numbers.
    pub fn value_at(&self, ia: usize, ib: usize, c: usize) -> f64 {
        self.values[self.at(ia, ib, c)]
    }

    /// A's winning probability from `energy` with the chains the duel was built from.
    pub fn value(&self, energy: [Energy; 2]) -> Result<f64, DuelError> {
        let (ia, ib) = self.indices(energy)?;
        Ok(self.value_at(ia, ib, 0))
    }

    fn indices(&self, energy: [Energy; 2]) -> Result<(usize, usize), DuelError> {
        let find = |s: usize| {
            self.spaces[s].find(energy[s]).ok_or(DuelError::OutOfRange {
                energy: energy[s],
                max: self.spaces[s].max,
                total: self.spaces[s].total,
            })
        };
        Ok((find(0)?, find(1)?))
    }

    /// A's winning probability in a position, if its chains are among the duel's.
    pub fn position_value(&self, p: &Position) -> Option<f64> {
        let c = self.duel.config_of(&p.chains)?;
        let (ia, ib) = self.indices(p.energy).ok()?;
        Some(self.value_at(ia, ib, c))
    }

    /// After each level, the losers' best spreads whose result lies on that level.
    fn fill_best_spread(&mut self, level: u32) {
        for c in 0..self.duel.configs.len() {
            let Some(h) = self.duel.configs[c].chains.holder() else { continue };
            let l = 1 - h;
            let (nl, sl) = (self.spaces[l].len(), self.spaces[l].total as usize + 1);
            let mut table = std::mem::take(&mut self.best_spread[c]);
            for tw in 0..=level.min(self.spaces[h].total) {
                let s = level - tw;
                if s > self.spaces[l].total {
                    continue;
                }
                for iw in self.spaces[h].range(tw) {
                    for te in s..=self.spaces[l].total {
                        for ie in self.spaces[l].range(te) {
                            let v = if te == s {
                                let (ia, ib) = if h == 0 { (iw, ie) } else { (ie, iw) };
                                self.value_at(ia, ib, c)
                            } else {
                                let mut best = if l == 0 { f64::NEG_INFINITY } else { f64::INFINITY };
                                for d in self.spaces[l].down[ie] {
                                    if d != NONE {
                                        let x = table[(iw * nl + d as usize) * sl + s as usize];
                                        best = if l == 0 { best.max(x) } else { best.min(x) };
                                    }
                                }
                                best
                            };
                            table[(iw * nl + ie) * sl + s as usize] = v;
                        }
                    }
                }
            }
            self.best_spread[c] = table;
        }
    }

    /// The value of a state: the turn game's value (0 or 1 when somebody is out).
    fn state_value(&self, ia: usize, ib: usize, c: usize, s: &mut Scratch) -> Result<f64, DuelError> {
        let e = [self.spaces[0].energy(ia), self.spaces[1].energy(ib)];
        if e[0].total() == 0 {
            return Ok(0.0);
        }
        if e[1].total() == 0 {
            return Ok(1.0);
        }
        s.ties.clear();
        let mut stance_lists = std::mem::take(&mut s.stances);
        stances(e[0], &mut stance_lists[0]);
        stances(e[1], &mut stance_lists[1]);
        let mut cells = std::mem::take(&mut s.stance_cells);
        cells.clear();
        for &sa in &stance_lists[0] {
            for &sb in &stance_lists[1] {
                cells.push(self.move_stage(ia, ib, c, [sa, sb], s)?);
            }
        }
        let (r, k) = (stance_lists[0].len(), stance_lists[1].len());
        s.stances = stance_lists;
        let v = s.solver.solve(r, k, &cells);
        s.games += 1;
        s.stance_cells = cells;
        Ok(v?)
    }

    /// The move stage's value under these stances, the combo's holder ending the chain when
    /// that is better for it (§5.5).
    fn move_stage(
        &self,
        ia: usize,
        ib: usize,
        c: usize,
        st: [Stance; 2],
        s: &mut Scratch,
    ) -> Result<f64, DuelError> {
        let v = self.move_game(ia, ib, c, st, s)?;
        match (self.duel.configs[c].ended, self.duel.configs[c].chains.holder()) {
            (Some(ce), Some(h)) => {
                let w = self.move_game(ia, ib, ce as usize, st, s)?;
                Ok(if h == 0 { v.max(w) } else { v.min(w) })
            }
            _ => Ok(v),
        }
    }

    /// The move game's matrix in configuration `c` under stances `st` into `s.cells`, with
    /// the moves in `s.moves`; or, when a fighter has no move and must surrender, the value.
    fn move_matrix(
        &self,
        ia: usize,
        ib: usize,
        c: usize,
        st: [Stance; 2],
        s: &mut Scratch,
    ) -> Result<Option<f64>, DuelError> {
        let cfg = &self.duel.configs[c];
        let [av_a, av_b] = cfg.available;
        // A character with no available move must surrender (§5.2 step 3): it leaves and its
        // side loses; both leaving at once is the GM side's win (§5.7).
        if av_a.is_empty() {
            return Ok(Some(0.0));
        }
        if av_b.is_empty() {
            return Ok(Some(1.0));
        }
        let e = [self.spaces[0].energy(ia), self.spaces[1].energy(ib)];
        let mut cells = std::mem::take(&mut s.cells);
        cells.clear();
        s.moves[0].clear();
        s.moves[0].extend(av_a.iter());
        s.moves[1].clear();
        s.moves[1].extend(av_b.iter());
        for ma in av_a.iter() {
            for mb in av_b.iter() {
                let pair = [self.duel.contender(c, 0, st[0], ma), self.duel.contender(c, 1, st[1], mb)];
                let r = resolve(&pair);
                let next = self.duel.next(c, ma, mb);
                let v = match r.outcome {
                    Outcome::Win { winner } => {
                        let l = 1 - winner;
                        let (e1, left) = after_stance(e[l], &r.losses[l]);
                        let iw = if winner == 0 { ia } else { ib };
                        self.best_after_loss(next, iw, e1, left)
                    }
                    Outcome::Tie => {
                        let x = [r.losses[0].to_distribute(), r.losses[1].to_distribute()];
                        self.tie_value(e, x, next, s)?
                    }
                    // Nobody surrenders in the solver (see the module's Decisions).
                    Outcome::Surrender { .. } => 0.0,
                };
                cells.push(v);
            }
        }
        s.cells = cells;
        Ok(None)
    }

    fn move_game(
        &self,
        ia: usize,
        ib: usize,
        c: usize,
        st: [Stance; 2],
        s: &mut Scratch,
    ) -> Result<f64, DuelError> {
        if let Some(v) = self.move_matrix(ia, ib, c, st, s)? {
            return Ok(v);
        }
        let (r, k) = (s.moves[0].len(), s.moves[1].len());
        s.games += 1;
        let cells = std::mem::take(&mut s.cells);
        let v = s.solver.solve(r, k, &cells);
        s.cells = cells;
        Ok(v?)
    }

    /// The loser's best value in configuration `next` (which has the winner's combo) when the
    /// winner has energy number `iw` and the loser `e1` before spreading, `left` to keep.
    fn best_after_loss(&self, next: usize, iw: usize, e1: Energy, left: u32) -> f64 {
        let Some(h) = self.duel.configs[next].chains.holder() else { return f64::NAN };
        let l = 1 - h;
        let (nl, sl) = (self.spaces[l].len(), self.spaces[l].total as usize + 1);
        let ie = self.spaces[l].find(e1).unwrap_or(0);
        self.best_spread[next][(iw * nl + ie) * sl + left as usize]
    }

    /// A tie (§5.3): each loses the base of the other's move and both spread at once, a
    /// matrix game over the energies each may be left with.
    fn tie_value(&self, e: [Energy; 2], x: [u32; 2], next: usize, s: &mut Scratch) -> Result<f64, DuelError> {
        if let Some(&(_, _, _, v)) = s.ties.iter().find(|t| (t.0, t.1, t.2) == (x[0], x[1], next)) {
            return Ok(v);
        }
        let left = [e[0].total().saturating_sub(x[0]), e[1].total().saturating_sub(x[1])];
        let mut spreads = std::mem::take(&mut s.spreads);
        spreads_to(e[0], left[0], &mut spreads[0]);
        spreads_to(e[1], left[1], &mut spreads[1]);
        let mut m = Vec::with_capacity(spreads[0].len() * spreads[1].len());
        for &ea in &spreads[0] {
            let ia = self.spaces[0].find(ea).unwrap_or(0);
            for &eb in &spreads[1] {
                let ib = self.spaces[1].find(eb).unwrap_or(0);
                m.push(self.value_at(ia, ib, next));
            }
        }
        let v = s.solver.solve(spreads[0].len(), spreads[1].len(), &m);
        s.games += 1;
        s.spreads = spreads;
        let v = v?;
        s.ties.push((x[0], x[1], next, v));
        Ok(v)
    }
}

/// A combo chain of `holder`'s moves against the other (for tests and callers).
pub fn combo_of(holder: usize, cards: &[Move]) -> ComboChain {
    ComboChain {
        side: SIDES[holder],
        against: FIGHTERS[1 - holder],
        cards: cards.iter().map(|&card| ComboCard { by: FIGHTERS[holder], card }).collect(),
    }
}

/// A tie's spreads: the energies A and B may be left with, and the equilibrium of choosing.
pub type TieStage = ([Vec<Energy>; 2], crate::matrix::Equilibrium);

/// A solved move stage of a duel, and whether the combo's holder ends its chain first.
#[derive(Debug, Clone)]
pub struct DuelMoveStage {
    /// The stage (payoffs: A's winning probability).
    pub stage: crate::one_turn::MoveStage,
    /// Whether the holder ends the combo chain before choosing its move (§5.5).
    pub end_combo: bool,
}

impl DuelSolution {
    /// The configuration and energy numbers of a position.
    pub fn locate(&self, p: &Position) -> Option<(usize, usize, usize)> {
        let c = self.duel.config_of(&p.chains)?;
        let (ia, ib) = self.indices(p.energy).ok()?;
        Some((ia, ib, c))
    }

    /// The two fighters as a turn in configuration `c` sees them.
    pub fn turn_sides(&self, energy: [Energy; 2], c: usize) -> [crate::one_turn::TurnSide; 2] {
        let cfg = &self.duel.configs[c];
        std::array::from_fn(|s| crate::one_turn::TurnSide {
            energy: energy[s],
            available: cfg.available[s],
            disadvantage: (cfg.chains.disadvantage[s].newest(), cfg.chains.disadvantage[s].len()),
            combo_len: cfg.combo_len[s],
        })
    }

    /// The turn at a position, with A's winning probability as the payoff: the stance
    /// stage's game and equilibrium (its value is the position's value).
    pub fn turn(&self, p: &Position) -> Result<Option<crate::one_turn::TurnSolution>, DuelError> {
        let Some((ia, ib, c)) = self.locate(p) else { return Ok(None) };
        let mut s = Scratch::default();
        let sides = self.turn_sides(p.energy, c);
        crate::one_turn::stance_stage(&sides, |st| self.move_stage(ia, ib, c, st, &mut s)).map(Some)
    }

    /// The move stage at a position under revealed stances, the holder of a combo ending it
    /// when that is better for it. `None` when the position is outside the solution or a
    /// fighter has no available move.
    pub fn move_stage_at(&self, p: &Position, st: [Stance; 2]) -> Result<Option<DuelMoveStage>, DuelError> {
        let Some((ia, ib, c)) = self.locate(p) else { return Ok(None) };
        let (keep, keep_value) = self.stage_in(ia, ib, c, st)?;
        let cfg = &self.duel.configs[c];
        if let (Some(ce), Some(h)) = (cfg.ended, cfg.chains.holder()) {
            let (ended, v) = self.stage_in(ia, ib, ce as usize, st)?;
            if ended.is_some() && ((h == 0 && v > keep_value) || (h == 1 && v < keep_value)) {
                return Ok(ended.map(|stage| DuelMoveStage { stage, end_combo: true }));
            }
        }
        Ok(keep.map(|stage| DuelMoveStage { stage, end_combo: false }))
    }

    /// The move stage in configuration `c` and its value; no stage when a fighter has no
    /// available move (the value is then the forced surrender's).
    fn stage_in(
        &self,
        ia: usize,
        ib: usize,
        c: usize,
        st: [Stance; 2],
    ) -> Result<(Option<crate::one_turn::MoveStage>, f64), DuelError> {
        let mut s = Scratch::default();
        if let Some(v) = self.move_matrix(ia, ib, c, st, &mut s)? {
            return Ok((None, v));
        }
        let game = crate::matrix::MatrixGame::new(s.moves[0].len(), s.moves[1].len(), s.cells)?;
        let equilibrium = game.solve()?;
        let v = equilibrium.value;
        Ok((Some(crate::one_turn::MoveStage { stances: st, moves: s.moves, game, equilibrium }), v))
    }

    /// The loser's best way to be left with `left` energy out of `e1` (§5.3: it spreads its
    /// loss as it likes), given the position after the turn (`after`: the winner's energy and
    /// the new chains; the loser's entry is ignored). `None` outside the solution.
    pub fn best_spread(&self, after: &Position, loser: usize, e1: Energy, left: u32) -> Option<Energy> {
        let c = self.duel.config_of(&after.chains)?;
        let mut options = Vec::new();
        spreads_to(e1, left, &mut options);
        let mut best: Option<(Energy, f64)> = None;
        for e in options {
            let mut energy = after.energy;
            energy[loser] = e;
            let (ia, ib) = self.indices(energy).ok()?;
            let v = self.value_at(ia, ib, c);
            let better = best.is_none_or(|(_, b)| if loser == 0 { v > b } else { v < b });
            if better {
                best = Some((e, v));
            }
        }
        best.map(|(e, _)| e)
    }

    /// A tie's spreads (§5.3) as the simultaneous game they are: the energies A and B may be
    /// left with, and the equilibrium. `e` is the energy before the tie, `x` each one's loss,
    /// `after` the chains after it.
    pub fn tie_stage(
        &self,
        e: [Energy; 2],
        x: [u32; 2],
        after: &Chains,
    ) -> Result<Option<TieStage>, DuelError> {
        let Some(c) = self.duel.config_of(after) else { return Ok(None) };
        let mut opts = [Vec::new(), Vec::new()];
        for s in 0..2 {
            spreads_to(e[s], e[s].total().saturating_sub(x[s]), &mut opts[s]);
        }
        let mut cells = Vec::new();
        for &ea in &opts[0] {
            for &eb in &opts[1] {
                let Ok((ia, ib)) = self.indices([ea, eb]) else { return Ok(None) };
                cells.push(self.value_at(ia, ib, c));
            }
        }
        let game = crate::matrix::MatrixGame::new(opts[0].len(), opts[1].len(), cells)?;
        let eq = game.solve()?;
        Ok(Some((opts, eq)))
    }
}
