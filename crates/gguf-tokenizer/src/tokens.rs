//! A tokenization as a document: what `ggufscope tokenize --json` prints and the JavaScript
//! `tokenize()` resolves, so that the two cannot disagree.

use alloc::string::String;
use alloc::vec::Vec;

use crate::Tokenizer;

/// Text's token ids and their pieces (`{"ids": [...], "pieces": [...], "count": N}`), and for ids
/// de-tokenized, their `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Tokens {
    /// The text of the ids, when ids were de-tokenized (`llama_detokenize` with control tokens
    /// written as their text); bytes that are not UTF-8 are U+FFFD.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub text: Option<String>,
    /// The token ids.
    pub ids: Vec<u32>,
    /// What each token stands for (`llama_token_to_piece` with special tokens as their text);
    /// a piece that is not UTF-8 on its own (a byte token) has U+FFFD for its bad bytes.
    pub pieces: Vec<String>,
    /// The number of ids.
    pub count: usize,
}

impl Tokens {
    /// `text` tokenized as `llama-tokenize` does it: special-token text is that token with
    /// `parse_special`; with `add_special`, BOS (and EOS, SEP) are added when the vocabulary adds
    /// a BOS (llama-tokenize passes the vocabulary's `add_bos` as `add_special`).
    pub fn of_text(tokenizer: &Tokenizer, text: &[u8], add_special: bool, parse_special: bool) -> Tokens {
        Tokens::new(
            tokenizer,
            Tokens::ids_of_text(tokenizer, text, add_special, parse_special),
            None,
        )
    }

    /// A chat prompt tokenized as llama-server tokenizes one: special-token text is that token,
    /// and BOS, EOS or SEP are added as the vocabulary adds them (`add_special` whatever
    /// `add_bos` says, unlike llama-tokenize).
    pub fn of_prompt(tokenizer: &Tokenizer, prompt: &[u8]) -> Tokens {
        Tokens::new(tokenizer, tokenizer.tokenize(prompt, true, true), None)
    }

    /// The ids of [`Tokens::of_text`] alone.
    pub fn ids_of_text(
        tokenizer: &Tokenizer,
        text: &[u8],
        add_special: bool,
        parse_special: bool,
    ) -> Vec<u32> {
        let add_special = add_special && tokenizer.flags().add_bos;
        tokenizer.tokenize(text, add_special, parse_special)
    }

    /// `ids` de-tokenized (their `text`), and their pieces. Ids outside the vocabulary have empty
    /// pieces and no text; [`Tokenizer::len`] tells them.
    pub fn of_ids(tokenizer: &Tokenizer, ids: &[u32]) -> Tokens {
        let text = String::from_utf8_lossy(&tokenizer.detokenize(ids, false, true)).into_owned();
        Tokens::new(tokenizer, ids.to_vec(), Some(text))
    }

    fn new(tokenizer: &Tokenizer, ids: Vec<u32>, text: Option<String>) -> Tokens {
        let pieces = ids
            .iter()
            .map(|&id| String::from_utf8_lossy(&tokenizer.piece(id, true).unwrap_or_default()).into_owned())
            .collect();
        Tokens {
            text,
            count: ids.len(),
            pieces,
            ids,
        }
    }
}
