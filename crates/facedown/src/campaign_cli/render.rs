//! Character sheets as text and as a printable HTML page, and the other readable output of
//! `facedown campaign`.

use std::fmt::Write as _;

use campaign::stage_words;

use crate::input::escape;
use iron_triangle::campaign::{Countdown, Problem, Sheet};
use iron_triangle::special::Edition;
use iron_triangle::{Action, Character};

/// A copy of `c` for text output: its name, style, description and move names with control
/// characters escaped (they come from files and the command line).
fn shown_character(c: &Character) -> Character {
    let e = |t: &str| escape(t).into_owned();
    let mut c = c.clone();
    c.name = e(&c.name);
    c.fighting_style = e(&c.fighting_style);
    c.description = e(&c.description);
    for m in &mut c.moves {
        m.name = e(&m.name);
    }
    c
}

/// A copy of `s` for text output, every free text escaped like [`shown_character`].
fn shown_sheet(s: &Sheet) -> Sheet {
    let e = |t: &str| escape(t).into_owned();
    let mut s = s.clone();
    s.character = shown_character(&s.character);
    s.goal = e(&s.goal);
    s.belief = e(&s.belief);
    s.flaw = e(&s.flaw);
    s.image = e(&s.image);
    for b in &mut s.backgrounds {
        b.name = e(&b.name);
    }
    s
}

fn mark(b: bool) -> &'static str {
    if b { "[x]" } else { "[ ]" }
}

fn moves_lines(c: &Character) -> Vec<String> {
    c.moves
        .iter()
        .map(|m| format!("{} {} (base {}, ×{})", m.card, m.name, m.card.base(), m.card.multiplier()))
        .collect()
}

fn combo_lines(c: &Character) -> Vec<String> {
    c.combos
        .iter()
        .map(|k| {
            let ups: Vec<String> = k.follow_ups.iter().map(|&m| format!("{m} {}", c.move_name(m))).collect();
            format!("{} {} → {}", k.from, c.move_name(k.from), ups.join(" or "))
        })
        .collect()
}

fn special_lines(c: &Character, edition: Edition) -> Vec<String> {
    c.specials
        .iter()
        .map(|&sp| {
            let used = c.specials_used.contains(&sp);
            format!("{}{}", sp.name(edition), if used { " (used until the next full rest)" } else { "" })
        })
        .collect()
}

/// The three level-up questions with their marks.
pub fn questions(s: &Sheet) -> String {
    let q = s.questions();
    format!(
        "{} belief or flaw played  {} goal accomplished  {} zero energy in a conflict",
        mark(q[0]),
        mark(q[1]),
        mark(q[2])
    )
}

/// A character sheet as text.
pub fn sheet_text(s: &Sheet, edition: Edition) -> String {
    let s = &shown_sheet(s);
    let c = &s.character;
    let mut o = String::new();
    let status = if c.dead {
        " — DEAD"
    } else if c.sits_out_next_conflict {
        " — sits out the next conflict"
    } else {
        ""
    };
    let _ = writeln!(o, "{} — level {}{status}", c.name, c.level);
    if !c.fighting_style.is_empty() {
        let _ = writeln!(o, "Fighting style: {}", c.fighting_style);
    }
    if !c.description.is_empty() {
        let _ = writeln!(o, "Description: {}", c.description);
    }
    if !s.image.is_empty() {
        let _ = writeln!(o, "Picture: {}", s.image);
    }
    let cur = s.current();
    let _ = writeln!(
        o,
        "Energy (current/maximum): ○ {}/{}  ▨ {}/{}  ◆ {}/{}",
        cur.defend, c.energy.defend, cur.grapple, c.energy.grapple, cur.attack, c.energy.attack
    );
    let zero: Vec<String> = Action::ALL
        .iter()
        .filter(|a| s.zero_marks[a.index()])
        .map(|a| format!("{} {}", a.symbol(), a.name()))
        .collect();
    if !zero.is_empty() {
        let _ = writeln!(o, "Zero-energy marks: {}", zero.join(", "));
    }
    let _ = writeln!(o, "Goal: {}{}", s.goal, if s.goal_achieved { " [accomplished]" } else { "" });
    let _ = writeln!(o, "Belief: {}{}", s.belief, if s.belief_marked { " [marked]" } else { "" });
    let _ = writeln!(o, "Flaw: {}{}", s.flaw, if s.flaw_marked { " [marked]" } else { "" });
    let _ = writeln!(o, "Veto: {}", if s.veto_used { "used" } else { "available" });
    if s.backgrounds.is_empty() {
        let _ = writeln!(o, "Backgrounds: none yet (3 points to fill in during play)");
    } else {
        let bg: Vec<String> =
            s.backgrounds.iter().map(|b| format!("{} {}/{}", b.name, b.left(), b.points)).collect();
        let _ = writeln!(o, "Backgrounds (left/points): {}", bg.join(", "));
    }
    let _ = writeln!(o, "Moves:");
    for l in moves_lines(c) {
        let _ = writeln!(o, "  {l}");
    }
    let combos = combo_lines(c);
    if !combos.is_empty() {
        let _ = writeln!(o, "Combos:");
        for l in combos {
            let _ = writeln!(o, "  {l}");
        }
    }
    let specials = special_lines(c, edition);
    if !specials.is_empty() {
        let _ = writeln!(o, "Specials:");
        for l in specials {
            let _ = writeln!(o, "  {l}");
        }
    }
    let _ = writeln!(o, "Level up: {}", questions(s));
    let mut rests = Vec::new();
    if s.breather_taken {
        rests.push("breather");
    }
    if s.short_rest_taken {
        rests.push("short rest");
    }
    if !rests.is_empty() {
        let _ = writeln!(o, "Taken since the last full rest: {}", rests.join(", "));
    }
    o
}

