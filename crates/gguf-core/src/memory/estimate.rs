//! [`buffers`]: every buffer llama.cpp allocates for a model and a set of options.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::compute::compute_bytes;
use super::context::Context;
use super::hparams::{HParams, MAX_LAYERS, MemoryKind};
use super::kv_cache::{KvGroup, kv_groups};
use super::model_buffer::model_bytes;
use super::options::{CacheType, MAX_SEQUENCES, Options};
use super::output::output_bytes;
use super::recurrent::{RecurrentState, recurrent_state};
use crate::header::Header;
use crate::text::Excerpt;

/// A figure the header does not fix: its most likely value and the bounds it lies within.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Range {
    /// The figure llama.cpp's CPU build gives here.
    pub bytes: u64,
    /// The least it can be.
    pub low: u64,
    /// The most it can be.
    pub high: u64,
}

impl Range {
    /// A figure without uncertainty.
    pub fn exact(bytes: u64) -> Range {
        Range {
            bytes,
            low: bytes,
            high: bytes,
        }
    }
}

/// What llama.cpp allocates, buffer by buffer, in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Buffers {
    /// What the buffers were sized for.
    pub context: Context,
    /// How the model keeps its past.
    pub kind: MemoryKind,
    /// The weights: the memory-mapped range of the file's tensor data; more where the CPU
    /// repacks some (`CPU_REPACK`, up to every matrix of a type it repacks), which depends on the
    /// CPU's instruction set, not the file.
    pub model: Range,
    /// The KV caches: the global one, then the sliding-window one.
    pub kv: Vec<KvGroup>,
    /// The recurrent state, for SSM, RWKV and hybrid models.
    pub recurrent: Option<RecurrentState>,
    /// The output buffer (logits).
    pub output: u64,
    /// The compute buffer: the graph's intermediate tensors for one physical batch, as ggml's
    /// allocator packs them; the range is where the allocator's placement can take it.
    pub compute: Range,
}

impl Buffers {
    /// K, all groups.
    pub fn kv_k(&self) -> u64 {
        self.kv.iter().map(|g| g.k_bytes).sum()
    }

    /// V, all groups.
    pub fn kv_v(&self) -> u64 {
        self.kv.iter().map(|g| g.v_bytes).sum()
    }

    /// K and V, all groups.
    pub fn kv_cache(&self) -> u64 {
        self.kv_k() + self.kv_v()
    }

    /// The recurrent state's bytes (0 without one).
    pub fn recurrent_bytes(&self) -> u64 {
        self.recurrent.as_ref().map_or(0, RecurrentState::bytes)
    }

    /// Everything but the weights: what the context adds.
    pub fn context_bytes(&self) -> Range {
        let fixed = self.kv_cache() + self.recurrent_bytes() + self.output;
        Range {
            bytes: fixed + self.compute.bytes,
            low: fixed + self.compute.low,
            high: fixed + self.compute.high,
        }
    }

    /// All buffers.
    pub fn total(&self) -> Range {
        let c = self.context_bytes();
        Range {
            bytes: self.model.bytes + c.bytes,
            low: self.model.low + c.low,
            high: self.model.high + c.high,
        }
    }
}

