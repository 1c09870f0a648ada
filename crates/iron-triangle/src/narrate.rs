//! Narration: each event in the book's words, for one viewer (§5–§6 of
//! `shared/rules/iron-triangle.md`). One place for every shell — the terminal, the server and
//! the browser all show this text. Plain text: a shell escapes control characters (a name read
//! from a file may hold any) before printing.

use table::Viewer;

use crate::conflict::Phase;
use crate::special::Special;
use crate::turn::{Loss, Outcome, TurnResult};
use crate::windows::SpecialCard;
use crate::{Action, Conflict, Event, FighterId, Play};

/// The lines telling `event`, as `viewer` sees it (already redacted for `viewer`: a blanked
/// stance, move or special reads "face down"), about to be applied to `before`. Empty lines
/// separate turns. Empty for nothing.
pub fn narrate_lines(before: &Conflict, event: &Event, viewer: Viewer) -> Vec<String> {
    let _ = viewer; // what the viewer may see is already in the redacted event
    let mut after = before.clone();
    after.apply(event);
    sentences(before, &after, event)
}

/// [`narrate_lines`] as one text, lines joined by `\n`; `None` when there is nothing to say.
pub fn narrate(before: &Conflict, event: &Event, viewer: Viewer) -> Option<String> {
    let lines = narrate_lines(before, event, viewer);
    if lines.is_empty() { None } else { Some(lines.join("\n")) }
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

/// The sentences telling one (redacted) event. `before` and `after` are the states around it.
fn sentences(before: &Conflict, after: &Conflict, event: &Event) -> Vec<String> {
    let pair = || match &before.phase {
        Phase::Turn(t) => t.pair().unwrap_or([t.active; 2]),
        Phase::Aftermath(a) => a.pair,
        _ => [FighterId(0); 2],
    };
    match *event {
        Event::StanceCommitted { fighter, stance: None } => {
            vec![format!("{} commits a stance face down.", name(before, fighter))]
        }
        Event::MoveCommitted { fighter, play: None } => {
            vec![format!("{} commits a move face down.", name(before, fighter))]
        }
        Event::StanceCommitted { fighter, stance: Some(stance) } => {
            vec![if stance.amount == 0 {
                format!("{} commits no stance.", name(before, fighter))
            } else {
                format!("{} commits the stance {stance}.", name(before, fighter))
            }]
        }
        Event::MoveCommitted { fighter, play: Some(play) } => {
            vec![format!("{} commits the move {}.", name(before, fighter), play_text(before, fighter, play))]
        }
        Event::TurnBegan { active } => {
            let f = &after.fighters[usize::from(active.0)];
            vec![
                String::new(),
                format!(
                    "Turn {}: {}{} takes the turn. Energy {}.",
                    after.turn_number,
                    f.name(),
                    // Who plays it, when its name does not say: "Kuro (the GM)", "Ren (Jo)".
                    match after.seat_name(f.seat) {
                        _ if after.is_gm(f.seat) => " (the GM)".to_owned(),
                        seat if seat.eq_ignore_ascii_case(f.name()) => String::new(),
                        seat => format!(" ({seat})"),
                    },
                    f.energy
                ),
            ]
        }
        Event::OpponentChosen { opponent } => {
            let active = pair()[0];
            let o = &after.fighters[usize::from(opponent.0)];
            vec![format!("{} faces {} (energy {}).", name(before, active), o.name(), o.energy)]
        }
        Event::ComboEnded { by } => {
            vec![format!("{} ends the combo; its cards return to hand.", name(before, by))]
        }
        Event::StancesRevealed { stances } => {
            let p = pair();
            vec![format!(
                "Stances revealed: {} {}, {} {}.",
                name(before, p[0]),
                stances[0],
                name(before, p[1]),
                stances[1]
            )]
        }
        Event::MovesRevealed { plays } => {
            let p = pair();
            vec![format!(
                "Moves revealed: {} plays {}, {} plays {}.",
                name(before, p[0]),
                play_text(before, p[0], plays[0]),
                name(before, p[1]),
                play_text(before, p[1], plays[1])
            )]
        }
        Event::TurnResolved { result } => {
            let p = pair();
            let plays = match &after.phase {
                Phase::Aftermath(a) => a.plays,
                _ => [Play::Surrender; 2],
            };
            let mut out = Vec::new();
            for (id, disadvantaged) in p.iter().zip(result.disadvantaged) {
                if disadvantaged {
                    out.push(format!("{}'s move is disadvantaged.", name(before, *id)));
                }
            }
            match result.outcome {
                Outcome::Win { winner } => {
                    let w = p[winner];
                    let combo = if result.combo_continued { " and continues the combo" } else { "" };
                    // Why, in the words of the one reading of a turn's result.
                    let why = match &after.phase {
                        Phase::Aftermath(a) => crate::outcome::turn_outcome(after, a).why.words(),
                        _ => None,
                    }
                    .map(|w| format!(" ({w})"))
                    .unwrap_or_default();
                    out.push(format!(
                        "{} wins the turn with {}{combo}{why}.",
                        name(before, w),
                        play_text(before, w, plays[winner])
                    ));
                    out.extend(loss_sentence(before, after, p, &result, 1 - winner));
                    // The winner loses something only through a special (Dig Two Graves).
                    if final_losses(after, &result)[winner].total() > 0 {
                        out.extend(loss_sentence(before, after, p, &result, winner));
                    }
                }
                Outcome::Tie => {
                    out.push(format!(
                        "Tie: {} loses {} and {} loses {} (each the base of the other's move).",
                        name(before, p[0]),
                        result.losses[0].total(),
                        name(before, p[1]),
                        result.losses[1].total()
                    ));
                    if final_losses(after, &result) != result.losses {
                        for i in 0..2 {
                            out.extend(loss_sentence(before, after, p, &result, i));
                        }
                    }
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
        Event::SwapDecided { fighter, to, .. } => vec![match to {
            Some(m) => format!(
                "{} swaps its move (Drunken Monkey): the opponent's random pick is {}.",
                name(before, fighter),
                play_text(after, fighter, Play::Move(m))
            ),
            None => format!("{} keeps its move (Drunken Monkey).", name(before, fighter)),
        }],
        Event::GainTaken { fighter, gained } => {
            let i = usize::from(fighter.0);
            let a = &after.fighters[i];
            vec![format!("{} regains {} and has {} now.", a.name(), gained, a.energy)]
        }
        Event::LossTaken { fighter, taken } => {
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
        Event::WentOut { fighter, dead } => vec![format!(
            "{} is out of the conflict with zero energy in every type{}.",
            name(before, fighter),
            if dead { " and dies" } else { "" }
        )],
        Event::MercyDecided { fighter, killed } => {
            let winner = match &before.phase {
                Phase::Aftermath(a) => a.mercy.map(|m| name(before, m.winner)),
                _ => None,
            }
            .unwrap_or_else(|| "The winner".to_owned());
            vec![format!("{winner} {} {}.", if killed { "kills" } else { "spares" }, name(before, fighter))]
        }
        Event::MinorConflictTied => {
            vec!["The single turn of this minor conflict is a tie: the GM records the outcome.".to_owned()]
        }
        // A special or a pass, face down: the sentence is the same either way.
        Event::SpecialCommitted { fighter, .. } => {
            vec![format!("{} has chosen ({} window).", name(before, fighter), window_name(before))]
        }
        Event::CardsCounted { count } => {
            let n = if count == 1 { "1 card".to_owned() } else { format!("{count} cards") };
            // Whether anyone is due to respond is the engine's to say, after the count.
            let respond = match &after.phase {
                Phase::Turn(t) => {
                    t.window.as_ref().is_some_and(|w| (0..w.participants.len()).any(|i| w.slot_due(i)))
                }
                _ => false,
            };
            vec![format!(
                "{n} face down in the {} window.{}",
                window_name(before),
                if respond { " Those who passed may respond." } else { "" }
            )]
        }
        Event::SpecialRevealed { fighter, card, cancelled } => {
            reveal_sentences(before, after, fighter, card, cancelled)
        }
        Event::WindowClosed => {
            let (played, down) = match &before.phase {
                Phase::Turn(t) => t.window.as_ref().map_or((0, 0), |w| {
                    let cards = w.cards();
                    (cards.len(), cards.iter().filter(|(_, _, face_down)| *face_down).count())
                }),
                _ => (0, 0),
            };
            let mut s = format!("The {} window closes", window_name(before));
            if played == 0 {
                s.push_str(": no specials were played.");
            } else if down > 0 {
                s.push_str(&format!(
                    "; {down} card{} stay{} face down until the moves are revealed.",
                    if down == 1 { "" } else { "s" },
                    if down == 1 { "s" } else { "" }
                ));
            } else {
                s.push('.');
            }
            vec![s]
        }
        Event::EnergyAdjusted { fighter, energy, ref reason } => {
            vec![format!("The GM sets {}'s energy to {energy}: {reason}.", name(before, fighter))]
        }
        Event::ConflictEnded { winner } => vec![
            String::new(),
            match winner {
                Some(side) => format!(
                    "The conflict is over: {} {}.",
                    crate::outcome::side_words(after, side),
                    if side == crate::PLAYERS { "win" } else { "wins" }
                ),
                None => "The conflict is over: the GM records a draw.".to_owned(),
            },
        ],
    }
}

/// The pair's losses as they are to be taken: after the turn's specials (the aftermath's),
/// else the turn's own.
fn final_losses(after: &Conflict, result: &TurnResult) -> [Loss; 2] {
    match &after.phase {
        Phase::Aftermath(a) => a.losses,
        _ => result.losses,
    }
}

/// The loss of the pair member at `i` written as the sum of its parts, then how it is taken:
/// the part from its own stance's type, the part to spread, and what is lost for want of
/// energy — so that the numbers shown add up to the loss (issue 13: "loses 8" beside a spread
/// of 6 with no word of the 2 from the stance).
fn loss_sentence(
    before: &Conflict,
    after: &Conflict,
    p: [FighterId; 2],
    result: &TurnResult,
    i: usize,
) -> Vec<String> {
    let who = name(before, p[i]);
    let turn_loss = result.losses[i];
    let loss = final_losses(after, result)[i];
    let mut out = Vec::new();
    if loss == turn_loss {
        out.push(format!("{who} loses {}: {loss}.", loss.total()));
    } else if loss.total() == 0 {
        out.push(format!(
            "{who} would lose {}: {turn_loss}; after the specials it loses nothing.",
            turn_loss.total()
        ));
        return out;
    } else {
        out.push(format!("{who} loses {} after the specials: {loss}.", loss.total()));
    }
    let Some(f) = before.fighters.get(usize::from(p[i].0)) else { return out };
    let (stance_part, spread) = loss.taken_from(f.energy);
    let from_stance = stance_part.total();
    let short = loss.total() - from_stance - spread;
    let mut parts = Vec::new();
    if let Some(t) = loss.stance_type.filter(|_| loss.own_stance > 0) {
        parts.push(format!("{from_stance} from {} {} ({who}'s own stance)", t.name(), t.symbol()));
    }
    parts.push(format!("{spread} spread over the types"));
    if short > 0 {
        parts.push(format!("{short} more than {who}'s {} energy can pay", f.energy.total()));
    }
    if parts.len() > 1 {
        out.push(format!("  {} = {}.", loss.total(), parts.join(" + ")));
    }
    out
}

/// The name of the window in progress in `c`.
fn window_name(c: &Conflict) -> &'static str {
    match &c.phase {
        Phase::Turn(t) => t.window.as_ref().map_or("timing", |w| w.window.name()),
        _ => "timing",
    }
}

/// A revealed special: who played it, what it names, and its effect in words, as the state
/// after the reveal shows it.
fn reveal_sentences(
    before: &Conflict,
    after: &Conflict,
    fighter: FighterId,
    card: SpecialCard,
    cancelled: bool,
) -> Vec<String> {
    let edition = after.edition;
    let who = name(before, fighter);
    let special = card.name(edition);
    let target = card.target.map(|t| format!(" naming {}", name(before, t))).unwrap_or_default();
    let head = format!("{who} reveals {special}{target}");
    if cancelled {
        // The engine decided the cancellation; name the other player of the same special.
        let other = match &before.phase {
            Phase::Turn(t) => t.window.as_ref().and_then(|w| {
                w.cards().into_iter().find(|&(g, c, _)| g != fighter && card.cancels(c)).map(|(g, ..)| g)
            }),
            _ => None,
        };
        let by = other.map_or_else(|| "the other of the pair".to_owned(), |o| name(before, o));
        return vec![format!(
            "{head}: it cancels out with {by}'s identical special: both are spent, with no effect."
        )];
    }
    // The opponent of the user this turn, if chosen.
    let opponent = match &after.phase {
        Phase::Turn(t) => t.pair().map(|p| if p[0] == fighter { p[1] } else { p[0] }),
        _ => None,
    };
    let effect = match card.effective() {
        Special::Scouter => match opponent {
            Some(o) => format!("{who} learns {}'s moves, combos and specials", name(before, o)),
            None => format!("{who} will learn the moves, combos and specials of the opponent {who} chooses"),
        },
        Special::ThereCanBeOnlyOne => match card.target {
            Some(t) => format!(
                "{who} and {} face only each other until one is out (others may still choose them)",
                name(before, t)
            ),
            None => "no character named".to_owned(),
        },
        Special::IAlreadyKnow(action) => {
            let forbidden = match &after.phase {
                Phase::Turn(t) => opponent.and_then(|o| after.forbidden_action(t, o)),
                _ => None,
            };
            match (opponent, forbidden) {
                (Some(o), Some(a)) => {
                    format!("{} may not play {} {} moves this turn", name(before, o), a.name(), a.symbol())
                }
                _ => {
                    format!("the opponent may not play {} {} moves this turn", action.name(), action.symbol())
                }
            }
        }
        Special::WayOfTheSamurai => {
            let energy =
                after.fighters.get(usize::from(fighter.0)).map(|f| f.energy.to_string()).unwrap_or_default();
            format!(
                "{who} regains all energy ({energy}), stays in the conflict until it ends even at zero energy, and then dies"
            )
        }
        Special::ToBlave => "a bluff; it has no effect".to_owned(),
        Special::PressurePoint => format!("{who} spreads the opponent's loss this turn"),
        Special::WaxOn(a) => format!("if the opponent acts with {a}, {who} loses nothing from its stance"),
        Special::Parry(a) => format!("if the opponent acts with {a}, {who} loses nothing this turn"),
        Special::SantaCarla(a) => format!("if {who} wins with stance and action {a}, it regains its stance"),
        Special::Vampire(a) => format!("if {who} acts with {a}, it regains what the opponent loses"),
        Special::DigTwoGraves(a) => format!("if the opponent acts with {a}, it loses as much as {who} loses"),
        Special::Yojimbo => match card.target {
            Some(t) => format!("{who} takes {}'s loss this turn", name(before, t)),
            None => format!("{who} takes an ally's loss this turn"),
        },
        _ => String::new(),
    };
    if effect.is_empty() { vec![format!("{head}.")] } else { vec![format!("{head}: {effect}.")] }
}
