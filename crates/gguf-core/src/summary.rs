//! What people open a model file to learn, computed from the header alone.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::header::{Header, LayerValues, Metadata, Value};
use crate::keys::{self, arch};
use crate::kind::FileKind;
use crate::sort::sort_by;
use crate::types::{FileType, GgmlType};

/// The model at a glance. Every figure is `None` when the header does not say.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Summary {
    /// What the file is: a model, a vocabulary, an adapter, an importance matrix, a projector…
    /// (its figures: `describe::Description`).
    pub kind: FileKind,
    /// `general.architecture`.
    pub architecture: Option<String>,
    /// `general.name`.
    pub name: Option<String>,
    /// `general.size_label`, e.g. `"8x7B"`.
    pub size_label: Option<String>,
    /// `general.file_type`: what the file says it is.
    pub file_type: Option<FileType>,
    /// Exact sum of all tensors' element counts; `None` if it overflows u64.
    pub parameters: Option<u64>,
    /// Parameters used per token: all of them for dense models; for mixtures of experts, the
    /// shared part plus `used / count` of the expert tensors. `None` when unknown.
    pub active_parameters: Option<u64>,
    /// Bytes of tensor data, over tensors whose size is known.
    pub tensor_bytes: u64,
    /// `8 × tensor_bytes / parameters`, over the same tensors.
    pub bits_per_weight: Option<f64>,
    /// Tensors per type, most bytes first.
    pub types: Vec<TypeShare>,
    /// The tensors that pull `bits_per_weight` away from the file type's: those of another type
    /// than [`FileType::main_tensor_type`] that each hold at least a tenth of the tensor data,
    /// largest first, at most three (a Q8_0 token embedding that is most of a
    /// small Q4_K_M model's bytes). Without a known file type, any tensor of a tenth or more.
    /// Only a model's: an adapter's or a projector's sizes need no such why.
    pub dominant_tensors: Vec<DominantTensor>,
    /// Attention layout.
    pub attention: Attention,
    /// Mixture of experts, when `{arch}.expert_count` is above zero.
    pub experts: Option<Experts>,
    /// `{arch}.context_length`.
    pub context_length: Option<u64>,
    /// `{arch}.embedding_length`.
    pub embedding_length: Option<u64>,
    /// `{arch}.block_count`: the number of layers.
    pub block_count: Option<u64>,
    /// `{arch}.feed_forward_length`, when one value for all layers.
    pub feed_forward_length: Option<u64>,
    /// Length of `tokenizer.ggml.tokens`, else `{arch}.vocab_size`.
    pub vocab_size: Option<u64>,
    /// `tokenizer.ggml.model`, e.g. `"llama"` (SentencePiece) or `"gpt2"` (BPE).
    pub tokenizer_model: Option<String>,
    /// `tokenizer.ggml.pre`: the pre-tokenizer.
    pub tokenizer_pre: Option<String>,
    /// Rotary position embedding.
    pub rope: Rope,
}

/// One tensor type's share of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeShare {
    /// The type.
    pub ty: GgmlType,
    /// Tensors of this type.
    pub tensors: u64,
    /// Their elements (saturating).
    pub elements: u64,
    /// Their bytes; `None` when the size of one of them is unknown.
    pub bytes: Option<u64>,
}

/// Most tensors [`Summary::dominant_tensors`] names.
pub const DOMINANT_TENSORS: usize = 3;

/// A tensor holding a large share of the tensor data, of another type than the file type's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DominantTensor {
    /// Its index in the header's tensors.
    pub index: usize,
    /// Bytes of its data.
    pub bytes: u64,
}

