//! The model buffer: the weights. llama.cpp memory-maps the file and hands the CPU backend the
//! range from the first tensor's data to the last one's end (`get_mapping_range`), so the
//! buffer is that range of the file; a CPU whose instruction set has a faster layout for a type
//! (AVX2, AVX-512, NEON: `ggml-cpu/repack.cpp`) copies those matrices into a `CPU_REPACK`
//! buffer as well, which only the CPU decides.

use super::estimate::Range;
use crate::header::Header;
use crate::types::GgmlType;

/// Types the CPU backend may repack (Q4_0, Q4_K, IQ4_NL, Q8_0, Q2_K, Q6_K, MXFP4 … by build).
const REPACKABLE: [GgmlType; 7] = [
    GgmlType::Q4_0,
    GgmlType::Q4_K,
    GgmlType::IQ4_NL,
    GgmlType::Q8_0,
    GgmlType::Q2_K,
    GgmlType::Q6_K,
    GgmlType::MXFP4,
];

/// The mapped range, and up to it plus every matrix (experts too) of a repackable type.
pub(crate) fn model_bytes(header: &Header) -> Range {
    let mut first = u64::MAX;
    let mut last = 0u64;
    let mut repackable = 0u64;
    let mut sum = 0u64;
    for t in &header.tensors {
        let Some(bytes) = t.n_bytes() else { continue };
        sum = sum.saturating_add(bytes);
        first = first.min(t.offset);
        last = last.max(t.offset.saturating_add(bytes));
        if t.dims.len() >= 2 && REPACKABLE.contains(&t.ty) {
            repackable += bytes;
        }
    }
    // A split model's header holds every shard's tensors at offsets within their own file, one
    // mapping each: their ranges overlap, and the tensors' sum is the better figure. For one file
    // the range (the tensors and the padding between them) is never below the sum.
    let mapped = last
        .saturating_sub(if first == u64::MAX { 0 } else { first })
        .max(sum);
    Range {
        bytes: mapped,
        low: mapped,
        high: mapped.saturating_add(repackable),
    }
}
