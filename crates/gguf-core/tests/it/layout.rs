//! The layout module on files written by the test builder: every region of aligned, unaligned,
//! overlapping, truncated and vocabulary-only files; the validator's findings against its regions;
//! per-layer sums; and the report's `layout` and `bits_per_weight`.

use gguf_core::layout::{FileLayout, LayerFigures, Region, RegionKind, layers};
use gguf_core::report::{Report, ReportOptions};
use gguf_core::split::SplitModel;
use gguf_core::testkit::{GgufBuilder, strings};
use gguf_core::validate::Subject;
use gguf_core::{FindingCode, GgmlType, Header, parse, validate};
use serde_json::{Value as Json, json};

use GgmlType as T;
use RegionKind::{Gap, Header as Head, Missing, Padding, Tail};

fn llama() -> GgufBuilder {
    GgufBuilder::new().kv("general.architecture", "llama")
}

fn layout_of(file: &[u8]) -> (Header, FileLayout) {
    let header = parse(file).unwrap();
    let layout = FileLayout::of(&header, header.file_len);
    (header, layout)
}

/// `(kind, start, end)` of every region.
fn regions(layout: &FileLayout) -> Vec<(RegionKind, u64, u64)> {
    layout
        .regions
        .iter()
        .map(|Region { kind, span }| (*kind, span.start, span.end))
        .collect()
}

/// The header region, and the padding after it when the header does not end aligned.
fn head(h: &Header) -> Vec<(RegionKind, u64, u64)> {
    let mut out = vec![(Head, 0, h.header_len)];
    if h.data_offset > h.header_len {
        out.push((Padding, h.header_len, h.data_offset));
    }
    out
}

/// The spans of the findings with `code`, with their subjects.
fn spans(h: &Header, code: FindingCode) -> Vec<(u64, u64, Subject)> {
    validate(h, None)
        .findings
        .into_iter()
        .filter(|f| f.code == code)
        .map(|f| (f.span.start, f.span.end, f.subject))
        .collect()
}

#[test]
fn aligned_tensors_have_padding_between_them_and_a_tail_after() {
    let file = llama()
        .tensor("blk.0.a", &[8], T::F32) // 32 bytes at 0
        .tensor("blk.0.b", &[3], T::F32) // 12 bytes at 32, padded to 64
        .tensor("output.weight", &[8], T::F32) // 32 bytes at 64
        .with_tensor_data()
        .trailing(&[7; 40])
        .build();
    let (h, layout) = layout_of(&file);
    let d = h.data_offset;
    assert_eq!(d % 32, 0);
    assert_eq!(file.len() as u64, d + 96 + 40);
    let mut expected = head(&h);
    // The last tensor ends aligned (96): all 40 bytes after it are the tail.
    expected.extend([(Padding, d + 44, d + 64), (Tail, d + 96, d + 136)]);
    assert_eq!(regions(&layout), expected);
    assert_eq!(layout.data_end, d + 96);
    assert!(layout.sizes_known && layout.gaps.is_empty() && layout.overlaps.is_empty());
    assert_eq!(layout.missing(), None);
    assert_eq!(layout.truncation(), None);
    assert!(spans(&h, FindingCode::TensorDataGap).is_empty());
}

#[test]
fn padding_after_the_last_tensor_is_padding_and_the_rest_tail() {
    // 12 bytes of data padded to 32, then 40 more bytes: 20 of padding, then 40 of tail.
    let file = llama()
        .tensor("a", &[3], T::F32)
        .with_tensor_data()
        .trailing(&[0; 60])
        .build();
    let (h, layout) = layout_of(&file);
    let d = h.data_offset;
    let mut expected = head(&h);
    expected.extend([(Padding, d + 12, d + 32), (Tail, d + 32, d + 72)]);
    assert_eq!(file.len() as u64, d + 72);
    assert_eq!(regions(&layout), expected);
}

#[test]
fn an_unaligned_tensor_after_unused_bytes_is_a_gap_even_under_the_alignment() {
    // `a` ends at 32 (aligned); `b` starts at 40: 8 unused bytes, fewer than the alignment (32),
    // still a gap, as the validator says (the page once called them padding).
    let file = llama()
        .tensor("a", &[8], T::F32)
        .tensor_at("b", &[8], T::F32, 40)
        .with_tensor_data()
        .build();
    let (h, layout) = layout_of(&file);
    let d = h.data_offset;
    let mut expected = head(&h);
    expected.push((Gap, d + 32, d + 40));
    // `b` ends at 72; the file ends there too, so its padding (to 96) is not in the file.
    assert_eq!(file.len() as u64, d + 72);
    assert_eq!(regions(&layout), expected);
    assert_eq!(layout.gaps.len(), 1);
    assert_eq!(
        (layout.gaps[0].before, layout.gaps[0].span.clone()),
        (1, d + 32..d + 40)
    );
}

