//! The summary on synthetic models with known answers: attention kinds, experts and active
//! parameters, bits per weight and the type mix, per-layer arrays (which must never crash).

use gguf_core::testkit::{GgufBuilder, strings};
use gguf_core::{Array, AttentionKind, GgmlType, Summary};

fn summary(b: GgufBuilder) -> Summary {
    gguf_core::parse(&b.build()).unwrap().summary()
}

fn llama() -> GgufBuilder {
    GgufBuilder::new().kv("general.architecture", "llama")
}

fn heads(h: impl Into<gguf_core::Value>, kv: Option<gguf_core::Value>) -> Summary {
    let mut b = llama().kv("llama.attention.head_count", h);
    if let Some(kv) = kv {
        b = b.kv("llama.attention.head_count_kv", kv);
    }
    summary(b)
}

/// `(layers, heads, kv_heads, kind, group_size)` of each of the attention's layer groups.
fn groups(a: &gguf_core::Attention) -> Vec<(u64, u64, u64, AttentionKind, Option<u64>)> {
    a.layer_groups
        .iter()
        .map(|g| (g.layers, g.heads, g.kv_heads, g.kind, g.group_size))
        .collect()
}

#[test]
fn attention_kinds() {
    let a = heads(32u32, None).attention;
    assert_eq!(
        (a.kind, a.heads, a.kv_heads, a.group_size),
        (AttentionKind::Mha, Some(32), Some(32), Some(1))
    );
    let a = heads(32u32, Some(32u32.into())).attention;
    assert_eq!(a.kind, AttentionKind::Mha);
    let a = heads(32u32, Some(8u32.into())).attention;
    assert_eq!(
        (a.kind, a.kv_heads, a.group_size),
        (AttentionKind::Gqa, Some(8), Some(4))
    );
    assert_eq!(a.kind.name(), "GQA");
    let a = heads(71u32, Some(1u32.into())).attention;
    assert_eq!((a.kind, a.group_size), (AttentionKind::Mqa, Some(71)));
    // Counts written as u64 or i32 by other writers are read the same.
    let a = heads(32u64, Some(4i32.into())).attention;
    assert_eq!((a.kind, a.group_size), (AttentionKind::Gqa, Some(8)));
    // Not a divisor: inconsistent, so not labelled.
    let a = heads(32u32, Some(5u32.into())).attention;
    assert_eq!((a.kind, a.group_size), (AttentionKind::Unknown, None));
    assert_eq!(summary(llama()).attention.kind, AttentionKind::Unknown);
    // No layer has a KV head (an all-state-space hybrid): no attention, not "unknown".
    for kv in [Array::U32(vec![0, 0]).into(), 0u32.into()] {
        let a = heads(32u32, Some(kv)).attention;
        assert_eq!(
            (a.kind, a.kind.name(), a.group_size),
            (AttentionKind::None, "none", None)
        );
    }
    let a = heads(Array::U32(vec![32, 16]), Some(Array::U32(vec![0, 0]).into())).attention;
    assert_eq!(a.kind, AttentionKind::None);
    // Some layers with KV heads and some without: per-layer, as before.
    let a = heads(32u32, Some(Array::U32(vec![0, 8]).into())).attention;
    assert_eq!(a.kind, AttentionKind::PerLayer);
}

#[test]
fn multi_head_latent_attention() {
    let s = summary(
        GgufBuilder::new()
            .kv("general.architecture", "deepseek2")
            .kv("deepseek2.attention.head_count", 128u32)
            .kv("deepseek2.attention.head_count_kv", 128u32)
            .kv("deepseek2.attention.kv_lora_rank", 512u32)
            .kv("deepseek2.attention.q_lora_rank", 1536u32)
            .kv("deepseek2.attention.key_length", 192u32),
    );
    let a = s.attention;
    assert_eq!(
        (a.kind, a.kv_lora_rank, a.q_lora_rank, a.key_length),
        (AttentionKind::Mla, Some(512), Some(1536), Some(192))
    );
    assert_eq!(a.kind.name(), "MLA");
}

