//! `ggufscope validate` run as a program: output lines, the JSON document, the run summary on
//! stderr and the exit status, on the shared fixtures and on files written to a temp dir.

mod cli;
#[path = "../../gguf-core/tests/common/mod.rs"]
mod common;

use std::ffi::OsStr;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Output;

use cli::{stderr, stdout};
use common::{fixture, gemma};
use gguf_core::GgmlType;
use gguf_core::testkit::GgufBuilder;
use serde_json::Value as Json;

fn ggufscope(args: &[&str], files: &[&Path]) -> Output {
    cli::ggufscope(
        args.iter()
            .map(OsStr::new)
            .chain(files.iter().map(|f| f.as_os_str())),
    )
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    cli::temp_file("validate-cli", name, bytes)
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
    assert_eq!(
        stdout(&out),
        format!(
            "{}:561: warning duplicate-key: key \"general.file_type\" appears again (first as key-value pair #10 at offset 408): readers use the first, llama.cpp and gguf-py refuse the file\n",
            dbrx.display()
        )
    );
    assert_eq!(
        stderr(&out),
        "ggufscope: 12 files checked, 0 unparsable; 0 errors, 1 warnings, 0 infos\n"
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
    assert_eq!((out.status.code(), stdout(&out).as_str()), (Some(0), ""));
    // One file: no run summary.
    assert_eq!(stderr(&out), "");
}

#[test]
fn a_truncated_file_is_an_error_line_and_status_1() {
    let (path, len) = truncated_model("truncated.gguf");
    let out = ggufscope(&["validate"], &[&path]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let prefix = format!(
        "{}:{len}: error tensor-past-end-of-file: the file ends at {len}, 100 bytes short of the end of the tensor data at {}",
        path.display(),
        len + 100
    );
    assert!(text.starts_with(&prefix), "{text}");
    assert!(
        text.ends_with("the first is \"output_norm.weight\" (bytes 1216..1472)\n"),
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
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].contains(": error tensor-past-end-of-file: "));
    assert_eq!(
        lines[1],
        format!(
            "{}:296: error parse-error: unexpected end of file: this needs bytes up to offset 313, but the file ends at 306, in key-value pair #10",
            cut_in_kv.display()
        )
    );
    assert!(
        lines[2].starts_with("no/such/file.gguf:0: error parse-error: cannot read: "),
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
    let out = ggufscope(&["validate", "--json"], &[&dbrx, &cut_in_kv]);
    assert_eq!(out.status.code(), Some(2));
    let doc: Json = serde_json::from_str(&stdout(&out)).unwrap();
    let files = doc.as_array().unwrap();
    assert_eq!(files.len(), 2);
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
    assert_eq!(files[1]["error"]["code"], "parse-error");
    assert_eq!(files[1]["error"]["offset"], 296);
    assert_eq!(files[1]["findings"], serde_json::json!([]));
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
    let text = stdout(&out);
    let prefix = format!(
        "{}:{cut}: error tensor-past-end-of-file: the file ends at {cut}, {} bytes short",
        path.display(),
        full - cut
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
    let text = stdout(&out);
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
                "{}:0: error parse-error: not read: a FIFO (named pipe), not a regular file",
                at(2)
            ),
            format!(
                "{}:0: error parse-error: not read: a symbolic link leading out of the named file's folder: a sibling is not followed there",
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
    assert_eq!(stdout(&out), "");
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
