//! Playing a table as fast as the server answers: each seat a connection of its own, choosing
//! uniformly among its prompt's choices whenever it is asked, and the clock of each reveal from
//! the last commit to both seats having it.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use rand::RngExt;
use serde_json::Value;
use server::protocol::ErrorCode;
use table::TableRng;
use table::fairness::Nonce;
use tokio::sync::watch;

use crate::wire::{Choice, Conn, Incoming, command_frame, reveal_frame, seal_frame};
use crate::{Latency, LoadError};

/// The clock of a table's reveals, shared by its two seats: each seat notes when it sent a
/// face-down choice and when a reveal reached it; once both have it, the reveal's latency is
/// from the later of the two seats' last commits to the later arrival.
#[derive(Debug, Default)]
pub struct RevealClock {
    committed: [Option<Instant>; 2],
    pending: Option<Pending>,
}

#[derive(Debug)]
struct Pending {
    seq: u64,
    committed: Option<Instant>,
    arrived: Instant,
    seen: u8,
}

impl RevealClock {
    /// Seat `seat` (0 or 1) sent a face-down choice at `at`.
    pub fn committed(&mut self, seat: usize, at: Instant) {
        if let Some(c) = self.committed.get_mut(seat) {
            *c = Some(at);
        }
    }

    /// The reveal numbered `seq` reached seat `seat` at `at`; returns its latency once both
    /// seats have it. A seat cannot commit again before the reveal reaches it, so its last
    /// commit, read now, is its part of this reveal.
    pub fn revealed(&mut self, seat: usize, seq: u64, at: Instant) -> Option<Duration> {
        let own = *self.committed.get(seat)?;
        let bit = 1u8 << seat;
        match &mut self.pending {
            Some(p) if p.seq == seq => {
                p.seen |= bit;
                p.arrived = p.arrived.max(at);
                p.committed = p.committed.max(own);
                if p.seen == 0b11 {
                    let p = self.pending.take()?;
                    return p.committed.map(|c| p.arrived.saturating_duration_since(c));
                }
                None
            }
            _ => {
                self.pending = Some(Pending { seq, committed: own, arrived: at, seen: bit });
                None
            }
        }
    }
}

/// An open loop's schedule of one table slot's face-down choices: its seats send their `k`th
/// face-down choice of a game at the `k`th time of the schedule, each an exponentially
/// distributed think time (one per table, [`Pace::new`]'s mean) after the one before — whatever
/// the server's answers were, so a slow answer makes the next choices late rather than fewer
/// (latency is measured from the scheduled time, never from a send that came late).
#[derive(Debug)]
pub struct Pace {
    mean: Duration,
    rng: TableRng,
    /// The times of the game's choices scheduled so far: `times[k]` is choice `k`'s.
    times: Vec<Instant>,
    /// Where the next game's schedule starts: the last time scheduled.
    last: Instant,
}

/// The longest one think time may be, in means (an exponential draw is unbounded).
const MAX_THINK_MEANS: f64 = 20.0;

impl Pace {
    /// A table slot's schedule with think times of mean `mean`, from `start`.
    pub fn new(mean: Duration, rng: TableRng, start: Instant) -> Pace {
        Pace { mean, rng, times: Vec::new(), last: start }
    }

    /// One exponentially distributed think time (inverse transform of a uniform draw), capped
    /// at [`MAX_THINK_MEANS`] means.
    fn think(&mut self) -> Duration {
        let u: f64 = self.rng.random_range(f64::EPSILON..1.0);
        self.mean.mul_f64((-u.ln()).min(MAX_THINK_MEANS))
    }

    /// A new game at this table slot: its schedule goes on from the last time scheduled.
    pub fn new_game(&mut self) {
        self.times.clear();
    }

    /// When the game's `k`th face-down choice (from 0) is to be sent.
    pub fn at(&mut self, k: usize) -> Instant {
        while self.times.len() <= k {
            let next = self.last + self.think();
            self.times.push(next);
            self.last = next;
        }
        self.times[k]
    }
}

