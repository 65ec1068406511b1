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
/// What a run printed, its wrapped lines joined back (`validate`'s messages are indented by 4).
fn said(out: &Bounded) -> String {
    crate::cli::flat(&(text(&out.stdout) + &text(&out.stderr)), 4)
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

/// Item 2: `diff --values` of a file against a copy with other values, whose first tensor's
/// name is 70,000 bytes long (past 65,535, where padding to it panicked) among 20,000: every row
/// stays short (the name cut with its length, on a line of its own), the output proportional to
/// the count.
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
    let other = crate::cli::other_values(&file);
    for json in [false, true] {
        let mut args = os_args(&[&"diff", &"--values", &file, &other]);
        if json {
            args.push("--json".into());
        }
        // Text: a row is under 140 bytes; JSON: each pair's figures, about 400 bytes.
        // Exit 1: the values differ.
        let said = run_expecting(&args, 1, 400 * TENSORS + (1 << 20), "");
        if !json {
            assert!(said.contains("NNNN… (70,000 bytes)"), "{said}");
            let widest = said.lines().map(str::len).max().unwrap();
            assert!(widest < 400, "a line of {widest} bytes");
        }
    }
}

/// A model whose data section runs past the first read of a URL, with data in a pattern.
fn model_with_data() -> Vec<u8> {
    GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("general.name", "model")
        .tensor("a", &[100_000], GgmlType::F32)
        .tensor("b", &[200_000], GgmlType::F32)
        .with_tensor_data()
        .build()
}

/// Asserts that an edit left `input` as it was (`before`), wrote no `out`, and left no
/// temporary file in `out`'s folder.
fn assert_nothing_written(input: &Path, before: &[u8], out: &Path) {
    assert_eq!(std::fs::read(input).unwrap(), before, "the input changed");
    assert!(
        std::fs::symlink_metadata(out).is_err(),
        "{} was written",
        out.display()
    );
    let temp: Vec<String> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".ggufscope-"))
        .collect();
    assert!(temp.is_empty(), "temporary files left: {temp:?}");
}

/// Item 7: `edit --force` replaces only a regular file: an OUT that is a FIFO, a directory or
/// a symbolic link (to `/dev/null` here: as root, a device itself would be replaced) is refused
/// and left as it was.
#[test]
fn edit_force_refuses_an_out_that_is_not_a_regular_file() {
    use std::os::unix::fs::FileTypeExt;
    let folder = fresh_dir("edit-not-regular");
    let input = folder.join("in.gguf");
    std::fs::write(&input, model_with_data()).unwrap();
    let before = std::fs::read(&input).unwrap();
    let fifo = folder.join("fifo.gguf");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let directory = folder.join("dir.gguf");
    std::fs::create_dir(&directory).unwrap();
    let link = folder.join("link.gguf");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    for (out, kind) in [
        (&fifo, "a FIFO (named pipe)"),
        (&directory, "a directory"),
        (&link, "a symbolic link"),
    ] {
        let args = os_args(&[
            &"edit",
            &input,
            &"-o",
            out,
            &"--force",
            &"--set",
            &"general.name=x",
        ]);
        let says = format!("exists and is {kind}, not a regular file: --force replaces only a regular file");
        run_expecting(&args, 2, 4096, &says);
        assert_eq!(std::fs::read(&input).unwrap(), before);
    }
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(directory.is_dir());
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("/dev/null"));
    let left = std::fs::read_dir(&folder).unwrap().count();
    assert_eq!(left, 4, "a temporary file was left");
}

