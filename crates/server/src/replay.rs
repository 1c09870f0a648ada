//! `POST /api/replay` (issue 34): a finished game's verifiable log — the one a table page
//! downloads — replayed by the rules step by step, for the page that steps through it. The
//! log is checked whole (`session::replay`: its hash chain, every commitment and draw, the rules
//! replayed from its record) before a step is given, and each step is the public view the rules
//! rebuild (`session::replay::replay_steps`): the page re-derives nothing. Bounded: at most
//! [`MAX_REPLAY_BYTES`], an address's replays counted like its tables created, nothing stored.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, Extension, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;
use session::replay::{ReplayError, ReplayStep, Replayed, replay_steps};
use store::tables::TableStore;
use table::Ruleset;

use crate::hub::Hub;
use crate::limits::{Edge, address_key};
use crate::protocol::ErrorCode;
use crate::web::{api_error, body_of, foreign_page, host_allowed, host_of, origin_allowed};

/// The longest log `POST /api/replay` reads: 4 MiB, some fifty times a long scene's.
pub(crate) const MAX_REPLAY_BYTES: usize = 4 << 20;

/// What `POST /api/replay` answers.
#[derive(Debug, Serialize)]
pub(crate) struct ReplayAnswer {
    /// The rule system (`iron-triangle`, `nodice`, `inciting-incident`).
    pub system: String,
    /// The log's head: the hash of its last entry, which a page compares with the heads it was
    /// shown during play ("verified") or not ("consistent").
    pub head: String,
    /// The seats' names, by number.
    pub seats: Vec<String>,
    /// The game from the table's opening to its end, step by step.
    pub steps: Vec<ReplayStep>,
}

/// The log replayed by the rules its first entry names.
pub(crate) fn replay_log(text: &str) -> Result<ReplayAnswer, String> {
    // The host's export of a whole table (`facedown tables export`) is no viewer's log: say so.
    if text.trim_start().starts_with('{')
        && serde_json::from_str::<Value>(text).is_ok_and(|v| v["format"] == "facedown-table")
    {
        return Err("this is a table's export (facedown tables export), which the host keeps: replay a \
                    seat's or a spectator's log instead (a table page's \"Download the log\")"
            .into());
    }
    let first: Value = text
        .lines()
        .next()
        .and_then(|l| serde_json::from_str::<Value>(l).ok())
        .ok_or("the file is not a table's verifiable log: its first line is not JSON")?;
    let entry = &first["entry"];
    let system = entry["system"].as_str().unwrap_or_default().to_owned();
    let replayed = match system.as_str() {
        iron_triangle::IronTriangle::NAME => replay_steps::<iron_triangle::IronTriangle>(text),
        nodice::NoDice::NAME => replay_steps::<nodice::NoDice>(text),
        inciting_incident::IncitingIncident::NAME => {
            replay_steps::<inciting_incident::IncitingIncident>(text)
        }
        "" => {
            return Err(
                "the file is not a table's verifiable log: its first entry names no rule system".into()
            );
        }
        other => return Err(format!("the log is of {other:?}, a rule system this server does not know")),
    };
    let Replayed { report, steps } = replayed.map_err(|e| match e {
        ReplayError::NotYet(why) => format!("this game is not over, so it cannot be replayed yet: {why}"),
        other => format!("the log does not check, so it is not replayed: {other}"),
    })?;
    let seats = entry["seats"]
        .as_array()
        .map(|l| l.iter().map(|s| s["name"].as_str().unwrap_or_default().to_owned()).collect())
        .unwrap_or_default();
    Ok(ReplayAnswer { system, head: report.log.head, seats, steps })
}

/// `POST /api/replay`: the body is a verifiable log (JSON Lines); the answer its steps.
pub(crate) async fn replay<S: TableStore>(
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
    if !edge.replays.take_key(address_key(peer.ip())) {
        edge.tally.limit("replays_per_minute_per_address");
        let n = edge.limits.tables_per_minute_per_address;
        return api_error(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            format!("one address replays at most {n} logs a minute; try again later"),
        );
    }
    let body = match body_of(body, MAX_REPLAY_BYTES) {
        Ok(b) => b,
        Err(response) => {
            return too_large_in_words(*response);
        }
    };
    let Ok(text) = String::from_utf8(body.to_vec()) else {
        return api_error(StatusCode::BAD_REQUEST, ErrorCode::BadMessage, "the log is not UTF-8 text");
    };
    // The rules' replay is CPU work: off the runtime's threads.
    match tokio::task::spawn_blocking(move || replay_log(&text)).await {
        Ok(Ok(answer)) => Json(answer).into_response(),
        Ok(Err(why)) => api_error(StatusCode::UNPROCESSABLE_ENTITY, ErrorCode::BadMessage, why),
        Err(_) => api_error(StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal, "the replay failed"),
    }
}

/// An over-long log's refusal, in a player's words.
fn too_large_in_words(response: Response) -> Response {
    if response.status() == StatusCode::PAYLOAD_TOO_LARGE {
        return api_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::TooLarge,
            format!("a log to replay is at most {} MiB; this one is larger", MAX_REPLAY_BYTES >> 20),
        );
    }
    response
}
