//! Hostile headers fail fast with an error that says what, where and in which key or tensor —
//! before allocating anything a claimed count or length would need.

use gguf_core::testkit::GgufBuilder;
use gguf_core::{Context, Endian, ErrorKind, HeaderDecoder, Limit, Progress, Value, ValueType};

fn le_header(version: u32, tensors: u64, kvs: u64) -> Vec<u8> {
    let mut f = b"GGUF".to_vec();
    f.extend(version.to_le_bytes());
    f.extend(tensors.to_le_bytes());
    f.extend(kvs.to_le_bytes());
    f
}

fn key(f: &mut Vec<u8>, k: &str) {
    f.extend((k.len() as u64).to_le_bytes());
    f.extend(k.as_bytes());
}

/// Decodes with an unknown file length (a stream): only the limits protect it.
fn decode_stream(bytes: &[u8]) -> Result<Progress, gguf_core::Error> {
    HeaderDecoder::new(None).feed(bytes)
}

#[test]
fn not_gguf() {
    let err = gguf_core::parse(b"PK\x03\x04 a zip file, not a model").unwrap_err();
    assert_eq!(
        err.kind(),
        &ErrorKind::NotGguf {
            magic: *b"PK\x03\x04"
        }
    );
    assert_eq!(err.offset(), 0);
    assert_eq!(
        err.to_string(),
        "not a GGUF file: it starts with 50 4B 03 04, not \"GGUF\", in the file header (at offset 0x0 = 0)"
    );
    // Four bytes are enough to tell.
    assert!(decode_stream(b"GGML").is_err());
}

#[test]
fn unsupported_versions() {
    for v in [0u32, 4, 0xFFFF, 0x0400_0000] {
        let err = gguf_core::parse(&le_header(v, 0, 0)).unwrap_err();
        assert_eq!(err.kind(), &ErrorKind::UnsupportedVersion { version: v }, "{v}");
        assert_eq!(err.offset(), 4);
    }
}

#[test]
fn big_endian_is_inferred_from_the_version() {
    let file = GgufBuilder::new()
        .endian(Endian::Big)
        .kv("general.architecture", "llama")
        .kv("x", 0x0102_0304u32)
        .build();
    assert_eq!(&file[4..8], &[0, 0, 0, 3]);
    let h = gguf_core::parse(&file).unwrap();
    assert_eq!((h.endian, h.version), (Endian::Big, 3));
    assert_eq!(h.metadata.get("x"), Some(&Value::U32(0x0102_0304)));
}

#[test]
fn v1_uses_32_bit_counts_and_lengths() {
    let file = GgufBuilder::new()
        .version(1)
        .kv("general.architecture", "llama")
        .kv("a", gguf_core::Array::U16(vec![1, 2]))
        .tensor("t", &[4, 2], gguf_core::GgmlType::F32)
        .build();
    // magic 4 + version 4 + two u32 counts, then the key's u32 length.
    assert_eq!(&file[8..16], &[1, 0, 0, 0, 2, 0, 0, 0]);
    assert_eq!(&file[16..20], &[20, 0, 0, 0]);
    let h = gguf_core::parse(&file).unwrap();
    assert_eq!(
        (h.version, h.metadata.len(), h.tensors[0].dims.clone()),
        (1, 2, vec![4, 2])
    );
}

#[test]
fn huge_counts() {
    // Over the cap: refused whatever the file length.
    let err = decode_stream(&le_header(3, u64::MAX, 0)).unwrap_err();
    assert_eq!(
        err.kind(),
        &ErrorKind::LimitExceeded {
            limit: Limit::TensorCount,
            value: u64::MAX,
            max: 1 << 24
        }
    );
    assert_eq!(err.offset(), 8);
    let err = decode_stream(&le_header(3, 0, u64::MAX)).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::LimitExceeded {
            limit: Limit::KvCount,
            ..
        }
    ));
    assert_eq!(err.offset(), 16);
    // Under the cap: nothing is allocated for it; the file simply ends where the pairs should be.
    let err = gguf_core::parse(&le_header(3, 0, 1_000_000)).unwrap_err();
    assert_eq!(
        (err.kind(), err.offset()),
        (
            &ErrorKind::UnexpectedEnd {
                needed_end: 32,
                file_len: 24
            },
            24
        )
    );
    assert_eq!(
        err.context(),
        &Context::Kv {
            index: 0,
            key: None,
            element: None
        }
    );
}

