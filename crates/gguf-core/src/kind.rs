//! What a GGUF file is — a model, its vocabulary alone, a LoRA adapter, an importance matrix, a
//! multimodal projector or a control vector — and the figures each kind is described by. The
//! kind is `general.type` where the file has one, else what llama.cpp's writers leave: an
//! architecture `clip` or `clip.*` keys (a projector), `controlvector` (a control vector),
//! `adapter.*` or `imatrix.*` keys, no tensors beside a vocabulary.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::header::{Header, Metadata, Value};
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

/// A LoRA adapter: what it changes and how strongly.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Adapter {
    /// `adapter.type`: `"lora"` for every adapter llama.cpp loads.
    pub adapter_type: Option<String>,
    /// `adapter.lora.alpha`, a FLOAT32 as llama.cpp reads it.
    pub alpha: Option<f32>,
    /// The ranks of its `lora_a`/`lora_b` pairs (`lora_b`'s first dimension, as llama.cpp
    /// reads it), each once, smallest first: one value for most adapters.
    pub ranks: Vec<u64>,
    /// `lora_a`/`lora_b` pairs: the weight matrices it changes.
    pub pairs: u64,
    /// The kinds of matrix it changes (`attn_q`, `ffn_up`, `token_embd`…), in file order.
    pub targets: Vec<String>,
    /// Layers (`blk.N`) it changes.
    pub layers: u64,
    /// `adapter.lora.task_name`.
    pub task_name: Option<String>,
    /// Tokens of `adapter.alora.invocation_tokens`: an activated LoRA, on from these tokens.
    pub invocation_tokens: Option<u64>,
    /// The models it was trained over (`general.base_model.N.*`), in order.
    pub base_models: Vec<BaseModel>,
}

impl Adapter {
    /// The one rank when every pair has it.
    pub fn rank(&self) -> Option<u64> {
        match self.ranks[..] {
            [rank] => Some(rank),
            _ => None,
        }
    }

    /// How much llama.cpp scales the adapter's product by, in f32 as it does: alpha / rank, or 1
    /// without an alpha (`--lora-scaled` multiplies it); `None` when the ranks differ (it is then
    /// per pair).
    pub fn scale(&self) -> Option<f32> {
        match (self.alpha.filter(|&a| a != 0.0), self.rank()) {
            (None, _) => Some(1.0),
            (Some(alpha), Some(rank)) if rank > 0 => Some(alpha / rank as f32),
            _ => None,
        }
    }
}

/// A model another was derived from: `general.base_model.N.*`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct BaseModel {
    /// `.name`.
    pub name: Option<String>,
    /// `.organization`.
    pub organization: Option<String>,
    /// `.version`.
    pub version: Option<String>,
    /// `.repo_url`.
    pub repo_url: Option<String>,
}

/// An importance matrix: how it was computed and what it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Imatrix {
    /// `imatrix.datasets`: the texts it was computed on.
    pub datasets: Vec<String>,
    /// `imatrix.chunk_count`.
    pub chunk_count: Option<u64>,
    /// `imatrix.chunk_size`: tokens per chunk.
    pub chunk_size: Option<u64>,
    /// Weight matrices it has statistics for (`NAME.in_sum2` tensors).
    pub entries: u64,
}

/// A multimodal projector's encoders.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Mmproj {
    /// `clip.projector_type`, e.g. `"gemma3"`.
    pub projector_type: Option<String>,
    /// The image encoder (`clip.vision.*`).
    pub vision: Option<Encoder>,
    /// The audio encoder (`clip.audio.*`).
    pub audio: Option<Encoder>,
}

/// The shape of a projector's image or audio encoder.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Encoder {
    /// `clip.{vision,audio}.projector_type`, for files with both encoders.
    pub projector_type: Option<String>,
    /// `.embedding_length`: the encoder's width.
    pub embedding_length: Option<u64>,
    /// `.feed_forward_length`.
    pub feed_forward_length: Option<u64>,
    /// `.block_count`: its layers.
    pub block_count: Option<u64>,
    /// `.attention.head_count`.
    pub head_count: Option<u64>,
    /// `.projection_dim`: the width it hands the language model (that model's embedding length).
    pub projection_dim: Option<u64>,
    /// `clip.vision.image_size`: pixels on a side of the image it sees.
    pub image_size: Option<u64>,
    /// `clip.vision.patch_size`: pixels on a side of a patch.
    pub patch_size: Option<u64>,
    /// `clip.audio.num_mel_bins`.
    pub num_mel_bins: Option<u64>,
}

