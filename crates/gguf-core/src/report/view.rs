//! The `ggufscope info --json` document as plain structs: [`GgufReport`] and what it holds.
//! Each is made from the core's types and serialized by derive; the doc comments of the fields
//! are the documentation of the JSON (and, with feature `schema`, of its JSON Schema).
//!
//! A struct's name is no part of its JSON, yet a derive hands it to the serializer, which keeps
//! it in the viewer's wasm module (about 160 bytes gzipped, where there is no room): each struct
//! is therefore renamed `""` unless the schema, which names its types by them, is built.

use alloc::borrow::Cow;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::Serialize;

#[cfg(feature = "describe")]
use super::Memory;
use super::{Float, Map, ReportOptions, SCHEMA_VERSION, Stream};
use crate::header::{self, Header, TensorInfo};
use crate::keys;
use crate::layout::{self, layers};
use crate::split::{ShardFinding, SplitModel};
use crate::summary::{self, Summary};
use crate::text::{lossy, lossy_excerpt};
use crate::types::GgmlType;
use crate::validate::{self, Validation};

#[cfg(feature = "schema")]
use schemars::JsonSchema;

/// What `ggufscope info --json` prints and the viewer reads: a GGUF file's (or a split model's)
/// header figures, summary, metadata, tensors, layout and validator findings. Integers are exact
/// (u64 figures can pass 2^53); a figure the file does not give is null.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct GgufReport<'a> {
    /// The version of this document's shape: 1. Raised when a field changes meaning or goes away.
    pub schema_version: u32,
    /// The GGUF format version (1, 2 or 3).
    pub version: u32,
    /// The byte order of the file: `"little"` or `"big"`.
    pub endianness: &'static str,
    /// Tensors described by the header (for a split model, in all shards).
    pub tensor_count: u64,
    /// Metadata key-value pairs (for a split model, the first shard's).
    pub kv_count: u64,
    /// The alignment of tensor data, in bytes (`general.alignment`, 32 when absent).
    pub alignment: u32,
    /// Bytes of header: the metadata and the tensor-info table (summed over a split model's shards).
    pub header_size: u64,
    /// Where tensor data starts: the header's end rounded up to the alignment.
    pub data_offset: u64,
    /// The file's size in bytes (summed over a split model's shards); null when unknown.
    pub file_size: Option<u64>,
    /// What the file is: `"model"`, `"vocab-only"` (a tokenizer and settings, no weights),
    /// `"adapter"` (a LoRA adapter, see `adapter`), `"imatrix"` (an importance matrix, see
    /// `imatrix`), `"mmproj"` (a multimodal projector, see `mmproj`) or `"control-vector"` (see
    /// `control_vector`): `general.type`, else what the keys and tensors say.
    pub kind: &'static str,
    /// `general.architecture`, e.g. `"llama"`.
    pub architecture: Option<&'a str>,
    /// `general.name`.
    pub name: Option<&'a str>,
    /// `general.size_label`, e.g. `"8B"`.
    pub size_label: Option<&'a str>,
    /// `general.file_type`: the quantization the file was made with, as a whole.
    pub file_type: Option<FileType>,
    /// Weights in all tensors (elements); null when a tensor's shape overflows.
    pub parameters: Option<u64>,
    /// Weights used per token: for a mixture of experts, with only the used experts counted.
    pub active_parameters: Option<u64>,
    /// Bytes of tensor data, summed over the tensors whose type has a known size.
    pub tensor_bytes: u64,
    /// Average bits per weight over all tensors of known type.
    pub bits_per_weight: Option<f64>,
    /// Tokens in the vocabulary (`tokenizer.ggml.tokens`).
    pub vocab_size: Option<u64>,
    /// `{arch}.context_length`: the context the model was trained for, in tokens.
    pub context_length: Option<u64>,
    /// `{arch}.block_count`: transformer layers.
    pub block_count: Option<u64>,
    /// `{arch}.embedding_length`: the width of the hidden state.
    pub embedding_length: Option<u64>,
    /// `{arch}.feed_forward_length` (the first layer's, when given per layer).
    pub feed_forward_length: Option<u64>,
    /// `tokenizer.ggml.model`, e.g. `"gpt2"` or `"llama"`.
    pub tokenizer_model: Option<&'a str>,
    /// `tokenizer.ggml.pre`: the pre-tokenizer llama.cpp applies.
    pub tokenizer_pre: Option<&'a str>,
    /// The attention layout.
    pub attention: Attention<'a>,
    /// The mixture of experts; null for a dense model.
    pub experts: Option<&'a summary::Experts>,
    /// Rotary position embedding.
    pub rope: Rope<'a>,
    /// What the file holds beyond its kind, and what its model can do: `capabilities`,
    /// `adapter`, `imatrix`, `mmproj`, `control_vector` (the memory module's `describe()` gives
    /// them to the page, whose viewer module goes without).
    #[cfg(feature = "describe")]
    #[serde(flatten)]
    pub description: Option<super::describe::DescriptionFields<'a>>,
    /// Tensors per type name, in the order of `type_mix`.
    pub tensor_types: Map<String, u64>,
    /// The tensor types, most bytes first.
    pub type_mix: Vec<TypeShare>,
    /// The tensors that pull `bits_per_weight` away from the file type's: those of another type
    /// than `file_type.main_type` that each hold at least a tenth of the tensor data, largest
    /// first, at most three (a Q8_0 token embedding that is most of a small Q4_K_M model's
    /// bytes). Without a known file type, any tensor of a tenth or more.
    pub dominant_tensors: Vec<DominantTensor<'a>>,
    /// The metadata, in file order (for a split model, the first shard's).
    pub metadata: Vec<MetadataEntry<'a>>,
    /// The tensors, in file order (for a split model, shard after shard).
    pub tensors: Stream<'a, Tensor<'a>>,
    /// Where the bytes lie, and the tensors summed per layer.
    pub layout: Layout,
    /// What would break a loader or deserves a look, in file order.
    pub findings: Vec<Finding<'a>>,
    /// Per code, how many findings were left out of `findings` past the validator's cap.
    pub findings_omitted: Vec<Omitted<'a>>,
    /// The shards of a split model; absent for a single file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split: Option<Split<'a>>,
    /// The buffers llama.cpp allocates to run the model; present when asked for (`--ctx`,
    /// `--ctk`, `--ctv`, `--flash-attn`, `--parallel`, `--ubatch`, `--kv-unified`).
    #[cfg(feature = "describe")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<Memory<'a>>,
}

