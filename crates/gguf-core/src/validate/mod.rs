//! Validation: what is wrong with a decoded header, as findings with byte offsets.
//!
//! Kept apart from decoding, as wasmparser keeps its `Validator` apart from its `Parser`: the
//! decoder accepts anything it can represent (any type id, 0–8 dimensions, any alignment, duplicate
//! keys), so a viewer can show a broken file; this pass says what in it would break a loader.

mod code;
mod consistency;
mod kinds;
mod kv;
mod layout;
pub(crate) mod template;
mod template_lint;

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::ops::Range;

pub use code::FindingCode;

use crate::header::{Entry, Header, TensorInfo};
use crate::keys;
use crate::kind::FileKind;
use crate::sort::sort_by;

/// How bad a finding is. Ordered: `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Worth knowing; most readers cope.
    Info,
    /// Valid by the spec but refused or misread by common readers, or suspicious.
    Warning,
    /// Broken: data missing or inconsistent, refused by the spec and by llama.cpp, or dangerous.
    Error,
}

impl Severity {
    /// `"info"`, `"warning"` or `"error"`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// What a finding is about, so a viewer can show it when the finding is clicked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Subject {
    /// The file as a whole.
    File,
    /// Key-value pair `i`: an index into [`crate::Metadata::entries`].
    Kv(usize),
    /// Tensor info `i`: an index into [`Header::tensors`].
    Tensor(usize),
}

/// One problem found in a header.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// How bad it is (the code's severity).
    pub severity: Severity,
    /// What kind of problem.
    pub code: FindingCode,
    /// What exactly, in words: names, values, and how many bytes are missing where that applies.
    pub message: String,
    /// The absolute bytes it is about (a field, a key-value pair, a tensor's data, missing bytes).
    pub span: Range<u64>,
    /// What to show for it.
    pub subject: Subject,
}

/// The most findings of one code kept. A hostile header can earn a finding per tensor or key
/// (a million overlapping tensors), or one per pair; past this many the rest of that code are
/// only counted, their messages never made, so output and memory stay bounded (issue 18). A
/// hundred examples show any pattern; real files have a handful.
pub const MAX_FINDINGS_PER_CODE: usize = 100;

/// What the validator says about a header.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Validation {
    /// The findings kept, sorted by offset: of each code, the first [`MAX_FINDINGS_PER_CODE`]
    /// in the order the checks run (tensors and keys in file order).
    pub findings: Vec<Finding>,
    /// Per code past the cap, how many more findings there are than `findings` holds; in
    /// [`FindingCode::ALL`] order.
    pub omitted: Vec<Omitted>,
}

/// Findings of one code found past [`MAX_FINDINGS_PER_CODE`]: counted, not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Omitted {
    /// Their code (and so their severity).
    pub code: FindingCode,
    /// How many.
    pub count: u64,
}

/// Checks a header. `file_len` defaults to `header.file_len`; passing a smaller one checks the
/// file as if it were cut there (a truncated download). Findings come sorted by offset, at most
/// [`MAX_FINDINGS_PER_CODE`] of each code; the rest are counted in [`Validation::omitted`].
pub fn validate(header: &Header, file_len: Option<u64>) -> Validation {
    let mut check = Check {
        header,
        kind: FileKind::of(header),
        file_len: file_len.or(header.file_len),
        findings: Vec::new(),
        per_code: Vec::new(),
    };
    layout::check(&mut check);
    kv::check(&mut check);
    consistency::check(&mut check);
    kinds::check(&mut check);
    template::check(&mut check);
    template_lint::check(&mut check);
    let mut omitted: Vec<Omitted> = check
        .per_code
        .iter()
        .filter_map(|&(code, seen)| {
            let count = seen.saturating_sub(MAX_FINDINGS_PER_CODE as u64);
            (count > 0).then_some(Omitted { code, count })
        })
        .collect();
    let rank = |o: &Omitted| FindingCode::ALL.iter().position(|&c| c == o.code);
    sort_by(&mut omitted, |a, b| rank(a).cmp(&rank(b)));
    let mut findings = check.findings;
    // A total order (ties broken by what the finding is about, then its text), so the crate's
    // unstable sort gives the same order every time.
    sort_by(&mut findings, |a, b| {
        (a.span.start, a.code, a.subject, a.span.end)
            .cmp(&(b.span.start, b.code, b.subject, b.span.end))
            .then_with(|| a.message.cmp(&b.message))
    });
    Validation { findings, omitted }
}

