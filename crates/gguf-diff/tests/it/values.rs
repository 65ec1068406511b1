//! Value errors: a tensor stored as F32 against the same values quantized to Q8_0 and Q4_0 by
//! the tests' own quantizer, checked against figures computed here in f64 from values this file
//! dequantizes itself; exact types give exactly zero; the accumulator's edge cases.

use gguf_core::{GgmlType, parse};
use gguf_diff::{ErrorStats, Side, ValuePairs, Which};
use gguf_test_support::quant::{dequantize, encode, file_with, sample_values};

/// Runs the read loop over two files in memory: the error, and the reads made (which, offset, len).
fn compare(a: &[u8], b: &[u8], name: &str) -> (ErrorStats, Vec<(Which, u64, u64)>) {
    let (ha, hb) = (parse(a).unwrap(), parse(b).unwrap());
    let find = |h: &gguf_core::Header| h.tensors.iter().find(|t| t.name == *name).unwrap().clone();
    let (ta, tb) = (find(&ha), find(&hb));
    let mut pairs = ValuePairs::new(Side::new(&ha, &ta).unwrap(), Side::new(&hb, &tb).unwrap()).unwrap();
    let mut reads = Vec::new();
    while let Some((which, read)) = pairs.next_read() {
        reads.push((which, read.offset, read.len));
        let file = if which == Which::A { a } else { b };
        pairs
            .feed(&file[read.offset as usize..read.end() as usize])
            .unwrap();
    }
    (pairs.finish(), reads)
}

/// RMSE, max |b − a|, cosine and SNR computed directly.
fn reference(a: &[f32], b: &[f32]) -> (f64, f64, f64, f64) {
    let (mut e2, mut a2, mut b2, mut ab, mut max) = (0f64, 0f64, 0f64, 0f64, 0f64);
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (f64::from(x), f64::from(y));
        e2 += (y - x).powi(2);
        a2 += x * x;
        b2 += y * y;
        ab += x * y;
        max = max.max((y - x).abs());
    }
    let n = a.len() as f64;
    (
        (e2 / n).sqrt(),
        max,
        ab / (a2.sqrt() * b2.sqrt()),
        10.0 * (a2 / e2).log10(),
    )
}

fn close(ours: Option<f64>, theirs: f64, what: &str) {
    let ours = ours.unwrap();
    assert!(
        (ours - theirs).abs() <= 1e-12 * theirs.abs().max(1e-300),
        "{what}: {ours} vs {theirs}"
    );
}

#[test]
fn quantization_error_of_q8_0_and_q4_0_against_f32() {
    let dims: &[u64] = &[256, 12];
    let values = sample_values(256 * 12);
    let a = file_with(&[("w", dims, GgmlType::F32, encode(GgmlType::F32, &values))]);
    for ty in [GgmlType::Q8_0, GgmlType::Q4_0] {
        let bytes = encode(ty, &values);
        let ours = dequantize(ty, &bytes);
        // The test's quantizer writes what ggml reads: the core decodes our bytes to our values.
        assert_eq!(
            gguf_values::dequant::dequantize(ty, gguf_core::Endian::Little, &bytes).unwrap(),
            ours
        );
        let b = file_with(&[("w", dims, ty, bytes)]);
        let (stats, reads) = compare(&a, &b, "w");
        assert_eq!(reads.len(), 2, "one step: A then B");
        assert_eq!((reads[0].0, reads[1].0), (Which::A, Which::B));
        let (rmse, max, cosine, snr) = reference(&values, &ours);
        assert_eq!(stats.n(), values.len() as u64);
        close(stats.rmse(), rmse, "rmse");
        assert_eq!(stats.max_abs(), Some(max), "max");
        close(stats.cosine(), cosine, "cosine");
        assert!(
            (stats.snr_db().unwrap() - snr).abs() < 1e-9,
            "snr {:?} vs {snr}",
            stats.snr_db()
        );
        assert!(!stats.exact());
        assert!(
            rmse > 0.0 && cosine > 0.9 && cosine < 1.0,
            "{ty}: {rmse} {cosine}"
        );
    }
    // Q4_0 loses more than Q8_0.
    let err = |ty| {
        compare(&a, &file_with(&[("w", dims, ty, encode(ty, &values))]), "w")
            .0
            .rmse()
            .unwrap()
    };
    assert!(err(GgmlType::Q4_0) > 4.0 * err(GgmlType::Q8_0));
}

