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

#[test]
fn any_text_is_text_even_where_a_url_could_start() {
    // Byte 8, where `https://` would end, inside a character: text, not a URL to check.
    for text in ["I'm 12 é", "https:/é"] {
        let out = ggufscope(["tokenize", "--json", &qwen2(), text]);
        assert!(out.status.success(), "{text:?}: {}", stderr(&out));
        let doc: Json = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(doc["pieces"].as_array().unwrap().concat_text(), text);
    }
}

#[test]
fn a_model_without_a_vocabulary_is_refused_as_llama_cpp_cannot_tokenize_it() {
    let path = crate::cli::temp_file("tokenize-cli", "none.gguf", &gguf_core::testkit::none_vocab());
    let out = ggufscope(["tokenize", path.to_str().unwrap(), "hi"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("the file has no vocabulary (tokenizer.ggml.model is \"none\")"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn plamo2_as_llama_tokenize_gives_it() {
    let path = crate::cli::temp_file("tokenize-cli", "plamo2.gguf", &gguf_core::testkit::plamo2_vocab());
    // llama-tokenize's ids (tests/reference/llama-tokenize.json has this vocabulary's cases):
    // no BOS though the file says add_bos, a llama by its four bytes.
    let out = ggufscope(["tokenize", path.to_str().unwrap(), "Hello world! 🦙"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "616\tHell\n959\to wo\n1029\trld! \n245\t\\xF0\n164\t\\x9F\n171\t\\xA6\n158\t\\x99\n"
    );
}
