//! `ggufscope edit` run as a user would: exact copies without edits, edits that read back with the
//! same tensor data, and refusals that leave nothing behind (no OUT, no temporary file).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::cli::{ggufscope, stderr, stdout};
use gguf_core::{Array, Header, Value};
use gguf_test_support::fixture;
use serde_json::Value as Json;

/// An empty directory of this test's own.
fn dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("edit").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names in `dir`, sorted: what a run left behind.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn header_of(bytes: &[u8]) -> Header {
    gguf_core::parse(bytes).unwrap()
}

#[test]
fn no_edits_copy_the_file_byte_for_byte() {
    let d = dir("exact");
    for rel in [
        "synth/minimal.gguf",
        "synth/all-types.gguf",
        "synth/big-endian.gguf",
        "synth/quants-be.gguf",
        "synth/align-4096.gguf",
        "synth/invalid-utf8.gguf",
        "synth/unicode-keys.gguf",
        "synth/sharded-00002-of-00003.gguf",
        "real/ggml-vocab-aquila.gguf",
        "real/ggml-vocab-phi-3.gguf",
        "real/ggml-vocab-dbrx.gguf",
    ] {
        let input = fixture(rel);
        let out = d.join(input.file_name().unwrap());
        let run = ggufscope(["edit", arg(&input), "-o", arg(&out)]);
        assert!(run.status.success(), "{rel}: {}", stderr(&run));
        assert!(
            std::fs::read(&out).unwrap() == std::fs::read(&input).unwrap(),
            "{rel}: the copy differs"
        );
        assert!(stdout(&run).contains("no changes: an exact copy"), "{rel}");
    }
    assert_eq!(listing(&d).len(), 11, "no temporary file left: {:?}", listing(&d));
}

#[test]
fn a_chat_template_from_a_file_and_an_eos_id_read_back_with_the_same_tensor_data() {
    let d = dir("template");
    let template = "{% for m in messages %}<|{{ m.role }}|>\n{{ m.content }}<|end|>\n{% endfor %}";
    let template_path = crate::cli::temp_file("edit-inputs", "chat.jinja", template.as_bytes());
    for rel in ["synth/all-types.gguf", "synth/quants-be.gguf"] {
        let input = fixture(rel);
        let out = d.join(input.file_name().unwrap());
        let run = ggufscope([
            "edit",
            arg(&input),
            "-o",
            arg(&out),
            "--set-file",
            &format!("tokenizer.chat_template={}", arg(&template_path)),
            "--set",
            "tokenizer.ggml.eos_token_id:u32=2",
            "--set",
            "general.architecture=llama",
            "--set",
            "x.stop:arr[u32]=[1,106]",
        ]);
        assert!(run.status.success(), "{rel}: {}", stderr(&run));
        let text = stdout(&run);
        assert!(
            text.contains("tokenizer.ggml.eos_token_id (UINT32): (absent) → 2"),
            "{rel}: {text}"
        );
        assert!(
            text.contains("general.architecture: \"llama\" → \"llama\""),
            "{text}"
        );
        assert!(
            text.contains("x.stop (ARRAY[UINT32]): (absent) → [1, 106]"),
            "{text}"
        );

        let (old, new) = (std::fs::read(&input).unwrap(), std::fs::read(&out).unwrap());
        let (before, after) = (header_of(&old), header_of(&new));
        let m = &after.metadata;
        assert_eq!(
            m.get("tokenizer.chat_template").and_then(Value::as_str),
            Some(template)
        );
        assert_eq!(m.get("tokenizer.ggml.eos_token_id"), Some(&Value::U32(2)));
        assert_eq!(m.get("x.stop"), Some(&Value::Array(Array::U32(vec![1, 106]))));
        assert_eq!(m.len(), before.metadata.len() + 3);
        assert_eq!(after.tensors.len(), before.tensors.len());
        for (a, b) in after.tensors.iter().zip(&before.tensors) {
            assert_eq!(
                (&a.name, &a.dims, a.ty, a.offset),
                (&b.name, &b.dims, b.ty, b.offset)
            );
        }
        assert_eq!((after.version, after.endian), (before.version, before.endian));
        assert!(after.data_offset > before.data_offset);
        assert_eq!(
            new[after.data_offset as usize..],
            old[before.data_offset as usize..],
            "{rel}: the data sections"
        );
        // The copy validates as the input does.
        let check = ggufscope(["validate", arg(&out)]);
        assert!(check.status.success(), "{}", stdout(&check));
    }
    assert_eq!(listing(&d).len(), 2, "{:?}", listing(&d));
}