#[test]
fn values_an_f16_holds_exactly_give_zero_error_across_steps() {
    // 1.5 M values: two steps of 2^20, each A then B.
    let n = 3 << 19;
    let values: Vec<f32> = (0..n).map(|i| ((i % 4096) as f32 - 2048.0) / 8.0).collect();
    let dims: &[u64] = &[1024, n as u64 / 1024];
    let a = file_with(&[("w", dims, GgmlType::F32, encode(GgmlType::F32, &values))]);
    let b = file_with(&[("w", dims, GgmlType::F16, encode(GgmlType::F16, &values))]);
    let (stats, reads) = compare(&a, &b, "w");
    let whiches: Vec<Which> = reads.iter().map(|r| r.0).collect();
    assert_eq!(whiches, [Which::A, Which::B, Which::A, Which::B]);
    assert_eq!((reads[0].2, reads[1].2), (4 << 20, 2 << 20));
    assert_eq!((reads[2].2, reads[3].2), (2 << 20, 1 << 20));
    assert!(stats.exact());
    assert_eq!(stats.n(), n as u64);
    assert_eq!((stats.rmse(), stats.max_abs()), (Some(0.0), Some(0.0)));
    assert_eq!(stats.cosine(), Some(1.0));
    assert_eq!(stats.snr_db(), Some(f64::INFINITY));
}

#[test]
fn accumulator_edge_cases() {
    let none = ErrorStats::default();
    assert_eq!(
        (none.n(), none.rmse(), none.cosine(), none.snr_db()),
        (0, None, None, None)
    );
    assert!(none.exact());

    // All zeros on both sides: no error, same direction by convention.
    let mut zeros = ErrorStats::default();
    zeros.add(&[0.0, -0.0], &[0.0, 0.0]);
    assert!(zeros.exact());
    assert_eq!((zeros.cosine(), zeros.snr_db()), (Some(1.0), Some(f64::INFINITY)));

    // A all zeros, B not: no direction for A, SNR −∞.
    let mut from_zero = ErrorStats::default();
    from_zero.add(&[0.0, 0.0], &[3.0, 4.0]);
    assert_eq!(from_zero.cosine(), None);
    assert_eq!(from_zero.snr_db(), Some(f64::NEG_INFINITY));
    assert_eq!(from_zero.rmse(), Some((12.5f64).sqrt()));
    assert_eq!(from_zero.max_abs(), Some(4.0));

    // NaN and infinities are left out of the sums and counted; the same non-finite value is no difference.
    let mut odd = ErrorStats::default();
    odd.add(
        &[f32::NAN, f32::INFINITY, 1.0, 2.0],
        &[f32::NAN, f32::NEG_INFINITY, 1.0, 2.0],
    );
    assert_eq!((odd.n(), odd.non_finite(), odd.non_finite_differ()), (4, 2, 1));
    assert_eq!(odd.rmse(), Some(0.0));
    assert!(!odd.exact());
    let mut only_nan = ErrorStats::default();
    only_nan.add(&[f32::NAN], &[f32::NAN]);
    assert!(only_nan.exact());
    assert_eq!(only_nan.rmse(), None);

    // Merging equals adding all at once.
    let (x, y) = (sample_values(100), sample_values(200)[100..].to_vec());
    let mut whole = ErrorStats::default();
    whole.add(&x, &y);
    let (mut p, mut q) = (ErrorStats::default(), ErrorStats::default());
    p.add(&x[..37], &y[..37]);
    q.add(&x[37..], &y[37..]);
    p.merge(&q);
    assert_eq!(p.n(), whole.n());
    assert!((p.rmse().unwrap() - whole.rmse().unwrap()).abs() < 1e-15);
    assert_eq!(p.max_abs(), whole.max_abs());
}

