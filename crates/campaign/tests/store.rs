//! The campaign store: migrations, one transaction per command (bad input changes nothing),
//! the logs, conflicts written back, and a writer killed mid-run losing nothing it reported.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use campaign::{Store, StoreError};
use iron_triangle::campaign::levelling::{Advance, LevelUp, Refill};
use iron_triangle::campaign::problem::{Choice, Decider, ProblemOption};
use iron_triangle::campaign::rest::Rest;
use iron_triangle::campaign::{Background, Sheet};
use iron_triangle::special::Edition;
use iron_triangle::{Action, Character, Energy, FighterId, IronTriangle, Stakes};
use session::Session;
use table::{Saved, Table};

fn db(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("campaign.sqlite")
}

fn pc(name: &str, energy: Energy) -> Sheet {
    Sheet {
        character: Character::with_starting_moves(name, energy),
        goal: "goal".into(),
        belief: "belief".into(),
        flaw: "flaw".into(),
        backgrounds: vec![Background { name: "cop".into(), points: 2, left: None }],
        ..Sheet::default()
    }
}

async fn party(path: &Path) -> Store {
    let s = Store::open(path).await.unwrap();
    s.create_pc(&pc("Ada", Energy::new(3, 2, 5))).await.unwrap();
    s.create_pc(&pc("Bao", Energy::new(4, 3, 3))).await.unwrap();
    s.add_npc(&Character::with_starting_moves("Ninja", Energy::new(3, 3, 4))).await.unwrap();
    s
}

async fn set(s: &Store, name: &str, f: impl FnOnce(&mut Sheet)) {
    s.update_pc(name, "test", serde_json::json!({}), |sh, _| {
        let mut t = sh.clone();
        f(&mut t);
        Ok(t)
    })
    .await
    .unwrap();
}

#[test]
fn a_new_file_gets_the_versioned_schema_and_reopening_keeps_everything() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let s = party(&db(&dir)).await;
        assert_eq!(s.schema_version().await.unwrap(), 2);
        drop(s);
        let s = Store::open(&db(&dir)).await.unwrap();
        assert_eq!(s.schema_version().await.unwrap(), 2);
        assert_eq!(s.pcs().await.unwrap().len(), 2);
        assert_eq!(s.npcs().await.unwrap()[0].name, "Ninja");
    })
}

#[test]
fn an_invalid_sheet_is_refused_and_changes_nothing() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&db(&dir)).await.unwrap();
        let bad = pc("Ada", Energy::new(3, 2, 6));
        let err = s.create_pc(&bad).await.unwrap_err();
        assert!(err.to_string().contains("10"), "{err}");
        assert!(s.pcs().await.unwrap().is_empty());
        assert!(s.log(None).await.unwrap().is_empty());
    })
}

#[test]
fn names_are_unique_across_player_characters_and_npcs() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let s = party(&db(&dir)).await;
        assert!(matches!(s.create_pc(&pc("ada", Energy::new(3, 2, 5))).await, Err(StoreError::Exists(_))));
        assert!(matches!(s.create_pc(&pc("NINJA", Energy::new(3, 2, 5))).await, Err(StoreError::Exists(_))));
        let e = s.pc("Nobody").await.unwrap_err();
        assert!(matches!(e, StoreError::NotFound(_)));
        assert!(e.to_string().contains("Ada, Bao"), "{e}");
    })
}

#[test]
fn the_edition_is_chosen_before_the_first_character() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&db(&dir)).await.unwrap();
        s.set_edition(Edition::Earlier).await.unwrap();
        assert_eq!(s.edition().await.unwrap(), Edition::Earlier);
        s.create_pc(&pc("Ada", Energy::new(3, 2, 5))).await.unwrap();
        assert!(matches!(s.set_edition(Edition::Current).await, Err(StoreError::Busy(_))));
    })
}

