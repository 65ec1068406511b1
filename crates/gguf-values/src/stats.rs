//! Statistics of decoded tensor values: are the weights sane?
//!
//! In two passes so that a tensor too large to hold decoded can be streamed in chunks:
//! [`Moments`] first (count, min, max, mean, variance, NaN and infinity counts, the first
//! values), then a [`Histogram`] over the range the first pass found, its bins laid out once by
//! a [`Binning`]. [`Stats::of`] does both over a slice. Both merge, so that parts of a tensor can
//! be measured apart (on other threads) and put together in order.
//!
//! Scaled blocks (`Q8_0`, whose values are a scale times small integers) are measured from
//! their integers, without decoding: `add_scaled` gives what `add` gives of the decoded values,
//! but for rounding in the last bits of mean and variance.
//!
//! Mean and variance are over the finite values, in `f64`: each group of [`GROUP`] values gets
//! its mean and its sum of squared deviations from that mean (two looks at values still in
//! cache, in independent lanes the compiler vectorizes), and groups merge by Chan's pairwise
//! update — stable where a sum of squares would cancel, without a running mean's division per
//! value. The variance is the population variance (divided by n, as numpy's default); the
//! standard deviation is its correctly rounded square root ([`sqrt`], written out because
//! `core` has no `f64::sqrt`).

use alloc::vec::Vec;

use crate::dequant::ScaledBlock;

/// Values per group of the first pass: 4 KiB, still in L1 for the group's second look.
pub const GROUP: usize = 1024;
/// Independent accumulators per loop, so that adds and compares do not wait on each other.
const LANES: usize = 8;

/// The first pass: everything but the histogram.
#[derive(Debug, Clone, PartialEq)]
pub struct Moments {
    count: u64,
    nan: u64,
    pos_inf: u64,
    neg_inf: u64,
    first: Vec<f32>,
    keep_first: usize,
    finite: Finite,
}

/// What the finite values of a run of values add up to.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Finite {
    n: u64,
    zeros: u64,
    min: f32,
    max: f32,
    mean: f64,
    /// Sum of squared deviations from `mean`.
    m2: f64,
}

impl Finite {
    const EMPTY: Finite = Finite {
        n: 0,
        zeros: 0,
        min: f32::INFINITY,
        max: f32::NEG_INFINITY,
        mean: 0.0,
        m2: 0.0,
    };

    /// Values that are all finite: min, max, zeros and the sum in one look, the squared
    /// deviations from their mean in a second.
    fn of(values: &[f32]) -> Finite {
        if values.is_empty() {
            return Finite::EMPTY;
        }
        let (mut min, mut max) = ([f32::INFINITY; LANES], [f32::NEG_INFINITY; LANES]);
        // u32 lanes: a group holds at most GROUP values.
        let (mut sum, mut zeros) = ([0f64; LANES], [0u32; LANES]);
        let lanes = values.chunks_exact(LANES);
        let rest = lanes.remainder();
        for chunk in lanes {
            for i in 0..LANES {
                let v = chunk[i];
                min[i] = if v < min[i] { v } else { min[i] };
                max[i] = if v > max[i] { v } else { max[i] };
                sum[i] += f64::from(v);
                zeros[i] += u32::from(v == 0.0);
            }
        }
        for (i, &v) in rest.iter().enumerate() {
            min[i] = if v < min[i] { v } else { min[i] };
            max[i] = if v > max[i] { v } else { max[i] };
            sum[i] += f64::from(v);
            zeros[i] += u32::from(v == 0.0);
        }
        let n = values.len() as u64;
        let mean = sum.iter().sum::<f64>() / n as f64;
        let mut m2 = [0f64; LANES];
        for chunk in values.chunks_exact(LANES) {
            for i in 0..LANES {
                let d = f64::from(chunk[i]) - mean;
                m2[i] += d * d;
            }
        }
        for (i, &v) in rest.iter().enumerate() {
            let d = f64::from(v) - mean;
            m2[i] += d * d;
        }
        Finite {
            n,
            zeros: zeros.iter().map(|&z| u64::from(z)).sum(),
            min: min.iter().copied().fold(f32::INFINITY, f32::min),
            max: max.iter().copied().fold(f32::NEG_INFINITY, f32::max),
            mean,
            m2: m2.iter().sum(),
        }
    }

