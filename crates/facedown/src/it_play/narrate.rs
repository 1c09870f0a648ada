//! The readable log: events as plain sentences (or JSON lines), redacted for a spectator, and
//! the views shown to a seat before it decides.

use std::io::Write;

use iron_triangle::conflict::{Phase, side_name};
use iron_triangle::turn::{Decided, Outcome};
use iron_triangle::view::{ConflictView, FighterView, PhaseView};
use iron_triangle::{Action, Conflict, Event, FighterId, IronTriangle, Play, Status};
use table::{Face, Ruleset, Table, Viewer};

/// Prints the events of a table as they happen, each as everyone may see it.
///
/// It keeps a copy of the state the next event applies to, because redaction looks at the
/// state before the event.
pub struct Narrator {
    shadow: Conflict,
    printed: usize,
    json: bool,
}

impl Narrator {
    /// A narrator that starts at the first event of `table` (a new game).
    pub fn from_start(table: &Table<IronTriangle>, json: bool) -> Self {
        Narrator { shadow: table.initial().clone(), printed: 0, json }
    }

    /// A narrator that starts after the events already in `table` (a resumed game).
    pub fn from_now(table: &Table<IronTriangle>, json: bool) -> Self {
        Narrator { shadow: table.state().clone(), printed: table.log().len(), json }
    }

    /// Prints every event of `table` not printed yet.
    pub fn catch_up(&mut self, table: &Table<IronTriangle>, out: &mut dyn Write) -> anyhow::Result<()> {
        let log = table.log();
        while self.printed < log.len() {
            let event = &log[self.printed];
            let redacted = IronTriangle::redact(&self.shadow, event, Viewer::Spectator);
            let before = self.shadow.clone();
            IronTriangle::apply(&mut self.shadow, event);
            self.printed += 1;
            if self.json {
                let line = match &redacted {
                    Some(e) => serde_json::to_string(e)?,
                    None => hidden_json(event)?,
                };
                writeln!(out, "{line}")?;
            } else {
                for s in sentences(&before, &self.shadow, event, redacted.as_ref()) {
                    writeln!(out, "{s}")?;
                }
            }
        }
        out.flush()?;
        Ok(())
    }
}

/// The JSON line of an event hidden from spectators: its serde form without the hidden value.
fn hidden_json(event: &Event) -> anyhow::Result<String> {
    let mut v = serde_json::to_value(event)?;
    if let Some(map) = v.as_object_mut() {
        map.remove("stance");
        map.remove("play");
    }
    Ok(serde_json::to_string(&v)?)
}

fn name(c: &Conflict, id: FighterId) -> String {
    c.fighters.get(usize::from(id.0)).map_or_else(|| format!("character #{}", id.0), |f| f.name().to_owned())
}

/// A move or surrender with the player's name for it.
fn play_text(c: &Conflict, id: FighterId, play: Play) -> String {
    match play {
        Play::Surrender => "surrender".to_owned(),
        Play::Move(m) => match c.fighters.get(usize::from(id.0)) {
            Some(f) => {
                let n = f.character.move_name(m);
                if n == m.to_string() { n } else { format!("{n} {m}") }
            }
            None => m.to_string(),
        },
    }
}

