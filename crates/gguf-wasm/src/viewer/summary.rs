//! [`SummaryJson`]: what the page's summary cards show, sent before the report so that they
//! paint first. Its fields are the report's, with the same names and values (the tests compare
//! them), made from one file's header alone: no validator checks, no metadata, no tensor list,
//! so a 262,144-token vocabulary costs it nothing and nothing proportional to it crosses.

use gguf_core::report::Map;
use gguf_core::report::view::{
    Attention, DominantTensor, FileLayout, FileType, Rope, dominant_tensors, tensor_types,
};
use gguf_core::split::is_shard;
use gguf_core::{Experts, Header, Summary};
use serde::Serialize;

/// The summary document of a file that is not a shard of a split model (a split model's figures
/// are those of the whole, which the report gives). Its parts are the report's own views.
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
    kind: &'static str,
    architecture: Option<&'a str>,
    name: Option<&'a str>,
    size_label: Option<&'a str>,
    file_type: Option<FileType>,
    parameters: Option<u64>,
    active_parameters: Option<u64>,
    tensor_bytes: u64,
    bits_per_weight: Option<f64>,
    vocab_size: Option<u64>,
    context_length: Option<u64>,
    block_count: Option<u64>,
    embedding_length: Option<u64>,
    feed_forward_length: Option<u64>,
    tokenizer_model: Option<&'a str>,
    tokenizer_pre: Option<&'a str>,
    attention: Attention<'a>,
    experts: Option<&'a Experts>,
    rope: Rope<'a>,
    tensor_types: Map<String, u64>,
    dominant_tensors: Vec<DominantTensor<'a>>,
    layout: LayoutJson,
}

/// The report's `layout` without its `layers`: the truncation banner's figures.
#[derive(Serialize)]
struct LayoutJson {
    files: Vec<FileLayout>,
}

impl<'a> SummaryJson<'a> {
    /// The summary of `header` (with `summary`, its [`Header::summary`]); `None` for a shard of
    /// a split model.
    pub(crate) fn new(header: &'a Header, summary: &'a Summary) -> Option<SummaryJson<'a>> {
        if is_shard(header) {
            return None;
        }
        let s = summary;
        Some(SummaryJson {
            version: header.version,
            endianness: header.endian.name(),
            tensor_count: header.tensors.len() as u64,
            kv_count: header.metadata.len() as u64,
            alignment: header.alignment,
            header_size: header.header_len,
            data_offset: header.data_offset,
            file_size: header.file_len,
            kind: s.kind.id(),
            architecture: s.architecture.as_deref(),
            name: s.name.as_deref(),
            size_label: s.size_label.as_deref(),
            file_type: s.file_type.map(FileType::new),
            parameters: s.parameters,
            active_parameters: s.active_parameters,
            tensor_bytes: s.tensor_bytes,
            bits_per_weight: s.bits_per_weight,
            vocab_size: s.vocab_size,
            context_length: s.context_length,
            block_count: s.block_count,
            embedding_length: s.embedding_length,
            feed_forward_length: s.feed_forward_length,
            tokenizer_model: s.tokenizer_model.as_deref(),
            tokenizer_pre: s.tokenizer_pre.as_deref(),
            attention: Attention::new(&s.attention),
            experts: s.experts.as_ref(),
            rope: Rope::new(&s.rope),
            tensor_types: tensor_types(&s.types),
            dominant_tensors: dominant_tensors(header, s),
            layout: LayoutJson {
                files: vec![FileLayout::new(header, None)],
            },
        })
    }
}
