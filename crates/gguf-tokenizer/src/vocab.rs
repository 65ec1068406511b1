//! The vocabulary as llama.cpp holds it: each token's text, score and attributes, and a lookup
//! from text to id. Texts are the header's string array (one byte buffer); the lookup is a
//! hash table of ids (`index.rs`).

use alloc::vec::Vec;

use gguf_core::header::StringArray;

use crate::index::{Duplicate, TextIndex};

/// A token's attributes, as llama.cpp's `llama_token_attr` bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Attr(pub u16);

impl Attr {
    /// No type given.
    pub const UNDEFINED: Attr = Attr(0);
    /// The unknown token.
    pub const UNKNOWN: Attr = Attr(1 << 0);
    /// Reserved, never produced.
    pub const UNUSED: Attr = Attr(1 << 1);
    /// Ordinary text.
    pub const NORMAL: Attr = Attr(1 << 2);
    /// A control token (bos, eos, turn markers).
    pub const CONTROL: Attr = Attr(1 << 3);
    /// Added by the model's authors; matched in text before tokenizing, like control tokens.
    pub const USER_DEFINED: Attr = Attr(1 << 4);
    /// One raw byte, `<0xNN>`.
    pub const BYTE: Attr = Attr(1 << 5);
    /// Whitespace before the token is dropped when it is matched in text.
    pub const LSTRIP: Attr = Attr(1 << 7);
    /// Whitespace after the token is dropped when it is matched in text.
    pub const RSTRIP: Attr = Attr(1 << 8);

    /// Whether any of `other`'s bits are set.
    pub fn has(self, other: Attr) -> bool {
        self.0 & other.0 != 0
    }

    /// The attribute llama.cpp gives a `tokenizer.ggml.token_type` value.
    pub(crate) fn from_type(ty: i32) -> Attr {
        match ty {
            1 => Attr::NORMAL,
            2 => Attr::UNKNOWN,
            3 => Attr::CONTROL,
            4 => Attr::USER_DEFINED,
            5 => Attr::UNUSED,
            6 => Attr::BYTE,
            _ => Attr::UNDEFINED,
        }
    }
}

impl core::ops::BitOr for Attr {
    type Output = Attr;
    fn bitor(self, rhs: Attr) -> Attr {
        Attr(self.0 | rhs.0)
    }
}

/// Token texts, scores and attributes, by id, and the text → id lookup.
#[derive(Clone)]
pub(crate) struct Vocab {
    texts: StringArray,
    /// The texts llama.cpp keeps for the tokens, where they are not those it looks them up by
    /// (HybridDNA's k-mers lose their marker).
    shown: Option<StringArray>,
    pub(crate) scores: Vec<f32>,
    pub(crate) attrs: Vec<Attr>,
    index: TextIndex,
}

impl core::fmt::Debug for Vocab {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Vocab")
            .field("tokens", &self.len())
            .finish_non_exhaustive()
    }
}

impl Vocab {
    /// Builds the vocabulary from its texts (already renamed where empty); two tokens of the
    /// same text, which llama.cpp refuses, are the error.
    pub(crate) fn new(texts: StringArray, scores: Vec<f32>, attrs: Vec<Attr>) -> Result<Vocab, Duplicate> {
        let (index, duplicates) = TextIndex::new(&texts);
        if let Some(&d) = duplicates.first() {
            return Err(d);
        }
        Ok(Vocab {
            texts,
            shown: None,
            scores,
            attrs,
            index,
        })
    }

    /// Number of tokens.
    pub(crate) fn len(&self) -> usize {
        self.texts.len()
    }

    /// The text of token `id` (which must exist).
    pub(crate) fn text(&self, id: u32) -> &[u8] {
        self.shown
            .as_ref()
            .unwrap_or(&self.texts)
            .get(id as usize)
            .unwrap_or_default()
    }

    /// The id of the token whose text (as looked up) is `text`.
    pub(crate) fn find(&self, text: &[u8]) -> Option<u32> {
        self.index.find(&self.texts, text)
    }

    /// Shows the tokens as `shown`'s texts, one a token, and keeps looking them up by theirs.
    pub(crate) fn show_as(&mut self, shown: StringArray) {
        debug_assert_eq!(shown.len(), self.texts.len());
        self.shown = Some(shown);
    }

    pub(crate) fn attr(&self, id: u32) -> Attr {
        self.attrs[id as usize]
    }

    pub(crate) fn score(&self, id: u32) -> f32 {
        self.scores[id as usize]
    }

    /// The longest token text, in bytes.
    pub(crate) fn max_token_len(&self) -> usize {
        self.texts.iter().map(<[u8]>::len).max().unwrap_or(0)
    }
}
