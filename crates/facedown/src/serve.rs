//! `facedown serve`: hosts remote tables (the `server` crate) from the command line, and with
//! `--table` creates one at start-up and prints its links: one command to host a game for
//! friends.

use std::io::{IsTerminal, Write};
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use server::protocol::{
    Controller, CreateTable, CreatedTable, SeatMode, SetupSource, TableOptions, link, parse_link,
};
use server::{Config, Limits, Tls};

use crate::input::{TEXT_LIMIT, escape, read_bounded};

/// Host remote tables: every seat plays from its own device and sees only what it may.
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  \
facedown serve --table iron-triangle:duel --bot gm=greedy   # one table, a bot as the GM\n  \
facedown serve --listen 0.0.0.0:8080 --table nodice             # friends on the same network\n  \
facedown serve --public-url https://dice.example.org           # behind a reverse proxy with TLS\n  \
facedown serve --tls-cert cert.pem --tls-key key.pem --listen 0.0.0.0:8443\n\n\
Each seat's link carries its secret token after the `#`: hand every player their own link.\n\
Tables can also be created with POST /api/tables (docs/protocol.md, docs/hosting.md).",
    args_override_self = true
)]
pub struct Args {
    /// The address to listen on (port 0 picks a free one). 0.0.0.0 or [::] let other machines
    /// of the network connect: the links are printed with this machine's addresses.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,

    /// Where the tables are kept: a SQLite database file (created if missing) [default:
    /// facedown/server.db in your data directory], or a PostgreSQL database,
    /// postgres://USER@HOST:PORT/DATABASE (it must exist; give the password in PGPASSWORD or
    /// ~/.pgpass rather than in the URL, which shows in the process list).
    #[arg(long, value_name = "FILE|URL")]
    pub db: Option<PathBuf>,

    /// The address players reach the server at, when it is not the listening address
    /// (behind a reverse proxy or a tunnel, e.g. https://dice.example.org): links use it, and
    /// a WebSocket's Origin must be it.
    #[arg(long, value_name = "URL")]
    pub public_url: Option<String>,

    /// Serve HTTPS directly with this certificate chain (PEM); needs --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// The private key (PEM) of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// The secret that creating a table over HTTP needs (as `Authorization: Bearer SECRET`)
    /// unless the request comes from this machine; at least 16 characters. Prefer the
    /// environment variable: a flag shows in the process list. Never printed.
    #[arg(long, value_name = "SECRET", env = "FACEDOWN_ADMIN_SECRET", hide_env_values = true)]
    pub admin_secret: Option<String>,

    /// The largest WebSocket message or HTTP body accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_message_bytes)]
    pub max_message_bytes: usize,

    /// Messages a link may send per second, on average (all its connections together; every
    /// frame counts, pings included).
    #[arg(long, value_name = "N", default_value_t = Limits::default().messages_per_second)]
    pub messages_per_second: u32,

    /// Messages a link may send at once above the average.
    #[arg(long, value_name = "N", default_value_t = Limits::default().burst)]
    pub burst: u32,

    /// Connections at once from one address (an IPv6 address by its /64). Behind a tunnel or
    /// a proxy on this machine every player comes from one address: raise it there.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_connections_per_address)]
    pub max_connections_per_address: usize,

    /// Messages one address may send per second over all its connections, on average.
    #[arg(long, value_name = "N", default_value_t = Limits::default().messages_per_second_per_address)]
    pub messages_per_second_per_address: u32,

    /// Messages one address may send at once above its average.
    #[arg(long, value_name = "N", default_value_t = Limits::default().burst_per_address)]
    pub burst_per_address: u32,

    /// Tables one address may create per minute (POST /api/tables), on average.
    #[arg(long, value_name = "N", default_value_t = Limits::default().tables_per_minute_per_address)]
    pub tables_per_minute_per_address: u32,

    /// The server's log on standard error: text lines, or JSON lines (one object a line).
    /// RUST_LOG filters it (default: info).
    #[arg(long, value_enum, value_name = "FORMAT", default_value = "text")]
    pub log_format: LogFormat,

    /// Tables the server holds (open and stored unfinished).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_tables)]
    pub max_tables: usize,

