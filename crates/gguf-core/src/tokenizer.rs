//! The tokenizer a header describes, for the tokenizer panel, the token browser and
//! `ggufscope tokens`: the vocabulary with its types and scores, the special tokens resolved to
//! their text, the tokenizer's flags, and a substring search fast enough to answer every
//! keystroke over a 262,144-token vocabulary (one scan of the vocabulary's single byte buffer).
//!
//! Token texts are bytes: byte-level vocabularies hold pieces of characters. [`visible`] shows a
//! text with its whitespace and control characters readable, and [`parse_visible`] reads that
//! form back, so what the browser shows is also what one can search for.
//!
//! A search ([`SearchIndex`]) matches a token's stored text and also the text it stands for
//! ([`Decoding`]): in byte-level BPE vocabularies (`gpt2`: GPT-2, Llama 3, Qwen, DeepSeek) `Ġthe`
//! is ` the` and `Ċ` a newline, in SentencePiece ones `▁the` is ` the` and `<0x0A>` a newline, so
//! what a person types finds the token.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use crate::header::{Array, Header, Metadata, StringArray, Value};
use crate::keys;

/// Texts llama.cpp takes for the fill-in-the-middle prefix, suffix and middle tokens when the
/// file names none (`llama_vocab::impl::load`): the capabilities and `gguf-tokenizer` read them
/// from here.
pub const FIM_PRE_TEXTS: &[&str] = &[
    "<|fim_prefix|>",
    "<fim-prefix>",
    "<fim_prefix>",
    "<｜fim▁begin｜>",
    "<PRE>",
    "▁<PRE>",
    "<|code_prefix|>",
    "<|prefix|>",
];
/// The fill-in-the-middle suffix token's texts (see [`FIM_PRE_TEXTS`]).
pub const FIM_SUF_TEXTS: &[&str] = &[
    "<|fim_suffix|>",
    "<fim-suffix>",
    "<fim_suffix>",
    "<｜fim▁hole｜>",
    "<SUF>",
    "▁<SUF>",
    "<|code_suffix|>",
    "<|suffix|>",
];
/// The fill-in-the-middle middle token's texts (see [`FIM_PRE_TEXTS`]).
pub const FIM_MID_TEXTS: &[&str] = &[
    "<|fim_middle|>",
    "<fim-middle>",
    "<fim_middle>",
    "<｜fim▁end｜>",
    "<MID>",
    "▁<MID>",
    "<|code_middle|>",
    "<|middle|>",
];

/// A token's type (`tokenizer.ggml.token_type`), as llama.cpp numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenType {
    /// 0: no type given.
    Undefined,
    /// 1: ordinary text.
    Normal,
    /// 2: the unknown token.
    Unknown,
    /// 3: control tokens (bos, eos, turn markers).
    Control,
    /// 4: tokens added by the model's authors, matched before ordinary tokenization.
    UserDefined,
    /// 5: reserved, never produced.
    Unused,
    /// 6: one raw byte, such as `<0x0A>`.
    Byte,
    /// Any other value.
    Other(i64),
}

impl TokenType {
    /// The type for a raw value.
    pub fn from_raw(raw: i64) -> TokenType {
        match raw {
            0 => TokenType::Undefined,
            1 => TokenType::Normal,
            2 => TokenType::Unknown,
            3 => TokenType::Control,
            4 => TokenType::UserDefined,
            5 => TokenType::Unused,
            6 => TokenType::Byte,
            other => TokenType::Other(other),
        }
    }

    /// `"normal"`, `"unknown"`, `"control"`, `"user-defined"`, `"unused"`, `"byte"`,
    /// `"undefined"`, or `"other"`.
    pub fn name(self) -> &'static str {
        match self {
            TokenType::Undefined => "undefined",
            TokenType::Normal => "normal",
            TokenType::Unknown => "unknown",
            TokenType::Control => "control",
            TokenType::UserDefined => "user-defined",
            TokenType::Unused => "unused",
            TokenType::Byte => "byte",
            TokenType::Other(_) => "other",
        }
    }

    /// Whether llama.cpp matches tokens of this type in text before tokenizing the rest (its
    /// "special" tokens: control, user-defined and unknown).
    pub fn is_special(self) -> bool {
        matches!(
            self,
            TokenType::Control | TokenType::UserDefined | TokenType::Unknown
        )
    }
}

