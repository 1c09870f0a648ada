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
