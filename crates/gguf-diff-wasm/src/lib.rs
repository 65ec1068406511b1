//! WebAssembly bindings of `gguf-diff`'s header comparison for `compare(a, b)` in
//! `web/compare.js`: decode two files' headers and give the document `ggufscope diff --json`
//! prints (`gguf_diff::json::Document`), so the page and the CLI cannot disagree.
//!
//! A module of its own, apart from `gguf-wasm`, so that the viewer's parser (held under 100 KB
//! gzipped) does not carry the comparison and its JSON: `web/compare.js` fetches this one when
//! two files are compared.
//!
//! Each file is a [`GgufHeader`], fed where its `nextRead()` says (the core's read rule, the same
//! as the viewer's; tensor data is never asked for); [`compare`] then takes both.
#![forbid(unsafe_code)]

use gguf_core::HeaderDecoder;
use gguf_core::split::SplitModel;
use gguf_diff::json::Document;
use gguf_wasm_js::{error, next_read, parse_error, to_js};
use wasm_bindgen::prelude::*;

/// The most memory this module may grow to, in bytes: its `max-memory` in `wasm-pack.toml`, set
/// by the build script. `web/compare.js` names it when two headers need more.
#[wasm_bindgen(js_name = maxMemory)]
pub fn max_memory() -> f64 {
    gguf_wasm_js::max_memory(env!("WASM_MAX_MEMORY"))
}

/// How many bytes the first read of a header asks for (the core's `FIRST_READ`): what
/// `web/compare.js` asks of a server first when a file is a URL.
#[wasm_bindgen(js_name = firstRead)]
pub fn first_read() -> f64 {
    gguf_core::read::FIRST_READ as f64
}

/// One file's header, being decoded.
#[wasm_bindgen]
pub struct GgufHeader {
    decoder: HeaderDecoder,
}

#[wasm_bindgen]
impl GgufHeader {
    /// A decoder for a file of `file_size` bytes (`Blob.size`).
    #[wasm_bindgen(constructor)]
    pub fn new(file_size: f64) -> GgufHeader {
        GgufHeader {
            decoder: HeaderDecoder::new(Some(file_size as u64)),
        }
    }

    /// The bytes to read and feed next, `{ offset, length }` (the core's read rule), or `null`
    /// once the header is decoded.
    #[wasm_bindgen(js_name = nextRead, unchecked_return_type = "ReadRange | null")]
    pub fn next_read(&self) -> Result<JsValue, JsValue> {
        next_read(self.decoder.next_read())
    }

    /// Feeds the bytes read for the last `nextRead()` (or fewer). Throws a `ParseError`
    /// (`{ message, offset, context }`) when the file is malformed.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        match self.decoder.feed(bytes) {
            Ok(_) => Ok(()),
            Err(e) => Err(parse_error(&e)),
        }
    }
}

/// Compares A (the reference, opened as `a_name`) with B (`b_name`): the document `ggufscope
/// diff --json` prints without `--values` (u64 figures as BigInt). Takes both headers — they are
/// freed here —, as a model of one file each: a shard of a split model is compared alone.
#[wasm_bindgen]
pub fn compare(a: GgufHeader, a_name: &str, b: GgufHeader, b_name: &str) -> Result<JsValue, JsValue> {
    let model = |side: GgufHeader, name: &str| {
        let header = side.decoder.into_header().ok_or_else(|| {
            error(format!(
                "{name}: the header is not read yet: feed what nextRead() asks"
            ))
        })?;
        Ok::<_, JsValue>(SplitModel::new(vec![(name.to_string(), header)]))
    };
    let (a, b) = (model(a, a_name)?, model(b, b_name)?);
    let diff = gguf_diff::diff(a.header(), b.header());
    to_js(&Document {
        a_name,
        b_name,
        a: &a,
        b: &b,
        diff: &diff,
        values: None,
    })
}
