//! What a seat is asked now and the default taken for it (rules reference §5, §8, §9):
//! [`Scene::prompt`] puts the legal commands in the book's words, and [`Scene::forced`] is the
//! documented default decision (docs/inciting-incident.md, Decision 29) a shell takes when a
//! table's decision timer runs out or the GM calls for it.

use table::{Choice, Prompt, SeatId};

use crate::narrate;
use crate::rules::{Action, Command};
use crate::scene::{Pending, Phase, Scene, Status};

impl Scene {
    /// What `seat` is asked now: a question in the book's words and every legal command as
    /// a labelled choice (the GM seat's standing rulings included, last); `None` when the
    /// scene is not waiting for the seat. The answer is private exactly when the seat declares
    /// face down (§5 step 5): nobody may see a declaration before the reveal.
    pub fn prompt(&self, seat: SeatId) -> Option<Prompt<Command>> {
        let mut awaiting = Vec::new();
        self.awaiting(&mut awaiting);
        if !awaiting.contains(&seat) {
            return None;
        }
        let mut legal = Vec::new();
        self.legal_commands(seat, &mut legal);
        let private = legal.iter().any(|c| matches!(c, Command::Declare { .. }));
        let question = self.question(seat, &legal);
        let choices = legal
            .into_iter()
            .map(|command| Choice {
                label: narrate::command(self, &command),
                private: matches!(command, Command::Declare { .. }),
                command,
            })
            .collect();
        Some(Prompt { seat, question, private, choices })
    }

    fn question(&self, seat: SeatId, legal: &[Command]) -> String {
        if let Some(&p) = self.pending.first() {
            return match p {
                Pending::KeepFighting(c) => {
                    format!("{} is Incapacitated: roll to keep fighting, or stay down?", self.fighter_name(c))
                }
                Pending::ExtraAction(c) => {
                    format!("{}: take the extra action a Crisis Trigger gave", self.fighter_name(c))
                }
            };
        }
        let mut names: Vec<&str> = Vec::new();
        for c in legal {
            if let Command::Declare { character, .. } = c {
                let name = self.fighter_name(*character);
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        match self.phase {
            Phase::Declare if !names.is_empty() => {
                format!("Round {}: declare face down one action for {}", self.round, names.join(", "))
            }
            Phase::Resolve { side } => {
                format!("{}: choose whose action to resolve next", self.side_name(side))
            }
            _ => format!("Seat {}: choose", self.seat_name(seat)),
        }
    }

    /// The documented default for `seat`'s decision (Decision 29), taken only when a table's
    /// decision timer runs out or the GM calls for it; `None` when the scene is not waiting
    /// for the seat. Never a GM ruling, never a surrender:
    /// - a declaration: the first undeclared character of the seat holds (no action, no Crisis);
    /// - the resolution: the seat's first character (in the scene file's order) resolves its
    ///   declared action — never an Advanced Action outside round order;
    /// - an extra action: hold;
    /// - the roll to keep fighting (§9): stay down (no risk of death), unless nobody else on
    ///   the character's side can fight — then staying down would give up the scene, so it rolls.
    pub fn forced(&self, seat: SeatId) -> Option<Command> {
        let mut awaiting = Vec::new();
        self.awaiting(&mut awaiting);
        if !awaiting.contains(&seat) {
            return None;
        }
        let mut legal = Vec::new();
        self.legal_commands(seat, &mut legal);
        legal.retain(|c| !c.is_gm_ruling());
        let preferred = legal.iter().copied().find(|c| match (*c, self.pending.first()) {
            (Command::KeepFighting { character, roll }, Some(Pending::KeepFighting(_))) => {
                let side = self.fighters[usize::from(character)].side;
                // Roll exactly when nobody else on the side can fight.
                let others_fight = self.able(side);
                roll != others_fight
            }
            (Command::ExtraAction { action, .. }, Some(Pending::ExtraAction(_))) => action == Action::Hold,
            (Command::Declare { action, .. }, None) => action == Action::Hold,
            (Command::Act { character }, None) => {
                self.fighters.get(usize::from(character)).is_some_and(|f| f.status == Status::Fighting)
            }
            _ => false,
        });
        // Every decision above has its default among the legal commands; the first legal
        // command is a guard that a shell never goes without one.
        preferred.or_else(|| legal.first().copied())
    }
}
