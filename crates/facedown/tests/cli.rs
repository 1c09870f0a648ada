//! Behaviour shared by every subcommand of the built binary.

use std::process::{Command, Stdio};

/// `facedown … | head` closes the pipe early: the program must end quietly, never with a
/// panic about a broken pipe.
#[cfg(unix)]
#[test]
fn output_cut_short_by_a_closed_pipe_ends_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let mut child = Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args(["iron-triangle", "play", "--bot", "all=random", "--seed", "3"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    // Close the reading end before the game prints its first line.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("the binary ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "a closed pipe made facedown panic: {stderr}");
    assert!(
        out.status.signal() == Some(SIGPIPE) || out.status.success(),
        "expected to end by SIGPIPE (or to finish before the pipe closed), got {:?}",
        out.status
    );
}

/// SIGPIPE's number on every Unix this project runs on.
#[cfg(unix)]
const SIGPIPE: i32 = 13;

#[test]
fn every_subcommand_has_help() {
    for args in [
        &["--help"][..],
        &["iron-triangle", "play", "--help"],
        &["iron-triangle", "resolve", "--help"],
        &["campaign", "--help"],
        &["nodice", "play", "--help"],
        &["nodice", "resolve", "--help"],
        &["inciting-incident", "play", "--help"],
        &["inciting-incident", "roll", "--help"],
        &["analyze", "--help"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_facedown")).args(args).output().expect("the binary runs");
        assert!(out.status.success(), "facedown {args:?} failed");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("Usage:"),
            "facedown {args:?} printed no usage"
        );
    }
}

/// Every `play` command reads `--bot SEAT=KIND` the same way: an unknown kind names the
/// ruleset's kinds, an unknown seat lists the seats, and both exit with status 2.
#[test]
fn bot_flags_are_checked_alike_in_every_play_command() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["iron-triangle", "play", "--bot", "gm=clever"],
            "Iron Triangle has `random`, `greedy`, `equilibrium`",
        ),
        (
            &["nodice", "play", "examples/nodice/pc-vs-bandit.toml", "--bot", "gm=clever"],
            "No Dice has `random`, `greedy`",
        ),
        (
            &[
                "inciting-incident",
                "play",
                "examples/inciting-incident/river-fight.toml",
                "--bot",
                "gm=greedy",
            ],
            "Inciting Incident has `random`",
        ),
        (&["iron-triangle", "play", "--bot", "nobody=random"], "the seats are"),
    ];
    for (args, message) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_facedown"))
            .args(args)
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .stdin(Stdio::null())
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "facedown {args:?}: {stderr}");
        assert!(stderr.contains(message), "facedown {args:?} should say {message:?}: {stderr}");
    }
}

fn run_with(args: &[&str], stdin: &str) -> std::process::Output {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// Issue 14, part 8: `--log FILE` appends the narrated spectator log as the game goes, in a
/// file readable by its owner only — also with `--json`, and up to a game's error.
#[test]
fn log_file_gets_the_narrated_log_as_the_game_goes() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("game.log");
    let log_s = log.to_str().unwrap();
    let o = run_with(&["iron-triangle", "play", "--bot", "all=greedy", "--log", log_s], "");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&log).unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("Turn 1: Ada takes the turn") && text.contains("The conflict is over"), "{text}");
    for line in text.lines() {
        assert!(out.contains(line), "the log says what the screen says: {line}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(std::fs::metadata(&log).unwrap().permissions().mode() & 0o777, 0o600);
    }
    // Appended, and written in words with --json too.
    let o = run_with(
        &[
            "nodice",
            "play",
            "examples/nodice/pc-vs-bandit.toml",
            "--bot",
            "all=greedy",
            "--json",
            "--log",
            log_s,
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let more = std::fs::read_to_string(&log).unwrap();
    assert!(more.starts_with(&text) && more.contains("=== Hand 1"), "{more}");
    // A game stopped by a rejected script line keeps its log up to the error.
    let bad = "{\"seat\": \"ada\", \"command\": {\"commit_stance\": {\"stance\": {\"type\": \"grapple\", \"amount\": 2}}}}\n\
               {\"seat\": \"gm\", \"command\": {\"commit_stance\": {\"stance\": {\"type\": \"grapple\", \"amount\": 9}}}}\n";
    let short = dir.path().join("short.log");
    let o = run_with(&["iron-triangle", "play", "--script", "-", "--log", short.to_str().unwrap()], bad);
    assert_eq!(o.status.code(), Some(2));
    assert!(std::fs::read_to_string(&short).unwrap().contains("Ada commits a stance face down."));
}

/// Issue 14, part 8: `?` at any prompt prints the system's quick reference (or a fallback
/// line while it has none) and asks the same question again.
#[test]
fn a_question_mark_at_a_prompt_prints_the_quick_reference_and_asks_again() {
    use table::Ruleset as _;
    let cases: [(&[&str], String, &str); 3] = [
        (&["iron-triangle", "play"], iron_triangle::IronTriangle::quick_reference(), "ada> "),
        (
            &["nodice", "play", "examples/nodice/pc-vs-bandit.toml"],
            nodice::NoDice::quick_reference(),
            "kara> ",
        ),
        (
            &["inciting-incident", "play", "examples/inciting-incident/river-fight.toml"],
            inciting_incident::IncitingIncident::quick_reference(),
            "bren> ",
        ),
    ];
    for (args, reference, prompt) in cases {
        let o = run_with(args, "?\n");
        let out = String::from_utf8_lossy(&o.stdout);
        let first = reference.lines().find(|l| !l.trim().is_empty()).map(str::to_owned);
        let shown = first.unwrap_or_else(|| "No quick reference for".to_owned());
        let at = out.find(prompt).expect("a prompt");
        assert!(out[at..].contains(shown.trim()), "{args:?}: {out}");
        assert_eq!(out.matches(prompt).count(), 2, "{args:?}: asked again: {out}");
    }
}