    /// Requests one table keeps (take-backs included): past it the table refuses more with
    /// `full`, and still loads.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_table_entries)]
    pub max_table_entries: u64,

    /// Bytes one table's kept requests may take (their JSON texts), as --max-table-entries.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_table_bytes)]
    pub max_table_bytes: u64,

    /// Connections at once.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_connections)]
    pub max_connections: usize,

    /// Seconds a table with no connection and nothing to do stays in memory (it is reloaded
    /// from the database when someone comes back).
    #[arg(long, value_name = "SECONDS", default_value_t = Limits::default().idle_seconds)]
    pub idle_seconds: u64,

    /// Seconds after which a table nobody joined closes for good, freeing its place under
    /// --max-tables (0: never).
    #[arg(long, value_name = "SECONDS", default_value_t = Limits::default().unjoined_seconds)]
    pub unjoined_seconds: u64,

    /// Seconds after which a finished or closed table is deleted from the database, counted
    /// from its last entry (30 days by default; 0: kept for ever). Export a table you want to
    /// keep before then (`facedown tables export`).
    #[arg(long, value_name = "SECONDS", default_value_t = Limits::default().keep_finished_seconds)]
    pub keep_finished_seconds: u64,

    /// Milliseconds a seat's decision waits for another seat's awaited with it (connected to
    /// this server, or on PostgreSQL to another instance) before it is made durable alone;
    /// kept together, the two share one sync. 0: never waits.
    #[arg(long, value_name = "MS", default_value_t = Limits::default().hold.as_millis() as u64,
          value_parser = clap::value_parser!(u64).range(0..=1000))]
    pub hold_ms: u64,

    /// Milliseconds a sealed seat's reveal waits for the other reveals of its bound round
    /// (clients reveal on their own once bound, and nothing is shown before all are in): kept
    /// together, they share one sync and the round resolves sooner. 0: as long as --hold-ms.
    #[arg(long, value_name = "MS", default_value_t = Limits::default().reveal_hold.as_millis() as u64,
          value_parser = clap::value_parser!(u64).range(0..=10_000))]
    pub reveal_hold_ms: u64,

    /// Create a table at start-up and print its links: SYSTEM:EXAMPLE (an example's file name,
    /// iron-triangle:ambush-2v3), or SYSTEM alone for its default example (iron-triangle: duel,
    /// nodice: pc-vs-bandit, inciting-incident: river-fight).
    #[arg(long, value_name = "SYSTEM[:EXAMPLE]")]
    pub table: Option<String>,

    /// With --table: a bot plays a seat on the server, SEAT=KIND (the system's bot kinds:
    /// random, greedy, …). Repeatable.
    #[arg(long = "bot", value_name = "SEAT=KIND", requires = "table")]
    pub bots: Vec<String>,

    /// With --table: a seat that plays sealed, by name: its client commits to each face-down
    /// choice by a hash and reveals it once every seat is bound, so not even this server knows
    /// it before (docs/protocol.md, Sealed choices). Repeatable; the other seats play plain.
    #[arg(long = "sealed", value_name = "SEAT", requires = "table")]
    pub sealed: Vec<String>,

    /// With --table: milliseconds a bot waits before it decides, so people can follow.
    #[arg(long, value_name = "MS", default_value_t = 400, requires = "table")]
    pub think_ms: u32,

    /// With --table: seconds each seat has for a decision; then the rules' documented default
    /// is taken for it (a forced decision, logged for everyone).
    #[arg(long, value_name = "SECONDS", requires = "table")]
    pub decision_seconds: Option<u32>,

    /// Print the links as QR codes even when the output is not a terminal (they are printed
    /// on a terminal when the server listens on the network).
    #[arg(long)]
    pub qr: bool,

    /// Print one JSON line once the server is listening (addr, url, urls, the table's links)
    /// instead of text.
    #[arg(long)]
    pub json: bool,
}

/// How the server's log is written (`--log-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// One line of text an event.
    Text,
    /// One JSON object a line (`timestamp`, `level`, `fields`, `target`).
    Json,
}

/// The log's filter: RUST_LOG's directives, or `info` when it is not set.
fn log_filter() -> anyhow::Result<tracing_subscriber::EnvFilter> {
    match std::env::var("RUST_LOG") {
        Ok(spec) => tracing_subscriber::EnvFilter::try_new(&spec)
            .with_context(|| format!("RUST_LOG {:?}", escape(&spec))),
        Err(_) => Ok(tracing_subscriber::EnvFilter::new("info")),
    }
}