#[test]
fn a_problem_is_played_and_its_costs_and_tie_break_are_stored() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let s = party(&db(&dir)).await;
        let names = vec!["Ada".to_string(), "Bao".to_string()];
        let p = s.start_problem("the door", &names).await.unwrap();
        s.choose(p.id, "Ada", &Choice::of(ProblemOption::GoodIdea)).await.unwrap();
        // An option Bao cannot afford is refused and changes nothing.
        set(&s, "Bao", |t| t.backgrounds[0].left = Some(0)).await;
        assert!(s.choose(p.id, "Bao", &Choice::of(ProblemOption::Background)).await.is_err());
        assert!(s.problem(p.id).await.unwrap().entries[1].choice.is_none());
        s.choose(p.id, "Bao", &Choice::of(ProblemOption::GoodIdea)).await.unwrap();
        // Nobody decided before: the GM names the narrator.
        let r = s.reveal(p.id).await.unwrap();
        assert!(matches!(r.stage, iron_triangle::campaign::problem::Stage::GmTie { .. }));
        s.break_tie(p.id, "Ada").await.unwrap();
        s.settle(p.id, "the door opens").await.unwrap();
        // The next tie goes to Bao, who decided less recently than Ada.
        let q = s.start_problem("the guard", &names).await.unwrap();
        s.choose(q.id, "Ada", &Choice::of(ProblemOption::Failure)).await.unwrap();
        s.choose(q.id, "Bao", &Choice::of(ProblemOption::Failure)).await.unwrap();
        let r = s.reveal(q.id).await.unwrap();
        assert!(matches!(r.decider(), Some(Decider::Character { name, .. }) if name == "Bao"));
        s.veto(q.id, "Ada", &Choice::of(ProblemOption::Background)).await.unwrap();
        let (_, costs) = s.settle(q.id, "").await.unwrap();
        assert_eq!(costs.len(), 2);
        let ada = s.pc("Ada").await.unwrap();
        assert!(ada.veto_used);
        assert_eq!(ada.background_points_left(), 1);
        assert!(!s.pc("Bao").await.unwrap().flaw_marked, "the vetoed failure marks nothing");
        let kinds: Vec<String> = s.log(None).await.unwrap().into_iter().map(|e| e.kind).collect();
        assert!(kinds.contains(&"problem.veto".to_string()) && kinds.contains(&"problem.settle".to_string()));
        // The log never shows a face-down choice.
        let p3 = s.start_problem("the wall", &names).await.unwrap();
        s.choose(p3.id, "Ada", &Choice::of(ProblemOption::Failure)).await.unwrap();
        let last = s.log(Some(1)).await.unwrap();
        assert!(!last[0].detail.to_string().contains("failure"));
    })
}

#[test]
fn a_rest_for_all_is_all_or_nothing() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let s = party(&db(&dir)).await;
        for n in ["Ada", "Bao"] {
            set(&s, n, |t| t.set_current(Energy::new(1, 1, 1))).await;
        }
        set(&s, "Bao", |t| t.breather_taken = true).await;
        assert!(s.rest(Rest::Breather, &[], None).await.is_err());
        assert_eq!(s.pc("Ada").await.unwrap().current(), Energy::new(1, 1, 1), "Ada did not rest either");
        s.create_countdown("clan", 4).await.unwrap();
        assert!(s.rest(Rest::Short, &[], Some("clan")).await.is_err(), "only a full rest marks a countdown");
        let rested = s.rest(Rest::Full, &[("Ada".into(), Action::Defend)], Some("clan")).await.unwrap();
        assert_eq!(rested[0].current(), rested[0].character.energy);
        assert_eq!(s.countdowns().await.unwrap()[0].marked, 1);
        assert!(s.rest(Rest::Breather, &[("Nobody".into(), Action::Defend)], None).await.is_err());
    })
}

#[test]
fn a_level_up_without_three_marks_changes_nothing() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let s = party(&db(&dir)).await;
        let before = s.pc("Ada").await.unwrap();
        let up = LevelUp {
            advance: Advance::LearnMove { card: "◆☵".parse().unwrap(), name: "Jab".into() },
            refill: Some(Refill::Veto),
        };
        assert!(matches!(s.level_up("Ada", &up).await, Err(StoreError::Rule(_))));
        assert_eq!(s.pc("Ada").await.unwrap(), before);
    })
}

/// Plays a stored conflict to its end with the first (or last) legal command of whoever is
/// awaited, storing every step (the store is reopened on the way: the game resumes from its
/// commands); returns the session and the result written back.
async fn play_out(s: &Store, id: u64, last: bool) -> (Session<IronTriangle>, campaign::ConflictResult) {
    let (mut t, mut kept) = s.conflict_session(id).await.unwrap();
    let mut legal = Vec::new();
    let mut result = None;
    let mut steps = 0;
    while !t.is_over() {
        let seat = t.awaiting()[0];
        t.table().legal_commands(seat, &mut legal);
        let c = if last { legal[legal.len() - 1] } else { legal[0] };
        t.submit(seat, &c).unwrap();
        result = s.save_conflict(&mut kept, &t).await.unwrap();
        steps += 1;
        if steps == 5 && t.face_down() == 0 {
            let (again, k) = s.conflict_session(id).await.unwrap();
            assert_eq!(again.table().state(), t.table().state(), "the stored commands resume the conflict");
            (t, kept) = (again, k);
        }
    }
    (t, result.expect("the end is written back"))
}

