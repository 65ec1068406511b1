//! Decoding errors: what went wrong, where (absolute byte offset), and in which key or tensor.
//!
//! Each kind has a stable code ([`ErrorKind::code`]); with the `serde` feature,
//! [`ErrorDocument`] is the one JSON shape of an error — `{code, message, offset, context}` — that
//! the CLI (`validate --json`) prints and the page's worker and `open()` reject with.

use alloc::boxed::Box;
use alloc::string::String;
use core::fmt;

use crate::limits::Limit;

/// A header that cannot be decoded. Boxed so that `Result<_, Error>` stays one word wide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(Box<ErrorInner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct ErrorInner {
    kind: ErrorKind,
    offset: u64,
    context: Context,
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file does not start with the bytes `GGUF`.
    NotGguf {
        /// The first four bytes found instead.
        magic: [u8; 4],
    },
    /// A version other than 1, 2 or 3, in either byte order.
    UnsupportedVersion {
        /// The version field read as little-endian.
        version: u32,
    },
    /// The file ends inside the structure that starts at the error's offset.
    UnexpectedEnd {
        /// The structure needs at least the bytes up to here.
        needed_end: u64,
        /// Where the file ends.
        file_len: u64,
    },
    /// A value type id outside 0–12.
    InvalidValueType {
        /// The id found.
        raw: u32,
    },
    /// A count, length or depth above its cap in [`crate::Limits`].
    LimitExceeded {
        /// Which cap.
        limit: Limit,
        /// What the file claims.
        value: u64,
        /// The cap.
        max: u64,
    },
}

impl ErrorKind {
    /// The kind's stable kebab-case code: `not-gguf`, `unsupported-version`, `truncated`,
    /// `invalid-value-type`, or for a cap, [`Limit::code`]. Codes are a contract (docs/json.md's
    /// "Error codes"): programs branch on them, so they are never renamed.
    pub fn code(&self) -> &'static str {
        match self {
            ErrorKind::NotGguf { .. } => "not-gguf",
            ErrorKind::UnsupportedVersion { .. } => "unsupported-version",
            ErrorKind::UnexpectedEnd { .. } => "truncated",
            ErrorKind::InvalidValueType { .. } => "invalid-value-type",
            ErrorKind::LimitExceeded { limit, .. } => limit.code(),
        }
    }
}

/// Where in the header the error is: the part being read when it happened. In JSON,
/// `{"section": "header"}`, `{"section": "kv", index, key, element}` or
/// `{"section": "tensor", index, name}`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(tag = "section"))]
#[non_exhaustive]
pub enum Context {
    /// The fixed header: magic, version and the two counts.
    #[cfg_attr(feature = "serde", serde(rename = "header"))]
    FileHeader,
    /// Key-value pair `index` (0-based, in file order); `key` once it was read.
    #[cfg_attr(feature = "serde", serde(rename = "kv"))]
    Kv {
        /// Position among the key-value pairs.
        index: u64,
        /// The key, when it was read before the error: escaped where not UTF-8, and cut as
        /// [`crate::text::Excerpt`] cuts (`AAAA… (268,435,456 bytes)`).
        key: Option<String>,
        /// The array element (outermost index) being read, for array values.
        element: Option<u64>,
    },
    /// Tensor info `index`; `name` once it was read.
    #[cfg_attr(feature = "serde", serde(rename = "tensor"))]
    Tensor {
        /// Position among the tensor infos.
        index: u64,
        /// The tensor's name, when it was read before the error: escaped and cut as the key is.
        name: Option<String>,
    },
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, offset: u64, context: Context) -> Error {
        Error(Box::new(ErrorInner {
            kind,
            offset,
            context,
        }))
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// Absolute byte offset in the file of the field or structure that is wrong.
    pub fn offset(&self) -> u64 {
        self.0.offset
    }

    /// The key or tensor being read.
    pub fn context(&self) -> &Context {
        &self.0.context
    }

    /// The message without the offset, e.g. for a UI that shows the offset on its own.
    pub fn message(&self) -> impl fmt::Display + '_ {
        Message(self)
    }
}

struct Message<'a>(&'a Error);

impl fmt::Display for Message<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.0.0;
        match &e.kind {
            // Nothing was read at all: no place in the file to name.
            ErrorKind::UnexpectedEnd { file_len: 0, .. } => {
                return f.write_str("the file is empty (0 bytes)");
            }
            ErrorKind::NotGguf { magic } => write!(
                f,
                "not a GGUF file: it starts with {:02X} {:02X} {:02X} {:02X}, not \"GGUF\"",
                magic[0], magic[1], magic[2], magic[3]
            )?,
            ErrorKind::UnsupportedVersion { version } => write!(
                f,
                "unsupported GGUF version {version} (this reader knows 1, 2 and 3)"
            )?,
            ErrorKind::UnexpectedEnd { needed_end, file_len } => write!(
                f,
                "unexpected end of file: this needs bytes up to offset {needed_end}, but the file ends at {file_len}"
            )?,
            ErrorKind::InvalidValueType { raw } => {
                write!(f, "invalid value type {raw} (valid types are 0-12)")?
            }
            ErrorKind::LimitExceeded { limit, value, max } => {
                write!(f, "{} {value} is over the limit of {max}", limit.describe())?
            }
        }
        match &e.context {
            Context::FileHeader => f.write_str(", in the file header"),
            Context::Kv { index, key, element } => {
                write!(f, ", in key-value pair #{index}")?;
                if let Some(key) = key {
                    write!(f, " \"{key}\"")?;
                }
                match element {
                    Some(i) => write!(f, ", array element {i}"),
                    None => Ok(()),
                }
            }
            Context::Tensor { index, name } => {
                write!(f, ", in tensor info #{index}")?;
                match name {
                    Some(name) => write!(f, " \"{name}\""),
                    None => Ok(()),
                }
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (at offset {:#x} = {})",
            self.message(),
            self.0.offset,
            self.0.offset
        )
    }
}

impl core::error::Error for Error {}

/// An error as JSON, `{code, message, offset, context}`: the one shape of every error ggufscope
/// reports — a malformed file (from [`Error`]) and a file that cannot be read (a code of the
/// reader's: `not-found`, `http-status`, …; no offset or context). Written by the CLI
/// (`validate --json`) and by the wasm modules, which the page passes on as is.
#[cfg(feature = "serde")]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ErrorDocument<'a> {
    /// The stable code: [`ErrorKind::code`], or the reader's.
    pub code: &'a str,
    /// What went wrong, and in which key or tensor; without the offset, which is given apart.
    pub message: String,
    /// Absolute byte offset in the file of what is wrong; `None` when no place is known.
    pub offset: Option<u64>,
    /// The part of the header being read; `None` outside the header decoder.
    pub context: Option<&'a Context>,
}

