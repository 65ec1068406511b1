//! Where a file's bytes come from — a file on disk ([`mod@file`]) or an HTTP server ([`http`]) — and
//! the two loops that read them. The loops only move bytes: what to read next is the core's
//! read rule (`HeaderDecoder::next_read`, `TensorValues::next_read`), the same one the browser's
//! worker follows, so the page and the CLI make the same reads of the same file.

pub mod file;
pub mod http;
mod location;

use std::fmt;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};

use gguf_core::read::Read;
use gguf_core::{Header, HeaderDecoder};
use gguf_diff::{ErrorStats, ValuePairs, Which};
use gguf_values::stats::Stats;
use gguf_values::values::{Measured, TensorValues};

pub use location::{Location, without_user_info};

use crate::budget;

/// Where a file is read from.
pub trait Source {
    /// The file's length.
    fn len(&self) -> u64;
    /// Fills `buf` with the bytes at `offset`. The header's reads come in order, each starting
    /// where the last ended; a tensor is read wherever it is, which a server that ignores Range
    /// cannot give (it says so).
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<(), ReadError>;
    /// How the file was read, when it matters: a redirect, a server that ignores Range.
    fn notes(&self) -> &[String] {
        &[]
    }
}

/// A request that failed, with what to do about it.
#[derive(Debug)]
pub struct HttpError {
    /// The stable code of the error document (docs/json.md, "Errors"): `not-found`,
    /// `access-denied`, `http-status`, `no-range`, `web-page`, `redirect`, `unreachable`, `timeout`,
    /// `interrupted`, `file-changed` (an answer of another size or validator than the first), or
    /// `not-config` (an upstream file that is too long or not text).
    pub code: &'static str,
    /// The HTTP status, when an answer came.
    pub status: Option<u16>,
    /// What went wrong and what the server must do.
    pub message: String,
}

/// Why bytes could not be read or decoded.
#[derive(Debug)]
pub enum ReadError {
    Io(io::Error),
    Http(HttpError),
    Gguf(gguf_core::Error),
    /// A file left unread, and why: not a regular file, or a sibling whose link leads elsewhere.
    NotRead(String),
    /// Reading the header would go over the header memory budget (`--max-header-bytes`).
    OverBudget(crate::budget::OverBudget),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "cannot read: {e}"),
            ReadError::Http(e) => f.write_str(&e.message),
            ReadError::Gguf(e) => e.fmt(f),
            ReadError::NotRead(why) => write!(f, "not read: {why}"),
            ReadError::OverBudget(e) => e.fmt(f),
        }
    }
}

impl ReadError {
    /// The error as the one JSON error document, `{code, message, offset, context}`: the core's
    /// for a malformed file; else a reader's code, with the offset where one is known.
    pub fn document(&self) -> gguf_core::ErrorDocument<'_> {
        use gguf_core::ErrorDocument;
        let (code, offset) = match self {
            ReadError::Gguf(e) => return ErrorDocument::of(e),
            ReadError::Io(e) => match e.kind() {
                io::ErrorKind::NotFound => ("not-found", None),
                io::ErrorKind::PermissionDenied => ("access-denied", None),
                _ => ("read-failed", None),
            },
            ReadError::Http(e) => (e.code, None),
            ReadError::NotRead(_) => ("not-read", None),
            ReadError::OverBudget(e) => ("header-budget", Some(e.offset)),
        };
        ErrorDocument::other(code, self.to_string(), offset)
    }
}

/// How many bytes were read, in how many reads.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadStats {
    /// Bytes read from the file.
    pub bytes: u64,
    /// Number of reads.
    pub reads: u64,
}

impl ReadStats {
    /// Reads `read` from `source` into `buf`, counting it.
    fn read(&mut self, source: &mut dyn Source, read: Read, buf: &mut Vec<u8>) -> Result<(), ReadError> {
        buf.resize(read.len as usize, 0);
        source.read_at(read.offset, buf)?;
        if std::env::var_os("GGUFSCOPE_LOG_READS").is_some() {
            eprintln!("read {} {}", read.offset, read.len);
        }
        self.bytes += read.len;
        self.reads += 1;
        Ok(())
    }
}

