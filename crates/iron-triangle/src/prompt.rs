//! What a seat is asked now ([`Conflict::prompt`]) and the documented default taken for it
//! when its decision is forced ([`Conflict::forced`]): the shells' side of §5.1–§5.7 and §6.
//!
//! A prompt's choices are exactly [`Conflict::legal_commands`], labelled in the book's words
//! and symbols; the answer is private exactly for the face-down commitments (stance, move,
//! special or pass).

use table::{Choice, Prompt, SeatId};

use crate::conflict::Phase;
use crate::special::Edition;
use crate::windows::SpecialCard;
use crate::{Command, Conflict, FighterId, Play, Stance, Verdict};

impl Conflict {
    /// What `seat` is asked now, its choices being exactly its legal commands, each with a
    /// label ("2 grapple ▨", "▨☰ Iron Fist", "pass"); `None` when the conflict does not wait
    /// for the seat. `private` is true exactly for a face-down commitment: a stance (§5.2
    /// step 2), a move or surrender (§5.2 step 3), a special or a pass (§6).
    pub fn prompt(&self, seat: SeatId) -> Option<Prompt<Command>> {
        let mut legal = Vec::new();
        self.legal_commands(seat, &mut legal);
        let first = *legal.first()?;
        let private = legal.iter().any(face_down);
        let question = self.question(seat, first);
        let choices = legal
            .into_iter()
            .map(|command| Choice { label: self.label(seat, command), private: face_down(&command), command })
            .collect();
        Some(Prompt { seat, question, private, choices })
    }

    /// Whether `seat` is asked a face-down question now: the [`prompt`](Conflict::prompt)'s
    /// `private`, without its labels.
    pub fn asks_face_down(&self, seat: SeatId) -> bool {
        let mut legal = Vec::new();
        self.legal_commands(seat, &mut legal);
        legal.iter().any(face_down)
    }

    /// The first face-down answer the [`prompt`](Conflict::prompt) offers `seat`, without its
    /// labels.
    pub fn first_face_down(&self, seat: SeatId) -> Option<Command> {
        let mut legal = Vec::new();
        self.legal_commands(seat, &mut legal);
        legal.into_iter().find(face_down)
    }

    /// The documented default decision for `seat` (docs/iron-triangle.md, Decision "forced
    /// decisions"), taken only when a table's decision timer runs out or the GM calls for it.
    /// Never a surrender, and never leaves the conflict:
    /// - a stance: no stance (amount 0, the lowest legal stance);
    /// - a move: the first legal move (in the order of the character's moves), never surrender;
    /// - a timing window: no special (a pass);
    /// - a loss (or gain) to spread: [`Energy::default_spread`](crate::Energy::default_spread) over what may be spread;
    /// - Drunken Monkey: keep the move; mercy: spare; the minor conflict's tie: a draw;
    /// - the first turn, an opponent, the next turn: the first legal choice.
    ///
    /// `None` when the conflict does not wait for the seat, or when its only legal answer would
    /// be a surrender.
    pub fn forced(&self, seat: SeatId) -> Option<Command> {
        let mut legal = Vec::new();
        self.legal_commands(seat, &mut legal);
        let find = |f: &dyn Fn(&Command) -> bool| legal.iter().copied().find(|c| f(c));
        find(&|c| matches!(c, Command::PlaySpecial { card: None, .. }))
            .or_else(|| find(&|c| matches!(c, Command::CommitStance { stance } if stance.amount == 0)))
            .or_else(|| find(&|c| matches!(c, Command::CommitMove { play: Play::Move(_) })))
            .or_else(|| find(&|c| matches!(c, Command::DrunkenSwap { swap: false })))
            .or_else(|| find(&|c| matches!(c, Command::DecideMercy { kill: false })))
            .or_else(|| find(&|c| matches!(c, Command::RecordOutcome { verdict: Verdict::Draw })))
            .or_else(|| self.default_spread_command(seat).filter(|c| legal.contains(c)))
            .or_else(|| {
                find(&|c| !matches!(c, Command::CommitMove { play: Play::Surrender } | Command::EndCombo))
            })
            .or_else(|| find(&|c| matches!(c, Command::EndCombo)))
    }

    /// The seat's next loss or gain spread the documented default way, if it has one to spread.
    fn default_spread_command(&self, seat: SeatId) -> Option<Command> {
        let Phase::Aftermath(a) = &self.phase else { return None };
        let p = self.pending_for(a, seat)?;
        let (_, due, room) = self.pending_parts(a, p);
        let spread = room.default_spread(due);
        Some(if p.is_gain(self) { Command::SpreadGain { spread } } else { Command::SpreadLoss { spread } })
    }

    fn who(&self, id: FighterId) -> String {
        self.fighters
            .get(usize::from(id.0))
            .map_or_else(|| format!("character #{}", id.0), |f| f.name().to_owned())
    }

    /// The member of the turn's pair `seat` plays, if any.
    fn pair_member(&self, seat: SeatId) -> Option<FighterId> {
        let Phase::Turn(t) = &self.phase else { return None };
        let pair = t.pair().unwrap_or([t.active; 2]);
        pair.into_iter().find(|&id| self.fighters.get(usize::from(id.0)).is_some_and(|f| f.seat == seat))
    }