#[cfg(feature = "serde")]
impl ErrorDocument<'_> {
    /// Every code an error document may carry, as `(code, meaning, who gives it)`: the decoder's
    /// ([`ErrorKind::code`]) and the readers' (the CLI's files and HTTP, the page's worker). The
    /// contract's one list: `schema/codes.json` and the docs' table are generated from it, and the
    /// tests hold every code the decoder, the CLI and the page give to it. Codes are never renamed.
    pub const CODES: &'static [(&'static str, &'static str, &'static str)] = &[
        ("not-gguf", "the file does not start with `GGUF`", "decoder"),
        ("unsupported-version", "a version other than 1, 2 or 3", "decoder"),
        (
            "truncated",
            "the file ends inside the header (an empty file too)",
            "decoder",
        ),
        ("invalid-value-type", "a value type id outside 0–12", "decoder"),
        (
            "string-too-long",
            "a string longer than its cap (`Limits::max_string_len`)",
            "decoder",
        ),
        (
            "array-too-long",
            "an array longer than its cap (`Limits::max_array_len`)",
            "decoder",
        ),
        (
            "array-too-deep",
            "arrays nested deeper than the cap (`Limits::max_array_depth`)",
            "decoder",
        ),
        (
            "too-many-kvs",
            "more key-value pairs than the cap (`Limits::max_kv_count`)",
            "decoder",
        ),
        (
            "too-many-tensors",
            "more tensors than the cap (`Limits::max_tensor_count`)",
            "decoder",
        ),
        (
            "too-many-dimensions",
            "a tensor with more dimensions than the cap (`Limits::max_dims`)",
            "decoder",
        ),
        (
            "read-failed",
            "reading the file failed (an I/O error, a Blob that cannot be read)",
            "CLI, page",
        ),
        (
            "file-changed",
            "the file changed meanwhile: a read gave fewer bytes than asked, or a server's answer another size or ETag/Last-Modified than its first",
            "CLI, page",
        ),
        (
            "not-found",
            "no such file (on disk, or HTTP 404, 410)",
            "CLI, page",
        ),
        (
            "access-denied",
            "no permission; HTTP 401, 403 (a gated or private model)",
            "CLI, page",
        ),
        (
            "http-status",
            "another HTTP status instead of the bytes",
            "CLI, page",
        ),
        (
            "no-range",
            "the server ignores Range requests, or its Content-Range does not give the size",
            "CLI, page",
        ),
        (
            "web-page",
            "the URL answers an HTML page, not the file",
            "CLI, page",
        ),
        (
            "redirect",
            "a redirect loop, too many, or to an address that is not http(s)",
            "CLI, page",
        ),
        (
            "cors",
            "the server answered, but not to this page (CORS headers missing)",
            "page",
        ),
        (
            "unreachable",
            "no answer: host not found, connection refused, offline, or not allowed by the page's CSP",
            "CLI, page",
        ),
        ("timeout", "past `--timeout`", "CLI"),
        ("interrupted", "the download broke off", "CLI, page"),
        (
            "not-config",
            "an upstream file longer than the cap or not UTF-8 text",
            "CLI, page",
        ),
        (
            "not-read",
            "left unread: not a regular file, or a sibling's link leading out of the folder",
            "CLI",
        ),
        (
            "header-budget",
            "the header needs more memory than `--max-header-bytes`",
            "CLI",
        ),
        (
            "stalled",
            "a wasm module was stopped: no progress for the watchdog's budget",
            "page",
        ),
        (
            "out-of-memory",
            "a wasm module was stopped: it reached its memory cap",
            "page",
        ),
        ("crashed", "a wasm module was stopped: a trap or a bug", "page"),
        (
            "not-loaded",
            "a wasm module a request needs could not be fetched",
            "page",
        ),
        (
            "cancelled",
            "another file was opened, or the request was stopped",
            "page",
        ),
        (
            "invalid-request",
            "a request the open model cannot answer (`there is no tensor #9`)",
            "page",
        ),
    ];

    /// The document of a malformed file's error.
    pub fn of(e: &Error) -> ErrorDocument<'_> {
        ErrorDocument {
            code: e.kind().code(),
            message: alloc::string::ToString::to_string(&e.message()),
            offset: Some(e.offset()),
            context: Some(e.context()),
        }
    }

    /// The document of a failure outside the decoder: `code` and `message`, at `offset` if known.
    pub fn other(code: &str, message: String, offset: Option<u64>) -> ErrorDocument<'_> {
        ErrorDocument {
            code,
            message,
            offset,
            context: None,
        }
    }
}
