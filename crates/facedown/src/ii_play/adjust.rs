//! The GM's adjustment typed at any of the GM seat's prompts (Decision 30):
//! `adjust hits CHARACTER N REASON…`, `adjust flow REGION N REASON…`, `adjust crisis N
//! REASON…`, `adjust strikes SIDE N REASON…`. Names may hold spaces; numbers name a
//! character or side by its place in the scene file. The rules crate checks the rest.

use inciting_incident::{Adjustment, Command, Note, Scene};

/// The usage line shown with a refused adjustment.
pub const USAGE: &str = "adjust hits CHARACTER N REASON | adjust flow REGION N REASON | adjust crisis N REASON | adjust strikes SIDE N REASON";

/// `Ok(None)` when `line` is no adjustment; the command, or why it cannot be read.
pub fn parse(scene: &Scene, line: &str) -> Result<Option<Command>, String> {
    let Some(rest) = line.trim().strip_prefix("adjust") else { return Ok(None) };
    if !rest.is_empty() && !rest.starts_with(' ') {
        return Ok(None);
    }
    let rest = rest.trim_start();
    let (what, rest) = rest.split_once(' ').unwrap_or((rest, ""));
    let rest = rest.trim_start();
    let (adjustment, rest) = match what {
        "hits" => {
            let names: Vec<&str> = scene.fighters.iter().map(|f| f.sheet.name.as_str()).collect();
            let (c, rest) = named(&names, rest, "character")?;
            let (hits, rest) = number(rest)?;
            return command(Adjustment::Hits { character: c, hits }, rest);
        }
        "flow" => {
            let names: Vec<&str> = scene.setup.regions.iter().map(|r| r.name.as_str()).collect();
            let (r, rest) = named(&names, rest, "Region")?;
            let duel =
                scene.duel_in(r).ok_or_else(|| format!("there is no Duel in {}", names[usize::from(r)]))?;
            let (flow, rest) = number(rest)?;
            (Adjustment::Flow { duel, flow }, rest)
        }
        "crisis" => {
            let (crisis, rest) = number(rest)?;
            (Adjustment::Crisis { crisis }, rest)
        }
        "strikes" => {
            let names: Vec<&str> = scene.setup.sides.iter().map(String::as_str).collect();
            let (side, rest) = named(&names, rest, "side")?;
            let (strikes, rest) = number(rest)?;
            (Adjustment::Strikes { side, strikes }, rest)
        }
        _ => return Err(format!("adjust what? {USAGE}")),
    };
    command(adjustment, rest)
}

fn command(adjustment: Adjustment, reason: &str) -> Result<Option<Command>, String> {
    let reason = Note::from(reason.trim()).map_err(|_| "the reason holds at most 64 bytes".to_owned())?;
    Ok(Some(Command::Adjust { adjustment, reason }))
}

/// The name (longest first) or number at the start of `s`, and what follows.
fn named<'a>(names: &[&str], s: &'a str, kind: &str) -> Result<(u8, &'a str), String> {
    let mut best: Option<(usize, usize)> = None;
    for (i, n) in names.iter().enumerate() {
        let fits = s.strip_prefix(n).is_some_and(|r| r.is_empty() || r.starts_with(' '));
        if fits && best.is_none_or(|(_, len)| n.len() > len) {
            best = Some((i, n.len()));
        }
    }
    if let Some((i, len)) = best {
        return Ok((i as u8, s[len..].trim_start()));
    }
    let (first, rest) = s.split_once(' ').unwrap_or((s, ""));
    match first.parse::<u8>() {
        Ok(i) if usize::from(i) < names.len() => Ok((i, rest.trim_start())),
        _ => Err(format!("no {kind} named {first:?}; {USAGE}")),
    }
}

fn number<T: std::str::FromStr>(s: &str) -> Result<(T, &str), String> {
    let (first, rest) = s.split_once(' ').unwrap_or((s, ""));
    let n = first.parse().map_err(|_| format!("{first:?} is not a number here; {USAGE}"))?;
    Ok((n, rest.trim_start()))
}
