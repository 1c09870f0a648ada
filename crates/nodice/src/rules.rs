//! Commands, events and the rules that connect them (seed: Conflict Procedure, Steps 1–4).
//!
//! `decide` checks a command against the state and pushes its events; `apply` applies one;
//! `automatic` gives the next step the rules take by themselves (starting a Hand, the
//! reveals, paying the pot, resolving Actions, placing forced damage, the Elimination Check).

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};
use table::{SeatId, SideId};
use thiserror::Error;

use crate::actor::Kind;
use crate::conflict::{ActionCard, AspectCard, Conflict, Ending, Phase, Status};
use crate::damage::{SpreadError, check_spread, forced_spread, spreads};
use crate::extension::Extension;
use crate::hand::{self, ActorId, MAX_ACTORS, Play, StrikeFate, Targets};
use crate::trine::{Aspect, Attribute};

/// The longest intent a Command may state, in characters.
pub const MAX_INTENT: usize = 500;

/// The longest justification line, in characters (seed: "one brief justification line").
pub const MAX_JUSTIFICATION: usize = 200;

/// What a seat asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Command {
    /// Step 2, Commit Aspect: ante from `ante` (an Attribute of `aspect`), play the Aspect
    /// card face down, state the intent and name the target(s).
    CommitAspect {
        /// The Actor.
        actor: ActorId,
        /// The Aspect card, face down.
        aspect: Aspect,
        /// The Attribute the ante comes from (face down too).
        ante: Attribute,
        /// The target(s), said aloud.
        targets: Targets,
        /// The intent, said aloud (table talk; optional).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        intent: Option<String>,
    },
    /// Step 2: will not ante — withdraw from the Conflict (Elimination).
    Withdraw {
        /// The Actor.
        actor: ActorId,
    },
    /// Step 3, Commit Action: play an Action card of the played Aspect and bid on it.
    CommitAction {
        /// The Actor.
        actor: ActorId,
        /// The Action card's Attribute.
        attribute: Attribute,
        /// Chips bid.
        bid: u16,
        /// Play a Wildcard (+1, outside the cap).
        #[serde(default)]
        wildcard: bool,
        /// Bid face up ("chip bully").
        #[serde(default)]
        open: bool,
        /// For an abstract Actor: the Aspect its damage hurts (any; default the played one).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        damage_aspect: Option<Aspect>,
    },
    /// Step 4, Apply Damage: the damaged Actor spreads the damage over the struck Aspect's
    /// Attributes (serial order).
    SpreadDamage {
        /// The damaged Actor.
        actor: ActorId,
        /// Damage on each Attribute of the Aspect, in serial order.
        spread: [u16; 3],
    },
    /// The GM ends the Conflict: the fiction resolved the objective (seed: Step 1 and End
    /// Conflict). Not offered to bots.
    EndConflict,
    /// Seed Step 3 and the Bluff Space Rule: after the reveal, one brief justification line
    /// aligning the revealed Action with the stated intent (narrative only; public). One per
    /// Actor per Hand, from its Reveal AT until the next Hand's; also after the Conflict ended.
    /// Not offered to bots.
    Justify {
        /// The Actor whose Action it justifies.
        actor: ActorId,
        /// The line (at most [`MAX_JUSTIFICATION`] characters, no control characters).
        line: String,
    },
    /// The GM adjusts an Actor (Decision 35): its chips in one Attribute's stack, or its
    /// Wildcards left, set to a new value, always with a reason; logged publicly. Outside
    /// chip conservation. Not offered to bots.
    Adjust {
        /// The Actor.
        actor: ActorId,
        /// What changes.
        change: Adjustment,
        /// Why (said aloud; at most [`MAX_JUSTIFICATION`] characters, no control characters).
        reason: String,
    },
    /// Seed Step 1, Engagement: the GM decides who interacts and splits the brawl into
    /// interaction clusters, each playing the Hand as a Hand of its own; Actors outside every
    /// cluster sit the Hand out. An empty list engages every Actor again. Given at the start
    /// of a Hand (before anyone commits); it holds until the GM changes it (Decision 33). Not
    /// offered to bots.
    Engage {
        /// The clusters.
        clusters: Vec<Targets>,
    },
}

impl Command {
    /// Whether this is a GM's ruling outside the choices of play: ending the Conflict, an
    /// adjustment (Decision 35) or the Engagement's clusters (Decision 33). Never face down,
    /// never waited for, never given by a bot ([`table::Ruleset::is_gm_ruling`]).
    pub fn is_gm_ruling(&self) -> bool {
        matches!(self, Command::EndConflict | Command::Adjust { .. } | Command::Engage { .. })
    }
}

/// What a GM adjustment changes (Decision 35).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Adjustment {
    /// The chips in an Attribute's stack (its value, the chips bid on a card excluded) become
    /// `to`, 0–100 ([`crate::actor::MAX_AV`]); only an Attribute the Actor possesses.
    Chips {
        /// The Attribute.
        attribute: Attribute,
        /// Its new number of chips.
        to: u16,
    },
    /// The Wildcards left this Conflict become `to`, at most the Actor's Wildcard pool.
    Wildcards {
        /// The new number left.
        to: u16,
    },
}

impl std::fmt::Display for Adjustment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Adjustment::Chips { attribute, to } => write!(f, "{} to {to}", attribute.abbrev()),
            Adjustment::Wildcards { to } => write!(f, "Wildcards to {to}"),
        }
    }
}

/// Why a pot token went where it went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenFate {
    /// Added to the receiver's stack of that Attribute.
    Kept,
    /// The receiver lacks the Attribute: to the Jackpot (Decision 3).
    ToJackpot,
}

pub use crate::hand::Void;

