//! `facedown join`: a seat of a table of `facedown serve` (127.0.0.1 port 0) played over the
//! protocol to the end against a server bot, by script; the spectator watching it; a restart
//! of the server in the middle; and links refused without their token being printed.

#![cfg(unix)]

mod common;

use std::process::{Command, Stdio};

use common::{BIN, LIMIT, Server, rebase, run_facedown, wait_bounded};

/// A script that always takes the first choice, long enough for any duel.
fn first_choices(dir: &std::path::Path, n: usize) -> std::path::PathBuf {
    let path = dir.join(format!("first-{n}.jsonl"));
    std::fs::write(&path, "1\n".repeat(n)).unwrap();
    path
}

/// Runs `facedown join` on a link (from a file) with more flags, bounded.
fn join(dir: &std::path::Path, link: &str, extra: &[&str]) -> (Option<i32>, String, String) {
    let file = dir.join("seat.link");
    std::fs::write(&file, format!("{link}\n")).unwrap();
    let mut args = vec!["join", "--retries", "2", "--link-file", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    run_facedown(&args)
}

fn duel(db: &std::path::Path) -> Server {
    Server::start(db, &["--table", "iron-triangle:duel", "--bot", "gm=greedy", "--think-ms", "0"])
}

#[test]
fn a_seat_plays_the_duel_to_the_end_against_a_server_bot_while_a_spectator_watches() {
    let dir = tempfile::tempdir().unwrap();
    let server = duel(&dir.path().join("t.db"));
    let table = &server.started["table"];
    let ada = table["seats"]["ada"].as_str().unwrap().to_owned();
    let spectator = table["spectator"].as_str().unwrap().to_owned();
    // The spectator watches from the start (its link on standard input).
    let mut watcher = Command::new(BIN)
        .args(["join", "--retries", "2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = watcher.stdin.take().unwrap();
        writeln!(stdin, "{spectator}").unwrap();
    }
    let script = first_choices(dir.path(), 2000);
    let (code, out, err) = join(dir.path(), &ada, &["--script", script.to_str().unwrap()]);
    assert_eq!(code, Some(0), "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains("Joined a table of Iron Triangle as Ada — seat ada."), "{out}");
    assert!(out.contains("===== Ada — seat ada ====="), "the prompt looks as in local play:\n{out}");
    assert!(out.contains("  1. "), "numbered choices:\n{out}");
    assert!(out.contains("The game is over."), "{out}");
    let watched = wait_bounded(&mut watcher, LIMIT);
    let mut seen = String::new();
    std::io::Read::read_to_string(&mut watcher.stdout.take().unwrap(), &mut seen).unwrap();
    assert_eq!(watched, Some(0), "the spectator ends with the game:\n{seen}");
    assert!(seen.contains("as a spectator") && seen.contains("The game is over."), "{seen}");
    assert!(!seen.contains(" =====\n"), "a spectator is asked nothing:\n{seen}");
}

#[test]
fn json_prints_every_frame_from_the_welcome_to_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let server = duel(&dir.path().join("t.db"));
    let ada = server.started["table"]["seats"]["ada"].as_str().unwrap().to_owned();
    let script = first_choices(dir.path(), 2000);
    let (code, out, err) = join(dir.path(), &ada, &["--json", "--script", script.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let frames: Vec<serde_json::Value> =
        out.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect();
    assert_eq!(frames[0]["type"], "welcome", "{out}");
    assert!(frames.iter().any(|f| f["type"] == "ack"), "commands are acknowledged");
    assert!(frames.iter().any(|f| f["over"] == true), "the game ends");
    assert!(err.contains("===== Ada — seat ada"), "prompts go to standard error with --json");
}

#[test]
fn after_a_crash_and_a_restart_the_seat_goes_on_where_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let mut server = duel(&db);
    let ada = server.started["table"]["seats"]["ada"].as_str().unwrap().to_owned();
    let spectator = server.started["table"]["spectator"].as_str().unwrap().to_owned();
    // Ada's stance only: the reveal follows (the bot has chosen), then the script ends.
    let few = first_choices(dir.path(), 1);
    let (code, out, err) = join(dir.path(), &ada, &["--script", few.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{out}\n{err}");
    assert!(err.contains("the script ended before the game did"), "{err}");
    server.crash();

    let server = duel(&db);
    let ada = rebase(&ada, server.addr);
    let (code, out, _) =
        join(dir.path(), &rebase(&spectator, server.addr), &["--json", "--script", few.to_str().unwrap()]);
    let welcome: serde_json::Value = serde_json::from_str(out.lines().next().unwrap_or("{}")).unwrap();
    assert!(welcome["seq"].as_u64().is_some_and(|s| s >= 5), "the table kept its log: {out} ({code:?})");
    let texts = welcome["updates"].to_string();
    assert!(texts.contains("Stances revealed"), "the stances were kept: {texts}");
    let rest = first_choices(dir.path(), 2000);
    let (code, out, err) = join(dir.path(), &ada, &["--script", rest.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("The game is over."), "{out}");
    assert!(!out.contains("commit a stance"), "Ada was not asked her stance again:\n{out}");
}

#[test]
fn a_bad_link_is_refused_without_printing_its_token() {
    let (code, _, err) = run_facedown(&["join", "http://127.0.0.1:9/u/1#secret0123456789"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("not a facedown link") && !err.contains("secret0123456789"), "{err}");
    let (code, _, err) = run_facedown(&["join"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no link"), "{err}");
}

#[test]
fn a_wrong_token_is_refused_by_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let server = duel(&dir.path().join("t.db"));
    let ada = server.started["table"]["seats"]["ada"].as_str().unwrap();
    let (base, _) = ada.split_once('#').unwrap();
    let wrong = format!("{base}#00000000000000000000000000000000");
    let (code, out, err) = join(dir.path(), &wrong, &[]);
    assert_eq!(code, Some(2), "{out}\n{err}");
    assert!(err.contains("refused the link"), "{err}");
    assert!(!err.contains("00000000000000000000000000000000"), "{err}");
}

#[test]
fn a_server_that_is_gone_is_given_up_after_the_retries() {
    // A port that was just free: nobody listens there.
    let addr = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let link = format!("http://{addr}/t/1#0123456789abcdef0123456789abcdef");
    let started = std::time::Instant::now();
    let (code, _, err) = join(dir.path(), &link, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("after 2 tries"), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

#[test]
fn a_dropped_connection_is_resumed_from_the_last_sequence_number_seen() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let server = duel(&dir.path().join("t.db"));
    let relay = common::Relay::start(server.addr);
    let ada = rebase(server.started["table"]["seats"]["ada"].as_str().unwrap(), relay.addr);
    let (mut child, mut keys, rx) = spawn_json(&ada);
    let mut frames = Vec::new();
    // Ada's stance, acknowledged; then the network drops the connection.
    frame_where(&rx, &mut frames, "the welcome", |f| f["prompt"].is_object());
    writeln!(keys, "1").unwrap();
    let acked = frame_where(&rx, &mut frames, "the ack", |f| f["type"] == "ack")["seq"].as_u64().unwrap();
    relay.cut();
    // The client reconnects by itself with `since`: its second welcome has only what it missed.
    let welcome = frame_where(&rx, &mut frames, "the second welcome", |f| f["type"] == "welcome");
    let seen_before = frames[..frames.len() - 1].iter().filter_map(|f| f["seq"].as_u64()).max().unwrap();
    assert!(seen_before >= acked);
    for u in welcome["updates"].as_array().unwrap() {
        assert!(u["seq"].as_u64().unwrap() > seen_before, "only what was missed: {u} (seen {seen_before})");
    }
    // The game goes on over the new connection, to its end.
    for _ in 0..200 {
        let _ = writeln!(keys, "1");
    }
    drop(keys);
    if welcome["over"] != true {
        frame_where(&rx, &mut frames, "the end", |f| f["over"] == true);
    }
    assert_eq!(wait_bounded(&mut child, LIMIT), Some(0));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(err.contains("connection lost"), "{err}");
}

#[test]
fn the_gm_link_hands_a_seat_to_a_bot_and_watches_the_game_end() {
    let dir = tempfile::tempdir().unwrap();
    let server = duel(&dir.path().join("t.db"));
    let gm = server.started["table"]["gm"].as_str().unwrap().to_owned();
    let script = dir.path().join("gm.jsonl");
    // The GM hands Ada's seat to a server bot: the two bots play the duel out.
    std::fs::write(&script, "\"bot ada random\"\n").unwrap();
    let (code, out, err) = join(dir.path(), &gm, &["--script", script.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("as the GM"), "{out}");
    assert!(out.contains("The game is over."), "{out}");
    assert!(!out.contains(" =====\n"), "the GM link is asked nothing:\n{out}");
    // A choice is a seat's: from the GM link it is refused before anything is sent.
    let other = duel(&dir.path().join("other.db"));
    let gm = other.started["table"]["gm"].as_str().unwrap().to_owned();
    std::fs::write(&script, "1\n").unwrap();
    let (code, _, err) = join(dir.path(), &gm, &["--script", script.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("gm.jsonl:1: not accepted: only a seat's link plays commands"), "{err}");
}

/// `facedown join --json` on `link` with keys on a pipe; its frames come on the channel.
fn spawn_json(
    link: &str,
) -> (std::process::Child, std::process::ChildStdin, std::sync::mpsc::Receiver<serde_json::Value>) {
    use std::io::{BufRead, Write};
    let mut child = Command::new(BIN)
        .args(["join", "--json", "--retries", "4"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut keys = child.stdin.take().unwrap();
    writeln!(keys, "{link}").unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(serde_json::from_str(&line).unwrap_or_default()).is_err() {
                break;
            }
        }
    });
    (child, keys, rx)
}

/// The next frame that `fits`, waiting at most 30 s; every frame read goes to `seen`.
fn frame_where(
    rx: &std::sync::mpsc::Receiver<serde_json::Value>,
    seen: &mut Vec<serde_json::Value>,
    what: &str,
    fits: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    loop {
        let f = rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no frame: {what}"));
        seen.push(f.clone());
        if fits(&f) {
            return f;
        }
    }
}

#[test]
fn a_command_whose_answer_was_lost_is_sent_again_with_its_id_and_applied_once() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let server = duel(&dir.path().join("t.db"));
    let relay = common::Relay::start(server.addr);
    let table = &server.started["table"];
    let ada = rebase(table["seats"]["ada"].as_str().unwrap(), relay.addr);
    // A spectator, straight to the server, sees when Ada's stance is in.
    let (mut watcher, _watcher_keys, watched) = spawn_json(table["spectator"].as_str().unwrap());
    let (mut child, mut keys, rx) = spawn_json(&ada);
    let mut frames = Vec::new();
    frame_where(&rx, &mut frames, "Ada's first prompt", |f| f["prompt"].is_object());
    // The network loses everything the server says from now on: Ada's command is applied but
    // its ack never arrives.
    relay.swallow(true);
    writeln!(keys, "1").unwrap();
    let mut others = Vec::new();
    frame_where(&watched, &mut others, "Ada's stance, seen by the spectator", |f| {
        f["updates"].as_array().is_some_and(|u| {
            u.iter().any(|u| u["event"]["event"] == "stance_committed" && u["event"]["fighter"] == 0)
        })
    });
    relay.cut();
    relay.swallow(false);
    // The client reconnects and sends the command again with its id: answered with the
    // first answer, not applied twice (which the rules would refuse: the stance is in).
    frame_where(&rx, &mut frames, "the second welcome", |f| f["type"] == "welcome");
    let ack = frame_where(&rx, &mut frames, "the ack of the command sent again", |f| f["type"] == "ack");
    assert!(ack["id"].as_str().is_some_and(|id| id.ends_with("-1")), "the first command's id: {ack}");
    for _ in 0..200 {
        let _ = writeln!(keys, "1");
    }
    drop(keys);
    frame_where(&rx, &mut frames, "the end", |f| f["over"] == true);
    assert_eq!(wait_bounded(&mut child, LIMIT), Some(0));
    assert_eq!(wait_bounded(&mut watcher, LIMIT), Some(0), "the spectator ends with the game");
    let errors: Vec<_> = frames.iter().filter(|f| f["type"] == "error").collect();
    assert!(errors.is_empty(), "nothing was refused: {errors:?}");
}

#[test]
fn a_seat_of_each_other_system_plays_to_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let script = first_choices(dir.path(), 3000);
    let cases: [(&str, &[&str], &str, &str); 2] = [
        ("nodice:pc-vs-bandit", &["--bot", "gm=greedy"], "kara", "No Dice Conflict"),
        (
            "inciting-incident:river-fight",
            &["--bot", "gm=random", "--bot", "bren=random"],
            "mira",
            "== Round 1 ==",
        ),
    ];
    for (table, bots, seat, opening) in cases {
        let mut flags = vec!["--table", table, "--think-ms", "0"];
        flags.extend_from_slice(bots);
        let server = Server::start(&dir.path().join(format!("{seat}.db")), &flags);
        let link = server.started["table"]["seats"][seat].as_str().unwrap().to_owned();
        let (code, out, err) = join(dir.path(), &link, &["--script", script.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{table}: {out}\n{err}");
        assert!(out.contains(opening), "{table} opens as in local play:\n{out}");
        assert!(out.contains(&format!("— seat {seat} =====")) && out.contains("The game is over."), "{out}");
    }
}

/// `facedown join` of a sealed seat at `table` to the end, as JSON frames, and the log items
/// they carried.
fn sealed_seat_played(
    table: &str,
    bots: &[&str],
    seat: &str,
) -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
    let dir = tempfile::tempdir().unwrap();
    let mut flags = vec!["--table", table, "--think-ms", "0", "--sealed", seat];
    flags.extend_from_slice(bots);
    let server = Server::start(&dir.path().join("t.db"), &flags);
    let link = server.started["table"]["seats"][seat].as_str().unwrap().to_owned();
    let script = first_choices(dir.path(), 3000);
    let (code, out, err) = join(dir.path(), &link, &["--json", "--script", script.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{table}: {err}");
    let frames: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let items = frames.iter().filter_map(|f| f["updates"].as_array()).flatten().cloned().collect();
    assert!(frames.iter().any(|f| f["type"] == "bound"), "{table}: rounds were bound");
    assert!(frames.iter().any(|f| f["over"] == true), "{table}: the game ends");
    (frames, items)
}

#[test]
fn a_sealed_seat_commits_then_reveals_each_choice_to_the_end() {
    let (frames, items) = sealed_seat_played("iron-triangle:duel", &["--bot", "gm=greedy"], "ada");
    assert_eq!(frames[0]["seats"][0]["mode"], "sealed", "every seat sees the modes");
    assert!(items.iter().any(|u| u["kind"] == "opened" && u["seat"] == 0), "Ada's choices were opened");
    assert!(!items.iter().any(|u| u["kind"] == "fault"), "an honest client never faults");
    // docs/fairness.md §7.2: Iron Triangle draws nothing before a reveal, so its table has no
    // opening round: Ada is asked her first stance at once, and never opens `{}`.
    assert_ne!(frames[0]["round"]["opening"], true, "{}", frames[0]);
    assert!(frames[0]["prompt"].is_object(), "{}", frames[0]);
    assert!(!items.iter().any(|u| u["kind"] == "opened" && u["command"] == serde_json::json!({})));
}

#[test]
fn a_sealed_seat_takes_its_part_in_the_opening_round_by_itself() {
    let (frames, items) = sealed_seat_played(
        "inciting-incident:river-fight",
        &["--bot", "gm=random", "--bot", "bren=random"],
        "mira",
    );
    // docs/fairness.md §7.2: an Inciting Incident table may draw as it opens (the initiative
    // lot), so it opens with an opening round, which the client sealed and revealed on its
    // own: `{}` is Mira's first opened command, and the rules start after its mix.
    assert_eq!(frames[0]["round"]["opening"], true, "{}", frames[0]);
    let mira =
        frames[0]["seats"].as_array().unwrap().iter().find(|s| s["name"] == "mira").unwrap()["seat"].clone();
    let first = items.iter().position(|u| u["kind"] == "opened" && u["seat"] == mira).unwrap();
    assert_eq!(items[first]["command"], serde_json::json!({}));
    let mix = items.iter().position(|u| u["kind"] == "mix").unwrap();
    assert!(
        mix < first && !items[..mix].iter().any(|u| u["kind"] == "event"),
        "the rules start after its mix"
    );
    assert!(!items.iter().any(|u| u["kind"] == "fault"), "an honest client never faults");
}
