//! What a character may do (rules reference §5, §7.3): how an attack reaches its target,
//! whether an action is legal now, every legal action, and the closest alternative to an
//! action made impossible.

use crate::character::{AdvancedEffect, DefenceKind, Ranged, Talent};
use crate::map::RegionId;
use crate::rules::{Action, Command, Path, RuleError, Target};
use crate::scene::{MAX_TRIGGERS, Scene, Status};

pub(crate) fn illegal(scene: &Scene, f: u8, reason: impl Into<String>) -> RuleError {
    RuleError::Illegal { character: scene.fighter_name(f).to_owned(), reason: reason.into() }
}

/// Why an attack cannot reach, before it is put in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Why {
    NoCharacter(u8),
    NoGroup(u8),
    NoTalent(u8),
    SameSide,
    NotInFight,
    AllDead,
    OffMap,
    OutsideDuel,
    NeedsRanged,
    OutOfRange(RegionId),
}

impl Why {
    pub(crate) fn error(self, scene: &Scene, f: u8, target: Target) -> RuleError {
        let name = match target {
            Target::Character(c) => scene.fighter_name(c).to_owned(),
            Target::Minions(g) => {
                scene.minions.get(usize::from(g)).map_or("?".into(), |m| format!("the {}", m.stats.name))
            }
        };
        let reason = match self {
            Why::NoCharacter(c) => return RuleError::UnknownCharacter(c),
            Why::NoGroup(g) => format!("there is no minion group number {g}"),
            Why::NoTalent(t) => format!("has no Talent number {t}"),
            Why::SameSide => format!("{name} is on the same side"),
            Why::NotInFight => format!("{name} cannot be attacked: not in the fight"),
            Why::AllDead => format!("{name} are all dead"),
            Why::OffMap => "is not on the map".into(),
            Why::OutsideDuel => {
                "in a Duel you can only attack members of that Duel, even with a Ranged Skill".into()
            }
            Why::NeedsRanged => {
                "is in no Duel with the target; attacking another Region needs a Talent with a Ranged Skill"
                    .into()
            }
            Why::OutOfRange(r) => format!(
                "{} is out of range: a ranged attack reaches adjacent Regions (farther with a Ranged upgrade's range) with line of sight",
                scene.region_name(r)
            ),
        };
        illegal(scene, f, reason)
    }
}

/// How an attack reaches its target (§7.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reach {
    /// Ranged (from another Region, or a basic-Ranged Talent inside a Duel).
    pub ranged: bool,
    /// Only a Decisive Attack is possible: the target is in no Duel.
    pub decisive_only: bool,
    /// The Duel whose Flow the attack uses or moves.
    pub duel: Option<u16>,
    /// Whether a Decisive Attack subtracts the Flow (true) or the Talent level (false).
    pub uses_flow: bool,
    /// Net Advantage from the situation.
    pub advantage: i32,
}

impl Scene {
    pub(crate) fn fighter_checked(&self, f: u8) -> Result<&crate::scene::Fighter, RuleError> {
        self.fighters.get(usize::from(f)).ok_or(RuleError::UnknownCharacter(f))
    }

    pub(crate) fn talent(&self, f: u8, t: u8) -> Result<&Talent, RuleError> {
        self.fighter_checked(f)?
            .sheet
            .talents
            .get(usize::from(t))
            .ok_or_else(|| illegal(self, f, format!("has no Talent number {t}")))
    }

    /// The Region of a target and whether it can still be attacked.
    pub(crate) fn target_region(&self, f: u8, target: Target) -> Result<RegionId, Why> {
        let side = self.fighters[usize::from(f)].side;
        match target {
            Target::Character(c) => {
                let t = self.fighters.get(usize::from(c)).ok_or(Why::NoCharacter(c))?;
                if t.side == side {
                    return Err(Why::SameSide);
                }
                match t.region {
                    Some(r) if t.engaged_capable() => Ok(r),
                    _ => Err(Why::NotInFight),
                }
            }
            Target::Minions(g) => {
                let m = self.minions.get(usize::from(g)).ok_or(Why::NoGroup(g))?;
                if m.side == side {
                    return Err(Why::SameSide);
                }
                if m.count == 0 {
                    return Err(Why::AllDead);
                }
                Ok(m.region)
            }
        }
    }

