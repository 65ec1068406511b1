//! Reads a header from a file through the same incremental decoder the browser uses, with the
//! browser's read rule (`web/read-loop.js`): each read starts where the last ended, takes at least
//! what the decoder says the header still needs, else a quarter of what was read so far (at least
//! 256 KiB, at most 16 MiB). Reads grow geometrically and overshoot the header's end by at most a
//! quarter of it, so a 40 GB file costs one 256 KiB read.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use gguf_core::{Header, HeaderDecoder, Progress};

/// Smallest read: a small header fits in the first.
const FIRST_READ: u64 = 256 << 10;
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
    Gguf(gguf_core::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "cannot read: {e}"),
            ReadError::Gguf(e) => e.fmt(f),
        }
    }
}

/// Reads and decodes the header of the file at `path`.
pub fn read_header(path: &Path) -> Result<(Header, ReadStats), ReadError> {
    let mut file = File::open(path).map_err(ReadError::Io)?;
    let len = file.metadata().map_err(ReadError::Io)?.len();
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
        file.seek(SeekFrom::Start(offset)).map_err(ReadError::Io)?;
        file.read_exact(&mut buf).map_err(ReadError::Io)?;
        stats.bytes += want;
        stats.reads += 1;
        next = decoder.feed(&buf).map_err(ReadError::Gguf)?;
    }
    let header = decoder
        .into_header()
        .ok_or_else(|| ReadError::Io(io::ErrorKind::UnexpectedEof.into()))?;
    Ok((header, stats))
}
