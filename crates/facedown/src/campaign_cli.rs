//! `facedown campaign …`: an Iron Triangle campaign kept in a SQLite database (the `campaign`
//! crate) — characters, NPC sheets, problems, countdowns, conflicts, rests and level-ups.
//!
//! A thin shell: it parses arguments, asks the store (which asks `iron_triangle::campaign` for
//! every rule), and prints text or `--json`. Conflicts are played by `it_play`, with the store
//! recording every accepted command. Documented in `docs/campaign.md`.

mod render;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::str::FromStr;

use crate::input::Shown;
use anyhow::{Context, bail};
use campaign::{Store, parse_edition, parse_rest_choice};
use clap::{Args as ClapArgs, Subcommand};
use iron_triangle::campaign::Sheet;
use iron_triangle::campaign::levelling::{Advance, FollowUp, LevelUp, Refill};
use iron_triangle::campaign::problem::{Choice, Mark, ProblemOption};
use iron_triangle::campaign::rest::Rest;
use iron_triangle::special::{Edition, Special};
use iron_triangle::{Action, Character, Energy, IronTriangle, Kind, Move, Stakes};
use serde::Serialize;
use serde_json::json;
use session::Session;

use crate::play::iron_triangle as it_play;
use crate::play::keyboard::Keyboard;

/// Keep an Iron Triangle campaign: characters, problems, countdowns, conflicts, rests, levels.
#[derive(ClapArgs)]
#[command(after_help = "\
The campaign is a SQLite file: by default facedown/campaign.sqlite in your data directory \
(e.g. ~/.local/share), or --db PATH. It is created on first use. Every command that changes \
something is one transaction: it is done completely or not at all, and a bad input (an invalid \
sheet, an option a character cannot afford, a level-up without three marks, an unknown name) \
changes nothing and exits with status 2. See docs/campaign.md.")]
pub struct Args {
    /// The campaign database file (created if missing).
    #[arg(long, value_name = "PATH", global = true)]
    pub db: Option<PathBuf>,

    /// Print machine-readable JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,

    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Create the campaign file (optional: any command creates it) and choose the edition.
    Init {
        /// The edition of the rules: current or earlier.
        #[arg(long, default_value = "current")]
        edition: String,
    },
    /// Everything at a glance: characters, countdowns, open problems, the running conflict.
    Status,
    /// Player characters.
    #[command(subcommand, visible_alias = "pc")]
    Character(CharacterCmd),
    /// NPC sheets for conflicts.
    #[command(subcommand)]
    Npc(NpcCmd),
    /// Problems: simultaneous hidden choice of 1–4.
    #[command(subcommand)]
    Problem(ProblemCmd),
    /// Countdowns.
    #[command(subcommand)]
    Countdown(CountdownCmd),
    /// Conflicts from campaign characters, their results written back.
    #[command(subcommand)]
    Conflict(ConflictCmd),
    /// Sessions: `session end` asks the three level-up questions of every character.
    #[command(subcommand)]
    Session(SessionCmd),
    /// Rest after a conflict, the same for all player characters.
    Rest {
        /// breather, short or full.
        kind: String,
        /// A player's choice of energy type: CHARACTER=TYPE (breather: the type to regain;
        /// short rest: which lowest maximum on a tie). Repeatable.
        #[arg(long = "choice", value_name = "CHARACTER=TYPE")]
        choices: Vec<String>,
        /// On a full rest, the GM marks this countdown.
        #[arg(long, value_name = "COUNTDOWN")]
        mark_countdown: Option<String>,
    },
    /// The campaign log: every command that changed something.
    Log {
        /// Only the last N entries.
        #[arg(long, value_name = "N")]
        last: Option<u32>,
    },
}

