//! The opening round (docs/fairness.md §8): a sealed round before the rules' first step, so
//! that no draw of the table — not even one its opening makes, such as an Inciting Incident
//! initiative lot — can be foreseen or chosen by the host.
//!
//! Until a sealed round is mixed in, the draws depend on the server seed alone, which the host
//! chose. A session opened with [`Session::open_with_round`] holds its table before the rules'
//! automatic steps: every seat commits to the empty command `{}` — a sealed seat by its own
//! commitment ([`Session::seal`]), a plain seat or a bot by the caller's fresh nonce
//! ([`Session::force_bound`]) — the commitments are bound in one public item, the sealed
//! seats reveal (`{}` and the nonce, [`Session::reveal_opening`]), and the round is mixed
//! into the draws. Only then does the table open, drawing from the mixed source. A sealed seat
//! that does not reveal faults ([`Fault::NoReveal`]) and adds no nonce; a reveal that does
//! not match, or of another command than `{}`, faults too. Client seeds given before the
//! reveal take effect at the opening mix.

use serde_json::Value;
use table::fairness::verify_commitment;
use table::{Ruleset, SeatId};

use crate::sealed::{Commitment, Fault, Nonce, RoundInfo, SealError, SeatCommitment};
use crate::{Item, Session, SessionError};

/// One seat's part of the opening round.
#[derive(Debug, Clone)]
pub(crate) enum Part {
    /// Nothing committed yet.
    Waiting,
    /// A sealed seat's commitment, waiting for its reveal.
    Sealed(Commitment),
    /// Committed with a nonce the session holds (a plain seat's, a bot's, or a sealed seat's
    /// revealed one).
    Held(Commitment, Nonce),
    /// The seat's reveal failed: no nonce of its goes into the mix.
    Fault(Commitment, Fault),
}

/// The opening round of a session (see the module's documentation).
#[derive(Debug, Clone)]
pub(crate) struct Opening {
    parts: Vec<Part>,
    /// The seats in the order they committed (a replaced commitment keeps its place).
    order: Vec<SeatId>,
    bound: bool,
}

/// The command every seat commits to in the opening round: `{}`.
pub fn opening_command() -> Value {
    Value::Object(serde_json::Map::new())
}

impl Opening {
    pub(crate) fn new(seats: usize) -> Opening {
        Opening { parts: vec![Part::Waiting; seats], order: Vec::new(), bound: false }
    }

    fn commitment(part: &Part) -> Option<Commitment> {
        match part {
            Part::Waiting => None,
            Part::Sealed(c) | Part::Held(c, _) | Part::Fault(c, _) => Some(*c),
        }
    }

    /// The seats it waits for: a commitment from each seat, then the sealed seats' reveals.
    pub(crate) fn awaiting(&self) -> Vec<SeatId> {
        let waiting =
            |p: &Part| if self.bound { matches!(p, Part::Sealed(_)) } else { matches!(p, Part::Waiting) };
        (0..self.parts.len()).filter(|&i| waiting(&self.parts[i])).map(|i| SeatId(i as u16)).collect()
    }

    pub(crate) fn info(&self) -> RoundInfo {
        let commitments = || {
            (0..self.parts.len())
                .filter_map(|i| {
                    Self::commitment(&self.parts[i])
                        .map(|c| SeatCommitment { seat: SeatId(i as u16), commitment: c.to_string() })
                })
                .collect()
        };
        RoundInfo {
            committed: self.order.clone(),
            bound: self.bound,
            commitments: if self.bound { commitments() } else { Vec::new() },
            revealing: if self.bound { self.awaiting() } else { Vec::new() },
            opening: true,
        }
    }

    /// Whether `seat` may commit now (it is awaited, or replaces its commitment before the
    /// binding).
    pub(crate) fn asks(&self, seat: SeatId) -> bool {
        !self.bound && self.parts.get(usize::from(seat.0)).is_some()
    }
}

