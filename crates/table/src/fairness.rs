//! Sealed commitments, verifiable draws and the hash-chained log, exactly as
//! `docs/fairness.md` specifies them (the document is the reference; this module implements it,
//! and `docs/fairness/vectors.json`, written from it, lets another implementation check itself).
//!
//! - [`canonical_json`]: the one byte form of a JSON value that commitments and the chain hash.
//! - [`Nonce`], [`Commitment`], [`verify_commitment`]: a seat's sealed choice,
//!   SHA-256(canonical command ‖ nonce).
//! - [`ServerSeed`] (secret, committed at table creation by its SHA-256, revealed at the end),
//!   [`ClientSeed`] (one per seat, optional), and [`DrawInputs::draw`]: each draw is
//!   HMAC-SHA256 keyed by the server seed over the client seeds, the nonces of the latest sealed
//!   round, the draw counter and a retry counter, reduced to its range by rejection sampling.
//! - [`Verifiable`]: the state of a verifiable draw source, held by
//!   [`Source::Verifiable`](crate::Source::Verifiable), so the rulesets draw from it unchanged.
//! - [`HashChain`]: each log entry's hash is SHA-256(previous hash ‖ canonical entry).

use std::cell::RefCell;
use std::fmt;
use std::fmt::Write as _;
use std::str::FromStr;

use hmac::{Hmac, Mac};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The largest integer the canonical form writes: 2^53 − 1, the largest a JavaScript number
/// holds exactly (so a verifier in the browser reads every number as written).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// How many arrays and objects the canonical form lets nest inside one another.
pub const MAX_DEPTH: usize = 128;

/// The 16 ASCII bytes every draw message starts with: the version of the draw layout.
pub const DRAW_TAG: &[u8; 16] = b"facedown/draw/v1";

/// The hash before the first entry of a log: 32 zero bytes.
pub const GENESIS: ChainHash = ChainHash([0; 32]);

/// Why a JSON value has no canonical form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CanonicalError {
    /// A number that is not an integer of at most [`MAX_SAFE_INTEGER`] in size: a fraction, an
    /// exponent, a float such as `1.0`, or a larger integer.
    #[error(
        "{path}: the number {number} has no canonical form (integers from -(2^53-1) to 2^53-1 only; \
         write anything else as a string)"
    )]
    Number {
        /// Where the number is (`$` is the whole value, `.key` and `[index]` go inside).
        path: String,
        /// The number as serde_json writes it (an excerpt).
        number: String,
    },
    /// Arrays and objects nested deeper than [`MAX_DEPTH`].
    #[error("{path}: arrays and objects nest deeper than {MAX_DEPTH}")]
    TooDeep {
        /// Where the nesting went too deep.
        path: String,
    },
}

/// Why a commitment, seed, nonce or draw fails.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FairnessError {
    /// A value that must be 32 bytes in 64 lowercase hexadecimal characters is not.
    #[error("{what}: expected 64 lowercase hexadecimal characters, got {excerpt:?}")]
    Hex {
        /// Which value (`nonce`, `commitment`, `server seed`, `client seed`, `chain hash`).
        what: &'static str,
        /// The start of what was given.
        excerpt: String,
    },
    /// The canonical command and nonce do not hash to the commitment: a wrong nonce, a changed
    /// command, or a changed commitment.
    #[error("the commitment does not match the revealed command and nonce")]
    CommitmentMismatch,
    /// The revealed server seed does not hash to the commitment published for it.
    #[error("the revealed server seed does not match its published commitment")]
    SeedMismatch,
    /// A command that has no canonical form.
    #[error("command: {0}")]
    Canonical(#[from] CanonicalError),
    /// A seat number beyond the table's seats.
    #[error("seat {seat}: the table has {seats} seats")]
    NoSeat {
        /// The seat given.
        seat: u16,
        /// How many seats the table has.
        seats: usize,
    },
    /// The draw inputs list a different number of client seeds and round nonces, or more than
    /// 65535 seats.
    #[error(
        "draw inputs: {client_seeds} client seeds and {round_nonces} round nonces (one of each per seat, at most 65535 seats)"
    )]
    Seats {
        /// How many client seed places were given.
        client_seeds: usize,
        /// How many round nonce places were given.
        round_nonces: usize,
    },
    /// A sealed round mixed in with a nonce place per seat of another table.
    #[error(
        "mix: {given} round nonces given for a table of {seats} seats (one per seat, none where a seat has none)"
    )]
    RoundSize {
        /// How many nonce places were given.
        given: usize,
        /// How many seats the table has.
        seats: usize,
    },
    /// A draw over no outcomes or more than 2^64.
    #[error("range size {0}: a draw has from 1 to 2^64 outcomes")]
    RangeSize(u128),
    /// A recorded draw that the inputs in effect do not give.
    #[error("draw {counter}: recorded {recorded}, but the seeds and nonces give {derived}")]
    DrawMismatch {
        /// The draw's counter.
        counter: u64,
        /// The record as logged (value over n, after how many mixes).
        recorded: String,
        /// What the inputs give.
        derived: String,
    },
    /// A fairness operation on a draw source that is not verifiable.
    #[error("the table's draw source is seeded, not verifiable")]
    NotVerifiable,
}

