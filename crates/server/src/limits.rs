//! The edge's bounds, whoever sends what (docs/hosting.md, "Running it on the internet"):
//! sockets counted and capped at accept, per address and in all, before any HTTP is read; a
//! connection that sends nothing in time closed; and the rate limits, kept per link and per
//! address (not per connection, which a client can open anew for every burst).
//!
//! [`Edge`] holds the counts; [`Acceptor`] is the listener's acceptor that applies them to
//! every accepted socket, raw TCP included; [`Buckets`] are token buckets by key.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::io;
use std::net::{IpAddr, Ipv6Addr};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::config::Limits;
use crate::metrics::Tally;

/// Locks `m`, using a poisoned lock as it is (every update under these locks is one insert,
/// one removal or one counter: never left half done).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The key an address is counted under: an IPv4 address itself, an IPv6 address by its /64
/// (one subscriber's network: whoever holds one holds 2^64 addresses), an IPv4 address
/// mapped into IPv6 (a server listening on `[::]`) as the IPv4 address.
pub(crate) fn address_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => {
            let s = v6.segments();
            IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
        }
    }
}

/// The file descriptors this process may hold: the soft `RLIMIT_NOFILE`, raised first to the
/// hard limit (docs/hosting.md: a server that runs out of descriptors accepts nobody). `None`
/// where there is no such limit to read.
pub(crate) fn raise_open_files() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit and setrlimit only read and write the struct passed.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                return None;
            }
            if limit.rlim_cur < limit.rlim_max {
                let raised = libc::rlimit { rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                    limit.rlim_cur = limit.rlim_max;
                }
            }
        }
        // rlim_t is u64 on Linux, not on every Unix.
        #[allow(clippy::unnecessary_cast)]
        Some(limit.rlim_cur as u64)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The connections that fit in `open_files` descriptors: a tenth of them (at least 64) stay
/// for the database, its write-ahead log, the listener and the runtime.
pub(crate) fn connections_for(open_files: u64) -> usize {
    let headroom = (open_files / 10).max(64);
    usize::try_from(open_files.saturating_sub(headroom)).unwrap_or(usize::MAX).max(1)
}

/// The sockets the server holds, by address, and the rate limits' buckets.
pub(crate) struct Edge {
    pub(crate) limits: Limits,
    /// Whether the listener serves TLS (a refusal at accept is then not written as HTTP).
    tls: bool,
    open: Mutex<HashMap<IpAddr, usize>>,
    total: AtomicUsize,
    /// Each link's messages, by table and the SHA-256 of the link's token.
    pub(crate) links: Buckets<(u64, [u8; 32])>,
    /// Each address's messages, over all its connections.
    pub(crate) addresses: Buckets<IpAddr>,
    /// Each address's tables created.
    pub(crate) creates: Buckets<IpAddr>,
    /// Each address's replays (`POST /api/replay`), as many as its tables created.
    pub(crate) replays: Buckets<IpAddr>,
    /// Refusals and limits hit, summarized in the log once a minute.
    pub(crate) tally: Arc<Tally>,
}

/// Which cap a socket met at accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cap {
    /// `--max-connections`.
    Total(usize),
    /// `--max-connections-per-address`.
    PerAddress(usize),
}

impl Edge {
    pub(crate) fn new(limits: Limits, tls: bool, tally: Arc<Tally>) -> Edge {
        let per_address = f64::from(limits.messages_per_second_per_address);
        let creates = f64::from(limits.tables_per_minute_per_address);
        Edge {
            links: Buckets::new(f64::from(limits.messages_per_second), f64::from(limits.burst)),
            addresses: Buckets::new(per_address, f64::from(limits.burst_per_address)),
            creates: Buckets::new(creates / 60.0, creates),
            replays: Buckets::new(creates / 60.0, creates),
            limits,
            tls,
            open: Mutex::new(HashMap::new()),
            total: AtomicUsize::new(0),
            tally,
        }
    }

    /// Counts a socket from `ip`, or says which cap it meets.
    pub(crate) fn admit(self: &Arc<Self>, ip: IpAddr) -> Result<Slot, Cap> {
        let key = address_key(ip);
        let mut open = lock(&self.open);
        let max = self.limits.max_connections;
        if self.total.load(Ordering::Relaxed) >= max {
            return Err(Cap::Total(max));
        }
        let here = open.entry(key).or_insert(0);
        if *here >= self.limits.max_connections_per_address {
            let cap = self.limits.max_connections_per_address;
            if *here == 0 {
                open.remove(&key);
            }
            return Err(Cap::PerAddress(cap));
        }
        *here += 1;
        self.total.fetch_add(1, Ordering::Relaxed);
        Ok(Slot { edge: Arc::clone(self), key })
    }

