//! The validator on files made by other tools: no false alarms on real models, the expected
//! findings on the reference-written synthetic files, truncated downloads found at every cut,
//! and random bit flips in real headers that never panic.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use gguf_core::report::Report;
use gguf_core::text::Grouped;
use gguf_core::validate::Subject;
use gguf_core::{ErrorKind, Finding, FindingCode, Header, HeaderDecoder, Progress, Severity, validate};
use gguf_test_support::{Rng, SPARSE, fixture, fixtures, gemma, read_header, restored_sparse};

fn header_of(path: &Path) -> Header {
    read_header(path)
        .0
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn codes(findings: &[Finding]) -> Vec<(FindingCode, u64)> {
    findings.iter().map(|f| (f.code, f.span.start)).collect()
}

fn real_files() -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(fixtures().join("real"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gguf"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 12);
    files
}

#[test]
fn real_files_give_no_false_alarms() {
    gguf_test_support::needs_fixtures!();
    for path in real_files() {
        let header = header_of(&path);
        let findings = validate(&header, None).findings;
        let name = path.file_name().unwrap().to_str().unwrap();
        if name == "ggml-vocab-dbrx.gguf" {
            // general.file_type is written twice; llama.cpp refuses that, readers take the first.
            let [f] = &findings[..] else {
                panic!("{name}: {findings:#?}")
            };
            assert_eq!(
                (f.code, f.severity),
                (FindingCode::DuplicateKey, Severity::Warning)
            );
            assert_eq!(f.subject, Subject::Kv(14));
            assert_eq!(f.span, header.metadata.entries()[14].span);
            assert_eq!(f.span.start, 561);
            assert!(
                f.message.contains("\"general.file_type\"") && f.message.contains("pair #10 at offset 408")
            );
        } else if name == "ggml-vocab-stablelm.gguf" {
            // Its template writes <|user|>, <|system|> and <|assistant|>, which its vocabulary
            // lacks: they are tokenized as plain text.
            let codes: Vec<FindingCode> = findings.iter().map(|f| f.code).collect();
            assert_eq!(codes, [FindingCode::ChatTemplateUnknownSpecialToken], "{name}");
        } else {
            assert_eq!(findings, [], "{name}");
        }
    }
}

#[test]
fn gemma_is_clean() {
    gguf_test_support::needs_gemma!();
    // Labelled Q4_K_M, mostly Q5_0 (640-wide rows), Q8_0 embeddings, Q6_K/Q4_K elsewhere.
    let header = header_of(&gemma());
    assert_eq!(validate(&header, None).findings, []);
}

#[test]
fn sparse_reference_models() {
    gguf_test_support::needs_fixtures!();
    for name in SPARSE {
        let header = header_of(&restored_sparse(name));
        let found = codes(&validate(&header, None).findings);
        match name {
            // gguf-py wrote a Q4_0 tensor without general.quantization_version.
            "big-40g-sparse.gguf" => assert_eq!(found, [(FindingCode::MissingQuantizationVersion, 0)]),
            _ => assert_eq!(found, [], "{name}"),
        }
    }
}

#[test]
fn reference_synthetic_files() {
    gguf_test_support::needs_fixtures!();
    use FindingCode as C;
    let nested = [
        (C::NestedArray, 68138),
        (C::NestedArray, 68222),
        (C::NestedArray, 68327),
        (C::NestedArray, 68410),
    ];
    let expected: &[(&str, &[(FindingCode, u64)])] = &[
        ("minimal.gguf", &[]),
        ("all-types.gguf", &nested),
        ("align-1.gguf", &[(C::AlignmentNotMultipleOf8, 69)]),
        ("align-64.gguf", &[]),
        ("align-4096.gguf", &[]),
        ("big-endian.gguf", &[(C::BigEndian, 4)]),
        ("vocab-llama-spm-be.gguf", &[(C::BigEndian, 4)]),
        (
            "quants-be.gguf",
            &[(C::MissingQuantizationVersion, 0), (C::BigEndian, 4)],
        ),
        ("quants.gguf", &[(C::MissingQuantizationVersion, 0)]),
        (
            "invalid-utf8.gguf",
            &[
                (C::InvalidUtf8, 101),
                (C::InvalidUtf8, 140),
                (C::InvalidUtf8, 175),
                (C::InvalidUtf8, 240),
            ],
        ),
        (
            "unicode-keys.gguf",
            &[
                // A NUL and a byte-order mark inside values, a NUL in an array element; the
                // emoji's zero-width joiners are not reported.
                (C::DisguisedText, 408),
                (C::DisguisedText, 439),
                (C::NonAsciiKey, 453),
                (C::NonAsciiKey, 510),
                (C::NonAsciiKey, 546),
                (C::EmptyKey, 569),
                (C::DisguisedText, 737),
            ],
        ),
        ("sharded-00001-of-00003.gguf", &[]),
        ("sharded-00002-of-00003.gguf", &[]),
        ("sharded-00003-of-00003.gguf", &[]),
        ("vocab-262k.gguf", &[]),
        (
            "truncated-in-data.gguf",
            &[&nested[..], &[(C::TensorPastEndOfFile, 68906)]].concat(),
        ),
    ];
    for (name, want) in expected {
        let header = header_of(&fixture(&format!("synth/{name}")));
        assert_eq!(codes(&validate(&header, None).findings), *want, "{name}");
    }
}

/// The first `len` bytes of a file.
fn prefix(path: &Path, len: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    File::open(path)
        .unwrap()
        .take(len)
        .read_to_end(&mut bytes)
        .unwrap();
    bytes
}

fn reference_data_end() -> u64 {
    let text = std::fs::read_to_string(fixture("ref/gemma-3-270m-q4_k_m.gguf.summary.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["tensor_data_end"].as_u64().unwrap()
}

#[test]
fn gemma_cut_past_its_header_is_truncated_every_time() {
    gguf_test_support::needs_fixtures!();
    gguf_test_support::needs_gemma!();
    let header = header_of(&gemma());
    let file_len = header.file_len.unwrap();
    let data_end = reference_data_end();
    assert_eq!(data_end, file_len);
    let mut rng = Rng(0x6767_7566);
    let mut cuts: Vec<u64> = (0..200).map(|_| rng.below(header.header_len..file_len)).collect();
    cuts.extend([
        header.header_len,
        header.data_offset - 1,
        header.data_offset,
        file_len - 1,
    ]);
    for cut in cuts {
        let findings = validate(&header, Some(cut)).findings;
        let truncated: Vec<&Finding> = findings
            .iter()
            .filter(|f| f.code == FindingCode::TensorPastEndOfFile)
            .collect();
        let [f] = truncated[..] else {
            panic!("cut at {cut}: {findings:#?}")
        };
        assert_eq!(f.span, cut..data_end, "cut at {cut}");
        assert!(
            f.message
                .contains(&format!("{} bytes short", Grouped(data_end - cut))),
            "{}",
            f.message
        );
        // Cut before the data section starts, that is said too; nothing else is.
        let data_missing = findings
            .iter()
            .any(|f| f.code == FindingCode::DataSectionPastEndOfFile);
        assert_eq!(data_missing, cut < header.data_offset, "cut at {cut}");
        assert_eq!(
            findings.len(),
            1 + usize::from(data_missing),
            "cut at {cut}: {findings:#?}"
        );
    }
    assert_eq!(validate(&header, Some(file_len)).findings, []);
}

#[test]
fn gemma_cut_inside_its_header_is_a_parse_error_with_an_offset() {
    gguf_test_support::needs_gemma!();
    let path = gemma();
    let header_len = header_of(&path).header_len;
    let bytes = prefix(&path, header_len);
    let mut rng = Rng(0x6767_7567);
    let mut cuts: Vec<u64> = (0..100).map(|_| rng.below(0..header_len)).collect();
    cuts.extend([0, 1, 23, 24, header_len - 1]);
    for cut in cuts {
        let mut decoder = HeaderDecoder::new(Some(cut));
        let err = decoder.feed(&bytes[..cut as usize]).unwrap_err();
        match err.kind() {
            ErrorKind::UnexpectedEnd { needed_end, file_len } => {
                assert_eq!(*file_len, cut);
                assert!(*needed_end > cut, "cut at {cut}: {err}");
            }
            other => panic!("cut at {cut}: {other:?}"),
        }
        assert!(err.offset() <= cut, "cut at {cut}: {err}");
    }
}

/// What a decode of a damaged header came to.
#[derive(Debug, Default)]
struct Tally {
    parsed: u32,
    failed: u32,
    incomplete: u32,
    findings: usize,
}

/// Flips 1–4 random bits of the header, most of them where structure lives (the first 4 KiB:
/// counts, first keys; the last 16 KiB: tensor infos), decodes it against the real file length,
/// validates and serializes the report. Bounded: a fixed number of rounds, each linear in the header.
fn flip_sweep(path: &Path, rounds: u32, seed: u64) -> Tally {
    let (header, _) = read_header(path);
    let header = header.unwrap();
    let file_len = header.file_len.unwrap();
    let original = prefix(path, header.header_len);
    let len = original.len() as u64;
    let mut rng = Rng(seed);
    let mut tally = Tally::default();
    for _ in 0..rounds {
        let mut bytes = original.clone();
        for _ in 0..rng.below(1..5) {
            let at = match rng.below(0..4) {
                0 | 1 => rng.below(0..len.min(4096)),
                2 => rng.below(len.saturating_sub(16 << 10)..len),
                _ => rng.below(0..len),
            };
            bytes[at as usize] ^= 1 << rng.below(0..8);
        }
        let mut decoder = HeaderDecoder::new(Some(file_len));
        match decoder.feed(&bytes) {
            Ok(Progress::Done) => {
                let header = decoder.header().unwrap();
                let findings = validate(header, None).findings;
                assert!(
                    findings.iter().all(|f| f.span.start <= f.span.end),
                    "{findings:#?}"
                );
                tally.findings += findings.len();
                tally.parsed += 1;
                serde_json::to_string(&Report::new(header)).unwrap();
            }
            Ok(Progress::Need { .. }) => tally.incomplete += 1,
            Err(e) => {
                assert!(e.offset() <= file_len, "{e}");
                tally.failed += 1;
            }
        }
    }
    tally
}

#[test]
fn bit_flips_in_real_headers_never_panic() {
    gguf_test_support::needs_fixtures!();
    gguf_test_support::needs_gemma!();
    let files = [
        ("real/ggml-vocab-llama-spm.gguf", 300),
        ("real/ggml-vocab-phi-3.gguf", 300),
        ("real/ggml-vocab-dbrx.gguf", 150),
        ("synth/vocab-llama-spm-be.gguf", 150),
    ];
    for (i, (name, rounds)) in files.into_iter().enumerate() {
        let tally = flip_sweep(&fixture(name), rounds, 0xF11F + i as u64);
        // Both outcomes were exercised: damaged headers that decode and ones that do not.
        assert!(tally.parsed > 0 && tally.failed > 0, "{name}: {tally:?}");
    }
    let tally = flip_sweep(&gemma(), 120, 0x6E33);
    assert!(
        tally.parsed > 0 && tally.failed > 0 && tally.findings > 0,
        "gemma: {tally:?}"
    );
}
