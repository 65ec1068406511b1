//! One module per command: its arguments (a clap `Args` struct, whose doc comment is the
//! command's help), its `run`, and its rendering. `main.rs` dispatches to them; what they share
//! (exit statuses, error lines, buffered output, a model read or refused) is in `cli.rs`.

pub mod diff;
pub mod edit;
pub mod fit;
pub mod info;
pub mod template;
pub mod tensor;
pub mod tokenize;
pub mod tokens;
pub mod upstream;
pub mod validate;
