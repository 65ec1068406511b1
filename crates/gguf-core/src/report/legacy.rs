//! The hand-written serialization the derived report replaced, kept until a test has shown
//! the two equal on every fixture.
//!
//! The JSON report: one document with the header's figures, the summary, the metadata and the
//! tensors, and the validator's findings. The CLI prints it (`ggufscope info --json`) and the wasm bindings hand it to the page,
//! so field names are one contract for scripts, the browser's `data-field` hooks and the tests.
//!
//! Integers are exact (u64, never floats); floats that JSON cannot hold are the strings `"nan"`,
//! `"inf"` and `"-inf"`; strings that are not UTF-8 are shown escaped and marked `invalid_utf8`.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::header::{Array, Entry, Header, TensorInfo, Value};
use crate::keys;
use crate::layout::{FileLayout, LayerFigures, layers};
use crate::memory::{CacheKind, KvGroup, MemoryEstimate};
use crate::split::{ShardFinding, ShardOmitted, SplitModel};
use crate::stats::{Histogram, Stats};
use crate::summary::{Attention, Experts, Summary, TypeShare};
use crate::text::{lossy, lossy_excerpt};
use crate::validate::{Finding, Omitted, Subject, Validation, validate};

mod tokenizer;
pub use tokenizer::{PiecesJson, TokenJson, TokenPage, TokenizerReport};

pub use super::ReportOptions;

/// A header with its summary and findings, ready to serialize.
#[derive(Debug, Clone)]
pub struct Report<'a> {
    header: &'a Header,
    summary: Summary,
    findings: Validation,
    options: ReportOptions,
    memory: Option<MemoryEstimate>,
    split: Option<&'a SplitModel>,
}

impl<'a> Report<'a> {
    /// A report with default options.
    pub fn new(header: &'a Header) -> Report<'a> {
        Report::with_options(header, ReportOptions::default())
    }

    /// A report with the given options.
    pub fn with_options(header: &'a Header, options: ReportOptions) -> Report<'a> {
        Report {
            header,
            summary: header.summary(),
            findings: validate(header, header.file_len),
            options,
            memory: None,
            split: None,
        }
    }

    /// The report of a model read from several files, or one: for a split model, the figures of
    /// the whole (parameters, tensors and bytes summed, `file_size` and `header_size` summed over
    /// the shards, metadata and the rest from the first shard), each tensor with its `shard`,
    /// every shard's findings with theirs, and a `split` section; for one ordinary file, exactly
    /// that file's report.
    pub fn of_model(model: &'a SplitModel, options: ReportOptions) -> Report<'a> {
        let mut report = Report::with_options(model.header(), options);
        if model.is_split() {
            report.findings = Validation::default(); // the model's findings, shard by shard, take their place
            report.split = Some(model);
        }
        report
    }

    /// Adds a memory estimate, reported as `memory` (`ggufscope info --ctx/--kv-type/--parallel`).
    pub fn with_memory(mut self, memory: MemoryEstimate) -> Report<'a> {
        self.memory = Some(memory);
        self
    }

    /// The summary the report was made from.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// The validator's findings, against the file length the header was read with.
    pub fn findings(&self) -> &[Finding] {
        &self.findings.findings
    }
}

/// A float, or its name when JSON cannot hold it (`"nan"`, `"inf"`, `"-inf"`): the rule of every
/// JSON document the project writes.
pub struct Float(pub f64);

impl Serialize for Float {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            v if v.is_nan() => s.serialize_str("nan"),
            v if v == f64::INFINITY => s.serialize_str("inf"),
            v if v == f64::NEG_INFINITY => s.serialize_str("-inf"),
            v => s.serialize_f64(v),
        }
    }
}

fn text(bytes: &[u8]) -> String {
    lossy(bytes).into_owned()
}

