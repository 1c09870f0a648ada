//! A seat played to the end with random choices, face down by `seal` when the seat is
//! sealed: shared by the sealed-mode tests and the browser verifier's test (both need whole
//! games whose logs hold sealed rounds).

#![allow(dead_code)] // each test binary uses its own part of it

use std::collections::BTreeMap;
use std::time::Duration;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use server::Running;
use server::client::Client;
use server::protocol::{
    ClientMessage, Controller, CreateTable, CreatedTable, ErrorCode, SeatMode, ServerMessage, SetupSource,
    TableOptions, Who,
};
use session::sealed::{Commitment, Nonce};

/// How long one seat's whole game may take.
pub const GAME_TIMEOUT: Duration = Duration::from_secs(120);
/// The most requests one seat sends in a game.
pub const MAX_COMMANDS: usize = 2_000;

/// Everything one client received.
#[derive(Default)]
pub struct Seen {
    pub who: Option<Who>,
    pub items: BTreeMap<u64, Value>,
    pub over: bool,
    /// Commitments this seat sealed and later revealed.
    pub revealed: usize,
    /// The head of its verifiable log, as the last frame gave it.
    pub head: Option<String>,
    /// The link it played.
    pub link: String,
}

impl Seen {
    pub fn take(&mut self, change: &server::protocol::Change) {
        for u in &change.updates {
            let seq = u["seq"].as_u64().unwrap();
            assert_eq!(seq, self.items.keys().next_back().map_or(1, |s| s + 1), "in order, no gaps");
            self.items.insert(seq, u.clone());
        }
        self.over = change.over;
        assert!(change.head.is_some(), "every frame carries the head of the log");
        self.head = change.head.clone();
    }
}

/// The commitment to a command's JSON with a nonce (docs/fairness.md).
pub fn commit(command: &Value, nonce: &Nonce) -> Commitment {
    Commitment::to_command(command, nonce).unwrap()
}

pub fn random_nonce(rng: &mut ChaCha8Rng) -> Nonce {
    Nonce::from_bytes(rng.random())
}

