//! `ggufscope tokens` and `ggufscope template` run as a user would: the text and JSON they print
//! on the fixtures, the Gemma model and synthetic files, and their exit statuses.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::cli::{stderr, stdout};
use gguf_core::testkit::{GgufBuilder, strings};
use gguf_core::{Array, Value};
use gguf_test_support::{fixture, gemma};
use serde_json::Value as Json;

fn ggufscope(args: &[&str], file: &Path) -> Output {
    crate::cli::ggufscope(args.iter().map(OsStr::new).chain([file.as_os_str()]))
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    crate::cli::temp_file("tokens-cli", name, bytes)
}

#[test]
fn summary() {
    let out = ggufscope(&["tokens"], &fixture("real/ggml-vocab-command-r.gguf"));
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        "ggml-vocab-command-r.gguf
  model           gpt2 (pre-tokenizer command-r)
  vocabulary      256,000 tokens, 253,333 merges, no scores
  token types     254,992 normal, 9 control, 999 user-defined
  special tokens  bos 5 <BOS_TOKEN>
                  eos 255001 <|END_OF_TURN_TOKEN|>
                  padding 0 <PAD>
  flags           add_bos_token true, add_eos_token false
  chat templates  default (1 line), tool_use (32 lines), rag (16 lines)
"
    );
    let out = ggufscope(&["tokens"], &gemma());
    assert_eq!(
        stdout(&out),
        "gemma-3-270m-q4_k_m.gguf
  model           llama (pre-tokenizer default)
  vocabulary      262,144 tokens, scores
  token types     255,474 normal, 6,249 control, 165 user-defined, 256 byte
  special tokens  bos 2 <bos>
                  eos 1 <eos>
                  unknown 3 <unk>
                  padding 0 <pad>
  flags           add_bos_token true, add_eos_token false, add_sep_token false,
                  add_space_prefix false
  chat templates  none
"
    );
    // llama.cpp's spelling of the separator's key.
    let out = ggufscope(&["tokens"], &fixture("real/ggml-vocab-bert-bge.gguf"));
    assert!(
        stdout(&out).contains("                  separator 102 [SEP]\n"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn search_and_id() {
    let command_r = fixture("real/ggml-vocab-command-r.gguf");
    let out = ggufscope(&["tokens", "--search", "Hello", "--case-sensitive"], &command_r);
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        "28339\tnormal\t-\tHello\n46609\tnormal\t-\tĠHello\n251240\tnormal\t-\tHelloWorld\n"
    );
    // Any case by default: equal first (same case, then another), then containing.
    let out = ggufscope(&["tokens", "--search", "Hello"], &command_r);
    let text = stdout(&out);
    assert_eq!(
        text.lines().take(5).collect::<Vec<_>>(),
        [
            "28339\tnormal\t-\tHello",
            "34313\tnormal\t-\thello",
            "46609\tnormal\t-\tĠHello",
            "251240\tnormal\t-\tHelloWorld",
            "65903\tnormal\t-\tĠhello",
        ]
    );
    // Byte-level BPE (DeepSeek): a newline, a leading space and CJK text find the tokens stored
    // as Ċ, Ġthe and ä½łå¥½.
    let deepseek = fixture("real/ggml-vocab-deepseek-llm.gguf");
    let first = |query: &str| {
        let out = ggufscope(&["tokens", "--search", query], &deepseek);
        stdout(&out).lines().next().unwrap_or_default().to_string()
    };
    assert_eq!(first("\\n"), "185\tnormal\t-\tĊ");
    assert_eq!(first(" the"), "254\tnormal\t-\tĠthe");
    assert_eq!(first("你好"), "84313\tnormal\t-\tä½łå¥½");
    let out = ggufscope(&["tokens", "--id", "255001"], &command_r);
    assert_eq!(stdout(&out), "255001\tcontrol\t-\t<|END_OF_TURN_TOKEN|>\n");

    let phi3 = fixture("real/ggml-vocab-phi-3.gguf");
    assert_eq!(
        stdout(&ggufscope(&["tokens", "--search", "▁für"], &phi3)),
        "1865\tnormal\t-1606\t▁für\n10528\tnormal\t-10269\t▁Für\n"
    );
    assert_eq!(
        stdout(&ggufscope(&["tokens", "--id", "13"], &phi3)),
        "13\tbyte\t0\t<0x0A>\n"
    );

    // Newlines typed as they are shown; exact matches first.
    let out = ggufscope(&["tokens", "--search", "\\n\\n\\n"], &gemma());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().take(2).collect();
    assert_eq!(
        lines,
        [
            "109\tuser-defined\t-1000\t\\n\\n\\n",
            "110\tuser-defined\t-1000\t\\n\\n\\n\\n"
        ]
    );
    let out = ggufscope(&["tokens", "--search", "日本"], &gemma());
    assert_eq!(stdout(&out).lines().count(), 9);
    assert!(stdout(&out).starts_with("10956\tnormal\t"), "{}", stdout(&out));
}

#[test]
fn nothing_found_is_status_1() {
    let phi3 = fixture("real/ggml-vocab-phi-3.gguf");
    let out = ggufscope(&["tokens", "--search", "no such token\\n"], &phi3);
    assert_eq!((out.status.code(), stdout(&out).as_str()), (Some(1), ""));
    assert!(
        stderr(&out).ends_with("no token contains \"no such token\\n\"\n"),
        "{}",
        stderr(&out)
    );
    let out = ggufscope(&["tokens", "--id", "32064"], &phi3);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).ends_with("no token 32064: the vocabulary has 32064 tokens\n"),
        "{}",
        stderr(&out)
    );
    let out = ggufscope(&["tokens"], &fixture("synth/truncated-in-kv.gguf"));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn json() {
    let out = ggufscope(&["tokens", "--json"], &fixture("real/ggml-vocab-command-r.gguf"));
    let doc: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["vocab_size"], 256_000);
    assert_eq!(doc["types"]["user_defined"], 999);
    assert_eq!(doc["special"][1]["text"], "<|END_OF_TURN_TOKEN|>");
    assert_eq!(doc["special"][1]["id"], 255_001);
    assert_eq!(doc["flags"]["add_bos_token"], true);
    assert_eq!(doc["chat_templates"][0]["name"], Json::Null);
    assert_eq!(doc["chat_templates"][2]["name"], "rag");
    // The fields in the documented order: the top-level lines of the pretty-printed document.
    let text = stdout(&out);
    let keys: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("  \"")?.split_once('"').map(|(k, _)| k))
        .collect();
    assert_eq!(
        keys,
        [
            "schema_version",
            "model",
            "pre",
            "vocab_size",
            "merges",
            "scores",
            "types",
            "special",
            "flags",
            "chat_templates"
        ]
    );

    let out = ggufscope(
        &["tokens", "--json", "--search", "<0x0A>"],
        &fixture("real/ggml-vocab-phi-3.gguf"),
    );
    let doc: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc,
        serde_json::json!({"total": 1, "start": 0, "tokens": [{"id": 13, "text": "<0x0A>", "decoded": "\\n", "type": "byte", "score": 0.0}]})
    );
}