/// How many tokens there are of each type (the tokenizer report's `types`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TypeCounts {
    /// Ordinary tokens (type 1).
    pub normal: u64,
    /// The unknown token (type 2).
    pub unknown: u64,
    /// Control tokens (type 3), e.g. `<s>`.
    pub control: u64,
    /// User-defined tokens (type 4), matched before tokenizing.
    pub user_defined: u64,
    /// Unused tokens (type 5).
    pub unused: u64,
    /// Byte tokens (type 6), e.g. `<0x0A>`.
    pub byte: u64,
    /// Tokens of type 0 (undefined).
    pub undefined: u64,
    /// Tokens of a type outside 0–6.
    pub other: u64,
    /// Tokens without an entry in the type array (absent, or shorter than the vocabulary).
    pub untyped: u64,
}

impl TypeCounts {
    fn add(&mut self, ty: Option<TokenType>) {
        let count = match ty {
            None => &mut self.untyped,
            Some(TokenType::Normal) => &mut self.normal,
            Some(TokenType::Unknown) => &mut self.unknown,
            Some(TokenType::Control) => &mut self.control,
            Some(TokenType::UserDefined) => &mut self.user_defined,
            Some(TokenType::Unused) => &mut self.unused,
            Some(TokenType::Byte) => &mut self.byte,
            Some(TokenType::Undefined) => &mut self.undefined,
            Some(TokenType::Other(_)) => &mut self.other,
        };
        *count += 1;
    }
}

/// One vocabulary entry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Token<'h> {
    /// Its id: its index in `tokenizer.ggml.tokens`.
    pub id: usize,
    /// Its text, byte for byte.
    pub text: &'h [u8],
    /// Its type, when the file gives one.
    pub ty: Option<TokenType>,
    /// Its score (`tokenizer.ggml.scores`: SentencePiece log probabilities), when given.
    pub score: Option<f32>,
}

/// A special token named by a `tokenizer.ggml.*_token_id` key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpecialToken<'h> {
    /// What it is for: `"bos"`, `"eos"`, `"separator"`, `"fim_pre"`…
    pub role: &'static str,
    /// The key that names it.
    pub key: &'static str,
    /// The id the key holds.
    pub id: u64,
    /// Its text; `None` when the id is outside the vocabulary.
    pub text: Option<&'h [u8]>,
}

/// The tokens a browser lists: all of them in id order, or those whose text contains a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listing {
    /// Every token, `0..n`.
    All(usize),
    /// The ids of the matching tokens, best first: a token equal to the query in the same case,
    /// equal in another case, containing it in the same case, containing it in another case;
    /// each group in id order.
    Matches(Vec<u32>),
}

impl Listing {
    /// Number of tokens listed.
    pub fn len(&self) -> usize {
        match self {
            Listing::All(n) => *n,
            Listing::Matches(ids) => ids.len(),
        }
    }

    /// Whether nothing is listed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The id of the `i`th token listed.
    pub fn id(&self, i: usize) -> Option<usize> {
        match self {
            Listing::All(n) => (i < *n).then_some(i),
            Listing::Matches(ids) => ids.get(i).map(|&id| id as usize),
        }
    }
}

/// A piece of text: plain, or the text of a special token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece<'t> {
    /// The text.
    pub text: &'t str,
    /// The id of the special token this piece is, if it is one.
    pub special: Option<usize>,
}

/// The tokenizer described by a header's `tokenizer.*` keys.
#[derive(Debug, Clone, Copy)]
pub struct Tokenizer<'h> {
    metadata: &'h Metadata,
    tokens: Option<&'h StringArray>,
    types: Option<&'h Array>,
    scores: Option<&'h [f32]>,
}

impl<'h> Tokenizer<'h> {
    /// The tokenizer of `header`; empty when it has no token list.
    pub fn new(header: &'h Header) -> Tokenizer<'h> {
        let metadata = &header.metadata;
        let array = |key: &str| metadata.get(key).and_then(Value::as_array);
        Tokenizer {
            metadata,
            tokens: array(keys::TOKENS).and_then(Array::as_strings),
            types: array(keys::TOKEN_TYPE),
            scores: match array(keys::SCORES) {
                Some(Array::F32(scores)) => Some(scores),
                _ => None,
            },
        }
    }

    /// `tokenizer.ggml.model`: `llama` (SentencePiece), `gpt2` (byte-level BPE), `bert`…
    pub fn model(&self) -> Option<&'h str> {
        self.metadata.get(keys::TOKENIZER_MODEL)?.as_str()
    }

