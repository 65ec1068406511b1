//! Small models that llama.cpp loads, of the architectures no shared fixture has: multi-head
//! latent attention (DeepSeek 2), a recurrent model (Mamba) and a hybrid (LFM2). Their tensor
//! tables follow llama.cpp's loaders (`src/models/*.cpp`); the data is zeros, so a header
//! extended to the file's size (`File::set_len`) loads, and llama.cpp's memory figures for them
//! are the reference data of `tests/reference/memory` (`scripts/reference/memory-refs.py`).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::GgufBuilder;
use crate::header::Array;
use crate::types::GgmlType;

/// A model's header and the size of the whole file (the header, its padding and zeroed data).
#[derive(Debug, Clone)]
pub struct BuiltModel {
    /// The file's name.
    pub name: &'static str,
    /// The header: metadata and tensor table, up to the data section.
    pub header: Vec<u8>,
    /// Bytes of the whole file.
    pub size: u64,
}

/// Tokens in the synthetic vocabulary.
const VOCAB: u64 = 32_000;

/// Every model, by file name.
pub fn memory_models() -> Vec<BuiltModel> {
    alloc::vec![deepseek2_mla(), mamba(), lfm2_hybrid()]
}

/// An SPM vocabulary (`<unk>`, `<s>`, `</s>`, the 256 byte tokens, then made-up pieces) of
/// [`VOCAB`] tokens, enough for llama.cpp's tokenizer to load.
fn with_vocab(b: GgufBuilder) -> GgufBuilder {
    let mut tokens: Vec<String> = alloc::vec!["<unk>".into(), "<s>".into(), "</s>".into()];
    tokens.extend((0..=255u8).map(|byte| format!("<0x{byte:02X}>")));
    let mut i = 0;
    while (tokens.len() as u64) < VOCAB {
        tokens.push(format!("\u{2581}t{i}"));
        i += 1;
    }
    let types: Vec<i32> = (0..tokens.len())
        .map(|i| match i {
            0 => 2,
            1 | 2 => 3,
            3..=258 => 6,
            _ => 1,
        })
        .collect();
    let scores: Vec<f32> = (0..tokens.len()).map(|i| -(i as f32)).collect();
    b.kv("tokenizer.ggml.model", "llama")
        .kv("tokenizer.ggml.tokens", Array::String(tokens.iter().collect()))
        .kv("tokenizer.ggml.scores", Array::F32(scores))
        .kv("tokenizer.ggml.token_type", Array::I32(types))
        .kv("tokenizer.ggml.bos_token_id", 1u32)
        .kv("tokenizer.ggml.eos_token_id", 2u32)
}

/// The header as written and the file's full size.
fn finish(name: &'static str, b: GgufBuilder) -> BuiltModel {
    let header = b.build();
    let size = sized(&b, header.len() as u64);
    BuiltModel { name, header, size }
}

/// The length of `b`'s complete file, computed from its tensor table (without building it).
fn sized(b: &GgufBuilder, header_len: u64) -> u64 {
    let data_offset = header_len.next_multiple_of(b.alignment);
    let mut next = 0u64;
    let mut end = 0u64;
    for t in &b.tensors {
        let offset = t.offset.unwrap_or(next);
        let elements: u64 = t.dims.iter().product();
        let bytes = GgmlType(t.ty)
            .bytes_for(t.dims.first().copied().unwrap_or(1), elements)
            .unwrap_or(0);
        end = end.max(offset + bytes);
        next = (offset + bytes).next_multiple_of(b.alignment);
    }
    data_offset + end
}

/// Token embedding, output norm (named `norm`) and output matrix.
fn embeddings(b: GgufBuilder, n_embd: u64, norm: &str) -> GgufBuilder {
    b.tensor("token_embd.weight", &[n_embd, VOCAB], GgmlType::F16)
        .tensor(format!("{norm}.weight"), &[n_embd], GgmlType::F32)
        .tensor("output.weight", &[n_embd, VOCAB], GgmlType::F16)
}