impl<R: Ruleset> Session<R> {
    /// Opens the table with an opening round (docs/fairness.md §8; the module
    /// [`opening`](crate::opening)): the rules' first step waits until every seat has
    /// committed to `{}`, the sealed seats have revealed, and the round is mixed into the
    /// draws. Only at a table with verifiable draws, before anything else happened.
    pub fn open_with_round(&mut self) -> Result<(), SessionError<R::Error>> {
        if self.commitment.is_none() {
            return Err(table::fairness::FairnessError::NotVerifiable.into());
        }
        if !self.entries.is_empty() || !self.fair.is_empty() || self.opening.is_some() {
            return Err(SessionError::DrawsStarted);
        }
        let initial = self.table.initial().clone();
        self.reopen(initial, false);
        self.opening = Some(Opening::new(self.controls.len()));
        Ok(())
    }

    /// Whether an opening round would protect a draw of this table: the rules may draw before
    /// a face-down decision is revealed ([`Ruleset::draws_before_a_reveal`], docs/fairness.md
    /// §7.2). A table with a sealed seat opens with one by default exactly then.
    pub fn draws_before_a_reveal(&self) -> bool {
        R::draws_before_a_reveal(self.table.initial())
    }

    /// Whether the table waits for its opening round before the rules' first step.
    pub fn opening(&self) -> bool {
        self.opening.is_some()
    }

    /// Commits `seat` in the opening round: a new commitment, or a replaced one before the
    /// binding.
    pub(crate) fn commit_opening(&mut self, seat: SeatId, part: Part) -> Result<(), SessionError<R::Error>> {
        let Some(opening) = self.opening.as_mut() else {
            return Err(SessionError::Sealing(SealError::NotAsked(seat.0)));
        };
        if opening.bound {
            return Err(SessionError::Sealing(SealError::Bound(seat.0)));
        }
        let slot = opening.parts.get_mut(usize::from(seat.0)).ok_or(SessionError::NoSeat(seat.0))?;
        *slot = part;
        if !opening.order.contains(&seat) {
            opening.order.push(seat);
        }
        if opening.parts.iter().all(|p| !matches!(p, Part::Waiting)) {
            opening.bound = true;
            let commitments = opening.info().commitments;
            for log in &mut self.logs {
                log.push(Item::Bound { commitments: commitments.clone() });
            }
            self.finish_opening_if_revealed();
        }
        Ok(())
    }

    /// A sealed seat's commitment to `{}` in the opening round.
    pub(crate) fn seal_opening(
        &mut self,
        seat: SeatId,
        commitment: Commitment,
    ) -> Result<(), SessionError<R::Error>> {
        self.commit_opening(seat, Part::Sealed(commitment))
    }

    /// In the opening round, before the binding: `seat`'s `{}` bound by the caller's `nonce`
    /// (a plain seat's or a bot's, or a sealed seat's that did not commit in time). After the
    /// binding: a sealed seat with no reveal faults.
    pub(crate) fn force_opening(&mut self, seat: SeatId, nonce: Nonce) -> Result<(), SessionError<R::Error>> {
        let Some(opening) = self.opening.as_mut() else {
            return Err(SessionError::NotAwaited(seat.0));
        };
        let part = opening.parts.get_mut(usize::from(seat.0)).ok_or(SessionError::NoSeat(seat.0))?;
        if opening.bound {
            let Part::Sealed(c) = *part else { return Err(SessionError::NotAwaited(seat.0)) };
            *part = Part::Fault(c, Fault::NO_REVEAL);
            self.finish_opening_if_revealed();
            return Ok(());
        }
        if !matches!(part, Part::Waiting) {
            return Err(SessionError::NotAwaited(seat.0));
        }
        let commitment = Commitment::to_command(&opening_command(), &nonce)
            .map_err(|e| SessionError::Sealing(SealError::NoCanonicalForm(e.to_string())))?;
        if self.mode(seat) == crate::sealed::Mode::Sealed {
            // A sealed seat's part taken for it (its timer ran out, or the GM called for it):
            // public, since its nonce is then the caller's.
            for log in &mut self.logs {
                log.push(Item::Forced { seat });
            }
        }
        self.commit_opening(seat, Part::Held(commitment, nonce))
    }

