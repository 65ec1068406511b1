//! `memory::buffers` held to llama.cpp's own figures: every case of
//! `tests/reference/memory/llama-cpp-0c1e570.json` (written by
//! `scripts/reference/memory-refs.py` from llama-server's log). llama.cpp logs MiB with two
//! decimals: the KV cache, the recurrent state, the output buffer and the mapped model buffer must
//! print the same, the compute buffer be within 10% and its range. It prints, per model, each buffer's worst
//! deviation and the case it is in.

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

/// The worst deviations of one model's cases from llama.cpp, each with the case it is in.
#[derive(Default)]
struct Worst {
    cases: usize,
    /// MiB, as llama.cpp prints them: the KV cache, the recurrent state, the output buffer.
    kv: (f64, String),
    recurrent: (f64, String),
    output: (f64, String),
    /// The mapped model buffer, MiB.
    model: (f64, String),
    /// The compute buffer, relative.
    compute: (f64, String),
}

/// Keeps the larger deviation (by magnitude).
fn worse(slot: &mut (f64, String), value: f64, what: &str) {
    if value.abs() > slot.0.abs() || slot.1.is_empty() {
        *slot = (value, what.to_string());
    }
}

fn sum(map: &Value) -> f64 {
    map.as_object()
        .unwrap()
        .values()
        .map(|v| v.as_f64().unwrap())
        .sum()
}

/// As llama.cpp prints a byte count: MiB to two decimals (`%.2f`, ties to even as Rust's).
fn printed(bytes: u64) -> f64 {
    format!("{:.2}", bytes as f64 / MIB as f64).parse().unwrap()
}

/// Every figure of one case against llama.cpp's: a list of what differs, and the worst figures
/// kept in `worst`.
fn check(case: &Value, b: &Buffers, what: &str, worst: &mut Worst) -> Vec<String> {
    let mut wrong = Vec::new();
    let ctx = &case["context"];
    for (key, ours) in [
        ("n_ctx", b.context.n_ctx),
        ("n_ctx_seq", b.context.n_ctx_seq),
        ("n_seq_max", b.context.n_seq),
        ("n_batch", b.context.n_batch),
        ("n_ubatch", b.context.n_ubatch),
    ] {
        if ctx[key].as_u64() != Some(ours) {
            wrong.push(format!("{key} {ours}, llama.cpp {}", ctx[key]));
        }
    }
    let caches = case["kv_caches"].as_array().unwrap();
    let shape = |sliding: bool, layers: u64, cells: u64, streams: u64, k: &str, v: &str| {
        format!(
            "{}{layers} layers × {cells} cells × {streams} streams {k}/{v}",
            if sliding { "SWA " } else { "" }
        )
    };
    let theirs: Vec<String> = caches
        .iter()
        .map(|r| {
            shape(
                r["swa"].as_bool().unwrap_or(false),
                r["layers"].as_u64().unwrap(),
                r["cells"].as_u64().unwrap(),
                r["streams"].as_u64().unwrap(),
                r["type_k"].as_str().unwrap(),
                r["type_v"].as_str().unwrap(),
            )
        })
        .collect();
    let ours: Vec<String> =
        b.kv.iter()
            .map(|g| {
                shape(
                    g.sliding,
                    g.layers,
                    g.cells,
                    g.streams,
                    g.type_k.name(),
                    g.type_v.name(),
                )
            })
            .collect();
    if theirs != ours {
        wrong.push(format!("KV caches {ours:?}, llama.cpp {theirs:?}"));
    }
    for (r, g) in caches.iter().zip(&b.kv) {
        for (name, logged, bytes) in [
            ("K", r["k_mib"].as_f64().unwrap(), g.k_bytes),
            ("V", r["v_mib"].as_f64().unwrap(), g.v_bytes),
            ("KV buffer", sum(&r["buffers"]), g.bytes()),
        ] {
            let d = printed(bytes) - logged;
            worse(&mut worst.kv, d, what);
            if d.abs() > 0.005 {
                wrong.push(format!("{name} {:.2} MiB, llama.cpp {logged:.2}", printed(bytes)));
            }
        }
    }
    let recurrent = case["recurrent"].as_array().unwrap();
    match (recurrent.first(), &b.recurrent) {
        (None, None) => {}
        // llama.cpp's line counts every layer; R and S are of the recurrent ones.
        (Some(r), Some(s)) => {
            if r["cells"].as_u64() != Some(s.cells) {
                wrong.push(format!("recurrent cells {}, llama.cpp {}", s.cells, r["cells"]));
            }
            for (name, logged, bytes) in [
                ("R", r["r_mib"].as_f64().unwrap(), s.r_bytes),
                ("S", r["s_mib"].as_f64().unwrap(), s.s_bytes),
                ("RS buffer", sum(&r["buffers"]), s.bytes()),
            ] {
                let d = printed(bytes) - logged;
                worse(&mut worst.recurrent, d, what);
                if d.abs() > 0.005 {
                    wrong.push(format!("{name} {:.2} MiB, llama.cpp {logged:.2}", printed(bytes)));
                }
            }
        }
        (theirs, ours) => wrong.push(format!(
            "recurrent state {}, llama.cpp {}",
            if ours.is_some() { "sized" } else { "none" },
            if theirs.is_some() { "one" } else { "none" }
        )),
    }
    let output = sum(&case["output"]);
    let d = printed(b.output) - output;
    worse(&mut worst.output, d, what);
    if d.abs() > 0.005 {
        wrong.push(format!(
            "output {:.2} MiB, llama.cpp {output:.2}",
            printed(b.output)
        ));
    }
    // The mapped weights exact; with the CPU's repacked copies, within the range.
    let buffers = case["model_buffers"].as_object().unwrap();
    let mapped = buffers["CPU_Mapped"].as_f64().unwrap();
    let d = printed(b.model.low) - mapped;
    worse(&mut worst.model, d, what);
    if d.abs() > 0.005 {
        wrong.push(format!(
            "mapped model buffer {:.2} MiB, llama.cpp {mapped:.2}",
            printed(b.model.low)
        ));
    }
    let all = sum(&case["model_buffers"]);
    let (low, high) = (b.model.low as f64 / MIB as f64, b.model.high as f64 / MIB as f64);
    if !(low - 0.01 <= all && all <= high + 0.01) {
        wrong.push(format!(
            "model buffers {all:.2} MiB outside {low:.2} to {high:.2} MiB"
        ));
    }
    let compute = sum(&case["compute"]);
    let ours = b.compute.bytes as f64 / MIB as f64;
    let err = (ours - compute) / compute;
    worse(&mut worst.compute, err, what);
    if err.abs() > 0.10 {
        wrong.push(format!(
            "compute {ours:.2} MiB, llama.cpp {compute:.2} ({:+.1}%)",
            err * 100.0
        ));
    }
    let (low, high) = (
        b.compute.low as f64 / MIB as f64,
        b.compute.high as f64 / MIB as f64,
    );
    if !(low <= compute && compute <= high) {
        wrong.push(format!(
            "compute {compute:.2} MiB outside the range {low:.2} to {high:.2} MiB"
        ));
    }
    wrong
}