impl Serialize for Report<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (h, sm) = (self.header, &self.summary);
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("version", &h.version)?;
        m.serialize_entry("endianness", h.endian.name())?;
        m.serialize_entry("tensor_count", &(h.tensors.len() as u64))?;
        m.serialize_entry("kv_count", &(h.metadata.len() as u64))?;
        m.serialize_entry("alignment", &h.alignment)?;
        m.serialize_entry("header_size", &h.header_len)?;
        m.serialize_entry("data_offset", &h.data_offset)?;
        m.serialize_entry("file_size", &h.file_len)?;
        m.serialize_entry("architecture", &sm.architecture)?;
        m.serialize_entry("name", &sm.name)?;
        m.serialize_entry("size_label", &sm.size_label)?;
        m.serialize_entry("file_type", &sm.file_type.map(FileTypeJson))?;
        m.serialize_entry("parameters", &sm.parameters)?;
        m.serialize_entry("active_parameters", &sm.active_parameters)?;
        m.serialize_entry("tensor_bytes", &sm.tensor_bytes)?;
        m.serialize_entry("bits_per_weight", &sm.bits_per_weight)?;
        m.serialize_entry("vocab_size", &sm.vocab_size)?;
        m.serialize_entry("context_length", &sm.context_length)?;
        m.serialize_entry("block_count", &sm.block_count)?;
        m.serialize_entry("embedding_length", &sm.embedding_length)?;
        m.serialize_entry("feed_forward_length", &sm.feed_forward_length)?;
        m.serialize_entry("tokenizer_model", &sm.tokenizer_model)?;
        m.serialize_entry("tokenizer_pre", &sm.tokenizer_pre)?;
        m.serialize_entry("attention", &AttentionJson(&sm.attention))?;
        m.serialize_entry("experts", &sm.experts.as_ref().map(ExpertsJson))?;
        m.serialize_entry("rope", &RopeJson(sm))?;
        m.serialize_entry("tensor_types", &TensorTypes(&sm.types))?;
        m.serialize_entry("type_mix", &TypeMix(&sm.types))?;
        m.serialize_entry("metadata", &MetadataJson(h.metadata.entries(), &self.options))?;
        m.serialize_entry("tensors", &TensorsJson(h, self.split))?;
        m.serialize_entry("layout", &LayoutJson(h, sm, self.split))?;
        match self.split {
            Some(model) => {
                m.serialize_entry("findings", &ShardFindingsJson(model))?;
                m.serialize_entry("findings_omitted", &ShardOmittedJson(model.omitted()))?;
                m.serialize_entry("split", &SplitJson(model))?;
            }
            None => {
                m.serialize_entry("findings", &Findings::new(h, &self.findings.findings))?;
                m.serialize_entry("findings_omitted", &FindingsOmitted(&self.findings.omitted))?;
            }
        }
        if let Some(memory) = &self.memory {
            m.serialize_entry("memory", &LegacyMemory(memory))?;
        }
        m.end()
    }
}

struct FileTypeJson(crate::types::FileType);

impl Serialize for FileTypeJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("id", &self.0.0)?;
        m.serialize_entry("name", &self.0.name())?;
        m.serialize_entry("label", &self.0.label())?;
        m.end()
    }
}

struct AttentionJson<'a>(&'a Attention);

impl Serialize for AttentionJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let a = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("kind", a.kind.name())?;
        m.serialize_entry("heads", &a.heads)?;
        m.serialize_entry("kv_heads", &a.kv_heads)?;
        m.serialize_entry("group_size", &a.group_size)?;
        m.serialize_entry("heads_per_layer", &a.heads_per_layer)?;
        m.serialize_entry("kv_heads_per_layer", &a.kv_heads_per_layer)?;
        m.serialize_entry("key_length", &a.key_length)?;
        m.serialize_entry("value_length", &a.value_length)?;
        m.serialize_entry("sliding_window", &a.sliding_window)?;
        m.serialize_entry("kv_lora_rank", &a.kv_lora_rank)?;
        m.serialize_entry("q_lora_rank", &a.q_lora_rank)?;
        m.end()
    }
}

struct ExpertsJson<'a>(&'a Experts);

