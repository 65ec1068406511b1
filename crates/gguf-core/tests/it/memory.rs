//! The memory estimate against the arithmetic done by hand, on the GQA, MoE and Gemma fixtures
//! and on synthetic headers for per-layer KV heads, latent attention and recurrent models.

use gguf_core::memory::legacy::{CacheKind, KvType, MemoryError, MemoryOptions, estimate};
use gguf_core::testkit::GgufBuilder;
use gguf_core::{Array, Header};
use gguf_test_support::{gemma, read_header, restored_sparse};

fn options(context: Option<u64>, kv_type: KvType, parallel: u64) -> MemoryOptions {
    MemoryOptions {
        context,
        kv_type,
        parallel,
    }
}

fn sparse(name: &str) -> Header {
    read_header(&restored_sparse(name)).0.unwrap()
}

#[test]
fn gqa_llama() {
    gguf_test_support::needs_fixtures!();
    // TinyLlama-shaped: 22 layers, 32 heads, 4 KV heads, embedding 2048 → head size 2048/32 = 64.
    // Per token per layer: K 4×64 + V 4×64 = 512 values × 2 B (f16) = 1,024 B.
    // Context 2048: 22 × 2048 × 1024 = 46,137,344 B.
    let h = sparse("gqa-llama-1.1b.gguf");
    let e = estimate(&h, &MemoryOptions::default()).unwrap();
    assert_eq!((e.context, e.parallel, e.cache), (2048, 1, CacheKind::KeyValue));
    assert_eq!(e.groups.len(), 1);
    let g = e.groups[0];
    assert_eq!(
        (g.layers, g.cells, g.k_values, g.v_values, g.bytes_per_cell),
        (22, 2048, 256, 256, 1024)
    );
    assert_eq!(e.kv_cache, 22 * 2048 * 1024);
    assert_eq!(e.kv_cache, 46_137_344);
    // Weights: the tensors' bytes (704,385,024 in the reference summary).
    assert_eq!(e.weights, 704_385_024);
    // Compute: 4 B × 32,000 vocab × (512 + 1) = 65,664,000 B.
    assert_eq!(e.compute, 4 * 32_000 * 513);
    assert_eq!(e.total, 704_385_024 + 46_137_344 + 65_664_000);
    assert!(
        e.formula.iter().any(|l| l
            == "KV cache, 22 layers = 22 × 2,048 cells × 1,024 B (K 256 + V 256 values in f16) = 46,137,344 B"),
        "{:#?}",
        e.formula
    );

    // q8_0: 34 B per 32 values → 256 values = 8 blocks = 272 B for K and for V: 544 B per cell.
    // Four sequences of 4096 tokens: 22 × 16384 × 544 = 196,083,712 B.
    let q8 = estimate(&h, &options(Some(4096), KvType::Q8_0, 4)).unwrap();
    assert_eq!((q8.groups[0].cells, q8.groups[0].bytes_per_cell), (16384, 544));
    assert_eq!(q8.kv_cache, 196_083_712);
    // q4_0: 18 B per 32 values → 144 B each for K and V; f32: 4 B per value.
    assert_eq!(
        estimate(&h, &options(None, KvType::Q4_0, 1)).unwrap().kv_cache,
        22 * 2048 * 288
    );
    assert_eq!(
        estimate(&h, &options(None, KvType::F32, 1)).unwrap().kv_cache,
        22 * 2048 * 2048
    );
}

#[test]
fn moe_llama() {
    gguf_test_support::needs_fixtures!();
    // Mixtral-shaped: 4 layers, 32 heads, 8 KV heads, embedding 4096 → head size 128.
    // Per token per layer: (8×128 + 8×128) × 2 B = 4,096 B. Context 32768: 4 × 32768 × 4096.
    // Experts do not change the cache.
    let e = estimate(&sparse("moe-llama-8x.gguf"), &MemoryOptions::default()).unwrap();
    assert_eq!(e.kv_cache, 4 * 32768 * 4096);
    assert_eq!(e.kv_cache, 536_870_912);
    assert_eq!(e.weights, 3_935_952_896);
}