/// Why a recorded hash chain fails to check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChainError {
    /// An entry without a canonical form.
    #[error("entry {index}: {source}")]
    Canonical {
        /// The entry's index (0 is the first).
        index: u64,
        /// Why it has no canonical form.
        source: CanonicalError,
    },
    /// A stored entry that is not JSON, or not written in its canonical form (a second
    /// spelling of the same value would let a changed byte go unnoticed).
    #[error("entry {index}: {reason}")]
    NotCanonical {
        /// The entry's index (0 is the first).
        index: u64,
        /// What is wrong with its text.
        reason: String,
    },
    /// An entry whose recorded hash is not the one the chain gives: it, or an entry before it,
    /// was changed.
    #[error("entry {index}: recorded hash {recorded}, but the chain gives {derived}")]
    Mismatch {
        /// The first entry whose hash does not match (0 is the first).
        index: u64,
        /// The hash the log records for it.
        recorded: ChainHash,
        /// The hash the entries give.
        derived: ChainHash,
    },
}

// --- canonical JSON -------------------------------------------------------------------------

/// One step of the way into a value, for naming where a [`CanonicalError`] is.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

fn render_path(path: &[Step<'_>]) -> String {
    let mut out = String::from("$");
    for step in path {
        match step {
            Step::Key(k) => {
                let excerpt: String = k.chars().take(32).collect();
                let more = if excerpt.len() < k.len() { "…" } else { "" };
                out.push_str(&format!(".{}{more}", excerpt.escape_default()));
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// The canonical JSON text of `value` (docs/fairness.md, "Canonical JSON"): no whitespace,
/// object members sorted by their keys' UTF-16 code units, integers only (at most 2^53 − 1 in
/// size, in plain decimal), strings with only `"`, `\` and the control characters escaped
/// (`\b \t \n \f \r`, the rest `\u00xx`). Its UTF-8 bytes are what commitments and the chain
/// hash.
///
/// A float (even `1.0`), a larger integer, or nesting deeper than [`MAX_DEPTH`] is refused,
/// naming where it is.
pub fn canonical_json(value: &Value) -> Result<String, CanonicalError> {
    let mut out = String::new();
    let mut path = Vec::new();
    write_value(value, &mut out, &mut path)?;
    Ok(out)
}

fn write_value<'a>(
    value: &'a Value,
    out: &mut String,
    path: &mut Vec<Step<'a>>,
) -> Result<(), CanonicalError> {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => {
            let fits = |m: u64| m <= MAX_SAFE_INTEGER;
            if let Some(u) = n.as_u64().filter(|&u| fits(u)) {
                // Writing to a String cannot fail.
                let _ = write!(out, "{u}");
            } else if let Some(i) = n.as_i64().filter(|i| fits(i.unsigned_abs())) {
                let _ = write!(out, "{i}");
            } else {
                let number: String = n.to_string().chars().take(40).collect();
                return Err(CanonicalError::Number { path: render_path(path), number });
            }
        }
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            if path.len() >= MAX_DEPTH {
                return Err(CanonicalError::TooDeep { path: render_path(path) });
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                path.push(Step::Index(i));
                write_value(item, out, path)?;
                path.pop();
            }
            out.push(']');
        }
        Value::Object(members) => {
            if path.len() >= MAX_DEPTH {
                return Err(CanonicalError::TooDeep { path: render_path(path) });
            }
            let mut sorted: Vec<(&String, &Value)> = members.iter().collect();
            // Keys in UTF-16 code unit order (§2). For ASCII keys that is byte order, which a
            // map may already hold them in; only other keys need the UTF-16 comparison.
            if !sorted.is_sorted_by(|a, b| a.0.is_ascii() && b.0.is_ascii() && a.0 <= b.0) {
                sorted.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            }
            out.push('{');
            for (i, (key, item)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                path.push(Step::Key(key));
                write_value(item, out, path)?;
                path.pop();
            }
            out.push('}');
        }
    }
    Ok(())
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    if !s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        // Nothing to escape (most strings): the text as it is.
        out.push_str(s);
        out.push('"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

// --- 32-byte values -------------------------------------------------------------------------

fn parse_hex32(what: &'static str, text: &str) -> Result<[u8; 32], FairnessError> {
    let bad = || FairnessError::Hex { what, excerpt: text.chars().take(70).collect() };
    if text.len() != 64 || !text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
        return Err(bad());
    }
    let mut bytes = [0u8; 32];
    hex::decode_to_slice(text, &mut bytes).map_err(|_| bad())?;
    Ok(bytes)
}

/// A 32-byte value written as 64 lowercase hexadecimal characters, in text and in JSON.
macro_rules! hex32 {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name([u8; 32]);

        impl $name {
            /// The value with these 32 bytes.
            pub const fn from_bytes(bytes: [u8; 32]) -> $name {
                $name(bytes)
            }

            /// Its 32 bytes.
            pub const fn as_bytes(&self) -> &[u8; 32] {
                &self.0
            }
        }

        impl FromStr for $name {
            type Err = FairnessError;

            /// Reads exactly 64 lowercase hexadecimal characters.
            fn from_str(text: &str) -> Result<$name, FairnessError> {
                parse_hex32($what, text).map($name)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&hex::encode(self.0))
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<$name, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

/// Public values print their hex; secrets do not (see [`ServerSeed`]).
macro_rules! shown {
    ($name:ident) => {
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&hex::encode(self.0))
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), hex::encode(self.0))
            }
        }
    };
}

