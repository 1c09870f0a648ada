//! `facedown nodice`: the No Dice subcommands.

use std::process::ExitCode;

use crate::nd_resolve;
use crate::play::nodice as nd_play;

/// The No Dice subcommands.
#[derive(clap::Subcommand)]
pub enum NodiceCommand {
    /// Referee calculator: resolve one Hand played with real cards.
    Resolve(nd_resolve::Args),
    /// Play a whole Conflict in the terminal: hot-seat, bots, scripts, save and resume.
    Play(nd_play::Args),
    /// Quick reference: a Hand's steps, Aspects and Attributes, and a legend of every symbol.
    Rules(crate::rules_cmd::Args),
}

impl NodiceCommand {
    /// Runs the subcommand.
    pub fn run(self) -> anyhow::Result<ExitCode> {
        match self {
            NodiceCommand::Resolve(args) => nd_resolve::run(args),
            NodiceCommand::Play(args) => nd_play::run(args),
            NodiceCommand::Rules(args) => crate::rules_cmd::run::<nodice::NoDice>(args),
        }
    }
}
