//! `ggufscope fit` run as a user would: the plan as text within 80 columns and as JSON, exit
//! statuses, sidecars found beside the file, and clear errors for sizes it cannot read.

use crate::cli::{ggufscope, temp_file};
use gguf_core::GgmlType;
use gguf_core::testkit::GgufBuilder;
use serde_json::Value as Json;

/// A 4-layer model of 4 MiB a layer, and an empty 1000-token vocabulary's embeddings.
fn model() -> Vec<u8> {
    let mut b = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("llama.context_length", 4096u32)
        .kv("llama.block_count", 4u32)
        .kv("llama.embedding_length", 256u32)
        .kv("llama.attention.head_count", 4u32)
        .kv("llama.vocab_size", 1000u32)
        .tensor("token_embd.weight", &[256, 1000], GgmlType::F32);
    for il in 0..4 {
        b = b.tensor(format!("blk.{il}.ffn_up.weight"), &[1024, 1024], GgmlType::F32);
    }
    b.build()
}

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = ggufscope(args);
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn fit_prints_the_plan_for_the_devices() {
    let path = temp_file("fit-text", "m.gguf", &model());
    let p = path.to_str().unwrap();
    let (code, text, _) = run(&[
        "fit",
        p,
        "--ram",
        "32GiB",
        "--gpu",
        "24GiB",
        "--gpu",
        "8GiB",
        "--parallel",
        "1",
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("verdict       fits: all 5 layers on the GPUs"),
        "{text}"
    );
    assert!(text.contains("llama.cpp     -c 4096 -ngl 5 -ts 4,1"), "{text}");
    assert!(text.contains("\nRAM         0    0.98 MiB    0.00 MiB"), "{text}");
    assert!(text.contains("\nGPU 0       4   16.00 MiB   16.00 MiB"), "{text}");
    assert!(text.contains("max context   f32 4,096, f16 4,096"), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");

    // No GPU and too little RAM: exit 1.
    let (code, text, _) = run(&["fit", p, "--ram", "10MiB"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("verdict       does not fit"), "{text}");

    // A GPU with room for a part: the output layer first, as -ngl offloads.
    let (code, text, _) = run(&[
        "fit",
        p,
        "--ram",
        "1GiB",
        "--gpu",
        "30MiB",
        "--margin",
        "0B",
        "--parallel",
        "1",
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("verdict       fits with "), "{text}");
}

#[test]
fn fit_json_has_the_plan_and_a_projector_beside_the_file() {
    let path = temp_file("fit-json", "m.gguf", &model());
    std::fs::write(path.with_file_name("mmproj-m-f16.gguf"), model()).unwrap();
    let p = path.to_str().unwrap();
    let (code, out, err) = run(&[
        "fit", p, "--ram", "16GB", "--gpu", "8GiB", "--json", "--ctx", "2048",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let doc: Json = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["verdict"], "fits");
    assert_eq!(
        (doc["n_gpu_layers"].as_u64(), doc["layers"].as_u64()),
        (Some(5), Some(5))
    );
    assert_eq!(doc["context"]["n_ctx"], 2048);
    assert_eq!(doc["devices"][0]["device"], "RAM");
    assert_eq!(doc["devices"][0]["free"], 16_000_000_000u64);
    assert_eq!(doc["devices"][1]["budget"], 7u64 << 30);
    assert_eq!(doc["sidecars"][0]["role"], "mmproj");
    assert_eq!(doc["sidecars"][0]["file"], "mmproj-m-f16.gguf");
    let side = doc["sidecars"][0]["bytes"].as_u64().unwrap();
    assert_eq!(side, 4 * (4 << 20) + 1_024_000);
    // On the GPU with the model's layers.
    assert!(doc["devices"][1]["model"].as_u64().unwrap() >= side + 4 * (4 << 20));
    assert_eq!(doc["max_context"].as_array().unwrap().len(), 9);
}

#[test]
fn fit_says_what_is_wrong_with_a_size() {
    let path = temp_file("fit-sizes", "m.gguf", &model());
    let p = path.to_str().unwrap();
    for (size, says) in [
        ("32", "give a unit, e.g. 32GiB"),
        ("32XB", "unknown unit \"XB\""),
        ("GiB", "not a size"),
        ("99999999999999999999999TiB", "too large"),
    ] {
        let (code, _, err) = run(&["fit", p, "--ram", size]);
        assert_eq!(code, Some(2), "{size}");
        assert!(err.contains(says), "{size}: {err}");
    }
    let (code, _, err) = run(&["fit", p, "--gpu", "8GiB"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--ram <SIZE>"), "{err}");
}

#[test]
fn a_model_with_no_memory_figure_says_why_in_info_and_fit() {
    for (name, bytes) in gguf_core::testkit::memory_refusals() {
        let path = temp_file("fit-refused", name, &bytes);
        let p = path.to_str().unwrap();
        let says = match name {
            "unknown-architecture.gguf" => {
                "llama.cpp (0c1e570) does not know the architecture \"llama5\": it refuses the model"
            }
            "clip.gguf" => {
                "llama.cpp refuses it: CLIP cannot be used as main model, use it with --mmproj instead"
            }
            _ => "not sized: llama.cpp runs t5, but it is an encoder-decoder",
        };
        let (code, text, err) = run(&["fit", p, "--ram", "32GiB"]);
        assert_eq!(code, Some(2), "{name}");
        assert!(err.contains(&format!("no plan: {says}")), "{name}: {err}");
        assert!(text.is_empty(), "{name}: {text}");

        // info gives the rest of the report, and the reason over lines within 80 columns.
        let (code, text, _) = run(&["info", p]);
        assert_eq!(code, Some(0), "{name}");
        if name == "clip.gguf" {
            // A projector, which info describes as one: it is loaded with a model, never sized alone.
            assert!(text.contains("  kind          multimodal projector"), "{text}");
            assert!(!text.contains("  memory "), "{text}");
            continue;
        }
        let memory: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("  memory ")).collect();
        assert!(!memory.is_empty(), "{name}: {text}");
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{name}: {text}");
        let joined = memory
            .iter()
            .map(|l| l[16..].trim_end())
            .collect::<Vec<_>>()
            .join(" ");
        assert!(joined.starts_with(&format!("- ({says}")), "{name}: {joined}");

        let (code, json, _) = run(&["info", p, "--json"]);
        assert_eq!(code, Some(0), "{name}");
        let doc: Json = serde_json::from_str(&json).unwrap();
        assert!(
            doc.get("memory").is_none(),
            "{name}: no figure rather than a wrong one"
        );
        assert!(doc["architecture"].is_string(), "{name}");
    }
}
