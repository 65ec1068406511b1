//! Text to token ids and back, exactly as llama.cpp (commit 0c1e570) does it, from a GGUF
//! header alone: no weights, no llama.cpp.
//!
//! [`Tokenizer::new`] reads the vocabulary the header describes (`tokenizer.ggml.*`) with every
//! rule llama.cpp's loader applies; [`Tokenizer::tokenize`] is `llama_tokenize`,
//! [`Tokenizer::piece`] is `llama_token_to_piece` and [`Tokenizer::detokenize`] is
//! `llama_detokenize`.
//!
//! ```
//! use gguf_core::testkit::{GgufBuilder, strings};
//! use gguf_core::{Array, Value};
//! // A SentencePiece vocabulary: <unk>, <s>, </s>, then pieces with their scores.
//! let bytes = GgufBuilder::new()
//!     .kv("tokenizer.ggml.model", Value::String("llama".into()))
//!     .kv("tokenizer.ggml.tokens", Value::Array(strings(&["<unk>", "<s>", "</s>", "▁", "h", "i", "▁h", "▁hi"])))
//!     .kv("tokenizer.ggml.scores", Value::Array(Array::F32(vec![0.0, 0.0, 0.0, -1.0, -2.0, -2.0, -1.5, -0.5])))
//!     .kv("tokenizer.ggml.token_type", Value::Array(Array::I32(vec![2, 3, 3, 1, 1, 1, 1, 1])))
//!     .build();
//! let header = gguf_core::parse(&bytes).unwrap();
//! let tokenizer = gguf_tokenizer::Tokenizer::new(&header)?;
//! let ids = tokenizer.tokenize(b"hi", true, true);
//! assert_eq!(ids, [1, 7]); // <s> ▁hi: "▁" + "h", then "▁h" + "i"
//! // As llama.cpp does, the space prefix stays when a BOS comes first.
//! assert_eq!(tokenizer.detokenize(&ids, true, false), b" hi");
//! assert_eq!(tokenizer.detokenize(&ids[1..], true, false), b"hi");
//! # Ok::<(), gguf_tokenizer::Error>(())
//! ```

#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

mod bpe;
mod dna;
mod index;
mod load;
mod plamo2;
mod pretokenize;
mod regex;
mod rwkv;
mod special;
mod spm;
mod tokens;
mod trie;
mod ugm;
mod unicode;
mod vocab;
mod wpm;

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use gguf_core::{Header, ValueType};

pub use pretokenize::Pre;
pub use tokens::Tokens;
pub use vocab::Attr;

use special::Fragment;

/// Why a header's tokenizer cannot be built: the cases where llama.cpp refuses to load it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// No `tokenizer.ggml.model`.
    NoTokenizer,
    /// `tokenizer.ggml.model` is `none` (or `no_vocab`): llama.cpp loads such a model but has no
    /// tokenizer for it (llama-tokenize aborts).
    NoVocabulary,
    /// A `tokenizer.ggml.model` llama.cpp does not know.
    UnknownModel(String),
    /// A `tokenizer.ggml.pre` llama.cpp does not know ("unknown pre-tokenizer type").
    UnknownPre(String),
    /// A key llama.cpp needs is missing.
    MissingKey(&'static str),
    /// A key has a type llama.cpp does not accept.
    WrongType {
        /// The key.
        key: String,
        /// Its type (the element type, for arrays).
        found: ValueType,
    },
    /// Scores or token types shorter than the token list.
    ShortArray {
        /// The key.
        key: &'static str,
        /// Its length.
        len: usize,
        /// The number of tokens.
        tokens: usize,
    },
    /// Two tokens with the same text.
    DuplicateToken {
        /// The first id.
        first: u32,
        /// The second id.
        second: u32,
    },
    /// A `tokenizer.ggml.precompiled_charsmap` llama.cpp cannot read.
    BadCharsmap,
    /// A `test` vocabulary without tokens (llama.cpp divides by the vocabulary's size and
    /// crashes while loading).
    NoTokens,
    /// A PLaMo-2 vocabulary without a byte token (`<0xNN>`) for this byte.
    MissingByteToken(u8),
    /// A PLaMo-2 token whose text holds a code point past U+10FFFF, which llama.cpp cannot
    /// write back as UTF-8.
    BadToken {
        /// The token.
        id: u32,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoTokenizer => f.write_str("the file has no tokenizer (no tokenizer.ggml.model)"),
            Error::NoVocabulary => f.write_str(
                "the file has no vocabulary (tokenizer.ggml.model is \"none\"): llama.cpp has no tokenizer for it",
            ),
            Error::UnknownModel(m) => write!(f, "unknown tokenizer model {m:?} (tokenizer.ggml.model)"),
            Error::UnknownPre(p) => {
                write!(
                    f,
                    "unknown pre-tokenizer type {p:?} (tokenizer.ggml.pre): llama.cpp 0c1e570 refuses to load it"
                )
            }
            Error::MissingKey(k) => write!(f, "missing {k}"),
            Error::WrongType { key, found } => write!(f, "{key} has the wrong type ({})", found.name()),
            Error::ShortArray { key, len, tokens } => {
                write!(f, "{key} has {len} entries for {tokens} tokens")
            }
            Error::DuplicateToken { first, second } => {
                write!(f, "tokens {first} and {second} have the same text")
            }
            Error::BadCharsmap => f.write_str("tokenizer.ggml.precompiled_charsmap is malformed"),
            Error::NoTokens => f.write_str(
                "tokenizer.ggml.tokens is empty, which llama.cpp's test tokenizer cannot work with",
            ),
            Error::MissingByteToken(b) => write!(
                f,
                "the PLaMo-2 vocabulary has no byte token <0x{b:02X}> (llama.cpp refuses to load it)"
            ),
            Error::BadToken { id } => write!(
                f,
                "token {id} holds a code point past U+10FFFF (llama.cpp refuses to load it)"
            ),
        }
    }
}