/// How attention is laid out.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Attention {
    /// The kind.
    pub kind: AttentionKind,
    /// Query heads, when the same in every layer.
    pub heads: Option<u64>,
    /// Key/value heads, when the same in every layer.
    pub kv_heads: Option<u64>,
    /// Query heads per key/value head.
    pub group_size: Option<u64>,
    /// Query heads of each layer, when given as an array.
    pub heads_per_layer: Option<Vec<u64>>,
    /// Key/value heads of each layer, when given as an array (0: a layer without attention).
    pub kv_heads_per_layer: Option<Vec<u64>>,
    /// `attention.key_length`: size of a key head.
    pub key_length: Option<u64>,
    /// `attention.value_length`: size of a value head.
    pub value_length: Option<u64>,
    /// `attention.sliding_window`, for models with local attention layers.
    pub sliding_window: Option<u64>,
    /// `attention.kv_lora_rank`: the compressed key/value size of multi-head latent attention.
    pub kv_lora_rank: Option<u64>,
    /// `attention.q_lora_rank`.
    pub q_lora_rank: Option<u64>,
    /// When head counts differ between layers: the layers grouped by their head counts, in the
    /// order first met (Gemma 4: 25 layers of 16 query and 8 key/value heads, 5 of 16 and 2).
    /// Empty when every layer is alike, or the per-layer counts disagree in length.
    pub layer_groups: Vec<LayerGroup>,
}

/// Layers with the same head counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayerGroup {
    /// How many layers.
    pub layers: u64,
    /// Query heads in each.
    pub heads: u64,
    /// Key/value heads in each (0: a layer without attention, as a hybrid's recurrent layers).
    pub kv_heads: u64,
    /// Their attention kind: MHA, GQA, MQA, none, or unknown.
    pub kind: AttentionKind,
    /// Query heads per key/value head, for MHA, GQA and MQA.
    pub group_size: Option<u64>,
}

/// The attention kind, as derived from the head counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttentionKind {
    /// Multi-head: as many key/value heads as query heads.
    Mha,
    /// Grouped-query: each key/value head serves a group of query heads.
    Gqa,
    /// Multi-query: one key/value head for all.
    Mqa,
    /// Multi-head latent attention (DeepSeek): keys and values compressed to `kv_lora_rank`.
    Mla,
    /// Head counts that differ between layers.
    PerLayer,
    /// No attention (state-space and recurrent models, or zero heads).
    None,
    /// The header does not say, or says something inconsistent.
    Unknown,
}

impl AttentionKind {
    /// `"MHA"`, `"GQA"`, `"MQA"`, `"MLA"`, `"per-layer"`, `"none"` or `"unknown"`.
    pub fn name(self) -> &'static str {
        match self {
            AttentionKind::Mha => "MHA",
            AttentionKind::Gqa => "GQA",
            AttentionKind::Mqa => "MQA",
            AttentionKind::Mla => "MLA",
            AttentionKind::PerLayer => "per-layer",
            AttentionKind::None => "none",
            AttentionKind::Unknown => "unknown",
        }
    }
}

/// Mixture-of-experts figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Experts {
    /// `{arch}.expert_count`.
    pub count: u64,
    /// `{arch}.expert_used_count`: experts routed to per token.
    pub used: Option<u64>,
    /// `{arch}.expert_shared_count`: experts every token goes through.
    pub shared: Option<u64>,
    /// Elements in the routed expert tensors (`*_exps`), all experts together.
    pub expert_parameters: u64,
}

/// Rotary position embedding settings.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Rope {
    /// `rope.freq_base`.
    pub freq_base: Option<f64>,
    /// `rope.dimension_count`: how many dimensions of each head are rotated.
    pub dimension_count: Option<u64>,
    /// `rope.scaling.type`, e.g. `"linear"` or `"yarn"`.
    pub scaling_type: Option<String>,
    /// `rope.scaling.factor`.
    pub scaling_factor: Option<f64>,
    /// `rope.scaling.original_context_length`.
    pub original_context_length: Option<u64>,
}