    /// `tokenizer.ggml.pre`: the pre-tokenizer's name.
    pub fn pre(&self) -> Option<&'h str> {
        self.metadata.get(keys::TOKENIZER_PRE)?.as_str()
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.tokens.map_or(0, StringArray::len)
    }

    /// Whether the file lists no tokens.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of BPE merges, when the file has `tokenizer.ggml.merges`.
    pub fn merges(&self) -> Option<usize> {
        Some(self.metadata.get(keys::MERGES)?.as_array()?.len())
    }

    /// Whether the file gives token scores.
    pub fn has_scores(&self) -> bool {
        self.scores.is_some()
    }

    /// Token `id`.
    pub fn token(&self, id: usize) -> Option<Token<'h>> {
        Some(Token {
            id,
            text: self.tokens?.get(id)?,
            ty: self.token_type(id),
            score: self.scores.and_then(|s| s.get(id).copied()),
        })
    }

    fn token_type(&self, id: usize) -> Option<TokenType> {
        let raw = match self.types?.get(id)? {
            Value::I8(v) => v.into(),
            Value::I16(v) => v.into(),
            Value::I32(v) => v.into(),
            Value::I64(v) => v,
            other => i64::try_from(other.as_u64()?).unwrap_or(i64::MAX),
        };
        Some(TokenType::from_raw(raw))
    }

    /// How many tokens there are of each type.
    pub fn type_counts(&self) -> TypeCounts {
        let mut counts = TypeCounts::default();
        for id in 0..self.len() {
            counts.add(self.token_type(id));
        }
        counts
    }

    /// The special tokens the file names — bos, eos, eot, eom, unknown, separator, padding, mask,
    /// cls, fim_pre, fim_suf, fim_mid, fim_pad, fim_rep, fim_sep, in this order (ids that are not
    /// integers are skipped; the validator reports them).
    pub fn special_tokens(&self) -> Vec<SpecialToken<'h>> {
        keys::SPECIAL_TOKENS
            .iter()
            .filter_map(|&(role, key)| {
                let id = self.metadata.get(key)?.as_u64()?;
                let text = usize::try_from(id).ok().and_then(|i| self.tokens?.get(i));
                Some(SpecialToken { role, key, id, text })
            })
            .collect()
    }

    /// The text of the first special token with `role` (`"bos"`, `"eos"`…), when it exists.
    pub fn special_text(&self, role: &str) -> Option<&'h [u8]> {
        self.special_tokens().into_iter().find(|s| s.role == role)?.text
    }

    /// The boolean `tokenizer.ggml.*` settings the file has: `add_bos_token`, `add_eos_token`,
    /// `add_sep_token`, `add_space_prefix`, `remove_extra_whitespaces`.
    pub fn flags(&self) -> Vec<(&'static str, bool)> {
        keys::TOKENIZER_FLAGS
            .iter()
            .filter_map(|&(name, key)| match self.metadata.get(key)? {
                Value::Bool(b) => Some((name, *b)),
                _ => None,
            })
            .collect()
    }

    /// How this vocabulary's token texts stand for text, from `tokenizer.ggml.model`.
    pub fn decoding(&self) -> Decoding {
        match self.model() {
            Some("gpt2") => Decoding::ByteLevel,
            // Gemma 4's BPE writes spaces `▁` and has byte tokens, as SentencePiece does.
            Some("llama" | "t5" | "gemma4") => Decoding::SentencePiece,
            Some("plamo2") => Decoding::ByteTokens,
            _ => Decoding::Stored,
        }
    }

    /// Splits `text` into plain pieces and special tokens — control, user-defined and unknown
    /// tokens, the ones llama.cpp matches in text before tokenizing it — taking at each place the
    /// longest special token that starts there. Tokens made only of whitespace (Gemma has
    /// user-defined runs of newlines) are left in the plain text, where they are not worth a mark.
    pub fn split_special<'t>(&self, text: &'t str) -> Vec<Piece<'t>> {
        let specials = self.specials_by_first_byte();
        let bytes = text.as_bytes();
        let mut pieces = Vec::new();
        let (mut plain_start, mut at) = (0, 0);
        while at < bytes.len() {
            let longest = specials[usize::from(bytes[at])]
                .iter()
                .filter(|(token, _)| bytes[at..].starts_with(token))
                .max_by_key(|&&(token, id)| (token.len(), core::cmp::Reverse(id)));
            let Some(&(token, id)) = longest else {
                at += 1;
                continue;
            };
            if plain_start < at {
                pieces.push(Piece {
                    text: &text[plain_start..at],
                    special: None,
                });
            }
            // A valid UTF-8 token matched in valid UTF-8 text starts and ends on character
            // boundaries.
            pieces.push(Piece {
                text: &text[at..at + token.len()],
                special: Some(id),
            });
            at += token.len();
            plain_start = at;
        }
        if plain_start < bytes.len() {
            pieces.push(Piece {
                text: &text[plain_start..],
                special: None,
            });
        }
        pieces
    }

    /// The special tokens worth marking, as `(text, id)`, in 256 lists by their first byte.
    fn specials_by_first_byte(&self) -> Vec<Vec<(&'h [u8], usize)>> {
        let mut buckets: Vec<Vec<(&'h [u8], usize)>> = (0..256).map(|_| Vec::new()).collect();
        let Some(tokens) = self.tokens else {
            return buckets;
        };
        for id in 0..tokens.len() {
            if !self.token_type(id).is_some_and(TokenType::is_special) {
                continue;
            }
            let text = tokens.get(id).unwrap_or_default();
            if core::str::from_utf8(text).is_ok_and(|s| !s.trim().is_empty()) {
                buckets[usize::from(text[0])].push((text, id));
            }
        }
        buckets
    }
}