impl Serialize for ExpertsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("count", &e.count)?;
        m.serialize_entry("used", &e.used)?;
        m.serialize_entry("shared", &e.shared)?;
        m.serialize_entry("expert_parameters", &e.expert_parameters)?;
        m.end()
    }
}

struct RopeJson<'a>(&'a Summary);

impl Serialize for RopeJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = &self.0.rope;
        let mut m = s.serialize_map(Some(5))?;
        m.serialize_entry("freq_base", &r.freq_base.map(Float))?;
        m.serialize_entry("dimension_count", &r.dimension_count)?;
        m.serialize_entry("scaling_type", &r.scaling_type)?;
        m.serialize_entry("scaling_factor", &r.scaling_factor.map(Float))?;
        m.serialize_entry("original_context_length", &r.original_context_length)?;
        m.end()
    }
}

struct TensorTypes<'a>(&'a [TypeShare]);

impl Serialize for TensorTypes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for share in self.0 {
            m.serialize_entry(&share.ty.to_string(), &share.tensors)?;
        }
        m.end()
    }
}

struct TypeMix<'a>(&'a [TypeShare]);

impl Serialize for TypeMix<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for share in self.0 {
            seq.serialize_element(&TypeShareJson(share))?;
        }
        seq.end()
    }
}

struct TypeShareJson<'a>(&'a TypeShare);

impl Serialize for TypeShareJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let mut m = s.serialize_map(Some(6))?;
        m.serialize_entry("type", &t.ty.to_string())?;
        m.serialize_entry("type_id", &t.ty.0)?;
        m.serialize_entry("tensors", &t.tensors)?;
        m.serialize_entry("elements", &t.elements)?;
        m.serialize_entry("bytes", &t.bytes)?;
        m.serialize_entry("bits_per_weight", &t.ty.bits_per_weight())?;
        m.end()
    }
}

struct MetadataJson<'a>(&'a [Entry], &'a ReportOptions);

impl Serialize for MetadataJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for entry in self.0 {
            seq.serialize_element(&EntryJson(entry, self.1))?;
        }
        seq.end()
    }
}

/// One metadata entry as the report's `metadata` lists it, for documents that quote entries
/// (`ggufscope diff`).
pub struct EntryJson<'a>(pub &'a Entry, pub &'a ReportOptions);

impl Serialize for EntryJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (e, options) = (self.0, self.1);
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("key", &text(e.key.as_bytes()))?;
        m.serialize_entry("type", e.value.ty().name())?;
        m.serialize_entry("offset", &e.span.start)?;
        m.serialize_entry("size", &(e.span.end - e.span.start))?;
        let invalid =
            e.key.as_str().is_none() || matches!(&e.value, Value::String(v) if v.as_str().is_none());
        if invalid {
            m.serialize_entry("invalid_utf8", &true)?;
        }
        if let Value::String(v) = &e.value {
            // A chat template: the name it is listed by, so that a viewer can show it as one.
            if let Some(title) = keys::chat_template_title(e.key.as_bytes()) {
                m.serialize_entry("chat_template", &text(title))?;
            }
            let bytes = v.as_bytes();
            if let Some(max) = options.max_string_len.filter(|&max| bytes.len() > max) {
                let cut = (0..=max)
                    .rev()
                    .find(|&i| core::str::from_utf8(&bytes[..i]).is_ok())
                    .unwrap_or(0);
                m.serialize_entry("value", &text(&bytes[..cut]))?;
                m.serialize_entry("truncated", &true)?;
                m.serialize_entry("value_len", &bytes.len())?;
                return m.end();
            }
        }
        m.serialize_entry("value", &ValueJson(&e.value, options))?;
        m.end()
    }
}

/// A value as the report shows it (arrays as `{element_type, len, head}`).
pub struct ValueJson<'a>(pub &'a Value, pub &'a ReportOptions);

