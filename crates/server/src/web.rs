//! The HTTP side: the WebSocket endpoint and its connections, the HTTP API, health, metrics,
//! the security headers, and the WebSocket Origin check.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::Ordering;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, DefaultBodyLimit, Extension, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::{SinkExt, StreamExt};
use store::tables::TableStore;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use crate::hub::{Hub, OUTBOX, Out, Refusal, ToTable, text};
use crate::limits::{Bucket, Edge, address_key, take_both};
use crate::protocol::{
    ApiError, ClientMessage, CreateTable, CreatedTable, ErrorCode, ServerMessage, VERSION,
};
use crate::{assets, auth};

/// The server's routes over `hub`, within the bounds `edge` keeps.
pub(crate) fn router<S: TableStore>(hub: Arc<Hub<S>>, edge: Arc<Edge>) -> Router {
    let limit = hub.config.limits.max_message_bytes;
    Router::new()
        .route("/ws", get(ws::<S>))
        .route("/api/tables", post(create::<S>))
        .route("/api/tables/{table}/log", get(log::<S>))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/metrics", get(metrics::<S>))
        .route("/api/systems", get(|| async { Json(crate::systems::catalogue()) }))
        .route("/api/qr", post(qr::<S>))
        .route(
            "/api/replay",
            post(crate::replay::replay::<S>).layer(DefaultBodyLimit::max(crate::replay::MAX_REPLAY_BYTES)),
        )
        .merge(pages())
        .layer(DefaultBodyLimit::max(limit))
        .layer(axum::middleware::map_response(count_refusals))
        .layer(Extension(edge))
        .layer(axum::middleware::map_response(security_headers))
        .with_state(hub)
}

/// The pages and their assets, gzipped for a browser that accepts it (a phone on a slow link
/// loads about a quarter of the bytes). Only these: the API's answers hold secret links, and
/// a compressed secret beside text a requester chose can leak through the size (BREACH).
fn pages<S: TableStore>() -> Router<Arc<Hub<S>>> {
    Router::new()
        .route("/", get(|| async { assets::serve("index.html") }))
        .route("/t/{table}", get(|| async { assets::serve("table.html") }))
        .route("/assets/{*path}", get(|Path(path): Path<String>| async move { assets::serve(&path) }))
        .route("/cards/manifest.json", get(|| async { Json(assets::cards_manifest()) }))
        .route(
            "/cards/{version}/{file}",
            get(|Path((version, file)): Path<(String, String)>| async move {
                assets::serve_card(&version, &file)
            }),
        )
        .layer(tower_http::compression::CompressionLayer::new())
}

async fn security_headers(mut response: Response) -> Response {
    let h = response.headers_mut();
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    // Nothing is stored unless the route says otherwise (the cards, immutable by version).
    if !h.contains_key(header::CACHE_CONTROL) {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// A request's body, or the JSON error that says why there is none: an over-long body is
/// refused with the protocol's error (`too_large`), like every other refusal, not plain text.
pub(crate) fn body_of(body: Result<Bytes, BytesRejection>, limit: usize) -> Result<Bytes, Box<Response>> {
    body.map_err(|rejection| {
        Box::new(if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            api_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorCode::TooLarge,
                format!("a request's body is at most {limit} bytes"),
            )
        } else {
            api_error(
                rejection.status(),
                ErrorCode::BadMessage,
                format!("the request's body: {}", rejection.body_text()),
            )
        })
    })
}

/// The longest text `POST /api/qr` draws (a link is far shorter).
const MAX_QR_TEXT: usize = 1024;