    /// Blocks of 32 finite values: their sums make the group's mean, and their squared
    /// deviations plus their means' from it make the group's.
    fn of_scaled(blocks: &[ScaledFigures]) -> Finite {
        if blocks.is_empty() {
            return Finite::EMPTY;
        }
        let n = 32 * blocks.len() as u64;
        let mean = blocks.iter().map(|b| b.sum).sum::<f64>() / n as f64;
        let m2 = blocks
            .iter()
            .map(|b| {
                let d = b.sum / 32.0 - mean;
                b.m2 + 32.0 * d * d
            })
            .sum();
        Finite {
            n,
            zeros: blocks.iter().map(|b| b.zeros).sum(),
            min: blocks.iter().map(|b| b.min).fold(f32::INFINITY, f32::min),
            max: blocks.iter().map(|b| b.max).fold(f32::NEG_INFINITY, f32::max),
            mean,
            m2,
        }
    }

    /// `self` then `later`, by Chan, Golub and LeVeque's pairwise update.
    fn merge(&mut self, later: &Finite) {
        if later.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *later;
            return;
        }
        let n = self.n + later.n;
        let delta = later.mean - self.mean;
        let (a, b, total) = (self.n as f64, later.n as f64, n as f64);
        self.mean += delta * (b / total);
        self.m2 += later.m2 + delta * delta * (a * (b / total));
        self.n = n;
        self.zeros += later.zeros;
        self.min = self.min.min(later.min);
        self.max = self.max.max(later.max);
    }
}

/// A scaled block's figures, from its integers.
#[derive(Debug, Clone, Copy)]
struct ScaledFigures {
    zeros: u64,
    min: f32,
    max: f32,
    /// `d Σq`: the block's sum, exact.
    sum: f64,
    /// The block's squared deviations from its mean, exact.
    m2: f64,
}

impl ScaledFigures {
    const EMPTY: ScaledFigures = ScaledFigures {
        zeros: 0,
        min: 0.0,
        max: 0.0,
        sum: 0.0,
        m2: 0.0,
    };

    /// The figures of a block with a finite scale. The integers' extremes are taken as bytes
    /// with the sign bit flipped (their order as unsigned), which vector units compare directly.
    fn of(block: ScaledBlock<'_>) -> ScaledFigures {
        let (mut sum, mut squares, mut zeros) = (0i32, 0i32, 0u32);
        let (mut low, mut high) = (u8::MAX, u8::MIN);
        for &q in block.ints {
            // |q| ≤ 128, so q² fits in 16 bits: vector units multiply those directly.
            let v = i16::from(q as i8);
            sum += i32::from(v);
            squares += i32::from(v * v);
            zeros += u32::from(q == 0);
            low = low.min(q ^ 0x80);
            high = high.max(q ^ 0x80);
        }
        let d = block.scale;
        let (low, high) = (
            f32::from((low ^ 0x80) as i8) * d,
            f32::from((high ^ 0x80) as i8) * d,
        );
        let d64 = f64::from(d);
        ScaledFigures {
            zeros: if d == 0.0 { 32 } else { u64::from(zeros) },
            min: if d < 0.0 { high } else { low },
            max: if d < 0.0 { low } else { high },
            sum: d64 * f64::from(sum),
            m2: d64 * d64 * f64::from(32 * squares - sum * sum) / 32.0,
        }
    }
}

impl Moments {
    /// An empty accumulator that keeps the first `keep_first` values as they are.
    pub fn new(keep_first: usize) -> Moments {
        Moments {
            count: 0,
            nan: 0,
            pos_inf: 0,
            neg_inf: 0,
            first: Vec::new(),
            keep_first,
            finite: Finite::EMPTY,
        }
    }

