//! The server's Prometheus metrics (`GET /metrics`): tables, connections, commands, and a
//! histogram of reveal latency.

use std::sync::atomic::AtomicI64;

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