/// `POST /api/qr`: the body's text (a link) as a QR code in SVG, for the home page to show
/// beside each seat's link. The link's secret is in the body, never in a request line.
async fn qr<S: TableStore>(State(hub): State<Arc<Hub<S>>>, body: Result<Bytes, BytesRejection>) -> Response {
    let body = match body_of(body, hub.config.limits.max_message_bytes) {
        Ok(b) => b,
        Err(response) => return *response,
    };
    let Ok(text) = std::str::from_utf8(&body) else {
        return api_error(StatusCode::BAD_REQUEST, ErrorCode::BadMessage, "the body is not UTF-8 text");
    };
    if text.len() > MAX_QR_TEXT {
        let message = format!("a QR code's text is at most {MAX_QR_TEXT} bytes");
        return api_error(StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::TooLarge, message);
    }
    match qrcode::QrCode::new(text.as_bytes()) {
        Ok(code) => {
            let svg = code
                .render::<qrcode::render::svg::Color<'_>>()
                .min_dimensions(160, 160)
                .quiet_zone(true)
                .build();
            ([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response()
        }
        Err(e) => api_error(StatusCode::BAD_REQUEST, ErrorCode::BadMessage, format!("no QR code: {e}")),
    }
}

/// An HTTP refusal: the protocol's error as JSON. The code rides along in the response's
/// extensions, for the log's count of refusals ([`count_refusals`]).
pub(crate) fn api_error(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Response {
    let mut response = (status, Json(ApiError { code, message: message.into() })).into_response();
    response.extensions_mut().insert(code);
    response
}

/// Counts every HTTP refusal by its code, for the log's summary.
async fn count_refusals(Extension(edge): Extension<Arc<Edge>>, response: Response) -> Response {
    if let Some(code) = response.extensions().get::<ErrorCode>() {
        edge.tally.refusal(*code);
    }
    response
}

/// What every refusal of a link says, whether the table is missing or the token opens none of
/// its links: the answer must not tell a stranger which tables exist.
const OPENS_NOTHING: &str =
    "this link opens no table here (mistyped, revoked or reissued, or the table is gone)";

/// The refusal as the client gets it: a link the server does not know, for whatever reason,
/// is answered alike ([`OPENS_NOTHING`]).
fn uniform(r: Refusal) -> Refusal {
    match r.code {
        ErrorCode::Unauthorized => Refusal::new(ErrorCode::Unauthorized, OPENS_NOTHING),
        _ => r,
    }
}

fn refusal_response(r: Refusal) -> Response {
    let r = uniform(r);
    let status = match r.code {
        ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
        ErrorCode::Forbidden => StatusCode::FORBIDDEN,
        ErrorCode::Full => StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        ErrorCode::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    };
    api_error(status, r.code, r.message)
}

/// A table's number as its links spell it, and only so: the decimal digits of
/// [`crate::hub::table_name`], no sign, no leading zero, no spaces (`"+1"` opens nothing).
fn table_id(name: &str) -> Option<u64> {
    name.parse::<u64>().ok().filter(|id| id.to_string() == name)
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::AUTHORIZATION)?.to_str().ok()?.strip_prefix("Bearer ").map(str::trim)
}

/// Whether a request comes from this machine itself: a loopback peer, not relayed by a proxy.
fn from_loopback(peer: SocketAddr, headers: &HeaderMap) -> bool {
    peer.ip().to_canonical().is_loopback()
        && !headers.contains_key("forwarded")
        && !headers.contains_key("x-forwarded-for")
        && !headers.contains_key("x-real-ip")
}

/// Whether a request may do what the host alone may (create a table, read `/metrics`): with an
/// admin secret, whoever shows it, and only they, loopback included (a tunnel such as
/// `ssh -R` relays every stranger's request from loopback, with no proxy header); without
/// one, a request from this machine itself.
fn admin(secret: Option<&str>, peer: SocketAddr, headers: &HeaderMap) -> bool {
    match secret {
        Some(secret) => bearer(headers).is_some_and(|given| auth::same_secret(secret, given)),
        None => from_loopback(peer, headers),
    }
}

/// The refusal of a request without the host's rights.
fn not_admin(secret: bool) -> Response {
    let message = if secret {
        "this needs the server's admin secret (Authorization: Bearer SECRET), from every machine"
    } else {
        "this needs a request from the server's own machine (or an admin secret set with \
         FACEDOWN_ADMIN_SECRET, shown as Authorization: Bearer SECRET)"
    };
    api_error(StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, message)
}

/// The Host a request names (HTTP/1's `Host`, HTTP/2's authority).
pub(crate) fn host_of<'a>(headers: &'a HeaderMap, uri: &'a Uri) -> Option<&'a str> {
    headers.get(header::HOST).and_then(|h| h.to_str().ok()).or_else(|| uri.authority().map(|a| a.as_str()))
}

/// The host name of `host[:port]` (an IPv6 literal with its brackets), lower case.
fn host_name(host: &str) -> String {
    let name =
        if host.starts_with('[') {
            host.split_inclusive(']').next().unwrap_or(host)
        } else {
            host.rsplit_once(':').map_or(host, |(name, port)| {
                if port.bytes().all(|b| b.is_ascii_digit()) { name } else { host }
            })
        };
    name.trim_end_matches('.').to_ascii_lowercase()
}

/// Whether `name` is a host no DNS answer can point a stranger's page at: `localhost` or an
/// address literal (127.0.0.1, [::1], a LAN address). A DNS rebinding page names its own
/// domain, which then resolves to this server.
fn literal_or_localhost(name: &str) -> bool {
    name == "localhost"
        || name.parse::<std::net::Ipv4Addr>().is_ok()
        || name
            .strip_prefix('[')
            .and_then(|n| n.strip_suffix(']'))
            .is_some_and(|n| n.parse::<std::net::Ipv6Addr>().is_ok())
}

/// Whether a request's Host is the server's: the public URL's host, or a name no stranger's
/// page can take ([`literal_or_localhost`]).
pub(crate) fn host_allowed(public_url: Option<&str>, host: Option<&str>) -> bool {
    let Some(host) = host else { return false };
    let name = host_name(host);
    literal_or_localhost(&name) || public_url.is_some_and(|url| host_name(&authority_of(url)) == name)
}

/// Whether a request's Origin may act on this server: none (not a browser: its credentials
/// are what it must show), the public URL's origin, or this request's own origin when its Host
/// is a name no stranger's page can take. `Origin: null` (a sandboxed or file page) never.
pub(crate) fn origin_allowed(
    public_url: Option<&str>,
    tls: bool,
    headers: &HeaderMap,
    host: Option<&str>,
) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else { return false };
    let origin = origin.trim_end_matches('/');
    if public_url.is_some_and(|url| origin.eq_ignore_ascii_case(&origin_of(url))) {
        return true;
    }
    let Some(host) = host else { return false };
    let scheme = if tls { "https" } else { "http" };
    literal_or_localhost(&host_name(host)) && origin.eq_ignore_ascii_case(&format!("{scheme}://{host}"))
}

/// The refusal of a request from a page of another site, or naming another host.
pub(crate) fn foreign_page(public_url: Option<&str>) -> Response {
    let message = match public_url {
        Some(url) => {
            format!("this request comes from a page or names a host that is not {url} (--public-url)")
        }
        None => "this request comes from a page or names a host that is not this server's own address \
                 (behind a domain name, start the server with --public-url)"
            .to_owned(),
    };
    api_error(StatusCode::FORBIDDEN, ErrorCode::Forbidden, message)
}

/// Whether a request's body is declared JSON (`application/json`, parameters allowed): a
/// page of another site can send a cross-origin POST only as a "simple" type (`text/plain`,
/// forms), never as JSON without the server's consent.
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}

