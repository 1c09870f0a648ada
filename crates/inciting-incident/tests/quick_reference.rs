//! The quick reference (issue 14 part 8): its legend explains every symbol the narration and
//! the prompts can print — gathered from random games of the example scenes through
//! `table::Table` (every viewer's narration, every awaited seat's prompt), from the crate's
//! tables and from the string literals of `narrate.rs` and `prompt.rs`.

use std::collections::BTreeSet;

use inciting_incident::dice::level_dice;
use inciting_incident::{DefenceKind, IncitingIncident, Scene, Setup};
use table::Ruleset;
use table::reference::{LEGEND_HEADING, unexplained};
use table::testing::{string_literals, texts_of_random_play};

fn setups() -> Vec<Setup> {
    [
        include_str!("../../../examples/inciting-incident/river-fight.toml"),
        include_str!("../../../examples/inciting-incident/cover-up.toml"),
        include_str!("../../../examples/inciting-incident/three-factions.toml"),
    ]
    .iter()
    .map(|text| {
        let mut setup: Setup = toml::from_str(text).expect("an example scene");
        setup.apply_round_limit(Some(8));
        setup
    })
    .collect()
}

/// Every name of the crate's tables: defences, Abilities, Protection, level dice.
fn table_symbols() -> String {
    let mut s = String::new();
    for d in DefenceKind::ALL {
        let [a, b] = d.abilities();
        s.push_str(&format!("{} {} {} {} ", d.name(), a.name(), b.name(), d.protection_name()));
    }
    for l in 0..=9 {
        let (n, sides) = level_dice(l);
        s.push_str(&format!("{n}d{sides} "));
    }
    s
}

/// Everything narration and prompts can print: random games of the example scenes, the
/// tables and the literals of the narration and prompt modules.
fn printed() -> String {
    let mut text = String::new();
    for setup in setups() {
        for seed in 0..6 {
            let state = Scene::new(setup.clone()).expect("a valid scene");
            for t in texts_of_random_play::<IncitingIncident>(state, seed, 400) {
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
    let reference = IncitingIncident::quick_reference();
    let text = printed();
    for said in [
        "== Round 2",
        "Declarations revealed:",
        "Talent Roll",
        "defence roll",
        "Crisis +",
        " → ",
        "Flow of Battle in",
    ] {
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
    let reference = IncitingIncident::quick_reference();
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
    // − and →: the narration and the prompts cite no section (§) any more (issue 34).
    assert!(checked >= 2, "the legend explains the log's marks: {checked}");
}

#[test]
fn quick_reference_gives_the_round_the_attacks_the_defences_and_the_dice() {
    let r = IncitingIncident::quick_reference();
    for needle in [
        "ONE ROUND",
        "Decisive Attack",
        "Resilience: Fortitude or Nimbleness; Protection: Armour",
        "Resolve: Fortitude or Perseverance; Protection: Determination",
        "Reactions: Perseverance or Nimbleness; Protection: Confidence",
        "5: 2d6",
        "d6:4",
        LEGEND_HEADING,
    ] {
        assert!(r.contains(needle), "{needle:?} missing from\n{r}");
    }
}

/// Words a player knows (issue 34): no prompt and no narration a player sees cites a section of
/// the rules reference (`§5 step 5`), a file players do not have.
#[test]
fn no_prompt_or_narration_cites_a_section_of_the_rules_reference() {
    for setup in setups() {
        for seed in 0..4 {
            let state = Scene::new(setup.clone()).expect("a valid scene");
            for t in texts_of_random_play::<IncitingIncident>(state, seed, 300) {
                assert!(!t.contains('§'), "a player reads {t:?}");
            }
        }
    }
}
