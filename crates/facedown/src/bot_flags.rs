//! The `--bot SEAT=KIND` flags every `play` command takes: which bot kind plays each seat,
//! and the seed each seat's bot draws from.

use anyhow::{Context, bail};
use table::Seats;

/// Reads `--bot SEAT=KIND` flags against `seats`: for each seat (by id) the kind of bot that
/// plays it, if any. `SEAT` is a seat name or `all`; `KIND` one of `kinds` (case-insensitive).
/// Later flags override earlier ones. `ruleset` names the rule system in messages.
pub fn seat_bots<'k>(
    specs: &[String],
    seats: &Seats,
    kinds: &[&'k str],
    ruleset: &str,
) -> anyhow::Result<Vec<Option<&'k str>>> {
    let mut out = vec![None; seats.len()];
    let example = kinds.last().copied().unwrap_or("random");
    for spec in specs {
        let (seat, kind) = spec
            .split_once('=')
            .with_context(|| format!("--bot {spec:?}: write SEAT=KIND, e.g. gm={example}"))?;
        let asked = kind.trim().to_ascii_lowercase();
        let Some(&kind) = kinds.iter().find(|&&k| k == asked) else {
            let list: Vec<String> = kinds.iter().map(|k| format!("`{k}`")).collect();
            bail!("--bot {spec:?}: unknown bot kind {asked:?}; {ruleset} has {}", list.join(", "));
        };
        if seat.trim() == "all" {
            out.iter_mut().for_each(|k| *k = Some(kind));
        } else {
            let names: Vec<&str> = seats.iter().map(|(_, s)| s.name.as_str()).collect();
            let id = seats
                .find(seat.trim())
                .with_context(|| format!("--bot {spec:?}: the seats are {}", names.join(", ")))?;
            out[usize::from(id.0)] = Some(kind);
        }
    }
    Ok(out)
}

/// The seed of the bot of seat number `seat` (from 0), so that the same `--seed` replays the
/// same game: `seed × 1000003 + seat`.
pub fn bot_seed(seed: u64, seat: usize) -> u64 {
    seed.wrapping_mul(1_000_003).wrapping_add(seat as u64)
}
