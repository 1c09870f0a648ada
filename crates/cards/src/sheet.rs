//! Character sheets for print (issue 34 §3), one per system, read from the sheet files the
//! CLI already reads (`examples/iron-triangle/characters/*.toml`, `examples/nodice/actors/*.toml`,
//! an Inciting Incident sheet or the characters of a scene file). Every number on a sheet is
//! the rules crate's (Trine Scores, Rank, the serial, level dice); nothing is computed here.

use inciting_incident::character::Ability;
use inciting_incident::dice::level_dice;
use inciting_incident::{DefenceKind, Sheet};
use iron_triangle::Character;
use iron_triangle::card::Action;
use nodice::sheets::ActorFile;
use nodice::{Aspect, Statblock};

use crate::print::{Section, SheetDoc};
use crate::{CardError, System, title_case};

fn input(what: &str, message: impl ToString) -> CardError {
    CardError::Input { what: what.to_owned(), message: message.to_string() }
}

/// The sheets in a sheet file of `system` (`what` names the file in errors). An Inciting
/// Incident scene file gives one sheet per character.
pub fn from_file(system: System, what: &str, text: &str) -> Result<Vec<SheetDoc>, CardError> {
    match system {
        System::IronTriangle => {
            let ch: Character = toml::from_str(text).map_err(|e| input(what, e))?;
            ch.validate(iron_triangle::Kind::Npc).map_err(|e| input(what, e))?;
            Ok(vec![iron_triangle_sheet(&ch)])
        }
        System::Nodice => {
            let file: ActorFile = toml::from_str(text).map_err(|e| input(what, e))?;
            let block: Statblock = file.serial.parse().map_err(|e| input(&format!("{what}: serial"), e))?;
            Ok(vec![nodice_sheet(&file, &block)])
        }
        System::IncitingIncident => {
            let value: toml::Table = toml::from_str(text).map_err(|e| input(what, e))?;
            let sheets: Vec<Sheet> = match value.get("characters") {
                Some(toml::Value::Array(chars)) => chars
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        let sheet = c
                            .get("sheet")
                            .ok_or_else(|| input(&format!("{what}: characters[{i}]"), "has no sheet"))?;
                        sheet
                            .clone()
                            .try_into::<Sheet>()
                            .map_err(|e| input(&format!("{what}: characters[{i}].sheet"), e))
                    })
                    .collect::<Result<_, _>>()?,
                _ => vec![toml::Value::Table(value).try_into::<Sheet>().map_err(|e| input(what, e))?],
            };
            if sheets.is_empty() {
                return Err(input(what, "the scene has no characters"));
            }
            Ok(sheets.iter().map(inciting_incident_sheet).collect())
        }
    }
}

fn row(label: &str, value: impl ToString) -> (String, String) {
    (label.to_owned(), value.to_string())
}

/// An Iron Triangle sheet (§4): energy, moves with base and multiplier, combos, specials.
pub fn iron_triangle_sheet(ch: &Character) -> SheetDoc {
    let mut about = vec![row("Level", ch.level)];
    if !ch.fighting_style.is_empty() {
        about.push(row("Fighting style", &ch.fighting_style));
    }
    if !ch.description.is_empty() {
        about.push(row("Description", &ch.description));
    }
    let current = ch.current_energy();
    let energy = Action::ALL
        .into_iter()
        .map(|a| {
            row(
                &format!("{} {}", a.symbol(), title_case(a.name())),
                format!("{} of {}", current.get(a), ch.energy.get(a)),
            )
        })
        .collect();
    let moves = ch
        .moves
        .iter()
        .map(|k| {
            let m = k.card;
            row(
                &format!("{}{}", m.action().symbol(), m.element().symbol()),
                format!("{} — base loss {}, stance ×{}", k.name, m.base(), m.multiplier()),
            )
        })
        .collect();
    let mut sections = vec![
        Section { heading: "Character".to_owned(), rows: about },
        Section { heading: "Energy (current of maximum)".to_owned(), rows: energy },
        Section { heading: "Moves".to_owned(), rows: moves },
    ];
    if !ch.combos.is_empty() {
        let rows = ch
            .combos
            .iter()
            .map(|c| {
                let then: Vec<String> = c.follow_ups.iter().map(|&m| ch.move_name(m)).collect();
                row(&ch.move_name(c.from), format!("then {}", then.join(" or ")))
            })
            .collect();
        sections.push(Section { heading: "Combos".to_owned(), rows });
    }
    if !ch.specials.is_empty() {
        let rows = ch
            .specials
            .iter()
            .map(|s| {
                let used = if ch.specials_used.contains(s) { " (used)" } else { "" };
                row("", format!("{}{used}", s.name(iron_triangle::special::Edition::Current)))
            })
            .collect();
        sections.push(Section { heading: "Specials".to_owned(), rows });
    }
    let mut status = Vec::new();
    if ch.dead {
        status.push(row("", "Dead"));
    }
    if ch.sits_out_next_conflict {
        status.push(row("", "Sits out the next conflict"));
    }
    if !status.is_empty() {
        sections.push(Section { heading: "Status".to_owned(), rows: status });
    }
    SheetDoc {
        system: System::IronTriangle,
        title: ch.name.clone(),
        subtitle: "Iron Triangle character".to_owned(),
        sections,
    }
}

