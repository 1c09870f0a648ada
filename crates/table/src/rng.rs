//! Seeded, portable randomness for bots, tests and benchmarks. Rules never draw from it directly:
//! they draw from the recorded [`Draws`](crate::Draws), which uses it underneath.
//!
//! `StdRng` may change its algorithm between `rand` versions, which would break saved games and
//! replays; ChaCha8 is a fixed algorithm, so the same seed gives the same draws everywhere.

/// The random number generator of every table: ChaCha8, serialisable with its position.
pub type TableRng = rand_chacha::ChaCha8Rng;

/// A [`TableRng`] seeded from a number, for reproducible conflicts, bots and tests.
pub fn seeded_rng(seed: u64) -> TableRng {
    use rand::SeedableRng;
    TableRng::seed_from_u64(seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn the_same_seed_gives_the_same_draws() {
        let mut a = seeded_rng(42);
        let mut b = seeded_rng(42);
        let xs: Vec<u32> = (0..8).map(|_| a.random_range(0..100)).collect();
        let ys: Vec<u32> = (0..8).map(|_| b.random_range(0..100)).collect();
        assert_eq!(xs, ys);
    }

    #[test]
    fn the_generator_survives_a_save_mid_stream() {
        let mut a = seeded_rng(1);
        let _: u64 = a.random();
        let saved = serde_json::to_string(&a).unwrap();
        let mut b: TableRng = serde_json::from_str(&saved).unwrap();
        assert_eq!(a.random::<u64>(), b.random::<u64>());
    }
}
