//! Every cell of the Dominance tables (rules reference §4), written out from the wiki's
//! tables independently of the closed form the engine uses.

use nodice::{Aspect, Attribute, Dominance, attribute_dominance, trine_dominance};

fn a(s: &str) -> Attribute {
    s.parse().unwrap()
}

/// "X beats Y" facts: the three intra-Aspect loops and the 27 cross-Aspect cells (ties listed
/// separately), as printed in §4.
const BEATS: &[(&str, &str)] = &[
    // Intra-Aspect loops.
    ("REA", "KNO"),
    ("KNO", "QUI"),
    ("QUI", "REA"),
    ("STR", "FIT"),
    ("FIT", "AGI"),
    ("AGI", "STR"),
    ("WIL", "PRE"),
    ("PRE", "INT"),
    ("INT", "WIL"),
    // Mind vs Body.
    ("AGI", "REA"),
    ("REA", "FIT"),
    ("QUI", "STR"),
    ("FIT", "QUI"),
    ("STR", "KNO"),
    ("KNO", "AGI"),
    // Mind vs Spirit.
    ("REA", "PRE"),
    ("INT", "REA"),
    ("QUI", "WIL"),
    ("PRE", "QUI"),
    ("WIL", "KNO"),
    ("KNO", "INT"),
    // Body vs Spirit.
    ("STR", "PRE"),
    ("INT", "STR"),
    ("AGI", "WIL"),
    ("PRE", "AGI"),
    ("WIL", "FIT"),
    ("FIT", "INT"),
];

const TIES: &[(&str, &str)] = &[
    ("REA", "STR"),
    ("QUI", "AGI"),
    ("KNO", "FIT"),
    ("REA", "WIL"),
    ("QUI", "INT"),
    ("KNO", "PRE"),
    ("STR", "WIL"),
    ("AGI", "INT"),
    ("FIT", "PRE"),
];

fn expected(x: Attribute, y: Attribute) -> Dominance {
    if x == y {
        return Dominance::Tie;
    }
    for &(w, l) in BEATS {
        if a(w) == x && a(l) == y {
            return Dominance::Win;
        }
        if a(w) == y && a(l) == x {
            return Dominance::Loss;
        }
    }
    for &(p, q) in TIES {
        if (a(p), a(q)) == (x, y) || (a(p), a(q)) == (y, x) {
            return Dominance::Tie;
        }
    }
    panic!("the tables have no cell for {x} vs {y}");
}

#[test]
fn attribute_dominance_every_one_of_the_81_cells() {
    let mut cells = 0;
    for x in Attribute::ALL {
        for y in Attribute::ALL {
            assert_eq!(attribute_dominance(x, y), expected(x, y), "{x} vs {y}");
            cells += 1;
        }
    }
    assert_eq!(cells, 81);
    // The wiki lists 9 + 27 facts; with the 9 self-ties and both directions that is all 81.
    assert_eq!(BEATS.len() * 2 + TIES.len() * 2 + 9, 81);
}

#[test]
fn attribute_dominance_mnemonics() {
    // "REA > FIT — work smarter, not harder"; "KNO < STR — shut up, nerd".
    assert_eq!(attribute_dominance(a("REA"), a("FIT")), Dominance::Win);
    assert_eq!(attribute_dominance(a("KNO"), a("STR")), Dominance::Loss);
}

#[test]
fn trine_dominance_mind_beats_body_beats_spirit_beats_mind() {
    use Aspect::*;
    use Dominance::*;
    let cells = [
        (Mind, Mind, Tie),
        (Mind, Body, Win),
        (Mind, Spirit, Loss),
        (Body, Mind, Loss),
        (Body, Body, Tie),
        (Body, Spirit, Win),
        (Spirit, Mind, Win),
        (Spirit, Body, Loss),
        (Spirit, Spirit, Tie),
    ];
    for (x, y, d) in cells {
        assert_eq!(trine_dominance(x, y), d, "{x} vs {y}");
    }
}

#[test]
fn trine_and_attribute_dominance_are_independent() {
    // §4: Mind/REA vs Body/STR is a TD win for Mind and an AD tie.
    assert_eq!(trine_dominance(Aspect::Mind, Aspect::Body), Dominance::Win);
    assert_eq!(attribute_dominance(a("REA"), a("STR")), Dominance::Tie);
}

#[test]
fn attribute_names_parse_in_every_form() {
    for (text, attr) in
        [("str", "STR"), ("Strength", "STR"), ("S", "STR"), ("i", "INT"), ("Quickness", "QUI")]
    {
        assert_eq!(a(text), a(attr));
    }
    assert!("strong".parse::<Attribute>().is_err());
    assert_eq!("spirit".parse::<Aspect>(), Ok(Aspect::Spirit));
    assert!("soul".parse::<Aspect>().is_err());
}
