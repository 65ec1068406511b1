//! The one way the ggufscope wasm crates hand values to JavaScript: plain objects (not `Map`s),
//! `null` for absent values, u64 figures as `BigInt` so that none loses precision
//! (`web/numbers.js` turns those below 2^53 into numbers), and errors as `Error`s. The memory
//! cap is the other thing the crates share: `gguf-wasm-build`, from `wasm-pack.toml`.
#![forbid(unsafe_code)]

use serde::Serialize;
use wasm_bindgen::{JsError, JsValue};

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
