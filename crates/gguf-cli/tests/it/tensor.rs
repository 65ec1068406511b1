//! `ggufscope tensor` and `ggufscope info --ctx/--kv-type/--parallel` run as a user would:
//! values against the reference implementation's, exit statuses, messages, bytes read.

use crate::cli::{ggufscope, temp_file};
use gguf_core::GgmlType;
use gguf_core::testkit::GgufBuilder;
use gguf_test_support::{fixture, gemma, restored_sparse};
use serde_json::Value as Json;

fn json_of(args: &[&str]) -> Json {
    let out = ggufscope(args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn reference(rel: &str) -> Json {
    serde_json::from_str(&std::fs::read_to_string(fixture(rel)).unwrap()).unwrap()
}

fn floats(v: &Json) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

#[test]
fn first_row_of_a_gemma_tensor_matches_the_reference() {
    let r = &reference("ref/gemma-3-270m-q4_k_m.gguf.dequant.json")["Q5_0"];
    let expected = floats(&r["values"]);
    let gemma = gemma();
    let doc = json_of(&[
        "tensor",
        gemma.to_str().unwrap(),
        "blk.0.attn_k.weight",
        "--rows",
        "1",
        "--json",
    ]);
    assert_eq!(doc["type"], "Q5_0");
    assert_eq!(doc["dims"], serde_json::json!([640, 256]));
    assert_eq!(doc["offset"], r["row_abs_offset"]);
    assert_eq!(
        (doc["rows"].as_u64(), doc["elements"].as_u64()),
        (Some(1), Some(640))
    );
    // One row of 440 bytes, read once (one read holds it for both passes) and nothing else.
    assert_eq!(doc["bytes"], r["row_bytes"]);
    assert_eq!(doc["bytes_read"].as_u64(), Some(440));
    let s = &doc["stats"];
    assert_eq!(s["count"], 640);
    assert_eq!(floats(&s["first"]), expected[..16]);
    let min = expected.iter().copied().fold(f32::INFINITY, f32::min);
    let max = expected.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    assert_eq!(
        (s["min"].as_f64(), s["max"].as_f64()),
        (Some(f64::from(min)), Some(f64::from(max)))
    );
    let mean = expected.iter().map(|&v| f64::from(v)).sum::<f64>() / 640.0;
    let var = expected
        .iter()
        .map(|&v| (f64::from(v) - mean).powi(2))
        .sum::<f64>()
        / 640.0;
    assert!((s["mean"].as_f64().unwrap() - mean).abs() < 1e-12);
    assert!((s["std_dev"].as_f64().unwrap() - var.sqrt()).abs() < 1e-12);
    assert_eq!(s["zeros"], expected.iter().filter(|&&v| v == 0.0).count());
    assert_eq!(
        (s["nan"].as_u64(), s["all_zero"].as_bool()),
        (Some(0), Some(false))
    );
    let counts = s["histogram"]["counts"].as_array().unwrap();
    assert_eq!(counts.len(), 20);
    assert_eq!(counts.iter().map(|c| c.as_u64().unwrap()).sum::<u64>(), 640);
}

#[test]
fn whole_tensor_as_text() {
    let gemma = gemma();
    let out = ggufscope(["tensor", gemma.to_str().unwrap(), "blk.0.attn_q.weight"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // Q5_0 [640, 1024]: 1024 rows of 640/32 × 22 = 440 bytes = 450,560 bytes, in one read.
    assert!(
        text.contains("type          Q5_0 [640, 1,024], 655,360 values"),
        "{text}"
    );
    assert!(
        text.contains("1,024 of 1,024 rows: 655,360 values from 450.6 kB"),
        "{text}"
    );
    assert!(text.contains("read          450.6 kB in 1 read "), "{text}");
    assert!(text.contains("non-finite    0 NaN, 0 +inf, 0 -inf"), "{text}");
}

#[test]
fn big_endian_tensors_read_as_the_little_endian_values() {
    let expected = reference("synth/quants.expected.json");
    let be = fixture("synth/quants-be.gguf");
    for name in ["q.q8_0", "q.q4_0", "q.bf16"] {
        let doc = json_of(&["tensor", be.to_str().unwrap(), name, "--json"]);
        assert_eq!(doc["stats"]["count"], 512, "{name}");
        assert_eq!(
            floats(&doc["stats"]["first"]),
            floats(&expected["tensors"][name]["values"])[..16],
            "{name}"
        );
    }
}

#[test]
fn a_zeroed_sparse_tensor_is_flagged() {
    let path = restored_sparse("gqa-llama-1.1b.gguf");
    let out = ggufscope([
        "tensor",
        path.to_str().unwrap(),
        "token_embd.weight",
        "--rows",
        "2",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("2 of 32,000 rows: 4,096 values from 2.3 kB"),
        "{text}"
    );
    assert!(
        text.contains("zeros         4,096 — every value is zero: a sparse or damaged file?"),
        "{text}"
    );
}

#[test]
fn an_unknown_name_exits_2_with_suggestions() {
    let gemma = gemma();
    let out = ggufscope(["tensor", gemma.to_str().unwrap(), "blk.0.attn_qq.weight"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("no tensor named \"blk.0.attn_qq.weight\"; did you mean blk.0.attn_q.weight,"),
        "{err}"
    );
    let out = ggufscope([
        "tensor",
        gemma.to_str().unwrap(),
        "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("`ggufscope info --json FILE` lists them")
    );
}

#[test]
fn an_undecodable_type_exits_2_and_says_why() {
    let bytes = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .tensor("old.weight", &[32, 2], GgmlType::Q4_0_4_4)
        .tensor("odd.weight", &[4], GgmlType(200))
        .with_tensor_data()
        .build();
    let path = temp_file("tensor-cli", "undecodable.gguf", &bytes);
    let out = ggufscope(["tensor", path.to_str().unwrap(), "old.weight"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("tensor \"old.weight\": Q4_0_4_4 cannot be decoded: ggml removed this type"),
        "{err}"
    );
    let out = ggufscope(["tensor", path.to_str().unwrap(), "odd.weight"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("unknown type 200 cannot be decoded: ggml never assigned this type id"),
        "{err}"
    );
}

#[test]
fn an_overflowing_offset_or_size_is_said_to_overflow() {
    let bytes = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .tensor("huge.weight", &[1024, 1 << 32, 1 << 32], GgmlType::F32)
        .tensor("wide.weight", &[1 << 62], GgmlType::F64)
        .tensor("long.weight", &[1024, 1 << 53], GgmlType::F32)
        .tensor_at("far.weight", &[1024], GgmlType::F32, u64::MAX - 31)
        .tensor_at(
            "late.weight",
            &[1024, 1024],
            GgmlType::F32,
            u64::MAX - (1 << 20) + 1,
        )
        .build();
    let path = temp_file("tensor-cli", "overflows.gguf", &bytes);
    for (name, says) in [
        (
            "huge.weight",
            "the tensor's element count (the product of its dimensions) overflows 64 bits",
        ),
        ("wide.weight", "the tensor's size in bytes overflows 64 bits"),
        ("long.weight", "the tensor's size in bytes overflows 64 bits"),
        (
            "far.weight",
            "the tensor's offset plus the data section's start overflows 64 bits",
        ),
        (
            "late.weight",
            "the tensor's offset plus its size overflows 64 bits",
        ),
    ] {
        let out = ggufscope(["tensor", path.to_str().unwrap(), name]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.ends_with(&format!("tensor \"{name}\": {says}\n")), "{err}");
    }
}

#[test]
fn info_prints_the_memory_estimate_with_its_formula() {
    let path = restored_sparse("gqa-llama-1.1b.gguf");
    let p = path.to_str().unwrap();
    // 22 layers × 4096 cells × 544 B (K 256 + V 256 values in q8_0: 2 × 8 blocks × 34 B).
    let doc = json_of(&["info", p, "--json", "--ctx", "4096", "--kv-type", "q8_0"]);
    let m = &doc["memory"];
    assert_eq!(
        (
            m["context"].as_u64(),
            m["kv_type"].as_str(),
            m["parallel"].as_u64()
        ),
        (Some(4096), Some("q8_0"), Some(1))
    );
    assert_eq!(m["kv_cache"].as_u64(), Some(22 * 4096 * 544));
    assert_eq!(m["groups"][0]["bytes_per_cell"], 544);
    assert_eq!(
        m["total"].as_u64(),
        Some(704_385_024 + 22 * 4096 * 544 + 4 * 32_000 * 513)
    );
    // Without the flags the JSON document is as before.
    assert!(json_of(&["info", p, "--json"]).get("memory").is_none());

    let out = ggufscope(["info", p, "--parallel", "2"]);
    let text = String::from_utf8(out.stdout).unwrap();
    // Model context 2048, two sequences, f16: 22 × 4096 × 1024 B = 92,274,688 B.
    assert!(text.contains("memory        "), "{text}");
    assert!(
        text.contains("KV cache, 22 layers = 22 × 4,096 cells (2,048 × 2 sequences) × 1,024 B (K 256 + V 256 values in f16) = 92,274,688 B"),
        "{text}"
    );
    assert!(text.contains("note: not modelled:"), "{text}");

    let bad = ggufscope(["info", p, "--kv-type", "q5_1"]);
    assert_eq!(bad.status.code(), Some(2), "clap refuses an unknown KV type");
    // A vocabulary-only file: the cache its hyperparameters imply, weights 0, and a note.
    let vocab = fixture("real/ggml-vocab-llama-spm.gguf");
    let text = String::from_utf8(ggufscope(["info", vocab.to_str().unwrap()]).stdout).unwrap();
    assert!(text.contains("weights 0 B + KV cache 2.1 GB"), "{text}");
    assert!(text.contains("note: the file holds no tensors"), "{text}");
    // A file without hyperparameters: the text says why; --json with the flags is an error.
    let minimal = fixture("synth/minimal.gguf");
    let text = String::from_utf8(ggufscope(["info", minimal.to_str().unwrap()]).stdout).unwrap();
    assert!(
        text.contains("memory        - (the model has no context_length: give a context length)"),
        "{text}"
    );
    let out = ggufscope(["info", minimal.to_str().unwrap(), "--json", "--ctx", "512"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("no memory estimate: the model has no block_count")
    );
}

#[test]
fn info_names_an_all_state_space_hybrid_and_groups_the_rope_base() {
    // Two layers, neither with a KV head: attention kind "none", and no KV cache.
    let bytes = GgufBuilder::new()
        .kv("general.architecture", "granitehybrid")
        .kv("granitehybrid.context_length", 4096u32)
        .kv("granitehybrid.block_count", 2u32)
        .kv("granitehybrid.attention.head_count", 8u32)
        .kv(
            "granitehybrid.attention.head_count_kv",
            gguf_core::Array::U32(vec![0, 0]),
        )
        .kv("granitehybrid.rope.freq_base", 10_000_000.0f32)
        .build();
    let path = temp_file("info-ssm", "hybrid.gguf", &bytes);
    let p = path.to_str().unwrap();
    let doc = json_of(&["info", p, "--json", "--ctx", "4096"]);
    assert_eq!(doc["attention"]["kind"], "none");
    assert_eq!(doc["memory"]["kv_cache"], 0);
    let text = String::from_utf8(ggufscope(["info", p]).stdout).unwrap();
    assert!(text.contains("base 10,000,000"), "{text}");
    // A mixture of experts with no weights to count: no "active 0 (0)".
    let dbrx = fixture("real/ggml-vocab-dbrx.gguf");
    let text = String::from_utf8(ggufscope(["info", dbrx.to_str().unwrap()]).stdout).unwrap();
    assert!(
        text.contains("active        none to count: the file holds no weights"),
        "{text}"
    );
}
