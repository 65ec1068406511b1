//! Writes `testkit::spoofing()`, the file whose text is made to show as something else (U+202E,
//! U+200B and ESC in a name, a URL value, keys, a token and a tensor name), for the page's
//! spoofing test (`www/e2e/spoofing.test.mjs`).
//!
//! `cargo run -p gguf-wasm --example write_spoofing -- PATH`

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| "spoofing.gguf".into());
    std::fs::write(&path, gguf_core::testkit::spoofing())
        .unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
}
