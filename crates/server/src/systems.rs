//! The three rule systems as the server hosts them, behind one object type ([`Hosted`]): a
//! setup read from an upload or an example (never from the host's files), a session whose seats
//! are all remote, and the server's bots.
//!
//! **Setups.** [`read_setup`] reads the same TOML/JSON as the CLI's conflict and scene files
//! into the ruleset's typed setup, as JSON. The file formats are the rules crates'
//! ([`iron_triangle::conflict_file`], [`nodice::conflict_file`], [`inciting_incident::Setup`]);
//! only where a file names other files does the source matter: an example resolves them from
//! the files embedded in the server ([`embedded`]), an upload may name none
//! ([`SetupError::ReadsFiles`]).
//!
//! **Bots.** The bot kinds are the CLI's ([`solver::kinds::BotKinds`], one mapping for both);
//! the session never runs them itself (every seat is `Control::Remote`): the server asks
//! [`Hosted::bot_command`] after its think delay and submits the answer like a person's.

pub mod embedded;

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::sync::{Mutex, OnceLock};

use inciting_incident::IncitingIncident;
use iron_triangle::IronTriangle;
use iron_triangle::conflict_file::ConflictFile as ItFile;
use nodice::NoDice;
use nodice::conflict_file::ConflictFile as NdFile;
use nodice::sheets::{ActorFile, Loaded};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use session::any::{AnyError, AnySession};
use session::sealed::{Fault, Mode, Nonce, RoundInfo};
use session::{Control, Session};
use solver::kinds::BotKinds;
use table::fairness::{Commitment, ServerSeed};
use table::{Bot, Decision, Role, SeatId, Seats, Viewer};
use thiserror::Error;

use crate::protocol::SetupSource;

/// The systems a server hosts, by their names on the wire.
pub const SYSTEMS: &[&str] = &["iron-triangle", "nodice", "inciting-incident"];

/// The largest setup the server reads, in bytes (a TOML text, or a JSON upload serialised).
pub const MAX_SETUP_BYTES: usize = 256 * 1024;

/// Why a table cannot be created from a setup.
#[derive(Debug, Error)]
pub enum SetupError {
    /// No such system.
    #[error("there is no rule system named {0:?} (the systems are iron-triangle, nodice, inciting-incident)")]
    NoSystem(String),
    /// No such example.
    #[error("{system} has no example named {name:?} (its examples: {known})")]
    NoExample {
        /// The system.
        system: String,
        /// The name asked for.
        name: String,
        /// The names it has.
        known: String,
    },
    /// The setup names a file of the host's (a sheet path, an `inherits`): refused in uploads.
    #[error("{0}")]
    ReadsFiles(String),
    /// The setup is not valid, or the rules refuse it (names the field or rule).
    #[error("{0}")]
    Invalid(String),
}

/// A session of some system as the server hosts it: every seat remote; bots run by the server.
pub trait Hosted: AnySession {
    /// Seats a bot of `kind` (one of [`bot_kinds`]) in `seat`, or none to take the seat back
    /// for a person. The session never runs it by itself: the server asks
    /// [`bot_command`](Hosted::bot_command) after its think delay.
    fn set_bot(&mut self, seat: SeatId, kind: Option<&str>, seed: u64) -> Result<(), SetupError>;
    /// The command the bot in `seat` gives now, if the game waits for that seat and a bot
    /// holds it.
    fn bot_command(&mut self, seat: SeatId) -> Option<Value>;
    /// The ruleset options this game was set up with (the rules references' Decisions that
    /// are options, the edition), by name, shown to every seat.
    fn rules_options(&self) -> BTreeMap<String, Value>;
    /// The display name the seat's player chose, if any ([`crate::names`]).
    fn display_name(&self, seat: SeatId) -> Option<&str>;
    /// Sets (or, with an empty name, clears) the display name of `seat`'s player: refused,
    /// naming the rule, when [`crate::names::check`] refuses it. Not part of the game: an undo
    /// leaves it, and it is in no seat's log.
    fn set_display_name(&mut self, seat: SeatId, name: &str) -> Result<(), AnyError>;
    /// The table's last chat lines ([`crate::chat::KEPT_LINES`] at most), oldest first.
    fn chat_lines(&self) -> &std::collections::VecDeque<crate::protocol::ChatLine>;
    /// Adds a chat line from `seat` (none: the GM link): refused, naming the rule, when
    /// [`crate::chat::check`] refuses it or the seat is muted.
    fn say(&mut self, seat: Option<SeatId>, text: &str) -> Result<(), AnyError>;
    /// Whether the GM link muted `seat` in the chat.
    fn muted(&self, seat: SeatId) -> bool;
    /// Mutes `seat` in the chat, or lets it speak again.
    fn mute(&mut self, seat: SeatId, muted: bool) -> Result<(), AnyError>;
}

/// The bot kinds of `system`.
pub fn bot_kinds(system: &str) -> Option<&'static [&'static str]> {
    match system {
        "iron-triangle" => Some(IronTriangle::BOT_KINDS),
        "nodice" => Some(NoDice::BOT_KINDS),
        "inciting-incident" => Some(IncitingIncident::BOT_KINDS),
        _ => None,
    }
}

/// The examples `system` carries, by name.
pub fn examples(system: &str) -> Option<&'static [&'static str]> {
    match system {
        "iron-triangle" => Some(embedded::IRON_TRIANGLE_EXAMPLES),
        "nodice" => Some(embedded::NODICE_EXAMPLES),
        "inciting-incident" => Some(embedded::INCITING_INCIDENT_EXAMPLES),
        _ => None,
    }
}