/// What every connection counts, shared by all of them.
pub struct Counters {
    /// Reveals both seats have received.
    pub reveals: AtomicU64,
    /// Requests acknowledged (commands, seals, reveals).
    pub commands: AtomicU64,
    /// Requests refused (a stale prompt, a rate limit…).
    pub refused: AtomicU64,
    /// Games that ended.
    pub games: AtomicU64,
    /// Latency of each reveal, in microseconds.
    pub latency: Mutex<Histogram<u64>>,
    /// Whether the counts run: not during the warm-up, whose reveals, requests and games are
    /// played but not counted.
    pub measuring: AtomicBool,
}

impl Counters {
    /// Zero counts; latencies from 1 µs to 10 minutes, 3 significant figures.
    pub fn new() -> Result<Counters, LoadError> {
        let latency =
            Histogram::new_with_bounds(1, 600_000_000, 3).map_err(|e| LoadError::Histogram(e.to_string()))?;
        Ok(Counters {
            reveals: AtomicU64::new(0),
            commands: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            games: AtomicU64::new(0),
            latency: Mutex::new(latency),
            measuring: AtomicBool::new(true),
        })
    }

    /// Adds one to `count` while the counts run.
    fn count(&self, count: &AtomicU64, n: u64) {
        if self.measuring.load(Ordering::Relaxed) {
            count.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Counts and times a reveal while the counts run. Both happen under the histogram's lock,
    /// which [`Counters::stop`] takes too, so the reveals read there are the ones timed.
    fn record(&self, latency: Duration) {
        let micros = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX).clamp(1, 600_000_000);
        if let Ok(mut h) = self.latency.lock()
            && self.measuring.load(Ordering::Relaxed)
            && h.record(micros).is_ok()
        {
            self.reveals.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Stops the counts and reads them: the reveals and requests counted so far, and the
    /// latencies of exactly those reveals. A seat that sees a reveal after this (one already on
    /// its way when the load stopped) neither counts nor times it.
    pub fn stop(&self) -> Result<(u64, u64, Latency), LoadError> {
        let h = self.latency.lock().map_err(|e| LoadError::Task(e.to_string()))?;
        self.measuring.store(false, Ordering::Relaxed);
        Ok((self.reveals.load(Ordering::Relaxed), self.commands.load(Ordering::Relaxed), Latency::of(&h)))
    }
}

/// How a seat's play ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatEnd {
    /// The game is over.
    Over,
    /// The load generator said stop.
    Stopped,
}

/// One seat of a table, connected and welcomed.
pub struct Seat {
    /// Its connection.
    pub conn: Conn,
    /// 0 or 1: its place in the table's [`RevealClock`].
    pub index: usize,
    /// The sequence number of the last change it has seen.
    pub seq: u64,
    /// What it is asked now (the prompt's choices), as of `seq`.
    pub prompt: Option<Vec<Choice>>,
    /// Whether that prompt is a face-down question.
    pub face_down: bool,
    /// Whether the game is over.
    pub over: bool,
    /// Whether the seat plays sealed (commit–reveal): its face-down choices leave as `seal`,
    /// a commitment, and are revealed once the round's commitments are bound.
    pub sealed: bool,
    /// Whether the table waits for its opening round (docs/fairness.md §8): a sealed seat
    /// commits to `{}` first.
    pub opening: bool,
}

/// What a seat's request in flight is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sent {
    /// A `command` (plain), or a sealed seat's public choice.
    Command,
    /// A sealed seat's commitment.
    Seal,
    /// A sealed seat's reveal.
    Reveal,
}

impl Seat {
    /// Connects to a seat's link and reads its welcome (within `timeout`); `sealed` says how
    /// the table was created to have the seat play.
    pub async fn join(link: &str, index: usize, sealed: bool, timeout: Duration) -> Result<Seat, LoadError> {
        Seat::join_from(link, index, sealed, timeout, None).await
    }

