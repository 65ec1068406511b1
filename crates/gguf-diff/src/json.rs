//! The JSON document of a comparison, as `ggufscope diff --json` writes it (docs/json.md's
//! "The diff document" documents it): one home for its shape, so the CLI and the page cannot
//! disagree.
//! Entries, values and tensor infos are written as `info --json` writes them.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use gguf_core::report::{Float, MetadataEntry, MetadataValue, ReportOptions, Tensor};
use gguf_core::split::SplitModel;
use gguf_core::text::lossy;
use gguf_core::{Entry, Value};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use crate::{Change, ErrorStats, Field, HeaderDiff, LineRun, Measured, layers, lines};

/// A comparison to write: A (the reference) and B by the names given for them, their diff, and
/// the measured values when they were compared (`--values`).
pub struct Document<'a> {
    /// What A was opened as (a path or URL).
    pub a_name: &'a str,
    /// What B was opened as.
    pub b_name: &'a str,
    /// A, a split model's shards as one.
    pub a: &'a SplitModel,
    /// B.
    pub b: &'a SplitModel,
    /// What differs between their headers.
    pub diff: &'a HeaderDiff,
    /// The tensor pairs whose values were compared, if they were.
    pub values: Option<&'a [Measured]>,
}

impl Document<'_> {
    /// The differences: the headers', and the value pairs that are not exactly equal.
    pub fn differences(&self) -> usize {
        self.diff.differences()
            + self
                .values
                .map_or(0, |m| m.iter().filter(|m| !m.stats.exact()).count())
    }
}

/// A string value's bytes (empty for any other value): what a line diff cuts into lines.
pub fn text_of(e: &Entry) -> &[u8] {
    match &e.value {
        Value::String(s) => s.as_bytes(),
        _ => &[],
    }
}

impl Serialize for Document<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let differences = self.differences();
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("a", self.a_name)?;
        m.serialize_entry("b", self.b_name)?;
        m.serialize_entry("same", &(differences == 0))?;
        m.serialize_entry("differences", &differences)?;
        let summary: Vec<Row<'_>> = self
            .diff
            .summary
            .iter()
            .map(|r| Row {
                field: r.field,
                a: Figure(&r.a),
                b: Figure(&r.b),
                differs: r.differs(),
            })
            .collect();
        m.serialize_entry("summary", &summary)?;
        m.serialize_entry("metadata", &Metadata(self))?;
        m.serialize_entry("tensors", &Tensors(self))?;
        if let Some(measured) = self.values {
            let values = ValuesJson {
                a: self.a,
                b: self.b,
                measured,
            };
            m.serialize_entry("values", &values.pairs())?;
            m.serialize_entry("layers", &values.layers())?;
        }
        m.end()
    }
}

/// The measured values alone, `{values, layers}`, as the document writes them with `--values`:
/// what the page asks for after measuring a few tensors, without writing the header diff again.
pub struct ValuesJson<'a> {
    /// A, whose tensor indexes the pairs' `a` are.
    pub a: &'a SplitModel,
    /// B, whose tensor indexes the pairs' `b` are.
    pub b: &'a SplitModel,
    /// The pairs measured, in the order to write them.
    pub measured: &'a [Measured],
}

impl ValuesJson<'_> {
    fn pairs(&self) -> Vec<Pair<'_>> {
        let (ha, hb) = (self.a.header(), self.b.header());
        self.measured
            .iter()
            .map(|p| Pair {
                name: lossy(ha.tensors[p.a].name.as_bytes()).into_owned(),
                layer: ha.tensors[p.a].layer(),
                type_a: ha.tensors[p.a].ty.to_string(),
                type_b: hb.tensors[p.b].ty.to_string(),
                stats: Stats(&p.stats),
            })
            .collect()
    }

    fn layers(&self) -> Vec<Layer> {
        layers(self.measured, self.a.header())
            .into_iter()
            .map(|(layer, tensors, stats)| Layer {
                layer,
                tensors,
                stats,
            })
            .collect()
    }
}

impl Serialize for ValuesJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("values", &self.pairs())?;
        m.serialize_entry("layers", &self.layers())?;
        m.end()
    }
}

/// A summary row: `{field, a, b, differs}`.
#[derive(Serialize)]
struct Row<'a> {
    field: &'a str,
    a: Figure<'a>,
    b: Figure<'a>,
    differs: bool,
}