/// The embedded files of `system`.
fn files(system: &str) -> &'static [(&'static str, &'static str)] {
    match system {
        "iron-triangle" => embedded::IRON_TRIANGLE_FILES,
        "nodice" => embedded::NODICE_FILES,
        "inciting-incident" => embedded::INCITING_INCIDENT_FILES,
        _ => &[],
    }
}

/// Reads a setup for `system` from an upload or an example, into the ruleset's typed setup
/// as JSON, checked to start a game. Nothing is read from the host's files.
///
/// A No Dice conflict file's `engagement` (the GM's interaction clusters from the first Hand)
/// is kept beside the setup's fields as `engagement` (the Actors' numbers); [`open`] gives it
/// as the GM's first command, as the CLI does. Its `scene` text and the serials' warnings are
/// not kept.
pub fn read_setup(system: &str, source: &SetupSource) -> Result<Value, SetupError> {
    read_and_open(system, source).map(|(setup, _)| setup)
}

/// [`read_setup`] and the game it opens (the check that the setup starts a game is that game).
///
/// An embedded example is read from its text once per process and kept: each table made from
/// it starts from a copy.
pub fn read_and_open(system: &str, source: &SetupSource) -> Result<(Value, Box<dyn Hosted>), SetupError> {
    read_and_open_with(system, source, &BTreeMap::new())
}

/// [`read_and_open`] with the ruleset options `rules` (by name, [`rules_option_list`]) set on
/// the setup before the game opens.
pub fn read_and_open_with(
    system: &str,
    source: &SetupSource,
    rules: &BTreeMap<String, Value>,
) -> Result<(Value, Box<dyn Hosted>), SetupError> {
    let mut value = match source {
        SetupSource::Example(name) => read_example(system, name)?,
        _ => read_source(system, source)?,
    };
    if !rules.is_empty() {
        value = match system {
            "iron-triangle" => with_rules::<IronTriangle>(&value, rules)?,
            "nodice" => with_rules::<NoDice>(&value, rules)?,
            "inciting-incident" => with_rules::<IncitingIncident>(&value, rules)?,
            _ => return Err(SetupError::NoSystem(system.to_owned())),
        };
    }
    let game = open(system, &value)?;
    Ok((value, game))
}

/// `setup` (a setup's JSON) with the ruleset options `rules` set. The fields beside the
/// ruleset's setup (a No Dice conflict's `engagement`) are kept.
fn with_rules<R: HostedRules>(setup: &Value, rules: &BTreeMap<String, Value>) -> Result<Value, SetupError>
where
    R::Setup: Send + serde::Serialize,
    R::State: Send,
    R::Command: Send,
    R::Event: Send,
{
    let mut typed: R::Setup =
        from_json(setup).map_err(|e| SetupError::Invalid(format!("not a {} setup: {e}", R::NAME)))?;
    for (name, value) in rules {
        R::set_rules_option(&mut typed, name, value).map_err(SetupError::Invalid)?;
    }
    let mut out = json_of(&typed)?;
    if let (Some(out), Some(engagement)) = (out.as_object_mut(), setup.get("engagement")) {
        out.insert("engagement".into(), engagement.clone());
    }
    Ok(out)
}

/// A ruleset option a table may choose at its creation (docs/server-rules-options.md).
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct RulesOption {
    /// Its name, with the books' words: the key of `rules` in `welcome` and `CreateTable`.
    pub name: &'static str,
    /// The values it takes, each as JSON; a number option lists none.
    pub values: &'static [&'static str],
    /// Whether it takes a number (besides `values`).
    pub number: bool,
    /// The rule it answers.
    pub rules: &'static str,
}

/// The ruleset options of `system` (none for a system the server does not know).
pub fn rules_option_list(system: &str) -> &'static [RulesOption] {
    const fn o(
        name: &'static str,
        values: &'static [&'static str],
        number: bool,
        rules: &'static str,
    ) -> RulesOption {
        RulesOption { name, values, number, rules }
    }
    const IRON_TRIANGLE: &[RulesOption] = &[
        o(
            "edition",
            &["\"current\"", "\"earlier\""],
            false,
            "which edition of the rules: the current one or the earlier one",
        ),
        o("lethal", &["false", "true"], false, "lethal stakes: the sides mean to kill"),
        o("minor", &["false", "true"], false, "a minor conflict: a single turn decides it"),
    ];
    const NODICE: &[RulesOption] = &[
        o(
            "stakes_formula",
            &["\"seed\"", "\"old\""],
            false,
            "how the Stakes are counted: this edition's formula or the old one",
        ),
        o("sweep_bonus", &["\"stakes\""], true, "the Sweep bonus: the Stakes, or a fixed number"),
        o(
            "stalemate_hands",
            &[],
            true,
            "how many Hands in a row without damage end the Conflict (0 = never)",
        ),
    ];
    const INCITING_INCIDENT: &[RulesOption] = &[
        o(
            "advantage",
            &["\"extra_die\"", "\"plus_minus_d6\""],
            false,
            "how Advantage and Disadvantage work: an extra die, or plus or minus a d6",
        ),
        o(
            "extra_hits",
            &["\"at_least\"", "\"strictly_more\""],
            false,
            "extra hits for each multiple of the Resistance Value (RV): on reaching it, or only past it",
        ),
        o(
            "ability_dice",
            &[],
            true,
            "the difficulty, in d6, of Ability Rolls the rules give no number for (keep fighting, simple obstacles)",
        ),
        o("max_rounds", &[], true, "the round limit: the scene ends after this many rounds"),
    ];
    match system {
        "iron-triangle" => IRON_TRIANGLE,
        "nodice" => NODICE,
        "inciting-incident" => INCITING_INCIDENT,
        _ => &[],
    }
}

