//! The sans-IO decoder: feed it bytes, it answers "need more" or "done".
//!
//! The header is decoded in small atomic items: the file header, one key-value pair (or the start
//! of an array value), a run of array elements, one tensor info. An item is consumed only when all
//! of its bytes are present; otherwise the decoder says how many more bytes it needs and keeps the
//! partial item (at most one) for the next call. Bytes of consumed items are never looked at again,
//! so the total work is linear in the header size however the input is chunked.

use alloc::string::ToString;
use alloc::vec::Vec;

use crate::endian::Endian;
use crate::error::{Context, Error, ErrorKind};
use crate::header::{Array, DEFAULT_ALIGNMENT, Entry, Header, Metadata, TensorInfo, Value, ValueType};
use crate::keys;
use crate::limits::{Limit, Limits};
use crate::read::{Read, header_read};
use crate::text::Excerpt;
use crate::types::GgmlType;

/// The smallest file header: magic, version and two u32 counts (v1).
const SMALLEST_FILE_HEADER: u64 = 16;

/// What the decoder wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Feed the bytes starting at `offset` (always the end of what was fed so far), at least
    /// `min_len` of them. `min_len` is a lower bound on the rest of the header: fewer bytes can
    /// never finish it, and that many always let the decoder advance.
    Need {
        /// Absolute offset of the next byte to feed.
        offset: u64,
        /// How many more bytes the header surely needs.
        min_len: u64,
    },
    /// The header is complete: see [`HeaderDecoder::header`].
    Done,
}

/// Incremental GGUF header decoder.
///
/// ```
/// use gguf_core::{HeaderDecoder, Progress};
/// # let file = gguf_core::testkit::GgufBuilder::new().kv("general.architecture", "llama").build();
/// let mut decoder = HeaderDecoder::new(Some(file.len() as u64));
/// let mut next = decoder.first_need();
/// while let Progress::Need { offset, min_len } = next {
///     let start = offset as usize;
///     let end = (start + min_len.max(16) as usize).min(file.len());
///     next = decoder.feed(&file[start..end])?;
/// }
/// assert_eq!(decoder.header().unwrap().metadata.architecture(), Some("llama"));
/// # Ok::<(), gguf_core::Error>(())
/// ```
#[derive(Debug)]
pub struct HeaderDecoder {
    file_len: Option<u64>,
    /// Bytes fed but not yet consumed: at most one partial item.
    carry: Vec<u8>,
    /// Total bytes fed.
    fed: u64,
    parse: Parse,
    outcome: Option<Result<Header, Error>>,
}

impl HeaderDecoder {
    /// A decoder with the default [`Limits`]. Give the file length when it is known: counts and
    /// lengths that cannot fit in the file are refused before anything is allocated, and reaching
    /// that length ends the input.
    pub fn new(file_len: Option<u64>) -> HeaderDecoder {
        HeaderDecoder::with_limits(file_len, Limits::default())
    }

    /// A decoder with custom limits.
    pub fn with_limits(file_len: Option<u64>, limits: Limits) -> HeaderDecoder {
        HeaderDecoder {
            file_len,
            carry: Vec::new(),
            fed: 0,
            parse: Parse::new(limits),
            outcome: None,
        }
    }

    /// What to feed first: the file header at offset 0, at least its smallest size (16 bytes in
    /// v1, whose counts are u32; 24 from v2), so the hint never reaches past a header's end.
    pub fn first_need(&self) -> Progress {
        Progress::Need {
            offset: 0,
            min_len: SMALLEST_FILE_HEADER,
        }
    }

    /// The bytes to read and feed next, by the read rule ([`crate::read::header_read`]): where
    /// the decoder needs them, at least as many as it surely needs, grown geometrically and
    /// never past the end of the file. `None` once the header is decoded or found malformed.
    /// With the file's length known, feeding each read ends in [`Progress::Done`] or an error.
    pub fn next_read(&self) -> Option<Read> {
        let min_len = self.parse.need_end.saturating_sub(self.fed);
        self.outcome
            .is_none()
            .then(|| header_read(self.fed, min_len, self.file_len))
    }

    /// Total bytes fed so far.
    pub fn bytes_fed(&self) -> u64 {
        self.fed
    }

