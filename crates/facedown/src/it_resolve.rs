//! `facedown iron-triangle resolve`: a referee calculator for one turn of Iron Triangle played
//! with real cards.
//!
//! Given both characters' stance, move, disadvantage chain and combo state, it prints who wins,
//! every component of each loss, the part that must come from a given type, and the
//! disadvantage and combo chains the next turn starts with. Every rule comes from the
//! `iron-triangle` crate: [`turn::resolve`] decides the turn, [`effects::settle`] applies the
//! specials revealed in it (§6), [`DisadvantageChain`] and [`ComboChain`] carry it into the
//! next. This module only reads input and writes output.
//!
//! The input and output formats are described in `docs/iron-triangle-resolve.md`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, anyhow, bail};
use iron_triangle::chain::{self, ComboCard, ComboChain, DisadvantageChain};
use iron_triangle::effects::{self, ExtraKind, Settlement};
use iron_triangle::special::{Edition, Special};
use iron_triangle::turn::{self, Contender, Decided, Loss, Outcome, Play, TurnResult};
use iron_triangle::windows::SpecialCard;
use iron_triangle::{Energy, FighterId, Move, MoveSet, RuleError, Stance};
use serde::{Deserialize, Serialize};
use table::SideId;

/// Arguments of `facedown iron-triangle resolve`: both characters of one turn, either as
/// `--a-*`/`--b-*` flags or as a file given with `--input`.
#[derive(clap::Args, Debug, Default)]
#[command(after_help = "Moves are written as symbols (▨☰) or words (\"grapple heaven\", \"attack low\"); \
                  stances as \"2▨\", \"2 grapple\" or 0; lists are comma-separated, oldest first.\n\
                  Specials (§6) by name in either edition or by key: \"pressure point\", \"wax on grapple\", \"Wax On ▨\".\n\
                  See docs/iron-triangle-resolve.md for the file format and the --json output.")]
pub struct Args {
    /// Read both characters from a TOML or JSON file (chosen by extension; `-` reads JSON
    /// from standard input). Cannot be combined with the --a-*/--b-* flags.
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,

    /// Print the result as JSON instead of text.
    #[arg(long)]
    json: bool,

    /// The edition of the specials: current (default) or earlier (§11: Parry and Vampire
    /// instead of Wax On and Santa Carla, no To Blave).
    #[arg(long, value_name = "current|earlier")]
    edition: Option<String>,

    /// An ally of this side ("a" or "b") plays Yojimbo naming it: the ally takes its loss (§6).
    #[arg(long, value_name = "a|b")]
    yojimbo: Option<String>,

    /// The two characters, as flags (boxed: they are many and usually empty).
    #[command(flatten)]
    flags: Box<SideFlags>,
}

/// The `--a-*` and `--b-*` flags of [`Args`].
#[derive(clap::Args, Debug, Default)]
struct SideFlags {
    /// Name of character A (default "A").
    #[arg(long, value_name = "NAME")]
    a_name: Option<String>,
    /// A's current energy as ○,▨,◆ (e.g. 3,4,5); optional, enables the stance check and the
    /// wipe-out check.
    #[arg(long, value_name = "D,G,A")]
    a_energy: Option<String>,
    /// A's revealed stance, e.g. "2▨", "2 grapple" or 0 (default: no stance).
    #[arg(long, value_name = "STANCE")]
    a_stance: Option<String>,
    /// A's revealed move, e.g. "▨☰" or "grapple heaven", or "surrender".
    #[arg(long, value_name = "MOVE")]
    a_move: Option<String>,
    /// A's disadvantage chain before this turn, oldest first, comma-separated.
    #[arg(long, value_name = "MOVES")]
    a_disadvantage: Option<String>,
    /// The combo chain A is continuing against B, oldest first, comma-separated.
    #[arg(long, value_name = "MOVES")]
    a_combo: Option<String>,
    /// A's learned follow-ups of the combo chain's newest move, comma-separated.
    #[arg(long, value_name = "MOVES")]
    a_follow_ups: Option<String>,
    /// The special A revealed this turn, e.g. "pressure point" or "wax on grapple" (§6).
    #[arg(long, value_name = "SPECIAL")]
    a_special: Option<String>,

    /// Name of character B (default "B").
    #[arg(long, value_name = "NAME")]
    b_name: Option<String>,
    /// B's current energy as ○,▨,◆ (e.g. 3,4,5); optional.
    #[arg(long, value_name = "D,G,A")]
    b_energy: Option<String>,
    /// B's revealed stance, e.g. "1○", "1 defend" or 0 (default: no stance).
    #[arg(long, value_name = "STANCE")]
    b_stance: Option<String>,
    /// B's revealed move, or "surrender".
    #[arg(long, value_name = "MOVE")]
    b_move: Option<String>,
    /// B's disadvantage chain before this turn, oldest first, comma-separated.
    #[arg(long, value_name = "MOVES")]
    b_disadvantage: Option<String>,
    /// The combo chain B is continuing against A, oldest first, comma-separated.
    #[arg(long, value_name = "MOVES")]
    b_combo: Option<String>,
    /// B's learned follow-ups of the combo chain's newest move, comma-separated.
    #[arg(long, value_name = "MOVES")]
    b_follow_ups: Option<String>,
    /// The special B revealed this turn (§6).
    #[arg(long, value_name = "SPECIAL")]
    b_special: Option<String>,
}

/// Runs `facedown iron-triangle resolve`. Bad input is an `Err` (exit code 2 in `main`).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut turn = read_turn(&args)?;
    if !args.json {
        // Names from a file or a flag reach the terminal with control characters escaped.
        for f in &mut turn.fighters {
            f.name = crate::input::escape(&f.name).into_owned();
        }
    }
    let report = Report::new(&turn)?;
    if args.json {
        let text = serde_json::to_string_pretty(&report).context("writing the JSON output")?;
        println!("{text}");
    } else {
        print!("{}", report.text());
    }
    Ok(ExitCode::SUCCESS)
}

// ---------------------------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------------------------

/// The input file: both characters of the turn.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InputFile {
    /// Free text, ignored (JSON has no comments).
    #[serde(default, rename = "comment")]
    _comment: Option<String>,
    /// The edition of the specials: "current" (default) or "earlier".
    #[serde(default)]
    edition: Option<String>,
    /// "a" or "b": an ally of that side plays Yojimbo naming it.
    #[serde(default)]
    yojimbo: Option<String>,
    /// Character A.
    a: SideInput,
    /// Character B.
    b: SideInput,
}