/// The setup `source` gives for `system`, unchecked.
fn read_source(system: &str, source: &SetupSource) -> Result<Value, SetupError> {
    match system {
        "iron-triangle" => read_iron_triangle(source),
        "nodice" => read_nodice(source),
        "inciting-incident" => read_inciting_incident(source),
        _ => Err(SetupError::NoSystem(system.to_owned())),
    }
}

/// An embedded example's setup, read once per process (examples never change while it runs).
fn read_example(system: &str, name: &str) -> Result<Value, SetupError> {
    type Cache = Mutex<HashMap<(String, String), Value>>;
    static READ: OnceLock<Cache> = OnceLock::new();
    let cache = READ.get_or_init(Cache::default);
    let key = (system.to_owned(), name.to_owned());
    if let Some(value) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(value.clone());
    }
    // Only examples that exist are read, so the cache holds at most every embedded example.
    let value = read_source(system, &SetupSource::Example(name.to_owned()))?;
    cache.lock().unwrap_or_else(|p| p.into_inner()).insert(key, value.clone());
    Ok(value)
}

/// Opens a new game of `system` from a setup [`read_setup`] returned (or a stored one).
///
/// A No Dice setup's `engagement` is given as the GM's first command here (so a table
/// rebuilt from its stored commands opens with it again, and those commands never hold it).
pub fn open(system: &str, setup: &Value) -> Result<Box<dyn Hosted>, SetupError> {
    match system {
        "iron-triangle" => Ok(Box::new(HostedGame::<IronTriangle>::open(setup, Vec::new())?)),
        "nodice" => {
            let mut first = Vec::new();
            if let Some(clusters) = setup.get("engagement") {
                let clusters = Vec::<nodice::Targets>::deserialize(clusters)
                    .map_err(|e| SetupError::Invalid(format!("engagement: {e}")))?;
                let seats = Seats::deserialize(setup.get("seats").unwrap_or(&Value::Null))
                    .map_err(|e| SetupError::Invalid(format!("seats: {e}")))?;
                let gm =
                    seats.iter().find(|(_, s)| s.role == Role::Gm).map(|(id, _)| id).ok_or_else(|| {
                        SetupError::Invalid("engagement needs a GM seat (the GM engages the Actors)".into())
                    })?;
                first.push((gm, nodice::Command::Engage { clusters }));
            }
            Ok(Box::new(HostedGame::<NoDice>::open(setup, first)?))
        }
        "inciting-incident" => Ok(Box::new(HostedGame::<IncitingIncident>::open(setup, Vec::new())?)),
        _ => Err(SetupError::NoSystem(system.to_owned())),
    }
}

// ---------------------------------------------------------------------------------------------
// Reading setups.

/// A setup file's text: a TOML text or a JSON upload.
enum Text<'a> {
    Toml(&'a str),
    Json(&'a Value),
}

/// Counts the bytes written, failing past [`MAX_SETUP_BYTES`].
struct Bounded(usize);

impl io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        if self.0 > MAX_SETUP_BYTES {
            return Err(io::Error::other("too large"));
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn too_large(what: &str) -> SetupError {
    SetupError::Invalid(format!("{what}: a setup may be at most {MAX_SETUP_BYTES} bytes"))
}

/// Parses a setup file (or a file it references), bounded in size; `what` names it in errors.
fn parse<T: DeserializeOwned>(what: &str, text: Text<'_>) -> Result<T, SetupError> {
    match text {
        Text::Toml(text) => {
            if text.len() > MAX_SETUP_BYTES {
                return Err(too_large(what));
            }
            toml::from_str(text).map_err(|e| SetupError::Invalid(format!("{what}: {e}")))
        }
        Text::Json(value) => {
            serde_json::to_writer(Bounded(0), value).map_err(|_| too_large(what))?;
            from_json(value).map_err(|e| SetupError::Invalid(format!("{what}: {e}")))
        }
    }
}

/// Reads a typed value from JSON; the error names the field (`characters[1].sheet.energy`).
fn from_json<T: DeserializeOwned>(value: &Value) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| match e.path().to_string().as_str() {
        "." => e.inner().to_string(),
        path => format!("{path}: {}", e.inner()),
    })
}

/// Parses an embedded file, as TOML or JSON by its extension.
fn parse_embedded<T: DeserializeOwned>(system: &str, path: &str, text: &str) -> Result<T, String> {
    let what = format!("(built-in) {system}/{path}");
    if path.ends_with(".json") {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("{what}: {e}"))?;
        from_json(&value).map_err(|e| format!("{what}: {e}"))
    } else {
        toml::from_str(text).map_err(|e| format!("{what}: {e}"))
    }
}

/// An embedded example: its path and text.
fn example(system: &str, name: &str) -> Result<(&'static str, &'static str), SetupError> {
    let known = examples(system).unwrap_or(&[]);
    if known.contains(&name) {
        for ext in [".toml", ".json"] {
            let path = format!("{name}{ext}");
            if let Some(found) = files(system).iter().find(|(p, _)| *p == path) {
                return Ok(*found);
            }
        }
    }
    Err(SetupError::NoExample { system: system.to_owned(), name: name.to_owned(), known: known.join(", ") })
}

/// The folder part of an embedded path (`""` at the top).
fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `rel` joined to the embedded folder `dir`, `.` and `..` resolved; `None` when it leaves
/// the system's examples or is absolute.
fn join(dir: &str, rel: &str) -> Option<String> {
    if rel.starts_with('/') || rel.contains('\\') {
        return None;
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// An embedded file of `system` at `path`.
fn embedded_file(system: &str, path: &str) -> Result<&'static str, String> {
    files(system)
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, text)| *text)
        .ok_or_else(|| format!("the built-in examples have no file {path}"))
}

