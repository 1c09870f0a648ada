//! Who won: each engaged pair of a Hand (seed Step 4: Trine Dominance, Attribute Dominance,
//! Sweep, Showdown Totals; rules reference `shared/rules/nodice.md` §5) and the Conflict
//! (Elimination Check, Decision 31's stalemate), in the players' words.
//!
//! The one place every shell asks: the page shows [`ConflictView::hand_result`] beside the
//! prompt and [`ConflictView::who_won`] at the end, `facedown play` prints the same, and the
//! bots' tournament counts [`Ended::winner`]. The Showdown itself is [`crate::hand`]'s; this
//! module only reads it.
//!
//! [`ConflictView::hand_result`]: crate::ConflictView::hand_result
//! [`ConflictView::who_won`]: crate::ConflictView::who_won

use serde::{Deserialize, Serialize};
use table::{SideId, Viewer};

use crate::conflict::{Conflict, Ending, Phase, Status};
use crate::hand::ActorId;
use crate::trine::Dominance;

/// One engaged pair of a revealed Hand: who won what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairOutcome {
    /// The pair, in commit order.
    pub actors: [ActorId; 2],
    /// Who won Trine Dominance (the Aspects), if anyone.
    pub trine: Option<ActorId>,
    /// Who won Attribute Dominance (the Attributes), if anyone.
    pub attribute: Option<ActorId>,
    /// Who swept (won both), if anyone.
    pub sweep: Option<ActorId>,
    /// Both Showdown Totals, in the pair's order.
    pub totals: [u16; 2],
    /// Who has the higher Showdown Total (the margin is the damage the other takes), if
    /// anyone.
    pub ahead: Option<ActorId>,
    /// "Kara against the Bandit: Kara wins Trine Dominance (Body over Spirit) and Attribute
    /// Dominance (Strength over Presence), a Sweep; Showdown Totals 8 to 3."
    pub words: String,
}

/// A revealed Hand: each engaged pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandOutcome {
    /// The Hand's number.
    pub hand: u32,
    /// Each engaged pair.
    pub pairs: Vec<PairOutcome>,
    /// "Hand 1: Kara sweeps the Bandit, Showdown Totals 8 to 3."
    pub headline: String,
}

/// An Actor's part of a finished Conflict's summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActorSummary {
    /// Its name.
    pub name: String,
    /// Damage taken over the Conflict (chips removed).
    pub damage: u32,
    /// Why it left the Conflict, in words, if it did.
    pub out: Option<String>,
}

/// How a Conflict ended, in the players' words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ended {
    /// The winning side: the one side left; `None` when none is, or when the GM, an extension
    /// or a stalemate ended it.
    pub winner: Option<SideId>,
    /// Whether the viewer's side won (`None`: a spectator, a seat with no Actor, or no winner).
    pub you_won: Option<bool>,
    /// "You lost: the Bandit's side wins", "The Conflict ends: Kara's side wins".
    pub headline: String,
    /// Hands played.
    pub hands: u32,
    /// Every Actor's damage and how it left.
    pub actors: Vec<ActorSummary>,
    /// The summary in lines: Hands, damage, eliminations.
    pub summary: Vec<String>,
}

fn name(c: &Conflict, id: ActorId) -> String {
    c.actor(id).map(|a| a.sheet.name.clone()).unwrap_or_else(|| "?".to_owned())
}