    /// The minion block group `g` belongs to (§7.4: "always targetted as a whole block … the
    /// best defence they have available"): every group of its side in its Region with minions
    /// left, `g` first, then in list order; and the group whose stat block is the block's best
    /// defence — the fewest Resistance Difficulty d6 for the attacker, then the higher defence
    /// level, then the most Protection dice, then the first in that order.
    pub fn minion_block(&self, g: u8) -> (Vec<u8>, u8) {
        let Some(m) = self.minions.get(usize::from(g)) else { return (Vec::new(), g) };
        let block: Vec<u8> = std::iter::once(g)
            .chain((0..self.minions.len() as u8).filter(|&j| {
                let o = &self.minions[usize::from(j)];
                j != g && o.side == m.side && o.region == m.region && o.count > 0
            }))
            .collect();
        let best = block
            .iter()
            .copied()
            .min_by_key(|&j| {
                let st = &self.minions[usize::from(j)].stats;
                (st.rd, std::cmp::Reverse(st.defence_level), std::cmp::Reverse(st.protection.len()))
            })
            .unwrap_or(g);
        (block, best)
    }

    /// Enemies (characters and single minions) of `side` in a Region.
    pub fn count_side(&self, region: RegionId, side: u8) -> u32 {
        let fighters = self
            .fighters
            .iter()
            .filter(|x| x.engaged_capable() && x.region == Some(region) && x.side == side)
            .count();
        let minions: u32 =
            self.minions.iter().filter(|m| m.region == region && m.side == side).map(|m| m.count).sum();
        fighters as u32 + minions
    }

    /// How `f`'s attack with `talent` reaches `target`, or why it cannot (§7.3).
    pub fn reach(&self, f: u8, talent: Option<u8>, target: Target) -> Result<Reach, RuleError> {
        self.fighter_checked(f)?;
        self.reach_why(f, talent, target).map_err(|why| why.error(self, f, target))
    }

    /// [`Scene::reach`] without building a message (for the legal lists).
    pub(crate) fn reach_why(&self, f: u8, talent: Option<u8>, target: Target) -> Result<Reach, Why> {
        let me = self.fighters.get(usize::from(f)).ok_or(Why::NoCharacter(f))?;
        let ranged_skill = match talent {
            Some(t) => me.sheet.talents.get(usize::from(t)).ok_or(Why::NoTalent(t))?.skills.ranged,
            None => Ranged::None,
        };
        let tr = self.target_region(f, target)?;
        let target_duel = self.duel_in(tr);
        if me.absent {
            // Absent opponents act as members of the target's Duel (Decision, §10).
            return Ok(Reach {
                ranged: false,
                decisive_only: target_duel.is_none(),
                duel: target_duel,
                uses_flow: target_duel.is_some(),
                advantage: 0,
            });
        }
        let fr = me.region.ok_or(Why::OffMap)?;
        let effect = &self.effects[usize::from(fr)];
        let enemy = 1 - (me.side & 1);
        if let Some(d) = self.duel_in(fr) {
            if tr != fr {
                return Err(Why::OutsideDuel);
            }
            let ranged = ranged_skill == Ranged::Basic;
            let penalty = if ranged { self.count_side(fr, enemy) as i32 } else { 0 };
            let advantage =
                effect.attack_advantage - penalty + if ranged { effect.ranged_advantage } else { 0 };
            return Ok(Reach { ranged, decisive_only: false, duel: Some(d), uses_flow: true, advantage });
        }
        if ranged_skill == Ranged::None {
            return Err(Why::NeedsRanged);
        }
        let through_cover =
            talent.is_some_and(|t| me.sheet.talents[usize::from(t)].skills.ignore_sight_blockers);
        // The basic range is the adjacent Regions; a Ranged upgrade's `range` reaches farther.
        let range = talent.and_then(|t| me.sheet.talents[usize::from(t)].skills.range).unwrap_or(1);
        if !self.links.in_reach(fr, tr, range, through_cover) {
            return Err(Why::OutOfRange(tr));
        }
        let reduction = talent.map_or(0, |t| me.sheet.talents[usize::from(t)].skills.ally_penalty_reduction);
        let allies = match target_duel {
            Some(_) => (self.count_side(tr, me.side) as i32 - i32::from(reduction)).max(0),
            None => 0,
        };
        Ok(Reach {
            ranged: true,
            decisive_only: target_duel.is_none(),
            duel: target_duel,
            uses_flow: false,
            advantage: effect.attack_advantage + effect.ranged_advantage - allies,
        })
    }