/// Why llama.cpp would not load the model with these options, or the figures cannot be had.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MemoryError {
    /// No `general.architecture`.
    NoArchitecture,
    /// No `{arch}.block_count`.
    NoLayers,
    /// `{arch}.block_count` is 0 or above llama.cpp's [`MAX_LAYERS`].
    TooManyLayers {
        /// What the header claims.
        layers: u64,
    },
    /// No `{arch}.context_length`.
    NoContextLength,
    /// No `{arch}.embedding_length`.
    NoEmbedding,
    /// A per-layer array is shorter than the layer count.
    ShortLayerArray {
        /// The key, without the architecture prefix.
        key: &'static str,
    },
    /// Sequences must be 1 to [`MAX_SEQUENCES`].
    Sequences {
        /// What was asked for.
        n_seq: u64,
    },
    /// A batch of 0 tokens.
    ZeroBatch,
    /// A quantized V cache needs flash attention (llama.cpp refuses it with `-fa off`).
    QuantizedVNeedsFlashAttention,
    /// Multi-head latent attention keeps V in K's cache: llama.cpp refuses K and V types apart.
    MlaCacheTypes,
    /// A quantized cache type needs rows of whole 32-value blocks.
    PartialBlock {
        /// The type.
        cache_type: CacheType,
        /// Values in a row.
        values: u64,
    },
    /// A figure overflows.
    Overflow,
    /// llama.cpp 0c1e570 does not know the architecture: it refuses the model.
    UnknownArchitecture {
        /// `general.architecture`.
        architecture: String,
    },
    /// llama.cpp refuses to run the model on its own.
    Refused {
        /// llama.cpp's words.
        reason: &'static str,
    },
    /// llama.cpp runs the model, but sizes its memory by rules ggufscope does not follow.
    NotSized {
        /// `general.architecture`.
        architecture: String,
        /// Why.
        reason: &'static str,
    },
}

impl fmt::Display for MemoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemoryError::NoArchitecture => f.write_str("the model has no general.architecture"),
            MemoryError::NoLayers => f.write_str("the model has no block_count"),
            MemoryError::TooManyLayers { layers } => {
                write!(f, "block_count {layers} is not within llama.cpp's 1 to {MAX_LAYERS}")
            }
            MemoryError::NoContextLength => f.write_str("the model has no context_length"),
            MemoryError::NoEmbedding => f.write_str("the model has no embedding_length"),
            MemoryError::ShortLayerArray { key } => {
                write!(f, "{key} has fewer values than the model has layers")
            }
            MemoryError::Sequences { n_seq } => {
                write!(f, "{n_seq} sequences: llama.cpp takes 1 to {MAX_SEQUENCES}")
            }
            MemoryError::ZeroBatch => f.write_str("the batch sizes must be above 0"),
            MemoryError::QuantizedVNeedsFlashAttention => {
                f.write_str("a quantized V cache needs flash attention (llama.cpp refuses it with -fa off)")
            }
            MemoryError::MlaCacheTypes => {
                f.write_str("multi-head latent attention needs the same K and V cache types (llama.cpp refuses -ctk and -ctv apart)")
            }
            MemoryError::PartialBlock { cache_type, values } => write!(
                f,
                "a {cache_type} cache needs rows of whole 32-value blocks, and a layer's row has {values} values"
            ),
            MemoryError::Overflow => f.write_str("the figures overflow"),
            MemoryError::UnknownArchitecture { architecture } => write!(
                f,
                "llama.cpp (0c1e570) does not know the architecture \"{}\": it refuses the model",
                Excerpt(architecture.as_bytes())
            ),
            MemoryError::Refused { reason } => write!(f, "llama.cpp refuses it: {reason}"),
            MemoryError::NotSized { architecture, reason } => write!(
                f,
                "not sized: llama.cpp runs {}, but {reason}",
                Excerpt(architecture.as_bytes())
            ),
        }
    }
}

impl core::error::Error for MemoryError {}

/// The buffers llama.cpp allocates for the model in `header` run by llama-server with
/// `options`, on a CPU.
pub fn buffers(header: &Header, options: &Options) -> Result<Buffers, MemoryError> {
    let hp = HParams::read(header)?;
    let context = Context::new(&hp, options)?;
    let kv = kv_groups(&hp, &context, options)?;
    let recurrent = recurrent_state(&hp, &context)?;
    let output = output_bytes(&hp, &context);
    let compute = compute_bytes(&hp, &context, &kv);
    Ok(Buffers {
        context,
        kind: hp.kind,
        model: model_bytes(header, Some(&hp)),
        kv,
        recurrent,
        output,
        compute,
    })
}
