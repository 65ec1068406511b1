//! GGUF strings, and how file text is shown: bytes that should be UTF-8 but are not always (real
//! token lists hold lone bytes) are kept as bytes ([`GgufString`]) and shown with invalid bytes
//! escaped, never refused. The display helpers every front end uses live here: [`Escaped`]
//! (control, bidi and zero-width characters made visible, [`disguises`]), [`Excerpt`] (cut at
//! [`EXCERPT_MAX`] bytes), [`lossy`] and [`lossy_excerpt`], and [`Grouped`] digits.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write};

/// A GGUF string, kept byte for byte.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct GgufString(Vec<u8>);

impl GgufString {
    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The text, when it is valid UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        core::str::from_utf8(&self.0).ok()
    }

    /// The text with invalid bytes written as `\xNN` (see [`Escaped`]).
    pub fn escaped(&self) -> Escaped<'_> {
        Escaped(&self.0)
    }

    /// The text as a message quotes it: escaped, and cut past [`EXCERPT_MAX`] bytes (see [`Excerpt`]).
    pub fn excerpt(&self) -> Excerpt<'_> {
        Excerpt(&self.0)
    }
}

/// Whether `bytes` are valid UTF-8: the same answer as `core::str::from_utf8(bytes).is_ok()`,
/// several times faster on vocabularies, whose short strings mix ASCII and other scripts (the
/// standard check's ASCII fast path keeps falling back there). A shift-based DFA: each byte's
/// table row holds the next state for every state, so the only dependency from byte to byte is
/// one shift, and there is no branch to mispredict.
pub(crate) fn is_utf8(bytes: &[u8]) -> bool {
    let mut state = 0u64;
    for &b in bytes {
        state = UTF8_DFA[usize::from(b)] >> (state & 63);
    }
    state & 63 == 0
}

/// [`is_utf8`]'s transitions: for byte `b`, bits `6s..6s+6` of `UTF8_DFA[b]` are `6 ×` the state
/// that follows state `s`. States: 0 accept, 1 reject, 2–3 one or two continuation bytes left,
/// 4 after E0 (next A0–BF), 5 after ED (next 80–9F, no surrogates), 6 three left, 7 after F0
/// (next 90–BF), 8 after F4 (next 80–8F, nothing past U+10FFFF).
static UTF8_DFA: [u64; 256] = utf8_dfa();

const fn utf8_dfa() -> [u64; 256] {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let cont = b >= 0x80 && b <= 0xBF;
        let mut row = 0u64;
        let mut state = 0;
        while state < 9 {
            let next: u64 = match state {
                0 => match b {
                    0x00..=0x7F => 0,
                    0xC2..=0xDF => 2,
                    0xE0 => 4,
                    0xE1..=0xEC | 0xEE..=0xEF => 3,
                    0xED => 5,
                    0xF0 => 7,
                    0xF1..=0xF3 => 6,
                    0xF4 => 8,
                    _ => 1,
                },
                2 if cont => 0,
                3 if cont => 2,
                4 if b >= 0xA0 && b <= 0xBF => 2,
                5 if b >= 0x80 && b <= 0x9F => 2,
                6 if cont => 3,
                7 if b >= 0x90 && b <= 0xBF => 3,
                8 if b >= 0x80 && b <= 0x8F => 3,
                _ => 1,
            };
            row |= (next * 6) << (state * 6);
            state += 1;
        }
        table[b] = row;
        b += 1;
    }
    table
}

impl From<Vec<u8>> for GgufString {
    fn from(bytes: Vec<u8>) -> GgufString {
        GgufString(bytes)
    }
}

impl From<&str> for GgufString {
    fn from(s: &str) -> GgufString {
        GgufString(s.into())
    }
}

impl From<String> for GgufString {
    fn from(s: String) -> GgufString {
        GgufString(s.into_bytes())
    }
}

