//! `session::replay` (docs/fairness.md §7.3) on sessions played here: every viewer's log of a
//! finished game with verifiable draws replays, as that viewer's; a log that ended before the
//! game did cannot be replayed yet.

use rand::{RngExt, SeedableRng};
use session::Session;
use session::fairlog::{self, SeatEntry};
use session::replay::{ReplayError, replay};
use table::fairness::{ClientSeed, ServerSeed};
use table::{Ruleset, SeatId, Viewer};

mod common;
use common::nodice_brawl;

/// A verifiable session of random answers (a client seed given by seat 0 on the way).
fn game<R: Ruleset>(setup: R::Setup, seed: u64) -> Session<R> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut s = Session::<R>::new(setup).unwrap();
    s.use_verifiable(ServerSeed::from_bytes(rng.random())).unwrap();
    for step in 0..2000 {
        if step == 3 {
            s.add_client_seed(SeatId(0), ClientSeed::from_phrase("lucky")).unwrap();
        }
        let Some(&seat) = s.awaiting().first() else { break };
        let Some(prompt) = s.prompt(seat) else { break };
        let choices: Vec<_> = prompt.choices.iter().filter(|c| c.private == prompt.private).collect();
        let command = choices[rng.random_range(0..choices.len())].command.clone();
        s.submit(seat, &command).unwrap();
    }
    s
}

/// `viewer`'s verifiable log of `s`, its first `items` items (all with `None`).
fn log_of<R: Ruleset>(s: &Session<R>, viewer: Viewer, items: Option<usize>) -> String {
    let seats: Vec<SeatEntry> = R::seats(s.table().state())
        .iter()
        .map(|(_, seat)| SeatEntry { name: seat.name.clone(), mode: "plain".into() })
        .collect();
    let table = fairlog::table_entry(
        R::NAME,
        s.setup_commitment().as_ref(),
        &seats,
        s.server_seed_commitment().as_ref(),
    );
    let updates = s.updates_since(viewer, 0);
    let kept = items.unwrap_or(updates.len());
    let entries =
        std::iter::once(table).chain(updates.iter().take(kept).map(|u| serde_json::to_value(u).unwrap()));
    fairlog::write(entries).unwrap().0
}

fn name(v: Viewer) -> String {
    match v {
        Viewer::Seat(s) => format!("seat {}", s.0),
        Viewer::Spectator => "spectator".into(),
    }
}

/// Every viewer's log replays, its viewer among those whose redaction every event matches.
fn every_viewer_replays<R: Ruleset>(s: &Session<R>) {
    assert!(s.is_over(), "{}: the game ends", R::NAME);
    let seats = R::seats(s.table().state()).len();
    let viewers = (0..seats).map(|i| Viewer::Seat(SeatId(i as u16))).chain([Viewer::Spectator]);
    for viewer in viewers {
        let log = log_of(s, viewer, None);
        let report = replay::<R>(&log).unwrap_or_else(|e| panic!("{} {viewer:?}: {e}", R::NAME));
        assert!(report.viewers.contains(&name(viewer)), "{}: {viewer:?}: {:?}", R::NAME, report.viewers);
        assert_eq!(report.commands as usize, s.record().entries.len());
        assert_eq!(report.not_replayed, 0);
    }
}

/// docs/fairness.md §7.3: the replay rebuilds each viewer's events with the ruleset's own
/// redaction, so every viewer's log of a finished game replays, whatever the rules hide from it.
#[test]
fn every_viewers_log_of_a_finished_game_replays_as_that_viewers() {
    for seed in 0..4 {
        let ada =
            toml::from_str(include_str!("../../../examples/iron-triangle/characters/ada.toml")).unwrap();
        let ninja =
            toml::from_str(include_str!("../../../examples/iron-triangle/characters/ninja.toml")).unwrap();
        every_viewer_replays(&game::<iron_triangle::IronTriangle>(
            iron_triangle::Setup::one_on_one(ada, ninja),
            seed,
        ));
        let mut setup: inciting_incident::Setup =
            toml::from_str(include_str!("../../../examples/inciting-incident/river-fight.toml")).unwrap();
        setup.apply_round_limit(Some(3));
        every_viewer_replays(&game::<inciting_incident::IncitingIncident>(setup, seed));
        every_viewer_replays(&game::<nodice::NoDice>(nodice_brawl(), seed));
    }
}

