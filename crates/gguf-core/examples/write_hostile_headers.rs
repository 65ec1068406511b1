//! Writes `testkit::hostile_headers()` — headers that claim far more than they hold — to files
//! for `scripts/bench-memory.py`, which measures the CLI's peak memory on each.
//!
//! `cargo run -p gguf-core --features testkit --example write_hostile_headers -- DIR`

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "hostile".into()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    for (name, bytes) in gguf_core::testkit::hostile_headers() {
        let path = dir.join(format!("{name}.gguf"));
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        println!("{}", path.display());
    }
}