/// An Iron Triangle campaign character's sheet (§4): the conflict sheet, then its goal,
/// belief, flaw, veto and backgrounds.
pub fn iron_triangle_campaign_sheet(sheet: &iron_triangle::campaign::Sheet) -> SheetDoc {
    let mut doc = iron_triangle_sheet(&sheet.character);
    let mark = |text: &str, marked: bool, word: &str| {
        if marked { format!("{text} ({word})") } else { text.to_owned() }
    };
    let mut rows = vec![
        row("Goal", mark(&sheet.goal, sheet.goal_achieved, "accomplished")),
        row("Belief", mark(&sheet.belief, sheet.belief_marked, "marked")),
        row("Flaw", mark(&sheet.flaw, sheet.flaw_marked, "marked")),
        row("Veto", if sheet.veto_used { "used" } else { "not used" }),
    ];
    for b in &sheet.backgrounds {
        rows.push(row(
            &format!("Background: {}", b.name),
            format!("{} of {} points left", b.left(), b.points),
        ));
    }
    doc.sections.insert(1, Section { heading: "Goal, belief, flaw".to_owned(), rows });
    doc.subtitle = "Iron Triangle campaign character".to_owned();
    doc
}

fn kind_words(kind: nodice::Kind) -> &'static str {
    match kind {
        nodice::Kind::Pc => "Player character",
        nodice::Kind::Npc => "Non-player character",
        nodice::Kind::Abstract => "Place or Thing",
    }
}

/// A No Dice sheet (§3): the serial and what it says — Rank, Wildcard Rank, Build Budget, each
/// Aspect's Trine Score and Attribute values.
pub fn nodice_sheet(file: &ActorFile, block: &Statblock) -> SheetDoc {
    let serial = block.serial_for(file.kind, file.wildcards.unwrap_or(0));
    let mut about = vec![
        row("Serial", &serial),
        row("Rank", block.rank()),
        row("Wildcard Rank", block.wildcard_rank()),
        row("Build Budget", block.build_budget()),
        row("Total Trine Score", block.total_trine_score()),
    ];
    if let Some(notes) = &file.notes {
        about.push(row("Notes", notes));
    }
    let mut aspects = Vec::new();
    for aspect in Aspect::ALL {
        let values: Vec<String> = aspect
            .attributes()
            .into_iter()
            .map(|a| format!("{} {}", a.name(), block.value(a).map_or("—".to_owned(), |v| v.to_string())))
            .collect();
        let ts = block.trine_score(aspect).map_or("—".to_owned(), |t| t.to_string());
        aspects.push(row(&format!("{} (TS {ts})", aspect.name()), values.join(", ")));
    }
    SheetDoc {
        system: System::Nodice,
        title: file.name.clone(),
        subtitle: format!("No Dice · {}", kind_words(file.kind)),
        sections: vec![
            Section { heading: "Stat block".to_owned(), rows: about },
            Section { heading: "Aspects: Trine Score (TS) and Attribute values".to_owned(), rows: aspects },
        ],
    }
}

