//! Who won: a turn (rules reference §5.2 step 4, §5.3) and the conflict (§5.7), in the
//! players' words, with why and what it cost.
//!
//! The one place every shell asks: the page shows [`ConflictView::turn_result`] beside the
//! prompt and [`ConflictView::who_won`] at the end, `facedown play` prints the same, and the
//! bots' tournament counts [`Ended::winner`]. The winner order itself is [`crate::turn`]'s; this
//! module only reads the resolved turn and the ended conflict.
//!
//! [`ConflictView::turn_result`]: crate::ConflictView::turn_result
//! [`ConflictView::who_won`]: crate::ConflictView::who_won

use serde::{Deserialize, Serialize};
use table::{SideId, Viewer};

use crate::card::Action;
use crate::conflict::{Aftermath, Conflict, FighterId, GM, PLAYERS, Phase, Status};
use crate::turn::{Decided, Loss, Outcome, Play};

/// Why a turn's winner won (§5.2 step 4), in the terms a player checks on the cards.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "by")]
pub enum Why {
    /// Step 4.1: the winner's action beats the loser's ("▨ Grapple beats ○ Defend").
    Action {
        /// The words.
        words: String,
    },
    /// Step 4.2: same action, the winner's element beats the loser's.
    Element {
        /// The words.
        words: String,
    },
    /// Step 4.3: only the loser's move was disadvantaged.
    Disadvantage {
        /// The words.
        words: String,
    },
    /// Step 4.4: a tie (each loses the base of the other's move).
    Tie,
    /// Somebody surrendered: nobody loses energy (§5.2, Decision).
    Surrender,
}

impl Why {
    /// The reason in words, for a win.
    pub fn words(&self) -> Option<String> {
        match self {
            Why::Action { words } | Why::Element { words } | Why::Disadvantage { words } => {
                Some(words.clone())
            }
            Why::Tie | Why::Surrender => None,
        }
    }
}

/// One of the pair's loss after a turn, in its parts (§5.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LossLine {
    /// Who loses.
    pub fighter: FighterId,
    /// The loss, specials applied.
    pub loss: Loss,
    /// "Kuro loses 13: winner's stance 6 + own stance 1 + base 4 + combo 1 + disadvantage 1 = 13".
    pub words: String,
}

/// A resolved turn: who won and why, and the losses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnOutcome {
    /// The turn's number.
    pub turn: u32,
    /// The pair, active character first.
    pub pair: [FighterId; 2],
    /// The turn's winner (a lone surrender's opponent counts); `None` on a tie or when both
    /// surrendered.
    pub winner: Option<FighterId>,
    /// Why.
    pub why: Why,
    /// Each loss of the turn that is more than nothing, in its parts.
    pub losses: Vec<LossLine>,
    /// The headline: "Turn 3: Ada wins with Grapple ▨☰ against Defend ○☷ (▨ Grapple beats ○ Defend)."
    pub headline: String,
}

/// A character's part of a finished conflict's summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FighterSummary {
    /// Its name.
    pub name: String,
    /// Energy lost over the conflict (its maximum less what it has left).
    pub lost: u32,
    /// The types marked at zero for level-up (§5.3), by name.
    pub marks: Vec<String>,
    /// Whether it died.
    pub dead: bool,
    /// How it left the conflict, if it did: "surrendered", "went out".
    pub left: Option<String>,
}

/// How a conflict ended, in the players' words (§5.7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ended {
    /// The winning side; `None` for a draw the GM recorded.
    pub winner: Option<SideId>,
    /// Whether the viewer's side won (`None`: a spectator, the GM link without a seat, or a
    /// draw).
    pub you_won: Option<bool>,
    /// "You lost: Kuro's side wins", "The conflict ends: the players win".
    pub headline: String,
    /// Turns played.
    pub turns: u32,
    /// Every character's losses, marks and death.
    pub fighters: Vec<FighterSummary>,
    /// The summary in lines: turns, losses, marks, deaths.
    pub summary: Vec<String>,
}

fn name(c: &Conflict, id: FighterId) -> String {
    c.fighters.get(usize::from(id.0)).map_or_else(|| format!("character #{}", id.0), |f| f.name().to_owned())
}

