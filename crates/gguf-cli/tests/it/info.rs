//! `ggufscope info` run as a user would: exit codes, text, and the JSON document checked against
//! the reference figures.

use std::path::Path;

use crate::cli::ggufscope;
use gguf_test_support::fixtures;
use serde_json::Value as Json;

fn info_json(path: &Path) -> Json {
    let out = ggufscope(["info", "--json", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn reference(name: &str) -> Json {
    serde_json::from_str(
        &std::fs::read_to_string(fixtures().join(format!("ref/{name}.summary.json"))).unwrap(),
    )
    .unwrap()
}

#[test]
fn json_matches_the_reference_figures() {
    for rel in [
        "real/ggml-vocab-command-r.gguf",
        "real/ggml-vocab-aquila.gguf",
        "synth/big-endian.gguf",
        "synth/quants.gguf",
    ] {
        let path = fixtures().join(rel);
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let (ours, r) = (info_json(&path), reference(&name));
        for (field, reference_field) in [
            ("version", "version"),
            ("tensor_count", "tensor_count"),
            ("kv_count", "kv_count"),
            ("alignment", "alignment"),
            ("data_offset", "data_offset"),
            ("file_size", "file_size"),
            ("architecture", "architecture"),
            ("parameters", "param_count"),
            ("tensor_bytes", "tensor_bytes"),
        ] {
            assert_eq!(ours[field], r[reference_field], "{name}: {field}");
        }
        assert_eq!(
            ours["endianness"].as_str().unwrap().to_uppercase(),
            r["endian"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(ours["tensor_types"], r["tensor_types"], "{name}");
        let metadata = ours["metadata"].as_array().unwrap();
        for entry in metadata {
            let key = entry["key"].as_str().unwrap();
            assert_eq!(entry["offset"], r["kv"][key]["offset"], "{name}: {key}");
            assert_eq!(entry["type"], r["kv"][key]["type"], "{name}: {key}");
        }
        assert_eq!(metadata.len(), r["kv"].as_object().unwrap().len(), "{name}");
        let offsets: Vec<u64> = metadata.iter().map(|e| e["offset"].as_u64().unwrap()).collect();
        assert!(
            offsets.windows(2).all(|w| w[0] < w[1]),
            "{name}: metadata in file order"
        );
        for (t, rt) in ours["tensors"]
            .as_array()
            .unwrap()
            .iter()
            .zip(r["tensors"].as_array().unwrap())
        {
            assert_eq!(t["name"], rt["name"]);
            assert_eq!(t["shape"], rt["shape"]);
            assert_eq!(t["type"], rt["type"]);
            assert_eq!(t["offset"], rt["offset"]);
            assert_eq!(t["absolute_offset"], rt["abs_offset"]);
            assert_eq!(t["n_bytes"], rt["n_bytes"]);
        }
    }
}

#[test]
fn json_values_are_exact() {
    let doc = info_json(&fixtures().join("synth/all-types.gguf"));
    let value = |key: &str| {
        doc["metadata"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["key"] == key)
            .unwrap()["value"]
            .clone()
    };
    assert_eq!(value("t.u64.max").as_u64(), Some(u64::MAX));
    assert_eq!(value("t.u64.above_2p53").as_u64(), Some(9_007_199_254_740_993));
    assert_eq!(value("t.i64.min").as_i64(), Some(i64::MIN));
    assert_eq!(value("t.f32.nan"), "nan");
    assert_eq!(value("t.f32.neg_inf"), "-inf");
    let tokens = value("a.u8_1000");
    assert_eq!(
        (tokens["element_type"].as_str(), tokens["len"].as_u64()),
        (Some("UINT8"), Some(1000))
    );
    assert_eq!(tokens["head"].as_array().unwrap().len(), 8);
    let nested = value("a.nested.i32");
    assert_eq!(nested["head"][0]["element_type"], "INT32");
    assert_eq!(nested["head"][0]["head"], serde_json::json!([1, 2]));

    let bad = info_json(&fixtures().join("synth/invalid-utf8.gguf"));
    let entry = bad["metadata"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["key"] == "bad.string")
        .unwrap()
        .clone();
    assert_eq!(entry["value"], "ok\\xFF\\xFE\\xC3(bad");
    assert_eq!(entry["invalid_utf8"], true);
}

#[test]
fn summary_fields_for_a_grouped_query_model() {
    let dir = std::env::temp_dir().join(format!("ggufscope-info-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sparse = fixtures().join("synth/sparse");
    let restored = dir.join("gqa-llama-1.1b.gguf");
    std::fs::copy(sparse.join("gqa-llama-1.1b.gguf"), &restored).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&restored)
        .unwrap()
        .set_len(705_249_728)
        .unwrap();
    let doc = info_json(&restored);
    assert_eq!(doc["attention"]["kind"], "GQA");
    assert_eq!(
        (
            doc["attention"]["heads"].as_u64(),
            doc["attention"]["kv_heads"].as_u64()
        ),
        (Some(32), Some(4))
    );
    assert_eq!(doc["attention"]["group_size"], 8);
    assert_eq!(doc["parameters"], 1_100_048_384u64);
    assert_eq!(doc["experts"], Json::Null);
    assert_eq!(doc["file_type"]["name"], "MOSTLY_Q4_K_M");
    assert_eq!(doc["vocab_size"], 32000);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn text_summary_reads_only_the_header() {
    let dir = std::env::temp_dir().join(format!("ggufscope-40g-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big-40g-sparse.gguf");
    std::fs::copy(fixtures().join("synth/sparse/big-40g-sparse.gguf"), &big).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(41_812_404_288)
        .unwrap();
    let out = ggufscope(["info", big.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(out.status.success());
    assert!(
        text.contains("41.8 GB (41,812,404,288 bytes), GGUF v3, little-endian"),
        "{text}"
    );
    assert!(text.contains("parameters    24.00 B (23,995,916,288)"), "{text}");
    assert!(
        text.contains("attention     GQA, 64 heads, 8 KV heads, group 8"),
        "{text}"
    );
    // The 10 kB header costs one first-sized read, not gigabytes.
    assert!(text.contains("  read          262.1 kB in 1 read\n"), "{text}");
}

#[test]
fn unparsable_files_exit_2_with_the_offset() {
    let out = ggufscope([
        "info",
        fixtures().join("synth/truncated-in-kv.gguf").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("truncated-in-kv.gguf: unexpected end of file"),
        "{err}"
    );
    assert!(err.contains("(at offset 0x"), "{err}");
    assert!(out.stdout.is_empty());

    let out = ggufscope(["info", "/nonexistent/model.gguf"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("cannot read"));
}

#[test]
fn an_empty_file_is_said_to_be_empty() {
    let dir = std::env::temp_dir().join(format!("ggufscope-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.gguf");
    std::fs::write(&empty, b"").unwrap();
    let out = ggufscope(["info", empty.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("empty.gguf: the file is empty (0 bytes)"), "{err}");
}

/// Hostile metadata cannot write escape sequences to the terminal: control characters in the
/// file's text are shown as `\xNN`.
#[test]
fn control_characters_are_escaped_in_text_output() {
    let dir = std::env::temp_dir().join(format!("ggufscope-ansi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ansi.gguf");
    let file = gguf_core::testkit::GgufBuilder::new()
        .kv("general.architecture", "llama\u{1b}[2J")
        .kv("general.name", "evil\u{1b}]0;pwned\u{7}\nsecond line")
        .kv("bad\u{1b}[31mkey", 1u8)
        .kv("bad\u{1b}[31mkey", 2u8)
        .build();
    std::fs::write(&path, file).unwrap();
    let info = ggufscope(["info", path.to_str().unwrap()]);
    let validate = ggufscope(["validate", path.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    for out in [&info, &validate] {
        assert!(
            !out.stdout.contains(&0x1b) && !out.stdout.contains(&0x07),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let text = String::from_utf8(info.stdout).unwrap();
    assert!(text.contains("architecture  llama\\x1B[2J"), "{text}");
    assert!(
        text.contains("name          evil\\x1B]0;pwned\\x07\\x0Asecond line"),
        "{text}"
    );
    let lines = String::from_utf8(validate.stdout).unwrap();
    assert!(
        lines.contains("duplicate-key") && lines.contains("bad\\x1B[31mkey"),
        "{lines}"
    );
}

/// Head counts that differ between layers read plainly, one layout a line (Gemma 4's KV heads:
/// 8 in the sliding-window layers, 2 in every sixth); a split model's headers are said to be the
/// shards' summed, its data offset the first shard's.
#[test]
fn per_layer_heads_and_split_headers_read_plainly() {
    let dir = std::env::temp_dir().join(format!("ggufscope-layers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let gemma4 = dir.join("gemma4-like.gguf");
    let kv: Vec<u32> = (0..30).map(|i| if i % 6 == 5 { 2 } else { 8 }).collect();
    let file = gguf_core::testkit::GgufBuilder::new()
        .kv("general.architecture", "gemma4")
        .kv("gemma4.attention.head_count", 16u32)
        .kv("gemma4.attention.head_count_kv", gguf_core::Array::U32(kv))
        .build();
    std::fs::write(&gemma4, file).unwrap();
    let out = ggufscope(["info", gemma4.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(out.status.success());
    assert!(
        text.contains(
            "  attention     per-layer, 16 heads\n                25 layers: GQA, 16 heads, 8 KV heads\n                5 layers: GQA, 16 heads, 2 KV heads\n"
        ),
        "{text}"
    );
    assert!(!text.contains('–'), "no bare range of counts: {text}");

    let out = ggufscope([
        "info",
        fixtures()
            .join("synth/sharded-00001-of-00003.gguf")
            .to_str()
            .unwrap(),
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    let doc = info_json(&fixtures().join("synth/sharded-00001-of-00003.gguf"));
    let first = &doc["split"]["shards"][0];
    assert_eq!(doc["data_offset"], first["data_offset"]);
    assert!(
        text.contains(&format!(
            "  headers       {} bytes in 3 shards, the first's data at {} (alignment 32)",
            doc["header_size"], first["data_offset"]
        )),
        "{text}"
    );
}

#[test]
fn each_kind_is_described_and_a_projector_beside_a_model_lets_it_see() {
    use gguf_core::testkit;
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("info-kinds");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // The validator passes every kind, and info --json carries its figures.
    for (name, bytes, kind, field) in [
        ("imatrix.gguf", testkit::imatrix(), "imatrix", "imatrix"),
        ("lora.gguf", testkit::lora_adapter(), "adapter", "adapter"),
        (
            "cvec.gguf",
            testkit::control_vector(),
            "control-vector",
            "control_vector",
        ),
    ] {
        let path = crate::cli::temp_file("info-kinds", name, &bytes);
        let doc = info_json(&path);
        assert_eq!(
            (doc["kind"].as_str(), doc[field].is_object()),
            (Some(kind), true),
            "{name}"
        );
        assert_eq!(doc["findings"], Json::Array(vec![]), "{name}");
        let out = ggufscope(["validate", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{name}");
        assert_eq!(crate::cli::stdout(&out), format!("{}: ok\n", path.display()));
    }
    // A model beside a projector: it can see and hear, from that file; not with --no-siblings.
    let model = fixtures().join("real/ggml-vocab-phi-3.gguf");
    let copy = dir.join("phi-3.gguf");
    std::fs::copy(&model, &copy).unwrap();
    crate::cli::temp_file(
        "info-kinds",
        "mmproj-phi-3-f16.gguf",
        &testkit::mmproj_vision_audio(),
    );
    let names = |doc: &Json| -> Vec<(String, String)> {
        doc["capabilities"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["name"].as_str().unwrap().into(),
                    c["source"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    let beside = names(&info_json(&copy));
    assert_eq!(
        beside,
        [
            ("chat".into(), "tokenizer.chat_template".into()),
            ("vision".into(), "mmproj-phi-3-f16.gguf".into()),
            ("audio".into(), "mmproj-phi-3-f16.gguf".into()),
        ]
    );
    let out = ggufscope(["info", "--json", "--no-siblings", copy.to_str().unwrap()]);
    let alone: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        names(&alone),
        [("chat".to_string(), "tokenizer.chat_template".to_string())]
    );
    let text = crate::cli::stdout(&ggufscope(["info", copy.to_str().unwrap()]));
    assert!(
        crate::cli::flat(&text, 16)
            .contains("vision: an image encoder in the projector beside it (mmproj-phi-3-f16.gguf)"),
        "{text}"
    );
}
