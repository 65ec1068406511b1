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
use crate::text::{Escaped, Excerpt};

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
            format_args!("{message}"),
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
        Excerpt(key),
        Escaped(snippet(&text[first.clone()]))
    );
    Some((first, message))
}

/// At most 40 bytes of a hit, for the message.
fn snippet(hit: &[u8]) -> &[u8] {
    &hit[..hit.len().min(40)]
}

/// The first bytes of a string built from pieces that are kept: enough to see any name in it.
const FOLD_CAP: usize = 256;

/// Byte ranges of every suspicious name, string or filter call in the template's code, found among
/// the tokens of the one Jinja lexer ([`crate::jinja`]). A heuristic (a template is a program):
/// it looks for what the known ways to object internals need —
/// - a dunder or underscore-led attribute, a forbidden name, a module before a `.` (names);
/// - a string that spells a dunder name, after its escapes (`\x5f`, `\137`, `\u005f`,
///   `\U0000005f`; any `\N{…}`), or when built from pieces joined by `~` or `+`, written next to
///   each other, or repeated with `*` (`'_' * 2 ~ 'class' ~ '__'`);
/// - a string of two underscores or more (`'__'`, kept for later), a lone `'_'` next to another
///   in a list (`['_','_','class']|join`); a `%c` format (characters from their codes);
/// - a forbidden name or module as a subscript or an `attr` argument, however built (`g['o' ~
///   's']`);
/// - `attr` with anything but one plain string literal (`attr(u ~ 'init' ~ u)`).
pub(crate) fn scan(t: &[u8]) -> Vec<Range<usize>> {
    // The code's tokens, spaces dropped: neighbours are what the checks look at.
    let code: Vec<Token> = jinja::tokens(t)
        .filter(|k| !matches!(k.kind, Kind::Space | Kind::Text | Kind::Comment))
        .collect();
    let op = |i: usize, c: &[u8]| {
        code.get(i)
            .is_some_and(|k| k.kind == Kind::Operator && t[k.range.clone()] == *c)
    };
    let string = |i: usize| code.get(i).is_some_and(|k| k.kind == Kind::String);
    let mut hits = Vec::new();
    let mut i = 0;
    while i < code.len() {
        let token = &code[i];
        if token.kind.is_word() {
            let word = &t[token.range.clone()];
            let is_attribute = i > 0 && op(i - 1, b".");
            let attr_call = word == b"attr" && op(i + 1, b"(");
            let plain_argument = string(i + 2) && op(i + 3, b")");
            if suspicious(word, is_attribute, op(i + 1, b".")) || (attr_call && !plain_argument) {
                hits.push(token.range.clone());
            }
            i += 1;
            continue;
        }
        if token.kind != Kind::String {
            i += 1;
            continue;
        }
        let Folded {
            bytes: folded,
            end,
            joined,
            named: escaped_name,
        } = fold(t, &code, i);
        let first = unescape(jinja::string_contents(&t[token.range.clone()])).0;
        let only_underscores = !first.is_empty() && first.iter().all(|&b| b == b'_');
        let before = |c: &[u8]| i > 0 && op(i - 1, c);
        let underscores = |k: Option<&Token>| {
            k.is_some_and(|k| {
                k.kind == Kind::String && {
                    let (s, _) = unescape(jinja::string_contents(&t[k.range.clone()]));
                    !s.is_empty() && s.iter().all(|&b| b == b'_')
                }
            })
        };
        // `['_', '_', 'class', …]|join`: underscores next to underscores in a list.
        let in_list = (before(b"[") || before(b",")) && (op(end, b",") || op(end, b"]"));
        let beside_underscores = in_list
            && ((before(b",") && underscores(i.checked_sub(2).and_then(|j| code.get(j))))
                || (op(end, b",") && underscores(code.get(end + 1))));
        let subscript = before(b"[") && op(end, b"]");
        let attr_argument = before(b"(") && i >= 2 && t[code[i - 2].range.clone()] == *b"attr";
        let named = |names: &[&str]| names.iter().any(|n| n.as_bytes().eq_ignore_ascii_case(&folded));
        if escaped_name
            || has_dunder(&folded)
            || (joined && folded.windows(2).any(|w| w == b"__"))
            || folded.windows(2).any(|w| w == b"%c")
            || (only_underscores && (folded.len() >= 2 || beside_underscores))
            || ((subscript || attr_argument) && (named(&FORBIDDEN_NAMES) || named(&MODULES)))
        {
            hits.push(token.range.start..code[end - 1].range.end);
        }
        i = end;
    }
    hits
}

