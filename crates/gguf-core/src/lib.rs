//! A sans-IO, `no_std` GGUF header parser.
//!
//! Feed [`HeaderDecoder`] the bytes of a `.gguf` file from its start, in chunks of any size; it
//! answers [`Progress::Need`] (at this offset, at least this many bytes) until the header — the
//! metadata and the tensor-info table — is complete. It never asks for tensor data, so a 40 GB
//! model costs a few MB of reads. [`Header::summary`] then computes what people open a model
//! file to learn: parameters, bits per weight, attention kind, experts, context length.
//!
//! GGUF v1, v2 and v3, little- and big-endian; every value type; unknown tensor types are carried
//! through. A malformed file is an [`Error`] naming what, where (absolute byte offset) and in which
//! key or tensor; a count or length the file cannot hold is refused before anything is allocated.
//!
//! [`validate()`] then says what in a decoded header would break a loader: findings with a severity,
//! a stable code and the bytes they are about (a truncated download parses fine; it is found here).
//!
//! Every rule the viewer and the CLI share lives here once: the read rule ([`read`]: what to
//! fetch next, for headers and for a tensor's values), the well-known keys
//! ([`keys`]), where the bytes lie ([`layout`]), the Jinja lexer ([`jinja`]), the JSON report
//! (`report`, feature `serde`). Callers only move bytes and draw.
//!
//! The crate's root holds the parser's vocabulary; the rest is in its modules: how file text is
//! shown ([`text`]), the header's smaller types ([`header`]), the validator's caps and extras
//! ([`validate`](mod@validate)).
//!
//! [`edit`] changes metadata and [`write`](mod@write) writes a header back, byte for byte: a chat template
//! or a token id is edited by writing a new header before the old data section.
//!
//! [`kind`] says what a file is — a model, a vocabulary, a LoRA adapter, an importance matrix, a
//! multimodal projector, a control vector —, `describe` (feature `describe`) each kind's figures
//! and, with `capabilities`, what the model can do.
//!
//! [`layout`] names where the bytes lie — header, padding, gaps, tail, missing bytes, overlaps,
//! and the tensors summed per layer: the one home of those rules, for the validator and the page.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

#[cfg(feature = "describe")]
pub mod capabilities;
pub mod chat_template;
mod decoder;
#[cfg(feature = "describe")]
pub mod describe;
pub mod edit;
mod endian;
mod error;
pub mod header;
pub mod jinja;
pub mod keys;
pub mod kind;
pub mod layout;
mod limits;
pub mod memory;
pub mod read;
mod sort;
pub mod split;
mod summary;
pub mod text;
pub mod tokenizer;
mod types;
pub mod validate;
pub mod write;

#[cfg(feature = "serde")]
pub mod report;
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;

pub use decoder::{HeaderDecoder, Progress, parse};
pub use endian::Endian;
#[cfg(feature = "serde")]
pub use error::ErrorDocument;
pub use error::{Context, Error, ErrorKind};
pub use header::{Array, Entry, Header, Metadata, TensorInfo, Value, ValueType};
pub use kind::FileKind;
pub use limits::{Limit, Limits};
pub use summary::{Attention, AttentionKind, DominantTensor, Experts, LayerGroup, Rope, Summary, TypeShare};
pub use text::GgufString;
pub use types::{FileType, GgmlType, TypeStatus};
pub use validate::{Finding, FindingCode, Severity, Validation, validate};
