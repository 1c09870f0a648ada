//! Inciting Incident views in words: the opening map, what a seat sees before it decides, and
//! the closing lines (the events' narration is the ruleset's own).

use std::borrow::Cow;
use std::io::Write;

use crate::input::escape;

use inciting_incident::narrate::action;
use inciting_incident::view::SceneView;
use inciting_incident::{Scene, Status};
use table::Face;

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
        "Sides: {} (a positive Flow of Battle is their way) against {}.",
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
pub fn summary(scene: &Scene, viewer: table::Viewer, out: &mut dyn Write) -> anyhow::Result<()> {
    let scene = &*escaped(scene);
    // Who won, in the viewer's words, with the Flow and the losses: the rules crate's one
    // reading of the end.
    if let Some(w) = inciting_incident::outcome::who_won(scene, viewer) {
        writeln!(out, "\n{}", escape(&w.headline))?;
        for line in &w.summary {
            writeln!(out, "  {}", escape(line))?;
        }
    }
    let rounds = if scene.round == 1 { "round" } else { "rounds" };
    writeln!(out, "\nAfter {} {rounds}:", scene.round)?;
    map(scene, out)?;
    Ok(())
}