    /// Feeds the next bytes of the file, which start at [`HeaderDecoder::bytes_fed`]. Bytes after
    /// the header are ignored; once done or failed, the decoder keeps answering the same.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Progress, Error> {
        if self.outcome.is_none() {
            let mut base = self.fed - self.carry.len() as u64;
            self.fed += bytes.len() as u64;
            let file_len = self.file_len;
            let mut rest = bytes;
            // The partial item carried from the last feed is completed with only the bytes it
            // still needs, so that the rest is decoded where it lies rather than copied first.
            let result = loop {
                let from_carry = !self.carry.is_empty();
                let direct = if from_carry {
                    &[][..]
                } else {
                    core::mem::take(&mut rest)
                };
                let data = if from_carry {
                    let carried_end = base + self.carry.len() as u64;
                    let want = self.parse.item_end.saturating_sub(carried_end).max(1);
                    let take = usize::try_from(want).map_or(rest.len(), |want| want.min(rest.len()));
                    self.carry.extend_from_slice(&rest[..take]);
                    rest = &rest[take..];
                    &self.carry[..]
                } else {
                    direct
                };
                let (consumed, result) = self.parse.run(data, base, file_len);
                base += consumed as u64;
                if from_carry {
                    self.carry.drain(..consumed);
                } else {
                    self.carry.extend_from_slice(&direct[consumed..]);
                }
                if rest.is_empty() || !matches!(result, Ok(None)) {
                    break result;
                }
            };
            match result {
                Ok(None) => {}
                Ok(Some(header)) => {
                    self.carry = Vec::new();
                    self.outcome = Some(Ok(header));
                }
                Err(e) => self.outcome = Some(Err(e)),
            }
        }
        match &self.outcome {
            None => Ok(Progress::Need {
                offset: self.fed,
                min_len: self.parse.need_end.saturating_sub(self.fed),
            }),
            Some(Ok(_)) => Ok(Progress::Done),
            Some(Err(e)) => Err(e.clone()),
        }
    }

    /// Ends the input, for a file whose length was not known: an unfinished header is an error.
    pub fn finish(&mut self) -> Result<Progress, Error> {
        self.file_len = Some(self.fed);
        self.feed(&[])
    }

    /// The header, once [`Progress::Done`].
    pub fn header(&self) -> Option<&Header> {
        self.outcome.as_ref()?.as_ref().ok()
    }

    /// Takes the header out, once [`Progress::Done`].
    pub fn into_header(self) -> Option<Header> {
        self.outcome?.ok()
    }
}

/// Decodes the header of a whole file held in memory (or of a prefix, taken as the whole file).
/// Defined as one [`HeaderDecoder::feed`]; tests rely on that equivalence.
pub fn parse(file: &[u8]) -> Result<Header, Error> {
    let mut decoder = HeaderDecoder::new(Some(file.len() as u64));
    decoder.feed(file)?;
    let end = file.len() as u64;
    // Reaching the known file length always ends in Done or an error, so this is never `None`.
    decoder.into_header().ok_or_else(|| {
        Error::new(
            ErrorKind::UnexpectedEnd {
                needed_end: end,
                file_len: end,
            },
            end,
            Context::FileHeader,
        )
    })
}

/// The state of a decode between calls: everything consumed so far, nothing partial.
#[derive(Debug)]
struct Parse {
    limits: Limits,
    version: u32,
    endian: Endian,
    started: bool,
    kv_count: u64,
    tensor_count: u64,
    metadata: Vec<Entry>,
    tensors: Vec<TensorInfo>,
    /// The key-value pair whose array value is being read, and where it started.
    open_kv: Option<(Vec<u8>, u64)>,
    /// Arrays being read, outermost first.
    frames: Vec<Frame>,
    /// Name of the key or tensor whose item is being read, for error context.
    naming: Option<Vec<u8>>,
    /// Absolute offset that the input must reach at least, as of the last `Need`.
    need_end: u64,
    /// Where the bytes the unfinished item asked for last end, as of the last `Need`.
    item_end: u64,
}

#[derive(Debug)]
struct Frame {
    len: u64,
    data: Array,
}

impl Frame {
    fn left(&self) -> u64 {
        self.len - self.data.len() as u64
    }
}

/// Why an item stopped before its end.
enum Stop {
    /// The bytes `start..end` are needed and not all present.
    Short { start: u64, end: u64 },
    /// The item is malformed at this offset.
    Bad(ErrorKind, u64),
}

type Step<T> = Result<T, Stop>;

fn over_limit(limit: Limit, value: u64, max: u64, at: u64) -> Stop {
    Stop::Bad(ErrorKind::LimitExceeded { limit, value, max }, at)
}