    /// Takes the next values, in tensor order, a [`GROUP`] at a time.
    pub fn add(&mut self, values: &[f32]) {
        let room = self.keep_first.saturating_sub(self.first.len());
        self.first.extend(values.iter().take(room));
        self.count += values.len() as u64;
        for group in values.chunks(GROUP) {
            // Counted without stopping early, so that the check runs in vector lanes.
            let non_finite = group.iter().filter(|v| !v.is_finite()).count();
            let finite = if non_finite == 0 {
                Finite::of(group)
            } else {
                let mut finite = [0f32; GROUP];
                let mut n = 0;
                for &v in group {
                    if v.is_finite() {
                        finite[n] = v;
                        n += 1;
                    } else if v.is_nan() {
                        self.nan += 1;
                    } else if v > 0.0 {
                        self.pos_inf += 1;
                    } else {
                        self.neg_inf += 1;
                    }
                }
                Finite::of(&finite[..n])
            };
            self.finite.merge(&finite);
        }
    }

    /// Takes the next values, in tensor order, as scaled blocks. A block's mean and squared
    /// deviations come exact from its integers (`d Σq / 32` and `d² (32 Σq² - (Σq)²) / 32`,
    /// at most 46 bits); up to 32 blocks make a group as [`GROUP`] values would, and groups
    /// merge as they do. What [`Moments::add`] of the decoded values gives, but for rounding in
    /// the last bits of mean and variance.
    pub fn add_scaled<'a>(&mut self, blocks: impl Iterator<Item = ScaledBlock<'a>>) {
        const BLOCKS: usize = GROUP / 32;
        let mut group = [ScaledFigures::EMPTY; BLOCKS];
        let mut len = 0;
        for block in blocks {
            if !block.scale.is_finite() || self.first.len() < self.keep_first {
                self.finite.merge(&Finite::of_scaled(&group[..len]));
                len = 0;
                self.add(&block.values());
                continue;
            }
            group[len] = ScaledFigures::of(block);
            len += 1;
            self.count += 32;
            if len == BLOCKS {
                self.finite.merge(&Finite::of_scaled(&group));
                len = 0;
            }
        }
        self.finite.merge(&Finite::of_scaled(&group[..len]));
    }

    /// Takes what `later` measured of the values that follow this one's.
    pub fn merge(&mut self, later: &Moments) {
        let room = self.keep_first.saturating_sub(self.first.len());
        self.first.extend(later.first.iter().take(room));
        self.count += later.count;
        self.nan += later.nan;
        self.pos_inf += later.pos_inf;
        self.neg_inf += later.neg_inf;
        self.finite.merge(&later.finite);
    }

    /// The bins of a histogram of `bins` bins over the finite range seen so far, for the
    /// second pass.
    pub fn binning(&self, bins: usize) -> Binning {
        match self.finite.n {
            0 => Binning::new(0.0, 0.0, bins),
            _ => Binning::new(self.finite.min, self.finite.max, bins),
        }
    }

    /// The statistics, with the histogram filled by the second pass.
    pub fn finish(self, histogram: Histogram) -> Stats {
        let f = self.finite;
        let some = f.n > 0;
        let variance = some.then(|| f.m2.max(0.0) / f.n as f64);
        Stats {
            count: self.count,
            nan: self.nan,
            pos_inf: self.pos_inf,
            neg_inf: self.neg_inf,
            zeros: f.zeros,
            min: some.then_some(f.min),
            max: some.then_some(f.max),
            mean: some.then_some(f.mean),
            variance,
            std_dev: variance.map(sqrt),
            first: self.first,
            histogram,
        }
    }
}

