//! gguf-values's integration tests, one binary (one link) for all of them: each module was a
//! test file of its own.

mod dequant;
mod dequant_blocks;
mod dequant_random;
mod same_values;
mod stats_schema;
