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
    if matches!(hp.kind, MemoryKind::None | MemoryKind::Recurrent) {
        return Ok(Vec::new());
    }
    let kv_size = ctx.n_ctx_seq;
    let any_swa = hp.is_swa.iter().any(|&s| s);
    let mut groups = Vec::new();
    for sliding in [false, true] {
        if sliding && !any_swa {
            break;
        }
        let cells = if sliding {
            let window = hp.n_swa * if ctx.kv_unified { ctx.n_seq } else { 1 } + ctx.n_ubatch;
            kv_size.min(window).next_multiple_of(256)
        } else {
            kv_size
        };
        let mut group = KvGroup {
            sliding,
            layers: 0,
            cells,
            streams: ctx.streams(),
            type_k: options.type_k,
            type_v: options.type_v,
            k_bytes: 0,
            v_bytes: 0,
        };
        let rows = cells * ctx.streams();
        for il in 0..hp.n_layer_all {
            let in_cache = il < hp.n_layer_kv
                && !(hp.n_layer_nextn > 0 && il >= hp.n_layer())
                && hp.is_attn[il]
                && hp.is_swa[il] == sliding;
            if !in_cache {
                continue;
            }
            let k = hp.n_embd_k_gqa(il);
            let v = if ctx.flash_attn {
                hp.n_embd_v_gqa(il)
            } else {
                hp.n_embd_v_gqa_max()
            };
            group.layers += 1;
            group.k_bytes += tensor_bytes(options.type_k, k, rows)?;
            if !hp.mla {
                group.v_bytes += tensor_bytes(options.type_v, v, rows)?;
            }
        }
        if group.layers > 0 {
            groups.push(group);
        }
    }
    Ok(groups)
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
