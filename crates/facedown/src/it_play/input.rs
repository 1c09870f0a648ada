//! Hot-seat entry: reading a seat's decision from the keyboard, hidden choices without echo.

use crate::input::escape;
use std::io::{BufRead, IsTerminal, Write};

use iron_triangle::rules::{Note, Verdict};
use iron_triangle::special::Special;
use iron_triangle::view::{ConflictView, PhaseView};
use iron_triangle::windows::SpecialCard;
use iron_triangle::{Action, Command, Conflict, Energy, FighterId, Play, Stance};
use table::SeatId;

/// The keyboard: a terminal (hidden entry without echo) or piped lines.
pub struct Keyboard {
    tty: bool,
    stdin: std::io::StdinLock<'static>,
}

impl Keyboard {
    /// The process's standard input.
    pub fn new() -> Self {
        let stdin = std::io::stdin();
        Keyboard { tty: stdin.is_terminal(), stdin: stdin.lock() }
    }

    /// Whether a person types at a terminal (rather than a pipe).
    pub fn is_terminal(&self) -> bool {
        self.tty
    }

    /// Reads one answer; `None` when the input has ended. A hidden answer is typed without
    /// echo on a terminal; from a pipe it is read as a plain line (and never printed).
    pub fn read(
        &mut self,
        prompt: &str,
        hidden: bool,
        out: &mut dyn Write,
    ) -> anyhow::Result<Option<String>> {
        if self.tty && hidden {
            out.flush()?;
            return match rpassword::prompt_password(prompt) {
                Ok(s) => Ok(Some(s)),
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(None),
                Err(e) => Err(e.into()),
            };
        }
        write!(out, "{prompt}")?;
        out.flush()?;
        let mut line = String::new();
        if self.stdin.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(None);
        }
        if !self.tty {
            // The typed line is not echoed by a pipe; end the prompt's line.
            writeln!(out)?;
        }
        Ok(Some(line.trim().to_owned()))
    }
}

/// What kind of decision the legal commands ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Which player character takes the first turn.
    FirstTurn,
    /// An opponent.
    Opponent,
    /// A stance (hidden).
    Stance,
    /// A move (hidden).
    Move,
    /// A loss spread.
    Spread,
    /// Energy regained, spread (Santa Carla, Vampire).
    Gain,
    /// Drunken Monkey: swap the revealed move for a random one, or keep it.
    Swap,
    /// Kill or spare.
    Mercy,
    /// Who takes the next turn.
    Pass,
    /// A tied minor conflict's outcome.
    Outcome,
    /// A special or a pass in a timing window (hidden), for one character.
    Special,
    /// Only "end combo" is possible.
    EndCombo,
}

impl Kind {
    /// The kind of the decision among `legal` (never empty).
    pub fn of(legal: &[Command]) -> Kind {
        let main = legal.iter().find(|c| **c != Command::EndCombo);
        match main {
            Some(Command::TakeFirstTurn { .. }) => Kind::FirstTurn,
            Some(Command::ChooseOpponent { .. }) => Kind::Opponent,
            Some(Command::CommitStance { .. }) => Kind::Stance,
            Some(Command::CommitMove { .. }) => Kind::Move,
            Some(Command::SpreadLoss { .. }) => Kind::Spread,
            Some(Command::SpreadGain { .. }) => Kind::Gain,
            Some(Command::DrunkenSwap { .. }) => Kind::Swap,
            Some(Command::DecideMercy { .. }) => Kind::Mercy,
            Some(Command::PassTurn { .. }) => Kind::Pass,
            Some(Command::RecordOutcome { .. }) => Kind::Outcome,
            Some(Command::PlaySpecial { .. }) => Kind::Special,
            Some(Command::EndCombo | Command::AdjustEnergy { .. }) | None => Kind::EndCombo,
        }
    }

    /// Whether the answer is a hidden commitment.
    pub fn hidden(self) -> bool {
        matches!(self, Kind::Stance | Kind::Move | Kind::Special)
    }
}

/// The character a window decision is asked for: the first of the seat's characters with a
/// choice due (a seat may act for several allies in the before-resolving window; each is asked
/// in turn).
pub fn special_fighter(legal: &[Command]) -> Option<FighterId> {
    legal.iter().find_map(|c| match c {
        Command::PlaySpecial { fighter, .. } => Some(*fighter),
        _ => None,
    })
}