/// Item 9: `--set-file` reads a regular file only, within the header budget: `/dev/zero` and a
/// FIFO are refused before a byte is read, a 320 MiB file (sparse) over a 256 MiB budget is
/// refused naming the value and the budget, not IN, within the address-space limit.
#[test]
fn set_file_is_a_regular_file_within_the_header_budget() {
    let folder = fresh_dir("edit-set-file");
    let input = folder.join("in.gguf");
    std::fs::write(&input, model_with_data()).unwrap();
    let before = std::fs::read(&input).unwrap();
    let out = folder.join("out.gguf");
    let fifo = folder.join("template.fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let huge = folder.join("huge.jinja");
    File::create(&huge).unwrap().set_len(320 << 20).unwrap();
    let set = |path: &Path| format!("tokenizer.chat_template={}", path.display());
    let cases = [
        (
            set(Path::new("/dev/zero")),
            "--set-file tokenizer.chat_template: /dev/zero: not read: a device, not a regular file"
                .to_string(),
        ),
        (
            set(&fifo),
            format!(
                "{}: not read: a FIFO (named pipe), not a regular file",
                fifo.display()
            ),
        ),
        (
            set(&huge),
            format!("{}: 335,544,320 bytes or more, more than the ", huge.display()),
        ),
    ];
    for (arg, says) in &cases {
        let args = os_args(&[
            &"--max-header-bytes",
            &"268435456",
            &"edit",
            &input,
            &"-o",
            &out,
            &"--set-file",
            arg,
        ]);
        let said = run_expecting(&args, 2, 4096, says);
        assert!(!said.contains("in.gguf:"), "blamed on IN: {said}");
        if arg.contains("huge") {
            let budget =
                "bytes a value may take of the header budget of 268,435,456 bytes (--max-header-bytes)";
            assert!(said.contains(budget), "{said}");
        }
        assert_nothing_written(&input, &before, &out);
    }
}

/// Item 8: an edit of `split.no`, `split.count` or `split.tensors.count` (here on a shard) is
/// refused without `--edit-split-keys`, and made with it.
#[test]
fn edit_refuses_split_keys_without_the_flag() {
    let folder = fresh_dir("edit-split");
    let input = folder.join("model-00001-of-00002.gguf");
    let bytes = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("split.no", 0u16)
        .kv("split.count", 2u16)
        .kv("split.tensors.count", 1i32)
        .tensor("t0", &[8], GgmlType::F32)
        .with_tensor_data()
        .build();
    std::fs::write(&input, &bytes).unwrap();
    let out = folder.join("out-00001-of-00002.gguf");
    for edit in ["split.count=3", "split.no=1", "split.tensors.count=5"] {
        let args = os_args(&[&"edit", &input, &"-o", &out, &"--set", &edit]);
        let key = edit.split('=').next().unwrap();
        let says = format!(
            "{key} says where a shard is in its split model; changed on one shard alone it breaks the model (its siblings say otherwise): --edit-split-keys to edit it anyway (nothing written)"
        );
        run_expecting(&args, 2, 4096, &says);
        assert_nothing_written(&input, &bytes, &out);
    }
    let args = os_args(&[
        &"edit",
        &input,
        &"-o",
        &out,
        &"--set",
        &"split.count=3",
        &"--edit-split-keys",
    ]);
    run_expecting(&args, 0, 4096, "split.count: 2 → 3");
}

/// Item 10: an OUT whose name is 250 bytes long is written (the temporary file has a short name
/// of its own); a copy stopped by the file size limit (`ulimit -f`, SIGXFSZ) fails like any
/// write, its temporary file removed.
#[test]
fn edit_writes_long_names_and_cleans_up_at_the_file_size_limit() {
    let folder = fresh_dir("edit-long-name");
    let input = folder.join("in.gguf");
    std::fs::write(&input, model_with_data()).unwrap();
    let before = std::fs::read(&input).unwrap();
    let out = folder.join(format!("{}.gguf", "n".repeat(245)));
    let args = os_args(&[&"edit", &input, &"-o", &out, &"--set", &"general.name=long"]);
    run_expecting(&args, 0, 4096, "general.name: \"model\" → \"long\"");
    assert!(out.is_file());
    std::fs::remove_file(&out).unwrap();

    // 512 blocks: a limit of 256 KiB or 512 KiB as the shell counts them, the copy 1.2 MB.
    let small = folder.join("small.gguf");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 512 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_ggufscope"))
        .args([
            "edit".as_ref(),
            input.as_os_str(),
            "-o".as_ref(),
            small.as_os_str(),
        ])
        .output()
        .unwrap();
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("cannot write the copy: File too large"), "{said}");
    assert_nothing_written(&input, &before, &small);
}

/// What [`lying_server`] says to request `n`: a size, an ETag.
type Answer<T> = fn(usize) -> T;