impl PartialEq<str> for GgufString {
    fn eq(&self, other: &str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl fmt::Debug for GgufString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self.escaped())
    }
}

impl fmt::Display for GgufString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.escaped().fmt(f)
    }
}

/// A count written with its thousands grouped, `1234567` as `1,234,567`: how the page and the CLI
/// write every figure, finding messages and the memory formula too. Formats without allocating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grouped(pub u64);

impl fmt::Display for Grouped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut digits = [0u8; 20]; // u64::MAX has 20 digits
        let mut n = self.0;
        let mut len = 0;
        loop {
            digits[len] = b'0' + (n % 10) as u8;
            len += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        for i in (0..len).rev() {
            f.write_char(char::from(digits[i]))?;
            if i > 0 && i % 3 == 0 {
                f.write_char(',')?;
            }
        }
        Ok(())
    }
}

/// Shows bytes as one line of text, safe for a terminal or a log: valid UTF-8 as is, except
/// control characters (`\x0A`, `\x1B`, `\u{85}`) and the characters that reorder or hide text
/// (bidirectional controls such as `\u{202E}`, zero-width ones such as `\u{200B}`: see
/// `disguises` below), and each invalid byte as `\xNN`. Hostile metadata cannot move the cursor,
/// inject escape sequences or make `FUGG.exe` read as `exe.GGUF` through it. A backslash that
/// would read as the start of one of these escapes (before `x`, `u{` or another backslash) is
/// written `\\`, so the bytes `FF FE` (`\xFF\xFE`) never look like the text `\xFF\xFE`
/// (`\\xFF\\xFE`); other backslashes (`\n` in a template) stay single.
#[derive(Clone, Copy)]
pub struct Escaped<'a>(pub &'a [u8]);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_escaped(f, self.0, true)
    }
}

/// [`Escaped`] for a whole line that may already hold [`Escaped`] text (a line the CLI prints,
/// an error message quoting a file): control characters, hiding characters and invalid bytes
/// escaped as [`Escaped`] does, backslashes left as they are, so escaped text is not escaped
/// twice.
#[derive(Clone, Copy)]
pub struct EscapedLine<'a>(pub &'a [u8]);

impl fmt::Display for EscapedLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_escaped(f, self.0, false)
    }
}

/// Writes `bytes` as [`Escaped`] describes, with its backslash rule when `backslashes`.
fn write_escaped(f: &mut fmt::Formatter<'_>, bytes: &[u8], backslashes: bool) -> fmt::Result {
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        let mut plain = 0;
        for (i, c) in valid.char_indices() {
            if backslashes && c == '\\' && reads_as_escape(&valid[i + 1..], !chunk.invalid().is_empty()) {
                f.write_str(&valid[plain..i])?;
                f.write_str("\\\\")?;
                plain = i + 1;
            } else if c.is_control() || disguises(c) {
                f.write_str(&valid[plain..i])?;
                match u8::try_from(c) {
                    Ok(b) if b < 0x80 => write!(f, "\\x{b:02X}")?,
                    _ => write!(f, "\\u{{{:X}}}", u32::from(c))?,
                }
                plain = i + c.len_utf8();
            }
        }
        f.write_str(&valid[plain..])?;
        for b in chunk.invalid() {
            write!(f, "\\x{b:02X}")?;
        }
    }
    Ok(())
}

/// Whether a backslash before `rest` (then an invalid byte, when `invalid_next`), as
/// [`Escaped`] writes it, would read as the start of an escape (`\xNN`, `\u{…}`, `\\`): what
/// follows begins with `x`, `u{` or a backslash, or is a character or byte written as an escape.
fn reads_as_escape(rest: &str, invalid_next: bool) -> bool {
    match rest.chars().next() {
        None => invalid_next,
        Some(c) => matches!(c, 'x' | '\\') || rest.starts_with("u{") || c.is_control() || disguises(c),
    }
}

