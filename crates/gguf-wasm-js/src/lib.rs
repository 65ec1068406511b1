//! The one way the ggufscope wasm crates hand values to JavaScript: plain objects (not `Map`s),
//! `null` for absent values, u64 figures as `BigInt` so that none loses precision
//! (`web/numbers.js` turns those below 2^53 into numbers), errors as `Error`s, and the shapes every
//! module shares — the next read (`{offset, length}`), an error (`ParseError`, the core's
//! `ErrorDocument`: `{code, message, offset, context}`, its numbers plain), the memory
//! cap. The cap itself is set by `gguf-wasm-build`, from `wasm-pack.toml`.
#![forbid(unsafe_code)]

use gguf_core::read::Read;
use gguf_core::{Error, ErrorDocument};
use serde::Serialize;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsError, JsValue};

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** Bytes to read next: `length` bytes from `offset`. */
export interface ReadRange { offset: number; length: number }
/**
 * An error, in the one shape of every ggufscope error (the CLI's `validate --json` too): a stable
 * `code` (README, "Errors": `not-gguf`, `truncated`, `read-failed`, …), what went wrong and in
 * which key or tensor, the absolute byte offset (null when no place is known), and the part of
 * the header being read (null outside the decoder).
 */
export interface ParseError {
  code: string;
  message: string;
  offset: number | null;
  context:
    | { section: "header" }
    | { section: "kv"; index: number; key: string | null; element: number | null }
    | { section: "tensor"; index: number; name: string | null }
    | null;
}
"#;

/// `value` as a JavaScript value.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let serializer = serde_wasm_bindgen::Serializer::new()
        .serialize_maps_as_objects(true)
        .serialize_missing_as_null(true)
        .serialize_large_number_types_as_bigints(true);
    Ok(value.serialize(&serializer)?)
}

/// A JavaScript `Error` with `message`.
pub fn error(message: impl core::fmt::Display) -> JsValue {
    JsError::new(&message.to_string()).into()
}

/// The bytes to read next, `{ offset, length }`, or `null` when nothing more is needed: what
/// every module's `nextRead()` answers.
pub fn next_read(read: Option<Read>) -> Result<JsValue, JsValue> {
    match read {
        Some(read) => to_js(&ReadRange {
            offset: read.offset as f64,
            length: read.len as f64,
        }),
        None => Ok(JsValue::NULL),
    }
}

/// A malformed file as a `ParseError`, the core's [`ErrorDocument`]: its code, the message
/// (without the offset, which the page shows on its own), the absolute byte offset, and the key or
/// tensor being read.
pub fn parse_error(e: &Error) -> JsValue {
    document(&ErrorDocument::of(e))
}

/// `e` with its offset and indices as numbers, not BigInt: they are far below 2^53 (a file's
/// size), and the page does arithmetic with them.
fn document(e: &ErrorDocument<'_>) -> JsValue {
    let serializer = serde_wasm_bindgen::Serializer::new()
        .serialize_maps_as_objects(true)
        .serialize_missing_as_null(true);
    e.serialize(&serializer).unwrap_or_else(|e| e.into())
}

/// The most memory the calling module may grow to, in bytes, from the figure its build script
/// set (`env!("WASM_MAX_MEMORY")`). Parsed as an integer: float parsing would weigh on a module.
pub fn max_memory(figure: &str) -> f64 {
    figure.parse::<u64>().map_or(f64::NAN, |bytes| bytes as f64)
}

#[derive(Serialize)]
struct ReadRange {
    offset: f64,
    length: f64,
}

/// A file's header, being decoded from JavaScript: the module that reads headers on the calling
/// thread asks `nextRead()` where to read (the core's read rule) and `feed`s what it read.
#[cfg(feature = "header")]
#[wasm_bindgen]
pub struct GgufHeader {
    decoder: gguf_core::HeaderDecoder,
}

#[cfg(feature = "header")]
#[wasm_bindgen]
impl GgufHeader {
    /// A decoder for a file of `file_size` bytes (`Blob.size`).
    #[wasm_bindgen(constructor)]
    pub fn new(file_size: f64) -> GgufHeader {
        GgufHeader {
            decoder: gguf_core::HeaderDecoder::new(Some(file_size as u64)),
        }
    }

    /// The bytes to read and feed next, `{ offset, length }` (the core's read rule), or `null`
    /// once the header is decoded.
    #[wasm_bindgen(js_name = nextRead, unchecked_return_type = "ReadRange | null")]
    pub fn next_read(&self) -> Result<JsValue, JsValue> {
        next_read(self.decoder.next_read())
    }

    /// Feeds the bytes read for the last `nextRead()` (or fewer). Throws a `ParseError`
    /// (`{ code, message, offset, context }`) when the file is malformed.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        match self.decoder.feed(bytes) {
            Ok(_) => Ok(()),
            Err(e) => Err(parse_error(&e)),
        }
    }
}

#[cfg(feature = "header")]
impl GgufHeader {
    /// The decoded header, or `None` while it is still being read.
    pub fn into_header(self) -> Option<gguf_core::Header> {
        self.decoder.into_header()
    }
}