impl<'a> GgufReport<'a> {
    /// The document of `header` (of `split` when it is a split model's, whose findings then
    /// replace `findings`).
    pub(super) fn new(
        header: &'a Header,
        summary: &'a Summary,
        findings: &'a Validation,
        options: &'a ReportOptions,
        split: Option<&'a SplitModel>,
    ) -> GgufReport<'a> {
        let (h, sm) = (header, summary);
        let (listed, omitted) = match split {
            Some(model) => (split_findings(model), shard_omitted(model)),
            None => (
                self::findings(h, &findings.findings),
                findings_omitted(&findings.omitted),
            ),
        };
        GgufReport {
            schema_version: SCHEMA_VERSION,
            version: h.version,
            endianness: h.endian.name(),
            tensor_count: h.tensors.len() as u64,
            kv_count: h.metadata.len() as u64,
            alignment: h.alignment,
            header_size: h.header_len,
            data_offset: h.data_offset,
            file_size: h.file_len,
            kind: sm.kind.id(),
            architecture: sm.architecture.as_deref(),
            name: sm.name.as_deref(),
            size_label: sm.size_label.as_deref(),
            file_type: sm.file_type.map(FileType::new),
            parameters: sm.parameters,
            active_parameters: sm.active_parameters,
            tensor_bytes: sm.tensor_bytes,
            bits_per_weight: sm.bits_per_weight,
            vocab_size: sm.vocab_size,
            context_length: sm.context_length,
            block_count: sm.block_count,
            embedding_length: sm.embedding_length,
            feed_forward_length: sm.feed_forward_length,
            tokenizer_model: sm.tokenizer_model.as_deref(),
            tokenizer_pre: sm.tokenizer_pre.as_deref(),
            attention: Attention::new(&sm.attention),
            experts: sm.experts.as_ref(),
            rope: Rope::new(&sm.rope),
            #[cfg(feature = "describe")]
            description: None,
            tensor_types: tensor_types(&sm.types),
            type_mix: sm.types.iter().map(TypeShare::new).collect(),
            dominant_tensors: dominant_tensors(h, sm),
            metadata: h
                .metadata
                .entries()
                .iter()
                .map(|e| MetadataEntry::new(e, options))
                .collect(),
            tensors: Stream::new(h.tensors.len(), move |i| {
                let shard = split.and_then(|model| model.shard_of(i));
                let (file, number) = shard.map_or((h, None), |s| (&s.header, Some(s.number)));
                Some(Tensor::new(file, h.tensors.get(i)?, number))
            }),
            layout: Layout::new(h, sm, split),
            findings: listed,
            findings_omitted: omitted,
            split: split.map(Split::new),
            #[cfg(feature = "describe")]
            memory: None,
        }
    }

    /// The report with `description`'s figures and the buffers `memory` gives (feature
    /// `describe`; without it, as it is).
    pub(super) fn described(
        self,
        #[cfg(feature = "describe")] description: Option<&'a crate::describe::Description>,
        #[cfg(feature = "describe")] memory: Option<Memory<'a>>,
    ) -> GgufReport<'a> {
        #[cfg(feature = "describe")]
        let this = GgufReport {
            description: description.map(super::describe::DescriptionFields::new),
            memory,
            ..self
        };
        #[cfg(not(feature = "describe"))]
        let this = self;
        this
    }
}