#[test]
fn json_lists_the_changes_and_the_sizes() {
    let d = dir("json");
    let input = fixture("real/ggml-vocab-phi-3.gguf");
    let out = d.join("phi.gguf");
    let run = ggufscope([
        "edit",
        arg(&input),
        "-o",
        arg(&out),
        "--json",
        "--delete",
        "tokenizer.ggml.add_bos_token",
        "--set",
        "tokenizer.ggml.eos_token_id=7",
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let doc: Json = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(doc["in"], arg(&input));
    assert_eq!(doc["out"], arg(&out));
    let changes = doc["changes"].as_array().unwrap();
    // In command-line order: the delete came first.
    assert_eq!(changes[0]["key"], "tokenizer.ggml.add_bos_token");
    assert_eq!(changes[0]["action"], "delete");
    assert_eq!(changes[0]["type"], "BOOL");
    assert_eq!(changes[0]["old"], true);
    assert_eq!(changes[0]["new"], Json::Null);
    assert_eq!(changes[1]["action"], "set");
    assert_eq!(changes[1]["type"], "UINT32");
    assert_eq!(changes[1]["old"], 32000);
    assert_eq!(changes[1]["new"], 7);
    let after = header_of(&std::fs::read(&out).unwrap());
    assert_eq!(doc["header_size"]["before"], 726_019);
    assert_eq!(doc["header_size"]["after"], after.header_len);
    assert_eq!(doc["data_offset"]["before"], 726_048);
    assert_eq!(doc["data_offset"]["after"], after.data_offset);
}

/// Runs an edit that must be refused with `status`, naming `key`, leaving `d` as it was.
fn assert_refused(d: &Path, input: &Path, edits: &[&str], status: i32, key: &str) {
    let before = listing(d);
    let out = d.join("out.gguf");
    let mut args = vec!["edit", arg(input), "-o", arg(&out)];
    args.extend_from_slice(edits);
    let run = ggufscope(&args);
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(status), "{edits:?}: {err}");
    assert!(err.contains(key), "{edits:?}: the key is named: {err}");
    assert_eq!(
        listing(d),
        before,
        "{edits:?}: nothing written, no temporary file"
    );
}

#[test]
fn refused_edits_write_nothing() {
    let d = dir("refused");
    let input = fixture("synth/all-types.gguf");
    let bad_text = crate::cli::temp_file("edit/refused-input", "latin1.txt", b"caf\xe9");
    let set_file = format!("tokenizer.chat_template={}", arg(&bad_text));
    for (edits, status, key) in [
        (&["--set", "general.alignment=64"][..], 2, "general.alignment"),
        (&["--delete", "general.alignment"], 2, "general.alignment"),
        (&["--set", "t.u8.max=300"], 2, "t.u8.max"),
        (&["--set", "general.name:u32=abc"], 2, "general.name"),
        (&["--set", "x.missing=1"], 2, "x.missing"),
        (&["--delete", "x.missing"], 2, "x.missing"),
        (&["--set", "x.ids:arr[u32]=[1,"], 2, "x.ids"),
        (&["--set", "x.k:u128=1"], 2, "x.k"),
        (&["--set", "=1"], 2, "key is empty"),
        (&["--set", "no-equals-sign"], 2, "no-equals-sign"),
        (&["--set-file", set_file.as_str()], 2, "tokenizer.chat_template"),
        (
            &["--set-file", "tokenizer.chat_template=/nonexistent/t.jinja"],
            2,
            "tokenizer.chat_template",
        ),
        // New validator errors: exit 1.
        (&["--delete", "general.architecture"], 1, "missing-architecture"),
        (
            &["--set", "llama.context_length:str=long"],
            1,
            "llama.context_length",
        ),
        (
            &[
                "--set",
                "tokenizer.chat_template:str={{ cycler.__init__.__globals__.os }}",
            ],
            1,
            "tokenizer.chat_template",
        ),
        // A good edit, then a bad one: nothing is written.
        (
            &["--set", "general.name=ok", "--set", "t.i8.min=-129"],
            2,
            "t.i8.min",
        ),
    ] {
        assert_refused(&d, &input, edits, status, key);
    }
    // Unreadable inputs.
    assert_refused(&d, &d.join("missing.gguf"), &[], 2, "missing.gguf");
    assert_refused(
        &d,
        &fixture("synth/truncated-in-kv.gguf"),
        &[],
        2,
        "truncated-in-kv.gguf",
    );
}

#[test]
fn an_existing_out_needs_force_and_out_is_never_in() {
    let d = dir("force");
    let input = crate::cli::temp_file(
        "edit/force",
        "in.gguf",
        &std::fs::read(fixture("synth/minimal.gguf")).unwrap(),
    );
    let out = crate::cli::temp_file("edit/force", "out.gguf", b"keep me");

    let run = ggufscope([
        "edit",
        arg(&input),
        "-o",
        arg(&out),
        "--set",
        "general.name:str=x",
    ]);
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
    assert!(stderr(&run).contains("--force"));
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me");

    let run = ggufscope([
        "edit",
        arg(&input),
        "-o",
        arg(&out),
        "--force",
        "--set",
        "general.name:str=x",
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let after = header_of(&std::fs::read(&out).unwrap());
    assert_eq!(
        after.metadata.get("general.name").and_then(Value::as_str),
        Some("x")
    );

    // OUT is IN, however it is spelled, even with --force: refused, IN untouched.
    let original = std::fs::read(&input).unwrap();
    let dotted = d.join(".").join("in.gguf");
    let link = d.join("hard-link.gguf");
    std::fs::hard_link(&input, &link).unwrap();
    for same in [&input, &dotted, &link] {
        let run = ggufscope([
            "edit",
            arg(&input),
            "-o",
            arg(same),
            "--force",
            "--set",
            "general.name:str=y",
        ]);
        assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
        assert!(
            stderr(&run).contains("the output is the input"),
            "{}",
            stderr(&run)
        );
    }
    assert_eq!(std::fs::read(&input).unwrap(), original);
    assert_eq!(listing(&d), ["hard-link.gguf", "in.gguf", "out.gguf"]);
}

#[test]
fn edits_apply_in_command_line_order() {
    let d = dir("order");
    let input = fixture("synth/minimal.gguf");
    let out = d.join("out.gguf");
    // A delete then a typed set of the same key moves it to the end with the new type.
    let run = ggufscope([
        "edit",
        arg(&input),
        "-o",
        arg(&out),
        "--set",
        "x.a:u8=1",
        "--delete",
        "x.a",
        "--set",
        "x.a:str=two",
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let after = header_of(&std::fs::read(&out).unwrap());
    assert_eq!(after.metadata.get("x.a").and_then(Value::as_str), Some("two"));
    // The other order fails: the delete finds no key.
    let run = ggufscope([
        "edit",
        arg(&input),
        "-o",
        arg(&d.join("b.gguf")),
        "--delete",
        "x.a",
        "--set",
        "x.a:u8=1",
    ]);
    assert_eq!(run.status.code(), Some(2));
}

/// A minimal HTTP server on 127.0.0.1 that honours Range (one request per connection), serving
/// `bytes` at any path; it runs until the test process ends. A request for bytes from
/// `stall_from` on gets its headers and 16 bytes, then nothing more, and is told to the
/// receiver. Returns the file's URL.
fn serve(bytes: Vec<u8>, stall_from: usize) -> (String, mpsc::Receiver<usize>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (stalled, requests) = mpsc::channel();
    std::thread::spawn(move || {
        let mut open = Vec::new();
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            let request = String::from_utf8_lossy(&request).to_ascii_lowercase();
            let last = bytes.len() - 1;
            let (start, end) = request
                .lines()
                .find_map(|l| l.strip_prefix("range: bytes="))
                .and_then(|r| {
                    let (a, b) = r.trim().split_once('-')?;
                    Some((a.parse().ok()?, b.parse().unwrap_or(last).min(last)))
                })
                .unwrap_or((0, last));
            let body = &bytes[start..=end];
            let head = format!(
                "HTTP/1.1 206 Partial Content\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nContent-Range: bytes {start}-{end}/{}\r\nConnection: close\r\n\r\n",
                body.len(),
                bytes.len()
            );
            if start >= stall_from {
                let _ = s
                    .write_all(head.as_bytes())
                    .and_then(|()| s.write_all(&body[..16]));
                let _ = stalled.send(start);
                open.push(s);
                continue;
            }
            let _ = s.write_all(head.as_bytes()).and_then(|()| s.write_all(body));
        }
    });
    (format!("http://{addr}/model.gguf"), requests)
}

/// 1.2 MB of tensor data, past the first 256 KiB read of a URL, in a pattern so that a
/// misplaced byte shows; and its data offset.
fn data_past_the_first_read() -> (Vec<u8>, usize) {
    use gguf_core::GgmlType;
    use gguf_core::testkit::GgufBuilder;
    let mut file = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .tensor("a", &[100_000], GgmlType::F32)
        .tensor("b", &[200_000], GgmlType::F32)
        .with_tensor_data()
        .build();
    let data_offset = header_of(&file).data_offset as usize;
    for (i, b) in file[data_offset..].iter_mut().enumerate() {
        *b = (i % 251) as u8;
    }
    (file, data_offset)
}

#[test]
fn a_url_is_read_by_range_requests() {
    let (file, data_offset) = data_past_the_first_read();
    let (url, _) = serve(file.clone(), usize::MAX);
    let d = dir("url");

    let exact = d.join("exact.gguf");
    let run = ggufscope(["edit", &url, "-o", arg(&exact)]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(std::fs::read(&exact).unwrap() == file, "the copy by URL differs");

    let edited = d.join("edited.gguf");
    let run = ggufscope([
        "edit",
        &url,
        "-o",
        arg(&edited),
        "--set",
        "general.name:str=from a URL",
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let new = std::fs::read(&edited).unwrap();
    let after = header_of(&new);
    assert_eq!(
        after.metadata.get("general.name").and_then(Value::as_str),
        Some("from a URL")
    );
    assert!(
        new[after.data_offset as usize..] == file[data_offset..],
        "the data sections"
    );
    assert_eq!(listing(&d), ["edited.gguf", "exact.gguf"]);
}

/// SIGINT, SIGTERM and SIGHUP while the data section is being copied (its request stalls): the
/// temporary file is removed, the status is 128 + the signal's number, and there is no OUT.
#[test]
fn a_signal_during_the_copy_removes_the_temporary_file() {
    let (file, data_offset) = data_past_the_first_read();
    for (signal, status) in [("INT", 130), ("TERM", 143), ("HUP", 129)] {
        let (url, stalled) = serve(file.clone(), data_offset);
        let d = dir(&format!("signal-{signal}"));
        let out = d.join("out.gguf");
        let child = Command::new(env!("CARGO_BIN_EXE_ggufscope"))
            .args(["edit", &url, "-o", arg(&out)])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The temporary file is created before the data section is asked for. The wait is
        // bounded only so that a broken run fails instead of hanging.
        let asked = stalled.recv_timeout(Duration::from_secs(120));
        assert_eq!(
            asked,
            Ok(data_offset),
            "SIG{signal}: the copy reached the data section"
        );
        let temp = format!(".ggufscope-{}-0.tmp", child.id());
        assert_eq!(
            listing(&d),
            [temp],
            "SIG{signal}: the temporary file is being written"
        );

        let kill = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(child.id().to_string())
            .status()
            .unwrap();
        assert!(kill.success());
        let run = child.wait_with_output().unwrap();
        assert_eq!(run.status.code(), Some(status), "SIG{signal}: {}", stderr(&run));
        assert_eq!(
            stderr(&run),
            "ggufscope edit: interrupted; nothing was written (the temporary file was removed)\n"
        );
        assert_eq!(
            listing(&d),
            Vec::<String>::new(),
            "SIG{signal}: no OUT, no temporary file"
        );
    }
}

#[test]
fn a_v1_big_endian_file_stays_v1_big_endian() {
    use gguf_core::testkit::GgufBuilder;
    use gguf_core::{Endian, GgmlType};
    let file = GgufBuilder::new()
        .version(1)
        .endian(Endian::Big)
        .kv("general.architecture", "llama")
        .kv("tokenizer.ggml.eos_token_id", 2u32)
        .tensor("t", &[64], GgmlType::F32)
        .with_tensor_data()
        .build();
    let input = crate::cli::temp_file("edit-inputs", "v1-be.gguf", &file);
    let d = dir("v1");
    let exact = d.join("exact.gguf");
    assert!(
        ggufscope(["edit", arg(&input), "-o", arg(&exact)])
            .status
            .success()
    );
    assert!(std::fs::read(&exact).unwrap() == file);
    let out = d.join("out.gguf");
    let run = ggufscope([
        "edit",
        arg(&input),
        "-o",
        arg(&out),
        "--set",
        "tokenizer.ggml.eos_token_id=3",
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let after = header_of(&std::fs::read(&out).unwrap());
    assert_eq!((after.version, after.endian), (1, Endian::Big));
    assert_eq!(
        after.metadata.get("tokenizer.ggml.eos_token_id"),
        Some(&Value::U32(3))
    );
}

/// A case's name and the keys its edits touch, with gguf-py's types and value after (None: deleted).
type CaseEdits = (&'static str, Vec<(&'static str, Option<(Json, Json)>)>);

/// FNV-1a, 64-bit: the reference's hash of the header gguf-py read.
fn fnv1a(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// gguf-py, the reference reader, read back files this command wrote (three cases: a real
/// vocabulary file, a big-endian one, every value type; `scripts/gguf-py-edit-reference.py` made
/// `tests/data/edit-gguf-py.json` from them). Here the same edits are made again: the header must
/// be the very bytes gguf-py read (its hash), and what gguf-py read must hold exactly the edits —
/// the changed keys with their new values and types, added keys at the end in order, deleted keys
/// gone, every other key as it was in the input, every tensor info unchanged, the data offset
/// aligned —, and the data section must be the input's, byte for byte (the vocabulary file has
/// none: it ends before its data offset, as its output does).
#[test]
fn edits_read_back_in_gguf_py() {
    let reference: Json = serde_json::from_str(include_str!("../data/edit-gguf-py.json")).unwrap();
    let template = reference["template"].as_str().unwrap();
    let template_path = crate::cli::temp_file("edit-gguf-py", "template.jinja", template.as_bytes());
    let s = |v: &str| Json::String(v.into());
    let strs = |v: &[&str]| Json::Array(v.iter().map(|x| s(x)).collect());
    let expected: [CaseEdits; 3] = [
        (
            "phi-3",
            vec![
                ("tokenizer.chat_template", Some((strs(&["STRING"]), s(template)))),
                (
                    "tokenizer.ggml.eos_token_id",
                    Some((strs(&["UINT32"]), s("32007"))),
                ),
                (
                    "tokenizer.ggml.eos_token_ids",
                    Some((strs(&["ARRAY", "UINT32"]), strs(&["32000", "32007"]))),
                ),
                ("general.name", Some((strs(&["STRING"]), s("phi-3 edited")))),
                ("x.scale", Some((strs(&["FLOAT32"]), serde_json::json!(0.125)))),
                ("x.flag", Some((strs(&["BOOL"]), Json::Bool(true)))),
                ("tokenizer.ggml.padding_token_id", None),
            ],
        ),
        (
            "big-endian",
            vec![
                ("general.name", Some((strs(&["STRING"]), s("big-endian, edited")))),
                (
                    "x.ids",
                    Some((strs(&["ARRAY", "UINT64"]), strs(&["1", "18446744073709551615"]))),
                ),
                (
                    "x.words",
                    Some((strs(&["ARRAY", "STRING"]), strs(&["a", "é", ""]))),
                ),
            ],
        ),
        (
            "all-types",
            vec![
                (
                    "a.string",
                    Some((strs(&["ARRAY", "STRING"]), strs(&["one", "two"]))),
                ),
                ("a.i8", Some((strs(&["ARRAY", "INT8"]), strs(&["-128", "127"])))),
                ("t.f64", Some((strs(&["FLOAT64"]), serde_json::json!(2.5)))),
                ("t.string.empty", None),
            ],
        ),
    ];
    let cases = reference["cases"].as_array().unwrap();
    assert_eq!(cases.len(), expected.len());
    for (case, (name, edits)) in cases.iter().zip(&expected) {
        assert_eq!(case["name"], *name);
        let input = fixture(case["input"].as_str().unwrap());
        let out = template_path.with_file_name(format!("{name}.gguf"));
        let _ = std::fs::remove_file(&out);
        let mut args = vec![
            "edit".to_string(),
            input.display().to_string(),
            "-o".into(),
            out.display().to_string(),
        ];
        for arg in case["args"].as_array().unwrap() {
            args.push(
                arg.as_str()
                    .unwrap()
                    .replace("{template}", &template_path.display().to_string()),
            );
        }
        let run = ggufscope(&args);
        assert!(run.status.success(), "{name}: {}", stderr(&run));

        let (before, after) = (&case["before"], &case["after"]);
        let written = std::fs::read(&out).unwrap();
        let original = std::fs::read(&input).unwrap();
        let (new_offset, old_offset) = (
            after["data_offset"].as_u64().unwrap() as usize,
            before["data_offset"].as_u64().unwrap() as usize,
        );
        assert_eq!(
            fnv1a(&written[..new_offset.min(written.len())]),
            case["header_fnv1a"].as_str().unwrap(),
            "{name}: the header gguf-py read is the one written today"
        );
        assert!(
            written.get(new_offset..).unwrap_or_default() == original.get(old_offset..).unwrap_or_default(),
            "{name}: the data section is the input's"
        );
        assert_eq!(
            new_offset as u64 % after["alignment"].as_u64().unwrap(),
            0,
            "{name}"
        );
        assert_eq!(after["tensors"], before["tensors"], "{name}: the tensor infos");
        assert!(
            !after["tensors"].as_array().unwrap().is_empty() || *name == "phi-3",
            "{name}"
        );
        assert_eq!(after["byte_order"], before["byte_order"], "{name}");

        // The keys: the input's in order with the edited ones changed or gone, then the added ones.
        let by_key = |fields: &Json| -> Vec<(String, Json)> {
            fields
                .as_array()
                .unwrap()
                .iter()
                .map(|f| (f["key"].as_str().unwrap().to_string(), f.clone()))
                .collect()
        };
        let mut want = by_key(&before["fields"]);
        for (key, edit) in edits {
            let at = want.iter().position(|(k, _)| k == key);
            match (edit, at) {
                (None, at) => {
                    want.remove(at.unwrap_or_else(|| panic!("{name}: {key} is not in the input")));
                }
                (Some((types, value)), at) => {
                    let field = serde_json::json!({"key": key, "types": types, "value": value});
                    match at {
                        Some(i) => want[i].1 = field,
                        None => want.push((key.to_string(), field)),
                    }
                }
            }
        }
        assert_eq!(by_key(&after["fields"]), want, "{name}: what gguf-py read");
    }
}
