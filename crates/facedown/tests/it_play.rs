//! End-to-end tests of `facedown iron-triangle play`, running the built binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_facedown");

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/iron-triangle")
}

/// A unique path in the temporary directory.
fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("facedown-it-play-{}-{name}", std::process::id()))
}

/// Runs `facedown iron-triangle play ARGS` with `stdin` piped in.
fn play(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(BIN)
        .arg("iron-triangle")
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn write(name: &str, text: &str) -> PathBuf {
    let p = temp(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The last line of a `--json` run: the spectator's view.
fn final_view(o: &Output) -> serde_json::Value {
    let out = stdout(o);
    let last = out.lines().last().expect("some output");
    serde_json::from_str(last).expect("the last line is JSON")
}

fn energy(view: &serde_json::Value, fighter: usize) -> (u64, u64, u64) {
    let e = &view["fighters"][fighter]["energy"];
    (e["defend"].as_u64().unwrap(), e["grapple"].as_u64().unwrap(), e["attack"].as_u64().unwrap())
}

#[test]
fn bot_games_of_both_examples_finish_and_the_same_seed_replays_the_same_game() {
    for file in ["duel.toml", "ambush-2v3.toml", "lethal-showdown.json", "minor-wager.toml"] {
        let path = examples().join(file);
        let path = path.to_str().unwrap();
        for (bots, seed) in [("all=random", "7"), ("all=greedy", "0"), ("all=random", "123")] {
            let args = [path, "--bot", bots, "--seed", seed];
            let a = play(&args, "");
            assert_eq!(a.status.code(), Some(0), "{file} {bots}: {}", stderr(&a));
            assert!(stdout(&a).contains("The conflict is over"), "{file}");
            assert!(stdout(&a).contains("Final summary:"), "{file}");
            let b = play(&args, "");
            assert_eq!(stdout(&a), stdout(&b), "{file} {bots} seed {seed}");
        }
    }
    // Mixed: one seat greedy, the other random; and the JSON log.
    let path = examples().join("ambush-2v3.toml");
    let o = play(&[path.to_str().unwrap(), "--bot", "all=random", "--bot", "gm=greedy", "--json"], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for line in stdout(&o).lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("every line is JSON");
        // Each update in the session's form; a face-down choice is blanked, not dropped.
        let e = &v["event"];
        if e["event"] == "stance_committed" || e["event"] == "move_committed" {
            assert!(e.get("stance").is_none() && e.get("play").is_none(), "{line}");
        }
    }
    assert_eq!(final_view(&o)["phase"]["phase"], "over");
}

#[test]
fn the_built_in_duel_is_played_without_a_file() {
    let o = play(&["--bot", "all=greedy"], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("Ada") && stdout(&o).contains("Kuro"));
}

/// The first turn of the duel: Ada (2▨, Trip) beats Kuro (no stance, Smoke Step) and Kuro
/// loses 2×2 + 4 = 8, spread ○2 ▨3 ◆3.
const FIRST_TURN: &str = r#"{"seat": "ada", "command": {"commit_stance": {"stance": {"type": "grapple", "amount": 2}}}}
{"seat": "gm", "command": {"commit_stance": {"stance": {"type": "defend", "amount": 0}}}}
# Moves by the characters' names for them, or by symbols.
{"seat": "ada", "command": {"commit_move": {"play": "Trip"}}}
{"seat": "gm", "command": {"commit_move": {"play": "○☵"}}}
{"seat": "gm", "command": {"spread_loss": {"spread": {"defend": 2, "grapple": 3, "attack": 3}}}}
"#;

/// The second turn: both play ◆☲ with no stance, a tie; each loses 3. Kuro (○1 ▨0 ◆2) is
/// out; Ada spreads hers on ◆.
const SECOND_TURN: &str = r#"{"seat": "ada", "command": {"commit_stance": {"stance": {"type": "attack", "amount": 0}}}}
{"seat": "gm", "command": {"commit_stance": {"stance": {"type": "defend", "amount": 0}}}}
{"seat": "ada", "command": {"commit_move": {"play": "Overhand Right"}}}
{"seat": "gm", "command": {"commit_move": {"play": "Shuriken"}}}
{"seat": "ada", "command": {"spread_loss": {"spread": {"defend": 0, "grapple": 0, "attack": 3}}}}
"#;

#[test]
fn a_scripted_duel_plays_to_the_end() {
    let script = write("duel.jsonl", &format!("{FIRST_TURN}{SECOND_TURN}"));
    let o = play(&["--script", script.to_str().unwrap(), "--json"], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let view = final_view(&o);
    assert_eq!(energy(&view, 0), (3, 2, 2), "Ada");
    assert_eq!(energy(&view, 1), (0, 0, 0), "Kuro");
    assert_eq!(view["fighters"][1]["status"], "out");
    assert_eq!(view["ending"]["winner"], 0);
    // The same script from standard input, as sentences.
    let o = play(&["--script", "-"], &format!("{FIRST_TURN}{SECOND_TURN}"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Kuro loses 8: winner's stance 4 + own stance 0 + base 4"));
    assert!(out.contains("Ada wins the turn with Trip ▨☷"));
    assert!(out.contains("Kuro is out of the conflict"));
    assert!(out.contains("Ada [ada]: energy ○3 ▨2 ◆2"));
    std::fs::remove_file(script).ok();
}

#[test]
fn characters_may_be_named_in_scripts() {
    let path = examples().join("ambush-2v3.toml");
    let script = r#"{"seat": "bao", "command": {"take_first_turn": {"fighter": "Bao"}}}
{"seat": "bao", "command": {"choose_opponent": {"opponent": "weasel"}}}
"#;
    let save = temp("named.save");
    let o = play(&[path.to_str().unwrap(), "--script", "-", "--save", save.to_str().unwrap()], script);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Turn 1: Bao takes the turn"), "{out}");
    assert!(out.contains("Bao faces Weasel"), "{out}");
    assert!(out.contains("paused"), "{out}");
    std::fs::remove_file(save).ok();
}

#[test]
fn a_paused_and_resumed_game_ends_like_an_uninterrupted_one() {
    let whole = write("whole.jsonl", &format!("{FIRST_TURN}{SECOND_TURN}"));
    let first = write("first.jsonl", FIRST_TURN);
    let second = write("second.jsonl", SECOND_TURN);
    let (save_whole, save_parts) = (temp("whole.save"), temp("parts.save"));

    let o =
        play(&["--script", whole.to_str().unwrap(), "--save", save_whole.to_str().unwrap(), "--json"], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let whole_view = final_view(&o);

    let o = play(&["--script", first.to_str().unwrap(), "--save", save_parts.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("paused"));
    assert!(!stdout(&o).contains("The conflict is over"));
    let o = play(
        &[
            "--resume",
            save_parts.to_str().unwrap(),
            "--script",
            second.to_str().unwrap(),
            "--save",
            save_parts.to_str().unwrap(),
            "--json",
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(final_view(&o), whole_view);
    assert_eq!(std::fs::read_to_string(&save_whole).unwrap(), std::fs::read_to_string(&save_parts).unwrap());
    let mut tmp = save_parts.clone().into_os_string();
    tmp.push(".tmp");
    assert!(!Path::new(&tmp).exists(), "the temporary save was renamed");

    // A finished save resumes straight to the summary; bots may take over a paused one.
    let o = play(&["--resume", save_whole.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("Final summary:"));

    for p in [whole, first, second, save_whole, save_parts] {
        std::fs::remove_file(p).ok();
    }
}

#[test]
fn a_script_that_ends_early_without_save_is_an_error() {
    let o = play(&["--script", "-"], FIRST_TURN);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("ended before the conflict did"), "{}", stderr(&o));
}

#[test]
fn bad_inputs_exit_with_2_and_say_why() {
    // A malformed conflict file names the file and the field.
    let bad = write(
        "bad.toml",
        "seats = [{ name = \"p\" }, { name = \"gm\", role = \"gm\" }]\ncharacters = []\nstakez = 1\n",
    );
    let o = play(&[bad.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("bad.toml") && e.contains("stakez"), "{e}");

    // A bad sheet field inside a JSON conflict file.
    let bad_json = write(
        "bad.json",
        r#"{"seats": [{"name": "p"}, {"name": "gm", "role": "gm"}],
            "characters": [{"seat": "p", "sheet": {"name": "X", "energy": {"defend": 1, "grapple": 1, "attack": 1}, "moves": [], "speed": 3}}]}"#,
    );
    let o = play(&[bad_json.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("bad.json") && e.contains("speed"), "{e}");

    // Rules broken by a sheet: the engine's message, with the file name.
    let invalid = write(
        "invalid.toml",
        "seats = [{ name = \"p\" }, { name = \"gm\", role = \"gm\" }]\n[[characters]]\nseat = \"p\"\n[characters.sheet]\nname = \"Zed\"\nenergy = { defend = 9, grapple = 1, attack = 1 }\nmoves = []\n",
    );
    let o = play(&[invalid.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("invalid.toml") && e.contains("energy must total 10"), "{e}");

    // An unknown seat in --bot.
    let o = play(&["--bot", "nobody=greedy"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nobody"), "{}", stderr(&o));
    let o = play(&["--bot", "gm=clever"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("clever"), "{}", stderr(&o));

    // A rejected script command: a stance above energy (Ada has ▨2). The game so far is saved.
    let save = temp("rejected.save");
    let script = format!(
        "{}\n{}\n",
        FIRST_TURN.lines().next().unwrap(),
        r#"{"seat": "gm", "command": {"commit_stance": {"stance": {"type": "grapple", "amount": 9}}}}"#
    );
    let o = play(&["--script", "-", "--save", save.to_str().unwrap()], &script);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("line 2") && e.contains("cannot take a stance of 9▨"), "{e}");
    let saved = std::fs::read_to_string(&save).unwrap();
    // The save is the record: a face-down stance not yet revealed is left out (Ada chooses
    // again on resume).
    assert!(saved.contains("facedown-save") && !saved.contains("commit_stance"), "{saved}");

    // A command out of turn, and an unknown character name.
    let o = play(&["--script", "-"], r#"{"seat": "gm", "command": {"pass_turn": {"to": "Kuro"}}}"#);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("line 1"), "{}", stderr(&o));
    let o =
        play(&["--script", "-"], r#"{"seat": "ada", "command": {"take_first_turn": {"fighter": "Nobody"}}}"#);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("Nobody"), "{}", stderr(&o));

    // A corrupt save, and a save whose commands were edited: its events hash does not match.
    let corrupt = write("corrupt.save", "{\"format\": 3}");
    let o = play(&["--resume", corrupt.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not a facedown save"), "{}", stderr(&o));
    let o = play(&["--script", "-", "--save", save.to_str().unwrap()], FIRST_TURN);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let saved = std::fs::read_to_string(&save).unwrap();
    let edited =
        saved.replacen("\\\"grapple\\\":3,\\\"attack\\\":3", "\\\"grapple\\\":2,\\\"attack\\\":4", 1);
    assert_ne!(edited, saved, "the spread is in the save: {saved}");
    let tampered = write("tampered.save", &edited);
    let o = play(&["--resume", tampered.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("replays differently"), "{}", stderr(&o));

    for p in [bad, bad_json, invalid, save, corrupt, tampered] {
        std::fs::remove_file(p).ok();
    }
}

#[test]
fn hot_seat_entry_keeps_a_stance_hidden_until_the_reveal() {
    // Ada types her stance first (5 attack), then the GM; then the moves; then Ada's spread.
    let typed = "5 attack\n1 defend\noverhand right\n1\n";
    let o = play(&[], typed);
    let out = stdout(&o);
    let committed = out.find("Ada commits a stance face down").expect("Ada commits");
    let gm_prompt = out.find("===== The GM — seat gm").expect("the GM is asked");
    let reveal = out.find("Stances revealed").expect("the stances are revealed");
    assert!(committed < gm_prompt && gm_prompt < reveal, "{out}");
    assert!(
        !out[..reveal].contains("5◆") && !out.contains("> 5 attack"),
        "the stance shows before the reveal:\n{out}"
    );
    assert!(out[reveal..].starts_with("Stances revealed: Ada 5◆, Kuro 1○"), "{out}");
    assert!(out.contains("Moves revealed: Ada plays Overhand Right ◆☲, Kuro plays Smoke Step ○☵"));
    // The input ends while Ada must spread her loss: an error without --save.
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("input ended"), "{}", stderr(&o));
}

#[test]
fn hot_seat_rejects_bad_answers_and_asks_again() {
    // A stance above energy (typed as a command: the menu has no such choice), then nonsense,
    // then a good stance; the GM is a bot.
    let typed =
        "{\"commit_stance\": {\"stance\": {\"type\": \"grapple\", \"amount\": 3}}}\nlots\n1 grapple\n";
    let save = temp("hot.save");
    let o = play(&["--bot", "gm=greedy", "--save", save.to_str().unwrap()], typed);
    let out = stdout(&o);
    assert!(out.contains("Not accepted: Ada cannot take a stance of 3▨"), "{out}");
    assert!(out.contains("Not accepted: \"lots\" is none of the choices"), "{out}");
    assert!(out.contains("Ada commits a stance face down"), "{out}");
    assert_eq!(o.status.code(), Some(0), "paused with --save: {}", stderr(&o));
    assert!(out.contains("paused"), "{out}");
    std::fs::remove_file(save).ok();
}

#[test]
fn help_describes_every_flag() {
    let o = Command::new(BIN).args(["iron-triangle", "play", "--help"]).output().unwrap();
    let out = stdout(&o);
    for flag in ["--resume", "--save", "--bot", "--seed", "--script", "--json", "CONFLICT_FILE"] {
        assert!(out.contains(flag), "{flag} missing from:\n{out}");
    }
}

#[test]
fn the_specials_examples_play_to_the_end_with_bots() {
    let mut revealed = 0;
    for file in ["specials-duel.toml", "earlier-edition.toml"] {
        let path = examples().join(file);
        let path = path.to_str().unwrap();
        for (bots, seed) in
            [("all=random", "1"), ("all=random", "2"), ("all=random", "3"), ("all=greedy", "0")]
        {
            let o = play(&[path, "--bot", bots, "--seed", seed], "");
            assert_eq!(o.status.code(), Some(0), "{file} {bots} {seed}: {}", stderr(&o));
            let out = stdout(&o);
            assert!(out.contains("The conflict is over") && out.contains("Final summary:"), "{file}: {out}");
            revealed += out.matches(" reveals ").count();
            // Face-down specials are never named before their reveal.
            assert!(!out.contains("plays a card face down"), "{out}");
        }
    }
    assert!(revealed > 0, "some bot played a special");
    // The earlier edition names its specials its own way.
    let o = play(&[examples().join("earlier-edition.toml").to_str().unwrap(), "--bot", "all=greedy"], "");
    let out = stdout(&o);
    assert!(out.contains("earlier edition") && out.contains("specials: Showdown"), "{out}");
}

/// Ada (a PC who knows Scouter) against Kuro, the ninja of the duel; inline sheets.
const SCOUT_DUEL: &str = r#"seats = [{ name = "ada" }, { name = "gm", role = "gm" }]

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
specials = ["scouter"]

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
  { name = "Flying Kick", move = "◆☰" },
]
combos = [{ from = "▨☷", follow_ups = ["◆☰"] }]
"#;

/// Ada passes before choosing her opponent (and passes again on the count of 0), then plays
/// Scouter before the stances; Kuro, who knows no special, passes by himself.
const SCOUT_WINDOWS: &str = r#"{"seat": "ada", "command": {"play_special": {"fighter": "Ada", "card": null}}}
{"seat": "ada", "command": {"play_special": {"fighter": "Ada", "card": {"special": "scouter"}}}}
"#;

#[test]
fn a_scripted_scouter_is_revealed_only_when_its_window_closes() {
    let conflict = write("scout.toml", SCOUT_DUEL);
    let conflict = conflict.to_str().unwrap();
    let script = format!("{SCOUT_WINDOWS}{FIRST_TURN}{SECOND_TURN}");
    let o = play(&[conflict, "--script", "-"], &script);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let turn = out.find("Turn 1:").expect("the turn begins");
    let chosen = out.find("Ada has chosen (before stance window)").expect("Ada's card goes down");
    let count = out.find("1 card face down in the before stance window").expect("the count");
    let reveal =
        out.find("Ada reveals Scouter: Ada learns Kuro's moves, combos and specials.").expect("the reveal");
    let closed = out.find("The before stance window closes.").expect("the window closes");
    assert!(turn < chosen && chosen < count && count < reveal && reveal < closed, "{out}");
    assert!(!out[turn..reveal].contains("Scouter"), "the card shows before the reveal:\n{out}");
    assert!(out.contains("The before opponent window closes: no specials were played."), "{out}");
    assert!(out.contains("Ada [ada]: energy ○3 ▨2 ◆2"), "{out}");

    // As JSON lines: the committed card is left out for the spectator.
    let o = play(&[conflict, "--script", "-", "--json"], &script);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> =
        stdout(&o).lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let committed: Vec<&serde_json::Value> =
        lines.iter().filter(|v| v["event"]["event"] == "special_committed").collect();
    assert!(!committed.is_empty());
    assert!(committed.iter().all(|v| v["event"].get("card").is_none()), "{committed:?}");
    let view = lines.last().unwrap();
    assert_eq!(view["fighters"][0]["specials_used"], serde_json::json!(["scouter"]));
    std::fs::remove_file(conflict).ok();
}

#[test]
fn a_special_the_character_cannot_play_is_refused_with_the_rule() {
    let conflict = write("refused.toml", SCOUT_DUEL);
    let script = r#"{"seat": "ada", "command": {"play_special": {"fighter": "Ada", "card": {"special": "to blave"}}}}"#;
    let o = play(&[conflict.to_str().unwrap(), "--script", "-"], script);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("line 1") && e.contains("Ada cannot play To Blave now: Ada has not learned it"),
        "{e}"
    );
    std::fs::remove_file(conflict).ok();
}

#[test]
fn hot_seat_specials_are_chosen_in_secret() {
    let conflict = write("hot-scout.toml", SCOUT_DUEL);
    // Ada: an unknown special, then pass; pass on the count; Scouter before the stances.
    let typed = "fireball\npass\n1\nscouter\n";
    let save = temp("hot-scout.save");
    let o = play(&[conflict.to_str().unwrap(), "--save", save.to_str().unwrap()], typed);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Ada: play a special face down, or pass (before opponent window)"), "{out}");
    assert!(out.contains("waiting for a response to 0 face-down cards from Ada"), "{out}");
    assert!(out.contains("  1. pass\n  2. Scouter\n"), "{out}");
    assert!(out.contains("Not accepted: \"fireball\" is none of the choices"), "{out}");
    let reveal = out.find("Ada reveals Scouter").expect("the reveal");
    let closed = out.find("The before stance window closes").expect("closed");
    assert!(reveal < closed, "{out}");
    assert!(!out.contains("> fireball") && !out.contains("scouter"), "a typed answer is echoed:\n{out}");
    // Once Scouter is revealed, Ada's seat sees Kuro's moves and her used special.
    assert!(out[reveal..].contains("specials: Scouter (used)"), "{out}");
    assert!(out[reveal..].contains("moves: Smoke Step ○☵"), "{out}");
    for p in [conflict, save] {
        std::fs::remove_file(p).ok();
    }
}

const ADJUST: &str = r#"{"seat": "gm", "command": {"adjust_energy": {"fighter": "Ada", "energy": {"defend": 3, "grapple": 2, "attack": 4}, "reason": "misread the spread"}}}
"#;

#[test]
fn the_gm_adjusts_energy_from_a_script() {
    let o = play(&["--script", "-"], &format!("{ADJUST}{FIRST_TURN}{SECOND_TURN}"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("The GM sets Ada's energy to ○3 ▨2 ◆4: misread the spread."), "{out}");
    assert!(out.contains("Ada [ada]: energy ○3 ▨2 ◆1"), "{out}");
    // Only the GM may.
    let o = play(&["--script", "-"], &ADJUST.replace("\"gm\"", "\"ada\""));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("only the GM can adjust"), "{}", stderr(&o));
}

#[test]
fn the_gm_adjusts_energy_at_the_keyboard() {
    // Ada's stance; the GM adjusts (a refused one first), then answers its stance question;
    // then the two turns of the scripted duel.
    let adjust = |e: [u8; 3], why: &str| {
        format!(
            "{{\"adjust_energy\": {{\"fighter\": \"Ada\", \"energy\": {{\"defend\": {}, \"grapple\": {}, \"attack\": {}}}, \"reason\": \"{why}\"}}}}\n",
            e[0], e[1], e[2]
        )
    };
    let typed = format!(
        "2 grapple\n{}{}no stance\ntrip\n1\n2 3 3\nno stance\nno stance\noverhand right\nshuriken\n0 0 3\n",
        adjust([9, 9, 9], "too much"),
        adjust([3, 2, 4], "misread the spread")
    );
    let typed = typed.as_str();
    let o = play(&[], typed);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{}\n{out}", stderr(&o));
    assert!(out.contains("a command as JSON {...}"), "{out}");
    assert!(out.contains("Not accepted: Ada cannot be set to ○9 ▨9 ◆9"), "{out}");
    let adjusted = out.find("The GM sets Ada's energy to ○3 ▨2 ◆4: misread the spread.").expect("adjusted");
    // The question is asked again.
    assert!(out[adjusted..].contains("Kuro: commit a stance face down"), "{out}");
    assert!(out.contains("Ada [ada]: energy ○3 ▨2 ◆1"), "{out}");
}

#[test]
fn identical_specials_of_a_pair_cancel_out() {
    // Mika and the oni both play Scouter before the stances (specials-duel.toml).
    let script = r#"{"seat": "mika", "command": {"take_first_turn": {"fighter": "Mika"}}}
{"seat": "mika", "command": {"play_special": {"fighter": "Mika"}}}
{"seat": "mika", "command": {"choose_opponent": {"opponent": "Oni"}}}
{"seat": "mika", "command": {"play_special": {"fighter": "Mika", "card": {"special": "scouter"}}}}
{"seat": "gm", "command": {"play_special": {"fighter": "Oni", "card": {"special": "Scouter"}}}}
"#;
    let save = temp("cancel.save");
    let path = examples().join("specials-duel.toml");
    let o = play(&[path.to_str().unwrap(), "--script", "-", "--save", save.to_str().unwrap()], script);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("2 cards face down in the before stance window."), "{out}");
    assert!(out.contains("Mika reveals Scouter: it cancels out with Oni's identical special"), "{out}");
    assert!(out.contains("Oni reveals Scouter: it cancels out with Mika's identical special"), "{out}");
    // In the players' words: no reference to a section of the rules reference.
    assert!(out.contains("identical special: both are spent, with no effect."), "{out}");
    assert!(!out.contains("no effect (§"), "{out}");
    std::fs::remove_file(save).ok();
}

/// Issue 13: a loss whose own-stance part is fixed showed "loses 9" beside "spread a loss of
/// 8" with nothing to say where the other 1 went. The narration writes the loss as the sum of
/// its parts and splits it into the stance part and the part to spread; so does the prompt.
#[test]
fn a_loss_is_shown_as_the_sum_of_its_parts() {
    // Ada 2▨ Trip beats Kuro's 1○ Smoke Step: 2×2 + 1 + 4 = 9, 1 of it from Kuro's ○.
    let typed = "2 grapple\n1 defend\ntrip\n1\n2 3 3\n";
    let o = play(&[], typed);
    let out = stdout(&o);
    assert!(
        out.contains(
            "Kuro loses 9: winner's stance 4 + own stance 1 + base 4 + combo 0 + disadvantage 0 = 9."
        ),
        "{out}"
    );
    assert!(out.contains("9 = 1 from defend ○ (Kuro's own stance) + 8 spread over the types."), "{out}");
    assert!(out.contains("gm: spread a loss of 8 over the energy types"), "{out}");
}

/// Issue 14, part 5: before the reveal a seat takes back its face-down stance; after it, the
/// GM undoes a public command (a loss spread) and it is given again — from a script, logged
/// for everyone, kept in the save and replayed on resume.
#[test]
fn a_seat_takes_back_its_stance_and_the_gm_undoes_a_spread_from_a_script() {
    let lines: Vec<&str> = FIRST_TURN.lines().filter(|l| l.starts_with('{')).collect();
    let script = format!(
        "{}\n{{\"seat\": \"ada\", \"take_back\": true}}\n{}\n{}\n{}\n{}\n\
         {{\"seat\": \"gm\", \"command\": {{\"spread_loss\": {{\"spread\": {{\"defend\": 2, \"grapple\": 2, \"attack\": 4}}}}}}}}\n\
         {{\"seat\": \"gm\", \"undo\": true}}\n{}\n",
        lines[0], lines[0], lines[1], lines[2], lines[3], lines[4]
    );
    let save = temp("undo.save");
    let o = play(&["--script", "-", "--save", save.to_str().unwrap()], &script);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("ada takes back a face-down choice."), "{out}");
    assert!(out.contains("Kuro takes the loss ○2 ▨2 ◆4"), "{out}");
    assert!(
        out.contains("The GM (seat gm) undoes the last command of seat gm, which is asked again."),
        "{out}"
    );
    let undone = out.find("undoes the last command").unwrap();
    assert!(out[undone..].contains("Kuro takes the loss ○2 ▨3 ◆3 and has ○1 ▨0 ◆2 left."), "{out}");
    // The undo is an entry of the save; the game resumes and ends like the scripted duel.
    assert!(std::fs::read_to_string(&save).unwrap().contains("\"mark\": \"undo\""));
    let o = play(&["--resume", save.to_str().unwrap(), "--script", "-", "--json"], SECOND_TURN);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(energy(&final_view(&o), 0), (3, 2, 2), "Ada");
    // Only the GM undoes; a revealed stance cannot be taken back.
    let o = play(&["--script", "-"], &format!("{}\n{{\"seat\": \"ada\", \"undo\": true}}\n", lines[0]));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("only the GM"), "{}", stderr(&o));
    let o = play(
        &["--script", "-"],
        &format!("{}\n{}\n{{\"seat\": \"ada\", \"take_back\": true}}\n", lines[0], lines[1]),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("line 3") && stderr(&o).contains("a revealed choice stands"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_file(save).ok();
}

/// The same at the keyboard: `back SEAT` at the GM's prompt gives Ada her stance back, and
/// `undo` at Ada's next prompt undoes the GM's spread, which the GM then gives again.
#[test]
fn at_the_keyboard_back_takes_back_a_stance_and_undo_undoes_a_spread() {
    let typed = "2 grapple\nback ada\n2 grapple\nno stance\ntrip\n1\n2 2 4\nundo\n2 3 3\n";
    let o = play(&[], typed);
    let out = stdout(&o);
    assert!(out.contains("`back [SEAT]` takes back a face-down choice"), "{out}");
    let back = out.find("ada takes back a face-down choice.").expect("taken back");
    assert!(out[back..].contains("Ada: commit a stance face down"), "Ada is asked again: {out}");
    let undone = out.find("undoes the last command of seat gm").expect("undone");
    assert!(out[..undone].contains("Kuro takes the loss ○2 ▨2 ◆4"), "{out}");
    assert!(out[undone..].contains("Kuro takes the loss ○2 ▨3 ◆3"), "{out}");
}

/// Saves of facedown before the session layer held events, not commands: refused, saying so.
#[test]
fn an_old_iron_triangle_save_is_refused_as_an_old_format() {
    let old = write("old.save", "{\"initial\": {\"stakes\": {}}, \"events\": []}\n");
    let o = play(&["--resume", old.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("is a save of the old format") && e.contains("docs/play.md"), "{e}");
    std::fs::remove_file(old).ok();
}

/// Issue 14, part 1: only the GM calls for a seat's decision to be forced, and it is taken by
/// the rules' documented default, logged for everyone — from a script or at the keyboard.
#[test]
fn the_gm_forces_a_seats_decision_from_a_script_or_the_keyboard() {
    let o = play(&["--script", "-"], "{\"seat\": \"gm\", \"force\": \"ada\"}\n");
    let out = stdout(&o);
    let forced = out.find("ada's decision is forced: the rules' default is taken.").expect("forced");
    assert!(out[forced..].contains("Ada commits a stance face down."), "{out}");
    let o = play(&["--script", "-"], "{\"seat\": \"ada\", \"force\": \"gm\"}\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("only the GM may force a seat's decision"), "{}", stderr(&o));
    let o = play(&[], "force\n");
    let out = stdout(&o);
    assert!(out.contains("`force [SEAT]`"), "the prompt says how: {out}");
    assert!(out.contains("ada's decision is forced"), "{out}");
}

fn repro(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it_repro").join(name).to_str().unwrap().to_owned()
}

/// Rules reference §6, Decision (Liquid Metal): "two Liquid Metals copying different specials
/// both act" (the audit's reproduction, turn 2: P0's copies Premonition ◆, N0's copies
/// Showdown naming P0; before, both were cancelled as identical).
#[test]
fn two_liquid_metals_copying_different_specials_both_act() {
    let save = temp("lm-different-copies.json");
    let o = play(
        &[
            &repro("it_lm_different_copies.json"),
            "--script",
            &repro("it_lm_different_copies.jsonl"),
            "--save",
            save.to_str().unwrap(),
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let turn2 = &out[out.find("Turn 2").expect("a second turn")..];
    assert!(!turn2.contains("cancels out"), "{turn2}");
    assert!(
        turn2.contains("N0 reveals Mimic copying Showdown naming P0: N0 and P0 face only each other"),
        "{turn2}"
    );
    assert!(
        turn2.contains("P0 reveals Mimic copying Premonition ◆: N0 may not play attack ◆ moves this turn"),
        "{turn2}"
    );
    let _ = std::fs::remove_file(save);
}