/// Fewest bytes one element of `ty` can take.
fn min_size(ty: ValueType, len_size: u64) -> u64 {
    match ty {
        ValueType::String => len_size,
        ValueType::Array => 4 + len_size,
        fixed => fixed.fixed_size().unwrap_or(1),
    }
}

/// Fewest bytes a key-value pair can take: key length, empty key, type, one-byte value.
fn min_kv_size(len_size: u64) -> u64 {
    len_size + 4 + 1
}

/// Fewest bytes a tensor info can take: name length, empty name, no dimensions, type, offset.
fn min_tensor_size(len_size: u64) -> u64 {
    len_size + 4 + 4 + 8
}

/// The unconsumed input, at absolute offset `base`.
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    endian: Endian,
    /// GGUF v1: counts, lengths and dimensions are u32.
    narrow: bool,
}

// `#[inline(always)]` on the reads below: the viewer's wasm is built for size (`opt-level = "s"`),
// which left each of them a call in the loop over a vocabulary's strings, half of its decode time
// (docs/performance.md, "The viewer's wasm module").
impl<'a> Cursor<'a> {
    #[inline(always)]
    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    #[inline(always)]
    fn take(&mut self, n: u64) -> Step<&'a [u8]> {
        let rest = &self.data[self.pos..];
        match usize::try_from(n) {
            Ok(n) if n <= rest.len() => {
                self.pos += n;
                Ok(&rest[..n])
            }
            _ => Err(Stop::Short {
                start: self.offset(),
                end: self.offset().saturating_add(n),
            }),
        }
    }

    #[inline(always)]
    fn bytes<const N: usize>(&mut self) -> Step<[u8; N]> {
        // `take` gave N bytes: `first_chunk` copies them inline (`copy_from_slice` calls at "s").
        Ok(self.take(N as u64)?.first_chunk().copied().unwrap_or([0; N]))
    }

    #[inline(always)]
    fn u32(&mut self) -> Step<u32> {
        let b = self.bytes()?;
        Ok(self.endian.u32(b))
    }

    #[inline(always)]
    fn u64(&mut self) -> Step<u64> {
        let b = self.bytes()?;
        Ok(self.endian.u64(b))
    }

    fn len_size(&self) -> u64 {
        if self.narrow { 4 } else { 8 }
    }

    /// A count, length or dimension: u32 in GGUF v1, u64 after.
    #[inline(always)]
    fn len(&mut self) -> Step<u64> {
        if self.narrow {
            self.u32().map(u64::from)
        } else {
            self.u64()
        }
    }

    #[inline(always)]
    fn string(&mut self, limits: &Limits) -> Step<&'a [u8]> {
        let start = self.offset();
        let len = self.len()?;
        if len > limits.max_string_len {
            return Err(over_limit(Limit::StringLength, len, limits.max_string_len, start));
        }
        self.take(len).map_err(|stop| match stop {
            Stop::Short { end, .. } => Stop::Short { start, end },
            bad => bad,
        })
    }

    fn value_type(&mut self) -> Step<ValueType> {
        let at = self.offset();
        let raw = self.u32()?;
        ValueType::from_raw(raw).ok_or(Stop::Bad(ErrorKind::InvalidValueType { raw }, at))
    }

    /// A value of any type but `Array`.
    fn scalar(&mut self, ty: ValueType, limits: &Limits) -> Step<Value> {
        let e = self.endian;
        Ok(match ty {
            ValueType::U8 => Value::U8(self.bytes::<1>()?[0]),
            ValueType::I8 => Value::I8(self.bytes::<1>()?[0] as i8),
            ValueType::U16 => Value::U16(e.u16(self.bytes()?)),
            ValueType::I16 => Value::I16(e.i16(self.bytes()?)),
            ValueType::U32 => Value::U32(e.u32(self.bytes()?)),
            ValueType::I32 => Value::I32(e.i32(self.bytes()?)),
            ValueType::F32 => Value::F32(e.f32(self.bytes()?)),
            ValueType::Bool => Value::Bool(self.bytes::<1>()?[0] != 0),
            ValueType::String => Value::String(self.string(limits)?.to_vec().into()),
            // Callers read arrays element by element and never ask for one here.
            ValueType::Array => return Err(Stop::Bad(ErrorKind::InvalidValueType { raw: 9 }, self.offset())),
            ValueType::U64 => Value::U64(e.u64(self.bytes()?)),
            ValueType::I64 => Value::I64(e.i64(self.bytes()?)),
            ValueType::F64 => Value::F64(e.f64(self.bytes()?)),
        })
    }

    /// Reads up to `max` fixed-size elements, as many as are present, into `out`.
    fn fixed_run(&mut self, out: &mut Array, max: u64) -> Step<()> {
        let size = out.elem_type().fixed_size().unwrap_or(1);
        let present = ((self.data.len() - self.pos) as u64 / size).min(max);
        if present == 0 {
            return Err(Stop::Short {
                start: self.offset(),
                end: self.offset() + size,
            });
        }
        let bytes = self.take(present * size)?;
        let e = self.endian;
        macro_rules! extend {
            ($v:expr, $n:literal, $conv:expr) => {{
                $v.reserve(present as usize);
                // `first_chunk`, not `copy_from_slice` (a call per element at "s", the viewer wasm).
                $v.extend(
                    bytes
                        .chunks_exact($n)
                        .map(|c| $conv(c.first_chunk().copied().unwrap_or([0; $n]))),
                )
            }};
        }
        match out {
            Array::U8(v) => v.extend_from_slice(bytes),
            Array::I8(v) => extend!(v, 1, |a: [u8; 1]| a[0] as i8),
            Array::Bool(v) => extend!(v, 1, |a: [u8; 1]| a[0] != 0),
            Array::U16(v) => extend!(v, 2, |a| e.u16(a)),
            Array::I16(v) => extend!(v, 2, |a| e.i16(a)),
            Array::U32(v) => extend!(v, 4, |a| e.u32(a)),
            Array::I32(v) => extend!(v, 4, |a| e.i32(a)),
            Array::F32(v) => extend!(v, 4, |a| e.f32(a)),
            Array::U64(v) => extend!(v, 8, |a| e.u64(a)),
            Array::I64(v) => extend!(v, 8, |a| e.i64(a)),
            Array::F64(v) => extend!(v, 8, |a| e.f64(a)),
            Array::String(_) | Array::Array(_) => {}
        }
        Ok(())
    }
}

