//! The values module: tensor values decoded by the core's dequantizers — a look at one tensor's
//! ([`TensorValues`], as `ggufscope tensor` gives it), two tensors' compared ([`PairValues`], as
//! `ggufscope diff --values` measures them), blocks decoded alone ([`Dequantizer`]).
//!
//! A module of its own because of its size: the decoders and the i-quant grids would take the
//! viewer's module past its 100 KB (gzipped) budget, and the comparison's module has no use for
//! them but here. It is built twice (`wasm-pack.toml`): with wasm SIMD (`simd128`,
//! `web/pkg-values-simd`), which the worker loads where the browser runs it, and without
//! (`web/pkg-values`) for the others; both give the same values, bit for bit.
//!
//! The bytes are located elsewhere — a peek's by the viewer's `GgufModel.tensorPrefix`, a
//! pair's by the diff module's `Comparison.sides` — and cross as a `ValuesPrefix`; then the
//! object says which bytes to read next (`nextRead`, the core's rule, the same as the CLI's),
//! the worker reads them with `File.slice` or a Range request and `feed`s them, and `finish`
//! gives the figures. Memory stays bounded whatever the tensor's size.

use gguf_core::{Endian, GgmlType};
use gguf_diff::{Side, ValuePairs, Which};
use gguf_values::dequant::{self, Prefix};
use gguf_values::values;
use js_sys::Reflect;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::js::{error, next_read, to_js};

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** A float, or "nan", "inf", "-inf". */
export type Float = number | "nan" | "inf" | "-inf";
/** The values of a tensor (`ggufscope tensor --json`'s `stats`); counts are BigInt. */
export interface TensorStats {
  count: bigint; nan: bigint; pos_inf: bigint; neg_inf: bigint; zeros: bigint; all_zero: boolean;
  min: Float | null; max: Float | null; mean: Float | null; variance: Float | null; std_dev: Float | null;
  first: Float[];
  histogram: { min: Float; max: Float; counts: bigint[] };
}
/** The next read of a pair: which tensor's file (`a` or `b`), where and how much. */
export interface PairRead { which: "a" | "b"; offset: number; length: number }
"#;

/// A `ValuesPrefix` (`{typeId, bigEndian, offset, length, rows, elements}`) as the type, byte
/// order and bytes it names.
fn prefix_of(prefix: &JsValue) -> Result<(GgmlType, Endian, Prefix), JsValue> {
    let number = |name: &str| {
        Reflect::get(prefix, &JsValue::from_str(name))
            .ok()
            .and_then(|v| v.as_f64())
            .ok_or_else(|| error(format!("the prefix has no {name}")))
    };
    let ty = GgmlType(number("typeId")? as u32);
    let big = Reflect::get(prefix, &JsValue::from_str("bigEndian"))?.is_truthy();
    let endian = if big { Endian::Big } else { Endian::Little };
    let prefix = Prefix {
        offset: number("offset")? as u64,
        len: number("length")? as u64,
        rows: number("rows")? as u64,
        elements: number("elements")? as u64,
    };
    Ok((ty, endian, prefix))
}

/// The values of one tensor, or of its first rows, being measured.
#[wasm_bindgen]
pub struct TensorValues(values::TensorValues);

#[wasm_bindgen]
impl TensorValues {
    /// Measures `prefix` (from `GgufModel.tensorPrefix`) into a histogram of `bins` bins,
    /// keeping the first `first` values. Throws for a type that cannot be decoded (an id ggml
    /// never assigned, or one it removed).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "ValuesPrefix")] prefix: JsValue,
        bins: usize,
        first: usize,
    ) -> Result<TensorValues, JsValue> {
        let (ty, endian, prefix) = prefix_of(&prefix)?;
        values::TensorValues::new(ty, endian, prefix, bins, first)
            .map(TensorValues)
            .map_err(error)
    }

    /// The bytes to read and feed next, `{ offset, length }`, or `null` when done.
    #[wasm_bindgen(js_name = nextRead, unchecked_return_type = "ReadRange | null")]
    pub fn next_read(&self) -> Result<JsValue, JsValue> {
        next_read(self.0.next_read())
    }

    /// Feeds the bytes of the last `nextRead()`.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        self.0.feed(bytes).map_err(error)
    }

    /// The statistics (`ggufscope tensor --json`'s `stats`), of what was fed; frees this object.
    #[wasm_bindgen(unchecked_return_type = "TensorStats")]
    pub fn finish(self) -> Result<JsValue, JsValue> {
        to_js(&self.0.finish())
    }
}

