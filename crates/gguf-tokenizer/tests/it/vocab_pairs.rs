//! Every `.inp`/`.out` pair of every `models/ggml-vocab-*.gguf` in llama.cpp 0c1e570's source
//! tree (the llama-cpp-python 0.3.36 sdist): `common_tokenize(text, add_special = false,
//! parse_special = false)` as `tests/test-tokenizer-0.cpp` runs it.

use std::path::{Path, PathBuf};

use gguf_test_support::{llama_cpp_tree, needs_llama_cpp, read_header};
use gguf_tokenizer::Tokenizer;

const SEPARATOR: &str = "\n__ggml_vocab_test__\n";

fn vocab_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(llama_cpp_tree().join("models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gguf"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 17,
        "llama.cpp's models/ has {} vocabulary files",
        files.len()
    );
    files
}

fn tokenizer(path: &Path) -> Tokenizer {
    let (header, _) = read_header(path);
    Tokenizer::new(&header.unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The cases of an `.inp` file, split as test-tokenizer-0.cpp splits them.
fn cases(inp: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = inp;
    while !rest.is_empty() {
        match rest.find(SEPARATOR) {
            Some(p) => {
                out.push(&rest[..p]);
                rest = &rest[p + SEPARATOR.len()..];
            }
            None => {
                out.push(rest);
                break;
            }
        }
    }
    out
}

#[test]
fn every_vocabulary_file_loads() {
    needs_llama_cpp!();
    for path in vocab_files() {
        let t = tokenizer(&path);
        assert!(t.len() > 1000, "{}", path.display());
    }
}

#[test]
fn every_test_pair_of_every_vocabulary_file() {
    needs_llama_cpp!();
    let (mut pairs, mut failures) = (0, Vec::new());
    for path in vocab_files() {
        let inp = PathBuf::from(format!("{}.inp", path.display()));
        let Ok(inp) = std::fs::read_to_string(&inp) else {
            continue;
        };
        let out = std::fs::read_to_string(format!("{}.out", path.display())).unwrap();
        let expected: Vec<Vec<u32>> = out
            .lines()
            .map(|l| l.split_whitespace().map(|t| t.parse().unwrap()).collect())
            .collect();
        let cases = cases(&inp);
        assert_eq!(cases.len(), expected.len(), "{}", path.display());
        let t = tokenizer(&path);
        for (text, want) in cases.iter().zip(&expected) {
            pairs += 1;
            let got = t.tokenize(text.as_bytes(), false, false);
            if &got != want {
                failures.push(format!(
                    "{}: {text:?}\n  want {want:?}\n  got  {got:?}",
                    path.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {pairs} pairs differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(pairs, 694);
}