#[test]
fn a_conflict_is_logged_and_its_end_written_back() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let s = party(&db(&dir)).await;
        let lethal = Stakes { lethal: true, ..Stakes::default() };
        assert!(s.start_conflict(&["Ada".into()], &[("Ninja".into(), None)], &lethal, 0).await.is_err());
        let stakes = Stakes { want: "the scroll".into(), ..Stakes::default() };
        let npcs = [("Ninja".to_string(), None), ("Ninja".to_string(), Some("Ninja 2".to_string()))];
        let (id, _) = s.start_conflict(&["Ada".into()], &npcs, &stakes, 1).await.unwrap();
        assert!(
            s.start_conflict(&["Bao".into()], &[("Ninja".into(), None)], &stakes, 0).await.is_err(),
            "one at a time"
        );
        assert!(matches!(s.rest(Rest::Full, &[], None).await, Err(StoreError::Busy(_))));
        let (t, result) = play_out(&s, id, true).await;
        // The stored commands replay into the same conflict.
        let (init, events, running) = s.conflict(id).await.unwrap();
        assert!(!running);
        let replayed = Table::<IronTriangle>::load_checked(Saved { initial: init, events }).unwrap();
        assert_eq!(replayed.state(), t.table().state());
        let t = t.table();
        let ada_f = t.state().fighters.iter().find(|f| f.name() == "Ada").unwrap();
        let ada = s.pc("Ada").await.unwrap();
        assert_eq!(ada.current(), ada_f.energy);
        assert_eq!(ada.zero_marks, ada_f.zero_marks);
        assert_eq!(result.characters.len(), 1);
        let (over, mut kept) = s.conflict_session(id).await.unwrap();
        assert!(!kept.running);
        assert!(
            s.save_conflict(&mut kept, &over).await.is_err(),
            "a finished conflict takes no more commands"
        );
    })
}

#[test]
fn a_sit_out_mark_keeps_a_character_out_of_one_conflict_then_clears() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let s = party(&db(&dir)).await;
        set(&s, "Bao", |t| t.character.sits_out_next_conflict = true).await;
        assert!(
            s.start_conflict(&["Bao".into()], &[("Ninja".into(), None)], &Stakes::default(), 0)
                .await
                .is_err()
        );
        let minor = Stakes { minor: true, ..Stakes::default() };
        let (id, _) = s.start_conflict(&["Ada".into()], &[("Ninja".into(), None)], &minor, 0).await.unwrap();
        let (_, result) = play_out(&s, id, false).await;
        assert_eq!(result.sat_out, vec!["Bao".to_string()]);
        assert!(!s.pc("Bao").await.unwrap().character.sits_out_next_conflict);
    })
}

/// The writer the kill test runs in a child process: it records countdowns and marks one by
/// one, printing "done N" after each command returns.
#[test]
#[ignore = "run by killing_a_writer_mid_run_loses_nothing_reported_done in a child process"]
fn writer_child() {
    rt().block_on(async {
        let Ok(path) = std::env::var("FACEDOWN_CAMPAIGN_WRITER_DB") else { return };
        let s = Store::open(Path::new(&path)).await.unwrap();
        let mut out = std::io::stdout();
        for i in 0..100_000 {
            s.create_countdown(&format!("c{i}"), 4).await.unwrap();
            s.mark_countdown(&format!("c{i}")).await.unwrap();
            writeln!(out, "done {i}").unwrap();
            out.flush().unwrap();
        }
    })
}

#[test]
fn killing_a_writer_mid_run_loses_nothing_reported_done() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let path = db(&dir);
        drop(Store::open(&path).await.unwrap());
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["writer_child", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
            .env("FACEDOWN_CAMPAIGN_WRITER_DB", &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut done = Vec::new();
        while done.len() < 40 {
            let Some(Ok(line)) = lines.next() else { break };
            if let Some(n) = line.strip_prefix("done ") {
                done.push(n.parse::<u32>().unwrap());
            }
        }
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(done.len(), 40, "the writer reported 40 commands before it was killed");
        let s = Store::open(&path).await.unwrap();
        let kept = s.countdowns().await.unwrap();
        for i in &done {
            let c = kept.iter().find(|c| c.name == format!("c{i}")).expect("a reported countdown survives");
            assert_eq!(c.marked, 1, "its mark too");
        }
        assert!(kept.len() >= done.len());
    })
}

