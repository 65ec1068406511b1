//! Issue 18's hostile files through every command that reads a header, each run as a child
//! process with its address space limited (RLIMIT_AS, `crate::cli::ggufscope_bounded`): every run ends
//! (a generous kill guard, not a timing), with exit status 0, 1 or 2 and output bounded by the
//! file's size. The files are written by the test builder; the big ones are sparse or scaled
//! down where the bound still shows. What each file must make a command say is asserted where
//! the bound is the point (the header budget, the template's fuel, an overflow, a FIFO).

use std::ffi::OsString;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::Bounded;
use gguf_core::testkit::{GgufBuilder, hostile_headers};
use gguf_core::{GgmlType, ValueType};

/// Address space of a run (RLIMIT_AS): the binary, its threads' stacks and its heap.
const MEMORY: u64 = 512 << 20;
/// A hang guard, not a benchmark: the slowest run here takes about 2 s.
const HANG_GUARD: Duration = Duration::from_secs(120);

fn dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile-cli");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir().join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A file made of `head`, a hole of `hole` bytes (zeros, not stored), then `tail`.
fn sparse(name: &str, head: &[u8], hole: u64, tail: &[u8]) -> PathBuf {
    let path = dir().join(name);
    let mut f = File::create(&path).unwrap();
    f.write_all(head).unwrap();
    f.seek(SeekFrom::Current(hole as i64)).unwrap();
    f.write_all(tail).unwrap();
    f.set_len(head.len() as u64 + hole + tail.len() as u64).unwrap();
    path
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Every command that reads a header, on `file`: the arguments of each run.
fn commands(file: &Path, extra: &[&str]) -> Vec<Vec<OsString>> {
    let upstream = dir().join("upstream");
    std::fs::create_dir_all(&upstream).unwrap();
    std::fs::write(upstream.join("config.json"), "{}").unwrap();
    let out = dir().join(format!("{}.edited", file.file_name().unwrap().to_string_lossy()));
    let f = || file.as_os_str().to_owned();
    let runs: Vec<Vec<OsString>> = vec![
        vec!["info".into(), f()],
        vec!["info".into(), "--json".into(), f()],
        vec!["validate".into(), f()],
        vec!["validate".into(), "--json".into(), f()],
        vec!["tokens".into(), f()],
        vec!["tokens".into(), "--json".into(), f()],
        vec!["template".into(), f()],
        vec!["template".into(), "--render".into(), f()],
        vec!["tensor".into(), f(), "t0".into()],
        vec!["diff".into(), f(), f()],
        vec!["upstream".into(), f(), upstream.into()],
        vec![
            "edit".into(),
            f(),
            "-o".into(),
            out.into(),
            "--force".into(),
            "--set".into(),
            "general.name=edited".into(),
        ],
    ];
    runs.into_iter()
        .map(|mut run| {
            run.extend(extra.iter().map(OsString::from));
            run
        })
        .collect()
}

/// Runs every command on `file` within `memory`; each ends with 0, 1 or 2 and prints at most
/// sixteen bytes per byte of the file, plus 1 MiB: `info --json` lists every tensor, and a
/// nameless one without dimensions, 24 bytes in the file, is about 270 bytes pretty-printed
/// (before issue 18 a 1 MB file printed 1 GB). Returns each run, its arguments with it.
fn every_command(file: &Path, memory: u64, extra: &[&str]) -> Vec<(String, Bounded)> {
    let len = std::fs::metadata(file).unwrap().len();
    let bound = 16 * len + (1 << 20);
    // `tensor` and `edit` read the file named alone: they have no `--no-siblings`.
    let alone = |args: &Vec<OsString>| args[0] == "tensor" || args[0] == "edit";
    commands(file, extra)
        .into_iter()
        .filter(|args| !(extra.contains(&"--no-siblings") && alone(args)))
        .map(|args| {
            let shown = format!("{args:?}");
            let out = crate::cli::ggufscope_bounded(&args, memory, HANG_GUARD);
            assert!(
                matches!(out.code, Some(0..=2)),
                "{shown}: exit {:?}: {}",
                out.code,
                text(&out.stderr)
            );
            assert!(
                out.stdout_len + out.stderr_len <= bound,
                "{shown}: {} + {} bytes of output",
                out.stdout_len,
                out.stderr_len
            );
            (shown, out)
        })
        .collect()
}

/// What a run said, on either stream.
fn said(out: &Bounded) -> String {
    text(&out.stdout) + &text(&out.stderr)
}

#[test]
fn the_core_hostile_headers_through_every_command() {
    for (name, bytes) in hostile_headers() {
        let file = write(&format!("{name}.gguf"), &bytes);
        every_command(&file, MEMORY, &[]);
    }
}

/// Finding 1: a 1 MiB name and 1,000 tensors overlapping it; 100,000 duplicate tensors;
/// 200,000 nameless tensors without dimensions (1,000,000 in `validate.rs`: the bound is the
/// same, the time five times longer).
#[test]
fn many_findings_and_huge_names_through_every_command() {
    let name = vec![b'A'; 1 << 20];
    let mut b =
        GgufBuilder::new()
            .kv("general.architecture", "llama")
            .tensor_at(&name, &[1 << 20], GgmlType::F32, 0);
    for i in 0..1000u64 {
        b = b.tensor_at(format!("t{i}"), &[8], GgmlType::F32, 32 * (i + 1));
    }
    every_command(&write("huge-name-overlapped.gguf", &b.build()), MEMORY, &[]);

    let mut b = GgufBuilder::new().kv("general.architecture", "llama");
    for _ in 0..100_000 {
        b = b.tensor_at("blk.0.attn_q.weight", &[8], GgmlType::F32, 0);
    }
    every_command(
        &write("duplicates-100k.gguf", &b.with_tensor_data().build()),
        MEMORY,
        &[],
    );

    let mut b = GgufBuilder::new().kv("general.architecture", "llama");
    for _ in 0..200_000 {
        b = b.tensor_at("", &[], GgmlType::F32, 0);
    }
    every_command(
        &write("nameless-200k.gguf", &b.with_tensor_data().build()),
        MEMORY,
        &[],
    );
}

/// Finding 2: a 256 MiB key (a hole of NUL bytes), then value type 99: one short error. The key
/// is read whole, by the read buffer and the decoder: within the 1 GiB header budget.
#[test]
fn a_256_mib_key_through_every_command() {
    const KEY: u64 = 256 << 20;
    let built = GgufBuilder::new().kv_raw(b"", &99u32.to_le_bytes()).build();
    let mut head = built[..24].to_vec();
    head.extend_from_slice(&KEY.to_le_bytes());
    let file = sparse("key-256mib.gguf", &head, KEY, &built[32..]);
    for (args, out) in every_command(&file, 1 << 30, &[]) {
        assert_eq!(out.code, Some(2), "{args}");
        assert!(
            said(&out).contains("invalid value type 99"),
            "{args}: {}",
            said(&out)
        );
        assert!(out.stdout_len + out.stderr_len < 4096, "{args}");
    }
    std::fs::remove_file(&file).unwrap();
}

/// Finding 3: 2^24 empty arrays in an array (a sparse 201 MB header: each is 12 zero bytes,
/// an empty array of UINT8), which cost 1.58 GB before the header budget. With a budget of
/// 256 MiB every command stops at it and names it; with the default 1 GiB, `validate` does too.
#[test]
fn nested_arrays_stop_at_the_header_budget() {
    const N: u64 = 1 << 24;
    let mut head = GgufBuilder::new().build(); // 24 bytes: no tensors, no pairs
    head[16..24].copy_from_slice(&1u64.to_le_bytes());
    head.extend_from_slice(&1u64.to_le_bytes());
    head.push(b'a');
    head.extend_from_slice(&(ValueType::Array as u32).to_le_bytes());
    head.extend_from_slice(&(ValueType::Array as u32).to_le_bytes());
    head.extend_from_slice(&N.to_le_bytes());
    let file = sparse("nested-2^24.gguf", &head, 12 * N, &[]);
    let budget = 256u64 << 20;
    for (args, out) in every_command(&file, 768 << 20, &["--max-header-bytes", &budget.to_string()]) {
        assert_eq!(out.code, Some(2), "{args}");
        let said = said(&out);
        assert!(
            said.contains("stopped at byte ")
                && said.contains(&format!(
                    "bytes of memory, more than the header budget of {budget} bytes (--max-header-bytes)"
                )),
            "{args}: {said}"
        );
    }
    let args = [OsString::from("validate"), file.clone().into()];
    let out = crate::cli::ggufscope_bounded(&args, 2 << 30, HANG_GUARD);
    assert_eq!(out.code, Some(2));
    assert!(
        said(&out).contains("more than the header budget of 1073741824 bytes (--max-header-bytes)"),
        "{}",
        said(&out)
    );
    std::fs::remove_file(&file).unwrap();
}

/// Finding 6: templates that built gigabytes in the CLI's renderer stop on their fuel.
#[test]
fn template_bombs_stop_on_their_fuel() {
    let bombs = [
        "{{ (['x' * 1000000] * 9000)|join|length }}",
        "{{ ('%s' * 1000)|format(*(['x' * 100000] * 1000))|length }}",
        "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
    ];
    for (i, bomb) in bombs.iter().enumerate() {
        let bytes = GgufBuilder::new()
            .kv("general.architecture", "llama")
            .kv("tokenizer.chat_template", *bomb)
            .build();
        let file = write(&format!("template-bomb-{i}.gguf"), &bytes);
        for (args, out) in every_command(&file, MEMORY, &[]) {
            if args.contains("--render") {
                assert_eq!(out.code, Some(1), "{args}");
                assert!(
                    text(&out.stderr).contains("stopped: the template used up its fuel"),
                    "{args}: {}",
                    text(&out.stderr)
                );
            }
        }
    }
}

/// Finding 9: an offset near u64::MAX and dimensions whose product overflows are said to
/// overflow by `tensor`, and end every other command.
#[test]
fn overflowing_tensors_through_every_command() {
    let bytes = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .tensor("t0", &[1024, 1 << 32, 1 << 32], GgmlType::F32)
        .tensor_at("t1", &[1024], GgmlType::F32, u64::MAX - 31)
        .build();
    let file = write("overflows.gguf", &bytes);
    for (args, out) in every_command(&file, MEMORY, &[]) {
        if args.contains("\"tensor\"") {
            assert_eq!(out.code, Some(2));
            assert!(said(&out).contains("overflows 64 bits"), "{}", said(&out));
        }
    }
}

/// Finding 10: a FIFO named as the next shard ends every command at once (it is not read), and
/// `--no-siblings` leaves it alone.
#[test]
fn a_fifo_sibling_through_every_command() {
    let first = dir().join("fifo-00001-of-00002.gguf");
    let second = dir().join("fifo-00002-of-00002.gguf");
    let bytes = GgufBuilder::new().kv("general.architecture", "llama").build();
    std::fs::write(&first, bytes).unwrap();
    let _ = std::fs::remove_file(&second);
    let made = std::process::Command::new("mkfifo")
        .arg(&second)
        .status()
        .unwrap();
    assert!(made.success());
    for (args, out) in every_command(&first, MEMORY, &[]) {
        if !args.contains("\"tensor\"") && !args.contains("\"edit\"") {
            assert!(
                said(&out).contains("not read: a FIFO (named pipe), not a regular file"),
                "{args}: {}",
                said(&out)
            );
        }
    }
    for (args, out) in every_command(&first, MEMORY, &["--no-siblings"]) {
        assert!(!said(&out).contains("FIFO"), "{args}: {}", said(&out));
    }
}

/// The command's deadline stops what is not a request too: here a template that walks a lazily
/// repeated sequence of 10^8 items again and again, which its fuel does not meter and its own
/// 5 s limit would let run; `--timeout 2` ends the command first, saying so.
#[test]
fn the_command_deadline_stops_a_slow_render() {
    let bytes = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv(
            "tokenizer.chat_template",
            "{% for i in range(50) %}{{ 1 in [0] * 100000000 }}{% endfor %}",
        )
        .build();
    let file = write("slow-render.gguf", &bytes);
    let args = [
        OsString::from("--timeout"),
        "2".into(),
        "template".into(),
        "--render".into(),
        file.into(),
    ];
    let out = crate::cli::ggufscope_bounded(&args, MEMORY, HANG_GUARD);
    assert_eq!(out.code, Some(2));
    assert_eq!(
        text(&out.stderr),
        "ggufscope: stopped: the command ran for more than 2 s (--timeout 2)\n"
    );
}

// ------------------------------------------------------------------------------------------
// Issue 33: the paths added last (upstream, diff, edit) held to the same budgets. Each case is
// built here with the test builder or served from 127.0.0.1, run under `MEMORY`, and its exit
// status, output bound and message asserted; an edit's input is left unchanged and no
// temporary file is left beside OUT.

/// Runs `args` under `MEMORY`; asserts the exit status `code`, at most `max_output` bytes on the
/// two streams together, and that they say `says`. Returns what was said.
fn run_expecting(args: &[OsString], code: i32, max_output: u64, says: &str) -> String {
    let out = crate::cli::ggufscope_bounded(args, MEMORY, HANG_GUARD);
    let said = said(&out);
    assert_eq!(out.code, Some(code), "{args:?}: {said}");
    assert!(
        out.stdout_len + out.stderr_len <= max_output,
        "{args:?}: {} + {} bytes of output",
        out.stdout_len,
        out.stderr_len
    );
    assert!(said.contains(says), "{args:?}: expected {says:?} in:\n{said}");
    said
}

fn os_args(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Vec<OsString> {
    args.iter().map(|a| a.as_ref().to_owned()).collect()
}

/// A small model for the upstream, diff and edit cases.
fn small_model(name: &str) -> PathBuf {
    let bytes = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("llama.context_length", 4096u32)
        .tensor("t0", &[8], GgmlType::F32)
        .with_tensor_data()
        .build();
    write(name, &bytes)
}

/// A fresh, empty folder in the suite's directory.
fn fresh_dir(name: &str) -> PathBuf {
    let path = dir().join(name);
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).unwrap();
    path
}

/// Item 1: `upstream` reads only regular files inside the folder it is given, each up to 16 MiB:
/// a link out of it (to a secret, to `/dev/zero`), a FIFO and an oversized file are refused
/// with exit 2, naming the file; a Hugging Face snapshot's links into its `blobs/` are read.
#[test]
fn upstream_reads_only_regular_files_inside_its_folder() {
    use std::os::unix::fs::symlink;
    let model = small_model("upstream-model.gguf");
    let secret = write("upstream-secret.txt", b"TOKEN=hunter2-secret\n");
    let with = |name: &str, make: &dyn Fn(&Path)| -> PathBuf {
        let folder = fresh_dir(name);
        std::fs::write(folder.join("config.json"), r#"{"max_position_embeddings": 4096}"#).unwrap();
        make(&folder);
        folder
    };
    let cases: Vec<(PathBuf, &str)> = vec![
        (
            with("up-link-out", &|f| {
                symlink(&secret, f.join("chat_template.jinja")).unwrap()
            }),
            "chat_template.jinja: not read: a symbolic link leading out of the upstream folder: not followed there",
        ),
        (
            with("up-dev-zero", &|f| {
                std::fs::remove_file(f.join("config.json")).unwrap();
                symlink("/dev/zero", f.join("config.json")).unwrap();
            }),
            "config.json: not read: a symbolic link leading out of the upstream folder",
        ),
        (
            with("up-fifo", &|f| {
                let fifo = f.join("tokenizer_config.json");
                let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
                assert!(made.success());
            }),
            "tokenizer_config.json: not read: a FIFO (named pipe), not a regular file",
        ),
        (
            with("up-huge", &|f| {
                let big = File::create(f.join("generation_config.json")).unwrap();
                big.set_len((16 << 20) + 1).unwrap();
            }),
            "generation_config.json: not read: longer than 16,777,216 bytes",
        ),
    ];
    for (folder, says) in &cases {
        for json in [false, true] {
            let mut args = os_args(&[&"upstream", &model, folder]);
            if json {
                args.push("--json".into());
            }
            let said = run_expecting(&args, 2, 4096, says);
            assert!(!said.contains("hunter2"), "{args:?}: {said}");
        }
    }
    // A cache snapshot: its files are links into the repository's blobs/, and are read.
    let repo = fresh_dir("models--org--model");
    std::fs::create_dir_all(repo.join("blobs")).unwrap();
    std::fs::create_dir_all(repo.join("snapshots/abc123")).unwrap();
    std::fs::write(repo.join("blobs/0f1e"), r#"{"max_position_embeddings": 4096}"#).unwrap();
    symlink("../../blobs/0f1e", repo.join("snapshots/abc123/config.json")).unwrap();
    let snapshot = repo.join("snapshots/abc123");
    run_expecting(
        &os_args(&[&"upstream", &model, &snapshot]),
        0,
        4096,
        "no differences",
    );
}

/// Item 2: `diff --values` of a file against itself whose first tensor's name is 70,000 bytes
/// long (past 65,535, where padding to it panicked) among 20,000: every row stays short (the
/// name cut with its length, the column at most 40 wide), the output proportional to the count.
#[test]
fn diff_values_cuts_a_huge_name_and_keeps_the_table_narrow() {
    const TENSORS: u64 = 20_000;
    let mut b = GgufBuilder::new().kv("general.architecture", "llama").tensor(
        vec![b'N'; 70_000],
        &[1],
        GgmlType::F32,
    );
    for i in 1..TENSORS {
        b = b.tensor(format!("t{i}"), &[1], GgmlType::F32);
    }
    let file = write("diff-values-huge-name.gguf", &b.with_tensor_data().build());
    for json in [false, true] {
        let mut args = os_args(&[&"diff", &"--values", &file, &file]);
        if json {
            args.push("--json".into());
        }
        // Text: a row is under 140 bytes; JSON: each pair's figures, about 400 bytes.
        let said = run_expecting(&args, 0, 400 * TENSORS + (1 << 20), "");
        if !json {
            assert!(said.contains("NNNN… (70,000 bytes) F32"), "{said}");
            let widest = said.lines().map(str::len).max().unwrap();
            assert!(widest < 400, "a line of {widest} bytes");
        }
    }
}

