//! Dequantization against the reference implementation's values (gguf-py, in
//! `../shared/fixtures`), exactly, bit for bit as f32 (the sign of zero included).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use gguf_core::{Endian, GgmlType, Header};
use gguf_test_support::{fixture, gemma, read_header, restored_sparse};
use gguf_values::dequant::{DequantError, dequantize, prefix};
use serde_json::Value as Json;

fn json(rel: &str) -> Json {
    serde_json::from_str(&std::fs::read_to_string(fixture(rel)).unwrap()).unwrap()
}

fn header(path: &Path) -> Header {
    read_header(path).0.unwrap()
}

fn read_at(path: &Path, offset: u64, len: u64) -> Vec<u8> {
    let mut f = File::open(path).unwrap();
    f.seek(SeekFrom::Start(offset)).unwrap();
    let mut buf = vec![0; len as usize];
    f.read_exact(&mut buf).unwrap();
    buf
}

/// The reference values as f32, the form the comparison is made in.
fn as_f32(values: &Json) -> Vec<f32> {
    values
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect()
}

fn assert_same_bits(ours: &[f32], expected: &[f32], what: &str) {
    assert_eq!(ours.len(), expected.len(), "{what}: value count");
    for (i, (a, b)) in ours.iter().zip(expected).enumerate() {
        assert!(
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            "{what}: value {i} is {a:e}, the reference says {b:e}"
        );
    }
}

/// Decodes tensor `name` of the file at `path` whole.
fn decode_tensor(path: &Path, h: &Header, name: &str) -> Vec<f32> {
    let t = h
        .tensors
        .iter()
        .find(|t| t.name.as_bytes() == name.as_bytes())
        .unwrap();
    let p = prefix(h, t, None).unwrap();
    assert_eq!(p.len, t.n_bytes().unwrap(), "{name}: the whole tensor");
    dequantize(t.ty, h.endian, &read_at(path, p.offset, p.len)).unwrap()
}

#[test]
fn quants_match_gguf_py() {
    gguf_test_support::needs_fixtures!();
    let path = fixture("synth/quants.gguf");
    let h = header(&path);
    let expected = json("synth/quants.expected.json");
    let tensors = expected["tensors"].as_object().unwrap();
    assert_eq!(tensors.len(), 11);
    for (name, e) in tensors {
        let ours = decode_tensor(&path, &h, name);
        assert_same_bits(&ours, &as_f32(&e["values"]), name);
    }
}

#[test]
fn big_endian_twin_decodes_to_the_little_endian_values() {
    gguf_test_support::needs_fixtures!();
    let path = fixture("synth/quants-be.gguf");
    let h = header(&path);
    assert_eq!(h.endian, Endian::Big);
    let expected = json("synth/quants.expected.json");
    let mut types = Vec::new();
    for t in &h.tensors {
        let name = t.name.to_string();
        let ours = decode_tensor(&path, &h, &name);
        assert_same_bits(&ours, &as_f32(&expected["tensors"][&name]["values"]), &name);
        types.push(t.ty);
    }
    // gguf-convert-endian's types: plain ones swapped whole, Q4_0/Q8_0 with swapped scales,
    // MXFP4 untouched (single bytes).
    for ty in [
        GgmlType::F32,
        GgmlType::F16,
        GgmlType::BF16,
        GgmlType::Q4_0,
        GgmlType::Q8_0,
        GgmlType::MXFP4,
    ] {
        assert!(types.contains(&ty), "{ty} in quants-be.gguf");
    }
}

/// Checks every entry of a `ref/NAME.dequant.json`: the first row's location and values.
fn check_first_rows(path: &Path, reference: &str) -> usize {
    let h = header(path);
    let r = json(reference);
    let mut checked = 0;
    for (ty, e) in r.as_object().unwrap() {
        if e.get("skipped").is_some() {
            continue;
        }
        let name = e["tensor"].as_str().unwrap();
        let t = h
            .tensors
            .iter()
            .find(|t| t.name.as_bytes() == name.as_bytes())
            .unwrap();
        assert_eq!(t.ty.name(), Some(ty.as_str()), "{name}");
        let p = prefix(&h, t, Some(1)).unwrap();
        assert_eq!(p.offset, e["row_abs_offset"].as_u64().unwrap(), "{name}: offset");
        assert_eq!(p.len, e["row_bytes"].as_u64().unwrap(), "{name}: row bytes");
        let mut ours = dequantize(t.ty, h.endian, &read_at(path, p.offset, p.len)).unwrap();
        // The reference stops at 4096 values of a long row.
        ours.truncate(e["n_values"].as_u64().unwrap() as usize);
        assert_same_bits(&ours, &as_f32(&e["values"]), &format!("{reference}: {name}"));
        checked += 1;
    }
    checked
}

