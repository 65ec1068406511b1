//! Text that could disguise itself never reaches a terminal raw: every command run on the
//! spoofing fixture (`testkit::spoofing`: U+202E, U+200B and ESC in the model's name, a URL
//! value, keys, a token, the chat template and a tensor name), from a path and an upstream folder
//! named with them too, writes them only as `\u{202E}`, `\u{200B}` and `\x1B` — and in its
//! `--json` documents only as JSON escapes, which read back as the characters themselves.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

/// The characters that must never come out raw.
const RAW: [&str; 3] = ["\u{202E}", "\u{200B}", "\x1b"];

/// A path in this test's temp dir whose last part is `name` with `\u{202E}FUGG\u{200B}\x1b[2J`.
fn hostile_path(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("spoofing-cli");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(OsString::from_vec(
        format!("{name}\u{202E}FUGG\u{200B}\x1b[2J").into_bytes(),
    ))
}

/// Runs `ggufscope args…` and returns its stdout and stderr together, after checking that
/// neither holds a raw bidirectional control, zero-width space or escape.
fn run(args: &[OsString]) -> String {
    let out = crate::cli::ggufscope(args);
    let text = crate::cli::stdout(&out) + &crate::cli::stderr(&out);
    for raw in RAW {
        assert!(!text.contains(raw), "{args:?} wrote {raw:?} raw:\n{text}");
    }
    text
}

#[test]
fn no_command_writes_a_files_or_paths_hidden_characters_raw() {
    let file = hostile_path("model");
    std::fs::write(&file, gguf_core::testkit::spoofing()).unwrap();
    let upstream = hostile_path("upstream");
    std::fs::create_dir_all(&upstream).unwrap();
    std::fs::write(
        upstream.join("config.json"),
        r#"{"architectures": ["LlamaForCausalLM\u202e"], "model_type": "llama\u202e\u200b\u001b[2J", "hidden_size": 4}"#,
    )
    .unwrap();
    let f = file.clone().into_os_string();
    let missing = hostile_path("missing").into_os_string();
    let tensor = OsString::from("token_embd\\u{202E}.weight\\u{200B}\\x1B[1m");
    let os = |s: &str| OsString::from(s);
    let shown_path = "model\\u{202E}FUGG\\u{200B}\\x1B[2J";

    let info = run(&[os("info"), f.clone()]);
    assert!(
        info.contains("Llama-3-8B-Instruct-\\u{202E}FUGG.exe\\u{200B}\\x1B[2J"),
        "{info}"
    );
    assert!(info.contains(shown_path), "{info}");
    let validate = run(&[os("validate"), f.clone()]);
    assert!(validate.contains(&format!("{shown_path}:")), "{validate}");
    assert!(validate.contains("disguised-key"), "{validate}");
    assert!(
        validate.contains("general.arch\\u{200B}itecture\\u{202E}\\x1B[0m"),
        "{validate}"
    );
    let tokens = run(&[os("tokens"), f.clone(), os("--id"), os("1")]);
    assert!(tokens.contains("ok\\u{202E}kayak\\u{200B}\\x1B[5m"), "{tokens}");
    run(&[os("tokens"), f.clone()]);
    run(&[os("tokens"), f.clone(), os("--search"), os("kayak")]);
    let template = run(&[os("template"), f.clone()]);
    assert!(template.contains("{{ bos_token }}\\u{202E}"), "{template}");
    run(&[os("template"), f.clone(), os("--render")]);
    let described = run(&[os("tensor"), f.clone(), tensor]);
    assert!(
        described.contains("token_embd\\u{202E}.weight\\u{200B}\\x1B[1m"),
        "{described}"
    );
    let no_tensor = run(&[os("tensor"), f.clone(), os("nope\x1b[2J\u{202E}")]);
    assert!(no_tensor.contains("nope\\x1B[2J\\u{202E}"), "{no_tensor}");
    run(&[os("diff"), f.clone(), f.clone()]);
    let up = run(&[os("upstream"), f.clone(), upstream.into_os_string()]);
    assert!(up.contains("upstream\\u{202E}FUGG\\u{200B}\\x1B[2J"), "{up}");
    // Paths in error messages.
    let unreadable = run(&[os("info"), missing.clone()]);
    assert!(
        unreadable.contains("missing\\u{202E}FUGG\\u{200B}\\x1B[2J"),
        "{unreadable}"
    );
    run(&[os("validate"), missing.clone(), f.clone()]);
    run(&[os("diff"), f.clone(), missing]);
}