#[test]
fn gemma_sliding_window_layers() {
    gguf_test_support::needs_gemma!();
    // Gemma 3 270M: 18 layers, 1 KV head, key and value length 256, sliding window 512, no
    // pattern key → llama.cpp's period 6 for gemma3: layers 5, 11, 17 attend globally, the other
    // 15 slide. Per token per layer: (256 + 256) × 2 B = 1,024 B.
    // Global: 3 × 32768 × 1024 = 100,663,296; sliding: 15 × min(32768, 512) × 1024 = 7,864,320.
    let h = read_header(&gemma()).0.unwrap();
    let e = estimate(&h, &MemoryOptions::default()).unwrap();
    let (global, sliding) = (
        e.groups.iter().find(|g| !g.sliding).unwrap(),
        e.groups.iter().find(|g| g.sliding).unwrap(),
    );
    assert_eq!(
        (global.layers, global.cells, global.bytes),
        (3, 32768, 100_663_296)
    );
    assert_eq!(
        (sliding.layers, sliding.cells, sliding.bytes),
        (15, 512, 7_864_320)
    );
    assert_eq!(e.kv_cache, 108_527_616);
    // A context shorter than the window: every layer caches the context, 18 × 256 × 1024.
    let short = estimate(&h, &options(Some(256), KvType::F16, 1)).unwrap();
    assert_eq!(short.kv_cache, 18 * 256 * 1024);
    // Two sequences double both: 2 × 108,527,616.
    assert_eq!(
        estimate(&h, &options(None, KvType::F16, 2)).unwrap().kv_cache,
        217_055_232
    );
}

fn model(arch: &str) -> GgufBuilder {
    GgufBuilder::new()
        .kv("general.architecture", arch)
        .kv(format!("{arch}.context_length"), 1000u32)
        .kv(format!("{arch}.block_count"), 4u32)
        .kv(format!("{arch}.embedding_length"), 512u32)
        .kv(format!("{arch}.attention.head_count"), 8u32)
}

fn parse(b: GgufBuilder) -> Header {
    gguf_core::parse(&b.build()).unwrap()
}

#[test]
fn per_layer_kv_heads_and_an_explicit_pattern() {
    // KV heads 2, 0, 4, 1; head size 512/8 = 64: layer bytes per token (f32)
    // 2×64×2×4 = 1024, none, 2048, 512. Pattern period 2: layers 0 and 2 slide (window 100).
    // Sliding: 100 × 1024 + 100 × 2048 = 307,200; global: layer 3, 1000 × 512 = 512,000.
    let h = parse(
        model("hybrid")
            .kv("hybrid.attention.head_count_kv", Array::U32(vec![2, 0, 4, 1]))
            .kv("hybrid.attention.sliding_window", 100u32)
            .kv("hybrid.attention.sliding_window_pattern", 2u32),
    );
    let e = estimate(&h, &options(None, KvType::F32, 1)).unwrap();
    assert_eq!(e.kv_cache, 100 * 1024 + 100 * 2048 + 1000 * 512);
    assert_eq!(
        e.groups.iter().map(|g| g.layers).sum::<u64>(),
        3,
        "layer 1 has no cache"
    );
    assert!(e.notes.iter().any(|n| n.starts_with("1 layers have no KV heads")));
    // The pattern as one flag per layer: only layer 3 slides.
    let h = parse(
        model("hybrid")
            .kv("hybrid.attention.head_count_kv", Array::U32(vec![2, 0, 4, 1]))
            .kv("hybrid.attention.sliding_window", 100u32)
            .kv(
                "hybrid.attention.sliding_window_pattern",
                Array::Bool(vec![false, false, false, true]),
            ),
    );
    assert_eq!(
        estimate(&h, &options(None, KvType::F32, 1)).unwrap().kv_cache,
        1000 * 1024 + 1000 * 2048 + 100 * 512
    );
    // A short array is an error, not a guess.
    let h = parse(model("hybrid").kv("hybrid.attention.head_count_kv", Array::U32(vec![2, 2])));
    assert_eq!(
        estimate(&h, &MemoryOptions::default()),
        Err(MemoryError::ShortLayerArray {
            key: "attention.head_count_kv"
        })
    );
}

