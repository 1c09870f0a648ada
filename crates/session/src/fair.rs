//! Verifiable draws in a session (docs/fairness.md §4–§7): the session makes a table's draw
//! source verifiable before its first draw, mixes every revealed sealed round into it before
//! the rules act on the round's commands, takes the seats' client seeds, logs every draw the
//! rules make, and reveals the server seed when the game is over — rotating it to the next
//! when the session has a rotation key, so play may go on.
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
    /// The server seed was revealed and the draws go on with `next` (a rotation).
    Rotate {
        /// The seed the draws go on with.
        next: ServerSeed,
    },
}

/// Where a session's seeds after a rotation come from (docs/fairness.md §4).
#[derive(Debug, Clone)]
pub(crate) struct Rotation {
    /// The secret the seeds are derived from ([`ServerSeed::derive`]).
    key: ServerSeed,
    /// How many rotations were made.
    made: u64,
    /// The draw position when the seed in use came in.
    from: u64,
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
        let mut initial = self.table.initial().clone();
        let Some(d) = R::draws_mut(&mut initial) else { return Err(SessionError::DrawsStarted) };
        *d = Draws::verifiable(server_seed, seats);
        self.commitment = Some(commitment);
        // Setups are plain data: serialising one cannot fail.
        let setup = serde_json::to_string(&self.setup).unwrap_or_default();
        self.setup_secret = Some((setup, server_seed.setup_nonce()));
        // The table opens again from its start with these draws: a draw its opening made (an
        // Inciting Incident initiative lot) comes from them now, and is logged.
        self.reopen(initial, true);
        Ok(commitment)
    }

    /// Starts the table again from `initial` (nothing was given yet), writing every viewer's
    /// log anew; `run`: the rules' first steps run at once (else the table waits for
    /// [`Table::open`], after an opening round).
    pub(crate) fn reopen(&mut self, initial: R::State, run: bool) {
        let mut table = Table::<R>::unopened(initial.clone());
        let made = if run { table::fairness::record_draws(|| table.open()).1 } else { Vec::new() };
        self.table = table;
        self.shadow = initial;
        self.written = 0;
        self.took_back = 0;
        for log in &mut self.logs {
            log.clear();
        }
        self.write_logs(0);
        self.log_draws(&made, 0);
    }

    /// Rotates the server seed instead of leaving play without one (docs/fairness.md §4): once
    /// the game is over, the seed in use is revealed and at once replaced by the next one
    /// derived from the secret `key` ([`ServerSeed::derive`]), whose commitment comes in the
    /// same log item — so draws after the end (a Rest Scene) are keyed by a seed nobody has
    /// seen, and are checked once it is revealed in turn, at the next end. Only with verifiable
    /// draws, before the first command; the caller keeps `key` to give it again on a replay.
    pub fn rotate_with(&mut self, key: ServerSeed) -> Result<(), SessionError<R::Error>> {
        if self.commitment.is_none() {
            return Err(FairnessError::NotVerifiable.into());
        }
        if !self.entries.is_empty() || self.rotation.is_some() {
            return Err(SessionError::DrawsStarted);
        }
        self.rotation = Some(Rotation { key, made: 0, from: 0 });
        Ok(())
    }

    /// The commitment of the game's setup (its JSON text, [`table::fairness::setup_commitment`])
    /// that a verifiable log's first entry shows in place of the setup, when the draws are
    /// verifiable; the setup itself is revealed at the game's first end ([`Item::Setup`]).
    pub fn setup_commitment(&self) -> Option<Commitment> {
        self.setup_secret.as_ref().map(|(setup, nonce)| table::fairness::setup_commitment(setup, nonce))
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

    /// Once the game is over, reveals the server seed in use in every log: once, or with a
    /// rotation key after every end that followed draws under it, committing the next seed in
    /// the same item and going on with it.
    pub(crate) fn reveal_seed_if_over(&mut self) {
        if self.commitment.is_none() || self.seed_revealed || !self.table.is_over() {
            return;
        }
        let position = R::draw_position(self.table.state());
        if let Some(r) = &self.rotation
            && r.made > 0
            && position == r.from
        {
            // A rotated seed that keyed no draw stays secret until it does.
            return;
        }
        let Some(draws) = self.table.draws_mut() else { return };
        let Some(v) = draws.source().verifiable() else { return };
        let (revealed, commitment) = (v.server_seed().reveal(), v.server_seed().commitment().to_string());
        let next = match self.rotation.as_mut() {
            None => {
                self.seed_revealed = true;
                None
            }
            Some(r) => {
                r.made += 1;
                r.from = position;
                let step = Step::Rotate { next: r.key.derive(r.made) };
                if redo_on(draws, &step).is_err() {
                    return;
                }
                let Step::Rotate { next } = &step else { return };
                let shown = next.commitment().to_string();
                self.fair.push((self.entries.len(), step));
                Some(shown)
            }
        };
        for log in &mut self.logs {
            log.push(Item::ServerSeed {
                revealed: revealed.clone(),
                commitment: commitment.clone(),
                next: next.clone(),
            });
        }
        // The setup, hidden until now but for what each viewer's view showed of it.
        if !self.setup_revealed
            && let Some((setup, nonce)) = &self.setup_secret
        {
            self.setup_revealed = true;
            let (setup, nonce) = (setup.clone(), nonce.to_string());
            for log in &mut self.logs {
                log.push(Item::Setup { setup: setup.clone(), nonce: nonce.clone() });
            }
        }
        // The record so far (docs/fairness.md §7.3): with the setup and the seeds, what a
        // verifier replays the rules from. Entries are plain data: serialising cannot fail.
        let entries: Vec<serde_json::Value> =
            self.entries.iter().map(|e| serde_json::to_value(e).unwrap_or(serde_json::Value::Null)).collect();
        // The face-down choices taken back, in no record: a verifier replays each at its place.
        let taken_back: Vec<serde_json::Value> = self
            .taken_back
            .iter()
            .map(|t| serde_json::to_value(t).unwrap_or(serde_json::Value::Null))
            .collect();
        for log in &mut self.logs {
            log.push(Item::Record { entries: entries.clone(), taken_back: taken_back.clone() });
        }
    }
}

fn redo_on(draws: &mut Draws, step: &Step) -> Result<(), FairnessError> {
    match step {
        Step::ClientSeed { seat, seed } => draws.add_client_seed(*seat, *seed),
        Step::Mix { round_nonces } => draws.mix(round_nonces),
        Step::Rotate { next } => draws.rotate_server_seed(*next).map(|_| ()),
    }
}
