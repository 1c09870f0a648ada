//! The quick reference (issue 14 part 8): its legend explains every symbol the narration and
//! the prompts can print — gathered from random games through `table::Table` (every viewer's
//! narration, every awaited seat's prompt), from the crate's symbol tables and from the string
//! literals of `narrate.rs` and `prompt.rs`.

mod common;

use std::collections::BTreeSet;

use common::*;
use iron_triangle::special::{Edition, Special};
use iron_triangle::{Action, Conflict, Element, Energy, IronTriangle, Move, Setup, Stance};
use table::Ruleset;
use table::reference::{LEGEND_HEADING, unexplained};
use table::testing::{string_literals, texts_of_random_play};

/// A level-10 sheet knowing all thirteen moves, some combos and every special of `edition`
/// (the Way of the Samurai only for a player character).
fn master(name: &str, pc: bool, edition: Edition) -> iron_triangle::Character {
    let all: Vec<String> = Move::ALL.iter().map(|m| m.to_string()).collect();
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let mut c = sheet(name, 10, en(5, 5, 6), &refs, &[("▨☷", &["◆☲", "◆☰"]), ("◆☲", &["▨☯", "○☵"])]);
    c.specials = Special::all()
        .into_iter()
        .filter(|s| s.in_edition(edition) && (pc || *s != Special::WayOfTheSamurai))
        .collect();
    c
}

fn setups() -> Vec<Setup> {
    let mut out = vec![
        Setup::one_on_one(
            iron_triangle::Character::with_starting_moves("Ada", Energy::new(3, 2, 5)),
            iron_triangle::Character::with_starting_moves("Ninja", Energy::new(4, 3, 3)),
        ),
        Build::new().minor().pc("ada", pc("Ada", en(3, 3, 4))).npc(npc_all("Oni", en(4, 3, 3))).setup(),
    ];
    for edition in [Edition::Current, Edition::Earlier] {
        let mut s = Build::new()
            .lethal()
            .pc("ren", master("Ren", true, edition))
            .pc("mika", master("Mika", true, edition))
            .npc(master("Oni", false, edition))
            .npc(master("Bandit", false, edition))
            .setup();
        s.edition = edition;
        out.push(s);
    }
    out
}

/// Every symbol of the crate's tables: actions, elements, moves, energy, stances, specials.
fn table_symbols() -> String {
    let mut s = String::new();
    for a in Action::ALL {
        s.push_str(&format!("{a} {} {}", Stance::new(a, 2), a.symbol()));
    }
    for e in Element::ALL {
        s.push_str(&format!("{e} {}", e.symbol()));
    }
    for m in Move::ALL {
        s.push_str(&format!("{m} "));
    }
    s.push_str(&Energy::new(1, 2, 3).to_string());
    for sp in Special::all() {
        s.push_str(&sp.name(Edition::Current));
        s.push_str(&sp.name(Edition::Earlier));
    }
    s
}

/// Everything narration and prompts can print: random games of every setup, the symbol
/// tables and the literals of the narration and prompt modules.
fn printed() -> String {
    let mut text = String::new();
    for setup in setups() {
        for seed in 0..12 {
            let state = Conflict::new(setup.clone()).expect("a valid setup");
            text.extend(
                texts_of_random_play::<IronTriangle>(state, seed, 600)
                    .into_iter()
                    .flat_map(|t| [t, "\n".into()]),
            );
        }
    }
    text.push_str(&table_symbols());
    text.push_str(&string_literals(include_str!("../src/narrate.rs")));
    text.push_str(&string_literals(include_str!("../src/prompt.rs")));
    text
}

#[test]
fn quick_reference_legend_explains_every_symbol_narration_and_prompts_print() {
    let reference = IronTriangle::quick_reference();
    let text = printed();
    // § no longer: the narration and the prompts cite no section (issue 34)
    for symbol in ['○', '▨', '◆', '☷', '☵', '☲', '☰', '☯'] {
        assert!(text.contains(symbol), "the games printed no {symbol}: the check would miss it");
    }
    for said in [
        "play a special face down",
        "has chosen (",
        "face down in the",
        "window closes",
        "wins the turn with",
        "takes the loss",
        "Tie:",
        "is out of the conflict",
    ] {
        assert!(text.contains(said), "the random games never reached {said:?}");
    }
    let missing = unexplained(&reference, &text);
    assert!(
        missing.is_empty(),
        "symbols printed but not in the quick reference's legend: {missing:?}\n{reference}"
    );
}

#[test]
fn quick_reference_legend_check_fails_without_any_one_legend_line() {
    let reference = IronTriangle::quick_reference();
    let text = printed();
    let printed: BTreeSet<char> = text.chars().filter(|c| !c.is_ascii()).collect();
    let legend_start = reference.lines().position(|l| l.trim() == LEGEND_HEADING).expect("a legend");
    let lines: Vec<&str> = reference.lines().collect();
    let mut checked = 0;
    for (i, line) in lines.iter().enumerate().skip(legend_start + 1).take_while(|(_, l)| !l.trim().is_empty())
    {
        let key = line.split_whitespace().next().unwrap_or("");
        if !key.chars().any(|c| printed.contains(&c)) {
            continue;
        }
        let without: Vec<&str> = lines.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, l)| *l).collect();
        assert!(!unexplained(&without.join("\n"), &text).is_empty(), "removing {line:?} goes unnoticed");
        checked += 1;
    }
    assert!(checked >= 8, "the legend explains the actions and the elements");
}

#[test]
fn quick_reference_gives_the_turn_the_rankings_the_moves_and_the_specials() {
    let r = IronTriangle::quick_reference();
    for needle in [
        "ONE TURN",
        "Stance",
        "○ Defend beats ◆ Attack",
        "☷ Earth (Low) beats ☲ Fire, ☯ Spin",
        "▨☯ 4 ×4",
        "Dig Two Graves",
        LEGEND_HEADING,
    ] {
        assert!(r.contains(needle), "{needle:?} missing from\n{r}");
    }
    for m in Move::ALL {
        assert!(r.contains(&format!("{m} {} ×{}", m.base(), m.multiplier())), "{m}");
    }
}

/// Words a player knows (issue 34): no prompt and no narration a player sees cites a section of
/// the rules reference (`§5.2 step 2`), a file players do not have.
#[test]
fn no_prompt_or_narration_cites_a_section_of_the_rules_reference() {
    for setup in setups() {
        for seed in 0..4 {
            let state = Conflict::new(setup.clone()).expect("a valid setup");
            for t in texts_of_random_play::<IronTriangle>(state, seed, 300) {
                assert!(!t.contains('§'), "a player reads {t:?}");
            }
        }
    }
}
