//! Robustness of every file and every input (issue 13, §4): bounded reads, short error
//! messages, atomic private saves, terminal-safe printing of names from files. Each test runs
//! the built binary.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_facedown");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run_in(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut input = child.stdin.take().unwrap();
    // The program may stop reading early (a refused input): ignore a broken pipe.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A TOML resolve input whose A name is `name` (a TOML basic string's contents).
fn resolve_input(name: &str) -> String {
    format!(
        "[a]\nname = \"{name}\"\nstance = \"2 grapple\"\nmove = \"▨☰\"\n\n[b]\nname = \"B\"\nstance = \"1 defend\"\nmove = \"○☷\"\n"
    )
}

#[test]
fn bounded_reads_refuse_a_file_larger_than_the_limit_naming_it_and_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let big = format!("# {}\n{}", "x".repeat(5 << 20), resolve_input("A"));
    std::fs::write(dir.path().join("big.toml"), big).unwrap();
    let o = run_in(dir.path(), &["iron-triangle", "resolve", "--input", "big.toml"], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("big.toml is larger than the limit of 4 MiB"), "{err}");
}

#[cfg(unix)]
#[test]
fn bounded_reads_refuse_an_endless_device_given_as_a_sheet() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.toml")).unwrap();
    let start = std::time::Instant::now();
    let o = run_in(dir.path(), &["iron-triangle", "resolve", "--input", "zero.toml"], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("larger than the limit"), "{}", stderr(&o));
    assert!(start.elapsed().as_secs() < 30);
}

#[test]
fn bounded_reads_refuse_too_much_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let big = vec![b' '; (4 << 20) + 10];
    let o = run_in(dir.path(), &["iron-triangle", "resolve", "--input", "-"], &big);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("standard input is larger than the limit of 4 MiB"), "{}", stderr(&o));
}

#[test]
fn error_messages_quote_only_an_excerpt_of_a_huge_bad_value() {
    let dir = tempfile::tempdir().unwrap();
    // A one-megabyte string where a stance is expected, and one where a number is expected.
    let huge = "7".repeat(1 << 20);
    let text = resolve_input("A").replace("stance = \"2 grapple\"", &format!("stance = \"{huge}\""));
    std::fs::write(dir.path().join("huge.toml"), text).unwrap();
    let o = run_in(dir.path(), &["iron-triangle", "resolve", "--input", "huge.toml"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stderr.len() < 4_000, "{} bytes of error", o.stderr.len());
    assert!(stderr(&o).contains("more characters"), "{}", stderr(&o));

    let json = format!("{{\"a\": {{\"name\": 1, \"x\": \"{huge}\"}}, \"b\": \"{huge}\"}}");
    std::fs::write(dir.path().join("huge.json"), json).unwrap();
    let o = run_in(dir.path(), &["iron-triangle", "resolve", "--input", "huge.json"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stderr.len() < 4_000, "{} bytes of error", o.stderr.len());
}

#[test]
fn saves_are_atomic_private_and_never_blocked_by_a_stale_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    // What an interrupted save of the old writer leaves behind, or anything else at that name.
    std::fs::create_dir(dir.path().join("s.json.tmp")).unwrap();
    std::fs::write(dir.path().join("s.json.tmp/x"), "").unwrap();
    for game in [
        vec!["iron-triangle", "play", "--bot", "all=greedy", "--save", "s.json"],
        vec!["nodice", "play", "--bot", "all=greedy", "--save", "s.json"],
        vec!["inciting-incident", "play", "--bot", "all=random", "--save", "s.json"],
    ] {
        let mut args = game.clone();
        let example;
        if game[0] != "iron-triangle" {
            example = repo().join(if game[0] == "nodice" {
                "examples/nodice/brawl-3.toml"
            } else {
                "examples/inciting-incident/river-fight.toml"
            });
            args.insert(2, example.to_str().unwrap());
        }
        let _ = std::fs::remove_file(dir.path().join("s.json"));
        let o = run_in(dir.path(), &args, b"");
        assert_eq!(o.status.code(), Some(0), "{game:?}: {}", stderr(&o));
        let save = dir.path().join("s.json");
        assert!(save.is_file(), "{game:?} left no save");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&save).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{game:?}: the save's mode is {mode:o}");
        }
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n != "s.json" && n != "s.json.tmp")
            .collect();
        assert!(left.is_empty(), "{game:?} left temporary files: {left:?}");
    }
}