#[test]
fn json_documents_escape_hidden_characters_and_read_back_as_them() {
    let file = hostile_path("json-model");
    std::fs::write(&file, gguf_core::testkit::spoofing()).unwrap();
    let f = file.into_os_string();
    let os = |s: &str| OsString::from(s);
    // The document as written (no character raw), and the strings it holds as a reader gets them.
    let json = |args: &[OsString]| -> (serde_json::Value, String) {
        let out = crate::cli::ggufscope(args);
        let text = crate::cli::stdout(&out);
        for raw in RAW {
            assert!(!text.contains(raw), "{args:?} wrote {raw:?} raw:\n{text}");
        }
        let value: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}\n{text}"));
        let read = value.to_string();
        (value, read)
    };
    let name = "Llama-3-8B-Instruct-\u{202E}FUGG.exe\u{200B}\x1b[2J";
    let (info, _) = json(&[os("info"), f.clone(), os("--json")]);
    assert_eq!(info["name"], name);
    let (_, validate) = json(&[os("validate"), f.clone(), os("--json")]);
    assert!(
        validate.contains("general.arch\u{200B}itecture\u{202E}"),
        "{validate}"
    );
    // A token's `text` and `tensor`'s `name` are their shown forms, escaped in the value itself.
    let (_, token) = json(&[os("tokens"), f.clone(), os("--json"), os("--id"), os("1")]);
    assert!(token.contains(r"ok\\u{202E}kayak\\u{200B}"), "{token}");
    let (_, tokenizer) = json(&[os("tokens"), f.clone(), os("--json")]);
    assert!(tokenizer.contains('\u{202E}'), "{tokenizer}");
    let tensor = "token_embd\u{202E}.weight\u{200B}\x1b[1m";
    let (_, described) = json(&[os("tensor"), f.clone(), os(tensor), os("--json")]);
    assert!(
        described.contains(r"token_embd\\u{202E}.weight\\u{200B}"),
        "{described}"
    );
    let (_, diff) = json(&[os("diff"), f.clone(), f, os("--json")]);
    assert!(diff.contains(name.split('\x1b').next().unwrap()), "{diff}");
}

/// Issue 33, item 5: the text of the commands added last — `upstream` with an architecture and
/// chat template names made of escapes (an OSC title, a screen clear), `diff` with `--values`
/// and against a file whose tensors and keys differ, `edit` — shows them only escaped.
#[test]
fn the_newer_commands_write_no_hidden_characters_raw() {
    use gguf_core::GgmlType;
    use gguf_core::testkit::GgufBuilder;
    let arch = "llama\x1b]0;pwned\x07\u{202E}";
    let file = hostile_path("arch-model");
    let bytes = GgufBuilder::new()
        .kv("general.architecture", arch)
        .kv(format!("{arch}.context_length"), 4096u32)
        .kv("tokenizer.chat_template", "{{ x }}\x1b[2J\n")
        .kv("tokenizer.chat_template.tool\x1b[2J\u{200B}", "{{ y }}\n")
        .tensor(format!("blk.0.{arch}.weight"), &[2], GgmlType::F32)
        .with_tensor_data()
        .build();
    std::fs::write(&file, bytes).unwrap();
    let upstream = hostile_path("arch-upstream");
    std::fs::create_dir_all(&upstream).unwrap();
    std::fs::write(
        upstream.join("config.json"),
        r#"{"max_position_embeddings": 8192, "model_type": "llama\u001b[2J"}"#,
    )
    .unwrap();
    std::fs::write(upstream.join("chat_template.jinja"), "{{ z }}\u{202E}\n").unwrap();
    let os = |s: &str| OsString::from(s);
    let f = file.clone().into_os_string();
    let up = run(&[os("upstream"), f.clone(), upstream.into_os_string()]);
    assert!(up.contains("llama\\x1B]0;pwned\\x07\\u{202E}"), "{up}");

    let spoof = hostile_path("spoof-model");
    std::fs::write(&spoof, gguf_core::testkit::spoofing()).unwrap();
    let s = spoof.clone().into_os_string();
    let other = crate::cli::other_values(&spoof).into_os_string();
    let values = run(&[os("diff"), os("--values"), s.clone(), other]);
    assert!(
        values.contains("token_embd\\u{202E}.weight\\u{200B}\\x1B[1m"),
        "{values}"
    );
    let against = run(&[os("diff"), s.clone(), f.clone()]);
    assert!(against.contains("blk.0.llama\\x1B]0;pwned"), "{against}");
    run(&[os("diff"), os("--values"), s.clone(), f]);

    let out = hostile_path("edited");
    let _ = std::fs::remove_file(&out);
    let edited = run(&[
        os("edit"),
        s,
        os("-o"),
        out.clone().into_os_string(),
        os("--set"),
        os("general.name=\x1b[2Jplain\u{202E}"),
        os("--delete"),
        os("general.arch\u{200B}itecture\u{202E}\x1b[0m"),
        // The new name's escape is a finding the file gains: written all the same, and listed.
        os("--allow-findings"),
    ]);
    assert!(
        edited.contains("general.arch\\u{200B}itecture\\u{202E}\\x1B[0m"),
        "{edited}"
    );
    assert!(
        edited.contains("edited\\u{202E}FUGG\\u{200B}\\x1B[2J"),
        "{edited}"
    );
}

#[test]
fn bytes_never_print_like_the_text_of_their_escapes() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("spoofing-cli");
    std::fs::create_dir_all(&dir).unwrap();
    let bytes = dir.join("key-bytes.gguf");
    let text = dir.join("key-text.gguf");
    let model = |key: &[u8]| {
        gguf_core::testkit::GgufBuilder::new()
            .kv("general.architecture", "llama")
            .kv(key, 1u32)
            .build()
    };
    std::fs::write(&bytes, model(b"a.\xFF\xFE")).unwrap();
    std::fs::write(&text, model(br"a.\xFF\xFE")).unwrap();
    let shown = run(&[
        OsString::from("diff"),
        bytes.into_os_string(),
        text.into_os_string(),
    ]);
    assert!(shown.contains(r"a.\xFF\xFE"), "{shown}");
    assert!(shown.contains(r"a.\\xFF\\xFE"), "{shown}");
}
