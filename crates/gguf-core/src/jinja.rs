//! The Jinja lexer: a chat template cut into tokens that each have a [`Kind`].
//!
//! This is the project's only Jinja lexer, on purpose. Three things need to know where a
//! template's tags are and what is inside them — the validator's template check (which names and
//! strings inside `{{ … }}` and `{% … %}` reach for internals), the preview's guard in
//! `gguf-template` (how many tokens a tag holds before minijinja parses it) and the page's
//! highlighting (through `gguf-wasm`'s `jinjaSpans`) — and when each had its own copy they
//! disagreed on what is code. Whatever else needs to look into a template uses these tokens.
//!
//! The rules:
//! - Outside tags everything is [`Kind::Text`], up to the next `{{`, `{%` or `{#`.
//! - `{# … #}` is one [`Kind::Comment`] (to the end of the template if it is not closed).
//! - A tag opens with `{{` or `{%`, optionally followed by `-` or `+` (whitespace control), and
//!   closes with `}}` or `%}` — either, whichever opened it, as the validator and the guard always
//!   read it — optionally preceded by `-` or `+`; both are [`Kind::Delimiter`]s. Brackets are
//!   counted (any of `)]}` closes one), so that a dict's `}}` (`{'a': {'b': 1}}`) does not close
//!   the tag: a closing delimiter only counts outside brackets.
//! - Inside a tag: runs of ASCII whitespace ([`Kind::Space`]); string literals in `'` or `"`,
//!   where a backslash escapes the next byte ([`Kind::String`]); numbers ([`Kind::Number`]:
//!   digits with `_` between them, a fraction, an exponent — but a number glued to a name, as in
//!   `1e5x`, is only its leading digits, `1` then the name `e5x`, so that a name is always a
//!   whole run of `[A-Za-z0-9_]` less its leading digits, as the validator has always read
//!   names); names (`[A-Za-z_][A-Za-z0-9_]*`): a [`Kind::Keyword`] if it is a statement
//!   word, a word operator or a constant, or the first word of a `{% … %}`, else a
//!   [`Kind::Filter`] right after a `|`, else a [`Kind::Name`]; anything else is a one-byte
//!   [`Kind::Operator`], except that a run of non-ASCII bytes is one operator.
//! - A tag or string that is not closed runs to the end of the template.
//!
//! The tokens cover the template exactly and in order, whatever its bytes (templates are bytes:
//! invalid UTF-8 is lexed like any other non-ASCII). Every boundary between two tokens is before
//! or after an ASCII byte, so in valid UTF-8 a token never splits a character. Lexing is linear
//! in the template's length, allocates nothing and never panics.

use core::ops::Range;

/// What a token is. The numbers are stable: `gguf-wasm`'s `jinjaSpans` hands them to the page,
/// and [`Kind::name`] is the class the page gives them (`j-keyword`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Kind {
    /// Text outside tags, printed as is.
    Text = 0,
    /// A tag's opening or closing: `{{`, `{%-`, `-%}`, `}}`, `+%}` and the like.
    Delimiter = 1,
    /// `{# … #}`.
    Comment = 2,
    /// A statement word (`if`, `endfor`, …), a word operator (`and`, `in`, `is`, …), a constant
    /// (`true`, `none`, …), `loop`, or the first word of a `{% … %}`.
    Keyword = 3,
    /// A string literal, quotes included.
    String = 4,
    /// A number literal.
    Number = 5,
    /// Any other name.
    Name = 6,
    /// A name right after `|`.
    Filter = 7,
    /// Any other byte inside a tag (a run of non-ASCII bytes is one).
    Operator = 8,
    /// Whitespace inside a tag.
    Space = 9,
}

impl Kind {
    /// Every kind, in the order of their numbers.
    pub const ALL: [Kind; 10] = [
        Kind::Text,
        Kind::Delimiter,
        Kind::Comment,
        Kind::Keyword,
        Kind::String,
        Kind::Number,
        Kind::Name,
        Kind::Filter,
        Kind::Operator,
        Kind::Space,
    ];