    /// Sockets held now.
    #[cfg(test)]
    fn total(&self) -> usize {
        self.total.load(Ordering::Relaxed)
    }

    fn release(&self, key: IpAddr) {
        let mut open = lock(&self.open);
        if let Some(n) = open.get_mut(&key) {
            *n -= 1;
            if *n == 0 {
                open.remove(&key);
            }
        }
        self.total.fetch_sub(1, Ordering::Relaxed);
    }
}

/// One socket counted: uncounted when dropped (with the connection, after a WebSocket too).
pub(crate) struct Slot {
    edge: Arc<Edge>,
    key: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.edge.release(self.key);
    }
}

/// An accepted socket with its [`Slot`].
pub(crate) struct Held<T> {
    inner: T,
    _slot: Slot,
}

impl<T: AsyncRead + Unpin> AsyncRead for Held<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Held<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// The listener's acceptor: counts every accepted socket against the caps (refusing one over
/// them at once), sets `TCP_NODELAY`, and closes a socket that sends nothing within the
/// request-head timeout. The HTTP layer's own header timeout then bounds the request head.
#[derive(Clone)]
pub(crate) struct Acceptor {
    pub(crate) edge: Arc<Edge>,
}

/// The answer written to a plain-HTTP socket refused at accept, before it is closed.
fn refusal_bytes(cap: Cap) -> Vec<u8> {
    let message = match cap {
        Cap::Total(n) => format!("the server holds its limit of {n} connections"),
        Cap::PerAddress(n) => format!("the server holds its limit of {n} connections from one address"),
    };
    let body =
        serde_json::to_string(&crate::protocol::ApiError { code: crate::protocol::ErrorCode::Full, message })
            .unwrap_or_default();
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

impl<S: Send + 'static> axum_server::accept::Accept<TcpStream, S> for Acceptor {
    type Stream = Held<TcpStream>;
    type Service = S;
    type Future = Pin<Box<dyn Future<Output = io::Result<(Held<TcpStream>, S)>> + Send>>;

    fn accept(&self, stream: TcpStream, service: S) -> Self::Future {
        let edge = Arc::clone(&self.edge);
        Box::pin(async move {
            let peer = stream.peer_addr()?;
            let slot = match edge.admit(peer.ip()) {
                Ok(slot) => slot,
                Err(cap) => {
                    edge.tally.limit(match cap {
                        Cap::Total(_) => "max_connections",
                        Cap::PerAddress(_) => "max_connections_per_address",
                    });
                    if !edge.tls {
                        // Best effort, never waited for: the socket closes next. What it sent
                        // already is read first, so that the close does not reset it.
                        let mut sent = [0u8; 2048];
                        let _ = stream.try_read(&mut sent);
                        let _ = stream.try_write(&refusal_bytes(cap));
                    }
                    return Err(io::Error::other("over the connection caps"));
                }
            };
            // An `ack` and the update after it would otherwise wait for the client's delayed
            // ACK, about 40 ms on Linux (Nagle's algorithm).
            stream.set_nodelay(true)?;
            // Until it has sent enough to tell HTTP/1 from HTTP/2 a connection is nothing but a
            // held descriptor, and the HTTP layer's own timeouts start only after that.
            match tokio::time::timeout(edge.limits.head_timeout, version_told(&stream)).await {
                Ok(Ok(())) => Ok((Held { inner: stream, _slot: slot }, service)),
                Ok(Err(e)) => Err(e),
                Err(_) => {
                    // What it sent is read first, so that the close does not reset it.
                    let _ = stream.try_read(&mut [0u8; H2_PREFACE.len()]);
                    edge.tally.limit("head_timeout");
                    Err(io::Error::new(io::ErrorKind::TimedOut, "nothing sent in time"))
                }
            }
        })
    }
}

