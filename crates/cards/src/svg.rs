//! A tiny SVG writer: escaped text, fixed number formatting (the same card gives the same
//! bytes), and the word wrap the cards use.

use std::fmt::Write;

/// The font every card names first: the vendored subset of Noto (`crates/cards/fonts`).
pub const FONT_FAMILY: &str = "Facedown Cards, Noto Sans, sans-serif";

/// Escapes text for SVG/XML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters and U+FFFE, U+FFFF are not allowed in XML 1.0 (its `Char`
            // production): a sheet's text cannot smuggle them into a card.
            c if c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A number as SVG writes it: at most two decimals, no trailing zeros.
pub fn num(x: f64) -> String {
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".to_owned() } else { s.to_owned() }
}

/// An element being written into a buffer.
#[derive(Default)]
pub struct Svg {
    out: String,
}

/// Text anchors.
#[derive(Clone, Copy)]
pub enum Anchor {
    /// Left.
    Start,
    /// Centre.
    Middle,
    /// Right.
    End,
}

impl Anchor {
    fn attr(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

impl Svg {
    /// An empty buffer.
    pub fn new() -> Svg {
        Svg::default()
    }

    /// Raw markup (already escaped).
    pub fn raw(&mut self, markup: &str) -> &mut Svg {
        self.out.push_str(markup);
        self
    }

    /// A rectangle.
    #[allow(clippy::too_many_arguments)]
    pub fn rect(
        &mut self,
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        rx: f64,
        fill: &str,
        stroke: &str,
        sw: f64,
    ) -> &mut Svg {
        let _ = write!(
            self.out,
            r#"<rect x="{}" y="{}" width="{}" height="{}" rx="{}" fill="{fill}" stroke="{stroke}" stroke-width="{}"/>"#,
            num(x),
            num(y),
            num(w),
            num(h),
            num(rx),
            num(sw)
        );
        self
    }

    /// A line.
    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, sw: f64) -> &mut Svg {
        let _ = write!(
            self.out,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{stroke}" stroke-width="{}"/>"#,
            num(x1),
            num(y1),
            num(x2),
            num(y2),
            num(sw)
        );
        self
    }

    /// One line of text, escaped.
    #[allow(clippy::too_many_arguments)]
    pub fn text(
        &mut self,
        x: f64,
        y: f64,
        size: f64,
        anchor: Anchor,
        fill: &str,
        bold: bool,
        text: &str,
    ) -> &mut Svg {
        let weight = if bold { r#" font-weight="bold""# } else { "" };
        let _ = write!(
            self.out,
            r#"<text x="{}" y="{}" font-size="{}" text-anchor="{}" fill="{fill}"{weight}>{}</text>"#,
            num(x),
            num(y),
            num(size),
            anchor.attr(),
            escape(text)
        );
        self
    }

    /// The markup written so far.
    pub fn finish(self) -> String {
        self.out
    }
}

/// Wraps `text` into lines of at most `width` characters, breaking at spaces (a word longer
/// than a line is cut).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let mut word = word.to_owned();
        while word.chars().count() > width {
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            let head: String = word.chars().take(width).collect();
            word = word.chars().skip(width).collect();
            lines.push(head);
        }
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape(r#"<a href="x">&'"#), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
        assert_eq!(escape("a\u{7}b"), "a b");
        assert_eq!(escape("a\u{FFFF}b\u{FFFE}"), "a b ", "not XML characters");
    }

    #[test]
    fn numbers_have_one_spelling() {
        assert_eq!(num(1.0), "1");
        assert_eq!(num(1.5), "1.5");
        assert_eq!(num(1.234), "1.23");
        assert_eq!(num(-0.001), "0");
    }

    #[test]
    fn wrapping_breaks_at_spaces_and_cuts_long_words() {
        assert_eq!(wrap("one two three", 7), ["one two", "three"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert!(wrap("   ", 5).is_empty());
    }
}
