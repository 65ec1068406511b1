//! The tokenizer panel and the token browser as plain structs (`ggufscope tokens --json`, the
//! wasm session's `tokenizer`, `tokens` and `splitSpecial`): one shape for the CLI and the page.
//! Structs are renamed `""` outside the schema build, as [`super::view`] says why.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use super::{Float, Map, SCHEMA_VERSION, Stream};
use crate::chat_template::{self, chat_templates};
use crate::header::Header;
use crate::text::lossy;
use crate::tokenizer::{self as tk, Listing, Tokenizer, visible};

#[cfg(feature = "schema")]
use schemars::JsonSchema;

/// What `ggufscope tokens --json` prints and the tokenizer panel shows: the tokenizer's model,
/// vocabulary, special tokens, flags and chat templates.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TokenizerReport<'a> {
    /// The version of this document's shape: 1. Raised when a field changes meaning or goes away.
    pub schema_version: u32,
    /// `tokenizer.ggml.model`, e.g. `"gpt2"` or `"llama"`.
    pub model: Option<&'a str>,
    /// `tokenizer.ggml.pre`: the pre-tokenizer llama.cpp applies.
    pub pre: Option<&'a str>,
    /// Tokens in the vocabulary.
    pub vocab_size: u64,
    /// BPE merges (`tokenizer.ggml.merges`); null when the file has none.
    pub merges: Option<u64>,
    /// Whether the file gives token scores (`tokenizer.ggml.scores`).
    pub scores: bool,
    /// Tokens per type (`tokenizer.ggml.token_type`).
    pub types: tk::TypeCounts,
    /// The special tokens the metadata names (`tokenizer.ggml.bos_token_id` and the like).
    pub special: Vec<SpecialToken<'a>>,
    /// The tokenizer's flags present in the file, e.g. `add_bos_token`.
    pub flags: Map<&'static str, bool>,
    /// The chat templates, `tokenizer.chat_template` first.
    pub chat_templates: Vec<ChatTemplate<'a>>,
}

impl<'a> TokenizerReport<'a> {
    /// The tokenizer panel of `header`.
    pub fn new(header: &'a Header) -> TokenizerReport<'a> {
        let t = Tokenizer::new(header);
        TokenizerReport {
            schema_version: SCHEMA_VERSION,
            model: t.model(),
            pre: t.pre(),
            vocab_size: t.len() as u64,
            merges: t.merges().map(|n| n as u64),
            scores: t.has_scores(),
            types: t.type_counts(),
            special: t
                .special_tokens()
                .into_iter()
                .map(|s| SpecialToken {
                    role: s.role,
                    key: s.key,
                    id: s.id,
                    text: s.text.map(lossy),
                    visible: s.text.map(visible),
                })
                .collect(),
            flags: Map(t.flags()),
            chat_templates: chat_templates(header).iter().map(ChatTemplate::new).collect(),
        }
    }
}

/// A special token the metadata names.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SpecialToken<'a> {
    /// What it is for: `"bos"`, `"eos"`, `"separator"`, `"fim_pre"`…
    pub role: &'static str,
    /// The key that names it.
    pub key: &'static str,
    /// Its id.
    pub id: u64,
    /// Its text, bytes that are not UTF-8 shown as `\xNN`; null when the id is outside the
    /// vocabulary.
    pub text: Option<Cow<'a, str>>,
    /// Its text as the token browser shows it: `\\`, `\n`, `\t`, `\r`, `\xNN` for other
    /// control bytes and bytes that are not UTF-8, `\u{NNNN}` for invisible characters; null
    /// when the id is outside the vocabulary.
    pub visible: Option<String>,
}

/// A chat template.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ChatTemplate<'a> {
    /// Its pair's index in the metadata.
    pub kv_index: u64,
    /// Its key, e.g. `"tokenizer.chat_template"`.
    pub key: Cow<'a, str>,
    /// Its name, for a named template (`tokenizer.chat_template.NAME`); null for the default.
    pub name: Option<Cow<'a, str>>,
    /// What it is listed by: its name, or `"default"`.
    pub title: Cow<'a, str>,
    /// Its text, bytes that are not UTF-8 shown as `\xNN`.
    pub text: Cow<'a, str>,
    /// Whether its text is not valid UTF-8.
    pub invalid_utf8: bool,
    /// Lines in it.
    pub lines: u64,
    /// The places the `chat-template-code-execution` check flags.
    pub marks: Vec<TemplateMark<'a>>,
}

