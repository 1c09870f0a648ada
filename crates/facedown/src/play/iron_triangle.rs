//! `facedown iron-triangle play`: the per-system part of the play loop for Iron Triangle — the
//! conflict file (with the built-in duel), the bot kinds, the names a script may use, and the
//! views in words.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use iron_triangle::view::{ConflictView, PhaseView};
use iron_triangle::{Conflict, FighterId, IronTriangle, Play};
use serde_json::Value;
use session::Session;
use table::{Ruleset, SeatId, Viewer};

use super::{Common, Hook, Limits, Start, System, it_render, it_setup};

/// Play an Iron Triangle conflict: hot-seat at one keyboard, against bots, or from a script.
#[derive(clap::Args, Default)]
#[command(after_help = "\
Seats are people at this keyboard unless --bot or --script says otherwise. Each seat is shown \
its question and numbered choices: type a number or the choice's words. Face-down choices \
(stance, move, special) are typed without echo. A decision with a single choice is taken \
automatically. At any prompt: `?` shows the quick reference; a command may be typed as JSON \
(the GM's {\"adjust_energy\": …}); the GM may type `undo`; `back` takes back your face-down \
choice. Bot kinds: random, greedy, equilibrium (the solved mixed strategies of the whole 1v1 \
conflict, or of one turn where that is too large). See docs/play.md.

Exit status: 0 when the conflict ends (or a --save game pauses); 2 on a bad file, flag or \
rejected script command.")]
pub struct Args {
    /// The conflict file (.toml or .json): stakes, seats and characters. Without it, the
    /// built-in duel (examples/iron-triangle/duel.toml: Ada against a ninja).
    #[arg(value_name = "CONFLICT_FILE", conflicts_with = "resume")]
    pub conflict: Option<PathBuf>,

    /// The flags of every play command.
    #[command(flatten)]
    pub common: Common,
}

impl Args {
    /// The flags the campaign's `conflict play` passes on.
    pub fn for_campaign(bots: Vec<String>, seed: u64, script: Option<PathBuf>, json: bool) -> Args {
        Args { conflict: None, common: Common { bots, seed, script, json, ..Common::default() } }
    }
}

/// Runs `facedown iron-triangle play`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let start = match &args.common.resume {
        Some(p) => Start::Resume(p.clone()),
        None => {
            let (name, setup) = it_setup::read_setup(args.conflict.as_deref())?;
            Conflict::new(setup.clone()).with_context(|| format!("{name}: cannot start the conflict"))?;
            Start::New { setup, first: Vec::new(), preface: Vec::new() }
        }
    };
    super::run::<IronTriangle>(&args.common, start, Limits::default(), None)
}

/// Plays a campaign conflict kept in the campaign's store: `keep` stores every accepted
/// command, and a pause needs no save file.
pub(crate) fn play(
    args: &Args,
    session: Session<IronTriangle>,
    resumed: bool,
    keep: Option<(Hook<IronTriangle>, String)>,
) -> anyhow::Result<ExitCode> {
    super::run::<IronTriangle>(
        &args.common,
        Start::Session(Box::new(session), resumed),
        Limits::default(),
        keep,
    )
}

/// The member of the turn's pair (or of the aftermath's) that `seat_name` controls.
fn seat_member(view: &ConflictView, seat_name: &str) -> Option<FighterId> {
    let pair = match &view.phase {
        PhaseView::Turn { active, opponent, .. } => vec![Some(*active), *opponent],
        PhaseView::Aftermath(a) => vec![Some(a.pair[0]), Some(a.pair[1])],
        _ => vec![],
    };
    pair.into_iter()
        .flatten()
        .find(|id| view.fighters.get(usize::from(id.0)).map(|f| f.seat.as_str()) == Some(seat_name))
}

