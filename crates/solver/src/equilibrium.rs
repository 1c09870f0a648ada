//! The equilibrium bot (issue 7, part 4): plays the solved mixed strategies.
//!
//! In a 1v1 conflict whose two sheets it can see and solve ([`crate::duel`]), it plays the
//! whole conflict's equilibrium: stances and moves drawn from the optimal mixes of the turn
//! game with A's winning probability as the payoff, the combo ended when that is better,
//! losses spread to the best energy left, a tie's spread drawn from that game's mix. The solve
//! happens once, at its first decision, and is kept for the rest of the conflict.
//!
//! A minor conflict is one turn whose winner wins (§5.1): there the bot plays the one-turn
//! equilibrium with winning the turn as the payoff.
//!
//! Where the whole conflict is too large to solve (more than [`STATE_BUDGET`] states, an
//! opponent whose moves are hidden so that all thirteen must be assumed, specials, more than
//! two fighters, energy above what it had at its first decision), it falls back to the one-turn equilibrium
//! with the energy-differential payoff ([`crate::one_turn`]) and spreads losses with the
//! documented default. Every other decision (opponent, passing the turn, mercy, specials) is
//! the [`GreedyBot`]'s. Draws come from a seeded [`TableRng`], so games replay exactly.

use std::sync::Arc;

use iron_triangle::chain::DisadvantageChain;
use iron_triangle::rules::Command;
use iron_triangle::turn::Play;
use iron_triangle::view::{ConflictView, FighterView, PhaseView};
use iron_triangle::{FighterId, IronTriangle, Move, MoveSet, Stance};
use rand::RngExt;
use table::{Decision, Face, TableRng, seeded_rng};

use crate::bots::{Bot, GreedyBot};
use crate::duel::{Chains, Duel, DuelSolution, Position, SIDES, Sheet, Space};
use crate::one_turn::{TurnSide, energy_differential, move_stage_with, stance_stage, turn_won};

/// The most states the bot solves a whole conflict over before falling back to one turn
/// (about 10 s at its first decision in a release build; the book's Ada against the ninja
/// is 166,000 states, 3.5 s).
pub const STATE_BUDGET: usize = 500_000;

/// Plays the equilibrium of the whole conflict where it can solve it, of one turn otherwise.
#[derive(Debug, Clone)]
pub struct EquilibriumBot {
    rng: TableRng,
    greedy: GreedyBot,
    /// The solved duel and the sheets it was solved for; `None` inside when unsolvable.
    solved: Option<(Vec<Sheet>, Option<Arc<DuelSolution>>)>,
}

impl EquilibriumBot {
    /// An equilibrium bot drawing from a generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        EquilibriumBot { rng: seeded_rng(seed), greedy: GreedyBot::new(), solved: None }
    }

    /// Whether the bot plays the whole conflict's equilibrium (after its first decision).
    pub fn solved_whole(&self) -> bool {
        matches!(&self.solved, Some((_, Some(_))))
    }

    /// Draws an index from a mixed strategy.
    fn draw(&mut self, mix: &[f64]) -> usize {
        let mut x: f64 = self.rng.random();
        for (i, p) in mix.iter().enumerate() {
            if x < *p {
                return i;
            }
            x -= p;
        }
        mix.iter().rposition(|p| *p > 0.0).unwrap_or(0)
    }

    /// The duel's solution for these sheets, solving it the first time.
    fn solution(&mut self, sheets: Option<[Sheet; 2]>) -> Option<Arc<DuelSolution>> {
        let sheets = sheets?;
        // Energy only falls without specials: the box of the energy at the first decision
        // holds the rest of the conflict. The same moves and combos reuse the solution.
        let same = |a: &Sheet, b: &Sheet| a.known == b.known && a.follow_ups == b.follow_ups;
        if let Some((s, sol)) = &self.solved
            && same(&s[0], &sheets[0])
            && same(&s[1], &sheets[1])
        {
            return sol.clone();
        }
        let spaces = [Space::boxed(sheets[0].energy), Space::boxed(sheets[1].energy)];
        let pairs = spaces[0].len() * spaces[1].len();
        let limit = STATE_BUDGET / pairs.max(1);
        let sol = Duel::from_chains(sheets[0].clone(), sheets[1].clone(), Chains::default(), limit)
            .ok()
            .and_then(|duel| DuelSolution::solve(duel, spaces).ok())
            .map(Arc::new);
        self.solved = Some((sheets.to_vec(), sol.clone()));
        sol
    }
}

fn fighter(view: &ConflictView, id: FighterId) -> &FighterView {
    &view.fighters[usize::from(id.0)]
}