    /// `seat` reveals its opening commitment: `command` must be `{}` and, with `nonce`, hash
    /// to the commitment; else the seat faults (accepted, and returned) and adds no nonce.
    pub fn reveal_opening(
        &mut self,
        seat: SeatId,
        command: &Value,
        nonce: Nonce,
    ) -> Result<Option<Fault>, SessionError<R::Error>> {
        let Some(opening) = self.opening.as_mut() else {
            return Err(SessionError::Sealing(SealError::NothingToReveal(seat.0)));
        };
        let bound = opening.bound;
        let Some(part) = opening.parts.get_mut(usize::from(seat.0)) else {
            return Err(SessionError::NoSeat(seat.0));
        };
        let Part::Sealed(c) = *part else {
            return Err(SessionError::Sealing(SealError::NothingToReveal(seat.0)));
        };
        if !bound {
            return Err(SessionError::Sealing(SealError::NotBound(seat.0)));
        }
        let fault = if verify_commitment(command, &nonce, &c).is_err() {
            Some(Fault::WrongNonce)
        } else if *command != opening_command() {
            Some(Fault::Illegal { reason: "the opening round's command is {} (docs/fairness.md §8)".into() })
        } else {
            None
        };
        *part = match &fault {
            None => Part::Held(c, nonce),
            Some(f) => Part::Fault(c, f.clone()),
        };
        self.finish_opening_if_revealed();
        Ok(fault)
    }

    /// [`Session::give_up`] in the bound opening round: the seat's commitment not yet revealed
    /// faults ([`Fault::SECRET_LOST`]); false when the opening round is not bound (a take-back
    /// then) or there is none.
    pub(crate) fn give_up_opening(&mut self, seat: SeatId) -> Result<bool, SessionError<R::Error>> {
        let Some(opening) = self.opening.as_mut() else { return Ok(false) };
        if !opening.bound {
            return Ok(false);
        }
        let part = opening.parts.get_mut(usize::from(seat.0)).ok_or(SessionError::NoSeat(seat.0))?;
        let Part::Sealed(c) = *part else {
            return Err(SessionError::Sealing(SealError::NothingToReveal(seat.0)));
        };
        *part = Part::Fault(c, Fault::SECRET_LOST);
        self.finish_opening_if_revealed();
        Ok(true)
    }

    /// Takes back `seat`'s opening commitment before the binding; false when it has none.
    pub(crate) fn take_back_opening(&mut self, seat: SeatId) -> Result<bool, SessionError<R::Error>> {
        let Some(opening) = self.opening.as_mut() else { return Ok(false) };
        let Some(part) = opening.parts.get_mut(usize::from(seat.0)) else { return Ok(false) };
        if matches!(part, Part::Waiting) {
            return Ok(false);
        }
        if opening.bound {
            return Err(SessionError::Sealing(SealError::Bound(seat.0)));
        }
        *part = Part::Waiting;
        opening.order.retain(|&s| s != seat);
        self.log_took_back(seat);
        Ok(true)
    }

    /// Once every sealed seat has revealed or faulted: the faults, the mix (each seat's nonce
    /// held), the table's opening (its automatic steps and their draws), then every nonce
    /// opened.
    fn finish_opening_if_revealed(&mut self) {
        let Some(opening) = self.opening.as_ref() else { return };
        if !opening.bound || opening.parts.iter().any(|p| matches!(p, Part::Sealed(_))) {
            return;
        }
        let Some(opening) = self.opening.take() else { return };
        let round_nonces: Vec<Option<Nonce>> = opening
            .parts
            .iter()
            .map(|p| match p {
                Part::Held(_, n) => Some(*n),
                _ => None,
            })
            .collect();
        self.mix_round(round_nonces);
        for (i, part) in opening.parts.iter().enumerate() {
            if let Part::Fault(_, fault) = part {
                for log in &mut self.logs {
                    log.push(Item::Fault { seat: SeatId(i as u16), fault: fault.clone() });
                }
            }
        }
        self.opening_steps = self.fair.len();
        let (_, made) = table::fairness::record_draws(|| self.table.open());
        self.write_logs(0);
        self.log_draws(&made, 0);
        for (i, part) in opening.parts.iter().enumerate() {
            if let Part::Held(_, nonce) = part {
                for log in &mut self.logs {
                    log.push(Item::Opened {
                        seat: SeatId(i as u16),
                        command: opening_command(),
                        nonce: nonce.to_string(),
                    });
                }
            }
        }
        self.reveal_seed_if_over();
    }
}
