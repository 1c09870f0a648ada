//! The referee calculator ([`referee`], `facedown iron-triangle resolve`) and the engine decide
//! a turn with the same functions: random turns played through a [`table::Table`] are entered,
//! as a referee at a real table would enter them (both stances, moves, chains, the combo
//! being continued, the energies and the specials revealed), into [`referee::compute`], and
//! both must agree on the winner and the step that decided it, every loss component, the
//! losses after the specials, who spreads each, the gains, the chains of the next turn and
//! whether a loss wipes a character out.

#[macro_use]
mod common;

use common::*;
use iron_triangle::referee::{self, Report, SideSheet, TurnSheet};
use iron_triangle::special::{Edition, Special};
use iron_triangle::windows::SpecialCard;
use iron_triangle::{Action, Combo, Command, Conflict, Event, FighterId, Move, Phase};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use rand::RngExt;
use table::{Table, TableRng, seeded_rng};

fn config(cases: u32) -> Config {
    let seed = std::env::var("PROPTEST_RNG_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x1207_2019);
    Config { cases, failure_persistence: None, rng_seed: RngSeed::Fixed(seed), ..Config::default() }
}

/// A random set of specials of `edition` a character of level 12 may know (Yojimbo needs an
/// ally, so a 1v1 leaves it out), each Dig Two Graves with its prerequisite.
fn random_specials(edition: Edition, rng: &mut TableRng) -> Vec<Special> {
    let mut out: Vec<Special> = Vec::new();
    for sp in Special::all() {
        // The specials that change a turn's losses come more often, so that they clash; so does
        // Liquid Metal, so that copies meet their originals (§6 Decision).
        let changes_losses = matches!(
            sp,
            Special::PressurePoint
                | Special::WaxOn(_)
                | Special::Parry(_)
                | Special::DigTwoGraves(_)
                | Special::SantaCarla(_)
                | Special::Vampire(_)
                | Special::LiquidMetal
        );
        let odds = if changes_losses { 2 } else { 6 };
        if !sp.in_edition(edition) || sp == Special::Yojimbo || rng.random_range(0..odds) != 0 {
            continue;
        }
        if let Some(pre) = sp.prerequisite(edition)
            && !out.contains(&pre)
        {
            out.push(pre);
        }
        if !out.contains(&sp) {
            out.push(sp);
        }
    }
    out
}

/// A 1v1 (a third of the time with an ally of A's side knowing Yojimbo) of level-12
/// characters knowing every move, with random energies (12 to 21, §10,
/// sometimes lower now) and specials.
fn duel(seed: u64) -> Conflict {
    let mut rng = seeded_rng(seed);
    let edition = if rng.random_range(0..4) == 0 { Edition::Earlier } else { Edition::Current };
    let mut character = |name: &str| {
        let max = en(rng.random_range(4..=7), rng.random_range(4..=7), rng.random_range(4..=7));
        let mut c = npc_all(name, max);
        c.level = 12;
        c.specials = random_specials(edition, &mut rng);
        // Combos between random moves, so that chains are continued (§5.5).
        let mut combos = Vec::new();
        for from in Move::ALL {
            if rng.random_range(0..2) == 0 {
                // At most two follow-ups per starting move (§5.5, §10).
                let follow_ups =
                    (0..rng.random_range(1..=2)).map(|_| Move::ALL[rng.random_range(0..13)]).collect();
                combos.push(Combo { from, follow_ups });
            }
        }
        c.combos = combos;
        if rng.random_range(0..3) == 0 {
            c.current = Some(en(
                rng.random_range(0..=max.defend),
                rng.random_range(0..=max.grapple),
                rng.random_range(1..=max.attack),
            ));
        }
        c
    };
    let (a, b, mut c) = (character("A"), character("B"), character("C"));
    let mut build = Build::new().pc("p", a).npc(b);
    // Sometimes an ally of A's side who knows Yojimbo, to take a loss of the pair (§6).
    if seed.is_multiple_of(3) {
        c.specials.push(Special::Yojimbo);
        build = build.pc("q", c);
    }
    let mut setup = build.setup();
    setup.edition = edition;
    Conflict::new(setup).unwrap_or_else(|e| panic!("setup refused: {e}"))
}

/// The turn about to be resolved, as a referee enters it: `state` is the conflict just before
/// its `TurnResolved` event, `specials` the cards revealed this turn. `None` for a turn the
/// calculator does not take: two specials of one character, a special of an ally other than
/// Yojimbo, or a combo chain between others than the pair. A Liquid Metal copy is entered as
/// such (`special` Liquid Metal, `copy_of` the copied special), so a copy meeting its original
/// acts as the engine lets it (§6 Decision).
fn sheet_of(state: &Conflict, specials: &[(FighterId, SpecialCard)]) -> Option<TurnSheet> {
    let Phase::Turn(t) = &state.phase else { return None };
    let pair = t.pair()?;
    if let Some(c) = &state.combo
        && !c.is_empty()
        && !(0..2).any(|i| c.side == state.fighter(pair[i]).side && c.against == pair[1 - i])
    {
        return None;
    }
    let mut yojimbo = None;
    for (_, card) in specials.iter().filter(|(by, _)| !pair.contains(by)) {
        match (card.effective(), card.target.and_then(|t| pair.iter().position(|&p| p == t))) {
            (Special::Yojimbo, Some(i)) if yojimbo.is_none() => yojimbo = Some(["a", "b"][i].to_owned()),
            _ => return None,
        }
    }
    let side = |i: usize| -> Option<SideSheet> {
        let id = pair[i];
        let f = state.fighter(id);
        let mine: Vec<SpecialCard> = specials.iter().filter(|(by, _)| *by == id).map(|&(_, c)| c).collect();
        if mine.len() > 1 || mine.iter().any(|c| c.effective() == Special::Yojimbo) {
            return None;
        }
        let (combo, follow_ups) = match &state.combo {
            Some(c) if c.side == f.side && c.against == pair[1 - i] && !c.is_empty() => (
                c.cards.iter().map(|c| c.card.to_string()).collect(),
                f.follow_ups[c.newest().index()].iter().map(|m| m.to_string()).collect(),
            ),
            _ => (Vec::new(), Vec::new()),
        };
        Some(SideSheet {
            name: Some(f.character.name.clone()),
            energy: Some([f.energy.defend, f.energy.grapple, f.energy.attack]),
            stance: Some(t.stances[i].value()?.to_string()),
            play: t.plays[i].value()?.to_string(),
            disadvantage: f.disadvantage.iter().map(|m| m.to_string()).collect(),
            combo,
            follow_ups,
            special: mine.first().map(|c| c.special.key()),
            copy_of: mine.first().and_then(|c| c.copy).map(|s| s.key()),
        })
    };
    Some(TurnSheet {
        comment: None,
        edition: Some(referee::edition_name(state.edition).to_owned()),
        yojimbo,
        a: side(0)?,
        b: side(1)?,
    })
}

/// "a" or "b" for one of the pair; "a_ally" or "b_ally" for the ally who took a loss with
/// Yojimbo (`ally_of`, the side it named).
fn key(pair: [FighterId; 2], id: FighterId, ally_of: Option<&str>) -> &'static str {
    match (pair.iter().position(|&p| p == id), ally_of) {
        (Some(0), _) => "a",
        (Some(_), _) => "b",
        (None, Some("b")) => "b_ally",
        (None, _) => "a_ally",
    }
}

