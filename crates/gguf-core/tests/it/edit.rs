//! The header writer and metadata edits: every fixture written back byte for byte; edits on
//! builder-made headers (both byte orders, v1/v2/v3) read back with exactly the edits; every
//! refusal with its kind and key; and random edit lists on random headers (proptest).

use std::path::{Path, PathBuf};

use gguf_core::edit::{Action, Edit, EditErrorKind, Edited, NewValue, TypeSpec, ValueError, apply, check};
use gguf_core::testkit::{GgufBuilder, strings};
use gguf_core::write::write_header;
use gguf_core::{Array, Endian, FindingCode, GgmlType, Header, HeaderDecoder, Value, ValueType, keys};
use gguf_test_support::{fixture, fixtures, same_value};
use proptest::prelude::*;

fn gguf_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gguf"))
        .collect();
    files.sort();
    files
}

/// Checks that `header`, decoded from `file` (a whole file, or a sparse file's stored prefix),
/// is written back as the file's bytes `0..data_offset` — as far as the file has them — both by
/// the writer and by an edit list that is empty. Returns whether the file's padding is all zeros.
fn assert_written_back(name: &str, file: &[u8], header: &Header) -> bool {
    let written = write_header(header).unwrap();
    assert_eq!(written.header_len, header.header_len, "{name}");
    assert_eq!(written.data_offset, header.data_offset, "{name}");
    assert_eq!(written.bytes.len() as u64, header.header_len, "{name}");
    let hl = header.header_len as usize;
    assert_eq!(written.bytes[..], file[..hl], "{name}: header bytes");
    // The padding is written as zeros: the file's must be zeros for a byte-exact copy.
    let present = (header.data_offset as usize).min(file.len());
    let padding_is_zero = file[hl..present].iter().all(|&b| b == 0);
    assert_eq!(written.padding(), header.data_offset - header.header_len);

    let edited = apply(header, &[]).unwrap();
    assert!(edited.changes.is_empty());
    assert_eq!(edited.data_offset, header.data_offset, "{name}");
    assert_eq!(edited.bytes, written.bytes, "{name}: apply(no edits)");
    // What the CLI writes before the data section, header and zeros, is the input's bytes
    // exactly, including a vocabulary file that ends before its data offset.
    assert_eq!(edited.padding as usize, present - hl, "{name}");
    assert_eq!(edited.file_len, header.file_len, "{name}");
    padding_is_zero
}

#[test]
fn every_fixture_is_written_back_byte_for_byte() {
    gguf_test_support::needs_fixtures!();
    let mut checked = 0;
    let mut nonzero_padding = Vec::new();
    for dir in ["real", "synth"] {
        for path in gguf_files(&fixtures().join(dir)) {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let file = std::fs::read(&path).unwrap();
            let header = match gguf_core::parse(&file) {
                Ok(h) => h,
                Err(_) => {
                    // truncated-in-{header,kv,tensor-info}: no header to write back.
                    assert!(name.starts_with("truncated-in-"), "{name} does not parse");
                    continue;
                }
            };
            if !assert_written_back(&name, &file, &header) {
                nonzero_padding.push(name);
            }
            checked += 1;
        }
    }
    // The sparse files' stored prefixes hold their whole header and padding; decode them with
    // their full size (`SIZES.tsv`) as the file length instead of restoring them.
    let sizes = std::fs::read_to_string(fixture("synth/sparse/SIZES.tsv")).unwrap();
    for name in gguf_test_support::SPARSE {
        let full: u64 = sizes
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name}\t")))
            .and_then(|rest| rest.split('\t').next()?.parse().ok())
            .unwrap();
        let prefix = std::fs::read(fixture(&format!("synth/sparse/{name}"))).unwrap();
        let mut decoder = HeaderDecoder::new(Some(full));
        decoder.feed(&prefix).unwrap();
        let header = decoder.into_header().expect("the prefix holds the header");
        assert!(header.data_offset <= prefix.len() as u64, "{name}");
        if !assert_written_back(name, &prefix, &header) {
            nonzero_padding.push(name.to_string());
        }
        checked += 1;
    }
    // Gemma, when `scripts/test.sh` has fetched it (the first 7 MB hold its header).
    // 12 real files, 16 synthetic ones that parse (the other three end inside their header),
    // the 3 sparse ones.
    assert_eq!(checked, 31);
    let gemma = PathBuf::from(std::env::var("HOME").unwrap_or_default())
        .join(".cache/gguf-fixtures/gemma-3-270m-q4_k_m.gguf");
    if let Ok(file) = std::fs::read(&gemma) {
        let header = gguf_core::parse(&file).unwrap();
        if !assert_written_back("gemma", &file, &header) {
            nonzero_padding.push("gemma".into());
        }
    }
    // Every fixture pads with zeros, so every one is reproduced exactly, padding included. A
    // file whose padding is not zero would be reproduced up to its header's end, and listed here.
    assert_eq!(nonzero_padding, Vec::<String>::new());
}

