//! `ggufscope validate` run as a program: output lines, the JSON document, the run summary on
//! stderr and the exit status, on the shared fixtures and on files written to a temp dir.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::cli::{flat, stderr, stdout};
use gguf_core::GgmlType;
use gguf_core::testkit::GgufBuilder;
use gguf_core::text::Grouped;
use gguf_test_support::{fixture, gemma};
use serde_json::Value as Json;

fn ggufscope(args: &[&str], files: &[&Path]) -> Output {
    crate::cli::ggufscope(
        args.iter()
            .map(OsStr::new)
            .chain(files.iter().map(|f| f.as_os_str())),
    )
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    crate::cli::temp_file("validate-cli", name, bytes)
}

fn model() -> Vec<u8> {
    GgufBuilder::new()
        .kv("general.architecture", "llama")
        .tensor("token_embd.weight", &[64, 4], GgmlType::F32)
        .tensor("output_norm.weight", &[64], GgmlType::F32)
        .with_tensor_data()
        .build()
}

/// The model without its last 100 bytes, as `name` (one per test: tests run in parallel).
fn truncated_model(name: &str) -> (PathBuf, u64) {
    let file = model();
    let len = file.len() - 100;
    (temp_file(name, &file[..len]), len as u64)
}

fn real_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture("real"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gguf"))
        .collect();
    files.sort();
    files
}

#[test]
fn real_files_pass_and_dbrx_shows_its_duplicate_key() {
    let files = real_files();
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let out = ggufscope(&["validate"], &paths);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let dbrx = fixture("real/ggml-vocab-dbrx.gguf");
    let phi3 = fixture("real/ggml-vocab-phi-3.gguf");
    let stablelm = fixture("real/ggml-vocab-stablelm.gguf");
    assert_eq!(
        flat(&stdout(&out), 4),
        format!(
            "{}:561: warning duplicate-key: key \"general.file_type\" appears again (first as key-value pair #10 at offset 408): readers use the first, llama.cpp and gguf-py refuse the file\n\
            {}:725706: info chat-template-generation-prompt-no-effect: chat template \"tokenizer.chat_template\" renders the same with and without add_generation_prompt: the assistant's turn is always or never opened, whatever the caller asks\n\
            {}:3540044: warning chat-template-unknown-special-token: chat template \"tokenizer.chat_template\" writes <|assistant|>, <|system|>, <|user|>, not a token of the vocabulary: it is tokenized as plain text, not as the special token the model was trained on\n",
            dbrx.display(),
            phi3.display(),
            stablelm.display()
        )
    );
    assert_eq!(
        stderr(&out),
        "ggufscope: 12 files checked, 0 unparsable; 0 errors, 2 warnings, 1 infos\n"
    );
}

#[test]
fn deny_level_sets_the_exit_status() {
    let dbrx = fixture("real/ggml-vocab-dbrx.gguf");
    assert_eq!(
        ggufscope(&["validate", "--deny", "warning"], &[&dbrx])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        ggufscope(&["validate", "--deny", "error"], &[&dbrx])
            .status
            .code(),
        Some(0)
    );
    let gemma = gemma();
    let out = ggufscope(&["validate", "--deny", "info"], &[&gemma]);
    // One clean file: one line says so.
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (Some(0), format!("{}: ok\n", gemma.display()))
    );
    // One file: no run summary.
    assert_eq!(stderr(&out), "");
}

#[test]
fn a_truncated_file_is_an_error_line_and_status_1() {
    let (path, len) = truncated_model("truncated.gguf");
    let out = ggufscope(&["validate"], &[&path]);
    assert_eq!(out.status.code(), Some(1));
    let text = flat(&stdout(&out), 4);
    let prefix = format!(
        "{}:{len}: error tensor-past-end-of-file: the file ends at {}, 100 bytes short of the end of the tensor data at {}",
        path.display(),
        Grouped(len),
        Grouped(len + 100)
    );
    assert!(text.starts_with(&prefix), "{text}");
    assert!(
        text.ends_with("the first is \"output_norm.weight\" (bytes 1,216..1,472)\n"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1);
}

#[test]
fn an_unparsable_file_wins_with_status_2() {
    let (truncated, _) = truncated_model("truncated-among-others.gguf");
    let cut_in_kv = fixture("synth/truncated-in-kv.gguf");
    let missing = Path::new("no/such/file.gguf");
    let clean = temp_file("clean.gguf", &model());
    let out = ggufscope(&["validate"], &[&truncated, &cut_in_kv, missing, &clean]);
    assert_eq!(out.status.code(), Some(2));
    let text = flat(&stdout(&out), 4);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].contains(": error tensor-past-end-of-file: "));
    assert_eq!(
        lines[1],
        format!(
            "{}:296: error truncated: unexpected end of file: this needs bytes up to offset 313, but the file ends at 306, in key-value pair #10",
            cut_in_kv.display()
        )
    );
    assert!(
        lines[2].starts_with("no/such/file.gguf:0: error not-found: cannot read: "),
        "{}",
        lines[2]
    );
    assert_eq!(
        stderr(&out),
        "ggufscope: 4 files checked, 2 unparsable; 1 errors, 0 warnings, 0 infos\n"
    );
}