#[test]
fn hostile_token_texts_cannot_reach_the_terminal() {
    let file = temp_file(
        "hostile-tokens.gguf",
        &GgufBuilder::new()
            .kv("tokenizer.ggml.model", "llama\x1b[2J")
            .kv(
                "tokenizer.ggml.tokens",
                Value::Array(strings(&["a\x1b]0;pwned\x07", "tab\there", "\u{202E}evil"])),
            )
            .kv("tokenizer.ggml.bos_token_id", 0u32)
            .kv(
                "tokenizer.chat_template",
                "{{ bos_token }}\x1b[31m\n\t{{ eos_token }}",
            )
            .build(),
    );
    let summary = stdout(&ggufscope(&["tokens"], &file));
    assert!(!summary.contains('\x1b'), "{summary}");
    assert!(summary.contains("  model           llama\\x1B[2J\n"), "{summary}");
    assert!(
        summary.contains("  special tokens  bos 0 a\\x1B]0;pwned\\x07\n"),
        "{summary}"
    );
    let rows = stdout(&ggufscope(&["tokens", "--search", ""], &file));
    assert_eq!(
        rows,
        "0\t-\t-\ta\\x1B]0;pwned\\x07\n1\t-\t-\ttab\\there\n2\t-\t-\t\\u{202E}evil\n"
    );
    // Templates keep their line breaks and tabs; other control characters are escaped.
    let template = stdout(&ggufscope(&["template"], &file));
    assert_eq!(template, "{{ bos_token }}\\x1B[31m\n\t{{ eos_token }}\n");
    let rendered = ggufscope(&["template", "--render"], &file);
    assert_eq!(stdout(&rendered), "a\\x1B]0;pwned\\x07\\x1B[31m\n\t\n");
}

