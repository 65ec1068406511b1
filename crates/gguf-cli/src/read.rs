//! Reads a header from a file or a URL (`http.rs`) through the same incremental decoder the
//! browser uses, with the browser's read rule (`web/read-loop.js`): each read starts where the
//! last ended, takes at least what the decoder says the header still needs, else a quarter of what
//! was read so far (at least 256 KiB, at most 16 MiB). Reads grow geometrically and overshoot the
//! header's end by at most a quarter of it, so a 40 GB file costs one 256 KiB read.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use gguf_core::{Header, HeaderDecoder, Progress};

use crate::http::HttpError;

/// Smallest read: a small header fits in the first.
pub const FIRST_READ: u64 = 256 << 10;
/// Largest single read, so memory stays bounded whatever the header claims.
const MAX_READ: u64 = 16 << 20;

/// How the header was read.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadStats {
    /// Bytes read from the file.
    pub bytes: u64,
    /// Number of reads.
    pub reads: u64,
}

/// Why a header could not be read.
#[derive(Debug)]
pub enum ReadError {
    Io(io::Error),
    Http(HttpError),
    Gguf(gguf_core::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "cannot read: {e}"),
            ReadError::Http(e) => e.fmt(f),
            ReadError::Gguf(e) => e.fmt(f),
        }
    }
}

/// Where a file is read from: a file on disk, or a file on an HTTP server.
pub trait Source {
    /// The file's length.
    fn len(&self) -> u64;
    /// Fills `buf` with the bytes at `offset`. The header's read loop asks in order, each read
    /// starting where the last ended; a tensor is read wherever it is, which a server that ignores
    /// Range cannot give (it says so).
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<(), ReadError>;
    /// How the file was read, when it matters: a redirect, a server that ignores Range.
    fn notes(&self) -> &[String] {
        &[]
    }
}

/// A file on disk.
pub struct FileSource {
    file: File,
    len: u64,
}

impl FileSource {
    pub fn open(path: &Path) -> Result<FileSource, ReadError> {
        let file = File::open(path).map_err(ReadError::Io)?;
        let len = file.metadata().map_err(ReadError::Io)?.len();
        Ok(FileSource { file, len })
    }
}

impl Source for FileSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<(), ReadError> {
        self.file.seek(SeekFrom::Start(offset)).map_err(ReadError::Io)?;
        self.file.read_exact(buf).map_err(ReadError::Io)
    }
}

/// Reads and decodes the header of `source`.
pub fn read_from(source: &mut dyn Source) -> Result<(Header, ReadStats), ReadError> {
    let len = source.len();
    let mut decoder = HeaderDecoder::new(Some(len));
    let mut stats = ReadStats::default();
    let mut next = decoder.first_need();
    let mut buf = Vec::new();
    while let Progress::Need { offset, min_len } = next {
        let want = min_len
            .max(FIRST_READ)
            .max(offset / 4)
            .min(MAX_READ)
            .min(len - offset.min(len));
        buf.resize(want as usize, 0);
        source.read_at(offset, &mut buf)?;
        stats.bytes += want;
        stats.reads += 1;
        next = decoder.feed(&buf).map_err(ReadError::Gguf)?;
    }
    let header = decoder
        .into_header()
        .ok_or_else(|| ReadError::Io(io::ErrorKind::UnexpectedEof.into()))?;
    Ok((header, stats))
}