/// How a vocabulary's token texts stand for text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoding {
    /// Byte-level BPE (`gpt2`): each character stands for one byte through GPT-2's byte map
    /// (`Ġ` a space, `Ċ` a newline, `ä½ł` the UTF-8 bytes of `你`).
    ByteLevel,
    /// SentencePiece (`llama`, `t5`) and Gemma 4 (`gemma4`): `▁` is a space, and a token `<0xNN>` is the byte NN.
    SentencePiece,
    /// PLaMo-2 (`plamo2`): texts are what they are (spaces as spaces), but a token `<0xNN>` is
    /// the byte NN.
    ByteTokens,
    /// Texts are what they are (WordPiece and other models).
    Stored,
}

impl Decoding {
    /// The bytes `text` stands for, when they differ from `text`; `None` when they are the same
    /// or `text` is not in the encoding (a byte-level vocabulary's added tokens are stored as is).
    pub fn decode(self, text: &[u8]) -> Option<Vec<u8>> {
        let decoded = match self {
            Decoding::ByteLevel => core::str::from_utf8(text)
                .ok()?
                .chars()
                .map(byte_level_byte)
                .collect::<Option<Vec<u8>>>()?,
            Decoding::SentencePiece => match byte_token(text) {
                Some(byte) => alloc::vec![byte],
                None => replace_spm_spaces(text),
            },
            Decoding::ByteTokens => alloc::vec![byte_token(text)?],
            Decoding::Stored => return None,
        };
        (decoded != text).then_some(decoded)
    }
}

/// The byte a token `<0xNN>` stands for.
fn byte_token(text: &[u8]) -> Option<u8> {
    match text {
        [b'<', b'0', b'x', hex @ .., b'>'] if hex.len() == 2 => {
            u8::from_str_radix(core::str::from_utf8(hex).ok()?, 16).ok()
        }
        _ => None,
    }
}

/// The byte a character of a byte-level BPE token stands for: GPT-2's `bytes_to_unicode` read
/// backwards. Printable Latin-1 bytes are their own character; the other 68 (`0x00..=0x20`,
/// `0x7F..=0xA0`, `0xAD`) are U+0100 to U+0143, in byte order.
fn byte_level_byte(c: char) -> Option<u8> {
    let c = u32::from(c);
    let byte = match c {
        0x21..=0x7E | 0xA1..=0xAC | 0xAE..=0xFF => c,
        0x100..=0x120 => c - 0x100,
        0x121..=0x142 => c - 0x121 + 0x7F,
        0x143 => 0xAD,
        _ => return None,
    };
    u8::try_from(byte).ok()
}

/// `text` with each SentencePiece `▁` (U+2581) as a space.
fn replace_spm_spaces(text: &[u8]) -> Vec<u8> {
    const LOWER_BLOCK: &[u8] = "\u{2581}".as_bytes();
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i..].starts_with(LOWER_BLOCK) {
            out.push(b' ');
            i += LOWER_BLOCK.len();
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

/// Whether a search tells upper from lower case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Case {
    /// `the` finds `The`: ASCII, Latin-1, Greek and Cyrillic letters are folded (other scripts
    /// compare exactly); tokens in the query's own case are listed first.
    #[default]
    Insensitive,
    /// Bytes compare exactly.
    Sensitive,
}