/// What happened. Applying events is the only way a Conflict changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// Step 1, Engagement: a Hand starts with this UTG.
    HandStarted {
        /// Its number, from 1.
        hand: u32,
        /// Under the Gun.
        utg: ActorId,
    },
    /// An Aspect card and ante went down face down; targets and intent were said aloud.
    AspectCommitted {
        /// The Actor.
        actor: ActorId,
        /// The card, `None` for viewers who may not see it.
        card: Option<AspectCard>,
        /// Target(s).
        targets: Targets,
        /// Intent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        intent: Option<String>,
    },
    /// An Actor would not ante and withdrew.
    Withdrew {
        /// The Actor.
        actor: ActorId,
    },
    /// An Actor could not ante and is eliminated.
    CouldNotAnte {
        /// The Actor.
        actor: ActorId,
    },
    /// Reveal TA: the Aspect cards and antes, turned face up (read them in the state or the
    /// view); antes join the Jackpot in the pot; Trine Dominance wins are counted.
    AspectsRevealed,
    /// One pot token, drawn blind, paid to a leader in TD wins.
    TokenPaid {
        /// The receiver.
        to: ActorId,
        /// The token's Attribute.
        attribute: Attribute,
        /// Where it went.
        fate: TokenFate,
        /// The Conflict's draw position ([`table::Draws::position`]) after the draw.
        rng_pos: u64,
    },
    /// Nobody won Trine Dominance: the whole pot becomes the Jackpot (Open question 4).
    PotToJackpot,
    /// An Action card and bid went down face down (the bid face up when `open_bid` is set).
    ActionCommitted {
        /// The Actor.
        actor: ActorId,
        /// The card, `None` for viewers who may not see it.
        card: Option<ActionCard>,
        /// The bid, when it was played face up.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        open_bid: Option<u16>,
    },
    /// Reveal AT: the Action cards and bids face up (read them in the state or the view);
    /// the Showdown is resolved.
    ActionsRevealed,
    /// An Action resolves (in Action Priority order): `damage` gets through to the target.
    Struck {
        /// Index in the Showdown's strikes.
        strike: u16,
        /// Damage after the target's partial-Aspect reduction.
        damage: u16,
    },
    /// An Action resolves to nothing.
    StrikeVoid {
        /// Index in the Showdown's strikes.
        strike: u16,
        /// Why.
        why: Void,
    },
    /// The damaged Actor spread the damage (chips removed from the game).
    DamageTaken {
        /// The Actor.
        actor: ActorId,
        /// The Aspect.
        aspect: Aspect,
        /// Per Attribute, serial order.
        spread: [u16; 3],
        /// The Aspect it exhausted, eliminating the Actor.
        exhausted: Option<Aspect>,
    },
    /// Token Refresh: bids back to the stacks.
    TokensRefreshed,
    /// Elimination Check: an Actor leaves the Conflict.
    Eliminated {
        /// The Actor.
        actor: ActorId,
        /// Why.
        status: Status,
    },
    /// The Hand is over and the next one starts (Engagement) with this UTG.
    HandEnded {
        /// UTG of the next Hand.
        next_utg: ActorId,
    },
    /// The Conflict is over.
    ConflictEnded {
        /// How.
        ending: Ending,
    },
    /// The GM engaged the Actors in these interaction clusters (empty: everyone); the Hand
    /// starts again with the first cluster.
    Engaged {
        /// The clusters.
        clusters: Vec<Targets>,
    },
    /// The next interaction cluster plays its part of the Hand (Decision 33).
    ClusterStarted {
        /// Its index.
        cluster: u8,
        /// Its UTG.
        utg: ActorId,
    },
    /// The cluster playing lost its opposition while committing (an Actor could not ante or
    /// withdrew): its part of the Hand ends before the reveal, as a Conflict would; the
    /// face-down cards go back, their antes never paid (Decision 33).
    ClusterEnded,
    /// The GM adjusted an Actor (Decision 35), public.
    Adjusted {
        /// The Actor.
        actor: ActorId,
        /// What changed, to what.
        change: Adjustment,
        /// The value before.
        from: u16,
        /// Why.
        reason: String,
    },
    /// A justification line (seed: Step 3, Bluff Space Rule), public.
    Justified {
        /// The Actor.
        actor: ActorId,
        /// The Hand whose Action it justifies.
        hand: u32,
        /// The line.
        line: String,
    },
}

/// Why a command was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RuleError {
    /// The Conflict is over.
    #[error("the Conflict is over")]
    Over,
    /// No such Actor.
    #[error("there is no Actor {0}")]
    UnknownActor(ActorId),
    /// The seat does not play that Actor.
    #[error("seat {seat} does not play {actor}")]
    NotYourActor {
        /// The seat's name.
        seat: String,
        /// The Actor's name.
        actor: String,
    },
    /// Not this Actor's turn, or not this step.
    #[error("not now: the Hand waits for {0}")]
    NotNow(String),
    /// Only the GM may do this.
    #[error("only the GM may end the Conflict")]
    NotGm,
    /// The Actor does not have the Aspect.
    #[error("{actor} has no {aspect} Attribute and cannot play that Aspect card")]
    NoSuchAspect {
        /// The Actor.
        actor: String,
        /// The Aspect.
        aspect: Aspect,
    },
    /// An Attribute outside the played Aspect.
    #[error(
        "{attribute} is not a {aspect} Attribute (seed: Step {step}: it must belong to the Aspect played)"
    )]
    OutsideAspect {
        /// The Attribute.
        attribute: Attribute,
        /// The Aspect played.
        aspect: Aspect,
        /// The seed step (2 for the ante, 3 for the Action card).
        step: u8,
    },
    /// An Attribute the Actor does not possess.
    #[error("{actor} does not possess {attribute} (-)")]
    Absent {
        /// The Actor.
        actor: String,
        /// The Attribute.
        attribute: Attribute,
    },
    /// Not enough chips to ante.
    #[error("the ante is {ante} chips from one Attribute (the Stakes); {attribute} has {has}")]
    AnteShort {
        /// The Attribute.
        attribute: Attribute,
        /// Chips it has.
        has: u16,
        /// The ante.
        ante: u16,
    },
    /// No target named.
    #[error("name at least one target (seed: Step 2, Target)")]
    NoTarget,
    /// A target that is not an opponent in the Conflict.
    #[error("{0} cannot be a target: a target is an opponent still in the Conflict")]
    BadTarget(String),
    /// Bid over the Trine Score cap.
    #[error(
        "a bid of {bid} is over the cap of {cap}, the Trine Score of the Aspect played (seed: Step 3, Bid Cap)"
    )]
    OverCap {
        /// The bid.
        bid: u16,
        /// The cap.
        cap: u16,
    },
    /// Bid over the chips in the stack.
    #[error("a bid of {bid} is more than the {has} chips in the {attribute} stack (seed: Step 3)")]
    OverStack {
        /// The bid.
        bid: u16,
        /// Chips in the stack.
        has: u16,
        /// The Attribute.
        attribute: Attribute,
    },
    /// An Attribute at 0 while another of the Aspect has chips.
    #[error("{0} is at 0 and unusable while another Attribute of the Aspect has chips (Open question 13)")]
    Unusable(Attribute),
    /// No Wildcard left.
    #[error("no Wildcard left this Conflict (they refresh once per Conflict)")]
    NoWildcard,
    /// A Wildcard from an Actor whose Wildcard pool is empty (§3.2).
    #[error(
        "{0} has no Wildcards: its Wildcard pool (`wildcards`) is empty — NPCs and abstract Actors have none unless the setup grants some with `wildcards = N` (an Extension)"
    )]
    NoWildcardPool(String),
    /// A damage Aspect for an Actor that is not abstract.
    #[error("only abstract Actors choose the Aspect their damage hurts; others hurt the Aspect they played")]
    DamageAspect,
    /// Intent too long.
    #[error("the intent is over {MAX_INTENT} characters")]
    IntentTooLong,
    /// An intent refused for what it holds (control characters).
    #[error("intent: {0}")]
    Intent(String),
    /// A bad damage spread.
    #[error("{0}")]
    Spread(SpreadError),
    /// Interaction clusters refused (seed: Step 1, Engagement).
    #[error("engagement: {0}")]
    Engagement(String),
    /// A justification line refused (seed: Step 3, Bluff Space Rule).
    #[error("justification line: {0}")]
    Justification(String),
    /// An adjustment from a seat that is not the GM's (Decision 35).
    #[error("only the GM may adjust an Actor's chips or Wildcards (Decision 35, GM adjustments)")]
    AdjustNotGm,
    /// An adjustment refused (Decision 35).
    #[error("GM adjustment (Decision 35): {0}")]
    Adjust(String),
}

