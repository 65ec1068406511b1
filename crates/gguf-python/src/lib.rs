//! `ggufscope._native`: the core for Python. The sans-IO [`Decoder`](decoder::Decoder) decodes a
//! header from whatever bytes a Python reader moves (a file, a `bytes`, HTTP Range answers, an
//! fsspec file), within a byte budget; the documents are the core's, the same the CLI prints
//! with `--json`: the report (`info`), the validation (`validate`), the diff (`diff`), the
//! tokens (`tokenize`) and llama.cpp's buffers (`gguf_core::memory::buffers`). The Python
//! package around it (`python/ggufscope`) does the I/O: what to read is the decoder's read rule.

mod decoder;
mod documents;
mod error;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<decoder::Decoder>()?;
    m.add("DEFAULT_MAX_HEADER_BYTES", decoder::DEFAULT_MAX_HEADER_BYTES)?;
    m.add("FIRST_READ", gguf_core::read::FIRST_READ)?;
    m.add("SCHEMA_VERSION", gguf_core::report::SCHEMA_VERSION)?;
    m.add_function(wrap_pyfunction!(documents::validate, m)?)?;
    m.add_function(wrap_pyfunction!(documents::diff, m)?)?;
    m.add_function(wrap_pyfunction!(documents::tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(documents::memory, m)?)?;
    m.add_function(wrap_pyfunction!(documents::error_document, m)?)?;
    Ok(())
}
