//! Where the bytes of a file lie: the one home of the rules about its layout.
//!
//! [`FileLayout::of`] walks a header's tensors in offset order and names every byte of the file
//! that is not tensor data: the header, alignment padding, unused gaps, the tail after the last
//! tensor, and the bytes a cut-short file is missing; it also finds the tensors claiming the same
//! bytes. The validator reports its gaps, overlaps and truncation from it, and the report carries
//! its regions to the page, so the findings and the drawing of the file cannot disagree.
//!
//! [`layers`] sums the tensors per layer (`blk.N`) and per type, for the bytes-per-layer figure.
//!
//! The rules:
//! - a tensor's data is `data_offset + offset .. + n_bytes`; only tensors whose size is known and
//!   whose range fits in u64 are placed;
//! - `header` is `0..header_len`; `padding` is `header_len..data_offset`, and after each tensor
//!   the bytes up to its end rounded up to the alignment;
//! - a `gap` is the bytes beyond that padding before the next tensor (before the first tensor:
//!   the bytes after `data_offset`). Gaps are only called so when every tensor's size is known:
//!   a tensor of unknown size may hold them;
//! - the `tail` is the bytes after the last tensor's padding up to the end of the file (after
//!   `data_offset` for a file without tensors), again only when every size is known;
//! - `missing` is `file_len..` the furthest end of a tensor cut by the end of the file: the span
//!   of [`FileLayout::truncation`], which the validator reports. Padding past the end is not
//!   missing (a vocabulary-only file whose data section lies past its end misses nothing);
//! - regions other than `missing` are clipped to the file's length; adjacent regions of one kind
//!   (around a tensor without bytes) are merged, but gaps: each is one `tensor-data-gap` finding.

use alloc::vec::Vec;
use core::ops::Range;

use crate::header::{Header, TensorInfo};
use crate::sort::sort_by;
use crate::summary::TypeShare;
use crate::types::GgmlType;

/// What a region of the file that is not tensor data holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegionKind {
    /// The header: magic, counts, metadata and tensor infos.
    Header,
    /// Alignment padding: after the header up to the data section, after each tensor up to the
    /// next multiple of the alignment.
    Padding,
    /// Unused bytes beyond the padding, before the next tensor.
    Gap,
    /// Bytes after the last tensor (and its padding), up to the end of the file.
    Tail,
    /// Bytes the tensors need past the end of the file: it was cut short.
    Missing,
}

impl RegionKind {
    /// `"header"`, `"padding"`, `"gap"`, `"tail"` or `"missing"`.
    pub fn name(self) -> &'static str {
        match self {
            RegionKind::Header => "header",
            RegionKind::Padding => "padding",
            RegionKind::Gap => "gap",
            RegionKind::Tail => "tail",
            RegionKind::Missing => "missing",
        }
    }
}

/// Bytes of the file that are not tensor data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// What they hold.
    pub kind: RegionKind,
    /// Where: absolute offsets in the file.
    pub span: Range<u64>,
}

/// Where a tensor's data is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extent {
    /// Its size is unknown (unknown type, partial block, overflowing element count).
    Unknown,
    /// Its size is known, but its absolute range does not fit in u64.
    Overflow,
    /// Absolute `start..end` in the file.
    At(Range<u64>),
}

/// The absolute range of tensor `t`'s data in the file of `header`.
pub fn extent(header: &Header, t: &TensorInfo) -> Extent {
    let Some(bytes) = t.n_bytes() else {
        return Extent::Unknown;
    };
    match header
        .absolute_offset(t)
        .and_then(|start| Some(start..start.checked_add(bytes)?))
    {
        Some(range) => Extent::At(range),
        None => Extent::Overflow,
    }
}

/// A tensor whose data range is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// Its index in [`Header::tensors`].
    pub index: usize,
    /// Its absolute data range.
    pub span: Range<u64>,
}

/// Unused bytes before tensor `before` (beyond the previous tensor's padding).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gap {
    /// The tensor after the gap.
    pub before: usize,
    /// The unused bytes.
    pub span: Range<u64>,
}

/// Tensor `tensor`'s data starts inside tensor `other`'s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlap {
    /// The tensor that starts later (or, at one start, sorts later).
    pub tensor: usize,
    /// The tensor reaching furthest among those before it.
    pub other: usize,
    /// The bytes both claim.
    pub span: Range<u64>,
}

/// A file that ends before its tensor data does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncation {
    /// The first tensor cut (lowest start, then index).
    pub first: usize,
    /// Its data range.
    pub first_span: Range<u64>,
    /// How many tensors are cut or missing.
    pub tensors: usize,
    /// `file_len..` the furthest end of a cut tensor.
    pub span: Range<u64>,
}

