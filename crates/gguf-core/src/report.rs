//! The JSON report: one document with the header's figures, the summary, the metadata and the
//! tensors, and the validator's findings. The CLI prints it (`ggufscope info --json`) and the wasm bindings hand it to the page,
//! so field names are one contract for scripts, the browser's `data-field` hooks and the tests.
//!
//! Integers are exact (u64, never floats); floats that JSON cannot hold are the strings `"nan"`,
//! `"inf"` and `"-inf"`; strings that are not UTF-8 are shown escaped and marked `invalid_utf8`.

//!
//! The document is the tree of plain view structs in [`view`] and [`tokenizer`], serialized by
//! `#[derive(Serialize)]`: their fields are the JSON's fields, their doc comments its
//! documentation, and with feature `schema` they give the JSON Schema (`schema/*.schema.json`).

use serde::ser::{Serialize, Serializer};

use crate::header::Header;
#[cfg(feature = "describe")]
use crate::memory::{Buffers, Options};
use crate::split::SplitModel;
use crate::summary::Summary;
use crate::validate::{Finding, Validation, validate};

#[cfg(feature = "describe")]
pub mod describe;
mod json;
#[cfg(feature = "describe")]
pub mod memory;
#[cfg(feature = "schema")]
pub mod schema;
pub mod tokenizer;
pub mod validation;
pub mod view;

pub use json::{Float, Map, Stream};
#[cfg(feature = "describe")]
pub use memory::{Memory, MemoryOptions};
pub use tokenizer::{TokenPage, TokenizerReport, pieces};
pub use view::{GgufReport, MetadataEntry, MetadataValue, Tensor, array_page, findings, findings_omitted};

/// The version of the report's shape, its `schema_version`: raised when a field changes meaning
/// or is removed (adding a field does not raise it).
pub const SCHEMA_VERSION: u32 = 2;

/// How much of the metadata to include.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportOptions {
    /// Array elements shown (`head`); the rest are only counted.
    pub array_head: usize,
    /// String values longer than this many bytes are cut (at a character boundary) and marked
    /// `truncated`. `None` keeps them whole.
    pub max_string_len: Option<usize>,
}

impl Default for ReportOptions {
    fn default() -> ReportOptions {
        ReportOptions {
            array_head: 8,
            max_string_len: None,
        }
    }
}

/// A header with its summary and findings, ready to serialize.
#[derive(Debug, Clone)]
pub struct Report<'a> {
    header: &'a Header,
    summary: Summary,
    findings: Validation,
    options: ReportOptions,
    #[cfg(feature = "describe")]
    memory: Option<(Options, Buffers)>,
    split: Option<&'a SplitModel>,
    #[cfg(feature = "describe")]
    description: Option<crate::describe::Description>,
}

impl<'a> Report<'a> {
    /// A report with default options.
    pub fn new(header: &'a Header) -> Report<'a> {
        Report::with_options(header, ReportOptions::default())
    }

    /// A report with the given options.
    pub fn with_options(header: &'a Header, options: ReportOptions) -> Report<'a> {
        Report {
            header,
            summary: header.summary(),
            findings: validate(header, header.file_len),
            options,
            #[cfg(feature = "describe")]
            memory: None,
            split: None,
            #[cfg(feature = "describe")]
            description: None,
        }
    }

    /// The report of a model read from several files, or one: for a split model, the figures of
    /// the whole (parameters, tensors and bytes summed, `file_size` and `header_size` summed over
    /// the shards, metadata and the rest from the first shard), each tensor with its `shard`,
    /// every shard's findings with theirs, and a `split` section; for one ordinary file, exactly
    /// that file's report.
    pub fn of_model(model: &'a SplitModel, options: ReportOptions) -> Report<'a> {
        let mut report = Report::with_options(model.header(), options);
        if model.is_split() {
            report.findings = Validation::default(); // the model's findings, shard by shard, take their place
            report.split = Some(model);
        }
        report
    }

    /// Adds the buffers llama.cpp allocates with `options`, reported as `memory`
    /// (`ggufscope info --json` with `--ctx`, `--ctk`, … ; feature `describe`: the viewer's
    /// module goes without, as the memory module sizes the buffers for the page).
    #[cfg(feature = "describe")]
    pub fn with_memory(mut self, options: Options, buffers: Buffers) -> Report<'a> {
        self.memory = Some((options, buffers));
        self
    }

    /// Adds what the file holds beyond its kind and what its model can do: the report's
    /// `capabilities`, `adapter`, `imatrix`, `mmproj` and `control_vector`, as `ggufscope info
    /// --json` gives them (feature `describe`).
    #[cfg(feature = "describe")]
    pub fn described(self) -> Report<'a> {
        let description = crate::describe::Description::of(self.header);
        self.with_description(description)
    }

    /// Adds `description` as [`Report::described`] does: a description the caller made (with a
    /// projector found beside the model, say).
    #[cfg(feature = "describe")]
    pub fn with_description(mut self, description: crate::describe::Description) -> Report<'a> {
        self.description = Some(description);
        self
    }

    /// The summary the report was made from.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// The validator's findings, against the file length the header was read with.
    pub fn findings(&self) -> &[Finding] {
        &self.findings.findings
    }

    /// The document, as it serializes.
    pub fn view(&self) -> GgufReport<'_> {
        GgufReport::new(
            self.header,
            &self.summary,
            &self.findings,
            &self.options,
            self.split,
        )
        .described(
            #[cfg(feature = "describe")]
            self.description.as_ref(),
            #[cfg(feature = "describe")]
            self.memory.as_ref().map(|(o, b)| Memory::new(o, b)),
        )
    }
}

/// A report serializes as its [`view`](Report::view).
impl Serialize for Report<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.view().serialize(s)
    }
}
