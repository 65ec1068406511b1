//! The diff module: two models' headers compared, as `ggufscope diff --json` compares them
//! (`gguf_diff::json::Document`), so the page and the CLI cannot disagree.
//!
//! Each file is a [`GgufSession`], fed where its `nextRead()` says (the core's read rule, the same
//! as the viewer's; tensor data is never asked for), or from the header bytes the viewer read; a
//! [`Comparison`] then takes both models' sessions (a split model's shards as one). Values are
//! compared in the values module (its SIMD build where the browser has one): [`Comparison::sides`]
//! says where a pair's bytes are, the values module's `PairValues` measures them, and
//! [`Comparison::record`] keeps its error, which [`Comparison::document`] then writes.

use gguf_core::Endian;
use gguf_core::split::SplitModel;
use gguf_core::text::lossy;
use gguf_diff::json::{Document, ValuesJson};
use gguf_diff::{ErrorStats, HeaderDiff, Measured};
use gguf_values::dequant;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::js::{error, from_js, to_js};
use crate::session::{GgufSession, named_headers};

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** A pair of tensors whose values can be compared: in both models with the same shape. */
export interface ValuePair { name: string; type_a: string; type_b: string; n: number; shard_a: string; shard_b: string; bytes_a: number; bytes_b: number }
/** Where a pair's values are in each model's file (`file`): what the values module's `PairValues` takes. */
export interface PairSides { a: ValuesPrefix; b: ValuesPrefix }
"#;

/// Two models compared: their header diff, the tensor pairs whose values can be compared, and
/// the error of each pair measured so far.
#[wasm_bindgen]
pub struct Comparison {
    a_name: String,
    b_name: String,
    a: SplitModel,
    b: SplitModel,
    diff: HeaderDiff,
    /// `(a, b)` tensor indexes of the pairs in both with one shape, in A's order.
    pairs: Vec<(usize, usize)>,
    /// Each pair's error, once measured.
    measured: Vec<Option<Measured>>,
}

#[wasm_bindgen]
impl Comparison {
    /// Compares A (the reference, opened as `a_name`, its files' decoded sessions `a` named
    /// `a_files`) with B. Takes the sessions: they cannot be used afterwards.
    #[wasm_bindgen(constructor)]
    pub fn new(
        a_name: String,
        a: Vec<GgufSession>,
        a_files: Vec<String>,
        b_name: String,
        b: Vec<GgufSession>,
        b_files: Vec<String>,
    ) -> Result<Comparison, JsValue> {
        let a = SplitModel::new(named_headers(a, a_files)?);
        let b = SplitModel::new(named_headers(b, b_files)?);
        let diff = gguf_diff::diff(a.header(), b.header());
        let pairs = diff.tensors.same_shape();
        Ok(Comparison {
            a_name,
            b_name,
            measured: vec![None; pairs.len()],
            a,
            b,
            diff,
            pairs,
        })
    }

    fn measured(&self) -> Vec<Measured> {
        self.measured.iter().flatten().cloned().collect()
    }

    /// The document `ggufscope diff --json` prints (u64 figures as BigInt); with `values`, as
    /// with `--values`: the pairs measured so far (in A's order) and their layers.
    pub fn document(&self, values: bool) -> Result<JsValue, JsValue> {
        let measured = self.measured();
        to_js(&Document {
            a_name: &self.a_name,
            b_name: &self.b_name,
            a: &self.a,
            b: &self.b,
            diff: &self.diff,
            values: values.then_some(measured.as_slice()),
        })
    }

    /// `{values, layers}` of the pairs measured so far, as the document has them with `values`.
    #[wasm_bindgen(js_name = measuredValues)]
    pub fn measured_values(&self) -> Result<JsValue, JsValue> {
        to_js(&ValuesJson {
            a: &self.a,
            b: &self.b,
            measured: &self.measured(),
        })
    }

