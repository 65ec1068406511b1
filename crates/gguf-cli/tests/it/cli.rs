//! Running the built `ggufscope` as a user would, and files for it: shared by the CLI's tests.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `ggufscope` with these arguments. The JSON report a run prints (`info --json`,
/// `tokens --json`, `tensor --json`'s `stats`) is checked against the schema.
pub fn ggufscope<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Output {
    let args: Vec<OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
    let out = Command::new(env!("CARGO_BIN_EXE_ggufscope"))
        .args(&args)
        .output()
        .unwrap();
    check_report(&args, &out);
    out
}

/// Asserts that the report a successful `--json` run printed is valid against the schema.
fn check_report(args: &[OsString], out: &Output) {
    let has = |flag: &str| args.iter().any(|a| a == flag);
    if !out.status.success() || !has("--json") {
        return;
    }
    let (document, part) = match args.first().and_then(|a| a.to_str()) {
        Some("info") => ("GgufReport", None),
        Some("tokens") if has("--search") || has("--id") => ("TokenPage", None),
        Some("tokens") => ("TokenizerReport", None),
        Some("tensor") => ("TensorStats", Some("stats")),
        _ => return,
    };
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json printed JSON");
    match part {
        None => {
            gguf_test_support::schema::checked(document, json);
        }
        Some(field) => {
            if let Some(part) = json.get(field) {
                gguf_test_support::schema::checked(document, part.clone());
            }
        }
    }
}

/// `text` with the lines a value was wrapped onto (indented to its column, `indent` spaces)
/// joined back to the line before: what a long value reads as, whatever the width.
pub fn flat(text: &str, indent: usize) -> String {
    text.replace(&format!("\n{}", " ".repeat(indent)), " ")
}

/// A copy of the file at `path`, beside it as `NAME.other`, whose tensor data is every byte
/// `0x3C` (finite values in every type: `0x3C3C` is 1.06 as an F16): the same header, other
/// values, for a `diff --values` that has rows to show.
pub fn other_values(path: &Path) -> PathBuf {
    let mut bytes = std::fs::read(path).unwrap();
    let header = gguf_core::parse(&bytes).unwrap();
    let start = (header.data_offset as usize).min(bytes.len());
    bytes[start..].fill(0x3C);
    let copy = path.with_extension("other.gguf");
    std::fs::write(&copy, bytes).unwrap();
    copy
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// Writes `bytes` to `name` in a directory of this test run's own (`dir` under Cargo's temp dir).
pub fn temp_file(dir: &str, name: &str, bytes: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// What a bounded run gave: the exit code, and of each stream its first bytes and its length.
pub struct Bounded {
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stdout_len: u64,
    pub stderr: Vec<u8>,
    pub stderr_len: u64,
}

/// Bytes of each stream a bounded run keeps; the rest are only counted.
const KEEP: u64 = 4 << 20;

/// Runs `ggufscope` with its address space limited to `max_memory` bytes (`ulimit -v`, i.e.
/// RLIMIT_AS) and killed after `deadline`, keeping at most 4 MiB of each stream: a regression
/// that allocates or prints without bound fails the test instead of eating the machine.
pub fn ggufscope_bounded<S: AsRef<OsStr>>(
    args: impl IntoIterator<Item = S>,
    max_memory: u64,
    deadline: std::time::Duration,
) -> Bounded {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {} && exec \"$0\" \"$@\"", max_memory / 1024))
        .arg(env!("CARGO_BIN_EXE_ggufscope"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut stream: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let (mut kept, mut len, mut buf) = (Vec::new(), 0u64, vec![0u8; 1 << 16]);
            loop {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break (kept, len),
                    Ok(n) => {
                        let keep = (KEEP.saturating_sub(len) as usize).min(n);
                        kept.extend_from_slice(&buf[..keep]);
                        len += n as u64;
                    }
                }
            }
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > deadline {
            child.kill().unwrap();
            panic!("ggufscope ran past {deadline:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let ((stdout, stdout_len), (stderr, stderr_len)) = (out.join().unwrap(), err.join().unwrap());
    Bounded {
        code: status.code(),
        stdout,
        stdout_len,
        stderr,
        stderr_len,
    }
}
