//! Hidden information (seed: Table Culture Rules, double-blind; §3.4 NPC Rank hidden):
//! face-down cards and bids are in no other seat's view or log before the reveal, and the
//! stat blocks of NPCs are in no player's view.

mod common;

use common::*;
use nodice::*;
use table::{Face, SeatId, Viewer};

const KARA_SEAT: Viewer = Viewer::Seat(SeatId(0));
const GM: Viewer = Viewer::Seat(SeatId(1));

#[test]
fn a_face_down_aspect_card_and_ante_are_seen_only_by_their_seat() {
    let mut t = start(kara_vs_bandit());
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    let card = AspectCard { aspect: Aspect::Body, ante: Attribute::Str };
    assert_eq!(t.view(KARA_SEAT).actors[0].aspect, Face::Known(card));
    for viewer in [GM, Viewer::Spectator] {
        let v = t.view(viewer);
        assert_eq!(v.actors[0].aspect, Face::FaceDown, "{viewer:?}");
        // The ante has not left the stack yet: the stack does not give the Aspect away.
        assert_eq!(v.actors[0].stacks, t.view(KARA_SEAT).actors[0].stacks.map(|s| s.map(|x| x)));
        assert_eq!(v.actors[0].stacks.unwrap()[Attribute::Str.index()], Some(4));
        // Intent and targets are said aloud.
        assert_eq!(v.actors[0].targets, Targets::one(ActorId(1)));
        for e in t.log_for(viewer) {
            if let Event::AspectCommitted { card, .. } = e {
                assert_eq!(card, None);
            }
        }
    }
    let json = serde_json::to_string(&t.view(GM)).unwrap();
    assert!(!json.contains("\"body\""), "{json}");
    commit_aspect(&mut t, "Bandit", "WIL", &["Kara"]).unwrap();
    assert_eq!(t.view(GM).actors[0].aspect, Face::Known(card), "revealed");
}

#[test]
fn a_face_down_action_card_and_bid_are_seen_only_by_their_seat() {
    let mut t = start(kara_vs_bandit());
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "WIL", &["Kara"]).unwrap();
    commit_action(&mut t, "Kara", "STR", 4, true).unwrap();
    let v = t.view(GM);
    assert_eq!(v.actors[0].action, Face::FaceDown);
    assert_eq!(v.actors[0].open_bid, None);
    assert_eq!(v.actors[0].wildcards, Some(1), "a Wildcard played face down is still in her pool");
    assert!(matches!(
        t.view(KARA_SEAT).actors[0].action,
        Face::Known(ActionCard { bid: 4, wildcard: true, .. })
    ));
    assert!(t.log_for(GM).iter().all(|e| !matches!(e, Event::ActionCommitted { card: Some(_), .. })));
}

#[test]
fn a_bid_played_face_up_is_seen_by_all() {
    let mut t = start(kara_vs_bandit());
    commit_aspect(&mut t, "Kara", "STR", &["Bandit"]).unwrap();
    commit_aspect(&mut t, "Bandit", "WIL", &["Kara"]).unwrap();
    t.submit(
        SeatId(0),
        &Command::CommitAction {
            actor: ActorId(0),
            attribute: Attribute::Str,
            bid: 4,
            wildcard: false,
            open: true,
            damage_aspect: None,
        },
    )
    .unwrap();
    let v = t.view(GM);
    assert_eq!(v.actors[0].open_bid, Some(4));
    assert_eq!(v.actors[0].action, Face::FaceDown, "the card itself stays face down");
}

#[test]
fn the_gm_does_not_see_a_players_face_down_card_either() {
    let mut t = start(kara_vs_bandit());
    commit_aspect(&mut t, "Kara", "AGI", &["Bandit"]).unwrap();
    assert_eq!(t.view(GM).actors[0].aspect, Face::FaceDown);
}

#[test]
fn npc_rank_and_stat_block_are_hidden_from_players_who_see_only_the_stakes() {
    let t = start(kara_vs_bandit());
    for viewer in [KARA_SEAT, Viewer::Spectator] {
        let v = t.view(viewer);
        let bandit = &v.actors[1];
        assert_eq!(
            (bandit.rank, &bandit.serial, bandit.stacks, bandit.trine_scores),
            (None, &None, None, None)
        );
        assert_eq!(v.stakes, 1);
        assert_eq!(v.stakes_name, "Low Stakes");
        // PCs' sheets are public.
        assert_eq!(v.actors[0].rank, Some(2));
    }
    let v = t.view(GM);
    assert_eq!(v.actors[1].rank, Some(1));
    assert_eq!(v.actors[1].serial.as_deref(), Some(BANDIT));
}
