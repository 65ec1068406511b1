//! The validation document: per file, `{file, error, findings, findings_omitted, counts}` —
//! what `ggufscope validate --json` lists and what the Python package's `validate` returns.
//! `error` is null for a parsed file, `findings` empty for an unparsable one; `counts` include
//! the findings past the validator's cap.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use crate::error::ErrorDocument;
use crate::header::Header;
use crate::split::SplitModel;
use crate::validate::{Finding, Omitted, Severity};

use super::view;

/// Findings per severity, over one file or a whole run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Errors.
    pub error: u64,
    /// Warnings.
    pub warning: u64,
    /// Infos.
    pub info: u64,
}

impl Counts {
    /// Counts `n` more findings of `severity`.
    pub fn add(&mut self, severity: Severity, n: u64) {
        match severity {
            Severity::Error => self.error += n,
            Severity::Warning => self.warning += n,
            Severity::Info => self.info += n,
        }
    }

    /// Every finding, those past the cap included.
    pub fn of(findings: &[Finding], omitted: &[Omitted]) -> Counts {
        let mut counts = Counts::default();
        for f in findings {
            counts.add(f.severity, 1);
        }
        for o in omitted {
            counts.add(o.code.severity(), o.count);
        }
        counts
    }
}

/// One file of a model, as the validator saw it: its header (the model's, for a missing
/// shard), its findings and, per code past the cap, how many more.
#[derive(Debug, Clone)]
pub struct CheckedFile<'a> {
    /// The file's name in the model: a shard's or left-out file's name, a missing shard's
    /// expected name, else `shard N of M`.
    pub name: String,
    /// Whether `name` is `shard N of M`: a shard that was not read, which the naming convention
    /// cannot name.
    pub unnamed: bool,
    /// The header its findings' subjects are named from.
    pub header: &'a Header,
    /// Its findings.
    pub findings: Vec<Finding>,
    /// Per code past the validator's cap, how many more.
    pub omitted: Vec<Omitted>,
}

impl CheckedFile<'_> {
    /// Its findings counted, those past the cap included.
    pub fn counts(&self) -> Counts {
        Counts::of(&self.findings, &self.omitted)
    }
}

/// Each file of `model` with its findings: the shards and the files left out, then, with
/// `missing`, the shards that were not read.
pub fn checked_files(model: &SplitModel, missing: bool) -> Vec<CheckedFile<'_>> {
    let findings_of = |file: &str| -> Vec<Finding> {
        model
            .findings()
            .iter()
            .filter(|f| f.file == file)
            .map(|f| f.finding.clone())
            .collect()
    };
    let omitted_of = |file: &str| -> Vec<Omitted> {
        model
            .omitted()
            .iter()
            .filter(|o| o.file == file)
            .map(|o| o.omitted)
            .collect()
    };
    let read_files = model.shards().iter().chain(model.left_out());
    let mut out: Vec<CheckedFile<'_>> = read_files
        .map(|s| CheckedFile {
            name: s.name.clone(),
            unnamed: false,
            header: &s.header,
            findings: findings_of(&s.name),
            omitted: omitted_of(&s.name),
        })
        .collect();
    for m in model.missing().iter().filter(|_| missing) {
        let name = m
            .name
            .clone()
            .unwrap_or_else(|| format!("shard {} of {}", m.number, model.count()));
        out.push(CheckedFile {
            findings: findings_of(&name),
            omitted: omitted_of(&name),
            name,
            unnamed: m.name.is_none(),
            header: model.header(),
        });
    }
    out
}

/// One file's entry in the validation document.
#[derive(Serialize)]
pub struct FileValidation<'a> {
    /// The file, as it was named.
    pub file: &'a str,
    /// Why it could not be read or decoded; null when it was.
    pub error: Option<&'a ErrorDocument<'a>>,
    /// Its findings (empty when unparsable).
    pub findings: Vec<view::Finding<'a>>,
    /// Per code past the cap, how many more.
    pub findings_omitted: Vec<view::Omitted<'static>>,
    /// Its findings per severity, those past the cap included.
    pub counts: Counts,
}

impl<'a> FileValidation<'a> {
    /// The entry of a file that was checked, named `file`.
    pub fn checked(file: &'a str, checked: &'a CheckedFile<'a>) -> FileValidation<'a> {
        FileValidation {
            file,
            error: None,
            findings: view::findings(checked.header, &checked.findings),
            findings_omitted: view::findings_omitted(&checked.omitted),
            counts: checked.counts(),
        }
    }

    /// The entry of a file that could not be read or decoded.
    pub fn unparsable(file: &'a str, error: &'a ErrorDocument<'a>) -> FileValidation<'a> {
        FileValidation {
            file,
            error: Some(error),
            findings: Vec::new(),
            findings_omitted: Vec::new(),
            counts: Counts::default(),
        }
    }
}
