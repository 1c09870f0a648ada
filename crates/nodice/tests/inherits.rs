//! "Inherits" fields of abstract Actors (rules reference §3.4: a ruin inherits its swamp and
//! its ghost), merged by Decision 30 of `docs/nodice.md`.

mod common;

use common::*;
use nodice::*;

const RUIN: &str = "B5(8/7/-)";
const SWAMP: &str = "M1(-/-/5)-B4(-/7/6)";
const GHOST: &str = "M3(4/5/2)-S5(6/7/4)";

#[test]
fn inherits_a_ruin_inherits_its_swamp_and_its_ghost() {
    let merged = block(RUIN).inherit(&[block(SWAMP), block(GHOST)]);
    // Body stays the ruin's own; Mind comes from the swamp (listed first), Spirit from the
    // ghost; the swamp's Body and the ghost's Mind are not taken.
    assert_eq!(merged.statblock.attributes, block("M1(-/-/5)-B5(8/7/-)-S5(6/7/4)").attributes);
    assert_eq!(merged.taken, vec![(Aspect::Mind, 0), (Aspect::Spirit, 1)]);
    assert_eq!(merged.statblock.trine_score(Aspect::Mind), Some(1));
    assert_eq!(merged.statblock.trine_score(Aspect::Body), Some(5));
    assert_eq!(merged.statblock.trine_score(Aspect::Spirit), Some(5));
    // The Build Budget is the merged values: 15 + 5 + 17 = 37, Rank 2.
    assert_eq!((merged.statblock.build_budget(), merged.statblock.rank()), (37, 2));
}

#[test]
fn inherits_whole_aspects_never_mixes_a_trine() {
    // The ruin has Body (STR, FIT) without AGI: the swamp's AGI 6 does not fill the gap, so
    // the Body Trine Score stays the ruin's own.
    let merged = block(RUIN).inherit(&[block(SWAMP)]);
    assert_eq!(merged.statblock.value(Attribute::Agi), None);
    assert_eq!(merged.statblock.trine_score(Aspect::Body), Some(5));
    // The order decides: the ghost first gives the ruin the ghost's Mind.
    let merged = block(RUIN).inherit(&[block(GHOST), block(SWAMP)]);
    assert_eq!(merged.statblock.value(Attribute::Rea), Some(4));
    assert_eq!(merged.taken, vec![(Aspect::Mind, 0), (Aspect::Spirit, 0)]);
}

#[test]
fn inherits_nothing_leaves_the_sheet_unchanged() {
    let kara = block(KARA);
    let merged = kara.inherit(&[block(GHOST)]);
    assert_eq!(merged.statblock, kara);
    assert!(merged.taken.is_empty());
    assert_eq!(block(RUIN).inherit(&[]).statblock, block(RUIN));
}

#[test]
fn inherits_adds_the_values_taken_to_a_stated_build_budget() {
    // A stated Build Budget stays authoritative (Decision 9) and grows by the values taken;
    // the stated Rank described the sheet alone and is dropped; ability points stay its own.
    let door = block("R1/0(6/2)-FIT-4");
    let merged = door.inherit(&[block(GHOST)]);
    assert_eq!(merged.statblock.stated_budget, Some(6 + 11 + 17));
    assert_eq!(merged.statblock.stated_rank, None);
    assert_eq!(merged.statblock.ability_points, 2);
    assert_eq!((merged.statblock.build_budget(), merged.statblock.rank()), (34, 1)); // 1 + floor(7 / 9)
}

#[test]
fn inherits_only_abstract_actors_inherit() {
    assert!(Kind::Abstract.may_inherit());
    assert!(!Kind::Pc.may_inherit());
    assert!(!Kind::Npc.may_inherit());
}

#[test]
fn inherits_a_merged_ruin_plays_a_conflict_with_its_inherited_spirit() {
    // The merged sheet is an ordinary stat block: the ruin may ante and bid in Spirit.
    let mut setup = kara_vs_bandit();
    let ruin = block(RUIN).inherit(&[block(SWAMP), block(GHOST)]).statblock;
    setup.actors[1] = ActorSheet::new("Ruin", Kind::Abstract, ruin, table::SeatId(1), table::SideId(1));
    let mut t = start(setup);
    commit_aspect(&mut t, "Kara", "STR", &["Ruin"]).unwrap();
    commit_aspect(&mut t, "Ruin", "WIL", &["Kara"]).unwrap();
    commit_action(&mut t, "Kara", "STR", 4, false).unwrap();
    // Bid cap: the ghost's Spirit Trine Score, 5.
    assert_eq!(commit_action(&mut t, "Ruin", "PRE", 6, false), Err(RuleError::OverCap { bid: 6, cap: 5 }));
    commit_action(&mut t, "Ruin", "PRE", 5, false).unwrap();
}

