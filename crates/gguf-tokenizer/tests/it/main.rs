//! The tokenizer held to llama.cpp: its vocabulary files' test pairs.

mod llama_tokenize;
mod vocab_pairs;
