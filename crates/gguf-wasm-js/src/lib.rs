//! The one way the ggufscope wasm crates hand values to JavaScript: plain objects (not `Map`s),
//! `null` for absent values, u64 figures as `BigInt` so that none loses precision
//! (`web/numbers.js` turns those below 2^53 into numbers), errors as `Error`s, and the shapes every
//! module shares — the next read (`{offset, length}`), a malformed file (`ParseError`), the memory
//! cap. The cap itself is set by `gguf-wasm-build`, from `wasm-pack.toml`.
#![forbid(unsafe_code)]

use gguf_core::read::Read;
use gguf_core::{Context, Error};
use serde::Serialize;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsError, JsValue};

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** Bytes to read next: `length` bytes from `offset`. */
export interface ReadRange { offset: number; length: number }
/** A malformed file: what went wrong, the absolute byte offset, and the key or tensor being read. */
export interface ParseError {
  message: string;
  offset: number;
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

/// A malformed file as a `ParseError`: the message (without the offset, which the page shows on
/// its own), the absolute byte offset, and the key or tensor being read.
pub fn parse_error(e: &Error) -> JsValue {
    let context = match e.context() {
        Context::FileHeader => Some(Where::Header),
        Context::Kv { index, key, element } => Some(Where::Kv {
            index: *index as f64,
            key: key.as_deref(),
            element: element.map(|i| i as f64),
        }),
        Context::Tensor { index, name } => Some(Where::Tensor {
            index: *index as f64,
            name: name.as_deref(),
        }),
        _ => None,
    };
    fault(e.message().to_string(), e.offset(), context)
}

/// A read that failed at `offset`, as a `ParseError` with no context.
pub fn read_error(message: String, offset: u64) -> JsValue {
    fault(message, offset, None)
}

fn fault(message: String, offset: u64, context: Option<Where<'_>>) -> JsValue {
    let fault = Fault {
        message,
        offset: offset as f64,
        context,
    };
    to_js(&fault).unwrap_or_else(|e| e)
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

#[derive(Serialize)]
struct Fault<'a> {
    message: String,
    offset: f64,
    context: Option<Where<'a>>,
}

#[derive(Serialize)]
#[serde(tag = "section", rename_all = "lowercase")]
enum Where<'a> {
    Header,
    Kv {
        index: f64,
        key: Option<&'a str>,
        element: Option<f64>,
    },
    Tensor {
        index: f64,
        name: Option<&'a str>,
    },
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
    /// (`{ message, offset, context }`) when the file is malformed.
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