/// `general.file_type`.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct FileType {
    /// The number stored in the file.
    pub id: u32,
    /// llama.cpp's name for it, e.g. `"MOSTLY_Q4_K_M"`; null for an unknown number.
    pub name: Option<&'static str>,
    /// The short label people use, e.g. `"Q4_K_M"`; null for an unknown number.
    pub label: Option<&'static str>,
    /// The tensor type a file of this label mostly holds, e.g. `"Q4_K"` for Q4_K_M (the rest
    /// is typically of other types); null when the label names no one type.
    pub main_type: Option<&'static str>,
    /// Bits per weight of `main_type`, e.g. 4.5 for Q4_K.
    pub main_type_bits_per_weight: Option<f64>,
}

impl FileType {
    /// The view of `general.file_type`'s number.
    pub fn new(t: crate::FileType) -> FileType {
        FileType {
            id: t.0,
            name: t.name(),
            label: t.label(),
            main_type: t.main_tensor_type().and_then(GgmlType::name),
            main_type_bits_per_weight: t.main_tensor_type().and_then(GgmlType::bits_per_weight),
        }
    }
}

/// A tensor that holds a large share of the tensor data, of another type than the file type's.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct DominantTensor<'a> {
    /// Its index in `tensors`, where its name is whole.
    pub index: u64,
    /// Its name, escaped and cut to 200 bytes as a finding's subject is (a hostile name can be
    /// megabytes long, and this is text to read in a sentence).
    pub name: Cow<'a, str>,
    /// Its type's name.
    #[serde(rename = "type")]
    pub ty: String,
    /// Bytes of its data.
    pub bytes: u64,
}

/// The summary's dominant tensors of `header`, named.
pub fn dominant_tensors<'a>(header: &'a Header, summary: &Summary) -> Vec<DominantTensor<'a>> {
    summary
        .dominant_tensors
        .iter()
        .filter_map(|l| {
            let t = header.tensors.get(l.index)?;
            Some(DominantTensor {
                index: l.index as u64,
                name: lossy_excerpt(t.name.as_bytes()),
                ty: t.ty.to_string(),
                bytes: l.bytes,
            })
        })
        .collect()
}

/// `{type name: tensors}`, in the order of `types` (most bytes first).
pub fn tensor_types(types: &[summary::TypeShare]) -> Map<String, u64> {
    Map(types.iter().map(|t| (t.ty.to_string(), t.tensors)).collect())
}

/// The attention layout, from the metadata.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Attention<'a> {
    /// `"MHA"` (as many key-value heads as query heads), `"GQA"` (query heads grouped per
    /// key-value head), `"MQA"` (one key-value head), `"MLA"` (latent, DeepSeek), `"per-layer"`
    /// (head counts differ between layers), `"none"` (no attention) or `"unknown"`.
    pub kind: &'static str,
    /// Query heads (`{arch}.attention.head_count`; the first layer's when given per layer).
    pub heads: Option<u64>,
    /// Key-value heads (`{arch}.attention.head_count_kv`).
    pub kv_heads: Option<u64>,
    /// Query heads per key-value head.
    pub group_size: Option<u64>,
    /// Query heads of each layer, when the file gives them per layer.
    pub heads_per_layer: Option<&'a [u64]>,
    /// Key-value heads of each layer, when the file gives them per layer.
    pub kv_heads_per_layer: Option<&'a [u64]>,
    /// `{arch}.attention.key_length`: the width of a key head.
    pub key_length: Option<u64>,
    /// `{arch}.attention.value_length`: the width of a value head.
    pub value_length: Option<u64>,
    /// `{arch}.attention.sliding_window`, in tokens.
    pub sliding_window: Option<u64>,
    /// `{arch}.attention.kv_lora_rank` (latent attention).
    pub kv_lora_rank: Option<u64>,
    /// `{arch}.attention.q_lora_rank` (latent attention).
    pub q_lora_rank: Option<u64>,
    /// When head counts differ between layers (`kind` `"per-layer"`): the layers grouped by
    /// their head counts, in the order first met; empty otherwise.
    pub layer_groups: Vec<LayerGroup>,
}

/// Layers with the same head counts.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct LayerGroup {
    /// How many layers.
    pub layers: u64,
    /// Query heads in each.
    pub heads: u64,
    /// Key-value heads in each (0: layers without attention, as a hybrid's recurrent ones).
    pub kv_heads: u64,
    /// Their kind: `"MHA"`, `"GQA"`, `"MQA"`, `"none"` or `"unknown"`.
    pub kind: &'static str,
    /// Query heads per key-value head.
    pub group_size: Option<u64>,
}

