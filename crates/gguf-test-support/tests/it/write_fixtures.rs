//! `write-fixtures DIR [NAME...]` writes every builder-made file, or the ones named, the same
//! bytes on every run; each file that should decode does, and an unknown name is refused.

use std::path::{Path, PathBuf};
use std::process::Command;

use gguf_test_support::read_header;

fn write_fixtures(dir: &Path, names: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_write-fixtures"))
        .arg(dir)
        .args(names)
        .output()
        .unwrap()
}

fn fresh(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Every file under `dir`, relative, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().into_string().unwrap();
        if entry.path().is_dir() {
            out.extend(listing(&entry.path()).into_iter().map(|f| format!("{name}/{f}")));
        } else {
            out.push(name);
        }
    }
    out.sort();
    out
}

#[test]
fn every_file_is_written_and_decodes() {
    let dir = fresh("write-fixtures-all");
    let out = write_fixtures(&dir, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let files = listing(&dir);
    for expected in [
        "sample.gguf",
        "hostile.gguf",
        "hostile-templates.gguf",
        "many-findings.gguf",
        "many-tensors.gguf",
        "layout-gap.gguf",
        "spoofing.gguf",
        "heavy-headers/empty-arrays.gguf",
        "heavy-headers/tensors-300k.gguf",
        "heavy-headers/long-name.gguf",
        "heavy-headers/duplicate-tensors.gguf",
        "kinds/imatrix.gguf",
        "kinds/lora.gguf",
        "kinds/mmproj-vision.gguf",
        "kinds/mmproj-vision-audio.gguf",
        "kinds/control-vector.gguf",
        "kinds/vocab-only.gguf",
        "value-pairs/f32.gguf",
        "value-pairs/q8_0.gguf",
        "value-pairs/q4_0.gguf",
        "value-pairs/f32-00001-of-00002.gguf",
        "value-pairs/f32-00002-of-00002.gguf",
        "value-pairs/q8_0-00001-of-00002.gguf",
        "value-pairs/q8_0-00002-of-00002.gguf",
    ] {
        assert!(files.iter().any(|f| f == expected), "{expected} not in {files:?}");
    }
    assert!(
        files.iter().filter(|f| f.starts_with("hostile-headers/")).count() > 3,
        "{files:?}"
    );
    // Whole files meant to decode do; the heavy and hostile headers are made to stop a reader.
    for file in files
        .iter()
        .filter(|f| !f.starts_with("heavy-headers/") && !f.starts_with("hostile-headers/"))
    {
        let (header, _) = read_header(&dir.join(file));
        assert!(header.is_ok(), "{file}: {header:?}");
    }
    // 2^28 empty arrays of 12 bytes each after the header: 3 GiB, sparse.
    let empty = std::fs::metadata(dir.join("heavy-headers/empty-arrays.gguf")).unwrap();
    assert!(empty.len() > 3 << 30, "{}", empty.len());
}

#[test]
fn named_files_alone_the_same_bytes_and_an_unknown_name_refused() {
    let (one, two) = (fresh("write-fixtures-one"), fresh("write-fixtures-two"));
    for dir in [&one, &two] {
        let out = write_fixtures(dir, &["sample.gguf", "value-pairs"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let files = listing(&one);
    assert_eq!(files.len(), 8, "{files:?}");
    assert_eq!(files, listing(&two));
    for file in &files {
        assert!(
            std::fs::read(one.join(file)).unwrap() == std::fs::read(two.join(file)).unwrap(),
            "{file}"
        );
    }
    let out = write_fixtures(&fresh("write-fixtures-none"), &["nothing.gguf"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .starts_with("write-fixtures: no file named nothing.gguf: one of sample.gguf, "),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
