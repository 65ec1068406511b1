//! `kinds/`: GGUF files that are not models, laid out as llama.cpp's own writers lay them out, for
//! the tests that each kind is described (www/e2e/kinds.test.mjs, web/test/describe.test.mjs)
//! and shown whole at every width (www/e2e/phone.test.mjs): the testkit's importance matrix,
//! LoRA adapter, projectors and control vector, and a vocabulary-only file (`--vocab-only`).

use std::io;
use std::path::Path;

use gguf_core::Array;
use gguf_core::testkit::{self, GgufBuilder, strings};

/// Writes the files into `dir`.
pub fn write_all(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, bytes) in [
        ("imatrix.gguf", testkit::imatrix()),
        ("lora.gguf", testkit::lora_adapter()),
        ("mmproj-vision.gguf", testkit::mmproj_vision()),
        ("mmproj-vision-audio.gguf", testkit::mmproj_vision_audio()),
        ("control-vector.gguf", testkit::control_vector()),
        ("vocab-only.gguf", vocab_only()),
    ] {
        std::fs::write(dir.join(name), bytes)?;
    }
    Ok(())
}

/// What `convert_hf_to_gguf.py --vocab-only` writes: a model's metadata and tokenizer, no
/// tensors; here shaped as llama.cpp's Gemma 4 vocabulary file is (`models/ggml-vocab-gemma-4.gguf`:
/// 30 layers whose KV heads differ, 8 in the sliding-window layers and 2 in every sixth).
fn vocab_only() -> Vec<u8> {
    let words = [
        "<pad>", "<bos>", "<eos>", "▁the", "▁of", "▁and", "▁to", "▁a", "▁in", "▁is", "▁it", "▁you",
    ];
    let kv_heads: Vec<i32> = (0..30).map(|i| if i % 6 == 5 { 2 } else { 8 }).collect();
    GgufBuilder::new()
        .kv("general.architecture", "gemma4")
        .kv("general.type", "model")
        .kv("general.name", "Tiny Gemma 4 vocabulary")
        .kv("gemma4.context_length", 262_144u32)
        .kv("gemma4.embedding_length", 2816u32)
        .kv("gemma4.block_count", 30u32)
        .kv("gemma4.feed_forward_length", 2112u32)
        .kv("gemma4.attention.head_count", 16u32)
        .kv("gemma4.attention.head_count_kv", Array::I32(kv_heads))
        .kv("gemma4.attention.sliding_window", 1024u32)
        .kv("gemma4.attention.key_length", 512u32)
        .kv("gemma4.attention.value_length", 512u32)
        .kv("gemma4.rope.freq_base", 1_000_000.0f32)
        .kv("tokenizer.ggml.model", "llama")
        .kv("tokenizer.ggml.pre", "default")
        .kv("tokenizer.ggml.tokens", strings(&words))
        .kv(
            "tokenizer.ggml.scores",
            Array::F32((0..words.len()).map(|i| -(i as f32)).collect()),
        )
        .kv(
            "tokenizer.ggml.token_type",
            Array::I32((0..words.len()).map(|i| if i < 3 { 3 } else { 1 }).collect()),
        )
        .kv("tokenizer.ggml.bos_token_id", 1u32)
        .kv("tokenizer.ggml.eos_token_id", 2u32)
        .kv("tokenizer.ggml.unknown_token_id", 0u32)
        .build()
}