/// Whether a tensor holds routed experts: merged `blk.N.ffn_up_exps.weight`, or the older one
/// tensor per expert `blk.N.ffn_up.E.weight`.
fn is_expert_tensor(name: &[u8]) -> bool {
    let Ok(name) = core::str::from_utf8(name) else {
        return false;
    };
    if keys::layer_of(name.as_bytes()).is_none() {
        return false;
    }
    let mut parts = name.split('.').skip(2);
    let Some(part) = parts.next() else { return false };
    part.ends_with("_exps")
        || (matches!(part, "ffn_up" | "ffn_gate" | "ffn_down")
            && parts
                .next()
                .is_some_and(|e| !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit())))
}

/// `⌊a × b / c⌋` for `b ≤ c` (so the result fits), in u64 arithmetic: u128 division would weigh on
/// the viewer's wasm. Exact whenever `(a mod c) × b` fits in u64 (every real model: `c` is an
/// expert count); else the remainder's share is rounded down to whole `c`ths.
fn mul_div(a: u64, b: u64, c: u64) -> u64 {
    if c == 0 {
        return 0;
    }
    let whole = (a / c) * b;
    let part = match (a % c).checked_mul(b) {
        Some(r) => r / c,
        None => (a % c) / c * b,
    };
    whole + part
}

impl Header {
    /// Computes the [`Summary`].
    pub fn summary(&self) -> Summary {
        let md = &self.metadata;
        let text = |key: &str| md.get(key).and_then(Value::as_str).map(ToString::to_string);
        let arch_u64 = |suffix: &str| md.arch_get(suffix).and_then(Value::as_u64);

        let mut parameters = Some(0u64);
        let (mut known_bytes, mut known_elements) = (0u64, 0u64);
        let mut types: Vec<TypeShare> = Vec::new();
        let mut expert_parameters = 0u64;
        let file_type = md
            .get(keys::FILE_TYPE)
            .and_then(Value::as_u64)
            .and_then(|v| u32::try_from(v).ok())
            .map(FileType);
        let main_type = file_type.and_then(FileType::main_tensor_type);
        let mut largest: Vec<DominantTensor> = Vec::new();
        for (index, t) in self.tensors.iter().enumerate() {
            let n = t.n_elements();
            parameters = parameters.zip(n).and_then(|(p, n)| p.checked_add(n));
            let bytes = t.n_bytes();
            if let (Some(b), Some(n)) = (bytes, n) {
                known_bytes = known_bytes.saturating_add(b);
                known_elements = known_elements.saturating_add(n);
                if main_type != Some(t.ty) {
                    keep_largest(&mut largest, DominantTensor { index, bytes: b });
                }
            }
            if is_expert_tensor(t.name.as_bytes()) {
                expert_parameters = expert_parameters.saturating_add(n.unwrap_or(0));
            }
            let share = match types.iter_mut().find(|s| s.ty == t.ty) {
                Some(s) => s,
                None => {
                    types.push(TypeShare {
                        ty: t.ty,
                        tensors: 0,
                        elements: 0,
                        bytes: Some(0),
                    });
                    let last = types.len() - 1;
                    &mut types[last]
                }
            };
            share.tensors += 1;
            share.elements = share.elements.saturating_add(n.unwrap_or(u64::MAX));
            share.bytes = share.bytes.zip(bytes).map(|(a, b)| a.saturating_add(b));
        }
        sort_by(&mut types, |a, b| {
            b.bytes
                .cmp(&a.bytes)
                .then(b.elements.cmp(&a.elements))
                .then(a.ty.cmp(&b.ty))
        });

        let experts = arch_u64(arch::EXPERT_COUNT)
            .filter(|&c| c > 0)
            .map(|count| Experts {
                count,
                used: arch_u64(arch::EXPERT_USED_COUNT),
                shared: arch_u64(arch::EXPERT_SHARED_COUNT),
                expert_parameters,
            });
        let active_parameters = match experts {
            None => parameters,
            Some(Experts {
                count,
                used: Some(used),
                expert_parameters,
                ..
            }) => {
                parameters.map(|p| p - expert_parameters + mul_div(expert_parameters, used.min(count), count))
            }
            Some(_) => None,
        };

        let tokens = md
            .get(keys::TOKENS)
            .and_then(Value::as_array)
            .map(|a| a.len() as u64);
        let kind = FileKind::of(self);
        Summary {
            kind,
            architecture: text(keys::ARCHITECTURE),
            name: text(keys::NAME),
            size_label: text(keys::SIZE_LABEL),
            file_type,
            parameters,
            active_parameters,
            tensor_bytes: known_bytes,
            bits_per_weight: crate::types::bits_per_weight(known_bytes, known_elements),
            types,
            dominant_tensors: largest
                .into_iter()
                .filter(|t| kind == FileKind::Model && t.bytes > 0 && t.bytes >= known_bytes / 10)
                .collect(),
            attention: attention(md),
            experts,
            context_length: arch_u64(arch::CONTEXT_LENGTH),
            embedding_length: arch_u64(arch::EMBEDDING_LENGTH),
            block_count: arch_u64(arch::BLOCK_COUNT),
            feed_forward_length: md
                .arch_layers(arch::FEED_FORWARD_LENGTH)
                .and_then(|v| v.uniform()),
            vocab_size: tokens.or_else(|| arch_u64(arch::VOCAB_SIZE)),
            tokenizer_model: text(keys::TOKENIZER_MODEL),
            tokenizer_pre: text(keys::TOKENIZER_PRE),
            rope: Rope {
                freq_base: md.arch_get(arch::ROPE_FREQ_BASE).and_then(Value::as_f64),
                dimension_count: arch_u64(arch::ROPE_DIMENSION_COUNT),
                scaling_type: md
                    .arch_get(arch::ROPE_SCALING_TYPE)
                    .and_then(Value::as_str)
                    .map(ToString::to_string),
                scaling_factor: md.arch_get(arch::ROPE_SCALING_FACTOR).and_then(Value::as_f64),
                original_context_length: arch_u64(arch::ROPE_SCALING_ORIGINAL_CONTEXT_LENGTH),
            },
        }
    }
}

