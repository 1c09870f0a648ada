//! The campaign rules (rules reference §4, §5.1 step 2, §7–10): one test per rule.

use iron_triangle::campaign::conflicts::{check_entry, sat_out, write_back};
use iron_triangle::campaign::levelling::{self, Advance, FollowUp, LevelUp, Refill};
use iron_triangle::campaign::problem::{self, Choice, Cost, Decider, Mark, Problem, ProblemOption, Stage};
use iron_triangle::campaign::rest::{self, Rest};
use iron_triangle::campaign::{Background, CampaignError, Countdown, Sheet};
use iron_triangle::character::SheetError;
use iron_triangle::special::{Edition, Special};
use iron_triangle::{Action, Character, Conflict, Energy, Move, Setup, Stakes};
use proptest::prelude::*;

fn mv(s: &str) -> Move {
    s.parse().unwrap()
}

/// A level 0 sheet with 3 background points and goal, belief and flaw.
fn pc(name: &str, energy: Energy) -> Sheet {
    Sheet {
        character: Character::with_starting_moves(name, energy),
        goal: "find the scroll".into(),
        belief: "protect innocents".into(),
        flaw: "haunted".into(),
        backgrounds: vec![
            Background { name: "cop".into(), points: 2, left: None },
            Background { name: "painter".into(), points: 1, left: None },
        ],
        ..Sheet::default()
    }
}

fn ada() -> Sheet {
    pc("Ada", Energy::new(3, 2, 5))
}

fn all_marked(mut s: Sheet) -> Sheet {
    s.played_belief_or_flaw = true;
    s.belief_marked = true;
    s.goal_achieved = true;
    s.mark_zero(Action::Grapple);
    s
}

fn never(_: &str) -> Option<u64> {
    None
}

// ----- §4 characters -----

#[test]
fn creation_checks_every_rule_of_section_4_through_the_character_validation() {
    assert_eq!(ada().validate_creation(Edition::Current), Ok(()));
    let mut s = ada();
    s.character.energy = Energy::new(4, 2, 5);
    assert!(matches!(
        s.validate_creation(Edition::Current),
        Err(CampaignError::Sheet(SheetError::CreationEnergyTotal { total: 11, .. }))
    ));
    let mut s = ada();
    s.character.energy = Energy::new(0, 5, 5);
    assert!(matches!(
        s.validate_creation(Edition::Current),
        Err(CampaignError::Sheet(SheetError::EmptyType { .. }))
    ));
    let mut s = ada();
    s.character.moves.pop();
    assert!(matches!(
        s.validate_creation(Edition::Current),
        Err(CampaignError::Sheet(SheetError::MissingStartingMove { .. }))
    ));
    let mut s = ada();
    s.character.level = 1;
    assert!(matches!(s.validate_creation(Edition::Current), Err(CampaignError::Creation { .. })));
    let mut s = ada();
    s.character.specials = vec![Special::Scouter];
    assert!(matches!(s.validate_creation(Edition::Current), Err(CampaignError::Creation { .. })));
    let mut s = ada();
    s.veto_used = true;
    assert!(matches!(s.validate_creation(Edition::Current), Err(CampaignError::Creation { .. })));
    let s = tired(ada(), Energy::new(1, 2, 5));
    assert!(matches!(s.validate_creation(Edition::Current), Err(CampaignError::Creation { .. })));
}

#[test]
fn backgrounds_have_three_points_at_most_two_in_one() {
    let mut s = ada();
    s.backgrounds[0].points = 3;
    assert!(matches!(s.validate_backgrounds(), Err(CampaignError::Backgrounds { .. })));
    let mut s = ada();
    s.backgrounds.push(Background { name: "sailor".into(), points: 1, left: None });
    assert!(matches!(s.validate_backgrounds(), Err(CampaignError::Backgrounds { .. })));
    // They may be filled in during play.
    let mut s = ada();
    s.backgrounds.clear();
    assert_eq!(s.validate_creation(Edition::Current), Ok(()));
    let s = s.add_background("cop", 2).unwrap();
    assert!(s.add_background("Cop", 1).is_err(), "names are unique");
    assert!(s.add_background("sailor", 2).is_err(), "4 points");
    assert_eq!(s.add_background("sailor", 1).unwrap().background_points_left(), 3);
}

#[test]
fn moves_are_renamed_freely_but_names_stay_distinct() {
    let s = ada().rename_move("▨☷", "Trip", Edition::Current).unwrap();
    assert_eq!(s.character.move_name(mv("▨☷")), "Trip");
    let s = s.rename_move("trip", "Sweep", Edition::Current).unwrap();
    assert_eq!(s.character.move_name(mv("▨☷")), "Sweep");
    assert!(s.rename_move("◆☲", "sweep", Edition::Current).is_err());
    assert!(matches!(s.rename_move("◆☰", "x", Edition::Current), Err(CampaignError::UnknownMove { .. })));
}

