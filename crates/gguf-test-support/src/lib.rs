//! What the workspace's tests share, in one place instead of files included by their paths:
//!
//! - [`fixtures`]: where the shared fixtures (`../shared/fixtures`) and the complete Gemma model
//!   are, and the one rule for a test that needs them when they are missing ([`present`],
//!   [`needs_fixtures!`], [`needs_gemma!`], and llama.cpp's source tree, [`needs_llama_cpp!`]: a
//!   loud skip locally, a failure in CI);
//! - [`read`]: a header read through the decoder as the CLI reads it, values compared with NaNs
//!   equal, a fixed-seed generator;
//! - [`schema`]: every JSON document a test sees checked against `schema/report.schema.json`;
//! - [`quant`]: a small reference quantizer (Q8_0, Q4_0) and files built with the test builder
//!   whose tensor data is set afterwards.
//!
//! The `write-fixtures` program (`src/bin/write-fixtures`) writes the builder-made files the
//! JavaScript tests, the benchmarks and `dist/` use, once, into one folder.

pub mod fixtures;
pub mod quant;
pub mod read;
pub mod schema;

pub use fixtures::{
    SPARSE, fixture, fixtures, gemma, gemma_path, in_ci, llama_cpp_tree, present, restored_sparse,
};
pub use read::{Rng, read_header, same_array, same_value};
