//! The browser table's tests in a real browser (issue 17): runs the Node suite of `e2e/`
//! (playwright-core driving Debian's Chromium) against the test-built `facedown` binary, and
//! fails when it fails, printing its output.
//!
//! It needs `node`, Chromium (`/usr/bin/chromium`, or `FACEDOWN_CHROMIUM`) and
//! `e2e/node_modules` (`npm ci --prefix e2e`). Without them it is skipped with a message, unless
//! `CI` is set: then it fails, since `.ci/run` installs them. The suite writes only into a
//! temporary folder (its servers' databases, Chromium's profiles), never into the checkout.

#![cfg(unix)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The whole suite's limit: its own deadlines per game are far shorter.
const LIMIT: Duration = Duration::from_secs(15 * 60);

/// The repository's `e2e/` folder.
fn e2e_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../e2e")
}

/// Why the suite cannot run here, if it cannot.
fn missing(e2e: &Path) -> Option<String> {
    let chromium = std::env::var("FACEDOWN_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).exists() {
        return Some(format!("no Chromium at {chromium} (apt-get install chromium chromium-driver)"));
    }
    if !e2e.join("node_modules/playwright-core/package.json").exists() {
        return Some("no e2e/node_modules/playwright-core (npm ci --prefix e2e)".into());
    }
    let node = Command::new("node").arg("--version").stdin(Stdio::null()).output();
    if !node.is_ok_and(|o| o.status.success()) {
        return Some("no `node` on the PATH".into());
    }
    None
}

/// Collects a pipe on a thread.
fn collect(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = pipe.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    })
}

#[test]
fn the_browser_table_in_a_real_browser() {
    let e2e = e2e_dir();
    if let Some(why) = missing(&e2e) {
        assert!(std::env::var_os("CI").is_none(), "CI runs the browser tests, but: {why}");
        eprintln!("skipped: {why}");
        return;
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&e2e)
        .expect("e2e/ can be read")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(".test.mjs")))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "e2e/ holds its *.test.mjs files");

    let tmp = tempfile::tempdir().expect("a temporary folder");
    let started = Instant::now();
    let mut child = Command::new("node")
        .args(["--test", "--test-concurrency=1"])
        .args(&files)
        .current_dir(tmp.path())
        .env("FACEDOWN_BIN", env!("CARGO_BIN_EXE_facedown"))
        .env("TMPDIR", tmp.path())
        // The embedded pages are what is tested, not a folder a developer serves from.
        .env_remove("FACEDOWN_WEB_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");
    let out = collect(child.stdout.take().expect("stdout"));
    let err = collect(child.stderr.take().expect("stderr"));
    let status = loop {
        if let Some(s) = child.try_wait().expect("node can be waited for") {
            break Some(s);
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let (out, err) = (out.join().unwrap_or_default(), err.join().unwrap_or_default());
    println!("{out}");
    eprintln!("{err}");
    eprintln!("the browser suite took {:.0} s", started.elapsed().as_secs_f64());
    match status {
        Some(s) => assert!(s.success(), "the browser suite failed ({s}): see its output above"),
        None => panic!("the browser suite ran longer than {LIMIT:?}"),
    }
}
