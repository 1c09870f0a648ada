//! `facedown iron-triangle resolve`: a referee calculator for one turn of Iron Triangle played
//! with real cards.
//!
//! Every rule lives in the `iron-triangle` crate: [`referee::TurnSheet::check`] checks the turn
//! and [`referee::resolve`] resolves it with the engine's functions. This module only reads
//! the turn (flags, or a size-bounded file) into a [`TurnSheet`] and prints the [`Report`].
//!
//! The input and output formats are described in `docs/iron-triangle-resolve.md`.

use std::fmt::Write as _;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, anyhow, bail};
use iron_triangle::Move;
use iron_triangle::effects::ExtraKind;
use iron_triangle::referee::{
    self, Field, FighterReport, LossReport, RefereeError, Report, Side, SideSheet, TurnSheet,
};
use iron_triangle::special::Edition;

/// Arguments of `facedown iron-triangle resolve`: both characters of one turn, either as
/// `--a-*`/`--b-*` flags or as a file given with `--input`.
#[derive(clap::Args, Debug, Default)]
#[command(after_help = "Moves are written as symbols (▨☰) or words (\"grapple heaven\", \"attack low\"); \
                  stances as \"2▨\", \"2 grapple\" or 0; lists are comma-separated, oldest first.\n\
                  Specials by name in either edition or by key: \"pressure point\", \"wax on grapple\", \"Wax On ▨\";\n\
                  a Liquid Metal copy as --a-special \"liquid metal\" --a-copy-of \"wax on grapple\" (it acts as the copied\n\
                  special and does not cancel with it; two Liquid Metals cancel only when they copy the same special).\n\
                  See docs/iron-triangle-resolve.md for the file format and the --json output.")]
pub struct Args {
    /// Read both characters from a TOML or JSON file (chosen by extension; `-` reads JSON
    /// from standard input). Cannot be combined with the --a-*/--b-* flags.
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,

    /// Print the result as JSON instead of text.
    #[arg(long)]
    json: bool,

    /// The edition of the specials: current (default) or earlier (the earlier edition: Parry and Vampire
    /// instead of Wax On and Santa Carla, no To Blave).
    #[arg(long, value_name = "current|earlier")]
    edition: Option<String>,

    /// An ally of this side ("a" or "b") plays Yojimbo naming it: the ally takes its loss.
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
    /// The special A revealed this turn, e.g. "pressure point" or "wax on grapple".
    #[arg(long, value_name = "SPECIAL")]
    a_special: Option<String>,
    /// With --a-special "liquid metal": the special A's Liquid Metal copies, e.g. "wax on
    /// grapple". The copy acts as that special, and does not cancel with it.
    #[arg(long, value_name = "SPECIAL")]
    a_copy_of: Option<String>,

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
    /// The special B revealed this turn.
    #[arg(long, value_name = "SPECIAL")]
    b_special: Option<String>,
    /// With --b-special "liquid metal": the special B's Liquid Metal copies.
    #[arg(long, value_name = "SPECIAL")]
    b_copy_of: Option<String>,
}

/// Runs `facedown iron-triangle resolve`. Bad input is an `Err` (exit code 2 in `main`).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (mut sheet, source) = read_turn(&args)?;
    if !args.json {
        // Names from a file or a flag reach the terminal with control characters escaped.
        for side in [&mut sheet.a, &mut sheet.b] {
            if let Some(n) = &mut side.name {
                *n = crate::input::escape(n.trim()).into_owned();
            }
        }
    }
    let report = referee::compute(&sheet).map_err(|e| anyhow!(source.message(&e)))?;
    if args.json {
        let text = serde_json::to_string_pretty(&report).context("writing the JSON output")?;
        println!("{text}");
    } else {
        print!("{}", Text(&report).text());
    }
    Ok(ExitCode::SUCCESS)
}

// ---------------------------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------------------------

/// Where the input came from, to name fields the way the user wrote them.
#[derive(Debug, Clone, Copy)]
enum Source {
    Flags,
    File,
}

impl Source {
    /// The crate's error, with its fields named as flags or as in the file.
    fn message(self, e: &RefereeError) -> String {
        match self {
            Source::Flags => e.message(&|f: Field| f.flag()),
            Source::File => e.to_string(),
        }
    }
}