/// The sentences telling one event. `before` and `after` are the states around it;
/// `redacted` is the event as a spectator sees it (`None`: hidden).
fn sentences(before: &Conflict, after: &Conflict, event: &Event, redacted: Option<&Event>) -> Vec<String> {
    let pair = || match &before.phase {
        Phase::Turn(t) => t.pair().unwrap_or([t.active; 2]),
        Phase::Aftermath(a) => a.pair,
        _ => [FighterId(0); 2],
    };
    match (*event, redacted) {
        (Event::StanceCommitted { fighter, .. }, None) => {
            vec![format!("{} commits a stance face down.", name(before, fighter))]
        }
        (Event::MoveCommitted { fighter, .. }, None) => {
            vec![format!("{} commits a move face down.", name(before, fighter))]
        }
        (Event::StanceCommitted { fighter, stance }, Some(_)) => {
            vec![format!("{} commits the stance {stance}.", name(before, fighter))]
        }
        (Event::MoveCommitted { fighter, play }, Some(_)) => {
            vec![format!("{} commits the move {}.", name(before, fighter), play_text(before, fighter, play))]
        }
        (Event::TurnBegan { active }, _) => {
            let f = &after.fighters[usize::from(active.0)];
            vec![
                String::new(),
                format!(
                    "Turn {}: {} ({}) takes the turn. Energy {}.",
                    after.turn_number,
                    f.name(),
                    after.seat_name(f.seat),
                    f.energy
                ),
            ]
        }
        (Event::OpponentChosen { opponent }, _) => {
            let active = pair()[0];
            let o = &after.fighters[usize::from(opponent.0)];
            vec![format!("{} faces {} (energy {}).", name(before, active), o.name(), o.energy)]
        }
        (Event::ComboEnded { by }, _) => {
            vec![format!("{} ends the combo; its cards return to hand.", name(before, by))]
        }
        (Event::StancesRevealed { stances }, _) => {
            let p = pair();
            vec![format!(
                "Stances revealed: {} {}, {} {}.",
                name(before, p[0]),
                stances[0],
                name(before, p[1]),
                stances[1]
            )]
        }
        (Event::MovesRevealed { plays }, _) => {
            let p = pair();
            vec![format!(
                "Moves revealed: {} plays {}, {} plays {}.",
                name(before, p[0]),
                play_text(before, p[0], plays[0]),
                name(before, p[1]),
                play_text(before, p[1], plays[1])
            )]
        }
        (Event::TurnResolved { result }, _) => {
            let p = pair();
            let plays = match &after.phase {
                Phase::Aftermath(a) => a.plays,
                _ => [Play::Surrender; 2],
            };
            let mut out = Vec::new();
            for (id, disadvantaged) in p.iter().zip(result.disadvantaged) {
                if disadvantaged {
                    out.push(format!("{}'s move is disadvantaged (§5.4).", name(before, *id)));
                }
            }
            match result.outcome {
                Outcome::Win { winner } => {
                    let (w, l) = (p[winner], p[1 - winner]);
                    let combo = if result.combo_continued { " and continues the combo" } else { "" };
                    let why = match (plays[winner].as_move(), plays[1 - winner].as_move(), result.decided_by)
                    {
                        (Some(wm), Some(lm), Decided::Action) => {
                            format!(" ({} beats {})", wm.action(), lm.action())
                        }
                        (Some(wm), Some(lm), Decided::Element) => {
                            format!(" ({} beats {})", wm.element(), lm.element())
                        }
                        (_, _, Decided::Disadvantage) => " (the other move was disadvantaged)".to_owned(),
                        _ => String::new(),
                    };
                    out.push(format!(
                        "{} wins the turn with {}{combo}{why}.",
                        name(before, w),
                        play_text(before, w, plays[winner])
                    ));
                    let loss = result.losses[1 - winner];
                    out.push(format!(
                        "{} loses {}: winner's stance {} + own stance {} + base {} + combo {} + disadvantage {}.",
                        name(before, l),
                        loss.total(),
                        loss.winner_stance,
                        loss.own_stance,
                        loss.base,
                        loss.combo,
                        loss.disadvantage
                    ));
                }
                Outcome::Tie => {
                    out.push(format!(
                        "Tie: {} loses {} and {} loses {} (each the base of the other's move).",
                        name(before, p[0]),
                        result.losses[0].total(),
                        name(before, p[1]),
                        result.losses[1].total()
                    ));
                }
                Outcome::Surrender { surrendered } => {
                    let who: Vec<String> =
                        (0..2).filter(|&i| surrendered[i]).map(|i| name(before, p[i])).collect();
                    out.push(format!(
                        "{} {} and {} the conflict; nobody loses energy this turn.",
                        who.join(" and "),
                        if who.len() > 1 { "surrender" } else { "surrenders" },
                        if who.len() > 1 { "leave" } else { "leaves" }
                    ));
                }
            }
            out
        }
        (Event::LossTaken { fighter, taken }, _) => {
            let i = usize::from(fighter.0);
            let (b, a) = (&before.fighters[i], &after.fighters[i]);
            let mut out = vec![format!("{} takes the loss {} and has {} left.", a.name(), taken, a.energy)];
            for t in Action::ALL {
                if a.zero_marks[t.index()] && !b.zero_marks[t.index()] {
                    out.push(format!(
                        "{} is at zero {} energy {} (marked for level-up).",
                        a.name(),
                        t.name(),
                        t.symbol()
                    ));
                }
            }
            out
        }
        (Event::WentOut { fighter, dead }, _) => vec![format!(
            "{} is out of the conflict with zero energy in every type{}.",
            name(before, fighter),
            if dead { " and dies" } else { "" }
        )],
        (Event::MercyDecided { fighter, killed }, _) => {
            let winner = match &before.phase {
                Phase::Aftermath(a) => a.mercy.map(|m| name(before, m.winner)),
                _ => None,
            }
            .unwrap_or_else(|| "The winner".to_owned());
            vec![format!("{winner} {} {}.", if killed { "kills" } else { "spares" }, name(before, fighter))]
        }
        (Event::MinorConflictTied, _) => {
            vec!["The single turn of this minor conflict is a tie: the GM records the outcome.".to_owned()]
        }
        (Event::ConflictEnded { winner }, _) => vec![
            String::new(),
            match winner {
                Some(side) => format!("The conflict is over: {} wins.", side_name(side)),
                None => "The conflict is over: the GM records a draw.".to_owned(),
            },
        ],
    }
}