#[test]
fn template_as_stored() {
    let stablelm = fixture("real/ggml-vocab-stablelm.gguf");
    let out = ggufscope(&["template"], &stablelm);
    assert!(out.status.success());
    let reference: Json = serde_json::from_str(
        &std::fs::read_to_string(fixture("ref/ggml-vocab-stablelm.gguf.dump.json")).unwrap(),
    )
    .unwrap();
    let stored = reference["metadata"]["tokenizer.chat_template"]["value"]
        .as_str()
        .unwrap();
    assert_eq!(stdout(&out), format!("{stored}\n"));

    let command_r = fixture("real/ggml-vocab-command-r.gguf");
    let all = stdout(&ggufscope(&["template"], &command_r));
    let headings: Vec<&str> = all.lines().filter(|l| l.starts_with("==> ")).collect();
    assert_eq!(headings, ["==> default <==", "==> tool_use <==", "==> rag <=="]);
    let rag = stdout(&ggufscope(&["template", "--name", "rag"], &command_r));
    assert!(
        rag.starts_with("{{ bos_token }}{% if messages[0]['role'] == 'system' %}"),
        "{rag}"
    );

    let out = ggufscope(&["template", "--name", "nope"], &command_r);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).ends_with("no chat template named nope\n"));
    let out = ggufscope(&["template"], &gemma());
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).ends_with("no chat template (tokenizer.chat_template)\n"));
}

#[test]
fn template_rendered() {
    // stablelm: llama.cpp would refuse its tokenizer (pre-tokenizer "stablelm"), said on stderr;
    // the template renders with the tokens' texts as stored.
    let stablelm = fixture("real/ggml-vocab-stablelm.gguf");
    let turns = "<|system|>\nYou are a helpful assistant.<|endoftext|>\n<|user|>\nWhat is a GGUF file?<|endoftext|>\n\
        <|assistant|>\nA single file holding a model's weights and metadata.<|endoftext|>\n\
        <|user|>\nHow do I look inside one?<|endoftext|>\n";
    let out = ggufscope(&["template", "--render"], &stablelm);
    assert!(out.status.success());
    assert_eq!(stdout(&out), format!("{turns}<|assistant|>\n"));
    assert!(
        stderr(&out).contains("note: llama.cpp would not load this file's tokenizer"),
        "{}",
        stderr(&out)
    );
    let out = ggufscope(&["template", "--render", "--no-generation-prompt"], &stablelm);
    assert_eq!(stdout(&out), turns);

    // command-r adds BOS itself: llama.cpp strips the <BOS_TOKEN> its template writes.
    let command_r = fixture("real/ggml-vocab-command-r.gguf");
    let out = ggufscope(&["template", "--render", "--name", "default"], &command_r);
    assert!(stdout(&out).starts_with("<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>You are a helpful assistant."));
    assert!(stdout(&out).ends_with("<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>\n"));

    // A file without a template: llama.cpp's ChatML, said as such.
    let out = ggufscope(&["template", "--render"], &gemma());
    assert!(out.status.success());
    assert!(stdout(&out).starts_with("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"));
    assert!(stderr(&out).ends_with("note: the file has no chat template: llama.cpp falls back to ChatML\n"));
}

