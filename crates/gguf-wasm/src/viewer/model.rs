//! [`GgufModel`]: a model read from one file or from several (the shards of a split model), and
//! every question the page asks of it — the report, pages of big arrays, where a tensor's bytes
//! are, the tokenizer and its tokens (the buffers llama.cpp allocates are the memory module's).
//! Each answer is computed in `gguf-core`; this file only carries it across to JavaScript.

use gguf_core::report::{Report, ReportOptions, TokenPage, TokenizerReport, array_page, pieces};
use gguf_core::split::SplitModel;
use gguf_core::tokenizer::{Case, Listing, SearchIndex, Tokenizer, parse_visible};
use gguf_core::{Endian, Header};
use gguf_values::dequant;
use serde::Serialize;
use std::cell::{OnceCell, RefCell};
use wasm_bindgen::prelude::*;

use super::summary::SummaryJson;
use crate::js::{error, to_js};
use crate::session::{GgufSession, named_headers};

/// What the report and the array pages include: the first elements of each array (the rest are
/// paged), and strings up to 256 KiB (a chat template is a few KB; an embedded tokenizer JSON of
/// tens of MB would only slow the page down).
const OPTIONS: ReportOptions = ReportOptions {
    array_head: 8,
    max_string_len: Some(256 << 10),
};

/// One model made of one or more decoded files.
#[wasm_bindgen]
pub struct GgufModel {
    /// The files' names and headers, until the first question that needs the model whole.
    files: RefCell<Vec<(String, Header)>>,
    /// The model, put together (and checked by the validator: the costly part, for a big
    /// vocabulary) when first needed, so that the summary never waits for it.
    model: OnceCell<SplitModel>,
    /// The vocabulary laid out for searching, built at the first search.
    search_index: Option<SearchIndex>,
    /// The last token search's query, case and matches, so that scrolling through them does not
    /// search again.
    last_search: Option<(Vec<u8>, Case, Listing)>,
}

#[wasm_bindgen]
impl GgufModel {
    /// The model of the decoded `sessions`, whose files are named `names` (same order; any
    /// order of shards). The sessions are taken: they cannot be used afterwards.
    #[wasm_bindgen(constructor)]
    pub fn new(sessions: Vec<GgufSession>, names: Vec<String>) -> Result<GgufModel, JsValue> {
        let files = named_headers(sessions, names)?;
        Ok(GgufModel {
            files: RefCell::new(files),
            model: OnceCell::new(),
            search_index: None,
            last_search: None,
        })
    }

    /// The summary cards' fields of the report, with the same names and values, from the header
    /// alone (no checks, metadata or tensors), so that the page shows them first; `null` for a
    /// split model (its figures are the whole's: the report has them), or once the model was
    /// put together.
    #[wasm_bindgen(unchecked_return_type = "GgufReport | null")]
    pub fn summary(&self) -> Result<JsValue, JsValue> {
        match self.files.borrow().as_slice() {
            [(_, header)] => match SummaryJson::new(header, &header.summary()) {
                Some(summary) => to_js(&summary),
                None => Ok(JsValue::NULL),
            },
            _ => Ok(JsValue::NULL),
        }
    }

    fn model(&self) -> &SplitModel {
        model(&self.files, &self.model)
    }

    /// The report (the `ggufscope info --json` document): for a split model the figures of the
    /// whole, each tensor's `shard`, and a `split` section.
    #[wasm_bindgen(unchecked_return_type = "GgufReport")]
    pub fn report(&self) -> Result<JsValue, JsValue> {
        to_js(&Report::of_model(self.model(), OPTIONS))
    }

    /// Elements `start..start + count` of the array held by key-value pair `kv_index` of the
    /// model's metadata (the first shard's), fewer at the array's end.
    #[wasm_bindgen(js_name = arrayPage, unchecked_return_type = "unknown[]")]
    pub fn array_page(&self, kv_index: usize, start: usize, count: usize) -> Result<JsValue, JsValue> {
        let array = self
            .model()
            .header()
            .metadata
            .entries()
            .get(kv_index)
            .and_then(|entry| entry.value.as_array())
            .ok_or_else(|| error(format!("key-value pair #{kv_index} is not an array")))?;
        to_js(&array_page(array, start, count, &OPTIONS))
    }