impl<'a> Attention<'a> {
    /// The view of the summary's attention.
    pub fn new(a: &'a summary::Attention) -> Attention<'a> {
        Attention {
            kind: a.kind.name(),
            heads: a.heads,
            kv_heads: a.kv_heads,
            group_size: a.group_size,
            heads_per_layer: a.heads_per_layer.as_deref(),
            kv_heads_per_layer: a.kv_heads_per_layer.as_deref(),
            key_length: a.key_length,
            value_length: a.value_length,
            sliding_window: a.sliding_window,
            kv_lora_rank: a.kv_lora_rank,
            q_lora_rank: a.q_lora_rank,
            layer_groups: a
                .layer_groups
                .iter()
                .map(|g| LayerGroup {
                    layers: g.layers,
                    heads: g.heads,
                    kv_heads: g.kv_heads,
                    kind: g.kind.name(),
                    group_size: g.group_size,
                })
                .collect(),
        }
    }
}

/// Rotary position embedding.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Rope<'a> {
    /// `{arch}.rope.freq_base`.
    pub freq_base: Option<Float>,
    /// `{arch}.rope.dimension_count`: the dimensions rotated.
    pub dimension_count: Option<u64>,
    /// `{arch}.rope.scaling.type`, e.g. `"linear"` or `"yarn"`.
    pub scaling_type: Option<&'a str>,
    /// `{arch}.rope.scaling.factor`.
    pub scaling_factor: Option<Float>,
    /// `{arch}.rope.scaling.original_context_length`.
    pub original_context_length: Option<u64>,
}

impl<'a> Rope<'a> {
    /// The view of the summary's rotary position embedding.
    pub fn new(r: &'a summary::Rope) -> Rope<'a> {
        Rope {
            freq_base: r.freq_base.map(Float),
            dimension_count: r.dimension_count,
            scaling_type: r.scaling_type.as_deref(),
            scaling_factor: r.scaling_factor.map(Float),
            original_context_length: r.original_context_length,
        }
    }
}

/// One tensor type's share of the model.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TypeShare {
    /// The type's name, e.g. `"Q4_K"`; `"type 42"` for a number ggml does not know.
    #[serde(rename = "type")]
    pub ty: String,
    /// The type's number (`ggml_type`).
    pub type_id: u32,
    /// Tensors of this type.
    pub tensors: u64,
    /// Weights in them.
    pub elements: u64,
    /// Bytes of them; null when the type's size is unknown or a size overflows.
    pub bytes: Option<u64>,
    /// Bits per weight of the type; null when unknown.
    pub bits_per_weight: Option<f64>,
}

impl TypeShare {
    fn new(t: &summary::TypeShare) -> TypeShare {
        TypeShare {
            ty: t.ty.to_string(),
            type_id: t.ty.0,
            tensors: t.tensors,
            elements: t.elements,
            bytes: t.bytes,
            bits_per_weight: t.ty.bits_per_weight(),
        }
    }
}

/// One metadata key-value pair.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct MetadataEntry<'a> {
    /// The key; bytes that are not UTF-8 shown as `\xNN`.
    pub key: Cow<'a, str>,
    /// The value's GGUF type: `"uint8"` … `"float64"`, `"bool"`, `"string"` or `"array"`.
    #[serde(rename = "type")]
    pub ty: &'static str,
    /// Where the pair starts in the file (its key's length prefix).
    pub offset: u64,
    /// The pair's bytes in the file: key, type and value.
    pub size: u64,
    /// Present (true) when the key or a string value is not valid UTF-8.
    #[serde(skip_serializing_if = "core::ops::Not::not")]
    pub invalid_utf8: bool,
    /// Present for a chat template: the name it is listed by (`"default"` for
    /// `tokenizer.chat_template`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_template: Option<Cow<'a, str>>,
    /// The value: a number, a bool, a string (`\xNN` for bytes that are not UTF-8), or an array's
    /// first elements.
    pub value: MetadataValue<'a>,
    /// Present (true) when the string was cut at the length asked for.
    #[serde(skip_serializing_if = "core::ops::Not::not")]
    pub truncated: bool,
    /// The cut string's whole length in bytes; present when `truncated`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_len: Option<u64>,
}