    /// The Regions one step of `f`'s Move from `at` may enter (bit `r`): adjacent and
    /// unblocked, or as its movement Skills allow (§5.2).
    pub fn steps(&self, f: u8, at: RegionId) -> u16 {
        let m = self.fighters.get(usize::from(f)).map(|x| x.sheet.movement).unwrap_or_default();
        self.links.steps(at, m.skip, m.pass_blockers)
    }

    /// The furthest a Move of `f` may go now (§5.2; a Region effect may limit it); 0 for a
    /// character number the scene does not have.
    pub fn max_move(&self, f: u8) -> u8 {
        let Some(me) = self.fighters.get(usize::from(f)) else { return 0 };
        let limit = me.region.and_then(|r| self.effects[usize::from(r)].max_move).unwrap_or(u8::MAX);
        me.sheet.max_move.min(limit).min(8)
    }

    /// Checks an action against the rules as the scene stands (§5, §7).
    pub fn check_action(&self, f: u8, action: &Action) -> Result<(), RuleError> {
        let me = self.fighter_checked(f)?;
        if me.status != Status::Fighting {
            return Err(illegal(self, f, "is Incapacitated and cannot meaningfully act"));
        }
        match *action {
            Action::Hold => Ok(()),
            Action::Move { path } => {
                let Some(mut at) = me.region else {
                    return Err(illegal(self, f, "is not physically present and cannot move"));
                };
                if path.regions().is_empty() {
                    return Err(illegal(self, f, "a Move enters at least one Region"));
                }
                let max = self.max_move(f);
                if path.regions().len() > usize::from(max) {
                    return Err(illegal(self, f, format!("can move at most {max} Regions")));
                }
                let mut seen = 1u16 << at;
                for &r in path.regions() {
                    if usize::from(r) >= self.effects.len() {
                        return Err(illegal(self, f, format!("there is no Region number {r}")));
                    }
                    if self.steps(f, at) & (1 << r) == 0 {
                        return Err(illegal(
                            self,
                            f,
                            format!(
                                "cannot move from {} to {}: not adjacent, or movement is blocked{}",
                                self.region_name(at),
                                self.region_name(r),
                                match me.sheet.movement.skip {
                                    0 => String::new(),
                                    n => format!(", even leaping over {n} Region(s)"),
                                }
                            ),
                        ));
                    }
                    if seen & (1 << r) != 0 {
                        return Err(illegal(self, f, "a Move does not enter a Region twice"));
                    }
                    seen |= 1 << r;
                    at = r;
                }
                Ok(())
            }
            Action::Regular { talent, target, roll, .. } => {
                if roll && talent.is_none() {
                    return Err(illegal(self, f, "a Regular Attack by Talent Roll needs a Talent"));
                }
                let reach = self.reach(f, talent, target)?;
                if reach.decisive_only {
                    return Err(illegal(
                        self,
                        f,
                        "the target is in no Duel: only Decisive Attacks can be made against it",
                    ));
                }
                Ok(())
            }
            Action::Decisive { talent, target, .. } => self.reach(f, Some(talent), target).map(|_| ()),
            Action::Advanced { talent, action, target } => {
                let t = self.talent(f, talent)?;
                let adv = t.advanced.get(usize::from(action)).ok_or_else(|| {
                    illegal(self, f, format!("Talent {} has no Advanced Action number {action}", t.name))
                })?;
                match &adv.effect {
                    AdvancedEffect::Heal { .. } => {
                        let c = target.unwrap_or(f);
                        let other = self.fighter_checked(c)?;
                        if other.side != me.side || other.region != me.region || other.absent {
                            return Err(illegal(
                                self,
                                f,
                                format!("{} is not an ally in the same Region", other.sheet.name),
                            ));
                        }
                        if other.hits == 0 {
                            return Err(illegal(
                                self,
                                f,
                                format!("{} has no hits to heal", other.sheet.name),
                            ));
                        }
                        Ok(())
                    }
                    AdvancedEffect::ShiftFlow { .. } => match me.region.and_then(|r| self.duel_in(r)) {
                        Some(_) => Ok(()),
                        None => Err(illegal(self, f, format!("{} needs a Duel to move the Flow", adv.name))),
                    },
                    AdvancedEffect::ChangeRegion { .. } => match me.region {
                        Some(_) => Ok(()),
                        None => Err(illegal(self, f, "is not in a Region")),
                    },
                    AdvancedEffect::AddTrigger { .. } => {
                        if self.added_triggers.len() >= MAX_TRIGGERS {
                            return Err(illegal(
                                self,
                                f,
                                format!(
                                    "a scene holds at most {MAX_TRIGGERS} Crisis Triggers added by Skills"
                                ),
                            ));
                        }
                        Ok(())
                    }
                }
            }
        }
    }

