//! The verifiable log of a table (docs/fairness.md §6–§7): a viewer's log items, after one
//! `table` entry, each chained to the one before; written as JSON Lines, one canonical
//! `{"entry":…,"hash":"…"}` a line; and [`verify`], which checks such a log alone.
//!
//! The entries are the viewer's [`Item`](crate::Item)s as the server sends them (`seq`, `kind`
//! and the item's fields): `event` (the rules' event, redacted for the viewer, with its
//! narration), `bound` (a sealed round's commitments), `opened` (a reveal), `fault`,
//! `client_seed`, `mix`, `draw`, `server_seed`, and the session's `took_back`, `forced`,
//! `undone`. The first entry, `table`, names the system, its setup, the seats with their
//! modes, the draw layout and the server seed's commitment.

use serde_json::{Value, json};
use table::fairness::{
    ChainHash, ClientSeed, Commitment, DrawRecord, GENESIS, HashChain, Nonce, ServerSeed, Verifiable,
    canonical_json, verify_commitment,
};
use thiserror::Error;

/// The name and version of the draw layout a table entry names (docs/fairness.md §5.3).
pub const LAYOUT: &str = "facedown/draw/v1";

/// One seat as the table entry names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatEntry {
    /// The seat's name.
    pub name: String,
    /// `plain` or `sealed`.
    pub mode: String,
}

/// The first entry of a verifiable log: the system, its setup (as the JSON text it was
/// created from), the seats in seat order with their modes, the draw layout, and the server
/// seed's commitment (none for a table whose draws are not verifiable).
pub fn table_entry(system: &str, setup: &str, seats: &[SeatEntry], commitment: Option<&Commitment>) -> Value {
    let seats: Vec<Value> =
        seats.iter().enumerate().map(|(i, s)| json!({"seat": i, "name": s.name, "mode": s.mode})).collect();
    json!({
        "kind": "table",
        "system": system,
        "setup": setup,
        "seats": seats,
        "layout": LAYOUT,
        "server_seed_commitment": commitment.map(|c| c.to_string()),
    })
}

/// Why a log could not be written: an entry without a canonical form.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("entry {index}: {source}")]
pub struct WriteError {
    /// The entry (1 is the table entry).
    pub index: u64,
    /// Why it has no canonical form.
    pub source: table::fairness::CanonicalError,
}

/// Writes `entries` as a verifiable log: one `{"entry":…,"hash":"…"}` line each, in canonical
/// JSON, and gives back the text and the chain's head.
pub fn write(entries: impl IntoIterator<Item = Value>) -> Result<(String, ChainHash), WriteError> {
    let mut chain = HashChain::new();
    let mut out = String::new();
    for (i, entry) in entries.into_iter().enumerate() {
        let index = i as u64 + 1;
        let hash = chain.append(&entry).map_err(|source| WriteError { index, source })?;
        let line = json!({"entry": entry, "hash": hash.to_string()});
        out.push_str(&canonical_json(&line).map_err(|source| WriteError { index, source })?);
        out.push('\n');
    }
    Ok((out, chain.head()))
}

/// What a log that verified holds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    /// How many entries.
    pub entries: u64,
    /// The chain's head.
    pub head: String,
    /// How many draws.
    pub draws: u64,
    /// How many draws were made before the first mix (the host could foresee them, §8).
    pub before_first_mix: u64,
    /// Whether the server seed of every draw was revealed (the table's, and after a rotation
    /// the next), so every draw was re-derived.
    pub seed_revealed: bool,
    /// How many commitments were checked against their reveals.
    pub reveals_checked: u64,
    /// How many client seeds were given.
    pub client_seeds: u64,
    /// How many sealed rounds were mixed in.
    pub mixes: u64,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ok: {} entries, head {}, {} draws ({} before the first mix), {} reveals checked, {} mixes, {} client seeds",
            self.entries,
            self.head,
            self.draws,
            self.before_first_mix,
            self.reveals_checked,
            self.mixes,
            self.client_seeds
        )?;
        if !self.seed_revealed {
            write!(
                f,
                "; a server seed is not revealed yet: its draws' counters are checked, not their values"
            )?;
        }
        Ok(())
    }
}

/// The first thing wrong with a log, naming its entry (counting from 1, one entry a line).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("entry {entry}: {reason}")]
pub struct VerifyError {
    /// The entry at fault (its line, counting from 1).
    pub entry: u64,
    /// What is wrong with it.
    pub reason: String,
}