impl Parse {
    fn new(limits: Limits) -> Parse {
        Parse {
            limits,
            version: 0,
            endian: Endian::Little,
            started: false,
            kv_count: 0,
            tensor_count: 0,
            metadata: Vec::new(),
            tensors: Vec::new(),
            open_kv: None,
            frames: Vec::new(),
            naming: None,
            need_end: SMALLEST_FILE_HEADER,
            item_end: 0,
        }
    }

    /// Decodes as many items as `data` (at absolute offset `base`) holds. Returns the bytes
    /// consumed and the header once complete.
    fn run(
        &mut self,
        data: &[u8],
        base: u64,
        file_len: Option<u64>,
    ) -> (usize, Result<Option<Header>, Error>) {
        let mut cur = Cursor {
            data,
            pos: 0,
            base,
            endian: self.endian,
            narrow: self.version == 1,
        };
        loop {
            let item_start = cur.pos;
            let stop = match self.item(&mut cur, file_len) {
                Ok(false) => continue,
                Ok(true) => return (cur.pos, Ok(Some(self.finish(cur.offset(), file_len)))),
                Err(stop) => stop,
            };
            let (kind, at) = match stop {
                Stop::Short { start, end } => match file_len {
                    Some(len) if end > len => (
                        ErrorKind::UnexpectedEnd {
                            needed_end: end,
                            file_len: len,
                        },
                        start,
                    ),
                    _ => {
                        let item_offset = base + item_start as u64;
                        self.item_end = end;
                        self.need_end = end.max(item_offset.saturating_add(self.min_rest(cur.len_size())));
                        return (item_start, Ok(None));
                    }
                },
                Stop::Bad(kind, at) => (kind, at),
            };
            return (item_start, Err(Error::new(kind, at, self.context())));
        }
    }

    /// Fewest bytes from the start of the current item to the end of the header.
    fn min_rest(&self, len_size: u64) -> u64 {
        if !self.started {
            // Until the version is read, the counts may be v1's u32s.
            let count_size = if self.version >= 2 { 8 } else { 4 };
            return 8 + 2 * count_size;
        }
        let mut total: u64 = 0;
        let top = self.frames.len().saturating_sub(1);
        for (i, frame) in self.frames.iter().enumerate() {
            // Below the top, the element in progress is the next frame up, already begun.
            let left = if i == top {
                frame.left()
            } else {
                frame.left().saturating_sub(1)
            };
            total = total.saturating_add(left.saturating_mul(min_size(frame.data.elem_type(), len_size)));
        }
        let kvs_left = self.kv_count - self.metadata.len() as u64 - u64::from(self.open_kv.is_some());
        let tensors_left = self.tensor_count - self.tensors.len() as u64;
        total
            .saturating_add(kvs_left.saturating_mul(min_kv_size(len_size)))
            .saturating_add(tensors_left.saturating_mul(min_tensor_size(len_size)))
    }