#[test]
fn per_layer_head_counts() {
    // A hybrid model: layers with 0 KV heads have no attention.
    let a = heads(32u32, Some(Array::U32(vec![0, 8, 0, 8]).into())).attention;
    assert_eq!(a.kind, AttentionKind::PerLayer);
    assert_eq!(a.kind.name(), "per-layer");
    assert_eq!((a.heads, a.kv_heads, a.group_size), (Some(32), None, None));
    assert_eq!(a.kv_heads_per_layer, Some(vec![0, 8, 0, 8]));
    assert_eq!(
        groups(&a),
        [
            (2, 32, 0, AttentionKind::None, None),
            (2, 32, 8, AttentionKind::Gqa, Some(4))
        ]
    );
    // Gemma 4: grouped-query attention in every layer, with 8 KV heads in the sliding-window
    // layers and 2 in every sixth; the groups in the order first met.
    let pattern: Vec<u32> = (0..30).map(|i| if i % 6 == 5 { 2 } else { 8 }).collect();
    let a = heads(16u32, Some(Array::U32(pattern).into())).attention;
    assert_eq!(a.kind, AttentionKind::PerLayer);
    assert_eq!(
        groups(&a),
        [
            (25, 16, 8, AttentionKind::Gqa, Some(2)),
            (5, 16, 2, AttentionKind::Gqa, Some(8))
        ]
    );
    // Varying query heads (OpenELM).
    let a = heads(
        Array::I32(vec![12, 12, 16, 20]),
        Some(Array::I32(vec![3, 3, 4, 5]).into()),
    )
    .attention;
    assert_eq!(a.kind, AttentionKind::PerLayer);
    assert_eq!(a.heads_per_layer, Some(vec![12, 12, 16, 20]));
    assert_eq!(
        groups(&a),
        [
            (2, 12, 3, AttentionKind::Gqa, Some(4)),
            (1, 16, 4, AttentionKind::Gqa, Some(4)),
            (1, 20, 5, AttentionKind::Gqa, Some(4))
        ]
    );
    // Query heads per layer without KV heads: as many KV heads as query heads, layer by layer.
    let a = heads(Array::U32(vec![8, 4, 8]), None).attention;
    assert_eq!(
        groups(&a),
        [
            (2, 8, 8, AttentionKind::Mha, Some(1)),
            (1, 4, 4, AttentionKind::Mha, Some(1))
        ]
    );
    // Arrays of different lengths: no layer's counts can be trusted, so no groups.
    let a = heads(Array::U32(vec![8, 4]), Some(Array::U32(vec![2, 2, 1]).into())).attention;
    assert_eq!((a.kind, groups(&a)), (AttentionKind::PerLayer, vec![]));
    // An array whose values agree is one value.
    let a = heads(Array::U32(vec![32; 4]), Some(Array::U32(vec![8; 4]).into())).attention;
    assert_eq!(
        (a.kind, a.heads, a.kv_heads, a.group_size, a.heads_per_layer),
        (AttentionKind::Gqa, Some(32), Some(8), Some(4), None)
    );
    assert!(a.layer_groups.is_empty(), "the same in every layer: no groups");
    // Nonsense arrays never crash: strings, negatives, empty, nested.
    for weird in [
        Array::String(["a", "b"].iter().collect()),
        Array::I32(vec![-1, 4]),
        Array::U8(vec![]),
        Array::Array(vec![Array::U8(vec![1])]),
    ] {
        let s = heads(weird.clone(), Some(weird.into()));
        assert_eq!(s.attention.kind, AttentionKind::Unknown);
    }
}

#[test]
fn no_attention() {
    let s = summary(
        GgufBuilder::new()
            .kv("general.architecture", "mamba")
            .kv("mamba.ssm.state_size", 16u32)
            .kv("mamba.ssm.conv_kernel", 4u32),
    );
    assert_eq!(s.attention.kind, AttentionKind::None);
    assert_eq!(s.attention.kind.name(), "none");
    assert_eq!(heads(0u32, Some(0u32.into())).attention.kind, AttentionKind::None);
}