fn json_of<T: serde::Serialize>(value: &T) -> Result<Value, SetupError> {
    serde_json::to_value(value).map_err(|e| SetupError::Invalid(format!("the setup: {e}")))
}

fn upload_text(source: &SetupSource) -> Option<Text<'_>> {
    match source {
        SetupSource::Example(_) => None,
        SetupSource::Toml(text) => Some(Text::Toml(text)),
        SetupSource::Json(value) => Some(Text::Json(value)),
    }
}

fn no_files(field: &str, path: &str) -> SetupError {
    SetupError::ReadsFiles(format!(
        "{field}: an uploaded setup may not name a file ({path:?}): the server reads none of its \
         host's files; give it inline"
    ))
}

fn read_iron_triangle(source: &SetupSource) -> Result<Value, SetupError> {
    const SYSTEM: &str = "iron-triangle";
    let setup = match source {
        SetupSource::Example(name) => {
            let (path, text) = example(SYSTEM, name)?;
            let file: ItFile = parse_embedded(SYSTEM, path, text).map_err(SetupError::Invalid)?;
            let dir = folder(path);
            file.build(|rel| {
                let at = join(dir, rel).ok_or_else(|| format!("{rel:?} is outside the built-in examples"))?;
                parse_embedded(SYSTEM, &at, embedded_file(SYSTEM, &at)?)
            })
            .map_err(|e| SetupError::Invalid(format!("(built-in) {SYSTEM}/{path}: {e}")))?
        }
        _ => {
            let text = upload_text(source).ok_or_else(|| SetupError::Invalid("no setup".into()))?;
            let file: ItFile = parse("the conflict file", text)?;
            if let Some((i, path)) = file.sheet_paths().next() {
                return Err(no_files(&format!("characters[{i}].sheet"), path));
            }
            file.build(|path| Err(format!("an uploaded setup may not name a file ({path:?})")))
                .map_err(|e| SetupError::ReadsFiles(e.to_string()))?
        }
    };
    json_of(&setup)
}

fn read_nodice(source: &SetupSource) -> Result<Value, SetupError> {
    const SYSTEM: &str = "nodice";
    let built = match source {
        SetupSource::Example(name) => {
            let (path, text) = example(SYSTEM, name)?;
            let file: NdFile = parse_embedded(SYSTEM, path, text).map_err(SetupError::Invalid)?;
            let dir = folder(path);
            // Keys are embedded paths; one outside the examples is a key no file has.
            let key = |rel: &str| join(dir, rel).unwrap_or_else(|| format!("../{rel}"));
            let mut load = |at: &String| -> Result<Loaded<String>, String> {
                let file: ActorFile = parse_embedded(SYSTEM, at, embedded_file(SYSTEM, at)?)?;
                let here = folder(at);
                let inherits = file
                    .inherits
                    .iter()
                    .map(|p| join(here, p).unwrap_or_else(|| format!("../{p}")))
                    .collect();
                Ok(Loaded { id: at.clone(), file, inherits })
            };
            file.build(key, &mut load)
                .map_err(|e| SetupError::Invalid(format!("(built-in) {SYSTEM}/{path}: {e}")))?
        }
        _ => {
            let text = upload_text(source).ok_or_else(|| SetupError::Invalid("no setup".into()))?;
            let file: NdFile = parse("the conflict file", text)?;
            for (i, actor) in file.actors.iter().enumerate() {
                if let Some(sheet) = &actor.sheet {
                    return Err(no_files(&format!("actors[{i}].sheet"), sheet));
                }
                if let Some(inherits) = &actor.inherits {
                    return Err(no_files(&format!("actors[{i}].inherits"), &inherits.join(", ")));
                }
            }
            let mut refuse = |at: &String| -> Result<Loaded<String>, String> {
                Err(format!("an uploaded setup may not name a file ({at:?})"))
            };
            file.build(|p| p.to_owned(), &mut refuse).map_err(|e| SetupError::Invalid(e.to_string()))?
        }
    };
    let mut value = json_of(&built.setup)?;
    if !built.engagement.is_empty()
        && let Value::Object(map) = &mut value
    {
        map.insert("engagement".into(), json_of(&built.engagement)?);
    }
    Ok(value)
}

fn read_inciting_incident(source: &SetupSource) -> Result<Value, SetupError> {
    const SYSTEM: &str = "inciting-incident";
    let mut setup: inciting_incident::Setup = match source {
        SetupSource::Example(name) => {
            let (path, text) = example(SYSTEM, name)?;
            parse_embedded(SYSTEM, path, text).map_err(SetupError::Invalid)?
        }
        _ => {
            let text = upload_text(source).ok_or_else(|| SetupError::Invalid("no setup".into()))?;
            parse("the scene file", text)?
        }
    };
    // The round limit is a rules option: the crate's default when the file sets none, as in
    // the CLI, so a game of bots always ends.
    setup.apply_round_limit(None);
    json_of(&setup)
}

// ---------------------------------------------------------------------------------------------
// Hosting a session.

/// What the server needs of a ruleset beyond its bots: its ruleset options by name.
trait HostedRules: BotKinds + 'static
where
    Self::Setup: Send,
    Self::State: Send,
    Self::Command: Send,
    Self::Event: Send,
{
    /// The ruleset options `setup` chose, named with the books' words
    /// (docs/server-rules-options.md).
    fn rules_options(setup: &Self::Setup) -> BTreeMap<String, Value>;
    /// Sets the ruleset option `name` of `setup` to `value` (a table's creation chose it).
    fn set_rules_option(setup: &mut Self::Setup, name: &str, value: &Value) -> Result<(), String>;
}

/// `value` as the type of the ruleset option `name`.
fn option_value<T: DeserializeOwned>(name: &str, value: &Value) -> Result<T, String> {
    T::deserialize(value).map_err(|e| format!("rules.{name}: {e}"))
}

