//! Models with a KV cache (or, for BERT, attention without one): each architecture's tensor
//! table as its `load_arch_tensors` asks for it, in shapes a small real model of its kind has.

use alloc::vec::Vec;

use super::{BuiltModel, Model, VOCAB, blk};
use crate::header::Array;

/// DeepSeek 2 with MLA as today's converters write it: one KV head of `kv_lora_rank + rope`
/// (K) and `kv_lora_rank` (V), the decompressed head sizes in `key_length_mla`/`value_length_mla`;
/// one dense layer, then MoE layers of 4 experts (2 used) and a shared expert.
pub(super) fn deepseek2_mla() -> BuiltModel {
    let (n_embd, n_head, n_layer, n_ff, n_ff_exp, n_expert) = (512u64, 8u64, 4u32, 1024u64, 256u64, 4u64);
    let (kv_lora, rope, nope, v_mla) = (128u64, 32u64, 32u64, 64u64);
    let mut m = Model::new("deepseek2", "DeepSeek2-shaped MLA test")
        .key("context_length", 16_384u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", n_layer)
        .key("feed_forward_length", n_ff as u32)
        .key("attention.head_count", n_head as u32)
        .key("attention.head_count_kv", 1u32)
        .key("attention.key_length", (kv_lora + rope) as u32)
        .key("attention.value_length", kv_lora as u32)
        .key("attention.key_length_mla", (nope + rope) as u32)
        .key("attention.value_length_mla", v_mla as u32)
        .key("attention.q_lora_rank", 0u32)
        .key("attention.kv_lora_rank", kv_lora as u32)
        .key("rope.dimension_count", rope as u32)
        .key("rope.freq_base", 10_000f32)
        .key("attention.layer_norm_rms_epsilon", 1e-6f32)
        .key("leading_dense_block_count", 1u32)
        .key("expert_count", n_expert as u32)
        .key("expert_used_count", 2u32)
        .key("expert_shared_count", 1u32)
        .key("expert_feed_forward_length", n_ff_exp as u32)
        .embeddings(n_embd, "output_norm", true);
    for i in 0..n_layer {
        m = m
            .t(blk(i, "attn_norm.weight"), &[n_embd])
            .t(blk(i, "attn_kv_a_norm.weight"), &[kv_lora])
            .t(blk(i, "attn_q.weight"), &[n_embd, n_head * (nope + rope)])
            .t(blk(i, "attn_kv_a_mqa.weight"), &[n_embd, kv_lora + rope])
            .t(blk(i, "attn_k_b.weight"), &[nope, kv_lora, n_head])
            .t(blk(i, "attn_v_b.weight"), &[kv_lora, v_mla, n_head])
            .t(blk(i, "attn_output.weight"), &[n_head * v_mla, n_embd])
            .t(blk(i, "ffn_norm.weight"), &[n_embd]);
        m = if i == 0 {
            m.t(blk(i, "ffn_gate.weight"), &[n_embd, n_ff])
                .t(blk(i, "ffn_down.weight"), &[n_ff, n_embd])
                .t(blk(i, "ffn_up.weight"), &[n_embd, n_ff])
        } else {
            m.t(blk(i, "ffn_gate_inp.weight"), &[n_embd, n_expert])
                .t(blk(i, "ffn_down_exps.weight"), &[n_ff_exp, n_embd, n_expert])
                .t(blk(i, "ffn_gate_exps.weight"), &[n_embd, n_ff_exp, n_expert])
                .t(blk(i, "ffn_up_exps.weight"), &[n_embd, n_ff_exp, n_expert])
                .t(blk(i, "ffn_gate_shexp.weight"), &[n_embd, n_ff_exp])
                .t(blk(i, "ffn_down_shexp.weight"), &[n_ff_exp, n_embd])
                .t(blk(i, "ffn_up_shexp.weight"), &[n_embd, n_ff_exp])
        };
    }
    m.finish("deepseek2-mla.gguf")
}

/// DeepSeek 3 as its GGUFs are (architecture `deepseek2`): Q through a low-rank projection,
/// MLA, experts routed in groups by a sigmoid with a bias, one shared expert, and a
/// next-token-prediction (MTP) layer after the trunk, which the main context's cache leaves out.
/// Experts as much narrower than `n_embd` as DeepSeek V3's.
pub(super) fn deepseek3() -> BuiltModel {
    let (n_embd, n_head, n_trunk, n_ff, n_ff_exp, n_expert) = (512u64, 8u64, 4u32, 1024u64, 144u64, 16u64);
    let (q_lora, kv_lora, rope, nope, v_mla) = (256u64, 128u64, 32u64, 64u64, 64u64);
    let mut m = Model::new("deepseek2", "DeepSeek3-shaped MLA, grouped experts and MTP test")
        .key("context_length", 16_384u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", n_trunk + 1)
        .key("nextn_predict_layers", 1u32)
        .key("feed_forward_length", n_ff as u32)
        .key("attention.head_count", n_head as u32)
        .key("attention.head_count_kv", 1u32)
        .key("attention.key_length", (kv_lora + rope) as u32)
        .key("attention.value_length", kv_lora as u32)
        .key("attention.key_length_mla", (nope + rope) as u32)
        .key("attention.value_length_mla", v_mla as u32)
        .key("attention.q_lora_rank", q_lora as u32)
        .key("attention.kv_lora_rank", kv_lora as u32)
        .key("rope.dimension_count", rope as u32)
        .key("rope.freq_base", 10_000f32)
        .key("attention.layer_norm_rms_epsilon", 1e-6f32)
        .key("leading_dense_block_count", 1u32)
        .key("expert_count", n_expert as u32)
        .key("expert_used_count", 4u32)
        .key("expert_shared_count", 1u32)
        .key("expert_group_count", 4u32)
        .key("expert_group_used_count", 2u32)
        .key("expert_gating_func", 2u32)
        .key("expert_weights_norm", true)
        .key("expert_weights_scale", 2.5f32)
        .key("expert_feed_forward_length", n_ff_exp as u32)
        .embeddings(n_embd, "output_norm", true);
    for i in 0..=n_trunk {
        m = m
            .t(blk(i, "attn_norm.weight"), &[n_embd])
            .t(blk(i, "attn_q_a_norm.weight"), &[q_lora])
            .t(blk(i, "attn_kv_a_norm.weight"), &[kv_lora])
            .t(blk(i, "attn_q_a.weight"), &[n_embd, q_lora])
            .t(blk(i, "attn_q_b.weight"), &[q_lora, n_head * (nope + rope)])
            .t(blk(i, "attn_kv_a_mqa.weight"), &[n_embd, kv_lora + rope])
            .t(blk(i, "attn_k_b.weight"), &[nope, kv_lora, n_head])
            .t(blk(i, "attn_v_b.weight"), &[kv_lora, v_mla, n_head])
            .t(blk(i, "attn_output.weight"), &[n_head * v_mla, n_embd])
            .t(blk(i, "ffn_norm.weight"), &[n_embd]);
        m = if i == 0 {
            m.ffn(i, n_embd, n_ff)
        } else {
            m.experts(i, n_embd, n_ff_exp, n_expert)
                .t(blk(i, "exp_probs_b.bias"), &[n_expert])
                .shared_expert(i, n_embd, n_ff_exp)
        };
        if i == n_trunk {
            m = m
                .t(blk(i, "nextn.eh_proj.weight"), &[2 * n_embd, n_embd])
                .t(blk(i, "nextn.enorm.weight"), &[n_embd])
                .t(blk(i, "nextn.hnorm.weight"), &[n_embd])
                .t(blk(i, "nextn.shared_head_norm.weight"), &[n_embd]);
        }
    }
    m.finish("deepseek3-mla-mtp.gguf")
}

/// Qwen 3: grouped-query attention with heads wider than `n_embd / n_head` and Q/K norms.
pub(super) fn qwen3() -> BuiltModel {
    let (n_embd, n_head, n_head_kv, head, n_ff, n_layer) = (512u64, 8u64, 2u64, 128u64, 1536u64, 4u32);
    let mut m = Model::new("qwen3", "Qwen3-shaped test")
        .key("context_length", 40_960u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", n_layer)
        .key("feed_forward_length", n_ff as u32)
        .key("attention.head_count", n_head as u32)
        .key("attention.head_count_kv", n_head_kv as u32)
        .key("attention.key_length", head as u32)
        .key("attention.value_length", head as u32)
        .key("rope.freq_base", 1_000_000f32)
        .key("attention.layer_norm_rms_epsilon", 1e-6f32)
        .embeddings(n_embd, "output_norm", true);
    for i in 0..n_layer {
        m = m
            .t(blk(i, "attn_norm.weight"), &[n_embd])
            .qkvo(i, n_embd, n_head * head, n_head_kv * head)
            .t(blk(i, "attn_k_norm.weight"), &[head])
            .t(blk(i, "attn_q_norm.weight"), &[head])
            .t(blk(i, "ffn_norm.weight"), &[n_embd])
            .ffn(i, n_embd, n_ff);
    }
    m.finish("qwen3.gguf")
}

/// Qwen 3 MoE: Qwen 3's attention, every layer a mixture of 16 narrow experts (4 used), each as
/// much narrower than `n_embd` as Qwen3-30B-A3B's.
pub(super) fn qwen3_moe() -> BuiltModel {
    let (n_embd, n_head, n_head_kv, head, n_layer) = (512u64, 8u64, 2u64, 128u64, 4u32);
    let (n_ff_exp, n_expert) = (192u64, 16u64);
    let mut m = Model::new("qwen3moe", "Qwen3-MoE-shaped test")
        .key("context_length", 32_768u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", n_layer)
        .key("feed_forward_length", 1536u32)
        .key("expert_feed_forward_length", n_ff_exp as u32)
        .key("expert_count", n_expert as u32)
        .key("expert_used_count", 4u32)
        .key("attention.head_count", n_head as u32)
        .key("attention.head_count_kv", n_head_kv as u32)
        .key("attention.key_length", head as u32)
        .key("attention.value_length", head as u32)
        .key("rope.freq_base", 1_000_000f32)
        .key("attention.layer_norm_rms_epsilon", 1e-6f32)
        .embeddings(n_embd, "output_norm", true);
    for i in 0..n_layer {
        m = m
            .t(blk(i, "attn_norm.weight"), &[n_embd])
            .qkvo(i, n_embd, n_head * head, n_head_kv * head)
            .t(blk(i, "attn_k_norm.weight"), &[head])
            .t(blk(i, "attn_q_norm.weight"), &[head])
            .t(blk(i, "ffn_norm.weight"), &[n_embd])
            .experts(i, n_embd, n_ff_exp, n_expert);
    }
    m.finish("qwen3-moe.gguf")
}

/// Command-R: layer norms, no FFN norm (parallel attention and FFN), the output tied to the
/// token embedding.
pub(super) fn command_r() -> BuiltModel {
    let (n_embd, n_head, n_head_kv, n_ff, n_layer) = (512u64, 8u64, 2u64, 1536u64, 4u32);
    let head = n_embd / n_head;
    let mut m = Model::new("command-r", "Command-R-shaped test")
        .key("context_length", 16_384u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", n_layer)
        .key("feed_forward_length", n_ff as u32)
        .key("attention.head_count", n_head as u32)
        .key("attention.head_count_kv", n_head_kv as u32)
        .key("attention.layer_norm_epsilon", 1e-5f32)
        .key("logit_scale", 0.0625f32)
        .embeddings(n_embd, "output_norm", false);
    for i in 0..n_layer {
        m = m
            .t(blk(i, "attn_norm.weight"), &[n_embd])
            .qkvo(i, n_embd, n_embd, n_head_kv * head)
            .ffn(i, n_embd, n_ff);
    }
    m.finish("command-r.gguf")
}

/// Phi 3 with `sliding_window` set, as Phi-3-mini's GGUFs are: llama.cpp turns its sliding
/// window off (one cache of the whole context). Fused QKV, a fused gate-and-up FFN.
pub(super) fn phi3_swa() -> BuiltModel {
    let (n_embd, n_head, n_ff, n_layer) = (512u64, 8u64, 1024u64, 4u32);
    let mut m = Model::new("phi3", "Phi 3-shaped sliding-window test")
        .key("context_length", 4096u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", n_layer)
        .key("feed_forward_length", n_ff as u32)
        .key("attention.head_count", n_head as u32)
        .key("attention.head_count_kv", n_head as u32)
        .key("attention.sliding_window", 2047u32)
        .key("rope.dimension_count", (n_embd / n_head) as u32)
        .key("attention.layer_norm_rms_epsilon", 1e-5f32)
        .embeddings(n_embd, "output_norm", true);
    for i in 0..n_layer {
        m = m
            .t(blk(i, "attn_norm.weight"), &[n_embd])
            .t(blk(i, "attn_qkv.weight"), &[n_embd, 3 * n_embd])
            .t(blk(i, "attn_output.weight"), &[n_embd, n_embd])
            .t(blk(i, "ffn_norm.weight"), &[n_embd])
            .t(blk(i, "ffn_down.weight"), &[n_ff, n_embd])
            .t(blk(i, "ffn_up.weight"), &[n_embd, 2 * n_ff]);
    }
    m.finish("phi3-swa.gguf")
}

/// Gemma 2: every other layer slides, without a `sliding_window` key (llama.cpp's default window
/// of 4096), heads wider than `n_embd / n_head`, logit soft-capping, the output tied.
pub(super) fn gemma2() -> BuiltModel {
    let (n_embd, n_head, n_head_kv, head, n_ff, n_layer) = (512u64, 8u64, 4u64, 128u64, 1536u64, 6u32);
    let mut m = Model::new("gemma2", "Gemma2-shaped sliding-window test")
        .key("context_length", 8192u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", n_layer)
        .key("feed_forward_length", n_ff as u32)
        .key("attention.head_count", n_head as u32)
        .key("attention.head_count_kv", n_head_kv as u32)
        .key("attention.key_length", head as u32)
        .key("attention.value_length", head as u32)
        .key("attention.layer_norm_rms_epsilon", 1e-6f32)
        .key("attn_logit_softcapping", 50f32)
        .key("final_logit_softcapping", 30f32)
        .embeddings(n_embd, "output_norm", false);
    for i in 0..n_layer {
        m = m
            .t(blk(i, "attn_norm.weight"), &[n_embd])
            .qkvo(i, n_embd, n_head * head, n_head_kv * head)
            .t(blk(i, "post_attention_norm.weight"), &[n_embd])
            .t(blk(i, "ffn_norm.weight"), &[n_embd])
            .ffn(i, n_embd, n_ff)
            .t(blk(i, "post_ffw_norm.weight"), &[n_embd]);
    }
    m.finish("gemma2-swa.gguf")
}

/// Gemma 4 as its small models are (E2B, E4B): four sliding layers to one global, global heads
/// wider than sliding ones (`key_length` and `key_length_swa`), the last layers sharing the KV
/// cache of the last ones that have one (`shared_kv_layers`), per-layer token embeddings.
pub(super) fn gemma4() -> BuiltModel {
    let (n_embd, n_head, n_ff, n_layer, n_shared) = (512u64, 4u64, 1024u64, 10u32, 5u32);
    let (head, head_swa, per_layer) = (256u64, 128u64, 64u64);
    let sliding = |i: u32| i % 5 != 4;
    let mut m = Model::new("gemma4", "Gemma4-shaped shared-KV test")
        .key("context_length", 32_768u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", n_layer)
        .key("feed_forward_length", n_ff as u32)
        .key("attention.head_count", n_head as u32)
        .key("attention.head_count_kv", 1u32)
        .key("attention.key_length", head as u32)
        .key("attention.value_length", head as u32)
        .key("attention.key_length_swa", head_swa as u32)
        .key("attention.value_length_swa", head_swa as u32)
        .key("attention.sliding_window", 512u32)
        .key(
            "attention.sliding_window_pattern",
            Array::Bool((0..n_layer).map(sliding).collect()),
        )
        .key("attention.shared_kv_layers", n_shared)
        .key("embedding_length_per_layer_input", per_layer as u32)
        .key("rope.freq_base", 1_000_000f32)
        .key("rope.freq_base_swa", 10_000f32)
        .key("attention.layer_norm_rms_epsilon", 1e-6f32)
        .key("final_logit_softcapping", 30f32)
        .t("token_embd.weight", &[n_embd, VOCAB])
        .t(
            "per_layer_token_embd.weight",
            &[per_layer * u64::from(n_layer), VOCAB],
        )
        .t(
            "per_layer_model_proj.weight",
            &[n_embd, per_layer * u64::from(n_layer)],
        )
        .t("per_layer_proj_norm.weight", &[per_layer])
        .t("output_norm.weight", &[n_embd]);
    let mut rope_freqs = true;
    for i in 0..n_layer {
        let h = if sliding(i) { head_swa } else { head };
        let has_kv = i < n_layer - n_shared;
        m = m
            .t(blk(i, "attn_norm.weight"), &[n_embd])
            .t(blk(i, "attn_q.weight"), &[n_embd, h * n_head]);
        if has_kv {
            m = m
                .t(blk(i, "attn_k.weight"), &[n_embd, h])
                .t(blk(i, "attn_v.weight"), &[n_embd, h]);
        }
        m = m
            .t(blk(i, "attn_output.weight"), &[h * n_head, n_embd])
            .t(blk(i, "attn_q_norm.weight"), &[h]);
        if has_kv {
            m = m.t(blk(i, "attn_k_norm.weight"), &[h]);
        }
        m = m.t(blk(i, "post_attention_norm.weight"), &[n_embd]);
        if !sliding(i) && rope_freqs {
            m = m.t("rope_freqs.weight", &[head / 2]);
            rope_freqs = false;
        }
        m = m
            .t(blk(i, "ffn_norm.weight"), &[n_embd])
            .ffn(i, n_embd, n_ff)
            .t(blk(i, "post_ffw_norm.weight"), &[n_embd])
            .t(blk(i, "inp_gate.weight"), &[n_embd, per_layer])
            .t(blk(i, "proj.weight"), &[per_layer, n_embd])
            .t(blk(i, "post_norm.weight"), &[n_embd]);
    }
    m.finish("gemma4-shared-kv.gguf")
}

/// GPT-OSS: every other layer slides (a window of 128), attention sinks, experts with biases.
pub(super) fn gpt_oss() -> BuiltModel {
    let (n_embd, n_head, n_head_kv, head, n_layer) = (512u64, 8u64, 2u64, 64u64, 4u32);
    let (n_ff_exp, n_expert) = (512u64, 8u64);
    let mut m = Model::new("gpt-oss", "GPT-OSS-shaped sliding-window test")
        .key("context_length", 32_768u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", n_layer)
        .key("feed_forward_length", n_ff_exp as u32)
        .key("expert_feed_forward_length", n_ff_exp as u32)
        .key("expert_count", n_expert as u32)
        .key("expert_used_count", 2u32)
        .key("attention.head_count", n_head as u32)
        .key("attention.head_count_kv", n_head_kv as u32)
        .key("attention.key_length", head as u32)
        .key("attention.value_length", head as u32)
        .key("rope.dimension_count", head as u32)
        .key("attention.sliding_window", 128u32)
        .key("rope.freq_base", 150_000f32)
        .key("attention.layer_norm_rms_epsilon", 1e-5f32)
        .embeddings(n_embd, "output_norm", true);
    for i in 0..n_layer {
        m = m
            .t(blk(i, "attn_norm.weight"), &[n_embd])
            .t(blk(i, "post_attention_norm.weight"), &[n_embd])
            .qkvo(i, n_embd, n_head * head, n_head_kv * head)
            .t(blk(i, "attn_sinks.weight"), &[n_head])
            .experts(i, n_embd, n_ff_exp, n_expert)
            .t(blk(i, "attn_output.bias"), &[n_embd])
            .t(blk(i, "ffn_gate_inp.bias"), &[n_expert])
            .f32(blk(i, "ffn_gate_exps.bias"), &[n_ff_exp, n_expert])
            .f32(blk(i, "ffn_down_exps.bias"), &[n_embd, n_expert])
            .f32(blk(i, "ffn_up_exps.bias"), &[n_ff_exp, n_expert]);
    }
    m.finish("gpt-oss-swa.gguf")
}

/// Llama 4 (Scout's shape): three layers of chunked attention to one global (llama.cpp's
/// chunk of 8192 when the file gives no `sliding_window`), every layer a mixture of experts
/// with a shared expert; experts twice as wide as `n_embd`, as Scout's are (8192 to 5120).
pub(super) fn llama4() -> BuiltModel {
    let (n_embd, n_head, n_head_kv, n_ff, n_layer) = (512u64, 8u64, 2u64, 2048u64, 8u32);
    let (n_ff_exp, n_expert) = (1024u64, 4u64);
    let head = n_embd / n_head;
    let mut m = Model::new("llama4", "Llama4-shaped chunked-attention test")
        .key("context_length", 32_768u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", n_layer)
        .key("feed_forward_length", n_ff as u32)
        .key("expert_feed_forward_length", n_ff_exp as u32)
        .key("expert_count", n_expert as u32)
        .key("expert_used_count", 1u32)
        .key("interleave_moe_layer_step", 1u32)
        .key("attention.head_count", n_head as u32)
        .key("attention.head_count_kv", n_head_kv as u32)
        .key("rope.dimension_count", head as u32)
        .key("rope.freq_base", 500_000f32)
        .key("attention.layer_norm_rms_epsilon", 1e-5f32)
        .embeddings(n_embd, "output_norm", true);
    for i in 0..n_layer {
        m = m
            .t(blk(i, "attn_norm.weight"), &[n_embd])
            .qkvo(i, n_embd, n_embd, n_head_kv * head)
            .t(blk(i, "ffn_norm.weight"), &[n_embd])
            .experts(i, n_embd, n_ff_exp, n_expert)
            .shared_expert(i, n_embd, n_ff_exp);
    }
    m.finish("llama4-chunked.gguf")
}

/// BERT: an encoder, which llama.cpp runs without a KV cache and with attention over the whole
/// batch (not causal); position embeddings, layer norms with biases.
pub(super) fn bert() -> BuiltModel {
    let (n_embd, n_head, n_ff, n_layer, n_ctx) = (384u64, 6u64, 1536u64, 4u32, 512u64);
    let mut m = Model::new("bert", "BERT-shaped encoder test")
        .key("context_length", n_ctx as u32)
        .key("embedding_length", n_embd as u32)
        .key("block_count", n_layer)
        .key("feed_forward_length", n_ff as u32)
        .key("attention.head_count", n_head as u32)
        .key("attention.layer_norm_epsilon", 1e-12f32)
        .key("attention.causal", false)
        .key("pooling_type", 1u32);
    m.b = m.b.kv("tokenizer.ggml.token_type_count", 2u32);
    m = m
        .t("token_embd.weight", &[n_embd, VOCAB])
        .t("token_types.weight", &[n_embd, 2])
        .t("position_embd.weight", &[n_embd, n_ctx])
        .t("token_embd_norm.weight", &[n_embd])
        .t("token_embd_norm.bias", &[n_embd]);
    let biases: Vec<(&str, u64)> = alloc::vec![
        ("attn_q.bias", n_embd),
        ("attn_k.bias", n_embd),
        ("attn_v.bias", n_embd),
        ("attn_output.bias", n_embd),
        ("attn_output_norm.weight", n_embd),
        ("attn_output_norm.bias", n_embd),
        ("ffn_up.bias", n_ff),
        ("ffn_down.bias", n_embd),
        ("layer_output_norm.weight", n_embd),
        ("layer_output_norm.bias", n_embd),
    ];
    for i in 0..n_layer {
        m = m
            .qkvo(i, n_embd, n_embd, n_embd)
            .t(blk(i, "ffn_up.weight"), &[n_embd, n_ff])
            .t(blk(i, "ffn_down.weight"), &[n_ff, n_embd]);
        for &(name, n) in &biases {
            m = m.t(blk(i, name), &[n]);
        }
    }
    m.finish("bert-encoder.gguf")
}