#[test]
fn gemma_first_rows_match_gguf_py() {
    gguf_test_support::needs_fixtures!();
    gguf_test_support::needs_gemma!();
    // Q8_0, Q5_0, Q4_K, Q6_K and F32 of a real model.
    assert_eq!(
        check_first_rows(&gemma(), "ref/gemma-3-270m-q4_k_m.gguf.dequant.json"),
        5
    );
}

#[test]
fn synthetic_first_rows_match_gguf_py() {
    gguf_test_support::needs_fixtures!();
    for (file, types) in [
        ("all-types", 8),
        ("big-endian", 3),
        ("align-1", 3),
        ("align-64", 3),
        ("align-4096", 3),
        ("sharded-00001-of-00003", 1),
        ("sharded-00002-of-00003", 1),
        ("sharded-00003-of-00003", 1),
        ("quants", 11),
        ("quants-be", 3),
    ] {
        let checked = check_first_rows(
            &fixture(&format!("synth/{file}.gguf")),
            &format!("ref/{file}.gguf.dequant.json"),
        );
        assert_eq!(checked, types, "{file}");
    }
}

#[test]
fn zeroed_rows_of_sparse_files_decode_to_signed_zeros() {
    gguf_test_support::needs_fixtures!();
    // The rows lie in the unwritten hole: Q4_K's d·q - dmin·m gives +0, Q6_K's d·sc·(q - 32)
    // and Q4_0's (q - 8)·d give -0, as in the reference.
    for name in ["gqa-llama-1.1b", "moe-llama-8x", "big-40g-sparse"] {
        let checked = check_first_rows(
            &restored_sparse(&format!("{name}.gguf")),
            &format!("ref/{name}.gguf.dequant.json"),
        );
        assert!(checked >= 2, "{name}");
    }
}

#[test]
fn prefix_covers_whole_rows_and_stops_at_the_tensor() {
    gguf_test_support::needs_gemma!();
    let h = header(&gemma());
    let t = h
        .tensors
        .iter()
        .find(|t| t.name.as_bytes() == b"blk.0.attn_q.weight")
        .unwrap();
    assert_eq!(t.dims, [640, 1024]);
    assert_eq!(t.ty, GgmlType::Q5_0);
    let row = 640 / 32 * 22;
    let p = prefix(&h, t, Some(3)).unwrap();
    assert_eq!((p.rows, p.len, p.elements), (3, 3 * row, 3 * 640));
    assert_eq!(p.offset, h.data_offset + t.offset);
    let all = prefix(&h, t, Some(u64::MAX)).unwrap();
    assert_eq!((all.rows, all.len), (1024, t.n_bytes().unwrap()));
    assert_eq!(prefix(&h, t, None).unwrap(), all);
    assert_eq!(prefix(&h, t, Some(0)).unwrap().len, 0);
}

#[test]
fn prefix_refuses_what_cannot_be_read() {
    gguf_test_support::needs_fixtures!();
    // A tensor whose data would lie past the end of a truncated file.
    let path = fixture("synth/truncated-in-data.gguf");
    let h = header(&path);
    let last = h.tensors.last().unwrap();
    assert!(matches!(
        prefix(&h, last, None),
        Err(DequantError::PastEnd { .. })
    ));
    let mut odd = last.clone();
    odd.ty = GgmlType::Q4_K;
    odd.dims = vec![100];
    assert_eq!(
        prefix(&h, &odd, None),
        Err(DequantError::BadShape {
            ty: GgmlType::Q4_K,
            row_len: 100
        })
    );
    // Figures that overflow say so, not that the shape is bad.
    odd.ty = GgmlType::F32;
    odd.dims = vec![1024, 1 << 32, 1 << 32];
    assert_eq!(
        prefix(&h, &odd, None),
        Err(DequantError::Overflow {
            what: "element count (the product of its dimensions)"
        })
    );
    odd.dims = vec![1024];
    odd.offset = u64::MAX - 31;
    assert_eq!(
        prefix(&h, &odd, None).unwrap_err().to_string(),
        "the tensor's offset plus the data section's start overflows 64 bits"
    );
    odd.ty = GgmlType(77);
    assert_eq!(
        prefix(&h, &odd, None),
        Err(DequantError::Unsupported { ty: GgmlType(77) })
    );
}