/// Counts of finite values in equal-width bins over `[min, max]`, as a [`Binning`] puts them.
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
    /// Counts the finite values among `values` (NaN and infinities are counted by [`Moments`])
    /// in the bins of `binning`, the binning this histogram was made by.
    ///
    /// A value's bin is looked up by the top 16 bits of its bits in sortable order: a table
    /// entry answers for the 65,536 values under it when no edge falls among them (nearly every
    /// entry, and nearly every value); otherwise the value is compared with the edges. The
    /// lookups of a block come first and the counts after, in eight interleaved sets of
    /// counters, so that a count never waits on the lookup, nor on the count before it.
    pub fn add(&mut self, binning: &Binning, values: &[f32]) {
        const BLOCK: usize = 256;
        const SETS: usize = 8;
        debug_assert_eq!(
            (self.min, self.max, self.counts.len()),
            (binning.min, binning.max, binning.bins)
        );
        let bins = self.counts.len();
        if bins == 0 {
            return;
        }
        // One more counter per set, where the non-finite values go.
        let row = bins + 1;
        let mut counts = alloc::vec![0u64; row * SETS];
        let mut looked_up = [0u8; BLOCK];
        for block in values.chunks(BLOCK) {
            for (entry, &v) in looked_up.iter_mut().zip(block) {
                *entry = binning.table[(key(v) >> 16) as usize];
            }
            for (i, (&entry, &v)) in looked_up.iter().zip(block).enumerate() {
                let bin = match entry {
                    Binning::COMPARE => binning.slot(v),
                    bin => usize::from(bin),
                };
                counts[(i % SETS) * row + bin] += 1;
            }
        }
        for set in counts.chunks_exact(row) {
            self.add_counts(&set[..bins]);
        }
    }

    /// Counts the values of scaled blocks, as [`Histogram::add`] counts them decoded. The 256
    /// values of one scale (`scale × q`) rise with `q` (fall, for a negative scale), so their
    /// bins are a few runs of `q`: each scale met gets the `q` where each run starts, and a
    /// block is counted by comparing its integers with those — a handful of vector compares,
    /// where putting each value in its bin would make 32 dependent increments, mostly of the
    /// same two counters.
    pub fn add_scaled<'a>(&mut self, binning: &Binning, blocks: impl Iterator<Item = ScaledBlock<'a>>) {
        /// Scales kept at once; past that they are worked out anew.
        const KEPT: usize = 4096;
        const NONE: u32 = u32::MAX;
        let bins = self.counts.len();
        if bins == 0 {
            return;
        }
        // Counts per bin, as signed sums: a step moves values from one bin to the next.
        let mut counts = alloc::vec![0i64; bins];
        let mut by_scale = alloc::vec![NONE; 1 << 16];
        let mut kept: Vec<Steps> = Vec::new();
        for block in blocks {
            if !block.scale.is_finite() {
                self.add(binning, &block.values());
                continue;
            }
            let mut at = by_scale[usize::from(block.scale_bits)];
            if at == NONE {
                if kept.len() == KEPT {
                    kept.clear();
                    by_scale.fill(NONE);
                }
                at = kept.len() as u32;
                by_scale[usize::from(block.scale_bits)] = at;
                kept.push(binning.steps(block.scale));
            }
            let steps = &kept[at as usize];
            counts[steps.first] += 32;
            for (bin, &threshold) in (steps.first..).zip(&steps.thresholds) {
                // `q ≥ t`, or `q ≤ t` for a negative scale, as `(q ^ flip) ≥ t`.
                let above = block
                    .ints
                    .iter()
                    .filter(|&&q| ((q ^ steps.flip) as i8) >= threshold)
                    .count() as i64;
                counts[bin] -= above;
                counts[bin + 1] += above;
            }
        }
        for (total, &c) in self.counts.iter_mut().zip(&counts) {
            // Every bin's sum is a count of values: never negative.
            *total += c as u64;
        }
    }

    /// Takes the counts of `other`, a histogram over the same bins of other values.
    pub fn merge(&mut self, other: &Histogram) {
        self.add_counts(&other.counts);
    }

    fn add_counts(&mut self, counts: &[u64]) {
        for (total, c) in self.counts.iter_mut().zip(counts) {
            *total += c;
        }
    }
}

