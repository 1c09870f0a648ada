//! What a process costs, read from Linux's `/proc`: CPU seconds (`stat`'s utime + stime) and
//! resident memory (`status`'s VmRSS).

use std::io::Read;

use crate::LoadError;

/// The most this reads of one `/proc` file (`status` is about 1.5 KiB).
const MAX_PROC_FILE: u64 = 64 * 1024;

/// A process's CPU time and resident memory at one moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Usage {
    /// User plus system CPU time, in seconds.
    pub cpu_seconds: f64,
    /// Resident set size, in KiB.
    pub rss_kib: u64,
}

/// The CPU ticks (utime + stime) in the text of `/proc/PID/stat`. The command name (field 2)
/// may hold spaces and parentheses, so fields are counted after its last `)`.
pub fn cpu_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    // After the name: state (3), ppid, pgrp, session, tty_nr, tpgid, flags, minflt, cminflt,
    // majflt, cmajflt, then utime (14) and stime (15).
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

/// The resident set size in KiB in the text of `/proc/PID/status` (its `VmRSS:` line).
pub fn rss_kib(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let mut words = line["VmRSS:".len()..].split_whitespace();
    let kib = words.next()?.parse().ok()?;
    (words.next()? == "kB").then_some(kib)
}

fn read_proc(path: &str) -> Result<String, LoadError> {
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_PROC_FILE).read_to_string(&mut text))
        .map_err(|e| LoadError::Proc { path: path.to_owned(), reason: e.to_string() })?;
    Ok(text)
}

/// The clock ticks per second `/proc/PID/stat` counts in.
fn ticks_per_second() -> f64 {
    // SAFETY: sysconf only reads a configuration value.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks > 0 { ticks as f64 } else { 100.0 }
}

/// The usage of process `pid` now.
pub fn usage(pid: u32) -> Result<Usage, LoadError> {
    let stat_path = format!("/proc/{pid}/stat");
    let stat = read_proc(&stat_path)?;
    let ticks = cpu_ticks(&stat)
        .ok_or_else(|| LoadError::Proc { path: stat_path, reason: "no utime/stime fields".into() })?;
    let status_path = format!("/proc/{pid}/status");
    let status = read_proc(&status_path)?;
    let rss = rss_kib(&status)
        .ok_or_else(|| LoadError::Proc { path: status_path, reason: "no VmRSS line".into() })?;
    Ok(Usage { cpu_seconds: ticks as f64 / ticks_per_second(), rss_kib: rss })
}

/// The usage of this process now.
pub fn own_usage() -> Result<Usage, LoadError> {
    usage(std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_ticks_are_counted_after_the_name_even_with_spaces_and_parentheses() {
        let stat = "4242 (face (down) x) S 1 4242 4242 0 -1 4194560 300 0 0 0 125 37 0 0 20 0 3 0 99 1 2";
        assert_eq!(cpu_ticks(stat), Some(162));
        assert_eq!(cpu_ticks("4242 (x) S 1 2"), None);
        assert_eq!(cpu_ticks("no parenthesis"), None);
    }

    #[test]
    fn rss_is_read_from_the_vmrss_line_in_kib() {
        let status = "Name:\tfacedown\nVmPeak:\t  99999 kB\nVmRSS:\t   12345 kB\nThreads:\t3\n";
        assert_eq!(rss_kib(status), Some(12345));
        assert_eq!(rss_kib("Name:\tx\n"), None);
        assert_eq!(rss_kib("VmRSS:\t12 MB\n"), None);
    }

    #[test]
    fn this_process_has_a_usage() {
        let u = own_usage().unwrap();
        assert!(u.rss_kib > 0);
        assert!(u.cpu_seconds >= 0.0);
    }
}
