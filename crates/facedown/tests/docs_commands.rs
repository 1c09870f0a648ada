//! Every shell command shown in README.md and docs/*.md runs, so the documentation stays true.
//!
//! The commands are the lines of the ```sh blocks (a line ending in `\` goes on with the next).
//! `facedown ARGS` and `cargo run … -p facedown -- ARGS` run the test-built binary
//! (`CARGO_BIN_EXE_facedown`, first on `PATH` as `facedown`), through `sh -c` so quotes,
//! comments and redirections mean what they mean in a terminal. The commands of one document
//! run in order in one temporary directory of their own (a campaign created by one line is used
//! by the next), which holds a link to every top-level entry of the repository: relative paths
//! such as `examples/…` resolve as from the repository root, and files the commands write stay
//! in the temporary directory. Standard input is empty.
//!
//! Each command must exit 0, unless one of the explicit lists below says otherwise, with its
//! reason: skipped ([`SKIPPED`]), replaced by a smaller variant the same document shows
//! ([`SMALLER`]), or expected to stop with a given status ([`EXPECTED`]).
//!
//! A `facedown serve` command runs until it is stopped: it is run with `--listen 127.0.0.1:0`
//! added (the last `--listen` wins), must print that it is listening, and is then stopped with
//! SIGTERM and must exit 0 (see [`run_server`]).

#![cfg(unix)]

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_facedown");

/// How long one command may run.
const TIMEOUT: Duration = Duration::from_secs(120);

/// Commands not run at all, matched by the start of the command (as normalised: `cargo run …
/// -p facedown --` written `facedown`, spaces collapsed), each with its reason.
const SKIPPED: &[(&str, &str)] = &[
    ("cargo test", "runs the test suite this test is part of"),
    (
        "PROPTEST_CASES=100000 cargo test",
        "the property tests at depth: an hour and more of the suite this test is part of",
    ),
    ("cargo bench", "benchmarks: release builds with LTO and minutes of measuring"),
    (
        "target/release/loadgen",
        "the server's load generator: release builds and seconds of load on every core; \
         bench/tests/load.rs runs a short load against a real server",
    ),
    (
        "target/release/relayfloor",
        "the relay floor: a release build and seconds of load on every core; bench/tests/relay.rs \
         runs it briefly, in process and as this binary",
    ),
    (
        "cargo build --profile profiling",
        "a whole optimised build of the server and the load generator: minutes, and it writes into target/",
    ),
    (
        "target/profiling/loadgen",
        "the server's load generator on the profiling build (see the skipped target/release/loadgen)",
    ),
    (
        ".ci/postgres.sh start",
        "starts a throwaway PostgreSQL cluster (installing PostgreSQL if missing) for the skipped \
         PostgreSQL runs of the load generator; .ci/run starts one for the PostgreSQL tests",
    ),
    (
        "psql \"$PG/postgres\"",
        "creates a database on the cluster of the skipped .ci/postgres.sh line, for the skipped \
         PostgreSQL runs of the load generator",
    ),
    ("cargo +nightly fuzz", "fuzzing: the nightly toolchain and minutes of running, outside CI"),
    ("bench/", "benchmark scripts comparing with external tools (Gambit, pygambit)"),
    ("cargo build --release", "a release build of an example: minutes, and it writes into target/"),
    ("/usr/bin/time", "times the release-built example of the skipped `cargo build --release` line"),
    ("cargo run --release -p solver", "a release build and a million random conflicts"),
    ("facedown nodice play CONFLICT_FILE", "a synopsis with placeholders, not a command"),
    ("facedown nodice play --resume FILE", "a synopsis with placeholders, not a command"),
    ("facedown nodice resolve --actor SPEC", "a synopsis with placeholders, not a command"),
    ("facedown nodice resolve --input FILE", "a synopsis with placeholders, not a command"),
    (
        "facedown join",
        "plays a seat of a running table from its link (a secret the document cannot show); \
         tests/join.rs plays one against `facedown serve`",
    ),
    (
        "facedown serve --db postgres://",
        "needs the reader's PostgreSQL server; tests/serve_cli.rs and crates/server/tests/postgres.rs \
         serve tables from a throwaway one (FACEDOWN_TEST_POSTGRES)",
    ),
    (
        "facedown tables import --db postgres://",
        "needs the reader's PostgreSQL server; tests/tables_cli.rs moves a table mid-game into a \
         throwaway one (FACEDOWN_TEST_POSTGRES) and serves it there",
    ),
    (
        "pg_dump ",
        "backs up the reader's PostgreSQL database (docs/hosting.md, Backups); `facedown tables \
         backup` refusing PostgreSQL for it is checked by tests/tables_cli.rs",
    ),
    ("pg_restore ", "restores the skipped pg_dump line's backup into the reader's PostgreSQL server"),
    (
        "sudo -u postgres",
        "creates a role and a database on the reader's PostgreSQL server, as its administrator",
    ),
    (
        "facedown serve --listen 0.0.0.0:8443 --tls-cert cert.pem",
        "needs the reader's own certificate and key; tests/serve_cli.rs checks the flags",
    ),
    (
        "apt-get install chromium",
        "installs Debian's Chromium for the browser tests, as root; .ci/run does it when missing",
    ),
    (
        "npm ci --prefix e2e",
        "installs playwright-core into e2e/node_modules, in the checkout; .ci/run does it before the tests",
    ),
    (
        "node e2e/screenshots.mjs",
        "writes the screenshots into docs/screenshots/, in the checkout (tests must not change it); \
         it drives the same pages tests/browser.rs tests",
    ),
];

