//! JSON for the tokenizer panel and the token browser (`ggufscope tokens --json`, the wasm
//! session's `tokenizer`, `tokens` and `splitSpecial`): one shape for the CLI and the page.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use super::{Float, text};
use crate::chat_template::{ChatTemplate, chat_templates};
use crate::header::Header;
use crate::tokenizer::{Listing, Piece, SpecialToken, Token, Tokenizer, TypeCounts, visible};

/// The tokenizer panel: `{model, pre, vocab_size, merges, scores, types, special, flags,
/// chat_templates}`. `types` counts tokens per type; `special` lists `{role, key, id, text,
/// visible}` (`text` escaped like the report's strings, `visible` as the browser shows it, both
/// null outside the vocabulary); `flags` maps `add_bos_token` and the like to booleans;
/// `chat_templates` lists `{kv_index, key, name, title, text, invalid_utf8, lines, marks}`, `marks` being
/// the places the `chat-template-code-execution` check flags, as `{line, start, end, text}` (bytes
/// in the template).
#[derive(Debug, Clone, Copy)]
pub struct TokenizerReport<'a>(pub &'a Header);

impl Serialize for TokenizerReport<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = Tokenizer::new(self.0);
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("model", &t.model())?;
        m.serialize_entry("pre", &t.pre())?;
        m.serialize_entry("vocab_size", &(t.len() as u64))?;
        m.serialize_entry("merges", &t.merges().map(|n| n as u64))?;
        m.serialize_entry("scores", &t.has_scores())?;
        m.serialize_entry("types", &TypesJson(t.type_counts()))?;
        m.serialize_entry("special", &SpecialsJson(&t.special_tokens()))?;
        m.serialize_entry("flags", &FlagsJson(&t.flags()))?;
        m.serialize_entry("chat_templates", &TemplatesJson(&chat_templates(self.0)))?;
        m.end()
    }
}

struct TypesJson(TypeCounts);

impl Serialize for TypesJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let c = &self.0;
        let mut m = s.serialize_map(Some(9))?;
        m.serialize_entry("normal", &c.normal)?;
        m.serialize_entry("unknown", &c.unknown)?;
        m.serialize_entry("control", &c.control)?;
        m.serialize_entry("user_defined", &c.user_defined)?;
        m.serialize_entry("unused", &c.unused)?;
        m.serialize_entry("byte", &c.byte)?;
        m.serialize_entry("undefined", &c.undefined)?;
        m.serialize_entry("other", &c.other)?;
        m.serialize_entry("untyped", &c.untyped)?;
        m.end()
    }
}

struct SpecialsJson<'a>(&'a [SpecialToken<'a>]);

impl Serialize for SpecialsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for t in self.0 {
            seq.serialize_element(&SpecialJson(t))?;
        }
        seq.end()
    }
}

struct SpecialJson<'a>(&'a SpecialToken<'a>);

impl Serialize for SpecialJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let mut m = s.serialize_map(Some(5))?;
        m.serialize_entry("role", t.role)?;
        m.serialize_entry("key", t.key)?;
        m.serialize_entry("id", &t.id)?;
        m.serialize_entry("text", &t.text.map(text))?;
        m.serialize_entry("visible", &t.text.map(visible))?;
        m.end()
    }
}

struct FlagsJson<'a>(&'a [(&'static str, bool)]);

impl Serialize for FlagsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (name, value) in self.0 {
            m.serialize_entry(name, value)?;
        }
        m.end()
    }
}

struct TemplatesJson<'a>(&'a [ChatTemplate<'a>]);

impl Serialize for TemplatesJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for t in self.0 {
            seq.serialize_element(&TemplateJson(t))?;
        }
        seq.end()
    }
}

struct TemplateJson<'a>(&'a ChatTemplate<'a>);

