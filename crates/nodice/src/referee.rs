//! The referee calculator (`facedown nodice resolve`): one Hand played with real cards,
//! resolved by the same functions the engine uses — [`hand::trine_wins`], [`hand::resolve`]
//! (Showdown and Action Priority), [`hand::settle`] (an Actor eliminated before its turn deals
//! nothing), [`hand::pot_leaders`], [`hand::pot_shares`] and [`hand::next_utg`]. Nothing here
//! re-derives a rule; it checks the input ([`RefereeError`] names the field) and gathers the
//! answer ([`Report`]). The file format is documented in `docs/nodice-play.md` ("resolve").

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::actor::{Kind, MAX_AV, Statblock};
use crate::conflict::ActorSheet;
use crate::extension::{DamageAbility, Ext, Extensions};
use crate::hand::{self, ActorId, MAX_ACTORS, Play, Showdown, StrikeFate, Targets, UtgReason, Void};
use crate::stakes::{Stakes, StakesFormula};
use crate::trine::{Aspect, Attribute, Dominance};

/// One Hand as the referee enters it (a Hand file, or the `--actor` flags).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandSheet {
    /// The Stakes, 1–5 (default: from the highest Rank of the serials).
    #[serde(default)]
    pub stakes: Option<u8>,
    /// The Sweep bonus (default: the Stakes).
    #[serde(default)]
    pub sweep_bonus: Option<u16>,
    /// The Stakes formula used with the serials.
    #[serde(default)]
    pub stakes_formula: StakesFormula,
    /// Tokens in the pot (antes plus the Jackpot), to print each leader's share.
    #[serde(default)]
    pub pot: Option<u16>,
    /// The Actors' revealed plays, in commit order from UTG (the first is UTG).
    pub actors: Vec<ActorPlay>,
}

/// One Actor's revealed play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActorPlay {
    /// Its name.
    pub name: String,
    /// The Action card (its Aspect is the Aspect card's).
    pub attribute: Attribute,
    /// The bid.
    #[serde(default)]
    pub bid: u16,
    /// A Wildcard played.
    #[serde(default)]
    pub wildcard: bool,
    /// Its target(s) by name (with two Actors, the other one by default).
    #[serde(default)]
    pub targets: Vec<String>,
    /// Its serial (bid cap, partial Aspects, Rank for the Stakes).
    #[serde(default)]
    pub serial: Option<String>,
    /// PC, NPC or abstract.
    #[serde(default)]
    pub kind: Option<Kind>,
    /// Wildcards it has left (default: a PC's Wildcard Rank, none for NPCs and abstract
    /// Actors, §3.2).
    #[serde(default)]
    pub wildcards: Option<u16>,
    /// Its current values in serial order at the Showdown (chips in the stacks plus the bid),
    /// 0 for an absent Attribute (default: the serial's built values). With them the
    /// calculator knows who is eliminated before its turn.
    #[serde(default)]
    pub values: Option<[u16; 9]>,
    /// An abstract Actor's damage Aspect.
    #[serde(default)]
    pub damage_aspect: Option<Aspect>,
    /// A Damage ability (§8).
    #[serde(default)]
    pub damage: Option<DamageSpec>,
}

/// A Damage ability in a Hand file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DamageSpec {
    /// Its points.
    pub points: u16,
    /// The Aspect it hurts (default: the Action's).
    #[serde(default)]
    pub aspect: Option<Aspect>,
}