    /// [`Seat::join`] from the local address `from`, when given ([`Conn::join_from`]).
    pub async fn join_from(
        link: &str,
        index: usize,
        sealed: bool,
        timeout: Duration,
        from: Option<std::net::IpAddr>,
    ) -> Result<Seat, LoadError> {
        let work = async {
            let mut conn = Conn::join_from(link, 0, from).await?;
            loop {
                match conn.next().await? {
                    Incoming::Change { seq, prompt, over, face_down, opening, .. } => {
                        return Ok::<_, LoadError>(Seat {
                            conn,
                            index,
                            seq,
                            prompt,
                            face_down,
                            over,
                            sealed,
                            opening,
                        });
                    }
                    Incoming::Error { code, message, .. } => {
                        return Err(LoadError::Refused { code, message });
                    }
                    Incoming::Closing => return Err(LoadError::Closed),
                    Incoming::Ack { .. } | Incoming::Other => continue,
                }
            }
        };
        tokio::time::timeout(timeout, work)
            .await
            .map_err(|_| LoadError::Stalled { what: "a welcome", timeout })?
    }

    /// Plays until the game is over or `stop` turns true: whenever the seat is asked and has no
    /// request in flight, it sends one of the prompt's choices; a stale prompt (one the server
    /// sent before acknowledging the seat's last command) is never answered. Each reveal is
    /// timed on `clock`; `stall` bounds the wait for any message.
    ///
    /// A sealed seat sends a face-down choice as `seal` (the commitment of
    /// [`server::client::seal`], as `facedown join` makes it: SHA-256 over the command's
    /// canonical JSON and a fresh random 32-byte nonce), keeps the command and the nonce, and
    /// once a change binds the round (an item of kind `bound`) reveals them, oldest first, one
    /// request at a time. Its public choices go as plain commands.
    pub async fn play(
        mut self,
        clock: &Mutex<RevealClock>,
        counters: &Counters,
        mut rng: TableRng,
        mut stop: watch::Receiver<bool>,
        stall: Duration,
        pace: Option<&Mutex<Pace>>,
    ) -> Result<SeatEnd, LoadError> {
        // docs/protocol.md, Requests and client ids: the ids are a counter that grows with each
        // request of the seat's link (fresh for this game: from 1).
        let mut next_id: u64 = 0;
        let mut in_flight: Option<(u64, Sent)> = None;
        // The first change a prompt may be answered from: the last acknowledgement's.
        let mut act_from: u64 = 0;
        let mut retry_at: Option<tokio::time::Instant> = None;
        // A sealed seat's commitments not yet revealed, oldest first, and whether they are bound.
        let mut sealed: VecDeque<(Value, Nonce)> = VecDeque::new();
        let mut bound = false;
        // With a pace (an open loop): how many face-down choices the seat sent this game, and
        // the scheduled time of the next one once the seat waits for it.
        let mut paced: usize = 0;
        let mut scheduled: Option<Instant> = None;
        loop {
            // A seat whose request ended the game may see the game over before that request's
            // acknowledgement (two frames): it reads the acknowledgement before it leaves, so
            // every request that made a counted reveal is counted too.
            if self.over && in_flight.is_none() {
                counters.count(&counters.games, u64::from(self.index == 0));
                return Ok(SeatEnd::Over);
            }
            if *stop.borrow() {
                return Ok(SeatEnd::Stopped);
            }
            let idle = in_flight.is_none() && retry_at.is_none();
            let may_act = idle && self.seq >= act_from;
            if idle && self.opening && self.sealed {
                // The opening round: `{}` with a nonce of the seat's own, revealed once bound.
                self.opening = false;
                let command = Value::Object(serde_json::Map::new());
                let (commitment, nonce) = server::client::seal(&command)
                    .map_err(|e| LoadError::Setup(format!("the opening round cannot be sealed: {e}")))?;
                sealed.push_back((command, nonce));
                next_id += 1;
                self.conn.send(seal_frame(next_id, &commitment.to_string())).await?;
                in_flight = Some((next_id, Sent::Seal));
            } else if idle
                && bound
                && let Some((command, nonce)) = sealed.front()
            {
                next_id += 1;
                self.conn.send(reveal_frame(next_id, command, &nonce.to_string())).await?;
                in_flight = Some((next_id, Sent::Reveal));
            } else if may_act
                && let Some(choices) = &self.prompt
                && !choices.is_empty()
            {
                // Uniformly among the prompt's choices.
                let choice = &choices[rng.random_range(0..choices.len())];
                let face_down = choice.private || (self.sealed && self.face_down);
                // An open loop sends a face-down choice at its scheduled time, not before, and
                // times the reveal from then.
                let mut sent_at = Instant::now();
                if face_down && let Some(pace) = pace {
                    let at = match scheduled {
                        Some(at) => at,
                        None => {
                            let at = pace.lock().map_err(|e| LoadError::Task(e.to_string()))?.at(paced);
                            scheduled = Some(at);
                            at
                        }
                    };
                    if at > sent_at {
                        retry_at = Some(tokio::time::Instant::from_std(at));
                        continue;
                    }
                    scheduled = None;
                    paced += 1;
                    sent_at = at;
                }
                next_id += 1;
                if face_down && let Ok(mut c) = clock.lock() {
                    c.committed(self.index, sent_at);
                }
                // A sealed seat seals every answer to a face-down question, as `facedown join`
                // does (some are not `private` themselves, such as no stance at all).
                if self.sealed && self.face_down {
                    let command: Value = serde_json::from_str(choice.command.get())
                        .map_err(|e| LoadError::Setup(format!("a choice is not JSON: {e}")))?;
                    let (commitment, nonce) = server::client::seal(&command)
                        .map_err(|e| LoadError::Setup(format!("a choice cannot be sealed: {e}")))?;
                    sealed.push_back((command, nonce));
                    self.conn.send(seal_frame(next_id, &commitment.to_string())).await?;
                    in_flight = Some((next_id, Sent::Seal));
                } else {
                    self.conn.send(command_frame(next_id, &choice.command)).await?;
                    in_flight = Some((next_id, Sent::Command));
                }
            }
            let now = tokio::time::Instant::now();
            let wake = retry_at.unwrap_or(now + stall);
            // While the seat thinks, the server owes it nothing: a stall counts from its wake.
            let patience = stall + retry_at.map_or(Duration::ZERO, |at| at.saturating_duration_since(now));
            let message = tokio::select! {
                changed = stop.changed() => {
                    // The load generator is gone or said stop: either way, stop.
                    if changed.is_err() {
                        return Ok(SeatEnd::Stopped);
                    }
                    continue;
                }
                _ = tokio::time::sleep_until(wake), if retry_at.is_some() => {
                    retry_at = None;
                    continue;
                }
                m = tokio::time::timeout(patience, self.conn.next()) => {
                    m.map_err(|_| LoadError::Stalled { what: "a message from the server", timeout: stall })??
                }
            };
            let ours = |id: &str| in_flight.is_some_and(|(n, _)| id.parse() == Ok(n));
            match message {
                Incoming::Change { seq, reveals, prompt, over, bound: binds, face_down, .. } => {
                    // Only a round this seat committed in is its to reveal.
                    bound |= binds && !sealed.is_empty();
                    let now = Instant::now();
                    for reveal in reveals {
                        let latency = clock.lock().ok().and_then(|mut c| c.revealed(self.index, reveal, now));
                        if let Some(latency) = latency {
                            counters.record(latency);
                        }
                    }
                    self.seq = seq;
                    self.prompt = prompt;
                    self.face_down = face_down;
                    self.over = over;
                }
                Incoming::Ack { id, seq } if ours(&id) => {
                    if let Some((_, Sent::Reveal)) = in_flight.take() {
                        sealed.pop_front();
                        bound &= !sealed.is_empty();
                    }
                    act_from = seq;
                    counters.count(&counters.commands, 1);
                }
                Incoming::Error { id: Some(id), code, message } if ours(&id) => {
                    let sent = in_flight.take().map(|(_, sent)| sent);
                    counters.count(&counters.refused, 1);
                    if sent == Some(Sent::Seal) {
                        // Refused, so not committed: nothing to reveal for it.
                        sealed.pop_back();
                        bound &= !sealed.is_empty();
                    }
                    match code {
                        // Too fast: the same prompt again a little later.
                        ErrorCode::RateLimited => {
                            retry_at = Some(tokio::time::Instant::now() + Duration::from_millis(50));
                        }
                        // The prompt was stale (for a seal: the seat is no longer asked,
                        // or the round bound without it): wait for the next change.
                        ErrorCode::Refused | ErrorCode::NotAsked | ErrorCode::Bound
                            if sent != Some(Sent::Reveal) =>
                        {
                            act_from = self.seq + 1;
                            self.prompt = None;
                        }
                        code => return Err(LoadError::Refused { code, message }),
                    }
                }
                Incoming::Error { id: None, code, message } => {
                    return Err(LoadError::Refused { code, message });
                }
                Incoming::Closing => return Err(LoadError::Closed),
                Incoming::Ack { .. } | Incoming::Error { .. } | Incoming::Other => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reveal_is_counted_and_timed_only_while_the_counts_run() {
        let counters = Counters::new().unwrap();
        counters.measuring.store(false, Ordering::Relaxed);
        counters.record(Duration::from_millis(3));
        counters.measuring.store(true, Ordering::Relaxed);
        counters.record(Duration::from_millis(5));
        counters.count(&counters.commands, 2);
        let (reveals, commands, latency) = counters.stop().unwrap();
        assert_eq!((reveals, commands, latency.count), (1, 2, 1), "the warm-up's reveal is not counted");
        // A reveal or a request that arrives once the counts stopped is neither counted nor timed.
        counters.record(Duration::from_millis(7));
        counters.count(&counters.commands, 1);
        let (reveals, commands, latency) = counters.stop().unwrap();
        assert_eq!((reveals, commands, latency.count), (1, 2, 1));
    }

    #[test]
    fn a_pace_schedules_exponential_think_times_the_same_for_both_seats() {
        let t0 = Instant::now();
        let mean = Duration::from_millis(100);
        let mut pace = Pace::new(mean, table::seeded_rng(7), t0);
        // Both seats ask for their kth choice: one time each, the same for both.
        let (a, b) = (pace.at(3), pace.at(0));
        assert_eq!((pace.at(3), pace.at(0)), (a, b));
        assert!(t0 < b && b < a);
        // A new game goes on from the last time scheduled.
        pace.new_game();
        assert!(pace.at(0) > a);
        // The think times' mean is the pace's (10,000 draws: within 5%), none over the cap.
        let mut pace = Pace::new(mean, table::seeded_rng(8), t0);
        let n = 10_000;
        let end = pace.at(n - 1);
        let average = end.duration_since(t0).as_secs_f64() / n as f64;
        assert!((average / mean.as_secs_f64() - 1.0).abs() < 0.05, "{average}");
        let longest = (1..n).map(|k| pace.at(k) - pace.at(k - 1)).max().unwrap();
        assert!(longest <= mean.mul_f64(MAX_THINK_MEANS));
    }

    #[test]
    fn a_reveal_is_timed_from_the_last_commit_to_the_last_arrival() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut clock = RevealClock::default();
        clock.committed(0, ms(0));
        clock.committed(1, ms(5));
        assert_eq!(clock.revealed(1, 4, ms(8)), None);
        // Seat 1 commits again before seat 0 sees the reveal: not part of this one.
        clock.committed(1, ms(9));
        assert_eq!(clock.revealed(0, 4, ms(12)), Some(Duration::from_millis(7)));
        // The next reveal, seen by seat 0 first.
        clock.committed(0, ms(20));
        assert_eq!(clock.revealed(0, 6, ms(21)), None);
        assert_eq!(clock.revealed(1, 6, ms(30)), Some(Duration::from_millis(10)));
        // A reveal only one seat saw is dropped when the next begins.
        assert_eq!(clock.revealed(0, 8, ms(40)), None);
        assert_eq!(clock.revealed(1, 10, ms(41)), None);
        assert_eq!(clock.revealed(0, 10, ms(42)), Some(Duration::from_millis(22)));
    }
}
