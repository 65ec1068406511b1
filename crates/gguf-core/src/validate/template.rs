//! Chat templates are untrusted input: a Jinja template rendered without a sandbox runs whatever
//! it can reach (llama-cpp-python, CVE-2024-34359, was exploited through `__globals__`). Real
//! templates only format messages, so any reach for object internals or code is reported.
//!
//! Only the code inside `{{ … }}` and `{% … %}` is looked at; the text around it is printed as is.

use alloc::format;
use alloc::vec::Vec;
use core::ops::Range;

use super::{Check, FindingCode as Code, Subject};
use crate::header::Value;
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
        let key = e.key.as_bytes();
        if key != b"tokenizer.chat_template" && !key.starts_with(b"tokenizer.chat_template.") {
            continue;
        }
        let Value::String(template) = &e.value else {
            continue;
        };
        let text = template.as_bytes();
        let hits = scan(text);
        let Some(first) = hits.first() else { continue };
        let text_start = e.span.end.saturating_sub(text.len() as u64);
        let more = match hits.len() - 1 {
            0 => alloc::string::String::new(),
            n => format!(" (and {n} more places)"),
        };
        c.add(
            Code::ChatTemplateCodeExecution,
            text_start + first.start as u64..text_start + first.end as u64,
            Subject::Kv(i),
            format!(
                "chat template \"{}\" reaches for `{}`{more}, a way to object internals or code execution: render it only in a sandbox, if at all",
                e.key.escaped(),
                Escaped(snippet(&text[first.clone()]))
            ),
        );
    }
}

/// At most 40 bytes of a hit, for the message.
fn snippet(hit: &[u8]) -> &[u8] {
    &hit[..hit.len().min(40)]
}

/// Byte ranges of every suspicious name or string in the template's code.
pub(crate) fn scan(t: &[u8]) -> Vec<Range<usize>> {
    let mut hits = Vec::new();
    let mut i = 0;
    while i + 1 < t.len() {
        i = match (t[i], t[i + 1]) {
            (b'{', b'{') | (b'{', b'%') => code(t, i + 2, &mut hits),
            (b'{', b'#') => find(t, i + 2, b"#}").map_or(t.len(), |p| p + 2),
            _ => i + 1,
        };
    }
    hits
}

fn find(t: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    t.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

/// Scans one block of code from `i` to its closing `}}` or `%}`; returns where it ends.
/// Brackets are counted so that a dict literal's `}` does not end the block.
fn code(t: &[u8], mut i: usize, hits: &mut Vec<Range<usize>>) -> usize {
    let mut depth = 0usize;
    while i < t.len() {
        match t[i] {
            quote @ (b'\'' | b'"') => {
                let end = string_end(t, i, quote);
                if has_dunder(&unescape(&t[i + 1..end])) {
                    hits.push(i..(end + 1).min(t.len()));
                }
                i = end + 1;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b')' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'}' if depth > 0 => {
                depth -= 1;
                i += 1;
            }
            b'}' | b'%' if t.get(i + 1) == Some(&b'}') => return i + 2,
            b if b.is_ascii_alphabetic() || b == b'_' => {
                let start = i;
                while i < t.len() && (t[i].is_ascii_alphanumeric() || t[i] == b'_') {
                    i += 1;
                }
                let is_attribute = start > 0 && t[start - 1] == b'.';
                let before_dot = t[i..].iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'.');
                if suspicious(&t[start..i], is_attribute, before_dot) {
                    hits.push(start..i);
                }
            }
            _ => i += 1,
        }
    }
    i
}

/// The index of the quote closing the string opened at `open`, or the end of the text.
fn string_end(t: &[u8], open: usize, quote: u8) -> usize {
    let mut i = open + 1;
    while i < t.len() && t[i] != quote {
        i += if t[i] == b'\\' { 2 } else { 1 };
    }
    i.min(t.len())
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