impl Serialize for ValueJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::U8(v) => s.serialize_u8(*v),
            Value::I8(v) => s.serialize_i8(*v),
            Value::U16(v) => s.serialize_u16(*v),
            Value::I16(v) => s.serialize_i16(*v),
            Value::U32(v) => s.serialize_u32(*v),
            Value::I32(v) => s.serialize_i32(*v),
            Value::U64(v) => s.serialize_u64(*v),
            Value::I64(v) => s.serialize_i64(*v),
            Value::F32(v) => Float((*v).into()).serialize(s),
            Value::F64(v) => Float(*v).serialize(s),
            Value::Bool(v) => s.serialize_bool(*v),
            Value::String(v) => s.serialize_str(&text(v.as_bytes())),
            Value::Array(a) => ArrayJson(a, self.1).serialize(s),
        }
    }
}

/// `{element_type, len, head}`: the array's first elements only.
struct ArrayJson<'a>(&'a Array, &'a ReportOptions);

impl Serialize for ArrayJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (a, options) = (self.0, self.1);
        let head: Vec<Value> = (0..a.len().min(options.array_head))
            .filter_map(|i| a.get(i))
            .collect();
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("element_type", a.elem_type().name())?;
        m.serialize_entry("len", &(a.len() as u64))?;
        m.serialize_entry("head", &Head(&head, options))?;
        m.end()
    }
}

/// Elements `start..start + count` of an array (fewer at its end), each serialized as in the
/// report's `head`: lets a viewer page through a 262,144-token vocabulary instead of copying it whole.
#[derive(Debug, Clone, Copy)]
pub struct ArrayPage<'a> {
    array: &'a Array,
    start: usize,
    count: usize,
    options: ReportOptions,
}

impl<'a> ArrayPage<'a> {
    /// The page of `array` starting at element `start`.
    pub fn new(array: &'a Array, start: usize, count: usize, options: ReportOptions) -> ArrayPage<'a> {
        ArrayPage {
            array,
            start,
            count,
            options,
        }
    }
}

impl Serialize for ArrayPage<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let end = self.start.saturating_add(self.count).min(self.array.len());
        let page: Vec<Value> = (self.start..end).filter_map(|i| self.array.get(i)).collect();
        Head(&page, &self.options).serialize(s)
    }
}

struct Head<'a>(&'a [Value], &'a ReportOptions);

impl Serialize for Head<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for v in self.0 {
            seq.serialize_element(&ValueJson(v, self.1))?;
        }
        seq.end()
    }
}

/// The tensors; of a split model, each with its shard's number and its offset in that shard.
struct TensorsJson<'a>(&'a Header, Option<&'a SplitModel>);

impl Serialize for TensorsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let h = self.0;
        let mut seq = s.serialize_seq(Some(h.tensors.len()))?;
        for (i, t) in h.tensors.iter().enumerate() {
            let shard = self.1.and_then(|model| model.shard_of(i));
            let (file, number) = shard.map_or((h, None), |s| (&s.header, Some(s.number)));
            seq.serialize_element(&TensorJson(file, t, number))?;
        }
        seq.end()
    }
}

/// One tensor as the report's `tensors` lists it: the header is the file holding it (a split
/// model's shard), with the shard's number.
pub struct TensorJson<'a>(pub &'a Header, pub &'a TensorInfo, pub Option<u64>);

impl Serialize for TensorJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.1;
        let mut m = s.serialize_map(None)?;
        if let Some(shard) = self.2 {
            m.serialize_entry("shard", &shard)?;
        }
        m.serialize_entry("name", &text(t.name.as_bytes()))?;
        m.serialize_entry("type", &t.ty.to_string())?;
        m.serialize_entry("type_id", &t.ty.0)?;
        m.serialize_entry("shape", &t.dims)?;
        m.serialize_entry("offset", &t.offset)?;
        m.serialize_entry("absolute_offset", &self.0.absolute_offset(t))?;
        m.serialize_entry("n_elements", &t.n_elements())?;
        m.serialize_entry("n_bytes", &t.n_bytes())?;
        m.serialize_entry("bits_per_weight", &t.bits_per_weight())?;
        m.serialize_entry("layer", &t.layer())?;
        m.serialize_entry("info_offset", &t.span.start)?;
        m.end()
    }
}