impl<'a> MetadataEntry<'a> {
    /// `entry` as the report's `metadata` lists it, also for documents that quote entries
    /// (`ggufscope diff`).
    pub fn new(entry: &'a header::Entry, options: &ReportOptions) -> MetadataEntry<'a> {
        let string = match &entry.value {
            header::Value::String(v) => Some(v),
            _ => None,
        };
        let mut view = MetadataEntry {
            key: lossy(entry.key.as_bytes()),
            ty: entry.value.ty().name(),
            offset: entry.span.start,
            size: entry.span.end - entry.span.start,
            invalid_utf8: entry.key.as_str().is_none() || string.is_some_and(|v| v.as_str().is_none()),
            // A chat template: the name it is listed by, so that a viewer can show it as one.
            chat_template: string
                .and_then(|_| keys::chat_template_title(entry.key.as_bytes()))
                .map(lossy),
            value: MetadataValue::new(&entry.value, options),
            truncated: false,
            value_len: None,
        };
        let bytes = string.map_or(&[][..], |v| v.as_bytes());
        if let Some(max) = options.max_string_len.filter(|&max| bytes.len() > max) {
            let cut = (0..=max)
                .rev()
                .find(|&i| core::str::from_utf8(&bytes[..i]).is_ok())
                .unwrap_or(0);
            view.value = MetadataValue::String(lossy(&bytes[..cut]));
            view.truncated = true;
            view.value_len = Some(bytes.len() as u64);
        }
        view
    }
}

/// A metadata value as the report shows it. Integers keep their GGUF width (64-bit ones can
/// pass 2^53).
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(untagged)]
pub enum MetadataValue<'a> {
    /// `uint8`.
    U8(u8),
    /// `int8`.
    I8(i8),
    /// `uint16`.
    U16(u16),
    /// `int16`.
    I16(i16),
    /// `uint32`.
    U32(u32),
    /// `int32`.
    I32(i32),
    /// `uint64`.
    U64(u64),
    /// `int64`.
    I64(i64),
    /// `float32` and `float64`.
    Float(Float),
    /// `bool`.
    Bool(bool),
    /// `string`, bytes that are not UTF-8 shown as `\xNN`.
    String(Cow<'a, str>),
    /// `array`: its first elements only.
    Array(MetadataArray),
}

impl<'a> MetadataValue<'a> {
    /// `value` as the report shows it (arrays as `{element_type, len, head}`).
    pub fn new(value: &'a header::Value, options: &ReportOptions) -> MetadataValue<'a> {
        match value {
            header::Value::String(v) => MetadataValue::String(lossy(v.as_bytes())),
            other => MetadataValue::owned(other, options),
        }
    }

    /// Like [`MetadataValue::new`], owning its text: for the elements an array hands out.
    fn owned(value: &header::Value, options: &ReportOptions) -> MetadataValue<'static> {
        use header::Value as V;
        match value {
            V::U8(v) => MetadataValue::U8(*v),
            V::I8(v) => MetadataValue::I8(*v),
            V::U16(v) => MetadataValue::U16(*v),
            V::I16(v) => MetadataValue::I16(*v),
            V::U32(v) => MetadataValue::U32(*v),
            V::I32(v) => MetadataValue::I32(*v),
            V::U64(v) => MetadataValue::U64(*v),
            V::I64(v) => MetadataValue::I64(*v),
            V::F32(v) => MetadataValue::Float(Float((*v).into())),
            V::F64(v) => MetadataValue::Float(Float(*v)),
            V::Bool(v) => MetadataValue::Bool(*v),
            V::String(v) => MetadataValue::String(Cow::Owned(lossy(v.as_bytes()).into_owned())),
            V::Array(a) => MetadataValue::Array(MetadataArray {
                element_type: a.elem_type().name(),
                len: a.len() as u64,
                head: page(a, 0, options.array_head, options),
            }),
        }
    }
}

/// An array value: its element type and length, and its first elements.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct MetadataArray {
    /// The elements' GGUF type.
    pub element_type: &'static str,
    /// Elements in the array.
    pub len: u64,
    /// The first elements (as many as asked for; the viewer pages through the rest).
    pub head: Vec<MetadataValue<'static>>,
}

fn page(
    array: &header::Array,
    start: usize,
    count: usize,
    options: &ReportOptions,
) -> Vec<MetadataValue<'static>> {
    let end = start.saturating_add(count).min(array.len());
    (start.min(end)..end)
        .filter_map(|i| array.get(i))
        .map(|v| MetadataValue::owned(&v, options))
        .collect()
}

/// Elements `start..start + count` of an array (fewer at its end), each as in the report's
/// `head`: lets a viewer page through a 262,144-token vocabulary instead of copying it whole.
pub fn array_page(
    array: &header::Array,
    start: usize,
    count: usize,
    options: &ReportOptions,
) -> Vec<MetadataValue<'static>> {
    page(array, start, count, options)
}