/// One character as written in a file or on the command line; parsed into [`Fighter`] with
/// error messages that name the field.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SideInput {
    name: Option<String>,
    /// Current energy ○, ▨, ◆.
    #[serde(default, deserialize_with = "energy_list")]
    energy: Option<[u8; 3]>,
    stance: Option<String>,
    #[serde(rename = "move")]
    play: String,
    #[serde(default)]
    disadvantage: Vec<String>,
    #[serde(default)]
    combo: Vec<String>,
    #[serde(default)]
    follow_ups: Vec<String>,
    /// The special revealed this turn.
    special: Option<String>,
}

/// Which of the pair: A (position 0) or B (position 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Who {
    A,
    B,
}

impl Who {
    fn index(self) -> usize {
        match self {
            Who::A => 0,
            Who::B => 1,
        }
    }

    fn key(self) -> &'static str {
        match self {
            Who::A => "a",
            Who::B => "b",
        }
    }

    fn from_index(i: usize) -> Who {
        if i == 0 { Who::A } else { Who::B }
    }
}

/// Where the input came from, to name fields the way the user wrote them.
#[derive(Debug, Clone, Copy)]
enum Source {
    Flags,
    File,
}

impl Source {
    fn field(self, who: Who, field: &str) -> String {
        match self {
            Source::Flags => format!("--{}-{}", who.key(), field.replace('_', "-")),
            Source::File => format!("{}.{}", who.key(), field),
        }
    }

    /// A field of the whole turn: `--yojimbo` or `yojimbo`.
    fn top(self, field: &str) -> String {
        match self {
            Source::Flags => format!("--{field}"),
            Source::File => field.to_owned(),
        }
    }
}

/// One character of the turn, parsed.
#[derive(Debug, Clone)]
struct Fighter {
    name: String,
    energy: Option<Energy>,
    stance: Stance,
    play: Play,
    disadvantage: DisadvantageChain,
    combo: Vec<Move>,
    follow_ups: MoveSet,
    /// The special revealed this turn, if any.
    special: Option<Special>,
}

/// The whole turn, parsed and checked.
#[derive(Debug, Clone)]
struct Turn {
    fighters: [Fighter; 2],
    /// The combo chain one of the pair is continuing against the other.
    combo: Option<ComboChain>,
    /// The side whose loss an ally takes with Yojimbo.
    yojimbo: Option<Who>,
    edition: Edition,
}

fn read_turn(args: &Args) -> anyhow::Result<Turn> {
    let flag_edition = args.edition.as_deref().map(|e| parse_edition(e, "--edition")).transpose()?;
    let (a, b, source, edition, yojimbo) = match &args.input {
        Some(path) => {
            if let Some(flag) = first_side_flag(args) {
                bail!("{flag} cannot be combined with --input: give the turn either as a file or as flags");
            }
            let file = read_file(path)?;
            let file_edition = file.edition.as_deref().map(|e| parse_edition(e, "edition")).transpose()?;
            let edition = match (flag_edition, file_edition) {
                (Some(f), Some(e)) if f != e => bail!(
                    "--edition {} contradicts edition = {:?} in {}: give the edition once",
                    edition_name(f),
                    edition_name(e),
                    path.display()
                ),
                (f, e) => f.or(e).unwrap_or_default(),
            };
            (file.a, file.b, Source::File, edition, file.yojimbo)
        }
        None => (
            side_from_flags(
                Who::A,
                [
                    &args.flags.a_name,
                    &args.flags.a_energy,
                    &args.flags.a_stance,
                    &args.flags.a_move,
                    &args.flags.a_disadvantage,
                    &args.flags.a_combo,
                    &args.flags.a_follow_ups,
                    &args.flags.a_special,
                ],
            )?,
            side_from_flags(
                Who::B,
                [
                    &args.flags.b_name,
                    &args.flags.b_energy,
                    &args.flags.b_stance,
                    &args.flags.b_move,
                    &args.flags.b_disadvantage,
                    &args.flags.b_combo,
                    &args.flags.b_follow_ups,
                    &args.flags.b_special,
                ],
            )?,
            Source::Flags,
            flag_edition.unwrap_or_default(),
            args.yojimbo.clone(),
        ),
    };
    let fighters = [fighter(a, Who::A, source, edition)?, fighter(b, Who::B, source, edition)?];
    let combo = combo_chain(&fighters, source)?;
    forbidden_moves(&fighters, source, edition)?;
    let yojimbo = match yojimbo.as_deref().map(str::trim) {
        None => None,
        Some(w) if w.eq_ignore_ascii_case("a") => Some(Who::A),
        Some(w) if w.eq_ignore_ascii_case("b") => Some(Who::B),
        Some(w) => bail!(
            "{}: {w:?} is not a side: write a or b, the side whose loss an ally takes with Yojimbo (§6)",
            source.top("yojimbo")
        ),
    };
    Ok(Turn { fighters, combo, yojimbo, edition })
}

fn parse_edition(text: &str, field: &str) -> anyhow::Result<Edition> {
    match text.trim().to_ascii_lowercase().as_str() {
        "current" => Ok(Edition::Current),
        "earlier" => Ok(Edition::Earlier),
        _ => bail!(
            "{field}: {text:?} is not an edition: write current (the default) or earlier (§11, Parry and Vampire)"
        ),
    }
}

fn edition_name(e: Edition) -> &'static str {
    match e {
        Edition::Current => "current",
        Edition::Earlier => "earlier",
    }
}

/// I Already Know (§6): the opponent may not choose a move of its action this turn, unless
/// both of the pair played the same one (they cancel). The engine says which action each of
/// the pair is forbidden.
fn forbidden_moves(fighters: &[Fighter; 2], src: Source, edition: Edition) -> anyhow::Result<()> {
    let cards = [fighters[0].special.map(SpecialCard::new), fighters[1].special.map(SpecialCard::new)];
    let forbidden = effects::forbidden_actions(cards);
    for (i, f) in fighters.iter().enumerate() {
        let o = &fighters[1 - i];
        if let Some(sp) = f.special
            && let Some(action) = forbidden[1 - i]
            && let Play::Move(m) = o.play
            && m.action() == action
        {
            let e = RuleError::MoveForbidden { fighter: o.name.clone(), action };
            bail!(
                "{}: {e}: {} played {}, so {} may not play {m}",
                src.field(Who::from_index(1 - i), "move"),
                f.name,
                sp.name(edition),
                o.name
            );
        }
    }
    Ok(())
}

