//! The aligned `label  value` lines of `info`, `fit`, `tokens` and `tensor`, wrapped to fit
//! [`crate::width::WIDTH`] columns.

use std::fmt::Display;

use gguf_core::text::EscapedLine;

use crate::width;

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

    /// `  LABEL VALUE`, the value wrapped at spaces onto lines of its column.
    pub fn line(&self, out: &mut String, label: &str, value: impl Display) {
        let value = EscapedLine(value.to_string().as_bytes()).to_string();
        let first = format!("  {label:<w$} ", w = self.width);
        out.push_str(&width::indented(&value, &first, self.width + 3));
    }

    /// A line of the value column alone: the rest of the value above.
    pub fn more(&self, out: &mut String, value: impl Display) {
        self.line(out, "", value);
    }
}