/// The log: the `tracing` events `filter` lets through, written to `writer` in `format`.
fn log_subscriber<W>(
    format: LogFormat,
    filter: tracing_subscriber::EnvFilter,
    ansi: bool,
    writer: W,
) -> Box<dyn tracing::Subscriber + Send + Sync>
where
    W: for<'a> tracing_subscriber::fmt::MakeWriter<'a> + Send + Sync + 'static,
{
    let log = tracing_subscriber::fmt().with_env_filter(filter).with_writer(writer);
    match format {
        LogFormat::Text => Box::new(log.with_ansi(ansi).finish()),
        LogFormat::Json => Box::new(log.json().finish()),
    }
}

/// Sends the server's log (the `tracing` events of every crate) to standard error, filtered
/// by RUST_LOG (`info` when it is not set), in `format`.
fn start_logging(format: LogFormat) -> anyhow::Result<()> {
    let subscriber = log_subscriber(format, log_filter()?, std::io::stderr().is_terminal(), std::io::stderr);
    tracing::subscriber::set_global_default(subscriber).map_err(|e| anyhow::anyhow!("the log: {e}"))
}

/// The example `--table SYSTEM` plays, by system: the one `play` starts without a file, or
/// the first of the system's rules reference.
const DEFAULT_EXAMPLES: &[(&str, &str)] =
    &[("iron-triangle", "duel"), ("nodice", "pc-vs-bandit"), ("inciting-incident", "river-fight")];

/// The example `--table SYSTEM` plays.
fn default_example(system: &str) -> Option<String> {
    DEFAULT_EXAMPLES
        .iter()
        .find(|(s, _)| *s == system)
        .map(|(_, e)| *e)
        .or_else(|| server::systems::examples(system).and_then(|e| e.first().copied()))
        .map(str::to_owned)
}

/// The table `--table SYSTEM[:EXAMPLE]` asks for.
#[derive(Debug)]
struct TableSpec {
    system: String,
    example: Option<String>,
}

/// Reads `--table`.
fn table_spec(spec: &str) -> anyhow::Result<TableSpec> {
    let (system, example) = match spec.split_once(':') {
        Some((s, e)) => (s.trim(), Some(e.trim())),
        None => (spec.trim(), None),
    };
    if !server::systems::SYSTEMS.contains(&system) {
        bail!(
            "--table {:?}: there is no rule system named {:?} (the systems are {})",
            escape(spec),
            escape(system),
            server::systems::SYSTEMS.join(", ")
        );
    }
    if example.is_some_and(str::is_empty) {
        bail!("--table {:?}: write SYSTEM:EXAMPLE, e.g. iron-triangle:duel", escape(spec));
    }
    Ok(TableSpec { system: system.to_owned(), example: example.map(str::to_owned) })
}

/// Reads the `--bot SEAT=KIND` flags into the seats of a table request.
fn seat_bots(
    specs: &[String],
    system: &str,
) -> anyhow::Result<std::collections::BTreeMap<String, Controller>> {
    let mut seats = std::collections::BTreeMap::new();
    for spec in specs {
        let Some((seat, kind)) = spec.split_once('=') else {
            bail!("--bot {:?}: write SEAT=KIND, e.g. gm=greedy", escape(spec));
        };
        let (seat, kind) = (seat.trim(), kind.trim().to_ascii_lowercase());
        if seat.is_empty() || kind.is_empty() {
            bail!("--bot {:?}: write SEAT=KIND, e.g. gm=greedy", escape(spec));
        }
        if let Some(kinds) = server::systems::bot_kinds(system)
            && !kinds.contains(&kind.as_str())
        {
            bail!(
                "--bot {:?}: unknown bot kind {:?}; {system} has {}",
                escape(spec),
                escape(&kind),
                kinds.join(", ")
            );
        }
        seats.insert(seat.to_owned(), Controller::Bot { bot: kind });
    }
    Ok(seats)
}