/// Checks table talk said aloud (an intent, a justification line): at most `max` characters,
/// no control characters (they could rewrite other players' screens). Returns it trimmed.
pub fn check_table_talk(text: &str, max: usize) -> Result<String, String> {
    if text.chars().count() > max {
        return Err(format!("over {max} characters"));
    }
    if let Some(c) = text.chars().find(|c| c.is_control()) {
        return Err(format!("control character {:?} (U+{:04X}) not allowed", c, u32::from(c)));
    }
    Ok(text.trim().to_owned())
}

fn name(c: &Conflict, id: ActorId) -> String {
    c.actors.get(id.index()).map(|a| a.sheet.name.clone()).unwrap_or_else(|| id.to_string())
}

impl Conflict {
    fn check_actor(&self, seat: SeatId, actor: ActorId) -> Result<(), RuleError> {
        let a = self.actors.get(actor.index()).ok_or(RuleError::UnknownActor(actor))?;
        if a.sheet.seat != seat {
            return Err(RuleError::NotYourActor {
                seat: self.seat_name(seat).to_owned(),
                actor: name(self, actor),
            });
        }
        Ok(())
    }

    fn check_turn(&self, phase_ok: bool, actor: ActorId) -> Result<(), RuleError> {
        let now = match self.phase {
            Phase::SpreadDamage { .. } => self.spreading().map(|s| s.0),
            _ => self.committing(),
        };
        if !phase_ok || now != Some(actor) {
            return Err(RuleError::NotNow(self.waiting_for()));
        }
        Ok(())
    }

    /// Checks an ante from `ante` for an `aspect` card (seed: Step 2, Ante).
    pub fn check_ante(&self, actor: ActorId, aspect: Aspect, ante: Attribute) -> Result<(), RuleError> {
        let a = &self.actors[actor.index()];
        if !a.sheet.statblock.has_aspect(aspect) {
            return Err(RuleError::NoSuchAspect { actor: name(self, actor), aspect });
        }
        if ante.aspect() != aspect {
            return Err(RuleError::OutsideAspect { attribute: ante, aspect, step: 2 });
        }
        if !a.sheet.statblock.possesses(ante) {
            return Err(RuleError::Absent { actor: name(self, actor), attribute: ante });
        }
        let (has, need) = (a.stacks[ante.index()], self.ante_amount(actor));
        if has < need || has == 0 {
            return Err(RuleError::AnteShort { attribute: ante, has, ante: need });
        }
        Ok(())
    }

    /// Whether `actor` may ante from `ante` (for an Aspect card of its Aspect): the quick form
    /// of [`Conflict::check_ante`] for the legal-command lists.
    pub fn may_ante(&self, actor: ActorId, ante: Attribute) -> bool {
        let a = &self.actors[actor.index()];
        let has = a.stacks[ante.index()];
        a.sheet.statblock.possesses(ante) && has > 0 && has >= self.ante_amount(actor)
    }

    /// Whether `target` may be a target of `actor` (an opponent still in the Conflict).
    pub fn may_target(&self, actor: ActorId, target: ActorId) -> bool {
        let (Some(a), Some(t)) = (self.actor(actor), self.actor(target)) else { return false };
        actor != target && t.is_in() && t.sheet.side != a.sheet.side && self.in_cluster(target.index())
    }

    /// Whether Actor `i` is in the cluster playing now (always, without clusters).
    pub fn in_cluster(&self, i: usize) -> bool {
        self.clusters.get(usize::from(self.cluster)).is_none_or(|c| c.actors.has(ActorId(i as u8)))
    }

    /// Whether a cluster can play: its Actors still in are on at least two sides.
    fn playable(&self, c: &crate::conflict::Cluster) -> bool {
        let mut side = None;
        c.actors.iter().filter(|a| self.actors[a.index()].is_in()).any(|a| {
            let s = self.actors[a.index()].sheet.side;
            side.replace(s).is_some_and(|first| first != s)
        })
    }

    /// The UTG a cluster starts from: its stored one, or when that one has left, the next
    /// Actor of the cluster still in, in table order (Decision 21).
    fn cluster_start_utg(&self, c: &crate::conflict::Cluster) -> ActorId {
        let n = self.actors.len();
        (0..n)
            .map(|k| (c.utg.index() + k) % n)
            .find(|&i| self.actors[i].is_in() && c.actors.has(ActorId(i as u8)))
            .map(|i| ActorId(i as u8))
            .unwrap_or(c.utg)
    }

    /// The next UTG of the cluster playing now (seed: Step 1, UTG Assignment, within it).
    fn cluster_next_utg(&self) -> ActorId {
        let wins: ArrayVec<u16, MAX_ACTORS> =
            self.actors.iter().map(|a| u16::from(a.trine_wins) + u16::from(a.attribute_wins)).collect();
        hand::next_utg(&wins, self.utg, |i| self.actors[i].is_in() && self.in_cluster(i)).utg
    }

    /// The clusters as they will be after the cluster playing now stores its next UTG.
    fn clusters_after(&self) -> Vec<crate::conflict::Cluster> {
        let mut clusters = self.clusters.clone();
        if let Some(c) = clusters.get_mut(usize::from(self.cluster)) {
            c.utg = self.cluster_next_utg();
        }
        clusters
    }