/// `text` with upper-case letters made lower case, byte for byte the same length (so that one
/// buffer's string ends serve both): ASCII, and the two-byte UTF-8 letters of Latin-1
/// (`À`–`Þ`), Greek (`Α`–`Ω`) and Cyrillic (`Ѐ`–`Я`). Full Unicode case folding would change
/// lengths and cost the viewer's wasm tables it cannot afford.
fn fold_case_into(out: &mut Vec<u8>, text: &[u8]) {
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        match (b, text.get(i + 1)) {
            // A lead byte of U+00C0..=U+043F and its continuation byte.
            (0xC3..=0xD0, Some(&next @ 0x80..=0xBF)) => {
                let c = (u32::from(b & 0x1F) << 6) | u32::from(next & 0x3F);
                let lower = match c {
                    0xC0..=0xDE if c != 0xD7 => c + 0x20,
                    0x391..=0x3A9 if c != 0x3A2 => c + 0x20,
                    0x400..=0x40F => c + 0x50,
                    0x410..=0x42F => c + 0x20,
                    _ => c,
                };
                // `lower` is below U+0800: two bytes again.
                out.extend_from_slice(&[0xC0 | (lower >> 6) as u8, 0x80 | (lower & 0x3F) as u8]);
                i += 2;
            }
            _ => {
                out.push(b.to_ascii_lowercase());
                i += 1;
            }
        }
    }
}

/// A vocabulary laid out for searching: every token's stored text, and apart from them the texts
/// that differ when decoded ([`Decoding`]), each in one byte buffer with a case-folded copy.
/// Built once per file (one pass over the vocabulary); a search then scans the stored texts and,
/// when the query could match them differently, the decoded ones.
#[derive(Debug, Clone, Default)]
pub struct SearchIndex {
    /// Token `i`'s text is text `i`.
    stored: Texts,
    /// The decoded texts that differ from the stored ones.
    decoded: Texts,
    /// The token each decoded text belongs to.
    decoded_owners: Vec<u32>,
    decoding: Option<Decoding>,
}

/// Texts one after the other, with a case-folded copy of the same length.
#[derive(Debug, Clone, Default)]
struct Texts {
    bytes: Vec<u8>,
    /// `bytes` with [`fold_case_into`] applied.
    folded: Vec<u8>,
    /// Where each text ends.
    ends: Vec<usize>,
}

impl Texts {
    fn push(&mut self, text: &[u8]) {
        self.bytes.extend_from_slice(text);
        fold_case_into(&mut self.folded, text);
        self.ends.push(self.bytes.len());
    }

    /// `(text, rank)` of each text containing the query, in order; `rank` as [`Texts::rank`].
    fn matches(&self, query: &[u8], folded_query: &[u8], case: Case) -> Vec<(u32, u8)> {
        let (haystack, needle) = match case {
            Case::Sensitive => (&self.bytes[..], query),
            Case::Insensitive => (&self.folded[..], folded_query),
        };
        let mut found = Vec::new();
        scan(haystack, &self.ends, needle, |text| {
            let id = u32::try_from(text).unwrap_or(u32::MAX);
            found.push((id, self.rank(text, query, folded_query)));
        });
        found
    }

    /// How well text number `text`, which contains the query in some case, matches it: 0 equal,
    /// 1 equal in another case, 2 containing it, 3 containing it in another case.
    fn rank(&self, text: usize, query: &[u8], folded_query: &[u8]) -> u8 {
        let start = if text == 0 { 0 } else { self.ends[text - 1] };
        let range = start..self.ends[text];
        let stored = &self.bytes[range.clone()];
        if stored == query {
            0
        } else if &self.folded[range] == folded_query {
            1
        } else if stored.windows(query.len()).any(|w| w == query) {
            2
        } else {
            3
        }
    }
}

impl SearchIndex {
    /// The index of `tokenizer`'s vocabulary.
    pub fn new(tokenizer: &Tokenizer<'_>) -> SearchIndex {
        let mut index = SearchIndex::default();
        let Some(tokens) = tokenizer.tokens else {
            return index;
        };
        let decoding = tokenizer.decoding();
        index.decoding = Some(decoding);
        index.stored.bytes.reserve(tokens.bytes.len());
        index.stored.folded.reserve(tokens.bytes.len());
        for id in 0..tokens.len() {
            let text = tokens.get(id).unwrap_or_default();
            index.stored.push(text);
            if let Some(decoded) = decoding.decode(text) {
                index.decoded.push(&decoded);
                index.decoded_owners.push(u32::try_from(id).unwrap_or(u32::MAX));
            }
        }
        index
    }

