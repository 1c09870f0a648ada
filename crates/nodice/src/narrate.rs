//! The readable narration of events, in the book's words: what every shell (terminal, server,
//! browser) prints for the log. Plain text: a shell escapes what it must (names come from
//! files), line by line — hence [`narrate_lines`].

use table::Viewer;

use crate::conflict::{Conflict, Ending, Status};
use crate::hand::ActorId;
use crate::rules::{Event, TokenFate, Void};
use crate::trine::{Aspect, Dominance};

/// An Actor's name (`?` for an unknown id).
fn name(c: &Conflict, id: ActorId) -> String {
    c.actor(id).map(|a| a.sheet.name.clone()).unwrap_or_else(|| "?".to_owned())
}

fn targets(c: &Conflict, t: crate::Targets) -> String {
    t.iter().map(|a| name(c, a)).collect::<Vec<_>>().join(", ")
}

/// "a" or "an", as fits the word (by its first letter: the names read as words).
fn a(word: &str) -> &'static str {
    if word.starts_with(['A', 'E', 'I', 'O', 'U', 'a', 'e', 'i', 'o', 'u']) { "an" } else { "a" }
}

/// A damage spread in words ("Str −2, Dex −1", or "nothing").
pub fn spread_text(aspect: Aspect, spread: [u16; 3]) -> String {
    let parts: Vec<String> = aspect
        .attributes()
        .iter()
        .zip(spread)
        .filter(|(_, d)| *d > 0)
        .map(|(a, d)| format!("{a} −{d}"))
        .collect();
    if parts.is_empty() { "nothing".to_owned() } else { parts.join(", ") }
}

