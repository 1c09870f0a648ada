//! The one draw source of every rule system: pluggable, recorded, JSON-safe.
//!
//! No ruleset draws on its own. A ruleset's state holds a [`Draws`]: the [`Source`] its
//! randomness comes from and how far it has been drawn (its [`position`](Draws::position)).
//! Every random outcome of the rules (an Iron Triangle Drunken Monkey swap, a No Dice pot
//! token, an Inciting Incident die or initiative lot) is drawn from it, and the event that
//! records the draw carries the new position, so replaying the events lands on the same
//! position and the next draw is the same.
//!
//! Two sources: [`Source::Seeded`], ChaCha8 seeded with `seed_from_u64(seed)`, whose position
//! is the generator's word position; and [`Source::Verifiable`], the draws of docs/fairness.md
//! (HMAC-SHA256 keyed by a secret server seed over the seats' client seeds, the nonces of the
//! latest sealed round and the draw counter, reduced by rejection sampling), whose position is
//! the draw counter: how many draws have been made. The rulesets only ever call the draw
//! methods of [`Draws`] and [`Stream`], so they draw from either without knowing which.
//!
//! A verifiable source changes between draws when a seat gives a client seed, when a sealed
//! round is revealed ([`Draws::mix`]) and when its server seed is revealed and replaced
//! ([`Draws::rotate_server_seed`]); the session calls these and records them, so a replay
//! makes the same changes at the same points.
//!
//! The position is a `u64` (a JSON number), never the generator's `u128`: `serde_json` cannot
//! write a `u128` inside an internally tagged or flattened value, which once made an Inciting
//! Incident game unsaveable after its first die. It only grows.

use std::ops::{Range, RangeInclusive};

use rand::RngExt;
use rand::distr::uniform::{SampleRange, SampleUniform};
use serde::{Deserialize, Serialize};

use crate::fairness::{
    ClientSeed, DrawRecord, Drawer, FairnessError, Nonce, ServerSeed, Verifiable, note_draw,
};
use crate::rng::{TableRng, seeded_rng};

/// Where a table's randomness comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// ChaCha8 seeded with `seed_from_u64(seed)`: the same seed gives the same draws on every
    /// machine and every version (ChaCha8 is a fixed algorithm).
    Seeded {
        /// The seed (the setup file's `seed`).
        seed: u64,
    },
    /// The verifiable draws of docs/fairness.md. It holds the secret server seed: the state
    /// that holds it stays on the server (no view or log item carries a state's [`Draws`]).
    Verifiable(Box<Verifiable>),
}

impl Source {
    /// The numeric seeds this source was made from, for a game's record: none for a verifiable
    /// source (its seeds are [`Verifiable`]'s, and a setup's `seed` reads 0 for it).
    pub fn seeds(&self) -> &[u64] {
        match self {
            Source::Seeded { seed } => std::slice::from_ref(seed),
            Source::Verifiable(_) => &[],
        }
    }

    /// The verifiable source's state, if it is one.
    pub fn verifiable(&self) -> Option<&Verifiable> {
        match self {
            Source::Seeded { .. } => None,
            Source::Verifiable(v) => Some(v),
        }
    }
}

/// A recorded draw source: where the draws come from and how far they have gone.
///
/// Held in a ruleset's state and (de)serialised with it, so a game saved after any number of
/// draws resumes with the same next draw. Each draw method advances the position; nothing
/// moves it back.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Draws {
    /// Where the draws come from.
    source: Source,
    /// How far the source has been drawn (for [`Source::Seeded`], the ChaCha8 word position;
    /// for [`Source::Verifiable`], the number of draws made, so the next draw's counter).
    position: u64,
}

impl Draws {
    /// A fresh draw source: nothing drawn yet.
    pub fn new(source: Source) -> Draws {
        Draws { source, position: 0 }
    }

    /// A fresh [`Source::Seeded`] draw source.
    pub fn seeded(seed: u64) -> Draws {
        Draws::new(Source::Seeded { seed })
    }

