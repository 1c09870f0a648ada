//! Moving a table between stores (issue 16, part 5): a table *document* is one self-contained,
//! versioned JSON text holding everything a server keeps of a table — its row (ruleset and
//! version, setup, options, whether it finished), its access rows with their token *hashes*
//! (never tokens: a document cannot open a seat, but a seat's old token opens the table again
//! once it is imported) and its journal, entry by entry in order.
//!
//! Texts are carried as JSON strings, so that every setup, option, controller and journal entry
//! comes back byte for byte as the store kept it: the journal's entries are the server's (and,
//! later, sealed-round commitments and the verifiable log's), which this module never reads.
//!
//! Reading a document is bounded ([`MAX_DOCUMENT_BYTES`], then the store's [`limits`]) and
//! strict: another format, an unknown version, an unknown or missing field, a journal numbered
//! with a gap, a text that is not JSON, a token hash that is not one — each refused with a
//! [`DocumentError`] naming the field.

use std::collections::BTreeSet;
use std::io::Read;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::tables::{Access, NewTable, StoredTable, TableId, check_moved_table, limits};

/// The `format` field of a table document.
pub const TABLE_FORMAT: &str = "facedown-table";
/// The version of the table document this build writes and reads.
pub const TABLE_VERSION: u32 = 1;
/// The largest table document read, in bytes: a whole journal at the store's limit, with room
/// for the escaping JSON strings add.
pub const MAX_DOCUMENT_BYTES: u64 = 2 * limits::MAX_JOURNAL_BYTES + (64 << 20);
const _: () = assert!(MAX_DOCUMENT_BYTES > limits::MAX_JOURNAL_BYTES, "a whole journal fits a document");

/// A table as it is moved: everything a store keeps of it but its number, which the store it
/// is imported into chooses (see [`crate::tables::TableStore::import_table`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovedTable {
    /// The ruleset, its version, the setup, the options and the access rows.
    pub table: NewTable,
    /// The journal, in order: entry `i` is number `i`.
    pub journal: Vec<String>,
    /// Whether it was marked finished.
    pub finished: bool,
}

/// Why a table document was refused. Each names the field at fault.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum DocumentError {
    /// Larger than [`MAX_DOCUMENT_BYTES`] (or the limit the reader was given).
    #[error("the table document is over the limit of {limit} bytes")]
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
    /// Not UTF-8, or not JSON at all.
    #[error("the table document is not JSON text: {reason}")]
    NotJson {
        /// What the reader or the parser said.
        reason: String,
    },
    /// Its `format` is missing or not [`TABLE_FORMAT`].
    #[error("format: {found} is not a facedown table document (\"format\": \"{TABLE_FORMAT}\")")]
    Format {
        /// The format found, as JSON (`null` when missing).
        found: String,
    },
    /// Its `version` is missing or not one this build reads.
    #[error("version: {found} is not a version this facedown reads (it reads version {TABLE_VERSION})")]
    Version {
        /// The version found, as JSON (`null` when missing).
        found: String,
    },
    /// A field is missing, unknown, or of the wrong type (what the JSON reader said names it).
    #[error("the table document is malformed: {reason}")]
    Malformed {
        /// What the JSON reader said, with the field's name.
        reason: String,
    },
    /// A field's value is refused.
    #[error("{field}: {reason}")]
    Field {
        /// The field, e.g. `journal[3].n` or `access[0].token_hash`.
        field: String,
        /// Why.
        reason: String,
    },
}

fn field(field: impl Into<String>, reason: impl Into<String>) -> DocumentError {
    DocumentError::Field { field: field.into(), reason: reason.into() }
}

/// The document as written and read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableDocument {
    /// Always [`TABLE_FORMAT`].
    pub format: String,
    /// Always [`TABLE_VERSION`].
    pub version: u32,
    /// The table's row.
    pub table: TableRow,
    /// Its access rows, by `who`.
    pub access: Vec<AccessRow>,
    /// Its journal, in order.
    pub journal: Vec<JournalEntry>,
}

