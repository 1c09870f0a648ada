//! Any uploaded setup, TOML or JSON, for every system: reading it never panics and never
//! reads the host's files (an upload naming one is refused).
#![no_main]

use libfuzzer_sys::fuzz_target;
use server::protocol::SetupSource;
use server::systems::{SYSTEMS, read_setup};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let json = serde_json::from_str::<serde_json::Value>(text).ok();
    for system in SYSTEMS {
        let _ = read_setup(system, &SetupSource::Toml(text.to_owned()));
        if let Some(json) = &json {
            let _ = read_setup(system, &SetupSource::Json(json.clone()));
        }
    }
});