/// The default database: `facedown/server.db` in the user's data directory.
pub(crate) fn default_db() -> anyhow::Result<PathBuf> {
    let dir = dirs::data_dir().context(
        "--db: this system has no data directory for the default database; name one with --db FILE",
    )?;
    Ok(dir.join("facedown").join("server.db"))
}

/// Checks that a PEM file given as `flag` can be read, so a typo is named before the server
/// starts (the server checks what is inside).
fn check_pem(flag: &str, path: &Path) -> anyhow::Result<()> {
    let text = read_bounded(path, TEXT_LIMIT).with_context(|| format!("{flag} {}", path.display()))?;
    if !text.contains("-----BEGIN ") {
        bail!("{flag} {}: not a PEM file (no -----BEGIN line)", path.display());
    }
    Ok(())
}

/// The server's configuration from the flags.
fn config(args: &Args) -> anyhow::Result<Config> {
    let db = match &args.db {
        Some(p) => p.clone(),
        None => default_db()?,
    };
    let postgres = db.to_str().is_some_and(store::is_postgres_url);
    if !postgres && let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("--db: cannot create the folder {}", dir.display()))?;
    }
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => {
            check_pem("--tls-cert", cert)?;
            check_pem("--tls-key", key)?;
            Some(Tls { cert: cert.clone(), key: key.clone() })
        }
        _ => None,
    };
    if let Some(url) = &args.public_url
        && !(url.starts_with("http://") || url.starts_with("https://"))
    {
        bail!(
            "--public-url {:?}: write the address players open, starting with https:// or http://",
            escape(url)
        );
    }
    if args.admin_secret.as_ref().is_some_and(|s| s.len() < 16) {
        bail!("--admin-secret (or FACEDOWN_ADMIN_SECRET): use at least 16 characters");
    }
    if args.max_message_bytes < 1024 {
        bail!("--max-message-bytes {}: at least 1024 (a welcome is larger)", args.max_message_bytes);
    }
    if args.messages_per_second == 0
        || args.max_tables == 0
        || args.max_connections == 0
        || args.max_connections_per_address == 0
        || args.messages_per_second_per_address == 0
        || args.tables_per_minute_per_address == 0
        || args.max_table_entries == 0
        || args.max_table_bytes == 0
    {
        bail!(
            "--messages-per-second, --max-tables, --max-connections, --max-connections-per-address, \
             --messages-per-second-per-address, --tables-per-minute-per-address, --max-table-entries \
             and --max-table-bytes must be at least 1"
        );
    }
    Ok(Config {
        listen: args.listen,
        db,
        public_url: args.public_url.clone(),
        tls,
        admin_secret: args.admin_secret.clone(),
        instance: None,
        limits: Limits {
            max_message_bytes: args.max_message_bytes,
            messages_per_second: args.messages_per_second,
            burst: args.burst,
            max_tables: args.max_tables,
            max_connections: args.max_connections,
            max_connections_per_address: args.max_connections_per_address,
            messages_per_second_per_address: args.messages_per_second_per_address,
            burst_per_address: args.burst_per_address,
            tables_per_minute_per_address: args.tables_per_minute_per_address,
            max_table_entries: args.max_table_entries,
            max_table_bytes: args.max_table_bytes,
            idle_seconds: args.idle_seconds,
            unjoined_seconds: args.unjoined_seconds,
            keep_finished_seconds: args.keep_finished_seconds,
            hold: std::time::Duration::from_millis(args.hold_ms),
            reveal_hold: std::time::Duration::from_millis(args.reveal_hold_ms),
            ..Limits::default()
        },
    })
}

/// The bases other machines reach the server at when it listens on every address (0.0.0.0 or
/// ::): one per non-loopback address of this machine, IPv4 first.
fn network_bases(listen: SocketAddr, port: u16, scheme: &str) -> Vec<String> {
    if !listen.ip().is_unspecified() {
        return Vec::new();
    }
    let Ok(interfaces) = if_addrs::get_if_addrs() else { return Vec::new() };
    let mut ips: Vec<IpAddr> = interfaces
        .iter()
        .filter(|i| !i.is_loopback())
        .map(|i| i.ip())
        .filter(|ip| listen.is_ipv6() || ip.is_ipv4())
        // Link-local IPv6 addresses need a zone in a URL: leave them out.
        .filter(|ip| match ip {
            IpAddr::V6(v6) => (v6.segments()[0] & 0xffc0) != 0xfe80,
            IpAddr::V4(_) => true,
        })
        .collect();
    ips.sort_by_key(|ip| (ip.is_ipv6(), *ip));
    ips.dedup();
    ips.into_iter().map(|ip| format!("{scheme}://{}", SocketAddr::new(ip, port))).collect()
}