/// Equal-width bins over `[min, max]`: bin `i` holds `min + i·w ≤ v < min + (i+1)·w` with
/// `w = (max - min) / bins`, the last bin also `v = max` ([`Binning::bin`] is the exact rule).
/// When `min == max` every value is in the first bin.
///
/// The rule's edges are worked out once, and from them a table by the top bits of a value, so that
/// [`Histogram::add`] puts a value in its bin without arithmetic.
#[derive(Clone)]
pub struct Binning {
    min: f32,
    max: f32,
    bins: usize,
    /// The smallest finite value of each bin after the first (`+∞` for a bin no finite value
    /// reaches), so that a finite value's bin is the number of these at or below it.
    edges: Vec<f32>,
    /// By the top 16 bits of a [`key`]: the bin of every value under that prefix,
    /// [`Binning::COMPARE`] when an edge falls among them, `bins` when they are not finite.
    table: Vec<u8>,
}

impl core::fmt::Debug for Binning {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Binning")
            .field("min", &self.min)
            .field("max", &self.max)
            .field("bins", &self.bins)
            .finish_non_exhaustive()
    }
}

impl Binning {
    /// The table entry that sends values to be compared with the edges. Every entry is this
    /// when there are too many bins for a byte.
    const COMPARE: u8 = u8::MAX;

    /// `bins` bins over `[min, max]`.
    pub fn new(min: f32, max: f32, bins: usize) -> Binning {
        let mut binning = Binning {
            min,
            max,
            bins,
            edges: Vec::new(),
            table: alloc::vec![Binning::COMPARE; 1 << 16],
        };
        binning.edges = (1..bins).map(|i| binning.edge(i)).collect();
        let skip = match u8::try_from(bins) {
            Ok(skip) if skip != Binning::COMPARE => skip,
            _ => return binning,
        };
        let edge_keys: Vec<u32> = binning.edges.iter().map(|&e| key(e)).collect();
        // Edges at or below the current prefix's first value: a finite value's bin counts the
        // edges at or below it, and keys are in the order of the values (with -0 below 0,
        // which no edge separates: both are in the same bin).
        let mut below = 0;
        for (prefix, entry) in (0u32..).zip(binning.table.iter_mut()) {
            let (first, last) = (prefix << 16, (prefix << 16) | 0xffff);
            // A prefix holds only finite values or none: the infinities end their runs.
            if !unkey(first).is_finite() {
                *entry = skip;
                continue;
            }
            while edge_keys.get(below).is_some_and(|&k| k <= first) {
                below += 1;
            }
            if edge_keys.get(below).is_none_or(|&k| k > last) {
                // Fewer than `bins` edges, so it fits in a byte.
                *entry = below as u8;
            }
        }
        binning
    }

    /// An empty histogram over these bins.
    pub fn histogram(&self) -> Histogram {
        Histogram {
            min: self.min,
            max: self.max,
            counts: alloc::vec![0; self.bins],
        }
    }

    /// The bin of the finite value `v`, computed in `f64`; values outside `[min, max]` land in
    /// the end bins. It never falls as `v` rises, which the edges rely on.
    pub fn bin(&self, v: f32) -> usize {
        let bins = self.bins;
        let (min, width) = (f64::from(self.min), f64::from(self.max) - f64::from(self.min));
        let position = if width > 0.0 {
            (f64::from(v) - min) / width
        } else {
            0.0
        };
        // `as` saturates.
        ((position * bins as f64) as usize).min(bins.saturating_sub(1))
    }

    /// Where [`Histogram::add`] counts `v`: its bin by the edges, or `bins` for a value that
    /// is not finite.
    fn slot(&self, v: f32) -> usize {
        if v.is_finite() {
            self.edges.partition_point(|&e| e <= v)
        } else {
            self.bins
        }
    }

    /// The bins of the values `scale × q` (a finite scale), walking the edges once in the
    /// order of the values.
    fn steps(&self, scale: f32) -> Steps {
        // The values rise with `q ^ flip` read as a signed byte: `q`, or `!q` (= -1 - q) for a
        // negative scale.
        let flip = if scale < 0.0 { 0xff } else { 0 };
        let value = |key: i8| f32::from((key as u8 ^ flip) as i8) * scale;
        let first = self.slot(value(i8::MIN));
        let mut thresholds = Vec::new();
        let mut slot = first;
        for key in i8::MIN..=i8::MAX {
            let v = value(key);
            while self.edges.get(slot).is_some_and(|&e| e <= v) {
                thresholds.push(key);
                slot += 1;
            }
        }
        Steps {
            first,
            flip,
            thresholds,
        }
    }