fn bad(entry: u64, reason: impl Into<String>) -> VerifyError {
    VerifyError { entry, reason: reason.into() }
}

/// A sealed round being checked: its commitments, which have been opened, the nonces it was
/// mixed with, and the seats that faulted.
#[derive(Default)]
struct RoundCheck {
    commitments: Vec<(u64, Commitment, bool)>,
    opened: Vec<(u64, Nonce)>,
    mixed: Vec<(u64, Nonce)>,
    faulted: Vec<u64>,
    mix_entry: u64,
}

impl RoundCheck {
    /// The commitments the round left unopened whose seats it mixed no nonce of: choices the
    /// rules still held face down when it ended, opened later.
    fn unopened(&self) -> impl Iterator<Item = (u64, Commitment)> + '_ {
        self.commitments
            .iter()
            .filter(|(seat, _, used)| !*used && !self.mixed.iter().any(|(s, _)| s == seat))
            .map(|(seat, c, _)| (*seat, *c))
    }

    /// Every nonce the round was mixed with was opened by its seat (or the seat faulted).
    fn close(&self) -> Result<(), VerifyError> {
        for (seat, nonce) in &self.mixed {
            if !self.opened.contains(&(*seat, *nonce)) && !self.faulted.contains(seat) {
                return Err(bad(
                    self.mix_entry,
                    format!("mix: seat {seat}'s nonce {nonce} is not one the seat revealed in the round"),
                ));
            }
        }
        Ok(())
    }
}

fn field<'a>(entry: &'a Value, key: &str, n: u64) -> Result<&'a Value, VerifyError> {
    entry.get(key).ok_or_else(|| bad(n, format!("no `{key}`")))
}

fn text<'a>(entry: &'a Value, key: &str, n: u64) -> Result<&'a str, VerifyError> {
    field(entry, key, n)?.as_str().ok_or_else(|| bad(n, format!("`{key}` is not a string")))
}

fn number(entry: &Value, key: &str, n: u64) -> Result<u64, VerifyError> {
    field(entry, key, n)?.as_u64().ok_or_else(|| bad(n, format!("`{key}` is not a whole number")))
}

