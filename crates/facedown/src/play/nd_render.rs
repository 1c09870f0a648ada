//! No Dice views in words: the opening, what a seat sees before it decides, and the closing
//! lines (the events' narration is the ruleset's own).

use crate::input::Shown;
use std::io::Write;

use nodice::{Aspect, Attribute, ConflictView, Kind, Status};
use table::Face;

/// Why an Actor is out, in words.
fn status_text(status: Status) -> String {
    match status {
        Status::In => "still in".to_owned(),
        Status::Withdrew => "withdrew".to_owned(),
        Status::CouldNotAnte => "could not ante".to_owned(),
        Status::Exhausted(x) => format!("eliminated, {x} exhausted"),
        Status::Removed => "removed".to_owned(),
    }
}

fn values(v: &nodice::view::ActorView) -> String {
    match v.stacks {
        None => "stat block hidden (GM only)".to_owned(),
        Some(stacks) => Aspect::ALL
            .iter()
            .map(|&x| {
                let ts = v.trine_scores.and_then(|t| t[x.index()]);
                let vals: Vec<String> = x
                    .attributes()
                    .iter()
                    .map(|a: &Attribute| match stacks[a.index()] {
                        Some(n) => format!("{a} {n}"),
                        None => format!("{a} -"),
                    })
                    .collect();
                match ts {
                    Some(ts) => format!("{} (Trine Score {ts}): {}", x, vals.join(" ")),
                    None => format!("{x}: -"),
                }
            })
            .collect::<Vec<_>>()
            .join(" | "),
    }
}

/// The opening lines: Stakes and the Actors as the spectator sees them.
pub fn intro(view: &ConflictView, scene: Option<&str>, out: &mut dyn Write) -> anyhow::Result<()> {
    writeln!(out, "No Dice Conflict — Stakes {} ({})", view.stakes, view.stakes_name)?;
    if let Some(s) = scene {
        writeln!(out, "{}", Shown(s))?;
    }
    for a in &view.actors {
        let kind = match a.kind {
            Kind::Pc => "PC",
            Kind::Npc => "NPC",
            Kind::Abstract => "abstract",
        };
        writeln!(
            out,
            "  {} ({kind}, seat {}, side {}): {}",
            Shown(&a.name),
            Shown(&a.seat),
            a.side.0,
            a.serial.as_deref().unwrap_or("Rank hidden")
        )?;
    }
    Ok(())
}

/// What a seat sees before deciding: its Actors' chips and cards, and the others'.
pub fn seat_view(view: &ConflictView, seat: &str, out: &mut dyn Write) -> anyhow::Result<()> {
    writeln!(
        out,
        "Hand {}, Stakes {} ({}). Pot {} token(s), Jackpot {}.",
        view.hand,
        view.stakes,
        view.stakes_name,
        view.pot.iter().sum::<u16>(),
        view.jackpot.iter().sum::<u16>()
    )?;
    for a in &view.actors {
        let mine = if a.seat == seat { " (yours)" } else { "" };
        let status =
            if a.status == Status::In { String::new() } else { format!(" (out: {})", status_text(a.status)) };
        writeln!(out, "  {}{mine}{status}: {}", Shown(&a.name), values(a))?;
        if let Some(w) = a.wildcards.filter(|&w| w > 0) {
            writeln!(out, "    Wildcards left: {w}")?;
        }
        match a.aspect {
            Face::Known(card) => writeln!(
                out,
                "    Aspect card: {} (ante {}), targets {}",
                card.aspect,
                card.ante,
                a.targets
                    .iter()
                    .map(|t| Shown(&view.actors[t.index()].name).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )?,
            Face::FaceDown => writeln!(out, "    Aspect card: face down")?,
            Face::Empty => {}
        }
        if let Some(i) = &a.intent {
            writeln!(out, "    Intent: \"{}\"", Shown(i))?;
        }
        match a.action {
            Face::Known(card) => writeln!(
                out,
                "    Action card: {} bid {}{}",
                card.attribute,
                card.bid,
                if card.wildcard { " + Wildcard" } else { "" }
            )?,
            Face::FaceDown => match a.open_bid {
                Some(b) => writeln!(out, "    Action card: face down, bid {b} face up")?,
                None => writeln!(out, "    Action card: face down")?,
            },
            Face::Empty => {}
        }
    }
    Ok(())
}

/// The closing lines: who is left.
pub fn summary(view: &ConflictView, out: &mut dyn Write) -> anyhow::Result<()> {
    // Who won, in the viewer's words: the rules crate's one reading of the end.
    if let Some(w) = &view.who_won {
        writeln!(out, "{}", Shown(&w.headline))?;
        for line in &w.summary {
            writeln!(out, "  {}", Shown(line))?;
        }
    }
    writeln!(out, "After {} {}:", view.hand, if view.hand == 1 { "Hand" } else { "Hands" })?;
    for a in &view.actors {
        let status = status_text(a.status);
        writeln!(out, "  {}: {status}; {}", Shown(&a.name), values(a))?;
    }
    Ok(())
}
