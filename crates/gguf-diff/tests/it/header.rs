//! Header diffs: a file against itself, builder-made pairs that differ in exactly one thing, two
//! real vocabularies against gguf-py's key lists, and line diffs (bounded on hostile templates).

use std::collections::BTreeSet;

use gguf_core::testkit::{GgufBuilder, strings};
use gguf_core::{Array, GgmlType, Header, Value, parse};
use gguf_diff::{ArrayChange, Change, FirstDifference, LineDiff, LineRun, TensorChange, diff};
use gguf_test_support::{fixture, fixtures};

/// A small model; `edit` changes the builder before the tensors are added.
fn model(context: u32, token_types: &[i32], tensors: &[(&str, &[u64], GgmlType)]) -> Header {
    let mut b = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("llama.context_length", context)
        .kv("tokenizer.ggml.tokens", strings(&["<s>", "</s>", "a", "b"]))
        .kv("tokenizer.ggml.token_type", Array::I32(token_types.to_vec()));
    for (name, dims, ty) in tensors {
        b = b.tensor(name, dims, *ty);
    }
    parse(&b.with_tensor_data().build()).unwrap()
}

const TENSORS: &[(&str, &[u64], GgmlType)] = &[
    ("token_embd.weight", &[64, 4], GgmlType::F32),
    ("blk.0.attn_q.weight", &[64, 64], GgmlType::Q8_0),
];

fn base() -> Header {
    model(4096, &[3, 3, 1, 1], TENSORS)
}

#[test]
fn a_file_against_itself_is_the_same() {
    let h = base();
    let d = diff(&h, &h);
    assert_eq!(d.differences(), 0);
    assert_eq!(d.tensors.same, [(0, 0), (1, 1)]);
    for name in std::fs::read_dir(fixtures().join("real")).unwrap() {
        let path = name.unwrap().path();
        let h = gguf_test_support::read_header(&path).0.unwrap();
        assert_eq!(diff(&h, &h).differences(), 0, "{}", path.display());
    }
}

#[test]
fn one_key_changed() {
    let (a, b) = (base(), model(8192, &[3, 3, 1, 1], TENSORS));
    let d = diff(&a, &b);
    assert!(d.metadata.added.is_empty() && d.metadata.removed.is_empty());
    assert_eq!(d.metadata.changed.len(), 1);
    let c = &d.metadata.changed[0];
    assert_eq!(a.metadata.entries()[c.a].key, *"llama.context_length");
    assert_eq!(c.change, Change::Value);
    let rows: Vec<&str> = d
        .summary
        .iter()
        .filter(|r| r.differs())
        .map(|r| r.field)
        .collect();
    assert_eq!(rows, ["context_length"]);
    assert_eq!(d.differences(), 2);
    assert_eq!(d.tensors.same.len(), 2);
}

#[test]
fn one_array_element_changed() {
    let (a, b) = (base(), model(4096, &[3, 3, 1, 6], TENSORS));
    let d = diff(&a, &b);
    assert_eq!(d.differences(), 1);
    let c = &d.metadata.changed[0];
    assert_eq!(a.metadata.entries()[c.a].key, *"tokenizer.ggml.token_type");
    assert_eq!(
        c.change,
        Change::Array(ArrayChange {
            len_a: 4,
            len_b: 4,
            differing: 1,
            first: Some(FirstDifference {
                index: 3,
                a: Some(Value::I32(1)),
                b: Some(Value::I32(6)),
            }),
        })
    );
    // A longer array: the lengths, nothing differing in the common part, the first index past it.
    let longer = model(4096, &[3, 3, 1, 1, 1], TENSORS);
    let Change::Array(c) = &diff(&a, &longer).metadata.changed[0].change else {
        panic!("an array change");
    };
    assert_eq!((c.len_a, c.len_b, c.differing), (4, 5, 0));
    assert_eq!(c.first.as_ref().map(|f| (f.index, f.a.clone())), Some((4, None)));
}

