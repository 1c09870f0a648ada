//! `facedown serve`: its help, its refusals of bad flags (each naming the flag), and a real
//! server on 127.0.0.1 port 0 with a table created at start-up, stopped with SIGTERM and
//! started again on the same database.

#![cfg(unix)]

mod common;

use std::process::Command;

use common::{Server, get, run_facedown};

#[test]
fn serve_help_shows_the_flags_and_examples() {
    let (code, out, _) = run_facedown(&["serve", "--help"]);
    assert_eq!(code, Some(0));
    for flag in [
        "--listen",
        "--db",
        "--public-url",
        "--tls-cert",
        "--tls-key",
        "--admin-secret",
        "FACEDOWN_ADMIN_SECRET",
        "--max-message-bytes",
        "--messages-per-second",
        "--burst",
        "--max-tables",
        "--max-table-entries",
        "--max-table-bytes",
        "--max-connections",
        "--idle-seconds",
        "--hold-ms",
        "--table",
        "--bot",
        "--think-ms",
        "--decision-seconds",
        "--qr",
        "--json",
        "Examples:",
        "facedown serve --table iron-triangle:duel",
    ] {
        assert!(out.contains(flag), "serve --help lacks {flag}:\n{out}");
    }
}

#[test]
fn join_help_shows_the_ways_to_give_the_link() {
    let (code, out, _) = run_facedown(&["join", "--help"]);
    assert_eq!(code, Some(0));
    for text in ["--link-file", "--script", "--json", "--retries", "force SEAT", "Examples:"] {
        assert!(out.contains(text), "join --help lacks {text}:\n{out}");
    }
}

/// Runs `facedown serve ARGS` that must fail before serving: exit 2, the error naming `what`.
fn refused(args: &[&str], what: &str) {
    let mut all = vec!["serve", "--listen", "127.0.0.1:0"];
    all.extend_from_slice(args);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    all.extend_from_slice(&["--db", db.to_str().unwrap()]);
    let out = Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args(&all)
        .current_dir(dir.path())
        .env_remove("FACEDOWN_ADMIN_SECRET")
        .output()
        .expect("facedown runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(what), "{args:?} should name {what:?}: {stderr}");
}

#[test]
fn bad_flags_are_refused_naming_the_flag() {
    refused(&["--listen", "localhost"], "--listen");
    refused(&["--max-message-bytes", "lots"], "--max-message-bytes");
    refused(&["--max-message-bytes", "10"], "--max-message-bytes 10");
    refused(&["--max-table-entries", "0"], "--max-table-entries");
    refused(&["--max-table-bytes", "0"], "--max-table-bytes");
    refused(&["--public-url", "dice.example.org"], "--public-url");
    refused(&["--admin-secret", "short"], "--admin-secret");
    refused(&["--table", "chess"], "no rule system named \"chess\"");
    refused(&["--table", "iron-triangle", "--bot", "gm"], "--bot \"gm\": write SEAT=KIND");
    refused(&["--bot", "gm=greedy"], "--table");
    refused(&["--tls-cert", "cert.pem"], "--tls-key");
}

#[test]
fn a_bad_certificate_is_refused_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.pem");
    let text = dir.path().join("not-pem.txt");
    std::fs::write(&text, "hello").unwrap();
    let (m, t) = (missing.to_str().unwrap(), text.to_str().unwrap());
    refused(&["--tls-cert", m, "--tls-key", t], "--tls-cert");
    refused(&["--tls-cert", t, "--tls-key", t], "not a PEM file");
    // PEM in form but not a certificate: the server's TLS set-up refuses it.
    let fake = dir.path().join("fake.pem");
    std::fs::write(&fake, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n").unwrap();
    let f = fake.to_str().unwrap();
    refused(&["--tls-cert", f, "--tls-key", f], "TLS");
}

#[test]
fn serve_creates_a_table_prints_its_links_and_keeps_it_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("tables.db");
    let mut server =
        Server::start(&db, &["--table", "iron-triangle:duel", "--bot", "gm=greedy", "--think-ms", "0"]);
    let started = server.started.clone();
    assert_eq!(started["addr"].as_str(), Some(server.addr.to_string().as_str()));
    let table = &started["table"];
    let ada = table["seats"]["ada"].as_str().expect("a link for seat ada");
    let gm = table["gm"].as_str().expect("a GM link");
    let spectator = table["spectator"].as_str().expect("a spectator link");
    let base = format!("http://{}/t/", server.addr);
    for l in [ada, gm, spectator] {
        assert!(l.starts_with(&base), "{l} is a link of {base}");
        let token = l.rsplit_once('#').map(|(_, t)| t).unwrap_or_default();
        assert!(token.len() >= 32 && token.bytes().all(|b| b.is_ascii_hexdigit()), "128 random bits: {l}");
    }
    assert_ne!(ada, gm);
    let (status, body) = get(server.addr, "/healthz");
    assert_eq!(status, 200, "{body}");
    // SIGTERM: a graceful stop, status 0.
    assert_eq!(server.stop(), Some(0));
    assert!(db.exists());

    // Started again on the same database (on another free port), the table is still there:
    // its links, moved to the new address, still open their seats.
    let server = Server::start(&db, &[]);
    let moved = common::rebase(ada, server.addr);
    let (code, out, err) = common::join_json(&moved, &[]);
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.contains("\"type\":\"welcome\""),
        "the link still opens its seat: {first} / {err} ({code:?})"
    );
    assert!(first.contains("\"kind\":\"seat\""), "{first}");
    drop(server);
}

