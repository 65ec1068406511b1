//! Chat-template mistakes that show in the template's text, beside a vocabulary: special tokens it
//! writes that the vocabulary lacks (they would be tokenized as plain text), and branches or
//! filters on the *text* of a message (a hidden trigger: the prompt changes with what a user
//! types, in ways other than printing it). The mistakes that show only when the template runs
//! (an end of turn that stops nothing, a double BOS, a generation prompt that adds nothing, a
//! template that does not render) are gguf-template's `lint`, under codes of this module's table.
//!
//! Only the code the project's one Jinja lexer ([`crate::jinja`]) finds is read; string literals
//! are read after their escapes and with the pieces they are joined with, as the code-execution
//! check reads them ([`super::template`]).

use crate::sort::sort_by;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;
use core::ops::Range;

use super::template::fold_string;
use super::{Check, FindingCode as Code, Subject};
use crate::header::Value;
use crate::jinja::{self, Kind, Token};
use crate::keys;
use crate::text::{Escaped, Excerpt};
use crate::tokenizer::Tokenizer;

pub(super) fn check(c: &mut Check<'_>) {
    let tokenizer = Tokenizer::new(c.header);
    // The vocabulary's texts that look like special tokens, gathered once, sorted.
    let specials: Option<Vec<&[u8]>> = (!tokenizer.is_empty()).then(|| {
        let mut found: Vec<&[u8]> = (0..tokenizer.len())
            .filter_map(|id| tokenizer.token(id))
            .map(|t| t.text)
            .filter(|t| special_like(t).is_some_and(|r| r == (0..t.len())))
            .collect();
        sort_by(&mut found, Ord::cmp);
        found
    });
    for (i, e) in c.header.metadata.entries().iter().enumerate() {
        if keys::chat_template_name(e.key.as_bytes()).is_none() {
            continue;
        }
        let Value::String(template) = &e.value else {
            continue;
        };
        let text = template.as_bytes();
        let text_start = e.span.end.saturating_sub(text.len() as u64);
        let at = |r: &Range<usize>| text_start + r.start as u64..text_start + r.end as u64;
        if let Some(vocab) = &specials {
            let missing = unknown_special_tokens(text, |t| vocab.binary_search(&t).is_ok());
            if let Some(first) = missing.first() {
                let mut names: Vec<&[u8]> = missing.iter().map(|r| &text[r.clone()]).collect();
                sort_by(&mut names, Ord::cmp);
                names.dedup();
                let mut shown = String::new();
                for (n, name) in names.iter().take(5).enumerate() {
                    let comma = if n > 0 { ", " } else { "" };
                    let _ = write!(shown, "{comma}{}", Escaped(name));
                }
                let more = if names.len() > 5 { " and more" } else { "" };
                c.add(
                    Code::ChatTemplateUnknownSpecialToken,
                    at(first),
                    Subject::Kv(i),
                    format_args!(
                        "chat template \"{}\" writes {shown}{more}, not a token of the vocabulary: it is tokenized as plain text, not as the special token the model was trained on",
                        Excerpt(e.key.as_bytes()),
                    ),
                );
            }
        }
        if let Some((hit, literal)) = content_triggers(text).into_iter().next() {
            c.add(
                Code::ChatTemplateContentTrigger,
                at(&hit),
                Subject::Kv(i),
                format_args!(
                    "chat template \"{}\" branches on what a message says (`{}`): the prompt changes with the text a user types, in ways other than printing it — a hidden trigger unless the model's card documents it",
                    Excerpt(e.key.as_bytes()),
                    Escaped(&literal[..literal.len().min(60)])
                ),
            );
        }
    }
}

/// The first `<|name|>` (or DeepSeek's `<｜name｜>`) in `s`: its bytes.
fn special_like(s: &[u8]) -> Option<Range<usize>> {
    const BARS: [&[u8]; 2] = [b"|", "｜".as_bytes()];
    let mut from = 0;
    while let Some(p) = s[from..].iter().position(|&b| b == b'<').map(|p| p + from) {
        for bar in BARS {
            let body = p + 1 + bar.len();
            if s[p + 1..].starts_with(bar) {
                let close: Vec<u8> = [bar, b">"].concat();
                let name_len = s[body..]
                    .windows(close.len())
                    .position(|w| w == close.as_slice())
                    .filter(|&n| (1..=64).contains(&n));
                if let Some(n) = name_len {
                    let name = &s[body..body + n];
                    if !name
                        .iter()
                        .any(|b| b.is_ascii_whitespace() || matches!(b, b'<' | b'>' | b'|' | b'{' | b'}'))
                    {
                        return Some(p..body + n + close.len());
                    }
                }
            }
        }
        from = p + 1;
    }
    None
}

/// Every `<|name|>` the template writes — in its text or in a string literal — that `known`
/// does not know, by its bytes in the template.
pub(crate) fn unknown_special_tokens(t: &[u8], known: impl Fn(&[u8]) -> bool) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for token in jinja::tokens(t).filter(|k| matches!(k.kind, Kind::Text | Kind::String)) {
        let mut from = token.range.start;
        while let Some(r) = special_like(&t[from..token.range.end]) {
            let r = from + r.start..from + r.end;
            if !known(&t[r.clone()]) {
                out.push(r.clone());
            }
            from = r.end;
        }
    }
    out
}

/// Words that end a clause of a condition.
const CLAUSE_ENDS: [&[u8]; 7] = [b"and", b"or", b"if", b"elif", b"else", b"not", b"set"];

