//! Hybrid models: attention layers with a KV cache among recurrent layers with a state.

use super::{BuiltModel, Model, VOCAB, blk};
use crate::header::Array;

/// LFM2: short-convolution layers (recurrent state) with attention layers between them, told
/// apart by `head_count_kv` (0 for a convolution layer).
pub(super) fn lfm2() -> BuiltModel {
    let (n_embd, n_head, n_ff, l_cache) = (256u64, 8u64, 512u64, 3u64);
    let kv_heads: [u32; 6] = [0, 0, 2, 0, 0, 2];
    let head = n_embd / n_head;
    let mut m = Model::new("lfm2", "LFM2-shaped hybrid test")
        .key("context_length", 32_768u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", kv_heads.len() as u32)
        .key("feed_forward_length", n_ff as u32)
        .key("attention.head_count", n_head as u32)
        .key("attention.head_count_kv", Array::U32(kv_heads.to_vec()))
        .key("shortconv.l_cache", l_cache as u32)
        .key("rope.freq_base", 1_000_000f32)
        .key("attention.layer_norm_rms_epsilon", 1e-5f32)
        .embeddings(n_embd, "token_embd_norm", true);
    for (i, &kv) in (0u32..).zip(kv_heads.iter()) {
        m = m
            .t(blk(i, "ffn_norm.weight"), &[n_embd])
            .t(blk(i, "ffn_gate.weight"), &[n_embd, n_ff])
            .t(blk(i, "ffn_down.weight"), &[n_ff, n_embd])
            .t(blk(i, "ffn_up.weight"), &[n_embd, n_ff])
            .t(blk(i, "attn_norm.weight"), &[n_embd]);
        m = if kv > 0 {
            let kv_dim = u64::from(kv) * head;
            m.t(blk(i, "attn_q_norm.weight"), &[head])
                .t(blk(i, "attn_k_norm.weight"), &[head])
                .t(blk(i, "attn_q.weight"), &[n_embd, n_embd])
                .t(blk(i, "attn_k.weight"), &[n_embd, kv_dim])
                .t(blk(i, "attn_v.weight"), &[n_embd, kv_dim])
                .t(blk(i, "attn_output.weight"), &[n_embd, n_embd])
        } else {
            m.f32(blk(i, "shortconv.conv.weight"), &[l_cache, n_embd])
                .t(blk(i, "shortconv.in_proj.weight"), &[n_embd, 3 * n_embd])
                .t(blk(i, "shortconv.out_proj.weight"), &[n_embd, n_embd])
        };
    }
    m.finish("lfm2-hybrid.gguf")
}

/// Qwen 3 Next: three gated-delta-net layers (a convolution and a matrix state per head) to one
/// attention layer (`full_attention_interval`), gated attention (Q twice as wide), experts with
/// a gated shared expert, experts a quarter of `n_embd` wide as Qwen3-Next-80B's are.
pub(super) fn qwen3_next() -> BuiltModel {
    let (n_embd, n_head, n_head_kv, head, n_layer) = (512u64, 4u64, 2u64, 128u64, 8u32);
    let (d_conv, head_k, k_heads, v_heads) = (4u64, 64u64, 4u64, 8u64);
    let (n_ff_exp, n_expert, n_ff_shexp) = (128u64, 16u64, 128u64);
    let (key_dim, value_dim) = (head_k * k_heads, head_k * v_heads);
    let mut m = Model::new("qwen3next", "Qwen3-Next-shaped hybrid test")
        .key("context_length", 32_768u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", n_layer)
        .key("feed_forward_length", 1024u32)
        .key("expert_feed_forward_length", n_ff_exp as u32)
        .key("expert_shared_feed_forward_length", n_ff_shexp as u32)
        .key("expert_count", n_expert as u32)
        .key("expert_used_count", 4u32)
        .key("attention.head_count", n_head as u32)
        .key("attention.head_count_kv", n_head_kv as u32)
        .key("attention.key_length", head as u32)
        .key("attention.value_length", head as u32)
        .key("rope.dimension_count", 64u32)
        .key("rope.freq_base", 10_000_000f32)
        .key("full_attention_interval", 4u32)
        .key("ssm.conv_kernel", d_conv as u32)
        .key("ssm.state_size", head_k as u32)
        .key("ssm.group_count", k_heads as u32)
        .key("ssm.time_step_rank", v_heads as u32)
        .key("ssm.inner_size", value_dim as u32)
        .key("attention.layer_norm_rms_epsilon", 1e-6f32)
        .embeddings(n_embd, "output_norm", true);
    for i in 0..n_layer {
        m = m
            .t(blk(i, "attn_norm.weight"), &[n_embd])
            .t(blk(i, "post_attention_norm.weight"), &[n_embd]);
        m = if (i + 1) % 4 == 0 {
            m.t(blk(i, "attn_q.weight"), &[n_embd, 2 * n_head * head])
                .t(blk(i, "attn_k.weight"), &[n_embd, n_head_kv * head])
                .t(blk(i, "attn_v.weight"), &[n_embd, n_head_kv * head])
                .t(blk(i, "attn_output.weight"), &[n_head * head, n_embd])
                .t(blk(i, "attn_q_norm.weight"), &[head])
                .t(blk(i, "attn_k_norm.weight"), &[head])
        } else {
            m.t(blk(i, "attn_qkv.weight"), &[n_embd, 2 * key_dim + value_dim])
                .t(blk(i, "attn_gate.weight"), &[n_embd, value_dim])
                .f32(blk(i, "ssm_conv1d.weight"), &[d_conv, 2 * key_dim + value_dim])
                .t(blk(i, "ssm_dt.bias"), &[v_heads])
                .t(blk(i, "ssm_a"), &[v_heads])
                .t(blk(i, "ssm_ba.weight"), &[n_embd, 2 * v_heads])
                .t(blk(i, "ssm_norm.weight"), &[head_k])
                .t(blk(i, "ssm_out.weight"), &[value_dim, n_embd])
        };
        m = m
            .experts(i, n_embd, n_ff_exp, n_expert)
            .t(blk(i, "ffn_gate_inp_shexp.weight"), &[n_embd])
            .shared_expert(i, n_embd, n_ff_shexp);
    }
    m.finish("qwen3-next-hybrid.gguf")
}

/// The Mamba 2 mixer of Granite 4 hybrid and Falcon-H1: input projection, grouped convolution,
/// per-head decay, grouped norm, output projection.
fn mamba2_mixer(
    m: Model,
    i: u32,
    n_embd: u64,
    d_inner: u64,
    d_state: u64,
    n_group: u64,
    heads: u64,
) -> Model {
    let conv = d_inner + 2 * n_group * d_state;
    m.t(blk(i, "ssm_in.weight"), &[n_embd, d_inner + conv + heads])
        .f32(blk(i, "ssm_conv1d.weight"), &[4, conv])
        .t(blk(i, "ssm_conv1d.bias"), &[conv])
        .t(blk(i, "ssm_dt.bias"), &[heads])
        .f32(blk(i, "ssm_a"), &[1, heads])
        .f32(blk(i, "ssm_d"), &[1, heads])
        .f32(blk(i, "ssm_norm.weight"), &[d_inner / n_group, n_group])
        .t(blk(i, "ssm_out.weight"), &[d_inner, n_embd])
}

/// Granite 4 hybrid (its MoE models' shape): Mamba 2 layers with attention every fourth layer
/// (`head_count_kv` 0 for a Mamba layer), every layer a mixture of experts (a third of `n_embd`
/// wide, as Granite-4.0-H-Tiny's) with a shared expert.
pub(super) fn granite_hybrid() -> BuiltModel {
    let (n_embd, n_head, n_layer) = (256u64, 8u64, 8u32);
    let (d_state, n_group, heads) = (64u64, 1u64, 8u64);
    let (n_ff_exp, n_expert, n_ff_shexp) = (96u64, 8u64, 512u64);
    let d_inner = 2 * n_embd;
    let attention = |i: u32| i % 4 == 3;
    let head = n_embd / n_head;
    let mut m = Model::new("granitehybrid", "Granite4-hybrid-shaped test")
        .key("context_length", 32_768u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", n_layer)
        .key("feed_forward_length", n_ff_exp as u32)
        .key("expert_shared_feed_forward_length", n_ff_shexp as u32)
        .key("expert_count", n_expert as u32)
        .key("expert_used_count", 2u32)
        .key("attention.head_count", n_head as u32)
        .key(
            "attention.head_count_kv",
            Array::U32((0..n_layer).map(|i| if attention(i) { 2 } else { 0 }).collect()),
        )
        .key("ssm.conv_kernel", 4u32)
        .key("ssm.inner_size", d_inner as u32)
        .key("ssm.state_size", d_state as u32)
        .key("ssm.time_step_rank", heads as u32)
        .key("ssm.group_count", n_group as u32)
        .key("rope.scaling.finetuned", false)
        .key("attention.layer_norm_rms_epsilon", 1e-5f32)
        .embeddings(n_embd, "output_norm", true);
    for i in 0..n_layer {
        m = m.t(blk(i, "attn_norm.weight"), &[n_embd]);
        m = if attention(i) {
            m.qkvo(i, n_embd, n_embd, 2 * head)
        } else {
            mamba2_mixer(m, i, n_embd, d_inner, d_state, n_group, heads)
        };
        m = m
            .t(blk(i, "ffn_norm.weight"), &[n_embd])
            .experts(i, n_embd, n_ff_exp, n_expert)
            .shared_expert(i, n_embd, n_ff_shexp);
    }
    m.finish("granite-hybrid.gguf")
}

/// Falcon-H1: attention and a Mamba 2 mixer side by side in every layer, so every layer is in
/// both the KV cache and the recurrent state.
pub(super) fn falcon_h1() -> BuiltModel {
    let (n_embd, n_head, n_head_kv, n_ff, n_layer) = (256u64, 8u64, 2u64, 768u64, 4u32);
    let (d_inner, d_state, n_group, heads) = (512u64, 32u64, 1u64, 8u64);
    let head = n_embd / n_head;
    let mut m = Model::new("falcon-h1", "Falcon-H1-shaped hybrid test")
        .key("context_length", 16_384u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", n_layer)
        .key("feed_forward_length", n_ff as u32)
        .key("attention.head_count", n_head as u32)
        .key("attention.head_count_kv", n_head_kv as u32)
        .key("ssm.conv_kernel", 4u32)
        .key("ssm.inner_size", d_inner as u32)
        .key("ssm.state_size", d_state as u32)
        .key("ssm.time_step_rank", heads as u32)
        .key("ssm.group_count", n_group as u32)
        .key("attention.layer_norm_rms_epsilon", 1e-5f32)
        .t("token_embd.weight", &[n_embd, VOCAB])
        .t("output.weight", &[n_embd, VOCAB])
        .t("output_norm.weight", &[n_embd]);
    for i in 0..n_layer {
        m = mamba2_mixer(m, i, n_embd, d_inner, d_state, n_group, heads)
            .qkvo(i, n_embd, n_embd, n_head_kv * head)
            .t(blk(i, "attn_norm.weight"), &[n_embd])
            .t(blk(i, "ffn_norm"), &[n_embd])
            .ffn(i, n_embd, n_ff);
    }
    m.finish("falcon-h1-hybrid.gguf")
}
