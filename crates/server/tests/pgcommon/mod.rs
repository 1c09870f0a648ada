//! What the PostgreSQL server tests share (tests/postgres.rs, tests/instances.rs): a database
//! of their own on the tests' PostgreSQL server, a server's configuration, and seats that play
//! their links at random and keep what they received.
//!
//! The PostgreSQL server comes from `FACEDOWN_TEST_POSTGRES` (a base URL; `.ci/postgres.sh
//! start` starts a throwaway one). Without the variable a test prints that it skipped — except
//! under CI (`CI` set), where it fails.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::time::Duration;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use server::client::Client;
use server::protocol::{Change, ClientMessage, ErrorCode, ServerMessage, Who, link, parse_link};
use server::{Config, Running};
use sqlx::Connection;
use sqlx::postgres::PgConnection;

pub const POSTGRES_VAR: &str = "FACEDOWN_TEST_POSTGRES";
/// The longest a whole phase of play may take.
pub const PHASE_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a seat waits for a message before the first phase ends for it.
pub const IDLE: Duration = Duration::from_secs(2);
pub const MAX_COMMANDS: usize = 2_000;

/// A database of its own on the tests' PostgreSQL server, dropped at the end.
pub struct Database {
    base: String,
    name: String,
}

impl Database {
    /// A new database, or `None` (printed) when no server is named outside CI.
    pub async fn create(test: &str) -> Option<Database> {
        let Ok(base) = std::env::var(POSTGRES_VAR) else {
            if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
                panic!("{test}: {POSTGRES_VAR} is not set, and in CI the PostgreSQL tests never skip");
            }
            eprintln!(
                "{test}: skipped, no PostgreSQL server ({POSTGRES_VAR} is not set; .ci/postgres.sh start)"
            );
            return None;
        };
        let name = format!("facedown_server_{:016x}", rand::rng().random::<u64>());
        let mut admin = PgConnection::connect(&base).await.expect("the tests' PostgreSQL server answers");
        sqlx::query(&format!("CREATE DATABASE {name}")).execute(&mut admin).await.unwrap();
        admin.close().await.unwrap();
        Some(Database { base, name })
    }

    /// The database's URL: the base with the database's name as its path.
    pub fn url(&self) -> String {
        let base = self.base.split(['?', '#']).next().unwrap_or(&self.base);
        let authority = base.split_once("://").map_or(base, |(_, rest)| rest);
        match authority.split_once('/') {
            Some(_) => format!("{}/{}", base.rsplit_once('/').unwrap().0, self.name),
            None => format!("{}/{}", base.trim_end_matches('/'), self.name),
        }
    }

    pub async fn drop_it(self) {
        let mut admin = PgConnection::connect(&self.base).await.unwrap();
        sqlx::query(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name))
            .execute(&mut admin)
            .await
            .unwrap();
        admin.close().await.unwrap();
    }
}

pub fn config(url: &str) -> Config {
    let mut c = Config::new(url.into());
    c.listen = "127.0.0.1:0".parse().unwrap();
    c.limits.messages_per_second = 10_000;
    c.limits.burst = 10_000;
    c
}

/// What one seat received, by sequence number.
#[derive(Default, Clone)]
pub struct Seen {
    pub who: Option<Who>,
    pub items: BTreeMap<u64, Value>,
    pub over: bool,
}

impl Seen {
    pub fn take(&mut self, change: &Change) {
        for u in &change.updates {
            let seq = u["seq"].as_u64().expect("an update has its seq");
            let expected = self.items.keys().next_back().map_or(1, |s| s + 1);
            assert_eq!(seq, expected, "updates come in order without gaps or repeats");
            self.items.insert(seq, u.clone());
        }
        self.over = change.over;
    }
}

/// Plays a seat's link with random choices from the start of the log: to the game's end, or,
/// with `stop_after`, until that many of its commands were acknowledged or nothing came for
/// [`IDLE`] (the other seat stopped).
pub async fn play(link: String, seed: u64, stop_after: Option<usize>) -> Seen {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut client = Client::join(&link, 0).await.expect("connects");
    let mut seen = Seen::default();
    let (mut sent, mut acked) = (0usize, 0usize);
    let mut asked_at = None;
    let mut in_flight = false;
    let mut multi = false;
    let mut latest: Option<Change> = None;
    let result = tokio::time::timeout(PHASE_TIMEOUT, async {
        loop {
            if stop_after.is_some_and(|n| acked >= n) && !in_flight {
                return;
            }
            let next = match stop_after {
                Some(_) => match tokio::time::timeout(IDLE, client.next()).await {
                    Ok(next) => next,
                    Err(_) if !in_flight => return,
                    Err(_) => panic!("a command had no answer within {IDLE:?}"),
                },
                None => client.next().await,
            };
            match next.expect("the server keeps the connection") {
                ServerMessage::Welcome { you, change, last_id, .. } => {
                    // docs/protocol.md: a link's ids grow, from above the last one applied
                    // (this link may have played an earlier phase).
                    sent = sent.max(last_id as usize);
                    seen.who = Some(you);
                    seen.take(&change);
                    latest = Some(change);
                }
                ServerMessage::Update { change } => {
                    seen.take(&change);
                    latest = Some(change);
                }
                ServerMessage::Ack { .. } => {
                    in_flight = false;
                    acked += 1;
                }
                ServerMessage::Seats { .. } => {}
                // Another seat's command came first: wait for the next change.
                ServerMessage::Error { code: ErrorCode::Refused, .. } if multi => in_flight = false,
                ServerMessage::Error { message, .. } => panic!("refused: {message}"),
                other => panic!("unexpected {other:?}"),
            }
            let Some(change) = &latest else { continue };
            if change.over {
                return;
            }
            if let (Some(prompt), Some(Who::Seat { seat }), false) = (&change.prompt, seen.who, in_flight)
                && change.awaiting.contains(&seat)
                && asked_at != Some(change.seq)
            {
                let choices = prompt["choices"].as_array().expect("a prompt has choices");
                let pick = &choices[rng.random_range(0..choices.len())];
                sent += 1;
                assert!(sent < MAX_COMMANDS, "the game ends within {MAX_COMMANDS} commands");
                asked_at = Some(change.seq);
                in_flight = true;
                multi = change.awaiting.len() > 1;
                client
                    .send(&ClientMessage::Command {
                        id: format!("c{seed}-{sent}"),
                        command: pick["command"].clone(),
                    })
                    .await
                    .unwrap();
            }
        }
    })
    .await;
    assert!(result.is_ok(), "a phase of play ends within {PHASE_TIMEOUT:?}");
    client.close().await;
    seen
}

/// Every seat's link, on `server`.
pub fn links_on(server: &Running, seats: &BTreeMap<String, String>) -> Vec<String> {
    seats
        .values()
        .map(|l| {
            let (_, table, token) = parse_link(l).unwrap();
            link(&server.base_url, &table, &token)
        })
        .collect()
}

pub async fn play_all(links: Vec<String>, stop_after: Option<usize>) -> Vec<Seen> {
    let tasks: Vec<_> = links
        .into_iter()
        .enumerate()
        .map(|(i, l)| tokio::spawn(play(l, 16 + i as u64 + stop_after.map_or(100, |_| 0), stop_after)))
        .collect();
    let mut seen = Vec::new();
    for t in tasks {
        seen.push(t.await.unwrap());
    }
    seen
}
