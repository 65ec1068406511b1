//! [`SummaryJson`]: what the page's summary cards show, sent before the report so that they
//! paint first. Its fields are the report's, with the same names and values (the tests compare
//! them), made from one file's header alone: no validator checks, no metadata, no tensor list,
//! so a 262,144-token vocabulary costs it nothing and nothing proportional to it crosses.

use gguf_core::layout::FileLayout;
use gguf_core::report::Float;
use gguf_core::{FileType, Header, Summary, TypeShare, keys};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// The summary document of a file that is not a shard of a split model (a split model's figures
/// are those of the whole, which the report gives).
#[derive(Serialize)]
pub(crate) struct SummaryJson<'a> {
    version: u32,
    endianness: &'static str,
    tensor_count: u64,
    kv_count: u64,
    alignment: u32,
    header_size: u64,
    data_offset: u64,
    file_size: Option<u64>,
    architecture: &'a Option<String>,
    name: &'a Option<String>,
    size_label: &'a Option<String>,
    file_type: Option<FileTypeJson>,
    parameters: Option<u64>,
    active_parameters: Option<u64>,
    tensor_bytes: u64,
    bits_per_weight: Option<f64>,
    vocab_size: Option<u64>,
    context_length: Option<u64>,
    block_count: Option<u64>,
    embedding_length: Option<u64>,
    feed_forward_length: Option<u64>,
    tokenizer_model: &'a Option<String>,
    tokenizer_pre: &'a Option<String>,
    attention: AttentionJson<'a>,
    experts: Option<ExpertsJson>,
    rope: RopeJson,
    tensor_types: TensorTypes<'a>,
    layout: LayoutJson,
}

#[derive(Serialize)]
struct FileTypeJson {
    id: u32,
    name: Option<&'static str>,
    label: Option<&'static str>,
}

#[derive(Serialize)]
struct AttentionJson<'a> {
    kind: &'static str,
    heads: Option<u64>,
    kv_heads: Option<u64>,
    group_size: Option<u64>,
    heads_per_layer: &'a Option<Vec<u64>>,
    kv_heads_per_layer: &'a Option<Vec<u64>>,
    key_length: Option<u64>,
    value_length: Option<u64>,
    sliding_window: Option<u64>,
    kv_lora_rank: Option<u64>,
}

#[derive(Serialize)]
struct ExpertsJson {
    count: u64,
    used: Option<u64>,
    shared: Option<u64>,
}

#[derive(Serialize)]
struct RopeJson {
    freq_base: Option<Float>,
}

/// `{type: tensors}`, most bytes first.
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

/// The report's `layout` without its `layers`: the truncation banner's figures.
#[derive(Serialize)]
struct LayoutJson {
    files: [FileLayoutJson; 1],
}

#[derive(Serialize)]
struct FileLayoutJson {
    shard: Option<u64>,
    file_size: Option<u64>,
    regions: Vec<RegionJson>,
}

#[derive(Serialize)]
struct RegionJson {
    kind: &'static str,
    start: u64,
    end: u64,
}

impl<'a> SummaryJson<'a> {
    /// The summary of `header` (with `summary`, its [`Header::summary`]); `None` for a shard of
    /// a split model.
    pub(crate) fn new(header: &'a Header, summary: &'a Summary) -> Option<SummaryJson<'a>> {
        let split_keys = [keys::SPLIT_NO, keys::SPLIT_COUNT, keys::SPLIT_TENSORS_COUNT];
        if split_keys
            .iter()
            .any(|key| header.metadata.get(key).and_then(|v| v.as_u64()).is_some())
        {
            return None;
        }
        let (s, a, layout) = (
            summary,
            &summary.attention,
            FileLayout::of(header, header.file_len),
        );
        Some(SummaryJson {
            version: header.version,
            endianness: header.endian.name(),
            tensor_count: header.tensors.len() as u64,
            kv_count: header.metadata.len() as u64,
            alignment: header.alignment,
            header_size: header.header_len,
            data_offset: header.data_offset,
            file_size: header.file_len,
            architecture: &s.architecture,
            name: &s.name,
            size_label: &s.size_label,
            file_type: s.file_type.map(|t: FileType| FileTypeJson {
                id: t.0,
                name: t.name(),
                label: t.label(),
            }),
            parameters: s.parameters,
            active_parameters: s.active_parameters,
            tensor_bytes: s.tensor_bytes,
            bits_per_weight: s.bits_per_weight,
            vocab_size: s.vocab_size,
            context_length: s.context_length,
            block_count: s.block_count,
            embedding_length: s.embedding_length,
            feed_forward_length: s.feed_forward_length,
            tokenizer_model: &s.tokenizer_model,
            tokenizer_pre: &s.tokenizer_pre,
            attention: AttentionJson {
                kind: a.kind.name(),
                heads: a.heads,
                kv_heads: a.kv_heads,
                group_size: a.group_size,
                heads_per_layer: &a.heads_per_layer,
                kv_heads_per_layer: &a.kv_heads_per_layer,
                key_length: a.key_length,
                value_length: a.value_length,
                sliding_window: a.sliding_window,
                kv_lora_rank: a.kv_lora_rank,
            },
            experts: s.experts.map(|e| ExpertsJson {
                count: e.count,
                used: e.used,
                shared: e.shared,
            }),
            rope: RopeJson {
                freq_base: s.rope.freq_base.map(Float),
            },
            tensor_types: TensorTypes(&s.types),
            layout: LayoutJson {
                files: [FileLayoutJson {
                    shard: None,
                    file_size: layout.file_len,
                    regions: layout
                        .regions
                        .iter()
                        .map(|r| RegionJson {
                            kind: r.kind.name(),
                            start: r.span.start,
                            end: r.span.end,
                        })
                        .collect(),
                }],
            },
        })
    }
}