#[test]
fn huge_string_length() {
    // Over the cap: refused at its length field, whether or not the file is that long.
    let mut f = le_header(3, 0, 1);
    f.extend((1u64 << 63).to_le_bytes());
    f.extend(b"not nearly that long");
    for err in [gguf_core::parse(&f).unwrap_err(), decode_stream(&f).unwrap_err()] {
        assert!(
            matches!(err.kind(), ErrorKind::LimitExceeded { limit: Limit::StringLength, value, .. } if *value == 1 << 63)
        );
        assert_eq!(err.offset(), 24);
        assert_eq!(
            err.context(),
            &Context::Kv {
                index: 0,
                key: None,
                element: None
            }
        );
    }
    // Under the cap but past the end of the file: refused before waiting for the bytes.
    let mut f = le_header(3, 0, 1);
    f.extend((1u64 << 20).to_le_bytes());
    f.extend(b"not nearly that long");
    let err = gguf_core::parse(&f).unwrap_err();
    assert_eq!(
        err.kind(),
        &ErrorKind::UnexpectedEnd {
            needed_end: 32 + (1 << 20),
            file_len: f.len() as u64
        }
    );
    assert_eq!(err.offset(), 24);
    assert!(matches!(decode_stream(&f), Ok(Progress::Need { min_len, .. }) if min_len == (1 << 20) - 20));
}

#[test]
fn huge_array_lengths() {
    for (elem, len) in [
        (ValueType::U64, 1u64 << 29),
        (ValueType::String, 1 << 29),
        (ValueType::U8, u64::MAX),
    ] {
        let mut f = le_header(3, 0, 1);
        key(&mut f, "tokenizer.ggml.tokens");
        f.extend(9u32.to_le_bytes());
        f.extend((elem as u32).to_le_bytes());
        f.extend(len.to_le_bytes());
        f.extend([0u8; 64]);
        let err = gguf_core::parse(&f).unwrap_err();
        let kind = err.kind().clone();
        if len == u64::MAX {
            assert!(
                matches!(
                    kind,
                    ErrorKind::LimitExceeded {
                        limit: Limit::ArrayLength,
                        ..
                    }
                ),
                "{kind:?}"
            );
            assert_eq!(err.offset(), 24 + 8 + 21 + 4 + 4, "at the length field");
        } else {
            assert!(matches!(kind, ErrorKind::UnexpectedEnd { .. }), "{kind:?}");
            assert_eq!(err.offset(), 24, "at the key-value pair");
        }
        assert!(
            matches!(err.context(), Context::Kv { index: 0, key: Some(k), .. } if k == "tokenizer.ggml.tokens"),
            "{err}"
        );
    }
}

#[test]
fn nesting_depth_of_a_million() {
    let mut f = le_header(3, 0, 1);
    key(&mut f, "deep");
    f.extend(9u32.to_le_bytes());
    for _ in 0..1_000_000 {
        f.extend(9u32.to_le_bytes());
        f.extend(1u64.to_le_bytes());
    }
    let err = gguf_core::parse(&f).unwrap_err();
    assert_eq!(
        err.kind(),
        &ErrorKind::LimitExceeded {
            limit: Limit::ArrayDepth,
            value: 17,
            max: 16
        }
    );
    assert_eq!(err.offset(), 24 + 12 + 4 + 16 * 12);
    assert!(matches!(err.context(), Context::Kv { key: Some(k), element: Some(0), .. } if k == "deep"));
}

#[test]
fn invalid_value_types() {
    let f = GgufBuilder::new()
        .kv_raw("general.architecture", &13u32.to_le_bytes())
        .build();
    let err = gguf_core::parse(&f).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::InvalidValueType { raw: 13 });
    assert_eq!(err.offset(), 24 + 8 + 20);
    assert_eq!(
        err.to_string(),
        "invalid value type 13 (valid types are 0-12), in key-value pair #0 \"general.architecture\" (at offset 0x34 = 52)"
    );
    let mut raw = 9u32.to_le_bytes().to_vec();
    raw.extend(99u32.to_le_bytes());
    raw.extend(1u64.to_le_bytes());
    let err = gguf_core::parse(&GgufBuilder::new().kv_raw("a", &raw).build()).unwrap_err();
    assert_eq!(
        (err.kind(), err.offset()),
        (&ErrorKind::InvalidValueType { raw: 99 }, 24 + 9 + 4)
    );
}