/// A string literal read with the pieces joined to it.
pub(super) struct Folded {
    /// Its bytes after escapes, the pieces appended (at most [`FOLD_CAP`]).
    pub bytes: Vec<u8>,
    /// The index in the code after the last piece.
    pub end: usize,
    /// Whether any piece was joined.
    pub joined: bool,
    /// Whether a piece uses a named escape.
    pub named: bool,
}

/// The string literal at `code[i]` and the pieces it is joined with: `'a' ~ 'b'`, `'a' + 'b'`,
/// `'a' 'b'`, `'_' * 2` (a repeated piece is counted twice: enough to show a doubled
/// underscore). `code` is the template's tokens without spaces, text and comments.
pub(super) fn fold(t: &[u8], code: &[Token], i: usize) -> Folded {
    let op = |i: usize, c: &[u8]| {
        code.get(i)
            .is_some_and(|k| k.kind == Kind::Operator && t[k.range.clone()] == *c)
    };
    let string = |i: usize| code.get(i).is_some_and(|k| k.kind == Kind::String);
    let (mut bytes, mut named) = unescape(jinja::string_contents(&t[code[i].range.clone()]));
    let mut end = i + 1;
    let mut joined = false;
    loop {
        let next = if string(end) {
            end
        } else if (op(end, b"~") || op(end, b"+")) && string(end + 1) {
            end + 1
        } else if op(end, b"*") && code.get(end + 1).is_some_and(|k| k.kind == Kind::Number) {
            let piece = bytes.clone();
            bytes.extend_from_slice(&piece);
            bytes.truncate(FOLD_CAP);
            joined = true;
            end += 2;
            continue;
        } else {
            break;
        };
        let (piece, piece_named) = unescape(jinja::string_contents(&t[code[next].range.clone()]));
        bytes.extend_from_slice(&piece);
        bytes.truncate(FOLD_CAP);
        named |= piece_named;
        joined = true;
        end = next + 1;
    }
    Folded {
        bytes,
        end,
        joined,
        named,
    }
}

/// [`fold`]'s bytes and end.
pub(super) fn fold_string(t: &[u8], code: &[Token], i: usize) -> (Vec<u8>, usize) {
    let f = fold(t, code, i);
    (f.bytes, f.end)
}

/// A string literal's bytes with the escapes Python and Jinja read decoded where they give ASCII
/// (`\xHH`, `\uHHHH`, `\UHHHHHHHH`, octal `\ooo`), so that `'\x5f\x5fclass\x5f\x5f'` is
/// seen as `__class__`; and whether it uses a named escape (`\N{LOW LINE}`), which no chat
/// template needs.
fn unescape(s: &[u8]) -> (Vec<u8>, bool) {
    let mut out = Vec::with_capacity(s.len());
    let mut named = false;
    let mut i = 0;
    while i < s.len() {
        let (radix, digits) = match s.get(i..i + 2) {
            Some(b"\\x") => (16, 2),
            Some(b"\\u") => (16, 4),
            Some(b"\\U") => (16, 8),
            Some([b'\\', b'0'..=b'7']) => {
                let run = s[i + 1..]
                    .iter()
                    .take(3)
                    .take_while(|b| (b'0'..=b'7').contains(b))
                    .count();
                (8, run)
            }
            Some(b"\\N") => {
                named = true;
                (0, 0)
            }
            _ => (0, 0),
        };
        let skip = if radix == 8 { 1 } else { 2 };
        // The digits by hand: `from_str_radix` would cost the page's parser module a kilobyte.
        let code = s
            .get(i + skip..i + skip + digits)
            .filter(|_| digits > 0)
            .and_then(|h| {
                h.iter()
                    .try_fold(0u32, |v, &b| Some(v * radix + char::from(b).to_digit(radix)?))
            })
            .and_then(|v| u8::try_from(v).ok())
            .filter(u8::is_ascii);
        match code {
            Some(b) => {
                out.push(b);
                i += skip + digits;
            }
            None => {
                out.push(s[i]);
                i += 1;
            }
        }
    }
    (out, named)
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