/// An NPC sheet as text.
pub fn npc_text(c: &Character, edition: Edition) -> String {
    let c = &shown_character(c);
    let mut o = String::new();
    let _ = writeln!(o, "{} (NPC) — level {}", c.name, c.level);
    if !c.fighting_style.is_empty() {
        let _ = writeln!(o, "Fighting style: {}", c.fighting_style);
    }
    let _ = writeln!(o, "Energy: {}", c.energy);
    let _ = writeln!(o, "Moves:");
    for l in moves_lines(c) {
        let _ = writeln!(o, "  {l}");
    }
    for l in combo_lines(c) {
        let _ = writeln!(o, "Combo: {l}");
    }
    for l in special_lines(c, edition) {
        let _ = writeln!(o, "Special: {l}");
    }
    o
}

/// Escapes text for HTML.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// A character sheet as a self-contained printable HTML page.
pub fn sheet_html(s: &Sheet, edition: Edition) -> String {
    let c = &s.character;
    let cur = s.current();
    let box_row = |label: &str, max: u8, cur: u8, zero: bool| {
        let boxes: String = (0..max).map(|i| if i < cur { "■" } else { "□" }).collect();
        format!(
            "<tr><th>{}</th><td class=\"boxes\">{boxes}</td><td>{cur}/{max}</td><td>{}</td></tr>",
            esc(label),
            if zero { "zero ✓" } else { "" }
        )
    };
    let list = |items: Vec<String>| -> String {
        if items.is_empty() {
            "<p class=\"none\">—</p>".into()
        } else {
            format!("<ul>{}</ul>", items.iter().map(|i| format!("<li>{}</li>", esc(i))).collect::<String>())
        }
    };
    let check = |b: bool| if b { "☑" } else { "☐" };
    let q = s.questions();
    let backgrounds: Vec<String> = s
        .backgrounds
        .iter()
        .map(|b| format!("{} — {} of {} points left", b.name, b.left(), b.points))
        .collect();
    let picture = if s.image.is_empty() {
        "<div class=\"picture\">picture</div>".to_owned()
    } else {
        format!("<img class=\"picture\" src=\"{}\" alt=\"{}\">", esc(&s.image), esc(&c.name))
    };
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{name} — Iron Triangle character sheet</title>
<style>
  body {{ font-family: Georgia, serif; max-width: 48rem; margin: 1.5rem auto; color: #111; }}
  h1 {{ margin-bottom: 0; }} .sub {{ margin-top: 0.2rem; color: #444; }}
  .grid {{ display: grid; grid-template-columns: 1fr 1fr; gap: 0.5rem 2rem; }}
  section {{ border-top: 2px solid #111; margin-top: 1rem; padding-top: 0.3rem; }}
  table {{ border-collapse: collapse; }} th, td {{ padding: 0.15rem 0.6rem; text-align: left; }}
  .boxes {{ letter-spacing: 0.15rem; font-size: 1.2rem; }}
  .picture {{ float: right; width: 10rem; height: 12rem; border: 1px solid #999; object-fit: cover;
             display: flex; align-items: center; justify-content: center; color: #999; }}
  .none {{ color: #888; }} .dead {{ color: #a00; font-weight: bold; }}
  @media print {{ body {{ margin: 0; }} }}
</style>
</head>
<body>
{picture}
<h1>{name}</h1>
<p class="sub">Level {level} · {style}{dead}</p>
<p>{description}</p>
<section><h2>Energy</h2>
<table>
{defend}
{grapple}
{attack}
</table></section>
<section class="grid">
<div><h3>Goal {goal_mark}</h3><p>{goal}</p></div>
<div><h3>Veto {veto_mark}</h3><p>{veto}</p></div>
<div><h3>Belief {belief_mark}</h3><p>{belief}</p></div>
<div><h3>Flaw {flaw_mark}</h3><p>{flaw}</p></div>
</section>
<section><h2>Backgrounds</h2>{backgrounds}</section>
<section><h2>Moves</h2>{moves}</section>
<section><h2>Combos</h2>{combos}</section>
<section><h2>Specials</h2>{specials}</section>
<section><h2>Level up</h2>
<p>{q1} belief or flaw played in a problem · {q2} goal accomplished · {q3} zero energy in a conflict</p>
</section>
</body>
</html>
"#,
        name = esc(&c.name),
        level = c.level,
        style = esc(&c.fighting_style),
        dead = if c.dead { " · <span class=\"dead\">dead</span>" } else { "" },
        description = esc(&c.description),
        picture = picture,
        defend = box_row("○ Defend", c.energy.defend, cur.defend, s.zero_marks[0]),
        grapple = box_row("▨ Grapple", c.energy.grapple, cur.grapple, s.zero_marks[1]),
        attack = box_row("◆ Attack", c.energy.attack, cur.attack, s.zero_marks[2]),
        goal = esc(&s.goal),
        goal_mark = check(s.goal_achieved),
        belief = esc(&s.belief),
        belief_mark = check(s.belief_marked),
        flaw = esc(&s.flaw),
        flaw_mark = check(s.flaw_marked),
        veto = if s.veto_used { "used" } else { "available" },
        veto_mark = check(s.veto_used),
        backgrounds = list(backgrounds),
        moves = list(moves_lines(c)),
        combos = list(combo_lines(c)),
        specials = list(special_lines(c, edition)),
        q1 = check(q[0]),
        q2 = check(q[1]),
        q3 = check(q[2]),
    )
}

/// A problem as everyone may see it.
pub fn problem_text(p: &Problem) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Problem {}: {}", p.id, escape(&p.description));
    let v = p.view();
    for e in &v.entries {
        let what = match (&e.choice, e.chosen) {
            (Some(c), _) => format!(
                "{} — {}{}{}",
                c.option.number(),
                c.option.describe(),
                c.mark.map(|m| format!(", playing the {m:?}").to_lowercase()).unwrap_or_default(),
                c.background.as_ref().map(|b| format!(", from {}", escape(b))).unwrap_or_default()
            ),
            (None, true) => "has chosen (face down)".into(),
            (None, false) => "has not chosen".into(),
        };
        let _ = writeln!(o, "  {}: {what}", escape(&e.character));
    }
    let _ = writeln!(o, "  → {}", stage_words(p));
    o
}

/// A countdown line.
pub fn countdown_text(c: &Countdown) -> String {
    format!(
        "{} {} {}/{}{}",
        c.boxes_drawn(),
        escape(&c.name),
        c.marked,
        c.boxes,
        if c.is_complete() {
            " — complete: the GM narrates the consequence (never a PC's death)"
        } else {
            ""
        }
    )
}

/// What a settled problem costs a character, in words.
pub fn cost_text(cost: &iron_triangle::campaign::problem::Cost) -> String {
    use iron_triangle::campaign::problem::Cost;
    match cost {
        Cost::BackgroundPoint(Some(b)) => format!("a background point from {b}"),
        Cost::BackgroundPoint(None) => "a background point".into(),
        Cost::Mark(m) => format!("marks the {} (and the level-up question)", format!("{m:?}").to_lowercase()),
        Cost::Veto => "marks the veto".into(),
    }
}