hex32!(
    /// The 32 random bytes a sealed choice is committed with (and, for a plain seat or a bot,
    /// the ones the server draws for it). Revealed with the choice; until then it keeps a
    /// choice from so few options from being found by trying them all against the commitment.
    Nonce,
    "nonce"
);
shown!(Nonce);

impl Nonce {
    /// A fresh nonce from a cryptographically secure generator.
    pub fn generate<R: rand::CryptoRng + ?Sized>(rng: &mut R) -> Nonce {
        let mut bytes = [0u8; 32];
        rng.fill_bytes(&mut bytes);
        Nonce(bytes)
    }
}

hex32!(
    /// A published SHA-256: of a canonical command and its nonce ([`Commitment::to_command`]),
    /// or of a server seed ([`ServerSeed::commitment`]). Checked in constant time.
    Commitment,
    "commitment"
);
shown!(Commitment);

impl Commitment {
    /// The commitment to `command` with `nonce`: SHA-256(canonical JSON of `command` ‖ the 32
    /// bytes of `nonce`).
    pub fn to_command(command: &Value, nonce: &Nonce) -> Result<Commitment, CanonicalError> {
        let canonical = canonical_json(command)?;
        let mut hash = Sha256::new();
        hash.update(canonical.as_bytes());
        hash.update(nonce.0);
        Ok(Commitment(hash.finalize().into()))
    }

    /// Whether the two are the same, compared in constant time.
    pub fn matches(&self, other: &Commitment) -> bool {
        self.0.ct_eq(&other.0).into()
    }
}

/// Checks a reveal: `command` and `nonce` must hash to `commitment` ([`Commitment::to_command`]).
/// A wrong nonce, a changed command or a command without a canonical form fails.
pub fn verify_commitment(
    command: &Value,
    nonce: &Nonce,
    commitment: &Commitment,
) -> Result<(), FairnessError> {
    if Commitment::to_command(command, nonce)?.matches(commitment) {
        Ok(())
    } else {
        Err(FairnessError::CommitmentMismatch)
    }
}

/// The commitment of a table's setup (docs/fairness.md §7.1): §3's commitment of the JSON
/// string holding the setup's text, so a setup with numbers that have no canonical form is
/// committed as it is written.
pub fn setup_commitment(setup: &str, nonce: &Nonce) -> Commitment {
    // A JSON string always has a canonical form.
    Commitment::to_command(&Value::String(setup.to_owned()), nonce).unwrap_or(Commitment([0; 32]))
}

hex32!(
    /// The server's secret: 32 bytes from a cryptographically secure generator, the key of every
    /// draw. Only its [`commitment`](ServerSeed::commitment) is published at table creation; the
    /// seed itself is [revealed](ServerSeed::reveal) when the scene or game ends.
    ///
    /// It is serialised (as hex) because the table's state holds it and a save must resume the
    /// same draws: a save is already secret (it holds face-down choices), and no view or log
    /// item carries the state's draw source. `Debug` does not print it.
    ServerSeed,
    "server seed"
);

impl fmt::Debug for ServerSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ServerSeed(secret, committed as {})", self.commitment())
    }
}

impl ServerSeed {
    /// A fresh server seed from a cryptographically secure generator.
    pub fn generate<R: rand::CryptoRng + ?Sized>(rng: &mut R) -> ServerSeed {
        let mut bytes = [0u8; 32];
        rng.fill_bytes(&mut bytes);
        ServerSeed(bytes)
    }

    /// What is published before any draw: SHA-256 of the seed's 32 bytes.
    pub fn commitment(&self) -> Commitment {
        Commitment(Sha256::digest(self.0).into())
    }

    /// The seed as revealed at the end: 64 lowercase hexadecimal characters.
    pub fn reveal(&self) -> String {
        hex::encode(self.0)
    }

    /// The `k`-th seed derived from this one used as a secret *rotation key* (never revealed
    /// itself): `HMAC-SHA256(key, "facedown rotation" ‖ u64(k))`. A server that rotates its
    /// seed (docs/fairness.md §4) keeps one key per table instead of journaling each fresh
    /// seed; a verifier never needs this, only each revealed seed and its commitment.
    pub fn derive(&self, k: u64) -> ServerSeed {
        // As in `Drawer::new`: the seed zero-padded to the block size is the same HMAC key.
        let mut key = [0u8; 64];
        key[..32].copy_from_slice(&self.0);
        let mut mac = <Hmac<Sha256> as hmac::digest::KeyInit>::new(&key.into());
        mac.update(b"facedown rotation");
        mac.update(&k.to_be_bytes());
        ServerSeed(mac.finalize().into_bytes().into())
    }

