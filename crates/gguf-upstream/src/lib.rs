//! Does a GGUF file agree with the model it claims to be?
//!
//! The chat template, the end-of-sequence id and the RoPE settings are the most common reasons a
//! GGUF model behaves worse than upstream. [`compare`] checks a decoded header against the
//! upstream repository's `config.json` (its `text_config` first, for multimodal models),
//! `tokenizer_config.json`, `generation_config.json` and `chat_template.jinja`, each upstream
//! field against the key llama.cpp's converter writes it to ([`FIELDS`], one table for every
//! architecture). Sans-IO: the caller reads the files; this crate only reads their text.
//!
//! ```
//! # let file = gguf_core::testkit::GgufBuilder::new()
//! #     .kv("general.architecture", "llama").kv("llama.rope.freq_base", 10000.0f32).build();
//! # let header = gguf_core::parse(&file).unwrap();
//! let upstream = gguf_upstream::Upstream { config: r#"{"rope_theta": 500000.0}"#, ..Default::default() };
//! let checks = gguf_upstream::compare(&header, &upstream).unwrap();
//! assert_eq!(checks[0].field, "rope_theta");
//! assert_eq!(checks[0].status, gguf_upstream::Status::Differs);
//! ```
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

mod checks;
mod diff;
mod fields;
mod repositories;

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use serde::Serialize;
use serde_json::Value as Json;

pub use checks::compare;
pub use diff::{Hunk, LineDiff, MAX_OUTPUT, line_diff};
pub use fields::{Archs, FIELDS, Field, Kind, ROPE_SCALING};
pub use repositories::{Repository, repositories};

/// `config.json`: the model's hyperparameters (required).
pub const CONFIG: &str = "config.json";
/// `tokenizer_config.json`: special token texts, `add_bos_token`, maybe the chat template.
pub const TOKENIZER_CONFIG: &str = "tokenizer_config.json";
/// `generation_config.json`: the token ids generation starts and stops on.
pub const GENERATION_CONFIG: &str = "generation_config.json";
/// `chat_template.jinja`: the chat template, where newer repositories keep it.
pub const CHAT_TEMPLATE: &str = "chat_template.jinja";
/// The files read, in this order.
pub const FILES: [&str; 4] = [CONFIG, TOKENIZER_CONFIG, GENERATION_CONFIG, CHAT_TEMPLATE];

/// The texts of the upstream files; `None` for one the repository does not have.
#[derive(Debug, Clone, Copy, Default)]
pub struct Upstream<'a> {
    /// `config.json`.
    pub config: &'a str,
    /// `tokenizer_config.json`.
    pub tokenizer_config: Option<&'a str>,
    /// `generation_config.json`.
    pub generation_config: Option<&'a str>,
    /// `chat_template.jinja`.
    pub chat_template: Option<&'a str>,
}

/// An upstream file that is not what it should be: not JSON, or not a JSON object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamError {
    /// Which file ([`CONFIG`], …).
    pub file: &'static str,
    /// What is wrong, and where (line and column for JSON that does not parse).
    pub message: String,
}

impl fmt::Display for UpstreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

/// How the file and upstream compare on one field; in JSON `same`, `differs`, `missing-in-gguf`,
/// `missing-upstream`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Both have it, with the same value.
    Same,
    /// Both have it, with different values.
    Differs,
    /// Upstream has it, the file does not.
    MissingInGguf,
    /// The file has it, upstream does not.
    MissingUpstream,
}

impl Status {
    /// Whether it counts as a difference: the file lacks or contradicts what upstream says.
    pub fn is_difference(self) -> bool {
        matches!(self, Status::Differs | Status::MissingInGguf)
    }
}

