//! Statistics of decoded tensor values: are the weights sane?
//!
//! In two passes so that a tensor too large to hold decoded can be streamed in chunks:
//! [`Moments`] first (count, min, max, mean, variance, NaN and infinity counts, the first
//! values), then a [`Histogram`] over the range the first pass found. [`Stats::of`] does both
//! over a slice.
//!
//! Mean and variance are over the finite values, accumulated in `f64` with Welford's update
//! (stable where a sum of squares would cancel). The variance is the population variance
//! (divided by n, as numpy's default); the standard deviation is its correctly rounded square
//! root ([`sqrt`], written out because `core` has no `f64::sqrt`).

use alloc::vec::Vec;

/// The first pass: everything but the histogram.
#[derive(Debug, Clone, PartialEq)]
pub struct Moments {
    count: u64,
    finite: u64,
    nan: u64,
    pos_inf: u64,
    neg_inf: u64,
    zeros: u64,
    min: f32,
    max: f32,
    mean: f64,
    m2: f64,
    first: Vec<f32>,
    keep_first: usize,
}

impl Moments {
    /// An empty accumulator that keeps the first `keep_first` values as they are.
    pub fn new(keep_first: usize) -> Moments {
        Moments {
            count: 0,
            finite: 0,
            nan: 0,
            pos_inf: 0,
            neg_inf: 0,
            zeros: 0,
            min: f32::INFINITY,
            max: f32::NEG_INFINITY,
            mean: 0.0,
            m2: 0.0,
            first: Vec::new(),
            keep_first,
        }
    }

    /// Takes the next values, in tensor order.
    pub fn add(&mut self, values: &[f32]) {
        let room = self.keep_first.saturating_sub(self.first.len());
        self.first.extend(values.iter().take(room));
        self.count += values.len() as u64;
        for &v in values {
            if v.is_nan() {
                self.nan += 1;
            } else if v == f32::INFINITY {
                self.pos_inf += 1;
            } else if v == f32::NEG_INFINITY {
                self.neg_inf += 1;
            } else {
                if v == 0.0 {
                    self.zeros += 1;
                }
                self.min = self.min.min(v);
                self.max = self.max.max(v);
                self.finite += 1;
                let x = f64::from(v);
                let delta = x - self.mean;
                self.mean += delta / self.finite as f64;
                self.m2 += delta * (x - self.mean);
            }
        }
    }

    /// An empty histogram of `bins` bins over the finite range seen so far, for the second pass.
    pub fn histogram(&self, bins: usize) -> Histogram {
        let (min, max) = match self.finite {
            0 => (0.0, 0.0),
            _ => (self.min, self.max),
        };
        Histogram {
            min,
            max,
            counts: alloc::vec![0; bins],
        }
    }

    /// The statistics, with the histogram filled by the second pass.
    pub fn finish(self, histogram: Histogram) -> Stats {
        let variance = (self.finite > 0).then(|| self.m2.max(0.0) / self.finite as f64);
        Stats {
            count: self.count,
            nan: self.nan,
            pos_inf: self.pos_inf,
            neg_inf: self.neg_inf,
            zeros: self.zeros,
            min: (self.finite > 0).then_some(self.min),
            max: (self.finite > 0).then_some(self.max),
            mean: (self.finite > 0).then_some(self.mean),
            variance,
            std_dev: variance.map(sqrt),
            first: self.first,
            histogram,
        }
    }
}

/// Counts of finite values in equal-width bins over `[min, max]`: bin `i` holds
/// `min + i·w ≤ v < min + (i+1)·w` with `w = (max - min) / bins`, the last bin also `v = max`.
/// When `min == max` every value is in the first bin.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    /// Lower edge of the first bin.
    pub min: f32,
    /// Upper edge of the last bin.
    pub max: f32,
    /// Values per bin.
    pub counts: Vec<u64>,
}

