//! The bot kinds each rule system offers a shell, by name: the one mapping from a kind's name
//! to its bot, used by the CLI's `--bot SEAT=KIND` and the server's bot seats alike.
//!
//! - Iron Triangle: `random`, `greedy` ([`crate::bots::GreedyBot`]), `equilibrium`
//!   ([`crate::equilibrium::EquilibriumBot`]).
//! - No Dice: `random` (never withdraws while it can ante), `greedy`
//!   ([`nodice::bot::GreedyBot`] on the seat's own view).
//! - Inciting Incident: `random`.
//!
//! A bot chooses among the seat's *choices of play* ([`BotKinds::is_play`]): a GM's standing
//! ruling that the rules offer at every moment (ending an Inciting Incident scene) is never
//! a bot's to take.

use inciting_incident::IncitingIncident;
use iron_triangle::IronTriangle;
use nodice::NoDice;
use nodice::bot::GreedyBot as NdGreedy;
use table::{Bot, Decision, Ruleset};

use crate::bots::{GreedyBot, RandomBot};
use crate::equilibrium::EquilibriumBot;

/// A rule system's bot kinds.
pub trait BotKinds: Ruleset + Sized {
    /// The kinds, the default first.
    const BOT_KINDS: &'static [&'static str];

    /// A bot of `kind` drawing from `seed`; `None` when the system has no such kind.
    fn bot(kind: &str, seed: u64) -> Option<Box<dyn Bot<Self> + Send>>;

    /// Whether a legal command is a choice of play (a bot may take it, and a decision with a
    /// single such choice is taken by itself); a GM's standing ruling is not.
    fn is_play(command: &Self::Command) -> bool {
        let _ = command;
        true
    }
}

impl BotKinds for IronTriangle {
    const BOT_KINDS: &'static [&'static str] = &["random", "greedy", "equilibrium"];

    fn bot(kind: &str, seed: u64) -> Option<Box<dyn Bot<Self> + Send>> {
        match kind {
            "random" => Some(Box::new(RandomBot::new(seed))),
            "greedy" => Some(Box::new(GreedyBot::new())),
            "equilibrium" => Some(Box::new(EquilibriumBot::new(seed))),
            _ => None,
        }
    }
}

/// No Dice's `random`: a random bot that does not withdraw while it can ante.
struct SteadyBot(RandomBot);

impl Bot<NoDice> for SteadyBot {
    fn choose(&mut self, decision: &Decision<'_, NoDice>) -> usize {
        let pick = self.0.choose(decision);
        let legal = decision.legal;
        if matches!(legal.get(pick), Some(nodice::Command::Withdraw { .. })) && legal.len() > 1 {
            (pick + 1) % legal.len()
        } else {
            pick
        }
    }
}

/// No Dice's `greedy`: [`nodice::bot::GreedyBot`] on the seat's own view.
struct NdGreedyBot(NdGreedy);

impl Bot<NoDice> for NdGreedyBot {
    fn choose(&mut self, decision: &Decision<'_, NoDice>) -> usize {
        self.0.choose(&decision.view(), decision.legal)
    }
}

impl BotKinds for NoDice {
    const BOT_KINDS: &'static [&'static str] = &["random", "greedy"];

    fn bot(kind: &str, seed: u64) -> Option<Box<dyn Bot<Self> + Send>> {
        match kind {
            "random" => Some(Box::new(SteadyBot(RandomBot::new(seed)))),
            "greedy" => Some(Box::new(NdGreedyBot(NdGreedy::new(seed)))),
            _ => None,
        }
    }
}

impl BotKinds for IncitingIncident {
    const BOT_KINDS: &'static [&'static str] = &["random"];

    fn bot(kind: &str, seed: u64) -> Option<Box<dyn Bot<Self> + Send>> {
        match kind {
            "random" => Some(Box::new(RandomBot::new(seed))),
            _ => None,
        }
    }

    fn is_play(command: &inciting_incident::Command) -> bool {
        !command.is_gm_ruling()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_kind_builds<R: BotKinds>() {
        for kind in R::BOT_KINDS {
            assert!(R::bot(kind, 7).is_some(), "{} kind {kind}", R::NAME);
        }
        assert!(R::bot("psychic", 7).is_none());
    }

    #[test]
    fn every_named_kind_builds_and_no_other() {
        every_kind_builds::<IronTriangle>();
        every_kind_builds::<NoDice>();
        every_kind_builds::<IncitingIncident>();
    }
}
