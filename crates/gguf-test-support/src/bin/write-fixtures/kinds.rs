//! `kinds/`: GGUF files that are not models, laid out as llama.cpp's own writers lay them out, for
//! the browser tests that every kind of file is shown whole at every width: an importance matrix
//! (`llama-imatrix`), a LoRA adapter (`convert_lora_to_gguf.py`), a multimodal projector
//! (`convert_hf_to_gguf.py --mmproj`) and a vocabulary-only file (`--vocab-only`).

use std::io;
use std::path::Path;

use gguf_core::testkit::{GgufBuilder, strings};
use gguf_core::{Array, GgmlType};

/// Writes the files into `dir`.
pub fn write_all(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, bytes) in [
        ("imatrix.gguf", imatrix()),
        ("lora.gguf", lora()),
        ("mmproj.gguf", mmproj()),
        ("vocab-only.gguf", vocab_only()),
    ] {
        std::fs::write(dir.join(name), bytes)?;
    }
    Ok(())
}

/// What `llama-imatrix` writes (tools/imatrix, `save_imatrix`): no architecture, the datasets
/// and chunks it was computed from, and per weight matrix its inputs' summed squares and counts.
fn imatrix() -> Vec<u8> {
    let mut b = GgufBuilder::new()
        .kv("general.type", "imatrix")
        .kv("imatrix.datasets", strings(&["wiki.train.raw"]))
        .kv("imatrix.chunk_count", 100u32)
        .kv("imatrix.chunk_size", 512u32);
    for l in 0..2 {
        for m in ["attn_q", "attn_k", "ffn_up", "ffn_down"] {
            let width = if m == "ffn_down" { 256 } else { 64 };
            b = b
                .tensor(format!("blk.{l}.{m}.weight.in_sum2"), &[width, 1], GgmlType::F32)
                .tensor(format!("blk.{l}.{m}.weight.counts"), &[1, 1], GgmlType::F32);
        }
    }
    b.with_tensor_data().build()
}

/// What `convert_lora_to_gguf.py` writes: the base model's architecture, `general.type` adapter,
/// the LoRA's alpha, and an A and B matrix of rank 8 for each adapted weight.
fn lora() -> Vec<u8> {
    let mut b = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("general.type", "adapter")
        .kv("general.name", "Tiny Llama LoRA")
        .kv("general.base_model.count", 1u32)
        .kv("general.base_model.0.name", "Tiny Llama")
        .kv(
            "general.base_model.0.repo_url",
            "https://huggingface.co/acme/tiny-llama",
        )
        .kv("adapter.type", "lora")
        .kv("adapter.lora.alpha", 16.0f32)
        .kv("general.file_type", 1u32)
        .kv("general.quantization_version", 2u32);
    for l in 0..2 {
        for m in ["attn_q", "attn_v"] {
            b = b
                .tensor(format!("blk.{l}.{m}.weight.lora_a"), &[64, 8], GgmlType::F16)
                .tensor(format!("blk.{l}.{m}.weight.lora_b"), &[8, 64], GgmlType::F16);
        }
    }
    b.with_tensor_data().build()
}

/// What `convert_hf_to_gguf.py --mmproj` writes for a vision projector: the `clip` architecture,
/// `general.type` mmproj, the encoder's figures under `clip.vision.*`, and its tensors (`v.*`,
/// the projection `mm.*`).
fn mmproj() -> Vec<u8> {
    let mut b = GgufBuilder::new()
        .kv("general.architecture", "clip")
        .kv("general.type", "mmproj")
        .kv("general.name", "Tiny Vision Projector")
        .kv("general.file_type", 1u32)
        .kv("clip.has_vision_encoder", true)
        .kv("clip.projector_type", "gemma3")
        .kv("clip.vision.projection_dim", 64u32)
        .kv("clip.vision.image_size", 224u32)
        .kv("clip.vision.patch_size", 14u32)
        .kv("clip.vision.embedding_length", 64u32)
        .kv("clip.vision.feed_forward_length", 256u32)
        .kv("clip.vision.block_count", 2u32)
        .kv("clip.vision.attention.head_count", 4u32)
        .kv("clip.vision.attention.layer_norm_epsilon", 1e-6f32)
        .kv("clip.vision.image_mean", Array::F32(vec![0.5, 0.5, 0.5]))
        .kv("clip.vision.image_std", Array::F32(vec![0.5, 0.5, 0.5]))
        .kv("clip.use_gelu", true)
        .tensor("v.patch_embd.weight", &[14, 14, 3, 64], GgmlType::F16)
        .tensor("v.position_embd.weight", &[64, 256], GgmlType::F16);
    for l in 0..2 {
        let t = |name: &str| format!("v.blk.{l}.{name}");
        b = b
            .tensor(t("ln1.weight"), &[64], GgmlType::F32)
            .tensor(t("attn_q.weight"), &[64, 64], GgmlType::F16)
            .tensor(t("attn_k.weight"), &[64, 64], GgmlType::F16)
            .tensor(t("attn_v.weight"), &[64, 64], GgmlType::F16)
            .tensor(t("attn_out.weight"), &[64, 64], GgmlType::F16)
            .tensor(t("ln2.weight"), &[64], GgmlType::F32)
            .tensor(t("ffn_up.weight"), &[64, 256], GgmlType::F16)
            .tensor(t("ffn_down.weight"), &[256, 64], GgmlType::F16);
    }
    b.tensor("v.post_ln.weight", &[64], GgmlType::F32)
        .tensor("mm.input_projection.weight", &[64, 64], GgmlType::F16)
        .with_tensor_data()
        .build()
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