impl Serialize for TemplateJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let mut m = s.serialize_map(Some(8))?;
        m.serialize_entry("kv_index", &(t.kv_index as u64))?;
        m.serialize_entry("key", &text(t.key))?;
        m.serialize_entry("name", &t.name.map(text))?;
        m.serialize_entry("title", &text(t.title()))?;
        m.serialize_entry("text", &text(t.text))?;
        m.serialize_entry("invalid_utf8", &core::str::from_utf8(t.text).is_err())?;
        m.serialize_entry("lines", &(t.lines() as u64))?;
        m.serialize_entry("marks", &MarksJson(t))?;
        m.end()
    }
}

struct MarksJson<'a>(&'a ChatTemplate<'a>);

impl Serialize for MarksJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let mut seq = s.serialize_seq(Some(t.marks.len()))?;
        for mark in &t.marks {
            let r = &mark.range;
            seq.serialize_element(&MarkJson {
                line: mark.line as u64,
                start: r.start as u64,
                end: r.end as u64,
                text: text(&t.text[r.clone()]),
            })?;
        }
        seq.end()
    }
}

#[derive(serde::Serialize)]
struct MarkJson {
    line: u64,
    start: u64,
    end: u64,
    text: alloc::string::String,
}

/// A page of a token listing: `{total, start, tokens}`, `total` being the listing's length and
/// `tokens` up to `count` entries `{id, text, type, score}` from `start` on (`text` as the browser
/// shows it, see [`visible`]; `type` a [`crate::tokenizer::TokenType`] name; either of `type` and
/// `score` null when the file gives none).
#[derive(Debug, Clone, Copy)]
pub struct TokenPage<'a> {
    tokenizer: &'a Tokenizer<'a>,
    listing: &'a Listing,
    start: usize,
    count: usize,
}

impl<'a> TokenPage<'a> {
    /// Entries `start..start + count` of `listing` (fewer at its end).
    pub fn new(
        tokenizer: &'a Tokenizer<'a>,
        listing: &'a Listing,
        start: usize,
        count: usize,
    ) -> TokenPage<'a> {
        TokenPage {
            tokenizer,
            listing,
            start,
            count,
        }
    }
}

impl Serialize for TokenPage<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let end = self.start.saturating_add(self.count).min(self.listing.len());
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("total", &(self.listing.len() as u64))?;
        m.serialize_entry("start", &(self.start as u64))?;
        m.serialize_entry("tokens", &TokensJson(self, self.start.min(end)..end))?;
        m.end()
    }
}

struct TokensJson<'a>(&'a TokenPage<'a>, core::ops::Range<usize>);

impl Serialize for TokensJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let page = self.0;
        let mut seq = s.serialize_seq(Some(self.1.len()))?;
        for i in self.1.clone() {
            let token = page.listing.id(i).and_then(|id| page.tokenizer.token(id));
            if let Some(token) = token {
                seq.serialize_element(&TokenJson(&token))?;
            }
        }
        seq.end()
    }
}

/// One token: `{id, text, type, score}`.
pub struct TokenJson<'a>(pub &'a Token<'a>);

impl Serialize for TokenJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("id", &(t.id as u64))?;
        m.serialize_entry("text", &visible(t.text))?;
        m.serialize_entry("type", &t.ty.map(|ty| ty.name()))?;
        m.serialize_entry("score", &t.score.map(|v| Float(f64::from(v))))?;
        m.end()
    }
}

/// Text split at special tokens: `[{text, special}]`, `special` being the token's id or null.
#[derive(Debug, Clone, Copy)]
pub struct PiecesJson<'a>(pub &'a [Piece<'a>]);

impl Serialize for PiecesJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for p in self.0 {
            seq.serialize_element(&PieceJson {
                text: p.text,
                special: p.special.map(|id| id as u64),
            })?;
        }
        seq.end()
    }
}

#[derive(serde::Serialize)]
struct PieceJson<'a> {
    text: &'a str,
    special: Option<u64>,
}