/// Checks a verifiable log (docs/fairness.md §7): every line canonical and chained to the one
/// before; the table entry first; the revealed server seed against its commitment; every
/// reveal against its commitment; every mix's nonces against the round's reveals; the client
/// seeds, mixes and draws replayed into the state of the draws, each draw re-derived once the
/// seed is revealed, the counters running 0, 1, 2… without a gap. Names the first entry at
/// fault.
pub fn verify(log: &str) -> Result<Report, VerifyError> {
    let mut entries = Vec::new();
    let mut previous = GENESIS;
    for (i, line) in log.lines().enumerate() {
        let n = i as u64 + 1;
        if line.is_empty() && log.lines().skip(i).all(str::is_empty) {
            break;
        }
        let value: Value = serde_json::from_str(line).map_err(|e| bad(n, format!("not JSON: {e}")))?;
        let canonical = canonical_json(&value).map_err(|e| bad(n, e.to_string()))?;
        if canonical != line {
            return Err(bad(n, "not written in canonical JSON (docs/fairness.md §2)"));
        }
        let Some(obj) = value.as_object() else { return Err(bad(n, "not an object")) };
        if obj.len() != 2 {
            return Err(bad(n, "a line holds exactly `entry` and `hash`"));
        }
        let entry = field(&value, "entry", n)?;
        let recorded: ChainHash = text(&value, "hash", n)?
            .parse()
            .map_err(|e: table::fairness::FairnessError| bad(n, e.to_string()))?;
        let derived = HashChain::link(&previous, entry).map_err(|e| bad(n, e.to_string()))?;
        if derived != recorded {
            return Err(bad(n, format!("recorded hash {recorded}, but the chain gives {derived}")));
        }
        previous = derived;
        entries.push(entry.clone());
    }
    let Some(first) = entries.first() else { return Err(bad(1, "the log is empty")) };
    if first.get("kind").and_then(Value::as_str) != Some("table") {
        return Err(bad(1, "the first entry is not the table entry"));
    }
    if text(first, "layout", 1)? != LAYOUT {
        return Err(bad(1, format!("the draw layout is not {LAYOUT}")));
    }
    let seats = field(first, "seats", 1)?.as_array().ok_or_else(|| bad(1, "`seats` is not a list"))?.len();
    let seats16 = u16::try_from(seats).map_err(|_| bad(1, "more than 65535 seats"))?;
    let commitment: Option<Commitment> = match field(first, "server_seed_commitment", 1)? {
        Value::Null => None,
        v => Some(
            v.as_str()
                .ok_or_else(|| bad(1, "`server_seed_commitment` is not a string"))?
                .parse()
                .map_err(|e: table::fairness::FairnessError| bad(1, e.to_string()))?,
        ),
    };
    // The revealed seeds, each checked against the commitment in force when it is revealed
    // (the table's, then each rotation's `next`), key the replay of the draws.
    let mut seeds = Vec::new();
    let mut in_force = commitment;
    for (i, e) in entries.iter().enumerate() {
        let n = i as u64 + 1;
        if e.get("kind").and_then(Value::as_str) == Some("server_seed") {
            let Some(c) = in_force else {
                return Err(bad(
                    n,
                    if commitment.is_none() {
                        "a server seed at a table that committed none"
                    } else {
                        "a server seed after the last one was revealed with no next seed committed"
                    },
                ));
            };
            if text(e, "commitment", n)? != c.to_string() {
                return Err(bad(
                    n,
                    "the commitment named is not the one in force (the table's, or the last rotation's next)",
                ));
            }
            let s = ServerSeed::from_revealed(text(e, "revealed", n)?, &c)
                .map_err(|err| bad(n, err.to_string()))?;
            seeds.push(s);
            in_force = next_commitment(e, n)?;
        }
    }
    let mut v = seeds.first().map(|s| Verifiable::new(*s, seats16));
    let mut report = Report {
        entries: entries.len() as u64,
        head: previous.to_string(),
        draws: 0,
        before_first_mix: 0,
        seed_revealed: v.is_some(),
        reveals_checked: 0,
        client_seeds: 0,
        mixes: 0,
    };
    let mut round: Option<RoundCheck> = None;
    // Commitments of earlier rounds still face down in the rules when their round ended: not
    // mixed, opened by a later `opened` (docs/fairness.md §3).
    let mut carried: Vec<(u64, Commitment)> = Vec::new();
    let mut revealed_seed = false;
    let mut epoch = 0;
    for (i, e) in entries.iter().enumerate().skip(1) {
        let n = i as u64 + 1;
        if number(e, "seq", n)? != i as u64 {
            return Err(bad(n, format!("seq {} where {i} comes next", number(e, "seq", n)?)));
        }
        let kind = text(e, "kind", n)?;
        let seat_of = |e: &Value| -> Result<u64, VerifyError> {
            let s = number(e, "seat", n)?;
            if s >= seats as u64 {
                Err(bad(n, format!("seat {s}: the table has {seats} seats")))
            } else {
                Ok(s)
            }
        };
        match kind {
            "client_seed" => {
                let seat = seat_of(e)?;
                let s: ClientSeed = text(e, "seed", n)?
                    .parse()
                    .map_err(|err: table::fairness::FairnessError| bad(n, err.to_string()))?;
                if let Some(v) = &mut v {
                    v.add_client_seed(seat as u16, s).map_err(|err| bad(n, err.to_string()))?;
                }
                report.client_seeds += 1;
            }
            "bound" => {
                if let Some(r) = round.take() {
                    r.close()?;
                    carried.extend(r.unopened());
                }
                let list = field(e, "commitments", n)?
                    .as_array()
                    .ok_or_else(|| bad(n, "`commitments` is not a list"))?;
                let mut r = RoundCheck::default();
                for c in list {
                    let seat = seat_of(c)?;
                    let hash: Commitment = text(c, "commitment", n)?
                        .parse()
                        .map_err(|err: table::fairness::FairnessError| bad(n, err.to_string()))?;
                    r.commitments.push((seat, hash, false));
                }
                round = Some(r);
            }
            "opened" => {
                let seat = seat_of(e)?;
                let nonce: Nonce = text(e, "nonce", n)?
                    .parse()
                    .map_err(|err: table::fairness::FairnessError| bad(n, err.to_string()))?;
                let command = field(e, "command", n)?;
                let r = round.as_mut().ok_or_else(|| bad(n, "a reveal outside a sealed round"))?;
                let matches =
                    |s: u64, c: &Commitment| s == seat && verify_commitment(command, &nonce, c).is_ok();
                if let Some(slot) = r.commitments.iter_mut().find(|(s, c, used)| !*used && matches(*s, c)) {
                    slot.2 = true;
                    r.opened.push((seat, nonce));
                } else if let Some(at) = carried.iter().position(|(s, c)| matches(*s, c)) {
                    carried.remove(at);
                } else {
                    return Err(bad(
                        n,
                        format!(
                            "seat {seat}'s reveal matches none of its commitments in the round or left face down before it"
                        ),
                    ));
                }
                report.reveals_checked += 1;
            }
            "fault" => {
                let seat = seat_of(e)?;
                if let Some(r) = round.as_mut() {
                    r.faulted.push(seat);
                }
            }
            "mix" => {
                let list = field(e, "round_nonces", n)?
                    .as_array()
                    .ok_or_else(|| bad(n, "`round_nonces` is not a list"))?;
                if list.len() != seats {
                    return Err(bad(n, format!("{} round nonces for {seats} seats", list.len())));
                }
                let r = round.as_mut().ok_or_else(|| bad(n, "a mix without a bound sealed round"))?;
                if r.mix_entry != 0 {
                    return Err(bad(n, "a second mix of one sealed round"));
                }
                r.mix_entry = n;
                let mut nonces = Vec::with_capacity(seats);
                for (s, x) in list.iter().enumerate() {
                    let nonce = match x {
                        Value::Null => None,
                        x => Some(
                            x.as_str()
                                .ok_or_else(|| bad(n, "a round nonce is not a string"))?
                                .parse::<Nonce>()
                                .map_err(|err| bad(n, err.to_string()))?,
                        ),
                    };
                    if let Some(nonce) = nonce {
                        if !r.commitments.iter().any(|(seat, _, _)| *seat == s as u64) {
                            return Err(bad(
                                n,
                                format!("a nonce for seat {s}, which committed nothing in the round"),
                            ));
                        }
                        r.mixed.push((s as u64, nonce));
                    }
                    nonces.push(nonce);
                }
                if let Some(v) = &mut v {
                    v.mix(&nonces).map_err(|err| bad(n, err.to_string()))?;
                }
                report.mixes += 1;
            }
            "draw" => {
                if revealed_seed {
                    return Err(bad(
                        n,
                        "a draw after the server seed was revealed with no next seed committed",
                    ));
                }
                let draw: DrawRecord = serde_json::from_value(field(e, "draw", n)?.clone())
                    .map_err(|err| bad(n, format!("draw: {err}")))?;
                if draw.counter != report.draws {
                    return Err(bad(
                        n,
                        format!("draw counter {} where {} comes next", draw.counter, report.draws),
                    ));
                }
                if draw.mixes != report.mixes {
                    return Err(bad(
                        n,
                        format!("draw after {} mixes, but {} are logged", draw.mixes, report.mixes),
                    ));
                }
                match &v {
                    Some(v) => v.check(&draw).map_err(|err| bad(n, err.to_string()))?,
                    // Keyed by a seed not revealed (yet): counted, not checked.
                    None => report.seed_revealed = false,
                }
                if draw.mixes == 0 {
                    report.before_first_mix += 1;
                }
                report.draws += 1;
            }
            "server_seed" => {
                // A rotation: the draws go on with the next seed, checked if it was revealed
                // later in the log (the state of the draws carries on).
                epoch += 1;
                match (next_commitment(e, n)?, seeds.get(epoch)) {
                    (None, _) => revealed_seed = true,
                    (Some(_), Some(next)) => {
                        if let Some(v) = &mut v {
                            v.rotate(*next);
                        }
                    }
                    (Some(_), None) => v = None,
                }
            }
            "event" | "took_back" | "forced" | "undone" => {}
            other => return Err(bad(n, format!("an entry of unknown kind {other:?}"))),
        }
    }
    if let Some(r) = round.take() {
        r.close()?;
    }
    Ok(report)
}

/// The `next` commitment of a `server_seed` entry (a rotation), if it has one.
fn next_commitment(e: &Value, n: u64) -> Result<Option<Commitment>, VerifyError> {
    match e.get("next") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_str()
            .ok_or_else(|| bad(n, "`next` is not a string"))?
            .parse()
            .map(Some)
            .map_err(|err: table::fairness::FairnessError| bad(n, format!("next: {err}"))),
    }
}
