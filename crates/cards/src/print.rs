//! Print sheets (issue 34 §3): cards at poker size, nine to an A4 or US Letter page with cut
//! marks, optional backs for double-sided printing, character sheet pages, and one PDF of the
//! pages — each page the SVG a browser would show, turned into PDF by svg2pdf with the
//! vendored font embedded.

use std::fmt::Write;
use std::str::FromStr;

use crate::svg::{Anchor, FONT_FAMILY, Svg, num, wrap};
use crate::{CARD_HEIGHT_MM, CARD_WIDTH_MM, Card, CardError, System, UNITS_PER_MM, back, face};

/// Cards on a page: three columns, three rows.
pub const CARDS_PER_PAGE: usize = 9;
const COLUMNS: usize = 3;
/// How far cut marks reach out from the cards, in millimetres.
const MARK_LEN: f64 = 6.0;
/// The gap between a cut mark and the cards.
const MARK_GAP: f64 = 1.5;

/// A paper size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Paper {
    /// ISO A4, 210 × 297 mm.
    #[default]
    A4,
    /// US Letter, 8½ × 11 in (215.9 × 279.4 mm).
    Letter,
}

impl Paper {
    /// Width and height in millimetres.
    pub fn size_mm(self) -> (f64, f64) {
        match self {
            Paper::A4 => (210.0, 297.0),
            Paper::Letter => (215.9, 279.4),
        }
    }
}

impl FromStr for Paper {
    type Err = CardError;
    fn from_str(s: &str) -> Result<Paper, CardError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "a4" => Ok(Paper::A4),
            "letter" | "us-letter" => Ok(Paper::Letter),
            _ => Err(CardError::Input {
                what: "--paper".to_owned(),
                message: format!("{s:?} is not a paper size (a4 or letter)"),
            }),
        }
    }
}

/// One printed page: its size and its drawing, in millimetres.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Width in millimetres.
    pub width_mm: f64,
    /// Height in millimetres.
    pub height_mm: f64,
    /// The drawing (SVG elements, one user unit a millimetre).
    pub body: String,
}

impl Page {
    /// The page as a standalone SVG document.
    pub fn to_svg(&self) -> String {
        format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" viewBox="0 0 {w} {h}" font-family="{FONT_FAMILY}"><rect width="{w}" height="{h}" fill="#ffffff"/>{}</svg>"##,
            self.body,
            w = num(self.width_mm),
            h = num(self.height_mm),
        )
    }
}

fn grid_origin(paper: Paper) -> (f64, f64) {
    let (pw, ph) = paper.size_mm();
    ((pw - CARD_WIDTH_MM * COLUMNS as f64) / 2.0, (ph - CARD_HEIGHT_MM * 3.0) / 2.0)
}

fn nested(x: f64, y: f64, inner: &str) -> String {
    format!(
        r#"<svg x="{}" y="{}" width="{}" height="{}" viewBox="0 0 {} {}">{inner}</svg>"#,
        num(x),
        num(y),
        num(CARD_WIDTH_MM),
        num(CARD_HEIGHT_MM),
        num(CARD_WIDTH_MM * UNITS_PER_MM),
        num(CARD_HEIGHT_MM * UNITS_PER_MM)
    )
}

/// Cut marks at every card edge, outside the block of cards, so cutting along them leaves no
/// mark on a card.
fn cut_marks(paper: Paper, rows: usize) -> String {
    let (x0, y0) = grid_origin(paper);
    let (x1, y1) = (x0 + CARD_WIDTH_MM * COLUMNS as f64, y0 + CARD_HEIGHT_MM * rows as f64);
    let mut s = Svg::new();
    for i in 0..=COLUMNS {
        let x = x0 + CARD_WIDTH_MM * i as f64;
        s.line(x, y0 - MARK_GAP - MARK_LEN, x, y0 - MARK_GAP, "#000000", 0.2);
        s.line(x, y1 + MARK_GAP, x, y1 + MARK_GAP + MARK_LEN, "#000000", 0.2);
    }
    for j in 0..=rows {
        let y = y0 + CARD_HEIGHT_MM * j as f64;
        s.line(x0 - MARK_GAP - MARK_LEN, y, x0 - MARK_GAP, y, "#000000", 0.2);
        s.line(x1 + MARK_GAP, y, x1 + MARK_GAP + MARK_LEN, y, "#000000", 0.2);
    }
    s.finish()
}