    /// Every action `f` may declare now, in a fixed order.
    pub fn actions(&self, f: u8, out: &mut Vec<Action>) {
        let Some(me) = self.fighters.get(usize::from(f)) else { return };
        if me.status != Status::Fighting {
            return;
        }
        out.push(Action::Hold);
        if let Some(start) = me.region {
            let max = self.max_move(f);
            let mut stack = [0u8; 8];
            self.paths(f, start, 1 << start, &mut stack, 0, max, out);
        }
        let mut targets = [Target::Character(0); 64];
        let mut n = 0;
        for (c, x) in self.fighters.iter().enumerate() {
            if x.side != me.side && x.engaged_capable() {
                targets[n] = Target::Character(c as u8);
                n += 1;
            }
        }
        for (g, m) in self.minions.iter().enumerate() {
            if m.side != me.side && m.count > 0 {
                targets[n] = Target::Minions(g as u8);
                n += 1;
            }
        }
        // One automatic Regular Attack per Duel reachable (the target only names the Duel),
        // then each Talent's Regular (Talent Roll) and Decisive Attacks.
        let mut duels_done: u64 = 0;
        let talents = me.sheet.talents.len() as u8;
        for talent in std::iter::once(None).chain((0..talents).map(Some)) {
            for &target in &targets[..n] {
                let Ok(r) = self.reach_why(f, talent, target) else { continue };
                if !r.decisive_only
                    && let Some(d) = r.duel
                    && duels_done & (1 << (d % 64)) == 0
                {
                    duels_done |= 1 << (d % 64);
                    out.push(Action::Regular { talent, target, roll: false, defence: None });
                }
                if let Some(t) = talent {
                    // The Talent's usual defence, then the GM's other possible picks.
                    let usual = me.sheet.talents[usize::from(t)].defence;
                    let picks = std::iter::once(None).chain(
                        DefenceKind::ALL
                            .into_iter()
                            .filter(|&k| k != usual && matches!(target, Target::Character(_)))
                            .map(Some),
                    );
                    for defence in picks {
                        if !r.decisive_only {
                            out.push(Action::Regular { talent: Some(t), target, roll: true, defence });
                        }
                        out.push(Action::Decisive { talent: t, target, defence });
                    }
                }
            }
        }
        self.advanced_actions(f, false, out);
    }