mod properties {
    use nodice::{Aspect, Statblock};
    use proptest::prelude::*;

    fn statblock() -> impl Strategy<Value = Statblock> {
        proptest::array::uniform9(proptest::option::of(0u8..=100)).prop_map(Statblock::new)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Decision 30: own Aspects never change; the merged sheet has every Aspect any of
        /// the sheets has; each Aspect taken is exactly the first inheriting sheet's.
        #[test]
        fn inherits_keeps_own_aspects_and_takes_whole_ones(
            own in statblock(),
            sheets in proptest::collection::vec(statblock(), 0..4),
        ) {
            let merged = own.inherit(&sheets);
            for aspect in Aspect::ALL {
                let values = |b: &Statblock| aspect.attributes().map(|a| b.value(a));
                if own.has_aspect(aspect) {
                    prop_assert_eq!(values(&merged.statblock), values(&own));
                } else if let Some(i) = sheets.iter().position(|s| s.has_aspect(aspect)) {
                    prop_assert_eq!(values(&merged.statblock), values(&sheets[i]));
                    prop_assert!(merged.taken.contains(&(aspect, i)));
                } else {
                    prop_assert!(!merged.statblock.has_aspect(aspect));
                }
            }
            prop_assert_eq!(
                merged.statblock.build_budget(),
                merged.statblock.value_total() + own.ability_points
            );
        }
    }
}

/// §3.4 "Inherits", bounded (`nodice::sheets`): an in-memory sheet that inherits the next
/// one four times, six levels deep, would expand to 4^6 reads; the walk stops at
/// `MAX_INHERITED_SHEETS`, a deeper chain at `MAX_INHERIT_DEPTH`, and a cycle is refused.
#[test]
fn inherits_chains_are_bounded_without_io() {
    use nodice::sheets::{ActorFile, InheritError, Loaded, MAX_INHERITED_SHEETS, merge_inherited};
    let mut reads = 0;
    let mut load = |&k: &u32| -> Result<Loaded<u32>, String> {
        reads += 1;
        let inherits = if k < 6 { vec![k + 1; 4] } else { vec![] };
        let file = ActorFile {
            name: format!("S{k}"),
            kind: Kind::Abstract,
            serial: "B1(1/1/1)".into(),
            wildcards: None,
            notes: None,
            inherits: vec![],
        };
        Ok(Loaded { id: k, file, inherits })
    };
    let root: Statblock = "M1(1/1/1)".parse().unwrap();
    let e = merge_inherited("Root", Kind::Abstract, root, &[0u32], vec![], &mut load).unwrap_err();
    assert_eq!(e, InheritError::TooMany { actor: "Root".into() });
    assert!(reads <= MAX_INHERITED_SHEETS);
    let mut deep = |&k: &u32| -> Result<Loaded<u32>, String> {
        let file = ActorFile {
            name: format!("D{k}"),
            kind: Kind::Abstract,
            serial: "B1(1/1/1)".into(),
            wildcards: None,
            notes: None,
            inherits: vec![],
        };
        Ok(Loaded { id: k, file, inherits: vec![k + 1] })
    };
    let e = merge_inherited("Root", Kind::Abstract, root, &[0u32], vec![], &mut deep).unwrap_err();
    assert!(matches!(e, InheritError::TooDeep { .. }), "{e}");
    let mut cycle = |&k: &u32| -> Result<Loaded<u32>, String> {
        let file = ActorFile {
            name: format!("C{k}"),
            kind: Kind::Abstract,
            serial: "B1(1/1/1)".into(),
            wildcards: None,
            notes: None,
            inherits: vec![],
        };
        Ok(Loaded { id: k, file, inherits: vec![1 - k] })
    };
    let e = merge_inherited("Root", Kind::Abstract, root, &[0u32], vec![], &mut cycle).unwrap_err();
    assert_eq!(e, InheritError::Cycle("0".into()));
}
