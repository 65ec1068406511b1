//! The KV cache as llama.cpp allocates it (`llama_kv_cache`, `llama_kv_cache_iswa`,
//! `llama_memory_hybrid`): per layer, one K tensor of `n_embd_k_gqa × cells × streams` and one
//! V tensor of `n_embd_v_gqa × cells × streams` in the cache types.
//!
//! - The global cache has `n_ctx_seq` cells per stream: one stream when unified, else one per
//!   sequence.
//! - A model with sliding-window layers has a second cache for them, of
//!   `pad256(min(n_ctx_seq, n_swa × (unified ? n_seq : 1) + n_ubatch))` cells (the window of
//!   each sequence plus one batch, padded "for performance", llama.cpp#17037).
//! - Without flash attention V is stored transposed and every layer's V row is padded to the
//!   widest of any layer.
//! - Multi-head latent attention caches K only: its one KV head of `kv_lora_rank + rope`
//!   values is the compressed latent, from which V is read.
//! - Recurrent layers of a hybrid have no KV cache; layers past `n_layer_kv` (Gemma 3n, 4) reuse
//!   an earlier layer's; MTP layers are not in the main context's cache.

use alloc::vec::Vec;

use super::context::Context;
use super::hparams::{HParams, MemoryKind};
use super::options::{CacheType, Options};
use super::{CPU_ALIGNMENT, MemoryError};

/// The layers of one cache: the global one, or the sliding-window one.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct KvGroup {
    /// Whether these are the sliding-window layers.
    pub sliding: bool,
    /// Layers in the cache.
    pub layers: u64,
    /// Cells per stream.
    pub cells: u64,
    /// Streams (1 when unified, else one per sequence).
    pub streams: u64,
    /// K's type.
    pub type_k: CacheType,
    /// V's type.
    pub type_v: CacheType,
    /// Bytes of K, all layers.
    pub k_bytes: u64,
    /// Bytes of V, all layers (0 for multi-head latent attention).
    pub v_bytes: u64,
}

impl KvGroup {
    /// K and V.
    pub fn bytes(&self) -> u64 {
        self.k_bytes + self.v_bytes
    }
}

/// The caches, global first, then the sliding-window one; empty for a model without attention.
pub(crate) fn kv_groups(hp: &HParams, ctx: &Context, options: &Options) -> Result<Vec<KvGroup>, MemoryError> {
    let mut groups: Vec<KvGroup> = Vec::new();
    for sliding in [false, true] {
        let mut group = KvGroup {
            sliding,
            layers: 0,
            cells: cells(hp, ctx, sliding),
            streams: ctx.streams(),
            type_k: options.type_k,
            type_v: options.type_v,
            k_bytes: 0,
            v_bytes: 0,
        };
        for il in 0..hp.n_layer_all {
            if let Some((s, k, v)) = layer_kv(hp, ctx, options, il)?
                && s == sliding
            {
                group.layers += 1;
                group.k_bytes += k;
                group.v_bytes += v;
            }
        }
        if group.layers > 0 {
            groups.push(group);
        }
    }
    Ok(groups)
}

/// Cells per stream of the global cache, or of the sliding-window one.
fn cells(hp: &HParams, ctx: &Context, sliding: bool) -> u64 {
    if sliding {
        let window = hp.n_swa * if ctx.kv_unified { ctx.n_seq } else { 1 } + ctx.n_ubatch;
        ctx.n_ctx_seq.min(window).next_multiple_of(256)
    } else {
        ctx.n_ctx_seq
    }
}

/// Layer `il`'s cache: whether it slides, its K bytes and its V bytes; `None` for a layer
/// without one. The KV cache of a layer lives on the device of the layer.
pub(crate) fn layer_kv(
    hp: &HParams,
    ctx: &Context,
    options: &Options,
    il: usize,
) -> Result<Option<(bool, u64, u64)>, MemoryError> {
    let in_cache = !matches!(hp.kind, MemoryKind::None | MemoryKind::Recurrent)
        && il < hp.n_layer_kv
        && !(hp.n_layer_nextn > 0 && il >= hp.n_layer())
        && hp.is_attn[il];
    if !in_cache {
        return Ok(None);
    }
    let sliding = hp.is_swa[il];
    let rows = cells(hp, ctx, sliding) * ctx.streams();
    let v_width = if ctx.flash_attn {
        hp.n_embd_v_gqa(il)
    } else {
        hp.n_embd_v_gqa_max()
    };
    let k = tensor_bytes(options.type_k, hp.n_embd_k_gqa(il), rows)?;
    let v = if hp.mla {
        0
    } else {
        tensor_bytes(options.type_v, v_width, rows)?
    };
    Ok(Some((sliding, k, v)))
}

/// Bytes of a `width × rows` tensor of `ty`, as the CPU buffer places it (padded to its alignment).
fn tensor_bytes(ty: CacheType, width: u64, rows: u64) -> Result<u64, MemoryError> {
    let row = ty.row_bytes(width).ok_or(MemoryError::PartialBlock {
        cache_type: ty,
        values: width,
    })?;
    row.checked_mul(rows)
        .map(|b| b.next_multiple_of(CPU_ALIGNMENT))
        .ok_or(MemoryError::Overflow)
}