    /// Whether a decoded text can match `query` where its stored text does not (or better). In
    /// SentencePiece vocabularies decoding only turns `▁` into a space and `<0xNN>` into one
    /// byte, so only a query with a space, or of one byte, needs the decoded texts: skipping
    /// them halves most keystrokes' work.
    fn decoded_can_differ(&self, query: &[u8]) -> bool {
        match self.decoding {
            Some(Decoding::SentencePiece) => query.len() == 1 || query.contains(&b' '),
            Some(Decoding::ByteTokens) => query.len() == 1,
            Some(Decoding::ByteLevel) => true,
            Some(Decoding::Stored) | None => false,
        }
    }

    /// The tokens whose stored or decoded text contains `query`, best first (see
    /// [`Listing::Matches`]); every token when `query` is empty.
    pub fn list(&self, query: &[u8], case: Case) -> Listing {
        if query.is_empty() {
            return Listing::All(self.stored.ends.len());
        }
        let mut folded_query = Vec::with_capacity(query.len());
        fold_case_into(&mut folded_query, query);
        let stored = self.stored.matches(query, &folded_query, case);
        let decoded: Vec<(u32, u8)> = if self.decoded_can_differ(query) {
            let found = self.decoded.matches(query, &folded_query, case);
            found
                .into_iter()
                .map(|(text, rank)| (self.decoded_owners[text as usize], rank))
                .collect()
        } else {
            Vec::new()
        };
        // Both lists are in id order: merge them, a token in both taking its better rank.
        let mut ranked: [Vec<u32>; 4] = Default::default();
        let (mut a, mut b) = (stored.iter().peekable(), decoded.iter().peekable());
        loop {
            let (id, rank) = match (a.peek(), b.peek()) {
                (Some(&&(x, rx)), Some(&&(y, ry))) if x == y => {
                    a.next();
                    b.next();
                    (x, rx.min(ry))
                }
                (Some(&&(x, rx)), Some(&&(y, _))) if x < y => {
                    a.next();
                    (x, rx)
                }
                (_, Some(&&(y, ry))) => {
                    b.next();
                    (y, ry)
                }
                (Some(&&(x, rx)), None) => {
                    a.next();
                    (x, rx)
                }
                (None, None) => break,
            };
            ranked[usize::from(rank)].push(id);
        }
        Listing::Matches(ranked.concat())
    }
}

/// Calls `found` with the index of each string of `haystack` (strings ending at `ends`) that
/// contains `needle` (non-empty), in order. One pass over the buffer: each candidate is checked
/// where its first byte occurs, and a string is skipped once it matched.
fn scan(haystack: &[u8], ends: &[usize], needle: &[u8], mut found: impl FnMut(usize)) {
    let (mut string, mut pos) = (0usize, 0usize);
    while let Some(at) = find_byte(needle[0], haystack, pos) {
        if !haystack[at..].starts_with(needle) {
            pos = at + 1;
            continue;
        }
        while ends[string] <= at {
            string += 1;
        }
        let end = ends[string];
        if at + needle.len() > end {
            pos = at + 1; // the occurrence runs into the next string
            continue;
        }
        found(string);
        pos = end;
    }
}

/// The first index at or after `from` where `haystack` holds `byte`. Eight bytes at a time (the
/// classic "has a zero byte" test on `word ^ byte×8`), which is what makes a search keystroke over
/// a 262,144-token vocabulary fit in a frame in wasm, where there is no vectorized `memchr`.
fn find_byte(byte: u8, haystack: &[u8], from: usize) -> Option<usize> {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let pattern = LOW * u64::from(byte);
    let rest = haystack.get(from..)?;
    let mut chunks = rest.chunks_exact(8);
    let mut offset = from;
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default()) ^ pattern;
        if word.wrapping_sub(LOW) & !word & HIGH != 0 {
            let lane = chunk.iter().position(|&b| b == byte).unwrap_or(0);
            return Some(offset + lane);
        }
        offset += 8;
    }
    let tail = chunks.remainder();
    tail.iter().position(|&b| b == byte).map(|i| offset + i)
}

/// Characters that are invisible or look like others: shown as `\u{…}` by [`visible`].
fn is_invisible(c: char) -> bool {
    matches!(
        u32::from(c),
        0x80..=0x9F            // C1 controls
        | 0xA0 | 0xAD          // no-break space, soft hyphen
        | 0x034F | 0x061C      // combining grapheme joiner, Arabic letter mark
        | 0x115F | 0x1160 | 0x3164 | 0xFFA0 // Hangul fillers
        | 0x180E               // Mongolian vowel separator
        | 0x2000..=0x200F      // spaces of other widths, zero-width characters, direction marks
        | 0x2028..=0x202F      // line and paragraph separators, bidirectional embeddings
        | 0x205F..=0x206F      // word joiner, invisible operators, bidirectional isolates
        | 0xFEFF               // byte order mark
        | 0xFFF9..=0xFFFB      // interlinear annotation
        | 0xE0000..=0xE007F // tags
    )
}

