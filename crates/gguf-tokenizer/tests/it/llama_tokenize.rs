//! The ids llama.cpp 0c1e570's llama-tokenize gives (`tests/reference/llama-tokenize.json`,
//! written by `scripts/reference/tokenize-refs.py`): multilingual text, emoji, code, whitespace,
//! numbers, special-token text, the empty string, over every vocabulary file of its source
//! tree, the fixtures' other real vocabularies, the Gemma model and the builder-made vocabularies
//! of the kinds no real file has (PLaMo-2, HybridDNA, llama.cpp's dummy `test`, `none`, and a byte-level BPE
//! vocabulary for every `tokenizer.ggml.pre`, in the default mode alone); by default, with
//! `--no-parse-special` and with `--no-bos` (llama-tokenize passes add_bos as add_special).

use std::collections::HashMap;
use std::sync::OnceLock;

use gguf_core::{Error, Header};
use gguf_test_support::{
    fixtures, gemma_path, llama_cpp_tree, needs_fixtures, needs_gemma, needs_llama_cpp, read_header,
};
use gguf_tokenizer::{Error as TokenizerError, Tokenizer};
use serde_json::Value;

/// The header of the file a reference label names.
fn header_of(label: &str) -> Result<Header, Error> {
    let path = if let Some(name) = label.strip_prefix("llama.cpp/models/") {
        llama_cpp_tree().join("models").join(name)
    } else if let Some(rel) = label.strip_prefix("fixtures/") {
        fixtures().join(rel)
    } else if let Some(name) = label.strip_prefix("builder/") {
        // write-fixtures' files, from gguf_core::testkit.
        if let Some(pre) = name
            .strip_prefix("pre-tokenizers/bpe-")
            .and_then(|n| n.strip_suffix(".gguf"))
        {
            static BPE: OnceLock<HashMap<&str, Vec<u8>>> = OnceLock::new();
            let all = BPE.get_or_init(|| gguf_core::testkit::bpe_vocabs().collect());
            return gguf_core::parse(&all[pre]);
        }
        return gguf_core::parse(&match name {
            "vocab-plamo2.gguf" => gguf_core::testkit::plamo2_vocab(),
            "vocab-hybriddna.gguf" => gguf_core::testkit::hybriddna_vocab(),
            "vocab-test.gguf" => gguf_core::testkit::test_vocab(),
            "vocab-none.gguf" => gguf_core::testkit::none_vocab(),
            _ => panic!("no builder-made vocabulary {name}"),
        });
    } else {
        assert_eq!(label, "gemma");
        gemma_path()
    };
    read_header(&path).0
}