#[test]
fn death_is_recorded_on_the_sheet() {
    assert!(ada().record_death().character.dead);
}

#[test]
fn goal_belief_and_flaw_are_rewritten_at_session_end() {
    let mut s = ada();
    s.goal_achieved = true;
    s.belief_marked = true;
    let r = s.rewrite(Some("new goal"), None, Some("greedy"));
    assert_eq!((r.goal.as_str(), r.goal_achieved, r.flaw.as_str()), ("new goal", false, "greedy"));
    assert!(r.belief_marked, "rewriting does not erase marks");
}

// ----- §7 problems -----

fn problem(names: &[&str]) -> Problem {
    Problem::new(1, "the door", &names.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
}

#[test]
fn the_highest_choice_wins_and_narrates() {
    let (a, b) = (ada(), pc("Bao", Energy::new(4, 3, 3)));
    let p = problem(&["Ada", "Bao"]);
    let p = p.choose(&a, &Choice::of(ProblemOption::Complication)).unwrap();
    let p = p.choose(&b, &Choice::of(ProblemOption::Failure)).unwrap();
    let p = p.reveal(&never).unwrap();
    assert!(matches!(p.decider(), Some(Decider::Character { name, .. }) if name == "Bao"));
}

#[test]
fn choices_stay_face_down_until_the_reveal() {
    let p = problem(&["Ada", "Bao"]).choose(&ada(), &Choice::of(ProblemOption::Failure)).unwrap();
    let v = p.view();
    assert!(v.entries[0].chosen && v.entries[0].choice.is_none());
    assert!(!serde_json::to_string(&v).unwrap().contains("failure"));
    assert!(p.choose(&ada(), &Choice::of(ProblemOption::GoodIdea)).is_err(), "a face-down choice is final");
    let p = p.choose(&pc("Bao", Energy::new(4, 3, 3)), &Choice::of(ProblemOption::GoodIdea)).unwrap();
    let p = p.reveal(&never).unwrap();
    assert_eq!(p.view().entries[0].choice.as_ref().map(|c| c.option), Some(ProblemOption::Failure));
}

#[test]
fn option_two_needs_a_background_point_left() {
    let mut s = ada();
    for b in &mut s.backgrounds {
        b.left = Some(0);
    }
    assert!(matches!(
        problem(&["Ada"]).choose(&s, &Choice::of(ProblemOption::Background)),
        Err(CampaignError::NoBackgroundPoint { .. })
    ));
    s.backgrounds[1].left = None;
    let p = problem(&["Ada"]).choose(&s, &Choice::of(ProblemOption::Background)).unwrap();
    assert_eq!(p.entries[0].choice.as_ref().unwrap().background.as_deref(), Some("painter"));
}

#[test]
fn options_three_and_four_need_an_unmarked_belief_or_flaw() {
    let mut s = ada();
    s.belief_marked = true;
    // Complication falls back on the flaw.
    let p = problem(&["Ada"]).choose(&s, &Choice::of(ProblemOption::Complication)).unwrap();
    assert_eq!(p.entries[0].choice.as_ref().unwrap().mark, Some(Mark::Flaw));
    let named = Choice { option: ProblemOption::Complication, mark: Some(Mark::Belief), background: None };
    assert!(matches!(problem(&["Ada"]).choose(&s, &named), Err(CampaignError::AlreadyMarked { .. })));
    s.flaw_marked = true;
    assert!(matches!(
        problem(&["Ada"]).choose(&s, &Choice::of(ProblemOption::Failure)),
        Err(CampaignError::AlreadyMarked { .. })
    ));
}

#[test]
fn ties_go_to_the_player_who_least_recently_decided_else_the_gm() {
    let (a, b) = (ada(), pc("Bao", Energy::new(4, 3, 3)));
    let both = |p: Problem| {
        p.choose(&a, &Choice::of(ProblemOption::GoodIdea))
            .unwrap()
            .choose(&b, &Choice::of(ProblemOption::GoodIdea))
            .unwrap()
    };
    // Ada decided problem 5, Bao never: Bao is least recent.
    let p = both(problem(&["Ada", "Bao"])).reveal(&|n| (n == "Ada").then_some(5)).unwrap();
    assert!(matches!(p.decider(), Some(Decider::Character { name, .. }) if name == "Bao"));
    let p = both(problem(&["Ada", "Bao"])).reveal(&|n| Some(if n == "Ada" { 2 } else { 7 })).unwrap();
    assert!(matches!(p.decider(), Some(Decider::Character { name, .. }) if name == "Ada"));
    // Neither ever decided: the GM breaks the tie.
    let p = both(problem(&["Ada", "Bao"])).reveal(&never).unwrap();
    assert!(matches!(&p.stage, Stage::GmTie { tied, .. } if tied.len() == 2));
    assert!(p.gm_breaks_tie("Nobody").is_err());
    let p = p.gm_breaks_tie("bao").unwrap();
    assert!(matches!(p.decider(), Some(Decider::Character { name, .. }) if name == "Bao"));
}

#[test]
fn if_nobody_chooses_the_gm_decides() {
    let p = problem(&["Ada", "Bao"]).reveal(&never).unwrap();
    assert_eq!(p.decider(), Some(&Decider::Gm));
    let (p, costs) = p.settle().unwrap();
    assert!(costs.is_empty());
    assert!(matches!(p.stage, Stage::Settled { decider: Decider::Gm, .. }));
}

#[test]
fn if_the_winner_cannot_narrate_the_next_highest_choice_wins() {
    let (a, b) = (ada(), pc("Bao", Energy::new(4, 3, 3)));
    let p = problem(&["Ada", "Bao"])
        .choose(&a, &Choice::of(ProblemOption::Background))
        .unwrap()
        .choose(&b, &Choice::of(ProblemOption::Failure))
        .unwrap()
        .reveal(&never)
        .unwrap();
    let p = p.cannot_narrate().unwrap();
    assert!(matches!(p.decider(), Some(Decider::Character { name, .. }) if name == "Ada"));
    let p = p.cannot_narrate().unwrap();
    assert_eq!(p.decider(), Some(&Decider::Gm), "nobody left: the GM decides");
}

#[test]
fn only_the_deciding_choice_costs_and_marks() {
    let (a, b) = (ada(), pc("Bao", Energy::new(4, 3, 3)));
    let p = problem(&["Ada", "Bao"])
        .choose(&a, &Choice::of(ProblemOption::Background))
        .unwrap()
        .choose(&b, &Choice::of(ProblemOption::Complication))
        .unwrap()
        .reveal(&never)
        .unwrap();
    let (_, costs) = p.settle().unwrap();
    assert_eq!(costs, vec![("Bao".to_string(), Cost::Mark(Mark::Belief))]);
    let paid = problem::pay(&b, &costs[0].1).unwrap();
    assert!(paid.belief_marked && paid.played_belief_or_flaw && !paid.flaw_marked);
}

#[test]
fn a_veto_substitutes_a_success_and_the_vetoed_choice_costs_nothing() {
    let (a, b, c) = (ada(), pc("Bao", Energy::new(4, 3, 3)), pc("Cy", Energy::new(2, 4, 4)));
    let p = problem(&["Ada", "Bao"])
        .choose(&a, &Choice::of(ProblemOption::GoodIdea))
        .unwrap()
        .choose(&b, &Choice::of(ProblemOption::Failure))
        .unwrap()
        .reveal(&never)
        .unwrap();
    assert!(p.veto(&b, &Choice::of(ProblemOption::GoodIdea)).is_err(), "not one's own narration");
    assert!(p.veto(&a, &Choice::of(ProblemOption::Complication)).is_err(), "a veto is option 1 or 2");
    let mut used = a.clone();
    used.veto_used = true;
    assert!(matches!(p.veto(&used, &Choice::of(ProblemOption::GoodIdea)), Err(CampaignError::VetoUsed(_))));
    let v = p.veto(&a, &Choice::of(ProblemOption::Background)).unwrap();
    // First veto wins; a veto cannot be vetoed.
    assert!(v.veto(&c, &Choice::of(ProblemOption::GoodIdea)).is_err());
    assert!(v.cannot_narrate().is_err());
    let (_, costs) = v.settle().unwrap();
    assert_eq!(
        costs,
        vec![("Ada".to_string(), Cost::BackgroundPoint(Some("cop".into()))), ("Ada".to_string(), Cost::Veto)]
    );
    // Bao's failure marks nothing.
    assert!(costs.iter().all(|(n, _)| n != "Bao"));
}

#[test]
fn only_interested_players_choose() {
    assert!(matches!(
        problem(&["Ada"]).choose(&pc("Bao", Energy::new(4, 3, 3)), &Choice::of(ProblemOption::GoodIdea)),
        Err(CampaignError::NotInProblem(_))
    ));
}

// ----- §8 countdowns -----

#[test]
fn countdowns_have_four_to_eight_boxes_marked_one_at_a_time() {
    assert!(matches!(Countdown::new("x", 3), Err(CampaignError::CountdownBoxes(3))));
    assert!(matches!(Countdown::new("x", 9), Err(CampaignError::CountdownBoxes(9))));
    let mut c = Countdown::new("Elbow Clan", 4).unwrap();
    for _ in 0..4 {
        assert!(!c.is_complete());
        c = c.mark().unwrap();
    }
    assert!(c.is_complete());
    assert_eq!(c.boxes_drawn(), "■■■■");
    assert!(matches!(c.mark(), Err(CampaignError::CountdownFull(_))));
}

// ----- §9 resting -----

fn tired(mut s: Sheet, cur: Energy) -> Sheet {
    s.set_current(cur);
    s
}

#[test]
fn a_breather_regains_one_energy_once_until_a_full_rest() {
    let s = tired(ada(), Energy::new(1, 0, 5));
    let r = rest::rest(&s, Rest::Breather, Some(Action::Grapple)).unwrap();
    assert_eq!(r.current(), Energy::new(1, 1, 5));
    assert!(matches!(rest::rest(&r, Rest::Breather, None), Err(CampaignError::RestUsed { .. })));
    assert!(matches!(
        rest::rest(&s, Rest::Breather, Some(Action::Attack)),
        Err(CampaignError::RestChoice { .. })
    ));
    // Default: the type furthest below its maximum.
    assert_eq!(rest::rest(&s, Rest::Breather, None).unwrap().current(), Energy::new(2, 0, 5));
}

#[test]
fn a_short_rest_refills_the_type_with_the_lowest_maximum_once_until_a_full_rest() {
    let s = tired(ada(), Energy::new(0, 0, 0));
    let r = rest::rest(&s, Rest::Short, None).unwrap();
    assert_eq!(r.current(), Energy::new(0, 2, 0));
    assert!(matches!(rest::rest(&r, Rest::Short, None), Err(CampaignError::RestUsed { .. })));
    assert!(rest::rest(&s, Rest::Short, Some(Action::Attack)).is_err());
    // A tie between lowest maxima: the player picks.
    let t = tired(pc("Bao", Energy::new(4, 3, 3)), Energy::ZERO);
    assert_eq!(rest::rest(&t, Rest::Short, Some(Action::Attack)).unwrap().current(), Energy::new(0, 0, 3));
}

#[test]
fn a_full_rest_regains_everything_refreshes_specials_and_the_other_rests() {
    let mut s = tired(ada(), Energy::new(0, 1, 0));
    s.character.level = 1;
    s.character.specials = vec![Special::Scouter];
    s.character.specials_used = vec![Special::Scouter];
    let s = rest::rest(&s, Rest::Breather, None).unwrap();
    let s = rest::rest(&s, Rest::Short, None).unwrap();
    let r = rest::rest(&s, Rest::Full, None).unwrap();
    assert_eq!(r.current(), r.character.energy);
    assert!(r.character.specials_used.is_empty());
    assert!(!r.breather_taken && !r.short_rest_taken);
    assert!(rest::rest(&r, Rest::Breather, None).is_ok());
}

#[test]
fn a_rest_applies_to_all_player_characters_or_none() {
    let a = tired(ada(), Energy::new(0, 0, 0));
    let mut b = tired(pc("Bao", Energy::new(4, 3, 3)), Energy::new(1, 1, 1));
    let all = rest::rest_all(&[a.clone(), b.clone()], Rest::Breather, &|_| None).unwrap();
    assert_eq!(all[1].current(), Energy::new(2, 1, 1));
    b.breather_taken = true;
    assert!(rest::rest_all(&[a, b], Rest::Breather, &|_| None).is_err());
}

// ----- §10 levelling -----

fn learn(card: &str) -> LevelUp {
    LevelUp { advance: Advance::LearnMove { card: mv(card), name: "New".into() }, refill: Some(Refill::Veto) }
}

#[test]
fn level_up_needs_all_three_marks() {
    let mut s = ada();
    s.played_belief_or_flaw = true;
    s.goal_achieved = true;
    assert!(matches!(
        levelling::level_up(&s, &learn("◆☵"), Edition::Current),
        Err(CampaignError::NotEnoughMarks { .. })
    ));
    s.mark_zero(Action::Defend);
    let up = levelling::level_up(&s, &learn("◆☵"), Edition::Current).unwrap();
    assert_eq!(up.character.level, 1);
    assert!(up.character.known().contains(mv("◆☵")));
}

#[test]
fn levelling_erases_goal_zero_marks_and_belief_and_flaw_only_if_both_marked() {
    let s = all_marked(ada());
    let up = levelling::level_up(&s, &learn("◆☵"), Edition::Current).unwrap();
    assert!(up.goal.is_empty() && !up.goal_achieved);
    assert_eq!(up.zero_marks, [false; 3]);
    assert!(up.belief_marked, "only the belief was marked: it stays");
    assert!(!up.played_belief_or_flaw);
    assert!(up.ever_zero[Action::Grapple.index()], "the history of zero stays for +1 maximum");
    let mut both = all_marked(ada());
    both.flaw_marked = true;
    let up = levelling::level_up(&both, &learn("◆☵"), Edition::Current).unwrap();
    assert!(!up.belief_marked && !up.flaw_marked);
}

#[test]
fn marks_carry_over_without_a_level_up() {
    let mut s = ada();
    s.goal_achieved = true;
    assert!(levelling::level_up(&s, &learn("◆☵"), Edition::Current).is_err());
    assert_eq!(s.questions(), [false, true, false]);
}

#[test]
fn learning_a_move_refuses_duplicates_and_five_element_moves_before_the_nine() {
    let s = all_marked(ada());
    assert!(matches!(
        levelling::level_up(&s, &learn("▨☷"), Edition::Current),
        Err(CampaignError::LevelUp { .. })
    ));
    assert!(matches!(
        levelling::level_up(&s, &learn("◆☰"), Edition::Current),
        Err(CampaignError::Sheet(SheetError::FiveElementTooEarly { .. }))
    ));
}

#[test]
fn combos_need_known_moves_and_at_most_two_follow_ups_per_starting_move() {
    let s = all_marked(ada());
    let combo =
        |changes: Vec<FollowUp>| LevelUp { advance: Advance::Combos { changes }, refill: Some(Refill::Veto) };
    let f = |from: &str, to: &str| FollowUp { from: mv(from), to: mv(to), replacing: None };
    let up = levelling::level_up(&s, &combo(vec![f("▨☷", "◆☲"), f("▨☷", "○☵")]), Edition::Current).unwrap();
    assert_eq!(up.character.follow_ups()[mv("▨☷").index()].len(), 2);
    assert!(levelling::level_up(&s, &combo(vec![f("▨☷", "◆☵")]), Edition::Current).is_err(), "unknown move");
    assert!(levelling::level_up(&s, &combo(vec![]), Edition::Current).is_err());
    // A third follow-up must replace one.
    let again = all_marked(up.clone());
    assert!(levelling::level_up(&again, &combo(vec![f("▨☷", "▨☷")]), Edition::Current).is_err());
    let swap = FollowUp { from: mv("▨☷"), to: mv("▨☷"), replacing: Some(mv("○☵")) };
    let up2 = levelling::level_up(&again, &combo(vec![swap]), Edition::Current).unwrap();
    assert!(up2.character.follow_ups()[mv("▨☷").index()].contains(mv("▨☷")));
    // The earlier edition: one option per level-up.
    assert!(levelling::level_up(&s, &combo(vec![f("▨☷", "◆☲"), f("▨☷", "○☵")]), Edition::Earlier).is_err());
}

#[test]
fn plus_one_maximum_only_to_a_type_that_reached_zero() {
    let s = all_marked(ada()); // grapple reached zero
    let e = |a| LevelUp { advance: Advance::MaxEnergy { action: a }, refill: Some(Refill::Veto) };
    assert!(levelling::level_up(&s, &e(Action::Attack), Edition::Current).is_err());
    let up = levelling::level_up(&s, &e(Action::Grapple), Edition::Current).unwrap();
    assert_eq!(up.character.energy, Energy::new(3, 3, 5));
    // The earlier edition: any type.
    let mut t = ada();
    t.goal_achieved = true;
    t.played_belief_or_flaw = true;
    assert!(levelling::level_up(&t, &e(Action::Attack), Edition::Earlier).is_ok());
}

#[test]
fn specials_need_their_requirements_and_are_learned_once() {
    let s = all_marked(ada());
    let sp = |x| LevelUp { advance: Advance::LearnSpecial { special: x }, refill: Some(Refill::Veto) };
    let up = levelling::level_up(&s, &sp(Special::Scouter), Edition::Current).unwrap();
    assert!(matches!(
        levelling::level_up(&s, &sp(Special::Yojimbo), Edition::Current),
        Err(CampaignError::Sheet(SheetError::SpecialLevel { .. }))
    ));
    assert!(levelling::level_up(&all_marked(up), &sp(Special::Scouter), Edition::Current).is_err());
}

#[test]
fn the_refill_choice_restores_backgrounds_or_the_veto() {
    let mut s = all_marked(ada());
    s.backgrounds[0].left = Some(0);
    s.veto_used = true;
    let no_refill = LevelUp { refill: None, ..learn("◆☵") };
    assert!(levelling::level_up(&s, &no_refill, Edition::Current).is_err(), "a refill is chosen");
    let bg = levelling::level_up(
        &s,
        &LevelUp { refill: Some(Refill::Backgrounds), ..learn("◆☵") },
        Edition::Current,
    )
    .unwrap();
    assert_eq!((bg.background_points_left(), bg.veto_used), (3, true));
    let v = levelling::level_up(&s, &learn("◆☵"), Edition::Current).unwrap();
    assert_eq!((v.background_points_left(), v.veto_used), (1, false));
}

#[test]
fn the_earlier_edition_levels_with_two_marks_and_a_special_needs_three() {
    let mut s = ada();
    s.goal_achieved = true;
    s.mark_zero(Action::Defend);
    let up = levelling::level_up(&s, &LevelUp { refill: None, ..learn("◆☵") }, Edition::Earlier).unwrap();
    assert_eq!(up.character.level, 1);
    assert_eq!(up.questions(), [false, false, false], "every yes mark is erased");
    let sp = LevelUp { advance: Advance::LearnSpecial { special: Special::Scouter }, refill: None };
    assert!(matches!(
        levelling::level_up(&s, &sp, Edition::Earlier),
        Err(CampaignError::NotEnoughMarks { .. })
    ));
    s.played_belief_or_flaw = true;
    assert!(levelling::level_up(&s, &sp, Edition::Earlier).is_ok());
    let mut one = ada();
    one.goal_achieved = true;
    assert!(levelling::level_up(&one, &learn("◆☵"), Edition::Earlier).is_err());
}

// ----- §10 replacement characters -----

#[test]
fn a_replacement_starts_at_most_at_min_five_and_the_dead_level_without_specials() {
    let mut dead = ada();
    dead.character.level = 2;
    dead.character.energy = Energy::new(3, 3, 6);
    dead.character.moves.push(iron_triangle::KnownMove { name: "Jab".into(), card: mv("◆☵") });
    dead.character.moves.push(iron_triangle::KnownMove { name: "Hook".into(), card: mv("◆☷") });
    let base = pc("Cy", Energy::new(2, 4, 4));
    let learn = |c: &str| Advance::LearnMove { card: mv(c), name: String::new() };
    assert!(levelling::replacement(&dead, &base, &[learn("◆☵")], Edition::Current).is_err(), "not dead yet");
    let dead = dead.record_death();
    let r = levelling::replacement(&dead, &base, &[learn("◆☵"), learn("◆☷")], Edition::Current).unwrap();
    assert_eq!(r.character.level, 2);
    assert_eq!(r.character.move_name(mv("◆☵")), "Jab", "the dead character's move, with its name");
    assert_eq!(r.character.fighting_style, dead.character.fighting_style);
    assert!(matches!(
        levelling::replacement(&dead, &base, &[learn("◆☵"), learn("◆☷"), learn("▨☵")], Edition::Current),
        Err(CampaignError::ReplacementLevel { max: 2, level: 3, .. })
    ));
    let sp = Advance::LearnSpecial { special: Special::Scouter };
    assert!(levelling::replacement(&dead, &base, &[sp], Edition::Current).is_err());
    let mut high = dead.clone();
    high.character.level = 9;
    let six: Vec<Advance> = ["◆☵", "◆☷", "▨☵", "▨☲", "○☷", "○☲"].iter().map(|c| learn(c)).collect();
    assert!(matches!(
        levelling::replacement(&high, &base, &six, Edition::Current),
        Err(CampaignError::ReplacementLevel { max: 5, .. })
    ));
    assert_eq!(levelling::replacement(&high, &base, &six[..5], Edition::Current).unwrap().character.level, 5);
}

// ----- §5.1 entering, §5.7 writing back -----

#[test]
fn a_lethal_conflict_involves_every_player_character_who_can_enter() {
    let a = ada();
    let b = pc("Bao", Energy::new(4, 3, 3));
    let lethal = Stakes { lethal: true, ..Stakes::default() };
    assert!(matches!(
        check_entry(&[a.clone(), b.clone()], &["Ada".into()], &lethal),
        Err(CampaignError::Entry(_))
    ));
    assert!(check_entry(&[a.clone(), b.clone()], &["Ada".into(), "Bao".into()], &lethal).is_ok());
    let b0 = tired(b.clone(), Energy::ZERO);
    assert!(check_entry(&[a.clone(), b0], &["Ada".into()], &lethal).is_ok(), "zero energy stays out");
    assert!(check_entry(&[a, b], &["Ada".into()], &Stakes::default()).is_ok());
}

#[test]
fn zero_energy_sit_out_marks_and_death_keep_a_character_out() {
    let a = tired(ada(), Energy::ZERO);
    assert!(check_entry(&[a], &["Ada".into()], &Stakes::default()).is_err());
    let mut s = ada();
    s.character.sits_out_next_conflict = true;
    assert!(check_entry(std::slice::from_ref(&s), &["Ada".into()], &Stakes::default()).is_err());
    assert!(!sat_out(&s).character.sits_out_next_conflict, "the mark clears after the conflict it sits out");
    assert!(check_entry(&[ada().record_death()], &["Ada".into()], &Stakes::default()).is_err());
}

#[test]
fn a_finished_conflict_writes_energy_zero_marks_death_and_sit_out_back() {
    let s = ada();
    let ninja = Character::with_starting_moves("Ninja", Energy::new(3, 3, 4));
    let c = Conflict::new(Setup::one_on_one(s.character.clone(), ninja)).unwrap();
    let mut f = c.fighters[0].clone();
    f.energy = Energy::new(2, 0, 1);
    f.zero_marks = [false, true, false];
    f.dead = true;
    f.sits_out_next = true;
    let w = write_back(&s, &f);
    assert_eq!(w.current(), Energy::new(2, 0, 1));
    assert_eq!(w.zero_marks, [false, true, false]);
    assert!(w.ever_zero[1] && w.character.dead && w.character.sits_out_next_conflict);
    assert!(w.questions()[2]);
}

proptest! {
    /// Whatever the choices, the decider of a revealed problem chose the highest option, and
    /// settling costs only the decider.
    #[test]
    fn the_decider_always_holds_the_highest_choice(opts in proptest::collection::vec(1u32..=4, 1..5),
                                                   last in proptest::collection::vec(proptest::option::of(0u64..4), 5)) {
        let names: Vec<String> = (0..opts.len()).map(|i| format!("P{i}")).collect();
        let mut p = Problem::new(9, "x", &names).unwrap();
        for (i, &o) in opts.iter().enumerate() {
            let s = pc(&names[i], Energy::new(4, 3, 3));
            p = p.choose(&s, &Choice::of(ProblemOption::from_number(o).unwrap())).unwrap();
        }
        let lookup = |n: &str| last[n[1..].parse::<usize>().unwrap()];
        let p = p.reveal(&lookup).unwrap();
        let best = *opts.iter().max().unwrap();
        match &p.stage {
            Stage::Narrating { decider: Decider::Character { choice, .. }, .. } => prop_assert_eq!(choice.option.number(), best),
            Stage::GmTie { tied, .. } => prop_assert!(tied.len() >= 2),
            other => prop_assert!(false, "unexpected {:?}", other),
        }
        if let Ok((_, costs)) = p.settle() {
            prop_assert!(costs.len() <= 1);
        }
    }

    /// A rest never takes energy above the maximum, and a full rest always fills it.
    #[test]
    fn rests_stay_within_the_maximum(d in 0u8..=3, g in 0u8..=2, a in 0u8..=5, kind in 0usize..3) {
        let s = tired(ada(), Energy::new(d, g, a));
        let k = [Rest::Breather, Rest::Short, Rest::Full][kind];
        let r = rest::rest(&s, k, None).unwrap();
        prop_assert!(r.current().fits_within(&r.character.energy));
        prop_assert!(r.current().total() >= s.current().total());
        if k == Rest::Full { prop_assert_eq!(r.current(), r.character.energy); }
    }
}

// ----- review (audit) of the campaign rules -----

#[test]
fn a_player_passed_over_stays_passed_over_after_the_gm_breaks_a_tie() {
    // §7: Ada (4) cannot narrate; Bao and Cy tie on 3 and never decided: the GM names Bao;
    // Bao cannot narrate either: the next-highest is Cy, never Ada again.
    let (a, b, c) = (ada(), pc("Bao", Energy::new(4, 3, 3)), pc("Cy", Energy::new(2, 4, 4)));
    let p = problem(&["Ada", "Bao", "Cy"])
        .choose(&a, &Choice::of(ProblemOption::Failure))
        .unwrap()
        .choose(&b, &Choice::of(ProblemOption::Complication))
        .unwrap()
        .choose(&c, &Choice::of(ProblemOption::Complication))
        .unwrap()
        .reveal(&never)
        .unwrap();
    assert!(matches!(p.decider(), Some(Decider::Character { name, .. }) if name == "Ada"));
    let p = p.cannot_narrate().unwrap();
    assert!(matches!(&p.stage, Stage::GmTie { tied, .. } if tied.len() == 2));
    let p = p.gm_breaks_tie("Bao").unwrap();
    let p = p.cannot_narrate().unwrap();
    assert!(
        matches!(p.decider(), Some(Decider::Character { name, .. }) if name == "Cy"),
        "Ada was passed over and may not narrate again: {:?}",
        p.stage
    );
    let p = p.cannot_narrate().unwrap();
    assert_eq!(p.decider(), Some(&Decider::Gm), "everyone passed over: the GM decides");
}

#[test]
fn plus_one_maximum_goes_only_to_a_type_marked_zero_since_the_last_level_up() {
    // §10: "Erase all marks for reaching zero energy. This means you can't save the type you
    // didn't use." A type that reached zero before the last level-up no longer qualifies.
    let mut s = all_marked(ada()); // grapple reached zero this time
    s.ever_zero[Action::Attack.index()] = true; // attack reached zero before an earlier level-up
    let e = |a| LevelUp { advance: Advance::MaxEnergy { action: a }, refill: Some(Refill::Veto) };
    assert!(matches!(
        levelling::level_up(&s, &e(Action::Attack), Edition::Current),
        Err(CampaignError::LevelUp { .. })
    ));
    assert!(levelling::level_up(&s, &e(Action::Grapple), Edition::Current).is_ok());
    // After a level-up, the marks are erased: grapple no longer qualifies either.
    let up = levelling::level_up(&s, &learn("◆☵"), Edition::Current).unwrap();
    let mut again = up.clone();
    again.played_belief_or_flaw = true;
    again.goal_achieved = true;
    again.mark_zero(Action::Defend);
    assert!(levelling::level_up(&again, &e(Action::Grapple), Edition::Current).is_err());
    assert!(levelling::level_up(&again, &e(Action::Defend), Edition::Current).is_ok());
}

#[test]
fn only_a_replacement_continuing_the_dead_fighting_style_starts_above_level_zero() {
    // §10: "If the replacement for a dead character continues the deceased's fighting
    // tradition, they can start at a level up to 5 or the deceased's level."
    let mut dead = ada();
    dead.character.fighting_style = "Dirty Boxing".into();
    dead.character.level = 2;
    dead.character.energy = Energy::new(3, 3, 6);
    let dead = dead.record_death();
    let learn = |c: &str| Advance::LearnMove { card: mv(c), name: String::new() };
    let mut other = pc("Cy", Energy::new(2, 4, 4));
    other.character.fighting_style = "Drunken Fist".into();
    assert!(matches!(
        levelling::replacement(&dead, &other, &[learn("◆☵")], Edition::Current),
        Err(CampaignError::ReplacementLevel { max: 0, level: 1, .. })
    ));
    assert_eq!(levelling::replacement(&dead, &other, &[], Edition::Current).unwrap().character.level, 0);
    other.character.fighting_style = "dirty boxing".into();
    assert!(levelling::replacement(&dead, &other, &[learn("◆☵")], Edition::Current).is_ok());
}

#[test]
fn a_sheet_with_an_absurd_level_or_energy_is_refused_not_a_panic() {
    // Values from a file or the database: a level near u32::MAX, a type at 255.
    let mut s = all_marked(ada());
    s.character.level = u32::MAX;
    s.validate(Edition::Current).unwrap(); // no rule caps the level: 10 to 10 + level, saturated
    assert!(matches!(
        levelling::level_up(&s, &learn("◆☵"), Edition::Current),
        Err(CampaignError::LevelUp { .. })
    ));
    let mut s = all_marked(ada());
    s.character.level = 300;
    s.character.energy = Energy::new(3, 255, 5);
    s.validate(Edition::Current).unwrap();
    let e = LevelUp { advance: Advance::MaxEnergy { action: Action::Grapple }, refill: Some(Refill::Veto) };
    assert!(matches!(levelling::level_up(&s, &e, Edition::Current), Err(CampaignError::LevelUp { .. })));
}

#[test]
fn paying_a_mark_checks_again_that_it_is_unmarked() {
    // §7: options 3 and 4 need an unmarked belief or flaw; docs/campaign.md Decision 2 says
    // the requirement is checked when choosing and again when paying (another problem may
    // have marked it in between).
    let mut b = pc("Bao", Energy::new(4, 3, 3));
    let p = problem(&["Bao"]).choose(&b, &Choice::of(ProblemOption::Complication)).unwrap();
    let (_, costs) = p.reveal(&never).unwrap().settle().unwrap();
    assert_eq!(costs, vec![("Bao".to_string(), Cost::Mark(Mark::Belief))]);
    b.belief_marked = true; // marked by another problem settled meanwhile
    assert!(matches!(problem::pay(&b, &costs[0].1), Err(CampaignError::AlreadyMarked { .. })));
}