/// The refusal of an option `system` does not have.
fn no_option(system: &str, name: &str) -> String {
    let known: Vec<&str> = rules_option_list(system).iter().map(|o| o.name).collect();
    format!("rules.{name}: {system} has no such ruleset option (its options: {})", known.join(", "))
}

impl HostedRules for IronTriangle {
    fn rules_options(setup: &iron_triangle::Setup) -> BTreeMap<String, Value> {
        BTreeMap::from([
            ("edition".into(), json!(setup.edition)),
            ("lethal".into(), json!(setup.stakes.lethal)),
            ("minor".into(), json!(setup.stakes.minor)),
        ])
    }

    fn set_rules_option(setup: &mut iron_triangle::Setup, name: &str, value: &Value) -> Result<(), String> {
        match name {
            "edition" => setup.edition = option_value(name, value)?,
            "lethal" => setup.stakes.lethal = option_value(name, value)?,
            "minor" => setup.stakes.minor = option_value(name, value)?,
            _ => return Err(no_option("iron-triangle", name)),
        }
        Ok(())
    }
}

impl HostedRules for NoDice {
    fn rules_options(setup: &nodice::Setup) -> BTreeMap<String, Value> {
        let o = &setup.options;
        BTreeMap::from([
            ("stakes_formula".into(), json!(o.stakes_formula)),
            ("sweep_bonus".into(), o.sweep_bonus.map_or(json!("stakes"), |b| json!(b))),
            ("stalemate_hands".into(), json!(o.stalemate_hands)),
        ])
    }

    fn set_rules_option(setup: &mut nodice::Setup, name: &str, value: &Value) -> Result<(), String> {
        let o = &mut setup.options;
        match name {
            "stakes_formula" => o.stakes_formula = option_value(name, value)?,
            "sweep_bonus" if value == "stakes" => o.sweep_bonus = None,
            "sweep_bonus" => o.sweep_bonus = Some(option_value(name, value)?),
            "stalemate_hands" => o.stalemate_hands = option_value(name, value)?,
            _ => return Err(no_option("nodice", name)),
        }
        Ok(())
    }
}

impl HostedRules for IncitingIncident {
    fn rules_options(setup: &inciting_incident::Setup) -> BTreeMap<String, Value> {
        let o = &setup.options;
        BTreeMap::from([
            ("advantage".into(), json!(o.advantage)),
            ("extra_hits".into(), json!(o.extra_hits)),
            ("ability_dice".into(), json!(o.ability_dice)),
            ("max_rounds".into(), json!(o.max_rounds)),
        ])
    }

    fn set_rules_option(
        setup: &mut inciting_incident::Setup,
        name: &str,
        value: &Value,
    ) -> Result<(), String> {
        let o = &mut setup.options;
        match name {
            "advantage" => o.advantage = option_value(name, value)?,
            "extra_hits" => o.extra_hits = option_value(name, value)?,
            "ability_dice" => o.ability_dice = option_value(name, value)?,
            "max_rounds" => {
                let max: u32 = option_value(name, value)?;
                if max == 0 {
                    return Err("rules.max_rounds: the round limit is at least 1".into());
                }
                o.max_rounds = Some(max);
            }
            _ => return Err(no_option("inciting-incident", name)),
        }
        Ok(())
    }
}

/// A game as the server hosts it: the session (every seat remote) and the server's bots.
struct HostedGame<R: HostedRules>
where
    R::Setup: Send,
    R::State: Send,
    R::Command: Send,
    R::Event: Send,
{
    session: Session<R>,
    /// Per seat: the bot playing it, if any.
    bots: Vec<Option<Box<dyn Bot<R> + Send>>>,
    options: BTreeMap<String, Value>,
    /// The setup, to open the game again with verifiable draws.
    setup: R::Setup,
    /// The commands the setup gives first (a No Dice conflict's `engagement`, the GM's).
    first: Vec<(SeatId, R::Command)>,
    /// Whether they are yet to be given (at a table waiting for its opening round).
    first_due: bool,
    /// The fair start made so far: the server seed and the rotation key.
    fair: Option<(ServerSeed, Option<ServerSeed>)>,
    /// Per seat: the display name its player chose.
    display_names: Vec<Option<String>>,
    /// The chat's last lines, and how many there were in all.
    chat: (std::collections::VecDeque<crate::protocol::ChatLine>, u64),
    /// Per seat: muted in the chat by the GM link.
    muted: Vec<bool>,
}