/// `{files, layers}`: where the bytes of each file lie ([`FileLayout`]: one entry per shard read
/// of a split model, else one with `shard` null), and the tensors summed per layer.
struct LayoutJson<'a>(&'a Header, &'a Summary, Option<&'a SplitModel>);

impl Serialize for LayoutJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("files", &FilesJson(self.0, self.2))?;
        m.serialize_entry("layers", &LayersJson(layers(self.0, &self.1.types)))?;
        m.end()
    }
}

struct FilesJson<'a>(&'a Header, Option<&'a SplitModel>);

impl Serialize for FilesJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.1 {
            Some(model) => {
                let shards = model.shards();
                let mut seq = s.serialize_seq(Some(shards.len()))?;
                for shard in shards {
                    seq.serialize_element(&FileLayoutJson(&shard.header, Some(shard.number)))?;
                }
                seq.end()
            }
            None => {
                let mut seq = s.serialize_seq(Some(1))?;
                seq.serialize_element(&FileLayoutJson(self.0, None))?;
                seq.end()
            }
        }
    }
}

/// `{shard, file_size, header_size, data_offset, data_end, regions: [{kind, start, end}]}`.
struct FileLayoutJson<'a>(&'a Header, Option<u64>);

impl Serialize for FileLayoutJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let layout = FileLayout::of(self.0, self.0.file_len);
        let mut m = s.serialize_map(Some(6))?;
        m.serialize_entry("shard", &self.1)?;
        m.serialize_entry("file_size", &layout.file_len)?;
        m.serialize_entry("header_size", &layout.header_len)?;
        m.serialize_entry("data_offset", &layout.data_offset)?;
        m.serialize_entry("data_end", &layout.data_end)?;
        m.serialize_entry("regions", &RegionsJson(&layout))?;
        m.end()
    }
}

struct RegionsJson<'a>(&'a FileLayout);

impl Serialize for RegionsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let regions = &self.0.regions;
        let mut seq = s.serialize_seq(Some(regions.len()))?;
        for r in regions {
            seq.serialize_element(&RegionJson {
                kind: r.kind.name(),
                start: r.span.start,
                end: r.span.end,
            })?;
        }
        seq.end()
    }
}

#[derive(serde::Serialize)]
struct RegionJson {
    kind: &'static str,
    start: u64,
    end: u64,
}

/// `[{layer, tensors, bytes, elements, bits_per_weight, types: [{type, bytes}]}]`, `layer` null
/// for the tensors outside any `blk.N`.
struct LayersJson(Vec<LayerFigures>);

impl Serialize for LayersJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for l in &self.0 {
            seq.serialize_element(&LayerJson(l))?;
        }
        seq.end()
    }
}

struct LayerJson<'a>(&'a LayerFigures);

impl Serialize for LayerJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let l = self.0;
        let mut m = s.serialize_map(Some(6))?;
        m.serialize_entry("layer", &l.layer)?;
        m.serialize_entry("tensors", &l.tensors)?;
        m.serialize_entry("bytes", &l.bytes)?;
        m.serialize_entry("elements", &l.elements)?;
        m.serialize_entry("bits_per_weight", &l.bits_per_weight())?;
        m.serialize_entry("types", &LayerTypesJson(&l.types))?;
        m.end()
    }
}

struct LayerTypesJson<'a>(&'a [(crate::types::GgmlType, u64)]);

impl Serialize for LayerTypesJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for (ty, bytes) in self.0 {
            seq.serialize_element(&LayerTypeJson {
                ty: ty.to_string(),
                bytes: *bytes,
            })?;
        }
        seq.end()
    }
}

#[derive(serde::Serialize)]
struct LayerTypeJson {
    #[serde(rename = "type")]
    ty: String,
    bytes: u64,
}