    /// Checks the GM's interaction clusters (seed: Step 1, Engagement; Decision 33).
    fn check_engagement(&self, clusters: &[Targets]) -> Result<(), RuleError> {
        let committed = self.actors.iter().any(|a| !matches!(a.aspect, table::Sealed::Empty));
        if self.phase != Phase::CommitAspect || self.clusters_done > 0 || committed {
            return Err(RuleError::Engagement(
                "the GM engages Actors at the start of a Hand, before anyone commits".into(),
            ));
        }
        let mut seen = Targets::NONE;
        for (k, c) in clusters.iter().enumerate() {
            let k = k + 1;
            if let Some(a) = c.iter().find(|a| a.index() >= self.actors.len()) {
                return Err(RuleError::UnknownActor(a));
            }
            if let Some(a) = c.iter().find(|a| !self.actors[a.index()].is_in()) {
                return Err(RuleError::Engagement(format!("{} has left the Conflict", name(self, a))));
            }
            if let Some(a) = c.iter().find(|&a| seen.has(a)) {
                return Err(RuleError::Engagement(format!("{} is in two clusters", name(self, a))));
            }
            seen = Targets::from_bits(seen.bits() | c.bits());
            let cluster = crate::conflict::Cluster { actors: *c, utg: ActorId(0), jackpot: [0; 9] };
            if !self.playable(&cluster) {
                return Err(RuleError::Engagement(format!(
                    "cluster {k} needs Actors of at least two sides (an opposition)"
                )));
            }
        }
        Ok(())
    }

    /// Checks an Action card and bid (seed: Step 3).
    pub fn check_action(
        &self,
        actor: ActorId,
        attribute: Attribute,
        bid: u16,
        wildcard: bool,
        damage_aspect: Option<Aspect>,
    ) -> Result<(), RuleError> {
        let a = &self.actors[actor.index()];
        let aspect =
            a.aspect.value().map(|c| c.aspect).ok_or_else(|| RuleError::NotNow(self.waiting_for()))?;
        if attribute.aspect() != aspect {
            return Err(RuleError::OutsideAspect { attribute, aspect, step: 3 });
        }
        if !a.sheet.statblock.possesses(attribute) {
            return Err(RuleError::Absent { actor: name(self, actor), attribute });
        }
        let has = a.stacks[attribute.index()];
        if has == 0 && aspect.attributes().iter().any(|x| a.stacks[x.index()] > 0) {
            return Err(RuleError::Unusable(attribute));
        }
        let cap = self.bid_cap(actor, aspect);
        if bid > cap {
            return Err(RuleError::OverCap { bid, cap });
        }
        if bid > has {
            return Err(RuleError::OverStack { bid, has, attribute });
        }
        if wildcard && a.sheet.wildcards == 0 {
            return Err(RuleError::NoWildcardPool(name(self, actor)));
        }
        if wildcard && a.wildcards == 0 {
            return Err(RuleError::NoWildcard);
        }
        if damage_aspect.is_some_and(|d| d != aspect) && a.sheet.kind != Kind::Abstract {
            return Err(RuleError::DamageAspect);
        }
        Ok(())
    }

    /// Validates `command` from `seat` and pushes its events.
    pub fn decide(&self, seat: SeatId, command: &Command, events: &mut Vec<Event>) -> Result<(), RuleError> {
        if let Command::Justify { actor, line } = command {
            return self.justify(seat, *actor, line, events);
        }
        if self.phase == Phase::Over {
            return Err(RuleError::Over);
        }
        match command {
            Command::Justify { .. } => {}
            Command::Engage { clusters } => {
                if !self.is_gm(seat) {
                    return Err(RuleError::NotGm);
                }
                self.check_engagement(clusters)?;
                events.push(Event::Engaged { clusters: clusters.clone() });
            }
            Command::Adjust { actor, change, reason } => {
                if !self.is_gm(seat) {
                    return Err(RuleError::AdjustNotGm);
                }
                events.push(self.check_adjustment(*actor, *change, reason)?);
            }
            Command::EndConflict => {
                if !self.is_gm(seat) {
                    return Err(RuleError::NotGm);
                }
                events.push(Event::ConflictEnded { ending: Ending::Fiction });
            }
            Command::CommitAspect { actor, aspect, ante, targets, intent } => {
                self.check_actor(seat, *actor)?;
                self.check_turn(self.phase == Phase::CommitAspect, *actor)?;
                self.check_ante(*actor, *aspect, *ante)?;
                if targets.is_empty() {
                    return Err(RuleError::NoTarget);
                }
                if let Some(t) = targets.iter().find(|&t| !self.may_target(*actor, t)) {
                    return Err(RuleError::BadTarget(name(self, t)));
                }
                if intent.as_ref().is_some_and(|i| i.chars().count() > MAX_INTENT) {
                    return Err(RuleError::IntentTooLong);
                }
                let intent = intent
                    .as_deref()
                    .map(|i| check_table_talk(i, MAX_INTENT))
                    .transpose()
                    .map_err(RuleError::Intent)?
                    .filter(|i| !i.is_empty());
                events.push(Event::AspectCommitted {
                    actor: *actor,
                    card: Some(AspectCard { aspect: *aspect, ante: *ante }),
                    targets: *targets,
                    intent,
                });
            }
            Command::Withdraw { actor } => {
                self.check_actor(seat, *actor)?;
                self.check_turn(self.phase == Phase::CommitAspect, *actor)?;
                events.push(Event::Withdrew { actor: *actor });
            }
            Command::CommitAction { actor, attribute, bid, wildcard, open, damage_aspect } => {
                self.check_actor(seat, *actor)?;
                self.check_turn(self.phase == Phase::CommitAction, *actor)?;
                self.check_action(*actor, *attribute, *bid, *wildcard, *damage_aspect)?;
                events.push(Event::ActionCommitted {
                    actor: *actor,
                    card: Some(ActionCard {
                        attribute: *attribute,
                        bid: *bid,
                        wildcard: *wildcard,
                        damage_aspect: damage_aspect.unwrap_or(attribute.aspect()),
                    }),
                    open_bid: open.then_some(*bid),
                });
            }
            Command::SpreadDamage { actor, spread } => {
                self.check_actor(seat, *actor)?;
                self.check_turn(matches!(self.phase, Phase::SpreadDamage { .. }), *actor)?;
                let Some((_, aspect, damage)) = self.spreading() else {
                    return Err(RuleError::NotNow(self.waiting_for()));
                };
                let values = self.actors[actor.index()].aspect_values(aspect);
                check_spread(values, damage, *spread).map_err(RuleError::Spread)?;
                events.push(self.damage_taken(*actor, aspect, *spread));
            }
        }
        Ok(())
    }