impl<R: HostedRules> HostedGame<R>
where
    R::Setup: Send,
    R::State: Send,
    R::Command: Send,
    R::Event: Send,
{
    /// Opens the game from the JSON of its setup, every seat remote, then gives `first`.
    fn open(setup: &Value, first: Vec<(SeatId, R::Command)>) -> Result<Self, SetupError> {
        let typed: R::Setup =
            from_json(setup).map_err(|e| SetupError::Invalid(format!("not a {} setup: {e}", R::NAME)))?;
        let options = R::rules_options(&typed);
        let mut session = Self::start(typed.clone())?;
        let seats = R::seats(session.table().state()).len();
        for (seat, command) in &first {
            session.submit(*seat, command).map_err(|e| SetupError::Invalid(e.to_string()))?;
        }
        Ok(HostedGame {
            session,
            bots: (0..seats).map(|_| None).collect(),
            display_names: vec![None; seats],
            chat: Default::default(),
            muted: vec![false; seats],
            options,
            setup: typed,
            first,
            first_due: false,
            fair: None,
        })
    }

    /// A new session of `setup`, every seat remote.
    fn start(setup: R::Setup) -> Result<Session<R>, SetupError> {
        let mut session = Session::<R>::new(setup)
            .map_err(|e| SetupError::Invalid(format!("the game cannot start: {e}")))?;
        for i in 0..R::seats(session.table().state()).len() {
            let seat = SeatId(i as u16);
            session.control(seat, Control::Remote).map_err(|e| SetupError::Invalid(e.to_string()))?;
        }
        Ok(session)
    }

    /// docs/fairness.md §4: the draws are made verifiable before the first command. A game
    /// whose setup gave commands first (a No Dice engagement) opens again from its setup with
    /// the fair start asked so far (`server_seed`, `rotation`, an opening round), the seats'
    /// modes kept, and its first commands are given again after it — at once, or once the
    /// opening round is over.
    fn start_fair(
        &mut self,
        server_seed: ServerSeed,
        rotation: Option<ServerSeed>,
        opening: bool,
    ) -> Result<Option<Commitment>, AnyError> {
        if self.first.is_empty() {
            let commitment = match self.fair {
                None => Some(
                    self.session.use_verifiable(server_seed).map_err(|e| AnyError::Refused(e.to_string()))?,
                ),
                Some(_) => None,
            };
            if let Some(key) = rotation {
                self.session.rotate_with(key).map_err(|e| AnyError::Refused(e.to_string()))?;
            }
            if opening {
                self.session.open_with_round().map_err(|e| AnyError::Refused(e.to_string()))?;
            }
            self.fair = Some((server_seed, rotation));
            return Ok(commitment);
        }
        let refused = |e: &dyn std::fmt::Display| AnyError::Refused(e.to_string());
        let mut session = Self::start(self.setup.clone()).map_err(|e| refused(&e))?;
        for i in 0..self.bots.len() {
            let seat = SeatId(i as u16);
            session.set_mode(seat, self.session.mode(seat)).map_err(|e| refused(&e))?;
        }
        let commitment = session.use_verifiable(server_seed).map_err(|e| refused(&e))?;
        if let Some(key) = rotation {
            session.rotate_with(key).map_err(|e| refused(&e))?;
        }
        if opening {
            session.open_with_round().map_err(|e| refused(&e))?;
        }
        self.session = session;
        self.fair = Some((server_seed, rotation));
        self.first_due = true;
        self.give_first()?;
        Ok(Some(commitment))
    }

    /// Gives the setup's first commands again once the table is open (its opening round, if
    /// any, over). They are the setup's, public and given before anyone plays: a sealed seat's
    /// mode does not bind them into a round.
    fn give_first(&mut self) -> Result<(), AnyError> {
        if !self.first_due || self.session.opening() {
            return Ok(());
        }
        self.first_due = false;
        let seats = self.bots.len();
        let modes: Vec<Mode> = (0..seats).map(|i| self.session.mode(SeatId(i as u16))).collect();
        for i in 0..seats {
            let _ = self.session.set_mode(SeatId(i as u16), Mode::Plain);
        }
        let mut given = Ok(());
        for (seat, command) in &self.first {
            if let Err(e) = self.session.submit(*seat, command) {
                given = Err(AnyError::Refused(e.to_string()));
                break;
            }
        }
        for (i, mode) in modes.into_iter().enumerate() {
            let _ = self.session.set_mode(SeatId(i as u16), mode);
        }
        given
    }
}

