//! The browser table's server side: the embedded pages and their headers, the catalogue of
//! systems a home page creates tables from, a link's QR code, and ruleset options chosen by
//! name when a table is created. (The pages themselves are tested in a real browser by
//! crates/facedown/tests/browser.rs.)

use std::path::Path;

use serde_json::{Value, json};
use server::client::Client;
use server::protocol::{CreatedTable, ServerMessage};
use server::{Config, Running};

fn config(db: &Path) -> Config {
    let mut c = Config::new(db.to_path_buf());
    c.listen = "127.0.0.1:0".parse().unwrap();
    c
}

async fn start() -> (tempfile::TempDir, Running) {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(config(&dir.path().join("p.db"))).await.unwrap();
    (dir, server)
}

/// A GET: status, the headers (lower-case names) and the body as text.
async fn get(url: String) -> (u16, Vec<(String, String)>, String) {
    tokio::task::spawn_blocking(move || {
        let agent = ureq::Agent::config_builder().http_status_as_error(false).build().new_agent();
        let mut response = agent.get(&url).call().unwrap();
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
            .collect();
        let body = response.body_mut().read_to_string().unwrap();
        (status, headers, body)
    })
    .await
    .unwrap()
}

/// A POST of `body` with `content_type`: status and the body as text.
async fn post(url: String, content_type: &'static str, body: String) -> (u16, String) {
    tokio::task::spawn_blocking(move || {
        let agent = ureq::Agent::config_builder().http_status_as_error(false).build().new_agent();
        let mut response = agent.post(&url).header("content-type", content_type).send(body).unwrap();
        (response.status().as_u16(), response.body_mut().read_to_string().unwrap())
    })
    .await
    .unwrap()
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_are_served_from_the_binary_under_the_content_security_policy() {
    let (_dir, server) = start().await;
    let base = server.base_url.clone();
    for (path, kind) in [("/", "text/html"), ("/t/7", "text/html"), ("/assets/js/dom.js", "text/javascript")]
    {
        let (status, headers, body) = get(format!("{base}{path}")).await;
        assert_eq!(status, 200, "{path}");
        assert!(header(&headers, "content-type").unwrap().starts_with(kind), "{path}: {headers:?}");
        let csp = header(&headers, "content-security-policy").expect("every page has a CSP");
        assert!(csp.contains("default-src 'self'"), "{csp}");
        assert_eq!(header(&headers, "x-content-type-options"), Some("nosniff"));
        assert!(!body.contains("http://") || path.ends_with(".js"), "{path} names no other host");
    }
    // Only the web folder's own files: no way out of it, and its Node tests are not served.
    for path in [
        "/assets/../Cargo.toml",
        "/assets/%2e%2e/Cargo.toml",
        "/assets/test/fairness.test.mjs",
        "/assets/nothing.js",
    ] {
        assert_eq!(get(format!("{base}{path}")).await.0, 404, "{path}");
    }
    server.shutdown().await.unwrap();
}

/// A raw HTTP/1.1 GET of `path` with `accept_encoding`: the response's head (lower case) and
/// the length of its body as sent.
async fn raw_get(addr: std::net::SocketAddr, path: &str, accept_encoding: Option<&str>) -> (String, usize) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let accept = accept_encoding.map(|a| format!("Accept-Encoding: {a}\r\n")).unwrap_or_default();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{accept}Connection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut all = Vec::new();
    stream.read_to_end(&mut all).await.unwrap();
    let end = all.windows(4).position(|w| w == b"\r\n\r\n").expect("a response head") + 4;
    (String::from_utf8_lossy(&all[..end]).to_lowercase(), all.len() - end)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_are_gzipped_for_a_browser_that_accepts_it_and_the_api_never_is() {
    let (_dir, server) = start().await;
    let addr = server.addr;
    let size = server::assets::file("js/table.js").unwrap().len();
    let (head, sent) = raw_get(addr, "/assets/js/table.js", Some("gzip, deflate, br")).await;
    assert!(head.contains("content-encoding: gzip"), "{head}");
    assert!(head.contains("content-security-policy"), "{head}");
    assert!(sent * 2 < size, "{sent} bytes sent for a file of {size}");
    let (head, sent) = raw_get(addr, "/assets/js/table.js", None).await;
    assert!(!head.contains("content-encoding"), "{head}");
    assert!(sent >= size, "{sent} of {size}");
    // The API's answers hold secret links: never compressed (BREACH).
    let (head, _) = raw_get(addr, "/api/systems", Some("gzip")).await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(!head.contains("content-encoding"), "{head}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_catalogue_lists_every_systems_examples_seats_bots_and_ruleset_options() {
    let (_dir, server) = start().await;
    let (status, _, body) = get(format!("{}/api/systems", server.base_url)).await;
    assert_eq!(status, 200);
    let catalogue: Value = serde_json::from_str(&body).unwrap();
    let systems = catalogue["systems"].as_array().unwrap();
    let names: Vec<&str> = systems.iter().map(|s| s["system"].as_str().unwrap()).collect();
    assert_eq!(names, ["iron-triangle", "nodice", "inciting-incident"]);
    for s in systems {
        let system = s["system"].as_str().unwrap();
        let examples = s["examples"].as_array().unwrap();
        assert_eq!(
            examples.len(),
            server::systems::examples(system).unwrap().len(),
            "{system}: every example opens"
        );
        for e in examples {
            assert!(!e["seats"].as_array().unwrap().is_empty(), "{system} {}: seats", e["name"]);
        }
        assert!(!s["bots"].as_array().unwrap().is_empty(), "{system}: bot kinds");
        assert!(!s["rules"].as_array().unwrap().is_empty(), "{system}: ruleset options");
        assert!(s["reference"].as_str().unwrap().len() > 100, "{system}: the quick reference");
    }
    let duel = &systems[0]["examples"].as_array().unwrap().iter().find(|e| e["name"] == "duel").unwrap();
    let seats: Vec<&str> =
        duel["seats"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(seats, ["ada", "gm"]);
    assert_eq!(duel["rules"]["edition"], "current");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_links_qr_code_is_drawn_in_svg_and_a_huge_text_is_refused() {
    let (_dir, server) = start().await;
    let url = format!("{}/api/qr", server.base_url);
    let (status, svg) =
        post(url.clone(), "text/plain", "http://127.0.0.1:8080/t/1#00112233445566778899aabbccddeeff".into())
            .await;
    assert_eq!(status, 200);
    assert!(svg.contains("<svg") && svg.contains("</svg>"), "{svg}");
    let (status, refused) = post(url, "text/plain", "x".repeat(5_000)).await;
    assert_eq!(status, 413, "{refused}");
    assert!(refused.contains("at most 1024 bytes"), "{refused}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ruleset_options_chosen_at_creation_are_shown_to_every_seat() {
    let (_dir, server) = start().await;
    let url = format!("{}/api/tables", server.base_url);
    let create = |body: Value| post(url.clone(), "application/json", body.to_string());
    let (status, body) = create(json!({
        "system": "iron-triangle", "setup": {"example": "duel"},
        "rules": {"edition": "earlier", "lethal": true}
    }))
    .await;
    assert_eq!(status, 201, "{body}");
    let created: CreatedTable = serde_json::from_str(&body).unwrap();
    let mut client = Client::join(&created.seats["ada"], 0).await.unwrap();
    match client.next().await.unwrap() {
        ServerMessage::Welcome { rules, .. } => {
            assert_eq!(rules["edition"], "earlier");
            assert_eq!(rules["lethal"], true);
            assert_eq!(rules["minor"], false, "an option not chosen keeps the setup's value");
        }
        other => panic!("a welcome, got {other:?}"),
    }
    // An option the system lacks, or a value it does not take, is refused by name.
    let (status, body) =
        create(json!({"system": "nodice", "setup": {"example": "door"}, "rules": {"stalemat": 3}})).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("rules.stalemat") && body.contains("stalemate_hands"), "{body}");
    let (status, body) = create(
        json!({"system": "inciting-incident", "setup": {"example": "cover-up"}, "rules": {"max_rounds": 0}}),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("rules.max_rounds"), "{body}");
    let (status, body) =
        create(json!({"system": "nodice", "setup": {"example": "door"}, "rules": {"sweep_bonus": 4, "stalemate_hands": 0}})).await;
    assert_eq!(status, 201, "{body}");
    server.shutdown().await.unwrap();
}
