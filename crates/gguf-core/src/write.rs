//! The header writer: the bytes of a GGUF header from its decoded form.
//!
//! It exists so that metadata can be edited without touching the tensor data: the tensor infos'
//! offsets are relative to the data section, so a new header followed by the old data section is
//! a valid file. The writer is exact: a decoded header written back is byte for byte the header
//! that was read (then zero padding up to `data_offset`), in its version (v1 keeps 32-bit counts,
//! lengths and dimensions) and byte order. The one value it cannot give back is a boolean stored
//! as a byte other than 0 or 1 (decoded as `true`, written as 1).
//!
//! Pure: no I/O, no allocation beyond the bytes written (the caller's header already holds them).

use alloc::vec::Vec;

use crate::endian::Endian;
use crate::header::{Array, DEFAULT_ALIGNMENT, Header, TensorInfo, Value};
use crate::keys;

/// A header written out. The zero padding after it is not held in memory (a hostile
/// `general.alignment` of 2^31 would ask for 2 GiB of it): write [`HeaderBytes::padding`]
/// zero bytes after `bytes` to reach `data_offset`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderBytes {
    /// The header, up to the end of the tensor infos (`header_len` bytes).
    pub bytes: Vec<u8>,
    /// Where the tensor infos end (the header's size before padding).
    pub header_len: u64,
    /// Where the tensor data starts: `header_len` rounded up to the alignment.
    pub data_offset: u64,
}

impl HeaderBytes {
    /// How many zero bytes follow the header up to `data_offset`.
    pub fn padding(&self) -> u64 {
        self.data_offset - self.header_len
    }
}

/// Why a header cannot be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteError {
    /// A count or length over u32 in a GGUF v1 header, whose lengths are 32-bit.
    TooLongForV1 {
        /// The count or length.
        len: u64,
    },
    /// A tensor with more than 2^32 dimensions (never in a decoded header).
    TooLarge,
}

impl core::fmt::Display for WriteError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            WriteError::TooLongForV1 { len } => {
                write!(f, "a count or length of {len} does not fit in GGUF v1's 32 bits")
            }
            WriteError::TooLarge => f.write_str("the header would be too large"),
        }
    }
}

impl core::error::Error for WriteError {}

/// Writes `header` back: byte for byte the header it was decoded from (see the module's docs).
pub fn write_header(header: &Header) -> Result<HeaderBytes, WriteError> {
    let entries = header.metadata.entries();
    let pairs = entries.iter().map(|e| (e.key.as_bytes(), &e.value));
    write_parts(
        header.version,
        header.endian,
        entries.len(),
        pairs,
        &header.tensors,
    )
}

/// Writes a header from its parts: the version and byte order, `kv_count` key-value pairs (the
/// iterator must yield exactly that many), and the tensor infos. The alignment comes from the
/// pairs' `general.alignment` by the decoder's rule (a non-zero `UINT32`, else 32).
pub(crate) fn write_parts<'a>(
    version: u32,
    endian: Endian,
    kv_count: usize,
    pairs: impl Iterator<Item = (&'a [u8], &'a Value)>,
    tensors: &[TensorInfo],
) -> Result<HeaderBytes, WriteError> {
    let mut w = Writer {
        out: Vec::new(),
        endian,
        narrow: version == 1,
    };
    w.out.extend_from_slice(b"GGUF");
    w.u32(version);
    w.len(tensors.len() as u64)?;
    w.len(kv_count as u64)?;
    let mut alignment = None;
    for (key, value) in pairs {
        if key == keys::ALIGNMENT.as_bytes() && alignment.is_none() {
            // The first `general.alignment`, as `Metadata::get` and the decoder take it.
            alignment = Some(match value {
                Value::U32(a) if *a > 0 => *a,
                _ => DEFAULT_ALIGNMENT,
            });
        }
        w.string(key)?;
        w.u32(value.ty() as u32);
        w.value(value)?;
    }
    for t in tensors {
        w.string(t.name.as_bytes())?;
        w.u32(u32::try_from(t.dims.len()).map_err(|_| WriteError::TooLarge)?);
        for &d in &t.dims {
            w.len(d)?;
        }
        w.u32(t.ty.0);
        w.u64(t.offset);
    }
    let header_len = w.out.len() as u64;
    let alignment = alignment.unwrap_or(DEFAULT_ALIGNMENT);
    let data_offset = header_len
        .checked_next_multiple_of(alignment.into())
        .unwrap_or(header_len);
    Ok(HeaderBytes {
        bytes: w.out,
        header_len,
        data_offset,
    })
}

struct Writer {
    out: Vec<u8>,
    endian: Endian,
    /// GGUF v1: counts, lengths and dimensions are u32.
    narrow: bool,
}

macro_rules! put {
    ($w:expr, $v:expr) => {
        $w.out.extend_from_slice(&match $w.endian {
            Endian::Little => $v.to_le_bytes(),
            Endian::Big => $v.to_be_bytes(),
        })
    };
}

impl Writer {
    fn u32(&mut self, v: u32) {
        put!(self, v);
    }

    fn u64(&mut self, v: u64) {
        put!(self, v);
    }

    /// A count, length or dimension: u32 in GGUF v1, u64 after.
    fn len(&mut self, v: u64) -> Result<(), WriteError> {
        if self.narrow {
            let v = u32::try_from(v).map_err(|_| WriteError::TooLongForV1 { len: v })?;
            self.u32(v);
        } else {
            self.u64(v);
        }
        Ok(())
    }

    fn string(&mut self, s: &[u8]) -> Result<(), WriteError> {
        self.len(s.len() as u64)?;
        self.out.extend_from_slice(s);
        Ok(())
    }

    fn value(&mut self, value: &Value) -> Result<(), WriteError> {
        match value {
            Value::U8(v) => self.out.push(*v),
            Value::I8(v) => put!(self, v),
            Value::U16(v) => put!(self, v),
            Value::I16(v) => put!(self, v),
            Value::U32(v) => put!(self, v),
            Value::I32(v) => put!(self, v),
            Value::F32(v) => put!(self, v),
            Value::Bool(v) => self.out.push(u8::from(*v)),
            Value::String(s) => self.string(s.as_bytes())?,
            Value::U64(v) => put!(self, v),
            Value::I64(v) => put!(self, v),
            Value::F64(v) => put!(self, v),
            Value::Array(a) => self.array(a)?,
        }
        Ok(())
    }

    /// An array's element type, length and elements (nested arrays recursively; their depth is
    /// what the decoder accepted, at most `Limits::max_array_depth`).
    fn array(&mut self, a: &Array) -> Result<(), WriteError> {
        self.u32(a.elem_type() as u32);
        self.len(a.len() as u64)?;
        macro_rules! each {
            ($v:expr) => {
                for x in $v {
                    put!(self, x);
                }
            };
        }
        match a {
            Array::U8(v) => self.out.extend_from_slice(v),
            Array::I8(v) => each!(v),
            Array::U16(v) => each!(v),
            Array::I16(v) => each!(v),
            Array::U32(v) => each!(v),
            Array::I32(v) => each!(v),
            Array::F32(v) => each!(v),
            Array::Bool(v) => self.out.extend(v.iter().map(|&b| u8::from(b))),
            Array::String(v) => {
                for s in v.iter() {
                    self.string(s)?;
                }
            }
            Array::Array(v) => {
                for inner in v {
                    self.array(inner)?;
                }
            }
            Array::U64(v) => each!(v),
            Array::I64(v) => each!(v),
            Array::F64(v) => each!(v),
        }
        Ok(())
    }
}