impl<R: HostedRules> AnySession for HostedGame<R>
where
    R::Setup: Send,
    R::State: Send,
    R::Command: Send,
    R::Event: Send,
{
    fn ruleset(&self) -> &'static str {
        AnySession::ruleset(&self.session)
    }
    fn version(&self) -> u32 {
        AnySession::version(&self.session)
    }
    fn face_down(&self) -> usize {
        AnySession::face_down(&self.session)
    }
    fn seats(&self) -> &Seats {
        AnySession::seats(&self.session)
    }
    fn canonical_command(&self, command: &Value) -> Result<Value, AnyError> {
        AnySession::canonical_command(&self.session, command)
    }
    fn submit(&mut self, seat: SeatId, command: &Value) -> Result<(), AnyError> {
        AnySession::submit(&mut self.session, seat, command)
    }
    fn is_gm_ruling(&self, command: &Value) -> Result<bool, AnyError> {
        AnySession::is_gm_ruling(&self.session, command)
    }
    fn force(&mut self, seat: SeatId, by: Option<SeatId>) -> Result<(), AnyError> {
        AnySession::force(&mut self.session, seat, by)
    }
    fn take_back(&mut self, seat: SeatId) -> Result<(), AnyError> {
        AnySession::take_back(&mut self.session, seat)
    }
    fn give_up(&mut self, seat: SeatId) -> Result<(), AnyError> {
        AnySession::give_up(&mut self.session, seat)
    }
    fn undo(&mut self, by: SeatId) -> Result<(), AnyError> {
        AnySession::undo(&mut self.session, by)
    }
    fn awaiting(&self) -> Vec<SeatId> {
        AnySession::awaiting(&self.session)
    }
    fn is_over(&self) -> bool {
        AnySession::is_over(&self.session)
    }
    fn seq(&self) -> u64 {
        AnySession::seq(&self.session)
    }
    fn updates_since(&self, viewer: Viewer, seq: u64) -> Vec<Value> {
        AnySession::updates_since(&self.session, viewer, seq)
    }
    fn prompt(&self, seat: SeatId) -> Result<Option<Value>, AnyError> {
        AnySession::prompt(&self.session, seat)
    }
    fn view(&self, viewer: Viewer) -> Result<Value, AnyError> {
        AnySession::view(&self.session, viewer)
    }
    fn record(&self) -> Value {
        AnySession::record(&self.session)
    }
    fn updates_raw(&self, viewer: Viewer, seq: u64) -> Box<RawValue> {
        AnySession::updates_raw(&self.session, viewer, seq)
    }
    fn updates_canonical(
        &self,
        viewer: Viewer,
        seq: u64,
        texts: &mut session::CanonicalTexts,
    ) -> Result<Vec<std::sync::Arc<str>>, table::fairness::CanonicalError> {
        AnySession::updates_canonical(&self.session, viewer, seq, texts)
    }
    fn prompt_raw(&self, seat: SeatId) -> Result<Option<Box<RawValue>>, AnyError> {
        AnySession::prompt_raw(&self.session, seat)
    }
    fn view_raw(&self, viewer: Viewer) -> Result<Box<RawValue>, AnyError> {
        AnySession::view_raw(&self.session, viewer)
    }
    fn set_mode(&mut self, seat: SeatId, mode: Mode) -> Result<(), AnyError> {
        AnySession::set_mode(&mut self.session, seat, mode)
    }
    fn mode(&self, seat: SeatId) -> Mode {
        AnySession::mode(&self.session, seat)
    }
    fn sealing(&self) -> bool {
        AnySession::sealing(&self.session)
    }
    fn round(&self) -> Option<RoundInfo> {
        AnySession::round(&self.session)
    }
    fn in_round(&self, seat: SeatId) -> bool {
        AnySession::in_round(&self.session, seat)
    }
    fn seal(&mut self, seat: SeatId, commitment: &str) -> Result<(), AnyError> {
        AnySession::seal(&mut self.session, seat, commitment)?;
        self.give_first()
    }
    fn reveal(&mut self, seat: SeatId, command: &Value, nonce: &str) -> Result<Option<Fault>, AnyError> {
        let fault = AnySession::reveal(&mut self.session, seat, command, nonce)?;
        self.give_first()?;
        Ok(fault)
    }
    fn submit_bound(&mut self, seat: SeatId, command: &Value, nonce: &Nonce) -> Result<(), AnyError> {
        AnySession::submit_bound(&mut self.session, seat, command, nonce)
    }
    fn force_bound(&mut self, seat: SeatId, by: Option<SeatId>, nonce: &Nonce) -> Result<(), AnyError> {
        AnySession::force_bound(&mut self.session, seat, by, nonce)?;
        self.give_first()
    }
    fn use_verifiable(&mut self, server_seed: ServerSeed) -> Result<Commitment, AnyError> {
        if self.fair.is_some()
            || (!self.first.is_empty() && self.session.record().entries.len() > self.first.len())
        {
            return AnySession::use_verifiable(&mut self.session, server_seed);
        }
        self.start_fair(server_seed, None, false)?
            .ok_or(AnyError::Refused("the draws are verifiable already".into()))
    }
    fn rotate_with(&mut self, key: ServerSeed) -> Result<(), AnyError> {
        match self.fair {
            Some((seed, None)) if !self.first.is_empty() => {
                self.start_fair(seed, Some(key), false).map(|_| ())
            }
            _ => AnySession::rotate_with(&mut self.session, key),
        }
    }
    fn open_with_round(&mut self) -> Result<(), AnyError> {
        match self.fair {
            Some((seed, rotation)) if !self.first.is_empty() && !self.session.opening() => {
                self.start_fair(seed, rotation, true).map(|_| ())
            }
            _ => AnySession::open_with_round(&mut self.session),
        }
    }
    fn draws_before_a_reveal(&self) -> bool {
        AnySession::draws_before_a_reveal(&self.session)
    }
    fn server_seed_commitment(&self) -> Option<table::fairness::Commitment> {
        AnySession::server_seed_commitment(&self.session)
    }
    fn setup_commitment(&self) -> Option<table::fairness::Commitment> {
        AnySession::setup_commitment(&self.session)
    }
    fn add_client_seed(&mut self, seat: SeatId, seed: &str) -> Result<(), AnyError> {
        AnySession::add_client_seed(&mut self.session, seat, seed)
    }
}

