//! Chat templates are untrusted input: a Jinja template rendered without a sandbox runs whatever
//! it can reach (llama-cpp-python, CVE-2024-34359, was exploited through `__globals__`). Real
//! templates only format messages, so any reach for object internals or code is reported.
//!
//! Only the code inside `{{ … }}` and `{% … %}` is looked at — names and string literals, as the
//! project's one Jinja lexer ([`crate::jinja`]) cuts them; the text around it is printed as is.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::ops::Range;

use super::{Check, FindingCode as Code, Subject};
use crate::header::Value;
use crate::jinja::{self, Kind, Token};
use crate::keys;
use crate::text::Escaped;

/// Names that reach code execution or the interpreter's globals, whatever object they hang on.
const FORBIDDEN_NAMES: [&str; 15] = [
    "import",
    "eval",
    "exec",
    "compile",
    "popen",
    "subprocess",
    "getattr",
    "setattr",
    "delattr",
    "globals",
    "locals",
    "builtins",
    "lipsum",
    "cycler",
    "joiner",
];

/// Modules whose attributes run commands or load code: flagged when followed by a `.`.
const MODULES: [&str; 5] = ["os", "sys", "subprocess", "importlib", "posix"];

pub(super) fn check(c: &mut Check<'_>) {
    for (i, e) in c.header.metadata.entries().iter().enumerate() {
        if keys::chat_template_name(e.key.as_bytes()).is_none() {
            continue;
        }
        let Value::String(template) = &e.value else {
            continue;
        };
        let text = template.as_bytes();
        let Some((hit, message)) = finding(e.key.as_bytes(), text) else {
            continue;
        };
        let text_start = e.span.end.saturating_sub(text.len() as u64);
        c.add(
            Code::ChatTemplateCodeExecution,
            text_start + hit.start as u64..text_start + hit.end as u64,
            Subject::Kv(i),
            message,
        );
    }
}

/// The finding on template `text` of key `key`, if any: the first suspicious place and the message.
pub(super) fn finding(key: &[u8], text: &[u8]) -> Option<(Range<usize>, String)> {
    let hits = scan(text);
    let first = hits.first()?.clone();
    let more = match hits.len() - 1 {
        0 => String::new(),
        n => format!(" (and {n} more places)"),
    };
    let message = format!(
        "chat template \"{}\" reaches for `{}`{more}, a way to object internals or code execution: render it only in a sandbox, if at all",
        Escaped(key),
        Escaped(snippet(&text[first.clone()]))
    );
    Some((first, message))
}

/// At most 40 bytes of a hit, for the message.
fn snippet(hit: &[u8]) -> &[u8] {
    &hit[..hit.len().min(40)]
}

/// Byte ranges of every suspicious name or string in the template's code, found among the
/// tokens of the one Jinja lexer ([`crate::jinja`]): each is a word or string token.
pub(crate) fn scan(t: &[u8]) -> Vec<Range<usize>> {
    let mut hits = Vec::new();
    // The last word, waiting for the next token but spaces to say whether a `.` follows it.
    let mut word: Option<(Range<usize>, bool)> = None;
    let mut after_dot = false;
    for token in jinja::tokens(t) {
        if token.kind == Kind::Space {
            after_dot = false;
            continue;
        }
        if let Some((range, is_attribute)) = word.take() {
            let before_dot = is_dot(t, &token);
            if suspicious(&t[range.clone()], is_attribute, before_dot) {
                hits.push(range);
            }
        }
        match token.kind {
            kind if kind.is_word() => word = Some((token.range.clone(), after_dot)),
            Kind::String if has_dunder(&unescape(jinja::string_contents(&t[token.range.clone()]))) => {
                hits.push(token.range.clone());
            }
            _ => {}
        }
        after_dot = is_dot(t, &token);
    }
    match word {
        Some((range, is_attribute)) if suspicious(&t[range.clone()], is_attribute, false) => hits.push(range),
        _ => {}
    }
    hits
}

fn is_dot(t: &[u8], token: &Token) -> bool {
    token.kind == Kind::Operator && t[token.range.clone()] == *b"."
}

/// A string literal's bytes with `\xHH` and `\uHHHH` escapes of ASCII characters decoded, so
/// that `'\x5f\x5fclass\x5f\x5f'` is seen as `__class__`.
fn unescape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let digits = match s.get(i..i + 2) {
            Some(b"\\x") => 2,
            Some(b"\\u") => 4,
            _ => 0,
        };
        let code = s
            .get(i + 2..i + 2 + digits)
            .filter(|_| digits > 0)
            .and_then(|h| core::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .and_then(|v| u8::try_from(v).ok())
            .filter(u8::is_ascii);
        match code {
            Some(b) => {
                out.push(b);
                i += 2 + digits;
            }
            None => {
                out.push(s[i]);
                i += 1;
            }
        }
    }
    out
}

/// Whether `s` holds a dunder name such as `__class__`.
fn has_dunder(s: &[u8]) -> bool {
    (0..s.len()).any(|p| {
        let Some(rest) = s[p..].strip_prefix(b"__") else {
            return false;
        };
        let name = rest.iter().take_while(|b| b.is_ascii_alphanumeric()).count();
        name > 0 && rest[name..].starts_with(b"__")
    })
}

/// Names with a double underscore (dunders, mangled privates), attributes starting with `_`
/// (Jinja's own sandbox refuses them), and the names and modules above.
fn suspicious(word: &[u8], is_attribute: bool, before_dot: bool) -> bool {
    let is = |names: &[&str]| names.iter().any(|n| n.as_bytes() == word);
    word.windows(2).any(|w| w == b"__")
        || (is_attribute && word.starts_with(b"_"))
        || is(&FORBIDDEN_NAMES)
        || (before_dot && is(&MODULES))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(t: &str) -> Vec<&str> {
        scan(t.as_bytes()).into_iter().map(|r| &t[r]).collect()
    }

    #[test]
    fn finds_reaches_in_code_only() {
        assert_eq!(hits("{{ ''.__class__.__mro__ }}"), ["__class__", "__mro__"]);
        assert_eq!(hits("{{ x|attr('__globals__') }}"), ["'__globals__'"]);
        assert_eq!(
            hits(r"{{ x|attr('\x5f\x5fclass\x5f\x5f') }}"),
            [r"'\x5f\x5fclass\x5f\x5f'"]
        );
        assert_eq!(
            hits("{% import 'm' as m %}{{ os . system('id') }}"),
            ["import", "os"]
        );
        assert_eq!(
            hits("{{ self._TemplateReference__context }}"),
            ["_TemplateReference__context"]
        );
        assert_eq!(hits("{{ {'a': 1}['a'] }} eval {{ x.eval }}"), ["eval"]);
        // Text outside the code, comments, and ordinary names are fine.
        assert!(hits("import os; eval(x) {# __class__ #}{{ messages[0]['content'] }}").is_empty());
        assert!(hits("{% for m in messages %}{{ m.role + 'os.' }}{% endfor %}{{ evaluate }}").is_empty());
        assert!(hits("{{ 'unterminated").is_empty());
    }
}