    /// The pairs whose values can be compared (every tensor in both with the same shape), in
    /// A's order: `{name, type_a, type_b, n, shard_a, shard_b, bytes_a, bytes_b}`, `shard_*` the
    /// file holding it.
    #[wasm_bindgen(unchecked_return_type = "ValuePair[]")]
    pub fn pairs(&self) -> Result<JsValue, JsValue> {
        let (ta, tb) = (&self.a.header().tensors, &self.b.header().tensors);
        let rows: Vec<PairRow<'_>> = self
            .pairs
            .iter()
            .map(|&(i, j)| PairRow {
                name: lossy(ta[i].name.as_bytes()).into_owned(),
                type_a: ta[i].ty.to_string(),
                type_b: tb[j].ty.to_string(),
                n: ta[i].n_elements().unwrap_or(0) as f64,
                shard_a: shard(&self.a, i),
                shard_b: shard(&self.b, j),
                bytes_a: ta[i].n_bytes().unwrap_or(0) as f64,
                bytes_b: tb[j].n_bytes().unwrap_or(0) as f64,
            })
            .collect();
        to_js(&rows)
    }

    /// Where the values of pair `pair` (an index into `pairs()`) are in each file (`PairSides`),
    /// for the values module's `PairValues`. Throws when a tensor's shape is malformed or its data
    /// lies past its file's end, naming the file and the tensor.
    #[wasm_bindgen(unchecked_return_type = "PairSides")]
    pub fn sides(&self, pair: usize) -> Result<JsValue, JsValue> {
        let &(i, j) = self.pairs.get(pair).ok_or_else(|| error("no such pair"))?;
        let side = |m: &'_ SplitModel, index: usize, name: &str| -> Result<SideJson, JsValue> {
            let tensor = &m.header().tensors[index];
            let shard = m
                .shard_of(index)
                .ok_or_else(|| error(format!("{name}: no file holds tensor \"{}\"", tensor.name)))?;
            let located = dequant::prefix(&shard.header, tensor, None)
                .map_err(|e| error(format!("{}: tensor \"{}\": {e}", shard.name, tensor.name)))?;
            Ok(SideJson {
                offset: located.offset as f64,
                length: located.len as f64,
                rows: located.rows as f64,
                elements: located.elements as f64,
                type_id: tensor.ty.0,
                big_endian: shard.header.endian == Endian::Big,
                file: shard.name.clone(),
            })
        };
        to_js(&Sides {
            a: side(&self.a, i, &self.a_name)?,
            b: side(&self.b, j, &self.b_name)?,
        })
    }

    /// Keeps `sums` (the values module's `PairValues.finish()`, the pair's values fed to the
    /// end) as pair `pair`'s error; `null` forgets it (a measure stopped gives back what a pair
    /// had before it, `sums`).
    pub fn record(
        &mut self,
        pair: usize,
        #[wasm_bindgen(unchecked_param_type = "ErrorSums | null")] sums: JsValue,
    ) -> Result<(), JsValue> {
        let &(a, b) = self.pairs.get(pair).ok_or_else(|| error("no such pair"))?;
        self.measured[pair] = match sums.is_null() {
            true => None,
            false => Some(Measured {
                a,
                b,
                stats: from_js::<ErrorStats>(sums)?,
            }),
        };
        Ok(())
    }

    /// Pair `pair`'s error as recorded (`ErrorSums`), or `null` when it was not measured.
    #[wasm_bindgen(unchecked_return_type = "ErrorSums | null")]
    pub fn sums(&self, pair: usize) -> Result<JsValue, JsValue> {
        match self.measured.get(pair).ok_or_else(|| error("no such pair"))? {
            Some(m) => to_js(&m.stats),
            None => Ok(JsValue::NULL),
        }
    }
}

/// The name of the file of `model` holding tensor `index`.
fn shard(model: &SplitModel, index: usize) -> &str {
    model.shard_of(index).map_or("", |s| s.name.as_str())
}

/// One pair of [`Comparison::pairs`], as `pairs()` gives it.
#[derive(Serialize)]
struct PairRow<'a> {
    name: String,
    type_a: String,
    type_b: String,
    n: f64,
    shard_a: &'a str,
    shard_b: &'a str,
    bytes_a: f64,
    bytes_b: f64,
}

/// What [`Comparison::sides`] gives.
#[derive(Serialize)]
struct Sides {
    a: SideJson,
    b: SideJson,
}

/// One side of a pair: a `ValuesPrefix` with the file holding it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SideJson {
    offset: f64,
    length: f64,
    rows: f64,
    elements: f64,
    type_id: u32,
    big_endian: bool,
    file: String,
}
