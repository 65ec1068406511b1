//! What a file holds beyond its kind, and what its model can do: a LoRA adapter's rank, alpha
//! and base model, an importance matrix's datasets and chunks, a projector's encoders, a control
//! vector's layers, and the capabilities ([`crate::capabilities`]) — the [`Description`] that
//! `ggufscope info` and the report give, and that the page asks the memory module for (feature
//! `describe`: the viewer's wasm module, held under 100 KB gzipped, goes without it).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::capabilities::{Found, capabilities, projector_capabilities};
use crate::header::{Header, Metadata, Value};
use crate::keys;
use crate::kind::{FileKind, lora_half, pairs};
use crate::sort::sort_by;

/// What a file is and can do.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Description {
    /// What the file is.
    pub kind: FileKind,
    /// What the model can do, each with where it was found.
    pub capabilities: Vec<Found>,
    /// The LoRA adapter, for a file of kind [`FileKind::Adapter`].
    pub adapter: Option<Adapter>,
    /// The importance matrix, for a file of kind [`FileKind::Imatrix`].
    pub imatrix: Option<Imatrix>,
    /// The projector's encoders, for a file of kind [`FileKind::Mmproj`].
    pub mmproj: Option<Mmproj>,
    /// The control vector, for a file of kind [`FileKind::ControlVector`].
    pub control_vector: Option<ControlVector>,
}

impl Description {
    /// The description of `header`'s file.
    pub fn of(header: &Header) -> Description {
        let kind = FileKind::of(header);
        Description {
            kind,
            capabilities: capabilities(header),
            adapter: (kind == FileKind::Adapter).then(|| Adapter::of(header)),
            imatrix: (kind == FileKind::Imatrix).then(|| Imatrix::of(header)),
            mmproj: (kind == FileKind::Mmproj).then(|| Mmproj::of(header)),
            control_vector: (kind == FileKind::ControlVector).then(|| ControlVector::of(header)),
        }
    }

    /// The description with what the multimodal projector `projector` (named `name`, found
    /// beside the model) lets the model do: see, hear. A projector that is not one adds nothing.
    pub fn with_projector(mut self, name: &str, projector: &Header) -> Description {
        for f in projector_capabilities(projector, name) {
            if !self.capabilities.iter().any(|c| c.capability == f.capability) {
                self.capabilities.push(f);
            }
        }
        sort_by(&mut self.capabilities, |a, b| a.capability.cmp(&b.capability));
        self
    }
}

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
            pairs: pairs
                .iter()
                .filter(|(_, a, b)| a.is_some() && b.is_some())
                .count() as u64,
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
        let Some(rest) = e
            .key
            .as_str()
            .and_then(|k| k.strip_prefix(keys::BASE_MODEL_PREFIX))
        else {
            continue;
        };
        let Some((n, field)) = rest.split_once('.') else {
            continue;
        };
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
        let Some((_, model)) = models.last_mut() else {
            continue;
        };
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
