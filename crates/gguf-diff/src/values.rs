//! The error of one tensor's values against another's: [`ValuePairs`] says which bytes of which
//! file it needs next, sans-IO, and decodes both a slice at a time into [`ErrorStats`].

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use gguf_core::read::Read;
use gguf_core::{Endian, GgmlType, Header, TensorInfo};
use gguf_values::dequant::{self, DequantError, DequantizeTo, Prefix};
use gguf_values::stats::sqrt;

use crate::math::log10;

/// The error of B against A (the reference), accumulated over pairs of values in `f64`.
///
/// A pair where either value is NaN or infinite is counted in [`ErrorStats::non_finite`] and left
/// out of every sum (and [`ErrorStats::non_finite_differ`] counts those whose two values are not
/// the same: NaN against NaN, or +∞ against +∞, is the same). The figures are over the finite
/// pairs, and `None` when there are none.
///
/// With the `serde` feature it serializes as its sums, as they are: what carries a measurement
/// from one program to another (the page measures values in one wasm module and writes the
/// document in another); the document's figures are [`crate::json`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ErrorStats {
    n: u64,
    non_finite: u64,
    non_finite_differ: u64,
    /// Σ (b − a)².
    err2: f64,
    /// Σ a².
    a2: f64,
    /// Σ b².
    b2: f64,
    /// Σ a·b.
    ab: f64,
    max_abs: f64,
}

impl ErrorStats {
    /// Adds the pairs `(a[i], b[i])`, for `i` below the shorter length: `f32` values, or `f64`
    /// (an F64 tensor's, kept whole: beyond f32's range they would become infinities).
    pub fn add<T: Copy + Into<f64>>(&mut self, a: &[T], b: &[T]) {
        for (&x, &y) in a.iter().zip(b) {
            let (x, y): (f64, f64) = (x.into(), y.into());
            self.n += 1;
            if !x.is_finite() || !y.is_finite() {
                self.non_finite += 1;
                let same = x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
                self.non_finite_differ += u64::from(!same);
                continue;
            }
            let e = y - x;
            self.err2 += e * e;
            self.a2 += x * x;
            self.b2 += y * y;
            self.ab += x * y;
            if e.abs() > self.max_abs {
                self.max_abs = e.abs();
            }
        }
    }

    /// Adds another accumulator's pairs (a layer's tensors together).
    pub fn merge(&mut self, other: &ErrorStats) {
        self.n += other.n;
        self.non_finite += other.non_finite;
        self.non_finite_differ += other.non_finite_differ;
        self.err2 += other.err2;
        self.a2 += other.a2;
        self.b2 += other.b2;
        self.ab += other.ab;
        self.max_abs = self.max_abs.max(other.max_abs);
    }

    /// Pairs compared.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// Pairs with a NaN or an infinity on either side, left out of the figures.
    pub fn non_finite(&self) -> u64 {
        self.non_finite
    }

    /// Of [`ErrorStats::non_finite`], the pairs whose two values are not the same.
    pub fn non_finite_differ(&self) -> u64 {
        self.non_finite_differ
    }

    fn finite(&self) -> u64 {
        self.n - self.non_finite
    }

    /// Whether every pair is the same value (`0.0` and `-0.0` are): zero error.
    pub fn exact(&self) -> bool {
        self.err2 == 0.0 && self.non_finite_differ == 0
    }

    /// √(Σ (b − a)² / n) over the finite pairs.
    pub fn rmse(&self) -> Option<f64> {
        (self.finite() > 0).then(|| sqrt(self.err2 / self.finite() as f64))
    }

    /// The largest |b − a| over the finite pairs.
    pub fn max_abs(&self) -> Option<f64> {
        (self.finite() > 0).then_some(self.max_abs)
    }

    /// Σ a·b / (‖a‖ ‖b‖), within [−1, 1]. Two all-zero tensors point the same way: 1. One
    /// all-zero tensor has no direction: `None`.
    pub fn cosine(&self) -> Option<f64> {
        if self.finite() == 0 {
            return None;
        }
        match (self.a2 == 0.0, self.b2 == 0.0) {
            (true, true) => Some(1.0),
            (true, false) | (false, true) => None,
            (false, false) => Some((self.ab / (sqrt(self.a2) * sqrt(self.b2))).clamp(-1.0, 1.0)),
        }
    }

