//! How a server is started: its [`Config`], and the [`Running`] server.

use std::net::SocketAddr;
use std::path::PathBuf;

use std::sync::Arc;

use store::tables::TableStore;
use thiserror::Error;
use tokio::sync::{mpsc, watch};

use crate::hub::Hub;

use crate::protocol::{ApiError, CreateTable, CreatedTable};

/// Where the server listens, keeps its tables, and its limits.
#[derive(Debug, Clone)]
pub struct Config {
    /// The address to listen on (`127.0.0.1:8080` by default; port 0 picks a free one).
    pub listen: SocketAddr,
    /// Where the tables are kept: a SQLite database file (created if missing), or a
    /// PostgreSQL database named by a `postgres://` or `postgresql://` URL (which must exist;
    /// see [`Config::postgres_url`]).
    pub db: PathBuf,
    /// The address clients reach the server at, when it differs from `listen` (behind a
    /// reverse proxy or a tunnel): links are made with it, and a WebSocket's Origin must be it.
    pub public_url: Option<String>,
    /// Serve HTTPS directly with this certificate and key.
    pub tls: Option<Tls>,
    /// The secret that creating a table and reading `/metrics` need, from every peer, loopback
    /// included (a tunnel relays from loopback). Without one, only this machine's own requests
    /// may, not relayed by a proxy.
    pub admin_secret: Option<String>,
    /// The limits.
    pub limits: Limits,
    /// This instance's name in a shared store's leases and on the bus between instances (at
    /// most 48 bytes); none: a random one. A server restarted after a crash that takes its old
    /// name back ([`Instance::claim`]) applies its tables' requests at once, instead of
    /// waiting for the leases the dead process held to expire.
    pub instance: Option<String>,
}

/// A name for this server on a shared store, kept in a file so that a restart reuses it, and
/// locked so that no other process on this machine uses it meanwhile.
#[derive(Debug)]
pub struct Instance {
    /// The name.
    pub name: String,
    /// The locked file: the name is this process's while it is open.
    _lock: std::fs::File,
}