/// A token's text as shown in a browser: UTF-8 as is, except that a backslash is `\\`, newline,
/// tab and carriage return are `\n`, `\t`, `\r`, other control bytes and bytes that are not UTF-8
/// are `\xNN`, and invisible characters (zero-width, bidirectional controls, no-break space…) are
/// `\u{NNNN}`. Unlike [`crate::text::Escaped`], every text has its own form: [`parse_visible`] gives
/// the bytes back. SentencePiece's `▁`, byte-level BPE's `Ġ` and byte tokens such as `<0x0A>` are
/// already visible and stay as they are.
pub fn visible(text: &[u8]) -> String {
    let mut out = String::with_capacity(text.len());
    for chunk in text.utf8_chunks() {
        for c in chunk.valid().chars() {
            let _ = match c {
                '\\' => out.write_str("\\\\"),
                '\n' => out.write_str("\\n"),
                '\t' => out.write_str("\\t"),
                '\r' => out.write_str("\\r"),
                c if c.is_ascii_control() => write!(out, "\\x{:02X}", u32::from(c)),
                c if is_invisible(c) => write!(out, "\\u{{{:X}}}", u32::from(c)),
                c => out.write_char(c),
            };
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02X}");
        }
    }
    out
}

/// The bytes a [`visible`] form stands for; a search box's query. `\\`, `\n`, `\t`, `\r`,
/// `\xNN` (one byte) and `\u{N…}` (one character) are read as escapes; any other backslash is
/// kept as typed.
pub fn parse_visible(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let (decoded, used) = if bytes[i] == b'\\' {
            escape(&text[i + 1..])
        } else {
            (None, 0)
        };
        match decoded {
            Some(Decoded::Byte(b)) => out.push(b),
            Some(Decoded::Char(c)) => {
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            }
            None => out.push(bytes[i]),
        }
        i += 1 + used;
    }
    out
}

enum Decoded {
    Byte(u8),
    Char(char),
}