/// What an HTTP/2 connection starts with (RFC 9113, 3.4).
const H2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Returns once `stream` has sent enough to tell HTTP/1 from HTTP/2 (or closed): its first
/// bytes differ from the HTTP/2 preface, or are all of it. The HTTP layer waits for as much
/// before its own timeouts start, so a client that sends a piece of the preface and stops
/// would otherwise be held for ever. A real client sends the preface in one piece: only one
/// that does not waits here, a few polls until the head timeout.
async fn version_told(stream: &TcpStream) -> io::Result<()> {
    let mut first = [0u8; H2_PREFACE.len()];
    loop {
        let n = stream.peek(&mut first).await?;
        if n == 0 || n == first.len() || first[..n] != H2_PREFACE[..n] {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The acceptor of a TLS listener, outside the TLS handshake: what [`Acceptor`] does for a
/// plain socket, done on the decrypted stream, whose first bytes tell HTTP/1 from HTTP/2 only
/// once the handshake is done (issue 33: a client that completed the handshake and then sent a
/// piece of HTTP/2's preface, or nothing, was held with no timeout, bounded only by the caps).
/// The bytes read to tell are given back to the HTTP layer first ([`Rewound`]).
#[derive(Clone)]
pub(crate) struct TlsTold<A> {
    pub(crate) inner: A,
    pub(crate) edge: Arc<Edge>,
}

impl<A, S> axum_server::accept::Accept<TcpStream, S> for TlsTold<A>
where
    A: axum_server::accept::Accept<TcpStream, S> + Clone + Send + Sync + 'static,
    A::Stream: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    A::Service: Send + 'static,
    A::Future: Send + 'static,
    S: Send + 'static,
{
    type Stream = Rewound<A::Stream>;
    type Service = A::Service;
    type Future = Pin<Box<dyn Future<Output = io::Result<(Rewound<A::Stream>, A::Service)>> + Send>>;

    fn accept(&self, stream: TcpStream, service: S) -> Self::Future {
        let handshake = self.inner.accept(stream, service);
        let edge = Arc::clone(&self.edge);
        Box::pin(async move {
            let (mut stream, service) = handshake.await?;
            let mut first = Vec::with_capacity(H2_PREFACE.len());
            match tokio::time::timeout(edge.limits.head_timeout, read_version(&mut stream, &mut first)).await
            {
                Ok(Ok(())) => Ok((Rewound { first, at: 0, inner: stream }, service)),
                Ok(Err(e)) => Err(e),
                Err(_) => {
                    edge.tally.limit("head_timeout");
                    Err(io::Error::new(io::ErrorKind::TimedOut, "nothing sent in time"))
                }
            }
        })
    }
}

/// Reads `stream` into `first` until what it holds tells HTTP/1 from HTTP/2 (as
/// [`version_told`] does by peeking a plain socket) or the stream ends.
async fn read_version<T: AsyncRead + Unpin>(stream: &mut T, first: &mut Vec<u8>) -> io::Result<()> {
    use tokio::io::AsyncReadExt as _;
    let mut buf = [0u8; H2_PREFACE.len()];
    // Bounded: every pass reads at least one byte, and at most the preface's length in all.
    while first.len() < H2_PREFACE.len() && first[..] == H2_PREFACE[..first.len()] {
        let n = stream.read(&mut buf[..H2_PREFACE.len() - first.len()]).await?;
        if n == 0 {
            break;
        }
        first.extend_from_slice(&buf[..n]);
    }
    Ok(())
}

/// A stream whose first bytes, read already, are read again first.
pub(crate) struct Rewound<T> {
    first: Vec<u8>,
    at: usize,
    inner: T,
}

impl<T: AsyncRead + Unpin> AsyncRead for Rewound<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.at < self.first.len() {
            let n = buf.remaining().min(self.first.len() - self.at);
            let at = self.at;
            buf.put_slice(&self.first[at..at + n]);
            self.at += n;
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Rewound<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// A token bucket's state: `tokens` left at `last`.
#[derive(Debug)]
pub(crate) struct Bucket {
    tokens: f64,
    last: Instant,
}

/// Token buckets by key, all at one rate: `rate` a second on average, `burst` at once. A key's
/// bucket is kept until nothing holds it and it has filled up again, so a client that closes
/// and opens its connection starts from where it was, not from a full bucket.
pub(crate) struct Buckets<K> {
    rate: f64,
    burst: f64,
    sweep_every: Duration,
    map: Mutex<Kept<K>>,
}

/// The buckets by key, and when they were last swept.
type Kept<K> = (HashMap<K, Arc<Mutex<Bucket>>>, Instant);

/// How often the buckets that filled up and are held by nothing are forgotten.
const SWEEP_EVERY: Duration = Duration::from_secs(10);

impl<K: Hash + Eq + Clone> Buckets<K> {
    pub(crate) fn new(rate: f64, burst: f64) -> Buckets<K> {
        Buckets::sweeping(rate, burst, SWEEP_EVERY)
    }

    fn sweeping(rate: f64, burst: f64, sweep_every: Duration) -> Buckets<K> {
        Buckets {
            rate,
            burst: burst.max(1.0),
            sweep_every,
            map: Mutex::new((HashMap::new(), Instant::now())),
        }
    }

    /// The bucket of `key` (a full one if it has none).
    pub(crate) fn get(&self, key: K) -> Arc<Mutex<Bucket>> {
        let now = Instant::now();
        let mut guard = lock(&self.map);
        let (map, swept) = &mut *guard;
        if now.duration_since(*swept) >= self.sweep_every {
            *swept = now;
            map.retain(|_, b| Arc::strong_count(b) > 1 || self.level(&lock(b), now) < self.burst);
        }
        Arc::clone(
            map.entry(key).or_insert_with(|| Arc::new(Mutex::new(Bucket { tokens: self.burst, last: now }))),
        )
    }

    fn level(&self, b: &Bucket, now: Instant) -> f64 {
        (b.tokens + now.duration_since(b.last).as_secs_f64() * self.rate).min(self.burst)
    }

    fn refill(&self, b: &mut Bucket, now: Instant) {
        b.tokens = self.level(b, now);
        b.last = now;
    }

    /// Takes one token from `key`'s bucket; false when it has none.
    pub(crate) fn take_key(&self, key: K) -> bool {
        let bucket = self.get(key);
        let mut b = lock(&bucket);
        self.refill(&mut b, Instant::now());
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// Buckets kept now.
    #[cfg(test)]
    fn len(&self) -> usize {
        lock(&self.map).0.len()
    }
}

/// Takes one token from each of `first` (of `a`) and `second` (of `b`, if any), or from none
/// when one of them is empty. Locked in that order always.
pub(crate) fn take_both<K1: Hash + Eq + Clone, K2: Hash + Eq + Clone>(
    a: &Buckets<K1>,
    first: &Mutex<Bucket>,
    b: &Buckets<K2>,
    second: Option<&Mutex<Bucket>>,
) -> bool {
    let now = Instant::now();
    let mut one = lock(first);
    a.refill(&mut one, now);
    if one.tokens < 1.0 {
        return false;
    }
    if let Some(second) = second {
        let mut two = lock(second);
        b.refill(&mut two, now);
        if two.tokens < 1.0 {
            return false;
        }
        two.tokens -= 1.0;
    }
    one.tokens -= 1.0;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_address_counts_by_its_64_and_a_mapped_ipv4_as_itself() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::2".parse().unwrap();
        assert_eq!(address_key(a), address_key(b));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(address_key(mapped), "192.0.2.7".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn the_connections_leave_a_tenth_of_the_open_files_to_the_database() {
        assert_eq!(connections_for(1024), 1024 - 102);
        assert_eq!(connections_for(20_000), 18_000);
        assert_eq!(connections_for(100), 36);
        assert_eq!(connections_for(10), 1);
    }

    #[test]
    fn a_bucket_is_kept_across_reconnections_until_it_fills_up_again() {
        // 20 a second, 2 at once; swept every 50 ms.
        let buckets: Buckets<u8> = Buckets::sweeping(20.0, 2.0, Duration::from_millis(50));
        let held = buckets.get(7);
        drop(held);
        assert!(buckets.take_key(7) && buckets.take_key(7));
        assert!(!buckets.take_key(7), "a third at once is over the burst");
        std::thread::sleep(Duration::from_millis(60));
        // Swept, but not yet full again (held by nothing): kept, still nearly empty.
        let _other = buckets.get(8);
        assert_eq!(buckets.len(), 2, "7 is kept until it fills up");
        assert!(buckets.take_key(7), "refilled by one in 60 ms");
        assert!(!buckets.take_key(7), "and only by one: the reconnection gained nothing");
        std::thread::sleep(Duration::from_millis(300));
        let _third = buckets.get(9);
        assert_eq!(buckets.len(), 2, "7 filled up and nothing holds it: forgotten; 8 is held");
    }

    #[tokio::test]
    async fn a_socket_over_the_caps_is_refused_and_a_closed_one_frees_its_place() {
        let limits = Limits { max_connections: 3, max_connections_per_address: 2, ..Limits::default() };
        let edge = Arc::new(Edge::new(limits, false, Arc::new(Tally::default())));
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let one = edge.admit(a).unwrap();
        let _two = edge.admit(a).unwrap();
        assert_eq!(edge.admit(a).err(), Some(Cap::PerAddress(2)));
        let _three = edge.admit(b).unwrap();
        assert_eq!(edge.admit(b).err(), Some(Cap::Total(3)));
        drop(one);
        let _again = edge.admit(a).unwrap();
        assert_eq!(edge.total(), 3);
    }
}