    /// Decision 35, GM adjustments: checks an adjustment of `actor` and gives its event. The
    /// Actor must still be in the Conflict; chips only in an Attribute it possesses, 0–100;
    /// Wildcards at most its pool; a reason is required (table talk rules).
    pub fn check_adjustment(
        &self,
        actor: ActorId,
        change: Adjustment,
        reason: &str,
    ) -> Result<Event, RuleError> {
        let a = self.actors.get(actor.index()).ok_or(RuleError::UnknownActor(actor))?;
        if !a.is_in() {
            return Err(RuleError::Adjust(format!("{} has left the Conflict", a.sheet.name)));
        }
        let reason = check_table_talk(reason, MAX_JUSTIFICATION)
            .map_err(|e| RuleError::Adjust(format!("reason: {e}")))?;
        if reason.is_empty() {
            return Err(RuleError::Adjust("give a reason: an adjustment is always logged with one".into()));
        }
        let from = match change {
            Adjustment::Chips { attribute, to } => {
                if !a.sheet.statblock.possesses(attribute) {
                    return Err(RuleError::Adjust(format!(
                        "{} does not possess {attribute} (-): an adjustment changes values, not the stat block",
                        a.sheet.name
                    )));
                }
                if to > u16::from(crate::actor::MAX_AV) {
                    return Err(RuleError::Adjust(format!(
                        "{to} chips: an Attribute's value is 0–{}",
                        crate::actor::MAX_AV
                    )));
                }
                a.stacks[attribute.index()]
            }
            Adjustment::Wildcards { to } => {
                if to > a.sheet.wildcards {
                    return Err(RuleError::Adjust(format!(
                        "{to} Wildcards: {} has a Wildcard pool of {}",
                        a.sheet.name, a.sheet.wildcards
                    )));
                }
                a.wildcards
            }
        };
        Ok(Event::Adjusted { actor, change, from, reason })
    }

    /// Seed Step 3, Bluff Space Rule: a justification line for `actor`'s Action revealed in
    /// the latest Reveal AT, once per Hand.
    /// Whether `actor` may add its justification line now (seed Step 3, Bluff Space Rule;
    /// Decision 32): its Action card was revealed at the latest reveal (the line may come until
    /// the next Hand's reveal, also after the end) and it has not justified it yet.
    pub fn may_justify(&self, actor: ActorId) -> bool {
        self.after_its_reveal(actor)
            && self.actors.get(actor.index()).is_some_and(|a| a.justified_in != a.revealed_in)
    }

    /// Whether `actor`'s Action card was revealed at the latest reveal.
    fn after_its_reveal(&self, actor: ActorId) -> bool {
        let latest = self.actors.iter().map(|a| a.revealed_in).max().unwrap_or(0);
        self.actors.get(actor.index()).is_some_and(|a| a.revealed_in != 0 && a.revealed_in == latest)
    }

    fn justify(
        &self,
        seat: SeatId,
        actor: ActorId,
        line: &str,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        self.check_actor(seat, actor)?;
        let a = &self.actors[actor.index()];
        if !self.after_its_reveal(actor) {
            return Err(RuleError::NotNow(format!(
                "a justification line comes after the reveal of {}'s Action card",
                a.sheet.name
            )));
        }
        if a.justified_in == a.revealed_in {
            return Err(RuleError::Justification(format!(
                "{} already justified its Action of Hand {}",
                a.sheet.name, a.revealed_in
            )));
        }
        let line = check_table_talk(line, MAX_JUSTIFICATION).map_err(RuleError::Justification)?;
        if line.is_empty() {
            return Err(RuleError::Justification("it is empty".into()));
        }
        events.push(Event::Justified { actor, hand: a.revealed_in, line });
        Ok(())
    }

    fn damage_taken(&self, actor: ActorId, aspect: Aspect, spread: [u16; 3]) -> Event {
        let a = &self.actors[actor.index()];
        let before = a.aspect_values(aspect);
        let hit = before.iter().zip(&spread).all(|(v, &d)| v.is_none_or(|v| v <= d));
        // Only the damaged Aspect changes; any other exhausted Aspect is the Elimination
        // Check's business.
        let exhausted = (hit && before.iter().any(Option::is_some)).then_some(aspect);
        Event::DamageTaken { actor, aspect, spread, exhausted }
    }

    /// The pot's leaders (seed: Pay the Ante Pot): the Actors with the most TD wins, at least
    /// one, in commit order from UTG. None when nobody won Trine Dominance.
    pub fn pot_leaders(&self) -> ArrayVec<ActorId, MAX_ACTORS> {
        let wins: ArrayVec<u8, MAX_ACTORS> = self.actors.iter().map(|a| a.trine_wins).collect();
        hand::pot_leaders(&wins, &self.order)
    }

    /// UTG of the next Hand (seed: Step 1, UTG Assignment), by [`hand::next_utg`]: the
    /// Actor with the most Dominance wins (TD + AD) this Hand; on a tie (counting Actors
    /// eliminated during the Hand) UTG stays, or passes to the next Actor still in if it has
    /// left (Decision 21); when the only leader was eliminated, the Actor with the most wins
    /// among those still in (Decision "UTG when the leader is out").
    pub fn next_utg(&self) -> ActorId {
        let wins: ArrayVec<u16, MAX_ACTORS> =
            self.actors.iter().map(|a| u16::from(a.trine_wins) + u16::from(a.attribute_wins)).collect();
        hand::next_utg(&wins, self.utg, |i| self.actors[i].is_in()).utg
    }

    /// Decision 31, a stalemate: when this Hand, and the `stalemate_hands − 1` before it,
    /// dealt no damage and eliminated nobody, the Conflict ends (`Ending::Stalemate`). Chips
    /// only moved between stacks, the pot and the Jackpot; damage is what cannot go on forever
    /// (every damaging Hand destroys a chip), so counting Hands without it bounds every
    /// Conflict.
    fn stalemate(&self) -> Option<Event> {
        let limit = self.options.stalemate_hands;
        let quiet = self.quiet_hands + u32::from(!self.progress);
        (limit > 0 && !self.progress && quiet >= limit)
            .then_some(Event::ConflictEnded { ending: Ending::Stalemate(quiet) })
    }

    fn one_side_left(&self) -> Option<Event> {
        let sides = self.sides_in();
        (sides.len() <= 1)
            .then(|| Event::ConflictEnded { ending: Ending::OneSideLeft(sides.first().copied()) })
    }

