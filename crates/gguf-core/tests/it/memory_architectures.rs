//! `memory::buffers` by architecture: llama.cpp's refusals and the architectures ggufscope does
//! not size give their error instead of a figure; the rules of architectures outside the
//! reference data (looped layers, Kimi's delta attention, MiniMax's lightning attention), on
//! hand-computed models; and the wider compute range outside the reference data.

use gguf_core::memory::{self, Devices, MemoryError, Options};
use gguf_core::testkit::GgufBuilder;
use gguf_core::{Array, GgmlType, Header, Value};

/// A 4-layer attention model of `arch` with 4 heads of 64 (`kvs` added to its keys, by suffix).
fn model(arch: &str, kvs: Vec<(&str, Value)>) -> Header {
    let mut b = GgufBuilder::new()
        .kv("general.architecture", arch)
        .kv(format!("{arch}.context_length"), 4096u32)
        .kv(format!("{arch}.block_count"), 4u32)
        .kv(format!("{arch}.embedding_length"), 256u32)
        .kv(format!("{arch}.feed_forward_length"), 1024u32)
        .kv(format!("{arch}.attention.head_count"), 4u32)
        .kv(format!("{arch}.vocab_size"), 1000u32)
        .tensor("token_embd.weight", &[256, 1000], GgmlType::F32);
    for (suffix, value) in kvs {
        b = b.kv(format!("{arch}.{suffix}"), value);
    }
    for il in 0..4 {
        b = b.tensor(format!("blk.{il}.ffn_up.weight"), &[256, 1024], GgmlType::F32);
        b = b.tensor(format!("blk.{il}.ffn_down.weight"), &[1024, 256], GgmlType::F32);
    }
    gguf_core::parse(&b.build()).unwrap()
}

fn one_sequence() -> Options {
    Options {
        ctx: 4096,
        parallel: Some(1),
        ..Options::default()
    }
}

/// The estimate's error, and the plan's, which must be the same.
fn refusal(h: &Header) -> MemoryError {
    let err = memory::buffers(h, &one_sequence()).unwrap_err();
    let devices = Devices {
        ram: 1 << 40,
        gpus: vec![],
        margin: 0,
    };
    let planned = memory::plan(h, &one_sequence(), &devices, vec![]).unwrap_err();
    assert_eq!(planned, err);
    err
}