#[test]
fn too_many_dimensions() {
    let mut f = le_header(3, 1, 0);
    key(&mut f, "blk.0.attn_q.weight");
    f.extend(u32::MAX.to_le_bytes());
    f.extend([0u8; 64]);
    let err = gguf_core::parse(&f).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::LimitExceeded { limit: Limit::Dimensions, value, .. } if *value == u64::from(u32::MAX))
    );
    assert_eq!(err.offset(), 24 + 8 + 19);
    assert!(
        err.to_string()
            .contains("in tensor info #0 \"blk.0.attn_q.weight\""),
        "{err}"
    );
}

/// The one error document, `{code, message, offset, context}`, with each part of the header as
/// its context; a failure outside the decoder has no offset or context.
#[test]
fn error_documents_have_one_shape() {
    use gguf_core::ErrorDocument;
    use serde_json::json;
    let document = |e: &gguf_core::Error| serde_json::to_value(ErrorDocument::of(e)).unwrap();
    let err = gguf_core::parse(&le_header(9, 0, 0)).unwrap_err();
    assert_eq!(
        document(&err),
        json!({
            "code": "unsupported-version",
            "message": "unsupported GGUF version 9 (this reader knows 1, 2 and 3), in the file header",
            "offset": 4,
            "context": {"section": "header"},
        })
    );
    let f = GgufBuilder::new()
        .kv_raw("general.architecture", &13u32.to_le_bytes())
        .build();
    let err = gguf_core::parse(&f).unwrap_err();
    assert_eq!(
        document(&err)["context"],
        json!({"section": "kv", "index": 0, "key": "general.architecture", "element": null})
    );
    let mut f = le_header(3, 1, 0);
    key(&mut f, "blk.0.attn_q.weight");
    f.extend(u32::MAX.to_le_bytes());
    let err = gguf_core::parse(&f).unwrap_err();
    assert_eq!(
        document(&err),
        json!({
            "code": "too-many-dimensions",
            "message": err.message().to_string(),
            "offset": 24 + 8 + 19,
            "context": {"section": "tensor", "index": 0, "name": "blk.0.attn_q.weight"},
        })
    );
    let other = ErrorDocument::other("not-found", "there is no such file".into(), None);
    assert_eq!(
        serde_json::to_value(other).unwrap(),
        json!({"code": "not-found", "message": "there is no such file", "offset": null, "context": null})
    );
}

#[test]
fn non_utf8_names_are_escaped_in_errors() {
    let mut raw = 13u32.to_le_bytes().to_vec();
    raw.extend([0; 8]);
    let err = gguf_core::parse(&GgufBuilder::new().kv_raw(b"bad\xffkey", &raw).build()).unwrap_err();
    assert!(err.to_string().contains("\"bad\\xFFkey\""), "{err}");
}

/// A stream of unknown length ends with `finish`: an unfinished header is an error there.
#[test]
fn finish_ends_a_stream() {
    let file = GgufBuilder::new().kv("general.architecture", "llama").build();
    let mut d = HeaderDecoder::new(None);
    assert!(matches!(
        d.feed(&file[..30]).unwrap(),
        Progress::Need { offset: 30, .. }
    ));
    let err = d.finish().unwrap_err();
    // The key's length field, bytes 24..32, is cut.
    assert_eq!(
        (err.kind(), err.offset()),
        (
            &ErrorKind::UnexpectedEnd {
                needed_end: 32,
                file_len: 30
            },
            24
        )
    );
    let mut d = HeaderDecoder::new(None);
    d.feed(&file).unwrap();
    assert_eq!(d.finish().unwrap(), Progress::Done);
    assert_eq!(d.header().unwrap().metadata.architecture(), Some("llama"));
}

