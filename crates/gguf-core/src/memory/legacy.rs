//! Will it fit? Memory to run a model with llama.cpp: the weights, the KV cache for a context
//! length, a KV cache type and a number of parallel sequences, and a stated allowance for
//! compute buffers, with the arithmetic written out next to the figures.
//!
//! The KV cache follows llama.cpp (`llama-hparams.cpp`, `llama-kv-cache*.cpp`):
//! - per layer, K holds `kv_heads × key_length` values per token and V `kv_heads × value_length`
//!   (head sizes default to `embedding_length / head_count`); a layer whose `head_count_kv` is 0
//!   has no cache (the recurrent layers of hybrids);
//! - multi-head latent attention (`attention.kv_lora_rank`, DeepSeek 2/3, Kimi, GLM 4.7 Flash)
//!   caches the compressed latent plus the rotary part, `kv_lora_rank + rope.dimension_count`
//!   values per token, in K only: llama.cpp keeps no V cache for it since January 2026
//!   (ggml-org/llama.cpp#19067, "V-less cache"; before, a redundant V copy of `kv_lora_rank`);
//! - sliding-window layers have their own head sizes when the file gives them
//!   (`attention.key_length_swa`/`value_length_swa`, Gemma 4: 256 against 512 for global layers;
//!   llama.cpp's `n_embd_head_k_swa`, defaulting to the global sizes);
//! - sliding-window layers cache `min(context, sliding_window)` tokens per sequence. Which layers
//!   slide is `attention.sliding_window_pattern`: a period `n` (layer `i` slides unless
//!   `i mod n = n - 1`, llama.cpp's `set_swa_pattern`) or one flag per layer; without the key,
//!   llama.cpp's built-in period for the architecture (Gemma 2: 2, Gemma 3: 6, Cohere 2: 4,
//!   gpt-oss: 2);
//! - recurrent models (Mamba, RWKV) have no KV cache.
//!
//! `context` is per sequence: `parallel` sequences cache `context × parallel` tokens, which
//! is llama.cpp's `-c` (the total) with `-np parallel`.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::header::{Header, Value};
use crate::keys;
use crate::summary::{AttentionKind, Summary};
use crate::text::Grouped;
use crate::types::GgmlType;

/// More layers than any model has (llama.cpp's `LLAMA_MAX_LAYERS` is 512): a header claiming
/// more is refused rather than allocated for.
pub const MAX_LAYERS: u64 = 16_384;

/// Tokens per micro-batch in llama.cpp (`n_ubatch`, default 512): the logits of one are the
/// largest buffer of its graph with flash attention.
pub const MICRO_BATCH: u64 = 512;

/// The element type of the KV cache (llama.cpp's `--cache-type-k`/`-v`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KvType {
    /// 4 bytes per value.
    F32,
    /// 2 bytes per value, llama.cpp's default.
    F16,
    /// 34 bytes per 32 values.
    Q8_0,
    /// 18 bytes per 32 values.
    Q4_0,
}

impl KvType {
    /// Every type, for option parsers.
    pub const ALL: [KvType; 4] = [KvType::F32, KvType::F16, KvType::Q8_0, KvType::Q4_0];

    /// The ggml type.
    pub fn ggml_type(self) -> GgmlType {
        match self {
            KvType::F32 => GgmlType::F32,
            KvType::F16 => GgmlType::F16,
            KvType::Q8_0 => GgmlType::Q8_0,
            KvType::Q4_0 => GgmlType::Q4_0,
        }
    }

    /// `"f32"`, `"f16"`, `"q8_0"` or `"q4_0"`, as llama.cpp's options spell them.
    pub fn name(self) -> &'static str {
        match self {
            KvType::F32 => "f32",
            KvType::F16 => "f16",
            KvType::Q8_0 => "q8_0",
            KvType::Q4_0 => "q4_0",
        }
    }

    /// The type named `name` (as [`KvType::name`]).
    pub fn from_name(name: &str) -> Option<KvType> {
        KvType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Bytes of `values` values; `None` unless they fill whole blocks.
    fn bytes(self, values: u64) -> Option<u64> {
        self.ggml_type().bytes_for(values, values)
    }
}

