//! Writes `many-tensors.gguf` for the browser tests: 1,200 zeroed F32 tensors, so that the
//! tensor table shows only its first 1,000 at first. Tensor #1,100 repeats the name of tensor #2
//! (a duplicate-tensor-name finding about a row not shown at first), and tensor #3 is of type 4,
//! Q4_2, which ggml removed: it cannot be decoded.
//!
//! `cargo run -p gguf-wasm --example write_many_tensors -- OUT.gguf`

use gguf_core::GgmlType;
use gguf_core::testkit::GgufBuilder;

fn main() {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "many-tensors.gguf".into());
    let mut builder = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("llama.block_count", 1200u32);
    for i in 0..1200 {
        let (name, ty) = match i {
            3 => (String::from("blk.3.removed_type.weight"), GgmlType(4)),
            1100 => (String::from("blk.2.weight"), GgmlType::F32),
            _ => (format!("blk.{i}.weight"), GgmlType::F32),
        };
        builder = builder.tensor(name, &[32, 2], ty);
    }
    let file = builder.with_tensor_data().build();
    std::fs::write(&out, file).unwrap_or_else(|e| panic!("cannot write {out}: {e}"));
}