    /// The next step the rules take by themselves, if any.
    pub fn automatic(&self) -> Option<Event> {
        match self.phase {
            Phase::Engagement => Some(
                self.one_side_left().unwrap_or(Event::HandStarted { hand: self.hand + 1, utg: self.utg }),
            ),
            Phase::CommitAspect => {
                if let Some(end) = self.one_side_left() {
                    return Some(end);
                }
                // A cluster left without opposition stops committing (Decision 33).
                let cluster_over =
                    self.clusters.get(usize::from(self.cluster)).is_some_and(|c| !self.playable(c));
                if cluster_over {
                    return Some(Event::ClusterEnded);
                }
                match self.committing() {
                    Some(actor) => (!self.can_ante(actor)).then_some(Event::CouldNotAnte { actor }),
                    None => Some(Event::AspectsRevealed),
                }
            }
            Phase::PayPot => Some(self.pay_token()),
            Phase::CommitAction => match self.committing() {
                Some(_) => None,
                None => Some(Event::ActionsRevealed),
            },
            Phase::Strikes => {
                let i = self.next_strike;
                let Some(s) = self.showdown.strikes.get(usize::from(i)) else {
                    return Some(Event::TokensRefreshed);
                };
                let (att, tgt) = (&self.actors[s.attacker.index()], &self.actors[s.target.index()]);
                let possessed =
                    s.aspect.attributes().iter().filter(|&&a| tgt.sheet.statblock.possesses(a)).count();
                Some(match hand::strike_fate(s, att.is_in(), tgt.is_in(), possessed) {
                    StrikeFate::Void(why) => Event::StrikeVoid { strike: i, why },
                    StrikeFate::Damage(damage) => Event::Struck { strike: i, damage },
                })
            }
            Phase::SpreadDamage { damage } => {
                let (actor, aspect, _) = self.spreading()?;
                let values = self.actors[actor.index()].aspect_values(aspect);
                forced_spread(values, damage).map(|spread| self.damage_taken(actor, aspect, spread))
            }
            Phase::EliminationCheck => {
                for (i, a) in self.actors.iter().enumerate().filter(|(_, a)| a.is_in()) {
                    let id = ActorId(i as u8);
                    let mut status = a.exhausted_aspect().map(Status::Exhausted);
                    let mut removed = false;
                    self.extensions.elimination_check(id, &mut removed);
                    if removed && status.is_none() {
                        status = Some(Status::Removed);
                    }
                    if let Some(status) = status {
                        return Some(Event::Eliminated { actor: id, status });
                    }
                }
                if let Some(end) = self.one_side_left() {
                    return Some(end);
                }
                if !self.clusters.is_empty() {
                    let after = self.clusters_after();
                    let next =
                        (usize::from(self.cluster) + 1..after.len()).find(|&k| self.playable(&after[k]));
                    if let Some(k) = next {
                        return Some(Event::ClusterStarted {
                            cluster: k as u8,
                            utg: self.cluster_start_utg(&after[k]),
                        });
                    }
                }
                if let Some(end) = self.stalemate() {
                    return Some(end);
                }
                let mut go_on = true;
                self.extensions.next_hand(self.hand, &mut go_on);
                Some(if go_on {
                    Event::HandEnded { next_utg: self.next_hand_utg() }
                } else {
                    Event::ConflictEnded { ending: Ending::Extension }
                })
            }
            Phase::Over => None,
        }
    }

    /// Whether `actor` can ante at all (seed: Step 2; Open question 13): some possessed
    /// Aspect has an Attribute with the ante in chips.
    pub fn can_ante(&self, actor: ActorId) -> bool {
        Attribute::ALL.iter().any(|&a| self.may_ante(actor, a))
    }

    /// Pays one pot token (seed: Pay the Ante Pot): drawn blind from the Conflict's [`Draws`](table::Draws),
    /// to the leaders round-robin in commit order from UTG. With one leader every token goes
    /// to it, so the draw order cannot matter and no draw is made.
    fn pay_token(&self) -> Event {
        let leaders = self.pot_leaders();
        let Some(to) = hand::pot_recipient(&leaders, self.paid) else {
            return Event::PotToJackpot;
        };
        let single = leaders.len() == 1;
        let mut rng_pos = self.draws.position();
        let attribute = if single {
            Attribute::ALL.into_iter().find(|a| self.pot[a.index()] > 0)
        } else {
            let total: u16 = self.pot.iter().sum();
            let mut draws = self.draws.stream();
            let mut pick = draws.uniform(0..total.max(1)).unwrap_or(0);
            rng_pos = draws.position();
            Attribute::ALL.into_iter().find(|a| {
                let n = self.pot[a.index()];
                if pick < n {
                    true
                } else {
                    pick -= n;
                    false
                }
            })
        };
        let attribute = attribute.unwrap_or(Attribute::Rea);
        let fate = if self.actors[to.index()].sheet.statblock.possesses(attribute) {
            TokenFate::Kept
        } else {
            TokenFate::ToJackpot
        };
        Event::TokenPaid { to, attribute, fate, rng_pos }
    }

    fn start_actions(&mut self) {
        self.phase = Phase::CommitAction;
        self.turn = 0;
    }

    /// Step 1, Engagement: a Hand starts with `utg`; the acting order runs from UTG through
    /// the Actors still in, in table order.
    fn start_hand(&mut self, hand: u32, utg: ActorId) {
        self.hand = hand;
        self.utg = utg;
        self.order.clear();
        let n = self.actors.len();
        for k in 0..n {
            let i = (utg.index() + k) % n;
            if self.actors[i].is_in() && self.in_cluster(i) {
                self.order.push(ActorId(i as u8));
            }
        }
        for a in &mut self.actors {
            a.aspect = table::Sealed::Empty;
            a.action = table::Sealed::Empty;
            a.intent = None;
            a.targets = Targets::NONE;
            a.open_bid = false;
            a.trine_wins = 0;
            a.attribute_wins = 0;
        }
        self.showdown.clear();
        self.next_strike = 0;
        self.paid = 0;
        self.turn = 0;
        self.phase = Phase::CommitAspect;
    }

    /// Stores the cluster playing now: its next UTG and its Jackpot.
    fn store_cluster(&mut self) {
        let utg = self.cluster_next_utg();
        let jackpot = std::mem::take(&mut self.jackpot);
        if let Some(c) = self.clusters.get_mut(usize::from(self.cluster)) {
            c.utg = utg;
            c.jackpot = jackpot;
        }
    }

    /// Makes cluster `k` the one playing: its Jackpot goes live.
    fn load_cluster(&mut self, k: usize) {
        self.cluster = k as u8;
        if let Some(c) = self.clusters.get_mut(k) {
            self.jackpot = std::mem::take(&mut c.jackpot);
        }
    }

    /// UTG of the next Hand: by the seed's rule, or with clusters that of the first cluster
    /// that can play (Decision 33).
    fn next_hand_utg(&self) -> ActorId {
        if self.clusters.is_empty() {
            return self.next_utg();
        }
        let after = self.clusters_after();
        match after.iter().find(|c| self.playable(c)) {
            Some(c) => self.cluster_start_utg(c),
            None => self.next_utg(),
        }
    }