impl Histogram {
    /// Counts the finite values among `values` (NaN and infinities are counted by [`Moments`]).
    pub fn add(&mut self, values: &[f32]) {
        let bins = self.counts.len();
        let (min, width) = (f64::from(self.min), f64::from(self.max) - f64::from(self.min));
        for &v in values {
            if !v.is_finite() {
                continue;
            }
            let position = if width > 0.0 {
                (f64::from(v) - min) / width
            } else {
                0.0
            };
            // `as` saturates: values outside [min, max] land in the end bins.
            let bin = ((position * bins as f64) as usize).min(bins.saturating_sub(1));
            if let Some(c) = self.counts.get_mut(bin) {
                *c += 1;
            }
        }
    }
}

/// What the values of a tensor look like.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    /// Values, of every kind.
    pub count: u64,
    /// NaN values.
    pub nan: u64,
    /// +∞ values.
    pub pos_inf: u64,
    /// -∞ values.
    pub neg_inf: u64,
    /// Values equal to zero (either sign).
    pub zeros: u64,
    /// Smallest finite value; `None` without finite values.
    pub min: Option<f32>,
    /// Largest finite value.
    pub max: Option<f32>,
    /// Mean of the finite values.
    pub mean: Option<f64>,
    /// Population variance of the finite values.
    pub variance: Option<f64>,
    /// Square root of the variance.
    pub std_dev: Option<f64>,
    /// The first values, in tensor order.
    pub first: Vec<f32>,
    /// Distribution of the finite values.
    pub histogram: Histogram,
}

impl Stats {
    /// Both passes over values held in memory.
    pub fn of(values: &[f32], bins: usize, keep_first: usize) -> Stats {
        let mut moments = Moments::new(keep_first);
        moments.add(values);
        let mut histogram = moments.histogram(bins);
        histogram.add(values);
        moments.finish(histogram)
    }

    /// Whether every value is zero: what a sparse file's unwritten hole, or a zeroed-out
    /// download, decodes to.
    pub fn all_zero(&self) -> bool {
        self.count > 0 && self.zeros == self.count
    }
}

/// The square root of `x`, correctly rounded (as IEEE 754 `sqrt`): computed on integers, from
/// the exact integer square root of the significand scaled to 110 bits. NaN for negative `x`.
pub fn sqrt(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 || x == f64::INFINITY {
        return x;
    }
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    // x = m × 2^e with an integer m.
    let (mut m, mut e) = match biased {
        0 => (u128::from(fraction), -1074),
        _ => (u128::from(fraction | (1 << 52)), biased - 1075),
    };
    if e % 2 != 0 {
        m <<= 1;
        e -= 1;
    }
    // Scale m by an even power of two to 109-110 bits, so its root has 55 bits: 53 kept, one
    // to round with, and the remainder for ties.
    let shift = (110 - (128 - m.leading_zeros() as i32)) & !1;
    let scaled = m << shift;
    let root = isqrt(scaled);
    let exact = root * root == scaled;
    let extra = (128 - root.leading_zeros() as i32) - 53;
    let mut q = root >> extra;
    let rest = root & ((1 << extra) - 1);
    let half = 1u128 << (extra - 1);
    if rest > half || (rest == half && (!exact || q & 1 == 1)) {
        q += 1;
    }
    // √x = root × 2^((e - shift) / 2), and q = root / 2^extra rounded: exact in f64 below 2^54.
    let power = (e - shift) / 2 + extra;
    q as f64 * f64::from_bits(((1023 + power) as u64) << 52)
}