fn footer(paper: Paper, text: &str) -> String {
    let (pw, ph) = paper.size_mm();
    let mut s = Svg::new();
    s.text(pw / 2.0, ph - 4.0, 2.6, Anchor::Middle, "#6b6b6b", false, text);
    s.finish()
}

/// Cards nine to a page with cut marks. With `backs`, each page of faces is followed by a page
/// of its system's backs, mirrored left to right so that they fall behind their faces when
/// printed double-sided and flipped on the long edge.
pub fn card_pages(cards: &[Card], paper: Paper, backs: bool, title: &str) -> Vec<Page> {
    let (pw, ph) = paper.size_mm();
    let (x0, y0) = grid_origin(paper);
    let chunks: Vec<&[Card]> = cards.chunks(CARDS_PER_PAGE).collect();
    let sheets = chunks.len();
    let mut pages = Vec::new();
    for (n, chunk) in chunks.into_iter().enumerate() {
        let rows = chunk.len().div_ceil(COLUMNS);
        let mut body = String::new();
        for (i, card) in chunk.iter().enumerate() {
            let (r, c) = (i / COLUMNS, i % COLUMNS);
            body.push_str(&nested(
                x0 + CARD_WIDTH_MM * c as f64,
                y0 + CARD_HEIGHT_MM * r as f64,
                &face(card),
            ));
        }
        body.push_str(&cut_marks(paper, rows));
        body.push_str(&footer(paper, &format!("{title} · sheet {} of {sheets} · faces", n + 1)));
        pages.push(Page { width_mm: pw, height_mm: ph, body });
        if backs {
            let mut body = String::new();
            for (i, card) in chunk.iter().enumerate() {
                let (r, c) = (i / COLUMNS, COLUMNS - 1 - i % COLUMNS);
                let (x, y) = (x0 + CARD_WIDTH_MM * c as f64, y0 + CARD_HEIGHT_MM * r as f64);
                // Bleed: the back's colour to the cut, so a back printed a little off still
                // covers its card.
                let mut bleed = Svg::new();
                bleed.rect(x, y, CARD_WIDTH_MM, CARD_HEIGHT_MM, 0.0, card.system.colour(), "none", 0.0);
                body.push_str(&bleed.finish());
                body.push_str(&nested(
                    x0 + CARD_WIDTH_MM * c as f64,
                    y0 + CARD_HEIGHT_MM * r as f64,
                    &back(card.system),
                ));
            }
            body.push_str(&cut_marks(paper, rows));
            body.push_str(&footer(paper, &format!("{title} · sheet {} of {sheets} · backs", n + 1)));
            pages.push(Page { width_mm: pw, height_mm: ph, body });
        }
    }
    pages
}

/// A character sheet as data: a title, a line under it, and sections of label–value rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SheetDoc {
    /// The system.
    pub system: System,
    /// The character's name.
    pub title: String,
    /// The line under it.
    pub subtitle: String,
    /// The sections.
    pub sections: Vec<Section>,
}

/// One section of a sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Its heading.
    pub heading: String,
    /// Its rows: a label and a value (an empty label for running text).
    pub rows: Vec<(String, String)>,
}

