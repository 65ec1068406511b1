//! Checks of the tensor-info table and of where the tensor data lies: what a loader trips over
//! when it maps the data, and what a truncated download looks like.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::vec::Vec;

use super::{Check, FindingCode as Code, Subject};
use crate::header::TensorInfo;
use crate::types::TypeStatus;

/// ggml's limit on dimensions (`GGML_MAX_DIMS`).
const MAX_DIMS: usize = 4;
/// The spec's longest tensor name; llama.cpp's `GGML_MAX_NAME` (64, NUL included) allows 63.
const MAX_NAME_LEN: usize = 64;

/// A tensor whose data range is known: absolute `start..end`.
struct Placed {
    index: usize,
    start: u64,
    end: u64,
}

pub(super) fn check(c: &mut Check<'_>) {
    let h = c.header;
    let mut placed = Vec::with_capacity(h.tensors.len());
    let mut sizes_known = true;
    let mut names: BTreeMap<&[u8], usize> = BTreeMap::new();
    for (i, t) in h.tensors.iter().enumerate() {
        tensor_info(c, i, t);
        match names.get(t.name.as_bytes()) {
            Some(&first) => c.add(
                Code::DuplicateTensorName,
                t.span.clone(),
                Subject::Tensor(i),
                format!(
                    "tensor #{i} is named \"{}\" like tensor #{first}",
                    t.name.escaped()
                ),
            ),
            None => {
                names.insert(t.name.as_bytes(), i);
            }
        }
        match place(c, i, t) {
            Some(p) => placed.push(p),
            None => sizes_known = false,
        }
    }
    out_of_order(c);
    overlaps_and_gaps(c, &placed, sizes_known);
    if let Some(len) = c.file_len {
        if !h.tensors.is_empty() {
            past_end(c, &placed, len);
        }
    }
}

