//! The tokenizer module: `gguf-tokenizer`'s llama.cpp-exact tokenizer, built from a decoded
//! header, for `tokenize(file, text)` (web/tokenize.js) and the page's Tokenize panel, run in a
//! worker. It answers with the document `ggufscope tokenize --json` prints
//! (`gguf_tokenizer::Tokens`), so that the page and the CLI cannot disagree.
//!
//! A module of its own, fetched on the first tokenization: the pre-tokenizers' Unicode tables
//! and the normalizers are several times the viewer's parser.

use gguf_tokenizer::{Tokenizer, Tokens};
use wasm_bindgen::prelude::*;

use crate::js::{error, to_js};
use crate::session::GgufSession;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** Text's token ids and what each stands for: `ggufscope tokenize --json`'s document (`text`: the ids' text, for `detokenize`). */
export interface Tokens { ids: number[]; pieces: string[]; count: number; text?: string }
"#;

/// A tokenizer built from a file's header, as llama.cpp 0c1e570 loads it.
#[wasm_bindgen]
pub struct GgufTokenizer {
    tokenizer: Tokenizer,
}

#[wasm_bindgen]
impl GgufTokenizer {
    /// The tokenizer of the file of decoded `session` (named `file` in errors); takes the
    /// session. Throws an `Error` when llama.cpp would refuse the tokenizer (none, an unknown
    /// model or pre-tokenizer, a malformed vocabulary: the message says which).
    #[wasm_bindgen(constructor)]
    pub fn new(session: GgufSession, file: &str) -> Result<GgufTokenizer, JsValue> {
        let header = session.into_header(file)?;
        let tokenizer = Tokenizer::new(&header).map_err(|e| error(format_args!("{file}: {e}")))?;
        Ok(GgufTokenizer { tokenizer })
    }

    /// Number of tokens in the vocabulary.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.tokenizer.len()
    }

    /// `text` tokenized as `llama-tokenize` does it: special-token text is that token with
    /// `parse_special`; with `add_special`, BOS (EOS, SEP) as the vocabulary adds them.
    #[wasm_bindgen(unchecked_return_type = "Tokens")]
    pub fn tokenize(&self, text: &str, parse_special: bool, add_special: bool) -> Result<JsValue, JsValue> {
        to_js(&Tokens::of_text(
            &self.tokenizer,
            text.as_bytes(),
            add_special,
            parse_special,
        ))
    }

    /// A chat prompt tokenized as llama-server tokenizes one (special tokens parsed, BOS and EOS
    /// added as the vocabulary adds them).
    #[wasm_bindgen(js_name = tokenizePrompt, unchecked_return_type = "Tokens")]
    pub fn tokenize_prompt(&self, prompt: &str) -> Result<JsValue, JsValue> {
        to_js(&Tokens::of_prompt(&self.tokenizer, prompt.as_bytes()))
    }

    /// The text of `ids` (control tokens as their text) and their pieces. Throws an `Error` for
    /// an id outside the vocabulary.
    #[wasm_bindgen(unchecked_return_type = "Tokens")]
    pub fn detokenize(&self, ids: &[u32]) -> Result<JsValue, JsValue> {
        if let Some(bad) = ids.iter().find(|&&id| id as usize >= self.tokenizer.len()) {
            return Err(error(format_args!(
                "no token {bad}: the vocabulary has {} tokens",
                self.tokenizer.len()
            )));
        }
        to_js(&Tokens::of_ids(&self.tokenizer, ids))
    }

    /// Each id's piece in the form the page shows token text in (`gguf_core::tokenizer::visible`:
    /// `\n`, `\xE2` for a byte that is not UTF-8 on its own, `\u{200B}`…); '' for an id outside
    /// the vocabulary.
    pub fn visible(&self, ids: &[u32]) -> Vec<String> {
        ids.iter()
            .map(|&id| gguf_core::tokenizer::visible(&self.tokenizer.piece(id, true).unwrap_or_default()))
            .collect()
    }
}