#[test]
fn gemma4_sliding_layers_use_their_own_head_sizes() {
    // Gemma 4-shaped: 6 layers, period 6 (layers 0-4 slide, layer 5 is global), window 1,024,
    // context 8,192; key/value length 512 for the global layer, 256 for sliding ones; KV heads
    // per layer [2, 2, 2, 2, 2, 1] (an array, as Gemma 4 writes it).
    // Sliding layer, per token: K 2 × 256 + V 2 × 256 = 1,024 values × 2 B (f16) = 2,048 B;
    //   5 layers × min(8,192, 1,024) = 1,024 cells × 2,048 B = 5 × 2,097,152 = 10,485,760 B.
    // Global layer, per token: K 1 × 512 + V 1 × 512 = 1,024 values × 2 B = 2,048 B;
    //   1 layer × 8,192 cells × 2,048 B = 16,777,216 B.
    // Total 27,262,976 B. With key_length (512) for every layer the sliding part would double:
    //   5 × 1,024 × (2 × 512 × 2 × 2 B = 4,096 B) = 20,971,520 B.
    let gemma4 = || {
        GgufBuilder::new()
            .kv("general.architecture", "gemma4")
            .kv("gemma4.context_length", 131_072u32)
            .kv("gemma4.block_count", 6u32)
            .kv("gemma4.embedding_length", 2560u32)
            .kv("gemma4.attention.head_count", 8u32)
            .kv(
                "gemma4.attention.head_count_kv",
                Array::U32(vec![2, 2, 2, 2, 2, 1]),
            )
            .kv("gemma4.attention.key_length", 512u32)
            .kv("gemma4.attention.value_length", 512u32)
            .kv("gemma4.attention.sliding_window", 1024u32)
            .kv("gemma4.attention.sliding_window_pattern", 6u32)
    };
    let h = parse(
        gemma4()
            .kv("gemma4.attention.key_length_swa", 256u32)
            .kv("gemma4.attention.value_length_swa", 256u32),
    );
    let e = estimate(&h, &options(Some(8192), KvType::F16, 1)).unwrap();
    let sliding = e.groups.iter().find(|g| g.sliding).unwrap();
    let global = e.groups.iter().find(|g| !g.sliding).unwrap();
    assert_eq!(
        (
            sliding.layers,
            sliding.cells,
            sliding.k_values,
            sliding.v_values,
            sliding.bytes_per_cell
        ),
        (5, 1024, 512, 512, 2048)
    );
    assert_eq!(sliding.bytes, 10_485_760);
    assert_eq!(
        (
            global.layers,
            global.cells,
            global.k_values,
            global.v_values,
            global.bytes_per_cell
        ),
        (1, 8192, 512, 512, 2048)
    );
    assert_eq!(global.bytes, 16_777_216);
    assert_eq!(e.kv_cache, 27_262_976);
    // Without the _swa keys every layer uses key_length and value_length, as llama.cpp does.
    let without = estimate(&parse(gemma4()), &options(Some(8192), KvType::F16, 1)).unwrap();
    assert_eq!(without.kv_cache, 20_971_520 + 16_777_216);
    // Only the key's size given for sliding layers: V keeps value_length.
    // Sliding: 5 × 1,024 × (2 × 256 + 2 × 512) × 2 B = 5 × 1,024 × 3,072 = 15,728,640 B.
    let k_only = estimate(
        &parse(gemma4().kv("gemma4.attention.key_length_swa", 256u32)),
        &options(Some(8192), KvType::F16, 1),
    )
    .unwrap();
    assert_eq!(k_only.kv_cache, 15_728_640 + 16_777_216);
}

#[test]
fn a_context_past_the_trained_one_is_noted() {
    let h = parse(model("llama"));
    let past = estimate(&h, &options(Some(4096), KvType::F16, 1)).unwrap();
    assert!(
        past.notes[0].starts_with("the context of 4,096 tokens is past the 1,000 the model was trained for"),
        "{:#?}",
        past.notes
    );
    for within in [None, Some(1000), Some(10)] {
        let e = estimate(&h, &options(within, KvType::F16, 1)).unwrap();
        assert!(!e.notes.iter().any(|n| n.contains("trained for")), "{within:?}");
    }
}

