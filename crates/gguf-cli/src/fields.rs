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

    /// `  LABEL VALUE` for a value that may be long (a message): escaped, then broken between
    /// words (within a word where one is too long) into lines of the value column that end
    /// within 80 columns.
    pub fn wrapped(&self, out: &mut String, label: &str, value: impl Display) {
        let escaped = EscapedLine(value.to_string().as_bytes()).to_string();
        let room = 80 - 3 - self.width;
        let mut lines: Vec<String> = vec![String::new()];
        for word in escaped.split(' ') {
            let mut rest: Vec<char> = word.chars().collect();
            loop {
                let line = lines.last_mut().expect("a line");
                let used = line.chars().count();
                let gap = usize::from(used > 0);
                if used + gap + rest.len() <= room {
                    if gap == 1 {
                        line.push(' ');
                    }
                    line.extend(rest);
                    break;
                }
                if used > 0 {
                    lines.push(String::new());
                    continue;
                }
                line.extend(rest.drain(..room));
                lines.push(String::new());
            }
        }
        for (i, line) in lines.iter().filter(|l| !l.is_empty()).enumerate() {
            let _ = writeln!(
                out,
                "  {:<w$} {line}",
                if i == 0 { label } else { "" },
                w = self.width
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_value_wraps_between_words_and_within_a_word_too_long_for_a_line() {
        let mut out = String::new();
        let word = "x".repeat(100);
        Fields::new(13).wrapped(&mut out, "memory", format!("- (the \u{202e}name \"{word}\": refused)"));
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines.iter().all(|l| l.chars().count() <= 80), "{out}");
        assert!(lines[0].starts_with("  memory        - (the \\u{202E}name"), "{out}");
        assert!(lines[1..].iter().all(|l| l.starts_with(&" ".repeat(16))), "{out}");
        let values: Vec<&str> = lines.iter().map(|l| &l[16..]).collect();
        assert_eq!(values.concat().matches('x').count(), 100, "{out}");
        assert!(values.last().unwrap().ends_with("\": refused)"), "{out}");
    }
}
