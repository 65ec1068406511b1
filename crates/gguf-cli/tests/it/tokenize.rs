//! `ggufscope tokenize` run as a user would: its lines, its JSON, the text from a file, standard
//! input and --ids, and its exit statuses.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::cli::{ggufscope, stderr, stdout};
use gguf_test_support::fixture;
use serde_json::Value as Json;

fn qwen2() -> String {
    fixture("real/ggml-vocab-qwen2.gguf").display().to_string()
}

#[test]
fn lines_json_and_special_text() {
    let out = ggufscope(["tokenize", &qwen2(), "<|im_start|>user\nHello 👋"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "151644\t<|im_start|>\n872\tuser\n198\t\\n\n9707\tHello\n61804\t \\xF0\\x9F\\x91\n233\t\\x8B\n"
    );
    let out = ggufscope(["tokenize", "--json", "--no-parse-special", &qwen2(), "<|im_end|>"]);
    let doc: Json = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["count"], doc["ids"].as_array().unwrap().len());
    assert!(
        doc["count"].as_u64().unwrap() > 1,
        "plain text, not the one token"
    );
    assert_eq!(doc["pieces"].as_array().unwrap().concat_text(), "<|im_end|>");
}

trait Concat {
    fn concat_text(&self) -> String;
}
impl Concat for Vec<Json> {
    fn concat_text(&self) -> String {
        self.iter().map(|p| p.as_str().unwrap()).collect()
    }
}

#[test]
fn bos_as_llama_tokenize_adds_it() {
    let spm = fixture("real/ggml-vocab-llama-spm.gguf").display().to_string();
    let out = ggufscope(["tokenize", &spm, "Hi there"]);
    assert_eq!(stdout(&out), "1\t<s>\n6324\t Hi\n727\t there\n");
    let out = ggufscope(["tokenize", "--no-add-special", &spm, "Hi there"]);
    assert_eq!(stdout(&out), "6324\t Hi\n727\t there\n");
    let out = ggufscope(["tokenize", &spm, "--ids", "1,6324,727"]);
    assert_eq!(stdout(&out), "<s> Hi there\n1\t<s>\n6324\t Hi\n727\t there\n");
    let out = ggufscope(["tokenize", &spm, "--ids", "1,32000"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no token 32000: the vocabulary has 32000 tokens"));
}

#[test]
fn text_from_a_file_and_from_stdin_byte_for_byte() {
    let path = crate::cli::temp_file("tokenize-cli", "text.txt", b"a\\nb\n");
    let out = ggufscope(["tokenize", &qwen2(), "--file", path.to_str().unwrap()]);
    assert_eq!(stdout(&out), "64\ta\n1699\t\\\\n\n65\tb\n198\t\\n\n");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ggufscope"))
        .args(["tokenize", &qwen2(), "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"a\\nb\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(stdout(&out), "64\ta\n1699\t\\\\n\n65\tb\n198\t\\n\n");
    let out = ggufscope(["tokenize", &qwen2()]);
    assert_eq!(out.status.code(), Some(2));
}
