//! Checks of the tensor-info table and of where the tensor data lies: what a loader trips over
//! when it maps the data, and what a truncated download looks like.

use alloc::collections::BTreeMap;

use super::{Check, FindingCode as Code, Subject};
use crate::header::TensorInfo;
use crate::layout::{Extent, FileLayout, extent};
use crate::text::{Excerpt, Grouped, Hidden};
use crate::types::TypeStatus;

/// ggml's limit on dimensions (`GGML_MAX_DIMS`).
const MAX_DIMS: usize = 4;
/// The spec's longest tensor name; llama.cpp's `GGML_MAX_NAME` (64, NUL included) allows 63.
const MAX_NAME_LEN: usize = 64;

pub(super) fn check(c: &mut Check<'_>) {
    let h = c.header;
    let mut names: BTreeMap<&[u8], usize> = BTreeMap::new();
    for (i, t) in h.tensors.iter().enumerate() {
        tensor_info(c, i, t);
        match names.get(t.name.as_bytes()) {
            Some(&first) => c.add(
                Code::DuplicateTensorName,
                t.span.clone(),
                Subject::Tensor(i),
                format_args!(
                    "tensor #{i} is named \"{}\" like tensor #{first}",
                    t.name.excerpt()
                ),
            ),
            None => {
                names.insert(t.name.as_bytes(), i);
            }
        }
        if let Extent::Overflow = extent(h, t) {
            overflow(c, i, t);
        }
    }
    out_of_order(c);
    // Gaps, overlaps and truncation are the layout's: the map the page draws says the same.
    let layout = FileLayout::of(h, c.file_len);
    overlaps_and_gaps(c, &layout);
    if layout.has_tensors {
        past_end(c, &layout);
    }
}

/// Checks of one tensor info on its own: dimensions, type, size, name, alignment.
fn tensor_info(c: &mut Check<'_>, i: usize, t: &TensorInfo) {
    let subject = Subject::Tensor(i);
    let name = t.name.excerpt();
    match t.dims.len() {
        0 => c.add(
            Code::NoDimensions,
            t.span.clone(),
            subject,
            format_args!("tensor \"{name}\" has no dimensions"),
        ),
        n if n > MAX_DIMS => c.add(
            Code::TooManyDimensions,
            t.span.clone(),
            subject,
            format_args!("tensor \"{name}\" has {n} dimensions; ggml supports at most {MAX_DIMS}"),
        ),
        _ => {}
    }
    if let Some(d) = t.dims.iter().position(|&d| d == 0) {
        c.add(
            Code::ZeroSizedDimension,
            t.span.clone(),
            subject,
            format_args!(
                "dimension {d} of tensor \"{name}\" is 0 (shape {}): it holds no data",
                Shape(&t.dims)
            ),
        );
    }
    let ne0 = t.dims.first().copied().unwrap_or(1);
    let whole_blocks = t.ty.block_size().is_some_and(|b| ne0 % u64::from(b) == 0);
    match t.ty.status() {
        None => c.add(
            Code::UnknownTensorType,
            t.span.clone(),
            subject,
            format_args!(
                "tensor \"{name}\" has type id {}, which ggml never assigned (a fork's type?): its size is unknown",
                t.ty.0
            ),
        ),
        Some(TypeStatus::Removed) => c.add(
            Code::RemovedTensorType,
            t.span.clone(),
            subject,
            format_args!(
                "tensor \"{name}\" has type {} (id {}), removed from ggml: current llama.cpp refuses it",
                t.ty, t.ty.0
            ),
        ),
        Some(TypeStatus::Active) if !whole_blocks => c.add(
            Code::FirstDimensionNotMultipleOfBlock,
            t.span.clone(),
            subject,
            format_args!(
                "first dimension {ne0} of tensor \"{name}\" is not a multiple of {}'s block size {}",
                t.ty,
                t.ty.block_size().unwrap_or(1)
            ),
        ),
        Some(TypeStatus::Active) => {}
    }
    // ggml counts elements in int64.
    let overflow = match t.n_elements() {
        None => Some("element count"),
        Some(n) if n > i64::MAX as u64 => Some("element count"),
        Some(_) if whole_blocks && t.n_bytes().is_none() => Some("byte size"),
        Some(_) => None,
    };
    if let Some(what) = overflow {
        c.add(
            Code::TensorSizeOverflow,
            t.span.clone(),
            subject,
            format_args!(
                "the {what} of tensor \"{name}\" (shape {}) overflows 64 bits",
                Shape(&t.dims)
            ),
        );
    }
    let name_len = t.name.as_bytes().len();
    if name_len > MAX_NAME_LEN {
        c.add(
            Code::TensorNameTooLong,
            t.span.clone(),
            subject,
            format_args!(
                "tensor name \"{name}\" is {} bytes, over the limit of {MAX_NAME_LEN}",
                Grouped(name_len as u64)
            ),
        );
    } else if name_len == MAX_NAME_LEN {
        c.add(
            Code::TensorName64Bytes,
            t.span.clone(),
            subject,
            format_args!(
                "tensor name \"{name}\" is 64 bytes: the spec allows it, llama.cpp needs fewer than 64"
            ),
        );
    }
    if let Some(hidden) = Hidden::first_in(t.name.as_bytes(), &[]) {
        let at = c.tensor_name_start(t) + hidden.at as u64;
        c.add(
            Code::DisguisedText,
            at..at + hidden.c.len_utf8() as u64,
            subject,
            format_args!(
                "tensor name \"{name}\" holds U+{:04X}, {}, at position {}: it can show as another name",
                u32::from(hidden.c),
                hidden.kind(),
                hidden.at
            ),
        );
    }
    if let Err(e) = core::str::from_utf8(t.name.as_bytes()) {
        let at = c.tensor_name_start(t) + e.valid_up_to() as u64;
        c.add(
            Code::InvalidUtf8,
            at..c.tensor_name_start(t) + name_len as u64,
            subject,
            format_args!("tensor name \"{name}\" is not valid UTF-8"),
        );
    }
    let alignment = c.alignment();
    if t.offset % alignment != 0 {
        c.add(
            Code::TensorMisaligned,
            offset_field(t),
            subject,
            format_args!(
                "tensor \"{name}\" starts at data offset {}, not a multiple of the alignment {alignment}",
                t.offset
            ),
        );
    }
}

