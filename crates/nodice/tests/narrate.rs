//! The narration of events (`NoDice::narrate`): every event kind in the book's words, read on
//! the state before the event, face-down cards named only to those who may see them.

mod common;

use common::*;
use nodice::rules::{TokenFate, Void};
use nodice::*;
use table::{Ruleset, SeatId, Table, Viewer};

/// The whole log of `t` narrated for `viewer`, each event's text after its event.
fn narrated(t: &Table<NoDice>, viewer: Viewer) -> Vec<(Event, Option<String>)> {
    let mut state = t.initial().clone();
    let mut out = Vec::new();
    for e in t.log() {
        let seen = NoDice::redact(&state, e, viewer);
        out.push((e.clone(), NoDice::narrate(&state, &seen, viewer)));
        NoDice::apply(&mut state, e);
    }
    out
}

fn text_of(log: &[(Event, Option<String>)], pick: impl Fn(&Event) -> bool) -> String {
    log.iter().find(|(e, _)| pick(e)).and_then(|(_, t)| t.clone()).expect("narrated")
}

/// The worked example's first Hand, to the Bandit's damage.
fn hand_one() -> Table<NoDice> {
    let mut t = start(kara_vs_bandit());
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "WIL", &["Kara"]).unwrap();
    commit_action(&mut t, "Kara", "STR", 4, true).unwrap();
    commit_action(&mut t, "Bandit", "PRE", 3, false).unwrap();
    spread(&mut t, "Kara", [0, 0, 3]).unwrap();
    t
}

#[test]
fn narrate_hand_started_commits_and_reveals_in_the_books_words() {
    let t = hand_one();
    let log = narrated(&t, Viewer::Spectator);
    assert_eq!(
        text_of(&log, |e| matches!(e, Event::HandStarted { .. })),
        "\n=== Hand 1 — Stakes 1 (Low Stakes) — Under the Gun: Kara ==="
    );
    assert_eq!(
        text_of(&log, |e| matches!(e, Event::AspectCommitted { .. })),
        "Kara antes and plays an Aspect card face down, targeting Bandit."
    );
    let reveal = text_of(&log, |e| matches!(e, Event::AspectsRevealed));
    assert!(
        reveal.starts_with("Reveal:\n  Kara played Body (ante 1 STR), 1 Trine Dominance win"),
        "{reveal}"
    );
    assert!(reveal.ends_with("The pot holds 2 token(s)."), "{reveal}");
    let paid = text_of(&log, |e| matches!(e, Event::TokenPaid { .. }));
    assert!(paid.starts_with("  Pot: a") || paid.starts_with("  Pot: an"), "{paid}");
    assert_eq!(
        text_of(&log, |e| matches!(e, Event::ActionCommitted { .. })),
        "Kara plays an Action card and bids, face down."
    );
    let actions = text_of(&log, |e| matches!(e, Event::ActionsRevealed));
    assert!(actions.contains("Kara played Strength and bid 4 with a Wildcard"), "{actions}");
    assert!(
        actions.contains("Kara against Bandit: Trine Dominance Kara, Attribute Dominance Kara, Sweep for Kara; Showdown Totals 8 – 3"),
        "{actions}"
    );
    assert_eq!(
        text_of(&log, |e| matches!(e, Event::Struck { .. })),
        "Bandit → Kara: 3 Spirit damage (first, unopposed)."
    );
    assert_eq!(text_of(&log, |e| matches!(e, Event::DamageTaken { .. })), "  Kara takes it: INT −3.");
}

#[test]
fn narrate_a_face_down_card_only_for_the_viewer_who_may_see_it() {
    let t = hand_one();
    let kara = narrated(&t, Viewer::Seat(SeatId(0)));
    assert_eq!(
        text_of(&kara, |e| matches!(e, Event::AspectCommitted { actor: ActorId(0), .. })),
        "Kara antes and plays an Aspect card face down, targeting Bandit. (Face down: Body, ante from STR.)"
    );
    assert_eq!(
        text_of(&kara, |e| matches!(e, Event::ActionCommitted { actor: ActorId(0), .. })),
        "Kara plays an Action card and bids, face down. (Face down: Strength bid 4 with a Wildcard.)"
    );
    // The Bandit's cards stay face down for Kara; Kara's for the spectator.
    let bandit = text_of(&kara, |e| matches!(e, Event::AspectCommitted { actor: ActorId(1), .. }));
    assert!(!bandit.contains("Face down:"), "{bandit}");
    for (e, text) in narrated(&t, Viewer::Spectator) {
        assert!(!text.unwrap_or_default().contains("Face down:"), "{e:?}");
    }
}