#[derive(Subcommand)]
enum CharacterCmd {
    /// Create a level 0 character, from a TOML/JSON file or by answering questions. Every
    /// creation rules are checked.
    Create {
        /// A sheet file (see examples/iron-triangle/campaign/); without it, questions on the terminal.
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
    },
    /// Import a character exported as JSON (any level; checked against the creation and level-up rules).
    Import {
        /// The JSON file (`-` for standard input).
        file: PathBuf,
    },
    /// Export a character as JSON.
    Export {
        /// The character.
        name: String,
        /// Write to FILE instead of standard output.
        #[arg(long, short, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// List the player characters.
    List,
    /// Show a character sheet as text, or write a printable HTML page.
    Show {
        /// The character.
        name: String,
        /// Write the sheet as a printable HTML page to FILE (`-`: standard output).
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
    },
    /// Rename a known move (free at any time).
    RenameMove {
        /// The character.
        name: String,
        /// The move: its current name or its symbols (e.g. "▨☷" or "grapple earth").
        #[arg(value_name = "MOVE")]
        card: String,
        /// The new name.
        new_name: String,
    },
    /// Record a character's death.
    Death {
        /// The character.
        name: String,
    },
    /// The GM marks the goal accomplished (the second level-up question).
    Goal {
        /// The character.
        name: String,
    },
    /// Fill in a background during play (3 points, at most 2 in one).
    Background {
        /// The character.
        name: String,
        /// The background, e.g. "former cop".
        background: String,
        /// Its points (1 or 2).
        points: u8,
    },
    /// Rewrite goal, belief or flaw at the end of a session.
    Rewrite {
        /// The character.
        name: String,
        /// A new goal (unaccomplished).
        #[arg(long)]
        goal: Option<String>,
        /// A new belief.
        #[arg(long)]
        belief: Option<String>,
        /// A new flaw.
        #[arg(long)]
        flaw: Option<String>,
    },
    /// Level up at the end of a session: all three questions marked (earlier edition:
    /// two), one advance, and a refill.
    #[command(after_help = "\
ADVANCE is one of:
  move MOVE [NAME]            learn a move, e.g. \"move ◆☵ Jab\" or \"move attack water Jab\"
  combo FROM>TO[ replacing OLD][; FROM>TO…]
                              learn or change one or two combo follow-ups, e.g. \"combo ▨☷>◆☲\"
  energy TYPE                 +1 maximum energy in a type that reached zero, e.g. \"energy grapple\"
  special NAME                learn a special, e.g. \"special Scouter\" or \"special Wax On ◆\"
Moves may be written with symbols, words, or the character's own move names.")]
    LevelUp {
        /// The character.
        name: String,
        /// The advance (see below).
        #[arg(long, value_name = "ADVANCE")]
        advance: String,
        /// The refill: backgrounds or veto.
        #[arg(long, value_name = "WHAT")]
        refill: Option<String>,
    },
    /// Create a replacement for a dead character: a new level 0 sheet, then one advance
    /// per level, at most min(5, the dead character's level).
    Replace {
        /// The dead character.
        dead: String,
        /// The new character's level 0 sheet (TOML/JSON).
        #[arg(long, value_name = "FILE")]
        file: PathBuf,
        /// One advance per level, in order (see `level-up --help`); no specials.
        #[arg(long = "advance", value_name = "ADVANCE")]
        advances: Vec<String>,
    },
}

#[derive(Subcommand)]
enum SessionCmd {
    /// End the session: show each character's three questions and who may level up
    /// (`character level-up`); rewrite goals, beliefs and flaws with `character rewrite`.
    End,
}

#[derive(Subcommand)]
enum NpcCmd {
    /// Add an NPC sheet from a TOML/JSON character file.
    Add {
        /// The sheet file.
        file: PathBuf,
    },
    /// List the NPC sheets.
    List,
    /// Show an NPC sheet (the GM's eyes only).
    Show {
        /// The NPC.
        name: String,
    },
    /// Remove an NPC sheet.
    Remove {
        /// The NPC.
        name: String,
    },
}

#[derive(Subcommand)]
enum ProblemCmd {
    /// Start a problem for the interested players' characters.
    Start {
        /// What stands in the way.
        description: String,
        /// An interested player's character. Repeatable; none: the GM decides.
        #[arg(long = "player", value_name = "CHARACTER")]
        players: Vec<String>,
    },
    /// A player's face-down choice, 1–4. Without OPTION it is asked without echo.
    #[command(after_help = "\
Options: 1 succeed with a good idea; 2 succeed by spending a background point; 3 succeed \
with a significant complication (marks the belief, or the flaw); 4 fail in an interesting way \
(marks the flaw, or the belief). Nothing is paid until the problem is settled.")]
    Choose {
        /// The problem's number.
        id: u64,
        /// The character choosing.
        character: String,
        /// 1, 2, 3 or 4.
        option: Option<u32>,
        /// Options 3 and 4: play the belief or the flaw.
        #[arg(long, value_name = "belief|flaw")]
        mark: Option<String>,
        /// Option 2: the background paying the point.
        #[arg(long, value_name = "BACKGROUND")]
        background: Option<String>,
    },
    /// Hot-seat: ask every player who has not chosen yet, in turn, without echo; then reveal.
    HotSeat {
        /// The problem's number.
        id: u64,
    },
    /// Reveal the choices: the highest wins and narrates.
    Reveal {
        /// The problem's number.
        id: u64,
    },
    /// The GM names the narrator when a tie remains.
    Tie {
        /// The problem's number.
        id: u64,
        /// One of the tied characters.
        character: String,
    },
    /// The narrator cannot narrate within the rules: the next-highest choice wins.
    Pass {
        /// The problem's number.
        id: u64,
    },
    /// Veto the narration and substitute a success: option 1, or 2 with a background point.
    Veto {
        /// The problem's number.
        id: u64,
        /// The vetoing character.
        character: String,
        /// 1 or 2.
        option: u32,
        /// Option 2: the background paying the point.
        #[arg(long, value_name = "BACKGROUND")]
        background: Option<String>,
    },
    /// Play moves on: the outcome stands, its costs are paid.
    Settle {
        /// The problem's number.
        id: u64,
        /// The consequences, as narrated (free text, for the log).
        #[arg(long, default_value = "")]
        consequence: String,
    },
    /// Show a problem (choices stay face down until revealed).
    Show {
        /// The problem's number.
        id: u64,
    },
    /// List the problems.
    List,
}

#[derive(Subcommand)]
enum CountdownCmd {
    /// Create a countdown of 4 to 8 boxes.
    Create {
        /// Its name, e.g. "the Elbow Clan's plan".
        name: String,
        /// 4 to 8.
        boxes: u32,
    },
    /// Mark one box.
    Mark {
        /// The countdown.
        name: String,
    },
    /// Erase a countdown (the threat was stopped).
    Erase {
        /// The countdown.
        name: String,
    },
    /// List the countdowns.
    List,
}

#[derive(Subcommand)]
enum ConflictCmd {
    /// Start a conflict from campaign characters and NPC sheets.
    Start {
        /// A player character entering (its own seat, named after it). Repeatable.
        #[arg(long = "pc", value_name = "CHARACTER")]
        pcs: Vec<String>,
        /// An NPC sheet entering (seat gm); NAME=ALIAS enters it under another name, so one
        /// sheet can enter several times. Repeatable.
        #[arg(long = "npc", value_name = "NAME[=ALIAS]")]
        npcs: Vec<String>,
        /// What the players want.
        #[arg(long, default_value = "")]
        want: String,
        /// How they mean to get it.
        #[arg(long, default_value = "")]
        how: String,
        /// The consequences the GM sets.
        #[arg(long, default_value = "")]
        consequences: String,
        /// Intent to kill: every PC is involved and losers can die.
        #[arg(long)]
        lethal: bool,
        /// A single turn.
        #[arg(long)]
        minor: bool,
        /// The conflict's random seed (Drunken Monkey).
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Play the running conflict (or conflict ID): hot-seat, bots or a script, as
    /// `iron-triangle play`. Every accepted command is stored; the end is written back.
    Play {
        /// The conflict's number (default: the running one).
        id: Option<u64>,
        /// SEAT=KIND: a bot plays a seat (`gm`, a character's name, or `all`). Repeatable.
        #[arg(long = "bot", value_name = "SEAT=KIND")]
        bots: Vec<String>,
        /// Seed of the random bots.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Take the commands of the seats without a bot from FILE (JSON lines, `-`: stdin).
        #[arg(long, value_name = "FILE")]
        script: Option<PathBuf>,
    },
    /// List the conflicts.
    List,
    /// Abandon the running conflict: nothing is written back.
    Abandon {
        /// The conflict's number.
        id: u64,
    },
}

async fn open(args: &Args) -> anyhow::Result<Store> {
    let path = match &args.db {
        Some(p) => p.clone(),
        None => campaign::default_path()
            .context("no data directory for the default campaign file; use --db PATH")?,
    };
    Store::open(&path).await.with_context(|| format!("cannot open the campaign {}", path.display()))
}

/// Prints `value` as JSON, or `text` otherwise.
fn emit<T: Serialize>(json: bool, value: &T, text: impl FnOnce() -> String) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string(value)?)?;
    } else {
        write!(out, "{}", text())?;
    }
    Ok(())
}

