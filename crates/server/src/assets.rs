//! The browser table's files (`crates/server/web`), embedded in the binary: no Node, no CDN
//! and no other host at run time. `/` is the home page, `/t/{table}` the table page, and the
//! rest are under `/assets/`.
//!
//! For work on the pages, `FACEDOWN_WEB_DIR=crates/server/web` makes the server read them
//! from that folder on each request instead (a page reloaded shows an edit at once); the
//! binary's own files are used otherwise.

use std::borrow::Cow;
use std::path::{Component, Path};

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The files of `crates/server/web`, but its Node tests and the font's build files (its
/// licence is served beside it).
#[derive(rust_embed::Embed)]
#[folder = "web/"]
#[exclude = "test/*"]
#[exclude = "fonts/*.sh"]
#[exclude = "fonts/*.md"]
#[exclude = "fonts/extra-chars.txt"]
struct Web;

/// The environment variable naming a folder to serve the pages from instead (development).
pub const WEB_DIR_VAR: &str = "FACEDOWN_WEB_DIR";

/// The largest file read from [`WEB_DIR_VAR`]'s folder.
const MAX_DEV_FILE: u64 = 4 << 20;

/// The content type of a file, by its extension.
fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("woff2") => "font/woff2",
        Some("txt" | "md") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The bytes of the page file at `path` (relative to the web folder), if there is one.
pub fn file(path: &str) -> Option<Cow<'static, [u8]>> {
    // The embedded set leaves these out by the patterns above; a folder served instead does too.
    let build_file =
        path.starts_with("fonts/") && !path.ends_with(".woff2") && !path.starts_with("fonts/LICENSE");
    if path.starts_with("test/") || build_file {
        return None;
    }
    if let Some(dir) = std::env::var_os(WEB_DIR_VAR) {
        let rel = Path::new(path);
        // Only plain names under the folder: no `..`, no root, no drive.
        if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            return None;
        }
        let full = Path::new(&dir).join(rel);
        let meta = std::fs::metadata(&full).ok()?;
        if !meta.is_file() || meta.len() > MAX_DEV_FILE {
            return None;
        }
        return std::fs::read(full).ok().map(Cow::Owned);
    }
    Web::get(path).map(|f| f.data)
}

/// Every embedded file's path (for the tests: sizes, symbols, links).
pub fn paths() -> impl Iterator<Item = Cow<'static, str>> {
    Web::iter()
}

/// The response serving the file at `path`, or 404.
pub fn serve(path: &str) -> Response {
    match file(path) {
        Some(bytes) => {
            let mut response = bytes.into_owned().into_response();
            response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type(path)));
            response
        }
        None => (StatusCode::NOT_FOUND, "no such file\n").into_response(),
    }
}

/// The version of the cards the server draws: the first 12 hex digits of SHA-256 over every
/// card of every system, the backs and the font. A card's URL holds it
/// (`/cards/{version}/{key}.svg`), so a card is cached as immutable and a new drawing gets a
/// new URL.
pub fn cards_version() -> &'static str {
    use sha2::{Digest, Sha256};
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| {
        let mut hash = Sha256::new();
        for system in cards::System::ALL {
            for card in cards::deck(system, &cards::intents::Intents::default())
                .iter()
                .chain(&cards::reference_cards(system))
            {
                hash.update(cards::render(card).as_bytes());
            }
            hash.update(cards::render_back(system).as_bytes());
        }
        hash.update(cards::font::WOFF2);
        hex::encode(&hash.finalize()[..6])
    })
}

/// What the page needs to ask for cards: the version and each system's card keys (its deck,
/// its reference cards, its back). Not cached: it names the current version.
pub fn cards_manifest() -> serde_json::Value {
    let systems: serde_json::Map<String, serde_json::Value> = cards::System::ALL
        .into_iter()
        .map(|system| {
            let keys: Vec<String> = cards::deck(system, &cards::intents::Intents::default())
                .into_iter()
                .chain(cards::reference_cards(system))
                .map(|c| c.key)
                .collect();
            (
                system.cli_name().to_owned(),
                serde_json::json!({ "cards": keys, "back": format!("{}-back", system.prefix()) }),
            )
        })
        .collect();
    serde_json::json!({
        "version": cards_version(),
        "base": format!("/cards/{}/", cards_version()),
        "font": format!("/cards/{}/font.woff2", cards_version()),
        "systems": systems,
    })
}

/// A card's SVG by key (`it-move-grapple-earth.svg`, `nd-back.svg`) or the cards' font
/// (`font.woff2`), of the current [`cards_version`], cached by the browser as immutable; 404
/// for another version or an unknown card.
pub fn serve_card(version: &str, file: &str) -> Response {
    if version != cards_version() {
        return (StatusCode::NOT_FOUND, "no such version of the cards\n").into_response();
    }
    let (body, kind): (Vec<u8>, &'static str) = if file == "font.woff2" {
        (cards::font::WOFF2.to_vec(), "font/woff2")
    } else if let Some(key) = file.strip_suffix(".svg") {
        let back = cards::System::ALL.into_iter().find(|s| key == format!("{}-back", s.prefix()));
        let svg = match back {
            Some(system) => cards::render_back(system),
            None => match cards::card(key) {
                Ok(card) => cards::render(&card),
                Err(_) => return (StatusCode::NOT_FOUND, "no such card\n").into_response(),
            },
        };
        (svg.into_bytes(), "image/svg+xml")
    } else {
        return (StatusCode::NOT_FOUND, "no such card\n").into_response();
    };
    let mut response = body.into_response();
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=31536000, immutable"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pages_are_embedded_with_their_types() {
        assert!(file("index.html").is_some(), "the home page is embedded");
        assert!(file("table.html").is_some(), "the table page is embedded");
        assert_eq!(content_type("js/table.js"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("fonts/symbols.woff2"), "font/woff2");
        assert!(file("test/anything.mjs").is_none(), "the Node tests are not served");
        assert!(paths().all(|p| !p.starts_with("test/")));
        assert!(file("fonts/symbols.woff2").is_some(), "the symbol font is embedded");
        assert!(file("fonts/LICENSE-DejaVu.txt").is_some(), "with its licence");
        assert!(file("fonts/subset.sh").is_none(), "not the script that made it");
    }
}