/// The file an edit makes: the new header, its zero padding, the old data section.
fn with_data(edited: &Edited, file: &[u8], before: &Header) -> Vec<u8> {
    let mut out = edited.bytes.clone();
    out.resize(out.len() + edited.padding as usize, 0);
    out.extend_from_slice(&file[before.data_offset as usize..]);
    out
}

fn model(version: u32, endian: Endian) -> GgufBuilder {
    GgufBuilder::new()
        .version(version)
        .endian(endian)
        .kv(keys::ARCHITECTURE, "llama")
        .kv("general.name", "tiny")
        .kv("llama.context_length", 2048u32)
        .kv("tokenizer.ggml.tokens", strings(&["<s>", "</s>", "a", "b"]))
        .kv("tokenizer.ggml.eos_token_id", 1u32)
        .kv("tokenizer.chat_template", "{{ messages }}")
        .kv("x.ids", Array::U32(vec![1, 2, 3]))
        .tensor("token_embd.weight", &[8, 4], GgmlType::F32)
        .tensor("blk.0.attn_q.weight", &[8, 8], GgmlType::F32)
        .with_tensor_data()
}

const ALL_FORMS: [(u32, Endian); 6] = [
    (1, Endian::Little),
    (2, Endian::Little),
    (3, Endian::Little),
    (1, Endian::Big),
    (2, Endian::Big),
    (3, Endian::Big),
];

fn set(key: &str, text: &str) -> Edit {
    Edit::Set {
        key: key.into(),
        value: NewValue::Text {
            ty: None,
            text: text.into(),
        },
    }
}

fn set_typed(key: &str, ty: &str, text: &str) -> Edit {
    Edit::Set {
        key: key.into(),
        value: NewValue::Text {
            ty: Some(TypeSpec::parse(ty).unwrap()),
            text: text.into(),
        },
    }
}

fn delete(key: &str) -> Edit {
    Edit::Delete { key: key.into() }
}