/// The cards `fighter` may play among `legal` (`None`: pass).
fn special_options(legal: &[Command], fighter: FighterId) -> Vec<Option<SpecialCard>> {
    legal
        .iter()
        .filter_map(|c| match c {
            Command::PlaySpecial { fighter: f, card } if *f == fighter => Some(*card),
            _ => None,
        })
        .collect()
}

/// A card as the players call it: "pass", "Scouter", "There Can Be Only One Kuro".
pub fn card_text(view: &ConflictView, card: Option<SpecialCard>) -> String {
    match card {
        None => "pass".to_owned(),
        Some(c) => {
            let name = match c.copy {
                Some(copied) => format!("{} {}", c.special.name(view.edition), copied.name(view.edition)),
                None => c.special.name(view.edition),
            };
            match c.target {
                Some(t) => format!("{name} {}", fighter_name(view, t)),
                None => name,
            }
        }
    }
}

/// A fighter whose only choice in the window now is a pass: taking it automatically reveals
/// nothing (everyone in a window is asked, and a pass is face down like a card).
pub fn forced_pass(legal: &[Command]) -> Option<Command> {
    let mut fighters: Vec<FighterId> = legal
        .iter()
        .filter_map(|c| match c {
            Command::PlaySpecial { fighter, .. } => Some(*fighter),
            _ => None,
        })
        .collect();
    fighters.dedup();
    fighters.into_iter().find_map(|f| match special_options(legal, f).as_slice() {
        [None] => Some(Command::PlaySpecial { fighter: f, card: None }),
        _ => None,
    })
}

/// The GM's energy adjustment, `adjust <character> <○> <▨> <◆> <reason…>`: `None` when the
/// answer is not one, else the command or what is wrong with it.
pub fn parse_adjust(text: &str, conflict: &Conflict) -> Option<Result<Command, String>> {
    let t = text.trim();
    let rest = t.strip_prefix("adjust").or_else(|| t.strip_prefix("Adjust"))?;
    if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let help = "write adjust <character> <○> <▨> <◆> <reason>, e.g. \"adjust Ada 3 2 4 misread the spread\"";
    let tokens: Vec<&str> = rest.split_whitespace().collect();
    let num = |s: &str| s.parse::<u8>().ok();
    // The name is everything before the first three numbers in a row (names may have spaces).
    let Some(at) =
        (1..tokens.len().saturating_sub(2)).find(|&i| tokens[i..i + 3].iter().all(|s| num(s).is_some()))
    else {
        return Some(Err(help.to_owned()));
    };
    let name = tokens[..at].join(" ");
    let Some(fighter) = conflict.find(&name) else {
        return Some(Err(format!("there is no character named {name:?}; {help}")));
    };
    let amount = |i: usize| num(tokens[at + i]).unwrap_or(0);
    let energy = Energy::new(amount(0), amount(1), amount(2));
    let reason = tokens[at + 3..].join(" ");
    if reason.is_empty() {
        return Some(Err(format!("give a reason for the log; {help}")));
    }
    let Ok(reason) = Note::from(&reason) else {
        return Some(Err(format!("the reason is at most {} bytes", Note::new().capacity())));
    };
    Some(Ok(Command::AdjustEnergy { fighter, energy, reason }))
}

/// The line added to every question the GM is asked.
pub const ADJUST_HINT: &str = "GM: at any prompt you may instead type \"adjust <character> <○> <▨> <◆> <reason>\" to set a character's energy (logged); then this question is asked again.";

/// The member of the turn's pair (or of the aftermath's) that `seat_name` controls.
pub fn seat_member(view: &ConflictView, seat_name: &str) -> Option<FighterId> {
    let pair = match &view.phase {
        PhaseView::Turn { active, opponent, .. } => vec![Some(*active), *opponent],
        PhaseView::Aftermath(a) => vec![Some(a.pair[0]), Some(a.pair[1])],
        _ => vec![],
    };
    pair.into_iter()
        .flatten()
        .find(|id| view.fighters.get(usize::from(id.0)).map(|f| f.seat.as_str()) == Some(seat_name))
}

fn fighter_name(view: &ConflictView, id: FighterId) -> String {
    // Printed only: escaped (names come from files).
    view.fighters
        .get(usize::from(id.0))
        .map_or_else(|| format!("#{}", id.0), |f| escape(&f.name).into_owned())
}

