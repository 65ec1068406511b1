//! The tokenizer panel, the token browser and the preview's special-token marks, for the open
//! model (its first file's tokenizer): thin over `gguf_core::tokenizer`.

use gguf_core::report::{PiecesJson, TokenPage, TokenizerReport};
use gguf_core::tokenizer::{Listing, Tokenizer, parse_visible};
use wasm_bindgen::prelude::*;

use crate::{GgufModel, to_js};

/// The last search's query and matches, so that scrolling through them does not search again.
#[derive(Debug, Default)]
pub(crate) struct LastSearch(Option<(Vec<u8>, Listing)>);

#[wasm_bindgen]
impl GgufModel {
    /// The tokenizer panel (`ggufscope tokens --json`): model, vocabulary size, counts per token
    /// type, merges, special tokens with their text, flags, and the chat templates with the
    /// places the validator flags.
    #[wasm_bindgen(unchecked_return_type = "TokenizerReport")]
    pub fn tokenizer(&self) -> Result<JsValue, JsValue> {
        to_js(&TokenizerReport(self.model.header()))
    }

    /// `{total, start, tokens}`: tokens `start..start + count` of those whose text contains
    /// `query` — typed as the browser shows token texts (`\n` for a newline, `\xFF` for a byte) —
    /// or of all tokens when it is empty; `tokens` are `{id, text, type, score}`.
    #[wasm_bindgen(unchecked_return_type = "TokenPage")]
    pub fn tokens(&mut self, query: &str, start: usize, count: usize) -> Result<JsValue, JsValue> {
        let tokenizer = Tokenizer::new(self.model.header());
        let query = parse_visible(query);
        let listing = match self.last_search.0.take() {
            Some((last, listing)) if last == query => listing,
            _ => tokenizer.list(&query),
        };
        let page = to_js(&TokenPage::new(&tokenizer, &listing, start, count));
        self.last_search.0 = Some((query, listing));
        page
    }

    /// `text` (a rendered chat template) split at the special tokens: `[{text, special}]`,
    /// `special` being the token's id or null.
    #[wasm_bindgen(js_name = splitSpecial, unchecked_return_type = "{text: string, special: number | null}[]")]
    pub fn split_special(&self, text: &str) -> Result<JsValue, JsValue> {
        let tokenizer = Tokenizer::new(self.model.header());
        to_js(&PiecesJson(&tokenizer.split_special(text)))
    }
}