#[test]
fn edits_read_back_in_every_version_and_byte_order() {
    for (version, endian) in ALL_FORMS {
        let form = format!("v{version} {endian:?}");
        let file = model(version, endian).build();
        let before = gguf_core::parse(&file).unwrap();
        let edits = [
            set("tokenizer.ggml.eos_token_id", "3"),
            set(
                "tokenizer.chat_template",
                "{% for m in messages %}{{ m.content }}\n{% endfor %}",
            ),
            set_typed("llama.context_length", "u64", "8192"),
            set("x.ids", "[10, 20]"),
            delete("general.name"),
            set_typed("x.new", "arr[str]", r#"["a", "b\"c"]"#),
            Edit::Add {
                key: "x.flag".into(),
                value: Value::Bool(true),
            },
        ];
        let edited = apply(&before, &edits).unwrap();
        let actions: Vec<Action> = edited.changes.iter().map(|c| c.action).collect();
        use Action::*;
        assert_eq!(actions, [Set, Set, Set, Set, Delete, Add, Add], "{form}");

        // What a file with this header and the old data section decodes to.
        let out = with_data(&edited, &file, &before);
        assert_eq!(Some(out.len() as u64), edited.file_len, "{form}");
        let after = gguf_core::parse(&out).unwrap();
        assert_eq!((after.version, after.endian), (version, endian), "{form}");
        assert_eq!(after.header_len, edited.header_len);
        assert_eq!(after.data_offset, edited.data_offset);
        assert_eq!(after.data_offset % u64::from(after.alignment), 0, "{form}");
        assert_eq!(after.tensors.len(), before.tensors.len());
        for (a, b) in after.tensors.iter().zip(&before.tensors) {
            assert_eq!(
                (&a.name, &a.dims, a.ty, a.offset),
                (&b.name, &b.dims, b.ty, b.offset),
                "{form}"
            );
        }
        let keys: Vec<String> = after
            .metadata
            .entries()
            .iter()
            .map(|e| e.key.to_string())
            .collect();
        assert_eq!(
            keys,
            [
                "general.architecture",
                "llama.context_length",
                "tokenizer.ggml.tokens",
                "tokenizer.ggml.eos_token_id",
                "tokenizer.chat_template",
                "x.ids",
                "x.new",
                "x.flag"
            ],
            "{form}: order kept, deleted gone, added at the end"
        );
        let m = &after.metadata;
        assert_eq!(m.get("tokenizer.ggml.eos_token_id"), Some(&Value::U32(3)));
        assert_eq!(m.get("llama.context_length"), Some(&Value::U64(8192)));
        assert_eq!(m.get("x.ids"), Some(&Value::Array(Array::U32(vec![10, 20]))));
        assert_eq!(m.get("x.new"), Some(&Value::Array(strings(&["a", "b\"c"]))));
        assert_eq!(m.get("x.flag"), Some(&Value::Bool(true)));
        assert_eq!(
            m.get("tokenizer.chat_template").and_then(Value::as_str),
            Some("{% for m in messages %}{{ m.content }}\n{% endfor %}")
        );
        for key in [keys::ARCHITECTURE, "tokenizer.ggml.tokens"] {
            assert!(same_value(m.get(key).unwrap(), before.metadata.get(key).unwrap()));
        }
        // The data section moved by whole alignments with the header; its bytes are the old ones.
        assert_eq!(
            out[after.data_offset as usize..],
            file[before.data_offset as usize..]
        );
        assert_eq!(edited.header.metadata, after.metadata);
    }
}

#[test]
fn a_custom_alignment_is_kept_and_padded_to() {
    let file = model(3, Endian::Little)
        .kv(keys::ALIGNMENT, 64u32)
        .alignment(64)
        .build();
    let before = gguf_core::parse(&file).unwrap();
    assert_eq!(before.alignment, 64);
    for text in [
        "x",
        "a much longer name that moves the data section along with it",
    ] {
        let edited = apply(&before, &[set("general.name", text)]).unwrap();
        assert_eq!(edited.data_offset % 64, 0);
        assert_eq!(edited.padding, edited.data_offset - edited.header_len);
        assert_eq!(edited.header.alignment, 64);
    }
}

#[test]
fn refusals_name_the_key_and_the_reason() {
    let file = model(3, Endian::Little).build();
    let h = gguf_core::parse(&file).unwrap();
    let refused = |edits: &[Edit]| apply(&h, edits).unwrap_err();

    let e = refused(&[set_typed(keys::ALIGNMENT, "u32", "64")]);
    assert_eq!(
        (e.key.as_str(), &e.kind),
        (keys::ALIGNMENT, &EditErrorKind::Alignment)
    );
    assert_eq!(refused(&[delete(keys::ALIGNMENT)]).kind, EditErrorKind::Alignment);
    assert_eq!(refused(&[set("", "1")]).kind, EditErrorKind::EmptyKey);

    let e = refused(&[Edit::Add {
        key: "general.name".into(),
        value: Value::String("again".into()),
    }]);
    assert_eq!(
        (e.key.as_str(), &e.kind),
        ("general.name", &EditErrorKind::DuplicateKey)
    );
    // Two adds of one key: the second would duplicate the first.
    let add = Edit::Add {
        key: "x.twice".into(),
        value: Value::U8(1),
    };
    assert_eq!(refused(&[add.clone(), add]).kind, EditErrorKind::DuplicateKey);

    let e = refused(&[Edit::Set {
        key: "tokenizer.chat_template".into(),
        value: NewValue::Value(Value::String(b"caf\xe9".to_vec().into())),
    }]);
    assert_eq!(
        (e.key.as_str(), e.kind.id()),
        ("tokenizer.chat_template", "invalid-utf8")
    );
    let e = refused(&[Edit::Add {
        key: "x.strs".into(),
        value: Value::Array(Array::String([&b"ok"[..], b"\xff"].iter().collect())),
    }]);
    assert_eq!(e.kind, EditErrorKind::InvalidUtf8);

    let e = refused(&[delete("x.missing")]);
    assert_eq!(
        (e.key.as_str(), &e.kind),
        (
            "x.missing",
            &EditErrorKind::NoSuchKey {
                action: Action::Delete
            }
        )
    );
    let e = refused(&[set("x.missing", "1")]);
    assert_eq!(e.kind, EditErrorKind::NoSuchKey { action: Action::Set });
    assert!(e.to_string().contains("x.missing:TYPE=VALUE"), "{e}");
    // A deleted key is missing for the edits after it.
    assert_eq!(
        refused(&[delete("x.ids"), delete("x.ids")]).kind.id(),
        "no-such-key"
    );

    let e = refused(&[set("tokenizer.ggml.eos_token_id", "abc")]);
    assert_eq!(e.key, "tokenizer.ggml.eos_token_id");
    assert!(matches!(
        e.kind,
        EditErrorKind::Value(ValueError::NotANumber {
            ty: ValueType::U32,
            ..
        })
    ));
    let e = refused(&[set_typed("tokenizer.ggml.eos_token_id", "u8", "300")]);
    assert!(matches!(
        e.kind,
        EditErrorKind::Value(ValueError::OutOfRange {
            ty: ValueType::U8,
            ..
        })
    ));
    assert!(e.to_string().contains("300 is not a UINT8"), "{e}");

    // Results with a validator error the input does not have.
    let e = refused(&[set_typed("llama.context_length", "str", "long")]);
    assert_eq!(e.key, "llama.context_length");
    assert!(matches!(
        e.kind,
        EditErrorKind::NewError {
            code: FindingCode::WrongKeyType,
            ..
        }
    ));
    let e = refused(&[delete(keys::ARCHITECTURE)]);
    assert!(matches!(
        e.kind,
        EditErrorKind::NewError {
            code: FindingCode::MissingArchitecture,
            ..
        }
    ));
    let e = refused(&[set("tokenizer.chat_template", "{{ ''.__class__ }}")]);
    assert_eq!(e.key, "tokenizer.chat_template");
    assert_eq!(e.kind.id(), "new-error-finding");
}

#[test]
fn check_gives_every_refusal_and_the_new_findings() {
    let file = model(3, Endian::Little).build();
    let h = gguf_core::parse(&file).unwrap();
    let edits = [
        set("general.name", "renamed"),
        set(keys::ALIGNMENT, "64"),
        set("x.ids", "abc"),
        // Out of the 4-token vocabulary: a warning, so accepted, and said.
        set("tokenizer.ggml.eos_token_id", "99"),
        // A new error finding: refused, the edits before it kept.
        set("tokenizer.chat_template", "{{ x.__class__ }}"),
        delete("no.such.key"),
    ];
    let checked = check(&h, &edits);
    let refused: Vec<(usize, &str)> = checked.refusals.iter().map(|(i, e)| (*i, e.kind.id())).collect();
    assert_eq!(
        refused,
        [
            (1, "alignment"),
            (2, "bad-value"),
            (4, "new-error-finding"),
            (5, "no-such-key")
        ]
    );
    assert_eq!(checked.refusals[1].1.key, "x.ids");
    let codes: Vec<FindingCode> = checked.findings.iter().map(|f| f.code).collect();
    assert_eq!(codes, [FindingCode::SpecialTokenOutOfVocab]);
    // The result is the accepted edits' exactly.
    let edited = checked.edited.unwrap();
    assert_eq!(
        edited.bytes,
        apply(&h, &[edits[0].clone(), edits[3].clone()]).unwrap().bytes
    );

    // Nothing accepted: no result, no findings.
    let checked = check(&h, &[delete("no.such.key")]);
    assert!(checked.edited.is_none() && checked.findings.is_empty());
    assert_eq!(checked.refusals.len(), 1);
}

/// A value set to what the file holds (changed, then changed back) changes nothing: the page
/// drops it from its pending list. Floats by their bits: -0 over 0 is a change.
#[test]
fn a_value_set_back_leaves_it_unchanged() {
    let file = model(3, Endian::Little)
        .kv("x.eps", 0.0f32)
        .kv("x.scales", Array::F32(vec![1.5, f32::NAN]))
        .build();
    let h = gguf_core::parse(&file).unwrap();
    let unchanged = |edit: Edit| {
        let edited = apply(&h, &[edit]).unwrap();
        assert_eq!(edited.changes.len(), 1);
        edited.changes[0].leaves_unchanged()
    };
    assert!(unchanged(set("general.name", "tiny")));
    assert!(unchanged(set("llama.context_length", "2048")));
    assert!(unchanged(set("x.ids", "[1, 2, 3]")));
    assert!(unchanged(set("x.eps", "0")));
    assert!(!unchanged(set("x.eps", "-0")), "the sign bit is a change");
    assert!(!unchanged(set("general.name", "renamed")));
    assert!(!unchanged(set("x.ids", "[1, 2]")));
    // The same number as another type is a change of type.
    assert!(!unchanged(set_typed("llama.context_length", "UINT64", "2048")));
    // Adds and deletes are always changes.
    assert!(!unchanged(set_typed("x.new", "UINT32", "1")) && !unchanged(delete("x.ids")));
    let parsed = gguf_core::parse(&file).unwrap();
    let same_nan = Edit::Set {
        key: "x.scales".into(),
        value: NewValue::Value(parsed.metadata.get("x.scales").unwrap().clone()),
    };
    assert!(unchanged(same_nan), "NaN over the same NaN bits is no change");
}

#[test]
fn an_error_the_input_already_has_does_not_refuse_an_edit() {
    // Two tensors overlap: an error before and after, so an unrelated edit goes through.
    let file = GgufBuilder::new()
        .kv(keys::ARCHITECTURE, "llama")
        .tensor_at("a", &[8], GgmlType::F32, 0)
        .tensor_at("b", &[8], GgmlType::F32, 0)
        .with_tensor_data()
        .build();
    let h = gguf_core::parse(&file).unwrap();
    assert!(
        gguf_core::validate(&h, None)
            .findings
            .iter()
            .any(|f| f.code == FindingCode::TensorsOverlap)
    );
    let edited = apply(&h, &[set_typed("general.name", "str", "still broken")]).unwrap();
    assert_eq!(edited.changes[0].action, Action::Add);
}

#[test]
fn v1_lengths_stay_32_bit() {
    let file = model(1, Endian::Big).build();
    let h = gguf_core::parse(&file).unwrap();
    let edited = apply(&h, &[set("general.name", "renamed")]).unwrap();
    // GGUF v1: u32 counts right after the version.
    assert_eq!(&edited.bytes[..8], &file[..8]);
    assert_eq!(edited.bytes[8..12], 2u32.to_be_bytes());
    assert_eq!(edited.header.version, 1);
}

// ---------------------------------------------------------------- random edits

#[derive(Debug, Clone)]
enum Op {
    Set(usize, Value),
    Add(usize, Value),
    Delete(usize),
}

fn scalar_or_array() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<u8>().prop_map(Value::U8),
        any::<i16>().prop_map(Value::I16),
        any::<u32>().prop_map(Value::U32),
        any::<i64>().prop_map(Value::I64),
        any::<f32>().prop_map(Value::F32),
        any::<bool>().prop_map(Value::Bool),
        "[a-z\\n\"é]{0,12}".prop_map(|s| Value::String(s.as_str().into())),
        prop::collection::vec(any::<u32>(), 0..5).prop_map(|v| Value::Array(Array::U32(v))),
        prop::collection::vec("[a-z]{0,4}", 0..4)
            .prop_map(|v| Value::Array(Array::String(v.iter().collect()))),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..6usize, scalar_or_array()).prop_map(|(k, v)| Op::Set(k, v)),
        (0..6usize, scalar_or_array()).prop_map(|(k, v)| Op::Add(k, v)),
        (0..6usize).prop_map(Op::Delete),
    ]
}

