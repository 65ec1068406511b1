//! A model read from one file or from several (the shards of a split model): the decoded
//! sessions go in, the report of the whole comes out (`gguf_core::split::SplitModel`), and the
//! page pages through its metadata's arrays as with one file.

use gguf_core::report::Report;
use gguf_core::split::{ShardName, SplitModel};
use wasm_bindgen::prelude::*;

use crate::tokens::LastSearch;
use crate::{GgufSession, OPTIONS, array_page, memory_of, tensor_prefix, to_js};

/// One model made of one or more decoded files.
#[wasm_bindgen]
pub struct GgufModel {
    pub(crate) model: SplitModel,
    pub(crate) last_search: LastSearch,
}

#[wasm_bindgen]
impl GgufModel {
    /// The model of the decoded `sessions`, whose files are named `names` (same order; any
    /// order of shards). The sessions are taken: they cannot be used afterwards.
    #[wasm_bindgen(constructor)]
    pub fn new(sessions: Vec<GgufSession>, names: Vec<String>) -> Result<GgufModel, JsError> {
        if sessions.len() != names.len() {
            return Err(JsError::new("one name is needed per session"));
        }
        let files = sessions
            .into_iter()
            .zip(names)
            .map(|(session, name)| match session.decoder.into_header() {
                Some(header) => Ok((name, header)),
                None => Err(JsError::new(&format!("the header of {name} is not decoded yet"))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(GgufModel {
            model: SplitModel::new(files),
            last_search: LastSearch::default(),
        })
    }

    /// The report of the model: for one ordinary file the same as `GgufSession.report()`; for a
    /// split model the figures of the whole, each tensor's `shard`, and a `split` section.
    #[wasm_bindgen(unchecked_return_type = "GgufReport")]
    pub fn report(&self) -> Result<JsValue, JsValue> {
        to_js(&Report::of_model(&self.model, OPTIONS))
    }

    /// Elements `start..start + count` of the array held by key-value pair `kv_index` of the
    /// model's metadata (the first shard's), fewer at the array's end.
    #[wasm_bindgen(js_name = arrayPage, unchecked_return_type = "unknown[]")]
    pub fn array_page(&self, kv_index: usize, start: usize, count: usize) -> Result<JsValue, JsValue> {
        array_page(self.model.header(), kv_index, start, count)
    }

    /// Where the bytes of tensor `index` (the report's order) are: in which file (`file`) and
    /// where in it; see `GgufSession.tensorPrefix`.
    #[wasm_bindgen(js_name = tensorPrefix, unchecked_return_type = "TensorPrefix")]
    pub fn tensor_prefix(&self, index: usize, rows: Option<f64>) -> Result<JsValue, JsValue> {
        let shard = self
            .model
            .shard_of(index)
            .ok_or_else(|| JsError::new(&format!("there is no tensor #{index}")))?;
        let tensor = self.model.header().tensors.get(index);
        tensor_prefix(&shard.header, tensor, index, rows, Some(&shard.name))
    }

    /// The memory to run the whole model (every shard's weights); see `GgufSession.memory`.
    #[wasm_bindgen(unchecked_return_type = "MemoryEstimate")]
    pub fn memory(&self, context: Option<f64>, kv_type: &str, parallel: f64) -> Result<JsValue, JsValue> {
        memory_of(self.model.header(), context, kv_type, parallel)
    }
}

/// The file names of every shard of the model that `file_name` names a shard of (llama.cpp's
/// `NAME-00002-of-00003.gguf`), from the first; `undefined` for any other name.
#[wasm_bindgen(js_name = shardNames)]
pub fn shard_names(file_name: &str) -> Option<Vec<String>> {
    ShardName::parse(file_name).map(|name| name.siblings().collect())
}