/// docs/fairness.md §7.3, what it needs: a log that ends before the game's end holds no record,
/// and is refused as not replayable yet, not as a forgery.
#[test]
fn a_log_before_the_end_cannot_be_replayed_yet() {
    let ada = toml::from_str(include_str!("../../../examples/iron-triangle/characters/ada.toml")).unwrap();
    let ninja =
        toml::from_str(include_str!("../../../examples/iron-triangle/characters/ninja.toml")).unwrap();
    let s = game::<iron_triangle::IronTriangle>(iron_triangle::Setup::one_on_one(ada, ninja), 1);
    let log = log_of(&s, Viewer::Spectator, Some(10));
    assert!(fairlog::verify(&log).is_ok());
    match replay::<iron_triangle::IronTriangle>(&log) {
        Err(ReplayError::NotYet(why)) => assert!(why.contains("record"), "{why}"),
        other => panic!("{other:?}"),
    }
}

/// A verifiable session of random answers in which the GM's seat `gm` undoes the last public
/// command whenever the rules let it, once every `every` steps; how many undos it made.
fn game_with_undos<R: Ruleset>(setup: R::Setup, seed: u64, gm: SeatId, every: usize) -> (Session<R>, usize) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut s = Session::<R>::new(setup).unwrap();
    s.use_verifiable(ServerSeed::from_bytes(rng.random())).unwrap();
    let mut undos = 0;
    for step in 0..2000 {
        if step % every == every - 1 && !s.is_over() && s.undo(gm).is_ok() {
            undos += 1;
            continue;
        }
        let Some(&seat) = s.awaiting().first() else { break };
        let Some(prompt) = s.prompt(seat) else { break };
        let choices: Vec<_> = prompt.choices.iter().filter(|c| c.private == prompt.private).collect();
        let command = choices[rng.random_range(0..choices.len())].command.clone();
        s.submit(seat, &command).unwrap();
    }
    (s, undos)
}

/// docs/fairness.md §7.3: the GM's undo is replayed as the session made it — the game rebuilt
/// from the commands that stand, the draws' changes at their places — so a log with undos
/// replays for every viewer.
#[test]
fn a_finished_game_with_the_gms_undos_replays() {
    let mut undos = 0;
    for seed in 0..6 {
        let mut setup: inciting_incident::Setup =
            toml::from_str(include_str!("../../../examples/inciting-incident/river-fight.toml")).unwrap();
        setup.apply_round_limit(Some(3));
        let (s, n) = game_with_undos::<inciting_incident::IncitingIncident>(setup, seed, SeatId(2), 3);
        undos += n;
        every_viewer_replays(&s);
    }
    assert!(undos > 0, "the GM undid something");
}

/// docs/fairness.md §7.3: an undo in the revealed record that repeats another command than the
/// last one that stands — one the session would have refused — is named at the record.
#[test]
fn an_undo_the_session_would_refuse_is_named_at_the_record() {
    let mut forged = 0;
    for seed in 0..6 {
        let mut setup: inciting_incident::Setup =
            toml::from_str(include_str!("../../../examples/inciting-incident/river-fight.toml")).unwrap();
        setup.apply_round_limit(Some(3));
        let (s, _) = game_with_undos::<inciting_incident::IncitingIncident>(setup, seed, SeatId(2), 3);
        let log = log_of(&s, Viewer::Spectator, None);
        let mut entries: Vec<serde_json::Value> = log
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["entry"].clone())
            .collect();
        let at = entries.iter().rposition(|e| e["kind"] == "record").unwrap();
        let record = entries[at]["entries"].as_array().unwrap().clone();
        let Some(k) = record.iter().position(|e| e["how"] == "undo") else { continue };
        let Some(other) = record[..k].iter().find(|e| e["command"] != record[k]["command"]) else { continue };
        entries[at]["entries"][k]["command"] = other["command"].clone();
        let text = fairlog::write(entries).unwrap().0;
        match replay::<inciting_incident::IncitingIncident>(&text) {
            Err(ReplayError::Bad(e)) => assert_eq!(e.entry, at as u64 + 1, "{e}"),
            other => panic!("{other:?}"),
        }
        forged += 1;
    }
    assert!(forged > 0);
}

