//! Test support shared by the crates' tests (the `testing` feature, enabled only as a
//! dev-dependency): a toy ruleset whose every part is known, and a random player that gathers
//! every text a ruleset shows.
//!
//! **Matching pennies** ([`MatchingPennies`]): two players each put a penny face down; once both
//! are down they are revealed; seat 0 ("even") wins on a match, seat 1 ("odd") otherwise. A
//! third seat, the GM, only watches and may force a decision; the forced default is heads.

use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::{
    Choice, Face, Prompt, Role, Ruleset, Sealed, Seat, SeatId, Seats, SideId, Table, Viewer, seeded_rng,
};

/// The state of a game of matching pennies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pennies {
    /// "even", "odd" and the GM.
    pub seats: Seats,
    /// The two players' pennies (heads is `true`).
    pub pennies: [Sealed<bool>; 2],
    /// The winning seat, once revealed.
    pub winner: Option<u16>,
}

/// What happens in matching pennies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Event {
    /// A seat put its penny face down; `heads` is `None` when blanked for a viewer.
    Played {
        /// The seat.
        seat: u16,
        /// Its penny, `None` when blanked.
        heads: Option<bool>,
    },
    /// Both pennies are revealed.
    Revealed {
        /// The winning seat.
        winner: u16,
        /// Both pennies.
        pennies: [bool; 2],
    },
}

/// Why matching pennies refused a command.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Refused {
    /// The seat's penny is already down.
    #[error("that seat has already played (§1)")]
    AlreadyPlayed,
    /// The seat has no penny (the GM, or no such seat).
    #[error("that seat plays no penny (§1)")]
    NoPenny,
    /// Both pennies are revealed.
    #[error("the game is over (§2)")]
    Over,
}

/// The toy ruleset.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchingPennies;

/// The state a game starts from: both pennies in hand.
pub fn start() -> Pennies {
    let seat = |name: &str, side, role| Seat { name: name.to_owned(), side: SideId(side), role };
    let seats = Seats::new(vec![
        seat("even", 0, Role::Player),
        seat("odd", 1, Role::Player),
        seat("gm", 2, Role::Gm),
    ])
    .expect("three named seats");
    Pennies { seats, pennies: [Sealed::Empty; 2], winner: None }
}

impl Ruleset for MatchingPennies {
    const NAME: &'static str = "matching-pennies";
    const VERSION: u32 = 1;
    type Setup = ();
    type SetupError = std::convert::Infallible;
    type State = Pennies;
    type Command = bool;
    type Event = Event;
    type View = [Face<bool>; 2];
    type Error = Refused;

    fn setup(_: &()) -> Result<Pennies, std::convert::Infallible> {
        Ok(start())
    }

    fn seats(s: &Pennies) -> &Seats {
        &s.seats
    }

    fn decide(s: &Pennies, seat: SeatId, heads: &bool, out: &mut Vec<Event>) -> Result<(), Refused> {
        if s.winner.is_some() {
            return Err(Refused::Over);
        }
        let slot = s.pennies.get(usize::from(seat.0)).ok_or(Refused::NoPenny)?;
        if slot.is_committed() {
            return Err(Refused::AlreadyPlayed);
        }
        out.push(Event::Played { seat: seat.0, heads: Some(*heads) });
        Ok(())
    }

    fn apply(s: &mut Pennies, e: &Event) {
        match *e {
            Event::Played { seat, heads: Some(heads) } => {
                s.pennies[usize::from(seat)] = Sealed::FaceDown(heads)
            }
            // A blanked event is never applied by the table; nothing to do if it is.
            Event::Played { heads: None, .. } => {}
            Event::Revealed { winner, .. } => {
                s.pennies.iter_mut().for_each(Sealed::reveal);
                s.winner = Some(winner);
            }
        }
    }

    fn automatic(s: &Pennies) -> Option<Event> {
        match (s.winner, s.pennies[0].value(), s.pennies[1].value()) {
            (None, Some(a), Some(b)) => {
                Some(Event::Revealed { winner: if a == b { 0 } else { 1 }, pennies: [a, b] })
            }
            _ => None,
        }
    }

    fn view(s: &Pennies, viewer: Viewer) -> [Face<bool>; 2] {
        [0, 1].map(|i| s.pennies[i].face(viewer == Viewer::Seat(SeatId(i as u16))))
    }

