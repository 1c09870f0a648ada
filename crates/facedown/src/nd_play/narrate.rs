//! The readable log of `facedown nodice play`: every event as the spectator sees it (face-down
//! cards stay face down), in words or as JSON lines.

use crate::input::Shown;
use std::io::Write;

use nodice::rules::{TokenFate, Void};
use nodice::{ActorId, Aspect, Attribute, Conflict, ConflictView, Ending, Event, Kind, NoDice, Status};
use table::{Face, Ruleset, Table, Viewer};

/// Prints the log as it grows, keeping its own copy of the state to describe each event.
pub struct Narrator {
    shadow: Conflict,
    printed: usize,
    json: bool,
}

/// An Actor's name as printed: control characters escaped (names come from files).
fn name(c: &Conflict, id: ActorId) -> std::borrow::Cow<'_, str> {
    crate::input::escape(c.actor(id).map(|a| a.sheet.name.as_str()).unwrap_or("?"))
}

fn targets(c: &Conflict, t: nodice::Targets) -> String {
    t.iter().map(|a| name(c, a)).collect::<Vec<_>>().join(", ")
}

/// "a" or "an", as fits the word (by its first letter: the names read as words).
fn a(word: &str) -> &'static str {
    if word.starts_with(['A', 'E', 'I', 'O', 'U', 'a', 'e', 'i', 'o', 'u']) { "an" } else { "a" }
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