/// Commands whose full run is too slow for a test, stood in for by a smaller variant that the
/// same document shows (and this test runs where it is shown): (the command's start, the
/// variant as shown in the document, the reason).
const SMALLER: &[(&str, &str, &str)] = &[(
    "facedown analyze distributions --csv win.csv --svg win.svg",
    "facedown analyze distributions --total 6",
    "every 10-point distribution against every other is 1.06 million states (31 s optimised); \
     the 6-point version shown next to it runs the same code",
)];

/// Commands that stop with a status other than 0 on purpose, run with empty standard input:
/// (the command's start, the document, the status, a text its standard error must contain, the
/// reason).
const EXPECTED: &[(&str, &str, i32, &str, &str)] = &[
    (
        "facedown iron-triangle play --bot gm=equilibrium",
        "README.md",
        2,
        "the input ended before the conflict did",
        "hot-seat play at the keyboard: with no input and no --save the game stops at Ada's first \
         stance; the test checks it starts (the equilibrium GM is solved) and stops cleanly",
    ),
    (
        "facedown inciting-incident play examples/inciting-incident/cover-up.toml --bot gm=random",
        "",
        2,
        "the input ended before the scene did",
        "hot-seat play at the keyboard: with no input and no --save the scene stops at the first \
         declarations; the test checks the scene file loads and the scene starts",
    ),
];

/// A command found in a document.
struct Shown {
    /// The document, relative to the repository root.
    doc: String,
    /// Its first line number.
    line: usize,
    /// The command as written (continuation lines joined).
    text: String,
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// README.md and docs/*.md, in a stable order.
fn documents() -> Vec<PathBuf> {
    let root = repo();
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    docs.insert(0, root.join("README.md"));
    docs
}

/// The commands of the ```sh blocks of `text`.
fn commands(doc: &str, text: &str) -> Vec<Shown> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending: Option<Shown> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            in_sh = !in_sh && trimmed.trim_start_matches('`').trim() == "sh";
            if let Some(p) = pending.take() {
                out.push(p);
            }
            continue;
        }
        if !in_sh {
            continue;
        }
        let cmd = match pending.take() {
            Some(mut p) => {
                p.text.push('\n');
                p.text.push_str(line);
                p
            }
            None if trimmed.is_empty() || trimmed.starts_with('#') => continue,
            None => Shown { doc: doc.to_owned(), line: i + 1, text: line.to_owned() },
        };
        if line.trim_end().ends_with('\\') {
            pending = Some(cmd);
        } else {
            out.push(cmd);
        }
    }
    out
}