    fn context(&self) -> Context {
        let name = self.naming.as_deref().map(|n| Excerpt(n).to_string());
        if !self.started {
            Context::FileHeader
        } else if let Some((key, _)) = &self.open_kv {
            Context::Kv {
                index: self.metadata.len() as u64,
                key: Some(Excerpt(key).to_string()),
                element: self.frames.first().map(|f| f.data.len() as u64),
            }
        } else if (self.metadata.len() as u64) < self.kv_count {
            Context::Kv {
                index: self.metadata.len() as u64,
                key: name,
                element: None,
            }
        } else {
            Context::Tensor {
                index: self.tensors.len() as u64,
                name,
            }
        }
    }

    /// Decodes one item. `Ok(true)` when the header is complete.
    fn item(&mut self, cur: &mut Cursor<'_>, file_len: Option<u64>) -> Step<bool> {
        if !self.started {
            self.file_header(cur)?;
        } else if !self.frames.is_empty() {
            self.array_items(cur, file_len)?;
        } else if (self.metadata.len() as u64) < self.kv_count {
            self.kv(cur, file_len)?;
        } else if (self.tensors.len() as u64) < self.tensor_count {
            self.tensor(cur)?;
        } else {
            return Ok(true);
        }
        Ok(false)
    }

    fn file_header(&mut self, cur: &mut Cursor<'_>) -> Step<()> {
        let magic: [u8; 4] = cur.bytes()?;
        if &magic != b"GGUF" {
            return Err(Stop::Bad(ErrorKind::NotGguf { magic }, 0));
        }
        let raw: [u8; 4] = cur.bytes()?;
        let little = u32::from_le_bytes(raw);
        // No byte-order marker exists: a version whose low 16 bits are zero is a swapped one.
        let (endian, version) = if little & 0xFFFF == 0 {
            (Endian::Big, u32::from_be_bytes(raw))
        } else {
            (Endian::Little, little)
        };
        if !(1..=3).contains(&version) {
            return Err(Stop::Bad(ErrorKind::UnsupportedVersion { version: little }, 4));
        }
        cur.endian = endian;
        cur.narrow = version == 1;
        self.version = version;
        let tensor_count = cur.len()?;
        let kv_count = cur.len()?;
        let limits = &self.limits;
        if tensor_count > limits.max_tensor_count {
            return Err(over_limit(
                Limit::TensorCount,
                tensor_count,
                limits.max_tensor_count,
                8,
            ));
        }
        if kv_count > limits.max_kv_count {
            return Err(over_limit(
                Limit::KvCount,
                kv_count,
                limits.max_kv_count,
                8 + cur.len_size(),
            ));
        }
        self.endian = endian;
        self.kv_count = kv_count;
        self.tensor_count = tensor_count;
        self.started = true;
        Ok(())
    }

    /// Refuses a structure at `start` that needs `min_len` bytes from `from` when the file is shorter.
    fn check_fits(&self, from: u64, min_len: u64, start: u64, file_len: Option<u64>) -> Step<()> {
        let needed_end = from.saturating_add(min_len);
        match file_len {
            Some(len) if needed_end > len => Err(Stop::Bad(
                ErrorKind::UnexpectedEnd {
                    needed_end,
                    file_len: len,
                },
                start,
            )),
            _ => Ok(()),
        }
    }

    fn kv(&mut self, cur: &mut Cursor<'_>, file_len: Option<u64>) -> Step<()> {
        let start = cur.offset();
        self.naming = None;
        let key = cur.string(&self.limits)?;
        self.naming = Some(key.to_vec());
        let ty = cur.value_type()?;
        if ty == ValueType::Array {
            let (frame, key) = (self.array_header(cur, start, file_len)?, self.naming.take());
            self.open_kv = Some((key.unwrap_or_default(), start));
            self.frames.push(frame);
        } else {
            let value = cur.scalar(ty, &self.limits)?;
            let key = self.naming.take().unwrap_or_default();
            self.metadata.push(Entry {
                key: key.into(),
                value,
                span: start..cur.offset(),
            });
        }
        Ok(())
    }

