//! The server under load, as a process of its own (so its CPU and memory are its own): a
//! `facedown serve --listen 127.0.0.1:0 --db TEMP --json`, its address read from the one JSON
//! line it prints at start.

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::LoadError;

/// The longest start line read from the server.
const MAX_START_LINE: u64 = 1024 * 1024;

/// What `facedown serve --json` says at start: its address (the `addr` field).
pub fn parse_start_line(line: &str) -> Result<SocketAddr, LoadError> {
    let bad = |reason: &str| LoadError::StartLine { line: line.trim().to_owned(), reason: reason.to_owned() };
    let value: Value = serde_json::from_str(line).map_err(|e| bad(&e.to_string()))?;
    let addr = value.get("addr").and_then(Value::as_str).ok_or_else(|| bad("no `addr` string"))?;
    addr.parse().map_err(|_| bad("`addr` is not host:port"))
}

/// A running `facedown serve`.
pub struct ServerProcess {
    child: Child,
    /// Its address.
    pub addr: SocketAddr,
    /// Where its standard error goes.
    pub stderr_path: PathBuf,
}

impl ServerProcess {
    /// Starts `bin serve --listen 127.0.0.1:0 --db DB --json EXTRA…` and waits (at most
    /// `timeout`) for its start line. `db` is a SQLite path or a PostgreSQL URL. The rest of its
    /// standard output is read and dropped on a thread, so the server never blocks on a full
    /// pipe; its standard error goes to `server.stderr.log` in `dir`.
    pub fn start(
        bin: &Path,
        db: &OsStr,
        dir: &Path,
        extra: &[String],
        timeout: Duration,
    ) -> Result<Self, LoadError> {
        let mut args: Vec<OsString> = ["serve", "--listen", "127.0.0.1:0", "--db"].map(OsString::from).into();
        args.push(db.to_owned());
        args.push("--json".into());
        args.extend(extra.iter().map(OsString::from));
        Self::spawn(bin, &args, dir, timeout)
    }

    /// Starts `bin ARGS…`, a server that prints one JSON start line with its `addr` (as
    /// `facedown serve --json` does), and waits (at most `timeout`) for that line; its
    /// standard error goes to `server.stderr.log` in `dir`.
    pub fn spawn(bin: &Path, args: &[OsString], dir: &Path, timeout: Duration) -> Result<Self, LoadError> {
        let stderr_path = dir.join("server.stderr.log");
        let stderr = std::fs::File::create(&stderr_path)
            .map_err(|e| LoadError::Spawn { bin: bin.to_owned(), reason: e.to_string() })?;
        let mut child = Command::new(bin)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .map_err(|e| LoadError::Spawn { bin: bin.to_owned(), reason: e.to_string() })?;
        let Some(stdout) = child.stdout.take() else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(LoadError::Spawn { bin: bin.to_owned(), reason: "no standard output".into() });
        };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let first = (&mut reader).take(MAX_START_LINE).read_line(&mut line).map(|_| line);
            let _ = tx.send(first);
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
        });
        let line = match rx.recv_timeout(timeout) {
            Ok(Ok(line)) if !line.is_empty() => line,
            other => {
                let _ = child.kill();
                let _ = child.wait();
                let reason = match other {
                    Ok(Ok(_)) => "it exited without a start line".to_owned(),
                    Ok(Err(e)) => e.to_string(),
                    Err(_) => format!("no start line within {timeout:?}"),
                };
                return Err(LoadError::Spawn {
                    bin: bin.to_owned(),
                    reason: with_stderr(reason, &stderr_path),
                });
            }
        };
        match parse_start_line(&line) {
            Ok(addr) => Ok(ServerProcess { child, addr, stderr_path }),
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(e)
            }
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The base of its links and API: `http://addr`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Whether it is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Stops it with SIGTERM (a graceful shutdown), or SIGKILL if it has not exited within
    /// `grace`.
    pub fn stop(mut self, grace: Duration) {
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: kill only sends a signal to our own child process.
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `reason` followed by the last lines of the server's standard error.
fn with_stderr(reason: String, path: &Path) -> String {
    let mut text = String::new();
    let _ = std::fs::File::open(path).and_then(|f| f.take(MAX_START_LINE).read_to_string(&mut text));
    let tail: Vec<&str> = text.lines().rev().take(10).collect();
    if tail.is_empty() {
        reason
    } else {
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        format!("{reason}; its standard error ends:\n{}", tail.join("\n"))
    }
}

/// Raises the limit of open files ([`raise_open_files`]) and checks it allows `tables` tables
/// of two connections each, with room to spare.
pub fn open_files_for(tables: u32) -> Result<(), LoadError> {
    let open_files = raise_open_files()?;
    let needed = u64::from(tables) * 2 + 64;
    if open_files < needed {
        return Err(LoadError::Setup(format!(
            "{tables} tables need {needed} open files; the limit is {open_files}"
        )));
    }
    Ok(())
}

/// Raises this process's soft limit of open files to its hard limit (a child inherits it), and
/// returns the new soft limit.
pub fn raise_open_files() -> Result<u64, LoadError> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit and setrlimit read and write the struct we own.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return Err(LoadError::Limit(std::io::Error::last_os_error().to_string()));
        }
        limit.rlim_cur = limit.rlim_max;
        if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
            return Err(LoadError::Limit(std::io::Error::last_os_error().to_string()));
        }
    }
    Ok(limit.rlim_cur)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_line_gives_the_address() {
        let line = r#"{"addr":"127.0.0.1:40123","tables":[]}"#;
        assert_eq!(parse_start_line(line).unwrap(), "127.0.0.1:40123".parse().unwrap());
        assert!(matches!(parse_start_line("listening"), Err(LoadError::StartLine { .. })));
        assert!(matches!(parse_start_line(r#"{"addr":"x"}"#), Err(LoadError::StartLine { .. })));
        assert!(matches!(parse_start_line(r#"{"address":"127.0.0.1:1"}"#), Err(LoadError::StartLine { .. })));
    }

    #[test]
    fn the_open_files_limit_is_raised_to_the_hard_limit() {
        let soft = raise_open_files().unwrap();
        assert!(soft >= 1024, "{soft}");
    }
}
