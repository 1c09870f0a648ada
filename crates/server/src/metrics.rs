//! The server's Prometheus metrics (`GET /metrics`): tables, connections, commands, and a
//! histogram of reveal latency; and the [`Tally`] of refusals and limits hit that the log
//! summarizes once a minute.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicI64;
use std::sync::{Arc, Mutex};

use crate::protocol::ErrorCode;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// Every metric the server keeps.
pub struct Metrics {
    registry: Registry,
    /// Tables held in memory now.
    pub tables_loaded: Gauge<i64, AtomicI64>,
    /// Tables created and not finished (in memory or not).
    pub tables_open: Gauge<i64, AtomicI64>,
    /// WebSocket connections now.
    pub connections: Gauge<i64, AtomicI64>,
    /// Requests applied and made durable.
    pub commands: Counter,
    /// Requests refused.
    pub refused: Counter,
    /// Reveals of face-down choices.
    pub reveals: Counter,
    /// Seconds from receiving the command that completed a reveal to the reveal queued to every
    /// connection of the table (its durable commit included).
    pub reveal_latency: Histogram,
    /// Journal commits (group commit shares one sync between several).
    pub commit_latency: Histogram,
    /// Refusals by code and limits hit, for the log's summary.
    pub(crate) tally: Arc<Tally>,
}

impl Metrics {
    /// Registers every metric.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("facedown");
        let tables_loaded = Gauge::<i64, AtomicI64>::default();
        let tables_open = Gauge::<i64, AtomicI64>::default();
        let connections = Gauge::<i64, AtomicI64>::default();
        let commands = Counter::default();
        let refused = Counter::default();
        let reveals = Counter::default();
        let buckets = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0];
        let reveal_latency = Histogram::new(buckets);
        let commit_latency = Histogram::new(buckets);
        registry.register("tables_loaded", "Tables held in memory", tables_loaded.clone());
        registry.register("tables_open", "Tables created and not finished", tables_open.clone());
        registry.register("connections", "WebSocket connections", connections.clone());
        registry.register("commands", "Requests applied and made durable", commands.clone());
        registry.register("refused", "Requests refused", refused.clone());
        registry.register("reveals", "Reveals of face-down choices", reveals.clone());
        registry.register(
            "reveal_latency_seconds",
            "From the command completing a reveal to the reveal queued to every connection",
            reveal_latency.clone(),
        );
        registry.register(
            "commit_latency_seconds",
            "From a journal entry handed to the store to its durable commit",
            commit_latency.clone(),
        );
        Metrics {
            registry,
            tables_loaded,
            tables_open,
            connections,
            commands,
            refused,
            reveals,
            reveal_latency,
            commit_latency,
            tally: Arc::new(Tally::default()),
        }
    }

    /// The metrics in Prometheus' text format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

/// Refusals by code and limits hit since the last summary. The log never gets a line per
/// refusal (a flood would fill the disk with it): it gets one summary a minute, and only when
/// something was counted.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    counts: Mutex<BTreeMap<(&'static str, &'static str), u64>>,
}

impl Tally {
    fn add(&self, key: (&'static str, &'static str)) {
        *self.counts.lock().unwrap_or_else(|p| p.into_inner()).entry(key).or_default() += 1;
    }

    /// A refusal with `code` (an error frame or an HTTP error).
    pub(crate) fn refusal(&self, code: ErrorCode) {
        self.add(("refused", code.as_str()));
    }

    /// A limit hit (`max_connections_per_address`, `head_timeout`, …).
    pub(crate) fn limit(&self, what: &'static str) {
        self.add(("limit", what));
    }

    /// The counts since the last summary, as `code N, code N` for refusals and for limits;
    /// counting starts again from nothing.
    pub(crate) fn take(&self) -> (String, String) {
        let counts = std::mem::take(&mut *self.counts.lock().unwrap_or_else(|p| p.into_inner()));
        let list = |kind: &str| {
            counts
                .iter()
                .filter(|((k, _), _)| *k == kind)
                .map(|((_, what), n)| format!("{what} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        (list("refused"), list("limit"))
    }

    /// Logs the summary of the last `seconds` (nothing when nothing was counted).
    pub(crate) fn log(&self, seconds: u64) {
        let (refused, limits) = self.take();
        if !refused.is_empty() {
            tracing::info!(seconds, refused = %refused, "refusals in the last {seconds} s: {refused}");
        }
        if !limits.is_empty() {
            tracing::warn!(seconds, limits = %limits, "limits hit in the last {seconds} s: {limits}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_summarized_by_code_and_counting_starts_again() {
        let t = Tally::default();
        for _ in 0..3 {
            t.refusal(ErrorCode::RateLimited);
        }
        t.refusal(ErrorCode::Unauthorized);
        t.limit("head_timeout");
        assert_eq!(t.take(), ("rate_limited 3, unauthorized 1".into(), "head_timeout 1".into()));
        assert_eq!(t.take(), (String::new(), String::new()));
    }
}