/// Whether `c` changes how the text around it reads while showing nothing itself: the
/// bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the
/// zero-width and invisible format characters (U+00AD, U+180E, U+200B–U+200D, U+2060–U+2064,
/// U+FEFF). [`Escaped`] shows them as `\u{…}`; the validator reports them (`disguised-key`,
/// `disguised-text`); the CLI's JSON documents escape them.
pub fn disguises(c: char) -> bool {
    matches!(
        c,
        '\u{061C}'
            | '\u{00AD}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

/// What hides in a text, for the validator's findings: a character that shows nothing, reorders
/// the text around it or is a control character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hidden {
    /// Byte position in the text.
    pub at: usize,
    /// The character.
    pub c: char,
}

impl Hidden {
    /// The first character of `text` that is a control character or one that [`disguises`]
    /// text, other than those in `allowed` (a template's line breaks, an emoji's joiners).
    pub(crate) fn first_in(text: &[u8], allowed: &[char]) -> Option<Hidden> {
        let mut start = 0;
        for chunk in text.utf8_chunks() {
            let valid = chunk.valid();
            let found = valid
                .char_indices()
                .find(|&(_, c)| (c.is_control() || disguises(c)) && !allowed.contains(&c));
            if let Some((i, c)) = found {
                return Some(Hidden { at: start + i, c });
            }
            start += valid.len() + chunk.invalid().len();
        }
        None
    }

    /// What the character does, for a message: `"U+202E, a bidirectional control,"`.
    pub(crate) fn kind(self) -> &'static str {
        match self.c {
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => {
                "a bidirectional control, which reorders the text after it"
            }
            c if c.is_control() => "a control character",
            _ => "an invisible character",
        }
    }
}

/// Cyrillic and Greek letters drawn like a Latin one, with that letter: `а` (U+0430) is `a`. A
/// key spelled with them reads as another (`general.nаme` as `general.name`). The common ones
/// only: enough to catch a key made to pass for a standard one, small enough for the wasm.
#[rustfmt::skip]
const LOOKALIKES: &[(char, char)] = &[
    // Cyrillic.
    ('а', 'a'), ('в', 'B'), ('е', 'e'), ('к', 'k'), ('м', 'M'), ('н', 'H'), ('о', 'o'), ('р', 'p'),
    ('с', 'c'), ('т', 'T'), ('у', 'y'), ('х', 'x'), ('ѕ', 's'), ('і', 'i'), ('ј', 'j'), ('ԁ', 'd'),
    ('ԛ', 'q'), ('ԝ', 'w'), ('А', 'A'), ('В', 'B'), ('Е', 'E'), ('К', 'K'), ('М', 'M'), ('Н', 'H'),
    ('О', 'O'), ('Р', 'P'), ('С', 'C'), ('Т', 'T'), ('Х', 'X'), ('Ѕ', 'S'), ('І', 'I'), ('Ј', 'J'),
    // Greek.
    ('α', 'a'), ('ε', 'e'), ('ι', 'i'), ('κ', 'k'), ('ν', 'v'), ('ο', 'o'), ('ρ', 'p'), ('τ', 't'),
    ('υ', 'u'), ('χ', 'x'), ('Α', 'A'), ('Β', 'B'), ('Ε', 'E'), ('Ζ', 'Z'), ('Η', 'H'), ('Ι', 'I'),
    ('Κ', 'K'), ('Μ', 'M'), ('Ν', 'N'), ('Ο', 'O'), ('Ρ', 'P'), ('Τ', 'T'), ('Υ', 'Y'), ('Χ', 'X'),
];

/// The Latin letter `c` passes for, when it is a Cyrillic or Greek look-alike ([`LOOKALIKES`]).
pub(crate) fn lookalike(c: char) -> Option<char> {
    LOOKALIKES.iter().find(|&&(l, _)| l == c).map(|&(_, latin)| latin)
}

