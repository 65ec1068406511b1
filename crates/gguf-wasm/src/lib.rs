//! WebAssembly bindings of `gguf-core` for the browser viewer.
//!
//! One [`GgufSession`] per opened file: the read loop (`web/read-loop.js`) feeds it the bytes the
//! decoder asks for, then takes the report (the same document as `ggufscope info --json`), pages
//! through large arrays on demand, asks where a tensor's bytes are (decoded by
//! `gguf-dequant-wasm`, a module of its own) and estimates memory. Thin on purpose: decoding, the summary and the JSON shape all
//! live in `gguf-core`; this crate only carries them across the JavaScript boundary.
//!
//! Numbers: byte positions and indices are JS numbers (a `File` is smaller than 2^53 bytes); the
//! report's u64 figures arrive as `BigInt` so that none loses precision (`web/numbers.js` turns
//! those below 2^53 into numbers).
#![forbid(unsafe_code)]

mod jinja;
mod max_memory;
mod model;
mod tokens;

pub use jinja::{jinja_kinds, jinja_spans};
pub use max_memory::MAX_MEMORY;
pub use model::{GgufModel, shard_names};

use gguf_core::dequant;
use gguf_core::memory::{self, KvType, MemoryOptions};
use gguf_core::report::{ArrayPage, Report, ReportOptions};
use gguf_core::{Context, Endian, Error, Header, HeaderDecoder, Progress, TensorInfo};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// What the report and the array pages include: the first elements of each array (the rest are
/// paged), and strings up to 256 KiB (a chat template is a few KB; an embedded tokenizer JSON of
/// tens of MB would only slow the page down).
const OPTIONS: ReportOptions = ReportOptions {
    array_head: 8,
    max_string_len: Some(256 << 10),
};

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** Where the decoder needs bytes next: at `offset`, at least `minLen` of them. */
export interface Need { offset: number; minLen: number }
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
/** The `ggufscope info --json` document; u64 figures are BigInt. */
export type GgufReport = Record<string, unknown>;
/** Where the first rows of a tensor are, and how to decode them (with gguf-dequant-wasm). */
export interface TensorPrefix { offset: number; length: number; rows: number; typeId: number; bigEndian: boolean; file: string | null }
/** The memory estimate (`ggufscope info --json --ctx N`'s `memory`); byte figures are BigInt. */
export type MemoryEstimate = Record<string, unknown>;
/** The tokenizer panel (`ggufscope tokens --json`). */
export type TokenizerReport = Record<string, unknown>;
/** A page of a token listing: how many tokens are listed, and some of them. */
export interface TokenPage { total: number; start: number; tokens: { id: number; text: string; type: string | null; score: number | string | null }[] }
"#;

/// The most memory this module may grow to, in bytes ([`MAX_MEMORY`]): the page names it when a
/// header needs more.
#[wasm_bindgen(js_name = maxMemory)]
pub fn max_memory() -> u32 {
    MAX_MEMORY
}

/// The decoder of one file's header.
#[wasm_bindgen]
pub struct GgufSession {
    decoder: HeaderDecoder,
}

#[wasm_bindgen]
impl GgufSession {
    /// A session for a file of `file_size` bytes (`File.size`).
    #[wasm_bindgen(constructor)]
    pub fn new(file_size: f64) -> GgufSession {
        #[cfg(debug_assertions)]
        console_error_panic_hook::set_once();
        GgufSession {
            decoder: HeaderDecoder::new(Some(file_size as u64)),
        }
    }

    /// The first read: `{ offset: 0, minLen: 24 }`.
    #[wasm_bindgen(js_name = firstNeed, unchecked_return_type = "Need")]
    pub fn first_need(&self) -> Result<JsValue, JsValue> {
        need(self.decoder.first_need())
    }

    /// Feeds the bytes that start where the last fed ones ended. Returns the next read,
    /// `{ offset, minLen }`, or `null` once the header is complete; throws
    /// `{ message, offset, context }` when the file is malformed.
    #[wasm_bindgen(unchecked_return_type = "Need | null")]
    pub fn feed(&mut self, bytes: &[u8]) -> Result<JsValue, JsValue> {
        match self.decoder.feed(bytes) {
            Ok(progress) => need(progress),
            Err(e) => Err(to_js(&Fault::from(&e))?),
        }
    }

    /// The report of the decoded header: summary, metadata (arrays cut to their first elements,
    /// see `arrayPage`) and tensors.
    #[wasm_bindgen(unchecked_return_type = "GgufReport")]
    pub fn report(&self) -> Result<JsValue, JsValue> {
        let header = self.header()?;
        to_js(&Report::with_options(header, OPTIONS))
    }