/// The hostile-header suite (`testkit::hostile_headers`, also what `scripts/bench-memory.py`
/// measures): each file fails with an error at the field that lies, or decodes and the validator
/// names what is wrong. Never a panic; the memory each costs is measured by the benchmark.
#[test]
fn hostile_header_suite() {
    /// An error with this code at this offset, or these finding codes (among others).
    type Outcome = Result<&'static [&'static str], (&'static str, u64)>;
    let expected: &[(&str, Outcome)] = &[
        ("counts-2^64-1", Err(("too-many-tensors", 8))),
        ("kv-count-2^24-in-24-bytes", Err(("truncated", 24))),
        ("string-length-2^63", Err(("string-too-long", 93))),
        ("string-length-256MiB-in-100-bytes", Err(("truncated", 93))),
        ("array-length-2^63", Err(("array-too-long", 106))),
        ("array-2^30-u64-in-1kB", Err(("truncated", 69))),
        ("nesting-depth-1M", Err(("array-too-deep", 277))),
        ("1M-empty-inner-arrays", Ok(&["nested-array"])),
        ("4M-empty-strings", Ok(&[])),
        (
            "tensor-overflows",
            Ok(&[
                "tensor-size-overflow",
                "unknown-tensor-type",
                "data-section-past-end-of-file",
            ]),
        ),
        ("alignment-0", Ok(&["alignment-zero"])),
        ("alignment-48", Ok(&["alignment-not-power-of-two"])),
    ];
    let files = gguf_core::testkit::hostile_headers();
    assert_eq!(files.len(), expected.len());
    for ((name, bytes), (want_name, want)) in files.iter().zip(expected) {
        assert_eq!(name, want_name);
        match (gguf_core::parse(bytes), want) {
            (Err(e), Err((code, offset))) => {
                assert_eq!((e.kind().code(), e.offset()), (*code, *offset), "{name}: {e}");
            }
            (Ok(header), Ok(codes)) => {
                let found: Vec<&str> = gguf_core::validate(&header, None)
                    .findings
                    .iter()
                    .map(|f| f.code.id())
                    .collect();
                for code in *codes {
                    assert!(found.contains(code), "{name}: {code} not in {found:?}");
                }
            }
            (got, _) => panic!("{name}: {:?}", got.map(|h| h.header_len)),
        }
    }
}

/// Every truncation point of real headers small enough to cut everywhere (the reference-written
/// synthetic files and the 41.8 GB file's 10 kB header): an error at or before the cut, never a
/// panic, and the same error incrementally (incremental.rs) — here, one shot.
#[test]
fn every_truncation_point_of_small_real_headers() {
    gguf_test_support::needs_fixtures!();
    let dir = gguf_test_support::fixtures().join("synth");
    let mut headers = 0;
    for entry in std::fs::read_dir(&dir)
        .unwrap()
        .chain(std::fs::read_dir(dir.join("sparse")).unwrap())
    {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "gguf") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        if bytes.len() > 70_000 {
            continue;
        }
        let Ok(header) = gguf_core::parse(&bytes) else {
            continue;
        };
        for cut in 0..header.header_len as usize {
            let err = gguf_core::parse(&bytes[..cut]).expect_err("a cut header cannot decode");
            assert!(err.offset() <= cut as u64, "{}: cut {cut}: {err}", path.display());
            assert!(
                matches!(err.kind(), ErrorKind::UnexpectedEnd { .. }),
                "{}: cut {cut}: {err}",
                path.display()
            );
        }
        headers += 1;
    }
    assert!(headers >= 12, "{headers}");
}

/// A key of 1 MiB followed by an invalid value type: the error quotes the key's first 200 bytes
/// and its length, not the whole key (issue 18: a 256 MiB key made a 1 GB line).
#[test]
fn a_huge_key_is_cut_in_the_error() {
    let key = vec![b'A'; 1 << 20];
    let file = GgufBuilder::new().kv_raw(&key, &99u32.to_le_bytes()).build();
    let err = gguf_core::parse(&file).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::InvalidValueType { raw: 99 });
    assert_eq!(err.offset(), 24 + 8 + (1 << 20));
    let shown = format!("{}… (1,048,576 bytes)", "A".repeat(gguf_core::text::EXCERPT_MAX));
    assert!(matches!(err.context(), Context::Kv { index: 0, key: Some(k), element: None } if *k == shown));
    assert_eq!(
        err.to_string(),
        format!(
            "invalid value type 99 (valid types are 0-12), in key-value pair #0 \"{shown}\" (at offset 0x100020 = 1048608)"
        )
    );
}

#[test]
fn an_empty_file_is_said_to_be_empty() {
    let err = gguf_core::parse(&[]).unwrap_err();
    assert_eq!(
        err.kind(),
        &ErrorKind::UnexpectedEnd {
            needed_end: 4,
            file_len: 0
        }
    );
    assert_eq!(err.message().to_string(), "the file is empty (0 bytes)");
    // A file cut after a byte is not empty: it is cut short in its header.
    let err = gguf_core::parse(b"G").unwrap_err();
    assert_eq!(err.kind().code(), "truncated", "{err}");
    assert_ne!(err.message().to_string(), "the file is empty (0 bytes)");
}
