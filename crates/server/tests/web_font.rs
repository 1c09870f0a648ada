//! Every symbol the pages may print is in the embedded symbol font
//! (crates/server/web/fonts/symbols.woff2): the characters are gathered from the rules crates'
//! quick references and legends, from whole bot games of every example of all three systems
//! (every viewer's log with its narration, every prompt, every view), and from the web assets
//! (crates/server/web/**/*.{html,js,css}); the Node test crates/server/web/test/font.test.mjs
//! reads the WOFF2's `cmap` and checks each one is there, and that the stylesheet's
//! `unicode-range` sends it to the font.
//!
//! `FACEDOWN_WRITE_FONT_CHARS=FILE` also writes the characters to FILE: the list
//! crates/server/web/fonts/subset.sh makes the font from.
//!
//! Without `node` on the PATH the test is skipped with a message, unless `CI` is set: then it
//! fails.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;
use server::protocol::SetupSource;
use server::systems::{self, Hosted, SYSTEMS};
use table::{SeatId, Viewer};

/// At most this many commands a game (the rules' stalemate and round limits end every example
/// well before).
const MAX_STEPS: usize = 20_000;

fn web_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("web")
}

/// The non-ASCII characters of every string in `value` (keys included).
fn strings_of(value: &Value, out: &mut BTreeSet<char>) {
    match value {
        Value::String(s) => text_of(s, out),
        Value::Array(items) => items.iter().for_each(|v| strings_of(v, out)),
        Value::Object(members) => {
            for (k, v) in members {
                text_of(k, out);
                strings_of(v, out);
            }
        }
        _ => {}
    }
}

/// The non-ASCII characters of `text` that a page draws (not spaces or invisible controls).
fn text_of(text: &str, out: &mut BTreeSet<char>) {
    out.extend(text.chars().filter(|c| !c.is_ascii() && !c.is_whitespace() && !c.is_control()));
}

/// Plays `game` to its end with a bot of `kind` in every seat, gathering what every viewer is
/// shown: each viewer's log (events and narration), each prompt, each view.
fn play_out(game: &mut dyn Hosted, kind: &str, what: &str, out: &mut BTreeSet<char>) {
    let seats = game.seats().len();
    let viewers: Vec<Viewer> =
        (0..seats).map(|i| Viewer::Seat(SeatId(i as u16))).chain([Viewer::Spectator]).collect();
    for i in 0..seats {
        game.set_bot(SeatId(i as u16), Some(kind), 7_000 + i as u64).unwrap();
    }
    let look = |game: &dyn Hosted, out: &mut BTreeSet<char>| {
        for v in &viewers {
            strings_of(&game.view(*v).unwrap_or(Value::Null), out);
        }
    };
    look(game, out);
    for _ in 0..MAX_STEPS {
        if game.is_over() {
            break;
        }
        let awaiting = game.awaiting();
        for seat in &awaiting {
            strings_of(&game.prompt(*seat).ok().flatten().unwrap_or(Value::Null), out);
        }
        let seat = *awaiting.first().unwrap_or_else(|| panic!("{what}: nobody is awaited before the end"));
        let command =
            game.bot_command(seat).unwrap_or_else(|| panic!("{what}: the bot of seat {} is silent", seat.0));
        strings_of(&command, out);
        game.submit(seat, &command).unwrap_or_else(|e| panic!("{what}: bot command {command} refused: {e}"));
    }
    assert!(game.is_over(), "{what}: not over after {MAX_STEPS} commands");
    look(game, out);
    for v in &viewers {
        for item in game.updates_since(*v, 0) {
            strings_of(&item, out);
        }
    }
}

/// The non-ASCII characters of the web assets a page loads: crates/server/web/**/*.{html,js,css}.
fn asset_characters(dir: &Path, out: &mut BTreeSet<char>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            asset_characters(&path, out);
        } else if path.extension().is_some_and(|e| e == "html" || e == "js" || e == "css") {
            text_of(&std::fs::read_to_string(&path).unwrap(), out);
        }
    }
}

/// Every non-ASCII character a page may print, gathered once for the tests of this file.
fn page_characters() -> &'static BTreeSet<char> {
    static CHARS: OnceLock<BTreeSet<char>> = OnceLock::new();
    CHARS.get_or_init(gather)
}

fn gather() -> BTreeSet<char> {
    let mut out = BTreeSet::new();
    for reference in [
        iron_triangle::reference::quick_reference(),
        nodice::reference::quick_reference(),
        inciting_incident::reference::quick_reference(),
    ] {
        text_of(&reference, &mut out);
    }
    for system in SYSTEMS {
        for name in systems::examples(system).unwrap() {
            // Random bots: they wander into more of the rules than the thoughtful ones.
            let setup = systems::read_setup(system, &SetupSource::Example((*name).into()))
                .unwrap_or_else(|e| panic!("{system} {name}: {e}"));
            strings_of(&setup, &mut out);
            let mut game = systems::open(system, &setup).unwrap_or_else(|e| panic!("{system} {name}: {e}"));
            play_out(game.as_mut(), "random", &format!("{system} {name}"), &mut out);
        }
    }
    asset_characters(&web_dir(), &mut out);
    out
}

#[test]
fn the_gathering_finds_the_books_symbols() {
    let chars = page_characters();
    for c in ['☷', '☵', '☲', '☰', '☯', '○', '▨', '◆'] {
        assert!(chars.contains(&c), "{c} is printed by Iron Triangle's pages");
    }
    for reference in [
        iron_triangle::reference::quick_reference(),
        nodice::reference::quick_reference(),
        inciting_incident::reference::quick_reference(),
    ] {
        assert!(table::reference::legend_symbols(&reference).is_subset(chars), "every legend's symbols");
    }
    if let Some(file) = std::env::var_os("FACEDOWN_WRITE_FONT_CHARS") {
        // The list crates/server/web/fonts/subset.sh makes the font from.
        std::fs::write(&file, chars.iter().collect::<String>() + "\n").unwrap();
    }
}

#[test]
fn every_symbol_the_pages_print_is_in_the_font() {
    let chars = page_characters();
    let text: String = chars.iter().collect();
    let ok = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        assert!(std::env::var_os("CI").is_none(), "CI is set but `node` is not on the PATH");
        eprintln!("skipped: no `node` on the PATH to run crates/server/web/test/font.test.mjs");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("chars.txt");
    std::fs::write(&list, &text).unwrap();
    let test = web_dir().join("test/font.test.mjs");
    let out =
        Command::new("node").arg("--test").arg(&test).env("FACEDOWN_FONT_CHARS", &list).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && said.contains("# fail 0"), "node --test {}:\n{said}", test.display());
    assert!(said.contains(&format!("{} characters", chars.len())), "the Node test read the list:\n{said}");
}
