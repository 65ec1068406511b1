//! Writes `many-findings.gguf` for the browser tests: 150 tensors of one name at one offset, so
//! 149 duplicate-tensor-name and 149 tensors-overlap findings, of which the validator keeps 100
//! of each and counts the rest (the page says "… and 49 more").
//!
//! `cargo run -p gguf-wasm --example write_many_findings -- OUT.gguf`

use gguf_core::GgmlType;
use gguf_core::testkit::GgufBuilder;

fn main() {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "many-findings.gguf".into());
    let mut b = GgufBuilder::new().kv("general.architecture", "llama");
    for _ in 0..150 {
        b = b.tensor_at("blk.0.attn_q.weight", &[8], GgmlType::F32, 0);
    }
    std::fs::write(&out, b.with_tensor_data().build()).expect("write the file");
}
