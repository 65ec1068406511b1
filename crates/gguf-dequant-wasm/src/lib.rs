//! WebAssembly bindings of `gguf-core`'s dequantizers and tensor statistics: a look at a
//! tensor's values in the browser, as `ggufscope tensor` gives on the command line.
//!
//! A module of its own, apart from `gguf-wasm`, because of its size: the decoders and the
//! i-quant grids would take the header parser past its 100 KB (gzipped) budget. The viewer's
//! worker fetches it once the first header is shown, so the summary never waits for it.
//!
//! The page finds the bytes with `GgufSession.tensorPrefix` (the header knows where they are),
//! reads them itself — a `File.slice` per chunk, never the rest of the file — and hands them
//! over twice, chunk by chunk in file order: first for the statistics, then for the histogram
//! over the range the first pass found. Memory stays bounded whatever the tensor's size.
#![forbid(unsafe_code)]

use gguf_core::dequant::{self, DequantError};
use gguf_core::stats::{Histogram, Moments};
use gguf_core::{Endian, GgmlType};
use serde::Serialize;
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
"#;

/// The values of one tensor, or of its first rows, being measured.
#[wasm_bindgen]
pub struct TensorValues {
    ty: GgmlType,
    endian: Endian,
    bins: usize,
    moments: Moments,
    histogram: Option<Histogram>,
    /// Decoded values of the chunk at hand, reused from chunk to chunk.
    values: Vec<f32>,
}

#[wasm_bindgen]
impl TensorValues {
    /// Values of ggml type `type_id` from a file of the given byte order, to be binned in `bins`
    /// bins, keeping the first `first`. Throws for a type that cannot be decoded (an id ggml
    /// never assigned, or one it removed).
    #[wasm_bindgen(constructor)]
    pub fn new(type_id: u32, big_endian: bool, bins: usize, first: usize) -> Result<TensorValues, JsError> {
        let ty = GgmlType(type_id);
        if !dequant::is_supported(ty) {
            return Err(JsError::new(&DequantError::Unsupported { ty }.to_string()));
        }
        Ok(TensorValues {
            ty,
            endian: if big_endian { Endian::Big } else { Endian::Little },
            bins,
            moments: Moments::new(first),
            histogram: None,
            values: Vec::new(),
        })
    }

    /// Bytes per block of the type: every chunk must be a whole number of blocks.
    #[wasm_bindgen(getter, js_name = blockBytes)]
    pub fn block_bytes(&self) -> f64 {
        f64::from(self.ty.type_size().unwrap_or(1))
    }

    /// The first pass: the next chunk's values for the counts, range, mean and deviation.
    pub fn measure(&mut self, bytes: &[u8]) -> Result<(), JsError> {
        if self.histogram.is_some() {
            return Err(JsError::new("measure() after bin(): the first pass is over"));
        }
        self.decode(bytes)?;
        self.moments.add(&self.values);
        Ok(())
    }

    /// The second pass: the next chunk's values into the histogram, whose range is the one the
    /// first pass found.
    pub fn bin(&mut self, bytes: &[u8]) -> Result<(), JsError> {
        self.decode(bytes)?;
        let (bins, moments) = (self.bins, &self.moments);
        self.histogram
            .get_or_insert_with(|| moments.histogram(bins))
            .add(&self.values);
        Ok(())
    }

    /// The statistics (`ggufscope tensor --json`'s `stats`); frees this object.
    #[wasm_bindgen(unchecked_return_type = "TensorStats")]
    pub fn finish(self) -> Result<JsValue, JsValue> {
        let histogram = match self.histogram {
            Some(h) => h,
            None => self.moments.histogram(self.bins),
        };
        let stats = self.moments.finish(histogram);
        // Counts as BigInt, as in the header's report (web/numbers.js makes them numbers).
        let serializer = serde_wasm_bindgen::Serializer::new()
            .serialize_maps_as_objects(true)
            .serialize_missing_as_null(true)
            .serialize_large_number_types_as_bigints(true);
        Ok(stats.serialize(&serializer)?)
    }
}

impl TensorValues {
    /// Decodes one chunk into `self.values`.
    fn decode(&mut self, bytes: &[u8]) -> Result<(), JsError> {
        self.values.clear();
        dequant::dequantize_into(self.ty, self.endian, bytes, &mut self.values)
            .map_err(|e| JsError::new(&e.to_string()))
    }
}
