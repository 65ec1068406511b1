//! The chat templates a file carries — `tokenizer.chat_template` and every named
//! `tokenizer.chat_template.NAME` — with the places the validator's template check flags, by line,
//! so that a viewer can mark them where they are.

use alloc::vec::Vec;
use core::ops::Range;

use crate::header::{Header, Value};
use crate::keys;
use crate::validate::template::scan;

/// One chat template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatTemplate<'h> {
    /// Its key-value pair's index, as in [`crate::validate::Subject::Kv`].
    pub kv_index: usize,
    /// Its key.
    pub key: &'h [u8],
    /// `None` for `tokenizer.chat_template`, else the `NAME` of `tokenizer.chat_template.NAME`.
    pub name: Option<&'h [u8]>,
    /// The template, byte for byte.
    pub text: &'h [u8],
    /// Every place that reaches for object internals or code (the `chat-template-code-execution`
    /// finding names the first).
    pub marks: Vec<Mark>,
}

/// A suspicious place in a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    /// Its bytes in the template.
    pub range: Range<usize>,
    /// The line it starts on, from 1.
    pub line: usize,
}

impl<'h> ChatTemplate<'h> {
    /// What the template is called where templates are listed by name: its `NAME`, or
    /// [`keys::DEFAULT_TEMPLATE_NAME`] for `tokenizer.chat_template`.
    pub fn title(&self) -> &'h [u8] {
        keys::chat_template_title(self.key).unwrap_or_default()
    }

    /// Number of lines.
    pub fn lines(&self) -> usize {
        1 + self.text.iter().filter(|&&b| b == b'\n').count()
    }
}

/// The header's chat templates: the default one (`tokenizer.chat_template`) first, then the named
/// ones in file order (string values only; duplicate keys all count).
pub fn chat_templates(header: &Header) -> Vec<ChatTemplate<'_>> {
    let templates: Vec<ChatTemplate<'_>> = header
        .metadata
        .entries()
        .iter()
        .enumerate()
        .filter_map(|(kv_index, e)| {
            let key = e.key.as_bytes();
            let name = keys::chat_template_name(key)?;
            let Value::String(text) = &e.value else {
                return None;
            };
            let mut template = ChatTemplate {
                kv_index,
                key,
                name,
                text: text.as_bytes(),
                marks: Vec::new(),
            };
            template.marks = marks(template.text);
            Some(template)
        })
        .collect();
    // The default template first, then the named ones in file order.
    let (mut ordered, named): (Vec<_>, Vec<_>) = templates.into_iter().partition(|t| t.name.is_none());
    ordered.extend(named);
    ordered
}

/// The template's marks with their lines, counted in one pass over the text: the scan gives its
/// places in order, so each line count goes on from the last (100,000 marks in a 1.8 MB template
/// would otherwise each count from the start).
fn marks(text: &[u8]) -> Vec<Mark> {
    let (mut counted, mut line) = (0, 1);
    scan(text)
        .into_iter()
        .map(|range| {
            let between = text.get(counted..range.start).unwrap_or_default();
            line += between.iter().filter(|&&b| b == b'\n').count();
            counted = counted.max(range.start);
            Mark { line, range }
        })
        .collect()
}