    /// Its name in lower case (`"delimiter"`), as the page's classes use it.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Delimiter => "delimiter",
            Kind::Comment => "comment",
            Kind::Keyword => "keyword",
            Kind::String => "string",
            Kind::Number => "number",
            Kind::Name => "name",
            Kind::Filter => "filter",
            Kind::Operator => "operator",
            Kind::Space => "space",
        }
    }

    /// Whether it is a word: a keyword, a name or a filter.
    pub const fn is_word(self) -> bool {
        matches!(self, Kind::Keyword | Kind::Name | Kind::Filter)
    }
}

/// Words that start or shape a statement, the word operators and the constants.
const KEYWORDS: [&str; 43] = [
    "if",
    "elif",
    "else",
    "endif",
    "for",
    "endfor",
    "in",
    "recursive",
    "set",
    "endset",
    "macro",
    "endmacro",
    "call",
    "endcall",
    "filter",
    "endfilter",
    "with",
    "endwith",
    "block",
    "endblock",
    "extends",
    "include",
    "import",
    "from",
    "as",
    "break",
    "continue",
    "do",
    "raw",
    "endraw",
    "autoescape",
    "endautoescape",
    "and",
    "or",
    "not",
    "is",
    "true",
    "false",
    "none",
    "True",
    "False",
    "None",
    "loop",
];

/// One token: its kind and its bytes in the template.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Token {
    /// What it is.
    pub kind: Kind,
    /// Its bytes in the template.
    pub range: Range<usize>,
}

impl Token {
    /// Whether it is a delimiter that opens a tag (`{{`, `{%-`), rather than one that closes it.
    pub fn opens(&self, template: &[u8]) -> bool {
        self.kind == Kind::Delimiter && template.get(self.range.start) == Some(&b'{')
    }
}

/// The tokens of `template`, in order (see the [module](self) for the rules).
pub fn tokens(template: &[u8]) -> Tokens<'_> {
    Tokens {
        t: template,
        pos: 0,
        tag: None,
    }
}

/// The iterator of [`tokens`].
#[derive(Debug, Clone)]
pub struct Tokens<'t> {
    t: &'t [u8],
    pos: usize,
    /// Inside a tag: its state.
    tag: Option<Tag>,
}

/// Where the lexer is inside a tag.
#[derive(Debug, Clone, Copy)]
struct Tag {
    /// Brackets open.
    depth: usize,
    /// The next word is the first of a `{% … %}`.
    statement: bool,
    /// The last token but spaces was `|`.
    after_pipe: bool,
}

impl Iterator for Tokens<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        let (t, start) = (self.t, self.pos);
        let first = *t.get(start)?;
        let (kind, end) = match &mut self.tag {
            None => match t.get(start + 1) {
                Some(b'#') if first == b'{' => (
                    Kind::Comment,
                    find(t, start + 2, b"#}").map_or(t.len(), |p| p + 2),
                ),
                Some(&open @ (b'{' | b'%')) if first == b'{' => {
                    self.tag = Some(Tag {
                        depth: 0,
                        statement: open == b'%',
                        after_pipe: false,
                    });
                    let control = matches!(t.get(start + 2), Some(b'-' | b'+'));
                    (Kind::Delimiter, start + 2 + usize::from(control))
                }
                _ => (Kind::Text, next_opening(t, start + 1)),
            },
            Some(tag) => {
                if let Some(len) = closing(t, start).filter(|_| tag.depth == 0) {
                    self.tag = None;
                    (Kind::Delimiter, start + len)
                } else if first.is_ascii_whitespace() {
                    (Kind::Space, run(t, start, |b| b.is_ascii_whitespace()))
                } else {
                    let (kind, end) = match first {
                        b'\'' | b'"' => (Kind::String, string_end(t, start)),
                        b'0'..=b'9' => (Kind::Number, number_end(t, start)),
                        b if is_word_start(b) => {
                            let end = run(t, start, is_word_byte);
                            let word = &t[start..end];
                            let kind = if tag.statement || KEYWORDS.iter().any(|k| k.as_bytes() == word) {
                                Kind::Keyword
                            } else if tag.after_pipe {
                                Kind::Filter
                            } else {
                                Kind::Name
                            };
                            (kind, end)
                        }
                        b if !b.is_ascii() => (Kind::Operator, run(t, start, |b| !b.is_ascii())),
                        b => {
                            match b {
                                b'(' | b'[' | b'{' => tag.depth += 1,
                                b')' | b']' | b'}' => tag.depth = tag.depth.saturating_sub(1),
                                _ => {}
                            }
                            (Kind::Operator, start + 1)
                        }
                    };
                    tag.statement = false;
                    tag.after_pipe = first == b'|';
                    (kind, end)
                }
            }
        };
        self.pos = end;
        Some(Token {
            kind,
            range: start..end,
        })
    }
}