    /// The nonce a table's setup is committed with (docs/fairness.md §7.1):
    /// `HMAC-SHA256(seed, "facedown setup")`, secret until the seed is revealed, so a server
    /// keeps no second secret for it. A verifier needs only the nonce revealed with the setup.
    pub fn setup_nonce(&self) -> Nonce {
        let mut key = [0u8; 64];
        key[..32].copy_from_slice(&self.0);
        let mut mac = <Hmac<Sha256> as hmac::digest::KeyInit>::new(&key.into());
        mac.update(b"facedown setup");
        Nonce(mac.finalize().into_bytes().into())
    }

    /// Reads a revealed seed and checks it against the commitment published for it.
    pub fn from_revealed(revealed: &str, commitment: &Commitment) -> Result<ServerSeed, FairnessError> {
        let seed = ServerSeed(parse_hex32("server seed", revealed)?);
        if seed.commitment().matches(commitment) { Ok(seed) } else { Err(FairnessError::SeedMismatch) }
    }
}

hex32!(
    /// A seat's own contribution to the draws: 32 bytes the seat's client chooses (random from
    /// `crypto.getRandomValues`, or [`ClientSeed::from_phrase`] for a person who types one).
    /// Public once given; it takes part in the draws from the next sealed round's reveal on.
    ClientSeed,
    "client seed"
);
shown!(ClientSeed);

impl ClientSeed {
    /// The client seed of a phrase a person typed: SHA-256 of its UTF-8 bytes.
    pub fn from_phrase(phrase: &str) -> ClientSeed {
        ClientSeed(Sha256::digest(phrase.as_bytes()).into())
    }
}

hex32!(
    /// The hash of a log entry chained to the ones before it ([`HashChain`]); the last one is
    /// the log's head.
    ChainHash,
    "chain hash"
);
shown!(ChainHash);

// --- draws ----------------------------------------------------------------------------------

/// Everything a draw is made from, borrowed: the server seed and, per seat in seat order, its
/// client seed and its nonce of the latest sealed round (`None` where a seat has none).
#[derive(Debug, Clone, Copy)]
pub struct DrawInputs<'a> {
    /// The key of every draw.
    pub server_seed: &'a ServerSeed,
    /// Per seat, in seat order: its client seed in effect.
    pub client_seeds: &'a [Option<ClientSeed>],
    /// Per seat, in seat order: its nonce revealed in the latest sealed round.
    pub round_nonces: &'a [Option<Nonce>],
}

/// One draw's outcome: which of the `n` outcomes (0 to n − 1), and how many HMACs were
/// rejected before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Drawn {
    /// The outcome, from 0 to n − 1.
    pub value: u64,
    /// How many retries were rejected before it (0 almost always).
    pub retries: u32,
}

impl DrawInputs<'_> {
    fn checked_seats(&self) -> Result<u16, FairnessError> {
        let (c, r) = (self.client_seeds.len(), self.round_nonces.len());
        match u16::try_from(c) {
            Ok(seats) if c == r => Ok(seats),
            _ => Err(FairnessError::Seats { client_seeds: c, round_nonces: r }),
        }
    }

    /// The bytes before the counters: [`DRAW_TAG`], the seat count (u16 big-endian), then per
    /// seat its client seed, then per seat its round nonce, each as a byte 0 (none) or 1
    /// followed by the 32 bytes.
    pub fn prefix(&self) -> Result<Vec<u8>, FairnessError> {
        let seats = self.checked_seats()?;
        let mut out = Vec::with_capacity(18 + 66 * usize::from(seats));
        out.extend_from_slice(DRAW_TAG);
        out.extend_from_slice(&seats.to_be_bytes());
        let mut optional = |bytes: Option<&[u8; 32]>| match bytes {
            Some(b) => {
                out.push(1);
                out.extend_from_slice(b);
            }
            None => out.push(0),
        };
        for seed in self.client_seeds {
            optional(seed.as_ref().map(ClientSeed::as_bytes));
        }
        for nonce in self.round_nonces {
            optional(nonce.as_ref().map(Nonce::as_bytes));
        }
        Ok(out)
    }

    /// The whole message HMAC'd for one try of one draw: the [`prefix`](DrawInputs::prefix),
    /// the draw counter (u64 big-endian) and the retry counter (u32 big-endian).
    pub fn message(&self, counter: u64, retry: u32) -> Result<Vec<u8>, FairnessError> {
        let mut out = self.prefix()?;
        out.extend_from_slice(&counter.to_be_bytes());
        out.extend_from_slice(&retry.to_be_bytes());
        Ok(out)
    }

    /// The draw with this counter over `n` outcomes (1 to 2^64), as docs/fairness.md defines
    /// it: the first 8 bytes of HMAC-SHA256(server seed, message) as a big-endian u64 `x`; `x`
    /// at or above the largest multiple of `n` not above 2^64 is rejected and the next retry
    /// counter tried; otherwise the outcome is `x mod n`.
    pub fn draw(&self, counter: u64, n: u128) -> Result<Drawn, FairnessError> {
        check_range(n)?;
        Ok(Drawer::new(self.server_seed, self.prefix()?).draw(counter, n))
    }
}