    fn question(&self, seat: SeatId, first: Command) -> String {
        let seat_name = self.seat_name(seat).to_owned();
        let member = || self.pair_member(seat).map_or_else(|| seat_name.clone(), |id| self.who(id));
        match first {
            Command::TakeFirstTurn { .. } => {
                format!("{seat_name}: choose the character who takes the first turn")
            }
            Command::ChooseOpponent { .. } => format!("{}: choose an opponent", member()),
            Command::EndCombo => format!("{}: end the combo", member()),
            Command::CommitStance { .. } => format!("{}: commit a stance face down", member()),
            Command::CommitMove { .. } => {
                format!("{}: commit a move face down, or surrender", member())
            }
            Command::PlaySpecial { fighter, .. } => {
                let window = match &self.phase {
                    Phase::Turn(t) => t.window.as_ref().map_or("timing", |w| w.window.name()),
                    _ => "timing",
                };
                format!("{}: play a special face down, or pass ({window} window)", self.who(fighter))
            }
            Command::DrunkenSwap { .. } => {
                format!("{}: keep the revealed move, or swap it (Drunken Monkey)", member())
            }
            Command::SpreadLoss { spread } | Command::SpreadGain { spread } => {
                let gain = matches!(first, Command::SpreadGain { .. });
                let whose = match &self.phase {
                    Phase::Aftermath(a) => self.pending_for(a, seat).map(|p| self.pending_parts(a, p)),
                    _ => None,
                };
                let due = whose.map_or(spread.total(), |(_, due, _)| due);
                if gain {
                    format!("{seat_name}: spread {due} energy regained")
                } else {
                    format!("{seat_name}: spread a loss of {due} over the energy types")
                }
            }
            Command::DecideMercy { .. } => {
                let loser = match &self.phase {
                    Phase::Aftermath(a) => a.mercy.map(|m| self.who(m.surrendered)),
                    _ => None,
                };
                format!(
                    "{seat_name}: spare or kill {} who surrendered",
                    loser.unwrap_or_else(|| "the character".to_owned())
                )
            }
            Command::PassTurn { .. } => format!("{seat_name}: give the next turn to a character"),
            Command::RecordOutcome { .. } => {
                format!("{seat_name}: record the outcome of the tied minor conflict")
            }
            Command::AdjustEnergy { .. } => format!("{seat_name}: adjust a character's energy"),
        }
    }

    /// A short label for one of `seat`'s legal commands, with the book's names and symbols.
    pub fn label(&self, seat: SeatId, command: Command) -> String {
        match command {
            Command::TakeFirstTurn { fighter } => self.who(fighter),
            Command::ChooseOpponent { opponent } => {
                let energy = self.fighters.get(usize::from(opponent.0)).map(|f| f.energy).unwrap_or_default();
                format!("{} ({energy})", self.who(opponent))
            }
            Command::EndCombo => "end the combo".to_owned(),
            Command::CommitStance { stance } => stance_label(stance),
            Command::CommitMove { play: Play::Surrender } => "surrender".to_owned(),
            Command::CommitMove { play: Play::Move(m) } => {
                let named = self.move_name_for(seat, m);
                if named == m.to_string() { named } else { format!("{m} {named}") }
            }
            Command::PlaySpecial { fighter, card } => {
                let what = card.map_or_else(|| "pass".to_owned(), |c| special_label(self, c, self.edition));
                let mut fighters = 0;
                if let Phase::Turn(t) = &self.phase
                    && let Some(w) = &t.window
                {
                    let seat = self.fighters.get(usize::from(fighter.0)).map(|f| f.seat);
                    fighters = w
                        .participants
                        .iter()
                        .filter(|p| self.fighters.get(usize::from(p.0)).map(|f| f.seat) == seat)
                        .count();
                }
                if fighters > 1 { format!("{}: {what}", self.who(fighter)) } else { what }
            }
            Command::DrunkenSwap { swap } => {
                if swap {
                    "swap the move".to_owned()
                } else {
                    "keep the move".to_owned()
                }
            }
            Command::SpreadLoss { spread } | Command::SpreadGain { spread } => spread.to_string(),
            Command::DecideMercy { kill } => {
                let loser = match &self.phase {
                    Phase::Aftermath(a) => a.mercy.map(|m| self.who(m.surrendered)),
                    _ => None,
                }
                .unwrap_or_else(|| "the character".to_owned());
                format!("{} {loser}", if kill { "kill" } else { "spare" })
            }
            Command::PassTurn { to } => self.who(to),
            Command::RecordOutcome { verdict } => match verdict {
                Verdict::Players => "the players win".to_owned(),
                Verdict::Gm => "the GM wins".to_owned(),
                Verdict::Draw => "a draw".to_owned(),
            },
            Command::AdjustEnergy { fighter, energy, reason } => {
                format!("set {}'s energy to {energy}: {reason}", self.who(fighter))
            }
        }
    }

    /// The player's name for move `m` of the seat's member of the pair (the symbols alone
    /// when it has no name).
    fn move_name_for(&self, seat: SeatId, m: crate::Move) -> String {
        self.pair_member(seat)
            .and_then(|id| self.fighters.get(usize::from(id.0)))
            .map_or_else(|| m.to_string(), |f| f.character.move_name(m))
    }
}

/// "no stance", or "2 grapple ▨".
fn stance_label(stance: Stance) -> String {
    if stance.amount == 0 {
        "no stance".to_owned()
    } else {
        format!("{} {} {}", stance.amount, stance.action.name(), stance.action.symbol())
    }
}

/// "Scouter", "Yojimbo naming Kuro", "Liquid Metal copying Scouter".
fn special_label(c: &Conflict, card: SpecialCard, edition: Edition) -> String {
    let mut s = card.name(edition);
    if let Some(t) = card.target {
        s.push_str(&format!(" naming {}", c.who(t)));
    }
    s
}

/// Whether `command` is a face-down commitment (a prompt's `private` choice): a stance
/// (§5.2 step 2), a move or surrender (§5.2 step 3), a special or a pass (§6).
fn face_down(command: &Command) -> bool {
    matches!(command, Command::CommitStance { .. } | Command::CommitMove { .. } | Command::PlaySpecial { .. })
}