impl Instance {
    /// The name kept for the database `db` in folder `dir` (`instance-HASH`, HASH from the
    /// database's address), made the first time. `None` when another process holds it (a
    /// second server on the same database and machine: it takes a random name) or the file
    /// cannot be used.
    pub fn claim(dir: &std::path::Path, db: &str) -> Option<Instance> {
        use sha2::Digest;
        use std::io::{Read, Seek, Write};
        let hash = hex::encode(sha2::Sha256::digest(db.as_bytes()));
        let path = dir.join(format!("instance-{}", &hash[..16]));
        std::fs::create_dir_all(dir).ok()?;
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .ok()?;
        file.try_lock().ok()?;
        let mut text = String::new();
        (&file).take(64).read_to_string(&mut text).ok()?;
        let kept = text.trim();
        let name =
            if kept.len() == 32 && kept.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()) {
                kept.to_owned()
            } else {
                let name = crate::auth::new_token();
                file.set_len(0).ok()?;
                file.rewind().ok()?;
                file.write_all(name.as_bytes()).ok()?;
                file.sync_all().ok()?;
                name
            };
        Some(Instance { name, _lock: file })
    }
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
    /// Messages a link may send at once above the average. The rate and the burst hold per
    /// link (every connection of it together, and across reconnections), and every frame
    /// counts: text, binary and WebSocket pings alike.
    pub burst: u32,
    /// Tables the server holds (open and stored unfinished).
    pub max_tables: usize,
    /// Sockets at once, counted when accepted (HTTP, WebSocket, or nothing sent yet). At start
    /// the server lowers it to what its open-files limit holds, keeping a tenth of the
    /// descriptors for the database ([`Running::max_connections`]).
    pub max_connections: usize,
    /// Sockets at once from one address (an IPv6 address by its /64): a group behind one
    /// router shares it; a tunnel or a proxy on the server's machine makes every client one
    /// address, so raise it there.
    pub max_connections_per_address: usize,
    /// Messages one address may send per second over all its connections, on average.
    pub messages_per_second_per_address: u32,
    /// Messages one address may send at once above its average.
    pub burst_per_address: u32,
    /// Tables one address may create per minute, on average (as many at once).
    pub tables_per_minute_per_address: u32,
    /// How long a connection has for its first bytes (enough to tell HTTP/1 from HTTP/2) and then for each request's head.
    pub head_timeout: std::time::Duration,
    /// How long a WebSocket has to say hello.
    pub hello_timeout: std::time::Duration,
    /// How long a WebSocket may send nothing (a ping, a pong, a request): the server pings it
    /// at half this time, and closes it at the full time.
    pub idle_timeout: std::time::Duration,
    /// How often the log summarizes the refusals and limits hit (never a line per refusal).
    pub summary_every: std::time::Duration,
    /// Seconds a table with no connection and nothing to do stays in memory.
    pub idle_seconds: u64,
    /// Seconds a table's lease lasts unless renewed (renewed every third of it), on a store
    /// several instances share: how long a table's bots and timers wait after their instance
    /// died before another takes them over.
    pub lease_seconds: u32,
    /// How long a seat's decision waits for another seat's awaited with it (connected to this
    /// instance, or on a shared store a person's, forwarded by another instance) before it is
    /// made durable alone: kept together, the two share one commit (docs/performance-history.md,
    /// rounds 8 and 9). Zero: never waits.
    pub hold: std::time::Duration,
    /// How long a sealed seat's reveal waits for the other reveals the bound round awaits
    /// (their seats connected as for [`Limits::hold`]), whichever is longer. A client reveals
    /// on its own as soon as the round is bound, and nothing is shown to anyone until every
    /// reveal is in, so the first one gains nothing by being made durable alone; kept together,
    /// all of them share one commit and the round resolves a commit sooner (docs/performance-history.md,
    /// round 14). Zero: as long as [`Limits::hold`].
    pub reveal_hold: std::time::Duration,
    /// Seconds after which a table nobody joined is closed for good (issue 33 §1), freeing its
    /// place under [`Limits::max_tables`]; counted from its creation, or for a table stored
    /// before the server started with no entry played, from the start. Zero: never.
    pub unjoined_seconds: u64,
    /// Seconds after which a finished table (played to its end, or closed) is deleted from the
    /// store, counted from its last entry (issue 33 §1): its journal, its links' token hashes,
    /// everything. A table that belongs to a campaign never is. Zero: kept for ever.
    pub keep_finished_seconds: u64,
    /// Entries one table's journal may hold, every request kept counted (take-backs included):
    /// past it the table refuses requests with `full` (issue 33).
    pub max_table_entries: u64,
    /// Bytes one table's journal may hold (its entries' JSON texts), as `max_table_entries`.
    pub max_table_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message_bytes: 64 * 1024,
            messages_per_second: 20,
            burst: 40,
            max_tables: 10_000,
            max_connections: 20_000,
            max_connections_per_address: 256,
            messages_per_second_per_address: 200,
            burst_per_address: 400,
            tables_per_minute_per_address: 10,
            head_timeout: std::time::Duration::from_secs(10),
            hello_timeout: std::time::Duration::from_secs(10),
            idle_timeout: std::time::Duration::from_secs(60),
            summary_every: std::time::Duration::from_secs(60),
            idle_seconds: 300,
            lease_seconds: 10,
            hold: std::time::Duration::from_millis(3),
            reveal_hold: std::time::Duration::from_millis(500),
            unjoined_seconds: 24 * 3600,
            keep_finished_seconds: 30 * 24 * 3600,
            max_table_entries: 100_000,
            max_table_bytes: 32 << 20,
        }
    }
}

impl Config {
    /// `db` when it names a PostgreSQL database (`postgres://…` or `postgresql://…`) rather
    /// than a SQLite file.
    pub fn postgres_url(&self) -> Option<&str> {
        self.db.to_str().filter(|db| store::is_postgres_url(db))
    }

    /// Where the tables are kept, for printing: the file, or the URL without its password.
    pub fn db_display(&self) -> String {
        match self.postgres_url() {
            Some(url) => store::redacted_url(url),
            None => self.db.display().to_string(),
        }
    }

