//! WebAssembly bindings of `gguf-upstream` for `upstream(file, source)` in `web/upstream.js`:
//! decode a file's header and check it against the upstream repository's configuration texts,
//! giving the document `ggufscope upstream --json` prints (`gguf_upstream::Document`), so the
//! page and the CLI cannot disagree.
//!
//! A module of its own, apart from `gguf-wasm`, so that the viewer's parser (held under 100 KB
//! gzipped) does not carry the checks, serde_json and their JSON: `web/upstream.js` fetches this
//! one when a model is checked against upstream.
//!
//! The file is a [`GgufHeader`], fed where its `nextRead()` says (the core's read rule, the same
//! as the viewer's; tensor data is never asked for); [`check`] then takes it with the texts.
#![forbid(unsafe_code)]

use gguf_upstream::{Document, FILES, Upstream};
use gguf_wasm_js::{GgufHeader, error, to_js};
use wasm_bindgen::prelude::*;

/// The most memory this module may grow to, in bytes: its `max-memory` in `wasm-pack.toml`, set
/// by the build script. `web/upstream.js` names it when a header needs more.
#[wasm_bindgen(js_name = maxMemory)]
pub fn max_memory() -> f64 {
    gguf_wasm_js::max_memory(env!("WASM_MAX_MEMORY"))
}

/// How many bytes the first read of a header asks for (the core's `FIRST_READ`): what
/// `web/upstream.js` asks of a server first when the file is a URL.
#[wasm_bindgen(js_name = firstRead)]
pub fn first_read() -> f64 {
    gguf_core::read::FIRST_READ as f64
}

/// Checks the file (`header`, named `file`) against the upstream texts read from `source`: the
/// document `ggufscope upstream --json` prints (u64 figures as BigInt). A text that is
/// `undefined` is a file the repository does not have; `config` is required. Takes the header —
/// it is freed here. Throws an `Error` naming the upstream file that is not a JSON object.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)] // one per upstream file, as gguf_upstream::Upstream has them
pub fn check(
    header: GgufHeader,
    file: &str,
    source: &str,
    config: &str,
    tokenizer_config: Option<String>,
    generation_config: Option<String>,
    chat_template: Option<String>,
) -> Result<JsValue, JsValue> {
    let header = header.into_header().ok_or_else(|| {
        error(format!(
            "{file}: the header is not read yet: feed what nextRead() asks"
        ))
    })?;
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

/// `text` in the form the page shows file text in: control, invisible and bidirectional
/// characters as `\n`, `\u{202E}`… (`gguf_core::tokenizer::visible`, the token browser's form),
/// so that a value cannot disguise itself.
#[wasm_bindgen]
pub fn visible(text: &str) -> String {
    gguf_core::tokenizer::visible(text.as_bytes())
}
