//! The `memory` document: what llama.cpp allocates to run the model ([`crate::memory::buffers`]),
//! in bytes, with the options it is for. `ggufscope info --json` reports it as `memory`, and the
//! wasm memory module's `fit()` returns it: one serializer, so the two cannot drift.

use serde::Serialize;

#[cfg(feature = "schema")]
use schemars::JsonSchema;

use crate::memory::{Buffers, Context, KvGroup, MemoryKind, Options, Range, RecurrentState};

/// The buffers llama.cpp allocates, in bytes, and the options and context they are for.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Memory<'a> {
    /// llama-server's options the figures are for.
    pub options: MemoryOptions,
    /// The context llama.cpp makes of them: cells, sequences, batches, flash attention.
    pub context: &'a Context,
    /// How the model keeps its past.
    pub kind: MemoryKind,
    /// The model buffer: the weights as memory-mapped (`model_range` for a CPU's repacking).
    pub model: u64,
    /// The KV caches, K and V together, every group.
    pub kv_cache: u64,
    /// K, every group.
    pub kv_k: u64,
    /// V, every group (0 for multi-head latent attention, which keeps V in K).
    pub kv_v: u64,
    /// The recurrent state (SSM, RWKV, hybrid models); 0 without one.
    pub recurrent: u64,
    /// The output buffer: the logits of one output per sequence.
    pub output: u64,
    /// The compute buffer for one physical batch (`compute_range` for the allocator's spread).
    pub compute: u64,
    /// `model + kv_cache + recurrent + output + compute`.
    pub total: u64,
    /// The model buffer's range: up to every repackable matrix copied once more.
    pub model_range: &'a Range,
    /// The compute buffer's range.
    pub compute_range: &'a Range,
    /// The total's range.
    pub total_range: Range,
    /// The KV cache per group: the global layers, then the sliding-window ones.
    pub groups: &'a [KvGroup],
    /// The recurrent state's layers and cells; null without one.
    pub recurrent_state: Option<&'a RecurrentState>,
}

impl<'a> Memory<'a> {
    /// The document of `buffers`, sized for `options`.
    pub fn new(options: &Options, buffers: &'a Buffers) -> Memory<'a> {
        let b = buffers;
        Memory {
            options: MemoryOptions::new(options),
            context: &b.context,
            kind: b.kind,
            model: b.model.bytes,
            kv_cache: b.kv_cache(),
            kv_k: b.kv_k(),
            kv_v: b.kv_v(),
            recurrent: b.recurrent_bytes(),
            output: b.output,
            compute: b.compute.bytes,
            total: b.total().bytes,
            model_range: &b.model,
            compute_range: &b.compute,
            total_range: b.total(),
            groups: &b.kv,
            recurrent_state: b.recurrent.as_ref(),
        }
    }
}

/// llama-server's options, named as its flags are.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct MemoryOptions {
    /// `-c`: tokens of context for all sequences together; 0 for the model's trained context.
    pub ctx: u64,
    /// `-np`: sequences; null for llama-server's "auto" (4 sequences, one unified cache).
    pub parallel: Option<u32>,
    /// `--kv-unified`.
    pub kv_unified: bool,
    /// `-ctk`: `"f16"`, `"q8_0"`, ….
    pub type_k: &'static str,
    /// `-ctv`.
    pub type_v: &'static str,
    /// `-fa`: `"on"`, `"off"` or `"auto"` (on a CPU, `auto` runs flash attention:
    /// `context.flash_attn` says what ran).
    pub flash_attn: &'static str,
    /// `-ub`.
    pub ubatch: u32,
    /// `-b`.
    pub batch: u32,
}

impl MemoryOptions {
    /// The view of `o`.
    pub fn new(o: &Options) -> MemoryOptions {
        MemoryOptions {
            ctx: o.ctx,
            parallel: o.parallel,
            kv_unified: o.kv_unified,
            type_k: o.type_k.name(),
            type_v: o.type_v.name(),
            flash_attn: o.flash_attn.name(),
            ubatch: o.n_ubatch,
            batch: o.n_batch,
        }
    }
}