#[test]
fn ids_as_llama_tokenize_gives_them() {
    needs_llama_cpp!();
    needs_fixtures!();
    needs_gemma!();
    let doc: Value = serde_json::from_str(include_str!("../reference/llama-tokenize.json")).unwrap();
    let texts = doc["texts"].as_object().unwrap();
    let files = reference_files(&doc);
    let (mut checked, mut failures) = (0, Vec::new());
    for (&label, cases) in &files {
        let t = Tokenizer::new(&header_of(label).unwrap());
        for case in cases.as_array().unwrap() {
            let name = case["case"].as_str().unwrap();
            let mode = case["mode"].as_str().unwrap();
            // llama.cpp's GGUF reader refuses the fixtures' dbrx and stablelm files before any
            // tokenizer is built ("failed to read key-value pairs"): nothing to compare. A model
            // of vocabulary `none` loads, but llama-tokenize aborts: it has no tokenizer.
            let Some(want) = case["ids"].as_array() else {
                if label == "builder/vocab-none.gguf" {
                    assert_eq!(t.as_ref().unwrap_err(), &TokenizerError::NoVocabulary);
                } else {
                    assert!(
                        label.starts_with("fixtures/real/"),
                        "{label}: llama-tokenize failed"
                    );
                }
                continue;
            };
            let t = t.as_ref().unwrap_or_else(|e| panic!("{label}: {e}"));
            let want: Vec<u32> = want.iter().map(|v| v.as_u64().unwrap() as u32).collect();
            let text = texts[name].as_str().unwrap();
            let add_special = mode != "no_bos" && t.flags().add_bos;
            let got = t.tokenize(text.as_bytes(), add_special, mode != "no_parse_special");
            checked += 1;
            if got != want {
                failures.push(format!(
                    "{label} {name:?} {mode}\n  want {want:?}\n  got  {got:?}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 2700, "{checked}");
    for built in [
        "builder/vocab-plamo2.gguf",
        "builder/vocab-hybriddna.gguf",
        "builder/vocab-test.gguf",
        "builder/vocab-none.gguf",
    ] {
        assert!(files.contains_key(built), "no cases of {built}");
    }
    for pre in gguf_core::testkit::PRE_NAMES {
        let label = format!("builder/pre-tokenizers/bpe-{pre}.gguf");
        assert!(files.contains_key(label.as_str()), "no cases of {label}");
    }
}

/// Every file's cases, by label: those written, and those of files whose cases are another's
/// (`same_as`, where the script wrote equal cases once).
fn reference_files(doc: &Value) -> std::collections::BTreeMap<&str, &Value> {
    let mut files: std::collections::BTreeMap<&str, &Value> = doc["files"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(label, cases)| (label.as_str(), cases))
        .collect();
    for (label, like) in doc["same_as"].as_object().unwrap() {
        files.insert(label, &doc["files"][like.as_str().unwrap()]);
    }
    files
}

/// The names llama.cpp's `src/llama-vocab.cpp` compares `what` (`tokenizer_pre`,
/// `tokenizer_model`) with, in its order.
fn names_in_llama_cpp(what: &str) -> Vec<String> {
    let source = std::fs::read_to_string(llama_cpp_tree().join("src/llama-vocab.cpp")).unwrap();
    let needle = format!("{what} == \"");
    let mut names: Vec<String> = Vec::new();
    for (at, _) in source.match_indices(&needle) {
        let rest = &source[at + needle.len()..];
        let name = &rest[..rest.find('"').unwrap()];
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    names
}

#[test]
fn every_pre_tokenizer_and_model_llama_cpp_names_loads_and_no_other() {
    needs_llama_cpp!();
    // testkit's list, whose vocabularies tokenize-refs.py gives llama-tokenize, is llama.cpp's.
    assert_eq!(gguf_core::testkit::PRE_NAMES, names_in_llama_cpp("tokenizer_pre"));
    for (name, bytes) in gguf_core::testkit::bpe_vocabs() {
        let t = Tokenizer::new(&gguf_core::parse(&bytes).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(t.pre().is_some(), "{name}");
    }
    // What llama.cpp refuses, refused and said so.
    let mut unknown = gguf_core::testkit::bpe_vocab("llama3");
    let at = unknown.windows(6).position(|w| w == b"llama3").unwrap();
    unknown[at..at + 6].copy_from_slice(b"llama9");
    let e = Tokenizer::new(&gguf_core::parse(&unknown).unwrap()).unwrap_err();
    assert_eq!(e, TokenizerError::UnknownPre("llama9".into()));
    assert!(
        e.to_string().contains("llama.cpp 0c1e570 refuses to load it"),
        "{e}"
    );

    let models = names_in_llama_cpp("tokenizer_model");
    assert_eq!(models.len(), 12, "{models:?}");
    for model in &models {
        let header = gguf_core::testkit::GgufBuilder::new()
            .kv("tokenizer.ggml.model", model.as_str())
            .build();
        match Tokenizer::new(&gguf_core::parse(&header).unwrap()) {
            Err(TokenizerError::UnknownModel(m)) => panic!("{m} is llama.cpp's"),
            Err(TokenizerError::NoVocabulary) => assert!(["none", "no_vocab"].contains(&model.as_str())),
            _ => {}
        }
    }
    let header = gguf_core::testkit::GgufBuilder::new()
        .kv("tokenizer.ggml.model", "sentencepiece")
        .build();
    assert_eq!(
        Tokenizer::new(&gguf_core::parse(&header).unwrap()).unwrap_err(),
        TokenizerError::UnknownModel("sentencepiece".into())
    );
}