/// Findings as a JSON array of `{severity, code, message, offset, end, subject}`, where `subject`
/// is `{kind: "file" | "kv" | "tensor", index, name}` (`name`: the key or tensor name, escaped,
/// cut as [`crate::Excerpt`] cuts;
/// `index` and `name` are null for the file). Used inside [`Report`] and on its own by the CLI.
#[derive(Debug, Clone, Copy)]
pub struct Findings<'a> {
    header: &'a Header,
    findings: &'a [Finding],
}

impl<'a> Findings<'a> {
    /// Findings about `header`, which names their subjects.
    pub fn new(header: &'a Header, findings: &'a [Finding]) -> Findings<'a> {
        Findings { header, findings }
    }
}

impl Serialize for Findings<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.findings.len()))?;
        for f in self.findings {
            seq.serialize_element(&FindingJson(self.header, f, None))?;
        }
        seq.end()
    }
}

/// The findings past the validator's per-code cap ([`crate::MAX_FINDINGS_PER_CODE`]), as a JSON
/// array of `{severity, code, count}`: per code, how many more there are than `findings` lists.
/// Used inside [`Report`] (`findings_omitted`) and on its own by the CLI.
#[derive(Debug, Clone, Copy)]
pub struct FindingsOmitted<'a>(pub &'a [Omitted]);

impl Serialize for FindingsOmitted<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for o in self.0 {
            seq.serialize_element(&OmittedJson(o, None))?;
        }
        seq.end()
    }
}

/// A split model's omitted findings, each with its `shard` and `file` first.
struct ShardOmittedJson<'a>(&'a [ShardOmitted]);

impl Serialize for ShardOmittedJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for o in self.0 {
            seq.serialize_element(&OmittedJson(&o.omitted, Some(o)))?;
        }
        seq.end()
    }
}

struct OmittedJson<'a>(&'a Omitted, Option<&'a ShardOmitted>);

impl Serialize for OmittedJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(at) = self.1 {
            m.serialize_entry("shard", &at.shard)?;
            m.serialize_entry("file", &at.file)?;
        }
        m.serialize_entry("severity", self.0.code.severity().name())?;
        m.serialize_entry("code", self.0.code.id())?;
        m.serialize_entry("count", &self.0.count)?;
        m.end()
    }
}

/// A finding; `shard` and `file` say where it is for the findings of a split model.
struct FindingJson<'a>(&'a Header, &'a Finding, Option<(&'a ShardFinding, Placement)>);

/// Where a shard's metadata and tensors are in the model's: its first tensor's index among all,
/// and whether its metadata is the model's (the first shard's is).
#[derive(Debug, Clone, Copy)]
struct Placement {
    tensor_base: usize,
    kv_shown: bool,
}

impl Default for Placement {
    fn default() -> Placement {
        Placement {
            tensor_base: 0,
            kv_shown: true,
        }
    }
}

impl Serialize for FindingJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let f = self.1;
        let mut m = s.serialize_map(None)?;
        if let Some((at, _)) = self.2 {
            m.serialize_entry("shard", &at.shard)?;
            m.serialize_entry("file", &at.file)?;
        }
        m.serialize_entry("severity", f.severity.name())?;
        m.serialize_entry("code", f.code.id())?;
        m.serialize_entry("message", &f.message)?;
        m.serialize_entry("offset", &f.span.start)?;
        m.serialize_entry("end", &f.span.end)?;
        let placement = self.2.map_or(Placement::default(), |(_, at)| at);
        m.serialize_entry("subject", &SubjectJson(self.0, f.subject, placement))?;
        m.end()
    }
}

/// The findings of a split model: every shard's and the model's own, each with its shard and file.
struct ShardFindingsJson<'a>(&'a SplitModel);