/// A summary value: a count, a number (`Float`'s rule), a text, or `null`.
struct Figure<'a>(&'a Option<Field>);

impl Serialize for Figure<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            None => s.serialize_none(),
            Some(Field::Count(n)) => s.serialize_u64(*n),
            Some(Field::Number(x)) => Float(*x).serialize(s),
            Some(Field::Text(t)) => s.serialize_str(t),
        }
    }
}

/// `{added, removed, changed}` of the metadata.
struct Metadata<'a>(&'a Document<'a>);

impl Serialize for Metadata<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let d = self.0;
        let options = ReportOptions::default();
        let (ea, eb) = (d.a.header().metadata.entries(), d.b.header().metadata.entries());
        let added: Vec<MetadataEntry<'_>> = d
            .diff
            .metadata
            .added
            .iter()
            .map(|&j| MetadataEntry::new(&eb[j], &options))
            .collect();
        let removed: Vec<MetadataEntry<'_>> = d
            .diff
            .metadata
            .removed
            .iter()
            .map(|&i| MetadataEntry::new(&ea[i], &options))
            .collect();
        let changed: Vec<KeyChanged<'_>> = d
            .diff
            .metadata
            .changed
            .iter()
            .map(|c| KeyChanged {
                a: &ea[c.a],
                b: &eb[c.b],
                change: &c.change,
                options: &options,
            })
            .collect();
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("added", &added)?;
        m.serialize_entry("removed", &removed)?;
        m.serialize_entry("changed", &changed)?;
        m.end()
    }
}

/// `{key, a, b, change}`: one key whose type or value changed.
struct KeyChanged<'a> {
    a: &'a Entry,
    b: &'a Entry,
    change: &'a Change,
    options: &'a ReportOptions,
}

impl Serialize for KeyChanged<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("key", &lossy(self.a.key.as_bytes()))?;
        m.serialize_entry("a", &MetadataEntry::new(self.a, self.options))?;
        m.serialize_entry("b", &MetadataEntry::new(self.b, self.options))?;
        m.serialize_entry("change", &ChangeJson(self))?;
        m.end()
    }
}

/// `{kind: "type"}`, `{kind: "value"}`, `{kind: "array", len_a, len_b, differing, first}` or
/// `{kind: "lines", removed, added, cut, runs}`.
struct ChangeJson<'a>(&'a KeyChanged<'a>);

impl Serialize for ChangeJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let k = self.0;
        let mut m = s.serialize_map(None)?;
        match k.change {
            Change::Type => m.serialize_entry("kind", "type")?,
            Change::Value => m.serialize_entry("kind", "value")?,
            Change::Array(ac) => {
                m.serialize_entry("kind", "array")?;
                m.serialize_entry("len_a", &ac.len_a)?;
                m.serialize_entry("len_b", &ac.len_b)?;
                m.serialize_entry("differing", &ac.differing)?;
                let first = ac.first.as_ref().map(|f| First {
                    index: f.index,
                    a: f.a.as_ref().map(|v| MetadataValue::new(v, k.options)),
                    b: f.b.as_ref().map(|v| MetadataValue::new(v, k.options)),
                });
                m.serialize_entry("first", &first)?;
            }
            Change::Lines(l) => {
                m.serialize_entry("kind", "lines")?;
                m.serialize_entry("removed", &l.removed())?;
                m.serialize_entry("added", &l.added())?;
                m.serialize_entry("cut", &l.cut)?;
                let (la, lb) = (lines(text_of(k.a)), lines(text_of(k.b)));
                let text = |l: &[&[u8]]| -> Vec<String> { l.iter().map(|s| lossy(s).into_owned()).collect() };
                let runs: Vec<Run> = l
                    .runs
                    .iter()
                    .map(|r| match *r {
                        LineRun::Same { a, b, len } => Run {
                            op: "same",
                            a: Some(a),
                            b: Some(b),
                            len,
                            lines: None,
                        },
                        LineRun::Removed { a, len } => Run {
                            op: "removed",
                            a: Some(a),
                            b: None,
                            len,
                            lines: Some(text(&la[a..a + len])),
                        },
                        LineRun::Added { b, len } => Run {
                            op: "added",
                            a: None,
                            b: Some(b),
                            len,
                            lines: Some(text(&lb[b..b + len])),
                        },
                    })
                    .collect();
                m.serialize_entry("runs", &runs)?;
            }
        }
        m.end()
    }
}