/// Where every byte of one file lies. See the [module](self) for the rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileLayout {
    /// The file's length, when known.
    pub file_len: Option<u64>,
    /// Bytes of header.
    pub header_len: u64,
    /// Where the tensor data starts.
    pub data_offset: u64,
    /// Where the furthest placed tensor ends; `data_offset` when no tensor is placed.
    pub data_end: u64,
    /// The alignment used (at least 1).
    pub alignment: u64,
    /// Whether the header has tensors at all.
    pub has_tensors: bool,
    /// Whether every tensor is placed (its size known and its range in u64).
    pub sizes_known: bool,
    /// The placed tensors, in offset order (start, end, index).
    pub placed: Vec<Placed>,
    /// Unused bytes between tensors, in offset order, whether or not every size is known.
    pub gaps: Vec<Gap>,
    /// Bytes claimed twice, in offset order.
    pub overlaps: Vec<Overlap>,
    /// The bytes that are not tensor data, in offset order, none overlapping another.
    pub regions: Vec<Region>,
}

impl FileLayout {
    /// The layout of `header`'s file, `file_len` bytes long (`None`: as long as its data).
    pub fn of(header: &Header, file_len: Option<u64>) -> FileLayout {
        let alignment = u64::from(header.alignment).max(1);
        let mut sizes_known = true;
        // (start, end, index), sorted as plain triples (the crate's small sort).
        let mut order: Vec<(u64, u64, u64)> = Vec::with_capacity(header.tensors.len());
        for (index, t) in header.tensors.iter().enumerate() {
            match extent(header, t) {
                Extent::At(span) => order.push((span.start, span.end, index as u64)),
                Extent::Unknown | Extent::Overflow => sizes_known = false,
            }
        }
        sort_by(&mut order, Ord::cmp);
        let placed: Vec<Placed> = order
            .into_iter()
            .map(|(start, end, index)| Placed {
                index: index as usize,
                span: start..end,
            })
            .collect();

        let mut layout = FileLayout {
            file_len,
            header_len: header.header_len,
            data_offset: header.data_offset,
            data_end: header.data_offset,
            alignment,
            has_tensors: !header.tensors.is_empty(),
            sizes_known,
            placed: Vec::new(),
            gaps: Vec::new(),
            overlaps: Vec::new(),
            regions: Vec::new(),
        };
        let mut regions = Regions::new(file_len);
        regions.push(RegionKind::Header, 0..header.header_len);
        regions.push(RegionKind::Padding, header.header_len..header.data_offset);

        // The tensor whose data reaches furthest so far: `(index, end)`.
        let mut reach: Option<(usize, u64)> = None;
        for p in &placed {
            let (start, end) = (p.span.start, p.span.end);
            // Where the bytes before this tensor stop being padding.
            let (free, padded_end) = match reach {
                Some((_, r_end)) => (r_end, round_up(r_end, alignment)),
                None => (header.data_offset, header.data_offset),
            };
            match reach {
                Some((other, r_end)) if start < r_end && end > start => {
                    layout.overlaps.push(Overlap {
                        tensor: p.index,
                        other,
                        span: start..end.min(r_end),
                    });
                }
                _ if start > free => {
                    regions.push(RegionKind::Padding, free..start.min(padded_end));
                    if start > padded_end {
                        layout.gaps.push(Gap {
                            before: p.index,
                            span: padded_end..start,
                        });
                        if sizes_known {
                            regions.push(RegionKind::Gap, padded_end..start);
                        }
                    }
                }
                _ => {}
            }
            if reach.is_none_or(|(_, r_end)| end > r_end) {
                reach = Some((p.index, end));
            }
        }
        if let Some((_, r_end)) = reach {
            layout.data_end = r_end;
            regions.push(RegionKind::Padding, r_end..round_up(r_end, alignment));
        }
        let tail_from = reach.map_or(header.data_offset, |(_, r_end)| round_up(r_end, alignment));
        if sizes_known && let Some(len) = file_len {
            regions.push(RegionKind::Tail, tail_from..len);
        }
        layout.placed = placed;
        // The bytes missing are those of the cut tensors the validator reports: one rule for both.
        if let Some(cut) = layout.truncation() {
            regions.missing(cut.span);
        }
        layout.regions = regions.list;
        layout
    }

    /// The bytes missing past the end of the file: the span of [`FileLayout::truncation`].
    pub fn missing(&self) -> Option<Range<u64>> {
        self.regions
            .iter()
            .find(|r| r.kind == RegionKind::Missing)
            .map(|r| r.span.clone())
    }