fn spread_text(aspect: Aspect, spread: [u16; 3]) -> String {
    let parts: Vec<String> = aspect
        .attributes()
        .iter()
        .zip(spread)
        .filter(|(_, d)| *d > 0)
        .map(|(a, d)| format!("{a} −{d}"))
        .collect();
    if parts.is_empty() { "nothing".to_owned() } else { parts.join(", ") }
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
            NoDice::apply(&mut self.shadow, event);
            if self.json {
                writeln!(out, "{}", self.json_line(&public)?)?;
            } else {
                self.describe(&public, out)?;
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

    fn describe(&self, e: &Event, out: &mut dyn Write) -> anyhow::Result<()> {
        let c = &self.shadow;
        match e {
            Event::HandStarted { hand, utg } => {
                writeln!(out, "\n=== Hand {hand} — Stakes {} — UTG: {} ===", c.stakes, name(c, *utg))?
            }
            Event::HandEnded { next_utg } => {
                writeln!(out, "Bids return to the stacks.")?;
                writeln!(
                    out,
                    "\n=== Hand {} — Stakes {} — UTG: {} ===",
                    c.hand,
                    c.stakes,
                    name(c, *next_utg)
                )?;
                if !c.clusters.is_empty() {
                    writeln!(out, "--- Cluster {} — UTG: {} ---", c.cluster + 1, name(c, *next_utg))?;
                }
            }
            Event::AspectCommitted { actor, targets: t, intent, .. } => {
                write!(
                    out,
                    "{} antes and plays an Aspect card face down, targeting {}",
                    name(c, *actor),
                    targets(c, *t)
                )?;
                match intent {
                    Some(i) => writeln!(out, ": \"{}\"", Shown(i))?,
                    None => writeln!(out, ".")?,
                }
            }
            Event::Withdrew { actor } => {
                writeln!(out, "{} will not ante and withdraws from the Conflict.", name(c, *actor))?
            }
            Event::CouldNotAnte { actor } => writeln!(
                out,
                "{} cannot ante {} chips from any Attribute: eliminated.",
                name(c, *actor),
                c.stakes.value()
            )?,
            Event::AspectsRevealed => {
                writeln!(out, "Reveal:")?;
                for &a in &c.order {
                    if let Some(card) = c.actors[a.index()].aspect.value() {
                        writeln!(
                            out,
                            "  {} played {} (ante {} {}), {} TD win(s)",
                            name(c, a),
                            card.aspect,
                            c.ante_amount(a),
                            card.ante,
                            c.actors[a.index()].trine_wins
                        )?;
                    }
                }
                let pot: u16 = c.pot.iter().sum();
                writeln!(out, "  The pot holds {pot} token(s).")?;
            }
            Event::TokenPaid { to, attribute, fate, .. } => match fate {
                TokenFate::Kept => {
                    let n = attribute.name();
                    writeln!(out, "  Pot: {} {n} token to {}.", a(n), name(c, *to))?
                }
                TokenFate::ToJackpot => {
                    let n = attribute.name();
                    writeln!(
                        out,
                        "  Pot: {} {n} token drawn for {}, who has no {n}: to the Jackpot.",
                        a(n),
                        name(c, *to)
                    )?
                }
            },
            Event::PotToJackpot => {
                writeln!(out, "  Nobody won Trine Dominance: the pot becomes the Jackpot.")?
            }
            Event::ActionCommitted { actor, open_bid, .. } => match open_bid {
                Some(b) => {
                    writeln!(out, "{} plays an Action card face down and bids {b} face up.", name(c, *actor))?
                }
                None => writeln!(out, "{} plays an Action card and bids, face down.", name(c, *actor))?,
            },
            Event::ActionsRevealed => {
                writeln!(out, "Reveal:")?;
                for &a in &c.order {
                    if let Some(card) = c.actors[a.index()].action.value() {
                        writeln!(
                            out,
                            "  {} played {} and bid {}{}",
                            name(c, a),
                            card.attribute.name(),
                            card.bid,
                            if card.wildcard { " with a Wildcard" } else { "" }
                        )?;
                    }
                }
                for p in &c.showdown.pairs {
                    let [x, y] = p.actors;
                    let who = |d: nodice::Dominance| match d {
                        nodice::Dominance::Win => name(c, x).into_owned(),
                        nodice::Dominance::Loss => name(c, y).into_owned(),
                        nodice::Dominance::Tie => "tie".to_owned(),
                    };
                    let sweep = match p.sweep {
                        [true, _] => format!(", Sweep for {}", name(c, x)),
                        [_, true] => format!(", Sweep for {}", name(c, y)),
                        _ => String::new(),
                    };
                    writeln!(
                        out,
                        "  {} vs {}: TD {}, AD {}{sweep}; Showdown Totals {} – {}",
                        name(c, x),
                        name(c, y),
                        who(p.trine),
                        who(p.attribute),
                        p.totals[0],
                        p.totals[1]
                    )?;
                }
            }
            Event::Struck { strike, damage } => {
                if let Some(s) = c.showdown.strikes.get(usize::from(*strike)) {
                    let how = if s.unopposed { " (first, unopposed)" } else { "" };
                    if *damage == 0 {
                        writeln!(out, "{} → {}: no damage{how}.", name(c, s.attacker), name(c, s.target))?;
                    } else {
                        writeln!(
                            out,
                            "{} → {}: {damage} {} damage{how}.",
                            name(c, s.attacker),
                            name(c, s.target),
                            s.aspect
                        )?;
                    }
                }
            }
            Event::StrikeVoid { strike, why } => {
                if let Some(s) = c.showdown.strikes.get(usize::from(*strike)) {
                    let why = match why {
                        Void::AttackerOut => "it is out before its turn",
                        Void::TargetOut => "the target is out",
                    };
                    writeln!(out, "{} → {}: nothing, {why}.", name(c, s.attacker), name(c, s.target))?;
                }
            }
            Event::DamageTaken { actor, aspect, spread, exhausted } => {
                writeln!(out, "  {} takes it: {}.", name(c, *actor), spread_text(*aspect, *spread))?;
                if let Some(x) = exhausted {
                    writeln!(out, "  {} has no {x} left: eliminated.", name(c, *actor))?;
                }
            }
            Event::TokensRefreshed => {}
            Event::Eliminated { actor, status } => {
                let why = match status {
                    Status::Exhausted(x) => format!("every {x} Attribute at 0"),
                    _ => "an extension's Elimination Check".to_owned(),
                };
                writeln!(out, "{} is eliminated: {why}.", name(c, *actor))?;
            }
            Event::Engaged { clusters } => {
                if clusters.is_empty() {
                    writeln!(out, "The GM engages every Actor: one Hand for all.")?;
                } else {
                    let list: Vec<String> = clusters
                        .iter()
                        .enumerate()
                        .map(|(k, cl)| format!("cluster {}: {}", k + 1, targets(c, *cl)))
                        .collect();
                    writeln!(
                        out,
                        "The GM splits the brawl ({}); each cluster plays the Hand on its own, the others sit it out.",
                        list.join("; ")
                    )?;
                    writeln!(out, "--- Cluster 1 — UTG: {} ---", name(c, c.utg))?;
                }
            }
            Event::ClusterEnded => writeln!(
                out,
                "The cluster has no opposition left: its Hand ends, the face-down cards go back."
            )?,
            Event::ClusterStarted { cluster, utg } => {
                writeln!(out, "Bids return to the stacks.")?;
                writeln!(out, "--- Cluster {} — UTG: {} ---", cluster + 1, name(c, *utg))?
            }
            Event::Justified { actor, line, .. } => {
                writeln!(out, "  {} justifies: \"{line}\"", name(c, *actor))?
            }
            Event::ConflictEnded { ending } => {
                let how = match ending {
                    Ending::OneSideLeft(Some(side)) => {
                        let names: Vec<&str> = c
                            .actors
                            .iter()
                            .filter(|a| a.sheet.side == *side && a.is_in())
                            .map(|a| a.sheet.name.as_str())
                            .collect();
                        format!("only {} remain(s)", names.join(", "))
                    }
                    Ending::OneSideLeft(None) => "nobody remains".to_owned(),
                    Ending::Fiction => "the GM ends it: the fiction has resolved the objective".to_owned(),
                    Ending::Extension => "an extension ends it".to_owned(),
                    Ending::Stalemate(n) => {
                        format!("a stalemate: {n} Hands in a row without damage or elimination")
                    }
                };
                writeln!(out, "\n=== The Conflict is over: {how}. ===")?;
            }
        }
        Ok(())
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