    /// Elements `start..start + count` of the array held by key-value pair `kv_index` (file order),
    /// fewer at the array's end.
    #[wasm_bindgen(js_name = arrayPage, unchecked_return_type = "unknown[]")]
    pub fn array_page(&self, kv_index: usize, start: usize, count: usize) -> Result<JsValue, JsValue> {
        array_page(self.header()?, kv_index, start, count)
    }

    /// Where the bytes of tensor `index` (file order) are: its first `rows` rows, all of them
    /// for `null`; with the tensor's type and byte order, what decoding them takes. Throws for a
    /// malformed shape or bytes past the end of the file.
    #[wasm_bindgen(js_name = tensorPrefix, unchecked_return_type = "TensorPrefix")]
    pub fn tensor_prefix(&self, index: usize, rows: Option<f64>) -> Result<JsValue, JsValue> {
        let header = self.header()?;
        tensor_prefix(header, header.tensors.get(index), index, rows, None)
    }

    /// The memory to run the model for `context` tokens per sequence (`null`: the model's),
    /// a KV cache of `kv_type` ("f32", "f16", "q8_0", "q4_0") and `parallel` sequences: the
    /// `memory` of `ggufscope info --json --ctx N --kv-type T --parallel P`.
    #[wasm_bindgen(unchecked_return_type = "MemoryEstimate")]
    pub fn memory(&self, context: Option<f64>, kv_type: &str, parallel: f64) -> Result<JsValue, JsValue> {
        memory_of(self.header()?, context, kv_type, parallel)
    }
}

impl GgufSession {
    fn header(&self) -> Result<&Header, JsError> {
        self.decoder
            .header()
            .ok_or_else(|| JsError::new("the header is not decoded yet"))
    }
}

/// Where the bytes of `tensor` (tensor `index`) are in the file `header` heads, named `file`
/// when the model has several.
fn tensor_prefix(
    header: &Header,
    tensor: Option<&TensorInfo>,
    index: usize,
    rows: Option<f64>,
    file: Option<&str>,
) -> Result<JsValue, JsValue> {
    let tensor = tensor.ok_or_else(|| JsError::new(&format!("there is no tensor #{index}")))?;
    let prefix =
        dequant::prefix(header, tensor, rows.map(|r| r as u64)).map_err(|e| JsError::new(&e.to_string()))?;
    to_js(&TensorPrefix {
        offset: prefix.offset as f64,
        length: prefix.len as f64,
        rows: prefix.rows as f64,
        type_id: tensor.ty.0,
        big_endian: header.endian == Endian::Big,
        file,
    })
}

/// The memory estimate of the model `header` heads (see `GgufSession.memory`).
fn memory_of(
    header: &Header,
    context: Option<f64>,
    kv_type: &str,
    parallel: f64,
) -> Result<JsValue, JsValue> {
    let kv_type = KvType::from_name(kv_type)
        .ok_or_else(|| JsError::new(&format!("unknown KV cache type {kv_type:?}")))?;
    let options = MemoryOptions {
        context: context.map(|c| c as u64),
        kv_type,
        parallel: parallel as u64,
    };
    let estimate = memory::estimate(header, &options).map_err(|e| JsError::new(&e.to_string()))?;
    to_js(&estimate)
}

/// Elements `start..start + count` of the array held by key-value pair `kv_index` of `header`.
fn array_page(header: &Header, kv_index: usize, start: usize, count: usize) -> Result<JsValue, JsValue> {
    let array = header
        .metadata
        .entries()
        .get(kv_index)
        .and_then(|entry| entry.value.as_array())
        .ok_or_else(|| JsError::new(&format!("key-value pair #{kv_index} is not an array")))?;
    to_js(&ArrayPage::new(array, start, count, OPTIONS))
}

/// Plain JS objects (not `Map`s), `null` for absent values, u64 as `BigInt`.
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let serializer = serde_wasm_bindgen::Serializer::new()
        .serialize_maps_as_objects(true)
        .serialize_missing_as_null(true)
        .serialize_large_number_types_as_bigints(true);
    Ok(value.serialize(&serializer)?)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TensorPrefix<'a> {
    offset: f64,
    length: f64,
    rows: f64,
    type_id: u32,
    big_endian: bool,
    /// The shard file the bytes are in, for a model of several files.
    file: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Need {
    offset: f64,
    min_len: f64,
}

fn need(progress: Progress) -> Result<JsValue, JsValue> {
    match progress {
        Progress::Need { offset, min_len } => to_js(&Need {
            offset: offset as f64,
            min_len: min_len as f64,
        }),
        Progress::Done => Ok(JsValue::NULL),
    }
}

/// A decoding error for the page: the message (without the offset, which the page shows on its
/// own), the absolute byte offset, and the key or tensor being read.
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

impl<'a> From<&'a Error> for Fault<'a> {
    fn from(e: &'a Error) -> Fault<'a> {
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
        Fault {
            message: e.message().to_string(),
            offset: e.offset() as f64,
            context,
        }
    }
}
