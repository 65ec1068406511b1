//! The ids llama.cpp 0c1e570's llama-tokenize gives (`tests/reference/llama-tokenize.json`,
//! written by `scripts/reference/tokenize-refs.py`): multilingual text, emoji, code, whitespace,
//! numbers, special-token text, the empty string, over every vocabulary file of its source
//! tree, the fixtures' other real vocabularies, the Gemma model and the builder-made vocabularies
//! of the types no real file has (PLaMo-2, llama.cpp's dummy `test`, `none`); by default, with `--no-parse-special` and with
//! `--no-bos` (llama-tokenize passes add_bos as add_special).

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
        assert_eq!(
            name, "vocab-plamo2.gguf",
            "write-fixtures' file of gguf_core::testkit"
        );
        return gguf_core::parse(&gguf_core::testkit::plamo2_vocab());
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
    let (mut checked, mut failures) = (0, Vec::new());
    for (label, cases) in doc["files"].as_object().unwrap() {
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
    assert!(checked > 600, "{checked}");
    for built in [
        "builder/vocab-plamo2.gguf",
        "builder/vocab-test.gguf",
        "builder/vocab-none.gguf",
    ] {
        assert!(doc["files"].get(built).is_some(), "no cases of {built}");
    }
}
