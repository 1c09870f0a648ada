//! What each viewer may see (hidden declarations stay face down until the reveal).

use serde::Serialize;
use table::{Face, Role, Viewer};

use crate::character::Sheet;
use crate::map::RegionEffect;
use crate::outcome::{Ended, who_won};
use crate::rules::{Action, Event};
use crate::scene::{Outcome, Pending, Phase, Scene, Status};

/// A character as a viewer sees it.
#[derive(Debug, Clone, Serialize)]
pub struct FighterView {
    /// Its number.
    pub id: u8,
    /// Its name.
    pub name: String,
    /// Its side's name.
    pub side: String,
    /// Its faction's name, in a scene with three or more factions (§6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub faction: Option<String>,
    /// The seat that plays it.
    pub seat: String,
    /// Where it is.
    pub region: Option<String>,
    /// Hits taken.
    pub hits: u8,
    /// Max Hits Taken.
    pub max_hits: u8,
    /// Death Hits.
    pub death_hits: u8,
    /// Fighting or Incapacitated.
    pub status: Status,
    /// Failed the keep-fighting roll.
    pub doomed: bool,
    /// This round's declaration as the viewer sees it.
    pub declared: Face<Action>,
    /// Whether it has acted this round.
    pub acted: bool,
    /// Its character sheet (§4.4: Abilities, Talents, defences, Skills), for the seat that
    /// plays it and the GM; `None` for anyone else. The rules are silent on who may read a
    /// sheet; facedown shows it to its player and the GM (docs/inciting-incident.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sheet: Option<std::sync::Arc<Sheet>>,
}

/// A minion group as anyone sees it.
#[derive(Debug, Clone, Serialize)]
pub struct MinionView {
    /// Its number.
    pub id: u8,
    /// Its name.
    pub name: String,
    /// Its side's name.
    pub side: String,
    /// Its faction's name, in a scene with three or more factions (§6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub faction: Option<String>,
    /// Where it stands.
    pub region: String,
    /// How many are left.
    pub count: u32,
}

/// A Duel as anyone sees it.
#[derive(Debug, Clone, Serialize)]
pub struct DuelView {
    /// Its number.
    pub id: u16,
    /// Its Region.
    pub region: String,
    /// Its Flow of Battle (positive: the positive side is winning).
    pub flow: i32,
    /// Whether it is fought now.
    pub active: bool,
}

/// A Region as anyone sees it.
#[derive(Debug, Clone, Serialize)]
pub struct RegionView {
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Its current effect.
    pub effect: RegionEffect,
    /// The Regions one can move into from here.
    pub exits: Vec<String>,
}

/// A Crisis Trigger as a viewer sees it (players see only those that have fired).
#[derive(Debug, Clone, Serialize)]
pub struct TriggerView {
    /// Its first threshold.
    pub at: u32,
    /// Its repeat.
    pub every: Option<u32>,
    /// Its note.
    pub note: String,
    /// How often it has fired.
    pub fired: u32,
}

/// What one viewer may see of the scene.
#[derive(Debug, Clone, Serialize)]
pub struct SceneView {
    /// The title.
    pub title: String,
    /// The two sides' names.
    pub sides: [String; 2],
    /// The side whose gains count positive in every Flow.
    pub positive_side: String,
    /// The Regions.
    pub regions: Vec<RegionView>,
    /// The characters.
    pub fighters: Vec<FighterView>,
    /// The minion groups.
    pub minions: Vec<MinionView>,
    /// The Duels.
    pub duels: Vec<DuelView>,
    /// The Crisis pool.
    pub crisis: u32,
    /// The round.
    pub round: u32,
    /// Whether this is a surprise round.
    pub surprise_round: bool,
    /// The side with the initiative.
    pub initiative: String,
    /// Where the scene is.
    pub phase: Phase,
    /// Where the scene is, in words ("everyone declares face down", "the enemies resolve their
    /// actions"): what a page shows, never the phase's data.
    pub phase_words: String,
    /// Strikes left per side (non-violent conflict).
    pub strikes: Option<[u32; 2]>,
    /// The GM's Rising Tension left (§10; scene data, open question 14).
    pub rising_tension: u32,
    /// Pending decisions.
    pub pending: Vec<Pending>,
    /// The triggers the viewer may know.
    pub triggers: Vec<TriggerView>,
    /// How it ended.
    pub outcome: Option<Outcome>,
    /// Who won, once the scene is over, in this viewer's words ([`crate::outcome::who_won`]).
    pub who_won: Option<Ended>,
}