#[test]
fn one_tensor_type_and_one_shape_changed() {
    let retyped = model(
        4096,
        &[3, 3, 1, 1],
        &[TENSORS[0], ("blk.0.attn_q.weight", &[64, 64], GgmlType::Q4_0)],
    );
    let d = diff(&base(), &retyped);
    assert!(d.metadata.changed.is_empty() && d.tensors.added.is_empty() && d.tensors.removed.is_empty());
    assert_eq!(
        d.tensors.changed,
        [TensorChange {
            a: 1,
            b: 1,
            ty: true,
            shape: false,
            size: true
        }]
    );
    assert_eq!(d.tensors.same, [(0, 0)]);
    assert_eq!(d.tensors.same_shape(), [(0, 0), (1, 1)]);

    let reshaped = model(
        4096,
        &[3, 3, 1, 1],
        &[("token_embd.weight", &[64, 5], GgmlType::F32), TENSORS[1]],
    );
    let d = diff(&base(), &reshaped);
    assert_eq!(
        d.tensors.changed,
        [TensorChange {
            a: 0,
            b: 0,
            ty: false,
            shape: true,
            size: true
        }]
    );
    assert_eq!(d.tensors.same_shape(), [(1, 1)]);
}

#[test]
fn keys_and_tensors_added_and_removed_and_a_type_change() {
    let a = parse(
        &GgufBuilder::new()
            .kv("general.architecture", "llama")
            .kv("x.gone", 1u32)
            .kv("x.type", 1u32)
            .tensor("old", &[32], GgmlType::F32)
            .build(),
    )
    .unwrap();
    let b = parse(
        &GgufBuilder::new()
            .kv("general.architecture", "llama")
            .kv("x.type", 1u64)
            .kv("x.new", "hello")
            .tensor("new", &[32], GgmlType::F32)
            .build(),
    )
    .unwrap();
    let d = diff(&a, &b);
    assert_eq!(
        (d.metadata.removed.as_slice(), d.metadata.added.as_slice()),
        (&[1][..], &[2][..])
    );
    assert_eq!(d.metadata.changed[0].change, Change::Type);
    assert_eq!(
        (d.tensors.removed.as_slice(), d.tensors.added.as_slice()),
        (&[0][..], &[0][..])
    );
}

/// Keys gguf-py lists for a fixture (`ref/NAME.dump.json`, without its `GGUF.*` pseudo-keys).
fn gguf_py_keys(name: &str) -> BTreeSet<String> {
    let dump: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture(&format!("ref/{name}.dump.json"))).unwrap()).unwrap();
    dump["metadata"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| !k.starts_with("GGUF."))
        .cloned()
        .collect()
}

#[test]
fn two_real_vocabularies_give_gguf_pys_key_sets() {
    for (x, y) in [
        ("ggml-vocab-llama-spm.gguf", "ggml-vocab-phi-3.gguf"),
        ("ggml-vocab-llama-bpe.gguf", "ggml-vocab-qwen2.gguf"),
        ("ggml-vocab-gpt-2.gguf", "ggml-vocab-command-r.gguf"),
    ] {
        let a = gguf_test_support::read_header(&fixture(&format!("real/{x}")))
            .0
            .unwrap();
        let b = gguf_test_support::read_header(&fixture(&format!("real/{y}")))
            .0
            .unwrap();
        let d = diff(&a, &b);
        let keys = |h: &Header, idx: &[usize]| -> BTreeSet<String> {
            idx.iter()
                .map(|&i| h.metadata.entries()[i].key.to_string())
                .collect()
        };
        let (ka, kb) = (gguf_py_keys(x), gguf_py_keys(y));
        assert_eq!(keys(&b, &d.metadata.added), &kb - &ka, "{x} → {y}: added");
        assert_eq!(keys(&a, &d.metadata.removed), &ka - &kb, "{x} → {y}: removed");
        let changed: BTreeSet<String> = d
            .metadata
            .changed
            .iter()
            .map(|c| a.metadata.entries()[c.a].key.to_string())
            .collect();
        assert!(changed.is_subset(&(&ka & &kb)));
        assert!(changed.contains("tokenizer.ggml.tokens"), "{x} → {y}");
        assert!(
            changed.contains("general.architecture")
                || a.metadata.architecture() == b.metadata.architecture()
        );
    }
}

