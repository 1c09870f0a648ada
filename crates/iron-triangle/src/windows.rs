//! Timing windows and specials in play (rules reference §6).
//!
//! **Decision** (the reference's): each window is a simultaneous secret choice for the
//! characters who may act in it — a special face down, or pass. Once all have chosen, everyone
//! sees how many cards were played, and each character that passed gets one chance to respond
//! with a special. Then the window's specials are revealed and take effect in list order;
//! identical specials played by the two of a pair in one window cancel each other (both are
//! spent). Specials "revealed before resolving" stay face down until the moves are revealed.
//!
//! A window opens only when one of its characters could play a special in it; then every
//! character of the window is asked (one with nothing to play can only pass), so who is asked
//! tells nothing about whose hand holds a card.

use serde::{Deserialize, Serialize};
use table::{Sealed, SeatId};

use crate::card::Action;
use crate::conflict::{Conflict, FighterId, GM, Phase, Step, Turn, Window};
use crate::rules::{Event, RuleError};
use crate::special::Special;

/// A special as played: the card, and the character it names where it names one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SpecialCard {
    /// The special.
    pub special: Special,
    /// The character named (There Can Be Only One, Yojimbo).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<FighterId>,
    /// For Liquid Metal: the special it copies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy: Option<Special>,
}

impl SpecialCard {
    /// A card of `special` naming nobody.
    pub fn new(special: Special) -> SpecialCard {
        SpecialCard { special, target: None, copy: None }
    }

    /// Whether this card and `other`, played by the two of a pair in one window, cancel each
    /// other: identical specials (§6) — the same special, copying the same one. The one place
    /// of the rule. **Decision (Liquid Metal, §6):** a copy is not identical to the original,
    /// and two Liquid Metals are identical only when they copy the same special (the same
    /// variant): two Liquid Metals copying different specials both act.
    pub fn cancels(self, other: SpecialCard) -> bool {
        self.special == other.special && self.copy == other.copy
    }

    /// The card's name in `edition`, a copy with the special it copies: "Wax On ▨",
    /// "Liquid Metal copying Vampire ▨" (the character it names is not part of it).
    pub fn name(self, edition: crate::special::Edition) -> String {
        match self.copy {
            Some(copied) => format!("{} copying {}", self.special.name(edition), copied.name(edition)),
            None => self.special.name(edition),
        }
    }

    /// The special whose timing and effect the card has: the copied one for Liquid Metal.
    pub fn effective(self) -> Special {
        match (self.special, self.copy) {
            (Special::LiquidMetal, Some(copied)) => copied,
            (special, _) => special,
        }
    }
}

/// A window in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowPlay {
    /// Which window.
    pub window: Window,
    /// The characters who act in it.
    pub participants: Vec<FighterId>,
    /// Their first choices (a card, or `None` to pass), face down.
    pub first: Vec<Sealed<Option<SpecialCard>>>,
    /// How many cards the first round put down, once everyone has chosen.
    pub count: Option<u8>,
    /// The responses of those who passed, face down.
    pub response: Vec<Sealed<Option<SpecialCard>>>,
}

impl WindowPlay {
    fn new(window: Window, participants: Vec<FighterId>) -> Self {
        let n = participants.len();
        WindowPlay {
            window,
            participants,
            first: vec![Sealed::Empty; n],
            count: None,
            response: vec![Sealed::Empty; n],
        }
    }

    /// The slot `i` must fill now, if any: in the first round every participant's, in the
    /// response round those who passed. A window with one character has no response round:
    /// the count would tell it nothing it does not know.
    pub fn slot_due(&self, i: usize) -> bool {
        match self.count {
            None => !self.first[i].is_committed(),
            Some(_) => {
                self.participants.len() > 1
                    && self.first[i].value() == Some(None)
                    && !self.response[i].is_committed()
            }
        }
    }

    /// Every card played, with its player and whether it is still face down, in seat order
    /// (first round, then responses).
    pub fn cards(&self) -> Vec<(FighterId, SpecialCard, bool)> {
        let mut out = Vec::new();
        for (i, &f) in self.participants.iter().enumerate() {
            for slot in [self.first[i], self.response[i]] {
                if let Some(Some(card)) = slot.value() {
                    out.push((f, card, matches!(slot, Sealed::FaceDown(_))));
                }
            }
        }
        out
    }

