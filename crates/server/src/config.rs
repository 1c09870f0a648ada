//! How a server is started: its [`Config`], and the [`Running`] server.
//!
//! INTERFACE STUB: the server's core lands in issue 15's core work.

use std::net::SocketAddr;
use std::path::PathBuf;

use thiserror::Error;

use crate::protocol::{ApiError, CreateTable, CreatedTable};

/// Where the server listens, keeps its tables, and its limits.
#[derive(Debug, Clone)]
pub struct Config {
    /// The address to listen on (`127.0.0.1:8080` by default; port 0 picks a free one).
    pub listen: SocketAddr,
    /// The SQLite database the tables are kept in (created if missing).
    pub db: PathBuf,
    /// The address clients reach the server at, when it differs from `listen` (behind a
    /// reverse proxy or a tunnel): links are made with it, and a WebSocket's Origin must be it.
    pub public_url: Option<String>,
    /// Serve HTTPS directly with this certificate and key.
    pub tls: Option<Tls>,
    /// The secret that creating a table needs unless the request comes from loopback.
    pub admin_secret: Option<String>,
    /// The limits.
    pub limits: Limits,
}

/// A certificate chain and its private key, PEM files.
#[derive(Debug, Clone)]
pub struct Tls {
    /// The certificate chain.
    pub cert: PathBuf,
    /// The private key.
    pub key: PathBuf,
}

/// The server's limits.
#[derive(Debug, Clone)]
pub struct Limits {
    /// The largest WebSocket message or HTTP body accepted, in bytes.
    pub max_message_bytes: usize,
    /// Messages a connection may send per second, on average.
    pub messages_per_second: u32,
    /// Messages a connection may send at once above the average.
    pub burst: u32,
    /// Tables the server holds (open and stored unfinished).
    pub max_tables: usize,
    /// Connections at once.
    pub max_connections: usize,
    /// Seconds a table with no connection and nothing to do stays in memory.
    pub idle_seconds: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message_bytes: 64 * 1024,
            messages_per_second: 20,
            burst: 40,
            max_tables: 10_000,
            max_connections: 20_000,
            idle_seconds: 300,
        }
    }
}

impl Config {
    /// The embedded default: 127.0.0.1:8080, the database at `db`, default limits.
    pub fn new(db: PathBuf) -> Config {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            db,
            public_url: None,
            tls: None,
            admin_secret: None,
            limits: Limits::default(),
        }
    }
}

/// Why the server could not start or stopped.
#[derive(Debug, Error)]
pub enum ServerError {
    /// Binding the address.
    #[error("cannot listen on {addr}: {reason}")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// Why.
        reason: String,
    },
    /// The store.
    #[error(transparent)]
    Store(#[from] store::PersistError),
    /// The TLS certificate or key.
    #[error("TLS: {0}")]
    Tls(String),
    /// A configuration value.
    #[error("{0}")]
    Config(String),
}

/// A started server.
pub struct Running {
    /// The address it listens on (the port chosen when `listen` had port 0).
    pub addr: SocketAddr,
    /// The base of its links: the public URL, or `http(s)://addr`.
    pub base_url: String,
}

impl Running {
    /// Creates a table as `POST /api/tables` does (from the host itself: no admin secret).
    pub async fn create_table(&self, request: CreateTable) -> Result<CreatedTable, ApiError> {
        let _ = request;
        Err(ApiError { code: crate::protocol::ErrorCode::Internal, message: "not yet".into() })
    }

    /// Runs until SIGTERM or Ctrl-C, then shuts down gracefully: connections are told
    /// ([`crate::protocol::ServerMessage::Closing`]), nothing acknowledged is lost.
    pub async fn wait(self) -> Result<(), ServerError> {
        Ok(())
    }

    /// Shuts down gracefully now.
    pub async fn shutdown(self) {}
}

/// Starts a server: opens the store, resumes its open tables lazily, binds, and serves.
pub async fn start(config: Config) -> Result<Running, ServerError> {
    let _ = config;
    Err(ServerError::Config("not yet".into()))
}
