//! The round log in words: every event as a spectator may see it, with every die.

use std::borrow::Cow;
use std::io::Write;

use crate::input::escape;

use inciting_incident::rules::{FlowSource, InitiativeWhy, Purpose, Who};
use inciting_incident::view::SceneView;
use inciting_incident::{Action, Command, Event, IncitingIncident, Scene, Status, Target};
use table::{Face, Table, Viewer};

/// `scene` as printed in text mode: a copy with the names and texts from the scene file
/// (title, sides, Regions and their effects, characters, minions) control-character escaped,
/// so no file can move the cursor or forge a line; the scene itself when nothing needs it.
/// For printing only: the copy is never played.
pub fn escaped(scene: &Scene) -> Cow<'_, Scene> {
    let unsafe_name = |n: &str| matches!(escape(n), Cow::Owned(_));
    let setup = &scene.setup;
    let needs = unsafe_name(&setup.title)
        || setup.sides.iter().any(|n| unsafe_name(n))
        || setup.regions.iter().any(|r| unsafe_name(&r.name))
        || scene.effects.iter().any(|e| unsafe_name(&e.name))
        || scene.fighters.iter().any(|f| unsafe_name(&f.sheet.name))
        || scene.minions.iter().any(|m| unsafe_name(&m.stats.name));
    if !needs {
        return Cow::Borrowed(scene);
    }
    let e = |n: &mut String| *n = escape(n).into_owned();
    let mut copy = scene.clone();
    let setup = std::sync::Arc::make_mut(&mut copy.setup);
    e(&mut setup.title);
    setup.sides.iter_mut().for_each(e);
    setup.regions.iter_mut().for_each(|r| e(&mut r.name));
    std::sync::Arc::make_mut(&mut copy.effects).iter_mut().for_each(|x| e(&mut x.name));
    copy.fighters.iter_mut().for_each(|f| e(&mut std::sync::Arc::make_mut(&mut f.sheet).name));
    copy.minions.iter_mut().for_each(|m| e(&mut std::sync::Arc::make_mut(&mut m.stats).name));
    Cow::Owned(copy)
}

/// Prints the log as it grows, keeping the state the next event applies to.
pub struct Narrator {
    printed: usize,
    json: bool,
    state: Option<Scene>,
}

impl Narrator {
    /// From the first event.
    pub fn from_start(json: bool) -> Self {
        Narrator { printed: 0, json, state: None }
    }

    /// From now on (a resumed scene).
    pub fn from_now(table: &Table<IncitingIncident>, json: bool) -> Self {
        Narrator { printed: table.log().len(), json, state: Some(table.state().clone()) }
    }

    /// Prints the events not printed yet, redacted for a spectator.
    pub fn catch_up(&mut self, table: &Table<IncitingIncident>, out: &mut dyn Write) -> anyhow::Result<()> {
        let log = table.log();
        if self.printed >= log.len() {
            return Ok(());
        }
        // Redaction and names look at the state each event was applied to.
        let state = self.state.get_or_insert_with(|| table.initial().clone());
        for e in &log[self.printed..] {
            if let Some(shown) = state.redact(e, Viewer::Spectator) {
                if self.json {
                    writeln!(out, "{}", serde_json::to_string(&shown)?)?;
                } else if let Some(text) = event(&escaped(state), &shown) {
                    writeln!(out, "{text}")?;
                }
            }
            state.apply(e);
        }
        self.printed = log.len();
        Ok(())
    }
}

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

/// A legal command in words (for the numbered menus).
pub fn command(scene: &Scene, c: &Command) -> String {
    let scene = &*escaped(scene);
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
        Command::SpendTension { side, strikes } => format!(
            "GM: spend Rising Tension for {strikes} more Strike(s) for {} (§10)",
            scene.side_name(*side)
        ),
        Command::RestScene { full_day: false } => "GM: hold a Rest Scene (a roll each, §9)".into(),
        Command::RestScene { full_day: true } => "GM: a whole day of rest (§9)".into(),
    }
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