fn first_side_flag(args: &Args) -> Option<&'static str> {
    [
        ("--a-name", args.flags.a_name.is_some()),
        ("--a-energy", args.flags.a_energy.is_some()),
        ("--a-stance", args.flags.a_stance.is_some()),
        ("--a-move", args.flags.a_move.is_some()),
        ("--a-disadvantage", args.flags.a_disadvantage.is_some()),
        ("--a-combo", args.flags.a_combo.is_some()),
        ("--a-follow-ups", args.flags.a_follow_ups.is_some()),
        ("--a-special", args.flags.a_special.is_some()),
        ("--b-name", args.flags.b_name.is_some()),
        ("--b-energy", args.flags.b_energy.is_some()),
        ("--b-stance", args.flags.b_stance.is_some()),
        ("--b-move", args.flags.b_move.is_some()),
        ("--b-disadvantage", args.flags.b_disadvantage.is_some()),
        ("--b-combo", args.flags.b_combo.is_some()),
        ("--b-follow-ups", args.flags.b_follow_ups.is_some()),
        ("--b-special", args.flags.b_special.is_some()),
        ("--yojimbo", args.yojimbo.is_some()),
    ]
    .into_iter()
    .find(|(_, given)| *given)
    .map(|(flag, _)| flag)
}

fn read_file(path: &Path) -> anyhow::Result<InputFile> {
    if path.as_os_str() == "-" {
        let text = crate::input::read_stdin_bounded(crate::input::TEXT_LIMIT)
            .context("reading the input from standard input")?;
        return from_json(&text, "standard input");
    }
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let shown = path.display();
    match ext.as_deref() {
        Some("toml") => {
            let text = crate::input::read_bounded(path, crate::input::TEXT_LIMIT)
                .with_context(|| format!("reading {shown}"))?;
            toml::from_str(&text).map_err(|e| anyhow!("{shown} is not a valid resolve input (TOML): {e}"))
        }
        Some("json") => {
            let text = crate::input::read_bounded(path, crate::input::TEXT_LIMIT)
                .with_context(|| format!("reading {shown}"))?;
            from_json(&text, &shown.to_string())
        }
        _ => bail!(
            "cannot tell the format of {shown}: name it *.toml or *.json, or use - for JSON on standard input"
        ),
    }
}

/// Reads JSON input; a failure quotes the offending line, so that it names the field even
/// where serde's message does not.
fn from_json(text: &str, shown: &str) -> anyhow::Result<InputFile> {
    serde_json::from_str(text).map_err(|e| {
        let line = text
            .lines()
            .nth(e.line().saturating_sub(1))
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| format!("\n  {} | {l}", e.line()))
            .unwrap_or_default();
        anyhow!("{shown} is not a valid resolve input (JSON): {e}{line}")
    })
}

/// Deserializes `energy` as three numbers, with a message that names the field.
fn energy_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<[u8; 3]>, D::Error> {
    use serde::de::Error as _;
    let list = Vec::<u8>::deserialize(d).map_err(|e| {
        D::Error::custom(format!(
            "energy must be three numbers 0 to 255, the current ○, ▨, ◆ energy, e.g. [3, 4, 5]: {e}"
        ))
    })?;
    <[u8; 3]>::try_from(list.as_slice()).map(Some).map_err(|_| {
        D::Error::custom(format!(
            "energy must be three numbers, the current ○, ▨, ◆ energy, e.g. [3, 4, 5], not {}",
            list.len()
        ))
    })
}

/// The flags of one side, in the order name, energy, stance, move, disadvantage, combo,
/// follow-ups, special.
fn side_from_flags(who: Who, flags: [&Option<String>; 8]) -> anyhow::Result<SideInput> {
    let [name, energy, stance, play, disadvantage, combo, follow_ups, special] = flags;
    let src = Source::Flags;
    let play = play.clone().ok_or_else(|| {
        anyhow!(
            "{} is missing: give both moves (or \"surrender\"), or use --input FILE",
            src.field(who, "move")
        )
    })?;
    let energy = match energy {
        None => None,
        Some(text) => Some(parse_energy_flag(text).map_err(|e| {
            anyhow!("{}: {e} (write the current ○,▨,◆ energy, e.g. 3,4,5)", src.field(who, "energy"))
        })?),
    };
    Ok(SideInput {
        name: name.clone(),
        energy,
        stance: stance.clone(),
        play,
        disadvantage: split_list(disadvantage),
        combo: split_list(combo),
        follow_ups: split_list(follow_ups),
        special: special.clone(),
    })
}

fn split_list(text: &Option<String>) -> Vec<String> {
    text.as_deref()
        .map(|t| t.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect())
        .unwrap_or_default()
}

fn parse_energy_flag(text: &str) -> Result<[u8; 3], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [d, g, a] = parts.as_slice() else {
        return Err(format!("{text:?} is not three numbers"));
    };
    let num = |s: &str| s.parse::<u8>().map_err(|_| format!("{s:?} is not an amount of energy (0 to 255)"));
    Ok([num(d)?, num(g)?, num(a)?])
}

fn parse_moves(list: &[String], field: &str) -> anyhow::Result<Vec<Move>> {
    list.iter().map(|s| s.parse::<Move>().map_err(|e| anyhow!("{field}: {e}"))).collect()
}

fn fighter(input: SideInput, who: Who, src: Source, edition: Edition) -> anyhow::Result<Fighter> {
    let field = |f: &str| src.field(who, f);
    let name = match input.name {
        Some(n) if n.trim().is_empty() => bail!("{}: a name cannot be empty", field("name")),
        Some(n) => n.trim().to_owned(),
        None => match who {
            Who::A => "A".to_owned(),
            Who::B => "B".to_owned(),
        },
    };
    let stance: Stance = match &input.stance {
        None => Stance::NONE,
        Some(s) => s.parse().map_err(|e: String| anyhow!("{}: {e}", field("stance")))?,
    };
    let play: Play = input.play.parse().map_err(|e| anyhow!("{}: {e} (or \"surrender\")", field("move")))?;
    let energy = input.energy.map(|[d, g, a]| Energy::new(d, g, a));
    if let Some(energy) = energy {
        let current = energy.get(stance.action);
        if stance.amount > current {
            let e = RuleError::StanceAboveEnergy {
                fighter: name.clone(),
                action: stance.action,
                amount: stance.amount,
                current,
            };
            bail!("{}: {e}", field("stance"));
        }
    }
    let disadvantage =
        DisadvantageChain::from_cards(parse_moves(&input.disadvantage, &field("disadvantage"))?);
    if let Play::Move(m) = play
        && disadvantage.set().contains(m)
    {
        let e = RuleError::MoveUnavailable { fighter: name.clone(), card: m, chain: "disadvantage" };
        bail!("{}: {e}", field("move"));
    }
    let combo = parse_moves(&input.combo, &field("combo"))?;
    let follow_ups: MoveSet = parse_moves(&input.follow_ups, &field("follow_ups"))?.into_iter().collect();
    if combo.is_empty() && !follow_ups.is_empty() {
        bail!(
            "{}: follow-ups only matter when {name} continues a combo chain; give the chain in {} (oldest first) (§5.5)",
            field("follow_ups"),
            field("combo")
        );
    }
    let special = match input.special.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(text) => Some(parse_special(text, &field("special"), edition)?),
    };
    Ok(Fighter { name, energy, stance, play, disadvantage, combo, follow_ups, special })
}