    fn redact(_: &Pennies, e: &Event, viewer: Viewer) -> Event {
        match e {
            Event::Played { seat, .. } if viewer != Viewer::Seat(SeatId(*seat)) => {
                Event::Played { seat: *seat, heads: None }
            }
            e => e.clone(),
        }
    }

    fn narrate(_: &Pennies, e: &Event, _: Viewer) -> Option<String> {
        Some(match e {
            Event::Played { seat, heads: Some(h) } => {
                format!("seat {seat} put down {}", if *h { "heads" } else { "tails" })
            }
            Event::Played { seat, heads: None } => format!("seat {seat} put a penny face down"),
            Event::Revealed { winner, .. } => format!("seat {winner} wins"),
        })
    }

    fn legal_commands(s: &Pennies, seat: SeatId, out: &mut Vec<bool>) {
        if s.winner.is_none() && s.pennies.get(usize::from(seat.0)).is_some_and(|p| !p.is_committed()) {
            out.extend([true, false]);
        }
    }

    fn prompt(s: &Pennies, seat: SeatId) -> Option<Prompt<bool>> {
        let mut legal = Vec::new();
        Self::legal_commands(s, seat, &mut legal);
        (!legal.is_empty()).then(|| Prompt {
            seat,
            question: "put a penny face down".to_owned(),
            private: true,
            choices: legal
                .into_iter()
                .map(|h| Choice {
                    label: if h { "heads" } else { "tails" }.to_owned(),
                    command: h,
                    private: true,
                })
                .collect(),
        })
    }

    fn forced(s: &Pennies, seat: SeatId) -> Option<bool> {
        Self::prompt(s, seat).map(|_| true)
    }

    fn quick_reference() -> String {
        let mut s = crate::reference::section(
            "MATCHING PENNIES",
            &["1. Both players put a penny face down.".to_owned(), "2. Both are revealed.".to_owned()],
        );
        s.push_str(&crate::reference::legend(&[("§".to_owned(), "a rule of the game".to_owned())]));
        s
    }

    fn awaiting(s: &Pennies, out: &mut Vec<SeatId>) {
        if s.winner.is_none() {
            out.extend((0..2).filter(|&i| !s.pennies[i].is_committed()).map(|i| SeatId(i as u16)));
        }
    }

    fn is_over(s: &Pennies) -> bool {
        s.winner.is_some()
    }
}

/// The text inside the string literals of a source file (escaped quotes dropped, comment
/// lines left out): what a ruleset's narration or prompt module can print besides its data,
/// for the quick-reference tests that check every printed symbol has a legend line.
pub fn string_literals(source: &str) -> String {
    let mut out = String::new();
    for line in source.lines().filter(|l| !l.trim_start().starts_with("//")) {
        let line = line.replace("\\\"", "");
        for (i, part) in line.split('"').enumerate() {
            if i % 2 == 1 {
                out.push_str(part);
                out.push(' ');
            }
        }
    }
    out
}

/// Every text `R` shows in a random game from `initial`: each awaited seat's prompt (question
/// and choice labels) before each command, and the narration of every event for every viewer
/// (each seat and a spectator). The game takes random legal commands (seeded by `seed`) for a
/// random awaited seat, at most `limit` of them.
pub fn texts_of_random_play<R: Ruleset>(initial: R::State, seed: u64, limit: usize) -> Vec<String> {
    let mut rng = seeded_rng(seed);
    let viewers: Vec<Viewer> = (0..R::seats(&initial).len())
        .map(|i| Viewer::Seat(SeatId(i as u16)))
        .chain([Viewer::Spectator])
        .collect();
    let mut table = Table::<R>::new(initial);
    let mut texts = Vec::new();
    let mut legal = Vec::new();
    for _ in 0..limit {
        let awaiting = table.awaiting();
        if awaiting.is_empty() {
            break;
        }
        for &seat in &awaiting {
            if let Some(p) = R::prompt(table.state(), seat) {
                texts.push(p.question);
                texts.extend(p.choices.into_iter().map(|c| c.label));
            }
        }
        let seat = awaiting[rng.random_range(0..awaiting.len())];
        legal.clear();
        table.legal_commands(seat, &mut legal);
        if legal.is_empty() {
            break;
        }
        let command = legal[rng.random_range(0..legal.len())].clone();
        let mut state = table.state().clone();
        let Ok(events) = table.submit(seat, &command) else { break };
        for event in events {
            for &viewer in &viewers {
                let seen = R::redact(&state, event, viewer);
                texts.extend(R::narrate(&state, &seen, viewer));
            }
            R::apply(&mut state, event);
        }
    }
    texts
}

