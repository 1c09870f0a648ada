//! The test vectors of docs/fairness.md, in `docs/fairness/vectors.json`: made here from fixed
//! inputs and compared with the file, so the file always says what this implementation does.
//! `UPDATE_VECTORS=1 cargo test -p table --test fairness_vectors` writes the file instead (then
//! read its diff: a change to a vector is a change to the specification).
//!
//! Every 64-hex-digit value quoted in docs/fairness.md must be one of the file's, so the
//! examples in the text cannot drift from it.

use std::path::PathBuf;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use table::Draws;
use table::fairness::{
    ClientSeed, Commitment, DrawInputs, GENESIS, HashChain, Nonce, ServerSeed, canonical_json,
};

fn bytes_of(label: &str) -> [u8; 32] {
    Sha256::digest(label.as_bytes()).into()
}

fn repo_file(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

fn canonical_vectors() -> Value {
    let inputs = [
        r#"{ "b": 1, "a": [true, false, null], "c": { "z": -42, "y": "" } }"#,
        r#"{"stance": "2 grapple", "move": "▨☰", "follow_ups": ["▨☰", "▨☯"]}"#,
        r#""quote \" backslash \\ slash / tab \t newline \n cr \r bs \b ff \f nul \u0000 us \u001F del \u007f ls \u2028 é 😀""#,
        r#"{"\uffff": 1, "😀": 2, "b": 3, "aa": 4, "a": 5, "B": 6, "": 7}"#,
        "[9007199254740991, -9007199254740991, 0, 10]",
        "[]",
        "{}",
    ];
    Value::Array(
        inputs
            .iter()
            .map(|text| {
                let canonical = canonical_json(&serde_json::from_str(text).unwrap()).unwrap();
                json!({"input": text, "canonical": canonical, "canonical_utf8": hex::encode(canonical.as_bytes())})
            })
            .collect(),
    )
}

fn refused_vectors() -> Value {
    let cases = [
        ("1.5", "a fraction"),
        ("1.0", "a float, though its value is whole"),
        ("1e3", "an exponent"),
        ("-0", "minus zero"),
        ("9007199254740992", "2^53: beyond the safe integers"),
        ("-9007199254740992", "-2^53: beyond the safe integers"),
    ];
    Value::Array(
        cases
            .iter()
            .map(|(text, why)| {
                let v: Value = serde_json::from_str(&format!(r#"{{"x":[{text}]}}"#)).unwrap();
                assert!(canonical_json(&v).is_err(), "{text}");
                json!({"input": format!(r#"{{"x":[{text}]}}"#), "why": why})
            })
            .collect(),
    )
}

fn commitment_vectors() -> Value {
    let commands = [
        (json!({"stance": "2 grapple", "move": "▨☰"}), "nonce 1"),
        (json!({"ante": 2, "aspect": "Wildcard", "action": {"attribute": "str", "bid": 4}}), "nonce 2"),
        (json!("pass"), "nonce 3"),
    ];
    Value::Array(
        commands
            .iter()
            .map(|(command, label)| {
                let nonce = Nonce::from_bytes(bytes_of(label));
                let commitment = Commitment::to_command(command, &nonce).unwrap();
                let wrong = Nonce::from_bytes(bytes_of(&format!("{label} (wrong)")));
                json!({
                    "command": command,
                    "canonical": canonical_json(command).unwrap(),
                    "nonce": nonce,
                    "commitment": commitment,
                    "a_wrong_nonce": wrong,
                    "its_commitment": Commitment::to_command(command, &wrong).unwrap(),
                })
            })
            .collect(),
    )
}

fn seed_vectors() -> Value {
    let servers: Vec<Value> = ["server seed 1", "server seed 2"]
        .iter()
        .map(|label| {
            let seed = ServerSeed::from_bytes(bytes_of(label));
            json!({"server_seed": seed.reveal(), "commitment": seed.commitment()})
        })
        .collect();
    let phrases: Vec<Value> = ["lucky", "Ada's dice", ""]
        .iter()
        .map(|p| json!({"phrase": p, "client_seed": ClientSeed::from_phrase(p)}))
        .collect();
    json!({"server_seeds": servers, "client_seed_phrases": phrases})
}

fn draw_vector(
    seed: &ServerSeed,
    clients: &[Option<ClientSeed>],
    nonces: &[Option<Nonce>],
    counter: u64,
    n: u128,
) -> Value {
    let inputs = DrawInputs { server_seed: seed, client_seeds: clients, round_nonces: nonces };
    let drawn = inputs.draw(counter, n).unwrap();
    let tries: Vec<Value> = (0..=drawn.retries)
        .map(|retry| {
            use hmac::Mac;
            let message = inputs.message(counter, retry).unwrap();
            let mut mac = hmac::Hmac::<Sha256>::new_from_slice(seed.as_bytes()).unwrap();
            mac.update(&message);
            let out = mac.finalize().into_bytes();
            let x = u64::from_be_bytes(out[..8].try_into().unwrap());
            json!({
                "retry": retry,
                "message": hex::encode(&message),
                "hmac": hex::encode(out),
                "x": x.to_string(),
                "accepted": retry == drawn.retries,
            })
        })
        .collect();
    json!({
        "server_seed": seed.reveal(),
        "client_seeds": clients,
        "round_nonces": nonces,
        "counter": counter.to_string(),
        "n": n.to_string(),
        "tries": tries,
        "value": drawn.value.to_string(),
        "retries": drawn.retries,
    })
}

fn draw_vectors() -> Value {
    let seed = ServerSeed::from_bytes(bytes_of("server seed 1"));
    let c = |l: &str| Some(ClientSeed::from_bytes(bytes_of(l)));
    let nn = |l: &str| Some(Nonce::from_bytes(bytes_of(l)));
    let three_c = [c("client seed 0"), None, c("client seed 2")];
    let three_n = [None, nn("nonce 1"), nn("nonce 2")];
    // The first counter whose draw over 2^63 + 1 outcomes rejects a try.
    let big = (1u128 << 63) + 1;
    let rejecting = (0u64..)
        .find(|&k| {
            DrawInputs { server_seed: &seed, client_seeds: &three_c, round_nonces: &three_n }
                .draw(k, big)
                .unwrap()
                .retries
                > 0
        })
        .unwrap();
    Value::Array(vec![
        draw_vector(&seed, &[None], &[None], 0, 6),
        draw_vector(&seed, &three_c, &three_n, 7, 20),
        draw_vector(&seed, &three_c, &three_n, 8, 1),
        draw_vector(&seed, &three_c, &three_n, 9, 1 << 32),
        draw_vector(&seed, &three_c, &three_n, u64::MAX, 1 << 64),
        draw_vector(&seed, &three_c, &three_n, rejecting, big),
        draw_vector(&seed, &[], &[], 0, 6),
    ])
}

/// A table's draws as the rulesets make them, with the session's mixes between.
fn sequence_vector() -> Value {
    let seed = ServerSeed::from_bytes(bytes_of("server seed 1"));
    let mut d = Draws::verifiable(seed, 3);
    let mut steps = Vec::new();
    let mut record = |d: &Draws, step: Value| {
        let mut step = step;
        step["position_after"] = json!(d.position().to_string());
        steps.push(step);
    };
    let counter = |d: &Draws| d.position().to_string();

    let k = counter(&d);
    let v = d.die(6);
    record(&d, json!({"draw": "die", "sides": 6, "counter": k, "result": v}));
    let seat1 = ClientSeed::from_bytes(bytes_of("client seed 1"));
    d.add_client_seed(1, seat1).unwrap();
    record(&d, json!({"add_client_seed": {"seat": 1, "client_seed": seat1}}));
    let k = counter(&d);
    let v = d.die(20);
    record(
        &d,
        json!({"draw": "die", "sides": 20, "counter": k, "result": v, "note": "seat 1's seed waits for the next mix"}),
    );
    let round = [
        Some(Nonce::from_bytes(bytes_of("round 1 seat 0"))),
        None,
        Some(Nonce::from_bytes(bytes_of("round 1 seat 2"))),
    ];
    d.mix(&round).unwrap();
    record(&d, json!({"mix": {"round_nonces": round}}));
    let k = counter(&d);
    let v = d.uniform(10..=20u32).unwrap();
    record(&d, json!({"draw": "uniform", "low": 10, "high_inclusive": 20, "counter": k, "result": v}));
    let k = counter(&d);
    let v = d.uniform(-3..3i32).unwrap();
    record(&d, json!({"draw": "uniform", "low": -3, "high_exclusive": 3, "counter": k, "result": v}));
    let items = ["str", "dex", "wil", "pre"];
    let k = counter(&d);
    let v = d.pick(&items).unwrap();
    record(&d, json!({"draw": "pick", "items": items, "counter": k, "result": v}));
    let k = counter(&d);
    let v = d.chance(0.3);
    record(
        &d,
        json!({"draw": "chance", "p": 0.3, "threshold": (0.3f64 * 4_294_967_296.0).round() as u64, "counter": k, "result": v}),
    );
    let v = d.die(0);
    record(&d, json!({"draw": "die", "sides": 0, "result": v, "note": "no die: nothing drawn"}));
    let next = ServerSeed::from_bytes(bytes_of("server seed 2"));
    let old = d.rotate_server_seed(next).unwrap();
    record(
        &d,
        json!({"rotate_server_seed": {"revealed": old.reveal(), "next_commitment": next.commitment()}}),
    );
    let k = counter(&d);
    let v = d.die(8);
    record(&d, json!({"draw": "die", "sides": 8, "counter": k, "result": v}));
    json!({
        "server_seed": ServerSeed::from_bytes(bytes_of("server seed 1")).reveal(),
        "server_seed_commitment": ServerSeed::from_bytes(bytes_of("server seed 1")).commitment(),
        "seats": 3,
        "steps": steps,
    })
}

fn chain_vector() -> Value {
    let entries = [
        json!({"seq": 0, "kind": "table", "system": "nodice", "server_seed_commitment": ServerSeed::from_bytes(bytes_of("server seed 1")).commitment()}),
        json!({"seq": 1, "kind": "commitments", "commitments": ["a".repeat(64), "b".repeat(64)]}),
        json!({"seq": 2, "kind": "narration", "text": "Kara sweeps the pot — “Jackpot!”"}),
        json!({"seq": 3, "kind": "draw", "counter": 0, "n": 6, "value": 3}),
    ];
    let mut chain = HashChain::new();
    let texts: Vec<String> = entries.iter().map(|e| canonical_json(e).unwrap()).collect();
    let hashes: Vec<String> = entries.iter().map(|e| chain.append(e).unwrap().to_string()).collect();
    json!({
        "genesis": GENESIS,
        "entries": entries,
        "canonical": texts,
        "hashes": hashes,
        "head": chain.head(),
    })
}

fn vectors() -> Value {
    json!({
        "about": "Test vectors of docs/fairness.md (version facedown/draw/v1). Byte strings are lowercase hexadecimal; \
                  64-bit integers (counter, n, x, value) are decimal strings, since JSON numbers above 2^53 lose precision.",
        "canonical_json": canonical_vectors(),
        "not_canonical": refused_vectors(),
        "commitments": commitment_vectors(),
        "seeds": seed_vectors(),
        "draws": draw_vectors(),
        "sequence": sequence_vector(),
        "chain": chain_vector(),
    })
}

#[test]
fn the_vectors_file_is_what_this_implementation_computes() {
    let path = repo_file("docs/fairness/vectors.json");
    let text = serde_json::to_string_pretty(&vectors()).unwrap() + "\n";
    if std::env::var_os("UPDATE_VECTORS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let stored = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        stored == text,
        "{} differs from what the implementation computes: if the specification changed on purpose, \
         run `UPDATE_VECTORS=1 cargo test -p table --test fairness_vectors` and review the diff",
        path.display()
    );
}

#[test]
fn every_hash_quoted_in_the_document_is_a_vector() {
    let doc = std::fs::read_to_string(repo_file("docs/fairness.md")).unwrap();
    let vectors = std::fs::read_to_string(repo_file("docs/fairness/vectors.json")).unwrap();
    let mut quoted = 0;
    for word in doc.split(|c: char| !c.is_ascii_hexdigit()) {
        if word.len() == 64 {
            quoted += 1;
            assert!(vectors.contains(word), "docs/fairness.md quotes {word}, which no vector holds");
        }
    }
    assert!(quoted >= 5, "the document quotes its examples ({quoted} found)");
}

#[test]
fn the_vectors_check_in_javascript_too() {
    // A second implementation, written from the document: run where Node is installed.
    let node = std::process::Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: no `node` on the PATH to run docs/fairness/check-vectors.mjs");
        return;
    }
    let out = std::process::Command::new("node")
        .arg(repo_file("docs/fairness/check-vectors.mjs"))
        .arg(repo_file("docs/fairness/vectors.json"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && said.contains("vectors check"), "{said}");
}