/// Why the calculator cannot resolve a Hand.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RefereeError {
    /// Fewer than two Actors.
    #[error("a Hand needs at least two Actors")]
    TooFewActors,
    /// More than [`MAX_ACTORS`].
    #[error("at most {MAX_ACTORS} Actors")]
    TooManyActors,
    /// Two Actors with one name.
    #[error("two Actors are named {0:?}")]
    DuplicateName(String),
    /// A serial that does not parse.
    #[error("{actor}'s serial {serial:?}: {error}")]
    Serial {
        /// The Actor.
        actor: String,
        /// The serial.
        serial: String,
        /// Why.
        error: crate::actor::SerialError,
    },
    /// A bid over 100.
    #[error(
        "{0}'s bid of {1} is over 100: a bid never exceeds the Trine Score, and no Trine Score is over 100 (seed: Step 3, Bid Cap)"
    )]
    BidOver100(String, u16),
    /// An Attribute the serial lacks.
    #[error("{0} does not possess {1} (-)")]
    Absent(String, Attribute),
    /// A bid over the Trine Score.
    #[error(
        "{actor}'s bid of {bid} is over the cap of {cap}, the Trine Score of {aspect} (seed: Step 3, Bid Cap)"
    )]
    OverCap {
        /// The Actor.
        actor: String,
        /// The bid.
        bid: u16,
        /// The cap.
        cap: u16,
        /// The Aspect.
        aspect: Aspect,
    },
    /// A bid over the chips in the stack (its `values`).
    #[error(
        "{actor}'s bid of {bid} is more than the {has} chips of {attribute} in its `values` (seed: Step 3)"
    )]
    OverStack {
        /// The Actor.
        actor: String,
        /// The bid.
        bid: u16,
        /// Its value.
        has: u16,
        /// The Attribute.
        attribute: Attribute,
    },
    /// A value for an absent Attribute, or over 100 plus the pot.
    #[error("{0}'s `values` give {1} to {2}, which its serial lacks (-)")]
    ValueForAbsent(String, u16, Attribute),
    /// A damage Aspect for an Actor that is not abstract.
    #[error("{0}: only abstract Actors (kind = \"abstract\") choose the Aspect their damage hurts")]
    DamageAspect(String),
    /// A Wildcard from an empty pool (§3.2).
    #[error(
        "{0} has no Wildcards: its Wildcard pool (`wildcards`) is empty — NPCs and abstract Actors have none unless the setup grants some with `wildcards = N` (an Extension)"
    )]
    NoWildcardPool(String),
    /// Bad Stakes.
    #[error(transparent)]
    Stakes(#[from] crate::stakes::StakesError),
    /// Neither Stakes nor every serial.
    #[error("give the Stakes (--stakes 1-5), or every Actor's serial to compute them")]
    NoStakes,
    /// A target that is not an Actor of the Hand.
    #[error("{0}'s target {1:?} is not an Actor of this Hand")]
    UnknownTarget(String, String),
    /// An Actor targeting itself.
    #[error("{0} cannot target itself")]
    SelfTarget(String),
    /// No target with more than two Actors.
    #[error("{0}: name its target(s) with -> TARGET")]
    NoTarget(String),
}

/// The calculator's answer (the `--json` output).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The Stakes.
    pub stakes: u16,
    /// Their name.
    pub stakes_name: &'static str,
    /// The Sweep bonus.
    pub sweep_bonus: u16,
    /// Every engaged pair.
    pub pairs: Vec<PairReport>,
    /// Dominance wins per Actor.
    pub wins: Vec<WinsReport>,
    /// The pot's leaders, in commit order.
    pub pot_leaders: Vec<String>,
    /// Tokens each leader receives, round-robin from UTG, when the pot's size is given.
    pub pot_shares: Option<Vec<(String, u16)>>,
    /// UTG of the next Hand.
    pub next_utg: Option<String>,
    /// Whether UTG stays because of a tie for most Dominance wins.
    pub utg_tie: bool,
    /// Why the next UTG is who it is.
    pub utg_why: UtgWhy,
    /// The Actions in Action Priority order.
    pub strikes: Vec<StrikeReport>,
    /// Actors eliminated by the Hand's damage (known when every target's values or serial
    /// are given).
    pub eliminated: Vec<String>,
}