/// The calculator's report against the engine's state right after `TurnResolved`.
fn compare(report: &Report, after: &Conflict, ally_of: Option<&str>) -> Result<(), TestCaseError> {
    let Phase::Aftermath(a) = &after.phase else {
        return Err(TestCaseError::fail(format!("no aftermath after TurnResolved: {:?}", after.phase)));
    };
    let r = &a.result;
    prop_assert_eq!(report.winner, r.outcome.winner().map(|w| key(a.pair, a.pair[w], ally_of)));
    prop_assert_eq!(report.decided_by, r.decided_by);
    prop_assert_eq!(report.combo_continued, r.combo_continued);
    prop_assert_eq!([report.a.disadvantaged, report.b.disadvantaged], r.disadvantaged);
    prop_assert_eq!([report.a.loss.parts, report.b.loss.parts], r.losses);
    prop_assert_eq!([report.final_losses.a.parts, report.final_losses.b.parts], a.losses);
    let spreaders =
        [0, 1].map(|i| a.spreaders[i].map_or(key(a.pair, a.pair[i], ally_of), |s| key(a.pair, s, ally_of)));
    prop_assert_eq!([report.spreaders.a, report.spreaders.b], spreaders);
    let extras: Vec<_> =
        after.extras.iter().map(|e| (key(a.pair, e.fighter, ally_of), e.kind, e.amount)).collect();
    let reported: Vec<_> = report.extras.iter().map(|e| (e.fighter, e.kind, e.amount)).collect();
    prop_assert_eq!(reported, extras);
    let chains = [0, 1].map(|i| after.fighter(a.pair[i]).disadvantage.cards());
    prop_assert_eq!([report.next.disadvantage.a.clone(), report.next.disadvantage.b.clone()], chains);
    let combo = after.combo.as_ref().filter(|c| !c.is_empty()).map(|c| {
        let side = if after.fighter(a.pair[0]).side == c.side { "a" } else { "b" };
        (side, key(a.pair, c.against, ally_of), c.cards.iter().map(|c| c.card).collect::<Vec<_>>())
    });
    let reported = report.next.combo.as_ref().map(|c| (c.side, c.against, c.cards.clone()));
    prop_assert_eq!(reported, combo);
    Ok(())
}

