//! Iron Triangle views in words: the opening, what a seat sees before it decides, and the
//! closing summary (the events' narration is the ruleset's own).

use crate::input::Shown;
use std::io::Write;

use iron_triangle::conflict::side_name;
use iron_triangle::special::Edition;
use iron_triangle::view::{ConflictView, FighterView, PhaseView};
use iron_triangle::windows::SpecialCard;
use iron_triangle::{Action, FighterId, Play, Status};
use table::Face;

fn status_text(f: &FighterView) -> String {
    let mut s = match f.status {
        Status::In => "still in".to_owned(),
        Status::Surrendered => "surrendered".to_owned(),
        Status::Out => "out".to_owned(),
    };
    if f.dead && f.samurai {
        s.push_str(", dead: died under The Way of the Samurai");
    } else if f.dead {
        s.push_str(", dead");
    } else if f.samurai {
        s.push_str(", under The Way of the Samurai (stays in until the conflict ends, then dies)");
    }
    let marks: Vec<String> =
        Action::ALL.iter().filter(|t| f.zero_marks[t.index()]).map(|t| t.symbol().to_string()).collect();
    if !marks.is_empty() {
        s.push_str(&format!(", zero-energy marks {}", marks.join(" ")));
    }
    s
}

fn moves_text(f: &FighterView) -> String {
    match &f.moves {
        None => "moves hidden".to_owned(),
        Some(moves) => {
            let list: Vec<String> = moves.iter().map(|m| format!("{} {}", m.name, m.card)).collect();
            let mut s = format!("moves: {}", list.join(", "));
            if let Some(combos) = f.combos.as_ref().filter(|c| !c.is_empty()) {
                let c: Vec<String> = combos
                    .iter()
                    .map(|c| {
                        let f: Vec<String> = c.follow_ups.iter().map(|m| m.to_string()).collect();
                        format!("{} → {}", c.from, f.join("/"))
                    })
                    .collect();
                s.push_str(&format!("; combos: {}", c.join(", ")));
            }
            s
        }
    }
}

/// The specials a viewer may see, each used one marked; empty when there are none to show.
fn specials_text(f: &FighterView, edition: Edition) -> String {
    match &f.specials {
        Some(list) if !list.is_empty() => {
            let used = f.specials_used.as_deref().unwrap_or_default();
            let names: Vec<String> = list
                .iter()
                .map(|s| {
                    let n = s.name(edition);
                    if used.contains(s) { format!("{n} (used)") } else { n }
                })
                .collect();
            format!("; specials: {}", names.join(", "))
        }
        _ => String::new(),
    }
}

/// The stakes and the characters, as everyone sees them at the start.
pub fn intro(view: &ConflictView, out: &mut dyn Write) -> anyhow::Result<()> {
    let s = &view.stakes;
    writeln!(out, "Iron Triangle conflict")?;
    for (label, text) in [("Want", &s.want), ("How", &s.how), ("Consequences", &s.consequences)] {
        if !text.is_empty() {
            writeln!(out, "  {label}: {}", Shown(text))?;
        }
    }
    let mut flags = Vec::new();
    if s.lethal {
        flags.push("lethal: characters out of energy die");
    }
    if s.minor {
        flags.push("minor: a single turn decides it");
    }
    if !flags.is_empty() {
        writeln!(out, "  ({})", flags.join("; "))?;
    }
    if view.edition == Edition::Earlier {
        writeln!(out, "  (the earlier edition of the rules)")?;
    }
    writeln!(out, "Characters:")?;
    for f in &view.fighters {
        let line = format!(
            "  {} [{}, {}] energy {}; {}{}",
            f.name,
            f.seat,
            side_name(f.side),
            f.energy,
            moves_text(f),
            specials_text(f, view.edition)
        );
        writeln!(out, "{}", Shown(&line))?;
    }
    out.flush()?;
    Ok(())
}

/// The final summary: each character's energy, marks and fate.
pub fn summary(view: &ConflictView, out: &mut dyn Write) -> anyhow::Result<()> {
    // Who won, in the viewer's words: the rules crate's one reading of the end.
    if let Some(w) = &view.who_won {
        writeln!(out, "{}", Shown(&w.headline))?;
    }
    writeln!(out, "Final summary:")?;
    for line in view.who_won.iter().flat_map(|w| &w.summary) {
        writeln!(out, "  {}", Shown(line))?;
    }
    for f in &view.fighters {
        writeln!(
            out,
            "  {} [{}]: energy {} (maximum {}); {}",
            Shown(&f.name),
            Shown(&f.seat),
            f.energy,
            f.max_energy,
            status_text(f)
        )?;
    }
    out.flush()?;
    Ok(())
}