    /// Applies one event.
    pub fn apply(&mut self, event: &Event) {
        match event {
            Event::HandStarted { hand, utg } => self.start_hand(*hand, *utg),
            Event::AspectCommitted { actor, card, targets, intent } => {
                let a = &mut self.actors[actor.index()];
                if let Some(card) = card {
                    a.aspect = table::Sealed::FaceDown(*card);
                }
                a.targets = *targets;
                a.intent = intent.clone();
                self.turn += 1;
            }
            Event::Withdrew { actor } | Event::CouldNotAnte { actor } => {
                self.progress = true;
                self.actors[actor.index()].status = if matches!(event, Event::Withdrew { .. }) {
                    Status::Withdrew
                } else {
                    Status::CouldNotAnte
                };
                self.turn += 1;
            }
            Event::AspectsRevealed => self.reveal_aspects(),
            Event::TokenPaid { to, attribute, fate, rng_pos } => {
                let i = attribute.index();
                self.pot[i] = self.pot[i].saturating_sub(1);
                match fate {
                    TokenFate::Kept => self.actors[to.index()].stacks[i] += 1,
                    TokenFate::ToJackpot => self.jackpot[i] += 1,
                }
                self.draws.advance_to(*rng_pos);
                self.paid += 1;
                if self.pot.iter().all(|&c| c == 0) {
                    self.start_actions();
                }
            }
            Event::PotToJackpot => {
                for i in 0..9 {
                    self.jackpot[i] += std::mem::take(&mut self.pot[i]);
                }
                self.start_actions();
            }
            Event::ActionCommitted { actor, card, open_bid } => {
                let a = &mut self.actors[actor.index()];
                if let Some(card) = card {
                    a.action = table::Sealed::FaceDown(*card);
                }
                a.open_bid = open_bid.is_some();
                self.turn += 1;
            }
            Event::ActionsRevealed => self.reveal_actions(),
            Event::Struck { damage, .. } => {
                if *damage == 0 {
                    self.next_strike += 1;
                } else {
                    self.phase = Phase::SpreadDamage { damage: *damage };
                }
            }
            Event::StrikeVoid { .. } => self.next_strike += 1,
            Event::DamageTaken { actor, aspect, spread, exhausted } => {
                self.progress |= spread.iter().any(|&d| d > 0) || exhausted.is_some();
                let a = &mut self.actors[actor.index()];
                take_damage(a, *aspect, *spread);
                if let Some(x) = exhausted {
                    a.status = Status::Exhausted(*x);
                }
                self.next_strike += 1;
                self.phase = Phase::Strikes;
            }
            Event::TokensRefreshed => {
                for (i, a) in self.actors.iter_mut().enumerate() {
                    let Some(card) = a.action.value() else { continue };
                    let mut to_jackpot = 0;
                    self.extensions.token_refresh(ActorId(i as u8), &mut to_jackpot);
                    let to_jackpot = to_jackpot.min(a.on_card);
                    let k = card.attribute.index();
                    a.stacks[k] += a.on_card - to_jackpot;
                    self.jackpot[k] += to_jackpot;
                    a.on_card = 0;
                }
                self.phase = Phase::EliminationCheck;
            }
            Event::Eliminated { actor, status } => {
                self.progress = true;
                self.actors[actor.index()].status = *status
            }
            Event::HandEnded { next_utg } => {
                self.quiet_hands = if self.progress { 0 } else { self.quiet_hands + 1 };
                self.progress = false;
                self.clusters_done = 0;
                if !self.clusters.is_empty() {
                    self.store_cluster();
                    match self.clusters.iter().position(|c| self.playable(c)) {
                        Some(k) => self.load_cluster(k),
                        None => {
                            // No cluster can play: the engagement dissolves (Decision 33).
                            for c in std::mem::take(&mut self.clusters) {
                                add(&mut self.jackpot, &c.jackpot);
                            }
                            self.cluster = 0;
                        }
                    }
                }
                self.start_hand(self.hand + 1, *next_utg)
            }
            Event::ClusterEnded => {
                for a in &mut self.actors {
                    a.aspect = table::Sealed::Empty;
                    a.targets = Targets::NONE;
                    a.intent = None;
                }
                self.phase = Phase::EliminationCheck;
            }
            Event::ClusterStarted { cluster, utg } => {
                self.store_cluster();
                self.clusters_done += 1;
                self.load_cluster(usize::from(*cluster));
                self.start_hand(self.hand, *utg)
            }
            Event::Engaged { clusters } => {
                let mut jackpot = std::mem::take(&mut self.jackpot);
                for c in std::mem::take(&mut self.clusters) {
                    add(&mut jackpot, &c.jackpot);
                }
                let base = self.utg;
                let n = self.actors.len();
                self.clusters = clusters
                    .iter()
                    .map(|&actors| {
                        let utg = (0..n)
                            .map(|k| ActorId(((base.index() + k) % n) as u8))
                            .find(|&a| actors.has(a))
                            .unwrap_or(base);
                        crate::conflict::Cluster { actors, utg, jackpot: [0; 9] }
                    })
                    .collect();
                self.cluster = 0;
                self.clusters_done = 0;
                self.jackpot = jackpot;
                let utg = self.clusters.first().map_or(base, |c| c.utg);
                self.start_hand(self.hand, utg)
            }
            Event::ConflictEnded { ending } => {
                self.ending = Some(*ending);
                self.phase = Phase::Over;
            }
            Event::Justified { actor, hand, .. } => self.actors[actor.index()].justified_in = *hand,
            Event::Adjusted { actor, change, from, .. } => {
                let a = &mut self.actors[actor.index()];
                match change {
                    Adjustment::Chips { attribute, to } => {
                        a.stacks[attribute.index()] = *to;
                        self.chips_adjusted += i64::from(*to) - i64::from(*from);
                    }
                    Adjustment::Wildcards { to } => a.wildcards = *to,
                }
            }
        }
    }

    /// Reveal TA and Resolve TD: cards face up, antes (and the Jackpot) into the pot, TD wins
    /// counted pairwise.
    fn reveal_aspects(&mut self) {
        let mut plays: ArrayVec<(ActorId, Aspect, Targets), MAX_ACTORS> = ArrayVec::new();
        let order = self.order.clone();
        self.order.clear();
        for id in order {
            let amount = self.ante_amount(id);
            let a = &mut self.actors[id.index()];
            let Some(card) = a.aspect.value() else { continue };
            if !a.is_in() {
                continue;
            }
            a.aspect.reveal();
            let k = card.ante.index();
            let paid = amount.min(a.stacks[k]);
            a.stacks[k] -= paid;
            self.pot[k] += paid;
            plays.push((id, card.aspect, a.targets));
            self.order.push(id);
        }
        for i in 0..9 {
            self.pot[i] += std::mem::take(&mut self.jackpot[i]);
        }
        let wins = hand::trine_wins(&plays, &self.extensions);
        for &(id, _, _) in &plays {
            self.actors[id.index()].trine_wins = wins[id.index()];
        }
        self.paid = 0;
        if self.pot.iter().all(|&c| c == 0) {
            self.start_actions();
        } else {
            self.phase = Phase::PayPot;
        }
    }