/// The question and the options shown to a seat for a decision.
pub fn question(
    kind: Kind,
    legal: &[Command],
    view: &ConflictView,
    conflict: &Conflict,
    seat: SeatId,
) -> String {
    let seat_name = conflict.seat_name(seat);
    let me = seat_member(view, seat_name);
    let me_name = me.map_or_else(|| escape(seat_name).into_owned(), |id| fighter_name(view, id));
    let targets = |ids: Vec<FighterId>| -> String {
        ids.iter()
            .enumerate()
            .map(|(i, &id)| {
                let e =
                    view.fighters.get(usize::from(id.0)).map(|f| f.energy.to_string()).unwrap_or_default();
                format!("  {}. {} ({e})", i + 1, fighter_name(view, id))
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut q = match kind {
        Kind::FirstTurn => format!(
            "Which player character takes the first turn? Type a name or number.\n{}",
            targets(
                legal
                    .iter()
                    .filter_map(|c| match c {
                        Command::TakeFirstTurn { fighter } => Some(*fighter),
                        _ => None,
                    })
                    .collect()
            )
        ),
        Kind::Opponent => format!(
            "{me_name}: choose an opponent. Type a name or number.\n{}",
            targets(
                legal
                    .iter()
                    .filter_map(|c| match c {
                        Command::ChooseOpponent { opponent } => Some(*opponent),
                        _ => None,
                    })
                    .collect()
            )
        ),
        Kind::Pass => format!(
            "Who takes the next turn? Type a name or number.\n{}",
            targets(
                legal
                    .iter()
                    .filter_map(|c| match c {
                        Command::PassTurn { to } => Some(*to),
                        _ => None,
                    })
                    .collect()
            )
        ),
        Kind::Stance => {
            let e = me
                .and_then(|id| view.fighters.get(usize::from(id.0)))
                .map(|f| f.energy.to_string())
                .unwrap_or_default();
            format!(
                "{me_name}: choose a stance in secret (energy {e}). Type an amount and a type, e.g. \"2 grapple\", \"2▨\" or \"1 d\"; 0 for no stance. It is not shown."
            )
        }
        Kind::Move => {
            let options: Vec<String> = legal
                .iter()
                .filter_map(|c| match c {
                    Command::CommitMove { play: Play::Move(m) } => Some(*m),
                    _ => None,
                })
                .enumerate()
                .map(|(i, m)| {
                    let name = me
                        .map(|id| conflict.fighter(id).character.move_name(m))
                        .unwrap_or_else(|| m.to_string());
                    format!("  {}. {} {m}", i + 1, escape(&name))
                })
                .collect();
            format!(
                "{me_name}: choose a move in secret. Type its name, number or symbols (\"▨☷\", \"grapple low\"), or \"surrender\". It is not shown.\n{}",
                options.join("\n")
            )
        }
        Kind::Spread | Kind::Gain => {
            let due = legal
                .iter()
                .find_map(|c| match c {
                    Command::SpreadLoss { spread } | Command::SpreadGain { spread } => Some(spread.total()),
                    _ => None,
                })
                .unwrap_or(0);
            // Whose energy it is (with Pressure Point or Yojimbo, not always the seat's own), and
            // for a pair's loss how the amount to spread follows from the whole loss.
            let (whose, why) = match &conflict.phase {
                iron_triangle::Phase::Aftermath(a) => conflict
                    .pending(a)
                    .find(|&p| conflict.chooser(a, p) == seat && p.is_gain(conflict) == (kind == Kind::Gain))
                    .map(|p| {
                        let f = conflict.fighter(conflict.pending_fighter(a, p));
                        let why = match p {
                            iron_triangle::effects::Pending::Pair(pos) => spread_reason(f, &a.losses[pos]),
                            iron_triangle::effects::Pending::Extra(_) => String::new(),
                        };
                        (f.name().to_owned(), why)
                    }),
                _ => None,
            }
            .unwrap_or_else(|| (me_name.clone(), String::new()));
            let mut most = Energy::ZERO;
            for c in legal {
                if let Command::SpreadLoss { spread } | Command::SpreadGain { spread } = c {
                    for t in Action::ALL {
                        let m = most.get_mut(t);
                        *m = (*m).max(spread.get(t));
                    }
                }
            }
            let what = if kind == Kind::Gain { "energy regained" } else { "a loss" };
            format!(
                "{me_name}: spread {what} of {due} for {whose}{why} over the energy types (at most {most}). Type three amounts for ○ ▨ ◆ (\"1 0 2\") or amounts by type (\"d1 a2\", \"1○ 2◆\")."
            )
        }
        Kind::Mercy => {
            format!("{me_name}: your opponent surrendered in a lethal conflict. Type \"spare\" or \"kill\".")
        }
        Kind::Swap => format!(
            "{me_name}: Drunken Monkey. Swap your revealed move for one your opponent picks at random from your other moves? Type \"swap\" or \"keep\"."
        ),
        Kind::Outcome => {
            "The minor conflict tied: record the outcome. Type \"players\", \"gm\" or \"draw\".".to_owned()
        }
        Kind::Special => special_question(legal, view),
        Kind::EndCombo => format!("{me_name}: type \"end combo\"."),
    };
    if kind != Kind::EndCombo && legal.contains(&Command::EndCombo) {
        q.push_str("\nOr type \"end combo\" to end your side's combo chain (its cards return to hand).");
    }
    if conflict.is_gm(seat) {
        q.push('\n');
        q.push_str(ADJUST_HINT);
    }
    q
}

/// The window question for the first of the seat's characters with a choice due.
fn special_question(legal: &[Command], view: &ConflictView) -> String {
    let Some(fighter) = special_fighter(legal) else {
        return "Nothing to choose in this window.".to_owned();
    };
    let who = fighter_name(view, fighter);
    let (window, count) = match &view.phase {
        PhaseView::Turn { window: Some(w), .. } => (w.window.name(), w.count),
        _ => ("timing", None),
    };
    let round = match count {
        None => format!("{who}: the {window} window. Play a special face down, or pass?"),
        Some(n) => format!(
            "{who}: the {window} window. {n} card{} face down: respond with a special, or pass?",
            if n == 1 { " is" } else { "s are" }
        ),
    };
    let options: Vec<String> = special_options(legal, fighter)
        .into_iter()
        .enumerate()
        .map(|(i, card)| format!("  {}. {}", i + 1, card_text(view, card)))
        .collect();
    format!(
        "{round} Type a number, \"pass\", or a special's name (with the character it names, e.g. \"there can be only one Kuro\"). It is not shown.\n{}",
        options.join("\n")
    )
}

/// Reads a window answer for `fighter`: a number, "pass", or a special's name with an
/// optional character name after it. A special that is not among the options is still
/// returned, so that the engine says why it cannot be played.
fn parse_special(
    text: &str,
    fighter: FighterId,
    legal: &[Command],
    conflict: &Conflict,
) -> Result<Command, String> {
    let options = special_options(legal, fighter);
    let lower = text.to_lowercase();
    let play = |card: Option<SpecialCard>| Command::PlaySpecial { fighter, card };
    if matches!(lower.as_str(), "pass" | "p" | "no" | "none") {
        return Ok(play(None));
    }
    if let Ok(n) = text.parse::<usize>() {
        return n
            .checked_sub(1)
            .and_then(|i| options.get(i).copied())
            .map(play)
            .ok_or_else(|| format!("choose a number from 1 to {}", options.len()));
    }
    let help = "not a special: type one of the listed numbers or names, or \"pass\"";
    let words: Vec<&str> = text.split_whitespace().collect();
    // The longest reading as a special, the rest naming a character.
    let mut needs_type = None;
    for cut in (1..=words.len()).rev() {
        let special = match words[..cut].join(" ").parse::<Special>() {
            Ok(s) => s,
            Err(iron_triangle::special::SpecialError::NeedsType(n)) => {
                needs_type.get_or_insert(n);
                continue;
            }
            Err(_) => continue,
        };
        let rest = words[cut..].join(" ");
        // Liquid Metal: the rest names the copied special (and its character, if any).
        if special == Special::LiquidMetal && !rest.is_empty() {
            let copied = match parse_special(&rest, fighter, &[], conflict)? {
                Command::PlaySpecial { card: Some(c), .. } => c,
                _ => {
                    return Err(
                        "name the special Liquid Metal copies after it, e.g. \"liquid metal scouter\""
                            .to_owned(),
                    );
                }
            };
            let card = SpecialCard { special, target: copied.target, copy: Some(copied.special) };
            // The character may be left out when only one can be named.
            let named: Vec<Option<SpecialCard>> = options
                .iter()
                .copied()
                .filter(|c| c.is_some_and(|c| c.special == special && c.copy == card.copy))
                .collect();
            return Ok(match (card.target, named.as_slice()) {
                (None, [one]) => play(*one),
                _ => play(Some(card)),
            });
        }
        let target = if rest.is_empty() {
            None
        } else {
            match conflict.find(&rest) {
                Some(t) => Some(t),
                None => continue,
            }
        };
        if target.is_some() && !special.takes_target() {
            return Err(format!("{} names no character", special.name(conflict.edition)));
        }
        if target.is_none() && special.takes_target() {
            // The character may be left out when only one can be named.
            let named: Vec<Option<SpecialCard>> =
                options.iter().copied().filter(|c| c.is_some_and(|c| c.special == special)).collect();
            return match named.as_slice() {
                [one] => Ok(play(*one)),
                [] => Ok(play(Some(SpecialCard::new(special)))),
                _ => Err("name the character it targets after the special, as listed".to_owned()),
            };
        }
        return Ok(play(Some(SpecialCard { target, ..SpecialCard::new(special) })));
    }
    match needs_type {
        Some(n) => Err(format!("{n} needs an action type, e.g. \"{n} attack\" or \"{n} ◆\"")),
        None => Err(help.to_owned()),
    }
}

fn pick_fighter(text: &str, options: &[FighterId], conflict: &Conflict) -> Result<FighterId, String> {
    if let Ok(n) = text.parse::<usize>() {
        return n
            .checked_sub(1)
            .and_then(|i| options.get(i).copied())
            .ok_or_else(|| format!("choose a number from 1 to {}", options.len()));
    }
    conflict.find(text).ok_or_else(|| format!("there is no character named {text:?}"))
}

/// How the amount to spread follows from a loss of the pair, when it is not the whole loss:
/// " (the loss of 8: 2 from ○, its own stance, + 6 to spread)", with the part lost for want
/// of energy when there is one (issue 13).
fn spread_reason(f: &iron_triangle::conflict::Fighter, loss: &iron_triangle::turn::Loss) -> String {
    let (stance_part, spread) = loss.taken_from(f.energy);
    let from_stance = stance_part.total();
    let short = loss.total() - from_stance - spread;
    if from_stance == 0 && short == 0 {
        return String::new();
    }
    let mut parts = Vec::new();
    if let Some(t) = loss.stance_type.filter(|_| from_stance > 0) {
        parts.push(format!("{from_stance} from {} (its own stance)", t.symbol()));
    }
    parts.push(format!("{spread} to spread"));
    if short > 0 {
        parts.push(format!("{short} more than it has left"));
    }
    format!(" (the loss of {}: {})", loss.total(), parts.join(" + "))
}

/// Reads a spread such as `1 0 2`, `d1 a2`, `1○ 2◆` or `defend 1 attack 2`.
pub fn parse_spread(text: &str) -> Result<Energy, String> {
    let help = "write three amounts for ○ ▨ ◆ (\"1 0 2\") or amounts by type (\"d1 a2\")";
    let tokens: Vec<&str> =
        text.split(|c: char| c.is_whitespace() || c == ',' || c == ';').filter(|t| !t.is_empty()).collect();
    if tokens.is_empty() {
        return Err(help.to_owned());
    }
    let num = |t: &str| t.parse::<u8>().ok();
    if tokens.iter().all(|t| num(t).is_some()) {
        return match tokens.as_slice() {
            [d, g, a] => Ok(Energy::new(num(d).unwrap_or(0), num(g).unwrap_or(0), num(a).unwrap_or(0))),
            _ => Err(help.to_owned()),
        };
    }
    let mut e = Energy::ZERO;
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i];
        let digits: String = t.chars().filter(|c| c.is_ascii_digit()).collect();
        let word: String = t.chars().filter(|c| !c.is_ascii_digit()).collect();
        let (amount, word) = if !digits.is_empty() && !word.is_empty() {
            (digits, word)
        } else if digits.is_empty() && i + 1 < tokens.len() && num(tokens[i + 1]).is_some() {
            i += 1;
            (tokens[i].to_owned(), word)
        } else if !digits.is_empty() && i + 1 < tokens.len() && num(tokens[i + 1]).is_none() {
            i += 1;
            (digits, tokens[i].to_owned())
        } else {
            return Err(help.to_owned());
        };
        let action: Action = word.parse().map_err(|_| help.to_owned())?;
        let amount: u8 = amount.parse().map_err(|_| help.to_owned())?;
        let slot = e.get_mut(action);
        *slot = slot.saturating_add(amount);
        i += 1;
    }
    Ok(e)
}

/// Turns a seat's answer into a command. Errors are messages to show before asking again;
/// for hidden answers they never repeat what was typed.
pub fn parse_answer(
    kind: Kind,
    text: &str,
    legal: &[Command],
    view: &ConflictView,
    conflict: &Conflict,
    seat: SeatId,
) -> Result<Command, String> {
    let t = text.trim();
    let lower = t.to_lowercase();
    if matches!(lower.as_str(), "end combo" | "end_combo" | "endcombo" | "end") {
        return if legal.contains(&Command::EndCombo) {
            Ok(Command::EndCombo)
        } else {
            Err("there is no combo of yours to end now".to_owned())
        };
    }
    let ids =
        |f: fn(&Command) -> Option<FighterId>| -> Vec<FighterId> { legal.iter().filter_map(f).collect() };
    match kind {
        Kind::FirstTurn => {
            let opts = ids(|c| match c {
                Command::TakeFirstTurn { fighter } => Some(*fighter),
                _ => None,
            });
            pick_fighter(t, &opts, conflict).map(|fighter| Command::TakeFirstTurn { fighter })
        }
        Kind::Opponent => {
            let opts = ids(|c| match c {
                Command::ChooseOpponent { opponent } => Some(*opponent),
                _ => None,
            });
            pick_fighter(t, &opts, conflict).map(|opponent| Command::ChooseOpponent { opponent })
        }
        Kind::Pass => {
            let opts = ids(|c| match c {
                Command::PassTurn { to } => Some(*to),
                _ => None,
            });
            pick_fighter(t, &opts, conflict).map(|to| Command::PassTurn { to })
        }
        Kind::Stance => t.parse::<Stance>().map(|stance| Command::CommitStance { stance }).map_err(|_| {
            "not a stance: write an amount and a type, e.g. \"2 grapple\" or \"2▨\", or 0 for none".to_owned()
        }),
        Kind::Move => {
            if lower == "surrender" {
                return Ok(Command::CommitMove { play: Play::Surrender });
            }
            let moves: Vec<_> = legal
                .iter()
                .filter_map(|c| match c {
                    Command::CommitMove { play: Play::Move(m) } => Some(*m),
                    _ => None,
                })
                .collect();
            if let Ok(n) = t.parse::<usize>() {
                return n
                    .checked_sub(1)
                    .and_then(|i| moves.get(i).copied())
                    .map(|m| Command::CommitMove { play: Play::Move(m) })
                    .ok_or_else(|| format!("choose a number from 1 to {}", moves.len()));
            }
            let me = seat_member(view, conflict.seat_name(seat));
            let found = match me {
                Some(id) => conflict.fighter(id).character.find_move(t),
                None => t.parse().ok(),
            };
            found
                .map(|m| Command::CommitMove {
                    play: Play::Move(m),
                })
                .ok_or_else(|| {
                    "not a move: type one of the listed names or numbers, symbols such as \"▨☷\", or \"surrender\"".to_owned()
                })
        }
        Kind::Spread => parse_spread(t).map(|spread| Command::SpreadLoss { spread }),
        Kind::Gain => parse_spread(t).map(|spread| Command::SpreadGain { spread }),
        Kind::Swap => match lower.as_str() {
            "swap" | "s" | "yes" | "y" => Ok(Command::DrunkenSwap { swap: true }),
            "keep" | "k" | "no" | "n" => Ok(Command::DrunkenSwap { swap: false }),
            _ => Err("type \"swap\" or \"keep\"".to_owned()),
        },
        Kind::Mercy => match lower.as_str() {
            "kill" | "k" | "yes" | "y" => Ok(Command::DecideMercy { kill: true }),
            "spare" | "s" | "no" | "n" => Ok(Command::DecideMercy { kill: false }),
            _ => Err("type \"spare\" or \"kill\"".to_owned()),
        },
        Kind::Outcome => match lower.as_str() {
            "players" | "player" | "p" => Ok(Command::RecordOutcome { verdict: Verdict::Players }),
            "gm" | "g" => Ok(Command::RecordOutcome { verdict: Verdict::Gm }),
            "draw" | "d" => Ok(Command::RecordOutcome { verdict: Verdict::Draw }),
            _ => Err("type \"players\", \"gm\" or \"draw\"".to_owned()),
        },
        Kind::Special => match special_fighter(legal) {
            Some(fighter) => parse_special(t, fighter, legal, conflict),
            None => Err("nothing to choose in this window".to_owned()),
        },
        Kind::EndCombo => Err("type \"end combo\"".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads_read_in_several_forms() {
        assert_eq!(parse_spread("2 0 3"), Ok(Energy::new(2, 0, 3)));
        assert_eq!(parse_spread("d2 a3"), Ok(Energy::new(2, 0, 3)));
        assert_eq!(parse_spread("2○ 3◆"), Ok(Energy::new(2, 0, 3)));
        assert_eq!(parse_spread("defend 2 attack 3"), Ok(Energy::new(2, 0, 3)));
        assert_eq!(parse_spread("2 grapple"), Ok(Energy::new(0, 2, 0)));
        assert!(parse_spread("2 3").is_err());
        assert!(parse_spread("lots").is_err());
    }

    fn ambush() -> Conflict {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/iron-triangle/ambush-2v3.toml");
        super::super::setup_file::load_conflict(Some(&path)).unwrap()
    }

    #[test]
    fn adjustments_read_a_name_three_amounts_and_a_reason() {
        let c = ambush();
        let chief = c.find("Bandit Chief").unwrap();
        match parse_adjust("adjust Bandit Chief 1 2 3 fell off the wagon", &c) {
            Some(Ok(Command::AdjustEnergy { fighter, energy, reason })) => {
                assert_eq!(
                    (fighter, energy, reason.as_str()),
                    (chief, Energy::new(1, 2, 3), "fell off the wagon")
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(parse_adjust("2 grapple", &c).is_none());
        assert!(parse_adjust("adjustment", &c).is_none());
        assert!(matches!(parse_adjust("adjust Ada 1 2 3", &c), Some(Err(e)) if e.contains("reason")));
        assert!(matches!(parse_adjust("adjust Ada 1 2", &c), Some(Err(_))));
        assert!(matches!(parse_adjust("adjust Zed 1 2 3 x", &c), Some(Err(e)) if e.contains("Zed")));
        let cap = Note::new().capacity();
        let long = format!("adjust Ada 1 2 3 {}", "x".repeat(cap + 1));
        let r = parse_adjust(&long, &c);
        assert!(matches!(&r, Some(Err(e)) if e.contains(&format!("at most {cap}"))), "{r:?}");
    }

    #[test]
    fn window_answers_read_numbers_names_and_targets() {
        let c = ambush();
        let (ada, weasel) = (c.find("Ada").unwrap(), c.find("Weasel").unwrap());
        let card = |special, target| Some(SpecialCard { special, target, copy: None });
        let legal = vec![
            Command::PlaySpecial { fighter: ada, card: None },
            Command::PlaySpecial { fighter: ada, card: card(Special::Scouter, None) },
            Command::PlaySpecial { fighter: ada, card: card(Special::ThereCanBeOnlyOne, Some(weasel)) },
        ];
        let read = |t: &str| parse_special(t, ada, &legal, &c);
        let play = |card| Ok(Command::PlaySpecial { fighter: ada, card });
        assert_eq!(read("pass"), play(None));
        assert_eq!(read("2"), play(card(Special::Scouter, None)));
        assert_eq!(read("Scouter"), play(card(Special::Scouter, None)));
        assert_eq!(read("insight"), play(card(Special::Scouter, None)));
        assert_eq!(
            read("there can be only one weasel"),
            play(card(Special::ThereCanBeOnlyOne, Some(weasel)))
        );
        // The only character it may name need not be typed.
        assert_eq!(read("There Can Be Only One"), play(card(Special::ThereCanBeOnlyOne, Some(weasel))));
        // A special not among the options goes to the engine, which says why.
        assert_eq!(read("i already know attack"), play(card(Special::IAlreadyKnow(Action::Attack), None)));
        assert!(matches!(read("i already know"), Err(e) if e.contains("action type")));
        assert!(matches!(read("scouter weasel"), Err(e) if e.contains("names no character")));
        assert!(read("fireball").is_err() && read("9").is_err());
        assert_eq!(forced_pass(&legal), None);
        assert_eq!(forced_pass(&legal[..1]), Some(Command::PlaySpecial { fighter: ada, card: None }));
    }
}