/// A table's row in a [`TableDocument`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableRow {
    /// Its number in the store it was exported from (for people: the store it is imported into
    /// gives it a number of its own).
    pub id: u64,
    /// The ruleset's name, e.g. `iron-triangle`.
    pub ruleset: String,
    /// The version of the ruleset that created it.
    pub ruleset_version: String,
    /// The ruleset's setup, JSON text as the store kept it.
    pub setup: String,
    /// The table's options, JSON text as the store kept it.
    pub options: String,
    /// Whether it was marked finished.
    pub finished: bool,
}

/// An access row in a [`TableDocument`]: who may open the table, by the hash of their token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccessRow {
    /// `seat:N`, `gm` or `spectator`.
    pub who: String,
    /// The SHA-256 (64 lowercase hexadecimal digits) of the link's token; none while revoked.
    pub token_hash: Option<String>,
    /// The server's JSON text for who controls the seat.
    pub controller: String,
}

/// A journal entry in a [`TableDocument`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JournalEntry {
    /// Its number: 0, 1, 2… without gaps.
    pub n: u64,
    /// The entry, JSON text as the store kept it (opaque here).
    pub entry: String,
}

/// The fields read first, to name another format or an unknown version before anything else.
#[derive(Deserialize)]
struct Head {
    #[serde(default)]
    format: serde_json::Value,
    #[serde(default)]
    version: serde_json::Value,
}

