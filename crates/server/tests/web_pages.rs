//! The table page's generic modules (crates/server/web/js/conn.js, sealing.js, log.js) under
//! Node: the connection's retry rule and reconnection against a stand-in WebSocket, the sealed
//! choices kept per table, seat and round and when they may be revealed, and the log's words
//! (crates/server/web/test/pages.test.mjs); and the system modules' pure parts — choices
//! grouped into pickers, each full selection exactly one legal command — on real frames
//! (crates/server/web/test/systems.test.mjs, fixtures/). The pages themselves are driven in a real browser
//! by e2e/ (crates/facedown/tests/browser.rs).
//!
//! Without `node` on the PATH the test is skipped with a message, unless `CI` is set: then it
//! fails.

use std::path::Path;
use std::process::Command;

#[test]
fn the_pages_modules_pass_their_node_tests() {
    let present = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !present {
        assert!(std::env::var_os("CI").is_none(), "CI is set but `node` is not on the PATH");
        eprintln!("skipped: no `node` on the PATH to run crates/server/web/test/pages.test.mjs");
        return;
    }
    for (file, at_least) in [("pages.test.mjs", 10), ("systems.test.mjs", 10)] {
        let test = Path::new(env!("CARGO_MANIFEST_DIR")).join("web/test").join(file);
        let out = Command::new("node").arg("--test").arg(&test).output().expect("node runs");
        let said = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "node --test {}:\n{said}", test.display());
        assert!(said.contains("# fail 0"), "{said}");
        let passed = said.lines().filter(|l| l.starts_with("ok ")).count();
        assert!(passed >= at_least, "only {passed} Node tests of {file} passed:\n{said}");
    }
}
