//! The aligned `label  value` lines of `info`, `tokens` and `tensor`.

use std::fmt::{Display, Write};

use gguf_core::text::EscapedLine;

/// Lines of two columns, `  LABEL VALUE`, the labels padded to one width. Values may hold the
/// file's own text (names, tokens), raw or already escaped: what is left of control and hiding
/// characters is escaped ([`EscapedLine`]), so that hostile metadata cannot write escape
/// sequences to the terminal.
pub struct Fields {
    width: usize,
}

impl Fields {
    /// Labels padded to `width` characters.
    pub const fn new(width: usize) -> Fields {
        Fields { width }
    }

    /// `  LABEL VALUE`.
    pub fn line(&self, out: &mut String, label: &str, value: impl Display) {
        let value = value.to_string();
        let _ = writeln!(
            out,
            "  {label:<w$} {}",
            EscapedLine(value.as_bytes()),
            w = self.width
        );
    }

    /// A line of the value column alone: the rest of the value above.
    pub fn more(&self, out: &mut String, value: impl Display) {
        self.line(out, "", value);
    }
}
