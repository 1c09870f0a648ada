//! `facedown print SYSTEM cards|sheet|reference [FILE] -o OUT.pdf|OUT.svg`: print-ready cards
//! (poker size, nine to a page, cut marks, optional backs), character sheets and reference
//! cards. A thin shell: the `cards` crate draws every page; this reads files and writes them.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use cards::intents::Intents;
use cards::print::{Page, Paper, card_pages, sheet_pages, svg_files, to_pdf};
use cards::{System, deck, reference_cards};

/// What to print.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// The system's cards (Iron Triangle: a character's hand, from its sheet file).
    Cards,
    /// Character sheets from a sheet file.
    Sheet,
    /// The system's reference cards.
    Reference,
}

/// Options of `facedown print`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The system: iron-triangle (it), nodice (nd) or inciting-incident (ii).
    pub system: String,
    /// What to print.
    #[arg(value_enum)]
    pub what: What,
    /// A sheet file (required for `sheet`; for Iron Triangle `cards`, that character's hand).
    pub file: Option<PathBuf>,
    /// Where to write: a .pdf, or a .svg (several pages: NAME-1.svg, NAME-2.svg, …).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Paper size: a4 or letter.
    #[arg(long, default_value = "a4")]
    pub paper: String,
    /// After each page of cards, a page of their backs, for double-sided printing (flip on the
    /// long edge).
    #[arg(long)]
    pub backs: bool,
    /// No Dice: a TOML file of intent tags for the Action cards (docs/print.md).
    #[arg(long)]
    pub intents: Option<PathBuf>,
}

fn read(path: &PathBuf) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

/// Runs `facedown print`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let system: System = args.system.parse()?;
    let paper: Paper = args.paper.parse()?;
    let out = args.output.to_string_lossy().into_owned();
    let pdf = if out.ends_with(".pdf") {
        true
    } else if out.ends_with(".svg") {
        false
    } else {
        bail!("-o {out}: write to a .pdf or a .svg file");
    };
    let intents = match &args.intents {
        Some(path) if system == System::Nodice => {
            Intents::from_toml(&read(path)?).with_context(|| format!("{}", path.display()))?
        }
        Some(_) => bail!("--intents is for No Dice's Action cards"),
        None => Intents::default(),
    };
    let title = format!(
        "{} {}",
        system.title(),
        match args.what {
            What::Cards => "cards",
            What::Sheet => "character sheet",
            What::Reference => "reference",
        }
    );
    let (pages, count): (Vec<Page>, String) = match (args.what, &args.file) {
        (What::Cards, None) => {
            let cards = deck(system, &intents);
            (card_pages(&cards, paper, args.backs, &title), format!("{} cards", cards.len()))
        }
        (What::Cards, Some(path)) if system == System::IronTriangle => {
            let text = read(path)?;
            let character: iron_triangle::Character =
                toml::from_str(&text).with_context(|| format!("{}", path.display()))?;
            let cards = cards::iron_triangle::hand(&character);
            let title = format!("{}'s hand", character.name);
            (card_pages(&cards, paper, args.backs, &title), format!("{} cards", cards.len()))
        }
        (What::Cards, Some(_)) => {
            bail!("cards from a sheet file (a character's hand) are Iron Triangle's only")
        }
        (What::Sheet, None) => {
            bail!("sheet needs a sheet file, e.g. facedown print {system} sheet FILE -o OUT.pdf")
        }
        (What::Sheet, Some(path)) => {
            let docs = cards::sheet::from_file(system, &path.display().to_string(), &read(path)?)?;
            let pages = docs.iter().flat_map(|d| sheet_pages(d, paper)).collect();
            (pages, format!("{} character sheet{}", docs.len(), if docs.len() == 1 { "" } else { "s" }))
        }
        (What::Reference, Some(_)) => bail!("reference takes no file"),
        (What::Reference, None) => {
            let cards = reference_cards(system);
            (card_pages(&cards, paper, args.backs, &title), format!("{} reference cards", cards.len()))
        }
    };
    let n = pages.len();
    let written = if pdf {
        std::fs::write(&args.output, to_pdf(&pages)?).with_context(|| format!("cannot write {out}"))?;
        vec![out]
    } else {
        let mut names = Vec::new();
        for (name, svg) in svg_files(&pages, &out) {
            std::fs::write(&name, svg).with_context(|| format!("cannot write {name}"))?;
            names.push(name);
        }
        names
    };
    println!(
        "{}: {count} on {n} page{} ({})",
        written.join(", "),
        if n == 1 { "" } else { "s" },
        if paper == Paper::A4 { "A4" } else { "US Letter" }
    );
    Ok(ExitCode::SUCCESS)
}