/// Methods and filters that read a string's text to decide or change something.
const TEXT_TESTS: [&[u8]; 13] = [
    b"startswith",
    b"endswith",
    b"find",
    b"rfind",
    b"index",
    b"count",
    b"replace",
    b"split",
    b"rsplit",
    b"partition",
    b"lower",
    b"upper",
    b"strip",
];

/// Places where the template decides on a message's text: a clause of a tag that reads a
/// message's `content` and compares it with, searches it for or replaces in it a literal holding
/// words (after its escapes and the pieces it is joined with; markup such as `</think>` or
/// `<tool_response>`, and whitespace, do not count). Each with the literal's text.
pub(crate) fn content_triggers(t: &[u8]) -> Vec<(Range<usize>, Vec<u8>)> {
    let code: Vec<Token> = jinja::tokens(t)
        .filter(|k| !matches!(k.kind, Kind::Space | Kind::Text | Kind::Comment))
        .collect();
    let word = |k: &Token| k.kind.is_word().then(|| &t[k.range.clone()]);
    let op = |i: usize, c: &[u8]| {
        code.get(i)
            .is_some_and(|k| k.kind == Kind::Operator && t[k.range.clone()] == *c)
    };
    let mut out = Vec::new();
    // One clause at a time: from a tag's start or a clause word to the next.
    let mut start = 0;
    for end in 0..=code.len() {
        let boundary = end == code.len()
            || code[end].kind == Kind::Delimiter
            || word(&code[end]).is_some_and(|w| CLAUSE_ENDS.contains(&w))
            || op(end, b",");
        if !boundary {
            continue;
        }
        let clause = start..end;
        start = end + 1;
        let reads_content = clause.clone().any(|i| {
            let k = &code[i];
            word(k) == Some(b"content")
                || (k.kind == Kind::String
                    && op(i.wrapping_sub(1), b"[")
                    && fold_string(t, &code, i).0 == b"content")
        });
        if !reads_content {
            continue;
        }
        let decides = clause.clone().any(|i| {
            op(i, b"=") && op(i + 1, b"=")
                || op(i, b"!") && op(i + 1, b"=")
                || word(&code[i]).is_some_and(|w| w == b"in" || TEXT_TESTS.contains(&w))
        });
        if !decides {
            continue;
        }
        let mut i = clause.start;
        while i < clause.end {
            if code[i].kind != Kind::String || op(i.wrapping_sub(1), b"[") {
                i += 1;
                continue;
            }
            let (folded, next) = fold_string(t, &code, i);
            if holds_words(&folded) {
                out.push((
                    code[i].range.start..code[next.min(code.len()) - 1].range.end,
                    folded,
                ));
                break;
            }
            i = next.max(i + 1);
        }
    }
    out
}

/// Whether `s` holds a letter or digit outside markup (`<…>`, `[…]`) and escapes (`\n`).
fn holds_words(s: &[u8]) -> bool {
    let mut depth = 0i32;
    let mut escaped = false;
    for &b in s {
        if core::mem::take(&mut escaped) {
            continue;
        }
        match b {
            b'\\' => escaped = true,
            b'<' | b'[' => depth += 1,
            b'>' | b']' => depth = (depth - 1).max(0),
            b if depth == 0 && b.is_ascii_alphanumeric() => return true,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unknown(t: &str, vocab: &[&str]) -> Vec<String> {
        unknown_special_tokens(t.as_bytes(), |s| vocab.iter().any(|v| v.as_bytes() == s))
            .into_iter()
            .map(|r| t[r].to_owned())
            .collect()
    }

    fn triggers(t: &str) -> Vec<String> {
        content_triggers(t.as_bytes())
            .into_iter()
            .map(|(_, s)| String::from_utf8(s).unwrap())
            .collect()
    }

    use alloc::borrow::ToOwned;
    use alloc::string::String;

    #[test]
    fn special_tokens_the_vocabulary_lacks() {
        let t = "<|system|>{{ '<|user|>\n' + m.content + '<|end|>' }}<｜Assistant｜>{{ '<|' + role + '|>' }}";
        assert_eq!(
            unknown(t, &["<|system|>", "<|end|>"]),
            ["<|user|>", "<｜Assistant｜>"]
        );
        assert!(unknown("a <| b |> c <|x y|>", &[]).is_empty());
    }

    #[test]
    fn branches_on_message_text() {
        assert_eq!(
            triggers("{% if 'sudo' in message.content %}x{% endif %}"),
            ["sudo"]
        );
        assert_eq!(
            triggers(r"{% if message['content']|lower == '\x73ecret' ~ ' mode' %}"),
            ["secret mode"]
        );
        assert_eq!(
            triggers("{{ m.content.replace('ignore all', '') }}"),
            ["ignore all"]
        );
        // Roles, markup, whitespace, emptiness and printing are not triggers.
        for t in [
            "{% if message.role == 'user' and message.content %}{{ message.content }}{% endif %}",
            "{% if message['content'] is string %}{{ message['content'] }}{% endif %}",
            "{% set c = message.content.split('</think>')[-1] %}{% if content.startswith('<tool_response>') %}",
            "{% if message.content == '' %}{{ message.content|replace('\\n', ' ') }}{% endif %}",
            "{% if 'system' in message.role %}{{ content }}{% endif %}",
        ] {
            assert!(triggers(t).is_empty(), "{t}: {:?}", triggers(t));
        }
    }
}
