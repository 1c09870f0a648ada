//! §5.1 and §7: attack arithmetic and the rules reference's worked examples B–G.

use inciting_incident::attack::{
    ExtraHits, decisive_flow_shift, decisive_hits, defence_value, flow_for, minion_advantage,
    regular_automatic, regular_roll,
};
use inciting_incident::rules::{InitiativeWhy, initiative_order};

#[test]
fn regular_attack_automatic_moves_flow_4_for_crisis_4() {
    let o = regular_automatic();
    assert_eq!((o.flow, o.crisis), (4, 4));
}

#[test]
fn worked_example_b_regular_talent_roll() {
    // 8,5 + 4,6,2 = 25 → Flow +5, Crisis +2.
    let o = regular_roll(8 + 5 + 4 + 6 + 2);
    assert_eq!((o.flow, o.crisis), (5, 2));
    // 3,2 + 1,4,3 = 13 → Crisis +7, Flow unchanged.
    let o = regular_roll(3 + 2 + 1 + 4 + 3);
    assert_eq!((o.flow, o.crisis), (0, 7));
}

#[test]
fn regular_talent_roll_success_moves_flow_at_least_4() {
    assert_eq!(regular_roll(20).flow, 4);
    assert_eq!(regular_roll(23).flow, 4);
    assert_eq!(regular_roll(24).flow, 4);
    assert_eq!(regular_roll(26).flow, 6);
    assert_eq!(regular_roll(19).crisis, 1);
}

#[test]
fn worked_example_c_pc_decisive() {
    // Flow +4, RV 6; attack 7+5+3+2 = 17; defence 6+3 = 9; defence value 6 − 4 = 2.
    let dv = defence_value(6, flow_for(4, true));
    assert_eq!(dv, 2);
    assert_eq!(decisive_hits(17, 9, dv, 6, ExtraHits::AtLeast), 2);
    // Afterwards Flow 4 − 3 = +1.
    assert_eq!(4 - decisive_flow_shift(6), 1);
}

#[test]
fn worked_example_d_enemy_decisive_sees_the_flow_inverted() {
    // Flow +4 in the players' frame is −4 for the enemy; RV 8 → defence value 12.
    let dv = defence_value(8, flow_for(4, false));
    assert_eq!(dv, 12);
    // Attack 10+6+5+4+2 = 27; defence 4+2 = 6; needed 18; excess 9 → 2 hits.
    assert_eq!(decisive_hits(27, 6, dv, 8, ExtraHits::AtLeast), 2);
    // The Flow moves 4 away from the enemy: +4 → +8.
    assert_eq!(4 + decisive_flow_shift(8), 8);
}

#[test]
fn worked_example_e_minion_block() {
    assert_eq!(minion_advantage(5, 2), 3);
    assert_eq!(minion_advantage(2, 3), -1);
    // Decisive vs a block of 4 at Flow +6: defence roll 3, defence value 0 − 6; attack 14:
    // excess 17 → 1 + 17/4 = 5 kills, capped at 4.
    let dv = defence_value(0, 6);
    assert_eq!(decisive_hits(14, 3, dv, 4, ExtraHits::AtLeast), 5);
    assert_eq!(decisive_hits(14, 3, dv, 4, ExtraHits::AtLeast).min(4), 4);
}

#[test]
fn worked_example_f_ranged_decisive_uses_the_talent_level() {
    // 6+5+4+3 = 18 vs RV 7 − Talent level 5 = 2, defence roll 5: needed 7, excess 11 → 2 hits.
    let dv = defence_value(7, 5);
    assert_eq!(decisive_hits(18, 5, dv, 7, ExtraHits::AtLeast), 2);
}

#[test]
fn decisive_attack_hits_at_equal_and_misses_below() {
    assert_eq!(decisive_hits(11, 9, 2, 6, ExtraHits::AtLeast), 1);
    assert_eq!(decisive_hits(10, 9, 2, 6, ExtraHits::AtLeast), 0);
}

#[test]
fn extra_hits_per_multiple_of_rv_and_the_strict_option() {
    // Excess exactly RV: a second hit under the default, not under the strict reading.
    assert_eq!(decisive_hits(17, 0, 11, 6, ExtraHits::AtLeast), 2);
    assert_eq!(decisive_hits(17, 0, 11, 6, ExtraHits::StrictlyMore), 1);
    assert_eq!(decisive_hits(18, 0, 11, 6, ExtraHits::StrictlyMore), 2);
    assert_eq!(decisive_hits(11 + 18, 0, 11, 6, ExtraHits::AtLeast), 4);
}

#[test]
fn decisive_flow_shift_is_half_the_rv_rounded_down() {
    assert_eq!(decisive_flow_shift(7), 3);
    assert_eq!(decisive_flow_shift(1), 0);
}

#[test]
fn worked_example_g_first_round_initiative() {
    // Players {5,3}, enemies {5,4}: tie at 5, then 3 < 4 → enemies.
    assert_eq!(initiative_order(&[vec![5, 3], vec![5, 4]], [0, 0]), Some((1, InitiativeWhy::Nimbleness)));
}

#[test]
fn first_round_initiative_tie_breaks() {
    // Out of characters to compare: the side with more characters wins.
    assert_eq!(initiative_order(&[vec![5, 4, 1], vec![5, 4]], [0, 0]), Some((0, InitiativeWhy::Headcount)));
    // Same headcount and Nimbleness: the highest Nimbleness-based Talent.
    assert_eq!(initiative_order(&[vec![5, 4], vec![4, 5]], [3, 4]), Some((1, InitiativeWhy::Talent)));
    // Everything tied: no answer (the engine draws by lot, Decision).
    assert_eq!(initiative_order(&[vec![5], vec![5]], [2, 2]), None);
}
