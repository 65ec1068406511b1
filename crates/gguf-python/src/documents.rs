//! The CLI's other documents, made of decoded headers ([`Decoder`]s): `validate --json`'s entries,
//! `diff --json`, `tokenize --json` and llama.cpp's buffers. Each is the core's (or gguf-diff's)
//! serializable document; nothing here decides what goes in one.

use gguf_core::ErrorDocument;
use gguf_core::memory::{CacheType, FlashAttention, Options, buffers};
use gguf_core::report::validation::{FileValidation, checked_files};
use gguf_diff::json::Document;
use gguf_tokenizer::{Tokenizer, Tokens};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::decoder::Decoder;
use crate::error::to_python;

/// `validate --json`'s entries for one decoded file named `file` (as its caller named it): one
/// for the file (and one per file a split model's shards bring; none for shards not read).
#[pyfunction]
pub fn validate(py: Python<'_>, file: &str, decoder: &Decoder) -> PyResult<Py<PyAny>> {
    let model = decoder.model(py)?;
    let mut checked = checked_files(model, false);
    // The chat-template checks that need a render, as the CLI adds them (the same time limit).
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    for c in &mut checked {
        let found = gguf_template::lint_within(c.header.clone(), now, gguf_template::TIME_LIMIT, || {});
        c.findings.extend(found.unwrap_or_default());
        c.findings.sort_by_key(|f| (f.span.start, f.code));
    }
    let entries: Vec<FileValidation<'_>> = checked.iter().map(|c| FileValidation::checked(file, c)).collect();
    to_python(py, &entries)
}

/// The `validate --json` entry of a file that could not be read or decoded.
#[pyfunction]
#[pyo3(signature = (file, code, message, offset = None, context = None))]
pub fn error_document(
    py: Python<'_>,
    file: &str,
    code: &str,
    message: String,
    offset: Option<u64>,
    context: Option<Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    let error = ErrorDocument::other(code, message, offset);
    let entry = to_python(py, &FileValidation::unparsable(file, &error))?;
    // The decoder's context (a dict, already in the document's shape) goes in as it came.
    if let Some(context) = context {
        entry.bind(py).get_item("error")?.set_item("context", context)?;
    }
    Ok(entry)
}

/// `diff --json` of A (the reference) and B, named `a_name` and `b_name`: metadata and tensor
/// infos (the values are not compared).
#[pyfunction]
pub fn diff(py: Python<'_>, a_name: &str, a: &Decoder, b_name: &str, b: &Decoder) -> PyResult<Py<PyAny>> {
    let (a, b) = (a.model(py)?, b.model(py)?);
    let d = py.detach(|| gguf_diff::diff(a.header(), b.header()));
    let document = Document {
        a_name,
        b_name,
        a,
        b,
        diff: &d,
        values: None,
    };
    to_python(py, &document)
}

/// `tokenize --json`: the ids llama.cpp gives `text` (BOS and the like added when the tokenizer
/// adds a BOS, unless `add_special` is false; special-token text parsed unless `parse_special`
/// is false), or, with `ids`, their text.
#[pyfunction]
#[pyo3(signature = (decoder, text = None, *, ids = None, add_special = true, parse_special = true))]
pub fn tokenize(
    py: Python<'_>,
    decoder: &Decoder,
    text: Option<&[u8]>,
    ids: Option<Vec<u32>>,
    add_special: bool,
    parse_special: bool,
) -> PyResult<Py<PyAny>> {
    let header = decoder.model(py)?.header();
    let tokenizer = py
        .detach(|| Tokenizer::new(header))
        .map_err(|e| PyValueError::new_err(format!("no tokenizer llama.cpp accepts: {e}")))?;
    let tokens = match (text, ids) {
        (Some(text), None) => py.detach(|| Tokens::of_text(&tokenizer, text, add_special, parse_special)),
        (None, Some(ids)) => {
            if let Some(bad) = ids.iter().find(|&&id| id as usize >= tokenizer.len()) {
                return Err(PyValueError::new_err(format!(
                    "no token {bad}: the vocabulary has {} tokens",
                    tokenizer.len()
                )));
            }
            Tokens::of_ids(&tokenizer, &ids)
        }
        _ => return Err(PyValueError::new_err("give either a text or ids")),
    };
    to_python(py, &tokens)
}

/// llama.cpp's buffers for the model run by llama-server with these options (its flags' names
/// and defaults: `ctx` 0 is the model's context; `cache_type_k`/`_v` `f16`; `flash_attn`
/// `auto`), on a CPU ([`gguf_core::memory::buffers`]).
#[pyfunction]
#[pyo3(signature = (decoder, *, ctx = None, parallel = None, kv_unified = None, cache_type_k = None, cache_type_v = None, flash_attn = None, ubatch = None, batch = None))]
#[allow(clippy::too_many_arguments)] // llama-server's flags, each a keyword argument
pub fn memory(
    py: Python<'_>,
    decoder: &Decoder,
    ctx: Option<u64>,
    parallel: Option<u32>,
    kv_unified: Option<bool>,
    cache_type_k: Option<&str>,
    cache_type_v: Option<&str>,
    flash_attn: Option<&str>,
    ubatch: Option<u32>,
    batch: Option<u32>,
) -> PyResult<Py<PyAny>> {
    let header = decoder.model(py)?.header();
    let mut options = Options::default();
    let cache = |name: &str| {
        CacheType::from_name(name).ok_or_else(|| PyValueError::new_err(format!("no cache type {name:?}")))
    };
    if let Some(ctx) = ctx {
        options.ctx = ctx;
    }
    options.parallel = parallel.or(options.parallel);
    options.kv_unified = kv_unified.unwrap_or(options.kv_unified);
    if let Some(t) = cache_type_k {
        options.type_k = cache(t)?;
    }
    if let Some(t) = cache_type_v {
        options.type_v = cache(t)?;
    }
    if let Some(fa) = flash_attn {
        options.flash_attn = FlashAttention::from_name(fa)
            .ok_or_else(|| PyValueError::new_err(format!("no flash_attn {fa:?}: on, off or auto")))?;
    }
    options.n_ubatch = ubatch.unwrap_or(options.n_ubatch);
    options.n_batch = batch.unwrap_or(options.n_batch);
    let buffers =
        buffers(header, &options).map_err(|e| PyValueError::new_err(format!("no memory estimate: {e}")))?;
    to_python(py, &buffers)
}
