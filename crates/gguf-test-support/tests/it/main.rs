//! gguf-test-support's integration tests, one binary: the fixture writer as scripts/test.sh runs
//! it.

mod write_fixtures;
