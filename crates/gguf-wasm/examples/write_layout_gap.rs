//! Writes `layout-gap.gguf` for the browser tests of the file map: a tensor stored at an
//! unaligned offset after 744 unused bytes (a `tensor-data-gap` finding, and the map's gap), the
//! padding after a tensor that ends unaligned, a tensor without elements (no bits per weight),
//! and 100 bytes after the last tensor (the tail).
//!
//! Data section, relative offsets: `blk.0.attn_q.weight` 0..256; unused 256..1000;
//! `blk.0.ffn_up.weight` 1000..1256, padded to 1280; `blk.1.ffn_up.weight` (Q4_0) 1280..1856;
//! `output_norm.weight` 1856..2112; `blk.1.empty.weight` at 2112, 0 bytes; then the tail.
//!
//! `cargo run -p gguf-wasm --example write_layout_gap -- OUT.gguf`

use gguf_core::GgmlType;
use gguf_core::testkit::GgufBuilder;

fn main() {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "layout-gap.gguf".into());
    let file = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("llama.block_count", 2u32)
        .tensor("blk.0.attn_q.weight", &[64], GgmlType::F32)
        .tensor_at("blk.0.ffn_up.weight", &[128], GgmlType::F16, 1000)
        .tensor("blk.1.ffn_up.weight", &[256, 4], GgmlType::Q4_0)
        .tensor("output_norm.weight", &[64], GgmlType::F32)
        .tensor("blk.1.empty.weight", &[0], GgmlType::F32)
        .with_tensor_data()
        .trailing(&[0; 100])
        .build();
    std::fs::write(&out, file).unwrap_or_else(|e| panic!("cannot write {out}: {e}"));
}
