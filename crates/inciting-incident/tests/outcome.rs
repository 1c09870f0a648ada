//! Who won the scene (rules reference `shared/rules/inciting-incident.md` §5, §6, §9, §10), as
//! the view gives it to every shell: [`inciting_incident::outcome`].

mod common;

use common::*;
use inciting_incident::{Action, Command, IncitingIncident, Scene};
use table::{Ruleset, SeatId, Table, Viewer};

fn table(setup: inciting_incident::Setup) -> Table<IncitingIncident> {
    Table::new(Scene::new(setup).unwrap())
}

/// The round limit stops the scene with nobody winning; the end says so and gives the Flow of
/// Battle of each Duel (§6: signed from the players' side), whose way it went.
#[test]
fn round_limit_nobody_wins_and_the_end_gives_the_flow() {
    let mut s = arena();
    s.options.max_rounds = Some(1);
    let mut t = table(s);
    let e1 = ch(&t, "E1");
    declare(&mut t, &[(0, Action::Regular { talent: None, target: e1, roll: false, defence: None })]);
    for f in [0, 1, 2, 3] {
        act(&mut t, f);
    }
    assert!(t.is_over());
    let w = IncitingIncident::view(t.state(), Viewer::Seat(SeatId(0))).who_won.expect("over");
    assert_eq!(w.winner, None);
    assert_eq!(w.you_won, None, "nobody won: neither won nor lost");
    assert_eq!(w.headline, "The scene ends at the round limit, after 1 round: nobody wins.");
    assert_eq!(w.flows.len(), 1);
    assert_eq!(w.flows[0].flow, 4, "an automatic Regular Attack moves the Flow 4 toward the attacker (§7.1)");
    assert_eq!(w.flows[0].words, "Flow of Battle in A: +4, the players' way.");
    assert!(w.summary.contains(&"1 round.".to_owned()), "{:?}", w.summary);
    assert!(w.summary.contains(&w.flows[0].words));
    assert!(!w.headline.contains('§') && !w.why.contains('§'));
}

/// The GM may end the scene and name the winner (§5): each viewer reads it in its own words.
#[test]
fn gm_ends_the_scene_with_a_winner_in_each_viewers_words() {
    let mut t = table(arena());
    let gm = seat_of(&t, 2);
    assert_eq!(IncitingIncident::view(t.state(), Viewer::Spectator).who_won, None, "not before the end");
    t.submit(gm, &Command::EndScene { winner: Some(0) }).unwrap();
    let of = |v: Viewer| IncitingIncident::view(t.state(), v).who_won.expect("over");
    assert_eq!(of(Viewer::Seat(seat_of(&t, 0))).headline, "You won: the players win.");
    assert_eq!(of(Viewer::Seat(gm)).headline, "You lost: the players win.", "the GM plays the enemies");
    assert_eq!(of(Viewer::Spectator).headline, "The scene ends: the players win.");
    let lost = {
        let mut t = table(arena());
        t.submit(gm, &Command::EndScene { winner: Some(1) }).unwrap();
        IncitingIncident::view(t.state(), Viewer::Seat(seat_of(&t, 0))).who_won.unwrap()
    };
    assert_eq!(lost.headline, "You lost: the enemies win.");
    assert_eq!(lost.you_won, Some(false));
}

/// The view names where the scene is in words (§5 steps 5–6), never as the phase's data: a page
/// once showed "Round 1 — initiative: players — [object Object]" (issue 34).
#[test]
fn phase_in_words_names_the_side_resolving() {
    let mut t = table(arena());
    assert_eq!(
        IncitingIncident::view(t.state(), Viewer::Spectator).phase_words,
        "everyone declares an action face down"
    );
    declare(&mut t, &[]);
    let words = IncitingIncident::view(t.state(), Viewer::Spectator).phase_words;
    assert!(
        words == "the players resolve their actions" || words == "the enemies resolve their actions",
        "{words}"
    );
}
