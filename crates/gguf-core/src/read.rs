//! The read rule: what a reader fetches next, so that the CLI's file and HTTP loops and the
//! browser's loops only move bytes and cannot disagree. The header decoder and the tensor-values
//! decoder both answer [`Read`]s computed here.

/// Bytes to fetch next: `len` bytes from the absolute `offset` (fewer only at the end of the file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    /// Absolute offset of the first byte.
    pub offset: u64,
    /// How many bytes.
    pub len: u64,
}

impl Read {
    /// Where the read ends.
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.len)
    }
}

/// Smallest header read: a small header, or the fixed part of a big one, fits in the first.
pub const FIRST_READ: u64 = 256 << 10;
/// Largest single read, so memory stays bounded whatever a header claims.
pub const MAX_READ: u64 = 16 << 20;
/// Bytes per read of a tensor's values: whole blocks of about this many bytes.
pub const TENSOR_CHUNK: u64 = 8 << 20;

/// The next header read at `offset`, where the decoder needs at least `min_len` more bytes: at
/// least that many, else a quarter of what was read so far (`offset`), at least [`FIRST_READ`],
/// at most [`MAX_READ`], and never past `file_len`. Sizes grow geometrically, so a 24 MB header
/// takes a dozen reads, and the last overshoots the header's end by at most a quarter of it (or
/// [`FIRST_READ`]): a 40 GB file costs one 256 KiB read.
pub fn header_read(offset: u64, min_len: u64, file_len: Option<u64>) -> Read {
    let len = min_len.max(FIRST_READ).max(offset / 4).min(MAX_READ);
    let len = match file_len {
        Some(file_len) => len.min(file_len.saturating_sub(offset)),
        None => len,
    };
    Read { offset, len }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_by_a_quarter_within_bounds() {
        assert_eq!(header_read(0, 24, Some(1 << 40)).len, FIRST_READ);
        assert_eq!(header_read(0, 24, Some(100)).len, 100);
        assert_eq!(header_read(8 << 20, 10, None).len, 2 << 20);
        assert_eq!(header_read(1 << 30, 10, None).len, MAX_READ);
        assert_eq!(header_read(0, 1 << 40, None).len, MAX_READ);
        assert_eq!(header_read(1000, 5000, Some(3000)).len, 2000);
        assert_eq!(header_read(5000, 1, Some(3000)).len, 0);
    }
}