/// Whether the calculator's wipe-out says what the engine did: a character whose energy was
/// given goes out exactly when the report says its final loss wipes it out — unless a gain
/// came in between or The Way of the Samurai keeps it in (§5.3, §6).
fn check_out(open: &Open, out: &[FighterId]) -> Result<(), TestCaseError> {
    if !open.report.extras.is_empty() {
        return Ok(());
    }
    for (i, f) in [&open.report.a, &open.report.b].into_iter().enumerate() {
        let Some(e) = &f.energy else { continue };
        if open.samurai[i] {
            continue;
        }
        prop_assert_eq!(e.wiped_out, out.contains(&open.pair[i]), "{} in {:#?}", f.name, open.report);
    }
    Ok(())
}

/// A turn resolved whose losses are being taken.
struct Open {
    report: Report,
    pair: [FighterId; 2],
    /// Whether The Way of the Samurai keeps each of the pair in.
    samurai: [bool; 2],
}

/// What the random turns compared: how many turns, and how many with a Liquid Metal copy in
/// the pair, and with a copy meeting its original (§6 Decision).
#[derive(Debug, Default)]
struct Compared {
    turns: usize,
    copies: usize,
    copies_meeting_originals: usize,
}

/// Plays a random conflict (`setup`) with random choices (`seed`) and checks the calculator
/// against the engine on every turn it takes.
fn agree_on_random_turns(setup: u64, seed: u64, seen: &mut Compared) -> Result<(), TestCaseError> {
    let mut g: Game = Table::new(duel(setup));
    let mut rng = seeded_rng(seed);
    let mut turns = 0;
    let mut specials: Vec<(FighterId, SpecialCard)> = Vec::new();
    let mut open: Option<Open> = None;
    let mut out: Vec<FighterId> = Vec::new();
    let mut n = 0;
    while !g.is_over() && turns < 12 && n < 600 {
        n += 1;
        let (seat, cmd) = random_legal(&g, &mut rng).expect("a live conflict waits for someone");
        // Adjustments are the GM's, not the turn's.
        if matches!(cmd, Command::AdjustEnergy { .. }) {
            continue;
        }
        // The command's events, replayed from the state before it: the turn is seen just
        // before it is resolved.
        let mut state = g.state().clone();
        let events = ok!(g, seat, cmd);
        for e in &events {
            match e {
                Event::TurnBegan { .. } => specials.clear(),
                Event::SpecialRevealed { fighter, card, .. } => specials.push((*fighter, *card)),
                Event::WentOut { fighter, .. } => out.push(*fighter),
                _ => {}
            }
            if matches!(e, Event::TurnBegan { .. } | Event::ConflictEnded { .. })
                && let Some(o) = open.take()
            {
                check_out(&o, &out)?;
            }
            if let Event::TurnResolved { .. } = e {
                turns += 1;
                if let Some(sheet) = sheet_of(&state, &specials) {
                    let report = referee::compute(&sheet)
                        .map_err(|err| TestCaseError::fail(format!("{err} in {sheet:#?}")))?;
                    let mut after = state.clone();
                    after.apply(e);
                    compare(&report, &after, sheet.yojimbo.as_deref())?;
                    // The calculator's words are the players': no § reference.
                    for text in
                        std::iter::once(&report.summary).chain(report.specials.iter().map(|s| &s.effect))
                    {
                        prop_assert!(!text.contains('§'), "a § in {text:?}");
                    }
                    seen.turns += 1;
                    let cards: Vec<SpecialCard> = specials.iter().map(|&(_, c)| c).collect();
                    if cards.iter().any(|c| c.copy.is_some()) {
                        seen.copies += 1;
                    }
                    if cards.iter().any(|c| c.copy.is_some_and(|x| cards.iter().any(|d| d.special == x))) {
                        seen.copies_meeting_originals += 1;
                    }
                    let Phase::Aftermath(a) = &after.phase else { unreachable!("compare checked it") };
                    let samurai = a.pair.map(|id| state.fighter(id).samurai);
                    open = Some(Open { report, pair: a.pair, samurai });
                    out.clear();
                }
            }
            state.apply(e);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(96))]

    /// §5.2 step 4, §5.3–§5.5, §6: `iron-triangle resolve` and the engine agree on random
    /// turns of random 1v1 conflicts (some with an ally playing Yojimbo), with random stances,
    /// moves, chains, energies and specials (Liquid Metal copies included), in both editions.
    #[test]
    fn resolve_agrees_with_the_engine_on_random_turns(setup in any::<u64>(), seed in any::<u64>()) {
        agree_on_random_turns(setup, seed, &mut Compared::default())?;
    }
}

