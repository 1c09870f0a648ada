//! Times a whole-conflict solve: `cargo run --release -p solver --example time_duel -- [TOTAL]`.
use std::time::Instant;

use iron_triangle::Energy;
use solver::duel::{Duel, DuelSolution, Sheet, Space};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let total: u8 = std::env::args().nth(1).map_or(Ok(10), |s| s.parse())?;
    let max = Energy::new(total, total, total);
    let duel = Duel::new(Sheet::starting("A", max), Sheet::starting("B", max))?;
    let start = Instant::now();
    let sol =
        DuelSolution::solve(duel, [Space::new(max, u32::from(total)), Space::new(max, u32::from(total))])?;
    println!("{:?} in {:.2?}", sol.stats, start.elapsed());
    let e = Energy::new(total / 3, total / 3, total - 2 * (total / 3));
    println!("value 334 v 334: {}", sol.value([e, e])?);
    println!(
        "value 433 v 334: {}",
        sol.value([Energy::new(total - 2 * (total / 3), total / 3, total / 3), e])?
    );
    Ok(())
}
