//! Decoding errors: what went wrong, where (absolute byte offset), and in which key or tensor.

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

/// Where in the header the error is: the part being read when it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Context {
    /// The fixed header: magic, version and the two counts.
    FileHeader,
    /// Key-value pair `index` (0-based, in file order); `key` once it was read.
    Kv {
        /// Position among the key-value pairs.
        index: u64,
        /// The key, when it was read before the error: escaped where not UTF-8, and cut as
        /// [`crate::Excerpt`] cuts (`AAAA… (268,435,456 bytes)`).
        key: Option<String>,
        /// The array element (outermost index) being read, for array values.
        element: Option<u64>,
    },
    /// Tensor info `index`; `name` once it was read.
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