    /// Where the bytes of tensor `index` (the report's order) are: its first `rows` rows, all of
    /// them for `null`, in which file (`file`), with the type and byte order that decoding them
    /// (the values module) takes. Throws for a malformed shape or bytes past the end of the file.
    #[wasm_bindgen(js_name = tensorPrefix, unchecked_return_type = "TensorPrefix")]
    pub fn tensor_prefix(&self, index: usize, rows: Option<f64>) -> Result<JsValue, JsValue> {
        let no_such = || error(format!("there is no tensor #{index}"));
        let shard = self.model().shard_of(index).ok_or_else(no_such)?;
        let tensor = self.model().header().tensors.get(index).ok_or_else(no_such)?;
        let header = &shard.header;
        let prefix = dequant::prefix(header, tensor, rows.map(|r| r as u64)).map_err(error)?;
        to_js(&TensorPrefix {
            offset: prefix.offset as f64,
            length: prefix.len as f64,
            rows: prefix.rows as f64,
            elements: prefix.elements as f64,
            type_id: tensor.ty.0,
            big_endian: header.endian == Endian::Big,
            file: &shard.name,
        })
    }

    /// The tokenizer panel (`ggufscope tokens --json`): model, vocabulary size, counts per token
    /// type, merges, special tokens with their text, flags, and the chat templates with the
    /// places the validator flags.
    #[wasm_bindgen(unchecked_return_type = "TokenizerReport")]
    pub fn tokenizer(&self) -> Result<JsValue, JsValue> {
        to_js(&TokenizerReport::new(self.model().header()))
    }

    /// `{total, start, tokens}`: tokens `start..start + count` of those whose stored or decoded
    /// text (`Ġthe` is ` the`) contains `query` — typed as the browser shows token texts (`\n`
    /// for a newline, `\xFF` for a byte), upper and lower case alike unless `exact_case` — best
    /// matches first; or of all tokens when it is empty. `tokens` are `{id, text, type, score}`.
    #[wasm_bindgen(unchecked_return_type = "TokenPage")]
    pub fn tokens(
        &mut self,
        query: &str,
        exact_case: bool,
        start: usize,
        count: usize,
    ) -> Result<JsValue, JsValue> {
        let tokenizer = Tokenizer::new(model(&self.files, &self.model).header());
        let query = parse_visible(query);
        let case = if exact_case {
            Case::Sensitive
        } else {
            Case::Insensitive
        };
        let listing = match self.last_search.take() {
            Some((last, last_case, listing)) if (&last, last_case) == (&query, case) => listing,
            _ => self
                .search_index
                .get_or_insert_with(|| SearchIndex::new(&tokenizer))
                .list(&query, case),
        };
        let page = to_js(&TokenPage::new(&tokenizer, &listing, start, count));
        self.last_search = Some((query, case, listing));
        page
    }

    /// `text` (a rendered chat template) split at the special tokens: `[{text, special}]`,
    /// `special` being the token's id or null.
    #[wasm_bindgen(js_name = splitSpecial, unchecked_return_type = "{text: string, special: number | null}[]")]
    pub fn split_special(&self, text: &str) -> Result<JsValue, JsValue> {
        let tokenizer = Tokenizer::new(self.model().header());
        to_js(&pieces(&tokenizer.split_special(text)))
    }
}

/// The model of `files`, put together at the first question that needs it (a free function, so
/// that [`GgufModel::tokens`] can keep its search state borrowed meanwhile).
fn model<'a>(files: &RefCell<Vec<(String, Header)>>, model: &'a OnceCell<SplitModel>) -> &'a SplitModel {
    model.get_or_init(|| SplitModel::new(files.take()))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TensorPrefix<'a> {
    offset: f64,
    length: f64,
    rows: f64,
    elements: f64,
    type_id: u32,
    big_endian: bool,
    /// The file the bytes are in.
    file: &'a str,
}
