//! A tensor's values measured from its bytes, sans-IO: [`TensorValues`] says which bytes it
//! needs next ([`TensorValues::next_read`]), takes them as they come, and ends in the
//! [`Stats`]. The reading itself (a file, HTTP Range requests, `File.slice`) stays with the
//! caller, whose loop is the same few lines everywhere:
//!
//! ```
//! # use gguf_core::{Endian, GgmlType, dequant::Prefix, values::TensorValues};
//! # let file = vec![0u8; 64];
//! let prefix = Prefix { offset: 0, len: 64, rows: 1, elements: 16 };
//! let mut values = TensorValues::new(GgmlType::F32, Endian::Little, prefix, 20, 16)?;
//! while let Some(read) = values.next_read() {
//!     let bytes = &file[read.offset as usize..read.end() as usize];   // your I/O
//!     values.feed(bytes)?;
//! }
//! let stats = values.finish();
//! assert_eq!(stats.count, 16);
//! # Ok::<(), gguf_core::dequant::DequantError>(())
//! ```
//!
//! Two passes, so that a tensor too large to hold decoded is streamed in bounded memory: the
//! moments, then the histogram over the range they found. A prefix that fits in one read is read
//! once and kept for the second pass. Bytes are decoded a slice at a time, so the decoded values
//! held at once stay small whatever the read size.

use alloc::vec::Vec;

use crate::dequant::{self, DequantError, Prefix};
use crate::endian::Endian;
use crate::read::{Read, TENSOR_CHUNK};
use crate::stats::{Histogram, Moments, Stats};
use crate::types::GgmlType;

/// Bytes decoded at a time: at most a few MB of `f32` values whatever the type.
const DECODE_SLICE: usize = 256 << 10;

/// The measurement of one tensor prefix in progress.
#[derive(Debug)]
pub struct TensorValues {
    ty: GgmlType,
    endian: Endian,
    prefix: Prefix,
    /// Bytes per read: whole blocks.
    chunk: u64,
    /// Bytes per decode step: whole blocks.
    slice: usize,
    bins: usize,
    moments: Moments,
    /// The second pass's histogram, once the first pass is over.
    histogram: Option<Histogram>,
    /// Bytes of the prefix the current pass has taken.
    done: u64,
    /// Values decoded in the current pass (the prefix's last block may hold more than it covers).
    decoded: u64,
    /// The whole prefix, when one read held it: the second pass reads nothing.
    kept: Option<Vec<u8>>,
    values: Vec<f32>,
}

impl TensorValues {
    /// Measures the values of `prefix` (see [`dequant::prefix`]), of type `ty` in a file of byte
    /// order `endian`, into a histogram of `bins` bins, keeping the first `first` values.
    pub fn new(
        ty: GgmlType,
        endian: Endian,
        prefix: Prefix,
        bins: usize,
        first: usize,
    ) -> Result<TensorValues, DequantError> {
        let block = match ty.type_size() {
            Some(b) if dequant::is_supported(ty) => u64::from(b).max(1),
            _ => return Err(DequantError::Unsupported { ty }),
        };
        Ok(TensorValues {
            ty,
            endian,
            prefix,
            chunk: (TENSOR_CHUNK / block).max(1) * block,
            slice: ((DECODE_SLICE as u64 / block).max(1) * block) as usize,
            bins,
            moments: Moments::new(first),
            histogram: None,
            done: 0,
            decoded: 0,
            kept: None,
            values: Vec::new(),
        })
    }

    /// The bytes to feed next, `None` when both passes are over.
    pub fn next_read(&self) -> Option<Read> {
        if self.done >= self.prefix.len {
            return None;
        }
        Some(Read {
            offset: self.prefix.offset + self.done,
            len: (self.prefix.len - self.done).min(self.chunk),
        })
    }

