//! The server's HTTP API as the load generator uses it: `POST /api/tables` (from loopback, so
//! no admin secret is needed).

use std::collections::BTreeMap;
use std::time::Duration;

use server::protocol::{ApiError, CreateTable, CreatedTable, SetupSource, TableOptions};

use crate::LoadError;

/// HTTP connections kept open for the next request.
const IDLE_CONNECTIONS: usize = 64;

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
            // Connections are kept for the next request (a table is opened for every game
            // that ends: a TCP connection each cost both processes an accept and a close); a
            // kept one the server closed meanwhile fails its request, which is tried again.
            .max_idle_connections(IDLE_CONNECTIONS)
            .max_idle_connections_per_host(IDLE_CONNECTIONS)
            .build()
            .into();
        Api { agent, base: base.trim_end_matches('/').to_owned() }
    }

    /// The server's Prometheus metrics (`GET /metrics`), as text.
    pub fn metrics(&self) -> Result<String, LoadError> {
        let url = format!("{}/metrics", self.base);
        let http = |e: ureq::Error| LoadError::Http { url: url.clone(), reason: e.to_string() };
        let mut answer = self.agent.get(&url).call().map_err(http)?;
        answer.body_mut().with_config().limit(MAX_ANSWER).read_to_string().map_err(http)
    }

    /// Creates a table of `system` from its example `example`, every seat a person's, with
    /// `options` (which seats play sealed).
    pub fn create_table(
        &self,
        system: &str,
        example: &str,
        options: TableOptions,
    ) -> Result<CreatedTable, LoadError> {
        let request = CreateTable {
            system: system.to_owned(),
            setup: SetupSource::Example(example.to_owned()),
            seats: BTreeMap::new(),
            options,
            rules: Default::default(),
        };
        let url = format!("{}/api/tables", self.base);
        let http = |e: ureq::Error| LoadError::Http { url: url.clone(), reason: e.to_string() };
        // A connection reset before any answer (seen with thousands of sockets open) is tried
        // again, twice at most; at worst a table was created and is left unused.
        let mut tries = 0;
        let mut answer = loop {
            tries += 1;
            match self.agent.post(&url).send_json(&request) {
                // A kept connection the server had closed fails before the request is read.
                // (Should an I/O error come after the server read it, a second table is
                // opened and the first left idle: harmless to a load.)
                Err(ureq::Error::Io(_) | ureq::Error::ConnectionFailed) if tries < 3 => continue,
                other => break other.map_err(http)?,
            }
        };
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

/// The value of the sample `name` (no labels) in Prometheus text.
pub fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines().find_map(|line| {
        let (key, value) = line.split_once(' ')?;
        (key == name).then(|| value.trim().parse().ok())?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metric_is_read_by_its_exact_name() {
        let text = "# HELP commit_latency_seconds x\ncommit_latency_seconds_sum 1.5\n\
                    commit_latency_seconds_count 30\ncommit_latency_seconds_bucket{le=\"0.001\"} 3\n";
        assert_eq!(metric(text, "commit_latency_seconds_sum"), Some(1.5));
        assert_eq!(metric(text, "commit_latency_seconds_count"), Some(30.0));
        assert_eq!(metric(text, "commit_latency_seconds"), None);
        assert_eq!(metric(text, "reveals_total"), None);
    }
}