impl<'a> ChatTemplate<'a> {
    fn new(t: &chat_template::ChatTemplate<'a>) -> ChatTemplate<'a> {
        ChatTemplate {
            kv_index: t.kv_index as u64,
            key: lossy(t.key),
            name: t.name.map(lossy),
            title: lossy(t.title()),
            text: lossy(t.text),
            invalid_utf8: core::str::from_utf8(t.text).is_err(),
            lines: t.lines() as u64,
            marks: t
                .marks
                .iter()
                .map(|mark| TemplateMark {
                    line: mark.line as u64,
                    start: mark.range.start as u64,
                    end: mark.range.end as u64,
                    text: lossy(&t.text[mark.range.clone()]),
                })
                .collect(),
        }
    }
}

/// A place in a chat template that could reach outside the sandbox.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TemplateMark<'a> {
    /// Its line, from 1.
    pub line: u64,
    /// Its first byte in the template.
    pub start: u64,
    /// The byte past its last.
    pub end: u64,
    /// Its text.
    pub text: Cow<'a, str>,
}

/// A page of a token listing (`ggufscope tokens --json` with a query, the token browser).
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TokenPage<'a> {
    /// Tokens in the listing.
    pub total: u64,
    /// The index in the listing of the page's first token.
    pub start: u64,
    /// The page's tokens.
    pub tokens: Stream<'a, Token>,
}

impl<'a> TokenPage<'a> {
    /// Entries `start..start + count` of `listing` (fewer at its end), written as they are
    /// serialized.
    pub fn new(
        tokenizer: &'a Tokenizer<'a>,
        listing: &'a Listing,
        start: usize,
        count: usize,
    ) -> TokenPage<'a> {
        let end = start.saturating_add(count).min(listing.len());
        let first = start.min(end);
        let decoding = tokenizer.decoding();
        TokenPage {
            total: listing.len() as u64,
            start: start as u64,
            tokens: Stream::new(end - first, move |i| {
                let token = tokenizer.token(listing.id(first + i)?)?;
                Some(Token::new(&token, decoding))
            }),
        }
    }
}

/// One token.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Token {
    /// Its id: its index in `tokenizer.ggml.tokens`.
    pub id: u64,
    /// Its text as the token browser shows it: `\\`, `\n`, `\t`, `\r`, `\xNN` for other
    /// control bytes and bytes that are not UTF-8, `\u{NNNN}` for invisible characters.
    pub text: String,
    /// What it stands for, in the same visible form, when that differs from its text: `Ġhello`
    /// and `▁hello` are ` hello`, `<0x0A>` and `Ċ` are `\n`; null when it is its text.
    pub decoded: Option<String>,
    /// Its type's name, `"normal"`, `"unknown"`, `"control"`, `"user-defined"`,
    /// `"unused"`, `"byte"`, `"undefined"` or `"other"`; null when the file gives none.
    #[serde(rename = "type")]
    pub ty: Option<&'static str>,
    /// Its score; null when the file gives none.
    pub score: Option<Float>,
}

impl Token {
    /// `token` of a vocabulary whose texts stand for text as `decoding` says, as the token
    /// browser lists it.
    pub fn new(token: &tk::Token<'_>, decoding: tk::Decoding) -> Token {
        Token {
            id: token.id as u64,
            text: visible(token.text),
            decoded: decoding.decode(token.text).map(|d| visible(&d)),
            ty: token.ty.map(|ty| ty.name()),
            score: token.score.map(|v| Float(f64::from(v))),
        }
    }
}

/// A piece of text split at special tokens.
#[derive(Serialize)]
#[cfg_attr(not(feature = "schema"), serde(rename = ""))]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Piece<'a> {
    /// The text.
    pub text: &'a str,
    /// The id of the special token this piece is; null for plain text.
    pub special: Option<u64>,
}

/// Text split at special tokens ([`Tokenizer::split_special`]), as the page takes it.
pub fn pieces<'a>(pieces: &[tk::Piece<'a>]) -> Vec<Piece<'a>> {
    pieces
        .iter()
        .map(|p| Piece {
            text: p.text,
            special: p.special.map(|id| id as u64),
        })
        .collect()
}