impl Serialize for ShardFindingsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let model = self.0;
        let findings = model.findings();
        let mut seq = s.serialize_seq(Some(findings.len()))?;
        for f in findings {
            // Subjects are named from the file the finding is in, and numbered as the model's
            // metadata and tensors are (files left out and missing shards have only file-wide
            // findings).
            let mut tensor_base = 0;
            let mut at = (model.header(), Placement::default());
            for (i, shard) in model.shards().iter().enumerate() {
                if Some(shard.number) == f.shard {
                    at = (
                        &shard.header,
                        Placement {
                            tensor_base,
                            kv_shown: i == 0,
                        },
                    );
                    break;
                }
                tensor_base += shard.header.tensors.len();
            }
            seq.serialize_element(&FindingJson(at.0, &f.finding, Some((f, at.1))))?;
        }
        seq.end()
    }
}

/// `{count, tensors_count, shards, missing, left_out}`: the shards read (`{number, file,
/// file_size, header_size, data_offset, tensor_count, kv_count}`), the shards not read
/// (`{number, file}`, `file` null when it cannot be named), and the files that are not shards of
/// this model (`{file, file_size}`).
struct SplitJson<'a>(&'a SplitModel);

impl Serialize for SplitJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let model = self.0;
        let tensors_count = model
            .shards()
            .first()
            .and_then(|s| s.header.metadata.get(keys::SPLIT_TENSORS_COUNT))
            .and_then(Value::as_u64);
        let mut m = s.serialize_map(Some(5))?;
        m.serialize_entry("count", &model.count())?;
        m.serialize_entry("tensors_count", &tensors_count)?;
        m.serialize_entry("shards", &ShardsJson(model))?;
        m.serialize_entry("missing", &MissingJson(model))?;
        m.serialize_entry("left_out", &LeftOutJson(model))?;
        m.end()
    }
}

struct ShardsJson<'a>(&'a SplitModel);

impl Serialize for ShardsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let shards = self.0.shards();
        let mut seq = s.serialize_seq(Some(shards.len()))?;
        for shard in shards {
            let h = &shard.header;
            seq.serialize_element(&ShardJson {
                number: shard.number,
                file: &shard.name,
                file_size: h.file_len,
                header_size: h.header_len,
                data_offset: h.data_offset,
                tensor_count: h.tensors.len() as u64,
                kv_count: h.metadata.len() as u64,
            })?;
        }
        seq.end()
    }
}

#[derive(serde::Serialize)]
struct ShardJson<'a> {
    number: u64,
    file: &'a str,
    file_size: Option<u64>,
    header_size: u64,
    data_offset: u64,
    tensor_count: u64,
    kv_count: u64,
}

struct MissingJson<'a>(&'a SplitModel);

impl Serialize for MissingJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let missing = self.0.missing();
        let mut seq = s.serialize_seq(Some(missing.len()))?;
        for shard in missing {
            seq.serialize_element(&MissingShardJson {
                number: shard.number,
                file: shard.name.as_deref(),
            })?;
        }
        seq.end()
    }
}

#[derive(serde::Serialize)]
struct MissingShardJson<'a> {
    number: u64,
    file: Option<&'a str>,
}

struct LeftOutJson<'a>(&'a SplitModel);

impl Serialize for LeftOutJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let left_out = self.0.left_out();
        let mut seq = s.serialize_seq(Some(left_out.len()))?;
        for file in left_out {
            seq.serialize_element(&LeftOutFileJson {
                file: &file.name,
                file_size: file.header.file_len,
            })?;
        }
        seq.end()
    }
}

#[derive(serde::Serialize)]
struct LeftOutFileJson<'a> {
    file: &'a str,
    file_size: Option<u64>,
}

/// `{kind, index, name}`; in a split model, `index` counts the model's tensors, and is null for a
/// key of a shard whose metadata is not the model's.
struct SubjectJson<'a>(&'a Header, Subject, Placement);