    /// The tensors cut by the end of the file, when it ends before one of them does.
    pub fn truncation(&self) -> Option<Truncation> {
        let len = self.file_len?;
        let mut cut = self.placed.iter().filter(|p| p.span.end > len);
        // `placed` is in (start, end, index) order, so the first cut has the lowest start; among
        // several at that start, the lowest index.
        let first = cut.next()?;
        let mut best = first;
        let mut end = first.span.end;
        let mut tensors = 1;
        for p in cut {
            if (p.span.start, p.index) < (best.span.start, best.index) {
                best = p;
            }
            end = end.max(p.span.end);
            tensors += 1;
        }
        Some(Truncation {
            first: best.index,
            first_span: best.span.clone(),
            tensors,
            span: len..end,
        })
    }
}

/// `n` rounded up to a multiple of `alignment`, or u64::MAX when that does not fit.
fn round_up(n: u64, alignment: u64) -> u64 {
    n.checked_next_multiple_of(alignment).unwrap_or(u64::MAX)
}

/// Regions being collected: clipped to the file, empty ones dropped, adjacent ones of one kind
/// merged (but gaps).
struct Regions {
    file_len: Option<u64>,
    list: Vec<Region>,
}

impl Regions {
    fn new(file_len: Option<u64>) -> Regions {
        Regions {
            file_len,
            list: Vec::new(),
        }
    }

    fn push(&mut self, kind: RegionKind, span: Range<u64>) {
        let end = self.file_len.map_or(span.end, |len| span.end.min(len));
        self.add(kind, span.start..end);
    }

    /// Bytes past the end of the file: not clipped.
    fn missing(&mut self, span: Range<u64>) {
        self.add(RegionKind::Missing, span);
    }

    fn add(&mut self, kind: RegionKind, span: Range<u64>) {
        if span.start >= span.end {
            return;
        }
        if let Some(last) = self.list.last_mut() {
            // Gaps stay one per tensor after them, as the validator's findings are.
            if last.kind == kind && kind != RegionKind::Gap && last.span.end == span.start {
                last.span.end = span.end;
                return;
            }
        }
        self.list.push(Region { kind, span });
    }
}

/// The tensors of one layer, or of none: what the bytes-per-layer figure draws.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerFigures {
    /// `N` of `blk.N.…`; `None` for the tensors outside any layer.
    pub layer: Option<u64>,
    /// Tensors counted (those whose size and offset are known).
    pub tensors: u64,
    /// Their bytes (saturating).
    pub bytes: u64,
    /// Their elements (saturating).
    pub elements: u64,
    /// Their bytes by type, in the order of [`crate::Summary::types`] (most bytes first in the file).
    pub types: Vec<(GgmlType, u64)>,
}

impl LayerFigures {
    /// `8 × bytes / elements`; `None` without elements.
    pub fn bits_per_weight(&self) -> Option<f64> {
        crate::types::bits_per_weight(self.bytes, self.elements)
    }
}

/// The tensors of `header` summed per layer (`blk.N`, ascending), then those outside any layer,
/// each layer's bytes by type ordered as `types` (the summary's) are. Only tensors whose size and
/// offset are known count.
pub fn layers(header: &Header, types: &[TypeShare]) -> Vec<LayerFigures> {
    // Sorted and summed in runs rather than kept in maps: `(outside any layer, N, index)`,
    // layers ascending, then the tensors outside any.
    let mut order: Vec<(u64, u64, u64)> = header
        .tensors
        .iter()
        .enumerate()
        .filter(|(_, t)| matches!(extent(header, t), Extent::At(_)))
        .map(|(i, t)| match t.layer() {
            Some(n) => (0, n, i as u64),
            None => (1, 0, i as u64),
        })
        .collect();
    sort_by(&mut order, Ord::cmp);
    let rank = |ty: GgmlType| types.iter().position(|s| s.ty == ty).unwrap_or(usize::MAX);
    let mut out: Vec<LayerFigures> = Vec::new();
    for (outside, n, i) in order {
        let t = &header.tensors[i as usize];
        let layer = (outside == 0).then_some(n);
        let bytes = t.n_bytes().unwrap_or(0);
        if out.last().is_none_or(|l| l.layer != layer) {
            out.push(LayerFigures {
                layer,
                tensors: 0,
                bytes: 0,
                elements: 0,
                types: Vec::new(),
            });
        }
        let Some(sum) = out.last_mut() else { continue };
        sum.tensors += 1;
        sum.bytes = sum.bytes.saturating_add(bytes);
        sum.elements = sum.elements.saturating_add(t.n_elements().unwrap_or(0));
        // Kept in the summary's type order as they come: a layer holds a few types.
        match sum
            .types
            .iter()
            .position(|&(ty, _)| (rank(ty), ty) >= (rank(t.ty), t.ty))
        {
            Some(at) if sum.types[at].0 == t.ty => sum.types[at].1 = sum.types[at].1.saturating_add(bytes),
            Some(at) => sum.types.insert(at, (t.ty, bytes)),
            None => sum.types.push((t.ty, bytes)),
        }
    }
    out
}
