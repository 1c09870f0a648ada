//! The readable log of `facedown nodice play`: every event as the spectator sees it (face-down
//! cards stay face down), in words or as JSON lines.

use crate::input::Shown;
use std::io::Write;

use nodice::{Aspect, Attribute, Conflict, ConflictView, Event, Kind, NoDice, Status};
use table::{Face, Ruleset, Table, Viewer};

/// Prints the log as it grows, keeping its own copy of the state to describe each event.
pub struct Narrator {
    shadow: Conflict,
    printed: usize,
    json: bool,
}

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

impl Narrator {
    /// A narrator that prints the whole log.
    pub fn from_start(table: &Table<NoDice>, json: bool) -> Self {
        Narrator { shadow: table.initial().clone(), printed: 0, json }
    }

    /// A narrator that prints only what comes after now (a resumed game).
    pub fn from_now(table: &Table<NoDice>, json: bool) -> Self {
        Narrator { shadow: table.state().clone(), printed: table.log().len(), json }
    }

    /// Prints the events not printed yet.
    pub fn catch_up(&mut self, table: &Table<NoDice>, out: &mut dyn Write) -> anyhow::Result<()> {
        for event in &table.log()[self.printed..] {
            let public = NoDice::redact(&self.shadow, event, Viewer::Spectator);
            // The words are the ruleset's (read on the state before the event); this shell
            // only escapes them, line by line (names come from files).
            let lines = if self.json {
                Vec::new()
            } else {
                nodice::narrate::narrate_lines(&self.shadow, &public, Viewer::Spectator)
            };
            NoDice::apply(&mut self.shadow, event);
            if self.json {
                writeln!(out, "{}", self.json_line(&public)?)?;
            } else {
                for line in &lines {
                    writeln!(out, "{}", Shown(line))?;
                }
            }
            self.printed += 1;
        }
        Ok(())
    }

    fn json_line(&self, e: &Event) -> anyhow::Result<String> {
        let c = &self.shadow;
        Ok(match e {
            Event::AspectsRevealed => serde_json::to_string(&serde_json::json!({
                "aspects_revealed": c.order.iter().filter_map(|&a| c.actors[a.index()].aspect.value().map(|card| {
                    serde_json::json!({"actor": a, "aspect": card.aspect, "ante": card.ante})
                })).collect::<Vec<_>>(),
                "trine_wins": c.order.iter().map(|&a| (a, c.actors[a.index()].trine_wins)).collect::<Vec<_>>(),
            }))?,
            Event::ActionsRevealed => serde_json::to_string(&serde_json::json!({
                "actions_revealed": c.order.iter().filter_map(|&a| c.actors[a.index()].action.value().map(|card| {
                    serde_json::json!({"actor": a, "card": card})
                })).collect::<Vec<_>>(),
                "showdown": c.showdown,
            }))?,
            other => serde_json::to_string(other)?,
        })
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
                    Some(ts) => format!("{} (TS {ts}): {}", x, vals.join(" ")),
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
    writeln!(out, "After {} Hand(s):", view.hand)?;
    for a in &view.actors {
        let status = status_text(a.status);
        writeln!(out, "  {}: {status}; {}", Shown(&a.name), values(a))?;
    }
    Ok(())
}