impl core::error::Error for Error {}

/// Something llama.cpp warns about while loading and then works around.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// A BPE vocabulary without `tokenizer.ggml.pre`: the default pre-tokenizer is used
    /// ("GENERATION QUALITY WILL BE DEGRADED").
    MissingPre,
    /// A special-token key holds an id outside the vocabulary; the default is kept.
    BadSpecialId {
        /// The key.
        key: &'static str,
        /// The id it holds.
        id: u32,
    },
}

/// The vocabulary type (`llama_vocab_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// SentencePiece (`llama`).
    Spm,
    /// Byte-level BPE (`gpt2`, `gemma4`, …).
    Bpe,
    /// WordPiece (`bert`).
    Wpm,
    /// Unigram (`t5`).
    Ugm,
    /// RWKV's greedy trie (`rwkv`).
    Rwkv,
    /// PLaMo-2 (`plamo2`).
    Plamo2,
    /// llama.cpp's dummy tokenizer for its tests (`test`): each five bytes of text are one token,
    /// by a rolling hash; a token's piece is its id in hexadecimal.
    Test,
}

/// The tokenizer's settings after loading (llama.cpp's flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flags {
    /// A space is put before text that starts the input or follows a special token (SPM).
    pub add_space_prefix: bool,
    /// BOS is added (with `add_special`).
    pub add_bos: bool,
    /// EOS is added (with `add_special`).
    pub add_eos: bool,
    /// SEP is added (WordPiece adds it with `add_special` regardless).
    pub add_sep: bool,
    /// A word that is a token is not merged (BPE).
    pub ignore_merges: bool,
    /// The de-tokenizer tidies spaces before punctuation.
    pub clean_spaces: bool,
    /// Runs of whitespace become one space (UGM).
    pub remove_extra_whitespaces: bool,
    /// Spaces are written `▁` before tokenizing.
    pub escape_whitespaces: bool,
    /// UGM: the space marker goes after words.
    pub treat_whitespace_as_suffix: bool,
    /// WordPiece and the whitespace model: lower case.
    pub lowercase: bool,
    /// WordPiece: accents are stripped.
    pub strip_accents: bool,
}

/// The special token ids after loading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[allow(missing_docs)]
pub struct Specials {
    pub bos: Option<u32>,
    pub eos: Option<u32>,
    pub eot: Option<u32>,
    pub eom: Option<u32>,
    pub unk: Option<u32>,
    pub sep: Option<u32>,
    pub pad: Option<u32>,
    pub mask: Option<u32>,
    pub fim_pre: Option<u32>,
    pub fim_suf: Option<u32>,
    pub fim_mid: Option<u32>,
    pub fim_pad: Option<u32>,
    pub fim_rep: Option<u32>,
    pub fim_sep: Option<u32>,
}

