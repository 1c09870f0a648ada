//! `facedown`: the command-line shell over the facedown engines. A thin layer: it reads files
//! and keyboards, prints text or JSON, and leaves every rule to the ruleset crates.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod analyze;
mod campaign_cli;
mod ii_roll;
mod input;
mod it_resolve;
mod join;
mod nd;
mod nd_resolve;
mod play;
mod print;
mod rules_cmd;
mod serve;
mod serve_host;
mod tables_cli;
mod verify;

/// mimalloc instead of the system allocator: the server allocates and frees a few small strings
/// and buffers per frame, and under load glibc's malloc and free took about a quarter of its
/// CPU (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Engine and toolkit for tabletop RPG conflicts decided by simultaneous hidden choice.
#[derive(Parser)]
#[command(name = "facedown", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Iron Triangle: diceless conflicts (Defend/Grapple/Attack, five elements, stances).
    #[command(name = "iron-triangle", visible_alias = "it")]
    IronTriangle {
        #[command(subcommand)]
        command: IronTriangleCommand,
    },
    /// An Iron Triangle campaign kept in a database: characters, problems, countdowns,
    /// conflicts, rests and level-ups, session after session.
    Campaign(campaign_cli::Args),
    /// No Dice: Trine conflicts (ante, face-down Aspect and Action cards, bids, Dominance).
    #[command(name = "nodice", visible_alias = "nd")]
    Nodice {
        #[command(subcommand)]
        command: nd::NodiceCommand,
    },
    /// Inciting Incident: combat and non-violent conflict (Flow of Battle, Crisis, Regions).
    #[command(name = "inciting-incident", visible_alias = "ii")]
    IncitingIncident {
        #[command(subcommand)]
        command: IncitingIncidentCommand,
    },
    /// Equilibria and balance reports: matrix games, Iron Triangle turns, whole conflicts.
    Analyze {
        #[command(subcommand)]
        command: analyze::AnalyzeCommand,
    },
    /// Host remote tables: each seat plays from its own device and sees only what it may.
    Serve(serve::Args),
    /// Play one seat of a remote table (or watch it) in the terminal, from its link.
    Join(join::Args),
    /// Check a table's verifiable log: the hash chain, every commitment, every draw; with
    /// --replay, the rules replayed from a finished game.
    Verify(verify::Args),
    /// The tables a server keeps: list them, export one, import one into another store.
    Tables(tables_cli::Args),
    /// Print-ready cards, character sheets and reference cards, as PDF or SVG.
    Print(print::Args),
}

#[derive(Subcommand)]
enum IncitingIncidentCommand {
    /// Play a scene in the terminal: hidden declarations, bots, scripts, save and resume.
    Play(play::inciting_incident::Args),
    /// Dice calculator for table play: Talent Rolls, Decisive Attacks, Ability Rolls, Rest Scenes.
    Roll(ii_roll::Args),
    /// Quick reference: a round's steps and a legend of every symbol the log prints.
    Rules(rules_cmd::Args),
}

#[derive(Subcommand)]
enum IronTriangleCommand {
    /// Referee calculator: resolve one turn played with real cards.
    Resolve(it_resolve::Args),
    /// Play a whole conflict in the terminal: hot-seat, bots, scripts, save and resume.
    Play(play::iron_triangle::Args),
    /// Quick reference: a turn's steps, the moves and a legend of every symbol the log prints.
    Rules(rules_cmd::Args),
}

/// Restores the default action of SIGPIPE, which Rust programs ignore, so that output cut
/// short by a closed pipe (`facedown … | head`) ends the program quietly, as with any other
/// command-line tool, instead of failing on the next write.
#[cfg(unix)]
fn quiet_on_closed_pipe() {
    // SAFETY: called first thing in `main`, before any other thread exists; setting a signal's
    // disposition to its default has no other effect on this program.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn quiet_on_closed_pipe() {}

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::IronTriangle { command } => match command {
            IronTriangleCommand::Resolve(args) => it_resolve::run(args),
            IronTriangleCommand::Play(args) => play::iron_triangle::run(args),
            IronTriangleCommand::Rules(args) => rules_cmd::run::<iron_triangle::IronTriangle>(args),
        },
        Command::Campaign(args) => campaign_cli::run(args),
        Command::Nodice { command } => command.run(),
        Command::IncitingIncident { command } => match command {
            IncitingIncidentCommand::Play(args) => play::inciting_incident::run(args),
            IncitingIncidentCommand::Roll(args) => ii_roll::run(args),
            IncitingIncidentCommand::Rules(args) => {
                rules_cmd::run::<inciting_incident::IncitingIncident>(args)
            }
        },
        Command::Analyze { command } => analyze::run(command),
        Command::Serve(args) => serve::run(args),
        Command::Join(args) => join::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Tables(args) => tables_cli::run(args),
        Command::Print(args) => print::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", input::clean_error(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod help_words {
    use clap::CommandFactory;

    /// Every help text of `cmd` and its subcommands, with the command's path.
    fn texts(cmd: &clap::Command, path: &str, out: &mut Vec<(String, String)>) {
        let here = format!("{path} {}", cmd.get_name());
        for t in [cmd.get_about(), cmd.get_long_about()].into_iter().flatten() {
            out.push((here.clone(), t.to_string()));
        }
        for a in cmd.get_arguments() {
            for t in [a.get_help(), a.get_long_help()].into_iter().flatten() {
                out.push((format!("{here} --{}", a.get_id()), t.to_string()));
            }
        }
        for sub in cmd.get_subcommands() {
            texts(sub, &here, out);
        }
    }

    /// Words a player knows (issue 34): `--help` is read by players and GMs who do not have the
    /// rules reference, so no help text cites its sections.
    #[test]
    fn no_help_text_cites_a_section_of_the_rules_reference() {
        let mut all = Vec::new();
        texts(&super::Cli::command(), "", &mut all);
        assert!(all.len() > 50, "the walk reads the help texts: {}", all.len());
        let cited: Vec<_> = all.iter().filter(|(_, t)| t.contains('§')).collect();
        assert!(cited.is_empty(), "{cited:#?}");
    }
}
