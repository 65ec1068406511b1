//! What a GGUF file is — a model, its vocabulary alone, a LoRA adapter, an importance matrix, a
//! multimodal projector or a control vector: `general.type` where the file has one, else what
//! llama.cpp's writers leave: an architecture `clip` or `clip.*` keys (a projector),
//! `controlvector` (a control vector), `adapter.*` or `imatrix.*` keys, no tensors beside a
//! vocabulary. The validator checks each kind by it; `describe` (feature `describe`) gives each
//! kind's figures.

use alloc::vec::Vec;

use crate::header::{Header, Value};
use crate::keys;
use crate::sort::sort_by;

/// What a GGUF file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A model's weights.
    Model,
    /// A model's tokenizer and settings without its weights: no tensors (llama.cpp's
    /// `ggml-vocab-*.gguf`, `convert_hf_to_gguf.py --vocab-only`).
    VocabOnly,
    /// An adapter applied over a base model at load time (`general.type` `"adapter"`).
    Adapter,
    /// An importance matrix, which `llama-quantize --imatrix` reads (`general.type` `"imatrix"`).
    Imatrix,
    /// A multimodal projector: the image or audio encoder a model reads pictures or sound with
    /// (`general.type` `"mmproj"`, architecture `clip`).
    Mmproj,
    /// A control vector, which steers a model's hidden states (`llama-cvector-generator`).
    ControlVector,
}

impl FileKind {
    /// `"model"`, `"vocab-only"`, `"adapter"`, `"imatrix"`, `"mmproj"` or `"control-vector"`.
    pub fn id(self) -> &'static str {
        match self {
            FileKind::Model => "model",
            FileKind::VocabOnly => "vocab-only",
            FileKind::Adapter => "adapter",
            FileKind::Imatrix => "imatrix",
            FileKind::Mmproj => "mmproj",
            FileKind::ControlVector => "control-vector",
        }
    }

    /// The kind of `header`'s file.
    pub fn of(header: &Header) -> FileKind {
        let md = &header.metadata;
        match md.get(keys::GENERAL_TYPE).and_then(Value::as_str) {
            Some("adapter") => return FileKind::Adapter,
            Some("imatrix") => return FileKind::Imatrix,
            Some("mmproj") => return FileKind::Mmproj,
            _ => {}
        }
        let has_key = |prefix: &str| {
            md.entries()
                .iter()
                .any(|e| e.key.as_bytes().starts_with(prefix.as_bytes()))
        };
        match md.architecture() {
            Some("clip") => return FileKind::Mmproj,
            Some("controlvector") => return FileKind::ControlVector,
            _ => {}
        }
        if has_key(keys::CLIP_PREFIX) {
            FileKind::Mmproj
        } else if md.get(keys::ADAPTER_TYPE).is_some() {
            FileKind::Adapter
        } else if has_key("imatrix.") {
            FileKind::Imatrix
        } else if header.tensors.is_empty() && md.get(keys::TOKENS).is_some() {
            FileKind::VocabOnly
        } else {
            FileKind::Model
        }
    }
}

/// The values of `general.type` llama.cpp's writers use (gguf-py's `GGUFType`).
pub const GENERAL_TYPES: [&str; 4] = ["model", "adapter", "imatrix", "mmproj"];

/// A LoRA tensor's name split: the weight it changes and which half it is (`Some(true)` for
/// `lora_a`, `Some(false)` for `lora_b`); `None` for any other tensor.
pub(crate) fn lora_half(name: &[u8]) -> Option<(&[u8], bool)> {
    if let Some(base) = name.strip_suffix(b".lora_a") {
        Some((base, true))
    } else {
        name.strip_suffix(b".lora_b").map(|base| (base, false))
    }
}

/// One weight's two tensors, paired by name: the weight, and the indices of its first half
/// (`lora_a`, an importance matrix's sums) and its second (`lora_b`, the counts).
pub(crate) type Halves<'h> = (&'h [u8], Option<usize>, Option<usize>);

/// How a tensor's name says which weight it is half of: the weight, and whether the first half.
pub(crate) type Half = fn(&[u8]) -> Option<(&[u8], bool)>;

/// The tensors `half` names a half of (the weight, and whether the first half), paired by
/// weight, in name order; a half given twice counts once, the last (as llama.cpp keeps it).
pub(crate) fn pairs(header: &Header, half: Half) -> Vec<Halves<'_>> {
    let mut halves: Vec<(&[u8], bool, usize)> = header
        .tensors
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let (weight, first) = half(t.name.as_bytes())?;
            Some((weight, first, i))
        })
        .collect();
    sort_by(&mut halves, |x, y| x.0.cmp(y.0).then(x.2.cmp(&y.2)));
    let mut pairs: Vec<Halves<'_>> = Vec::new();
    for (weight, first, i) in halves {
        match pairs.last_mut() {
            Some(pair) if pair.0 == weight => {}
            _ => pairs.push((weight, None, None)),
        }
        if let Some(pair) = pairs.last_mut() {
            *(if first { &mut pair.1 } else { &mut pair.2 }) = Some(i);
        }
    }
    pairs
}