/// Replaces character names by their ids (keys `fighter`, `opponent`, `to`, `target`) and the
/// seat's move names by their symbols (key `play`).
fn resolve(
    value: &mut Value,
    conflict: &Conflict,
    view: &ConflictView,
    seat_name: &str,
) -> anyhow::Result<()> {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match (key.as_str(), &*v) {
                    ("fighter" | "opponent" | "to" | "target", Value::String(name)) => {
                        let id = conflict
                            .find(name)
                            .with_context(|| format!("there is no character named {name:?}"))?;
                        *v = Value::from(id.0);
                    }
                    ("play", Value::String(text)) if text.parse::<Play>().is_err() => {
                        let card = seat_member(view, seat_name)
                            .and_then(|id| conflict.fighter(id).character.find_move(text))
                            .with_context(|| {
                                format!("{text:?} is not a move of the character {seat_name} plays now")
                            })?;
                        *v = Value::from(card.to_string());
                    }
                    _ => resolve(v, conflict, view, seat_name)?,
                }
            }
        }
        Value::Array(items) => {
            for v in items {
                resolve(v, conflict, view, seat_name)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn text(f: impl FnOnce(&mut Vec<u8>) -> anyhow::Result<()>) -> String {
    let mut out = Vec::new();
    let _ = f(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

impl System for IronTriangle {
    const TITLE: &'static str = "Iron Triangle";
    const GAME: &'static str = "conflict";
    fn resolve_names(state: &Conflict, seat: SeatId, command: &mut Value) -> anyhow::Result<()> {
        let view = state.view(Viewer::Seat(seat));
        resolve(command, state, &view, state.seat_name(seat))
    }

    fn intro(state: &Conflict) -> String {
        text(|o| it_render::intro(&IronTriangle::view(state, Viewer::Spectator), o))
    }

    fn seat_view(state: &Conflict, seat: SeatId) -> String {
        text(|o| it_render::seat_view(&IronTriangle::view(state, Viewer::Seat(seat)), o))
    }

    fn summary(state: &Conflict, viewer: Viewer) -> String {
        text(|o| it_render::summary(&IronTriangle::view(state, viewer), o))
    }
}
#[cfg(test)]
mod tests {
    use iron_triangle::special::Special;
    use iron_triangle::windows::SpecialCard;
    use iron_triangle::{Action, Command, Energy, FighterId, Play, Stance};
    use serde_json::json;

    /// The serde form of commands, as documented in docs/iron-triangle-play.md.
    #[test]
    fn command_serde_form_is_as_documented() {
        let cases = [
            (Command::TakeFirstTurn { fighter: FighterId(1) }, json!({"take_first_turn": {"fighter": 1}})),
            (Command::ChooseOpponent { opponent: FighterId(2) }, json!({"choose_opponent": {"opponent": 2}})),
            (Command::EndCombo, json!("end_combo")),
            (
                Command::CommitStance { stance: Stance::new(Action::Grapple, 2) },
                json!({"commit_stance": {"stance": {"type": "grapple", "amount": 2}}}),
            ),
            (
                Command::CommitMove { play: Play::Move("▨☷".parse().unwrap()) },
                json!({"commit_move": {"play": "▨☷"}}),
            ),
            (Command::CommitMove { play: Play::Surrender }, json!({"commit_move": {"play": "surrender"}})),
            (
                Command::SpreadLoss { spread: Energy::new(1, 0, 2) },
                json!({"spread_loss": {"spread": {"defend": 1, "grapple": 0, "attack": 2}}}),
            ),
            (Command::DecideMercy { kill: false }, json!({"decide_mercy": {"kill": false}})),
            (Command::PassTurn { to: FighterId(0) }, json!({"pass_turn": {"to": 0}})),
            (
                Command::RecordOutcome { verdict: iron_triangle::Verdict::Draw },
                json!({"record_outcome": {"verdict": "draw"}}),
            ),
            (
                Command::PlaySpecial { fighter: FighterId(0), card: None },
                json!({"play_special": {"fighter": 0, "card": null}}),
            ),
            (
                Command::PlaySpecial {
                    fighter: FighterId(0),
                    card: Some(SpecialCard {
                        special: Special::ThereCanBeOnlyOne,
                        target: Some(FighterId(1)),
                        copy: None,
                    }),
                },
                json!({"play_special": {"fighter": 0, "card": {"special": "there_can_be_only_one", "target": 1}}}),
            ),
            (
                Command::PlaySpecial {
                    fighter: FighterId(1),
                    card: Some(SpecialCard {
                        special: Special::IAlreadyKnow(Action::Attack),
                        target: None,
                        copy: None,
                    }),
                },
                json!({"play_special": {"fighter": 1, "card": {"special": "i_already_know_attack"}}}),
            ),
            (
                Command::AdjustEnergy {
                    fighter: FighterId(0),
                    energy: Energy::new(3, 2, 4),
                    reason: iron_triangle::rules::Note::from("misread the spread").unwrap(),
                },
                json!({"adjust_energy": {"fighter": 0, "energy": {"defend": 3, "grapple": 2, "attack": 4}, "reason": "misread the spread"}}),
            ),
        ];
        // A pass may leave the card out.
        assert_eq!(
            serde_json::from_value::<Command>(json!({"play_special": {"fighter": 2}})).unwrap(),
            Command::PlaySpecial { fighter: FighterId(2), card: None }
        );
        // Specials may be named in words, in either edition.
        assert_eq!(
            serde_json::from_value::<Command>(
                json!({"play_special": {"fighter": 0, "card": {"special": "Insight"}}})
            )
            .unwrap(),
            Command::PlaySpecial {
                fighter: FighterId(0),
                card: Some(SpecialCard { special: Special::Scouter, target: None, copy: None })
            }
        );
        for (command, form) in &cases {
            assert_eq!(&serde_json::to_value(command).unwrap(), form);
            assert_eq!(&serde_json::from_value::<Command>(form.clone()).unwrap(), command);
        }
    }
}
