//! gguf-cli's integration tests, one binary (one link) for all of them: each module was a
//! test file of its own.

mod cli;
mod diff;
mod edit;
mod fit;
mod golden;
mod hostile;
mod info;
mod spoofing;
mod tensor;
mod tokenize;
mod tokens;
mod upstream;
mod url;
mod validate;
