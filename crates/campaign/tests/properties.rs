//! Properties of the store over random command sequences: a refused command changes nothing,
//! an accepted one is logged, and every stored sheet always satisfies §4.

use campaign::Store;
use iron_triangle::campaign::levelling::{Advance, LevelUp, Refill};
use iron_triangle::campaign::problem::{Choice, ProblemOption};
use iron_triangle::campaign::rest::Rest;
use iron_triangle::campaign::{Background, Sheet};
use iron_triangle::special::Edition;
use iron_triangle::{Action, Character, Energy, Move};
use proptest::prelude::*;

/// Everything a command may change, as comparable text.
async fn dump(s: &Store) -> String {
    let problems: Vec<_> = s.problems().await.unwrap();
    serde_json::json!({
        "pcs": s.pcs().await.unwrap(),
        "npcs": s.npcs().await.unwrap(),
        "countdowns": s.countdowns().await.unwrap(),
        "problems": problems,
        "conflicts": s.conflicts().await.unwrap(),
    })
    .to_string()
}

#[derive(Debug, Clone)]
enum Op {
    Countdown(u32),
    Mark(u8),
    Problem(Vec<u8>),
    Choose(u8, u8, u32),
    Reveal(u8),
    Pass(u8),
    Veto(u8, u8, u32),
    Settle(u8),
    Rest(u8, Option<u8>),
    Goal(u8),
    LevelUp(u8, u8),
    Energy(u8, u8, u8, u8),
    Death(u8),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (2u32..10).prop_map(Op::Countdown),
        (0u8..3).prop_map(Op::Mark),
        proptest::collection::vec(0u8..4, 0..3).prop_map(Op::Problem),
        (0u8..4, 0u8..3, 0u32..6).prop_map(|(p, c, o)| Op::Choose(p, c, o)),
        (0u8..4).prop_map(Op::Reveal),
        (0u8..4).prop_map(Op::Pass),
        (0u8..4, 0u8..3, 0u32..4).prop_map(|(p, c, o)| Op::Veto(p, c, o)),
        (0u8..4).prop_map(Op::Settle),
        (0u8..3, proptest::option::of(0u8..3)).prop_map(|(k, c)| Op::Rest(k, c)),
        (0u8..3).prop_map(Op::Goal),
        (0u8..3, 0u8..13).prop_map(|(c, m)| Op::LevelUp(c, m)),
        (0u8..3, 0u8..4, 0u8..4, 0u8..6).prop_map(|(c, d, g, a)| Op::Energy(c, d, g, a)),
        (0u8..3).prop_map(Op::Death),
    ]
}

const NAMES: [&str; 3] = ["Ada", "Bao", "Nobody"];

fn name(i: u8) -> &'static str {
    NAMES[usize::from(i) % 3]
}

async fn apply(s: &Store, op: &Op) -> Result<(), campaign::StoreError> {
    let pid = |p: u8| u64::from(p) + 1;
    let opt = |o: u32| ProblemOption::from_number(o).unwrap_or(ProblemOption::GoodIdea);
    match op {
        Op::Countdown(b) => s.create_countdown(&format!("c{b}"), *b).await.map(drop),
        Op::Mark(c) => s.mark_countdown(&format!("c{}", c + 4)).await.map(drop),
        Op::Problem(who) => {
            let names: Vec<String> = who.iter().map(|&w| name(w).to_owned()).collect();
            s.start_problem("p", &names).await.map(drop)
        }
        Op::Choose(p, c, o) if *o >= 1 && *o <= 4 => {
            s.choose(pid(*p), name(*c), &Choice::of(opt(*o))).await.map(drop)
        }
        // Options outside 1–4 cannot be written in the API; the CLI refuses them.
        Op::Choose(..) => Err(campaign::StoreError::Invalid("no such option".into())),
        Op::Reveal(p) => s.reveal(pid(*p)).await.map(drop),
        Op::Pass(p) => s.cannot_narrate(pid(*p)).await.map(drop),
        Op::Veto(p, c, o) => s.veto(pid(*p), name(*c), &Choice::of(opt(*o))).await.map(drop),
        Op::Settle(p) => s.settle(pid(*p), "").await.map(drop),
        Op::Rest(k, c) => {
            let kind = [Rest::Breather, Rest::Short, Rest::Full][usize::from(*k)];
            let choices: Vec<(String, Action)> =
                c.iter().map(|&a| ("Ada".to_owned(), Action::ALL[usize::from(a)])).collect();
            s.rest(kind, &choices, None).await.map(drop)
        }
        Op::Goal(c) => s
            .update_pc(name(*c), "goal", serde_json::json!({}), |sh, _| {
                let mut t = sh.clone();
                t.goal_achieved = true;
                Ok(t)
            })
            .await
            .map(drop),
        Op::LevelUp(c, m) => {
            let up = LevelUp {
                advance: Advance::LearnMove { card: Move::ALL[usize::from(*m)], name: format!("m{m}") },
                refill: Some(Refill::Backgrounds),
            };
            s.level_up(name(*c), &up).await.map(drop)
        }
        // A conflict's write-back in small: energy and zero marks (checked by the rules).
        Op::Energy(c, d, g, a) => s
            .update_pc(name(*c), "energy", serde_json::json!({}), |sh, _| {
                let mut t = sh.clone();
                let e = Energy::new(*d, *g, *a);
                if !e.fits_within(&t.character.energy) {
                    return Err(iron_triangle::campaign::CampaignError::Entry("above maximum".into()));
                }
                for x in Action::ALL {
                    if e.get(x) == 0 {
                        t.mark_zero(x);
                    }
                }
                t.set_current(e);
                Ok(t)
            })
            .await
            .map(drop),
        Op::Death(c) => s
            .update_pc(name(*c), "death", serde_json::json!({}), |sh, _| Ok(sh.record_death()))
            .await
            .map(drop),
    }
}

fn pc(n: &str, e: Energy) -> Sheet {
    Sheet {
        character: Character::with_starting_moves(n, e),
        backgrounds: vec![Background { name: "cop".into(), points: 2, left: None }],
        ..Sheet::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn refused_commands_change_nothing_and_sheets_stay_valid(ops in proptest::collection::vec(op(), 1..30)) {
        rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("p.sqlite")).await.unwrap();
        s.create_pc(&pc("Ada", Energy::new(3, 2, 5))).await.unwrap();
        s.create_pc(&pc("Bao", Energy::new(4, 3, 3))).await.unwrap();
        for op in &ops {
            let before = dump(&s).await;
            let logged = s.log(None).await.unwrap().len();
            match apply(&s, op).await {
                Ok(()) => prop_assert!(s.log(None).await.unwrap().len() > logged, "{:?} was not logged", op),
                Err(e) => {
                    prop_assert_eq!(&dump(&s).await, &before, "{:?} failed ({}) but changed the campaign", op, e);
                    prop_assert_eq!(s.log(None).await.unwrap().len(), logged);
                    prop_assert!(!e.to_string().is_empty());
                }
            }
            for sheet in s.pcs().await.unwrap() {
                prop_assert_eq!(sheet.validate(Edition::Current), Ok(()), "{:?}", op);
            }
        }
            Ok(())
        })?;
    }
}

/// A runtime for one test: the store owns none, its caller brings one.
fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}
