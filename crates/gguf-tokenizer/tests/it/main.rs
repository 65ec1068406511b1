//! The tokenizer held to llama.cpp: its vocabulary files' test pairs.

mod vocab_pairs;
