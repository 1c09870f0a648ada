//! The systems a server hosts, through the `Hosted` interface only: every example opens and
//! plays to its end with bots, uploads open, an upload never reads the host's files, unknown
//! names are told with the known ones, and a bot's command is a legal one.

use serde_json::{Value, json};
use server::protocol::SetupSource;
use server::systems::{self, Hosted, SYSTEMS, SetupError};
use table::{SeatId, Viewer};

/// At most this many commands per game: every example ends well before (the rules' stalemate
/// and round limits bound them).
const MAX_STEPS: usize = 20_000;

fn example(system: &str, name: &str) -> Box<dyn Hosted> {
    let setup = systems::read_setup(system, &SetupSource::Example(name.into()))
        .unwrap_or_else(|e| panic!("{system} {name}: {e}"));
    systems::open(system, &setup).unwrap_or_else(|e| panic!("{system} {name}: {e}"))
}

/// Seats a bot of `kind` everywhere and plays to the end; returns the number of commands.
fn play_out(game: &mut dyn Hosted, kind: &str, what: &str) -> usize {
    let seats = game.seats().len();
    for i in 0..seats {
        game.set_bot(SeatId(i as u16), Some(kind), 1_000 + i as u64).unwrap();
    }
    for step in 0..MAX_STEPS {
        if game.is_over() {
            return step;
        }
        let awaiting = game.awaiting();
        let seat = *awaiting.first().unwrap_or_else(|| panic!("{what}: nobody is awaited before the end"));
        let command =
            game.bot_command(seat).unwrap_or_else(|| panic!("{what}: the bot of seat {} is silent", seat.0));
        game.submit(seat, &command).unwrap_or_else(|e| panic!("{what}: bot command {command} refused: {e}"));
    }
    panic!("{what}: not over after {MAX_STEPS} commands");
}

#[test]
fn every_example_of_every_system_plays_to_the_end_with_random_bots() {
    for system in SYSTEMS {
        let names = systems::examples(system).unwrap();
        assert!(!names.is_empty(), "{system}");
        for name in names {
            let mut game = example(system, name);
            let what = format!("{system} {name}");
            let steps = play_out(game.as_mut(), "random", &what);
            assert!(steps > 0, "{what}");
            assert!(game.is_over(), "{what}");
            // Every viewer's log has the same length, and the record replays.
            let seq = game.seq();
            assert_eq!(game.updates_since(Viewer::Spectator, 0).len() as u64, seq, "{what}");
            assert_eq!(game.updates_since(Viewer::Seat(SeatId(0)), 0).len() as u64, seq, "{what}");
        }
    }
}

#[test]
fn every_bot_kind_of_every_system_plays_a_whole_game() {
    let games = [("iron-triangle", "duel"), ("nodice", "pc-vs-bandit"), ("inciting-incident", "river-fight")];
    for (system, name) in games {
        for kind in systems::bot_kinds(system).unwrap() {
            let mut game = example(system, name);
            play_out(game.as_mut(), kind, &format!("{system} {name} {kind}"));
        }
    }
}

/// The Iron Triangle duel with its sheets inline.
const IT_UPLOAD: &str = r#"seats = [{ name = "ada" }, { name = "gm", role = "gm" }]

[[characters]]
seat = "ada"
[characters.sheet]
name = "Ada"
energy = { defend = 3, grapple = 2, attack = 5 }
moves = [
  { name = "Philly Shell", move = "○☵" },
  { name = "Trip", move = "▨☷" },
  { name = "Overhand Right", move = "◆☲" },
]

[[characters]]
seat = "gm"
[characters.sheet]
name = "Kuro"
level = 2
energy = { defend = 3, grapple = 3, attack = 5 }
moves = [
  { name = "Smoke Step", move = "○☵" },
  { name = "Leg Sweep", move = "▨☷" },
  { name = "Shuriken", move = "◆☲" },
]
"#;

