//! The quick reference for players (issue 14 part 8; rules reference §3, §5–§10): the steps
//! of a round in brief, the attacks and their Crisis, the defences and the level dice — built
//! from the crate's own tables ([`DefenceKind`], [`level_dice`], the constants of
//! [`crate::attack`]) — and a legend of every symbol and the dice notation the narration
//! ([`crate::narrate`]) and the prompts print. Every shell shows it:
//! `facedown inciting-incident rules`, `?` at a prompt.

use table::reference::{legend, section};

use crate::attack::{
    AUTOMATIC, DECISIVE_CRISIS, LEAVE_DUEL_CRISIS, MIN_FLOW, MOVE_CRISIS, REGULAR_SUCCESS_CRISIS,
};
use crate::character::DefenceKind;
use crate::dice::{MAX_LEVEL, TARGET, level_dice};

/// The quick reference: [`IncitingIncident::quick_reference`](crate::IncitingIncident).
pub fn quick_reference() -> String {
    let mut s = String::from("INCITING INCIDENT: QUICK REFERENCE\n\n");
    s.push_str(&section("ONE ROUND", &round_steps()));
    s.push_str(&section("ATTACKS AND CRISIS", &attacks()));
    s.push_str(&section("DEFENCES: Abilities rolled, Protection", &defences()));
    s.push_str(&section("LEVEL DICE", &dice_lines()));
    s.push_str(&section("WOUNDS", &wounds()));
    s.push_str(&section("DICE NOTATION (how the log writes a roll)", &notation()));
    s.push_str(&legend(&legend_entries()));
    s
}

fn round_steps() -> Vec<String> {
    [
        "1. Initiative: round 1 the side with the highest Nimbleness; later, the side that made the",
        "   least Crisis last round (a surprising side plays a whole round alone first).",
        "2. Declare: every character declares one action face down: Move, Regular Attack,",
        "   Decisive Attack, Advanced Action (or hold). All are revealed.",
        "3. Resolve: the initiative side resolves all its actions in the order it chooses, then the",
        "   other side. An action made impossible becomes the closest alternative, or is wasted.",
        "4. After each action: add its Crisis, fire Crisis Triggers, check hits.",
        "Everyone in one Region fights in one Duel with one Flow of Battle, counted from the",
        "  players' side: positive = the players are winning.",
    ]
    .map(str::to_owned)
    .to_vec()
}

fn attacks() -> Vec<String> {
    vec![
        format!(
            "Move: up to 3 adjacent Regions, Crisis +{MOVE_CRISIS} each, +{LEAVE_DUEL_CRISIS} for leaving a Duel."
        ),
        format!("Regular Attack, automatic: Flow +{AUTOMATIC} toward the attacker, Crisis +{AUTOMATIC}."),
        format!(
            "Regular Attack, Talent Roll: Talent dice + the defence's RD in d6; {TARGET} or more moves Flow"
        ),
        format!(
            "  by the excess over {TARGET} (at least {MIN_FLOW}), Crisis +{REGULAR_SUCCESS_CRISIS}; a failure adds {TARGET} - result to Crisis."
        ),
        "Decisive Attack: Talent dice + RD d6 against the defence roll (Ability dice + Protection)"
            .to_owned(),
        "  + RV - the attacker's Flow. A hit deals 1 + one more per further RV of excess; then the"
            .to_owned(),
        format!("  Flow moves RV/2 against the attacker. Crisis +{DECISIVE_CRISIS}, hit or miss."),
        "Ranged: adjacent Regions in sight; a Decisive Attack uses RV - Talent level instead of Flow."
            .to_owned(),
        "Minions: one hit each; attack as one block when Crisis triggers them.".to_owned(),
    ]
}

fn defences() -> Vec<String> {
    DefenceKind::ALL
        .iter()
        .map(|d| {
            let [a, b] = d.abilities();
            format!("{}: {} or {}; Protection: {}", d.name(), a.name(), b.name(), d.protection_name())
        })
        .chain(["Each has a Resistance Value (RV) and a Resistance Difficulty (RD).".to_owned()])
        .collect()
}

fn dice_lines() -> Vec<String> {
    let levels: Vec<String> = (1..=MAX_LEVEL)
        .map(|l| {
            let (n, sides) = level_dice(l);
            format!("{l}: {n}d{sides}")
        })
        .collect();
    vec![levels.join("  "), format!("A roll succeeds at {TARGET} or more; a level-0 Talent rolls nothing.")]
}

fn wounds() -> Vec<String> {
    [
        "Hits up to Max Hits Taken: Incapacitated. Roll to keep fighting (one hit removed; a failed",
        "  roll means death before the next scene) or stay down and survive.",
        "Rest Scene: a roll each, success removes one hit; a whole day of rest removes all.",
        "Non-violent conflicts count Strikes per side: each hit removes one; none left loses.",
    ]
    .map(str::to_owned)
    .to_vec()
}

/// How the log writes a roll: each die as `d<sides>:<value>`, then the total.
fn notation() -> Vec<String> {
    [
        "d6:4            a six-sided die that rolled 4 (dice: d4 d6 d8 d10 d12)",
        "(d6:2 dropped)  rolled for Advantage or Disadvantage, not counted",
        "−d6:3           subtracted from the total (a Disadvantage rule)",
        "+2              a modifier added to the roll",
        "= 17            the roll's total",
        "[2 Advantage]   the net Advantage (or Disadvantage) of the roll",
        "2d8             two eight-sided dice (the level dice)",
        "Flow +4         the Flow of Battle: + the players are winning, - the enemies",
    ]
    .map(str::to_owned)
    .to_vec()
}

/// Every symbol narration and prompts print, with its meaning, one a line: the defences and
/// the game's abbreviations, and the marks of the log.
fn legend_entries() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = DefenceKind::ALL
        .iter()
        .map(|d| {
            let [a, b] = d.abilities();
            (
                d.name().to_owned(),
                format!("a defence ({} + {}; Protection {})", a.name(), b.name(), d.protection_name()),
            )
        })
        .collect();
    out.extend(
        [
            ("RV", "Resistance Value: what a Decisive Attack must get past"),
            ("RD", "Resistance Difficulty: d6 the attacker adds to its roll"),
            ("Flow", "the Flow of Battle of a Duel (+ the players are winning)"),
            ("Crisis", "the scene's pressure: every action adds to it; Triggers fire at thresholds"),
            ("−", "a die subtracted from a roll's total (−d6:3)"),
            ("→", "goes to: a move's path (Shallows → Bank); a number's new value (Crisis +2 → 9)"),
            ("—", "sets off a remark: the winner of the scene, a failed keep-fighting roll"),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned())),
    );
    out
}
