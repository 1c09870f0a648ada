//! docs/fairness.md, checked: canonical JSON against texts written by hand, commitments and
//! draws against SHA-256 and HMAC computed here from the document's byte layouts (not through
//! the module's own helpers), the rejection sampling in range and unbiased, the verifiable
//! [`Draws`] following the spec for every draw method, and the hash chain catching any change.

use hmac::{Hmac, Mac};
use proptest::prelude::*;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use table::fairness::{
    CanonicalError, ChainError, ChainHash, ClientSeed, Commitment, DRAW_TAG, DrawInputs, FairnessError,
    GENESIS, HashChain, MAX_DEPTH, Nonce, ServerSeed, Verifiable, canonical_json, verify_commitment,
};
use table::{Draws, Source};

/// Cases per property unless `PROPTEST_CASES` asks for fewer.
fn config(cases: u32) -> ProptestConfig {
    let asked = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse::<u32>().ok());
    ProptestConfig {
        cases: asked.map_or(cases, |n| n.clamp(1, cases)),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn bytes_of(label: &str) -> [u8; 32] {
    Sha256::digest(label.as_bytes()).into()
}

fn server_seed(label: &str) -> ServerSeed {
    ServerSeed::from_bytes(bytes_of(label))
}

fn nonce(label: &str) -> Nonce {
    Nonce::from_bytes(bytes_of(label))
}

fn canon(text: &str) -> Result<String, CanonicalError> {
    canonical_json(&serde_json::from_str::<Value>(text).unwrap())
}

// --- canonical JSON -------------------------------------------------------------------------

#[test]
fn canonical_json_matches_texts_written_by_hand() {
    let cases = [
        ("null", "null"),
        (" true ", "true"),
        ("[ 1 , -2, 0 ]", "[1,-2,0]"),
        ("9007199254740991", "9007199254740991"),
        ("-9007199254740991", "-9007199254740991"),
        (r#"{ "b": 1, "a": { "d": [], "c": {} } }"#, r#"{"a":{"c":{},"d":[]},"b":1}"#),
        // Escapes: quote, backslash, the five short ones, other controls as \u00xx lowercase;
        // '/', DEL, U+2028 and everything else literally.
        (
            r#""q\" b\\ \b\t\n\f\r \u0000 \u001F \u007f / \u2028 é 😀""#,
            "\"q\\\" b\\\\ \\b\\t\\n\\f\\r \\u0000 \\u001f \u{7f} / \u{2028} é 😀\"",
        ),
        // Keys sort by UTF-16 code units: U+1F600 (0xD83D 0xDE00) before U+FFFF, though its code
        // point is larger; "a" before "aa" before "b"; upper case before lower case.
        (
            r#"{"\uffff":1,"😀":2,"b":3,"aa":4,"a":5,"B":6}"#,
            "{\"B\":6,\"a\":5,\"aa\":4,\"b\":3,\"😀\":2,\"\u{ffff}\":1}",
        ),
        (
            r#"{"seat":1,"command":{"stance":"2 grapple","move":"▨☰"}}"#,
            r#"{"command":{"move":"▨☰","stance":"2 grapple"},"seat":1}"#,
        ),
    ];
    for (input, want) in cases {
        assert_eq!(canon(input).as_deref(), Ok(want), "{input}");
    }
}

#[test]
fn numbers_other_than_safe_integers_are_refused_and_located() {
    for bad in
        ["1.5", "1.0", "1e3", "-0", "-0.0", "9007199254740992", "-9007199254740992", "18446744073709551615"]
    {
        let e = canon(&format!(r#"{{"a":[true,{{"b":{bad}}}]}}"#)).unwrap_err();
        assert!(matches!(&e, CanonicalError::Number { path, .. } if path == "$.a[1].b"), "{bad}: {e}");
    }
    // "-0" reads as the float −0 (in JavaScript too): refused like any float.
}

#[test]
fn nesting_is_bounded() {
    let deep = |levels: usize| (0..levels).fold(json!(0), |v, _| json!([v]));
    assert!(canonical_json(&deep(MAX_DEPTH)).is_ok());
    let e = canonical_json(&deep(MAX_DEPTH + 1)).unwrap_err();
    assert!(matches!(e, CanonicalError::TooDeep { .. }), "{e}");
}

/// JSON values of every kind, numbers within the canonical range.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-(1i64 << 53) + 1..(1i64 << 53)).prop_map(|n| json!(n)),
        "\\PC{0,8}|[\\x00-\\x1f\"\\\\/]{0,4}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("\\PC{0,4}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// `value` with one leaf changed (a number +1, a string with a character added, a boolean or
/// null turned into something else), `at` choosing which leaf.
fn change_a_leaf(value: &Value, at: &mut usize) -> Option<Value> {
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if let Some(changed) = change_a_leaf(item, at) {
                    let mut items = items.clone();
                    items[i] = changed;
                    return Some(Value::Array(items));
                }
            }
            None
        }
        Value::Object(members) => {
            for (k, item) in members {
                if let Some(changed) = change_a_leaf(item, at) {
                    let mut members = members.clone();
                    members.insert(k.clone(), changed);
                    return Some(Value::Object(members));
                }
            }
            None
        }
        leaf => {
            if *at > 0 {
                *at -= 1;
                return None;
            }
            Some(match leaf {
                Value::Null => json!(false),
                Value::Bool(b) => json!(!b),
                Value::Number(n) => json!(n.as_i64().map_or(0, |n| if n > 0 { n - 1 } else { n + 1 })),
                Value::String(s) => json!(format!("{s}x")),
                _ => json!(null),
            })
        }
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn canonical_json_reads_back_as_the_same_value_and_is_a_fixed_point(v in json_value()) {
        let text = canonical_json(&v).unwrap();
        let back: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&back, &v);
        prop_assert_eq!(canonical_json(&back).unwrap(), text.clone());
        // serde_json's own compact form differs only in key order and in escaping DEL-free
        // controls the same way: for values without objects the two agree.
        if !text.contains('{') {
            prop_assert_eq!(serde_json::to_string(&v).unwrap(), text);
        }
    }

    #[test]
    fn changing_any_leaf_of_a_chain_entry_changes_the_head(
        entries in prop::collection::vec(json_value(), 1..5),
        which in any::<prop::sample::Index>(),
        leaf in 0usize..8,
    ) {
        let mut chain = HashChain::new();
        for e in &entries {
            chain.append(e).unwrap();
        }
        let i = which.index(entries.len());
        let mut at = leaf;
        let changed = change_a_leaf(&entries[i], &mut at).or_else(|| change_a_leaf(&entries[i], &mut 0));
        if let Some(changed) = changed {
            let mut other = entries.clone();
            other[i] = changed;
            let mut again = HashChain::new();
            for e in &other {
                again.append(e).unwrap();
            }
            prop_assert_ne!(again.head(), chain.head());
        }
    }

    #[test]
    fn changing_any_byte_of_a_stored_entry_is_caught(
        entries in prop::collection::vec(json_value(), 1..4),
        which in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        flip in 1u8..=255,
    ) {
        // The log stores each entry as its canonical text with its hash.
        let texts: Vec<String> = entries.iter().map(|e| canonical_json(e).unwrap()).collect();
        let mut chain = HashChain::new();
        let hashes: Vec<ChainHash> = texts.iter().map(|t| chain.append_text(t).unwrap()).collect();
        let i = which.index(texts.len());
        let mut bytes = texts[i].clone().into_bytes();
        let j = at.index(bytes.len());
        bytes[j] ^= flip;
        let mut tampered = texts.clone();
        match String::from_utf8(bytes) {
            Err(_) => return Ok(()), // not even text: any reader refuses it
            Ok(t) => tampered[i] = t,
        }
        let got = HashChain::verify_texts(tampered.iter().map(String::as_str).zip(&hashes));
        prop_assert!(got.is_err(), "a changed byte at {} of entry {} went unnoticed", j, i);
        let at_or_before = match got.unwrap_err() {
            ChainError::Mismatch { index, .. } | ChainError::Canonical { index, .. } | ChainError::NotCanonical { index, .. } => index,
        };
        prop_assert_eq!(at_or_before, i as u64);
    }

    #[test]
    fn a_wrong_nonce_or_a_changed_command_fails_verification(
        command in json_value(),
        n in any::<[u8; 32]>(),
        bit in 0usize..256,
    ) {
        let good = Nonce::from_bytes(n);
        let c = Commitment::to_command(&command, &good).unwrap();
        prop_assert_eq!(verify_commitment(&command, &good, &c), Ok(()));
        let mut wrong = n;
        wrong[bit / 8] ^= 1 << (bit % 8);
        prop_assert_eq!(verify_commitment(&command, &Nonce::from_bytes(wrong), &c), Err(FairnessError::CommitmentMismatch));
        if let Some(changed) = change_a_leaf(&command, &mut 0) {
            prop_assert_eq!(verify_commitment(&changed, &good, &c), Err(FairnessError::CommitmentMismatch));
        }
    }

    #[test]
    fn every_draw_is_in_range(seed in any::<[u8; 32]>(), counter in any::<u64>(), n in 1u128..=(1 << 64)) {
        let s = ServerSeed::from_bytes(seed);
        let inputs = DrawInputs { server_seed: &s, client_seeds: &[None], round_nonces: &[None] };
        let d = inputs.draw(counter, n).unwrap();
        prop_assert!(u128::from(d.value) < n);
    }

    #[test]
    fn verifiable_dice_and_ranges_stay_in_range(seed in any::<[u8; 32]>(), sides in 0u8..=255, lo in any::<i64>(), span in 0u64..1000) {
        let mut d = Draws::verifiable(ServerSeed::from_bytes(seed), 2);
        let die = d.die(sides);
        let in_range = if sides == 0 { die == 0 } else { (1..=sides).contains(&die) };
        prop_assert!(in_range, "a die of {} sides gave {}", sides, die);
        let hi = lo.saturating_add(span as i64);
        let x = d.uniform(lo..=hi).unwrap();
        prop_assert!((lo..=hi).contains(&x));
        let full = d.uniform(0..=u64::MAX).unwrap();
        let _ = full;
        let m = d.uniform(i64::MIN..=i64::MAX).unwrap();
        let _ = m;
        prop_assert_eq!(d.position(), if sides == 0 { 3 } else { 4 });
    }
}

// --- commitments and seeds ------------------------------------------------------------------

#[test]
fn a_commitment_is_sha256_of_the_canonical_text_then_the_nonce() {
    let command = json!({"stance": "2 grapple", "move": "▨☰", "target": 1});
    let n = nonce("nonce 1");
    let mut by_hand = r#"{"move":"▨☰","stance":"2 grapple","target":1}"#.as_bytes().to_vec();
    by_hand.extend_from_slice(n.as_bytes());
    let want = hex::encode(Sha256::digest(&by_hand));
    let got = Commitment::to_command(&command, &n).unwrap();
    assert_eq!(got.to_string(), want);
    assert_eq!(want.parse::<Commitment>(), Ok(got));
    assert_eq!(verify_commitment(&command, &n, &got), Ok(()));
    // Key order and whitespace of the text sent do not matter: the canonical form does.
    let reordered: Value =
        serde_json::from_str(r#"{ "target": 1, "move": "▨☰", "stance": "2 grapple" }"#).unwrap();
    assert_eq!(verify_commitment(&reordered, &n, &got), Ok(()));
    assert_eq!(verify_commitment(&command, &nonce("nonce 2"), &got), Err(FairnessError::CommitmentMismatch));
    assert!(matches!(
        verify_commitment(&json!({"p": 0.5}), &n, &got),
        Err(FairnessError::Canonical(CanonicalError::Number { .. }))
    ));
}

#[test]
fn hex_values_are_64_lowercase_hexadecimal_characters() {
    let good = "00ff".repeat(16);
    assert!(good.parse::<Nonce>().is_ok());
    for bad in [
        good.to_uppercase(),
        good[..62].to_owned(),
        format!("{good}00"),
        format!("0x{}", &good[2..]),
        "zz".repeat(32),
    ] {
        let e = bad.parse::<Nonce>().unwrap_err();
        assert!(matches!(e, FairnessError::Hex { what: "nonce", .. }), "{bad}: {e}");
    }
    let n = nonce("n");
    assert_eq!(serde_json::to_string(&n).unwrap(), format!("\"{n}\""));
    assert_eq!(serde_json::from_str::<Nonce>(&format!("\"{n}\"")).unwrap(), n);
    assert!(serde_json::from_str::<Nonce>(&format!("\"{}\"", n.to_string().to_uppercase())).is_err());
}

#[test]
fn a_server_seed_is_committed_by_its_sha256_and_checked_when_revealed() {
    let seed = server_seed("server seed 1");
    assert_eq!(seed.commitment().to_string(), hex::encode(Sha256::digest(seed.as_bytes())));
    let published = seed.commitment();
    assert_eq!(ServerSeed::from_revealed(&seed.reveal(), &published), Ok(seed));
    let other = server_seed("server seed 2");
    assert_eq!(ServerSeed::from_revealed(&other.reveal(), &published), Err(FairnessError::SeedMismatch));
    assert!(matches!(ServerSeed::from_revealed("beef", &published), Err(FairnessError::Hex { .. })));
    // Debug never prints the secret.
    let shown = format!("{seed:?} {:?}", Draws::verifiable(seed, 2));
    assert!(!shown.contains(&seed.reveal()), "{shown}");
    // A generated seed comes from the generator it is given.
    let mut rng = table::seeded_rng(1);
    let (a, b) = (ServerSeed::generate(&mut rng), ServerSeed::generate(&mut rng));
    assert_ne!(a, b);
}

#[test]
fn a_client_seed_phrase_is_its_sha256() {
    assert_eq!(ClientSeed::from_phrase("lucky").as_bytes(), &bytes_of("lucky"));
}

// --- draws ----------------------------------------------------------------------------------

/// The message of a draw assembled by hand from the document's layout.
fn message_by_hand(
    clients: &[Option<[u8; 32]>],
    nonces: &[Option<[u8; 32]>],
    counter: u64,
    retry: u32,
) -> Vec<u8> {
    let mut m = b"facedown/draw/v1".to_vec();
    m.extend_from_slice(&(clients.len() as u16).to_be_bytes());
    for x in clients.iter().chain(nonces) {
        match x {
            Some(b) => {
                m.push(1);
                m.extend_from_slice(b);
            }
            None => m.push(0),
        }
    }
    m.extend_from_slice(&counter.to_be_bytes());
    m.extend_from_slice(&retry.to_be_bytes());
    m
}

fn hmac_by_hand(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).unwrap();
    mac.update(message);
    mac.finalize().into_bytes().into()
}

/// The draw by hand: first 8 bytes big-endian, rejected at or above the largest multiple of n.
fn draw_by_hand(
    key: &[u8],
    clients: &[Option<[u8; 32]>],
    nonces: &[Option<[u8; 32]>],
    counter: u64,
    n: u128,
) -> (u64, u32) {
    for retry in 0u32.. {
        let out = hmac_by_hand(key, &message_by_hand(clients, nonces, counter, retry));
        let x = u128::from(u64::from_be_bytes(out[..8].try_into().unwrap()));
        let limit = (1u128 << 64) / n * n;
        if x < limit {
            return ((x % n) as u64, retry);
        }
    }
    unreachable!()
}

#[test]
fn a_draw_is_the_hmac_of_the_documented_message() {
    assert_eq!(DRAW_TAG.len(), 16);
    let seed = server_seed("server seed 1");
    let clients = [Some(bytes_of("client 0")), None, Some(bytes_of("client 2"))];
    let nonces = [None, Some(bytes_of("nonce 1")), Some(bytes_of("nonce 2"))];
    let client_seeds: Vec<_> = clients.iter().map(|c| c.map(ClientSeed::from_bytes)).collect();
    let round_nonces: Vec<_> = nonces.iter().map(|c| c.map(Nonce::from_bytes)).collect();
    let inputs = DrawInputs { server_seed: &seed, client_seeds: &client_seeds, round_nonces: &round_nonces };
    assert_eq!(inputs.message(7, 2).unwrap(), message_by_hand(&clients, &nonces, 7, 2));
    for (counter, n) in [(0, 6u128), (1, 20), (2, 1), (3, 1 << 32), (u64::MAX, 1 << 64), (5, (1 << 63) + 1)] {
        let d = inputs.draw(counter, n).unwrap();
        assert_eq!(
            (d.value, d.retries),
            draw_by_hand(seed.as_bytes(), &clients, &nonces, counter, n),
            "{counter} {n}"
        );
    }
    assert_eq!(inputs.draw(0, 0), Err(FairnessError::RangeSize(0)));
    assert_eq!(inputs.draw(0, (1 << 64) + 1), Err(FairnessError::RangeSize((1 << 64) + 1)));
    let short =
        DrawInputs { server_seed: &seed, client_seeds: &client_seeds, round_nonces: &round_nonces[..2] };
    assert!(matches!(short.draw(0, 6), Err(FairnessError::Seats { client_seeds: 3, round_nonces: 2 })));
}

#[test]
fn a_rejected_try_moves_on_to_the_next_retry_counter() {
    // Over 2^63 + 1 outcomes almost half of all 64-bit words are rejected: some of the first
    // counters must show a retry, and each must agree with the hand-made draw.
    let seed = server_seed("server seed 1");
    let inputs = DrawInputs { server_seed: &seed, client_seeds: &[None], round_nonces: &[None] };
    let n = (1u128 << 63) + 1;
    let mut retried = 0;
    for counter in 0..64 {
        let d = inputs.draw(counter, n).unwrap();
        assert_eq!((d.value, d.retries), draw_by_hand(seed.as_bytes(), &[None], &[None], counter, n));
        if d.retries > 0 {
            retried += 1;
            let first = hmac_by_hand(seed.as_bytes(), &inputs.message(counter, 0).unwrap());
            assert!(
                u128::from(u64::from_be_bytes(first[..8].try_into().unwrap())) >= n,
                "the first try was rejected"
            );
        }
    }
    assert!((16..=48).contains(&retried), "{retried} of 64 draws retried");
}

#[test]
fn small_ranges_are_drawn_without_bias() {
    // 24 000 draws per range size with a fixed seed: each outcome's count within 5 standard
    // deviations of its expectation, and Pearson's chi-squared below a bound that a fair source
    // exceeds with probability far below one in a million.
    let seed = server_seed("statistics");
    let inputs = DrawInputs {
        server_seed: &seed,
        client_seeds: &[Some(ClientSeed::from_phrase("x"))],
        round_nonces: &[None],
    };
    let draws = 24_000u64;
    for n in [2u64, 3, 5, 6, 7, 20] {
        let mut counts = vec![0u64; n as usize];
        for counter in 0..draws {
            counts[inputs.draw(counter, u128::from(n)).unwrap().value as usize] += 1;
        }
        let expected = draws as f64 / n as f64;
        let sd = (expected * (1.0 - 1.0 / n as f64)).sqrt();
        let mut chi2 = 0.0;
        for (v, &c) in counts.iter().enumerate() {
            assert!(
                (c as f64 - expected).abs() < 5.0 * sd,
                "n = {n}: {v} drawn {c} times, expected {expected}"
            );
            chi2 += (c as f64 - expected).powi(2) / expected;
        }
        // Degrees of freedom k = n − 1 ≤ 19; chi² > k + 10·√(2k) + 20 is far out in the tail.
        let k = (n - 1) as f64;
        assert!(chi2 < k + 10.0 * (2.0 * k).sqrt() + 20.0, "n = {n}: chi² = {chi2}");
    }
}

fn verifiable_draws() -> Draws {
    Draws::verifiable(server_seed("server seed 1"), 3)
}

#[test]
fn the_draw_methods_map_onto_the_draw_as_documented() {
    let mut d = verifiable_draws();
    let v = d.source().verifiable().unwrap().clone();
    let draw = |counter: u64, n: u128| v.inputs().draw(counter, n).unwrap().value;
    assert_eq!(d.position(), 0);
    assert_eq!(u64::from(d.die(6)), 1 + draw(0, 6));
    assert_eq!(d.uniform(10..=20u32), Some(10 + draw(1, 11) as u32));
    assert_eq!(d.uniform(-5..5i32), Some(-5 + draw(2, 10) as i32));
    let items = ["a", "b", "c"];
    assert_eq!(d.pick(&items), Some(&items[draw(3, 3) as usize]));
    let threshold = (0.3f64 * 4_294_967_296.0).round() as u64;
    assert_eq!(d.chance(0.3), draw(4, 1 << 32) < threshold);
    assert_eq!(d.uniform(0..=u64::MAX), Some(draw(5, 1 << 64)));
    assert_eq!(d.uniform(4..5u8), Some(4), "one outcome still draws");
    assert_eq!(d.position(), 7, "the position is the draw counter");
    // Nothing to draw from draws nothing.
    assert_eq!(d.uniform(5..5u32), None);
    let (lo, hi) = (5u32, 4u32);
    assert_eq!(d.uniform(lo..=hi), None);
    assert_eq!(d.pick::<u8>(&[]), None);
    assert_eq!(d.die(0), 0);
    assert!(!d.chance(0.0) && !d.chance(f64::NAN) && d.chance(1.0));
    assert_eq!(d.position(), 7);
}

#[test]
fn a_stream_continues_from_the_recorded_counter_and_survives_json() {
    let mut one = verifiable_draws();
    let singly: Vec<u8> = (0..10).map(|_| one.die(12)).collect();
    let mut s = verifiable_draws().stream();
    let streamed: Vec<u8> = (0..10).map(|_| s.die(12)).collect();
    assert_eq!(singly, streamed);
    assert_eq!(s.position(), one.position());

    let mut a = verifiable_draws();
    a.die(6);
    a.add_client_seed(2, ClientSeed::from_phrase("c")).unwrap();
    a.mix(&[None, Some(nonce("x")), None]).unwrap();
    a.die(6);
    let text = serde_json::to_string(&a).unwrap();
    let mut b: Draws = serde_json::from_str(&text).unwrap();
    assert_eq!(b, a);
    let next: Vec<u8> = (0..20).map(|_| a.die(20)).collect();
    assert_eq!((0..20).map(|_| b.die(20)).collect::<Vec<u8>>(), next);
}

#[test]
fn mixing_a_round_and_client_seeds_change_the_draws_from_the_next_mix_on() {
    let base = verifiable_draws();
    let stream_of = |d: &Draws| {
        let mut s = d.stream();
        (0..16).map(|_| s.die(20)).collect::<Vec<u8>>()
    };
    let mut seeded = base.clone();
    seeded.add_client_seed(1, ClientSeed::from_phrase("mine")).unwrap();
    assert_eq!(stream_of(&seeded), stream_of(&base), "a client seed waits for the next mix");
    assert_eq!(seeded.source().verifiable().unwrap().client_seeds(), &[None, None, None]);

    let round = [Some(nonce("a")), None, Some(nonce("c"))];
    let mut mixed = base.clone();
    mixed.mix(&round).unwrap();
    assert_ne!(stream_of(&mixed), stream_of(&base), "the round's nonces change the draws");
    seeded.mix(&round).unwrap();
    assert_ne!(stream_of(&seeded), stream_of(&mixed), "and the client seed now takes part");
    let v = seeded.source().verifiable().unwrap();
    assert_eq!(v.mixes(), 1);
    assert_eq!(v.client_seeds()[1], Some(ClientSeed::from_phrase("mine")));
    assert_eq!(v.round_nonces(), &round);

    // A later round replaces the nonces; a later client seed replaces the seat's at the next mix.
    seeded.add_client_seed(1, ClientSeed::from_phrase("again")).unwrap();
    seeded.mix(&[None, None, None]).unwrap();
    let v = seeded.source().verifiable().unwrap();
    assert_eq!(v.round_nonces(), &[None, None, None]);
    assert_eq!(v.client_seeds()[1], Some(ClientSeed::from_phrase("again")));
    assert_eq!(v.mixes(), 2);

    assert_eq!(
        seeded.add_client_seed(3, ClientSeed::from_phrase("x")),
        Err(FairnessError::NoSeat { seat: 3, seats: 3 })
    );
    assert_eq!(seeded.mix(&[None]), Err(FairnessError::RoundSize { given: 1, seats: 3 }));
}

#[test]
fn a_rotated_server_seed_is_given_back_and_the_counter_carries_on() {
    let mut d = verifiable_draws();
    d.die(6);
    let old = d.rotate_server_seed(server_seed("server seed 2")).unwrap();
    assert_eq!(old, server_seed("server seed 1"));
    assert_eq!(d.position(), 1);
    let v = d.source().verifiable().unwrap();
    assert_eq!(v.server_seed_commitment(), server_seed("server seed 2").commitment());
    let want = 1 + v.inputs().draw(1, 6).unwrap().value;
    assert_eq!(u64::from(d.die(6)), want);
}

#[test]
fn a_seeded_source_refuses_the_verifiable_operations() {
    let mut d = Draws::seeded(1);
    assert_eq!(d.mix(&[]), Err(FairnessError::NotVerifiable));
    assert_eq!(d.add_client_seed(0, ClientSeed::from_phrase("x")), Err(FairnessError::NotVerifiable));
    assert_eq!(d.rotate_server_seed(server_seed("s")), Err(FairnessError::NotVerifiable));
    assert!(d.source().verifiable().is_none());
    assert_eq!(verifiable_draws().source().seeds(), &[] as &[u64]);
}

#[test]
fn a_saved_source_with_uneven_seat_lists_is_refused() {
    let d = verifiable_draws();
    let mut v: Value = serde_json::to_value(&d).unwrap();
    assert_eq!(v["source"]["verifiable"]["server_seed"], json!(server_seed("server seed 1").reveal()));
    v["source"]["verifiable"]["round_nonces"] = json!([null]);
    assert!(serde_json::from_value::<Draws>(v).is_err());
    let fresh = Verifiable::new(server_seed("s"), 2);
    assert_eq!(fresh.seats(), 2);
    assert_eq!(Draws::new(Source::Verifiable(Box::new(fresh))).position(), 0);
}

// --- the hash chain -------------------------------------------------------------------------

#[test]
fn the_chain_links_each_entry_to_the_hash_before_it() {
    let entries =
        [json!({"seq": 0, "kind": "created"}), json!({"seq": 1, "text": "Ada attacks"}), json!([1, 2])];
    let mut chain = HashChain::new();
    assert_eq!(chain.head(), GENESIS);
    assert!(chain.is_empty());
    let mut prev = [0u8; 32];
    let mut hashes = Vec::new();
    for e in &entries {
        let mut by_hand = prev.to_vec();
        by_hand.extend_from_slice(canonical_json(e).unwrap().as_bytes());
        prev = Sha256::digest(&by_hand).into();
        let h = chain.append(e).unwrap();
        assert_eq!(h, ChainHash::from_bytes(prev));
        hashes.push(h);
    }
    assert_eq!(chain.len(), 3);
    assert_eq!(chain.head(), *hashes.last().unwrap());
    assert_eq!(HashChain::verify(entries.iter().zip(&hashes)), Ok(chain));

    // Changing an entry is caught at that entry, and a swapped order at the first swapped one.
    let mut changed = entries.clone();
    changed[1]["text"] = json!("Ada attacks!");
    assert!(matches!(
        HashChain::verify(changed.iter().zip(&hashes)),
        Err(ChainError::Mismatch { index: 1, .. })
    ));
    let swapped = [entries[0].clone(), entries[2].clone(), entries[1].clone()];
    assert!(matches!(
        HashChain::verify(swapped.iter().zip(&hashes)),
        Err(ChainError::Mismatch { index: 1, .. })
    ));
    let bad = [json!({"p": 0.5})];
    assert!(matches!(
        HashChain::verify(bad.iter().zip(&hashes)),
        Err(ChainError::Canonical { index: 0, .. })
    ));
}

#[test]
fn a_stored_entry_must_be_its_canonical_text() {
    let mut chain = HashChain::new();
    // The same value in another form: refused, since a verifier hashes the stored text's
    // canonical form and a second spelling of one entry would hide a change.
    for text in [r#"{"b":1,"a":2}"#, r#"{"a": 2}"#, r#""\u001F""#, r#"{"a":1,"a":1}"#, "1.0", "{", ""] {
        assert!(chain.append_text(text).is_err(), "{text}");
    }
    assert!(chain.is_empty());
    assert_eq!(
        chain.append_text(r#"{"a":2,"b":1}"#).ok(),
        HashChain::new().append(&json!({"b": 1, "a": 2})).ok()
    );
}

// --- recording draws for the log ------------------------------------------------------------

#[test]
fn the_draws_a_command_makes_are_recorded_and_check_against_the_inputs() {
    use table::fairness::{DrawRecord, record_draws, settled};
    let mut d = verifiable_draws();
    d.mix(&[Some(nonce("a")), None, None]).unwrap();
    let before = d.position();
    let ((), made) = record_draws(|| {
        // A draw made and not used (a stream dropped), then the real ones from the same point.
        let mut wasted = d.stream();
        wasted.die(100);
        d.die(6);
        d.pick(&[1, 2, 3]);
        // Nested recordings see their own draws; the outer one sees them too.
        let (_, inner) = record_draws(|| d.die(8));
        assert_eq!(inner.len(), 1);
    });
    assert_eq!(made.len(), 4);
    let kept = settled(&made, before, d.position());
    assert_eq!(kept.iter().map(|r| (r.counter, r.n)).collect::<Vec<_>>(), vec![(0, 6), (1, 3), (2, 8)]);
    let v = d.source().verifiable().unwrap();
    for r in &kept {
        assert_eq!(r.mixes, 1);
        assert_eq!(v.check(r), Ok(()));
    }
    // A changed value, n, or mix count is caught.
    for bad in [
        DrawRecord { value: (kept[0].value + 1) % 6, ..kept[0] },
        DrawRecord { n: 7, ..kept[0] },
        DrawRecord { mixes: 0, ..kept[0] },
    ] {
        assert!(matches!(v.check(&bad), Err(FairnessError::DrawMismatch { counter: 0, .. })), "{bad}");
    }
    // Outside a recording nothing is kept, and a seeded source records nothing.
    let ((), none) = record_draws(|| {
        Draws::seeded(1).die(6);
    });
    assert!(none.is_empty());

    // In JSON the 64-bit quantities are decimal strings in their one spelling.
    let text = serde_json::to_string(&kept[0]).unwrap();
    assert_eq!(
        text,
        format!(
            r#"{{"counter":"0","n":"6","value":"{}","retries":{},"mixes":1}}"#,
            kept[0].value, kept[0].retries
        )
    );
    assert_eq!(serde_json::from_str::<DrawRecord>(&text).unwrap(), kept[0]);
    for bad in [
        r#"{"counter":"00","n":"6","value":"1","retries":0,"mixes":1}"#,
        r#"{"counter":0,"n":"6","value":"1","retries":0,"mixes":1}"#,
        r#"{"counter":"+1","n":"6","value":"1","retries":0,"mixes":1}"#,
    ] {
        assert!(serde_json::from_str::<DrawRecord>(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_verifiable_source_and_its_records_go_through_an_internally_tagged_message() {
    // As a server or store might wrap a state: serde reads it through its buffer.
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    enum Envelope {
        State { draws: Draws },
        Draw { record: table::fairness::DrawRecord },
    }
    let mut d = verifiable_draws();
    d.add_client_seed(0, ClientSeed::from_phrase("x")).unwrap();
    d.mix(&[None, Some(nonce("n")), None]).unwrap();
    let ((), made) = table::fairness::record_draws(|| {
        d.uniform(0..=u64::MAX);
    });
    for message in [Envelope::State { draws: d.clone() }, Envelope::Draw { record: made[0] }] {
        let text = serde_json::to_string(&message).unwrap();
        assert_eq!(serde_json::from_str::<Envelope>(&text).unwrap(), message);
        // And it has a canonical form: no float, no integer beyond 2^53 − 1.
        assert!(canonical_json(&serde_json::to_value(&message).unwrap()).is_ok(), "{text}");
    }
}

/// docs/fairness.md §4, rotation: the seeds a server rotates to are derived from a secret key
/// (HMAC-SHA256 of "facedown rotation" and the rotation's number): fixed for a key, fresh for
/// each number, and unlike the key and every other seed — so revealing one gives away neither
/// the key nor the next.
#[test]
fn rotation_seeds_are_derived_from_a_secret_key_and_each_is_fresh() {
    let key = server_seed("rotation key");
    let seeds: Vec<ServerSeed> = (1..=4).map(|k| key.derive(k)).collect();
    for (i, a) in seeds.iter().enumerate() {
        assert_ne!(a.reveal(), key.reveal());
        for b in &seeds[i + 1..] {
            assert_ne!(a.reveal(), b.reveal());
        }
    }
    assert_eq!(key.derive(2).reveal(), seeds[1].reveal(), "the same key and number, the same seed");
    // The definition, by an independent HMAC.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&bytes_of("rotation key")).unwrap();
    mac.update(b"facedown rotation");
    mac.update(&3u64.to_be_bytes());
    assert_eq!(seeds[2].reveal(), hex::encode(mac.finalize().into_bytes()));
}