#[test]
fn json_is_one_document_for_the_run() {
    let dbrx = fixture("real/ggml-vocab-dbrx.gguf");
    let cut_in_kv = fixture("synth/truncated-in-kv.gguf");
    let missing = Path::new("no/such/file.gguf");
    let out = ggufscope(&["validate", "--json"], &[&dbrx, &cut_in_kv, missing]);
    assert_eq!(out.status.code(), Some(2));
    let doc: Json = serde_json::from_str(&stdout(&out)).unwrap();
    let files = doc.as_array().unwrap();
    assert_eq!(files.len(), 3);
    assert_eq!(files[0]["file"], dbrx.display().to_string());
    assert_eq!(files[0]["error"], Json::Null);
    assert_eq!(
        files[0]["counts"],
        serde_json::json!({"error": 0, "warning": 1, "info": 0})
    );
    let f = &files[0]["findings"][0];
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["code"], "duplicate-key");
    assert_eq!(
        (f["offset"].as_u64(), f["end"].as_u64()),
        (Some(561), Some(561 + 8 + 17 + 4 + 4))
    );
    assert_eq!(
        f["subject"],
        serde_json::json!({"kind": "kv", "index": 14, "name": "general.file_type"})
    );
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .starts_with("key \"general.file_type\" appears again")
    );
    // The one error document, {code, message, offset, context}, as the page's worker gives it.
    let error = &files[1]["error"];
    assert_eq!(
        (
            &error["code"],
            &error["offset"],
            &error["context"]["section"],
            &error["context"]["index"]
        ),
        (
            &Json::from("truncated"),
            &Json::from(296),
            &Json::from("kv"),
            &Json::from(10)
        )
    );
    assert!(error["message"].is_string());
    assert_eq!(files[1]["findings"], serde_json::json!([]));
    let error = &files[2]["error"];
    assert_eq!(
        (&error["code"], &error["offset"], &error["context"]),
        (&Json::from("not-found"), &Json::Null, &Json::Null)
    );
}

#[test]
fn info_json_carries_the_findings() {
    let (path, len) = truncated_model("truncated-info.gguf");
    let out = ggufscope(&["info", "--json"], &[&path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Json = serde_json::from_str(&stdout(&out)).unwrap();
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0]["code"], "tensor-past-end-of-file");
    assert_eq!(
        (findings[0]["offset"].as_u64(), findings[0]["end"].as_u64()),
        (Some(len), Some(len + 100))
    );
    assert_eq!(
        findings[0]["subject"],
        serde_json::json!({"kind": "tensor", "index": 1, "name": "output_norm.weight"})
    );
    // The report's other fields are still there.
    assert_eq!(doc["tensor_count"], 2);
}

#[test]
fn a_sparse_copy_of_gemma_cut_short_is_found() {
    let source = gemma();
    let full = std::fs::metadata(&source).unwrap().len();
    let cut = 200_000_000;
    // The header prefix, then a hole up to the cut: a download that stopped at `cut`.
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("validate-cli/gemma-cut.gguf");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut head = Vec::new();
    File::open(&source)
        .unwrap()
        .take(8 << 20)
        .read_to_end(&mut head)
        .unwrap();
    let mut copy = File::create(&path).unwrap();
    copy.write_all(&head).unwrap();
    copy.set_len(cut).unwrap();
    let out = ggufscope(&["validate"], &[&path]);
    assert_eq!(out.status.code(), Some(1));
    let text = flat(&stdout(&out), 4);
    let prefix = format!(
        "{}:{cut}: error tensor-past-end-of-file: the file ends at {}, {} bytes short",
        path.display(),
        Grouped(cut),
        Grouped(full - cut)
    );
    assert!(text.starts_with(&prefix), "{text}");
    assert_eq!(text.lines().count(), 1);
}

