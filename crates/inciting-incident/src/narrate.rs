//! The log in words (rules reference §5–§10): every event, action and command as plain
//! text in the book's words, for every shell (the terminal, a server, a browser).
//!
//! The text is plain: names come from the scene file as they are, so a shell that prints to
//! a terminal escapes control characters itself (the CLI narrates an escaped copy of the
//! scene). [`crate::IncitingIncident`]'s `narrate` calls [`event`].

use crate::rules::{FlowSource, InitiativeWhy, Purpose, Who};
use crate::{Action, Adjustment, Command, Event, Scene, Target};

fn target(scene: &Scene, t: Target) -> String {
    match t {
        Target::Character(c) => scene.fighter_name(c).to_owned(),
        Target::Minions(g) => {
            scene.minions.get(usize::from(g)).map_or("?".into(), |m| format!("the {}", m.stats.name))
        }
    }
}

fn talent(scene: &Scene, f: u8, t: u8) -> String {
    scene.fighters[usize::from(f)].sheet.talents.get(usize::from(t)).map_or("?".into(), |t| t.name.clone())
}

/// An action in words.
pub fn action(scene: &Scene, f: u8, a: &Action) -> String {
    match *a {
        Action::Hold => "hold (no action)".into(),
        Action::Move { path } => {
            let names: Vec<&str> = path.regions().iter().map(|&r| scene.region_name(r)).collect();
            format!("move to {}", names.join(" → "))
        }
        Action::Regular { talent: t, target: tg, roll, defence } => {
            let with = t.map(|t| format!(" with {}", talent(scene, f, t))).unwrap_or_default();
            let how = if roll { "Talent Roll" } else { "automatic" };
            let def = defence.map(|d| format!(" vs {}", d.name())).unwrap_or_default();
            format!("Regular Attack ({how}){with} on {}{def}", target(scene, tg))
        }
        Action::Decisive { talent: t, target: tg, defence } => {
            let def = defence.map(|d| format!(" vs {}", d.name())).unwrap_or_default();
            format!("Decisive Attack with {} on {}{def}", talent(scene, f, t), target(scene, tg))
        }
        Action::Advanced { talent: t, action: i, target: tg } => {
            let name = scene.fighters[usize::from(f)]
                .sheet
                .talents
                .get(usize::from(t))
                .and_then(|t| t.advanced.get(usize::from(i)))
                .map_or("?".into(), |a| a.name.clone());
            let on = tg.map(|c| format!(" on {}", scene.fighter_name(c))).unwrap_or_default();
            format!("Advanced Action {name}{on}")
        }
    }
}

/// A legal command in words: the label of a prompt's choice and of the CLI's numbered menus.
pub fn command(scene: &Scene, c: &Command) -> String {
    match c {
        Command::Declare { character, action: a } | Command::ExtraAction { character, action: a } => {
            format!("{}: {}", scene.fighter_name(*character), action(scene, *character, a))
        }
        Command::OutOfOrder { character, action: a } => {
            format!(
                "{}: outside round order, {}",
                scene.fighter_name(*character),
                action(scene, *character, a)
            )
        }
        Command::Act { character } => format!("resolve {}'s action now", scene.fighter_name(*character)),
        Command::KeepFighting { character, roll: true } => {
            format!(
                "{}: roll to keep fighting (a failure means death before the next scene)",
                scene.fighter_name(*character)
            )
        }
        Command::KeepFighting { character, roll: false } => {
            format!("{}: stay down (cannot act, survives)", scene.fighter_name(*character))
        }
        Command::EndScene { winner: None } => "GM: end the scene now, without a winner".into(),
        Command::EndScene { winner: Some(w) } => {
            format!("GM: end the scene now, {} win", scene.side_name(*w))
        }
        Command::SpendTension { side, strikes } => {
            format!("GM: spend Rising Tension for {strikes} more Strike(s) for {}", scene.side_name(*side))
        }
        Command::RestScene { full_day: false } => "GM: hold a Rest Scene (a roll each)".into(),
        Command::RestScene { full_day: true } => "GM: a whole day of rest".into(),
        Command::Adjust { adjustment, reason } => {
            let what = match *adjustment {
                Adjustment::Hits { character, hits } => {
                    format!("{}'s hits to {hits}", scene.fighter_name(character))
                }
                Adjustment::Flow { duel, flow } => {
                    format!("the Flow of Battle in {} to {flow:+}", duel_region(scene, duel))
                }
                Adjustment::Crisis { crisis } => format!("the Crisis pool to {crisis}"),
                Adjustment::Strikes { side, strikes } => {
                    format!("{}' Strikes to {strikes}", scene.side_name(side))
                }
            };
            format!("GM: set {what} ({reason})")
        }
    }
}