fn read_text(path: &Path) -> anyhow::Result<String> {
    if path.as_os_str() == "-" {
        return crate::input::read_stdin_bounded(crate::input::TEXT_LIMIT).context("reading standard input");
    }
    crate::input::read_bounded(path, crate::input::TEXT_LIMIT)
        .with_context(|| format!("cannot read {}", path.display()))
}

/// Reads a TOML or JSON file (by extension; JSON for `-`).
fn read_file<T: serde::de::DeserializeOwned>(path: &Path) -> anyhow::Result<T> {
    let text = read_text(path)?;
    let name = path.display();
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml")) {
        toml::from_str(&text).with_context(|| format!("{name} is not a valid sheet"))
    } else {
        serde_json::from_str(&text).with_context(|| format!("{name} is not a valid sheet"))
    }
}

/// Runs `facedown campaign`: the one place a runtime is made. The store is async and owns no
/// runtime; this command creates a current-thread runtime, opens the store on it, runs the
/// command as a whole with `block_on`, and closes the store (folding its write-ahead log back).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let rt = std::rc::Rc::new(
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start the runtime of the campaign store")?,
    );
    let store = rt.block_on(open(&args))?;
    let out = match &args.command {
        Cmd::Conflict(ConflictCmd::Play { id, bots, seed, script }) => {
            play_conflict(&rt, &store, *id, bots, *seed, script, args.json)
        }
        _ => rt.block_on(command(&store, &args)),
    };
    rt.block_on(store.close());
    out
}

