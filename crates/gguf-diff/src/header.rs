//! Two headers compared: the summary side by side, the metadata by key, the tensor infos by name.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use gguf_core::{Array, Entry, Header, Summary, Value};

use crate::lines::{self, LineDiff};

/// Everything that differs between two headers, A and B, and what is the same.
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderDiff {
    /// The summary's figures side by side, in a fixed order.
    pub summary: Vec<SummaryRow>,
    /// Keys added, removed and changed.
    pub metadata: MetadataDiff,
    /// Tensor infos added, removed, changed and the same.
    pub tensors: TensorDiff,
}

impl HeaderDiff {
    /// How many things differ: summary rows, keys added, removed or changed, tensors added,
    /// removed or changed. 0 when the two headers say the same.
    pub fn differences(&self) -> usize {
        let m = &self.metadata;
        let t = &self.tensors;
        self.summary.iter().filter(|r| r.differs()).count()
            + m.added.len()
            + m.removed.len()
            + m.changed.len()
            + t.added.len()
            + t.removed.len()
            + t.changed.len()
    }
}

/// One figure of the summary, named as in the JSON report, in A and in B (`None`: not stated).
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRow {
    /// The report's field name: `"parameters"`, `"file_type"`, `"context_length"`, ….
    pub field: &'static str,
    /// A's value.
    pub a: Option<Field>,
    /// B's value.
    pub b: Option<Field>,
}

impl SummaryRow {
    /// Whether A and B differ here (floats compared bit for bit).
    pub fn differs(&self) -> bool {
        self.a != self.b
    }
}

/// A summary figure.
#[derive(Debug, Clone)]
pub enum Field {
    /// A count or size.
    Count(u64),
    /// A measure (bits per weight, RoPE base).
    Number(f64),
    /// A name (architecture, file type, attention kind).
    Text(String),
}

impl PartialEq for Field {
    fn eq(&self, other: &Field) -> bool {
        match (self, other) {
            (Field::Count(a), Field::Count(b)) => a == b,
            (Field::Number(a), Field::Number(b)) => a.to_bits() == b.to_bits(),
            (Field::Text(a), Field::Text(b)) => a == b,
            _ => false,
        }
    }
}

/// Metadata compared by key. A key stored twice is paired occurrence by occurrence (A's second
/// with B's second), so duplicates are compared too. Indices are into `Header::metadata.entries()`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MetadataDiff {
    /// Entries of B whose key A lacks, in B's order.
    pub added: Vec<usize>,
    /// Entries of A whose key B lacks, in A's order.
    pub removed: Vec<usize>,
    /// Keys in both whose type or value differs, in A's order.
    pub changed: Vec<KeyChange>,
}

/// A key whose value changed.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyChange {
    /// The entry's index in A.
    pub a: usize,
    /// The entry's index in B.
    pub b: usize,
    /// What changed.
    pub change: Change,
}

/// How a value changed.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// Another type (an array's element type included).
    Type,
    /// Another value of the same type.
    Value,
    /// A string of several lines (a chat template): its line diff.
    Lines(LineDiff),
    /// An array of the same element type with other elements or another length.
    Array(ArrayChange),
}

/// How two arrays of one element type differ.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayChange {
    /// A's length.
    pub len_a: usize,
    /// B's length.
    pub len_b: usize,
    /// Elements that differ among the first `min(len_a, len_b)` (the rest are told by the
    /// lengths).
    pub differing: usize,
    /// The first index where they differ (or where the shorter ends), with both elements.
    pub first: Option<FirstDifference>,
}

/// The first element where two arrays differ; `None` past the end of the shorter.
#[derive(Debug, Clone, PartialEq)]
pub struct FirstDifference {
    /// The index.
    pub index: usize,
    /// A's element.
    pub a: Option<Value>,
    /// B's element.
    pub b: Option<Value>,
}

/// Tensor infos compared by name (duplicates occurrence by occurrence, as keys). Indices are
/// into `Header::tensors`. Offsets are not compared: they move whenever another tensor's size does.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TensorDiff {
    /// Tensors of B that A lacks, in B's order.
    pub added: Vec<usize>,
    /// Tensors of A that B lacks, in A's order.
    pub removed: Vec<usize>,
    /// Tensors in both with another type, shape or size, in A's order.
    pub changed: Vec<TensorChange>,
    /// Tensors in both with the same type and shape, as `(a, b)`, in A's order.
    pub same: Vec<(usize, usize)>,
}

impl TensorDiff {
    /// The pairs `(a, b)` of tensors in both with the same shape, whatever their types: those whose
    /// values can be compared, in A's order.
    pub fn same_shape(&self) -> Vec<(usize, usize)> {
        let changed = self.changed.iter().filter(|c| !c.shape).map(|c| (c.a, c.b));
        let mut pairs: Vec<(usize, usize)> = self.same.iter().copied().chain(changed).collect();
        pairs.sort_unstable();
        pairs
    }
}