fn check_range(n: u128) -> Result<(), FairnessError> {
    if n == 0 || n > 1 << 64 { Err(FairnessError::RangeSize(n)) } else { Ok(()) }
}

/// The outcome of `x` over `n` outcomes, or `None` if `x` is rejected.
fn reduce(x: u64, n: u128) -> Option<u64> {
    let limit = ((1u128 << 64) / n) * n;
    let x = u128::from(x);
    // Below `limit` the remainder is < n <= 2^64, so it fits.
    (x < limit).then(|| u64::try_from(x % n).unwrap_or(u64::MAX))
}

/// A keyed HMAC and a message prefix, ready for many draws.
#[derive(Clone)]
pub(crate) struct Drawer {
    mac: Hmac<Sha256>,
    prefix: Vec<u8>,
}

impl Drawer {
    fn new(seed: &ServerSeed, prefix: Vec<u8>) -> Drawer {
        // HMAC pads a key shorter than SHA-256's 64-byte block with zeros, so the seed padded to
        // 64 bytes is the same key, and this form of the constructor cannot fail.
        let mut key = [0u8; 64];
        key[..32].copy_from_slice(&seed.0);
        let mac = <Hmac<Sha256> as hmac::digest::KeyInit>::new(&key.into());
        Drawer { mac, prefix }
    }

    fn first_word(&self, counter: u64, retry: u32) -> u64 {
        let mut mac = self.mac.clone();
        mac.update(&self.prefix);
        mac.update(&counter.to_be_bytes());
        mac.update(&retry.to_be_bytes());
        let out = mac.finalize().into_bytes();
        let mut word = [0u8; 8];
        word.copy_from_slice(&out[..8]);
        u64::from_be_bytes(word)
    }

    /// The draw; `n` must be from 1 to 2^64 (checked by the callers).
    pub(crate) fn draw(&self, counter: u64, n: u128) -> Drawn {
        let mut retry = 0u32;
        loop {
            let x = self.first_word(counter, retry);
            if let Some(value) = reduce(x, n) {
                return Drawn { value, retries: retry };
            }
            if retry == u32::MAX {
                // Reached with probability below 2^-(2^32): the spec takes the last try as it is.
                let value = u64::try_from(u128::from(x) % n).unwrap_or(u64::MAX);
                return Drawn { value, retries: retry };
            }
            retry += 1;
        }
    }
}

impl fmt::Debug for Drawer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Drawer(keyed by the server seed)")
    }
}

/// One draw as made, for the log: its counter, its number of outcomes, the outcome, the
/// rejected tries before it, and how many sealed rounds had been mixed in. With the log's
/// seeds and rounds a verifier re-derives it ([`Verifiable::check`]).
///
/// In JSON the 64-bit quantities that can exceed 2^53 (`counter`, `n`, `value`) are decimal
/// strings, so a JavaScript verifier reads them exactly (with `BigInt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DrawRecord {
    /// The draw counter: the source's position before the draw.
    #[serde(with = "decimal")]
    pub counter: u64,
    /// How many outcomes (1 to 2^64).
    #[serde(with = "decimal")]
    pub n: u128,
    /// The outcome, from 0 to n − 1 (the ruleset adds the range's first value).
    #[serde(with = "decimal")]
    pub value: u64,
    /// How many tries were rejected before it.
    pub retries: u32,
    /// How many sealed rounds had been mixed in ([`Verifiable::mixes`]).
    pub mixes: u64,
}

impl fmt::Display for DrawRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} of {} after {} retries and {} mixes", self.value, self.n, self.retries, self.mixes)
    }
}

/// Unsigned integers as decimal strings in their one spelling (no sign, no leading zero).
mod decimal {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::fmt::Display;
    use std::str::FromStr;

    pub fn serialize<T: Display, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(value)
    }

    pub fn deserialize<'de, T, D>(deserializer: D) -> Result<T, D::Error>
    where
        T: FromStr + Display,
        D: Deserializer<'de>,
    {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        match text.parse::<T>() {
            Ok(v) if v.to_string() == text => Ok(v),
            _ => Err(serde::de::Error::custom(format!(
                "expected an unsigned integer as a decimal string, got {:?}",
                text.chars().take(30).collect::<String>()
            ))),
        }
    }
}

thread_local! {
    /// The draws made on this thread inside [`record_draws`], if it is running.
    static JOURNAL: RefCell<Option<Vec<DrawRecord>>> = const { RefCell::new(None) };
}

/// Runs `f` and returns, with its result, every verifiable draw made on this thread while it
/// ran, in the order made. The session wraps each command's application in it to log the
/// draws: keep those [`settled`] between the source's positions before and after (a refused
/// command's draws, or any drawn and not used, are left out). A seeded source records nothing.
pub fn record_draws<T>(f: impl FnOnce() -> T) -> (T, Vec<DrawRecord>) {
    /// Puts back the recording this one interrupted (if any) when this one ends, even by a
    /// panic, handing it this one's draws too.
    struct Restore(Option<Vec<DrawRecord>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            JOURNAL.with(|j| {
                let mut j = j.borrow_mut();
                let inner = j.take().unwrap_or_default();
                *j = outer.map(|mut o| {
                    o.extend(inner);
                    o
                });
            });
        }
    }
    let restore = Restore(JOURNAL.with(|j| j.borrow_mut().replace(Vec::new())));
    let out = f();
    let made = JOURNAL.with(|j| j.borrow().clone().unwrap_or_default());
    drop(restore);
    (out, made)
}