    /// An array's element type and length; `start` is where its key-value pair or outer element began.
    fn array_header(&self, cur: &mut Cursor<'_>, start: u64, file_len: Option<u64>) -> Step<Frame> {
        let elem = cur.value_type()?;
        let len_at = cur.offset();
        let len = cur.len()?;
        if len > self.limits.max_array_len {
            return Err(over_limit(
                Limit::ArrayLength,
                len,
                self.limits.max_array_len,
                len_at,
            ));
        }
        self.check_fits(
            cur.offset(),
            len.saturating_mul(min_size(elem, cur.len_size())),
            start,
            file_len,
        )?;
        Ok(Frame {
            len,
            data: Array::empty(elem),
        })
    }

    fn array_items(&mut self, cur: &mut Cursor<'_>, file_len: Option<u64>) -> Step<()> {
        let depth = self.frames.len();
        let Some(frame) = self.frames.last_mut() else {
            return Ok(());
        };
        if frame.left() == 0 {
            self.close_frame(cur.offset());
            return Ok(());
        }
        match &mut frame.data {
            Array::Array(_) => {
                let start = cur.offset();
                if depth as u64 >= u64::from(self.limits.max_array_depth) {
                    let max = self.limits.max_array_depth.into();
                    return Err(over_limit(Limit::ArrayDepth, depth as u64 + 1, max, start));
                }
                let inner = self.array_header(cur, start, file_len)?;
                self.frames.push(inner);
            }
            Array::String(strings) => {
                let run = strings.bytes.len();
                let mut read = 0;
                while read < frame.len - strings.len() as u64 {
                    let elem_start = cur.pos;
                    match cur.string(&self.limits) {
                        Ok(s) => strings.push_in_run(s, cur.data.get(cur.pos - s.len()..).unwrap_or(s)),
                        Err(Stop::Short { .. }) if read > 0 => {
                            cur.pos = elem_start;
                            break;
                        }
                        Err(stop) => return Err(stop),
                    }
                    read += 1;
                }
                strings.check_run(run);
            }
            data => {
                let left = frame.len - data.len() as u64;
                cur.fixed_run(data, left)?;
            }
        }
        Ok(())
    }

    /// Closes the innermost array: into its parent array, or as the open key-value pair's value.
    fn close_frame(&mut self, end: u64) {
        let Some(frame) = self.frames.pop() else { return };
        match self.frames.last_mut() {
            Some(Frame {
                data: Array::Array(parent),
                ..
            }) => parent.push(frame.data),
            Some(_) => {}
            None => {
                let (key, start) = self.open_kv.take().unwrap_or_default();
                self.metadata.push(Entry {
                    key: key.into(),
                    value: Value::Array(frame.data),
                    span: start..end,
                });
            }
        }
    }

    fn tensor(&mut self, cur: &mut Cursor<'_>) -> Step<()> {
        let start = cur.offset();
        self.naming = None;
        let name = cur.string(&self.limits)?;
        self.naming = Some(name.to_vec());
        let dims_at = cur.offset();
        let n_dims = cur.u32()?;
        if n_dims > self.limits.max_dims {
            return Err(over_limit(
                Limit::Dimensions,
                n_dims.into(),
                self.limits.max_dims.into(),
                dims_at,
            ));
        }
        let mut dims = Vec::with_capacity(n_dims as usize);
        for _ in 0..n_dims {
            dims.push(cur.len()?);
        }
        let ty = GgmlType(cur.u32()?);
        let offset = cur.u64()?;
        let name = self.naming.take().unwrap_or_default();
        self.tensors.push(TensorInfo {
            name: name.into(),
            dims,
            ty,
            offset,
            span: start..cur.offset(),
        });
        Ok(())
    }

    fn finish(&mut self, header_len: u64, file_len: Option<u64>) -> Header {
        let metadata = Metadata(core::mem::take(&mut self.metadata));
        let alignment = match metadata.get(keys::ALIGNMENT) {
            Some(Value::U32(a)) if *a > 0 => *a,
            _ => DEFAULT_ALIGNMENT,
        };
        Header {
            version: self.version,
            endian: self.endian,
            metadata,
            tensors: core::mem::take(&mut self.tensors),
            alignment,
            header_len,
            data_offset: header_len
                .checked_next_multiple_of(alignment.into())
                .unwrap_or(header_len),
            file_len,
        }
    }
}