/// Two tensors' values being compared: a step of A's bytes, then the same values' bytes of B,
/// decoded and added up (`gguf_diff::ValuePairs`).
#[wasm_bindgen]
pub struct PairValues(ValuePairs);

#[wasm_bindgen]
impl PairValues {
    /// Compares the values of tensor `name` that `a` locates (A's, the reference) with those `b`
    /// locates (B's): the pair's `Comparison.sides`, their `file` the shard holding each. Throws
    /// when a type cannot be decoded or the two hold different numbers of values.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "ValuesPrefix")] a: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ValuesPrefix")] b: JsValue,
        name: &str,
    ) -> Result<PairValues, JsValue> {
        let side = |prefix: &JsValue| {
            let (ty, endian, located) = prefix_of(prefix)?;
            let file = Reflect::get(prefix, &JsValue::from_str("file"))?
                .as_string()
                .unwrap_or_default();
            Side::of(ty, endian, located).map_err(|e| error(format!("{file}: tensor \"{name}\": {e}")))
        };
        let (a, b) = (side(&a)?, side(&b)?);
        ValuePairs::new(a, b).map(PairValues).ok_or_else(|| {
            error(format!(
                "tensor \"{name}\": the two hold different numbers of values"
            ))
        })
    }

    /// The bytes to read and feed next, `{which: 'a'|'b', offset, length}`, or `null` when every
    /// value is compared.
    #[wasm_bindgen(js_name = nextRead, unchecked_return_type = "PairRead | null")]
    pub fn next_read(&self) -> Result<JsValue, JsValue> {
        let Some((which, read)) = self.0.next_read() else {
            return Ok(JsValue::NULL);
        };
        to_js(&PairRead {
            which: if which == Which::A { "a" } else { "b" },
            offset: read.offset as f64,
            length: read.len as f64,
        })
    }

    /// Feeds the bytes of the last `nextRead()`. Throws for bytes of another length.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        self.0.feed(bytes).map_err(error)
    }

    /// The error of B's values against A's, as its sums (`ErrorSums`, for the diff module's
    /// `Comparison.record`); frees this object. Throws when not every value was fed.
    #[wasm_bindgen(unchecked_return_type = "ErrorSums")]
    pub fn finish(self) -> Result<JsValue, JsValue> {
        if self.0.next_read().is_some() {
            return Err(error("the pair's values are not all fed yet"));
        }
        to_js(&self.0.finish())
    }
}

/// The next read of a [`PairValues`].
#[derive(Serialize)]
struct PairRead {
    which: &'static str,
    offset: f64,
    length: f64,
}

/// The dequantizers alone: blocks of one type decoded into values, with no statistics — what the
/// SIMD and fallback builds are compared and timed with.
#[wasm_bindgen]
pub struct Dequantizer {
    ty: GgmlType,
    endian: Endian,
    values: Vec<f32>,
}

#[wasm_bindgen]
impl Dequantizer {
    /// A decoder of type `typeId`'s blocks, in a big- or little-endian file's byte order. Throws
    /// for a type that cannot be decoded (an id ggml never assigned, or one it removed).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(js_name = typeId)] type_id: u32,
        #[wasm_bindgen(js_name = bigEndian)] big_endian: bool,
    ) -> Result<Dequantizer, JsValue> {
        let ty = GgmlType(type_id);
        if !dequant::is_supported(ty) {
            return Err(error(dequant::DequantError::Unsupported { ty }));
        }
        let endian = if big_endian { Endian::Big } else { Endian::Little };
        Ok(Dequantizer {
            ty,
            endian,
            values: Vec::new(),
        })
    }

    /// Bytes per block: what `decode` takes a whole number of.
    #[wasm_bindgen(getter, js_name = blockBytes)]
    pub fn block_bytes(&self) -> u32 {
        self.ty.type_size().unwrap_or(0)
    }

    /// Decodes `bytes` (whole blocks) in place of the last call's values; returns their count.
    pub fn decode(&mut self, bytes: &[u8]) -> Result<usize, JsValue> {
        self.values.clear();
        dequant::dequantize_into(self.ty, self.endian, bytes, &mut self.values).map_err(error)?;
        Ok(self.values.len())
    }

    /// The last `decode`'s values (a copy).
    pub fn values(&self) -> Vec<f32> {
        self.values.clone()
    }
}