    /// 10·log10(Σ a² / Σ (b − a)²), in dB: +∞ when there is no error (the same values), −∞
    /// when A is all zeros and B is not.
    pub fn snr_db(&self) -> Option<f64> {
        if self.finite() == 0 {
            return None;
        }
        Some(match (self.err2 == 0.0, self.a2 == 0.0) {
            (true, _) => f64::INFINITY,
            (false, true) => f64::NEG_INFINITY,
            (false, false) => 10.0 * log10(self.a2 / self.err2),
        })
    }
}

/// Values decoded per step from each file: 4 MiB of `f32` each, whatever the two types.
const STEP_VALUES: u64 = 1 << 20;

/// Which file a read is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// The reference.
    A,
    /// The file compared with it.
    B,
}

/// One tensor's values in one file: its type, the file's byte order and where its bytes lie.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Side {
    ty: GgmlType,
    endian: Endian,
    prefix: Prefix,
}

impl Side {
    /// `tensor` of `header` (for a split model, the header of the shard holding it). An error
    /// for a type that cannot be decoded, a bad shape, or data past the end of the file.
    pub fn new(header: &Header, tensor: &TensorInfo) -> Result<Side, DequantError> {
        if !dequant::is_supported(tensor.ty) {
            return Err(DequantError::Unsupported { ty: tensor.ty });
        }
        Side::of(tensor.ty, header.endian, dequant::prefix(header, tensor, None)?)
    }

    /// The values of type `ty`, in a file of byte order `endian`, that `prefix` (the tensor's
    /// whole [`dequant::prefix`]) locates: a side made apart from its header (the page finds
    /// the bytes in one wasm module and compares them in another). An error for a type that
    /// cannot be decoded.
    pub fn of(ty: GgmlType, endian: Endian, prefix: Prefix) -> Result<Side, DequantError> {
        if !dequant::is_supported(ty) {
            return Err(DequantError::Unsupported { ty });
        }
        Ok(Side { ty, endian, prefix })
    }

    /// Where the values' bytes are: the tensor's [`dequant::prefix`].
    pub fn prefix(&self) -> Prefix {
        self.prefix
    }

    /// The values' type.
    pub fn ty(&self) -> GgmlType {
        self.ty
    }

    /// The file's byte order.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// Values per block; every supported type has a block size.
    fn block_len(&self) -> u64 {
        self.ty.block_size().map_or(1, u64::from).max(1)
    }

    /// Values held by `bytes` bytes (a whole number of blocks).
    fn values(&self, bytes: u64) -> u64 {
        bytes / self.ty.type_size().map_or(1, u64::from).max(1) * self.block_len()
    }

    /// Bytes holding `values` values (a whole number of blocks).
    fn bytes(&self, values: u64) -> u64 {
        values / self.block_len() * self.ty.type_size().map_or(0, u64::from)
    }
}

/// Two tensors of the same number of values, compared in steps: a step's bytes of A, then the
/// same values' bytes of B, decoded and added to the [`ErrorStats`]. Each file's bytes are read
/// once, in order, a step at a time, so memory stays bounded (about 16 MiB) whatever the sizes.
#[derive(Debug)]
pub struct ValuePairs {
    a: Side,
    b: Side,
    /// Values per step: a multiple of both block sizes.
    step: u64,
    /// Values compared so far.
    done: u64,
    /// A's values of the current step, decoded, waiting for B's.
    a_values: Vec<f64>,
    b_values: Vec<f64>,
    /// A step's values as the dequantizer writes them, before they are widened.
    decoded: Vec<f32>,
    a_fed: bool,
    stats: ErrorStats,
    /// What decodes the blocks: gguf-values' baseline dequantizer, or a build of it for wider vectors.
    dequantize: DequantizeTo,
}