impl core::iter::FusedIterator for Tokens<'_> {}

/// The length of the closing delimiter (`}}`, `%}`, with a `-` or `+` before) at `i`, if one is.
fn closing(t: &[u8], i: usize) -> Option<usize> {
    let control = usize::from(matches!(t.get(i), Some(b'-' | b'+')));
    match t.get(i + control..i + control + 2)? {
        b"}}" | b"%}" => Some(control + 2),
        _ => None,
    }
}

/// Where the next `{{`, `{%` or `{#` at or after `from` starts, or the end of the template.
fn next_opening(t: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < t.len() {
        if t[i] == b'{' && matches!(t.get(i + 1), Some(b'{' | b'%' | b'#')) {
            return i;
        }
        i += 1;
    }
    t.len()
}

/// Where `needle` next starts at or after `from`.
fn find(t: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    t.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

/// The end of the run of bytes matching `f` that starts at `from`.
fn run(t: &[u8], from: usize, f: impl Fn(u8) -> bool) -> usize {
    from + t[from..].iter().take_while(|&&b| f(b)).count()
}

fn is_word_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The end of the string literal opening at `open` (after its closing quote), or of the template.
fn string_end(t: &[u8], open: usize) -> usize {
    (closing_quote(t, open) + 1).min(t.len())
}

/// The index of the quote closing the string opened at `open`: at least `t.len()` if none does.
/// A backslash escapes the byte after it.
fn closing_quote(t: &[u8], open: usize) -> usize {
    let quote = t[open];
    let mut i = open + 1;
    while i < t.len() && t[i] != quote {
        i += if t[i] == b'\\' { 2 } else { 1 };
    }
    i
}

/// The end of the number starting at `start` (a digit): `1_000`, `1.5`, `2e-3`. A number that a
/// name byte follows is only its leading digits (`1e5x` is `1` and the name `e5x`), so names are
/// the same whether a number is before them or not.
fn number_end(t: &[u8], start: usize) -> usize {
    let digits = run(t, start, |b| b.is_ascii_digit());
    let mut end = grouped_digits(t, start);
    if t.get(end) == Some(&b'.') && t.get(end + 1).is_some_and(u8::is_ascii_digit) {
        end = grouped_digits(t, end + 1);
    }
    if matches!(t.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(t.get(end + 1), Some(b'-' | b'+')));
        if t.get(end + 1 + sign).is_some_and(u8::is_ascii_digit) {
            end = grouped_digits(t, end + 1 + sign);
        }
    }
    if t.get(end).is_some_and(|&b| is_word_byte(b)) {
        digits
    } else {
        end
    }
}

/// The end of the digits starting at `start` (a digit), single `_`s between them allowed.
fn grouped_digits(t: &[u8], start: usize) -> usize {
    let mut end = run(t, start, |b| b.is_ascii_digit());
    while t.get(end) == Some(&b'_') && t.get(end + 1).is_some_and(u8::is_ascii_digit) {
        end = run(t, end + 1, |b| b.is_ascii_digit());
    }
    end
}

/// The contents of a string token: without its opening quote, and without its closing quote if
/// it has one (an unclosed string runs to the end of the template). Escapes are left as they are.
pub fn string_contents(token: &[u8]) -> &[u8] {
    match token {
        [] => token,
        [_, inner @ .., _] if closing_quote(token, 0) == token.len() - 1 => inner,
        [_, rest @ ..] => rest,
    }
}