impl Finding {
    /// A finding of `code` (and its severity), for the checks that run outside the core: those
    /// of a chat template that must be rendered (gguf-template's `lint`).
    pub fn new(code: FindingCode, message: String, span: Range<u64>, subject: Subject) -> Finding {
        Finding {
            severity: code.severity(),
            code,
            message,
            span,
            subject,
        }
    }
}

/// The validator's findings on a chat template's text alone, as key `key`'s value: what an
/// editor shows while the template is typed, without writing and checking a whole header. Spans
/// are byte ranges of `text`; the subject is [`Subject::File`].
pub fn validate_chat_template(key: &[u8], text: &[u8]) -> Vec<Finding> {
    template::finding(key, text)
        .map(|(hit, message)| {
            let code = FindingCode::ChatTemplateCodeExecution;
            Finding {
                severity: code.severity(),
                code,
                message,
                span: hit.start as u64..hit.end as u64,
                subject: Subject::File,
            }
        })
        .into_iter()
        .collect()
}

/// The state shared by the checks: the header, the findings so far and how many of each code
/// were found.
struct Check<'a> {
    header: &'a Header,
    /// What the file is: each kind has checks of its own, and needs only some of a model's keys.
    kind: FileKind,
    file_len: Option<u64>,
    findings: Vec<Finding>,
    /// Findings found per code, kept or not (a few dozen codes at most: a list is enough).
    per_code: Vec<(FindingCode, u64)>,
}

impl Check<'_> {
    /// Adds a finding, or only counts it once its code has [`MAX_FINDINGS_PER_CODE`]: the
    /// message comes unformatted, so one past the cap is never written out.
    fn add(&mut self, code: FindingCode, span: Range<u64>, subject: Subject, message: fmt::Arguments<'_>) {
        let seen = match self.per_code.iter_mut().find(|(c, _)| *c == code) {
            Some((_, seen)) => {
                *seen += 1;
                *seen
            }
            None => {
                self.per_code.push((code, 1));
                1
            }
        };
        if seen > MAX_FINDINGS_PER_CODE as u64 {
            return;
        }
        self.findings.push(Finding {
            severity: code.severity(),
            code,
            message: alloc::fmt::format(message),
            span,
            subject,
        });
    }

    /// Bytes of a string or array length field: u32 in GGUF v1, u64 after.
    fn len_size(&self) -> u64 {
        if self.header.version == 1 { 4 } else { 8 }
    }

    /// Where an entry's key text starts.
    fn key_start(&self, entry: &Entry) -> u64 {
        entry.span.start.saturating_add(self.len_size())
    }

    /// Where an entry's value starts, after its key and type id.
    fn value_start(&self, entry: &Entry) -> u64 {
        self.key_start(entry)
            .saturating_add(entry.key.as_bytes().len() as u64 + 4)
    }

    /// Where a tensor info's name text starts.
    fn tensor_name_start(&self, tensor: &TensorInfo) -> u64 {
        tensor.span.start.saturating_add(self.len_size())
    }

    /// The whole header, for findings about something missing from it.
    fn whole_header(&self) -> Range<u64> {
        0..self.header.header_len
    }

    /// Whether this is a shard after the first (`split.no > 0`): those carry no `general.*`.
    fn is_later_shard(&self) -> bool {
        let split_no = self.header.metadata.get(keys::SPLIT_NO).and_then(|v| v.as_u64());
        split_no.is_some_and(|n| n > 0)
    }

    /// The alignment tensors are placed at (never 0 in a decoded header).
    fn alignment(&self) -> u64 {
        u64::from(self.header.alignment).max(1)
    }
}