/// What to estimate for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryOptions {
    /// Tokens of context per sequence; `None` for the model's `context_length`.
    pub context: Option<u64>,
    /// The KV cache type, for both K and V.
    pub kv_type: KvType,
    /// Sequences decoded at once, each with its own context.
    pub parallel: u64,
}

impl Default for MemoryOptions {
    fn default() -> MemoryOptions {
        MemoryOptions {
            context: None,
            kv_type: KvType::F16,
            parallel: 1,
        }
    }
}

/// How the model keeps its past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheKind {
    /// Keys and values per head.
    KeyValue,
    /// Multi-head latent attention's compressed cache, K only.
    Latent,
    /// A recurrent state instead of a cache.
    Recurrent,
}

/// Layers that cache alike, one line of the formula.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct KvGroup {
    /// How many layers.
    pub layers: u64,
    /// Whether they are sliding-window layers.
    pub sliding: bool,
    /// Tokens each layer caches, all sequences together.
    pub cells: u64,
    /// K values per token per layer.
    pub k_values: u64,
    /// V values per token per layer (0 for a latent cache).
    pub v_values: u64,
    /// Bytes per token per layer, K and V in the KV type.
    pub bytes_per_cell: u64,
    /// `layers × cells × bytes_per_cell`.
    pub bytes: u64,
}

/// The estimate and how it was computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryEstimate {
    /// Tokens of context per sequence.
    pub context: u64,
    /// Sequences.
    pub parallel: u64,
    /// The KV cache type.
    pub kv_type: KvType,
    /// How the model keeps its past.
    pub cache: CacheKind,
    /// Bytes of tensor data: what loading the weights takes.
    pub weights: u64,
    /// Bytes of KV cache, the sum of `groups`.
    pub kv_cache: u64,
    /// The cache, by kind of layer.
    pub groups: Vec<KvGroup>,
    /// The allowance for compute buffers: `4 B × vocab × (MICRO_BATCH + parallel)`, the logits
    /// of one micro-batch and one output row per sequence.
    pub compute: u64,
    /// `weights + kv_cache + compute`.
    pub total: u64,
    /// The arithmetic, one line per term.
    pub formula: Vec<String>,
    /// What the figures leave out or assume.
    pub notes: Vec<String>,
}

/// Why there is no estimate.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MemoryError {
    /// No context length given, and the model has no `{arch}.context_length`.
    NoContextLength,
    /// The context length or the number of sequences is zero.
    Zero,
    /// The model has no `{arch}.block_count`.
    NoLayers,
    /// `{arch}.block_count` is above [`MAX_LAYERS`].
    TooManyLayers {
        /// What the header claims.
        layers: u64,
    },
    /// The head sizes cannot be known: no `key_length`/`value_length`, and no embedding length
    /// and head count to derive them from; or, for latent attention, no rotary dimension count.
    NoHeadSize,
    /// A per-layer array is shorter than the layer count.
    ShortLayerArray {
        /// The key, without the architecture prefix.
        key: &'static str,
    },
    /// A quantized KV type needs rows of whole 32-value blocks.
    PartialKvBlock {
        /// The type.
        kv_type: KvType,
        /// Values per token per layer.
        values: u64,
    },
    /// A figure overflows u64.
    Overflow,
}

impl fmt::Display for MemoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemoryError::NoContextLength => {
                f.write_str("the model has no context_length: give a context length")
            }
            MemoryError::Zero => {
                f.write_str("the context length and the number of sequences must be above 0")
            }
            MemoryError::NoLayers => f.write_str("the model has no block_count"),
            MemoryError::TooManyLayers { layers } => {
                write!(f, "block_count {layers} is over the limit of {MAX_LAYERS}")
            }
            MemoryError::NoHeadSize => f.write_str(
                "the head sizes are unknown (no key_length/value_length, embedding_length or head_count)",
            ),
            MemoryError::ShortLayerArray { key } => {
                write!(f, "{key} has fewer values than the model has layers")
            }
            MemoryError::PartialKvBlock { kv_type, values } => write!(
                f,
                "a {} KV cache needs multiples of 32 values per token, and a layer has {values}",
                kv_type.name()
            ),
            MemoryError::Overflow => f.write_str("the figures overflow 64 bits"),
        }
    }
}

