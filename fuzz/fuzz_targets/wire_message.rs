//! Any frame a client may send: parsing never panics, and what parses writes back to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use server::protocol::ClientMessage;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(message) = serde_json::from_str::<ClientMessage>(text) {
        let again = serde_json::to_string(&message).expect("a message serialises");
        let back: ClientMessage = serde_json::from_str(&again).expect("a serialised message parses");
        assert_eq!(back, message);
    }
    let _ = server::protocol::parse_link(text);
});