/// One tensor.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Tensor<'a> {
    /// The number of the shard holding it; present for a split model only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<u64>,
    /// Its name, e.g. `"blk.0.attn_q.weight"`; bytes that are not UTF-8 shown as `\xNN`.
    pub name: Cow<'a, str>,
    /// Its type's name, e.g. `"Q4_K"`; `"type 42"` for a number ggml does not know.
    #[serde(rename = "type")]
    pub ty: String,
    /// Its type's number (`ggml_type`).
    pub type_id: u32,
    /// Its dimensions, innermost first (ggml's order).
    pub shape: &'a [u64],
    /// Where its data starts, from the start of the data section.
    pub offset: u64,
    /// Where its data starts in its file; null when that overflows.
    pub absolute_offset: Option<u64>,
    /// Its weights (the product of `shape`); null when that overflows.
    pub n_elements: Option<u64>,
    /// Bytes of its data; null when its type's size is unknown or it overflows.
    pub n_bytes: Option<u64>,
    /// Bits per weight of its type; null when unknown.
    pub bits_per_weight: Option<f64>,
    /// Its layer: the N of a `blk.N.` name; null outside the layers.
    pub layer: Option<u64>,
    /// Where its entry in the tensor-info table starts in its file.
    pub info_offset: u64,
}

impl<'a> Tensor<'a> {
    /// `tensor` as the report's `tensors` lists it: `file` is the header holding it (a split
    /// model's shard, whose number is `shard`).
    pub fn new(file: &Header, tensor: &'a TensorInfo, shard: Option<u64>) -> Tensor<'a> {
        Tensor {
            shard,
            name: lossy(tensor.name.as_bytes()),
            ty: tensor.ty.to_string(),
            type_id: tensor.ty.0,
            shape: &tensor.dims,
            offset: tensor.offset,
            absolute_offset: file.absolute_offset(tensor),
            n_elements: tensor.n_elements(),
            n_bytes: tensor.n_bytes(),
            bits_per_weight: tensor.bits_per_weight(),
            layer: tensor.layer(),
            info_offset: tensor.span.start,
        }
    }
}

/// Where the bytes lie, and the tensors summed per layer.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Layout {
    /// One entry per file: the file of a single-file model, or each shard read of a split one.
    pub files: Vec<FileLayout>,
    /// The tensors summed per layer, in layer order, the tensors outside the layers last.
    pub layers: Vec<Layer>,
}

impl Layout {
    fn new(h: &Header, sm: &Summary, split: Option<&SplitModel>) -> Layout {
        Layout {
            files: match split {
                Some(model) => model
                    .shards()
                    .iter()
                    .map(|s| FileLayout::new(&s.header, Some(s.number)))
                    .collect(),
                None => alloc::vec![FileLayout::new(h, None)],
            },
            layers: layers(h, &sm.types).iter().map(Layer::new).collect(),
        }
    }
}

/// Where the bytes of one file lie.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct FileLayout {
    /// The shard's number; null for a single-file model.
    pub shard: Option<u64>,
    /// The file's size in bytes; null when unknown.
    pub file_size: Option<u64>,
    /// Bytes of header.
    pub header_size: u64,
    /// Where tensor data starts.
    pub data_offset: u64,
    /// Where the last tensor's data ends.
    pub data_end: u64,
    /// The file from start to end, in order: header, padding, tensor data, gaps, overlaps, a
    /// tail past the data, bytes missing at the end.
    pub regions: Vec<Region>,
}

impl FileLayout {
    /// Where the bytes of `h`'s file lie (`shard`: its number in a split model).
    pub fn new(h: &Header, shard: Option<u64>) -> FileLayout {
        let layout = layout::FileLayout::of(h, h.file_len);
        FileLayout {
            shard,
            file_size: layout.file_len,
            header_size: layout.header_len,
            data_offset: layout.data_offset,
            data_end: layout.data_end,
            regions: layout
                .regions
                .iter()
                .map(|r| Region {
                    kind: r.kind.name(),
                    start: r.span.start,
                    end: r.span.end,
                })
                .collect(),
        }
    }
}

/// A run of bytes of one kind.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Region {
    /// What the bytes are, e.g. `"header"`, `"padding"`, `"tensors"`, `"gap"`, `"tail"`,
    /// `"missing"`.
    pub kind: &'static str,
    /// Its first byte's offset.
    pub start: u64,
    /// The offset past its last byte.
    pub end: u64,
}

/// The tensors of one layer, summed.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Layer {
    /// The layer's number (the N of `blk.N.`); null for the tensors outside the layers.
    pub layer: Option<u64>,
    /// Tensors in it.
    pub tensors: u64,
    /// Bytes of their data.
    pub bytes: u64,
    /// Their weights.
    pub elements: u64,
    /// Bits per weight over them; null when unknown.
    pub bits_per_weight: Option<f64>,
    /// Bytes per tensor type, most first.
    pub types: Vec<LayerType>,
}