/// Reads a special of `edition` played by one of the pair.
fn parse_special(text: &str, field: &str, edition: Edition) -> anyhow::Result<Special> {
    let sp: Special = text.parse().map_err(|e| {
        anyhow!(
            "{field}: {e} (§6: write a special by its name in either edition or its key, e.g. \"pressure point\", \"wax on grapple\", \"santa_carla_attack\")"
        )
    })?;
    if !sp.in_edition(edition) {
        let (other, hint) = match edition {
            Edition::Current => {
                ("earlier", "add --edition earlier (or edition = \"earlier\" in the input file)")
            }
            Edition::Earlier => ("current", "leave out the earlier edition"),
        };
        let instead = match sp {
            Special::Parry(a) => {
                format!("; the current edition has {} in its place", Special::WaxOn(a).name(Edition::Current))
            }
            Special::Vampire(a) => format!(
                "; the current edition has {} in its place",
                Special::SantaCarla(a).name(Edition::Current)
            ),
            Special::WaxOn(a) => {
                format!("; the earlier edition has {} in its place", Special::Parry(a).name(Edition::Earlier))
            }
            Special::SantaCarla(a) => format!(
                "; the earlier edition has {} in its place",
                Special::Vampire(a).name(Edition::Earlier)
            ),
            _ => String::new(),
        };
        bail!(
            "{field}: {} is a special of the {other} edition only, not of the {} edition (§6, §11){instead}: {hint}",
            sp.name(Edition::Current),
            edition_name(edition)
        );
    }
    if sp == Special::Yojimbo {
        bail!(
            "{field}: {} is played by an ally of the pair, before resolving, naming the one of the pair whose loss it takes (§6): use --yojimbo a|b (or yojimbo = \"a\" in the input file)",
            sp.name(edition)
        );
    }
    Ok(sp)
}