impl Scene {
    fn faction_name(&self, faction: Option<u8>) -> Option<String> {
        faction.and_then(|x| self.setup.factions.get(usize::from(x))).map(|f| f.name.clone())
    }

    fn owns(&self, viewer: Viewer, f: u8) -> bool {
        matches!(viewer, Viewer::Seat(s) if self.fighters.get(usize::from(f)).is_some_and(|x| x.seat == s))
    }

    /// What `viewer` may see.
    pub fn view(&self, viewer: Viewer) -> SceneView {
        let gm = matches!(viewer, Viewer::Seat(s) if self.seats.get(s).is_ok_and(|s| s.role == Role::Gm));
        let n = self.effects.len() as u8;
        SceneView {
            title: self.setup.title.clone(),
            sides: self.setup.sides.clone(),
            positive_side: self.side_name(self.positive).to_owned(),
            regions: (0..n)
                .map(|r| RegionView {
                    name: self.region_name(r).to_owned(),
                    description: self.setup.regions[usize::from(r)].description.clone(),
                    effect: self.effects[usize::from(r)].clone(),
                    exits: (0..n)
                        .filter(|&o| self.links.can_move(r, o))
                        .map(|o| self.region_name(o).to_owned())
                        .collect(),
                })
                .collect(),
            fighters: self
                .fighters
                .iter()
                .enumerate()
                .map(|(i, f)| FighterView {
                    id: i as u8,
                    name: f.sheet.name.clone(),
                    side: self.side_name(f.side).to_owned(),
                    faction: self.faction_name(f.faction),
                    seat: self.seat_name(f.seat).to_owned(),
                    region: f.region.map(|r| self.region_name(r).to_owned()),
                    hits: f.hits,
                    max_hits: f.sheet.max_hits,
                    death_hits: f.death_hits,
                    status: f.status,
                    doomed: f.doomed,
                    declared: f.declared.face(self.owns(viewer, i as u8)),
                    acted: f.acted,
                    sheet: (gm || self.owns(viewer, i as u8)).then(|| f.sheet.clone()),
                })
                .collect(),
            minions: self
                .minions
                .iter()
                .enumerate()
                .map(|(i, m)| MinionView {
                    id: i as u8,
                    name: m.stats.name.clone(),
                    side: self.side_name(m.side).to_owned(),
                    faction: self.faction_name(m.faction),
                    region: self.region_name(m.region).to_owned(),
                    count: m.count,
                })
                .collect(),
            duels: self
                .duels
                .iter()
                .enumerate()
                .map(|(i, d)| DuelView {
                    id: i as u16,
                    region: self.region_name(d.region).to_owned(),
                    flow: d.flow,
                    active: d.active,
                })
                .collect(),
            crisis: self.crisis,
            round: self.round,
            surprise_round: self.surprise_round,
            initiative: self.side_name(self.initiative).to_owned(),
            phase: self.phase,
            phase_words: match self.phase {
                Phase::Between => "between rounds".to_owned(),
                Phase::Declare => "everyone declares an action face down".to_owned(),
                Phase::Resolve { side } => {
                    format!("{} resolve their actions", crate::outcome::side_words(self, side))
                }
                Phase::Over => "the scene is over".to_owned(),
            },
            strikes: self.strikes,
            rising_tension: self.rising_tension,
            pending: self.pending.clone(),
            // A trigger a character's Skill added was announced: everyone knows it.
            triggers: self
                .setup
                .triggers
                .iter()
                .zip(&self.fired)
                .filter(|(_, fired)| gm || **fired > 0)
                .chain(self.added_triggers.iter().zip(self.fired.iter().skip(self.setup.triggers.len())))
                .map(|(t, &fired)| TriggerView { at: t.at, every: t.every, note: t.note.clone(), fired })
                .collect(),
            outcome: self.outcome.clone(),
            who_won: who_won(self, viewer),
        }
    }

    /// How `event` looks to `viewer`: another seat's declaration shows only that it was made.
    pub fn redact(&self, event: &Event, viewer: Viewer) -> Option<Event> {
        match event {
            Event::Declared { character, .. } if !self.owns(viewer, *character) => {
                Some(Event::Declared { character: *character, action: None })
            }
            e => Some(e.clone()),
        }
    }
}
