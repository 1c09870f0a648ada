//! Extensions (seed: The Contract): optional rules may only change a calculation at one of
//! the Hand's named steps. [`Extension`] has one hook per named step that calculates
//! something; each hook gets the step's number to change and leaves it alone by default.
//!
//! The narrative steps (Intent, Target naming, Justify Action) and the reveals calculate
//! nothing, so they have no hook. The example extension is the Damage ability (§8).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::hand::ActorId;
use crate::stakes::Stakes;
use crate::trine::{Aspect, Dominance};

/// Hooks into the named steps of the Contract. Every method has a do-nothing default.
///
/// Hooks must be pure: the same arguments always give the same change (the event log replays).
pub trait Extension {
    /// Engagement: the Conflict's Stakes, once when it starts.
    fn engagement(&self, _stakes: &mut Stakes) {}
    /// Commit Aspect → Ante: how many chips `actor` must ante.
    fn ante(&self, _actor: ActorId, _amount: &mut u16) {}
    /// Resolve TD: Trine Dominance of `actor` against `opponent` (the reverse is its flip).
    fn resolve_td(&self, _actor: ActorId, _opponent: ActorId, _outcome: &mut Dominance) {}
    /// Commit Action → Bid: the Bid cap of `actor` (its Trine Score of the played Aspect).
    fn bid(&self, _actor: ActorId, _cap: &mut u16) {}
    /// Resolve AD: Attribute Dominance of `actor` against `opponent` (the reverse is its flip).
    fn resolve_ad(&self, _actor: ActorId, _opponent: ActorId, _outcome: &mut Dominance) {}
    /// Outcome → Action Priority: the value Actions are ordered by (the Bid).
    fn action_priority(&self, _actor: ActorId, _priority: &mut u32) {}
    /// Outcome → Margin: `actor`'s Showdown Total against `opponent`.
    fn margin(&self, _actor: ActorId, _opponent: ActorId, _total: &mut u16) {}
    /// Outcome → Apply Damage: the damage `attacker`'s Action deals to `target`, before the
    /// target's partial-Aspect reduction.
    fn apply_damage(&self, _attacker: ActorId, _target: ActorId, _aspect: Aspect, _damage: &mut u16) {}
    /// Outcome → Token Refresh: how many of `actor`'s bid chips go to the Jackpot instead of
    /// back to its stack (never more than it bid).
    fn token_refresh(&self, _actor: ActorId, _to_jackpot: &mut u16) {}
    /// Outcome → Elimination Check: whether `actor` leaves the Conflict.
    fn elimination_check(&self, _actor: ActorId, _eliminated: &mut bool) {}
    /// End Conflict / Next Hand: whether the Conflict goes on after Hand `hand`.
    fn next_hand(&self, _hand: u32, _go_on: &mut bool) {}
}

/// The Damage ability (rules reference §8; a weapon or a Thing): each Build Point adds 1
/// damage *after* Dominance (not to the Showdown Total) and 1 to the Bid for Action Priority
/// only (heavier is slower). Its damage has an Aspect (`Damage 3 (Body)`): it adds to the
/// actor's Actions that damage that Aspect (any Aspect when `None`), and only to an Action
/// that deals damage at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DamageAbility {
    /// Who wields it.
    pub actor: ActorId,
    /// Its Build Points.
    pub points: u16,
    /// The Aspect its damage hurts, or `None` for whatever the Action hurts.
    #[serde(default)]
    pub aspect: Option<Aspect>,
}

impl Extension for DamageAbility {
    fn action_priority(&self, actor: ActorId, priority: &mut u32) {
        if actor == self.actor {
            *priority = priority.saturating_add(u32::from(self.points));
        }
    }

    fn apply_damage(&self, attacker: ActorId, _target: ActorId, aspect: Aspect, damage: &mut u16) {
        if attacker == self.actor && *damage > 0 && self.aspect.is_none_or(|a| a == aspect) {
            *damage = damage.saturating_add(self.points);
        }
    }
}

/// The extensions a Conflict uses (serialisable, so saves replay them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "extension")]
pub enum Ext {
    /// [`DamageAbility`].
    DamageAbility(DamageAbility),
}

impl Ext {
    fn get(&self) -> &dyn Extension {
        match self {
            Ext::DamageAbility(d) => d,
        }
    }

    /// The Actor it belongs to.
    pub fn actor(&self) -> ActorId {
        match self {
            Ext::DamageAbility(d) => d.actor,
        }
    }
}

/// A Conflict's extensions, shared; calls every extension's hook in order.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Extensions(Arc<[Ext]>);

impl Extensions {
    /// These extensions.
    pub fn new(list: Vec<Ext>) -> Self {
        Extensions(list.into())
    }

    /// The list.
    pub fn list(&self) -> &[Ext] {
        &self.0
    }
}

impl Extension for Extensions {
    fn engagement(&self, stakes: &mut Stakes) {
        self.0.iter().for_each(|e| e.get().engagement(stakes))
    }
    fn ante(&self, actor: ActorId, amount: &mut u16) {
        self.0.iter().for_each(|e| e.get().ante(actor, amount))
    }
    fn resolve_td(&self, actor: ActorId, opponent: ActorId, outcome: &mut Dominance) {
        self.0.iter().for_each(|e| e.get().resolve_td(actor, opponent, outcome))
    }
    fn bid(&self, actor: ActorId, cap: &mut u16) {
        self.0.iter().for_each(|e| e.get().bid(actor, cap))
    }
    fn resolve_ad(&self, actor: ActorId, opponent: ActorId, outcome: &mut Dominance) {
        self.0.iter().for_each(|e| e.get().resolve_ad(actor, opponent, outcome))
    }
    fn action_priority(&self, actor: ActorId, priority: &mut u32) {
        self.0.iter().for_each(|e| e.get().action_priority(actor, priority))
    }
    fn margin(&self, actor: ActorId, opponent: ActorId, total: &mut u16) {
        self.0.iter().for_each(|e| e.get().margin(actor, opponent, total))
    }
    fn apply_damage(&self, attacker: ActorId, target: ActorId, aspect: Aspect, damage: &mut u16) {
        self.0.iter().for_each(|e| e.get().apply_damage(attacker, target, aspect, damage))
    }
    fn token_refresh(&self, actor: ActorId, to_jackpot: &mut u16) {
        self.0.iter().for_each(|e| e.get().token_refresh(actor, to_jackpot))
    }
    fn elimination_check(&self, actor: ActorId, eliminated: &mut bool) {
        self.0.iter().for_each(|e| e.get().elimination_check(actor, eliminated))
    }
    fn next_hand(&self, hand: u32, go_on: &mut bool) {
        self.0.iter().for_each(|e| e.get().next_hand(hand, go_on))
    }
}