/// A control vector.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ControlVector {
    /// `controlvector.model_hint`: the architecture it was made for.
    pub model_hint: Option<String>,
    /// `controlvector.layer_count`.
    pub layer_count: Option<u64>,
    /// Its direction tensors (`direction.N`), one per layer steered.
    pub directions: u64,
}

fn text(md: &Metadata, key: &str) -> Option<String> {
    md.get(key).and_then(Value::as_str).map(ToString::to_string)
}

fn number(md: &Metadata, key: &str) -> Option<u64> {
    md.get(key).and_then(Value::as_u64)
}

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

/// The tensors `half` names a half of (the weight, and whether the first half), paired by
/// weight, in name order; a half given twice counts once, the last (as llama.cpp keeps it).
pub(crate) fn pairs<'h>(header: &'h Header, half: fn(&[u8]) -> Option<(&[u8], bool)>) -> Vec<Halves<'h>> {
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
    let mut pairs: Vec<Halves<'h>> = Vec::new();
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

/// `blk.N.attn_q.weight` → `attn_q`; `token_embd.weight` → `token_embd`.
fn target_of(weight: &[u8]) -> &[u8] {
    let name = match keys::layer_of(weight) {
        Some(_) => weight.splitn(3, |&b| b == b'.').nth(2).unwrap_or(weight),
        None => weight,
    };
    name.strip_suffix(b".weight").unwrap_or(name)
}

impl Adapter {
    /// The adapter `header` describes.
    pub fn of(header: &Header) -> Adapter {
        let md = &header.metadata;
        let mut ranks: Vec<u64> = Vec::new();
        let mut targets: Vec<String> = Vec::new();
        let mut layers: Vec<u64> = Vec::new();
        let pairs = pairs(header, lora_half);
        for &(weight, a, b) in &pairs {
            let (Some(_), Some(b)) = (a, b) else { continue };
            if let Some(&rank) = header.tensors[b].dims.first() {
                if let Err(at) = ranks.binary_search(&rank) {
                    ranks.insert(at, rank);
                }
            }
            if let Some(layer) = keys::layer_of(weight) {
                if let Err(at) = layers.binary_search(&layer) {
                    layers.insert(at, layer);
                }
            }
        }
        // Targets in file order, which follows the model's layout.
        for t in &header.tensors {
            if let Some((weight, _)) = lora_half(t.name.as_bytes()) {
                let target = crate::text::lossy(target_of(weight));
                if !targets.iter().any(|t| *t == target) {
                    targets.push(target.into_owned());
                }
            }
        }
        Adapter {
            adapter_type: text(md, keys::ADAPTER_TYPE),
            alpha: match md.get(keys::ADAPTER_LORA_ALPHA) {
                Some(&Value::F32(alpha)) => Some(alpha),
                other => other.and_then(Value::as_f64).map(|a| a as f32),
            },
            ranks,
            pairs: pairs.iter().filter(|(_, a, b)| a.is_some() && b.is_some()).count() as u64,
            targets,
            layers: layers.len() as u64,
            task_name: text(md, keys::ADAPTER_LORA_TASK_NAME),
            invocation_tokens: md
                .get(keys::ADAPTER_ALORA_INVOCATION_TOKENS)
                .and_then(Value::as_array)
                .map(|a| a.len() as u64),
            base_models: base_models(md),
        }
    }
}

