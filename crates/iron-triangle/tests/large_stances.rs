//! NPC sheets have no energy limit, so a stance can be large: the winner's stance part of a
//! loss (§5.3, stance × multiplier) never overflows.

use iron_triangle::Stance;
use iron_triangle::card::{Action, Move};
use iron_triangle::turn::{Contender, Outcome, Play, resolve};

#[test]
fn a_large_stance_times_a_multiplier_saturates_instead_of_overflowing() {
    let x4 = Move::ALL.into_iter().find(|m| m.multiplier() == 4).expect("a ×4 move exists");
    let c = |stance, play| Contender {
        stance,
        play,
        disadvantage_newest: None,
        disadvantage_len: 0,
        combo_len: 0,
    };
    let big = Stance { action: x4.action(), amount: 200 };
    let none = Stance { action: Action::Defend, amount: 0 };
    let result = Move::ALL
        .into_iter()
        .map(|other| resolve(&[c(big, Play::Move(x4)), c(none, Play::Move(other))]))
        .find(|r| matches!(r.outcome, Outcome::Win { winner: 0 }))
        .expect("the ×4 move beats something");
    assert_eq!(result.losses[1].winner_stance, u8::MAX);
}
