//! Who won the scene (rules reference `shared/rules/inciting-incident.md` §5, §9, §10: a side
//! with nobody left able to fight, or with no Strikes left, loses; the GM may call it; the
//! round limit stops it with nobody winning), in the players' words, with the Flow of Battle
//! of every Duel (§6) and the summary.
//!
//! The one place every shell asks: the page shows [`SceneView::who_won`] at the end,
//! `facedown play` prints the same, and the bots' tournament counts [`Ended::winner`].
//!
//! [`SceneView::who_won`]: crate::view::SceneView::who_won

use serde::{Deserialize, Serialize};
use table::Viewer;

use crate::scene::{Phase, Scene};

/// A character's part of a finished scene's summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FighterSummary {
    /// Its name.
    pub name: String,
    /// Hits taken (§9).
    pub hits: u8,
    /// Death Hits marked (§9).
    pub death_hits: u8,
    /// Whether it is Incapacitated (at Max Hits, §9).
    pub incapacitated: bool,
    /// Whether it failed the keep-fighting roll: it must die before the next Action or
    /// Conflict scene (§9).
    pub doomed: bool,
}

/// One Duel's Flow of Battle at the end (§6): positive is the players' side's way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowLine {
    /// The Region it is fought in.
    pub region: String,
    /// The Flow.
    pub flow: i32,
    /// "Flow of Battle in the Shallows: +2, the players' way."
    pub words: String,
}

/// How a scene ended, in the players' words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ended {
    /// The winning side, if any.
    pub winner: Option<u8>,
    /// Whether the viewer's side won (`None`: a spectator, a seat with no character, or nobody
    /// won).
    pub you_won: Option<bool>,
    /// "The scene ends: the players win", "The scene ends at the round limit: nobody wins".
    pub headline: String,
    /// Why, in words.
    pub why: String,
    /// Rounds played.
    pub rounds: u32,
    /// Every character's hits, Death Hits and doom.
    pub fighters: Vec<FighterSummary>,
    /// The Flow of every Duel still active (at the round limit: who was ahead where).
    pub flows: Vec<FlowLine>,
    /// The summary in lines: rounds, hits, Death Hits, deaths, the Flow.
    pub summary: Vec<String>,
}

/// A side in the players' words: "the players", "the enemies" (the scene file's name, with
/// "the" before a name that has none).
pub fn side_words(scene: &Scene, side: u8) -> String {
    let n = scene.side_name(side);
    if n.to_lowercase().starts_with("the ") { n.to_owned() } else { format!("the {n}") }
}

/// One Duel's Flow in words (§6: signed from the players' side, the scene's positive side).
pub fn flow_words(scene: &Scene, region: &str, flow: i32) -> String {
    let way = match flow.signum() {
        0 => ", even".to_owned(),
        _ => format!(", {}", way_of(scene, flow)),
    };
    format!("Flow of Battle in {region}: {flow:+}{way}.")
}

/// The way a signed Flow (or a move of it) goes, in words: "the players' way" for positive
/// (the scene's positive side, §6), "the enemies' way" for negative.
pub fn way_of(scene: &Scene, flow: i32) -> String {
    let side = if flow >= 0 { scene.positive } else { 1 - scene.positive };
    let w = side_words(scene, side);
    if w.ends_with('s') { format!("{w}' way") } else { format!("{w}'s way") }
}

/// Who won the scene, once it is over: the winning side if any, the headline for `viewer`,
/// why, and the summary (rounds, hits, Death Hits, deaths, the Flow). `None` while it goes on.
pub fn who_won(scene: &Scene, viewer: Viewer) -> Option<Ended> {
    let outcome = scene.outcome.as_ref()?;
    if !matches!(scene.phase, Phase::Over) {
        return None;
    }
    // A seat's side is its characters' (the GM's, its NPCs').
    let mine = match viewer {
        Viewer::Seat(s) => scene.fighters.iter().find(|f| f.seat == s).map(|f| f.side),
        _ => None,
    };
    let you_won = match (outcome.winner, mine) {
        (Some(w), Some(m)) => Some(w == m),
        _ => None,
    };
    let headline = match (outcome.winner, you_won, outcome.round_limit) {
        (Some(w), Some(true), _) => format!("You won: {} win.", side_words(scene, w)),
        (Some(w), Some(false), _) => format!("You lost: {} win.", side_words(scene, w)),
        (Some(w), None, _) => format!("The scene ends: {} win.", side_words(scene, w)),
        (None, _, Some(n)) => {
            format!(
                "The scene ends at the round limit, after {n} {}: nobody wins.",
                if n == 1 { "round" } else { "rounds" }
            )
        }
        (None, _, None) => "The scene ends: nobody wins.".to_owned(),
    };
    let fighters: Vec<FighterSummary> = scene
        .fighters
        .iter()
        .map(|f| FighterSummary {
            name: f.sheet.name.clone(),
            hits: f.hits,
            death_hits: f.death_hits,
            incapacitated: f.status == crate::Status::Incapacitated,
            doomed: f.doomed,
        })
        .collect();
    let flows: Vec<FlowLine> = scene
        .duels
        .iter()
        .filter(|d| d.active)
        .map(|d| {
            let region = scene.region_name(d.region).to_owned();
            FlowLine { words: flow_words(scene, &region, d.flow), region, flow: d.flow }
        })
        .collect();
    let rounds = scene.round;
    let mut summary = vec![format!("{rounds} {}.", if rounds == 1 { "round" } else { "rounds" })];
    for f in &fighters {
        let mut line = format!("{} took {} {}", f.name, f.hits, if f.hits == 1 { "hit" } else { "hits" });
        if f.death_hits > 0 {
            line.push_str(&format!(
                ", {} Death {}",
                f.death_hits,
                if f.death_hits == 1 { "Hit" } else { "Hits" }
            ));
        }
        if f.incapacitated {
            line.push_str("; Incapacitated");
        }
        if f.doomed {
            line.push_str("; must die before the next Action or Conflict scene");
        }
        line.push('.');
        summary.push(line);
    }
    for m in &scene.minions {
        summary.push(format!("{}: {} left.", m.stats.name, m.count));
    }
    summary.extend(flows.iter().map(|f| f.words.clone()));
    Some(Ended {
        winner: outcome.winner,
        you_won,
        headline,
        why: outcome.why.clone(),
        rounds,
        fighters,
        flows,
        summary,
    })
}