#[test]
fn layers_without_kv_heads_everywhere_are_a_recurrent_model() {
    // An all-state-space hybrid (granite-hybrid with head_count_kv = [0, 0]): no cache at all.
    let h = parse(
        GgufBuilder::new()
            .kv("general.architecture", "granitehybrid")
            .kv("granitehybrid.context_length", 4096u32)
            .kv("granitehybrid.block_count", 2u32)
            .kv("granitehybrid.attention.head_count", 8u32)
            .kv("granitehybrid.attention.head_count_kv", Array::U32(vec![0, 0])),
    );
    assert_eq!(h.summary().attention.kind, gguf_core::AttentionKind::None);
    let e = estimate(&h, &MemoryOptions::default()).unwrap();
    assert_eq!((e.cache, e.kv_cache), (CacheKind::Recurrent, 0));
}

#[test]
fn latent_attention_caches_rank_plus_rope_in_k_only() {
    // DeepSeek-style: kv_lora_rank 512, rope dims 64 → 576 values per token per layer in K, no V:
    // 576 × 2 B × 4 layers × 1000 = 4,608,000 B, whatever head_count_kv says.
    let h = parse(
        model("deepseek2")
            .kv("deepseek2.attention.head_count_kv", 8u32)
            .kv("deepseek2.attention.kv_lora_rank", 512u32)
            .kv("deepseek2.rope.dimension_count", 64u32)
            .kv("deepseek2.attention.key_length", 576u32),
    );
    let e = estimate(&h, &MemoryOptions::default()).unwrap();
    assert_eq!(e.cache, CacheKind::Latent);
    assert_eq!((e.groups[0].k_values, e.groups[0].v_values), (576, 0));
    assert_eq!(e.kv_cache, 576 * 2 * 4 * 1000);
    assert!(
        e.formula.iter().any(|l| l.contains("K 576 latent+rope values")),
        "{:#?}",
        e.formula
    );
}

#[test]
fn recurrent_models_have_no_kv_cache() {
    let h = parse(
        GgufBuilder::new()
            .kv("general.architecture", "mamba")
            .kv("mamba.context_length", 4096u32)
            .kv("mamba.block_count", 24u32)
            .kv("mamba.ssm.state_size", 16u32),
    );
    let e = estimate(&h, &MemoryOptions::default()).unwrap();
    assert_eq!(
        (e.cache, e.kv_cache, e.groups.len()),
        (CacheKind::Recurrent, 0, 0)
    );
    assert!(e.notes[0].starts_with("recurrent model: no KV cache"));
}

#[test]
fn what_cannot_be_estimated_says_why() {
    let h = parse(GgufBuilder::new().kv("general.architecture", "llama"));
    assert_eq!(
        estimate(&h, &MemoryOptions::default()),
        Err(MemoryError::NoContextLength)
    );
    assert_eq!(
        estimate(&h, &options(Some(10), KvType::F16, 1)),
        Err(MemoryError::NoLayers)
    );
    let h = parse(model("llama"));
    assert_eq!(
        estimate(&h, &options(Some(0), KvType::F16, 1)),
        Err(MemoryError::Zero)
    );
    assert_eq!(
        estimate(&h, &options(None, KvType::F16, 0)),
        Err(MemoryError::Zero)
    );
    // One KV head of 40 values does not fill q8_0 blocks of 32 (8 heads of 40 would).
    let odd = parse(
        model("llama")
            .kv("llama.attention.head_count_kv", 1u32)
            .kv("llama.attention.key_length", 40u32),
    );
    assert_eq!(
        estimate(&odd, &options(None, KvType::Q8_0, 1)),
        Err(MemoryError::PartialKvBlock {
            kv_type: KvType::Q8_0,
            values: 40
        })
    );
    // Hostile figures are errors, not panics or huge allocations.
    let huge = parse(
        GgufBuilder::new()
            .kv("general.architecture", "llama")
            .kv("llama.context_length", 1000u32)
            .kv("llama.block_count", u64::MAX),
    );
    assert_eq!(
        estimate(&huge, &MemoryOptions::default()),
        Err(MemoryError::TooManyLayers { layers: u64::MAX })
    );
    let h = parse(model("llama").kv("llama.vocab_size", 32_000u32));
    assert_eq!(
        estimate(&h, &options(Some(u64::MAX), KvType::F16, 1)),
        Err(MemoryError::Overflow)
    );
    assert_eq!(
        estimate(&h, &options(None, KvType::F16, u64::MAX)),
        Err(MemoryError::Overflow)
    );
    assert_eq!(KvType::from_name("q8_0"), Some(KvType::Q8_0));
    assert_eq!(KvType::from_name("q5_1"), None);
}
