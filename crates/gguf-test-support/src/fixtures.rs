//! Where the shared fixtures and the complete Gemma model are, and the one rule for when they
//! are not there.
//!
//! Neither is part of the repository. A test that needs them starts with [`needs_fixtures!`] or
//! [`needs_gemma!`] (or asks [`present`] itself). Where they are missing:
//! - named by `GGUF_FIXTURES` or `GGUF_GEMMA`, or with `CI` set (non-empty), the test fails: a
//!   skip that passes in CI is a hole;
//! - otherwise it says loudly on stderr that it is skipped, and passes.
//!
//! The JavaScript tests follow the same rule (`web/test/paths.mjs`).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `../shared/fixtures` beside the repository, or `$GGUF_FIXTURES`.
pub fn fixtures() -> PathBuf {
    match std::env::var_os("GGUF_FIXTURES") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures"),
    }
}

/// Returns from the test, saying it is skipped, when the shared fixtures are not there (and fails
/// it in CI: see [`present`]).
#[macro_export]
macro_rules! needs_fixtures {
    () => {
        if !$crate::present("shared fixtures", $crate::fixtures(), "GGUF_FIXTURES") {
            return;
        }
    };
}

/// Returns from the test, saying it is skipped, when the complete Gemma model is not there (and
/// fails it in CI: see [`present`]).
#[macro_export]
macro_rules! needs_gemma {
    () => {
        if !$crate::present("Gemma model", $crate::gemma_path(), "GGUF_GEMMA") {
            return;
        }
    };
}

/// Returns from the test, saying it is skipped, when llama.cpp's source tree (from the
/// llama-cpp-python sdist, with its vocabulary test files) is not there (and fails it in CI: see
/// [`present`]). `scripts/test.sh` fetches it with `scripts/reference/build-llama-cpp.sh
/// --fetch-only`.
#[macro_export]
macro_rules! needs_llama_cpp {
    () => {
        if !$crate::present(
            "llama.cpp source tree",
            $crate::llama_cpp_tree(),
            "GGUF_LLAMA_CPP",
        ) {
            return;
        }
    };
}

/// Where llama.cpp 0c1e570's source tree is: `$GGUF_LLAMA_CPP`, or where
/// `scripts/reference/build-llama-cpp.sh --fetch-only` unpacks it (`$GGUFSCOPE_CACHE`, default
/// `~/.cache/ggufscope`).
pub fn llama_cpp_tree() -> PathBuf {
    if let Some(p) = std::env::var_os("GGUF_LLAMA_CPP") {
        return PathBuf::from(p);
    }
    let cache = match std::env::var_os("GGUFSCOPE_CACHE") {
        Some(c) => PathBuf::from(c),
        None => PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/ggufscope"),
    };
    cache.join("llama_cpp_python-0.3.36/vendor/llama.cpp")
}

/// Whether `path` is there. When it is not: a failure if `$variable` named it or `CI` is set
/// (non-empty); else a line on stderr, past the test harness's capture, saying which test is
/// skipped.
pub fn present(what: &str, path: PathBuf, variable: &str) -> bool {
    if path.exists() {
        return true;
    }
    assert!(
        std::env::var_os(variable).is_none(),
        "{variable} names {}, which is not there",
        path.display()
    );
    assert!(
        !in_ci(),
        "no {what} at {}: CI is set, so a test that needs them fails rather than passing unchecked \
         (set {variable}, or see ../shared/fixtures/README.md)",
        path.display()
    );
    let test = std::thread::current().name().unwrap_or("a test").to_string();
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: no {what} at {} (set {variable}; with CI set this fails)",
        path.display()
    );
    false
}

/// Whether the tests run in CI: `CI` set and not empty.
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty())
}

/// The shared fixture at `rel` (under [`fixtures`]), which must be there.
pub fn fixture(rel: &str) -> PathBuf {
    let path = fixtures().join(rel);
    assert!(
        path.exists(),
        "missing fixture {} (see ../shared/fixtures/README.md)",
        path.display()
    );
    path
}

/// Where the complete Gemma 3 270M model is: `$GGUF_GEMMA`, or where `fetch-gemma.sh` puts it.
pub fn gemma_path() -> PathBuf {
    match std::env::var_os("GGUF_GEMMA") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(std::env::var("HOME").unwrap_or_default())
            .join(".cache/gguf-fixtures/gemma-3-270m-q4_k_m.gguf"),
    }
}

/// The complete Gemma 3 270M model, fetched by `scripts/test.sh` through `fetch-gemma.sh`.
pub fn gemma() -> PathBuf {
    let path = gemma_path();
    assert!(
        path.exists(),
        "missing {}: run ../shared/fixtures/fetch-gemma.sh (scripts/test.sh does)",
        path.display()
    );
    path
}

/// The sparse fixtures (`synth/sparse`): header prefixes of multi-GB models.
pub const SPARSE: [&str; 3] = ["gqa-llama-1.1b.gguf", "moe-llama-8x.gguf", "big-40g-sparse.gguf"];

/// A sparse fixture restored to its full size (a header prefix followed by a hole), in cargo's
/// scratch folder for tests (`target/tmp`, `CARGO_TARGET_TMPDIR`).
pub fn restored_sparse(name: &str) -> PathBuf {
    let sizes = std::fs::read_to_string(fixture("synth/sparse/SIZES.tsv")).unwrap();
    let size: u64 = sizes
        .lines()
        .find_map(|l| {
            let mut f = l.split('\t');
            (f.next() == Some(name)).then(|| f.next().unwrap().parse().unwrap())
        })
        .unwrap_or_else(|| panic!("{name} not in SIZES.tsv"));
    let dir = target_tmp().join("sparse");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(name);
    if std::fs::metadata(&out).map(|m| m.len()).ok() != Some(size) {
        let tmp = dir.join(format!("{name}.tmp{}", std::process::id()));
        std::fs::copy(fixture(&format!("synth/sparse/{name}")), &tmp).unwrap();
        File::options()
            .write(true)
            .open(&tmp)
            .unwrap()
            .set_len(size)
            .unwrap();
        std::fs::rename(&tmp, &out).unwrap();
    }
    out
}

/// `target/tmp`, what cargo names `CARGO_TARGET_TMPDIR` to the tests (a library sees no such
/// variable): the test binary is `target/PROFILE/deps/NAME`.
fn target_tmp() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let target = exe
        .ancestors()
        .nth(3)
        .expect("a test binary under target/PROFILE/deps");
    target.join("tmp")
}