/// Runs one campaign command (all but `conflict play`) on the store.
async fn command(store: &Store, args: &Args) -> anyhow::Result<ExitCode> {
    let json = args.json;
    match &args.command {
        Cmd::Init { edition } => {
            let e = parse_edition(edition)?;
            store.set_edition(e).await?;
            let v = store.schema_version().await?;
            emit(json, &json!({ "db": store.path(), "edition": e, "schema_version": v }), || {
                format!("Campaign {} ready: {:?} edition, schema version {v}.\n", store.path().display(), e)
            })?;
        }
        Cmd::Status => status(store, json).await?,
        Cmd::Character(c) => character(store, c, json).await?,
        Cmd::Npc(c) => npc(store, c, json).await?,
        Cmd::Problem(c) => problem(store, c, json).await?,
        Cmd::Countdown(c) => countdown(store, c, json).await?,
        Cmd::Conflict(c) => return conflict(store, c, json).await,
        Cmd::Session(SessionCmd::End) => {
            let all = store.end_session().await?;
            let v: Vec<_> = all
                .iter()
                .map(|(s, may)| json!({ "name": s.name(), "questions": s.questions(), "may_level_up": may }))
                .collect();
            emit(json, &v, || {
                let mut o = String::from("End of the session. The three questions:\n");
                for (s, may) in &all {
                    o += &format!(
                        "  {}: {}{}\n",
                        s.name(),
                        render::questions(s),
                        if *may {
                            " → may level up (`character level-up`)"
                        } else {
                            " → marks carry over"
                        }
                    );
                }
                o += "Goals, beliefs and flaws may be rewritten now (`character rewrite`).\n";
                o
            })?;
        }
        Cmd::Rest { kind, choices, mark_countdown } => {
            let kind = match kind.trim().to_ascii_lowercase().as_str() {
                "breather" => Rest::Breather,
                "short" | "short-rest" => Rest::Short,
                "full" | "full-rest" => Rest::Full,
                other => bail!("unknown rest {other:?}; use breather, short or full"),
            };
            let choices = choices.iter().map(|c| parse_rest_choice(c)).collect::<Result<Vec<_>, _>>()?;
            let rested = store.rest(kind, &choices, mark_countdown.as_deref()).await?;
            let countdown = match mark_countdown {
                Some(m) => store.countdowns().await?.into_iter().find(|c| c.name.eq_ignore_ascii_case(m)),
                None => None,
            };
            emit(json, &json!({ "rest": kind, "characters": rested, "countdown": countdown }), || {
                let mut o = format!("A {} for everyone.\n", kind.name());
                for s in rested.iter().filter(|s| !s.character.dead) {
                    o +=
                        &format!("  {}: energy {} of {}\n", Shown(s.name()), s.current(), s.character.energy);
                }
                if let Some(c) = &countdown {
                    o += &format!("The GM marks a countdown: {}\n", render::countdown_text(c));
                }
                o
            })?;
        }
        Cmd::Log { last } => {
            let entries = store.log(*last).await?;
            emit(json, &entries, || {
                entries
                    .iter()
                    .map(|e| {
                        format!(
                            "{:>4} {} {:<20} {} {}\n",
                            e.seq,
                            e.at,
                            e.kind,
                            Shown(&e.subject),
                            Shown(&e.detail.to_string())
                        )
                    })
                    .collect()
            })?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

async fn status(store: &Store, json: bool) -> anyhow::Result<()> {
    let edition = store.edition().await?;
    let pcs = store.pcs().await?;
    let npcs = store.npcs().await?;
    let countdowns = store.countdowns().await?;
    let open: Vec<_> = store
        .problems()
        .await?
        .into_iter()
        .filter(|p| !matches!(p.stage, iron_triangle::campaign::problem::Stage::Settled { .. }))
        .collect();
    let running = store.running_conflict().await?;
    let value = json!({
        "db": store.path(), "edition": edition,
        "characters": pcs.iter().map(|s| json!({"name": s.name(), "level": s.character.level, "energy": s.current(),
            "maximum": s.character.energy, "dead": s.character.dead, "questions": s.questions()})).collect::<Vec<_>>(),
        "npcs": npcs.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
        "countdowns": countdowns, "open_problems": open.iter().map(|p| p.view()).collect::<Vec<_>>(),
        "running_conflict": running,
    });
    emit(json, &value, || {
        let mut o = format!("Campaign {} ({:?} edition)\n", store.path().display(), edition);
        o += "Player characters:\n";
        if pcs.is_empty() {
            o += "  none yet (`facedown campaign character create`)\n";
        }
        for s in &pcs {
            o += &format!(
                "  {} — level {}, energy {} of {}{}\n      {}\n",
                Shown(s.name()),
                s.character.level,
                s.current(),
                s.character.energy,
                if s.character.dead { " — dead" } else { "" },
                render::questions(s)
            );
        }
        if !npcs.is_empty() {
            o += &format!(
                "NPC sheets: {}\n",
                npcs.iter().map(|c| Shown(&c.name).to_string()).collect::<Vec<_>>().join(", ")
            );
        }
        if !countdowns.is_empty() {
            o += "Countdowns:\n";
            for c in &countdowns {
                o += &format!("  {}\n", render::countdown_text(c));
            }
        }
        for p in &open {
            o += &render::problem_text(p);
        }
        if let Some(id) = running {
            o += &format!("Conflict {id} is running (`facedown campaign conflict play`).\n");
        }
        o
    })
}

// ----- characters -----

/// Asks one line; `None` at the end of the input.
fn ask(kb: &mut Keyboard, prompt: &str) -> anyhow::Result<String> {
    let mut out = std::io::stdout();
    match kb.read(prompt, false, &mut out)? {
        Some(s) => Ok(s.trim().to_owned()),
        None => bail!("the input ended before the character was complete; nothing was created"),
    }
}

/// Creates a character by asking its fields; each answer is checked by the rules as soon as
/// it can be (energy by the §4 creation rules), and asked again when refused.
fn interactive_sheet(edition: Edition) -> anyhow::Result<Sheet> {
    let mut kb = Keyboard::new();
    let mut out = std::io::stdout();
    writeln!(out, "A new level 0 character. Press Enter to leave a free-text field empty.")?;
    let name = loop {
        let n = ask(&mut kb, "Name: ")?;
        if !n.is_empty() {
            break n;
        }
        writeln!(out, "A character needs a name.")?;
    };
    let fighting_style = ask(&mut kb, "Fighting style: ")?;
    let description = ask(&mut kb, "Description: ")?;
    let image = ask(&mut kb, "Picture (a path or URL): ")?;
    let goal = ask(&mut kb, "Goal: ")?;
    let belief = ask(&mut kb, "Belief: ")?;
    let flaw = ask(&mut kb, "Flaw: ")?;
    let energy = loop {
        let e = ask(&mut kb, "Energy ○ ▨ ◆ (three numbers totalling 10, at least 1 each): ")?;
        let nums: Vec<Result<u8, _>> =
            e.split([' ', ',', '/']).filter(|w| !w.is_empty()).map(str::parse).collect();
        let [Ok(d), Ok(g), Ok(a)] = nums.as_slice() else {
            writeln!(out, "Write three numbers, e.g. 3 2 5.")?;
            continue;
        };
        let energy = Energy::new(*d, *g, *a);
        match Character::with_starting_moves(&name, energy).validate_in(Kind::Pc, edition) {
            Ok(()) => break energy,
            Err(e) => writeln!(out, "Not accepted: {e}.")?,
        }
    };
    let mut character = Character::with_starting_moves(&name, energy);
    character.fighting_style = fighting_style;
    character.description = description;
    for m in &mut character.moves {
        let n = ask(&mut kb, &format!("Name for the starting move {} (Enter: keep {}): ", m.card, m.card))?;
        if !n.is_empty() {
            m.name = n;
        }
    }
    let mut sheet = Sheet { character, image, goal, belief, flaw, ..Sheet::default() };
    writeln!(out, "Backgrounds: 3 points, at most 2 in one; you may fill them in later.")?;
    while sheet.backgrounds.iter().map(|b| u32::from(b.points)).sum::<u32>() < 3 {
        let b = ask(&mut kb, "Background and points, e.g. \"former cop 2\" (Enter: done): ")?;
        if b.is_empty() {
            break;
        }
        let (bname, points) = match b.rsplit_once(' ').map(|(n, p)| (n, p.parse::<u8>())) {
            Some((n, Ok(p))) => (n.to_owned(), p),
            _ => (b.clone(), 1),
        };
        match sheet.add_background(&bname, points) {
            Ok(s) => sheet = s,
            Err(e) => writeln!(out, "Not accepted: {e}.")?,
        }
    }
    Ok(sheet)
}

/// Resolves a move written as symbols, words, or one of the sheets' move names.
fn find_move(text: &str, sheets: &[&Character]) -> anyhow::Result<Move> {
    let t = text.trim();
    if let Ok(m) = Move::from_str(t) {
        return Ok(m);
    }
    for c in sheets {
        if let Some(m) = c.find_move(t) {
            return Ok(m);
        }
    }
    bail!("{t:?} is not a move: write symbols (\"▨☷\"), words (\"grapple earth\") or a known move's name")
}

/// Parses an ADVANCE (see `level-up --help`).
fn parse_advance(text: &str, sheets: &[&Character]) -> anyhow::Result<Advance> {
    let t = text.trim();
    let (kind, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    let rest = rest.trim();
    Ok(match kind.to_ascii_lowercase().as_str() {
        "move" => {
            // The move is the first one or two words; the rest is its name.
            let words: Vec<&str> = rest.split_whitespace().collect();
            let (card, name) = match words.as_slice() {
                [] => bail!("\"move\" needs a move, e.g. \"move ◆☵ Jab\""),
                [a, b, name @ ..] if Move::from_str(&format!("{a} {b}")).is_ok() => {
                    (Move::from_str(&format!("{a} {b}"))?, name.join(" "))
                }
                [m, name @ ..] => (find_move(m, sheets)?, name.join(" ")),
            };
            Advance::LearnMove { card, name }
        }
        "combo" | "combos" => {
            let mut changes = Vec::new();
            for part in rest.split(';').filter(|p| !p.trim().is_empty()) {
                let (from, to) =
                    part.split_once('>').with_context(|| format!("{part:?}: write FROM>TO, e.g. ▨☷>◆☲"))?;
                let (to, replacing) = match to.split_once(" replacing ") {
                    Some((t, r)) => (t, Some(find_move(r, sheets)?)),
                    None => (to, None),
                };
                changes.push(FollowUp {
                    from: find_move(from, sheets)?,
                    to: find_move(to, sheets)?,
                    replacing,
                });
            }
            Advance::Combos { changes }
        }
        "energy" | "max" | "maximum" => {
            Advance::MaxEnergy { action: Action::from_str(rest).map_err(|e| anyhow::anyhow!("{e}"))? }
        }
        "special" => {
            Advance::LearnSpecial { special: Special::from_str(rest).map_err(|e| anyhow::anyhow!("{e}"))? }
        }
        other => bail!("unknown advance {other:?}: use move, combo, energy or special"),
    })
}

async fn character(store: &Store, cmd: &CharacterCmd, json: bool) -> anyhow::Result<()> {
    let edition = store.edition().await?;
    let show = |s: &Sheet, verb: &str| -> anyhow::Result<()> {
        emit(json, s, || format!("{verb}\n{}", render::sheet_text(s, edition)))
    };
    match cmd {
        CharacterCmd::Create { file } => {
            let sheet: Sheet = match file {
                Some(f) => read_file(f)?,
                None => interactive_sheet(edition)?,
            };
            let s = store.create_pc(&sheet).await?;
            show(&s, &format!("Created {}.", crate::input::escape(s.name())))?;
        }
        CharacterCmd::Import { file } => {
            let sheet: Sheet = read_file(file)?;
            let s = store.import_pc(&sheet).await?;
            show(&s, &format!("Imported {}.", crate::input::escape(s.name())))?;
        }
        CharacterCmd::Export { name, out } => {
            let s = store.pc(name).await?;
            let text = serde_json::to_string_pretty(&s)? + "\n";
            match out {
                Some(p) => {
                    std::fs::write(p, text).with_context(|| format!("cannot write {}", p.display()))?;
                    emit(json, &json!({ "exported": s.name(), "file": p }), || {
                        format!("Exported {} to {}.\n", Shown(s.name()), p.display())
                    })?;
                }
                None => print!("{text}"),
            }
        }
        CharacterCmd::List => {
            let pcs = store.pcs().await?;
            emit(json, &pcs, || {
                pcs.iter()
                    .map(|s| {
                        format!(
                            "{} — level {}, energy {} of {}{}\n",
                            Shown(s.name()),
                            s.character.level,
                            s.current(),
                            s.character.energy,
                            if s.character.dead { ", dead" } else { "" }
                        )
                    })
                    .collect()
            })?;
        }
        CharacterCmd::Show { name, html } => {
            let s = store.pc(name).await?;
            match html {
                Some(p) if p.as_os_str() == "-" => print!("{}", render::sheet_html(&s, edition)),
                Some(p) => {
                    std::fs::write(p, render::sheet_html(&s, edition))
                        .with_context(|| format!("cannot write {}", p.display()))?;
                    emit(json, &json!({ "html": p }), || {
                        format!("Wrote {}'s sheet to {}.\n", Shown(s.name()), p.display())
                    })?;
                }
                None => show(&s, "")?,
            }
        }
        CharacterCmd::RenameMove { name, card, new_name } => {
            let s = store
                .update_pc(
                    name,
                    "character.rename_move",
                    json!({ "move": card, "name": new_name }),
                    |s, e| s.rename_move(card, new_name, e),
                )
                .await?;
            show(&s, &format!("Renamed {card} to {new_name:?}."))?;
        }
        CharacterCmd::Death { name } => {
            let s = store.update_pc(name, "character.death", json!({}), |s, _| Ok(s.record_death())).await?;
            show(
                &s,
                &format!(
                    "{} is dead. A replacement may continue the fighting style (`character replace`).",
                    s.name()
                ),
            )?;
        }
        CharacterCmd::Goal { name } => {
            let s = store
                .update_pc(name, "character.goal", json!({}), |s, _| {
                    let mut n = s.clone();
                    n.goal_achieved = true;
                    Ok(n)
                })
                .await?;
            show(&s, &format!("{}'s goal is accomplished.", crate::input::escape(s.name())))?;
        }
        CharacterCmd::Background { name, background, points } => {
            let s = store
                .update_pc(
                    name,
                    "character.background",
                    json!({ "background": background, "points": points }),
                    |s, _| s.add_background(background, *points),
                )
                .await?;
            show(&s, &format!("{} has the background {background:?}.", crate::input::escape(s.name())))?;
        }
        CharacterCmd::Rewrite { name, goal, belief, flaw } => {
            if goal.is_none() && belief.is_none() && flaw.is_none() {
                bail!("give --goal, --belief or --flaw");
            }
            let s = store
                .update_pc(
                    name,
                    "character.rewrite",
                    json!({ "goal": goal, "belief": belief, "flaw": flaw }),
                    |s, _| Ok(s.rewrite(goal.as_deref(), belief.as_deref(), flaw.as_deref())),
                )
                .await?;
            show(&s, "Rewritten.")?;
        }
        CharacterCmd::LevelUp { name, advance, refill } => {
            let current = store.pc(name).await?;
            let advance = parse_advance(advance, &[&current.character])?;
            let refill = match refill.as_deref().map(|r| r.trim().to_ascii_lowercase()) {
                None => None,
                Some(r) if r.starts_with("background") => Some(Refill::Backgrounds),
                Some(r) if r == "veto" => Some(Refill::Veto),
                Some(r) => bail!("unknown refill {r:?}; use backgrounds or veto"),
            };
            let s = store.level_up(name, &LevelUp { advance, refill }).await?;
            show(&s, &format!("{} is now level {}.", Shown(s.name()), s.character.level))?;
        }
        CharacterCmd::Replace { dead, file, advances } => {
            let d = store.pc(dead).await?;
            let base: Sheet = read_file(file)?;
            let advances = advances
                .iter()
                .map(|a| parse_advance(a, &[&base.character, &d.character]))
                .collect::<anyhow::Result<Vec<_>>>()?;
            let s = store.replace(dead, &base, &advances).await?;
            show(
                &s,
                &format!("{} replaces {} at level {}.", Shown(s.name()), Shown(d.name()), s.character.level),
            )?;
        }
    }
    Ok(())
}

async fn npc(store: &Store, cmd: &NpcCmd, json: bool) -> anyhow::Result<()> {
    let edition = store.edition().await?;
    match cmd {
        NpcCmd::Add { file } => {
            let c: Character = read_file(file)?;
            let c = store.add_npc(&c).await?;
            emit(json, &c, || format!("Added the NPC {}.\n", crate::input::escape(&c.name)))?;
        }
        NpcCmd::List => {
            let all = store.npcs().await?;
            emit(json, &all, || {
                all.iter().map(|c| format!("{} — energy {}\n", Shown(&c.name), c.energy)).collect()
            })?;
        }
        NpcCmd::Show { name } => {
            let c = store.npc(name).await?;
            emit(json, &c, || render::npc_text(&c, edition))?;
        }
        NpcCmd::Remove { name } => {
            store.remove_npc(name).await?;
            emit(json, &json!({ "removed": name }), || format!("Removed the NPC {name}.\n"))?;
        }
    }
    Ok(())
}

fn option(n: u32) -> anyhow::Result<ProblemOption> {
    ProblemOption::from_number(n).with_context(|| format!("option {n}: choose 1, 2, 3 or 4"))
}

async fn problem(store: &Store, cmd: &ProblemCmd, json: bool) -> anyhow::Result<()> {
    let show = |p: &iron_triangle::campaign::Problem| -> anyhow::Result<()> {
        emit(json, &p.view(), || render::problem_text(p))
    };
    match cmd {
        ProblemCmd::Start { description, players } => {
            show(&store.start_problem(description, players).await?)?
        }
        ProblemCmd::Choose { id, character, option: opt, mark, background } => {
            let n = match opt {
                Some(n) => *n,
                None => {
                    let mut kb = Keyboard::new();
                    let mut err = std::io::stderr();
                    let prompt = format!("{character}, your choice for problem {id} (1–4, hidden): ");
                    let answer = kb.read(&prompt, true, &mut err)?.context("no choice was given")?;
                    answer
                        .trim()
                        .parse()
                        .with_context(|| format!("{:?}: choose 1, 2, 3 or 4", answer.trim()))?
                }
            };
            let mark = match mark.as_deref().map(|m| m.trim().to_ascii_lowercase()) {
                None => None,
                Some(m) if m == "belief" => Some(Mark::Belief),
                Some(m) if m == "flaw" => Some(Mark::Flaw),
                Some(m) => bail!("--mark {m:?}: use belief or flaw"),
            };
            let choice = Choice { option: option(n)?, mark, background: background.clone() };
            let p = store.choose(*id, character, &choice).await?;
            // The choice stays face down: print only the public view.
            show(&p)?;
        }
        ProblemCmd::HotSeat { id } => {
            let p = store.problem(*id).await?;
            let mut kb = Keyboard::new();
            let mut err = std::io::stderr();
            for e in p.entries.iter().filter(|e| e.choice.is_none()) {
                let who = &e.character;
                loop {
                    let prompt = format!("{who}, your choice for problem {id} (1–4, hidden): ");
                    let Some(answer) = kb.read(&prompt, true, &mut err)? else {
                        bail!("the input ended before {who} chose; the choices made so far are kept");
                    };
                    let n = answer.trim().parse::<u32>().ok().and_then(ProblemOption::from_number);
                    let result = match n {
                        Some(o) => store.choose(*id, who, &Choice::of(o)).await.map_err(anyhow::Error::from),
                        None => Err(anyhow::anyhow!("choose 1, 2, 3 or 4")),
                    };
                    match result {
                        Ok(_) => {
                            if kb.is_terminal() {
                                write!(err, "\x1b[2J\x1b[3J\x1b[H")?;
                            }
                            break;
                        }
                        Err(e) => writeln!(err, "Not accepted: {e:#}. Try again.")?,
                    }
                }
            }
            show(&store.reveal(*id).await?)?;
        }
        ProblemCmd::Reveal { id } => show(&store.reveal(*id).await?)?,
        ProblemCmd::Tie { id, character } => show(&store.break_tie(*id, character).await?)?,
        ProblemCmd::Pass { id } => show(&store.cannot_narrate(*id).await?)?,
        ProblemCmd::Veto { id, character, option: n, background } => {
            let choice = Choice { option: option(*n)?, mark: None, background: background.clone() };
            show(&store.veto(*id, character, &choice).await?)?;
        }
        ProblemCmd::Settle { id, consequence } => {
            let (p, costs) = store.settle(*id, consequence).await?;
            emit(json, &json!({ "problem": p.view(), "costs": costs }), || {
                let mut o = render::problem_text(&p);
                for (who, cost) in &costs {
                    o += &format!("  {} {}\n", Shown(who), render::cost_text(cost));
                }
                o
            })?;
        }
        ProblemCmd::Show { id } => show(&store.problem(*id).await?)?,
        ProblemCmd::List => {
            let all = store.problems().await?;
            let views: Vec<_> = all.iter().map(|p| p.view()).collect();
            emit(json, &views, || all.iter().map(render::problem_text).collect())?;
        }
    }
    Ok(())
}

async fn countdown(store: &Store, cmd: &CountdownCmd, json: bool) -> anyhow::Result<()> {
    match cmd {
        CountdownCmd::Create { name, boxes } => {
            let c = store.create_countdown(name, *boxes).await?;
            emit(json, &c, || format!("{}\n", render::countdown_text(&c)))?;
        }
        CountdownCmd::Mark { name } => {
            let c = store.mark_countdown(name).await?;
            emit(json, &c, || format!("{}\n", render::countdown_text(&c)))?;
        }
        CountdownCmd::Erase { name } => {
            let c = store.erase_countdown(name).await?;
            emit(json, &json!({ "erased": c }), || {
                format!("Erased the countdown {}.\n", crate::input::escape(&c.name))
            })?;
        }
        CountdownCmd::List => {
            let all = store.countdowns().await?;
            emit(json, &all, || all.iter().map(|c| format!("{}\n", render::countdown_text(c))).collect())?;
        }
    }
    Ok(())
}

async fn conflict(store: &Store, cmd: &ConflictCmd, json: bool) -> anyhow::Result<ExitCode> {
    match cmd {
        ConflictCmd::Start { pcs, npcs, want, how, consequences, lethal, minor, seed } => {
            let npcs: Vec<(String, Option<String>)> = npcs
                .iter()
                .map(|n| match n.split_once('=') {
                    Some((s, a)) => (s.trim().to_owned(), Some(a.trim().to_owned())),
                    None => (n.trim().to_owned(), None),
                })
                .collect();
            let stakes = Stakes {
                want: want.clone(),
                how: how.clone(),
                consequences: consequences.clone(),
                lethal: *lethal,
                minor: *minor,
            };
            let (id, c) = store.start_conflict(pcs, &npcs, &stakes, *seed).await?;
            let names: Vec<String> = c.fighters.iter().map(|f| f.name().to_owned()).collect();
            emit(json, &json!({ "conflict": id, "characters": names, "stakes": stakes }), || {
                format!(
                    "Conflict {id} starts: {}.\nPlay it with `facedown campaign conflict play` (seats: {}, gm).\n",
                    names.join(", "),
                    pcs.join(", ")
                )
            })?;
        }
        // Played by `play_conflict`, outside the async commands: see `run`.
        ConflictCmd::Play { .. } => bail!("`conflict play` runs in `play_conflict`"),
        ConflictCmd::List => {
            let all = store.conflicts().await?;
            emit(json, &all, || {
                all.iter()
                    .map(|c| {
                        format!(
                            "conflict {} ({}): {}\n",
                            c.id,
                            c.started_at,
                            if c.running {
                                "running".to_owned()
                            } else {
                                c.outcome.clone().unwrap_or_default()
                            }
                        )
                    })
                    .collect()
            })?;
        }
        ConflictCmd::Abandon { id } => {
            store.abandon_conflict(*id).await?;
            emit(json, &json!({ "abandoned": id }), || {
                format!("Conflict {id} abandoned; nothing was written back.\n")
            })?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `conflict play`: the Iron Triangle loop of `it_play` is synchronous (until the session layer
/// replaces it), so it runs outside the async commands and drives the store through the
/// command's runtime between moves — recording every accepted command as it goes.
fn play_conflict(
    rt: &std::rc::Rc<tokio::runtime::Runtime>,
    store: &Store,
    id: Option<u64>,
    bots: &[String],
    seed: u64,
    script: &Option<PathBuf>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let id = match id {
        Some(i) => i,
        None => rt
            .block_on(store.running_conflict())?
            .context("no conflict is running; start one with `conflict start`")?,
    };
    let (session, mut kept) = rt.block_on(store.conflict_session(id))?;
    if !kept.running {
        bail!("conflict {id} is over");
    }
    let resumed = kept.stored > 0;
    let recorder = store.clone();
    // The runtime itself (not a handle): on a current-thread runtime only `Runtime::block_on`
    // runs the tasks sqlx spawns, such as returning a connection to the pool.
    let runtime = rt.clone();
    let result = std::rc::Rc::new(std::cell::RefCell::new(None));
    let result_out = result.clone();
    let hook: crate::play::Hook<IronTriangle> = Box::new(move |s: &Session<IronTriangle>| {
        let r = runtime.block_on(recorder.save_conflict(&mut kept, s))?;
        if r.is_some() {
            *result_out.borrow_mut() = r;
        }
        Ok(())
    });
    let play_args = it_play::Args::for_campaign(bots.to_vec(), seed, script.clone(), json);
    let note =
        format!("conflict {id} is kept in the campaign; continue with `facedown campaign conflict play`");
    let code = it_play::play(&play_args, session, resumed, Some((hook, note)))?;
    if let Some(r) = result.borrow().as_ref() {
        let mut out = std::io::stdout().lock();
        if json {
            writeln!(out, "{}", serde_json::to_string(&json!({ "campaign": r }))?)?;
        } else {
            writeln!(out, "\nConflict {id} is over: {}. Written back to the campaign:", r.outcome)?;
            for s in &r.characters {
                let zero: Vec<&str> =
                    Action::ALL.iter().filter(|a| s.zero_marks[a.index()]).map(|a| a.name()).collect();
                writeln!(
                    out,
                    "  {}: energy {} of {}{}{}{}",
                    s.name(),
                    s.current(),
                    s.character.energy,
                    if zero.is_empty() {
                        String::new()
                    } else {
                        format!(", zero marks: {}", zero.join(", "))
                    },
                    if s.character.dead { ", DEAD" } else { "" },
                    if s.character.sits_out_next_conflict { ", sits out the next conflict" } else { "" }
                )?;
            }
            for n in &r.sat_out {
                writeln!(out, "  {n} sat this one out; the mark is cleared.")?;
            }
        }
    }
    Ok(code)
}
