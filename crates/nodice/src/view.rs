//! What one viewer may see of a Conflict (seed: Table Culture Rules, "double-blind
//! preserved"; §3.4 NPC Rank is hidden).
//!
//! - A face-down Aspect card, ante, Action card, bid or Wildcard is seen only by the seat
//!   that plays the Actor, until the reveal (a bid played face up is seen by all).
//! - Intent and targets are said aloud: public.
//! - PC stat blocks and chip stacks are public (the chips are on the table). The stat block,
//!   Rank and chip stacks of NPCs and abstract Actors are seen only by the GM: players see
//!   the Stakes and what the reveals and damage show.

use serde::{Deserialize, Serialize};
use table::{Face, Role, SeatId, SideId, Viewer};

use crate::actor::Kind;
use crate::conflict::{ActionCard, Actor, AspectCard, Conflict, Ending, Phase, Status};
use crate::hand::{ActorId, Showdown, Targets};
use crate::outcome::{Ended, HandOutcome, hand_outcome, who_won};
use crate::rules::Event;
use crate::trine::{Aspect, Attribute};

/// An Actor as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActorView {
    /// Its id.
    pub id: ActorId,
    /// Its name.
    pub name: String,
    /// The seat playing it.
    pub seat: String,
    /// Its side.
    pub side: SideId,
    /// PC, NPC or abstract.
    pub kind: Kind,
    /// In or out.
    pub status: Status,
    /// Its serial (stat block as built), when the viewer may see it.
    pub serial: Option<String>,
    /// Its serial with the values now (after damage), when the viewer may see it.
    #[serde(default)]
    pub serial_now: Option<String>,
    /// Its serial in words (Rank, Wildcard Rank, Build Budget, each Aspect's Trine Score and
    /// Attributes now), when the viewer may see it.
    #[serde(default)]
    pub serial_words: Option<String>,
    /// Its Rank, when the viewer may see it.
    pub rank: Option<u16>,
    /// Trine Scores (Mind, Body, Spirit; `None` inside for an absent Aspect), when visible.
    pub trine_scores: Option<[Option<u16>; 3]>,
    /// Current values (serial order; `None` inside for an absent Attribute): chips in each
    /// stack plus those bid on the card, when visible.
    pub stacks: Option<[Option<u16>; 9]>,
    /// Wildcards left, when visible.
    pub wildcards: Option<u16>,
    /// This Hand's Aspect card and ante.
    pub aspect: Face<AspectCard>,
    /// This Hand's intent.
    pub intent: Option<String>,
    /// This Hand's targets.
    pub targets: Targets,
    /// This Hand's Action card and bid.
    pub action: Face<ActionCard>,
    /// The bid, when played face up before the reveal.
    pub open_bid: Option<u16>,
    /// Chips on its Action card.
    pub on_card: u16,
    /// TD wins this Hand.
    pub trine_wins: u8,
    /// AD wins this Hand.
    pub attribute_wins: u8,
    /// The Hand whose revealed Action it may justify now, if it may ([`Conflict::may_justify`],
    /// Decision 32): a page offers the line's form only then, naming that Hand.
    #[serde(default)]
    pub may_justify: Option<u32>,
}

/// A Conflict as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConflictView {
    /// Who is looking.
    pub viewer: Viewer,
    /// The Stakes (public: the GM announces them).
    pub stakes: u16,
    /// The Stakes' name.
    pub stakes_name: String,
    /// The Hand number.
    pub hand: u32,
    /// The step.
    pub phase: Phase,
    /// Under the Gun.
    pub utg: ActorId,
    /// The pot by Attribute (its antes are face down until the reveal: only the Jackpot
    /// is in it before).
    pub pot: [u16; 9],
    /// The Jackpot by Attribute (of the cluster playing now, when the GM split the brawl).
    pub jackpot: [u16; 9],
    /// The interaction clusters the GM split the brawl into (seed Step 1; public), empty
    /// when every Actor plays every Hand.
    #[serde(default)]
    pub clusters: Vec<Targets>,
    /// The Actors.
    pub actors: Vec<ActorView>,
    /// This Hand's Showdown (after the Action reveal; public).
    pub showdown: Showdown,
    /// The next Action to resolve.
    pub next_strike: u16,
    /// Who the game waits for, in words.
    pub waiting_for: String,
    /// How it ended.
    pub ending: Option<Ending>,
    /// The damage being spread now (Step 4, Apply Damage; public), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spreading: Option<Spreading>,
    /// The revealed Hand: who won each engaged pair and why ([`crate::outcome::hand_outcome`]).
    #[serde(default)]
    pub hand_result: Option<HandOutcome>,
    /// Who won, once the Conflict is over, in this viewer's words ([`crate::outcome::who_won`]).
    #[serde(default)]
    pub who_won: Option<Ended>,
}

