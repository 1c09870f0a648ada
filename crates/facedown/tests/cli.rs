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