fn status_text(f: &FighterView) -> String {
    let mut s = match f.status {
        Status::In => "in".to_owned(),
        Status::Surrendered => "surrendered".to_owned(),
        Status::Out => "out".to_owned(),
    };
    if f.dead {
        s.push_str(", dead");
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

/// The stakes and the characters, as everyone sees them at the start.
pub fn intro(view: &ConflictView, out: &mut dyn Write) -> anyhow::Result<()> {
    let s = &view.stakes;
    writeln!(out, "Iron Triangle conflict")?;
    for (label, text) in [("Want", &s.want), ("How", &s.how), ("Consequences", &s.consequences)] {
        if !text.is_empty() {
            writeln!(out, "  {label}: {text}")?;
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
    writeln!(out, "Characters:")?;
    for f in &view.fighters {
        writeln!(
            out,
            "  {} [{}, {}] energy {}; {}",
            f.name,
            f.seat,
            side_name(f.side),
            f.energy,
            moves_text(f)
        )?;
    }
    out.flush()?;
    Ok(())
}

/// The final summary: each character's energy, marks and fate.
pub fn summary(view: &ConflictView, out: &mut dyn Write) -> anyhow::Result<()> {
    writeln!(out, "Final summary:")?;
    for f in &view.fighters {
        writeln!(
            out,
            "  {} [{}]: energy {} (maximum {}); {}",
            f.name,
            f.seat,
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
    let fname = |id: FighterId| view.fighters.get(usize::from(id.0)).map_or("?", |f| f.name.as_str());
    if view.turn_number == 0 {
        writeln!(out, "Before the first turn.")?;
    } else {
        writeln!(out, "Turn {}.", view.turn_number)?;
    }
    for f in &view.fighters {
        let mut line =
            format!("  {} [{}] energy {}; {}; {}", f.name, f.seat, f.energy, status_text(f), moves_text(f));
        if !f.disadvantage.is_empty() {
            let d: Vec<String> = f.disadvantage.iter().map(|m| m.to_string()).collect();
            line.push_str(&format!("; disadvantage chain {}", d.join(" ")));
        }
        writeln!(out, "{line}")?;
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
    writeln!(out, "  Now: {}.", view.waiting_for)?;
    Ok(())
}