/// A character sheet on as many pages as it needs.
pub fn sheet_pages(doc: &SheetDoc, paper: Paper) -> Vec<Page> {
    let (pw, ph) = paper.size_mm();
    let margin = 18.0;
    let colour = doc.system.colour();
    let mut pages = Vec::new();
    let mut s = Svg::new();
    let start = |s: &mut Svg, first: bool| -> f64 {
        s.rect(margin, margin - 6.0, pw - 2.0 * margin, 1.2, 0.0, colour, "none", 0.0);
        if first {
            s.text(margin, margin + 10.0, 10.0, Anchor::Start, "#1b1b1b", true, &doc.title);
            s.text(margin, margin + 17.0, 4.0, Anchor::Start, "#444444", false, &doc.subtitle);
            margin + 28.0
        } else {
            s.text(
                margin,
                margin + 4.0,
                4.0,
                Anchor::Start,
                "#444444",
                false,
                &format!("{} (continued)", doc.title),
            );
            margin + 12.0
        }
    };
    let mut y = start(&mut s, true);
    let label_w = 44.0;
    let size = 3.6;
    let chars = |w: f64| (w / (size * 0.5)) as usize;
    for section in &doc.sections {
        if y > ph - margin - 20.0 {
            pages.push(std::mem::take(&mut s));
            y = start(&mut s, false);
        }
        s.text(margin, y, 5.0, Anchor::Start, colour, true, &section.heading);
        s.line(margin, y + 1.5, pw - margin, y + 1.5, colour, 0.3);
        y += 8.0;
        for (label, value) in &section.rows {
            let (x, width) = if label.is_empty() {
                (margin, pw - 2.0 * margin)
            } else {
                (margin + label_w, pw - 2.0 * margin - label_w)
            };
            let lines = wrap(value, chars(width));
            let lines = if lines.is_empty() { vec![String::new()] } else { lines };
            if y + lines.len() as f64 * size * 1.35 > ph - margin {
                pages.push(std::mem::take(&mut s));
                y = start(&mut s, false);
            }
            if !label.is_empty() {
                s.text(margin, y, size, Anchor::Start, "#444444", true, label);
            }
            for line in lines {
                s.text(x, y, size, Anchor::Start, "#1b1b1b", false, &line);
                y += size * 1.35;
            }
            y += 1.0;
        }
        y += 5.0;
    }
    pages.push(s);
    let total = pages.len();
    pages
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let mut body = s.finish();
            body.push_str(&footer(
                paper,
                &format!("{} · {} · page {} of {total}", doc.system.title(), doc.title, i + 1),
            ));
            Page { width_mm: pw, height_mm: ph, body }
        })
        .collect()
}

impl Page {
    /// The page as a standalone SVG document that carries its font (the WOFF2 as a `data:`
    /// URL), so it looks the same opened anywhere: what `facedown print … -o OUT.svg` writes.
    pub fn to_svg_with_font(&self) -> String {
        use base64::Engine as _;
        let font = base64::engine::general_purpose::STANDARD.encode(crate::font::WOFF2);
        let style = format!(
            r#"<defs><style>@font-face {{ font-family: "{}"; src: url(data:font/woff2;base64,{font}) format("woff2"); }}</style></defs>"#,
            crate::font::FAMILY
        );
        let svg = self.to_svg();
        match svg.find('>') {
            Some(i) => format!("{}{style}{}", &svg[..=i], &svg[i + 1..]),
            None => svg,
        }
    }
}

/// Writes the pages' SVG, each carrying its font: one page as is; several as numbered files
/// `stem-1.svg`, `stem-2.svg`… (SVG has no pages). Returns the names to write and their
/// contents.
pub fn svg_files(pages: &[Page], path: &str) -> Vec<(String, String)> {
    if pages.len() == 1 {
        return vec![(path.to_owned(), pages[0].to_svg_with_font())];
    }
    let stem = path.strip_suffix(".svg").unwrap_or(path);
    pages.iter().enumerate().map(|(i, p)| (format!("{stem}-{}.svg", i + 1), p.to_svg_with_font())).collect()
}

/// A short description of a page list, for the CLI: "3 pages (A4)".
pub fn describe(pages: &[Page]) -> String {
    let mut s = String::new();
    let _ = write!(s, "{} page{}", pages.len(), if pages.len() == 1 { "" } else { "s" });
    s
}

#[cfg(feature = "pdf")]
pub use pdf::to_pdf;

#[cfg(feature = "pdf")]
mod pdf {
    use std::collections::HashMap;
    use std::sync::Arc;

    use pdf_writer::{Content, Finish, Name, Pdf, Rect, Ref};
    use svg2pdf::usvg;

