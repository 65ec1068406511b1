//! Caps the wasm module's memory at `MAX_MEMORY` (src/max_memory.rs): a linker argument of the
//! wasm32 cdylib, so that every build of the module has it, whatever builds it.

include!("src/max_memory.rs");

fn main() {
    println!("cargo::rerun-if-changed=src/max_memory.rs");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo::rustc-link-arg-cdylib=--max-memory={MAX_MEMORY}");
    }
}
