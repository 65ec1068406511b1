//! Conformance with the reference implementation (gguf-py 0.19.0): every real and synthetic
//! fixture is decoded and compared with `../shared/fixtures/ref/NAME.summary.json`, field by field.
//! Where the reference refuses a file, the test says why and asserts the right answer instead.

use std::path::Path;

use gguf_core::{Array, Endian, Header, Value};
use gguf_test_support::{SPARSE, fixture, gemma, read_header, restored_sparse};
use serde_json::Value as Json;

fn reference(name: &str) -> Json {
    let text = std::fs::read_to_string(fixture(&format!("ref/{name}.summary.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A float as the reference writes it: a number, or "nan" / "inf" / "-inf".
fn float_matches(ours: f64, reference: &Json) -> bool {
    match reference {
        Json::String(s) => match s.as_str() {
            "nan" => ours.is_nan(),
            "inf" => ours == f64::INFINITY,
            "-inf" => ours == f64::NEG_INFINITY,
            _ => false,
        },
        Json::Number(n) => {
            n.as_f64() == Some(ours) && ours.is_sign_negative() == n.as_f64().unwrap().is_sign_negative()
        }
        _ => false,
    }
}

fn value_matches(ours: &Value, reference: &Json) -> bool {
    match ours {
        Value::U8(v) => reference.as_u64() == Some((*v).into()),
        Value::U16(v) => reference.as_u64() == Some((*v).into()),
        Value::U32(v) => reference.as_u64() == Some((*v).into()),
        Value::U64(v) => reference.as_u64() == Some(*v),
        Value::I8(v) => reference.as_i64() == Some((*v).into()),
        Value::I16(v) => reference.as_i64() == Some((*v).into()),
        Value::I32(v) => reference.as_i64() == Some((*v).into()),
        Value::I64(v) => reference.as_i64() == Some(*v),
        Value::F32(v) => float_matches((*v).into(), reference),
        Value::F64(v) => float_matches(*v, reference),
        Value::Bool(v) => reference.as_bool() == Some(*v),
        Value::String(s) => s.as_str().is_some() && reference.as_str() == s.as_str(),
        Value::Array(_) => false,
    }
}

/// Elements at the bottom of nested arrays: what gguf-py reports as a nested array's length.
fn leaves(array: &Array) -> u64 {
    match array {
        Array::Array(inner) => inner.iter().map(leaves).sum(),
        a => a.len() as u64,
    }
}

fn check_array(key: &str, array: &Array, r: &Json) {
    assert_eq!(r["length"].as_u64(), Some(leaves(array)), "{key}: length");
    let types: Vec<&str> = r["array_types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    if array.is_empty() {
        // gguf-py records no element type for empty arrays.
        assert!(types.is_empty(), "{key}: {types:?}");
        return;
    }
    assert_eq!(types[0], array.elem_type().name(), "{key}: element type");
    if let Array::Array(inner) = array {
        // gguf-py flattens nested arrays and keeps the first inner array's type chain.
        assert_eq!(
            types.get(1).copied(),
            Some(inner[0].elem_type().name()),
            "{key}: inner type"
        );
        return;
    }
    if r.get("error").is_some() {
        // gguf-py cannot decode some element; we keep it and it is not UTF-8.
        let strings = array.as_strings().unwrap();
        assert!(
            strings.iter().any(|s| std::str::from_utf8(s).is_err()),
            "{key}: expected invalid UTF-8"
        );
        return;
    }
    for (i, expected) in r["head"].as_array().unwrap().iter().enumerate() {
        assert!(
            value_matches(&array.get(i).unwrap(), expected),
            "{key}[{i}]: {:?} vs {expected}",
            array.get(i)
        );
    }
    if let Some(tail) = r.get("tail").and_then(Json::as_array) {
        for (j, expected) in tail.iter().enumerate() {
            let i = array.len() - tail.len() + j;
            assert!(
                value_matches(&array.get(i).unwrap(), expected),
                "{key}[{i}]: {:?} vs {expected}",
                array.get(i)
            );
        }
    }
}

/// Every figure of the reference summary, compared with our header.
fn check_against_reference(name: &str, header: &Header, file_len: u64) {
    let r = reference(name);
    assert!(
        r.get("reader_error").is_none(),
        "{name}: the reference refused this file"
    );
    assert_eq!(r["file_size"].as_u64(), Some(file_len), "{name}: file size");
    assert_eq!(
        r["version"].as_u64(),
        Some(header.version.into()),
        "{name}: version"
    );
    let endian = if header.endian == Endian::Big {
        "BIG"
    } else {
        "LITTLE"
    };
    assert_eq!(r["endian"].as_str(), Some(endian), "{name}: endian");
    assert_eq!(
        r["tensor_count"].as_u64(),
        Some(header.tensors.len() as u64),
        "{name}: tensor count"
    );
    assert_eq!(
        r["kv_count"].as_u64(),
        Some(header.metadata.len() as u64),
        "{name}: kv count"
    );
    assert_eq!(
        r["alignment"].as_u64(),
        Some(header.alignment.into()),
        "{name}: alignment"
    );
    assert_eq!(
        r["data_offset"].as_u64(),
        Some(header.data_offset),
        "{name}: data offset"
    );

    let summary = header.summary();
    assert_eq!(
        r["architecture"].as_str(),
        summary.architecture.as_deref(),
        "{name}: architecture"
    );
    assert_eq!(r["name"].as_str(), summary.name.as_deref(), "{name}: name");
    assert_eq!(
        r["file_type"].as_u64(),
        summary.file_type.map(|f| f.0.into()),
        "{name}: file type"
    );
    assert_eq!(
        r["file_type_name"].as_str(),
        summary.file_type.and_then(|f| f.name()),
        "{name}: file type name"
    );
    assert_eq!(
        r["param_count"].as_u64(),
        summary.parameters,
        "{name}: parameters"
    );
    assert_eq!(
        r["tensor_bytes"].as_u64(),
        Some(summary.tensor_bytes),
        "{name}: tensor bytes"
    );
    match r["vocab_size"].as_u64() {
        Some(n) => assert_eq!(summary.vocab_size, Some(n), "{name}: vocab size"),
        // The reference counts `tokenizer.ggml.tokens` only; we fall back to `{arch}.vocab_size`.
        None => assert_eq!(
            summary.vocab_size,
            header.metadata.arch_get("vocab_size").and_then(Value::as_u64)
        ),
    }
    for (ty, count) in r["tensor_types"].as_object().unwrap() {
        let share = summary.types.iter().find(|s| s.ty.name() == Some(ty.as_str()));
        assert_eq!(
            share.map(|s| s.tensors),
            count.as_u64(),
            "{name}: tensors of type {ty}"
        );
    }

    let kv = r["kv"].as_object().unwrap();
    assert_eq!(kv.len(), header.metadata.len(), "{name}: keys");
    for entry in header.metadata.entries() {
        let key = entry.key.as_str().expect("fixture keys are UTF-8");
        let rk = kv
            .get(key)
            .unwrap_or_else(|| panic!("{name}: {key} missing from the reference"));
        assert_eq!(
            rk["type"].as_str(),
            Some(entry.value.ty().name()),
            "{name}: {key} type"
        );
        assert_eq!(
            rk["offset"].as_u64(),
            Some(entry.span.start),
            "{name}: {key} offset"
        );
        match &entry.value {
            Value::Array(a) => check_array(key, a, rk),
            Value::String(s) if rk.get("error").is_some() => assert!(s.as_str().is_none(), "{name}: {key}"),
            v => assert!(
                value_matches(v, &rk["value"]),
                "{name}: {key} = {v:?}, reference {}",
                rk["value"]
            ),
        }
    }

    let tensors = r["tensors"].as_array().unwrap();
    for (t, rt) in header.tensors.iter().zip(tensors) {
        let tn = t.name.as_str().unwrap();
        assert_eq!(rt["name"].as_str(), Some(tn), "{name}: tensor name");
        let shape: Vec<u64> = rt["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .collect();
        assert_eq!(shape, t.dims, "{name}: {tn} shape");
        assert_eq!(rt["type"].as_str(), t.ty.name(), "{name}: {tn} type");
        assert_eq!(rt["offset"].as_u64(), Some(t.offset), "{name}: {tn} offset");
        assert_eq!(
            rt["abs_offset"].as_u64(),
            header.absolute_offset(t),
            "{name}: {tn} absolute offset"
        );
        assert_eq!(rt["n_elements"].as_u64(), t.n_elements(), "{name}: {tn} elements");
        assert_eq!(rt["n_bytes"].as_u64(), t.n_bytes(), "{name}: {tn} bytes");
    }
}

fn check_file(path: &Path) -> Header {
    let name = path.file_name().unwrap().to_str().unwrap();
    let len = std::fs::metadata(path).unwrap().len();
    let (header, read) = read_header(path);
    let header = header.unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        read < header.header_len + (16 << 20),
        "{name}: read {read} bytes for a {} byte header",
        header.header_len
    );
    check_against_reference(name, &header, len);
    header
}

#[test]
fn real_vocab_files_match_the_reference() {
    gguf_test_support::needs_fixtures!();
    for entry in std::fs::read_dir(fixture("real")).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap() == "ggml-vocab-dbrx.gguf" {
            continue; // see dbrx_duplicate_key_is_kept
        }
        check_file(&path);
    }
}

#[test]
fn synthetic_files_match_the_reference() {
    gguf_test_support::needs_fixtures!();
    let mut checked = 0;
    for entry in std::fs::read_dir(fixture("synth")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap();
        if !name.ends_with(".gguf") || name.starts_with("truncated-") {
            continue; // see truncated_files
        }
        check_file(&path);
        checked += 1;
    }
    assert_eq!(checked, 15);
}

#[test]
fn restored_sparse_files_match_the_reference() {
    gguf_test_support::needs_fixtures!();
    for name in SPARSE {
        let header = check_file(&restored_sparse(name));
        assert!(header.header_len < 1 << 20, "{name}: only the header is read");
    }
}

#[test]
fn gemma_model_matches_the_reference() {
    gguf_test_support::needs_fixtures!();
    gguf_test_support::needs_gemma!();
    let header = check_file(&gemma());
    let s = header.summary();
    assert_eq!(s.parameters, Some(268_098_176));
    assert_eq!(s.attention.kind.name(), "MQA");
    assert_eq!(
        (s.attention.heads, s.attention.kv_heads, s.attention.group_size),
        (Some(4), Some(1), Some(4))
    );
    assert_eq!(s.attention.sliding_window, Some(512));
    assert_eq!(s.context_length, Some(32768));
    // Why a Q4_K_M file holds 7.36 bits per weight: its Q8_0 token embedding is most of its bytes
    // (262,144 × 640 weights at 34 bytes a block of 32), and nothing else a tenth.
    let largest: Vec<(&str, u64)> = s
        .dominant_tensors
        .iter()
        .map(|l| (header.tensors[l.index].name.as_str().unwrap(), l.bytes))
        .collect();
    assert_eq!(largest, [("token_embd.weight", 262_144 * 640 / 32 * 34)]);
    assert_eq!(
        header.tensors[s.dominant_tensors[0].index].ty,
        gguf_core::GgmlType::Q8_0
    );
}

/// gguf-py refuses the dbrx vocab ("Duplicate general.file_type"); both pairs are kept, in order.
#[test]
fn dbrx_duplicate_key_is_kept() {
    gguf_test_support::needs_fixtures!();
    let (header, _) = read_header(&fixture("real/ggml-vocab-dbrx.gguf"));
    let header = header.unwrap();
    assert_eq!(header.metadata.len(), 25);
    let file_types: Vec<&gguf_core::Entry> = header
        .metadata
        .entries()
        .iter()
        .filter(|e| e.key.as_str() == Some("general.file_type"))
        .collect();
    assert_eq!(file_types.len(), 2);
    assert!(file_types[0].span.start < file_types[1].span.start);
    assert_eq!(
        file_types[1].span.start, 561,
        "gguf-py names the second one's offset"
    );
    let s = header.summary();
    assert_eq!(s.architecture.as_deref(), Some("dbrx"));
    assert_eq!(s.vocab_size, Some(100_352));
}

/// gguf-py fails on all four with numpy errors. Cut inside the header: our error names the place.
/// Cut inside the tensor data: the header is whole (the validator reports the missing bytes).
#[test]
fn truncated_files() {
    gguf_test_support::needs_fixtures!();
    let whole = gguf_core::parse(&std::fs::read(fixture("synth/all-types.gguf")).unwrap()).unwrap();
    for (name, section) in [
        ("truncated-in-header.gguf", "header"),
        ("truncated-in-kv.gguf", "kv"),
        ("truncated-in-tensor-info.gguf", "tensor"),
    ] {
        let bytes = std::fs::read(fixture(&format!("synth/{name}"))).unwrap();
        let err = gguf_core::parse(&bytes).unwrap_err();
        let document = serde_json::to_value(gguf_core::ErrorDocument::of(&err)).unwrap();
        assert_eq!(document["code"], "truncated", "{name}: {err}");
        assert_eq!(document["context"]["section"], section, "{name}: {err}");
        assert!(err.offset() < bytes.len() as u64, "{name}: {err}");
        let (incremental, _) = read_header(&fixture(&format!("synth/{name}")));
        assert_eq!(
            incremental.unwrap_err(),
            err,
            "{name}: incremental and one-shot errors differ"
        );
    }
    let (cut, _) = read_header(&fixture("synth/truncated-in-data.gguf"));
    let cut = cut.unwrap();
    // Debug text compares NaN values too.
    assert_eq!(format!("{:?}", cut.metadata), format!("{:?}", whole.metadata));
    assert_eq!(cut.tensors, whole.tensors);
}