/// The random turns above reach Liquid Metal copies, and copies meeting their originals in the
/// pair (§6 Decision): the calculator is compared with the engine on them, not skipped.
#[test]
fn the_random_turns_compare_liquid_metal_copies_meeting_their_originals() {
    let mut seen = Compared::default();
    for i in 0..200u64 {
        let (setup, seed) = (i.wrapping_mul(0x9E37_79B9_7F4A_7C15), i ^ 0x1207_2019);
        if let Err(e) = agree_on_random_turns(setup, seed, &mut seen) {
            panic!("setup {setup}, seed {seed}: {e}");
        }
        if seen.copies_meeting_originals >= 3 {
            break;
        }
    }
    assert!(seen.copies_meeting_originals >= 3, "too few copies meeting their original: {seen:?}");
}

// ---------------------------------------------------------------------------------------------
// The calculator's own rules and refusals (§5.2, §5.5, §6)
// ---------------------------------------------------------------------------------------------

/// One of the pair playing `play` and nothing else.
fn plays(play: &str) -> SideSheet {
    SideSheet { play: play.into(), ..SideSheet::default() }
}

/// One of the pair playing `play` with `special`.
fn with_special(play: &str, special: &str) -> SideSheet {
    SideSheet { special: Some(special.into()), ..plays(play) }
}

fn turn(a: SideSheet, b: SideSheet) -> TurnSheet {
    TurnSheet { a, b, ..TurnSheet::default() }
}

fn earlier(mut t: TurnSheet) -> TurnSheet {
    t.edition = Some("earlier".into());
    t
}

#[track_caller]
fn report(t: &TurnSheet) -> Report {
    referee::compute(t).unwrap_or_else(|e| panic!("refused: {e}"))
}

/// Specials that do not change one turn's numbers are accepted and say so (§6); identical
/// specials of the pair cancel; the edition names the specials.
#[test]
fn specials_without_effect_on_the_numbers() {
    for (special, name, effect) in [
        ("scouter", "Scouter", "does not change this turn's losses"),
        ("to blave", "To Blave", "does not change this turn's losses"),
        ("there can be only one", "There Can Be Only One", "does not change"),
        ("i already know attack", "I Already Know ◆", "B could not play a ◆ move"),
        ("liquid metal", "Liquid Metal", "give the special it copies"),
        ("drunken monkey", "Drunken Monkey", "enter the move played after any swap"),
        ("the way of the samurai", "The Way of the Samurai", "it does not change this turn's losses"),
    ] {
        let r = report(&turn(with_special("▨☰", special), plays("○☷")));
        let s = &r.specials[0];
        assert_eq!((s.by, s.name.as_str(), s.changed), ("a", name, false), "{special}");
        assert!(s.effect.contains(effect), "{special}: {:?}", s.effect);
        assert_eq!(r.final_losses.b.parts, r.b.loss.parts, "{special}");
        assert_eq!(r.b.loss.total, 4, "{special}");
    }
    let r = report(&turn(with_special("▨☰", "wax on defend"), with_special("○☷", "wax_on_defend")));
    assert!(r.specials.iter().all(|s| s.cancelled), "{r:#?}");
    let r = report(&earlier(turn(with_special("▨☰", "pressure point"), plays("○☷"))));
    assert_eq!((r.specials[0].name.as_str(), r.specials[0].place), ("Precise", 4));
}

