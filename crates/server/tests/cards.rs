//! The cards the page shows (issue 34): each card's SVG from the one card renderer, by key,
//! under a URL holding the cards' version so the browser caches it as immutable; the manifest
//! that names the version and every system's keys; the cards' font.

use std::path::Path;

use server::{Config, Running};

async fn start() -> (tempfile::TempDir, Running) {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Config::new(Path::new(dir.path()).join("c.db"));
    c.listen = "127.0.0.1:0".parse().unwrap();
    let server = server::start(c).await.unwrap();
    (dir, server)
}

/// A GET: status, the headers (lower-case names) and the body.
async fn get(url: String) -> (u16, Vec<(String, String)>, Vec<u8>) {
    tokio::task::spawn_blocking(move || {
        let agent = ureq::Agent::config_builder().http_status_as_error(false).build().new_agent();
        let mut response = agent.get(&url).call().unwrap();
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
            .collect();
        let body = response.body_mut().read_to_vec().unwrap();
        (status, headers, body)
    })
    .await
    .unwrap()
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cards_are_served_by_key_as_immutable_svg_of_the_current_version() {
    let (_dir, server) = start().await;
    let base = server.base_url.clone();
    let (status, headers, body) = get(format!("{base}/cards/manifest.json")).await;
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "cache-control"), Some("no-store"), "the manifest names the current version");
    let manifest: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let version = manifest["version"].as_str().unwrap().to_owned();
    for system in ["iron-triangle", "nodice", "inciting-incident"] {
        let keys = manifest["systems"][system]["cards"].as_array().unwrap();
        assert!(!keys.is_empty(), "{system}");
        let back = manifest["systems"][system]["back"].as_str().unwrap();
        for key in keys.iter().map(|k| k.as_str().unwrap()).take(3).chain([back]) {
            let (status, headers, body) = get(format!("{base}/cards/{version}/{key}.svg")).await;
            assert_eq!(status, 200, "{key}");
            assert_eq!(header(&headers, "content-type"), Some("image/svg+xml"), "{key}");
            assert_eq!(
                header(&headers, "cache-control"),
                Some("public, max-age=31536000, immutable"),
                "{key}"
            );
            assert!(header(&headers, "content-security-policy").is_some());
            let svg = String::from_utf8(body).unwrap();
            assert!(svg.starts_with("<svg") && svg.contains(&format!("data-card=\"{key}\"")), "{key}: {svg}");
        }
    }
    let (status, headers, body) = get(format!("{base}/cards/{version}/font.woff2")).await;
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "content-type"), Some("font/woff2"));
    assert_eq!(&body[..4], b"wOF2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_cards_and_old_versions_are_not_found() {
    let (_dir, server) = start().await;
    let base = server.base_url.clone();
    let version = server::assets::cards_version();
    for path in [
        format!("/cards/{version}/it-move-defend-heaven.svg"),
        format!("/cards/{version}/nothing"),
        format!("/cards/{version}/nd-bid-101.svg"),
        "/cards/000000000000/it-surrender.svg".to_owned(),
    ] {
        let (status, headers, _) = get(format!("{base}{path}")).await;
        assert_eq!(status, 404, "{path}");
        assert_eq!(header(&headers, "cache-control"), Some("no-store"), "{path}: a miss is not cached");
    }
    let (status, _, _) = get(format!("{base}/cards/{version}/nd-bid-42.svg")).await;
    assert_eq!(status, 200, "any bid up to the largest Attribute value");
}