/// Who won each engaged pair of the Hand, once its Actions are revealed (seed Step 4). `None`
/// before the reveal and once the Hand is over.
pub fn hand_outcome(c: &Conflict) -> Option<HandOutcome> {
    if !matches!(c.phase, Phase::Strikes | Phase::SpreadDamage { .. } | Phase::EliminationCheck) {
        return None;
    }
    if c.showdown.pairs.is_empty() {
        return None;
    }
    let card = |id: ActorId| c.actor(id).and_then(|a| a.action.value()).map(|k| k.attribute.name());
    let aspect = |id: ActorId| c.actor(id).and_then(|a| a.aspect.value()).map(|k| k.aspect.name());
    let pairs: Vec<PairOutcome> = c
        .showdown
        .pairs
        .iter()
        .map(|p| {
            let [x, y] = p.actors;
            let pick = |d: Dominance| match d {
                Dominance::Win => Some(x),
                Dominance::Loss => Some(y),
                Dominance::Tie => None,
            };
            let other = |w: ActorId| if w == x { y } else { x };
            let (trine, attribute) = (pick(p.trine), pick(p.attribute));
            let sweep = match p.sweep {
                [true, _] => Some(x),
                [_, true] => Some(y),
                _ => None,
            };
            let ahead = match p.totals[0].cmp(&p.totals[1]) {
                std::cmp::Ordering::Greater => Some(x),
                std::cmp::Ordering::Less => Some(y),
                std::cmp::Ordering::Equal => None,
            };
            let over = |w: ActorId, f: &dyn Fn(ActorId) -> Option<&'static str>| match (f(w), f(other(w))) {
                (Some(a), Some(b)) => format!(" ({a} over {b})"),
                _ => String::new(),
            };
            let mut won = Vec::new();
            if let Some(w) = trine {
                won.push(format!("{} wins Trine Dominance{}", name(c, w), over(w, &aspect)));
            }
            if let Some(w) = attribute {
                let who = if trine == Some(w) { String::new() } else { format!("{} wins ", name(c, w)) };
                let and = if trine == Some(w) { "and " } else { "" };
                won.push(format!("{and}{who}Attribute Dominance{}", over(w, &card)));
            }
            let mut words = format!("{} against {}: ", name(c, x), name(c, y));
            if won.is_empty() {
                words.push_str("no Dominance either way");
            } else {
                words.push_str(&won.join(if attribute == trine { " " } else { "; " }));
            }
            if sweep.is_some() {
                words.push_str(", a Sweep");
            }
            words.push_str(&format!("; Showdown Totals {} to {}.", p.totals[0], p.totals[1]));
            PairOutcome { actors: p.actors, trine, attribute, sweep, totals: p.totals, ahead, words }
        })
        .collect();
    let lead: Vec<String> = pairs
        .iter()
        .map(|p| match (p.sweep, p.ahead) {
            (Some(w), _) => format!(
                "{} sweeps {}",
                name(c, w),
                name(c, if w == p.actors[0] { p.actors[1] } else { p.actors[0] })
            ),
            (None, Some(w)) => format!(
                "{} comes out ahead of {}",
                name(c, w),
                name(c, if w == p.actors[0] { p.actors[1] } else { p.actors[0] })
            ),
            (None, None) => format!("{} and {} are level", name(c, p.actors[0]), name(c, p.actors[1])),
        })
        .collect();
    let headline = format!("Hand {}: {}.", c.hand, lead.join("; "));
    Some(HandOutcome { hand: c.hand, pairs, headline })
}

/// A side in the players' words, by its Actors: "Kara's side", "Kara and Bao's side".
pub fn side_words(c: &Conflict, side: SideId) -> String {
    let names: Vec<&str> =
        c.actors.iter().filter(|a| a.sheet.side == side).map(|a| a.sheet.name.as_str()).collect();
    match names.as_slice() {
        [] => format!("side {}", side.0),
        [one] => format!("{one}'s side"),
        [rest @ .., last] => format!("{} and {last}'s side", rest.join(", ")),
    }
}

/// An Actor's way out, in words.
pub fn status_words(s: Status) -> Option<String> {
    match s {
        Status::In => None,
        Status::Withdrew => Some("withdrew".to_owned()),
        Status::CouldNotAnte => Some("could not ante".to_owned()),
        Status::Exhausted(x) => Some(format!("eliminated: no {} left", x.name())),
        Status::Removed => Some("removed".to_owned()),
    }
}

/// Who won the Conflict, once it is over: the one side left (seed: Elimination Check), else
/// nobody; the headline for `viewer` and the summary (Hands, damage, eliminations). `None`
/// while it goes on.
pub fn who_won(c: &Conflict, viewer: Viewer) -> Option<Ended> {
    let ending = c.ending?;
    let winner = match ending {
        Ending::OneSideLeft(side) => side,
        _ => None,
    };
    let mine = match viewer {
        // A seat's side is its Actors' (the GM's, its NPCs').
        Viewer::Seat(s) => c.actors.iter().find(|a| a.sheet.seat == s).map(|a| a.sheet.side),
        _ => None,
    };
    let you_won = match (winner, mine) {
        (Some(w), Some(m)) => Some(w == m),
        _ => None,
    };
    let headline = match ending {
        Ending::OneSideLeft(Some(w)) => {
            let side = side_words(c, w);
            match you_won {
                Some(true) => format!("You won: {side} wins."),
                Some(false) => format!("You lost: {side} wins."),
                None => format!("The Conflict ends: {side} wins."),
            }
        }
        Ending::OneSideLeft(None) => "The Conflict ends: nobody is left in it, nobody wins.".to_owned(),
        Ending::Fiction => "The GM ends the Conflict: the story has settled what was at stake.".to_owned(),
        Ending::Extension => "An optional rule ends the Conflict: nobody wins it.".to_owned(),
        Ending::Stalemate(n) => {
            format!(
                "The Conflict ends in a stalemate: {n} Hands in a row without damage or elimination, nobody wins."
            )
        }
    };
    let actors: Vec<ActorSummary> = c
        .actors
        .iter()
        .map(|a| ActorSummary {
            name: a.sheet.name.clone(),
            damage: a.damage_taken,
            out: status_words(a.status),
        })
        .collect();
    let hands = c.hand;
    let mut summary = vec![format!("{hands} {}.", if hands == 1 { "Hand" } else { "Hands" })];
    for a in &actors {
        let mut line = format!("{} took {} damage", a.name, a.damage);
        if let Some(out) = &a.out {
            line.push_str(&format!("; {out}"));
        }
        line.push('.');
        summary.push(line);
    }
    Some(Ended { winner, you_won, headline, hands, actors, summary })
}
