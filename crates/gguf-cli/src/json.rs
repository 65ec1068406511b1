//! The one way the commands write a JSON document (`--json`): pretty, ending in a newline, and
//! with every character that could disguise the text around it written as a `\uXXXX` escape —
//! the bidirectional controls, the zero-width and invisible characters ([`gguf_core::text::disguises`]),
//! DEL and the C1 controls (serde_json escapes the C0 ones). A JSON reader gets the same strings;
//! a terminal or a diff never shows them raw.

use std::io::{self, BufWriter, Write};

use serde::Serialize;

/// `value` as a document: pretty JSON, a newline after it, hidden characters escaped.
pub fn document<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::new();
    write_to(&mut out, value)?;
    // Only whole characters and ASCII escapes were written.
    Ok(String::from_utf8(out).unwrap_or_default())
}

/// Writes `value` to `out` as a [`document`], streamed: the document's text is never held
/// whole, so a large diff costs its serialized form no memory.
pub fn write<T: Serialize + ?Sized>(out: &mut impl Write, value: &T) -> io::Result<()> {
    write_to(out, value).map_err(io::Error::from)
}

fn write_to<T: Serialize + ?Sized>(out: &mut impl Write, value: &T) -> serde_json::Result<()> {
    let mut escaping = EscapeHidden {
        inner: out,
        pending: Vec::new(),
    };
    // serde_json writes a token at a time: gathered here, the escaping and the terminal's (see
    // `cli::Terminal`) see a few large writes instead of one for every bracket, key and value.
    let mut gathered = BufWriter::with_capacity(1 << 16, &mut escaping);
    serde_json::to_writer_pretty(&mut gathered, value)?;
    gathered.write_all(b"\n").map_err(serde_json::Error::io)?;
    gathered.flush().map_err(serde_json::Error::io)
}

/// Passes JSON text through with every [`hidden`] character written as `\uXXXX`. Outside its
/// strings, JSON text is ASCII: these characters can only be inside a string, where an escape
/// stands for the same character. A character cut between two writes waits for the next.
struct EscapeHidden<'a, W: Write> {
    inner: &'a mut W,
    pending: Vec<u8>,
}

impl<W: Write> Write for EscapeHidden<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let joined;
        let bytes = if self.pending.is_empty() {
            buf
        } else {
            joined = [core::mem::take(&mut self.pending).as_slice(), buf].concat();
            &joined
        };
        let (text, rest) = match core::str::from_utf8(bytes) {
            Ok(text) => (text, &[][..]),
            Err(e) if e.error_len().is_none() => {
                let (whole, tail) = bytes.split_at(e.valid_up_to());
                (core::str::from_utf8(whole).unwrap_or_default(), tail)
            }
            Err(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "JSON text is not UTF-8",
                ));
            }
        };
        // Every hidden character is DEL or past ASCII: text without either has none to look for.
        if text.is_ascii() && !text.as_bytes().contains(&0x7F) {
            self.inner.write_all(text.as_bytes())?;
        } else {
            let mut plain = 0;
            for (i, c) in text.char_indices().filter(|&(_, c)| hidden(c)) {
                self.inner.write_all(&text.as_bytes()[plain..i])?;
                write!(self.inner, "\\u{:04x}", u32::from(c))?;
                plain = i + c.len_utf8();
            }
            self.inner.write_all(&text.as_bytes()[plain..])?;
        }
        self.pending.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Whether `c` is written escaped: all such characters are in the Basic Multilingual Plane, so one
/// `\uXXXX` each.
fn hidden(c: char) -> bool {
    matches!(c, '\u{7F}'..='\u{9F}') || gguf_core::text::disguises(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_escaped_and_read_back_the_same() {
        let value = serde_json::json!({
            "name": "a\u{202E}b\u{200B}c\u{7F}\u{85}\u{FEFF}\u{1b}é😀",
            "list": ["\u{2066}x\u{2069}", "plain"],
        });
        let text = document(&value).unwrap();
        assert!(!text.chars().any(|c| hidden(c) || c == '\u{1b}'), "{text}");
        // DEL in text that is otherwise ASCII.
        assert!(document("a\u{7F}b").unwrap().contains(r"a\u007fb"));
        assert!(
            text.contains(r"a\u202eb\u200bc\u007f\u0085\ufeff\u001bé😀"),
            "{text}"
        );
        assert!(text.ends_with("}\n"));
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
    }

    #[test]
    fn a_character_cut_between_writes_is_escaped_whole() {
        let text = "{\"k\": \"a\u{202E}b\u{85}é😀\"}";
        let mut whole = Vec::new();
        EscapeHidden {
            inner: &mut whole,
            pending: Vec::new(),
        }
        .write_all(text.as_bytes())
        .unwrap();
        let mut bytewise = Vec::new();
        let mut w = EscapeHidden {
            inner: &mut bytewise,
            pending: Vec::new(),
        };
        for b in text.as_bytes() {
            w.write_all(&[*b]).unwrap();
        }
        assert_eq!(
            String::from_utf8(bytewise).unwrap(),
            String::from_utf8(whole.clone()).unwrap()
        );
        assert_eq!(
            String::from_utf8(whole).unwrap(),
            "{\"k\": \"a\\u202eb\\u0085é😀\"}"
        );
    }
}