    /// The embedded default: 127.0.0.1:8080, the database at `db`, default limits.
    pub fn new(db: PathBuf) -> Config {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            db,
            public_url: None,
            tls: None,
            admin_secret: None,
            limits: Limits::default(),
            instance: None,
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
    /// Opening the PostgreSQL database.
    #[error("cannot open the PostgreSQL database {db}: {reason}")]
    Db {
        /// Its URL, without the password.
        db: String,
        /// Why.
        reason: String,
    },
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
    /// The sockets it holds at most: [`Limits::max_connections`], lowered to what the
    /// open-files limit (raised to its hard limit at start) holds.
    pub max_connections: usize,
    create: Box<dyn Fn(CreateTable) -> BoxFuture<Result<CreatedTable, ApiError>> + Send + Sync>,
    /// [`Running::create_hosted_table`].
    create_hosted: CreateHostedFn,
    /// [`Running::hosted_links`].
    hosted: HostedFn,
    stop: watch::Sender<bool>,
    done: tokio::task::JoinHandle<Result<(), ServerError>>,
}

type BoxFuture<T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send>>;
type CreateHostedFn =
    Box<dyn Fn(CreateTable, Vec<u8>) -> BoxFuture<Result<CreatedTable, ApiError>> + Send + Sync>;
type HostedFn = Box<
    dyn Fn(u64, Vec<u8>, u64) -> BoxFuture<Result<Option<crate::HostedLinks>, crate::RelinkError>>
        + Send
        + Sync,
>;

impl Running {
    /// Creates a table as `POST /api/tables` does (from the host itself: no admin secret).
    pub async fn create_table(&self, request: CreateTable) -> Result<CreatedTable, ApiError> {
        (self.create)(request).await
    }

    /// Creates the table `facedown serve --table` hosts: as [`Running::create_table`], its
    /// links' tokens derived from the host's `key` (docs/hosting.md), so that
    /// [`Running::hosted_links`] gives them again after a restart.
    pub async fn create_hosted_table(
        &self,
        request: CreateTable,
        key: &[u8],
    ) -> Result<CreatedTable, ApiError> {
        (self.create_hosted)(request, key.to_vec()).await
    }

    /// The links of the hosted table `table` at `generation`, as the host's `key` derives them,
    /// or `None` when it is not there to reopen (not in the store, or finished).
    pub async fn hosted_links(
        &self,
        table: u64,
        key: &[u8],
        generation: u64,
    ) -> Result<Option<crate::HostedLinks>, crate::RelinkError> {
        (self.hosted)(table, key.to_vec(), generation).await
    }

    /// Runs until SIGTERM or Ctrl-C (caught from [`start`] on), then shuts down gracefully:
    /// connections are told ([`crate::protocol::ServerMessage::Closing`]), nothing acknowledged
    /// is lost.
    pub async fn wait(self) -> Result<(), ServerError> {
        self.done.await.map_err(|e| ServerError::Config(format!("the server task failed: {e}")))?
    }

