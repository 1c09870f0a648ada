//! The server's HTTP API as the load generator uses it: `POST /api/tables` (from loopback, so
//! no admin secret is needed).

use std::collections::BTreeMap;
use std::time::Duration;

use server::protocol::{ApiError, CreateTable, CreatedTable, SetupSource, TableOptions};

use crate::LoadError;

/// The largest answer read from the API.
const MAX_ANSWER: u64 = 1024 * 1024;

/// A blocking HTTP client of one server's API.
#[derive(Clone)]
pub struct Api {
    agent: ureq::Agent,
    base: String,
}

impl Api {
    /// A client of the server at `base` (`http://host:port`); every request is bounded by
    /// `timeout`.
    pub fn new(base: &str, timeout: Duration) -> Api {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .build()
            .into();
        Api { agent, base: base.trim_end_matches('/').to_owned() }
    }

    /// Creates a table of `system` from its example `example`, every seat a person's.
    pub fn create_table(&self, system: &str, example: &str) -> Result<CreatedTable, LoadError> {
        let request = CreateTable {
            system: system.to_owned(),
            setup: SetupSource::Example(example.to_owned()),
            seats: BTreeMap::new(),
            options: TableOptions::default(),
        };
        let url = format!("{}/api/tables", self.base);
        let http = |e: ureq::Error| LoadError::Http { url: url.clone(), reason: e.to_string() };
        let mut answer = self.agent.post(&url).send_json(&request).map_err(http)?;
        let status = answer.status();
        let body = answer.body_mut().with_config().limit(MAX_ANSWER).read_to_string().map_err(http)?;
        if !status.is_success() {
            let reason = match serde_json::from_str::<ApiError>(&body) {
                Ok(e) => format!("{:?}: {}", e.code, e.message),
                Err(_) => body,
            };
            return Err(LoadError::Http { url, reason: format!("{status}: {reason}") });
        }
        serde_json::from_str(&body)
            .map_err(|e| LoadError::Http { url, reason: format!("not a created table: {e}: {body}") })
    }
}