impl ValuePairs {
    /// Compares A's values with B's; `None` when they hold different numbers of values.
    pub fn new(a: Side, b: Side) -> Option<ValuePairs> {
        if a.prefix.elements != b.prefix.elements {
            return None;
        }
        let block = lcm(a.block_len(), b.block_len());
        Some(ValuePairs {
            a,
            b,
            step: (STEP_VALUES / block).max(1) * block,
            done: 0,
            a_values: Vec::new(),
            b_values: Vec::new(),
            decoded: Vec::new(),
            a_fed: false,
            stats: ErrorStats::default(),
            dequantize: dequant::dequantize_to,
        })
    }

    /// Decodes with `dequantize` instead of [`dequant::dequantize_to`]: one
    /// that gives the same values faster on this CPU (the CLI's
    /// `gguf_values::avx2::dequantize_to`).
    pub fn with_dequantizer(mut self, dequantize: DequantizeTo) -> ValuePairs {
        self.dequantize = dequantize;
        self
    }

    /// The values of the current step.
    fn step_values(&self) -> u64 {
        (self.a.prefix.elements - self.done).min(self.step)
    }

    /// Which file's bytes to feed next, `None` when every value is compared.
    pub fn next_read(&self) -> Option<(Which, Read)> {
        let values = self.step_values();
        if values == 0 {
            return None;
        }
        let side = if self.a_fed { &self.b } else { &self.a };
        let read = Read {
            offset: side.prefix.offset + side.bytes(self.done),
            len: side.bytes(values),
        };
        Some((if self.a_fed { Which::B } else { Which::A }, read))
    }

    /// Feeds the bytes of the last [`ValuePairs::next_read`]. An error for bytes of another
    /// length (a short read).
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), DequantError> {
        let Some((which, read)) = self.next_read() else {
            return Ok(());
        };
        let side = if which == Which::A { self.a } else { self.b };
        if bytes.len() as u64 != read.len {
            return Err(DequantError::PartialBlock {
                ty: side.ty,
                len: bytes.len(),
                block_bytes: side.ty.type_size().unwrap_or(1),
            });
        }
        let out = if which == Which::A {
            &mut self.a_values
        } else {
            &mut self.b_values
        };
        // Made (zeroed) once for a step's length and written over; a shorter last step shrinks it.
        let n = side.values(read.len) as usize;
        out.clear();
        if side.ty == GgmlType::F64 {
            // Read as they are: the dequantizers give f32, which has not F64's range.
            let values = bytes
                .chunks_exact(8)
                .map(|b| side.endian.f64(b.try_into().unwrap_or([0; 8])));
            out.extend(values);
        } else {
            self.decoded.resize(n, 0.0);
            (self.dequantize)(side.ty, side.endian, bytes, &mut self.decoded)?;
            out.extend(self.decoded.iter().map(|&v| f64::from(v)));
        }
        match which {
            Which::A => self.a_fed = true,
            Which::B => {
                self.stats.add(&self.a_values, &self.b_values);
                self.done += self.step_values();
                self.a_fed = false;
            }
        }
        Ok(())
    }

    /// The error over the values compared so far.
    pub fn finish(self) -> ErrorStats {
        self.stats
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn lcm(a: u64, b: u64) -> u64 {
    a / gcd(a, b).max(1) * b
}

/// One pair of tensors compared: their indexes in A's and B's headers, and the error of B's values.
#[derive(Debug, Clone)]
pub struct Measured {
    /// The tensor's index in A's header.
    pub a: usize,
    /// Its index in B's header.
    pub b: usize,
    /// The error of B's values against A's.
    pub stats: ErrorStats,
}

/// The errors summed by layer (`blk.N`, ascending; then the tensors outside any layer, `None`):
/// `(layer, tensors, error)`. `a` is A's header.
pub fn layers(measured: &[Measured], a: &Header) -> Vec<(Option<u64>, usize, ErrorStats)> {
    let mut by_layer: BTreeMap<(bool, Option<u64>), (usize, ErrorStats)> = BTreeMap::new();
    for m in measured {
        let layer = a.tensors[m.a].layer();
        let (count, stats) = by_layer.entry((layer.is_none(), layer)).or_default();
        *count += 1;
        stats.merge(&m.stats);
    }
    by_layer
        .into_iter()
        .map(|((_, layer), (count, stats))| (layer, count, stats))
        .collect()
}