impl Layer {
    fn new(l: &layout::LayerFigures) -> Layer {
        Layer {
            layer: l.layer,
            tensors: l.tensors,
            bytes: l.bytes,
            elements: l.elements,
            bits_per_weight: l.bits_per_weight(),
            types: l
                .types
                .iter()
                .map(|&(ty, bytes): &(GgmlType, u64)| LayerType {
                    ty: ty.to_string(),
                    bytes,
                })
                .collect(),
        }
    }
}

/// One tensor type's bytes in a layer.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct LayerType {
    /// The type's name.
    #[serde(rename = "type")]
    pub ty: String,
    /// Bytes of tensor data of this type in the layer.
    pub bytes: u64,
}

/// A validator finding: what would break a loader, or deserves a look.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Finding<'a> {
    /// The shard the finding is in, null for the model as a whole; present for a split model only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<Option<u64>>,
    /// The file the finding is in; present for a split model only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<&'a str>,
    /// `"error"` (a loader would fail or misread the file), `"warning"` or `"info"`.
    pub severity: &'static str,
    /// A stable code, e.g. `"tensor-out-of-bounds"`: scripts match on it.
    pub code: &'static str,
    /// What is wrong, in words (its wording may change).
    pub message: &'a str,
    /// The first byte the finding is about.
    pub offset: u64,
    /// The offset past the last byte the finding is about.
    pub end: u64,
    /// The part of the file it is about.
    pub subject: Subject<'a>,
}

/// The part of the file a finding is about.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Subject<'a> {
    /// `"file"`, `"kv"` (a metadata pair) or `"tensor"`.
    pub kind: &'static str,
    /// The pair's index in `metadata` or the tensor's in `tensors`; null for the file, and for a
    /// pair of a shard whose metadata is not the model's.
    pub index: Option<u64>,
    /// The key or tensor name (escaped, a long one cut); null for the file.
    pub name: Option<Cow<'a, str>>,
}

/// Where a shard's metadata and tensors are in the model's: its first tensor's index among all,
/// and whether its metadata is the model's (the first shard's is).
#[derive(Debug, Clone, Copy)]
struct Placement {
    tensor_base: usize,
    kv_shown: bool,
}

const ALONE: Placement = Placement {
    tensor_base: 0,
    kv_shown: true,
};

impl<'a> Finding<'a> {
    fn new(
        h: &'a Header,
        f: &'a validate::Finding,
        at: Option<&'a ShardFinding>,
        placement: Placement,
    ) -> Finding<'a> {
        let (kind, index, name) = match f.subject {
            validate::Subject::File => ("file", None, None),
            validate::Subject::Kv(i) => (
                "kv",
                placement.kv_shown.then_some(i as u64),
                h.metadata
                    .entries()
                    .get(i)
                    .map(|e| lossy_excerpt(e.key.as_bytes())),
            ),
            validate::Subject::Tensor(i) => (
                "tensor",
                Some((placement.tensor_base + i) as u64),
                h.tensors.get(i).map(|t| lossy_excerpt(t.name.as_bytes())),
            ),
        };
        Finding {
            shard: at.map(|at| at.shard),
            file: at.map(|at| at.file.as_str()),
            severity: f.severity.name(),
            code: f.code.id(),
            message: &f.message,
            offset: f.span.start,
            end: f.span.end,
            subject: Subject { kind, index, name },
        }
    }
}

/// Findings about `header`, which names their subjects: the report's `findings`, and what
/// `ggufscope validate --json` lists.
pub fn findings<'a>(header: &'a Header, findings: &'a [validate::Finding]) -> Vec<Finding<'a>> {
    findings
        .iter()
        .map(|f| Finding::new(header, f, None, ALONE))
        .collect()
}

/// The findings of a split model: every shard's and the model's own, each with its shard and
/// file. Subjects are named from the file the finding is in, and numbered as the model's
/// metadata and tensors are (files left out and missing shards have only file-wide findings).
fn split_findings(model: &SplitModel) -> Vec<Finding<'_>> {
    model
        .findings()
        .iter()
        .map(|f| {
            let mut tensor_base = 0;
            let mut at = (model.header(), ALONE);
            for (i, shard) in model.shards().iter().enumerate() {
                if Some(shard.number) == f.shard {
                    let placement = Placement {
                        tensor_base,
                        kv_shown: i == 0,
                    };
                    at = (&shard.header, placement);
                    break;
                }
                tensor_base += shard.header.tensors.len();
            }
            Finding::new(at.0, &f.finding, Some(f), at.1)
        })
        .collect()
}

/// Per code, how many findings the validator left out past its cap
/// ([`crate::validate::MAX_FINDINGS_PER_CODE`]).
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Omitted<'a> {
    /// The shard the findings are in, null for the model as a whole; present for a split model only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<Option<u64>>,
    /// The file the findings are in; present for a split model only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<&'a str>,
    /// The findings' severity.
    pub severity: &'static str,
    /// The findings' code.
    pub code: &'static str,
    /// How many more there are than `findings` lists.
    pub count: u64,
}