    /// A fresh [`Source::Verifiable`] draw source for a table of `seats` seats, keyed by
    /// `server_seed` (whose [`commitment`](ServerSeed::commitment) the server publishes).
    pub fn verifiable(server_seed: ServerSeed, seats: u16) -> Draws {
        Draws::new(Source::Verifiable(Box::new(Verifiable::new(server_seed, seats))))
    }

    fn verifiable_mut(&mut self) -> Result<&mut Verifiable, FairnessError> {
        match &mut self.source {
            Source::Seeded { .. } => Err(FairnessError::NotVerifiable),
            Source::Verifiable(v) => Ok(v),
        }
    }

    /// Records the client seed `seat` gives; it takes part in the draws from the next
    /// [`mix`](Draws::mix) on ([`Verifiable::add_client_seed`]).
    pub fn add_client_seed(&mut self, seat: u16, seed: ClientSeed) -> Result<(), FairnessError> {
        self.verifiable_mut()?.add_client_seed(seat, seed)
    }

    /// Mixes in a revealed sealed round: the nonces revealed in it, one per seat in seat order
    /// ([`Verifiable::mix`]). The session calls it when the round is revealed, before the
    /// commands that draw are applied, and records it so replay mixes at the same point.
    pub fn mix(&mut self, round_nonces: &[Option<Nonce>]) -> Result<(), FairnessError> {
        self.verifiable_mut()?.mix(round_nonces)
    }

    /// Replaces the server seed with `next` and gives back the old one, to be revealed
    /// ([`Verifiable::rotate`]); the draw counter carries on.
    pub fn rotate_server_seed(&mut self, next: ServerSeed) -> Result<ServerSeed, FairnessError> {
        Ok(self.verifiable_mut()?.rotate(next))
    }

    /// Where the draws come from.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// How far the source has been drawn: 0 before the first draw, and larger after each.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Moves the position on to `position`, recorded by the event of a draw (applying the event
    /// replays the draw without drawing again). Never moves it back: a smaller `position` is
    /// ignored.
    pub fn advance_to(&mut self, position: u64) {
        self.position = self.position.max(position);
    }

    /// A live stream from the current position, for several draws in a row without starting
    /// the generator again for each. It does not move this position: record the stream's
    /// [`position`](Stream::position) (in the event of the draw) and [`advance_to`](Draws::advance_to) it.
    pub fn stream(&self) -> Stream {
        let inner = match &self.source {
            Source::Seeded { seed } => {
                let mut rng = seeded_rng(*seed);
                if self.position > 0 {
                    rng.set_word_pos(u128::from(self.position));
                }
                Inner::Seeded(rng)
            }
            Source::Verifiable(v) => {
                Inner::Verifiable { drawer: v.drawer(), counter: self.position, mixes: v.mixes() }
            }
        };
        Stream { inner }
    }

    /// Draws a value uniformly from `range` (`0..n`, `1..=6`, …); `None`, and nothing drawn,
    /// when the range is empty.
    pub fn uniform<T, R>(&mut self, range: R) -> Option<T>
    where
        T: DrawInt,
        R: DrawRange<T>,
    {
        self.with_stream(|s| s.uniform(range))
    }

    /// Picks one of `items` uniformly; `None`, and nothing drawn, when there are none.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        self.with_stream(|s| s.pick(items))
    }

    /// Rolls a die of `sides` sides: 1 to `sides`. A 0-sided die is no die: 0, nothing drawn.
    pub fn die(&mut self, sides: u8) -> u8 {
        self.with_stream(|s| s.die(sides))
    }

    /// `true` with probability `p` (clamped to 0..=1; a NaN is 0). A certain outcome (0 or 1)
    /// draws nothing.
    pub fn chance(&mut self, p: f64) -> bool {
        self.with_stream(|s| s.chance(p))
    }

    fn with_stream<T>(&mut self, draw: impl FnOnce(&mut Stream) -> T) -> T {
        let mut stream = self.stream();
        let out = draw(&mut stream);
        self.advance_to(stream.position());
        out
    }
}