/// §6 Decision: identical I Already Know (Premonition) played by both of the pair cancel, so
/// neither forbids a move.
#[test]
fn identical_i_already_know_of_the_pair_cancel_and_forbid_nothing() {
    for (edition, name) in [("current", "i already know grapple"), ("earlier", "premonition grapple")] {
        let mut t = turn(with_special("▨☲", name), with_special("◆☰", name));
        t.edition = Some(edition.into());
        let r = report(&t);
        assert!(r.specials.iter().all(|s| s.cancelled), "{edition}");
        assert_eq!(r.winner, Some("b"), "{edition}");
    }
}

/// One of the pair playing `play` with Liquid Metal copying `copied`.
fn copying(play: &str, copied: &str) -> SideSheet {
    SideSheet { copy_of: Some(copied.into()), ..with_special(play, "liquid metal") }
}

/// §6 Decision (Liquid Metal): a copy acts as the copied special at its place in the list, and
/// for the cancelling rule it is not identical to the original: a Liquid Metal copying Vampire
/// ▨ (earlier edition: Mimic) against an original Vampire ▨ both act, where two Vampires ▨
/// cancel; so do a copy of Pressure Point and a Pressure Point.
#[test]
fn a_liquid_metal_copy_and_its_original_both_act_in_the_calculator() {
    // A ▨☰ beats B ▨☷ (☰ beats ☷): B loses 4, A nothing; both actions are ▨.
    let r = report(&earlier(turn(copying("▨☰", "vampire grapple"), with_special("▨☷", "vampire grapple"))));
    assert!(r.specials.iter().all(|s| !s.cancelled), "{r:#?}");
    let copy = r.specials.iter().find(|s| s.by == "a").expect("A's copy is reported");
    assert_eq!(
        (copy.special, copy.copy_of, copy.name.as_str(), copy.place),
        (Special::LiquidMetal, Some(Special::Vampire(Action::Grapple)), "Mimic copying Vampire ▨", 6)
    );
    let gains: Vec<_> = r.extras.iter().map(|e| (e.fighter, e.amount)).collect();
    assert_eq!(gains, [("a", 4), ("b", 0)], "A regains B's loss; B's Vampire acts too, on A's 0");
    // The same two cards as originals cancel: nothing is regained.
    let r =
        report(&earlier(turn(with_special("▨☰", "vampire grapple"), with_special("▨☷", "vampire grapple"))));
    assert!(r.specials.iter().all(|s| s.cancelled) && r.extras.is_empty(), "{r:#?}");
    // Current edition: a copy of Pressure Point and a Pressure Point both act.
    let r = report(&turn(copying("▨☰", "pressure point"), with_special("○☷", "pressure point")));
    assert!(r.specials.iter().all(|s| !s.cancelled), "{r:#?}");
    assert_eq!((r.spreaders.a, r.spreaders.b), ("b", "a"));
    assert_eq!(r.a.copy_of, Some(Special::PressurePoint));
}

/// §6 Decision (Liquid Metal): two Liquid Metals are identical only when they copy the same
/// special (the same variant): copying Wax On ▨ twice cancels, Wax On ▨ and Wax On ◆ both act.
#[test]
fn two_liquid_metals_cancel_only_when_they_copy_the_same_special() {
    let r = report(&turn(copying("▨☰", "wax on grapple"), copying("○☷", "wax on grapple")));
    assert!(r.specials.iter().all(|s| s.cancelled), "{r:#?}");
    let effect = &r.specials[0].effect;
    assert!(effect.contains("both of the pair played Liquid Metal copying Wax On ▨"), "{effect}");
    assert!(!effect.contains('§'), "players' words: {effect}");
    let a = SideSheet { stance: Some("2▨".into()), ..copying("▨☰", "wax on attack") };
    let b = SideSheet { stance: Some("1○".into()), ..copying("○☷", "wax on grapple") };
    let r = report(&turn(a, b));
    assert!(r.specials.iter().all(|s| !s.cancelled), "{r:#?}");
    // B's copy of Wax On ▨ removes A's stance from B's loss: 1 + 4.
    assert_eq!(r.final_losses.b.total, 5, "{r:#?}");
}

