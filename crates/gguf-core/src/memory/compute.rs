//! The compute buffer: ggml's graph allocator packs the intermediate tensors of the graph
//! llama.cpp reserves at start (`sched_reserve`: one physical batch of `min(n_ctx, n_ubatch)`
//! tokens against the whole cache, one output per sequence) into one buffer, reusing a tensor's
//! memory once its last user has run. Its size is the most the graph holds at once, plus the
//! holes the allocator's placement leaves.
//!
//! What the graph holds at once is its inputs, live from start to end, and the peak of one
//! block of one layer (or of the output):
//! - the inputs: the token embeddings; per KV cache its mask (`cells × tokens`, f16 with flash
//!   attention, f32 without) and, without flash attention, the indices V is scattered by (one
//!   i64 per value of a token's V row); an encoder's mask over the batch; per-layer token
//!   embeddings (Gemma 3n and 4);
//! - attention without flash attention: the scores `KQ` (`cells × tokens × heads` f32) and the
//!   query (an encoder's K and V too, which no cache holds); with it, the query twice (rotated,
//!   and the latent query of multi-head latent attention);
//! - a dense feed-forward block: its gate, up and gated projections (`n_ff × tokens` f32 each);
//!   an ungated one (BERT) its activation only; a mixture of experts: the gate, up and gated
//!   projections of every used expert, or the gated ones and their output, whichever is more;
//! - a recurrent block: its input projection, convolution, scan output and the sequences' states
//!   (Mamba, Mamba 2, a gated delta net); RWKV's time mix, whose interpolated inputs,
//!   projections and WKV output are `n_embd × tokens` each;
//! - the output: the logits of the outputs.
//!
//! Each block also keeps the residual stream. The allocator's holes are a few residual-stream
//! rows in the graphs llama.cpp 0c1e570 builds (`tests/reference/memory`: within 10% of its own on
//! every reference case); the range runs from the live tensors alone to the worst holes seen.
//! An architecture not in the reference data gets the same estimate with a wider range.

use super::architectures::in_reference;
use super::context::Context;
use super::estimate::Range;
use super::hparams::{HParams, MemoryKind, Mixer};
use super::kv_cache::KvGroup;

/// Architectures whose layers run attention beside the feed-forward block, or beside the SSM
/// (Falcon-H1), from the same normed input.
const PARALLEL: [&str; 6] = ["command-r", "cohere2", "cohere2moe", "phi2", "gptj", "falcon-h1"];

/// Bytes of `n` f32 values.
fn f32s(n: u64) -> u64 {
    n.saturating_mul(4)
}

/// The estimate, with the allocator's spread around it.
pub(crate) fn compute_bytes(hp: &HParams, ctx: &Context, kv: &[KvGroup]) -> Range {
    let inputs = inputs(hp, ctx, kv);
    let peak = peak(hp, ctx, kv);
    let row = f32s(hp.n_embd * ctx.graph_tokens());
    let live = inputs + peak.live;
    let bytes = live + peak.holes;
    if in_reference(&hp.arch) {
        Range {
            bytes,
            low: live - live / 20,
            high: bytes + 2 * row + bytes / 20,
        }
    } else {
        // Not held to llama.cpp's figures: its graph may hold more than this model of it.
        Range {
            bytes,
            low: live - live / 5,
            high: bytes + 4 * row + bytes / 4,
        }
    }
}

/// What one block holds at once, and the holes the allocator leaves below it: a few
/// residual-stream rows where the previous block's tensors do not fit its own.
#[derive(Clone, Copy, Default)]
struct Block {
    live: u64,
    holes: u64,
}

impl Block {
    fn most(self, other: Block) -> Block {
        if other.live + other.holes > self.live + self.holes {
            other
        } else {
            self
        }
    }
}

/// The tensors live through the whole graph.
fn inputs(hp: &HParams, ctx: &Context, kv: &[KvGroup]) -> u64 {
    let t = ctx.graph_tokens();
    let mask = if ctx.flash_attn { 2 } else { 4 };
    let mut bytes = f32s(hp.n_embd * t) + f32s(hp.n_embd_per_layer * hp.n_layer() as u64 * t);
    for g in kv {
        bytes += g.cells * t * mask;
        if !ctx.flash_attn && !hp.mla {
            bytes += 8 * hp.n_embd_v_gqa_max() * t;
        }
        // A quantized cache rotates K and V (Hadamard matrices, `attn_rot_k`/`attn_rot_v`).
        let head_k = if g.sliding { hp.head_k_swa } else { hp.head_k_full };
        if g.type_k.is_quantized() && hp.head_k_full % 64 == 0 && head_k > 0 {
            let mut rot = 64;
            while head_k % (2 * rot) == 0 {
                rot *= 2;
            }
            bytes += f32s(rot * rot);
        }
        if g.type_v.is_quantized() && !hp.mla && hp.head_v_full % 64 == 0 {
            bytes += f32s(64 * 64);
        }
    }
    if encoder(hp) {
        bytes += t * t * mask;
    }
    bytes
}

