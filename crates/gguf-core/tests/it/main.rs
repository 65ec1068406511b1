//! gguf-core's integration tests, one binary (one link) for all of them: each module was a
//! test file of its own.

mod codes;
mod conformance;
mod edit;
mod hostile;
mod incremental;
mod jinja;
mod kinds;
mod layout;
mod memory_architectures;
mod memory_reference;
mod plan;
mod props;
mod regressions;
mod report_schema;
mod schema;
mod split;
mod ssti;
mod summary;
mod tokenizer;
mod validate;
mod validate_real;