/// Keeps `largest` the [`DOMINANT_TENSORS`] largest seen so far, largest first (the earlier of
/// two the same size first).
fn keep_largest(largest: &mut Vec<DominantTensor>, t: DominantTensor) {
    let at = largest
        .iter()
        .position(|l| t.bytes > l.bytes)
        .unwrap_or(largest.len());
    if at < DOMINANT_TENSORS {
        largest.insert(at, t);
        largest.truncate(DOMINANT_TENSORS);
    }
}

/// The kind of a layout of `heads` query heads and `kv_heads` key/value heads, the same in every
/// layer.
fn kind_of(heads: u64, kv_heads: u64) -> AttentionKind {
    match (heads, kv_heads) {
        (0, _) | (_, 0) => AttentionKind::None,
        (h, k) if k == h => AttentionKind::Mha,
        (_, 1) => AttentionKind::Mqa,
        (h, k) if h % k == 0 => AttentionKind::Gqa,
        _ => AttentionKind::Unknown,
    }
}

/// Query heads per key/value head, for the kinds that group them.
fn group_size(kind: AttentionKind, heads: u64, kv_heads: u64) -> Option<u64> {
    matches!(kind, AttentionKind::Mha | AttentionKind::Gqa | AttentionKind::Mqa).then(|| heads / kv_heads)
}