impl Omitted<'_> {
    fn new(o: &validate::Omitted) -> Omitted<'static> {
        Omitted {
            shard: None,
            file: None,
            severity: o.code.severity().name(),
            code: o.code.id(),
            count: o.count,
        }
    }
}

/// The findings past the validator's cap: the report's `findings_omitted`, and what
/// `ggufscope validate --json` lists.
pub fn findings_omitted(omitted: &[validate::Omitted]) -> Vec<Omitted<'static>> {
    omitted.iter().map(Omitted::new).collect()
}

fn shard_omitted(model: &SplitModel) -> Vec<Omitted<'_>> {
    model
        .omitted()
        .iter()
        .map(|o| Omitted {
            shard: Some(o.shard),
            file: Some(&o.file),
            ..Omitted::new(&o.omitted)
        })
        .collect()
}

/// The shards of a split model.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Split<'a> {
    /// Shards the model has (`split.count`).
    pub count: u64,
    /// `split.tensors.count` of the first shard: the tensors of the whole model.
    pub tensors_count: Option<u64>,
    /// The shards read, in order.
    pub shards: Vec<Shard<'a>>,
    /// The shards not read.
    pub missing: Vec<MissingShard<'a>>,
    /// The files given that are not shards of this model.
    pub left_out: Vec<LeftOutFile<'a>>,
}

impl<'a> Split<'a> {
    fn new(model: &'a SplitModel) -> Split<'a> {
        Split {
            count: model.count(),
            tensors_count: model
                .shards()
                .first()
                .and_then(|s| s.header.metadata.get(keys::SPLIT_TENSORS_COUNT))
                .and_then(header::Value::as_u64),
            shards: model
                .shards()
                .iter()
                .map(|shard| {
                    let h = &shard.header;
                    Shard {
                        number: shard.number,
                        file: &shard.name,
                        file_size: h.file_len,
                        header_size: h.header_len,
                        data_offset: h.data_offset,
                        tensor_count: h.tensors.len() as u64,
                        kv_count: h.metadata.len() as u64,
                    }
                })
                .collect(),
            missing: model
                .missing()
                .iter()
                .map(|s| MissingShard {
                    number: s.number,
                    file: s.name.as_deref(),
                })
                .collect(),
            left_out: model
                .left_out()
                .iter()
                .map(|f| LeftOutFile {
                    file: &f.name,
                    file_size: f.header.file_len,
                })
                .collect(),
        }
    }
}

/// A shard read.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Shard<'a> {
    /// Its number, from 1 (`split.no` + 1).
    pub number: u64,
    /// Its file name.
    pub file: &'a str,
    /// Its size in bytes; null when unknown.
    pub file_size: Option<u64>,
    /// Bytes of its header.
    pub header_size: u64,
    /// Where its tensor data starts.
    pub data_offset: u64,
    /// Tensors in it.
    pub tensor_count: u64,
    /// Metadata pairs in it.
    pub kv_count: u64,
}

/// A shard not read.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct MissingShard<'a> {
    /// Its number, from 1.
    pub number: u64,
    /// The file name it would have; null when that cannot be named.
    pub file: Option<&'a str>,
}

/// A file given with the shards that is not one of this model's.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct LeftOutFile<'a> {
    /// Its file name.
    pub file: &'a str,
    /// Its size in bytes; null when unknown.
    pub file_size: Option<u64>,
}

/// What a tensor's values are (`ggufscope tensor --json`'s `stats`).
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TensorStats<'a> {
    /// Values read.
    pub count: u64,
    /// NaN values.
    pub nan: u64,
    /// +∞ values.
    pub pos_inf: u64,
    /// -∞ values.
    pub neg_inf: u64,
    /// Values equal to zero.
    pub zeros: u64,
    /// Whether every value read is zero.
    pub all_zero: bool,
    /// The smallest finite value.
    pub min: Option<Float>,
    /// The largest finite value.
    pub max: Option<Float>,
    /// The mean of the finite values.
    pub mean: Option<Float>,
    /// The variance of the finite values.
    pub variance: Option<Float>,
    /// The standard deviation of the finite values.
    pub std_dev: Option<Float>,
    /// The first values, in order.
    pub first: Vec<Float>,
    /// The finite values' histogram.
    pub histogram: Histogram<'a>,
}

/// Counts of values in equal bins from `min` to `max`.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Histogram<'a> {
    /// The low end of the first bin.
    pub min: Float,
    /// The high end of the last bin.
    pub max: Float,
    /// Values per bin.
    pub counts: &'a [u64],
}
