//! WebAssembly bindings of `gguf-diff` for `compare(a, b)` in `web/compare.js`: decode two
//! models' headers (a split model's shards as one), give the document `ggufscope diff --json`
//! prints (`gguf_diff::json::Document`), and measure tensor values as `--values` does
//! (`gguf_diff::ValuePairs` and `ErrorStats`), so the page and the CLI cannot disagree.
//!
//! A module of its own, apart from `gguf-wasm`, so that the viewer's parser (held under 100 KB
//! gzipped) does not carry the comparison, its JSON and the dequantizers: `web/compare.js`
//! fetches this one when two files are compared.
//!
//! Each file is a [`GgufHeader`], fed where its `nextRead()` says (the core's read rule, the same
//! as the viewer's; tensor data is never asked for); a [`Comparison`] then takes both models'
//! headers. Values are measured a pair at a time: [`Comparison::values`] gives a [`PairValues`]
//! whose `nextRead()` names the file and the bytes it wants next, a slice of each tensor at a
//! time, and [`Comparison::record`] keeps its error.
#![forbid(unsafe_code)]

use gguf_core::split::SplitModel;
use gguf_diff::json::{Document, ValuesJson};
use gguf_diff::{HeaderDiff, Measured, Side, ValuePairs, Which};
use gguf_wasm_js::{GgufHeader, error, to_js};
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** A pair of tensors whose values can be compared: in both models with the same shape. */
export interface ValuePair { name: string; type_a: string; type_b: string; n: number; shard_a: string; shard_b: string; bytes_a: number; bytes_b: number }
/** The next read of a pair: which model's file (`shard`), where and how much. */
export interface PairRead { which: "a" | "b"; shard: string; offset: number; length: number }
"#;

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

/// The file names of every shard of the split model that `file_name` is a shard of
/// (`NAME-00002-of-00003.gguf`), or `undefined`: what `web/compare.js` opens beside a URL, as the
/// viewer's module's `shardNames` does for the viewer.
#[wasm_bindgen(js_name = shardNames)]
pub fn shard_names(file_name: &str) -> Option<Vec<String>> {
    gguf_core::split::ShardName::parse(file_name).map(|name| name.siblings().collect())
}

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

/// The model of decoded `headers`, the files named `files` (a split model's shards, any order).
fn model(headers: Vec<GgufHeader>, files: Vec<String>) -> Result<SplitModel, JsValue> {
    if headers.len() != files.len() || headers.is_empty() {
        return Err(error(
            "one file name is needed per header, and one header at least",
        ));
    }
    let files = headers
        .into_iter()
        .zip(files)
        .map(|(h, name)| match h.into_header() {
            Some(header) => Ok((name, header)),
            None => Err(error(format!(
                "{name}: the header is not read yet: feed what nextRead() asks"
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SplitModel::new(files))
}

#[wasm_bindgen]
impl Comparison {
    /// Compares A (the reference, opened as `a_name`, its files' headers `a` named `a_files`)
    /// with B. Takes the headers: they cannot be used afterwards.
    #[wasm_bindgen(constructor)]
    pub fn new(
        a_name: String,
        a: Vec<GgufHeader>,
        a_files: Vec<String>,
        b_name: String,
        b: Vec<GgufHeader>,
        b_files: Vec<String>,
    ) -> Result<Comparison, JsValue> {
        let (a, b) = (model(a, a_files)?, model(b, b_files)?);
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
                name: gguf_core::text::lossy(ta[i].name.as_bytes()).into_owned(),
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

    /// The values of pair `pair` (an index into `pairs()`), to measure. Throws when a tensor's
    /// type cannot be decoded or its data lies past its file's end.
    pub fn values(&self, pair: usize) -> Result<PairValues, JsValue> {
        let &(i, j) = self.pairs.get(pair).ok_or_else(|| error("no such pair"))?;
        let side = |m: &SplitModel, index: usize, name: &str| {
            let tensor = &m.header().tensors[index];
            let shard = m
                .shard_of(index)
                .ok_or_else(|| error(format!("{name}: no file holds tensor \"{}\"", tensor.name)))?;
            let side = Side::new(&shard.header, tensor)
                .map_err(|e| error(format!("{}: tensor \"{}\": {e}", shard.name, tensor.name)))?;
            Ok::<_, JsValue>((side, shard.name.clone()))
        };
        let (a, shard_a) = side(&self.a, i, &self.a_name)?;
        let (b, shard_b) = side(&self.b, j, &self.b_name)?;
        let values = ValuePairs::new(a, b).ok_or_else(|| {
            error(format!(
                "tensor \"{}\": the two hold different numbers of values",
                self.a.header().tensors[i].name
            ))
        })?;
        Ok(PairValues {
            pair,
            values,
            shards: [shard_a, shard_b],
        })
    }

    /// Keeps the error of `values` (fed to the end) as its pair's; frees `values`.
    pub fn record(&mut self, values: PairValues) -> Result<(), JsValue> {
        if values.values.next_read().is_some() {
            return Err(error("the pair's values are not all fed yet"));
        }
        let (a, b) = self.pairs[values.pair];
        self.measured[values.pair] = Some(Measured {
            a,
            b,
            stats: values.values.finish(),
        });
        Ok(())
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

/// The next read of a [`PairValues`].
#[derive(Serialize)]
struct PairRead<'a> {
    which: &'static str,
    shard: &'a str,
    offset: f64,
    length: f64,
}

/// One pair's values being compared: a step of A's bytes, then the same values' bytes of B.
#[wasm_bindgen]
pub struct PairValues {
    pair: usize,
    values: ValuePairs,
    /// The files holding A's and B's tensor.
    shards: [String; 2],
}

#[wasm_bindgen]
impl PairValues {
    /// The bytes to read and feed next, `{which: 'a'|'b', shard, offset, length}` (`shard`: the
    /// file's name, as given), or `null` when every value is compared.
    #[wasm_bindgen(js_name = nextRead, unchecked_return_type = "PairRead | null")]
    pub fn next_read(&self) -> Result<JsValue, JsValue> {
        let Some((which, read)) = self.values.next_read() else {
            return Ok(JsValue::NULL);
        };
        let side = usize::from(which == Which::B);
        to_js(&PairRead {
            which: ["a", "b"][side],
            shard: &self.shards[side],
            offset: read.offset as f64,
            length: read.len as f64,
        })
    }

    /// Feeds the bytes of the last `nextRead()`. Throws for bytes of another length.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        self.values.feed(bytes).map_err(error)
    }
}
