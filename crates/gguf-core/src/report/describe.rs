//! The report's view of what a file holds beyond its kind (an adapter's, an importance
//! matrix's, a projector's or a control vector's figures) and of what its model can do
//! (`capabilities`): [`crate::describe::Description`] as `ggufscope info --json` gives it, and
//! as the memory module's `describe()` gives it the page ([`DescriptionDocument`]).

use alloc::vec::Vec;

use serde::Serialize;

use super::Float;
use crate::capabilities::Found;
use crate::describe::{self as kind, Description};

#[cfg(feature = "schema")]
use schemars::JsonSchema;

/// The report's fields of a [`Description`], in the report itself (`info --json`).
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct DescriptionFields<'a> {
    /// What the model can do, each with where the header says so, in this order: chat, tools,
    /// thinking, fill-in-middle, embedding, reranking, vision, audio, adapter.
    pub capabilities: Vec<Capability<'a>>,
    /// The LoRA adapter; null unless `kind` is `"adapter"`.
    pub adapter: Option<Adapter<'a>>,
    /// The importance matrix; null unless `kind` is `"imatrix"`.
    pub imatrix: Option<Imatrix<'a>>,
    /// The projector's encoders; null unless `kind` is `"mmproj"`.
    pub mmproj: Option<Mmproj<'a>>,
    /// The control vector; null unless `kind` is `"control-vector"`.
    pub control_vector: Option<ControlVector<'a>>,
}

impl<'a> DescriptionFields<'a> {
    /// The view of `d`.
    pub fn new(d: &'a Description) -> DescriptionFields<'a> {
        DescriptionFields {
            capabilities: d.capabilities.iter().map(Capability::new).collect(),
            adapter: d.adapter.as_ref().map(Adapter::new),
            imatrix: d.imatrix.as_ref().map(Imatrix::new),
            mmproj: d.mmproj.as_ref().map(Mmproj::new),
            control_vector: d.control_vector.as_ref().map(ControlVector::new),
        }
    }
}

/// What the memory module's `describe()` gives the page: the report's `kind`, `capabilities`,
/// `adapter`, `imatrix`, `mmproj` and `control_vector`, to the field.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct DescriptionDocument<'a> {
    /// The report's `kind`.
    pub kind: &'static str,
    /// The report's other fields of the description.
    #[serde(flatten)]
    pub fields: DescriptionFields<'a>,
}

impl<'a> DescriptionDocument<'a> {
    /// The document of `d`.
    pub fn new(d: &'a Description) -> DescriptionDocument<'a> {
        DescriptionDocument {
            kind: d.kind.id(),
            fields: DescriptionFields::new(d),
        }
    }
}

/// A LoRA adapter (`kind` `"adapter"`).
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Adapter<'a> {
    /// `adapter.type`: `"lora"` for every adapter llama.cpp loads.
    #[serde(rename = "type")]
    pub ty: Option<&'a str>,
    /// `adapter.lora.alpha`.
    pub alpha: Option<Float>,
    /// The rank of its `lora_a`/`lora_b` pairs; null when they differ (see `ranks`).
    pub rank: Option<u64>,
    /// Every rank its pairs have, smallest first.
    pub ranks: &'a [u64],
    /// What llama.cpp multiplies the adapter's change by: alpha / rank, 1 without an alpha
    /// (`--lora-scaled` scales it further); null when the ranks differ.
    pub scale: Option<Float>,
    /// `lora_a`/`lora_b` pairs: the weight matrices it changes.
    pub pairs: u64,
    /// The kinds of matrix it changes (`attn_q`, `ffn_up`, `token_embd`…), in file order.
    pub targets: &'a [alloc::string::String],
    /// Layers (`blk.N`) it changes.
    pub layers: u64,
    /// `adapter.lora.task_name`.
    pub task_name: Option<&'a str>,
    /// Tokens of `adapter.alora.invocation_tokens`: an activated LoRA, on from these tokens.
    pub invocation_tokens: Option<u64>,
    /// The models it was trained over (`general.base_model.N.*`).
    pub base_models: Vec<BaseModel<'a>>,
}

impl<'a> Adapter<'a> {
    /// The view of the summary's adapter.
    pub fn new(a: &'a kind::Adapter) -> Adapter<'a> {
        Adapter {
            ty: a.adapter_type.as_deref(),
            alpha: a.alpha.map(|v| Float(v.into())),
            rank: a.rank(),
            ranks: &a.ranks,
            scale: a.scale().map(|v| Float(v.into())),
            pairs: a.pairs,
            targets: &a.targets,
            layers: a.layers,
            task_name: a.task_name.as_deref(),
            invocation_tokens: a.invocation_tokens,
            base_models: a
                .base_models
                .iter()
                .map(|b| BaseModel {
                    name: b.name.as_deref(),
                    organization: b.organization.as_deref(),
                    version: b.version.as_deref(),
                    repo_url: b.repo_url.as_deref(),
                })
                .collect(),
        }
    }
}

/// A model another was derived from.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct BaseModel<'a> {
    /// `general.base_model.N.name`.
    pub name: Option<&'a str>,
    /// `general.base_model.N.organization`.
    pub organization: Option<&'a str>,
    /// `general.base_model.N.version`.
    pub version: Option<&'a str>,
    /// `general.base_model.N.repo_url`.
    pub repo_url: Option<&'a str>,
}