/// What a seat sees before it decides: every character, the turn so far, the chains.
pub fn seat_view(view: &ConflictView, out: &mut dyn Write) -> anyhow::Result<()> {
    let fname = |id: FighterId| Shown(view.fighters.get(usize::from(id.0)).map_or("?", |f| f.name.as_str()));
    if view.turn_number == 0 {
        writeln!(out, "Before the first turn.")?;
    } else {
        writeln!(out, "Turn {}.", view.turn_number)?;
    }
    for f in &view.fighters {
        let mut line = format!(
            "  {} [{}] energy {}; {}; {}{}",
            f.name,
            f.seat,
            f.energy,
            status_text(f),
            moves_text(f),
            specials_text(f, view.edition)
        );
        if !f.disadvantage.is_empty() {
            let d: Vec<String> = f.disadvantage.iter().map(|m| m.to_string()).collect();
            line.push_str(&format!("; disadvantage chain {}", d.join(" ")));
        }
        writeln!(out, "{}", Shown(&line))?;
    }
    if let Some(c) = &view.combo {
        let cards: Vec<String> = c.cards.iter().map(|k| format!("{} ({})", k.card, fname(k.by))).collect();
        writeln!(
            out,
            "  Combo chain of {} against {}: {}",
            side_name(c.side),
            fname(c.against),
            cards.join(", ")
        )?;
    }
    if let PhaseView::Turn { active, opponent: Some(opp), stances, plays, .. } = &view.phase {
        let face = |f: String, committed: bool| if committed { f } else { "—".to_owned() };
        let stance = |s: Face<iron_triangle::Stance>| match s {
            Face::Known(s) => face(s.to_string(), true),
            Face::FaceDown => "face down".to_owned(),
            Face::Empty => face(String::new(), false),
        };
        let play = |p: Face<Play>| match p {
            Face::Known(p) => p.to_string(),
            Face::FaceDown => "face down".to_owned(),
            Face::Empty => "—".to_owned(),
        };
        writeln!(
            out,
            "  {} vs {}: stances {} / {}; moves {} / {}",
            fname(*active),
            fname(*opp),
            stance(stances[0]),
            stance(stances[1]),
            play(plays[0]),
            play(plays[1])
        )?;
    }
    for [a, b] in &view.bonds {
        writeln!(out, "  {} and {} face only each other (There Can Be Only One).", fname(*a), fname(*b))?;
    }
    if let PhaseView::Turn { active, opponent, forbidden, window, .. } = &view.phase {
        let pair = [Some(*active), *opponent];
        for (who, action) in pair.iter().zip(forbidden) {
            if let (Some(who), Some(a)) = (who, action) {
                writeln!(
                    out,
                    "  {} may not play {} {} moves this turn (I Already Know).",
                    fname(*who),
                    a.name(),
                    a.symbol()
                )?;
            }
        }
        if let Some(w) = window {
            let slot = |f: &Face<Option<SpecialCard>>| match f {
                Face::Empty => "to choose".to_owned(),
                Face::FaceDown => "chosen, face down".to_owned(),
                Face::Known(card) => format!("{} (yours)", card_text(view, *card)),
            };
            let first: Vec<String> = w
                .participants
                .iter()
                .zip(&w.first)
                .map(|(p, f)| format!("{}: {}", fname(*p), slot(f)))
                .collect();
            let mut line = format!("  The {} window: {}", w.window.name(), first.join(", "));
            if let Some(n) = w.count {
                let responses: Vec<String> = w
                    .participants
                    .iter()
                    .zip(&w.response)
                    .filter(|(_, f)| **f != Face::Empty)
                    .map(|(p, f)| format!("{}: {}", fname(*p), slot(f)))
                    .collect();
                line.push_str(&format!("; {n} card{} face down", if n == 1 { "" } else { "s" }));
                if !responses.is_empty() {
                    line.push_str(&format!("; responses: {}", responses.join(", ")));
                }
            }
            writeln!(out, "{}.", Shown(&line))?;
        }
    }
    writeln!(out, "  Now: {}.", Shown(&view.waiting_for))?;
    Ok(())
}

/// A card as the players call it: "pass", "Scouter", "There Can Be Only One Kuro".
fn card_text(view: &ConflictView, card: Option<SpecialCard>) -> String {
    let name = |t: FighterId| {
        view.fighters.get(usize::from(t.0)).map_or_else(|| format!("#{}", t.0), |f| f.name.clone())
    };
    match card {
        None => "pass".to_owned(),
        Some(c) => {
            let special = match c.copy {
                Some(copied) => format!("{} {}", c.special.name(view.edition), copied.name(view.edition)),
                None => c.special.name(view.edition),
            };
            match c.target {
                Some(t) => format!("{special} {}", name(t)),
                None => special,
            }
        }
    }
}