/// `created` with its links on `base` instead of the server's own.
fn rebased(created: &CreatedTable, base: &str) -> CreatedTable {
    let on = |l: &str| match parse_link(l) {
        Some((_, table, token)) => link(base, &table, &token),
        None => l.to_owned(),
    };
    CreatedTable {
        table: created.table.clone(),
        seats: created.seats.iter().map(|(k, v)| (k.clone(), on(v))).collect(),
        gm: on(&created.gm),
        spectator: on(&created.spectator),
    }
}

/// `text` as a QR code of Unicode half blocks (two modules a character), with its quiet zone.
pub fn qr_text(text: &str) -> anyhow::Result<String> {
    use qrcode::render::unicode::Dense1x2;
    let code = qrcode::QrCode::new(text.as_bytes()).context("the link is too long for a QR code")?;
    Ok(code
        .render::<Dense1x2>()
        .dark_color(Dense1x2::Light)
        .light_color(Dense1x2::Dark)
        .quiet_zone(true)
        .build())
}

/// What start-up prints: the addresses and the table's links.
struct Started<'a> {
    addr: SocketAddr,
    url: &'a str,
    urls: &'a [String],
    db: &'a str,
    table: Option<(&'a CreatedTable, &'a str, &'a std::collections::BTreeMap<String, Controller>)>,
    /// Whether the table is the one this command made before, reopened (docs/hosting.md).
    reopened: bool,
    /// Its links changed from the GM screen since (`seat:N`, `gm`, `spectator`).
    changed: &'a [String],
}

fn print_started(out: &mut dyn Write, s: &Started<'_>, qr: bool) -> anyhow::Result<()> {
    writeln!(out, "facedown serve: listening on {} ({}), tables kept in {}", s.addr, s.url, escape(s.db))?;
    writeln!(out, "Open {}/ in a browser to create a table.", s.url.trim_end_matches('/'))?;
    if !s.urls.is_empty() {
        writeln!(out, "Reachable on this network at:")?;
        for u in s.urls {
            writeln!(out, "  {u}")?;
        }
    }
    if let Some((created, what, seats)) = s.table {
        let again = if s.reopened { ", reopened: it is not finished" } else { "" };
        writeln!(
            out,
            "\nTable {} ({}){again}. Hand each player their own link: the part after # is their key.",
            escape(&created.table),
            escape(what)
        )?;
        for (seat, l) in &created.seats {
            let by = match seats.get(seat) {
                Some(Controller::Bot { bot }) => {
                    format!(" (a {} bot plays it; the link takes it over)", escape(bot))
                }
                _ => String::new(),
            };
            writeln!(out, "  seat {}{by}: {l}", escape(seat))?;
        }
        if !created.gm.is_empty() {
            writeln!(out, "  GM (manages the table): {}", created.gm)?;
        }
        if !created.spectator.is_empty() {
            writeln!(out, "  spectators: {}", created.spectator)?;
        }
        if !s.changed.is_empty() {
            writeln!(
                out,
                "  Changed from the GM screen since, so not shown here: {} (`facedown tables links {}` \
                 makes every link anew).",
                s.changed.join(", "),
                escape(&created.table)
            )?;
        }
        writeln!(
            out,
            "Open a link in a browser to play its seat, or in a terminal with `facedown join --link-file FILE`."
        )?;
        if qr {
            for (seat, l) in
                created.seats.iter().filter(|(s, _)| !matches!(seats.get(*s), Some(Controller::Bot { .. })))
            {
                writeln!(out, "\nseat {}:", escape(seat))?;
                write!(out, "{}", qr_text(l)?)?;
                writeln!(out)?;
            }
        }
    } else if qr && let Some(u) = s.urls.first() {
        writeln!(out)?;
        writeln!(out, "{}", qr_text(u)?)?;
    }
    writeln!(out, "Stop with Ctrl-C (or SIGTERM): nothing acknowledged is lost.")?;
    out.flush()?;
    Ok(())
}

