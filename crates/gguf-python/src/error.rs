//! Errors and documents crossing into Python: a document is serialized by serde as the CLI's is,
//! then read by Python's `json` (so a dict equals the CLI's `--json` output read by `json.loads`);
//! an error is `ggufscope.GgufError` with the error document's `code`, `offset` and `context`.

use gguf_core::ErrorDocument;
use pyo3::prelude::*;
use serde::Serialize;

/// `value` as Python objects, through its JSON: the CLI's document, read back.
pub fn to_python<T: Serialize + ?Sized>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    let text =
        serde_json::to_string(value).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

/// The `ggufscope.GgufError` of an error document.
pub fn raise(py: Python<'_>, doc: &ErrorDocument<'_>) -> PyErr {
    let made = || -> PyResult<PyErr> {
        let context = match doc.context {
            Some(c) => to_python(py, c)?,
            None => py.None(),
        };
        let class = py.import("ggufscope._errors")?.getattr("GgufError")?;
        let error = class.call1((doc.message.as_str(), doc.code, doc.offset, context))?;
        Ok(PyErr::from_value(error))
    };
    made().unwrap_or_else(|e| e)
}

/// The `GgufError` of a malformed file.
pub fn decode_error(py: Python<'_>, e: &gguf_core::Error) -> PyErr {
    raise(py, &ErrorDocument::of(e))
}
