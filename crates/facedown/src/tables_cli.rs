//! `facedown tables`: the tables a server keeps, listed, and moved from one store to another
//! (SQLite or PostgreSQL) as a table document (`store::TableDocument`): `export` writes one
//! table's document, `import` adds it to a store as a new table; `backup` copies a whole
//! SQLite store while its server runs; `links` reissues every link of a table.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use store::tables::{TableId, TableStore};
use store::{MAX_DOCUMENT_BYTES, PgTables, SqliteTables, TableDocument};

use crate::input::{escape, read_bounded, read_stdin_bounded};

/// The tables a server keeps: list them, or move one to another store (SQLite or PostgreSQL).
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
facedown tables list --db server.db\n  \
facedown tables export --db server.db --table 1 -o table-1.json\n  \
facedown tables import --db postgres://facedown@127.0.0.1:5432/facedown table-1.json\n  \
facedown tables backup --db server.db server-backup.db\n  \
facedown tables links 1 --db server.db\n\n\
A table document holds the table's setup, options, journal and its links' token hashes (never \
the tokens): it is written with mode 0600. Stop the server before moving a table (docs/hosting.md).")]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

/// Where the tables are kept (as `facedown serve --db`).
#[derive(clap::Args)]
struct Db {
    /// The store: a SQLite database file [default: facedown/server.db in your data directory],
    /// or a PostgreSQL database, postgres://USER@HOST:PORT/DATABASE (give the password in
    /// PGPASSWORD or ~/.pgpass rather than in the URL, which shows in the process list).
    #[arg(long, value_name = "FILE|URL")]
    db: Option<PathBuf>,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Lists every table of the store: its number, ruleset, journal entries, whether finished.
    List {
        #[command(flatten)]
        db: Db,
        /// Print one JSON array instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Writes one table as a table document (to standard output, or to a file with -o).
    Export {
        #[command(flatten)]
        db: Db,
        /// The table's number (as in its links, …/t/N#…, and `facedown tables list`).
        #[arg(long, value_name = "N")]
        table: u64,
        /// Write the document to FILE (atomically, mode 0600) instead of standard output.
        #[arg(short, long, visible_alias = "out", value_name = "FILE")]
        output: Option<PathBuf>,
        /// With -o: print what was written as one JSON line instead of text.
        #[arg(long, requires = "output")]
        json: bool,
        /// With -o: write what the store holds of a table that cannot load (a journal over the
        /// size a table may load, or with an entry missing), read page by page: its row, its
        /// links' hashes and its journal up to the first missing entry. The document imports
        /// when it is within `import`'s bounds; what was left out is reported.
        #[arg(long, requires = "output")]
        salvage: bool,
    },
    /// Adds the table of a table document to the store, as a new table: prints its number
    /// there. Its links work with the new number; their keys (after the #) are unchanged.
    Import {
        #[command(flatten)]
        db: Db,
        /// The table document (`-`: standard input).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Print the old and new numbers as one JSON line instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Reissues every link of a table (each seat's, the GM's, the spectators') and prints the
    /// new ones; the old links open nothing any more (only their hashes are kept, so they cannot
    /// be shown again). On a SQLite file, refused while a server serves it (stop it first); on
    /// PostgreSQL the running servers close the old links' connections themselves.
    Links {
        #[command(flatten)]
        db: Db,
        /// The table's number (as in its links, …/t/N#…, and `facedown tables list`).
        #[arg(value_name = "N")]
        table: u64,
        /// The address players open, as given to `facedown serve --public-url` [default: the
        /// one-command server's, http://127.0.0.1:8080].
        #[arg(long, value_name = "URL")]
        public_url: Option<String>,
        /// Print one JSON line instead of text: {"table", "seats", "gm", "spectator"}.
        #[arg(long)]
        json: bool,
    },
    /// Writes a consistent copy of the whole SQLite store, as of one moment, to a new FILE
    /// (mode 0600), while the server goes on serving: a backup that opens as a store of its own
    /// (serve it with --db FILE). A PostgreSQL store is backed up with pg_dump (docs/hosting.md).
    Backup {
        #[command(flatten)]
        db: Db,
        /// The new file (refused if it exists).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Print what was written as one JSON line instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// The store `--db` names, open.
enum Store {
    Sqlite(SqliteTables),
    Postgres(PgTables),
}

/// Opens the store `--db` names. A SQLite file must exist unless `create`.
async fn open(db: &Db, create: bool) -> anyhow::Result<(Store, String)> {
    let path = match &db.db {
        Some(p) => p.clone(),
        None => crate::serve::default_db()?,
    };
    if let Some(url) = path.to_str().filter(|p| store::is_postgres_url(p)) {
        let shown = store::redacted_url(url);
        let store = PgTables::open(url).await.with_context(|| format!("--db {shown}: cannot open it"))?;
        return Ok((Store::Postgres(store), shown));
    }
    let shown = escape(&path.display().to_string()).into_owned();
    if !create && !path.is_file() {
        bail!("--db {shown}: there is no database file there");
    }
    let store = SqliteTables::open(&path).await.with_context(|| format!("--db {shown}: cannot open it"))?;
    Ok((Store::Sqlite(store), shown))
}

/// `facedown tables`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    rt.block_on(async move {
        let create = matches!(args.command, Command::Import { .. });
        let db = match &args.command {
            Command::List { db, .. }
            | Command::Export { db, .. }
            | Command::Import { db, .. }
            | Command::Links { db, .. }
            | Command::Backup { db, .. } => db,
        };
        if let Command::Backup { file, json, .. } = &args.command {
            return backup(db, file, *json).await;
        }
        let (store, shown) = open(db, create).await?;
        // A server serving the SQLite file holds its tables' links in memory: the file must be
        // this command's alone while the links change (PostgreSQL's servers hear the change).
        if let (Command::Links { .. }, Store::Sqlite(s)) = (&args.command, &store)
            && let Err(e) = s.alone()
        {
            s.close().await;
            bail!("tables links: refused: {e}");
        }
        let result = match &store {
            Store::Sqlite(s) => command(s, &args.command, &shown).await,
            Store::Postgres(s) => command(s, &args.command, &shown).await,
        };
        match &store {
            Store::Sqlite(s) => s.close().await,
            Store::Postgres(s) => s.close().await,
        }
        result
    })
}

async fn command<S: TableStore>(store: &S, command: &Command, db: &str) -> anyhow::Result<ExitCode> {
    match command {
        Command::List { json, .. } => list(store, *json).await,
        Command::Export { table, output: Some(output), json, salvage: true, .. } => {
            salvage(store, TableId(*table), output, *json, db).await
        }
        Command::Export { table, output, json, .. } => {
            export(store, TableId(*table), output.as_deref(), *json, db).await
        }
        Command::Import { file, json, .. } => import(store, file, *json, db).await,
        Command::Links { table, public_url, json, db: at } => {
            links(store, TableId(*table), public_url.as_deref(), *json, db, hosted(at)?).await
        }
        // Handled before a store is opened (`run`).
        Command::Backup { .. } => bail!("tables backup: not a command on an open store"),
    }
}

/// `facedown tables backup`: SQLite's `VACUUM INTO` a new file, which is then opened as a store
/// to count its tables (a backup that does not open is an error). PostgreSQL: refused, naming
/// `pg_dump`.
async fn backup(db: &Db, file: &Path, json: bool) -> anyhow::Result<ExitCode> {
    if let Some(url) = db.db.as_deref().and_then(Path::to_str).filter(|p| store::is_postgres_url(p)) {
        bail!(
            "--db {}: a PostgreSQL store is backed up with PostgreSQL's own pg_dump, e.g. \
             pg_dump --format=custom --file=facedown.dump DATABASE (docs/hosting.md, Backups)",
            store::redacted_url(url)
        );
    }
    let shown_file = escape(&file.display().to_string()).into_owned();
    let (store, shown) = open(db, false).await?;
    let written = store_backup(&store, file).await;
    match &store {
        Store::Sqlite(s) => s.close().await,
        Store::Postgres(s) => s.close().await,
    }
    written.with_context(|| format!("cannot back {shown} up to {shown_file}"))?;
    let copy =
        SqliteTables::open(file).await.with_context(|| format!("the backup {shown_file} does not open"))?;
    let tables = copy.list_tables().await;
    copy.close().await;
    let tables = tables.with_context(|| format!("the backup {shown_file} does not open"))?.len();
    if json {
        println!("{}", serde_json::json!({"file": file.display().to_string(), "tables": tables}));
    } else {
        let n = if tables == 1 { "1 table".to_owned() } else { format!("{tables} tables") };
        println!("Backed up {shown} to {shown_file} ({n}).");
        println!("The file holds the links' token hashes: keep it as private as the database.");
    }
    Ok(ExitCode::SUCCESS)
}

async fn store_backup(store: &Store, file: &Path) -> anyhow::Result<()> {
    match store {
        Store::Sqlite(s) => Ok(s.backup(file).await?),
        Store::Postgres(_) => bail!("a PostgreSQL store is backed up with pg_dump"),
    }
}

async fn list<S: TableStore>(store: &S, json: bool) -> anyhow::Result<ExitCode> {
    let tables = store.list_tables().await?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string(&tables)?)?;
    } else if tables.is_empty() {
        writeln!(out, "No tables.")?;
    } else {
        writeln!(out, "{:>6}  {:<20} {:>8}  state", "table", "ruleset", "entries")?;
        for t in &tables {
            let state = if t.finished { "finished" } else { "open" };
            writeln!(out, "{:>6}  {:<20} {:>8}  {state}", t.id.0, escape(&t.ruleset), t.entries)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

async fn export<S: TableStore>(
    store: &S,
    table: TableId,
    output: Option<&Path>,
    json: bool,
    db: &str,
) -> anyhow::Result<ExitCode> {
    let doc = match store.export_table(table).await {
        Ok(doc) => doc,
        Err(e @ (store::PersistError::Limit { .. } | store::PersistError::Corrupt(_))) => bail!(
            "--table {}: the table cannot load ({e}); `facedown tables export --salvage -o FILE` \
             writes what the store holds of it",
            table.0
        ),
        Err(e) => return Err(anyhow::Error::new(e).context(format!("--table {}", table.0))),
    };
    let mut text = doc.to_json();
    text.push('\n');
    let Some(path) = output else {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    };
    store::write_atomic(path, &text)
        .with_context(|| format!("-o {}", escape(&path.display().to_string())))?;
    let shown = escape(&path.display().to_string()).into_owned();
    let state = if doc.table.finished { "finished" } else { "open" };
    if json {
        let line = serde_json::json!({
            "table": table.0,
            "file": path.display().to_string(),
            "ruleset": doc.table.ruleset,
            "entries": doc.journal.len(),
            "finished": doc.table.finished,
        });
        println!("{line}");
    } else {
        println!(
            "Exported table {} of {db} ({}, {}, {state}) to {shown}.",
            table.0,
            escape(&doc.table.ruleset),
            entries(doc.journal.len()),
        );
        println!("The file holds the links' token hashes: keep it as private as the database.");
    }
    Ok(ExitCode::SUCCESS)
}

/// Journal entries read per page by [`salvage`]: at most 64 MiB (an entry is at most
/// `store::tables::limits::MAX_TEXT_BYTES`).
const SALVAGE_PAGE: u32 = 64;

/// `export --salvage`: a table that cannot load (issue 33: a journal past the size a table may
/// load, or with an entry missing) written page by page, in bounded memory, up to the first
/// missing entry, so that what the store holds is never locked in it.
async fn salvage<S: TableStore>(
    store: &S,
    table: TableId,
    path: &Path,
    json: bool,
    db: &str,
) -> anyhow::Result<ExitCode> {
    let first =
        store.salvage_page(table, 0, SALVAGE_PAGE).await.with_context(|| format!("--table {}", table.0))?;
    let head = TableDocument::from_stored(&first.head).to_json();
    // The document with an empty journal ends with `"journal": []` and the closing brace: the
    // entries go between the brackets.
    let Some(prefix) = head.trim_end().strip_suffix('}').and_then(|h| h.trim_end().strip_suffix("[]")) else {
        bail!("a table document's journal is not where this build writes it");
    };
    let (mut kept, mut gap, mut after_gap) = (0u64, None::<u64>, 0u64);
    let handle = tokio::runtime::Handle::current();
    let shown = escape(&path.display().to_string()).into_owned();
    tokio::task::block_in_place(|| {
        store::write_atomic_with(path, |out| {
            out.write_all(prefix.as_bytes())?;
            out.write_all(b"[")?;
            let mut page = first.entries;
            // Bounded: every page starts past the last one, and numbers are below the
            // store's limit of entries.
            for _ in 0..=(store::tables::limits::MAX_JOURNAL_ENTRIES / u64::from(SALVAGE_PAGE)) {
                let Some(&(last, _)) = page.last() else { break };
                for (n, entry) in &page {
                    if gap.is_none() && *n != kept {
                        gap = Some(kept);
                    }
                    if gap.is_some() {
                        after_gap += 1;
                        continue;
                    }
                    let item = store::JournalEntry { n: *n, entry: entry.clone() };
                    out.write_all(if kept == 0 { b"\n    " } else { b",\n    " })?;
                    serde_json::to_writer(&mut *out, &item)?;
                    kept += 1;
                }
                if page.len() < SALVAGE_PAGE as usize {
                    break;
                }
                page = handle
                    .block_on(store.salvage_page(table, last + 1, SALVAGE_PAGE))
                    .map_err(std::io::Error::other)?
                    .entries;
            }
            out.write_all(if kept == 0 { b"]\n}\n" } else { b"\n  ]\n}\n" })
        })
    })
    .with_context(|| format!("-o {shown}"))?;
    if json {
        let line = serde_json::json!({
            "table": table.0,
            "file": path.display().to_string(),
            "ruleset": first.head.table.ruleset,
            "entries": kept,
            "missing_from": gap,
            "left_out": after_gap,
            "finished": first.head.finished,
        });
        println!("{line}");
    } else {
        println!(
            "Salvaged table {} of {db} ({}) to {shown}: {}.",
            table.0,
            escape(&first.head.table.ruleset),
            entries(kept as usize),
        );
        if let Some(missing) = gap {
            println!(
                "Entry {missing} is missing from the store: the {after_gap} stored after it are left out (a \
                 table's journal replays only without gaps)."
            );
        }
        println!("The file holds the links' token hashes: keep it as private as the database.");
    }
    Ok(ExitCode::SUCCESS)
}

async fn import<S: TableStore>(store: &S, file: &Path, json: bool, db: &str) -> anyhow::Result<ExitCode> {
    let stdin = file == Path::new("-");
    let shown =
        if stdin { "standard input".to_owned() } else { escape(&file.display().to_string()).into_owned() };
    let text =
        if stdin { read_stdin_bounded(MAX_DOCUMENT_BYTES) } else { read_bounded(file, MAX_DOCUMENT_BYTES) }
            .with_context(|| format!("cannot read {shown}"))?;
    let doc = TableDocument::parse(&text).with_context(|| format!("{shown} is refused"))?;
    if !server::systems::SYSTEMS.contains(&doc.table.ruleset.as_str()) {
        bail!(
            "{shown} is refused: table.ruleset: {:?} is not a rule system this facedown serves ({})",
            escape(&doc.table.ruleset),
            server::systems::SYSTEMS.join(", ")
        );
    }
    let (from, ruleset, entries, finished) =
        (doc.exported_id(), doc.table.ruleset.clone(), doc.journal.len(), doc.table.finished);
    let moved = doc.into_moved().with_context(|| format!("{shown} is refused"))?;
    let id =
        store.import_table(&moved).await.with_context(|| format!("{shown}: the store refused the table"))?;
    if json {
        let line = serde_json::json!({
            "from": from.0,
            "table": id.0,
            "ruleset": ruleset,
            "entries": entries,
            "finished": finished,
        });
        println!("{line}");
    } else {
        println!(
            "Imported {shown} into {db}: table {} (of the store it was exported from) is table {} here ({}, {}).",
            from.0,
            id.0,
            escape(&ruleset),
            self::entries(entries),
        );
        if id == from {
            println!("Its links work unchanged.");
        } else {
            println!(
                "Its links work with /t/{} in place of /t/{}: the keys after the # are unchanged.",
                id.0, from.0
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The base of the links when no `--public-url` is given: the one-command server's address
/// (README, docs/hosting.md).
const DEFAULT_BASE: &str = "http://127.0.0.1:8080";

/// `facedown tables links`: every link of the table made anew (`server::reissue_every_link`).
/// The files of the table `facedown serve --table` hosts on the store `--db` names
/// (docs/hosting.md): its links are reissued as its next generation of derived tokens, so that
/// the serve command, run again, prints the new ones.
fn hosted(db: &Db) -> anyhow::Result<crate::serve_host::HostFiles> {
    let path = match &db.db {
        Some(p) => p.clone(),
        None => crate::serve::default_db()?,
    };
    let postgres = path.to_str().is_some_and(store::is_postgres_url);
    crate::serve_host::HostFiles::for_db(&path, postgres)
}

async fn links<S: TableStore>(
    store: &S,
    table: TableId,
    public_url: Option<&str>,
    json: bool,
    db: &str,
    host: crate::serve_host::HostFiles,
) -> anyhow::Result<ExitCode> {
    let base = match public_url {
        Some(url) if url.starts_with("http://") || url.starts_with("https://") => url.trim_end_matches('/'),
        Some(url) => bail!("--public-url: {:?} is not an http:// or https:// URL", escape(url)),
        None => DEFAULT_BASE,
    };
    // The hosted table's links: its next generation of tokens derived from the host's key, and
    // the record says so (a reissue bumps the generation); any other table's: random tokens.
    let record = host.record().filter(|r| r.table == table.0);
    let created = match (&record, host.existing_key()?) {
        (Some(record), Some(key)) => {
            let generation = record.generation + 1;
            let token = |who: &str| server::hosted_token(&key, table.0, who, generation);
            let created = server::reissue_every_link_with(store, table, base, &token)
                .await
                .with_context(|| format!("tables links {}: refused", table.0))?;
            host.keep(&crate::serve_host::Record { generation, ..record.clone() })?;
            created
        }
        _ => server::reissue_every_link(store, table, base)
            .await
            .with_context(|| format!("tables links {}: refused", table.0))?,
    };
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string(&created)?)?;
    } else {
        writeln!(
            out,
            "New links for table {} of {db}; the old ones open nothing any more. Hand each player their own link: the part after # is their key.",
            created.table
        )?;
        for (seat, url) in &created.seats {
            writeln!(out, "  seat {}: {url}", escape(seat))?;
        }
        writeln!(out, "  GM (manages the table): {}", created.gm)?;
        writeln!(out, "  spectators: {}", created.spectator)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// "1 journal entry", "12 journal entries".
fn entries(n: usize) -> String {
    if n == 1 { "1 journal entry".to_owned() } else { format!("{n} journal entries") }
}