    /// The smallest finite value in bin `i` or above, by bisection over the `f32`s in order;
    /// `+∞` when no finite value reaches bin `i`.
    fn edge(&self, i: usize) -> f32 {
        let (mut lo, mut hi) = (key(-f32::MAX), key(f32::MAX));
        if self.bin(unkey(hi)) < i {
            return f32::INFINITY;
        }
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.bin(unkey(mid)) >= i {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        unkey(lo)
    }
}

/// The bins of the 256 values of one scale: the lowest value's bin, then for each bin after it
/// the first integer in it, in the order of the values.
struct Steps {
    first: usize,
    /// `0xff` for a negative scale, whose values rise as `q` falls.
    flip: u8,
    thresholds: Vec<i8>,
}

/// An `f32` as an unsigned integer in the same order: `-∞ < … < -0 < 0 < … < +∞`, the NaNs
/// of either sign beyond the infinities.
fn key(v: f32) -> u32 {
    let bits = v.to_bits();
    if bits >> 31 == 1 { !bits } else { bits | 1 << 31 }
}

/// The `f32` of a [`key`].
fn unkey(key: u32) -> f32 {
    f32::from_bits(if key >> 31 == 1 { key & !(1 << 31) } else { !key })
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
        let binning = moments.binning(bins);
        let mut histogram = binning.histogram();
        histogram.add(&binning, values);
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

/// Stats serialize as the report's [`TensorStats`](gguf_core::report::view::TensorStats)
/// (`ggufscope tensor --json`'s `stats`), the document its schema describes.
#[cfg(feature = "serde")]
impl serde::Serialize for Stats {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use gguf_core::report::Float;
        use gguf_core::report::view::{Histogram, TensorStats};
        let float = |v: f32| Float(f64::from(v));
        TensorStats {
            count: self.count,
            nan: self.nan,
            pos_inf: self.pos_inf,
            neg_inf: self.neg_inf,
            zeros: self.zeros,
            all_zero: self.all_zero(),
            min: self.min.map(float),
            max: self.max.map(float),
            mean: self.mean.map(Float),
            variance: self.variance.map(Float),
            std_dev: self.std_dev.map(Float),
            first: self.first.iter().copied().map(float).collect(),
            histogram: Histogram {
                min: float(self.histogram.min),
                max: float(self.histogram.max),
                counts: &self.histogram.counts,
            },
        }
        .serialize(s)
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

    /// Whether two measurements agree: exactly, but for the last bits of mean and variance.
    fn assert_close(a: &Stats, b: &Stats) {
        let near = |x: Option<f64>, y: Option<f64>| match (x, y) {
            (Some(x), Some(y)) => (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1e-300),
            (x, y) => x == y,
        };
        assert!(near(a.mean, b.mean), "{:?} {:?}", a.mean, b.mean);
        assert!(near(a.variance, b.variance), "{:?} {:?}", a.variance, b.variance);
        let exact = |s: &Stats| {
            (
                s.count,
                s.nan,
                s.pos_inf,
                s.neg_inf,
                s.zeros,
                s.min,
                s.max,
                s.first.clone(),
                s.histogram.clone(),
            )
        };
        assert_eq!(exact(a), exact(b));
    }

    /// Values of many magnitudes and signs, some zero, some repeated, from a fixed seed.
    fn mixed(n: usize) -> Vec<f32> {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                match i % 7 {
                    0 => 0.0,
                    1 => (x % 1000) as f32 / 7.0 - 60.0,
                    _ => (x as i32) as f32 * 1e-9,
                }
            })
            .collect()
    }