/// An action in words: "▨ Grapple".
pub fn action_words(a: Action) -> String {
    format!("{} {}", a.symbol(), capital(a.name()))
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// Who won a resolved turn and why (§5.2 step 4), from its aftermath. The one reading of a
/// turn's result every shell shows.
pub fn turn_outcome(c: &Conflict, a: &Aftermath) -> TurnOutcome {
    let result = &a.result;
    let winner = a.winner();
    let why = match result.outcome {
        Outcome::Surrender { .. } => Why::Surrender,
        Outcome::Tie => Why::Tie,
        Outcome::Win { winner: w } => {
            match (a.plays[w].as_move(), a.plays[1 - w].as_move(), result.decided_by) {
                (Some(wm), Some(lm), Decided::Action) => Why::Action {
                    words: format!("{} beats {}", action_words(wm.action()), action_words(lm.action())),
                },
                (Some(wm), Some(lm), Decided::Element) => Why::Element {
                    words: format!(
                        "{} {} beats {} {}",
                        wm.element().symbol(),
                        capital(wm.element().name()),
                        lm.element().symbol(),
                        capital(lm.element().name())
                    ),
                },
                _ => Why::Disadvantage {
                    words: format!("{}'s move was at a disadvantage", name(c, a.pair[1 - w])),
                },
            }
        }
    };
    let losses: Vec<LossLine> = (0..2)
        .filter(|&i| a.losses[i].total() > 0)
        .map(|i| LossLine {
            fighter: a.pair[i],
            loss: a.losses[i],
            words: format!("{} loses {}: {}.", name(c, a.pair[i]), a.losses[i].total(), a.losses[i]),
        })
        .collect();
    let play = |i: usize| match a.plays[i] {
        Play::Surrender => "surrender".to_owned(),
        Play::Move(m) => {
            let f = c.fighters.get(usize::from(a.pair[i].0));
            let n = f.map_or_else(|| m.to_string(), |f| f.character.move_name(m));
            if n == m.to_string() {
                format!("{} {m}", capital(m.action().name()))
            } else {
                format!("{n} {m}")
            }
        }
    };
    let turn = c.turn_number;
    let headline = match (&why, result.outcome) {
        (Why::Surrender, Outcome::Surrender { surrendered }) => {
            let who: Vec<String> = (0..2).filter(|&i| surrendered[i]).map(|i| name(c, a.pair[i])).collect();
            format!(
                "Turn {turn}: {} {}; nobody loses energy.",
                who.join(" and "),
                if who.len() > 1 { "surrender" } else { "surrenders" }
            )
        }
        (Why::Tie, _) => format!(
            "Turn {turn}: a tie ({} against {}); each loses the base of the other's move.",
            play(0),
            play(1)
        ),
        (why, Outcome::Win { winner: w }) => {
            let reason = why.words().unwrap_or_default();
            let combo = if result.combo_continued { ", continuing the combo" } else { "" };
            format!(
                "Turn {turn}: {} wins with {} against {}{combo} ({reason}).",
                name(c, a.pair[w]),
                play(w),
                play(1 - w)
            )
        }
        _ => format!("Turn {turn} is resolved."),
    };
    TurnOutcome { turn, pair: a.pair, winner, why, losses, headline }
}

/// A side in the players' words: "the players", or the GM's side by its characters ("Kuro's
/// side", "Kuro and Jin's side").
pub fn side_words(c: &Conflict, side: SideId) -> String {
    if side == PLAYERS {
        return "the players".to_owned();
    }
    let names: Vec<&str> = c.fighters.iter().filter(|f| f.side == side).map(|f| f.name()).collect();
    match names.as_slice() {
        [] => "the GM's side".to_owned(),
        [one] => format!("{one}'s side"),
        [rest @ .., last] => format!("{} and {last}'s side", rest.join(", ")),
    }
}

/// The side `viewer` plays, if it plays one: a seat's characters' side (the GM seat's is the
/// GM's side).
fn viewer_side(c: &Conflict, viewer: Viewer) -> Option<SideId> {
    let Viewer::Seat(s) = viewer else { return None };
    if c.fighters.iter().any(|f| f.seat == s && f.side == PLAYERS) {
        Some(PLAYERS)
    } else if c.is_gm(s) || c.fighters.iter().any(|f| f.seat == s && f.side == GM) {
        Some(GM)
    } else {
        None
    }
}

/// Who won the conflict (§5.7), once it is over: the winning side, the headline for
/// `viewer`, and the summary (turns, losses, marks, deaths). `None` while it goes on.
pub fn who_won(c: &Conflict, viewer: Viewer) -> Option<Ended> {
    let ending = c.ending?;
    if !matches!(c.phase, Phase::Over) {
        return None;
    }
    let mine = viewer_side(c, viewer);
    let you_won = match (ending.winner, mine) {
        (Some(w), Some(m)) => Some(w == m),
        _ => None,
    };
    let headline = match ending.winner {
        None => "The conflict ends in a draw: the GM records the outcome.".to_owned(),
        Some(w) => {
            let side = side_words(c, w);
            let verb = if w == PLAYERS { "win" } else { "wins" };
            match you_won {
                Some(true) => format!("You won: {side} {verb}."),
                Some(false) => format!("You lost: {side} {verb}."),
                None => format!("The conflict ends: {side} {verb}."),
            }
        }
    };
    let fighters: Vec<FighterSummary> = c
        .fighters
        .iter()
        .map(|f| FighterSummary {
            name: f.name().to_owned(),
            lost: f.character.energy.total().saturating_sub(f.energy.total()),
            marks: Action::ALL.iter().filter(|t| f.zero_marks[t.index()]).map(|t| action_words(*t)).collect(),
            dead: f.dead,
            left: match f.status {
                Status::In => None,
                Status::Surrendered => Some("surrendered".to_owned()),
                Status::Out => Some("went out".to_owned()),
            },
        })
        .collect();
    let turns = c.turn_number;
    let mut summary = vec![format!("{turns} {}.", if turns == 1 { "turn" } else { "turns" })];
    for f in &fighters {
        let mut line = format!("{} lost {} energy", f.name, f.lost);
        if let Some(left) = &f.left {
            line.push_str(&format!(" and {left}"));
        }
        if !f.marks.is_empty() {
            line.push_str(&format!("; marked at zero for level-up: {}", f.marks.join(", ")));
        }
        if f.dead {
            line.push_str("; died");
        }
        line.push('.');
        summary.push(line);
    }
    let deaths = fighters.iter().filter(|f| f.dead).count();
    if deaths == 0 {
        summary.push("Nobody died.".to_owned());
    }
    Some(Ended { winner: ending.winner, you_won, headline, turns, fighters, summary })
}
