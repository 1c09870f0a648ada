//! A session of any rule system behind one object type, for a shell that holds games of several
//! systems at once and knows none of their types (a server's tables): commands come in as JSON,
//! and updates, prompts, views and records go out as JSON — the serde forms of the ruleset's
//! own types, so nothing is re-derived or renamed on the way.

use serde_json::Value;
use serde_json::value::RawValue;
use table::{Ruleset, SeatId, Seats, Viewer};
use thiserror::Error;

use crate::sealed::{Commitment, Fault, Mode, Nonce, RoundInfo, SealError};
use crate::{CanonicalTexts, Session, SessionError};
use std::sync::Arc;
use table::fairness::CanonicalError;
use table::fairness::{ClientSeed, FairnessError, ServerSeed};

/// Why an [`AnySession`] refused something. Nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AnyError {
    /// The JSON is not one of the ruleset's commands.
    #[error("not a {ruleset} command: {reason}")]
    NotACommand {
        /// The ruleset's name.
        ruleset: &'static str,
        /// What the JSON reader said.
        reason: String,
    },
    /// The session or the rules refused it; the message names the rule.
    #[error("{0}")]
    Refused(String),
    /// No seat has this number, for a view or a prompt.
    #[error("there is no seat number {0}")]
    NoSeat(u16),
    /// A sealed round refused the request (the variant names the rule).
    #[error(transparent)]
    Sealing(SealError),
}

