//! The browser table's files are embedded by `rust-embed` (src/assets.rs), which sees a file
//! added to `web/` only when the crate is built again: a change anywhere in `web/` rebuilds it.
fn main() {
    println!("cargo:rerun-if-changed=web");
}