/// Whether attention runs over the batch itself, without a cache (BERT and its kin).
fn encoder(hp: &HParams) -> bool {
    hp.kind == MemoryKind::None && hp.n_head.iter().any(|&h| h > 0)
}

/// The block that holds the most at once, the residual stream with it.
fn peak(hp: &HParams, ctx: &Context, kv: &[KvGroup]) -> Block {
    let t = ctx.graph_tokens();
    let row = f32s(hp.n_embd * t);
    // Holes of one and a half rows below a block, one below a recurrent mixer.
    let holes = row + row / 2;
    let outputs = t.min(ctx.n_seq);
    let mut peak = Block {
        live: f32s(hp.n_vocab * outputs) + row,
        holes: row,
    };

    let heads = hp.n_head.iter().copied().max().unwrap_or(0);
    let query = f32s(heads * hp.head_k_full.max(hp.head_k_swa) * t);
    let n_kv = if encoder(hp) {
        t
    } else {
        kv.iter().map(|g| g.cells).max().unwrap_or(0)
    };
    if n_kv > 0 && heads > 0 {
        let live = if ctx.flash_attn {
            2 * query + 2 * row
        } else if encoder(hp) {
            let value = f32s(heads * hp.head_v_full * t);
            f32s(n_kv * t * heads) + 2 * query + value + row
        } else {
            f32s(n_kv * t * heads) + query + row
        };
        peak = peak.most(Block { live, holes });
    }

    // A block that runs attention beside the feed-forward block (or the SSM) holds its output
    // until both are summed.
    let beside = if PARALLEL.contains(&hp.arch.as_str()) {
        row
    } else {
        0
    };
    let ffn = &hp.ffn;
    if ffn.dense > 0 {
        let hidden = f32s(ffn.dense * t);
        // An ungated block's activation is its only wide tensor, and leaves no holes.
        peak = peak.most(if ffn.gated {
            Block {
                live: 3 * hidden + row + beside,
                holes,
            }
        } else {
            Block {
                live: hidden + 2 * row + beside,
                holes: 0,
            }
        });
    }
    if ffn.expert > 0 {
        let hidden = f32s(ffn.expert * hp.n_expert_used * t);
        let out = f32s(hp.n_embd * hp.n_expert_used * t);
        // A shared expert reads the block's input after the routed ones: it stays live.
        let shared = if ffn.shared > 0 { row } else { 0 };
        peak = peak.most(if out > 2 * hidden {
            // The experts' output does not fit where their gate and up projections were: it
            // goes above them, and their space is a hole below it.
            Block {
                live: hidden + out + row + shared + beside,
                holes: 2 * hidden + holes,
            }
        } else {
            Block {
                live: 3 * hidden + row + shared + beside,
                holes,
            }
        });
    }

    let ssm = &hp.ssm;
    let states = f32s(ctx.n_seq * (hp.n_embd_r + hp.n_embd_s));
    let inner = f32s(ssm.d_inner * t);
    let groups = 2 * ssm.n_group * ssm.d_state;
    let wkv = 2 * f32s(ctx.n_seq * hp.n_embd_s);
    let mixer = match ssm.mixer {
        Mixer::None => 0,
        Mixer::Mamba => 5 * inner + f32s((ssm.dt_rank + 2 * ssm.d_state) * t) + states + row,
        Mixer::Mamba2 => {
            let projection = f32s((2 * ssm.d_inner + groups + ssm.dt_rank) * t);
            let convolution = f32s((ssm.d_inner + groups) * t);
            projection + convolution + 2 * inner + states + row
        }
        Mixer::DeltaNet => 2 * f32s((ssm.d_inner + groups) * t) + states + 2 * row,
        Mixer::ShortConv => 5 * row + states,
        Mixer::Rwkv6 => 12 * row + wkv,
        Mixer::Rwkv7 => 17 * row + wkv,
    };
    peak.most(Block {
        live: mixer + beside,
        holes: row,
    })
}