impl Serialize for SubjectJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (h, at) = (self.0, self.2);
        let (kind, index, name) = match self.1 {
            Subject::File => ("file", None, None),
            Subject::Kv(i) => (
                "kv",
                at.kv_shown.then_some(i),
                h.metadata
                    .entries()
                    .get(i)
                    .map(|e| lossy_excerpt(e.key.as_bytes())),
            ),
            Subject::Tensor(i) => (
                "tensor",
                Some(at.tensor_base + i),
                h.tensors.get(i).map(|t| lossy_excerpt(t.name.as_bytes())),
            ),
        };
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("kind", kind)?;
        m.serialize_entry("index", &index)?;
        m.serialize_entry("name", &name)?;
        m.end()
    }
}

/// `f32` values, NaN and infinities as strings.
struct Floats<'a>(&'a [f32]);

impl Serialize for Floats<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for &v in self.0 {
            seq.serialize_element(&Float(f64::from(v)))?;
        }
        seq.end()
    }
}

/// The old serialization of [`Stats`].
pub struct LegacyStats<'a>(pub &'a Stats);

impl Serialize for LegacyStats<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("count", &self.0.count)?;
        m.serialize_entry("nan", &self.0.nan)?;
        m.serialize_entry("pos_inf", &self.0.pos_inf)?;
        m.serialize_entry("neg_inf", &self.0.neg_inf)?;
        m.serialize_entry("zeros", &self.0.zeros)?;
        m.serialize_entry("all_zero", &self.0.all_zero())?;
        m.serialize_entry("min", &self.0.min.map(|v| Float(f64::from(v))))?;
        m.serialize_entry("max", &self.0.max.map(|v| Float(f64::from(v))))?;
        m.serialize_entry("mean", &self.0.mean.map(Float))?;
        m.serialize_entry("variance", &self.0.variance.map(Float))?;
        m.serialize_entry("std_dev", &self.0.std_dev.map(Float))?;
        m.serialize_entry("first", &Floats(&self.0.first))?;
        m.serialize_entry("histogram", &LegacyHistogram(&self.0.histogram))?;
        m.end()
    }
}

struct LegacyHistogram<'a>(&'a Histogram);

impl Serialize for LegacyHistogram<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("min", &Float(f64::from(self.0.min)))?;
        m.serialize_entry("max", &Float(f64::from(self.0.max)))?;
        m.serialize_entry("counts", &self.0.counts)?;
        m.end()
    }
}

/// The old serialization of [`MemoryEstimate`].
pub struct LegacyMemory<'a>(pub &'a MemoryEstimate);

impl Serialize for LegacyMemory<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("context", &self.0.context)?;
        m.serialize_entry("parallel", &self.0.parallel)?;
        m.serialize_entry("kv_type", self.0.kv_type.name())?;
        let cache = match self.0.cache {
            CacheKind::KeyValue => "key-value",
            CacheKind::Latent => "latent",
            CacheKind::Recurrent => "recurrent",
        };
        m.serialize_entry("cache", cache)?;
        m.serialize_entry("weights", &self.0.weights)?;
        m.serialize_entry("kv_cache", &self.0.kv_cache)?;
        m.serialize_entry("compute", &self.0.compute)?;
        m.serialize_entry("total", &self.0.total)?;
        m.serialize_entry("groups", &KvGroups(&self.0.groups))?;
        m.serialize_entry("formula", &self.0.formula)?;
        m.serialize_entry("notes", &self.0.notes)?;
        m.end()
    }
}

struct KvGroups<'a>(&'a [KvGroup]);

impl Serialize for KvGroups<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for g in self.0 {
            seq.serialize_element(&KvGroupJson(g))?;
        }
        seq.end()
    }
}

struct KvGroupJson<'a>(&'a KvGroup);

impl Serialize for KvGroupJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let g = self.0;
        let mut m = s.serialize_map(Some(7))?;
        m.serialize_entry("layers", &g.layers)?;
        m.serialize_entry("sliding", &g.sliding)?;
        m.serialize_entry("cells", &g.cells)?;
        m.serialize_entry("k_values", &g.k_values)?;
        m.serialize_entry("v_values", &g.v_values)?;
        m.serialize_entry("bytes_per_cell", &g.bytes_per_cell)?;
        m.serialize_entry("bytes", &g.bytes)?;
        m.end()
    }
}