#[derive(Debug, Clone)]
pub(crate) enum Kind {
    Spm,
    Bpe {
        pre: Pre,
        pretokenizer: pretokenize::PreTokenizer,
        merges: bpe::Merges,
        whitespace_model: bool,
        /// HybridDNA's tokens, when it has them.
        dna: Option<dna::Dna>,
    },
    Wpm,
    Ugm(ugm::Ugm),
    Rwkv(rwkv::Rwkv),
    Plamo2(alloc::boxed::Box<plamo2::Plamo2>),
    Test,
}

/// What llama.cpp's chat layer takes from the vocabulary (`common_chat_templates_init`): the bos
/// and eos texts a template gets as `bos_token` and `eos_token` (`common_token_to_piece` with
/// special tokens written), and whether the tokenizer adds those tokens itself — then llama.cpp
/// strips the same text from the ends of the prompt.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChatTokens {
    /// The bos token's text, `None` when the vocabulary has none.
    pub bos: Option<String>,
    /// The eos token's text, `None` when the vocabulary has none.
    pub eos: Option<String>,
    /// BOS is added by the tokenizer.
    pub add_bos: bool,
    /// EOS is added by the tokenizer.
    pub add_eos: bool,
}

/// A tokenizer built from a GGUF header.
#[derive(Debug, Clone)]
pub struct Tokenizer {
    pub(crate) vocab: vocab::Vocab,
    pub(crate) kind: Kind,
    pub(crate) model: Model,
    pub(crate) flags: Flags,
    pub(crate) specials: Specials,
    /// Special tokens matched in text, longest first.
    pub(crate) special_cache: Vec<u32>,
    /// The end-of-generation tokens, as llama.cpp collects them at load.
    pub(crate) eog: Vec<u32>,
    pub(crate) warnings: Vec<Warning>,
}

impl Tokenizer {
    /// Builds the tokenizer `header` describes, as llama.cpp loads it.
    pub fn new(header: &Header) -> Result<Tokenizer, Error> {
        load::load(header)
    }

    /// Whether generation stops at token `id` (`llama_vocab_is_eog`: eos, eot, eom, the FIM
    /// pad, rep and sep tokens, and the end-of-turn texts llama.cpp knows by name).
    pub fn is_eog(&self, id: u32) -> bool {
        self.eog.contains(&id)
    }

    /// The vocabulary type.
    pub fn model(&self) -> Model {
        self.model
    }

    /// The pre-tokenizer, for a BPE vocabulary.
    pub fn pre(&self) -> Option<Pre> {
        match &self.kind {
            Kind::Bpe { pre, .. } => Some(*pre),
            _ => None,
        }
    }

    /// The settings.
    pub fn flags(&self) -> Flags {
        self.flags
    }

    /// The special token ids.
    pub fn specials(&self) -> Specials {
        self.specials
    }

    /// The bos and eos texts and flags llama.cpp's chat templates use.
    pub fn chat_tokens(&self) -> ChatTokens {
        let text = |id: Option<u32>| {
            id.and_then(|id| self.piece(id, true))
                .map(|p| String::from_utf8_lossy(&p).into_owned())
        };
        ChatTokens {
            bos: text(self.specials.bos),
            eos: text(self.specials.eos),
            add_bos: self.flags.add_bos,
            add_eos: self.flags.add_eos,
        }
    }