/// Runs `ggufscope` with `args`, killed (and the test failed) if it outlasts a generous bound.
fn ggufscope_bounded(args: &[&str]) -> Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ggufscope"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed().as_secs() > 30 {
            child.kill().unwrap();
            panic!("ggufscope {args:?} still running after 30 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn siblings_are_read_only_when_regular_files_in_the_folder() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("validate-cli-siblings");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let shard = |n: u32| format!("sharded-0000{n}-of-00003.gguf");
    let at = |n: u32| dir.join(shard(n)).display().to_string();
    std::fs::copy(fixture(&format!("synth/{}", shard(1))), at(1)).unwrap();
    // Shard 2 a FIFO nobody writes to: opening it to read would wait forever.
    let made = std::process::Command::new("mkfifo").arg(at(2)).status().unwrap();
    assert!(made.success());
    // Shard 3 a link to a file outside the folder: its bytes must not show up in a message.
    let outside = temp_file("outside-secret.txt", b"root:secret\n");
    std::os::unix::fs::symlink(&outside, at(3)).unwrap();

    let out = ggufscope_bounded(&["validate", &at(1)]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let text = flat(&stdout(&out), 4);
    let lines: Vec<&str> = text.lines().collect();
    // Missing from the model (each is also said unreadable, with why).
    assert!(
        lines[0].starts_with(&format!("{}:0: error shard-missing: ", at(2))),
        "{text}"
    );
    assert!(
        lines[1].starts_with(&format!("{}:0: error shard-missing: ", at(3))),
        "{text}"
    );
    assert_eq!(
        lines[2..],
        [
            format!(
                "{}:0: error not-read: not read: a FIFO (named pipe), not a regular file",
                at(2)
            ),
            format!(
                "{}:0: error not-read: not read: a symbolic link leading out of the named file's folder: not followed there",
                at(3)
            )
        ]
    );
    assert!(!text.contains("secret") && !text.contains("72 6F"), "{text}");
    // `info` says the same of the first it meets, and exits 2.
    let out = ggufscope_bounded(&["info", &at(1)]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "ggufscope: {}: not read: a FIFO (named pipe), not a regular file\n",
            at(2)
        )
    );

    // --no-siblings reads the file named alone: clean, no shard looked for or said missing.
    let out = ggufscope_bounded(&["validate", "--no-siblings", &at(1)]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(stdout(&out), format!("{}: ok\n", at(1)));
    let out = ggufscope_bounded(&["diff", &at(1), &at(1)]);
    assert_eq!(out.status.code(), Some(2));
    let out = ggufscope_bounded(&["diff", "--no-siblings", &at(1), &at(1)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for command in ["info", "tokens", "template"] {
        let out = ggufscope_bounded(&[command, "--no-siblings", &at(1)]);
        assert!(!stderr(&out).contains("not read"), "{command}: {}", stderr(&out));
        assert!(!stdout(&out).contains("not read"), "{command}: {}", stdout(&out));
    }
    let out = ggufscope_bounded(&["info", "--json", "--no-siblings", &at(1)]);
    let doc: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["split"]["shards"].as_array().unwrap().len(), 1);
    assert_eq!(doc["split"]["missing"].as_array().unwrap().len(), 2);

    // A link to a shard in the same folder is followed (as a Hugging Face cache links its shards
    // into `blobs/`): here shard 3 links to a copy of it beside the others.
    std::fs::remove_file(at(3)).unwrap();
    std::fs::remove_file(at(2)).unwrap();
    std::fs::copy(fixture(&format!("synth/{}", shard(2))), at(2)).unwrap();
    std::fs::copy(fixture(&format!("synth/{}", shard(3))), dir.join("blob-3")).unwrap();
    std::os::unix::fs::symlink("blob-3", at(3)).unwrap();
    let out = ggufscope_bounded(&["validate", &at(1)]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(
        stderr(&out),
        "ggufscope: 3 files checked, 0 unparsable; 0 errors, 0 warnings, 0 infos\n"
    );
}

/// Issue 18's hostile files, written by the builder into a directory of their own.
fn hostile_file(name: &str, bytes: &[u8]) -> PathBuf {
    crate::cli::temp_file("validate-hostile", name, bytes)
}

/// Address space a hostile run may use (RLIMIT_AS). The heaviest file here, a million tensors
/// (a 24 MB header), peaks at 177 MB resident and runs under a 200 MiB limit; before the cap it
/// took 11.5 GB.
const MAX_MEMORY: u64 = 384 << 20;
/// Output a run may print: a hundred findings of a few codes, each message under 1 kB.
const MAX_OUTPUT: u64 = 1 << 20;
/// A hang guard, not a benchmark: each run takes under 3 s on a loaded 2-core machine.
const DEADLINE: std::time::Duration = std::time::Duration::from_secs(60);

/// `validate FILE` and `validate --json FILE`, bounded; both must exit with `code`. Returns
/// their outputs as text and JSON.
fn validate_bounded(file: &Path, code: i32, max_memory: u64) -> (String, Json) {
    let run = |json: bool| {
        let args: Vec<&OsStr> = if json {
            vec![OsStr::new("validate"), OsStr::new("--json"), file.as_os_str()]
        } else {
            vec![OsStr::new("validate"), file.as_os_str()]
        };
        let out = crate::cli::ggufscope_bounded(args, max_memory, DEADLINE);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.code, Some(code), "{}: {stderr}", file.display());
        assert!(
            out.stdout_len < MAX_OUTPUT,
            "{}: {} bytes of output",
            file.display(),
            out.stdout_len
        );
        assert!(out.stderr_len < 4096, "{}: {stderr}", file.display());
        String::from_utf8(out.stdout).unwrap()
    };
    // Each finding's message, wrapped onto indented lines, joined back.
    let text = flat(&run(false), 4);
    let json = serde_json::from_str(&run(true)).unwrap();
    (text, json)
}

/// Per code, the findings listed in a `validate --json` document's one file.
fn listed(doc: &Json, code: &str) -> usize {
    doc[0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == code)
        .count()
}

/// The `findings_omitted` count of `code`, 0 when absent.
fn omitted(doc: &Json, code: &str) -> u64 {
    let entries = doc[0]["findings_omitted"].as_array().unwrap();
    entries
        .iter()
        .find(|o| o["code"] == code)
        .map_or(0, |o| o["count"].as_u64().unwrap())
}

fn more_line(file: &Path, severity: &str, code: &str, n: u64) -> String {
    format!(
        "{}: {severity} {code}: … and {n} more {code} findings (only the first 100 of a code are listed)\n",
        file.display()
    )
}

#[test]
fn a_huge_name_and_a_thousand_tensors_overlapping_it_stay_small() {
    let name = vec![b'A'; 1 << 20];
    let mut b =
        GgufBuilder::new()
            .kv("general.architecture", "llama")
            .tensor_at(&name, &[1 << 20], GgmlType::F32, 0);
    for i in 0..1000u64 {
        b = b.tensor_at(format!("t{i}"), &[8], GgmlType::F32, 32 * (i + 1));
    }
    let file = hostile_file("huge-name-overlapped.gguf", &b.build());
    let (text, doc) = validate_bounded(&file, 1, MAX_MEMORY);
    assert!(
        text.ends_with(&more_line(&file, "error", "tensors-overlap", 900)),
        "{text}"
    );
    assert_eq!(
        (listed(&doc, "tensors-overlap"), omitted(&doc, "tensors-overlap")),
        (100, 900)
    );
    let quoted = format!("\"{}… (1,048,576 bytes)\"", "A".repeat(200));
    let messages: Vec<&str> = doc[0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert!(
        messages.iter().filter(|m| m.contains(&quoted)).count() >= 101,
        "{messages:?}"
    );
    // The subject's name is cut the same way.
    let first = &doc[0]["findings"][0];
    assert_eq!(
        first["subject"]["name"],
        format!("{}… (1,048,576 bytes)", "A".repeat(200))
    );
    // 1,000 overlaps, a name too long, the data section and the tensor data missing.
    assert_eq!(
        doc[0]["counts"],
        serde_json::json!({"error": 1003, "warning": 0, "info": 0})
    );
}

#[test]
fn a_hundred_thousand_duplicate_tensors_stay_small() {
    let mut b = GgufBuilder::new().kv("general.architecture", "llama");
    for _ in 0..100_000 {
        b = b.tensor_at("blk.0.attn_q.weight", &[8], GgmlType::F32, 0);
    }
    let file = hostile_file("duplicates-100k.gguf", &b.with_tensor_data().build());
    let (text, doc) = validate_bounded(&file, 1, MAX_MEMORY);
    for code in ["duplicate-tensor-name", "tensors-overlap"] {
        assert!(text.contains(&more_line(&file, "error", code, 99_899)), "{text}");
        assert_eq!((listed(&doc, code), omitted(&doc, code)), (100, 99_899), "{code}");
    }
    assert_eq!(text.lines().count(), 202);
    assert_eq!(
        doc[0]["counts"],
        serde_json::json!({"error": 199_998, "warning": 0, "info": 0})
    );
}

#[test]
fn a_million_nameless_tensors_without_dimensions_stay_small() {
    let mut b = GgufBuilder::new().kv("general.architecture", "llama");
    for _ in 0..1_000_000 {
        b = b.tensor_at("", &[], GgmlType::F32, 0);
    }
    let bytes = b.with_tensor_data().build();
    assert!(bytes.len() > 24_000_000);
    let file = hostile_file("nameless-1m.gguf", &bytes);
    drop(bytes);
    let (text, doc) = validate_bounded(&file, 1, MAX_MEMORY);
    for (severity, code, more) in [
        ("error", "tensors-overlap", 999_899),
        ("error", "duplicate-tensor-name", 999_899),
        ("warning", "no-dimensions", 999_900),
    ] {
        assert!(text.contains(&more_line(&file, severity, code, more)), "{text}");
        assert_eq!((listed(&doc, code), omitted(&doc, code)), (100, more), "{code}");
    }
    assert_eq!(
        doc[0]["counts"],
        serde_json::json!({"error": 1_999_998, "warning": 1_000_000, "info": 0})
    );
}

/// A key of 256 MiB, then value type 99: a parse error quoting the key's first 200 bytes and its
/// length. The key is a hole in a sparse file (NUL bytes, each escaped as `\x00`: the longest
/// a quote of it could be).
#[test]
fn a_256_mib_key_before_a_bad_type_is_one_short_error() {
    use std::io::{Seek, SeekFrom};
    const KEY: u64 = 256 << 20;
    // The builder's file with an empty key; the key's length is then set, its bytes left a hole.
    let built = GgufBuilder::new().kv_raw(b"", &99u32.to_le_bytes()).build();
    assert_eq!(built.len(), 24 + 8 + 4);
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("validate-hostile/key-256mib.gguf");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut f = File::create(&path).unwrap();
    f.write_all(&built[..24]).unwrap();
    f.write_all(&KEY.to_le_bytes()).unwrap();
    f.seek(SeekFrom::Start(32 + KEY)).unwrap();
    f.write_all(&built[32..]).unwrap();
    drop(f);
    // The key is read whole (the read buffer and the decoder each hold it: 545 MB resident;
    // it runs under a 600 MiB limit), hence the larger budget; quoting it whole took 2.6 GB.
    let (text, doc) = validate_bounded(&path, 2, 768 << 20);
    let key = "\\x00".repeat(200);
    let message = format!(
        "invalid value type 99 (valid types are 0-12), in key-value pair #0 \"{key}… (268,435,456 bytes)\""
    );
    assert_eq!(
        text,
        format!(
            "{}:{}: error invalid-value-type: {message}\n",
            path.display(),
            32 + KEY
        )
    );
    assert_eq!(doc[0]["error"]["code"], "invalid-value-type");
    assert_eq!(doc[0]["error"]["message"], message);
    assert_eq!(doc[0]["findings_omitted"], serde_json::json!([]));
    std::fs::remove_file(&path).unwrap();
}

/// `info --json` carries the same count of the findings past the cap as `validate --json`.
#[test]
fn info_json_counts_the_findings_past_the_cap() {
    let mut b = GgufBuilder::new().kv("general.architecture", "llama");
    for _ in 0..150 {
        b = b.tensor_at("blk.0.attn_q.weight", &[8], GgmlType::F32, 0);
    }
    let file = temp_file("capped-150.gguf", &b.with_tensor_data().build());
    let out = ggufscope(&["info", "--json"], &[&file]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Json = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["findings"].as_array().unwrap().len(), 200);
    assert_eq!(
        report["findings_omitted"],
        serde_json::json!([
            {"severity": "error", "code": "tensors-overlap", "count": 49},
            {"severity": "error", "code": "duplicate-tensor-name", "count": 49},
        ])
    );
}
