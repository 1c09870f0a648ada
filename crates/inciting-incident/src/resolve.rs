//! Resolving an action (rules reference §5 steps 6–8, §7–§10) on a scratch copy of the scene:
//! moves, attacks, minions, Crisis and its triggers, wounds and Strikes.

use crate::attack::{
    DECISIVE_CRISIS, LEAVE_DUEL_CRISIS, MOVE_CRISIS, decisive_flow_shift, decisive_hits, defence_value,
    flow_for, minion_advantage, regular_automatic, regular_roll,
};
use crate::character::{AdvancedEffect, Context, DefenceKind, Talent};
use crate::dice::{self, Pool, ability_pool, defence_pool, talent_pool};
use crate::rules::{Action, Event, Path, Purpose, Target, Who};
use crate::scene::{Outcome, Phase, Scene, SceneKind, Status, TriggerEffect};

/// Resolution on a scratch copy of the scene: each event is applied as it is pushed, so the
/// next rule sees its effect.
pub(crate) struct Emit<'a> {
    s: Scene,
    out: &'a mut Vec<Event>,
    rng: Option<table::Stream>,
}

impl<'a> Emit<'a> {
    pub(crate) fn new(scene: &Scene, out: &'a mut Vec<Event>) -> Emit<'a> {
        Emit { s: scene.clone(), out, rng: None }
    }

    pub(crate) fn push(&mut self, e: Event) {
        self.s.apply(&e);
        self.out.push(e);
    }

    pub(crate) fn roll(&mut self, who: Who, purpose: Purpose, pool: &Pool, advantage: i32) -> i32 {
        let rng = self.rng.get_or_insert_with(|| self.s.draws.stream());
        let roll = dice::roll(rng, pool, advantage, self.s.setup.options.advantage);
        let total = roll.total;
        let rng_pos = rng.position();
        self.push(Event::Rolled { who, purpose, roll, rng_pos });
        total
    }

    pub(crate) fn reconcile(&mut self) {
        crate::duel::reconcile(&mut self.s, self.out);
    }

    pub(crate) fn move_flow(&mut self, duel: u16, toward: u8, amount: i32) {
        if amount == 0 {
            return;
        }
        let by = if toward == self.s.positive { amount } else { -amount };
        let flow = self.s.duels[usize::from(duel)].flow.saturating_add(by);
        self.push(Event::FlowMoved { duel, by, flow });
    }

    pub(crate) fn add_crisis(&mut self, amount: u32, side: Option<u8>) {
        if amount == 0 || self.s.phase == Phase::Over {
            return;
        }
        let total = self.s.crisis.saturating_add(amount);
        self.push(Event::CrisisAdded { amount, side, total });
        self.fire_triggers();
    }

    /// Fires every trigger whose threshold the pool has reached, lowest threshold first (then
    /// file order); each trigger fires at most once per action, the extra actions it sets off
    /// included (Decision 10: chains always end; [`Scene::chain_fired`]).
    pub(crate) fn fire_triggers(&mut self) {
        loop {
            if self.s.phase == Phase::Over {
                return;
            }
            let next = (0..self.s.trigger_count().min(128))
                .filter(|&i| !self.s.chain_fired.contains(&(i as u16)))
                .filter_map(|i| {
                    let t = self.s.trigger(i)?;
                    let n = self.s.fired[i];
                    let at = match t.every {
                        Some(e) => t.at.checked_add(n.checked_mul(e)?)?,
                        None if n == 0 => t.at,
                        None => return None,
                    };
                    (at <= self.s.crisis).then_some((at, i))
                })
                .min();
            let Some((at, i)) = next else { return };
            self.push(Event::TriggerFired { trigger: i as u16, at });
            let Some(t) = self.s.trigger(i).cloned() else { return };
            self.trigger_effect(&t.effect, t.note);
        }
    }

    pub(crate) fn trigger_effect(&mut self, effect: &TriggerEffect, note: String) {
        match effect {
            TriggerEffect::MinionsAttack { group } => {
                if let Some(g) = self.s.find_minions(group) {
                    self.minion_attack(g);
                }
            }
            TriggerEffect::ExtraAction { character } => {
                if let Some(c) = self.s.find_fighter(character) {
                    if self.s.fighters[usize::from(c)].status == Status::Fighting {
                        self.push(Event::ExtraActionGranted { character: c });
                    } else {
                        self.push(Event::ExtraActionLost { character: c });
                    }
                }
            }
            TriggerEffect::Reinforce { group, count } => {
                if let Some(g) = self.s.find_minions(group) {
                    self.push(Event::MinionsArrived { group: g, count: *count });
                    self.reconcile();
                }
            }
            TriggerEffect::ChangeRegion { region, effect } => {
                if let Some(r) = self.s.find_region(region) {
                    self.push(Event::RegionChanged { region: r, effect: effect.clone() });
                }
            }
            TriggerEffect::Hazard { region, hits } => {
                if let Some(r) = self.s.find_region(region) {
                    for c in 0..self.s.fighters.len() {
                        let f = &self.s.fighters[c];
                        if f.engaged_capable() && f.region == Some(r) {
                            self.wound(c as u8, u32::from(*hits));
                        }
                    }
                    for g in 0..self.s.minions.len() {
                        let m = &self.s.minions[g];
                        if m.region == r && m.count > 0 && *hits > 0 {
                            self.push(Event::MinionsKilled { group: g as u8, killed: m.count, left: 0 });
                        }
                    }
                    self.reconcile();
                }
            }
            TriggerEffect::Note => {}
            TriggerEffect::EndScene { winner } => {
                let winner = winner
                    .as_ref()
                    .and_then(|w| self.s.setup.sides.iter().position(|s| s == w))
                    .map(|s| s as u8);
                let why = if note.is_empty() { "a Crisis Trigger ends the scene".to_owned() } else { note };
                self.push(Event::SceneOver { outcome: Outcome::new(winner, why) });
            }
        }
    }

    /// A minion group's one Regular Attack (§7.4): the best attack it has, against the enemy
    /// in its Duel whose defence is easiest (the highest Resistance Difficulty), with 1
    /// Advantage per minion outnumbering the opponents (Disadvantage when outnumbered); a
    /// ranged group shooting into a Duel also takes 1 Disadvantage per ally in it (§7.3).
    pub(crate) fn minion_attack(&mut self, g: u8) {
        let m = &self.s.minions[usize::from(g)];
        let (region, side) = (m.region, m.side);
        let enemy = 1 - side;
        // Its own Duel; for ranged minions outside a Duel, the first Duel in range (§7.3).
        let ranged = self.s.duel_in(region).is_none();
        // "Minions may only make one Regular Attack between them": every minion of the side
        // standing with the group (those that can shoot, outside a Duel) joins the attack,
        // which uses the strongest attack among them (§7.4).
        let band = || {
            self.s.minions.iter().filter(move |o| {
                o.side == side && o.region == region && o.count > 0 && (!ranged || o.stats.attack.ranged)
            })
        };
        let able = m.count > 0 && (!ranged || m.stats.attack.ranged);
        let count = band().fold(0u32, |n, o| n.saturating_add(o.count));
        // `rev` so that among equally strong attacks the first group listed is taken.
        let best = band().rev().map(|o| o.stats.clone()).max_by_key(|st| attack_strength(&st.attack));
        let Some(stats) = best.filter(|_| able) else {
            self.push(Event::MinionsIdle { group: g });
            return;
        };
        let target_region = if !ranged {
            Some(region)
        } else if stats.attack.ranged {
            (0..self.s.effects.len() as u8)
                .find(|&r| self.s.links.in_range(region, r) && self.s.duel_in(r).is_some())
        } else {
            None
        };
        let Some((tr, duel)) =
            target_region.and_then(|r| Some((r, self.s.duel_in(r)?))).filter(|_| count > 0)
        else {
            self.push(Event::MinionsIdle { group: g });
            return;
        };
        let rd = self
            .s
            .fighters
            .iter()
            .filter(|f| f.engaged_capable() && f.region == Some(tr) && f.side == enemy)
            .map(|f| f.sheet.defences.get(stats.attack.defence).rd)
            .chain(
                self.s
                    .minions
                    .iter()
                    .filter(|o| o.region == tr && o.side == enemy && o.count > 0)
                    .map(|o| o.stats.rd),
            )
            .max()
            .unwrap_or(0);
        // Outnumbering counts the Duel attacked (for ranged minions, the target Duel).
        let opponents = self.s.count_side(tr, enemy);
        let effect = &self.s.effects[usize::from(region)];
        // Shooting into a Duel from another Region: 1 Disadvantage per ally there (§7.3).
        let allies =
            if ranged { self.s.count_side(tr, side).min(crate::attack::MAX_ADVANTAGE as u32) } else { 0 };
        let advantage = minion_advantage(count, opponents) - allies as i32
            + effect.attack_advantage
            + if ranged { effect.ranged_advantage } else { 0 };
        let pool = talent_pool(stats.attack.level, &[], stats.attack.modifier, rd);
        let total = self.roll(Who::Minions(g), Purpose::Regular, &pool, advantage);
        let out = regular_roll(total);
        self.move_flow(duel, side, out.flow);
        self.add_crisis(out.crisis, Some(side));
    }

    /// Hits in a non-violent conflict: each removes one of the side's Strikes (§10).
    pub(crate) fn strikes_lost(&mut self, side: u8, hits: u32) {
        if hits == 0 {
            return;
        }
        if let Some(s) = self.s.strikes {
            // A side cannot lose more Strikes than it has left: clamp, and keep the hits dealt.
            let had = s[usize::from(side & 1)];
            let strikes = hits.min(had);
            let extra = (hits > had).then_some(hits);
            self.push(Event::StrikesLost { side, strikes, left: had - strikes, hits: extra });
        }
    }

    pub(crate) fn wound(&mut self, c: u8, hits: u32) {
        if hits == 0 {
            return;
        }
        let f = &self.s.fighters[usize::from(c)];
        if self.s.setup.kind == SceneKind::NonViolent {
            self.strikes_lost(f.side, hits);
            return;
        }
        let max = f.sheet.max_hits;
        let total = (u32::from(f.hits) + hits).min(u32::from(max)) as u8;
        let taken = total - f.hits;
        let fighting = f.status == Status::Fighting;
        self.push(Event::Wounded { character: c, hits: taken, total });
        if total >= max && fighting {
            self.push(Event::Incapacitated { character: c });
        }
    }

    /// Resolves an action (declared or extra): the closest alternative when it became
    /// impossible, else wasted without Crisis (§5 step 6).
    pub(crate) fn resolve(&mut self, f: u8, declared: Action) {
        let (action, substituted) = if self.s.check_action(f, &declared).is_ok() {
            (declared, false)
        } else if let Some(alt) = self.s.alternative(f, &declared) {
            (alt, true)
        } else {
            let why = match self.s.check_action(f, &declared) {
                Err(e) => e.to_string(),
                Ok(()) => String::new(),
            };
            self.push(Event::Wasted { character: f, why });
            return;
        };
        self.push(Event::Started { character: f, action, substituted });
        let side = self.s.fighters[usize::from(f)].side;
        match action {
            Action::Hold => {}
            Action::Move { path } => self.do_move(f, path),
            Action::Regular { talent, target, roll, defence } => {
                let Ok(reach) = self.s.reach_why(f, talent, target) else { return };
                let Some(duel) = reach.duel else { return };
                let (out, reduction) = if roll {
                    let Some(t) = talent else { return };
                    let (pool, reduction) = self.attack_pool(f, t, target, defence);
                    let total = self.roll(Who::Character(f), Purpose::Regular, &pool, reach.advantage);
                    (regular_roll(total), reduction)
                } else {
                    // The automatic success is no Talent Roll: no Talent's Skill applies (the
                    // Talent only says how a ranged attacker reaches the Duel, §7.1).
                    (regular_automatic(), 0)
                };
                self.move_flow(duel, side, out.flow);
                self.add_crisis(out.crisis.saturating_sub(reduction), Some(side));
            }
            Action::Decisive { talent, target, defence } => self.do_decisive(f, talent, target, defence),
            Action::Advanced { talent, action, target } => {
                let adv = self.talent_of(f, talent).advanced[usize::from(action)].clone();
                match adv.effect {
                    AdvancedEffect::Heal { hits } => {
                        let c = target.unwrap_or(f);
                        let other = &self.s.fighters[usize::from(c)];
                        let healed = hits.min(other.hits);
                        let revived = other.status == Status::Incapacitated && healed > 0;
                        self.push(Event::Healed { character: c, hits: healed, revived });
                        self.reconcile();
                    }
                    AdvancedEffect::ShiftFlow { amount } => {
                        if let Some(d) =
                            self.s.fighters[usize::from(f)].region.and_then(|r| self.s.duel_in(r))
                        {
                            self.move_flow(d, side, amount);
                        }
                    }
                    AdvancedEffect::ChangeRegion { effect } => {
                        if let Some(r) = self.s.fighters[usize::from(f)].region {
                            self.push(Event::RegionChanged { region: r, effect });
                        }
                    }
                    AdvancedEffect::AddTrigger { mut trigger } => {
                        trigger.at = self.s.crisis.saturating_add(trigger.at);
                        self.push(Event::TriggerAdded { character: f, trigger });
                    }
                }
                self.add_crisis(adv.crisis, Some(side));
            }
        }
    }

    pub(crate) fn talent_of(&self, f: u8, t: u8) -> &Talent {
        &self.s.fighters[usize::from(f)].sheet.talents[usize::from(t)]
    }

    /// A Talent Roll's pool against a target (§3.2): level dice, Skill modifiers where their
    /// context applies, and the target defence's Resistance Difficulty in d6. Returns the
    /// Crisis reduction of the Talent's Skills too (0 outside their context).
    pub(crate) fn attack_pool(
        &self,
        f: u8,
        t: u8,
        target: Target,
        defence: Option<DefenceKind>,
    ) -> (Pool, u32) {
        let talent = self.talent_of(f, t);
        let rd = match target {
            Target::Character(c) => {
                self.s.fighters[usize::from(c)].sheet.defences.get(defence.unwrap_or(talent.defence)).rd
            }
            Target::Minions(g) => {
                let (_, best) = self.s.minion_block(g);
                self.s.minions[usize::from(best)].stats.rd
            }
        };
        let applies = matches!(
            (talent.skills.context, self.s.setup.kind),
            (Context::Any, _)
                | (Context::Combat, SceneKind::Combat)
                | (Context::NonViolent, SceneKind::NonViolent)
        );
        // Skills only affect attacks in their own context (§10): modifiers, bonus dice and
        // Crisis reduction alike.
        if applies {
            (
                talent_pool(talent.level, &talent.skills.bonus_dice, talent.skills.modifier, rd),
                talent.skills.crisis_reduction,
            )
        } else {
            (talent_pool(talent.level, &[], 0, rd), 0)
        }
    }

    pub(crate) fn do_decisive(&mut self, f: u8, t: u8, target: Target, defence: Option<DefenceKind>) {
        let Ok(reach) = self.s.reach_why(f, Some(t), target) else { return };
        let side = self.s.fighters[usize::from(f)].side;
        let level = i32::from(self.talent_of(f, t).level);
        let (pool, reduction) = self.attack_pool(f, t, target, defence);
        let attack = self.roll(Who::Character(f), Purpose::Decisive, &pool, reach.advantage);
        let flow_or_level = match (reach.uses_flow, reach.duel) {
            (true, Some(d)) => flow_for(self.s.duels[usize::from(d)].flow, side == self.s.positive),
            _ => level,
        };
        let rule = self.s.setup.options.extra_hits;
        let shift_rv = match target {
            Target::Character(c) => {
                let sheet = self.s.fighters[usize::from(c)].sheet.clone();
                let kind = defence.unwrap_or(self.talent_of(f, t).defence);
                let def = sheet.defences.get(kind);
                let region = self.s.fighters[usize::from(c)].region;
                let mut protection = def.protection.clone();
                if let Some(r) = region {
                    protection.extend_from_slice(&self.s.effects[usize::from(r)].protection);
                }
                let (_, ability) = sheet.defence_ability(kind);
                let def_roll =
                    self.roll(Who::Character(c), Purpose::Defence, &defence_pool(ability, &protection), 0);
                let dv = defence_value(i32::from(def.rv), flow_or_level);
                let hits = decisive_hits(attack, def_roll, dv, def.rv, rule);
                self.wound(c, hits);
                def.rv
            }
            Target::Minions(g) => {
                // The whole block defends with its best defence (§7.4).
                let (block, best) = self.s.minion_block(g);
                let count =
                    block.iter().fold(0u32, |n, &j| n.saturating_add(self.s.minions[usize::from(j)].count));
                let m = &self.s.minions[usize::from(best)];
                let (stats, region) = (m.stats.clone(), m.region);
                let mut protection = stats.protection.clone();
                protection.extend_from_slice(&self.s.effects[usize::from(region)].protection);
                let def_roll = self.roll(
                    Who::Minions(g),
                    Purpose::Defence,
                    &defence_pool(stats.defence_level, &protection),
                    0,
                );
                // No Resistance Value when defending; excess carries over (§7.4).
                let dv = defence_value(0, flow_or_level);
                let mut kills = decisive_hits(attack, def_roll, dv, stats.rv, rule).min(count);
                // A non-violent conflict: the hits remove the side's Strikes instead (§10).
                if self.s.setup.kind == SceneKind::NonViolent {
                    let side = self.s.minions[usize::from(g)].side;
                    self.strikes_lost(side, kills);
                    kills = 0;
                }
                // The targeted group first, the excess carried over to the rest of the block.
                for j in block {
                    let here = self.s.minions[usize::from(j)].count;
                    let killed = kills.min(here);
                    if killed > 0 {
                        self.push(Event::MinionsKilled { group: j, killed, left: here - killed });
                    }
                    kills -= killed;
                }
                stats.rv
            }
        };
        // Regardless of success: the Flow moves half the RV away from the attacker (ranged
        // Decisive Attacks leave the Flow alone, Decision), and Crisis +2.
        if reach.uses_flow
            && let Some(d) = reach.duel
        {
            self.move_flow(d, 1 - side, decisive_flow_shift(shift_rv));
        }
        self.reconcile();
        self.add_crisis(DECISIVE_CRISIS.saturating_sub(reduction), Some(side));
    }

    pub(crate) fn do_move(&mut self, f: u8, path: Path) {
        let me = &self.s.fighters[usize::from(f)];
        let Some(start) = me.region else { return };
        let side = me.side;
        let nimbleness = me.sheet.abilities.nimbleness;
        let leaving_duel = self.s.duel_in(start).is_some();
        let mut entered = [0u8; 8];
        let mut n = 0;
        let mut crisis: u32 = 0;
        for &r in path.regions() {
            let effect = &self.s.effects[usize::from(r)];
            let per = effect.move_crisis.unwrap_or(MOVE_CRISIS);
            if let Some(difficulty) = effect.obstacle {
                let total =
                    self.roll(Who::Character(f), Purpose::Obstacle, &ability_pool(nimbleness, difficulty), 0);
                if total < dice::TARGET {
                    break;
                }
            }
            entered[n] = r;
            n += 1;
            crisis = crisis.saturating_add(per);
        }
        let Some(moved) = Path::new(&entered[..n]).filter(|p| !p.regions().is_empty()) else {
            return;
        };
        self.push(Event::Moved { character: f, path: moved });
        self.reconcile();
        if leaving_duel {
            crisis = crisis.saturating_add(LEAVE_DUEL_CRISIS);
        }
        self.add_crisis(crisis, Some(side));
    }
}

/// How strong a minion attack is, to pick the band's strongest (§7.4): twice the mean of its
/// level dice plus twice its modifier (whole numbers; ties keep the first group listed).
fn attack_strength(a: &crate::character::MinionAttack) -> i32 {
    let (n, sides) = dice::level_dice(a.level);
    i32::from(n) * (i32::from(sides) + 1) + 2 * a.modifier
}