/// A verifiable session of random answers in which each face-down choice still waiting for
/// its reveal is taken back half the time (its seat then answers again); with `gm` (the GM's
/// seat and a public command of its), the GM gives that command now and then, and half the
/// take-backs are instead its undo of the last public command, which takes back the face-down
/// choices given after it. With how many choices the undos took back.
fn game_with_take_backs<R: Ruleset>(
    setup: R::Setup,
    seed: u64,
    gm: Option<(SeatId, R::Command)>,
) -> (Session<R>, usize) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut s = Session::<R>::new(setup).unwrap();
    s.use_verifiable(ServerSeed::from_bytes(rng.random())).unwrap();
    let mut by_undo = 0;
    for step in 0..2000 {
        if step == 3 {
            s.add_client_seed(SeatId(0), ClientSeed::from_phrase("lucky")).unwrap();
        }
        if let Some((gm, public)) = &gm
            && rng.random_bool(0.25)
            && !s.is_over()
        {
            // Refused while the rules wait for the GM's own face-down choice.
            let _ = s.submit(*gm, public);
        }
        let Some(&seat) = s.awaiting().first() else { break };
        let Some(prompt) = s.prompt(seat) else { break };
        let choices: Vec<_> = prompt.choices.iter().filter(|c| c.private == prompt.private).collect();
        let command = choices[rng.random_range(0..choices.len())].command.clone();
        s.submit(seat, &command).unwrap();
        if prompt.private && rng.random_bool(0.5) {
            let before = took_backs(&s);
            // Refused once the choice is revealed (the last seat's): nothing to take back; and
            // refused when the public command before it drew or revealed.
            if let Some((gm, _)) = &gm
                && rng.random_bool(0.5)
            {
                if s.undo(*gm).is_ok() {
                    by_undo += took_backs(&s) - before;
                }
            } else {
                let _ = s.take_back(seat);
            }
        }
    }
    (s, by_undo)
}

/// How many `took_back` entries the spectator's log of `s` holds.
fn took_backs<R: Ruleset>(s: &Session<R>) -> usize {
    s.updates_since(Viewer::Spectator, 0)
        .iter()
        .filter(|u| serde_json::to_value(u).unwrap()["kind"] == "took_back")
        .count()
}

fn river_fight() -> inciting_incident::Setup {
    let mut setup: inciting_incident::Setup =
        toml::from_str(include_str!("../../../examples/inciting-incident/river-fight.toml")).unwrap();
    setup.apply_round_limit(Some(3));
    setup
}

fn ada_and_ninja() -> iron_triangle::Setup {
    let ada = toml::from_str(include_str!("../../../examples/iron-triangle/characters/ada.toml")).unwrap();
    let ninja =
        toml::from_str(include_str!("../../../examples/iron-triangle/characters/ninja.toml")).unwrap();
    iron_triangle::Setup::one_on_one(ada, ninja)
}

/// docs/fairness.md §7.3: a face-down choice taken back after its events is revealed at the
/// end with the record, at its place; the replay gives it, checks its events, and takes it
/// back as the session did — so a finished game of each system with take-backs replays for
/// every viewer.
#[test]
fn a_face_down_choice_taken_back_after_its_events_is_replayed_and_taken_back() {
    let (mut it, mut ii, mut nd) = (0, 0, 0);
    for seed in 0..6 {
        let (s, _) = game_with_take_backs::<iron_triangle::IronTriangle>(ada_and_ninja(), seed, None);
        it += took_backs(&s);
        every_viewer_replays(&s);
        let (s, _) = game_with_take_backs::<inciting_incident::IncitingIncident>(river_fight(), seed, None);
        ii += took_backs(&s);
        every_viewer_replays(&s);
        let (s, _) = game_with_take_backs::<nodice::NoDice>(nodice_brawl(), seed, None);
        nd += took_backs(&s);
        every_viewer_replays(&s);
    }
    assert!(it > 0 && ii > 0 && nd > 0, "take-backs: {it} {ii} {nd}");
}