#[test]
fn the_validators_gap_is_the_layouts_gap_region() {
    for (offset, unused) in [(40, 8), (44, 12), (100, 68)] {
        let file = llama()
            .tensor("a", &[8], T::F32)
            .tensor_at("b", &[8], T::F32, offset)
            .tensor("c", &[8], T::F32)
            .with_tensor_data()
            .build();
        let (h, layout) = layout_of(&file);
        let gaps: Vec<(u64, u64)> = regions(&layout)
            .into_iter()
            .filter(|r| r.0 == Gap)
            .map(|r| (r.1, r.2))
            .collect();
        let d = h.data_offset;
        assert_eq!(gaps, [(d + 32, d + 32 + unused)], "b at {offset}");
        assert_eq!(
            spans(&h, FindingCode::TensorDataGap),
            [(gaps[0].0, gaps[0].1, Subject::Tensor(1))],
            "b at {offset}"
        );
    }
}

#[test]
fn a_gap_before_the_first_tensor_starts_at_the_data_offset() {
    let file = llama()
        .tensor_at("a", &[8], T::F32, 64)
        .with_tensor_data()
        .build();
    let (h, layout) = layout_of(&file);
    let d = h.data_offset;
    let mut expected = head(&h);
    expected.push((Gap, d, d + 64));
    assert_eq!(regions(&layout), expected);
    assert_eq!(
        spans(&h, FindingCode::TensorDataGap),
        [(d, d + 64, Subject::Tensor(0))]
    );
}

#[test]
fn overlapping_tensors_are_an_overlap_and_no_region() {
    let file = llama()
        .tensor_at("a", &[8], T::F32, 0) // 0..32
        .tensor_at("b", &[8], T::F32, 16) // 16..48
        .tensor_at("c", &[8], T::F32, 64) // 64..96, after b's padding
        .with_tensor_data()
        .build();
    let (h, layout) = layout_of(&file);
    let d = h.data_offset;
    assert_eq!(layout.overlaps.len(), 1);
    let o = &layout.overlaps[0];
    assert_eq!((o.tensor, o.other, o.span.clone()), (1, 0, d + 16..d + 32));
    assert_eq!(
        spans(&h, FindingCode::TensorsOverlap),
        [(d + 16, d + 32, Subject::Tensor(1))]
    );
    let mut expected = head(&h);
    expected.push((Padding, d + 48, d + 64));
    assert_eq!(regions(&layout), expected);
    assert!(layout.gaps.is_empty());
}

#[test]
fn a_truncated_file_misses_the_bytes_up_to_the_furthest_tensor_end() {
    let file = llama()
        .tensor("a", &[8], T::F32) // 0..32
        .tensor("b", &[3], T::F32) // 32..44
        .tensor("c", &[8], T::F32) // 64..96
        .with_tensor_data()
        .build();
    let d = parse(&file).unwrap().data_offset;
    let cut = &file[..(d + 40) as usize];
    let (h, layout) = layout_of(cut);
    let mut expected = head(&h);
    expected.push((Missing, d + 40, d + 96));
    assert_eq!(regions(&layout), expected);
    assert_eq!(layout.missing(), Some(d + 40..d + 96));
    let t = layout.truncation().unwrap();
    assert_eq!((t.first, t.tensors, t.span.clone()), (1, 2, d + 40..d + 96));
    assert_eq!(t.first_span, d + 32..d + 44);
    assert_eq!(
        spans(&h, FindingCode::TensorPastEndOfFile),
        [(d + 40, d + 96, Subject::Tensor(1))]
    );
}

#[test]
fn a_file_cut_before_its_data_section_misses_all_of_it() {
    let file = llama().tensor("a", &[8], T::F32).with_tensor_data().build();
    let (full, _) = layout_of(&file);
    let cut = &file[..full.header_len as usize];
    let (h, layout) = layout_of(cut);
    let d = h.data_offset;
    assert!(d > h.header_len, "the builder's header does not end aligned");
    assert_eq!(
        regions(&layout),
        [(Head, 0, h.header_len), (Missing, h.header_len, d + 32)]
    );
    assert_eq!(
        spans(&h, FindingCode::DataSectionPastEndOfFile),
        [(h.header_len, d, Subject::File)]
    );
}