    /// Feeds the bytes of the last [`TensorValues::next_read`]. An error for bytes that are
    /// not a whole number of blocks (a short read).
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), DequantError> {
        let expected = self.next_read().map_or(0, |r| r.len);
        if bytes.len() as u64 != expected {
            return Err(DequantError::PartialBlock {
                ty: self.ty,
                len: bytes.len(),
                block_bytes: self.ty.type_size().unwrap_or(1),
            });
        }
        self.take(bytes)?;
        self.done += bytes.len() as u64;
        if self.done >= self.prefix.len && self.histogram.is_none() {
            self.histogram = Some(self.moments.histogram(self.bins));
            self.decoded = 0;
            if self.prefix.len <= self.chunk {
                // One read held it all: the second pass needs no more reading.
                self.kept = Some(bytes.to_vec());
            }
            match self.kept.take() {
                Some(all) => self.take(&all)?,
                None => self.done = 0,
            }
        }
        Ok(())
    }

    /// Decodes `bytes` a slice at a time into the current pass.
    fn take(&mut self, bytes: &[u8]) -> Result<(), DequantError> {
        for slice in bytes.chunks(self.slice) {
            self.values.clear();
            dequant::dequantize_into(self.ty, self.endian, slice, &mut self.values)?;
            let keep = (self.prefix.elements - self.decoded).min(self.values.len() as u64) as usize;
            self.decoded += keep as u64;
            let values = &self.values[..keep];
            match &mut self.histogram {
                None => self.moments.add(values),
                Some(histogram) => histogram.add(values),
            }
        }
        Ok(())
    }

    /// The statistics; before both passes are over, of what was fed.
    pub fn finish(self) -> Stats {
        let histogram = match self.histogram {
            Some(h) => h,
            None => self.moments.histogram(self.bins),
        };
        self.moments.finish(histogram)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn f32_bytes(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// Runs the loop over `file`, returning the stats and the reads made.
    fn run(file: &[u8], prefix: Prefix) -> (Stats, Vec<Read>) {
        let mut values = TensorValues::new(GgmlType::F32, Endian::Little, prefix, 4, 3).unwrap();
        let mut reads = Vec::new();
        while let Some(read) = values.next_read() {
            reads.push(read);
            values
                .feed(&file[read.offset as usize..read.end() as usize])
                .unwrap();
        }
        (values.finish(), reads)
    }

    #[test]
    fn a_small_prefix_is_read_once() {
        let file = f32_bytes(&[1.0, -2.0, 3.0, 0.0, 5.0]);
        let prefix = Prefix {
            offset: 4,
            len: 12,
            rows: 1,
            elements: 3,
        };
        let (stats, reads) = run(&file, prefix);
        assert_eq!(reads, [Read { offset: 4, len: 12 }]);
        assert_eq!(stats, Stats::of(&[-2.0, 3.0, 0.0], 4, 3));
    }

    #[test]
    fn a_large_prefix_is_read_twice_in_chunks_and_equals_one_pass() {
        let n = (TENSOR_CHUNK as usize / 4) * 2 + 1000;
        let all: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 - 500.0).collect();
        let file = f32_bytes(&all);
        let prefix = Prefix {
            offset: 0,
            len: file.len() as u64,
            rows: 1,
            elements: n as u64,
        };
        let (stats, reads) = run(&file, prefix);
        assert_eq!(reads.len(), 6);
        assert_eq!(reads[..3], reads[3..]);
        assert_eq!(
            reads[1],
            Read {
                offset: TENSOR_CHUNK,
                len: TENSOR_CHUNK
            }
        );
        assert_eq!(stats, Stats::of(&all, 4, 3));
    }

    #[test]
    fn refuses_a_short_read_and_unsupported_types() {
        let prefix = Prefix {
            offset: 0,
            len: 8,
            rows: 1,
            elements: 2,
        };
        let mut values = TensorValues::new(GgmlType::F32, Endian::Little, prefix, 4, 3).unwrap();
        assert!(values.feed(&[0; 4]).is_err());
        assert!(TensorValues::new(GgmlType(999), Endian::Little, prefix, 4, 3).is_err());
        let empty = Prefix {
            offset: 0,
            len: 0,
            rows: 0,
            elements: 0,
        };
        let values = TensorValues::new(GgmlType::F32, Endian::Little, empty, 4, 3).unwrap();
        assert_eq!(values.next_read(), None);
        assert_eq!(values.finish().count, 0);
        let _ = vec![0u8];
    }
}