#[test]
fn sliding_window_and_lengths() {
    let s = summary(
        llama()
            .kv("llama.attention.head_count", 8u32)
            .kv("llama.attention.head_count_kv", 4u32)
            .kv("llama.attention.key_length", 256u32)
            .kv("llama.attention.value_length", 128u32)
            .kv("llama.attention.sliding_window", 4096u32),
    );
    let a = s.attention;
    assert_eq!(
        (a.key_length, a.value_length, a.sliding_window),
        (Some(256), Some(128), Some(4096))
    );
}

/// A small mixture of 8 experts, 2 used, with a shared expert: active parameters by hand.
#[test]
fn experts_and_active_parameters() {
    let (embd, ff, experts) = (64u64, 128u64, 8u64);
    let b = llama()
        .kv("llama.expert_count", 8u32)
        .kv("llama.expert_used_count", 2u32)
        .kv("llama.expert_shared_count", 1u32)
        .tensor("token_embd.weight", &[embd, 100], GgmlType::F16)
        .tensor("blk.0.ffn_gate_inp.weight", &[embd, experts], GgmlType::F32)
        .tensor("blk.0.ffn_gate_exps.weight", &[embd, ff, experts], GgmlType::Q8_0)
        .tensor("blk.0.ffn_up_exps.weight", &[embd, ff, experts], GgmlType::Q8_0)
        .tensor("blk.0.ffn_down_exps.weight", &[ff, embd, experts], GgmlType::Q8_0)
        .tensor("blk.0.ffn_up_shexp.weight", &[embd, ff], GgmlType::Q8_0);
    let s = summary(b);
    let dense = embd * 100 + embd * experts + embd * ff;
    let expert = 3 * embd * ff * experts;
    assert_eq!(s.parameters, Some(dense + expert));
    let e = s.experts.unwrap();
    assert_eq!(
        (e.count, e.used, e.shared, e.expert_parameters),
        (8, Some(2), Some(1), expert)
    );
    assert_eq!(s.active_parameters, Some(dense + expert * 2 / 8));
}

/// Older Mixtral files store one tensor per expert: `blk.N.ffn_up.E.weight`.
#[test]
fn per_expert_tensors_count_as_experts() {
    let mut b = llama()
        .kv("llama.expert_count", 4u32)
        .kv("llama.expert_used_count", 1u32);
    for e in 0..4 {
        b = b.tensor(format!("blk.0.ffn_up.{e}.weight"), &[32, 10], GgmlType::F32);
    }
    let s = summary(b.tensor("blk.0.ffn_up.weight", &[32, 10], GgmlType::F32));
    assert_eq!(s.experts.unwrap().expert_parameters, 4 * 320);
    assert_eq!(s.active_parameters, Some(320 + 320));
    // A dense model's active parameters are all of them; without a used count, unknown.
    let dense = summary(llama().tensor("a", &[10], GgmlType::F32));
    assert_eq!((dense.experts, dense.active_parameters), (None, Some(10)));
    let unknown = summary(llama().kv("llama.expert_count", 4u32).tensor(
        "blk.0.ffn_up_exps.weight",
        &[8, 4],
        GgmlType::F32,
    ));
    assert_eq!(unknown.active_parameters, None);
}

#[test]
fn bits_per_weight_and_type_mix() {
    let s = summary(
        llama()
            .kv("general.file_type", 15u32)
            .tensor("blk.0.attn_q.weight", &[256, 256], GgmlType::Q4_K) // 36,864 bytes
            .tensor("blk.0.ffn_down.weight", &[256, 256], GgmlType::Q6_K) // 53,760 bytes
            .tensor("blk.0.attn_norm.weight", &[256], GgmlType::F32) // 1,024 bytes
            .tensor("odd", &[10], GgmlType(139)), // unknown: counted, not sized
    );
    assert_eq!(s.parameters, Some(2 * 65_536 + 256 + 10));
    assert_eq!(s.tensor_bytes, 36_864 + 53_760 + 1_024);
    let bpw = s.bits_per_weight.unwrap();
    assert_eq!(bpw, 8.0 * 91_648.0 / 131_328.0);
    let names: Vec<String> = s.types.iter().map(|t| t.ty.to_string()).collect();
    assert_eq!(names, ["Q6_K", "Q4_K", "F32", "unknown type 139"]);
    assert_eq!(s.types[3].bytes, None);
    assert_eq!(s.file_type.unwrap().label(), Some("Q4_K_M"));
    // The tensors of a tenth of the bytes or more not of Q4_K_M's own Q4_K: ffn_down (59%); not
    // attn_q (40%, Q4_K).
    let largest: Vec<(usize, u64)> = s.dominant_tensors.iter().map(|l| (l.index, l.bytes)).collect();
    assert_eq!(largest, [(1, 53_760)]);
}