#[test]
fn a_vocabulary_only_file_misses_nothing() {
    // No tensors, and the file ends with its header, before the (empty) data section.
    let file = llama()
        .kv("tokenizer.ggml.model", "gpt2")
        .kv("tokenizer.ggml.tokens", strings(&["a", "b", "c"]))
        .build();
    let (h, layout) = layout_of(&file);
    assert!(h.tensors.is_empty());
    assert!(
        h.data_offset > file.len() as u64,
        "the data offset lies past the end"
    );
    assert_eq!(regions(&layout), [(Head, 0, file.len() as u64)]);
    assert_eq!(layout.missing(), None);
    assert_eq!(layout.truncation(), None);
    assert_eq!(layout.data_end, h.data_offset);
    assert!(
        validate(&h, None)
            .findings
            .iter()
            .all(|f| f.code != FindingCode::DataSectionPastEndOfFile)
    );

    // With bytes after its padding, they are its tail.
    let longer = llama().trailing(&[0; 40]).build();
    let (h, layout) = layout_of(&longer);
    let mut expected = head(&h);
    expected.push((Tail, h.data_offset, longer.len() as u64));
    assert_eq!(regions(&layout), expected);
}

#[test]
fn padding_past_the_end_is_not_missing_when_no_tensor_is_cut() {
    // Tensors of a type of unknown size: none is placed, so none is cut; the file ends with its
    // header, before the aligned data section. The map and the checks both say nothing is missing.
    let file = llama().tensor("unknown", &[8], T(99)).build();
    let (h, layout) = layout_of(&file);
    assert!(h.data_offset > file.len() as u64);
    assert_eq!(layout.missing(), None);
    assert_eq!(layout.truncation(), None);
    assert!(spans(&h, FindingCode::TensorPastEndOfFile).is_empty());
    assert_eq!(regions(&layout), [(Head, 0, file.len() as u64)]);
}

#[test]
fn bytes_beyond_the_padding_are_no_gap_when_a_size_is_unknown() {
    let file = llama()
        .tensor("a", &[8], T::F32)
        .tensor_at("unknown", &[8], T(99), 40)
        .tensor_at("b", &[8], T::F32, 128)
        .with_tensor_data()
        .trailing(&[0; 64])
        .build();
    let (h, layout) = layout_of(&file);
    assert!(!layout.sizes_known);
    assert_eq!(layout.placed.len(), 2);
    // `unknown` may hold the bytes after `a`: they are neither gap nor tail.
    assert!(regions(&layout).iter().all(|r| r.0 != Gap && r.0 != Tail));
    assert!(spans(&h, FindingCode::TensorDataGap).is_empty());
}

#[test]
fn bits_per_weight_of_a_tensor() {
    let file = llama()
        .tensor("f16", &[16], T::F16)
        .tensor("q4_0", &[64, 2], T::Q4_0)
        .tensor("empty", &[0], T::F32)
        .tensor("unknown", &[8], T(99))
        .build();
    let h = parse(&file).unwrap();
    let bits: Vec<Option<f64>> = h.tensors.iter().map(|t| t.bits_per_weight()).collect();
    assert_eq!(bits, [Some(16.0), Some(4.5), None, None]);
}

#[test]
fn layers_sum_their_tensors_and_order_types_as_the_summary() {
    let file = llama()
        .tensor("token_embd.weight", &[8], T::F32) // 32 bytes
        .tensor("blk.1.attn_q.weight", &[8], T::F32) // 32
        .tensor("blk.0.attn_q.weight", &[16], T::F16) // 32
        .tensor("blk.0.ffn_up.weight", &[4], T::F32) // 16
        .tensor("blk.0.x.weight", &[8], T(99)) // unknown size: not counted
        .tensor("blk.10.ffn_up.weight", &[64], T::Q4_0) // 36
        .with_tensor_data()
        .build();
    let h = parse(&file).unwrap();
    let summary = h.summary();
    let order: Vec<GgmlType> = summary.types.iter().map(|s| s.ty).collect();
    assert_eq!(&order[..3], [T::F32, T::Q4_0, T::F16]); // 80, 36, 32 bytes
    let got = layers(&h, &summary.types);
    let layer = |layer, tensors, bytes, elements, types: &[(GgmlType, u64)]| LayerFigures {
        layer,
        tensors,
        bytes,
        elements,
        types: types.to_vec(),
    };
    assert_eq!(
        got,
        [
            layer(Some(0), 2, 48, 20, &[(T::F32, 16), (T::F16, 32)]),
            layer(Some(1), 1, 32, 8, &[(T::F32, 32)]),
            layer(Some(10), 1, 36, 64, &[(T::Q4_0, 36)]),
            layer(None, 1, 32, 8, &[(T::F32, 32)]),
        ]
    );
    assert_eq!(got[0].bits_per_weight(), Some(8.0 * 48.0 / 20.0));
    assert_eq!(got[2].bits_per_weight(), Some(4.5));
}