    /// Shuts down gracefully now, and returns once it has.
    pub async fn shutdown(self) -> Result<(), ServerError> {
        let _ = self.stop.send(true);
        self.done.await.map_err(|e| ServerError::Config(format!("the server task failed: {e}")))?
    }
}

/// SIGTERM or Ctrl-C (SIGINT), caught from the call on: the future ends when one comes.
fn stop_signal() -> Result<impl std::future::Future<Output = ()> + Send, ServerError> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let catch = |kind, name: &str| {
            signal(kind).map_err(|e| ServerError::Config(format!("cannot catch {name}: {e}")))
        };
        let mut term = catch(SignalKind::terminate(), "SIGTERM")?;
        let mut int = catch(SignalKind::interrupt(), "SIGINT")?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

/// Starts a server on the store `config.db` names — PostgreSQL for a `postgres://` URL
/// ([`store::PgTables`]), else the embedded default, SQLite in that file
/// ([`store::SqliteTables`]): opens it, binds, and serves. Tables load when a client comes
/// (those with bots at once).
pub async fn start(config: Config) -> Result<Running, ServerError> {
    if let Some(url) = config.postgres_url() {
        let store = store::PgTables::open(url)
            .await
            .map_err(|e| ServerError::Db { db: store::redacted_url(url), reason: e.to_string() })?;
        return start_with(config, store).await;
    }
    let store = store::SqliteTables::open(&config.db).await?;
    start_with(config, store).await
}

/// Starts a server on `store`.
pub async fn start_with<S: TableStore>(config: Config, store: S) -> Result<Running, ServerError> {
    if let Some(url) = &config.public_url
        && !(url.starts_with("http://") || url.starts_with("https://"))
    {
        return Err(ServerError::Config(format!("--public-url: {url:?} is not an http:// or https:// URL")));
    }
    let mut config = config;
    if let Some(files) = crate::limits::raise_open_files() {
        let fit = crate::limits::connections_for(files);
        if fit < config.limits.max_connections {
            tracing::warn!(
                open_files = files,
                max_connections = fit,
                "{files} open files hold {fit} connections (a tenth stays for the database): \
                 the connection limit is {fit}, not {}",
                config.limits.max_connections
            );
            config.limits.max_connections = fit;
        }
    }
    let max_connections = config.limits.max_connections;
    let tls = match &config.tls {
        Some(tls) => {
            // One process-wide provider; installing it twice is harmless.
            let _ = rustls::crypto::ring::default_provider().install_default();
            Some(axum_server::tls_rustls::RustlsConfig::from_pem_file(&tls.cert, &tls.key).await.map_err(
                |e| {
                    ServerError::Tls(format!(
                        "--tls-cert {} / --tls-key {}: {e}",
                        tls.cert.display(),
                        tls.key.display()
                    ))
                },
            )?)
        }
        None => None,
    };
    let listener = std::net::TcpListener::bind(config.listen)
        .map_err(|e| ServerError::Listen { addr: config.listen, reason: e.to_string() })?;
    listener
        .set_nonblocking(true)
        .map_err(|e| ServerError::Listen { addr: config.listen, reason: e.to_string() })?;
    let addr = listener
        .local_addr()
        .map_err(|e| ServerError::Listen { addr: config.listen, reason: e.to_string() })?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    let base_url = match &config.public_url {
        Some(url) => url.trim_end_matches('/').to_owned(),
        None => format!("{scheme}://{addr}"),
    };
    // On a shared store, heard from before the tables are listed: nothing in between is lost.
    // This instance's name in the leases and on the bus between instances.
    let instance = config.instance.clone().unwrap_or_else(crate::auth::new_token);
    let heard = store.listen_as(&instance).await?;
    let open = store.open_tables().await?;
    let (stop, stopped) = watch::channel(false);
    let (alive, all_gone) = mpsc::channel::<()>(1);
    let hub =
        Arc::new(Hub::new(store, config, base_url.clone(), open.len(), stopped.clone(), alive, instance));
    if let Some(heard) = heard {
        tokio::spawn(crate::hub::fanout::run(Arc::clone(&hub), heard, stopped.clone()));
    }
    // Tables nobody joined, and finished ones, expire from the start (issue 33 §1).
    hub.sweep();
    let edge = Arc::new(crate::limits::Edge::new(
        hub.config.limits.clone(),
        tls.is_some(),
        Arc::clone(&hub.metrics.tally),
    ));
    let app = crate::web::router(Arc::clone(&hub), Arc::clone(&edge))
        .into_make_service_with_connect_info::<SocketAddr>();
    let handle = axum_server::Handle::new();
    let head_timeout = hub.config.limits.head_timeout;
    let idle_timeout = hub.config.limits.idle_timeout.max(std::time::Duration::from_millis(10));
    let serving = {
        let handle = handle.clone();
        async move {
            // Every accepted socket is counted and capped, per address and in all, before
            // anything is read from it (crate::limits).
            let accept = crate::limits::Acceptor { edge };
            let mut server = axum_server::from_tcp(listener)?;
            // A request's head must come whole within the timeout (a client sending half a
            // request holds nothing for long).
            server
                .http_builder()
                .http1()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(head_timeout);
            // An HTTP/2 connection is pinged when quiet and closed when its peer does not answer
            // (browsers do by themselves), as a WebSocket is.
            server
                .http_builder()
                .http2()
                .timer(hyper_util::rt::TokioTimer::new())
                .keep_alive_interval(idle_timeout / 2)
                .keep_alive_timeout(idle_timeout / 2);
            match tls {
                Some(tls) => {
                    let edge = Arc::clone(&accept.edge);
                    let tls = axum_server::tls_rustls::RustlsAcceptor::new(tls)
                        .handshake_timeout(head_timeout)
                        .acceptor(accept);
                    let told = crate::limits::TlsTold { inner: tls, edge };
                    server.acceptor(told).handle(handle).serve(app).await
                }
                None => server.acceptor(accept).handle(handle).serve(app).await,
            }
        }
    };
    {
        // The refusals and limits hit, summarized once a minute (never a line per refusal).
        let tally = Arc::clone(&hub.metrics.tally);
        let every = hub.config.limits.summary_every.max(std::time::Duration::from_millis(10));
        let mut stopped = stopped.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
            loop {
                tokio::select! {
                    _ = tick.tick() => tally.log(every.as_secs()),
                    _ = stopped.wait_for(|s| *s) => break,
                }
            }
            tally.log(every.as_secs());
        });
    }
    tracing::info!(%addr, url = %base_url, max_connections, "listening on {addr} ({base_url})");
    let server = tokio::spawn(serving);
    let done = {
        let hub = Arc::clone(&hub);
        let mut stopped = stopped;
        tokio::spawn(async move {
            let _ = stopped.wait_for(|s| *s).await;
            // Tables finish what they are keeping and tell their clients; then HTTP stops.
            hub.close_all(all_gone).await;
            handle.graceful_shutdown(Some(std::time::Duration::from_secs(5)));
            let served = server.await.map_err(|e| ServerError::Config(e.to_string()))?;
            // Issue 33: SQLite's write-ahead log folded into the database file.
            if let Err(e) = hub.store.shut_down().await {
                tracing::error!("closing the store: {e}");
            }
            served.map_err(|e| ServerError::Listen { addr, reason: e.to_string() })?;
            tracing::info!("stopped");
            Ok(())
        })
    };
    // Caught from here on, before the caller can print where the server is: a signal sent by
    // whoever reads that never finds the default action (death) in place.
    let signalled = stop_signal()?;
    {
        let stop = stop.clone();
        tokio::spawn(async move {
            signalled.await;
            tracing::info!("shutting down");
            let _ = stop.send(true);
        });
    }
    let creator = Arc::clone(&hub);
    let create = Box::new(move |request: CreateTable| -> BoxFuture<Result<CreatedTable, ApiError>> {
        let hub = Arc::clone(&creator);
        Box::pin(async move {
            let created = hub.create_table(request).await;
            crate::web::log_created(&created, None);
            created.map_err(|r| ApiError { code: r.code, message: r.message })
        })
    });
    let creator = Arc::clone(&hub);
    let create_hosted =
        Box::new(move |request: CreateTable, key: Vec<u8>| -> BoxFuture<Result<CreatedTable, ApiError>> {
            let hub = Arc::clone(&creator);
            Box::pin(async move {
                let created = hub.create_hosted_table(request, &key).await;
                crate::web::log_created(&created, None);
                created.map_err(|r| ApiError { code: r.code, message: r.message })
            })
        });
    let reader = Arc::clone(&hub);
    let hosted: HostedFn = Box::new(move |table: u64, key: Vec<u8>, generation: u64| {
        let hub = Arc::clone(&reader);
        Box::pin(async move {
            let id = store::tables::TableId(table);
            crate::hosted_links(&hub.store, id, &key, generation, &hub.base_url).await
        })
    });
    Ok(Running { addr, base_url, max_connections, create, create_hosted, hosted, stop, done })
}

#[cfg(test)]
mod tests {
    use super::Instance;

    #[test]
    fn an_instance_name_is_kept_for_a_restart_and_never_shared_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let first = Instance::claim(dir.path(), "postgres://h/db").expect("a name");
        assert_eq!(first.name.len(), 32);
        assert!(Instance::claim(dir.path(), "postgres://h/db").is_none(), "held by the first");
        let other = Instance::claim(dir.path(), "postgres://h/other").expect("another database");
        assert_ne!(other.name, first.name);
        let name = first.name.clone();
        drop(first);
        assert_eq!(Instance::claim(dir.path(), "postgres://h/db").unwrap().name, name, "the restart's");
    }
}