#[test]
fn dominant_tensors_are_a_tenth_or_more_and_at_most_three() {
    // Without a file type, four alike, a quarter each: the first three met.
    let mut b = llama();
    for i in 0..4 {
        b = b.tensor(format!("blk.{i}.ffn_up.weight"), &[64, 64], GgmlType::F16);
    }
    let largest: Vec<usize> = summary(b).dominant_tensors.iter().map(|l| l.index).collect();
    assert_eq!(largest, [0, 1, 2]);
    // Eleven alike, each under a tenth: none stands out.
    let mut b = llama();
    for i in 0..11 {
        b = b.tensor(format!("blk.{i}.ffn_up.weight"), &[64, 64], GgmlType::F16);
    }
    assert!(summary(b).dominant_tensors.is_empty());
    // Nothing of a known size, nothing to name.
    assert!(
        summary(llama().tensor("odd", &[10], GgmlType(139)))
            .dominant_tensors
            .is_empty()
    );
    assert!(summary(llama()).dominant_tensors.is_empty());
    // All of the file type's own type (ALL_F32): nothing pulls the figure away.
    let b = llama()
        .kv("general.file_type", 0u32)
        .tensor("blk.0.ffn_up.weight", &[64, 64], GgmlType::F32);
    assert!(summary(b).dominant_tensors.is_empty());
}

#[test]
fn overflowing_parameter_count_is_none() {
    let s = summary(llama().tensor("a", &[1 << 40, 1 << 30], GgmlType::F32).tensor(
        "b",
        &[1 << 63, 4],
        GgmlType::F32,
    ));
    assert_eq!(s.parameters, None);
    assert_eq!(s.active_parameters, None);
}

#[test]
fn model_facts() {
    let s = summary(
        GgufBuilder::new()
            .kv("general.architecture", "qwen2")
            .kv("general.name", "Qwen2 Tiny")
            .kv("general.size_label", "0.5B")
            .kv("qwen2.context_length", 32768u32)
            .kv("qwen2.embedding_length", 896u32)
            .kv("qwen2.block_count", 24u32)
            .kv("qwen2.feed_forward_length", 4864u32)
            .kv("qwen2.vocab_size", 999u32)
            .kv("qwen2.rope.freq_base", 1_000_000f32)
            .kv("qwen2.rope.scaling.type", "yarn")
            .kv("qwen2.rope.scaling.factor", 4f32)
            .kv("qwen2.rope.scaling.original_context_length", 32768u32)
            .kv("tokenizer.ggml.model", "gpt2")
            .kv("tokenizer.ggml.pre", "qwen2")
            .kv("tokenizer.ggml.tokens", strings(&["a", "b", "c"])),
    );
    assert_eq!(s.architecture.as_deref(), Some("qwen2"));
    assert_eq!(
        (s.name.as_deref(), s.size_label.as_deref()),
        (Some("Qwen2 Tiny"), Some("0.5B"))
    );
    assert_eq!(
        (s.context_length, s.embedding_length, s.block_count),
        (Some(32768), Some(896), Some(24))
    );
    assert_eq!(s.feed_forward_length, Some(4864));
    assert_eq!(
        s.vocab_size,
        Some(3),
        "the token list wins over {{arch}}.vocab_size"
    );
    assert_eq!(
        (s.tokenizer_model.as_deref(), s.tokenizer_pre.as_deref()),
        (Some("gpt2"), Some("qwen2"))
    );
    assert_eq!(s.rope.freq_base, Some(1_000_000.0));
    assert_eq!(
        (
            s.rope.scaling_type.as_deref(),
            s.rope.scaling_factor,
            s.rope.original_context_length
        ),
        (Some("yarn"), Some(4.0), Some(32768))
    );
}
