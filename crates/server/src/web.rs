//! The HTTP side: the WebSocket endpoint and its connections, the HTTP API, health, metrics,
//! the security headers, and the WebSocket Origin check.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::{SinkExt, StreamExt};
use store::tables::TableStore;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use crate::hub::{Hub, OUTBOX, Out, Refusal, ToTable, text};
use crate::protocol::{ApiError, ClientMessage, CreateTable, ErrorCode, ServerMessage, VERSION};
use crate::{assets, auth};

/// How long a new connection has to say hello.
const HELLO_WITHIN: Duration = Duration::from_secs(10);
/// A frame larger than this closes the connection outright; between the configured limit and
/// this, it is refused with an error frame.
fn hard_cap(limit: usize) -> usize {
    limit.saturating_mul(4).max(1 << 20)
}

/// The server's routes over `hub`.
pub(crate) fn router<S: TableStore>(hub: Arc<Hub<S>>) -> Router {
    let limit = hub.config.limits.max_message_bytes;
    Router::new()
        .route("/ws", get(ws::<S>))
        .route("/api/tables", post(create::<S>))
        .route("/api/tables/{table}/log", get(log::<S>))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/metrics", get(metrics::<S>))
        .route("/api/systems", get(|| async { Json(crate::systems::catalogue()) }))
        .route("/api/qr", post(qr))
        .merge(pages())
        .layer(DefaultBodyLimit::max(limit))
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
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The longest text `POST /api/qr` draws (a link is far shorter).
const MAX_QR_TEXT: usize = 1024;

/// `POST /api/qr`: the body's text (a link) as a QR code in SVG, for the home page to show
/// beside each seat's link. The link's secret is in the body, never in a request line.
async fn qr(body: Bytes) -> Response {
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

fn api_error(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Response {
    (status, Json(ApiError { code, message: message.into() })).into_response()
}

fn refusal_response(r: Refusal) -> Response {
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

fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::AUTHORIZATION)?.to_str().ok()?.strip_prefix("Bearer ").map(str::trim)
}

/// Whether a request comes from this machine itself: a loopback peer, not relayed by a proxy.
fn from_loopback(peer: SocketAddr, headers: &HeaderMap) -> bool {
    peer.ip().is_loopback()
        && !headers.contains_key("forwarded")
        && !headers.contains_key("x-forwarded-for")
        && !headers.contains_key("x-real-ip")
}

async fn create<S: TableStore>(
    State(hub): State<Arc<Hub<S>>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if !from_loopback(peer, &headers) {
        let allowed = match (&hub.config.admin_secret, bearer(&headers)) {
            (Some(secret), Some(given)) => auth::same_secret(secret, given),
            _ => false,
        };
        if !allowed {
            return api_error(
                StatusCode::UNAUTHORIZED,
                ErrorCode::Unauthorized,
                "creating a table needs the server's admin secret (Authorization: Bearer SECRET) \
                 unless the request comes from the server's own machine",
            );
        }
    }
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
    match hub.create_table(request).await {
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
    let Ok(id) = table.parse::<u64>() else {
        return api_error(
            StatusCode::NOT_FOUND,
            ErrorCode::Unauthorized,
            format!("there is no table {table:?}"),
        );
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

async fn metrics<S: TableStore>(State(hub): State<Arc<Hub<S>>>) -> Response {
    hub.metrics.connections.set(hub.connections.load(Ordering::Relaxed) as i64);
    (
        [(header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")],
        hub.metrics.render(),
    )
        .into_response()
}

/// The origins a browser page may open a WebSocket from: the public URL's, or else this
/// request's own host.
fn origin_allowed(public_url: Option<&str>, tls: bool, headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        // Not a browser (a terminal client, a test): its link's token is what it must show.
        return true;
    };
    let Ok(origin) = origin.to_str() else { return false };
    let origin = origin.trim_end_matches('/');
    match public_url {
        Some(url) => origin.eq_ignore_ascii_case(&origin_of(url)),
        None => {
            let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
                return false;
            };
            let scheme = if tls { "https" } else { "http" };
            origin.eq_ignore_ascii_case(&format!("{scheme}://{host}"))
        }
    }
}

/// `scheme://host[:port]` of a URL.
pub(crate) fn origin_of(url: &str) -> String {
    let url = url.trim_end_matches('/');
    match url.split_once("://") {
        Some((scheme, rest)) => format!("{scheme}://{}", rest.split('/').next().unwrap_or("")),
        None => url.to_owned(),
    }
}

async fn ws<S: TableStore>(
    State(hub): State<Arc<Hub<S>>>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    if !origin_allowed(hub.config.public_url.as_deref(), hub.config.tls.is_some(), &headers) {
        return api_error(
            StatusCode::FORBIDDEN,
            ErrorCode::Forbidden,
            "this page's origin may not open the server's WebSocket (see --public-url)",
        );
    }
    if hub.connections.load(Ordering::Relaxed) >= hub.config.limits.max_connections {
        return api_error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Full,
            format!("the server holds its limit of {} connections", hub.config.limits.max_connections),
        );
    }
    let cap = hard_cap(hub.config.limits.max_message_bytes);
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
        .on_upgrade(move |socket| connection(hub, socket))
}

/// A token bucket: `rate` messages a second on average, `burst` at once.
struct Bucket {
    tokens: f64,
    rate: f64,
    burst: f64,
    last: Instant,
}

impl Bucket {
    fn take(&mut self) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.last).as_secs_f64() * self.rate).min(self.burst);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
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

async fn connection<S: TableStore>(hub: Arc<Hub<S>>, socket: WebSocket) {
    hub.connections.fetch_add(1, Ordering::Relaxed);
    let _counted = Counted(&hub.connections);
    let (mut sink, mut stream) = socket.split();
    let limits = hub.config.limits.clone();
    let mut bucket = Bucket {
        tokens: f64::from(limits.burst),
        rate: f64::from(limits.messages_per_second),
        burst: f64::from(limits.burst),
        last: Instant::now(),
    };
    let mut shutdown = hub.shutdown.clone();
    let conn = hub.next_conn();
    let (out_tx, mut out_rx) = mpsc::channel::<Out>(OUTBOX);
    let mut joined: Option<u64> = None;
    let mut inbox: Option<mpsc::Sender<ToTable>> = None;
    let hello_by = Instant::now() + HELLO_WITHIN;
    loop {
        tokio::select! {
            frame = stream.next() => {
                let frame_text = match frame {
                    None | Some(Err(_)) => break,
                    Some(Ok(Message::Text(t))) => t,
                    Some(Ok(Message::Binary(_))) => {
                        let _ = sink.send(error_frame(None, ErrorCode::BadMessage, "frames are JSON text, not binary")).await;
                        continue;
                    }
                    Some(Ok(Message::Close(_))) => break,
                    Some(Ok(_)) => continue,
                };
                if !bucket.take() {
                    let m = format!("more than {} messages a second: this one was dropped", limits.messages_per_second);
                    let _ = sink.send(error_frame(None, ErrorCode::RateLimited, m)).await;
                    continue;
                }
                if frame_text.len() > limits.max_message_bytes {
                    let m = format!("a message is at most {} bytes (this one is {})", limits.max_message_bytes, frame_text.len());
                    let _ = sink.send(error_frame(None, ErrorCode::TooLarge, m)).await;
                    continue;
                }
                let message: ClientMessage = match serde_json::from_str(frame_text.as_str()) {
                    Ok(m) => m,
                    Err(e) => {
                        let _ = sink.send(error_frame(None, ErrorCode::BadMessage, format!("not a protocol message: {e}"))).await;
                        continue;
                    }
                };
                if let Err(m) = check_id(&message) {
                    let _ = sink.send(error_frame(None, ErrorCode::BadMessage, m)).await;
                    continue;
                }
                match (joined, message) {
                    (None, ClientMessage::Hello { v, table, token, since }) => {
                        if v != VERSION {
                            let m = format!("this server speaks protocol version {VERSION}, not {v}");
                            let _ = sink.send(error_frame(None, ErrorCode::Version, m)).await;
                            break;
                        }
                        let Ok(id) = table.parse::<u64>() else {
                            let _ = sink.send(error_frame(None, ErrorCode::Unauthorized, format!("there is no table {table:?}"))).await;
                            continue;
                        };
                        let (reply, answer) = oneshot::channel();
                        let join = ToTable::Join { token, since, conn, out: out_tx.clone(), reply };
                        let result = match hub.send(id, join).await {
                            Ok(()) => answer.await.unwrap_or_else(|_| Err(Refusal::new(ErrorCode::Internal, "the table closed; try again"))),
                            Err(r) => Err(r),
                        };
                        match result {
                            Ok(()) => joined = Some(id),
                            Err(r) => {
                                let _ = sink.send(error_frame(None, r.code, r.message)).await;
                            }
                        }
                    }
                    (None, m) => {
                        let _ = sink.send(error_frame(m.id().map(str::to_owned), ErrorCode::BadMessage, "say hello first (a hello with the table and your link's token)")).await;
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
            () = tokio::time::sleep_until(hello_by), if joined.is_none() => {
                let _ = sink.send(error_frame(None, ErrorCode::BadMessage, "no hello within 10 seconds")).await;
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

    #[test]
    fn a_websocket_origin_must_be_the_public_urls_or_the_hosts() {
        let mut h = HeaderMap::new();
        assert!(origin_allowed(None, false, &h), "no Origin: not a browser");
        h.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
        h.insert(header::ORIGIN, HeaderValue::from_static("http://127.0.0.1:8080"));
        assert!(origin_allowed(None, false, &h));
        assert!(!origin_allowed(None, true, &h), "https expected");
        assert!(!origin_allowed(Some("https://games.example.org/"), false, &h));
        h.insert(header::ORIGIN, HeaderValue::from_static("https://games.example.org"));
        assert!(origin_allowed(Some("https://games.example.org/facedown"), false, &h));
        h.insert(header::ORIGIN, HeaderValue::from_static("https://evil.example"));
        assert!(!origin_allowed(Some("https://games.example.org"), false, &h));
        assert!(!origin_allowed(None, false, &h));
    }

    #[test]
    fn only_an_unrelayed_loopback_request_skips_the_admin_secret() {
        let local: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let remote: SocketAddr = "192.0.2.7:5000".parse().unwrap();
        let mut h = HeaderMap::new();
        assert!(from_loopback(local, &h));
        assert!(!from_loopback(remote, &h));
        h.insert("x-forwarded-for", HeaderValue::from_static("192.0.2.7"));
        assert!(!from_loopback(local, &h), "relayed by a proxy on this machine");
    }
}
