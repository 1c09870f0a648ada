//! `facedown print`: print-ready PDF and SVG of every system's cards, character sheets and
//! reference cards (issue 34 §3), checked as a person would read them — the page count with
//! Debian's `pdfinfo`, the text with `pdftotext` (poppler-utils) — and drawn as PNG previews
//! with `pdftoppm`. Without poppler-utils the PDF checks are skipped with a note, unless `CI`
//! is set: then they fail, since `.ci/run` installs it.
//!
//! With `FACEDOWN_WRITE_PREVIEWS=DIR` the previews docs/print.md shows are written to DIR
//! (`FACEDOWN_WRITE_PREVIEWS=docs/figures cargo test -p facedown --test print`, run from
//! the repository root); otherwise to a temporary directory.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_facedown");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn poppler() -> bool {
    let found = Command::new("pdftotext").arg("-v").output().is_ok()
        && Command::new("pdfinfo").arg("-v").output().is_ok();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI checks the printed PDFs, but pdftotext/pdfinfo (poppler-utils) are missing"
        );
        eprintln!("skipping the PDF checks: install poppler-utils (pdftotext, pdfinfo, pdftoppm)");
    }
    found
}

fn print(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(BIN).arg("print").args(args).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "facedown print {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn pages(pdf: &Path) -> usize {
    let out = Command::new("pdfinfo").arg(pdf).output().unwrap();
    let info = String::from_utf8_lossy(&out.stdout);
    let line = info.lines().find(|l| l.starts_with("Pages:")).unwrap_or_else(|| panic!("{info}"));
    line["Pages:".len()..].trim().parse().unwrap()
}