/// The result of the action being resolved, in one line, said when its own part ends (the
/// Crisis it adds, else its end; issue 34: each attack's result where it is resolved): a Regular Attack's success or failure and how the
/// Flow of Battle moved, a Decisive Attack's hits or none, with the rolls that decided it. Read
/// from what the action did ([`Scene::acting`]); `None` for an action with no such result.
fn action_result(scene: &Scene, c: u8) -> Option<String> {
    let a = scene.acting.as_ref().filter(|a| a.character == c)?;
    let flow = |by: i32| {
        if by == 0 {
            "the Flow of Battle does not move".to_owned()
        } else {
            format!("the Flow of Battle moves {} {}", by.unsigned_abs(), crate::outcome::way_of(scene, by))
        }
    };
    let line = match a.action {
        Action::Regular { roll: false, .. } => {
            format!("Result: success (no roll): {}.", flow(a.flow.unwrap_or(0)))
        }
        Action::Regular { roll: true, .. } => {
            let total = a.roll?;
            let need = crate::dice::TARGET;
            if total >= need {
                format!("Result: success ({total}, {need} or more): {}.", flow(a.flow.unwrap_or(0)))
            } else {
                format!("Result: failure ({total}, under {need}): {}.", flow(0))
            }
        }
        Action::Decisive { target: t, .. } => {
            let (attack, defence) = (a.roll?, a.defence?);
            let whom = target(scene, t);
            if a.hits > 0 {
                format!(
                    "Result: a hit on {whom}, {} hit{} (attack roll {attack} against defence roll {defence}).",
                    a.hits,
                    if a.hits == 1 { "" } else { "s" }
                )
            } else {
                format!(
                    "Result: no hit on {whom}: attack roll {attack}, not past defence roll {defence} with the Resistance Value and the Flow added."
                )
            }
        }
        _ => return None,
    };
    Some(format!("  {line}"))
}

/// Where a round leaves the scene (issue 34: each round's result): the Flow of Battle of every
/// Duel being fought, and in a non-violent conflict the Strikes left.
fn round_result(scene: &Scene) -> String {
    let mut out = String::new();
    let duels: Vec<String> = scene
        .duels
        .iter()
        .filter(|d| d.active)
        .map(|d| {
            let way = if d.flow == 0 {
                "even".to_owned()
            } else {
                format!("{} {}", d.flow.unsigned_abs(), crate::outcome::way_of(scene, d.flow))
            };
            format!("{} {:+} ({way})", scene.region_name(d.region), d.flow)
        })
        .collect();
    if duels.is_empty() {
        out.push_str(" No Duel is being fought.");
    } else {
        out.push_str(&format!(" Flow of Battle: {}.", duels.join("; ")));
    }
    if let Some(s) = scene.strikes {
        out.push_str(&format!(
            " Strikes left: {} {}, {} {}.",
            scene.side_name(0),
            s[0],
            scene.side_name(1),
            s[1]
        ));
    }
    out
}

fn who(scene: &Scene, w: Who) -> String {
    match w {
        Who::Character(c) => scene.fighter_name(c).to_owned(),
        Who::Minions(g) => target(scene, Target::Minions(g)),
    }
}

fn duel_region(scene: &Scene, d: u16) -> &str {
    scene.duels.get(usize::from(d)).map_or("?", |d| scene.region_name(d.region))
}