/// ⌊√n⌋ by Newton's method on integers.
fn isqrt(n: u128) -> u128 {
    if n < 2 {
        return n;
    }
    let mut x = 1u128 << (128 - n.leading_zeros()).div_ceil(2);
    loop {
        let y = (x + n / x) / 2;
        if y >= x {
            return x;
        }
        x = y;
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;

    #[test]
    fn small_set_by_hand() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations 9+1+1+1+0+0+4+16 = 32, variance 4.
        let s = Stats::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0], 7, 3);
        assert_eq!((s.count, s.min, s.max), (8, Some(2.0), Some(9.0)));
        assert_eq!((s.mean, s.variance, s.std_dev), (Some(5.0), Some(4.0), Some(2.0)));
        assert_eq!(s.first, [2.0, 4.0, 4.0]);
        // Width 1: [2,3) [3,4) [4,5) [5,6) [6,7) [7,8) [8,9].
        assert_eq!(s.histogram.counts, [1, 0, 3, 2, 0, 1, 1]);
        assert!(!s.all_zero());
    }

    #[test]
    fn nan_and_infinities_are_counted_apart() {
        let s = Stats::of(
            &[f32::NAN, 1.0, f32::INFINITY, -1.0, f32::NEG_INFINITY, f32::NAN],
            2,
            8,
        );
        assert_eq!((s.count, s.nan, s.pos_inf, s.neg_inf), (6, 2, 1, 1));
        assert_eq!(
            (s.min, s.max, s.mean, s.variance),
            (Some(-1.0), Some(1.0), Some(0.0), Some(1.0))
        );
        assert_eq!(s.histogram.counts, [1, 1]);
        assert_eq!(s.first.len(), 6);
        let only_nan = Stats::of(&[f32::NAN], 4, 0);
        assert_eq!(
            (only_nan.min, only_nan.mean, only_nan.std_dev),
            (None, None, None)
        );
        assert_eq!(only_nan.histogram.counts, [0; 4]);
    }

    #[test]
    fn zeros_of_both_signs_make_an_all_zero_tensor() {
        let s = Stats::of(&[0.0, -0.0, 0.0], 3, 0);
        assert!(s.all_zero());
        assert_eq!(
            s.histogram.counts,
            [3, 0, 0],
            "one value: everything in the first bin"
        );
        assert!(!Stats::of(&[], 3, 0).all_zero());
        assert!(!Stats::of(&[0.0, f32::NAN], 3, 0).all_zero());
    }

    #[test]
    fn chunks_give_what_one_slice_gives() {
        let values: Vec<f32> = (0..1000)
            .map(|i| ((i * 7919) % 1009) as f32 / 13.0 - 30.0)
            .collect();
        let whole = Stats::of(&values, 16, 5);
        let mut m = Moments::new(5);
        for c in values.chunks(97) {
            m.add(c);
        }
        let mut h = m.histogram(16);
        for c in values.chunks(13) {
            h.add(c);
        }
        assert_eq!(m.finish(h), whole);
        assert_eq!(whole.histogram.counts.iter().sum::<u64>(), 1000);
    }

    #[test]
    fn welford_is_stable_far_from_zero() {
        // 1e6 + {0, 1, 2, 3}: a sum of squares in f32 would lose this entirely.
        let s = Stats::of(&[1e6, 1e6 + 1.0, 1e6 + 2.0, 1e6 + 3.0], 4, 0);
        assert_eq!(s.mean, Some(1_000_001.5));
        assert_eq!(s.variance, Some(1.25));
    }

    #[test]
    fn sqrt_is_correctly_rounded() {
        let mut x = 0x1234_5678_9abc_def0u64;
        let mut values = alloc::vec![
            2.0,
            1.25,
            4.0,
            1e-300,
            5e-324,
            f64::MIN_POSITIVE,
            f64::MAX,
            0.5,
            3.0,
            1e300,
            123456789.0
        ];
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = f64::from_bits(x & 0x7fff_ffff_ffff_ffff);
            if v.is_finite() {
                values.push(v);
            }
        }
        for v in values {
            assert_eq!(sqrt(v).to_bits(), v.sqrt().to_bits(), "{v:e}");
        }
        assert_eq!(sqrt(4.0), 2.0);
        assert_eq!(sqrt(0.0), 0.0);
        assert_eq!(sqrt(-0.0).to_bits(), (-0.0f64).to_bits());
        assert!(sqrt(-1.0).is_nan());
        assert_eq!(sqrt(f64::INFINITY), f64::INFINITY);
    }
}
