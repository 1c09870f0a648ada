//! End-to-end tests of `facedown analyze` and of the equilibrium bot in `play`, running the
//! built binary.

use std::path::PathBuf;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_facedown");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("the binary runs")
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("facedown-analyze-{}-{name}", std::process::id()))
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("JSON output")
}

#[test]
fn matrix_solves_rock_paper_scissors_and_times_it() {
    let f = temp("rps.json");
    std::fs::write(&f, "[[0,-1,1],[1,0,-1],[-1,1,0]]").unwrap();
    let v = json(&run(&["analyze", "matrix", f.to_str().unwrap(), "--repeat", "10", "--json"]));
    let g = &v[0];
    assert!(g["value"].as_f64().unwrap().abs() < 1e-12);
    assert!((g["row"][0].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-12);
    assert!(g["exploitability"].as_f64().unwrap() <= 1e-9);
    assert!(g["micros_per_solve"].as_f64().unwrap() > 0.0);
    // A list of games, in text.
    std::fs::write(&f, "[[[1,-1],[-1,1]], [[4]]]").unwrap();
    let o = run(&["analyze", "matrix", f.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("game 2 (1×1): value 4"), "{out}");
}

#[test]
fn bad_matrices_are_refused_with_status_two() {
    let f = temp("bad.json");
    std::fs::write(&f, "[[1,2],[3]]").unwrap();
    let o = run(&["analyze", "matrix", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("game 1"), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["analyze", "conflict", "--a", "20,20,20", "--b", "20,20,20"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("GiB of tables"));
    let o = run(&["analyze", "conflict", "--a", "3,x,4"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not an energy"));
}

#[test]
fn the_neutral_turn_is_fair() {
    let v = json(&run(&["analyze", "turn", "--json"]));
    assert!(v["value"].as_f64().unwrap().abs() < 1e-9);
    assert!(v["neutral_value"].as_f64().unwrap().abs() < 1e-9);
    assert_eq!(v["neutral_moves"].as_array().unwrap().len(), 3);
    assert_eq!(v["under_disadvantage"].as_array().unwrap().len(), 3);
    assert_eq!(v["stance_worths"].as_array().unwrap().len(), 11);
}

#[test]
fn the_win_probability_turn_is_worth_the_conflicts_value() {
    let turn = json(&run(&["analyze", "turn", "--payoff", "win", "--a", "1,2,1", "--b", "2,1,1", "--json"]));
    let whole = json(&run(&["analyze", "conflict", "--a", "1,2,1", "--b", "2,1,1", "--json"]));
    let (t, w) = (turn["value"].as_f64().unwrap(), whole["value"].as_f64().unwrap());
    assert!((t - w).abs() < 1e-12, "{t} {w}");
    assert_eq!(turn["states"], whole["stats"]["states"]);
}

#[test]
fn a_small_conflict_is_solved_with_its_statistics() {
    let v = json(&run(&["analyze", "conflict", "--a", "1,1,2", "--b", "2,1,1", "--json"]));
    let p = v["value"].as_f64().unwrap();
    assert!(p > 0.0 && p < 1.0, "{p}");
    assert_eq!(v["stats"]["configs"], 13);
    assert_eq!(v["stats"]["states"], 12 * 12 * 13);
}

#[test]
fn distributions_write_a_csv_and_an_svg_heatmap() {
    let (csv, svg) = (temp("d.csv"), temp("d.svg"));
    let o = run(&[
        "analyze",
        "distributions",
        "--total",
        "4",
        "--csv",
        csv.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0], "a\\b,1-1-2,1-2-1,2-1-1");
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.matches("<rect").count() >= 9);
}

#[test]
fn equilibrium_bots_play_a_conflict_to_the_end() {
    let f = temp("small.toml");
    std::fs::write(
        &f,
        r#"
[stakes]
want = "a quick test"

[[seats]]
name = "pc"

[[seats]]
name = "gm"
role = "gm"

[[characters]]
seat = "pc"
[characters.sheet]
name = "Ada"
energy = { defend = 3, grapple = 3, attack = 4 }
current = { defend = 1, grapple = 2, attack = 1 }
moves = [{ name = "a", move = "○☵" }, { name = "b", move = "▨☷" }, { name = "c", move = "◆☲" }]

[[characters]]
seat = "gm"
[characters.sheet]
name = "Bandit"
energy = { defend = 3, grapple = 3, attack = 4 }
current = { defend = 2, grapple = 1, attack = 1 }
moves = [{ name = "a", move = "○☵" }, { name = "b", move = "▨☷" }, { name = "c", move = "◆☲" }]
"#,
    )
    .unwrap();
    let play = |seed: &str| {
        run(&["iron-triangle", "play", f.to_str().unwrap(), "--bot", "all=equilibrium", "--seed", seed])
    };
    let o = play("5");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("The conflict is over"));
    assert_eq!(o.stdout, play("5").stdout, "the same seed replays the same conflict");
    let o = run(&["iron-triangle", "play", "--bot", "gm=genius"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("equilibrium"));
}

/// Issue 13: a character with zero energy in every type is out before the conflict starts
/// (§5.3); `analyze` refuses it with a clear error instead of printing a meaningless table.
#[test]
fn a_character_with_zero_energy_in_every_type_is_refused() {
    for args in [
        vec!["analyze", "turn", "--a", "0,0,0"],
        vec!["analyze", "turn", "--b", "0,0,0", "--payoff", "win"],
        vec!["analyze", "conflict", "--a", "1,1,1", "--b", "0,0,0"],
    ] {
        let o = run(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?} printed {}", String::from_utf8_lossy(&o.stdout));
        assert!(err.contains("zero energy in every type") && err.contains("§5.3"), "{args:?}: {err}");
    }
}

/// Issue 13: the check is relative to the payoff range, so games with payoffs of a million
/// solve (an absolute 1e-9 refused them).
#[test]
fn matrix_solves_games_with_payoffs_of_a_million() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        ((state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * 1e6
    };
    let games: Vec<Vec<Vec<f64>>> =
        (0..50).map(|_| (0..8).map(|_| (0..8).map(|_| next()).collect()).collect()).collect();
    let f = temp("million.json");
    std::fs::write(&f, serde_json::to_string(&games).unwrap()).unwrap();
    let v = json(&run(&["analyze", "matrix", f.to_str().unwrap(), "--json"]));
    for g in v.as_array().unwrap() {
        assert!(g["exploitability"].as_f64().unwrap() <= g["tolerance"].as_f64().unwrap(), "{g}");
        assert!(g["tolerance"].as_f64().unwrap() <= 2e-3, "{g}");
    }
}

/// Issue 13: long solves show progress on a terminal (standard error) and stay quiet when
/// piped. The terminal is made by `script` where it exists.
#[test]
fn long_solves_show_progress_on_a_terminal_only() {
    let args = ["analyze", "conflict", "--a", "1,1,2", "--b", "2,1,1"];
    let piped = run(&args);
    assert!(piped.status.success());
    assert!(piped.stderr.is_empty(), "piped runs stay quiet: {}", String::from_utf8_lossy(&piped.stderr));
    let Ok(o) =
        Command::new("script").args(["-qec", &format!("{BIN} {}", args.join(" ")), "/dev/null"]).output()
    else {
        eprintln!("no `script` command: the terminal half of this test is skipped");
        return;
    };
    let shown = String::from_utf8_lossy(&o.stdout);
    assert!(shown.contains("solving the conflict") && shown.contains("states"), "{shown}");
    assert!(shown.contains("probability of winning under optimal play"), "{shown}");
}

/// Issue 13: the heatmap was all red (the GM wins double knockouts, §5.7, which hid every
/// other difference). It now has a seat-averaged view beside the raw one, each on a diverging
/// scale centred on ½ with a colour bar, and labelled axes; the JSON has the averaged matrix.
#[test]
fn the_heatmap_has_a_seat_averaged_view_a_colour_bar_and_labelled_axes() {
    let svg = temp("avg.svg");
    let v =
        json(&run(&["analyze", "distributions", "--total", "4", "--svg", svg.to_str().unwrap(), "--json"]));
    let text = std::fs::read_to_string(&svg).unwrap();
    for phrase in [
        "Seat-averaged",
        "As played",
        "colour bar",
        "rows: A&apos;s distribution",
        "columns: B&apos;s distribution",
        "0.5000",
    ] {
        assert!(text.contains(phrase), "{phrase:?} missing in the SVG");
    }
    // The averaged view is centred on ½: each pair of distributions sums to 1, and the
    // diagonal is exactly ½ (white), where the raw mirror matches lean to the GM.
    let avg = v["seat_averaged"].as_array().unwrap();
    let win = v["win"].as_array().unwrap();
    for i in 0..avg.len() {
        for (j, other) in avg.iter().enumerate() {
            let (a, b) = (avg[i][j].as_f64().unwrap(), other[i].as_f64().unwrap());
            assert!((a + b - 1.0).abs() < 1e-12, "{i} {j}");
        }
        assert!((avg[i][i].as_f64().unwrap() - 0.5).abs() < 1e-12);
        assert!(win[i][i].as_f64().unwrap() < 0.5);
    }
    assert!(text.contains("fill=\"#FFFFFF\""), "white cells at ½ in the averaged view");
}