/// `initial` with every draw source in it (each `draws` member of the state's JSON holding a
/// `source` and a `position`) replaced by `draws`: a ruleset's state made to draw from, say, a
/// [`Source::Verifiable`](crate::Source::Verifiable) without a setup field for it. `None` if
/// the state has no draw source or does not read back.
pub fn with_draws<R: Ruleset>(initial: &R::State, draws: &crate::Draws) -> Option<R::State> {
    fn replace(v: &mut serde_json::Value, with: &serde_json::Value) -> usize {
        match v {
            serde_json::Value::Object(m) => {
                let mut n = 0;
                for (k, item) in m.iter_mut() {
                    let is_draws = k == "draws"
                        && item.get("source").is_some()
                        && item.get("position").is_some_and(serde_json::Value::is_u64);
                    if is_draws {
                        *item = with.clone();
                        n += 1;
                    } else {
                        n += replace(item, with);
                    }
                }
                n
            }
            serde_json::Value::Array(items) => items.iter_mut().map(|i| replace(i, with)).sum(),
            _ => 0,
        }
    }
    let mut json = serde_json::to_value(initial).ok()?;
    let with = serde_json::to_value(draws).ok()?;
    if replace(&mut json, &with) == 0 {
        return None;
    }
    serde_json::from_value(json).ok()
}

/// Everything `R` shows any viewer in a random game from `initial` — each seat's and a
/// spectator's view (as JSON) after every command, every event as redacted for each of them
/// (as JSON) and its narration, and each awaited seat's prompt — with the table's draw position
/// at the end. The game takes random legal commands (seeded by `seed`) for a random awaited
/// seat, at most `limit` of them. For tests that no viewer is ever shown a secret of the state.
pub fn shown_in_random_play<R: Ruleset>(initial: R::State, seed: u64, limit: usize) -> (Vec<String>, u64) {
    let mut rng = seeded_rng(seed);
    let viewers: Vec<Viewer> = (0..R::seats(&initial).len())
        .map(|i| Viewer::Seat(SeatId(i as u16)))
        .chain([Viewer::Spectator])
        .collect();
    let mut table = Table::<R>::new(initial);
    let mut shown = Vec::new();
    let mut legal = Vec::new();
    for _ in 0..limit {
        for &viewer in &viewers {
            shown.push(serde_json::to_string(&R::view(table.state(), viewer)).unwrap_or_default());
        }
        let awaiting = table.awaiting();
        if awaiting.is_empty() {
            break;
        }
        for &seat in &awaiting {
            if let Some(p) = R::prompt(table.state(), seat) {
                shown.push(p.question);
                shown.extend(p.choices.into_iter().map(|c| c.label));
            }
        }
        let seat = awaiting[rng.random_range(0..awaiting.len())];
        legal.clear();
        table.legal_commands(seat, &mut legal);
        if legal.is_empty() {
            break;
        }
        let command = legal[rng.random_range(0..legal.len())].clone();
        let mut state = table.state().clone();
        let Ok(events) = table.submit(seat, &command) else { break };
        for event in events {
            for &viewer in &viewers {
                let seen = R::redact(&state, event, viewer);
                shown.push(serde_json::to_string(&seen).unwrap_or_default());
                shown.extend(R::narrate(&state, &seen, viewer));
            }
            R::apply(&mut state, event);
        }
    }
    let position = R::draw_position(table.state());
    (shown, position)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_play_gathers_prompts_and_every_viewers_narration() {
        let texts = texts_of_random_play::<MatchingPennies>(start(), 3, 10);
        assert!(texts.contains(&"put a penny face down".to_owned()), "{texts:?}");
        assert!(texts.iter().any(|t| t == "heads") && texts.iter().any(|t| t == "tails"));
        assert!(
            texts.iter().any(|t| t.starts_with("seat") && t.ends_with("face down")),
            "another viewer's blanked view: {texts:?}"
        );
        assert!(texts.iter().any(|t| t.ends_with("wins")), "{texts:?}");
    }
}