/// An Inciting Incident sheet (§4.4): Abilities, Talents with their level dice, defences,
/// Max Hits Taken, Skills.
pub fn inciting_incident_sheet(sheet: &Sheet) -> SheetDoc {
    let dice = |level: u8| {
        let (n, sides) = level_dice(level);
        if level == 0 { "no dice".to_owned() } else { format!("{n}d{sides}") }
    };
    let abilities = [Ability::Fortitude, Ability::Perseverance, Ability::Nimbleness]
        .into_iter()
        .map(|a| {
            let l = sheet.abilities.get(a);
            row(a.name(), format!("level {l} ({})", dice(l)))
        })
        .collect();
    let talents = sheet
        .talents
        .iter()
        .map(|t| {
            let mut v = format!(
                "{} level {} ({}), attacks {}",
                t.ability.name(),
                t.level,
                dice(t.level),
                t.defence.name()
            );
            if !t.description.is_empty() {
                v.push_str(&format!(": {}", t.description));
            }
            row(&t.name, v)
        })
        .collect();
    let defences = DefenceKind::ALL
        .into_iter()
        .map(|k| {
            let d = sheet.defences.get(k);
            let protection: Vec<String> = d.protection.iter().map(|s| format!("d{s}")).collect();
            let protection = if protection.is_empty() { "none".to_owned() } else { protection.join(" + ") };
            row(k.name(), format!("RV {}, RD {}, {} {}", d.rv, d.rd, k.protection_name(), protection))
        })
        .collect();
    let mut sections = vec![
        Section {
            heading: "Character".to_owned(),
            rows: {
                let mut r = vec![
                    row("Max Hits Taken", sheet.max_hits),
                    row("Move", format!("up to {} Regions", sheet.max_move)),
                ];
                if !sheet.summary.is_empty() {
                    r.insert(0, row("Summary", &sheet.summary));
                }
                r
            },
        },
        Section { heading: "Abilities".to_owned(), rows: abilities },
        Section { heading: "Talents".to_owned(), rows: talents },
        Section {
            heading: "Defences (RV Resistance Value, RD Resistance Difficulty)".to_owned(),
            rows: defences,
        },
    ];
    if !sheet.skills.is_empty() {
        sections.push(Section {
            heading: "Skills".to_owned(),
            rows: sheet.skills.iter().map(|s| row("", s)).collect(),
        });
    }
    SheetDoc {
        system: System::IncitingIncident,
        title: sheet.name.clone(),
        subtitle: "Inciting Incident character".to_owned(),
        sections,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::print::{Paper, sheet_pages};

    fn example(path: &str) -> String {
        std::fs::read_to_string(format!("{}/../../examples/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    #[test]
    fn an_iron_triangle_sheet_shows_energy_moves_and_combos() {
        let docs = from_file(System::IronTriangle, "bao.toml", &example("iron-triangle/characters/bao.toml"))
            .unwrap();
        let svg = sheet_pages(&docs[0], Paper::A4)[0].to_svg();
        assert!(svg.contains("Bao") && svg.contains("Ankle Pick") && svg.contains("Combos"), "{svg}");
        assert!(svg.contains("then Hip Throw or Headbutt"));
    }

    #[test]
    fn a_campaign_sheet_adds_goal_belief_flaw_and_backgrounds() {
        let text = example("iron-triangle/campaign/ada.toml");
        let sheet: iron_triangle::campaign::Sheet = toml::from_str(&text).unwrap();
        let doc = iron_triangle_campaign_sheet(&sheet);
        let svg = sheet_pages(&doc, Paper::A4)[0].to_svg();
        assert!(svg.contains("Goal") && svg.contains("Belief") && svg.contains("Veto"), "{svg}");
        assert!(svg.contains(&crate::svg::escape(&sheet.goal)));
    }

    #[test]
    fn a_nodice_sheet_explains_its_serial() {
        let docs = from_file(System::Nodice, "kara.toml", &example("nodice/actors/kara.toml")).unwrap();
        let svg = sheet_pages(&docs[0], Paper::A4)[0].to_svg();
        assert!(svg.contains("R2/1(38/5)-M4(5/4/3)-B4(4/4/4)-S3(2/3/4)"), "{svg}");
        assert!(svg.contains("Mind (TS 4)") && svg.contains("Reason 5"));
    }

    #[test]
    fn an_inciting_incident_scene_gives_a_sheet_per_character() {
        let docs = from_file(
            System::IncitingIncident,
            "river-fight.toml",
            &example("inciting-incident/river-fight.toml"),
        )
        .unwrap();
        assert!(docs.len() >= 2);
        let svg = sheet_pages(&docs[0], Paper::A4)[0].to_svg();
        assert!(svg.contains("Bren") && svg.contains("Icy blade") && svg.contains("Resilience"), "{svg}");
    }

    #[test]
    fn a_bad_sheet_file_names_the_file_and_field() {
        let e = from_file(System::Nodice, "x.toml", "name = \"X\"\nserial = \"nonsense\"")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.toml: serial"), "{e}");
        let e = from_file(System::IronTriangle, "y.toml", "name = 3").unwrap_err().to_string();
        assert!(e.starts_with("y.toml"), "{e}");
        let e = from_file(System::IncitingIncident, "z.toml", "characters = [{ seat = \"a\" }]")
            .unwrap_err()
            .to_string();
        assert!(e.contains("characters[0]") && e.contains("no sheet"), "{e}");
    }
}
