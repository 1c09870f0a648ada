//! The conflict file is typed and validated in the ruleset (`nodice::conflict_file`): built
//! here from JSON with actor files given by an in-memory loader (no I/O).

use nodice::conflict_file::{ConflictFile, ConflictFileError};
use nodice::sheets::{ActorFile, InheritError, Loaded};
use nodice::*;

fn file(json: &str) -> ConflictFile {
    serde_json::from_str(json).unwrap()
}

#[allow(clippy::ptr_arg)] // the loader's signature: FnMut(&K) with K = String
fn sheets(key: &String) -> Result<Loaded<String>, String> {
    let (name, kind, serial, inherits): (&str, Kind, &str, Vec<String>) = match key.as_str() {
        "bandit" => ("Bandit", Kind::Npc, "M3(3/3/3)-B3(3/3/3)-S3(3/3/3)", vec![]),
        "ruin" => ("Ruin", Kind::Abstract, "B5(8/7/-)", vec!["ghost".into()]),
        "ghost" => ("Ghost", Kind::Npc, "M3(4/5/2)-S5(6/7/4)", vec![]),
        "loop" => ("Loop", Kind::Abstract, "B1(1/1/1)", vec!["loop".into()]),
        other => return Err(format!("no sheet {other}")),
    };
    let file = ActorFile {
        name: name.into(),
        kind,
        serial: serial.into(),
        wildcards: None,
        notes: None,
        inherits: inherits.clone(),
    };
    Ok(Loaded { id: key.clone(), file, inherits })
}

const SEATS: &str = r#""seats": [{"name": "p"}, {"name": "gm", "role": "gm"}]"#;

#[test]
fn conflict_file_builds_a_setup_with_sheets_inherits_and_engagement() {
    let f = file(&format!(
        r#"{{{SEATS}, "actors": [
            {{"seat": "p", "name": "Kara", "kind": "pc", "serial": "R2/1(38/5)-M4(5/4/3)-B4(4/4/4)-S3(2/3/4)"}},
            {{"seat": "gm", "sheet": "bandit"}},
            {{"seat": "gm", "sheet": "ruin", "side": 1}}
        ], "initiator": "bandit", "engagement": [["Kara", "Bandit"]]}}"#
    ));
    let built = f.build(|p| p.to_owned(), &mut sheets).unwrap();
    assert_eq!(built.setup.actors.len(), 3);
    assert_eq!(built.setup.initiator, ActorId(1));
    assert_eq!(
        built.setup.actors[2].statblock.attributes,
        "M3(4/5/2)-B5(8/7/-)-S5(6/7/4)".parse::<Statblock>().unwrap().attributes
    );
    assert_eq!(built.engagement, vec![Targets::one(ActorId(0)).with(ActorId(1))]);
    assert!(Conflict::new(built.setup).is_ok());
}

#[test]
fn conflict_file_errors_name_the_field() {
    let bad = |actors: &str, extra: &str| {
        file(&format!(r#"{{{SEATS}, "actors": [{actors}]{extra}}}"#))
            .build(|p| p.to_owned(), &mut sheets)
            .unwrap_err()
    };
    let kara = r#"{"seat": "p", "name": "Kara", "serial": "M3(3/3/3)"}"#;
    assert!(matches!(
        bad(r#"{"seat": "x", "name": "A", "serial": "M1(1/1/1)"}"#, ""),
        ConflictFileError::UnknownSeat { .. }
    ));
    assert!(matches!(
        bad(&format!(r#"{kara}, {{"seat": "gm", "sheet": "nowhere"}}"#), ""),
        ConflictFileError::Sheet { .. }
    ));
    assert!(matches!(
        bad(&format!(r#"{kara}, {{"seat": "gm", "sheet": "loop"}}"#), ""),
        ConflictFileError::Inherits { error: InheritError::Cycle(_), .. }
    ));
    assert!(matches!(
        bad(&format!(r#"{kara}, {{"seat": "gm", "sheet": "bandit"}}"#), r#", "initiator": "Nobody""#),
        ConflictFileError::Initiator(_)
    ));
    assert!(matches!(
        bad(
            &format!(r#"{kara}, {{"seat": "gm", "sheet": "bandit"}}"#),
            r#", "engagement": [["Kara", "Nobody"]]"#
        ),
        ConflictFileError::Engagement { cluster: 1, .. }
    ));
    assert!(matches!(
        bad(&format!(r#"{kara}, {{"seat": "gm", "sheet": "bandit"}}"#), r#", "stakes": 9"#),
        ConflictFileError::Stakes(_)
    ));
    assert!(matches!(bad(kara, ""), ConflictFileError::Setup(SetupError::TooFewActors)));
}