/// Kara against a bandit, serials inline.
const ND_UPLOAD: &str = r#"initiator = "Kara"
seed = 7
[options]
stakes_formula = "old"
[[seats]]
name = "kara"
[[seats]]
name = "gm"
role = "gm"
[[actors]]
seat = "kara"
name = "Kara"
kind = "pc"
serial = "M3(3/3/3)-B4(4/5/4)-S3(3/3/3)"
[[actors]]
seat = "gm"
name = "Bandit"
kind = "npc"
serial = "R1/0(27/0)-M3(3/3/3)-B3(3/3/3)-S3(3/3/3)"
"#;

/// An Inciting Incident scene has no file references: the example's text uploads as it is.
const II_UPLOAD: &str = include_str!("../../../examples/inciting-incident/river-fight.toml");

fn uploads() -> [(&'static str, &'static str); 3] {
    [("iron-triangle", IT_UPLOAD), ("nodice", ND_UPLOAD), ("inciting-incident", II_UPLOAD)]
}

#[test]
fn a_toml_and_a_json_upload_of_each_system_open_and_play() {
    for (system, text) in uploads() {
        let from_toml = systems::read_setup(system, &SetupSource::Toml(text.into()))
            .unwrap_or_else(|e| panic!("{system} TOML: {e}"));
        let as_json: Value = toml::from_str(text).unwrap();
        let from_json = systems::read_setup(system, &SetupSource::Json(as_json))
            .unwrap_or_else(|e| panic!("{system} JSON: {e}"));
        assert_eq!(from_toml, from_json, "{system}");
        let mut game = systems::open(system, &from_json).unwrap();
        play_out(game.as_mut(), "random", &format!("{system} upload"));
    }
}

fn reads_files(system: &str, source: SetupSource, field: &str) {
    match systems::read_setup(system, &source) {
        Err(SetupError::ReadsFiles(m)) => assert!(m.contains(field), "{system}: {m} names {field}"),
        other => panic!("{system}: {field} not refused as reading files: {other:?}"),
    }
}

#[test]
fn an_uploaded_setup_never_reads_the_hosts_files() {
    // Iron Triangle sheet paths: absolute, relative, and an example's own path.
    for path in ["/etc/passwd", "../../etc/passwd", "characters/ada.toml"] {
        let text = IT_UPLOAD.replacen(
            "seat = \"ada\"\n[characters.sheet]\nname = \"Ada\"",
            &format!("seat = \"ada\"\nsheet = {path:?}\n[[characters]]\nseat = \"ada\"\n[characters.sheet]\nname = \"Ada\""),
            1,
        );
        reads_files("iron-triangle", SetupSource::Toml(text.clone()), "characters[0].sheet");
        let as_json: Value = toml::from_str(&text).unwrap();
        reads_files("iron-triangle", SetupSource::Json(as_json), "characters[0].sheet");
    }
    // No Dice: an abstract Actor's `inherits`, and an actor file.
    let inherits = format!(
        "{ND_UPLOAD}[[actors]]\nseat = \"gm\"\nname = \"Ruin\"\nkind = \"abstract\"\nserial = \"B1(1/1/1)\"\ninherits = [\"/etc/passwd\"]\n"
    );
    reads_files("nodice", SetupSource::Toml(inherits.clone()), "actors[2].inherits");
    let as_json: Value = toml::from_str(&inherits).unwrap();
    reads_files("nodice", SetupSource::Json(as_json), "actors[2].inherits");
    let sheet = ND_UPLOAD.replacen("name = \"Kara\"", "sheet = \"actors/kara.toml\"", 1);
    reads_files("nodice", SetupSource::Toml(sheet), "actors[0].sheet");
}

#[test]
fn unknown_systems_and_examples_are_told_with_the_known_names() {
    let e = systems::read_setup("chess", &SetupSource::Example("duel".into())).unwrap_err();
    assert!(matches!(e, SetupError::NoSystem(_)));
    let m = e.to_string();
    for system in SYSTEMS {
        assert!(m.contains(system), "{m}");
    }
    assert!(systems::open("chess", &json!({})).is_err());
    assert!(systems::bot_kinds("chess").is_none() && systems::examples("chess").is_none());
    for system in SYSTEMS {
        let e = systems::read_setup(system, &SetupSource::Example("nowhere".into())).unwrap_err();
        let m = e.to_string();
        assert!(matches!(e, SetupError::NoExample { .. }), "{m}");
        for name in systems::examples(system).unwrap() {
            assert!(m.contains(name), "{m}");
        }
        // A file an example references is no example.
        let e = systems::read_setup(system, &SetupSource::Example("actors/kara".into())).unwrap_err();
        assert!(matches!(e, SetupError::NoExample { .. }), "{e}");
    }
}