/// Why the next UTG is who it is: [`hand::UtgReason`] with names (the `--json` output's
/// `utg_why`, tagged by `why`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "why")]
pub enum UtgWhy {
    /// The only Actor with the most Dominance wins.
    MostWins,
    /// A tie for the most wins (counting Actors eliminated in the Hand): UTG stays.
    Tie,
    /// A tie, but the UTG has left: the next Actor still in after it.
    TieUtgOut {
        /// The UTG who left (the first Actor listed).
        out: String,
    },
    /// The only Actor with the most wins was eliminated: the most wins among those still in.
    LeaderOut {
        /// The eliminated leader.
        leader: String,
    },
    /// As [`UtgWhy::LeaderOut`], and those still in tie: the current UTG if it is one of
    /// them, else the first of them in commit order.
    LeaderOutTie {
        /// The eliminated leader.
        leader: String,
        /// Whether the current UTG (the first Actor listed) is one of them and stays.
        stays: bool,
    },
}

/// One engaged pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PairReport {
    /// The two Actors, in commit order.
    pub actors: [String; 2],
    /// Who won Trine Dominance (`None`: tie).
    pub trine: Option<String>,
    /// Who won Attribute Dominance.
    pub attribute: Option<String>,
    /// Who swept.
    pub sweep: Option<String>,
    /// Showdown Totals.
    pub totals: [u16; 2],
}

/// One Actor's Dominance wins.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WinsReport {
    /// The Actor.
    pub actor: String,
    /// TD wins.
    pub trine: u8,
    /// AD wins.
    pub attribute: u8,
}

/// One Action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StrikeReport {
    /// The attacker.
    pub attacker: String,
    /// The target.
    pub target: String,
    /// The damaged Aspect.
    pub aspect: Aspect,
    /// Its Action Priority.
    pub priority: u32,
    /// Whether it struck first in a mutual pair (whole total).
    pub unopposed: bool,
    /// The damage of the Showdown.
    pub damage: u16,
    /// After the target's partial-Aspect reduction, when its serial or values are known;
    /// 0 when the Action is void, known or not (a void Action deals nothing).
    pub damage_through: Option<u16>,
    /// Why the Action deals nothing (the attacker was eliminated before its turn, or the
    /// target already was).
    pub void: Option<Void>,
    /// Whether it eliminates its target.
    pub eliminates: bool,
}