/// The duel's A and B (the players' fighter, the GM's) when the conflict is a 1v1.
fn duel_pair(view: &ConflictView) -> Option<[FighterId; 2]> {
    if view.fighters.len() != 2 {
        return None;
    }
    let a = view.fighters.iter().find(|f| f.side == SIDES[0])?.id;
    let b = view.fighters.iter().find(|f| f.side == SIDES[1])?.id;
    Some([a, b])
}

/// A fighter's sheet as the viewer sees it; `None` when its moves are hidden or it knows
/// specials (the whole conflict cannot then be solved).
fn sheet_of(f: &FighterView) -> Option<Sheet> {
    let moves = f.moves.as_ref()?;
    if f.specials.as_ref().is_none_or(|s| !s.is_empty()) {
        return None;
    }
    let mut follow_ups = [MoveSet::EMPTY; 13];
    for c in f.combos.as_deref().unwrap_or_default() {
        follow_ups[c.from.index()] = c.follow_ups.iter().copied().collect();
    }
    Some(Sheet {
        name: f.name.clone(),
        known: moves.iter().map(|m| m.card).collect(),
        follow_ups,
        energy: f.energy,
    })
}

/// The position of a 1v1 as the viewer sees it.
fn position(view: &ConflictView, pair: [FighterId; 2]) -> Position {
    Position {
        energy: pair.map(|id| fighter(view, id).energy),
        chains: Chains {
            disadvantage: pair
                .map(|id| DisadvantageChain::from_cards(fighter(view, id).disadvantage.clone())),
            combo: view.combo.clone(),
        },
    }
}

/// One fighter of the pair as a turn sees it, as far as the viewer knows: hidden moves are
/// taken to be all thirteen, hidden combos none.
fn turn_side(view: &ConflictView, me: FighterId, opp: FighterId) -> TurnSide {
    let f = fighter(view, me);
    let chain = DisadvantageChain::from_cards(f.disadvantage.clone());
    let available = match &f.available {
        Some(av) => av.iter().copied().collect(),
        None => {
            let mut played = MoveSet::EMPTY;
            if let Some(c) = &view.combo {
                played = c.played_by(me);
            }
            MoveSet::from_iter(Move::ALL).without(chain.set()).without(played)
        }
    };
    let mut combo_len = [0; 13];
    if let (Some(c), Some(combos)) = (&view.combo, &f.combos) {
        let follow_ups: MoveSet = combos
            .iter()
            .find(|k| k.from == c.newest())
            .map(|k| k.follow_ups.iter().copied().collect())
            .unwrap_or_default();
        for m in Move::ALL {
            combo_len[m.index()] = c.bonus_for(f.side, opp, follow_ups, m);
        }
    }
    TurnSide { energy: f.energy, available, disadvantage: (chain.newest(), chain.len()), combo_len }
}

impl EquilibriumBot {
    /// The whole-conflict solution and my position (0 = A, 1 = B) in a 1v1 I can solve.
    fn whole(
        &mut self,
        view: &ConflictView,
        me: FighterId,
    ) -> Option<(Arc<DuelSolution>, [FighterId; 2], usize)> {
        if view.stakes.minor {
            return None;
        }
        let pair = duel_pair(view)?;
        let sheets = sheet_of(fighter(view, pair[0])).zip(sheet_of(fighter(view, pair[1])));
        let sol = self.solution(sheets.map(|(a, b)| [a, b]))?;
        Some((sol, pair, usize::from(pair[1] == me)))
    }

    fn stance(
        &mut self,
        view: &ConflictView,
        me: FighterId,
        opp: FighterId,
        legal: &[Command],
    ) -> Option<usize> {
        let whole = self.whole(view, me).and_then(|(sol, pair, pos)| {
            let t = sol.turn(&position(view, pair)).ok()??;
            let mix = if pos == 0 { t.equilibrium.row } else { t.equilibrium.col };
            Some((t.stances[pos].clone(), mix))
        });
        let (stances, mix) = match whole {
            Some(x) => x,
            None => {
                let sides = [turn_side(view, me, opp), turn_side(view, opp, me)];
                let minor = view.stakes.minor;
                let t = stance_stage(&sides, |st| {
                    let payoff = |r: &_| if minor { turn_won(r) } else { energy_differential(&sides, r) };
                    move_stage_with(&sides, st, payoff).map(|m| m.equilibrium.value)
                })
                .ok()?;
                (t.stances[0].clone(), t.equilibrium.row)
            }
        };
        let pick = stances[self.draw(&mix)];
        legal.iter().position(|c| *c == Command::CommitStance { stance: pick })
    }

