//! What llama.cpp will allocate to run a model, computed from its header: the buffers
//! llama-server logs as it loads, sized by llama.cpp's own rules (commit 0c1e570), for the
//! options it is run with.
//!
//! - the model buffer: the weights ([`model_buffer`](Buffers::model));
//! - the KV cache, one group per kind of layer: the global cache and the sliding-window one
//!   (`kv_cache.rs`);
//! - the recurrent state of SSM, RWKV and hybrid models (`recurrent.rs`);
//! - the output buffer: the logits (`output.rs`);
//! - the compute buffer: the largest intermediate tensors of the graph for one physical batch
//!   (`compute.rs`).
//!
//! [`buffers`] is the entry point; [`plan`] lays the model out on the user's devices
//! (`plan.rs`). The options mean what llama-server's mean ([`Options`]),
//! with its defaults. Figures that the header cannot fix (a CPU's repacked weights, the graph
//! allocator's placement) come with a range and the reason. `tests/it/memory_reference.rs` holds
//! every figure to llama.cpp's own, recorded by `scripts/reference/memory-refs.py`. An
//! architecture llama.cpp refuses, or sizes by rules not followed here, is an error saying so
//! (`architectures.rs`), never a figure.

mod architectures;
mod compute;
mod context;
mod estimate;
mod hparams;
mod kv_cache;
mod model_buffer;
mod options;
mod output;
mod plan;
mod recurrent;

pub use context::Context;
pub use estimate::{Buffers, MemoryError, Range, buffers};
pub use hparams::{MAX_LAYERS, MemoryKind};
pub use kv_cache::KvGroup;
pub use options::{CacheType, FlashAttention, MAX_SEQUENCES, Options};
pub use plan::{DeviceUse, Devices, GPU_MARGIN, MIN_FIT_CONTEXT, MaxContext, Plan, Sidecar, Verdict, plan};
pub use recurrent::RecurrentState;

/// The alignment of tensors in a CPU buffer (ggml's `TENSOR_ALIGNMENT`).
pub(crate) const CPU_ALIGNMENT: u64 = 32;

/// Bytes in a MiB, the unit of llama.cpp's logs.
pub const MIB: u64 = 1024 * 1024;
