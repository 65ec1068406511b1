//! `memory::buffers` held to llama.cpp's own figures: every case of
//! `tests/reference/memory/llama-cpp-0c1e570.json` (written by
//! `scripts/reference/memory-refs.py` from llama-server's log). llama.cpp logs MiB with two
//! decimals: the KV cache, the recurrent state and the output buffer must print the same; the
//! model buffer must be within 1% and the compute buffer within 10%.

use std::path::{Path, PathBuf};

use gguf_core::Header;
use gguf_core::memory::{self, Buffers, CacheType, FlashAttention, MIB, Options};
use gguf_test_support::{fixtures, gemma_path, read_header};
use serde_json::Value;

fn reference() -> Value {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/reference/memory/llama-cpp-0c1e570.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The header of a reference model: the shared fixtures' (their stored header prefixes are
/// enough) or the testkit's.
fn header(model: &str) -> Option<Header> {
    if let Some(m) = gguf_core::testkit::memory_models()
        .into_iter()
        .find(|m| m.name == model)
    {
        return Some(gguf_core::parse(&m.header).unwrap());
    }
    let (path, variable): (PathBuf, _) = match model {
        "gemma-3-270m-q4_k_m.gguf" => (gemma_path(), "GGUF_GEMMA"),
        name => (fixtures().join("synth/sparse").join(name), "GGUF_FIXTURES"),
    };
    if !gguf_test_support::present(model, path.clone(), variable) {
        return None;
    }
    Some(read_header(&path).0.unwrap())
}

/// llama-server's flags as [`Options`].
fn options(flags: &[Value]) -> Options {
    let mut o = Options::default();
    let mut it = flags.iter().map(|f| f.as_str().unwrap());
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap();
        match flag {
            "-c" => o.ctx = value().parse().unwrap(),
            "-np" => o.parallel = Some(value().parse().unwrap()),
            "--kv-unified" => o.kv_unified = true,
            "-ctk" => o.type_k = CacheType::from_name(value()).unwrap(),
            "-ctv" => o.type_v = CacheType::from_name(value()).unwrap(),
            "-fa" => o.flash_attn = FlashAttention::from_name(value()).unwrap(),
            "-ub" => o.n_ubatch = value().parse().unwrap(),
            "-b" => o.n_batch = value().parse().unwrap(),
            other => panic!("unknown flag {other}"),
        }
    }
    o
}

/// As llama.cpp prints a byte count: MiB with two decimals.
fn mib(bytes: u64) -> String {
    format!("{:.2}", bytes as f64 / MIB as f64)
}

fn logged(v: &Value) -> String {
    format!("{:.2}", v.as_f64().unwrap())
}

/// Every figure of one case; the compute buffer's relative error.
fn check(case: &Value, b: &Buffers, what: &str) -> f64 {
    let ctx = &case["context"];
    for (key, ours) in [
        ("n_ctx", b.context.n_ctx),
        ("n_ctx_seq", b.context.n_ctx_seq),
        ("n_seq_max", b.context.n_seq),
        ("n_batch", b.context.n_batch),
        ("n_ubatch", b.context.n_ubatch),
    ] {
        assert_eq!(ctx[key].as_u64(), Some(ours), "{what}: {key}");
    }
    let caches = case["kv_caches"].as_array().unwrap();
    assert_eq!(caches.len(), b.kv.len(), "{what}: KV caches");
    for (r, g) in caches.iter().zip(&b.kv) {
        assert_eq!(r["cells"].as_u64(), Some(g.cells), "{what}: cells");
        assert_eq!(r["layers"].as_u64(), Some(g.layers), "{what}: layers");
        assert_eq!(r["streams"].as_u64(), Some(g.streams), "{what}: streams");
        assert_eq!(r["type_k"].as_str(), Some(g.type_k.name()), "{what}: K type");
        assert_eq!(logged(&r["k_mib"]), mib(g.k_bytes), "{what}: K");
        assert_eq!(logged(&r["v_mib"]), mib(g.v_bytes), "{what}: V");
        let buffer: f64 = r["buffers"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_f64().unwrap())
            .sum();
        assert_eq!(format!("{buffer:.2}"), mib(g.bytes()), "{what}: KV buffer");
    }
    let recurrent = case["recurrent"].as_array().unwrap();
    assert_eq!(
        recurrent.len(),
        usize::from(b.recurrent.is_some()),
        "{what}: recurrent state"
    );
    if let (Some(r), Some(s)) = (recurrent.first(), &b.recurrent) {
        // llama.cpp's line counts every layer; R and S are of the recurrent ones.
        assert_eq!(r["cells"].as_u64(), Some(s.cells), "{what}: recurrent cells");
        assert_eq!(logged(&r["r_mib"]), mib(s.r_bytes), "{what}: R");
        assert_eq!(logged(&r["s_mib"]), mib(s.s_bytes), "{what}: S");
    }
    let output: f64 = case["output"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_f64().unwrap())
        .sum();
    assert_eq!(format!("{output:.2}"), mib(b.output), "{what}: output");
    // The mapped weights within 1%; with the CPU's repacked copies, within the range.
    let buffers = case["model_buffers"].as_object().unwrap();
    let mapped = buffers["CPU_Mapped"].as_f64().unwrap();
    let ours = b.model.low as f64 / MIB as f64;
    assert!(
        (ours - mapped).abs() <= mapped * 0.01 + 0.01,
        "{what}: mapped model buffer {ours:.2} MiB, llama.cpp {mapped:.2} MiB"
    );
    let all: f64 = buffers.values().map(|v| v.as_f64().unwrap()).sum();
    let (low, high) = (b.model.low as f64 / MIB as f64, b.model.high as f64 / MIB as f64);
    assert!(
        low - 0.01 <= all && all <= high + 0.01,
        "{what}: model buffers {all:.2} MiB outside {low:.2} to {high:.2} MiB"
    );
    let compute: f64 = case["compute"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_f64().unwrap())
        .sum();
    let ours = b.compute.bytes as f64 / MIB as f64;
    (ours - compute) / compute
}

#[test]
fn every_reference_case() {
    let doc = reference();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 95, "{} cases", cases.len());
    let mut worst: (f64, String) = (0.0, String::new());
    let mut checked = 0;
    for case in cases {
        let model = case["model"].as_str().unwrap();
        let Some(h) = header(model) else { continue };
        let flags = case["options"].as_array().unwrap();
        let what = format!(
            "{model} {}",
            flags
                .iter()
                .map(|f| f.as_str().unwrap())
                .collect::<Vec<_>>()
                .join(" ")
        );
        let result = memory::buffers(&h, &options(flags));
        if let Some(error) = case["error"].as_str() {
            assert!(
                result.is_err(),
                "{what}: llama.cpp refuses it ({error}), buffers() gives {result:?}"
            );
            checked += 1;
            continue;
        }
        let b = result.unwrap_or_else(|e| panic!("{what}: {e}"));
        let err = check(case, &b, &what);
        eprintln!("{what}: compute {:+.1}%", err * 100.0);
        if err.abs() > worst.0.abs() {
            worst = (err, what);
        }
        checked += 1;
    }
    eprintln!(
        "{checked} cases; worst compute error {:+.1}% ({})",
        worst.0 * 100.0,
        worst.1
    );
    assert!(
        worst.0.abs() <= 0.10,
        "compute {:+.1}% off in {}",
        worst.0 * 100.0,
        worst.1
    );
}