    /// The next face-down card to reveal now: the first in list order (then seat order),
    /// leaving those that wait for the moves.
    fn next_to_reveal(&self) -> Option<(FighterId, SpecialCard)> {
        let mut best: Option<(FighterId, SpecialCard)> = None;
        for (i, &f) in self.participants.iter().enumerate() {
            for slot in [self.first[i], self.response[i]] {
                if let Sealed::FaceDown(Some(card)) = slot
                    && !delayed(self.window, card.effective())
                    && best.is_none_or(|(_, b)| card.effective().rank() < b.effective().rank())
                {
                    best = Some((f, card));
                }
            }
        }
        best
    }
}

/// Whether a card played in `window` stays face down until the moves are revealed: the
/// specials "revealed before resolving", and a To Blave that bluffs them.
pub fn delayed(window: Window, special: Special) -> bool {
    window == Window::BeforeMove && (special.revealed_before_resolving() || special == Special::ToBlave)
}

impl Conflict {
    /// The characters who act in `window` of turn `t`: the active character before choosing
    /// an opponent, the pair before stance and move, the pair's allies before resolving.
    pub fn window_members(&self, t: &Turn, window: Window) -> Vec<FighterId> {
        match (window, t.pair()) {
            (Window::BeforeOpponent, _) => vec![t.active],
            (Window::BeforeStance | Window::BeforeMove, Some(pair)) => pair.to_vec(),
            (Window::BeforeResolving, Some(pair)) => self
                .ids()
                .filter(|&id| {
                    let f = self.fighter(id);
                    f.is_in() && !pair.contains(&id) && pair.iter().any(|&p| self.fighter(p).side == f.side)
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Whether `id` could play `special` in `window` of turn `t` (§6 use limits and timing).
    fn could_play(&self, t: &Turn, id: FighterId, special: Special, window: Window) -> bool {
        let f = self.fighter(id);
        if !f.character.specials.contains(&special) || !special.fits(window) {
            return false;
        }
        // One special per character per turn, Yojimbo aside.
        if special != Special::Yojimbo && f.special_turn == self.turn_number {
            return false;
        }
        match special {
            // Liquid Metal: wherever a special another character used could be played.
            Special::LiquidMetal => {
                !f.specials_used.contains(&special)
                    && self.copies(id).any(|x| self.copy_fits(t, id, x, window))
            }
            // To Blave: twice per conflict, wherever another special it knows could be played.
            Special::ToBlave => {
                f.blaves < 2
                    && f.character
                        .specials
                        .iter()
                        .any(|&s| s != Special::ToBlave && self.could_play(t, id, s, window))
            }
            _ if f.specials_used.contains(&special) => false,
            // NPCs cannot use The Way of the Samurai; nor can a samurai twice.
            Special::WayOfTheSamurai => f.side != GM && !f.samurai,
            Special::IAlreadyKnow(_) => t.opponent.is_some(),
            // Yojimbo takes the loss of an ally in the pair.
            Special::Yojimbo => {
                t.pair().is_some_and(|p| p.iter().any(|&m| m != id && self.fighter(m).side == f.side))
            }
            _ => true,
        }
    }

    /// The specials Liquid Metal may copy for `id`: used by another character in this conflict,
    /// before Liquid Metal on the list, To Blave included (§6, `Special::copyable`).
    pub fn copies(&self, id: FighterId) -> impl Iterator<Item = Special> + '_ {
        self.specials_played.iter().enumerate().filter_map(move |(i, &(by, s))| {
            let first = !self.specials_played[..i].iter().any(|&(b, t)| b != id && t == s);
            (by != id && s.copyable() && first).then_some(s)
        })
    }

    /// Whether a copy of `x` could be played by `id` in `window`: the copied special's timing
    /// and conditions, not its learning requirements or use limits. A copy of To Blave is
    /// played where To Blave is: where another special `id` knows (besides this Liquid Metal
    /// and To Blave itself) could be played.
    fn copy_fits(&self, t: &Turn, id: FighterId, x: Special, window: Window) -> bool {
        let f = self.fighter(id);
        x.fits(window)
            && match x {
                Special::ToBlave => f.character.specials.iter().any(|&s| {
                    s != Special::LiquidMetal && s != Special::ToBlave && self.could_play(t, id, s, window)
                }),
                Special::IAlreadyKnow(_) => t.opponent.is_some(),
                Special::Yojimbo => {
                    t.pair().is_some_and(|p| p.iter().any(|&m| m != id && self.fighter(m).side == f.side))
                }
                _ => true,
            }
    }

    /// The cards `id` may play in the current window (pass aside), targets included.
    pub fn special_options(&self, t: &Turn, id: FighterId, out: &mut Vec<SpecialCard>) {
        let Some(w) = &t.window else { return };
        let f = self.fighter(id);
        for &special in &f.character.specials {
            if !self.could_play(t, id, special, w.window) {
                continue;
            }
            if special == Special::LiquidMetal {
                for x in self.copies(id).filter(|&x| self.copy_fits(t, id, x, w.window)).collect::<Vec<_>>() {
                    self.push_targets(t, id, SpecialCard { special, target: None, copy: Some(x) }, out);
                }
            } else {
                self.push_targets(t, id, SpecialCard::new(special), out);
            }
        }
    }

    /// Pushes `card`, once per character it may name when its effect names one.
    fn push_targets(&self, t: &Turn, id: FighterId, card: SpecialCard, out: &mut Vec<SpecialCard>) {
        let f = self.fighter(id);
        match card.effective() {
            Special::Yojimbo => {
                if let Some(pair) = t.pair() {
                    out.extend(
                        pair.iter()
                            .filter(|&&m| m != id && self.fighter(m).side == f.side)
                            .map(|&m| SpecialCard { target: Some(m), ..card }),
                    );
                }
            }
            Special::ThereCanBeOnlyOne => out.extend(
                self.ids()
                    .filter(|&o| self.fighter(o).side != f.side && self.fighter(o).is_in())
                    .map(|o| SpecialCard { target: Some(o), ..card }),
            ),
            _ => out.push(card),
        }
    }

    /// The step the turn goes to from `step`: the first window someone could act in, or the
    /// next step that is not a window.
    pub(crate) fn first_open(&self, t: &Turn, mut step: Step) -> (Step, Option<Box<WindowPlay>>) {
        if !self.specials_known {
            return (step.past_windows(), None);
        }
        loop {
            let w = match step {
                Step::Window(w) => w,
                Step::Swap if (0..2).any(|pos| self.swap_due(t, pos)) => return (step, None),
                Step::Swap => {
                    step = step.next();
                    continue;
                }
                _ => break,
            };
            let members = self.window_members(t, w);
            if members.iter().any(|&id| {
                let f = self.fighter(id);
                !f.character.specials.is_empty()
                    && f.character.specials.iter().any(|&s| self.could_play(t, id, s, w))
            }) {
                return (step, Some(Box::new(WindowPlay::new(w, members))));
            }
            step = step.next();
        }
        (step, None)
    }

    /// Moves the current turn on to `step`, or the first open step after it.
    pub(crate) fn advance_turn(&mut self, step: Step) {
        if !self.specials_known {
            if let Phase::Turn(t) = &mut self.phase {
                t.step = step.past_windows();
            }
            return;
        }
        self.advance_turn_with_specials(step);
    }

    #[inline(never)]
    fn advance_turn_with_specials(&mut self, step: Step) {
        let next = match &self.phase {
            Phase::Turn(t) => self.first_open(t, step),
            _ => return,
        };
        if let Phase::Turn(t) = &mut self.phase {
            (t.step, t.window) = next;
        }
    }

    /// Checks a special (or a pass) from `seat` for `fighter`.
    #[inline(never)]
    pub(crate) fn decide_special(
        &self,
        seat: SeatId,
        fighter: FighterId,
        card: Option<SpecialCard>,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        let name = || self.fighter(fighter).name().to_owned();
        let waiting = |s: &Self| RuleError::OutOfTurn {
            seat: s.seat_name(seat).to_owned(),
            waiting: s.waiting_for(),
            section: s.current_section(),
        };
        let Phase::Turn(t) = &self.phase else { return Err(waiting(self)) };
        let Some(w) = &t.window else { return Err(waiting(self)) };
        let Some(i) = w.participants.iter().position(|&p| p == fighter) else { return Err(waiting(self)) };
        if self.fighter(fighter).seat != seat {
            return Err(RuleError::NotYourCharacter {
                seat: self.seat_name(seat).to_owned(),
                fighter: name(),
            });
        }
        if !w.slot_due(i) {
            return Err(RuleError::AlreadyCommitted { fighter: name(), what: "special or pass" });
        }
        if let Some(card) = card {
            let mut options = Vec::new();
            self.special_options(t, fighter, &mut options);
            if !options.contains(&card) {
                let special = card.special.name(self.edition);
                let reason = if !self.fighter(fighter).character.specials.contains(&card.special) {
                    format!("{} has not learned it", name())
                } else if card.special == Special::LiquidMetal
                    && card.copy.is_none_or(|x| !self.copies(fighter).any(|c| c == x))
                {
                    "Liquid Metal copies a special another character revealed in this conflict; name one (\"copy\")".to_owned()
                } else if !card.effective().fits(w.window) {
                    format!("it is not played {}", w.window.name())
                } else if card.special.takes_target() {
                    "it needs a character of the other side still in the conflict".to_owned()
                } else {
                    "it is used up (once until a full rest, To Blave twice a conflict, one special a turn)"
                        .to_owned()
                };
                return Err(RuleError::SpecialNotPlayable { fighter: name(), special, reason });
            }
        }
        events.push(Event::SpecialCommitted { fighter, card, hidden: false });
        Ok(())
    }

    /// The window's automatic steps: the count once all have chosen; once all who passed have
    /// responded, the cards revealed one by one in list order, then the window closes.
    #[inline(never)]
    pub(crate) fn window_step(&self, t: &Turn, w: &WindowPlay) -> Option<Event> {
        if (0..w.participants.len()).any(|i| w.slot_due(i)) {
            return None;
        }
        if w.count.is_none() {
            let count = w.first.iter().filter(|s| matches!(s.value(), Some(Some(_)))).count() as u8;
            return Some(Event::CardsCounted { count });
        }
        match w.next_to_reveal() {
            Some((fighter, card)) => {
                // Identical specials played by the two of a pair in one window cancel
                // (`SpecialCard::cancels`: two Liquid Metals only when they copy the same one).
                let pair = t.pair();
                let in_pair = |f: FighterId| pair.is_some_and(|p| p.contains(&f));
                let cancelled = in_pair(fighter)
                    && w.cards().iter().any(|&(g, c, _)| g != fighter && in_pair(g) && card.cancels(c));
                Some(Event::SpecialRevealed { fighter, card, cancelled })
            }
            None => Some(Event::WindowClosed),
        }
    }

    #[inline(never)]
    pub(crate) fn apply_special_committed(&mut self, fighter: FighterId, card: Option<SpecialCard>) {
        if let Phase::Turn(t) = &mut self.phase
            && let Some(w) = &mut t.window
            && let Some(i) = w.participants.iter().position(|&p| p == fighter)
        {
            if w.count.is_none() {
                w.first[i] = Sealed::FaceDown(card);
            } else {
                w.response[i] = Sealed::FaceDown(card);
            }
        }
    }

    #[inline(never)]
    pub(crate) fn apply_cards_counted(&mut self, count: u8) {
        if let Phase::Turn(t) = &mut self.phase
            && let Some(w) = &mut t.window
        {
            w.count = Some(count);
        }
    }

    /// Turns one card face up, spends it, and applies it unless it was cancelled (§6).
    #[inline(never)]
    pub(crate) fn apply_special_revealed(&mut self, fighter: FighterId, card: SpecialCard, cancelled: bool) {
        if let Some(i) = self.turn_delayed.iter().position(|&(f, c, _)| f == fighter && c == card) {
            self.turn_delayed.remove(i);
        } else if let Phase::Turn(t) = &mut self.phase
            && let Some(w) = &mut t.window
            && let Some(i) = w.participants.iter().position(|&p| p == fighter)
        {
            for slot in [&mut w.first[i], &mut w.response[i]] {
                if *slot == Sealed::FaceDown(Some(card)) {
                    slot.reveal();
                }
            }
        }
        let turn_number = self.turn_number;
        let f = self.fighter_mut(fighter);
        if card.special == Special::ToBlave {
            f.blaves += 1;
        } else {
            f.specials_used.push(card.special);
        }
        if card.special != Special::Yojimbo {
            f.special_turn = turn_number;
        }
        self.specials_played.push((fighter, card.special));
        if !cancelled {
            self.apply_special_effect(fighter, card);
        }
    }

    /// Closes the window: cards that wait for the moves are set aside, face down; the turn
    /// moves on to its next step.
    #[inline(never)]
    pub(crate) fn apply_window_closed(&mut self) {
        let Phase::Turn(t) = &mut self.phase else { return };
        if let Some(w) = &t.window {
            let cards = w.cards();
            for &(f, card, face_down) in &cards {
                if face_down && delayed(w.window, card.effective()) {
                    // The before-move window is the pair's: an identical card of the other cancels.
                    let cancelled = cards.iter().any(|&(g, c, _)| g != f && card.cancels(c));
                    self.turn_delayed.push((f, card, cancelled));
                }
            }
        }
        let next = t.step.next();
        self.advance_turn(next);
    }

    /// The next card set aside before the move to reveal, once the moves are face up: the first
    /// in list order, and whether an identical card of the other of the pair cancels it.
    #[inline(never)]
    pub(crate) fn delayed_step(&self, t: &Turn) -> Option<Event> {
        if self.turn_delayed.is_empty() || !t.plays.iter().all(|p| matches!(p, Sealed::FaceUp(_))) {
            return None;
        }
        let &(fighter, card, cancelled) =
            self.turn_delayed.iter().min_by_key(|(_, c, _)| c.effective().rank())?;
        Some(Event::SpecialRevealed { fighter, card, cancelled })
    }

    fn apply_special_effect(&mut self, user: FighterId, card: SpecialCard) {
        let seat = self.fighter(user).seat;
        let Phase::Turn(t) = &mut self.phase else { return };
        let opponent = t.pair().map(|p| if p[0] == user { p[1] } else { p[0] });
        match card.effective() {
            Special::Scouter => match opponent {
                Some(o) => {
                    let f = &mut self.fighters[usize::from(o.0)];
                    if !f.scouted_by.contains(&seat) {
                        f.scouted_by.push(seat);
                    }
                }
                None => self.pending_scouts.push(seat),
            },
            Special::ThereCanBeOnlyOne => {
                if let Some(target) = card.target {
                    self.bonds.push([user, target]);
                }
            }
            Special::IAlreadyKnow(action) => {
                if let Some(pos) = opponent.and_then(|o| t.position(o)) {
                    t.forbidden[pos] = Some(action);
                }
            }
            Special::WayOfTheSamurai => {
                let f = self.fighter_mut(user);
                f.energy = f.character.energy;
                f.samurai = true;
            }
            Special::DrunkenMonkey => {
                let f = self.fighter_mut(user);
                f.drunken = true;
                f.sits_out_next = true;
            }
            // These act on the turn's losses when it is resolved (effects.rs).
            Special::PressurePoint
            | Special::WaxOn(_)
            | Special::Parry(_)
            | Special::SantaCarla(_)
            | Special::Vampire(_)
            | Special::DigTwoGraves(_)
            | Special::Yojimbo => self.turn_effects.push((user, card)),
            _ => {}
        }
    }

    /// The action `id` may not play this turn (I Already Know), if any.
    pub fn forbidden_action(&self, t: &Turn, id: FighterId) -> Option<Action> {
        t.position(id).and_then(|pos| t.forbidden[pos])
    }

    /// The characters `id` is bound to face by There Can Be Only One, still in.
    pub fn bound_opponents(&self, id: FighterId) -> impl Iterator<Item = FighterId> + '_ {
        self.bonds.iter().filter_map(move |&[a, b]| {
            let other = if a == id {
                b
            } else if b == id {
                a
            } else {
                return None;
            };
            (self.fighter(a).is_in() && self.fighter(b).is_in()).then_some(other)
        })
    }
}

impl Conflict {
    /// The moves the pair member at `pos` could be swapped to (Drunken Monkey): its other
    /// moves it may play this turn (`Conflict::playable_moves`: available, none of an action
    /// forbidden to it this turn).
    pub fn swap_options(&self, t: &Turn, pos: usize) -> crate::card::MoveSet {
        let Some(pair) = t.pair() else { return crate::card::MoveSet::EMPTY };
        let Some(crate::turn::Play::Move(played)) = t.plays[pos].value() else {
            return crate::card::MoveSet::EMPTY;
        };
        self.playable_moves(t, pair[pos]).iter().filter(|&m| m != played).collect()
    }

    /// Whether the pair member at `pos` is still to decide on a Drunken Monkey swap this turn.
    pub fn swap_due(&self, t: &Turn, pos: usize) -> bool {
        t.pair().is_some_and(|p| self.fighter(p[pos]).drunken)
            && !t.swap_decided[pos]
            && !self.swap_options(t, pos).is_empty()
    }

    /// The move the opponent "picks at random" for a swap (§6 Drunken Monkey), drawn from the
    /// conflict's [`Draws`](table::Draws), and the draw source's new position (for the
    /// event); `None`, and nothing drawn, when there is no other move to swap to.
    pub fn draw_swap(&self, t: &Turn, pos: usize) -> Option<(crate::card::Move, u64)> {
        let options: Vec<crate::card::Move> = self.swap_options(t, pos).iter().collect();
        let mut draws = self.draws.stream();
        let pick = *draws.pick(&options)?;
        Some((pick, draws.position()))
    }
}