/// `facedown serve`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut config = config(&args)?;
    // On PostgreSQL, the name this machine's server had on that database before (kept in the
    // data directory): restarted after a crash, it holds its tables' leases again at once.
    let _instance = match (config.postgres_url(), dirs::data_dir()) {
        (Some(url), Some(dir)) => server::Instance::claim(&dir.join("facedown"), url),
        _ => None,
    };
    config.instance = _instance.as_ref().map(|i| i.name.clone());
    let spec = args.table.as_deref().map(table_spec).transpose()?;
    let seats = match &spec {
        Some(s) => seat_bots(&args.bots, &s.system)?,
        None => Default::default(),
    };
    let scheme = if config.tls.is_some() { "https" } else { "http" };
    let db = config.db_display();
    // The hosted table's key and record (docs/hosting.md): the same command reopens its table.
    let host = match &spec {
        Some(_) => Some(crate::serve_host::HostFiles::for_db(&config.db, config.postgres_url().is_some())?),
        None => None,
    };
    start_logging(args.log_format)?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async move {
        let running = server::start(config).await.context("the server cannot start")?;
        let urls = if args.public_url.is_some() {
            Vec::new()
        } else {
            network_bases(args.listen, running.addr.port(), scheme)
        };
        // Links name the first address the network reaches when the server itself would name
        // an address nobody can open (0.0.0.0).
        let base = match urls.first() {
            Some(u) if args.public_url.is_none() => u.clone(),
            _ => running.base_url.clone(),
        };
        // Whether the hosted table was reopened, and its links changed from the GM screen since.
        let mut was_reopened = false;
        let mut changed: Vec<String> = Vec::new();
        let created = match &spec {
            Some(s) => {
                let example = match &s.example {
                    Some(e) => e.clone(),
                    None => default_example(&s.system)
                        .with_context(|| format!("--table {}: name an example (SYSTEM:EXAMPLE)", s.system))?,
                };
                let request = CreateTable {
                    system: s.system.clone(),
                    setup: SetupSource::Example(example.clone()),
                    seats: seats.clone(),
                    options: TableOptions {
                        decision_seconds: args.decision_seconds,
                        think_ms: args.think_ms,
                        modes: args.sealed.iter().map(|s| (s.clone(), SeatMode::Sealed)).collect(),
                        opening_round: None,
                    },
                    rules: Default::default(),
                };
                let host = host.as_ref().context("--table: the host's files")?;
                let key = match host.key() {
                    Ok(key) => key,
                    Err(e) => {
                        let _ = running.shutdown().await;
                        return Err(e);
                    }
                };
                let asked = serde_json::to_value(&request)?;
                // The same request on the same data: its table, if it is there and unfinished.
                let previous = host.record().filter(|r| r.request == asked);
                let mut reopened = None;
                if let Some(record) = &previous {
                    match running.hosted_links(record.table, &key, record.generation).await {
                        Ok(found) => reopened = found,
                        Err(e) => {
                            let _ = running.shutdown().await;
                            bail!("--table: table {} could not be reopened: {e}", record.table);
                        }
                    }
                }
                let created = match reopened {
                    Some(found) => {
                        changed = found.changed;
                        was_reopened = true;
                        found.links
                    }
                    None => match running.create_hosted_table(request, &key).await {
                        Ok(c) => {
                            let table = c.table.parse().unwrap_or_default();
                            let record = crate::serve_host::Record { request: asked, table, generation: 0 };
                            if let Err(e) = host.keep(&record) {
                                let _ = running.shutdown().await;
                                return Err(e);
                            }
                            c
                        }
                        Err(e) => {
                            let _ = running.shutdown().await;
                            bail!("--table {}:{}: {}", s.system, escape(&example), escape(&e.message));
                        }
                    },
                };
                Some((rebased(&created, &base), format!("{}: {}", s.system, example)))
            }
            None => None,
        };
        let mut out = std::io::stdout().lock();
        if args.json {
            let line = serde_json::json!({
                "addr": running.addr.to_string(),
                "url": base,
                "urls": urls,
                "table": created.as_ref().map(|(c, _)| c),
                "reopened": was_reopened,
                "changed": changed,
            });
            writeln!(out, "{line}")?;
            out.flush()?;
        } else {
            let qr = args.qr || (std::io::stdout().is_terminal() && !urls.is_empty());
            let started = Started {
                addr: running.addr,
                url: &base,
                urls: &urls,
                db: &db,
                table: created.as_ref().map(|(c, what)| (c, what.as_str(), &seats)),
                reopened: was_reopened,
                changed: &changed,
            };
            print_started(&mut out, &started, qr)?;
        }
        drop(out);
        // SIGTERM and Ctrl-C were caught from the start (server::start): a graceful stop.
        running.wait().await.context("the server stopped")?;
        if !args.json {
            println!("facedown serve: stopped.");
        }
        Ok(ExitCode::SUCCESS)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_spec_names_a_system_and_maybe_an_example() {
        let t = table_spec("iron-triangle:duel").unwrap();
        assert_eq!((t.system.as_str(), t.example.as_deref()), ("iron-triangle", Some("duel")));
        assert_eq!(table_spec("nodice").unwrap().example, None);
        for (system, example) in DEFAULT_EXAMPLES {
            let known = server::systems::examples(system).unwrap_or_default();
            assert!(known.contains(example), "{system} carries {example}");
        }
        assert!(table_spec("chess").unwrap_err().to_string().contains("no rule system named \"chess\""));
        assert!(table_spec("nodice:").unwrap_err().to_string().contains("SYSTEM:EXAMPLE"));
    }

    #[test]
    fn bots_are_seat_equals_kind() {
        let seats = seat_bots(&["ninja=Greedy".into()], "iron-triangle").unwrap();
        assert_eq!(seats.get("ninja"), Some(&Controller::Bot { bot: "greedy".into() }));
        assert!(seat_bots(&["ninja".into()], "iron-triangle").unwrap_err().to_string().contains("SEAT=KIND"));
    }

    #[test]
    fn links_are_rebased_with_their_tokens() {
        let created = CreatedTable {
            table: "7".into(),
            seats: [("ada".to_owned(), "http://0.0.0.0:8080/t/7#k1".to_owned())].into(),
            gm: "http://0.0.0.0:8080/t/7#k2".into(),
            spectator: "http://0.0.0.0:8080/t/7#k3".into(),
        };
        let r = rebased(&created, "http://192.168.1.5:8080");
        assert_eq!(r.seats["ada"], "http://192.168.1.5:8080/t/7#k1");
        assert_eq!(r.gm, "http://192.168.1.5:8080/t/7#k2");
    }

    #[test]
    fn a_qr_code_is_half_blocks() {
        let q = qr_text("http://192.168.1.5:8080/t/7#0123456789abcdef0123456789abcdef").unwrap();
        assert!(q.lines().count() > 10 && q.contains('▀'), "{q}");
    }

    #[test]
    fn the_log_in_json_is_one_object_a_line_and_the_filter_applies() {
        #[derive(Clone, Default)]
        struct Kept(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl Write for Kept {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let kept = Kept::default();
        let writer = kept.clone();
        let filter = tracing_subscriber::EnvFilter::new("info");
        let log = log_subscriber(LogFormat::Json, filter, false, move || writer.clone());
        tracing::subscriber::with_default(log, || {
            tracing::info!(table = 7, "table 7 created");
            tracing::debug!("not at info");
        });
        let text = String::from_utf8(kept.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 1, "{text}");
        assert_eq!(lines[0]["level"], "INFO");
        assert_eq!(lines[0]["fields"]["message"], "table 7 created");
        assert_eq!(lines[0]["fields"]["table"], 7);
    }

    #[test]
    fn loopback_listening_prints_no_network_addresses() {
        assert!(network_bases("127.0.0.1:8080".parse().unwrap(), 8080, "http").is_empty());
    }

    #[test]
    fn listening_everywhere_prints_this_machines_other_addresses() {
        // Only computed, nothing is bound: whatever addresses this machine has.
        for base in network_bases("0.0.0.0:8080".parse().unwrap(), 8123, "https") {
            let addr: SocketAddr = base.strip_prefix("https://").unwrap().parse().unwrap();
            assert!(addr.is_ipv4() && !addr.ip().is_loopback() && addr.port() == 8123, "{base}");
        }
    }
}
