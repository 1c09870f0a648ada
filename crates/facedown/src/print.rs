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
    /// Iron Triangle: the campaign file to take the character from (with --character), instead
    /// of a sheet file.
    #[arg(long, requires = "character")]
    pub campaign: Option<PathBuf>,
    /// Iron Triangle: the campaign character (a player character, or else an NPC) to print.
    #[arg(long, requires = "campaign")]
    pub character: Option<String>,
}

/// A character of an Iron Triangle campaign: a player character's whole sheet, or an NPC's.
enum FromCampaign {
    Pc(Box<iron_triangle::campaign::Sheet>),
    Npc(Box<iron_triangle::Character>),
}

impl FromCampaign {
    fn character(&self) -> &iron_triangle::Character {
        match self {
            FromCampaign::Pc(s) => &s.character,
            FromCampaign::Npc(c) => c,
        }
    }
}

fn from_campaign(db: &std::path::Path, name: &str) -> anyhow::Result<FromCampaign> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the runtime of the campaign store")?;
    rt.block_on(async {
        if !db.exists() {
            bail!("there is no campaign {}", db.display());
        }
        let store = campaign::Store::open(db)
            .await
            .with_context(|| format!("cannot open the campaign {}", db.display()))?;
        let found = match store.pc(name).await {
            Ok(sheet) => Ok(FromCampaign::Pc(Box::new(sheet))),
            Err(_) => match store.npc(name).await {
                Ok(c) => Ok(FromCampaign::Npc(Box::new(c))),
                Err(_) => Err(anyhow::anyhow!("the campaign {} has no character {name:?}", db.display())),
            },
        };
        store.close().await;
        found
    })
}

/// "1 card", "44 cards".
fn counted(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// A sheet or intents file, at most [`crate::input::TEXT_LIMIT`] bytes.
fn read(path: &std::path::Path) -> anyhow::Result<String> {
    crate::input::read_bounded(path, crate::input::TEXT_LIMIT)
        .with_context(|| format!("cannot read {}", path.display()))
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
    if let (Some(db), Some(name)) = (&args.campaign, &args.character) {
        if system != System::IronTriangle {
            bail!("--campaign: campaigns hold Iron Triangle characters only");
        }
        if args.file.is_some() {
            bail!("give a sheet file or --campaign, not both");
        }
        let found = from_campaign(db, name)?;
        let (pages, count) = match args.what {
            What::Cards => {
                let cards = cards::iron_triangle::hand(found.character());
                let title = format!("{}'s hand", found.character().name);
                (card_pages(&cards, paper, args.backs, &title), counted(cards.len(), "card"))
            }
            What::Sheet => {
                let doc = match &found {
                    FromCampaign::Pc(sheet) => cards::sheet::iron_triangle_campaign_sheet(sheet),
                    FromCampaign::Npc(c) => cards::sheet::iron_triangle_sheet(c),
                };
                (sheet_pages(&doc, paper), "1 character sheet".to_owned())
            }
            What::Reference => bail!("reference takes no character"),
        };
        return write(&args, pdf, &out, paper, pages, &count);
    }
    let (pages, count): (Vec<Page>, String) = match (args.what, &args.file) {
        (What::Cards, None) => {
            let cards = deck(system, &intents);
            (card_pages(&cards, paper, args.backs, &title), counted(cards.len(), "card"))
        }
        (What::Cards, Some(path)) if system == System::IronTriangle => {
            let text = read(path)?;
            let character: iron_triangle::Character =
                toml::from_str(&text).with_context(|| format!("{}", path.display()))?;
            let cards = cards::iron_triangle::hand(&character);
            let title = format!("{}'s hand", character.name);
            (card_pages(&cards, paper, args.backs, &title), counted(cards.len(), "card"))
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
            (pages, counted(docs.len(), "character sheet"))
        }
        (What::Reference, Some(_)) => bail!("reference takes no file"),
        (What::Reference, None) => {
            let cards = reference_cards(system);
            (card_pages(&cards, paper, args.backs, &title), counted(cards.len(), "reference card"))
        }
    };
    write(&args, pdf, &out, paper, pages, &count)
}

/// Writes the pages as one PDF or as SVG files, and says what it wrote.
fn write(
    args: &Args,
    pdf: bool,
    out: &str,
    paper: Paper,
    pages: Vec<Page>,
    count: &str,
) -> anyhow::Result<ExitCode> {
    let n = pages.len();
    let written = if pdf {
        std::fs::write(&args.output, to_pdf(&pages)?).with_context(|| format!("cannot write {out}"))?;
        vec![out.to_owned()]
    } else {
        let mut names = Vec::new();
        for (name, svg) in svg_files(&pages, out) {
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
