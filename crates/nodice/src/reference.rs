//! The quick reference for players (issue 14 part 8; rules reference §3–§6 and the seed's
//! Steps): the steps of a Hand in brief, the Showdown Total, the Aspects and Attributes with
//! their Dominance — built from the crate's own tables ([`Aspect`], [`Attribute`],
//! [`trine_dominance`], [`attribute_dominance`], [`Stakes`]) — and a legend of every symbol
//! the narration ([`crate::narrate`]) and the prompts ([`crate::prompt`]) print. Every shell
//! shows it: `facedown nodice rules`, `?` at a prompt.

use table::reference::{legend, section};

use crate::stakes::Stakes;
use crate::trine::{Aspect, Attribute, Dominance, attribute_dominance, trine_dominance};

/// The quick reference: [`NoDice::quick_reference`](crate::NoDice).
pub fn quick_reference() -> String {
    let mut s = String::from("NO DICE: QUICK REFERENCE\n\n");
    s.push_str(&section("ONE HAND", &hand_steps()));
    s.push_str(&section("SHOWDOWN", &showdown()));
    s.push_str(&section("ASPECTS AND ATTRIBUTES", &trine_lines()));
    s.push_str(&section("STAKES: chips to ante, and the size of the bonuses", &stakes_lines()));
    s.push_str(&legend(&legend_entries()));
    s
}

fn hand_steps() -> Vec<String> {
    [
        "1. Engagement: the GM says who interacts this Hand (a brawl may be split into clusters).",
        "   UTG (Under-the-Gun) commits first.",
        "2. Commit Aspect: each Actor antes Stakes chips from one Attribute (which fixes its Aspect",
        "   card, face down) and names its target(s). All reveal. Trine Dominance (TD) pairwise:",
        "   the most TD wins take the pot, token by token; nobody wins: the pot becomes the Jackpot.",
        "3. Commit Action: each plays an Attribute card of its Aspect and bids face down, at most",
        "   its Trine Score (TS) and the chips in the stack; a Wildcard adds 1 (one a Hand). All reveal.",
        "4. Resolve: Attribute Dominance (AD) pairwise; lower bids strike first (Action Priority).",
        "5. Damage is of the attacker's Aspect; the one hit spreads it over that Aspect's Attributes.",
        "   Every Attribute of an Aspect at 0, or unable to ante: eliminated.",
        "6. Bids return to the stacks; damage stays. Next UTG: the most Dominance wins (TD + AD);",
        "   a tie keeps UTG where it is; if the one with the most is out, the most among those",
        "   still in (a tie among them: UTG stays if it is one of them, else the first of them).",
    ]
    .map(str::to_owned)
    .to_vec()
}

fn showdown() -> Vec<String> {
    [
        "Showdown Total = Bid + Wildcard + Stakes if TD won + Stakes if AD won + Sweep bonus.",
        "Sweep: winning both TD and AD against that opponent (bonus = Stakes).",
        "A strike deals its total minus the target's total (nothing if not more). Of two Actors",
        "  targeting each other, the lower bidder strikes first with its whole total, unopposed.",
    ]
    .map(str::to_owned)
    .to_vec()
}

fn beats(wins: impl Iterator<Item = String>) -> String {
    let wins: Vec<String> = wins.collect();
    wins.join(", ")
}

fn trine_lines() -> Vec<String> {
    let mut lines: Vec<String> = Aspect::ALL
        .iter()
        .map(|&a| {
            let attrs: Vec<String> =
                a.attributes().iter().map(|x| format!("{} {}", x.abbrev(), x.name())).collect();
            let beaten = beats(
                Aspect::ALL
                    .iter()
                    .filter(|&&b| trine_dominance(a, b) == Dominance::Win)
                    .map(|b| b.to_string()),
            );
            format!("{} {}: {}; beats {beaten}", a.letter(), a.name(), attrs.join(", "))
        })
        .collect();
    lines.push("Attribute Dominance, each beats:".to_owned());
    for a in Aspect::ALL {
        let parts: Vec<String> = a
            .attributes()
            .iter()
            .map(|&x| {
                let beaten = beats(
                    Attribute::ALL
                        .iter()
                        .filter(|&&y| attribute_dominance(x, y) == Dominance::Win)
                        .map(|y| y.abbrev().to_owned()),
                );
                format!("{} > {beaten}", x.abbrev())
            })
            .collect();
        lines.push(format!("  {}", parts.join("   ")));
    }
    lines.push("Any other pair of Attributes ties.".to_owned());
    lines
}

fn stakes_lines() -> Vec<String> {
    let names: Vec<String> = (1..=5).filter_map(|v| Stakes::new(v).ok()).map(|s| s.to_string()).collect();
    vec![names.join(", ")]
}

/// Every symbol narration and prompts print, with its meaning, one a line: the Aspects and
/// Attributes, the game's abbreviations, and the marks of the log.
fn legend_entries() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> =
        Aspect::ALL.iter().map(|a| (a.letter().to_string(), format!("{a} (an Aspect)"))).collect();
    out.extend(
        Attribute::ALL
            .iter()
            .map(|x| (x.abbrev().to_owned(), format!("{} ({} Attribute)", x.name(), x.aspect()))),
    );
    out.extend(
        [
            ("TD", "Trine Dominance: Aspect against Aspect"),
            ("AD", "Attribute Dominance: Attribute against Attribute"),
            ("TS", "Trine Score: an Aspect's bid cap"),
            ("UTG", "Under-the-Gun: commits first"),
            ("→", "strikes, or targets (Kara → Bandit); in an adjustment, from → to"),
            ("−", "chips lost to damage (STR −2)"),
            ("–", "between two Showdown Totals (8 – 3)"),
            ("—", "separates the parts of a heading or a question"),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned())),
    );
    out
}
