//! Numbers from scene files, sheets and the calculator at the edges of their types: the
//! arithmetic of §3 and §7 never panics, and a sheet or Region with an unreasonable number is
//! refused with the field named.

mod common;

use common::arena;
use inciting_incident::Scene;
use inciting_incident::attack::{ExtraHits, decisive_hits, defence_value, flow_for, regular_roll};
use inciting_incident::character::AdvancedEffect;
use inciting_incident::dice::{AdvantageRule, Pool, roll};

#[test]
fn regular_roll_at_the_edges_of_i32_does_not_overflow() {
    // A total far below 20 (a calculator's --result): Crisis is 20 − result, saturated.
    let o = regular_roll(i32::MIN);
    assert_eq!(o.flow, 0);
    assert_eq!(o.crisis, 20 + 2_147_483_648);
    let o = regular_roll(i32::MAX);
    assert_eq!((o.flow, o.crisis), (i32::MAX - 20, 2));
}

#[test]
fn decisive_arithmetic_at_the_edges_of_i32_does_not_overflow() {
    assert_eq!(defence_value(6, i32::MIN), i32::MAX);
    assert_eq!(flow_for(i32::MIN, false), i32::MAX);
    let excess = i64::from(i32::MAX) - 2 * i64::from(i32::MIN);
    assert_eq!(decisive_hits(i32::MAX, i32::MIN, i32::MIN, 6, ExtraHits::AtLeast), 1 + (excess / 6) as u32);
    assert_eq!(decisive_hits(i32::MIN, i32::MAX, i32::MAX, 6, ExtraHits::AtLeast), 0);
    assert_eq!(decisive_hits(i32::MAX, i32::MAX, i32::MAX, 6, ExtraHits::StrictlyMore), 0);
}

#[test]
fn a_huge_modifier_saturates_the_total() {
    let mut rng = table::Draws::seeded(3).stream();
    let mut pool = Pool::level(9);
    pool.modifier = i32::MAX;
    assert_eq!(roll(&mut rng, &pool, 0, AdvantageRule::ExtraDie).total, i32::MAX);
    pool.modifier = i32::MIN;
    // The dice and the −d6 of Disadvantage are added to the modifier without wrapping round.
    let r = roll(&mut rng, &pool, -3, AdvantageRule::PlusMinusD6);
    assert!(r.total < i32::MIN / 2, "{}", r.total);
}

#[test]
fn skill_modifiers_and_flow_shifts_are_bounded_with_the_field_named() {
    let mut s = arena();
    s.characters[0].sheet.talents[0].skills.modifier = i32::MAX;
    let e = Scene::new(s).unwrap_err().to_string();
    assert!(e.contains("P1") && e.contains("Sword") && e.contains("modifier"), "{e}");

    let mut s = arena();
    s.minions.push(common_cultists());
    s.minions[0].stats.attack.modifier = i32::MIN;
    let e = Scene::new(s).unwrap_err().to_string();
    assert!(e.contains("Cultists") && e.contains("modifier"), "{e}");

    let mut s = arena();
    s.characters[0].sheet.talents[0].advanced.push(inciting_incident::character::AdvancedAction {
        name: "Rally".into(),
        crisis: 3,
        effect: AdvancedEffect::ShiftFlow { amount: i32::MIN },
        out_of_order: false,
    });
    let e = Scene::new(s).unwrap_err().to_string();
    assert!(e.contains("Rally") && e.contains("Flow"), "{e}");
}

#[test]
fn region_advantage_at_i32_min_is_refused_not_a_panic() {
    let mut s = arena();
    s.regions[0].effect.attack_advantage = i32::MIN;
    let e = Scene::new(s).unwrap_err().to_string();
    assert!(e.contains("regions[0]") && e.contains("Advantage"), "{e}");
    let mut s = arena();
    s.regions[1].effect.ranged_advantage = i32::MIN;
    assert!(Scene::new(s).is_err());
}

fn common_cultists() -> inciting_incident::scene::MinionSpec {
    toml::from_str(
        r#"
side = "enemies"
region = "B"
count = 3
stats = { name = "Cultists", rd = 4, attack = { level = 4 } }
"#,
    )
    .unwrap()
}

#[test]
fn huge_move_crisis_from_a_region_effect_saturates_the_crisis_pool() {
    use common::{act, ch, declare, go};
    use inciting_incident::{Action, IncitingIncident};
    let mut s = arena();
    s.regions[1].effect.move_crisis = Some(u32::MAX);
    s.regions[2].effect.move_crisis = Some(u32::MAX);
    let mut t = table::Table::<IncitingIncident>::new(Scene::new(s).unwrap());
    let e1 = ch(&t, "E1");
    let path = go(&t, &["B", "C"]);
    declare(
        &mut t,
        &[(0, path), (1, Action::Regular { talent: None, target: e1, roll: false, defence: None })],
    );
    act(&mut t, 0);
    assert_eq!(t.state().crisis, u32::MAX);
    act(&mut t, 1);
    assert_eq!(t.state().crisis, u32::MAX);
    assert_eq!(t.state().round_crisis[0], u32::MAX);
}

#[test]
fn the_public_queries_answer_for_numbers_that_name_nothing() {
    use inciting_incident::rules::{Action, Target};
    let scene = Scene::new(arena()).unwrap();
    // A character, Region or combatant number beyond the scene: an empty answer, no panic.
    assert_eq!(scene.max_move(200), 0);
    assert!(!scene.must_declare(200));
    let a = Action::Decisive {
        talent: 0,
        target: Target::Character(2),
        defence: Some(inciting_incident::DefenceKind::Resolve),
    };
    assert_eq!(scene.normalize(200, a), a);
    let a = Action::Regular { talent: Some(0), target: Target::Character(2), roll: true, defence: None };
    assert_eq!(scene.normalize(200, a), a);
    assert_eq!(scene.steps(0, 200), 0);
    assert_eq!(scene.steps(200, 40), 0);
    assert_eq!(scene.fighter_bit(100), 0);
    assert_eq!(scene.minion_bit(100), 0);
    assert!(scene.minion_block(9).0.is_empty());
    assert!(!scene.links.adjacent(0, 200) && !scene.links.in_range(200, 0));
}

#[test]
fn a_pool_built_by_hand_with_0_sided_dice_rolls_them_as_nothing() {
    // `Pool::add` skips them; a pool written field by field must not panic either.
    let pool = Pool { groups: vec![(2, 0), (1, 6)], modifier: 3 };
    let mut rng = table::Draws::seeded(1).stream();
    let r = roll(&mut rng, &pool, 2, AdvantageRule::ExtraDie);
    assert!(r.dice.iter().all(|d| d.sides == 6));
    assert_eq!(r.dice.len(), 3);
    let dist = inciting_incident::dice::distribution(&pool);
    assert!((dist.iter().sum::<f64>() - 1.0).abs() < 1e-9);
}