pub(crate) fn note_draw(record: DrawRecord) {
    JOURNAL.with(|j| {
        if let Some(j) = j.borrow_mut().as_mut() {
            j.push(record);
        }
    });
}

/// The draws a command really made, from what [`record_draws`] saw: those with counters from
/// `from` (the source's position before) up to `to` (after), the last made for each counter,
/// in counter order.
pub fn settled(made: &[DrawRecord], from: u64, to: u64) -> Vec<DrawRecord> {
    let mut by_counter = std::collections::BTreeMap::new();
    for r in made.iter().filter(|r| (from..to).contains(&r.counter)) {
        by_counter.insert(r.counter, *r);
    }
    by_counter.into_values().collect()
}

/// The state of a verifiable draw source ([`Source::Verifiable`](crate::Source::Verifiable)):
/// the secret server seed, each seat's client seed in effect and given since, the nonces of the
/// latest sealed round, and how many rounds have been mixed in.
///
/// The session changes it between draws — [`add_client_seed`](Verifiable::add_client_seed)
/// when a seat gives one, [`mix`](Verifiable::mix) when a sealed round is revealed,
/// [`rotate`](Verifiable::rotate) when the seed is revealed and play goes on — and records each
/// change, so a replay makes the same changes at the same points.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "VerifiableFields")]
pub struct Verifiable {
    server_seed: ServerSeed,
    client_seeds: Vec<Option<ClientSeed>>,
    given_client_seeds: Vec<Option<ClientSeed>>,
    round_nonces: Vec<Option<Nonce>>,
    mixes: u64,
}

/// [`Verifiable`] as read, before its seat lists are checked.
#[derive(Deserialize)]
struct VerifiableFields {
    server_seed: ServerSeed,
    client_seeds: Vec<Option<ClientSeed>>,
    given_client_seeds: Vec<Option<ClientSeed>>,
    round_nonces: Vec<Option<Nonce>>,
    mixes: u64,
}

impl TryFrom<VerifiableFields> for Verifiable {
    type Error = FairnessError;

    fn try_from(f: VerifiableFields) -> Result<Verifiable, FairnessError> {
        let (c, g, r) = (f.client_seeds.len(), f.given_client_seeds.len(), f.round_nonces.len());
        if c != g || c != r || u16::try_from(c).is_err() {
            return Err(FairnessError::Seats { client_seeds: c.max(g), round_nonces: r });
        }
        Ok(Verifiable {
            server_seed: f.server_seed,
            client_seeds: f.client_seeds,
            given_client_seeds: f.given_client_seeds,
            round_nonces: f.round_nonces,
            mixes: f.mixes,
        })
    }
}

impl Verifiable {
    /// A fresh source for a table of `seats` seats: no client seeds, no round mixed in yet.
    pub fn new(server_seed: ServerSeed, seats: u16) -> Verifiable {
        let seats = usize::from(seats);
        Verifiable {
            server_seed,
            client_seeds: vec![None; seats],
            given_client_seeds: vec![None; seats],
            round_nonces: vec![None; seats],
            mixes: 0,
        }
    }

    /// How many seats the table has.
    pub fn seats(&self) -> usize {
        self.round_nonces.len()
    }

    /// The published commitment to the server seed in use.
    pub fn server_seed_commitment(&self) -> Commitment {
        self.server_seed.commitment()
    }

    /// The secret server seed, for the server to reveal at the end (and never before).
    pub fn server_seed(&self) -> &ServerSeed {
        &self.server_seed
    }

    /// Each seat's client seed in effect (in seat order).
    pub fn client_seeds(&self) -> &[Option<ClientSeed>] {
        &self.client_seeds
    }

    /// The nonces of the latest sealed round mixed in (in seat order; all `None` before the
    /// first).
    pub fn round_nonces(&self) -> &[Option<Nonce>] {
        &self.round_nonces
    }

    /// How many sealed rounds have been mixed in: a draw made while this was `k` used the
    /// client seeds given before the `k`-th mix (0: none, and no nonces).
    pub fn mixes(&self) -> u64 {
        self.mixes
    }

