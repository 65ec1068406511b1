//! WebAssembly bindings of `gguf-values`' tensor-values decoder: a look at a tensor's values in
//! the browser, as `ggufscope tensor` gives on the command line.
//!
//! A module of its own, apart from `gguf-wasm`, because of its size: the decoders and the
//! i-quant grids would take the header parser past its 100 KB (gzipped) budget. The viewer's
//! worker fetches it once the first header is shown, so the summary never waits for it.
//!
//! The page finds the bytes with `GgufModel.tensorPrefix` (the header knows where they are);
//! then [`TensorValues`] says which bytes to read next (`nextRead`) — the core's rule, the same
//! as the CLI's — the worker reads them with `File.slice` or a Range request and `feed`s them,
//! and `finish` gives the statistics. Memory stays bounded whatever the tensor's size.
//! [`Dequantizer`] decodes blocks alone, without statistics.
//!
//! It is built twice (`wasm-pack.toml`): with wasm SIMD (`simd128`, `web/pkg-dequant-simd`), which
//! the worker loads where the browser runs it, and without (`web/pkg-dequant`) for the others;
//! both give the same values, bit for bit.
#![forbid(unsafe_code)]

use gguf_core::{Endian, GgmlType};
use gguf_values::dequant::{self, Prefix};
use gguf_values::values;
use gguf_wasm_js::{error, next_read, to_js};
use wasm_bindgen::prelude::*;

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
/** The first rows of a tensor, as `GgufModel.tensorPrefix` gives them. */
export interface ValuesPrefix { offset: number; length: number; rows: number; elements: number; typeId: number; bigEndian: boolean }
"#;

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
        let number = |name: &str| {
            js_sys::Reflect::get(&prefix, &JsValue::from_str(name))
                .ok()
                .and_then(|v| v.as_f64())
                .ok_or_else(|| error(format!("the prefix has no {name}")))
        };
        let ty = GgmlType(number("typeId")? as u32);
        let big = js_sys::Reflect::get(&prefix, &JsValue::from_str("bigEndian"))?.is_truthy();
        let endian = if big { Endian::Big } else { Endian::Little };
        let prefix = Prefix {
            offset: number("offset")? as u64,
            len: number("length")? as u64,
            rows: number("rows")? as u64,
            elements: number("elements")? as u64,
        };
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
