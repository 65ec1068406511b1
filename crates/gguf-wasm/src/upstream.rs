//! The upstream module: `gguf-upstream`'s check of a model against the upstream repository's
//! configuration texts, for `upstream(file, source)` (web/upstream.js, run in a worker), giving
//! the document `ggufscope upstream --json` prints (`gguf_upstream::Document`), so the page and
//! the CLI cannot disagree; and the repositories a file names, to fetch those texts from.
//!
//! A module of its own, so that the viewer's module (held under 100 KB gzipped) does not carry
//! the checks, serde_json and their JSON.

use gguf_upstream::{Document, FILES, Upstream};
use wasm_bindgen::prelude::*;

use crate::js::{error, to_js};
use crate::session::GgufSession;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** A Hugging Face model a file names: the key naming it, `ORG/REPO`, and the base URL of its files. */
export interface Repository { key: string; repo: string; base: string }
"#;

/// Checks the file (decoded `session`, named `file`) against the upstream texts read from
/// `source`: the document `ggufscope upstream --json` prints (u64 figures as BigInt). A text that
/// is `undefined` is a file the repository does not have; `config` is required. Takes the
/// session. Throws an `Error` naming the upstream file that is not a JSON object.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)] // one per upstream file, as gguf_upstream::Upstream has them
pub fn check(
    session: GgufSession,
    file: &str,
    source: &str,
    config: &str,
    tokenizer_config: Option<String>,
    generation_config: Option<String>,
    chat_template: Option<String>,
) -> Result<JsValue, JsValue> {
    let header = session.into_header(file)?;
    let upstream = Upstream {
        config,
        tokenizer_config: tokenizer_config.as_deref(),
        generation_config: generation_config.as_deref(),
        chat_template: chat_template.as_deref(),
    };
    let given = [
        true,
        upstream.tokenizer_config.is_some(),
        upstream.generation_config.is_some(),
        upstream.chat_template.is_some(),
    ];
    let read: Vec<&str> = FILES
        .iter()
        .zip(given)
        .filter(|(_, g)| *g)
        .map(|(f, _)| *f)
        .collect();
    let checks = gguf_upstream::compare(&header, &upstream).map_err(error)?;
    to_js(&Document::new(file, source, &read, &checks))
}

/// The Hugging Face models the file of decoded `session` names (`gguf_upstream::repositories`:
/// the source first, then the base models, each once), as `Repository` objects.
#[wasm_bindgen(unchecked_return_type = "Repository[]")]
pub fn repositories(session: &GgufSession) -> Result<JsValue, JsValue> {
    to_js(&gguf_upstream::repositories(
        &session.header("the file")?.metadata,
    ))
}

/// `texts` in the form the page shows file text in: control, invisible and bidirectional
/// characters as `\n`, `\u{202E}`… (`gguf_core::tokenizer::visible`, the token browser's form),
/// so that a value cannot disguise itself.
#[wasm_bindgen]
pub fn visible(texts: Vec<String>) -> Vec<String> {
    texts
        .iter()
        .map(|text| gguf_core::tokenizer::visible(text.as_bytes()))
        .collect()
}