/// B rebuilt from A's lines and the diff's runs: the runs must account for every line.
fn apply(a: &[u8], b: &[u8], d: &LineDiff) -> Vec<Vec<u8>> {
    let (la, lb) = (gguf_diff::lines(a), gguf_diff::lines(b));
    let (mut next_a, mut next_b) = (0, 0);
    let mut out = Vec::new();
    for run in &d.runs {
        match *run {
            LineRun::Same { a, b, len } => {
                assert_eq!((a, b), (next_a, next_b));
                assert_eq!(la[a..a + len], lb[b..b + len]);
                out.extend(la[a..a + len].iter().map(|l| l.to_vec()));
                (next_a, next_b) = (a + len, b + len);
            }
            LineRun::Removed { a, len } => {
                assert_eq!(a, next_a);
                next_a += len;
            }
            LineRun::Added { b, len } => {
                assert_eq!(b, next_b);
                out.extend(lb[b..b + len].iter().map(|l| l.to_vec()));
                next_b += len;
            }
        }
    }
    assert_eq!((next_a, next_b), (la.len(), lb.len()));
    out
}

fn template_diff(a: &[u8], b: &[u8]) -> LineDiff {
    let key = "tokenizer.chat_template";
    let ha = parse(
        &GgufBuilder::new()
            .kv(key, std::str::from_utf8(a).unwrap())
            .build(),
    )
    .unwrap();
    let hb = parse(
        &GgufBuilder::new()
            .kv(key, std::str::from_utf8(b).unwrap())
            .build(),
    )
    .unwrap();
    let d = diff(&ha, &hb);
    match &d.metadata.changed[0].change {
        Change::Lines(l) => {
            let rebuilt = apply(a, b, l);
            assert_eq!(
                rebuilt,
                gguf_diff::lines(b).iter().map(|l| l.to_vec()).collect::<Vec<_>>()
            );
            l.clone()
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_chat_template_change_is_a_shortest_line_diff() {
    let a = b"{% for m in messages %}\n{{ m.role }}\n{{ m.content }}\n{% endfor %}\n";
    let b = b"{% for m in messages %}\n<|{{ m.role }}|>\n{{ m.content }}\n{% endfor %}\n{% if add_generation_prompt %}\n";
    let l = template_diff(a, b);
    assert!(!l.cut);
    assert_eq!((l.removed(), l.added()), (1, 2));
    // Interleaved edits in the middle, found exactly.
    let a: String = (0..200).map(|i| format!("line {i}\n")).collect();
    let b: String = (0..200)
        .map(|i| match i % 17 {
            0 => format!("changed {i}\n"),
            _ => format!("line {i}\n"),
        })
        .collect();
    let l = template_diff(a.as_bytes(), b.as_bytes());
    assert_eq!((l.removed(), l.added(), l.cut), (12, 12, false));
}

#[test]
fn hostile_templates_are_cut_not_quadratic() {
    // 2 MB each, every line different: far past the edit bound.
    let a = "a\n".repeat(1 << 20);
    let b = "b\n".repeat(1 << 20);
    let l = template_diff(a.as_bytes(), b.as_bytes());
    assert!(l.cut);
    assert_eq!((l.removed(), l.added()), (1 << 20, 1 << 20));
    // The same line a million times, with lines inserted: long snakes on every diagonal. Under
    // the edit bound the shortest diff is found (or the work bound cuts it); over it, cut.
    let a = "x\n".repeat(1 << 20);
    for every in [2000, 500] {
        let b: String = (0..1 << 20)
            .map(|i| if i % every == 0 { "y\nx\n" } else { "x\n" })
            .collect();
        let l = template_diff(a.as_bytes(), b.as_bytes());
        let inserted = (1usize << 20).div_ceil(every);
        assert_eq!(
            l.cut,
            inserted > gguf_diff::MAX_EDITS,
            "{inserted} lines inserted"
        );
        if !l.cut {
            assert_eq!((l.removed(), l.added()), (0, inserted));
        }
    }
}
