//! The compute buffer: ggml's graph allocator packs the intermediate tensors of the graph
//! llama.cpp reserves at start (`sched_reserve`: one physical batch of `min(n_ctx, n_ubatch)`
//! tokens against the whole cache, one output per sequence) into one buffer, reusing a tensor's
//! memory once its last user has run. Its size is the graph's peak of live tensors.
//!
//! The attention masks (one per cache, `cells × tokens`, f16 with flash attention, f32
//! without) live through the whole graph, and so does the residual stream; on top of them the
//! peak is at one of these places of a layer, or at the output:
//! - attention without flash attention: the scores `KQ` (`cells × tokens × heads` f32), the
//!   query and the result; with it, the query and the result;
//! - a dense feed-forward block: its gate, up and gated projections (`n_ff × tokens` f32
//!   each); a mixture of experts: those of every used expert;
//! - a Mamba block: its projections and scan, about six `d_inner × tokens` rows, and the
//!   sequences' states;
//! - the output: the logits of the outputs.
//!
//! The allocator's placement leaves holes between tensors: the figure adds the few
//! residual-stream-sized holes the graphs llama.cpp builds for its 0c1e570 show (within 10% of
//! its own on every reference case, most within 5%); the range is ±10%.

use super::context::Context;
use super::estimate::Range;
use super::hparams::HParams;
use super::kv_cache::KvGroup;

/// Bytes of `n` f32 values.
fn f32s(n: u64) -> u64 {
    n.saturating_mul(4)
}

/// The estimate, with the allocator's spread around it.
pub(crate) fn compute_bytes(hp: &HParams, ctx: &Context, kv: &[KvGroup]) -> Range {
    let t = ctx.graph_tokens();
    let outputs = t.min(ctx.n_seq);
    let heads = hp.n_head.iter().copied().max().unwrap_or(0);
    let head_k = hp.head_k_full.max(hp.head_k_swa);
    let head_v = hp.head_v_full.max(hp.head_v_swa);
    let resid = f32s(hp.n_embd * t);
    let mask_bytes = if ctx.flash_attn { 2 } else { 4 };
    let masks: u64 = kv.iter().map(|g| g.cells * t * mask_bytes).sum();
    let n_kv = kv.iter().map(|g| g.cells).max().unwrap_or(0);

    let logits = f32s(hp.n_vocab * outputs) + resid;
    let mut peak = logits;
    let n_ff = hp.n_ff.iter().copied().max().unwrap_or(0);
    if n_ff > 0 && (hp.n_expert == 0 || hp.n_dense_lead > 0) {
        peak = peak.max(f32s(3 * n_ff * t) + 3 * resid);
    }
    if hp.n_expert > 0 {
        let n_ff_exp = if hp.n_ff_exp > 0 { hp.n_ff_exp } else { n_ff };
        let used = hp.n_expert_used;
        peak = peak.max(f32s(3 * n_ff_exp * used * t) + f32s(hp.n_embd * used * t) + resid);
    }
    if n_kv > 0 {
        let attention = if ctx.flash_attn {
            f32s(2 * heads * head_k * t) + resid
        } else {
            f32s(n_kv * t * heads) + f32s(heads * head_k * t) + f32s(heads * head_v * t) + 2 * resid
        };
        peak = peak.max(attention);
    }
    if hp.ssm_d_inner > 0 {
        let states = f32s(ctx.n_seq * (hp.n_embd_r + hp.n_embd_s));
        peak = peak.max(f32s(6 * hp.ssm_d_inner * t) + states);
    }
    let bytes = masks + resid + peak;
    Range {
        bytes,
        low: bytes - bytes / 10,
        high: bytes + bytes / 10,
    }
}
