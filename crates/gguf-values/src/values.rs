//! A tensor's values measured from its bytes, sans-IO: [`TensorValues`] says which bytes it
//! needs next ([`TensorValues::next_read`]), takes them as they come, and ends in the
//! [`Stats`]. The reading itself (a file, HTTP Range requests, `File.slice`) stays with the
//! caller, whose loop is the same few lines everywhere:
//!
//! ```
//! # use gguf_core::{Endian, GgmlType};
//! # use gguf_values::{dequant::Prefix, values::TensorValues};
//! # let file = vec![0u8; 64];
//! let prefix = Prefix { offset: 0, len: 64, rows: 1, elements: 16 };
//! let mut values = TensorValues::new(GgmlType::F32, Endian::Little, prefix, 20, 16)?;
//! while let Some(read) = values.next_read() {
//!     let bytes = &file[read.offset as usize..read.end() as usize];   // your I/O
//!     values.feed(bytes)?;
//! }
//! let stats = values.finish();
//! assert_eq!(stats.count, 16);
//! # Ok::<(), gguf_values::dequant::DequantError>(())
//! ```
//!
//! Two passes, so that a tensor too large to hold decoded is streamed in bounded memory: the
//! moments, then the histogram over the range they found. A prefix that fits in one read is read
//! once and kept for the second pass. Bytes are decoded a slice at a time, so the decoded values
//! held at once stay small whatever the read size — or not decoded at all, for scaled blocks
//! (`Q8_0`), which the statistics measure from their integers.
//!
//! Each read is measured on its own ([`TensorValues::measure`], which takes `&self`) and merged
//! in order ([`TensorValues::absorb`]): a caller with threads measures the reads of a pass
//! ([`TensorValues::pass_reads`]) on all of them, and gets the figures one thread gets, to the bit.

use alloc::vec;

use crate::dequant::{self, DequantError, DequantizeTo, Prefix};
use crate::stats::{Binning, Histogram, Moments, Stats};
use gguf_core::Endian;
use gguf_core::GgmlType;
use gguf_core::read::{Read, TENSOR_CHUNK};

/// Bytes decoded at a time: their values (60 KB for `Q8_0`, at most about 330 KB whatever the
/// type) are still in the cache when measured, where 256 KiB of blocks decoded to a megabyte.
const DECODE_SLICE: usize = 16 << 10;

/// The measurement of one tensor prefix in progress.
#[derive(Debug)]
pub struct TensorValues {
    ty: GgmlType,
    endian: Endian,
    prefix: Prefix,
    /// Bytes per block, and values per block.
    block: (u64, u64),
    /// Bytes per read: whole blocks.
    chunk: u64,
    /// Bytes per decode step: whole blocks.
    slice: usize,
    bins: usize,
    first: usize,
    moments: Moments,
    /// What decodes the blocks: [`dequant::dequantize_to`], or a build of it for wider vectors.
    dequantize: DequantizeTo,
    /// The second pass's bins and histogram, once the first pass is over.
    histogram: Option<(Binning, Histogram)>,
    /// Bytes of the prefix the current pass has taken.
    done: u64,
}

/// What one read of a pass measured, to be merged with [`TensorValues::absorb`].
#[derive(Debug)]
pub struct Measured {
    read: Read,
    part: Part,
}

