//! The tokenizer held to llama.cpp: its vocabulary files' test pairs, llama-tokenize's ids, and
//! properties over generated input.

mod llama_tokenize;
mod plamo2;
mod properties;
mod vocab_pairs;
