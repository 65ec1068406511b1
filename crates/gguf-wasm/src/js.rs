//! The one way the modules hand values to JavaScript: plain objects (not `Map`s), `null` for
//! absent values, u64 figures as `BigInt` so that none loses precision (`web/numbers.js` turns
//! those below 2^53 into numbers), refusals as `Error`s, and the shapes every module shares — the
//! next read (`{offset, length}`) and a malformed file's error (`ParseError`, the core's
//! `ErrorDocument`: `{code, message, offset, context}`, its numbers plain).

use gguf_core::read::Read;
use gguf_core::{Error, ErrorDocument};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsError, JsValue};

/// The shapes both the values and the diff module name (a pair's sides are values prefixes, its
/// error crosses as sums), declared in every module built with either.
#[cfg(any(feature = "values", feature = "diff"))]
#[wasm_bindgen(typescript_custom_section)]
const VALUES_TYPES: &str = r#"
/** Where a tensor's values are (all of them, or its first rows) and how to decode them: `GgufModel.tensorPrefix`'s, `Comparison.sides`'. */
export interface ValuesPrefix { offset: number; length: number; rows: number; elements: number; typeId: number; bigEndian: boolean; file?: string }
/** The error of B's values against A's, as its sums (gguf_diff::ErrorStats): what the diff module's `Comparison.record` takes. */
export type ErrorSums = Record<string, number | bigint>;
"#;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** Bytes to read next: `length` bytes from `offset`. */
export interface ReadRange { offset: number; length: number }
/**
 * An error, in the one shape of every ggufscope error (the CLI's `validate --json` too): a stable
 * `code` (docs/json.md, "Errors": `not-gguf`, `truncated`, `read-failed`, …), what went wrong
 * and in which key or tensor, the absolute byte offset (null when no place is known), and the part of
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

/// A value that [`to_js`] made (in this module or another built from this crate), read back.
pub fn from_js<T: DeserializeOwned>(value: JsValue) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value).map_err(error)
}

/// A JavaScript `Error` with `message`: a refusal, which the page shows (web/failures.js tells it
/// from a crash).
pub fn error(message: impl core::fmt::Display) -> JsValue {
    JsError::new(&message.to_string()).into()
}

/// The bytes to read next, `{ offset, length }`, or `null` when nothing more is needed: what
/// every `nextRead()` answers.
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
/// tensor being read — its offset and indices as numbers, not BigInt: they are far below 2^53 (a
/// file's size), and the page does arithmetic with them.
pub fn parse_error(e: &Error) -> JsValue {
    let serializer = serde_wasm_bindgen::Serializer::new()
        .serialize_maps_as_objects(true)
        .serialize_missing_as_null(true);
    ErrorDocument::of(e)
        .serialize(&serializer)
        .unwrap_or_else(|e| e.into())
}

#[derive(Serialize)]
struct ReadRange {
    offset: f64,
    length: f64,
}