impl core::error::Error for MemoryError {}

/// What llama.cpp's compute buffers and runtime add, and what these figures assume.
const ALWAYS_NOTED: [&str; 4] = [
    "compute allowance: the logits of one 512-token micro-batch plus one output row per sequence; \
     without flash attention llama.cpp also holds heads × micro-batch × cells × 4 B of attention scores",
    "not modelled: llama.cpp rounds the cache up to 256 cells and keeps one micro-batch more in \
     sliding-window layers; backend and driver overhead; a vision projector or draft model",
    "weights are the file's tensor bytes; with mmap they may be shared with the page cache rather than allocated",
    "K and V are counted in the same type; llama.cpp can set them apart (-ctk, -ctv)",
];

/// Estimates the memory to run the model in `header` with `options`.
pub fn estimate(header: &Header, options: &MemoryOptions) -> Result<MemoryEstimate, MemoryError> {
    let summary = header.summary();
    let context = options
        .context
        .or(summary.context_length)
        .ok_or(MemoryError::NoContextLength)?;
    let parallel = options.parallel;
    if context == 0 || parallel == 0 {
        return Err(MemoryError::Zero);
    }
    let kv_type = options.kv_type;
    let mut notes: Vec<String> = Vec::new();
    if let Some(trained) = summary.context_length.filter(|&t| context > t) {
        notes.push(format!(
            "the context of {} tokens is past the {} the model was trained for: llama.cpp \
             runs it, but the output degrades unless RoPE scaling stretches the model to it",
            Grouped(context),
            Grouped(trained)
        ));
    }
    let cache = match (summary.attention.kind, summary.attention.kv_lora_rank) {
        (_, Some(_)) => CacheKind::Latent,
        (AttentionKind::None, _) => CacheKind::Recurrent,
        _ => CacheKind::KeyValue,
    };
    let groups = match cache {
        CacheKind::Recurrent => {
            notes.push(String::from(
                "recurrent model: no KV cache; its fixed-size state per sequence (a few MB) is not modelled",
            ));
            Vec::new()
        }
        _ => kv_groups(header, &summary, cache, context, options, &mut notes)?,
    };
    let kv_cache = groups
        .iter()
        .try_fold(0u64, |sum, g| sum.checked_add(g.bytes))
        .ok_or(MemoryError::Overflow)?;
    let compute = match summary.vocab_size {
        Some(vocab) => vocab
            .checked_mul(4)
            .zip(MICRO_BATCH.checked_add(parallel))
            .and_then(|(b, rows)| b.checked_mul(rows))
            .ok_or(MemoryError::Overflow)?,
        None => {
            notes.push(String::from("no vocabulary size: no compute allowance"));
            0
        }
    };
    let weights = summary.tensor_bytes;
    let shards = header
        .metadata
        .get(keys::SPLIT_COUNT)
        .and_then(Value::as_u64)
        .unwrap_or(1);
    // A split model put together (`split::SplitModel`) holds all of `split.tensors.count`.
    let all_tensors = header
        .metadata
        .get(keys::SPLIT_TENSORS_COUNT)
        .and_then(Value::as_u64)
        .is_some_and(|n| header.tensors.len() as u64 >= n);
    if header.tensors.is_empty() {
        notes.push(String::from(
            "the file holds no tensors (vocabulary only, or a shard without any): weights are 0",
        ));
    } else if shards > 1 && !all_tensors {
        notes.push(format!(
            "one shard of a model split in {shards}: weights are this file's tensors only"
        ));
    }
    let total = weights
        .checked_add(kv_cache)
        .and_then(|t| t.checked_add(compute))
        .ok_or(MemoryError::Overflow)?;
    notes.extend(ALWAYS_NOTED.iter().map(|n| String::from(*n)));
    let mut estimate = MemoryEstimate {
        context,
        parallel,
        kv_type,
        cache,
        weights,
        kv_cache,
        groups,
        compute,
        total,
        formula: Vec::new(),
        notes,
    };
    estimate.formula = formula(&estimate, summary.vocab_size);
    Ok(estimate)
}