/// A live stream of draws started from a [`Draws`] position (see [`Draws::stream`]): the same
/// draw methods, and the position reached, to be recorded.
#[derive(Debug, Clone)]
pub struct Stream {
    inner: Inner,
}

#[derive(Debug, Clone)]
enum Inner {
    Seeded(TableRng),
    /// The next draw's counter is `counter`; `mixes` rounds have been mixed in.
    Verifiable {
        drawer: Drawer,
        counter: u64,
        mixes: u64,
    },
}

/// An integer type the draws produce: `u8` to `u64`, `usize`, `i8` to `i64`.
pub trait DrawInt: SampleUniform + Copy + PartialOrd {
    /// The value as an `i128` (every such type fits).
    fn to_i128(self) -> i128;
    /// The `i128` as this type, if it fits.
    fn from_i128(value: i128) -> Option<Self>;
}

macro_rules! draw_int {
    ($($t:ty),*) => {$(
        impl DrawInt for $t {
            fn to_i128(self) -> i128 {
                self as i128
            }
            fn from_i128(value: i128) -> Option<$t> {
                <$t>::try_from(value).ok()
            }
        }
    )*};
}
draw_int!(u8, u16, u32, u64, usize, i8, i16, i32, i64);

/// A range a draw is made over: `a..b` or `a..=b` of a [`DrawInt`].
pub trait DrawRange<T: DrawInt>: SampleRange<T> {
    /// Its first value and how many values it holds (1 to 2^64), or `None` when it is empty.
    fn first_and_count(&self) -> Option<(T, u128)>;
}

impl<T: DrawInt> DrawRange<T> for Range<T> {
    fn first_and_count(&self) -> Option<(T, u128)> {
        let n = self.end.to_i128() - self.start.to_i128();
        (n > 0).then_some((self.start, n.unsigned_abs()))
    }
}

impl<T: DrawInt> DrawRange<T> for RangeInclusive<T> {
    fn first_and_count(&self) -> Option<(T, u128)> {
        let n = self.end().to_i128() - self.start().to_i128() + 1;
        (n > 0 && !SampleRange::is_empty(self)).then_some((*self.start(), n.unsigned_abs()))
    }
}

impl Stream {
    /// How far the source has been drawn, counting this stream's draws.
    pub fn position(&self) -> u64 {
        match &self.inner {
            // 2^64 words is beyond any game (each draw takes one or two).
            Inner::Seeded(rng) => u64::try_from(rng.get_word_pos()).unwrap_or(u64::MAX),
            Inner::Verifiable { counter, .. } => *counter,
        }
    }

    /// Draws a value uniformly from `range`; `None`, and nothing drawn, when it is empty.
    pub fn uniform<T, R>(&mut self, range: R) -> Option<T>
    where
        T: DrawInt,
        R: DrawRange<T>,
    {
        if range.is_empty() {
            return None;
        }
        match &mut self.inner {
            Inner::Seeded(rng) => range.sample_single(rng).ok(),
            Inner::Verifiable { drawer, counter, mixes } => {
                let (first, n) = range.first_and_count()?;
                let drawn = drawer.draw(*counter, n);
                note_draw(DrawRecord {
                    counter: *counter,
                    n,
                    value: drawn.value,
                    retries: drawn.retries,
                    mixes: *mixes,
                });
                *counter = counter.saturating_add(1);
                T::from_i128(first.to_i128() + i128::from(drawn.value))
            }
        }
    }

