//! The context llama.cpp makes of the options (`llama_context`'s constructor and llama-server's
//! `main`): the context rounded up to 256 cells, split between sequences unless the cache is
//! unified, the batch bounded by the context, flash attention resolved.

use super::MemoryError;
use super::hparams::HParams;
use super::options::{MAX_SEQUENCES, Options};

/// What the buffers are sized for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Context {
    /// Cells of context, all sequences together (llama.cpp's `n_ctx`).
    pub n_ctx: u64,
    /// Cells each sequence can use (`n_ctx_seq`): `n_ctx` when unified.
    pub n_ctx_seq: u64,
    /// Sequences (`n_seq_max`).
    pub n_seq: u64,
    /// Whether the sequences share one cache.
    pub kv_unified: bool,
    /// Whether flash attention runs (on a CPU `auto` runs it).
    pub flash_attn: bool,
    /// The logical batch (`n_batch`), at most the context.
    pub n_batch: u64,
    /// The physical batch (`n_ubatch`), at most `n_batch`.
    pub n_ubatch: u64,
    /// The model's trained context.
    pub n_ctx_train: u64,
}

impl Context {
    pub(crate) fn new(hp: &HParams, options: &Options) -> Result<Context, MemoryError> {
        let n_seq = u64::from(options.sequences());
        if n_seq == 0 || n_seq > u64::from(MAX_SEQUENCES) {
            return Err(MemoryError::Sequences { n_seq });
        }
        let unified = options.unified();
        if options.n_ubatch == 0 || options.n_batch == 0 {
            return Err(MemoryError::ZeroBatch);
        }
        // `-c 0`: llama-server's `--fit on` (its default) gives each stream the trained context.
        let streams = if unified { 1 } else { n_seq };
        let mut n_ctx = match options.ctx {
            0 => hp.n_ctx_train.checked_mul(streams).ok_or(MemoryError::Overflow)?,
            c => c,
        };
        if n_ctx == 0 {
            return Err(MemoryError::NoContextLength);
        }
        if n_ctx > u64::from(u32::MAX) {
            return Err(MemoryError::Overflow);
        }
        let n_batch = if hp.causal() {
            n_ctx.min(u64::from(options.n_batch))
        } else {
            u64::from(options.n_batch)
        };
        let n_ubatch = n_batch.min(u64::from(options.n_ubatch));
        n_ctx = n_ctx.next_multiple_of(256);
        let n_ctx_seq = if unified {
            n_ctx
        } else {
            let per = (n_ctx / n_seq).next_multiple_of(256);
            n_ctx = per * n_seq;
            per
        };
        let flash_attn = options.flash_attn.on_cpu();
        if !flash_attn && options.type_v.is_quantized() {
            return Err(MemoryError::QuantizedVNeedsFlashAttention);
        }
        if (hp.mla || hp.arch == "deepseek4") && options.type_k != options.type_v {
            return Err(MemoryError::MlaCacheTypes);
        }
        Ok(Context {
            n_ctx,
            n_ctx_seq,
            n_seq,
            kv_unified: unified,
            flash_attn,
            n_batch,
            n_ubatch,
            n_ctx_train: hp.n_ctx_train,
        })
    }

    /// Streams of the KV cache: one when unified, else one per sequence.
    pub fn streams(&self) -> u64 {
        if self.kv_unified { 1 } else { self.n_seq }
    }

    /// Tokens of the graph llama.cpp reserves its compute buffers for.
    pub fn graph_tokens(&self) -> u64 {
        self.n_ctx.min(self.n_ubatch)
    }
}