/// One field compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// The upstream name: `rope_theta`, `eos_token_id`, `chat_template`, `chat_template.NAME`, ….
    pub field: String,
    /// The file's key (for a token's text, `tokenizer.ggml.tokens[ID]`).
    pub gguf_key: String,
    /// Where upstream has it, as `FILE:path` (`config.json:text_config.hidden_size`); where it
    /// would be, when it is missing.
    pub upstream_key: String,
    /// The file's value; null when missing.
    pub gguf: Json,
    /// Upstream's value; null when missing.
    pub upstream: Json,
    /// How they compare.
    pub status: Status,
    /// What a difference means for inference.
    pub impact: &'static str,
    /// What else to know: a padded vocabulary, a scaling written as a tensor.
    pub note: Option<String>,
    /// For a chat template that differs: the lines that differ.
    pub diff: Option<LineDiff>,
    /// For a chat template that differs: how the prompts the two build compare, when a host that
    /// renders templates filled it in (gguf-template's `compare_prompts`; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts: Option<PromptCheck>,
    /// For a difference a metadata edit mends: the key to set and its value.
    pub fix: Option<Fix>,
}

/// How the prompts two chat templates build for the same conversations compare, as llama.cpp
/// would build them with the file's vocabulary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PromptCheck {
    /// The conversations rendered with both templates.
    pub conversations: usize,
    /// Those whose prompts differ.
    pub differences: Vec<PromptDifference>,
}

/// One conversation whose prompts differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PromptDifference {
    /// Which conversation (`one user message`, …).
    pub conversation: String,
    /// The first character (from 0) where the prompts differ.
    pub first_difference: usize,
    /// The file's prompt around it (up to 40 characters before and after), or why it failed.
    pub gguf: String,
    /// Upstream's prompt around it, or why it failed.
    pub upstream: String,
    /// The first token (from 0) where their token ids differ, when both were tokenized.
    pub first_token_difference: Option<usize>,
}

/// The metadata edit that gives the file upstream's value: `ggufscope edit --set KEY=VALUE` (or
/// `--set KEY:TYPE=VALUE` for a key the file lacks), and the page's Edit with the change filled
/// in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// The key to set.
    pub key: String,
    /// The type to give a key the file lacks, as `--set KEY:TYPE=VALUE` reads it (`u32`, `f32`,
    /// `bool`, `str`, `arr[u32]`); null when the key keeps its own type.
    #[serde(rename = "type")]
    pub ty: Option<&'static str>,
    /// The value, as `ggufscope edit --set` reads it: a number, `true`/`false`, a string's text
    /// (a chat template's whole text), an array as `[1,2]`.
    pub value: String,
    /// The argument of `ggufscope edit` that sets it: `--set KEY[:TYPE]=VALUE`; for a chat
    /// template, `--set-file KEY=FILE` when upstream keeps it in a file of its own
    /// (`chat_template.jinja`, the name relative to the upstream folder), else null (its text is
    /// in `tokenizer_config.json`: save it to a file first).
    pub argument: Option<String>,
}

impl Fix {
    /// The fix setting `key` (of type `ty` when the file lacks it) to `value`, by `--set`.
    pub(crate) fn set(key: &str, ty: Option<&'static str>, value: String) -> Fix {
        let typed = ty.map(|t| alloc::format!(":{t}")).unwrap_or_default();
        Fix {
            argument: Some(alloc::format!("--set {key}{typed}={value}")),
            key: key.into(),
            ty,
            value,
        }
    }
}

/// The JSON document of `ggufscope upstream --json`.
#[derive(Debug, Clone, Serialize)]
pub struct Document<'a> {
    /// The model file, as named.
    pub file: &'a str,
    /// The upstream directory or base URL, as named.
    pub source: &'a str,
    /// The upstream files read (of [`FILES`]).
    pub read: &'a [&'a str],
    /// The upstream files not read (the repository has none, or they were not given): a field
    /// only they would hold is not checked, and not listed.
    pub not_read: alloc::vec::Vec<&'static str>,
    /// Every field either side has.
    pub checks: &'a [Check],
    /// How many checks are `differs` or `missing-in-gguf`.
    pub differences: usize,
}

impl<'a> Document<'a> {
    /// The document for `checks`, counting their differences.
    pub fn new(file: &'a str, source: &'a str, read: &'a [&'a str], checks: &'a [Check]) -> Document<'a> {
        let differences = checks.iter().filter(|c| c.status.is_difference()).count();
        Document {
            file,
            source,
            read,
            not_read: FILES.into_iter().filter(|f| !read.contains(f)).collect(),
            checks,
            differences,
        }
    }
}
