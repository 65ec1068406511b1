//! How the commands' text fits a terminal: lines wrapped at [`WIDTH`] columns (whatever the
//! terminal, so that the output a script or a test reads is the same everywhere), the width
//! `--help` is wrapped to, and colour — only on a terminal, and never with `NO_COLOR` set.

use std::io::IsTerminal;
use std::sync::OnceLock;

/// The widest line the commands write: an 80-column terminal.
pub const WIDTH: usize = 80;

/// Columns `text` takes: one per character (the commands' text is escaped, so no control
/// character reaches the terminal; wide East Asian characters are counted as one).
pub fn columns(text: &str) -> usize {
    text.chars().count()
}

/// `text` cut into lines of at most `width` columns at spaces; a word longer than `width` stays
/// whole on its own line (a name or a path must stay copyable). Empty text is one empty line.
pub fn wrap(text: &str, width: usize) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut rest = text.trim_end();
    while columns(rest) > width {
        // The last space that leaves at most `width` columns before it, else the first space.
        let mut cut = None;
        for (n, (i, c)) in rest.char_indices().enumerate() {
            if n > width {
                break;
            }
            if c == ' ' {
                cut = Some(i);
            }
        }
        let Some(cut) = cut.or_else(|| rest.find(' ')) else {
            break;
        };
        lines.push(rest[..cut].trim_end());
        rest = rest[cut..].trim_start();
    }
    lines.push(rest);
    lines
}

/// `text` after `first` wrapped at [`WIDTH`], each line after the first indented by `indent`
/// spaces, with a line break at the end. A first word too long for the first line starts the
/// next (`first` then stands alone), unless it is too long for any line.
pub fn indented(text: &str, first: &str, indent: usize) -> String {
    let room = WIDTH.saturating_sub(indent).max(20);
    let first_room = WIDTH.saturating_sub(columns(first)).max(20);
    let head_word = text.split(' ').next().unwrap_or_default();
    let alone = columns(head_word) > first_room && columns(head_word) <= room && first_room < room;
    let mut out = String::from(first);
    let rest = if alone {
        out.truncate(out.trim_end().len());
        text
    } else {
        let head = wrap(text, first_room).into_iter().next().unwrap_or_default();
        out.push_str(head);
        text[head.len()..].trim_start()
    };
    out.push('\n');
    for line in wrap(rest, room).into_iter().filter(|l| !l.is_empty()) {
        out.push_str(&" ".repeat(indent));
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// `--help` at the width clap finds (the terminal's, else `COLUMNS`), at most 100 columns, past
/// which lines read badly; [`WIDTH`] when neither says (help piped to a file or a pager).
pub fn help_width(command: clap::Command) -> clap::Command {
    let command = command.max_term_width(100);
    let columns = std::env::var("COLUMNS").is_ok_and(|c| c.trim().parse::<usize>().is_ok());
    if std::io::stdout().is_terminal() || columns {
        command
    } else {
        command.term_width(WIDTH)
    }
}

/// A colour for a piece of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// An error.
    Red,
    /// A warning, a difference.
    Yellow,
    /// All is well.
    Green,
    /// A note, an info.
    Cyan,
}

impl Style {
    /// The SGR sequence that starts it.
    fn start(self) -> &'static str {
        match self {
            Style::Red => "\x1b[31m",
            Style::Yellow => "\x1b[33m",
            Style::Green => "\x1b[32m",
            Style::Cyan => "\x1b[36m",
        }
    }
}

/// The sequence that ends a style.
const RESET: &str = "\x1b[0m";

/// The SGR sequences [`paint`] writes: the only ones the escaping writer
/// ([`crate::cli::Terminal`]) lets through, and only while colour is on.
pub const SEQUENCES: [&str; 5] = ["\x1b[31m", "\x1b[33m", "\x1b[32m", "\x1b[36m", RESET];

/// Whether the commands colour their text: standard output is a terminal, `NO_COLOR` is unset
/// or empty (<https://no-color.org>) and `TERM` is not `dumb`.
pub fn colour() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
        std::io::stdout().is_terminal() && !no_color && !dumb
    })
}

/// `text` in `style` when colour is on, else as it is.
pub fn paint(style: Style, text: &str) -> String {
    if colour() {
        format!("{}{text}{RESET}", style.start())
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_at_spaces_and_keeps_long_words_whole() {
        assert_eq!(wrap("a b c", 3), ["a b", "c"]);
        assert_eq!(wrap("abc def", 80), ["abc def"]);
        assert_eq!(wrap("", 10), [""]);
        assert_eq!(
            wrap("averyveryverylongword next", 5),
            ["averyveryverylongword", "next"]
        );
        assert_eq!(wrap("one two three four", 9), ["one two", "three", "four"]);
        let text = "é ".repeat(50);
        assert!(wrap(&text, 20).iter().all(|l| columns(l) <= 20));
    }

    #[test]
    fn a_first_word_too_long_for_the_first_line_starts_the_next() {
        let out = indented("\"a.very.long.key.name\" is 7", "prefix that is long enough: ", 4);
        assert_eq!(out, "prefix that is long enough: \"a.very.long.key.name\" is 7\n");
        let first = "x".repeat(70);
        let out = indented("\"a.very.long.key.name\" is 7", &first, 4);
        assert_eq!(out, format!("{first}\n    \"a.very.long.key.name\" is 7\n"));
    }

    #[test]
    fn indents_the_lines_after_the_first() {
        let text = "word ".repeat(30);
        let out = indented(&text, "  label  ", 9);
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines.len() > 1);
        assert!(lines.iter().all(|l| columns(l) <= WIDTH), "{out}");
        assert!(lines[0].starts_with("  label  word"));
        assert!(lines[1..].iter().all(|l| l.starts_with("         word")));
    }
}