/// Resolves one Hand (seed: Steps 2–4), with the engine's own functions.
pub fn compute(file: &HandSheet) -> Result<Report, RefereeError> {
    let n = file.actors.len();
    if n < 2 {
        return Err(RefereeError::TooFewActors);
    }
    if n > MAX_ACTORS {
        return Err(RefereeError::TooManyActors);
    }
    let find = |name: &str| file.actors.iter().position(|a| a.name.trim().eq_ignore_ascii_case(name.trim()));
    let mut blocks: Vec<Option<Statblock>> = Vec::new();
    for (i, a) in file.actors.iter().enumerate() {
        if file.actors[..i].iter().any(|b| b.name.trim().eq_ignore_ascii_case(a.name.trim())) {
            return Err(RefereeError::DuplicateName(a.name.clone()));
        }
        let block = a
            .serial
            .as_deref()
            .map(|s| {
                s.parse::<Statblock>().map_err(|error| RefereeError::Serial {
                    actor: a.name.clone(),
                    serial: s.to_owned(),
                    error,
                })
            })
            .transpose()?;
        if a.bid > u16::from(MAX_AV) {
            return Err(RefereeError::BidOver100(a.name.clone(), a.bid));
        }
        if let Some(b) = &block {
            if !b.possesses(a.attribute) {
                return Err(RefereeError::Absent(a.name.clone(), a.attribute));
            }
            let aspect = a.attribute.aspect();
            let cap = b.trine_score(aspect).unwrap_or(0);
            if a.bid > cap {
                return Err(RefereeError::OverCap { actor: a.name.clone(), bid: a.bid, cap, aspect });
            }
            if let Some(v) = a.values
                && let Some(x) = Attribute::ALL.into_iter().find(|&x| !b.possesses(x) && v[x.index()] > 0)
            {
                return Err(RefereeError::ValueForAbsent(a.name.clone(), v[x.index()], x));
            }
        }
        if let Some(v) = a.values {
            let has = v[a.attribute.index()];
            if a.bid > has {
                return Err(RefereeError::OverStack {
                    actor: a.name.clone(),
                    bid: a.bid,
                    has,
                    attribute: a.attribute,
                });
            }
        }
        if a.damage_aspect.is_some_and(|d| d != a.attribute.aspect()) && a.kind != Some(Kind::Abstract) {
            return Err(RefereeError::DamageAspect(a.name.clone()));
        }
        // §3.2: the Wildcard pool; unknown (no kind, no count) is not refused.
        let pool = a.wildcards.or_else(|| match (a.kind, &block) {
            (Some(Kind::Pc), Some(b)) => Some(ActorSheet::wildcard_pool(Kind::Pc, b)),
            (Some(k @ (Kind::Npc | Kind::Abstract)), b) => {
                Some(b.as_ref().map_or(0, |b| ActorSheet::wildcard_pool(k, b)))
            }
            _ => None,
        });
        if a.wildcard && pool == Some(0) {
            return Err(RefereeError::NoWildcardPool(a.name.clone()));
        }
        blocks.push(block);
    }
    let stakes = match file.stakes {
        Some(s) => Stakes::new(s)?,
        None => {
            if blocks.iter().any(Option::is_none) {
                return Err(RefereeError::NoStakes);
            }
            let highest = blocks.iter().flatten().map(Statblock::rank).max().unwrap_or(1);
            Stakes::from_rank(highest, file.stakes_formula)
        }
    };
    let sweep_bonus = file.sweep_bonus.unwrap_or(stakes.value());
    let mut plays = Vec::new();
    let mut exts = Vec::new();
    for (i, a) in file.actors.iter().enumerate() {
        let mut targets = Targets::NONE;
        for t in &a.targets {
            let j = find(t).ok_or_else(|| RefereeError::UnknownTarget(a.name.clone(), t.clone()))?;
            if j == i {
                return Err(RefereeError::SelfTarget(a.name.clone()));
            }
            targets = targets.with(ActorId(j as u8));
        }
        if targets.is_empty() {
            if n == 2 {
                targets = Targets::one(ActorId(1 - i as u8));
            } else {
                return Err(RefereeError::NoTarget(a.name.clone()));
            }
        }
        if let Some(d) = a.damage {
            exts.push(Ext::DamageAbility(DamageAbility {
                actor: ActorId(i as u8),
                points: d.points,
                aspect: d.aspect,
            }));
        }
        plays.push(Play {
            actor: ActorId(i as u8),
            aspect: a.attribute.aspect(),
            attribute: a.attribute,
            bid: a.bid,
            wildcard: a.wildcard,
            targets,
            damage_aspect: a.damage_aspect.unwrap_or(a.attribute.aspect()),
        });
    }
    let ext = Extensions::new(exts);
    let aspects: Vec<_> = plays.iter().map(|p| (p.actor, p.aspect, p.targets)).collect();
    let trine = hand::trine_wins(&aspects, &ext);
    let mut sd = Showdown::default();
    hand::resolve(&plays, stakes, sweep_bonus, &ext, &mut sd);
    // Current values: given, else the serial's built ones; unknown without either (then
    // nobody can be known to be eliminated, and every Actor is taken to have enough).
    let values: Vec<Option<[Option<u16>; 9]>> = file
        .actors
        .iter()
        .zip(&blocks)
        .map(|(a, b)| match (a.values, b) {
            (Some(v), Some(b)) => Some(Attribute::ALL.map(|x| b.possesses(x).then_some(v[x.index()]))),
            (Some(v), None) => Some(v.map(Some)),
            (None, Some(b)) => Some(Attribute::ALL.map(|x| b.value(x).map(u16::from))),
            (None, None) => None,
        })
        .collect();
    let known: Vec<[Option<u16>; 9]> = values.iter().map(|v| v.unwrap_or([Some(u16::MAX); 9])).collect();
    let (settled, is_in) = hand::settle(&sd, &known);
    let name = |id: ActorId| file.actors[id.index()].name.clone();
    let pairs = sd
        .pairs
        .iter()
        .map(|p| {
            let [x, y] = p.actors;
            let who = |d: Dominance| match d {
                Dominance::Win => Some(name(x)),
                Dominance::Loss => Some(name(y)),
                Dominance::Tie => None,
            };
            PairReport {
                actors: [name(x), name(y)],
                trine: who(p.trine),
                attribute: who(p.attribute),
                sweep: match p.sweep {
                    [true, _] => Some(name(x)),
                    [_, true] => Some(name(y)),
                    _ => None,
                },
                totals: p.totals,
            }
        })
        .collect();
    let wins: Vec<WinsReport> = (0..n)
        .map(|i| WinsReport {
            actor: file.actors[i].name.clone(),
            trine: trine[i],
            attribute: sd.attribute_wins[i],
        })
        .collect();
    let order: Vec<ActorId> = (0..n).map(|i| ActorId(i as u8)).collect();
    let leaders = hand::pot_leaders(&trine[..n], &order);
    let pot_leaders: Vec<String> = leaders.iter().map(|&a| name(a)).collect();
    let pot_shares = file
        .pot
        .filter(|_| !leaders.is_empty())
        .map(|pot| pot_leaders.iter().cloned().zip(hand::pot_shares(pot, leaders.len())).collect());
    let totals: Vec<u16> = wins.iter().map(|w| u16::from(w.trine) + u16::from(w.attribute)).collect();
    let pass = hand::next_utg(&totals, ActorId(0), |i| is_in[i]);
    let utg_tie = matches!(pass.why, UtgReason::Tie | UtgReason::TieUtgOut);
    let utg_why = match pass.why {
        UtgReason::MostWins => UtgWhy::MostWins,
        UtgReason::Tie => UtgWhy::Tie,
        UtgReason::TieUtgOut => UtgWhy::TieUtgOut { out: name(ActorId(0)) },
        UtgReason::LeaderOut { leader } => UtgWhy::LeaderOut { leader: name(leader) },
        UtgReason::LeaderOutTie { leader, stays } => UtgWhy::LeaderOutTie { leader: name(leader), stays },
    };
    let next_utg = Some(name(pass.utg));
    let strikes = sd
        .strikes
        .iter()
        .zip(&settled)
        .map(|(s, st)| {
            let void = match st.fate {
                StrikeFate::Void(why) => Some(why),
                StrikeFate::Damage(_) => None,
            };
            StrikeReport {
                attacker: name(s.attacker),
                target: name(s.target),
                aspect: s.aspect,
                priority: s.priority,
                unopposed: s.unopposed,
                damage: s.damage,
                damage_through: match st.fate {
                    StrikeFate::Damage(d) => values[s.target.index()].map(|_| d),
                    StrikeFate::Void(_) => Some(0),
                },
                void,
                eliminates: st.eliminates && values[s.target.index()].is_some(),
            }
        })
        .collect();
    let eliminated =
        (0..n).filter(|&i| !is_in[i] && values[i].is_some()).map(|i| name(ActorId(i as u8))).collect();
    Ok(Report {
        stakes: stakes.value(),
        stakes_name: stakes.name(),
        sweep_bonus,
        pairs,
        wins,
        pot_leaders,
        pot_shares,
        next_utg,
        utg_tie,
        utg_why,
        strikes,
        eliminated,
    })
}