/// The escape at the start of `rest` (the text after a backslash) and how many bytes it used.
fn escape(rest: &str) -> (Option<Decoded>, usize) {
    let simple = |b| (Some(Decoded::Byte(b)), 1);
    match rest.as_bytes().first() {
        Some(b'\\') => simple(b'\\'),
        Some(b'n') => simple(b'\n'),
        Some(b't') => simple(b'\t'),
        Some(b'r') => simple(b'\r'),
        Some(b'x') => match rest.get(1..3).map(|h| u8::from_str_radix(h, 16)) {
            Some(Ok(b)) => (Some(Decoded::Byte(b)), 3),
            _ => (None, 0),
        },
        Some(b'u') if rest[1..].starts_with('{') => {
            let hex_end = rest.find('}');
            let c = hex_end
                .and_then(|end| u32::from_str_radix(&rest[2..end], 16).ok())
                .and_then(char::from_u32);
            match (c, hex_end) {
                (Some(c), Some(end)) => (Some(Decoded::Char(c)), end + 1),
                _ => (None, 0),
            }
        }
        _ => (None, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::strings;
    use alloc::vec;

    fn array(tokens: &[&str]) -> StringArray {
        strings(tokens).as_strings().unwrap().clone()
    }

    fn scanned(tokens: &[&str], needle: &[u8]) -> Vec<usize> {
        let tokens = array(tokens);
        let mut found = Vec::new();
        scan(&tokens.bytes, &tokens.ends, needle, |i| found.push(i));
        found
    }

    #[test]
    fn scan_finds_whole_strings_only_in_order() {
        let tokens = ["ab", "xa", "b", "abab", "", "ba", "a"];
        assert_eq!(scanned(&tokens, b"a"), [0, 1, 3, 5, 6]);
        // "xa" + "b" would match across the boundary; so would "b" + "abab".
        assert_eq!(scanned(&tokens, b"ab"), [0, 3]);
        assert_eq!(scanned(&tokens, b"bab"), [3]);
        assert_eq!(scanned(&tokens, b"aba"), [3]);
        assert_eq!(scanned(&tokens, b"xab"), Vec::<usize>::new());
        assert_eq!(scanned(&tokens, b"z"), Vec::<usize>::new());
    }

    #[test]
    fn byte_level_map_is_gpt2s() {
        // GPT-2's bytes_to_unicode: printable bytes map to themselves, the rest to U+0100.. in
        // byte order; every byte has one character and back.
        let mut chars = Vec::new();
        for c in (0..0x200u32).filter_map(char::from_u32) {
            if let Some(b) = byte_level_byte(c) {
                chars.push((b, c));
            }
        }
        assert_eq!(chars.len(), 256);
        chars.sort();
        assert!(chars.iter().enumerate().all(|(i, &(b, _))| usize::from(b) == i));
        assert_eq!(byte_level_byte('Ġ'), Some(b' '));
        assert_eq!(byte_level_byte('Ċ'), Some(b'\n'));
        assert_eq!(byte_level_byte('ĉ'), Some(b'\t'));
        assert_eq!(byte_level_byte('ł'), Some(0xA0));
        assert_eq!(byte_level_byte('Ń'), Some(0xAD));
        assert_eq!(byte_level_byte('\u{144}'), None);
        assert_eq!(byte_level_byte(' '), None);
    }

    #[test]
    fn case_folding_keeps_lengths() {
        let fold = |s: &str| {
            let mut out = Vec::new();
            fold_case_into(&mut out, s.as_bytes());
            String::from_utf8(out).unwrap()
        };
        assert_eq!(fold("The ÀÉÞ×ß ΑΩΣ ΆЁЯЖ 日本 Ꭰ"), "the àéþ×ß αωσ Άёяж 日本 Ꭰ");
        let mut bytes = Vec::new();
        fold_case_into(&mut bytes, b"\xC3\xFF\xC3A");
        assert_eq!(bytes, b"\xC3\xFF\xC3a", "broken sequences pass through");
    }

    #[test]
    fn find_byte_agrees_with_position_everywhere() {
        let hay: Vec<u8> = (0..100u8).map(|i| i.wrapping_mul(37) % 7).collect();
        for from in 0..=hay.len() + 1 {
            for byte in 0..8 {
                let expected = hay
                    .get(from..)
                    .and_then(|r| r.iter().position(|&b| b == byte))
                    .map(|p| p + from);
                assert_eq!(find_byte(byte, &hay, from), expected, "byte {byte} from {from}");
            }
        }
        assert_eq!(find_byte(0x80, &[0x7F, 0x80], 0), Some(1));
        assert_eq!(find_byte(0xFF, &[0; 9], 0), None);
    }

    #[test]
    fn visible_forms() {
        assert_eq!(visible(b"\xe2\x96\x81the"), "▁the");
        assert_eq!(visible("Ġhello".as_bytes()), "Ġhello");
        assert_eq!(visible(b"<0x0A>"), "<0x0A>");
        assert_eq!(visible(b"a\nb\tc\rd\\e"), "a\\nb\\tc\\rd\\\\e");
        assert_eq!(visible(b"\x00\x1b\x7f"), "\\x00\\x1B\\x7F");
        assert_eq!(visible(b"\xff\xc3"), "\\xFF\\xC3");
        assert_eq!(
            visible("a\u{200B}b\u{202E}c\u{A0}".as_bytes()),
            "a\\u{200B}b\\u{202E}c\\u{A0}"
        );
        assert_eq!(visible("日本 é".as_bytes()), "日本 é");
    }

    #[test]
    fn parse_visible_reads_escapes_and_keeps_other_backslashes() {
        assert_eq!(parse_visible("\\n\\t\\r\\\\"), b"\n\t\r\\");
        assert_eq!(parse_visible("\\xFF\\x0a"), b"\xff\n");
        assert_eq!(parse_visible("\\u{200B}"), "\u{200B}".as_bytes());
        assert_eq!(
            parse_visible("\\q \\x \\xZZ \\u{} \\u{D800} \\u{1"),
            "\\q \\x \\xZZ \\u{} \\u{D800} \\u{1".as_bytes()
        );
        assert_eq!(parse_visible("▁the"), "▁the".as_bytes());
        assert_eq!(parse_visible("\\"), b"\\");
    }

    #[test]
    fn visible_round_trips() {
        let samples: [&[u8]; 6] = [
            b"",
            b"\\n",
            b"\\\\x41",
            b"\x00\xff\\",
            "\u{2066}x\u{E0001}".as_bytes(),
            b"\xf0\x9f\x98",
        ];
        for s in samples {
            assert_eq!(parse_visible(&visible(s)), s, "{s:?}");
        }
        for b in 0..=255u8 {
            let s = vec![b'a', b, b'\\', b];
            assert_eq!(parse_visible(&visible(&s)), s);
        }
    }
}