/// The layers grouped by head counts, when they differ between layers (see
/// [`Attention::layer_groups`]).
fn layer_groups(heads: Option<&LayerValues>, kv_heads: Option<&LayerValues>) -> Vec<LayerGroup> {
    let mut groups: Vec<LayerGroup> = Vec::new();
    let Some(heads) = heads else { return groups };
    let per_layer = |v: &LayerValues| match v {
        LayerValues::PerLayer(values) if v.varying().is_some() => Some(values.len()),
        _ => None,
    };
    let Some(layers) = per_layer(heads).max(kv_heads.and_then(per_layer)) else {
        return groups;
    };
    for i in 0..layers {
        // Absent `head_count_kv` means as many as query heads (llama.cpp's default).
        let (Some(h), Some(k)) = (heads.get(i), kv_heads.map_or(heads.get(i), |kv| kv.get(i))) else {
            return Vec::new();
        };
        match groups.iter_mut().find(|g| g.heads == h && g.kv_heads == k) {
            Some(g) => g.layers += 1,
            None => {
                let kind = kind_of(h, k);
                groups.push(LayerGroup {
                    layers: 1,
                    heads: h,
                    kv_heads: k,
                    kind,
                    group_size: group_size(kind, h, k),
                });
            }
        }
    }
    groups
}

fn attention(md: &Metadata) -> Attention {
    let arch_u64 = |suffix: &str| md.arch_get(suffix).and_then(Value::as_u64);
    let heads = md.arch_layers(arch::HEAD_COUNT);
    let kv_heads = md.arch_layers(arch::HEAD_COUNT_KV);
    let kv_lora_rank = arch_u64(arch::KV_LORA_RANK);
    let mut a = Attention {
        kind: AttentionKind::Unknown,
        heads: None,
        kv_heads: None,
        group_size: None,
        heads_per_layer: None,
        kv_heads_per_layer: None,
        key_length: arch_u64(arch::KEY_LENGTH),
        value_length: arch_u64(arch::VALUE_LENGTH),
        sliding_window: arch_u64(arch::SLIDING_WINDOW),
        kv_lora_rank,
        q_lora_rank: arch_u64(arch::Q_LORA_RANK),
        layer_groups: layer_groups(heads.as_ref(), kv_heads.as_ref()),
    };
    a.heads = heads.as_ref().and_then(LayerValues::uniform);
    // Absent `head_count_kv` means as many as query heads (llama.cpp's default).
    a.kv_heads = match &kv_heads {
        None => a.heads,
        Some(v) => v.uniform(),
    };
    a.heads_per_layer = heads.as_ref().and_then(LayerValues::varying).map(<[u64]>::to_vec);
    a.kv_heads_per_layer = kv_heads
        .as_ref()
        .and_then(LayerValues::varying)
        .map(<[u64]>::to_vec);
    let recurrent = [arch::SSM_STATE_SIZE, arch::SSM_CONV_KERNEL, arch::WKV_HEAD_SIZE]
        .iter()
        .any(|suffix| md.arch_get(suffix).is_some());
    a.kind = if kv_lora_rank.is_some() {
        AttentionKind::Mla
    } else if a.kv_heads == Some(0) {
        // No layer has a key/value head: an all-state-space hybrid (`head_count_kv = [0, 0]`).
        AttentionKind::None
    } else if a.heads_per_layer.is_some() || a.kv_heads_per_layer.is_some() {
        AttentionKind::PerLayer
    } else {
        match (a.heads, a.kv_heads) {
            (None, _) if recurrent => AttentionKind::None,
            (Some(0), _) => AttentionKind::None,
            (Some(h), Some(k)) if k > 0 => kind_of(h, k),
            _ => AttentionKind::Unknown,
        }
    };
    a.group_size = match (a.heads, a.kv_heads) {
        (Some(h), Some(k)) => group_size(a.kind, h, k),
        _ => None,
    };
    a
}

#[cfg(test)]
mod tests {
    use super::mul_div;

    #[test]
    fn mul_div_is_exact_without_u128() {
        for (a, b, c) in [
            (10, 2, 8),
            (7, 3, 3),
            (0, 1, 1),
            (u64::MAX, 2, 8),
            (u64::MAX, 7, 7),
            (1 << 40, 5, 64),
        ] {
            let exact = u128::from(a) * u128::from(b) / u128::from(c);
            assert_eq!(u128::from(mul_div(a, b, c)), exact, "{a} × {b} / {c}");
        }
        assert_eq!(mul_div(5, 1, 0), 0);
    }
}