#[test]
fn an_architecture_llama_cpp_does_not_know_is_refused_by_name() {
    let err = refusal(&model("llama5", vec![]));
    assert_eq!(
        err,
        MemoryError::UnknownArchitecture {
            architecture: "llama5".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "llama.cpp (0c1e570) does not know the architecture \"llama5\": it refuses the model"
    );
    // Names are matched exactly, as llama.cpp's `llm_arch_from_string` does.
    assert!(matches!(
        refusal(&model("Llama", vec![])),
        MemoryError::UnknownArchitecture { .. }
    ));
}

#[test]
fn a_hostile_architecture_name_is_shown_visibly() {
    let err = refusal(&model("llama\u{202e}\u{200b}\n", vec![]));
    let message = err.to_string();
    assert!(!message.contains(['\u{202e}', '\u{200b}', '\n']), "{message:?}");
    assert!(message.contains("\"llama"), "{message}");
}

#[test]
fn clip_and_a_gemma_4_assistant_do_not_run_on_their_own() {
    let clip = refusal(&model("clip", vec![]));
    assert!(matches!(clip, MemoryError::Refused { .. }));
    assert_eq!(
        clip.to_string(),
        "llama.cpp refuses it: CLIP cannot be used as main model, use it with --mmproj instead"
    );
    let assistant = refusal(&model("gemma4-assistant", vec![]));
    assert!(matches!(assistant, MemoryError::Refused { .. }));
    assert!(
        assistant.to_string().contains("beside its Gemma 4 model"),
        "{assistant}"
    );
}

#[test]
fn architectures_whose_memory_is_not_sized_say_why() {
    for (arch, why) in [
        ("t5", "encoder-decoder"),
        ("deepseek32", "llama_kv_cache_dsa"),
        ("deepseek4", "llama_kv_cache_dsv4"),
        ("qwen4exp", "llama_memory_hybrid_idx"),
        ("eagle3", "draft model"),
    ] {
        let err = refusal(&model(arch, vec![]));
        assert!(
            matches!(&err, MemoryError::NotSized { architecture, .. } if architecture == arch),
            "{arch}: {err:?}"
        );
        let message = err.to_string();
        assert!(
            message.starts_with(&format!("not sized: llama.cpp runs {arch}, but ")),
            "{message}"
        );
        assert!(message.contains(why), "{message}");
    }
}

#[test]
fn hunyuan_v4_is_sized_without_an_indexer_only() {
    let sized = memory::buffers(&model("hy_v4", vec![]), &one_sequence()).unwrap();
    assert_eq!(sized.kv_cache(), 2 * 4 * 4096 * 256 * 2);
    let no_top_k = model("hy_v4", vec![("attention.indexer.top_k", 0u32.into())]);
    assert_eq!(memory::buffers(&no_top_k, &one_sequence()), Ok(sized));
    let indexer = model("hy_v4", vec![("attention.indexer.top_k", 64u32.into())]);
    assert!(matches!(refusal(&indexer), MemoryError::NotSized { .. }));
}

#[test]
fn nanbeige_keeps_a_cache_for_each_loop_over_its_layers() {
    let once = memory::buffers(&model("nanbeige", vec![]), &one_sequence()).unwrap();
    let twice = memory::buffers(
        &model("nanbeige", vec![("num_loops", 2u32.into())]),
        &one_sequence(),
    )
    .unwrap();
    // 4 layers, 4 KV heads of 64, 4096 cells of f16.
    assert_eq!(once.kv_k(), 4 * 4096 * 256 * 2);
    assert_eq!(twice.kv[0].layers, 8);
    assert_eq!(twice.kv_k(), 2 * once.kv_k());
    assert_eq!(twice.kv_v(), 2 * once.kv_v());
    // The weights are the file's: the loops run the same ones.
    assert_eq!(twice.model, once.model);
    // A per-layer array gives the file's layers, repeated for each loop.
    let per_layer = model(
        "nanbeige",
        vec![
            ("num_loops", 2u32.into()),
            ("attention.head_count_kv", Array::U32(vec![4, 2, 2, 1]).into()),
        ],
    );
    let b = memory::buffers(&per_layer, &one_sequence()).unwrap();
    assert_eq!(b.kv_k(), 2 * (4 + 2 + 2 + 1) * 64 * 4096 * 2);
}

#[test]
fn kimi_linear_keeps_a_delta_attention_state_in_its_recurrent_layers() {
    // Layers with no KV heads are KDA layers; the last one is attention.
    let h = model(
        "kimi-linear",
        vec![
            ("attention.head_count_kv", Array::U32(vec![0, 0, 0, 4]).into()),
            ("kda.head_dim", 32u32.into()),
            ("ssm.conv_kernel", 4u32.into()),
        ],
    );
    let b = memory::buffers(&h, &one_sequence()).unwrap();
    let r = b.recurrent.expect("a recurrent state");
    assert_eq!(r.layers, 3);
    // A convolution state for Q, K and V: 3 × (kernel − 1) × heads × head size; a head size
    // squared a head.
    assert_eq!(r.r_values, 3 * 3 * 4 * 32);
    assert_eq!(r.s_values, 32 * 32 * 4);
    assert_eq!(b.kv[0].layers, 1);
}

#[test]
fn minimax_01_has_one_attention_layer_in_eight_by_default() {
    let h = GgufBuilder::new()
        .kv("general.architecture", "minimax-01")
        .kv("minimax-01.context_length", 4096u32)
        .kv("minimax-01.block_count", 16u32)
        .kv("minimax-01.embedding_length", 256u32)
        .kv("minimax-01.attention.head_count", 4u32)
        .kv("minimax-01.vocab_size", 1000u32)
        .tensor("token_embd.weight", &[256, 1000], GgmlType::F32)
        .build();
    let b = memory::buffers(&gguf_core::parse(&h).unwrap(), &one_sequence()).unwrap();
    assert_eq!(b.kv[0].layers, 2);
    let r = b.recurrent.expect("a recurrent state");
    assert_eq!(r.layers, 14);
    // Lightning attention's state: a head's key size squared, each head.
    assert_eq!(r.s_values, 64 * 64 * 4);
}

#[test]
fn outside_the_reference_data_the_compute_range_is_wider() {
    let held = memory::buffers(&model("llama", vec![]), &one_sequence()).unwrap();
    let other = memory::buffers(&model("mistral3", vec![]), &one_sequence()).unwrap();
    assert_eq!(other.compute.bytes, held.compute.bytes);
    assert!(other.compute.low < held.compute.low, "{other:?}");
    assert!(other.compute.high > held.compute.high, "{other:?}");
}