/// Whether `hash` is a SHA-256 as the server writes it: 64 lowercase hexadecimal digits.
fn is_sha256_hex(hash: &str) -> bool {
    hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl TableDocument {
    /// The document of a table read from a store.
    pub fn from_stored(stored: &StoredTable) -> TableDocument {
        let t = &stored.table;
        TableDocument {
            format: TABLE_FORMAT.to_owned(),
            version: TABLE_VERSION,
            table: TableRow {
                id: stored.id.0,
                ruleset: t.ruleset.clone(),
                ruleset_version: t.ruleset_version.clone(),
                setup: t.setup.clone(),
                options: t.options.clone(),
                finished: stored.finished,
            },
            access: t
                .access
                .iter()
                .map(|a| AccessRow {
                    who: a.who.clone(),
                    token_hash: a.token_hash.clone(),
                    controller: a.controller.clone(),
                })
                .collect(),
            journal: stored
                .journal
                .iter()
                .enumerate()
                .map(|(n, entry)| JournalEntry { n: n as u64, entry: entry.clone() })
                .collect(),
        }
    }

    /// The document as JSON text, one field a line at the top (entries stay one line each).
    pub fn to_json(&self) -> String {
        // Strings, numbers and booleans only: serialising cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The table this document says it was exported as.
    pub fn exported_id(&self) -> TableId {
        TableId(self.table.id)
    }

    /// Reads a document from `reader`, refusing more than `limit` bytes (checked while reading,
    /// so an endless reader is refused too), then as [`TableDocument::parse`].
    pub fn read(reader: impl Read, limit: u64) -> Result<TableDocument, DocumentError> {
        let mut bytes = Vec::new();
        reader
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| DocumentError::NotJson { reason: e.to_string() })?;
        if bytes.len() as u64 > limit {
            return Err(DocumentError::TooLarge { limit });
        }
        let text = String::from_utf8(bytes)
            .map_err(|e| DocumentError::NotJson { reason: format!("not UTF-8 text ({e})") })?;
        TableDocument::parse(&text)
    }

    /// Reads a document from its text: the format and version first, then every field, then
    /// every value against the store's [`limits`] (see [`TableDocument::check`]).
    pub fn parse(text: &str) -> Result<TableDocument, DocumentError> {
        if text.len() as u64 > MAX_DOCUMENT_BYTES {
            return Err(DocumentError::TooLarge { limit: MAX_DOCUMENT_BYTES });
        }
        if !text.trim_start().starts_with('{') {
            // Not even the start of an object (a `Head` would also read an array's items).
            serde_json::from_str::<serde::de::IgnoredAny>(text)
                .map_err(|e| DocumentError::NotJson { reason: e.to_string() })?;
            return Err(DocumentError::Malformed { reason: "a table document is a JSON object".into() });
        }
        let head: Head =
            serde_json::from_str(text).map_err(|e| DocumentError::NotJson { reason: e.to_string() })?;
        if head.format.as_str() != Some(TABLE_FORMAT) {
            return Err(DocumentError::Format { found: head.format.to_string() });
        }
        if head.version.as_u64() != Some(u64::from(TABLE_VERSION)) {
            return Err(DocumentError::Version { found: head.version.to_string() });
        }
        let doc: TableDocument =
            serde_json::from_str(text).map_err(|e| DocumentError::Malformed { reason: e.to_string() })?;
        doc.check()?;
        Ok(doc)
    }

    /// Checks every value: numbering without gaps, token hashes that are hashes, no `who`
    /// twice, and the store's own checks (texts are JSON, sizes within the [`limits`]).
    pub fn check(&self) -> Result<(), DocumentError> {
        if self.format != TABLE_FORMAT {
            return Err(DocumentError::Format {
                found: serde_json::Value::from(self.format.clone()).to_string(),
            });
        }
        if self.version != TABLE_VERSION {
            return Err(DocumentError::Version { found: self.version.to_string() });
        }
        let mut seen = BTreeSet::new();
        for (i, row) in self.access.iter().enumerate() {
            if row.who.is_empty() {
                return Err(field(format!("access[{i}].who"), "empty"));
            }
            if !seen.insert(row.who.as_str()) {
                return Err(field(format!("access[{i}].who"), format!("{:?} is given twice", row.who)));
            }
            if let Some(hash) = &row.token_hash
                && !is_sha256_hex(hash)
            {
                return Err(field(
                    format!("access[{i}].token_hash"),
                    "not a SHA-256 hash (64 lowercase hexadecimal digits): a table document carries \
                     token hashes, never tokens",
                ));
            }
        }
        for (i, entry) in self.journal.iter().enumerate() {
            if entry.n != i as u64 {
                return Err(field(
                    format!("journal[{i}].n"),
                    format!(
                        "entry number {} where {i} belongs (the journal is numbered 0, 1, 2… without gaps)",
                        entry.n
                    ),
                ));
            }
        }
        check_moved_table(&self.moved_unchecked()).map_err(|e| self.name_field(e))
    }

    /// The table to import, once checked.
    pub fn into_moved(self) -> Result<MovedTable, DocumentError> {
        self.check()?;
        Ok(self.moved_unchecked())
    }

    fn moved_unchecked(&self) -> MovedTable {
        let t = &self.table;
        MovedTable {
            table: NewTable {
                ruleset: t.ruleset.clone(),
                ruleset_version: t.ruleset_version.clone(),
                setup: t.setup.clone(),
                options: t.options.clone(),
                access: self
                    .access
                    .iter()
                    .map(|a| Access {
                        who: a.who.clone(),
                        token_hash: a.token_hash.clone(),
                        controller: a.controller.clone(),
                    })
                    .collect(),
            },
            journal: self.journal.iter().map(|e| e.entry.clone()).collect(),
            finished: t.finished,
        }
    }

    /// The store's refusal of a moved table, as the document's field at fault.
    fn name_field(&self, e: crate::tables::MoveError) -> DocumentError {
        use crate::tables::MoveError;
        match e {
            MoveError::Table(e) => field(table_field(&e), e.to_string()),
            MoveError::Access { index, error } => field(format!("access[{index}]"), error.to_string()),
            MoveError::Entry { index, error } => field(format!("journal[{index}].entry"), error.to_string()),
            MoveError::Journal(e) => field("journal", e.to_string()),
        }
    }
}

/// The document's field a store's refusal of a table's row is about.
fn table_field(e: &crate::PersistError) -> &'static str {
    use crate::PersistError::{Limit, NotJson, Nul};
    let what = match e {
        NotJson { field, .. } | Nul { field } => field,
        Limit { what, .. } => what,
        _ => "",
    };
    [
        ("ruleset name", "table.ruleset"),
        ("ruleset version", "table.ruleset_version"),
        ("setup", "table.setup"),
        ("options", "table.options"),
        ("access rows", "access"),
    ]
    .into_iter()
    .find(|(start, _)| what.starts_with(start))
    .map_or("table", |(_, name)| name)
}