    /// The inputs of the next draws.
    pub fn inputs(&self) -> DrawInputs<'_> {
        DrawInputs {
            server_seed: &self.server_seed,
            client_seeds: &self.client_seeds,
            round_nonces: &self.round_nonces,
        }
    }

    /// Records the client seed `seat` gives (replacing one it gave before). It takes part in
    /// the draws from the next [`mix`](Verifiable::mix) on, so a seat that gives its seed last —
    /// the host's own, say — cannot choose it to steer draws it could already foresee.
    pub fn add_client_seed(&mut self, seat: u16, seed: ClientSeed) -> Result<(), FairnessError> {
        let seats = self.seats();
        let place = self
            .given_client_seeds
            .get_mut(usize::from(seat))
            .ok_or(FairnessError::NoSeat { seat, seats })?;
        *place = Some(seed);
        Ok(())
    }

    /// Mixes in a revealed sealed round: `round_nonces` (one per seat in seat order, `None` for
    /// a seat with no nonce in the round) replace the last round's, and every client seed given
    /// since the last mix takes effect.
    pub fn mix(&mut self, round_nonces: &[Option<Nonce>]) -> Result<(), FairnessError> {
        if round_nonces.len() != self.seats() {
            return Err(FairnessError::RoundSize { given: round_nonces.len(), seats: self.seats() });
        }
        self.round_nonces.copy_from_slice(round_nonces);
        for (now, given) in self.client_seeds.iter_mut().zip(&self.given_client_seeds) {
            if given.is_some() {
                *now = *given;
            }
        }
        self.mixes = self.mixes.saturating_add(1);
        Ok(())
    }

    /// Replaces the server seed with `next` (whose commitment the server publishes) and gives
    /// back the one it replaces, to be revealed. Client seeds, round nonces and the draw
    /// counter carry on.
    pub fn rotate(&mut self, next: ServerSeed) -> ServerSeed {
        std::mem::replace(&mut self.server_seed, next)
    }

    /// Checks a logged draw against the inputs in effect: same number of mixes, and the
    /// seeds and nonces give the same outcome after the same retries.
    pub fn check(&self, record: &DrawRecord) -> Result<(), FairnessError> {
        let drawn = self.inputs().draw(record.counter, record.n)?;
        let derived = DrawRecord { value: drawn.value, retries: drawn.retries, mixes: self.mixes, ..*record };
        if derived == *record {
            Ok(())
        } else {
            Err(FairnessError::DrawMismatch {
                counter: record.counter,
                recorded: record.to_string(),
                derived: derived.to_string(),
            })
        }
    }

    pub(crate) fn drawer(&self) -> Drawer {
        // The seat lists have one length, at most 65535 (checked when made and when read), so
        // the prefix is always there; the fallback is the empty table's.
        let prefix = self.inputs().prefix().unwrap_or_else(|_| {
            let mut p = DRAW_TAG.to_vec();
            p.extend_from_slice(&0u16.to_be_bytes());
            p
        });
        Drawer::new(&self.server_seed, prefix)
    }
}

// --- the hash chain -------------------------------------------------------------------------

/// A log's hash chain: each entry's hash is SHA-256(the previous hash's 32 bytes ‖ the entry's
/// canonical JSON), starting from [`GENESIS`]; the head is the last hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HashChain {
    head: ChainHash,
    len: u64,
}

impl Default for HashChain {
    fn default() -> HashChain {
        HashChain::new()
    }
}

impl HashChain {
    /// An empty chain: its head is [`GENESIS`].
    pub fn new() -> HashChain {
        HashChain { head: GENESIS, len: 0 }
    }

    /// The hash of `entry` after `previous`.
    pub fn link(previous: &ChainHash, entry: &Value) -> Result<ChainHash, CanonicalError> {
        Ok(HashChain::link_canonical(previous, &canonical_json(entry)?))
    }

    /// The hash of an entry after `previous`, the entry given as its canonical text: what
    /// [`canonical_json`] wrote of it, unchecked (the hash of any other text is a hash no
    /// verifier re-derives).
    pub fn link_canonical(previous: &ChainHash, canonical: &str) -> ChainHash {
        let mut hash = Sha256::new();
        hash.update(previous.0);
        hash.update(canonical.as_bytes());
        ChainHash(hash.finalize().into())
    }

    /// Appends `entry` and returns its hash, the new head. An entry without a canonical form
    /// is refused and the chain left as it was.
    pub fn append(&mut self, entry: &Value) -> Result<ChainHash, CanonicalError> {
        self.head = HashChain::link(&self.head, entry)?;
        self.len += 1;
        Ok(self.head)
    }

    /// Appends an entry given as the text [`canonical_json`] wrote of it (unchecked, as in
    /// [`HashChain::link_canonical`]) and returns its hash, the new head.
    pub fn append_canonical(&mut self, canonical: &str) -> ChainHash {
        self.head = HashChain::link_canonical(&self.head, canonical);
        self.len += 1;
        self.head
    }

    /// Appends an entry stored as text, which must be JSON in its canonical form, and returns
    /// its hash. A text that is not is refused and the chain left as it was.
    pub fn append_text(&mut self, text: &str) -> Result<ChainHash, ChainError> {
        let index = self.len;
        let value: Value = serde_json::from_str(text)
            .map_err(|e| ChainError::NotCanonical { index, reason: format!("not JSON: {e}") })?;
        let canonical = canonical_json(&value).map_err(|source| ChainError::Canonical { index, source })?;
        if canonical != text {
            return Err(ChainError::NotCanonical { index, reason: "not in canonical form".into() });
        }
        Ok(self.append_canonical(text))
    }

    /// The head: the last entry's hash, or [`GENESIS`] before the first.
    pub fn head(&self) -> ChainHash {
        self.head
    }