/// One event in words; `None` for events that say nothing new.
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
        Event::Wasted { why, .. } => format!("Action wasted, no Crisis: {}", escape(why)),
        Event::Acted { .. } => return None,
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
        Event::CrisisAdded { amount, total, .. } => format!("  Crisis +{amount} → {total}"),
        Event::FlowMoved { duel, by, flow } => {
            format!("  Flow of Battle in {}: {by:+} → {flow:+}", duel_region(scene, *duel))
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
            "Round {} ends. Crisis generated: {} {}, {} {} (pool {}).",
            scene.round,
            scene.side_name(0),
            crisis[0],
            scene.side_name(1),
            crisis[1],
            scene.crisis
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
                "\n{} are beaten; the alliance ends (§6): {} turn on {}, taking the {} side. New Duels start at Flow 0.",
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

/// What `play` prints when its round limit stopped a scene.
pub fn round_limit_note(limit: u32) -> String {
    let rounds = if limit == 1 { "round" } else { "rounds" };
    format!(
        "Stopped by the round limit: {limit} {rounds} (change it with --max-rounds N or the scene file's options.max_rounds)."
    )
}

/// The scene's opening.
pub fn intro(scene: &Scene, out: &mut dyn Write) -> anyhow::Result<()> {
    let scene = &*escaped(scene);
    writeln!(out, "{}", scene.setup.title)?;
    writeln!(
        out,
        "Sides: {} (positive Flow) against {}.",
        scene.side_name(scene.positive),
        scene.side_name(1 - scene.positive)
    )?;
    if !scene.setup.factions.is_empty() {
        // Three or more factions (§6): the alliances, as the GM declared them.
        for side in 0..2u8 {
            writeln!(out, "  {}: {}", scene.side_name(side), scene.camp_name(side))?;
        }
    }
    if scene.rising_tension > 0 {
        writeln!(out, "The GM's Rising Tension: {}.", scene.rising_tension)?;
    }
    map(scene, out)
}

fn map(scene: &Scene, out: &mut dyn Write) -> anyhow::Result<()> {
    for r in 0..scene.effects.len() as u8 {
        let effect = &scene.effects[usize::from(r)];
        let mut here: Vec<String> = scene
            .fighters
            .iter()
            .filter(|f| f.region == Some(r))
            .map(|f| {
                let state = match f.status {
                    Status::Fighting => String::new(),
                    Status::Incapacitated => ", Incapacitated".into(),
                };
                // With factions (§6), the faction first, then the side it fights in now.
                let side = match f.faction.and_then(|x| scene.setup.factions.get(usize::from(x))) {
                    Some(faction) => format!("{}, {}", faction.name, scene.side_name(f.side)),
                    None => scene.side_name(f.side).to_owned(),
                };
                format!("{} ({side}, {}/{} hits{state})", f.sheet.name, f.hits, f.sheet.max_hits)
            })
            .collect();
        here.extend(
            scene
                .minions
                .iter()
                .filter(|m| m.region == r && m.count > 0)
                .map(|m| format!("{} {} ({})", m.count, m.stats.name, scene.side_name(m.side))),
        );
        let duel = scene
            .duel_in(r)
            .map(|d| format!(" — Duel, Flow {:+}", scene.duels[usize::from(d)].flow))
            .unwrap_or_default();
        let effect = if effect.name.is_empty() { String::new() } else { format!(" [{}]", effect.name) };
        writeln!(
            out,
            "  {}{effect}{duel}: {}",
            scene.region_name(r),
            if here.is_empty() { "nobody".into() } else { here.join(", ") }
        )?;
    }
    writeln!(
        out,
        "  Crisis: {}{}",
        scene.crisis,
        scene
            .strikes
            .map(|s| format!("; Strikes: {} {}, {} {}", scene.side_name(0), s[0], scene.side_name(1), s[1]))
            .unwrap_or_default()
    )?;
    Ok(())
}

/// What a seat sees before deciding.
pub fn seat_view(scene: &Scene, view: &SceneView, out: &mut dyn Write) -> anyhow::Result<()> {
    let scene = &*escaped(scene);
    map(scene, out)?;
    for f in &view.fighters {
        if let Face::Known(a) = &f.declared
            && !f.acted
        {
            writeln!(out, "  {} declared: {}", escape(&f.name), action(scene, f.id, a))?;
        }
    }
    Ok(())
}

/// The end of the scene.
pub fn summary(scene: &Scene, out: &mut dyn Write) -> anyhow::Result<()> {
    let scene = &*escaped(scene);
    writeln!(out, "\nAfter {} round(s):", scene.round)?;
    map(scene, out)?;
    for f in &scene.fighters {
        if f.doomed {
            writeln!(out, "  {} must die before the next Action or Conflict scene.", f.sheet.name)?;
        }
    }
    Ok(())
}
