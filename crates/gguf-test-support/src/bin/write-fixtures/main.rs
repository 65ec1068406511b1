//! Writes the builder-made files (gguf-core's testkit) that the JavaScript tests, the benchmarks
//! and `dist/` read, into one folder: `scripts/test.sh` runs it once, into
//! `target/test-fixtures`, and the tests find them there (`GGUF_TEST_FIXTURES`,
//! `web/test/paths.mjs`); `scripts/build-web.sh` writes `sample.gguf` into `dist/` with it.
//!
//! Usage: `write-fixtures DIR [NAME...]`: every file of [`FILES`], or only those named.

mod browser;
mod heavy;
mod kinds;
mod sample;
mod value_pairs;

use std::io;
use std::path::Path;
use std::process::ExitCode;

/// A file (or a folder of files) this program writes: its name in the folder, and its writer,
/// given the path to write.
struct Written {
    name: &'static str,
    write: fn(&Path) -> io::Result<()>,
}

/// Every file, by name.
const FILES: &[Written] = &[
    // The viewer's built-in sample (dist/sample.gguf).
    Written {
        name: "sample.gguf",
        write: |p| write(p, sample::sample()),
    },
    // The browser tests' (www/e2e, web/test).
    Written {
        name: "hostile.gguf",
        write: |p| write(p, browser::hostile()),
    },
    Written {
        name: "hostile-templates.gguf",
        write: |p| write(p, browser::hostile_templates()),
    },
    Written {
        name: "lint-templates.gguf",
        write: |p| write(p, browser::lint_templates()),
    },
    Written {
        name: "many-findings.gguf",
        write: |p| write(p, browser::many_findings()),
    },
    Written {
        name: "many-tensors.gguf",
        write: |p| write(p, browser::many_tensors()),
    },
    Written {
        name: "layout-gap.gguf",
        write: |p| write(p, browser::layout_gap()),
    },
    Written {
        name: "spoofing.gguf",
        write: |p| write(p, gguf_core::testkit::spoofing()),
    },
    Written {
        name: "heavy-headers",
        write: heavy::write_all,
    },
    // Files that are not models, as llama.cpp writes them (kinds.rs).
    Written {
        name: "kinds",
        write: kinds::write_all,
    },
    // The value comparisons' (web/test/compare.test.mjs, www/e2e/compare.test.mjs).
    Written {
        name: "value-pairs",
        write: value_pairs::write_all,
    },
    // llama.cpp's memory reference data (scripts/reference/memory-refs.py) and the memory tests.
    Written {
        name: "memory-models",
        write: memory_models,
    },
    // Vocabularies of the types no real file has: llama.cpp's tokenize reference data
    // (scripts/reference/tokenize-refs.py) and the tokenizer's tests.
    Written {
        name: "vocab-plamo2.gguf",
        write: |p| write(p, gguf_core::testkit::plamo2_vocab()),
    },
    Written {
        name: "vocab-hybriddna.gguf",
        write: |p| write(p, gguf_core::testkit::hybriddna_vocab()),
    },
    Written {
        name: "vocab-test.gguf",
        write: |p| write(p, gguf_core::testkit::test_vocab()),
    },
    Written {
        name: "vocab-none.gguf",
        write: |p| write(p, gguf_core::testkit::none_vocab()),
    },
    Written {
        name: "pre-tokenizers",
        write: pre_tokenizers,
    },
    // Models with no memory figure, each its error (the CLI's, Python's and the page's tests).
    Written {
        name: "memory-refusals",
        write: memory_refusals,
    },
    // The CLI's memory and hostile-header benchmarks (scripts/bench-memory.py, bench-hostile.py).
    Written {
        name: "hostile-headers",
        write: hostile_headers,
    },
];

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next() else {
        eprintln!("usage: write-fixtures DIR [NAME...]");
        return ExitCode::from(2);
    };
    let names: Vec<String> = args.collect();
    if let Some(unknown) = names.iter().find(|n| !FILES.iter().any(|f| f.name == n.as_str())) {
        let known: Vec<&str> = FILES.iter().map(|f| f.name).collect();
        eprintln!(
            "write-fixtures: no file named {unknown}: one of {}",
            known.join(", ")
        );
        return ExitCode::from(2);
    }
    let dir = Path::new(&dir);
    let chosen = FILES
        .iter()
        .filter(|f| names.is_empty() || names.iter().any(|n| n == f.name));
    for file in chosen {
        let path = dir.join(file.name);
        let written = std::fs::create_dir_all(dir).and_then(|()| (file.write)(&path));
        if let Err(e) = written {
            eprintln!("write-fixtures: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

fn write(path: &Path, bytes: Vec<u8>) -> io::Result<()> {
    std::fs::write(path, bytes)
}

/// `testkit::hostile_headers()`, headers that claim far more than they hold, as `NAME.gguf`.
fn hostile_headers(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, bytes) in gguf_core::testkit::hostile_headers() {
        write(&dir.join(format!("{name}.gguf")), bytes)?;
    }
    Ok(())
}

/// `testkit::bpe_vocab(pre)` for every `tokenizer.ggml.pre` llama.cpp accepts, as `bpe-PRE.gguf`.
fn pre_tokenizers(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (pre, bytes) in gguf_core::testkit::bpe_vocabs() {
        write(&dir.join(format!("bpe-{pre}.gguf")), bytes)?;
    }
    Ok(())
}

/// `testkit::memory_refusals()`, models whose memory has no figure, as named.
fn memory_refusals(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, bytes) in gguf_core::testkit::memory_refusals() {
        write(&dir.join(name), bytes)?;
    }
    Ok(())
}

/// `testkit::memory_models()`, small models of the architectures no shared fixture has, each
/// its header followed by zeros to the file's size (sparse: `File::set_len` writes no data).
fn memory_models(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for model in gguf_core::testkit::memory_models() {
        let path = dir.join(model.name);
        std::fs::write(&path, &model.header)?;
        std::fs::File::options()
            .write(true)
            .open(&path)?
            .set_len(model.size)?;
    }
    Ok(())
}