/// The turn from `--input` or from the flags, with the edition of `--edition` (which must
/// agree with the file's).
fn read_turn(args: &Args) -> anyhow::Result<(TurnSheet, Source)> {
    let flag_edition = args
        .edition
        .as_deref()
        .map(referee::parse_edition)
        .transpose()
        .map_err(|e| anyhow!(Source::Flags.message(&e)))?;
    match &args.input {
        Some(path) => {
            if let Some(flag) = first_side_flag(args) {
                bail!("{flag} cannot be combined with --input: give the turn either as a file or as flags");
            }
            let mut sheet = read_file(path)?;
            let file_edition = sheet
                .edition
                .as_deref()
                .map(referee::parse_edition)
                .transpose()
                .map_err(|e| anyhow!(Source::File.message(&e)))?;
            if let (Some(f), Some(e)) = (flag_edition, file_edition)
                && f != e
            {
                bail!(
                    "--edition {} contradicts edition = {:?} in {}: give the edition once",
                    referee::edition_name(f),
                    referee::edition_name(e),
                    path.display()
                );
            }
            if let Some(f) = flag_edition {
                sheet.edition = Some(referee::edition_name(f).to_owned());
            }
            Ok((sheet, Source::File))
        }
        None => {
            let f = &args.flags;
            let sheet = TurnSheet {
                comment: None,
                edition: flag_edition.map(|e| referee::edition_name(e).to_owned()),
                yojimbo: args.yojimbo.clone(),
                a: side_from_flags(
                    Side::A,
                    [
                        &f.a_name,
                        &f.a_energy,
                        &f.a_stance,
                        &f.a_move,
                        &f.a_disadvantage,
                        &f.a_combo,
                        &f.a_follow_ups,
                        &f.a_special,
                        &f.a_copy_of,
                    ],
                )?,
                b: side_from_flags(
                    Side::B,
                    [
                        &f.b_name,
                        &f.b_energy,
                        &f.b_stance,
                        &f.b_move,
                        &f.b_disadvantage,
                        &f.b_combo,
                        &f.b_follow_ups,
                        &f.b_special,
                        &f.b_copy_of,
                    ],
                )?,
            };
            Ok((sheet, Source::Flags))
        }
    }
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
        ("--a-copy-of", args.flags.a_copy_of.is_some()),
        ("--b-name", args.flags.b_name.is_some()),
        ("--b-energy", args.flags.b_energy.is_some()),
        ("--b-stance", args.flags.b_stance.is_some()),
        ("--b-move", args.flags.b_move.is_some()),
        ("--b-disadvantage", args.flags.b_disadvantage.is_some()),
        ("--b-combo", args.flags.b_combo.is_some()),
        ("--b-follow-ups", args.flags.b_follow_ups.is_some()),
        ("--b-special", args.flags.b_special.is_some()),
        ("--b-copy-of", args.flags.b_copy_of.is_some()),
        ("--yojimbo", args.yojimbo.is_some()),
    ]
    .into_iter()
    .find(|(_, given)| *given)
    .map(|(flag, _)| flag)
}

fn read_file(path: &Path) -> anyhow::Result<TurnSheet> {
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
fn from_json(text: &str, shown: &str) -> anyhow::Result<TurnSheet> {
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

/// The flags of one side, in the order name, energy, stance, move, disadvantage, combo,
/// follow-ups, special, copy of.
fn side_from_flags(who: Side, flags: [&Option<String>; 9]) -> anyhow::Result<SideSheet> {
    let [name, energy, stance, play, disadvantage, combo, follow_ups, special, copy_of] = flags;
    let play = play.clone().ok_or_else(|| {
        anyhow!(
            "{} is missing: give both moves (or \"surrender\"), or use --input FILE",
            Field::Side(who, "move").flag()
        )
    })?;
    let energy = match energy {
        None => None,
        Some(text) => Some(parse_energy_flag(text).map_err(|e| {
            anyhow!("{}: {e} (write the current ○,▨,◆ energy, e.g. 3,4,5)", Field::Side(who, "energy").flag())
        })?),
    };
    Ok(SideSheet {
        name: name.clone(),
        energy,
        stance: stance.clone(),
        play,
        disadvantage: split_list(disadvantage),
        combo: split_list(combo),
        follow_ups: split_list(follow_ups),
        special: special.clone(),
        copy_of: copy_of.clone(),
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

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

/// The plain-text rendering of a [`Report`].
struct Text<'a>(&'a Report);

impl Deref for Text<'_> {
    type Target = Report;

    fn deref(&self) -> &Report {
        self.0
    }
}

impl Text<'_> {
    fn fighter(&self, who: Side) -> &FighterReport {
        match who {
            Side::A => &self.a,
            Side::B => &self.b,
        }
    }

    /// Whether a special changed a loss, who spreads one, or added a loss or a gain.
    fn specials_change(&self) -> bool {
        self.specials.iter().any(|s| s.changed)
    }

    /// The plain-text output.
    fn text(&self) -> String {
        let mut out = String::new();
        for who in [Side::A, Side::B] {
            let _ = writeln!(out, "{}", self.fighter_line(who));
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", self.summary);
        let changed = self.specials_change();
        let before = if changed { " before specials" } else { "" };
        match self.outcome {
            "win" => {
                let w = if self.winner == Some("a") { Side::A } else { Side::B };
                let l = Side::from_index(1 - w.index());
                self.write_win_loss(&mut out, w, l, changed);
                let _ = writeln!(out, "{} loses nothing{before}.", self.fighter(w).name);
            }
            "tie" => {
                let _ = writeln!(
                    out,
                    "On a tie each loses the base of the other's move and nothing else: no stance, combo or disadvantage."
                );
                for who in [Side::A, Side::B] {
                    self.write_tie_loss(&mut out, who, changed);
                }
            }
            _ => {
                for who in [Side::A, Side::B] {
                    if self.fighter(who).surrendered {
                        let _ = writeln!(out, "{} leaves the conflict.", self.fighter(who).name);
                    }
                }
                let _ =
                    writeln!(out, "Nobody loses energy; no combo or disadvantage is started or extended.");
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
                let side = if c.side == "a" { Side::A } else { Side::B };
                let against = Side::from_index(1 - side.index());
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

    fn fighter_line(&self, who: Side) -> String {
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
        let _ = writeln!(out, "Specials, taking effect in list order:");
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
            (Side::A, &self.final_losses.a, self.spreaders.a),
            (Side::B, &self.final_losses.b, self.spreaders.b),
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
                format!("{} chooses (Pressure Point)", self.fighter(Side::from_index(1 - who.index())).name)
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

    fn write_win_loss(&self, out: &mut String, w: Side, l: Side, before_specials: bool) {
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

    fn write_tie_loss(&self, out: &mut String, who: Side, before_specials: bool) {
        let f = self.fighter(who);
        let other = self.fighter(Side::from_index(1 - who.index()));
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
            "  {after}; the rest ({rest}) wipes it all out: {} is out of the conflict unless The Way of the Samurai is active",
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

fn join(cards: &[Move]) -> String {
    cards.iter().map(Move::to_string).collect::<Vec<_>>().join(", ")
}