/// The most bytes of file text a message quotes. A name or value can be as long as the file, so
/// a message that quoted it whole could be a gigabyte line (issue 18); 200 bytes still shows any
/// real key or tensor name (the spec caps names at 64) whole.
pub const EXCERPT_MAX: usize = 200;

/// The first [`EXCERPT_MAX`] bytes of `bytes`, backed off to a character boundary, when
/// `bytes` is longer; `None` when it fits whole.
fn excerpt_head(bytes: &[u8]) -> Option<&[u8]> {
    if bytes.len() <= EXCERPT_MAX {
        return None;
    }
    // Back off over UTF-8 continuation bytes (at most 3), so no character is split in two.
    let mut end = EXCERPT_MAX;
    while end > EXCERPT_MAX - 3 && bytes[end] & 0xC0 == 0x80 {
        end -= 1;
    }
    Some(&bytes[..end])
}

/// File text as a message quotes it: [`Escaped`], and past [`EXCERPT_MAX`] bytes cut, ending
/// `… (N bytes)` with the whole length: `AAAA… (1,048,576 bytes)`. The one way messages and
/// errors show a key, a name or a value from the file, so their length is bounded whatever the
/// file holds.
#[derive(Clone, Copy)]
pub struct Excerpt<'a>(pub &'a [u8]);

impl fmt::Display for Excerpt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match excerpt_head(self.0) {
            None => Escaped(self.0).fmt(f),
            Some(head) => write!(f, "{}… ({} bytes)", Escaped(head), Grouped(self.0.len() as u64)),
        }
    }
}

/// [`lossy`] cut as [`Excerpt`] cuts: a document field that names a key or tensor (a finding's
/// subject), so a huge name cannot make every finding about it huge.
pub fn lossy_excerpt(bytes: &[u8]) -> Cow<'_, str> {
    match excerpt_head(bytes) {
        None => lossy(bytes),
        Some(head) => Cow::Owned(alloc::format!(
            "{}… ({} bytes)",
            lossy(head),
            Grouped(bytes.len() as u64)
        )),
    }
}

/// The text of a document field (JSON, a page's `textContent`): the string itself when it is
/// UTF-8 — control characters included, which those encoders handle — else with each invalid
/// byte as `\xNN`.
pub fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    match core::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => {
            let mut out = String::with_capacity(bytes.len() + 8);
            for chunk in bytes.utf8_chunks() {
                out.push_str(chunk.valid());
                for b in chunk.invalid() {
                    let _ = write!(out, "\\x{b:02X}");
                }
            }
            Cow::Owned(out)
        }
    }
}