/// `--messages`, `--kwargs` and `--json`: the prompt and its ids, as llama-server builds and
/// tokenizes them (the same as the reference data of gguf-template's tests).
#[test]
fn template_rendered_for_a_conversation() {
    let dir = std::env::temp_dir().join(format!("ggufscope-conv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let list = dir.join("list.json");
    std::fs::write(
        &list,
        r#"[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]"#,
    )
    .unwrap();
    let phi3 = fixture("real/ggml-vocab-phi-3.gguf");
    let path = list.to_str().unwrap();
    // phi-3 prints no system message: llama.cpp puts it before the user's.
    let out = ggufscope(&["template", "--render", "--messages", path], &phi3);
    assert_eq!(stdout(&out), "<|user|>\nBe brief.\nHi<|end|>\n<|assistant|>\n");
    assert!(stderr(&out).contains("note: the template prints no system message"));
    let out = ggufscope(&["template", "--render", "--messages", path, "--json"], &phi3);
    let doc: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["prompt"], "<|user|>\nBe brief.\nHi<|end|>\n<|assistant|>\n");
    // <s> (added by the tokenizer), <|user|>, "\n", ...: the ids llama-server feeds the model.
    let ids: Vec<u64> = doc["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(&ids[..2], [1, 32010]);
    assert_eq!(ids.last(), Some(&32001)); // <|assistant|>, which takes the line end after it (rstrip)
    assert_eq!(doc["template"], "default");

    // The request body form, with a kwarg the template reads.
    let body = dir.join("body.json");
    std::fs::write(
        &body,
        r#"{"messages": [{"role": "user", "content": "Hi"}], "add_generation_prompt": false, "chat_template_kwargs": {"greeting": "Hello"}}"#,
    )
    .unwrap();
    let file = temp_file(
        "kwargs.gguf",
        &GgufBuilder::new()
            .kv(
                "tokenizer.chat_template",
                "{{ greeting }}|{{ enable_thinking }}|{{ add_generation_prompt }}|{{ messages[0].content }}",
            )
            .build(),
    );
    let out = ggufscope(
        &["template", "--render", "--messages", body.to_str().unwrap()],
        &file,
    );
    assert_eq!(stdout(&out), "Hello|False||Hi\n");
    let out = ggufscope(
        &[
            "template",
            "--render",
            "--messages",
            body.to_str().unwrap(),
            "--kwargs",
            r#"{"greeting": "Hey", "enable_thinking": true}"#,
        ],
        &file,
    );
    assert_eq!(stdout(&out), "Hey|True||Hi\n");

    // Bad input: said with what and where.
    let out = ggufscope(&["template", "--render", "--kwargs", "[1]"], &file);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).ends_with("--kwargs: chat_template_kwargs must be an object\n"),
        "{}",
        stderr(&out)
    );
    std::fs::write(&list, r#"[{"content": "no role"}]"#).unwrap();
    let out = ggufscope(&["template", "--render", "--messages", path], &file);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("Failed to parse messages: Missing 'role' in message"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn template_with_100000_marked_lines() {
    // 1.8 MB, a mark on every line: the lines of the marks are counted in one pass (counted from
    // the start for each mark, this took 39 s).
    let template = "{{ x.__class__ }}\n".repeat(100_000);
    let file = temp_file(
        "marked-lines.gguf",
        &GgufBuilder::new()
            .kv("tokenizer.chat_template", template.as_str())
            .build(),
    );
    let started = std::time::Instant::now();
    let json = ggufscope(&["tokens", "--json"], &file);
    let doc: Json = serde_json::from_slice(&json.stdout).unwrap();
    let marks = doc["chat_templates"][0]["marks"].as_array().unwrap();
    assert_eq!(marks.len(), 100_000);
    assert_eq!(
        (&marks[0]["line"], &marks[0]["text"]),
        (&Json::from(1), &Json::from("__class__"))
    );
    assert_eq!(marks[99_999]["line"], 100_000);
    assert_eq!(marks[99_999]["start"], 99_999 * 18 + 5);
    assert_eq!(doc["chat_templates"][0]["lines"], 100_001);
    let summary = stdout(&ggufscope(&["tokens"], &file));
    assert!(
        summary.contains("  chat templates  default (100001 lines)\n"),
        "{summary}"
    );
    assert_eq!(stdout(&ggufscope(&["template"], &file)), template);
    // A hang guard, not a benchmark: each run takes well under a second.
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
}

#[test]
fn template_that_fails_to_render() {
    let file = temp_file(
        "failing-templates.gguf",
        &GgufBuilder::new()
            .kv(
                "tokenizer.ggml.tokens",
                Value::Array(Array::String(["<s>"].iter().collect())),
            )
            .kv(
                "tokenizer.chat_template",
                "{{ bos_token }}\n{{ ''.__class__.__mro__ }}",
            )
            .kv(
                "tokenizer.chat_template.loop",
                "{% for i in range(100000) %}{% for j in range(100000) %}.{% endfor %}{% endfor %}",
            )
            .kv("tokenizer.chat_template.slow", "{{ 1 in [0] * 100000000 }}")
            .kv("tokenizer.chat_template.ok", "{{ messages|length }}")
            .build(),
    );
    let prefix = format!("ggufscope: {}: ", file.display());
    let render = |name: &str| {
        let out = ggufscope(&["template", "--render", "--name", name], &file);
        (
            out.status.code(),
            stdout(&out),
            stderr(&out).strip_prefix(&prefix).unwrap_or_default().to_owned(),
        )
    };
    // Four messages, the system one folded into the next: this template prints none.
    assert_eq!(render("ok").1, "3\n");
    assert_eq!(
        render("default"),
        (
            Some(1),
            String::new(),
            "line 2: undefined value: `.__class__.__mro__` cannot be used here: Python object internals do not exist in this sandbox\n".into()
        )
    );
    assert_eq!(
        render("loop").2,
        "line 1: stopped: the template used up its fuel (1000000 units of instructions and data), as an endless loop would\n"
    );
    assert_eq!(render("slow").2, "stopped: the template ran for more than 5 s\n");
}