    /// Reveal AT and Resolve AD: cards and bids face up, bids onto the cards, Wildcards
    /// spent, the Showdown resolved.
    fn reveal_actions(&mut self) {
        let mut plays: ArrayVec<Play, MAX_ACTORS> = ArrayVec::new();
        for &id in &self.order {
            let a = &mut self.actors[id.index()];
            let (Some(card), Some(aspect)) = (a.action.value(), a.aspect.value()) else { continue };
            a.action.reveal();
            a.revealed_in = self.hand;
            let k = card.attribute.index();
            let bid = card.bid.min(a.stacks[k]);
            a.stacks[k] -= bid;
            a.on_card = bid;
            let wildcard = card.wildcard && a.wildcards > 0;
            if wildcard {
                a.wildcards -= 1;
            }
            plays.push(Play {
                actor: id,
                aspect: aspect.aspect,
                attribute: card.attribute,
                bid,
                wildcard,
                targets: a.targets,
                damage_aspect: card.damage_aspect,
            });
        }
        let (stakes, bonus) = (self.stakes, self.sweep_bonus());
        let mut showdown = std::mem::take(&mut self.showdown);
        hand::resolve(&plays, stakes, bonus, &self.extensions, &mut showdown);
        for p in &plays {
            self.actors[p.actor.index()].attribute_wins = showdown.attribute_wins[p.actor.index()];
        }
        self.showdown = showdown;
        self.next_strike = 0;
        self.phase = Phase::Strikes;
    }

    /// Pushes every command `seat` may give now. Table talk (intent text), face-up bids,
    /// withdrawing (while an ante is possible) and the GM's calls are accepted but not
    /// listed: they are not game choices a bot weighs (`docs/nodice.md`, Decision 26).
    pub fn legal_commands(&self, seat: SeatId, out: &mut Vec<Command>) {
        match self.phase {
            Phase::CommitAspect => {
                let Some(actor) = self.committing().filter(|a| self.actors[a.index()].sheet.seat == seat)
                else {
                    return;
                };
                let mut opponents: ArrayVec<ActorId, MAX_ACTORS> = ArrayVec::new();
                for i in 0..self.actors.len() {
                    if self.may_target(actor, ActorId(i as u8)) {
                        opponents.push(ActorId(i as u8));
                    }
                }
                let mut target_sets: ArrayVec<Targets, 32> = ArrayVec::new();
                if opponents.len() <= 4 {
                    for mask in 1u32..(1 << opponents.len()) {
                        let t = opponents
                            .iter()
                            .enumerate()
                            .filter(|(k, _)| mask & (1 << k) != 0)
                            .fold(Targets::NONE, |t, (_, &o)| t.with(o));
                        target_sets.push(t);
                    }
                } else {
                    for &o in &opponents {
                        target_sets.push(Targets::one(o));
                    }
                }
                let before = out.len();
                for ante in Attribute::ALL {
                    if !self.may_ante(actor, ante) {
                        continue;
                    }
                    for &targets in &target_sets {
                        out.push(Command::CommitAspect {
                            actor,
                            aspect: ante.aspect(),
                            ante,
                            targets,
                            intent: None,
                        });
                    }
                }
                // Withdrawing is said aloud, not a face-down card: accepted always, listed only
                // when nothing else is legal (Decision 26).
                if out.len() == before {
                    out.push(Command::Withdraw { actor });
                }
            }
            Phase::CommitAction => {
                let Some(actor) = self.committing().filter(|a| self.actors[a.index()].sheet.seat == seat)
                else {
                    return;
                };
                let a = &self.actors[actor.index()];
                let Some(card) = a.aspect.value() else { return };
                let cap = self.bid_cap(actor, card.aspect);
                out.reserve(3 * (usize::from(cap) + 1) * 2);
                let damage_aspects: &[Option<Aspect>] = if a.sheet.kind == Kind::Abstract {
                    &[None, Some(Aspect::Mind), Some(Aspect::Body), Some(Aspect::Spirit)]
                } else {
                    &[None]
                };
                let any_chips = card.aspect.attributes().iter().any(|x| a.stacks[x.index()] > 0);
                for attribute in card.aspect.attributes() {
                    // The quick form of `check_action` for a bid of 0: possessed, and not at 0
                    // while another Attribute of the Aspect has chips.
                    if !a.sheet.statblock.possesses(attribute)
                        || (any_chips && a.stacks[attribute.index()] == 0)
                    {
                        continue;
                    }
                    let top = cap.min(a.stacks[attribute.index()]);
                    for bid in 0..=top {
                        for wildcard in [false, true] {
                            if wildcard && a.wildcards == 0 {
                                continue;
                            }
                            for &damage_aspect in damage_aspects {
                                if damage_aspect == Some(card.aspect) {
                                    continue;
                                }
                                out.push(Command::CommitAction {
                                    actor,
                                    attribute,
                                    bid,
                                    wildcard,
                                    open: false,
                                    damage_aspect,
                                });
                            }
                        }
                    }
                }
            }
            Phase::SpreadDamage { damage } => {
                let Some((actor, aspect, _)) = self.spreading() else { return };
                if self.actors[actor.index()].sheet.seat != seat {
                    return;
                }
                spreads(self.actors[actor.index()].aspect_values(aspect), damage, |spread| {
                    out.push(Command::SpreadDamage { actor, spread })
                });
            }
            _ => {}
        }
    }

    /// Pushes the seats the Conflict waits for.
    pub fn awaiting(&self, out: &mut Vec<SeatId>) {
        let actor = match self.phase {
            Phase::CommitAspect | Phase::CommitAction => self.committing(),
            Phase::SpreadDamage { .. } => self.spreading().map(|s| s.0),
            _ => None,
        };
        // At rest (the table runs the automatic steps to a fixed point) this is who acts next.
        if let Some(a) = actor {
            out.push(self.actors[a.index()].sheet.seat);
        }
    }

    /// The side that won, when exactly one side is left at the end.
    pub fn winner(&self) -> Option<SideId> {
        match self.ending {
            Some(Ending::OneSideLeft(side)) => side,
            _ => None,
        }
    }
}

/// Adds a Jackpot to another.
fn add(to: &mut [u16; 9], from: &[u16; 9]) {
    for (t, f) in to.iter_mut().zip(from) {
        *t = t.saturating_add(*f);
    }
}

/// Removes a damage spread from an Actor's chips (seed: Apply Damage; AV never below 0): from
/// the stack first, then from the chips bid on the card.
fn take_damage(a: &mut crate::conflict::Actor, aspect: Aspect, spread: [u16; 3]) {
    let card = a.action.value().map(|c| c.attribute);
    for (attr, &d) in aspect.attributes().iter().zip(&spread) {
        let k = attr.index();
        let from_stack = d.min(a.stacks[k]);
        a.stacks[k] -= from_stack;
        let mut rest = d - from_stack;
        if card == Some(*attr) {
            let from_card = rest.min(a.on_card);
            a.on_card -= from_card;
            rest -= from_card;
        }
        a.damage_taken += u32::from(d - rest);
    }
}
