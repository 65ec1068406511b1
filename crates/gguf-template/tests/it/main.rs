//! gguf-template's integration tests, one binary (one link) for all of them: each module was a
//! test file of its own.

mod lint;
mod llama_server;
mod render;