#[derive(Debug)]
enum Part {
    Moments(Moments),
    Histogram(Histogram),
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
        let (bytes, values) = match (ty.type_size(), ty.block_size()) {
            (Some(b), Some(v)) if dequant::is_supported(ty) => (u64::from(b).max(1), u64::from(v)),
            _ => return Err(DequantError::Unsupported { ty }),
        };
        Ok(TensorValues {
            ty,
            endian,
            prefix,
            block: (bytes, values),
            chunk: (TENSOR_CHUNK / bytes).max(1) * bytes,
            slice: ((DECODE_SLICE as u64 / bytes).max(1) * bytes) as usize,
            bins,
            first,
            moments: Moments::new(first),
            dequantize: dequant::dequantize_to,
            histogram: None,
            done: 0,
        })
    }

    /// Decodes with `dequantize` instead of [`dequant::dequantize_to`]: one that gives the same
    /// values faster on this CPU (the CLI gives `avx2::dequantize_to`).
    pub fn with_dequantizer(mut self, dequantize: DequantizeTo) -> TensorValues {
        self.dequantize = dequantize;
        self
    }

    /// The bytes to feed next, `None` when both passes are over.
    pub fn next_read(&self) -> Option<Read> {
        self.pass_reads().next()
    }

    /// The reads left in the current pass, in order: the next pass's come once these are
    /// absorbed.
    pub fn pass_reads(&self) -> impl Iterator<Item = Read> + '_ {
        let start = self.done;
        (0..self.prefix.len.saturating_sub(start).div_ceil(self.chunk)).map(move |i| {
            let at = start + i * self.chunk;
            Read {
                offset: self.prefix.offset + at,
                len: (self.prefix.len - at).min(self.chunk),
            }
        })
    }

    /// Feeds the bytes of the last [`TensorValues::next_read`]. An error for bytes that are
    /// not a whole number of blocks (a short read).
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), DequantError> {
        let Some(read) = self.next_read() else {
            return Err(self.short(bytes.len()));
        };
        let measured = self.measure(read, bytes)?;
        self.absorb(measured);
        if self.done == 0 && self.prefix.len <= self.chunk {
            // One read held it all: the second pass needs no more reading.
            let measured = self.measure(read, bytes)?;
            self.absorb(measured);
        }
        Ok(())
    }

    /// Measures the bytes of `read`, one of [`TensorValues::pass_reads`], for the current pass,
    /// leaving `self` as it is: give the result to [`TensorValues::absorb`], in read order.
    pub fn measure(&self, read: Read, bytes: &[u8]) -> Result<Measured, DequantError> {
        if bytes.len() as u64 != read.len {
            return Err(self.short(bytes.len()));
        }
        let (block_bytes, block_values) = self.block;
        let index = (read.offset - self.prefix.offset) / block_bytes * block_values;
        let mut moments = Moments::new(self.first);
        let mut histogram = self
            .histogram
            .as_ref()
            .map(|(binning, _)| (binning, binning.histogram()));
        let read_values = read.len / block_bytes * block_values;
        let whole = index + read_values <= self.prefix.elements;
        if let Some(blocks) = whole
            .then(|| dequant::scaled_blocks(self.ty, self.endian, bytes))
            .flatten()
        {
            // Measured from the integers, without decoding.
            match &mut histogram {
                None => moments.add_scaled(blocks),
                Some((binning, histogram)) => histogram.add_scaled(binning, blocks),
            }
        } else {
            self.decode_and_measure(bytes, index, &mut moments, &mut histogram)?;
        }
        let part = match histogram {
            None => Part::Moments(moments),
            Some((_, h)) => Part::Histogram(h),
        };
        Ok(Measured { read, part })
    }

    /// Measures `bytes`, whose first value is value `index` of the tensor, decoded a slice at a
    /// time: into `moments` in the first pass, into the histogram in the second.
    fn decode_and_measure(
        &self,
        bytes: &[u8],
        mut index: u64,
        moments: &mut Moments,
        histogram: &mut Option<(&Binning, Histogram)>,
    ) -> Result<(), DequantError> {
        // One buffer for every slice, made (zeroed) once and written over.
        let (block_bytes, block_values) = self.block;
        let values_of = |slice: &[u8]| (slice.len() as u64 / block_bytes * block_values) as usize;
        let mut buffer = vec![0.0; bytes.chunks(self.slice).next().map_or(0, values_of)];
        for slice in bytes.chunks(self.slice) {
            let values = buffer.get_mut(..values_of(slice)).unwrap_or_default();
            (self.dequantize)(self.ty, self.endian, slice, values)?;
            // The prefix's last block may hold more values than it covers.
            let keep = self
                .prefix
                .elements
                .saturating_sub(index)
                .min(values.len() as u64);
            index += keep;
            let values = &values[..keep as usize];
            match histogram {
                None => moments.add(values),
                Some((binning, histogram)) => histogram.add(binning, values),
            }
        }
        Ok(())
    }

    /// Merges what [`TensorValues::measure`] measured of the next read of the pass; the second
    /// pass starts when the first is absorbed whole.
    pub fn absorb(&mut self, measured: Measured) {
        debug_assert_eq!(
            Some(measured.read),
            self.next_read(),
            "reads absorbed out of order"
        );
        self.done += measured.read.len;
        match (&mut self.histogram, measured.part) {
            (Some((_, h)), Part::Histogram(part)) => h.merge(&part),
            (_, Part::Moments(m)) => self.moments.merge(&m),
            (None, Part::Histogram(_)) => {}
        }
        if self.done >= self.prefix.len && self.histogram.is_none() {
            let binning = self.moments.binning(self.bins);
            let histogram = binning.histogram();
            self.histogram = Some((binning, histogram));
            self.done = 0;
        }
    }

    fn short(&self, len: usize) -> DequantError {
        DequantError::PartialBlock {
            ty: self.ty,
            len,
            block_bytes: self.ty.type_size().unwrap_or(1),
        }
    }

    /// The statistics; before both passes are over, of what was fed.
    pub fn finish(self) -> Stats {
        let histogram = match self.histogram {
            Some((_, h)) => h,
            None => self.moments.binning(self.bins).histogram(),
        };
        self.moments.finish(histogram)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

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
        let one_pass = Stats::of(&all, 4, 3);
        assert_eq!(
            (stats.min, stats.max, &stats.histogram),
            (one_pass.min, one_pass.max, &one_pass.histogram)
        );
        assert_eq!(
            (stats.count, stats.zeros, &stats.first),
            (one_pass.count, one_pass.zeros, &one_pass.first)
        );
        let near =
            |a: Option<f64>, b: Option<f64>| (a.unwrap() - b.unwrap()).abs() <= 1e-12 * b.unwrap().abs();
        assert!(near(stats.mean, one_pass.mean) && near(stats.variance, one_pass.variance));

        // Each read measured apart (last first, as a thread might), absorbed in order: the same
        // figures to the bit.
        let mut apart = TensorValues::new(GgmlType::F32, Endian::Little, prefix, 4, 3).unwrap();
        for _pass in 0..2 {
            let reads: Vec<Read> = apart.pass_reads().collect();
            assert_eq!(reads.len(), 3);
            let mut measured: Vec<Measured> = reads
                .iter()
                .rev()
                .map(|r| {
                    apart
                        .measure(*r, &file[r.offset as usize..r.end() as usize])
                        .unwrap()
                })
                .collect();
            measured.reverse();
            for m in measured {
                apart.absorb(m);
            }
        }
        assert_eq!(apart.next_read(), None);
        assert_eq!(apart.finish(), stats);
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