#[test]
fn a_death_in_a_lethal_conflict_is_written_back() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let s = party(&db(&dir)).await;
        let lethal = Stakes { lethal: true, ..Stakes::default() };
        let (id, _) = s
            .start_conflict(&["Ada".into(), "Bao".into()], &[("Ninja".into(), None)], &lethal, 0)
            .await
            .unwrap();
        // The GM takes all of Ada's energy (§6: the GM may always correct energy); Bao fights
        // on to the end.
        let (mut t, mut kept) = s.conflict_session(id).await.unwrap();
        let gm = t.table().state().seats.find("gm").unwrap();
        let reason = iron_triangle::rules::Note::from("the cliff gives way").unwrap();
        let ada = FighterId(0);
        t.submit(gm, &iron_triangle::Command::AdjustEnergy { fighter: ada, energy: Energy::ZERO, reason })
            .unwrap();
        let (t, result) = match s.save_conflict(&mut kept, &t).await.unwrap() {
            Some(r) => (t, r),
            None => play_out(&s, id, false).await,
        };
        let ada_f = t.table().state().fighters.iter().find(|f| f.name() == "Ada").unwrap();
        assert!(ada_f.dead, "out of every energy in a lethal conflict, Ada dies (§5.5)");
        assert!(result.characters.iter().any(|c| c.name() == "Ada" && c.character.dead));
        let ada = s.pc("Ada").await.unwrap();
        assert!(ada.character.dead && ada.zero_marks == [true; 3]);
        let bao_f = t.table().state().fighters.iter().find(|f| f.name() == "Bao").unwrap();
        assert_eq!(s.pc("Bao").await.unwrap().character.dead, bao_f.dead);
        // The dead enter no conflict and take no rest.
        assert!(
            s.start_conflict(&["Ada".into()], &[("Ninja".into(), None)], &Stakes::default(), 0)
                .await
                .is_err()
        );
        let rested = s.rest(Rest::Full, &[], None).await.unwrap();
        assert_eq!(rested[0].current(), Energy::ZERO);
    })
}

#[test]
fn two_processes_writing_the_same_campaign_wait_for_each_other() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let path = db(&dir);
        drop(Store::open(&path).await.unwrap());
        let writers: Vec<_> = ["a", "b"]
            .into_iter()
            .map(|w| {
                let path = path.clone();
                std::thread::spawn(move || {
                    rt().block_on(async {
                        let s = Store::open(&path).await.unwrap();
                        for i in 0..15 {
                            s.create_countdown(&format!("{w}{i}"), 4).await.unwrap();
                            s.mark_countdown(&format!("{w}{i}")).await.unwrap();
                        }
                    })
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        let all = Store::open(&path).await.unwrap().countdowns().await.unwrap();
        assert_eq!(all.len(), 30);
        assert!(all.iter().all(|c| c.marked == 1));
    })
}

#[test]
fn least_recently_decided_follows_the_order_problems_were_settled_not_their_numbers() {
    rt().block_on(async {
        // §7: two problems open at once; the later-numbered one is settled first. Ada decided it
        // (problem 2) before Bao decided problem 1, so Ada decided less recently.
        let dir = tempfile::tempdir().unwrap();
        let s = party(&db(&dir)).await;
        let names = vec!["Ada".to_string(), "Bao".to_string()];
        let first = s.start_problem("the door", &names).await.unwrap();
        let second = s.start_problem("the guard", &names).await.unwrap();
        s.choose(second.id, "Ada", &Choice::of(ProblemOption::GoodIdea)).await.unwrap();
        s.reveal(second.id).await.unwrap();
        s.settle(second.id, "").await.unwrap();
        s.choose(first.id, "Bao", &Choice::of(ProblemOption::GoodIdea)).await.unwrap();
        s.reveal(first.id).await.unwrap();
        s.settle(first.id, "").await.unwrap();
        let third = s.start_problem("the roof", &names).await.unwrap();
        s.choose(third.id, "Ada", &Choice::of(ProblemOption::GoodIdea)).await.unwrap();
        s.choose(third.id, "Bao", &Choice::of(ProblemOption::GoodIdea)).await.unwrap();
        let r = s.reveal(third.id).await.unwrap();
        assert!(
            matches!(r.decider(), Some(Decider::Character { name, .. }) if name == "Ada"),
            "Ada decided less recently: {:?}",
            r.stage
        );
    })
}

/// A runtime for one test: the store owns none, its caller brings one.
fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// A running conflict begun by an older facedown kept its events, not its commands: it cannot
/// be continued, and the message says to abandon it.
#[test]
fn a_conflict_kept_as_events_by_an_older_facedown_is_refused_clearly() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let path = db(&dir);
        let s = party(&path).await;
        let (id, _) = s
            .start_conflict(&["Ada".into()], &[("Ninja".into(), None)], &Stakes::default(), 0)
            .await
            .unwrap();
        s.close().await;
        let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", path.display())).await.unwrap();
        sqlx::query("UPDATE conflicts SET game_id = NULL").execute(&pool).await.unwrap();
        pool.close().await;
        let s = Store::open(&path).await.unwrap();
        let e = s.conflict_session(id).await.unwrap_err().to_string();
        assert!(e.contains("older facedown") && e.contains("conflict abandon 1"), "{e}");
        s.abandon_conflict(id).await.unwrap();
    })
}