/// A [`Session`] of some ruleset, its types hidden behind JSON.
pub trait AnySession: Send {
    /// The ruleset's name ([`Ruleset::NAME`]).
    fn ruleset(&self) -> &'static str;
    /// The ruleset's version ([`Ruleset::VERSION`]).
    fn version(&self) -> u32;
    /// The seats, with their roles and sides.
    fn seats(&self) -> &Seats;
    /// `command` (the ruleset's JSON) as the rules read it: its canonical form, what a shell
    /// keeps and what a sealed commitment covers. Refused, naming the field, when `command` says
    /// anything its canonical form does not (a field the rules do not read, a value written
    /// otherwise), so that what is kept is exactly what was judged; a field left out that the
    /// rules give a default is filled in. In an opening round the command is `{}`.
    fn canonical_command(&self, command: &Value) -> Result<Value, AnyError>;
    /// [`Session::submit`] of a command given as the ruleset's JSON.
    fn submit(&mut self, seat: SeatId, command: &Value) -> Result<(), AnyError>;
    /// Whether `command` (the ruleset's JSON) is a GM's ruling outside the choices of play
    /// ([`Ruleset::is_gm_ruling`]): what a GM screen may give on the GM seat's behalf.
    fn is_gm_ruling(&self, command: &Value) -> Result<bool, AnyError>;
    /// [`Session::force`].
    fn force(&mut self, seat: SeatId, by: Option<SeatId>) -> Result<(), AnyError>;
    /// [`Session::take_back`].
    fn take_back(&mut self, seat: SeatId) -> Result<(), AnyError>;
    /// [`Session::give_up`]: a sealed seat that lost its secret.
    fn give_up(&mut self, seat: SeatId) -> Result<(), AnyError>;
    /// [`Session::undo`].
    fn undo(&mut self, by: SeatId) -> Result<(), AnyError>;
    /// The seats the game waits for.
    fn awaiting(&self) -> Vec<SeatId>;
    /// Whether the game is over.
    fn is_over(&self) -> bool;
    /// How many items every viewer's log holds.
    fn seq(&self) -> u64;
    /// [`Session::face_down`]: face-down choices waiting for their reveal.
    fn face_down(&self) -> usize;
    /// [`Session::updates_since`], each update in its JSON form.
    fn updates_since(&self, viewer: Viewer, seq: u64) -> Vec<Value>;
    /// What `seat` is asked now, in the JSON form of [`table::Prompt`].
    fn prompt(&self, seat: SeatId) -> Result<Option<Value>, AnyError>;
    /// What `viewer` may see now.
    fn view(&self, viewer: Viewer) -> Result<Value, AnyError>;
    /// The game's [`Record`](crate::Record) as JSON.
    fn record(&self) -> Value;
    /// [`updates_since`](AnySession::updates_since) as the text of one JSON array, written
    /// straight from the typed updates (no [`Value`] tree): a server's hot path.
    fn updates_raw(&self, viewer: Viewer, seq: u64) -> Box<RawValue>;
    /// [`Session::updates_canonical`]: each update as its canonical JSON text, what
    /// `viewer`'s verifiable log hashes, written once for every viewer it is the same for.
    fn updates_canonical(
        &self,
        viewer: Viewer,
        seq: u64,
        texts: &mut CanonicalTexts,
    ) -> Result<Vec<Arc<str>>, CanonicalError>;
    /// [`prompt`](AnySession::prompt) as JSON text.
    fn prompt_raw(&self, seat: SeatId) -> Result<Option<Box<RawValue>>, AnyError>;
    /// [`view`](AnySession::view) as JSON text.
    fn view_raw(&self, viewer: Viewer) -> Result<Box<RawValue>, AnyError>;
    /// [`Session::set_mode`].
    fn set_mode(&mut self, seat: SeatId, mode: Mode) -> Result<(), AnyError>;
    /// [`Session::mode`].
    fn mode(&self, seat: SeatId) -> Mode;
    /// [`Session::sealing`].
    fn sealing(&self) -> bool;
    /// [`Session::round`].
    fn round(&self) -> Option<RoundInfo>;
    /// [`Session::in_round`].
    fn in_round(&self, seat: SeatId) -> bool;
    /// [`Session::seal`] with the commitment as 64 lowercase hex digits.
    fn seal(&mut self, seat: SeatId, commitment: &str) -> Result<(), AnyError>;
    /// [`Session::reveal`] of a command given as the ruleset's JSON, the nonce as hex.
    fn reveal(&mut self, seat: SeatId, command: &Value, nonce: &str) -> Result<Option<Fault>, AnyError>;
    /// [`Session::submit_bound`] of a command given as the ruleset's JSON.
    fn submit_bound(&mut self, seat: SeatId, command: &Value, nonce: &Nonce) -> Result<(), AnyError>;
    /// [`Session::force_bound`].
    fn force_bound(&mut self, seat: SeatId, by: Option<SeatId>, nonce: &Nonce) -> Result<(), AnyError>;
    /// Makes the draws verifiable, keyed by `server_seed` (before the first command);
    /// gives back its commitment to publish ([`Session::use_verifiable`]).
    fn use_verifiable(&mut self, server_seed: ServerSeed) -> Result<Commitment, AnyError>;
    /// [`Session::open_with_round`]: the table waits for an opening round before the rules'
    /// first step.
    fn open_with_round(&mut self) -> Result<(), AnyError>;
    /// [`Session::draws_before_a_reveal`]: whether an opening round would protect a draw.
    fn draws_before_a_reveal(&self) -> bool;
    /// [`Session::rotate_with`]: the seeds after each end of the game come from `key`.
    fn rotate_with(&mut self, key: ServerSeed) -> Result<(), AnyError>;
    /// The published commitment of the server seed, when the draws are verifiable.
    fn server_seed_commitment(&self) -> Option<Commitment>;
    /// [`Session::setup_commitment`]: what a verifiable log shows of the setup before the end.
    fn setup_commitment(&self) -> Option<Commitment>;
    /// `seat` gives a client seed, 64 lowercase hex digits ([`Session::add_client_seed`]).
    fn add_client_seed(&mut self, seat: SeatId, seed: &str) -> Result<(), AnyError>;
}

/// A sealed seat's prompt when it is asked again in a round: the question after the stand-ins
/// for its own earlier choices, and `branches`, the question after each sequence of them
/// ([`Session::own_branches`]); its client answers the branch of the choices it made.
#[derive(serde::Serialize)]
#[serde(bound(serialize = "C: serde::Serialize"))]
struct Branched<'a, C> {
    #[serde(flatten)]
    prompt: &'a table::Prompt<C>,
    branches: &'a [crate::sealed::Branch<C>],
}