#[test]
fn the_report_carries_the_layout_and_bits_per_weight() {
    let file = llama()
        .tensor("blk.0.a", &[8], T::F32)
        .tensor_at("blk.0.b", &[16], T::F16, 40)
        .tensor("output.weight", &[64], T::Q4_0)
        .with_tensor_data()
        .build();
    let h = parse(&file).unwrap();
    let d = h.data_offset;
    let report = serde_json::to_value(Report::new(&h)).unwrap();
    let bits: Vec<&Json> = report["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["bits_per_weight"])
        .collect();
    assert_eq!(bits, [&json!(32.0), &json!(16.0), &json!(4.5)]);
    let mut regions = vec![json!({"kind": "header", "start": 0, "end": h.header_len})];
    if d > h.header_len {
        regions.push(json!({"kind": "padding", "start": h.header_len, "end": d}));
    }
    regions.extend([
        json!({"kind": "gap", "start": d + 32, "end": d + 40}),
        json!({"kind": "padding", "start": d + 72, "end": d + 96}),
    ]);
    assert_eq!(
        report["layout"]["files"],
        json!([{
            "shard": null,
            "file_size": file.len(),
            "header_size": h.header_len,
            "data_offset": d,
            "data_end": d + 96 + 36,
            "regions": regions,
        }])
    );
    assert_eq!(
        report["layout"]["layers"],
        json!([
            {"layer": 0, "tensors": 2, "bytes": 64, "elements": 24, "bits_per_weight": 8.0 * 64.0 / 24.0,
             "types": [{"type": "F16", "bytes": 32}, {"type": "F32", "bytes": 32}]},
            {"layer": null, "tensors": 1, "bytes": 36, "elements": 64, "bits_per_weight": 4.5,
             "types": [{"type": "Q4_0", "bytes": 36}]},
        ])
    );
    // The gap finding is at the gap region's bytes.
    let gap = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "tensor-data-gap")
        .unwrap();
    assert_eq!((&gap["offset"], &gap["end"]), (&json!(d + 32), &json!(d + 40)));
}