/// A name forging a line of output, clearing the screen and moving the cursor.
const EVIL: &str = "Eve\\u001b[2J\\u001b[H\\r\\nerror: forged line\\u009b";

fn assert_terminal_safe(what: &str, o: &Output) {
    for (stream, bytes) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains("\u{1b}[2J\u{1b}[H\r"), "{what}: {stream} prints the raw escape sequence");
        assert!(!text.contains('\r'), "{what}: {stream} prints a carriage return");
        assert!(!text.contains('\u{9b}'), "{what}: {stream} prints a C1 control");
        assert!(
            !text.lines().any(|l| l.starts_with("error: forged")),
            "{what}: {stream} has a forged line:\n{text}"
        );
    }
}

#[test]

fn terminal_safety_escapes_names_from_a_resolve_input() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("evil.toml"), resolve_input(EVIL)).unwrap();
    let o = run_in(dir.path(), &["iron-triangle", "resolve", "--input", "evil.toml"], b"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_terminal_safe("resolve", &o);
    assert!(stdout(&o).contains("Eve\\u{1b}[2J"), "{}", stdout(&o));
}

#[test]
fn campaign_database_checks_in_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let ada = repo().join("examples/iron-triangle/campaign/ada.toml");
    let ninja = repo().join("examples/iron-triangle/characters/ninja.toml");

    let o = run_in(dir.path(), &["campaign", "--db", ":memory:", "status"], b"");
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("in memory would be lost"), "{}", stderr(&o));

    let db = ["campaign", "--db", "game.sqlite"];
    let run = |rest: &[&str]| run_in(dir.path(), &[&db[..], rest].concat(), b"");
    assert!(run(&["character", "create", "--file", ada.to_str().unwrap()]).status.success());
    assert!(run(&["npc", "add", ninja.to_str().unwrap()]).status.success());
    let path = dir.path().join("game.sqlite");
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&path, perms).unwrap();
    for read in [
        &["status"][..],
        &["character", "show", "Ada"],
        &["character", "list"],
        &["npc", "list"],
        &["problem", "list"],
        &["countdown", "list"],
        &["conflict", "list"],
        &["log"],
        &["--json", "status"],
    ] {
        let o = run(read);
        assert_eq!(o.status.code(), Some(0), "{read:?} on a read-only campaign: {}", stderr(&o));
    }
    let o = run(&["npc", "remove", "Ninja"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is read-only"), "{}", stderr(&o));
    assert_eq!(run(&["npc", "list"]).status.code(), Some(0));
    assert!(stdout(&run(&["npc", "list"])).contains("Ninja"));
}

/// `text` with every `"from"` (a quoted TOML string) replaced by the quoted [`EVIL`] name.
fn evil_toml(text: &str, from: &str) -> String {
    text.replace(&format!("\"{from}\""), &format!("\"{EVIL}\""))
}

#[test]
fn terminal_safety_escapes_names_and_stakes_in_an_iron_triangle_game() {
    let dir = tempfile::tempdir().unwrap();
    let ex = repo().join("examples/iron-triangle");
    let duel = std::fs::read_to_string(ex.join("duel.toml")).unwrap();
    let duel = evil_toml(&duel, "Kuro")
        .replace("sheet = \"characters/", &format!("sheet = \"{}/characters/", ex.display()))
        .replace("want = \"", &format!("want = \"{EVIL} "));
    std::fs::write(dir.path().join("evil.toml"), duel).unwrap();
    let o = run_in(dir.path(), &["iron-triangle", "play", "evil.toml", "--bot", "all=greedy"], b"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_terminal_safe("iron-triangle play", &o);
    assert!(stdout(&o).contains("Eve\\u{1b}[2J"), "{}", stdout(&o));
    // At the keyboard: the seat views and prompts of a hot-seat game.
    let o = run_in(dir.path(), &["iron-triangle", "play", "evil.toml", "--bot", "ada=greedy"], b"");
    assert_terminal_safe("iron-triangle play at the keyboard", &o);
}

#[test]
fn terminal_safety_escapes_names_in_an_inciting_incident_scene() {
    let dir = tempfile::tempdir().unwrap();
    let scene = std::fs::read_to_string(repo().join("examples/inciting-incident/river-fight.toml")).unwrap();
    let scene = evil_toml(&evil_toml(&scene, "Bren"), "Shallows");
    std::fs::write(dir.path().join("evil.toml"), scene).unwrap();
    let o = run_in(dir.path(), &["inciting-incident", "play", "evil.toml", "--bot", "all=random"], b"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_terminal_safe("inciting-incident play", &o);
    assert!(stdout(&o).contains("Eve\\u{1b}[2J"), "{}", stdout(&o));
}

#[test]
fn terminal_safety_escapes_names_and_texts_of_a_campaign() {
    let dir = tempfile::tempdir().unwrap();
    let ada = std::fs::read_to_string(repo().join("examples/iron-triangle/campaign/ada.toml")).unwrap();
    let ada = evil_toml(&ada, "Ada");
    assert!(ada.contains(EVIL), "the example sheet names Ada");
    std::fs::write(dir.path().join("evil.toml"), ada).unwrap();
    let db = ["campaign", "--db", "c.sqlite"];
    let run = |rest: &[&str]| run_in(dir.path(), &[&db[..], rest].concat(), b"");
    let o = run(&["character", "create", "--file", "evil.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_terminal_safe("campaign character create", &o);
    let o = run(&["countdown", "create", "Doom\u{1b}[2J\r\nerror: forged", "4"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for read in [&["status"][..], &["character", "list"], &["countdown", "list"]] {
        let o = run(read);
        assert_eq!(o.status.code(), Some(0), "{read:?}: {}", stderr(&o));
        assert_terminal_safe(&format!("campaign {read:?}"), &o);
    }
}

#[test]
fn terminal_safety_escapes_names_and_the_scene_of_a_nodice_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let ex = repo().join("examples/nodice");
    let bandit = std::fs::read_to_string(ex.join("actors/bandit.toml")).unwrap();
    std::fs::write(dir.path().join("bandit.toml"), evil_toml(&bandit, "Bandit")).unwrap();
    let conflict = std::fs::read_to_string(ex.join("pc-vs-bandit.toml"))
        .unwrap()
        .replace("sheet = \"actors/kara.toml\"", &format!("sheet = \"{}/actors/kara.toml\"", ex.display()))
        .replace("sheet = \"actors/bandit.toml\"", "sheet = \"bandit.toml\"")
        .replace("scene = \"", &format!("scene = \"{EVIL} "));
    std::fs::write(dir.path().join("evil.toml"), conflict).unwrap();
    let o = run_in(dir.path(), &["nodice", "play", "evil.toml", "--bot", "all=greedy"], b"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_terminal_safe("nodice play", &o);
    assert!(stdout(&o).contains("Eve\\u{1b}[2J"), "{}", stdout(&o));
    let o = run_in(dir.path(), &["nodice", "play", "evil.toml", "--bot", "kara=greedy"], b"");
    assert_terminal_safe("nodice play at the keyboard", &o);
}

#[test]
fn terminal_safety_escapes_names_in_a_nodice_resolve() {
    let dir = tempfile::tempdir().unwrap();
    // No colon: `--actor` splits the name off at the first one.
    let evil = "Eve\u{1b}[2J\u{1b}[H\r\nERROR forged line\u{9b}";
    let a = format!("{evil}: str 4 wildcard -> Bandit");
    let b = format!("Bandit: pre 3 -> {evil}");
    let o = run_in(dir.path(), &["nodice", "resolve", "--stakes", "1", "--actor", &a, "--actor", &b], b"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_terminal_safe("nodice resolve", &o);
    assert!(!stdout(&o).lines().any(|l| l.starts_with("ERROR forged")), "{}", stdout(&o));
    assert!(stdout(&o).contains("Eve\\u{1b}[2J"), "{}", stdout(&o));
}