    #[test]
    fn chunks_and_merged_parts_give_what_one_slice_gives() {
        let mut values = mixed(10_000);
        values[5000] = f32::NAN;
        values[7777] = f32::NEG_INFINITY;
        let whole = Stats::of(&values, 16, 5);
        let mut m = Moments::new(5);
        for c in values.chunks(97) {
            m.add(c);
        }
        let binning = m.binning(16);
        let mut h = binning.histogram();
        for c in values.chunks(13) {
            h.add(&binning, c);
        }
        assert_close(&m.finish(h), &whole);
        assert_eq!(whole.histogram.counts.iter().sum::<u64>(), 9998);
        assert_eq!((whole.nan, whole.neg_inf), (1, 1));

        // Parts measured apart, as threads do, then merged in order.
        let parts: Vec<&[f32]> = values.chunks(3001).collect();
        let mut merged = Moments::new(5);
        for part in &parts {
            let mut m = Moments::new(5);
            m.add(part);
            merged.merge(&m);
        }
        let binning = merged.binning(16);
        let mut histogram = binning.histogram();
        for part in &parts {
            let mut h = binning.histogram();
            h.add(&binning, part);
            histogram.merge(&h);
        }
        assert_close(&merged.finish(histogram), &whole);
    }

    #[test]
    fn mean_and_variance_match_a_two_pass_sum_in_f64() {
        let values = mixed(50_000);
        let s = Stats::of(&values, 4, 0);
        let n = values.len() as f64;
        let mean = values.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
        let variance = values.iter().map(|&v| (f64::from(v) - mean).powi(2)).sum::<f64>() / n;
        assert!((s.mean.unwrap() - mean).abs() < 1e-12 * mean.abs());
        assert!((s.variance.unwrap() - variance).abs() < 1e-12 * variance);
        assert_eq!(s.zeros, values.iter().filter(|&&v| v == 0.0).count() as u64);
    }

    #[test]
    fn variance_is_stable_far_from_zero() {
        // 1e6 + {0, 1, 2, 3}: a sum of squares in f32 would lose this entirely.
        let s = Stats::of(&[1e6, 1e6 + 1.0, 1e6 + 2.0, 1e6 + 3.0], 4, 0);
        assert_eq!(s.mean, Some(1_000_001.5));
        assert_eq!(s.variance, Some(1.25));
        // The same over groups merged: 3,000 values 1e6 + (i mod 4).
        let many: Vec<f32> = (0..3000).map(|i| 1e6 + (i % 4) as f32).collect();
        let s = Stats::of(&many, 4, 0);
        assert_eq!(s.mean, Some(1_000_001.5));
        assert!((s.variance.unwrap() - 1.25).abs() < 1e-9, "{:?}", s.variance);
    }