    fn play(
        &mut self,
        view: &ConflictView,
        me: FighterId,
        opp: FighterId,
        st: [Stance; 2],
        legal: &[Command],
    ) -> Option<usize> {
        let whole = self.whole(view, me).and_then(|(sol, pair, pos)| {
            let ordered = if pos == 0 { st } else { [st[1], st[0]] };
            let here = position(view, pair);
            let stage = sol.move_stage_at(&here, ordered).ok()??;
            let holder = sol.duel.config_of(&here.chains).and_then(|c| sol.duel.configs[c].chains.holder());
            let end = stage.end_combo && holder == Some(pos);
            let mix = if pos == 0 { stage.stage.equilibrium.row } else { stage.stage.equilibrium.col };
            Some((end, stage.stage.moves[pos].clone(), mix))
        });
        let (moves, mix) = match whole {
            Some((true, ..)) => return legal.iter().position(|c| *c == Command::EndCombo),
            Some((false, moves, mix)) => (moves, mix),
            None => {
                let sides = [turn_side(view, me, opp), turn_side(view, opp, me)];
                let minor = view.stakes.minor;
                let payoff = |r: &_| if minor { turn_won(r) } else { energy_differential(&sides, r) };
                let s = move_stage_with(&sides, st, payoff).ok()?;
                (s.moves[0].clone(), s.equilibrium.row)
            }
        };
        let pick = moves[self.draw(&mix)];
        legal.iter().position(|c| *c == Command::CommitMove { play: Play::Move(pick) })
    }

    fn spread(&mut self, view: &ConflictView, me: FighterId, legal: &[Command]) -> Option<usize> {
        let PhaseView::Aftermath(a) = &view.phase else { return None };
        let (sol, pair, pos) = self.whole(view, me)?;
        let in_pair = usize::from(a.pair[1] == me);
        let loss = a.losses[in_pair];
        let here = position(view, pair);
        let mut e1 = here.energy[pos];
        if let Some(t) = loss.stance_type {
            e1.take(t, loss.own_stance);
        }
        let left = e1.total().saturating_sub(loss.to_distribute());
        let other_in_pair = 1 - in_pair;
        let keep = if a.result.outcome.winner().is_none() && !a.loss_taken[other_in_pair] {
            // A tie, the other's spread not made yet: draw from the simultaneous game.
            let x = pair.map(|id| a.losses[usize::from(a.pair[1] == id)].to_distribute());
            let (opts, eq) = sol.tie_stage(here.energy, x, &here.chains).ok()??;
            let mix = if pos == 0 { eq.row } else { eq.col };
            opts[pos][self.draw(&mix)]
        } else {
            sol.best_spread(&here, pos, e1, left)?
        };
        let spread = e1.saturating_sub(&keep);
        legal.iter().position(|c| *c == Command::SpreadLoss { spread })
    }
}

impl Bot<IronTriangle> for EquilibriumBot {
    fn choose(&mut self, decision: &Decision<'_, IronTriangle>) -> usize {
        let legal = decision.legal;
        if legal.len() <= 1 {
            return 0;
        }
        let view = decision.view();
        let mine = |id: FighterId| {
            view.seats.get(usize::from(decision.seat.0)).map(|s| &s.name) == Some(&fighter(&view, id).seat)
        };
        let pick = match &view.phase {
            PhaseView::Turn { active, opponent: Some(opp), step, stances, .. } => {
                let (me, them) = if mine(*active) { (*active, *opp) } else { (*opp, *active) };
                let known = |f: Face<Stance>| if let Face::Known(s) = f { s } else { Stance::NONE };
                let pos = usize::from(me != *active);
                match step {
                    iron_triangle::Step::Stance
                        if legal.iter().any(|c| matches!(c, Command::CommitStance { .. })) =>
                    {
                        self.stance(&view, me, them, legal)
                    }
                    iron_triangle::Step::Move
                        if legal.iter().any(|c| matches!(c, Command::CommitMove { .. })) =>
                    {
                        let st = [known(stances[pos]), known(stances[1 - pos])];
                        self.play(&view, me, them, st, legal)
                    }
                    _ => None,
                }
            }
            PhaseView::Aftermath(a) if legal.iter().any(|c| matches!(c, Command::SpreadLoss { .. })) => {
                let me = if mine(a.pair[0]) { a.pair[0] } else { a.pair[1] };
                self.spread(&view, me, legal)
            }
            _ => None,
        };
        pick.unwrap_or_else(|| self.greedy.choose(decision))
    }
}
