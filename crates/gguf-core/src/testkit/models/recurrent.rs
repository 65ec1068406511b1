//! Recurrent models: no KV cache, a state per layer and sequence.

use super::{BuiltModel, Model, blk};

/// Mamba (1): no attention, a convolution and an SSM state per layer and sequence.
pub(super) fn mamba() -> BuiltModel {
    let (n_embd, n_layer, d_conv, d_state, dt_rank) = (256u64, 4u32, 4u64, 16u64, 16u64);
    let d_inner = 2 * n_embd;
    let mut m = Model::new("mamba", "Mamba-shaped recurrent test")
        .key("context_length", 8192u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", n_layer)
        .key("feed_forward_length", 0u32)
        .key("attention.head_count", 0u32)
        .key("ssm.conv_kernel", d_conv as u32)
        .key("ssm.inner_size", d_inner as u32)
        .key("ssm.state_size", d_state as u32)
        .key("ssm.time_step_rank", dt_rank as u32)
        .key("attention.layer_norm_rms_epsilon", 1e-5f32)
        .embeddings(n_embd, "output_norm", true);
    for i in 0..n_layer {
        m = m
            .t(blk(i, "attn_norm.weight"), &[n_embd])
            .t(blk(i, "ssm_in.weight"), &[n_embd, 2 * d_inner])
            .f32(blk(i, "ssm_conv1d.weight"), &[d_conv, d_inner])
            .t(blk(i, "ssm_conv1d.bias"), &[d_inner])
            .t(blk(i, "ssm_x.weight"), &[d_inner, dt_rank + 2 * d_state])
            .t(blk(i, "ssm_dt.weight"), &[dt_rank, d_inner])
            .t(blk(i, "ssm_dt.bias"), &[d_inner])
            .f32(blk(i, "ssm_a"), &[d_state, d_inner])
            .t(blk(i, "ssm_d"), &[d_inner])
            .t(blk(i, "ssm_out.weight"), &[d_inner, n_embd]);
    }
    m.finish("mamba.gguf")
}

/// The norms and output of an RWKV model: LN0 after the embedding, layer norms with biases.
fn rwkv_embeddings(m: Model, n_embd: u64) -> Model {
    m.t("token_embd.weight", &[n_embd, super::VOCAB])
        .t("token_embd_norm.weight", &[n_embd])
        .t("token_embd_norm.bias", &[n_embd])
        .t("output_norm.weight", &[n_embd])
        .t("output_norm.bias", &[n_embd])
        .t("output.weight", &[n_embd, super::VOCAB])
}

/// RWKV 6: a token-shift state (2 × `n_embd`) and a WKV state (`n_embd × head_size`) per layer.
pub(super) fn rwkv6() -> BuiltModel {
    let (n_embd, n_layer, head, n_ff) = (512u64, 4u32, 64u64, 1792u64);
    let (mix_extra, decay_extra) = (32u64, 64u64);
    let mut m = Model::new("rwkv6", "RWKV6-shaped recurrent test")
        .key("context_length", 1_048_576u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", n_layer)
        .key("feed_forward_length", n_ff as u32)
        .key("attention.head_count", 0u32)
        .key("wkv.head_size", head as u32)
        .key("time_mix_extra_dim", mix_extra as u32)
        .key("time_decay_extra_dim", decay_extra as u32)
        .key("rescale_every_n_layers", 6u32)
        .key("attention.layer_norm_epsilon", 1e-5f32);
    m = rwkv_embeddings(m, n_embd);
    for i in 0..n_layer {
        m = m
            .t(blk(i, "attn_norm.weight"), &[n_embd])
            .t(blk(i, "attn_norm.bias"), &[n_embd])
            .t(blk(i, "attn_norm_2.weight"), &[n_embd])
            .t(blk(i, "attn_norm_2.bias"), &[n_embd])
            .f32(blk(i, "time_mix_w1.weight"), &[n_embd, mix_extra * 5])
            .f32(blk(i, "time_mix_w2.weight"), &[mix_extra, n_embd, 5])
            .f32(blk(i, "time_mix_lerp_x.weight"), &[n_embd, 1, 1])
            .f32(blk(i, "time_mix_lerp_fused.weight"), &[n_embd, 1, 1, 5])
            .f32(blk(i, "time_mix_first.weight"), &[head, n_embd / head])
            .t(blk(i, "time_mix_decay.weight"), &[n_embd])
            .f32(blk(i, "time_mix_decay_w1.weight"), &[n_embd, decay_extra])
            .f32(blk(i, "time_mix_decay_w2.weight"), &[decay_extra, n_embd])
            .t(blk(i, "time_mix_key.weight"), &[n_embd, n_embd])
            .t(blk(i, "time_mix_value.weight"), &[n_embd, n_embd])
            .t(blk(i, "time_mix_receptance.weight"), &[n_embd, n_embd])
            .t(blk(i, "time_mix_gate.weight"), &[n_embd, n_embd])
            .t(blk(i, "time_mix_ln.weight"), &[n_embd])
            .t(blk(i, "time_mix_ln.bias"), &[n_embd])
            .t(blk(i, "time_mix_output.weight"), &[n_embd, n_embd])
            .f32(blk(i, "channel_mix_lerp_k.weight"), &[n_embd, 1, 1])
            .f32(blk(i, "channel_mix_lerp_r.weight"), &[n_embd, 1, 1])
            .t(blk(i, "channel_mix_key.weight"), &[n_embd, n_ff])
            .t(blk(i, "channel_mix_value.weight"), &[n_ff, n_embd])
            .t(blk(i, "channel_mix_receptance.weight"), &[n_embd, n_embd]);
    }
    m.finish("rwkv6.gguf")
}

/// RWKV 7: RWKV 6's states, its time mix made of low-rank projections.
pub(super) fn rwkv7() -> BuiltModel {
    let (n_embd, n_layer, head, n_ff) = (512u64, 4u32, 64u64, 2048u64);
    let (decay, iclr, value_mix, gate) = (64u64, 64u64, 32u64, 128u64);
    let mut m = Model::new("rwkv7", "RWKV7-shaped recurrent test")
        .key("context_length", 1_048_576u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", n_layer)
        .key("feed_forward_length", n_ff as u32)
        .key("attention.head_count", 0u32)
        .key("wkv.head_size", head as u32)
        .key("attention.decay_lora_rank", decay as u32)
        .key("attention.iclr_lora_rank", iclr as u32)
        .key("attention.value_residual_mix_lora_rank", value_mix as u32)
        .key("attention.gate_lora_rank", gate as u32)
        .key("attention.layer_norm_epsilon", 1e-5f32);
    m = rwkv_embeddings(m, n_embd);
    for i in 0..n_layer {
        let v_rank = if i == 0 { iclr } else { value_mix };
        m = m
            .t(blk(i, "attn_norm.weight"), &[n_embd])
            .t(blk(i, "attn_norm.bias"), &[n_embd])
            .t(blk(i, "attn_norm_2.weight"), &[n_embd])
            .t(blk(i, "attn_norm_2.bias"), &[n_embd])
            .t(blk(i, "time_mix_w0.weight"), &[n_embd])
            .t(blk(i, "time_mix_w1.weight"), &[n_embd, decay])
            .t(blk(i, "time_mix_w2.weight"), &[decay, n_embd])
            .t(blk(i, "time_mix_a0.weight"), &[n_embd])
            .t(blk(i, "time_mix_a1.weight"), &[n_embd, iclr])
            .t(blk(i, "time_mix_a2.weight"), &[iclr, n_embd])
            .t(blk(i, "time_mix_v0.weight"), &[n_embd])
            .t(blk(i, "time_mix_v1.weight"), &[n_embd, v_rank])
            .t(blk(i, "time_mix_v2.weight"), &[v_rank, n_embd])
            .t(blk(i, "time_mix_g1.weight"), &[n_embd, gate])
            .t(blk(i, "time_mix_g2.weight"), &[gate, n_embd])
            .f32(blk(i, "time_mix_lerp_fused.weight"), &[n_embd, 1, 1, 6])
            .t(blk(i, "time_mix_k_k.weight"), &[n_embd])
            .t(blk(i, "time_mix_k_a.weight"), &[n_embd])
            .t(blk(i, "time_mix_r_k.weight"), &[n_embd])
            .t(blk(i, "time_mix_key.weight"), &[n_embd, n_embd])
            .t(blk(i, "time_mix_value.weight"), &[n_embd, n_embd])
            .t(blk(i, "time_mix_receptance.weight"), &[n_embd, n_embd])
            .t(blk(i, "time_mix_ln.weight"), &[n_embd])
            .t(blk(i, "time_mix_ln.bias"), &[n_embd])
            .t(blk(i, "time_mix_output.weight"), &[n_embd, n_embd])
            .f32(blk(i, "channel_mix_lerp_k.weight"), &[n_embd, 1, 1])
            .t(blk(i, "channel_mix_key.weight"), &[n_embd, n_ff])
            .t(blk(i, "channel_mix_value.weight"), &[n_ff, n_embd]);
    }
    m.finish("rwkv7.gguf")
}