    /// How many entries the chain has.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the chain has no entry yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Checks a recorded log: each entry with the hash recorded for it, in order. Returns the
    /// chain (its head is the last hash) or names the first entry whose hash does not match.
    pub fn verify<'a>(
        entries: impl IntoIterator<Item = (&'a Value, &'a ChainHash)>,
    ) -> Result<HashChain, ChainError> {
        let mut chain = HashChain::new();
        for (entry, recorded) in entries {
            let index = chain.len;
            let derived = chain.append(entry).map_err(|source| ChainError::Canonical { index, source })?;
            if !bool::from(derived.0.ct_eq(&recorded.0)) {
                return Err(ChainError::Mismatch { index, recorded: *recorded, derived });
            }
        }
        Ok(chain)
    }

    /// Checks a recorded log whose entries are stored as canonical JSON text, each with the
    /// hash recorded for it ([`append_text`](HashChain::append_text)). Returns the chain or
    /// names the first entry that is not canonical or whose hash does not match.
    pub fn verify_texts<'a>(
        entries: impl IntoIterator<Item = (&'a str, &'a ChainHash)>,
    ) -> Result<HashChain, ChainError> {
        let mut chain = HashChain::new();
        for (text, recorded) in entries {
            let index = chain.len;
            let derived = chain.append_text(text)?;
            if !bool::from(derived.0.ct_eq(&recorded.0)) {
                return Err(ChainError::Mismatch { index, recorded: *recorded, derived });
            }
        }
        Ok(chain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/fairness.md §7.1: the setup is committed as §3 commits a command, its JSON text
    /// written as a JSON string, with the nonce HMAC-SHA256(seed, "facedown setup").
    #[test]
    fn the_setup_is_committed_as_a_json_string_with_a_nonce_from_the_seed() {
        let seed = ServerSeed::from_bytes([7; 32]);
        let mut mac = <Hmac<Sha256> as hmac::digest::KeyInit>::new_from_slice(&[7; 32]).unwrap();
        mac.update(b"facedown setup");
        let nonce = seed.setup_nonce();
        assert_eq!(nonce.as_bytes(), &<[u8; 32]>::from(mac.finalize().into_bytes()));
        let text = r#"{"npc":{"moves":["\u00e9"]}}"#;
        let mut hash = Sha256::new();
        hash.update(canonical_json(&Value::String(text.into())).unwrap().as_bytes());
        hash.update(nonce.as_bytes());
        let expected: [u8; 32] = hash.finalize().into();
        assert_eq!(setup_commitment(text, &nonce).to_string(), hex::encode(expected));
        assert!(
            verify_commitment(&Value::String(text.into()), &nonce, &setup_commitment(text, &nonce)).is_ok()
        );
        assert_ne!(nonce, seed.derive(0).setup_nonce(), "each seed its own nonce");
    }

    #[test]
    fn an_entry_appended_as_its_canonical_text_chains_as_the_entry() {
        let entries = [
            serde_json::json!({"seq": 1, "kind": "event", "text": "Ada strikes"}),
            serde_json::json!([1, "é"]),
        ];
        let (mut by_value, mut by_text) = (HashChain::new(), HashChain::new());
        for entry in &entries {
            let head = by_value.append(entry).unwrap();
            assert_eq!(by_text.append_canonical(&canonical_json(entry).unwrap()), head);
        }
        assert_eq!((by_text.head(), by_text.len()), (by_value.head(), 2));
        assert_ne!(by_text.head(), GENESIS);
    }

    #[test]
    fn the_seed_padded_to_a_block_is_the_same_hmac_key() {
        let seed = ServerSeed([7; 32]);
        let drawer = Drawer::new(&seed, b"message".to_vec());
        let mut plain = <Hmac<Sha256> as Mac>::new_from_slice(&[7; 32]).unwrap();
        plain.update(b"message");
        plain.update(&5u64.to_be_bytes());
        plain.update(&0u32.to_be_bytes());
        let out = plain.finalize().into_bytes();
        assert_eq!(drawer.first_word(5, 0).to_be_bytes(), out[..8]);
    }

    #[test]
    fn reduction_rejects_exactly_the_top_remainder() {
        // n = 3: 2^64 = 3·6148914691236517205 + 1, so only 2^64 − 1 is rejected.
        assert_eq!(reduce(u64::MAX, 3), None);
        assert_eq!(reduce(u64::MAX - 1, 3), Some(((u128::from(u64::MAX) - 1) % 3) as u64));
        // n = 6: 2^64 mod 6 = 4, so the top four words are rejected.
        for k in 0..4 {
            assert_eq!(reduce(u64::MAX - k, 6), None);
        }
        assert_eq!(reduce(u64::MAX - 4, 6), Some(((u128::from(u64::MAX) - 4) % 6) as u64));
        // Powers of two and 2^64 itself reject nothing.
        assert_eq!(reduce(u64::MAX, 1 << 32), Some(u64::from(u32::MAX)));
        assert_eq!(reduce(u64::MAX, 1 << 64), Some(u64::MAX));
        assert_eq!(reduce(12345, 1), Some(0));
    }
}