#[test]
fn an_invalid_setup_names_the_field_or_the_rule() {
    let e =
        systems::read_setup("iron-triangle", &SetupSource::Toml(IT_UPLOAD.replace("energy =", "energi =")))
            .unwrap_err();
    assert!(matches!(&e, SetupError::Invalid(m) if m.contains("energi")), "{e}");
    // The rules refuse a conflict with one side only (both characters at the player's seat).
    let one_side =
        IT_UPLOAD.replace("seat = \"gm\"\n[characters.sheet]", "seat = \"ada\"\n[characters.sheet]");
    let e = systems::read_setup("iron-triangle", &SetupSource::Toml(one_side)).unwrap_err();
    assert!(matches!(e, SetupError::Invalid(_)), "{e}");
    let e =
        systems::read_setup("nodice", &SetupSource::Toml(ND_UPLOAD.replace("M3(3/3/3)-B4", "Q3(3/3/3)-B4")))
            .unwrap_err();
    assert!(matches!(&e, SetupError::Invalid(m) if m.contains("actor 1")), "{e}");
    let e = systems::read_setup("inciting-incident", &SetupSource::Json(json!({"title": 3}))).unwrap_err();
    assert!(matches!(&e, SetupError::Invalid(m) if m.contains("title")), "{e}");
    let e = systems::open("nodice", &json!({"seats": []})).err().unwrap();
    assert!(matches!(e, SetupError::Invalid(_)), "{e}");
}

#[test]
fn a_bots_command_is_one_of_the_prompts_legal_choices_and_is_accepted() {
    for (system, name) in
        [("iron-triangle", "duel"), ("nodice", "pc-vs-bandit"), ("inciting-incident", "river-fight")]
    {
        let mut game = example(system, name);
        let seat = game.awaiting()[0];
        // No bot holds the seat yet; a seat the game does not wait for gives nothing.
        assert_eq!(game.bot_command(seat), None, "{system}");
        game.set_bot(seat, Some("random"), 3).unwrap();
        let idle = (0..game.seats().len() as u16).map(SeatId).find(|s| !game.awaiting().contains(s));
        if let Some(idle) = idle {
            game.set_bot(idle, Some("random"), 4).unwrap();
            assert_eq!(game.bot_command(idle), None, "{system}");
        }
        let command = game.bot_command(seat).unwrap();
        let prompt = game.prompt(seat).unwrap().unwrap();
        let offered: Vec<&Value> =
            prompt["choices"].as_array().unwrap().iter().map(|c| &c["command"]).collect();
        assert!(offered.contains(&&command), "{system}: {command} not in {prompt}");
        let before = game.seq();
        game.submit(seat, &command).unwrap();
        assert!(game.seq() > before, "{system}");
        // Taken back for a person, the seat's bot is silent.
        game.set_bot(seat, None, 0).unwrap();
        assert!(game.awaiting().iter().all(|&s| s != seat || game.bot_command(s).is_none()));
        let e = game.set_bot(seat, Some("psychic"), 0).unwrap_err().to_string();
        assert!(e.contains("random"), "{e}");
        assert!(game.set_bot(SeatId(99), Some("random"), 0).is_err());
    }
}

