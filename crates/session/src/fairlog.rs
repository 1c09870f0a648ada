//! The verifiable log of a table (docs/fairness.md §6–§7): a viewer's log items, after one
//! `table` entry, each chained to the one before; written as JSON Lines, one canonical
//! `{"entry":…,"hash":"…"}` a line; and [`verify`], which checks such a log alone.
//!
//! The entries are the viewer's [`Item`](crate::Item)s as the server sends them (`seq`, `kind`
//! and the item's fields): `event` (the rules' event, redacted for the viewer, with its
//! narration), `bound` (a sealed round's commitments), `opened` (a reveal), `fault`,
//! `client_seed`, `mix`, `draw`, `server_seed`, `setup` (the setup revealed at the end), and
//! the session's `took_back`, `forced`, `undone`. The first entry, `table`, names the system,
//! the setup's commitment (never the setup: it holds what the rules hide), the seats with
//! their modes, the draw layout and the server seed's commitment.

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

/// The first entry of a verifiable log: the system, the commitment of its setup (the setup
/// itself is revealed at the game's first end, `Item::Setup`: until then a viewer sees only
/// what its view shows of it), the seats in seat order with their modes, the draw layout, and
/// the server seed's commitment (none for a table whose draws are not verifiable, which
/// commits no setup either).
pub fn table_entry(
    system: &str,
    setup: Option<&Commitment>,
    seats: &[SeatEntry],
    commitment: Option<&Commitment>,
) -> Value {
    let seats: Vec<Value> =
        seats.iter().enumerate().map(|(i, s)| json!({"seat": i, "name": s.name, "mode": s.mode})).collect();
    json!({
        "kind": "table",
        "system": system,
        "setup_commitment": setup.map(|c| c.to_string()),
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
    /// The setup, once revealed and checked against the commitment in the table entry (its
    /// JSON text); none before the end, or at a table that committed none.
    #[serde(skip)]
    pub setup: Option<String>,
    /// Whether the setup was revealed and checked against its commitment.
    pub setup_revealed: bool,
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
        if self.setup.is_some() {
            write!(f, ", setup revealed")?;
        }
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

/// One commitment of a sealed round being checked: its seat, its hash, and once opened the
/// nonce, the entry that opened it and whether that came after the end of the game (a
/// `server_seed` entry after the round's mix).
struct Slot {
    seat: u64,
    commitment: Commitment,
    opened: Option<(Nonce, u64, bool)>,
}

/// A sealed round being checked: its commitments in the order of its `bound` list, what each
/// was opened with, the nonces it was mixed with, and the seats that faulted.
#[derive(Default)]
struct RoundCheck {
    slots: Vec<Slot>,
    /// Each seat's nonce in the round's mix, once mixed.
    mixed: Option<Vec<Option<Nonce>>>,
    faulted: Vec<u64>,
    mix_entry: u64,
    /// A `server_seed` entry came after the mix: the game ended in this round.
    ended: bool,
}

impl RoundCheck {
    /// The commitments the round left unopened: choices the rules still held face down when
    /// it ended, opened later. Judged per decision, not per seat: a seat asked twice in the
    /// round may have its public decision mixed and opened and its face-down one left for
    /// later (docs/fairness.md §3). A seat whose nonce is mixed must still have opened it in
    /// the round ([`close`](Self::close) checks that), so nothing mixed escapes its opening.
    fn unopened(&self) -> impl Iterator<Item = (u64, Commitment)> + '_ {
        self.slots.iter().filter(|s| s.opened.is_none()).map(|s| (s.seat, s.commitment))
    }

    /// The round's mix against its reveals (docs/fairness.md §5.2, §7.1), checked once the
    /// round is over (at the next `bound`, or the log's end): each seat's nonce is its last
    /// valid one in the order of the `bound` list — the last it opened in the round, or, for
    /// a seat that faulted, the nonce of an `illegal` reveal, which is mixed and not opened —
    /// and a seat whose choice was opened in the round before the game's end has its nonce
    /// mixed: only a choice the rules still hold face down after the round is left out
    /// (`null`), and it is opened in a later round or after the end.
    fn close(&self) -> Result<(), VerifyError> {
        let Some(mixed) = &self.mixed else { return Ok(()) };
        for (seat, nonce) in mixed.iter().enumerate() {
            let seat = seat as u64;
            let opened: Vec<&(Nonce, u64, bool)> =
                self.slots.iter().filter(|s| s.seat == seat).filter_map(|s| s.opened.as_ref()).collect();
            let faulted = self.faulted.contains(&seat);
            match nonce {
                Some(nonce) => {
                    let last = opened.last().map(|(n, _, _)| n);
                    let any = opened.iter().any(|(n, _, _)| n == nonce);
                    if last == Some(nonce) || (faulted && !any) {
                        continue;
                    }
                    return Err(bad(
                        self.mix_entry,
                        if any {
                            format!(
                                "mix: seat {seat}'s nonce {nonce} is not its last valid one of the round (the last it opened, in the order of the `bound` list)"
                            )
                        } else {
                            format!(
                                "mix: seat {seat}'s nonce {nonce} is not one the seat revealed in the round"
                            )
                        },
                    ));
                }
                None => {
                    if let Some((_, entry, _)) = opened.iter().find(|(_, _, after_end)| !after_end) {
                        return Err(bad(
                            self.mix_entry,
                            format!(
                                "mix: seat {seat}'s nonce is null, yet its choice of the round is opened at entry {entry}, before the game's end: only a choice the rules still hold face down after its round is left out of the mix (docs/fairness.md §3)"
                            ),
                        ));
                    }
                }
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
/// before; the table entry first; every `seq` the next; the revealed server seeds against the
/// commitments in force; every reveal against its commitment; every sealed round mixed right
/// after its `bound`, its mix against the round's reveals (each seat's last valid nonce in
/// bound order, `null` only for a choice still face down after the round); the client seeds,
/// mixes and draws replayed into the state of the draws, each draw re-derived once the seed is
/// revealed, the counters running 0, 1, 2… without a gap; the revealed setup against its
/// commitment. Names the first entry at fault. It reads no rules: a nonce nulled together with
/// its `opened` moved past the next `bound`, or after the end, is beyond it (docs/fairness.md
/// §7.1, What these checks cannot tell).
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
    let setup_commitment: Option<Commitment> = match first.get("setup_commitment") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_str()
                .ok_or_else(|| bad(1, "`setup_commitment` is not a string"))?
                .parse()
                .map_err(|e: table::fairness::FairnessError| bad(1, e.to_string()))?,
        ),
    };
    // The revealed seeds, each checked against the commitment in force when it is revealed
    // (the table's, then each rotation's `next`), key the replay of the draws.
    //
    // A fault found here is reported when the replay below reaches its entry, so that the
    // first entry at fault is named (a draw after a `server_seed` that lost its `next` comes
    // before the next `server_seed`).
    let mut seeds = Vec::new();
    let mut seed_fault: Option<VerifyError> = None;
    let mut in_force = commitment;
    for (i, e) in entries.iter().enumerate() {
        let n = i as u64 + 1;
        if e.get("kind").and_then(Value::as_str) == Some("server_seed") {
            match revealed_seed(e, n, commitment.is_some(), in_force) {
                Ok((s, next)) => {
                    seeds.push(s);
                    in_force = next;
                }
                Err(err) => {
                    seed_fault = Some(err);
                    break;
                }
            }
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
        setup: None,
        setup_revealed: false,
    };
    let mut round: Option<RoundCheck> = None;
    // Commitments of earlier rounds still face down in the rules when their round ended: not
    // mixed, opened by a later `opened` (docs/fairness.md §3).
    let mut carried: Vec<(u64, Commitment)> = Vec::new();
    let mut revealed_seed = false;
    let mut epoch = 0;
    // The entry of a `bound` whose `mix` has not come yet, at a table with verifiable draws:
    // the session mixes every sealed round right after its `bound`, with only client seeds
    // given between them (docs/fairness.md §5.2, §7.1).
    let mut unmixed: Option<u64> = None;
    for (i, e) in entries.iter().enumerate().skip(1) {
        let n = i as u64 + 1;
        if number(e, "seq", n)? != i as u64 {
            return Err(bad(n, format!("seq {} where {i} comes next", number(e, "seq", n)?)));
        }
        let kind = text(e, "kind", n)?;
        if let Some(b) = unmixed
            && kind != "client_seed"
            && kind != "mix"
        {
            return Err(bad(
                n,
                format!(
                    "the sealed round bound at entry {b} is not mixed: its `mix` comes right after its `bound`, before anything but client seeds (docs/fairness.md §5.2)"
                ),
            ));
        }
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
                    r.slots.push(Slot { seat, commitment: hash, opened: None });
                }
                round = Some(r);
                if commitment.is_some() {
                    unmixed = Some(n);
                }
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
                let ended = r.ended;
                if let Some(slot) =
                    r.slots.iter_mut().find(|s| s.opened.is_none() && matches(s.seat, &s.commitment))
                {
                    slot.opened = Some((nonce, n, ended));
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
                // One of the faults the protocol names (docs/fairness.md §3): a missed reveal
                // with no reason or the seat's lost secret, a wrong nonce, an illegal choice.
                if let Err(err) = serde_json::from_value::<crate::sealed::Fault>(e.clone()) {
                    return Err(bad(n, format!("seat {seat}'s fault is none the protocol names: {err}")));
                }
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
                unmixed = None;
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
                    if nonce.is_some() && !r.slots.iter().any(|slot| slot.seat == s as u64) {
                        return Err(bad(
                            n,
                            format!("a nonce for seat {s}, which committed nothing in the round"),
                        ));
                    }
                    nonces.push(nonce);
                }
                r.mixed = Some(nonces.clone());
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
                if let Some(err) = seed_fault.as_ref().filter(|err| err.entry == n) {
                    return Err(err.clone());
                }
                if let Some(r) = round.as_mut().filter(|r| r.mixed.is_some()) {
                    r.ended = true;
                }
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
            "setup" => {
                let Some(c) = setup_commitment else {
                    return Err(bad(n, "a setup revealed at a table that committed none"));
                };
                if report.setup.is_some() {
                    return Err(bad(n, "a second reveal of the setup"));
                }
                let setup = text(e, "setup", n)?;
                let nonce: Nonce = text(e, "nonce", n)?
                    .parse()
                    .map_err(|err: table::fairness::FairnessError| bad(n, err.to_string()))?;
                if !table::fairness::setup_commitment(setup, &nonce).matches(&c) {
                    return Err(bad(n, "the revealed setup does not match the table's setup commitment"));
                }
                report.setup = Some(setup.to_owned());
                report.setup_revealed = true;
            }
            "record" => {
                // What the rules are replayed from (`crate::replay`, docs/fairness.md §7.3):
                // revealed only at an end, once the server seed in use is.
                if epoch == 0 {
                    return Err(bad(n, "a record revealed before the game's end (a server seed's reveal)"));
                }
                field(e, "entries", n)?.as_array().ok_or_else(|| bad(n, "`entries` is not a list"))?;
                // The face-down choices taken back, when any (§7.3).
                if e.get("taken_back").is_some_and(|t| !t.is_array()) {
                    return Err(bad(n, "`taken_back` is not a list"));
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

/// A `server_seed` entry's seed, checked against the commitment in force (docs/fairness.md
/// §4), and the next commitment it names.
fn revealed_seed(
    e: &Value,
    n: u64,
    table_committed: bool,
    in_force: Option<Commitment>,
) -> Result<(ServerSeed, Option<Commitment>), VerifyError> {
    let Some(c) = in_force else {
        return Err(bad(
            n,
            if table_committed {
                "a server seed after the last one was revealed with no next seed committed"
            } else {
                "a server seed at a table that committed none"
            },
        ));
    };
    if text(e, "commitment", n)? != c.to_string() {
        return Err(bad(
            n,
            "the commitment named is not the one in force (the table's, or the last rotation's next)",
        ));
    }
    let s = ServerSeed::from_revealed(text(e, "revealed", n)?, &c).map_err(|err| bad(n, err.to_string()))?;
    Ok((s, next_commitment(e, n)?))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Session, Update};
    use iron_triangle::{Character, IronTriangle, Setup};
    use rand::{RngExt, SeedableRng};
    use table::fairness::ServerSeed;
    use table::{Ruleset, SeatId, Viewer};

    fn sheet(text: &str) -> Character {
        toml::from_str(text).expect("a sheet")
    }

    /// `viewer`'s verifiable log of `s` as the server writes it: the table entry, then its items.
    fn log_of(s: &Session<IronTriangle>, viewer: Viewer) -> String {
        let seats: Vec<SeatEntry> = IronTriangle::seats(s.table().state())
            .iter()
            .map(|(_, seat)| SeatEntry { name: seat.name.clone(), mode: "plain".into() })
            .collect();
        let table = table_entry(
            IronTriangle::NAME,
            s.setup_commitment().as_ref(),
            &seats,
            s.server_seed_commitment().as_ref(),
        );
        let updates: Vec<Update<_>> = s.updates_since(viewer, 0);
        write(std::iter::once(table).chain(updates.iter().map(|u| serde_json::to_value(u).unwrap())))
            .unwrap()
            .0
    }

    /// docs/fairness.md §7.1, Iron Triangle §5.1: the log's first entry commits to the setup
    /// and holds none of it, so a player reads no NPC's moves or combos in it; the end reveals
    /// the setup, which the verifier checks against the commitment, and a setup changed there
    /// is named.
    #[test]
    fn the_setup_is_committed_in_the_table_entry_and_revealed_at_the_end() {
        let ada = sheet(include_str!("../../../examples/iron-triangle/characters/ada.toml"));
        let ninja = sheet(include_str!("../../../examples/iron-triangle/characters/ninja.toml"));
        // Each as JSON, and as it reads inside a JSON string (the setup's text).
        let hidden: Vec<String> =
            [serde_json::to_string(&ninja.moves).unwrap(), serde_json::to_string(&ninja.combos).unwrap()]
                .into_iter()
                .flat_map(|part| {
                    let quoted = serde_json::to_string(&part).unwrap();
                    [quoted[1..quoted.len() - 1].to_owned(), part]
                })
                .collect();
        let mut s = Session::<IronTriangle>::new(Setup::one_on_one(ada, ninja)).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        s.use_verifiable(ServerSeed::from_bytes(rng.random())).unwrap();
        let viewers = [Viewer::Seat(SeatId(0)), Viewer::Seat(SeatId(1)), Viewer::Spectator];
        for _ in 0..2000 {
            let Some(&seat) = s.awaiting().first() else { break };
            let Some(prompt) = s.prompt(seat) else { break };
            for viewer in [Viewer::Seat(SeatId(0)), Viewer::Spectator] {
                let log = log_of(&s, viewer);
                for part in &hidden {
                    assert!(
                        !log.contains(part.as_str()),
                        "{viewer:?}'s log holds the NPC's {part} before the end"
                    );
                }
            }
            let choices: Vec<_> = prompt.choices.iter().filter(|c| c.private == prompt.private).collect();
            let command = choices[rng.random_range(0..choices.len())].command;
            s.submit(seat, &command).unwrap();
        }
        assert!(s.is_over(), "the conflict ends");
        let setup = serde_json::to_string(&s.record().setup).unwrap();
        for viewer in viewers {
            let log = log_of(&s, viewer);
            let report = verify(&log).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(report.setup.as_deref(), Some(setup.as_str()), "the end reveals the setup");
            let mut entries: Vec<Value> =
                log.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["entry"].clone()).collect();
            let at = entries.iter().position(|e| e["kind"] == "setup").expect("a setup entry");
            assert_eq!(entries[at - 1]["kind"], "server_seed", "right after the server seed");
            entries[at]["setup"] = Value::String(setup.replace("Ninja", "Nimja"));
            let e = verify(&write(entries).unwrap().0).unwrap_err();
            assert_eq!(e.entry, at as u64 + 1, "a wrong setup is named: {e}");
        }
    }
}