/// A tensor in both files whose info differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TensorChange {
    /// Its index in A.
    pub a: usize,
    /// Its index in B.
    pub b: usize,
    /// The ggml type differs.
    pub ty: bool,
    /// The dimensions differ.
    pub shape: bool,
    /// The byte size differs (or is known on one side only).
    pub size: bool,
}

/// Compares A and B (A is the reference: "added" means in B, not in A).
pub fn diff(a: &Header, b: &Header) -> HeaderDiff {
    HeaderDiff {
        summary: summary_rows(a, b),
        metadata: metadata(a, b),
        tensors: tensors(a, b),
    }
}

fn summary_rows(a: &Header, b: &Header) -> Vec<SummaryRow> {
    let (sa, sb) = (a.summary(), b.summary());
    let fields = |h: &Header, s: &Summary| -> Vec<(&'static str, Option<Field>)> {
        let count = |v: Option<u64>| v.map(Field::Count);
        let text = |v: &Option<String>| v.clone().map(Field::Text);
        let at = &s.attention;
        let e = s.experts.as_ref();
        Vec::from([
            ("architecture", text(&s.architecture)),
            ("name", text(&s.name)),
            ("file_type", s.file_type.map(|f| Field::Text(f.to_string()))),
            ("parameters", count(s.parameters)),
            ("active_parameters", count(s.active_parameters)),
            ("tensor_bytes", Some(Field::Count(s.tensor_bytes))),
            ("bits_per_weight", s.bits_per_weight.map(Field::Number)),
            ("attention", Some(Field::Text(at.kind.name().to_string()))),
            ("heads", count(at.heads)),
            ("kv_heads", count(at.kv_heads)),
            ("key_length", count(at.key_length)),
            ("value_length", count(at.value_length)),
            ("sliding_window", count(at.sliding_window)),
            ("experts", count(e.map(|e| e.count))),
            ("experts_used", count(e.and_then(|e| e.used))),
            ("context_length", count(s.context_length)),
            ("block_count", count(s.block_count)),
            ("embedding_length", count(s.embedding_length)),
            ("feed_forward_length", count(s.feed_forward_length)),
            ("vocab_size", count(s.vocab_size)),
            ("tokenizer_model", text(&s.tokenizer_model)),
            ("tokenizer_pre", text(&s.tokenizer_pre)),
            ("rope_freq_base", s.rope.freq_base.map(Field::Number)),
            ("version", Some(Field::Count(h.version.into()))),
            ("tensor_count", Some(Field::Count(h.tensors.len() as u64))),
            ("kv_count", Some(Field::Count(h.metadata.len() as u64))),
            ("header_size", Some(Field::Count(h.header_len))),
            ("data_offset", Some(Field::Count(h.data_offset))),
            ("file_size", count(h.file_len)),
        ])
    };
    fields(a, &sa)
        .into_iter()
        .zip(fields(b, &sb))
        .map(|((field, a), (_, b))| SummaryRow { field, a, b })
        .collect()
}

/// Items keyed by name and occurrence, sorted by them: the n-th item named k in one file pairs
/// with the n-th in the other. `(name, occurrence, index)`.
fn occurrences<'a>(names: impl Iterator<Item = &'a [u8]>) -> Vec<(&'a [u8], usize, usize)> {
    let mut keyed: Vec<(&[u8], usize, usize)> = names.enumerate().map(|(i, n)| (n, 0, i)).collect();
    // By name, then file order: an equal name's occurrences are then numbered in order.
    keyed.sort_unstable_by(|x, y| x.0.cmp(y.0).then(x.2.cmp(&y.2)));
    for k in 1..keyed.len() {
        if keyed[k].0 == keyed[k - 1].0 {
            keyed[k].1 = keyed[k - 1].1 + 1;
        }
    }
    keyed
}

/// Pairs the items of A and B by name and occurrence: `(pairs in A's order, only in A, only in B)`.
/// Both sides sorted once, then merged: linear after the sort, whatever the names.
fn pair<'a>(
    a: impl Iterator<Item = &'a [u8]>,
    b: impl Iterator<Item = &'a [u8]>,
) -> (Vec<(usize, usize)>, Vec<usize>, Vec<usize>) {
    let (a, b) = (occurrences(a), occurrences(b));
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    let (mut x, mut y) = (0, 0);
    while x < a.len() && y < b.len() {
        let (ka, kb) = ((a[x].0, a[x].1), (b[y].0, b[y].1));
        match ka.cmp(&kb) {
            core::cmp::Ordering::Less => {
                only_a.push(a[x].2);
                x += 1;
            }
            core::cmp::Ordering::Greater => {
                only_b.push(b[y].2);
                y += 1;
            }
            core::cmp::Ordering::Equal => {
                pairs.push((a[x].2, b[y].2));
                x += 1;
                y += 1;
            }
        }
    }
    only_a.extend(a[x..].iter().map(|k| k.2));
    only_b.extend(b[y..].iter().map(|k| k.2));
    pairs.sort_unstable();
    only_a.sort_unstable();
    only_b.sort_unstable();
    (pairs, only_a, only_b)
}

