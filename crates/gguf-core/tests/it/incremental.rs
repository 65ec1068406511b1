//! Incremental decoding gives exactly the one-shot result — headers and errors, offsets included —
//! however the input is cut: at every split point, one byte at a time, and in random chunks
//! (`testkit::assert_same_in_every_chunking`, also run on the golden files and the fuzz
//! regressions). And the decoder's "need" hint is honest: it never asks for more than the header
//! still holds.

use gguf_core::header::StringArray;
use gguf_core::testkit::{GgufBuilder, assert_same_in_chunks, assert_same_in_every_chunking};
use gguf_core::{Array, HeaderDecoder, Progress, Value};
use gguf_test_support::{Rng, fixture};

fn small_fixtures() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for dir in ["synth", "real"] {
        for entry in std::fs::read_dir(fixture(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "gguf") {
                let bytes = std::fs::read(&path).unwrap();
                out.push((path.file_name().unwrap().to_string_lossy().into_owned(), bytes));
            }
        }
    }
    out.sort();
    out
}

/// The golden files (`tests/golden/` at the top of the repository, committed: these run in any
/// checkout), in every chunking.
#[test]
fn every_chunking_of_the_golden_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "gguf") {
            assert_same_in_every_chunking(&path.display().to_string(), &std::fs::read(&path).unwrap());
            checked += 1;
        }
    }
    assert!(checked >= 4, "{checked} golden files in {}", dir.display());
}

/// Split in two at every point, one byte at a time, in random pieces
/// (`testkit::assert_same_in_every_chunking`).
/// Found by the `chunked` fuzz target: fed 2 bytes of this 16-byte file, the decoder asked for 22
/// more (a v2 header's size), past the header's end.
#[test]
fn the_smallest_v1_header_is_never_over_asked() {
    let mut bytes = b"GGUF".to_vec();
    for field in [1u32, 0, 0] {
        bytes.extend(field.to_le_bytes());
    }
    assert_same_in_every_chunking("v1, no keys, no tensors", &bytes);
}

/// The fixtures checked a core each, the largest first (the longest check of the suite: alone on
/// one thread, it would end the core's tests by itself).
#[test]
fn every_chunking_of_every_fixture() {
    gguf_test_support::needs_fixtures!();
    let mut fixtures = small_fixtures();
    fixtures.sort_by_key(|(_, file)| file.len());
    let fixtures = std::sync::Mutex::new(fixtures);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..cores {
            scope.spawn(|| {
                loop {
                    // Taken in a statement of its own, so that the lock is not held while checked.
                    let next = fixtures.lock().unwrap().pop();
                    let Some((name, file)) = next else { break };
                    assert_same_in_every_chunking(&name, &file);
                }
            });
        }
    });
}

/// Every prefix of a real header, taken as a whole (shorter) file, fails with the same error
/// incrementally as in one go, and the error's offset lies inside the prefix's last item.
#[test]
fn truncation_errors_are_the_same_both_ways() {
    gguf_test_support::needs_fixtures!();
    let file = std::fs::read(fixture("synth/all-types.gguf")).unwrap();
    let header_len = gguf_core::parse(&file).unwrap().header_len as usize;
    let mut rng = Rng(42);
    for cut in (0..header_len).step_by(7) {
        let prefix = &file[..cut];
        let whole = gguf_core::parse(prefix);
        let err = whole.as_ref().expect_err("a cut header cannot parse");
        assert!(err.offset() <= cut as u64, "cut {cut}: error at {}", err.offset());
        assert_eq!(err.kind().code(), "truncated", "cut {cut}: {err}");
        let cuts = (0..64).map(|_| 1 + rng.below(0..300) as usize);
        assert_same_in_chunks(&format!("all-types.gguf cut at {cut}"), prefix, cuts);
    }
}

/// Feeding exactly what the hint asks for always finishes in few rounds: the hint is not a
/// trickle of tiny reads. The header of the 24 MB vocabulary is read in a handful of steps.
#[test]
fn feeding_exactly_the_hint_converges() {
    gguf_test_support::needs_fixtures!();
    let file = std::fs::read(fixture("synth/vocab-262k.gguf")).unwrap();
    let mut d = HeaderDecoder::new(Some(file.len() as u64));
    let mut rounds = 0;
    let mut next = d.first_need();
    while let Progress::Need { offset, min_len } = next {
        let (start, end) = (offset as usize, (offset + min_len) as usize);
        next = d.feed(&file[start..end]).unwrap();
        rounds += 1;
        assert!(rounds < 2_000_000, "no progress");
    }
    let header = d.header().unwrap();
    assert_eq!(d.bytes_fed(), header.header_len, "never read past the header");
    // One round per array element at worst would be 777k; the hint covers whole arrays.
    assert!(rounds < 1000, "{rounds} rounds");
}

/// A string array's UTF-8 is checked a run of strings at a time: a character cut across two
/// strings is still found, in every chunking, and whole characters pass.
#[test]
fn string_arrays_are_utf8_only_when_each_string_is() {
    let cases: [(&[&[u8]], bool); 4] = [
        (&[b"\xC3", b"\xA9", b"ok"], false),
        (&[b"ok", b"\xE6\x97"], false),
        (&[b"long enough for a word \xE6", b"\x97\xA5 and more"], false),
        (
            &[
                "caf\u{e9}".as_bytes(),
                "\u{1F999}".as_bytes(),
                b"",
                b"eight or more ascii bytes",
            ],
            true,
        ),
    ];
    for (strings, utf8) in cases {
        let array: StringArray = strings.iter().collect();
        assert_eq!(array.is_utf8(), utf8, "{strings:?} pushed one by one");
        let file = GgufBuilder::new()
            .kv("tokenizer.ggml.tokens", Value::Array(Array::String(array)))
            .build();
        let header = gguf_core::parse(&file).unwrap();
        let parsed = header
            .metadata
            .get("tokenizer.ggml.tokens")
            .and_then(Value::as_array);
        assert_eq!(
            parsed.and_then(Array::as_strings).map(StringArray::is_utf8),
            Some(utf8),
            "{strings:?}"
        );
        assert_same_in_every_chunking(&format!("{strings:?}"), &file);
    }
}