    #[test]
    fn every_value_lands_in_the_bin_the_rule_gives() {
        // Ranges narrow and wide, values on and beside every edge, outside the range, and of
        // every bit pattern (so under every table entry, NaNs of both signs among them); bins
        // that fit the table and bins that do not.
        let ranges = [
            (-0.937443, 0.925816),
            (0.0, 1.0),
            (-3.0, 3.0),
            (1e-30, 3e-30),
            (-f32::MAX, f32::MAX),
            (5.0, 5.0),
            (-0.0, 0.0),
        ];
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let any_bits: Vec<f32> = (0..20_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                f32::from_bits(x as u32)
            })
            .collect();
        for (min, max) in ranges {
            for bins in [1, 3, 20, 64, 254, 255, 300] {
                let binning = Binning::new(min, max, bins);
                let mut values = mixed(3000);
                values.extend(&any_bits);
                values.extend([min, max, -f32::MAX, f32::MAX, 0.0, -0.0, f32::MIN_POSITIVE]);
                values.extend([f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY]);
                for &e in &binning.edges {
                    if e.is_finite() {
                        values.extend([
                            e,
                            f32::from_bits(e.to_bits().wrapping_sub(1)),
                            f32::from_bits(e.to_bits().wrapping_add(1)),
                        ]);
                    }
                }
                let step = (f64::from(max) - f64::from(min)) / bins as f64;
                values.extend((0..=bins).map(|i| (f64::from(min) + step * i as f64) as f32));
                let mut expected = alloc::vec![0u64; bins];
                for &v in values.iter().filter(|v| v.is_finite()) {
                    expected[binning.bin(v)] += 1;
                }
                let mut h = binning.histogram();
                h.add(&binning, &values);
                assert_eq!(h.counts, expected, "[{min}, {max}] in {bins}");
            }
        }
    }

    #[test]
    fn the_table_answers_for_nearly_every_value() {
        // Otherwise the histogram would be exact but slow: every value compared with the edges.
        let binning = Binning::new(-0.25, 0.25, 20);
        let compared = mixed(100_000)
            .iter()
            .filter(|&&v| binning.table[(key(v) >> 16) as usize] == Binning::COMPARE)
            .count();
        assert!(compared < 1_000, "{compared} of 100,000 values compared");
        // At most one entry per edge: 0.125 = 2^-3 starts its prefix, which is then whole.
        let entries = binning.table.iter().filter(|&&e| e == Binning::COMPARE).count();
        assert_eq!(entries, 18);
    }

    /// Q8_0 blocks, in both byte orders, with scales of every kind: positive and negative,
    /// both zeros, subnormal, the largest, infinite and NaN — among ordinary ones.
    fn q8_0_blocks(blocks: usize) -> [Vec<u8>; 2] {
        let special = [
            0x0000, 0x8000, 0x0001, 0x83ff, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00,
        ];
        let mut x = 0x0123_4567_89ab_cdefu64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut little, mut big) = (Vec::new(), Vec::new());
        for i in 0..blocks {
            let r = next();
            // Mostly scales near 0.001–0.01 of either sign, as real tensors have.
            let scale: u16 = match special.get(i % 97) {
                Some(&s) if i % 97 < special.len() && i > 0 => s,
                _ => (0x1c00 + (r % 0x0c00) as u16) | ((r >> 20) as u16 & 0x8000),
            };
            little.extend(scale.to_le_bytes());
            big.extend(scale.to_be_bytes());
            for j in 0..32 {
                let q = match (i + j) % 11 {
                    0 => 0,
                    1 => 0x80,
                    2 => 0x7f,
                    _ => (next() >> 7) as u8 / (1 + (i % 5) as u8),
                };
                little.push(q);
                big.push(q);
            }
        }
        [little, big]
    }

    #[test]
    fn scaled_blocks_measure_as_their_decoded_values() {
        use crate::dequant;
        use gguf_core::{Endian, GgmlType};
        for (bytes, endian) in q8_0_blocks(3000).iter().zip([Endian::Little, Endian::Big]) {
            let values = dequant::dequantize(GgmlType::Q8_0, endian, bytes).unwrap();
            let blocks = || dequant::scaled_blocks(GgmlType::Q8_0, endian, bytes).unwrap();
            let decoded = Stats::of(&values, 20, 40);
            let mut moments = Moments::new(40);
            moments.add_scaled(blocks());
            assert_eq!(moments.count, values.len() as u64);
            assert!(decoded.nan > 0 && decoded.pos_inf > 0 && decoded.neg_inf > 0);
            let finite: Vec<f32> = values.iter().copied().filter(|v| v.is_finite()).collect();
            for ((low, high), edge) in [(-1.0f32, 1.0f32), (-0.002, 0.0), (0.0, 0.0)]
                .into_iter()
                .zip([3, 20, 300])
            {
                // Edges between and on the values; everything below, inside, or above.
                let binning = Binning::new(low, high, edge);
                let mut expected = binning.histogram();
                expected.add(&binning, &values);
                let mut scaled = binning.histogram();
                scaled.add_scaled(&binning, blocks());
                assert_eq!(scaled, expected, "[{low}, {high}] in {edge}");
                assert_eq!(expected.counts.iter().sum::<u64>(), finite.len() as u64);
            }
            let binning = moments.binning(20);
            let mut histogram = binning.histogram();
            histogram.add_scaled(&binning, blocks());
            assert_close(&moments.finish(histogram), &decoded);
        }
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