/// docs/fairness.md §7.3: the GM's undo takes back the face-down choices given after the
/// command it undoes; each is revealed as taken back and replayed so.
#[test]
fn face_down_choices_taken_back_by_an_undo_are_replayed() {
    use iron_triangle::{Command, Energy, FighterId, rules::Note};
    let adjust = Command::AdjustEnergy {
        fighter: FighterId(0),
        energy: Energy::new(2, 2, 2),
        reason: Note::from("ruling").unwrap(),
    };
    let mut taken = 0;
    for seed in 0..8 {
        let (s, n) = game_with_take_backs::<iron_triangle::IronTriangle>(
            ada_and_ninja(),
            seed,
            Some((SeatId(1), adjust)),
        );
        taken += n;
        every_viewer_replays(&s);
    }
    assert!(taken > 0, "an undo took back a face-down choice");
}

/// `viewer`'s log of a game with a take-back, as entries (for forging), and the index of its
/// last record entry.
fn log_with_a_take_back(viewer: Viewer) -> (Vec<serde_json::Value>, usize) {
    for seed in 0..20 {
        let (s, _) = game_with_take_backs::<iron_triangle::IronTriangle>(ada_and_ninja(), seed, None);
        if took_backs(&s) == 0 {
            continue;
        }
        let log = log_of(&s, viewer, None);
        let entries: Vec<serde_json::Value> = log
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["entry"].clone())
            .collect();
        let at = entries.iter().rposition(|e| e["kind"] == "record").unwrap();
        return (entries, at);
    }
    panic!("no game with a take-back");
}

/// docs/fairness.md §7.3: a `took_back` entry with no revealed taken-back command is named.
#[test]
fn a_take_back_the_record_does_not_reveal_is_named() {
    let (mut entries, at) = log_with_a_take_back(Viewer::Spectator);
    let first = entries.iter().position(|e| e["kind"] == "took_back").unwrap();
    entries[at].as_object_mut().unwrap().remove("taken_back");
    let text = fairlog::write(entries).unwrap().0;
    match replay::<iron_triangle::IronTriangle>(&text) {
        Err(ReplayError::Bad(e)) => {
            assert_eq!(e.entry, first as u64 + 1, "{e}");
            assert!(e.reason.contains("reveals no command taken back"), "{e}");
        }
        other => panic!("{other:?}"),
    }
}

/// docs/fairness.md §7.3: a revealed taken-back command whose events are not the log's is
/// named: at the first event it does not derive, as its seat is shown it (or at the record,
/// when the rules refuse it where it stands).
#[test]
fn a_taken_back_command_whose_events_differ_from_the_logs_is_named() {
    let mut at_event = 0;
    for seat in 0..2u16 {
        let (entries, at) = log_with_a_take_back(Viewer::Seat(SeatId(seat)));
        let list = entries[at]["taken_back"].as_array().unwrap().clone();
        for (i, taken) in list.iter().enumerate().filter(|(_, t)| t["seat"] == seat) {
            // Another command of the same seat, from the record: a different choice.
            for other in entries[at]["entries"].as_array().unwrap() {
                if other["seat"] != taken["seat"] || other["command"] == taken["command"] {
                    continue;
                }
                let mut entries = entries.clone();
                entries[at]["taken_back"][i]["command"] = other["command"].clone();
                let text = fairlog::write(entries.clone()).unwrap().0;
                match replay::<iron_triangle::IronTriangle>(&text) {
                    Err(ReplayError::Bad(e)) if e.entry as usize == at + 1 => {
                        assert!(e.reason.contains("taken back"), "{e}");
                    }
                    Err(ReplayError::Bad(e)) => {
                        assert_eq!(entries[e.entry as usize - 1]["kind"], "event", "{e}");
                        at_event += 1;
                    }
                    other => panic!("{other:?}"),
                }
            }
        }
    }
    assert!(at_event > 0, "a differing taken-back command is named at an event");
}