    use super::Page;
    use crate::{CardError, font};

    /// The options usvg reads the pages with: the vendored font and nothing else, so a PDF is the
    /// same on every machine.
    fn usvg_options() -> usvg::Options<'static> {
        let mut options = usvg::Options { font_family: font::FAMILY.to_owned(), ..usvg::Options::default() };
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(font::TTF.to_vec());
        db.set_sans_serif_family(font::FAMILY);
        options.fontdb = Arc::new(db);
        options
    }

    /// The pages as one PDF, each page its SVG converted by svg2pdf, the font embedded (as text:
    /// it can be searched and copied).
    pub fn to_pdf(pages: &[Page]) -> Result<Vec<u8>, CardError> {
        let options = usvg_options();
        let mut alloc = Ref::new(1);
        let catalog_id = alloc.bump();
        let tree_id = alloc.bump();
        let mut pdf = Pdf::new();
        let mut page_ids = Vec::new();
        for page in pages {
            let tree =
                usvg::Tree::from_str(&page.to_svg(), &options).map_err(|e| CardError::Pdf(e.to_string()))?;
            let (chunk, svg_id) = svg2pdf::to_chunk(&tree, svg2pdf::ConversionOptions::default())
                .map_err(|e| CardError::Pdf(e.to_string()))?;
            let mut map = HashMap::new();
            let chunk = chunk.renumber(|old| *map.entry(old).or_insert_with(|| alloc.bump()));
            let svg_id = map[&svg_id];
            let page_id = alloc.bump();
            let content_id = alloc.bump();
            let (w, h) = (page.width_mm * 72.0 / 25.4, page.height_mm * 72.0 / 25.4);
            let name = Name(b"S1");
            let mut p = pdf.page(page_id);
            p.media_box(Rect::new(0.0, 0.0, w as f32, h as f32));
            p.parent(tree_id);
            p.contents(content_id);
            p.resources().x_objects().pair(name, svg_id);
            p.finish();
            let mut content = Content::new();
            content.transform([w as f32, 0.0, 0.0, h as f32, 0.0, 0.0]).x_object(name);
            pdf.stream(content_id, &content.finish());
            pdf.extend(&chunk);
            page_ids.push(page_id);
        }
        pdf.catalog(catalog_id).pages(tree_id);
        let count = i32::try_from(page_ids.len()).map_err(|_| CardError::Pdf("too many pages".to_owned()))?;
        pdf.pages(tree_id).kids(page_ids).count(count);
        let info = alloc.bump();
        pdf.document_info(info).producer(pdf_writer::TextStr("facedown"));
        Ok(pdf.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deck;
    use crate::intents::Intents;
    #[cfg(feature = "pdf")]
    use svg2pdf::usvg;

    #[cfg(feature = "pdf")]
    fn pdf_pages(pdf: &[u8]) -> usize {
        // Count "/Type /Page" objects, not "/Type /Pages".
        let text = String::from_utf8_lossy(pdf);
        text.matches("/Type /Page").count() - text.matches("/Type /Pages").count()
    }

    #[test]
    fn nine_cards_to_a_page_with_backs_after_each() {
        let cards = deck(System::IronTriangle, &Intents::default());
        let pages = card_pages(&cards, Paper::A4, false, "t");
        assert_eq!(pages.len(), cards.len().div_ceil(CARDS_PER_PAGE));
        let with_backs = card_pages(&cards, Paper::A4, true, "t");
        assert_eq!(with_backs.len(), 2 * pages.len());
        assert!(with_backs[1].body.contains("backs"));
    }

    #[test]
    fn backs_are_mirrored_for_long_edge_duplex() {
        let cards = deck(System::Nodice, &Intents::default());
        let pages = card_pages(&cards[..1], Paper::A4, true, "t");
        let (x0, _) = grid_origin(Paper::A4);
        let face_x = format!(r#"<svg x="{}""#, num(x0));
        let back_x = format!(r#"<svg x="{}""#, num(x0 + 2.0 * CARD_WIDTH_MM));
        assert!(pages[0].body.contains(&face_x));
        assert!(pages[1].body.contains(&back_x), "{}", pages[1].body);
    }

    #[test]
    fn cards_are_poker_size_and_fit_both_papers_with_their_cut_marks() {
        for paper in [Paper::A4, Paper::Letter] {
            let (pw, ph) = paper.size_mm();
            let (x0, y0) = grid_origin(paper);
            assert!(x0 - MARK_GAP - MARK_LEN >= 0.0 && y0 - MARK_GAP - MARK_LEN >= 0.0, "{paper:?}");
            assert!(
                (pw - 2.0 * x0 - 3.0 * CARD_WIDTH_MM).abs() < 1e-9
                    && (ph - 2.0 * y0 - 3.0 * CARD_HEIGHT_MM).abs() < 1e-9
            );
        }
        let page =
            &card_pages(&deck(System::IronTriangle, &Intents::default()), Paper::Letter, false, "t")[0];
        assert!(page.to_svg().contains(r#"width="215.9mm" height="279.4mm""#));
        assert!(page.body.contains(r#"width="63" height="88""#));
    }

    #[cfg(feature = "pdf")]
    #[test]
    fn the_pdf_has_one_page_per_svg_page_and_the_same_bytes_each_time() {
        let cards = deck(System::IncitingIncident, &Intents::default());
        let pages = card_pages(&cards, Paper::A4, true, "t");
        let a = to_pdf(&pages).unwrap();
        assert!(a.starts_with(b"%PDF-"));
        assert_eq!(pdf_pages(&a), pages.len());
        assert_eq!(a, to_pdf(&pages).unwrap());
    }

    #[test]
    fn a_printed_svg_page_carries_its_font() {
        let pages = card_pages(&deck(System::Nodice, &Intents::default())[..2], Paper::A4, false, "t");
        let files = svg_files(&pages, "out.svg");
        assert_eq!(files.len(), 1);
        let svg = &files[0].1;
        assert!(svg.starts_with("<svg "));
        assert!(
            svg.contains("@font-face") && svg.contains("data:font/woff2;base64,d09GMg"),
            "the WOFF2 inside"
        );
        assert!(svg.ends_with("</svg>"));
    }

    #[cfg(feature = "pdf")]
    proptest::proptest! {
        /// Whatever a sheet file names its character and moves (quotes, markup, control and
        /// bidi characters), every card and sheet stays well-formed SVG that usvg reads.
        #[test]
        fn any_name_stays_text_on_cards_and_sheets(name in "(?s).{0,40}") {
            let options = usvg::Options::default();
            let mut card = crate::card("it-surrender").unwrap();
            card.name = name.clone();
            card.lines = vec![name.clone()];
            card.marks = vec![name.clone()];
            usvg::Tree::from_str(&crate::render(&card), &options).unwrap();
            let doc = SheetDoc {
                system: System::IronTriangle,
                title: name.clone(),
                subtitle: name.clone(),
                sections: vec![Section { heading: name.clone(), rows: vec![(name.clone(), name.clone())] }],
            };
            for page in sheet_pages(&doc, Paper::A4) {
                usvg::Tree::from_str(&page.to_svg(), &options).unwrap();
            }
        }
    }

    #[test]
    fn paper_sizes_read_by_name() {
        assert_eq!("letter".parse::<Paper>().unwrap(), Paper::Letter);
        assert_eq!("A4".parse::<Paper>().unwrap(), Paper::A4);
        let e = "legal".parse::<Paper>().unwrap_err().to_string();
        assert!(e.contains("--paper") && e.contains("legal"), "{e}");
    }

    #[test]
    fn a_long_sheet_continues_on_another_page() {
        let doc = SheetDoc {
            system: System::Nodice,
            title: "Long".into(),
            subtitle: "x".into(),
            sections: (0..40)
                .map(|i| Section { heading: format!("S{i}"), rows: vec![("a".into(), "b ".repeat(60))] })
                .collect(),
        };
        let pages = sheet_pages(&doc, Paper::A4);
        assert!(pages.len() > 1);
        assert!(pages[1].body.contains("Long (continued)"));
    }
}