/// One value per layer from a key that is one number or an array of them.
fn per_layer(header: &Header, key: &'static str, layers: usize) -> Result<Option<Vec<u64>>, MemoryError> {
    match header.metadata.arch_layers(key) {
        None => Ok(None),
        Some(values) => values
            .for_layers(layers)
            .map(Some)
            .ok_or(MemoryError::ShortLayerArray { key }),
    }
}

/// Which layers use a sliding window.
fn sliding_layers(header: &Header, summary: &Summary, layers: usize, notes: &mut Vec<String>) -> Vec<bool> {
    let none = alloc::vec![false; layers];
    if summary.attention.sliding_window.is_none_or(|w| w == 0) {
        return none;
    }
    let period = match header.metadata.arch_get(keys::arch::SLIDING_WINDOW_PATTERN) {
        Some(Value::Array(a)) => {
            return (0..layers)
                .map(|i| matches!(a.get(i), Some(Value::Bool(true))) || a.get_u64(i).is_some_and(|v| v != 0))
                .collect();
        }
        Some(v) => v.as_u64(),
        None => match summary.architecture.as_deref() {
            Some("gemma2") | Some("gpt-oss") => Some(2),
            Some("gemma3") => Some(6),
            Some("cohere2") => Some(4),
            _ => None,
        },
    };
    match period {
        Some(p) => (0..layers as u64).map(|i| p == 0 || i % p < p - 1).collect(),
        None => {
            notes.push(String::from(
                "sliding_window is set but no layer pattern is known for this architecture: \
                 every layer is counted with the full context (an overestimate)",
            ));
            none
        }
    }
}