/// DeepSeek 2 with MLA as today's converters write it: one KV head of `kv_lora_rank + rope`
/// (K) and `kv_lora_rank` (V), the decompressed head sizes in `key_length_mla`/`value_length_mla`;
/// one dense layer, then MoE layers of 4 experts (2 used) and a shared expert.
pub fn deepseek2_mla() -> BuiltModel {
    let (n_embd, n_head, n_layer, n_ff, n_ff_exp, n_expert) = (512u64, 8u64, 4u32, 1024u64, 256u64, 4u64);
    let (kv_lora, rope, nope, v_mla) = (128u64, 32u64, 32u64, 64u64);
    let mut b = with_vocab(GgufBuilder::new())
        .kv("general.architecture", "deepseek2")
        .kv("general.name", "DeepSeek2-shaped MLA test")
        .kv("deepseek2.context_length", 16_384u32)
        .kv("deepseek2.embedding_length", n_embd as u32)
        .kv("deepseek2.block_count", n_layer)
        .kv("deepseek2.feed_forward_length", n_ff as u32)
        .kv("deepseek2.attention.head_count", n_head as u32)
        .kv("deepseek2.attention.head_count_kv", 1u32)
        .kv("deepseek2.attention.key_length", (kv_lora + rope) as u32)
        .kv("deepseek2.attention.value_length", kv_lora as u32)
        .kv("deepseek2.attention.key_length_mla", (nope + rope) as u32)
        .kv("deepseek2.attention.value_length_mla", v_mla as u32)
        .kv("deepseek2.attention.q_lora_rank", 0u32)
        .kv("deepseek2.attention.kv_lora_rank", kv_lora as u32)
        .kv("deepseek2.rope.dimension_count", rope as u32)
        .kv("deepseek2.rope.freq_base", 10_000f32)
        .kv("deepseek2.attention.layer_norm_rms_epsilon", 1e-6f32)
        .kv("deepseek2.leading_dense_block_count", 1u32)
        .kv("deepseek2.expert_count", n_expert as u32)
        .kv("deepseek2.expert_used_count", 2u32)
        .kv("deepseek2.expert_shared_count", 1u32)
        .kv("deepseek2.expert_feed_forward_length", n_ff_exp as u32)
        .kv("general.file_type", 1u32);
    b = embeddings(b, n_embd, "output_norm");
    let f16 = GgmlType::F16;
    let f32 = GgmlType::F32;
    for i in 0..n_layer {
        let t = |name: &str| format!("blk.{i}.{name}");
        b = b
            .tensor(t("attn_norm.weight"), &[n_embd], f32)
            .tensor(t("attn_kv_a_norm.weight"), &[kv_lora], f32)
            .tensor(t("attn_q.weight"), &[n_embd, n_head * (nope + rope)], f16)
            .tensor(t("attn_kv_a_mqa.weight"), &[n_embd, kv_lora + rope], f16)
            .tensor(t("attn_k_b.weight"), &[nope, kv_lora, n_head], f16)
            .tensor(t("attn_v_b.weight"), &[kv_lora, v_mla, n_head], f16)
            .tensor(t("attn_output.weight"), &[n_head * v_mla, n_embd], f16)
            .tensor(t("ffn_norm.weight"), &[n_embd], f32);
        b = if i == 0 {
            b.tensor(t("ffn_gate.weight"), &[n_embd, n_ff], f16)
                .tensor(t("ffn_down.weight"), &[n_ff, n_embd], f16)
                .tensor(t("ffn_up.weight"), &[n_embd, n_ff], f16)
        } else {
            b.tensor(t("ffn_gate_inp.weight"), &[n_embd, n_expert], f32)
                .tensor(t("ffn_down_exps.weight"), &[n_ff_exp, n_embd, n_expert], f16)
                .tensor(t("ffn_gate_exps.weight"), &[n_embd, n_ff_exp, n_expert], f16)
                .tensor(t("ffn_up_exps.weight"), &[n_embd, n_ff_exp, n_expert], f16)
                .tensor(t("ffn_gate_shexp.weight"), &[n_embd, n_ff_exp], f16)
                .tensor(t("ffn_down_shexp.weight"), &[n_ff_exp, n_embd], f16)
                .tensor(t("ffn_up_shexp.weight"), &[n_embd, n_ff_exp], f16)
        };
    }
    finish("deepseek2-mla.gguf", b)
}