/// Logs a table made (never its links: they hold the tokens), or why none was.
pub(crate) fn log_created(created: &Result<CreatedTable, Refusal>, peer: Option<IpAddr>) {
    match created {
        Ok(c) => tracing::info!(table = %c.table, peer = ?peer, "table {} created", c.table),
        Err(r) if r.code == ErrorCode::Internal => {
            tracing::error!(peer = ?peer, code = r.code.as_str(), "a table could not be created: {}", r.message)
        }
        Err(r) => tracing::debug!(peer = ?peer, code = r.code.as_str(), "a table refused: {}", r.message),
    }
}

#[allow(clippy::too_many_arguments)]
async fn create<S: TableStore>(
    State(hub): State<Arc<Hub<S>>>,
    Extension(edge): Extension<Arc<Edge>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    uri: Uri,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let public_url = hub.config.public_url.as_deref();
    let host = host_of(&headers, &uri);
    if !host_allowed(public_url, host)
        || !origin_allowed(public_url, hub.config.tls.is_some(), &headers, host)
    {
        return foreign_page(public_url);
    }
    let secret = hub.config.admin_secret.as_deref();
    if !admin(secret, peer, &headers) {
        return not_admin(secret.is_some());
    }
    if !is_json(&headers) {
        return api_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::BadMessage,
            "a table request is JSON: send it with Content-Type: application/json",
        );
    }
    if !edge.creates.take_key(address_key(peer.ip())) {
        edge.tally.limit("tables_per_minute_per_address");
        let n = edge.limits.tables_per_minute_per_address;
        return api_error(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            format!("one address creates at most {n} tables a minute; try again later"),
        );
    }
    let body = match body_of(body, hub.config.limits.max_message_bytes) {
        Ok(b) => b,
        Err(response) => return *response,
    };
    let request: CreateTable = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => {
            return api_error(
                StatusCode::BAD_REQUEST,
                ErrorCode::BadMessage,
                format!("the table request: {e}"),
            );
        }
    };
    let created = hub.create_table(request).await;
    log_created(&created, Some(peer.ip()));
    match created {
        Ok(created) => (StatusCode::CREATED, Json(created)).into_response(),
        Err(r) => refusal_response(r),
    }
}