/// The text of `event` (already redacted for `viewer`), about to be applied to `before`, as
/// lines; an empty line is a blank line in the log; no lines for bookkeeping
/// (`TokensRefreshed`). The Reveal lines read the cards the event turns face up.
pub fn narrate_lines(before: &Conflict, event: &Event, viewer: Viewer) -> Vec<String> {
    let _ = viewer;
    // Most lines read the state after the event (the reveals compute the Showdown).
    let mut after = before.clone();
    after.apply(event);
    let c = &after;
    let mut out = Vec::new();
    match event {
        Event::HandStarted { hand, utg } => {
            out.push(String::new());
            out.push(format!("=== Hand {hand} — Stakes {} — Under the Gun: {} ===", c.stakes, name(c, *utg)));
        }
        Event::HandEnded { next_utg } => {
            out.push("Bids return to the stacks.".to_owned());
            out.push(String::new());
            out.push(format!(
                "=== Hand {} — Stakes {} — Under the Gun: {} ===",
                c.hand,
                c.stakes,
                name(c, *next_utg)
            ));
            if !c.clusters.is_empty() {
                out.push(format!(
                    "--- Cluster {} — Under the Gun: {} ---",
                    c.cluster + 1,
                    name(c, *next_utg)
                ));
            }
        }
        Event::AspectCommitted { actor, card, targets: t, intent } => {
            let mut line = format!(
                "{} antes and plays an Aspect card face down, targeting {}",
                name(c, *actor),
                targets(c, *t)
            );
            match intent {
                Some(i) => line.push_str(&format!(": \"{i}\"")),
                None => line.push('.'),
            }
            if let Some(card) = card {
                line.push_str(&format!(" (Face down: {}, ante from {}.)", card.aspect, card.ante));
            }
            out.push(line);
        }
        Event::Withdrew { actor } => {
            out.push(format!("{} will not ante and withdraws from the Conflict.", name(c, *actor)))
        }
        Event::CouldNotAnte { actor } => out.push(format!(
            "{} cannot ante {} chips from any Attribute: eliminated.",
            name(c, *actor),
            c.stakes.value()
        )),
        Event::AspectsRevealed => {
            out.push("Reveal:".to_owned());
            for &a in &c.order {
                if let Some(card) = c.actors[a.index()].aspect.value() {
                    let wins = c.actors[a.index()].trine_wins;
                    out.push(format!(
                        "  {} played {} (ante {} {}), {wins} Trine Dominance {}",
                        name(c, a),
                        card.aspect,
                        c.ante_amount(a),
                        card.ante,
                        if wins == 1 { "win" } else { "wins" }
                    ));
                }
            }
            let pot: u16 = c.pot.iter().sum();
            out.push(format!("  The pot holds {pot} token(s)."));
        }
        Event::TokenPaid { to, attribute, fate, .. } => {
            let n = attribute.name();
            out.push(match fate {
                TokenFate::Kept => format!("  Pot: {} {n} token to {}.", a(n), name(c, *to)),
                TokenFate::ToJackpot => format!(
                    "  Pot: {} {n} token drawn for {}, who has no {n}: to the Jackpot.",
                    a(n),
                    name(c, *to)
                ),
            })
        }
        Event::PotToJackpot => {
            out.push("  Nobody won Trine Dominance: the pot becomes the Jackpot.".to_owned())
        }
        Event::ActionCommitted { actor, card, open_bid } => {
            let mut line = match open_bid {
                Some(b) => {
                    format!("{} plays an Action card face down and bids {b} face up.", name(c, *actor))
                }
                None => format!("{} plays an Action card and bids, face down.", name(c, *actor)),
            };
            if let Some(card) = card {
                line.push_str(&format!(
                    " (Face down: {} bid {}{}.)",
                    card.attribute.name(),
                    card.bid,
                    if card.wildcard { " with a Wildcard" } else { "" }
                ));
            }
            out.push(line);
        }
        Event::ActionsRevealed => {
            out.push("Reveal:".to_owned());
            for &a in &c.order {
                if let Some(card) = c.actors[a.index()].action.value() {
                    out.push(format!(
                        "  {} played {} and bid {}{}",
                        name(c, a),
                        card.attribute.name(),
                        card.bid,
                        if card.wildcard { " with a Wildcard" } else { "" }
                    ));
                }
            }
            for p in &c.showdown.pairs {
                let [x, y] = p.actors;
                let who = |d: Dominance| match d {
                    Dominance::Win => name(c, x),
                    Dominance::Loss => name(c, y),
                    Dominance::Tie => "a tie".to_owned(),
                };
                let sweep = match p.sweep {
                    [true, _] => format!(", Sweep for {}", name(c, x)),
                    [_, true] => format!(", Sweep for {}", name(c, y)),
                    _ => String::new(),
                };
                out.push(format!(
                    "  {} against {}: Trine Dominance {}, Attribute Dominance {}{sweep}; Showdown Totals {} – {}",
                    name(c, x),
                    name(c, y),
                    who(p.trine),
                    who(p.attribute),
                    p.totals[0],
                    p.totals[1]
                ));
            }
        }
        Event::Struck { strike, damage } => {
            if let Some(s) = c.showdown.strikes.get(usize::from(*strike)) {
                let how = if s.unopposed { " (first, unopposed)" } else { "" };
                out.push(if *damage == 0 {
                    format!("{} → {}: no damage{how}.", name(c, s.attacker), name(c, s.target))
                } else {
                    format!(
                        "{} → {}: {damage} {} damage{how}.",
                        name(c, s.attacker),
                        name(c, s.target),
                        s.aspect
                    )
                });
            }
        }
        Event::StrikeVoid { strike, why } => {
            if let Some(s) = c.showdown.strikes.get(usize::from(*strike)) {
                let why = match why {
                    Void::AttackerOut => "it is out before its turn",
                    Void::TargetOut => "the target is out",
                };
                out.push(format!("{} → {}: nothing, {why}.", name(c, s.attacker), name(c, s.target)));
            }
        }
        Event::DamageTaken { actor, aspect, spread, exhausted } => {
            out.push(format!("  {} takes it: {}.", name(c, *actor), spread_text(*aspect, *spread)));
            if let Some(x) = exhausted {
                out.push(format!("  {} has no {x} left: eliminated.", name(c, *actor)));
            }
        }
        Event::TokensRefreshed => {}
        Event::Eliminated { actor, status } => {
            let why = match status {
                Status::Exhausted(x) => format!("every {x} Attribute at 0"),
                _ => "an extension's Elimination Check".to_owned(),
            };
            out.push(format!("{} is eliminated: {why}.", name(c, *actor)));
        }
        Event::Engaged { clusters } => {
            if clusters.is_empty() {
                out.push("The GM engages every Actor: one Hand for all.".to_owned());
            } else {
                let list: Vec<String> = clusters
                    .iter()
                    .enumerate()
                    .map(|(k, cl)| format!("cluster {}: {}", k + 1, targets(c, *cl)))
                    .collect();
                out.push(format!(
                    "The GM splits the brawl ({}); each cluster plays the Hand on its own, the others sit it out.",
                    list.join("; ")
                ));
                out.push(format!("--- Cluster 1 — Under the Gun: {} ---", name(c, c.utg)));
            }
        }
        Event::ClusterEnded => out.push(
            "The cluster has no opposition left: its Hand ends, the face-down cards go back.".to_owned(),
        ),
        Event::ClusterStarted { cluster, utg } => {
            out.push("Bids return to the stacks.".to_owned());
            out.push(format!("--- Cluster {} — Under the Gun: {} ---", cluster + 1, name(c, *utg)));
        }
        Event::Justified { actor, line, .. } => {
            out.push(format!("  {} justifies: \"{line}\"", name(c, *actor)))
        }
        Event::Adjusted { actor, change, from, reason } => {
            let what = match change {
                crate::rules::Adjustment::Chips { attribute, to } => {
                    format!("{} {from} → {to}", attribute.name())
                }
                crate::rules::Adjustment::Wildcards { to } => format!("Wildcards left {from} → {to}"),
            };
            out.push(format!("The GM adjusts {}: {what} (reason: \"{reason}\").", name(c, *actor)));
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
                    let (still, verb) = match names.as_slice() {
                        [one] => ((*one).to_owned(), "is"),
                        [rest @ .., last] => (format!("{} and {last}", rest.join(", ")), "are"),
                        [] => ("nobody".to_owned(), "is"),
                    };
                    format!("{still} {verb} still in: {} wins", crate::outcome::side_words(c, *side))
                }
                Ending::OneSideLeft(None) => "nobody is left in it".to_owned(),
                Ending::Fiction => "the GM ends it: the fiction has resolved the objective".to_owned(),
                Ending::Extension => "an extension ends it".to_owned(),
                Ending::Stalemate(n) => {
                    format!("a stalemate: {n} Hands in a row without damage or elimination")
                }
            };
            out.push(String::new());
            out.push(format!("=== The Conflict is over: {how}. ==="));
        }
    }
    out
}

/// [`narrate_lines`] joined by newlines; `None` when there are none.
pub fn narrate(before: &Conflict, event: &Event, viewer: Viewer) -> Option<String> {
    let lines = narrate_lines(before, event, viewer);
    (!lines.is_empty()).then(|| lines.join("\n"))
}