/// Plays one link to the end: each prompt answered at random — face down by `seal` (then
/// `reveal` once bound) when the seat is sealed, by `command` otherwise.
pub async fn play(link: String, seed: u64) -> Seen {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut client = Client::join(&link, 0).await.expect("connects");
    let mut seen = Seen { link: link.clone(), ..Seen::default() };
    let mut sealed_seat = false;
    // The ids grow (docs/protocol.md): q1 and q2 for the client seed and the opening, then
    // r3, c4, …
    let (mut sent, mut changes, mut answered_at) = (2usize, 0usize, 0usize);
    let mut in_flight = 0usize;
    let mut multi = false;
    let mut to_reveal: Vec<(Value, Nonce)> = Vec::new();
    let mut latest: Option<server::protocol::Change> = None;
    let result = tokio::time::timeout(GAME_TIMEOUT, async {
        loop {
            let message = client.next().await.expect("the server keeps the connection");
            match message {
                ServerMessage::Welcome { you, change, seats, server_seed_commitment, round, .. } => {
                    seen.who = Some(you);
                    assert!(server_seed_commitment.is_some(), "the server seed's commitment is published");
                    if let Who::Seat { seat } = you {
                        sealed_seat = seats[usize::from(seat)].mode == SeatMode::Sealed;
                        // docs/fairness.md §4: a seat gives its client seed (in effect from the next mix).
                        let seed = table::fairness::ClientSeed::from_phrase(&format!("seat {seat} {seed}"));
                        in_flight += 1;
                        client
                            .send(&ClientMessage::ClientSeed { id: "q1".into(), seed: seed.to_string() })
                            .await
                            .unwrap();
                        // docs/fairness.md §8: the opening round, `{}` sealed with a nonce of
                        // the seat's own before the rules' first step.
                        if let Some(round) = round.filter(|r| r.opening && !r.bound)
                            && sealed_seat
                            && !round.sealed.contains(&seat)
                        {
                            let nonce = random_nonce(&mut rng);
                            let command = session::opening::opening_command();
                            let commitment = commit(&command, &nonce).to_string();
                            to_reveal.push((command, nonce));
                            in_flight += 1;
                            client.send(&ClientMessage::Seal { id: "q2".into(), commitment }).await.unwrap();
                        }
                    }
                    seen.take(&change);
                    latest = Some(change);
                    changes += 1;
                }
                ServerMessage::Update { change } => {
                    seen.take(&change);
                    latest = Some(change);
                    changes += 1;
                }
                ServerMessage::Ack { .. } => in_flight = in_flight.saturating_sub(1),
                ServerMessage::Seats { .. } | ServerMessage::Sealed { .. } => {}
                ServerMessage::Bound { commitments } => {
                    let Some(Who::Seat { seat }) = seen.who else { continue };
                    let mine = commitments.iter().filter(|c| c.seat == seat).count();
                    assert!(mine >= to_reveal.len(), "every commitment of this seat is bound");
                    for (command, nonce) in to_reveal.drain(..) {
                        sent += 1;
                        in_flight += 1;
                        seen.revealed += 1;
                        let reveal = ClientMessage::Reveal {
                            id: format!("r{sent}"),
                            command,
                            nonce: nonce.to_string(),
                        };
                        client.send(&reveal).await.unwrap();
                    }
                }
                ServerMessage::Error { code: ErrorCode::Refused, .. } if multi => in_flight = 0,
                // A public choice offered beside an open sealed round waits for its reveal (how
                // often depends on the dice, which differ from table to table): asked again.
                ServerMessage::Error { code: ErrorCode::RoundOpen, .. } => in_flight = 0,
                ServerMessage::Error { message, code, .. } => panic!("refused ({code:?}): {message}"),
                other => panic!("unexpected {other:?}"),
            }
            let Some(change) = &latest else { continue };
            if change.over {
                return;
            }
            // A sealed seat asked again in a round answers the question after its own earlier
            // choices (docs/protocol.md, Sealed choices): the branch that names them.
            let earlier: Vec<Value> = to_reveal.iter().map(|(c, _)| c.clone()).collect();
            let branched = change.prompt.as_ref().and_then(|p| own_branch(p, &earlier));
            if let (Some(prompt), Some(Who::Seat { seat }), 0) =
                (branched.as_ref().or(change.prompt.as_ref()), seen.who, in_flight)
                && change.awaiting.contains(&seat)
                && changes > answered_at
            {
                let choices = prompt["choices"].as_array().unwrap();
                let private = prompt["private"].as_bool().unwrap();
                let choices: Vec<_> =
                    choices.iter().filter(|c| c["private"].as_bool() == Some(private)).collect();
                let command = choices[rng.random_range(0..choices.len())]["command"].clone();
                sent += 1;
                assert!(sent < MAX_COMMANDS, "the game ends within {MAX_COMMANDS} commands");
                answered_at = changes;
                in_flight = 1;
                multi = change.awaiting.len() > 1;
                let id = format!("c{sent}");
                let message = if private && sealed_seat {
                    let nonce = random_nonce(&mut rng);
                    let commitment = commit(&command, &nonce).to_string();
                    to_reveal.push((command, nonce));
                    ClientMessage::Seal { id, commitment }
                } else {
                    ClientMessage::Command { id, command }
                };
                client.send(&message).await.unwrap();
            }
        }
    })
    .await;
    assert!(result.is_ok(), "the game ends within {GAME_TIMEOUT:?}");
    client.close().await;
    seen
}

/// The question a sealed seat asked again in a round answers ([`server::client::own_branch`]).
pub fn own_branch(prompt: &Value, earlier: &[Value]) -> Option<Value> {
    server::client::own_branch(prompt, earlier)
}

/// A table of `example` with the seats in `bots` played by bots and those in `sealed` sealed
/// (with the server's default opening: an opening round when a seat is sealed and the rules
/// may draw before a reveal, as Inciting Incident's do).
pub async fn create(
    server: &Running,
    system: &str,
    example: &str,
    bots: &[(&str, &str)],
    sealed: &[&str],
) -> CreatedTable {
    create_with(server, system, example, bots, sealed, None).await
}

/// [`create`], with the table's `opening_round` option.
pub async fn create_with(
    server: &Running,
    system: &str,
    example: &str,
    bots: &[(&str, &str)],
    sealed: &[&str],
    opening_round: Option<bool>,
) -> CreatedTable {
    let seats = bots.iter().map(|(n, b)| (n.to_string(), Controller::Bot { bot: b.to_string() })).collect();
    let modes = sealed.iter().map(|n| (n.to_string(), SeatMode::Sealed)).collect();
    server
        .create_table(CreateTable {
            system: system.into(),
            setup: SetupSource::Example(example.into()),
            seats,
            options: TableOptions { modes, opening_round, ..TableOptions::default() },
            rules: Default::default(),
        })
        .await
        .unwrap_or_else(|e| panic!("{system} {example}: {}", e.message))
}