/// F64 values beyond f32's range are compared as they are (issue 33): read as f32 they became
/// infinities, and a tensor against its sign flipped gave no figures at all.
#[test]
fn f64_values_beyond_f32s_range_are_compared_whole() {
    let f64s = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let a = file_with(&[("w", &[2], GgmlType::F64, f64s(&[1e100, 2e100]))]);
    let b = file_with(&[("w", &[2], GgmlType::F64, f64s(&[-1e100, -2e100]))]);
    let (stats, _) = compare(&a, &b, "w");
    assert_eq!((stats.n(), stats.non_finite()), (2, 0));
    close(stats.cosine(), -1.0, "cosine");
    assert_eq!(stats.max_abs(), Some(4e100));
    close(stats.rmse(), (10e200f64).sqrt(), "rmse");
    let (same, _) = compare(&a, &a, "w");
    assert!(same.exact() && same.non_finite() == 0);
}

#[test]
fn tensors_of_different_sizes_or_undecodable_types_are_refused() {
    let a = file_with(&[("w", &[32, 2], GgmlType::F32, vec![0; 256])]);
    let b = file_with(&[("w", &[32, 3], GgmlType::F32, vec![0; 384])]);
    let (ha, hb) = (parse(&a).unwrap(), parse(&b).unwrap());
    let sa = Side::new(&ha, &ha.tensors[0]).unwrap();
    let sb = Side::new(&hb, &hb.tensors[0]).unwrap();
    assert!(ValuePairs::new(sa, sb).is_none());
    let removed = gguf_core::testkit::model_with_tensors(&[("w", &[32], GgmlType(4))]);
    let h = parse(&removed).unwrap();
    assert!(Side::new(&h, &h.tensors[0]).is_err());
}

/// `json::ValuesJson` (what the page asks for after measuring) writes exactly the document's
/// `values` and `layers`.
#[cfg(feature = "serde")]
#[test]
fn values_json_is_the_documents_values_and_layers() {
    use gguf_core::split::SplitModel;
    use gguf_diff::Measured;
    use gguf_diff::json::{Document, ValuesJson};

    let values = sample_values(512 * 4);
    let dims: &[u64] = &[512, 4];
    let file = |ty| {
        file_with(&[
            ("blk.0.ffn_up.weight", dims, ty, encode(ty, &values)),
            ("blk.3.ffn_up.weight", dims, ty, encode(ty, &values)),
            ("output.weight", dims, ty, encode(ty, &values)),
        ])
    };
    let (a, b) = (file(GgmlType::F32), file(GgmlType::Q8_0));
    let model = |bytes: &[u8]| SplitModel::new(vec![("m.gguf".into(), parse(bytes).unwrap())]);
    let (ma, mb) = (model(&a), model(&b));
    let diff = gguf_diff::diff(ma.header(), mb.header());
    let measured: Vec<Measured> = diff
        .tensors
        .same_shape()
        .into_iter()
        .map(|(i, j)| {
            let name = ma.header().tensors[i].name.to_string();
            Measured {
                a: i,
                b: j,
                stats: compare(&a, &b, &name).0,
            }
        })
        .collect();
    let doc = serde_json::to_value(Document {
        a_name: "a",
        b_name: "b",
        a: &ma,
        b: &mb,
        diff: &diff,
        values: Some(&measured),
    })
    .unwrap();
    let alone = serde_json::to_value(ValuesJson {
        a: &ma,
        b: &mb,
        measured: &measured,
    })
    .unwrap();
    assert_eq!(alone["values"], doc["values"]);
    assert_eq!(alone["layers"], doc["layers"]);
    assert_eq!(alone.as_object().unwrap().len(), 2);
    let layers: Vec<_> = doc["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["layer"].clone())
        .collect();
    assert_eq!(
        layers,
        [
            serde_json::json!(0),
            serde_json::json!(3),
            serde_json::Value::Null
        ]
    );
    assert_eq!(doc["values"].as_array().unwrap().len(), 3);
}
