//! Helpers of the tests of `facedown serve` and `facedown join`: the test-built binary, a
//! server on 127.0.0.1 port 0 with its JSON start-up line, bounded waits.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The test-built binary.
pub const BIN: &str = env!("CARGO_BIN_EXE_facedown");

/// How long any one process of a test may run.
pub const LIMIT: Duration = Duration::from_secs(120);

/// Waits for `child` at most `limit`; kills it after. Its status code (None: killed).
pub fn wait_bounded(child: &mut Child, limit: Duration) -> Option<i32> {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().expect("the child can be waited for") {
            return s.code();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Collects a pipe on a thread.
fn collect(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = pipe.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    })
}

/// Runs `facedown ARGS` with empty standard input, bounded: (status, stdout, stderr).
pub fn run_facedown(args: &[&str]) -> (Option<i32>, String, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("facedown runs");
    let out = collect(child.stdout.take().unwrap());
    let err = collect(child.stderr.take().unwrap());
    let code = wait_bounded(&mut child, LIMIT);
    (code, out.join().unwrap(), err.join().unwrap())
}

/// A `facedown serve --json` process on 127.0.0.1 port 0; killed when dropped.
pub struct Server {
    pub child: Child,
    pub addr: SocketAddr,
    /// Its start-up line.
    pub started: Value,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Server {
    /// Starts a server on `db` with more flags, and waits (bounded) for its start-up line.
    pub fn start(db: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(BIN)
            .args(["serve", "--listen", "127.0.0.1:0", "--json", "--db"])
            .arg(db)
            .args(extra)
            .env_remove("FACEDOWN_ADMIN_SECRET")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("facedown serve runs");
        let stderr = collect(child.stderr.take().unwrap());
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(Duration::from_secs(60)).unwrap_or_default();
        if line.trim().is_empty() {
            let _ = child.kill();
            let _ = child.wait();
            panic!("facedown serve printed no start-up line; stderr: {}", stderr.join().unwrap());
        }
        let started: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        let addr = started["addr"].as_str().and_then(|a| a.parse().ok()).expect("the start-up line has addr");
        Server { child, addr, started, stderr: Some(stderr) }
    }

    /// Stops it with SIGTERM; its status (None: it did not stop in time).
    pub fn stop(&mut self) -> Option<i32> {
        signal(&self.child, libc::SIGTERM);
        wait_bounded(&mut self.child, Duration::from_secs(30))
    }

    /// Kills it with SIGKILL, as a crash.
    pub fn crash(&mut self) {
        signal(&self.child, libc::SIGKILL);
        let _ = wait_bounded(&mut self.child, Duration::from_secs(30));
    }

    /// What it wrote to standard error (after it stopped).
    pub fn stderr(&mut self) -> String {
        self.stderr.take().map(|h| h.join().unwrap()).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends `sig` to a child this test started.
fn signal(child: &Child, sig: libc::c_int) {
    // SAFETY: signals a process this test spawned and has not reaped yet.
    unsafe {
        libc::kill(child.id() as libc::pid_t, sig);
    }
}

/// `GET path` over plain HTTP/1.1: (status, body).
pub fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(10)).expect("the server accepts");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut text = String::new();
    let _ = s.take(1 << 20).read_to_string(&mut text);
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    (status, body)
}

/// `link` on another server address (the same table and token).
pub fn rebase(link: &str, addr: SocketAddr) -> String {
    let (_, rest) = link.split_once("/t/").expect("a link");
    format!("http://{addr}/t/{rest}")
}

/// Runs `facedown join --json --link-file F` with `extra` flags and empty input, bounded.
pub fn join_json(link: &str, extra: &[&str]) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("seat.link");
    std::fs::write(&file, format!("{link}\n")).unwrap();
    let mut args = vec!["join", "--json", "--retries", "2", "--link-file", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    run_facedown(&args)
}

/// A TCP relay on 127.0.0.1 port 0 to a server, whose connections the test can cut (as a
/// network that drops them), while it goes on accepting new ones.
pub struct Relay {
    pub addr: SocketAddr,
    open: std::sync::Arc<std::sync::Mutex<Vec<TcpStream>>>,
    /// While set, what the server sends is dropped instead of relayed (a network that loses
    /// the answers).
    swallow: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Relay {
    /// Relays to `to` until the test ends.
    pub fn start(to: SocketAddr) -> Relay {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        let addr = listener.local_addr().unwrap();
        let open = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = std::sync::Arc::clone(&open);
        let swallow = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let swallowing = std::sync::Arc::clone(&swallow);
        std::thread::spawn(move || {
            // Bounded: a test makes a handful of connections.
            for client in listener.incoming().take(64) {
                let Ok(client) = client else { break };
                let Ok(server) = TcpStream::connect_timeout(&to, Duration::from_secs(10)) else { continue };
                let pairs = [
                    (client.try_clone(), server.try_clone(), None),
                    (server.try_clone(), client.try_clone(), Some(std::sync::Arc::clone(&swallowing))),
                ];
                for (from, into, swallow) in pairs {
                    if let (Ok(mut from), Ok(mut into)) = (from, into) {
                        std::thread::spawn(move || {
                            let mut buf = [0u8; 16 * 1024];
                            // Ends when either side closes (or the test cuts them).
                            while let Ok(n @ 1..) = from.read(&mut buf) {
                                let dropped = swallow
                                    .as_ref()
                                    .is_some_and(|s| s.load(std::sync::atomic::Ordering::SeqCst));
                                if !dropped && into.write_all(&buf[..n]).is_err() {
                                    break;
                                }
                            }
                            let _ = into.shutdown(std::net::Shutdown::Write);
                        });
                    }
                }
                let mut open = kept.lock().unwrap();
                open.push(client);
                open.push(server);
            }
        });
        Relay { addr, open, swallow }
    }

    /// Drops (true) or relays again (false) what the server sends.
    pub fn swallow(&self, on: bool) {
        self.swallow.store(on, std::sync::atomic::Ordering::SeqCst);
    }

    /// Cuts every connection relayed so far.
    pub fn cut(&self) {
        for s in self.open.lock().unwrap().drain(..) {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }
}

/// A database of its own on the tests' PostgreSQL server (`FACEDOWN_TEST_POSTGRES`, a base URL),
/// as a URL; `None` (printed) when no server is named outside CI, where the tests never skip.
pub fn postgres_database(test: &str) -> Option<String> {
    use sqlx::Connection;
    let Ok(base) = std::env::var("FACEDOWN_TEST_POSTGRES") else {
        if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
            panic!("{test}: FACEDOWN_TEST_POSTGRES is not set, and in CI the PostgreSQL tests never skip");
        }
        eprintln!("{test}: skipped, no PostgreSQL server (FACEDOWN_TEST_POSTGRES is not set)");
        return None;
    };
    use rand::RngExt;
    let name = format!("facedown_cli_{:016x}", rand::rng().random::<u64>());
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
        let mut admin =
            sqlx::PgConnection::connect(&base).await.expect("the tests' PostgreSQL server answers");
        sqlx::query(&format!("CREATE DATABASE {name}")).execute(&mut admin).await.unwrap();
        admin.close().await.unwrap();
    });
    // The base URL names no database (`.ci/postgres.sh` prints `postgres://USER@HOST:PORT`).
    Some(format!("{}/{name}", base.trim_end_matches('/')))
}