/// Mamba (1): no attention, a convolution and an SSM state per layer and sequence.
pub fn mamba() -> BuiltModel {
    let (n_embd, n_layer, d_conv, d_state, dt_rank) = (256u64, 4u32, 4u64, 16u64, 16u64);
    let d_inner = 2 * n_embd;
    let mut b = with_vocab(GgufBuilder::new())
        .kv("general.architecture", "mamba")
        .kv("general.name", "Mamba-shaped recurrent test")
        .kv("mamba.context_length", 8192u32)
        .kv("mamba.embedding_length", n_embd as u32)
        .kv("mamba.block_count", n_layer)
        .kv("mamba.feed_forward_length", 0u32)
        .kv("mamba.attention.head_count", 0u32)
        .kv("mamba.ssm.conv_kernel", d_conv as u32)
        .kv("mamba.ssm.inner_size", d_inner as u32)
        .kv("mamba.ssm.state_size", d_state as u32)
        .kv("mamba.ssm.time_step_rank", dt_rank as u32)
        .kv("mamba.attention.layer_norm_rms_epsilon", 1e-5f32)
        .kv("general.file_type", 1u32);
    b = embeddings(b, n_embd, "output_norm");
    let f16 = GgmlType::F16;
    let f32 = GgmlType::F32;
    for i in 0..n_layer {
        let t = |name: &str| format!("blk.{i}.{name}");
        b = b
            .tensor(t("attn_norm.weight"), &[n_embd], f32)
            .tensor(t("ssm_in.weight"), &[n_embd, 2 * d_inner], f16)
            .tensor(t("ssm_conv1d.weight"), &[d_conv, d_inner], f32)
            .tensor(t("ssm_conv1d.bias"), &[d_inner], f32)
            .tensor(t("ssm_x.weight"), &[d_inner, dt_rank + 2 * d_state], f16)
            .tensor(t("ssm_dt.weight"), &[dt_rank, d_inner], f16)
            .tensor(t("ssm_dt.bias"), &[d_inner], f32)
            .tensor(t("ssm_a"), &[d_state, d_inner], f32)
            .tensor(t("ssm_d"), &[d_inner], f32)
            .tensor(t("ssm_out.weight"), &[d_inner, n_embd], f16);
    }
    finish("mamba.gguf", b)
}

/// LFM2: short-convolution layers (recurrent state) with attention layers between them, told
/// apart by `head_count_kv` (0 for a convolution layer).
pub fn lfm2_hybrid() -> BuiltModel {
    let (n_embd, n_head, n_ff, l_cache) = (256u64, 8u64, 512u64, 3u64);
    let kv_heads: [u32; 6] = [0, 0, 2, 0, 0, 2];
    let head = n_embd / n_head;
    let mut b = with_vocab(GgufBuilder::new())
        .kv("general.architecture", "lfm2")
        .kv("general.name", "LFM2-shaped hybrid test")
        .kv("lfm2.context_length", 32_768u32)
        .kv("lfm2.embedding_length", n_embd as u32)
        .kv("lfm2.block_count", kv_heads.len() as u32)
        .kv("lfm2.feed_forward_length", n_ff as u32)
        .kv("lfm2.attention.head_count", n_head as u32)
        .kv("lfm2.attention.head_count_kv", Array::U32(kv_heads.to_vec()))
        .kv("lfm2.shortconv.l_cache", l_cache as u32)
        .kv("lfm2.rope.freq_base", 1_000_000f32)
        .kv("lfm2.attention.layer_norm_rms_epsilon", 1e-5f32)
        .kv("general.file_type", 1u32);
    b = embeddings(b, n_embd, "token_embd_norm");
    let f16 = GgmlType::F16;
    let f32 = GgmlType::F32;
    for (i, &kv) in kv_heads.iter().enumerate() {
        let t = |name: &str| format!("blk.{i}.{name}");
        b = b
            .tensor(t("ffn_norm.weight"), &[n_embd], f32)
            .tensor(t("ffn_gate.weight"), &[n_embd, n_ff], f16)
            .tensor(t("ffn_down.weight"), &[n_ff, n_embd], f16)
            .tensor(t("ffn_up.weight"), &[n_embd, n_ff], f16)
            .tensor(t("attn_norm.weight"), &[n_embd], f32);
        b = if kv > 0 {
            let kv_dim = u64::from(kv) * head;
            b.tensor(t("attn_q_norm.weight"), &[head], f32)
                .tensor(t("attn_k_norm.weight"), &[head], f32)
                .tensor(t("attn_q.weight"), &[n_embd, n_embd], f16)
                .tensor(t("attn_k.weight"), &[n_embd, kv_dim], f16)
                .tensor(t("attn_v.weight"), &[n_embd, kv_dim], f16)
                .tensor(t("attn_output.weight"), &[n_embd, n_embd], f16)
        } else {
            b.tensor(t("shortconv.conv.weight"), &[l_cache, n_embd], f32)
                .tensor(t("shortconv.in_proj.weight"), &[n_embd, 3 * n_embd], f16)
                .tensor(t("shortconv.out_proj.weight"), &[n_embd, n_embd], f16)
        };
    }
    finish("lfm2-hybrid.gguf", b)
}