/// `general.base_model.N.{name,organization,version,repo_url}`, by `N`.
fn base_models(md: &Metadata) -> Vec<BaseModel> {
    let mut fields: Vec<(u64, usize, &str, &str)> = Vec::new();
    for (i, e) in md.entries().iter().enumerate() {
        let Some(rest) = e.key.as_str().and_then(|k| k.strip_prefix(keys::BASE_MODEL_PREFIX)) else {
            continue;
        };
        let Some((n, field)) = rest.split_once('.') else { continue };
        if let (Ok(n), Some(value)) = (n.parse::<u64>(), e.value.as_str()) {
            fields.push((n, i, field, value));
        }
    }
    // By N, then in file order: the first of a field given twice is kept.
    sort_by(&mut fields, |x, y| (x.0, x.1).cmp(&(y.0, y.1)));
    let mut models: Vec<(u64, BaseModel)> = Vec::new();
    for (n, _, field, value) in fields {
        match models.last_mut() {
            Some((m, _)) if *m == n => {}
            _ => models.push((n, BaseModel::default())),
        }
        let Some((_, model)) = models.last_mut() else { continue };
        let slot = match field {
            "name" => &mut model.name,
            "organization" => &mut model.organization,
            "version" => &mut model.version,
            "repo_url" => &mut model.repo_url,
            _ => continue,
        };
        slot.get_or_insert_with(|| value.to_string());
    }
    models.into_iter().map(|(_, model)| model).collect()
}

impl Imatrix {
    /// The importance matrix `header` describes.
    pub fn of(header: &Header) -> Imatrix {
        let md = &header.metadata;
        let datasets = md
            .get(keys::IMATRIX_DATASETS)
            .and_then(Value::as_array)
            .and_then(|a| a.as_strings())
            .map(|s| s.iter().map(|d| crate::text::lossy(d).into_owned()).collect())
            .unwrap_or_default();
        Imatrix {
            datasets,
            chunk_count: number(md, keys::IMATRIX_CHUNK_COUNT),
            chunk_size: number(md, keys::IMATRIX_CHUNK_SIZE),
            entries: header
                .tensors
                .iter()
                .filter(|t| t.name.as_bytes().ends_with(b".in_sum2"))
                .count() as u64,
        }
    }
}

impl Mmproj {
    /// The projector `header` describes.
    pub fn of(header: &Header) -> Mmproj {
        let md = &header.metadata;
        Mmproj {
            projector_type: text(md, keys::CLIP_PROJECTOR_TYPE),
            vision: Encoder::of(md, "vision"),
            audio: Encoder::of(md, "audio"),
        }
    }
}

impl Encoder {
    /// The `clip.{modality}.*` encoder: there when its `clip.has_{modality}_encoder` flag is set,
    /// or, without one, when it has keys.
    fn of(md: &Metadata, modality: &str) -> Option<Encoder> {
        let prefix = alloc::format!("clip.{modality}.");
        let key = |suffix: &str| alloc::format!("{prefix}{suffix}");
        let flag = md.get(&alloc::format!("clip.has_{modality}_encoder"));
        let has_keys = md
            .entries()
            .iter()
            .any(|e| e.key.as_bytes().starts_with(prefix.as_bytes()));
        match flag {
            Some(Value::Bool(true)) => {}
            None if has_keys => {}
            _ => return None,
        }
        let n = |suffix: &str| number(md, &key(suffix));
        Some(Encoder {
            projector_type: text(md, &key("projector_type")),
            embedding_length: n("embedding_length"),
            feed_forward_length: n("feed_forward_length"),
            block_count: n("block_count"),
            head_count: n("attention.head_count"),
            projection_dim: n("projection_dim"),
            image_size: n("image_size"),
            patch_size: n("patch_size"),
            num_mel_bins: n("num_mel_bins"),
        })
    }
}

impl ControlVector {
    /// The control vector `header` describes.
    pub fn of(header: &Header) -> ControlVector {
        let md = &header.metadata;
        ControlVector {
            model_hint: text(md, keys::CONTROL_VECTOR_MODEL_HINT),
            layer_count: number(md, keys::CONTROL_VECTOR_LAYER_COUNT),
            directions: header
                .tensors
                .iter()
                .filter(|t| t.name.as_bytes().starts_with(b"direction."))
                .count() as u64,
        }
    }
}