/// docs/fairness.md §7.3: a revealed taken-back command the log never takes back is named at
/// the record.
#[test]
fn a_revealed_take_back_the_log_does_not_show_is_named_at_the_record() {
    let (mut entries, at) = log_with_a_take_back(Viewer::Spectator);
    let count = entries[at]["taken_back"].as_array().unwrap().len();
    let mut extra = entries[at]["taken_back"][0].clone();
    extra["took_back"] = serde_json::json!(1000);
    extra["given"] = serde_json::json!(entries[at]["entries"].as_array().unwrap().len() + count);
    entries[at]["taken_back"].as_array_mut().unwrap().push(extra);
    let text = fairlog::write(entries).unwrap().0;
    match replay::<iron_triangle::IronTriangle>(&text) {
        Err(ReplayError::Bad(e)) => assert_eq!(e.entry, at as u64 + 1, "{e}"),
        other => panic!("{other:?}"),
    }
}

/// docs/fairness.md §7.1: a record's `taken_back`, when there, is a list — the fairness checks
/// (and the browser's) name one that is not at the record.
#[test]
fn a_taken_back_that_is_not_a_list_is_named_at_the_record() {
    let (mut entries, at) = log_with_a_take_back(Viewer::Spectator);
    entries[at]["taken_back"] = serde_json::json!(3);
    let text = fairlog::write(entries).unwrap().0;
    let e = fairlog::verify(&text).unwrap_err();
    assert_eq!(e.entry, at as u64 + 1, "{e}");
    assert!(e.reason.contains("taken_back"), "{e}");
}

/// The replay step by step (`replay_steps`, what a page steps through): the first step is the
/// table as it opened, the last the game's end; every step's view is the spectator's at that
/// point (the last one the game's own), every line of the spectator's log in one step, in
/// order; and it is the same replay: a log `replay` refuses gives no steps.
#[test]
fn a_finished_game_replays_step_by_step_as_a_spectator_saw_it() {
    fn check<R: Ruleset>(s: &Session<R>) {
        assert!(s.is_over());
        let seats = R::seats(s.table().state()).len();
        let spectator_lines: Vec<String> = s
            .updates_since(Viewer::Spectator, 0)
            .iter()
            .filter_map(|u| match &u.item {
                session::Item::Event { text: Some(t), .. } => Some(t.clone()),
                _ => None,
            })
            .flat_map(|t| t.lines().map(str::to_owned).collect::<Vec<_>>())
            .collect();
        for viewer in (0..seats).map(|i| Viewer::Seat(SeatId(i as u16))).chain([Viewer::Spectator]) {
            let log = log_of(s, viewer, None);
            let replayed = session::replay::replay_steps::<R>(&log).unwrap();
            assert_eq!(replayed.report, replay::<R>(&log).unwrap());
            let steps = &replayed.steps;
            assert!(steps.len() > 2, "{}: {} steps", R::NAME, steps.len());
            let last = serde_json::to_value(R::view(s.table().state(), Viewer::Spectator)).unwrap();
            assert_eq!(steps.last().unwrap().view, last, "{}: the last step is the end", R::NAME);
            let lines: Vec<String> = steps.iter().flat_map(|st| st.lines.clone()).collect();
            assert_eq!(lines, spectator_lines, "{} {viewer:?}: every line once, in order", R::NAME);
            // Tampered: one command's seat changed in the record, the chain rebuilt — refused.
            let mut entries: Vec<serde_json::Value> = log
                .lines()
                .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["entry"].clone())
                .collect();
            let record = entries.iter_mut().rfind(|e| e["kind"] == "record").unwrap();
            let first = &mut record["entries"][0]["seat"];
            *first = serde_json::json!((first.as_u64().unwrap() + 1) % seats as u64);
            let forged = fairlog::write(entries).unwrap().0;
            assert!(session::replay::replay_steps::<R>(&forged).is_err(), "{}: a forged record", R::NAME);
        }
    }
    let ada = toml::from_str(include_str!("../../../examples/iron-triangle/characters/ada.toml")).unwrap();
    let ninja =
        toml::from_str(include_str!("../../../examples/iron-triangle/characters/ninja.toml")).unwrap();
    check(&game::<iron_triangle::IronTriangle>(iron_triangle::Setup::one_on_one(ada, ninja), 7));
    let mut setup: inciting_incident::Setup =
        toml::from_str(include_str!("../../../examples/inciting-incident/river-fight.toml")).unwrap();
    setup.apply_round_limit(Some(3));
    check(&game::<inciting_incident::IncitingIncident>(setup, 7));
    check(&game::<nodice::NoDice>(nodice_brawl(), 7));
}
