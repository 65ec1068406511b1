//! `ggufscope tensor` and `ggufscope info`'s memory options run as a user would:
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
fn info_gives_the_buffers_llama_cpp_allocates() {
    let path = restored_sparse("gqa-llama-1.1b.gguf");
    let p = path.to_str().unwrap();
    // 22 layers × 4096 cells × 272 B for K (256 values in q8_0: 8 blocks × 34 B), as much for V.
    let args = [
        "info",
        p,
        "--json",
        "--ctx",
        "4096",
        "--parallel",
        "1",
        "--ctk",
        "q8_0",
        "--ctv",
        "q8_0",
    ];
    let doc = json_of(&args);
    assert_eq!(doc["schema_version"], 2);
    let m = &doc["memory"];
    let kv = 22 * 4096 * 272;
    assert_eq!((m["kv_k"].as_u64(), m["kv_v"].as_u64()), (Some(kv), Some(kv)));
    assert_eq!(m["kv_cache"].as_u64(), Some(2 * kv));
    assert_eq!(m["model"].as_u64(), Some(704_385_024));
    // One sequence's logits: 32,000 f32.
    assert_eq!(m["output"].as_u64(), Some(32_000 * 4));
    assert_eq!(m["recurrent"], 0);
    let sum = ["model", "kv_cache", "recurrent", "output", "compute"]
        .iter()
        .map(|k| m[*k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(m["total"].as_u64(), Some(sum));
    assert_eq!(m["groups"][0]["cells"], 4096);
    assert_eq!(m["groups"][0]["layers"], 22);
    // The options as given; auto flash attention is on, on a CPU.
    assert_eq!(m["options"]["type_k"], "q8_0");
    assert_eq!(m["options"]["flash_attn"], "auto");
    assert_eq!(m["context"]["flash_attn"], true);
    // llama-server's defaults: the trained context (2048) shared by 4 unified sequences.
    let d = &json_of(&["info", p, "--json"])["memory"];
    assert_eq!(
        (d["context"]["n_ctx"].as_u64(), d["context"]["n_seq"].as_u64()),
        (Some(2048), Some(4))
    );
    assert_eq!(d["options"]["parallel"], Json::Null);
    // Without flash attention V is stored transposed; a quantized V is refused.
    let off = json_of(&["info", p, "--json", "--flash-attn", "off", "--ctx", "4096"]);
    assert_eq!(off["memory"]["context"]["flash_attn"], false);
    let out = ggufscope(["info", p, "--json", "--flash-attn", "off", "--ctv", "q8_0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("a quantized V cache needs flash attention")
    );

    let out = ggufscope(["info", p, "--ctx", "4096", "--parallel", "2"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("memory        "), "{text}");
    assert!(text.contains("for -c 4,096, 2 sequences, a cache each"), "{text}");
    assert!(text.contains("-ctk f16 -ctv f16, flash attention on"), "{text}");
    assert!(
        text.contains("global 88.00 MiB, 22 layers × 2,048 cells × 2 streams"),
        "{text}"
    );
    let memory = &text[text.find("  memory ").unwrap()..];
    assert!(memory.lines().all(|l| l.chars().count() <= 80), "{memory}");

    for (flag, value) in [
        ("--ctk", "q5_2"),
        ("--flash-attn", "maybe"),
        ("--parallel", "0"),
        ("--ubatch", "0"),
    ] {
        let bad = ggufscope(["info", p, flag, value]);
        assert_eq!(bad.status.code(), Some(2), "clap refuses {flag} {value}");
    }
    // A file without hyperparameters: the text says why; --json has no memory, or with an
    // option asked for is an error.
    let minimal = fixture("synth/minimal.gguf");
    let m = minimal.to_str().unwrap();
    let text = String::from_utf8(ggufscope(["info", m]).stdout).unwrap();
    assert!(
        text.contains("memory        - (the model has no block_count)"),
        "{text}"
    );
    assert!(json_of(&["info", m, "--json"]).get("memory").is_none());
    let out = ggufscope(["info", m, "--json", "--ctx", "512"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("no memory figures: the model has no block_count")
    );
}

#[test]
fn info_names_an_all_state_space_hybrid_and_groups_the_rope_base() {
    // Two layers, neither with a KV head: attention kind "none", and no KV cache.
    let bytes = GgufBuilder::new()
        .kv("general.architecture", "granitehybrid")
        .kv("granitehybrid.context_length", 4096u32)
        .kv("granitehybrid.block_count", 2u32)
        .kv("granitehybrid.embedding_length", 64u32)
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
    // A mixture of experts with no weights to count: a vocabulary, no "active 0 (0)".
    let dbrx = fixture("real/ggml-vocab-dbrx.gguf");
    let text = String::from_utf8(ggufscope(["info", dbrx.to_str().unwrap()]).stdout).unwrap();
    assert!(
        text.contains("weights       none: this file holds no tensors\n"),
        "{text}"
    );
    assert!(!text.contains("active"), "{text}");
}