/// A damage spread the game waits for (Step 4, Apply Damage): who places how much damage over
/// which Attributes — what a damage-split chooser labels its three fields with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spreading {
    /// The damaged Actor.
    pub actor: ActorId,
    /// The struck Aspect.
    pub aspect: Aspect,
    /// Its three Attributes, in serial order: the order of a spread's numbers.
    pub attributes: [Attribute; 3],
    /// The damage to place (after the partial-Aspect reduction).
    pub damage: u16,
}

/// The Wildcard Rank a serial's header shows for an Actor (as [`crate::Statblock::serial_for`]).
fn header_wildcards(a: &Actor) -> u16 {
    let block = &a.sheet.statblock;
    match (a.sheet.kind, block.stated_wildcards) {
        (_, Some(stated)) => stated,
        (Kind::Pc, None) => block.wildcard_rank(),
        (Kind::Npc | Kind::Abstract, None) => a.sheet.wildcards,
    }
}

fn owns(viewer: Viewer, actor: &Actor) -> bool {
    matches!(viewer, Viewer::Seat(s) if s == actor.sheet.seat)
}

/// Whether `viewer` may see the stat block, Rank and stacks of `actor`.
pub fn sees_sheet(state: &Conflict, viewer: Viewer, actor: &Actor) -> bool {
    !actor.sheet.kind.is_gm_secret() || owns(viewer, actor) || is_gm(state, viewer)
}

fn is_gm(state: &Conflict, viewer: Viewer) -> bool {
    matches!(viewer, Viewer::Seat(s) if state.seats.get(s).is_ok_and(|x| x.role == Role::Gm))
}

impl Conflict {
    /// What `viewer` may see.
    pub fn view(&self, viewer: Viewer) -> ConflictView {
        let actors = self
            .actors
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let own = owns(viewer, a);
                let sheet = sees_sheet(self, viewer, a);
                let block = &a.sheet.statblock;
                let serial = block.serial_for(a.sheet.kind, a.sheet.wildcards);
                ActorView {
                    id: ActorId(i as u8),
                    name: a.sheet.name.clone(),
                    seat: self.seat_name(a.sheet.seat).to_owned(),
                    side: a.sheet.side,
                    kind: a.sheet.kind,
                    status: a.status,
                    serial_now: sheet.then(|| {
                        block
                            .serial_now(header_wildcards(a), crate::trine::Attribute::ALL.map(|x| a.value(x)))
                    }),
                    serial_words: sheet.then(|| {
                        block.serial_words(
                            header_wildcards(a),
                            crate::trine::Attribute::ALL.map(|x| a.value(x)),
                        )
                    }),
                    serial: sheet.then_some(serial),
                    rank: sheet.then(|| block.rank()),
                    trine_scores: sheet.then(|| crate::trine::Aspect::ALL.map(|x| block.trine_score(x))),
                    stacks: sheet.then(|| crate::trine::Attribute::ALL.map(|x| a.value(x))),
                    wildcards: sheet.then_some(a.wildcards),
                    aspect: a.aspect.face(own),
                    intent: a.intent.clone(),
                    targets: a.targets,
                    action: a.action.face(own),
                    open_bid: if a.open_bid { a.action.value().map(|c| c.bid) } else { None },
                    on_card: a.on_card,
                    trine_wins: a.trine_wins,
                    attribute_wins: a.attribute_wins,
                    may_justify: self.may_justify(ActorId(i as u8)).then_some(a.revealed_in),
                }
            })
            .collect();
        ConflictView {
            viewer,
            stakes: self.stakes.value(),
            stakes_name: self.stakes.name().to_owned(),
            hand: self.hand,
            phase: self.phase,
            utg: self.utg,
            pot: self.pot,
            jackpot: self.jackpot,
            clusters: self.clusters.iter().map(|c| c.actors).collect(),
            actors,
            showdown: self.showdown.clone(),
            next_strike: self.next_strike,
            waiting_for: self.waiting_for(),
            ending: self.ending,
            spreading: self.spreading().map(|(actor, aspect, damage)| Spreading {
                actor,
                aspect,
                attributes: aspect.attributes(),
                damage,
            }),
            hand_result: hand_outcome(self),
            who_won: who_won(self, viewer),
        }
    }

    /// How `event` looks to `viewer`: face-down cards of other seats' Actors are left out.
    pub fn redact(&self, event: &Event, viewer: Viewer) -> Option<Event> {
        let hidden = |actor: ActorId| self.actor(actor).is_none_or(|a| !owns(viewer, a));
        Some(match event {
            Event::AspectCommitted { actor, targets, intent, .. } if hidden(*actor) => {
                Event::AspectCommitted {
                    actor: *actor,
                    card: None,
                    targets: *targets,
                    intent: intent.clone(),
                }
            }
            Event::ActionCommitted { actor, open_bid, .. } if hidden(*actor) => {
                Event::ActionCommitted { actor: *actor, card: None, open_bid: *open_bid }
            }
            other => other.clone(),
        })
    }

    /// The seat playing `actor`.
    pub fn seat_of(&self, actor: ActorId) -> Option<SeatId> {
        self.actor(actor).map(|a| a.sheet.seat)
    }
}