/// One event in words, as seen by whoever the event was redacted for, narrated before it
/// applies to `scene`; `None` for events that say nothing new. Lines after the first start
/// with a newline where the event opens a new part of the log (a round, the end).
pub fn event(scene: &Scene, e: &Event) -> Option<String> {
    Some(match e {
        Event::RoundStarted { round, initiative, surprise, why, .. } => {
            let why = match why {
                InitiativeWhy::Surprise => "surprise: they play this round alone",
                InitiativeWhy::Nimbleness => "highest Nimbleness",
                InitiativeWhy::Headcount => "tied on Nimbleness, more characters",
                InitiativeWhy::Talent => "tied, best Nimbleness Talent",
                InitiativeWhy::Coin => "tied on everything, by lot",
                InitiativeWhy::LeastCrisis => "least Crisis last round",
                InitiativeWhy::Kept => "equal Crisis last round, initiative kept",
            };
            let s = if *surprise { " (surprise round)" } else { "" };
            format!("\n== Round {round}{s} == initiative: {} ({why})", scene.side_name(*initiative))
        }
        Event::Declared { character, action: None } => {
            format!("{} has declared.", scene.fighter_name(*character))
        }
        Event::Declared { character, action: Some(a) } => {
            format!("{} declares: {}", scene.fighter_name(*character), action(scene, *character, a))
        }
        Event::Revealed { actions } => {
            let mut s = String::from("Declarations revealed:");
            for (c, a) in actions {
                s.push_str(&format!("\n  {}: {}", scene.fighter_name(*c), action(scene, *c, a)));
            }
            s
        }
        Event::SideDone { next } => format!("-- {} resolve their actions --", scene.side_name(*next)),
        Event::Started { character, action: a, substituted } => format!(
            "{}: {}{}",
            scene.fighter_name(*character),
            action(scene, *character, a),
            if *substituted { " (the closest alternative to the declared action)" } else { "" }
        ),
        Event::Wasted { why, .. } => format!("Action wasted, no Crisis: {why}"),
        // An action whose own part added no Crisis says its result as it ends.
        Event::Acted { character } => {
            return scene.acting.as_ref().filter(|a| !a.done).and_then(|_| action_result(scene, *character));
        }
        Event::Skipped { character } => format!("{} cannot act this round.", scene.fighter_name(*character)),
        Event::Rolled { who: w, purpose, roll, .. } => {
            let what = match purpose {
                Purpose::Regular => "Talent Roll",
                Purpose::Decisive => "attack roll",
                Purpose::Defence => "defence roll",
                Purpose::KeepFighting => "keep-fighting roll",
                Purpose::Obstacle => "Simple Obstacle roll",
                Purpose::Rest => "rest roll",
            };
            let adv = match roll.advantage {
                0 => String::new(),
                n if n > 0 => format!(" [{n} Advantage]"),
                n => format!(" [{} Disadvantage]", -n),
            };
            format!("  {} {what}{adv}: {}", who(scene, *w), roll.describe())
        }
        Event::Moved { character, path } => {
            format!(
                "  {} moves to {}",
                scene.fighter_name(*character),
                path.last().map_or("?", |r| scene.region_name(r))
            )
        }
        Event::CrisisAdded { amount, total, .. } => {
            let mut s = format!("  Crisis +{amount} → {total}");
            // The Crisis an attack adds ends its own part (Triggers fire after): its result.
            if let Some(result) =
                scene.acting.as_ref().filter(|a| !a.done).and_then(|a| action_result(scene, a.character))
            {
                s.push('\n');
                s.push_str(&result);
            }
            s
        }
        Event::FlowMoved { duel, by, flow } => {
            // From what it was to what it is, and by how much whose way (issue 34: "-2 → -2"
            // read as from −2 to −2 after an attack on a Duel at 0).
            let was = scene.duels.get(usize::from(*duel)).map_or(flow - by, |d| d.flow);
            format!(
                "  Flow of Battle in {}: {was:+} → {flow:+} ({} {})",
                duel_region(scene, *duel),
                by.unsigned_abs(),
                crate::outcome::way_of(scene, *by)
            )
        }
        Event::DuelFormed { region, flow, from, .. } => {
            let from = match from {
                FlowSource::New => "a new Duel".to_owned(),
                FlowSource::Restored => "the same opponents re-engage: Flow restored".to_owned(),
                FlowSource::Copied(d) => {
                    format!("part of the Duel in {} re-engages: Flow copied", duel_region(scene, *d))
                }
            };
            format!("  A Duel starts in {} at Flow {flow:+} ({from})", scene.region_name(*region))
        }
        Event::DuelJoined { duel, combatant } => {
            let n = scene.fighters.len();
            let name = if usize::from(*combatant) < n {
                scene.fighter_name(*combatant).to_owned()
            } else {
                target(scene, Target::Minions(*combatant - n as u8))
            };
            format!("  {name} joins the Duel in {}", duel_region(scene, *duel))
        }
        Event::DuelEnded { duel } => format!(
            "  The Duel in {} breaks up (Flow {:+} saved)",
            duel_region(scene, *duel),
            scene.duels.get(usize::from(*duel)).map_or(0, |d| d.flow)
        ),
        Event::DuelsCombined { into, from, flow } => format!(
            "  The Duels of {} and {} combine: Flow {flow:+}",
            duel_region(scene, *into),
            duel_region(scene, *from)
        ),
        Event::Wounded { character, hits, total } => {
            let max = scene.fighters[usize::from(*character)].sheet.max_hits;
            format!("  {} takes {hits} hit(s) ({total}/{max})", scene.fighter_name(*character))
        }
        Event::StrikesLost { side, strikes, left, hits } => match hits {
            Some(h) => format!(
                "  {} lose {strikes} Strike(s) ({h} hits, but only {strikes} Strike(s) were left): {left} left",
                scene.side_name(*side)
            ),
            None => format!("  {} lose {strikes} Strike(s): {left} left", scene.side_name(*side)),
        },
        Event::Incapacitated { character } => {
            format!("  {} is Incapacitated!", scene.fighter_name(*character))
        }
        Event::KeptFighting { character, success: true } => {
            format!("  {} keeps fighting (one hit removed).", scene.fighter_name(*character))
        }
        Event::KeptFighting { character, success: false } => format!(
            "  {} keeps fighting (one hit removed) — but failed the roll and must die before the next scene.",
            scene.fighter_name(*character)
        ),
        Event::Declined { character } => {
            format!("  {} stays down and survives.", scene.fighter_name(*character))
        }
        Event::Healed { character, hits, revived } => format!(
            "  {} heals {hits} hit(s){}",
            scene.fighter_name(*character),
            if *revived { " and is revived" } else { "" }
        ),
        Event::MinionsKilled { group, killed, left } => {
            format!("  {killed} of {} die ({left} left)", target(scene, Target::Minions(*group)))
        }
        Event::MinionsArrived { group, count } => {
            format!("  {count} more of {} arrive", target(scene, Target::Minions(*group)))
        }
        Event::MinionsIdle { group } => {
            format!("  {} have nobody to attack", target(scene, Target::Minions(*group)))
        }
        Event::RegionChanged { region, effect } => {
            format!(
                "  {} changes: {}",
                scene.region_name(*region),
                if effect.name.is_empty() { "no effect" } else { &effect.name }
            )
        }
        Event::TriggerFired { trigger, at } => {
            let note = scene.trigger(usize::from(*trigger)).map_or("", |t| t.note.as_str());
            format!("  Crisis Trigger at {at}: {note}")
        }
        Event::TriggerAdded { character, trigger } => {
            let every = trigger.every.map(|e| format!(", then every {e}")).unwrap_or_default();
            format!(
                "  {} adds a Crisis Trigger at {}{every}: {}",
                scene.fighter_name(*character),
                trigger.at,
                trigger.note
            )
        }
        Event::ExtraActionGranted { character } => {
            format!("  {} gains an extra action", scene.fighter_name(*character))
        }
        Event::OutOfOrderTaken { character } => {
            format!("{} acts outside round order:", scene.fighter_name(*character))
        }
        Event::ExtraActionTaken { character } => {
            format!("{} takes an extra action:", scene.fighter_name(*character))
        }
        Event::ExtraActionLost { character } => {
            format!("  {} cannot take its extra action", scene.fighter_name(*character))
        }
        Event::RoundEnded { crisis } => format!(
            "Round {} ends. Crisis generated: {} {}, {} {} (pool {}).{}",
            scene.round,
            scene.side_name(0),
            crisis[0],
            scene.side_name(1),
            crisis[1],
            scene.crisis,
            round_result(scene)
        ),
        Event::SceneOver { outcome } => format!(
            "\nThe scene is over: {}{}.",
            outcome.why,
            outcome.winner.map(|w| format!(" — {} win", scene.camp_name(w))).unwrap_or_default()
        ),
        Event::AllianceEnded { beaten, turned } => {
            // Narrated before the event applies: the sides are still the old ones.
            let name = |f: u8| scene.setup.factions.get(usize::from(f)).map_or("?", |x| x.name.as_str());
            let turning: Vec<&str> = turned.iter().map(|&f| name(f)).collect();
            let staying: Vec<&str> = scene
                .able_factions(1 - *beaten)
                .into_iter()
                .filter(|f| !turned.contains(f))
                .map(name)
                .collect();
            format!(
                "\n{} are beaten; the alliance ends: {} turn on {}, taking the {} side. New Duels start at Flow 0.",
                scene.camp_name(*beaten),
                turning.join(" and "),
                staying.join(" and "),
                scene.side_name(*beaten)
            )
        }
        Event::TensionSpent { side, strikes, total, left } => format!(
            "  The GM spends Rising Tension: {} gain {strikes} Strike(s), {total} now (Rising Tension left: {left})",
            scene.side_name(*side)
        ),
        Event::Adjusted { adjustment, reason } => {
            let (what, from, to) = match *adjustment {
                Adjustment::Hits { character, hits } => {
                    let f = scene.fighters.get(usize::from(character));
                    let max = f.map_or(0, |f| f.sheet.max_hits);
                    (
                        format!("{}'s hits", scene.fighter_name(character)),
                        format!("{}/{max}", f.map_or(0, |f| f.hits)),
                        format!("{hits}/{max}"),
                    )
                }
                Adjustment::Flow { duel, flow } => (
                    format!("the Flow of Battle in {}", duel_region(scene, duel)),
                    format!("{:+}", scene.duels.get(usize::from(duel)).map_or(0, |d| d.flow)),
                    format!("{flow:+}"),
                ),
                Adjustment::Crisis { crisis } => {
                    ("the Crisis pool".to_owned(), scene.crisis.to_string(), crisis.to_string())
                }
                Adjustment::Strikes { side, strikes } => (
                    format!("{}' Strikes", scene.side_name(side)),
                    scene.strikes.map_or(0, |s| s[usize::from(side & 1)]).to_string(),
                    strikes.to_string(),
                ),
            };
            format!("  The GM adjusts {what}: {from} → {to} (reason: {reason})")
        }
        Event::RestStarted { full_day: false } => "\n== Rest Scene ==".into(),
        Event::RestStarted { full_day: true } => "\n== A whole day of rest ==".into(),
        Event::Rested { character, outcome, hits, death_hits, .. } => {
            let max = scene.fighters[usize::from(*character)].sheet.max_hits;
            format!(
                "  {}: {}. Hits {hits}/{max}, Death Hits {death_hits}/{max}.",
                scene.fighter_name(*character),
                outcome.describe()
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice;
    use crate::map::RegionEffect;
    use crate::scene::{Outcome, TriggerEffect, TriggerSpec};
    use crate::wounds::RestOutcome;
    use crate::{IncitingIncident, Path, Setup};
    use table::{Ruleset, Viewer};

    /// The example river fight: Bren (0), Mira (1), Y'ras'byn (2), Cult captain (3); the
    /// Cultists (group 0); Regions Shallows (0), Bank (1), Rocks (2).
    fn scene() -> Scene {
        let setup: Setup =
            toml::from_str(include_str!("../../../examples/inciting-incident/river-fight.toml")).unwrap();
        Scene::new(setup).unwrap()
    }

    fn says(e: Event) -> String {
        IncitingIncident::narrate(&scene(), &e, Viewer::Spectator).unwrap_or_default()
    }

    fn attack() -> Action {
        Action::Regular { talent: Some(0), target: Target::Character(2), roll: true, defence: None }
    }

    #[test]
    fn narrate_a_round_start_names_the_initiative_and_why() {
        let t = says(Event::RoundStarted {
            round: 2,
            initiative: 1,
            surprise: true,
            why: InitiativeWhy::Surprise,
            rng_pos: None,
        });
        assert!(t.contains("== Round 2 (surprise round) == initiative: enemies (surprise"), "{t}");
    }

    #[test]
    fn narrate_declarations_face_down_and_face_up() {
        assert_eq!(says(Event::Declared { character: 0, action: None }), "Bren has declared.");
        let t = says(Event::Declared { character: 0, action: Some(attack()) });
        assert_eq!(t, "Bren declares: Regular Attack (Talent Roll) with Icy blade on Y'ras'byn");
        let t = says(Event::Revealed { actions: vec![(0, Action::Hold), (1, attack())] });
        assert!(t.starts_with("Declarations revealed:\n  Bren: hold (no action)\n  Mira: "), "{t}");
    }

    #[test]
    fn narrate_resolution_steps() {
        assert_eq!(says(Event::SideDone { next: 0 }), "-- players resolve their actions --");
        let t = says(Event::Started { character: 0, action: attack(), substituted: true });
        assert!(t.ends_with("(the closest alternative to the declared action)"), "{t}");
        let t = says(Event::Wasted { character: 0, why: "nobody in reach".into() });
        assert_eq!(t, "Action wasted, no Crisis: nobody in reach");
        assert_eq!(
            IncitingIncident::narrate(&scene(), &Event::Acted { character: 0 }, Viewer::Spectator),
            None
        );
        assert_eq!(says(Event::Skipped { character: 1 }), "Mira cannot act this round.");
        assert_eq!(says(Event::OutOfOrderTaken { character: 1 }), "Mira acts outside round order:");
        assert_eq!(says(Event::ExtraActionGranted { character: 0 }), "  Bren gains an extra action");
        assert_eq!(says(Event::ExtraActionTaken { character: 0 }), "Bren takes an extra action:");
        assert_eq!(says(Event::ExtraActionLost { character: 0 }), "  Bren cannot take its extra action");
        let t = says(Event::RoundEnded { crisis: [3, 4] });
        assert!(t.contains("Crisis generated: players 3, enemies 4"), "{t}");
    }

    #[test]
    fn narrate_rolls_with_their_purpose_and_advantage() {
        let roll = dice::Roll { dice: Vec::new(), modifier: 0, advantage: -2, total: 0 };
        let t = says(Event::Rolled { who: Who::Minions(0), purpose: Purpose::Defence, roll, rng_pos: 0 });
        assert!(t.starts_with("  the Cultists defence roll [2 Disadvantage]: "), "{t}");
    }

    /// §6, §7.1: an attack on a Duel at 0 moving the Flow by −2 reads from what it was to what
    /// it is ("+0 → -2"), not the move then the Flow ("-2 → -2", issue 34).
    #[test]
    fn flow_moved_reads_from_the_old_flow_to_the_new() {
        let mut s = scene();
        assert!(!s.duels.is_empty(), "the river fight starts with a Duel");
        s.duels[0].flow = 0;
        let t =
            IncitingIncident::narrate(&s, &Event::FlowMoved { duel: 0, by: -2, flow: -2 }, Viewer::Spectator)
                .unwrap_or_default();
        assert!(t.ends_with(": +0 → -2 (2 the enemies' way)"), "{t}");
    }

    #[test]
    fn narrate_moves_crisis_and_flow() {
        let path = Path::new(&[1, 2]).unwrap();
        assert_eq!(says(Event::Moved { character: 0, path }), "  Bren moves to Rocks");
        assert_eq!(says(Event::CrisisAdded { amount: 2, side: Some(0), total: 9 }), "  Crisis +2 → 9");
        let t = says(Event::FlowMoved { duel: 0, by: 3, flow: 3 });
        assert!(
            t.starts_with("  Flow of Battle in ") && t.ends_with(": +0 → +3 (3 the players' way)"),
            "{t}"
        );
        let t = says(Event::DuelFormed { duel: 9, region: 1, flow: 0, from: FlowSource::New, members: 1 });
        assert_eq!(t, "  A Duel starts in Bank at Flow +0 (a new Duel)");
        let t = says(Event::DuelJoined { duel: 0, combatant: 4 });
        assert!(t.starts_with("  the Cultists joins the Duel in "), "{t}");
        assert!(says(Event::DuelEnded { duel: 0 }).contains("breaks up"));
        assert!(says(Event::DuelsCombined { into: 0, from: 1, flow: 3 }).ends_with("combine: Flow +3"));
    }

    /// Issue 34: each attack's result where it is resolved — a line after the Crisis that ends
    /// its own part (Triggers fire after it): a Talent Roll's success or failure and the Flow,
    /// a Decisive Attack's hits or none with the two rolls; a move has none.
    #[test]
    fn each_attacks_result_is_said_as_its_crisis_ends_its_part() {
        let roll = |total| dice::Roll { dice: Vec::new(), modifier: 0, advantage: 0, total };
        let crisis = Event::CrisisAdded { amount: 2, side: Some(0), total: 9 };
        let run = |action: Action, events: &[Event]| {
            let mut s = scene();
            s.apply(&Event::Started { character: 0, action, substituted: false });
            for e in events {
                s.apply(e);
            }
            IncitingIncident::narrate(&s, &crisis, Viewer::Spectator).unwrap_or_default()
        };
        let rolled = |c, purpose, total| Event::Rolled {
            who: Who::Character(c),
            purpose,
            roll: roll(total),
            rng_pos: 0,
        };
        let t =
            run(attack(), &[rolled(0, Purpose::Regular, 23), Event::FlowMoved { duel: 0, by: 3, flow: 3 }]);
        assert_eq!(
            t,
            "  Crisis +2 → 9\n  Result: success (23, 20 or more): the Flow of Battle moves 3 the players' way."
        );
        let t = run(attack(), &[rolled(0, Purpose::Regular, 19)]);
        assert!(t.ends_with("\n  Result: failure (19, under 20): the Flow of Battle does not move."), "{t}");
        let decisive = Action::Decisive { talent: 0, target: Target::Character(2), defence: None };
        let t = run(
            decisive,
            &[
                rolled(0, Purpose::Decisive, 19),
                rolled(2, Purpose::Defence, 9),
                Event::Wounded { character: 2, hits: 2, total: 2 },
            ],
        );
        assert!(
            t.ends_with("\n  Result: a hit on Y'ras'byn, 2 hits (attack roll 19 against defence roll 9)."),
            "{t}"
        );
        let t = run(decisive, &[rolled(0, Purpose::Decisive, 11), rolled(2, Purpose::Defence, 8)]);
        assert!(
            t.ends_with(
                "Result: no hit on Y'ras'byn: attack roll 11, not past defence roll 8 with the Resistance Value and the Flow added."
            ),
            "{t}"
        );
        let path = Path::new(&[1]).unwrap();
        assert_eq!(run(Action::Move { path }, &[]), "  Crisis +2 → 9", "a move has no result line");
        // The Crisis after the action's own part (a Trigger's) says nothing more.
        let mut s = scene();
        s.apply(&Event::Started { character: 0, action: attack(), substituted: false });
        s.apply(&rolled(0, Purpose::Regular, 19));
        s.apply(&crisis);
        assert_eq!(IncitingIncident::narrate(&s, &crisis, Viewer::Spectator).unwrap(), "  Crisis +2 → 9");
    }

    /// Issue 34: each round's result — the Flow of Battle of every Duel fought as it ends.
    #[test]
    fn a_rounds_end_says_the_flow_of_every_duel_fought() {
        let mut s = scene();
        let t =
            IncitingIncident::narrate(&s, &Event::RoundEnded { crisis: [3, 4] }, Viewer::Spectator).unwrap();
        let fought: Vec<_> = s.duels.iter().filter(|d| d.active).collect();
        if fought.is_empty() {
            assert!(t.ends_with(" No Duel is being fought."), "{t}");
        } else {
            assert!(t.contains(" Flow of Battle: "), "{t}");
        }
        if let Some(d) = s.duels.iter_mut().find(|d| d.active) {
            d.flow = -3;
            let t = IncitingIncident::narrate(&s, &Event::RoundEnded { crisis: [3, 4] }, Viewer::Spectator)
                .unwrap();
            assert!(t.contains("-3 (3 the enemies' way)"), "{t}");
        }
    }

    #[test]
    fn narrate_wounds_and_strikes() {
        let s = scene();
        let max = s.fighters[0].sheet.max_hits;
        assert_eq!(
            says(Event::Wounded { character: 0, hits: 2, total: 2 }),
            format!("  Bren takes 2 hit(s) (2/{max})")
        );
        let t = says(Event::StrikesLost { side: 1, strikes: 1, left: 0, hits: Some(3) });
        assert_eq!(t, "  enemies lose 1 Strike(s) (3 hits, but only 1 Strike(s) were left): 0 left");
        assert_eq!(
            says(Event::StrikesLost { side: 0, strikes: 2, left: 1, hits: None }),
            "  players lose 2 Strike(s): 1 left"
        );
        assert_eq!(says(Event::Incapacitated { character: 1 }), "  Mira is Incapacitated!");
        assert!(says(Event::KeptFighting { character: 1, success: true }).contains("keeps fighting"));
        assert!(says(Event::KeptFighting { character: 1, success: false }).contains("must die"));
        assert_eq!(says(Event::Declined { character: 1 }), "  Mira stays down and survives.");
        assert_eq!(
            says(Event::Healed { character: 1, hits: 1, revived: true }),
            "  Mira heals 1 hit(s) and is revived"
        );
    }

    #[test]
    fn narrate_minions_regions_and_triggers() {
        assert_eq!(
            says(Event::MinionsKilled { group: 0, killed: 2, left: 2 }),
            "  2 of the Cultists die (2 left)"
        );
        assert_eq!(says(Event::MinionsArrived { group: 0, count: 3 }), "  3 more of the Cultists arrive");
        assert_eq!(says(Event::MinionsIdle { group: 0 }), "  the Cultists have nobody to attack");
        let effect = RegionEffect { name: "Burning".into(), ..RegionEffect::default() };
        assert_eq!(says(Event::RegionChanged { region: 1, effect }), "  Bank changes: Burning");
        assert!(says(Event::TriggerFired { trigger: 0, at: 8 }).starts_with("  Crisis Trigger at 8: "));
        let trigger = TriggerSpec {
            at: 6,
            every: Some(4),
            note: "fury".into(),
            effect: TriggerEffect::ExtraAction { character: "Bren".into() },
        };
        let t = says(Event::TriggerAdded { character: 0, trigger });
        assert_eq!(t, "  Bren adds a Crisis Trigger at 6, then every 4: fury");
    }

    #[test]
    fn narrate_the_end_the_tension_the_alliance_and_the_rest() {
        let t = says(Event::SceneOver { outcome: Outcome::new(Some(0), "the GM calls it") });
        assert_eq!(t, "\nThe scene is over: the GM calls it — players win.");
        let t = says(Event::TensionSpent { side: 0, strikes: 1, total: 4, left: 2 });
        assert!(t.contains("players gain 1 Strike(s), 4 now (Rising Tension left: 2)"), "{t}");
        let t = says(Event::AllianceEnded { beaten: 1, turned: vec![] });
        assert!(t.contains("the alliance ends:"), "{t}");
        assert_eq!(says(Event::RestStarted { full_day: false }), "\n== Rest Scene ==");
        assert_eq!(says(Event::RestStarted { full_day: true }), "\n== A whole day of rest ==");
        let t = says(Event::Rested {
            character: 0,
            outcome: RestOutcome::Healed,
            hits: 0,
            death_hits: 0,
            incapacitated: false,
            doomed: false,
        });
        assert!(t.starts_with("  Bren: ") && t.contains("Hits 0/"), "{t}");
    }

    #[test]
    fn narrate_commands_as_menu_labels() {
        let s = scene();
        assert_eq!(command(&s, &Command::Act { character: 1 }), "resolve Mira's action now");
        assert_eq!(
            command(&s, &Command::Declare { character: 0, action: Action::Hold }),
            "Bren: hold (no action)"
        );
        assert!(command(&s, &Command::KeepFighting { character: 0, roll: false }).contains("stay down"));
        assert_eq!(command(&s, &Command::EndScene { winner: Some(1) }), "GM: end the scene now, enemies win");
    }
}