fn key(i: usize) -> String {
    format!("x.k{i}")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_edits_hold_exactly_the_edits(
        version in 1u32..=3,
        big in any::<bool>(),
        start in prop::collection::vec((0..6usize, scalar_or_array()), 0..6),
        tensors in prop::collection::vec((1u64..40, 1u64..4), 0..5),
        ops in prop::collection::vec(op(), 0..8),
        alignment in prop::sample::select(vec![None, Some(8u32), Some(64)]),
    ) {
        let endian = if big { Endian::Big } else { Endian::Little };
        let mut b = GgufBuilder::new().version(version).endian(endian).kv(keys::ARCHITECTURE, "llama");
        if let Some(a) = alignment {
            b = b.kv(keys::ALIGNMENT, a).alignment(a.into());
        }
        // The oracle: the pairs in order, duplicates never made (a start key is written once).
        let mut model: Vec<(String, Value)> = vec![(keys::ARCHITECTURE.into(), Value::String("llama".into()))];
        if let Some(a) = alignment {
            model.push((keys::ALIGNMENT.into(), Value::U32(a)));
        }
        for (k, v) in start {
            if model.iter().all(|(m, _)| *m != key(k)) {
                b = b.kv(key(k), v.clone());
                model.push((key(k), v));
            }
        }
        for (i, (d0, d1)) in tensors.iter().enumerate() {
            b = b.tensor(format!("t{i}"), &[*d0, *d1], GgmlType::F32);
        }
        let file = b.with_tensor_data().build();
        let before = gguf_core::parse(&file).unwrap();

        let mut edits = Vec::new();
        let mut expected_error = None;
        for op in &ops {
            let (edit, kind) = match op.clone() {
                Op::Set(k, v) => {
                    let pos = model.iter().position(|(m, _)| *m == key(k));
                    match pos {
                        Some(i) => model[i].1 = v.clone(),
                        None => model.push((key(k), v.clone())),
                    }
                    (Edit::Set { key: key(k), value: NewValue::Value(v) }, None)
                }
                Op::Add(k, v) => {
                    let exists = model.iter().any(|(m, _)| *m == key(k));
                    if !exists {
                        model.push((key(k), v.clone()));
                    }
                    (Edit::Add { key: key(k), value: v }, exists.then_some("duplicate-key"))
                }
                Op::Delete(k) => {
                    let before_len = model.len();
                    model.retain(|(m, _)| *m != key(k));
                    (Edit::Delete { key: key(k) }, (model.len() == before_len).then_some("no-such-key"))
                }
            };
            edits.push(edit);
            if kind.is_some() {
                expected_error = kind;
                break;
            }
        }

        match apply(&before, &edits) {
            Err(e) => {
                prop_assert_eq!(Some(e.kind.id()), expected_error, "{}", e);
                prop_assert_eq!(e.key, edits.last().unwrap().key());
            }
            Ok(edited) => {
                prop_assert_eq!(expected_error, None);
                let out = with_data(&edited, &file, &before);
                let after = gguf_core::parse(&out).unwrap();
                prop_assert_eq!((after.version, after.endian), (version, endian));
                prop_assert_eq!(after.data_offset % u64::from(before.alignment), 0);
                prop_assert_eq!(after.alignment, before.alignment);
                prop_assert_eq!(after.metadata.len(), model.len());
                for (entry, (k, v)) in after.metadata.entries().iter().zip(&model) {
                    prop_assert_eq!(entry.key.as_bytes(), k.as_bytes());
                    prop_assert!(same_value(&entry.value, v), "{}: {:?} != {:?}", k, entry.value, v);
                }
                prop_assert_eq!(after.tensors.len(), before.tensors.len());
                for (a, b) in after.tensors.iter().zip(&before.tensors) {
                    prop_assert_eq!((&a.name, &a.dims, a.ty, a.offset), (&b.name, &b.dims, b.ty, b.offset));
                }
                prop_assert_eq!(&out[after.data_offset as usize..], &file[before.data_offset as usize..]);
            }
        }
    }
}

#[test]
fn hostile_headers_are_written_back_without_materializing_their_claims() {
    // Headers that claim huge alignments, overflowing dimensions, millions of empty strings:
    // each that decodes is written back exactly, its padding counted, never allocated.
    let mut written = 0;
    for (name, file) in gguf_core::testkit::hostile_headers() {
        let Ok(header) = gguf_core::parse(&file) else {
            continue;
        };
        let edited = apply(&header, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(edited.bytes[..], file[..header.header_len as usize], "{name}");
        assert_eq!(edited.data_offset, header.data_offset, "{name}");
        // An edit either goes through or is refused; it never panics.
        let _ = apply(&header, &[set_typed("x.new", "str", "value")]);
        written += 1;
    }
    assert!(written >= 3, "{written}");
}
