//! Every document the report module writes, for every fixture (real, synthetic, Gemma when it is
//! there), is valid against the committed schema (`schema/report.schema.json`), and a broken
//! one is not.

use std::path::{Path, PathBuf};

use gguf_core::Header;
use gguf_core::memory::{self, CacheType, FlashAttention, Options};
use gguf_core::report::{self, Report, ReportOptions};
use gguf_core::split::SplitModel;
use gguf_core::tokenizer::{Listing, Tokenizer};
use serde_json::{Value, json};

use gguf_test_support::schema::{check, checked};
use gguf_test_support::{fixture, fixtures, gemma_path, present, read_header};

/// `value` serialized, after asserting that it is a valid `document`.
fn to_checked(document: &str, value: &impl serde::Serialize) -> Value {
    checked(document, serde_json::to_value(value).unwrap())
}

fn gguf_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            gguf_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "gguf") {
            out.push(path);
        }
    }
}

/// Every fixture that decodes, with Gemma when it is there.
fn headers() -> Vec<(String, Header)> {
    let mut paths = Vec::new();
    gguf_files(&fixtures().join("real"), &mut paths);
    gguf_files(&fixtures().join("synth"), &mut paths);
    paths.sort();
    if paths.is_empty() {
        // Only the built files are checked then: a loud skip, or a failure in CI.
        present("shared fixtures", fixtures(), "GGUF_FIXTURES");
    }
    if present("Gemma model", gemma_path(), "GGUF_GEMMA") {
        paths.push(gemma_path());
    }
    let mut headers: Vec<(String, Header)> = paths
        .iter()
        .filter_map(|p| Some((p.display().to_string(), read_header(p).0.ok()?)))
        .collect();
    // The kinds of file that are not models, as the builder writes them.
    use gguf_core::testkit;
    for (name, file) in [
        ("imatrix", testkit::imatrix()),
        ("lora", testkit::lora_adapter()),
        ("mmproj-vision-audio", testkit::mmproj_vision_audio()),
        ("control-vector", testkit::control_vector()),
    ] {
        headers.push((name.to_string(), gguf_core::parse(&file).unwrap()));
    }
    headers
}

/// The options the CLI (the defaults) and the wasm module use, and two that cut everything.
const OPTIONS: [ReportOptions; 4] = [
    ReportOptions {
        array_head: 8,
        max_string_len: None,
    },
    ReportOptions {
        array_head: 8,
        max_string_len: Some(256 << 10),
    },
    ReportOptions {
        array_head: 0,
        max_string_len: Some(0),
    },
    ReportOptions {
        array_head: 3,
        max_string_len: Some(5),
    },
];

#[test]
fn every_fixture_report_is_valid() {
    for (name, h) in &headers() {
        for options in OPTIONS {
            let report = to_checked("GgufReport", &Report::with_options(h, options).described());
            assert_eq!(report["schema_version"], 2, "{name}");
            // Without its description (the viewer's report), as valid.
            let bare = to_checked("GgufReport", &Report::with_options(h, options));
            assert!(
                bare.get("capabilities").is_none() && bare.get("adapter").is_none(),
                "{name}"
            );
            assert_eq!(bare["kind"], report["kind"], "{name}");
            // Each kind's figures, and only its own.
            for (field, kind) in [
                ("adapter", "adapter"),
                ("imatrix", "imatrix"),
                ("mmproj", "mmproj"),
                ("control_vector", "control-vector"),
            ] {
                assert_eq!(
                    report[field].is_object(),
                    report["kind"] == kind,
                    "{name}: {field}"
                );
            }
            let model = SplitModel::new(vec![(name.clone(), h.clone())]);
            to_checked("GgufReport", &Report::of_model(&model, options));
            for entry in h.metadata.entries() {
                if let Some(array) = entry.value.as_array() {
                    for value in report::array_page(array, 1, 20, &options) {
                        to_checked("MetadataValue", &value);
                    }
                }
            }
        }
        let grid = [
            Options::default(),
            Options {
                ctx: 4096,
                parallel: Some(3),
                type_k: CacheType::Q4_0,
                type_v: CacheType::Q8_0,
                flash_attn: FlashAttention::Off,
                ..Options::default()
            },
        ];
        for options in grid {
            if let Ok(buffers) = memory::buffers(h, &options) {
                to_checked("Memory", &report::Memory::new(&options, &buffers));
                let report = to_checked("GgufReport", &Report::new(h).with_memory(options, buffers));
                assert!(report["memory"].is_object(), "{name}");
            }
        }
        let validation = gguf_core::validate(h, h.file_len);
        for finding in report::findings(h, &validation.findings) {
            to_checked("Finding", &finding);
        }
        for omitted in report::findings_omitted(&validation.omitted) {
            to_checked("Omitted", &omitted);
        }
        let tokens = to_checked("TokenizerReport", &report::TokenizerReport::new(h));
        assert_eq!(tokens["schema_version"], 2, "{name}");
        let tokenizer = Tokenizer::new(h);
        let listing = Listing::All(tokenizer.len());
        to_checked(
            "TokenPage",
            &report::TokenPage::new(&tokenizer, &listing, 0, 1000),
        );
        let special: Vec<String> = tokenizer
            .special_tokens()
            .iter()
            .filter_map(|t| Some(String::from_utf8_lossy(t.text?).into_owned()))
            .collect();
        for piece in report::pieces(&tokenizer.split_special(&special.join(" and "))) {
            to_checked("Piece", &piece);
        }
    }
}

#[test]
fn split_model_reports_are_valid() {
    gguf_test_support::needs_fixtures!();
    let shard = |n: u32| {
        let name = format!("sharded-0000{n}-of-00003.gguf");
        (
            name.clone(),
            read_header(&fixture(&format!("synth/{name}"))).0.unwrap(),
        )
    };
    let sets = [
        vec![shard(1), shard(2), shard(3)],
        vec![shard(3), shard(1)],
        vec![shard(2)],
    ];
    for files in sets {
        let report = to_checked(
            "GgufReport",
            &Report::of_model(&SplitModel::new(files), OPTIONS[0]),
        );
        assert!(report["split"].is_object());
        assert!(report["tensors"][0]["shard"].is_u64());
    }
}

/// A report made wrong in each way the schema says it cannot be: the validator says no.
#[test]
fn a_broken_report_is_rejected() {
    let h = gguf_core::parse(
        &gguf_core::testkit::GgufBuilder::new()
            .kv("general.architecture", "llama")
            .tensor("blk.0.attn_q.weight", &[4, 4], gguf_core::GgmlType::F32)
            .build(),
    )
    .unwrap();
    let good = to_checked("GgufReport", &Report::new(&h));
    type Spoil = fn(&mut Value);
    let broken: [(&str, Spoil); 6] = [
        ("a figure as a string", |r| r["tensor_count"] = json!("1")),
        ("a negative size", |r| r["header_size"] = json!(-1)),
        ("a required field missing", |r| {
            r.as_object_mut().unwrap().remove("tensors");
        }),
        ("a misspelled field", |r| {
            let v = r.as_object_mut().unwrap().remove("file_size").unwrap();
            r["file_sise"] = v;
        }),
        ("a tensor's shape of strings", |r| {
            r["tensors"][0]["shape"] = json!(["4", "4"])
        }),
        ("a float as an unknown word", |r| {
            r["rope"]["freq_base"] = json!("infinity")
        }),
    ];
    for (what, spoil) in broken {
        let mut report = good.clone();
        spoil(&mut report);
        assert!(check("GgufReport", &report).is_err(), "{what}: accepted");
    }
}
