//! The examples a server carries, embedded at build time: every setup file of
//! `examples/<system>/` and every file they reference (Iron Triangle character sheets, No Dice
//! actor files), by their paths relative to the system's folder. Nothing is read from the
//! host's files at run time.

/// The names of the iron-triangle examples (their files' stems).
pub const IRON_TRIANGLE_EXAMPLES: &[&str] =
    &["ambush-2v3", "duel", "earlier-edition", "lethal-showdown", "minor-wager", "specials-duel"];

/// The iron-triangle files: the examples and the files they reference.
pub const IRON_TRIANGLE_FILES: &[(&str, &str)] = &[
    ("ambush-2v3.toml", include_str!("../../../../examples/iron-triangle/ambush-2v3.toml")),
    ("duel.toml", include_str!("../../../../examples/iron-triangle/duel.toml")),
    ("earlier-edition.toml", include_str!("../../../../examples/iron-triangle/earlier-edition.toml")),
    ("lethal-showdown.json", include_str!("../../../../examples/iron-triangle/lethal-showdown.json")),
    ("minor-wager.toml", include_str!("../../../../examples/iron-triangle/minor-wager.toml")),
    ("specials-duel.toml", include_str!("../../../../examples/iron-triangle/specials-duel.toml")),
    ("characters/ada.toml", include_str!("../../../../examples/iron-triangle/characters/ada.toml")),
    (
        "characters/bandit-chief.toml",
        include_str!("../../../../examples/iron-triangle/characters/bandit-chief.toml"),
    ),
    ("characters/bandit.toml", include_str!("../../../../examples/iron-triangle/characters/bandit.toml")),
    ("characters/bao.toml", include_str!("../../../../examples/iron-triangle/characters/bao.toml")),
    ("characters/ninja.toml", include_str!("../../../../examples/iron-triangle/characters/ninja.toml")),
];

/// The names of the nodice examples (their files' stems).
pub const NODICE_EXAMPLES: &[&str] = &["brawl-3", "brawl-clusters", "door", "pc-vs-bandit", "ruin"];

/// The nodice files: the examples and the files they reference.
pub const NODICE_FILES: &[(&str, &str)] = &[
    ("brawl-3.toml", include_str!("../../../../examples/nodice/brawl-3.toml")),
    ("brawl-clusters.toml", include_str!("../../../../examples/nodice/brawl-clusters.toml")),
    ("door.toml", include_str!("../../../../examples/nodice/door.toml")),
    ("pc-vs-bandit.toml", include_str!("../../../../examples/nodice/pc-vs-bandit.toml")),
    ("ruin.toml", include_str!("../../../../examples/nodice/ruin.toml")),
    ("actors/bandit.toml", include_str!("../../../../examples/nodice/actors/bandit.toml")),
    ("actors/ghost.toml", include_str!("../../../../examples/nodice/actors/ghost.toml")),
    ("actors/kara.toml", include_str!("../../../../examples/nodice/actors/kara.toml")),
    ("actors/rotten-door.toml", include_str!("../../../../examples/nodice/actors/rotten-door.toml")),
    ("actors/ruin.toml", include_str!("../../../../examples/nodice/actors/ruin.toml")),
    ("actors/swamp.toml", include_str!("../../../../examples/nodice/actors/swamp.toml")),
    ("actors/thug.toml", include_str!("../../../../examples/nodice/actors/thug.toml")),
];

/// The names of the inciting-incident examples (their files' stems).
pub const INCITING_INCIDENT_EXAMPLES: &[&str] = &["cover-up", "river-fight", "three-factions"];

/// The inciting-incident files: the examples and the files they reference.
pub const INCITING_INCIDENT_FILES: &[(&str, &str)] = &[
    ("cover-up.toml", include_str!("../../../../examples/inciting-incident/cover-up.toml")),
    ("river-fight.toml", include_str!("../../../../examples/inciting-incident/river-fight.toml")),
    ("three-factions.toml", include_str!("../../../../examples/inciting-incident/three-factions.toml")),
];
