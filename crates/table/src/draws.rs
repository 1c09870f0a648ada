//! The one draw source of every rule system: pluggable, recorded, JSON-safe.
//!
//! No ruleset draws on its own. A ruleset's state holds a [`Draws`]: the [`Source`] its
//! randomness comes from and how far it has been drawn (its [`position`](Draws::position)).
//! Every random outcome of the rules (an Iron Triangle Drunken Monkey swap, a No Dice pot
//! token, an Inciting Incident die or initiative lot) is drawn from it, and the event that
//! records the draw carries the new position, so replaying the events lands on the same
//! position and the next draw is the same.
//!
//! Today the only source is [`Source::Seeded`]: ChaCha8 seeded with `seed_from_u64(seed)`,
//! whose position is the generator's word position. A later issue adds verifiable draws mixed
//! from several seeds as a new [`Source`] variant: the rulesets only ever call the draw methods
//! of [`Draws`] and [`Stream`], so they need no change for it.
//!
//! The position is a `u64` (a JSON number), never the generator's `u128`: `serde_json` cannot
//! write a `u128` inside an internally tagged or flattened value, which once made an Inciting
//! Incident game unsaveable after its first die. It only grows.

use rand::RngExt;
use rand::distr::uniform::{SampleRange, SampleUniform};
use serde::{Deserialize, Serialize};

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
}

impl Source {
    /// The seeds this source was made from, for a game's record.
    pub fn seeds(&self) -> &[u64] {
        match self {
            Source::Seeded { seed } => std::slice::from_ref(seed),
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
    /// How far the source has been drawn (for [`Source::Seeded`], the ChaCha8 word position).
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
        let mut rng = match &self.source {
            Source::Seeded { seed } => seeded_rng(*seed),
        };
        if self.position > 0 {
            rng.set_word_pos(u128::from(self.position));
        }
        Stream { rng }
    }

    /// Draws a value uniformly from `range` (`0..n`, `1..=6`, …); `None`, and nothing drawn,
    /// when the range is empty.
    pub fn uniform<T, R>(&mut self, range: R) -> Option<T>
    where
        T: SampleUniform,
        R: SampleRange<T>,
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
    rng: TableRng,
}

impl Stream {
    /// How far the source has been drawn, counting this stream's draws.
    pub fn position(&self) -> u64 {
        // 2^64 words is beyond any game (each draw takes one or two).
        u64::try_from(self.rng.get_word_pos()).unwrap_or(u64::MAX)
    }

    /// Draws a value uniformly from `range`; `None`, and nothing drawn, when it is empty.
    pub fn uniform<T, R>(&mut self, range: R) -> Option<T>
    where
        T: SampleUniform,
        R: SampleRange<T>,
    {
        if range.is_empty() {
            return None;
        }
        range.sample_single(&mut self.rng).ok()
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
            self.rng.random_bool(p)
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