#[test]
fn the_rules_options_are_the_setups() {
    let duel = example("iron-triangle", "duel").rules_options();
    assert_eq!(duel["edition"], json!("current"));
    let earlier = example("iron-triangle", "earlier-edition").rules_options();
    assert_eq!(earlier["edition"], json!("earlier"));
    let lethal = example("iron-triangle", "lethal-showdown").rules_options();
    assert_eq!(lethal["lethal"], json!(true));

    let nd = systems::open(
        "nodice",
        &systems::read_setup("nodice", &SetupSource::Toml(ND_UPLOAD.into())).unwrap(),
    )
    .unwrap()
    .rules_options();
    assert_eq!(nd["stakes_formula"], json!("old"));
    assert_eq!(nd["sweep_bonus"], json!("stakes"));
    assert_eq!(nd["stalemate_hands"], json!(10));

    let ii = example("inciting-incident", "river-fight").rules_options();
    assert!(ii["max_rounds"].as_u64().is_some_and(|n| n > 0), "{ii:?}");
    for key in ["advantage", "extra_hits", "ability_dice"] {
        assert!(ii.contains_key(key), "{ii:?}");
    }
}

#[test]
fn a_no_dice_engagement_opens_as_the_gms_first_command() {
    let game = example("nodice", "brawl-clusters");
    let record = game.record();
    let first = &record["entries"][0];
    assert!(first["command"].get("engage").is_some(), "{record}");
    assert_eq!(first["seat"], json!(2), "the GM's seat");
    // Without it, every Actor plays every Hand: no Engage.
    let game = example("nodice", "brawl-3");
    assert_eq!(game.record()["entries"], json!([]));
}

#[test]
fn an_example_reads_its_referenced_files_from_the_embedded_copies() {
    // The ruin inherits its swamp and its ghost (actors/ruin.toml names them relative to it).
    let setup = systems::read_setup("nodice", &SetupSource::Example("ruin".into())).unwrap();
    let ruin = setup["actors"].as_array().unwrap().iter().find(|a| a["name"] == "Haunted ruin");
    assert!(ruin.is_some(), "{setup}");
    // The bandits of the ambush share one sheet under their own names.
    let setup = systems::read_setup("iron-triangle", &SetupSource::Example("ambush-2v3".into())).unwrap();
    assert_eq!(setup["characters"].as_array().unwrap().len(), 5, "{setup}");
}

/// No Dice's seed, Step 1 (Engagement): every Hand the GM confirms who is interacting, so an
/// Actor may come into the Conflict at a later Hand. A seat that joins late is in the setup
/// with its Actor outside the first engagement; the GM engages it at the start of a Hand.
#[test]
fn a_no_dice_seat_may_join_the_conflict_at_a_later_hands_engagement() {
    let text = ND_UPLOAD.replacen("seed = 7\n", "seed = 7\nengagement = [[\"Kara\", \"Bandit\"]]\n", 1)
        + "[[seats]]\nname = \"ren\"\nside = 0\n[[actors]]\nseat = \"ren\"\nname = \"Ren\"\nkind = \"pc\"\nserial = \"M3(3/3/3)-B4(4/5/4)-S3(3/3/3)\"\n";
    let setup = systems::read_setup("nodice", &SetupSource::Toml(text)).unwrap();
    let mut game = systems::open("nodice", &setup).unwrap();
    let (kara, gm, ren) = (SeatId(0), SeatId(1), SeatId(2));
    game.set_bot(kara, Some("random"), 1).unwrap();
    game.set_bot(gm, Some("random"), 2).unwrap();
    let engage_all = json!({"engage": {"clusters": []}});
    let mut joined = false;
    for step in 0..2_000 {
        assert!(!game.is_over(), "the Conflict ended before Ren joined");
        if joined {
            if game.awaiting().contains(&ren) {
                // Ren plays: the late seat is asked like any other.
                assert!(game.prompt(ren).unwrap().is_some());
                return;
            }
        } else {
            assert!(!game.awaiting().contains(&ren), "Ren is asked before being engaged");
            // Once Hand 1 is under way, the GM engages everyone at the next Hand's start.
            joined = step > 0 && game.submit(gm, &engage_all).is_ok();
            if joined {
                continue;
            }
        }
        let seat = game.awaiting()[0];
        let command = game.bot_command(seat).unwrap();
        game.submit(seat, &command).unwrap();
    }
    panic!("Ren was never engaged and asked");
}