fn metadata(a: &Header, b: &Header) -> MetadataDiff {
    let (ea, eb) = (a.metadata.entries(), b.metadata.entries());
    let (pairs, removed, added) = pair(
        ea.iter().map(|e| e.key.as_bytes()),
        eb.iter().map(|e| e.key.as_bytes()),
    );
    let changed = pairs
        .into_iter()
        .filter_map(|(i, j)| {
            let change = change(&ea[i], &eb[j])?;
            Some(KeyChange { a: i, b: j, change })
        })
        .collect();
    MetadataDiff {
        added,
        removed,
        changed,
    }
}

/// How B's entry differs from A's, `None` when it does not.
fn change(a: &Entry, b: &Entry) -> Option<Change> {
    match (&a.value, &b.value) {
        (x, y) if x.ty() != y.ty() => Some(Change::Type),
        (Value::Array(x), Value::Array(y)) if x.elem_type() != y.elem_type() => Some(Change::Type),
        (Value::Array(x), Value::Array(y)) => array_change(x, y).map(Change::Array),
        (Value::String(x), Value::String(y)) if x != y => {
            let multiline = x.as_bytes().contains(&b'\n') || y.as_bytes().contains(&b'\n');
            Some(match multiline {
                true => Change::Lines(lines::diff(x.as_bytes(), y.as_bytes())),
                false => Change::Value,
            })
        }
        (x, y) => (!same_value(x, y)).then_some(Change::Value),
    }
}

/// Values equal bit for bit: NaN equals the same NaN, 0.0 differs from -0.0.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits(),
        (Value::F64(x), Value::F64(y)) => x.to_bits() == y.to_bits(),
        (Value::Array(x), Value::Array(y)) => same_array(x, y),
        _ => a == b,
    }
}

fn same_array(a: &Array, b: &Array) -> bool {
    a.elem_type() == b.elem_type() && a.len() == b.len() && (0..a.len()).all(|i| same_at(a, b, i))
}

/// Whether element `i` (below both lengths) is the same, without copying strings or arrays.
fn same_at(a: &Array, b: &Array, i: usize) -> bool {
    match (a, b) {
        (Array::F32(x), Array::F32(y)) => x[i].to_bits() == y[i].to_bits(),
        (Array::F64(x), Array::F64(y)) => x[i].to_bits() == y[i].to_bits(),
        (Array::String(x), Array::String(y)) => x.get(i) == y.get(i),
        (Array::Array(x), Array::Array(y)) => same_array(&x[i], &y[i]),
        _ => a.get(i) == b.get(i),
    }
}

/// Two arrays of one element type: `None` when equal.
fn array_change(a: &Array, b: &Array) -> Option<ArrayChange> {
    let common = a.len().min(b.len());
    let mut differing = 0;
    let mut first = None;
    for i in 0..common {
        if !same_at(a, b, i) {
            differing += 1;
            first.get_or_insert(i);
        }
    }
    if first.is_none() && a.len() != b.len() {
        first = Some(common);
    }
    let index = first?;
    Some(ArrayChange {
        len_a: a.len(),
        len_b: b.len(),
        differing,
        first: Some(FirstDifference {
            index,
            a: a.get(index),
            b: b.get(index),
        }),
    })
}

fn tensors(a: &Header, b: &Header) -> TensorDiff {
    let (pairs, removed, added) = pair(
        a.tensors.iter().map(|t| t.name.as_bytes()),
        b.tensors.iter().map(|t| t.name.as_bytes()),
    );
    let mut diff = TensorDiff {
        added,
        removed,
        ..TensorDiff::default()
    };
    for (i, j) in pairs {
        let (x, y) = (&a.tensors[i], &b.tensors[j]);
        let change = TensorChange {
            a: i,
            b: j,
            ty: x.ty != y.ty,
            shape: x.dims != y.dims,
            size: x.n_bytes() != y.n_bytes(),
        };
        match change.ty || change.shape || change.size {
            true => diff.changed.push(change),
            false => diff.same.push((i, j)),
        }
    }
    diff
}
