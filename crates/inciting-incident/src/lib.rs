//! Inciting Incident combat and non-violent conflict (seed 003; rules reference
//! `shared/rules/inciting-incident.md`): a pure rule system on the `table` core.
//!
//! Start with [`Scene::new`] from a [`Setup`] (a scene file), then drive it through a
//! [`table::Table<IncitingIncident>`]: every character declares face down, the sides resolve
//! in initiative order, and every die is an event.
//!
//! Where each rule lives (sections of the rules reference):
//! - §3 dice, Talent and Ability Rolls, Advantage: [`dice`]
//! - §4 sheets, defences, minion stat blocks: [`character`]
//! - §5.1, §7 attack arithmetic: [`attack`]
//! - §5.2 the map: [`map`]
//! - §6 Duels and Flow of Battle: [`duel`]
//! - §5, §8–§10 rounds, initiative, commands and events: [`scene`] and [`rules`]
//! - §5, §7.3 what a character may do, reach of attacks: [`actions`]
//! - §5 steps 6–8, §7–§10 resolving an action (moves, attacks, minions, triggers, wounds,
//!   Strikes): `resolve`
//! - §9 rest scenes and Death Hits after the scene: [`wounds`]
//! - who won the scene, in the players' words, with the Flow and the summary: [`outcome`]
//! - hidden information: [`view`]
//! - the log in words: [`narrate`]; what a seat is asked and its default: `prompt`
//! - checking a saved log with GM adjustments: [`replay`]
//! - the players' quick reference, with a legend of every symbol: [`reference`]
//!
//! **Decisions** beyond the rules reference are in `docs/inciting-incident.md` and on the
//! items that implement them.

pub mod actions;
pub mod attack;
pub mod calculator;
pub mod character;
pub mod dice;
pub mod duel;
pub mod map;
pub mod narrate;
pub mod outcome;
mod prompt;
pub mod reference;
pub mod replay;
mod resolve;
pub mod rules;
pub mod scene;
pub mod view;
pub mod wounds;

pub use character::{Abilities, Ability, Defence, DefenceKind, Defences, MinionStats, Sheet, Talent};
pub use rules::{Action, Adjustment, Command, Event, Note, Path, RuleError, Target};
pub use scene::{Options, Phase, Scene, SceneKind, Setup, SetupError, Status};
pub use view::SceneView;

use table::{Prompt, Ruleset, SeatId, Viewer};

/// The Inciting Incident ruleset, for [`table::Table`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IncitingIncident;

impl Ruleset for IncitingIncident {
    const NAME: &'static str = "inciting-incident";
    const VERSION: u32 = 1;

    type Setup = Setup;
    type SetupError = SetupError;
    type State = Scene;
    type Command = Command;
    type Event = Event;
    type View = SceneView;
    type Error = RuleError;

    fn setup(setup: &Setup) -> Result<Scene, SetupError> {
        Scene::new(setup.clone())
    }

    fn seats(state: &Scene) -> &table::Seats {
        &state.seats
    }

    fn decide(
        state: &Scene,
        seat: SeatId,
        command: &Command,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        state.decide(seat, command, events)
    }

    fn apply(state: &mut Scene, event: &Event) {
        state.apply(event)
    }

    fn automatic(state: &Scene) -> Option<Event> {
        state.automatic()
    }

    fn view(state: &Scene, viewer: Viewer) -> SceneView {
        state.view(viewer)
    }

    fn redact(state: &Scene, event: &Event, viewer: Viewer) -> Event {
        state.redact(event, viewer).unwrap_or_else(|| event.clone()) // never None: blanks, never drops
    }

    fn narrate(state: &Scene, event: &Event, _viewer: Viewer) -> Option<String> {
        // The event is already redacted for the viewer: a face-down declaration reads
        // "has declared", a face-up one names the action.
        narrate::event(state, event)
    }

    fn legal_commands(state: &Scene, seat: SeatId, out: &mut Vec<Command>) {
        state.legal_commands(seat, out)
    }

    fn prompt(state: &Scene, seat: SeatId) -> Option<Prompt<Command>> {
        state.prompt(seat)
    }

    fn quick_reference() -> String {
        reference::quick_reference()
    }

    fn forced(state: &Scene, seat: SeatId) -> Option<Command> {
        state.forced(seat)
    }

    fn is_gm_ruling(command: &Command) -> bool {
        command.is_gm_ruling()
    }

    /// How far the scene's [`Draws`](table::Draws) (its dice and initiative lots) has been drawn.
    fn draw_position(state: &Scene) -> u64 {
        state.draws.position()
    }

    fn draws_mut(state: &mut Scene) -> Option<&mut table::Draws> {
        Some(&mut state.draws)
    }

    fn awaiting(state: &Scene, out: &mut Vec<SeatId>) {
        state.awaiting(out)
    }

    fn is_over(state: &Scene) -> bool {
        state.is_over()
    }
}