/// Checks of one tensor info on its own: dimensions, type, size, name, alignment.
fn tensor_info(c: &mut Check<'_>, i: usize, t: &TensorInfo) {
    let subject = Subject::Tensor(i);
    let name = t.name.escaped();
    match t.dims.len() {
        0 => c.add(
            Code::NoDimensions,
            t.span.clone(),
            subject,
            format!("tensor \"{name}\" has no dimensions"),
        ),
        n if n > MAX_DIMS => c.add(
            Code::TooManyDimensions,
            t.span.clone(),
            subject,
            format!("tensor \"{name}\" has {n} dimensions; ggml supports at most {MAX_DIMS}"),
        ),
        _ => {}
    }
    if let Some(d) = t.dims.iter().position(|&d| d == 0) {
        c.add(
            Code::ZeroSizedDimension,
            t.span.clone(),
            subject,
            format!(
                "dimension {d} of tensor \"{name}\" is 0 (shape {:?}): it holds no data",
                t.dims
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
            format!(
                "tensor \"{name}\" has type id {}, which ggml never assigned (a fork's type?): its size is unknown",
                t.ty.0
            ),
        ),
        Some(TypeStatus::Removed) => c.add(
            Code::RemovedTensorType,
            t.span.clone(),
            subject,
            format!(
                "tensor \"{name}\" has type {} (id {}), removed from ggml: current llama.cpp refuses it",
                t.ty, t.ty.0
            ),
        ),
        Some(TypeStatus::Active) if !whole_blocks => c.add(
            Code::FirstDimensionNotMultipleOfBlock,
            t.span.clone(),
            subject,
            format!(
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
            format!(
                "the {what} of tensor \"{name}\" (shape {:?}) overflows 64 bits",
                t.dims
            ),
        );
    }
    let name_len = t.name.as_bytes().len();
    if name_len > MAX_NAME_LEN {
        c.add(
            Code::TensorNameTooLong,
            t.span.clone(),
            subject,
            format!("tensor name \"{name}\" is {name_len} bytes, over the limit of {MAX_NAME_LEN}"),
        );
    } else if name_len == MAX_NAME_LEN {
        c.add(
            Code::TensorName64Bytes,
            t.span.clone(),
            subject,
            format!("tensor name \"{name}\" is 64 bytes: the spec allows it, llama.cpp needs fewer than 64"),
        );
    }
    if let Err(e) = core::str::from_utf8(t.name.as_bytes()) {
        let at = c.tensor_name_start(t) + e.valid_up_to() as u64;
        c.add(
            Code::InvalidUtf8,
            at..c.tensor_name_start(t) + name_len as u64,
            subject,
            format!("tensor name \"{name}\" is not valid UTF-8"),
        );
    }
    let alignment = c.alignment();
    if t.offset % alignment != 0 {
        c.add(
            Code::TensorMisaligned,
            offset_field(t),
            subject,
            format!(
                "tensor \"{name}\" starts at data offset {}, not a multiple of the alignment {alignment}",
                t.offset
            ),
        );
    }
}

/// The tensor info's last field, the data offset: where to fix an offset.
fn offset_field(t: &TensorInfo) -> core::ops::Range<u64> {
    t.span.end.saturating_sub(8)..t.span.end
}

/// The tensor's absolute data range, when its size is known and fits in u64.
fn place(c: &mut Check<'_>, i: usize, t: &TensorInfo) -> Option<Placed> {
    let bytes = t.n_bytes()?;
    let start = c.header.absolute_offset(t);
    match start.and_then(|s| Some((s, s.checked_add(bytes)?))) {
        Some((start, end)) => Some(Placed { index: i, start, end }),
        None => {
            c.add(
                Code::TensorSizeOverflow,
                offset_field(t),
                Subject::Tensor(i),
                format!(
                    "tensor \"{}\" at data offset {} with {bytes} bytes ends past 2^64",
                    t.name.escaped(),
                    t.offset
                ),
            );
            None
        }
    }
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
        format!(
            "tensor \"{}\" (#{i}) is stored at data offset {}, before the previous tensor \"{}\" at {}: llama.cpp reads tensor data in tensor-info order only",
            t.name.escaped(),
            t.offset,
            prev.name.escaped(),
            prev.offset
        ),
    );
}

/// Walks the tensors in offset order: bytes claimed twice, and bytes claimed by nobody. Gaps
/// are only reported when every tensor's size is known.
fn overlaps_and_gaps(c: &mut Check<'_>, placed: &[Placed], sizes_known: bool) {
    let h = c.header;
    let alignment = c.alignment();
    let mut sorted: Vec<&Placed> = placed.iter().collect();
    sorted.sort_unstable_by_key(|p| (p.start, p.end, p.index));
    // The tensor whose data reaches furthest so far.
    let mut reach: Option<&Placed> = None;
    for p in sorted {
        let name = h.tensors[p.index].name.escaped();
        let padded_end = match reach {
            Some(r) => r.end.checked_next_multiple_of(alignment).unwrap_or(u64::MAX),
            None => h.data_offset,
        };
        match reach {
            Some(r) if p.start < r.end && p.end > p.start => c.add(
                Code::TensorsOverlap,
                p.start..p.end.min(r.end),
                Subject::Tensor(p.index),
                format!(
                    "tensor \"{name}\" (#{}) overlaps tensor \"{}\" (#{}) by {} bytes",
                    p.index,
                    h.tensors[r.index].name.escaped(),
                    r.index,
                    p.end.min(r.end) - p.start
                ),
            ),
            _ if sizes_known && p.start > padded_end => c.add(
                Code::TensorDataGap,
                padded_end..p.start,
                Subject::Tensor(p.index),
                format!(
                    "{} unused bytes before tensor \"{name}\" (#{}): llama.cpp expects each tensor right after the previous one's padding",
                    p.start - padded_end,
                    p.index
                ),
            ),
            _ => {}
        }
        if reach.is_none_or(|r| p.end > r.end) {
            reach = Some(p);
        }
    }
}

/// A file that ends before its data: one finding for the whole truncation, on the first tensor cut.
fn past_end(c: &mut Check<'_>, placed: &[Placed], len: u64) {
    let h = c.header;
    if h.data_offset > len {
        c.add(
            Code::DataSectionPastEndOfFile,
            len..h.data_offset,
            Subject::File,
            format!(
                "the file ends at {len}, before its data section at {} (header end {} padded to alignment {}): none of the {} tensors has data",
                h.data_offset,
                h.header_len,
                h.alignment,
                h.tensors.len()
            ),
        );
    }
    let cut: Vec<&Placed> = placed.iter().filter(|p| p.end > len).collect();
    let Some(first) = cut.iter().min_by_key(|p| (p.start, p.index)) else {
        return;
    };
    let end = cut.iter().map(|p| p.end).max().unwrap_or(first.end);
    c.add(
        Code::TensorPastEndOfFile,
        len..end,
        Subject::Tensor(first.index),
        format!(
            "the file ends at {len}, {} bytes short of the end of the tensor data at {end} (truncated download?): {} of {} tensors are cut or missing, the first is \"{}\" (bytes {}..{})",
            end - len,
            cut.len(),
            h.tensors.len(),
            h.tensors[first.index].name.escaped(),
            first.start,
            first.end
        ),
    );
}