/// §6 Decision (two specials at one place in the list): two Dig Two Graves of different types
/// apply at the same time, each from the losses before either; calling the other one A gives
/// the same numbers.
#[test]
fn dig_two_graves_of_different_types_do_not_depend_on_who_is_a() {
    let run = |a: [&str; 2], b: [&str; 2]| {
        let r = report(&turn(with_special(a[0], a[1]), with_special(b[0], b[1])));
        [r.final_losses.a.total, r.final_losses.b.total]
    };
    let (x, y) = (["○☷", "dig two graves grapple"], ["▨☷", "dig two graves defend"]);
    assert_eq!(run(x, y), [4, 4], "○☷ loses 4, ▨☷ loses the 4 mirrored, nothing comes back");
    assert_eq!(run(y, x), [4, 4]);
}

/// §6 Decision (which loss a special means): Dig Two Graves mirrors the §5.3 loss before
/// energy runs out, 11, not the 3 B has left.
#[test]
fn a_specials_loss_is_the_loss_before_energy_runs_out() {
    let a = SideSheet { stance: Some("2▨".into()), ..plays("▨☰") };
    let b = SideSheet {
        stance: Some("1○".into()),
        energy: Some([1, 1, 1]),
        ..with_special("○☷", "dig two graves grapple")
    };
    let r = report(&turn(a, b));
    assert_eq!((r.final_losses.a.total, r.final_losses.a.parts.mirrored), (11, 11));
    assert_eq!(r.b.energy.as_ref().map(|e| e.wiped_out), Some(true));
}

/// §6 Decision: Yojimbo (Bodyguard) may name a character that loses nothing: accepted, no
/// effect, and said to count as used.
#[test]
fn yojimbo_naming_a_character_who_loses_nothing_has_no_effect() {
    let mut t = turn(plays("▨☰"), plays("○☷"));
    t.yojimbo = Some("a".into());
    let r = report(&t);
    assert_eq!(
        (r.specials[0].special, r.specials[0].by, r.specials[0].changed),
        (Special::Yojimbo, "a_ally", false)
    );
    assert!(r.extras.is_empty());
    assert_eq!(r.final_losses.b.total, 4);
    assert!(
        r.specials[0].effect.contains("has no effect: A loses nothing this turn"),
        "{:?}",
        r.specials[0].effect
    );
    assert!(r.specials[0].effect.contains("still counts as used"));
}

/// Santa Carla after the opponent surrenders: the surrender is why nothing is regained (§5.2
/// Decision), not the stance or the move.
#[test]
fn santa_carla_after_a_surrender_says_the_surrender_is_why() {
    let a = SideSheet { stance: Some("1○".into()), ..with_special("○☷", "santa carla defend") };
    let r = report(&turn(a, plays("surrender")));
    let effect = &r.specials[0].effect;
    assert!(effect.contains("B surrendered, so nobody won the turn"), "{effect}");
    assert!(!effect.contains("only if it wins with a stance"), "{effect}");
}