#[test]
fn narrate_token_refresh_is_bookkeeping() {
    let t = start(kara_vs_bandit());
    assert_eq!(NoDice::narrate(t.state(), &Event::TokensRefreshed, Viewer::Spectator), None);
}

#[test]
fn narrate_the_other_events_of_a_conflict() {
    let t = hand_one();
    let c = t.state();
    let say = |e: Event| NoDice::narrate(c, &e, Viewer::Spectator).unwrap();
    let (kara, bandit) = (ActorId(0), ActorId(1));
    assert_eq!(say(Event::Withdrew { actor: kara }), "Kara will not ante and withdraws from the Conflict.");
    assert_eq!(
        say(Event::CouldNotAnte { actor: bandit }),
        "Bandit cannot ante 1 chips from any Attribute: eliminated."
    );
    assert_eq!(
        say(Event::TokenPaid {
            to: kara,
            attribute: Attribute::ALL[6],
            fate: TokenFate::ToJackpot,
            rng_pos: 0
        }),
        "  Pot: a Willpower token drawn for Kara, who has no Willpower: to the Jackpot."
    );
    assert_eq!(say(Event::PotToJackpot), "  Nobody won Trine Dominance: the pot becomes the Jackpot.");
    assert_eq!(
        say(Event::StrikeVoid { strike: 1, why: Void::TargetOut }),
        "Kara → Bandit: nothing, the target is out."
    );
    assert_eq!(
        say(Event::Eliminated { actor: bandit, status: Status::Exhausted(Aspect::Body) }),
        "Bandit is eliminated: every Body Attribute at 0."
    );
    assert_eq!(
        say(Event::DamageTaken {
            actor: bandit,
            aspect: Aspect::Body,
            spread: [3, 2, 0],
            exhausted: Some(Aspect::Body)
        }),
        "  Bandit takes it: STR −3, FIT −2.\n  Bandit has no Body left: eliminated."
    );
    assert_eq!(say(Event::Engaged { clusters: vec![] }), "The GM engages every Actor: one Hand for all.");
    assert_eq!(
        say(Event::ClusterEnded),
        "The cluster has no opposition left: its Hand ends, the face-down cards go back."
    );
    assert_eq!(
        say(Event::ClusterStarted { cluster: 1, utg: bandit }),
        "Bids return to the stacks.\n--- Cluster 2 — Under the Gun: Bandit ---"
    );
    assert_eq!(
        say(Event::Justified { actor: kara, hand: 1, line: "I saw him blink".into() }),
        "  Kara justifies: \"I saw him blink\""
    );
    assert_eq!(
        say(Event::HandEnded { next_utg: kara }),
        "Bids return to the stacks.\n\n=== Hand 2 — Stakes 1 (Low Stakes) — Under the Gun: Kara ==="
    );
    assert_eq!(
        say(Event::ConflictEnded { ending: Ending::Fiction }),
        "\n=== The Conflict is over: the GM ends it: the fiction has resolved the objective. ==="
    );
    assert_eq!(
        say(Event::ConflictEnded { ending: Ending::Stalemate(10) }),
        "\n=== The Conflict is over: a stalemate: 10 Hands in a row without damage or elimination. ==="
    );
}

#[test]
fn narrate_a_split_brawl_names_its_clusters() {
    let t = start(brawl(1));
    let c = t.state();
    let (a, b, cc) = (ActorId(0), ActorId(1), ActorId(2));
    let text = NoDice::narrate(
        c,
        &Event::Engaged { clusters: vec![Targets::one(a).with(b), Targets::one(cc).with(a)] },
        Viewer::Spectator,
    )
    .unwrap();
    assert!(text.starts_with("The GM splits the brawl (cluster 1: A, B; cluster 2: A, C)"), "{text}");
}