    /// What llama.cpp would have warned about while loading.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.vocab.len()
    }

    /// Whether the vocabulary is empty.
    pub fn is_empty(&self) -> bool {
        self.vocab.len() == 0
    }

    /// Token `id`'s text as stored (empty texts are `[EMPTY_id]`, as llama.cpp names them).
    pub fn text(&self, id: u32) -> Option<&[u8]> {
        ((id as usize) < self.vocab.len()).then(|| self.vocab.text(id))
    }

    /// Token `id`'s attributes.
    pub fn attr(&self, id: u32) -> Option<Attr> {
        ((id as usize) < self.vocab.len()).then(|| self.vocab.attr(id))
    }

    /// The id of the token whose text is `text`.
    pub fn find(&self, text: &[u8]) -> Option<u32> {
        self.vocab.find(text)
    }

    /// `llama_tokenize`: the ids of `text`. With `add_special`, BOS/EOS/SEP as the vocabulary
    /// says; with `parse_special`, control-token text in `text` is that token (user-defined
    /// tokens are matched either way). `text` need not be UTF-8.
    pub fn tokenize(&self, text: &[u8], add_special: bool, parse_special: bool) -> Vec<u32> {
        let mut out = Vec::new();
        let frags = special::partition(&self.vocab, &self.special_cache, text, parse_special);
        let f = &self.flags;
        match &self.kind {
            Kind::Spm => {
                let mut prev_special = true;
                if add_special && f.add_bos {
                    out.extend(self.specials.bos);
                }
                let mut session = spm::Session::default();
                let mut buf = Vec::new();
                for frag in &frags {
                    match *frag {
                        Fragment::Text { start, len } => {
                            buf.clear();
                            if f.add_space_prefix && prev_special {
                                buf.extend_from_slice("▁".as_bytes());
                            }
                            escape_spaces(&text[start..start + len], &mut buf);
                            session.tokenize(&self.vocab, &buf, &mut out);
                            prev_special = false;
                        }
                        Fragment::Token(id) => {
                            out.push(id);
                            prev_special = true;
                        }
                    }
                }
                if add_special && f.add_eos {
                    out.extend(self.specials.eos);
                }
            }
            Kind::Bpe {
                pre,
                pretokenizer,
                merges,
                whitespace_model,
                dna,
            } => {
                if add_special && f.add_bos {
                    out.extend(self.specials.bos);
                }
                let word = bpe::Word {
                    vocab: &self.vocab,
                    merges,
                    ignore_merges: f.ignore_merges,
                    newline_words: *pre == Pre::Gemma4,
                    byte_encode: pretokenizer.byte_encode,
                };
                let mut session = bpe::Session::default();
                let mut buf = Vec::new();
                for frag in &frags {
                    match *frag {
                        Fragment::Text { start, len } => {
                            let mut piece = &text[start..start + len];
                            if f.escape_whitespaces {
                                buf.clear();
                                escape_spaces(piece, &mut buf);
                                piece = &buf;
                            }
                            if let Some(dna) = dna {
                                dna.tokenize(&self.vocab, piece, &mut out, |seg, out| {
                                    pretokenizer.split(seg, |w| session.word(&word, w, out));
                                });
                            } else if *whitespace_model {
                                whitespace_segments(piece, f.lowercase, |seg| {
                                    pretokenizer.split(seg, |w| session.word(&word, w, &mut out));
                                });
                            } else {
                                pretokenizer.split(piece, |w| session.word(&word, w, &mut out));
                            }
                        }
                        Fragment::Token(id) => out.push(id),
                    }
                }
                if add_special && f.add_eos {
                    out.extend(self.specials.eos);
                }
            }
            Kind::Wpm => {
                // WordPiece adds its BOS (CLS) and SEP with add_special, whatever the flags say.
                if add_special {
                    out.extend(self.specials.bos);
                }
                for frag in &frags {
                    match *frag {
                        Fragment::Text { start, len } => wpm::tokenize(
                            &self.vocab,
                            self.specials.unk,
                            f.lowercase,
                            f.strip_accents,
                            &text[start..start + len],
                            &mut out,
                        ),
                        Fragment::Token(id) => out.push(id),
                    }
                }
                if add_special {
                    out.extend(self.specials.sep);
                }
            }
            Kind::Ugm(ugm) => {
                if add_special && f.add_bos {
                    out.extend(self.specials.bos);
                }
                let spaces = ugm::Spaces {
                    escape: f.escape_whitespaces,
                    prepend: !f.treat_whitespace_as_suffix && f.add_space_prefix,
                    append: f.treat_whitespace_as_suffix && f.add_space_prefix,
                    merge: f.remove_extra_whitespaces,
                };
                for frag in &frags {
                    match *frag {
                        Fragment::Text { start, len } => ugm.tokenize(
                            &self.vocab,
                            self.specials.unk,
                            &spaces,
                            &text[start..start + len],
                            &mut out,
                        ),
                        Fragment::Token(id) => out.push(id),
                    }
                }
                if add_special && f.add_eos {
                    out.extend(self.specials.eos);
                }
            }
            Kind::Rwkv(rwkv) => {
                for frag in &frags {
                    match *frag {
                        Fragment::Text { start, len } => {
                            rwkv.tokenize(self.specials.unk, &text[start..start + len], &mut out)
                        }
                        Fragment::Token(id) => out.push(id),
                    }
                }
            }
            // Neither adds a BOS or EOS, whatever the flags say.
            Kind::Test => {
                for frag in &frags {
                    match *frag {
                        Fragment::Text { start, len } => {
                            test_tokenize(self.vocab.len(), &text[start..start + len], &mut out)
                        }
                        Fragment::Token(id) => out.push(id),
                    }
                }
            }
            Kind::Plamo2(plamo2) => {
                for frag in &frags {
                    match *frag {
                        Fragment::Text { start, len } => plamo2.tokenize(&text[start..start + len], &mut out),
                        Fragment::Token(id) => out.push(id),
                    }
                }
            }
        }
        out
    }

    /// `llama_token_to_piece` without stripping: what token `id` stands for. Control and
    /// unknown tokens are empty unless `special`. `None` for an id outside the vocabulary.
    /// Rendered when asked (llama.cpp caches every piece at load; a page's first tokenization
    /// would wait for 262,144 of them), borrowed from the token's text where it is the piece.
    pub fn piece(&self, id: u32, special: bool) -> Option<Cow<'_, [u8]>> {
        if id as usize >= self.vocab.len() {
            return None;
        }
        let attr = self.vocab.attr(id);
        if !special && attr.has(Attr::UNKNOWN | Attr::CONTROL) {
            return Some(Cow::Borrowed(&[]));
        }
        let text = self.vocab.text(id);
        let special = Attr::UNKNOWN | Attr::CONTROL | Attr::USER_DEFINED;
        let mut out = Vec::new();
        match self.model {
            Model::Spm | Model::Wpm | Model::Ugm | Model::Bpe => {
                if attr.has(special) {
                    return Some(Cow::Borrowed(text));
                } else if attr.has(Attr::NORMAL) {
                    if self.model == Model::Bpe && !self.flags.escape_whitespaces {
                        // GPT-2's byte map leaves `!`..`~` as they are.
                        if text.iter().all(|b| (b'!'..=b'~').contains(b)) {
                            return Some(Cow::Borrowed(text));
                        }
                        decode_byte_level(text, &mut out);
                    } else {
                        if memchr::memmem::find(text, "▁".as_bytes()).is_none() {
                            return Some(Cow::Borrowed(text));
                        }
                        unescape_spaces(text, &mut out);
                    }
                } else if attr.has(Attr::BYTE) {
                    out.push(byte_of_token(text));
                }
            }
            Model::Rwkv => rwkv::unescape(text, &mut out),
            Model::Test => return Some(Cow::Owned(alloc::format!("{id:x}").into_bytes())),
            Model::Plamo2 => match attr.has(Attr::BYTE).then(|| plamo2::byte_of_token(text)) {
                Some(Some(b)) => out.push(b),
                _ => return Some(Cow::Borrowed(text)),
            },
        }
        Some(Cow::Owned(out))
    }

    /// `llama_detokenize`: the text of `ids`. With `remove_special`, a leading BOS and trailing
    /// EOS the vocabulary adds are dropped; with `unparse_special`, control tokens are written
    /// as their text (else they are empty). Ids outside the vocabulary are skipped.
    pub fn detokenize(&self, ids: &[u32], remove_special: bool, unparse_special: bool) -> Vec<u8> {
        let mut ids = ids;
        let mut remove_space = self.flags.add_space_prefix;
        if remove_special && self.flags.add_bos && !ids.is_empty() && Some(ids[0]) == self.specials.bos {
            remove_space = false;
            ids = &ids[1..];
        }
        if remove_special && self.flags.add_eos && ids.last().is_some_and(|&l| Some(l) == self.specials.eos) {
            ids = &ids[..ids.len() - 1];
        }
        let mut text = Vec::new();
        for &id in ids {
            let Some(piece) = self.piece(id, unparse_special) else {
                continue;
            };
            let mut piece = &*piece;
            if remove_space {
                if let [b' ', rest @ ..] = piece {
                    piece = rest;
                }
            }
            remove_space = false;
            text.extend_from_slice(piece);
        }
        if self.flags.clean_spaces {
            clean_spaces(&mut text);
        }
        text
    }
}

