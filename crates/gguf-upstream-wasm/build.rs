//! Caps the module's memory at its `max-memory` in `wasm-pack.toml`, whatever builds it.

fn main() {
    gguf_wasm_build::cap_memory();
}
