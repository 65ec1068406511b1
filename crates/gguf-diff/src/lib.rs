//! Compare two GGUF models: what changed between two files, and how far one tensor's values are
//! from another's.
//!
//! [`diff`] takes two decoded headers (a split model's merged header is one) and gives the
//! summary side by side, the metadata keys added, removed and changed (a multi-line string as a
//! bounded line diff, an array by its first differing element), and the tensor infos added,
//! removed and changed. [`ValuePairs`] streams two tensors' bytes sans-IO, as
//! `gguf_values::values::TensorValues` streams one, and [`ErrorStats`] measures the error of B
//! against A (the reference): RMSE, maximum absolute error, cosine similarity, SNR.
//!
//! `no_std` + `alloc`, no `unsafe`, no dependency but `gguf-core` (and `serde` with the `serde`
//! feature, for [`json::Document`], the JSON document): the CLI and, later, the page share one set
//! of rules and one document.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

mod header;
#[cfg(feature = "serde")]
pub mod json;
mod lines;
mod math;
mod values;

pub use header::{
    ArrayChange, Change, Field, FirstDifference, HeaderDiff, KeyChange, MetadataDiff, SummaryRow,
    TensorChange, TensorDiff, diff,
};
pub use lines::{LineDiff, LineRun, MAX_EDITS, lines};
pub use math::log10;
pub use values::{ErrorStats, Measured, Side, ValuePairs, Which, layers};