    /// Pushes the Advanced Actions `f` may use now (only those usable outside round order
    /// when `out_of_order`), without building error messages.
    pub(crate) fn advanced_actions(&self, f: u8, out_of_order: bool, out: &mut Vec<Action>) {
        let me = &self.fighters[usize::from(f)];
        for (t, talent) in me.sheet.talents.iter().enumerate() {
            for (a, adv) in talent.advanced.iter().enumerate() {
                if out_of_order && !adv.out_of_order {
                    continue;
                }
                let (t, a) = (t as u8, a as u8);
                match adv.effect {
                    AdvancedEffect::Heal { .. } => {
                        for (c, other) in self.fighters.iter().enumerate() {
                            if other.side == me.side
                                && other.region == me.region
                                && !other.absent
                                && other.hits > 0
                            {
                                out.push(Action::Advanced { talent: t, action: a, target: Some(c as u8) });
                            }
                        }
                    }
                    AdvancedEffect::ShiftFlow { .. } => {
                        if me.region.and_then(|r| self.duel_in(r)).is_some() {
                            out.push(Action::Advanced { talent: t, action: a, target: None });
                        }
                    }
                    AdvancedEffect::ChangeRegion { .. } => {
                        if me.region.is_some() {
                            out.push(Action::Advanced { talent: t, action: a, target: None });
                        }
                    }
                    AdvancedEffect::AddTrigger { .. } => {
                        if self.added_triggers.len() < MAX_TRIGGERS {
                            out.push(Action::Advanced { talent: t, action: a, target: None });
                        }
                    }
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn paths(
        &self,
        f: u8,
        at: RegionId,
        seen: u16,
        stack: &mut [u8; 8],
        depth: usize,
        max: u8,
        out: &mut Vec<Action>,
    ) {
        if depth >= usize::from(max) {
            return;
        }
        let steps = self.steps(f, at);
        for r in 0..self.effects.len() as u8 {
            if seen & (1 << r) == 0 && steps & (1 << r) != 0 {
                stack[depth] = r;
                if let Some(path) = Path::new(&stack[..=depth]) {
                    out.push(Action::Move { path });
                }
                self.paths(f, r, seen | (1 << r), stack, depth + 1, max, out);
            }
        }
    }

    /// The closest possible alternative to an action made impossible (§5 step 6): another
    /// target in reach for the same attack, or the part of a Move still open.
    pub(crate) fn alternative(&self, f: u8, action: &Action) -> Option<Action> {
        match *action {
            Action::Move { path } => {
                let me = &self.fighters[usize::from(f)];
                me.region?;
                let regions = path.regions();
                (1..regions.len()).rev().find_map(|n| {
                    let p = Path::new(&regions[..n])?;
                    let a = Action::Move { path: p };
                    self.check_action(f, &a).is_ok().then_some(a)
                })
            }
            Action::Regular { .. } | Action::Decisive { .. } | Action::Advanced { .. } => {
                let mut all = Vec::new();
                self.actions(f, &mut all);
                let same_kind = |a: &Action| match (a, action) {
                    (Action::Regular { talent, roll, .. }, Action::Regular { talent: t2, roll: r2, .. }) => {
                        talent == t2 && roll == r2
                    }
                    (Action::Decisive { talent, .. }, Action::Decisive { talent: t2, .. }) => talent == t2,
                    (
                        Action::Advanced { talent, action, .. },
                        Action::Advanced { talent: t2, action: a2, .. },
                    ) => talent == t2 && action == a2,
                    _ => false,
                };
                all.into_iter().find(same_kind).map(|mut a| {
                    // Keep the GM's pick of defence.
                    match (&mut a, action) {
                        (Action::Regular { defence, .. }, Action::Regular { defence: d, .. })
                        | (Action::Decisive { defence, .. }, Action::Decisive { defence: d, .. }) => {
                            *defence = *d
                        }
                        _ => {}
                    }
                    a
                })
            }
            Action::Hold => None,
        }
    }

    /// The one form of an action the legal lists hold (so a checked replay finds it): an
    /// automatic Regular Attack is named by the first listed one into the same Duel, and a
    /// pick of the Talent's usual defence (or any pick against minions) is no pick. An
    /// action of a character number the scene does not have comes back as it is.
    pub fn normalize(&self, f: u8, action: Action) -> Action {
        if self.fighters.get(usize::from(f)).is_none() {
            return action;
        }
        match action {
            Action::Regular { talent, target, roll: false, .. } => {
                let Ok(Reach { duel: Some(d), .. }) = self.reach_why(f, talent, target) else {
                    return action;
                };
                // The first automatic attack `actions` lists into Duel `d`.
                let me = &self.fighters[usize::from(f)];
                let talents = me.sheet.talents.len() as u8;
                let targets = self
                    .fighters
                    .iter()
                    .enumerate()
                    .filter(|(_, x)| x.side != me.side && x.engaged_capable())
                    .map(|(c, _)| Target::Character(c as u8))
                    .chain(
                        self.minions
                            .iter()
                            .enumerate()
                            .filter(|(_, m)| m.side != me.side && m.count > 0)
                            .map(|(g, _)| Target::Minions(g as u8)),
                    );
                for t in std::iter::once(None).chain((0..talents).map(Some)) {
                    for g in targets.clone() {
                        if let Ok(r) = self.reach_why(f, t, g)
                            && !r.decisive_only
                            && r.duel == Some(d)
                        {
                            return Action::Regular { talent: t, target: g, roll: false, defence: None };
                        }
                    }
                }
                action
            }
            Action::Regular { talent: Some(t), target, roll: true, defence: Some(k) } => {
                let usual =
                    self.fighters[usize::from(f)].sheet.talents.get(usize::from(t)).map(|x| x.defence);
                let defence = (Some(k) != usual && matches!(target, Target::Character(_))).then_some(k);
                Action::Regular { talent: Some(t), target, roll: true, defence }
            }
            Action::Decisive { talent, target, defence: Some(k) } => {
                let usual =
                    self.fighters[usize::from(f)].sheet.talents.get(usize::from(talent)).map(|x| x.defence);
                let defence = (Some(k) != usual && matches!(target, Target::Character(_))).then_some(k);
                Action::Decisive { talent, target, defence }
            }
            a => a,
        }
    }

    /// Whether `action` is an Advanced Action whose Skill allows it outside round order.
    pub(crate) fn out_of_order_allowed(&self, f: u8, action: &Action) -> bool {
        let Action::Advanced { talent, action: a, .. } = *action else { return false };
        self.fighters
            .get(usize::from(f))
            .and_then(|x| x.sheet.talents.get(usize::from(talent)))
            .and_then(|t| t.advanced.get(usize::from(a)))
            .is_some_and(|adv| adv.out_of_order)
    }

    /// Pushes the out-of-order Advanced Actions `f` may use now (§5 step 7).
    pub(crate) fn out_of_order_actions(&self, f: u8, out: &mut Vec<Command>) {
        let me = &self.fighters[usize::from(f)];
        if me.out_of_order_used || me.status != Status::Fighting || me.absent {
            return;
        }
        if !me.sheet.talents.iter().any(|t| t.advanced.iter().any(|a| a.out_of_order)) {
            return;
        }
        let mut all = Vec::new();
        self.advanced_actions(f, true, &mut all);
        out.extend(all.into_iter().map(|action| Command::OutOfOrder { character: f, action }));
    }
}