#[test]
fn json_start_up_has_no_table_without_table() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("t.db"), &[]);
    assert!(server.started["table"].is_null());
    assert!(server.started["url"].as_str().is_some_and(|u| u.starts_with("http://127.0.0.1:")));
}

#[test]
fn serve_keeps_its_tables_in_postgres_across_a_restart() {
    let Some(url) = common::postgres_database("serve_keeps_its_tables_in_postgres_across_a_restart") else {
        return;
    };
    let db = std::path::Path::new(&url);
    let mut server = Server::start(db, &["--table", "iron-triangle:duel"]);
    let ada = server.started["table"]["seats"]["ada"].as_str().expect("a link for seat ada").to_owned();
    assert_eq!(server.stop(), Some(0));

    // Started again on the same database, the table is still there: its link, moved to the
    // new address, still opens its seat.
    let server = Server::start(db, &[]);
    let (code, out, err) = common::join_json(&common::rebase(&ada, server.addr), &[]);
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.contains("\"type\":\"welcome\"") && first.contains("\"kind\":\"seat\""),
        "the link still opens its seat: {first} / {err} ({code:?})"
    );
    drop(server);
}

/// Two `facedown serve` processes on one PostgreSQL database serve the same tables (issue 16,
/// part 4): a table created through the first opens through the second, and still does after
/// the first is killed with SIGKILL.
#[test]
fn two_serve_processes_on_one_postgres_serve_the_same_tables() {
    let Some(url) = common::postgres_database("two_serve_processes_on_one_postgres_serve_the_same_tables")
    else {
        return;
    };
    let db = std::path::Path::new(&url);
    let mut first = Server::start(db, &["--table", "iron-triangle:duel", "--bot", "gm=greedy"]);
    let second = Server::start(db, &[]);
    let ada = first.started["table"]["seats"]["ada"].as_str().expect("a link for seat ada").to_owned();
    let opens = |what: &str| {
        let (code, out, err) = common::join_json(&common::rebase(&ada, second.addr), &[]);
        let first_line = out.lines().next().unwrap_or_default();
        assert!(
            first_line.contains("\"type\":\"welcome\"") && first_line.contains("\"kind\":\"seat\""),
            "{what}: the link opens its seat through the second server: {first_line} / {err} ({code:?})"
        );
    };
    opens("while both run");
    first.crash();
    opens("after the first was killed");
    drop(second);
}

#[test]
fn a_postgres_database_that_cannot_be_reached_is_named_without_its_password() {
    // Port 1 of loopback: nothing listens there.
    let out = Command::new(env!("CARGO_BIN_EXE_facedown"))
        .args(["serve", "--listen", "127.0.0.1:0", "--db", "postgres://facedown:hunter2@127.0.0.1:1/tables"])
        .env_remove("FACEDOWN_ADMIN_SECRET")
        .output()
        .expect("facedown runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot open the PostgreSQL database postgres://facedown:***@127.0.0.1:1/tables"),
        "{stderr}"
    );
    assert!(!stderr.contains("hunter2"), "the password is never printed: {stderr}");
}