/// An importance matrix (`kind` `"imatrix"`).
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Imatrix<'a> {
    /// `imatrix.datasets`: the texts it was computed on.
    pub datasets: &'a [alloc::string::String],
    /// `imatrix.chunk_count`: chunks of text it was computed over.
    pub chunk_count: Option<u64>,
    /// `imatrix.chunk_size`: tokens per chunk.
    pub chunk_size: Option<u64>,
    /// Weight matrices it has statistics for (its `NAME.in_sum2` tensors).
    pub entries: u64,
}

impl<'a> Imatrix<'a> {
    /// The view of the summary's importance matrix.
    pub fn new(m: &'a kind::Imatrix) -> Imatrix<'a> {
        Imatrix {
            datasets: &m.datasets,
            chunk_count: m.chunk_count,
            chunk_size: m.chunk_size,
            entries: m.entries,
        }
    }
}

/// A multimodal projector (`kind` `"mmproj"`).
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Mmproj<'a> {
    /// `clip.projector_type`, e.g. `"gemma3"`.
    pub projector_type: Option<&'a str>,
    /// The image encoder (`clip.vision.*`); null when there is none.
    pub vision: Option<Encoder<'a>>,
    /// The audio encoder (`clip.audio.*`); null when there is none.
    pub audio: Option<Encoder<'a>>,
}

impl<'a> Mmproj<'a> {
    /// The view of the summary's projector.
    pub fn new(p: &'a kind::Mmproj) -> Mmproj<'a> {
        Mmproj {
            projector_type: p.projector_type.as_deref(),
            vision: p.vision.as_ref().map(Encoder::new),
            audio: p.audio.as_ref().map(Encoder::new),
        }
    }
}

/// A projector's image or audio encoder (`clip.vision.*`, `clip.audio.*`).
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Encoder<'a> {
    /// `.projector_type`, for a file with both encoders.
    pub projector_type: Option<&'a str>,
    /// `.embedding_length`: the encoder's width.
    pub embedding_length: Option<u64>,
    /// `.feed_forward_length`.
    pub feed_forward_length: Option<u64>,
    /// `.block_count`: its layers.
    pub block_count: Option<u64>,
    /// `.attention.head_count`.
    pub head_count: Option<u64>,
    /// `.projection_dim`: the width it hands the language model.
    pub projection_dim: Option<u64>,
    /// `clip.vision.image_size`: pixels on a side of the image it sees; null for audio.
    pub image_size: Option<u64>,
    /// `clip.vision.patch_size`: pixels on a side of a patch; null for audio.
    pub patch_size: Option<u64>,
    /// `clip.audio.num_mel_bins`; null for images.
    pub num_mel_bins: Option<u64>,
}

impl<'a> Encoder<'a> {
    fn new(e: &'a kind::Encoder) -> Encoder<'a> {
        Encoder {
            projector_type: e.projector_type.as_deref(),
            embedding_length: e.embedding_length,
            feed_forward_length: e.feed_forward_length,
            block_count: e.block_count,
            head_count: e.head_count,
            projection_dim: e.projection_dim,
            image_size: e.image_size,
            patch_size: e.patch_size,
            num_mel_bins: e.num_mel_bins,
        }
    }
}

/// A control vector (`kind` `"control-vector"`).
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ControlVector<'a> {
    /// `controlvector.model_hint`: the architecture it was made for.
    pub model_hint: Option<&'a str>,
    /// `controlvector.layer_count`.
    pub layer_count: Option<u64>,
    /// Its direction tensors (`direction.N`), one per layer it steers.
    pub directions: u64,
}

impl<'a> ControlVector<'a> {
    /// The view of the summary's control vector.
    pub fn new(c: &'a kind::ControlVector) -> ControlVector<'a> {
        ControlVector {
            model_hint: c.model_hint.as_deref(),
            layer_count: c.layer_count,
            directions: c.directions,
        }
    }
}

/// Something the model can do, and where the header says so.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Capability<'a> {
    /// `"chat"` (a chat template), `"tools"` (a template reads `tools`), `"thinking"` (a
    /// template reads a reasoning switch or writes thinking tags), `"fill-in-middle"` (prefix,
    /// suffix and middle tokens), `"embedding"` (a pooling type, or attention both ways),
    /// `"reranking"` (rank pooling or a classifier head), `"vision"`, `"audio"` (a projector's
    /// encoders) or `"adapter"` (a LoRA adapter).
    pub name: &'static str,
    /// The key, template or tensor it was drawn from, e.g. `"tokenizer.chat_template"`.
    pub source: &'a str,
    /// What there says so, in words (its wording may change).
    pub evidence: &'a str,
}

impl<'a> Capability<'a> {
    /// The view of a capability found.
    pub fn new(f: &'a Found) -> Capability<'a> {
        Capability {
            name: f.capability.id(),
            source: &f.source,
            evidence: &f.evidence,
        }
    }
}