/// Reads and decodes the header of `source`, within the header memory budget
/// (`budget::check_read`, `budget::check_fed`).
pub fn read_header(source: &mut dyn Source) -> Result<(Header, ReadStats), ReadError> {
    let mut decoder = HeaderDecoder::new(Some(source.len()));
    let mut stats = ReadStats::default();
    let mut buf = Vec::new();
    while let Some(read) = decoder.next_read() {
        budget::check_read(read.offset, read.len).map_err(ReadError::OverBudget)?;
        stats.read(source, read, &mut buf)?;
        decoder.feed(&buf).map_err(ReadError::Gguf)?;
        budget::check_fed(decoder.bytes_fed()).map_err(ReadError::OverBudget)?;
    }
    let header = decoder.into_header();
    Ok((
        header.ok_or_else(|| ReadError::Io(io::ErrorKind::UnexpectedEof.into()))?,
        stats,
    ))
}

/// Reads the bytes `values` asks for from `source` and measures them.
pub fn measure(
    source: &mut dyn Source,
    mut values: TensorValues,
) -> Result<(Stats, ReadStats), MeasureError> {
    let mut stats = ReadStats::default();
    let mut buf = Vec::new();
    while let Some(read) = values.next_read() {
        stats.read(source, read, &mut buf).map_err(MeasureError::Read)?;
        values.feed(&buf).map_err(MeasureError::Dequant)?;
    }
    Ok((values.finish(), stats))
}

/// [`measure`] on up to `threads` threads, each reading through its own `open()`: the reads of
/// each pass are shared out as the threads come free, measured apart and merged in read order,
/// so the figures are those of one thread, to the bit.
pub fn measure_on_threads(
    open: &(dyn Fn() -> Result<Box<dyn Source>, ReadError> + Sync),
    mut values: TensorValues,
    threads: usize,
) -> Result<(Stats, ReadStats), MeasureError> {
    let mut total = ReadStats::default();
    loop {
        let reads: Vec<Read> = values.pass_reads().collect();
        if reads.is_empty() {
            return Ok((values.finish(), total));
        }
        let next = AtomicUsize::new(0);
        let work = || -> Result<(Vec<(usize, Measured)>, ReadStats), MeasureError> {
            let mut source = open().map_err(MeasureError::Read)?;
            let (mut stats, mut buf, mut measured) = (ReadStats::default(), Vec::new(), Vec::new());
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&read) = reads.get(i) else { break };
                stats
                    .read(&mut *source, read, &mut buf)
                    .map_err(MeasureError::Read)?;
                measured.push((i, values.measure(read, &buf).map_err(MeasureError::Dequant)?));
            }
            Ok((measured, stats))
        };
        let results: Vec<_> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads.clamp(1, reads.len()))
                .map(|_| scope.spawn(work))
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect()
        });
        let mut parts = Vec::with_capacity(reads.len());
        for result in results {
            let (measured, stats) = result?;
            total.bytes += stats.bytes;
            total.reads += stats.reads;
            parts.extend(measured);
        }
        parts.sort_by_key(|(i, _)| *i);
        for (_, part) in parts {
            values.absorb(part);
        }
    }
}

/// Reads the bytes `pairs` asks for, each from its file, and compares the two tensors: the
/// error, and the bytes read from A and from B. An error says which file it came from.
pub fn compare<'s>(
    a: &mut (dyn Source + 's),
    b: &mut (dyn Source + 's),
    mut pairs: ValuePairs,
) -> Result<(ErrorStats, [ReadStats; 2]), (Which, MeasureError)> {
    let mut stats = [ReadStats::default(); 2];
    let mut buf = Vec::new();
    while let Some((which, read)) = pairs.next_read() {
        let (source, counted) = match which {
            Which::A => (&mut *a, &mut stats[0]),
            Which::B => (&mut *b, &mut stats[1]),
        };
        counted
            .read(source, read, &mut buf)
            .map_err(|e| (which, MeasureError::Read(e)))?;
        pairs.feed(&buf).map_err(|e| (which, MeasureError::Dequant(e)))?;
    }
    Ok((pairs.finish(), stats))
}

/// Why a tensor's values could not be measured.
pub enum MeasureError {
    Read(ReadError),
    Dequant(gguf_values::dequant::DequantError),
}
