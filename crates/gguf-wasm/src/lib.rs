//! WebAssembly bindings of `gguf-core` for the browser viewer, nothing but glue.
//!
//! A [`GgufSession`] decodes a file's header from the bytes it is fed: a local file's as one
//! stream that the session opens on it through web-sys (`Blob.slice` + `Blob.stream`), chunk by
//! chunk as they arrive; other sources' where its `nextRead()` says, by the core's read rule. The
//! sessions then make one [`GgufModel`], which answers every question the page asks (report,
//! array pages, tensor ranges, memory, tokens). [`jinja_spans`] gives the page the core's Jinja
//! tokens to highlight a template with. Decoding, the summary, the read rule, the lexer and the
//! JSON shape all live in `gguf-core`. Values cross as `gguf-wasm-js` converts
//! them: u64 figures as `BigInt`, byte positions and indices as numbers (a `File` is smaller than
//! 2^53 bytes).
#![forbid(unsafe_code)]

mod jinja;
mod model;
mod session;
mod summary;

pub use jinja::{jinja_kinds, jinja_spans};
pub use model::{GgufModel, shard_names};
pub use session::GgufSession;

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** How a header was read so far. */
export interface ReadStats { bytesRead: number; reads: number; fileSize: number }
/** The `ggufscope info --json` document; u64 figures are BigInt. */
export type GgufReport = Record<string, unknown>;
/** Where the first rows of a tensor are, and how to decode them (with gguf-dequant-wasm). */
export interface TensorPrefix { offset: number; length: number; rows: number; elements: number; typeId: number; bigEndian: boolean; file: string }
/** The memory estimate (`ggufscope info --json --ctx N`'s `memory`); byte figures are BigInt. */
export type MemoryEstimate = Record<string, unknown>;
/** The tokenizer panel (`ggufscope tokens --json`). */
export type TokenizerReport = Record<string, unknown>;
/** A page of a token listing: how many tokens are listed, and some of them. */
export interface TokenPage { total: number; start: number; tokens: { id: number; text: string; type: string | null; score: number | string | null }[] }
"#;

/// The most memory this module may grow to, in bytes: its `max-memory` in `wasm-pack.toml`,
/// set by the build script. The page names it when a header needs more.
#[wasm_bindgen(js_name = maxMemory)]
pub fn max_memory() -> f64 {
    // Parsed as an integer: float parsing would weigh on the module.
    env!("WASM_MAX_MEMORY")
        .parse::<u64>()
        .map_or(f64::NAN, |bytes| bytes as f64)
}

/// The size of the first header read (the core's `read::FIRST_READ`): what a URL's first
/// request fetches along with the file's size.
#[wasm_bindgen(js_name = firstRead)]
pub fn first_read() -> f64 {
    gguf_core::read::FIRST_READ as f64
}
