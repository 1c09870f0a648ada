//! Verifiable draws in a session (docs/fairness.md §4–§7): the session makes a table's draw
//! source verifiable before its first draw, mixes every revealed sealed round into it before
//! the rules act on the round's commands, takes the seats' client seeds, logs every draw the
//! rules make, and reveals the server seed when the game is over.
//!
//! Each change to the source is recorded with the index of the entry it came before, so a
//! rebuild (after an undo) makes it again at the same point; every viewer's log shows it
//! ([`Item::ClientSeed`], [`Item::Mix`], [`Item::Draw`], [`Item::ServerSeed`]), which is what
//! a verifiable log is made of. A table whose source stays seeded logs none of these.

use table::fairness::{ClientSeed, Commitment, DrawRecord, FairnessError, Nonce, ServerSeed, settled};
use table::{Draws, Ruleset, SeatId, Table};

use crate::{Item, Session, SessionError};

/// One change the session made to a verifiable draw source, kept to make it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A seat gave a client seed (in effect from the next mix).
    ClientSeed {
        /// The seat.
        seat: u16,
        /// Its seed.
        seed: ClientSeed,
    },
    /// A revealed sealed round was mixed in: each seat's nonce, in seat order.
    Mix {
        /// Each seat's nonce of the round, or none.
        round_nonces: Vec<Option<Nonce>>,
    },
}

/// Makes `step` again on `table`'s draw source (a rebuild).
pub(crate) fn redo<R: Ruleset>(table: &mut Table<R>, step: &Step) -> Result<(), FairnessError> {
    redo_on(table.draws_mut().ok_or(FairnessError::NotVerifiable)?, step)
}

impl<R: Ruleset> Session<R> {
    /// Makes the table's draws verifiable, keyed by `server_seed` (docs/fairness.md §4–§5),
    /// and gives back the seed's commitment for the caller to publish. Only before the first
    /// command and the first draw; refused for a ruleset that never draws.
    pub fn use_verifiable(&mut self, server_seed: ServerSeed) -> Result<Commitment, SessionError<R::Error>> {
        if !self.entries.is_empty() || self.commitment.is_some() {
            return Err(SessionError::DrawsStarted);
        }
        let seats = u16::try_from(R::seats(self.table.state()).len())
            .map_err(|_| FairnessError::Seats { client_seeds: usize::MAX, round_nonces: usize::MAX })?;
        let commitment = server_seed.commitment();
        let draws = Draws::verifiable(server_seed, seats);
        if !self.table.start_draws(draws.clone()) {
            return Err(SessionError::DrawsStarted);
        }
        if let Some(d) = R::draws_mut(&mut self.shadow) {
            *d = draws;
        }
        self.commitment = Some(commitment);
        Ok(commitment)
    }

    /// The commitment of the server seed the draws are keyed by, when they are verifiable.
    pub fn server_seed_commitment(&self) -> Option<Commitment> {
        self.commitment
    }

    /// `seat` gives a client seed: public at once (every log shows it), in the draws from the
    /// next mix on (docs/fairness.md §4). A new one replaces the seat's last.
    pub fn add_client_seed(&mut self, seat: SeatId, seed: ClientSeed) -> Result<(), SessionError<R::Error>> {
        if self.commitment.is_none() {
            return Err(FairnessError::NotVerifiable.into());
        }
        if self.seed_revealed {
            return Err(SessionError::Over(seat.0));
        }
        let step = Step::ClientSeed { seat: seat.0, seed };
        let draws = self.table.draws_mut().ok_or(FairnessError::NotVerifiable)?;
        redo_on(draws, &step)?;
        self.fair.push((self.entries.len(), step));
        for log in &mut self.logs {
            log.push(Item::ClientSeed { seat, seed: seed.to_string() });
        }
        Ok(())
    }

    /// Mixes a revealed sealed round into the draws, before the rules act on its commands
    /// (nothing at a table whose draws are not verifiable).
    pub(crate) fn mix_round(&mut self, round_nonces: Vec<Option<Nonce>>) {
        if self.commitment.is_none() {
            return;
        }
        let step = Step::Mix { round_nonces };
        let Some(draws) = self.table.draws_mut() else { return };
        if redo_on(draws, &step).is_err() {
            return;
        }
        let Step::Mix { round_nonces } = &step else { return };
        let shown: Vec<Option<String>> = round_nonces.iter().map(|n| n.map(|n| n.to_string())).collect();
        self.fair.push((self.entries.len(), step.clone()));
        for log in &mut self.logs {
            log.push(Item::Mix { round_nonces: shown.clone() });
        }
    }

    /// Logs the draws a command made (from the draw counter `from` to where it stands now).
    pub(crate) fn log_draws(&mut self, made: &[DrawRecord], from: u64) {
        if self.commitment.is_none() {
            return;
        }
        let to = R::draw_position(self.table.state());
        for draw in settled(made, from, to) {
            for log in &mut self.logs {
                log.push(Item::Draw { draw });
            }
        }
    }

    /// Once the game is over, reveals the server seed in every log (once).
    pub(crate) fn reveal_seed_if_over(&mut self) {
        let Some(commitment) = self.commitment else { return };
        if self.seed_revealed || !self.table.is_over() {
            return;
        }
        let Some(draws) = self.table.draws_mut() else { return };
        let Some(v) = draws.source().verifiable() else { return };
        let revealed = v.server_seed().reveal();
        self.seed_revealed = true;
        for log in &mut self.logs {
            log.push(Item::ServerSeed { revealed: revealed.clone(), commitment: commitment.to_string() });
        }
    }
}

fn redo_on(draws: &mut Draws, step: &Step) -> Result<(), FairnessError> {
    match step {
        Step::ClientSeed { seat, seed } => draws.add_client_seed(*seat, *seed),
        Step::Mix { round_nonces } => draws.mix(round_nonces),
    }
}
