//! The quick reference (issue 14 part 8): its legend explains every symbol the narration and
//! the prompts can print — gathered from random games through `table::Table` (every viewer's
//! narration, every awaited seat's prompt), from the crate's tables and from the string
//! literals of `narrate.rs` and `prompt.rs`.

mod common;

use std::collections::BTreeSet;

use common::*;
use nodice::{ActorId, Aspect, Attribute, Conflict, DamageAbility, Ext, NoDice, Setup, Stakes};
use table::Ruleset;
use table::reference::{LEGEND_HEADING, unexplained};
use table::testing::{string_literals, texts_of_random_play};

fn setups() -> Vec<Setup> {
    let mut damage = kara_vs_bandit();
    damage.extensions =
        vec![Ext::DamageAbility(DamageAbility { actor: ActorId(0), points: 2, aspect: Some(Aspect::Body) })];
    vec![kara_vs_bandit(), damage, brawl(1), brawl(2)]
}

/// Every name of the crate's tables: Aspects, Attributes, Stakes.
fn table_symbols() -> String {
    let mut s = String::new();
    for a in Aspect::ALL {
        s.push_str(&format!("{a} {} ", a.letter()));
    }
    for x in Attribute::ALL {
        s.push_str(&format!("{x} {} {} ", x.abbrev(), x.name()));
    }
    for v in 1..=5 {
        s.push_str(&Stakes::new(v).unwrap().to_string());
    }
    s
}

/// Everything narration and prompts can print: random games of every setup, the tables and
/// the literals of the narration and prompt modules.
fn printed() -> String {
    let mut text = String::new();
    for setup in setups() {
        for seed in 0..10 {
            let state = Conflict::new(setup.clone()).expect("a valid setup");
            for t in texts_of_random_play::<NoDice>(state, seed, 300) {
                text.push_str(&t);
                text.push('\n');
            }
        }
    }
    text.push_str(&table_symbols());
    text.push_str(&string_literals(include_str!("../src/narrate.rs")));
    text.push_str(&string_literals(include_str!("../src/prompt.rs")));
    text
}

#[test]
fn quick_reference_legend_explains_every_symbol_narration_and_prompts_print() {
    let reference = NoDice::quick_reference();
    let text = printed();
    for said in ["=== Hand 2 — Stakes", "Showdown Totals", " → ", " damage", "takes it: ", "Pot: "] {
        assert!(text.contains(said), "the random games never printed {said:?}");
    }
    let missing = unexplained(&reference, &text);
    assert!(
        missing.is_empty(),
        "symbols printed but not in the quick reference's legend: {missing:?}\n{reference}"
    );
}

#[test]
fn quick_reference_legend_check_fails_without_any_one_legend_line() {
    let reference = NoDice::quick_reference();
    let text = printed();
    let printed: BTreeSet<char> = text.chars().filter(|c| !c.is_ascii()).collect();
    let lines: Vec<&str> = reference.lines().collect();
    let start = lines.iter().position(|l| l.trim() == LEGEND_HEADING).expect("a legend");
    let mut checked = 0;
    for (i, line) in lines.iter().enumerate().skip(start + 1).take_while(|(_, l)| !l.trim().is_empty()) {
        let key = line.split_whitespace().next().unwrap_or("");
        if !key.chars().any(|c| printed.contains(&c)) {
            continue;
        }
        let without: Vec<&str> = lines.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, l)| *l).collect();
        assert!(!unexplained(&without.join("\n"), &text).is_empty(), "removing {line:?} goes unnoticed");
        checked += 1;
    }
    assert!(checked >= 4, "the legend explains the log's marks: {checked}");
}

#[test]
fn quick_reference_gives_the_hand_the_showdown_the_aspects_and_attributes() {
    let r = NoDice::quick_reference();
    for needle in [
        "ONE HAND",
        "Showdown Total = Bid",
        "M Mind: REA Reason, KNO Knowledge, QUI Quickness; beats Body",
        "REA > KNO",
        "1 (Low Stakes)",
        LEGEND_HEADING,
    ] {
        assert!(r.contains(needle), "{needle:?} missing from\n{r}");
    }
    for x in Attribute::ALL {
        assert!(r.contains(&format!("{} ", x.abbrev())) && r.contains(x.name()), "{x}");
    }
}