/// The command with `cargo run [flags] -p facedown [flags] -- ` written `facedown `, and its
/// whitespace collapsed (for matching the lists above).
fn normalise(text: &str) -> (String, String) {
    let mut script = text.to_owned();
    let t = text.trim_start();
    let dashes = t.find(" -- ").filter(|_| t.starts_with("cargo run"));
    if let Some(dashes) = dashes {
        let flags: Vec<&str> = t[..dashes].split_whitespace().collect();
        let facedown = flags.windows(2).any(|w| (w[0] == "-p" || w[0] == "--package") && w[1] == "facedown")
            || flags.contains(&"--package=facedown");
        if facedown {
            script = format!("facedown {}", &t[dashes + 4..]);
        }
    }
    let key = script.replace("\\\n", " ").split_whitespace().collect::<Vec<_>>().join(" ");
    (script, key)
}

/// A temporary directory holding a link to every top-level entry of the repository.
fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(repo()).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        if name == ".git" || name == "target" {
            continue;
        }
        std::os::unix::fs::symlink(e.path(), dir.path().join(&name)).unwrap();
    }
    std::fs::create_dir(dir.path().join(".data")).unwrap();
    dir
}

/// Runs `script` with `sh -c` in `dir`; returns the status (None: killed after the timeout),
/// standard error and the time taken.
fn run(dir: &Path, script: &str) -> (Option<i32>, String, Duration) {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let start = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path)
        // A campaign command without --db would use the user's data directory.
        .env("XDG_DATA_HOME", dir.join(".data"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh runs");
    let mut err_pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err_pipe.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code();
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status, reader.join().unwrap(), start.elapsed())
}

/// The environment assignments before a command (`NAME=value facedown …`), and the rest.
fn assignments(script: &str) -> (Vec<(String, String)>, String) {
    let mut vars = Vec::new();
    let mut rest = script.trim_start();
    while let Some((word, after)) = rest.split_once(' ') {
        match word.split_once('=') {
            Some((name, value))
                if !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_') =>
            {
                vars.push((name.to_owned(), value.to_owned()));
                rest = after.trim_start();
            }
            _ => break,
        }
    }
    (vars, rest.to_owned())
}

/// Runs a `facedown serve` command on 127.0.0.1 port 0 until it prints that it is listening,
/// then stops it with SIGTERM: it must exit 0. Returns the status (None: it never got ready
/// or did not stop in time), standard output and error, and the time taken.
fn run_server(dir: &Path, script: &str) -> (Option<i32>, String, Duration) {
    use std::io::BufRead as _;
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let (vars, command) = assignments(script);
    let start = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        // A trailing comment would swallow the added flag: it goes.
        .arg(format!(
            "exec {} --listen 127.0.0.1:0",
            command.split(" #").next().unwrap_or_default().trim_end()
        ))
        .current_dir(dir)
        .env("PATH", path)
        .env("XDG_DATA_HOME", dir.join(".data"))
        .envs(vars)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh runs");
    let mut err_pipe = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err_pipe.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    // The lines of standard output, on a channel, so waiting for readiness is bounded.
    let out_pipe = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out_pipe).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut printed = String::new();
    let ready = loop {
        match rx.recv_timeout(TIMEOUT.saturating_sub(start.elapsed())) {
            Ok(line) => {
                let ready = line.contains("listening on") || line.contains("\"addr\"");
                printed.push_str(&line);
                printed.push('\n');
                if ready {
                    break true;
                }
            }
            Err(_) => break false,
        }
    };
    if ready {
        // SAFETY: sends a signal to the child this test started (sh exec'd into facedown).
        unsafe {
            libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
        }
    }
    let stop = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            // Killed by a signal: reported as a shell does (128 + the signal's number).
            let code =
                s.code().or_else(|| std::os::unix::process::ExitStatusExt::signal(&s).map(|n| 128 + n));
            break if ready { code } else { None };
        }
        if stop.elapsed() > Duration::from_secs(30) || !ready {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = errors.join().unwrap();
    (status, format!("{printed}{stderr}"), start.elapsed())
}

/// Whether a command starts a server.
fn serves(key: &str) -> bool {
    assignments(key).1.starts_with("facedown serve") && !key.contains("--help")
}

/// The last `n` characters of `s`.
fn tail(s: &str, n: usize) -> String {
    let chars: Vec<char> = s.trim_end().chars().collect();
    let start = chars.len().saturating_sub(n);
    let cut: String = chars[start..].iter().collect();
    if start > 0 { format!("…{cut}") } else { cut }
}