#[test]
fn every_reference_case() {
    let doc = reference();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 250, "{} cases", cases.len());
    let mut worst: Vec<(String, Worst)> = Vec::new();
    let mut wrong: Vec<String> = Vec::new();
    let mut checked = 0;
    let mut headers = std::collections::HashMap::new();
    for case in cases {
        let model = case["model"].as_str().unwrap();
        // Building and parsing a model's header once, not once per case.
        let Some(h) = headers.entry(model).or_insert_with(|| header(model)).as_ref() else {
            continue;
        };
        let flags = case["options"].as_array().unwrap();
        let what = format!(
            "{model} {}",
            flags
                .iter()
                .map(|f| f.as_str().unwrap())
                .collect::<Vec<_>>()
                .join(" ")
        );
        if worst.last().is_none_or(|(m, _)| m != model) {
            worst.push((model.to_string(), Worst::default()));
        }
        let w = &mut worst.last_mut().unwrap().1;
        w.cases += 1;
        checked += 1;
        let result = memory::buffers(h, &options(flags));
        if let Some(error) = case["error"].as_str() {
            match result {
                Err(e) => eprintln!("{what}: refused as llama.cpp does: {e}"),
                Ok(_) => wrong.push(format!(
                    "{what}: llama.cpp refuses it ({error}), buffers() sizes it"
                )),
            }
            continue;
        }
        match result {
            Err(e) => wrong.push(format!("{what}: {e}")),
            Ok(b) => wrong.extend(
                check(case, &b, &what, w)
                    .into_iter()
                    .map(|w| format!("{what}: {w}")),
            ),
        }
    }
    // The table the report quotes: per model, each buffer's worst deviation and where.
    eprintln!(
        "{checked} cases. Worst deviation from llama.cpp per model (MiB as it prints them; compute relative):"
    );
    for (model, w) in &worst {
        eprintln!("{model} ({} cases)", w.cases);
        for (name, (value, case), relative) in [
            ("KV cache", &w.kv, false),
            ("recurrent", &w.recurrent, false),
            ("output", &w.output, false),
            ("model", &w.model, false),
            ("compute", &w.compute, true),
        ] {
            if case.is_empty() {
                continue;
            }
            if relative {
                eprintln!("  {name:<10} {:+6.1}%   {case}", value * 100.0);
            } else {
                eprintln!("  {name:<10} {value:+6.2} MiB {case}");
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} figures differ from llama.cpp's:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