fn text(pdf: &Path) -> String {
    let out = Command::new("pdftotext").arg(pdf).arg("-").output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

fn page_size_pt(pdf: &Path) -> String {
    let out = Command::new("pdfinfo").arg(pdf).output().unwrap();
    let info = String::from_utf8_lossy(&out.stdout).into_owned();
    info.lines().find(|l| l.starts_with("Page size:")).unwrap_or("").to_owned()
}

/// Draws the first page of `pdf` as `name.png` (96 dpi, small enough to commit).
fn preview(pdf: &Path, name: &str) {
    let dir = match std::env::var_os("FACEDOWN_WRITE_PREVIEWS") {
        Some(d) => repo().join(d),
        None => pdf.parent().unwrap().to_owned(),
    };
    let status = Command::new("pdftoppm")
        .args(["-png", "-r", "60", "-f", "1", "-l", "1", "-singlefile"])
        .arg(pdf)
        .arg(dir.join(name))
        .status()
        .unwrap();
    assert!(status.success());
    assert!(dir.join(format!("{name}.png")).exists());
}

#[test]
fn every_systems_cards_print_nine_to_a_page_with_their_names() {
    if !poppler() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (system, names, cards) in [
        ("iron-triangle", &["Grapple Heaven", "Surrender", "Wax On", "Scouter"][..], 44),
        ("nodice", &["Mind", "Strength", "Intuition", "Bid 0", "Wildcard"][..], 19),
        ("inciting-incident", &["Regular Attack", "Decisive Attack", "Move", "Hold"][..], 5),
    ] {
        let pdf = dir.path().join(format!("{system}.pdf"));
        let said = print(dir.path(), &[system, "cards", "-o", pdf.to_str().unwrap()]);
        assert!(said.contains(&format!("{cards} cards")), "{said}");
        assert_eq!(pages(&pdf), usize::div_ceil(cards, 9), "{system}");
        let t = text(&pdf);
        for name in names {
            assert!(t.contains(name), "{system}: {name} not in\n{t}");
        }
        preview(&pdf, &format!("print-{system}-cards"));
    }
}

#[test]
fn backs_double_the_pages_for_double_sided_printing() {
    if !poppler() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("nd.pdf");
    print(dir.path(), &["nodice", "cards", "--backs", "-o", "nd.pdf"]);
    assert_eq!(pages(&pdf), 6);
    let t = text(&pdf);
    assert!(t.contains("sheet 1 of 3 · backs"), "{t}");
}

#[test]
fn letter_paper_is_us_letter_and_a4_is_a4() {
    if !poppler() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    print(dir.path(), &["ii", "cards", "--paper", "letter", "-o", "l.pdf"]);
    print(dir.path(), &["ii", "cards", "-o", "a.pdf"]);
    assert!(
        page_size_pt(&dir.path().join("l.pdf")).contains("612 x 792"),
        "{}",
        page_size_pt(&dir.path().join("l.pdf"))
    );
    assert!(
        page_size_pt(&dir.path().join("a.pdf")).contains("595.276 x 841.89"),
        "{}",
        page_size_pt(&dir.path().join("a.pdf"))
    );
}

#[test]
fn character_sheets_of_all_three_systems_print_from_sheet_files() {
    if !poppler() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (system, file, words, name) in [
        (
            "iron-triangle",
            "examples/iron-triangle/characters/bao.toml",
            &["Bao", "Ankle Pick", "then Hip Throw or Headbutt"][..],
            "it",
        ),
        (
            "nodice",
            "examples/nodice/actors/kara.toml",
            &["Kara", "R2/1(38/5)-M4(5/4/3)-B4(4/4/4)-S3(2/3/4)", "Reason 5"][..],
            "nd",
        ),
        (
            "inciting-incident",
            "examples/inciting-incident/river-fight.toml",
            &["Bren", "Icy blade", "Resilience"][..],
            "ii",
        ),
    ] {
        let pdf = dir.path().join(format!("{name}-sheet.pdf"));
        print(
            dir.path(),
            &[system, "sheet", repo().join(file).to_str().unwrap(), "-o", pdf.to_str().unwrap()],
        );
        let t = text(&pdf);
        for w in words {
            assert!(t.contains(w), "{system}: {w} not in\n{t}");
        }
        preview(&pdf, &format!("print-{system}-sheet"));
    }
}

#[test]
fn reference_cards_print_for_every_system() {
    if !poppler() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (system, words) in [
        ("iron-triangle", &["Who Beats Whom"][..]),
        ("nodice", &["Dominance", "Mind > Body"][..]),
        ("inciting-incident", &["Defences", "Level Dice"][..]),
    ] {
        print(dir.path(), &[system, "reference", "-o", "r.pdf"]);
        let t = text(&dir.path().join("r.pdf"));
        for w in words {
            assert!(t.contains(w), "{system}: {w} not in\n{t}");
        }
    }
}

#[test]
fn an_iron_triangle_hand_prints_the_characters_own_move_names() {
    if !poppler() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bao = repo().join("examples/iron-triangle/characters/bao.toml");
    print(dir.path(), &["it", "cards", bao.to_str().unwrap(), "-o", "hand.pdf"]);
    let t = text(&dir.path().join("hand.pdf"));
    assert!(t.contains("Ankle Pick") && t.contains("Combo: then") && t.contains("Follow-up of"), "{t}");
}

#[test]
fn a_campaign_characters_sheet_and_hand_print_from_the_campaign_file() {
    if !poppler() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ada = repo().join("examples/iron-triangle/campaign/ada.toml");
    let out = Command::new(BIN)
        .args(["campaign", "--db", "c.sqlite", "character", "create", "--file", ada.to_str().unwrap()])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    print(dir.path(), &["it", "sheet", "--campaign", "c.sqlite", "--character", "Ada", "-o", "ada.pdf"]);
    let t = text(&dir.path().join("ada.pdf"));
    assert!(t.contains("Ada") && t.contains("Goal") && t.contains("campaign character"), "{t}");
    print(dir.path(), &["it", "cards", "--campaign", "c.sqlite", "--character", "Ada", "-o", "hand.pdf"]);
    assert!(text(&dir.path().join("hand.pdf")).contains("Surrender"));
}

#[test]
fn svg_output_writes_one_file_a_page() {
    let dir = tempfile::tempdir().unwrap();
    let said = print(dir.path(), &["nodice", "cards", "-o", "nd.svg"]);
    assert!(said.contains("nd-1.svg, nd-2.svg, nd-3.svg"), "{said}");
    let svg = std::fs::read_to_string(dir.path().join("nd-1.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("Strength"));
    print(dir.path(), &["ii", "reference", "-o", "one.svg"]);
    assert!(dir.path().join("one.svg").exists());
}

#[test]
fn bad_print_requests_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(BIN).arg("print").args(args).current_dir(dir.path()).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(run(&["chess", "cards", "-o", "x.pdf"]).contains("not a system"));
    assert!(run(&["it", "cards", "-o", "x.png"]).contains(".pdf or a .svg"));
    assert!(run(&["it", "sheet", "-o", "x.pdf"]).contains("sheet needs a sheet file"));
    assert!(run(&["it", "cards", "--paper", "a3", "-o", "x.pdf"]).contains("not a paper size"));
    assert!(run(&["it", "cards", "--intents", "x.toml", "-o", "x.pdf"]).contains("No Dice"));
    std::fs::write(dir.path().join("bad.toml"), "name = \"K\"\nserial = \"nonsense\"").unwrap();
    assert!(run(&["nd", "sheet", "bad.toml", "-o", "x.pdf"]).contains("bad.toml: serial"));
    assert!(
        run(&["nd", "sheet", "--campaign", "c.sqlite", "--character", "K", "-o", "x.pdf"])
            .contains("Iron Triangle characters only")
    );
    assert!(
        run(&["it", "sheet", "--campaign", "none.sqlite", "--character", "K", "-o", "x.pdf"])
            .contains("no campaign")
    );
}