/// Runs the commands of one document in order; returns its failures and its timings.
fn run_document(doc: &Path) -> (Vec<String>, Vec<String>) {
    let root = repo();
    let name = doc.strip_prefix(&root).unwrap().display().to_string();
    let text = std::fs::read_to_string(doc).unwrap();
    let shown = commands(&name, &text);
    let dir = workdir();
    let mut failures = Vec::new();
    let mut timings = Vec::new();
    for c in &shown {
        let at = format!("{}:{}", c.doc, c.line);
        let (script, key) = normalise(&c.text);
        if let Some((_, why)) = SKIPPED.iter().find(|(start, _)| key.starts_with(start)) {
            timings.push(format!("{at}: skipped ({why})"));
            continue;
        }
        if let Some((_, variant, why)) = SMALLER.iter().find(|(start, _, _)| key.starts_with(start)) {
            // The variant is run where the document shows it.
            if shown.iter().any(|o| normalise(&o.text).1.starts_with(variant)) {
                timings.push(format!("{at}: run as its smaller variant `{variant}` ({why})"));
            } else {
                failures.push(format!(
                    "{at}: `{key}` is too slow to run in a test, and {name} does not show the smaller \
                     variant `{variant}`: show it, or change the SMALLER list of this test"
                ));
            }
            continue;
        }
        if key.starts_with("cargo ") {
            failures.push(format!(
                "{at}: `{key}` is a cargo command that does not run facedown (`cargo run … -p facedown -- \
                 ARGS`): write it so, or add it to the SKIPPED list of this test with the reason"
            ));
            continue;
        }
        let expected =
            EXPECTED.iter().find(|(start, d, ..)| key.starts_with(start) && (d.is_empty() || *d == c.doc));
        let (want, must_say) = expected.map_or((0, ""), |e| (e.2, e.3));
        let (status, stderr, took) =
            if serves(&key) { run_server(dir.path(), &script) } else { run(dir.path(), &script) };
        timings.push(format!("{at}: {:.1} s  {key}", took.as_secs_f64()));
        match status {
            None => failures.push(format!(
                "{at}: `{key}` was still running after {} s; stderr: {}",
                TIMEOUT.as_secs(),
                tail(&stderr, 600)
            )),
            Some(code) if code != want || !stderr.contains(must_say) => failures.push(format!(
                "{at}: `{key}` exited with status {code} (the documentation needs {want}{}); stderr:\n    {}",
                if must_say.is_empty() { String::new() } else { format!(" and the error {must_say:?}") },
                tail(&stderr, 600).replace('\n', "\n    ")
            )),
            Some(_) => {}
        }
    }
    (failures, timings)
}

#[test]
fn every_command_in_the_readme_and_the_docs_runs() {
    let docs = documents();
    let results: Vec<(Vec<String>, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = docs.iter().map(|d| s.spawn(move || run_document(d))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut failures = Vec::new();
    for (f, timings) in results {
        for t in timings {
            println!("{t}");
        }
        failures.extend(f);
    }
    assert!(
        failures.is_empty(),
        "{} documented command(s) do not work as written:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_command_extraction_joins_continuation_lines_and_skips_other_blocks() {
    let text = "```sh\nfacedown a \\\n  --b \"c d\"   # note\n\n# a comment\ncargo run -q -p facedown -- x y\n```\n\n```text\nfacedown not-a-command\n```\n";
    let found = commands("T.md", text);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].line, 2);
    assert_eq!(normalise(&found[0].text).1, "facedown a --b \"c d\" # note");
    assert_eq!(found[1].line, 6);
    assert_eq!(normalise(&found[1].text).1, "facedown x y");
    assert_eq!(
        normalise("cargo run --release -p solver --example e -- 1").1,
        "cargo run --release -p solver --example e -- 1"
    );
    let (vars, rest) = assignments("FACEDOWN_ADMIN_SECRET=abc facedown serve --json");
    assert_eq!(
        (vars, rest.as_str()),
        (vec![("FACEDOWN_ADMIN_SECRET".into(), "abc".into())], "facedown serve --json")
    );
    assert!(
        serves("facedown serve --table nodice")
            && !serves("facedown serve --help")
            && !serves("facedown join x")
    );
}