impl<R: HostedRules> Hosted for HostedGame<R>
where
    R::Setup: Send,
    R::State: Send,
    R::Command: Send,
    R::Event: Send,
{
    fn set_bot(&mut self, seat: SeatId, kind: Option<&str>, seed: u64) -> Result<(), SetupError> {
        let seats = self.bots.len();
        let slot = self.bots.get_mut(usize::from(seat.0)).ok_or_else(|| {
            SetupError::Invalid(format!("there is no seat number {} (the table has {seats})", seat.0))
        })?;
        *slot = match kind {
            None => None,
            Some(kind) => Some(R::bot(kind, seed).ok_or_else(|| {
                SetupError::Invalid(format!(
                    "{} has no bot kind {kind:?} (its kinds: {})",
                    R::NAME,
                    R::BOT_KINDS.join(", ")
                ))
            })?),
        };
        Ok(())
    }

    /// As the CLI runs its bots: the seat's legal commands, less the GM's standing rulings
    /// ([`BotKinds::is_play`]), as a [`Decision`] the bot picks from.
    fn bot_command(&mut self, seat: SeatId) -> Option<Value> {
        let bot = self.bots.get_mut(usize::from(seat.0))?.as_mut()?;
        if !self.session.awaiting().contains(&seat) {
            return None;
        }
        // In a sealed round: the round's scratch state (stand-ins for the seats committed
        // before, never their choices).
        let state = self.session.decision_state(seat);
        let mut legal = Vec::new();
        R::legal_commands(state, seat, &mut legal);
        legal.retain(|c| R::is_play(c));
        if legal.is_empty() {
            return None;
        }
        let decision = Decision::<R>::new(state, seat, &legal);
        let pick = bot.choose(&decision).min(legal.len() - 1);
        serde_json::to_value(&legal[pick]).ok()
    }

    fn rules_options(&self) -> BTreeMap<String, Value> {
        self.options.clone()
    }

    fn display_name(&self, seat: SeatId) -> Option<&str> {
        self.display_names.get(usize::from(seat.0))?.as_deref()
    }

    fn set_display_name(&mut self, seat: SeatId, name: &str) -> Result<(), AnyError> {
        let seats = self.session.seats();
        let i = usize::from(seat.0);
        if i >= self.display_names.len() || i >= seats.len() {
            return Err(AnyError::NoSeat(seat.0));
        }
        let taken = seats.iter().filter(|(id, _)| id.0 != seat.0).flat_map(|(id, s)| {
            let player = self.display_names.get(usize::from(id.0)).and_then(|n| n.as_deref());
            [Some(s.name.as_str()), player].into_iter().flatten()
        });
        let name = crate::names::check(name, taken).map_err(|e| AnyError::Refused(e.to_string()))?;
        self.display_names[i] = name;
        Ok(())
    }

    fn chat_lines(&self) -> &std::collections::VecDeque<crate::protocol::ChatLine> {
        &self.chat.0
    }

    fn say(&mut self, seat: Option<SeatId>, text: &str) -> Result<(), AnyError> {
        if let Some(seat) = seat {
            match self.muted.get(usize::from(seat.0)) {
                None => return Err(AnyError::NoSeat(seat.0)),
                Some(true) => return Err(AnyError::Refused(crate::chat::ChatError::Muted.to_string())),
                Some(false) => {}
            }
        }
        let text = crate::chat::check(text).map_err(|e| AnyError::Refused(e.to_string()))?;
        let (lines, count) = &mut self.chat;
        *count += 1;
        lines.push_back(crate::protocol::ChatLine { n: *count, seat: seat.map(|s| s.0), text });
        if lines.len() > crate::chat::KEPT_LINES {
            lines.pop_front();
        }
        Ok(())
    }

    fn muted(&self, seat: SeatId) -> bool {
        self.muted.get(usize::from(seat.0)).copied().unwrap_or(false)
    }

    fn mute(&mut self, seat: SeatId, muted: bool) -> Result<(), AnyError> {
        let slot = self.muted.get_mut(usize::from(seat.0)).ok_or(AnyError::NoSeat(seat.0))?;
        *slot = muted;
        Ok(())
    }
}

/// What a client needs to create a table of each system, as JSON (`GET /api/systems`): its
/// examples with their seats, its bot kinds, its ruleset options and its quick reference.
/// Made once per process.
pub fn catalogue() -> &'static Value {
    static CATALOGUE: OnceLock<Value> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        let systems: Vec<Value> = SYSTEMS
            .iter()
            .map(|&system| {
                let examples: Vec<Value> = examples(system)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|&name| {
                        let source = SetupSource::Example(name.to_owned());
                        let (_, game) = read_and_open(system, &source).ok()?;
                        let seats: Vec<Value> = game
                            .seats()
                            .iter()
                            .map(|(_, s)| json!({"name": s.name, "role": s.role, "side": s.side}))
                            .collect();
                        Some(json!({"name": name, "seats": seats, "rules": game.rules_options()}))
                    })
                    .collect();
                let reference = match system {
                    "iron-triangle" => <IronTriangle as table::Ruleset>::quick_reference(),
                    "nodice" => <NoDice as table::Ruleset>::quick_reference(),
                    _ => <IncitingIncident as table::Ruleset>::quick_reference(),
                };
                json!({
                    "system": system,
                    "examples": examples,
                    "bots": bot_kinds(system).unwrap_or_default(),
                    "rules": rules_option_list(system),
                    "reference": reference,
                })
            })
            .collect();
        json!({ "systems": systems })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_joins_inside_the_examples_only() {
        assert_eq!(join("", "characters/ada.toml").as_deref(), Some("characters/ada.toml"));
        assert_eq!(join("", "./characters/ada.toml").as_deref(), Some("characters/ada.toml"));
        assert_eq!(join("actors", "swamp.toml").as_deref(), Some("actors/swamp.toml"));
        assert_eq!(join("actors", "../actors/kara.toml").as_deref(), Some("actors/kara.toml"));
        assert_eq!(join("", "../etc/passwd"), None);
        assert_eq!(join("actors", "/etc/passwd"), None);
        assert_eq!(folder("actors/ruin.toml"), "actors");
        assert_eq!(folder("duel.toml"), "");
    }

    #[test]
    fn every_example_file_and_every_file_it_references_is_embedded() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
        for system in SYSTEMS {
            let dir = std::path::Path::new(root).join(system);
            let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
                .unwrap()
                .filter_map(|e| {
                    let p = e.unwrap().path();
                    let ext = p.extension()?.to_str()?;
                    (p.is_file() && (ext == "toml" || ext == "json"))
                        .then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
                })
                .collect();
            on_disk.sort();
            assert_eq!(examples(system).unwrap(), on_disk, "{system}: examples/{system} changed");
            for (path, text) in files(system) {
                let disk = std::fs::read_to_string(dir.join(path)).unwrap();
                assert_eq!(&disk, text, "{system}/{path}");
            }
        }
    }

    #[test]
    fn a_json_upload_is_bounded_in_size() {
        let big = json!({ "title": "x".repeat(MAX_SETUP_BYTES) });
        let e = read_setup("inciting-incident", &SetupSource::Json(big)).unwrap_err();
        assert!(e.to_string().contains("at most"), "{e}");
        let big = format!("title = \"{}\"", "x".repeat(MAX_SETUP_BYTES));
        let e = read_setup("inciting-incident", &SetupSource::Toml(big)).unwrap_err();
        assert!(e.to_string().contains("at most"), "{e}");
    }
}
