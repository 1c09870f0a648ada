//! What a seat is asked now ([`prompt`]) and the documented default when a decision is taken
//! for it ([`forced`], Decision 34 in `docs/nodice.md`).
//!
//! The prompt's choices are exactly the legal commands ([`Conflict::legal_commands`]); the
//! Commit steps are face down (`private`), a damage spread is not. Table talk, face-up bids,
//! `withdraw` while an ante is possible, justification lines and the GM's calls (`engage`,
//! `end_conflict`, `adjust`) are accepted any time they are allowed but are not answers to
//! the question: a shell offers them as commands of their own.

use table::{Choice, Prompt, SeatId};

use crate::conflict::{Conflict, Phase};
use crate::damage::even_spread;
use crate::hand::ActorId;
use crate::narrate::spread_text;
use crate::rules::Command;

/// The Actor the Conflict waits for, when `seat` plays it.
fn asked(state: &Conflict, seat: SeatId) -> Option<ActorId> {
    let actor = match state.phase {
        Phase::CommitAspect | Phase::CommitAction => state.committing(),
        Phase::SpreadDamage { .. } => state.spreading().map(|s| s.0),
        _ => None,
    }?;
    (state.actor(actor)?.sheet.seat == seat).then_some(actor)
}

/// The question `actor` is asked, in the book's words.
fn question(state: &Conflict, actor: ActorId) -> String {
    let a = &state.actors[actor.index()];
    let n = &a.sheet.name;
    match state.phase {
        Phase::CommitAspect => {
            let ante = state.ante_amount(actor);
            let chips = if ante == 1 { "chip" } else { "chips" };
            format!(
                "{n}: ante {ante} {chips} from one Attribute — it fixes your face-down Aspect card — and name whom you target"
            )
        }
        Phase::CommitAction => match a.aspect.value() {
            Some(card) => format!(
                "{n}: play an Action card of {} ({}) and bid up to {} (your Trine Score; no more than the stack), face down",
                card.aspect,
                card.aspect.attributes().map(|x| x.abbrev()).join(" "),
                state.bid_cap(actor, card.aspect)
            ),
            None => format!("{n}: play an Action card and bid"),
        },
        Phase::SpreadDamage { damage } => match state.spreading() {
            Some((_, aspect, _)) => format!(
                "{n}: spread {damage} {aspect} damage over {}",
                aspect.attributes().map(|x| x.abbrev()).join(" ")
            ),
            None => format!("{n}: spread {damage} damage"),
        },
        _ => String::new(),
    }
}

/// A person's label for a legal command.
pub fn label(state: &Conflict, command: &Command) -> String {
    let name = |a: ActorId| state.actor(a).map_or_else(|| a.to_string(), |x| x.sheet.name.clone());
    match command {
        Command::CommitAspect { aspect, ante, targets, .. } => format!(
            "{aspect}, ante from {} → {}",
            ante.abbrev(),
            targets.iter().map(name).collect::<Vec<_>>().join(", ")
        ),
        Command::Withdraw { .. } => "withdraw from the Conflict (will not ante)".to_owned(),
        Command::CommitAction { attribute, bid, wildcard, open, damage_aspect, .. } => {
            let mut l = format!("{} bid {bid}", attribute.abbrev());
            if *wildcard {
                l.push_str(" + Wildcard");
            }
            if *open {
                l.push_str(" (bid face up)");
            }
            if let Some(d) = damage_aspect {
                l.push_str(&format!(", damage to {d}"));
            }
            l
        }
        Command::SpreadDamage { actor, spread } => match state.spreading() {
            Some((_, aspect, _)) => spread_text(aspect, *spread),
            None => format!("{} spreads {spread:?}", name(*actor)),
        },
        Command::EndConflict => "end the Conflict (the fiction resolved it)".to_owned(),
        Command::Justify { line, .. } => format!("justify: \"{line}\""),
        Command::Engage { clusters } if clusters.is_empty() => "engage every Actor".to_owned(),
        Command::Engage { clusters } => format!(
            "engage {}",
            clusters
                .iter()
                .map(|c| c.iter().map(name).collect::<Vec<_>>().join(", "))
                .collect::<Vec<_>>()
                .join(" | ")
        ),
        Command::Adjust { actor, change, reason } => {
            format!("adjust {}: {} ({reason})", name(*actor), change)
        }
    }
}

/// What `seat` is asked now; `None` when the Conflict does not wait for it. The choices are
/// the legal commands, labelled; `private` exactly when they are face-down cards (the Commit
/// steps).
pub fn prompt(state: &Conflict, seat: SeatId) -> Option<Prompt<Command>> {
    let actor = asked(state, seat)?;
    let mut legal = Vec::new();
    state.legal_commands(seat, &mut legal);
    if legal.is_empty() {
        return None;
    }
    let private =
        legal.iter().any(|c| matches!(c, Command::CommitAspect { .. } | Command::CommitAction { .. }));
    let choices = legal
        .into_iter()
        .map(|command| Choice {
            label: label(state, &command),
            private: matches!(command, Command::CommitAspect { .. } | Command::CommitAction { .. }),
            command,
        })
        .collect();
    Some(Prompt { seat, question: question(state, actor), private, choices })
}

/// The documented default for `seat`'s decision (Decision 34), never withdrawing:
/// - Commit Aspect: ante from the Attribute with the most chips (the first in serial order on
///   a tie), which fixes the Aspect card, against one target: the first opponent in table
///   order; no intent.
/// - Commit Action: the usable Attribute of the played Aspect with the most chips (first in
///   serial order on a tie), the largest legal bid, no Wildcard, face down, damage to the
///   played Aspect.
/// - Spread damage: the even spread ([`even_spread`]).
///
/// `None` when the Conflict does not wait for `seat`, or when withdrawing is all it could do.
pub fn forced(state: &Conflict, seat: SeatId) -> Option<Command> {
    let actor = asked(state, seat)?;
    let mut legal = Vec::new();
    state.legal_commands(seat, &mut legal);
    let a = &state.actors[actor.index()];
    let chips = |x: crate::Attribute| a.stacks[x.index()];
    match state.phase {
        Phase::CommitAspect => legal
            .into_iter()
            .filter(|c| matches!(c, Command::CommitAspect { targets, .. } if targets.len() == 1))
            .min_by_key(|c| match c {
                Command::CommitAspect { ante, targets, .. } => (
                    std::cmp::Reverse(chips(*ante)),
                    ante.index(),
                    targets.iter().next().map_or(usize::MAX, ActorId::index),
                ),
                _ => (std::cmp::Reverse(0), usize::MAX, usize::MAX),
            }),
        Phase::CommitAction => legal
            .into_iter()
            .filter(|c| {
                matches!(c, Command::CommitAction { wildcard: false, open: false, damage_aspect: None, .. })
            })
            .min_by_key(|c| match c {
                Command::CommitAction { attribute, bid, .. } => {
                    (std::cmp::Reverse(chips(*attribute)), attribute.index(), std::cmp::Reverse(*bid))
                }
                _ => (std::cmp::Reverse(0), usize::MAX, std::cmp::Reverse(0)),
            }),
        Phase::SpreadDamage { damage } => {
            let (_, aspect, _) = state.spreading()?;
            let even = Command::SpreadDamage { actor, spread: even_spread(a.aspect_values(aspect), damage) };
            if legal.contains(&even) { Some(even) } else { legal.into_iter().next() }
        }
        _ => None,
    }
}