fn kv_groups(
    header: &Header,
    summary: &Summary,
    cache: CacheKind,
    context: u64,
    options: &MemoryOptions,
    notes: &mut Vec<String>,
) -> Result<Vec<KvGroup>, MemoryError> {
    let a = &summary.attention;
    let layers = summary.block_count.ok_or(MemoryError::NoLayers)?;
    if layers > MAX_LAYERS {
        return Err(MemoryError::TooManyLayers { layers });
    }
    let n = usize::try_from(layers).map_err(|_| MemoryError::Overflow)?;
    let heads = per_layer(header, keys::arch::HEAD_COUNT, n)?;
    let kv_heads = per_layer(header, keys::arch::HEAD_COUNT_KV, n)?.or_else(|| heads.clone());
    let kv_heads = kv_heads.ok_or(MemoryError::NoHeadSize)?;
    // llama.cpp derives head sizes from the first layer's head count.
    let derived = summary
        .embedding_length
        .zip(heads.as_ref().and_then(|h| h.first().copied()).filter(|&h| h > 0))
        .map(|(e, h)| e / h);
    let (k_head, v_head) = match cache {
        CacheKind::Latent => {
            let rank = a.kv_lora_rank.ok_or(MemoryError::NoHeadSize)?;
            let rope = summary.rope.dimension_count.ok_or(MemoryError::NoHeadSize)?;
            (rank.checked_add(rope).ok_or(MemoryError::Overflow)?, 0)
        }
        _ => (
            a.key_length.or(derived).ok_or(MemoryError::NoHeadSize)?,
            a.value_length.or(derived).ok_or(MemoryError::NoHeadSize)?,
        ),
    };
    // Sliding-window layers' own head sizes (a latent cache has one geometry for all layers).
    let swa_size = |key, global| match cache {
        CacheKind::Latent => global,
        _ => header
            .metadata
            .arch_get(key)
            .and_then(Value::as_u64)
            .unwrap_or(global),
    };
    let (k_head_swa, v_head_swa) = (
        swa_size(keys::arch::KEY_LENGTH_SWA, k_head),
        swa_size(keys::arch::VALUE_LENGTH_SWA, v_head),
    );
    let sliding = sliding_layers(header, summary, n, notes);
    let window = a.sliding_window.unwrap_or(0);
    let mut groups: Vec<KvGroup> = Vec::new();
    for (&kv, &slides) in kv_heads.iter().zip(&sliding) {
        if kv == 0 {
            continue;
        }
        // A latent cache is one shared "head" whatever head_count_kv says.
        let kv = if cache == CacheKind::Latent { 1 } else { kv };
        let (k_head, v_head) = if slides {
            (k_head_swa, v_head_swa)
        } else {
            (k_head, v_head)
        };
        let (k_values, v_values) = (k_head.saturating_mul(kv), v_head.saturating_mul(kv));
        let row = |values: u64| {
            options.kv_type.bytes(values).ok_or(MemoryError::PartialKvBlock {
                kv_type: options.kv_type,
                values,
            })
        };
        let bytes_per_cell = row(k_values)?
            .checked_add(row(v_values)?)
            .ok_or(MemoryError::Overflow)?;
        let per_sequence = if slides { context.min(window) } else { context };
        let cells = per_sequence
            .checked_mul(options.parallel)
            .ok_or(MemoryError::Overflow)?;
        let layer_bytes = cells.checked_mul(bytes_per_cell).ok_or(MemoryError::Overflow)?;
        match groups
            .iter_mut()
            .find(|g| (g.sliding, g.cells, g.k_values, g.v_values) == (slides, cells, k_values, v_values))
        {
            Some(g) => {
                g.layers += 1;
                g.bytes = g.bytes.checked_add(layer_bytes).ok_or(MemoryError::Overflow)?;
            }
            None => groups.push(KvGroup {
                layers: 1,
                sliding: slides,
                cells,
                k_values,
                v_values,
                bytes_per_cell,
                bytes: layer_bytes,
            }),
        }
    }
    let without = kv_heads.iter().filter(|&&kv| kv == 0).count();
    if without > 0 {
        notes.push(format!("{without} layers have no KV heads and no cache"));
    }
    Ok(groups)
}

/// The arithmetic behind the figures, one line per term.
fn formula(e: &MemoryEstimate, vocab: Option<u64>) -> Vec<String> {
    let ty = e.kv_type.name();
    let g = Grouped;
    let mut lines = alloc::vec![format!(
        "weights = {} B (sum of the tensors' bytes)",
        g(e.weights)
    )];
    for group in &e.groups {
        let tokens = match e.parallel {
            1 => format!("{} cells", g(group.cells)),
            p => format!(
                "{} cells ({} × {p} sequences)",
                g(group.cells),
                g(group.cells / p)
            ),
        };
        let values = match e.cache {
            CacheKind::Latent => format!("K {} latent+rope values", g(group.k_values)),
            _ => format!("K {} + V {} values", g(group.k_values), g(group.v_values)),
        };
        let kind = if group.sliding { "sliding-window " } else { "" };
        lines.push(format!(
            "KV cache, {} {kind}layers = {} × {tokens} × {} B ({values} in {ty}) = {} B",
            group.layers,
            group.layers,
            g(group.bytes_per_cell),
            g(group.bytes)
        ));
    }
    if e.groups.len() != 1 {
        lines.push(format!("KV cache = {} B", g(e.kv_cache)));
    }
    if let Some(vocab) = vocab {
        lines.push(format!(
            "compute ≈ 4 B × {} vocab × ({MICRO_BATCH} micro-batch + {} output rows) = {} B",
            g(vocab),
            e.parallel,
            g(e.compute)
        ));
    }
    lines.push(format!(
        "total = {} + {} + {} = {} B",
        g(e.weights),
        g(e.kv_cache),
        g(e.compute),
        g(e.total)
    ));
    lines
}