/// The combo chain of the turn, from whichever of the pair is continuing one.
fn combo_chain(fighters: &[Fighter; 2], src: Source) -> anyhow::Result<Option<ComboChain>> {
    match (fighters[0].combo.is_empty(), fighters[1].combo.is_empty()) {
        (true, true) => Ok(None),
        (false, false) => bail!(
            "{} and {} are both given: only one side can be continuing a combo chain, since a chain ends when its side loses or ties a turn (§5.5)",
            src.field(Who::A, "combo"),
            src.field(Who::B, "combo")
        ),
        (a_empty, _) => {
            let who = if a_empty { Who::B } else { Who::A };
            let i = who.index();
            Ok(Some(ComboChain {
                side: SideId(i as u8),
                against: FighterId(1 - i as u8),
                cards: fighters[i]
                    .combo
                    .iter()
                    .map(|&card| ComboCard { by: FighterId(i as u8), card })
                    .collect(),
            }))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Resolution
// ---------------------------------------------------------------------------------------------

/// The turn as the engine sees it: each of the pair as a [`Contender`].
fn contenders(turn: &Turn) -> [Contender; 2] {
    let contender = |i: usize| {
        let f = &turn.fighters[i];
        let combo_len = match (&turn.combo, f.play) {
            (Some(chain), Play::Move(m)) if !chain.is_empty() => {
                chain.bonus_for(SideId(i as u8), FighterId(1 - i as u8), f.follow_ups, m)
            }
            _ => 0,
        };
        Contender {
            stance: f.stance,
            play: f.play,
            disadvantage_newest: f.disadvantage.newest(),
            disadvantage_len: f.disadvantage.len(),
            combo_len,
        }
    };
    [contender(0), contender(1)]
}

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

/// The `--json` output.
#[derive(Debug, Serialize)]
struct Report {
    /// Character A.
    a: FighterReport,
    /// Character B.
    b: FighterReport,
    /// "win", "tie" or "surrender".
    outcome: &'static str,
    /// "a", "b", or null on a tie or when both surrender. A lone surrender makes the other
    /// the winner (for passing the next turn).
    winner: Option<&'static str>,
    /// The winner-order step that decided the turn.
    decided_by: Decided,
    /// One line saying who won and why.
    summary: String,
    /// Whether the winner's move continued the combo chain.
    combo_continued: bool,
    /// The chains the next turn starts with.
    next: NextReport,
    /// "current" or "earlier": the edition the specials' names follow.
    edition: &'static str,
    /// The specials revealed this turn, in list order (the order they take effect, §6).
    specials: Vec<SpecialReport>,
    /// The pair's losses after the specials (without specials: the same as `a.loss`, `b.loss`).
    final_losses: Pair<LossReport>,
    /// Who spreads the part of each final loss that does not come from its own stance: the
    /// character itself, or the opponent's Pressure Point.
    spreaders: Pair<&'static str>,
    /// Losses taken over (Yojimbo) and gains (Santa Carla, Vampire).
    extras: Vec<ExtraReport>,
}

/// One value for each of the pair.
#[derive(Debug, Clone, Serialize)]
struct Pair<T> {
    a: T,
    b: T,
}

/// A special revealed this turn.
#[derive(Debug, Serialize)]
struct SpecialReport {
    /// Who played it: "a", "b", or "a_ally"/"b_ally" (Yojimbo by an ally of that side).
    by: &'static str,
    /// The special's key, e.g. "wax_on_grapple".
    special: Special,
    /// Its name in the edition, e.g. "Wax On ▨".
    name: String,
    /// Its place in the list (1–12); later places prevail.
    place: u8,
    /// Whether an identical special of the other of the pair cancelled it (§6).
    cancelled: bool,
    /// Whether it changed a loss, who spreads one, or added a loss or gain.
    changed: bool,
    /// What it did, in words.
    effect: String,
}

/// A loss taken over or a gain.
#[derive(Debug, Serialize)]
struct ExtraReport {
    /// Whose energy it changes: "a", "b", or "a_ally"/"b_ally".
    fighter: &'static str,
    /// The name printed for it.
    name: String,
    /// "loss" (spread by its bearer) or "gain" (spread by its player, never above maximum).
    kind: ExtraKind,
    amount: u32,
    /// The special it comes from.
    special: Special,
}

/// One character in the `--json` output.
#[derive(Debug, Serialize)]
struct FighterReport {
    name: String,
    stance: Stance,
    /// Whether the stance counts (its type equals the move's action and the amount is > 0).
    stance_counts: bool,
    /// The move, or "surrender".
    #[serde(rename = "move")]
    play: Play,
    disadvantaged: bool,
    /// The combo bonus this move earns if it wins (the chain's length, when it is a legal
    /// follow-up).
    combo_bonus: u8,
    surrendered: bool,
    loss: LossReport,
    /// The special revealed this turn, if any (its key).
    special: Option<Special>,
    /// Present only when the energy was given; computed from the final loss (after specials).
    energy: Option<EnergyReport>,
}

/// A loss in the `--json` output: the engine's components plus the totals.
#[derive(Debug, Serialize)]
struct LossReport {
    #[serde(flatten)]
    parts: Loss,
    total: u32,
    /// Everything but `own_stance`, spread over the three types by the loser's controller.
    to_distribute: u32,
}

/// The energy consequences of a loss, when the energy was given.
#[derive(Debug, Serialize)]
struct EnergyReport {
    before: Energy,
    /// After the own-stance part was taken from the stance's type.
    after_stance_part: Energy,
    /// The total left after the own-stance part.
    left_after_stance_part: u32,
    /// The total left once the rest is spread (never below zero).
    left_after_loss: u32,
    /// Whether the loss takes all three types to zero (the character is out, §5.3).
    wiped_out: bool,
}

/// The chains after the turn.
#[derive(Debug, Serialize)]
struct NextReport {
    disadvantage: NextDisadvantage,
    combo: Option<NextCombo>,
}

#[derive(Debug, Serialize)]
struct NextDisadvantage {
    a: Vec<Move>,
    b: Vec<Move>,
}

#[derive(Debug, Serialize)]
struct NextCombo {
    /// "a" or "b": whose side builds the chain.
    side: &'static str,
    /// "a" or "b": the opponent it is built against.
    against: &'static str,
    /// The winning moves, oldest first.
    cards: Vec<Move>,
}

/// The specials of the turn, in list order, and what each did.
struct Specials {
    reports: Vec<SpecialReport>,
    settlement: Settlement,
    /// The special each extra of the settlement comes from.
    extra_sources: Vec<Special>,
}

/// The name of a position in the engine's terms: 0 = A, 1 = B, 2 = the Yojimbo ally.
fn by_key(f: FighterId, yojimbo: Option<Who>) -> &'static str {
    match (f.0, yojimbo) {
        (0, _) => "a",
        (1, _) => "b",
        (_, Some(Who::B)) => "b_ally",
        _ => "a_ally",
    }
}

/// Applies the turn's specials with [`effects::settle`], one more at a time in list order, to
/// say what each changed.
fn apply_specials(turn: &Turn, pair: &[Contender; 2], result: &TurnResult) -> anyhow::Result<Specials> {
    let ids = [FighterId(0), FighterId(1)];
    const ALLY: FighterId = FighterId(2);
    let stances = [pair[0].stance, pair[1].stance];
    let plays = [pair[0].play, pair[1].play];
    let settle = |effects: &[(FighterId, SpecialCard)]| effects::settle(ids, stances, plays, result, effects);
    let specials = [turn.fighters[0].special, turn.fighters[1].special];
    // Identical specials played by the two of the pair cancel each other (§6): the engine says
    // which cards are identical.
    let cancelled = match specials {
        [Some(a), Some(b)] => SpecialCard::new(a).cancels(SpecialCard::new(b)),
        _ => false,
    };
    let mut cards: Vec<(FighterId, SpecialCard)> = Vec::new();
    for i in 0..2 {
        if let Some(sp) = specials[i] {
            cards.push((ids[i], SpecialCard::new(sp)));
        }
    }
    if let Some(w) = turn.yojimbo {
        let mut card = SpecialCard::new(Special::Yojimbo);
        card.target = Some(ids[w.index()]);
        cards.push((ALLY, card));
    }
    // The engine applies them in list order; so does this description.
    cards.sort_by_key(|(_, c)| c.effective().rank());
    let names = |f: FighterId| -> String {
        match f.0 {
            0 | 1 => turn.fighters[usize::from(f.0)].name.clone(),
            _ => ally_name(turn),
        }
    };
    let mut applied: Vec<(FighterId, SpecialCard)> = Vec::new();
    let mut before = settle(&applied);
    let mut reports = Vec::new();
    let mut extra_sources = Vec::new();
    for (by, card) in cards {
        let sp = card.effective();
        let is_cancelled = cancelled && by != ALLY;
        if !is_cancelled {
            applied.push((by, card));
        }
        let after = settle(&applied);
        let changed = after != before;
        let new_extras = &after.extras[before.extras.len().min(after.extras.len())..];
        extra_sources.extend(new_extras.iter().map(|_| sp));
        let effect = if is_cancelled {
            format!(
                "cancelled: both of the pair played {}, and identical specials cancel each other (§6)",
                sp.name(turn.edition)
            )
        } else {
            describe(
                turn,
                usize::from(by.0),
                sp,
                &before,
                &after,
                new_extras.first().map(|e| e.amount),
                &names,
            )
        };
        reports.push(SpecialReport {
            by: by_key(by, turn.yojimbo),
            special: sp,
            name: sp.name(turn.edition),
            place: sp.rank(),
            cancelled: is_cancelled,
            changed,
            effect,
        });
        before = after;
    }
    Ok(Specials { reports, settlement: before, extra_sources })
}

fn ally_name(turn: &Turn) -> String {
    let w = turn.yojimbo.unwrap_or(Who::A);
    format!("{}'s ally", turn.fighters[w.index()].name)
}

/// What one special did, comparing the settlement before it and after it.
fn describe(
    turn: &Turn,
    p: usize,
    sp: Special,
    before: &Settlement,
    after: &Settlement,
    extra: Option<u32>,
    names: &dyn Fn(FighterId) -> String,
) -> String {
    if p > 1 {
        // Yojimbo from an ally.
        let w = turn.yojimbo.unwrap_or(Who::A).index();
        let name = &turn.fighters[w].name;
        let amount = extra.unwrap_or(0);
        if amount == 0 {
            // §6 Decision: naming a character that loses nothing is legal, has no effect, and
            // the special still counts as used.
            return format!(
                "has no effect: {name} loses nothing this turn (after the other specials), so there is no loss to take; {} still counts as used (§6)",
                sp.name(turn.edition)
            );
        }
        let pressure = if before.spreaders[w].is_some() {
            format!(
                "; {}'s Pressure Point no longer applies to it",
                names(before.spreaders[w].unwrap_or(FighterId(0)))
            )
        } else {
            String::new()
        };
        return format!(
            "{} takes {name}'s whole loss, {amount} (its stance part included), and spreads it itself; {name} loses nothing{pressure}",
            names(FighterId(2))
        );
    }
    let o = 1 - p;
    let (me, them) = (&turn.fighters[p], &turn.fighters[o]);
    let played = |f: &Fighter| match f.play {
        Play::Move(m) => format!("{} played {m}", f.name),
        Play::Surrender => format!("{} surrendered", f.name),
    };
    let loss_diff = |i: usize| {
        let d = i64::from(after.losses[i].total()) - i64::from(before.losses[i].total());
        if d < 0 { format!("−{}", -d) } else { format!("+{d}") }
    };
    let changed = after != before;
    match sp {
        Special::PressurePoint => {
            let mut text = format!(
                "{} chooses how {}'s loss is spread (the part not from {}'s own stance)",
                me.name, them.name, them.name
            );
            if after.losses[o].total() == 0 {
                text.push_str(&format!("; {} loses nothing so far", them.name));
            }
            text
        }
        Special::WaxOn(_) if changed => {
            format!("{} loses nothing from {}'s stance: {}", me.name, them.name, loss_diff(p))
        }
        Special::Parry(_) if changed => {
            format!("{} loses no energy at all this turn: {}", me.name, loss_diff(p))
        }
        Special::WaxOn(x) | Special::Parry(x) => {
            let what = if matches!(sp, Special::WaxOn(_)) {
                format!("nothing from {}'s stance", them.name)
            } else {
                "nothing".to_owned()
            };
            if them.play.as_move().is_some_and(|m| m.action() == x) {
                format!("changes nothing this turn: at its place in the list {} loses {what} anyway", me.name)
            } else {
                format!(
                    "changes nothing this turn: it acts only if the opponent's action is {x} ({})",
                    played(them)
                )
            }
        }
        Special::SantaCarla(x) => match extra {
            Some(n) => format!(
                "{} regains its committed stance, {n} (unmultiplied), spread as {} chooses, never above its maximum of a type",
                me.name, me.name
            ),
            // The opponent surrendered: nobody won the turn; the other side only counts as its
            // winner for passing the next turn (§5.2 Decision).
            None if them.play == Play::Surrender => format!(
                "changes nothing this turn: {} surrendered, so nobody won the turn ({} only counts as its winner for passing the next turn, §5.2), and there is no win to regain a stance from",
                them.name, me.name
            ),
            None => format!(
                "changes nothing this turn: {} regains its stance only if it wins with a stance of {x} and a move of {x} ({} took {}, {})",
                me.name,
                me.name,
                if me.stance.amount == 0 { "no stance".to_owned() } else { me.stance.to_string() },
                played(me)
            ),
        },
        Special::Vampire(x) => match extra {
            Some(n) => format!(
                "{} regains what {} loses, {n} (the whole loss, before energy runs out, §6), spread as {} chooses, never above its maximum of a type",
                me.name, them.name, me.name
            ),
            None => format!(
                "changes nothing this turn: it acts only if {}'s action is {x} ({})",
                me.name,
                played(me)
            ),
        },
        Special::DigTwoGraves(x) => {
            let added = after.losses[o].mirrored.saturating_sub(before.losses[o].mirrored);
            if added > 0 {
                format!(
                    "{} loses as much as {} loses: dig two graves +{added} ({}'s whole loss before energy runs out and before any other Dig Two Graves, §6)",
                    them.name, me.name, me.name
                )
            } else if them.play.as_move().is_some_and(|m| m.action() == x) {
                format!("changes nothing this turn: {} loses nothing, so there is nothing to mirror", me.name)
            } else {
                format!(
                    "changes nothing this turn: it acts only if the opponent's action is {x} ({})",
                    played(them)
                )
            }
        }
        Special::IAlreadyKnow(x) => format!(
            "{} could not play a {x} move this turn (checked); it does not change this turn's losses",
            them.name
        ),
        Special::LiquidMetal => format!(
            "copies a special another character used in this conflict: enter the copied special instead (e.g. --{}-special \"wax on grapple\") to count its effect; as given it does not change this turn's losses",
            Who::from_index(p).key()
        ),
        Special::DrunkenMonkey => format!(
            "swaps {}'s revealed move for a random one: enter the move played after any swap; it does not change this turn's losses",
            me.name
        ),
        Special::WayOfTheSamurai => format!(
            "{} regained all its energy before the stance (enter the energy after that) and cannot be removed from this conflict; it does not change this turn's losses",
            me.name
        ),
        Special::Scouter | Special::ToBlave | Special::ThereCanBeOnlyOne | Special::Yojimbo => {
            "does not change this turn's losses".to_owned()
        }
    }
}

impl Report {
    fn new(turn: &Turn) -> anyhow::Result<Report> {
        let pair = contenders(turn);
        let result = turn::resolve(&pair);
        let specials = apply_specials(turn, &pair, &result)?;
        let settlement = &specials.settlement;
        let plays = [pair[0].play, pair[1].play];
        let decided = result.decided_by;
        let mut chains = [turn.fighters[0].disadvantage, turn.fighters[1].disadvantage];
        let mut combo = turn.combo.clone();
        chain::after_turn(
            &result,
            [FighterId(0), FighterId(1)],
            [SideId(0), SideId(1)],
            plays,
            &mut chains,
            &mut combo,
        );
        let surrendered = match result.outcome {
            Outcome::Surrender { surrendered } => surrendered,
            _ => [false; 2],
        };
        let loss_report = |loss: &Loss| LossReport {
            parts: *loss,
            total: loss.total(),
            to_distribute: loss.to_distribute(),
        };
        let fighter = |i: usize| {
            let f = &turn.fighters[i];
            let loss = result.losses[i];
            let final_loss = settlement.losses[i];
            FighterReport {
                name: f.name.clone(),
                stance: f.stance,
                stance_counts: f.play.as_move().is_some_and(|m| f.stance.counts_for(m.action())),
                play: f.play,
                disadvantaged: result.disadvantaged[i],
                combo_bonus: pair[i].combo_len,
                surrendered: surrendered[i],
                loss: loss_report(&loss),
                special: f.special,
                energy: f.energy.map(|e| energy_report(e, &final_loss)),
            }
        };
        let spreader = |i: usize| by_key(settlement.spreaders[i].unwrap_or(FighterId(i as u8)), turn.yojimbo);
        let extras = settlement
            .extras
            .iter()
            .zip(&specials.extra_sources)
            .map(|(e, &special)| ExtraReport {
                fighter: by_key(e.fighter, turn.yojimbo),
                name: match e.fighter.0 {
                    0 | 1 => turn.fighters[usize::from(e.fighter.0)].name.clone(),
                    _ => ally_name(turn),
                },
                kind: e.kind,
                amount: e.amount,
                special,
            })
            .collect();
        let [chain_a, chain_b] = chains;
        Ok(Report {
            a: fighter(0),
            b: fighter(1),
            outcome: match result.outcome {
                Outcome::Win { .. } => "win",
                Outcome::Tie => "tie",
                Outcome::Surrender { .. } => "surrender",
            },
            winner: result.outcome.winner().map(|w| Who::from_index(w).key()),
            decided_by: decided,
            summary: summary(turn, &result, decided),
            combo_continued: result.combo_continued,
            next: NextReport {
                disadvantage: NextDisadvantage { a: chain_a.cards().to_vec(), b: chain_b.cards().to_vec() },
                combo: combo.map(|c| NextCombo {
                    side: Who::from_index(usize::from(c.side.0)).key(),
                    against: Who::from_index(usize::from(c.against.0)).key(),
                    cards: c.cards.iter().map(|c| c.card).collect(),
                }),
            },
            edition: edition_name(turn.edition),
            final_losses: Pair {
                a: loss_report(&settlement.losses[0]),
                b: loss_report(&settlement.losses[1]),
            },
            spreaders: Pair { a: spreader(0), b: spreader(1) },
            extras,
            specials: specials.reports,
        })
    }

    fn fighter(&self, who: Who) -> &FighterReport {
        match who {
            Who::A => &self.a,
            Who::B => &self.b,
        }
    }

    /// Whether a special changed a loss, who spreads one, or added a loss or a gain.
    fn specials_change(&self) -> bool {
        self.specials.iter().any(|s| s.changed)
    }

    /// The plain-text output.
    fn text(&self) -> String {
        let mut out = String::new();
        for who in [Who::A, Who::B] {
            let _ = writeln!(out, "{}", self.fighter_line(who));
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", self.summary);
        let changed = self.specials_change();
        let before = if changed { " before specials" } else { "" };
        match self.outcome {
            "win" => {
                let w = if self.winner == Some("a") { Who::A } else { Who::B };
                let l = Who::from_index(1 - w.index());
                self.write_win_loss(&mut out, w, l, changed);
                let _ = writeln!(out, "{} loses nothing{before}.", self.fighter(w).name);
            }
            "tie" => {
                let _ = writeln!(
                    out,
                    "On a tie each loses the base of the other's move and nothing else: no stance, combo or disadvantage (§5.3)."
                );
                for who in [Who::A, Who::B] {
                    self.write_tie_loss(&mut out, who, changed);
                }
            }
            _ => {
                for who in [Who::A, Who::B] {
                    if self.fighter(who).surrendered {
                        let _ = writeln!(out, "{} leaves the conflict.", self.fighter(who).name);
                    }
                }
                let _ = writeln!(
                    out,
                    "Nobody loses energy; no combo or disadvantage is started or extended (§5.2)."
                );
            }
        }
        self.write_specials(&mut out);
        let _ = writeln!(out);
        let chain = |cards: &[Move]| {
            if cards.is_empty() { "none".to_owned() } else { join(cards) }
        };
        let _ = writeln!(
            out,
            "Next disadvantage chains: {}: {}; {}: {}",
            self.a.name,
            chain(&self.next.disadvantage.a),
            self.b.name,
            chain(&self.next.disadvantage.b)
        );
        match &self.next.combo {
            Some(c) => {
                let side = if c.side == "a" { Who::A } else { Who::B };
                let against = Who::from_index(1 - side.index());
                let _ = writeln!(
                    out,
                    "Next combo chain: {} against {}: {}",
                    self.fighter(side).name,
                    self.fighter(against).name,
                    join(&c.cards)
                );
            }
            None => {
                let _ = writeln!(out, "Next combo chain: none");
            }
        }
        out
    }

    fn fighter_line(&self, who: Who) -> String {
        let f = self.fighter(who);
        let stance =
            if f.stance.amount == 0 { "no stance".to_owned() } else { format!("stance {}", f.stance) };
        let mut line = format!("{}: {stance}, plays {}", f.name, f.play);
        if f.disadvantaged {
            line.push_str(" (disadvantaged)");
        }
        if f.combo_bonus > 0 {
            let _ = write!(line, " (combo follow-up, +{} if it wins)", f.combo_bonus);
        }
        if let Some(e) = &f.energy {
            let _ = write!(line, "; energy {}", e.before);
        }
        if let Some(s) = self.specials.iter().find(|s| s.by == who.key()) {
            let _ = write!(line, "; special {}", s.name);
        }
        line
    }

    /// The specials and, when they changed anything, the losses after them.
    fn write_specials(&self, out: &mut String) {
        if self.specials.is_empty() {
            return;
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "Specials (§6), taking effect in list order:");
        for s in &self.specials {
            let by = match s.by {
                "a" => self.a.name.clone(),
                "b" => self.b.name.clone(),
                _ => {
                    self.extras.iter().find(|e| e.fighter == s.by).map(|e| e.name.clone()).unwrap_or_default()
                }
            };
            let _ = writeln!(out, "  {} ({by}, place {}): {}", s.name, s.place, s.effect);
        }
        if !self.specials_change() {
            let _ = writeln!(out, "The specials change no loss this turn.");
            return;
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "After specials:");
        for (who, loss, spreader) in [
            (Who::A, &self.final_losses.a, self.spreaders.a),
            (Who::B, &self.final_losses.b, self.spreaders.b),
        ] {
            let f = self.fighter(who);
            if loss.total == 0 {
                let took = self
                    .extras
                    .iter()
                    .find(|e| e.kind == ExtraKind::Loss && e.fighter.starts_with(who.key()));
                match took {
                    Some(e) => {
                        let _ = writeln!(out, "{} loses nothing: {} took its loss.", f.name, e.name);
                    }
                    None => {
                        let _ = writeln!(out, "{} loses nothing.", f.name);
                    }
                }
                continue;
            }
            let p = &loss.parts;
            // The parts written as a sum, so that the total can be checked (issue 13).
            let _ = writeln!(out, "{} loses {}: {p}", f.name, loss.total);
            let by = if spreader == who.key() {
                format!("{} chooses", f.name)
            } else {
                format!("{} chooses (Pressure Point)", self.fighter(Who::from_index(1 - who.index())).name)
            };
            match p.stance_type {
                Some(t) if p.own_stance > 0 => {
                    let _ = writeln!(
                        out,
                        "  at least {} of it from {} ({}'s stance); the rest ({}) spread as {by}",
                        p.own_stance, t, f.name, loss.to_distribute
                    );
                }
                _ => {
                    let _ = writeln!(out, "  all {} spread as {by}", loss.to_distribute);
                }
            }
            write_energy(out, f, loss);
        }
        for e in &self.extras {
            let source =
                e.special.name(if self.edition == "earlier" { Edition::Earlier } else { Edition::Current });
            match e.kind {
                ExtraKind::Loss => {
                    let _ = writeln!(
                        out,
                        "{} loses {} ({source}), spread as {} chooses.",
                        e.name, e.amount, e.name
                    );
                }
                ExtraKind::Gain => {
                    let _ = writeln!(
                        out,
                        "{} regains {} ({source}), spread as {} chooses, each type at most its maximum.",
                        e.name, e.amount, e.name
                    );
                }
            }
        }
    }

    fn write_win_loss(&self, out: &mut String, w: Who, l: Who, before_specials: bool) {
        let (win, lose) = (self.fighter(w), self.fighter(l));
        let loss = &lose.loss;
        let parts = &loss.parts;
        let before = if before_specials { " before specials" } else { "" };
        let _ = writeln!(out, "{} loses {}{before}:", lose.name, loss.total);
        let winner_stance = match win.play.as_move() {
            Some(m) if win.stance_counts => format!(
                "{} × {} = {}   ({}'s {} with {})",
                win.stance.amount,
                m.multiplier(),
                parts.winner_stance,
                win.name,
                win.stance,
                m
            ),
            _ => format!("0   ({})", stance_note(win)),
        };
        let _ = writeln!(out, "  winner's stance  {winner_stance}");
        let own = if lose.stance_counts {
            format!("{}   ({}'s {})", parts.own_stance, lose.name, lose.stance)
        } else {
            format!("0   ({})", stance_note(lose))
        };
        let _ = writeln!(out, "  own stance       {own}");
        let _ = writeln!(out, "  base             {}   ({})", parts.base, win.play);
        let _ = writeln!(out, "  combo            +{}", parts.combo);
        let _ = writeln!(out, "  disadvantage     +{}", parts.disadvantage);
        let _ = writeln!(out, "  total            {}", loss.total);
        if before_specials {
            return;
        }
        match parts.stance_type {
            Some(t) if parts.own_stance > 0 => {
                let _ = writeln!(
                    out,
                    "  at least {} of it from {} ({}'s stance); the rest ({}) spread as {} chooses",
                    parts.own_stance, t, lose.name, loss.to_distribute, lose.name
                );
            }
            _ => {
                let _ = writeln!(out, "  all {} spread as {} chooses", loss.to_distribute, lose.name);
            }
        }
        write_energy(out, lose, &lose.loss);
    }

    fn write_tie_loss(&self, out: &mut String, who: Who, before_specials: bool) {
        let f = self.fighter(who);
        let other = self.fighter(Who::from_index(1 - who.index()));
        let before = if before_specials { " before specials" } else { "" };
        let _ = writeln!(
            out,
            "{} loses {}{before}: base {} ({}'s {}); total {}; all {} spread as {} chooses",
            f.name,
            f.loss.total,
            f.loss.parts.base,
            other.name,
            other.play,
            f.loss.total,
            f.loss.to_distribute,
            f.name
        );
        if !before_specials {
            write_energy(out, f, &f.loss);
        }
    }
}

/// Why a stance does not count.
fn stance_note(f: &FighterReport) -> String {
    if f.stance.amount == 0 {
        format!("{} took no stance", f.name)
    } else {
        format!("{}'s {} is a feint: it played {}", f.name, f.stance, f.play)
    }
}

/// The energy line of `f` under `loss` (its final loss: the energy report is computed from it).
fn write_energy(out: &mut String, f: &FighterReport, loss: &LossReport) {
    let Some(e) = &f.energy else { return };
    let rest = loss.to_distribute;
    let after = match loss.parts.stance_type {
        Some(t) if loss.parts.own_stance > 0 => {
            format!("the {t} part leaves {} ({} in all)", e.after_stance_part, e.left_after_stance_part)
        }
        _ => format!("{} has {} ({} in all)", f.name, e.before, e.left_after_stance_part),
    };
    if e.wiped_out {
        let _ = writeln!(
            out,
            "  {after}; the rest ({rest}) wipes it all out: {} is out of the conflict unless The Way of the Samurai is active (§5.3)",
            f.name
        );
    } else {
        let _ = writeln!(
            out,
            "  {after}; the rest ({rest}) leaves {} in all, spread as {} chooses",
            e.left_after_loss, f.name
        );
    }
}

fn energy_report(before: Energy, loss: &Loss) -> EnergyReport {
    let mut after = before;
    if let Some(t) = loss.stance_type {
        after.take(t, loss.own_stance);
    }
    let left = after.total();
    let left_after_loss = left.saturating_sub(loss.to_distribute());
    EnergyReport {
        before,
        after_stance_part: after,
        left_after_stance_part: left,
        left_after_loss,
        wiped_out: loss.total() > 0 && left_after_loss == 0,
    }
}

fn join(cards: &[Move]) -> String {
    cards.iter().map(Move::to_string).collect::<Vec<_>>().join(", ")
}

fn summary(turn: &Turn, result: &TurnResult, decided: Decided) -> String {
    let name = |i: usize| turn.fighters[i].name.as_str();
    let play = |i: usize| turn.fighters[i].play;
    match result.outcome {
        Outcome::Win { winner: w } => {
            let l = 1 - w;
            let (Some(wm), Some(lm)) = (play(w).as_move(), play(l).as_move()) else {
                return format!("{} wins", name(w));
            };
            let why = match decided {
                Decided::Action => format!("{} beats {}", wm.action(), lm.action()),
                Decided::Element => {
                    format!("same action {}, {} beats {}", wm.action(), wm.element(), lm.element())
                }
                _ => {
                    format!("{wm} against {lm}, and only {}'s move is disadvantaged (§5.2 step 4.3)", name(l))
                }
            };
            format!("{} wins: {why}", name(w))
        }
        Outcome::Tie => {
            let both = if result.disadvantaged == [true, true] { ", both disadvantaged" } else { "" };
            format!("Tie: both played {}{both}", play(0))
        }
        Outcome::Surrender { surrendered } => match result.outcome.winner() {
            Some(w) => format!(
                "{} surrenders: {} counts as the turn's winner (for passing the next turn)",
                name(1 - w),
                name(w)
            ),
            None if surrendered == [true, true] => "Both surrender".into(),
            None => "Surrender".into(),
        },
    }
}