/// Bad turns are refused with a typed error naming the field (as in a file, or as a flag) and
/// the rule; never a panic.
#[test]
fn bad_turns_are_refused_naming_the_field_and_the_rule() {
    let cases: Vec<(TurnSheet, &str, &[&str])> = vec![
        (turn(plays("kick"), plays("○☷")), "a.move", &["\"kick\" is not a move"]),
        (turn(plays("defend jump"), plays("○☷")), "a.move", &["Defend has no Heaven"]),
        (
            turn(
                SideSheet { stance: Some("3▨".into()), energy: Some([1, 2, 3]), ..plays("▨☰") },
                plays("○☷"),
            ),
            "a.stance",
            &["a stance is 0 to the current energy"],
        ),
        (
            turn(plays("▨☰"), SideSheet { stance: Some("lots".into()), ..plays("○☷") }),
            "b.stance",
            &["not a stance"],
        ),
        (
            turn(plays("▨☰"), SideSheet { disadvantage: vec!["◆☷".into(), "○☷".into()], ..plays("○☷") }),
            "b.move",
            &["disadvantage chain"],
        ),
        (
            turn(
                SideSheet { combo: vec!["○☵".into()], ..plays("▨☰") },
                SideSheet { combo: vec!["◆☲".into()], ..plays("○☷") },
            ),
            "a.combo",
            &["a.combo and b.combo are both given", "a chain ends when its side loses or ties"],
        ),
        (
            turn(SideSheet { follow_ups: vec!["▨☰".into()], ..plays("▨☰") }, plays("○☷")),
            "a.follow_ups",
            &["give the chain in a.combo", "a follow-up is a learned link"],
        ),
        (
            turn(with_special("▨☰", "fireball"), plays("○☷")),
            "a.special",
            &["\"fireball\" is not a special", "write a special by its name"],
        ),
        (turn(plays("▨☰"), with_special("○☷", "wax on")), "b.special", &["needs an action type"]),
        (
            turn(plays("▨☰"), with_special("○☷", "parry grapple")),
            "b.special",
            &["Parry ▨", "earlier edition", "--edition earlier"],
        ),
        (
            earlier(turn(plays("▨☰"), with_special("○☷", "wax on grapple"))),
            "b.special",
            &["Wax On ▨", "current edition", "Parry ▨"],
        ),
        (
            earlier(turn(with_special("▨☰", "to blave"), plays("○☷"))),
            "a.special",
            &["To Blave", "current edition"],
        ),
        (
            turn(with_special("▨☰", "i already know defend"), plays("○☷")),
            "b.move",
            &["I Already Know ○", "B may not play ○☷"],
        ),
        (
            turn(with_special("▨☰", "premonition ▨"), plays("▨☲")),
            "b.move",
            &["I Already Know ▨", "B may not play ▨☲"],
        ),
        (turn(with_special("▨☰", "yojimbo"), plays("○☷")), "a.special", &["ally", "--yojimbo"]),
        (
            TurnSheet { yojimbo: Some("c".into()), ..turn(plays("▨☰"), plays("○☷")) },
            "yojimbo",
            &["write a or b"],
        ),
        (
            TurnSheet { edition: Some("third".into()), ..turn(plays("▨☰"), plays("○☷")) },
            "edition",
            &["current", "earlier"],
        ),
        (
            turn(copying("▨☰", "drunken monkey"), plays("○☷")),
            "a.copy_of",
            &["Liquid Metal cannot copy Drunken Monkey", "any but Drunken Monkey and The Way of the Samurai"],
        ),
        (
            turn(plays("▨☰"), copying("○☷", "the way of the samurai")),
            "b.copy_of",
            &["Liquid Metal cannot copy The Way of the Samurai"],
        ),
        (
            earlier(turn(copying("▨☰", "last stand"), plays("○☷"))),
            "a.copy_of",
            &["Mimic cannot copy Last Stand", "any but Drunken Monkey and Last Stand"],
        ),
        (turn(copying("▨☰", "liquid metal"), plays("○☷")), "a.copy_of", &["cannot copy itself"]),
        (
            turn(SideSheet { copy_of: Some("scouter".into()), ..with_special("▨☰", "scouter") }, plays("○☷")),
            "a.copy_of",
            &["only Liquid Metal copies another special", "a.special is Scouter"],
        ),
        (
            turn(SideSheet { copy_of: Some("scouter".into()), ..plays("▨☰") }, plays("○☷")),
            "a.copy_of",
            &["only Liquid Metal copies another special", "a.special is not given"],
        ),
        (turn(copying("▨☰", "fireball"), plays("○☷")), "a.copy_of", &["\"fireball\" is not a special"]),
        (turn(copying("▨☰", "vampire grapple"), plays("○☷")), "a.copy_of", &["Vampire ▨", "earlier edition"]),
        (
            turn(SideSheet { name: Some("  ".into()), ..plays("▨☰") }, plays("○☷")),
            "a.name",
            &["cannot be empty"],
        ),
    ];
    for (t, field, phrases) in cases {
        let e = referee::compute(&t).expect_err(field);
        let text = e.to_string();
        assert!(text.starts_with(&format!("{field}: ")) || text.starts_with(field), "{text}");
        for p in phrases {
            assert!(text.contains(p), "{field}: {p:?} missing in {text}");
        }
        // As flags, the same error names the flag.
        let flags = e.message(&|f| f.flag());
        assert!(flags.starts_with(&format!("--{}", field.replace(['.', '_'], "-"))), "{flags}");
    }
}