    /// Picks one of `items` uniformly; `None`, and nothing drawn, when there are none.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        self.uniform(0..items.len()).and_then(|i| items.get(i))
    }

    /// Rolls a die of `sides` sides: 1 to `sides`. A 0-sided die is no die: 0, nothing drawn.
    pub fn die(&mut self, sides: u8) -> u8 {
        self.uniform(1..=sides).unwrap_or(0)
    }

    /// `true` with probability `p` (clamped to 0..=1; a NaN is 0). A certain outcome (0 or 1)
    /// draws nothing.
    pub fn chance(&mut self, p: f64) -> bool {
        if p.is_nan() || p <= 0.0 {
            false
        } else if p >= 1.0 {
            true
        } else {
            match &mut self.inner {
                Inner::Seeded(rng) => rng.random_bool(p),
                Inner::Verifiable { .. } => {
                    // Exact on every machine: p·2^32 is exact in a double, rounded half away
                    // from zero (JavaScript's Math.round agrees for positive values).
                    let threshold = (p * 4_294_967_296.0).round() as u64;
                    self.uniform(0..1u64 << 32).is_some_and(|x| x < threshold)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn some_draws(d: &mut Draws) -> Vec<u32> {
        let mut out = Vec::new();
        for i in 0..20u8 {
            out.push(u32::from(d.die(6)));
            out.push(d.uniform(0..1000u32).unwrap_or(0));
            out.push(u32::from(d.chance(f64::from(i) / 20.0)));
            out.push(*d.pick(&[7u32, 8, 9]).unwrap_or(&0));
        }
        out
    }

    #[test]
    fn the_same_seed_gives_the_same_draws() {
        let (mut a, mut b) = (Draws::seeded(42), Draws::seeded(42));
        assert_eq!(some_draws(&mut a), some_draws(&mut b));
        assert_eq!(a, b);
        assert_ne!(some_draws(&mut Draws::seeded(42)), some_draws(&mut Draws::seeded(43)));
    }

    #[test]
    fn the_position_round_trips_through_json_mid_stream() {
        let mut a = Draws::seeded(7);
        some_draws(&mut a);
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(json, format!(r#"{{"source":{{"seeded":{{"seed":7}}}},"position":{}}}"#, a.position()));
        let mut b: Draws = serde_json::from_str(&json).unwrap();
        assert_eq!(b, a);
        assert_eq!(some_draws(&mut a), some_draws(&mut b));
    }

    #[test]
    fn positions_only_grow() {
        let mut d = Draws::seeded(1);
        let mut last = d.position();
        assert_eq!(last, 0);
        for sides in 1..=20 {
            d.die(sides);
            assert!(d.position() > last, "a die of {sides} sides moves the position on");
            last = d.position();
        }
        d.advance_to(3);
        assert_eq!(d.position(), last, "advance_to never moves back");
    }

    #[test]
    fn a_stream_continues_where_the_recorded_position_stands() {
        let mut one = Draws::seeded(9);
        let singly: Vec<u8> = (0..10).map(|_| one.die(12)).collect();
        let two = Draws::seeded(9);
        let mut s = two.stream();
        let streamed: Vec<u8> = (0..10).map(|_| s.die(12)).collect();
        assert_eq!(singly, streamed);
        assert_eq!(one.position(), s.position());
    }

    #[test]
    fn the_seeded_source_is_todays_chacha8_stream() {
        let mut rng = seeded_rng(5);
        let want: Vec<u8> = (0..8).map(|_| rng.random_range(1..=8u8)).collect();
        let mut d = Draws::seeded(5);
        let got: Vec<u8> = (0..8).map(|_| d.die(8)).collect();
        assert_eq!(got, want);
        assert_eq!(u128::from(d.position()), rng.get_word_pos());
    }

    #[test]
    fn empty_ranges_and_no_dice_draw_nothing() {
        let mut d = Draws::seeded(3);
        assert_eq!(d.uniform(5..5u32), None);
        assert_eq!(d.pick::<u8>(&[]), None);
        assert_eq!(d.die(0), 0);
        assert!(!d.chance(f64::NAN) && !d.chance(-1.0) && d.chance(2.0));
        assert_eq!(d.position(), 0);
    }

    #[test]
    fn a_source_names_its_seeds() {
        assert_eq!(Draws::seeded(11).source().seeds(), &[11]);
    }
}