/// llama.cpp's `test` vocabulary: each five bytes (the last piece shorter) are the token their
/// rolling hash names, modulo the vocabulary's size.
fn test_tokenize(tokens: usize, text: &[u8], out: &mut Vec<u32>) {
    for chunk in text.chunks(5) {
        let hash = chunk
            .iter()
            .fold(0u64, |h, &b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
        out.push((hash % tokens as u64) as u32);
    }
}

/// Writes `text` with each space as `▁` (U+2581).
fn escape_spaces(text: &[u8], out: &mut Vec<u8>) {
    for &b in text {
        if b == b' ' {
            out.extend_from_slice("▁".as_bytes());
        } else {
            out.push(b);
        }
    }
}

/// Writes `text` with each `▁` as a space.
fn unescape_spaces(text: &[u8], out: &mut Vec<u8>) {
    let mut rest = text;
    while let Some(p) = memchr::memmem::find(rest, "▁".as_bytes()) {
        out.extend_from_slice(&rest[..p]);
        out.push(b' ');
        rest = &rest[p + 3..];
    }
    out.extend_from_slice(rest);
}

/// llama.cpp's `llama_decode_text`: each character of a byte-level token back to its byte; one
/// outside GPT-2's map is written `[UNK_BYTE_0x…<token>]`.
fn decode_byte_level(text: &[u8], out: &mut Vec<u8>) {
    for c in unicode::code_points(text) {
        match unicode::char_to_byte(c) {
            Some(b) => out.push(b),
            None => {
                out.extend_from_slice(b"[UNK_BYTE_0x");
                let mut utf8 = Vec::new();
                unicode::push_utf8(&mut utf8, c);
                for b in utf8 {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    out.extend_from_slice(&[HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
                }
                out.extend_from_slice(text);
                out.push(b']');
            }
        }
    }
}

/// The byte a byte token stands for: the two hex digits after `<0x` (`strtol`: what parses).
fn byte_of_token(text: &[u8]) -> u8 {
    let hex = text.get(3..).unwrap_or_default();
    let mut v: u32 = 0;
    for &b in hex.iter().take(2) {
        match (b as char).to_digit(16) {
            Some(d) => v = v * 16 + d,
            None => break,
        }
    }
    v as u8
}

/// The whitespace model's pre-pass: whitespace dropped, the rest (optionally lower case) in
/// segments.
fn whitespace_segments(text: &[u8], lowercase: bool, mut each: impl FnMut(&[u8])) {
    let mut seg = Vec::new();
    for c in unicode::code_points(text) {
        if unicode::flags(c).is_whitespace() {
            if !seg.is_empty() {
                each(&seg);
                seg.clear();
            }
        } else {
            unicode::push_utf8(&mut seg, if lowercase { unicode::to_lower(c) } else { c });
        }
    }
    if !seg.is_empty() {
        each(&seg);
    }
}

/// llama.cpp's `clean_spaces` passes: no space before `?!.,`, none around a lone `'`, none
/// before `'s 'm 're 've`.
fn clean_spaces(text: &mut Vec<u8>) {
    let pass = |text: &mut Vec<u8>, rule: &dyn Fn(&[u8], usize) -> bool| {
        if text.is_empty() {
            return;
        }
        let mut out = Vec::with_capacity(text.len());
        out.push(text[0]);
        for i in 1..text.len() {
            if text[i - 1] == b' ' && rule(text, i) {
                out.pop();
            }
            out.push(text[i]);
        }
        *text = out;
    };
    pass(text, &|t, i| matches!(t[i], b'?' | b'!' | b'.' | b','));
    // " ' " → "'": the space before goes, and the one after (which llama.cpp overwrites with
    // a NUL, so it is no space for what follows).
    if !text.is_empty() {
        let mut t = core::mem::take(text);
        let mut out = Vec::with_capacity(t.len());
        out.push(t[0]);
        let mut i = 1;
        while i < t.len() {
            let x = t[i];
            if x == b'\'' && i + 1 < t.len() && t[i - 1] == b' ' && t[i + 1] == b' ' {
                out.pop();
                t[i + 1] = 0;
                out.push(x);
                i += 2;
                continue;
            }
            out.push(x);
            i += 1;
        }
        *text = out;
    }
    pass(text, &|t, i| {
        t[i] == b'\''
            && i + 1 < t.len()
            && match t[i + 1] {
                b's' | b'm' => true,
                b't' | b'd' => false,
                x1 => i + 2 < t.len() && matches!((x1, t[i + 2]), (b'r', b'e') | (b'v', b'e')),
            }
    });
}
