//! The one way the commands write a JSON document (`--json`): pretty, ending in a newline, and
//! with every character that could disguise the text around it written as a `\uXXXX` escape —
//! the bidirectional controls, the zero-width and invisible characters ([`gguf_core::text::disguises`]),
//! DEL and the C1 controls (serde_json escapes the C0 ones). A JSON reader gets the same strings;
//! a terminal or a diff never shows them raw.

use std::fmt::Write as _;
use std::io::{self, Write};

use serde::Serialize;

/// `value` as a document: pretty JSON, a newline after it, hidden characters escaped.
pub fn document<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let text = serde_json::to_string_pretty(value)?;
    // Outside its strings, JSON text is ASCII: these characters can only be inside a string,
    // where an escape stands for the same character.
    let mut out = String::with_capacity(text.len() + 1);
    let mut plain = 0;
    for (i, c) in text.char_indices().filter(|&(_, c)| hidden(c)) {
        out.push_str(&text[plain..i]);
        let _ = write!(out, "\\u{:04x}", u32::from(c));
        plain = i + c.len_utf8();
    }
    out.push_str(&text[plain..]);
    out.push('\n');
    Ok(out)
}

/// Writes `value` to `out` as a [`document`].
pub fn write<T: Serialize + ?Sized>(out: &mut impl Write, value: &T) -> io::Result<()> {
    out.write_all(document(value)?.as_bytes())
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
        assert!(
            text.contains(r"a\u202eb\u200bc\u007f\u0085\ufeff\u001bé😀"),
            "{text}"
        );
        assert!(text.ends_with("}\n"));
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
    }
}