/// An array's first differing element.
#[derive(Serialize)]
struct First<'a> {
    index: usize,
    a: Option<MetadataValue<'a>>,
    b: Option<MetadataValue<'a>>,
}

/// A run of a line diff: `{op: "same", a, b, len}`, `{op: "removed", a, len, lines}`,
/// `{op: "added", b, len, lines}`.
#[derive(Serialize)]
struct Run {
    op: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    a: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    b: Option<usize>,
    len: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    lines: Option<Vec<String>>,
}

/// `{added, removed, changed, same}` of the tensor infos.
struct Tensors<'a>(&'a Document<'a>);

impl Serialize for Tensors<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let d = self.0;
        let (ma, mb) = (d.a, d.b);
        let added: Vec<Info<'_>> = d.diff.tensors.added.iter().map(|&j| Info(mb, j)).collect();
        let removed: Vec<Info<'_>> = d.diff.tensors.removed.iter().map(|&i| Info(ma, i)).collect();
        let changed: Vec<TensorChanged<'_>> = d
            .diff
            .tensors
            .changed
            .iter()
            .map(|c| TensorChanged {
                name: lossy(ma.header().tensors[c.a].name.as_bytes()).into_owned(),
                a: Info(ma, c.a),
                b: Info(mb, c.b),
                what: [(c.ty, "type"), (c.shape, "shape"), (c.size, "size")]
                    .into_iter()
                    .filter_map(|(on, name)| on.then_some(name))
                    .collect(),
            })
            .collect();
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("added", &added)?;
        m.serialize_entry("removed", &removed)?;
        m.serialize_entry("changed", &changed)?;
        m.serialize_entry("same", &d.diff.tensors.same.len())?;
        m.end()
    }
}

/// Tensor `.1` of a model, as `info --json` writes it (with its shard's number in a split model).
struct Info<'a>(&'a SplitModel, usize);

impl Serialize for Info<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (model, i) = (self.0, self.1);
        let shard = model.shard_of(i);
        let file = shard.map_or(model.header(), |sh| &sh.header);
        let number = shard.filter(|_| model.is_split()).map(|sh| sh.number);
        Tensor::new(file, &model.header().tensors[i], number).serialize(s)
    }
}

/// `{name, a, b, what}`: a tensor whose type, shape or size changed.
#[derive(Serialize)]
struct TensorChanged<'a> {
    name: String,
    a: Info<'a>,
    b: Info<'a>,
    what: Vec<&'static str>,
}

/// The figures of one error: `{n, rmse, max_abs, cosine, snr_db, non_finite, non_finite_differ, exact}`.
struct Stats<'a>(&'a ErrorStats);

impl Stats<'_> {
    fn write<M: SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
        let e = self.0;
        let float = |v: Option<f64>| v.map(Float);
        m.serialize_entry("n", &e.n())?;
        m.serialize_entry("rmse", &float(e.rmse()))?;
        m.serialize_entry("max_abs", &float(e.max_abs()))?;
        m.serialize_entry("cosine", &float(e.cosine()))?;
        m.serialize_entry("snr_db", &float(e.snr_db()))?;
        m.serialize_entry("non_finite", &e.non_finite())?;
        m.serialize_entry("non_finite_differ", &e.non_finite_differ())?;
        m.serialize_entry("exact", &e.exact())
    }
}

/// One tensor pair's error: the figures, then `name`, `type_a`, `type_b`, `layer`.
struct Pair<'a> {
    name: String,
    layer: Option<u64>,
    type_a: String,
    type_b: String,
    stats: Stats<'a>,
}

impl Serialize for Pair<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        self.stats.write(&mut m)?;
        m.serialize_entry("name", &self.name)?;
        m.serialize_entry("type_a", &self.type_a)?;
        m.serialize_entry("type_b", &self.type_b)?;
        m.serialize_entry("layer", &self.layer)?;
        m.end()
    }
}

/// One layer's error: the figures, then `layer` and `tensors`.
struct Layer {
    layer: Option<u64>,
    tensors: usize,
    stats: ErrorStats,
}

impl Serialize for Layer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        Stats(&self.stats).write(&mut m)?;
        m.serialize_entry("layer", &self.layer)?;
        m.serialize_entry("tensors", &self.tensors)?;
        m.end()
    }
}