impl fmt::Debug for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{self}\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn the_utf8_check_agrees_with_the_standard_one() {
        let agrees = |bytes: &[u8]| is_utf8(bytes) == core::str::from_utf8(bytes).is_ok();
        // Every sequence of up to three bytes, and every four-byte one from a lead byte F0–FF
        // with the last byte at the edges of the continuation range, after ASCII and alone.
        for a in 0..=255u8 {
            assert!(agrees(&[a]) && agrees(&[b'x', a]), "{a:02x}");
            for b in 0..=255u8 {
                assert!(agrees(&[a, b]), "{a:02x} {b:02x}");
                for c in 0..=255u8 {
                    assert!(agrees(&[a, b, c]), "{a:02x} {b:02x} {c:02x}");
                    if a >= 0xF0 {
                        for d in [0x7F, 0x80, 0xBF, 0xC0] {
                            assert!(agrees(&[a, b, c, d]), "{a:02x} {b:02x} {c:02x} {d:02x}");
                        }
                    }
                }
            }
        }
        assert!(is_utf8("ascii, é, 日本, 🦙, \u{10FFFF}".as_bytes()));
        assert!(!is_utf8(b"ends inside a character \xE6\x97"));
    }

    #[test]
    fn counts_are_grouped_by_thousands() {
        let cases = [
            (0, "0"),
            (999, "999"),
            (1_000, "1,000"),
            (262_144, "262,144"),
            (1_000_000, "1,000,000"),
            (u64::MAX, "18,446,744,073,709,551,615"),
        ];
        for (n, text) in cases {
            assert_eq!(Grouped(n).to_string(), text);
        }
    }

    #[test]
    fn text_that_reorders_or_hides_itself_is_shown() {
        let name = "Llama-3-8B-Instruct-\u{202E}FUGG.exe";
        assert_eq!(
            Escaped(name.as_bytes()).to_string(),
            "Llama-3-8B-Instruct-\\u{202E}FUGG.exe"
        );
        assert_eq!(
            Escaped("gen\u{200B}eral.name\u{FEFF}\u{2066}".as_bytes()).to_string(),
            "gen\\u{200B}eral.name\\u{FEFF}\\u{2066}"
        );
        // Letters of other scripts, and right-to-left ones, are text: shown as they are.
        assert_eq!(Escaped("ключ שלום ▁é".as_bytes()).to_string(), "ключ שלום ▁é");
    }

    #[test]
    fn escapes_invalid_bytes() {
        assert_eq!(
            Escaped(b"ok\xff\xfe\xc3(bad").to_string(),
            "ok\\xFF\\xFE\\xC3(bad"
        );
        assert_eq!(Escaped("é▁".as_bytes()).to_string(), "é▁");
        assert_eq!(Escaped(b"\xed\xa0\x80").to_string(), "\\xED\\xA0\\x80");
        // Bytes and the text of their escapes read apart; other backslashes stay single.
        assert_eq!(Escaped(b"\xff\xfe").to_string(), "\\xFF\\xFE");
        assert_eq!(Escaped(br"\xFF\xFE").to_string(), r"\\xFF\\xFE");
        assert_eq!(
            Escaped(br"a\\b \u{202E} \n \").to_string(),
            r"a\\\b \\u{202E} \n \"
        );
        assert_eq!(Escaped(b"\\\x1b \\\xff").to_string(), r"\\\x1B \\\xFF");
        assert_eq!(GgufString::from(b"\xc0\xaf".to_vec()).as_str(), None);
    }

    #[test]
    fn escapes_control_characters_for_one_line_text() {
        assert_eq!(Escaped(b"a\nb\x1b[2J\x7f").to_string(), "a\\x0Ab\\x1B[2J\\x7F");
        assert_eq!(
            Escaped("x\u{85}y\u{200b}".as_bytes()).to_string(),
            "x\\u{85}y\\u{200B}"
        );
        assert_eq!(lossy(b"line1\nline2"), "line1\nline2");
        assert_eq!(lossy(b"ok\xff"), "ok\\xFF");
    }

    #[test]
    fn excerpts_cut_long_text_and_give_its_length() {
        assert_eq!(Excerpt(b"general.name").to_string(), "general.name");
        let exact = [b'A'; EXCERPT_MAX];
        assert_eq!(Excerpt(&exact).to_string(), "A".repeat(EXCERPT_MAX));
        let long = alloc::vec![b'A'; 1 << 20];
        let shown = Excerpt(&long).to_string();
        assert_eq!(
            shown,
            alloc::format!("{}… (1,048,576 bytes)", "A".repeat(EXCERPT_MAX))
        );
        assert_eq!(lossy_excerpt(&long), shown);
        // A cut never splits a character: 'é' is 2 bytes, and byte 200 is the second of one.
        let accents = "xé".repeat(150);
        let cut = Excerpt(accents.as_bytes()).to_string();
        assert_eq!(cut, alloc::format!("{}x… (450 bytes)", "xé".repeat(66)));
        // Escaping applies to the part shown, and may make it longer than the bytes it shows.
        let controls = alloc::vec![0x1Bu8; 300];
        assert_eq!(
            Excerpt(&controls).to_string(),
            alloc::format!("{}… (300 bytes)", "\\x1B".repeat(EXCERPT_MAX))
        );
    }
}