#[test]
fn a_split_models_report_has_one_layout_per_shard() {
    let shard = |no: u16, tensors: &[&str]| {
        let mut b = GgufBuilder::new();
        if no == 0 {
            b = b.kv("general.architecture", "llama");
        }
        b = b
            .kv("split.no", no)
            .kv("split.count", 2u16)
            .kv("split.tensors.count", 3i32);
        for t in tensors {
            b = b.tensor(t, &[3], T::F32);
        }
        parse(&b.with_tensor_data().build()).unwrap()
    };
    let (one, two) = (shard(0, &["blk.0.a", "blk.0.b"]), shard(1, &["blk.1.a"]));
    let model = SplitModel::new(vec![
        ("m-00001-of-00002.gguf".into(), one.clone()),
        ("m-00002-of-00002.gguf".into(), two.clone()),
    ]);
    let report = serde_json::to_value(Report::of_model(&model, ReportOptions::default())).unwrap();
    let files = report["layout"]["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    for (file, (n, h)) in files.iter().zip([(1, &one), (2, &two)]) {
        assert_eq!(file["shard"], n);
        assert_eq!(file["header_size"], h.header_len);
        assert_eq!(file["data_offset"], h.data_offset);
        let layout = FileLayout::of(h, h.file_len);
        assert_eq!(file["regions"].as_array().unwrap().len(), layout.regions.len());
        assert_eq!(file["data_end"], layout.data_end);
    }
    let layers: Vec<(&Json, &Json)> = report["layout"]["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (&l["layer"], &l["tensors"]))
        .collect();
    assert_eq!(layers, [(&json!(0), &json!(2)), (&json!(1), &json!(1))]);
}

#[test]
fn the_layout_of_many_tensors_stays_small_in_the_report() {
    // 20,000 one-value tensors: a padding region after each (4 bytes of data padded to 32). The
    // regions are far smaller than the tensors' own entries.
    let mut b = llama();
    for i in 0..20_000 {
        b = b.tensor(format!("t.{i}"), &[1], T::F32);
    }
    let h = parse(&b.with_tensor_data().build()).unwrap();
    let report = serde_json::to_value(Report::new(&h)).unwrap();
    let size = |v: &Json| serde_json::to_string(v).unwrap().len();
    let (layout, tensors) = (size(&report["layout"]), size(&report["tensors"]));
    assert_eq!(
        report["layout"]["files"][0]["regions"].as_array().unwrap().len(),
        head(&h).len() + 19_999,
        "one padding region between each two tensors; the file ends with the last"
    );
    assert!(layout * 3 < tensors, "layout {layout} bytes, tensors {tensors}");
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// A tensor: its element count (F32, or a type of unknown size when 0 is drawn as `None`), and
    /// its data offset when explicit.
    fn tensors() -> impl Strategy<Value = Vec<(Option<u64>, Option<u64>)>> {
        prop::collection::vec(
            (
                prop::option::weighted(0.95, 0u64..24),
                prop::option::of(0u64..400),
            ),
            0..8,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// For any tensors, offsets and cut: the regions are in order, apart, outside every
        /// tensor's data and inside the file (but the missing bytes, after it); the validator's
        /// gaps are the gap regions, and its truncation the missing region.
        #[test]
        fn regions_and_findings_agree(
            specs in tensors(),
            alignment in prop::sample::select(vec![1u32, 8, 32]),
            trailing in 0usize..80,
            cut in prop::option::of(0.0f64..1.0),
        ) {
            let mut b = llama().alignment(u64::from(alignment)).kv("general.alignment", alignment);
            for (i, (n, at)) in specs.iter().enumerate() {
                let (dims, ty) = match n {
                    Some(n) => ([*n], T::F32),
                    None => ([8], T(99)),
                };
                b = match at {
                    Some(at) => b.tensor_at(format!("t{i}"), &dims, ty, *at),
                    None => b.tensor(format!("t{i}"), &dims, ty),
                };
            }
            let file = b.with_tensor_data().trailing(&vec![0; trailing]).build();
            let header_len = parse(&file).unwrap().header_len as usize;
            let len = cut.map_or(file.len(), |c| header_len + ((file.len() - header_len) as f64 * c) as usize);
            let (h, layout) = layout_of(&file[..len]);
            let len = len as u64;

            let mut at = 0;
            for r in &layout.regions {
                prop_assert!(r.span.start >= at && r.span.start < r.span.end, "{:?}", layout.regions);
                at = r.span.end;
                if r.kind == Missing {
                    prop_assert_eq!(r.span.start, len);
                } else {
                    prop_assert!(r.span.end <= len);
                    for p in layout.placed.iter().filter(|p| !p.span.is_empty()) {
                        prop_assert!(r.span.end <= p.span.start || r.span.start >= p.span.end,
                            "{:?} in tensor {:?}", r, p);
                    }
                }
            }
            let gap_regions: Vec<(u64, u64)> = regions(&layout).into_iter().filter(|r| r.0 == Gap).map(|r| (r.1, r.2)).collect();
            let gap_findings: Vec<(u64, u64)> = spans(&h, FindingCode::TensorDataGap).into_iter().map(|s| (s.0, s.1.min(len))).collect();
            prop_assert_eq!(gap_regions, gap_findings.into_iter().filter(|g| g.0 < g.1).collect::<Vec<_>>());
            let missing = layout.missing();
            let truncation = spans(&h, FindingCode::TensorPastEndOfFile);
            match (&missing, truncation.first()) {
                (Some(m), Some(t)) => prop_assert_eq!((m.start, m.end), (t.0, t.1)),
                (None, None) => {}
                (Some(m), None) => prop_assert!(false, "missing bytes {:?} without a truncation finding", m),
                (None, Some(t)) => prop_assert!(false, "truncation {:?} without missing bytes", t),
            }
            prop_assert_eq!(missing.is_some(), layout.placed.iter().any(|p| p.span.end > len));
        }
    }
}