/// The log's query: `?format=fair` asks for the verifiable log (docs/fairness.md §7).
#[derive(Debug, serde::Deserialize)]
struct LogQuery {
    #[serde(default)]
    format: Option<String>,
}

async fn log<S: TableStore>(
    State(hub): State<Arc<Hub<S>>>,
    Path(table): Path<String>,
    Query(query): Query<LogQuery>,
    headers: HeaderMap,
) -> Response {
    let Some(token) = bearer(&headers) else {
        return api_error(
            StatusCode::UNAUTHORIZED,
            ErrorCode::Unauthorized,
            "a log is downloaded with a link's token: Authorization: Bearer TOKEN",
        );
    };
    let Some(id) = table_id(&table) else {
        return refusal_response(Refusal::new(ErrorCode::Unauthorized, OPENS_NOTHING));
    };
    match query.format.as_deref() {
        None | Some("json") => {}
        Some("fair") => return fair_log(&hub, id, token).await,
        Some(other) => {
            return api_error(
                StatusCode::BAD_REQUEST,
                ErrorCode::BadMessage,
                format!("format: {other:?} is not a log format (json, fair)"),
            );
        }
    }
    let (reply, answer) = oneshot::channel();
    if let Err(r) = hub.send(id, ToTable::Log { token: token.to_owned(), reply }).await {
        return refusal_response(r);
    }
    match answer.await {
        Ok(Ok(log)) => Json(log).into_response(),
        Ok(Err(r)) => refusal_response(r),
        Err(_) => {
            api_error(StatusCode::SERVICE_UNAVAILABLE, ErrorCode::Internal, "the table closed; try again")
        }
    }
}

async fn fair_log<S: TableStore>(hub: &Arc<Hub<S>>, id: u64, token: &str) -> Response {
    let (reply, answer) = oneshot::channel();
    if let Err(r) = hub.send(id, ToTable::FairLog { token: token.to_owned(), reply }).await {
        return refusal_response(r);
    }
    match answer.await {
        Ok(Ok(text)) => ([(header::CONTENT_TYPE, "application/jsonl; charset=utf-8")], text).into_response(),
        Ok(Err(r)) => refusal_response(r),
        Err(_) => {
            api_error(StatusCode::SERVICE_UNAVAILABLE, ErrorCode::Internal, "the table closed; try again")
        }
    }
}

