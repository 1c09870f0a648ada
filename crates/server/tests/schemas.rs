//! The JSON Schemas under docs/protocol/ are the protocol's types as they are: each is
//! generated again here from the Rust types (schemars) and compared with its file.
//!
//! After changing a message, write the files anew with
//! `UPDATE_SCHEMAS=1 cargo test -p server --test schemas` and commit them.

use std::path::{Path, PathBuf};

use schemars::{Schema, schema_for};
use server::protocol::{
    ApiError, ClientMessage, CreateTable, CreatedTable, ServerMessage, TableLog, TableStatus,
};

/// Every documented message: (the file's name without `.schema.json`, its schema).
fn schemas() -> Vec<(&'static str, Schema)> {
    vec![
        ("ClientMessage", schema_for!(ClientMessage)),
        ("ServerMessage", schema_for!(ServerMessage)),
        ("CreateTable", schema_for!(CreateTable)),
        ("CreatedTable", schema_for!(CreatedTable)),
        ("TableLog", schema_for!(TableLog)),
        ("TableStatus", schema_for!(TableStatus)),
        ("ApiError", schema_for!(ApiError)),
    ]
}

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/protocol")
}

/// A schema as its file holds it: pretty JSON and a final newline.
fn text(schema: &Schema) -> String {
    let mut s = serde_json::to_string_pretty(schema).expect("a schema is JSON");
    s.push('\n');
    s
}

#[test]
fn the_documented_json_schemas_match_the_protocol_types() {
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (name, schema) in schemas() {
        let path = folder().join(format!("{name}.schema.json"));
        let want = text(&schema);
        if update {
            std::fs::create_dir_all(folder()).expect("docs/protocol can be created");
            std::fs::write(&path, &want).expect("the schema can be written");
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(have) if have == want => {}
            Ok(_) => stale.push(format!("{} differs from the type {name}", path.display())),
            Err(e) => stale.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(
        stale.is_empty(),
        "the protocol's JSON Schemas are out of date:\n  {}\nwrite them anew with \
         `UPDATE_SCHEMAS=1 cargo test -p server --test schemas`, check the diff, and update docs/protocol.md",
        stale.join("\n  ")
    );
}

#[test]
fn every_schema_is_an_object_schema_with_a_title() {
    for (name, schema) in schemas() {
        let value = serde_json::to_value(&schema).unwrap();
        assert_eq!(value.get("title").and_then(|t| t.as_str()), Some(name), "{name}");
        assert!(value.get("$schema").is_some(), "{name} names its JSON Schema draft");
    }
}

#[test]
fn the_documented_examples_are_valid_messages() {
    // The example exchange of docs/protocol.md, message by message.
    let doc = std::fs::read_to_string(folder().join("../protocol.md")).expect("docs/protocol.md");
    let mut client = 0;
    let mut server = 0;
    for line in doc.lines() {
        if let Some(json) = line.strip_prefix("→ ") {
            serde_json::from_str::<ClientMessage>(json).unwrap_or_else(|e| panic!("{json}: {e}"));
            client += 1;
        } else if let Some(json) = line.strip_prefix("← ") {
            serde_json::from_str::<ServerMessage>(json).unwrap_or_else(|e| panic!("{json}: {e}"));
            server += 1;
        }
    }
    assert!(client >= 3 && server >= 3, "the example exchange is in docs/protocol.md ({client}, {server})");
}