fn json<T: serde::Serialize>(value: &T) -> Value {
    // The rulesets' types are plain data with string keys: they always serialise.
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn raw<T: serde::Serialize + ?Sized>(value: &T) -> Box<RawValue> {
    // As `json`: plain data always serialises; `null` is the unreachable fallback.
    serde_json::value::to_raw_value(value).unwrap_or_else(|_| RawValue::NULL.to_owned())
}

fn refused<E: std::error::Error>(e: SessionError<E>) -> AnyError {
    match e {
        SessionError::Sealing(s) => AnyError::Sealing(s),
        e => AnyError::Refused(e.to_string()),
    }
}

fn typed<R: Ruleset>(command: &Value) -> Result<R::Command, AnyError> {
    serde_json::from_value(command.clone())
        .map_err(|e| AnyError::NotACommand { ruleset: R::NAME, reason: e.to_string() })
}

/// `given` against `canonical`, the form the rules read it in: the first place where `given`
/// says something `canonical` does not, by its path (`junk`, `targets[0].name`). A field absent
/// from `given` is one the rules filled in; a field `null` in `given` and absent from
/// `canonical` is one the rules read as absent: neither says anything more.
fn beyond_canonical(given: &Value, canonical: &Value, path: &mut String) -> Option<String> {
    match (given, canonical) {
        (Value::Object(g), Value::Object(c)) => {
            for (key, value) in g {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                let found = match c.get(key) {
                    Some(c) => beyond_canonical(value, c, path),
                    None if value.is_null() => None,
                    None => Some(format!("the field `{path}` is not part of the command")),
                };
                if found.is_some() {
                    return found;
                }
                path.truncate(len);
            }
            None
        }
        (Value::Array(g), Value::Array(c)) if g.len() == c.len() => {
            g.iter().zip(c).enumerate().find_map(|(i, (g, c))| {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                let found = beyond_canonical(g, c, path);
                path.truncate(len);
                found
            })
        }
        (g, c) if g == c => None,
        _ if path.is_empty() => Some("the command is not written as the rules read it".to_owned()),
        _ => Some(format!("the field `{path}` is not written as the rules read it ({canonical})")),
    }
}

/// [`AnySession::canonical_command`] of a command of `R`.
fn canonical<R: Ruleset>(command: &Value) -> Result<Value, AnyError> {
    let canonical = json(&typed::<R>(command)?);
    match beyond_canonical(command, &canonical, &mut String::new()) {
        None => Ok(canonical),
        Some(reason) => Err(AnyError::NotACommand { ruleset: R::NAME, reason }),
    }
}

impl<R> AnySession for Session<R>
where
    R: Ruleset + 'static,
    R::Setup: Send,
    R::State: Send,
    R::Command: Send,
    R::Event: Send,
{
    fn ruleset(&self) -> &'static str {
        R::NAME
    }

    fn version(&self) -> u32 {
        R::VERSION
    }

    fn seats(&self) -> &Seats {
        R::seats(self.table().state())
    }

    fn canonical_command(&self, command: &Value) -> Result<Value, AnyError> {
        if self.opening() {
            let opening = crate::opening::opening_command();
            return match beyond_canonical(command, &opening, &mut String::new()) {
                None => Ok(opening),
                Some(reason) => Err(AnyError::NotACommand { ruleset: "opening round", reason }),
            };
        }
        canonical::<R>(command)
    }

    fn submit(&mut self, seat: SeatId, command: &Value) -> Result<(), AnyError> {
        let command = typed::<R>(command)?;
        Session::submit(self, seat, &command).map_err(refused)
    }

    fn is_gm_ruling(&self, command: &Value) -> Result<bool, AnyError> {
        typed::<R>(command).map(|c| R::is_gm_ruling(&c))
    }

    fn force(&mut self, seat: SeatId, by: Option<SeatId>) -> Result<(), AnyError> {
        Session::force(self, seat, by).map_err(refused)
    }

    fn take_back(&mut self, seat: SeatId) -> Result<(), AnyError> {
        Session::take_back(self, seat).map_err(refused)
    }

    fn give_up(&mut self, seat: SeatId) -> Result<(), AnyError> {
        Session::give_up(self, seat).map_err(refused)
    }

    fn undo(&mut self, by: SeatId) -> Result<(), AnyError> {
        Session::undo(self, by).map_err(refused)
    }

    fn awaiting(&self) -> Vec<SeatId> {
        Session::awaiting(self)
    }

    fn is_over(&self) -> bool {
        Session::is_over(self)
    }

    fn seq(&self) -> u64 {
        Session::seq(self)
    }

    fn face_down(&self) -> usize {
        Session::face_down(self)
    }

    fn updates_since(&self, viewer: Viewer, seq: u64) -> Vec<Value> {
        Session::updates_since(self, viewer, seq).iter().map(json).collect()
    }

    fn prompt(&self, seat: SeatId) -> Result<Option<Value>, AnyError> {
        self.seats().get(seat).map_err(|_| AnyError::NoSeat(seat.0))?;
        let Some(prompt) = Session::prompt(self, seat) else { return Ok(None) };
        Ok(Some(match self.own_branches(seat) {
            Some(branches) => json(&Branched { prompt: &prompt, branches: &branches }),
            None => json(&prompt),
        }))
    }

    fn view(&self, viewer: Viewer) -> Result<Value, AnyError> {
        if let Viewer::Seat(seat) = viewer {
            self.seats().get(seat).map_err(|_| AnyError::NoSeat(seat.0))?;
        }
        Ok(json(&Session::view(self, viewer)))
    }

    fn record(&self) -> Value {
        json(&Session::record(self))
    }

    fn updates_raw(&self, viewer: Viewer, seq: u64) -> Box<RawValue> {
        raw(&Session::updates_since(self, viewer, seq))
    }

    fn updates_canonical(
        &self,
        viewer: Viewer,
        seq: u64,
        texts: &mut CanonicalTexts,
    ) -> Result<Vec<Arc<str>>, CanonicalError> {
        Session::updates_canonical(self, viewer, seq, texts)
    }

    fn prompt_raw(&self, seat: SeatId) -> Result<Option<Box<RawValue>>, AnyError> {
        self.seats().get(seat).map_err(|_| AnyError::NoSeat(seat.0))?;
        let Some(prompt) = Session::prompt(self, seat) else { return Ok(None) };
        Ok(Some(match self.own_branches(seat) {
            Some(branches) => raw(&Branched { prompt: &prompt, branches: &branches }),
            None => raw(&prompt),
        }))
    }

    fn view_raw(&self, viewer: Viewer) -> Result<Box<RawValue>, AnyError> {
        if let Viewer::Seat(seat) = viewer {
            self.seats().get(seat).map_err(|_| AnyError::NoSeat(seat.0))?;
        }
        Ok(raw(&Session::view(self, viewer)))
    }

    fn set_mode(&mut self, seat: SeatId, mode: Mode) -> Result<(), AnyError> {
        Session::set_mode(self, seat, mode).map_err(refused)
    }

    fn mode(&self, seat: SeatId) -> Mode {
        Session::mode(self, seat)
    }

    fn sealing(&self) -> bool {
        Session::sealing(self)
    }

    fn round(&self) -> Option<RoundInfo> {
        Session::round(self)
    }

    fn in_round(&self, seat: SeatId) -> bool {
        Session::in_round(self, seat)
    }

    fn seal(&mut self, seat: SeatId, commitment: &str) -> Result<(), AnyError> {
        let commitment: Commitment =
            commitment.parse().map_err(|_| AnyError::Sealing(SealError::BadCommitment))?;
        Session::seal(self, seat, commitment).map_err(refused)
    }

    fn reveal(&mut self, seat: SeatId, command: &Value, nonce: &str) -> Result<Option<Fault>, AnyError> {
        let nonce: Nonce = nonce.parse().map_err(|_| AnyError::Sealing(SealError::BadNonce))?;
        if self.opening() {
            // The opening round's command is `{}`, no command of the ruleset's.
            return Session::reveal_opening(self, seat, command, nonce).map_err(refused);
        }
        let command = typed::<R>(command)?;
        Session::reveal(self, seat, &command, nonce).map_err(refused)
    }

    fn submit_bound(&mut self, seat: SeatId, command: &Value, nonce: &Nonce) -> Result<(), AnyError> {
        let command = typed::<R>(command)?;
        Session::submit_bound(self, seat, &command, *nonce).map_err(refused)
    }

    fn use_verifiable(&mut self, server_seed: ServerSeed) -> Result<Commitment, AnyError> {
        Session::use_verifiable(self, server_seed).map_err(refused)
    }

    fn open_with_round(&mut self) -> Result<(), AnyError> {
        Session::open_with_round(self).map_err(refused)
    }

    fn draws_before_a_reveal(&self) -> bool {
        Session::draws_before_a_reveal(self)
    }

    fn rotate_with(&mut self, key: ServerSeed) -> Result<(), AnyError> {
        Session::rotate_with(self, key).map_err(refused)
    }

    fn server_seed_commitment(&self) -> Option<Commitment> {
        Session::server_seed_commitment(self)
    }

    fn setup_commitment(&self) -> Option<Commitment> {
        Session::setup_commitment(self)
    }

    fn add_client_seed(&mut self, seat: SeatId, seed: &str) -> Result<(), AnyError> {
        let seed: ClientSeed =
            seed.parse().map_err(|e: FairnessError| AnyError::Refused(format!("client_seed: {e}")))?;
        Session::add_client_seed(self, seat, seed).map_err(refused)
    }

    fn force_bound(&mut self, seat: SeatId, by: Option<SeatId>, nonce: &Nonce) -> Result<(), AnyError> {
        Session::force_bound(self, seat, by, *nonce).map_err(refused)
    }
}
