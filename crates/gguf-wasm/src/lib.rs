//! WebAssembly bindings of the ggufscope crates for the browser viewer, nothing but glue: one
//! crate, built once per module (`wasm-pack.toml`), each module a cargo feature.
//!
//! - `viewer`: a [`GgufSession`] decodes a file's header from the bytes it is fed — a local
//!   file's as one stream that the session opens on it through web-sys (`Blob.slice` +
//!   `Blob.stream`), chunk by chunk as they arrive; other sources' where its `nextRead()` says,
//!   by the core's read rule. The sessions then make one `GgufModel`, which answers every
//!   question the page asks (report, array pages, tensor ranges, memory, tokens), and
//!   `jinjaSpans` gives the core's Jinja tokens to highlight a template with.
//! - `memory`: the buffers llama.cpp allocates to run a model (`MemoryModel`), the page's "Will
//!   it fit".
//! - `values`: a tensor's values measured (`TensorValues`), two tensors' values compared
//!   (`PairValues`), the dequantizers alone (`Dequantizer`); built with and without wasm SIMD.
//! - `edit`: a decoded header edited and written (`GgufEditor`).
//! - `diff`: two models' headers compared (`Comparison`), the values' errors recorded.
//! - `upstream`: a model checked against its upstream configuration (`check`).
//! - `template`: the chat template preview: the prompt llama.cpp builds (`applyTemplate`), the
//!   template lint (`lintTemplates`).
//! - `tokenizer`: text to token ids and back as llama.cpp does it (`GgufTokenizer`).
//!
//! Every module that reads a header has the same [`GgufSession`] (one decoder binding), every
//! module throws the same error shape and caps its memory the same way ([`max_memory`], set by
//! the build script from `wasm-pack.toml`). Decoding, the read rule, the checks and the JSON
//! shapes all live in the crates these bind. Values cross as [`js`] converts them: u64 figures
//! as `BigInt`, byte positions and indices as numbers (a `File` is smaller than 2^53 bytes).
#![forbid(unsafe_code)]

pub mod js;
#[cfg(any(
    feature = "viewer",
    feature = "edit",
    feature = "diff",
    feature = "upstream",
    feature = "memory",
    feature = "tokenizer",
    feature = "template"
))]
mod session;

#[cfg(feature = "diff")]
mod diff;
#[cfg(feature = "edit")]
mod edit;
#[cfg(feature = "memory")]
mod memory;
#[cfg(feature = "template")]
mod template;
#[cfg(feature = "tokenizer")]
mod tokenizer;
#[cfg(feature = "upstream")]
mod upstream;
#[cfg(feature = "values")]
mod values;
#[cfg(feature = "viewer")]
mod viewer;

#[cfg(feature = "memory")]
pub use memory::MemoryModel;
#[cfg(any(
    feature = "viewer",
    feature = "edit",
    feature = "diff",
    feature = "upstream",
    feature = "memory",
    feature = "tokenizer",
    feature = "template"
))]
pub use session::{GgufSession, first_read, shard_names};
#[cfg(feature = "viewer")]
pub use viewer::{GgufModel, jinja_kinds, jinja_spans};

use wasm_bindgen::prelude::*;

/// The most memory this module may grow to, in bytes: its `max-memory` in `wasm-pack.toml`, set
/// by the build script. The page names it when a file needs more (web/failures.js).
#[wasm_bindgen(js_name = maxMemory)]
pub fn max_memory() -> f64 {
    // Parsed as an integer: float parsing would weigh on the module.
    env!("WASM_MAX_MEMORY")
        .parse::<u64>()
        .map_or(f64::NAN, |bytes| bytes as f64)
}