/// A server on 127.0.0.1 for `edit URL`: it serves `bytes` by Range, but answers request `n`
/// (from 0) with the total size `size(n)` and the ETag `etag(n)`.
fn lying_server(bytes: Vec<u8>, size: Answer<u64>, etag: Answer<&'static str>) -> String {
    use std::io::Read;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(mut s) = stream else { continue };
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(k) => request.extend_from_slice(&buf[..k]),
                }
            }
            let request = String::from_utf8_lossy(&request).to_ascii_lowercase();
            let last = bytes.len() - 1;
            let (start, end) = request
                .lines()
                .find_map(|l| l.strip_prefix("range: bytes="))
                .and_then(|r| {
                    let (a, b) = r.trim().split_once('-')?;
                    Some((a.parse::<usize>().ok()?, b.parse().unwrap_or(last).min(last)))
                })
                .unwrap_or((0, last));
            let body = bytes.get(start..=end).unwrap_or_default();
            let head = format!(
                "HTTP/1.1 206 Partial Content\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nContent-Range: bytes {start}-{end}/{}\r\nETag: {}\r\nConnection: close\r\n\r\n",
                body.len(),
                size(n),
                etag(n)
            );
            let _ = s.write_all(head.as_bytes()).and_then(|()| s.write_all(body));
        }
    });
    format!("http://{addr}/model.gguf")
}

/// Item 6: `edit URL` trusts no answer alone: a claimed size of 2^62 bytes (past where the
/// tensors end) is refused before a byte is copied, and a file whose ETag or size changes
/// between two requests stops the copy; nothing is written either way.
#[test]
fn edit_url_refuses_a_lying_or_changing_server() {
    let bytes = model_with_data();
    let len = bytes.len() as u64;
    let folder = fresh_dir("edit-url-lies");
    let out = folder.join("out.gguf");
    let cases: [(Answer<u64>, Answer<&'static str>, String); 3] = [
        (
            |_| 1 << 62,
            |_| "\"v1\"",
            "but its tensors end at byte".to_string(),
        ),
        (
            |_| model_with_data().len() as u64,
            |n| if n == 0 { "\"v1\"" } else { "\"v2\"" },
            "changed between two requests (its etag was \"v1\", now \"v2\"): stopped".to_string(),
        ),
        (
            |n| model_with_data().len() as u64 + if n == 0 { 0 } else { 64 },
            |_| "\"v1\"",
            format!(
                "changed between two requests (its size was {len} bytes, now {})",
                len + 64
            ),
        ),
    ];
    for (size, etag, says) in cases {
        let url = lying_server(bytes.clone(), size, etag);
        let args = os_args(&[&"edit", &url, &"-o", &out, &"--set", &"general.name=x"]);
        run_expecting(&args, 2, 4096, &says);
        assert!(
            std::fs::read_dir(&folder).unwrap().next().is_none(),
            "something was written"
        );
    }
}

/// Item 10: a URL's user information is neither sent (as Basic auth) nor printed: the requests
/// a server on 127.0.0.1 receives carry no Authorization, and no output holds the password.
#[test]
fn url_user_info_is_neither_sent_nor_printed() {
    use std::io::Read;
    use std::sync::{Arc, Mutex};
    let bytes = model_with_data();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let requests = Arc::new(Mutex::new(Vec::<String>::new()));
    let log = Arc::clone(&requests);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(k) => request.extend_from_slice(&buf[..k]),
                }
            }
            let request = String::from_utf8_lossy(&request).into_owned();
            let last = bytes.len() - 1;
            let (start, end) = request
                .to_ascii_lowercase()
                .lines()
                .find_map(|l| l.strip_prefix("range: bytes=").map(str::to_string))
                .and_then(|r| {
                    let (a, b) = r.trim().split_once('-')?;
                    Some((a.parse::<usize>().ok()?, b.parse().unwrap_or(last).min(last)))
                })
                .unwrap_or((0, last));
            log.lock().unwrap().push(request);
            let body = &bytes[start..=end];
            let head = format!(
                "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {start}-{end}/{}\r\nConnection: close\r\n\r\n",
                body.len(),
                bytes.len()
            );
            let _ = s.write_all(head.as_bytes()).and_then(|()| s.write_all(body));
        }
    });
    let url = format!("http://alice:hunter2@{addr}/model.gguf");
    for args in [vec!["info", url.as_str()], vec!["info", "--json", url.as_str()]] {
        let said = run_expecting(
            &os_args(
                &args
                    .iter()
                    .map(|a| a as &dyn AsRef<std::ffi::OsStr>)
                    .collect::<Vec<_>>(),
            ),
            0,
            1 << 20,
            &format!(
                "ggufscope: http://{addr}/model.gguf: the user name and password in the URL are left out"
            ),
        );
        assert!(!said.contains("hunter2") && !said.contains("alice"), "{said}");
    }
    let requests = requests.lock().unwrap();
    assert!(!requests.is_empty());
    for r in requests.iter() {
        assert!(!r.to_ascii_lowercase().contains("authorization"), "{r}");
    }
}