/// `GET /metrics`: for the host alone, as creating a table ([`admin`]).
async fn metrics<S: TableStore>(
    State(hub): State<Arc<Hub<S>>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Response {
    let secret = hub.config.admin_secret.as_deref();
    if !admin(secret, peer, &headers) {
        return not_admin(secret.is_some());
    }
    hub.metrics.connections.set(hub.connections.load(Ordering::Relaxed) as i64);
    (
        [(header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")],
        hub.metrics.render(),
    )
        .into_response()
}

/// `scheme://host[:port]` of a URL.
pub(crate) fn origin_of(url: &str) -> String {
    let url = url.trim_end_matches('/');
    match url.split_once("://") {
        Some((scheme, rest)) => format!("{scheme}://{}", rest.split('/').next().unwrap_or("")),
        None => url.to_owned(),
    }
}

/// `host[:port]` of a URL.
fn authority_of(url: &str) -> String {
    let origin = origin_of(url);
    origin.split_once("://").map_or(origin.clone(), |(_, a)| a.to_owned())
}

#[allow(clippy::too_many_arguments)]
async fn ws<S: TableStore>(
    State(hub): State<Arc<Hub<S>>>,
    Extension(edge): Extension<Arc<Edge>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    uri: Uri,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    let public_url = hub.config.public_url.as_deref();
    let host = host_of(&headers, &uri);
    if !host_allowed(public_url, host)
        || !origin_allowed(public_url, hub.config.tls.is_some(), &headers, host)
    {
        return foreign_page(public_url);
    }
    if hub.connections.load(Ordering::Relaxed) >= hub.config.limits.max_connections {
        return api_error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Full,
            format!("the server holds its limit of {} connections", hub.config.limits.max_connections),
        );
    }
    // A frame is never larger than a message: a client's partial frame is never buffered past
    // the message limit (a slow sender holds at most that).
    let cap = hub.config.limits.max_message_bytes;
    upgrade
        // A client's messages are small (a seal, a reveal, a command: a few hundred bytes); a
        // longer one takes more reads. Each connection holds this buffer while idle.
        .read_buffer_size(1024)
        // Frames queued together go out in one write when the connection task flushes them
        // (an ack and its update, say), not one write each.
        .write_buffer_size(32 * 1024)
        .max_write_buffer_size(1 << 20)
        .max_message_size(cap)
        .max_frame_size(cap)
        .on_upgrade(move |socket| connection(hub, edge, address_key(peer.ip()), socket))
}

fn error_frame(id: Option<String>, code: ErrorCode, message: impl Into<String>) -> Message {
    Message::Text(text(&ServerMessage::Error { id, code, message: message.into() }).into())
}

/// A client id the protocol accepts.
fn check_id(message: &ClientMessage) -> Result<(), String> {
    match message.id() {
        Some(id) if id.is_empty() || id.len() > crate::protocol::MAX_CLIENT_ID => Err(format!(
            "id: a client id is 1 to {} bytes (this one is {})",
            crate::protocol::MAX_CLIENT_ID,
            id.len()
        )),
        _ => Ok(()),
    }
}

struct Counted<'a>(&'a std::sync::atomic::AtomicUsize);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Whether a read error is a frame or message over the limit.
fn too_large(e: axum::Error) -> bool {
    use tokio_tungstenite::tungstenite::Error;
    matches!(e.into_inner().downcast::<Error>().map(|e| *e), Ok(Error::Capacity(_)))
}

/// The key of a link's rate limit: its table and the SHA-256 of its token (never the token).
fn link_key(table: u64, token: &str) -> (u64, [u8; 32]) {
    use sha2::Digest;
    (table, sha2::Sha256::digest(token.as_bytes()).into())
}

/// How many frames in a row a connection may send over its rate before it is closed: each one
/// over it is answered, and a client that goes on regardless only costs the server.
const OVER_RATE_IN_A_ROW: u32 = 64;

async fn connection<S: TableStore>(hub: Arc<Hub<S>>, edge: Arc<Edge>, address: IpAddr, socket: WebSocket) {
    hub.connections.fetch_add(1, Ordering::Relaxed);
    let _counted = Counted(&hub.connections);
    let (mut sink, mut stream) = socket.split();
    let limits = hub.config.limits.clone();
    let tally = Arc::clone(&edge.tally);
    let refuse = |code: ErrorCode, id: Option<String>, message: String| {
        tally.refusal(code);
        error_frame(id, code, message)
    };
    let from_address = edge.addresses.get(address);
    let mut from_link: Option<Arc<Mutex<Bucket>>> = None;
    let mut over_rate = 0u32;
    let mut shutdown = hub.shutdown.clone();
    let conn = hub.next_conn();
    let (out_tx, mut out_rx) = mpsc::channel::<Out>(OUTBOX);
    let mut joined: Option<u64> = None;
    let mut inbox: Option<mpsc::Sender<ToTable>> = None;
    let hello_by = Instant::now() + limits.hello_timeout;
    // Reads keep the connection: quiet for half the idle time, it is pinged (a browser and
    // `server::client` answer by themselves); quiet for all of it, it is closed.
    let idle = limits.idle_timeout.max(std::time::Duration::from_millis(10));
    let mut last_read = Instant::now();
    let mut pinged = false;
    let quiet = tokio::time::sleep_until(last_read + idle / 2);
    tokio::pin!(quiet);
    loop {
        tokio::select! {
            frame = stream.next() => {
                let frame = match frame {
                    None => break,
                    Some(Err(e)) => {
                        if too_large(e) {
                            let m = format!("a message or frame is at most {} bytes: the connection is closed", limits.max_message_bytes);
                            let _ = sink.send(refuse(ErrorCode::TooLarge, None, m)).await;
                        }
                        break;
                    }
                    Some(Ok(Message::Close(_))) => break,
                    Some(Ok(frame)) => frame,
                };
                last_read = Instant::now();
                pinged = false;
                // Every frame counts towards the rates, the link's and the address's: text,
                // binary, pings and pongs alike.
                if !take_both(&edge.addresses, &from_address, &edge.links, from_link.as_deref()) {
                    over_rate += 1;
                    edge.tally.limit("rate");
                    if over_rate > OVER_RATE_IN_A_ROW {
                        let m = "kept sending faster than the rate limit: the connection is closed".to_owned();
                        let _ = sink.send(refuse(ErrorCode::RateLimited, None, m)).await;
                        break;
                    }
                    let m = format!(
                        "more than {} messages a second from this link, or {} from this address: this one was dropped",
                        limits.messages_per_second, limits.messages_per_second_per_address
                    );
                    let _ = sink.send(refuse(ErrorCode::RateLimited, None, m)).await;
                    continue;
                }
                over_rate = 0;
                let frame_text = match frame {
                    Message::Text(t) => t,
                    Message::Binary(_) => {
                        let _ = sink.send(refuse(ErrorCode::BadMessage, None, "frames are JSON text, not binary".into())).await;
                        continue;
                    }
                    _ => continue,
                };
                let message: ClientMessage = match serde_json::from_str(frame_text.as_str()) {
                    Ok(m) => m,
                    Err(e) => {
                        let _ = sink.send(refuse(ErrorCode::BadMessage, None, format!("not a protocol message: {e}"))).await;
                        continue;
                    }
                };
                if let Err(m) = check_id(&message) {
                    let _ = sink.send(refuse(ErrorCode::BadMessage, None, m)).await;
                    continue;
                }
                match (joined, message) {
                    (None, ClientMessage::Hello { v, table, token, since }) => {
                        if v != VERSION {
                            let m = format!("this server speaks protocol version {VERSION}, not {v}");
                            let _ = sink.send(refuse(ErrorCode::Version, None, m)).await;
                            break;
                        }
                        let Some(id) = table_id(&table) else {
                            let _ = sink.send(refuse(ErrorCode::Unauthorized, None, OPENS_NOTHING.into())).await;
                            continue;
                        };
                        let key = link_key(id, &token);
                        let (reply, answer) = oneshot::channel();
                        let join = ToTable::Join { token, since, conn, out: out_tx.clone(), reply };
                        let result = match hub.send(id, join).await {
                            Ok(()) => answer.await.unwrap_or_else(|_| Err(Refusal::new(ErrorCode::Internal, "the table closed; try again"))),
                            Err(r) => Err(r),
                        };
                        match result {
                            Ok(()) => {
                                joined = Some(id);
                                from_link = Some(edge.links.get(key));
                            }
                            Err(r) => {
                                let r = uniform(r);
                                let _ = sink.send(refuse(r.code, None, r.message)).await;
                            }
                        }
                    }
                    (None, m) => {
                        let _ = sink.send(refuse(ErrorCode::BadMessage, m.id().map(str::to_owned), "say hello first (a hello with the table and your link's token)".into())).await;
                    }
                    (Some(id), message) => {
                        let request = ToTable::Request { conn, message: Box::new(message), received: Instant::now() };
                        // The table's inbox, kept from the last request; looked up again (the
                        // table reloaded) only if its actor has left memory since.
                        let sent = match &inbox {
                            Some(tx) => match tx.send(request).await {
                                Ok(()) => Ok(()),
                                Err(mpsc::error::SendError(request)) => {
                                    inbox = None;
                                    hub.send(id, request).await
                                }
                            },
                            None => {
                                let sent = hub.send(id, request).await;
                                inbox = hub.table(id);
                                sent
                            }
                        };
                        if sent.is_err() {
                            let _ = sink.send(Message::Text(text(&ServerMessage::Closing {}).into())).await;
                            break;
                        }
                    }
                }
            }
            out = out_rx.recv() => {
                // Everything queued goes out with one flush (one write to the socket).
                let mut close = false;
                let mut failed = false;
                let mut next = out;
                loop {
                    match next {
                        Some(Out::Text(t)) => {
                            if sink.feed(Message::Text(t.into())).await.is_err() {
                                failed = true;
                                break;
                            }
                        }
                        Some(Out::Close) | None => {
                            close = true;
                            break;
                        }
                    }
                    match out_rx.try_recv() {
                        Ok(o) => next = Some(o),
                        Err(_) => break,
                    }
                }
                if failed || sink.flush().await.is_err() || close {
                    break;
                }
            }
            () = &mut quiet => {
                let now = Instant::now();
                if now < last_read + idle / 2 {
                    // Something was read since the timer was set: it waits from then.
                    quiet.as_mut().reset(last_read + idle / 2);
                } else if !pinged {
                    pinged = true;
                    if sink.send(Message::Ping(Default::default())).await.is_err() {
                        break;
                    }
                    quiet.as_mut().reset(last_read + idle);
                } else {
                    edge.tally.limit("idle_timeout");
                    let m = format!("nothing received for {} seconds: the connection is closed", idle.as_secs());
                    let _ = sink.send(refuse(ErrorCode::Timeout, None, m)).await;
                    break;
                }
            }
            () = tokio::time::sleep_until(hello_by), if joined.is_none() => {
                let m = format!("no hello within {} seconds: the connection is closed", limits.hello_timeout.as_secs());
                let _ = sink.send(refuse(ErrorCode::Timeout, None, m)).await;
                break;
            }
            _ = shutdown.changed() => {
                // The tables tell their connections themselves; one not joined is told here.
                if joined.is_none() {
                    let _ = sink.send(Message::Text(text(&ServerMessage::Closing {}).into())).await;
                    break;
                }
            }
        }
    }
    // Frames already queued (a last error, a closing notice) go out before the close.
    while let Ok(Out::Text(t)) = out_rx.try_recv() {
        let _ = sink.send(Message::Text(t.into())).await;
    }
    let _ = sink.close().await;
    if let Some(id) = joined {
        let _ = hub.send(id, ToTable::Leave { conn }).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(pairs: &[(header::HeaderName, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(k.clone(), HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn a_websocket_origin_must_be_the_public_urls_or_a_local_hosts_own() {
        let h = HeaderMap::new();
        assert!(origin_allowed(None, false, &h, Some("127.0.0.1:8080")), "no Origin: not a browser");
        let h = with(&[(header::ORIGIN, "http://127.0.0.1:8080")]);
        assert!(origin_allowed(None, false, &h, Some("127.0.0.1:8080")));
        assert!(!origin_allowed(None, true, &h, Some("127.0.0.1:8080")), "https expected");
        assert!(!origin_allowed(Some("https://games.example.org/"), false, &h, Some("games.example.org")));
        let h = with(&[(header::ORIGIN, "https://games.example.org")]);
        assert!(origin_allowed(
            Some("https://games.example.org/facedown"),
            false,
            &h,
            Some("games.example.org")
        ));
        let h = with(&[(header::ORIGIN, "https://evil.example")]);
        assert!(!origin_allowed(Some("https://games.example.org"), false, &h, Some("games.example.org")));
        assert!(!origin_allowed(None, false, &h, Some("127.0.0.1:8080")));
        let h = with(&[(header::ORIGIN, "null")]);
        assert!(!origin_allowed(None, false, &h, Some("127.0.0.1:8080")), "Origin: null never");
    }

    #[test]
    fn a_dns_rebinding_page_fails_the_host_and_origin_checks() {
        // evil.example resolved to 127.0.0.1 after the page loaded: its requests are
        // same-origin for the browser, and name the attacker's domain.
        let h = with(&[(header::ORIGIN, "http://evil.example:8080")]);
        assert!(!host_allowed(None, Some("evil.example:8080")));
        assert!(!origin_allowed(None, false, &h, Some("evil.example:8080")));
        assert!(!host_allowed(Some("https://dice.example.org"), Some("evil.example")));
        for host in ["localhost:8080", "127.0.0.1:8080", "[::1]:8080", "192.168.1.5:8080", "LOCALHOST"] {
            assert!(host_allowed(None, Some(host)), "{host}");
        }
        assert!(host_allowed(Some("https://Dice.example.org/"), Some("dice.example.org")));
        assert!(host_allowed(Some("https://dice.example.org:8443"), Some("dice.example.org:8443")));
        assert!(!host_allowed(None, None), "no Host at all");
        assert!(!host_allowed(None, Some("127.0.0.1.evil.example")));
    }

    #[test]
    fn with_an_admin_secret_every_peer_needs_it_loopback_included() {
        let local: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let mapped: SocketAddr = "[::ffff:127.0.0.1]:5000".parse().unwrap();
        let remote: SocketAddr = "192.0.2.7:5000".parse().unwrap();
        let none = HeaderMap::new();
        let shown = with(&[(header::AUTHORIZATION, "Bearer correct-horse-battery")]);
        assert!(admin(None, local, &none));
        assert!(admin(None, mapped, &none));
        assert!(!admin(None, remote, &none));
        assert!(!admin(None, remote, &shown), "no secret set: only this machine");
        let secret = Some("correct-horse-battery");
        assert!(!admin(secret, local, &none), "a tunnel relays from loopback");
        assert!(admin(secret, local, &shown));
        assert!(admin(secret, remote, &shown));
        let relayed = with(&[(header::HeaderName::from_static("x-forwarded-for"), "192.0.2.7")]);
        assert!(!admin(None, local, &relayed), "relayed by a proxy on this machine");
    }

    #[test]
    fn a_table_is_named_by_its_number_and_nothing_else() {
        assert_eq!(table_id("1"), Some(1));
        assert_eq!(table_id("18446744073709551615"), Some(u64::MAX));
        for name in ["+1", "01", " 1", "1 ", "", "-0", "1e3", "18446744073709551616"] {
            assert_eq!(table_id(name), None, "{name:?}");
        }
    }

    #[test]
    fn a_table_request_must_be_declared_json() {
        assert!(is_json(&with(&[(header::CONTENT_TYPE, "application/json")])));
        assert!(is_json(&with(&[(header::CONTENT_TYPE, "Application/JSON; charset=utf-8")])));
        assert!(!is_json(&with(&[(header::CONTENT_TYPE, "text/plain")])));
        assert!(!is_json(&HeaderMap::new()));
    }

    #[test]
    fn an_unknown_table_and_a_wrong_token_are_answered_alike() {
        let missing = uniform(Refusal::new(ErrorCode::Unauthorized, "there is no table 7"));
        let wrong = uniform(Refusal::new(ErrorCode::Unauthorized, "this link opens nothing at table 1"));
        assert_eq!(missing.message, wrong.message);
        assert!(!missing.message.contains('7'));
        let other = uniform(Refusal::new(ErrorCode::Refused, "§5.2: out of turn"));
        assert_eq!(other.message, "§5.2: out of turn");
    }
}
