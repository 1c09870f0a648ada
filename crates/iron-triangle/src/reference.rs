//! The quick reference for players (issue 14 part 8; rules reference §2, §3, §5, §6): the
//! steps of a turn in brief, the rankings, the thirteen moves and the specials — built from
//! the crate's own tables ([`Action`], [`Element`], [`Move`], [`Special`]) — and a legend of
//! every symbol the narration ([`crate::narrate`]) and the prompts ([`crate::prompt`]) print.
//! Every shell shows it: `facedown iron-triangle rules`, `?` at a prompt.

use table::reference::{legend, section};

use crate::card::{Action, Element, Move};
use crate::conflict::Window;
use crate::special::{Edition, Special};

/// The quick reference: [`IronTriangle::quick_reference`](crate::IronTriangle).
pub fn quick_reference() -> String {
    let mut s = String::from("IRON TRIANGLE: QUICK REFERENCE\n\n");
    s.push_str(&section("ONE TURN", &turn_steps()));
    s.push_str(&section("WINNER AND LOSS", &winner_and_loss()));
    s.push_str(&section("ACTIONS: each beats one, a 3-cycle", &action_lines()));
    s.push_str(&section("ELEMENTS: each beats two", &element_lines()));
    s.push_str(&section("MOVES: action + element, base loss, stance multiplier", &move_lines()));
    s.push_str(&section("SPECIALS, in list order: a later one prevails in a clash", &special_lines()));
    s.push_str(&section("READING THE LOG", &reading()));
    s.push_str(&legend(&legend_entries()));
    s
}

fn turn_steps() -> Vec<String> {
    [
        "1. Opponent: the active character chooses a character of the other side still in the conflict.",
        "2. Stance: both commit a stance face down (an amount of one energy type, 0 = no stance); both are revealed.",
        "3. Move: both commit a move face down, or surrender; both are revealed.",
        "4. Winner: see below.",
        "5. Consequences: the loser takes its loss, spread over the energy types.",
        "Specials are played face down in timing windows: before opponent, before stance, before move,",
        "  before resolving; how many cards were played is shown; who passed may respond.",
        "The winner passes the next turn to a character of its side, one with the fewest turns;",
        "  on a tie the GM gives it to either side, the same way.",
        "A character with zero energy in every type is out; a side with nobody left loses.",
    ]
    .map(str::to_owned)
    .to_vec()
}

fn winner_and_loss() -> Vec<String> {
    [
        "The move whose action beats the other's wins; else whose element beats; else the one not",
        "  disadvantaged; else a tie.",
        "A stance counts when the move's action is of the stance's type (amount > 0); else it was a feint.",
        "The loser loses: winner's stance × winner's multiplier + own stance + winner's base + combo",
        "  + disadvantage. The own-stance part comes from the stance's type; the rest is spread.",
        "Tie: each loses the base of the other's move. Surrender: leave the conflict, no loss.",
        "Disadvantage: after a loss, a move sharing the action or element of the last losing",
        "  move is disadvantaged; losing with it adds the number of earlier losses.",
        "Combo: after a win, a learned follow-up against the same opponent adds the number of",
        "  earlier wins in the chain.",
    ]
    .map(str::to_owned)
    .to_vec()
}

fn reading() -> Vec<String> {
    let e = crate::Energy::new(3, 2, 5);
    let m = Move::STARTING[1];
    let st = crate::Stance::new(Action::Grapple, 2);
    vec![
        format!("Energy {e} = 3 Defend, 2 Grapple, 5 Attack (current energy per type)."),
        format!(
            "A move {m} = {} {} + {} {}; a stance {st} = 2 Grapple energy committed.",
            m.action().symbol(),
            title(m.action().name()),
            m.element().symbol(),
            title(m.element().name())
        ),
        "A loss is shown as its parts: winner's stance + own stance + base + combo + disadvantage = total."
            .to_owned(),
    ]
}

fn action_lines() -> Vec<String> {
    Action::ALL
        .iter()
        .map(|&a| {
            let beaten = Action::ALL.iter().find(|&&b| a.beats(b)).copied().unwrap_or(a);
            format!("{} {} beats {} {}", a.symbol(), title(a.name()), beaten.symbol(), title(beaten.name()))
        })
        .collect()
}

fn element_lines() -> Vec<String> {
    Element::ALL
        .iter()
        .map(|&e| {
            let beaten: Vec<String> = Element::ALL
                .iter()
                .filter(|&&o| e.beats(o))
                .map(|o| format!("{} {}", o.symbol(), title(o.name())))
                .collect();
            format!("{} {} ({}) beats {}", e.symbol(), title(e.name()), height(e), beaten.join(", "))
        })
        .collect()
}

fn move_lines() -> Vec<String> {
    Action::ALL
        .iter()
        .map(|&a| {
            let moves: Vec<String> = Move::ALL
                .iter()
                .filter(|m| m.action() == a)
                .map(|m| format!("{m} {} ×{}", m.base(), m.multiplier()))
                .collect();
            moves.join("   ")
        })
        .chain(["Starting moves: ".to_owned() + &Move::STARTING.map(|m| m.to_string()).join(" ")])
        .collect()
}

fn special_lines() -> Vec<String> {
    let windows = [Window::BeforeOpponent, Window::BeforeStance, Window::BeforeMove, Window::BeforeResolving];
    let mut seen: Vec<&str> = Vec::new();
    let mut lines = Vec::new();
    for special in Special::all().into_iter().filter(|s| s.in_edition(Edition::Current)) {
        let name = special.base_name(Edition::Current);
        // One line per special: the variants of one (Wax On ○, ▨, ◆) share it.
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        let level = match special.level_required() {
            0 => String::new(),
            l => format!(", level {l}"),
        };
        let when: Vec<&str> = windows.iter().filter(|w| special.fits(**w)).map(|w| w.name()).collect();
        let when = if when.len() == windows.len() { "any window".to_owned() } else { when.join(" or ") };
        let variants = if special.action().is_some() { "; one card per action ○ ▨ ◆" } else { "" };
        lines.push(format!("{}. {name} ({when}{level}){variants}", special.rank()));
    }
    lines
}

/// Every symbol narration and prompts print, with its meaning, one symbol a line: the actions
/// (also the energy types: energy ○3 ▨2 ◆5 is 3 Defend, 2 Grapple, 5 Attack), the elements
/// (a move ▨☷ is Grapple Earth), and the marks of the log.
fn legend_entries() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Action::ALL
        .iter()
        .map(|&a| {
            (
                a.symbol().to_string(),
                format!("{}: an action, and the energy type of that name", title(a.name())),
            )
        })
        .collect();
    out.extend(
        Element::ALL
            .iter()
            .map(|&e| (e.symbol().to_string(), format!("{} ({}): an element", title(e.name()), height(e)))),
    );
    out.extend([("×".to_owned(), "a move's stance multiplier (×2)".to_owned())]);
    out
}

/// The book's other name for an element's height or motion.
fn height(e: Element) -> &'static str {
    match e {
        Element::Earth => "Low",
        Element::Water => "Mid",
        Element::Fire => "High",
        Element::Heaven => "Jump",
        Element::Spin => "Balance",
    }
}

fn title(word: &str) -> String {
    let mut c = word.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}