/// Dimensions as `[640, 1024]`: written out rather than through `Debug`, whose machinery would
/// weigh on the viewer's wasm.
struct Shape<'a>(&'a [u64]);

impl core::fmt::Display for Shape<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("[")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

/// The tensor info's last field, the data offset: where to fix an offset.
fn offset_field(t: &TensorInfo) -> core::ops::Range<u64> {
    t.span.end.saturating_sub(8)..t.span.end
}

/// A tensor whose size is known but whose data would end past 2^64.
fn overflow(c: &mut Check<'_>, i: usize, t: &TensorInfo) {
    c.add(
        Code::TensorSizeOverflow,
        offset_field(t),
        Subject::Tensor(i),
        format_args!(
            "tensor \"{}\" at data offset {} with {} bytes ends past 2^64",
            t.name.excerpt(),
            Grouped(t.offset),
            Grouped(t.n_bytes().unwrap_or(0))
        ),
    );
}

/// llama.cpp reads tensor data in tensor-info order only; the first tensor stored before its
/// predecessor is reported.
fn out_of_order(c: &mut Check<'_>) {
    let tensors = &c.header.tensors;
    let Some(i) = (1..tensors.len()).find(|&i| tensors[i].offset < tensors[i - 1].offset) else {
        return;
    };
    let (t, prev) = (&tensors[i], &tensors[i - 1]);
    c.add(
        Code::TensorsOutOfOrder,
        offset_field(t),
        Subject::Tensor(i),
        format_args!(
            "tensor \"{}\" (#{i}) is stored at data offset {}, before the previous tensor \"{}\" at {}: llama.cpp reads tensor data in tensor-info order only",
            t.name.excerpt(),
            Grouped(t.offset),
            prev.name.excerpt(),
            Grouped(prev.offset)
        ),
    );
}

/// Bytes claimed twice, and bytes claimed by nobody (beyond the alignment padding). Gaps are
/// only reported when every tensor's size is known.
fn overlaps_and_gaps(c: &mut Check<'_>, layout: &FileLayout) {
    let h = c.header;
    let name = |i: usize| Excerpt(h.tensors.get(i).map_or(&[][..], |t| t.name.as_bytes()));
    for o in &layout.overlaps {
        c.add(
            Code::TensorsOverlap,
            o.span.clone(),
            Subject::Tensor(o.tensor),
            format_args!(
                "tensor \"{}\" (#{}) overlaps tensor \"{}\" (#{}) by {} bytes",
                name(o.tensor),
                o.tensor,
                name(o.other),
                o.other,
                Grouped(o.span.end - o.span.start)
            ),
        );
    }
    if !layout.sizes_known {
        return;
    }
    for g in &layout.gaps {
        c.add(
            Code::TensorDataGap,
            g.span.clone(),
            Subject::Tensor(g.before),
            format_args!(
                "{} unused bytes before tensor \"{}\" (#{}): llama.cpp expects each tensor right after the previous one's padding",
                Grouped(g.span.end - g.span.start),
                name(g.before),
                g.before
            ),
        );
    }
}

/// A file that ends before its data: one finding for the whole truncation, on the first tensor cut.
fn past_end(c: &mut Check<'_>, layout: &FileLayout) {
    let h = c.header;
    let Some(len) = layout.file_len else {
        return;
    };
    if h.data_offset > len {
        c.add(
            Code::DataSectionPastEndOfFile,
            len..h.data_offset,
            Subject::File,
            format_args!(
                "the file ends at {}, before its data section at {} (header end {} padded to alignment {}): none of the {} tensors has data",
                Grouped(len),
                Grouped(h.data_offset),
                Grouped(h.header_len),
                h.alignment,
                Grouped(h.tensors.len() as u64)
            ),
        );
    }
    let Some(cut) = layout.truncation() else {
        return;
    };
    let end = cut.span.end;
    c.add(
        Code::TensorPastEndOfFile,
        cut.span.clone(),
        Subject::Tensor(cut.first),
        format_args!(
            "the file ends at {}, {} bytes short of the end of the tensor data at {} (truncated download?): {} of {} tensors are cut or missing, the first is \"{}\" (bytes {}..{})",
            Grouped(len),
            Grouped(end - len),
            Grouped(end),
            Grouped(cut.tensors as u64),
            Grouped(h.tensors.len() as u64),
            Excerpt(h.tensors.get(cut.first).map_or(&[][..], |t| t.name.as_bytes())),
            Grouped(cut.first_span.start),
            Grouped(cut.first_span.end)
        ),
    );
}
